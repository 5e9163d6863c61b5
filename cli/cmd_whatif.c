/* SPDX-License-Identifier: MIT */
/*
 * cmd_whatif.c - `iotape whatif TRACE -d DIR [--fast FAST_DIR]`: what
 * would a change of storage layout or of the input pipeline buy this job
 * on this storage (iotape-whatif(1))?
 *
 * The baseline and each what-if that applies to the trace are replays of
 * it by this very program (cli_run_self), one after the other, each
 * bounded by --runtime and, as root, started on a dropped page cache:
 *   stage-hot     --stage-hot FAST --stage-size SIZE   (the trace reads files; --fast)
 *   burst-buffer  --burst-buffer FAST --drain          (the trace checkpoints; --fast)
 *   readers-2x/4x --reader-threads 2R / 4R             (R recorded reader threads)
 *   loaders-2x    --loader-cpu-scale 2                 (the trace's data loaders)
 * Their JSON reports (in a work directory, kept when a run fails) give one
 * table: AU, job time, read bandwidth, checkpoint time, and the change
 * against the baseline.  A run cut by --runtime gives a job time scaled up
 * by the share of the trace's ops it did, marked as an estimate.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "analyze.h"
#include "cli.h"
#include "fmt.h"
#include "opt.h"
#include "replay.h"

enum {
	O_FAST = OPT_LONG(0),
	O_RUNTIME = OPT_LONG(1),
	O_STAGE_SIZE = OPT_LONG(2),
	O_FORMAT = OPT_LONG(3),
	O_KEEP_CACHES = OPT_LONG(4),
	O_KEEP = OPT_LONG(5),
};

struct whatif_cfg {
	const char *dir, *fast, *out;
	uint64_t runtime_ns, stage_size;
	int json, force, keep_caches, keep;
};

static const struct opt whatif_opts[] = {
	{ 'd', "dir", "DIR", "replay under DIR (as replay -d): the baseline storage", NULL, NULL,
	  OPT_REQUIRED, OPT_T_STR(struct whatif_cfg, dir) },
	{ O_FAST, "fast", "FAST_DIR", "a faster tier (an existing directory): staging and burst-buffer what-ifs",
	  OPT_T_STR(struct whatif_cfg, fast) },
	{ O_RUNTIME, "runtime", "T", "bound each run to T (replay --runtime)", NULL, "60s",
	  0, OPT_T_DURATION(struct whatif_cfg, runtime_ns, 1000000, 86400ull * 1000000000) },
	{ O_STAGE_SIZE, "stage-size", "SIZE", "staging: room on FAST_DIR [default: the files carrying 80% of read bytes]",
	  OPT_T_SIZE(struct whatif_cfg, stage_size, 1, UINT64_MAX) },
	{ O_FORMAT, "output-format", "FORMAT", "table format", "normal|json", "normal",
	  0, OPT_T_CHOICE(struct whatif_cfg, json) },
	{ 'o', "output", "FILE", "write the table to FILE instead of stdout",
	  OPT_T_STR(struct whatif_cfg, out) },
	{ 'f', "force", NULL, "use a DIR that is neither empty nor prepared by iotape (replay -f)",
	  OPT_T_FLAG(struct whatif_cfg, force) },
	{ O_KEEP_CACHES, "keep-caches", NULL, "do not drop the page cache before each run",
	  OPT_T_FLAG(struct whatif_cfg, keep_caches) },
	{ O_KEEP, "keep", NULL, "keep the runs' reports and logs (their directory is printed)",
	  OPT_T_FLAG(struct whatif_cfg, keep) },
	{ 0 }
};

const struct opt_cmd whatif_cmd = {
	"whatif", "TRACE", "Replay a trace as it is and under what-ifs; one table of the gains.",
	"Runs the baseline (replay -d DIR) and each what-if that applies: the\n"
	"hot files staged on FAST_DIR, checkpoints through a burst buffer on\n"
	"FAST_DIR drained to DIR, 2x and 4x the recorded reader threads, the\n"
	"data loaders' work 2x faster (a trace with a sched table); each\n"
	"run bounded by --runtime, on a dropped page cache when run as root.\n"
	"Prints AU, job time, read bandwidth, checkpoint time and the change\n"
	"against the baseline.  See iotape-whatif(1).",
	whatif_opts,
};

#define WI_MAX 8
#define WI_ARGS 8

struct wi_run {
	char name[32];		/* "baseline", "stage-hot", ... */
	const char *says;	/* what its gain tells: "the storage holds
				 * back the data set's reads" */
	char what[96];		/* for people: "hot files on FAST (512 MiB)" */
	const char *args[WI_ARGS]; /* replay options of the what-if */
	char argbuf[2][48];
	/* from the report */
	int status;		/* exit status of the replay */
	char err[256];		/* its last line, when it failed */
	double au;
	double job_s;		/* wall time, or its estimate when cut */
	int estimated;
	double read_bw;		/* bytes/s */
	double ckpt_s;		/* time the job saw in checkpoints; < 0: none */
	uint64_t ops_failed;
};

