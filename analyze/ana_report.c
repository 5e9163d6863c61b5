/* SPDX-License-Identifier: MIT */
/*
 * ana_report.c - print an analysis: JSON (schema "iotape-analyze/1", see
 * iotape-analyze(1)) or text for people.
 *
 * JSON is written one top-level key at a time, each built by its j_*
 * function (j_summary for "summary", ...) or written piecewise by its jw_*
 * one, which report_json calls in order; the files, processes and threads
 * arrays are written one element at a time, so a trace with a million
 * files does not build a million-node tree.  A metric that cannot be
 * computed is null, never 0, and "unavailable" lists it with the reason.
 *
 * Text is printed one section at a time, each by its own t_* function
 * (t_summary prints SUMMARY, ...), which report_text calls in order; a
 * section whose table the trace lacks says why in its place.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "fmt.h"
#include "ana_rows.h"

#define JFLAGS (JSON_COMPACT | JSON_REAL_PRECISION(10))

static const double pcts[] = { 50, 90, 99, 99.9 };
static const char *const pct_keys[] = { "p50", "p90", "p99", "p99.9" };

/* ------------------------------------------------------------- helpers */

static json_t *jreal(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

/* A JSON string (bytes that are not UTF-8 become U+FFFD), null for NULL. */
static json_t *jstr(const char *s)
{
	return s ? cm_json_str(s) : json_null();
}

static json_t *jlat(const struct cm_lat *l)
{
	if (!l->count)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "count", cm_json_u64(l->count));
	json_object_set_new(o, "min", cm_json_u64(l->min));
	json_object_set_new(o, "mean", json_real((double)l->sum / (double)l->count));
	for (size_t i = 0; i < sizeof(pcts) / sizeof(*pcts); i++)
		json_object_set_new(o, pct_keys[i], cm_json_u64(cm_lat_pct(l, pcts[i])));
	json_object_set_new(o, "max", cm_json_u64(l->max));
	json_object_set_new(o, "exact", json_boolean(!l->inexact));
	return o;
}

static json_t *jhist(const uint64_t *rd, const uint64_t *wr)
{
	json_t *arr = json_array();
	for (unsigned b = 0; b < ANA_SZ_BUCKETS; b++) {
		if (!rd[b] && !wr[b])
			continue;
		json_t *o = json_object();
		uint64_t lo = b ? 1ull << (b - 1) : 0;
		uint64_t hi = b == 0 ? 0 : b == 64 ? UINT64_MAX : (1ull << b) - 1;
		json_object_set_new(o, "min", cm_json_u64(lo));
		json_object_set_new(o, "max", b == 64 ? json_real((double)hi) : cm_json_u64(hi));
		json_object_set_new(o, "reads", cm_json_u64(rd[b]));
		json_object_set_new(o, "writes", cm_json_u64(wr[b]));
		json_array_append_new(arr, o);
	}
	return arr;
}

static double rel_s(const struct ana *a, uint64_t ts)
{
	return ts >= a->t0 ? (double)(ts - a->t0) / 1e9 : -(double)(a->t0 - ts) / 1e9;
}

/* ns from the window start (events are in the window: never before it). */
static uint64_t rel_ns(const struct ana *a, uint64_t ts)
{
	return ts >= a->t0 ? ts - a->t0 : 0;
}

static uint64_t trace_end(const struct ana *a)
{
	uint64_t end = a->sys.last_ns;
	const int t[] = { TAPE_TABLE_SYSCALL, TAPE_TABLE_BLOCK, TAPE_TABLE_CACHE, TAPE_TABLE_SAMPLE };
	for (size_t i = 0; i < 4; i++)
		if (a->st[t[i]].events && a->st[t[i]].t_max > end)
			end = a->st[t[i]].t_max;
	if (end > a->t1)
		end = a->t1;
	return end > a->t0 ? end : a->t0;
}

uint64_t ana_trace_end(const struct ana *a)
{
	return trace_end(a);
}

static uint64_t tot_bytes(const struct ana *a, const struct ana_file *f)
{
	return ana_file_read_bytes(a, f) + ana_file_write_bytes(a, f);
}

static const struct ana *sort_a;

/* Files: most bytes read and written first, then most pages accessed,
 * then by name (ranks are distinct: a total order): ana_file_list_cmp */
static int cmp_file_bytes(const void *x, const void *y, void *arg)
{
	return ana_file_list_cmp(arg, *(const uint32_t *)x, *(const uint32_t *)y);
}

static int cmp_proc_bytes(const void *x, const void *y)
{
	const struct ana_proc *p = &sort_a->procs[*(const uint32_t *)x];
	const struct ana_proc *q = &sort_a->procs[*(const uint32_t *)y];
	uint64_t u = p->read_bytes + p->write_bytes, v = q->read_bytes + q->write_bytes;
	if (u != v)
		return u > v ? -1 : 1;
	return p->pid < q->pid ? -1 : p->pid > q->pid;
}

static int cmp_thread_io(const void *x, const void *y)
{
	const struct ana_thread *p = &sort_a->sys.threads[*(const uint32_t *)x];
	const struct ana_thread *q = &sort_a->sys.threads[*(const uint32_t *)y];
	if (p->io_ns != q->io_ns)
		return p->io_ns > q->io_ns ? -1 : 1;
	return p->tid < q->tid ? -1 : p->tid > q->tid;
}

int ana_file_listed(const struct ana *a, size_t i)
{
	const struct ana_file *f = &a->files[i];
	return ana_file_read_ops(a, f) || f->opens || ana_file_write_ops(a, f) ||
	       ana_file_pages(a, i).accessed;
}

int ana_file_list_cmp(const struct ana *a, uint32_t i, uint32_t j)
{
	uint64_t p = tot_bytes(a, &a->files[i]), q = tot_bytes(a, &a->files[j]);
	if (p != q)
		return p > q ? -1 : 1;
	p = ana_file_pages(a, i).accessed;
	q = ana_file_pages(a, j).accessed;
	if (p != q)
		return p > q ? -1 : 1;
	p = ana_file_name_rank(a, i);
	q = ana_file_name_rank(a, j);
	return p < q ? -1 : p > q;
}

/* The two keys of the files' list order, as ascending radix keys: most
 * pages accessed first, most bytes first */
static inline uint64_t list_key(const struct ana *a, uint32_t i, int which)
{
	return which ? ~tot_bytes(a, &a->files[i]) : ~ana_file_pages(a, i).accessed;
}

/* The keys' byte histograms (cnt[which][byte][digit]), and the OR and
 * the AND of each key (the bytes in which the keys differ) */
struct list_hist {
	size_t cnt[2][8][256];
	uint64_t or_[2], and_[2];
};

static void list_hist_add(struct list_hist *h, const struct ana *a, uint32_t i)
{
	for (int w = 0; w < 2; w++) {
		uint64_t k = list_key(a, i, w);
		h->or_[w] |= k;
		h->and_[w] &= k;
		for (unsigned b = 0; b < 8; b++)
			h->cnt[w][b][(k >> (8 * b)) & 0xff]++;
	}
}

/* Stable radix sort of v[0..n) (files[] indexes) by key `which`
 * ascending, a byte at a time, only the bytes in which the keys differ,
 * from the histograms h made of the same files; tmp: n.  (The records
 * come in v's order, not theirs: fetched ahead.) */
static void radix_by(uint32_t *v, uint32_t *tmp, size_t n, const struct ana *a, int which,
		     struct list_hist *h)
{
	uint64_t diff = h->or_[which] ^ h->and_[which];
	for (unsigned b = 0; b < 8; b++) {
		size_t *cnt = h->cnt[which][b], sum = 0;
		if (!((diff >> (8 * b)) & 0xff))
			continue;	/* the same byte everywhere */
		for (unsigned d = 0; d < 256; d++) {
			size_t x = cnt[d];
			cnt[d] = sum;
			sum += x;
		}
		for (size_t j = 0; j < n; j++) {
			if (j + 16 < n) {
				if (which)
					__builtin_prefetch(&a->files[v[j + 16]]);
				else
					ana_file_pages_prefetch(a, v[j + 16]);
			}
			tmp[cnt[(list_key(a, v[j], which) >> (8 * b)) & 0xff]++] = v[j];
		}
		memcpy(v, tmp, n * sizeof(*v));
	}
}

/* Indexes of the files worth listing (any I/O), sorted by bytes (the
 * keys read from the files' records, no array of them: 8 bytes a file
 * in all), out of memory jumps.  The order (ana_file_list_cmp: bytes,
 * then pages accessed, most first, then name rank) by radix sorts: the
 * files put in name rank order (ranks are the places of a permutation),
 * then sorted stably by pages, then by bytes, the keys' histograms
 * counted as the files are found; qsort where the ranks are not a
 * permutation (an analysis without them). */
static uint32_t *files_sorted(const struct ana *a, size_t *n)
{
	uint32_t *idx = ana_xrealloc(NULL, (a->nfiles + 1) * sizeof(*idx));
	uint32_t *by = ana_tmp_calloc(a->nfiles + 1, sizeof(*by));
	struct list_hist *h = ana_tmp_calloc(1, sizeof(*h));
	size_t k = 0;
	int perm = 1;
	memset(by, 0xff, (a->nfiles + 1) * sizeof(*by));
	h->and_[0] = h->and_[1] = ~0ull;
	for (size_t i = 0; i < a->nfiles; i++) {
		uint32_t nr = ana_file_name_rank(a, i);
		if (ana_file_listed(a, i)) {
			idx[k++] = (uint32_t)i;
			list_hist_add(h, a, (uint32_t)i);
			if (nr >= a->nfiles || by[nr] != ANA_NONE)
				perm = 0;
			else
				by[nr] = (uint32_t)i;
		}
	}
	if (perm) {
		size_t m = 0;
		for (size_t r = 0; r < a->nfiles; r++)
			if (by[r] != ANA_NONE)
				idx[m++] = by[r];
		radix_by(idx, by, k, a, 0, h);
		radix_by(idx, by, k, a, 1, h);
	} else {
		qsort_r(idx, k, sizeof(*idx), cmp_file_bytes, (void *)a);
	}
	ana_tmp_free(h);
	ana_tmp_free(by);
	*n = k;
	return idx;
}

static uint32_t *procs_sorted(const struct ana *a, size_t *n)
{
	uint32_t *idx = ana_xrealloc(NULL, (a->nprocs + 1) * sizeof(*idx));
	size_t k = 0;
	for (size_t i = 0; i < a->nprocs; i++)
		if (a->procs[i].seen && (!a->o.has_pid || a->procs[i].filter != 2))
			idx[k++] = (uint32_t)i;
	sort_a = a;
	qsort(idx, k, sizeof(*idx), cmp_proc_bytes);
	*n = k;
	return idx;
}

static uint32_t *threads_sorted(const struct ana *a, size_t *n)
{
	uint32_t *idx = ana_xrealloc(NULL, (a->sys.nthreads + 1) * sizeof(*idx));
	for (size_t i = 0; i < a->sys.nthreads; i++)
		idx[i] = (uint32_t)i;
	sort_a = a;
	qsort(idx, a->sys.nthreads, sizeof(*idx), cmp_thread_io);
	*n = a->sys.nthreads;
	return idx;
}

static const char *proc_comm(const struct ana *a, uint32_t pid)
{
	uint64_t *v = ana_map_get(&a->procmap, pid, 0);
	return v ? a->procs[*v].comm : NULL;
}

static double file_randomness(const struct ana *a, const struct ana_file *f)
{
	const struct ana_fext *x = ana_file_ext(a, f);
	return x->rd_pairs ? (double)x->rd_nonconsec / (double)x->rd_pairs : NAN;
}

