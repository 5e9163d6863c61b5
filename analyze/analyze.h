/* SPDX-License-Identifier: MIT */
/*
 * analyze.h - state shared by the engines of `iotape analyze`.
 *
 * The analysis streams over each table once, block by block
 * (tape_cursor_next_block), in this order: process, file, sample, then
 * syscall, cache and block.  The three event passes are independent: each
 * owns its state (struct ana_sys, ana_cache, ana_blk) and reads only what
 * the process and file passes built (frozen before they start), so cache and
 * block can run on a second thread while syscall runs on the first.  The
 * results are joined afterwards (ana_join) and printed (ana_report_*).
 *
 * Memory invariant: state grows with files, processes, threads, (pid, fd)
 * pairs, (thread, fd) streams, devices, checkpoints and seconds of trace
 * time, never with events; the exceptions: file visits (8 bytes each, for
 * the epochs' orders and starts), which grow with the job's length, and
 * exact latency samples, capped (see common/hist.h).
 *
 * Every definition of a metric lives in man/iotape-analyze.1; the code
 * comments point there rather than repeating it.
 */
#ifndef IOTAPE_ANALYZE_H
#define IOTAPE_ANALYZE_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include "tape.h"
#include "map.h"
#include "hist.h"
#include "ops.h"

#define ANA_NONE UINT32_MAX
#define ANA_TS_FAR INT32_MIN

/* ------------------------------------------------------------ utilities */

/*
 * Allocation that cannot fail at the call site: out of memory, it jumps to
 * the catch point this thread set with ana_oom_catch, and the entry point
 * that set it returns -ENOMEM (ana_run sets one for each pass thread; the
 * reports and compare run under ana_guard).  Allocating without a catch
 * point is a bug: the process aborts.  A failed grow leaves the old block
 * in place, so ana_release can still free everything.
 */
void *ana_xrealloc(void *p, size_t n);
void *ana_xcalloc(size_t n, size_t sz);
char *ana_xstrdup(const char *s);
#include <setjmp.h>
/* Catch point of this thread (NULL: none). */
void ana_oom_catch(jmp_buf *jb);
/* Test hook: when > 0, the allocation that brings it to 0 fails. */
extern size_t ana_oom_after;
/* tape_cursor_open/free for the passes, and temporary buffers: the
 * thread's open cursors (four) and temporaries are remembered, so that a catch
 * point can free them (ana_oom_cleanup) after an out of memory jumped out
 * of the code that owned them. */
int ana_cursor_open(tape_reader *r, int table, uint64_t t0, uint64_t t1, tape_cursor **c);
void ana_cursor_free(tape_cursor *c);
void *ana_tmp_calloc(size_t n, size_t sz);
void ana_tmp_free(void *p);
void ana_oom_cleanup(void);
/* fn(arg) under a catch point: its result, or -ENOMEM when it ran out of
 * memory (its cursor and temporaries freed).  Not nested: for entry
 * points of the library. */
int ana_guard(int (*fn)(void *arg), void *arg);
/* fn(arg) under this thread's catch point, or ana_guard's when it has
 * none (a library function that callers outside the analyzer call too). */
int ana_guard_here(int (*fn)(void *arg), void *arg);

/*
 * Grow a vector so index i is valid.  New elements are NOT zeroed: the
 * caller clears each element when it starts using it (ANA_VEC_CLEAR), so
 * capacity never touched is never resident (a million-file dataset must
 * not pay for the doubling slack).
 */
#define ANA_VEC_GROW(ptr, cap, i) do {					\
	if ((size_t)(i) >= (cap)) {					\
		size_t nc_ = (cap) ? (cap) : 16;			\
		while (nc_ <= (size_t)(i)) nc_ *= 2;			\
		(ptr) = ana_xrealloc((ptr), nc_ * sizeof(*(ptr)));	\
		(cap) = nc_;						\
	}								\
} while (0)
/* The same for a vector kept on cache-line bounds (files[], the cache
 * pass's files): from 1 MiB on, on transparent huge pages, whose TLB
 * entries cover what the per-file state's random accesses reach. */
void *ana_xrealloc_lines(void *p, size_t old_n, size_t n);
/* Have the pages of [p, p + n) faulted in by a thread of their own (their
 * clearing off this thread's core, for memory it is about to fill): a
 * detached thread that only asks the kernel (MADV_POPULATE_WRITE), never
 * touches the bytes; nothing where that cannot be had. */
void ana_prefault(void *p, size_t n);
#define ANA_VEC_GROW_LINES(ptr, cap, i) do {				\
	if ((size_t)(i) >= (cap)) {					\
		size_t nc_ = (cap) ? (cap) : 16;			\
		while (nc_ <= (size_t)(i)) nc_ *= 2;			\
		(ptr) = ana_xrealloc_lines((ptr), (cap) * sizeof(*(ptr)),	\
					   nc_ * sizeof(*(ptr)));	\
		(cap) = nc_;						\
	}								\
} while (0)
/* Zero elements [from, to] (inclusive) of a vector. */
#define ANA_VEC_CLEAR(ptr, from, to) \
	memset((ptr) + (from), 0, ((size_t)(to) - (size_t)(from) + 1) * sizeof(*(ptr)))

/*
 * The hash map is common/'s (struct cm_map); the analyzer's put follows
 * its conventions: out of memory jumps to the catch point, and a new
 * entry's value is ANA_NONE.
 */
static inline uint64_t *ana_map_get(const struct cm_map *m, uint64_t a, uint64_t b)
{
	return cm_map_get(m, a, b);
}
uint64_t *ana_map_put(struct cm_map *m, uint64_t a, uint64_t b);
/* The same for a count: a new entry's value is 0, and *added says it was
 * added (which may have moved every entry: pointers into m are stale). */
uint64_t *ana_map_count(struct cm_map *m, uint64_t a, uint64_t b, int *added);

/*
 * Dense index from a small integer key (a file id: the recorder numbers
 * files 1, 2, 3, ...) to a u32 value, ANA_NONE where unset.  It replaces a
 * hash lookup on every event by one load from an array 32 times smaller
 * than the map.  Keys at or above the limit the caller passes to
 * ana_idx_put (a multiple of the files known) are not stored: the caller
 * keeps those in a cm_map, so memory still grows with files only.
 */
struct ana_idx {
	uint32_t *v;
	size_t n;	/* keys [0, n) have a slot */
};
static inline uint32_t ana_idx_get(const struct ana_idx *x, uint64_t k)
{
	return k < x->n ? x->v[k] : ANA_NONE;
}
/* Slot of k (ANA_NONE when new), or NULL when k >= limit. */
uint32_t *ana_idx_put(struct ana_idx *x, uint64_t k, size_t limit);
void ana_idx_release(struct ana_idx *x);
/* Slots for keys [0, n) at once (no doubling past them). */
void ana_idx_reserve(struct ana_idx *x, size_t n);
/* The limit for a dense index of file ids when nfiles files are known. */
#define ANA_IDX_LIMIT(nfiles) (8 * (size_t)(nfiles) + 4096)

/* Latency samples (common/hist.h); out of memory jumps to the catch point. */
void ana_oom(void);
static inline void ana_lat_add(struct cm_lat *l, uint64_t v, size_t *budget)
{
	if (cm_lat_add(l, v, budget))
		ana_oom();
}

/* Power-of-two size histogram: bucket 0 holds 0, bucket k>=1 [2^(k-1), 2^k). */
#define ANA_SZ_BUCKETS 65
static inline unsigned ana_sz_bucket(uint64_t v)
{
	return v ? 64 - (unsigned)__builtin_clzll(v) : 0;
}

/*
 * Set of disjoint half-open intervals [s, e) of page indexes, sorted, with
 * adjacent intervals merged.  Used for "inserted, not yet accessed" pages.
 */
struct ana_ival { uint64_t s, e; };
struct ana_ivset {
	union {
		struct ana_ival *iv;	/* cap > 0: n intervals on the heap */
		struct ana_ival one;	/* cap == 0: at most one, inline */
	};
	uint32_t n, cap;
};
/* Add [s, e); *dn gets the change in interval count.  Returns -1 (set
 * unchanged) when it would need a new interval beyond max, else 0. */
int ana_ivset_add_slow(struct ana_ivset *set, uint64_t s, uint64_t e, uint32_t max,
		       int64_t *dn);
