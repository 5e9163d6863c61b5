/* SPDX-License-Identifier: MIT */
/*
 * cmd_convert.c - `iotape convert`: rewrite a trace with another format
 * version or other encoder settings.
 *
 * Every event of every table the library knows, and every metadata key,
 * is read from IN and written to OUT in the same order per table; nothing
 * else changes.  Uses: share a trace with a site whose iotape reads only
 * format 1.0 (--format-version 1.0), trade size for decode speed (--fast,
 * --level), or bring an older trace to the current encodings.
 *
 * A damaged block in IN stops the conversion with one error line and
 * leaves OUT as it was (absent, or the old file with -f).
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

struct convert_cfg {
	const char *out;
	int force, fast, quiet;
	int v10;		/* --format-version 1.0 (the second choice) */
	unsigned level;
};

static const struct opt convert_opts[] = {
	{ 'o', "output", "TRACE", "trace to create", NULL, NULL, OPT_REQUIRED,
	  OPT_T_STR(struct convert_cfg, out) },
	{ 'f', "force", NULL, "replace TRACE if it exists", OPT_T_FLAG(struct convert_cfg, force) },
	{ 'V', "format-version", "VERSION", "format version to write", "1.1|1.0", "1.1",
	  OPT_T_CHOICE(struct convert_cfg, v10) },
	{ OPT_LONG(0), "fast", NULL, "no EXP/DEXP columns: faster to write and read, larger",
	  OPT_T_FLAG(struct convert_cfg, fast) },
	{ 'l', "level", "N", "zstd level of the compressed columns, 1-19", NULL, "1",
	  OPT_T_UINT(struct convert_cfg, level, 1, 19) },
	{ 'q', "quiet", NULL, "no summary line on stderr", OPT_T_FLAG(struct convert_cfg, quiet) },
	{ 0 }
};

const struct opt_cmd convert_cmd = {
	"convert", "IN", "Rewrite a trace with another format version or encoder settings.",
	"Every event of every known table and every metadata key is copied; see\n"
	"iotape-convert(1) and iotape-format(5).",
	convert_opts,
};

/* Copy every event of one table; 0 or -errno (what failed in *side:
 * 'r' reading, 'w' writing). */
static int copy_table(tape_reader *r, tape_writer *w, int table, uint64_t *n, char *side)
{
	tape_cursor *c;
	const void *evs;
	size_t k, size = tape_table_event_size(table);
	int ret;

	*side = 'r';
	if ((ret = tape_cursor_open(r, table, 0, UINT64_MAX, &c)) < 0)
		return ret;
	while ((ret = tape_cursor_next_block(c, &evs, &k)) > 0) {
		for (size_t i = 0; i < k; i++) {
			if ((ret = tape_writer_append(w, table, (const char *)evs + i * size)) < 0) {
				*side = 'w';
				tape_cursor_free(c);
				return ret;
			}
		}
		*n += k;
	}
	tape_cursor_free(c);
	return ret;
}

int cmd_convert(int argc, char **argv)
{
	struct tape_writer_opts o = { 0 };
	struct convert_cfg cfg = { 0 };
	struct opt_parser p;
	const char *in, *out;
	int c, ret = EXIT_FAIL, err;
	tape_reader *r = NULL;
	tape_writer *w = NULL;
	char *tmp = NULL;
	struct stat si, so;
	uint64_t events = 0;

	opt_init_cfg(&p, &convert_cmd, &cfg, argc, argv);
	if ((c = opt_all(&p)) != OPT_END)
		return c == OPT_HELP ? EXIT_OK : EXIT_USAGE;
	out = cfg.out;
	o.flags = (cfg.v10 ? TAPE_WRITE_V10 : 0) | (cfg.fast ? TAPE_WRITE_FAST : 0);
	o.zstd_level = (int)cfg.level;
	if (!(in = opt_one_arg(&p, "IN")))
		return EXIT_USAGE;
	if (!out) {
		opt_error(&convert_cmd, "missing -o TRACE");
		return EXIT_USAGE;
	}
	if ((err = tape_reader_open(&r, in)) < 0) {
		cli_tape_error(in, err);
		return EXIT_FAIL;
	}
	if (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev &&
	    si.st_ino == so.st_ino) {
		cli_error("%s: is the input (write to another file)", out);
		goto cleanup;
	}
	if (cli_output_refused(out, cfg.force) || cli_trace_create(out, cfg.force, &o, &tmp, &w))
		goto cleanup;
	for (size_t i = 0; i < tape_reader_meta_count(r); i++) {
		const char *k, *v;
		if (tape_reader_meta_at(r, i, &k, &v) == 0 &&
		    (err = tape_writer_set_meta(w, k, v)) < 0) {
			cli_tape_error(out, err);
			goto fail;
		}
	}
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		char side;
		if ((err = copy_table(r, w, t, &events, &side)) < 0) {
			cli_tape_error(side == 'r' ? in : out, err);
			goto fail;
		}
	}
	err = cli_trace_finish(w, out, tmp);
	w = NULL;
	if (err)
		goto fail;
	if (!cfg.quiet && stat(out, &so) == 0) {
		uint64_t ib = tape_reader_file_size(r), ob = (uint64_t)so.st_size;
		cm_put_escaped(stderr, out, 0);
		fprintf(stderr, ": %" PRIu64 " events, %" PRIu64 " -> %" PRIu64
			" bytes (%.2f -> %.2f bytes/event), format %s\n", events, ib, ob,
			events ? (double)ib / (double)events : 0.0,
			events ? (double)ob / (double)events : 0.0,
			o.flags & TAPE_WRITE_V10 ? "1.0" : "1.1");
	}
	ret = EXIT_OK;
	goto cleanup;
fail:
	cli_trace_abandon(w, out, tmp);
cleanup:
	free(tmp);
	tape_reader_free(r);
	return ret;
}
