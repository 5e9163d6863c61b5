/* SPDX-License-Identifier: MIT */
/*
 * cmd_info.c - `iotape info`: what a trace holds and whether it is whole.
 *
 * Prints the metadata, the format version, per-table event and block
 * counts with their time span, the lost-event counters the recorder left in
 * the "lost.<table>" meta keys, and the signs of a crashed recording: an
 * index rebuilt by scanning, trailing bytes, unknown blocks.  Text for
 * people, --json (one object, keys documented in iotape-info(1)) for tools.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "opt.h"
#include "tape.h"

static const struct opt info_opts[] = {
	{ 'j', "json", NULL, "print one JSON object instead of text" },
	{ 0 }
};

static const struct opt_cmd info_cmd = {
	"info", "TRACE", "Show the metadata, tables and health of a trace.",
	NULL, info_opts,
};

#define LOST_PREFIX "lost."

struct info {
	const char *path;
	tape_reader *r;
	struct tape_table_stats st[TAPE_TABLE_MAX];
	uint64_t events;	/* all tables */
	uint64_t lost;		/* sum of the lost.* meta keys */
	uint64_t t_min, t_max;	/* over all tables; t_min > t_max when empty */
};

/* Value of a decimal meta value (lost.*, start_wall_ns); 0 when it is not
 * a decimal number. */
static uint64_t meta_u64(const char *v)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || end == v || *end || *v == '-')
		return 0;
	return n;
}

static uint64_t table_lost(const struct info *in, int t)
{
	char key[64];
	const char *v;

	snprintf(key, sizeof(key), LOST_PREFIX "%s", tape_table_name(t));
	v = tape_reader_meta(in->r, key);
	return v ? meta_u64(v) : 0;
}

static void info_collect(struct info *in)
{
	size_t n = tape_reader_meta_count(in->r);

	in->t_min = UINT64_MAX;
	in->t_max = 0;
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		struct tape_table_stats *s = &in->st[t];

		if (tape_reader_table_stats(in->r, t, s) < 0)
			memset(s, 0, sizeof(*s));
		in->events += s->events;
		if (s->events && s->t_min < in->t_min)
			in->t_min = s->t_min;
		if (s->events && s->t_max > in->t_max)
			in->t_max = s->t_max;
	}
	for (size_t i = 0; i < n; i++) {
		const char *k, *v;

		if (tape_reader_meta_at(in->r, i, &k, &v) == 0 &&
		    strncmp(k, LOST_PREFIX, strlen(LOST_PREFIX)) == 0)
			in->lost += meta_u64(v);
	}
}

static int info_json(struct info *in, FILE *f)
{
	json_t *o = json_object(), *tables = json_object(), *lost = json_object();
	json_t *meta = json_object();
	const char *rec = tape_reader_recovered(in->r);
	uint64_t size = tape_reader_file_size(in->r);
	size_t n = tape_reader_meta_count(in->r);
	unsigned major, minor;
	char ver[32];
	int ret;

	if (!o || !tables || !lost || !meta) {
		json_decref(o);
		json_decref(tables);
		json_decref(lost);
		json_decref(meta);
		return -ENOMEM;
	}
	tape_reader_version(in->r, &major, &minor);
	snprintf(ver, sizeof(ver), "%u.%u", major, minor);
	json_object_set_new(o, "file", json_string(in->path));
	json_object_set_new(o, "format_version", json_string(ver));
	json_object_set_new(o, "file_bytes", cli_json_u64(size));
	json_object_set_new(o, "events", cli_json_u64(in->events));
	json_object_set_new(o, "lost_events", cli_json_u64(in->lost));
	json_object_set_new(o, "bytes_per_event", in->events ?
			    json_real((double)size / in->events) : json_null());
	json_object_set_new(o, "t_min_ns", in->events ?
			    cli_json_u64(in->t_min) : json_null());
	json_object_set_new(o, "t_max_ns", in->events ?
			    cli_json_u64(in->t_max) : json_null());
	json_object_set_new(o, "duration_ns", cli_json_u64(in->events ?
			    in->t_max - in->t_min : 0));
	json_object_set_new(o, "recovered", rec ? json_string(rec) : json_null());
	json_object_set_new(o, "trailing_bytes",
			    cli_json_u64(tape_reader_trailing_bytes(in->r)));
	json_object_set_new(o, "unknown_blocks",
			    cli_json_u64(tape_reader_unknown_blocks(in->r)));
	const char *dmg;
	uint64_t ndmg = tape_reader_damaged_meta(in->r, &dmg);
	json_object_set_new(o, "damaged_meta_chunks", cli_json_u64(ndmg));
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		const struct tape_table_stats *s = &in->st[t];
		json_t *to = json_object();

		json_object_set_new(to, "events", cli_json_u64(s->events));
		json_object_set_new(to, "blocks", cli_json_u64(s->blocks));
		json_object_set_new(to, "bytes", cli_json_u64(s->bytes));
		json_object_set_new(to, "t_min_ns", s->events ?
				    cli_json_u64(s->t_min) : json_null());
		json_object_set_new(to, "t_max_ns", s->events ?
				    cli_json_u64(s->t_max) : json_null());
		json_object_set_new(to, "lost", cli_json_u64(table_lost(in, t)));
		json_object_set_new(tables, tape_table_name(t), to);
	}
	json_object_set_new(o, "tables", tables);
	for (size_t i = 0; i < n; i++) {
		const char *k, *v;

		if (tape_reader_meta_at(in->r, i, &k, &v) < 0)
			continue;
		json_object_set_new(meta, k, cli_json_str(v));
		if (strncmp(k, LOST_PREFIX, strlen(LOST_PREFIX)) == 0)
			json_object_set_new(lost, k + strlen(LOST_PREFIX),
					    cli_json_u64(meta_u64(v)));
	}
	json_object_set_new(o, "lost", lost);
	json_object_set_new(o, "meta", meta);
	ret = json_dumpf(o, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(o);
	return ret ? -EIO : 0;
}

