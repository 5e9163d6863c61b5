/* SPDX-License-Identifier: MIT */
/*
 * rp_report.c - the replay's results, shaped like fio's.
 *
 * JSON uses fio's key names ("fio version", "timestamp", "jobs", and per
 * job read/write/trim/sync with io_bytes, bw_bytes, iops, runtime,
 * clat_ns/lat_ns {min, max, mean, stddev, N, percentile}) so tools that
 * read fio output read ours; what fio has no word for is in "replay".
 * Latencies are the engine's histograms (common/hist.h): percentiles
 * within 0.4 %, min, max, mean and stddev exact.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fmt.h"
#include "replay.h"

static const double pcts[] = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95,
			       99, 99.5, 99.9, 99.95, 99.99 };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))
const char *const rp_dir_names[3] = { "read", "write", "sync" };
static const char *const timing_names[] = { "original", "think", "afap" };

static json_t *lat_json(struct cm_lat *l)
{
	json_t *o = json_object(), *pc = json_object();
	char key[32];

	cm_lat_finish(l);
	json_object_set_new(o, "min", cm_json_u64(l->count ? l->min : 0));
	json_object_set_new(o, "max", cm_json_u64(l->max));
	json_object_set_new(o, "mean", json_real(cm_lat_mean(l)));
	json_object_set_new(o, "stddev", json_real(cm_lat_stddev(l)));
	json_object_set_new(o, "N", cm_json_u64(l->count));
	for (size_t i = 0; i < NPCT && l->count; i++) {
		snprintf(key, sizeof(key), "%f", pcts[i]);
		json_object_set_new(pc, key, cm_json_u64(cm_lat_pct(l, pcts[i])));
	}
	json_object_set_new(o, "percentile", pc);
	return o;
}

json_t *rp_dir_json(struct rp_dir_stats *d, uint64_t runtime_ns)
{
	json_t *o = json_object();
	double secs = runtime_ns / 1e9;
	double bw = secs > 0 ? (double)d->bytes / secs : 0;
	struct cm_lat none = { 0 };

	json_object_set_new(o, "io_bytes", cm_json_u64(d->bytes));
	json_object_set_new(o, "io_kbytes", cm_json_u64(d->bytes >> 10));
	json_object_set_new(o, "bw_bytes", cm_json_u64((uint64_t)bw));
	json_object_set_new(o, "bw", cm_json_u64((uint64_t)(bw / 1024)));
	json_object_set_new(o, "iops", json_real(secs > 0 ? (double)d->ios / secs : 0));
	json_object_set_new(o, "runtime", cm_json_u64(runtime_ns / 1000000));
	json_object_set_new(o, "total_ios", cm_json_u64(d->ios));
	json_object_set_new(o, "short_ios", cm_json_u64(d->short_ios));
	json_object_set_new(o, "drop_ios", cm_json_u64(d->drop_ios));
	json_object_set_new(o, "slat_ns", lat_json(&none));
	json_object_set_new(o, "clat_ns", lat_json(&d->clat));
	json_object_set_new(o, "lat_ns", lat_json(&d->lat));
	return o;
}

/* fio's latency_ns / latency_us / latency_ms: percent of the job's ops
 * (read, write, sync) whose total latency falls in each bucket, a bucket
 * holding latencies above the previous key up to its own (from the
 * histograms: to within their 0.4 %). */
static void lat_bins(json_t *jo, struct rp_job *j)
{
	static const unsigned keys[] = { 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000 };
	static const char *const names[] = { "latency_ns", "latency_us", "latency_ms" };
	uint64_t n = 0, prev = 0;
	double cnt[3][11] = { { 0 } }, over;
	char key[16];

	for (int d = 0; d < 3; d++) {
		cm_lat_finish(&j->d[d].lat);
		n += j->d[d].lat.count;
	}
	/* ops at or below x, all directions */
	#define LE(x) (cm_lat_count_le(&j->d[0].lat, (x)) + cm_lat_count_le(&j->d[1].lat, (x)) + \
		       cm_lat_count_le(&j->d[2].lat, (x)))
	uint64_t unit = 1;
	for (int u = 0; u < 3; u++, unit *= 1000)
		for (int k = 0; k < 10; k++) {
			uint64_t le = LE(keys[k] * unit);
			cnt[u][k] = (double)(le - prev);
			prev = le;
		}
	uint64_t le2000 = LE(2000000000ull);
	cnt[2][10] = (double)(le2000 - prev);	/* fio's last ms buckets: 2000 and >=2000 */
	over = (double)(n - le2000);
	#undef LE
	for (int u = 0; u < 3; u++) {
		json_t *o = json_object();
		for (int k = 0; k < 10; k++) {
			snprintf(key, sizeof(key), "%u", keys[k]);
			json_object_set_new(o, key, json_real(n ? 100.0 * cnt[u][k] / (double)n : 0));
		}
		if (u == 2) {
			json_object_set_new(o, "2000", json_real(n ? 100.0 * cnt[2][10] / (double)n : 0));
			json_object_set_new(o, ">=2000", json_real(n ? 100.0 * over / (double)n : 0));
		}
		json_object_set_new(jo, names[u], o);
	}
}

/* Sum of the jobs (latencies merged as histograms). */
static void total_job(const struct rp_result *res, struct rp_job *t)
{
	size_t none = 0;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < res->njobs; i++) {
		const struct rp_job *j = &res->jobs[i];
		for (int d = 0; d < 3; d++) {
			t->d[d].ios += j->d[d].ios;
			t->d[d].bytes += j->d[d].bytes;
			t->d[d].short_ios += j->d[d].short_ios;
			t->d[d].drop_ios += j->d[d].drop_ios;
			cm_lat_merge(&t->d[d].clat, &j->d[d].clat, &none);
			cm_lat_merge(&t->d[d].lat, &j->d[d].lat, &none);
		}
		for (unsigned k = 0; k < RP_KIND_MAX; k++) {
			t->done[k] += j->done[k];
			if (j->failed[k] && (!t->failed[k] ||
					     j->first_fail[k].ts < t->first_fail[k].ts))
				t->first_fail[k] = j->first_fail[k];
			t->failed[k] += j->failed[k];
			t->unissued[k] += j->unissued[k];
		}
		t->errors += j->errors;
		t->mkdir_existed += j->mkdir_existed;
		t->meta_unlike += j->meta_unlike;
		t->absent += j->absent;
		if (!t->first_error)
			t->first_error = j->first_error;
		t->compute_ns += j->compute_ns;
		t->adjusted += j->adjusted;
		cm_lat_merge(&t->terr, &j->terr, &none);
	}
	t->wall_ns = res->wall_ns;
}