static double file_hit(const struct ana *a, size_t i)
{
	if (!a->have[TAPE_TABLE_CACHE])
		return NAN;
	struct ana_pages pg = ana_file_pages(a, i);
	return ana_hit_ratio(pg.accessed, pg.missed);
}

/* ---------------------------------------------------------------- JSON */

static void unavail(json_t *arr, const char *metric, const char *why)
{
	json_t *o = json_object();
	json_object_set_new(o, "metric", json_string(metric));
	json_object_set_new(o, "reason", json_string(why));
	json_array_append_new(arr, o);
}

/* Why a table's metrics are missing: the recorder's "layers" meta key
 * tells a layer left out from one that saw nothing. */
static const char *no_layer(const struct ana *a, int table)
{
	static char buf[TAPE_TABLE_MAX][160];
	const char *what = table == TAPE_TABLE_SYSCALL ? "syscall" :
			   table == TAPE_TABLE_CACHE ? "page-cache" :
			   table == TAPE_TABLE_BLOCK ? "block" : "sample";
	const char *layer = table == TAPE_TABLE_CACHE ? "cache" : what;
	const char *layers = tape_reader_meta(a->r, "layers");
	int on = 0;
	if (layers) {	/* a comma-separated list */
		size_t l = strlen(layer);
		for (const char *p = layers; (p = strstr(p, layer)); p += l)
			if ((p == layers || p[-1] == ',') && (p[l] == ',' || !p[l]))
				on = 1;
	}
	if (!layers)
		snprintf(buf[table], sizeof(buf[table]), "the trace has no %s events", what);
	else if (on)
		snprintf(buf[table], sizeof(buf[table]),
			 "the trace has no %s events (the %s layer was recorded and saw none)",
			 what, layer);
	else
		snprintf(buf[table], sizeof(buf[table]),
			 "the trace has no %s events (recorded without the %s layer)", what, layer);
	return buf[table];
}
#define NO_SYS no_layer(a, TAPE_TABLE_SYSCALL)
#define NO_CACHE no_layer(a, TAPE_TABLE_CACHE)
#define NO_BLK no_layer(a, TAPE_TABLE_BLOCK)
#define NO_SAMPLE no_layer(a, TAPE_TABLE_SAMPLE)
#define NO_DATASET "every file read is code or a system file (iotape-analyze(1), DATA SET)"

/* files[]'s order, sorted on a second thread while the sections before
 * it are written (ana_report_json) */
struct sort_job {
	const struct ana *a;
	pthread_t th;
	int running;
	int err;
	uint32_t *idx;
	size_t n;
};

struct jw {
	FILE *out;
	int n;
	struct sort_job *sort;	/* NULL: files[] sorted when it comes */
};

static void jw_key(struct jw *w, const char *key, json_t *v)
{
	fprintf(w->out, "%s\n  \"%s\": ", w->n++ ? "," : "", key);
	json_dumpf(v, w->out, JFLAGS | JSON_ENCODE_ANY);
	json_decref(v);
}

/* Files read, files written, and processes with syscall events. */
static void summary_counts(const struct ana *a, uint64_t *files_r, uint64_t *files_w,
			   uint64_t *procs)
{
	*files_r = *files_w = *procs = 0;
	for (size_t i = 0; i < a->nfiles; i++) {
		*files_r += ana_file_read_ops(a, &a->files[i]) > 0;
		*files_w += ana_file_write_ops(a, &a->files[i]) > 0;
	}
	for (size_t i = 0; i < a->nprocs; i++)
		*procs += a->procs[i].seen;
}

static json_t *j_summary(struct ana *a)
{
	int sys = a->have[TAPE_TABLE_SYSCALL];
	json_t *o = json_object();
	uint64_t files_r, files_w, procs;
	summary_counts(a, &files_r, &files_w, &procs);
	json_object_set_new(o, "duration_s", json_real(rel_s(a, trace_end(a))));
	json_object_set_new(o, "read_ops", sys ? cm_json_u64(a->sys.read_ops) : json_null());
	json_object_set_new(o, "read_bytes", sys ? cm_json_u64(a->sys.read_bytes) : json_null());
	json_object_set_new(o, "write_ops", sys ? cm_json_u64(a->sys.write_ops) : json_null());
	json_object_set_new(o, "write_bytes", sys ? cm_json_u64(a->sys.write_bytes) : json_null());
	json_object_set_new(o, "files_read", sys ? cm_json_u64(files_r) : json_null());
	json_object_set_new(o, "files_written", sys ? cm_json_u64(files_w) : json_null());
	json_object_set_new(o, "processes", sys ? cm_json_u64(procs) : json_null());
	json_object_set_new(o, "threads", sys ? cm_json_u64(a->sys.nthreads) : json_null());
	json_object_set_new(o, "syscalls", sys ? cm_json_u64(a->sys.ops) : json_null());
	json_object_set_new(o, "failed_syscalls", sys ? cm_json_u64(a->sys.errors) : json_null());
	json_t *ev = json_object();
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		json_object_set_new(ev, tape_table_name(t), cm_json_u64(a->st[t].events));
	json_object_set_new(o, "trace_events", ev);
	return o;
}

/* A merged trace's host h: its name (host.H.name), else "". */
static const char *host_name(const struct ana *a, size_t h)
{
	char k[64];
	snprintf(k, sizeof(k), "host.%zu.name", h);
	const char *v = tape_reader_meta(a->r, k);
	return v ? v : "";
}

/* "hosts" of a merged trace: each host's summary, from its own analysis
 * (ana_hosts); trace_events are the whole trace's, so not repeated. */
static json_t *j_hosts(struct ana *a)
{
	json_t *arr = json_array();
	for (size_t h = 0; h < a->nhosts; h++) {
		json_t *o = json_object(), *s = j_summary(&a->hosts[h]);
		json_object_del(s, "trace_events");
		json_object_set_new(o, "host", cm_json_u64(h));
		json_object_set_new(o, "name", jstr(host_name(a, h)));
		json_object_set_new(o, "summary", s);
		json_array_append_new(arr, o);
	}
	return arr;
}

/* Why the epochs cannot be counted (no data set, or one read through
 * mmap: ana_epochs_known), or NULL.  buf >= 512 bytes. */
static const char *epochs_why(const struct ana *a, char *buf, size_t len)
{
	uint64_t bytes;
	uint32_t fi = ana_mmap_dataset(a, &bytes);
	if (a->ds_rule == ANA_DS_NONE) {
		snprintf(buf, len, "no data set: %s", NO_DATASET);
		return buf;
	}
	if (fi == ANA_NONE)
		return NULL;
	char lb[ANA_PATH_BUF], b1[32];
	cm_fmt_bytes(b1, sizeof(b1), bytes);
	snprintf(buf, len, "the data set is read through mmap (%.300s: %s reached by page "
		 "faults, more than the epochs' reads); epochs are counted from reads",
		 ana_file_label(a, &a->files[fi], lb), b1);
	return buf;
}

/* Why the data set's file order is null.  buf >= 512 bytes. */
static const char *order_why(const struct ana *a, char *buf, size_t len)
{
	const char *why = epochs_why(a, buf, len);
	return why ? why : "fewer than two files of the data set were read in its first epoch";
}

/* The access pattern of a group into o (the keys of "pattern"; the file
 * order only for the data set: order set), its nulls into un as
 * prefix.metric. */
static void j_group_pattern(json_t *o, const struct ana *a, const struct ana_group *g,
			    int order, const char *prefix, json_t *un)
{
	char m[96], why[512];
	double rr = ana_group_randomness(g), tau;
	if (isnan(rr)) {
		snprintf(m, sizeof(m), "%s.read_randomness", prefix);
		unavail(un, m, "no stream read a file twice");
		snprintf(m, sizeof(m), "%s.sequential_read_fraction", prefix);
		unavail(un, m, "no stream read a file twice");
	}
	json_object_set_new(o, "read_randomness", jreal(rr));
	json_object_set_new(o, "sequential_read_fraction", jreal(ana_group_seq_fraction(g)));
	if (order) {
		double fo = ana_file_order_randomness(a, &tau);
		if (isnan(fo)) {
			snprintf(m, sizeof(m), "%s.file_order_randomness", prefix);
			unavail(un, m, order_why(a, why, sizeof(why)));
		}
		json_object_set_new(o, "file_order_randomness", jreal(fo));
		json_object_set_new(o, "file_order_tau", jreal(tau));
	}
	json_object_set_new(o, "read_pairs", cm_json_u64(g->rd_pairs));
	json_object_set_new(o, "consecutive_reads", cm_json_u64(g->rd_pairs - g->rd_nonconsec));
	json_object_set_new(o, "sequential_reads", cm_json_u64(g->rd_seq));
	json_t *st = json_object();
	json_object_set_new(st, "total", cm_json_u64(g->streams));
	json_object_set_new(st, "single", cm_json_u64(g->st_cls[0]));
	json_object_set_new(st, "sequential", cm_json_u64(g->st_cls[1]));
	json_object_set_new(st, "strided", cm_json_u64(g->st_cls[2]));
	json_object_set_new(st, "random", cm_json_u64(g->st_cls[3]));
	json_object_set_new(o, "streams", st);
	json_object_set_new(o, "request_size_histogram", jhist(g->rd_hist, g->wr_hist));
}

static json_t *j_pattern(struct ana *a, json_t *un)
{
	if (!a->have[TAPE_TABLE_SYSCALL])
		return json_null();
	json_t *o = json_object();
	j_group_pattern(o, a, &a->all, 1, "pattern", un);
	return o;
}

/* A group's page-cache figures, or null without the cache layer. */
static json_t *j_group_cache(const struct ana *a, const struct ana_group *g,
			     const char *prefix, json_t *un)
{
	char m[96];
	if (!a->have[TAPE_TABLE_CACHE]) {
		snprintf(m, sizeof(m), "%s.cache", prefix);
		unavail(un, m, NO_CACHE);
		return json_null();
	}
	double h = ana_hit_ratio(g->pages_accessed, g->pages_missed);
	if (isnan(h)) {
		snprintf(m, sizeof(m), "%s.cache.hit_ratio", prefix);
		unavail(un, m, "no page of these files was accessed in the window");
	}
	json_t *o = json_object();
	json_object_set_new(o, "hit_ratio", jreal(h));
	json_object_set_new(o, "pages_accessed", cm_json_u64(g->pages_accessed));
	json_object_set_new(o, "pages_missed", cm_json_u64(g->pages_missed));
	return o;
}

/* A group's files and bytes into o. */
static void j_group_io(json_t *o, const struct ana_group *g)
{
	json_object_set_new(o, "files", cm_json_u64(g->files));
	json_object_set_new(o, "read_ops", cm_json_u64(g->read_ops));
	json_object_set_new(o, "read_bytes", cm_json_u64(g->read_bytes));
	json_object_set_new(o, "write_ops", cm_json_u64(g->write_ops));
	json_object_set_new(o, "write_bytes", cm_json_u64(g->write_bytes));
}

static const char *const ds_rules[] = { NULL, "read_again", "read_once" };

/* A data set read through mmap: its page faults (ana_mmap_reads), or null. */
static json_t *j_mmap(const struct ana *a)
{
	struct ana_mmap m;
	uint64_t bytes;
	uint32_t fi = ana_mmap_dataset(a, &bytes);

	if (fi == ANA_NONE || ana_mmap_reads(a, &m) || !m.files)
		return json_null();
	json_t *o = json_object();
	char buf[ANA_PATH_BUF];
	json_object_set_new(o, "file", jstr(ana_file_path(a, &a->files[fi], buf)));
	json_object_set_new(o, "files", cm_json_u64(m.files));
	json_object_set_new(o, "fault_reads", cm_json_u64(m.reads));
	json_object_set_new(o, "fault_bytes", cm_json_u64(m.bytes));
	json_object_set_new(o, "window_bytes", cm_json_u64(m.max_len));
	json_object_set_new(o, "read_randomness", jreal(m.rd_pairs ? (double)m.rd_nonconsec /
								 (double)m.rd_pairs : NAN));
	json_object_set_new(o, "reader_threads", cm_json_u64(m.readers));
	json_object_set_new(o, "epochs", cm_json_u64(m.epochs));
	return o;
}