static inline int ana_ivset_add(struct ana_ivset *set, uint64_t s, uint64_t e, uint32_t max,
				int64_t *dn)
{
	/* the common cases inline: an empty set, or one interval that [s, e)
	 * touches (sequential readahead) */
	if (!set->cap && s < e && max) {
		struct ana_ival *o = &set->one;
		if (!set->n) {
			*o = (struct ana_ival){ s, e };
			set->n = 1;
			*dn = 1;
			return 0;
		}
		if (o->e >= s && o->s <= e) {
			if (s < o->s)
				o->s = s;
			if (e > o->e)
				o->e = e;
			*dn = 0;
			return 0;
		}
	}
	return ana_ivset_add_slow(set, s, e, max, dn);
}
/* Remove [s, e); returns the number of pages that were in the set; *dn as above. */
uint64_t ana_ivset_take_slow(struct ana_ivset *set, uint64_t s, uint64_t e, int64_t *dn);
static inline uint64_t ana_ivset_take(struct ana_ivset *set, uint64_t s, uint64_t e,
				      int64_t *dn)
{
	*dn = 0;
	if (!set->n || s >= e)
		return 0;
	if (!set->cap) {	/* one interval, inline, unless [s, e) splits it */
		struct ana_ival *o = &set->one;
		if (o->e <= s || o->s >= e)
			return 0;
		uint64_t a = o->s > s ? o->s : s, b = o->e < e ? o->e : e;
		int left = o->s < s, right = o->e > e;
		if (!left || !right) {
			if (left)
				o->e = s;
			else if (right)
				o->s = e;
			else {
				set->n = 0;
				*dn = -1;
			}
			return b - a;
		}
	}
	return ana_ivset_take_slow(set, s, e, dn);
}
uint64_t ana_ivset_pages(const struct ana_ivset *set);
void ana_ivset_release(struct ana_ivset *set);

/*
 * Order randomness of a visit sequence: seq holds name ranks (distinct).
 * Returns 1 - |Kendall tau| between visit order and rank order, and the
 * signed tau in *tau; NaN when n < 2.
 */
double ana_order_randomness(const uint32_t *seq, size_t n, double *tau);

/* strverscmp(s, t), faster (ana_names.c) */
int ana_natcmp(const char *s, const char *t);

/* Humanized text: "4.2 M", "0.973".  buf >= 32 bytes.  Bytes and times
 * use the CLI's cm_fmt_bytes / cm_fmt_ns (ana_report.c). */
const char *ana_fmt_count(char *buf, uint64_t v);
const char *ana_fmt_ratio(char *buf, double v);	/* "0.973" or "n/a" */

/* ------------------------------------------------------------- options */

struct ana_opts {
	int json, per_file, per_process;
	long top;		/* -1 = default */
	uint64_t from_ns, to_ns; /* relative to trace start; to = UINT64_MAX */
	int has_pid;
	uint32_t pid;
	int threads;		/* 1 = single core, 2 = cache+block on a 2nd thread */
	/* `iotape compare`: count reads and writes (totals, sizes, pattern,
	 * threads, per kind) only on regular files with a path, and with
	 * under set only on those whose path starts with under + '/' */
	int files_only;
	const char *under;	/* no trailing '/'; NULL = anywhere */
	/* and not on files for which skip(path, skip_arg) is true */
	int (*skip)(const char *path, void *skip_arg);
	void *skip_arg;
	/* compute vs I/O (threads' gap_ns, io_ns): only the ops iotape
	 * replay reproduces (open, close, read, write, sync, namespace, when
	 * they succeeded) are I/O; the others (stat, lseek, mmap, failed
	 * opens, ...) count as compute, as the replay makes them think time */
	int replayed_io;
	int no_metadata;	/* with replayed_io: the replay ran --no-metadata */
	/* a merged trace (iotape merge): only the events of host `host`,
	 * over that host's window (its metadata host.H.t_min, t_max) */
	int has_host;
	unsigned host;
	/* no training thread and AU (a->train stays empty): for callers that
	 * print no report (compare, model), a second pass over the syscall
	 * table saved */
	int no_train;
	/* a->sorder (the files in strcmp order of their paths), as the
	 * outputs that list every file get it */
	int path_order;
};

/* Whether the analysis leaves out an event of table (another host's). */
#define ANA_HOST_SKIP(a, table, ev) \
	((a)->o.has_host && tape_event_host((table), (ev)) != (a)->o.host)

/* The last timeline bucket looked up (see ana_bucket_index). */
struct ana_bkc {
	uint64_t lo, hi;
	size_t i;
};

/* ------------------------------------------------ processes and files */

/*
 * The files' paths (ana_names.c): an id each, 0 for none; a path is its
 * directory (interned) and its last component (less the start it shares
 * with its directory's), in an arena that never moves.  ana_path_str gives the whole path: in buf (ANA_PATH_BUF bytes),
 * or where kept whole in the table itself (valid while the analysis is).
 */
#define ANA_PATH_BUF 4096
struct ana_paths {
	struct cm_strtab dirs;
	char **chunk; size_t nchunk, capchunk;
	size_t used;		/* bytes used of the last chunk */
	/* the directory of the last path added (rows come a directory at a
	 * time): 1 + its id, 0 = none */
	uint32_t last_dir;
	size_t last_dl;
};
struct ana;
/* The id of a new entry for path (out of memory jumps). */
uint32_t ana_path_add(struct ana *a, const char *path);
const char *ana_path_str(const struct ana *a, uint32_t id, char *buf);
/* The same written at dst (ANA_PATH_BUF bytes, no NUL), id != 0: its length. */
size_t ana_path_put(const struct ana *a, uint32_t id, char *dst);
/* Its directory (not NUL-ended at *len: the table's string is; NULL for a
 * path kept whole), its last component (in buf, ANA_PATH_BUF bytes, or
 * in the table). */
const char *ana_path_dir(const struct ana *a, uint32_t id, size_t *len);
const char *ana_path_name(const struct ana *a, uint32_t id, char *buf);
/* Hint that path id will be read soon (a listing in an order of its own). */
void ana_path_prefetch(const struct ana *a, uint32_t id);
/* Whether path id is "" (or no path: 0), without building it. */
int ana_path_empty(const struct ana *a, uint32_t id);
/* Its directory's id in paths.dirs (ANA_NONE: kept whole, or none). */
uint32_t ana_path_dir_id(const struct ana *a, uint32_t id);
/* strcmp of two paths (ids != 0) */
int ana_path_cmp(const struct ana *a, uint32_t x, uint32_t y);
/* Whether path id is the string s */
int ana_path_eq(const struct ana *a, uint32_t id, const char *s);
/* path -> files[] (ana_names.c): the slot of path, ANA_NONE when new (the
 * caller stores a files[] index there before the next call; out of
 * memory jumps). */
struct ana_pidx {
	uint64_t *slot;		/* (files[] index, hash tag) pairs */
	size_t cap, n;
	/* the hash of the path at hint (cm_hash_str), computed ahead by the
	 * syscall pass (see ana_pidx_ahead) */
	const char *hint;
	uint64_t hint_h;
};
uint32_t *ana_pidx_slot(struct ana *a, const char *path);
/* A lookup of a path with hash h coming: fetch its home slot (stage 0);
 * the file there if its tag matches (stage 1), that file's path's entry
 * (stage 2) and name (stage 3).
 * *fi carries the file found from stage 1 to 2 (ANA_NONE: none). */
void ana_pidx_ahead(const struct ana *a, uint64_t h, int stage, uint32_t *fi);
/* Room for n paths. */
void ana_pidx_reserve(struct ana *a, size_t n);
void ana_pidx_release(struct ana_pidx *x);
void ana_paths_release(struct ana_paths *t);
/* Sort f (n files[] indexes) by path, in strverscmp order (nat) or
 * strcmp's; equal paths by index, files without a path last (by index).
 * Temporaries: out of memory jumps. */
void ana_path_sort(const struct ana *a, uint32_t *f, size_t n, int nat);
/* The same of all files, into f (room for nfiles), no second array. */
void ana_path_sort_all(const struct ana *a, uint32_t *f, int nat);
/* rank[i]: files[i]'s place in strverscmp order of the paths (as above) */
void ana_name_ranks(const struct ana *a, uint32_t *rank);
/* A stable merge sort of n u32 by cmp (a merge of runs already in order
 * is skipped: linear on sorted input).  Temporaries: out of memory jumps. */
