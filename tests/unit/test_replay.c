/* SPDX-License-Identifier: MIT */
/*
 * test_replay.c - the replay engine (replay/rp_run.c) driven by a
 * synthetic source held in memory (struct memsrc below: a layout and each
 * thread's ops in arrays), one behaviour a test:
 *
 *   order       a thread's ops are done in the order the source gives
 *               them, each read the bytes asked of the file asked;
 *   deps        an op that names (thread, seq) waits for that thread's
 *               first seq ops, though the other thread computes first;
 *   handover    a hand-over (RP_F_HANDOVER): the wait the dependency
 *               stands for is not replayed as compute as well;
 *   think/afap  think timing sleeps the recorded gaps (compute_scale
 *               scales them), afap none;
 *   failures    an open that fails and the read through its fd are each
 *               counted by kind, with the first one's error and file, and
 *               the text report names the file; the run itself succeeds;
 *   hooks       every set of hooks sees every op done once, in the order
 *               the sets were added, and each loop's start;
 *   resolver    the source's directory resolver (rp_dirs) says where each
 *               file is: a file it puts under another directory, at
 *               another path, is read there, and it is told of each loop.
 *
 * Each test prepares its files (rp_prepare) in a directory of its own
 * under /tmp and removes it.  Exit 0 pass, 1 fail, 77 without io_uring.
 * Times are only bounded from below: the machine may be slow, never fast.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <liburing.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "replay.h"

#define MS 1000000ull
#define MAXT 4		/* threads */
#define MAXOPS 16	/* ops per thread */
#define LEN 4096

/* ------------------------------------------------- the in-memory source */

struct memsrc {
	struct rp_source s;	/* first: the engine's view */
	struct rp_op ops[MAXT][MAXOPS];
	size_t nops[MAXT], pos[MAXT];
	unsigned rewinds;
	uint64_t deadline;	/* a bounded run (s.runtime_ns, --runtime): no
				 * ops handed out from then (0: none) */
};

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int ms_start(struct rp_source *s, unsigned loops)
{
	struct memsrc *m = (struct memsrc *)s;

	(void)loops;
	m->deadline = s->runtime_ns ? mono() + s->runtime_ns : 0;
	return 0;
}

static int ms_next(struct rp_source *s, unsigned t, struct rp_op *op)
{
	struct memsrc *m = (struct memsrc *)s;

	if (m->pos[t] == m->nops[t] || (m->deadline && mono() >= m->deadline))
		return 0;
	*op = m->ops[t][m->pos[t]++];
	return 1;
}

static int ms_rewind(struct rp_source *s, unsigned t, unsigned loop)
{
	struct memsrc *m = (struct memsrc *)s;

	(void)loop;
	__atomic_fetch_add(&m->rewinds, 1, __ATOMIC_RELAXED);
	m->pos[t] = 0;
	return 0;
}

static int ms_stop(struct rp_source *s)
{
	(void)s;
	return 0;
}

static void ms_free(struct rp_source *s)
{
	rp_layout_release(&s->layout);
}

static const struct rp_source_ops ms_ops = {
	.start = ms_start, .next = ms_next, .rewind = ms_rewind, .stop = ms_stop,
	.free = ms_free,
};

/* The files every test has: f0 and f1 of 4 pages each, prepared, and
 * "missing", which is not. */
enum { F0, F1, MISSING, NFILES };

static void ms_init(struct memsrc *m, unsigned nthreads)
{
	static const char *const names[NFILES] = { "f0.bin", "f1.bin", "missing.bin" };
	struct rp_layout *l = &m->s.layout;
	uint32_t id;

	memset(m, 0, sizeof(*m));
	m->s.ops = &ms_ops;
	l->files = calloc(NFILES, sizeof(*l->files));
	l->threads = calloc(nthreads, sizeof(*l->threads));
	assert_non_null(l->files);
	assert_non_null(l->threads);
	for (unsigned f = 0; f < NFILES; f++) {
		assert_int_equal(cm_strtab_intern(&l->paths, names[f], &id), 1);
		assert_int_equal(id, f);
		l->files[f].dir = RP_NO_DIR;
		l->files[f].size = f == MISSING ? 0 : 4 * LEN;
		l->files[f].prepare = f != MISSING;
		l->files[f].dataset = f != MISSING;
	}
	l->nfiles = NFILES;
	for (unsigned t = 0; t < nthreads; t++) {
		l->threads[t].tid = l->threads[t].pid = 100 + t;
		l->threads[t].depth = 1;
		l->threads[t].maxlen = LEN;
	}
	l->nthreads = nthreads;
	l->nslots = MAXT;
}