struct wi {
	struct whatif_cfg cfg;
	const char *trace;
	char work[PATH_MAX - 64];	/* the runs' reports and logs */
	struct wi_run run[WI_MAX];
	size_t n;
	unsigned readers;	/* recorded reader threads, 0: none */
	int mapped;		/* the data set is read through a memory map */
	unsigned loaders;	/* threads that hand the training thread its
				 * data (a sched table), 0: none */
	size_t ckpts;
	uint64_t read_bytes;
};

static struct wi_run *wi_add(struct wi *w, const char *name)
{
	struct wi_run *r = &w->run[w->n++];

	snprintf(r->name, sizeof(r->name), "%s", name);
	r->ckpt_s = -1;
	return r;
}

/* The trace's facts the what-ifs need: its reader threads (as the
 * replay's reader what-if finds them), checkpoints and bytes read.  0, or
 * -1 after one error line. */
static int wi_facts(struct wi *w)
{
	struct rp_trace_opts to = { .reader_threads = 1 };
	struct ana_opts ao = { .top = -1, .to_ns = UINT64_MAX, .threads = 2 };
	struct rp_source *src = NULL;
	struct ana_staging stg;
	struct ana a;
	char err[256] = "";
	int rc;

	rc = ana_run(&a, w->trace, &ao);
	if (rc) {
		if (rc == -ENOMEM)
			cli_error("%s: out of memory", w->trace);
		else
			cli_tape_error(w->trace, rc);
		return -1;
	}
	/* the training thread, as the replay finds its loaders from it, and
	 * the data set, as its readers are found from it */
	if (a.train.found)
		to.train_tid = a.train.tid;
	const char **ds = calloc(a.nfiles + 1, sizeof(*ds));
	if (!ds) {
		cli_error("%s: out of memory", w->trace);
		ana_release(&a);
		return -1;
	}
	for (size_t i = 0; i < a.nfiles; i++)
		if (a.files[i].dataset && a.files[i].path)
			ds[to.ndataset++] = a.files[i].path;
	to.has_dataset = 1;
	to.dataset = ds;
	rc = rp_trace_open(&src, w->trace, &to, err, sizeof(err));
	free(ds);
	if (rc == 0) {
		w->readers = src->layout.readers_recorded;
		for (size_t i = 0; i < src->layout.nthreads; i++)
			w->loaders += src->layout.threads[i].loader;
	} else if (rc != -ENOENT) {
		cli_error("%s", err[0] ? err : strerror(-rc));
		ana_release(&a);
		return -1;
	}
	rp_source_free(src);
	uint64_t mb;
	w->mapped = ana_mmap_dataset(&a, &mb) != ANA_NONE;
	w->ckpts = a.nckpts;	/* ana_ckpt_find's, as analyze reports them */
	/* staging: the files that can be staged, and by default the room of
	 * the fewest that carry 80% of their reads */
	if ((rc = ana_staging_build(&a, &stg))) {
		cli_error("%s: out of memory", w->trace);
		ana_release(&a);
		return -1;
	}
	w->read_bytes = stg.read_bytes;
	for (size_t i = 0; i < ANA_STAGE_LEVELS; i++)
		if (!w->cfg.stage_size && stg.lv[i].pct == 80)
			w->cfg.stage_size = stg.lv[i].bytes;
	ana_staging_release(&stg);
	ana_release(&a);
	return 0;
}

