/* SPDX-License-Identifier: MIT */
/*
 * ana_syscall.c - the syscall pass: access pattern per stream, request
 * sizes, latency per op, the I/O timeline, epochs, checkpoint bursts and
 * per-thread I/O vs compute time, in one pass over the syscall table.
 *
 * State is keyed so it grows with the job's shape, not its length:
 *   (pid, fd)   -> the file an fd refers to, whether it was read (visits)
 *   (tid, fd)   -> a stream: where its last read ended, stride, counters;
 *                  restarted (and folded into its file) at each open
 *   tid         -> a thread: last syscall end, I/O and gap time
 *   file        -> counters, its extent, its epoch round (the pass it is
 *                  in, the bytes read in it, its first range), the current
 *                  write burst (checkpoints)
 *   file read at random -> a sample of its round's ranges (epochs)
 *   (file, size class) -> reads and writes of a file that may be data and
 *                  was not read again yet, for the data set's request
 *                  sizes (the data set is decided at the join:
 *                  iotape-analyze(1), DATA SET)
 * A "stream" is (pid, tid, file) between two opens; tids are unique
 * system-wide.  Definitions of every metric: iotape-analyze(1).
 */
#include <errno.h>
#include <string.h>
#include "analyze.h"
#include "ops.h"
#include "path.h"

#define CKPT_GAP_NS 1000000000ull	/* burst ends after 1 s without writes */
#define CKPT_MIN_BYTES (1ull << 20)	/* a checkpoint writes >= 1 MiB ... */
#define CKPT_MIN_MEAN (16ull << 10)	/* ... in writes of >= 16 KiB on average */

/* The class of copies in ana_pass_syscall()'s table: they are a read and
 * a write (tape_op_has_output()), of no class of their own. */
#define OPC_COPY 0x80


/* ana_opts.replayed_io: whether iotape replay reproduces the op: one the
 * op vocabulary replays (common/ops.h: that succeeded, or a metadata op),
 * on storage (a file or directory, not a pipe, socket or device by the
 * file table's mode; not on a memory or pseudo file system by its path).
 * The rest is the replay's think time. */
static int replay_does(const struct ana *a, const struct tape_syscall *e, unsigned op)
{
	uint32_t fi;

	if (!cm_op_replayed(op, !a->o.no_metadata, e->ret < 0) ||
	    (e->path && cm_path_is_pseudo(e->path, NULL)))
		return 0;
	fi = ana_file_by_id(a, e->file_id);
	return fi == ANA_NONE || ((!a->files[fi].not_regular || a->files[fi].dir) &&
				  !a->files[fi].memfs);
}

/* Whether e is I/O of its thread, not compute: io_uring completions do
 * not block; with replayed_io only what the replay reproduces. */
static inline int is_io(const struct ana *a, const struct tape_syscall *e, unsigned op)
{
	return op < TAPE_OP_URING_READ && (!a->o.replayed_io || replay_does(a, e, op));
}

/*
 * A thread's next I/O call e, its calls' union ending at *last_end: the
 * compute gap before e, or NO_GAP when e began inside that union (an
 * overlap, counted once); *io gets the time e adds to the union.
 */
#define NO_GAP UINT64_MAX
static inline uint64_t io_advance(uint64_t *last_end, const struct tape_syscall *e,
				  uint64_t *io)
{
	uint64_t end = e->ts_ns + e->dur_ns, gap = NO_GAP;

	if (e->ts_ns >= *last_end) {
		gap = e->ts_ns - *last_end;
		*io += e->dur_ns;
		*last_end = end;
	} else if (end > *last_end) {
		*io += end - *last_end;
		*last_end = end;
	}
	return gap;
}

static uint32_t file_new(struct ana *a)
{
	ANA_VEC_GROW_LINES(a->files, a->capfiles, a->nfiles);
	ANA_VEC_CLEAR(a->files, a->nfiles, a->nfiles);
	a->nfiles++;
	ana_file_fid_put(a, a->nfiles - 1, 0);
	return (uint32_t)a->nfiles - 1;
}

static uint32_t file_for_path(struct ana *a, const char *path)
{
	uint32_t *v;

	if (!a->path_map_built) {	/* most recordings never need it */
		ana_pidx_reserve(a, a->nfiles);
		for (size_t i = 0; i < a->nfiles; i++)
			if (a->files[i].path) {	/* the last file of a path wins */
				char buf[ANA_PATH_BUF];
				v = ana_pidx_slot(a, ana_file_path(a, &a->files[i], buf));
				*v = (uint32_t)i;
			}
		a->path_map_built = 1;
	}
	v = ana_pidx_slot(a, path);
	if (*v != ANA_NONE)
		return *v;
	/* (out of memory below, the analysis is dropped with the index) */
	uint32_t f = file_new(a);
	a->files[f].path = ana_path_add(a, path);
	*v = f;
	return f;
}

static uint32_t file_for_id(struct ana *a, uint64_t file_id, const char *path)
{
	uint32_t v = ana_file_id_lookup(a, file_id);
	if (v != ANA_NONE)
		return v;
	uint32_t f;
	if (path && *path) {
		f = file_for_path(a, path);
		uint64_t had = ana_file_fid(a, f);
		if (had && had != file_id) {
			/* same path, another file (replaced): a new entry */
			f = file_new(a);
			a->files[f].path = ana_path_add(a, path);
		}
	} else {
		f = file_new(a);
	}
	ana_file_fid_put(a, f, file_id);
	ana_file_id_set(a, file_id, f);
	return f;
}

/* An fd we never saw opened and that names no file: one entry per (pid, fd). */
static uint32_t file_for_unknown_fd(struct ana *a, uint32_t pid, int64_t fd)
{
	uint64_t *v = ana_map_put(&a->fileid_map, (1ull << 63) | pid, (uint64_t)fd + 1);
	if (*v == ANA_NONE) {
		uint32_t f = file_new(a);
		char buf[64];
		snprintf(buf, sizeof(buf), "[pid %u fd %lld]", pid, (long long)fd);
		a->files[f].path = ana_path_add(a, buf);
		a->files[f].anon = 1;
		v = ana_map_put(&a->fileid_map, (1ull << 63) | pid, (uint64_t)fd + 1);
		*v = f;
	}
	return *v;
}

