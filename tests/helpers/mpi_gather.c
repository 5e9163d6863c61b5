/*
 * mpi_gather.c - the MPI building blocks of replay --mpi (replay/rp_mpi.h),
 * run by tests/cli/replay_mpi.sh under mpirun -np 2 and 3.
 *
 * Each rank makes rank + 1 jobs whose latency records hold known values:
 * job g (its index over all ranks, rank by rank) has
 *   d[0].clat  exact:      100 g + 1 .. 100 g + 100
 *   d[0].lat   histogram:  10^6 g + 10^3 k, k = 1 .. 500 (budget 0)
 *   terr       exact:      200000 values (3 g + 7 i) % 100003 (a big buffer)
 *   d[1]       none
 * and counters that name it.  After rp_mpi_gather rank 0 must hold every
 * job in rank order with its rank and host, each latency record equal to
 * one rebuilt here from the same values (counts, sums, exact values or
 * every bucket, percentiles), and the merge of the clats over all J jobs
 * the values 1 .. 100 J: p50 50 J, p90 90 J, p99 99 J exactly.  Then the
 * split of N accelerators over P ranks, the allreduces, a broadcast, the
 * loop hook from another thread (MPI_THREAD_SERIALIZED).
 *
 * Built without MPI (make MPI=0), it checks the stubs (-ENOTSUP, rank 0,
 * size 1) and the split, without mpirun.
 *
 * usage: mpi_gather [built]   ("built": print 1 or 0, rp_mpi_built)
 * Prints "rank R: ok" per rank; on a failure, a line and exit 1 (under
 * MPI: MPI_Abort, so the other ranks do not wait).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rp_mpi.h"

static int me;

#define CHECK(c, ...)                                                                      \
	do {                                                                               \
		if (!(c)) {                                                                \
			fprintf(stderr, "rank %d: FAIL line %d: %s: ", me, __LINE__, #c); \
			fprintf(stderr, __VA_ARGS__);                                      \
			fprintf(stderr, "\n");                                             \
			fflush(stderr);                                                    \
			rp_mpi_abort(1);                                                   \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

#define TERR_N 200000u
#define HIST_N 500u

static void fill_clat(struct cm_lat *l, unsigned g)
{
	for (unsigned k = 1; k <= 100; k++)
		CHECK(!cm_lat_add(l, 100ull * g + k, NULL), "cm_lat_add");
}

static void fill_lat(struct cm_lat *l, unsigned g)
{
	size_t none = 0;
	for (unsigned k = 1; k <= HIST_N; k++)
		CHECK(!cm_lat_add(l, 1000000ull * g + 1000ull * k, &none), "cm_lat_add");
}

static void fill_terr(struct cm_lat *l, unsigned g)
{
	for (unsigned i = 0; i < TERR_N; i++)
		CHECK(!cm_lat_add(l, (3ull * g + 7ull * i) % 100003, NULL), "cm_lat_add");
}

static void make_job(struct rp_job *j, int rank, unsigned i, unsigned g)
{
	memset(j, 0, sizeof(*j));
	j->tid = 1000u * (unsigned)rank + i;
	j->pid = 4242;
	j->accel = g;
	j->rank = -1;		/* gather fills rank and host */
	snprintf(j->host, sizeof(j->host), "unset");
	j->d[0].ios = 100 + g;
	j->d[0].bytes = 4096ull * (100 + g);
	j->done[1] = g + 1;
	j->wall_ns = 1000000ull * (g + 1);
	j->compute_ns = 7777 + g;
	fill_clat(&j->d[0].clat, g);
	fill_lat(&j->d[0].lat, g);
	fill_terr(&j->terr, g);
}

/* a and b hold the same values, as cm_lat_pct and the counters see them */
static void same_lat(struct cm_lat *a, struct cm_lat *b, const char *what, unsigned g)
{
	static const double pcts[] = { 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100 };

	cm_lat_finish(a);
	cm_lat_finish(b);
	CHECK(a->count == b->count && a->min == b->min && a->max == b->max && a->sum == b->sum &&
		      a->sq == b->sq && a->dropped == b->dropped && a->inexact == b->inexact,
	      "job %u %s: counters differ (count %llu/%llu)", g, what,
	      (unsigned long long)a->count, (unsigned long long)b->count);
	CHECK(!a->hist == !b->hist && a->n == b->n, "job %u %s: kind differs", g, what);
	if (a->hist)
		CHECK(!memcmp(a->hist, b->hist, CM_LAT_BUCKETS * sizeof(*a->hist)),
		      "job %u %s: buckets differ", g, what);
	else
		for (size_t i = 0; i < a->n; i++)	/* kept in 32 or 64 bits each */
			CHECK((a->v ? a->v[i] : a->v32[i]) == (b->v ? b->v[i] : b->v32[i]),
			      "job %u %s: value %zu differs", g, what, i);
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		CHECK(cm_lat_pct(a, pcts[i]) == cm_lat_pct(b, pcts[i]), "job %u %s: p%g %llu != %llu",
		      g, what, pcts[i], (unsigned long long)cm_lat_pct(a, pcts[i]),
		      (unsigned long long)cm_lat_pct(b, pcts[i]));
}

