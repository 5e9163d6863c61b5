/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c - `iotape report TRACE` and `iotape report --compare A B`:
 * the analysis as one self-contained HTML page of plots
 * (the html exporter, export/exp_html.c, over analyze/ana_html.c), written to a temporary file next to the
 * output and renamed over it once whole, so a failure leaves no partial
 * page and never replaces an existing one.
 *
 * A trace whose index had to be rebuilt (cut short) or with a damaged
 * block is refused: a page of plots does not show well that it covers
 * only part of the job (`iotape analyze` reads what is left, with a
 * warning).  With --compare, the fidelity checks are compare --check's
 * (compare_checks, cli/cmd_compare.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "analyze.h"
#include "cli.h"
#include "export.h"
#include "opt.h"

enum {
	O_COMPARE = OPT_LONG(0),
	O_MAP = OPT_LONG(1),
	O_NO_META = OPT_LONG(2),
};

struct report_cfg {
	const char *out, *map;
	int force, compare, no_metadata;
};

static const struct opt report_opts[] = {
	{ 'o', "output", "FILE", "write the page to FILE ('-': standard output)", NULL,
	  NULL, 0, OPT_T_STR(struct report_cfg, out) },
	{ 'f', "force", NULL, "replace FILE if it exists", OPT_T_FLAG(struct report_cfg, force) },
	{ O_COMPARE, "compare", NULL, "two traces A B side by side, under compare --check's checks",
	  OPT_T_FLAG(struct report_cfg, compare) },
	{ O_MAP, "map", "DIR", "with --compare: B replayed A under DIR (as compare --map)",
	  OPT_T_STR(struct report_cfg, map) },
	{ O_NO_META, "no-metadata", NULL, "with --compare: B replayed with --no-metadata",
	  OPT_T_FLAG(struct report_cfg, no_metadata) },
	{ 0 }
};

const struct opt_cmd report_cmd = {
	"report", "TRACE | --compare A B", "Write an HTML page of plots of a trace's I/O.",
	"One self-contained HTML file (inline SVG, no script): job summary,\n"
	"bandwidth over time with epochs and checkpoints, bytes read per\n"
	"directory over time, request sizes, randomness per epoch, page cache\n"
	"hit ratio, per-thread timeline, latency per layer, top files.  With\n"
	"--compare, a job and its replay side by side under the fidelity checks.\n"
	"Without -o, the page is TRACE's name with .html for .iotape, here.\n"
	"See iotape-report(1).",
	report_opts,
};

/* Default output: TRACE's base name, .iotape replaced by .html. */
static char *default_out(const char *trace)
{
	const char *b = strrchr(trace, '/');
	size_t n;
	char *out;

	b = b ? b + 1 : trace;
	n = strlen(b);
	if (n > 7 && !strcmp(b + n - 7, ".iotape"))
		n -= 7;
	if (!n || asprintf(&out, "%.*s.html", (int)n, b) < 0)
		return NULL;
	return out;
}

/* Analyse path into a (exp_analysis_load): 0, or -1 after one error
 * line. */
static int load(struct ana *a, const char *path)
{
	struct exp_diag d = { 0 };

	if (exp_analysis_load(a, path, &d) < 0) {
		cli_error("%s", d.msg);
		return -1;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct opt_parser p;
	struct report_cfg cfg = { 0 };
	struct cli_checks k = { 0 };
	struct ana_html_check hc[CLI_CHECKS_MAX];
	struct ana a[2];
	const struct exporter *html = exp_find("html");
	struct exp_opts o = { 0 };
	struct exp_io io = { 0 };
	struct exp_diag d = { 0 };
	char *out = NULL, *tmp = NULL, **args;
	FILE *f = NULL;
	int ch, nargs, ret = EXIT_FAIL, loaded = 0, fd = -1;

	opt_init_cfg(&p, &report_cmd, &cfg, argc, argv);
	if ((ch = opt_all(&p)) != OPT_END)
		return ch == OPT_HELP ? EXIT_OK : EXIT_USAGE;
	args = opt_args(&p, &nargs);
	if (nargs != (cfg.compare ? 2 : 1)) {
		opt_error(&report_cmd, cfg.compare ? "--compare wants two traces, A B" :
			  nargs ? "too many arguments (expected TRACE, or --compare A B)" :
			  "missing TRACE");
		return EXIT_USAGE;
	}
	if (!cfg.compare && (cfg.map || cfg.no_metadata)) {
		opt_error(&report_cmd, "--map and --no-metadata go with --compare");
		return EXIT_USAGE;
	}
	out = cfg.out ? strdup(cfg.out) : default_out(args[0]);
	if (!out) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	int to_stdout = !strcmp(out, "-");
	if (!to_stdout && cli_output_refused(out, cfg.force))
		goto done;

	memset(a, 0, sizeof(a));
	if (cfg.compare) {
		int rc = compare_checks(args[0], args[1], cfg.map, cfg.no_metadata, &k);
		if (rc != EXIT_OK) {
			ret = rc;
			goto done;
		}
		for (size_t i = 0; i < k.n; i++)
			hc[i] = (struct ana_html_check){ k.v[i].name, k.v[i].detail, k.v[i].ok };
	}
	for (int s = 0; s < (cfg.compare ? 2 : 1); s++, loaded++)
		if (load(&a[s], args[s])) {
			loaded++;
			goto done;
		}

	if (to_stdout) {
		f = stdout;
	} else {
		/* a temporary file next to out, renamed over it when whole */
		const char *slash = strrchr(out, '/');
		if (asprintf(&tmp, "%.*s.iotape-report.XXXXXX", slash ? (int)(slash - out + 1) : 0,
			     out) < 0) {
			tmp = NULL;
			cli_error("out of memory");
			goto done;
		}
		if ((fd = mkstemp(tmp)) < 0 || fchmod(fd, 0644) < 0 || !(f = fdopen(fd, "w"))) {
			cli_error("%s: %s", out, strerror(errno));
			goto done;
		}
		fd = -1;
	}
	io.trace = args[0];
	io.a = &a[0];
	io.b = cfg.compare ? &a[1] : NULL;
	io.f = f;
	io.out = to_stdout ? "standard output" : out;
	o.checks = hc;
	o.nchecks = cfg.compare ? k.n : 0;
	if (html->write(&io, &o, &d) < 0) {
		cli_error("%s", d.msg);
		goto done;
	}
	if (!to_stdout) {
		if (fclose(f)) {
			f = NULL;
			cli_error("%s: %s", out, strerror(errno));
			goto done;
		}
		f = NULL;
		if (!cfg.force && access(out, F_OK) == 0) {	/* made meanwhile */
			cli_error("%s: exists (use -f to replace it)", out);
			goto done;
		}
		if (rename(tmp, out) < 0) {
			cli_error("%s: %s", out, strerror(errno));
			goto done;
		}
		free(tmp);
		tmp = NULL;
	}
	ret = EXIT_OK;
done:
	if (f && f != stdout)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	for (int s = 0; s < loaded; s++)
		ana_release(&a[s]);
	free(out);
	return ret;
}