static json_t *j_dataset(struct ana *a, json_t *un)
{
	char why[512];
	if (!a->have[TAPE_TABLE_SYSCALL])
		return json_null();
	if (a->ds_rule == ANA_DS_NONE) {
		unavail(un, "dataset", epochs_why(a, why, sizeof(why)));
		return json_null();
	}
	json_t *o = json_object(), *p = json_object();
	json_object_set_new(o, "rule", json_string(ds_rules[a->ds_rule]));
	json_object_set_new(o, "directory", jstr(a->ds_dir));
	json_object_set_new(o, "files_read_again", cm_json_u64(a->ds_again));
	json_object_set_new(o, "bytes", cm_json_u64(a->ds.size));
	j_group_io(o, &a->ds);
	j_group_pattern(p, a, &a->ds, 1, "dataset.pattern", un);
	json_object_set_new(o, "pattern", p);
	json_object_set_new(o, "cache", j_group_cache(a, &a->ds, "dataset", un));
	json_object_set_new(o, "epochs", ana_epochs_known(a) ? cm_json_u64(ana_epoch_count(a))
							     : json_null());
	json_object_set_new(o, "mmap", j_mmap(a));
	return o;
}

static json_t *j_other(struct ana *a, json_t *un)
{
	if (!a->have[TAPE_TABLE_SYSCALL])
		return json_null();
	json_t *o = json_object(), *p = json_object();
	j_group_io(o, &a->other);
	j_group_pattern(p, a, &a->other, 0, "other_files.pattern", un);
	json_object_set_new(o, "pattern", p);
	json_object_set_new(o, "cache", j_group_cache(a, &a->other, "other_files", un));
	return o;
}

static json_t *j_cache(struct ana *a, json_t *un)
{
	if (!a->have[TAPE_TABLE_CACHE]) {
		unavail(un, "cache", NO_CACHE);
		unavail(un, "files[].hit_ratio", NO_CACHE);
		return json_null();
	}
	const struct ana_cache *c = &a->cache;
	double h = ana_hit_ratio(c->accessed, c->missed);
	if (isnan(h))
		unavail(un, "cache.hit_ratio", "no page was accessed in the window");
	json_t *o = json_object();
	json_object_set_new(o, "hit_ratio", jreal(h));
	json_object_set_new(o, "pages_accessed", cm_json_u64(c->accessed));
	json_object_set_new(o, "pages_missed", cm_json_u64(c->missed));
	json_object_set_new(o, "pages_inserted", cm_json_u64(c->inserted));
	json_object_set_new(o, "pages_evicted", cm_json_u64(c->evicted));
	json_object_set_new(o, "readahead_unused_pages", cm_json_u64(c->ra_unused));
	json_object_set_new(o, "untracked_pages", cm_json_u64(c->untracked));
	json_object_set_new(o, "approximate", json_boolean(c->untracked > 0));
	json_t *tl = json_object(), *acc = json_array(), *mis = json_array(), *hr = json_array();
	for (size_t i = 0; i < a->ntl; i++) {
		json_array_append_new(acc, cm_json_u64(a->tl[i].pages_accessed));
		json_array_append_new(mis, cm_json_u64(a->tl[i].pages_missed));
		json_array_append_new(hr, jreal(ana_hit_ratio(a->tl[i].pages_accessed,
							      a->tl[i].pages_missed)));
	}
	json_object_set_new(tl, "bucket_s", json_real((double)a->bucket_ns / 1e9));
	json_object_set_new(tl, "pages_accessed", acc);
	json_object_set_new(tl, "pages_missed", mis);
	json_object_set_new(tl, "hit_ratio", hr);
	json_object_set_new(o, "timeline", tl);
	return o;
}

static void blk_totals(const struct ana *a, uint64_t *ro, uint64_t *rb, uint64_t *wo,
		       uint64_t *wb, uint64_t *pairs, uint64_t *nc, uint64_t *fl)
{
	*ro = *rb = *wo = *wb = *pairs = *nc = *fl = 0;
	for (size_t i = 0; i < a->blk.nd; i++) {
		const struct ana_dev *d = &a->blk.d[i];
		*ro += d->read_ops; *rb += d->read_bytes;
		*wo += d->write_ops; *wb += d->write_bytes;
		*pairs += d->pairs; *nc += d->nonconsec; *fl += d->flushes;
	}
}

static double window_ns(const struct ana *a)
{
	return (double)(trace_end(a) - a->t0);
}

static json_t *j_block(struct ana *a, json_t *un)
{
	if (!a->have[TAPE_TABLE_BLOCK]) {
		unavail(un, "block", NO_BLK);
		return json_null();
	}
	uint64_t ro, rb, wo, wb, pairs, nc, fl;
	blk_totals(a, &ro, &rb, &wo, &wb, &pairs, &nc, &fl);
	if (!pairs)
		unavail(un, "block.randomness", "fewer than two data requests on every device");
	json_t *o = json_object();
	json_object_set_new(o, "requests", cm_json_u64(a->blk.n_events));
	json_object_set_new(o, "read_ops", cm_json_u64(ro));
	json_object_set_new(o, "read_bytes", cm_json_u64(rb));
	json_object_set_new(o, "write_ops", cm_json_u64(wo));
	json_object_set_new(o, "write_bytes", cm_json_u64(wb));
	json_object_set_new(o, "flushes", cm_json_u64(fl));
	json_object_set_new(o, "errors", cm_json_u64(a->blk.errors));
	json_object_set_new(o, "randomness", pairs ? json_real((double)nc / pairs) : json_null());
	json_object_set_new(o, "latency_ns", jlat(&a->blk.lat));
	json_object_set_new(o, "read_latency_ns", jlat(&a->blk.rlat));
	json_object_set_new(o, "write_latency_ns", jlat(&a->blk.wlat));
	json_object_set_new(o, "request_size_histogram", jhist(a->blk.rd_hist, a->blk.wr_hist));
	double w = window_ns(a);
	json_object_set_new(o, "mean_queue_depth", w > 0 ? json_real(a->blk.busy_ns / w) : json_null());
	json_t *devs = json_array();
	for (size_t i = 0; i < a->blk.nd; i++) {
		const struct ana_dev *d = &a->blk.d[i];
		json_t *x = json_object();
		char nm[48];
		snprintf(nm, sizeof(nm), "%llu:%llu", (unsigned long long)(d->dev >> 20),
			 (unsigned long long)(d->dev & 0xfffff));
		json_object_set_new(x, "dev", json_string(nm));
		json_object_set_new(x, "requests", cm_json_u64(d->reqs));
		json_object_set_new(x, "read_bytes", cm_json_u64(d->read_bytes));
		json_object_set_new(x, "write_bytes", cm_json_u64(d->write_bytes));
		json_object_set_new(x, "randomness",
				    d->pairs ? json_real((double)d->nonconsec / d->pairs) : json_null());
		json_array_append_new(devs, x);
	}
	json_object_set_new(o, "devices", devs);
	json_t *qd = json_object(), *m = json_array(), *rbs = json_array(), *wbs = json_array();
	for (size_t i = 0; i < a->ntl; i++) {
		json_array_append_new(m, json_real((double)a->tl[i].blk_busy_ns / a->bucket_ns));
		json_array_append_new(rbs, cm_json_u64(a->tl[i].blk_read_bytes));
		json_array_append_new(wbs, cm_json_u64(a->tl[i].blk_write_bytes));
	}
	json_object_set_new(qd, "bucket_s", json_real((double)a->bucket_ns / 1e9));
	json_object_set_new(qd, "queue_depth", m);
	json_object_set_new(qd, "read_bytes", rbs);
	json_object_set_new(qd, "write_bytes", wbs);
	json_object_set_new(o, "timeline", qd);
	return o;
}

static json_t *j_latency(struct ana *a)
{
	if (!a->have[TAPE_TABLE_SYSCALL])
		return json_null();
	json_t *o = json_object();
	for (unsigned op = 0; op < TAPE_OP_MAX; op++)
		if (a->sys.lat[op].count)
			json_object_set_new(o, tape_op_name(op), jlat(&a->sys.lat[op]));
	return o;
}

static json_t *j_timeline(struct ana *a)
{
	if (!a->have[TAPE_TABLE_SYSCALL])
		return json_null();
	json_t *o = json_object();
	json_t *ro = json_array(), *rb = json_array(), *wo = json_array(), *wb = json_array();
	for (size_t i = 0; i < a->ntl; i++) {
		json_array_append_new(ro, cm_json_u64(a->tl[i].read_ops));
		json_array_append_new(rb, cm_json_u64(a->tl[i].read_bytes));
		json_array_append_new(wo, cm_json_u64(a->tl[i].write_ops));
		json_array_append_new(wb, cm_json_u64(a->tl[i].write_bytes));
	}
	json_object_set_new(o, "bucket_s", json_real((double)a->bucket_ns / 1e9));
	json_object_set_new(o, "t0_ns", cm_json_u64(a->t0));
	json_object_set_new(o, "read_ops", ro);
	json_object_set_new(o, "read_bytes", rb);
	json_object_set_new(o, "write_ops", wo);
	json_object_set_new(o, "write_bytes", wb);
	return o;
}

static json_t *j_epochs(struct ana *a, json_t *un)
{
	if (!a->have[TAPE_TABLE_SYSCALL])
		return json_null();
	size_t k = ana_epoch_count(a);
	char why[512];
	int known = !epochs_why(a, why, sizeof(why));
	if (!known) {
		unavail(un, "epochs.count", why);
		k = 0;
	}
	json_t *o = json_object(), *arr = json_array();
	uint64_t once = 0, again = 0;
	for (size_t i = 0; i < a->sys.nepochs; i++)
		*(i ? &again : &once) += a->sys.epochs[i].bytes;
	for (size_t i = 0; i < k; i++) {
		const struct ana_epoch *ep = &a->sys.epochs[i];
		json_t *x = json_object();
		json_object_set_new(x, "index", cm_json_u64(i));
		json_object_set_new(x, "start_s", json_real(rel_s(a, ep->start_ns)));
		json_object_set_new(x, "duration_s", json_real((double)(ep->end_ns - ep->start_ns) / 1e9));
		json_object_set_new(x, "bytes", cm_json_u64(ep->bytes));
		json_object_set_new(x, "reads", cm_json_u64(ep->reads));
		json_object_set_new(x, "files", cm_json_u64(ep->files));
		json_object_set_new(x, "file_order_randomness",
				    jreal(ep->order_rand));
		json_array_append_new(arr, x);
	}
	if (!k && known)
		unavail(un, "epochs", "no pass over the data set");
	json_object_set_new(o, "count", known ? cm_json_u64(k) : json_null());
	json_object_set_new(o, "partial_passes",
			    known ? cm_json_u64(a->npasses - k) : json_null());
	json_object_set_new(o, "read_once_bytes", cm_json_u64(once));
	json_object_set_new(o, "reread_bytes", cm_json_u64(again));
	json_object_set_new(o, "epochs", arr);
	return o;
}