static void check_split(void)
{
	static const struct { unsigned n; int p; unsigned count[4], first[4]; } want[] = {
		{ 10, 4, { 3, 3, 2, 2 }, { 0, 3, 6, 8 } },
		{ 8, 4, { 2, 2, 2, 2 }, { 0, 2, 4, 6 } },
		{ 1, 3, { 1, 0, 0 }, { 0, 1, 1 } },
		{ 0, 2, { 0, 0 }, { 0, 0 } },
		{ 1024, 3, { 342, 341, 341 }, { 0, 342, 683 } },
		{ 7, 1, { 7 }, { 0 } },
		{ 5, 2, { 3, 2 }, { 0, 3 } },
	};
	unsigned c, f;

	for (size_t t = 0; t < sizeof(want) / sizeof(want[0]); t++)
		for (int r = 0; r < want[t].p; r++) {
			CHECK(!rp_mpi_split(want[t].n, r, want[t].p, &c, &f), "split");
			CHECK(c == want[t].count[r] && f == want[t].first[r],
			      "split %u over %d, rank %d: %u from %u, want %u from %u", want[t].n,
			      want[t].p, r, c, f, want[t].count[r], want[t].first[r]);
		}
	/* every N, P up to 40, 17: contiguous, complete, shares differ by <= 1,
	 * the larger ones first */
	for (unsigned n = 0; n <= 40; n++)
		for (int p = 1; p <= 17; p++) {
			unsigned next = 0, prev = ~0u;
			for (int r = 0; r < p; r++) {
				CHECK(!rp_mpi_split(n, r, p, &c, &f), "split");
				CHECK(f == next && c <= prev && c >= n / (unsigned)p &&
					      c <= n / (unsigned)p + 1,
				      "split %u over %d, rank %d: %u from %u", n, p, r, c, f);
				next = f + c;
				prev = c;
			}
			CHECK(next == n, "split %u over %d covers %u", n, p, next);
		}
	CHECK(rp_mpi_split(4, 0, 0, &c, &f) == -EINVAL, "size 0");
	CHECK(rp_mpi_split(4, 2, 2, &c, &f) == -EINVAL, "rank past size");
	CHECK(rp_mpi_split(4, -1, 2, &c, &f) == -EINVAL, "rank < 0");
}

static void check_stubs(void)
{
	char err[256] = "", host[64];
	struct rp_result res = { 0 };
	struct rp_mpi_rank *ranks = (void *)1;
	double d = 1;
	uint64_t u = 1;

	CHECK(rp_mpi_init(err, sizeof(err)) == -ENOTSUP && strstr(err, "MPI=0"), "init: %s", err);
	CHECK(!rp_mpi_active() && rp_mpi_rank() == 0 && rp_mpi_size() == 1, "rank, size");
	CHECK(rp_mpi_host(host, sizeof(host)) == -ENOTSUP, "host");
	CHECK(rp_mpi_barrier(err, sizeof(err)) == -ENOTSUP, "barrier");
	CHECK(rp_mpi_allreduce_f64(&d, RP_MPI_MIN, err, sizeof(err)) == -ENOTSUP, "allreduce");
	CHECK(rp_mpi_allreduce_u64(&u, RP_MPI_SUM, err, sizeof(err)) == -ENOTSUP, "allreduce");
	CHECK(rp_mpi_bcast(&u, sizeof(u), 0, err, sizeof(err)) == -ENOTSUP, "bcast");
	CHECK(rp_mpi_gather(&res, &ranks, err, sizeof(err)) == -ENOTSUP && !ranks, "gather");
	rp_mpi_loop_start(NULL, 0);
	CHECK(rp_mpi_hook_error(err, sizeof(err)) == 0, "hook error");
	CHECK(rp_mpi_finalize() == 0, "finalize");
}

static void *hook_thread(void *arg)
{
	struct rp_hooks h;

	rp_mpi_hooks(&h);
	for (unsigned loop = 0; loop < 3; loop++)
		h.loop_start(h.arg, loop);
	return NULL;
}