static uint32_t file_of_event(struct ana *a, const struct tape_syscall *e)
{
	if (e->file_id)
		return file_for_id(a, e->file_id, e->path);
	if (e->path && *e->path)
		return file_for_path(a, e->path);
	return ANA_NONE;
}

static struct ana_fd *fd_get(struct ana_sys *s, uint32_t pid, int64_t fd)
{
	uint64_t *v = ana_map_get(&s->fdmap, pid, (uint64_t)fd);
	return v ? &s->fds[*v] : NULL;
}

static struct ana_fd *fd_put(struct ana_sys *s, uint32_t pid, int64_t fd, uint32_t file)
{
	uint64_t *v = ana_map_put(&s->fdmap, pid, (uint64_t)fd);
	if (*v == ANA_NONE) {
		ANA_VEC_GROW(s->fds, s->capfds, s->nfds);
		ANA_VEC_CLEAR(s->fds, s->nfds, s->nfds);
		*v = (uint32_t)s->nfds++;
	}
	struct ana_fd *fe = &s->fds[*v];
	fe->file = file;
	fe->visited = 0;
	fe->undo = 0;
	fe->gen = ++s->fd_gen;
	return fe;
}

/* The file a read/write/sync acts on, and its fd entry (created if new). */
static uint32_t file_of_io(struct ana *a, const struct tape_syscall *e, struct ana_thread *t,
			   struct ana_fd **fep)
{
	struct ana_sys *s = &a->sys;
	struct ana_fd *fe;
	if (t->last_fdi != ANA_NONE && t->last_fd == e->fd) {
		fe = &s->fds[t->last_fdi];	/* same thread => same pid */
	} else {
		uint64_t *v = ana_map_get(&s->fdmap, e->pid, (uint64_t)e->fd);
		fe = v ? &s->fds[*v] : NULL;
		if (v) {
			t->last_fd = e->fd;
			t->last_fdi = *v;
		}
	}
	uint32_t f;
	if (e->file_id) {
		if (fe && fe->file != ANA_NONE && ana_file_fid(a, fe->file) == e->file_id)
			f = fe->file;
		else
			f = file_for_id(a, e->file_id, e->path);
	} else if (fe && fe->file != ANA_NONE) {
		f = fe->file;
	} else if (e->path && *e->path) {
		f = file_for_path(a, e->path);
	} else {
		f = file_for_unknown_fd(a, e->pid, e->fd);
	}
	if (!fe || fe->file != f) {
		fe = fd_put(s, e->pid, e->fd, f);
		t->last_fd = e->fd;
		t->last_fdi = (uint32_t)(fe - s->fds);
	}
	*fep = fe;
	return f;
}

static struct ana_thread *thread_get(struct ana_sys *s, uint32_t tid, uint32_t pid)
{
	uint64_t *v = ana_map_put(&s->threadmap, tid, 0);
	if (*v == ANA_NONE) {
		ANA_VEC_GROW(s->threads, s->capthreads, s->nthreads);
		ANA_VEC_CLEAR(s->threads, s->nthreads, s->nthreads);
		*v = (uint32_t)s->nthreads++;
		struct ana_thread *t = &s->threads[*v];
		t->tid = tid;
		t->pid = pid;
		t->last_stream = ANA_NONE;
		t->last_fdi = ANA_NONE;
		t->last_closed = ANA_NONE;
	}
	return &s->threads[*v];
}

static struct ana_stream *stream_get(struct ana *a, struct ana_thread *t, int64_t fd,
				     const struct ana_fd *fe, uint32_t file)
{
	struct ana_sys *s = &a->sys;
	struct ana_stream *st;
	if (t->last_stream != ANA_NONE && s->streams[t->last_stream].fd == fd) {
		st = &s->streams[t->last_stream];
	} else {
		uint64_t *v = ana_map_put(&s->streammap, t->tid, (uint64_t)fd);
		if (*v == ANA_NONE) {
			ANA_VEC_GROW(s->streams, s->capstreams, s->nstreams);
			ANA_VEC_CLEAR(s->streams, s->nstreams, s->nstreams);
			*v = (uint32_t)s->nstreams++;
			s->streams[*v].tid = t->tid;
			s->streams[*v].fd = fd;
			s->streams[*v].file = ANA_NONE;
		}
		t->last_stream = *v;
		st = &s->streams[*v];
	}
	if (st->gen != fe->gen || st->file != file) {
		ana_stream_fold(a, st);
		st->gen = fe->gen;
		st->file = file;
	}
	return st;
}

void ana_stream_fold(struct ana *a, struct ana_stream *st)
{
	struct ana_sys *s = &a->sys;
	if (st->reads && st->file != ANA_NONE) {
		struct ana_file *f = &a->files[st->file];
		int cls = ana_stream_class(st);
		if (cls == 0 && !st->pairs && !st->seq) {
			f->st_single++;	/* the most common: a stream of one read */
		} else {
			struct ana_fext *x = ana_file_ext_get(a, f);
			x->rd_pairs += st->pairs;
			x->rd_nonconsec += st->nonconsec;
			x->rd_seq += st->seq;
			x->st_cls[cls]++;
		}
		s->st_count++;
		s->st_pairs += st->pairs;
		s->st_nonconsec += st->nonconsec;
		s->st_consec += st->consec;
		s->st_seq += st->seq;
		s->st_cls[ana_stream_class(st)]++;
	}
	st->reads = st->pairs = st->nonconsec = st->consec = st->seq = st->same_stride = 0;
	st->has_stride = 0;
}

static inline struct ana_bucket *bucket(struct ana *a, uint64_t ts)
{
	struct ana_sys *s = &a->sys;
	if (ts >= s->bk_lo && ts < s->bk_hi)
		return &a->tl_sys[s->bk_i];
	size_t b = ts > a->t0 ? (ts - a->t0) / a->bucket_ns : 0;
	if (b >= a->ntl_sys) {
		ANA_VEC_GROW(a->tl_sys, a->captl_sys, b);
		ANA_VEC_CLEAR(a->tl_sys, a->ntl_sys, b);
		a->ntl_sys = b + 1;
	}
	s->bk_lo = a->t0 + b * a->bucket_ns;
	s->bk_hi = s->bk_lo + a->bucket_ns;
	s->bk_i = b;
	return &a->tl_sys[b];
}