void ana_sort_u32(uint32_t *v, size_t n, int (*cmp)(uint32_t, uint32_t, void *), void *arg);

struct ana_proc {
	uint32_t pid, ppid;
	char *comm;	  /* NULL when the process table does not say */
	char *argv;
	uint64_t start_ns, end_ns;
	int filter;	  /* --pid: 0 unknown, 1 in, 2 out */
	/* from the syscall pass */
	uint64_t read_ops, read_bytes, write_ops, write_bytes;
	uint64_t io_ns, threads;
	int seen;	  /* has syscall events */
	/* from the sample pass: cumulative CPU ns, first and last sample */
	uint64_t cpu_u0, cpu_u1, cpu_s0, cpu_s1;
	uint8_t has_cpu_u, has_cpu_s;
};

/* What a file can be (iotape-analyze(1), DATA SET): decided on its first
 * read or write (ana_file_kind), for the files without I/O at the join. */
enum {
	ANA_FK_UNKNOWN,		/* not decided yet */
	ANA_FK_DATA,		/* may be the data set: a regular file with a path,
				 * neither code nor a system file */
	ANA_FK_CODE,		/* code or a system file: never the data set */
	ANA_FK_NONE,		/* no regular file with a path (pipe, socket,
				 * unknown fd), or left out by compare */
};

/*
 * One per file: 64 bytes, a cache line, all that the syscall pass touches
 * on a read (its counters, its extent and its epoch round; files[] is on
 * huge pages), the rest where a file has them: its file id (implied while
 * files[i]'s is i + 1: see ana_file_fid), its identity in a->ident (dev,
 * inode: the file table's), its name rank in a->name_rank, what the cache
 * pass found in a->pages, and what few files have (writes, read streams
 * of more than one read, pages faulted in) in a->ext (struct ana_fext).
 * Its 64-bit figures (enum ana_fw: read ops and bytes, size, extent,
 * bytes of its round) are here in 32 bits each while all fit, else
 * (wide) in a->wides: read them with ana_file_fw, change them with
 * ana_file_fw_set.
 * Memory: this, its path's name (struct ana_paths), its entries in the
 * indexes (file id, dev and inode), 8 bytes a visit (epochs), and while
 * the cache pass runs 20 bytes of cache state, 8 from then on (its pages
 * in the page cache, a->pages32): that is all that grows with files.
 */
enum ana_fw {
	ANA_FW_READ_OPS,
	ANA_FW_READ_BYTES,
	ANA_FW_SIZE,	  /* in the file table (from_table), else 0 */
	ANA_FW_EXTENT,	  /* the end of its furthest read or write (0: none)
			   * (iotape-analyze(1) files[].extent) */
	ANA_FW_COV,	  /* epochs: bytes read in its current round */
	ANA_FW_N
};
struct ana_file {
	_Alignas(64) uint32_t fw[ANA_FW_N];	/* while !wide (ana_file_fw) */
	/* syscall pass, every read */
	uint32_t rh0, rm0;	/* epochs: its round's first range (struct ana_sketch) */
	uint32_t visits;
	uint32_t pass;	  /* epochs: the pass of its current round (in_round) */
	/* opens, folded streams */
	uint32_t opens;	  /* (beyond 2^32: ana_fext.opens_hi) */
	uint32_t st_single;	/* its streams of one read (ana_stream_class 0) */
	uint32_t path;	  /* in a->paths; 0 = unknown (see ana_file_label) */
	uint32_t ext;	  /* 1 + its index in a->ext, 0 = none */
	uint32_t not_regular : 1;	/* its mode says pipe, socket, device, ... */
	uint32_t from_table : 1;	/* listed in the file table */
	uint32_t has_cache : 1;
	uint32_t shared_map : 1;	/* mapped shared and readable, not executable */
	uint32_t anon : 1;	/* "[pid P fd N]": an fd of unknown origin */
	uint32_t kind : 2;	/* ANA_FK_*, by ana_file_kind */
	uint32_t in_round : 1;	/* epochs: has entered a pass */
	uint32_t covered : 1;	/* epochs: its round read its extent, each byte once */
	uint32_t ovl : 1;	/* epochs: bytes of it read twice in a round: ranges only */
	uint32_t again : 1;	/* epochs: entered a second round */
	uint32_t dataset : 1;	/* in the data set (ana_join) */
	uint32_t exec_map : 1;	/* mapped executable: code, its faults the loader's */
	uint32_t dir : 1;	/* its mode says directory */
	uint32_t memfs : 1;	/* its fstype is a memory or pseudo fs (tmpfs, ...) */
	uint32_t sketch : 1;	/* epochs: has a sketch (sys.sketches) */
	uint32_t wide : 1;	/* its fw[] are in a->wides (ana_fext.wide) */
	/* files_only, once known: ana_file_excluded (bits 0-1: 1 no, 2
	 * yes), and whether its metadata ops are left out (bits 2-3: 1 no,
	 * 2 yes) */
	uint32_t excl : 4;
	/* reads and writes of a file that may be data and was not read again
	 * yet, by size class (see ana_sys.fhist): two classes here, hc[i]
	 * of class hk[i] (| 1 << 7: writes); 0: slot free */
	uint16_t hc[2];
	uint8_t hk[2];
};
_Static_assert(sizeof(struct ana_file) == 64, "64 bytes");

/* What few files have: created by the syscall pass (writes, streams of
 * more than one read) or the join (pages faulted in). */
struct ana_fext {
	uint64_t write_ops, write_bytes;
	uint64_t rd_pairs, rd_nonconsec, rd_seq;	/* its folded read streams */
	uint32_t st_cls[4];	/* its streams by class ([0]: ana_file.st_single) */
	uint64_t mapped;  /* pages reached by page faults (joined; through its
			   * shared mapping when shared_map) */
	uint64_t mapped_missed;	/* of mapped, the pages missed */
	uint64_t opens_hi;	/* opens beyond ana_file.opens */
	uint32_t wb;	  /* 1 + index of its write burst in sys.wbs, 0 = none */
	uint32_t wide;	  /* 1 + index of its figures in a->wides, 0 = none */
};

/* A file's 64-bit figures once one outgrows 32 bits (ana_file.wide). */
struct ana_fwide {
	uint64_t v[ANA_FW_N];
};

/* A file's identity: the file table's dev and inode (0: not known). */
struct ana_ident {
	uint64_t dev, inode;
};

/* A file's pages in the page cache (the cache pass, joined). */
struct ana_pages {
	uint64_t accessed, missed;
};

/* The current write burst of a file (checkpoint detection). */
struct ana_wburst {
	uint64_t start, end, bytes, ops, syncs;
	double sq;	  /* sum of the squares of its writes' sizes */
	uint64_t next;	  /* where the next write goes if it continues the last */
	uint32_t file;	  /* whose (files[]) */
	uint8_t whole;	  /* written front to back from offset 0, each byte once */
	uint8_t closed;	  /* closed after its last write */
	uint8_t unlinked; /* and then deleted (a temporary file) */
};

/* ------------------------------------------------------- syscall pass */

/*
 * A stream is what one thread reads through one open of a file: keyed by
 * (tid, fd), it restarts when the fd is opened again (gen changes).  When it
 * restarts, and at the end, its counters are folded into its file and the
 * totals (ana_stream_fold), so streams are bounded by threads x open fds.
 */
struct ana_stream {
	uint32_t tid, gen, file;
	int has_stride;
	int64_t fd;
	uint64_t last_start, last_end, last_stride;
	uint64_t reads, pairs, nonconsec, consec, seq, same_stride;
};

struct ana_fd {		  /* (pid, fd) -> open file description */
	uint32_t file;
	uint32_t visited; /* reads through this open (> 0: a visit made) */
	uint32_t gen;	  /* changes at every open: streams restart */
	/* epochs: its first read started a round of its file, to be undone
	 * if its second read finds the file bigger than the file's reads did
	 * (iotape-analyze(1), Epochs): 1 + the pass it left, and in the top
	 * bit whether the file had been read again before; 0 none */
	uint32_t undo;
};

