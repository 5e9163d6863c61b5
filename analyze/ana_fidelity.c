/* SPDX-License-Identifier: MIT */
/*
 * ana_fidelity.c - the fidelity checks (ana_compare.h): does B, the
 * recording of `iotape replay` of A, reproduce A (`compare --check`,
 * `report --compare`; man/iotape-compare(1), CHECKS)?  Does a model, B the
 * recording of its replay, reproduce the trace A it was derived from
 * (`model --check`; man/iotape-model(1), CHECK)?  This is the only place
 * that decides them and their thresholds, and the pass/fail list they go
 * into.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "ana_compare.h"
#include "fmt.h"
#include "ops.h"

/* ----------------------------------------------------------- the list */

void ana_check_add(struct ana_checks *k, const char *name, int ok, const char *fmt, ...)
{
	struct ana_check *c;
	va_list ap;

	k->failed += !ok;
	if (k->n == ANA_CHECKS_MAX) {
		k->failed += ok;	/* not kept: not passed either */
		return;
	}
	c = &k->v[k->n++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->ok = ok;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

void ana_checks_print(FILE *o, const struct ana_checks *k)
{
	int w = 16;

	for (size_t i = 0; i < k->n; i++)
		if ((int)strlen(k->v[i].name) > w)
			w = (int)strlen(k->v[i].name);
	for (size_t i = 0; i < k->n; i++) {	/* a detail may hold a path */
		fprintf(o, "  %-4s %-*s ", k->v[i].ok ? "ok" : "FAIL", w, k->v[i].name);
		cm_put_escaped(o, k->v[i].detail, 0);
		fputc('\n', o);
	}
	fprintf(o, "  %s: %d of %zu checks failed\n", k->failed ? "FAILED" : "PASSED",
		k->failed, k->n);
}

double ana_rel_diff(double a, double b)
{
	if (a == b)
		return 0;
	return a ? (b - a) / a : INFINITY;
}

/* ------------------------------------------------------------- checks */

int ana_cmp_file_differs(const struct ana_cmp_file *f)
{
	return f->rops[0] != f->rops[1] || f->rbytes[0] != f->rbytes[1] ||
	       f->wops[0] != f->wops[1] || f->wbytes[0] != f->wbytes[1];
}

static uint64_t duration_ns(const struct ana *a)
{
	return ana_trace_end(a) - a->t0;
}

static void check_count(struct ana_checks *k, const char *name, uint64_t a, uint64_t b)
{
	ana_check_add(k, name, a == b, "A %" PRIu64 ", B %" PRIu64 " (must be equal)", a, b);
}

/* Every file's ops and bytes equal; else how many differ, and the first. */
static void check_files(const struct ana_cmp *c, struct ana_checks *k)
{
	size_t bad = 0, only_a = 0, only_b = 0;
	const struct ana_cmp_file *first = NULL;

	for (size_t i = 0; i < c->nf; i++) {
		const struct ana_cmp_file *f = &c->f[i];
		if (!ana_cmp_file_differs(f))
			continue;
		bad++;
		only_a += !f->seen[1];
		only_b += !f->seen[0];
		if (!first)
			first = f;
	}
	if (bad) {
		/* the path cut to 60 bytes, not inside a UTF-8 character */
		int cut = (int)cm_utf8_cut(first->key, 60);

		ana_check_add(k, "files", 0, "%zu of %zu files differ in read/write ops or bytes "
			      "(%zu not in B, %zu not in A; first: %.*s%s)", bad, c->nf, only_a,
			      only_b, cut, first->key, first->key[cut] ? "..." : "");
	} else {
		ana_check_add(k, "files", 1, "%zu files: equal read/write ops and bytes", c->nf);
	}
}

/* Metadata ops per kind, as the replay issues them (stat, getdents, ...). */
static void check_metadata(const struct ana *a, const struct ana *b, struct ana_checks *k)
{
	char d[160];
	size_t n = 0;
	int ok = 1;

	d[0] = 0;
	for (unsigned kd = CM_META_FIRST; kd < CM_KIND_MAX && n < sizeof(d); kd++) {
		uint64_t x = a->sys.meta_ops[kd], y = b->sys.meta_ops[kd];
		ok &= x == y;
		if (x || y)	/* the kinds either side has */
			n += (size_t)snprintf(d + n, sizeof(d) - n, "%s%s A %" PRIu64
					      ", B %" PRIu64, n ? "; " : "",
					      cm_kind_name(kd), x, y);
	}
	ana_check_add(k, "metadata_ops", ok, "%s (must be equal)", n ? d : "none on either side");
}

/* Read randomness, of the data set and of the other files: with page
 * faults replayed as reads, over the files without them (B's reads of a
 * mapped data file include the faults, in fault order, which A's syscall
 * reads do not). */
static void check_randomness(const struct ana_cmp *c, struct ana_checks *k)
{
	char det[2][80];
	int ok = 1;

	for (int gi = ANA_CG_DATA; gi <= ANA_CG_OTHER; gi++) {
		const struct ana_cmp_group *g = &c->g[gi];
		const uint64_t *p = c->fault_reads ? g->pairs_nf : g->pairs;
		const uint64_t *n = c->fault_reads ? g->nonconsec_nf : g->nonconsec;
		double ra = p[0] ? (double)n[0] / (double)p[0] : NAN;
		double rb = p[1] ? (double)n[1] / (double)p[1] : NAN;
		const char *what = gi == ANA_CG_DATA ? "data set" : "other files";
		if (isnan(ra) && isnan(rb)) {
			snprintf(det[gi], sizeof(det[gi]), "%s n/a", what);
		} else {
			ok &= !isnan(ra) && !isnan(rb) && fabs(rb - ra) <= ANA_CHK_RANDOMNESS;
			snprintf(det[gi], sizeof(det[gi]), "%s A %.4f, B %.4f", what, ra, rb);
		}
	}
	ana_check_add(k, "read_randomness", ok, "%s; %s (within %.2f%s)", det[0], det[1],
		      ANA_CHK_RANDOMNESS, c->fault_reads ? ", files without page-fault reads" : "");
}

static void check_sizes(const struct ana_cmp *c, struct ana_checks *k)
{
	size_t hb[2] = { 0 };

	for (int gi = ANA_CG_DATA; gi <= ANA_CG_OTHER; gi++)
		for (unsigned i = 0; i < ANA_SZ_BUCKETS; i++) {
			const struct ana_cmp_group *g = &c->g[gi];
			hb[gi] += g->rd_hist[0][i] != g->rd_hist[1][i] ||
				  g->wr_hist[0][i] != g->wr_hist[1][i];
		}
	if (hb[0] + hb[1])
		ana_check_add(k, "request_sizes", 0, "%zu size classes of the data set and %zu of "
			      "the other files differ (must be identical)", hb[0], hb[1]);
	else
		ana_check_add(k, "request_sizes", 1, "identical");
}

/* A time of A and B within a relative threshold. */
static void check_time(struct ana_checks *k, const char *name, uint64_t a, uint64_t b,
		       double max)
{
	char x[32], y[32];
	double d = ana_rel_diff((double)a, (double)b);

	cm_fmt_ns(x, sizeof(x), a);
	cm_fmt_ns(y, sizeof(y), b);
	ana_check_add(k, name, fabs(d) <= max, "A %s, B %s, %+.1f%% (within %.0f%%)",
		      x, y, 100 * d, 100 * max);
}

void ana_cmp_checks(const struct ana_cmp *c, struct ana_checks *k)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];

	check_count(k, "read_ops", a->sys.read_ops, b->sys.read_ops);
	check_count(k, "read_bytes", a->sys.read_bytes, b->sys.read_bytes);
	check_count(k, "write_ops", a->sys.write_ops, b->sys.write_ops);
	check_count(k, "write_bytes", a->sys.write_bytes, b->sys.write_bytes);
	check_files(c, k);
	if (c->metadata)
		check_metadata(a, b, k);
	check_randomness(c, k);
	check_sizes(c, k);
	check_time(k, "compute_gap", c->gap[0], c->gap[1], ANA_CHK_GAP);
	check_time(k, "duration", duration_ns(a), duration_ns(b), ANA_CHK_DURATION);
}

