/* SPDX-License-Identifier: MIT */
/*
 * rp_run.c - replay a plan: one thread and one io_uring per recorded thread.
 *
 * Each thread issues its ops in recorded order.  A read or write recorded
 * while earlier data ops of the same thread were still in flight (flag
 * RP_F_OVERLAP: io_uring or AIO in the recording) is issued without
 * waiting for them, up to --iodepth; every other op first waits for the
 * thread's in-flight ops.  An op that another thread's op must follow
 * (RP_F_NEEDED: an open before the reads that use its fd, a write before
 * a read of that file, a close after the last use) publishes its
 * completion; the follower waits for it (after draining its own ring, so
 * two threads never wait on each other's unreaped completions).
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
 * --scale-dataset K: loop l opens copy l % K of every dataset file
 * (rp_copy_path), so K loops read K distinct copies, as K epochs over a
 * dataset K times the recorded one do.
 * Opens go through IORING_OP_OPENAT2 with RESOLVE_BENEATH on DIR's fd;
 * unlink, rename and mkdir through the parent fd (rp_parent_beneath).
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
#include <time.h>
#include <unistd.h>
#include "replay.h"

struct shared {
	const struct rp_plan *plan;
	const struct rp_opts *o;
	int dirfd;
	_Atomic int *slot_fd;
	_Atomic uint32_t *done_gen;	/* loop + 1 once the op completed */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_barrier_t bar;
	uint64_t t0;			/* start of the current loop */
	uint64_t start;			/* start of the first loop */
	_Atomic uint64_t ops_done;
	_Atomic int finished;
	uint64_t implicit_opens;
	int setup_err;
	unsigned copy;			/* dataset copy of the current loop */
};

struct inflight {
	uint32_t op;
	uint32_t buf;
	uint64_t len;
	uint64_t t_prep, t_sub;
};

struct tctx {
	struct shared *sh;
	const struct rp_thread_plan *tp;
	struct rp_job *job;
	struct io_uring ring;
	unsigned depth, inflight;
	struct inflight *ifl;
	uint32_t *freebufs;
	unsigned nfree;
	char **bufs;
	uint64_t buflen;
	uint32_t gen;
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

static int lat_push(struct rp_lat *l, uint64_t v)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 1024;
		uint64_t *a = realloc(l->v, nc * sizeof(*a));
		if (!a)
			return -ENOMEM;
		l->v = a;
		l->cap = nc;
	}
	l->v[l->n++] = v;
	return 0;
}

static void op_error(struct tctx *c, int err)
{
	c->job->errors++;
	if (!c->job->first_error)
		c->job->first_error = err;
}

static void publish(struct tctx *c, uint32_t idx)
{
	struct shared *sh = c->sh;

	atomic_fetch_add_explicit(&sh->ops_done, 1, memory_order_relaxed);
	if (!(sh->plan->ops[idx].flags & RP_F_NEEDED))
		return;
	atomic_store(&sh->done_gen[idx], c->gen);
	pthread_mutex_lock(&sh->mu);
	pthread_cond_broadcast(&sh->cv);
	pthread_mutex_unlock(&sh->mu);
}

static int dir_of(unsigned kind)
{
	return kind == RP_READ ? 0 : kind == RP_WRITE ? 1 : 2;
}

/* Account one completed ring op. */
static void complete(struct tctx *c, struct inflight *e, int res, uint64_t t)
{
	const struct rp_op *op = &c->sh->plan->ops[e->op];
	struct rp_dir_stats *d = &c->job->d[dir_of(op->kind)];

	if (res < 0) {
		op_error(c, res);
	} else {
		d->ios++;
		d->bytes += (uint64_t)res;
		if ((uint64_t)res < e->len)
			d->short_ios++;
		lat_push(&d->clat, t - e->t_sub);
		lat_push(&d->lat, t - e->t_prep);
		c->job->file_bytes[op->file] += (uint64_t)res;
		if (op->kind == RP_READ && c->sh->plan->files[op->file].dataset)
			c->job->copy_bytes[c->sh->copy] += (uint64_t)res;
		if (op->flags & RP_F_FAULT)
			c->job->fault_reads++;
		c->job->done[op->kind]++;
	}
	publish(c, e->op);
}

