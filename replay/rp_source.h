/* SPDX-License-Identifier: MIT */
/*
 * rp_source.h - what a replay replays (libreplay; replay.h includes it):
 * the ops and the layout a source describes before anything runs (files,
 * threads, placements), the sources (a trace, replicas of a source, a job
 * file, a DLIO workload), fio iologs of a trace, and DIR: its confinement
 * and the preparation of the files a layout reads.
 */
#ifndef IOTAPE_RP_SOURCE_H
#define IOTAPE_RP_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "hist.h"
#include "map.h"
#include "ops.h"

#define RP_MARKER CM_REPLAY_MARKER	/* marker file in a prepared DIR */
#define RP_ALIGN 4096u			/* O_DIRECT alignment */
#define RP_COPY_DIR ".iotape-copy-"	/* --scale-dataset: DIR/.iotape-copy-K/ */
#define RP_DIR_ITSELF "."		/* the layout's name of DIR itself (the
					 * recorded root, "/") */
#define RP_ACC_DIR ".iotape-acc-"	/* --accelerators: what accelerator A >= 1
					 * writes, DIR/.iotape-acc-A/ */

/* Op kinds are the op vocabulary's (common/ops.h). */
#define RP_KIND_MAX CM_KIND_MAX
#define rp_kind_name cm_kind_name

enum rp_timing { RP_TIME_ORIGINAL, RP_TIME_THINK, RP_TIME_AFAP };	/* choice order */

/* ---------------------------------------------------------------- ops */

/* rp_op.flags */
#define RP_F_OVERLAP (1u << 0)	/* recorded while earlier data ops of the
				 * thread were in flight: may be issued
				 * without waiting for them */
#define RP_F_REALCLOSE (1u << 2) /* last alias of the slot: close the fd */
#define RP_F_FAULT   (1u << 3)	/* a read replaying page faults on a file
				 * mapping, not a syscall */
#define RP_F_FAILED  (1u << 4)	/* a metadata op that failed in the
				 * recording: it should fail again */
#define RP_F_ABSENT  (1u << 5)	/* a stat, unlink, rename of what the job
				 * made by an op the replay does not issue (a
				 * socket's bind) in a directory the job
				 * made: it fails in the replay, as expected */
#define RP_F_SKIP    (1u << 6)	/* not issued: the op only keeps its place
				 * in the thread's order and timing (an
				 * accelerator that is not a checkpoint
				 * writer); counted in rp_job.unissued */
#define RP_F_MARK    (1u << 7)	/* the end of the job's first training
				 * step (warm-up): the job's time and compute
				 * until its issue are noted apart
				 * (rp_job.mark_ns), for an AU without them */
#define RP_F_STEP    (1u << 8)	/* not issued, not counted: a placeholder
				 * that only carries a compute gap and a
				 * wait (the job-file trainer's step) */
#define RP_F_VIA     (1u << 9)	/* open: the job opened file through the
				 * path of file2, which leads to it through
				 * symlinks (layout.links): opened by that
				 * path, as the job did */
#define RP_F_HANDOVER (1u << 10)	/* its dependency is a hand-over: the
				 * thread waited for dep_thread's data (a
				 * wakeup, a pipe's bytes) and works only
				 * after it: a wait that delays it is the
				 * job's stall, not made up for later */
#define RP_F_EPOCH   (1u << 11)	/* a placeholder (RP_F_STEP) marking a
				 * bound of an epoch's AU window (DLIO's):
				 * off is the mark's index (rp_layout.nmarks);
				 * the engine notes the thread's wall and
				 * compute there (rp_job.marks) */
#define RP_F_STEPEND (1u << 12)	/* the training thread's first op after
				 * the end of a step, as the source counts
				 * steps (layout.steps_marked) */
#define RP_NO_SLOT UINT32_MAX	/* rp_op.slot of a metadata op by path */
#define RP_NO_FILE UINT32_MAX	/* rp_op_done.file2 of an op with one file */

/*
 * One op, as a source hands it to the engine.  Cross-thread order is a
 * (thread, sequence) pair: the op may start once thread dep_thread has
 * completed its first dep_seq ops of the loop (dep_seq 0: no wait).  A
 * thread's ops are numbered 1, 2, ... in the order next() gives them.
 */
struct rp_op {
	uint64_t ts;		/* ns since the recorded start */
	uint64_t end;		/* ts + recorded duration */
	uint64_t off, len;	/* data ops: what the recording transferred */
	uint32_t kind;		/* enum cm_kind */
	uint32_t flags;		/* RP_F_* */
	uint32_t slot;		/* fd slot (open, close, data, sync) */
	uint32_t file, file2;	/* layout file indexes (open, namespace ops) */
	uint32_t oflags;	/* open: open(2) flags to use; unlink:
				 * AT_REMOVEDIR for a rmdir; stat: the AT_*
				 * flags */
	uint32_t conc;		/* data ops of the thread in flight when it was
				 * issued, itself included (1 = none before) */
	uint32_t dep_thread;
	uint32_t dep_seq;
	uint32_t slot2;		/* dup: the slot whose fd it duplicates into
				 * slot (each fd of the job its own slot) */
	uint64_t wait;		/* of the recorded gap before the op, the
				 * part spent waiting for dep_thread (a
				 * hand-over): the dependency stands for it,
				 * it is not replayed as compute */
};