/* init (a second one refused), rank, size and host; the loop hook from a
 * thread that is not main, while main waits; returns the size */
static int check_init(char *host, size_t hostsz)
{
	char err[256] = "";
	int rc;

	CHECK(rp_mpi_rank() == 0 && rp_mpi_size() == 1 && !rp_mpi_active(), "before init");
	CHECK(!(rc = rp_mpi_init(err, sizeof(err))), "init: %d %s", rc, err);
	CHECK(rp_mpi_init(err, sizeof(err)) == -EALREADY, "second init");
	me = rp_mpi_rank();
	int size = rp_mpi_size();
	CHECK(rp_mpi_active() && size >= 2 && me >= 0 && me < size, "rank %d of %d", me, size);
	CHECK(!rp_mpi_host(host, hostsz) && host[0], "host");
	char myhost[256] = "";
	CHECK(!gethostname(myhost, sizeof(myhost)), "gethostname");
	CHECK(!strncmp(host, myhost, hostsz - 1), "host %s, gethostname %s", host, myhost);

	/* the loop hook from a thread that is not main, while main waits */
	pthread_t t;
	CHECK(!pthread_create(&t, NULL, hook_thread, NULL), "pthread_create");
	CHECK(!pthread_join(t, NULL), "pthread_join");
	CHECK(!rp_mpi_hook_error(err, sizeof(err)), "loop hook: %s", err);
	CHECK(!rp_mpi_barrier(err, sizeof(err)), "barrier: %s", err);
	return size;
}

/* the ranks agree on values: allreduces and a broadcast */
static void check_agree(int size)
{
	char err[256] = "";

	double d = me + 0.5;
	CHECK(!rp_mpi_allreduce_f64(&d, RP_MPI_MIN, err, sizeof(err)) && d == 0.5, "min %g", d);
	d = me + 0.25;
	CHECK(!rp_mpi_allreduce_f64(&d, RP_MPI_MAX, err, sizeof(err)) && d == size - 0.75,
	      "max %g", d);
	uint64_t u = (uint64_t)me + 1 + (1ull << 40);
	CHECK(!rp_mpi_allreduce_u64(&u, RP_MPI_SUM, err, sizeof(err)) &&
		      u == (uint64_t)size * (size + 1) / 2 + ((uint64_t)size << 40),
	      "sum %llu", (unsigned long long)u);
	u = 100 - (uint64_t)me;
	CHECK(!rp_mpi_allreduce_u64(&u, RP_MPI_MIN, err, sizeof(err)) && u == 101 - (uint64_t)size,
	      "min %llu", (unsigned long long)u);
	char word[32] = "";
	if (me == 1)
		snprintf(word, sizeof(word), "from rank one");
	CHECK(!rp_mpi_bcast(word, sizeof(word), 1, err, sizeof(err)) &&
		      !strcmp(word, "from rank one"), "bcast: '%s'", word);
}

/* this rank's result: nj jobs numbered from first, and totals that name it */
static void make_result(struct rp_result *res, unsigned first, unsigned nj)
{
	memset(res, 0, sizeof(*res));
	res->njobs = nj;
	res->jobs = calloc(nj, sizeof(*res->jobs));
	res->nfiles = 3;
	res->file_bytes = calloc(3, sizeof(uint64_t));
	res->ncopies = 2;
	res->copy_bytes = calloc(2, sizeof(uint64_t));
	CHECK(res->jobs && res->file_bytes && res->copy_bytes, "calloc");
	for (unsigned i = 0; i < nj; i++)
		make_job(&res->jobs[i], me, i, first + i);
	for (unsigned f = 0; f < 3; f++)
		res->file_bytes[f] = (f + 1) * 1000ull + (uint64_t)me;
	res->copy_bytes[0] = 5;
	res->copy_bytes[1] = 1ull << (me + 1);
	res->wall_ns = 1000000000ull + 1000ull * (uint64_t)me;
	res->start_unix = 1700000000 - me;
	res->dev_read_bytes = 1000000ull * (uint64_t)(me + 1);
	res->implicit_opens = 1;
	res->mem_peak = 100 + (uint64_t)me;
	res->mem_limit_hits = 2;
	res->dataset_bytes = 10ull * (uint64_t)(me + 1);
	res->mem_bytes = 1000 + (uint64_t)me;
}

static void release_result(struct rp_result *res)
{
	for (size_t k = 0; k < res->njobs; k++) {
		cm_lat_release(&res->jobs[k].d[0].clat);
		cm_lat_release(&res->jobs[k].d[0].lat);
		cm_lat_release(&res->jobs[k].terr);
	}
	free(res->jobs);
	free(res->file_bytes);
	free(res->copy_bytes);
}

