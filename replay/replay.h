/* SPDX-License-Identifier: MIT */
/*
 * replay.h - what the parts of `iotape replay` share.
 *
 * The replay is built in three steps, each its own file:
 *   rp_trace.c   read the syscall table into a plan: ops sorted by time,
 *                fds resolved to slots, paths confined under DIR, one op
 *                list per recorded thread, cross-thread dependencies;
 *   rp_prep.c    check DIR (empty or marked), create the files the plan
 *                reads; every path goes through rp_path_*() (openat2
 *                RESOLVE_BENEATH on a dirfd of DIR);
 *   rp_run.c     one thread per recorded thread, io_uring, timing;
 *   rp_cgroup.c  --mem-limit: the process in a memory-limited cgroup;
 *   rp_report.c  fio-shaped text and JSON.
 * Library-style functions return 0 or -errno and fill an error buffer;
 * only cmd_replay.c prints.
 */
#ifndef IOTAPE_REPLAY_H
#define IOTAPE_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RP_MARKER ".iotape-replay"	/* marker file in a prepared DIR */
#define RP_ALIGN 4096u			/* O_DIRECT alignment */
#define RP_COPY_DIR ".iotape-copy-"	/* --scale-dataset: DIR/.iotape-copy-K/ */

enum rp_kind {
	RP_OPEN = 1, RP_CLOSE, RP_READ, RP_WRITE, RP_FSYNC, RP_FDATASYNC,
	RP_UNLINK, RP_RENAME, RP_MKDIR,
	RP_KIND_MAX
};

enum rp_timing { RP_TIME_ORIGINAL, RP_TIME_THINK, RP_TIME_AFAP };	/* choice order */

/* rp_op.flags */
#define RP_F_OVERLAP (1u << 0)	/* recorded while earlier data ops of the
				 * thread were in flight: may be issued
				 * without waiting for them */
#define RP_F_NEEDED  (1u << 1)	/* another thread waits for this op */
#define RP_F_REALCLOSE (1u << 2) /* last alias of the slot: close the fd */
#define RP_F_FAULT   (1u << 3)	/* a read replaying page faults on a file
				 * mapping (cache table), not a syscall */

struct rp_op {
	uint64_t ts;		/* ns since the first op of the trace */
	uint64_t end;		/* ts + dur */
	uint64_t off, len;	/* data ops: what the recording transferred */
	uint32_t kind;		/* enum rp_kind */
	uint32_t flags;		/* RP_F_* */
	uint32_t slot;		/* fd slot (open, close, data, sync) */
	uint32_t file, file2;	/* path indexes (open, namespace ops) */
	uint32_t oflags;	/* open(2) flags to use */
	int64_t dep;		/* global op index this one waits for, -1 */
	uint32_t conc;		/* data ops of the thread in flight when it was
				 * issued, itself included (1 = none before) */
	uint32_t _pad;
};

struct rp_file {
	char *rel;		/* path relative to DIR, confined */
	uint64_t size;		/* size to prepare */
	uint64_t rbytes, wbytes;/* recorded bytes read / written */
	int prepare;		/* must exist before the replay */
	int from_table;		/* size came from the file table */
	int isdir;		/* opened O_DIRECTORY or a directory in the
				 * file table: prepared with mkdir */
	int modified;		/* opened for writing, written, created,
				 * unlinked or renamed by the trace */
	int dataset;		/* prepared, only read (no write, create,
				 * unlink or rename): --scale-dataset copies it */
};

struct rp_slot {
	uint32_t file;
	uint32_t oflags;
	int implicit;		/* used without a recorded open: opened before
				 * the clock starts */
};

struct rp_thread_plan {
	uint32_t tid, pid;
	uint32_t *ops;		/* global op indexes, in order */
	size_t nops;
	uint64_t maxlen;	/* largest data op */
	unsigned depth;		/* most data ops the recording had in flight */
};

struct rp_plan {
	struct rp_op *ops;
	size_t nops;
	struct rp_file *files;
	size_t nfiles;
	struct rp_slot *slots;
	size_t nslots;
	struct rp_thread_plan *threads;
	size_t nthreads;
	uint64_t span;		/* last op end - first op ts (ns) */
	uint64_t expected[RP_KIND_MAX];	/* ops to replay per kind */
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
};

/* rp_trace.c */
/* Read TRACE into plan.  A path with "..", or empty where a file is
 * needed, is an error (-EPERM / -EINVAL with err set). */
int rp_plan_load(struct rp_plan *plan, const char *trace, int direct,
		 char *err, size_t errlen);
void rp_plan_release(struct rp_plan *plan);
/* Map a recorded path to one relative to DIR: leading '/' stripped,
 * "." and empty components dropped; -EPERM on "..", -EINVAL when empty,
 * naming the marker or under a dataset copy (RP_COPY_DIR*).  out gets a malloc'd string. */
int rp_path_map(const char *path, char **out);
const char *rp_kind_name(unsigned kind);