/* ------------------------------------------------------------- layout */

#define RP_NO_DIR UINT32_MAX	/* rp_file.dir of a file right under DIR */
#define RP_MEMFS_MAX 8		/* places of skipped memory fs ops told apart */

struct rp_file {
	uint64_t size;		/* size to prepare */
	uint64_t rbytes, wbytes;/* recorded bytes read / written, one loop */
	uint32_t dir;		/* the layout dir it is created, unlinked or
				 * renamed in, RP_NO_DIR */
	uint8_t prepare : 1;	/* must exist before the replay */
	uint8_t from_table : 1;	/* size came from the file table */
	uint8_t isdir : 1;	/* a directory: prepared with mkdir */
	uint8_t modified : 1;	/* opened for writing, written, created,
				 * unlinked or renamed by the job */
	uint8_t dataset : 1;	/* in the data set (rp_trace_opts.dataset),
				 * prepared, only read (no write, create,
				 * unlink or rename): --scale-dataset copies it */
	uint8_t excl : 1;	/* first made by an O_CREAT|O_EXCL open: it must
				 * not exist when a loop starts */
	uint8_t made_dir : 1;	/* the job made it with mkdir */
	uint8_t holes : 1;	/* prepared, never read: its data need not be
				 * written (a file only stat'ed, opened) */
	uint8_t symlink : 1;	/* a symlink of the job (layout.links): made by
				 * prepare, never a regular file */
	uint8_t apart : 1;	/* placed apart from its directory's placement
				 * (rp_layout_place): prepare makes its parent
				 * under its own, the engine resolves the
				 * parent at each op (dir is RP_NO_DIR) */
	uint8_t place;		/* placement: which DIR it lives under, an
				 * index in the dirfds the caller gives
				 * (0: DIR itself) */
};

#define RP_STEP_GAP_NS 1000000ull	/* a training step: a compute gap of
					 * the training thread this long */

/* A symlink of the job: layout file `file` (rp_file.symlink) leads to
 * layout file `target` (a file, or a directory).  Prepare makes it
 * relative (rp_link_target). */
struct rp_link {
	uint32_t file, target;
};

struct rp_thread {
	uint32_t tid, pid;	/* as recorded */
	uint32_t accel;		/* simulated accelerator (rp_replica_open) */
	uint64_t nops;		/* ops per loop */
	uint64_t compute_ns;	/* recorded gaps between its ops (one loop) */
	uint64_t steps;		/* of those, the RP_STEP_GAP_NS or longer */
	uint64_t prev_end;	/* (the source's, while it makes the layout) */
	uint64_t maxlen;	/* largest data op */
	unsigned depth;		/* most data ops the recording had in flight */
	uint8_t loader;		/* it hands the training thread data (a pipe it
				 * writes, a wakeup; or through another that
				 * does): a data loader (--loader-cpu-scale) */
	uint8_t train;		/* the training thread (layout.train; of its
				 * accelerator, with replicas) */
};

/* A slot opened before the clock starts: used without a recorded open
 * (opened before the recording began, or a page-fault read's mapping). */
struct rp_slot0 {
	uint32_t slot, file, oflags;
};

/*
 * What prepare, the engine and the report need before the replay runs:
 * grows with files and threads only.  Filled by the source's open; read
 * only from then on (the engine's threads read it concurrently).
 */
