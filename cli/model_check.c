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

/* One side: its analysis, and the figures the checks compare
 * (analyze/ana_fidelity.c holds the checks and their thresholds). */
struct mc_side {
	struct ana a;
	int ok;			/* analysed */
	double au, compute_s;	/* from the replay's report */
	struct ana_model_side f;
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
	s->f.au_dlio = json_is_number(ad) ? json_number_value(ad) : NAN;
	s->f.au_run = json_is_number(ar) ? json_number_value(ar) : s->au;
	s->compute_s = json_number_value(json_object_get(pa, "compute_ns")) / 1e9;
	if (!s->f.step_s) {	/* B: the model's trainer, its steps in a loop */
		double st = json_number_value(json_object_get(sc, "steps_per_loop"));

		s->f.step_s = st > 0 ? s->compute_s / st : NAN;
		s->f.batch = st > 0 ? (double)s->f.files * (double)s->f.epochs / st : NAN;
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

	if (err) {
		cli_tape_error(path, err);
		return -1;
	}
	s->ok = 1;
	if ((err = ana_model_side(&s->a, under != NULL, &s->f))) {
		cli_tape_error(path, err);
		return -1;
	}
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
		s->f.epochs = j.epochs;
		s->f.epochs_known = 1;
	}
	return 0;
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
	if (report_read(p[1], &A, A.f.tid) || report_read(p[4], &B, 1))
		goto out;
	printf("CHECK (the model %s reproduces the trace %s)\n", job, trace);
	ana_model_checks(&A.f, &B.f, &k);
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