/* --------------------------------------------------------- model --check */

int ana_model_side(const struct ana *a, int model, struct ana_model_side *s)
{
	const struct ana_train *tr = &a->train;
	double tau;
	int err;

	memset(s, 0, sizeof(*s));
	s->au_dlio = s->au_run = NAN;
	s->tid = tr->tid;
	s->epochs_known = ana_epochs_known(a) && ana_epoch_count(a);
	s->epochs = s->epochs_known ? ana_epoch_count(a) : 1;
	s->files = a->ds.files;
	s->read_bytes = a->ds.read_bytes;
	s->rd_hist = a->ds.rd_hist;
	s->rand = ana_group_randomness(&a->ds);
	s->order_rand = ana_file_order_randomness(a, &tau);
	if (!model && tr->found && !s->files && a->nckpts) {
		/* checkpoints only: a step per checkpoint, as the model */
		s->step_s = tr->work_ns / 1e9 / (double)a->nckpts;
	} else if (!model && tr->found && tr->steps) {	/* A: the trace's own steps */
		uint64_t n = 0;

		for (size_t k = 0; k < tr->nep; k++)
			n += tr->ep[k].steps;
		s->step_s = tr->step_mean_ms / 1e3;
		s->batch = n ? (double)s->files * (double)tr->nep / (double)n : NAN;
	}
	if (a->mmap_file == ANA_NONE)
		return 0;
	/* read through mmap: the data set's reads are its page faults, and
	 * its epochs the generations of threads that fault it in */
	if ((err = ana_mmap_reads(a, &s->mm)))
		return err;
	if (!s->mm.files)
		return 0;
	s->mmap = 1;
	s->epochs_known = s->mm.epochs > 0;
	s->epochs = s->mm.epochs ? s->mm.epochs : 1;
	s->files = s->mm.files;
	s->read_bytes = s->mm.bytes;
	s->rd_hist = s->mm.rd_hist;
	s->rand = s->mm.rd_pairs ? (double)s->mm.rd_nonconsec / (double)s->mm.rd_pairs : NAN;
	s->order_rand = NAN;	/* not told by faults */
	return 0;
}