struct rp_layout {
	struct cm_strtab paths;	/* file i's path relative to DIR: id i */
	struct rp_file *files;
	size_t nfiles;
	/* The directories the job creates, unlinks or renames files in (the
	 * parents of those files), relative to DIR: the engine keeps an fd
	 * of each open instead of resolving them at every op.  Those the job
	 * does not make itself (dir_made 0) are made by prepare. */
	struct cm_strtab dirs;
	uint8_t *dir_made;
	uint8_t *dir_place;	/* per dir: its placement (NULL: all 0) */
	unsigned nplaces;	/* placements the files use: 1 + the highest
				 * rp_file.place (0 taken as 1) */
	struct rp_thread *threads;
	size_t nthreads;
	struct rp_slot0 *slot0;
	size_t nslot0;
	struct rp_link *links;	/* the job's symlinks, in the order found (a
				 * link under another comes after it) */
	size_t nlinks;
	uint32_t nslots;	/* slot numbers are below this */
	uint64_t span;		/* last op end - first op start (ns) */
	uint64_t expected[RP_KIND_MAX];	/* ops per kind and loop */
	uint64_t skipped;	/* recorded ops not replayed (stat, mmap, ...) */
	uint64_t failed;	/* recorded ops that failed (not replayed) */
	uint64_t unmatched;	/* fd ops with no open and no path */
	uint64_t not_storage;	/* ops on pipes, sockets, devices (file table) */
	uint64_t fault_reads;	/* reads made from page-fault events */
	uint64_t fault_pages;	/* pages those reads cover */
	uint64_t faults_unmatched; /* fault events on a file with no path */
	uint64_t faults_code;	/* fault events on programs and libraries */
	uint64_t faults_shm;	/* fault events on files under /dev (memory) */
	uint64_t dataset_bytes;	/* recorded reads of dataset files */
	unsigned readers_recorded; /* the trace source's reader what-ifs: the
				    * reader threads found */
	int direct;		/* the source opens the files O_DIRECT, their
				 * sizes aligned (--direct: its options') */
	uint64_t late;		/* rows further out of time order than the
				 * source's window: replayed where they came */
	uint64_t opens_inferred;/* opens whose flags the trace did not carry,
				 * inferred from the writes through them */
	/* ops on pseudo and memory file systems (/proc, /sys, /dev/shm, ...:
	 * kernel state and memory, not storage), not replayed, by where */
	uint64_t memfs_ops;
	struct rp_memfs { char where[24]; uint64_t ops; } memfs[RP_MEMFS_MAX];
	unsigned nmemfs;
	/* the training thread + 1, when the source knows it (0: the one with
	 * the most compute, rp_train_thread), and the marks of its epochs'
	 * AU windows: mark 2e and 2e + 1 bound epoch e's (DLIO's: from the
	 * end of its first step to the end of its last) */
	uint32_t train;
	unsigned nmarks;
	uint64_t handovers;	/* ops that wait for another thread's data */
	/* the source marks the training thread's steps (RP_F_STEPEND) and
	 * counts them in its rp_thread.steps: the replica's steps are those
	 * (0: its compute gaps of RP_STEP_GAP_NS or more) */
	uint8_t steps_marked;
};

static inline const char *rp_file_path(const struct rp_layout *l, uint32_t f)
{
	return cm_strtab_str(&l->paths, f);
}
void rp_layout_release(struct rp_layout *l);
/* The layout's counts of what the recording did (expected ops, skipped,
 * failed, fault reads, dataset bytes, ...) for num copies of the job
 * where they were for den (the replica: n for 1; --mpi: all accelerators
 * for a rank's).  The file, thread and slot tables are left alone. */
void rp_layout_scale_counts(struct rp_layout *l, uint64_t num, uint64_t den);

/* Map a recorded path to one relative to DIR (common/path.h, relative, no
 * ".."): -EPERM on "..", -EINVAL when empty, naming the marker, prepare's
 * temporary name (RP_PREP_TMP, as any component) or under a dataset copy
 * (RP_COPY_DIR*).  In place.  (The trace source names the
 * root, which maps to "", DIR itself: RP_DIR_ITSELF.) */
int rp_path_map(char *path);
/*
 * The job's symlinks (rp_links.c): via[2i] is the layout file of a path
 * the job opened, via[2i + 1] the file it reached (the real path the file
 * table gave), for nvia such pairs.  Adds layout.links (and their files:
 * rp_file.symlink, a target directory no file made as a directory), and
 * sets via_ok[i] when the links lead pair i's path to its file.  With
 * resolved (not NULL), *resolved[f] is, for each file f of the layout
 * before the call whose path lies under a link, the layout file that path
 * leads to (RP_NO_FILE for the others; malloc'd, NULL when no link was
 * found), which takes over its preparing.  0 or -ENOMEM.
 */
int rp_layout_links(struct rp_layout *l, const uint32_t *via, size_t nvia, uint8_t *via_ok,
		    uint32_t **resolved);
/* The relative target of a link at path from (under DIR) that leads to
 * path to: "../usr/share/zoneinfo/Etc/UTC" from "etc/localtime".  0 or
 * -ENAMETOOLONG. */
int rp_link_target(const char *from, const char *to, char *buf, size_t len);
/* Path of dataset copy k of file f (k 0: the file's own path) in buf. */
const char *rp_copy_path(const struct rp_layout *l, uint32_t f, unsigned k, char *buf,
			 size_t len);

/* ---------------------------------------------------------- placements */

/*
 * Placements (--place, --stage-hot): each file of a layout lives under one
 * of several directories, each confined as DIR is; placement 0 is DIR.
 * The layout only says which (rp_file.place, rp_layout.dir_place); the
 * caller owns one dirfd per placement and hands the array to prepare and
 * the engine.
 */
#define RP_PLACE_MAX 64		/* placements, DIR included */

/*
 * A glob's match of a layout path (as mapped under DIR): a glob with a
 * '/' is matched against the whole path, '*' crossing '/' (fnmatch
 * without FNM_PATHNAME), its leading '/'s left out ('/ckpt/ *' as the
 * path was recorded, or 'ckpt/ *'); one without a '/' against the last
 * component only, so '*.pt' matches every checkpoint file wherever it is.
 */