static void total_release(struct rp_job *t)
{
	for (int d = 0; d < 3; d++) {
		cm_lat_release(&t->d[d].clat);
		cm_lat_release(&t->d[d].lat);
	}
	cm_lat_release(&t->terr);
}

/* Bytes read from dataset copy k, all jobs. */
static uint64_t copy_bytes(const struct rp_result *res, unsigned k)
{
	return k < res->ncopies ? res->copy_bytes[k] : 0;
}

static uint64_t fault_reads(const struct rp_result *res)
{
	uint64_t n = 0;
	for (size_t i = 0; i < res->njobs; i++)
		n += res->jobs[i].fault_reads;
	return n;
}

/* AU as DLIO: compute time / wall time, over all simulated accelerators. */
/* The run's AU as DLIO's, and as the scale section's (rp_scale_stats):
 * the least of the accelerators' (the busiest thread's compute over the
 * wall time); 0 when it cannot be computed (out of memory). */
static double au_of(const struct rp_result *res, const struct rp_layout *l)
{
	struct rp_scale st;
	double au;

	if (rp_scale_stats(res, l, 0, &st))
		return 0;
	au = st.au_min;
	rp_scale_release(&st);
	return au;
}

/* Accelerator x's AU per epoch, as DLIO computes it, from its training
 * thread's job j's epoch marks: 0, -ENOMEM. */
static int dlio_epochs(struct rp_scale_acc *x, const struct rp_job *j)
{
	unsigned nep = j->nmarks / 2, n = 0;
	double sum = 0;

	if (!nep)
		return 0;
	if (!(x->au_ep = calloc(nep, sizeof(*x->au_ep))) ||
	    !(x->ep_ns = calloc(nep, sizeof(*x->ep_ns))))
		return -ENOMEM;
	x->nep = nep;
	for (unsigned e = 0; e < nep; e++) {
		const uint64_t *a = &j->marks[4 * e], *b = &j->marks[4 * e + 2];

		x->au_ep[e] = NAN;
		if (a[0] == UINT64_MAX || b[0] == UINT64_MAX || b[0] <= a[0] || b[1] < a[1])
			continue;
		x->au_ep[e] = (double)(b[1] - a[1]) / (double)(b[0] - a[0]);
		x->ep_ns[e] = b[0] - a[0];
		if (x->au_ep[e] > 1)
			x->au_ep[e] = 1;	/* a sleep's overrun taken off a later one */
		sum += x->au_ep[e];
		n++;
	}
	x->au_dlio = n ? sum / n : NAN;
	return 0;
}

int rp_scale_stats(const struct rp_result *res, const struct rp_layout *l, double au,
		   struct rp_scale *st)
{
	unsigned n = 0;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < res->njobs; i++)
		if (res->jobs[i].accel + 1 > n)
			n = res->jobs[i].accel + 1;
	if (!n)
		n = 1;
	uint64_t *mark_ns = calloc(n, sizeof(*mark_ns)), *mark_c = calloc(n, sizeof(*mark_c));
	if (!mark_ns || !mark_c || !(st->acc = calloc(n, sizeof(*st->acc)))) {
		free(mark_ns);
		free(mark_c);
		return -ENOMEM;
	}
	st->n = n;
	for (unsigned a = 0; a < n; a++) {
		st->acc[a].accel = a;
		st->acc[a].au_dlio = NAN;
	}
	for (size_t i = 0; i < res->njobs; i++) {
		const struct rp_job *j = &res->jobs[i];
		struct rp_scale_acc *x = &st->acc[j->accel];
		if (!x->host) {
			x->host = j->host;
			x->rank = j->rank;
		}
		if (j->train) {	/* its training thread, the source says */
			x->compute_ns = j->compute_ns;
			x->train = 1;
			if (j->nmarks && !x->nep && dlio_epochs(x, j) < 0) {
				free(mark_ns);
				free(mark_c);
				rp_scale_release(st);
				return -ENOMEM;
			}
		} else if (!x->train && j->compute_ns > x->compute_ns) {
			x->compute_ns = j->compute_ns;
		}
		if (j->mark_ns) {	/* its training thread: the first step ends here */
			x->first_step_out = 1;
			mark_ns[j->accel] = j->mark_ns;
			mark_c[j->accel] = j->mark_compute_ns;
		}
		if (j->wall_ns > x->wall_ns)
			x->wall_ns = j->wall_ns;
		x->read_bytes += j->d[0].bytes;
		x->write_bytes += j->d[1].bytes;
		x->ios += j->d[0].ios + j->d[1].ios;
		x->opens += j->done[CM_OPEN];
	}
	st->au_min = 1e300;
	for (unsigned a = 0; a < n; a++) {
		struct rp_scale_acc *x = &st->acc[a];
		x->au = x->wall_ns ? (double)x->compute_ns / (double)x->wall_ns : 0;
		/* as DLIO: without the first step (warm-up), where one is seen */
		if (x->first_step_out && x->wall_ns > mark_ns[a] && x->compute_ns >= mark_c[a]) {
			x->au = (double)(x->compute_ns - mark_c[a]) / (double)(x->wall_ns - mark_ns[a]);
			x->first_wall_ns = mark_ns[a];
			x->first_compute_ns = mark_c[a];
		} else {
			x->first_step_out = 0;
		}
		if (x->au > 1)
			x->au = 1;	/* a sleep's overrun taken off a later one */
		x->au_run = x->au;
		if (!isnan(x->au_dlio))
			x->au = x->au_dlio;	/* DLIO's figure is the one judged */
		st->au_min = x->au < st->au_min ? x->au : st->au_min;
		st->au_max = x->au > st->au_max ? x->au : st->au_max;
		st->au_mean += x->au / n;
		st->read_bytes += x->read_bytes;
		st->write_bytes += x->write_bytes;
		st->ios += x->ios;
		st->opens += x->opens;
	}
	free(mark_ns);
	free(mark_c);
	/* per rank: its accelerators are consecutive (numbered rank by rank) */
	if (!(st->ranks = calloc(n, sizeof(*st->ranks)))) {
		rp_scale_release(st);
		return -ENOMEM;
	}
	for (unsigned a = 0; a < n; a++) {
		const struct rp_scale_acc *x = &st->acc[a];
		if (!a || x->rank != st->acc[a - 1].rank)	/* a new rank */
			st->ranks[st->nranks++] = (struct rp_scale_rank){ .rank = x->rank,
									  .host = x->host, .au_min = 1 };
		struct rp_scale_rank *r = &st->ranks[st->nranks - 1];
		r->accelerators++;
		r->read_bytes += x->read_bytes;
		r->write_bytes += x->write_bytes;
		r->ios += x->ios;
		r->au_min = x->au < r->au_min ? x->au : r->au_min;
	}
	st->au_na = l && rp_layout_no_compute(l);
	st->pass = !st->au_na && st->au_min >= au;
	double secs = res->wall_ns / 1e9;
	if (secs > 0) {
		st->read_bw = st->read_bytes / secs;
		st->write_bw = st->write_bytes / secs;
		st->iops = st->ios / secs;
		st->files_per_s = st->opens / secs;
	}
	return 0;
}