/* The what-ifs that apply to this trace. */
static void wi_plan(struct wi *w)
{
	struct wi_run *r;
	char sz[32];

	wi_add(w, "baseline");
	snprintf(w->run[0].what, sizeof(w->run[0].what), "as recorded, under DIR");
	if (w->cfg.fast && w->read_bytes && w->cfg.stage_size) {
		r = wi_add(w, "stage-hot");
		cm_fmt_bytes(sz, sizeof(sz), w->cfg.stage_size);
		snprintf(r->what, sizeof(r->what), "hot files on FAST_DIR (%s)", sz);
		snprintf(r->argbuf[0], sizeof(r->argbuf[0]), "%" PRIu64, w->cfg.stage_size);
		r->says = "the storage holds back the data set's reads";
		r->args[0] = "--stage-hot";
		r->args[1] = w->cfg.fast;
		r->args[2] = "--stage-size";
		r->args[3] = r->argbuf[0];
	}
	if (w->cfg.fast && w->ckpts) {
		r = wi_add(w, "burst-buffer");
		snprintf(r->what, sizeof(r->what), "checkpoints to FAST_DIR, drained to DIR");
		r->says = "the storage holds back the checkpoints";
		r->args[0] = "--burst-buffer";
		r->args[1] = w->cfg.fast;
		r->args[2] = "--drain";
	}
	for (unsigned k = 2; w->readers && !w->mapped && k <= 4; k *= 2) {
		char name[32];

		snprintf(name, sizeof(name), "readers-%ux", k);
		r = wi_add(w, name);
		snprintf(r->what, sizeof(r->what), "%u reader threads (recorded %u)",
			 k * w->readers, w->readers);
		snprintf(r->argbuf[0], sizeof(r->argbuf[0]), "%u", k * w->readers);
		r->says = "the reads want more of them in flight";
		r->args[0] = "--reader-threads";
		r->args[1] = r->argbuf[0];
	}
	if (w->loaders) {
		r = wi_add(w, "loaders-2x");
		snprintf(r->what, sizeof(r->what), "data loaders' work 2x faster (%u thread%s)",
			 w->loaders, w->loaders == 1 ? "" : "s");
		r->says = "the job waits for its data loaders' CPUs, not for its storage";
		r->args[0] = "--loader-cpu-scale";
		r->args[1] = "2";
	}
}

/* The last non-empty line of a log, into buf. */
static void last_line(const char *log, char *buf, size_t len)
{
	FILE *f = fopen(log, "r");
	char line[512];

	snprintf(buf, len, "no output (see %.200s)", log);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			snprintf(buf, len, "%.240s", line);
	}
	fclose(f);
}

