/* SPDX-License-Identifier: MIT */
/*
 * rp_replica.c - the replica source: N simulated accelerators, each running
 * the whole job of an inner source at once (--accelerators N).
 *
 * The inner source is opened N times (one per accelerator: each hands out
 * its own stream of the job's ops, as N data-parallel ranks run the same
 * training loop), and their layout is laid side by side: accelerator a has
 * threads a*T .. a*T+T-1, files a*F .. a*F+F-1, slots and directories the
 * same way.  Its files are the job's under other names:
 *
 *   read-only data set files   PATH (a = 0), RP_COPY_DIR "A/PATH" (a >= 1):
 *                              the --scale-dataset copies, so the storage
 *                              sees N times the demand over N times the data;
 *   everything else            PATH (a = 0), RP_ACC_DIR "A/PATH" (a >= 1):
 *                              what the job writes (checkpoints, logs) goes
 *                              to a directory of the accelerator's own.
 *
 * Each op is the inner source's with its thread, file, slot and dependency
 * moved to the accelerator's; with writers_one, the ops of accelerators
 * a >= 1 on files the job writes are handed as RP_F_SKIP (not issued, their
 * place and timing kept).  With a runtime, every thread's stream ends once
 * the run has lasted that long (rp_source.runtime_ns: the engine issues
 * nothing past it, nor sleeps past it).  Memory: N times the inner source's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "replay.h"

struct replica {
	struct rp_source s;
	struct rp_source **in;	/* one per accelerator */
	unsigned n;
	unsigned base;		/* global index of accelerator 0 */
	uint32_t nthr, nfiles, nslots, ndirs;	/* the inner layout's */
	uint32_t *acc_root;	/* per accelerator: dir id of RP_ACC_DIR "A", or RP_NO_DIR */
	int writers_one;
	uint64_t runtime_ns, deadline;
	_Atomic int over;	/* the runtime is up */
	/* --sync-steps: the training threads meet at each step; a barrier
	 * per loop parity, so that the next loop's starts nothing until
	 * this one's is over (the engine runs loops one after the other) */
	int sync;
	uint32_t train;		/* the inner training thread */
	uint64_t *prev_end;	/* per accelerator: its training thread's
				 * recorded end of ops so far */
	unsigned *loop;		/* per accelerator: the loop it is in */
	uint8_t *marked;	/* per accelerator: its first step's end marked */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct { unsigned arrived, left; uint64_t gen; } bar[2];
	uint64_t steps;		/* barriers passed */
	void (*step)(void *arg);
	void *step_arg;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The path of inner file f for accelerator a. */
static const char *acc_path(const struct rp_layout *l, uint32_t f, unsigned a, char *buf,
			    size_t len)
{
	if (!a)
		return rp_file_path(l, f);
	if (strcmp(rp_file_path(l, f), RP_DIR_ITSELF) == 0)	/* its own DIR */
		snprintf(buf, len, RP_ACC_DIR "%u", a);
	else
		snprintf(buf, len, "%s%u/%s", l->files[f].dataset ? RP_COPY_DIR : RP_ACC_DIR, a,
			 rp_file_path(l, f));
	return buf;
}

/* Whether an op on inner file f is on a file the job writes. */
static int written(const struct rp_layout *l, uint32_t f)
{
	return f < l->nfiles && !l->files[f].dataset && l->files[f].modified;
}

size_t rp_train_thread(const struct rp_layout *l)
{
	size_t best = 0;

	if (l->train && l->train <= l->nthreads)
		return l->train - 1;	/* the source's (the analysis's) */
	for (size_t t = 1; t < l->nthreads; t++)
		if (l->threads[t].compute_ns > l->threads[best].compute_ns)
			best = t;
	return best;
}

int rp_layout_no_compute(const struct rp_layout *l)
{
	return !l->nthreads || !l->threads[rp_train_thread(l)].compute_ns;
}

/* Accelerator a's training thread is at a step: wait for every other
 * accelerator's (or for those that are done with the loop). */
static void step_barrier(struct replica *r, unsigned a)
{
	unsigned p = r->loop[a] & 1;

	pthread_mutex_lock(&r->mu);
	uint64_t gen = r->bar[p].gen;
	if (++r->bar[p].arrived + r->bar[p].left >= r->n) {
		if (r->step && !r->bar[p].left)
			r->step(r->step_arg);	/* the other ranks' too */
		r->bar[p].arrived = 0;
		r->bar[p].gen++;
		r->steps++;
		pthread_cond_broadcast(&r->cv);
	} else {
		while (r->bar[p].gen == gen && !atomic_load(&r->over))
			pthread_cond_wait(&r->cv, &r->mu);
	}
	pthread_mutex_unlock(&r->mu);
}

