/* SPDX-License-Identifier: MIT */
/*
 * cmd_export.c - `iotape export`: a trace in the formats other tools read
 * (iotape-export(1)), by libexport's exporters (export/export.h):
 *
 *   perfetto   Chrome trace-event JSON (export/exp_perfetto.c)
 *   fio-iolog  fio iologs, version 3, one per process or thread, and a job
 *              file that runs them all (export/exp_fio.c)
 *   fio-job    an fio job file approximating the job: the model `iotape
 *              model` derives, written as `iotape model --fio` writes it
 *
 * Output goes to stdout or -o: a file (a directory for fio-iolog) made
 * under a temporary name next to it and renamed when complete, so a
 * failed export leaves nothing behind; an existing one is refused unless
 * -f.  Row formats (CSV, JSON lines) are `iotape dump`'s.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "export.h"
#include "opt.h"
#include "tape.h"

/* the exporter of each --format choice, in their order */
static const char *const export_fmts[] = { "perfetto", "fio-iolog", "fio-job" };

struct export_cfg {
	int fmt, per_thread, force, verbose;
	const char *out, *dir;
	uint64_t interval;
};

static const struct opt export_opts[] = {
	{ 'F', "format", "FORMAT", "what to write", "perfetto|fio-iolog|fio-job", NULL,
	  OPT_REQUIRED },
	{ 'o', "output", "FILE", "write to FILE instead of stdout (fio-iolog: a directory, "
	  "required)", OPT_T_STR(struct export_cfg, out) },
	{ 'f', "force", NULL, "replace FILE if it exists", OPT_T_FLAG(struct export_cfg, force) },
	{ 'd', "dir", "DIR", "fio-iolog: the directory `iotape replay --prepare-only -d DIR` "
	  "prepared (required)", OPT_T_STR(struct export_cfg, dir) },
	{ OPT_LONG(1), "per", "WHAT", "fio-iolog: one log per process or per thread",
	  "process|thread", "process", OPT_T_CHOICE(struct export_cfg, per_thread) },
	{ OPT_LONG(2), "interval", "TIME", "perfetto: counter interval (0: about 1/1000 of the "
	  "trace, at least 1ms)", NULL, "0", OPT_T_DURATION(struct export_cfg, interval, 0,
							    CM_OPT_NOMAX) },
	{ 'v', "verbose", NULL, "say on stderr what was written and left out",
	  OPT_T_FLAG(struct export_cfg, verbose) },
	{ 0 }
};

const struct opt_cmd export_cmd = {
	"export", "TRACE", "Write a trace in a format other tools read.",
	"perfetto: Chrome trace-event JSON for ui.perfetto.dev and chrome://tracing.\n"
	"fio-iolog: fio iologs (version 3) and a job file running them, under -o DIR,\n"
	"naming the files under -d DIR where 'iotape replay --prepare-only' puts them.\n"
	"fio-job: an fio job file approximating the job ('iotape model --fio').\n"
	"Rows for pandas or DuckDB: 'iotape dump --format csv|jsonl'.",
	export_opts,
};

/* ---------------------------------------------------------------- output */

/* A temporary file next to out, open for writing: 0, or EXIT_FAIL after
 * one error line.  tmp gets its name. */
