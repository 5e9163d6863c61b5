/* SPDX-License-Identifier: MIT */
/*
 * rp_trace.c - the trace source: a trace's syscall and cache tables as
 * ops for the replay engine, decoded as the replay runs.
 *
 * One walk (struct walk) turns the trace into ops: it merges the syscall
 * rows with the page-fault reads of the cache table (common/faults.h),
 * puts them in time order through a window of WINDOW_ROWS rows (rows come
 * in the order calls ended; a row further out of order than the window is
 * taken where it comes and counted in layout.late), and plans each row as
 * the replay will issue it: fds resolved to slots, paths confined under
 * DIR (rp_path_map), cross-thread order as (thread, sequence) pairs.  The
 * walk runs once to make the layout (rp_trace_open: files, threads, slots,
 * expected counts), then once per loop on the feeder thread, which hands
 * each replay thread its ops through a bounded queue.  Both runs are the
 * same code over the same rows, so they number files, threads, slots and
 * ops alike; the second only reads the layout.
 *
 * Invariants the engine relies on:
 *  - every path is relative, has no ".." component and is not the marker
 *    file (rp_path_map); the engine still opens it with RESOLVE_BENEATH,
 *    so a symlink under DIR cannot lead out of it;
 *  - a dependency names an op earlier in the walk, which the feeder handed
 *    out before: waiting on it cannot deadlock (the earliest op not done
 *    is always in its thread's queue, its own dependencies done);
 *  - a slot number is reused by a later open only after the close that
 *    freed it (the open depends on that close); slots used without a
 *    recorded open (struct rp_slot0) are never reused.
 * Memory: the layout and the walk's state grow with files, threads and
 * open fds; the window and the queues are bounded (QUEUE_BUDGET: a trace
 * whose loop fits is queued whole before the clock starts, as a plan
 * in memory was; a larger one streams).
 *
 * Page faults (common/faults.h) become reads through an implicit
 * read-only slot per (process, file): the mapping's fd is often closed by
 * then.  Pipes, sockets and devices (by the file table's modes) are not
 * storage: their ops are counted, not replayed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "faults.h"
#include "fstype.h"
#include "path.h"
#include "replay.h"
#include "tape.h"

#define WINDOW_ROWS (1u << 16)		/* time-order window, rows */
#define QUEUE_BUDGET (64ull << 20)	/* queued ops of all threads, bytes */
#define QUEUE_MIN 1024u			/* ops a thread's queue holds at least */
#define BATCH 64u			/* ops a consumer takes at a time */
#define ROW_FAULT 0x7fff0001u		/* row.op of a page-fault read */
#define ROW_WAKE 0x7fff0002u		/* row.op of a thread's wait another
					 * thread of the job ended (the sched
					 * table): ts the wakeup, dur the wait,
					 * fd, fd2 the waker's tid and pid */
#define ROW_MARK 0x7fff0003u		/* row.op of an epoch mark of the
					 * trainer: offset its index */
#define ROW_SPAWN 0x7fff0004u		/* row.op of a process's or thread's
					 * start (the process table): tid,
					 * pid the child's; fd the thread that
					 * made it (its parent's main thread) */

/* ------------------------------------------------------------ paths */

int rp_path_map(char *path)
{
	int rc = cm_path_normalize(path, CM_PATH_RELATIVE | CM_PATH_NO_DOTDOT);

	if (rc)
		return rc;
	if (!*path || strcmp(path, RP_MARKER) == 0 ||
	    strncmp(path, RP_COPY_DIR, sizeof(RP_COPY_DIR) - 1) == 0 ||
	    strncmp(path, RP_ACC_DIR, sizeof(RP_ACC_DIR) - 1) == 0)
		return -EINVAL;
	for (const char *c = path; c; c = strchr(c, '/'), c = c ? c + 1 : NULL)
		if (strncmp(c, RP_PREP_TMP, sizeof(RP_PREP_TMP) - 1) == 0 &&
		    (!c[sizeof(RP_PREP_TMP) - 1] || c[sizeof(RP_PREP_TMP) - 1] == '/'))
			return -EINVAL;	/* prepare's temporary name */
	return 0;
}

const char *rp_copy_path(const struct rp_layout *l, uint32_t f, unsigned k, char *buf,
			 size_t len)
{
	if (!k || !l->files[f].dataset)
		return rp_file_path(l, f);
	snprintf(buf, len, RP_COPY_DIR "%u/%s", k, rp_file_path(l, f));
	return buf;
}

void rp_layout_release(struct rp_layout *l)
{
	cm_strtab_release(&l->paths);
	cm_strtab_release(&l->dirs);
	free(l->dir_made);
	free(l->dir_place);
	free(l->files);
	free(l->threads);
	free(l->slot0);
	free(l->links);
	memset(l, 0, sizeof(*l));
}

void rp_layout_scale_counts(struct rp_layout *l, uint64_t num, uint64_t den)
{
#define SCALE(x) ((x) = (x) / den * num)	/* den divides them: num copies of den */
	if (!den)
		return;
	for (unsigned k = 0; k < RP_KIND_MAX; k++)
		SCALE(l->expected[k]);
	SCALE(l->skipped); SCALE(l->failed); SCALE(l->unmatched); SCALE(l->not_storage);
	SCALE(l->fault_reads); SCALE(l->fault_pages); SCALE(l->faults_unmatched);
	SCALE(l->faults_code); SCALE(l->faults_shm); SCALE(l->dataset_bytes); SCALE(l->late);
	SCALE(l->opens_inferred); SCALE(l->memfs_ops); SCALE(l->handovers);
	for (unsigned i = 0; i < l->nmemfs; i++)
		SCALE(l->memfs[i].ops);
#undef SCALE
}

/* ------------------------------------------------------------ the walk */

/* A row in the time-order window: a syscall, or a fault read. */
struct row {
	uint64_t ts, dur;
	uint32_t pid, tid, op;
	uint32_t path, path2;	/* ids in trace_src.raw; 0 is "" */
	int64_t fd, ret, fd2;
	uint64_t file_id, file_id2, offset, offset2, size, flags;
};

struct went {			/* the window's order: (ts, seq) -> row */
	uint64_t ts, seq;
	uint32_t row, _pad;
};

/* The last op on a slot or a file, for ordering: gidx is its place in the
 * walk (1, 2, ...; 0 = none), (thread, seq) its name for the engine. */
struct dep {
	uint64_t gidx;
	uint32_t thread, seq;
};

struct wslot {
	uint32_t file, oflags, refs;
	uint8_t implicit;
	uint8_t ro;		/* a recorded open said read-only */
	uint8_t did_read;	/* read through since its open */
	uint8_t group;		/* a reader's data set file (the what-ifs) */
	uint32_t vt;		/* its virtual reader + 1 (0: as recorded) */
	struct dep pf;		/* --prefetch: the trainer's op it waits for */
	struct dep last;
};

/* What a trace without open flags did with a file opened "read-only"
 * (trace_src.infer: see infer_write()). */
#define INF_W 1u		/* written through such an fd */
#define INF_R 2u		/* ... and read through it before */
#define INF_NEW 4u		/* its first write was at 0 of a file the
				 * trace had not read: created, truncated */

struct wthread {
	uint32_t seq;		/* ops handed out this loop */
	uint64_t *ends;		/* min-heap: ends of data ops in flight */
	size_t nends, capends;
};

/* A pipe's bytes in flight: each write's end in the pipe's byte stream
 * and its op, until a read takes its last byte (a ring, oldest first). */
struct wpw {
	uint64_t end;
	struct dep d;
};
struct wpipe {
	uint64_t written, read;
	struct wpw *w;
	size_t head, n, cap;
};

/* The op being planned. */
struct pop {
	struct rp_op op;
	uint32_t thread;
	uint64_t dep_gidx;
};

struct queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* producer and consumer, broadcast */
	struct rp_op *ops;
	size_t cap;
	uint64_t head, tail;	/* pop at head, push at tail (monotonic) */
	int waiting;		/* someone sleeps on cv */
	/* the consumer's own batch */
	struct rp_op batch[BATCH];
	unsigned nb, pb;
};

struct trace_src;

struct walk {
	struct trace_src *t;
	int emit;		/* feeding the queues: the layout is read-only */
	uint64_t gidx;
	struct cm_map fds;	/* (pid, fd) -> slot + 1 */
	struct cm_map fslots;	/* (pid, file) -> fault slot + 1 */
	struct wslot *slots;
	uint32_t nslots, capslots;
	uint32_t *freeslots;
	size_t nfree, capfree;
	struct dep *file_last;	/* last open or namespace op on the file */
	struct dep *file_lastw;	/* last write */
	size_t capfiles;
	struct wthread *th;
	size_t capth;
	uint64_t t_min, end_max, last_ts;
	struct pop cur;
	/* the window */
	struct row *rows;
	uint32_t *freerows;
	size_t nfreerows;
	struct went *ent;
	size_t lo, hi;		/* live entries ent[lo, hi) */
	uint64_t seq;
	/* inputs */
	tape_cursor *c;
	const struct tape_syscall *blk;
	size_t nblk, pblk;
	int sys_eof, flt_eof, wk_eof, mk_eof;
	uint64_t sys_pos, flt_pos, wk_pos, mk_pos;
	/* the sched table's waits (hand-overs) and the trainer's epoch marks */
	tape_cursor *wc;
	const struct tape_sched *wblk;
	size_t nwblk, pwblk;
	size_t mk_next;		/* trace_src.extra: the next */
	/* the threads started while recorded: their first op waits for the
	 * thread that made them to get there (tid -> sdeps[] + 1) */
	struct cm_map spawned;
	struct dep *sdeps;
	uint64_t *sts;		/* their starts */
	size_t nsdeps, capsdeps, capsts;
	/* the pipes the job hands data through: file_id -> pipes[] + 1 */
	struct cm_map pipemap;
	struct wpipe *pipes;
	size_t npipes, cappipes;
	char *pbuf;		/* a path being mapped */
	size_t pcap;
	/* the reader what-ifs (struct rplan): the op being planned's file
	 * (an open) or slot, + 1, as thread_of needs them */
	uint32_t hint_file, hint_slot;
	uint64_t groups;	/* reader groups opened so far */
	uint32_t vt;		/* the op's virtual reader + 1, 0 */
	struct dep pf;		/* the op's wait on the trainer */
	uint64_t *vclock;	/* per virtual reader: end of its ops so far */
	uint8_t *vstarted;
	struct cm_map rprev;	/* reader tid -> recorded end of its ops */
	uint32_t train;		/* the trainer's thread + 1 (replay passes) */
	uint64_t tr_n, tr_prev_end, tr_steps;
	struct dep tr_last;	/* the trainer's latest op */
	struct dep *bounds;	/* --prefetch: ring of its last k + 1 step ends */
	size_t st_next;		/* trace_src.steps: the next step end */
};

/*
 * The reader what-ifs (rp_trace_opts.reader_threads, .prefetch), found by
 * a first open of the trace: its data set files (by file index: the walk
 * numbers files alike whatever threads it gives ops to), the reader
 * threads (each with 1% of the data set's read bytes at least) and the
 * trainer (rp_train_thread).  A reader's group is its open of a data set
 * file and the ops through that fd up to the close.
 */
struct rplan {
	unsigned n;		/* groups dealt over n virtual readers (0: kept) */
	unsigned k;		/* groups wait for the trainer k steps back (0: not) */
	uint8_t *dataset;
	size_t nfiles;
	struct cm_map readers;	/* reader tid -> 1 */
	unsigned nreaders;
	uint32_t vtid0;		/* virtual reader v's tid: vtid0 + v */
	uint32_t train_tid;
};

/* (thread, file) data set bytes read, for the first open */
struct rdcount {
	uint32_t thread, file;
	uint64_t bytes;
};

struct trace_src {
	struct rp_source src;	/* first: the public part */
	tape_reader *r;
	int direct;
	int metadata;		/* replay stat, getdents64, ... */
	uint64_t queue_bytes;
	int has_host;		/* only host's rows (rp_trace_opts) */
	unsigned host;
	struct cm_strtab raw;	/* rows' paths as recorded */
	uint32_t *raw_file;	/* raw id -> file + 1, 0 = not mapped yet */
	size_t capraw;
	struct cm_map nonreg;	/* file_id -> 1: socket, device; NONREG_PIPE */
	struct cm_map fid_raw;	/* file_id -> raw id of its file row's path */
	int real_paths;		/* the file table names files by their real
				 * path (meta file_paths=real) */
	/* opens through symlinks (rp_links.c): (path opened, file reached)
	 * layout file pairs, each path once (via_seen: path -> pair + 1), and
	 * whether the links found lead there (via_ok; else opened by the
	 * file's own path) */
	uint32_t *via;
	size_t nvia, capvia;
	struct cm_map via_seen;
	uint8_t *via_ok;
	uint32_t *resolved;	/* per file (rp_layout_links): what its path
				 * leads to through links, RP_NO_FILE; NULL */
	size_t nresolved;
	struct cm_map memfs_ids;	/* file_id -> its fstype: a memory fs */
	struct cm_map tids;	/* tid -> thread */
	struct cm_faults *faults;
	uint64_t t0;
	uint32_t *slot0_ids;	/* the walk's implicit slots, in order */
	size_t capslot0, capthreads;
	/* Open flags inferred per file (INF_*), for traces without them;
	 * NULL until a write goes through an fd opened read-only (which a
	 * recording has only as a failed write).  ro_opens: such opens. */
	uint8_t *infer;
	uint32_t *ro_opens;
	struct walk w;
	struct rplan *plan;	/* the reader what-ifs, NULL */
	/* hand-overs (rp_trace_opts.no_handover): the trace has a sched
	 * table and they are asked; the (from, to) thread pairs they join,
	 * for the loaders (layout pass) */
	int handover;
	struct cm_map edges;
	uint32_t train_tid;
	uint64_t *marks;
	unsigned nmarks;
	uint64_t *steps;	/* rp_trace_opts.steps, sorted; NULL */
	size_t nsteps;
	const struct rp_trace_opts *o;	/* while it opens: the data set */
	/* the rows the walk adds to the trace's (ROW_SPAWN, ROW_MARK), in
	 * time order */
	struct row *extra;
	size_t nextra;
	int count_rd;		/* count reads per (thread, file): rd */
	struct cm_map rdmap;	/* (thread, file) -> index in rd + 1 */
	struct rdcount *rd;
	size_t nrd, caprd;
	/* the feeder */
	struct queue *q;
	unsigned loops;
	pthread_t feeder;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int primed;		/* the queues are full, or loop 0 is fed */
	_Atomic int stop;
	_Atomic int dead;	/* the feeder ended early: err says why */
	int err;
	char *errbuf;
	size_t errlen;
};

