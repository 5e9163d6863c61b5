/* SPDX-License-Identifier: MIT */
/*
 * ana_train.c - the training thread, its steps and the accelerator's
 * utilization (AU) as DLIO computes it (iotape-analyze(1), ACCELERATOR).
 *
 * The training thread consumes the data set: it reads data-set files
 * itself, or reads a pipe or socket that processes reading the data set
 * write (a DataLoader's workers), or is woken, most of the time it waits
 * for the job, by a thread that does either (a pin-memory thread).  A
 * loader is none of them: a process that reads the data set and writes it
 * to a pipe another process reads hands the data on.  Of the others, the
 * one that worked the most between its calls (its gaps less its waits for
 * other threads, ana_sched.c); with a sched table a thread that never ran
 * on a CPU (an idle helper) is never it.  Ties go to the lower thread id.
 * No thread consuming the data set (checkpoints only): the one that worked
 * the most.
 *
 * Its steps: a trainer fed through pipes works a step per batch it takes
 * from them (a run of reads of one such pipe, after any other call), the
 * step's compute being its longest gap's work from one batch to the next
 * (the rest is the hand-over: unpickling, putting the next indices; a batch
 * that came early and was held shares its gap with the one before); any
 * other trainer works a step in each gap between its calls (every call
 * bounds one) of ANA_STEP_GAP_NS of work or more.  In a gap the work is
 * taken to come first, then the wait for the loaders.
 * A second pass reads its rows only: four numeric columns of the syscall
 * table and five of the sched table, memory independent of the trace.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"

/* ------------------------------------------------- the training thread */

static const struct ana_thread *thread_by_tid(const struct ana *a, uint32_t tid)
{
	uint64_t *v = ana_map_get(&a->sys.threadmap, tid, 0);

	return v ? &a->sys.threads[*v] : NULL;
}

/* Per process: 1 its threads made 1% of the reads of files that may be
 * data or more (not a wrapper's read of its script), | 2 it is a loader
 * (it also writes to a pipe that another process reads). */
static uint8_t *data_procs(const struct ana *a)
{
	const struct cm_map *r = &a->sys.pipe_r, *w = &a->sys.pipe_w;
	uint8_t *p = ana_tmp_calloc(a->nprocs + 1, 1);
	uint64_t *n = ana_tmp_calloc(a->nprocs + 1, sizeof(*n));

	for (size_t i = 0; i < a->sys.nthreads; i++) {
		const struct ana_thread *t = &a->sys.threads[i];
		uint64_t *v = t->data_reads ? ana_map_get(&a->procmap, t->pid, 0) : NULL;

		if (v)
			n[*v] += t->data_reads;
	}
	for (size_t i = 0; i < a->nprocs; i++)
		p[i] = n[i] && n[i] * 100 >= a->sys.data_reads;
	ana_tmp_free(n);
	for (size_t j = 0; j < w->cap; j++) {	/* (pipe, writer pid) */
		uint64_t *v;

		if (w->e[j].v >= CM_MAP_DEAD ||
		    !(v = ana_map_get(&a->procmap, w->e[j].b, 0)) || !p[*v])
			continue;
		for (size_t i = 0; i < r->cap; i++) {	/* (pipe, reader tid) */
			const struct ana_thread *t;

			if (r->e[i].v >= CM_MAP_DEAD || r->e[i].a != w->e[j].a)
				continue;
			t = thread_by_tid(a, (uint32_t)r->e[i].b);
			if (t && t->pid != w->e[j].b)
				p[*v] |= 2;
		}
	}
	return p;
}

static int proc_reads_data(const struct ana *a, const uint8_t *dp, uint32_t pid)
{
	uint64_t *v = ana_map_get(&a->procmap, pid, 0);

	return v && (dp[*v] & 1);
}

static int proc_loads(const struct ana *a, const uint8_t *dp, uint32_t pid)
{
	uint64_t *v = ana_map_get(&a->procmap, pid, 0);

	return v && (dp[*v] & 2);
}

/* How thread t gets data: ANA_TRAIN_READS or _PIPE (*via: how many
 * processes that read data write to its pipes), else ANA_TRAIN_NONE. */