/* a rank other than 0 after the gather: its own jobs, with its rank and
 * host, and totals unchanged; no ranks */
static void check_sent(const struct rp_result *res, const struct rp_mpi_rank *ranks, unsigned nj,
		       const char *host)
{
	CHECK(!ranks && res->njobs == nj, "rank %d: njobs %zu, ranks %p", me, res->njobs,
	      (void *)ranks);
	for (unsigned i = 0; i < nj; i++)
		CHECK(res->jobs[i].rank == me && !strcmp(res->jobs[i].host, host) &&
			      res->jobs[i].tid == 1000u * (unsigned)me + i,
		      "own job %u", i);
	CHECK(res->wall_ns == 1000000000ull + 1000ull * (uint64_t)me &&
		      res->dev_read_bytes == 1000000ull * (uint64_t)(me + 1),
	      "own totals changed");
}

/* rank 0 after the gather: every rank, and every job in rank order, equal
 * to the one rebuilt here */
static void check_gathered_jobs(struct rp_result *res, const struct rp_mpi_rank *ranks, int size,
				const char *host)
{
	size_t g = 0;
	for (int r = 0; r < size; r++) {
		CHECK(ranks[r].rank == r && ranks[r].njobs == (size_t)r + 1 &&
			      ranks[r].wall_ns == 1000000000ull + 1000ull * (uint64_t)r &&
			      ranks[r].dev_read_bytes == 1000000ull * (uint64_t)(r + 1) &&
			      ranks[r].start_unix == 1700000000 - r &&
			      ranks[r].dataset_bytes == 10ull * (uint64_t)(r + 1) &&
			      ranks[r].mem_bytes == 1000 + (uint64_t)r,
		      "ranks[%d]", r);
		/* one node (mpirun on localhost): every host is ours */
		CHECK(!strcmp(ranks[r].host, host), "rank %d host '%s', want '%s'", r,
		      ranks[r].host, host);
		for (unsigned i = 0; i <= (unsigned)r; i++, g++) {
			struct rp_job *j = &res->jobs[g], want;
			CHECK(j->rank == r && !strcmp(j->host, ranks[r].host),
			      "job %zu: rank %d host '%s'", g, j->rank, j->host);
			CHECK(j->tid == 1000u * (unsigned)r + i && j->pid == 4242 &&
				      j->accel == g && j->d[0].ios == 100 + g &&
				      j->d[0].bytes == 4096ull * (100 + g) &&
				      j->done[1] == g + 1 && j->wall_ns == 1000000ull * (g + 1) &&
				      j->compute_ns == 7777 + g,
			      "job %zu: counters", g);
			make_job(&want, r, i, (unsigned)g);
			same_lat(&j->d[0].clat, &want.d[0].clat, "clat", (unsigned)g);
			same_lat(&j->d[0].lat, &want.d[0].lat, "lat", (unsigned)g);
			same_lat(&j->terr, &want.terr, "terr", (unsigned)g);
			same_lat(&j->d[1].clat, &want.d[1].clat, "write clat", (unsigned)g);
			CHECK(j->d[0].lat.hist && j->d[0].lat.inexact && !j->d[0].clat.hist &&
				      j->terr.n == TERR_N,
			      "job %zu: kinds", g);
			cm_lat_release(&want.d[0].clat);
			cm_lat_release(&want.d[0].lat);
			cm_lat_release(&want.terr);
		}
	}
}

