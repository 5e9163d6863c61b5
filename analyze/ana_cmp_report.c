/* SPDX-License-Identifier: MIT */
/*
 * ana_cmp_report.c - a comparison of two traces (ana_compare.h) as text
 * and as JSON (schema iotape-compare/1; iotape-compare(1)).
 *
 * One function per section, t_* for text and j_* for JSON (t_summary
 * prints SUMMARY, j_summary builds "summary"), which ana_cmp_text and
 * ana_cmp_json call in order.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include "ana_compare.h"
#include "fmt.h"
#include "ops.h"

static uint64_t duration_ns(const struct ana *a)
{
	return ana_trace_end(a) - a->t0;
}

/* ---------------------------------------------------------------- text */

static void t_pct(char *buf, double a, double b)
{
	double r = ana_rel_diff(a, b);
	if (isnan(a) || isnan(b))
		snprintf(buf, 32, "n/a");
	else if (isinf(r))
		snprintf(buf, 32, "new");
	else if (r == 0)
		snprintf(buf, 32, "=");
	else
		snprintf(buf, 32, "%+.1f%%", 100 * r);
}

static void t_count(FILE *o, const char *name, uint64_t a, uint64_t b)
{
	char d[32];
	t_pct(d, (double)a, (double)b);
	fprintf(o, "  %-28s %14" PRIu64 " %14" PRIu64 " %9s\n", name, a, b, d);
}

/* A line of two values in human units (fmt: cm_fmt_bytes, cm_fmt_ns). */
static void t_units(FILE *o, const char *name, uint64_t a, uint64_t b,
		    void (*fmt)(char *, size_t, uint64_t))
{
	char x[32], y[32], d[32];
	fmt(x, sizeof(x), a);
	fmt(y, sizeof(y), b);
	t_pct(d, (double)a, (double)b);
	fprintf(o, "  %-28s %14s %14s %9s\n", name, x, y, d);
}

static void t_bytes(FILE *o, const char *name, uint64_t a, uint64_t b)
{
	t_units(o, name, a, b, cm_fmt_bytes);
}

static void t_ns(FILE *o, const char *name, uint64_t a, uint64_t b)
{
	t_units(o, name, a, b, cm_fmt_ns);
}

/* Ratios differ by an absolute amount. */
static void t_ratio(FILE *o, const char *name, double a, double b)
{
	char x[32], y[32], d[32];
	if (isnan(a) || isnan(b))
		snprintf(d, sizeof(d), "n/a");
	else
		snprintf(d, sizeof(d), "%+.3f", b - a);
	fprintf(o, "  %-28s %14s %14s %9s\n", name, ana_fmt_ratio(x, a), ana_fmt_ratio(y, b), d);
}

static void t_head(FILE *o, const char *section)
{
	fprintf(o, "\n%-30s %14s %14s %9s\n", section, "A", "B", "diff");
}

static double hit(uint64_t acc, uint64_t miss, int have)
{
	return have ? ana_hit_ratio(acc, miss) : NAN;
}

/* Rows of the threads side by side: as many as the side with more. */
static size_t thread_rows(const struct ana_cmp *c)
{
	return c->nthr[0] > c->nthr[1] ? c->nthr[0] : c->nthr[1];
}

/* Side s's thread in row i (most bytes first), NULL past its last. */
static const struct ana_thread *thread_at(const struct ana_cmp *c, int s, size_t i)
{
	return i < c->nthr[s] ? &c->a[s].sys.threads[c->thr[s][i]] : NULL;
}

/* Request size class i has reads or writes in group g on either side. */
static int size_class_used(const struct ana_cmp_group *g, unsigned i)
{
	return g->rd_hist[0][i] || g->rd_hist[1][i] || g->wr_hist[0][i] || g->wr_hist[1][i];
}

/* num / den of side s, NaN when den is 0. */
static double side_ratio(const uint64_t *num, const uint64_t *den, int s)
{
	return den[s] ? (double)num[s] / (double)den[s] : NAN;
}