static json_t *j_ckpts(struct ana *a)
{
	if (!a->have[TAPE_TABLE_SYSCALL])
		return json_null();
	json_t *o = json_object(), *arr = json_array();
	uint64_t bytes = 0;
	for (size_t i = 0; i < a->nckpts; i++) {
		const struct ana_ckpt *c = &a->ckpts[i];
		double d = (double)(c->end_ns - c->start_ns) / 1e9;
		bytes += c->bytes;
		json_t *x = json_object();
		json_object_set_new(x, "start_s", json_real(rel_s(a, c->start_ns)));
		json_object_set_new(x, "duration_s", json_real(d));
		json_object_set_new(x, "bytes", cm_json_u64(c->bytes));
		json_object_set_new(x, "files", cm_json_u64(c->files));
		json_object_set_new(x, "write_ops", cm_json_u64(c->ops));
		json_object_set_new(x, "fsyncs", cm_json_u64(c->syncs));
		json_object_set_new(x, "bandwidth_Bps", d > 0 ? json_real(c->bytes / d) : json_null());
		json_object_set_new(x, "whole_files", json_boolean(c->whole));
		json_array_append_new(arr, x);
	}
	json_object_set_new(o, "count", cm_json_u64(a->nckpts));
	json_object_set_new(o, "bytes", cm_json_u64(bytes));
	json_object_set_new(o, "checkpoints", arr);
	return o;
}

static long list_limit(const struct ana *a, int json);

/* The staging figures (iotape-analyze(1), STAGING); out of memory jumps. */
static void staging(const struct ana *a, struct ana_staging *st)
{
	if (ana_staging_build(a, st))
		ana_oom();
}

static void compute_totals(const struct ana *a, uint64_t *io, uint64_t *gap)
{
	*io = *gap = 0;
	for (size_t i = 0; i < a->sys.nthreads; i++) {
		*io += a->sys.threads[i].io_ns;
		*gap += a->sys.threads[i].gap_ns;
	}
}

static long list_limit(const struct ana *a, int json)
{
	if (a->o.top >= 0)
		return a->o.top ? a->o.top : -1;
	return json ? -1 : 20;
}

static void jw_compute(struct jw *w, struct ana *a)
{
	if (!a->have[TAPE_TABLE_SYSCALL]) {
		jw_key(w, "compute", json_null());
		return;
	}
	uint64_t io, gap;
	compute_totals(a, &io, &gap);
	double span = (double)(a->sys.last_ns > a->sys.first_ns ? a->sys.last_ns - a->sys.first_ns : 0);
	json_t *o = json_object();
	json_object_set_new(o, "io_s", json_real(io / 1e9));
	json_object_set_new(o, "gap_s", json_real(gap / 1e9));
	json_object_set_new(o, "blocked_fraction", io + gap ? json_real((double)io / (io + gap)) : json_null());
	json_object_set_new(o, "compute_fraction", io + gap ? json_real((double)gap / (io + gap)) : json_null());
	json_object_set_new(o, "io_busy_fraction", span > 0 ? json_real(a->sys.busy_ns / span) : json_null());
	char *head = json_dumps(o, JFLAGS);
	json_decref(o);
	head[strlen(head) - 1] = '\0';	/* drop '}' and append the threads array */
	fprintf(w->out, "%s\n  \"compute\": %s,\"threads\":[", w->n++ ? "," : "", head);
	free(head);
	size_t n;
	uint32_t *idx = threads_sorted(a, &n);
	long lim = list_limit(a, 1);
	for (size_t i = 0; i < n && (lim < 0 || (long)i < lim); i++) {
		const struct ana_thread *t = &a->sys.threads[idx[i]];
		json_t *x = json_object();
		double sp = (double)(t->last_end - t->first_ns);
		json_object_set_new(x, "pid", cm_json_u64(t->pid));
		json_object_set_new(x, "tid", cm_json_u64(t->tid));
		json_object_set_new(x, "comm", jstr(proc_comm(a, t->pid)));
		json_object_set_new(x, "ops", cm_json_u64(t->ops));
		json_object_set_new(x, "io_s", json_real(t->io_ns / 1e9));
		json_object_set_new(x, "gap_s", json_real(t->gap_ns / 1e9));
		json_object_set_new(x, "span_s", json_real(sp / 1e9));
		json_object_set_new(x, "io_fraction", sp > 0 ? json_real(t->io_ns / sp) : json_null());
		json_object_set_new(x, "steps", cm_json_u64(t->steps));
		json_object_set_new(x, "step_mean_s", t->steps ?
				    json_real(t->step_ns / 1e9 / t->steps) : json_null());
		json_object_set_new(x, "step_stdev_s", t->steps ?
				    json_real(ana_step_stdev_ms(t) / 1e3) : json_null());
		/* the gaps split (a sched table), else null */
		const struct ana_wthread *wt = ana_wthread_find(a, t->tid);
		json_object_set_new(x, "work_s", a->sched.have ? json_real(t->work_ns / 1e9) :
								 json_null());
		json_object_set_new(x, "wait_s", a->sched.have ? json_real(t->wait_ns / 1e9) :
								 json_null());
		json_object_set_new(x, "cpu_s", a->sched.have ? json_real((wt ? wt->cpu_ns : 0) / 1e9) :
								json_null());
		fputs(i ? ",\n    " : "\n    ", w->out);
		json_dumpf(x, w->out, JFLAGS);
		json_decref(x);
	}
	free(idx);
	fputs("]}", w->out);
}

/* How the training thread was chosen, in words. */
static void train_why(const struct ana *a, char *buf, size_t len)
{
	const struct ana_train *t = &a->train;

	switch (t->how) {
	case ANA_TRAIN_READS:
		snprintf(buf, len, "reads the data set itself");
		break;
	case ANA_TRAIN_PIPE:
		snprintf(buf, len, "reads what %u process%s reading the data set write%s to it",
			 t->via, t->via == 1 ? "" : "es", t->via == 1 ? "s" : "");
		break;
	case ANA_TRAIN_WOKEN:
		snprintf(buf, len, "woken for its data by thread %u, which reads the data set "
			 "or what its readers write", t->via);
		break;
	default:
		snprintf(buf, len, "no thread consumes the data set: the one that works the most");
	}
}

static const char *const train_rules[] = { "most_work", "reads", "pipe", "woken" };

/* "au": the training thread and AU as DLIO computes it (ana_train.c). */
static json_t *j_au(const struct ana *a)
{
	const struct ana_train *t = &a->train;
	char why[200];

	if (!t->found)
		return json_null();
	train_why(a, why, sizeof(why));
	json_t *o = json_object(), *th = json_object(), *ep = json_array();
	json_object_set_new(th, "pid", cm_json_u64(t->pid));
	json_object_set_new(th, "tid", cm_json_u64(t->tid));
	json_object_set_new(th, "comm", jstr(proc_comm(a, t->pid)));
	json_object_set_new(th, "rule", json_string(train_rules[t->how]));
	json_object_set_new(th, "why", json_string(why));
	json_object_set_new(th, "work_s", json_real(t->work_ns / 1e9));
	json_object_set_new(th, "wait_s", a->sched.have ? json_real(t->wait_ns / 1e9) : json_null());
	json_object_set_new(th, "io_s", json_real(t->io_ns / 1e9));
	json_object_set_new(th, "cpu_s", a->sched.have ? json_real(t->cpu_ns / 1e9) : json_null());
	json_object_set_new(th, "steps", cm_json_u64(t->steps));
	json_object_set_new(th, "step_mean_s", t->steps ? json_real(t->step_mean_ms / 1e3) : json_null());
	json_object_set_new(th, "step_stdev_s", t->steps ? json_real(t->step_sd_ms / 1e3) : json_null());
	json_object_set_new(th, "left_out_no_cpu", cm_json_u64(t->nocpu));
	for (size_t k = 0; k < t->nep; k++) {
		const struct ana_au_epoch *x = &t->ep[k];
		json_t *e = json_object();
		json_object_set_new(e, "epoch", cm_json_u64(k + 1));
		json_object_set_new(e, "au", isnan(x->au) ? json_null() : json_real(x->au));
		json_object_set_new(e, "steps", cm_json_u64(x->steps));
		json_object_set_new(e, "start_s", json_real(rel_s(a, x->start_ns)));
		json_object_set_new(e, "from_s", x->steps ? json_real(rel_s(a, x->from_ns)) : json_null());
		json_object_set_new(e, "to_s", x->steps > 1 ? json_real(rel_s(a, x->to_ns)) : json_null());
		json_object_set_new(e, "work_s", json_real(x->work_ns / 1e9));
		json_array_append_new(ep, e);
	}
	json_object_set_new(o, "dlio", isnan(t->au_dlio) ? json_null() : json_real(t->au_dlio));
	if (!t->nep && !isnan(t->au_dlio)) {	/* no epochs: one window */
		json_t *w = json_object();
		json_object_set_new(w, "steps", cm_json_u64(t->span.steps));
		json_object_set_new(w, "from_s", json_real(rel_s(a, t->span.from_ns)));
		json_object_set_new(w, "to_s", json_real(rel_s(a, t->span.to_ns)));
		json_object_set_new(w, "work_s", json_real(t->span.work_ns / 1e9));
		json_object_set_new(o, "window", w);
	}
	json_object_set_new(o, "run", isnan(t->au_run) ? json_null() : json_real(t->au_run));
	json_object_set_new(o, "epochs", ep);
	json_object_set_new(o, "thread", th);
	json_object_set_new(o, "waits_known", json_boolean(a->sched.have));
	return o;
}

static void rb_u64_or_null(struct ana_rowbuf *r, int ok, uint64_t v)
{
	if (ok)
		ana_rb_u64(r, v);
	else
		ana_rb_lit(r, "null");
}

/* files[]'s rows (ana_rows_write): the files in idx's order */
struct files_rows {
	const struct ana *a;
	const uint32_t *idx;
	size_t n;
	int cache;
};

static void file_row(void *ctx, size_t i, struct ana_rowbuf *r)
{
	const struct files_rows *fr = ctx;
	const struct ana *a = fr->a;
	const uint32_t *idx = fr->idx;
	const struct ana_file *f = &a->files[idx[i]];
	char buf[ANA_PATH_BUF];

	/* (the files come in an order of their own: their records are
	 * fetched ahead, then their paths) */
	if (i + 16 < fr->n) {
		__builtin_prefetch(&a->files[idx[i + 16]]);
		ana_file_pages_prefetch(a, idx[i + 16]);
	}
	if (i + 8 < fr->n)
		ana_path_prefetch(a, a->files[idx[i + 8]].path);
	if (i)
		ana_rb_lit(r, ",\n    {\"path\":");
	else
		ana_rb_lit(r, "\n    {\"path\":");
	size_t at = r->n;
	if (f->path)
		ana_rb_path(r, a, f->path);
	else
		ana_rb_str(r, ana_file_label(a, f, buf));
	if (f->path && r->b[at + 1] != '[')
		ana_rb_lit(r, ",\"path_known\":true,\"file_id\":");
	else
		ana_rb_lit(r, ",\"path_known\":false,\"file_id\":");
	ana_rb_u64(r, ana_file_fid(a, idx[i]));
	ana_rb_lit(r, ",\"size\":");
	rb_u64_or_null(r, f->from_table, ana_file_size(a, f));
	ana_rb_lit(r, ",\"extent\":");
	ana_rb_u64(r, ana_file_extent(a, idx[i]));
	const struct ana_fext *x = ana_file_ext(a, f);
	struct ana_pages pg = ana_file_pages(a, idx[i]);
	ana_rb_lit(r, ",\"opens\":");
	ana_rb_u64(r, ana_file_opens(a, f));
	ana_rb_lit(r, ",\"read_ops\":");
	ana_rb_u64(r, ana_file_read_ops(a, f));
	ana_rb_lit(r, ",\"read_bytes\":");
	ana_rb_u64(r, ana_file_read_bytes(a, f));
	ana_rb_lit(r, ",\"write_ops\":");
	ana_rb_u64(r, x->write_ops);
	ana_rb_lit(r, ",\"write_bytes\":");
	ana_rb_u64(r, x->write_bytes);
	ana_rb_lit(r, ",\"read_randomness\":");
	ana_rb_real(r, file_randomness(a, f));
	ana_rb_lit(r, ",\"visits\":");
	ana_rb_u64(r, f->visits);
	if (f->dataset)
		ana_rb_lit(r, ",\"dataset\":true,\"hit_ratio\":");
	else
		ana_rb_lit(r, ",\"dataset\":false,\"hit_ratio\":");
	ana_rb_real(r, file_hit(a, idx[i]));
	ana_rb_lit(r, ",\"pages_accessed\":");
	rb_u64_or_null(r, fr->cache, pg.accessed);
	ana_rb_lit(r, ",\"pages_missed\":");
	rb_u64_or_null(r, fr->cache, pg.missed);
	ana_rb_lit(r, ",\"mapped_pages\":");
	rb_u64_or_null(r, fr->cache, x->mapped);
	ana_rb_lit(r, "}");
}

