/* SPDX-License-Identifier: MIT */
/*
 * rp_run.c - the replay engine: one thread and one io_uring per thread of
 * the source's layout, fed op by op by the source (replay.h).
 *
 * Each thread issues its ops in the order the source gives them.  A read
 * or write recorded while earlier data ops of the same thread were still
 * in flight (RP_F_OVERLAP: io_uring or AIO in the recording) is issued
 * without waiting for them, up to --iodepth; every other op first waits
 * for the thread's in-flight ops.  Cross-thread order: an op names
 * (thread, sequence) it must follow; each thread publishes how many of
 * its ops of the loop are done, in order (done[], with the loop in the
 * high 32 bits so a waiter never mistakes the last loop's count), and a
 * follower waits for that count (after draining its own ring, so two
 * threads never wait on each other's unreaped completions).
 *
 * Timing (enum rp_timing):
 *   original  op i is issued at T0 + ts_i / speed (absolute, like
 *             btreplay: errors do not accumulate); the issue error is kept;
 *   think     op i is issued (ts_i - recorded end of the thread's previous
 *             ops) * compute_scale / speed after the thread's previous I/O
 *             completed: the accelerator's compute, while I/O takes what
 *             the storage takes; waiting for another thread's op (the
 *             recorded order) overlaps that compute instead of adding to it;
 *             a sleep that wakes late shortens the thread's next ones by
 *             as much, so its compute sums to the recorded;
 *   afap      no delays.
 * Where each file is, the source's directory resolver says (rp_dirs:
 * placements under other DIRs, the data set's copies a loop reads), and
 * it restores the prepared files before each loop; without one, every
 * file is at its path beneath DIR.
 * Opens go through IORING_OP_OPENAT2 with RESOLVE_BENEATH on the fd the
 * resolver gives; unlink, rename and mkdir through the parent fd
 * (rp_parent_beneath).
 * Memory: per thread a ring, its buffers and fixed-size latency
 * histograms; per file one counter; nothing per op.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "replay.h"

#define MAX_HOOKS 8
#define MAX_STALE 1024		/* dir fds kept after a rename, then leaked */

struct inflight {
	uint32_t buf;		/* its buffer, and its index in ifl[] */
	uint32_t order;		/* its place in the thread's order ring */
	uint32_t kind, flags, file;
	uint64_t len;
	uint64_t t_prep, t_sub;
};

struct tctx {
	struct rp_engine *e;
	unsigned idx;
	const struct rp_thread *tp;
	struct rp_job *job;
	struct io_uring ring;
	int ring_ok;
	unsigned depth, inflight;
	struct inflight *ifl;
	uint32_t *freebufs;
	unsigned nfree;
	char **bufs;
	uint64_t buflen;
	/* done in order: the seqs in flight, oldest first (a ring of depth) */
	uint32_t *oseq;
	uint8_t *odone;
	unsigned ohead, on;
	uint32_t taken;		/* ops of the loop done or in flight; the op
				 * being prepared is number taken + 1 */
	uint32_t published;
	unsigned loop;
	size_t lat_budget;	/* 0: latencies are histograms from the start */
	uint64_t last_done;	/* when its latest op completed (CLOCK_MONOTONIC
				 * ns): think time runs from there */
	uint64_t prev_end;	/* recorded end of the loop's ops so far */
	uint64_t late;		/* think: how much its sleeps overran */
	double speed, think;	/* its timing's divisor and gap factor */
};