/* Accelerator a's training thread is done with its loop: the others no
 * longer wait for it there; the barrier of the loop after is made new. */
static void step_leave(struct replica *r, unsigned a)
{
	unsigned p = r->loop[a] & 1;

	pthread_mutex_lock(&r->mu);
	if (r->bar[p].arrived && r->bar[p].arrived + r->bar[p].left + 1 >= r->n) {
		r->bar[p].arrived = 0;
		r->bar[p].gen++;
		pthread_cond_broadcast(&r->cv);
	}
	r->bar[p].left++;
	/* no thread is in the loop after yet: the engine starts it once every
	 * thread is done with this one */
	r->bar[p ^ 1].arrived = r->bar[p ^ 1].left = 0;
	pthread_mutex_unlock(&r->mu);
	r->loop[a]++;
	r->prev_end[a] = 0;
}

static int replica_start(struct rp_source *s, unsigned loops)
{
	struct replica *r = (struct replica *)s;
	int rc = 0;

	for (unsigned a = 0; a < r->n && !rc; a++)
		if ((rc = r->in[a]->ops->start(r->in[a], loops)))
			snprintf(s->err, sizeof(s->err), "%s", r->in[a]->err);
	r->deadline = r->runtime_ns ? mono_ns() + r->runtime_ns : 0;
	atomic_store(&r->over, 0);
	memset(r->bar, 0, sizeof(r->bar));
	for (unsigned a = 0; r->prev_end && a < r->n; a++)
		r->loop[a] = 0, r->prev_end[a] = 0, r->marked[a] = 0;
	return rc;
}

static int replica_next(struct rp_source *s, unsigned t, struct rp_op *op)
{
	struct replica *r = (struct replica *)s;
	const struct rp_layout *il = &r->in[0]->layout;
	unsigned a = t / r->nthr, it = t % r->nthr;
	struct rp_source *in = r->in[a];
	int rc;

	int train = it == r->train && r->prev_end;

	if (!atomic_load(&r->over) && r->deadline && mono_ns() >= r->deadline) {
		pthread_mutex_lock(&r->mu);	/* step waiters give up */
		atomic_store(&r->over, 1);
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
	}
	rc = atomic_load(&r->over) ? 0 : in->ops->next(in, it, op);
	if (rc != 1) {
		if (train && rc == 0) {
			if (r->sync) {
				step_leave(r, a);
			} else {
				r->loop[a]++;
				r->prev_end[a] = 0;
			}
		}
		return rc;
	}
	if (train) {	/* a step of its training thread ended: the source's
			 * (the analysis's), else at a compute gap */
		if (il->steps_marked ? (op->flags & RP_F_STEPEND) != 0 :
		    r->prev_end[a] && op->ts >= r->prev_end[a] + RP_STEP_GAP_NS &&
		    !(op->flags & RP_F_OVERLAP)) {
			if (r->sync)
				step_barrier(r, a);
			if (!r->marked[a]) {	/* the first: warm-up, out of AU */
				r->marked[a] = 1;
				op->flags |= RP_F_MARK;
			}
		}
		if (op->end > r->prev_end[a])
			r->prev_end[a] = op->end;
	}
	/* every op names its file (a close, the one its slot held) */
	if (r->writers_one && r->base + a && (written(il, op->file) ||
				    (op->kind == CM_RENAME && written(il, op->file2))))
		op->flags |= RP_F_SKIP;
	if (op->file < r->nfiles)
		op->file += a * r->nfiles;
	if (op->file2 < r->nfiles)
		op->file2 += a * r->nfiles;
	if (op->slot != RP_NO_SLOT && op->slot < r->nslots)
		op->slot += a * r->nslots;
	if (op->kind == CM_DUP && op->slot2 < r->nslots)
		op->slot2 += a * r->nslots;
	if (op->dep_seq)
		op->dep_thread += a * r->nthr;
	return 1;
}

static int replica_rewind(struct rp_source *s, unsigned t, unsigned loop)
{
	struct replica *r = (struct replica *)s;
	struct rp_source *in = r->in[t / r->nthr];

	return in->ops->rewind ? in->ops->rewind(in, t % r->nthr, loop) : 0;
}

static int replica_stop(struct rp_source *s)
{
	struct replica *r = (struct replica *)s;
	int rc = 0;

	for (unsigned a = 0; a < r->n; a++) {
		int e = r->in[a]->ops->stop(r->in[a]);
		if (e && !rc) {
			rc = e;
			snprintf(s->err, sizeof(s->err), "%s", r->in[a]->err);
		}
	}
	return rc;
}