void rp_scale_release(struct rp_scale *st)
{
	for (unsigned a = 0; st->acc && a < st->n; a++) {
		free(st->acc[a].au_ep);
		free(st->acc[a].ep_ns);
	}
	free(st->acc);
	free(st->ranks);
	memset(st, 0, sizeof(*st));
}

static double au_threshold(const struct rp_report_opts *r)
{
	return r->au > 0 ? r->au : 0.9;
}

/* An AU in JSON: null where it is not defined (rp_scale.au_na). */
static json_t *au_json(int na, double au)
{
	return na ? json_null() : json_real(au);
}

/* The data set against the memory that could cache it (MLPerf Storage asks
 * for 5x). */
static double mem_ratio(const struct rp_result *res)
{
	return res->mem_bytes ? (double)res->dataset_bytes / (double)res->mem_bytes : 0;
}

static json_t *scale_json(const struct rp_layout *l, const struct rp_report_opts *r,
			  const struct rp_result *res)
{
	struct rp_scale st;
	json_t *so = json_object(), *pa = json_array();

	if (rp_scale_stats(res, l, au_threshold(r), &st))
		return json_null();
	size_t tt = rp_train_thread(l);
	json_object_set_new(so, "accelerators", json_integer(st.n));
	json_object_set_new(so, "checkpoint_writers", json_string(r->writers ? "one" : "all"));
	json_object_set_new(so, "sync_steps", json_boolean(r->sync_steps));
	json_object_set_new(so, "steps_per_loop", cm_json_u64(tt < l->nthreads ?
							     l->threads[tt].steps : 0));
	json_object_set_new(so, "step_thread", cm_json_u64(tt < l->nthreads ?
							  l->threads[tt].tid : 0));
	json_object_set_new(so, "au_threshold", json_real(au_threshold(r)));
	json_object_set_new(so, "au_min", au_json(st.au_na, st.au_min));
	json_object_set_new(so, "au_mean", au_json(st.au_na, st.au_mean));
	json_object_set_new(so, "au_max", au_json(st.au_na, st.au_max));
	json_object_set_new(so, "pass", st.au_na ? json_null() : json_boolean(st.pass));
	json_object_set_new(so, "read_bytes", cm_json_u64(st.read_bytes));
	json_object_set_new(so, "write_bytes", cm_json_u64(st.write_bytes));
	json_object_set_new(so, "read_bw_bytes", cm_json_u64((uint64_t)st.read_bw));
	json_object_set_new(so, "write_bw_bytes", cm_json_u64((uint64_t)st.write_bw));
	json_object_set_new(so, "iops", json_real(st.iops));
	json_object_set_new(so, "files_per_s", json_real(st.files_per_s));
	json_object_set_new(so, "runtime_ns", cm_json_u64(res->wall_ns));
	json_object_set_new(so, "runtime_limit_ns", cm_json_u64(r->runtime_ns));
	json_object_set_new(so, "prepared_dataset_bytes", cm_json_u64(res->dataset_bytes));
	json_object_set_new(so, "memory_bytes", cm_json_u64(res->mem_bytes));
	json_object_set_new(so, "dataset_memory_ratio", json_real(mem_ratio(res)));
	for (unsigned a = 0; a < st.n; a++) {
		const struct rp_scale_acc *x = &st.acc[a];
		json_t *ep = json_array(), *ept = json_array();
		for (unsigned e = 0; e < x->nep; e++) {
			json_array_append_new(ep, isnan(x->au_ep[e]) || st.au_na ? json_null() :
						  json_real(x->au_ep[e]));
			json_array_append_new(ept, x->ep_ns[e] ? json_real(x->ep_ns[e] / 1e9) :
							       json_null());
		}
		json_array_append_new(pa, json_pack("{s:i,s:s,s:i,s:o,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
			"accelerator", (int)x->accel, "host", x->host ? x->host : "",
			"rank", x->rank, "au", au_json(st.au_na, x->au),
			"au_run", au_json(st.au_na, x->au_run),
			"au_dlio", au_json(st.au_na || isnan(x->au_dlio), x->au_dlio),
			"au_epochs", ep, "au_windows_s", ept, "first_step_excluded", x->first_step_out,
			"first_step_wall_ns", cm_json_u64(x->first_wall_ns),
			"first_step_compute_ns", cm_json_u64(x->first_compute_ns),
			"compute_ns", cm_json_u64(x->compute_ns), "wall_ns", cm_json_u64(x->wall_ns),
			"read_bytes", cm_json_u64(x->read_bytes),
			"write_bytes", cm_json_u64(x->write_bytes), "ios", cm_json_u64(x->ios)));
	}
	json_object_set_new(so, "per_accelerator", pa);
	json_object_set_new(so, "ranks", json_integer(r->ranks ? r->ranks : 1));
	json_t *ph = json_array();
	for (unsigned i = 0; i < st.nranks; i++) {
		const struct rp_scale_rank *rk = &st.ranks[i];
		json_array_append_new(ph, json_pack("{s:s,s:i,s:i,s:o,s:o,s:o,s:o}",
			"host", rk->host ? rk->host : "", "rank", rk->rank, "accelerators",
			(int)rk->accelerators, "au_min", au_json(st.au_na, rk->au_min), "read_bytes", cm_json_u64(rk->read_bytes),
			"write_bytes", cm_json_u64(rk->write_bytes), "ios", cm_json_u64(rk->ios)));
	}
	json_object_set_new(so, "per_host", ph);
	rp_scale_release(&st);
	return so;
}