static int fed(const struct ana *a, const uint8_t *dp, const struct ana_thread *t,
	       uint32_t *via)
{
	const struct cm_map *r = &a->sys.pipe_r, *w = &a->sys.pipe_w;
	uint32_t n = 0;

	for (size_t i = 0; i < r->cap; i++) {
		if (r->e[i].v >= CM_MAP_DEAD || r->e[i].b != t->tid)
			continue;
		for (size_t j = 0; j < w->cap; j++)	/* pipes are few */
			if (w->e[j].v < CM_MAP_DEAD && w->e[j].a == r->e[i].a &&
			    w->e[j].b != t->pid && proc_reads_data(a, dp, (uint32_t)w->e[j].b))
				n++;
	}
	*via = n;
	if (n)
		return ANA_TRAIN_PIPE;
	return t->data_reads && proc_reads_data(a, dp, t->pid) ? ANA_TRAIN_READS : ANA_TRAIN_NONE;
}

/* The pipes loaders write and t reads, into tr->feeds (file ids). */
static void feed_pipes(const struct ana *a, const uint8_t *dp, const struct ana_thread *t,
		       struct ana_train *tr)
{
	const struct cm_map *r = &a->sys.pipe_r, *w = &a->sys.pipe_w;

	for (size_t i = 0; i < r->cap; i++) {
		if (r->e[i].v >= CM_MAP_DEAD || r->e[i].b != t->tid)
			continue;
		for (size_t j = 0; j < w->cap; j++)
			if (w->e[j].v < CM_MAP_DEAD && w->e[j].a == r->e[i].a &&
			    w->e[j].b != t->pid && proc_reads_data(a, dp, (uint32_t)w->e[j].b)) {
				ANA_VEC_GROW(tr->feeds, tr->capfeeds, tr->nfeeds);
				tr->feeds[tr->nfeeds++] = ana_file_fid(a, r->e[i].a);
				break;
			}
	}
}

static void choose(struct ana *a, struct ana_train *tr)
{
	uint8_t *dp = data_procs(a);
	const struct ana_thread *best = NULL;
	int best_how = ANA_TRAIN_NONE;
	uint32_t best_via = 0;

	for (int pass = 0; pass < 2 && !best; pass++) {
		for (size_t i = 0; i < a->sys.nthreads; i++) {
			const struct ana_thread *t = &a->sys.threads[i];
			const struct ana_wthread *w = ana_wthread_find(a, t->tid);
			uint32_t via = 0;
			int how = ANA_TRAIN_NONE;

			if (a->sched.have && w && !w->cpu_ns) {
				tr->nocpu += !pass;
				continue;	/* never ran: an idle helper */
			}
			if (!pass) {	/* those that consume the data set */
				if (proc_loads(a, dp, t->pid))
					continue;
				how = fed(a, dp, t, &via);
				if (!how && w && w->waker_tid) {
					const struct ana_thread *x = thread_by_tid(a, w->waker_tid);
					uint32_t v2 = 0;

					if (x && fed(a, dp, x, &v2)) {
						how = ANA_TRAIN_WOKEN;
						via = x->tid;
					}
				}
				if (!how)
					continue;
			}
			if (!best || t->work_ns > best->work_ns ||
			    (t->work_ns == best->work_ns && t->tid < best->tid)) {
				best = t;
				best_how = how;
				best_via = via;
			}
		}
	}
	if (best && best_how == ANA_TRAIN_PIPE)
		feed_pipes(a, dp, best, tr);
	ana_tmp_free(dp);
	if (!best || !best->work_ns)
		return;
	tr->found = 1;
	tr->how = best_how;
	tr->via = best_via;
	tr->tid = best->tid;
	tr->pid = best->pid;
	tr->thread = (size_t)(best - a->sys.threads);
	tr->work_ns = best->work_ns;
	tr->wait_ns = best->wait_ns;
	tr->io_ns = best->io_ns;
	const struct ana_wthread *w = ana_wthread_find(a, best->tid);
	tr->cpu_ns = w ? w->cpu_ns : 0;
}

/* ---------------------------------------------------- its steps, AU */

/* A batch reader of a few numeric columns of one table. */
struct colrd {
	tape_cursor *c;
	unsigned idx[6];
	size_t ncols, n, i;
	uint64_t *v[6];		/* 8-byte columns */
	uint32_t *u[6];		/* 4-byte ones */
	int end, err;
};

#define COLRD_ROWS 65536