static void reap_one(struct tctx *c)
{
	struct io_uring_cqe *cqe;
	int rc;

	do
		rc = io_uring_wait_cqe(&c->ring, &cqe);
	while (rc == -EINTR);
	if (rc < 0) {
		op_error(c, rc);
		c->inflight = 0;	/* ring broken: give up on them */
		return;
	}
	uint64_t t = now_ns();
	struct inflight *e = &c->ifl[cqe->user_data];
	int res = cqe->res;

	io_uring_cqe_seen(&c->ring, cqe);
	complete(c, e, res, t);
	c->freebufs[c->nfree++] = e->buf;
	c->inflight--;
}

static void drain(struct tctx *c)
{
	while (c->inflight)
		reap_one(c);
}

static void wait_dep(struct tctx *c, const struct rp_op *op)
{
	struct shared *sh = c->sh;

	if (op->dep < 0 || atomic_load(&sh->done_gen[op->dep]) >= c->gen)
		return;
	drain(c);
	pthread_mutex_lock(&sh->mu);
	while (atomic_load(&sh->done_gen[op->dep]) < c->gen)
		pthread_cond_wait(&sh->cv, &sh->mu);
	pthread_mutex_unlock(&sh->mu);
}

/* Submit one SQE prepared by the caller and wait for its completion. */
static int submit_wait(struct tctx *c, struct io_uring_sqe *sqe, uint32_t idx,
		       uint64_t *t_sub, uint64_t *t_done)
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
	(void)idx;
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

