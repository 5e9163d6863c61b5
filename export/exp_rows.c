/* SPDX-License-Identifier: MIT */
/*
 * exp_rows.c - the row exporters: every event of a trace, one per line,
 * as text, CSV or JSON lines (`iotape dump`).
 *
 * Generic over tables: the column descriptions from tape_table_columns()
 * say what to write and how (tape_column_get() and the column's text
 * kind), so a new column or table shows up here without code.  Only the
 * human text format has a few per-column niceties.
 *
 * CSV is the exchange format that `iotape import` reads back
 * (import/imp_csv.c): header row = column names in table order, numbers
 * in decimal (signed where the column is), names for ops, RWBS letters,
 * cache kinds and metrics (a number when the value has no name), 0x hex
 * for flags and file system magics, and strings as raw bytes, RFC
 * 4180-quoted when needed.  dump | import | dump is byte-identical.
 *
 * Text and JSON lines of every table (o->table 0) merge the tables by
 * ts_ns (each table in file order); CSV writes one table, syscall unless
 * o->table says.  A damaged block stops the rows after the events before
 * it, with the error in d->msg.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "export.h"
#include "fmt.h"
#include "fstype.h"
#include "trace.h"

enum rows_fmt { ROWS_TEXT, ROWS_CSV, ROWS_JSONL };

/* Block flags bits tape_blk_flags_format() can spell. */
#define BLK_KNOWN_FLAGS ((uint64_t)TAPE_BLK_KNOWN)

struct src {
	int table;
	tape_cursor *cur;
	const void *ev;		/* current event, NULL when done */
	const struct tape_column *cols;
	size_t ncols;
};

struct dump {
	FILE *f;
	enum rows_fmt fmt;
	uint64_t t0;		/* first timestamp of the trace (text) */
};

