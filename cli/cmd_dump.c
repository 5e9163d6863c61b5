/* SPDX-License-Identifier: MIT */
/*
 * cmd_dump.c - `iotape dump`: every event of a trace, one per line, by
 * the row exporters of libexport (export/exp_rows.c: text, CSV that
 * `iotape import` reads back, JSON lines).
 *
 * Text and JSON lines without --table merge all tables by ts_ns (each
 * table in file order); a damaged block stops the dump after the events
 * before it, with one error line and exit 1.  The trace is opened before
 * -o FILE is created: a trace that cannot be read leaves no file.
 */
#include <errno.h>
#include <string.h>
#include "cli.h"
#include "export.h"
#include "opt.h"
#include "tape.h"

/* the exporter of each --format choice, in their order */
static const char *const dump_fmts[] = { "text", "csv", "jsonl" };

struct dump_cfg {
	int fmt;		/* dump_fmts[] */
	const char *out;
};

/* --table is untyped: its default depends on --format */
static const struct opt dump_opts[] = {
	{ 't', "table", "TABLE", "only this table", "syscall|block|cache|process|file|sample|sched",
	  "all; syscall for csv" },
	{ 'F', "format", "FORMAT", "output format", "text|csv|jsonl", "text",
	  OPT_T_CHOICE(struct dump_cfg, fmt) },
	{ 'o', "output", "FILE", "write to FILE instead of stdout",
	  OPT_T_STR(struct dump_cfg, out) },
	{ 0 }
};

const struct opt_cmd dump_cmd = {
	"dump", "TRACE", "Print the events of a trace, one per line.",
	"Text and jsonl merge all tables in timestamp order unless --table is\n"
	"given; csv prints one table (syscall by default) in the form that\n"
	"'iotape import' reads back.",
	dump_opts,
};

int cmd_dump(int argc, char **argv)
{
	struct opt_parser p;
	struct dump_cfg cfg = { 0 };
	struct exp_opts o = { 0 };
	struct exp_io io = { .f = stdout };
	struct exp_diag d = { 0 };
	const struct exporter *e;
	const char *table = NULL;
	int c, ret = EXIT_FAIL;

	opt_init_cfg(&p, &dump_cmd, &cfg, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		if (c == OPT_HELP || c == OPT_ERR)
			return c == OPT_HELP ? EXIT_OK : EXIT_USAGE;
		if (c == 't')
			table = p.arg;
	}
	if (!(io.trace = opt_one_arg(&p, "TRACE")))
		return EXIT_USAGE;
	if (table && (o.table = tape_table_from_name(table)) < 0) {
		opt_error(&dump_cmd, "unknown table '%s'", table);
		return EXIT_USAGE;
	}
	if (!(e = exp_find(dump_fmts[cfg.fmt]))) {
		cli_error("%s: no such exporter", dump_fmts[cfg.fmt]);
		return EXIT_FAIL;
	}
	if (exp_reader_open(&io.r, io.trace, &d) < 0) {
		cli_error("%s", d.msg);
		return EXIT_FAIL;
	}
	if (d.warning[0])
		cli_error("%s", d.warning);
	if (cfg.out && !(io.f = fopen(cfg.out, "w"))) {
		cli_error("%s: %s", cfg.out, strerror(errno));
		goto cleanup;
	}
	io.out = cfg.out ? cfg.out : "stdout";
	if (e->write(&io, &o, &d) < 0)
		cli_error("%s", d.msg);
	else
		ret = EXIT_OK;
	if (io.f != stdout && (ferror(io.f) | fclose(io.f))) {
		cli_error("%s: write error: %s", cfg.out, strerror(errno ? errno : EIO));
		ret = EXIT_FAIL;
	}
cleanup:
	tape_reader_free(io.r);
	return ret;
}