/* A file's write burst is over: keep it when it may be a checkpoint (big,
 * or a file that may be data written whole: iotape-analyze(1), Checkpoints;
 * whether a whole-file write repeats is for the join to say). */
static void burst_close(struct ana *a, struct ana_wburst *w)
{
	struct ana_sys *s = &a->sys;
	int big = w->bytes >= CKPT_MIN_BYTES && w->bytes >= CKPT_MIN_MEAN * w->ops;
	int whole = w->whole && w->closed && !w->unlinked && w->bytes &&
		    a->files[w->file].kind == ANA_FK_DATA;

	if (big || whole) {
		ANA_VEC_GROW(s->bursts, s->capbursts, s->nbursts);
		s->bursts[s->nbursts++] = (struct ana_ckpt){
			.start_ns = w->start, .end_ns = w->end, .bytes = w->bytes,
			.sq = w->sq, .ops = w->ops, .syncs = w->syncs, .files = 1, .file = w->file,
			.big = (uint8_t)big, .whole = (uint8_t)whole };
	}
	uint32_t file = w->file;
	memset(w, 0, sizeof(*w));
	w->file = file;
}

static struct ana_wburst *wburst_of(struct ana *a, struct ana_file *f, uint32_t fi)
{
	struct ana_sys *s = &a->sys;
	struct ana_fext *x = ana_file_ext_get(a, f);
	if (!x->wb) {
		ANA_VEC_GROW(s->wbs, s->capwbs, s->nwbs);
		ANA_VEC_CLEAR(s->wbs, s->nwbs, s->nwbs);
		s->wbs[s->nwbs].file = fi;
		x->wb = (uint32_t)++s->nwbs;
	}
	return &s->wbs[x->wb - 1];
}

/* f's write burst, or NULL */
static struct ana_wburst *wburst(const struct ana *a, const struct ana_file *f)
{
	uint32_t wb = ana_file_ext(a, f)->wb;
	return wb ? &a->sys.wbs[wb - 1] : NULL;
}

static void epoch_visit(struct ana_sys *s, uint32_t k, uint32_t file, uint64_t ts)
{
	ANA_VEC_GROW(s->epochs, s->capepochs, k);
	if (k >= s->nepochs) {
		ANA_VEC_CLEAR(s->epochs, s->nepochs, k);
		for (size_t i = s->nepochs; i <= k; i++)
			s->epochs[i].start_ns = UINT64_MAX;
		s->nepochs = k + 1;
	}
	struct ana_epoch *ep = &s->epochs[k];
	ep->files++;
	if (ts < ep->start_ns)
		ep->start_ns = ts;
	if (ep->norder == ep->cap) {
		size_t nc = ep->cap ? ep->cap * 2 : 64;
		ep->order = ana_xrealloc(ep->order, nc * sizeof(*ep->order));
		ep->dts = ana_xrealloc(ep->dts, nc * sizeof(*ep->dts));
		ep->cap = nc;
	}
	int64_t d = (int64_t)(ts - ep->last_ts);
	if (!ep->norder || d <= INT32_MIN || d > INT32_MAX) {	/* the first is far */
		ANA_VEC_GROW(ep->far, ep->capfar, ep->nfar);
		ep->far[ep->nfar++] = ts;
		d = ANA_TS_FAR;
	}
	ep->last_ts = ts;
	ep->dts[ep->norder] = (int32_t)d;
	ep->order[ep->norder++] = file;
}

/* One more read or write of size class key (| 1 << 7: a write) of file f
 * (index fi), which may be data and was not read again (struct ana_file,
 * hk and hc): in one of its two slots, else in sys.fhist. */
static inline void size_count(struct ana *a, struct ana_file *f, uint32_t fi, unsigned key)
{
	int added;

	for (int i = 0; i < 2; i++) {
		if (!f->hc[i])
			f->hk[i] = (uint8_t)key;
		if (f->hk[i] == key) {
			if (++f->hc[i] == UINT16_MAX) {	/* full: on to the map */
				*ana_map_count(&a->sys.fhist, fi, key, &added) += f->hc[i];
				f->hc[i] = 0;
			}
			return;
		}
	}
	++*ana_map_count(&a->sys.fhist, fi, key, &added);
}

/* Count a read (write 0) or write of n bytes: the file's counters, and
 * unless compare leaves the file out (files_only), the per-kind, total,
 * thread, size-class and timeline counters too; the op's own counters
 * unless byop is 0 (the second side of a copy).  0: left out. */
static inline __attribute__((always_inline)) int
count_io(struct ana *a, const struct tape_syscall *e, struct ana_thread *t,
	 struct ana_file *f, uint64_t n, const int write, const int byop)
{
	struct ana_sys *s = &a->sys;

	if (write) {
		struct ana_fext *x = ana_file_ext_get(a, f);
		x->write_ops++;
		x->write_bytes += n;
	} else {
		ana_file_fw_add(a, f, ANA_FW_READ_OPS, 1);
		ana_file_fw_add(a, f, ANA_FW_READ_BYTES, n);
	}
	if (a->o.files_only && ana_file_excluded(a, f))
		return 0;
	if (f->kind == ANA_FK_UNKNOWN)
		ana_file_kind(a, f);
	if (f->kind == ANA_FK_DATA) {
		unsigned b = ana_sz_bucket(n);
		uint64_t size = ana_file_size(a, f);
		if (f->again || f->visits >= 2 || (size && ana_file_read_bytes(a, f) > size))
			(write ? s->wr_again : s->rd_again)[b]++;	/* read again: data */
		else
			size_count(a, f, (uint32_t)(f - a->files), b | write << 7);
	}
	if (byop) {
		s->op_ops[e->op]++;
		s->op_bytes[e->op] += n;
	}
	*(write ? &s->write_ops : &s->read_ops) += 1;
	*(write ? &s->write_bytes : &s->read_bytes) += n;
	*(write ? &t->write_ops : &t->read_ops) += 1;
	*(write ? &t->write_bytes : &t->read_bytes) += n;
	(write ? s->wr_hist : s->rd_hist)[ana_sz_bucket(n)]++;
	struct ana_bucket *b = bucket(a, e->ts_ns);
	*(write ? &b->write_ops : &b->read_ops) += 1;
	*(write ? &b->write_bytes : &b->read_bytes) += n;
	return 1;
}