static void do_data(struct tctx *c, uint32_t idx, uint64_t t_prep)
{
	const struct rp_op *op = &c->sh->plan->ops[idx];
	int fd = atomic_load(&c->sh->slot_fd[op->slot]);
	uint64_t off = op->off, len = op->len;
	struct rp_dir_stats *d = &c->job->d[dir_of(op->kind)];
	struct io_uring_sqe *sqe;
	struct inflight *e;

	if (fd < 0) {
		d->drop_ios++;	/* its open failed */
		publish(c, idx);
		return;
	}
	if (c->sh->plan->slots[op->slot].oflags & O_DIRECT) {
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
	e = &c->ifl[c->freebufs[--c->nfree]];
	e->buf = (uint32_t)(e - c->ifl);
	e->op = idx;
	e->len = len;
	e->t_prep = t_prep;
	if (op->kind == RP_READ)
		io_uring_prep_read(sqe, fd, c->bufs[e->buf], (unsigned)len, off);
	else
		io_uring_prep_write(sqe, fd, c->bufs[e->buf], (unsigned)len, off);
	sqe->user_data = e->buf;
	e->t_sub = now_ns();
	if (io_uring_submit(&c->ring) < 0) {
		op_error(c, -errno);
		c->freebufs[c->nfree++] = e->buf;
		publish(c, idx);
		return;
	}
	c->inflight++;
}

static void do_other(struct tctx *c, uint32_t idx, uint64_t t_prep)
{
	struct shared *sh = c->sh;
	const struct rp_op *op = &sh->plan->ops[idx];
	const struct rp_file *f = &sh->plan->files[op->file];
	struct io_uring_sqe *sqe;
	uint64_t t_sub = t_prep, t_done;
	int rc = 0, fd, pfd, pfd2;
	const char *base, *base2;
	char cpath[4096 + 32];

	switch (op->kind) {
	case RP_OPEN: {
		struct open_how how = {
			.flags = op->oflags | O_CLOEXEC,
			.mode = (op->oflags & O_CREAT) ? 0644 : 0,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
		};
		if (op->oflags & O_CREAT) {	/* its directory may be new */
			pfd = rp_parent_beneath(sh->dirfd, f->rel, 1, &base);
			if (pfd >= 0)
				close(pfd);
		}
		sqe = get_sqe(c);
		io_uring_prep_openat2(sqe, sh->dirfd,
				      rp_copy_path(f, sh->copy, cpath, sizeof(cpath)), &how);
		rc = submit_wait(c, sqe, idx, &t_sub, &t_done);
		if (rc >= 0) {
			fd = atomic_exchange(&sh->slot_fd[op->slot], rc);
			if (fd >= 0)
				close(fd);	/* a previous loop left it open */
			rc = 0;
		}
		break;
	}
	case RP_CLOSE:
		fd = atomic_exchange(&sh->slot_fd[op->slot], -1);
		if (fd < 0) {
			rc = -EBADF;
			break;
		}
		sqe = get_sqe(c);
		io_uring_prep_close(sqe, fd);
		rc = submit_wait(c, sqe, idx, &t_sub, &t_done);
		break;
	case RP_FSYNC:
	case RP_FDATASYNC:
		fd = atomic_load(&sh->slot_fd[op->slot]);
		if (fd < 0) {
			c->job->d[2].drop_ios++;
			publish(c, idx);
			return;
		}
		sqe = get_sqe(c);
		io_uring_prep_fsync(sqe, fd, op->kind == RP_FDATASYNC ? IORING_FSYNC_DATASYNC : 0);
		rc = submit_wait(c, sqe, idx, &t_sub, &t_done);
		if (rc >= 0) {
			struct rp_dir_stats *d = &c->job->d[2];
			d->ios++;
			lat_push(&d->clat, t_done - t_sub);
			lat_push(&d->lat, t_done - t_prep);
		}
		break;
	case RP_UNLINK:
	case RP_MKDIR:
		pfd = rp_parent_beneath(sh->dirfd, f->rel, op->kind == RP_MKDIR, &base);
		if (pfd < 0) {
			rc = pfd;
			break;
		}
		if (op->kind == RP_UNLINK)
			rc = unlinkat(pfd, base, 0) ? -errno : 0;
		else
			rc = mkdirat(pfd, base, 0755) && errno != EEXIST ? -errno : 0;
		close(pfd);
		break;
	case RP_RENAME: {
		const char *rel2 = sh->plan->files[op->file2].rel;
		const char *s1 = strrchr(f->rel, '/'), *s2 = strrchr(rel2, '/');
		size_t l1 = s1 ? (size_t)(s1 - f->rel) : 0, l2 = s2 ? (size_t)(s2 - rel2) : 0;

		pfd = rp_parent_beneath(sh->dirfd, f->rel, 0, &base);
		/* one parent fd when both are in the same directory (the
		 * usual tmp -> final): one open less, and a recording of the
		 * replay can name the target through that fd */
		if (l1 == l2 && memcmp(f->rel, rel2, l1) == 0 && pfd >= 0) {
			pfd2 = pfd;
			base2 = s2 ? s2 + 1 : rel2;
		} else {
			pfd2 = rp_parent_beneath(sh->dirfd, rel2, 1, &base2);
		}
		if (pfd < 0 || pfd2 < 0)
			rc = pfd < 0 ? pfd : pfd2;
		else
			rc = renameat(pfd, base, pfd2, base2) ? -errno : 0;
		if (pfd2 >= 0 && pfd2 != pfd)
			close(pfd2);
		if (pfd >= 0)
			close(pfd);
		break;
	}
	}
	if (rc < 0)
		op_error(c, rc);
	else
		c->job->done[op->kind]++;
	publish(c, idx);
}

/* Open the slots used without a recorded open, before the clock starts;
 * close what the previous loop left open.  rp_run before the threads start
 * (the first loop), then the serial thread only. */
static void loop_setup(struct shared *sh, unsigned loop)
{
	const struct rp_plan *p = sh->plan;
	int first = loop == 0;
	char cpath[4096 + 32];

	sh->copy = loop % (sh->o->scale ? sh->o->scale : 1);
	for (size_t s = 0; s < p->nslots; s++) {
		int fd = atomic_exchange(&sh->slot_fd[s], -1);
		if (fd >= 0)
			close(fd);
		if (!p->slots[s].implicit)
			continue;
		fd = rp_open_beneath(sh->dirfd,
				     rp_copy_path(&p->files[p->slots[s].file], sh->copy,
						  cpath, sizeof(cpath)),
				     (int)p->slots[s].oflags, 0644);
		if (fd >= 0) {
			atomic_store(&sh->slot_fd[s], fd);
			if (first)
				sh->implicit_opens++;
		}
	}
	for (size_t i = 0; i < p->nops; i++)
		atomic_store(&sh->done_gen[i], 0);
}

static void *thread_main(void *arg)
{
	struct tctx *c = arg;
	struct shared *sh = c->sh;
	const struct rp_plan *p = sh->plan;
	const struct rp_opts *o = sh->o;
	double speed = o->speed > 0 ? o->speed : 1.0;
	double think = o->compute_scale / speed;

	prctl(PR_SET_TIMERSLACK, 1UL);	/* wake at the target, not 50us later */
	if (o->timing == RP_TIME_ORIGINAL) {
		/* best effort (root): a busy machine must not delay issue
		 * times; the spin in sleep_until() is bounded, and the
		 * kernel's RT throttling keeps the rest of the system alive */
		struct sched_param sp = { .sched_priority = 1 };
		if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0)
			c->job->realtime = 1;
	}

	for (unsigned loop = 0; loop < o->loops; loop++) {
		if (pthread_barrier_wait(&sh->bar) == PTHREAD_BARRIER_SERIAL_THREAD) {
			if (loop)	/* the first: rp_run, before the threads */
				loop_setup(sh, loop);
			sh->t0 = now_ns();
			if (!loop)
				sh->start = sh->t0;
		}
		pthread_barrier_wait(&sh->bar);
		c->gen = loop + 1;

		uint64_t prev_end = 0;	/* recorded end of the thread's previous ops */
		uint64_t late = 0;	/* think: how much the thread's sleeps overran */
		for (size_t j = 0; j < c->tp->nops; j++) {
			uint32_t idx = c->tp->ops[j];
			const struct rp_op *op = &p->ops[idx];
			int data = op->kind == RP_READ || op->kind == RP_WRITE;
			int overlap = data && (op->flags & RP_F_OVERLAP) && c->depth > 1;
			uint64_t target = 0;

			if (!overlap)
				drain(c);
			/* the thread's previous I/O is over: its compute starts
			 * now, and a wait for another thread overlaps it */
			uint64_t io_done = now_ns();
			wait_dep(c, op);
			if (o->timing == RP_TIME_ORIGINAL) {
				target = sh->t0 + (uint64_t)((double)op->ts / speed);
				if (op->ts > prev_end)
					c->job->compute_ns += (uint64_t)((double)(op->ts - prev_end) / speed);
				if (now_ns() < target)
					sleep_until(target);
			} else if (o->timing == RP_TIME_THINK && !overlap && op->ts > prev_end) {
				uint64_t delay = (uint64_t)((double)(op->ts - prev_end) * think);
				if (delay) {
					/* a sleep that woke late (a busy CPU) is
					 * taken off the next ones: the thread's
					 * compute sums to the recorded */
					uint64_t want = delay > late ? delay - late : 0;
					late -= delay - want;
					uint64_t t = now_ns();
					if (want && t < io_done + want) {
						sleep_until(io_done + want);
						t = now_ns();
						if (t > io_done + want)
							late += t - (io_done + want);
					}
					c->job->compute_ns += delay;
				}
			}
			uint64_t t_prep = now_ns();
			if (o->timing == RP_TIME_ORIGINAL)
				lat_push(&c->job->terr, t_prep > target ? t_prep - target : 0);
			if (data)
				do_data(c, idx, t_prep);
			else
				do_other(c, idx, t_prep);
			if (op->end > prev_end)
				prev_end = op->end;
		}
		drain(c);
		c->job->wall_ns = now_ns() - sh->start;
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
	atomic_fetch_add(&sh->finished, 1);
	return NULL;
}

static int tctx_init(struct tctx *c, const struct rp_opts *o, size_t nfiles)
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
	c->ifl = calloc(depth, sizeof(*c->ifl));
	c->freebufs = calloc(depth, sizeof(*c->freebufs));
	c->bufs = calloc(depth, sizeof(*c->bufs));
	c->job->file_bytes = calloc(nfiles ? nfiles : 1, 8);
	c->job->copy_bytes = calloc(o->scale ? o->scale : 1, 8);
	if (!c->ifl || !c->freebufs || !c->bufs || !c->job->file_bytes ||
	    !c->job->copy_bytes)
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
	if (c->ring.ring_fd > 0)
		io_uring_queue_exit(&c->ring);
	for (unsigned i = 0; c->bufs && i < c->depth; i++)
		free(c->bufs[i]);
	free(c->bufs);
	free(c->ifl);
	free(c->freebufs);
}