int rp_place_match(const char *glob, const char *path);
/*
 * Set each file's placement: the index (1 .. n) of the first of globs[0 ..
 * n-1] its path matches, 0 when none.  Then rp_layout_place_done.  0, or
 * -EINVAL (n >= RP_PLACE_MAX).
 */
int rp_layout_place(struct rp_layout *l, const char *const *globs, size_t n);
/*
 * After the files' placements were set (by rp_layout_place, or one by one
 * in rp_file.place): set nplaces, each dir's placement (that of the file
 * of the same path, else of its first file) and the files placed apart
 * from their dir.  0 or -ENOMEM (nothing changed).
 */
int rp_layout_place_done(struct rp_layout *l);

/* ------------------------------------------------------------- sources */

struct rp_source;
struct rp_source_ops {
	/* Begin handing out ops for loops 0 .. loops-1 (the trace source
	 * starts its feeder and fills the queues before it returns). */
	int (*start)(struct rp_source *s, unsigned loops);
	/* Thread t's next op of the current loop: 1, 0 when the thread's
	 * loop is over (the next call gives the next loop's first op), or
	 * -errno.  Called only from thread t's replay thread. */
	int (*next)(struct rp_source *s, unsigned t, struct rp_op *op);
	/* Before loop > 0, from thread t: start its ops again.  NULL for a
	 * source that hands out the loops in order by itself. */
	int (*rewind)(struct rp_source *s, unsigned t, unsigned loop);
	/* After the threads ended (also after a failed start): stop
	 * handing out ops; 0, or the -errno that cut the ops short. */
	int (*stop)(struct rp_source *s);
	void (*free)(struct rp_source *s);
};

/*
 * The directory resolver: where the engine finds each file of a layout.
 * The engine opens, creates, renames and restores through it, and knows
 * of directories no more than the dirfd it was given: placements (a file
 * under another DIR: --place, --stage-hot, --burst-buffer) and the data
 * set's copies (--scale-dataset K: loop l reads copy l % K) are a
 * resolver's.  rp_places (rp_hook.h) is the one of DIR, its placements
 * and copies; the caller sets it on the source before rp_engine_init.
 * None (file NULL): every file at its path beneath the engine's dirfd.
 * Called from the replay threads at once (loop: no replay thread runs).
 */
struct rp_dirs {
	void *arg;
	/* The fd file f is resolved beneath in the current loop; with path,
	 * *path: its path there (the layout's, or a copy's written into buf,
	 * len bytes). */
	int (*file)(void *arg, uint32_t f, const char **path, char *buf, size_t len);
	/* The fd layout directory d (rp_layout.dirs) is resolved beneath. */
	int (*dir)(void *arg, uint32_t d);
	/* Whether file f may be opened by the path of link g (RP_F_VIA): g
	 * resolves beneath f's fd, and leads to the f this loop reads. */
	int (*via)(void *arg, uint32_t f, uint32_t g);
	/* Loop `loop` is about to start: the files as prepare made them
	 * (restored, but in the first loop after prepare, which the marker of
	 * each DIR tells, rp_take_prepared).  1: they were so already (nothing
	 * restored), 0: restored. */
	int (*loop)(void *arg, unsigned loop);
};

struct rp_source {
	const struct rp_source_ops *ops;
	struct rp_layout layout;
	struct rp_dirs dirs;	/* the caller's (zero: none) */
	/* A bounded run (--runtime), set by the source's open: next() hands
	 * out no more ops this long after start() (0: no bound).  The engine
	 * bounds its run the same from its own start: it sleeps no later,
	 * and does not issue an op it took whose start falls past it, so
	 * the run ends there (plus the ops then in flight). */
	uint64_t runtime_ns;
	char err[256];		/* what stop()'s error was about */
};

struct rp_trace_opts {
	int direct;		/* sizes aligned for O_DIRECT */
	int no_metadata;	/* leave stat, getdents64, ... out */
	uint64_t queue_bytes;	/* bound of the queued ops, 0: 64 MiB */
	/* the reader what-ifs (0: not asked), rp_trace_open says how */
	unsigned reader_threads, prefetch;
	/* a merged trace (iotape merge): replay host `host`'s events only
	 * (replay --mpi: rank r replays host r) */
	int has_host;
	unsigned host;
	/* the hand-overs (iotape-replay(1), HAND-OVERS): with the trace's
	 * sched table, a thread's wait for another thread of the job (a
	 * wakeup it recorded, the bytes of a pipe another wrote) is replayed
	 * as a dependency on that thread, not as a delay; no_handover: as a
	 * delay, as traces without one are */
	int no_handover;
	/* the training thread (iotape-analyze(1), ACCELERATOR: its tid; 0,
	 * the source's own rule) and the recorded times of its epochs' AU
	 * windows, 2 per epoch (from, to; copied) */
	uint32_t train_tid;
	const uint64_t *marks;
	unsigned nmarks;
	/* the training thread's steps as the analysis counts them (the one
	 * step rule, iotape-analyze(1) ACCELERATOR): the recorded time (ns)
	 * each ended at, the start of the trainer's call that ended it
	 * (UINT64_MAX: the trace ended in it); copied.  With train_tid: its
	 * op at or after each is marked RP_F_STEPEND, and they are its
	 * steps per loop.  NULL: the source's own rule (its compute gaps of
	 * RP_STEP_GAP_NS or more, hand-over waits left out) */
	const uint64_t *steps;
	size_t nsteps;
	/* the data set as the analysis finds it (the one data-set rule,
	 * iotape-analyze(1) DATA SET): its files' paths as recorded, read
	 * during rp_trace_open only.  A file of the layout is in the data set
	 * (rp_file.dataset) when it is one of them, prepared and only read.
	 * has_dataset 0: every prepared, only-read file */
	int has_dataset;
	const char *const *dataset;
	size_t ndataset;
};
/*
 * The trace source: a pass over TRACE makes the layout (paths confined:
 * ".." refused with -EPERM and a message in err, as are empty paths and
 * paths naming the marker); start() then decodes the trace again, once
 * per loop, as the replay runs.  o may be NULL (the defaults).
 */