/* The recorder's start_wall_ns as a UTC date, when it is there. */
static void info_started(struct info *in, FILE *f)
{
	const char *v = tape_reader_meta(in->r, "start_wall_ns");
	uint64_t ns = v ? meta_u64(v) : 0;
	time_t secs = (time_t)(ns / 1000000000);
	struct tm tm;
	char buf[64];

	if (!ns || !gmtime_r(&secs, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		return;
	fprintf(f, "%-16s %s.%03u UTC\n", "started", buf,
		(unsigned)(ns % 1000000000 / 1000000));
}

static void info_text(struct info *in, FILE *f)
{
	const char *rec = tape_reader_recovered(in->r);
	uint64_t size = tape_reader_file_size(in->r);
	uint64_t trail = tape_reader_trailing_bytes(in->r);
	size_t n = tape_reader_meta_count(in->r);
	unsigned major, minor;
	char b1[32], b2[32], b3[32];

	tape_reader_version(in->r, &major, &minor);
	cli_fmt_bytes(b1, sizeof(b1), size);
	fprintf(f, "%-16s ", "trace");
	cli_put_escaped(f, in->path, 0);
	fprintf(f, "\n%-16s %u.%u\n", "format", major, minor);
	fprintf(f, "%-16s %s (%" PRIu64 " bytes)\n", "file size", b1, size);
	fprintf(f, "%-16s %" PRIu64 "\n", "events", in->events);
	fprintf(f, "%-16s %" PRIu64 "\n", "lost events", in->lost);
	if (in->events)
		fprintf(f, "%-16s %.1f\n", "bytes/event", (double)size / in->events);
	else
		fprintf(f, "%-16s -\n", "bytes/event");
	if (in->events) {
		cli_fmt_ns(b2, sizeof(b2), in->t_max - in->t_min);
		fprintf(f, "%-16s %s (%" PRIu64 " .. %" PRIu64 " ns)\n", "duration",
			b2, in->t_min, in->t_max);
	} else {
		fprintf(f, "%-16s -\n", "duration");
	}
	info_started(in, f);
	if (rec)
		fprintf(f, "%-16s rebuilt by scanning: %s\n", "index", rec);
	else
		fprintf(f, "%-16s from the footer\n", "index");
	if (trail)
		fprintf(f, "%-16s %" PRIu64 " bytes ignored (incomplete chunk)\n",
			"trailing", trail);
	if (tape_reader_unknown_blocks(in->r))
		fprintf(f, "%-16s %" PRIu64 " skipped (tables this version does not know)\n",
			"unknown blocks", tape_reader_unknown_blocks(in->r));
	const char *dmg;
	uint64_t ndmg = tape_reader_damaged_meta(in->r, &dmg);
	if (ndmg)
		fprintf(f, "%-16s %" PRIu64 " damaged metadata chunk(s), keys missing: %s\n",
			"metadata", ndmg, dmg);

	fprintf(f, "\n%-10s %12s %8s %10s %10s %12s %10s\n", "table", "events",
		"blocks", "bytes", "start", "duration", "lost");
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		const struct tape_table_stats *s = &in->st[t];

		cli_fmt_bytes(b1, sizeof(b1), s->bytes);
		if (s->events) {
			cli_fmt_ns(b2, sizeof(b2), s->t_min - in->t_min);
			cli_fmt_ns(b3, sizeof(b3), s->t_max - s->t_min);
		} else {
			strcpy(b2, "-");
			strcpy(b3, "-");
		}
		fprintf(f, "%-10s %12" PRIu64 " %8" PRIu64 " %10s %10s %12s %10" PRIu64 "\n",
			tape_table_name(t), s->events, s->blocks, b1, b2, b3,
			table_lost(in, t));
	}

	fprintf(f, "\nmeta\n");
	for (size_t i = 0; i < n; i++) {
		const char *k, *v;

		if (tape_reader_meta_at(in->r, i, &k, &v) < 0)
			continue;
		fputs("  ", f);
		cli_put_escaped(f, k, 0);
		fprintf(f, "%*s", (int)(strlen(k) < 16 ? 16 - strlen(k) : 1), "");
		cli_put_escaped(f, v, 0);
		fputc('\n', f);
	}
	if (!n)
		fprintf(f, "  (none)\n");
}

int cmd_info(int argc, char **argv)
{
	struct opt_parser p;
	struct info in = { 0 };
	int json = 0, c, err;

	opt_init(&p, &info_cmd, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case OPT_HELP:
			return EXIT_OK;
		case OPT_ERR:
			return EXIT_USAGE;
		case 'j':
			json = 1;
			break;
		}
	}
	if (!(in.path = opt_one_arg(&p, "TRACE"))) {
		return EXIT_USAGE;
	}
	err = tape_reader_open(&in.r, in.path);
	if (err < 0) {
		cli_tape_error(in.path, err);
		return EXIT_FAIL;
	}
	info_collect(&in);
	if (json) {
		err = info_json(&in, stdout);
		if (err == -ENOMEM)
			cli_error("out of memory");
	} else {
		info_text(&in, stdout);
		err = 0;
	}
	tape_reader_free(in.r);
	return err ? EXIT_FAIL : EXIT_OK;
}
