/* SPDX-License-Identifier: MIT */
/*
 * cmd_merge.c - `iotape merge`: one trace from the traces of several nodes
 * (or several recordings on one node), each event tagged with its host,
 * by libtape's merge (format/merge.c, tape_merge_*: what becomes what).
 *
 * On any error: one line, exit 1 (2 for usage), and OUT is not left.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "fmt.h"
#include "opt.h"
#include "tape.h"

struct merge_cfg {
	const char *out, *align;
	int force, quiet;
};

static const struct opt merge_opts[] = {
	{ 'o', "output", "TRACE", "trace to create", NULL, NULL, OPT_REQUIRED,
	  OPT_T_STR(struct merge_cfg, out) },
	{ 'f', "force", NULL, "replace TRACE if it exists", OPT_T_FLAG(struct merge_cfg, force) },
	{ 'a', "align", "MATCH", "align on each input's first syscall matching COL=VALUE[,...]",
	  OPT_T_STR(struct merge_cfg, align) },
	{ 'q', "quiet", NULL, "no summary line on stderr", OPT_T_FLAG(struct merge_cfg, quiet) },
	{ 0 }
};

const struct opt_cmd merge_cmd = {
	"merge", "TRACE TRACE...", "Merge the traces of several hosts into one.",
	"Input i is host i of the merged trace; see iotape-merge(1).",
	merge_opts,
};

/* Say what a transform said: its one line, or a libtape error of a file. */
static void xform_error(const struct tape_xform_error *e)
{
	if (e->msg[0])
		cli_error("%s", e->msg);
	else
		cli_tape_error(e->what ? e->what : "merge", e->err);
}

/* Open the inputs into the merge: 0, or -1 after one error line. */
static int inputs_add(tape_merge *m, tape_reader **r, char **args, int n, const char *out)
{
	struct tape_xform_error e;
	struct stat so, si;
	int err;

	for (int i = 0; i < n; i++) {
		if (stat(args[i], &si) == 0 && stat(out, &so) == 0 &&
		    si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			cli_error("%s: is an input (write to another file)", out);
			return -1;
		}
		if ((err = tape_reader_open(&r[i], args[i])) < 0) {
			cli_tape_error(args[i], err);
			return -1;
		}
		if (tape_merge_add(m, r[i], args[i], &e)) {
			xform_error(&e);
			return -1;
		}
	}
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	struct merge_cfg cfg = { 0 };
	struct opt_parser p;
	struct tape_xform_error e;
	tape_merge *m = NULL;
	tape_reader **r = NULL;
	tape_writer *w = NULL;
	char *tmp = NULL, **args;
	const char *clock = NULL;
	int c, n, ret = EXIT_FAIL;
	uint64_t events = 0;

	opt_init_cfg(&p, &merge_cmd, &cfg, argc, argv);
	if ((c = opt_all(&p)) != OPT_END)
		return c == OPT_HELP ? EXIT_OK : EXIT_USAGE;
	args = opt_args(&p, &n);
	if (!cfg.out) {
		opt_error(&merge_cmd, "missing -o TRACE");
		return EXIT_USAGE;
	}
	if (n < 2) {
		opt_error(&merge_cmd, n ? "one trace: merge needs two at least" : "missing TRACE");
		return EXIT_USAGE;
	}
	if (n > TAPE_HOSTS_MAX) {
		opt_error(&merge_cmd, "%d traces: a merged trace holds %d hosts at most", n,
			  TAPE_HOSTS_MAX);
		return EXIT_USAGE;
	}
	if ((c = tape_merge_new(&m, cfg.align, &e))) {
		if (c == -EINVAL)
			opt_error(&merge_cmd, "%s", e.msg);
		else
			xform_error(&e);
		return c == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	if (cli_output_refused(cfg.out, cfg.force))
		goto cleanup;
	if (!(r = calloc((size_t)n, sizeof(*r)))) {
		cli_error("out of memory");
		goto cleanup;
	}
	if (inputs_add(m, r, args, n, cfg.out))
		goto cleanup;
	if (tape_merge_clock(m, &clock, &e)) {
		xform_error(&e);
		goto cleanup;
	}
	if (cli_trace_create(cfg.out, cfg.force, NULL, &tmp, &w))
		goto cleanup;
	if (tape_merge_write(m, w, cfg.out, &events, &e)) {
		xform_error(&e);
		goto fail;
	}
	c = cli_trace_finish(w, cfg.out, tmp);
	w = NULL;
	if (c)
		goto fail;
	if (!cfg.quiet) {
		cm_put_escaped(stderr, cfg.out, 0);
		fprintf(stderr, ": %d hosts, %" PRIu64 " events, clock %s\n", n, events, clock);
	}
	ret = EXIT_OK;
	goto cleanup;
fail:
	cli_trace_abandon(w, cfg.out, tmp);
cleanup:
	free(tmp);
	for (int i = 0; r && i < n; i++)
		tape_reader_free(r[i]);
	free(r);
	tape_merge_free(m);
	return ret;
}