/*
 * The reader what-ifs: the reader threads are those with 1% of the bytes
 * read of data set files (rp_file.dataset) at least, found by a first
 * open; a reader's group is its open of a data set file and its ops
 * through that fd up to the close.  reader_threads N: the groups are
 * dealt round-robin, in the order of their opens, over N new threads
 * (virtual readers; tids after the trace's), each op keeping its recorded
 * gap after the recorded reader's previous op and its duration (the
 * virtual reader's times are made of those); the other ops stay on their
 * threads.  prefetch K: each op of a group waits for the trainer
 * (rp_train_thread) to end its step K before the one it was in when the
 * group was opened (steps: rp_trace_opts.steps, RP_F_STEPEND).
 * -ENOENT, with why in err, when no thread reads the data set.
 * layout.readers_recorded: how many readers were found.
 */
int rp_trace_open(struct rp_source **out, const char *trace, const struct rp_trace_opts *o,
		  char *err, size_t errlen);
void rp_source_free(struct rp_source *s);	/* NULL: nothing */

/*
 * The replica source: n simulated accelerators, each running the job of
 * its own instance of an inner source, all at once (rp_replica.c says how
 * their files are named).  open(arg, a, ...) opens accelerator a's
 * instance; every instance must have the same layout.  The replica owns
 * them from then on.
 */
typedef int (*rp_source_open_fn)(void *arg, unsigned accel, struct rp_source **out, char *err,
				 size_t errlen);
struct rp_replica_opts {
	unsigned accelerators;	/* n (0: 1) */
	unsigned base;		/* global index of the first (MPI: the
				 * accelerators of the ranks before): the
				 * accelerators are base .. base + n - 1,
				 * in their jobs and the names of their files */
	int writers_one;	/* only accelerator 0 issues the ops on the
				 * files the job writes */
	uint64_t runtime_ns;	/* every thread's ops end this long after
				 * start (0: no bound) */
	int sync_steps;		/* every accelerator's training thread waits
				 * for the others at each step */
	/* with sync_steps: called at each step once every accelerator here
	 * is at it, before they go on (by one of their threads; MPI: the
	 * other ranks' accelerators) */
	void (*step)(void *arg);
	void *step_arg;
};
/* The training thread of a layout: the source's (layout.train: the trace
 * analysis's, iotape-analyze(1) ACCELERATOR), else the one with the most
 * compute; its steps are the job's: those the source marks
 * (layout.steps_marked), else its compute gaps of RP_STEP_GAP_NS or
 * more. */
size_t rp_train_thread(const struct rp_layout *l);
/* Whether the job has no compute at all (no thread with a compute gap):
 * then accelerator utilization is not defined (n/a). */
int rp_layout_no_compute(const struct rp_layout *l);
int rp_replica_open(struct rp_source **out, const struct rp_replica_opts *o,
		    rp_source_open_fn open, void *arg, char *err, size_t errlen);

/* ------------------------------------------------------------ job files */

/* A job file (man/iotape-job.5): the synthetic job it describes. */
#define RP_JOB_STR 256
/* reader.mmap: the default fault window (the kernel's fault_around_bytes),
 * and the most memory the readers' bitmaps of mapped windows may take. */
#define RP_JOB_MAP_WINDOW (64u << 10)
#define RP_JOB_MAP_MAX (1ull << 30)

/* reader.file_shuffle */
enum { RP_SHUFFLE_OFF, RP_SHUFFLE_ON, RP_SHUFFLE_ONCE };
#define RP_JOB_LINE_SET UINT32_MAX	/* key_line of a key an option gave */