static double jnum(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The sum of an object's numbers (ops_expected, ops_done). */
static double jsum(json_t *o)
{
	const char *k;
	json_t *v;
	double s = 0;

	json_object_foreach(o, k, v)
		if (json_is_number(v))
			s += json_number_value(v);
	return s;
}

/* Fill r from its replay's JSON report: 0, or -1 with why in r->err. */
static int wi_report(struct wi_run *r, const char *path)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je), *sc, *rp;
	double done, expected, limit;

	if (!j) {
		snprintf(r->err, sizeof(r->err), "%.120s: %.120s", path, je.text);
		return -1;
	}
	sc = json_object_get(j, "scale");
	rp = json_object_get(j, "replay");
	r->au = jnum(sc, "au_min");
	r->job_s = jnum(sc, "runtime_ns") / 1e9;
	r->read_bw = jnum(sc, "read_bw_bytes");
	r->ops_failed = (uint64_t)jnum(rp, "ops_failed");
	r->ckpt_s = jnum(json_object_get(j, "burst_buffer"), "seen_s");
	if (isnan(r->ckpt_s))
		r->ckpt_s = -1;
	limit = jnum(sc, "runtime_limit_ns");
	done = jsum(json_object_get(rp, "ops_done"));
	expected = jsum(json_object_get(rp, "ops_expected"));
	if (isnan(r->au) || isnan(r->job_s) || isnan(r->read_bw)) {
		snprintf(r->err, sizeof(r->err), "%.120s: no scale.au_min, runtime_ns or read_bw_bytes",
			 path);
		json_decref(j);
		return -1;
	}
	/* cut by --runtime: the whole job's time at the pace of this run */
	if (!isnan(limit) && limit > 0 && done > 0 && done < expected) {
		r->job_s *= expected / done;
		r->estimated = 1;
	}
	json_decref(j);
	return 0;
}

/* Run one replay: 0 (r filled, or r->status/err saying how it failed), or
 * -1 after one error line (nothing could be run). */
static int wi_run_one(struct wi *w, struct wi_run *r, size_t i)
{
	char rep[PATH_MAX], log[PATH_MAX];
	const char *args[32];
	size_t n = 0;
	int st;

	snprintf(rep, sizeof(rep), "%s/%s.json", w->work, r->name);
	snprintf(log, sizeof(log), "%s/%s.log", w->work, r->name);
	char rt[32];
	snprintf(rt, sizeof(rt), "%.9gs", w->cfg.runtime_ns / 1e9);
	args[n++] = "replay";
	args[n++] = "-d";
	args[n++] = w->cfg.dir;
	args[n++] = "--runtime";
	args[n++] = rt;
	args[n++] = "--output-format";
	args[n++] = "json";
	args[n++] = "-o";
	args[n++] = rep;
	if (w->cfg.force)
		args[n++] = "-f";
	if (!w->cfg.keep_caches && geteuid() == 0)
		args[n++] = "--drop-caches";
	for (size_t k = 0; k < WI_ARGS && r->args[k]; k++)
		args[n++] = r->args[k];
	/* the checkpoints' time, where no what-if moves them: DIR as its own
	 * burst buffer (nothing moves; replay's checkpoint hook times them) */
	if (w->ckpts && (!r->args[0] || !strcmp(r->args[0], "--reader-threads") ||
			 !strcmp(r->args[0], "--loader-cpu-scale"))) {
		args[n++] = "--burst-buffer";
		args[n++] = w->cfg.dir;
	}
	args[n++] = w->trace;
	args[n] = NULL;
	fprintf(stderr, "whatif: [%zu/%zu] %s: %s\n", i + 1, w->n, r->name, r->what);
	st = cli_run_self(log, (char *const *)args);
	if (st < 0)
		return -1;
	r->status = st;
	if (st != 0) {
		last_line(log, r->err, sizeof(r->err));
		return 0;
	}
	if (wi_report(r, rep))
		r->status = 1;
	return 0;
}

/* "+12.3%" of b against a, or "-" */
static void pct(char *buf, size_t len, double b, double a)
{
	if (a > 0 && !isnan(a) && !isnan(b))
		snprintf(buf, len, "%+.1f%%", 100 * (b - a) / a);
	else
		snprintf(buf, len, "-");
}

#define WI_GAIN 0.02	/* AU points a what-if must add to count as help */

