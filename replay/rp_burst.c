/* SPDX-License-Identifier: MIT */
/*
 * rp_burst.c - the burst buffer what-if (--burst-buffer FAST [--drain]):
 * hooks that follow the checkpoint files' write bursts as the replay runs,
 * and a drain thread that copies each closed checkpoint file from FAST to
 * DIR in the background.
 *
 * The engine is not changed: the op hook sees each op done (its layout
 * file, its result), takes a mutex only for the files placed under FAST,
 * and queues the drain's work (copy, rename, unlink) in the job's order;
 * the drain thread does it, one action at a time, with its own io_uring.
 * A copy goes to a name of its own in the file's directory under DIR
 * (created O_EXCL) and is renamed over the file once complete: whatever
 * sits at the file's name (an older copy, a hard link planted there) is
 * replaced, never written through.  The job may write a newer version of
 * a file (model.pt each epoch) before or while its copy runs: that copy is
 * then superseded (given up, not an error), and the newer version's copy,
 * queued when its burst closes, follows; DIR ends with the latest complete
 * copy of each file.
 * Memory grows with files (per-file state) and checkpoints (the queue and
 * the records), never with ops.  Times are ns since the first loop's start,
 * as the hooks' elapsed_ns.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <liburing.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fmt.h"
#include "replay.h"

#define DR_CHUNK (1u << 20)	/* bytes a read and its write move */
#define DR_DEPTH 4		/* chunks in flight */
#define DR_TRIES 3		/* copies of a file changed under the drain
				 * with no newer version to follow */

enum { ACT_COPY, ACT_RENAME, ACT_UNLINK };

struct act {			/* one action of the drain, in the job's order */
	uint32_t kind;
	uint32_t file;		/* COPY: where it goes under DIR; RENAME,
				 * UNLINK: the file */
	uint32_t src;		/* COPY: its name under FAST now (the job may
				 * rename it before the copy); RENAME: the
				 * new name */
	uint32_t rec;		/* COPY: the checkpoint record */
	uint16_t stale;		/* COPY: the job wrote src since it was
				 * queued (set by the hook) */
	uint16_t tries;		/* COPY: copies of it changed under the
				 * drain with no newer one to follow */
};

struct bfile {			/* per layout file */
	uint32_t plan0, nplan;	/* its bursts in the plan (sorted by file) */
	uint32_t nth;		/* bursts begun in this loop */
	uint32_t rec;		/* record of the burst in progress */
	uint32_t opens;		/* its fds open */
	uint8_t watch;		/* placed under FAST */
	uint8_t inburst;
	uint8_t redo;		/* a copy of it (redo_act) was changed under
				 * the drain with no newer one to follow:
				 * queued again at its last close */
	struct act redo_act;
};