#define NONREG_PIPE 2	/* trace_src.nonreg's value of a pipe */

/* tape_syscall.op of a row is known to the vocabulary (ROW_* are not) */
static unsigned row_class(const struct row *r)
{
	return r->op < TAPE_OP_MAX ? (unsigned)tape_op_class(r->op) : TAPE_OPC_OTHER;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t nc = *cap ? *cap : 64;
	void *a;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	if (!(a = realloc(*p, nc * size)))
		return -ENOMEM;
	*p = a;
	*cap = nc;
	return 0;
}

/* ------------------------------------------------------------ files */

/*
 * Map raw path id raw's text, in p (room for 2 bytes at least), as the
 * layout names it: rp_path_map, but the root ("/": every Open MPI
 * process's hwloc opens it O_PATH) is DIR itself, the layout's directory
 * RP_DIR_ITSELF, always there.  Raw id 0, a row without a path, still
 * names nothing.
 */
static int map_path(char *p, uint32_t raw)
{
	int rc = rp_path_map(p);

	if (rc == -EINVAL && !*p && raw) {
		strcpy(p, RP_DIR_ITSELF);
		return 0;
	}
	return rc;
}

/* The layout file of raw path id (mapped and, in the layout pass, added
 * when new): 0, or -errno with the message in the source's err. */
static int file_index(struct walk *w, uint32_t raw, uint32_t *out)
{
	struct trace_src *t = w->t;
	struct rp_layout *l = &t->src.layout;
	const char *path = cm_strtab_str(&t->raw, raw);
	size_t n = strlen(path);
	uint32_t id;
	int rc;

	if (t->raw_file[raw]) {
		*out = t->raw_file[raw] - 1;
		return 0;
	}
	if ((rc = grow((void **)&w->pbuf, &w->pcap, n + 2, 1)))
		return rc;
	memcpy(w->pbuf, path, n + 1);
	if ((rc = map_path(w->pbuf, raw))) {
		snprintf(t->errbuf, t->errlen, rc == -EPERM ?
			 "path '%s' has a '..' component: refused" :
			 "path '%s' names no file under DIR: refused", path);
		return rc;
	}
	if (w->emit) {	/* the layout is final and read by the engine */
		if (cm_strtab_find(&l->paths, w->pbuf, &id)) {
			snprintf(t->errbuf, t->errlen, "path '%s' was not in the trace's "
				 "first reading (the trace changed?)", path);
			return -EIO;
		}
	} else {
		if (l->nfiles == w->capfiles) {	/* room for one more, first */
			size_t nc = w->capfiles ? 2 * w->capfiles : 256;
			void *a = realloc(l->files, nc * sizeof(*l->files));
			if (a)
				l->files = a;
			void *b = realloc(w->file_last, nc * sizeof(struct dep));
			if (b)
				w->file_last = b;
			void *c = realloc(w->file_lastw, nc * sizeof(struct dep));
			if (c)
				w->file_lastw = c;
			void *d = realloc(t->ro_opens, nc * sizeof(uint32_t));
			if (d)
				t->ro_opens = d;
			if (!a || !b || !c || !d)
				return -ENOMEM;
			if (t->infer) {
				uint8_t *e = realloc(t->infer, nc);
				if (!e)
					return -ENOMEM;
				memset(e + w->capfiles, 0, nc - w->capfiles);
				t->infer = e;
			}
			w->capfiles = nc;
		}
		rc = cm_strtab_intern(&l->paths, w->pbuf, &id);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			memset(&l->files[id], 0, sizeof(l->files[0]));
			l->files[id].dir = RP_NO_DIR;
			l->files[id].isdir = strcmp(w->pbuf, RP_DIR_ITSELF) == 0;
			w->file_last[id] = w->file_lastw[id] = (struct dep){ 0 };
			t->ro_opens[id] = 0;
			l->nfiles = id + 1;
		}
	}
	t->raw_file[raw] = id + 1;
	*out = id;
	return 0;
}

/* Layout changes, made in the layout pass only (the engine reads it). */
#define LAYOUT(w) (!(w)->emit ? &(w)->t->src.layout : NULL)

/* ------------------------------------------------------------ slots */

static int new_slot(struct walk *w, uint32_t file, uint32_t oflags, int implicit)
{
	uint32_t sl;

	if (!implicit && w->nfree) {
		sl = w->freeslots[--w->nfree];	/* its last op: the close */
	} else {
		size_t cap = w->capslots;
		if (grow((void **)&w->slots, &cap, (size_t)w->nslots + 1, sizeof(*w->slots)))
			return -ENOMEM;
		w->capslots = (uint32_t)cap;
		sl = w->nslots++;
		w->slots[sl].last = (struct dep){ 0 };
	}
	w->slots[sl].file = file;
	w->slots[sl].oflags = oflags;
	w->slots[sl].refs = 1;
	w->slots[sl].implicit = (uint8_t)implicit;
	w->slots[sl].ro = w->slots[sl].did_read = w->slots[sl].group = 0;
	if (implicit && !w->emit) {
		struct trace_src *t = w->t;
		if (grow((void **)&t->slot0_ids, &t->capslot0, t->src.layout.nslot0 + 1,
			 sizeof(uint32_t)))
			return -ENOMEM;
		t->slot0_ids[t->src.layout.nslot0++] = sl;
	}
	return (int)sl;
}

static void free_slot(struct walk *w, uint32_t sl)
{
	if (w->slots[sl].implicit)
		return;	/* opened before the clock, every loop */
	if (w->nfree == w->capfree &&
	    grow((void **)&w->freeslots, &w->capfree, w->nfree + 1, sizeof(uint32_t)))
		return;	/* no memory: the number is not reused */
	w->freeslots[w->nfree++] = sl;
}

/* The open flags that change what the storage sees, which the replay
 * keeps: access mode, create (exclusive, truncating, nameless), append,
 * O_DIRECT, O_SYNC and O_DSYNC, O_NOATIME, a directory. */
#define KEPT_FLAGS (O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND | O_DIRECT | \
		    O_SYNC | O_DSYNC | O_NOATIME | O_DIRECTORY | O_TMPFILE)

/* Open flags the replay uses for recorded flags rec of op. */
static uint32_t open_flags(uint64_t rec, unsigned op, int direct)
{
	uint32_t f;

	if (op == TAPE_OP_CREAT)
		rec = O_WRONLY | O_CREAT | O_TRUNC;
	f = (uint32_t)rec & KEPT_FLAGS;
	if ((f & O_TMPFILE) == O_TMPFILE)	/* a nameless file in a directory */
		f &= ~(uint32_t)(O_CREAT | O_EXCL | O_TRUNC);
	else if (f & O_DIRECTORY)
		return (f & (O_DIRECTORY | O_NOATIME)) | O_RDONLY | O_CLOEXEC;
	if (direct)
		f |= O_DIRECT;
	return f | O_CLOEXEC;
}

/* ------------------------------------------------------------ ops */

/* The trainer's step end k steps back from the latest (none yet: 0). */
static struct dep prefetch_dep(const struct walk *w, unsigned k)
{
	if (!k || w->tr_steps <= k)
		return (struct dep){ 0 };
	return w->bounds[(w->tr_steps - k - 1) % (k + 1)];
}

/* The reader what-ifs: the thread (by its tid) an op of row r goes to, the
 * op's wait on the trainer in w->pf and its virtual reader in w->vt. */
static uint32_t regroup(struct walk *w, const struct row *r)
{
	const struct rplan *pl = w->t->plan;
	uint32_t f = w->hint_file, sl = w->hint_slot;

	w->vt = 0;
	w->pf = (struct dep){ 0 };
	if (!pl || !cm_map_get(&pl->readers, r->tid, 0))
		return r->tid;
	if (f && f - 1 < pl->nfiles && pl->dataset[f - 1]) {	/* a group's open */
		w->pf = prefetch_dep(w, pl->k);
		w->vt = pl->n ? (uint32_t)(w->groups % pl->n) + 1 : 0;
		w->groups++;
	} else if (!f && sl && w->slots[sl - 1].group) {
		w->pf = w->slots[sl - 1].pf;
		w->vt = w->slots[sl - 1].vt;
	}
	return w->vt ? pl->vtid0 + w->vt - 1 : r->tid;
}

static int thread_of(struct walk *w, const struct row *r, uint32_t *out)
{
	struct trace_src *t = w->t;
	uint32_t tid = regroup(w, r);
	uint64_t *v = cm_map_get(&t->tids, tid, 0);

	if (!v) {
		struct rp_layout *l = LAYOUT(w);
		if (!l)
			return -EIO;	/* not in the layout: the trace changed */
		if (grow((void **)&l->threads, &t->capthreads, l->nthreads + 1,
			 sizeof(*l->threads)) ||
		    cm_map_set(&t->tids, tid, 0, l->nthreads))
			return -ENOMEM;
		memset(&l->threads[l->nthreads], 0, sizeof(l->threads[0]));
		l->threads[l->nthreads].tid = tid;
		l->threads[l->nthreads].pid = r->pid;
		v = cm_map_get(&t->tids, tid, 0);
		l->nthreads++;
	}
	if (*v >= w->capth) {
		size_t old = w->capth;
		if (grow((void **)&w->th, &w->capth, *v + 1, sizeof(*w->th)))
			return -ENOMEM;
		memset(w->th + old, 0, (w->capth - old) * sizeof(*w->th));
	}
	*out = (uint32_t)*v;
	if (t->plan && tid == t->plan->train_tid)
		w->train = *out + 1;
	return 0;
}

static void add_dep(struct walk *w, struct dep cand);

/* Start planning an op of row r's thread: w->cur. */
static int new_op(struct walk *w, const struct row *r, unsigned kind)
{
	struct pop *p = &w->cur;
	int rc;

	memset(p, 0, sizeof(*p));
	if ((rc = thread_of(w, r, &p->thread)))
		return rc;
	p->op.ts = r->ts - w->t->t0;
	p->op.end = p->op.ts + r->dur;
	p->op.kind = kind;
	p->op.conc = 1;
	if (w->t->plan && cm_map_get(&w->t->plan->readers, r->tid, 0)) {
		/* a virtual reader's clock: each op keeps its recorded gap
		 * after the recorded reader's previous op, and its duration */
		uint64_t *pe;
		if ((rc = cm_map_put(&w->rprev, r->tid, 0, &pe)) < 0)
			return rc;
		if (w->vt) {
			uint32_t v = w->vt - 1;
			uint64_t gap = *pe && r->ts > *pe ? r->ts - *pe : 0;
			if (w->vstarted[v])
				p->op.ts = w->vclock[v] + gap;
			p->op.end = p->op.ts + r->dur;
			if (!w->vstarted[v] || p->op.end > w->vclock[v])
				w->vclock[v] = p->op.end;
			w->vstarted[v] = 1;
		}
		if (r->ts + r->dur > *pe)
			*pe = r->ts + r->dur;
	}
	add_dep(w, w->pf);	/* --prefetch: after the trainer's step */
	w->hint_file = w->hint_slot = 0;
	if (!w->th[p->thread].seq && w->spawned.n) {
		/* a thread started while recorded: its first op waits for the
		 * thread that made it to get there, and the time before its
		 * start is no work of its (a worker forked in an epoch) */
		uint64_t *v = cm_map_get(&w->spawned, r->tid, 0);
		if (v) {
			uint64_t st = w->sts[*v - 1] - w->t->t0;
			add_dep(w, w->sdeps[*v - 1]);
			p->op.flags |= RP_F_HANDOVER;
			if (p->op.ts > st)
				p->op.wait = st;
		}
	}
	return 0;
}

/* The current op as others name it. */
static struct dep cur_dep(const struct walk *w)
{
	return (struct dep){ w->gidx + 1, w->cur.thread, w->th[w->cur.thread].seq + 1 };
}

/* dep = the latest candidate done by another thread */
static void add_dep(struct walk *w, struct dep cand)
{
	struct pop *p = &w->cur;

	if (!cand.gidx || cand.thread == p->thread || cand.gidx <= p->dep_gidx)
		return;
	p->dep_gidx = cand.gidx;
	p->op.dep_thread = cand.thread;
	p->op.dep_seq = cand.seq;
}

static int push(struct trace_src *t, unsigned thread, const struct rp_op *op);

/*
 * Whether the trainer's op ends a step before it (replay passes): the
 * analysis's steps (rp_trace_opts.steps) that ended by its start, else a
 * compute gap of RP_STEP_GAP_NS or more before it, the hand-over's wait
 * left out (as the layout counts rp_thread.steps).
 */
static int step_ended(struct walk *w, const struct rp_op *op)
{
	const struct trace_src *t = w->t;
	int ended = 0;

	if (t->steps) {
		while (w->st_next < t->nsteps && t->steps[w->st_next] <= op->ts + t->t0) {
			w->st_next++;
			ended = 1;
		}
		return ended;
	}
	return w->tr_n && !(op->flags & RP_F_OVERLAP) &&
	       op->ts >= w->tr_prev_end + op->wait + RP_STEP_GAP_NS;
}