struct rp_jobspec {
	char name[RP_JOB_STR];
	char data_folder[RP_JOB_STR], file_prefix[64], file_suffix[64];
	uint64_t num_files, num_subfolders, num_samples_per_file;
	uint64_t record_length, record_length_stdev, record_length_min, record_length_max;
	int generate;		/* dataset.generate: the job writes the data set */
	uint64_t read_threads, batch_size, transfer_size, prefetch_size;
	int file_shuffle;	/* RP_SHUFFLE_*: a new order each epoch, one
				 * order for all epochs, name order */
	int sample_shuffle, odirect, read_eof, drop_last;
	int mmap;		/* reader.mmap: samples reached through a map */
	uint64_t epochs, seed;
	uint64_t steps_per_epoch;	/* without a data set (num_files 0): the
					 * epoch's steps; with one, at most that
					 * many of its batches; 0: not given */
	double computation_time, computation_time_stdev;	/* seconds */
	int computation_time_distribution;	/* 0 normal, 1 log-normal */
	int checkpoint;		/* a [checkpoint] section */
	char checkpoint_folder[RP_JOB_STR];
	uint64_t epochs_between_checkpoints, steps_between_checkpoints;
	uint64_t checkpoint_after_epoch;	/* 0: epochs_between_checkpoints */
	uint64_t num_checkpoints_write, num_checkpoints_read;	/* checkpoints only
					 * (no data set): given when seen */
	uint64_t ckpt_size, ckpt_files, ckpt_transfer_size;
	int ckpt_fsync, ckpt_rename, ckpt_read_back;
	/* (the parser's) */
	uint64_t seen[2];	/* keys given, by table index */
	unsigned sec_line[8];	/* line of each section's header */
	unsigned key_line[64];	/* line of each key given, RP_JOB_LINE_SET
				 * where an option gave it (key_what) */
	char key_what[64][80];	/* that option ("--set KEY=VALUE", "--seed") */
	unsigned last_line;
};
/* j with every key at its default (iotape-job(5)) and none given: the
 * start of rp_jobspec_parse, or of a job built with rp_jobspec_set. */
void rp_jobspec_init(struct rp_jobspec *j);
/*
 * Parse job file path into j (defaults first): 0, or -EINVAL with
 * "PATH:LINE: what" in err (unknown section or key, a value of the wrong
 * type or out of range, a missing required key), -errno when it cannot be
 * read.  Then rp_jobspec_set for each override, then rp_jobspec_check.
 */
int rp_jobspec_parse(struct rp_jobspec *j, const char *path, char *err, size_t errlen);
/* One override "section.key=value" (--set), validated as in a file; the
 * message starts with what: "WHAT: ...".  0 or -EINVAL. */
int rp_jobspec_set(struct rp_jobspec *j, const char *kv, const char *what, char *err,
		   size_t errlen);
/* The checks across keys (required keys, min <= max): 0 or -EINVAL. */
int rp_jobspec_check(const struct rp_jobspec *j, const char *path, char *err, size_t errlen);
/* Whether path is a regular file whose first bytes look like a job file
 * (text starting with '[', ';', '#' or blank, or nothing at all: the
 * parser then says it is empty), not a trace. */
int rp_job_sniff(const char *path);
/*
 * The job's steps per epoch and its checkpoints: the steps it writes one
 * after (*writes), and the checkpoints it reads back after its last step
 * (*reads, num_checkpoints_read); a checked j.
 */
uint64_t rp_jobspec_steps_per_epoch(const struct rp_jobspec *j);
void rp_jobspec_checkpoints(const struct rp_jobspec *j, uint64_t *writes, uint64_t *reads);
/*
 * Whether the file system of dir (or of its nearest existing parent) has
 * the inodes and, unless sparse, the room for the data set of j, copies
 * times (one per accelerator), before anything is made: 0, or -ENOSPC
 * with what is missing in err, or -errno when dir cannot be looked at.
 * Nothing is allocated per file.
 */
int rp_jobspec_room(const struct rp_jobspec *j, const char *dir, unsigned copies, int sparse,
		    char *err, size_t errlen);

struct cm_job;
/*
 * The job a model made (common/job.h: `iotape model`'s keys) as j: each
 * key through rp_jobspec_set, then rp_jobspec_check.  0 files is taken as
 * a job of checkpoints only (the data set's required keys then do not
 * apply; a replay refuses such a job, rp_fio_write writes it).  0, or
 * -EINVAL with "WHAT: what is wrong" in err.
 */
int rp_jobspec_model(struct rp_jobspec *j, const struct cm_job *job, const char *what,
		     char *err, size_t errlen);
/*
 * Write to f an fio job file (fio's INI) of the job j, as far as fio can
 * express it (iotape-model(1), --fio): [global] with directory=${IOTAPE_DIR},
 * the readers as fio jobs, the checkpoints as jobs after them; a comment
 * before each option says what it comes from, the file's head what fio
 * cannot express.  j->num_files 0: checkpoints only.  0, -EINVAL with why in
 * err (a name fio would read otherwise, nothing to write; f then holds
 * nothing), -EIO when f reports an error.
 */
int rp_fio_write(FILE *f, const struct rp_jobspec *j, char *err, size_t errlen);