struct ana_thread {
	uint32_t tid, pid;
	uint64_t first_ns, last_end, io_ns, gap_ns, ops;
	uint64_t read_ops, read_bytes, write_ops, write_bytes;
	/* its steps: the gaps of ANA_STEP_GAP_NS or more, their sum and the
	 * sum of their squares (in ms^2) */
	uint64_t steps, step_ns;
	double step_sq_ms;
	/* its reads of files that may be data (ANA_FK_DATA): how many, the
	 * first one's start and the last one's end (`iotape model`: how many
	 * threads read the data set at once) */
	uint64_t data_reads, data_first, data_last;
	/* its gaps split (with a sched table; iotape-analyze(1), THREADS):
	 * work_ns the gaps less their waits for other threads of the job
	 * (wait_ns); steps, step_ns and step_sq_ms above count the gaps
	 * whose work is a step.  wait_pend: waits of the open gap. */
	uint64_t work_ns, wait_ns, wait_pend;
	uint32_t last_stream;	/* cache of the last stream used */
	uint32_t last_closed;	/* the file with a write burst it last closed */
	int64_t last_fd;	/* cache of the last fd looked up ... */
	uint32_t last_fdi;	/* ... its index in fds[] (stable per key) */
};

/*
 * A thread's waits, from the sched table (ana_sched.c), by thread id: its
 * on-CPU time, its blocked time by what woke it, and the thread of the
 * job whose wakeups ended most of its waits for the job (iotape-analyze(1),
 * THREADS: how a gap is split).
 */
struct ana_wthread {
	uint32_t tid, pid;
	uint64_t cpu_ns;	/* on-CPU time at its last wait */
	uint64_t waits;
	uint64_t wait_ns[TAPE_WAKE_KIND_MAX];	/* blocked, by what woke it */
	uint64_t job_ns;	/* of wait_ns[JOB], in its gaps (not in a call
				 * that bounds them) */
	uint32_t waker_tid;	/* the job thread that woke it most (by time) */
	uint64_t waker_ns;
	uint64_t first_ns, last_ns;	/* its first and last wait */
};

struct ana_sched {
	struct ana_wthread *t; size_t n, cap;
	struct cm_map map;	/* tid -> t[] */
	struct cm_map pair;	/* (tid, waker tid) -> blocked ns */
	uint64_t rows;
	uint64_t wait_min_ns;	/* "sched.wait_min_ns" */
	int have;		/* the trace has a sched table */
};

/* A compute gap this long or longer is a training step (the replay's
 * rule, replay/replay.h RP_STEP_GAP_NS). */
#define ANA_STEP_GAP_NS 1000000ull
/* struct ana_train ends[] of a step the trace ended in */
#define ANA_STEP_LAST UINT64_MAX

struct ana_epoch {
	uint64_t start_ns, end_ns, bytes, files, reads;
	uint32_t *order;	/* files (then name ranks) in visit order;
				 * ANA_NONE: a round undone */
	/* start of each visit: ns after the previous one (visits come in
	 * time order but for threads' skew), ANA_TS_FAR for one too far,
	 * whose start is the next value of far[] */
	int32_t *dts;
	uint64_t *far, last_ts;
	size_t norder, cap, nfar, capfar;
	double order_rand, order_tau;	/* of order, set by ana_join */
};

/*
 * Epochs: the ranges (offset, length) a file's round read, a sample of
 * them, to tell when one is read again (iotape-analyze(1), Epochs: kept
 * ranges).  A range is a 32-bit hash of its offset and length (never 0:
 * 0 is a free slot) and a mark: the file's bytes read before the range
 * was first read in the round, in units of 1 << ANA_RM_UNIT_SHIFT bytes
 * (30 bits, modulo), and in the top 2 bits how often it was read again
 * too soon to start a round.  The round's first range is in struct
 * ana_file (rh0, rm0); a file read at random (a read through an open
 * that does not continue the one before) gets a sketch too: the
 * ANA_SKETCH ranges of the round with the smallest hashes (a bottom-k
 * sketch: a range read again is in it exactly when it was kept, so it
 * changes only with new ranges).  Memory grows with such files, not with
 * their reads.
 */
#define ANA_SKETCH 15
#define ANA_RM_UNIT_SHIFT 8
#define ANA_RM_CLOCK ((1u << 30) - 1)
struct ana_sketch {
	uint32_t h[ANA_SKETCH], m[ANA_SKETCH];
};

struct ana_ckpt {
	uint64_t start_ns, end_ns, bytes, ops, syncs, files;
	double sq;	  /* sum of the squares of its writes' sizes */
	uint32_t file;	  /* a file's burst: the file (files[]) */
	uint8_t big;	  /* >= CKPT_MIN_BYTES in writes of >= CKPT_MIN_MEAN on average */
	uint8_t whole;	  /* written whole (ana_wburst.whole, closed) */
	uint32_t ckpt;	  /* a file's burst, after the join: its checkpoint
			   * (ckpts[]), ANA_CKPT_NONE when in none */
};
#define ANA_CKPT_NONE UINT32_MAX

struct ana_bucket {	/* one timeline bucket */
	uint64_t read_ops, read_bytes, write_ops, write_bytes;
	uint64_t pages_accessed, pages_missed;	  /* cache pass */
	uint64_t blk_read_bytes, blk_write_bytes; /* block pass */
	uint64_t blk_busy_ns;	/* sum of in-flight time: mean QD = / bucket */
	uint64_t blk_reqs;
};

struct ana_sys {
	struct cm_map fdmap, streammap, threadmap;
	struct ana_fd *fds; size_t nfds, capfds;
	struct ana_stream *streams; size_t nstreams, capstreams;
	uint32_t fd_gen;
	/* folded streams (see struct ana_stream) */
	uint64_t st_count, st_pairs, st_nonconsec, st_consec, st_seq, st_cls[4];
	struct ana_thread *threads; size_t nthreads, capthreads;
	struct cm_lat lat[TAPE_OP_MAX];
	size_t lat_budget;
	uint64_t rd_hist[ANA_SZ_BUCKETS], wr_hist[ANA_SZ_BUCKETS];
	uint64_t read_ops, read_bytes, write_ops, write_bytes, errors, ops;
	uint64_t sync_ops;
	uint64_t op_ops[TAPE_OP_MAX], op_bytes[TAPE_OP_MAX];	/* reads, writes */
	/* metadata ops the replay issues, by kind (common/ops.h: stat,
	 * getdents, ...), failed ones too; with files_only, those on the
	 * files compared */
	uint64_t meta_ops[CM_KIND_MAX];
	struct ana_epoch *epochs; size_t nepochs, capepochs;
	uint32_t epoch_front;	/* newest pass covering half of pass 0's files */
	struct ana_ckpt *bursts; size_t nbursts, capbursts;	/* per-file */
	/* The data set's request sizes (it is decided at the join): reads
	 * and writes by size class of the files that may be data
	 * (ANA_FK_DATA), once read again in rd_again/wr_again (they are in
	 * the data set), before per file: in the file (ana_file.hk, hc) and
	 * beyond in fhist, (file, class | write << 7) -> count. */
	uint64_t rd_again[ANA_SZ_BUCKETS], wr_again[ANA_SZ_BUCKETS];
	struct cm_map fhist;
	struct ana_wburst *wbs; size_t nwbs, capwbs;	/* files written */
	/* pipes and sockets (files[] not_regular): bytes read by (file,
	 * tid), written by (file, pid): who hands data to whom */
	struct cm_map pipe_r, pipe_w;
	/* epochs: the sketches of the files that have one (ana_file.sketch),
	 * files[] index -> sketches[] in sketchmap */
	struct ana_sketch *sketches; size_t nsketches, capsketches;
	struct cm_map sketchmap;
	uint64_t first_ns, last_ns;
	uint64_t data_reads, data_read_max;	/* reads of ANA_FK_DATA files; the largest */
	uint64_t busy_ns, busy_s, busy_e;	/* union of I/O intervals */
	uint64_t bk_lo, bk_hi; size_t bk_i;	/* the last timeline bucket */
	uint64_t n_events;
};

/* --------------------------------------------------------- cache pass */

/* The cache pass's state of a file (ana_cache.c): whole, for the files
 * the file table does not list and those whose figures outgrow the
 * compact form (struct ana_cst). */
struct ana_cfile {	/* per (dev, inode) or file_id */
	uint64_t dev, inode, file_id;
	uint64_t accessed, missed, mapped;	/* mapped: by fault, map_pages */
	uint64_t mapped_missed;	/* of those, missed */
	struct ana_ivset pending;	/* inserted, not yet accessed */
	uint64_t last_s, last_e;	/* last access of last_tid (dedupe) */
	uint64_t fault_idx;
	uint64_t eof;		/* pages past this one do not exist (UINT64_MAX: unknown) */
	uint32_t last_tid;
	uint32_t fault_tid;	/* fault_idx pending for this tid; 0 = none */
	uint32_t fi;		/* the file table's files[] index, or ANA_NONE */
};

