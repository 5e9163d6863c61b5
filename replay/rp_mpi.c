/* SPDX-License-Identifier: MIT */
/*
 * rp_mpi.c - the replay across MPI ranks (rp_mpi.h): start together,
 * gather the results on rank 0, agree on values.
 *
 * Gather, on the wire: each rank but 0 packs its result into one buffer
 * (a header, its file and copy byte counts, then per job the struct
 * rp_job as it is in memory followed by its seven latency records) and
 * sends it to rank 0 in pieces of at most 1 GiB (MPI counts are ints);
 * rank 0 takes the ranks in order, one buffer at a time.  The ranks run
 * the same build of iotape (mpirun starts one program), so a struct goes
 * as its bytes; the header's sizes and magic refuse another build
 * (-EPROTO).  A struct cm_lat goes as its counters (in the struct's bytes)
 * plus its samples: exact values as 64-bit numbers (whether kept in 32 or
 * 64 bits), a histogram as its non-zero
 * buckets (index, count), so percentiles on rank 0 are those the rank
 * had, exact ones included.  The pointers inside the struct's bytes are
 * never read on rank 0: every latency record is rebuilt from its samples.
 * An rp_job with another struct cm_lat must be added to job_lats().
 *
 * Whatever fails, no rank waits for a message that never comes: a rank
 * that cannot pack its result sends its size as -errno instead; the
 * others send their buffer when rank 0 says so (after an error it says
 * not to); rank 0's outcome goes to every rank at the end.
 *
 * Built with MPI=0 (no IOTAPE_MPI), the functions that need MPI return
 * -ENOTSUP.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rp_mpi.h"

int rp_mpi_split(unsigned total, int rank, int size, unsigned *count, unsigned *first)
{
	if (size < 1 || rank < 0 || rank >= size)
		return -EINVAL;
	unsigned p = (unsigned)size, r = (unsigned)rank;
	unsigned q = total / p, extra = total % p;
	*count = q + (r < extra);
	*first = r * q + (r < extra ? r : extra);
	return 0;
}

#ifdef IOTAPE_MPI
#include <mpi.h>

const int rp_mpi_built = 1;

static int g_active, g_rank, g_size;
static int64_t *g_sizes;	/* rank 0: each rank's packed size (gather) */
static atomic_int g_hook_err;
static char g_hook_msg[256];

static int mpi_err(int rc, char *err, size_t errlen, const char *what)
{
	char s[MPI_MAX_ERROR_STRING];
	int n = 0;

	if (MPI_Error_string(rc, s, &n) != MPI_SUCCESS)
		snprintf(s, sizeof(s), "MPI error %d", rc);
	if (err && errlen)
		snprintf(err, errlen, "%s: %.200s", what, s);
	return -EIO;
}

static int not_active(char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "MPI is not initialized");
	return -EINVAL;
}