/* The hash of the range [off, off + n) (struct ana_sketch): never 0. */
static inline uint32_t range_hash(uint64_t off, uint64_t n)
{
	uint64_t x = off ^ (n * 0x9e3779b97f4a7c15ull);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (uint32_t)(x >> 32) | !(x >> 32);
}

/* The sketch of file fi, made (empty) when it has none. */
static struct ana_sketch *sketch_of(struct ana_sys *s, struct ana_file *f, uint32_t fi)
{
	uint64_t *v = ana_map_put(&s->sketchmap, fi, 0);

	if (*v == ANA_NONE) {
		ANA_VEC_GROW(s->sketches, s->capsketches, s->nsketches);
		ANA_VEC_CLEAR(s->sketches, s->nsketches, s->nsketches);
		*v = s->nsketches++;
		f->sketch = 1;
	}
	return &s->sketches[*v];
}

/* The mark of range h in f's round (its first range, or its sketch's),
 * or NULL when it was not kept. */
static uint32_t *range_mark(struct ana_file *f, struct ana_sketch *sk, uint32_t h)
{
	if (f->rh0 == h)
		return &f->rm0;
	for (int i = 0; sk && i < ANA_SKETCH; i++)
		if (sk->h[i] == h)
			return &sk->m[i];
	return NULL;
}

/* Keep the new range h (mark m) in sk if its hash is among the smallest. */
static void sketch_add(struct ana_sketch *sk, uint32_t h, uint32_t m)
{
	int top = 0;

	for (int i = 0; i < ANA_SKETCH; i++) {
		if (!sk->h[i]) {
			top = i;
			break;
		}
		if (sk->h[i] > sk->h[top])
			top = i;
	}
	if (!sk->h[top] || h < sk->h[top]) {
		sk->h[top] = h;
		sk->m[top] = m;
	}
}

/* Pass k gained a file: once it holds half as many files as pass 0, the
 * passes before it are over (struct ana_sys, epoch_front). */
static void front_note(struct ana_sys *s, uint32_t k)
{
	if (k > s->epoch_front && 2 * s->epochs[k].files >= s->epochs[0].files)
		s->epoch_front = k;
}

/*
 * Undo the round that the first read through open fe started in file f
 * (index fi): the second read through it goes past the file's extent, so
 * the file is larger than its reads had shown and that first read was no
 * new pass but one more look at its start (tarfile opens a file three
 * times to guess its compression).  The first read (len bytes, all the
 * round holds) goes back to the pass the file left, and the file's byte
 * count no longer says when a round covered it.
 */
static void epoch_undo(struct ana *a, struct ana_file *f, uint32_t fi,
		       struct ana_fd *fe, uint64_t len)
{
	struct ana_sys *s = &a->sys;
	struct ana_epoch *ep = &s->epochs[f->pass], *to;
	uint32_t k = (fe->undo & ~(1u << 31)) - 1, again = fe->undo >> 31;

	fe->undo = 0;
	if (k >= s->nepochs || ana_file_fw(a, f, ANA_FW_COV) != len)
		return;
	to = &s->epochs[k];
	ep->bytes -= len;
	ep->reads--;
	ep->files--;
	to->bytes += len;
	to->reads++;
	for (size_t i = ep->norder, j = 0; i-- > 0 && j < 64; j++)
		if (ep->order[i] == fi) {
			ep->order[i] = ANA_NONE;
			break;
		}
	f->pass = k;
	f->again = again;
	f->ovl = 1;
}

/*
 * Epochs (iotape-analyze(1), Epochs: the rules are there): a read of n
 * bytes at e->offset of file f (index fi), which may be data, through
 * open fe; hi: the file's extent with this read, before: without it;
 * jump: the read does not continue its stream's last one, overlap: it
 * overlaps it.  The file is in a round, which belongs to a pass.  A new
 * round starts with its first read; with a read within the extent once
 * the round read the extent each byte once (covered); with the first read
 * through an open of a file read in order (no sketch) that reads the
 * round's first range again; or with a read of a kept range (its first,
 * or its sketch's) first read in the round half the file's size ago or
 * more.  A kept range read again sooner marks the file ovl (its bytes read
 * more than once in a round: covered can no longer be told), and after
 * two such reads no longer starts a round.  A new round is in the file's
 * next pass, unless that pass is over (the newest pass holds half as many
 * files as pass 0): then it joins the newest.  One started by the first
 * read through an open may be undone by its second (epoch_undo).
 */