#define JFLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER)

/* One job (a replay thread) in fio's shape. */
/* "tid-T", or "accel-A/tid-T" with accelerators. */
static const char *job_name(const struct rp_report_opts *r, const struct rp_job *j, char *buf, size_t len)
{
	if (r->accelerators)
		snprintf(buf, len, "accel-%u/tid-%u", j->accel, j->tid);
	else
		snprintf(buf, len, "tid-%u", j->tid);
	return buf;
}

static json_t *job_json(const struct rp_report_opts *r, struct rp_job *j)
{
	json_t *jo = json_object();
	struct rp_dir_stats trim = { 0 };
	char buf[48];

	job_name(r, j, buf, sizeof(buf));
	json_object_set_new(jo, "jobname", json_string(buf));
	json_object_set_new(jo, "groupid", json_integer(0));
	json_object_set_new(jo, "accelerator", json_integer(j->accel));
	json_object_set_new(jo, "host", json_string(j->host));
	json_object_set_new(jo, "rank", json_integer(j->rank));
	json_object_set_new(jo, "pid", cm_json_u64(j->pid));
	json_object_set_new(jo, "tid", cm_json_u64(j->tid));
	json_object_set_new(jo, "error", json_integer(-j->first_error));
	json_object_set_new(jo, "read", rp_dir_json(&j->d[0], j->wall_ns));
	json_object_set_new(jo, "write", rp_dir_json(&j->d[1], j->wall_ns));
	json_object_set_new(jo, "trim", rp_dir_json(&trim, j->wall_ns));
	json_object_set_new(jo, "sync", rp_dir_json(&j->d[2], j->wall_ns));
	json_object_set_new(jo, "job_runtime", cm_json_u64(j->wall_ns / 1000000));
	json_object_set_new(jo, "usr_cpu", json_real(j->wall_ns ? 100.0 * (double)j->usr_ns / (double)j->wall_ns : 0));
	json_object_set_new(jo, "sys_cpu", json_real(j->wall_ns ? 100.0 * (double)j->sys_ns / (double)j->wall_ns : 0));
	json_object_set_new(jo, "ctx", cm_json_u64(j->ctx));
	json_object_set_new(jo, "majf", cm_json_u64(j->majf));
	json_object_set_new(jo, "minf", cm_json_u64(j->minf));
	lat_bins(jo, j);
	json_object_set_new(jo, "compute_ns", cm_json_u64(j->compute_ns));
	json_object_set_new(jo, "accelerator_utilization",
			    json_real(j->wall_ns ? (double)j->compute_ns / (double)j->wall_ns : 0));
	json_object_set_new(jo, "errors", cm_json_u64(j->errors));
	return jo;
}

static const char *fail_kind(unsigned k)
{
	return k ? rp_kind_name(k) : "ring";
}

/* The failed ops per kind: count and the first one's error and file. */
static json_t *failed_json(const struct rp_layout *l, const struct rp_job *t)
{
	json_t *o = json_object();

	for (unsigned k = 0; k < RP_KIND_MAX; k++) {
		const struct rp_failure *f = &t->first_fail[k];
		json_t *x;
		if (!t->failed[k])
			continue;
		x = json_object();
		json_object_set_new(x, "count", cm_json_u64(t->failed[k]));
		json_object_set_new(x, "first_errno", json_integer(-f->err));
		json_object_set_new(x, "first_error", json_string(strerror(-f->err)));
		json_object_set_new(x, "first_path", k && f->file < l->nfiles ?
				    cm_json_str(rp_file_path(l, f->file)) : json_null());
		json_object_set_new(o, fail_kind(k), x);
	}
	return o;
}

/* The reader what-if (--reader-threads, --prefetch) as the model the
 * replay used, in words; 0 when none was asked. */
static int readers_model(const struct rp_report_opts *r, char *buf, size_t len)
{
	size_t n = 0;

	if (!r->reader_threads && !r->prefetch)
		return 0;
	buf[0] = 0;
	if (r->reader_threads) {
		n += (size_t)snprintf(buf + n, len - n, "%u reader thread%s (recorded %u)",
				      r->reader_threads, r->reader_threads == 1 ? "" : "s",
				      r->readers_recorded);
		if (r->readers_trace && n < len)
			n += (size_t)snprintf(buf + n, len - n, ", each data set file's open..close "
					      "dealt round-robin in recorded open order");
	}
	if (r->prefetch && n < len) {
		if (r->readers_trace)
			n += (size_t)snprintf(buf + n, len - n, "%sprefetch %u batches (a reader's "
					      "file waits for the trainer's step %u back from the "
					      "one it was opened in)", n ? ", " : "",
					      r->prefetch, r->prefetch);
		else
			n += (size_t)snprintf(buf + n, len - n, "%sprefetch %u batches (recorded %u)",
					      n ? ", " : "", r->prefetch, r->prefetch_recorded);
	}
	return 1;
}

static json_t *readers_json(const struct rp_report_opts *r)
{
	char m[512];
	json_t *ro;

	if (!readers_model(r, m, sizeof(m)))
		return json_null();
	ro = json_object();
	json_object_set_new(ro, "source", json_string(r->readers_trace ? "trace" : "job file"));
	json_object_set_new(ro, "reader_threads", r->reader_threads ? json_integer(r->reader_threads)
								   : json_null());
	json_object_set_new(ro, "recorded_reader_threads", json_integer(r->readers_recorded));
	json_object_set_new(ro, "prefetch", r->prefetch ? json_integer(r->prefetch) : json_null());
	json_object_set_new(ro, "recorded_prefetch", r->prefetch_recorded ?
				json_integer(r->prefetch_recorded) : json_null());
	json_object_set_new(ro, "model", json_string(m));
	return ro;
}