static void jw_files(struct jw *w, struct ana *a, int none)
{
	fprintf(w->out, "%s\n  \"files\": [", w->n++ ? "," : "");
	size_t n = 0;
	uint32_t *idx = NULL;
	struct sort_job *s = w->sort;
	if (s && s->running) {
		pthread_join(s->th, NULL);
		s->running = 0;
		if (s->err)
			ana_oom();
		idx = s->idx;
		n = s->n;
		s->idx = NULL;
	} else if (!none) {
		idx = files_sorted(a, &n);
	}
	long lim = list_limit(a, 1);
	if (lim >= 0 && n > (size_t)lim)
		n = (size_t)lim;
	struct files_rows fr = { a, idx, n, a->have[TAPE_TABLE_CACHE] };
	int err = ana_rows_write(w->out, n, file_row, &fr, a->o.threads);
	free(idx);
	if (err)
		ana_oom();
	fputs("]", w->out);
}

/* staging's ranked files (ana_rows_write) */
struct stage_rows {
	const struct ana *a;
	const uint32_t *f;
	size_t n;
};

static void stage_row(void *ctx, size_t i, struct ana_rowbuf *r)
{
	const struct stage_rows *sr = ctx;
	const struct ana *a = sr->a;

	if (i + 16 < sr->n)
		__builtin_prefetch(&a->files[sr->f[i + 16]]);
	if (i + 8 < sr->n)
		ana_path_prefetch(a, a->files[sr->f[i + 8]].path);
	struct ana_stage_file f = ana_stage_of(a, sr->f[i]);
	if (i)
		ana_rb_lit(r, ",{\"path\":");
	else
		ana_rb_lit(r, "{\"path\":");
	ana_rb_path(r, a, a->files[f.file].path);
	ana_rb_lit(r, ",\"read_bytes\":");
	ana_rb_u64(r, f.read_bytes);
	ana_rb_lit(r, ",\"size\":");
	ana_rb_u64(r, f.size);
	ana_rb_lit(r, "}");
}

/* "staging": its figures, then its ranked files a row at a time (all of
 * the files read, with JSON's list limit) */
static void jw_staging(struct jw *w, struct ana *a, int none)
{
	if (!a->have[TAPE_TABLE_SYSCALL]) {
		jw_key(w, "staging", json_null());
		return;
	}
	struct ana_staging st;
	staging(a, &st);
	json_t *o = json_object(), *lv = json_array();
	json_object_set_new(o, "files", cm_json_u64(st.n));
	json_object_set_new(o, "bytes", cm_json_u64(st.bytes));
	json_object_set_new(o, "read_bytes", cm_json_u64(st.read_bytes));
	json_object_set_new(o, "files_sized_by_reads", cm_json_u64(st.by_extent));
	for (unsigned k = 0; k < ANA_STAGE_LEVELS; k++) {
		const struct ana_stage_level *l = &st.lv[k];
		json_t *x = json_object();
		json_object_set_new(x, "fraction", json_real(l->pct / 100.0));
		json_object_set_new(x, "files", cm_json_u64(l->files));
		json_object_set_new(x, "bytes", cm_json_u64(l->bytes));
		json_object_set_new(x, "read_bytes", cm_json_u64(l->read_bytes));
		json_array_append_new(lv, x);
	}
	json_object_set_new(o, "levels", lv);
	char *d = json_dumps(o, JFLAGS);
	json_decref(o);
	if (!d) {
		ana_staging_release(&st);
		ana_oom();
	}
	d[strlen(d) - 1] = 0;	/* the object goes on: "ranked" */
	fprintf(w->out, "%s\n  \"staging\": %s,\"ranked\":[", w->n++ ? "," : "", d);
	free(d);
	long lim = list_limit(a, 1);
	if (!none && lim && ana_staging_rank(a, &st)) {
		ana_staging_release(&st);
		ana_oom();
	}
	size_t n = none ? 0 : st.n;
	if (lim >= 0 && n > (size_t)lim)
		n = (size_t)lim;
	struct stage_rows sr = { a, st.f, n };
	if (ana_rows_write(w->out, n, stage_row, &sr, a->o.threads)) {
		ana_staging_release(&st);
		ana_oom();
	}
	fputs("]}", w->out);
	ana_staging_release(&st);
}

static void jw_procs(struct jw *w, struct ana *a)
{
	fprintf(w->out, "%s\n  \"processes\": [", w->n++ ? "," : "");
	size_t n;
	uint32_t *idx = procs_sorted(a, &n);
	long lim = list_limit(a, 1);
	for (size_t i = 0; i < n && (lim < 0 || (long)i < lim); i++) {
		const struct ana_proc *p = &a->procs[idx[i]];
		json_t *x = json_object();
		json_object_set_new(x, "pid", cm_json_u64(p->pid));
		json_object_set_new(x, "ppid", a->have[TAPE_TABLE_PROCESS] ? cm_json_u64(p->ppid) : json_null());
		json_object_set_new(x, "comm", jstr(p->comm));
		json_object_set_new(x, "threads", cm_json_u64(p->threads));
		json_object_set_new(x, "read_ops", cm_json_u64(p->read_ops));
		json_object_set_new(x, "read_bytes", cm_json_u64(p->read_bytes));
		json_object_set_new(x, "write_ops", cm_json_u64(p->write_ops));
		json_object_set_new(x, "write_bytes", cm_json_u64(p->write_bytes));
		json_object_set_new(x, "io_s", json_real(p->io_ns / 1e9));
		fputs(i ? ",\n    " : "\n    ", w->out);
		json_dumpf(x, w->out, JFLAGS);
		json_decref(x);
	}
	free(idx);
	fputs("]", w->out);
}

/* Resources (sample table), per metric null when not sampled. */
static void res_totals(const struct ana *a, uint64_t *u, uint64_t *sy, int *has_cpu,
		       uint64_t *dr, uint64_t *dw, int *has_disk)
{
	*u = *sy = *dr = *dw = 0;
	*has_cpu = *has_disk = 0;
	for (size_t i = 0; i < a->nprocs; i++) {
		const struct ana_proc *p = &a->procs[i];
		if (a->o.has_pid && p->filter != 1)
			continue;
		if (p->has_cpu_u)
			*u += p->cpu_u1 - p->cpu_u0;
		if (p->has_cpu_s)
			*sy += p->cpu_s1 - p->cpu_s0;
		*has_cpu |= p->has_cpu_u | p->has_cpu_s;
	}
	for (size_t i = 0; i < a->res.nd; i++) {
		const struct ana_disk *d = &a->res.d[i];
		if (d->has_r)
			*dr += d->r1 - d->r0;
		if (d->has_w)
			*dw += d->w1 - d->w0;
		*has_disk |= d->has_r | d->has_w;
	}
}

static json_t *j_resources(struct ana *a, json_t *un)
{
	if (!a->have[TAPE_TABLE_SAMPLE]) {
		unavail(un, "resources", NO_SAMPLE);
		return json_null();
	}
	const struct ana_res *r = &a->res;
	uint64_t u, sy, dr, dw;
	int cpu, disk;
	res_totals(a, &u, &sy, &cpu, &dr, &dw, &disk);
	double w = window_ns(a);
	static const char *const why_cpu = "no CPU-time samples of the job's processes";
	if (!cpu) {
		unavail(un, "resources.cpu_user_s", why_cpu);
		unavail(un, "resources.cpu_sys_s", why_cpu);
		unavail(un, "resources.cpu_cores", why_cpu);
	}
	if (!r->has_rss)
		unavail(un, "resources.peak_rss_bytes", "no RSS samples of the job's processes");
	if (!r->has_pc)
		unavail(un, "resources.pagecache_bytes", "no page-cache size samples");
	if (!r->has_avail)
		unavail(un, "resources.mem_available_min_bytes", "no free-memory samples");
	if (!disk) {
		unavail(un, "resources.disk_read_bytes", "no device counter samples");
		unavail(un, "resources.disk_write_bytes", "no device counter samples");
	}
	if (!r->gpu_util_n)
		unavail(un, "resources.gpu_util_mean_pct", "no GPU samples (no GPU seen)");
	if (!r->has_gpu_mem)
		unavail(un, "resources.gpu_mem_max_bytes", "no GPU samples (no GPU seen)");
	json_t *o = json_object(), *pc = json_object();
	json_object_set_new(o, "samples", cm_json_u64(r->n_events));
	json_object_set_new(o, "cpu_user_s", cpu ? json_real(u / 1e9) : json_null());
	json_object_set_new(o, "cpu_sys_s", cpu ? json_real(sy / 1e9) : json_null());
	json_object_set_new(o, "cpu_cores", cpu && w > 0 ? json_real((u + sy) / w) : json_null());
	json_object_set_new(o, "peak_rss_bytes", r->has_rss ? cm_json_u64(r->rss_peak) : json_null());
	json_object_set_new(pc, "min", r->has_pc ? cm_json_u64(r->pc_min) : json_null());
	json_object_set_new(pc, "max", r->has_pc ? cm_json_u64(r->pc_max) : json_null());
	json_object_set_new(o, "pagecache_bytes", pc);
	json_object_set_new(o, "mem_available_min_bytes",
			    r->has_avail ? cm_json_u64(r->avail_min) : json_null());
	json_object_set_new(o, "disk_read_bytes", disk ? cm_json_u64(dr) : json_null());
	json_object_set_new(o, "disk_write_bytes", disk ? cm_json_u64(dw) : json_null());
	json_object_set_new(o, "gpu_util_mean_pct", r->gpu_util_n ?
			    json_real((double)r->gpu_util_sum / r->gpu_util_n) : json_null());
	json_object_set_new(o, "gpu_mem_max_bytes",
			    r->has_gpu_mem ? cm_json_u64(r->gpu_mem_max) : json_null());
	return o;
}

/* What a trace without syscall or process table lacks beyond what the
 * j_* functions list. */
static void unavail_tables(const struct ana *a, json_t *un)
{
	if (!a->have[TAPE_TABLE_SYSCALL]) {
		const char *m[] = { "summary.read_ops", "summary.read_bytes", "summary.write_ops",
				    "summary.write_bytes", "summary.files_read", "summary.files_written",
				    "summary.processes", "summary.threads", "dataset",
				    "other_files", "pattern", "latency",
				    "timeline", "epochs", "checkpoints", "compute",
				    "files[].read_randomness", "processes" };
		for (size_t i = 0; i < sizeof(m) / sizeof(*m); i++)
			unavail(un, m[i], NO_SYS);
	}
	if (!a->have[TAPE_TABLE_PROCESS])
		unavail(un, "processes[].comm", "the trace has no process table");
}