/* The same for a file of the file table (by files[] index, keyed by its
 * dev and inode) while its figures fit: 20 bytes. */
struct ana_cst {
	uint32_t acc, miss;	/* pages accessed, missed; with ANA_CST_BIG,
				 * acc is its index in cache.f */
	uint32_t last_tid, last_e;	/* its last access (dedupe) */
	uint16_t len;		/* that access's pages (last_e - last_s, up to
				 * ANA_CST_LEN), and the flags below */
	uint16_t eof;		/* pages (ANA_CST_EOF: see cache.eofs) */
};
#define ANA_CST_EOF 0xffffu		/* this or more: in cache.eofs */
#define ANA_CST_LEN ((1u << 13) - 1)	/* more: the state whole */
#define ANA_CST_TOUCH (1u << 13)	/* has had an event */
#define ANA_CST_PEND (1u << 14)		/* has pages pending (cache.pend) */
#define ANA_CST_BIG (1u << 15)		/* its state is cache.f[acc] */

struct ana_cache {
	struct cm_map map;	/* the others' key -> f[] */
	struct ana_cfile *f; size_t nf, capf;
	struct ana_cst *cst; size_t ncst;	/* per file of the file table */
	/* once the pass is done, what cst said (ana_cache_compact): their
	 * pages accessed and missed ([2i], [2i + 1]; 0 where whole), and
	 * whether each had an event (bit i) */
	uint32_t *pg32; uint8_t *touched; size_t npg;
	struct cm_map eofs;	/* (file, 0) -> eof, of files of ANA_CST_EOF pages or more */
	struct cm_map pend;	/* (file, 0) -> pv[]: pending pages of a compact file */
	struct ana_ivset *pv; size_t npv, cappv;
	uint32_t *pv_free; size_t npv_free, cappv_free;
	uint64_t accessed, missed, inserted, evicted, ra_unused, untracked;
	uint64_t ivals;		/* intervals held, all files */
	uint64_t last_a, last_b; /* cache of the last key looked up */
	uint32_t last;		/* (ANA_NONE, or a files[] index | 1 << 31 for a
				 * compact one, else its f[] index) */
	struct ana_bkc bkc;
	uint64_t n_events;
};

/* --------------------------------------------------------- block pass */

struct ana_dev {
	uint64_t dev, last_end;
	int has_last;
	uint64_t reqs, pairs, nonconsec;
	uint64_t read_ops, read_bytes, write_ops, write_bytes, flushes;
};

struct ana_blk {
	struct ana_dev *d; size_t nd, capd;
	struct cm_lat lat, rlat, wlat;
	size_t lat_budget;
	uint64_t rd_hist[ANA_SZ_BUCKETS], wr_hist[ANA_SZ_BUCKETS];
	uint64_t busy_ns, errors;
	uint64_t n_events;
	struct ana_bkc bkc, bkc_busy;
};

/* -------------------------------------------------------- sample pass */

struct ana_disk {	/* a device's cumulative counters, first and last */
	uint64_t dev, r0, r1, w0, w1;
	uint8_t has_r, has_w;
};

struct ana_res {	/* resources, from the sample table (iotape-analyze(1)) */
	uint64_t n_events;
	uint64_t rss_peak, rss_tick, rss_ts;	/* job RSS: per tick, summed */
	uint64_t pc_min, pc_max, avail_min, gpu_mem_max;
	uint64_t gpu_util_sum, gpu_util_n;
	uint8_t has_rss, has_pc, has_avail, has_gpu_mem;
	struct ana_disk *d; size_t nd, capd;
};

/* ----------------------------------------------------------- data set */

/* The rule that found the data set (iotape-analyze(1), DATA SET). */
enum {
	ANA_DS_NONE,		/* no file may be data: no data set */
	ANA_DS_READ_AGAIN,	/* the files read again, and the files under their directory */
	ANA_DS_READ_ONCE,	/* no file read again: every file that may be data */
};

/* The figures of a set of files: the data set, or the other files.  Only
 * uint64_t fields (ana_group_diff subtracts them one by one). */
struct ana_group {
	uint64_t files, size;	/* files with I/O; their sizes in the file table */
	uint64_t read_ops, read_bytes, write_ops, write_bytes;
	uint64_t rd_pairs, rd_nonconsec, rd_seq, streams, st_cls[4];
	uint64_t rd_hist[ANA_SZ_BUCKETS], wr_hist[ANA_SZ_BUCKETS];
	uint64_t pages_accessed, pages_missed;
};

/* ---------------------------------------------------------- the whole */

/*
 * The training thread and the accelerator's utilization (ana_train.c;
 * iotape-analyze(1), ACCELERATOR has the rules).  The training thread is
 * the thread that consumes the data set, itself or through what its
 * loaders hand it (a pipe they write, a wakeup), and works the most
 * between its calls; a thread that never ran on a CPU is never it.  AU as
 * DLIO computes it: per epoch, the trainer's work over the time from the
 * end of the epoch's first step to the end of its last, the first step
 * and the start-up before the first data-set read left out.
 */
enum {
	ANA_TRAIN_NONE = 0,	/* no thread consumes the data set: the one
				 * that works the most */
	ANA_TRAIN_READS,	/* reads the data set itself */
	ANA_TRAIN_PIPE,		/* reads what processes reading it write */
	ANA_TRAIN_WOKEN,	/* woken by a thread that does either */
};
struct ana_au_epoch {
	uint64_t start_ns;	/* the epoch's first data-set read */
	uint64_t from_ns, to_ns;/* the end of its first step's work, of its last */
	uint64_t work_ns;	/* the trainer's work in its steps, the first left out */
	uint64_t steps;		/* its steps, the first included */
	double au;		/* work_ns / (to_ns - from_ns); NaN under 2 steps */
};
struct ana_train {
	int found, how;		/* ANA_TRAIN_* */
	uint32_t tid, pid;
	size_t thread;		/* sys.threads[] */
	uint32_t via;		/* ANA_TRAIN_PIPE: processes writing to it;
				 * ANA_TRAIN_WOKEN: the waking thread */
	uint32_t nocpu;		/* threads left out: no on-CPU time */
	uint64_t work_ns, wait_ns, io_ns, cpu_ns;	/* over the window */
	uint64_t steps;		/* in the epochs (or all, without epochs) */
	double step_mean_ms, step_sd_ms;
	/* the one step rule (iotape-analyze(1), ACCELERATOR): where each of
	 * those steps ended, in step order: the start of the trainer's call
	 * that ended it (absolute ns; ANA_STEP_LAST: the trace ended in it).
	 * The replay's steps are these (rp_trace_opts.steps), as are model's. */
	uint64_t *ends;
	uint64_t start_ns;	/* the first data-set read (start-up before) */
	struct ana_au_epoch *ep; size_t nep;
	/* no epochs counted (checkpoints only, a data set read through a map):
	 * one window over all its steps, the first left out, as DLIO's */
	struct ana_au_epoch span;
	uint64_t *feeds; size_t nfeeds, capfeeds;	/* ANA_TRAIN_PIPE: their file ids */
	double au_dlio;		/* mean of ep[].au; NaN when none */
	double au_run;		/* work_ns over the window */
};

struct ana {
	struct ana_opts o;
	const char *path;
	tape_reader *r;
	struct tape_table_stats st[TAPE_TABLE_MAX];
	uint64_t t0, t1;	/* analysed window, absolute ns, inclusive */
	/* a merged trace: one analysis per host (ana_hosts), else NULL */
	struct ana *hosts; size_t nhosts;
	uint64_t bucket_ns;
	/* timeline: separate arrays per pass, summed in ana_join */
	struct ana_bucket *tl_sys, *tl_cache, *tl_blk;
	size_t ntl_sys, ntl_cache, ntl_blk, captl_sys, captl_cache, captl_blk;