/* The what-if that raises AU the most, by WI_GAIN or more: its index, or
 * 0 (the baseline: none does, or it failed). */
static size_t wi_best(const struct wi *w)
{
	size_t best = 0;

	if (w->run[0].status)
		return 0;
	for (size_t i = 1; i < w->n; i++)
		if (!w->run[i].status && w->run[i].au >= w->run[0].au + WI_GAIN &&
		    (!best || w->run[i].au > w->run[best].au))
			best = i;
	return best;
}

/* One line: which what-if helps, and what that tells. */
static void wi_verdict(const struct wi *w, FILE *f)
{
	const struct wi_run *b = &w->run[0];
	size_t i = wi_best(w);

	if (b->status)
		return;
	if (i)
		fprintf(f, "\nhelps most: %s (AU %+.1f points): %s\n", w->run[i].name,
			100 * (w->run[i].au - b->au), w->run[i].says);
	else if (b->au >= 1 - WI_GAIN)
		fprintf(f, "\nhelps most: none: AU %.1f%% as recorded, the accelerator does not "
			"wait\n", 100 * b->au);
	else
		fprintf(f, "\nhelps most: none of these raises AU by %.0f points or more\n",
			100 * WI_GAIN);
}

static int wi_print_text(const struct wi *w, FILE *f)
{
	const struct wi_run *b = &w->run[0];
	char bw[32], t[32], ck[32], dt[16], dau[16];

	fprintf(f, "what-ifs of %s: DIR %s%s%s, each run bounded by %.9gs%s\n\n", w->trace,
		w->cfg.dir, w->cfg.fast ? ", FAST_DIR " : "", w->cfg.fast ? w->cfg.fast : "",
		w->cfg.runtime_ns / 1e9,
		!w->cfg.keep_caches && geteuid() == 0 ? ", page cache dropped before each" : "");
	fprintf(f, "%-13s %-42s %7s %10s %12s %10s %9s %8s\n", "what-if", "change", "AU",
		"job time", "read bw", "ckpt time", "time chg", "AU chg");
	for (size_t i = 0; i < w->n; i++) {
		const struct wi_run *r = &w->run[i];

		if (r->status) {
			fprintf(f, "%-13s %-42s FAILED: %s\n", r->name, r->what, r->err);
			continue;
		}
		cm_fmt_bytes(bw, sizeof(bw), (uint64_t)r->read_bw);
		strcat(bw, "/s");
		snprintf(t, sizeof(t), "%s%.2fs", r->estimated ? "~" : "", r->job_s);
		if (r->ckpt_s >= 0)
			snprintf(ck, sizeof(ck), "%.2fs", r->ckpt_s);
		else
			snprintf(ck, sizeof(ck), "-");
		if (i && !b->status) {
			pct(dt, sizeof(dt), r->job_s, b->job_s);
			snprintf(dau, sizeof(dau), "%+.1fpt", 100 * (r->au - b->au));
		} else {
			snprintf(dt, sizeof(dt), "-");
			snprintf(dau, sizeof(dau), "-");
		}
		fprintf(f, "%-13s %-42s %6.1f%% %10s %12s %10s %9s %8s\n", r->name, r->what,
			100 * r->au, t, bw, ck, dt, dau);
	}
	wi_verdict(w, f);
	if (!w->cfg.fast)
		fprintf(f, "\n(no --fast FAST_DIR: no staging or burst-buffer what-if)\n");
	else if (!w->ckpts)
		fprintf(f, "\n(no checkpoints in the trace: no burst-buffer what-if)\n");
	if (!w->readers)
		fprintf(f, "(no thread reads a data set: no reader-thread what-if)\n");
	else if (w->mapped)
		fprintf(f, "(the data set is read through a memory map, by page faults no reader "
			"thread deals out: no reader-thread what-if)\n");
	if (!w->loaders)
		fprintf(f, "(no data loader hands the training thread its data in the trace: "
			"no loader what-if)\n");
	for (size_t i = 0; i < w->n; i++)
		if (!w->run[i].status && w->run[i].estimated) {
			fprintf(f, "(~: cut by --runtime; the job's time at the run's pace over the "
				"trace's ops)\n");
			break;
		}
	return 0;
}