/* The recorded concurrency of the current op (a min-heap of the ends of
 * the thread's data ops still in flight at its start), then count it in
 * the layout or hand it to its thread. */
static int finish_op(struct walk *w)
{
	struct pop *p = &w->cur;
	struct rp_op *op = &p->op;
	struct wthread *th = &w->th[p->thread];
	struct rp_layout *l = LAYOUT(w);
	uint64_t *h;

	if (op->kind != CM_READ && op->kind != CM_WRITE) {
		th->nends = 0;	/* the engine drains before other ops */
	} else {
		while (th->nends && th->ends[0] <= op->ts) {	/* pop finished */
			size_t i = 0, n = --th->nends;
			h = th->ends;
			h[0] = h[n];
			for (;;) {
				size_t a = 2 * i + 1, b = a + 1, m = i;
				if (a < n && h[a] < h[m]) m = a;
				if (b < n && h[b] < h[m]) m = b;
				if (m == i) break;
				uint64_t x = h[i]; h[i] = h[m]; h[m] = x;
				i = m;
			}
		}
		if (th->nends) {
			op->flags |= RP_F_OVERLAP;
			op->conc = th->nends + 1 > UINT32_MAX ? UINT32_MAX : (uint32_t)th->nends + 1;
		}
		if (grow((void **)&th->ends, &th->capends, th->nends + 1, sizeof(uint64_t)))
			return -ENOMEM;
		h = th->ends;
		size_t i = th->nends++;	/* push the end */
		h[i] = op->end;
		while (i && h[(i - 1) / 2] > h[i]) {
			uint64_t x = h[i]; h[i] = h[(i - 1) / 2]; h[(i - 1) / 2] = x;
			i = (i - 1) / 2;
		}
	}
	if (!l && p->thread + 1 == w->train) {
		if (step_ended(w, op)) {
			op->flags |= RP_F_STEPEND;
			if (w->t->plan && w->t->plan->k)
				w->bounds[w->tr_steps++ % (w->t->plan->k + 1)] = w->tr_last;
		}
		if (!w->tr_n || op->end > w->tr_prev_end)
			w->tr_prev_end = op->end;
		w->tr_n++;
		w->tr_last = cur_dep(w);
	}
	w->gidx++;
	th->seq++;
	if (l) {
		struct rp_thread *lt = &l->threads[p->thread];
		if (!(op->flags & RP_F_OVERLAP) && op->ts > lt->prev_end + op->wait) {
			/* as the engine's think time: the gap less the wait a
			 * hand-over stands for */
			uint64_t gap = op->ts - lt->prev_end - op->wait;
			lt->compute_ns += gap;
			lt->steps += lt->nops && gap >= RP_STEP_GAP_NS;
		}
		if (op->end > lt->prev_end)
			lt->prev_end = op->end;
		lt->nops++;
		if ((op->kind == CM_READ || op->kind == CM_WRITE || op->kind == CM_GETDENTS ||
		     op->kind == CM_READLINK) &&
		    op->len > lt->maxlen)
			lt->maxlen = op->len;	/* the thread's buffers hold it */
		if (op->conc > lt->depth)
			lt->depth = op->conc;
		if (!(op->flags & RP_F_STEP))	/* a placeholder is not issued */
			l->expected[op->kind]++;
		if (op->flags & RP_F_HANDOVER)
			l->handovers++;
		if (op->end + w->t->t0 > w->end_max)
			w->end_max = op->end + w->t->t0;
		return 0;
	}
	return push(w->t, p->thread, op);
}

/* fds map value of an fd open on a memory file system: MEMFS_FD + the
 * index of its place in layout.memfs (the layout pass; 0 after) */
#define MEMFS_FD ((uint64_t)UINT32_MAX)
#define IS_MEMFS_FD(v) ((v) >= MEMFS_FD && (v) < MEMFS_FD + RP_MEMFS_MAX)

/* Count an op on a memory or pseudo file system at where (layout pass):
 * the first RP_MEMFS_MAX - 1 places by name, then "other". */
static unsigned count_memfs(struct walk *w, const char *where)
{
	struct rp_layout *l = LAYOUT(w);
	unsigned i;

	if (!l)
		return 0;
	l->memfs_ops++;
	for (i = 0; i < l->nmemfs && strcmp(l->memfs[i].where, where); i++)
		;
	if (i == l->nmemfs) {
		if (i == RP_MEMFS_MAX - 1)
			where = "other";
		else if (i == RP_MEMFS_MAX)
			i = RP_MEMFS_MAX - 1;
		if (i == l->nmemfs) {
			snprintf(l->memfs[i].where, sizeof(l->memfs[i].where), "%s", where);
			l->nmemfs++;
		}
	}
	l->memfs[i].ops++;
	return i;
}

/*
 * Whether the row acts on a pseudo or memory file system (common/path.h):
 * by its path, or by its fd when that was opened on one; *where gets the
 * place.  Such ops are kernel state and memory (DataLoader's shared
 * memory in /dev/shm, /proc reads), not storage: not replayed, counted.
 */
static int on_memfs(struct walk *w, const struct row *r, const char **where)
{
	const char *p = cm_strtab_str(&w->t->raw, r->path);
	uint64_t *v;

	if (*p && cm_path_is_pseudo(p, where))
		return 1;
	if (r->path2 && cm_path_is_pseudo(cm_strtab_str(&w->t->raw, r->path2), where))
		return 1;
	if ((r->file_id && (v = cm_map_get(&w->t->memfs_ids, r->file_id, 0))) ||
	    (r->file_id2 && (v = cm_map_get(&w->t->memfs_ids, r->file_id2, 0)))) {
		*where = cm_fstype_name(*v) ? cm_fstype_name(*v) : "memory fs";
		return 1;
	}
	if (tape_op_uses_fd(r->op) && (v = cm_map_get(&w->fds, r->pid, (uint64_t)r->fd)) &&
	    IS_MEMFS_FD(*v)) {
		*where = !w->emit ? w->t->src.layout.memfs[*v - MEMFS_FD].where : "";
		return 1;
	}
	return 0;
}

/* An op on a memory file system: an open's fd (and its dups) are noted,
 * so the ops on them are known too; a close forgets it. */
static int skip_memfs(struct walk *w, const struct row *r, unsigned kind, const char *where)
{
	unsigned i = count_memfs(w, where);
	if (kind == CM_OPEN)
		return cm_map_set(&w->fds, r->pid, (uint64_t)r->ret, MEMFS_FD + i);
	if (kind == CM_CLOSE)
		cm_map_del(&w->fds, r->pid, (uint64_t)r->fd, NULL);
	return 0;
}

/* The slot of an fd op: the recorded open, or an implicit one by path.
 * The slot, -1 when unmatched, or -errno. */
static int fd_slot(struct walk *w, const struct row *r, int writes)
{
	struct rp_layout *l = LAYOUT(w);
	uint64_t *v = cm_map_get(&w->fds, r->pid, (uint64_t)r->fd);
	uint32_t file;
	int rc, sl;

	if (v) {
		struct wslot *s = &w->slots[*v - 1];
		if (writes && (s->oflags & O_ACCMODE) == O_RDONLY && s->implicit)
			s->oflags = (s->oflags & ~O_ACCMODE) | O_RDWR;
		return (int)(*v - 1);
	}
	if (!r->path)
		return -1;
	if ((rc = file_index(w, r->path, &file)))
		return rc;
	sl = new_slot(w, file, open_flags(writes ? O_RDWR : O_RDONLY, 0, w->t->direct), 1);
	if (sl < 0)
		return sl;
	if (l)
		l->files[file].prepare = 1;
	rc = cm_map_set(&w->fds, r->pid, (uint64_t)r->fd, (uint64_t)sl + 1);
	return rc ? rc : sl;
}

/* A read of len bytes at off must fit a file (off_t): a hostile trace's
 * offset near 2^64 would wrap the size prepared.  0, or -EFBIG with the
 * message. */
static int read_fits(struct walk *w, uint32_t file, uint64_t off, uint64_t len)
{
	if (len <= INT64_MAX && off <= (uint64_t)INT64_MAX - len)
		return 0;
	snprintf(w->t->errbuf, w->t->errlen, "a read of %" PRIu64 " bytes at offset %" PRIu64
		 " of '%s' ends past the largest file size: refused", len, off,
		 rp_file_path(&w->t->src.layout, file));
	return -EFBIG;
}

/* A read of recorded bytes: the file grows to cover it. */
static void count_read(struct rp_layout *l, uint32_t file, uint64_t off, uint64_t len)
{
	struct rp_file *f;

	if (!l)
		return;
	f = &l->files[file];
	if (!f->from_table && off + len > f->size)
		f->size = off + len;
	f->rbytes += len;
}

/* A page-fault read: the (process, file) fault slot, opened implicitly. */
static int fault_read(struct walk *w, const struct row *r)
{
	struct rp_layout *l = LAYOUT(w);
	const char *where;
	uint32_t file;
	uint64_t *v;
	int rc, sl;

	if (on_memfs(w, r, &where)) {
		count_memfs(w, where);
		return 0;
	}

	if ((rc = file_index(w, r->path, &file)))
		return rc;
	v = cm_map_get(&w->fslots, r->pid, file);
	if (v) {
		sl = (int)(*v - 1);
	} else {
		sl = new_slot(w, file, open_flags(O_RDONLY, 0, w->t->direct), 1);
		if (sl < 0)
			return sl;
		if ((rc = cm_map_set(&w->fslots, r->pid, file, (uint64_t)sl + 1)))
			return rc;
	}
	if ((rc = read_fits(w, file, r->offset, r->size)) || (rc = new_op(w, r, CM_READ)))
		return rc;
	w->cur.op.flags |= RP_F_FAULT;
	w->cur.op.slot = (uint32_t)sl;
	w->cur.op.file = file;
	w->cur.op.off = r->offset;
	w->cur.op.len = r->size;
	if (l) {
		/* a mapping of a file the job made (written, then mapped):
		 * the job's, not prepare's */
		if (!w->file_last[file].gidx)
			l->files[file].prepare = 1;
		count_read(l, file, r->offset, r->size);
		l->fault_reads++;
		l->fault_pages += r->flags;
	}
	add_dep(w, w->file_lastw[file]);
	w->slots[sl].last = cur_dep(w);
	return finish_op(w);
}

/* A successful write through an fd whose recorded open said read-only:
 * the trace did not carry the open flags (an imported CSV without them),
 * so they are inferred from what the job did with the file (layout pass;
 * the feeder's opens take them). */
static int infer_write(struct walk *w, const struct wslot *s, const struct row *r)
{
	struct trace_src *t = w->t;
	const struct rp_layout *l = &t->src.layout;

	if (!t->infer && !(t->infer = calloc(w->capfiles, 1)))
		return -ENOMEM;
	t->infer[s->file] |= INF_W | (s->did_read ? INF_R : 0);
	if (!w->file_lastw[s->file].gidx && r->offset == 0 && !l->files[s->file].rbytes)
		t->infer[s->file] |= INF_NEW;
	return 0;
}

/* The open flags of a read-only open of file, from what was inferred. */
static uint32_t inferred_flags(const struct trace_src *t, uint32_t file, uint32_t oflags)
{
	uint8_t f = t->infer ? t->infer[file] : 0;

	if (!(f & INF_W))
		return oflags;
	oflags = (oflags & ~(uint32_t)O_ACCMODE) | ((f & INF_R) ? O_RDWR : O_WRONLY);
	return (f & INF_NEW) ? oflags | O_CREAT | O_TRUNC : oflags;
}

/* A read, write or sync of r on its fd's slot: the op with its file's
 * byte counts and its order after the slot's last op (and, unless a
 * write, after the file's last write).  0 (unmatched counted), -errno. */
/* The first open of the reader what-ifs: bytes read per (thread, file). */
static int count_thread_read(struct trace_src *t, uint32_t thread, uint32_t file, uint64_t len)
{
	uint64_t *v;
	int rc = cm_map_put(&t->rdmap, thread, file, &v);

	if (rc < 0)
		return rc;
	if (!*v) {
		if (grow((void **)&t->rd, &t->caprd, t->nrd + 1, sizeof(*t->rd)))
			return -ENOMEM;
		t->rd[t->nrd] = (struct rdcount){ thread, file, 0 };
		*v = ++t->nrd;
	}
	t->rd[*v - 1].bytes += len;
	return 0;
}

static int plan_io(struct walk *w, const struct row *r, unsigned kind)
{
	struct rp_layout *l = LAYOUT(w);
	uint32_t file;
	int rc, sl = fd_slot(w, r, kind == CM_WRITE);

	if (sl < -1)
		return sl;
	if (sl < 0) {
		if (l)
			l->unmatched++;
		return 0;
	}
	w->hint_slot = (uint32_t)sl + 1;
	if ((rc = new_op(w, r, kind)))
		return rc;
	w->cur.op.slot = (uint32_t)sl;
	file = w->slots[sl].file;
	w->cur.op.file = file;
	if (kind == CM_READ || kind == CM_WRITE) {
		uint64_t len = (r->ret >= 0 && (uint64_t)r->ret < r->size) ? (uint64_t)r->ret : r->size;
		w->cur.op.off = r->offset;
		w->cur.op.len = len;
		if (kind == CM_READ) {
			if ((rc = read_fits(w, file, r->offset, len)))
				return rc;
			count_read(l, file, r->offset, len);
			w->slots[sl].did_read = 1;
			if (l && w->t->count_rd && (rc = count_thread_read(w->t, w->cur.thread,
									   file, len)))
				return rc;
		} else if (l) {
			if (w->slots[sl].ro && (rc = infer_write(w, &w->slots[sl], r)))
				return rc;
			l->files[file].wbytes += len;
			l->files[file].modified = 1;
		}
	}
	add_dep(w, w->slots[sl].last);
	if (kind != CM_WRITE)
		add_dep(w, w->file_lastw[file]);
	w->slots[sl].last = cur_dep(w);
	if (kind == CM_WRITE)
		w->file_lastw[file] = cur_dep(w);
	return finish_op(w);
}