static void epoch_read(struct ana *a, struct ana_file *f, uint32_t fi,
		       const struct tape_syscall *e, uint64_t n, uint64_t end, uint64_t hi,
		       uint64_t before, int jump, int overlap, struct ana_fd *fe)
{
	struct ana_sys *s = &a->sys;
	uint32_t h = range_hash(e->offset, n);
	uint64_t size = ana_file_size(a, f);
	uint32_t now = (uint32_t)((ana_file_read_bytes(a, f) - n) >> ANA_RM_UNIT_SHIFT) &
		       ANA_RM_CLOCK;
	uint64_t F = hi > size ? hi : size;
	uint32_t far = (uint32_t)((F / 2) >> ANA_RM_UNIT_SHIFT) + 1;
	struct ana_sketch *sk = NULL;
	uint32_t *m = NULL;
	int next = !f->in_round;

	if (overlap)
		f->ovl = 1;
	if (f->sketch || jump)
		sk = sketch_of(s, f, fi);
	if (!next && f->covered && !f->ovl && e->offset + n <= before) {
		next = 1;
	} else if (!next && (m = range_mark(f, sk, h))) {
		int visit = fe->visited == 1;
		if (m == &f->rm0 && visit && !sk) {
			next = 1;	/* a file read in order read from its start again */
		} else if (m == &f->rm0 && !visit && sk && !f->again) {
			/* a file read at random: its first read, its header at
			 * the open, read again as a record's is no new pass */
		} else if (((now - *m) & ANA_RM_CLOCK) >= far && *m >> 30 < 2) {
			next = 1;
		} else {	/* read again too soon: not a new pass */
			f->ovl = 1;
			if (*m >> 30 < 2)
				*m += 1u << 30;
		}
	}
	if (next) {
		uint32_t k = f->in_round ? f->pass + 1 : 0;
		if (k < s->epoch_front)
			k = s->epoch_front;
		if (f->in_round && fe->visited == 1)
			fe->undo = (f->pass + 1) | (uint32_t)f->again << 31;
		f->again |= f->in_round;
		f->in_round = 1;
		f->pass = k;
		ana_file_fw_set(a, f, ANA_FW_COV, 0);
		f->rh0 = h;
		f->rm0 = now;
		if (sk)
			memset(sk, 0, sizeof(*sk));
		epoch_visit(s, k, fi, e->ts_ns);
		if (!fe->undo)	/* else once its next read confirms it */
			front_note(s, k);
	} else if (sk && !m) {
		sketch_add(sk, h, now);
	}
	uint64_t cov = ana_file_fw(a, f, ANA_FW_COV) + n;
	ana_file_fw_set(a, f, ANA_FW_COV, cov);
	if (cov > hi)
		f->ovl = 1;	/* more bytes than its extent: some read twice */
	f->covered = !f->ovl && cov == hi && hi >= size;
	struct ana_epoch *ep = &s->epochs[f->pass];
	ep->bytes += n;
	ep->reads++;
	if (end > ep->end_ns)
		ep->end_ns = end;
}

/* A read or write of file f ends at end: its extent; the one before. */
static inline uint64_t extent_note(struct ana *a, struct ana_file *f, uint64_t end)
{
	uint64_t old = ana_file_fw(a, f, ANA_FW_EXTENT);
	if (end > old)
		ana_file_fw_set(a, f, ANA_FW_EXTENT, end);
	return old;
}

static void on_read(struct ana *a, const struct tape_syscall *e, struct ana_thread *t)
{
	struct ana_sys *s = &a->sys;
	struct ana_fd *fe;
	uint32_t fi = file_of_io(a, e, t, &fe);
	struct ana_file *f = &a->files[fi];
	uint64_t n = (uint64_t)e->ret, end = e->ts_ns + e->dur_ns;

	if (f->not_regular && n) {	/* who reads pipes (ana_train), in every view */
		int added;
		*ana_map_count(&s->pipe_r, fi, e->tid, &added) += n;
	}
	if (!count_io(a, e, t, f, n, 0, 1))
		return;
	if (!n)
		return;	/* EOF probes move nothing: no pattern, no visit */
	if (f->not_regular)
		return;	/* pipes and sockets (DataLoader queues) have no offsets
			 * and are no dataset: counted, but no pattern, no visit */
	uint64_t before = extent_note(a, f, e->offset + n);

	/* the first read through an open file is a visit */
	if (!fe->visited++)
		f->visits++;
	if (!fe->visited)
		fe->visited = UINT32_MAX;	/* (saturates) */

	/* pattern of the stream (tid, fd); it restarts at each open */
	struct ana_stream *st = stream_get(a, t, e->fd, fe, fi);
	int jump = st->reads && e->offset != st->last_end;
	if (f->kind == ANA_FK_DATA) {	/* code takes no part in epochs */
		int overlap = st->reads && e->offset < st->last_end &&
			      e->offset + n > st->last_start;
		uint64_t hi = before > e->offset + n ? before : e->offset + n;
		if (fe->undo && e->offset + n > before)
			epoch_undo(a, f, fi, fe, st->last_end - st->last_start);
		else if (fe->undo)
			front_note(s, f->pass);
		fe->undo = 0;
		epoch_read(a, f, fi, e, n, end, hi, before, jump, overlap, fe);
		if (!t->data_reads++)
			t->data_first = e->ts_ns;
		if (end > t->data_last)
			t->data_last = end;
		s->data_reads++;
		if (n > s->data_read_max)
			s->data_read_max = n;
	}
	if (st->reads) {
		uint64_t stride = e->offset - st->last_start;
		st->pairs++;
		if (!jump) {
			st->consec++;
			st->seq++;
		} else {
			st->nonconsec++;
			if (e->offset > st->last_end)
				st->seq++;
			if (st->has_stride && stride == st->last_stride)
				st->same_stride++;
		}
		st->last_stride = stride;
		st->has_stride = 1;
	}
	st->reads++;
	st->last_start = e->offset;
	st->last_end = e->offset + n;
}

/* files_only: a path outside what is compared (memory and pseudo file
 * systems, which the replay leaves out too; outside ana_opts.under; one
 * ana_opts.skip names) */
static int path_outside(const struct ana *a, const char *path)
{
	if (cm_path_is_pseudo(path, NULL))
		return 1;
	if (a->o.under) {
		size_t n = strlen(a->o.under);
		if (strncmp(path, a->o.under, n) != 0 || path[n] != '/')
			return 1;
	}
	return 0;
}

static int path_excluded(const struct ana *a, const char *path)
{
	return path_outside(a, path) || (a->o.skip && a->o.skip(path, a->o.skip_arg));
}

int ana_file_excluded(const struct ana *a, const struct ana_file *f)
{
	char buf[ANA_PATH_BUF];
	if (!a->o.files_only)
		return 0;
	if (!(f->excl & 3))	/* (a file's mode, fs and path do not change: kept) */
		((struct ana_file *)f)->excl |= 1 + (f->anon || f->not_regular || f->memfs ||
						     !f->path ||
						     path_excluded(a, ana_file_path(a, f, buf)));
	return (f->excl & 3) == 2;
}

/*
 * A metadata op the replay issues (kind: common/ops.h), on the file its
 * path or fd names.  With files_only, counted where the replay does it:
 * on storage (a directory too; not "/": iotape-replay(1) leaves out DIR
 * itself), under ana_opts.under but for the replay's marker there.  Not
 * ana_opts.skip's: the files A leaves out of the I/O it compares (only
 * mapped, directories) are stat'ed by the job and its replay alike.
 */