/* Total variation distance of two size histograms (0: equal shares, 1:
 * disjoint); NAN when both are empty. */
static double tvd(const uint64_t *a, const uint64_t *b)
{
	double na = 0, nb = 0, d = 0;

	for (int i = 0; i < ANA_SZ_BUCKETS; i++) {
		na += (double)a[i];
		nb += (double)b[i];
	}
	if (!na && !nb)
		return NAN;
	if (!na || !nb)
		return 1;
	for (int i = 0; i < ANA_SZ_BUCKETS; i++)
		d += fabs((double)a[i] / na - (double)b[i] / nb);
	return d / 2;
}

static void check_near(struct ana_checks *k, const char *name, double a, double b, double max)
{
	char x[32], y[32];

	if (isnan(a) && isnan(b)) {
		ana_check_add(k, name, 1, "n/a on both sides");
		return;
	}
	snprintf(x, sizeof(x), isnan(a) ? "n/a" : "%.3f", a);
	snprintf(y, sizeof(y), isnan(b) ? "n/a" : "%.3f", b);
	ana_check_add(k, name, !isnan(a) && !isnan(b) && fabs(a - b) <= max,
		      "A %s, B %s (within %.2f)", x, y, max);
}

static void mcheck_reads(const struct ana_model_side *A, const struct ana_model_side *B,
			 struct ana_checks *k)
{
	double ba = (double)A->read_bytes / (double)A->epochs;
	double bb = (double)B->read_bytes / (double)B->epochs, d;