/* What fio has no word for: "replay", but its per-file list. */
static json_t *replay_json(const struct rp_layout *l, const struct rp_opts *o,
			   const struct rp_report_opts *r, const struct rp_result *res,
			   struct rp_job *t)
{
	json_t *rp = json_object(), *exp = json_object(), *done = json_object();
	json_t *unis = json_object();

	json_object_set_new(rp, "timing", json_string(timing_names[o->timing]));
	json_object_set_new(rp, "speed", json_real(o->speed));
	json_object_set_new(rp, "compute_scale", json_real(o->compute_scale));
	json_object_set_new(rp, "iodepth", json_integer(o->iodepth));
	json_object_set_new(rp, "loops", json_integer(o->loops));
	json_object_set_new(rp, "reader_whatif", readers_json(r));
	json_object_set_new(rp, "threads", cm_json_u64(res->njobs));
	json_object_set_new(rp, "recorded_duration_ns", cm_json_u64(l->span));
	json_object_set_new(rp, "replayed_duration_ns", cm_json_u64(res->wall_ns));
	for (unsigned k = 1; k < RP_KIND_MAX; k++) {
		json_object_set_new(exp, rp_kind_name(k),
				    cm_json_u64(l->expected[k] * o->loops - t->unissued[k]));
		json_object_set_new(unis, rp_kind_name(k), cm_json_u64(t->unissued[k]));
		json_object_set_new(done, rp_kind_name(k), cm_json_u64(t->done[k]));
	}
	json_object_set_new(rp, "ops_expected", exp);
	json_object_set_new(rp, "ops_done", done);
	json_object_set_new(rp, "ops_not_issued", unis);
	json_object_set_new(rp, "mkdir_existed", cm_json_u64(t->mkdir_existed));
	json_object_set_new(rp, "metadata_unlike", cm_json_u64(t->meta_unlike));
	json_object_set_new(rp, "ops_absent", cm_json_u64(t->absent));
	json_object_set_new(rp, "ops_failed", cm_json_u64(t->errors));
	json_object_set_new(rp, "failed", failed_json(l, t));
	json_object_set_new(rp, "recorded_skipped", cm_json_u64(l->skipped));
	json_object_set_new(rp, "recorded_failed", cm_json_u64(l->failed));
	json_object_set_new(rp, "recorded_unmatched", cm_json_u64(l->unmatched));
	json_object_set_new(rp, "recorded_not_storage", cm_json_u64(l->not_storage));
	json_object_set_new(rp, "handovers", cm_json_u64(l->handovers));
	json_object_set_new(rp, "recorded_out_of_order", cm_json_u64(l->late));
	json_object_set_new(rp, "opens_inferred", cm_json_u64(l->opens_inferred));
	json_t *mf = json_object();
	for (unsigned i = 0; i < l->nmemfs; i++)
		json_object_set_new(mf, l->memfs[i].where, cm_json_u64(l->memfs[i].ops));
	json_object_set_new(rp, "recorded_memory_fs", json_pack("{s:o,s:o}", "ops",
				cm_json_u64(l->memfs_ops), "where", mf));
	json_object_set_new(rp, "implicit_opens", cm_json_u64(res->implicit_opens));
	json_object_set_new(rp, "direct_adjusted", cm_json_u64(t->adjusted));
	json_object_set_new(rp, "fault_reads_expected", cm_json_u64(l->fault_reads * o->loops));
	json_object_set_new(rp, "fault_reads", cm_json_u64(fault_reads(res)));
	json_object_set_new(rp, "fault_pages", cm_json_u64(l->fault_pages));
	json_object_set_new(rp, "faults_unmatched", cm_json_u64(l->faults_unmatched));
	json_object_set_new(rp, "faults_code", cm_json_u64(l->faults_code));
	json_object_set_new(rp, "faults_shm", cm_json_u64(l->faults_shm));
	json_object_set_new(rp, "storage_read_bytes", cm_json_u64(res->dev_read_bytes));
	json_object_set_new(rp, "scale_dataset", json_integer(r->scale ? r->scale : 1));
	json_object_set_new(rp, "dataset_bytes", cm_json_u64(l->dataset_bytes));
	json_t *cb = json_array();
	for (unsigned k = 0; k < (r->scale ? r->scale : 1); k++)
		json_array_append_new(cb, cm_json_u64(copy_bytes(res, k)));
	json_object_set_new(rp, "copy_read_bytes", cb);
	if (r->mem_limit) {
		json_t *m = json_object();
		json_object_set_new(m, "limit", cm_json_u64(r->mem_limit));
		json_object_set_new(m, "cgroup_version", json_integer(res->cgroup));
		json_object_set_new(m, "peak", cm_json_u64(res->mem_peak));
		json_object_set_new(m, "limit_hits", cm_json_u64(res->mem_limit_hits));
		json_object_set_new(rp, "mem_limit", m);
	}
	json_object_set_new(rp, "compute_ns", cm_json_u64(t->compute_ns));
	json_object_set_new(rp, "accelerator_utilization", au_json(rp_layout_no_compute(l),
								  au_of(res, l)));
	if (o->timing == RP_TIME_ORIGINAL) {
		json_object_set_new(rp, "timing_error_ns", lat_json(&t->terr));
		json_object_set_new(rp, "realtime", json_boolean(res->njobs && res->jobs[0].realtime));
	}
	json_t *to = json_object();	/* the total in fio's shape */
	json_object_set_new(to, "read", rp_dir_json(&t->d[0], res->wall_ns));
	json_object_set_new(to, "write", rp_dir_json(&t->d[1], res->wall_ns));
	json_object_set_new(to, "sync", rp_dir_json(&t->d[2], res->wall_ns));
	json_object_set_new(rp, "total", to);
	return rp;
}

/* v (freed) as JSON, its lines after the first indented by ind spaces;
 * with cut, less its last byte (the closing brace: the caller adds keys). */