static void replica_free(struct rp_source *s)
{
	struct replica *r = (struct replica *)s;

	for (unsigned a = 0; r->in && a < r->n; a++)
		rp_source_free(r->in[a]);
	free(r->in);
	free(r->acc_root);
	free(r->prev_end);
	free(r->loop);
	free(r->marked);
	if (r->sync) {
		pthread_mutex_destroy(&r->mu);
		pthread_cond_destroy(&r->cv);
	}
	rp_layout_release(&s->layout);
	free(r);
}

static const struct rp_source_ops replica_ops = {
	.start = replica_start,
	.next = replica_next,
	.rewind = replica_rewind,
	.stop = replica_stop,
	.free = replica_free,
};

/* Lay the inner layout il out n times side by side in r's. */
static int build_layout(struct replica *r, const struct rp_layout *il)
{
	struct rp_layout *l = &r->s.layout;
	unsigned n = r->n;
	char buf[4096 + 64];
	uint32_t id;
	int rc;

	l->files = calloc((size_t)n * il->nfiles + 1, sizeof(*l->files));
	l->threads = calloc((size_t)n * il->nthreads + 1, sizeof(*l->threads));
	l->slot0 = calloc((size_t)n * il->nslot0 + 1, sizeof(*l->slot0));
	l->dir_made = calloc((size_t)n * (il->nfiles + cm_strtab_count(&il->dirs)) + n + 1, 1);
	r->acc_root = malloc(n * sizeof(*r->acc_root));
	if (!l->files || !l->threads || !l->slot0 || !l->dir_made || !r->acc_root)
		return -ENOMEM;

	/* directories: accelerator a's are the job's under RP_ACC_DIR "A/",
	 * and RP_ACC_DIR "A" itself for the files right under DIR */
	for (unsigned a = 0; a < n; a++) {
		for (uint32_t d = 0; d < r->ndirs; d++) {
			const char *p = cm_strtab_str(&il->dirs, d);
			unsigned g = r->base + a;
			if (g)
				snprintf(buf, sizeof(buf), RP_ACC_DIR "%u/%s", g, p);
			if ((rc = cm_strtab_intern(&l->dirs, g ? buf : p, &id)) < 0)
				return rc;
			if (id != a * r->ndirs + d)
				return -EINVAL;	/* two names became one */
			l->dir_made[id] = il->dir_made[d];
		}
	}
	for (unsigned a = 0; a < n; a++) {
		r->acc_root[a] = RP_NO_DIR;
		if (!(r->base + a))
			continue;
		snprintf(buf, sizeof(buf), RP_ACC_DIR "%u", r->base + a);
		if ((rc = cm_strtab_intern(&l->dirs, buf, &id)) < 0)
			return rc;
		l->dir_made[id] = 0;
		r->acc_root[a] = id;
	}
	for (unsigned a = 0; a < n; a++) {
		for (uint32_t f = 0; f < il->nfiles; f++) {
			struct rp_file *o = &l->files[(size_t)a * il->nfiles + f];
			const char *p = acc_path(il, f, r->base + a, buf, sizeof(buf));
			if ((rc = cm_strtab_intern(&l->paths, p, &id)) < 0)
				return rc;
			if (id != a * il->nfiles + f)
				return -EINVAL;	/* two names became one */
			*o = il->files[f];
			if (o->dir != RP_NO_DIR)
				o->dir += a * r->ndirs;
			else if (r->base + a && !o->dataset && !strchr(rp_file_path(il, f), '/'))
				o->dir = r->acc_root[a];
		}
		for (size_t t = 0; t < il->nthreads; t++) {
			struct rp_thread *th = &l->threads[a * il->nthreads + t];
			*th = il->threads[t];
			th->accel = r->base + a;
		}
		for (size_t i = 0; i < il->nslot0; i++) {
			struct rp_slot0 *s = &l->slot0[a * il->nslot0 + i];
			*s = il->slot0[i];
			s->slot += a * r->nslots;
			s->file += a * il->nfiles;
		}
	}
	/* each accelerator's links lead to its own files (a data set file's
	 * copy: the engine opens those by their own path) */
	if (il->nlinks && !(l->links = calloc((size_t)n * il->nlinks, sizeof(*l->links))))
		return -ENOMEM;
	for (unsigned a = 0; a < n; a++)
		for (size_t i = 0; i < il->nlinks; i++)
			l->links[l->nlinks++] = (struct rp_link){ il->links[i].file + a * il->nfiles,
								  il->links[i].target + a * il->nfiles };
	l->nfiles = (size_t)n * il->nfiles;
	l->nthreads = (size_t)n * il->nthreads;
	l->nslot0 = (size_t)n * il->nslot0;
	l->nslots = n * il->nslots;
	l->span = il->span;
	memcpy(l->expected, il->expected, sizeof(l->expected));
	l->skipped = il->skipped;
	l->failed = il->failed;
	l->unmatched = il->unmatched;
	l->not_storage = il->not_storage;
	l->fault_reads = il->fault_reads;
	l->fault_pages = il->fault_pages;
	l->faults_unmatched = il->faults_unmatched;
	l->faults_code = il->faults_code;
	l->faults_shm = il->faults_shm;
	l->dataset_bytes = il->dataset_bytes;
	l->late = il->late;
	l->opens_inferred = il->opens_inferred;
	l->readers_recorded = il->readers_recorded;
	l->direct = il->direct;
	l->memfs_ops = il->memfs_ops;
	l->nmemfs = il->nmemfs;
	l->train = il->train;	/* accelerator 0's; each has its rp_thread.train */
	l->nmarks = il->nmarks;
	l->steps_marked = il->steps_marked;
	l->handovers = il->handovers;
	memcpy(l->memfs, il->memfs, sizeof(l->memfs));
	rp_layout_scale_counts(l, n, 1);
	return 0;
}