int rp_run(int dirfd, const struct rp_plan *plan, const struct rp_opts *o,
	   struct rp_result *res, char *err, size_t errlen)
{
	struct shared sh = { .plan = plan, .o = o, .dirfd = dirfd };
	size_t n = plan->nthreads;
	struct tctx *ctx = NULL;
	pthread_t *th = NULL;
	size_t started = 0;
	int rc = 0;
	struct timespec rt;

	memset(res, 0, sizeof(*res));
	if (!n)
		return 0;
	sh.slot_fd = malloc((plan->nslots ? plan->nslots : 1) * sizeof(*sh.slot_fd));
	sh.done_gen = calloc(plan->nops ? plan->nops : 1, sizeof(*sh.done_gen));
	ctx = calloc(n, sizeof(*ctx));
	th = calloc(n, sizeof(*th));
	res->jobs = calloc(n, sizeof(*res->jobs));
	if (!sh.slot_fd || !sh.done_gen || !ctx || !th || !res->jobs) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	res->njobs = n;
	for (size_t s = 0; s < plan->nslots; s++)
		atomic_init(&sh.slot_fd[s], -1);
	pthread_mutex_init(&sh.mu, NULL);
	pthread_cond_init(&sh.cv, NULL);
	pthread_barrier_init(&sh.bar, NULL, (unsigned)n);
	for (size_t i = 0; i < n; i++) {
		ctx[i].sh = &sh;
		ctx[i].tp = &plan->threads[i];
		ctx[i].job = &res->jobs[i];
		res->jobs[i].tid = plan->threads[i].tid;
		res->jobs[i].pid = plan->threads[i].pid;
		rc = tctx_init(&ctx[i], o, plan->nfiles);
		if (rc) {
			snprintf(err, errlen, "setting up thread %zu: %s%s", i, strerror(-rc),
				 rc == -ENOMEM ? "" : " (io_uring)");
			goto out;
		}
	}
	/* implicit opens of the first loop on this thread: a replay thread's
	 * first system call is then its first op, as the recorded thread's
	 * (a recording of the replay sees it start there, not at t0) */
	loop_setup(&sh, 0);
	clock_gettime(CLOCK_REALTIME, &rt);
	res->start_unix = rt.tv_sec;
	for (; started < n; started++) {
		rc = -pthread_create(&th[started], NULL, thread_main, &ctx[started]);
		if (rc) {
			snprintf(err, errlen, "starting thread: %s", strerror(-rc));
			/* the barrier waits for n: the started ones cannot finish */
			_exit(1);
		}
	}
	uint64_t total = 0, lastp = 0;
	for (unsigned k = 1; k < RP_KIND_MAX; k++)
		total += plan->expected[k];
	total *= o->loops;
	while (o->progress && atomic_load(&sh.finished) < (int)n) {
		usleep(50000);
		if (now_ns() - lastp < 500000000ull)
			continue;
		lastp = now_ns();
		fprintf(stderr, "\riotape replay: %" PRIu64 "/%" PRIu64 " ops ",
			atomic_load(&sh.ops_done), total);
	}
	if (o->progress && lastp)
		fputc('\n', stderr);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	res->wall_ns = now_ns() - sh.start;
	res->implicit_opens = sh.implicit_opens;
	for (size_t s = 0; s < plan->nslots; s++) {
		int fd = atomic_load(&sh.slot_fd[s]);
		if (fd >= 0)
			close(fd);
	}
	pthread_barrier_destroy(&sh.bar);
out:
	for (size_t i = 0; ctx && i < n; i++)
		tctx_release(&ctx[i]);
	free(ctx);
	free(th);
	free(sh.slot_fd);
	free(sh.done_gen);
	return rc;
}

void rp_result_release(struct rp_result *res, size_t nfiles)
{
	(void)nfiles;
	for (size_t i = 0; i < res->njobs; i++) {
		struct rp_job *j = &res->jobs[i];
		for (int d = 0; d < 3; d++) {
			free(j->d[d].clat.v);
			free(j->d[d].lat.v);
		}
		free(j->terr.v);
		free(j->file_bytes);
		free(j->copy_bytes);
	}
	free(res->jobs);
	memset(res, 0, sizeof(*res));
}