static int wi_print_json(const struct wi *w, FILE *f)
{
	json_t *root = json_object(), *arr = json_array();
	const struct wi_run *b = &w->run[0];
	int rc;

	if (!root || !arr)
		goto oom;
	json_object_set_new(root, "trace", json_string(w->trace));
	json_object_set_new(root, "dir", json_string(w->cfg.dir));
	json_object_set_new(root, "fast", w->cfg.fast ? json_string(w->cfg.fast) : json_null());
	json_object_set_new(root, "runtime_limit_ns", cm_json_u64(w->cfg.runtime_ns));
	json_object_set_new(root, "recorded_reader_threads", json_integer(w->readers));
	json_object_set_new(root, "loader_threads", json_integer(w->loaders));
	json_object_set_new(root, "checkpoints", json_integer((json_int_t)w->ckpts));
	for (size_t i = 0; i < w->n; i++) {
		const struct wi_run *r = &w->run[i];
		json_t *o = json_object(), *a = json_array();

		if (!o || !a || json_array_append_new(arr, o))
			goto oom;
		json_object_set_new(o, "name", json_string(r->name));
		json_object_set_new(o, "change", json_string(r->what));
		for (size_t k = 0; k < WI_ARGS && r->args[k]; k++)
			json_array_append_new(a, json_string(r->args[k]));
		json_object_set_new(o, "replay_options", a);
		json_object_set_new(o, "ok", json_boolean(!r->status));
		if (r->status) {
			json_object_set_new(o, "error", json_string(r->err));
			continue;
		}
		json_object_set_new(o, "au", json_real(r->au));
		json_object_set_new(o, "job_time_s", json_real(r->job_s));
		json_object_set_new(o, "job_time_estimated", json_boolean(r->estimated));
		json_object_set_new(o, "read_bw_bytes", json_real(r->read_bw));
		json_object_set_new(o, "checkpoint_time_s",
				    r->ckpt_s >= 0 ? json_real(r->ckpt_s) : json_null());
		if (i && !b->status) {
			json_object_set_new(o, "job_time_change", json_real((r->job_s - b->job_s) / b->job_s));
			json_object_set_new(o, "au_change", json_real(r->au - b->au));
		}
	}
	json_object_set_new(root, "whatifs", arr);
	json_object_set_new(root, "helps_most", wi_best(w) ? json_string(w->run[wi_best(w)].name) :
			    json_null());
	rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(root);
	fputc('\n', f);
	return rc ? -EIO : 0;
oom:
	json_decref(arr);
	json_decref(root);
	return -ENOMEM;
}

/* rm -r of the work directory (its files only: reports and logs). */
static void wi_clean(struct wi *w)
{
	char p[PATH_MAX];

	for (size_t i = 0; i < w->n; i++) {
		snprintf(p, sizeof(p), "%s/%s.json", w->work, w->run[i].name);
		unlink(p);
		snprintf(p, sizeof(p), "%s/%s.log", w->work, w->run[i].name);
		unlink(p);
	}
	rmdir(w->work);
}

/* After a signal (cli_run_catch): the run it stopped is over; remove the
 * work directory (unless --keep) and the table's file, made empty before
 * the runs, and say so.  The exit status, 128 + the signal. */
static int wi_stopped(struct wi *w, int sig)
{
	if (w->cfg.out)
		unlink(w->cfg.out);
	if (w->cfg.keep)
		cli_error("stopped by SIG%s: the runs' reports and logs are in %s",
			  sigabbrev_np(sig), w->work);
	else {
		wi_clean(w);
		cli_error("stopped by SIG%s; the run under way was stopped too", sigabbrev_np(sig));
	}
	return 128 + sig;
}