/* A read or write of a copy's side (the input side, or the output side
 * moved there): ret bytes at offset.  0 (unmatched and not-storage sides
 * counted), or -errno. */
static int copy_side(struct walk *w, const struct row *r, unsigned kind)
{
	struct rp_layout *l = LAYOUT(w);

	const char *where;

	if (r->fd < 0 && !r->file_id)
		return 0;	/* not recorded (traces before fd2) */
	if (on_memfs(w, r, &where)) {
		count_memfs(w, where);
		return 0;
	}
	if (r->file_id && cm_map_get(&w->t->nonreg, r->file_id, 0)) {
		if (l)
			l->not_storage++;	/* splice's pipe, sendfile's socket */
		return 0;
	}
	return plan_io(w, r, kind);
}

/* A copy (sendfile, copy_file_range, splice): a read of ret bytes from
 * the input side, then a write of them to the output side. */
static int plan_copy(struct walk *w, const struct row *r)
{
	struct row in = *r, out = *r;
	int rc;

	if (r->ret < 0) {
		if (LAYOUT(w))
			LAYOUT(w)->failed++;
		return 0;
	}
	in.size = out.size = (uint64_t)r->ret;	/* each side moves ret bytes */
	out.fd = r->fd2;
	out.file_id = r->file_id2;
	out.offset = r->offset2;
	out.path = r->path2;
	if ((rc = copy_side(w, &in, CM_READ)))
		return rc;
	return copy_side(w, &out, CM_WRITE);
}

/*
 * The current op creates, unlinks, renames or makes file: the engine
 * reaches it through the fd of its directory (layout.dirs, noted in the
 * layout pass), and the op follows the last namespace op on that
 * directory (its mkdir, when the job made it).
 */
static int dir_of(struct walk *w, uint32_t file, int note)
{
	struct rp_layout *l = &w->t->src.layout;
	const char *rel = rp_file_path(l, file), *slash = strrchr(rel, '/');
	size_t n;
	uint32_t id;
	int rc;

	if (!slash)
		return 0;	/* right under DIR: layout's RP_NO_DIR */
	n = (size_t)(slash - rel);
	if ((rc = grow((void **)&w->pbuf, &w->pcap, n + 1, 1)))
		return rc;
	memcpy(w->pbuf, rel, n);
	w->pbuf[n] = 0;
	if (note && !w->emit) {
		if ((rc = cm_strtab_intern(&l->dirs, w->pbuf, &id)) < 0)
			return rc;
		l->files[file].dir = id;
	}
	if (cm_strtab_find(&l->paths, w->pbuf, &id) == 0)
		add_dep(w, w->file_last[id]);
	return 0;
}

static int in_dir(struct walk *w, uint32_t file)
{
	return dir_of(w, file, 1);
}

static int names_no_file(struct walk *w, uint32_t raw);

/*
 * Whether the open of row r reached its file by another path than the
 * file's real one (the file table's): through symlinks.  Then *file
 * becomes the real file, *via the path opened, and the pair is noted for
 * rp_layout_links (layout pass).  0 (*via RP_NO_FILE when not), -errno.
 */
static int open_via(struct walk *w, const struct row *r, uint32_t *file, uint32_t *via)
{
	struct trace_src *t = w->t;
	uint64_t *v = r->file_id && t->real_paths ? cm_map_get(&t->fid_raw, r->file_id, 0) : NULL;
	uint32_t real;
	int rc;

	*via = RP_NO_FILE;
	if (!v || *v == r->path || (!t->raw_file[*v] && names_no_file(w, (uint32_t)*v)))
		return 0;
	if ((rc = file_index(w, (uint32_t)*v, &real)))
		return rc;
	if (real == *file)
		return 0;	/* two spellings of one path */
	if (!w->emit) {
		uint64_t *seen;
		if ((rc = cm_map_put(&t->via_seen, *file, 0, &seen)) < 0)
			return rc;
		if (!*seen) {
			if (grow((void **)&t->via, &t->capvia, 2 * t->nvia + 2, sizeof(uint32_t)))
				return -ENOMEM;
			t->via[2 * t->nvia] = *file;
			t->via[2 * t->nvia + 1] = real;
			*seen = ++t->nvia;
		}
	} else {
		uint64_t *seen = cm_map_get(&t->via_seen, *file, 0);
		/* the links found lead there, and to this file (the path
		 * may have named another file at another time) */
		if (!seen || !t->via_ok[*seen - 1] || t->via[2 * (*seen - 1) + 1] != real) {
			*file = real;
			return 0;
		}
	}
	*via = *file;
	*file = real;
	return 0;
}

static int plan_open(struct walk *w, const struct row *r)
{
	struct rp_layout *l = LAYOUT(w);
	uint32_t file, via;
	int rc, sl;

	if ((rc = file_index(w, r->path, &file)) || (rc = open_via(w, r, &file, &via)))
		return rc;
	w->hint_file = file + 1;
	if ((rc = new_op(w, r, CM_OPEN)))
		return rc;
	struct rp_op *op = &w->cur.op;
	op->file = file;
	if (via != RP_NO_FILE) {	/* by the path the job opened */
		op->file2 = via;
		op->flags |= RP_F_VIA;
	}
	op->oflags = open_flags(r->flags, r->op, w->t->direct);
	int ro = (op->oflags & O_ACCMODE) == O_RDONLY && !(op->oflags & O_DIRECTORY);
	if (ro && w->emit)
		op->oflags = inferred_flags(w->t, file, op->oflags);
	if (ro && l)
		w->t->ro_opens[file]++;
	if (l) {
		struct rp_file *f = &l->files[file];
		if ((op->oflags & O_ACCMODE) != O_RDONLY || (op->oflags & (O_CREAT | O_TRUNC)))
			f->modified = 1;
		if (op->oflags & O_DIRECTORY)
			f->isdir = 1;	/* opendir(), or O_TMPFILE in it */
		else if (!(op->oflags & O_CREAT))
			/* there before the job, unless an earlier op of the
			 * job made it: a create, a rename to it, a mkdir (a
			 * directory opened without O_DIRECTORY, os.scandir) */
			f->prepare |= !w->file_last[file].gidx && !f->made_dir;
		else if (op->oflags & O_EXCL)
			f->excl = !w->file_last[file].gidx;	/* the job made it */
		else if (!(op->oflags & O_TRUNC) && !w->file_last[file].gidx)
			f->prepare = 1;	/* may exist: its data may be read */
	}
	if ((op->oflags & O_CREAT) && (rc = in_dir(w, file)))
		return rc;
	sl = new_slot(w, file, op->oflags, 0);
	if (sl < 0)
		return sl;
	w->slots[sl].ro = (uint8_t)ro;
	w->slots[sl].did_read = 0;
	if (w->t->plan && cm_map_get(&w->t->plan->readers, r->tid, 0) &&
	    file < w->t->plan->nfiles && w->t->plan->dataset[file]) {
		w->slots[sl].group = 1;
		w->slots[sl].vt = w->vt;
		w->slots[sl].pf = w->pf;
	}
	op->slot = (uint32_t)sl;
	add_dep(w, w->file_last[file]);
	add_dep(w, w->slots[sl].last);	/* a reused number: after its close */
	w->file_last[file] = w->slots[sl].last = cur_dep(w);
	if ((rc = cm_map_set(&w->fds, r->pid, (uint64_t)r->ret, (uint64_t)sl + 1)))
		return rc;
	return finish_op(w);
}

/* The job's fd of row r's process is closed (by a close, or by a dup2
 * onto it): its slot's close op, unless another fd still holds the slot.
 * 0 (also when the fd is not known), or -errno. */
static int close_fd(struct walk *w, const struct row *r, int64_t fd)
{
	struct rp_layout *l = LAYOUT(w);
	uint64_t *v = cm_map_get(&w->fds, r->pid, (uint64_t)fd);
	uint32_t sl;
	int rc;

	if (!v)
		return 0;
	if (IS_MEMFS_FD(*v)) {
		cm_map_del(&w->fds, r->pid, (uint64_t)fd, NULL);
		return 0;
	}
	sl = (uint32_t)(*v - 1);
	cm_map_del(&w->fds, r->pid, (uint64_t)fd, NULL);
	if (--w->slots[sl].refs) {
		if (l)
			l->skipped++;	/* an alias: the fd stays open */
		return 0;
	}
	w->hint_slot = sl + 1;
	if ((rc = new_op(w, r, CM_CLOSE)))
		return rc;
	w->cur.op.slot = sl;
	w->cur.op.file = w->slots[sl].file;	/* what it closes (replicas) */
	w->cur.op.flags |= RP_F_REALCLOSE;
	add_dep(w, w->slots[sl].last);
	w->slots[sl].last = cur_dep(w);
	free_slot(w, sl);
	return finish_op(w);
}

static int plan_close(struct walk *w, const struct row *r)
{
	struct rp_layout *l = LAYOUT(w);

	if (r->op == TAPE_OP_CLOSE_RANGE || !cm_map_get(&w->fds, r->pid, (uint64_t)r->fd)) {
		if (l) {
			if (r->op == TAPE_OP_CLOSE_RANGE)
				l->skipped++;
			else
				l->unmatched++;
		}
		return 0;
	}
	return close_fd(w, r, r->fd);
}

/*
 * A dup (dup, dup2, dup3, fcntl F_DUPFD): the new fd is a slot of its own
 * on the old one's open file, which the replay makes with a dup of its
 * own (CM_DUP), so that each fd is a stream of its own as it was in the
 * job (numpy's np.load reads a file through a dup of the fd it opened).
 * A dup2 onto an open fd closes that one first, as the kernel did.  One
 * of an fd on a memory file system only maps the new fd (not storage).
 */
static int plan_dup(struct walk *w, const struct row *r)
{
	struct rp_layout *l = LAYOUT(w);
	uint64_t *v;
	uint32_t src;
	int rc, sl;

	if (r->ret == r->fd) {	/* dup2(fd, fd): nothing */
		if (l)
			l->skipped++;
		return 0;
	}
	if ((rc = close_fd(w, r, r->ret)))	/* what the new number held */
		return rc;
	if (!(v = cm_map_get(&w->fds, r->pid, (uint64_t)r->fd))) {
		if (l)
			l->unmatched++;
		return 0;
	}
	if (IS_MEMFS_FD(*v)) {
		if (cm_map_set(&w->fds, r->pid, (uint64_t)r->ret, *v))
			return -ENOMEM;
		if (l)
			l->skipped++;
		return 0;
	}
	src = (uint32_t)(*v - 1);
	w->hint_slot = src + 1;	/* a reader group's dup goes with the group */
	if ((rc = new_op(w, r, CM_DUP)))
		return rc;
	sl = new_slot(w, w->slots[src].file, w->slots[src].oflags, 0);
	if (sl < 0)
		return sl;
	/* the same open file: what the job did through either fd */
	w->slots[sl].ro = w->slots[src].ro;
	w->slots[sl].did_read = w->slots[src].did_read;
	w->slots[sl].group = w->slots[src].group;
	w->slots[sl].vt = w->slots[src].vt;
	w->slots[sl].pf = w->slots[src].pf;
	w->cur.op.slot = (uint32_t)sl;
	w->cur.op.slot2 = src;
	w->cur.op.file = w->slots[src].file;
	add_dep(w, w->slots[src].last);
	add_dep(w, w->slots[sl].last);	/* a reused number: after its close */
	w->slots[src].last = w->slots[sl].last = cur_dep(w);
	if ((rc = cm_map_set(&w->fds, r->pid, (uint64_t)r->ret, (uint64_t)sl + 1)))
		return rc;
	return finish_op(w);
}

/* Whether file's directory is one the job made (a mkdir seen before): what
 * is in it was not there before the job. */
static int in_made_dir(struct walk *w, uint32_t file)
{
	const struct rp_layout *l = &w->t->src.layout;
	const char *rel = rp_file_path(l, file), *slash = strrchr(rel, '/');
	uint32_t id;
	size_t n;

	if (!slash)
		return 0;
	n = (size_t)(slash - rel);
	if (grow((void **)&w->pbuf, &w->pcap, n + 1, 1))
		return 0;
	memcpy(w->pbuf, rel, n);
	w->pbuf[n] = 0;
	return cm_strtab_find(&l->paths, w->pbuf, &id) == 0 && l->files[id].made_dir;
}

static int plan_namespace(struct walk *w, const struct row *r, unsigned kind)
{
	struct rp_layout *l = LAYOUT(w);
	uint32_t file, file2;
	int rc;

	if ((rc = file_index(w, r->path, &file)))
		return rc;
	file2 = file;
	if (kind == CM_RENAME && (rc = file_index(w, r->path2, &file2)))
		return rc;
	if ((rc = new_op(w, r, kind)))
		return rc;
	w->cur.op.file = file;
	w->cur.op.file2 = file2;
	if (kind == CM_UNLINK && r->op == TAPE_OP_UNLINKAT)
		w->cur.op.oflags = (uint32_t)r->flags & AT_REMOVEDIR;	/* rmdir */
	if ((rc = in_dir(w, file)) || (kind == CM_RENAME && (rc = in_dir(w, file2))))
		return rc;
	/* exists before the trace, unless its directory is the job's: an op
	 * the replay does not issue made it (a socket's bind) */
	int absent = kind != CM_MKDIR && !w->file_last[file].gidx && in_made_dir(w, file);
	if (absent)
		w->cur.op.flags |= RP_F_ABSENT;
	if (l) {
		l->files[file].modified = l->files[file2].modified = 1;
		if (kind != CM_MKDIR && !w->file_last[file].gidx && !absent)
			l->files[file].prepare = 1;
		if (kind == CM_MKDIR)
			l->files[file].made_dir = 1;
	}
	add_dep(w, w->file_last[file]);
	add_dep(w, w->file_lastw[file]);
	add_dep(w, w->file_last[file2]);
	w->file_last[file] = w->file_last[file2] = cur_dep(w);
	return finish_op(w);
}