static int tmp_create(const char *out, char *tmp, size_t len, FILE **f)
{
	int fd;

	snprintf(tmp, len, "%s.tmp.XXXXXX", out);
	if ((fd = mkstemp(tmp)) < 0) {
		cli_error("%s: %s", out, strerror(errno));
		return EXIT_FAIL;
	}
	if (fchmod(fd, 0644) || !(*f = fdopen(fd, "w"))) {
		cli_error("%s: %s", out, strerror(errno));
		close(fd);
		unlink(tmp);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Close f (stdout: flush) and rename tmp over out when ok; on failure
 * remove tmp.  EXIT_OK, or EXIT_FAIL (after one error line when ok). */
static int tmp_finish(FILE *f, const char *out, const char *tmp, int ok)
{
	int bad;

	if (f == stdout)
		return ok ? EXIT_OK : EXIT_FAIL;	/* main() checks stdout */
	bad = ferror(f) | fclose(f);
	if (ok && bad)
		cli_error("%s: write error: %s", out, strerror(errno ? errno : EIO));
	else if (ok && rename(tmp, out))
		cli_error("%s: %s", out, strerror(errno));
	else if (ok)
		return EXIT_OK;
	unlink(tmp);
	return EXIT_FAIL;
}

/* ---------------------------------------------------------------- export */

/* Say what the exporter said: its error, or with -v its summary. */
static int said(int rc, const struct exp_diag *d, int verbose)
{
	if (rc < 0)
		cli_error("%s", d->msg);
	else if (verbose && d->summary[0])
		cli_error("%s", d->summary);
	return rc >= 0 ? EXIT_OK : d->usage ? EXIT_USAGE : EXIT_FAIL;
}

/* Run e on trace into cfg->out (stdout when NULL): EXIT_* after what
 * there is to say. */
static int export_run(const struct exporter *e, const char *trace, const struct export_cfg *cfg)
{
	struct exp_opts o = { .interval_ns = cfg->interval, .dir = cfg->dir,
			      .per_thread = cfg->per_thread, .force = cfg->force };
	struct exp_io io = { .trace = trace, .f = stdout, .out = cfg->out ? cfg->out : "stdout" };
	struct exp_diag d = { 0 };
	char tmp[PATH_MAX + 16];
	int ret;

	if (e->needs & EXP_WRITES_DIR)
		return said(e->write(&io, &o, &d), &d, cfg->verbose);
	if (cfg->out && (ret = tmp_create(cfg->out, tmp, sizeof(tmp), &io.f)) != EXIT_OK)
		return ret;
	if ((e->needs & EXP_NEEDS_READER) && exp_reader_open(&io.r, trace, &d) < 0) {
		ret = said(-1, &d, 0);
	} else {
		if (d.warning[0])
			cli_error("%s", d.warning);
		ret = said(e->write(&io, &o, &d), &d, cfg->verbose);
	}
	tape_reader_free(io.r);
	return tmp_finish(io.f, cfg->out, tmp, ret == EXIT_OK) == EXIT_OK ? EXIT_OK :
	       ret == EXIT_OK ? EXIT_FAIL : ret;
}

int cmd_export(int argc, char **argv)
{
	struct export_cfg cfg = { 0 };
	struct opt_parser p;
	const struct exporter *e = NULL;
	const char *trace;
	int c;

	opt_init_cfg(&p, &export_cmd, &cfg, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		if (c == OPT_HELP || c == OPT_ERR)
			return c == OPT_HELP ? EXIT_OK : EXIT_USAGE;
		if (c == 'F' && !(e = exp_find(export_fmts[p.choice]))) {
			cli_error("%s: no such exporter", export_fmts[p.choice]);
			return EXIT_FAIL;
		}
	}
	if (!(trace = opt_one_arg(&p, "TRACE")))
		return EXIT_USAGE;
	if (!e) {
		opt_error(&export_cmd, "give a --format");
		return EXIT_USAGE;
	}
	if ((e->needs & EXP_NEEDS_DIR) && (!cfg.out || !cfg.dir)) {
		opt_error(&export_cmd, "%s needs -o DIR (the logs) and -d DIR (the "
			  "prepared files)", e->name);
		return EXIT_USAGE;
	}
	if (cfg.interval && cfg.interval < 1000) {
		opt_error(&export_cmd, "--interval: at least 1us");
		return EXIT_USAGE;
	}
	if (!(e->needs & EXP_NEEDS_DIR) && cfg.dir) {
		opt_error(&export_cmd, "--dir goes with --format fio-iolog");
		return EXIT_USAGE;
	}
	if (cfg.out && cli_output_refused(cfg.out, cfg.force))
		return EXIT_FAIL;
	return export_run(e, trace, &cfg);
}