/* Side s's epoch count, NaN where it cannot be counted (ana_epochs_known). */
static double epochs_of(const struct ana_cmp *c, int s)
{
	return ana_epochs_known(&c->a[s]) ? (double)ana_epoch_count(&c->a[s]) : NAN;
}

/* The note under a list cut at top entries of n (top < 0: not cut). */
static void t_more(FILE *o, size_t n, long top, const char *what)
{
	if (top >= 0 && n > (size_t)top)
		fprintf(o, "  (%zu more %s: --top 0 lists all)\n", n - top, what);
}

/* The traces, what is counted, and A's page-fault reads. */
static void t_header(FILE *o, const struct ana_cmp *c)
{
	fputs("iotape compare\n  A  ", o);
	cm_put_escaped(o, c->path[0], 0);
	fputs("\n  B  ", o);
	cm_put_escaped(o, c->path[1], 0);
	if (c->o.under) {
		fputs("   (files under ", o);
		cm_put_escaped(o, c->o.under, 0);
		fputs(", named without it)", o);
	}
	fprintf(o, "\n  reads and writes of regular files with a path; left out: %" PRIu64
		" files in A, %" PRIu64 " in B (pipes, sockets, unknown fds)\n",
		c->excluded[0], c->excluded[1]);
	if (c->fault_reads || c->fault_only) {
		char fb[32];
		cm_fmt_bytes(fb, sizeof(fb), c->fault_bytes);
		fprintf(o, "  A's reads include %" PRIu64 " page-fault reads (%s) that the replay"
			" issues as reads; %" PRIu64 " files A only mapped are left out\n",
			c->fault_reads, fb, c->fault_only);
	}
}

static void t_summary(FILE *o, const struct ana_cmp *c)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];
	t_head(o, "SUMMARY");
	t_ns(o, "duration", duration_ns(a), duration_ns(b));
	t_count(o, "read ops", a->sys.read_ops, b->sys.read_ops);
	t_bytes(o, "read bytes", a->sys.read_bytes, b->sys.read_bytes);
	t_count(o, "write ops", a->sys.write_ops, b->sys.write_ops);
	t_bytes(o, "write bytes", a->sys.write_bytes, b->sys.write_bytes);
	uint64_t fr[2] = { 0 }, fw[2] = { 0 };
	for (size_t i = 0; i < c->nf; i++)
		for (int s = 0; s < 2; s++) {
			fr[s] += c->f[i].rops[s] > 0;
			fw[s] += c->f[i].wops[s] > 0;
		}
	t_count(o, "files read", fr[0], fr[1]);
	t_count(o, "files written", fw[0], fw[1]);
	/* metadata ops, as the replay issues them (failed ones too) */
	for (unsigned kd = CM_META_FIRST; kd < CM_KIND_MAX; kd++) {
		char n[32];
		if (!a->sys.meta_ops[kd] && !b->sys.meta_ops[kd])
			continue;
		snprintf(n, sizeof(n), "%s ops", cm_kind_name(kd));
		t_count(o, n, a->sys.meta_ops[kd], b->sys.meta_ops[kd]);
	}
}

static void t_kinds(FILE *o, const struct ana_cmp *c)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];
	t_head(o, "BY KIND");
	for (unsigned op = 0; op < TAPE_OP_MAX; op++) {
		if (!a->sys.op_ops[op] && !b->sys.op_ops[op])
			continue;
		char n[48];
		snprintf(n, sizeof(n), "%s ops", tape_op_name(op));
		t_count(o, n, a->sys.op_ops[op], b->sys.op_ops[op]);
		snprintf(n, sizeof(n), "%s bytes", tape_op_name(op));
		t_bytes(o, n, a->sys.op_bytes[op], b->sys.op_bytes[op]);
	}
}

