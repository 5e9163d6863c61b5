/* SPDX-License-Identifier: MIT */
/*
 * exp_info.c - what a trace holds and whether it is whole (`iotape info`),
 * as text for people and one JSON object for tools.
 *
 * The metadata, the format version, per-table event and block counts with
 * their time span, the lost-event counters the recorder left in the
 * "lost.<table>" meta keys, whether the file table holds the files' file
 * system types (the optional column fstype, which older recorders and
 * imports leave out: the file table's blocks are read for it), and the
 * signs of a crashed recording: an index rebuilt by scanning, trailing
 * bytes, unknown blocks.  With columns, where each table's bytes go,
 * column by column, and in which encodings (every block read).  The JSON's
 * keys are documented in iotape-info(1).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "export.h"
#include "fmt.h"
#include "parse.h"
#include "tape.h"

#define LOST_PREFIX "lost."
#define INFO_MAXCOLS 64	/* columns shown per table */

struct info {
	const char *path;
	tape_reader *r;
	struct tape_table_stats st[TAPE_TABLE_MAX];
	uint64_t events;	/* all tables */
	uint64_t lost;		/* sum of the lost.* meta keys */
	uint64_t t_min, t_max;	/* over all tables; t_min > t_max when empty */
	/* file blocks that hold the fstype column; -errno when the file
	 * table could not be read */
	int64_t fstype_blocks;
	/* --columns: each table's columns (NULL without it) */
	struct tape_column_stats (*cols)[INFO_MAXCOLS];
	size_t ncols[TAPE_TABLE_MAX];
};

/* Value of a decimal meta value (lost.*, start_wall_ns); 0 when it is not
 * a decimal number. */
static uint64_t meta_u64(const char *v)
{
	uint64_t n;

	return cm_parse_u64(v, 0, UINT64_MAX, &n) ? 0 : n;
}

static uint64_t table_lost(const struct info *in, int t)
{
	char key[64];
	const char *v;

	snprintf(key, sizeof(key), LOST_PREFIX "%s", tape_table_name(t));
	v = tape_reader_meta(in->r, key);
	return v ? meta_u64(v) : 0;
}

/* How many file blocks have the fstype column (it is left out of blocks
 * whose files' types are all unknown): 0 or more, or -errno. */
static int64_t fstype_blocks(tape_reader *r)
{
	struct tape_column_stats cols[INFO_MAXCOLS];
	size_t n;
	int err;

	if ((err = tape_reader_column_stats(r, TAPE_TABLE_FILE, cols, INFO_MAXCOLS, &n)) < 0)
		return err;
	for (size_t i = 0; i < n && i < INFO_MAXCOLS; i++)
		if (cols[i].name && strcmp(cols[i].name, "fstype") == 0)
			return (int64_t)cols[i].blocks;
	return 0;
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
	in->fstype_blocks = fstype_blocks(in->r);
}

/* --columns: read every block; 0 or -errno (a damaged block). */
static int info_columns(struct info *in)
{
	int err;

	if (!(in->cols = calloc(TAPE_TABLE_MAX, sizeof(*in->cols))))
		return -ENOMEM;
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		if ((err = tape_reader_column_stats(in->r, t, in->cols[t], INFO_MAXCOLS,
						    &in->ncols[t])) < 0)
			return err;
		if (in->ncols[t] > INFO_MAXCOLS)
			in->ncols[t] = INFO_MAXCOLS;
	}
	return 0;
}

/* Columns of table t by bytes, most first: their indices in order. */
static void cols_by_bytes(const struct info *in, int t, size_t *order)
{
	size_t n = in->ncols[t];
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && in->cols[t][order[j]].bytes >
					     in->cols[t][order[j - 1]].bytes; j--) {
			size_t x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
}

/* A column's name, or "#ID" for one this iotape does not know. */
static const char *col_name(const struct tape_column_stats *c, char *buf, size_t len)
{
	if (c->name)
		return c->name;
	snprintf(buf, len, "#%u", c->id);
	return buf;
}

/* An encoding's name, or "#ID" for one this iotape does not know. */
static const char *enc_name(unsigned e, char *buf, size_t len)
{
	const char *n = tape_encoding_name(e);
	if (n)
		return n;
	snprintf(buf, len, "#%u", e);
	return buf;
}

