/* SPDX-License-Identifier: MIT */
/*
 * cmd_import.c - `iotape import`: build a trace from another tool's file.
 *
 * The formats are libimport's (import/import.h): csv, the inverse of
 * `iotape dump --format csv`, and the traces of other tools.  This file
 * holds the options, the output file and the messages.
 *
 * Nothing is left behind on error: without -f the trace is created with
 * O_EXCL and unlinked on failure; with -f it is written to a temporary
 * file next to it and renamed over the old one at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "import.h"
#include "opt.h"
#include "tape.h"

struct import_cfg {
	const char *format, *table, *out;
	int force;
};

/* --meta is untyped: it may be repeated.  --format's choices are
 * imp_formats[]'s names, in its order (tests/cli/import_formats.sh). */
static const struct opt import_opts[] = {
	{ 'F', "format", "FORMAT", "input format", "csv|strace|fio-iolog|blkparse|dftracer|darshan-dxt", "csv",
	  OPT_T_STR(struct import_cfg, format) },
	{ 't', "table", "TABLE", "csv: table the rows belong to",
	  "syscall|block|cache|process|file|sample|sched", "syscall",
	  OPT_T_STR(struct import_cfg, table) },
	{ 'f', "force", NULL, "replace TRACE if it exists", OPT_T_FLAG(struct import_cfg, force) },
	{ 'm', "meta", "KEY=VALUE", "set a metadata key (repeatable; after the defaults)" },
	{ 'o', "output", "TRACE", "trace to create", NULL, NULL, OPT_REQUIRED,
	  OPT_T_STR(struct import_cfg, out) },
	{ 0 }
};

const struct opt_cmd import_cmd = {
	"import", "FILE", "Build a trace from a CSV file or another tool's trace.",
	"FILE '-' reads stdin.  csv: the header row names the columns, as 'iotape\n"
	"dump --format csv' prints them; columns may be left out (see\n"
	"iotape-import(1) for the defaults and the other formats).",
	import_opts,
};

/* The trace's metadata: the importer's, then --meta's (later wins). */
static int import_meta(tape_writer *w, const struct importer *imp, char **meta, int nmeta)
{
	char source[64];
	int err;

	snprintf(source, sizeof(source), "import:%s", imp->name);
	if (tape_writer_set_meta(w, "source", source) ||
	    tape_writer_set_meta(w, "iotape_version", IOTAPE_VERSION) ||
	    tape_writer_set_meta(w, "clock", imp->clock ? imp->clock : "unknown") ||
	    (imp->not_recorded && tape_writer_set_meta(w, "not_recorded", imp->not_recorded))) {
		cli_error("out of memory");
		return -1;
	}
	for (int i = 0; i < nmeta; i++) {
		char *eq = strchr(meta[i], '=');

		*eq = '\0';
		err = tape_writer_set_meta(w, meta[i], eq + 1);
		*eq = '=';
		if (err < 0) {
			cli_tape_error(meta[i], err);
			return -1;
		}
	}
	return 0;
}

int cmd_import(int argc, char **argv)
{
	struct opt_parser p;
	struct import_cfg cfg = { 0 };
	struct imp_opts io = { 0 };
	struct imp_diag d = { 0 };
	const struct importer *imp;
	const char *out, *in, *in_name;
	FILE *f = NULL;
	tape_writer *w = NULL;
	char *tmp = NULL;
	int force, c, err, ret = EXIT_FAIL, nmeta = 0;
	char **meta = NULL, **m;

	opt_init_cfg(&p, &import_cmd, &cfg, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case OPT_HELP:
			return EXIT_OK;
		case OPT_ERR:
			free(meta);
			return EXIT_USAGE;
		case 'm':
			if (!strchr(p.arg, '=') || p.arg[0] == '=') {
				opt_error(&import_cmd, "--meta '%s': want KEY=VALUE", p.arg);
				free(meta);
				return EXIT_USAGE;
			}
			m = reallocarray(meta, nmeta + 1, sizeof(*meta));
			if (!m) {
				cli_error("out of memory");
				free(meta);
				return EXIT_FAIL;
			}
			meta = m;
			meta[nmeta++] = (char *)p.arg;
			break;
		}
	}
	out = cfg.out;
	force = cfg.force;
	if (!(in = opt_one_arg(&p, "FILE"))) {
		free(meta);
		return EXIT_USAGE;
	}
	if (!out) {
		opt_error(&import_cmd, "missing -o TRACE");
		free(meta);
		return EXIT_USAGE;
	}
	if (!(imp = imp_find(cfg.format))) {
		opt_error(&import_cmd, "--format '%s': unknown (see -h)", cfg.format);
		free(meta);
		return EXIT_USAGE;
	}
	io.table = tape_table_from_name(cfg.table);
	if (cli_output_refused(out, force))
		goto cleanup;
	if (strcmp(in, "-") == 0) {
		f = stdin;
		in_name = "<stdin>";
	} else {
		f = fopen(in, "r");
		in_name = in;
		if (!f) {
			cli_error("%s: %s", in, strerror(errno));
			goto cleanup;
		}
	}

	if (cli_trace_create(out, force, NULL, &tmp, &w))
		goto cleanup;
	if (import_meta(w, imp, meta, nmeta))
		goto fail;
	err = imp->run(f, w, &io, &d);
	if (err == -ENOMEM)
		cli_error("out of memory");
	else if (err == -EIO && d.read_errno)
		cli_error("%s: read error: %s", in_name, strerror(d.read_errno));
	else if (err && d.line)
		cli_error("%s:%lu: %s", in_name, d.line, d.msg);
	else if (err && d.msg[0])
		cli_error("%s: %s", in_name, d.msg);
	else if (err)
		cli_tape_error(out, err);
	if (err)
		goto fail;
	err = cli_trace_finish(w, out, tmp);
	w = NULL;
	if (err)
		goto fail;
	ret = EXIT_OK;
	goto cleanup;
fail:
	cli_trace_abandon(w, out, tmp);
cleanup:
	free(tmp);
	free(meta);
	if (f && f != stdin)
		fclose(f);
	return ret;
}