struct rp_engine {
	struct rp_source *src;
	const struct rp_layout *l;
	struct rp_opts o;
	int dirfd;
	struct rp_dirs dirs;	/* the source's resolver, or DIR's (plain_*) */
	struct rp_hooks hooks[MAX_HOOKS];
	unsigned nhooks;
	unsigned op_hooks;	/* of those, with an op hook */
	size_t n;		/* threads */
	struct tctx *ctx;
	pthread_t *th;
	_Atomic int *slot_fd;
	_Atomic uint32_t *slot_oflags;
	_Atomic int *dir_fd;	/* per layout dir, -1 not open (parent_fd) */
	int stale[MAX_STALE];	/* dir fds dropped by dirs_moved(), under mu */
	unsigned nstale;
	_Atomic uint64_t *done;	/* per thread: loop << 32 | ops done in order */
	_Atomic uint32_t *waiters;/* per thread: threads waiting on it */
	_Atomic uint64_t *file_bytes;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_barrier_t bar;
	int go, abort;		/* the start gate (under mu) */
	uint64_t t0;		/* start of the current loop */
	uint64_t start;		/* start of the first loop */
	uint64_t deadline;	/* start + the source's runtime_ns (0: none):
				 * no op starts past it */
	int quit;		/* stop after this loop (set by the serial thread) */
	_Atomic uint64_t ops_done;
	_Atomic int finished;
	_Atomic int src_err;	/* the source failed: no more loops */
	uint64_t implicit_opens;
	struct rp_result res;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sleep until t (CLOCK_MONOTONIC ns).  The last SPIN_NS are spent
 * polling the clock: a timer wake-up in a VM is often late by hundreds of
 * microseconds, a poll is not. */
#define SPIN_NS 100000ull

static void sleep_until(uint64_t t)
{
	uint64_t now = now_ns();

	if (t > now + SPIN_NS) {
		uint64_t w = t - SPIN_NS;
		struct timespec ts = { (time_t)(w / 1000000000ull), (long)(w % 1000000000ull) };

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	while (now_ns() < t)
		;
}

static void lat_add(struct tctx *c, struct cm_lat *l, uint64_t v)
{
	cm_lat_add(l, v, &c->lat_budget);	/* a failure is counted in l */
}

/* The fd file f is resolved beneath, and (path) its path there. */
static int file_at(const struct rp_engine *e, uint32_t f, const char **path, char *buf,
		   size_t len)
{
	return e->dirs.file(e->dirs.arg, f, path, buf, len);
}

static int file_dirfd(const struct rp_engine *e, uint32_t f)
{
	return file_at(e, f, NULL, NULL, 0);
}

/* The fd layout dir d is resolved beneath. */
static int dir_dirfd(const struct rp_engine *e, uint32_t d)
{
	return e->dirs.dir(e->dirs.arg, d);
}

/* Without a resolver: every file at its path beneath DIR; the loops
 * restore DIR (not as holes: a caller that prepared holes sets one). */
static int plain_file(void *arg, uint32_t f, const char **path, char *buf, size_t len)
{
	const struct rp_engine *e = arg;

	(void)buf, (void)len;
	if (path)
		*path = rp_file_path(e->l, f);
	return e->dirfd;
}

static int plain_dir(void *arg, uint32_t d)
{
	const struct rp_engine *e = arg;

	(void)d;
	return e->dirfd;
}

static int plain_via(void *arg, uint32_t f, uint32_t g)
{
	(void)arg, (void)f, (void)g;
	return 1;
}

static int plain_loop(void *arg, unsigned loop)
{
	const struct rp_engine *e = arg;

	if (!loop && rp_take_prepared(e->dirfd))
		return 1;
	rp_restore(e->dirfd, e->l, 0);
	return 0;
}

/* An op of kind on file failed in the replay with -errno err (or was not
 * issued: its fd's open had failed, err -EBADF). */
static void op_error(struct tctx *c, unsigned kind, uint32_t file, int err)
{
	struct rp_job *j = c->job;

	j->errors++;
	if (!j->first_error)
		j->first_error = err;
	if (kind >= RP_KIND_MAX)
		kind = 0;
	if (!j->failed[kind]++)
		j->first_fail[kind] = (struct rp_failure){ err, file, now_ns() };
}

/* ------------------------------------------------------- order, waits */

/* Publish how many of the thread's ops of the loop are done in order:
 * those before the oldest in flight, or all taken. */
static void publish(struct tctx *c)
{
	struct rp_engine *e = c->e;
	uint32_t p = c->on ? c->oseq[c->ohead] - 1 : c->taken;

	if (p == c->published)
		return;
	c->published = p;
	atomic_store(&e->done[c->idx], (uint64_t)c->loop << 32 | p);
	if (atomic_load(&e->waiters[c->idx])) {
		pthread_mutex_lock(&e->mu);
		pthread_cond_broadcast(&e->cv);
		pthread_mutex_unlock(&e->mu);
	}
}

/* The op hooks, for an op done (res: bytes or -errno; lat: issue to
 * completion). */
static void tell_hooks(struct tctx *c, uint32_t kind, uint32_t flags, uint32_t file,
		       uint32_t file2, int64_t res, uint64_t lat, uint64_t clat)
{
	struct rp_engine *e = c->e;
	struct rp_op_done d = {
		.thread = c->idx, .kind = kind, .flags = flags, .file = file, .file2 = file2,
		.res = res, .lat_ns = lat, .clat_ns = clat,
		.compute_ns = c->job->compute_ns, .elapsed_ns = now_ns() - e->start,
	};

	for (unsigned h = 0; h < e->nhooks; h++)
		if (e->hooks[h].op)
			e->hooks[h].op(e->hooks[h].arg, &d);
}

/* The thread's current op is done: a synchronous one, or a data op not
 * issued (complete() does the issued ones); the hooks are told of it. */
static void op_done(struct tctx *c, const struct rp_op *op, int64_t res, uint64_t lat)
{
	if (c->e->op_hooks)
		tell_hooks(c, op->kind, op->flags, op->file,
			   op->kind == CM_RENAME ? op->file2 : RP_NO_FILE, res, lat, lat);
	c->taken++;
	atomic_fetch_add_explicit(&c->e->ops_done, 1, memory_order_relaxed);
	publish(c);
}

static int dir_of(unsigned kind)
{
	return kind == CM_READ ? 0 : kind == CM_WRITE ? 1 : 2;
}

/* Account one completed ring op. */
static void complete(struct tctx *c, struct inflight *f, int res, uint64_t t)
{
	struct rp_engine *e = c->e;
	struct rp_dir_stats *d = &c->job->d[dir_of(f->kind)];

	if (res < 0) {
		op_error(c, f->kind, f->file, res);
	} else {
		d->ios++;
		d->bytes += (uint64_t)res;
		if ((uint64_t)res < f->len)
			d->short_ios++;
		lat_add(c, &d->clat, t - f->t_sub);
		lat_add(c, &d->lat, t - f->t_prep);
		atomic_fetch_add_explicit(&e->file_bytes[f->file], (uint64_t)res,
					  memory_order_relaxed);
		if (f->flags & RP_F_FAULT)
			c->job->fault_reads++;
		c->job->done[f->kind]++;
	}
	if (t > c->last_done)
		c->last_done = t;
	/* out of the order ring: the oldest done ones leave it */
	c->odone[f->order] = 1;
	while (c->on && c->odone[c->ohead]) {
		c->odone[c->ohead] = 0;
		c->ohead = (c->ohead + 1) % c->depth;
		c->on--;
	}
	if (e->op_hooks)
		tell_hooks(c, f->kind, f->flags, f->file, RP_NO_FILE, res, t - f->t_prep,
			   t - f->t_sub);
	atomic_fetch_add_explicit(&e->ops_done, 1, memory_order_relaxed);
	publish(c);
}

static void reap_one(struct tctx *c)
{
	struct io_uring_cqe *cqe;
	int rc;

	do
		rc = io_uring_wait_cqe(&c->ring, &cqe);
	while (rc == -EINTR);
	if (rc < 0) {
		op_error(c, 0, 0, rc);	/* the ring, no op of its own */
		c->inflight = 0;	/* ring broken: give up on them */
		c->on = 0;
		publish(c);
		return;
	}
	uint64_t t = now_ns();
	struct inflight *f = &c->ifl[cqe->user_data];
	int res = cqe->res;

	io_uring_cqe_seen(&c->ring, cqe);
	c->freebufs[c->nfree++] = f->buf;
	c->inflight--;
	complete(c, f, res, t);
}

static void drain(struct tctx *c)
{
	while (c->inflight)
		reap_one(c);
}

static void wait_dep(struct tctx *c, const struct rp_op *op)
{
	struct rp_engine *e = c->e;
	uint64_t want = (uint64_t)c->loop << 32 | op->dep_seq;
	unsigned d = op->dep_thread;

	if (!op->dep_seq || d >= e->n || atomic_load(&e->done[d]) >= want)
		return;
	drain(c);
	atomic_fetch_add(&e->waiters[d], 1);
	pthread_mutex_lock(&e->mu);
	while (atomic_load(&e->done[d]) < want && !atomic_load(&e->src_err))
		pthread_cond_wait(&e->cv, &e->mu);
	pthread_mutex_unlock(&e->mu);
	atomic_fetch_sub(&e->waiters[d], 1);
}

/* ------------------------------------------------------------- ops */

/* Submit one SQE prepared by the caller and wait for its completion. */
static int submit_wait(struct tctx *c, struct io_uring_sqe *sqe, uint64_t *t_sub,
		       uint64_t *t_done)
{
	struct io_uring_cqe *cqe;
	int rc;

	sqe->user_data = UINT64_MAX;
	*t_sub = now_ns();
	rc = io_uring_submit(&c->ring);
	if (rc < 0)
		return rc;
	do
		rc = io_uring_wait_cqe(&c->ring, &cqe);
	while (rc == -EINTR);
	if (rc < 0)
		return rc;
	*t_done = now_ns();
	rc = cqe->res;
	io_uring_cqe_seen(&c->ring, cqe);
	return rc;
}

static struct io_uring_sqe *get_sqe(struct tctx *c)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);