int rp_mpi_init(char *err, size_t errlen)
{
	int done = 0, provided = 0, rc;

	if (MPI_Initialized(&done) == MPI_SUCCESS && done) {
		if (err && errlen)
			snprintf(err, errlen, "MPI is initialized already");
		return -EALREADY;
	}
	rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
	if (rc != MPI_SUCCESS)
		return mpi_err(rc, err, errlen, "MPI_Init_thread");
	if (provided < MPI_THREAD_SERIALIZED) {
		if (err && errlen)
			snprintf(err, errlen,
				 "the MPI library gives thread level %d, below "
				 "MPI_THREAD_SERIALIZED (%d): the loop barrier runs on a "
				 "replay thread", provided, MPI_THREAD_SERIALIZED);
		MPI_Finalize();
		return -ENOTSUP;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if ((rc = MPI_Comm_rank(MPI_COMM_WORLD, &g_rank)) != MPI_SUCCESS ||
	    (rc = MPI_Comm_size(MPI_COMM_WORLD, &g_size)) != MPI_SUCCESS) {
		MPI_Finalize();
		return mpi_err(rc, err, errlen, "MPI_Comm_rank");
	}
	if (!(g_sizes = calloc((size_t)g_size, sizeof(*g_sizes)))) {
		MPI_Finalize();
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	atomic_store(&g_hook_err, 0);
	g_hook_msg[0] = 0;
	g_active = 1;
	return 0;
}

int rp_mpi_finalize(void)
{
	if (!g_active)
		return 0;
	g_active = 0;
	g_rank = 0;
	g_size = 0;
	free(g_sizes);
	g_sizes = NULL;
	return MPI_Finalize() == MPI_SUCCESS ? 0 : -EIO;
}

int rp_mpi_active(void)
{
	return g_active;
}

void rp_mpi_abort(int code)
{
	if (g_active)
		MPI_Abort(MPI_COMM_WORLD, code);
}

int rp_mpi_rank(void)
{
	return g_active ? g_rank : 0;
}

int rp_mpi_size(void)
{
	return g_active ? g_size : 1;
}

int rp_mpi_host(char *buf, size_t len)
{
	char name[MPI_MAX_PROCESSOR_NAME + 1];
	int n = 0;

	if (!g_active)
		return -ENOTSUP;
	if (!len)
		return -EINVAL;
	if (MPI_Get_processor_name(name, &n) != MPI_SUCCESS)
		return -EIO;
	name[n < 0 ? 0 : n > MPI_MAX_PROCESSOR_NAME ? MPI_MAX_PROCESSOR_NAME : n] = 0;
	snprintf(buf, len, "%s", name);
	return 0;
}

int rp_mpi_barrier(char *err, size_t errlen)
{
	int rc;

	if (!g_active)
		return not_active(err, errlen);
	if ((rc = MPI_Barrier(MPI_COMM_WORLD)) != MPI_SUCCESS)
		return mpi_err(rc, err, errlen, "MPI_Barrier");
	return 0;
}

static void hook_fail(int e, const char *msg)
{
	int zero = 0;

	if (atomic_compare_exchange_strong(&g_hook_err, &zero, e))
		snprintf(g_hook_msg, sizeof(g_hook_msg), "%s", msg);
}

/* An allreduce of (loop, -loop) by MAX: it waits for every rank, as a
 * barrier does, and tells the largest and the smallest loop. */
void rp_mpi_loop_start(void *arg, unsigned loop)
{
	long v[2] = { (long)loop, -(long)loop }, r[2];
	char msg[256];
	int rc;

	if (!g_active)
		return;
	rc = MPI_Allreduce(v, r, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS) {
		mpi_err(rc, msg, sizeof(msg), "loop barrier");
		hook_fail(-EIO, msg);
	} else if (r[0] != -r[1]) {
		snprintf(msg, sizeof(msg), "ranks at different loops (%ld to %ld) at the loop barrier",
			 -r[1], r[0]);
		hook_fail(-EPROTO, msg);
	}
}

void rp_mpi_hooks(struct rp_hooks *h)
{
	memset(h, 0, sizeof(*h));
	h->loop_start = rp_mpi_loop_start;
}

int rp_mpi_hook_error(char *err, size_t errlen)
{
	int e = atomic_load(&g_hook_err);

	if (e && err && errlen)
		snprintf(err, errlen, "%s", g_hook_msg);
	return e;
}

static MPI_Op mpi_op(enum rp_mpi_op op)
{
	return op == RP_MPI_MIN ? MPI_MIN : op == RP_MPI_MAX ? MPI_MAX : MPI_SUM;
}

int rp_mpi_allreduce_f64(double *v, enum rp_mpi_op op, char *err, size_t errlen)
{
	double out;
	int rc;

	if (!g_active)
		return not_active(err, errlen);
	if ((rc = MPI_Allreduce(v, &out, 1, MPI_DOUBLE, mpi_op(op), MPI_COMM_WORLD)) != MPI_SUCCESS)
		return mpi_err(rc, err, errlen, "MPI_Allreduce");
	*v = out;
	return 0;
}

int rp_mpi_allreduce_u64(uint64_t *v, enum rp_mpi_op op, char *err, size_t errlen)
{
	uint64_t out;
	int rc;

	if (!g_active)
		return not_active(err, errlen);
	if ((rc = MPI_Allreduce(v, &out, 1, MPI_UINT64_T, mpi_op(op), MPI_COMM_WORLD)) !=
	    MPI_SUCCESS)
		return mpi_err(rc, err, errlen, "MPI_Allreduce");
	*v = out;
	return 0;
}

#define CHUNK ((size_t)1 << 30)	/* bytes per message: MPI counts are ints */

int rp_mpi_bcast(void *buf, size_t len, int root, char *err, size_t errlen)
{
	int rc;

	if (!g_active)
		return not_active(err, errlen);
	for (size_t o = 0; o < len; o += CHUNK) {
		size_t n = len - o < CHUNK ? len - o : CHUNK;
		if ((rc = MPI_Bcast((char *)buf + o, (int)n, MPI_BYTE, root, MPI_COMM_WORLD)) !=
		    MPI_SUCCESS)
			return mpi_err(rc, err, errlen, "MPI_Bcast");
	}
	return 0;
}

/* --------------------------------------------------------------- gather */

#define GATHER_MAGIC 0x69746d7069303031ull	/* "itmpi001" */
#define GATHER_TAG 16
#define NLATS 7

/* The latency records of a job (every struct cm_lat in struct rp_job). */
static void job_lats(struct rp_job *j, struct cm_lat *l[NLATS])
{
	for (int d = 0; d < 3; d++) {
		l[2 * d] = &j->d[d].clat;
		l[2 * d + 1] = &j->d[d].lat;
	}
	l[6] = &j->terr;
}

struct hdr {
	uint64_t magic;
	uint64_t job_size, lat_size, buckets;
	uint64_t njobs, nfiles, ncopies;
	uint64_t wall_ns, dev_read_bytes, implicit_opens, mem_peak, mem_limit_hits;
	uint64_t dataset_bytes, mem_bytes;
	int64_t start_unix;
	int32_t rank, bounded;
	char host[64];
};

enum { LAT_EMPTY, LAT_EXACT, LAT_HIST };

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static void put(struct wbuf *b, const void *src, size_t n)
{
	if (b->err)
		return;
	if (b->len + n > b->cap) {
		size_t nc = b->cap ? b->cap : 4096;
		while (nc < b->len + n)
			nc *= 2;
		uint8_t *p = realloc(b->p, nc);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = nc;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void put_u32(struct wbuf *b, uint32_t v)
{
	put(b, &v, sizeof(v));
}

static void put_u64(struct wbuf *b, uint64_t v)
{
	put(b, &v, sizeof(v));
}

static void put_lat(struct wbuf *b, const struct cm_lat *l)
{
	if (l->hist) {
		uint32_t k = 0;
		for (unsigned i = 0; i < CM_LAT_BUCKETS; i++)
			k += l->hist[i] != 0;
		put_u32(b, LAT_HIST);
		put_u32(b, k);
		for (unsigned i = 0; i < CM_LAT_BUCKETS; i++) {
			if (l->hist[i]) {
				put_u32(b, i);
				put_u32(b, l->hist[i]);
			}
		}
	} else if ((l->v || l->v32) && l->n) {
		/* the exact values as 64 bits each, whichever width they
		 * are kept in (v32 while each fits 32 bits) */
		put_u32(b, LAT_EXACT);
		put_u32(b, 0);
		put_u64(b, l->n);
		if (l->v)
			put(b, l->v, l->n * sizeof(*l->v));
		else
			for (size_t i = 0; i < l->n; i++)
				put_u64(b, l->v32[i]);
	} else {
		put_u32(b, LAT_EMPTY);
		put_u32(b, 0);
	}
}

static void fill_hdr(struct hdr *h, const struct rp_result *res)
{
	memset(h, 0, sizeof(*h));
	h->magic = GATHER_MAGIC;
	h->job_size = sizeof(struct rp_job);
	h->lat_size = sizeof(struct cm_lat);
	h->buckets = CM_LAT_BUCKETS;
	h->njobs = res->njobs;
	h->nfiles = res->nfiles;
	h->ncopies = res->ncopies;
	h->wall_ns = res->wall_ns;
	h->dev_read_bytes = res->dev_read_bytes;
	h->implicit_opens = res->implicit_opens;
	h->mem_peak = res->mem_peak;
	h->mem_limit_hits = res->mem_limit_hits;
	h->dataset_bytes = res->dataset_bytes;
	h->mem_bytes = res->mem_bytes;
	h->start_unix = res->start_unix;
	h->rank = g_rank;
	h->bounded = res->bounded;
}

/* This rank's result as one buffer: 0 or -ENOMEM. */
static int pack(const struct rp_result *res, const char *host, struct wbuf *b)
{
	struct hdr h;

	fill_hdr(&h, res);
	snprintf(h.host, sizeof(h.host), "%s", host);
	put(b, &h, sizeof(h));
	if (res->nfiles)
		put(b, res->file_bytes, res->nfiles * sizeof(*res->file_bytes));
	if (res->ncopies)
		put(b, res->copy_bytes, res->ncopies * sizeof(*res->copy_bytes));
	for (size_t i = 0; i < res->njobs; i++) {
		struct rp_job *j = &res->jobs[i];
		struct cm_lat *l[NLATS];
		put(b, j, sizeof(*j));
		job_lats(j, l);
		for (int k = 0; k < NLATS; k++)
			put_lat(b, l[k]);
		if (j->nmarks)	/* the epochs' AU marks (rp_job.marks) */
			put(b, j->marks, 2 * (size_t)j->nmarks * sizeof(*j->marks));
	}
	return b->err;
}

struct rbuf {
	const uint8_t *p;
	size_t len, off;
};

static int get(struct rbuf *b, void *dst, size_t n)
{
	if (n > b->len - b->off)
		return -EPROTO;
	memcpy(dst, b->p + b->off, n);
	b->off += n;
	return 0;
}

/* One latency record from b into l, whose counters are already there
 * (copied with its job) and whose pointers are not to be read. */
static int get_lat(struct rbuf *b, struct cm_lat *l)
{
	uint32_t tag, k;
	int rc;

	l->v = NULL;
	l->v32 = NULL;
	l->hist = NULL;
	l->n = l->cap = 0;
	if ((rc = get(b, &tag, sizeof(tag))) || (rc = get(b, &k, sizeof(k))))
		return rc;
	if (tag == LAT_EMPTY)
		return 0;
	if (tag == LAT_EXACT) {
		uint64_t n;
		if ((rc = get(b, &n, sizeof(n))))
			return rc;
		if (!n || n > (b->len - b->off) / sizeof(uint64_t) || n > CM_LAT_EXACT)
			return -EPROTO;
		if (!(l->v = malloc(n * sizeof(*l->v))))
			return -ENOMEM;
		l->n = l->cap = n;
		return get(b, l->v, n * sizeof(*l->v));
	}
	if (tag != LAT_HIST || k > CM_LAT_BUCKETS)
		return -EPROTO;
	if (!(l->hist = calloc(CM_LAT_BUCKETS, sizeof(*l->hist))))
		return -ENOMEM;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t pr[2];
		if ((rc = get(b, pr, sizeof(pr))))
			return rc;
		if (pr[0] >= CM_LAT_BUCKETS)
			return -EPROTO;
		l->hist[pr[0]] = pr[1];
	}
	return 0;
}

static void release_jobs(struct rp_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct cm_lat *l[NLATS];
		job_lats(&jobs[i], l);
		for (int k = 0; k < NLATS; k++)
			cm_lat_release(l[k]);
		free(jobs[i].marks);
		jobs[i].marks = NULL;
	}
}

/* What rank 0 builds while it reads the other ranks' buffers. */
struct merged {
	struct rp_job *jobs;	/* [0, own): rank 0's (still res's), then
				 * the others' (ours) */
	size_t njobs, cap, own;
	struct rp_mpi_rank *ranks;
	struct hdr sum;		/* totals over the ranks */
	uint64_t *file_bytes, *copy_bytes;
};

static void add_totals(struct merged *m, const struct hdr *h)
{
	if (h->wall_ns > m->sum.wall_ns)
		m->sum.wall_ns = h->wall_ns;
	if (h->start_unix < m->sum.start_unix)
		m->sum.start_unix = h->start_unix;
	m->sum.dev_read_bytes += h->dev_read_bytes;
	m->sum.implicit_opens += h->implicit_opens;
	if (h->mem_peak > m->sum.mem_peak)
		m->sum.mem_peak = h->mem_peak;
	m->sum.mem_limit_hits += h->mem_limit_hits;
	m->sum.dataset_bytes += h->dataset_bytes;
	m->sum.bounded |= h->bounded;
}

static void set_rank(struct rp_mpi_rank *r, const struct hdr *h)
{
	r->rank = h->rank;
	snprintf(r->host, sizeof(r->host), "%.*s", (int)sizeof(h->host), h->host);
	r->njobs = h->njobs;
	r->wall_ns = h->wall_ns;
	r->dev_read_bytes = h->dev_read_bytes;
	r->dataset_bytes = h->dataset_bytes;
	r->mem_bytes = h->mem_bytes;
	r->start_unix = h->start_unix;
}

/* Rank r's buffer into m: 0, -EPROTO or -ENOMEM (m keeps what it had
 * and the jobs it took, released by the caller). */
static int unpack(struct merged *m, int r, const uint8_t *p, size_t len)
{
	struct rbuf b = { p, len, 0 };
	struct hdr h;
	int rc;

	if ((rc = get(&b, &h, sizeof(h))))
		return rc;
	if (h.magic != GATHER_MAGIC || h.job_size != sizeof(struct rp_job) ||
	    h.lat_size != sizeof(struct cm_lat) || h.buckets != CM_LAT_BUCKETS || h.rank != r)
		return -EPROTO;
	for (uint64_t i = 0; i < h.nfiles + h.ncopies; i++) {
		uint64_t v;
		if ((rc = get(&b, &v, sizeof(v))))
			return rc;
		if (i < h.nfiles && i < m->sum.nfiles)
			m->file_bytes[i] += v;
		else if (i >= h.nfiles && i - h.nfiles < m->sum.ncopies)
			m->copy_bytes[i - h.nfiles] += v;
	}
	if (h.njobs > (len - b.off) / sizeof(struct rp_job))
		return -EPROTO;
	if (m->njobs + h.njobs > m->cap) {
		size_t nc = m->cap * 2 > m->njobs + h.njobs ? m->cap * 2 : m->njobs + h.njobs;
		struct rp_job *a = realloc(m->jobs, nc * sizeof(*a));
		if (!a)
			return -ENOMEM;
		m->jobs = a;
		m->cap = nc;
	}
	for (uint64_t i = 0; i < h.njobs; i++) {
		struct rp_job *j = &m->jobs[m->njobs];
		struct cm_lat *l[NLATS];
		if ((rc = get(&b, j, sizeof(*j))))
			return rc;
		job_lats(j, l);
		for (int k = 0; k < NLATS; k++) {	/* none points anywhere yet */
			l[k]->v = NULL;
			l[k]->v32 = NULL;
			l[k]->hist = NULL;
		}
		j->marks = NULL;
		j->place = NULL;
		m->njobs++;
		for (int k = 0; k < NLATS; k++)
			if ((rc = get_lat(&b, l[k])))
				return rc;
		if (j->nmarks) {
			if (j->nmarks > (len - b.off) / (2 * sizeof(*j->marks)))
				return -EPROTO;
			if (!(j->marks = malloc(2 * (size_t)j->nmarks * sizeof(*j->marks))))
				return -ENOMEM;
			if ((rc = get(&b, j->marks, 2 * (size_t)j->nmarks * sizeof(*j->marks))))
				return rc;
		}
	}
	if (b.off != len)
		return -EPROTO;
	add_totals(m, &h);
	set_rank(&m->ranks[r], &h);
	return 0;
}

static int recv_all(int r, uint8_t *p, size_t len, char *err, size_t errlen)
{
	int rc;

	for (size_t o = 0; o < len; o += CHUNK) {
		size_t n = len - o < CHUNK ? len - o : CHUNK;
		rc = MPI_Recv(p + o, (int)n, MPI_BYTE, r, GATHER_TAG, MPI_COMM_WORLD,
			      MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS)
			return mpi_err(rc, err, errlen, "MPI_Recv");
	}
	return 0;
}

/* The memory of the hosts: ranks on one host share it (the largest any
 * of them says), hosts add up. */
static uint64_t hosts_memory(const struct rp_mpi_rank *r, int n)
{
	uint64_t total = 0;

	for (int i = 0; i < n; i++) {
		uint64_t most = r[i].mem_bytes;
		int first = 1;
		for (int k = 0; k < n && first; k++) {
			if (strcmp(r[k].host, r[i].host))
				continue;
			if (k < i)
				first = 0;	/* counted with rank k */
			else if (r[k].mem_bytes > most)
				most = r[k].mem_bytes;
		}
		if (first)
			total += most;
	}
	return total;
}

static void merged_free(struct merged *m)
{
	if (m->jobs)
		release_jobs(m->jobs + m->own, m->njobs - m->own);
	free(m->jobs);
	free(m->ranks);
	free(m->file_bytes);
	free(m->copy_bytes);
}

/* Rank 0's part of the gather: tell each rank in turn to send, read and
 * unpack its buffer; on the first error, tell the rest not to send.  0,
 * or the first error (res then unchanged). */
static int gather_root(struct rp_result *res, const char *host, const int64_t *sizes,
		       struct rp_mpi_rank **ranks, char *err, size_t errlen)
{
	struct merged m = { 0 };
	int rc = 0, e;

	m.ranks = calloc((size_t)g_size, sizeof(*m.ranks));
	m.cap = res->njobs ? res->njobs : 1;
	m.jobs = malloc(m.cap * sizeof(*m.jobs));
	m.file_bytes = res->nfiles ? malloc(res->nfiles * sizeof(*m.file_bytes)) : NULL;
	m.copy_bytes = res->ncopies ? malloc(res->ncopies * sizeof(*m.copy_bytes)) : NULL;
	if (!m.ranks || !m.jobs || (res->nfiles && !m.file_bytes) ||
	    (res->ncopies && !m.copy_bytes)) {
		rc = -ENOMEM;
		snprintf(err, errlen, "gathering the ranks' results: out of memory");
	} else {
		if (res->njobs)
			memcpy(m.jobs, res->jobs, res->njobs * sizeof(*m.jobs));
		m.njobs = m.own = res->njobs;
		if (res->nfiles)
			memcpy(m.file_bytes, res->file_bytes, res->nfiles * sizeof(*m.file_bytes));
		if (res->ncopies)
			memcpy(m.copy_bytes, res->copy_bytes, res->ncopies * sizeof(*m.copy_bytes));
		fill_hdr(&m.sum, res);
		set_rank(&m.ranks[0], &m.sum);
		snprintf(m.ranks[0].host, sizeof(m.ranks[0].host), "%s", host);
	}
	for (int r = 1; r < g_size; r++) {
		if (sizes[r] < 0) {	/* it sends nothing, waits for nothing */
			if (!rc) {
				rc = (int)sizes[r];
				snprintf(err, errlen, "rank %d could not pack its results: %s", r,
					 strerror((int)-sizes[r]));
			}
			continue;
		}
		size_t len = (size_t)sizes[r];
		uint8_t *p = NULL;
		if (!rc && !(p = malloc(len ? len : 1))) {
			rc = -ENOMEM;
			snprintf(err, errlen, "gathering rank %d's results: out of memory", r);
		}
		/* rank r sends its buffer only when told to: after an error
		 * rank 0 neither needs nor reads the rest */
		int32_t go = p != NULL;
		if ((e = MPI_Send(&go, 1, MPI_INT32_T, r, GATHER_TAG, MPI_COMM_WORLD)) !=
		    MPI_SUCCESS) {
			if (!rc)
				rc = mpi_err(e, err, errlen, "MPI_Send");
			free(p);
			continue;
		}
		if (!p)
			continue;
		if ((e = recv_all(r, p, len, err, errlen)))
			rc = e;
		else if ((e = unpack(&m, r, p, len))) {
			rc = e;
			snprintf(err, errlen, "rank %d's results: %s", r,
				 e == -EPROTO ? "not what this build of iotape sends "
						"(another version on that node?)"
					      : strerror(-e));
		}
		free(p);
	}
	if (rc) {
		merged_free(&m);
		return rc;
	}
	/* commit: nothing fails from here on */
	free(res->jobs);
	res->jobs = m.jobs;
	res->njobs = m.njobs;
	if (res->nfiles) {
		free(res->file_bytes);
		res->file_bytes = m.file_bytes;
	}
	if (res->ncopies) {
		free(res->copy_bytes);
		res->copy_bytes = m.copy_bytes;
	}
	res->wall_ns = m.sum.wall_ns;
	res->bounded = m.sum.bounded != 0;
	res->start_unix = m.sum.start_unix;
	res->dev_read_bytes = m.sum.dev_read_bytes;
	res->implicit_opens = m.sum.implicit_opens;
	res->mem_peak = m.sum.mem_peak;
	res->mem_limit_hits = m.sum.mem_limit_hits;
	res->dataset_bytes = m.sum.dataset_bytes;
	res->mem_bytes = hosts_memory(m.ranks, g_size);
	if (ranks)
		*ranks = m.ranks;
	else
		free(m.ranks);
	return 0;
}

static int send_all(const uint8_t *p, size_t len, char *err, size_t errlen)
{
	int rc;

	for (size_t o = 0; o < len; o += CHUNK) {
		size_t n = len - o < CHUNK ? len - o : CHUNK;
		if ((rc = MPI_Send(p + o, (int)n, MPI_BYTE, 0, GATHER_TAG, MPI_COMM_WORLD)) !=
		    MPI_SUCCESS)
			return mpi_err(rc, err, errlen, "MPI_Send");
	}
	return 0;
}

int rp_mpi_gather(struct rp_result *res, struct rp_mpi_rank **ranks, char *err, size_t errlen)
{
	char host[64] = "";
	struct wbuf b = { 0 };
	int64_t mine = 0;
	int rc = 0, e;

	if (ranks)
		*ranks = NULL;
	if (!g_active)
		return not_active(err, errlen);
	rp_mpi_host(host, sizeof(host));
	for (size_t i = 0; i < res->njobs; i++) {
		res->jobs[i].rank = g_rank;
		snprintf(res->jobs[i].host, sizeof(res->jobs[i].host), "%s", host);
	}
	if (g_rank) {
		rc = pack(res, host, &b);
		mine = rc ? rc : (int64_t)b.len;
		if (rc)
			snprintf(err, errlen, "packing the results: %s", strerror(-rc));
	}
	e = MPI_Gather(&mine, 1, MPI_INT64_T, g_sizes, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
	if (e != MPI_SUCCESS) {
		free(b.p);
		return mpi_err(e, err, errlen, "MPI_Gather");
	}
	if (g_rank && !rc) {
		int32_t go = 0;
		e = MPI_Recv(&go, 1, MPI_INT32_T, 0, GATHER_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (e != MPI_SUCCESS)
			rc = mpi_err(e, err, errlen, "MPI_Recv");
		else if (go)
			rc = send_all(b.p, b.len, err, errlen);
	} else if (!g_rank) {
		rc = gather_root(res, host, g_sizes, ranks, err, errlen);
	}
	free(b.p);
	/* every rank returns rank 0's verdict (a rank's own error first) */
	int32_t verdict = g_rank ? 0 : rc;
	if ((e = MPI_Bcast(&verdict, 1, MPI_INT32_T, 0, MPI_COMM_WORLD)) != MPI_SUCCESS)
		return rc ? rc : mpi_err(e, err, errlen, "MPI_Bcast");
	if (rc)
		return rc;
	if (verdict) {
		snprintf(err, errlen, "rank 0 could not gather the results: %s", strerror(-verdict));
		return verdict;
	}
	return 0;
}

#else /* !IOTAPE_MPI: built with MPI=0 */

const int rp_mpi_built = 0;

static int no_mpi(char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "this iotape was built without MPI (make MPI=0)");
	return -ENOTSUP;
}

int rp_mpi_init(char *err, size_t errlen)
{
	return no_mpi(err, errlen);
}

int rp_mpi_finalize(void)
{
	return 0;
}

int rp_mpi_active(void)
{
	return 0;
}

void rp_mpi_abort(int code)
{
}

int rp_mpi_rank(void)
{
	return 0;
}

int rp_mpi_size(void)
{
	return 1;
}

int rp_mpi_host(char *buf, size_t len)
{
	return -ENOTSUP;
}

int rp_mpi_barrier(char *err, size_t errlen)
{
	return no_mpi(err, errlen);
}

void rp_mpi_loop_start(void *arg, unsigned loop)
{
}

void rp_mpi_hooks(struct rp_hooks *h)
{
	memset(h, 0, sizeof(*h));
	h->loop_start = rp_mpi_loop_start;
}

int rp_mpi_hook_error(char *err, size_t errlen)
{
	return 0;
}

int rp_mpi_allreduce_f64(double *v, enum rp_mpi_op op, char *err, size_t errlen)
{
	return no_mpi(err, errlen);
}

int rp_mpi_allreduce_u64(uint64_t *v, enum rp_mpi_op op, char *err, size_t errlen)
{
	return no_mpi(err, errlen);
}

int rp_mpi_bcast(void *buf, size_t len, int root, char *err, size_t errlen)
{
	return no_mpi(err, errlen);
}

int rp_mpi_gather(struct rp_result *res, struct rp_mpi_rank **ranks, char *err, size_t errlen)
{
	if (ranks)
		*ranks = NULL;
	return no_mpi(err, errlen);
}

#endif /* IOTAPE_MPI */