/* Whether a raw path maps to no file under DIR (the marker, a dataset
 * copy's directory): such a metadata op is left out, where another op on
 * it refuses the trace.  ("/" is DIR itself: map_path.) */
static int names_no_file(struct walk *w, uint32_t raw)
{
	const char *path = cm_strtab_str(&w->t->raw, raw);
	size_t n = strlen(path);

	if (grow((void **)&w->pbuf, &w->pcap, n + 2, 1))
		return 0;	/* file_index says it */
	memcpy(w->pbuf, path, n + 1);
	return map_path(w->pbuf, raw) == -EINVAL;
}

/* A path metadata op's AT_* flags (faccessat keeps its mode below them). */
static uint64_t meta_at_flags(const struct row *r, unsigned kind)
{
	if (r->op == TAPE_OP_FACCESSAT)
		return r->flags >> 32;
	return kind == CM_STAT ? r->flags : 0;
}

/*
 * A metadata op (stat and friends, getdents64, access and faccessat, a
 * readlink that failed): by path, one call relative to DIR (its flags in
 * oflags; access's mode, readlink's buffer in len); by fd (fstat,
 * getdents64, AT_EMPTY_PATH) on the fd's slot.  One that failed in the
 * recording is replayed to fail again (RP_F_FAILED: a negative lookup is
 * the storage's work too).  One that found its file (a stat or access
 * that succeeded, a readlink that failed EINVAL: not a link) needs the
 * file there before the job ran, unless the job made it: prepared (as
 * holes, if nothing reads it).
 */
static int plan_meta(struct walk *w, const struct row *r, unsigned kind)
{
	struct rp_layout *l = LAYOUT(w);
	int failed = r->ret < 0, rc, sl = -1;
	int there = !failed || (kind == CM_READLINK && r->ret == -EINVAL);
	uint64_t at = meta_at_flags(r, kind);
	uint32_t file;

	if (tape_op_has_path(r->op) && r->path && !(at & AT_EMPTY_PATH)) {
		if (!w->t->raw_file[r->path] && names_no_file(w, r->path)) {
			if (l)	/* the marker */
				l->skipped++;
			return 0;
		}
		if ((rc = file_index(w, r->path, &file)) || (rc = new_op(w, r, kind)))
			return rc;
		w->cur.op.slot = RP_NO_SLOT;
		/* a symlink at the last component is followed only where
		 * the job's was and prepare made it (layout.links: relative,
		 * under DIR); elsewhere what prepare made is no symlink, and
		 * nothing is followed */
		int follow = kind != CM_READLINK && r->op != TAPE_OP_NEWLSTAT &&
			     !(at & AT_SYMLINK_NOFOLLOW) && w->t->src.layout.files[file].symlink;
		w->cur.op.oflags = kind == CM_READLINK || follow ? 0 : AT_SYMLINK_NOFOLLOW;
		if (kind == CM_ACCESS) {
			/* its mode but X_OK: prepared files have no execute
			 * bits (root's R_OK and W_OK always pass) */
			w->cur.op.oflags |= (uint32_t)(at & AT_EACCESS);
			w->cur.op.len = (uint32_t)r->flags & (R_OK | W_OK);
		} else if (kind == CM_READLINK) {
			w->cur.op.len = r->size ? r->size : 1;	/* its buffer */
		}
		/* after its directory's mkdir, by path from DIR (no fd) */
		if ((rc = dir_of(w, file, 0)))
			return rc;
		if (there && !w->file_last[file].gidx) {
			/* there before the job, unless its directory is the
			 * job's: then an op the replay does not issue made it
			 * (a socket's bind), and the replay cannot */
			if (in_made_dir(w, file))
				w->cur.op.flags |= RP_F_ABSENT;
			else if (l)
				l->files[file].prepare = 1;
		}
	} else {
		/* the recorded open's slot, or an implicit one (a file open
		 * before the recording), as data ops have */
		if ((sl = fd_slot(w, r, 0)) < -1)
			return sl;
		if (sl < 0 || kind == CM_READLINK) {
			if (l)
				l->unmatched++;
			return 0;
		}
		file = w->slots[sl].file;
		w->hint_slot = (uint32_t)sl + 1;	/* a reader group's fstat goes
							 * with the group */
		if ((rc = new_op(w, r, kind)))
			return rc;
		w->cur.op.slot = (uint32_t)sl;
		if (kind == CM_GETDENTS)
			w->cur.op.len = r->size;	/* its buffer */
		else if (kind == CM_ACCESS)
			w->cur.op.len = (uint32_t)r->flags & (R_OK | W_OK);
		add_dep(w, w->slots[sl].last);
		w->slots[sl].last = cur_dep(w);
	}
	w->cur.op.file = file;
	if (failed)
		w->cur.op.flags |= RP_F_FAILED;
	add_dep(w, w->file_last[file]);
	add_dep(w, w->file_lastw[file]);
	if (sl < 0 && file < w->t->nresolved && w->t->resolved[file] != RP_NO_FILE) {
		/* a path through a link of the job's: by that path, of the
		 * file it leads to (another accelerator's, a copy's) */
		w->cur.op.file2 = file;
		w->cur.op.file = w->t->resolved[file];
		w->cur.op.flags |= RP_F_VIA;
	}
	return finish_op(w);
}

/* One row, in time order. */
/* ------------------------------------------------------- hand-overs */

/*
 * A thread's wait for another thread of the job is replayed as a
 * dependency on that thread, not as a delay (iotape-replay(1), HAND-
 * OVERS): at the wakeup a placeholder op (RP_F_STEP, not issued) in the
 * waker, and one in the waiter that depends on it and takes the wait off
 * its gap (rp_op.wait); a read of a pipe depends on the write that put its
 * last byte there.  So a trainer waits in the replay when its loaders, on
 * the replay's storage, hand it a batch later than they did, and waits
 * less when sooner; and a loader's work between its reads stays its own
 * delay.  The edges are noted for the loaders (layout_finish).
 */

/* Note that thread from handed thread to data (the layout pass). */
static int edge(struct walk *w, uint32_t from, uint32_t to)
{
	uint64_t *v;

	if (w->emit || from == to)
		return 0;
	return cm_map_put(&w->t->edges, from, to, &v) < 0 ? -ENOMEM : 0;
}

/* A placeholder op of row r's thread at r's time: w->cur, to finish. */
static int placeholder(struct walk *w, const struct row *r, uint64_t end)
{
	int rc = new_op(w, r, 0);

	if (rc)
		return rc;
	w->cur.op.flags |= RP_F_STEP;
	w->cur.op.end = end - w->t->t0;
	return 0;
}

/* The waiter's wakeup by another thread of the job (a ROW_WAKE). */
static int plan_wake(struct walk *w, const struct row *r)
{
	struct row x = *r;
	struct dep d;
	uint32_t from;
	int rc;

	x.tid = (uint32_t)r->fd;	/* the waker, at the wakeup */
	x.pid = (uint32_t)r->fd2;
	if ((rc = placeholder(w, &x, r->ts)))
		return rc;
	d = cur_dep(w);
	from = w->cur.thread;
	if ((rc = finish_op(w)) || (rc = placeholder(w, r, r->ts)))
		return rc;
	w->cur.op.flags |= RP_F_HANDOVER;
	w->cur.op.wait += r->dur;
	add_dep(w, d);
	if ((rc = edge(w, from, w->cur.thread)))
		return rc;
	return finish_op(w);
}

static struct wpipe *pipe_of(struct walk *w, uint64_t file_id)
{
	uint64_t *v;
	int rc = cm_map_put(&w->pipemap, file_id, 0, &v);

	if (rc < 0)
		return NULL;
	if (rc == 1) {
		if (grow((void **)&w->pipes, &w->cappipes, w->npipes + 1, sizeof(*w->pipes))) {
			cm_map_del(&w->pipemap, file_id, 0, NULL);
			return NULL;
		}
		memset(&w->pipes[w->npipes], 0, sizeof(*w->pipes));
		*v = ++w->npipes;
	}
	return &w->pipes[*v - 1];
}

/* A read or write of n bytes on a pipe (file_id): a placeholder; a read
 * depends on the write that put its last byte in the pipe. */
static int plan_pipe(struct walk *w, const struct row *r, int write)
{
	struct wpipe *p = pipe_of(w, r->file_id);
	uint64_t n = r->ret > 0 ? (uint64_t)r->ret : 0;
	int rc;

	if (!p)
		return -ENOMEM;
	if ((rc = placeholder(w, r, r->ts + r->dur)))
		return rc;
	if (write && n) {
		if (p->n == p->cap) {	/* a ring: double it, oldest first */
			size_t nc = p->cap ? 2 * p->cap : 8;
			struct wpw *a = malloc(nc * sizeof(*a));
			if (!a)
				return -ENOMEM;
			for (size_t i = 0; i < p->n; i++)
				a[i] = p->w[(p->head + i) % p->cap];
			free(p->w);
			p->w = a;
			p->head = 0;
			p->cap = nc;
		}
		p->written += n;
		p->w[(p->head + p->n++) % p->cap] = (struct wpw){ p->written, cur_dep(w) };
	} else if (n) {
		struct dep d = { 0 };
		p->read += n;
		/* the writes whose bytes are all read are done with; the
		 * last byte read came with the first one left */
		while (p->n && p->w[p->head].end < p->read) {
			d = p->w[p->head].d;
			p->head = (p->head + 1) % p->cap;
			p->n--;
		}
		if (p->n && p->w[p->head].end >= p->read)
			d = p->w[p->head].d;
		if (d.gidx && d.thread != w->cur.thread) {
			add_dep(w, d);
			w->cur.op.flags |= RP_F_HANDOVER;
			if ((rc = edge(w, d.thread, w->cur.thread)))
				return rc;
		}
	}
	return finish_op(w);
}

/* A process or thread started (a ROW_SPAWN): a placeholder in the thread
 * that made it, which the child's first op will wait for (new_op). */
static int plan_spawn(struct walk *w, const struct row *r)
{
	struct row x = *r;
	uint64_t *v;
	int rc;

	x.tid = (uint32_t)r->fd;
	x.pid = (uint32_t)r->fd2;
	if ((rc = placeholder(w, &x, r->ts)))
		return rc;
	if (grow((void **)&w->sdeps, &w->capsdeps, w->nsdeps + 1, sizeof(*w->sdeps)) ||
	    grow((void **)&w->sts, &w->capsts, w->nsdeps + 1, sizeof(*w->sts)) ||
	    cm_map_put(&w->spawned, r->tid, 0, &v) < 0)
		return -ENOMEM;
	w->sdeps[w->nsdeps] = cur_dep(w);
	w->sts[w->nsdeps] = r->ts;
	*v = ++w->nsdeps;
	return finish_op(w);
}

/* The trainer at one of its epoch marks (a ROW_MARK). */
static int plan_mark(struct walk *w, const struct row *r)
{
	int rc = placeholder(w, r, r->ts);

	if (rc)
		return rc;
	w->cur.op.flags |= RP_F_EPOCH;
	w->cur.op.off = r->offset;
	return finish_op(w);
}

static int plan_row(struct walk *w, const struct row *r)
{
	struct rp_layout *l = LAYOUT(w);
	unsigned cls = row_class(r);
	struct cm_op_rule rule = cm_op_rule(r->op);
	const char *where;

	if (r->op == ROW_FAULT)
		return fault_read(w, r);
	if (r->op == ROW_WAKE)
		return plan_wake(w, r);
	if (r->op == ROW_MARK)
		return plan_mark(w, r);
	if (r->op == ROW_SPAWN)
		return plan_spawn(w, r);
	if (rule.how == CM_COPY)
		return plan_copy(w, r);
	if (cm_kind_is_meta(rule.kind)) {
		if (!w->t->metadata) {
			if (l)
				l->skipped++;
			return 0;
		}
		if (on_memfs(w, r, &where))
			return skip_memfs(w, r, rule.kind, where);
		if (r->file_id && cm_map_get(&w->t->nonreg, r->file_id, 0)) {
			if (l)
				l->not_storage++;
			return 0;
		}
		if (!cm_op_replayed(r->op, 1, r->ret < 0)) {
			if (l)	/* a readlink that read a link */
				l->skipped++;
			return 0;
		}
		return plan_meta(w, r, rule.kind);
	}
	if (r->ret < 0 && cls != TAPE_OPC_OTHER && cls != TAPE_OPC_META &&
	    cls != TAPE_OPC_MMAP) {
		if (l)
			l->failed++;
		return 0;
	}
	/* I/O on a pipe, socket or device is not storage I/O (the recorder
	 * names a pipe "pipe:[N]": it must not become a file) */
	if (r->file_id && cls >= TAPE_OPC_OPEN && cls <= TAPE_OPC_SYNC &&
	    cm_map_get(&w->t->nonreg, r->file_id, 0)) {
		if (l)
			l->not_storage++;
		/* a pipe's bytes: what one thread hands another */
		if (w->t->handover && (cls == TAPE_OPC_READ || cls == TAPE_OPC_WRITE) &&
		    *cm_map_get(&w->t->nonreg, r->file_id, 0) == NONREG_PIPE)
			return plan_pipe(w, r, cls == TAPE_OPC_WRITE);
		/* a dup2 of /dev/null onto a file's fd (a shell's 2>/dev/null)
		 * still closes that file's fd */
		if (rule.how == CM_MAPS_FD && r->ret != r->fd)
			return close_fd(w, r, r->ret);
		return 0;
	}
	if (rule.how == CM_MAPS_FD)
		return plan_dup(w, r);
	if (rule.how == CM_SKIP && cls != TAPE_OPC_CLOSE) {
		if (l)
			l->skipped++;
		return 0;
	}
	if (on_memfs(w, r, &where))
		return skip_memfs(w, r, rule.kind, where);
	switch (rule.kind) {
	case CM_OPEN:
		return plan_open(w, r);
	case CM_CLOSE:
	case 0:	/* close_range */
		return plan_close(w, r);
	case CM_READ:
	case CM_WRITE:
	case CM_FSYNC:
	case CM_FDATASYNC:
		return plan_io(w, r, rule.kind);
	default:
		return plan_namespace(w, r, rule.kind);
	}
}