#define COLRD_MAX 6
static int colrd_open(struct colrd *r, tape_reader *tr, int table, uint64_t t0, uint64_t t1,
		      const char *const *names, size_t ncols)
{
	size_t n;
	const struct tape_column *cols = tape_table_columns(table, &n);
	int err;

	memset(r, 0, sizeof(*r));
	r->ncols = ncols;
	for (size_t k = 0; k < ncols; k++) {
		const struct tape_column *c = tape_column_find(table, names[k]);

		if (!c)
			return -EINVAL;
		r->idx[k] = (unsigned)(c - cols);
		if (c->width == 8)
			r->v[k] = ana_tmp_calloc(COLRD_ROWS, 8);
		else
			r->u[k] = ana_tmp_calloc(COLRD_ROWS, 4);
	}
	if ((err = ana_cursor_open(tr, table, t0, t1, &r->c)))
		return err;
	return 0;
}

static uint64_t colrd_get(const struct colrd *r, size_t k)
{
	return r->v[k] ? r->v[k][r->i] : r->u[k][r->i];
}

/* 1 with a row at r->i, 0 at the end, -errno. */
static int colrd_next(struct colrd *r, int first)
{
	if (!first)
		r->i++;
	if (r->i < r->n)
		return 1;
	if (r->end)
		return 0;
	void *out[6];
	for (size_t k = 0; k < r->ncols; k++)
		out[k] = r->v[k] ? (void *)r->v[k] : (void *)r->u[k];
	int rc = tape_cursor_read_columns(r->c, r->idx, r->ncols, out, COLRD_ROWS, NULL, &r->n);
	r->i = 0;
	if (rc <= 0) {
		r->end = 1;
		r->err = rc;
		r->n = 0;
	}
	return rc;
}

static void colrd_close(struct colrd *r)
{
	ana_cursor_free(r->c);
	for (size_t k = 0; k < r->ncols; k++) {
		ana_tmp_free(r->v[k]);
		ana_tmp_free(r->u[k]);
	}
}

/* Whether file id fid is a pipe the loaders feed the trainer through. */
static int feeds(const struct ana_train *tr, uint64_t fid)
{
	for (size_t i = 0; i < tr->nfeeds; i++)
		if (tr->feeds[i] == fid)
			return 1;
	return 0;
}

/* The epoch a step starting at ts is in: the last one starting at or
 * before it, -1 before the first. */
static long epoch_of(const struct ana_train *tr, uint64_t ts)
{
	long e = -1;

	for (size_t k = 0; k < tr->nep && tr->ep[k].start_ns <= ts; k++)
		e = (long)k;
	return e;
}

struct steps {
	uint64_t n;
	double sum, sq;		/* ms */
	size_t cap;		/* of tr->ends */
};

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The starts of the loader processes the trainer made, sorted: each one
 * ends the trainer's work on a batch (it is setting up an epoch). */
static uint64_t *loader_starts(struct ana *a, const struct ana_train *tr, size_t *n)
{
	uint8_t *dp = data_procs(a);
	uint64_t *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (size_t i = 0; i < a->nprocs; i++)
		if ((dp[i] & 2) && a->procs[i].ppid == tr->pid &&
		    a->procs[i].start_ns != UINT64_MAX) {
			ANA_VEC_GROW(v, cap, *n);
			v[(*n)++] = a->procs[i].start_ns;
		}
	ana_tmp_free(dp);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_u64);
	return v;
}

/* The work gaps of a batch's step: the RUN_GAPS longest kept. */
#define RUN_GAPS 8
struct run {
	uint64_t g[RUN_GAPS];
	size_t n;
};

static void run_add(struct run *r, uint64_t work)
{
	size_t m = 0;

	if (r->n < RUN_GAPS) {
		r->g[r->n++] = work;
		return;
	}
	for (size_t i = 1; i < RUN_GAPS; i++)
		if (r->g[i] < r->g[m])
			m = i;
	if (work > r->g[m])
		r->g[m] = work;
}

/* The step's compute: its gaps of half its longest or more (two batches
 * computed back to back are two such gaps; the hand-over's Python work,
 * a few ms at most on a loaded machine, is below). */
static uint64_t run_work(const struct run *r)
{
	uint64_t top = 0, sum = 0;

	for (size_t i = 0; i < r->n; i++)
		top = r->g[i] > top ? r->g[i] : top;
	for (size_t i = 0; i < r->n; i++)
		if (r->g[i] >= top / 2)
			sum += r->g[i];
	return sum;
}