static json_t *columns_json(const struct info *in, int t)
{
	json_t *o = json_object();
	size_t order[INFO_MAXCOLS];
	char nb[16];

	cols_by_bytes(in, t, order);
	for (size_t i = 0; i < in->ncols[t]; i++) {
		const struct tape_column_stats *c = &in->cols[t][order[i]];
		json_t *co = json_object(), *enc = json_object();

		json_object_set_new(co, "id", json_integer(c->id));
		json_object_set_new(co, "blocks", cm_json_u64(c->blocks));
		json_object_set_new(co, "bytes", cm_json_u64(c->bytes));
		json_object_set_new(co, "bytes_per_event", in->st[t].events ?
				    json_real((double)c->bytes / in->st[t].events) : json_null());
		json_object_set_new(co, "zstd_blocks", cm_json_u64(c->zstd));
		json_object_set_new(co, "pred_blocks", cm_json_u64(c->pred));
		for (unsigned e = 0; e < 64; e++) {
			char eb[16];
			if (c->enc[e])
				json_object_set_new(enc, enc_name(e, eb, sizeof(eb)),
						    cm_json_u64(c->enc[e]));
		}
		json_object_set_new(co, "encodings", enc);
		json_object_set_new(o, col_name(c, nb, sizeof(nb)), co);
	}
	return o;
}