/* ------------------------------------------------------------ the window */

/* Whether the row's paths are used by its plan (others are not kept). */
static int row_needs_path(unsigned op, int second)
{
	struct cm_op_rule rule = cm_op_rule(op);

	if (second)
		return rule.how == CM_COPY || rule.kind == CM_RENAME;
	return rule.how == CM_ISSUE || rule.how == CM_COPY;
}

static int raw_id(struct walk *w, const char *s, uint32_t *id)
{
	struct trace_src *t = w->t;
	int rc;

	if (!s || !*s) {
		*id = 0;
		return 0;
	}
	rc = cm_strtab_intern(&t->raw, s, id);
	if (rc < 0)
		return rc;
	if (*id >= t->capraw) {
		size_t old = t->capraw;
		if (grow((void **)&t->raw_file, &t->capraw, *id + 1, sizeof(uint32_t)))
			return -ENOMEM;
		memset(t->raw_file + old, 0, (t->capraw - old) * sizeof(uint32_t));
	}
	return 0;
}

static int window_push(struct walk *w, const struct row *r)
{
	uint32_t slot = w->freerows[--w->nfreerows];
	struct went e = { r->ts, w->seq++, slot, 0 };
	size_t i;

	w->rows[slot] = *r;
	if (r->ts < w->t_min)
		w->t_min = r->ts;
	if (w->hi == 2 * WINDOW_ROWS) {	/* to the front */
		memmove(w->ent, w->ent + w->lo, (w->hi - w->lo) * sizeof(*w->ent));
		w->hi -= w->lo;
		w->lo = 0;
	}
	/* insertion from the back: rows come nearly in order */
	for (i = w->hi; i > w->lo && w->ent[i - 1].ts > e.ts; i--)
		;
	memmove(w->ent + i + 1, w->ent + i, (w->hi - i) * sizeof(*w->ent));
	w->ent[i] = e;
	w->hi++;
	return 0;
}

/* The next syscall row into the window: 1, 0 at the end, -errno. */
static int pull_syscall(struct walk *w)
{
	const struct tape_syscall *s;
	struct row r;
	int rc;

	do {
		while (w->pblk == w->nblk) {
			const void *evs;
			rc = tape_cursor_next_block(w->c, &evs, &w->nblk);
			if (rc <= 0)
				return rc;
			w->blk = evs;
			w->pblk = 0;
		}
		s = &w->blk[w->pblk++];
	} while (w->t->has_host && tape_event_host(TAPE_TABLE_SYSCALL, s) != w->t->host);
	r = (struct row){
		.ts = s->ts_ns, .dur = s->dur_ns, .pid = s->pid, .tid = s->tid, .op = s->op,
		.fd = s->fd, .ret = s->ret, .fd2 = s->fd2, .file_id = s->file_id,
		.file_id2 = s->file_id2, .offset = s->offset, .offset2 = s->offset2,
		.size = s->size, .flags = s->flags,
	};
	if ((row_needs_path(s->op, 0) && (rc = raw_id(w, s->path, &r.path))) ||
	    (row_needs_path(s->op, 1) && (rc = raw_id(w, s->path2, &r.path2))))
		return rc;
	w->sys_pos = s->ts_ns + s->dur_ns;
	return window_push(w, &r) ? -ENOMEM : 1;
}

static int pull_fault(struct walk *w)
{
	struct cm_fault_read f;
	struct row r;
	int rc;

	do {	/* the host of a fault is its pid's (tape_event_host) */
		if ((rc = cm_faults_next(w->t->faults, &f)) <= 0)
			return rc;
	} while (w->t->has_host && f.pid >> TAPE_HOST_PID_SHIFT != w->t->host);
	r = (struct row){
		.ts = f.ts, .pid = f.pid, .tid = f.tid, .op = ROW_FAULT, .fd = -1,
		.fd2 = -1, .file_id = f.file_id, .offset = f.offset, .size = f.len,
		.ret = (int64_t)f.len, .flags = f.pages,
	};
	if ((rc = raw_id(w, f.path, &r.path)))
		return rc;
	w->flt_pos = f.ts;
	return window_push(w, &r) ? -ENOMEM : 1;
}

/*
 * The next wait a thread of the job ended (the sched table) into the
 * window, at its wakeup: a hand-over (plan_wake).  Its place among the
 * inputs is the time it was written (the waiter ran again), so the
 * waker's calls that ended before the wakeup and the waiter's that began
 * after are on the right sides of it.  Waits inside a file call (the
 * call's own time) and a thread's own wakeups are not hand-overs.
 */
static int pull_wake(struct walk *w)
{
	const struct tape_sched *s;
	struct row r;
	int rc;

	for (;;) {
		while (w->pwblk == w->nwblk) {
			const void *evs;
			rc = tape_cursor_next_block(w->wc, &evs, &w->nwblk);
			if (rc <= 0)
				return rc;
			w->wblk = evs;
			w->pwblk = 0;
		}
		s = &w->wblk[w->pwblk++];
		w->wk_pos = s->ts_ns + s->dur_ns + s->run_ns;
		if (s->kind == TAPE_WAKE_JOB && s->waker_tid && s->waker_tid != s->tid &&
		    s->call != TAPE_WAITC_IO &&
		    (!w->t->has_host || tape_event_host(TAPE_TABLE_SCHED, s) == w->t->host))
			break;
	}
	r = (struct row){
		.ts = s->ts_ns + s->dur_ns, .dur = s->dur_ns, .pid = s->pid, .tid = s->tid,
		.op = ROW_WAKE, .fd = s->waker_tid, .fd2 = s->waker_pid,
	};
	return window_push(w, &r) ? -ENOMEM : 1;
}

/* The next of the rows the walk adds (spawns, marks) into the window. */
static int pull_extra(struct walk *w)
{
	const struct trace_src *t = w->t;

	if (w->mk_next >= t->nextra)
		return 0;
	w->mk_pos = t->extra[w->mk_next].ts;
	return window_push(w, &t->extra[w->mk_next++]) ? -ENOMEM : 1;
}

/* Fill the window from whichever input is behind. */
static int window_fill(struct walk *w)
{
	int rc;

	while (w->hi - w->lo < WINDOW_ROWS &&
	       !(w->sys_eof && w->flt_eof && w->wk_eof && w->mk_eof)) {
		/* the input furthest behind: 0 syscall, 1 fault, 2 wake, 3 the
		 * walk's own rows */
		uint64_t pos[4] = { w->sys_pos, w->flt_pos, w->wk_pos, w->mk_pos };
		int eof[4] = { w->sys_eof, w->flt_eof, w->wk_eof, w->mk_eof }, k = -1;

		for (int i = 0; i < 4; i++)
			if (!eof[i] && (k < 0 || pos[i] < pos[k]))
				k = i;
		rc = k == 0 ? pull_syscall(w) : k == 1 ? pull_fault(w) : k == 2 ? pull_wake(w) :
		     pull_extra(w);
		if (rc < 0)
			return rc;
		if (!rc)
			*(k == 0 ? &w->sys_eof : k == 1 ? &w->flt_eof : k == 2 ? &w->wk_eof :
			  &w->mk_eof) = 1;
	}
	return 0;
}

/* ------------------------------------------------------------ one pass */

static void walk_release(struct walk *w)
{
	tape_cursor_free(w->c);
	w->c = NULL;
	tape_cursor_free(w->wc);
	w->wc = NULL;
	for (size_t i = 0; i < w->npipes; i++)
		free(w->pipes[i].w);
	free(w->pipes);
	cm_map_release(&w->pipemap);
	cm_map_release(&w->spawned);
	free(w->sdeps);
	free(w->sts);
	cm_map_release(&w->fds);
	cm_map_release(&w->fslots);
	free(w->slots);
	free(w->freeslots);
	free(w->file_last);
	free(w->file_lastw);
	for (size_t i = 0; i < w->capth; i++)
		free(w->th[i].ends);
	free(w->th);
	free(w->rows);
	free(w->freerows);
	free(w->ent);
	free(w->pbuf);
	free(w->vclock);
	free(w->vstarted);
	free(w->bounds);
	cm_map_release(&w->rprev);
	memset(w, 0, sizeof(*w));
}

/* Reset the walk for a pass over the whole trace. */
static int walk_begin(struct walk *w, int emit)
{
	struct trace_src *t = w->t;
	int rc;

	w->emit = emit;
	w->gidx = 0;
	cm_map_clear(&w->fds);
	cm_map_clear(&w->fslots);
	w->nslots = 0;
	w->nfree = 0;
	if (w->file_last) {
		memset(w->file_last, 0, w->capfiles * sizeof(struct dep));
		memset(w->file_lastw, 0, w->capfiles * sizeof(struct dep));
	}
	for (size_t i = 0; i < w->capth; i++) {
		w->th[i].seq = 0;
		w->th[i].nends = 0;
	}
	w->t_min = UINT64_MAX;
	w->end_max = w->last_ts = 0;
	w->hint_file = w->hint_slot = 0;
	w->groups = w->tr_n = w->tr_prev_end = w->tr_steps = 0;
	w->st_next = 0;
	if (emit && !t->plan)	/* (with the what-ifs' plan: thread_of's) */
		w->train = t->src.layout.nthreads ?
			   (uint32_t)rp_train_thread(&t->src.layout) + 1 : 0;
	cm_map_clear(&w->rprev);
	if (t->plan) {
		unsigned n = t->plan->n ? t->plan->n : 1;
		if (!w->vclock) {
			w->vclock = calloc(n, sizeof(*w->vclock));
			w->vstarted = calloc(n, 1);
			w->bounds = calloc((size_t)t->plan->k + 1, sizeof(*w->bounds));
			if (!w->vclock || !w->vstarted || !w->bounds)
				return -ENOMEM;
		}
		memset(w->vstarted, 0, n);
	}
	if (!w->rows) {
		w->rows = malloc(WINDOW_ROWS * sizeof(*w->rows));
		w->freerows = malloc(WINDOW_ROWS * sizeof(*w->freerows));
		w->ent = malloc(2 * WINDOW_ROWS * sizeof(*w->ent));
		if (!w->rows || !w->freerows || !w->ent)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < WINDOW_ROWS; i++)
		w->freerows[i] = WINDOW_ROWS - 1 - i;
	w->nfreerows = WINDOW_ROWS;
	w->lo = w->hi = 0;
	w->seq = 0;
	tape_cursor_free(w->c);
	w->c = NULL;
	if ((rc = tape_cursor_open(t->r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &w->c)))
		return rc;
	w->nblk = w->pblk = 0;
	w->sys_eof = 0;
	w->flt_eof = !t->faults;
	w->sys_pos = w->flt_pos = w->wk_pos = w->mk_pos = 0;
	tape_cursor_free(w->wc);
	w->wc = NULL;
	w->nwblk = w->pwblk = 0;
	w->wk_eof = !t->handover;
	if (t->handover &&
	    (rc = tape_cursor_open(t->r, TAPE_TABLE_SCHED, 0, UINT64_MAX, &w->wc)))
		return rc;
	w->mk_eof = !t->nextra;
	w->mk_next = 0;
	cm_map_clear(&w->spawned);
	w->nsdeps = 0;
	for (size_t i = 0; i < w->npipes; i++) {
		w->pipes[i].written = w->pipes[i].read = 0;
		w->pipes[i].head = w->pipes[i].n = 0;
	}
	if (t->faults)
		cm_faults_rewind(t->faults);
	return 0;
}

/* A row could not be planned: the source's message names its op, its
 * process and thread (and its path, when the message does not). */
static void row_error(struct walk *w, const struct row *r, int rc)
{
	struct trace_src *t = w->t;
	const char *op = r->op == ROW_FAULT ? "page-fault read" :
			 tape_op_name(r->op) ? tape_op_name(r->op) : "op";
	const char *path = cm_strtab_str(&t->raw, r->path);
	char msg[256];

	if (t->errbuf[0])
		snprintf(msg, sizeof(msg), "%s", t->errbuf);
	else
		snprintf(msg, sizeof(msg), "%s%s%s", *path ? path : "", *path ? ": " : "",
			 strerror(-rc));
	snprintf(t->errbuf, t->errlen, "%s (pid %u, tid %u): %s", op, r->pid, r->tid, msg);
}

/* The whole trace through the window and the planner: 0 or -errno (a
 * tape error: tape_error_detail(); a planning error: the message in the
 * source's err). */
static int walk_pass(struct walk *w, int emit)
{
	int rc = walk_begin(w, emit);

	while (!rc && !atomic_load(&w->t->stop)) {
		if ((rc = window_fill(w)))
			break;
		if (w->lo == w->hi)
			break;
		struct went e = w->ent[w->lo++];
		const struct row *r = &w->rows[e.row];
		if (r->ts < w->last_ts) {
			if (!emit)
				w->t->src.layout.late++;
		} else {
			w->last_ts = r->ts;
		}
		if ((rc = plan_row(w, r)) && rc != -ECANCELED)
			row_error(w, r, rc);
		w->freerows[w->nfreerows++] = e.row;
	}
	tape_cursor_free(w->c);
	w->c = NULL;
	return rc;
}

