/* SPDX-License-Identifier: MIT */
/*
 * model_check.c - `iotape model --check TRACE` (iotape-model(1), CHECK):
 * is the job file derived from a trace faithful to it?
 *
 * In a work directory W: the trace is replayed (as `iotape replay --timing
 * think`, report W/trace.json), the model W/model.ini is replayed the same
 * way and recorded (W/model.iotape, report W/model.json), each a replay
 * session (model_run.c: the model's in a child process this one records),
 * each run's messages in W/NAME.log.  Then the trace (A) and the recording (B, its files
 * under W/model only) go through the analysis, and the fidelity checks of
 * issue 17 compare them: the data set's read bytes per epoch, its files, its
 * request sizes (total variation distance), read and file-order
 * randomness, the training thread's batch size and its compute per step
 * (A: the trace's analysis, ana_train.c; B: the model's steps and its
 * trainer's compute in its replay's report), and from the two reports the
 * accelerator utilization.  The data set files have other names in the model, so
 * nothing is matched by path.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analyze.h"
#include "cli.h"
#include "ops.h"
#include "replay.h"

/* The thresholds (iotape-model(1), CHECK). */
#define MC_BYTES	0.02	/* read bytes per epoch: relative */
#define MC_TVD		0.10	/* request sizes: total variation distance */
#define MC_RAND		0.05	/* read and file-order randomness: absolute */
#define MC_COMPUTE	0.05	/* compute per step: relative */
#define MC_BATCH	0.05	/* batch size: relative */
#define MC_AU		0.02	/* accelerator utilization: absolute */

struct mc_side {
	struct ana a;
	int ok;			/* analysed */
	size_t epochs;		/* counted, or 1 when unknown */
	int epochs_known;
	uint32_t tid;		/* the training thread (ana_train.c) */
	double au, compute_s;	/* from the replay's report: AU as DLIO's where
				 * both sides have it (au_dlio), else over the
				 * run */
	double au_dlio, au_run;
	double step_s;		/* its compute per step */
	double batch;		/* data set samples (files) per step */
	/* the data set's reads: of the analysis, or (A, a data set read
	 * through mmap) of its page faults */
	uint64_t files, read_bytes;
	const uint64_t *rd_hist;
	double rand, order_rand;
	int mmap;
	struct ana_mmap mm;
};

/* The AU of a replay's JSON report (accelerator 0) and the compute of its
 * thread tid (the trace's training thread; the model's trainer, tid 1). */
static int report_read(const char *path, struct mc_side *s, uint32_t tid)
{
	json_error_t je;
	json_t *r = json_load_file(path, 0, &je), *sc, *pa = NULL, *j;
	size_t i;

	if (!r) {
		cli_error("%s: %s", path, je.text);
		return -1;
	}
	sc = json_object_get(r, "scale");
	json_array_foreach(json_object_get(r, "jobs"), i, j)
		if (json_integer_value(json_object_get(j, "tid")) == tid)
			pa = j;
	if (!json_is_number(json_object_get(sc, "au_min")) ||
	    !json_is_number(json_object_get(pa, "compute_ns"))) {
		cli_error("%s: no scale.au_min, or no compute_ns of thread %u", path, tid);
		json_decref(r);
		return -1;
	}
	s->au = json_number_value(json_object_get(sc, "au_min"));
	json_t *acc0 = json_array_get(json_object_get(sc, "per_accelerator"), 0);
	json_t *ad = json_object_get(acc0, "au_dlio"), *ar = json_object_get(acc0, "au_run");
	s->au_dlio = json_is_number(ad) ? json_number_value(ad) : NAN;
	s->au_run = json_is_number(ar) ? json_number_value(ar) : s->au;
	s->compute_s = json_number_value(json_object_get(pa, "compute_ns")) / 1e9;
	if (!s->step_s) {	/* B: the model's trainer, its steps in a loop */
		double st = json_number_value(json_object_get(sc, "steps_per_loop"));

		s->step_s = st > 0 ? s->compute_s / st : NAN;
		s->batch = st > 0 ? (double)s->files * (double)s->epochs / st : NAN;
	}
	json_decref(r);
	return 0;
}

/* ana_opts.skip of B: the replay's marker file under DIR is not the job's. */
static int skip_marker(const char *path, void *arg)
{
	const char *s = strrchr(path, '/');

	(void)arg;
	return s && !strcmp(s + 1, CM_REPLAY_MARKER);
}