struct rp_job_opts {
	int direct;		/* --direct: sizes aligned, reads O_DIRECT */
	/* the data set made as the run reaches it (a bounded run of one
	 * accelerator, --runtime): the layout leaves its files out of
	 * prepare, and the source makes them, in the order the job reads
	 * them, from its start, under *dirfd (set by then); a reader's open
	 * waits for its file */
	int lazy, sparse;
	const int *dirfd;
};
/*
 * The job-file source: the synthetic job of j (copied), generated as the
 * replay asks for ops (memory: the layout, O(files + threads)).  Thread 0
 * is the trainer, 1 .. read_threads the readers.
 */
int rp_job_open(struct rp_source **out, const struct rp_jobspec *j, const struct rp_job_opts *o,
		char *err, size_t errlen);

/* ------------------------------------------------------- DLIO workloads */

/*
 * A DLIO workload YAML (configs/workload/NAME.yaml) as a job (rp_dlio.c):
 * the caller parses the YAML (libyaml, cli/) into a flat list of keys and
 * this turns it into the job DLIO would run, with DLIO's defaults for the
 * keys it leaves out (dlio_benchmark/utils/config.py), its key semantics
 * (the loaders' file order, the checkpoint schedule and the sizes its
 * checkpointing computes from the model keys, the sizes its generators
 * write for each format) and one note per key it cannot honour.
 */
enum { RP_DLIO_SCALAR, RP_DLIO_MAP, RP_DLIO_LIST };
struct rp_dlio_kv {
	const char *key;	/* dotted: "model.parallelism.tensor" */
	const char *val;	/* a scalar's text, else NULL */
	const char *const *items;	/* a list's scalars (NULL where an item is
					 * not a scalar) */
	size_t nitems;
	unsigned line;		/* 1-based */
	int kind;		/* RP_DLIO_* */
};
struct rp_dlio_opts {
	unsigned ranks;		/* the ranks the workload is run on (mpirun
				 * -np; 0: its model-parallel group, 1 for
				 * most): the job is one rank's */
};
/* A key that is not honoured: line (0: none) and what is done instead. */
typedef void (*rp_dlio_note_fn)(void *arg, unsigned line, const char *msg);
/*
 * Fill job (empty) with the workload of kv[0 .. n-1]: 0; -EINVAL with
 * *errline and what is wrong in err (a value of the wrong type, a list or
 * mapping where a value goes, a folder outside DIR, a job with nothing to
 * do); -ENOTSUP for an object store (S3): not a file system; -ENOMEM.  The
 * job's header says what it is (the caller adds the path).
 */
int rp_dlio_job(struct cm_job *job, const struct rp_dlio_kv *kv, size_t n,
		const struct rp_dlio_opts *o, rp_dlio_note_fn note, void *arg, unsigned *errline,
		char *err, size_t errlen);

/*
 * The MLPerf Storage v2.0 workloads (iotape-model(1) PRESETS), each the
 * DLIO keys of its workload YAML made a job by rp_dlio_job: the name and a
 * summary of preset i (NULL past the last); job (empty) filled with preset
 * name for the A100 (a100) or the H100: 0, -ENOENT, -ENOMEM.
 */
const char *rp_dlio_preset_name(size_t i, const char **summary);
int rp_dlio_preset(struct cm_job *job, const char *name, int a100);
/* The rules' figures against the presets' jobs (model --check-rules): up
 * to max rows in r, *n of them; 0 or -ENOMEM. */
struct rp_dlio_rule {
	const char *preset, *what, *source;
	char rule[160];		/* the rules' figure */
	char job[192];		/* what the preset's job has */
	int ok;			/* 1 they agree, 0 they differ, 2 they differ
				 * where the rules and the YAML do (source says) */
};
int rp_dlio_rules(struct rp_dlio_rule *r, size_t max, size_t *n);

/* ------------------------------------------------------------ fio iolog */

/*
 * The trace as fio iologs, version 3 (rp_iolog.c): one log per process
 * (per thread with per_thread), each naming the files under dir where
 * rp_prepare puts them (the trace source's layout), so that `fio
 * --read_iolog=LOG` replays the recording against a prepared DIR.  The
 * logs are written to the FILE *s open(arg, pid, tid (0 per process),
 * &err) returns (NULL and err: the export fails), each handed back to
 * close(arg, f) at the end, which returns nonzero on a write error.
 * 0, or -errno with what went wrong in err (the logs written so far are
 * closed; the caller removes them).
 */
struct rp_iolog_opts {
	const char *dir;	/* DIR as `iotape replay -d DIR` is given it */
	int per_thread;
	FILE *(*open)(void *arg, uint32_t pid, uint32_t tid, int *err);
	int (*close)(void *arg, FILE *f);
	void *arg;
};
struct rp_iolog_stats {
	uint64_t logs, reads, writes, read_bytes, write_bytes, opens, closes, syncs;
	uint64_t skipped_ops;	/* reads and writes of what the replay does not
				 * make (pipes, /proc, memory fs, no path) */
	uint64_t unnamed_ops;	/* of files fio cannot name (white space,
				 * DIR/path longer than 256 bytes) */
	uint64_t skipped_bytes;	/* the bytes of both */
};
int rp_iolog_write(const char *trace, const struct rp_iolog_opts *o, struct rp_iolog_stats *st,
		   char *err, size_t errlen);