static void columns_text(const struct info *in, FILE *f)
{
	char nb[16];

	fprintf(f, "\ncolumns          bytes/event of the table, share of its bytes, "
		"encodings by blocks\n");
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		size_t order[INFO_MAXCOLS];
		uint64_t sum = 0, ev = in->st[t].events;

		if (!in->ncols[t])
			continue;
		for (size_t i = 0; i < in->ncols[t]; i++)
			sum += in->cols[t][i].bytes;
		fprintf(f, "  %s\n", tape_table_name(t));
		cols_by_bytes(in, t, order);
		for (size_t i = 0; i < in->ncols[t]; i++) {
			const struct tape_column_stats *c = &in->cols[t][order[i]];
			const char *sep = "";

			fprintf(f, "    %-12s %8.3f %6.1f%%  ", col_name(c, nb, sizeof(nb)),
				ev ? (double)c->bytes / ev : 0.0,
				sum ? 100.0 * c->bytes / sum : 0.0);
			for (unsigned e = 0; e < 64; e++) {
				char eb[16];
				if (!c->enc[e])
					continue;
				fprintf(f, "%s%s %" PRIu64, sep, enc_name(e, eb, sizeof(eb)),
					c->enc[e]);
				sep = ", ";
			}
			if (c->zstd)
				fprintf(f, "; zstd %" PRIu64, c->zstd);
			if (c->pred)
				fprintf(f, "; pred %" PRIu64, c->pred);
			fputc('\n', f);
		}
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
	json_object_set_new(o, "file", cm_json_str(in->path));
	json_object_set_new(o, "format_version", json_string(ver));
	json_object_set_new(o, "file_bytes", cm_json_u64(size));
	json_object_set_new(o, "events", cm_json_u64(in->events));
	json_object_set_new(o, "lost_events", cm_json_u64(in->lost));
	json_object_set_new(o, "bytes_per_event", in->events ?
			    json_real((double)size / in->events) : json_null());
	json_object_set_new(o, "t_min_ns", in->events ?
			    cm_json_u64(in->t_min) : json_null());
	json_object_set_new(o, "t_max_ns", in->events ?
			    cm_json_u64(in->t_max) : json_null());
	json_object_set_new(o, "duration_ns", cm_json_u64(in->events ?
			    in->t_max - in->t_min : 0));
	json_object_set_new(o, "recovered", rec ? cm_json_str(rec) : json_null());
	json_object_set_new(o, "trailing_bytes",
			    cm_json_u64(tape_reader_trailing_bytes(in->r)));
	json_object_set_new(o, "unknown_blocks",
			    cm_json_u64(tape_reader_unknown_blocks(in->r)));
	const char *dmg;
	uint64_t ndmg = tape_reader_damaged_meta(in->r, &dmg);
	json_object_set_new(o, "damaged_meta_chunks", cm_json_u64(ndmg));
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		const struct tape_table_stats *s = &in->st[t];
		json_t *to = json_object();

		json_object_set_new(to, "events", cm_json_u64(s->events));
		json_object_set_new(to, "blocks", cm_json_u64(s->blocks));
		json_object_set_new(to, "bytes", cm_json_u64(s->bytes));
		json_object_set_new(to, "t_min_ns", s->events ?
				    cm_json_u64(s->t_min) : json_null());
		json_object_set_new(to, "t_max_ns", s->events ?
				    cm_json_u64(s->t_max) : json_null());
		json_object_set_new(to, "lost", cm_json_u64(table_lost(in, t)));
		if (t == TAPE_TABLE_FILE)
			json_object_set_new(to, "fstype_blocks", in->fstype_blocks >= 0 ?
					    cm_json_u64((uint64_t)in->fstype_blocks) :
					    json_null());
		if (in->cols)
			json_object_set_new(to, "columns", columns_json(in, t));
		json_object_set_new(tables, tape_table_name(t), to);
	}
	json_object_set_new(o, "tables", tables);
	for (size_t i = 0; i < n; i++) {
		const char *k, *v;

		if (tape_reader_meta_at(in->r, i, &k, &v) < 0)
			continue;
		json_object_set_new(meta, k, cm_json_str(v));
		if (strncmp(k, LOST_PREFIX, strlen(LOST_PREFIX)) == 0)
			json_object_set_new(lost, k + strlen(LOST_PREFIX),
					    cm_json_u64(meta_u64(v)));
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
	cm_fmt_bytes(b1, sizeof(b1), size);
	fprintf(f, "%-16s ", "trace");
	cm_put_escaped(f, in->path, 0);
	fprintf(f, "\n%-16s %u.%u\n", "format", major, minor);
	fprintf(f, "%-16s %s (%" PRIu64 " bytes)\n", "file size", b1, size);
	fprintf(f, "%-16s %" PRIu64 "\n", "events", in->events);
	fprintf(f, "%-16s %" PRIu64 "\n", "lost events", in->lost);
	if (in->events)
		fprintf(f, "%-16s %.1f\n", "bytes/event", (double)size / in->events);
	else
		fprintf(f, "%-16s -\n", "bytes/event");
	if (in->events) {
		cm_fmt_ns(b2, sizeof(b2), in->t_max - in->t_min);
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
	/* the files' file system types (the file table's column fstype) */
	if (in->fstype_blocks > 0)
		fprintf(f, "%-16s in %" PRId64 " of %" PRIu64 " file blocks\n", "fstype",
			in->fstype_blocks, in->st[TAPE_TABLE_FILE].blocks);
	else if (in->fstype_blocks < 0)
		fprintf(f, "%-16s unknown: the file table cannot be read (%s)\n", "fstype",
			tape_strerror((int)in->fstype_blocks));
	else if (in->st[TAPE_TABLE_FILE].events)
		fprintf(f, "%-16s not recorded (no file block has the column)\n", "fstype");

	fprintf(f, "\n%-10s %12s %8s %10s %10s %12s %10s\n", "table", "events",
		"blocks", "bytes", "start", "duration", "lost");
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		const struct tape_table_stats *s = &in->st[t];

		cm_fmt_bytes(b1, sizeof(b1), s->bytes);
		if (s->events) {
			cm_fmt_ns(b2, sizeof(b2), s->t_min - in->t_min);
			cm_fmt_ns(b3, sizeof(b3), s->t_max - s->t_min);
		} else {
			strcpy(b2, "-");
			strcpy(b3, "-");
		}
		fprintf(f, "%-10s %12" PRIu64 " %8" PRIu64 " %10s %10s %12s %10" PRIu64 "\n",
			tape_table_name(t), s->events, s->blocks, b1, b2, b3,
			table_lost(in, t));
	}

	if (in->cols)
		columns_text(in, f);

	fprintf(f, "\nmeta\n");
	for (size_t i = 0; i < n; i++) {
		const char *k, *v;

		if (tape_reader_meta_at(in->r, i, &k, &v) < 0)
			continue;
		fputs("  ", f);
		cm_put_escaped(f, k, 0);
		fprintf(f, "%*s", (int)(strlen(k) < 16 ? 16 - strlen(k) : 1), "");
		cm_put_escaped(f, v, 0);
		fputc('\n', f);
	}
	if (!n)
		fprintf(f, "  (none)\n");
}

int exp_info_write(tape_reader *r, const char *path, int columns, int json, FILE *f)
{
	struct info in = { .path = path, .r = r };
	int err = 0;

	info_collect(&in);
	if (columns && (err = info_columns(&in)) < 0)
		goto out;
	if (json)
		err = info_json(&in, f);
	else
		info_text(&in, f);
out:
	free(in.cols);
	return err;
}