struct rp_burst {
	const struct rp_layout *l;
	struct bfile *f;
	uint32_t *plan_ckpt;	/* the plan's checkpoints, by file */
	unsigned nckpts, loops, loop;
	struct rp_burst_ckpt *rec;	/* nckpts * loops */
	size_t nrec;
	int fast_fd, dir_fd, drain;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct act *acts;
	size_t nacts, capacts, head;
	int closing, started;
	pthread_t th;
	uint64_t base;		/* CLOCK_MONOTONIC of elapsed 0 */
	uint64_t wait_ns;	/* rp_burst_wait: how long it waited */
	int fail_err;
	uint32_t fail_file;
	struct io_uring ring;
	int ring_ok, ring_bad;
	char *bufs[DR_DEPTH];
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_plan(const void *x, const void *y)
{
	const struct rp_burst_plan *p = x, *q = y;
	if (p->file != q->file)
		return p->file < q->file ? -1 : 1;
	return p->ckpt < q->ckpt ? -1 : p->ckpt > q->ckpt;	/* (the plan's index) */
}

int rp_burst_new(struct rp_burst **out, const struct rp_layout *l,
		 const struct rp_burst_plan *plan, size_t n, unsigned nckpts, unsigned loops,
		 unsigned place, int fast_fd, int dir_fd, int drain)
{
	struct rp_burst *b = calloc(1, sizeof(*b));
	struct rp_burst_plan *s = NULL;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	b->l = l;
	b->nckpts = nckpts;
	b->loops = loops ? loops : 1;
	b->nrec = (size_t)nckpts * b->loops;
	b->fast_fd = fast_fd;
	b->dir_fd = dir_fd;
	b->drain = drain;
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	b->f = calloc(l->nfiles ? l->nfiles : 1, sizeof(*b->f));
	b->plan_ckpt = calloc(n ? n : 1, sizeof(*b->plan_ckpt));
	b->rec = calloc(b->nrec ? b->nrec : 1, sizeof(*b->rec));
	s = malloc((n ? n : 1) * sizeof(*s));
	if (!b->f || !b->plan_ckpt || !b->rec || !s) {
		free(s);
		rp_burst_free(b);
		return -ENOMEM;
	}
	/* the plan by file, each file's bursts in the recorded order (ckpt
	 * holds the plan's index while sorting) */
	for (size_t i = 0; i < n; i++) {
		s[i] = plan[i];
		s[i].ckpt = (uint32_t)i;
	}
	qsort(s, n, sizeof(*s), cmp_plan);
	for (size_t i = 0; i < n; i++) {
		struct bfile *bf = &b->f[s[i].file];
		if (s[i].file >= l->nfiles || plan[s[i].ckpt].ckpt >= nckpts)
			continue;
		if (!bf->nplan)
			bf->plan0 = (uint32_t)i;
		bf->nplan++;
		b->plan_ckpt[i] = plan[s[i].ckpt].ckpt;
	}
	free(s);
	for (size_t f = 0; f < l->nfiles; f++)
		b->f[f].watch = l->files[f].place == place && place;
	for (unsigned i = 0; drain && i < DR_DEPTH; i++)
		if (posix_memalign((void **)&b->bufs[i], RP_ALIGN, DR_CHUNK)) {
			rp_burst_free(b);
			return -ENOMEM;
		}
	*out = b;
	return 0;
}

/* ------------------------------------------------------------ the hooks */

static void loop_start(void *arg, unsigned loop)
{
	struct rp_burst *b = arg;

	pthread_mutex_lock(&b->mu);
	b->loop = loop < b->loops ? loop : b->loops - 1;
	for (size_t f = 0; f < b->l->nfiles; f++) {
		b->f[f].nth = 0;
		b->f[f].opens = 0;
		b->f[f].inburst = 0;
	}
	pthread_mutex_unlock(&b->mu);
}

/* Queue an action (under mu): 0, or -ENOMEM (the action is lost: its
 * checkpoint's record says so). */
static int push(struct rp_burst *b, uint32_t kind, uint32_t file, uint32_t src, uint32_t rec)
{
	if (b->nacts == b->capacts) {
		size_t nc = b->capacts ? 2 * b->capacts : 64;
		struct act *a = realloc(b->acts, nc * sizeof(*a));
		if (!a)
			return -ENOMEM;
		b->acts = a;
		b->capacts = nc;
	}
	b->acts[b->nacts++] = (struct act){ kind, file, src, rec, 0, 0 };
	pthread_cond_signal(&b->cv);
	return 0;
}

/* Queue copy a of the file again (under mu), from and to its name now,
 * src (the renames queued before are done under DIR by then); a failure
 * to queue is the checkpoint's error. */
static void redo(struct rp_burst *b, const struct act *ap, uint32_t src)
{
	struct act a = *ap;	/* (ap may be in b->acts, which push moves) */
	size_t n = b->nacts;

	if (push(b, ACT_COPY, src, src, a.rec)) {
		if (!b->rec[a.rec].err) {
			b->rec[a.rec].err = -ENOMEM;
			b->rec[a.rec].err_file = a.file;
		}
		return;
	}
	b->acts[n].tries = (uint16_t)(a.tries + 1);
}

/* After the copy of action i was changed under the drain (under mu): a
 * newer version's copy follows (one queued after it, or the burst the job
 * is writing, queued at its close): i is superseded, 1.  Else 0: the job
 * changed the file without a burst (a truncating open, a write to a
 * rename's target), and i is to be done again once the file is closed. */
static int superseded(struct rp_burst *b, size_t i)
{
	uint32_t src = b->acts[i].src;

	for (size_t j = i + 1; j < b->nacts; j++)
		if (b->acts[j].kind == ACT_COPY && b->acts[j].src == src)
			return 1;
	return b->f[src].inburst && b->f[src].nplan;
}

static void burst_op(void *arg, const struct rp_op_done *d)
{
	struct rp_burst *b = arg;
	struct bfile *bf;
	struct rp_burst_ckpt *c;

	if (d->file >= b->l->nfiles || !b->f[d->file].watch || d->res < 0 ||
	    (d->flags & (RP_F_SKIP | RP_F_STEP)))
		return;
	bf = &b->f[d->file];
	pthread_mutex_lock(&b->mu);
	if (!b->base)
		b->base = now_ns() - d->elapsed_ns;
	switch (d->kind) {
	case CM_OPEN:
	case CM_DUP:	/* another fd on it: closed on its own */
		bf->opens++;
		break;
	case CM_WRITE:
		/* a newer version: the copies of the older one queued or in
		 * flight are superseded (once per burst) */
		if (b->drain && (!bf->inburst || !bf->nplan))
			for (size_t i = b->head; i < b->nacts; i++)
				if (b->acts[i].kind == ACT_COPY && b->acts[i].src == d->file)
					b->acts[i].stale = 1;
		if (!bf->nplan)
			break;	/* placed (a rename's target), not a checkpoint's */
		if (!bf->inburst) {
			uint32_t k = bf->nth < bf->nplan ? bf->nth : bf->nplan - 1;
			uint64_t t = d->elapsed_ns > d->lat_ns ? d->elapsed_ns - d->lat_ns : 0;
			bf->inburst = 1;
			bf->nth++;
			bf->rec = b->loop * b->nckpts + b->plan_ckpt[bf->plan0 + k];
			c = &b->rec[bf->rec];
			if (!c->start_ns || t < c->start_ns)
				c->start_ns = t ? t : 1;
		}
		b->rec[bf->rec].bytes += (uint64_t)d->res;
		break;
	case CM_CLOSE:
		if (bf->opens)
			bf->opens--;
		if (!bf->opens && bf->redo && !bf->inburst) {
			bf->redo = 0;
			redo(b, &bf->redo_act, d->file);
		}
		if (bf->opens || !bf->inburst)
			break;
		bf->redo = 0;	/* (the copy queued below is newer) */
		bf->inburst = 0;
		c = &b->rec[bf->rec];
		c->files++;
		if (d->elapsed_ns > c->close_ns)
			c->close_ns = d->elapsed_ns;
		if (b->drain && push(b, ACT_COPY, d->file, d->file, bf->rec) && !c->err) {
			c->err = -ENOMEM;
			c->err_file = d->file;
		}
		break;
	case CM_RENAME:
		if (!b->drain || d->file2 >= b->l->nfiles)
			break;
		/* a copy still to come reads it under its new name */
		for (size_t i = b->head; i < b->nacts; i++)
			if (b->acts[i].kind == ACT_COPY && b->acts[i].src == d->file)
				b->acts[i].src = d->file2;
		if (bf->redo) {
			bf->redo = 0;
			b->f[d->file2].redo = 1;
			b->f[d->file2].redo_act = bf->redo_act;
		}
		push(b, ACT_RENAME, d->file, d->file2, 0);
		break;
	case CM_UNLINK:
		if (b->drain)
			push(b, ACT_UNLINK, d->file, d->file, 0);
		break;
	}
	pthread_mutex_unlock(&b->mu);
}

void rp_burst_hooks(struct rp_burst *b, struct rp_hooks *h)
{
	*h = (struct rp_hooks){ .arg = b, .loop_start = loop_start, .op = burst_op };
}

/* ------------------------------------------------------------ the drain */

static int is_stale(struct rp_burst *b, size_t i)
{
	pthread_mutex_lock(&b->mu);
	int s = b->acts[i].stale;
	pthread_mutex_unlock(&b->mu);
	return s;
}

/* Copy size bytes of src to dst for action i: a read of each chunk linked
 * to its write (of the chunk rounded up to RP_ALIGN when direct), DR_DEPTH
 * chunks in flight.  0 or -errno (-ESTALE: the source was shorter than
 * size, or the hook says the job wrote it: it changed meanwhile). */
static int copy_uring(struct rp_burst *b, size_t act, int src, int dst, uint64_t size, int direct)
{
	uint64_t off = 0, want[DR_DEPTH];
	unsigned busy = 0, inflight = 0;
	int err = 0;

	while ((off < size && !err) || inflight) {
		int queued = 0;
		for (unsigned i = 0; i < DR_DEPTH && off < size && !err; i++) {
			if (busy & (1u << i))
				continue;
			uint64_t len = size - off < DR_CHUNK ? size - off : DR_CHUNK;
			uint64_t wlen = direct ? (len + RP_ALIGN - 1) & ~(uint64_t)(RP_ALIGN - 1) : len;
			/* (2 * DR_DEPTH entries, submitted each round: never NULL) */
			struct io_uring_sqe *r = io_uring_get_sqe(&b->ring);
			struct io_uring_sqe *w = io_uring_get_sqe(&b->ring);
			if (wlen > len)
				memset(b->bufs[i] + len, 0, wlen - len);
			io_uring_prep_read(r, src, b->bufs[i], (unsigned)len, off);
			r->flags |= IOSQE_IO_LINK;	/* a short read cancels the write */
			r->user_data = (uint64_t)i << 1;
			io_uring_prep_write(w, dst, b->bufs[i], (unsigned)wlen, off);
			w->user_data = (uint64_t)i << 1 | 1;
			want[i] = len | wlen << 32;
			busy |= 1u << i;
			inflight += 2;
			queued = 1;
			off += len;
		}
		if (queued && io_uring_submit(&b->ring) < 0 && !err)
			err = -EIO;
		if (!inflight)
			break;
		struct io_uring_cqe *cqe;
		int rc;
		while ((rc = io_uring_wait_cqe(&b->ring, &cqe)) == -EINTR)
			;
		if (rc < 0) {
			b->ring_bad = 1;	/* the caller makes a new one */
			return rc;
		}
		uint64_t ud = cqe->user_data;
		int res = cqe->res;
		io_uring_cqe_seen(&b->ring, cqe);
		inflight--;
		unsigned i = (unsigned)(ud >> 1);
		if (ud & 1) {		/* the write: the chunk is done */
			busy &= ~(1u << i);
			if (!err && res != -ECANCELED && (res < 0 || (uint64_t)res != want[i] >> 32))
				err = res < 0 ? res : -EIO;
			if (!err && is_stale(b, act))
				err = -ESTALE;	/* no use going on */
		} else if (!err && (res < 0 || (uint64_t)res != (want[i] & 0xffffffffu))) {
			err = res < 0 ? res : -ESTALE;
		}
	}
	return err;
}

/* The name a copy of layout file f is written to, in f's directory under
 * DIR, before it is renamed to f's: one per file (one copy at a time). */
static void tmp_name(char *buf, size_t len, uint32_t f)
{
	snprintf(buf, len, ".iotape-drain.%" PRIu32, f);
}

/* Create tmp in the directory pfd, for writing: O_EXCL, O_DIRECT when the
 * file system takes it (*direct says), else buffered.  One left there (a
 * replay killed mid-copy, or anything else at that name) is unlinked
 * first, never opened: the copy is always a new file.  fd or -errno. */
static int open_tmp(int pfd, const char *tmp, int *direct)
{
	const int fl = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
	int fd = -1;

	for (int tries = 0; tries < 2; tries++) {
		*direct = 1;
		fd = openat(pfd, tmp, fl | O_DIRECT, 0644);
		if (fd < 0 && errno == EINVAL) {
			*direct = 0;
			fd = openat(pfd, tmp, fl, 0644);
		}
		if (fd >= 0 || errno != EEXIST || unlinkat(pfd, tmp, 0))
			break;
	}
	return fd < 0 ? -errno : fd;
}

/* The job wrote or truncated the source under the copy: its size or
 * mtime moved (not ctime, which the job's renames move too). */
static int changed(const struct stat *a, const struct stat *z)
{
	return a->st_size != z->st_size || a->st_mtim.tv_sec != z->st_mtim.tv_sec ||
	       a->st_mtim.tv_nsec != z->st_mtim.tv_nsec;
}

enum { COPY_DONE, COPY_GONE, COPY_CHANGED };

/* The copy of action i: COPY_DONE (it is in place under DIR), COPY_GONE
 * (the source is gone), COPY_CHANGED (the job wrote the source before or
 * during the copy: nothing changed under DIR), or -errno (nothing changed
 * under DIR either). */
static int do_copy(struct rp_burst *b, size_t i)
{
	uint32_t src, file = b->acts[i].file;
	int in = -1, out = -1, pfd = -1, direct = 0, made = 0, rc;
	struct stat st, st2;
	const char *base;
	char tmp[32];

	if (is_stale(b, i))
		return COPY_CHANGED;
	for (int tries = 0; tries < 3; tries++) {	/* a rename may race the open */
		pthread_mutex_lock(&b->mu);
		src = b->acts[i].src;
		pthread_mutex_unlock(&b->mu);
		in = rp_open_beneath(b->fast_fd, rp_file_path(b->l, src), O_RDONLY, 0);
		if (in != -ENOENT)
			break;
		pthread_mutex_lock(&b->mu);
		int moved = b->acts[i].src != src;
		pthread_mutex_unlock(&b->mu);
		if (!moved)
			break;
	}
	if (in == -ENOENT)
		return COPY_GONE;
	if (in < 0)
		return in;
	if (fstat(in, &st)) {
		rc = -errno;
		goto out;
	}
	tmp_name(tmp, sizeof(tmp), file);
	if ((pfd = rp_parent_beneath(b->dir_fd, rp_file_path(b->l, file), 1, &base)) < 0) {
		rc = pfd;
		goto out;
	}
	if ((out = open_tmp(pfd, tmp, &direct)) < 0) {
		rc = out;
		goto out;
	}
	made = 1;
	if (!b->ring_ok) {
		if ((rc = io_uring_queue_init(2 * DR_DEPTH, &b->ring, 0)))
			goto out;
		b->ring_ok = 1;
	}
	rc = copy_uring(b, i, in, out, (uint64_t)st.st_size, direct);
	if (b->ring_bad) {
		io_uring_queue_exit(&b->ring);
		b->ring_ok = b->ring_bad = 0;
	}
	/* a short read (-ESTALE), other times or the hook's word: the job
	 * wrote the file meanwhile, this copy is not one of its versions */
	if (rc == -ESTALE || (!rc && (fstat(in, &st2) || changed(&st, &st2) || is_stale(b, i)))) {
		rc = COPY_CHANGED;
		goto out;
	}
	if (!rc && direct && ftruncate(out, st.st_size))
		rc = -errno;
	if (!rc && fdatasync(out))
		rc = -errno;
	if (close(out) && !rc)
		rc = -errno;
	out = -1;
	if (!rc && renameat(pfd, tmp, pfd, base))
		rc = -errno;
out:
	if (out >= 0)
		close(out);
	if (rc && made)
		unlinkat(pfd, tmp, 0);
	if (pfd >= 0)
		close(pfd);
	close(in);
	return rc;
}

/* The job's rename or unlink, done under DIR too (a file the drain never
 * made there: nothing to do). */
static void do_namespace(struct rp_burst *b, const struct act *a)
{
	const char *b1, *b2;
	int p1 = rp_parent_beneath(b->dir_fd, rp_file_path(b->l, a->file), 0, &b1), p2;

	if (p1 < 0)
		return;
	if (a->kind == ACT_UNLINK) {
		unlinkat(p1, b1, 0);
	} else if ((p2 = rp_parent_beneath(b->dir_fd, rp_file_path(b->l, a->src), 1, &b2)) >= 0) {
		renameat(p1, b1, p2, b2);
		close(p2);
	}
	close(p1);
}

static void *drain_main(void *arg)
{
	struct rp_burst *b = arg;

	pthread_mutex_lock(&b->mu);
	for (;;) {
		while (b->head == b->nacts && !b->closing)
			pthread_cond_wait(&b->cv, &b->mu);
		if (b->head == b->nacts)
			break;
		size_t i = b->head;
		struct act a = b->acts[i];
		pthread_mutex_unlock(&b->mu);
		if (a.kind != ACT_COPY) {
			do_namespace(b, &a);
			pthread_mutex_lock(&b->mu);
			b->head++;
			continue;
		}
		uint64_t t0 = now_ns();
		int rc = do_copy(b, i);
		uint64_t t1 = now_ns();
		pthread_mutex_lock(&b->mu);
		struct rp_burst_ckpt *c = &b->rec[a.rec];
		uint64_t s = t0 - b->base, e = t1 - b->base;
		if (!c->drain_start_ns || s < c->drain_start_ns)
			c->drain_start_ns = s;
		if (e > c->drain_end_ns)
			c->drain_end_ns = e;
		c->drain_ns += t1 - t0;
		if (rc == COPY_CHANGED && superseded(b, i)) {
			c->superseded++;
		} else if (rc == COPY_CHANGED && b->acts[i].tries < DR_TRIES) {
			struct bfile *sf = &b->f[b->acts[i].src];
			if (sf->opens) {	/* at its last close */
				sf->redo = 1;
				sf->redo_act = b->acts[i];
			} else {
				redo(b, &b->acts[i], b->acts[i].src);
			}
		} else if (rc == COPY_GONE) {
			c->gone++;
		} else if (rc < 0 || rc == COPY_CHANGED) {
			if (rc == COPY_CHANGED)	/* changed under each of its copies */
				rc = -ESTALE;
			if (!c->err) {
				c->err = rc;
				c->err_file = a.file;
			}
			if (!b->fail_err) {
				b->fail_err = rc;
				b->fail_file = a.file;
			}
		} else {
			c->drained++;
		}
		b->head++;
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

int rp_burst_start(struct rp_burst *b)
{
	int rc;

	if (!b->drain || b->started)
		return 0;
	if ((rc = pthread_create(&b->th, NULL, drain_main, b)))
		return -rc;
	b->started = 1;
	return 0;
}

int rp_burst_wait(struct rp_burst *b)
{
	uint64_t t0 = now_ns();

	if (!b->started)
		return 0;
	pthread_mutex_lock(&b->mu);
	b->closing = 1;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	pthread_join(b->th, NULL);
	b->started = 0;
	b->wait_ns = now_ns() - t0;
	return 0;
}

const struct rp_burst_ckpt *rp_burst_result(struct rp_burst *b, size_t *n)
{
	/* busy: an earlier checkpoint closed before this one began, and its
	 * drain (queued in order: it ends after its close) ended after */
	for (size_t j = 0; j < b->nrec; j++) {
		struct rp_burst_ckpt *c = &b->rec[j];
		c->busy = 0;
		for (size_t i = 0; b->drain && c->files && i < b->nrec; i++) {
			const struct rp_burst_ckpt *p = &b->rec[i];
			if (i != j && p->files && p->close_ns <= c->start_ns &&
			    (p->drain_end_ns > c->start_ns || !p->drain_end_ns))
				c->busy = 1;
		}
	}
	*n = b->nrec;
	return b->rec;
}

int rp_burst_failed(const struct rp_burst *b, int *err, uint32_t *file)
{
	if (!b->fail_err)
		return 0;
	*err = b->fail_err;
	*file = b->fail_file;
	return 1;
}

void rp_burst_free(struct rp_burst *b)
{
	if (!b)
		return;
	if (b->started)
		rp_burst_wait(b);
	if (b->ring_ok)
		io_uring_queue_exit(&b->ring);
	for (unsigned i = 0; i < DR_DEPTH; i++)
		free(b->bufs[i]);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
	free(b->acts);
	free(b->rec);
	free(b->plan_ckpt);
	free(b->f);
	free(b);
}

/* ------------------------------------------------------------ the report */

/* The figures the report gives: the checkpoints the replay saw, their
 * times summed, the AU of this run and the AU without the burst buffer
 * (each checkpoint's drain time instead of the time the job saw: the job
 * written synchronously to DIR); au_wo < 0 when it cannot be said. */
struct sums {
	size_t n;			/* checkpoints seen */
	uint64_t seen, drain, bytes, extra, drain_end;
	unsigned busy;
	double au, au_wo;
	int au_na;
};

static void sums(struct rp_burst *b, const struct rp_layout *l, const struct rp_result *res,
		 struct sums *s)
{
	size_t n;
	const struct rp_burst_ckpt *c = rp_burst_result(b, &n);
	struct rp_scale st;

	memset(s, 0, sizeof(*s));
	s->au_wo = -1;
	/* the drain's rate over the checkpoints copied whole: what one the
	 * job unlinked first (or whose copy failed) would have cost */
	double db = 0, dns = 0;
	for (size_t i = 0; i < n; i++)
		if (c[i].files && c[i].drained == c[i].files) {
			db += (double)c[i].bytes;
			dns += (double)c[i].drain_ns;
		}
	for (size_t i = 0; i < n; i++) {
		if (!c[i].files)
			continue;
		uint64_t seen = c[i].close_ns - c[i].start_ns, d = c[i].drain_ns;
		s->n++;
		s->seen += seen;
		s->drain += c[i].drain_ns;
		s->bytes += c[i].bytes;
		s->busy += (unsigned)c[i].busy;
		if (c[i].drained != c[i].files && db > 0)
			d = (uint64_t)((double)c[i].bytes * dns / db);
		if (d > seen)
			s->extra += d - seen;
		if (c[i].drain_end_ns > s->drain_end)
			s->drain_end = c[i].drain_end_ns;
	}
	if (rp_scale_stats(res, l, 0, &st))
		return;
	s->au = st.au_min;
	s->au_na = st.au_na;
	if (b->drain && !st.au_na && st.n == 1) {
		const struct rp_scale_acc *a = &st.acc[0];
		uint64_t w = a->wall_ns - a->first_wall_ns;
		if (w)
			s->au_wo = a->au * (double)w / (double)(w + s->extra);
	}
	rp_scale_release(&st);
}

static void fmt_s(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%.3fs", (double)ns / 1e9);
}

void rp_burst_text(FILE *f, struct rp_burst *b, const char *fast, const struct rp_layout *l,
		   const struct rp_result *res)
{
	struct sums s;
	size_t n;
	const struct rp_burst_ckpt *c;
	char b1[32], b2[32], b3[32], b4[32], b5[32];

	sums(b, l, res, &s);
	c = rp_burst_result(b, &n);
	cm_fmt_bytes(b1, sizeof(b1), s.bytes);
	fprintf(f, "\nBurst buffer (%s): %zu checkpoints, %s, %s\n",
		fast ? fast : "", s.n, b1,
		b->drain ? "drained to --dir in the background" : "not drained (no --drain)");
	fprintf(f, "  %4s %10s %10s %11s %5s", "ckpt", "start", "job saw", "bytes", "files");
	if (b->drain)
		fprintf(f, " %10s %10s  %s", "drain", "drained at", "drain running at start");
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		if (!c[i].files)
			continue;
		fmt_s(b1, sizeof(b1), c[i].start_ns);
		cm_fmt_ns(b2, sizeof(b2), c[i].close_ns - c[i].start_ns);
		cm_fmt_bytes(b3, sizeof(b3), c[i].bytes);
		fprintf(f, "  %4zu %10s %10s %11s %5" PRIu64, i + 1, b1, b2, b3, c[i].files);
		if (b->drain) {
			cm_fmt_ns(b4, sizeof(b4), c[i].drain_ns);
			fmt_s(b5, sizeof(b5), c[i].drain_end_ns);
			fprintf(f, " %10s %10s  %s", b4, c[i].drain_end_ns ? b5 : "-",
				c[i].busy ? "yes" : "no");
			if (c[i].gone)
				fprintf(f, " (%" PRIu64 " unlinked by the job before their copy)",
					c[i].gone);
			if (c[i].superseded)
				fprintf(f, " (%" PRIu64 " superseded by a newer version before "
					"their copy ended)", c[i].superseded);
			if (c[i].err)
				fprintf(f, " (copy of %s failed: %s)", rp_file_path(l, c[i].err_file),
					strerror(-c[i].err));
		}
		fputc('\n', f);
	}
	cm_fmt_ns(b1, sizeof(b1), s.seen);
	fprintf(f, "  checkpoints as the job saw them (first write to last close): %s in all\n", b1);
	if (b->drain) {
		cm_fmt_ns(b1, sizeof(b1), s.drain);
		cm_fmt_ns(b2, sizeof(b2), b->wait_ns);
		fprintf(f, "  drains: %s in all; %u checkpoints began while a drain ran; the "
			"replay waited %s after the job's end for the drains to end\n", b1, s.busy, b2);
	}
	if (s.au_na) {
		fprintf(f, "  AU: n/a (the job has no compute)\n");
	} else {
		fprintf(f, "  AU %.1f%% with the burst buffer (this run)", 100 * s.au);
		if (s.au_wo >= 0)
			fprintf(f, ", %.1f%% without it (estimated: each checkpoint's drain time "
				"instead of the time the job saw)\n", 100 * s.au_wo);
		else
			fprintf(f, "; without it: n/a (--drain measures the checkpoints on --dir)\n");
	}
}

static json_t *secs(uint64_t ns)
{
	return json_real((double)ns / 1e9);
}

struct json_t *rp_burst_json(struct rp_burst *b, const char *fast, const struct rp_layout *l,
			     const struct rp_result *res)
{
	struct sums s;
	size_t n;
	const struct rp_burst_ckpt *c;
	json_t *o = json_object(), *a = json_array();

	sums(b, l, res, &s);
	c = rp_burst_result(b, &n);
	for (size_t i = 0; i < n; i++) {
		if (!c[i].files)
			continue;
		json_t *x = json_object();
		json_object_set_new(x, "checkpoint", json_integer((json_int_t)i + 1));
		json_object_set_new(x, "start_s", secs(c[i].start_ns));
		json_object_set_new(x, "seen_s", secs(c[i].close_ns - c[i].start_ns));
		json_object_set_new(x, "bytes", cm_json_u64(c[i].bytes));
		json_object_set_new(x, "files", cm_json_u64(c[i].files));
		if (b->drain) {
			json_object_set_new(x, "drain_s", secs(c[i].drain_ns));
			json_object_set_new(x, "drain_end_s", secs(c[i].drain_end_ns));
			json_object_set_new(x, "drain_running_at_start", json_boolean(c[i].busy));
			json_object_set_new(x, "drained_files", cm_json_u64(c[i].drained));
			json_object_set_new(x, "unlinked_before_drain", cm_json_u64(c[i].gone));
			json_object_set_new(x, "superseded_files", cm_json_u64(c[i].superseded));
			json_object_set_new(x, "drain_error", c[i].err ?
					    cm_json_str(strerror(-c[i].err)) : json_null());
		}
		json_array_append_new(a, x);
	}
	json_object_set_new(o, "dir", cm_json_str(fast ? fast : ""));
	json_object_set_new(o, "drain", json_boolean(b->drain));
	json_object_set_new(o, "checkpoints", a);
	json_object_set_new(o, "seen_s", secs(s.seen));
	json_object_set_new(o, "bytes", cm_json_u64(s.bytes));
	if (b->drain) {
		json_object_set_new(o, "drain_s", secs(s.drain));
		json_object_set_new(o, "drain_running_at_start", json_integer(s.busy));
		json_object_set_new(o, "wait_s", secs(b->wait_ns));
	}
	json_object_set_new(o, "au", s.au_na ? json_null() : json_real(s.au));
	json_object_set_new(o, "au_without_estimate", s.au_wo >= 0 ? json_real(s.au_wo) : json_null());
	return o;
}