static void count_meta(struct ana *a, const struct tape_syscall *e, unsigned kind)
{
	const struct ana_file *f;
	char buf[ANA_PATH_BUF];
	const char *p;
	uint32_t fi;

	if (!a->o.files_only) {	/* no file to look up (the stat of a path
				 * needs a hash of it) */
		a->sys.meta_ops[kind]++;
		return;
	}
	if ((fi = file_of_event(a, e)) == ANA_NONE) {
		struct ana_fd *fe = fd_get(&a->sys, e->pid, e->fd);
		fi = fe ? fe->file : ANA_NONE;
	}
	if (fi == ANA_NONE)
		return;
	f = &a->files[fi];
	if (!(f->excl & 0xc)) {	/* whether its metadata ops count: kept */
		int out = f->anon || (f->not_regular && !f->dir) || f->memfs || !f->path;
		if (!out) {
			p = ana_file_path(a, f, buf);
			out = !p[strspn(p, "/.")] || path_outside(a, p) ||
			      (a->o.under && !strcmp(p + strlen(a->o.under) + 1, CM_REPLAY_MARKER));
		}
		a->files[fi].excl |= (out ? 2 : 1) << 2;
	}
	if ((f->excl & 0xc) == 8)
		return;
	a->sys.meta_ops[kind]++;
}

static void on_write(struct ana *a, const struct tape_syscall *e, struct ana_thread *t,
		     const int byop)
{
	struct ana_sys *s = &a->sys;
	struct ana_fd *fe;
	uint32_t fi = file_of_io(a, e, t, &fe);
	struct ana_file *f = &a->files[fi];
	uint64_t n = (uint64_t)e->ret, end = e->ts_ns + e->dur_ns;

	if (f->not_regular && n) {	/* who writes pipes (ana_train), in every view */
		int added;
		*ana_map_count(&s->pipe_w, fi, e->pid, &added) += n;
	}
	if (!count_io(a, e, t, f, n, 1, byop))
		return;
	if (n && !f->not_regular)
		extent_note(a, f, e->offset + n);

	struct ana_wburst *w = wburst_of(a, f, fi);
	if (w->ops && e->ts_ns > w->end + CKPT_GAP_NS)
		burst_close(a, w);
	if (!w->ops) {
		w->start = e->ts_ns;
		w->whole = 1;
	}
	if (e->offset != w->next)
		w->whole = 0;	/* not front to back from 0: rewrites, appends */
	w->next = e->offset + n;
	w->closed = w->unlinked = 0;
	if (end > w->end)
		w->end = end;
	w->bytes += n;
	w->sq += (double)n * (double)n;
	w->ops++;
}

/* Whether a side of a copy is storage: a file we know, not a pipe or a
 * socket (splice's and sendfile's other ends), which are left out. */
static int copy_side(struct ana *a, const struct tape_syscall *e, struct ana_thread *t)
{
	struct ana_fd *fe;

	if (e->fd < 0 && !e->file_id)
		return 0;	/* not recorded (traces before fd2) */
	return !a->files[file_of_io(a, e, t, &fe)].not_regular;
}

/* A copy: a read of ret bytes at (file_id, offset) and a write of them
 * at (file_id2, offset2), each side as the read or write would be. */
static void on_copy(struct ana *a, const struct tape_syscall *e, struct ana_thread *t)
{
	struct tape_syscall o = tape_syscall_output(e);
	int rd = copy_side(a, e, t);

	if (rd)
		on_read(a, e, t);
	if (copy_side(a, &o, t))
		on_write(a, &o, t, !rd);	/* the op counted once */
}

static void on_sync(struct ana *a, const struct tape_syscall *e)
{
	struct ana_fd *fe = fd_get(&a->sys, e->pid, e->fd);
	uint32_t fi = fe ? fe->file : ANA_NONE;
	if (fi == ANA_NONE && e->file_id)
		fi = ana_file_by_id(a, e->file_id);
	if (fi == ANA_NONE)
		return;
	struct ana_file *f = &a->files[fi];
	uint64_t end = e->ts_ns + e->dur_ns;
	struct ana_wburst *w = wburst(a, f);
	if (w && w->ops && e->ts_ns <= w->end + CKPT_GAP_NS) {
		w->syncs++;
		if (end > w->end)
			w->end = end;
	}
}

/* ana_pass_syscall()'s tables by op: its class (cls), its metadata kind
 * (meta: common/ops.h; left 0 for the rest) */
static void op_tables(unsigned char *cls, unsigned char *meta)
{
	for (unsigned op = 0; op <= TAPE_OP_MAX; op++)
		cls[op] = op < TAPE_OP_MAX ? (unsigned char)tape_op_class(op) : TAPE_OPC_OTHER;
	cls[TAPE_OP_FTRUNCATE] = cls[TAPE_OP_FALLOCATE] = TAPE_OPC_META; /* no bytes */
	for (unsigned op = 0; op < TAPE_OP_MAX; op++)
		if (tape_op_has_output(op))
			cls[op] = OPC_COPY;
	for (unsigned op = 0; op < TAPE_OP_MAX; op++)
		if (cm_kind_is_meta(cm_op_rule(op).kind))
			meta[op] = (unsigned char)cm_op_rule(op).kind;
}

/*
 * Per-file state is the cache miss of ana_pass_syscall()'s loop (the
 * decoder's output sweeps the caches between blocks): fetch the index
 * entry of the file an event names 32 events ahead, the file itself 16
 * ahead (a hit but for the first event of a visit, and cheaper than a
 * test).  e0: the block's n events, i: the one now.
 */
static inline __attribute__((always_inline)) void
prefetch_files(const struct ana *a, const struct tape_syscall *e0, size_t i, size_t n)
{
	if (i + 32 < n && e0[i + 32].file_id < a->fid_idx.n)
		__builtin_prefetch(&a->fid_idx.v[e0[i + 32].file_id]);
	if (i + 16 < n) {
		uint32_t v = ana_file_id_dense(a, e0[i + 16].file_id);
		if (v != ANA_NONE) {	/* reads, opens: see struct ana_file */
			__builtin_prefetch(&a->files[v], 1);
			__builtin_prefetch((char *)&a->files[v] + 64, 1);
		}
	}
}