/* A line of two counts that may be unknown (NaN). */
static void t_opt_count(FILE *o, const char *name, double a, double b)
{
	char x[32], y[32];
	if (isnan(a) || isnan(b)) {
		snprintf(x, sizeof(x), isnan(a) ? "n/a" : "%.0f", a);
		snprintf(y, sizeof(y), isnan(b) ? "n/a" : "%.0f", b);
		fprintf(o, "  %-28s %14s %14s %9s\n", name, x, y, "n/a");
	} else {
		t_count(o, name, (uint64_t)a, (uint64_t)b);
	}
}

/* A group's files, reads and access pattern. */
static void t_group(FILE *o, const struct ana_cmp_group *g)
{
	t_count(o, "files", g->files[0], g->files[1]);
	t_count(o, "read ops", g->rops[0], g->rops[1]);
	t_bytes(o, "read bytes", g->rbytes[0], g->rbytes[1]);
	t_ratio(o, "read randomness", side_ratio(g->nonconsec, g->pairs, 0),
		side_ratio(g->nonconsec, g->pairs, 1));
	t_ratio(o, "sequential read fraction", side_ratio(g->seq, g->pairs, 0),
		side_ratio(g->seq, g->pairs, 1));
}

static void t_pattern(FILE *o, const struct ana_cmp *c)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];
	double ta, tb;
	t_head(o, "ACCESS PATTERN (data set)");
	t_group(o, &c->g[ANA_CG_DATA]);
	double fa = ana_file_order_randomness(a, &ta), fb = ana_file_order_randomness(b, &tb);
	t_ratio(o, "file order randomness", fa, fb);
	t_opt_count(o, "epochs", epochs_of(c, 0), epochs_of(c, 1));
	t_head(o, "ACCESS PATTERN (other files)");
	t_group(o, &c->g[ANA_CG_OTHER]);
}

static void t_sizes(FILE *o, const struct ana_cmp *c, int gi, const char *title)
{
	const struct ana_cmp_group *g = &c->g[gi];
	char b1[32], b2[32];
	t_head(o, title);
	for (unsigned i = 0; i < ANA_SZ_BUCKETS; i++) {
		if (!size_class_used(g, i))
			continue;
		char r[80];
		if (i <= 1)
			snprintf(r, sizeof(r), "%u B", i);
		else {
			cm_fmt_bytes(b1, sizeof(b1), 1ull << (i - 1));
			if (i == 64)
				snprintf(b2, sizeof(b2), "16.0 EiB");
			else
				cm_fmt_bytes(b2, sizeof(b2), 1ull << i);
			snprintf(r, sizeof(r), "%s - <%s", b1, b2);
		}
		char n[96];
		if (g->rd_hist[0][i] || g->rd_hist[1][i]) {
			snprintf(n, sizeof(n), "read  %s", r);
			t_count(o, n, g->rd_hist[0][i], g->rd_hist[1][i]);
		}
		if (g->wr_hist[0][i] || g->wr_hist[1][i]) {
			snprintf(n, sizeof(n), "write %s", r);
			t_count(o, n, g->wr_hist[0][i], g->wr_hist[1][i]);
		}
	}
}

static void t_cache(FILE *o, const struct ana_cmp *c)
{
	static const char *const what[] = { "data set", "other files", "all files" };
	char n[64];
	t_head(o, "PAGE CACHE (files on both sides)");
	for (int gi = ANA_CG_DATA; gi <= ANA_CG_ALL; gi++) {
		const struct ana_cmp_group *g = &c->g[gi];
		snprintf(n, sizeof(n), "hit ratio, %s", what[gi]);
		t_ratio(o, n, hit(g->acc[0], g->miss[0], c->have_cache[0]),
			hit(g->acc[1], g->miss[1], c->have_cache[1]));
		snprintf(n, sizeof(n), "pages accessed, %s", what[gi]);
		t_count(o, n, g->acc[0], g->acc[1]);
		snprintf(n, sizeof(n), "pages missed, %s", what[gi]);
		t_count(o, n, g->miss[0], g->miss[1]);
	}
}