static int put_json(FILE *f, json_t *v, int ind, int cut)
{
	char *s = v ? json_dumps(v, JFLAGS | JSON_ENCODE_ANY) : NULL;

	json_decref(v);
	if (!s)
		return -1;
	if (cut) {
		size_t n = strlen(s) - 1;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
			n--;
		s[n] = 0;
	}
	for (const char *p = s; *p; p++) {
		fputc(*p, f);
		if (*p == '\n')
			fprintf(f, "%*s", ind, "");
	}
	free(s);
	return 0;
}

/* "key": v, at the top level. */
static int put_key(FILE *f, int *n, const char *key, json_t *v)
{
	fprintf(f, "%s\n  \"%s\": ", (*n)++ ? "," : "", key);
	return put_json(f, v, 2, 0);
}

/* The caller's sections that go at `at`, each ",\n  "KEY": VALUE". */
static int sections_json(FILE *f, const struct rp_layout *l, const struct rp_result *res,
			 enum rp_section_at at)
{
	int rc = 0;

	for (unsigned i = 0; i < res->nsections; i++) {
		const struct rp_section *x = &res->sections[i];
		if (x->at != at || !x->json)
			continue;
		fprintf(f, ",\n  \"%s\": ", x->key);
		rc |= put_json(f, x->json(x->arg, l, res), 2, 0);
	}
	return rc;
}

/*
 * The report is written as it is made: the jobs one by one, and the
 * replay's per-file list (a million files would be a gigabyte of JSON
 * objects) one file at a time, so memory does not grow with files here.
 */