	struct ana_proc *procs; size_t nprocs, capprocs;
	struct cm_map procmap;		/* pid -> procs[] */
	struct ana_file *files; size_t nfiles, capfiles;
	struct ana_paths paths;		/* files[].path */
	uint32_t *sorder;		/* files[] in strcmp order of their paths, when
					 * the outputs list staging's files (o.json,
					 * o.per_file); else NULL */
	uint8_t *dircode; size_t ndircode;	/* per paths.dirs: 0 ?, 1 data, 2 code */
	struct ana_fext *ext; size_t next, capext;	/* files[].ext */
	struct ana_fwide *wides; size_t nwides, capwides;	/* ana_fext.wide */
	/* files[i]'s file id, once one is not i + 1 (else NULL) */
	uint64_t *fids; size_t capfids;
	/* files[i]'s place in strverscmp order of the paths (ana_name_ranks),
	 * after ana_run (NULL before) */
	uint32_t *name_rank;
	/* files[i]'s identity for i < nident (the others': none), frozen
	 * while the passes run (the cache pass reads it): 8 bytes each, its
	 * dev's index in devs[] (devs[0] = 0) above ANA_IDENT_INO_BITS of
	 * inode, until one does not fit; from then on 16, in identw */
	uint64_t *ident; size_t nident, capident;
	struct ana_ident *identw;
	uint64_t *devs; size_t ndevs, dev_last;
	/* files[i]'s pages in the page cache for i < npages, after ana_join
	 * (ana_file_pages): 32 bits each in pages32 ([2i] accessed, [2i + 1]
	 * missed) until one does not fit, from then on 64 in pages */
	uint32_t *pages32;
	struct ana_pages *pages; size_t npages;
	size_t nfiles_table;		/* files[0..n) come from the file table */
	uint64_t page_size;		/* "page_size" meta key, else 4096 */
	struct cm_map fileid_map;	/* ids fid_idx does not hold */
	/* (dev, inode) -> files[]: slots of files[] indexes keyed by their
	 * ident, the last file with a key wins; devino_old: keys a later
	 * row of the file table took from their file (both freed by
	 * ana_release_lookup) */
	uint32_t *devino; size_t capdevino, ndevino;
	int devino_tag;		/* slots hold a tag (see ana_core.c) */
	struct cm_map devino_old;
	struct ana_idx fid_idx;		/* file id -> files[] (see ana_file_id_slot) */
	/* ids 1 .. fid_implied name files[0 .. fid_implied): while the
	 * ids come so (the recorder's file table), fid_idx holds none */
	size_t fid_implied;
	struct ana_pidx pidx;	/* path -> files[], built on first use (events
				 * with a path only) */
	int path_map_built;

	struct ana_sys sys;
	struct ana_sched sched;
	struct ana_train train;	/* ana_train, after ana_join */
	struct ana_cache cache;
	struct ana_blk blk;
	struct ana_res res;
	/* after ana_join */
	struct ana_bucket *tl; size_t ntl;
	struct ana_ckpt *ckpts; size_t nckpts;
	int have[TAPE_TABLE_MAX];	/* table has events in the window */
	uint32_t mmap_file;		/* see ana_mmap_dataset */
	uint64_t mmap_bytes;
	/* the data set and the other files (ana_dataset, from ana_join) */
	int ds_rule;			/* ANA_DS_* */
	char *ds_dir;			/* ANA_DS_READ_AGAIN: its directory, or NULL */
	uint64_t ds_again;		/* its files read again */
	struct ana_group ds, other, all;	/* all: every file the totals count */
	size_t nep;			/* epochs counted over the data set */
	size_t npasses;			/* passes that hold data-set files */
	/* a damaged block ended the table's pass early: -errno and where */
	int damage[TAPE_TABLE_MAX];
	char *damage_detail[TAPE_TABLE_MAX];
};

/* Timeline bucket of ts, remembering the last bucket's bounds in c so the
 * common case (same second as the previous event) needs no division. */
static inline size_t ana_bucket_index(const struct ana *a, struct ana_bkc *c, uint64_t ts)
{
	if (ts >= c->lo && ts < c->hi)
		return c->i;
	size_t b = ts > a->t0 ? (ts - a->t0) / a->bucket_ns : 0;
	c->lo = a->t0 + b * a->bucket_ns;
	c->hi = c->lo + a->bucket_ns;
	c->i = b;
	return b;
}

/*
 * The sched table read alongside the syscall pass (ana_sched.c): a row is
 * taken once the syscall rows reach the time it was written at (its
 * thread ran again, ts + dur + run_ns), which puts it between the calls of
 * its thread it falls between, and the thread's next call is sure to come
 * after it (iotape-analyze(1), THREADS).
 */
struct ana_sched_feed;
int ana_sched_open(struct ana *a, tape_reader *r, struct ana_sched_feed **out);
/* Take the rows written by ts (every row with ts == UINT64_MAX). */
void ana_sched_until(struct ana *a, struct ana_sched_feed *f, uint64_t ts);
void ana_sched_close(struct ana *a, struct ana_sched_feed *f);
/* Whether a wait of call kind `call` (enum tape_wait_call) lies in a gap
 * between the calls that bound a thread's compute (not inside one). */
int ana_wait_in_gap(const struct ana *a, unsigned call);
struct ana_wthread *ana_wthread_find(const struct ana *a, uint32_t tid);

/* a->train from the analysis (after ana_join): 0 or -errno. */
int ana_train(struct ana *a);
void ana_train_release(struct ana_train *t);

/* Engines.  Each pass returns 0 or -errno (tape_* errors pass through). */
int ana_pass_process(struct ana *a);
int ana_pass_file(struct ana *a);
int ana_pass_syscall(struct ana *a, tape_reader *r);
int ana_pass_cache(struct ana *a, tape_reader *r);
/* The cache pass's state of the file table's files (before the passes,
 * on the main thread: it reads their sizes): 0 or -errno. */
int ana_cache_prepare(struct ana *a);
/* The compact states as the join takes them (cache.pg32, cache.touched),
 * once the cache pass is done (again: nothing). */
void ana_cache_compact(struct ana_cache *c);
void ana_cache_release(struct ana_cache *c);
int ana_pass_block(struct ana *a, tape_reader *r);
int ana_pass_sample(struct ana *a);	/* main thread, before the others */
void ana_join(struct ana *a);
/* The join's last step, once rank[] holds the name ranks (ana_name_ranks,
 * a->name_rank when ana_run ends): the epochs' visit orders as ranks
 * (ana_dataset left files[] indexes) and their randomness
 * (ana_epochs_order). */
void ana_join_ranks(struct ana *a, const uint32_t *rank);
void ana_epochs_order(struct ana *a, const uint32_t *rank);
/* Record that table's cursor failed with err after the events it gave:
 * the pass keeps what it read (called from the pass's own thread). */
void ana_note_damage(struct ana *a, int table, int err);
void ana_release(struct ana *a);
/* Free what the analysis keeps per file and per visit (files[] and all
 * beside it; the epochs' visit orders): its sums, groups, epochs' figures,
 * threads and processes stay.  For a caller done with the files (compare,
 * once it has taken them); nothing that reads files[] works after it. */
void ana_release_files(struct ana *a);
/* Free the index of the files by (dev, inode) (8 bytes a file or so), for
 * a caller that looks no file up by them after ana_run (whose passes are
 * the index's users): ana_file_by_devino finds nothing after it. */
void ana_release_lookup(struct ana *a);

/* Whole analysis of a trace (what cmd_analyze runs, and what tests call). */
int ana_run(struct ana *a, const char *path, const struct ana_opts *o);
/* After ana_run of a merged trace: the same analysis of each host alone,
 * into a->hosts (freed by ana_release); nothing for other traces or with
 * has_pid or has_host set.  0 or -errno. */
int ana_hosts(struct ana *a);

/* pid passes --pid (pid itself or a descendant). */
int ana_pid_included(struct ana *a, uint32_t pid);
struct ana_proc *ana_proc_get(struct ana *a, uint32_t pid);
uint32_t ana_file_by_devino(const struct ana *a, uint64_t dev, uint64_t ino);
/* The home slot of (dev, ino) in the index (capdevino > 0): to prefetch;
 * a slot's files[] index (ANA_NONE: none) */