/* ------------------------------------------------------------ layout */

/* Call fn for every row of the file table; 0 or -errno. */
static int each_file_row(struct trace_src *t, int (*fn)(struct trace_src *t,
							const struct tape_file *f))
{
	tape_cursor *c;
	const void *ev;
	int rc = tape_cursor_open(t->r, TAPE_TABLE_FILE, 0, UINT64_MAX, &c);

	if (rc)
		return rc;
	while ((rc = tape_cursor_next(c, &ev)) == 1)
		if ((!t->has_host || tape_event_host(TAPE_TABLE_FILE, ev) == t->host) &&
		    (rc = fn(t, ev)) < 0)
			break;
	tape_cursor_free(c);
	return rc < 0 ? rc : 0;
}

/* The file ids of pipes, sockets and devices, by their mode at open, and
 * of files on memory and pseudo file systems, by their fstype (a tmpfs
 * that is not under /dev: common/fstype.h). */
static int nonreg_row(struct trace_src *t, const struct tape_file *f)
{
	unsigned type = f->mode & 0170000;
	int memory = f->fstype && cm_fstype_is_memory(f->fstype);
	uint32_t raw;
	int rc;

	if (!f->file_id)
		return 0;
	/* the path a file row names it by: the real one (a recorder's,
	 * symlinks resolved), for the opens that reached it by another */
	if (t->real_paths && f->path && f->path[0] == '/' && (type == 0100000 || type == 0040000) &&
	    ((rc = raw_id(&t->w, f->path, &raw)) || (rc = cm_map_set(&t->fid_raw, f->file_id, 0, raw))))
		return rc;
	if (!type && memory)	/* a socket or pipe without a mode (sockfs) */
		return cm_map_set(&t->nonreg, f->file_id, 0, 1);
	if (memory && (type == 0100000 || type == 0040000) &&	/* file, dir */
	    cm_map_set(&t->memfs_ids, f->file_id, 0, f->fstype))
		return -ENOMEM;
	if (type == 0010000)	/* fifo: a pipe, a hand-over's channel */
		return cm_map_set(&t->nonreg, f->file_id, 0, NONREG_PIPE);
	if (type == 0140000 ||	/* socket */
	    type == 0020000 || type == 0060000)		/* chr, blk */
		return cm_map_set(&t->nonreg, f->file_id, 0, 1);
	return 0;
}

/* Sizes at open and directories, for the files the layout names. */
static int table_row(struct trace_src *t, const struct tape_file *f)
{
	struct rp_layout *l = &t->src.layout;
	char *rel;
	uint32_t id;

	if (!f->path || !*f->path)
		return 0;
	if (!(rel = malloc(strlen(f->path) + 2)))
		return -ENOMEM;
	strcpy(rel, f->path);
	if (map_path(rel, 1) == 0 && cm_strtab_find(&l->paths, rel, &id) == 0) {
		struct rp_file *pf = &l->files[id];
		if (f->size > INT64_MAX) {
			snprintf(t->errbuf, t->errlen, "file table: size %" PRIu64 " of '%s' is "
				 "past the largest file size: refused", f->size, f->path);
			free(rel);
			return -EFBIG;
		}
		/* size at open; reads past it (a growing file) keep their
		 * extent */
		if (f->size > pf->size)
			pf->size = f->size;
		pf->from_table = 1;
		if ((f->mode & 0170000) == 0040000)
			pf->isdir = 1;
	}
	free(rel);
	return 0;
}

/* A path that is the parent of another traced path is a directory, even
 * when nothing in the trace opened it O_DIRECTORY (a directory opened by
 * os.open, a mkdir'ed socket directory missing from the file table): if
 * prepare is to create it, it creates a directory, not a regular file. */
static int mark_parent_dirs(struct rp_layout *l)
{
	char *pre = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < l->nfiles; i++) {
		const char *rel = rp_file_path(l, (uint32_t)i);
		for (const char *q = strchr(rel, '/'); q; q = strchr(q + 1, '/')) {
			size_t n = (size_t)(q - rel);
			uint32_t id;
			if (grow((void **)&pre, &cap, n + 1, 1)) {
				free(pre);
				return -ENOMEM;
			}
			memcpy(pre, rel, n);
			pre[n] = 0;
			/* only what prepare would otherwise make a regular
			 * file: a directory the job creates itself stays the
			 * job's */
			if (cm_strtab_find(&l->paths, pre, &id) == 0 && l->files[id].prepare)
				l->files[id].isdir = 1;
		}
	}
	free(pre);
	return 0;
}

/*
 * The training thread (the caller's, by tid) and its loaders: the threads
 * that hand it data, directly or through others (the hand-overs' edges:
 * a worker wakes its queue's feeder thread, which writes the pipe the
 * trainer reads).  --loader-cpu-scale scales their work.
 */
static void train_loaders(struct trace_src *t)
{
	struct rp_layout *l = &t->src.layout;
	uint64_t *v = t->train_tid ? cm_map_get(&t->tids, t->train_tid, 0) : NULL;
	int more = 1;

	l->steps_marked = 1;	/* step_ended */
	if (!v) {
		free(t->steps);	/* another thread's: the source's rule */
		t->steps = NULL;
		t->nsteps = 0;
		return;
	}
	l->train = (uint32_t)*v + 1;
	l->threads[*v].train = 1;
	if (t->steps)
		l->threads[*v].steps = t->nsteps;
	l->nmarks = t->nmarks;
	while (more) {	/* to a fixed point: each round one hop further */
		more = 0;
		for (size_t i = 0; i < t->edges.cap; i++) {
			const struct cm_map_ent *e = &t->edges.e[i];
			struct rp_thread *from, *to;

			if (e->v >= CM_MAP_DEAD || e->a >= l->nthreads || e->b >= l->nthreads)
				continue;
			from = &l->threads[e->a];
			to = &l->threads[e->b];
			if ((to->train || to->loader) && !from->train && !from->loader) {
				from->loader = 1;
				more = 1;
			}
		}
	}
}

static int layout_finish(struct trace_src *t)
{
	struct rp_layout *l = &t->src.layout;
	struct walk *w = &t->w;
	int rc;

	l->span = w->end_max > t->t0 ? w->end_max - t->t0 : 0;
	l->nslots = w->nslots;
	if (l->nslot0 && !(l->slot0 = malloc(l->nslot0 * sizeof(*l->slot0))))
		return -ENOMEM;
	for (size_t i = 0; i < l->nslot0; i++) {
		const struct wslot *s = &w->slots[t->slot0_ids[i]];
		l->slot0[i] = (struct rp_slot0){ t->slot0_ids[i], s->file, s->oflags };
	}
	if (t->faults) {
		const struct cm_fault_stats *fs = cm_faults_stats(t->faults);
		l->faults_unmatched = fs->unmatched;
		l->faults_code = fs->code;
		l->faults_shm = fs->shm;
	}
	if ((rc = each_file_row(t, table_row)) < 0) {
		if (!t->errbuf[0])
			snprintf(t->errbuf, t->errlen, "file table: %s", tape_strerror(rc));
		return rc;
	}
	if ((rc = mark_parent_dirs(l)))
		return rc;
	for (size_t i = 0; t->infer && i < l->nfiles; i++) {
		if (!(t->infer[i] & INF_W))
			continue;
		l->opens_inferred += t->ro_opens[i];
		if (t->infer[i] & INF_NEW) {	/* the job made it: nothing to prepare */
			l->files[i].prepare = 0;
			if ((rc = in_dir(w, (uint32_t)i)))	/* its opens create it */
				return rc;
		}
	}
	train_loaders(t);
	if (t->nvia) {	/* the job's symlinks */
		if (!(t->via_ok = calloc(t->nvia, 1)))
			return -ENOMEM;
		size_t n0 = l->nfiles;
		if ((rc = rp_layout_links(l, t->via, t->nvia, t->via_ok, &t->resolved)))
			return rc;
		t->nresolved = t->resolved ? n0 : 0;
	}
	if (cm_strtab_count(&l->dirs) &&
	    !(l->dir_made = calloc(cm_strtab_count(&l->dirs), 1)))
		return -ENOMEM;
	for (uint32_t d = 0; d < cm_strtab_count(&l->dirs); d++) {
		uint32_t id;
		if (cm_strtab_find(&l->paths, cm_strtab_str(&l->dirs, d), &id) == 0)
			l->dir_made[d] = l->files[id].made_dir;
	}
	uint8_t *inset = NULL;	/* per file: one of the analysis's data set */
	if (t->o && t->o->has_dataset) {
		if (!(inset = calloc(l->nfiles + 1, 1)))
			return -ENOMEM;
		for (size_t k = 0; k < t->o->ndataset; k++) {
			uint32_t raw;
			if (t->o->dataset[k] &&
			    !cm_strtab_find(&t->raw, t->o->dataset[k], &raw) &&
			    raw < t->capraw && t->raw_file[raw])
				inset[t->raw_file[raw] - 1] = 1;
		}
	}
	for (size_t i = 0; i < l->nfiles; i++) {
		struct rp_file *f = &l->files[i];
		f->holes = f->prepare && !f->isdir && !f->rbytes;
		if (!f->isdir && t->direct && f->size % RP_ALIGN)
			f->size += RP_ALIGN - f->size % RP_ALIGN;
		f->dataset = f->prepare && !f->isdir && !f->modified && (!inset || inset[i]);
		if (f->dataset)
			l->dataset_bytes += f->rbytes;
	}
	free(inset);
	return 0;
}

/* ------------------------------------------------------------ queues */

static int push(struct trace_src *t, unsigned thread, const struct rp_op *op)
{
	struct queue *q = &t->q[thread];

	pthread_mutex_lock(&q->mu);
	while (q->tail - q->head == q->cap && !atomic_load(&t->stop)) {
		/* a full queue: the replay can start, it is what empties it */
		pthread_mutex_lock(&t->mu);
		if (!t->primed) {
			t->primed = 1;
			pthread_cond_broadcast(&t->cv);
		}
		pthread_mutex_unlock(&t->mu);
		q->waiting = 1;
		pthread_cond_wait(&q->cv, &q->mu);
	}
	if (!atomic_load(&t->stop)) {
		q->ops[q->tail++ % q->cap] = *op;
		if (q->waiting) {
			q->waiting = 0;
			pthread_cond_broadcast(&q->cv);
		}
	}
	pthread_mutex_unlock(&q->mu);
	return atomic_load(&t->stop) ? -ECANCELED : 0;
}