/* Whether a wait in a call of kind call lies in a gap between the
 * trainer's calls here, where every call bounds one: unless the call is
 * one the syscall table records. */
static int in_gap(unsigned call)
{
	return call != TAPE_WAITC_IO && call != TAPE_WAITC_READ && call != TAPE_WAITC_WRITE;
}

/* A step that began at start, worked work ns and ended its work at end;
 * the trainer's call at bound ended it (ANA_STEP_LAST: none, the trace
 * ended in it). */
static void step(struct ana_train *tr, struct steps *st, uint64_t start, uint64_t end,
		 uint64_t work, uint64_t bound)
{
	long e = epoch_of(tr, start);

	if (tr->nep && e < 0)
		return;		/* start-up */
	ANA_VEC_GROW(tr->ends, st->cap, st->n);
	tr->ends[st->n] = bound;
	st->n++;
	st->sum += work / 1e6;
	st->sq += (work / 1e6) * (work / 1e6);
	struct ana_au_epoch *x = e < 0 ? &tr->span : &tr->ep[e];
	x->steps++;
	if (!x->from_ns) {
		/* DLIO leaves the first step out: the first that worked (a
		 * batch that came early and was held works in the next) */
		if (work)
			x->from_ns = end;
	} else {
		x->work_ns += work;
		x->to_ns = end;
	}
}

/* trainer_pass()'s state: the calls' and waits' readers, the steps so far
 * and the open one's */
struct tpass {
	struct ana_train *tr;
	struct colrd sc, wt;
	struct steps st;
	uint64_t last_end, pend, last_fid;
	uint64_t work, wstart, wend;	/* the open step's */
	struct run run;		/* by_batch: its gaps */
	int by_batch;
	int in_batch;		/* by_batch: a batch was taken */
	int closed;		/* by_batch: a wait ended the step's work */
	int have_w, rw, pwait;
	size_t nforks, fk;
	uint64_t *forks;	/* by_batch: the loaders' starts */
};

/* The trainer's waits for the job written by the time its call at ts
 * began: in a gap between its calls, pending (1: one was); in a call of
 * the open step, by_batch, its batch's exchange. */
static int tp_waits(struct tpass *p, uint64_t ts)
{
	int gap_waits = 0;

	while (p->rw > 0 && colrd_get(&p->wt, 0) + colrd_get(&p->wt, 1) + colrd_get(&p->wt, 5) <= ts) {
		uint64_t wts = colrd_get(&p->wt, 0);

		if (colrd_get(&p->wt, 2) != p->tr->tid || colrd_get(&p->wt, 3) != TAPE_WAKE_JOB) {
		} else if (wts >= p->last_end && in_gap((unsigned)colrd_get(&p->wt, 4))) {
			p->pend += colrd_get(&p->wt, 1);
			gap_waits = 1;
		} else if (p->by_batch && !p->closed && wts >= p->wstart) {
			p->work = 0;	/* the batch's exchange: what came
					 * before was its hand-over too */
			p->run.n = 0;
		}
		p->rw = colrd_next(&p->wt, 0);
	}
	return gap_waits;
}

/* The gap before the trainer's call at ts (gap_waits: with a wait for the
 * job in it): its work, less its waits, in the open step. */
static void tp_gap(struct tpass *p, uint64_t ts, int gap_waits)
{
	uint64_t gap = ts - p->last_end, w = p->pend < gap ? p->pend : gap;

	if (!p->by_batch) {
		p->work = gap - w;
		p->wstart = p->last_end;
		p->wend = p->last_end + p->work;
	} else {
		uint64_t own = gap - w;

		/* a loader started in the gap: the batch's work
		 * ended there (its epoch is over) */
		while (p->fk < p->nforks && p->forks[p->fk] < p->last_end)
			p->fk++;
		if (p->fk < p->nforks && p->forks[p->fk] < ts) {
			if (own > p->forks[p->fk] - p->last_end)
				own = p->forks[p->fk] - p->last_end;
			if (!p->work)
				p->closed = 1;
		}
		if (own >= ANA_STEP_GAP_NS && !p->closed) {
			if (!p->work)
				p->wstart = p->last_end;
			p->work += own;
			p->wend = p->last_end + own;
			run_add(&p->run, own);
		}
		if (p->fk < p->nforks && p->forks[p->fk] < ts)
			p->closed = 1;
	}
	if (p->by_batch && p->work && gap_waits)
		p->closed = 1;	/* the work, then a wait */
	p->pend = 0;
}