int cmd_whatif(int argc, char **argv)
{
	struct opt_parser p;
	struct wi w = { 0 };
	struct stat st;
	FILE *out = stdout;
	const char *tmp = getenv("TMPDIR");
	int c, failed = 0, ret = EXIT_FAIL;

	opt_init_cfg(&p, &whatif_cmd, &w.cfg, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		if (c == OPT_HELP)
			return EXIT_OK;
		if (c == OPT_ERR)
			return EXIT_USAGE;
	}
	if (!(w.trace = opt_one_arg(&p, "TRACE")))
		return EXIT_USAGE;
	if (!w.cfg.dir) {
		opt_error(&whatif_cmd, "missing -d DIR");
		return EXIT_USAGE;
	}
	if (w.cfg.fast && stat(w.cfg.fast, &st)) {
		cli_error("--fast %s: %s", w.cfg.fast, strerror(errno));
		return EXIT_USAGE;
	}
	if (w.cfg.fast && !S_ISDIR(st.st_mode)) {
		cli_error("--fast %s: not a directory", w.cfg.fast);
		return EXIT_USAGE;
	}
	if (w.cfg.out && cli_output_refused(w.cfg.out, 0))
		return EXIT_FAIL;
	if (wi_facts(&w))
		return EXIT_FAIL;

	/* from here a signal stops the run under way and removes what we
	 * made (wi_stopped); the table's file is made before the first run,
	 * so that one we cannot write stops us before, not after, them all */
	cli_run_catch();
	if (w.cfg.out && !(out = fopen(w.cfg.out, "wx"))) {
		cli_error("%s: %s", w.cfg.out, strerror(errno));
		return EXIT_FAIL;
	}
	/* replay -d makes DIR; the runs that time checkpoints name it before */
	if (mkdir(w.cfg.dir, 0755) && errno != EEXIST) {
		cli_error("%s: %s", w.cfg.dir, strerror(errno));
		goto out;
	}
	wi_plan(&w);
	snprintf(w.work, sizeof(w.work) - 32, "%s", tmp && *tmp ? tmp : "/tmp");
	strcat(w.work, "/iotape-whatif.XXXXXX");
	if (!mkdtemp(w.work)) {
		cli_error("mkdtemp %s: %s", w.work, strerror(errno));
		w.work[0] = 0;
		goto out;
	}
	for (size_t i = 0; i < w.n; i++) {
		if (!cli_run_signal() && wi_run_one(&w, &w.run[i], i))
			goto out;
		if (cli_run_signal()) {
			if (out != stdout)
				fclose(out);
			return wi_stopped(&w, cli_run_signal());
		}
		failed += w.run[i].status != 0 || w.run[i].ops_failed;
	}
	if ((w.cfg.json ? wi_print_json(&w, out) : wi_print_text(&w, out)) ||
	    fflush(out) || ferror(out)) {
		cli_error("%s: write error", w.cfg.out ? w.cfg.out : "stdout");
		goto out;
	}
	if (out != stdout) {
		int e = fclose(out);
		out = stdout;
		if (e) {
			cli_error("%s: %s", w.cfg.out, strerror(errno));
			goto out;
		}
	}
	if (failed)
		cli_error("%d of %zu runs failed or had failed operations: their logs are in %s",
			  failed, w.n, w.work);
	else
		ret = EXIT_OK;
	if (w.cfg.keep && !failed)
		fprintf(stderr, "whatif: the runs' reports and logs are in %s\n", w.work);
	else if (!failed)
		wi_clean(&w);
	return ret;
out:
	/* nothing (or not all) of the table was written: no file of it */
	if (out != stdout) {
		fclose(out);
		unlink(w.cfg.out);
	}
	if (w.work[0] && !w.cfg.keep)
		wi_clean(&w);
	return ret;
}