static void t_compute(FILE *o, const struct ana_cmp *c, long top)
{
	t_head(o, "COMPUTE");
	t_ns(o, "compute gap (all threads)", c->gap[0], c->gap[1]);
	t_ns(o, "I/O time (all threads)", c->io[0], c->io[1]);
	t_count(o, "threads with I/O", c->nthr[0], c->nthr[1]);
	size_t nt = thread_rows(c);
	for (size_t i = 0; i < nt && (top < 0 || (long)i < top); i++) {
		const struct ana_thread *x = thread_at(c, 0, i), *y = thread_at(c, 1, i);
		char n[64];
		snprintf(n, sizeof(n), "gap tid %u / %u", x ? x->tid : 0, y ? y->tid : 0);
		t_ns(o, n, x ? x->gap_ns : 0, y ? y->gap_ns : 0);
	}
	t_more(o, nt, top, "threads");
}

/* Listed only if some file differs. */
static void t_differ(FILE *o, const struct ana_cmp *c, long top)
{
	size_t nd = 0;
	for (size_t i = 0; i < c->nf; i++) {
		const struct ana_cmp_file *f = &c->f[i];
		if (!ana_cmp_file_differs(f))
			continue;
		if (!nd++)
			fprintf(o, "\nFILES THAT DIFFER (A/B)\n");
		if (top >= 0 && (long)nd > top)
			continue;
		/* exact bytes: a humanized size hides a short read */
		fprintf(o, "  read %" PRIu64 "/%" PRIu64 " ops %" PRIu64 "/%" PRIu64 " B  write %"
			PRIu64 "/%" PRIu64 " ops %" PRIu64 "/%" PRIu64 " B%s  ", f->rops[0],
			f->rops[1], f->rbytes[0], f->rbytes[1], f->wops[0], f->wops[1],
			f->wbytes[0], f->wbytes[1],
			!f->seen[1] ? "  [not in B]" : !f->seen[0] ? "  [not in A]" : "");
		cm_put_escaped(o, f->key, 0);
		fputc('\n', o);
	}
	t_more(o, nd, top, "files");
}

static void t_files(FILE *o, const struct ana_cmp *c)
{
	size_t nd = 0;
	for (size_t i = 0; i < c->nf; i++)
		nd += ana_cmp_file_differs(&c->f[i]);
	fprintf(o, "\nFILES\n  %zu compared, %zu equal in ops and bytes, %zu differ\n", c->nf,
		c->nf - nd, nd);
}

/* --check */
static void t_check(FILE *o, const struct ana_checks *k)
{
	fprintf(o, "\nCHECK (B reproduces A)\n");
	ana_checks_print(o, k);
}

/* The sections in order; CHECK only with k (--check). */
void ana_cmp_text(FILE *o, const struct ana_cmp *c, const struct ana_checks *k, long top)
{
	t_header(o, c);
	t_summary(o, c);
	t_kinds(o, c);
	t_pattern(o, c);
	t_sizes(o, c, ANA_CG_DATA, "REQUEST SIZES (data set)");
	t_sizes(o, c, ANA_CG_OTHER, "REQUEST SIZES (other files)");
	t_cache(o, c);
	t_compute(o, c, top);
	t_differ(o, c, top);
	t_files(o, c);
	if (k)
		t_check(o, k);
}

/* ---------------------------------------------------------------- JSON */