/* rank 0: the latencies merged over every job, as the report does */
static void check_merged(const struct rp_result *res, unsigned total)
{
	struct cm_lat all = { 0 }, hall = { 0 };
	size_t none = 0;
	for (size_t k = 0; k < res->njobs; k++) {
		CHECK(!cm_lat_merge(&all, &res->jobs[k].d[0].clat, NULL), "merge");
		CHECK(!cm_lat_merge(&hall, &res->jobs[k].d[0].lat, &none), "merge");
	}
	cm_lat_finish(&all);
	uint64_t n = 100ull * total;
	CHECK(all.count == n && all.min == 1 && all.max == n &&
		      all.sum == n * (n + 1) / 2 && !all.inexact,
	      "merged clat: count %llu", (unsigned long long)all.count);
	CHECK(cm_lat_pct(&all, 50) == 50 * total && cm_lat_pct(&all, 90) == 90 * total &&
		      cm_lat_pct(&all, 99) == 99 * total && cm_lat_pct(&all, 100) == n,
	      "merged clat: p50 %llu p90 %llu p99 %llu",
	      (unsigned long long)cm_lat_pct(&all, 50),
	      (unsigned long long)cm_lat_pct(&all, 90),
	      (unsigned long long)cm_lat_pct(&all, 99));
	CHECK(hall.count == (uint64_t)HIST_N * total && hall.min == 1000 &&
		      hall.max == 1000000ull * (total - 1) + 1000ull * HIST_N && hall.inexact,
	      "merged lat: count %llu min %llu max %llu", (unsigned long long)hall.count,
	      (unsigned long long)hall.min, (unsigned long long)hall.max);
	/* the same merge of histograms rebuilt here */
	struct cm_lat ref = { 0 };
	for (unsigned k = 0; k < total; k++) {
		struct cm_lat one = { 0 };
		fill_lat(&one, k);
		CHECK(!cm_lat_merge(&ref, &one, &none), "merge");
		cm_lat_release(&one);
	}
	same_lat(&hall, &ref, "merged lat", total);
	cm_lat_release(&all);
	cm_lat_release(&hall);
	cm_lat_release(&ref);
}

/* rank 0: the result's totals over the ranks */
static void check_totals(const struct rp_result *res, int size)
{
	uint64_t dev = 0;
	for (int r = 0; r < size; r++)
		dev += 1000000ull * (uint64_t)(r + 1);
	CHECK(res->wall_ns == 1000000000ull + 1000ull * (uint64_t)(size - 1) &&
		      res->start_unix == 1700000000 - (size - 1) && res->dev_read_bytes == dev &&
		      res->implicit_opens == (uint64_t)size &&
		      res->mem_peak == 100 + (uint64_t)(size - 1) &&
		      res->mem_limit_hits == 2ull * (uint64_t)size &&
		      res->dataset_bytes == 5ull * (uint64_t)size * (size + 1) &&
		      /* one host: its memory once, the largest said */
		      res->mem_bytes == 1000 + (uint64_t)(size - 1),
	      "totals: wall %llu dev %llu", (unsigned long long)res->wall_ns,
	      (unsigned long long)res->dev_read_bytes);
	for (unsigned f = 0; f < 3; f++)
		CHECK(res->file_bytes[f] == (f + 1) * 1000ull * (uint64_t)size +
						    (uint64_t)size * (size - 1) / 2,
		      "file_bytes[%u] %llu", f, (unsigned long long)res->file_bytes[f]);
	CHECK(res->copy_bytes[0] == 5ull * (uint64_t)size &&
		      res->copy_bytes[1] == (1ull << (size + 1)) - 2,
	      "copy_bytes %llu %llu", (unsigned long long)res->copy_bytes[0],
	      (unsigned long long)res->copy_bytes[1]);
}

int main(int argc, char **argv)
{
	char err[256] = "", host[64] = "";
	int rc;

	if (argc > 1 && !strcmp(argv[1], "built")) {
		printf("%d\n", rp_mpi_built);
		return 0;
	}
	check_split();
	if (!rp_mpi_built) {
		check_stubs();
		printf("rank 0: ok (without MPI)\n");
		return 0;
	}

	int size = check_init(host, sizeof(host));
	check_agree(size);

	/* this rank's result: rank + 1 jobs, numbered after the ranks before */
	unsigned first = (unsigned)(me * (me + 1) / 2), nj = (unsigned)me + 1;
	unsigned total = (unsigned)(size * (size + 1) / 2);
	struct rp_result res;
	make_result(&res, first, nj);

	struct rp_mpi_rank *ranks = NULL;
	CHECK(!(rc = rp_mpi_gather(&res, &ranks, err, sizeof(err))), "gather: %d %s", rc, err);
	if (me != 0) {
		check_sent(&res, ranks, nj, host);
	} else {
		CHECK(ranks, "no ranks");
		CHECK(res.njobs == total, "%zu jobs, want %u", res.njobs, total);
		check_gathered_jobs(&res, ranks, size, host);
		check_merged(&res, total);
		check_totals(&res, size);
		free(ranks);
	}
	release_result(&res);

	/* a gather of nothing: no jobs, no files */
	struct rp_result empty = { 0 };
	CHECK(!rp_mpi_gather(&empty, NULL, err, sizeof(err)) && empty.njobs == 0, "empty: %s", err);
	free(empty.jobs);
	CHECK(!rp_mpi_barrier(err, sizeof(err)), "barrier: %s", err);
	CHECK(!rp_mpi_finalize() && !rp_mpi_active(), "finalize");
	printf("rank %d: ok (%d ranks, %u jobs)\n", me, size, total);
	return 0;
}