	d = ana_rel_diff(ba, bb);
	ana_check_add(k, "read_bytes_per_epoch", fabs(d) <= ANA_MCHK_BYTES,
		      "A %.0f (%zu epoch%s%s%s), B %.0f (%zu), %+.2f%% (within %.0f%%)", ba,
		      A->epochs, A->epochs == 1 ? "" : "s", A->epochs_known ? "" : ": not counted",
		      A->mmap ? ", page faults" : "", bb, B->epochs, 100 * d, 100 * ANA_MCHK_BYTES);
	ana_check_add(k, "files", A->files == B->files,
		      "A %" PRIu64 ", B %" PRIu64 " data set files read (must be equal)",
		      A->files, B->files);
	d = tvd(A->rd_hist, B->rd_hist);
	if (isnan(d))
		ana_check_add(k, "request_sizes", 1, "no data set reads on either side");
	else
		ana_check_add(k, "request_sizes", d <= ANA_MCHK_TVD, "data set reads: total "
			      "variation distance %.3f (at most %.2f)", d, ANA_MCHK_TVD);
	check_near(k, "read_randomness", A->rand, B->rand, ANA_MCHK_RAND);
	check_near(k, "file_order_randomness", A->order_rand, B->order_rand, ANA_MCHK_RAND);
}

static void mcheck_trainer(const struct ana_model_side *A, const struct ana_model_side *B,
			   struct ana_checks *k)
{
	double d;

	if (isnan(A->batch) || !A->batch)
		ana_check_add(k, "batch_size", 1, "n/a: no steps in counted epochs in the trace");
	else if (A->batch < 1 && !A->mmap)
		ana_check_add(k, "batch_size", 1, "n/a: the trainer takes %.2f files a step in the "
			      "trace: the samples inside a file are not seen in its I/O", A->batch);
	else
		d = ana_rel_diff(A->batch, B->batch),
		ana_check_add(k, "batch_size", fabs(d) <= ANA_MCHK_BATCH, "data set files per "
			      "step: A %.2f (tid %u), B %.2f, %+.1f%% (within %.0f%%)", A->batch,
			      A->tid, B->batch, 100 * d, 100 * ANA_MCHK_BATCH);
	if (!A->step_s)
		ana_check_add(k, "compute_per_step", 1, "n/a: no steps of the training thread");
	else
		d = ana_rel_diff(A->step_s, B->step_s),
		ana_check_add(k, "compute_per_step", fabs(d) <= ANA_MCHK_COMPUTE, "training "
			      "thread: A %.4f s (tid %u), B %.4f s, %+.1f%% (within %.0f%%)",
			      A->step_s, A->tid, B->step_s, 100 * d, 100 * ANA_MCHK_COMPUTE);
	/* like with like: DLIO's figure where both replays have one (the
	 * trace's epochs and the model's), else over the whole run */
	int dlio = !isnan(A->au_dlio) && !isnan(B->au_dlio);
	double aa = dlio ? A->au_dlio : A->au_run, ab = dlio ? B->au_dlio : B->au_run;
	ana_check_add(k, "accelerator_utilization", fabs(aa - ab) <= ANA_MCHK_AU,
		      "A %.3f, B %.3f, %+.1f points (within %.0f; %s)", aa, ab, 100 * (ab - aa),
		      100 * ANA_MCHK_AU, dlio ? "as DLIO" : "over the run");
}

void ana_model_checks(const struct ana_model_side *A, const struct ana_model_side *B,
		      struct ana_checks *k)
{
	mcheck_reads(A, B, k);
	mcheck_trainer(A, B, k);
}