	if (!sqe) {
		io_uring_submit(&c->ring);
		sqe = io_uring_get_sqe(&c->ring);
	}
	return sqe;
}

/* ------------------------------------------------------- directories */

/*
 * The fd of the directory file is created, unlinked or renamed in, and in
 * *base its last component: DIR's own fd, or the layout dir's, opened
 * beneath DIR once and kept (the job resolves its directories once, in
 * the kernel's dentry cache; the replay must not add an openat per op).
 * Opened at loop setup when there, else at first use (a directory the job
 * makes).  *own is set when the fd is the op's own (a directory the
 * source did not note): parent_put() closes it.  -errno when the
 * directory is not there.
 */
static int parent_fd(struct rp_engine *e, uint32_t file, const char **base, int *own)
{
	const struct rp_layout *l = e->l;
	const char *rel = rp_file_path(l, file), *slash = strrchr(rel, '/');
	uint32_t d = l->files[file].dir;
	int fd, old = -1;

	*own = 0;
	*base = slash ? slash + 1 : rel;
	if (!slash)
		return file_dirfd(e, file);
	if (d == RP_NO_DIR) {	/* not noted by the source (or resolved apart
				 * from its dir): resolve it now */
		*own = 1;
		return rp_parent_beneath(file_dirfd(e, file), rel, 0, base);
	}
	if ((fd = atomic_load(&e->dir_fd[d])) >= 0)
		return fd;
	fd = rp_open_beneath(dir_dirfd(e, d), cm_strtab_str(&l->dirs, d), O_PATH | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	if (!atomic_compare_exchange_strong(&e->dir_fd[d], &old, fd)) {
		close(fd);	/* another thread's open won */
		return old;
	}
	return fd;
}

static void parent_put(int fd, int own)
{
	if (own && fd >= 0)
		close(fd);
}

/*
 * file was just unlinked or renamed: if it is one of the layout's
 * directories (or holds some), their kept fds name what is no longer at
 * those paths, and are dropped (opened again at their next use).  Not
 * closed: another thread may be about to use one; they are closed with
 * the engine.
 */
static void dirs_moved(struct rp_engine *e, uint32_t file)
{
	const struct rp_layout *l = e->l;
	const char *p = rp_file_path(l, file);
	size_t n = strlen(p);

	if (!l->files[file].isdir && !l->files[file].made_dir &&
	    cm_strtab_find(&l->dirs, p, &(uint32_t){ 0 }))
		return;	/* a file: the usual case */
	pthread_mutex_lock(&e->mu);
	for (uint32_t d = 0; d < cm_strtab_count(&l->dirs); d++) {
		const char *q = cm_strtab_str(&l->dirs, d);
		int fd;
		if (strncmp(q, p, n) || (q[n] && q[n] != '/'))
			continue;
		if ((fd = atomic_exchange(&e->dir_fd[d], -1)) >= 0 && e->nstale < MAX_STALE)
			e->stale[e->nstale++] = fd;
	}
	pthread_mutex_unlock(&e->mu);
}

/*
 * A page-fault read's slot (opened before the clock, struct rp_slot0) that
 * could not be opened then: the mapping of a file the job makes during
 * the loop (written, then mapped), which is not there until the job's
 * create.  Opened at its first fault instead, once (another thread's
 * open may win).  The fd, or -1.
 */
static int fault_slot_open(struct rp_engine *e, const struct rp_op *op)
{
	char cpath[4096 + 32];
	const char *path;
	int fd = file_at(e, op->file, &path, cpath, sizeof(cpath)), old = -1;

	fd = rp_open_beneath(fd, path, (int)atomic_load(&e->slot_oflags[op->slot]), 0644);
	if (fd < 0)
		return -1;
	if (!atomic_compare_exchange_strong(&e->slot_fd[op->slot], &old, fd)) {
		close(fd);
		return old;
	}
	return fd;
}

/*
 * Whether an open is made by the path the job opened (RP_F_VIA: through
 * its symlinks, which prepare made under DIR) rather than by its file's
 * own path: where the resolver says the link leads to the file.
 */
static int via_open(const struct rp_engine *e, const struct rp_op *op)
{
	return (op->flags & RP_F_VIA) && op->file2 < e->l->nfiles &&
	       e->dirs.via(e->dirs.arg, op->file, op->file2);
}

static void do_data(struct tctx *c, const struct rp_op *op, uint64_t t_prep)
{
	struct rp_engine *e = c->e;
	int fd = atomic_load(&e->slot_fd[op->slot]);
	uint64_t off = op->off, len = op->len;
	struct rp_dir_stats *d = &c->job->d[dir_of(op->kind)];
	struct io_uring_sqe *sqe;
	struct inflight *f;

	if (fd < 0 && (op->flags & RP_F_FAULT))
		fd = fault_slot_open(e, op);
	if (fd < 0) {
		d->drop_ios++;	/* its open failed */
		op_error(c, op->kind, op->file, -EBADF);
		op_done(c, op, -EBADF, 0);
		return;
	}
	if (atomic_load(&e->slot_oflags[op->slot]) & O_DIRECT) {
		uint64_t a = off & ~(uint64_t)(RP_ALIGN - 1);
		uint64_t b = (off + len + RP_ALIGN - 1) & ~(uint64_t)(RP_ALIGN - 1);
		if (b == a)
			b = a + RP_ALIGN;
		if (a != off || b - a != len)
			c->job->adjusted++;
		off = a;
		len = b - a;
	}
	if (len > c->buflen)
		len = c->buflen;	/* cannot happen: buffers fit maxlen */
	/* no more in flight than the recording had, nor than --iodepth */
	while (c->inflight && (c->inflight >= c->depth || c->inflight >= op->conc))
		reap_one(c);
	sqe = get_sqe(c);
	f = &c->ifl[c->freebufs[--c->nfree]];
	f->buf = (uint32_t)(f - c->ifl);
	f->kind = op->kind;
	f->flags = op->flags;
	f->file = op->file;
	f->len = len;
	f->t_prep = t_prep;
	if (op->kind == CM_READ)
		io_uring_prep_read(sqe, fd, c->bufs[f->buf], (unsigned)len, off);
	else
		io_uring_prep_write(sqe, fd, c->bufs[f->buf], (unsigned)len, off);
	sqe->user_data = f->buf;
	f->t_sub = now_ns();
	if (io_uring_submit(&c->ring) < 0) {
		int rc = -errno;
		op_error(c, op->kind, op->file, rc);
		c->freebufs[c->nfree++] = f->buf;
		op_done(c, op, rc, 0);
		return;
	}
	f->order = (c->ohead + c->on) % c->depth;
	c->oseq[f->order] = ++c->taken;
	c->odone[f->order] = 0;
	c->on++;
	c->inflight++;
}

/*
 * A metadata op, by plain system call (io_uring's statx would leave a
 * recording of the replay without the path it was on): by path, one call
 * relative to DIR, as the job's walked its path (no fd of the directory:
 * a failed lookup fails the same way, where its directory is missing
 * too); statx and faccessat2 never follow the last component (what
 * prepare makes never is a symlink).  Or on a slot's fd: statx or
 * faccessat2 with AT_EMPTY_PATH, getdents64 into a buffer of the recorded
 * size.  0 or -errno.
 */
static int do_meta(struct tctx *c, const struct rp_op *op)
{
	struct rp_engine *e = c->e;
	char cpath[4096 + 32];
	const char *p = "";
	struct statx stx;
	int fd = e->dirfd, at = AT_EMPTY_PATH;
	long rc;

	if (op->slot != RP_NO_SLOT) {
		if ((fd = atomic_load(&e->slot_fd[op->slot])) < 0)
			return -EBADF;	/* its open failed */
	} else if (via_open(e, op)) {	/* through the job's link */
		p = rp_file_path(e->l, op->file2);
		at = (int)op->oflags;
		fd = file_dirfd(e, op->file2);
	} else {
		at = (int)op->oflags;
		fd = file_at(e, op->file, &p, cpath, sizeof(cpath));
	}
	switch (op->kind) {
	case CM_GETDENTS:
		rc = syscall(SYS_getdents64, fd, c->bufs[0], op->len < c->buflen ? op->len : c->buflen);
		break;
	case CM_ACCESS:
		rc = syscall(SYS_faccessat2, fd, p, (int)op->len, at);
		break;
	case CM_READLINK:
		rc = readlinkat(fd, p, c->bufs[0], op->len < c->buflen ? op->len : c->buflen);
		break;
	default:
		rc = statx(fd, p, at, STATX_BASIC_STATS, &stx);
		break;
	}
	return rc < 0 ? -errno : 0;
}

/* An open, on the op's slot: 0 or -errno. */
static int do_open(struct tctx *c, const struct rp_op *op)
{
	struct rp_engine *e = c->e;
	struct open_how how = {
		.flags = op->oflags | O_CLOEXEC,
		.mode = (op->oflags & O_CREAT) ? 0644 : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	uint64_t t_sub, t_done;
	const char *base;
	char cpath[4096 + 32];
	int rc, fd, own = 0, pfd = file_at(e, op->file, &base, cpath, sizeof(cpath));

	if (via_open(e, op)) {
		/* the path the job opened, through its symlinks as prepare
		 * made them (beneath DIR, create included) */
		base = rp_file_path(e->l, op->file2);
	} else if ((op->oflags & O_CREAT) &&
		   (pfd = parent_fd(e, op->file, &base, &own)) < 0) {
		/* a create goes through its directory's fd (made by prepare
		 * or by the job's mkdir, which it follows) */
		return pfd;
	}
	/* a lookup beneath DIR that meets ".." fails with EAGAIN when any
	 * rename or mount ran beside it: openat2(2) says to try again */
	for (int i = 0;; ) {
		struct io_uring_sqe *sqe = get_sqe(c);

		io_uring_prep_openat2(sqe, pfd, base, &how);
		rc = submit_wait(c, sqe, &t_sub, &t_done);
		if (rc != -EAGAIN || !rp_eagain_again(++i))
			break;
	}
	parent_put(pfd, own);
	if (rc < 0)
		return rc;
	atomic_store(&e->slot_oflags[op->slot], op->oflags);
	fd = atomic_exchange(&e->slot_fd[op->slot], rc);
	if (fd >= 0)
		close(fd);	/* a previous loop left it open */
	return 0;
}

/* A dup: a new fd on the slot2's open file, as the job's. 0 or -errno. */
static int do_dup(struct rp_engine *e, const struct rp_op *op)
{
	int rc, fd = atomic_load(&e->slot_fd[op->slot2]);

	if (fd < 0)
		return -EBADF;	/* its open failed */
	if ((rc = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return -errno;
	atomic_store(&e->slot_oflags[op->slot], atomic_load(&e->slot_oflags[op->slot2]));
	fd = atomic_exchange(&e->slot_fd[op->slot], rc);
	if (fd >= 0)
		close(fd);	/* a previous loop left it open */
	return 0;
}

/* An unlink (a rmdir), a mkdir or a rename in DIR's tree: 0 or -errno. */
static int do_names(struct tctx *c, const struct rp_op *op)
{
	struct rp_engine *e = c->e;
	int rc, pfd, pfd2, own = 0, own2 = 0;
	const char *base, *base2;

	if (op->kind == CM_RENAME) {
		pfd = parent_fd(e, op->file, &base, &own);
		pfd2 = parent_fd(e, op->file2, &base2, &own2);
		if (pfd < 0 || pfd2 < 0)
			rc = pfd < 0 ? pfd : pfd2;
		else
			rc = renameat(pfd, base, pfd2, base2) ? -errno : 0;
		parent_put(pfd, own);
		parent_put(pfd2, own2);
		if (!rc) {
			dirs_moved(e, op->file);
			dirs_moved(e, op->file2);
		}
		return rc;
	}
	if ((pfd = parent_fd(e, op->file, &base, &own)) < 0)
		return pfd;
	if (op->kind == CM_UNLINK)	/* oflags: AT_REMOVEDIR for a rmdir */
		rc = unlinkat(pfd, base, (int)op->oflags) ? -errno : 0;
	else if (mkdirat(pfd, base, 0755) == 0)
		rc = 0;
	else if (errno == EEXIST)	/* done all the same, and counted */
		rc = 0, c->job->mkdir_existed++;
	else
		rc = -errno;
	parent_put(pfd, own);
	if (!rc && op->kind == CM_UNLINK)
		dirs_moved(e, op->file);
	return rc;
}

static void do_other(struct tctx *c, const struct rp_op *op, uint64_t t_prep)
{
	struct rp_engine *e = c->e;
	struct io_uring_sqe *sqe;
	uint64_t t_sub = t_prep, t_done;
	int rc = 0, fd;

	switch (op->kind) {
	case CM_OPEN:
		rc = do_open(c, op);
		break;
	case CM_DUP:
		rc = do_dup(e, op);
		break;
	case CM_CLOSE:
		fd = atomic_exchange(&e->slot_fd[op->slot], -1);
		if (fd < 0) {
			rc = -EBADF;
			break;
		}
		sqe = get_sqe(c);
		io_uring_prep_close(sqe, fd);
		rc = submit_wait(c, sqe, &t_sub, &t_done);
		break;
	case CM_FSYNC:
	case CM_FDATASYNC:
		fd = atomic_load(&e->slot_fd[op->slot]);
		if (fd < 0) {
			c->job->d[2].drop_ios++;
			op_error(c, op->kind, op->file, -EBADF);
			op_done(c, op, -EBADF, 0);
			return;
		}
		sqe = get_sqe(c);
		io_uring_prep_fsync(sqe, fd, op->kind == CM_FDATASYNC ? IORING_FSYNC_DATASYNC : 0);
		rc = submit_wait(c, sqe, &t_sub, &t_done);
		if (rc >= 0) {
			struct rp_dir_stats *d = &c->job->d[2];
			d->ios++;
			lat_add(c, &d->clat, t_done - t_sub);
			lat_add(c, &d->lat, t_done - t_prep);
		}
		break;
	case CM_UNLINK:
	case CM_MKDIR:
	case CM_RENAME:
		rc = do_names(c, op);
		break;
	}
	if (cm_kind_is_meta(op->kind)) {
		rc = do_meta(c, op);
		if (op->flags & RP_F_FAILED) {	/* it should fail, as recorded */
			if (rc >= 0)
				c->job->meta_unlike++;
			rc = 0;
		}
	}
	c->last_done = now_ns();
	if (rc < 0 && (op->flags & RP_F_ABSENT)) {
		c->job->absent++;	/* expected: see RP_F_ABSENT */
		rc = 0;
	}
	if (rc < 0)
		op_error(c, op->kind, op->file, rc);
	else
		c->job->done[op->kind]++;
	op_done(c, op, rc < 0 ? rc : 0, c->last_done - t_prep);
}

/* ------------------------------------------------------------- loops */

/* (Re)open the fds of the layout's directories that are there (those the
 * job makes are opened at their first use), no thread running. */
static void dirs_open(struct rp_engine *e)
{
	const struct rp_layout *l = e->l;

	for (unsigned i = 0; i < e->nstale; i++)
		close(e->stale[i]);
	e->nstale = 0;
	for (uint32_t d = 0; d < cm_strtab_count(&l->dirs); d++) {
		int fd = atomic_exchange(&e->dir_fd[d], -1);
		if (fd >= 0)
			close(fd);
		if (l->dir_made[d])
			continue;
		fd = rp_open_beneath(dir_dirfd(e, d), cm_strtab_str(&l->dirs, d), O_PATH | O_DIRECTORY,
				     0);
		if (fd == -EMFILE || fd == -ENFILE)
			break;	/* the rest at their first use, each for its op */
		if (fd >= 0)
			atomic_store(&e->dir_fd[d], fd);
	}
}

/* Close what the previous loop left open and open the slots used without
 * a recorded open, before the clock starts.  rp_engine_run before the
 * threads start (the first loop), then the serial thread only. */
static void loop_setup(struct rp_engine *e, unsigned loop)
{
	const struct rp_layout *l = e->l;
	char cpath[4096 + 32];
	int clean;

	/* every loop starts from the prepared state: files a previous loop
	 * (or replay: --no-prepare) changed are put back (the resolver's
	 * loop), and what the job made with O_EXCL must not be there.  Right
	 * after prepare, that is the state already: a recording of the replay
	 * sees only the job's ops on DIR. */
	clean = e->dirs.loop(e->dirs.arg, loop);
	for (uint32_t f = 0; !clean && f < l->nfiles; f++) {
		const char *base;
		int pfd;
		if (!l->files[f].excl)
			continue;
		if ((pfd = rp_parent_beneath(file_dirfd(e, f), rp_file_path(l, f), 0, &base)) >= 0) {
			unlinkat(pfd, base, 0);
			close(pfd);
		}
	}
	for (size_t s = 0; s < l->nslots; s++) {
		int fd = atomic_exchange(&e->slot_fd[s], -1);
		if (fd >= 0)
			close(fd);
	}
	dirs_open(e);
	for (size_t i = 0; i < l->nslot0; i++) {
		const struct rp_slot0 *s = &l->slot0[i];
		const char *path;
		int fd = file_at(e, s->file, &path, cpath, sizeof(cpath));

		fd = rp_open_beneath(fd, path, (int)s->oflags, 0644);
		atomic_store(&e->slot_oflags[s->slot], s->oflags);
		if (fd >= 0) {
			atomic_store(&e->slot_fd[s->slot], fd);
			if (!loop)
				e->implicit_opens++;
		}
	}
	for (unsigned h = 0; h < e->nhooks; h++)
		if (e->hooks[h].loop_start)
			e->hooks[h].loop_start(e->hooks[h].arg, loop);
}

/* Whether t is past the run's bound (the source's runtime_ns). */
static int past_deadline(const struct rp_engine *e, uint64_t t)
{
	return e->deadline && t >= e->deadline;
}

/* Sleep until t, or until the run's deadline when that comes first:
 * 1 then (no op starts past it), else 0. */
static int sleep_bounded(const struct rp_engine *e, uint64_t t)
{
	if (past_deadline(e, t)) {
		sleep_until(e->deadline);
		return 1;
	}
	sleep_until(t);
	return 0;
}

/* The compute of d ns that ends at t, as far as it ran before the run's
 * deadline. */
static uint64_t compute_before(const struct rp_engine *e, uint64_t d, uint64_t t)
{
	uint64_t dl = e->deadline;

	if (!past_deadline(e, t))
		return d;
	return t - dl < d ? d - (t - dl) : 0;
}

/* Original timing: op is issued at its recorded start (target). */
static int time_original(struct tctx *c, const struct rp_op *op, uint64_t *target)
{
	struct rp_engine *e = c->e;

	*target = e->t0 + (uint64_t)((double)op->ts / c->speed);
	if (op->ts > c->prev_end + op->wait) {
		uint64_t d = (uint64_t)((double)(op->ts - c->prev_end - op->wait) / c->speed);
		d = compute_before(e, d, *target);
		c->job->compute_ns += d;
		c->job->worked_ns += d;
	}
	return now_ns() < *target ? sleep_bounded(e, *target) : 0;
}

/*
 * Think timing: the gap less its recorded wait for another thread, which
 * the dependency stands for.  The compute runs from the previous op's
 * completion (io_done, or last_done when earlier): the engine's own work
 * since (its bookkeeping, taking the next op) is part of it, not added to
 * it.  Whatever ends past its target (that work, a sleep that woke late
 * on a busy CPU, a wait for another thread: dep_done) is taken off the
 * next ones: the thread's compute sums to the recorded.  1 when the
 * run's deadline came first.
 */
static int time_think(struct tctx *c, const struct rp_op *op, uint64_t io_done,
		      uint64_t dep_done)
{
	uint64_t delay = (uint64_t)((double)(op->ts - c->prev_end - op->wait) * c->think);
	int cut;

	if (!delay)
		return 0;
	uint64_t base = c->last_done && c->last_done < io_done ? c->last_done : io_done;
	uint64_t want = delay > c->late ? delay - c->late : 0;
	c->late -= delay - want;
	uint64_t t = now_ns();
	cut = past_deadline(c->e, base + want);
	if (t < base + want) {
		sleep_bounded(c->e, base + want);
		t = now_ns();
	}
	if (cut) {	/* its compute up to the deadline, the op not issued */
		uint64_t dl = c->e->deadline, ran = dl > base ? dl - base : 0;
		c->job->compute_ns += ran < delay ? ran : delay;
		c->job->worked_ns += (t > base ? t - base : 0);
		return 1;
	}
	if (t > base + want && t > dep_done)
		c->late += t - (base + want > dep_done ? base + want : dep_done);
	c->job->compute_ns += delay;
	/* what it spent computing, as DLIO times its compute: from its start
	 * to the end of the sleep (an overrun too), or to the target when it
	 * then waited for another thread */
	c->job->worked_ns += (dep_done > base + want ? base + want : t) - base;
	return 0;
}

/* An op that is not issued (RP_F_SKIP, RP_F_STEP): its place and timing
 * only. */
static void placeholder(struct tctx *c, const struct rp_op *op)
{
	struct rp_engine *e = c->e;

	if ((op->flags & RP_F_SKIP) && op->kind < RP_KIND_MAX)
		c->job->unissued[op->kind]++;
	c->last_done = now_ns();
	if ((op->flags & RP_F_EPOCH) && op->off < e->l->nmarks && c->job->marks) {
		c->job->marks[2 * op->off] = c->last_done - e->start;
		c->job->marks[2 * op->off + 1] = c->job->worked_ns;
	}
	if ((op->flags & RP_F_MARK) && !c->job->mark_ns) {	/* warm-up over */
		c->job->mark_ns = c->last_done - e->start;
		c->job->mark_compute_ns = c->job->compute_ns;
	}
	op_done(c, op, 0, 0);
}

/* Thread c's loop is over (rc: the source's last answer): whatever another
 * thread waits for of it is too (a source may end a loop early:
 * --runtime). */
static void loop_over(struct tctx *c, int rc)
{
	struct rp_engine *e = c->e;

	drain(c);
	atomic_store(&e->done[c->idx], (uint64_t)c->loop << 32 | UINT32_MAX);
	if (atomic_load(&e->waiters[c->idx])) {
		pthread_mutex_lock(&e->mu);
		pthread_cond_broadcast(&e->cv);
		pthread_mutex_unlock(&e->mu);
	}
	if (rc < 0) {
		atomic_store(&e->src_err, rc);
		pthread_mutex_lock(&e->mu);	/* waiters give up */
		pthread_cond_broadcast(&e->cv);
		pthread_mutex_unlock(&e->mu);
	}
	c->job->wall_ns = now_ns() - e->start;
}

/*
 * One loop of thread c: take ops from the source until its loop ends.
 * An op whose start (its timing, its waits) falls past the run's
 * deadline (its start + rp_source.runtime_ns) is not issued nor counted:
 * the source hands out no more after it, and no sleep runs past it.
 */
static void run_loop(struct tctx *c)
{
	struct rp_engine *e = c->e;
	const struct rp_opts *o = &e->o;
	struct rp_op op;
	int rc;

	c->speed = o->speed > 0 ? o->speed : 1.0;
	c->think = o->compute_scale / c->speed;
	if (c->tp->loader && o->loader_scale > 0)
		c->think /= o->loader_scale;	/* --loader-cpu-scale */
	c->prev_end = 0;	/* recorded end of the thread's previous ops */
	c->late = 0;		/* think: how much the thread's sleeps overran */
	c->last_done = 0;	/* the loop's first compute runs from its start */
	while ((rc = e->src->ops->next(e->src, c->idx, &op)) == 1) {
		int data = op.kind == CM_READ || op.kind == CM_WRITE;
		int overlap = data && (op.flags & RP_F_OVERLAP) && c->depth > 1;
		uint64_t target = 0;
		int cut = 0;

		if (!overlap)
			drain(c);
		/* the thread's previous I/O is over: its compute starts now,
		 * and a wait for another thread overlaps it */
		uint64_t io_done = now_ns();
		wait_dep(c, &op);
		/* a hand-over: the time the thread waited for the other's data
		 * is its stall, not made up for by later compute; and so is a
		 * wait before the thread's first op (its process or thread was
		 * not there yet: a DataLoader worker the trainer forks later) */
		uint64_t dep_done = (op.flags & RP_F_HANDOVER) || !c->taken ? now_ns() : 0;
		if (o->timing == RP_TIME_ORIGINAL)
			cut = time_original(c, &op, &target);
		else if (o->timing == RP_TIME_THINK && !overlap && op.ts > c->prev_end + op.wait)
			cut = time_think(c, &op, io_done, dep_done);
		uint64_t t_prep = now_ns();
		if (cut || past_deadline(e, t_prep))
			continue;	/* the source stops here (its next: 0) */
		if (op.flags & (RP_F_SKIP | RP_F_STEP)) {
			placeholder(c, &op);
		} else {
			if ((op.flags & RP_F_MARK) && !c->job->mark_ns) {	/* warm-up over */
				c->job->mark_ns = t_prep - e->start;
				c->job->mark_compute_ns = c->job->compute_ns;
			}
			if (o->timing == RP_TIME_ORIGINAL)
				lat_add(c, &c->job->terr, t_prep > target ? t_prep - target : 0);
			if (data)
				do_data(c, &op, t_prep);
			else
				do_other(c, &op, t_prep);
		}
		if (op.end > c->prev_end)
			c->prev_end = op.end;
	}
	loop_over(c, rc);
}

static void *thread_main(void *arg)
{
	struct tctx *c = arg;
	struct rp_engine *e = c->e;

	pthread_mutex_lock(&e->mu);
	while (!e->go)
		pthread_cond_wait(&e->cv, &e->mu);
	pthread_mutex_unlock(&e->mu);
	if (e->abort)
		return NULL;
	prctl(PR_SET_TIMERSLACK, 1UL);	/* wake at the target, not 50us later */
	if (e->o.timing == RP_TIME_ORIGINAL) {
		/* best effort (root): a busy machine must not delay issue
		 * times; the spin in sleep_until() is bounded, and the
		 * kernel's RT throttling keeps the rest of the system alive */
		struct sched_param sp = { .sched_priority = 1 };
		if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0)
			c->job->realtime = 1;
	}
	for (unsigned loop = 0; loop < e->o.loops; loop++) {
		if (pthread_barrier_wait(&e->bar) == PTHREAD_BARRIER_SERIAL_THREAD) {
			e->quit = atomic_load(&e->src_err) != 0;
			if (loop && !e->quit)	/* the first: rp_engine_run */
				loop_setup(e, loop);
			e->t0 = now_ns();
			if (!loop) {
				e->start = e->t0;
				e->deadline = e->src->runtime_ns ?
					      e->start + e->src->runtime_ns : 0;
			}
		}
		pthread_barrier_wait(&e->bar);
		if (e->quit)
			break;
		if (loop && e->src->ops->rewind &&
		    (atomic_load(&e->src_err) || e->src->ops->rewind(e->src, c->idx, loop)))
			atomic_store(&e->src_err, -EIO);
		c->loop = loop;
		c->taken = c->published = 0;
		atomic_store(&e->done[c->idx], (uint64_t)loop << 32);
		run_loop(c);
	}
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {	/* fio's usr_cpu, sys_cpu, ctx, ... */
		c->job->usr_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull +
				 (uint64_t)ru.ru_utime.tv_usec * 1000;
		c->job->sys_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull +
				 (uint64_t)ru.ru_stime.tv_usec * 1000;
		c->job->ctx = (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw);
		c->job->majf = (uint64_t)ru.ru_majflt;
		c->job->minf = (uint64_t)ru.ru_minflt;
	}
	atomic_fetch_add(&e->finished, 1);
	return NULL;
}

/* ------------------------------------------------------------- setup */

static int tctx_init(struct tctx *c, const struct rp_opts *o)
{
	unsigned depth = c->tp->depth < o->iodepth ? c->tp->depth : o->iodepth;
	int rc;

	if (!depth)
		depth = 1;
	c->depth = depth;
	c->buflen = (c->tp->maxlen + 2 * RP_ALIGN + RP_ALIGN - 1) & ~(uint64_t)(RP_ALIGN - 1);
	/* COOP_TASKRUN (5.19+): completions are not pushed to the thread
	 * with an IPI while it runs; it picks them up when it enters the
	 * kernel to submit or wait, which it does for every op anyway */
	struct io_uring_params prm = { .flags = IORING_SETUP_COOP_TASKRUN };
	rc = io_uring_queue_init_params(depth < 8 ? 8 : depth * 2, &c->ring, &prm);
	if (rc == -EINVAL)
		rc = io_uring_queue_init(depth < 8 ? 8 : depth * 2, &c->ring, 0);
	if (rc < 0)
		return rc;
	c->ring_ok = 1;
	c->ifl = calloc(depth, sizeof(*c->ifl));
	c->freebufs = calloc(depth, sizeof(*c->freebufs));
	c->bufs = calloc(depth, sizeof(*c->bufs));
	c->oseq = calloc(depth, sizeof(*c->oseq));
	c->odone = calloc(depth, sizeof(*c->odone));
	if (!c->ifl || !c->freebufs || !c->bufs || !c->oseq || !c->odone)
		return -ENOMEM;
	uint64_t x = 0x243f6a8885a308d3ull ^ c->tp->tid;
	for (unsigned i = 0; i < depth; i++) {
		/* large buffers on huge pages where the kernel allows: fewer
		 * segments per O_DIRECT request (as fio's buffers often get) */
		size_t al = c->buflen >= (1u << 20) ? (2u << 20) : RP_ALIGN;
		if (posix_memalign((void **)&c->bufs[i], al, c->buflen))
			return -ENOMEM;
		if (al > RP_ALIGN)
			madvise(c->bufs[i], c->buflen, MADV_HUGEPAGE);
		uint64_t *w = (uint64_t *)c->bufs[i];
		for (size_t k = 0; k < c->buflen / 8; k++) {	/* data for writes */
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			w[k] = x;
		}
		c->freebufs[c->nfree++] = i;
	}
	return 0;
}

static void tctx_release(struct tctx *c)
{
	if (c->ring_ok)
		io_uring_queue_exit(&c->ring);
	for (unsigned i = 0; c->bufs && i < c->depth; i++)
		free(c->bufs[i]);
	free(c->bufs);
	free(c->ifl);
	free(c->freebufs);
	free(c->oseq);
	free(c->odone);
}

int rp_engine_init(struct rp_engine **out, struct rp_source *src, int dirfd,
		   const struct rp_opts *o, char *err, size_t errlen)
{
	const struct rp_layout *l = &src->layout;
	struct rp_engine *e = calloc(1, sizeof(*e));
	int rc = -ENOMEM;

	*out = NULL;
	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e->src = src;
	e->l = l;
	e->o = *o;
	if (!e->o.loops)
		e->o.loops = 1;
	e->dirfd = dirfd;
	e->dirs = src->dirs;
	if (!e->dirs.file)	/* none: DIR alone */
		e->dirs = (struct rp_dirs){ e, plain_file, plain_dir, plain_via, plain_loop };
	e->n = l->nthreads;
	pthread_mutex_init(&e->mu, NULL);
	pthread_cond_init(&e->cv, NULL);
	e->slot_fd = malloc((l->nslots ? l->nslots : 1) * sizeof(*e->slot_fd));
	e->slot_oflags = calloc(l->nslots ? l->nslots : 1, sizeof(*e->slot_oflags));
	e->dir_fd = malloc((cm_strtab_count(&l->dirs) + 1) * sizeof(*e->dir_fd));
	for (size_t d = 0; e->dir_fd && d < cm_strtab_count(&l->dirs); d++)
		atomic_init(&e->dir_fd[d], -1);
	e->done = calloc(e->n ? e->n : 1, sizeof(*e->done));
	e->waiters = calloc(e->n ? e->n : 1, sizeof(*e->waiters));
	e->file_bytes = calloc(l->nfiles ? l->nfiles : 1, sizeof(*e->file_bytes));
	e->ctx = calloc(e->n ? e->n : 1, sizeof(*e->ctx));
	e->th = calloc(e->n ? e->n : 1, sizeof(*e->th));
	e->res.jobs = calloc(e->n ? e->n : 1, sizeof(*e->res.jobs));
	if (!e->slot_fd || !e->slot_oflags || !e->dir_fd || !e->done || !e->waiters || !e->file_bytes ||
	    !e->ctx || !e->th || !e->res.jobs) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (size_t s = 0; s < l->nslots; s++)
		atomic_init(&e->slot_fd[s], -1);
	e->res.njobs = e->n;
	for (size_t i = 0; i < e->n; i++) {
		struct tctx *c = &e->ctx[i];
		c->e = e;
		c->idx = (unsigned)i;
		c->tp = &l->threads[i];
		c->job = &e->res.jobs[i];
		c->job->tid = l->threads[i].tid;
		c->job->accel = l->threads[i].accel;
		c->job->pid = l->threads[i].pid;
		c->job->train = l->threads[i].train;
		if (l->nmarks) {
			c->job->nmarks = l->nmarks;
			c->job->marks = malloc(2 * l->nmarks * sizeof(*c->job->marks));
			if (!c->job->marks) {
				rc = -ENOMEM;
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			for (unsigned m = 0; m < 2 * l->nmarks; m++)
				c->job->marks[m] = UINT64_MAX;
		}
		if ((rc = tctx_init(c, &e->o))) {
			snprintf(err, errlen, "setting up thread %zu: %s%s", i, strerror(-rc),
				 rc == -ENOMEM ? "" : " (io_uring)");
			goto fail;
		}
	}
	*out = e;
	return 0;
fail:
	rp_engine_free(e);
	return rc;
}

int rp_engine_add_hooks(struct rp_engine *e, const struct rp_hooks *h)
{
	if (e->nhooks == MAX_HOOKS)
		return -ENOMEM;
	e->hooks[e->nhooks++] = *h;
	e->op_hooks += h->op != NULL;
	return 0;
}

static void progress(struct rp_engine *e, uint64_t done, uint64_t total)
{
	for (unsigned h = 0; h < e->nhooks; h++)
		if (e->hooks[h].progress)
			e->hooks[h].progress(e->hooks[h].arg, done, total);
}

int rp_engine_run(struct rp_engine *e, char *err, size_t errlen)
{
	const struct rp_layout *l = e->l;
	size_t started = 0;
	struct timespec rt;
	int rc = 0, want_progress = 0;

	if (!e->n)
		return 0;
	if ((rc = e->src->ops->start(e->src, e->o.loops))) {
		snprintf(err, errlen, "%s", e->src->err[0] ? e->src->err : strerror(-rc));
		e->src->ops->stop(e->src);
		return rc;
	}
	pthread_barrier_init(&e->bar, NULL, (unsigned)e->n);
	for (; started < e->n; started++) {
		rc = -pthread_create(&e->th[started], NULL, thread_main, &e->ctx[started]);
		if (rc) {
			snprintf(err, errlen, "starting thread: %s", strerror(-rc));
			break;
		}
	}
	/* implicit opens of the first loop on this thread: a replay thread's
	 * first system call is then its first op, as the recorded thread's
	 * (a recording of the replay sees it start there, not at t0) */
	if (!rc)
		loop_setup(e, 0);
	clock_gettime(CLOCK_REALTIME, &rt);
	e->res.start_unix = rt.tv_sec;
	pthread_mutex_lock(&e->mu);
	e->abort = rc != 0;	/* the barrier waits for all: none may run */
	e->go = 1;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);

	uint64_t total = 0, lastp = 0;
	for (unsigned k = 1; k < RP_KIND_MAX; k++)
		total += l->expected[k];
	total *= e->o.loops;
	for (unsigned h = 0; h < e->nhooks; h++)
		want_progress |= e->hooks[h].progress != NULL;
	while (!rc && want_progress && atomic_load(&e->finished) < (int)e->n) {
		usleep(50000);
		if (now_ns() - lastp < 500000000ull)
			continue;
		lastp = now_ns();
		progress(e, atomic_load(&e->ops_done), total);
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(e->th[i], NULL);
	if (!rc && want_progress && lastp)
		progress(e, atomic_load(&e->ops_done), total);
	if (!e->abort) {
		uint64_t end = now_ns();
		e->res.wall_ns = end - e->start;
		e->res.bounded = past_deadline(e, end);
	}
	e->res.implicit_opens = e->implicit_opens;
	for (size_t s = 0; s < l->nslots; s++) {
		int fd = atomic_exchange(&e->slot_fd[s], -1);
		if (fd >= 0)
			close(fd);
	}
	pthread_barrier_destroy(&e->bar);
	int src_rc = e->src->ops->stop(e->src);
	if (!rc && (src_rc || atomic_load(&e->src_err))) {
		rc = src_rc ? src_rc : atomic_load(&e->src_err);
		snprintf(err, errlen, "%s", e->src->err[0] ? e->src->err : strerror(-rc));
	}
	return rc;
}

void rp_engine_finish(struct rp_engine *e, struct rp_result *res)
{
	const struct rp_layout *l = e->l;

	*res = e->res;
	memset(&e->res, 0, sizeof(e->res));
	res->nfiles = l->nfiles;
	res->file_bytes = malloc((l->nfiles ? l->nfiles : 1) * sizeof(*res->file_bytes));
	for (size_t i = 0; res->file_bytes && i < l->nfiles; i++)
		res->file_bytes[i] = atomic_load(&e->file_bytes[i]);
	if (!res->file_bytes)
		res->nfiles = 0;
}

void rp_engine_free(struct rp_engine *e)
{
	if (!e)
		return;
	for (size_t i = 0; e->ctx && i < e->n; i++)
		tctx_release(&e->ctx[i]);
	free(e->ctx);
	free(e->th);
	for (size_t d = 0; e->dir_fd && d < cm_strtab_count(&e->l->dirs); d++)
		if (atomic_load(&e->dir_fd[d]) >= 0)
			close(atomic_load(&e->dir_fd[d]));
	for (unsigned i = 0; i < e->nstale; i++)
		close(e->stale[i]);
	free((void *)e->slot_fd);
	free((void *)e->slot_oflags);
	free((void *)e->dir_fd);
	free((void *)e->done);
	free((void *)e->waiters);
	free((void *)e->file_bytes);
	rp_result_release(&e->res);
	pthread_mutex_destroy(&e->mu);
	pthread_cond_destroy(&e->cv);
	free(e);
}

void rp_result_release(struct rp_result *res)
{
	for (size_t i = 0; res->jobs && i < res->njobs; i++) {
		struct rp_job *j = &res->jobs[i];
		for (int d = 0; d < 3; d++) {
			cm_lat_release(&j->d[d].clat);
			cm_lat_release(&j->d[d].lat);
		}
		cm_lat_release(&j->terr);
		for (unsigned p = 0; j->place && p < 3u * res->nplaces; p++) {
			cm_lat_release(&j->place[p].clat);
			cm_lat_release(&j->place[p].lat);
		}
		free(j->place);
		free(j->marks);
	}
	free(res->jobs);
	free(res->file_bytes);
	free(res->copy_bytes);
	memset(res, 0, sizeof(*res));
}
