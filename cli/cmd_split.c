/* SPDX-License-Identifier: MIT */
/*
 * cmd_split.c - `iotape split`: the reverse of merge, and more: a trace
 * into one trace per host (of a merged trace), per process, or per span
 * of time, by libtape's split (format/split.c, tape_split: what goes
 * where).  No output file may exist; on any error: one line, exit 1 (2
 * for usage), and no part is left.
 */
#include <inttypes.h>
#include <stdio.h>
#include "cli.h"
#include "opt.h"
#include "tape.h"

struct split_cfg {
	const char *out;
	int by, quiet;		/* by: TAPE_SPLIT_*, the order of --by's choices */
	uint64_t every;
	unsigned parts;
};

static const struct opt split_opts[] = {
	{ 'o', "output", "PREFIX", "write PREFIX-hostH.iotape, PREFIX-pidP.iotape or "
	  "PREFIX-partK.iotape", NULL, NULL, OPT_REQUIRED, OPT_T_STR(struct split_cfg, out) },
	{ 'b', "by", "WHAT", "one trace per host (of a merged trace), process or span of time",
	  "host|process|time", NULL, OPT_REQUIRED, OPT_T_CHOICE(struct split_cfg, by) },
	{ 'e', "every", "D", "--by time: parts of D each (10s, 500ms, 2m)",
	  OPT_T_DURATION(struct split_cfg, every, 1, CM_OPT_NOMAX) },
	{ 'n', "parts", "N", "--by time: N parts of equal length", NULL, NULL,
	  OPT_T_UINT(struct split_cfg, parts, 1, 10000) },
	{ 'q', "quiet", NULL, "no summary line on stderr", OPT_T_FLAG(struct split_cfg, quiet) },
	{ 0 }
};

const struct opt_cmd split_cmd = {
	"split", "TRACE", "Split a trace per host, process or span of time.",
	"The reverse of iotape merge; see iotape-split(1).",
	split_opts,
};

int cmd_split(int argc, char **argv)
{
	struct split_cfg cfg = { 0 };
	struct tape_split_opts o;
	struct tape_split_stats st;
	struct tape_xform_error e;
	struct opt_parser p;
	tape_reader *r;
	const char *in;
	int c, ret = EXIT_FAIL;

	opt_init_cfg(&p, &split_cmd, &cfg, argc, argv);
	cfg.by = -1;
	if ((c = opt_all(&p)) != OPT_END)
		return c == OPT_HELP ? EXIT_OK : EXIT_USAGE;
	if (!(in = opt_one_arg(&p, "TRACE")))
		return EXIT_USAGE;
	if (!cfg.out) {
		opt_error(&split_cmd, "missing -o PREFIX");
		return EXIT_USAGE;
	}
	if (cfg.by < 0) {
		opt_error(&split_cmd, "missing --by host|process|time");
		return EXIT_USAGE;
	}
	if (cfg.by == TAPE_SPLIT_TIME && !cfg.every == !cfg.parts) {
		opt_error(&split_cmd, "--by time: give one of --every D and --parts N");
		return EXIT_USAGE;
	}
	if (cfg.by != TAPE_SPLIT_TIME && (cfg.every || cfg.parts)) {
		opt_error(&split_cmd, "--every and --parts are for --by time");
		return EXIT_USAGE;
	}
	if ((c = tape_reader_open(&r, in)) < 0) {
		cli_tape_error(in, c);
		return EXIT_FAIL;
	}
	o = (struct tape_split_opts){ .prefix = cfg.out, .by = cfg.by, .every = cfg.every,
				      .parts = cfg.parts };
	if (tape_split(r, in, &o, &st, &e)) {
		if (e.msg[0])
			cli_error("%s", e.msg);
		else
			cli_tape_error(e.what ? e.what : in, e.err);
	} else {
		if (!cfg.quiet)
			fprintf(stderr, "%zu parts, %" PRIu64 " events\n", st.parts, st.events);
		ret = EXIT_OK;
	}
	tape_reader_free(r);
	return ret;
}