static json_t *jreal(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

/* {"a": x, "b": y, "diff": y - x, "rel": (y - x) / x} */
static json_t *j_pair_u64(uint64_t a, uint64_t b)
{
	json_t *o = json_object();
	json_object_set_new(o, "a", cm_json_u64(a));
	json_object_set_new(o, "b", cm_json_u64(b));
	json_object_set_new(o, "diff", json_real((double)b - (double)a));
	json_object_set_new(o, "rel", jreal(ana_rel_diff((double)a, (double)b)));
	return o;
}

static json_t *j_pair_real(double a, double b, int rel)
{
	json_t *o = json_object();
	json_object_set_new(o, "a", jreal(a));
	json_object_set_new(o, "b", jreal(b));
	json_object_set_new(o, "diff", jreal(b - a));
	if (rel)
		json_object_set_new(o, "rel", jreal(ana_rel_diff(a, b)));
	return o;
}

/* The traces and what is counted of them. */
static json_t *j_traces(const struct ana_cmp *c)
{
	json_t *x = json_object();
	json_object_set_new(x, "a", cm_json_str(c->path[0]));
	json_object_set_new(x, "b", cm_json_str(c->path[1]));
	json_object_set_new(x, "map", c->o.under ? cm_json_str(c->o.under) : json_null());
	json_object_set_new(x, "excluded_files_a", cm_json_u64(c->excluded[0]));
	json_object_set_new(x, "excluded_files_b", cm_json_u64(c->excluded[1]));
	json_object_set_new(x, "fault_reads_a", cm_json_u64(c->fault_reads));
	json_object_set_new(x, "fault_read_bytes_a", cm_json_u64(c->fault_bytes));
	json_object_set_new(x, "mapped_only_files_a", cm_json_u64(c->fault_only));
	return x;
}

static json_t *j_summary(const struct ana_cmp *c)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];
	json_t *x = json_object();
	json_object_set_new(x, "duration_s", j_pair_real(duration_ns(a) / 1e9, duration_ns(b) / 1e9, 1));
	json_object_set_new(x, "read_ops", j_pair_u64(a->sys.read_ops, b->sys.read_ops));
	json_object_set_new(x, "read_bytes", j_pair_u64(a->sys.read_bytes, b->sys.read_bytes));
	json_object_set_new(x, "write_ops", j_pair_u64(a->sys.write_ops, b->sys.write_ops));
	json_object_set_new(x, "write_bytes", j_pair_u64(a->sys.write_bytes, b->sys.write_bytes));
	json_t *m = json_object();
	for (unsigned kd = CM_META_FIRST; kd < CM_KIND_MAX; kd++)
		json_object_set_new(m, cm_kind_name(kd),
				    j_pair_u64(a->sys.meta_ops[kd], b->sys.meta_ops[kd]));
	json_object_set_new(x, "metadata_ops", m);
	return x;
}

static json_t *j_kinds(const struct ana_cmp *c)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];
	json_t *x = json_object();
	for (unsigned op = 0; op < TAPE_OP_MAX; op++) {
		if (!a->sys.op_ops[op] && !b->sys.op_ops[op])
			continue;
		json_t *y = json_object();
		json_object_set_new(y, "ops", j_pair_u64(a->sys.op_ops[op], b->sys.op_ops[op]));
		json_object_set_new(y, "bytes", j_pair_u64(a->sys.op_bytes[op], b->sys.op_bytes[op]));
		json_object_set_new(x, tape_op_name(op), y);
	}
	return x;
}

/* {"a": A, "b": B, ...} of two counts that may be unknown (NaN): null. */
static json_t *j_pair_opt(double a, double b)
{
	if (isnan(a) || isnan(b))
		return j_pair_real(a, b, 1);
	return j_pair_u64((uint64_t)a, (uint64_t)b);
}

static json_t *j_sizes(const struct ana_cmp_group *g)
{
	json_t *h = json_array();
	for (unsigned i = 0; i < ANA_SZ_BUCKETS; i++) {
		if (!size_class_used(g, i))
			continue;
		json_t *y = json_object();
		json_object_set_new(y, "min", cm_json_u64(i ? 1ull << (i - 1) : 0));
		json_object_set_new(y, "max", i == 64 ? json_real(18446744073709551615.0) :
				    cm_json_u64(i ? (1ull << i) - 1 : 0));
		json_object_set_new(y, "reads", j_pair_u64(g->rd_hist[0][i], g->rd_hist[1][i]));
		json_object_set_new(y, "writes", j_pair_u64(g->wr_hist[0][i], g->wr_hist[1][i]));
		json_array_append_new(h, y);
	}
	return h;
}