static json_t *j_window(const struct ana *a)
{
	json_t *win = json_object();
	json_object_set_new(win, "trace", jstr(a->path));
	json_object_set_new(win, "t0_ns", cm_json_u64(a->t0));
	json_object_set_new(win, "from_s", json_real(a->o.from_ns / 1e9));
	json_object_set_new(win, "to_s", a->o.to_ns == UINT64_MAX ? json_null() : json_real(a->o.to_ns / 1e9));
	json_object_set_new(win, "pid", a->o.has_pid ? cm_json_u64(a->o.pid) : json_null());
	return win;
}

/* Damaged tables and a rebuilt index. */
static json_t *j_warnings(const struct ana *a)
{
	json_t *warn = json_array();
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		if (!a->damage[t])
			continue;
		char *msg;
		if (asprintf(&msg, "%s table damaged (%s): its metrics cover only the events before the damage",
			     tape_table_name(t), a->damage_detail[t]) >= 0) {
			json_array_append_new(warn, jstr(msg));
			free(msg);
		}
	}
	if (tape_reader_recovered(a->r))
		json_array_append_new(warn, jstr("index rebuilt by scanning (the recording did not finish)"));
	return warn;
}

/* The top-level keys in order; "unavailable" last, once every section
 * has added to it. */
static int report_json(struct ana *a, FILE *out, int nofiles, struct sort_job *sort)
{
	struct jw w = { .out = out, .sort = sort };
	json_t *un = json_array();
	unavail_tables(a, un);

	fputs("{", out);
	jw_key(&w, "schema", json_string("iotape-analyze/1"));
	jw_key(&w, "window", j_window(a));
	jw_key(&w, "summary", j_summary(a));
	if (a->nhosts)
		jw_key(&w, "hosts", j_hosts(a));
	jw_key(&w, "dataset", j_dataset(a, un));
	jw_key(&w, "other_files", j_other(a, un));
	jw_key(&w, "pattern", j_pattern(a, un));
	jw_key(&w, "cache", j_cache(a, un));
	jw_key(&w, "block", j_block(a, un));
	jw_key(&w, "latency", j_latency(a));
	jw_key(&w, "timeline", j_timeline(a));
	jw_key(&w, "epochs", j_epochs(a, un));
	jw_key(&w, "checkpoints", j_ckpts(a));
	jw_staging(&w, a, nofiles);
	jw_compute(&w, a);
	jw_key(&w, "au", j_au(a));
	jw_files(&w, a, nofiles);
	jw_procs(&w, a);
	jw_key(&w, "resources", j_resources(a, un));
	jw_key(&w, "warnings", j_warnings(a));
	jw_key(&w, "unavailable", un);
	fputs("\n}\n", out);
	return 0;
}

/* ---------------------------------------------------------------- text */

/* Human units as in the other subcommands (cm_fmt_*), returning buf so
 * they fit in a printf argument list.  buf >= 32 bytes. */
static const char *t_bytes(char *buf, uint64_t v)
{
	cm_fmt_bytes(buf, 32, v);
	return buf;
}

static const char *t_ns(char *buf, uint64_t ns)
{
	cm_fmt_ns(buf, 32, ns);
	return buf;
}

static void t_section(FILE *o, const char *name)
{
	fprintf(o, "\n%s\n", name);
}

static void t_hist(FILE *o, const uint64_t *rd, const uint64_t *wr)
{
	char lo[32], hi[32];
	fprintf(o, "  %-22s %12s %12s\n", "request size", "reads", "writes");
	for (unsigned b = 0; b < ANA_SZ_BUCKETS; b++) {
		if (!rd[b] && !wr[b])
			continue;
		char range[80];
		if (b == 0)
			snprintf(range, sizeof(range), "0 B");
		else if (b == 1)
			snprintf(range, sizeof(range), "1 B");
		else
			snprintf(range, sizeof(range), "%s - <%s", t_bytes(lo, 1ull << (b - 1)),
				 b == 64 ? "16.0 EiB" : t_bytes(hi, 1ull << b));
		fprintf(o, "  %-22s %12" PRIu64 " %12" PRIu64 "\n", range, rd[b], wr[b]);
	}
}

static void t_lat_row(FILE *o, const char *name, const struct cm_lat *l)
{
	char b[6][32], c[32];
	fprintf(o, "  %-16s %10s %10s %10s %10s %10s %10s%s\n", name, ana_fmt_count(c, l->count),
		t_ns(b[0], cm_lat_pct(l, 50)), t_ns(b[1], cm_lat_pct(l, 90)),
		t_ns(b[2], cm_lat_pct(l, 99)), t_ns(b[3], cm_lat_pct(l, 99.9)),
		t_ns(b[4], l->max), l->inexact ? "  ~" : "");
}

static void t_lat_head(FILE *o, const char *what)
{
	fprintf(o, "  %-16s %10s %10s %10s %10s %10s %10s\n", what, "count", "p50", "p90",
		"p99", "p99.9", "max");
}

/* A section's title; when the table it reports on is missing, the reason
 * in its place ("  <what>not available: <why>") and 0. */
static int t_section_of(FILE *o, const struct ana *a, const char *name, int table,
			const char *what)
{
	t_section(o, name);
	if (a->have[table])
		return 1;
	fprintf(o, "  %snot available: %s\n", what, no_layer(a, table));
	return 0;
}

/* The note under a list cut at lim entries of n (lim < 0: not cut). */
static void t_more(FILE *o, size_t n, long lim, const char *what)
{
	if (lim >= 0 && n > (size_t)lim)
		fprintf(o, "  (%zu more %s: --top 0 lists all)\n", n - lim, what);
}

/* The trace, the window and the damaged tables. */
static void t_header(FILE *o, const struct ana *a)
{
	fputs("iotape analyze: ", o);
	cm_put_escaped(o, a->path, 0);
	fputc('\n', o);
	fprintf(o, "  window %.3f s .. %.3f s", a->o.from_ns / 1e9, rel_s(a, trace_end(a)) + a->o.from_ns / 1e9);
	if (a->o.has_pid)
		fprintf(o, ", pid %u and its descendants", a->o.pid);
	fputc('\n', o);
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		if (a->damage[t])
			fprintf(o, "  WARNING: %s table damaged (%s): its metrics cover only the events before it\n",
				tape_table_name(t), a->damage_detail[t]);
}

static void t_summary(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], b3[32];
	t_section(o, "SUMMARY");
	fprintf(o, "  %-20s %s\n", "duration", t_ns(b1, trace_end(a) - a->t0));
	if (a->have[TAPE_TABLE_SYSCALL]) {
		uint64_t fr, fw, np;
		summary_counts(a, &fr, &fw, &np);
		double d = window_ns(a) / 1e9;
		fprintf(o, "  %-20s %10s ops %12s  %s/s  from %" PRIu64 " files\n", "reads",
			ana_fmt_count(b1, a->sys.read_ops), t_bytes(b2, a->sys.read_bytes),
			t_bytes(b3, d > 0 ? (uint64_t)(a->sys.read_bytes / d) : 0), fr);
		fprintf(o, "  %-20s %10s ops %12s  %s/s  to %" PRIu64 " files\n", "writes",
			ana_fmt_count(b1, a->sys.write_ops), t_bytes(b2, a->sys.write_bytes),
			t_bytes(b3, d > 0 ? (uint64_t)(a->sys.write_bytes / d) : 0), fw);
		fprintf(o, "  %-20s %" PRIu64 " processes, %zu threads, %s syscalls (%s failed)\n",
			"job", np, a->sys.nthreads, ana_fmt_count(b1, a->sys.ops),
			ana_fmt_count(b2, a->sys.errors));
	} else {
		fprintf(o, "  reads, writes, files, processes: not available (%s)\n", NO_SYS);
	}
	fprintf(o, "  %-20s syscall %s, block %s, cache %s\n", "events",
		ana_fmt_count(b1, a->st[TAPE_TABLE_SYSCALL].events),
		ana_fmt_count(b2, a->st[TAPE_TABLE_BLOCK].events),
		ana_fmt_count(b3, a->st[TAPE_TABLE_CACHE].events));
}

/* HOSTS of a merged trace: one line each, then the total (SUMMARY's). */
static void t_hosts(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	if (!a->nhosts)
		return;
	t_section(o, "HOSTS");
	fprintf(o, "  %-4s %-20s %10s %10s %12s %10s %12s %10s\n", "host", "name", "duration",
		"reads", "read", "writes", "written", "syscalls");
	for (size_t h = 0; h < a->nhosts; h++) {
		const struct ana *s = &a->hosts[h];
		fprintf(o, "  %-4zu %-20s %10s %10s %12s %10s %12s %10s\n", h, host_name(a, h),
			t_ns(b1, trace_end(s) - s->t0), ana_fmt_count(b2, s->sys.read_ops),
			t_bytes(b3, s->sys.read_bytes), ana_fmt_count(b4, s->sys.write_ops),
			t_bytes(b5, s->sys.write_bytes), ana_fmt_count(b6, s->sys.ops));
	}
	fprintf(o, "  %-4s %-20s %10s %10s %12s %10s %12s %10s\n", "all", "",
		t_ns(b1, trace_end(a) - a->t0), ana_fmt_count(b2, a->sys.read_ops),
		t_bytes(b3, a->sys.read_bytes), ana_fmt_count(b4, a->sys.write_ops),
		t_bytes(b5, a->sys.write_bytes), ana_fmt_count(b6, a->sys.ops));
}

static const char *const ds_rule_text[] = {
	NULL, "files read again, and the files under their directory", "every file read (none read again)",
};

/* DATA SET: the rule that found it and its size. */
static void t_dataset(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], b3[32];
	if (!t_section_of(o, a, "DATA SET", TAPE_TABLE_SYSCALL, ""))
		return;
	if (a->ds_rule == ANA_DS_NONE) {
		fprintf(o, "  none: %s\n", NO_DATASET);
		return;
	}
	fprintf(o, "  %-26s %s (iotape-analyze(1), DATA SET)\n", "rule", ds_rule_text[a->ds_rule]);
	if (a->ds_dir) {
		fprintf(o, "  %-26s ", "directory");
		cm_put_escaped(o, a->ds_dir, 0);
		fputc('\n', o);
	}
	fprintf(o, "  %-26s %" PRIu64 " (%" PRIu64 " read again), %s\n", "files", a->ds.files,
		a->ds_again, t_bytes(b1, a->ds.size));
	fprintf(o, "  %-26s %10s ops %12s\n", "reads", ana_fmt_count(b2, a->ds.read_ops),
		t_bytes(b3, a->ds.read_bytes));
	if (a->ds.write_ops)
		fprintf(o, "  %-26s %10s ops %12s\n", "writes", ana_fmt_count(b2, a->ds.write_ops),
			t_bytes(b3, a->ds.write_bytes));
	struct ana_mmap m;
	if (a->mmap_file != ANA_NONE && !ana_mmap_reads(a, &m) && m.files)
		fprintf(o, "  %-26s %10s ops %12s in %zu file%s, %s windows; %zu epoch%s (generations "
			"of threads faulting it in), %zu at once\n", "page faults",
			ana_fmt_count(b2, m.reads), t_bytes(b3, m.bytes), m.files,
			m.files == 1 ? "" : "s", t_bytes(b1, m.max_len), m.epochs,
			m.epochs == 1 ? "" : "s", m.readers);
}

