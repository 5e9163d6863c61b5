/* SPDX-License-Identifier: MIT */
/*
 * cmd_whatif.c - `iotape whatif TRACE -d DIR [--fast FAST_DIR]`: what
 * would a change of storage layout or of the input pipeline buy this job
 * on this storage (iotape-whatif(1))?
 *
 * The what-ifs and their runs are the session library's (ss_whatif_plan,
 * ss_whatif_run: replay sessions in this process, each bounded by
 * --runtime and, as root, started on a dropped page cache); here: the
 * options, each run's JSON report and messages in a work directory (kept
 * when a run fails, or with --keep), the table (text or JSON), and the
 * signals: one ends the run under way with this process, after removing
 * the work directory and the table's file (cli_stop_catch).
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "fmt.h"
#include "opt.h"
#include "session.h"

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

struct wi {
	struct whatif_cfg cfg;
	struct ss_whatif s;	/* the what-ifs and their runs */
	char work[PATH_MAX - 64];	/* the runs' reports and logs */
};

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

/* Run one replay: 0 (r filled, or r->status/err saying how it failed), or
 * -1 after one error line (nothing could be run). */
static int wi_run_one(struct wi *w, struct ss_wi_run *r, size_t i)
{
	char rep[PATH_MAX], log[PATH_MAX];
	struct ss_cfg base;
	FILE *lf, *jf;
	int rc = 0;

	snprintf(rep, sizeof(rep), "%s/%s.json", w->work, r->name);
	snprintf(log, sizeof(log), "%s/%s.log", w->work, r->name);
	fprintf(stderr, "whatif: [%zu/%zu] %s: %s\n", i + 1, w->s.n, r->name, r->what);
	if (!(lf = fopen(log, "w"))) {
		cli_error("%s: %s", log, strerror(errno));
		return -1;
	}
	setvbuf(lf, NULL, _IOLBF, 0);
	struct ss_ui ui;
	cli_replay_log(&ui, lf);	/* as iotape replay says them */
	cli_replay_defaults(&base);
	if (!(jf = fopen(rep, "w"))) {
		fprintf(lf, "iotape replay: %s: %s\n", rep, strerror(errno));
		r->status = 1;
	} else {
		rc = ss_whatif_run(&w->s, r, &base, &ui, jf, rep);
		if (fclose(jf) && !rc && !r->status) {
			fprintf(lf, "iotape replay: %s: %s\n", rep, strerror(errno));
			r->status = 1;
		}
	}
	fclose(lf);
	if (rc) {
		cli_error("out of memory");
		return -1;
	}
	if (r->status && !r->err[0])
		last_line(log, r->err, sizeof(r->err));
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

/* One line: which what-if helps, and what that tells. */
static void wi_verdict(const struct wi *w, FILE *f)
{
	const struct ss_wi_run *b = &w->s.run[0];
	size_t i = ss_whatif_best(&w->s);

	if (b->status)
		return;
	if (i)
		fprintf(f, "\nhelps most: %s (AU %+.1f points): %s\n", w->s.run[i].name,
			100 * (w->s.run[i].au - b->au), w->s.run[i].says);
	else if (b->au >= 1 - SS_WI_GAIN)
		fprintf(f, "\nhelps most: none: AU %.1f%% as recorded, the accelerator does not "
			"wait\n", 100 * b->au);
	else
		fprintf(f, "\nhelps most: none of these raises AU by %.0f points or more\n",
			100 * SS_WI_GAIN);
}

static int wi_print_text(const struct wi *w, FILE *f)
{
	const struct ss_wi_run *b = &w->s.run[0];
	char bw[32], t[32], ck[32], dt[16], dau[16];

	fprintf(f, "what-ifs of %s: DIR %s%s%s, each run bounded by %.9gs%s\n\n", w->s.trace,
		w->cfg.dir, w->cfg.fast ? ", FAST_DIR " : "", w->cfg.fast ? w->cfg.fast : "",
		w->cfg.runtime_ns / 1e9,
		!w->cfg.keep_caches && geteuid() == 0 ? ", page cache dropped before each" : "");
	fprintf(f, "%-13s %-42s %7s %10s %12s %10s %9s %8s\n", "what-if", "change", "AU",
		"job time", "read bw", "ckpt time", "time chg", "AU chg");
	for (size_t i = 0; i < w->s.n; i++) {
		const struct ss_wi_run *r = &w->s.run[i];

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
	else if (!w->s.ckpts)
		fprintf(f, "\n(no checkpoints in the trace: no burst-buffer what-if)\n");
	if (!w->s.readers)
		fprintf(f, "(no thread reads a data set: no reader-thread what-if)\n");
	else if (w->s.mapped)
		fprintf(f, "(the data set is read through a memory map, by page faults no reader "
			"thread deals out: no reader-thread what-if)\n");
	if (!w->s.loaders)
		fprintf(f, "(no data loader hands the training thread its data in the trace: "
			"no loader what-if)\n");
	for (size_t i = 0; i < w->s.n; i++)
		if (!w->s.run[i].status && w->s.run[i].estimated) {
			fprintf(f, "(~: cut by --runtime; the job's time at the run's pace over the "
				"trace's ops)\n");
			break;
		}
	return 0;
}

/* rm -r of the work directory (its files only: reports and logs). */
static void wi_clean(struct wi *w)
{
	char p[PATH_MAX];

	for (size_t i = 0; i < w->s.n; i++) {
		snprintf(p, sizeof(p), "%s/%s.json", w->work, w->s.run[i].name);
		unlink(p);
		snprintf(p, sizeof(p), "%s/%s.log", w->work, w->s.run[i].name);
		unlink(p);
	}
	rmdir(w->work);
}

/* The work directory made and the runs planned: what a signal removes
 * (cli_stop_catch), or with --keep names. */
static void wi_catch_work(struct wi *w)
{
	char p[PATH_MAX + 64];

	if (w->cfg.keep) {
		snprintf(p, sizeof(p), ": the runs' reports and logs are in %s", w->work);
		cli_stop_say(p);
		return;
	}
	cli_stop_rm(w->work);
	for (size_t i = 0; i < w->s.n; i++) {
		snprintf(p, sizeof(p), "%s/%s.json", w->work, w->s.run[i].name);
		cli_stop_rm(p);
		snprintf(p, sizeof(p), "%s/%s.log", w->work, w->s.run[i].name);
		cli_stop_rm(p);
	}
}

int cmd_whatif(int argc, char **argv)
{
	struct opt_parser p;
	struct wi w = { 0 };
	struct stat st;
	FILE *out = stdout;
	const char *tmp = getenv("TMPDIR");
	char err[512];
	int c, failed = 0, ret = EXIT_FAIL;

	opt_init_cfg(&p, &whatif_cmd, &w.cfg, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		if (c == OPT_HELP)
			return EXIT_OK;
		if (c == OPT_ERR)
			return EXIT_USAGE;
	}
	if (!(w.s.trace = opt_one_arg(&p, "TRACE")))
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
	w.s.dir = w.cfg.dir;
	w.s.fast = w.cfg.fast;
	w.s.runtime_ns = w.cfg.runtime_ns;
	w.s.stage_size = w.cfg.stage_size;
	w.s.force = w.cfg.force;
	w.s.drop = !w.cfg.keep_caches && geteuid() == 0;
	if (ss_whatif_plan(&w.s, err, sizeof(err))) {
		cli_error("%s", err);
		return EXIT_FAIL;
	}

	/* from here a signal stops the run under way and removes what we
	 * made (cli_stop_catch); the table's file is made before the first run,
	 * so that one we cannot write stops us before, not after, them all */
	cli_stop_catch();
	cli_stop_say("; the run under way was stopped too");
	if (w.cfg.out && !(out = fopen(w.cfg.out, "wx"))) {
		cli_error("%s: %s", w.cfg.out, strerror(errno));
		return EXIT_FAIL;
	}
	if (w.cfg.out)
		cli_stop_rm(w.cfg.out);
	/* replay -d makes DIR; the runs that time checkpoints name it before */
	if (mkdir(w.cfg.dir, 0755) && errno != EEXIST) {
		cli_error("%s: %s", w.cfg.dir, strerror(errno));
		goto out;
	}
	snprintf(w.work, sizeof(w.work) - 32, "%s", tmp && *tmp ? tmp : "/tmp");
	strcat(w.work, "/iotape-whatif.XXXXXX");
	if (!mkdtemp(w.work)) {
		cli_error("mkdtemp %s: %s", w.work, strerror(errno));
		w.work[0] = 0;
		goto out;
	}
	wi_catch_work(&w);
	for (size_t i = 0; i < w.s.n; i++) {
		if (wi_run_one(&w, &w.s.run[i], i))
			goto out;
		failed += w.s.run[i].status != 0 || w.s.run[i].ops_failed;
	}
	cli_stop_release();
	if ((w.cfg.json ? ss_whatif_json(&w.s, out) : wi_print_text(&w, out)) ||
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
			  failed, w.s.n, w.work);
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