/* rp_prep.c */
/* Open DIR (created when missing), refusing a non-empty unmarked one
 * unless force; writes the marker.  Returns the dirfd or -errno. */
int rp_dir_open(const char *dir, int force, char *err, size_t errlen);
/* openat2(dirfd, rel, flags, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS). */
int rp_open_beneath(int dirfd, const char *rel, int flags, unsigned mode);
/* Open the parent directory of rel beneath dirfd (creating missing
 * directories when mkdirs); *base points into rel at the last component. */
int rp_parent_beneath(int dirfd, const char *rel, int mkdirs, const char **base);
struct rp_prep_stats { uint64_t files, created, skipped, bytes; };
/* Creates the files to prepare, and scale - 1 more copies of the dataset
 * files under RP_COPY_DIR"K"/. */
int rp_prepare(int dirfd, struct rp_plan *plan, int sparse, int direct,
	       unsigned scale, int progress, struct rp_prep_stats *st, char *err, size_t errlen);

/* rp_run.c */
struct rp_opts {
	int timing;		/* enum rp_timing */
	double speed, compute_scale;
	unsigned iodepth;
	int direct;
	unsigned loops;
	unsigned scale;		/* --scale-dataset K (1: no copies): loop l
				 * reads copy l % K of the dataset files */
	uint64_t mem_limit;	/* --mem-limit bytes, 0 none */
	int progress;
};

struct rp_lat {			/* latencies of one direction */
	uint64_t *v;
	size_t n, cap;
};

struct rp_dir_stats {		/* fio's read / write / sync */
	uint64_t ios, bytes, short_ios, drop_ios;
	struct rp_lat clat, lat;
};

struct rp_job {
	uint32_t tid, pid;
	struct rp_dir_stats d[3];	/* 0 read, 1 write, 2 sync */
	uint64_t done[RP_KIND_MAX];
	uint64_t errors;
	int first_error;	/* -errno of the first failed op, 0 */
	uint64_t wall_ns;	/* first op to last completion */
	uint64_t compute_ns;	/* synthetic compute delays */
	uint64_t adjusted;	/* ops aligned for O_DIRECT */
	int realtime;		/* ran SCHED_FIFO (original timing, root) */
	struct rp_lat terr;	/* original timing: issue - target (ns) */
	uint64_t *file_bytes;	/* per file index: bytes read + written */
	uint64_t *copy_bytes;	/* per dataset copy: bytes read */
	uint64_t fault_reads;	/* RP_F_FAULT reads done */
	uint64_t usr_ns, sys_ns;/* the thread's CPU time (getrusage) */
	uint64_t ctx, majf, minf;/* its context switches and page faults */
};

struct rp_result {
	struct rp_job *jobs;
	size_t njobs;
	uint64_t wall_ns;
	uint64_t implicit_opens;
	int64_t start_unix;
	uint64_t dev_read_bytes;/* /proc/self/io read_bytes during the run:
				 * what the storage delivered, page cache
				 * misses included */
	int cgroup;		/* --mem-limit: cgroup version 1 or 2 */
	uint64_t mem_peak;	/* its peak usage (v2 memory.peak, v1
				 * memory.max_usage_in_bytes) */
	uint64_t mem_limit_hits;/* v2 memory.events "max", v1 memory.failcnt */
};

/* Path of dataset copy k of file f (k 0: f->rel) in buf. */
const char *rp_copy_path(const struct rp_file *f, unsigned k, char *buf, size_t len);

int rp_run(int dirfd, const struct rp_plan *plan, const struct rp_opts *o,
	   struct rp_result *res, char *err, size_t errlen);
void rp_result_release(struct rp_result *res, size_t nfiles);

/* rp_cgroup.c */
struct rp_cgroup {
	int v2;			/* 1 cgroup v2, 0 v1 */
	int entered;
	uint64_t limit, peak, limit_hits;
	char dir[4096];		/* the cgroup made, "" once removed */
	char orig_procs[4096];	/* cgroup.procs of the one we came from */
};
/* Make a cgroup limited to limit bytes (no swap) and move this process
 * into it; SIGINT/SIGTERM/SIGHUP leave it before dying.  On error (not
 * root, no memory cgroup) err says why and nothing is left behind. */
int rp_cgroup_enter(struct rp_cgroup *cg, uint64_t limit, char *err, size_t errlen);
/* Fill peak and limit_hits (before rp_cgroup_leave). */
void rp_cgroup_stats(struct rp_cgroup *cg);
/* Back to the original cgroup, remove ours; NULL or left: nothing. */
void rp_cgroup_leave(struct rp_cgroup *cg);

/* rp_report.c */
int rp_report_text(FILE *f, const struct rp_plan *plan, const struct rp_opts *o,
		   const struct rp_result *res);
int rp_report_json(FILE *f, const struct rp_plan *plan, const struct rp_opts *o,
		   const struct rp_result *res);

#endif /* IOTAPE_REPLAY_H */