const uint32_t *ana_devino_home(const struct ana *a, uint64_t dev, uint64_t ino);
static inline uint32_t ana_devino_file(const struct ana *a, uint32_t slot)
{
	return a->devino_tag && slot != ANA_NONE ? slot & 0xffffffu : slot;
}
/* files[] index of a file id in the dense index (ANA_NONE: not there). */
static inline uint32_t ana_file_id_dense(const struct ana *a, uint64_t file_id)
{
	if (file_id - 1 < a->fid_implied)
		return (uint32_t)(file_id - 1);
	return ana_idx_get(&a->fid_idx, file_id);
}
/* files[] index of a file id (0 included), ANA_NONE when unknown. */
static inline uint32_t ana_file_id_lookup(const struct ana *a, uint64_t file_id)
{
	uint32_t v = ana_file_id_dense(a, file_id);
	if (v != ANA_NONE || !a->fileid_map.n)
		return v;
	uint64_t *m = cm_map_get(&a->fileid_map, file_id, 0);
	return m ? (uint32_t)*m : ANA_NONE;
}
static inline uint32_t ana_file_by_id(const struct ana *a, uint64_t file_id)
{
	return file_id ? ana_file_id_lookup(a, file_id) : ANA_NONE;
}
/* Make file_id name files[f]. */
void ana_file_id_set(struct ana *a, uint64_t file_id, uint32_t f);
/* A 64-bit figure of file f (enum ana_fw). */
static inline uint64_t ana_file_fw(const struct ana *a, const struct ana_file *f, int k)
{
	return f->wide ? a->wides[a->ext[f->ext - 1].wide - 1].v[k] : f->fw[k];
}
/* Set it (out of memory jumps: a file's first figure past 32 bits makes
 * its ext, which moves the pointers into a->ext). */
void ana_file_fw_wide(struct ana *a, struct ana_file *f, int k, uint64_t v);
static inline void ana_file_fw_set(struct ana *a, struct ana_file *f, int k, uint64_t v)
{
	if (!f->wide && v <= UINT32_MAX)
		f->fw[k] = (uint32_t)v;
	else
		ana_file_fw_wide(a, f, k, v);
}
static inline void ana_file_fw_add(struct ana *a, struct ana_file *f, int k, uint64_t n)
{
	if (!f->wide && (uint64_t)f->fw[k] + n <= UINT32_MAX)
		f->fw[k] += (uint32_t)n;
	else
		ana_file_fw_wide(a, f, k, ana_file_fw(a, f, k) + n);
}
static inline uint64_t ana_file_read_ops(const struct ana *a, const struct ana_file *f)
{
	return ana_file_fw(a, f, ANA_FW_READ_OPS);
}
static inline uint64_t ana_file_read_bytes(const struct ana *a, const struct ana_file *f)
{
	return ana_file_fw(a, f, ANA_FW_READ_BYTES);
}
/* Its size in the file table (from_table), else 0. */
static inline uint64_t ana_file_size(const struct ana *a, const struct ana_file *f)
{
	return ana_file_fw(a, f, ANA_FW_SIZE);
}
/* The extent of files[i]: the end of its furthest read or write, 0 for
 * none (iotape-analyze(1) files[].extent). */
static inline uint64_t ana_file_extent(const struct ana *a, size_t i)
{
	return ana_file_fw(a, &a->files[i], ANA_FW_EXTENT);
}
/* files[i]'s file id (0: none). */
static inline uint64_t ana_file_fid(const struct ana *a, size_t i)
{
	return a->fids ? a->fids[i] : i + 1;
}
/* Make it id: for each file as it is made, then where it changes. */
void ana_file_fid_put(struct ana *a, size_t i, uint64_t id);
/* files[i]'s name rank (ana_name_ranks; 0 before ana_run ends). */
static inline uint32_t ana_file_name_rank(const struct ana *a, size_t i)
{
	return a->name_rank ? a->name_rank[i] : 0;
}
/* What few files have (struct ana_fext): its own, or all zero. */
extern const struct ana_fext ana_fext_none;
static inline const struct ana_fext *ana_file_ext(const struct ana *a, const struct ana_file *f)
{
	return f->ext ? &a->ext[f->ext - 1] : &ana_fext_none;
}
/* The same, made when f has none (out of memory jumps; the pointer is
 * valid until the next ext is made). */
struct ana_fext *ana_file_ext_get(struct ana *a, struct ana_file *f);
static inline uint64_t ana_file_write_ops(const struct ana *a, const struct ana_file *f)
{
	return ana_file_ext(a, f)->write_ops;
}
static inline uint64_t ana_file_write_bytes(const struct ana *a, const struct ana_file *f)
{
	return ana_file_ext(a, f)->write_bytes;
}
static inline uint64_t ana_file_opens(const struct ana *a, const struct ana_file *f)
{
	return f->opens + ana_file_ext(a, f)->opens_hi;
}
/* Pages reached by its page faults, and of them those missed (joined). */
static inline uint64_t ana_file_mapped(const struct ana *a, const struct ana_file *f)
{
	return ana_file_ext(a, f)->mapped;
}
/* Its pages in the page cache (after ana_join). */
static inline struct ana_pages ana_file_pages(const struct ana *a, size_t i)
{
	if (i >= a->npages)
		return (struct ana_pages){ 0, 0 };
	if (a->pages)
		return a->pages[i];
	return (struct ana_pages){ a->pages32[2 * i], a->pages32[2 * i + 1] };
}
/* Hint that its pages will be read soon (out of line: GCC 12 drops the
 * prefetch where inlined into a loop that reads them) */
void ana_file_pages_prefetch(const struct ana *a, size_t i);
/* Its identity (dev, inode; zero when not known). */
#define ANA_IDENT_INO_BITS 52
static inline struct ana_ident ana_file_ident(const struct ana *a, size_t i)
{
	if (i >= a->nident)
		return (struct ana_ident){ 0, 0 };
	if (a->identw)
		return a->identw[i];
	uint64_t k = a->ident[i], d = k >> ANA_IDENT_INO_BITS;
	return (struct ana_ident){ d ? a->devs[d] : 0, k & ((1ull << ANA_IDENT_INO_BITS) - 1) };
}
/* Where files[i]'s identity is (to prefetch). */
static inline const void *ana_file_ident_at(const struct ana *a, size_t i)
{
	return a->identw ? (const void *)&a->identw[i] : (const void *)&a->ident[i];
}
/* Text label of a file: its path or "[dev 8:1 inode 42]". buf: ANA_PATH_BUF. */
const char *ana_file_label(const struct ana *a, const struct ana_file *f, char *buf);
/* Its path (NULL: none); buf: ANA_PATH_BUF bytes. */
static inline const char *ana_file_path(const struct ana *a, const struct ana_file *f, char *buf)
{
	return ana_path_str(a, f->path, buf);
}

/* Derived metrics (NaN = not computable). */
double ana_read_randomness(const struct ana *a);
double ana_seq_read_fraction(const struct ana *a);
/* Of the data set's files (iotape-analyze(1), file_order_randomness). */
double ana_file_order_randomness(const struct ana *a, double *tau);
double ana_hit_ratio(uint64_t accessed, uint64_t missed);
/* The same for a group (the data set, the other files). */
double ana_group_randomness(const struct ana_group *g);
double ana_group_seq_fraction(const struct ana_group *g);
/* The epochs counted over the data set (0 without one; see also
 * ana_epochs_known). */
size_t ana_epoch_count(const struct ana *a);
/* Whether the epochs can be counted: there is a data set and it is not
 * read through mmap (ana_mmap_dataset).  Where not, the reports print the
 * count as null, and so must anyone who prints ana_epoch_count(). */
int ana_epochs_known(const struct ana *a);
/* The file of the data set through whose shared mapping more bytes were
 * faulted in than the counted epochs read (a data set read through mmap,
 * whose epochs reads cannot count), or ANA_NONE; *bytes gets those bytes. */
uint32_t ana_mmap_dataset(const struct ana *a, uint64_t *bytes);

/*
 * A data set read through mmap, from its page faults as the replay reads
 * them (common/faults.h), on the data set's files (ana_mmap.c: how the
 * epochs are found).  After ana_run; 0 or -errno.
 */
struct ana_mmap {
	size_t files;			/* data set files faulted in */
	uint64_t reads, bytes;		/* their fault reads */
	uint64_t max_len;		/* the largest: the fault window */
	uint64_t rd_hist[ANA_SZ_BUCKETS];
	uint64_t rd_pairs, rd_nonconsec;/* a thread's two reads in a row of a
					 * file; those not continuing */
	size_t epochs;			/* generations of reader threads */
	size_t readers;			/* the most reader threads at once */
	uint64_t first_ns, last_ns;	/* the epochs' first and last fault */
};
int ana_mmap_reads(const struct ana *a, struct ana_mmap *m);