/* The trainer's call at ts, of class cls on file fid: the end of a step
 * (a batch taken, or any call) */
static void tp_bound(struct tpass *p, uint64_t ts, unsigned cls, uint64_t fid)
{
	if (!p->by_batch) {
		if (p->work >= ANA_STEP_GAP_NS)
			step(p->tr, &p->st, p->wstart, p->wend, p->work, ts);
		p->work = 0;
	} else if (cls == TAPE_OPC_READ && fid != p->last_fid && feeds(p->tr, fid)) {
		if (p->in_batch)
			step(p->tr, &p->st, p->work ? p->wstart : p->last_end,
			     p->work ? p->wend : p->last_end, run_work(&p->run), ts);
		p->in_batch = 1;
		p->work = 0;
		p->run.n = 0;
		p->closed = 0;
	}
}

/* The trainer's steps' count, mean and deviation (ms) */
static void tp_stats(struct ana_train *tr, const struct steps *st)
{
	tr->steps = st->n;
	if (st->n) {
		double m = st->sum / (double)st->n, v = st->sq / (double)st->n - m * m;

		tr->step_mean_ms = m;
		tr->step_sd_ms = v > 0 ? sqrt(v) : 0;
	}
}

/*
 * The trainer's rows, its calls and its waits for the job merged in time
 * (a wait is taken once the calls reach the time it was written at, as in
 * ana_sched.c).  A gap's work is its length less its waits for the job.
 * By batch: a step's work is the sum of its gaps' of ANA_STEP_GAP_NS or
 * more and half its longest or more (run_work), from the first such gap on, up to the first wait for the job in a
 * gap that follows (a poll for the next batch, a join of the old workers)
 * or the start of a loader (a new epoch's): compute, then the hand-over.
 * A wait for the job inside a call (a socket's exchange with the worker
 * that sent the batch, before the compute) starts it again: the work
 * before it was the batch's hand-over (unpickling, its tensors' set-up).
 */
static int trainer_pass(struct ana *a, struct ana_train *tr)
{
	static const char *const scn[] = { "ts_ns", "dur_ns", "tid", "op", "file_id" };
	static const char *const wcn[] = { "ts_ns", "dur_ns", "tid", "kind", "call", "run_ns" };
	struct tpass p = { .tr = tr, .run = { { 0 }, 0 } };
	int err, first = 1;

	p.by_batch = tr->how == ANA_TRAIN_PIPE;
	p.have_w = a->sched.have;
	p.forks = p.by_batch ? loader_starts(a, tr, &p.nforks) : NULL;
	if ((err = colrd_open(&p.sc, a->r, TAPE_TABLE_SYSCALL, a->t0, a->t1, scn, 5)))
		goto out_sc;
	/* the syscall table is the trace's longest: its blocks decoded on a
	 * second thread too (the name ranks beside this pass end first) */
	if (a->o.threads > 1)
		(void)tape_cursor_set_threads(p.sc.c, 2);
	if (p.have_w && (err = colrd_open(&p.wt, a->r, TAPE_TABLE_SCHED, 0, a->t1, wcn, 6)))
		goto out_w;
	if (p.have_w && (p.rw = colrd_next(&p.wt, 1)) < 0)
		goto done;
	for (int rc = colrd_next(&p.sc, 1); rc > 0; rc = colrd_next(&p.sc, 0)) {
		uint64_t ts = colrd_get(&p.sc, 0), end = ts + colrd_get(&p.sc, 1);

		if (colrd_get(&p.sc, 2) != tr->tid)
			continue;
		if (colrd_get(&p.sc, 3) >= TAPE_OP_URING_READ) {
			/* not a bound (io_uring's, poll's), but what it
			 * waited for comes in another call than a read;
			 * without the waits recorded, a poll's time is the
			 * wait for the job it most likely was */
			if (!p.have_w && ts >= p.last_end &&
			    tape_op_class((unsigned)colrd_get(&p.sc, 3)) == TAPE_OPC_WAIT) {
				p.pend += colrd_get(&p.sc, 1);
				p.pwait = 1;
			}
			p.last_fid = 0;
			continue;
		}
		int gap_waits = tp_waits(&p, ts) | p.pwait;
		uint64_t fid = colrd_get(&p.sc, 4);
		unsigned cls = tape_op_class((unsigned)colrd_get(&p.sc, 3));
		if (first) {
			first = 0;
			p.last_end = end;
			p.pend = 0;
			p.last_fid = cls == TAPE_OPC_READ ? fid : 0;
			continue;
		}
		if (ts > p.last_end)
			tp_gap(&p, ts, gap_waits);
		p.pwait = 0;
		tp_bound(&p, ts, cls, fid);
		p.last_fid = cls == TAPE_OPC_READ ? fid : 0;
		if (end > p.last_end)
			p.last_end = end;
	}
	if (p.by_batch ? p.in_batch : p.work >= ANA_STEP_GAP_NS)
		step(tr, &p.st, p.work ? p.wstart : p.last_end, p.work ? p.wend : p.last_end,
		     p.by_batch ? run_work(&p.run) : p.work, ANA_STEP_LAST);
done:
	/* a damaged block ends the pass where it is, as it ended the main
	 * passes (which noted it): the steps before it stand */
	err = 0;
	tp_stats(tr, &p.st);
	if (p.have_w)
		colrd_close(&p.wt);
out_w:
	colrd_close(&p.sc);
out_sc:
	free(p.forks);
	return err;
}