/* a path lookup coming (prefetch_paths), in a ring of 32 by event */
struct pahead {
	const char *path;
	uint64_t h;
	uint32_t fi;
};

/*
 * Events that name a file by its path alone (a stat) look it up by path
 * once the path index is made (compare): its hash 16 events ahead and its
 * slot fetched, the file there 8 ahead, its path's entry 4 ahead, its
 * name 2 ahead; event i's hash is left in a->pidx's hint.  e0: the
 * block's n events.
 */
static inline __attribute__((always_inline)) void
prefetch_paths(struct ana *a, const struct tape_syscall *e0, size_t i, size_t n,
	       struct pahead *ahead)
{
	const struct tape_syscall *e = &e0[i];

	if (i + 16 < n && !e0[i + 16].file_id && e0[i + 16].path &&
	    *e0[i + 16].path) {
		struct pahead *p = &ahead[(i + 16) & 31];
		p->path = e0[i + 16].path;
		p->h = cm_hash_str(p->path);
		p->fi = ANA_NONE;
		ana_pidx_ahead(a, p->h, 0, &p->fi);
	}
	if (i + 8 < n && ahead[(i + 8) & 31].path == e0[i + 8].path &&
	    e0[i + 8].path)
		ana_pidx_ahead(a, ahead[(i + 8) & 31].h, 1, &ahead[(i + 8) & 31].fi);
	if (i + 4 < n && ahead[(i + 4) & 31].path == e0[i + 4].path &&
	    e0[i + 4].path)
		ana_pidx_ahead(a, ahead[(i + 4) & 31].h, 2, &ahead[(i + 4) & 31].fi);
	if (i + 2 < n && ahead[(i + 2) & 31].path == e0[i + 2].path &&
	    e0[i + 2].path)
		ana_pidx_ahead(a, ahead[(i + 2) & 31].h, 3, &ahead[(i + 2) & 31].fi);
	/* (a block's string is one pointer: the same
	 * pointer, the same path) */
	a->pidx.hint = NULL;
	if (ahead[i & 31].path == e->path && e->path) {
		a->pidx.hint = e->path;
		a->pidx.hint_h = ahead[i & 31].h;
	}
}

/* Compute vs I/O: thread t's I/O call e, ending at end: the thread's I/O
 * time, its gap before e (its work and waits; a step when the work is
 * ANA_STEP_GAP_NS or more) and the job's busy time (every thread's calls'
 * union). */
static inline __attribute__((always_inline)) void
thread_io(struct ana_sys *s, struct ana_thread *t, const struct tape_syscall *e,
	  uint64_t end)
{
	if (!t->ops) {
		t->first_ns = e->ts_ns;
		t->last_end = e->ts_ns;
	}
	uint64_t gap = io_advance(&t->last_end, e, &t->io_ns);

	if (gap != NO_GAP) {
		/* the gap less the waits for other
		 * threads in it is the thread's work */
		uint64_t w = t->wait_pend < gap ? t->wait_pend : gap;
		uint64_t work = gap - w;

		t->wait_pend = 0;
		t->gap_ns += gap;
		t->wait_ns += w;
		t->work_ns += work;
		if (t->ops && work >= ANA_STEP_GAP_NS) {
			t->steps++;
			t->step_ns += work;
			t->step_sq_ms += (work / 1e6) * (work / 1e6);
		}
	}
	t->ops++;
	if (e->ts_ns > s->busy_e) {
		s->busy_ns += s->busy_e - s->busy_s;
		s->busy_s = e->ts_ns;
		s->busy_e = end;
	} else if (end > s->busy_e) {
		s->busy_e = end;
	}
}

/* An open: the file it returned (its fd, ret) and the file's opens. */
static void on_open(struct ana *a, const struct tape_syscall *e)
{
	uint32_t fi = file_of_event(a, e);
	if (fi == ANA_NONE)
		fi = file_for_unknown_fd(a, e->pid, e->ret);
	if (!++a->files[fi].opens)	/* (wrapped) */
		ana_file_ext_get(a, &a->files[fi])->opens_hi += 1ull << 32;
	fd_put(&a->sys, e->pid, e->ret, fi);
}

/* A dup: the new fd (ret) refers to the old one's file, visited alike. */
static void on_dup(struct ana_sys *s, const struct tape_syscall *e)
{
	struct ana_fd *old = fd_get(s, e->pid, e->fd);
	if (old && old->file != ANA_NONE) {
		uint32_t fi = old->file, vis = old->visited;
		fd_put(s, e->pid, e->ret, fi)->visited = vis;
	}
}

/* An mmap: prot | flags << 32: a data file is mapped shared and
 * readable, libraries privately and executable */
static void on_mmap(struct ana *a, const struct tape_syscall *e)
{
	int shared = e->flags >> 32 & 1, prot = (int)(e->flags & 7);
	struct ana_fd *fe = shared || prot & 4 ?
			    fd_get(&a->sys, e->pid, e->fd) : NULL;
	uint32_t fi = fe ? fe->file : ANA_NONE;
	if (fi == ANA_NONE && e->file_id && (shared || prot & 4))
		fi = ana_file_by_id(a, e->file_id);
	if (fi != ANA_NONE && shared && (prot & 5) == 1)
		a->files[fi].shared_map = 1;
	if (fi != ANA_NONE && prot & 4)
		a->files[fi].exec_map = 1;
}

/* A close by thread t: its file's write burst closed (the thread's last
 * closed file), an epoch undo pending on the fd confirmed, the fd free. */
static void on_close(struct ana *a, const struct tape_syscall *e, struct ana_thread *t)
{
	struct ana_sys *s = &a->sys;
	struct ana_fd *fe = fd_get(s, e->pid, e->fd);
	struct ana_wburst *w = fe && fe->file != ANA_NONE ?
			       wburst(a, &a->files[fe->file]) : NULL;
	if (w) {
		w->closed = 1;
		t->last_closed = fe->file;
	}
	if (fe && fe->undo && fe->file != ANA_NONE)
		front_note(s, a->files[fe->file].pass);
	if (fe) {
		fe->file = ANA_NONE;
		fe->undo = 0;
	}
}