/* The access pattern, with the request sizes. */
static json_t *j_pattern(const struct ana_cmp *c)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];
	json_t *x = json_object();
	double ta, tb;
	json_object_set_new(x, "read_randomness",
			    j_pair_real(ana_read_randomness(a), ana_read_randomness(b), 0));
	json_object_set_new(x, "sequential_read_fraction",
			    j_pair_real(ana_seq_read_fraction(a), ana_seq_read_fraction(b), 0));
	double fa = ana_file_order_randomness(a, &ta), fb = ana_file_order_randomness(b, &tb);
	json_object_set_new(x, "file_order_randomness", j_pair_real(fa, fb, 0));
	json_object_set_new(x, "epochs", j_pair_opt(epochs_of(c, 0), epochs_of(c, 1)));
	json_object_set_new(x, "request_size_histogram", j_sizes(&c->g[ANA_CG_ALL]));
	return x;
}

static json_t *j_cache(const struct ana_cmp *c, int gi)
{
	const struct ana_cmp_group *g = &c->g[gi];
	json_t *x = json_object();
	json_object_set_new(x, "hit_ratio", j_pair_real(hit(g->acc[0], g->miss[0], c->have_cache[0]),
							 hit(g->acc[1], g->miss[1], c->have_cache[1]), 0));
	json_object_set_new(x, "pages_accessed", j_pair_u64(g->acc[0], g->acc[1]));
	json_object_set_new(x, "pages_missed", j_pair_u64(g->miss[0], g->miss[1]));
	return x;
}

/* "dataset" (gi ANA_CG_DATA) or "other_files". */
static json_t *j_group(const struct ana_cmp *c, int gi)
{
	const struct ana_cmp_group *g = &c->g[gi];
	json_t *x = json_object();
	json_object_set_new(x, "files", j_pair_u64(g->files[0], g->files[1]));
	json_object_set_new(x, "read_ops", j_pair_u64(g->rops[0], g->rops[1]));
	json_object_set_new(x, "read_bytes", j_pair_u64(g->rbytes[0], g->rbytes[1]));
	json_object_set_new(x, "read_randomness",
			    j_pair_real(side_ratio(g->nonconsec, g->pairs, 0),
					side_ratio(g->nonconsec, g->pairs, 1), 0));
	json_object_set_new(x, "sequential_read_fraction",
			    j_pair_real(side_ratio(g->seq, g->pairs, 0), side_ratio(g->seq, g->pairs, 1), 0));
	if (gi == ANA_CG_DATA) {
		double ta, tb;
		json_object_set_new(x, "file_order_randomness",
				    j_pair_real(ana_file_order_randomness(&c->a[0], &ta),
						ana_file_order_randomness(&c->a[1], &tb), 0));
		json_object_set_new(x, "epochs", j_pair_opt(epochs_of(c, 0), epochs_of(c, 1)));
	}
	json_object_set_new(x, "request_size_histogram", j_sizes(g));
	json_object_set_new(x, "cache", j_cache(c, gi));
	return x;
}