/*
 * An epoch ends when the trainer is done with it: its last step, or, when
 * its loaders are processes of their own that end with the epoch (PyTorch's
 * non-persistent workers), once they are gone (the trainer joins them
 * before it starts the next epoch: DLIO's epoch time holds that).
 */
static void loaders_end(struct ana *a, struct ana_train *tr)
{
	uint8_t *dp;

	if (tr->how != ANA_TRAIN_PIPE || !tr->nep)
		return;
	dp = data_procs(a);
	for (size_t i = 0; i < a->nprocs; i++) {
		const struct ana_proc *p = &a->procs[i];
		long e;

		if (!(dp[i] & 2) || !p->end_ns || p->end_ns < p->start_ns)
			continue;
		e = epoch_of(tr, p->end_ns);
		if (e < 0 || (size_t)e >= tr->nep || tr->ep[e].steps < 2)
			continue;
		/* it ended in epoch e's time but before the next began: ended
		 * with e (a loader that outlived its epoch's next start is
		 * counted in the next; this one was started for e) */
		if (p->start_ns < tr->ep[e].start_ns && p->end_ns > tr->ep[e].to_ns)
			tr->ep[e].to_ns = p->end_ns;
	}
	ana_tmp_free(dp);
}

int ana_train(struct ana *a)
{
	struct ana_train *tr = &a->train;
	double sum = 0;
	size_t n = 0;
	int err;

	ana_train_release(tr);
	memset(tr, 0, sizeof(*tr));
	tr->au_dlio = tr->au_run = NAN;
	choose(a, tr);
	if (!tr->found)
		return 0;
	uint64_t dur = ana_trace_end(a) - a->t0;
	tr->au_run = dur ? (double)tr->work_ns / (double)dur : NAN;
	if (a->nep && ana_epochs_known(a)) {
		tr->ep = ana_xcalloc(a->nep, sizeof(*tr->ep));
		tr->nep = a->nep;
		for (size_t k = 0; k < a->nep; k++)
			tr->ep[k].start_ns = a->sys.epochs[k].start_ns;
		tr->start_ns = tr->ep[0].start_ns;
	}
	if ((err = trainer_pass(a, tr)))
		return err;
	loaders_end(a, tr);
	for (size_t k = 0; k < tr->nep; k++) {
		struct ana_au_epoch *x = &tr->ep[k];

		x->au = x->from_ns && x->to_ns > x->from_ns ?
			(double)x->work_ns / (double)(x->to_ns - x->from_ns) : NAN;
		if (!isnan(x->au)) {
			sum += x->au;
			n++;
		}
	}
	tr->au_dlio = n ? sum / (double)n : NAN;
	if (!tr->nep && tr->span.from_ns && tr->span.to_ns > tr->span.from_ns) {
		tr->span.au = (double)tr->span.work_ns / (double)(tr->span.to_ns - tr->span.from_ns);
		tr->au_dlio = tr->span.au;
	}
	return 0;
}

void ana_train_release(struct ana_train *t)
{
	free(t->feeds);
	t->feeds = NULL;
	t->nfeeds = t->capfeeds = 0;
	free(t->ep);
	t->ep = NULL;
	t->nep = 0;
	free(t->ends);
	t->ends = NULL;
}