/* Append an op to thread t: kind on file through slot t, at ts for dur. */
static struct rp_op *ms_add(struct memsrc *m, unsigned t, uint32_t kind, uint32_t file,
			    uint64_t off, uint64_t ts, uint64_t dur)
{
	struct rp_op *op;

	assert_true(m->nops[t] < MAXOPS);
	op = &m->ops[t][m->nops[t]++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->file = file;
	op->file2 = RP_NO_FILE;
	op->slot = t;
	op->ts = ts;
	op->end = ts + dur;
	op->conc = 1;
	op->oflags = O_RDONLY;
	if (kind == CM_READ) {
		op->off = off;
		op->len = LEN;
	}
	m->s.layout.expected[kind]++;
	return op;
}

/* The ops of thread t: open at ts, n reads of file a page apart (the
 * first as the open ends, each next one gap ns after the one before
 * ended: n - 1 gaps of compute), close as the last read ends; 1 us each. */
static void ms_reads(struct memsrc *m, unsigned t, uint32_t file, unsigned n, uint64_t ts,
		     uint64_t gap)
{
	uint64_t at = ts + 1000;

	ms_add(m, t, CM_OPEN, file, 0, ts, 1000);
	for (unsigned i = 0; i < n; i++, at += 1000 + gap)
		ms_add(m, t, CM_READ, file, (uint64_t)i * LEN, at, 1000);
	ms_add(m, t, CM_CLOSE, file, 0, at - gap, 1000);
}

/* --------------------------------------------------------------- hooks */

struct seen {			/* an op done, as an op hook saw it */
	unsigned thread, set;
	uint32_t kind, file;
	int64_t res;
};

struct log {
	pthread_mutex_t mu;
	struct seen v[4 * MAXT * MAXOPS];
	size_t n;
	unsigned loops[4];	/* loop_start calls, by loop */
	unsigned nloop_calls;
};

struct hookarg {
	struct log *log;
	unsigned set;
};

static void h_op(void *arg, const struct rp_op_done *d)
{
	struct hookarg *h = arg;
	struct log *g = h->log;

	pthread_mutex_lock(&g->mu);
	if (g->n < sizeof(g->v) / sizeof(g->v[0]))
		g->v[g->n++] = (struct seen){ d->thread, h->set, d->kind, d->file, d->res };
	pthread_mutex_unlock(&g->mu);
}

static void h_loop(void *arg, unsigned loop)
{
	struct hookarg *h = arg;

	if (h->set == 0 && loop < 4)
		h->log->loops[loop]++;
	h->log->nloop_calls++;	/* (serial thread) */
}

/* ----------------------------------------------------------------- run */

static char *mkdir_tmp(void)
{
	char *d = strdup("/tmp/iotape-test-replay.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

/* Prepare m's files under a new directory, replay them with o (and the
 * hooks of log in two sets, when log is given) into res, and remove the
 * directory.  m's layout is the caller's to release. */
static void replay(struct memsrc *m, const struct rp_opts *o, struct log *log,
		   struct rp_result *res)
{
	struct hookarg ha[2] = { { log, 0 }, { log, 1 } };
	struct rp_prep_opts po = { 0 };
	struct rp_prep_stats ps;
	struct rp_engine *e = NULL;
	char err[256] = "", *dir = mkdir_tmp();
	int dirfd = rp_dir_open(dir, 0, err, sizeof(err));

	assert_true(dirfd >= 0);
	assert_int_equal(rp_prepare(dirfd, &m->s.layout, &po, &ps, err, sizeof(err)), 0);
	assert_int_equal(ps.files, 2);
	assert_int_equal(rp_engine_init(&e, &m->s, dirfd, o, err, sizeof(err)), 0);
	for (int s = 0; log && s < 2; s++) {
		struct rp_hooks h = { .arg = &ha[s], .op = h_op, .loop_start = h_loop };
		assert_int_equal(rp_engine_add_hooks(e, &h), 0);
	}
	int rc = rp_engine_run(e, err, sizeof(err));
	if (rc)
		fail_msg("rp_engine_run: %d %s", rc, err);
	rp_engine_finish(e, res);
	rp_engine_free(e);
	close(dirfd);
	assert_int_equal(nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(dir);
}

static struct rp_opts opts(int timing)
{
	struct rp_opts o = { .timing = timing, .speed = 1, .compute_scale = 1, .iodepth = 1,
			     .loops = 1 };
	return o;
}

static struct log *log_new(void)
{
	struct log *g = calloc(1, sizeof(*g));

	assert_non_null(g);
	pthread_mutex_init(&g->mu, NULL);
	return g;
}

/* Where in the log thread t's i-th op (of set 0) was seen; -1: never. */
static long seen_at(const struct log *g, unsigned t, size_t i)
{
	for (size_t k = 0; k < g->n; k++)
		if (g->v[k].thread == t && g->v[k].set == 0 && !i--)
			return (long)k;
	return -1;
}

/* --------------------------------------------------------------- tests */

/* A thread's ops are done in the source's order, each read whole. */
static void test_order(void **state)
{
	static const uint32_t want[] = { CM_OPEN, CM_READ, CM_READ, CM_READ, CM_READ, CM_CLOSE };
	struct memsrc m;
	struct rp_result res;
	struct rp_opts o = opts(RP_TIME_AFAP);
	struct log *g = log_new();

	(void)state;
	ms_init(&m, 1);
	ms_reads(&m, 0, F1, 4, 0, 0);
	replay(&m, &o, g, &res);
	assert_int_equal(g->n, 2 * 6);
	for (size_t i = 0; i < 6; i++) {
		const struct seen *s = &g->v[seen_at(g, 0, i)];
		assert_int_equal(s->kind, want[i]);
		assert_int_equal(s->file, F1);
		assert_int_equal(s->res, want[i] == CM_READ ? LEN : 0);
	}
	assert_int_equal(res.jobs[0].d[0].ios, 4);
	assert_int_equal(res.jobs[0].d[0].bytes, 4 * LEN);
	assert_int_equal(res.jobs[0].done[CM_READ], 4);
	assert_int_equal(res.jobs[0].errors, 0);
	assert_int_equal(res.file_bytes[F1], 4 * LEN);
	assert_int_equal(res.file_bytes[F0], 0);
	rp_result_release(&res);
	rp_layout_release(&m.s.layout);
	free(g);
}

/* Thread 1's read waits for thread 0's third op (its second read), which
 * comes after 30 ms of compute; thread 1 itself has none before it. */
static void test_deps(void **state)
{
	struct memsrc m;
	struct rp_result res;
	struct rp_opts o = opts(RP_TIME_THINK);
	struct log *g = log_new();

	(void)state;
	ms_init(&m, 2);
	ms_reads(&m, 0, F0, 2, 0, 30 * MS);
	ms_reads(&m, 1, F1, 1, 0, 0);
	m.ops[1][1].dep_thread = 0;
	m.ops[1][1].dep_seq = 3;
	replay(&m, &o, g, &res);
	long dep = seen_at(g, 0, 2), mine = seen_at(g, 1, 1);
	assert_true(dep >= 0 && mine >= 0);
	assert_true(mine > dep);
	assert_int_equal(g->v[mine].kind, CM_READ);
	assert_int_equal(res.jobs[0].compute_ns, 30 * MS);
	assert_int_equal(res.jobs[1].compute_ns, 0);
	assert_true(res.jobs[1].wall_ns >= 30 * MS);	/* it waited */
	rp_result_release(&res);
	rp_layout_release(&m.s.layout);
	free(g);
}

/* A hand-over: thread 1's read was recorded 40 ms after its open, all of
 * it waiting for thread 0's second read, after 20 ms of compute (op.wait
 * 40 ms): it follows that read, and none of the 40 ms is replayed as
 * thread 1's compute. */
static void test_handover(void **state)
{
	struct memsrc m;
	struct rp_result res;
	struct rp_opts o = opts(RP_TIME_THINK);
	struct log *g = log_new();

	(void)state;
	ms_init(&m, 2);
	ms_reads(&m, 0, F0, 2, 0, 20 * MS);
	ms_reads(&m, 1, F1, 1, 0, 0);
	struct rp_op *op = &m.ops[1][1];
	for (int i = 1; i <= 2; i++) {	/* the read and the close, 40 ms on */
		m.ops[1][i].ts += 40 * MS;
		m.ops[1][i].end += 40 * MS;
	}
	op->dep_thread = 0;
	op->dep_seq = 3;
	op->flags |= RP_F_HANDOVER;
	op->wait = 40 * MS;
	replay(&m, &o, g, &res);
	assert_true(seen_at(g, 1, 1) > seen_at(g, 0, 2));
	assert_int_equal(res.jobs[0].compute_ns, 20 * MS);
	assert_int_equal(res.jobs[1].compute_ns, 0);
	assert_true(res.jobs[1].wall_ns >= 20 * MS);
	rp_result_release(&res);
	rp_layout_release(&m.s.layout);
	free(g);
}

/* Think timing: the recorded gaps (3 of 15 ms: 4 reads) are slept and
 * counted as compute, scaled by compute_scale; afap: none. */
static void test_timing(void **state)
{
	static const struct { int timing; double scale; uint64_t compute; } c[] = {
		{ RP_TIME_THINK, 1, 45 * MS },
		{ RP_TIME_THINK, 2, 90 * MS },
		{ RP_TIME_AFAP, 1, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct memsrc m;
		struct rp_result res;
		struct rp_opts o = opts(c[i].timing);

		o.compute_scale = c[i].scale;
		ms_init(&m, 1);
		ms_reads(&m, 0, F0, 4, 0, 15 * MS);
		replay(&m, &o, NULL, &res);
		assert_int_equal(res.jobs[0].compute_ns, c[i].compute);
		assert_true(res.jobs[0].wall_ns >= c[i].compute);
		assert_int_equal(res.jobs[0].d[0].ios, 4);
		rp_result_release(&res);
		rp_layout_release(&m.s.layout);
	}
}

/* A bounded source (rp_source.runtime_ns: 100 ms): thread 0's
 * second read comes 2 s of compute after its first, thread 1's second
 * read waits for it.  Under think and original timing the run ends at the
 * deadline, not 2 s later: neither second read (nor close) is issued or
 * counted, thread 0's compute is what ran before the deadline, and the
 * result says the bound was reached. */
static void test_deadline(void **state)
{
	static const int timing[] = { RP_TIME_THINK, RP_TIME_ORIGINAL };

	(void)state;
	for (size_t i = 0; i < sizeof(timing) / sizeof(timing[0]); i++) {
		struct memsrc m;
		struct rp_result res;
		struct rp_opts o = opts(timing[i]);

		ms_init(&m, 2);
		m.s.runtime_ns = 100 * MS;
		ms_reads(&m, 0, F0, 2, 0, 2000 * MS);
		ms_reads(&m, 1, F1, 2, 0, 0);
		m.ops[1][2].dep_thread = 0;	/* thread 0's second read */
		m.ops[1][2].dep_seq = 3;
		uint64_t t = mono();
		replay(&m, &o, NULL, &res);
		t = mono() - t;
		assert_true(t < 1000 * MS);
		assert_true(res.wall_ns >= 50 * MS && res.wall_ns < 1000 * MS);
		assert_true(res.bounded);
		for (unsigned th = 0; th < 2; th++) {
			assert_int_equal(res.jobs[th].done[CM_OPEN], 1);
			assert_int_equal(res.jobs[th].done[CM_READ], 1);
			assert_int_equal(res.jobs[th].done[CM_CLOSE], 0);
			assert_int_equal(res.jobs[th].d[0].ios, 1);
		}
		assert_true(res.jobs[0].compute_ns >= 50 * MS);
		assert_true(res.jobs[0].compute_ns <= 100 * MS);
		rp_result_release(&res);
		rp_layout_release(&m.s.layout);
	}
}

/* An open of a file that is not there fails, and the read through its fd
 * is not issued: each counted under its kind with its error and file,
 * the thread's other ops done, the report naming the file. */
static void test_failures(void **state)
{
	struct memsrc m;
	struct rp_result res;
	struct rp_opts o = opts(RP_TIME_AFAP);
	struct log *g = log_new();
	char *text = NULL;
	size_t len = 0;

	(void)state;
	ms_init(&m, 1);
	ms_reads(&m, 0, MISSING, 1, 0, 0);
	ms_add(&m, 0, CM_OPEN, F0, 0, 10000, 1000)->slot = 1;
	ms_add(&m, 0, CM_READ, F0, 0, 11000, 1000)->slot = 1;
	replay(&m, &o, g, &res);
	const struct rp_job *j = &res.jobs[0];
	assert_int_equal(j->failed[CM_OPEN], 1);
	assert_int_equal(j->first_fail[CM_OPEN].err, -ENOENT);
	assert_int_equal(j->first_fail[CM_OPEN].file, MISSING);
	assert_int_equal(j->failed[CM_READ], 1);
	assert_int_equal(j->first_fail[CM_READ].err, -EBADF);
	assert_int_equal(j->first_fail[CM_READ].file, MISSING);
	assert_int_equal(j->d[0].drop_ios, 1);
	assert_int_equal(j->first_error, -ENOENT);
	/* the close of the fd that never opened fails too (EBADF) */
	assert_int_equal(j->failed[CM_CLOSE], 1);
	assert_int_equal(j->errors, 3);
	assert_int_equal(j->d[0].ios, 1);	/* f0's read */
	assert_int_equal(res.file_bytes[F0], LEN);
	/* the op hooks see the failures as such */
	assert_true(g->v[seen_at(g, 0, 0)].res == -ENOENT);
	assert_true(g->v[seen_at(g, 0, 1)].res == -EBADF);
	assert_int_equal(g->v[seen_at(g, 0, 4)].res, LEN);

	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(rp_report_text(f, &m.s.layout, &o, &(struct rp_report_opts){ 0 }, &res), 0);
	assert_int_equal(fclose(f), 0);
	if (!strstr(text, "failed in the replay: 3 ops:") ||
	    !strstr(text, "open 1 (first: missing.bin: No such file or directory)") ||
	    !strstr(text, "read 1 (first: missing.bin: Bad file descriptor)"))
		fail_msg("the report does not name the failures:\n%s", text);
	free(text);
	rp_result_release(&res);
	rp_layout_release(&m.s.layout);
	free(g);
}

/* Two sets of hooks over 2 loops of 2 threads: loop_start once a loop
 * (each set), the op hook once per op done, set 0 before set 1 for each
 * op, the source rewound for the second loop. */
static void test_hooks(void **state)
{
	struct memsrc m;
	struct rp_result res;
	struct rp_opts o = opts(RP_TIME_AFAP);
	struct log *g = log_new();

	(void)state;
	o.loops = 2;
	ms_init(&m, 2);
	ms_reads(&m, 0, F0, 2, 0, 0);
	ms_reads(&m, 1, F1, 3, 0, 0);
	replay(&m, &o, g, &res);
	assert_int_equal(g->loops[0], 1);
	assert_int_equal(g->loops[1], 1);
	assert_int_equal(g->nloop_calls, 4);
	assert_int_equal(m.rewinds, 2);
	assert_int_equal(g->n, 2 * 2 * (4 + 5));
	for (unsigned t = 0; t < 2; t++) {
		size_t n0 = 0, n1 = 0;
		for (size_t k = 0; k < g->n; k++) {
			if (g->v[k].thread != t)
				continue;
			/* per thread, the sets alternate: 0 then 1, op by op */
			assert_int_equal(g->v[k].set, (n0 + n1) % 2);
			if (g->v[k].set)
				n1++;
			else
				n0++;
		}
		assert_int_equal(n0, 2 * (t ? 5 : 4));
		assert_int_equal(n1, n0);
	}
	assert_int_equal(res.jobs[0].done[CM_READ], 4);
	assert_int_equal(res.jobs[1].done[CM_READ], 6);
	rp_result_release(&res);
	rp_layout_release(&m.s.layout);
	free(g);
}

/* A resolver that puts F1 under another directory, as "elsewhere.bin". */
struct tdirs {
	int fd[2];		/* DIR's, the other's */
	unsigned loops[4], nloops;
	unsigned f1_paths;	/* F1's paths asked */
};

static int td_file(void *arg, uint32_t f, const char **path, char *buf, size_t len)
{
	struct tdirs *t = arg;
	static const char *const names[NFILES] = { "f0.bin", "elsewhere.bin", "missing.bin" };

	(void)buf, (void)len;
	if (path && f == F1)
		__atomic_fetch_add(&t->f1_paths, 1, __ATOMIC_RELAXED);
	if (path)
		*path = names[f];
	return t->fd[f == F1];
}

static int td_dir(void *arg, uint32_t d)
{
	(void)d;
	return ((struct tdirs *)arg)->fd[0];
}

static int td_via(void *arg, uint32_t f, uint32_t g)
{
	(void)arg, (void)f, (void)g;
	return 0;
}

static int td_loop(void *arg, unsigned loop)	/* (no replay thread runs) */
{
	struct tdirs *t = arg;

	if (t->nloops < 4)
		t->loops[t->nloops++] = loop;
	return 1;	/* nothing to restore */
}

static void test_resolver(void **state)
{
	struct memsrc m;
	struct rp_result res;
	struct rp_opts o = opts(RP_TIME_AFAP);
	struct tdirs td = { .nloops = 0 };
	struct rp_engine *e = NULL;
	char err[256] = "", *dir = mkdir_tmp(), *other = mkdir_tmp();
	int fd;

	(void)state;
	o.loops = 2;
	ms_init(&m, 1);
	ms_reads(&m, 0, F1, 4, 0, 0);
	td.fd[0] = rp_dir_open(dir, 0, err, sizeof(err));
	td.fd[1] = open(other, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(td.fd[0] >= 0 && td.fd[1] >= 0);
	fd = openat(td.fd[1], "elsewhere.bin", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4 * LEN), 0);
	close(fd);
	m.s.dirs = (struct rp_dirs){ &td, td_file, td_dir, td_via, td_loop };
	assert_int_equal(rp_engine_init(&e, &m.s, td.fd[0], &o, err, sizeof(err)), 0);
	if (rp_engine_run(e, err, sizeof(err)))
		fail_msg("rp_engine_run: %s", err);
	rp_engine_finish(e, &res);
	rp_engine_free(e);
	/* read where the resolver said, each loop; nothing of F1 under DIR */
	assert_int_equal(res.jobs[0].errors, 0);
	assert_int_equal(res.jobs[0].d[0].ios, 8);
	assert_int_equal(res.file_bytes[F1], 8 * LEN);
	assert_int_equal(faccessat(td.fd[0], "f1.bin", F_OK, 0), -1);
	assert_int_equal(faccessat(td.fd[0], "elsewhere.bin", F_OK, 0), -1);
	assert_int_equal(td.nloops, 2);
	assert_int_equal(td.loops[0], 0);
	assert_int_equal(td.loops[1], 1);
	assert_int_equal(td.f1_paths, 2);	/* its open, each loop */
	close(td.fd[0]);
	close(td.fd[1]);
	assert_int_equal(nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	assert_int_equal(nftw(other, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(dir);
	free(other);
	rp_result_release(&res);
	rp_layout_release(&m.s.layout);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_deps),
		cmocka_unit_test(test_handover),
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_hooks),
		cmocka_unit_test(test_resolver),
	};
	struct io_uring ring;
	int rc = io_uring_queue_init(8, &ring, 0);

	if (rc < 0) {
		fprintf(stderr, "no io_uring here: %s\n", strerror(-rc));
		return 77;
	}
	io_uring_queue_exit(&ring);
	return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