/* An unlink of the file thread t just wrote and closed: a temporary
 * file, not a checkpoint */
static void on_unlink(struct ana *a, const struct tape_syscall *e, struct ana_thread *t)
{
	char ub[ANA_PATH_BUF];
	if (t->last_closed != ANA_NONE && e->path &&
	    a->files[t->last_closed].path &&
	    !strcmp(e->path, ana_file_path(a, &a->files[t->last_closed], ub))) {
		struct ana_wburst *w = wburst(a, &a->files[t->last_closed]);
		w->unlinked = w->ops > 0;
		t->last_closed = ANA_NONE;
	}
}

/* Event e of thread t, in the pass: the job's span and latencies, the
 * thread's compute vs I/O, then by its class (op_tables: cls, meta). */
static inline __attribute__((always_inline)) void
sys_event(struct ana *a, const struct tape_syscall *e, struct ana_thread *t,
	  const unsigned char *cls, const unsigned char *meta)
{
	struct ana_sys *s = &a->sys;
	unsigned op = e->op < TAPE_OP_MAX ? e->op : TAPE_OP_UNKNOWN;
	uint64_t end = e->ts_ns + e->dur_ns;
	if (e->ts_ns < s->first_ns)
		s->first_ns = e->ts_ns;
	if (end > s->last_ns)
		s->last_ns = end;
	ana_lat_add(&s->lat[op], e->dur_ns, &s->lat_budget);
	s->ops++;

	/* compute vs I/O: io_uring completions do not block */
	if (is_io(a, e, op))
		thread_io(s, t, e, end);
	if (meta[op] && cm_op_replayed(op, 1, e->ret < 0))
		count_meta(a, e, meta[op]);
	if (e->ret < 0) {
		s->errors++;
		return;
	}
	switch (cls[op]) {
	case TAPE_OPC_READ:
		on_read(a, e, t);
		break;
	case TAPE_OPC_WRITE:
		on_write(a, e, t, 1);
		break;
	case OPC_COPY:
		on_copy(a, e, t);
		break;
	case TAPE_OPC_SYNC:
		s->sync_ops++;
		on_sync(a, e);
		break;
	case TAPE_OPC_OPEN:
		on_open(a, e);
		break;
	case TAPE_OPC_DUP:
		on_dup(s, e);
		break;
	case TAPE_OPC_MMAP:
		if (op == TAPE_OP_MMAP)
			on_mmap(a, e);
		break;
	case TAPE_OPC_CLOSE:
		on_close(a, e, t);
		break;
	case TAPE_OPC_NAMESPACE:
		if (op == TAPE_OP_UNLINK || op == TAPE_OP_UNLINKAT)
			on_unlink(a, e, t);
		break;
	default:
		break;
	}
}

/* The pass's end (err: the cursor's last answer): its cursor and sched
 * feed freed, the busy time, streams and write bursts still open closed. */
static int syscall_done(struct ana *a, tape_cursor *c, struct ana_sched_feed *waits, int err)
{
	struct ana_sys *s = &a->sys;

	a->pidx.hint = NULL;
	if (err < 0)
		ana_note_damage(a, TAPE_TABLE_SYSCALL, err);
	ana_cursor_free(c);
	ana_sched_close(a, waits);
	s->busy_ns += s->busy_e - s->busy_s;
	for (size_t i = 0; i < s->nstreams; i++)
		ana_stream_fold(a, &s->streams[i]);
	for (size_t i = 0; i < s->nwbs; i++)
		if (s->wbs[i].ops)
			burst_close(a, &s->wbs[i]);
	return 0;
}

int ana_pass_syscall(struct ana *a, tape_reader *r)
{
	struct ana_sys *s = &a->sys;
	unsigned char cls[TAPE_OP_MAX + 1];
	unsigned char meta[TAPE_OP_MAX + 1] = { 0 };	/* its metadata kind, 0 */
	op_tables(cls, meta);

	s->lat_budget = 4u << 20;	/* exact latency samples, all ops (32 MiB) */
	s->first_ns = UINT64_MAX;
	tape_cursor *c;
	int err = ana_cursor_open(r, TAPE_TABLE_SYSCALL, a->t0, a->t1, &c);
	if (err)
		return err;
	/* the blocks decoded on a thread of their own (the cache and block
	 * passes beside this one end well before it) */
	if (a->o.threads > 1)
		(void)tape_cursor_set_readahead(c);
	const void *evs;
	size_t n;
	uint32_t last_tid = 0;
	struct ana_thread *t = NULL;
	uint32_t last_pid = 0;
	int last_in = 1, have_pid = 0;
	struct ana_sched_feed *waits;
	if ((err = ana_sched_open(a, r, &waits))) {
		ana_cursor_free(c);
		return err;
	}
	struct pahead ahead[32];	/* path lookups coming */
	while ((err = tape_cursor_next_block(c, &evs, &n)) > 0) {
		const struct tape_syscall *e0 = evs, *e = e0;
		memset(ahead, 0, sizeof(ahead));	/* (the block's strings go) */
		for (size_t i = 0; i < n; i++, e++) {
			/* the waits written by the time this call began */
			if (waits)
				ana_sched_until(a, waits, e->ts_ns);
			prefetch_files(a, e0, i, n);
			if (a->path_map_built)
				prefetch_paths(a, e0, i, n, ahead);
			if (ANA_HOST_SKIP(a, TAPE_TABLE_SYSCALL, e))
				continue;
			if (a->o.has_pid) {
				if (!have_pid || e->pid != last_pid) {
					last_pid = e->pid;
					have_pid = 1;
					last_in = ana_pid_included(a, e->pid);
				}
				if (!last_in)
					continue;
			}
			s->n_events++;
			if (!t || e->tid != last_tid) {
				t = thread_get(s, e->tid, e->pid);
				last_tid = e->tid;
			}
			sys_event(a, e, t, cls, meta);
		}
	}
	return syscall_done(a, c, waits, err);
}