static void set_primed(struct trace_src *t)
{
	pthread_mutex_lock(&t->mu);
	t->primed = 1;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

/* Wake every consumer (the feeder ended early or was stopped). */
static void wake_all(struct trace_src *t)
{
	for (size_t i = 0; i < t->src.layout.nthreads; i++) {
		struct queue *q = &t->q[i];
		pthread_mutex_lock(&q->mu);
		q->waiting = 0;
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
	}
}

static void *feeder_main(void *arg)
{
	struct trace_src *t = arg;
	const struct rp_op end = { 0 };	/* kind 0: the thread's loop is over */
	int rc = 0;

	for (unsigned loop = 0; loop < t->loops && !rc; loop++) {
		rc = walk_pass(&t->w, 1);
		for (size_t i = 0; !rc && i < t->src.layout.nthreads; i++)
			rc = push(t, (unsigned)i, &end);
		if (!loop)
			set_primed(t);
	}
	if (rc && rc != -ECANCELED) {
		const char *d = tape_error_detail();
		if (!t->errbuf[0])
			snprintf(t->errbuf, t->errlen, "reading the trace: %s%s%s",
				 tape_strerror(rc), d && *d ? ": " : "", d && *d ? d : "");
		t->err = rc;
		atomic_store(&t->dead, 1);
		wake_all(t);
	}
	set_primed(t);
	return NULL;
}

/* Queue sizes: a loop of each thread when they fit the budget together,
 * else shares of it (at least QUEUE_MIN). */
static int queues_init(struct trace_src *t)
{
	const struct rp_layout *l = &t->src.layout;
	uint64_t all = 0, budget = (t->queue_bytes ? t->queue_bytes : QUEUE_BUDGET) /
				  sizeof(struct rp_op);

	if (!(t->q = calloc(l->nthreads ? l->nthreads : 1, sizeof(*t->q))))
		return -ENOMEM;
	for (size_t i = 0; i < l->nthreads; i++)
		all += l->threads[i].nops + 1;
	for (size_t i = 0; i < l->nthreads; i++) {
		struct queue *q = &t->q[i];
		uint64_t n = l->threads[i].nops + 1;
		if (all > budget)
			n = n * budget / all;
		if (n < QUEUE_MIN)
			n = QUEUE_MIN;
		if (n > l->threads[i].nops + 1 && all <= budget)
			n = l->threads[i].nops + 1;
		q->cap = (size_t)n;
		pthread_mutex_init(&q->mu, NULL);
		pthread_cond_init(&q->cv, NULL);
		if (!(q->ops = malloc(q->cap * sizeof(*q->ops))))
			return -ENOMEM;
	}
	return 0;
}

/* ------------------------------------------------------------ the source */

static int trace_start(struct rp_source *s, unsigned loops)
{
	struct trace_src *t = (struct trace_src *)s;
	int rc;

	t->loops = loops;
	s->err[0] = 0;
	t->errbuf = s->err;
	t->errlen = sizeof(s->err);
	if ((rc = queues_init(t))) {
		snprintf(s->err, sizeof(s->err), "out of memory (queues)");
		return rc;
	}
	if ((rc = -pthread_create(&t->feeder, NULL, feeder_main, t))) {
		snprintf(s->err, sizeof(s->err), "starting the trace reader: %s", strerror(-rc));
		return rc;
	}
	t->started = 1;
	pthread_mutex_lock(&t->mu);
	while (!t->primed)
		pthread_cond_wait(&t->cv, &t->mu);
	pthread_mutex_unlock(&t->mu);
	return atomic_load(&t->dead) ? t->err : 0;
}

static int trace_next(struct rp_source *s, unsigned thread, struct rp_op *op)
{
	struct trace_src *t = (struct trace_src *)s;
	struct queue *q = &t->q[thread];

	if (q->pb == q->nb) {
		pthread_mutex_lock(&q->mu);
		while (q->head == q->tail && !atomic_load(&t->dead) && !atomic_load(&t->stop)) {
			q->waiting = 1;
			pthread_cond_wait(&q->cv, &q->mu);
		}
		uint64_t n = q->tail - q->head;
		if (n > BATCH)
			n = BATCH;
		for (unsigned i = 0; i < n; i++)
			q->batch[i] = q->ops[q->head++ % q->cap];
		q->nb = (unsigned)n;
		q->pb = 0;
		if (n && q->waiting) {
			q->waiting = 0;
			pthread_cond_broadcast(&q->cv);
		}
		pthread_mutex_unlock(&q->mu);
		if (!n)
			return atomic_load(&t->dead) ? t->err : -ECANCELED;
	}
	*op = q->batch[q->pb++];
	return op->kind || (op->flags & RP_F_STEP) ? 1 : 0;	/* kind 0, no flag: the end */
}

static int trace_stop(struct rp_source *s)
{
	struct trace_src *t = (struct trace_src *)s;

	if (!t->started)
		return 0;
	atomic_store(&t->stop, 1);
	wake_all(t);
	pthread_join(t->feeder, NULL);
	t->started = 0;
	return atomic_load(&t->dead) ? t->err : 0;
}

static void trace_free(struct rp_source *s)
{
	struct trace_src *t = (struct trace_src *)s;

	trace_stop(s);
	for (size_t i = 0; t->q && i < s->layout.nthreads; i++) {
		pthread_mutex_destroy(&t->q[i].mu);
		pthread_cond_destroy(&t->q[i].cv);
		free(t->q[i].ops);
	}
	free(t->q);
	walk_release(&t->w);
	cm_faults_free(t->faults);
	cm_strtab_release(&t->raw);
	free(t->raw_file);
	cm_map_release(&t->nonreg);
	cm_map_release(&t->fid_raw);
	free(t->via);
	free(t->via_ok);
	free(t->resolved);
	cm_map_release(&t->via_seen);
	cm_map_release(&t->memfs_ids);
	cm_map_release(&t->tids);
	free(t->slot0_ids);
	free(t->infer);
	free(t->ro_opens);
	cm_map_release(&t->rdmap);
	free(t->rd);
	if (t->plan) {
		cm_map_release(&t->plan->readers);
		free(t->plan->dataset);
		free(t->plan);
	}
	tape_reader_free(t->r);
	cm_map_release(&t->edges);
	free(t->marks);
	free(t->steps);
	free(t->extra);
	rp_layout_release(&s->layout);
	pthread_mutex_destroy(&t->mu);
	pthread_cond_destroy(&t->cv);
	free(t);
}

static const struct rp_source_ops trace_ops = {
	.start = trace_start,
	.next = trace_next,
	.stop = trace_stop,
	.free = trace_free,
};

void rp_source_free(struct rp_source *s)
{
	if (s)
		s->ops->free(s);
}

static void tape_msg(char *err, size_t errlen, const char *trace, const char *what, int rc)
{
	const char *d = tape_error_detail();

	snprintf(err, errlen, "%s: %s%s%s%s%s", trace, what, what[0] ? ": " : "",
		 tape_strerror(rc), d && *d ? ": " : "", d && *d ? d : "");
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Open the trace source; count: count reads per (thread, file) (the first
 * open of the what-ifs); plan: the what-ifs (owned from then on, freed on
 * error too), NULL. */
static int cmp_row_ts(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/*
 * The rows the walk adds to the trace's (trace_src.extra), in time order:
 * the trainer's epoch marks, and with hand-overs the start of each process
 * or thread whose maker the trace holds (a process's: its parent's main
 * thread; a thread's: its process's main thread).  0 or -errno.
 */
static int extra_rows(struct trace_src *t)
{
	struct cm_map procs = { 0 };
	size_t cap = 0;
	tape_cursor *c = NULL;
	int rc = 0;

	for (unsigned i = 0; i < t->nmarks; i++) {
		if (grow((void **)&t->extra, &cap, t->nextra + 1, sizeof(*t->extra)))
			return -ENOMEM;
		t->extra[t->nextra++] = (struct row){
			.ts = t->marks[i], .tid = t->train_tid, .pid = t->train_tid,
			.op = ROW_MARK, .fd = -1, .fd2 = -1, .offset = i,
		};
	}
	if (t->handover) {
		const void *evs;
		size_t n;
		/* the processes the trace holds, then their threads' starts */
		for (int pass = 0; pass < 2 && !rc; pass++) {
			if ((rc = tape_cursor_open(t->r, TAPE_TABLE_PROCESS, 0, UINT64_MAX, &c)))
				break;
			while (!rc && (rc = tape_cursor_next_block(c, &evs, &n)) > 0) {
				rc = 0;
				for (size_t i = 0; i < n && !rc; i++) {
					const struct tape_process *e = (const struct tape_process *)evs + i;
					uint32_t ptid = e->tid == e->pid ? e->ppid : e->pid;
					uint64_t *v;

					if (t->has_host &&
					    tape_event_host(TAPE_TABLE_PROCESS, e) != t->host)
						continue;
					if (!pass) {
						if (cm_map_put(&procs, e->pid, 0, &v) < 0)
							rc = -ENOMEM;
						continue;
					}
					if (!ptid || ptid == e->tid || !cm_map_get(&procs, ptid, 0))
						continue;	/* made by no one traced */
					if (grow((void **)&t->extra, &cap, t->nextra + 1,
						 sizeof(*t->extra))) {
						rc = -ENOMEM;
						break;
					}
					t->extra[t->nextra++] = (struct row){
						.ts = e->ts_ns, .tid = e->tid, .pid = e->pid,
						.op = ROW_SPAWN, .fd = ptid,
						.fd2 = e->tid == e->pid ? e->ppid : e->pid,
					};
				}
			}
			tape_cursor_free(c);
			c = NULL;
		}
	}
	cm_map_release(&procs);
	if (rc < 0)
		return rc;
	if (t->nextra)	/* (qsort of NULL: undefined, even for none) */
		qsort(t->extra, t->nextra, sizeof(*t->extra), cmp_row_ts);
	return 0;
}

static int trace_open(struct trace_src **out, const char *trace, const struct rp_trace_opts *o,
		      int count, struct rplan *plan, char *err, size_t errlen)
{
	struct trace_src *t = calloc(1, sizeof(*t));
	uint32_t id;
	int rc;

	*out = NULL;
	err[0] = 0;
	if (!t) {
		if (plan) {
			cm_map_release(&plan->readers);
			free(plan->dataset);
			free(plan);
		}
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	t->plan = plan;
	t->count_rd = count;
	t->src.ops = &trace_ops;
	t->direct = o && o->direct;
	t->metadata = !o || !o->no_metadata;
	t->queue_bytes = o ? o->queue_bytes : 0;
	t->has_host = o && o->has_host;
	t->host = o ? o->host : 0;
	t->train_tid = o ? o->train_tid : 0;
	t->o = o;
	if (o && o->nmarks && o->train_tid) {
		if (!(t->marks = malloc(o->nmarks * sizeof(*t->marks)))) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
			goto fail;
		}
		memcpy(t->marks, o->marks, o->nmarks * sizeof(*t->marks));
		t->nmarks = o->nmarks;
	}
	if (o && o->steps && o->train_tid) {
		if (!(t->steps = malloc((o->nsteps + 1) * sizeof(*t->steps)))) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
			goto fail;
		}
		memcpy(t->steps, o->steps, o->nsteps * sizeof(*t->steps));
		t->nsteps = o->nsteps;
		qsort(t->steps, t->nsteps, sizeof(*t->steps), cmp_u64);
	}
	t->w.t = t;
	t->errbuf = err;
	t->errlen = errlen;
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	if ((rc = tape_reader_open(&t->r, trace))) {
		snprintf(err, errlen, "%s: %s", trace, tape_strerror(rc));
		goto fail;
	}
	/* opens through symlinks are told only where the file table names
	 * files by their real path (a recorder's, or a merged host's) */
	{
		char key[48];
		const char *fp;
		snprintf(key, sizeof(key), t->has_host ? "host.%u.file_paths" : "file_paths",
			 t->host);
		fp = tape_reader_meta(t->r, key);
		t->real_paths = fp && strcmp(fp, "real") == 0;
	}
	/* raw id 0 is "": a row without a path (raw_id) */
	if ((rc = cm_strtab_intern(&t->raw, "", &id)) < 0 ||
	    (rc = grow((void **)&t->raw_file, &t->capraw, 1, sizeof(uint32_t))))
		goto fail;
	memset(t->raw_file, 0, t->capraw * sizeof(uint32_t));
	if ((rc = each_file_row(t, nonreg_row)) < 0) {
		tape_msg(err, errlen, trace, "file table", rc);
		goto fail;
	}
	if ((rc = cm_faults_open(&t->faults, t->r))) {
		tape_msg(err, errlen, trace, "page faults", rc);
		goto fail;
	}
	{	/* hand-overs: asked, and the waits were recorded */
		struct tape_table_stats st;
		t->handover = !(o && o->no_handover) &&
			      !tape_reader_table_stats(t->r, TAPE_TABLE_SCHED, &st) && st.events;
	}
	if ((rc = extra_rows(t))) {
		tape_msg(err, errlen, trace, "process table", rc);
		goto fail;
	}
	/* the layout pass plans with absolute times (t0 = 0); the first
	 * row's time, the origin of the ops' times, is known after it */
	if ((rc = walk_pass(&t->w, 0)) == 0)
		t->t0 = t->w.t_min == UINT64_MAX ? 0 : t->w.t_min;
	if (rc) {
		if (!err[0])
			tape_msg(err, errlen, trace, "", rc);
		goto fail;
	}
	if ((rc = layout_finish(t))) {
		if (!err[0])
			snprintf(err, errlen, "%s: %s", trace, strerror(-rc));
		goto fail;
	}
	t->o = NULL;
	*out = t;
	return 0;
fail:
	trace_free(&t->src);
	return rc;
}

/* The what-ifs' plan from a first open t (counted): 0, or -ENOENT when
 * the trace has no data set readers, -ENOMEM. */
static int plan_make(const struct trace_src *t, const struct rp_trace_opts *o,
		     struct rplan **out)
{
	const struct rp_layout *l = &t->src.layout;
	struct rplan *pl = calloc(1, sizeof(*pl));
	uint64_t *per = calloc(l->nthreads + 1, sizeof(*per)), total = 0;
	uint32_t maxtid = 0;
	int rc = -ENOMEM;

	if (!pl || !per || !(pl->dataset = calloc(l->nfiles + 1, 1)))
		goto out;
	pl->n = o->reader_threads;
	pl->k = o->prefetch;
	pl->nfiles = l->nfiles;
	for (size_t i = 0; i < l->nfiles; i++)
		pl->dataset[i] = l->files[i].dataset;
	for (size_t i = 0; i < t->nrd; i++)
		if (t->rd[i].file < l->nfiles && l->files[t->rd[i].file].dataset &&
		    t->rd[i].thread < l->nthreads) {
			per[t->rd[i].thread] += t->rd[i].bytes;
			total += t->rd[i].bytes;
		}
	for (size_t i = 0; i < l->nthreads; i++) {
		if (l->threads[i].tid > maxtid)
			maxtid = l->threads[i].tid;
		if (!per[i] || per[i] * 100 < total)
			continue;
		if (cm_map_set(&pl->readers, l->threads[i].tid, 0, 1))
			goto out;
		pl->nreaders++;
	}
	rc = -ENOENT;
	if (!pl->nreaders)
		goto out;
	pl->vtid0 = maxtid + 1;
	size_t tt = rp_train_thread(l);
	pl->train_tid = tt < l->nthreads ? l->threads[tt].tid : UINT32_MAX;
	*out = pl;
	pl = NULL;
	rc = 0;
out:
	free(per);
	if (pl) {
		cm_map_release(&pl->readers);
		free(pl->dataset);
		free(pl);
	}
	return rc;
}

int rp_trace_open(struct rp_source **out, const char *trace, const struct rp_trace_opts *o,
		  char *err, size_t errlen)
{
	struct trace_src *t = NULL;
	struct rplan *pl = NULL;
	int rc;

	*out = NULL;
	if (!o || (!o->reader_threads && !o->prefetch)) {
		rc = trace_open(&t, trace, o, 0, NULL, err, errlen);
		if (t)
			t->src.layout.direct = t->direct;
		*out = t ? &t->src : NULL;
		return rc;
	}
	/* the what-ifs: a first open finds the readers, a second deals them */
	if ((rc = trace_open(&t, trace, o, 1, NULL, err, errlen)))
		return rc;
	rc = plan_make(t, o, &pl);
	trace_free(&t->src);
	if (rc == -ENOENT)
		snprintf(err, errlen, "%s: no thread reads the data set (read-only files the "
			 "trace reads): no readers for --reader-threads or --prefetch", trace);
	else if (rc)
		snprintf(err, errlen, "out of memory");
	if (rc)
		return rc;
	unsigned nreaders = pl->nreaders;
	if ((rc = trace_open(&t, trace, o, 0, pl, err, errlen)))
		return rc;
	t->src.layout.readers_recorded = nreaders;
	t->src.layout.direct = t->direct;
	*out = &t->src;
	return 0;
}