int rp_report_json(FILE *f, const struct rp_layout *l, const struct rp_opts *o,
		   const struct rp_report_opts *r, struct rp_result *res)
{
	struct rp_job t;
	char buf[64];
	time_t now = time(NULL);
	int rc = 0, n = 0;

	total_job(res, &t);
	strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", localtime(&now));
	fputc('{', f);
	rc |= put_key(f, &n, "fio version", json_string("iotape-" IOTAPE_VERSION));
	rc |= put_key(f, &n, "timestamp", json_integer((json_int_t)now));
	rc |= put_key(f, &n, "timestamp_ms", json_integer((json_int_t)now * 1000));
	rc |= put_key(f, &n, "time", json_string(buf));
	fprintf(f, ",\n  \"jobs\": [");
	for (size_t i = 0; i < res->njobs; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		rc |= put_json(f, job_json(r, &res->jobs[i]), 4, 0);
	}
	fputs("\n  ]", f);
	rc |= sections_json(f, l, res, RP_AT_PLACEMENTS);
	fputs(",\n  \"scale\": ", f);
	rc |= put_json(f, scale_json(l, r, res), 2, 0);
	rc |= sections_json(f, l, res, RP_AT_SCALE);
	fputs(",\n  \"replay\": ", f);
	/* "replay" but its last key, then "files": [ ... ] */
	rc |= put_json(f, replay_json(l, o, r, res, &t), 2, 1);
	fputs(",\n    \"files\": [", f);
	/* across ranks, each has files of its own: none listed */
	for (size_t i = 0; r->ranks <= 1 && i < l->nfiles; i++) {
		json_t *fo = json_object();
		json_object_set_new(fo, "path", cm_json_str(rp_file_path(l, (uint32_t)i)));
		json_object_set_new(fo, "recorded_bytes",
				    cm_json_u64((l->files[i].rbytes + l->files[i].wbytes) * o->loops));
		json_object_set_new(fo, "replayed_bytes",
				    cm_json_u64(i < res->nfiles ? res->file_bytes[i] : 0));
		fputs(i ? ",\n      " : "\n      ", f);
		rc |= json_dumpf(fo, f, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(fo);
	}
	fputs("\n    ]\n  }\n}\n", f);
	total_release(&t);
	return rc ? -EIO : 0;
}

void rp_dir_text(FILE *f, const char *name, struct rp_dir_stats *d, uint64_t ns)
{
	char b1[32], b2[32], b3[32], b4[32];
	double secs = ns / 1e9;

	if (!d->ios && !d->drop_ios)
		return;
	cm_lat_finish(&d->clat);
	cm_fmt_bytes(b1, sizeof(b1), secs > 0 ? (uint64_t)(d->bytes / secs) : 0);
	cm_fmt_bytes(b2, sizeof(b2), d->bytes);
	fprintf(f, "  %5s: IOPS=%.0f, BW=%s/s (%s/%" PRIu64 "msec)\n", name,
		secs > 0 ? d->ios / secs : 0, b1, b2, ns / 1000000);
	cm_fmt_ns(b1, sizeof(b1), d->clat.count ? d->clat.min : 0);
	cm_fmt_ns(b2, sizeof(b2), cm_lat_pct(&d->clat, 50));
	cm_fmt_ns(b3, sizeof(b3), cm_lat_pct(&d->clat, 99));
	cm_fmt_ns(b4, sizeof(b4), d->clat.max);
	fprintf(f, "    clat: min=%s, p50=%s, p99=%s, max=%s\n", b1, b2, b3, b4);
	fprintf(f, "    issued: total=%" PRIu64 ", short=%" PRIu64 ", dropped=%" PRIu64 "\n",
		d->ios, d->short_ios, d->drop_ios);
}

/* "failed in the replay: none", or the count and the first failure of
 * each kind. */
static void failed_text(FILE *f, const struct rp_layout *l, const struct rp_job *t)
{
	if (!t->errors) {
		fputs("  failed in the replay: none\n", f);
		return;
	}
	fprintf(f, "  failed in the replay: %" PRIu64 " ops:", t->errors);
	for (unsigned k = 0; k < RP_KIND_MAX; k++) {
		const struct rp_failure *e = &t->first_fail[k];
		if (!t->failed[k])
			continue;
		fprintf(f, " %s %" PRIu64 " (first: ", fail_kind(k), t->failed[k]);
		if (k && e->file < l->nfiles) {
			cm_put_escaped(f, rp_file_path(l, e->file), 0);
			fputs(": ", f);
		}
		fprintf(f, "%s)", strerror(-e->err));
	}
	fputc('\n', f);
}

/* Each job and all of them, in fio's shape (the placements are the
 * resolver's section, rp_places_section). */
static void jobs_text(FILE *f, const struct rp_report_opts *r, struct rp_result *res,
		      struct rp_job *t)
{
	for (size_t i = 0; i < res->njobs; i++) {
		struct rp_job *j = &res->jobs[i];
		char name[48];
		fprintf(f, "%s: (groupid=0): err=%3d, ops failed=%" PRIu64 "\n",
			job_name(r, j, name, sizeof(name)), -j->first_error, j->errors);
		for (int d = 0; d < 3; d++)
			rp_dir_text(f, rp_dir_names[d], &j->d[d], j->wall_ns);
	}
	fprintf(f, "\nAll jobs:\n");
	for (int d = 0; d < 3; d++)
		rp_dir_text(f, rp_dir_names[d], &t->d[d], res->wall_ns);
}

/* The replay's ops: those done of those expected, and what the recording
 * had that was not replayed. */
static void ops_text(FILE *f, const struct rp_layout *l, const struct rp_opts *o,
		     const struct rp_result *res, const struct rp_job *t)
{
	fprintf(f, "  ops:");
	for (unsigned k = 1; k < RP_KIND_MAX; k++) {
		if (!l->expected[k])
			continue;
		fprintf(f, " %s %" PRIu64 "/%" PRIu64, rp_kind_name(k), t->done[k],
			l->expected[k] * o->loops - t->unissued[k]);
		if (k == CM_MKDIR && t->mkdir_existed)
			fprintf(f, " (%" PRIu64 " existed)", t->mkdir_existed);
	}
	fputc('\n', f);
	if (t->meta_unlike)
		fprintf(f, "  metadata ops that succeeded where the recording's failed: %" PRIu64 "\n",
			t->meta_unlike);
	if (t->absent)
		fprintf(f, "  ops on what the job made by ops not replayed (a socket's bind), "
			"failed as expected: %" PRIu64 "\n", t->absent);
	failed_text(f, l, t);
	fprintf(f, "  not replayed from the recording: %" PRIu64 " skipped, %" PRIu64
		" that failed when recorded, %" PRIu64 " unmatched, %" PRIu64
		" on pipes, sockets and devices\n",
		l->skipped, l->failed, l->unmatched, l->not_storage);
	if (l->handovers)
		fprintf(f, "  hand-overs: %" PRIu64 " waits for another thread of the job (its data "
			"through a pipe, a wakeup, its start), replayed as waits, not delays\n",
			l->handovers);
	if (l->memfs_ops) {
		fprintf(f, "  not replayed, on memory and pseudo file systems: %" PRIu64 " ops (",
			l->memfs_ops);
		for (unsigned i = 0; i < l->nmemfs; i++)
			fprintf(f, "%s%s %" PRIu64, i ? ", " : "", l->memfs[i].where, l->memfs[i].ops);
		fputs(")\n", f);
	}
	if (l->opens_inferred)
		fprintf(f, "  open flags inferred from the writes (the trace has none): %" PRIu64
			" opens\n", l->opens_inferred);
	if (l->fault_reads || l->faults_unmatched || l->faults_code || l->faults_shm)
		fprintf(f, "  page faults: %" PRIu64 "/%" PRIu64 " reads (%" PRIu64
			" pages); not replayed: %" PRIu64 " on unknown files, %" PRIu64
			" on programs and libraries, %" PRIu64 " under /dev\n", fault_reads(res),
			l->fault_reads * o->loops, l->fault_pages, l->faults_unmatched,
			l->faults_code, l->faults_shm);
	if (l->direct)
		fprintf(f, "  aligned for O_DIRECT: %" PRIu64 " ops\n", t->adjusted);
}

/* What the run read and held: the storage's bytes, the data set's copies,
 * the memory limit, the timing error, the ops not issued, the bound, the
 * data set against memory. */
static void run_text(FILE *f, const struct rp_layout *l, const struct rp_opts *o,
		     const struct rp_report_opts *r, const struct rp_result *res, struct rp_job *t)
{
	char b1[32], b2[32];

	cm_fmt_bytes(b1, sizeof(b1), res->dev_read_bytes);
	fprintf(f, "  read from storage: %s\n", b1);
	if (r->scale > 1) {
		cm_fmt_bytes(b1, sizeof(b1), l->dataset_bytes);
		fprintf(f, "  dataset x%u (%s read per copy per loop), read per copy:", r->scale, b1);
		for (unsigned k = 0; k < r->scale; k++) {
			cm_fmt_bytes(b1, sizeof(b1), copy_bytes(res, k));
			fprintf(f, " %s", b1);
		}
		fputc('\n', f);
	}
	if (r->mem_limit) {
		cm_fmt_bytes(b1, sizeof(b1), r->mem_limit);
		cm_fmt_bytes(b2, sizeof(b2), res->mem_peak);
		fprintf(f, "  memory limit: %s (cgroup v%d), peak %s, limit hit %" PRIu64 " times\n",
			b1, res->cgroup, b2, res->mem_limit_hits);
	}
	if (o->timing == RP_TIME_ORIGINAL) {
		cm_lat_finish(&t->terr);
		cm_fmt_ns(b1, sizeof(b1), cm_lat_pct(&t->terr, 50));
		cm_fmt_ns(b2, sizeof(b2), cm_lat_pct(&t->terr, 99));
		fprintf(f, "  timing error: p50=%s, p99=%s\n", b1, b2);
	}
	uint64_t unissued = 0;
	for (unsigned k = 0; k < RP_KIND_MAX; k++)
		unissued += t->unissued[k];
	if (unissued)
		fprintf(f, "  not issued (--checkpoint-writers one: accelerators 1.. skip the "
			"files the job writes): %" PRIu64 " ops\n", unissued);
	if (r->runtime_ns) {
		cm_fmt_ns(b1, sizeof(b1), r->runtime_ns);
		fprintf(f, "  runtime bound: %s%s\n", b1, res->bounded || res->wall_ns >= r->runtime_ns ?
			" (reached: the ops after it were not taken)" : "");
	}
	if (!res->dataset_bytes) {
		fputs("  data set: none prepared\n", f);
	} else if (res->mem_bytes) {
		cm_fmt_bytes(b1, sizeof(b1), res->dataset_bytes);
		cm_fmt_bytes(b2, sizeof(b2), res->mem_bytes);
		fprintf(f, "  data set: %s prepared, %.2fx the %s of memory the replay may use (%s)\n",
			b1, mem_ratio(res), b2, r->mem_limit ? "--mem-limit" : "MemTotal");
	}
}

/* A run no accelerators were asked of: its AU, in a line. */
static void au_text(FILE *f, const struct rp_layout *l, const struct rp_result *res)
{
	struct rp_scale s1;

	if (rp_layout_no_compute(l)) {
		fputs("  accelerator utilization: n/a (the job has no compute)\n", f);
	} else if (!rp_scale_stats(res, l, 0, &s1)) {
		const struct rp_scale_acc *x = &s1.acc[0];

		if (s1.n == 1 && !isnan(x->au_dlio)) {
			fprintf(f, "  accelerator utilization: %.1f%% as DLIO computes it (per "
				"epoch:", 100.0 * x->au);
			for (unsigned e = 0; e < x->nep; e++)
				fprintf(f, isnan(x->au_ep[e]) ? " n/a" : " %.1f%%",
					100.0 * x->au_ep[e]);
			fprintf(f, "), %.1f%% over the whole run\n", 100.0 * x->au_run);
		} else {
			fprintf(f, "  accelerator utilization: %.1f%%\n", 100.0 * s1.au_min);
		}
		rp_scale_release(&s1);
	}
}

/* One accelerator's line of the Scale section. */
static void acc_text(FILE *f, const struct rp_scale *st, unsigned a)
{
	const struct rp_scale_acc *x = &st->acc[a];
	char au[80] = "n/a", b1[32], b2[32], b3[32];

	cm_fmt_bytes(b1, sizeof(b1), x->read_bytes);
	cm_fmt_bytes(b2, sizeof(b2), x->write_bytes);
	cm_fmt_ns(b3, sizeof(b3), x->wall_ns);
	if (!st->au_na && !isnan(x->au_dlio))
		snprintf(au, sizeof(au), "%.1f%% (DLIO's, %u epoch%s; run %.1f%%)",
			 100.0 * x->au, x->nep, x->nep == 1 ? "" : "s",
			 100.0 * x->au_run);
	else if (!st->au_na)
		snprintf(au, sizeof(au), "%.1f%%%s", 100.0 * x->au,
			 x->first_step_out ? " (first step out)" : "");
	fprintf(f, "  accel-%u%s%s: AU=%s, read %s, written %s, %" PRIu64
		" ios, %s\n", a, x->host && x->host[0] ? " on " : "",
		x->host ? x->host : "", au, b1, b2, x->ios, b3);
}

/* The scale-out: each accelerator, each rank, all of them, and the verdict. */
static void scale_text(FILE *f, const struct rp_layout *l, const struct rp_report_opts *r,
		       const struct rp_result *res)
{
	struct rp_scale st;
	char b1[32], b2[32];

	if (rp_scale_stats(res, l, au_threshold(r), &st))
		return;
	size_t tt = rp_train_thread(l);
	fprintf(f, "\nScale: %u accelerators (checkpoint writers: %s, steps ", st.n,
		r->writers ? "one" : "all");
	if (r->sync_steps && tt < l->nthreads)
		fprintf(f, "synchronized: %" PRIu64 " a loop, thread %u's %s)\n",
			l->threads[tt].steps, l->threads[tt].tid, l->steps_marked ?
			"steps" : "compute gaps of 1 ms or more");
	else
		fputs("not synchronized)\n", f);
	for (unsigned a = 0; a < st.n; a++)
		acc_text(f, &st, a);
	for (unsigned i = 0; r->ranks > 1 && i < st.nranks; i++) {
		const struct rp_scale_rank *rk = &st.ranks[i];
		cm_fmt_bytes(b1, sizeof(b1), rk->read_bytes);
		cm_fmt_bytes(b2, sizeof(b2), rk->write_bytes);
		char au[32] = "n/a";
		if (!st.au_na)
			snprintf(au, sizeof(au), "%.1f%%", 100 * rk->au_min);
		fprintf(f, "  rank %d on %s: %u accelerator%s, read %s, written %s, AU min %s\n",
			rk->rank, rk->host ? rk->host : "", rk->accelerators,
			rk->accelerators == 1 ? "" : "s", b1, b2, au);
	}
	cm_fmt_bytes(b1, sizeof(b1), (uint64_t)st.read_bw);
	cm_fmt_bytes(b2, sizeof(b2), (uint64_t)st.write_bw);
	fprintf(f, "  all: read %s/s, write %s/s, %.0f IOPS, %.1f files/s\n", b1, b2,
		st.iops, st.files_per_s);
	if (st.au_na)
		fputs("  AU n/a: the job has no compute (AU is compute time over wall "
		      "time), so no PASS or FAIL\n", f);
	else
		fprintf(f, "  AU min %.1f%%, mean %.1f%%, max %.1f%%: %s (AU >= %.0f%%)\n",
			100 * st.au_min, 100 * st.au_mean, 100 * st.au_max,
			st.pass ? "PASS" : "FAIL", 100 * au_threshold(r));
	rp_scale_release(&st);
}

int rp_report_text(FILE *f, const struct rp_layout *l, const struct rp_opts *o,
		   const struct rp_report_opts *r, struct rp_result *res)
{
	struct rp_job t;
	char b1[32], b2[32], m[512];

	total_job(res, &t);
	jobs_text(f, r, res, &t);
	for (unsigned i = 0; i < res->nsections; i++)
		if (res->sections[i].text)
			res->sections[i].text(res->sections[i].arg, f, l, res);
	cm_fmt_ns(b1, sizeof(b1), l->span);
	cm_fmt_ns(b2, sizeof(b2), res->wall_ns);
	fprintf(f, "\nReplay (%s timing): recorded %s, replayed %s, %zu threads\n",
		timing_names[o->timing], b1, b2, res->njobs);
	if (readers_model(r, m, sizeof(m)))
		fprintf(f, "  reader what-if: %s\n", m);
	ops_text(f, l, o, res, &t);
	run_text(f, l, o, r, res, &t);
	if (!r->accelerators)
		au_text(f, l, res);
	else
		scale_text(f, l, r, res);
	total_release(&t);
	return 0;
}