/* A group's read randomness, sequential fraction, counts and streams. */
static void t_group_pattern(FILE *o, const struct ana_group *g)
{
	char b1[32];
	fprintf(o, "  %-26s %s   (0: each read continues the stream's previous read, 1: none does)\n",
		"read randomness", ana_fmt_ratio(b1, ana_group_randomness(g)));
	fprintf(o, "  %-26s %s   (reads at or after the previous end)\n",
		"sequential read fraction", ana_fmt_ratio(b1, ana_group_seq_fraction(g)));
}

static void t_group_streams(FILE *o, const struct ana_group *g)
{
	fprintf(o, "  %-26s %" PRIu64 " consecutive, %" PRIu64 " sequential of %" PRIu64 " read pairs\n",
		"darshan-style counts", g->rd_pairs - g->rd_nonconsec, g->rd_seq, g->rd_pairs);
	fprintf(o, "  %-26s %" PRIu64 " sequential, %" PRIu64 " strided, %" PRIu64
		" random, %" PRIu64 " single-read\n", "streams", g->st_cls[1], g->st_cls[2],
		g->st_cls[3], g->st_cls[0]);
}

/* ACCESS PATTERN of the data set. */
static void t_pattern(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], why[512];
	if (!t_section_of(o, a, "ACCESS PATTERN (data set)", TAPE_TABLE_SYSCALL, ""))
		return;
	if (a->ds_rule == ANA_DS_NONE) {
		fprintf(o, "  not available: no data set\n");
		return;
	}
	double tau, fo = ana_file_order_randomness(a, &tau);
	t_group_pattern(o, &a->ds);
	if (isnan(fo))
		fprintf(o, "  %-26s n/a   (%s)\n", "file order randomness", order_why(a, why, sizeof(why)));
	else
		fprintf(o, "  %-26s %s   (0: name order, 1: shuffled; tau %s)\n",
			"file order randomness", ana_fmt_ratio(b1, fo),
			(snprintf(b2, sizeof(b2), "%+.3f", tau), b2));
	t_group_streams(o, &a->ds);
	t_hist(o, a->ds.rd_hist, a->ds.wr_hist);
}

/* A group's hit ratio line. */
static void t_group_hit(FILE *o, const char *name, const struct ana_group *g)
{
	char b1[32], b2[32], b3[32];
	fprintf(o, "  %-26s %s   (%s pages accessed, %s missed)\n", name,
		ana_fmt_ratio(b1, ana_hit_ratio(g->pages_accessed, g->pages_missed)),
		ana_fmt_count(b2, g->pages_accessed), ana_fmt_count(b3, g->pages_missed));
}

static void t_cache(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], b3[32], b4[32];
	if (!t_section_of(o, a, "PAGE CACHE", TAPE_TABLE_CACHE, "hit ratio: "))
		return;
	const struct ana_cache *c = &a->cache;
	if (a->ds_rule != ANA_DS_NONE)
		t_group_hit(o, "hit ratio, data set", &a->ds);
	t_group_hit(o, "hit ratio, other files", &a->other);
	fprintf(o, "  %-26s %s%s\n", "hit ratio, all files",
		ana_fmt_ratio(b1, ana_hit_ratio(c->accessed, c->missed)),
		c->untracked ? "   (approximate: interval limit reached, may be high)" : "");
	fprintf(o, "  %-26s %s accessed, %s missed, %s inserted, %s evicted\n", "pages, all files",
		ana_fmt_count(b1, c->accessed), ana_fmt_count(b2, c->missed),
		ana_fmt_count(b3, c->inserted), ana_fmt_count(b4, c->evicted));
	fprintf(o, "  %-26s %s pages (inserted, never accessed)\n", "readahead unused",
		ana_fmt_count(b1, c->ra_unused));
}

/* OTHER FILES: the figures of the files outside the data set, briefly. */
static void t_other(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], b3[32], b4[32];
	const struct ana_group *g = &a->other;
	if (!t_section_of(o, a, "OTHER FILES (code, system files, files outside the data set)",
			  TAPE_TABLE_SYSCALL, ""))
		return;
	fprintf(o, "  %-26s %" PRIu64 "; reads %s ops %s, writes %s ops %s\n", "files", g->files,
		ana_fmt_count(b1, g->read_ops), t_bytes(b2, g->read_bytes),
		ana_fmt_count(b3, g->write_ops), t_bytes(b4, g->write_bytes));
	t_group_pattern(o, g);
	if (a->have[TAPE_TABLE_CACHE])
		t_group_hit(o, "page cache hit ratio", g);
	t_hist(o, g->rd_hist, g->wr_hist);
}

static void t_block(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], b3[32];
	if (!t_section_of(o, a, "BLOCK", TAPE_TABLE_BLOCK, ""))
		return;
	uint64_t ro, rb, wo, wb, pairs, nc, fl;
	blk_totals(a, &ro, &rb, &wo, &wb, &pairs, &nc, &fl);
	double w = window_ns(a);
	fprintf(o, "  %-26s %s requests, %s read, %s written, %" PRIu64 " flushes\n", "requests",
		ana_fmt_count(b1, a->blk.n_events), t_bytes(b2, rb), t_bytes(b3, wb), fl);
	fprintf(o, "  %-26s %s   (requests not starting where the previous one on the device ended)\n",
		"randomness", ana_fmt_ratio(b1, pairs ? (double)nc / pairs : NAN));
	fprintf(o, "  %-26s %.2f\n", "mean queue depth", w > 0 ? a->blk.busy_ns / w : 0.0);
	t_lat_head(o, "latency");
	if (a->blk.lat.inexact)
		fprintf(o, "  (~: above %u samples, percentiles from a histogram, error < 0.4 %%)\n",
			CM_LAT_EXACT);
	if (a->blk.lat.count)
		t_lat_row(o, "all", &a->blk.lat);
	if (a->blk.rlat.count)
		t_lat_row(o, "read", &a->blk.rlat);
	if (a->blk.wlat.count)
		t_lat_row(o, "write", &a->blk.wlat);
	t_hist(o, a->blk.rd_hist, a->blk.wr_hist);
}

static void t_latency(FILE *o, const struct ana *a)
{
	if (!t_section_of(o, a, "SYSCALL LATENCY", TAPE_TABLE_SYSCALL, ""))
		return;
	t_lat_head(o, "op");
	for (unsigned op = 0; op < TAPE_OP_MAX; op++)
		if (a->sys.lat[op].inexact) {
			fprintf(o, "  (~: percentiles from a histogram, error < 0.4 %%)\n");
			break;
		}
	for (unsigned op = 0; op < TAPE_OP_MAX; op++)
		if (a->sys.lat[op].count)
			t_lat_row(o, tape_op_name(op), &a->sys.lat[op]);
}

static void t_epochs(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], b3[32], b4[32];
	if (!t_section_of(o, a, "EPOCHS (data set)", TAPE_TABLE_SYSCALL, ""))
		return;
	size_t k = ana_epoch_count(a);
	uint64_t once = 0, again = 0;
	char why[512];
	for (size_t i = 0; i < a->sys.nepochs; i++)
		*(i ? &again : &once) += a->sys.epochs[i].bytes;
	int known = !epochs_why(a, why, sizeof(why));
	if (a->ds_rule == ANA_DS_NONE) {
		fprintf(o, "  count: not available: no data set\n");
		return;
	}
	if (!known) {
		fprintf(o, "  count: not available: %s\n", why);
		fputs("  ", o);
		k = 0;
	} else {
		fprintf(o, "  %zu epoch%s; ", k, k == 1 ? "" : "s");
	}
	fprintf(o, "read once %s, re-read %s", t_bytes(b1, once), t_bytes(b2, again));
	if (a->npasses > k && known)
		fprintf(o, " (%zu partial pass%s over < 1/2 of the data set not counted)",
			a->npasses - k, a->npasses - k == 1 ? "" : "es");
	fputc('\n', o);
	if (k)
		fprintf(o, "  %5s %10s %10s %12s %10s %8s\n", "epoch", "start", "duration",
			"bytes", "files", "order");
	long lim = list_limit(a, 0);
	for (size_t i = 0; i < k && (lim < 0 || (long)i < lim); i++) {
		const struct ana_epoch *ep = &a->sys.epochs[i];
		fprintf(o, "  %5zu %10s %10s %12s %10" PRIu64 " %8s\n", i,
			t_ns(b1, rel_ns(a, ep->start_ns)),
			t_ns(b2, ep->end_ns - ep->start_ns),
			t_bytes(b3, ep->bytes), ep->files,
			ana_fmt_ratio(b4, ep->order_rand));
	}
	t_more(o, k, lim, "epochs");
}

static void t_ckpts(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], b3[32], b4[32];
	if (!t_section_of(o, a, "CHECKPOINTS", TAPE_TABLE_SYSCALL, ""))
		return;
	fprintf(o, "  %zu checkpoint%s (write bursts of >= 1 MiB, whole-file writes that repeat)\n",
		a->nckpts, a->nckpts == 1 ? "" : "s");
	if (a->nckpts)
		fprintf(o, "  %10s %10s %12s %6s %7s %12s %6s\n", "start", "duration", "bytes",
			"files", "fsyncs", "bandwidth", "whole");
	for (size_t i = 0; i < a->nckpts; i++) {
		const struct ana_ckpt *c = &a->ckpts[i];
		double d = (double)(c->end_ns - c->start_ns);
		char bw[40];
		snprintf(bw, sizeof(bw), "%s/s", t_bytes(b4, d > 0 ? (uint64_t)(c->bytes / (d / 1e9)) : 0));
		fprintf(o, "  %10s %10s %12s %6" PRIu64 " %7" PRIu64 " %12s %6s\n",
			t_ns(b1, rel_ns(a, c->start_ns)), t_ns(b2, c->end_ns - c->start_ns),
			t_bytes(b3, c->bytes), c->files, c->syncs, d > 0 ? bw : "n/a",
			c->whole ? "yes" : "no");
	}
}

/* STAGING: the fewest files carrying 50/80/95 % of the reads; with
 * --per-file, the files by bytes read per byte (--stage-hot's order). */
static void t_staging(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], b3[32], lb[32], buf[ANA_PATH_BUF];
	struct ana_staging st;
	if (!t_section_of(o, a, "STAGING (iotape-analyze(1), STAGING)", TAPE_TABLE_SYSCALL, ""))
		return;
	staging(a, &st);
	fprintf(o, "  %-26s %zu, %s, %s read", "files read", st.n, t_bytes(b1, st.bytes),
		t_bytes(b2, st.read_bytes));
	if (st.by_extent)
		fprintf(o, "   (%zu sized by their furthest read)", st.by_extent);
	fputc('\n', o);
	if (st.n) {
		fprintf(o, "  %-14s %10s %12s %12s\n", "share of reads", "files", "size", "read");
		for (unsigned k = 0; k < ANA_STAGE_LEVELS; k++) {
			const struct ana_stage_level *l = &st.lv[k];
			snprintf(lb, sizeof(lb), "%u%%", l->pct);
			fprintf(o, "  %-14s %10" PRIu64 " %12s %12s\n", lb, l->files,
				t_bytes(b1, l->bytes), t_bytes(b2, l->read_bytes));
		}
	}
	if (a->o.per_file && st.n) {
		long lim = list_limit(a, 0);
		if (ana_staging_rank(a, &st)) {
			ana_staging_release(&st);
			ana_oom();
		}
		fprintf(o, "  %10s %12s %12s  %s\n", "read/size", "read", "size",
			"path (by read per byte: replay --stage-hot's order)");
		for (size_t i = 0; i < st.n && (lim < 0 || (long)i < lim); i++) {
			struct ana_stage_file f = ana_stage_of(a, st.f[i]);
			fprintf(o, "  %10.3f %12s %12s  ", (double)f.read_bytes / (double)f.size,
				t_bytes(b1, f.read_bytes), t_bytes(b3, f.size));
			cm_put_escaped(o, ana_file_path(a, &a->files[f.file], buf), 0);
			fputc('\n', o);
		}
		t_more(o, st.n, lim, "files");
	}
	ana_staging_release(&st);
}