static int analyse(struct mc_side *s, const char *path, const char *under)
{
	struct ana_opts o = { .to_ns = UINT64_MAX, .top = -1, .threads = 2,
			      .files_only = 1, .under = under, .replayed_io = 1,
			      .skip = under ? skip_marker : NULL };
	int err = ana_run(&s->a, path, &o);
	const struct ana_train *tr = &s->a.train;
	double tau;

	if (err) {
		cli_tape_error(path, err);
		return -1;
	}
	s->ok = 1;
	s->tid = tr->tid;
	s->epochs_known = ana_epochs_known(&s->a) && ana_epoch_count(&s->a);
	s->epochs = s->epochs_known ? ana_epoch_count(&s->a) : 1;
	s->files = s->a.ds.files;
	s->read_bytes = s->a.ds.read_bytes;
	s->rd_hist = s->a.ds.rd_hist;
	s->rand = ana_group_randomness(&s->a.ds);
	s->order_rand = ana_file_order_randomness(&s->a, &tau);
	if (!under && tr->found && !s->files && s->a.nckpts) {
		/* checkpoints only: a step per checkpoint, as the model */
		s->step_s = tr->work_ns / 1e9 / (double)s->a.nckpts;
	} else if (!under && tr->found && tr->steps) {	/* A: the trace's own steps */
		uint64_t n = 0;

		for (size_t k = 0; k < tr->nep; k++)
			n += tr->ep[k].steps;
		s->step_s = tr->step_mean_ms / 1e3;
		s->batch = n ? (double)s->files * (double)tr->nep / (double)n : NAN;
	}
	if (s->a.mmap_file == ANA_NONE)
		return 0;
	/* read through mmap: the data set's reads are its page faults, and
	 * its epochs the generations of threads that fault it in */
	if ((err = ana_mmap_reads(&s->a, &s->mm))) {
		cli_tape_error(path, err);
		return -1;
	}
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

/* B of a model with reader.mmap: each reader reads the data set's windows
 * it touches, so its reads cover the files once per reader and epoch; the
 * epochs are the model's. */
static int model_epochs(struct mc_side *s, const char *job)
{
	struct rp_jobspec j;
	char err[512];

	if (rp_jobspec_parse(&j, job, err, sizeof(err))) {
		cli_error("%s", err);
		return -1;
	}
	if (j.mmap) {
		s->epochs = j.epochs;
		s->epochs_known = 1;
	}
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

static void check_near(struct cli_checks *k, const char *name, double a, double b, double max)
{
	char x[32], y[32];

	if (isnan(a) && isnan(b)) {
		cli_check_add(k, name, 1, "n/a on both sides");
		return;
	}
	snprintf(x, sizeof(x), isnan(a) ? "n/a" : "%.3f", a);
	snprintf(y, sizeof(y), isnan(b) ? "n/a" : "%.3f", b);
	cli_check_add(k, name, !isnan(a) && !isnan(b) && fabs(a - b) <= max,
	       "A %s, B %s (within %.2f)", x, y, max);
}

static void checks(struct cli_checks *k, struct mc_side *A, struct mc_side *B)
{
	double ba = (double)A->read_bytes / (double)A->epochs;
	double bb = (double)B->read_bytes / (double)B->epochs, d;

	d = cli_rel_diff(ba, bb);
	cli_check_add(k, "read_bytes_per_epoch", fabs(d) <= MC_BYTES,
	       "A %.0f (%zu epoch%s%s%s), B %.0f (%zu), %+.2f%% (within %.0f%%)", ba, A->epochs,
	       A->epochs == 1 ? "" : "s", A->epochs_known ? "" : ": not counted",
	       A->mmap ? ", page faults" : "", bb, B->epochs, 100 * d, 100 * MC_BYTES);
	cli_check_add(k, "files", A->files == B->files,
	       "A %" PRIu64 ", B %" PRIu64 " data set files read (must be equal)",
	       A->files, B->files);
	d = tvd(A->rd_hist, B->rd_hist);
	if (isnan(d))
		cli_check_add(k, "request_sizes", 1, "no data set reads on either side");
	else
		cli_check_add(k, "request_sizes", d <= MC_TVD, "data set reads: total variation distance "
		       "%.3f (at most %.2f)", d, MC_TVD);
	check_near(k, "read_randomness", A->rand, B->rand, MC_RAND);
	check_near(k, "file_order_randomness", A->order_rand, B->order_rand, MC_RAND);
	if (isnan(A->batch) || !A->batch)
		cli_check_add(k, "batch_size", 1, "n/a: no steps in counted epochs in the trace");
	else if (A->batch < 1 && !A->mmap)
		cli_check_add(k, "batch_size", 1, "n/a: the trainer takes %.2f files a step in the "
			      "trace: the samples inside a file are not seen in its I/O", A->batch);
	else
		d = cli_rel_diff(A->batch, B->batch),
		cli_check_add(k, "batch_size", fabs(d) <= MC_BATCH, "data set files per step: "
		       "A %.2f (tid %u), B %.2f, %+.1f%% (within %.0f%%)", A->batch, A->tid,
		       B->batch, 100 * d, 100 * MC_BATCH);
	if (!A->step_s)
		cli_check_add(k, "compute_per_step", 1, "n/a: no steps of the training thread");
	else
		d = cli_rel_diff(A->step_s, B->step_s),
		cli_check_add(k, "compute_per_step", fabs(d) <= MC_COMPUTE, "training thread: "
		       "A %.4f s (tid %u), B %.4f s, %+.1f%% (within %.0f%%)", A->step_s, A->tid,
		       B->step_s, 100 * d, 100 * MC_COMPUTE);
	/* like with like: DLIO's figure where both replays have one (the
	 * trace's epochs and the model's), else over the whole run */
	int dlio = !isnan(A->au_dlio) && !isnan(B->au_dlio);
	double aa = dlio ? A->au_dlio : A->au_run, ab = dlio ? B->au_dlio : B->au_run;
	cli_check_add(k, "accelerator_utilization", fabs(aa - ab) <= MC_AU,
	       "A %.3f, B %.3f, %+.1f points (within %.0f; %s)", aa, ab, 100 * (ab - aa),
	       100 * MC_AU, dlio ? "as DLIO" : "over the run");
}

/* Each replay starts with no dirty data of the one before on the work
 * directory's file system: the model's replay would else pay for the
 * writeback of the trace's (a checkpoint job writes 600 MB each), and
 * the AU check would compare the storage's state, not the model. */
static void settle(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		syncfs(fd);
		close(fd);
	}
}

int model_check(const char *trace, const char *dir, const char *job)
{
	char p[6][PATH_MAX], *under = NULL;
	struct mc_side A = { 0 }, B = { 0 };
	struct cli_checks k = { 0 };
	int rc, ret = EXIT_FAIL;

	snprintf(p[0], PATH_MAX, "%s/trace", dir);
	snprintf(p[1], PATH_MAX, "%s/trace.json", dir);
	snprintf(p[2], PATH_MAX, "%s/trace.log", dir);
	snprintf(p[3], PATH_MAX, "%s/model", dir);
	snprintf(p[4], PATH_MAX, "%s/model.json", dir);
	snprintf(p[5], PATH_MAX, "%s/model.log", dir);

	settle(dir);
	fprintf(stderr, "iotape model: replaying the trace (--timing think) under %s\n", p[0]);
	if ((rc = model_replay(trace, p[0], p[1], p[2])) != 0) {
		if (rc > 0)
			cli_error("the replay of the trace failed (exit %d): see %s", rc, p[2]);
		return EXIT_FAIL;
	}
	char rec[PATH_MAX];
	snprintf(rec, sizeof(rec), "%s/model.iotape", dir);
	settle(dir);
	fprintf(stderr, "iotape model: replaying the model %s under %s, recorded\n", job, p[3]);
	if ((rc = model_replay_recorded(job, p[3], p[4], p[5], rec)) != 0) {
		if (rc > 0)
			cli_error("the recorded replay of the model failed (exit %d): see %s",
				  rc, p[5]);
		return EXIT_FAIL;
	}
	if (!(under = realpath(p[3], NULL))) {
		cli_error("%s: %s", p[3], strerror(errno));
		return EXIT_FAIL;
	}
	if (analyse(&A, trace, NULL) || analyse(&B, rec, under) || model_epochs(&B, job))
		goto out;
	if (report_read(p[1], &A, A.tid) || report_read(p[4], &B, 1))
		goto out;
	printf("CHECK (the model %s reproduces the trace %s)\n", job, trace);
	checks(&k, &A, &B);
	cli_checks_print(stdout, &k);
	if (k.failed)
		cli_error("fidelity check failed (work directory %s)", dir);
	ret = k.failed ? EXIT_FAIL : EXIT_OK;
out:
	if (A.ok)
		ana_release(&A.a);
	if (B.ok)
		ana_release(&B.a);
	free(under);
	return ret;
}
