/* SPDX-License-Identifier: MIT */
/*
 * cmd_info.c - `iotape info`: what a trace holds and whether it is whole.
 *
 * Prints the metadata, the format version, per-table event and block
 * counts with their time span, the lost-event counters the recorder left in
 * the "lost.<table>" meta keys, whether the file table holds the files'
 * file system types (the optional column fstype, which older recorders
 * and imports leave out: the file table's blocks are read for it), and
 * the signs of a crashed recording: an index rebuilt by scanning,
 * trailing bytes, unknown blocks.  With --columns, where each table's
 * bytes go, column by column, and in which encodings.  Text for people,
 * --json (one object, keys documented in iotape-info(1)) for tools.
 * What it says is export/exp_info.c's (exp_info_write).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "export.h"
#include "opt.h"
#include "tape.h"

struct info_cfg {
	int columns, json;
};

static const struct opt info_opts[] = {
	{ 'c', "columns", NULL, "also show each table's bytes by column and encoding "
	  "(reads every block)", OPT_T_FLAG(struct info_cfg, columns) },
	{ 'j', "json", NULL, "print one JSON object instead of text",
	  OPT_T_FLAG(struct info_cfg, json) },
	{ 0 }
};

const struct opt_cmd info_cmd = {
	"info", "TRACE", "Show the metadata, tables and health of a trace.",
	NULL, info_opts,
};

int cmd_info(int argc, char **argv)
{
	struct opt_parser p;
	struct info_cfg cfg = { 0 };
	const char *path;
	tape_reader *r;
	int c, err;

	opt_init_cfg(&p, &info_cmd, &cfg, argc, argv);
	if ((c = opt_all(&p)) != OPT_END)
		return c == OPT_HELP ? EXIT_OK : EXIT_USAGE;
	if (!(path = opt_one_arg(&p, "TRACE")))
		return EXIT_USAGE;
	if ((err = tape_reader_open(&r, path)) < 0) {
		cli_tape_error(path, err);
		return EXIT_FAIL;
	}
	err = exp_info_write(r, path, cfg.columns, cfg.json, stdout);
	if (err == -ENOMEM && cfg.json)
		cli_error("out of memory");
	else if (err < 0)
		cli_tape_error(path, err);
	tape_reader_free(r);
	return err ? EXIT_FAIL : EXIT_OK;
}