static void t_compute(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], b3[32];
	if (!t_section_of(o, a, "COMPUTE", TAPE_TABLE_SYSCALL, ""))
		return;
	uint64_t io, gap;
	compute_totals(a, &io, &gap);
	double span = (double)(a->sys.last_ns > a->sys.first_ns ? a->sys.last_ns - a->sys.first_ns : 0);
	fprintf(o, "  %-26s %s in I/O syscalls, %s between them (all threads)\n", "thread time",
		t_ns(b1, io), t_ns(b2, gap));
	fprintf(o, "  %-26s %s   (I/O time / thread time)\n", "blocked fraction",
		ana_fmt_ratio(b1, io + gap ? (double)io / (io + gap) : NAN));
	fprintf(o, "  %-26s %s   (wall time with any thread in I/O)\n", "I/O busy fraction",
		ana_fmt_ratio(b1, span > 0 ? a->sys.busy_ns / span : NAN));
	size_t n;
	uint32_t *idx = threads_sorted(a, &n);
	long lim = a->o.per_process ? list_limit(a, 0) : 5;
	fprintf(o, "  %8s %8s %-16s %10s %10s %8s\n", "pid", "tid", "comm", "io", "gap", "io frac");
	for (size_t i = 0; i < n && (lim < 0 || (long)i < lim); i++) {
		const struct ana_thread *t = &a->sys.threads[idx[i]];
		const char *comm = proc_comm(a, t->pid);
		double sp = (double)(t->last_end - t->first_ns);
		fprintf(o, "  %8u %8u %-16.16s %10s %10s %8s\n", t->pid, t->tid, comm ? comm : "?",
			t_ns(b1, t->io_ns), t_ns(b2, t->gap_ns),
			ana_fmt_ratio(b3, sp > 0 ? t->io_ns / sp : NAN));
	}
	if (n > 5 && !a->o.per_process)
		fprintf(o, "  (%zu more threads: --per-process)\n", n - 5);
	free(idx);
}

static void t_accel(FILE *o, const struct ana *a)
{
	const struct ana_train *t = &a->train;
	char b1[32], b2[32], b3[32], b4[32], why[200];

	if (!t_section_of(o, a, "ACCELERATOR", TAPE_TABLE_SYSCALL, ""))
		return;
	if (!t->found) {
		fprintf(o, "  %-26s none: no thread works between its calls\n", "training thread");
		return;
	}
	const char *comm = proc_comm(a, t->pid);
	train_why(a, why, sizeof(why));
	fprintf(o, "  %-26s tid %u (%s, pid %u): %s\n", "training thread", t->tid,
		comm ? comm : "?", t->pid, why);
	if (a->sched.have)
		fprintf(o, "  %-26s %s working (%s on a CPU), %s waiting for the job, %s in I/O calls\n",
			"its time", t_ns(b1, t->work_ns), t_ns(b2, t->cpu_ns), t_ns(b3, t->wait_ns),
			t_ns(b4, t->io_ns));
	else
		fprintf(o, "  %-26s %s between its calls (no sched table: waits for the job "
			"not told apart), %s in I/O calls\n", "its time", t_ns(b1, t->work_ns),
			t_ns(b2, t->io_ns));
	if (t->steps)
		fprintf(o, "  %-26s %llu%s, %.4f s +- %.4f s of work each\n", "steps",
			(unsigned long long)t->steps, t->nep ? " in the epochs" : "",
			t->step_mean_ms / 1e3, t->step_sd_ms / 1e3);
	fprintf(o, "  %-26s %s", "AU (DLIO)", isnan(t->au_dlio) ? "n/a" :
		(snprintf(b1, sizeof(b1), "%.1f%%", 100 * t->au_dlio), b1));
	if (t->nep) {
		fputs("   (per epoch:", o);
		for (size_t k = 0; k < t->nep; k++)
			fprintf(o, isnan(t->ep[k].au) ? " n/a" : " %.1f%%", 100 * t->ep[k].au);
		fputs("; each epoch's first step and the start-up left out)\n", o);
	} else if (!isnan(t->au_dlio)) {
		fputs("   (no epochs over a data set: one window over its steps, the first left "
		      "out)\n", o);
	} else {
		fputs("   (no epochs over a data set)\n", o);
	}
	fprintf(o, "  %-26s %s   (its work over the whole window, start-up included)\n",
		"AU (whole run)", isnan(t->au_run) ? "n/a" :
		(snprintf(b1, sizeof(b1), "%.1f%%", 100 * t->au_run), b1));
	if (t->nocpu)
		fprintf(o, "  %-26s %u thread%s that never ran on a CPU (idle helpers)\n",
			"left out", t->nocpu, t->nocpu == 1 ? "" : "s");
}

static void t_resources(FILE *o, const struct ana *a)
{
	char b1[32], b2[32];
	if (!t_section_of(o, a, "RESOURCES", TAPE_TABLE_SAMPLE, "CPU time, RSS, page cache size, GPU: "))
		return;
	const struct ana_res *r = &a->res;
	uint64_t u, sy, dr, dw;
	int cpu, disk;
	double w = window_ns(a);
	res_totals(a, &u, &sy, &cpu, &dr, &dw, &disk);
	if (cpu)
		fprintf(o, "  %-26s %s user, %s system (%.2f cores on average)\n", "job CPU time",
			t_ns(b1, u), t_ns(b2, sy), w > 0 ? (u + sy) / w : 0.0);
	else
		fprintf(o, "  %-26s not available: no CPU-time samples of the job's processes\n",
			"job CPU time");
	if (r->has_rss)
		fprintf(o, "  %-26s %s (its processes' RSS summed per sample)\n", "job peak RSS",
			t_bytes(b1, r->rss_peak));
	else
		fprintf(o, "  %-26s not available: no RSS samples\n", "job peak RSS");
	if (r->has_pc)
		fprintf(o, "  %-26s %s .. %s\n", "page cache size", t_bytes(b1, r->pc_min),
			t_bytes(b2, r->pc_max));
	if (r->has_avail)
		fprintf(o, "  %-26s %s at the lowest\n", "memory available",
			t_bytes(b1, r->avail_min));
	if (disk)
		fprintf(o, "  %-26s %s read, %s written (device counters)\n", "disks",
			t_bytes(b1, dr), t_bytes(b2, dw));
	if (r->gpu_util_n)
		fprintf(o, "  %-26s %.1f %% mean utilization, %s memory at most\n", "GPU",
			(double)r->gpu_util_sum / r->gpu_util_n,
			r->has_gpu_mem ? t_bytes(b1, r->gpu_mem_max) : "?");
	else
		fprintf(o, "  %-26s not available: no GPU samples (no GPU seen)\n", "GPU");
}

/* --per-file */
static void t_files(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], lb[ANA_PATH_BUF];
	size_t n;
	uint32_t *idx = files_sorted(a, &n);
	long lim = list_limit(a, 0);
	t_section(o, "FILES");
	fprintf(o, "  %10s %10s %10s %10s %8s %8s %4s  %s\n", "reads", "read", "writes", "written",
		"random", "hit", "data", "path");
	for (size_t i = 0; i < n && (lim < 0 || (long)i < lim); i++) {
		const struct ana_file *f = &a->files[idx[i]];
		fprintf(o, "  %10s %10s %10s %10s %8s %8s %4s  ",
			ana_fmt_count(b1, ana_file_read_ops(a, f)),
			t_bytes(b2, ana_file_read_bytes(a, f)),
			ana_fmt_count(b3, ana_file_write_ops(a, f)),
			t_bytes(b4, ana_file_write_bytes(a, f)), ana_fmt_ratio(b5, file_randomness(a, f)),
			ana_fmt_ratio(b6, file_hit(a, idx[i])), f->dataset ? "yes" : "");
		cm_put_escaped(o, ana_file_label(a, f, lb), 0);
		fputc('\n', o);
	}
	t_more(o, n, lim, "files");
	free(idx);
}

/* --per-process */
static void t_procs(FILE *o, const struct ana *a)
{
	char b1[32], b2[32], b3[32];
	size_t n;
	uint32_t *idx = procs_sorted(a, &n);
	long lim = list_limit(a, 0);
	t_section(o, "PROCESSES");
	fprintf(o, "  %8s %8s %-16s %8s %12s %12s %10s\n", "pid", "ppid", "comm", "threads",
		"read", "written", "io");
	for (size_t i = 0; i < n && (lim < 0 || (long)i < lim); i++) {
		const struct ana_proc *p = &a->procs[idx[i]];
		fprintf(o, "  %8u %8u %-16.16s %8" PRIu64 " %12s %12s %10s\n", p->pid, p->ppid,
			p->comm ? p->comm : "?", p->threads, t_bytes(b1, p->read_bytes),
			t_bytes(b2, p->write_bytes), t_ns(b3, p->io_ns));
	}
	free(idx);
}

/* The sections in order; FILES and PROCESSES only when asked for. */
static int report_text(struct ana *a, FILE *o)
{
	t_header(o, a);
	t_summary(o, a);
	t_hosts(o, a);
	t_dataset(o, a);
	t_pattern(o, a);
	t_epochs(o, a);
	t_cache(o, a);
	t_other(o, a);
	t_block(o, a);
	t_latency(o, a);
	t_ckpts(o, a);
	t_staging(o, a);
	t_compute(o, a);
	t_accel(o, a);
	t_resources(o, a);
	if (a->o.per_file)
		t_files(o, a);
	if (a->o.per_process)
		t_procs(o, a);
	return 0;
}

/* ------------------------------------------------------- entry points */

struct report_job {
	struct ana *a;
	FILE *out;
	int nofiles;
	struct sort_job *sort;
};

static int json_job(void *arg)
{
	struct report_job *j = arg;
	return report_json(j->a, j->out, j->nofiles, j->sort);
}

static int sort_job(void *arg)
{
	struct sort_job *s = arg;
	s->idx = files_sorted(s->a, &s->n);
	return 0;
}

static void *sort_main(void *arg)
{
	struct sort_job *s = arg;
	s->err = ana_guard(sort_job, s);
	return NULL;
}

static int text_job(void *arg)
{
	struct report_job *j = arg;
	return report_text(j->a, j->out);
}

int ana_report_json(struct ana *a, FILE *out)
{
	struct sort_job s = { .a = a };
	struct report_job j = { a, out, 0, &s };

	if (a->o.threads > 1 && pthread_create(&s.th, NULL, sort_main, &s) == 0)
		s.running = 1;
	int err = ana_guard(json_job, &j);
	if (s.running)	/* (a section before files[] ran out of memory) */
		pthread_join(s.th, NULL);
	free(s.idx);
	return err;
}

int ana_report_json_nofiles(struct ana *a, FILE *out)
{
	struct report_job j = { a, out, 1 };
	return ana_guard(json_job, &j);
}

long ana_json_list_limit(const struct ana *a)
{
	return list_limit(a, 1);
}

uint32_t *ana_files_listed(const struct ana *a, size_t *n)
{
	uint32_t *idx = files_sorted(a, n);
	long lim = list_limit(a, 1);
	if (lim >= 0 && *n > (size_t)lim)
		*n = (size_t)lim;
	return idx;
}

int ana_report_text(struct ana *a, FILE *out)
{
	struct report_job j = { a, out };
	return ana_guard(text_job, &j);
}