int rp_replica_open(struct rp_source **out, const struct rp_replica_opts *o,
		    rp_source_open_fn open, void *arg, char *err, size_t errlen)
{
	struct replica *r = calloc(1, sizeof(*r));
	unsigned n = o->accelerators ? o->accelerators : 1;
	int rc;

	*out = NULL;
	if (!r || !(r->in = calloc(n, sizeof(*r->in)))) {
		free(r);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->s.ops = &replica_ops;
	r->n = n;
	r->writers_one = o->writers_one;
	r->base = o->base;
	r->runtime_ns = r->s.runtime_ns = o->runtime_ns;	/* the engine's too */
	for (unsigned a = 0; a < n; a++) {
		if ((rc = open(arg, a, &r->in[a], err, errlen))) {
			r->n = a;
			replica_free(&r->s);
			return rc;
		}
	}
	const struct rp_layout *il = &r->in[0]->layout;
	r->nthr = (uint32_t)il->nthreads;
	r->nfiles = (uint32_t)il->nfiles;
	r->nslots = il->nslots;
	r->ndirs = (uint32_t)cm_strtab_count(&il->dirs);
	for (unsigned a = 1; a < n; a++) {	/* the same job, n times */
		const struct rp_layout *l = &r->in[a]->layout;
		if (l->nthreads != il->nthreads || l->nfiles != il->nfiles ||
		    l->nslots != il->nslots) {
			snprintf(err, errlen, "accelerator %u's job differs from accelerator 0's", a);
			replica_free(&r->s);
			return -EINVAL;
		}
	}
	if ((uint64_t)n * (il->nfiles + 1) > UINT32_MAX - 1 || (uint64_t)o->base + n > 1u << 20 ||
	    (uint64_t)n * (il->nslots + 1) > UINT32_MAX - 1) {
		snprintf(err, errlen, "%u accelerators of %zu files: too many files", n, il->nfiles);
		replica_free(&r->s);
		return -EOVERFLOW;
	}
	r->train = il->nthreads ? (uint32_t)rp_train_thread(il) : 0;
	if (il->nthreads && il->threads[r->train].steps) {	/* steps to see */
		r->prev_end = calloc(n, sizeof(*r->prev_end));
		r->loop = calloc(n, sizeof(*r->loop));
		r->marked = calloc(n, 1);
		if (!r->prev_end || !r->loop || !r->marked) {
			replica_free(&r->s);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	if (o->sync_steps) {
		if (!r->prev_end) {	/* (il is freed with r: the message first) */
			snprintf(err, errlen, "--sync-steps: the trace shows no training steps (%s)",
				 il->steps_marked ? "its training thread has none" :
				 "no thread has compute gaps of 1 ms or more between its ops");
			replica_free(&r->s);
			return -EINVAL;
		}
		pthread_mutex_init(&r->mu, NULL);
		pthread_cond_init(&r->cv, NULL);
		r->sync = 1;
		r->step = o->step;
		r->step_arg = o->step_arg;
	}
	if ((rc = build_layout(r, il))) {
		snprintf(err, errlen, "%u accelerators: %s", n,
			 rc == -EINVAL ? "a file's name collides with an accelerator's copy" :
					 strerror(-rc));
		replica_free(&r->s);
		return rc;
	}
	*out = &r->s;
	return 0;
}