static json_t *j_compute(const struct ana_cmp *c)
{
	json_t *x = json_object();
	json_object_set_new(x, "gap_s", j_pair_real(c->gap[0] / 1e9, c->gap[1] / 1e9, 1));
	json_object_set_new(x, "io_s", j_pair_real(c->io[0] / 1e9, c->io[1] / 1e9, 1));
	json_t *th = json_array();
	size_t nt = thread_rows(c);
	for (size_t i = 0; i < nt; i++) {
		const struct ana_thread *p = thread_at(c, 0, i), *q = thread_at(c, 1, i);
		json_t *y = json_object();
		json_object_set_new(y, "tid", json_pack("{s:o,s:o}", "a", p ? cm_json_u64(p->tid) : json_null(),
							"b", q ? cm_json_u64(q->tid) : json_null()));
		json_object_set_new(y, "gap_s", j_pair_real(p ? p->gap_ns / 1e9 : NAN,
							    q ? q->gap_ns / 1e9 : NAN, 1));
		json_object_set_new(y, "io_s", j_pair_real(p ? p->io_ns / 1e9 : NAN,
							   q ? q->io_ns / 1e9 : NAN, 1));
		json_object_set_new(y, "read_bytes", j_pair_u64(p ? p->read_bytes : 0, q ? q->read_bytes : 0));
		json_object_set_new(y, "write_bytes", j_pair_u64(p ? p->write_bytes : 0, q ? q->write_bytes : 0));
		json_array_append_new(th, y);
	}
	json_object_set_new(x, "threads", th);
	return x;
}

static json_t *j_files(const struct ana_cmp *c)
{
	json_t *fs = json_array();
	for (size_t i = 0; i < c->nf; i++) {
		const struct ana_cmp_file *f = &c->f[i];
		json_t *y = json_object();
		json_object_set_new(y, "path", cm_json_str(f->key));
		json_object_set_new(y, "in_a", json_boolean(f->seen[0]));
		json_object_set_new(y, "in_b", json_boolean(f->seen[1]));
		json_object_set_new(y, "dataset", json_boolean(f->dataset));
		json_object_set_new(y, "read_ops", j_pair_u64(f->rops[0], f->rops[1]));
		json_object_set_new(y, "read_bytes", j_pair_u64(f->rbytes[0], f->rbytes[1]));
		json_object_set_new(y, "write_ops", j_pair_u64(f->wops[0], f->wops[1]));
		json_object_set_new(y, "write_bytes", j_pair_u64(f->wbytes[0], f->wbytes[1]));
		json_object_set_new(y, "hit_ratio", j_pair_real(hit(f->acc[0], f->miss[0], c->have_cache[0]),
								hit(f->acc[1], f->miss[1], c->have_cache[1]), 0));
		json_array_append_new(fs, y);
	}
	return fs;
}

static json_t *j_fidelity(const struct ana_checks *k)
{
	json_t *ck = json_array();
	for (size_t i = 0; i < k->n; i++) {
		/* cm_json_str: json_pack's "s" refuses a path that is not
		 * UTF-8, and the check would be left out */
		json_t *y = json_object();

		json_object_set_new(y, "name", cm_json_str(k->v[i].name));
		json_object_set_new(y, "ok", json_boolean(k->v[i].ok));
		json_object_set_new(y, "detail", cm_json_str(k->v[i].detail));
		json_array_append_new(ck, y);
	}
	json_t *x = json_object();
	json_object_set_new(x, "passed", json_boolean(!k->failed));
	json_object_set_new(x, "checks", ck);
	return x;
}

/* The top-level keys in order. */
int ana_cmp_json(FILE *out, const struct ana_cmp *c, const struct ana_checks *k)
{
	json_t *root = json_object();

	json_object_set_new(root, "schema", json_string("iotape-compare/1"));
	json_object_set_new(root, "traces", j_traces(c));
	json_object_set_new(root, "summary", j_summary(c));
	json_object_set_new(root, "kinds", j_kinds(c));
	json_object_set_new(root, "dataset", j_group(c, ANA_CG_DATA));
	json_object_set_new(root, "other_files", j_group(c, ANA_CG_OTHER));
	json_object_set_new(root, "pattern", j_pattern(c));
	json_object_set_new(root, "cache", j_cache(c, ANA_CG_ALL));
	json_object_set_new(root, "compute", j_compute(c));
	json_object_set_new(root, "files", j_files(c));
	json_object_set_new(root, "fidelity", j_fidelity(k));

	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(root);
	return rc ? -ENOMEM : 0;
}