/* -------------------------------------------------------------- prepare */

/* rp_dir_open flags */
#define RP_DIR_FORCE  1u	/* take a non-empty DIR without the marker */
#define RP_DIR_SHARED 2u	/* take no lock: the caller shares DIR with a
				 * process that holds it (the ranks of one job
				 * on one host, where one rank prepares) */
#define RP_PREP_TMP ".iotape-prep"	/* prepare's temporary name, in the
					 * directory of the file it makes */
/*
 * Open DIR (created when missing) and lock it (rp_dir_lock, unless
 * RP_DIR_SHARED), refusing a non-empty unmarked one unless RP_DIR_FORCE;
 * writes the marker.  Returns the dirfd (the lock is held as long as it
 * is open) or -errno with why in err (-EBUSY: another replay has it).
 */
int rp_dir_open(const char *dir, int flags, char *err, size_t errlen);
/*
 * One replay at a time in a DIR: an exclusive flock(2) on dirfd, held
 * until the last fd of its open file description is closed (a process
 * that dies drops it).  0 (also when this process holds it already, the
 * same DIR opened twice), or -EBUSY with "DIR is being replayed by pid P
 * (its command line)" in err.  Processes that share one DIR (MPI ranks:
 * one prepares, the others wait for it) open it RP_DIR_SHARED and rely on
 * the lock of the one that took it.
 */
int rp_dir_lock(int dirfd, const char *dir, char *err, size_t errlen);
/* tries of an open beneath DIR that fails with EAGAIN (a ".." met while a
 * rename or mount ran anywhere: openat2(2) says to try again) */
#define RP_EAGAIN_TRIES 64

/* Before try number `tries` (1 on the first try again) of an open that
 * failed with EAGAIN: 0 to give up after RP_EAGAIN_TRIES, else 1 after a
 * pause that grows (none for the first 4, then 1 us doubling to 4 ms: a
 * burst of renames or mounts passes, about 0.2 s in all). */
int rp_eagain_again(int tries);

/* openat2(dirfd, rel, flags, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS),
 * tried again on EAGAIN up to RP_EAGAIN_TRIES times. */
int rp_open_beneath(int dirfd, const char *rel, int flags, unsigned mode);
/* Open the parent directory of rel beneath dirfd (creating missing
 * directories when mkdirs); *base points into rel at the last component. */
int rp_parent_beneath(int dirfd, const char *rel, int mkdirs, const char **base);

struct rp_prep_stats { uint64_t files, created, skipped, bytes; };
struct rp_prep_opts {
	int sparse;		/* holes instead of random data */
	unsigned scale;		/* --scale-dataset K: copies 1..K-1 too */
	const int *dirfds;	/* per placement (l->nplaces of them; [0]
				 * the dirfd argument), NULL: one DIR */
	/* called every 200 ms or so: files and bytes done and in all */
	void (*progress)(void *arg, uint64_t files, uint64_t nfiles, uint64_t bytes,
			 uint64_t total);
	void *arg;
};
/* Create the files the layout reads, and scale - 1 more copies of the
 * dataset files under RP_COPY_DIR"K"/. */
int rp_prepare(int dirfd, const struct rp_layout *l, const struct rp_prep_opts *po,
	       struct rp_prep_stats *st, char *err, size_t errlen);

/*
 * Prepare file i of l under dirfd as rp_prepare does, for a source that
 * makes its files as the run reaches them (the job-file source under
 * --runtime); *cur (NULL at first) keeps what the calls share, freed by
 * rp_prep_cursor_free.  0, or -errno with the message in err.
 */
struct rp_prep_cursor;
int rp_prepare_file(int dirfd, const struct rp_layout *l, uint32_t i, int sparse,
		    struct rp_prep_cursor **cur, char *err, size_t errlen);
void rp_prep_cursor_free(struct rp_prep_cursor *c);

/* Put back, as prepare made them, the prepared files the job changes
 * (writes, truncates, unlinks, renames) that are missing or resized: the
 * engine does it before each loop.  0, or the first -errno (the others
 * are still done). */
int rp_restore(int dirfd, const struct rp_layout *l, int sparse);
/* The same with placements: file f under dirfds[its place]. */
int rp_restore_places(const int *dirfds, const struct rp_layout *l, int sparse);
/* Whether DIR is as rp_prepare left it, no replay having run since (the
 * marker says so); the marker then stops saying it.  The engine calls it
 * before the first loop: on a clean DIR, it restores nothing (a recording
 * of the replay has no stat or unlink of its own on DIR's files). */
int rp_take_prepared(int dirfd);

#endif /* IOTAPE_RP_SOURCE_H */