/* Sign-extended value of a signed column. */
static int64_t col_signed(const struct tape_column *c, uint64_t v)
{
	return c->width == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

/* A non-string column as CSV text (what import parses back). */
static const char *col_text(const struct tape_column *c, uint64_t v,
			    char *buf, size_t len)
{
	const char *name;

	switch (c->text) {
	case TAPE_TXT_OP:
	case TAPE_TXT_CACHEKIND:
	case TAPE_TXT_METRIC:
	case TAPE_TXT_WAKE:
	case TAPE_TXT_WAITCALL:
		name = tape_column_enum_name(c, v);
		if (name)
			return name;
		break;
	case TAPE_TXT_BLKFLAGS:
		if (!(v & ~BLK_KNOWN_FLAGS)) {
			tape_blk_flags_format(v, buf, len);
			return buf;
		}
		snprintf(buf, len, "0x%" PRIx64, v);	/* bits without letters */
		return buf;
	case TAPE_TXT_HEX:
	case TAPE_TXT_FSTYPE:
		snprintf(buf, len, "0x%" PRIx64, v);
		return buf;
	}
	if (c->type == TAPE_COL_I64)
		snprintf(buf, len, "%" PRId64, col_signed(c, v));
	else
		snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

static const char *col_str(const struct tape_column *c, const void *ev)
{
	const char *s;

	memcpy(&s, (const char *)ev + c->offset, sizeof(s));
	return s ? s : "";
}

/* ------------------------------------------------------------------ csv */

static void csv_put_str(FILE *f, const char *s)
{
	size_t n = strlen(s);
	int quote = n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' ||
			  s[n - 1] == '\t');

	if (!quote && !strpbrk(s, ",\"\r\n")) {
		fwrite(s, 1, n, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_header(struct dump *d, const struct src *s)
{
	for (size_t i = 0; i < s->ncols; i++)
		fprintf(d->f, "%s%s", i ? "," : "", s->cols[i].name);
	fputc('\n', d->f);
}

static void csv_event(struct dump *d, const struct src *s)
{
	char buf[32];

	for (size_t i = 0; i < s->ncols; i++) {
		const struct tape_column *c = &s->cols[i];

		if (i)
			fputc(',', d->f);
		if (c->type == TAPE_COL_STR)
			csv_put_str(d->f, col_str(c, s->ev));
		else
			fputs(col_text(c, tape_column_get(c, s->ev), buf,
				       sizeof(buf)), d->f);
	}
	fputc('\n', d->f);
}

/* ---------------------------------------------------------------- jsonl */

static json_t *json_col(const struct tape_column *c, const void *ev)
{
	uint64_t v;
	const char *name;
	char buf[32];

	if (c->type == TAPE_COL_STR)
		return cm_json_str(col_str(c, ev));
	v = tape_column_get(c, ev);
	name = tape_column_enum_name(c, v);
	if (name)
		return json_string(name);
	if (c->text == TAPE_TXT_BLKFLAGS && !(v & ~BLK_KNOWN_FLAGS)) {
		tape_blk_flags_format(v, buf, sizeof(buf));
		return json_string(buf);
	}
	if (c->type == TAPE_COL_I64)
		return json_integer(col_signed(c, v));
	return cm_json_u64(v);
}

static int jsonl_event(struct dump *d, const struct src *s)
{
	json_t *o = json_object();

	if (!o)
		return -ENOMEM;
	json_object_set_new(o, "table", json_string(tape_table_name(s->table)));
	for (size_t i = 0; i < s->ncols; i++)
		json_object_set_new(o, s->cols[i].name, json_col(&s->cols[i], s->ev));
	/* a failed write shows in ferror(), checked at the end */
	json_dumpf(o, d->f, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fputc('\n', d->f);
	json_decref(o);
	return 0;
}

/* ----------------------------------------------------------------- text */

static void text_errno(FILE *f, int64_t ret)
{
	const char *name = ret < 0 && ret > -4096 ? strerrorname_np((int)-ret) : NULL;

	fprintf(f, " ret=%" PRId64, ret);
	if (name)
		fprintf(f, " (%s)", name);
}

/* "ts pid/tid what col=val ..." with the columns a human wants first. */
static void text_event(struct dump *d, const struct src *s)
{
	const void *ev = s->ev;
	const struct tape_column *pid = tape_column_find(s->table, "pid");
	const struct tape_column *tid = tape_column_find(s->table, "tid");
	const struct tape_column *op = tape_column_find(s->table, "op");
	uint64_t ts = tape_column_get(&s->cols[0], ev);
	int transfer = 0, output = 0;
	char buf[32];
	FILE *f = d->f;

	if (op) {
		enum tape_op_class k = tape_op_class((unsigned)tape_column_get(op, ev));

		output = tape_op_has_output((unsigned)tape_column_get(op, ev));
		transfer = k == TAPE_OPC_READ || k == TAPE_OPC_WRITE || output;
	}

	if (ts >= d->t0)
		fprintf(f, "%6" PRIu64 ".%09" PRIu64, (ts - d->t0) / 1000000000,
			(ts - d->t0) % 1000000000);
	else
		fprintf(f, "%5s-%" PRIu64 ".%09" PRIu64, "", (d->t0 - ts) / 1000000000,
			(d->t0 - ts) % 1000000000);
	if (pid && tid)
		snprintf(buf, sizeof(buf), "%" PRIu64 "/%" PRIu64,
			 tape_column_get(pid, ev), tape_column_get(tid, ev));
	else
		strcpy(buf, "-");
	fprintf(f, " %15s ", buf);
	if (op)
		fputs(col_text(op, tape_column_get(op, ev), buf, sizeof(buf)), f);
	else
		fputs(tape_table_name(s->table), f);

	for (size_t i = 1; i < s->ncols; i++) {
		const struct tape_column *c = &s->cols[i];
		uint64_t v;

		if (c == pid || c == tid || c == op)
			continue;
		if (c->type == TAPE_COL_STR) {
			const char *str = col_str(c, ev);

			if (op && strcmp(c->name, "path") == 0) {
				if (*str) {
					fputc(' ', f);
					cm_put_escaped(f, str, 1);
				}
			} else if (op && strcmp(c->name, "path2") == 0) {
				if (*str) {
					fputs(" -> ", f);
					cm_put_escaped(f, str, 1);
				}
			} else {
				fprintf(f, " %s=", c->name);
				cm_put_escaped(f, str, 1);
			}
			continue;
		}
		v = tape_column_get(c, ev);
		if (op && !output && (strcmp(c->name, "fd2") == 0 ||
				      strcmp(c->name, "file_id2") == 0 ||
				      strcmp(c->name, "offset2") == 0))
			continue;	/* only a copy has an output side */
		if (strcmp(c->name, "dur_ns") == 0) {
			cm_fmt_ns(buf, sizeof(buf), v);
			fprintf(f, " dur=%s", buf);
		} else if (op && strcmp(c->name, "ret") == 0) {
			text_errno(f, col_signed(c, v));
		} else if (op && (strcmp(c->name, "file_id") == 0 ||
				  strcmp(c->name, "file_id2") == 0 ||
				  strcmp(c->name, "flags") == 0) && !v) {
			continue;	/* unknown file, no flags: noise */
		} else if (op && strcmp(c->name, "fd") == 0 &&
			   col_signed(c, v) == -1) {
			continue;	/* no fd argument */
		} else if (op && strcmp(c->name, "fd") == 0 &&
			   col_signed(c, v) == -100) {
			fputs(" fd=AT_FDCWD", f);
		} else if (op && (strcmp(c->name, "offset") == 0 ||
				  strcmp(c->name, "size") == 0) && !v &&
			   !transfer) {
			continue;	/* not a read or write */
		} else if (op && strcmp(c->name, "offset") == 0) {
			fprintf(f, " off=%" PRIu64, v);
		} else if (op && strcmp(c->name, "offset2") == 0) {
			fprintf(f, " off2=%" PRIu64, v);
		} else if (strcmp(c->name, "dev") == 0) {
			fprintf(f, " dev=%" PRIu64 ":%" PRIu64, v >> 20, v & 0xfffff);
		} else if (c->text == TAPE_TXT_FSTYPE) {
			const char *name = cm_fstype_name(v);

			if (name)
				fprintf(f, " %s=%s", c->name, name);
			else if (v)	/* 0: unknown, or a trace without it */
				fprintf(f, " %s=0x%" PRIx64, c->name, v);
		} else {
			fprintf(f, " %s=%s", c->name, col_text(c, v, buf, sizeof(buf)));
		}
	}
	fputc('\n', f);
}

/* ---------------------------------------------------------------- merge */

static int src_advance(struct src *s)
{
	int ret = tape_cursor_next(s->cur, &s->ev);

	if (ret <= 0)
		s->ev = NULL;
	return ret < 0 ? ret : 0;
}

static int dump_event(struct dump *d, const struct src *s)
{
	switch (d->fmt) {
	case ROWS_CSV:
		csv_event(d, s);
		return 0;
	case ROWS_JSONL:
		return jsonl_event(d, s);
	default:
		text_event(d, s);
		return 0;
	}
}

/* Print every source's events in ts_ns order; ties go to the lower table
 * id.  Returns 0 or the first cursor error (with *bad set). */
static int dump_merge(struct dump *d, struct src *srcs, int n, struct src **bad)
{
	int err;

	for (int i = 0; i < n; i++) {
		err = src_advance(&srcs[i]);
		if (err) {
			*bad = &srcs[i];
			return err;
		}
	}
	for (;;) {
		struct src *min = NULL;
		uint64_t mts = 0;

		for (int i = 0; i < n; i++) {
			uint64_t ts;

			if (!srcs[i].ev)
				continue;
			ts = tape_column_get(&srcs[i].cols[0], srcs[i].ev);
			if (!min || ts < mts) {
				min = &srcs[i];
				mts = ts;
			}
		}
		if (!min)
			return 0;
		err = dump_event(d, min);
		if (!err)
			err = src_advance(min);
		if (err) {
			*bad = min;
			return err;
		}
	}
}

/* The rows of io->r in format fmt to io->f, as the header says. */
static int rows_write(const struct exp_io *io, const struct exp_opts *o, struct exp_diag *d,
		      enum rows_fmt fmt)
{
	struct dump dd = { .f = io->f, .fmt = fmt, .t0 = UINT64_MAX };
	struct src srcs[TAPE_TABLE_MAX], *bad = NULL;
	int table = o && o->table ? o->table : fmt == ROWS_CSV ? TAPE_TABLE_SYSCALL : 0;
	int nsrc = 0, err = 0;

	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		struct tape_table_stats st;
		struct src *s;

		if (tape_reader_table_stats(io->r, t, &st) == 0 && st.events &&
		    st.t_min < dd.t0)
			dd.t0 = st.t_min;
		if (table && t != table)
			continue;
		s = &srcs[nsrc];
		memset(s, 0, sizeof(*s));
		s->table = t;
		s->cols = tape_table_columns(t, &s->ncols);
		err = tape_cursor_open(io->r, t, 0, UINT64_MAX, &s->cur);
		if (err < 0) {
			cm_trace_error(d->msg, sizeof(d->msg), io->trace, err);
			goto out;
		}
		nsrc++;
	}
	if (dd.t0 == UINT64_MAX)
		dd.t0 = 0;
	if (fmt == ROWS_CSV)
		csv_header(&dd, &srcs[0]);
	err = dump_merge(&dd, srcs, nsrc, &bad);
	if (err == -ENOMEM) {
		snprintf(d->msg, sizeof(d->msg), "out of memory");
	} else if (err) {
		char what[4200];

		fflush(dd.f);	/* the rows before the error come before it */
		snprintf(what, sizeof(what), "%s: table %s", io->trace,
			 tape_table_name(bad->table));
		cm_trace_error(d->msg, sizeof(d->msg), what, err);
	}
out:
	for (int i = 0; i < nsrc; i++)
		tape_cursor_free(srcs[i].cur);
	return err;
}

static int text_write(const struct exp_io *io, const struct exp_opts *o, struct exp_diag *d)
{
	return rows_write(io, o, d, ROWS_TEXT);
}

static int csv_write(const struct exp_io *io, const struct exp_opts *o, struct exp_diag *d)
{
	return rows_write(io, o, d, ROWS_CSV);
}

static int jsonl_write(const struct exp_io *io, const struct exp_opts *o, struct exp_diag *d)
{
	return rows_write(io, o, d, ROWS_JSONL);
}

const struct exporter exp_text = {
	"text", "one event a line for people: time since the start, pid/tid, what, columns",
	EXP_NEEDS_READER | EXP_ROWS, text_write,
};
const struct exporter exp_csv = {
	"csv", "one table as CSV, header of its column names: what `iotape import` reads back",
	EXP_NEEDS_READER | EXP_ROWS, csv_write,
};
const struct exporter exp_jsonl = {
	"jsonl", "one JSON object an event, its table and every column by name",
	EXP_NEEDS_READER | EXP_ROWS, jsonl_write,
};