/*
 * The data set (iotape-analyze(1), DATA SET: the rule is there, and only
 * there).  ana_path_is_code: whether a path, as the job named it, is code
 * or a system file.  ana_file_kind: what f can be (ANA_FK_*), decided on
 * the first call and kept in f->kind; with ana_opts.under, on the path
 * without that directory (compare's B names the job's files under it).
 * ana_dataset: from ana_join, once the passes are over: decides the data
 * set (files[].dataset, ds_rule, ds_dir), sums a->ds, a->other and
 * a->all, and finishes the epochs over the data set (their files, bytes,
 * reads and starts, the count, the mmap test), from the files' state once
 * the cache results are on them.
 */
int ana_path_is_code(const char *path);
/* o = t - d, field by field (the other files: all files less the data set). */
void ana_group_diff(struct ana_group *o, const struct ana_group *t, const struct ana_group *d);
int ana_file_kind(const struct ana *a, struct ana_file *f);
void ana_dataset(struct ana *a);
/* The checkpoints (analyze/ana_ckpt.c; iotape-analyze(1), Checkpoints),
 * called by ana_join: a->ckpts from the files' write bursts, each burst
 * (a->sys.bursts, then in time order) with .ckpt the one it is part of.
 * The one rule: analyze, model, report, whatif and the burst buffer read
 * a->ckpts and a->sys.bursts[].ckpt, never the bursts' own fields. */
void ana_ckpt_find(struct ana *a);
/* stream classes: 0 single, 1 sequential, 2 strided, 3 random */
int ana_stream_class(const struct ana_stream *s);
/* Add a stream's counters to its file and the totals, and zero them. */
void ana_stream_fold(struct ana *a, struct ana_stream *s);

/* End of the analysed window (last event, absolute ns): the duration is
 * ana_trace_end(a) - a->t0. */
uint64_t ana_trace_end(const struct ana *a);
/* Whether files_only, under and skip (struct ana_opts) leave f out.  Such
 * a file keeps its own read/write counters, and nothing else counts it. */
int ana_file_excluded(const struct ana *a, const struct ana_file *f);

/* The standard deviation of thread t's steps (ANA_STEP_GAP_NS), in ms;
 * NaN without steps. */
double ana_step_stdev_ms(const struct ana_thread *t);

/* Fill job (empty) with what the analysis a shows of the job
 * (iotape-model(1), FROM A TRACE): 0, or -ENOMEM (job then holds part of
 * it: release it).  Never prints. */
struct cm_job;
int ana_model(const struct ana *a, struct cm_job *job);

/*
 * Staging (ana_stage.c; iotape-analyze(1), STAGING, has the rules, and
 * iotape-replay(1) --stage-hot uses them): which files to put on a faster
 * tier.  The files that can be staged are the regular files with a path,
 * not on a memory or pseudo file system, that the job read; their bytes
 * read are those of read calls and the pages faulted in through a shared
 * mapping; a file's size is its size in the file table, or where that
 * gives none (not listed, or 0) the end of its furthest read call.
 */
struct ana_stage_file {
	uint64_t read_bytes, size;	/* size > 0 */
	uint32_t file;		/* files[] index (the caller's id, for ana_stage_pick) */
};
#define ANA_STAGE_LEVELS 3
/* 50, 80 and 95 %: the levels' fractions of the bytes read, in percent */
extern const unsigned ana_stage_pcts[ANA_STAGE_LEVELS];
struct ana_stage_level {
	unsigned pct;
	uint64_t files, bytes, read_bytes;	/* the set: files, their size, their reads */
};
struct ana_staging {
	uint32_t *f;		/* n files[] indexes, ranked (ana_stage_rank)
				 * once ana_staging_rank made them so */
	size_t n;
	int ranked;
	uint64_t read_bytes, bytes;	/* all n files': reads, sizes */
	size_t by_extent;		/* of them, sized by their furthest read */
	/* the fewest files that carry pct % of read_bytes: files by bytes
	 * read, most first (ties: the smaller first, then by path), taken
	 * until their reads reach it */
	struct ana_stage_level lv[ANA_STAGE_LEVELS];
};
/* st from the analysis a (after ana_run): 0, or -ENOMEM (st empty).
 * Under the caller's catch point, or its own where there is none. */
int ana_staging_build(const struct ana *a, struct ana_staging *st);
/* st->f in their order (the levels need none): 0 or -ENOMEM. */
int ana_staging_rank(const struct ana *a, struct ana_staging *st);
void ana_staging_release(struct ana_staging *st);
/* A file's figures for staging (files[i] of st->f): its bytes read, its
 * size; as struct ana_stage_file. */
struct ana_stage_file ana_stage_of(const struct ana *a, uint32_t i);
/* Order files[] indexes by bytes read per byte of size, most first; ties
 * by path (strcmp). */
void ana_stage_rank(const struct ana *a, uint32_t *f, size_t n);
/*
 * The files to stage in budget bytes: f (ranked) in order, each one whose
 * size fits in what the ones taken leave of budget is taken (chosen[i] =
 * 1), one that does not is passed over (0) and the next are still tried.
 * Returns the bytes taken (<= budget).
 */
uint64_t ana_stage_pick(const struct ana_stage_file *f, size_t n, uint64_t budget,
			uint8_t *chosen);

/*
 * Series for the HTML report (ana_series.c): what the first pass does not
 * keep by time, from one more pass over the syscall table (after ana_run),
 * on ncol columns of col_ns over the window (ncol bounded by the caller):
 * bytes read per directory per column (the heat map), the time the
 * busiest threads spent in I/O calls per column (their union, as
 * struct ana_thread's io_ns), the time spent in calls on each file, and
 * the read randomness of the data set per epoch (its reads' streams, as
 * iotape-analyze(1) read_randomness, within each epoch's span).  Memory
 * grows with files, directories and threads times ncol, never with
 * events.
 */
#define ANA_SERIES_THREADS 8
struct ana_series {
	size_t ncol;
	uint64_t col_ns;
	uint64_t *rbytes, *wbytes;	/* per column: bytes read, written */
	/* directories of the files read: names, bytes per column
	 * (gbytes[g * ncol + c]) and in all */
	struct cm_strtab dirs;
	uint64_t *gbytes, *gtotal;
	size_t capg;
	/* the busiest threads (sys.threads indexes, most I/O time first) */
	size_t nthr;
	uint32_t thr[ANA_SERIES_THREADS];
	uint64_t *tio;		/* tio[k * ncol + c]: ns in I/O calls */
	uint64_t *file_ns;	/* per files[]: ns in calls on it */
	/* per counted epoch: read pairs of the data set, and those not
	 * consecutive */
	size_t nep;
	uint64_t *ep_pairs, *ep_nonconsec;
	struct cm_map streams;	/* scratch of the pass: (tid, fd, file) -> end */
};
/* 0 or -errno (-ENOMEM); s is released by ana_series_release in every case. */
int ana_series_build(struct ana *a, size_t maxcol, struct ana_series *s);
void ana_series_release(struct ana_series *s);

/*
 * The HTML report (ana_html.c): one self-contained page (inline SVG and
 * CSS, no script) of a's analysis, each plot with its figures, whose
 * values carry data-json-key (their key in ana_report_json's output) and
 * data-value (the value as that prints it).  With b, the page puts a and b
 * side by side (`iotape report --compare`) under the checks given (NULL,
 * 0: none).  0 or -errno (-EIO: out failed); writes only to out.
 */
struct ana_html_check {
	const char *name, *detail;
	int ok;
};
int ana_report_html(struct ana *a, struct ana *b, const struct ana_html_check *checks,
		    size_t nchecks, FILE *out);

/* Output, 0 or -errno (-ENOMEM: out of memory).  Units, escaping and JSON
 * values come from common/fmt.h. */
int ana_report_json(struct ana *a, FILE *out);
/* The same, its lists of files ("files", "staging"'s "ranked") empty:
 * what the HTML report reads (it takes its top files from a). */
int ana_report_json_nofiles(struct ana *a, FILE *out);
/* The files "files" lists, in its order (malloc'd, *n of them; out of
 * memory jumps). */
uint32_t *ana_files_listed(const struct ana *a, size_t *n);
/* Whether "files" lists files[i]; the order it lists them in (< 0: i
 * first); how many it lists at most (-1: all). */
int ana_file_listed(const struct ana *a, size_t i);
int ana_file_list_cmp(const struct ana *a, uint32_t i, uint32_t j);
long ana_json_list_limit(const struct ana *a);
int ana_report_text(struct ana *a, FILE *out);

#endif
