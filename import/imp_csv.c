/* SPDX-License-Identifier: MIT */
/*
 * imp_csv.c - the csv importer: the inverse of `iotape dump --format csv`.
 *
 * Generic over the columns of every table: the header row names the
 * columns (any subset, any order) and each row becomes one event, appended
 * in file order.  A full dump imports back to the same events, so dump |
 * import | dump is byte-identical.  Hand-written CSVs may leave columns
 * out: other tables then get 0 or "", the syscall table what imp_sys_fill
 * gives (iotape-import(1)).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fstype.h"
#include "import.h"
#include "tape_vec.h"

/* ------------------------------------------------------------ csv reader */

/* RFC 4180 records from a FILE: quoted fields may hold commas, quotes
 * ("" inside quotes) and newlines; CRLF or LF ends a record. */
struct csv {
	FILE *f;
	unsigned long line;	/* line of the next byte */
	unsigned long rec_line;	/* line the current record starts on */
	char *buf;		/* the fields, each NUL-terminated */
	size_t len, cap;
	size_t *off;		/* offset of each field in buf */
	size_t nf, fcap;
	char err[128];
	int read_errno;		/* why getc failed (EISDIR for a directory) */
};

static int csv_putc(struct csv *c, char ch)
{
	if (TAPE_VEC_GROW(c->buf, c->cap, c->len + 1, 4096))
		return -ENOMEM;
	c->buf[c->len++] = ch;
	return 0;
}

static int csv_new_field(struct csv *c)
{
	if (TAPE_VEC_GROW(c->off, c->fcap, c->nf + 1, 32))
		return -ENOMEM;
	c->off[c->nf++] = c->len;
	return 0;
}

static const char *csv_field(const struct csv *c, size_t i)
{
	return c->buf + c->off[i];
}

/* 1 and a record, 0 at the end of the input, -errno (c->err says why). */
static int csv_read(struct csv *c)
{
	int ch, quoted, any;

again:
	c->len = 0;
	c->nf = 0;
	c->rec_line = c->line;
	any = 0;	/* the record has a byte or a quoted field */
	for (;;) {
		if (csv_new_field(c))
			return -ENOMEM;
		quoted = 0;
		ch = getc(c->f);
		if (ch == '"') {
			quoted = any = 1;
			for (;;) {
				ch = getc(c->f);
				if (ch == EOF) {
					snprintf(c->err, sizeof(c->err),
						 "quoted field never ends");
					c->read_errno = errno;
					return ferror(c->f) ? -EIO : -EBADMSG;
				}
				if (ch == '"') {
					ch = getc(c->f);
					if (ch != '"')
						break;
				}
				if (ch == '\n')
					c->line++;
				if (ch == '\0')
					goto nul;
				if (csv_putc(c, (char)ch))
					return -ENOMEM;
			}
		}
		/* unquoted bytes, or what follows the closing quote */
		for (;; ch = getc(c->f)) {
			if (ch == ',' || ch == '\n' || ch == EOF)
				break;
			if (ch == '\r') {
				int next = getc(c->f);

				if (next == '\n') {
					ch = next;
					break;
				}
				ungetc(next, c->f);
			}
			if (quoted) {
				snprintf(c->err, sizeof(c->err),
					 "text after the closing quote of field %zu", c->nf);
				return -EBADMSG;
			}
			if (ch == '"') {
				snprintf(c->err, sizeof(c->err),
					 "quote inside unquoted field %zu (quote the whole field)",
					 c->nf);
				return -EBADMSG;
			}
			if (ch == '\0')
				goto nul;
			any = 1;
			if (csv_putc(c, (char)ch))
				return -ENOMEM;
		}
		if (csv_putc(c, '\0'))
			return -ENOMEM;
		if (ch == ',') {
			any = 1;
			continue;
		}
		if (ch == '\n')
			c->line++;
		if (ch == EOF && ferror(c->f)) {
			snprintf(c->err, sizeof(c->err), "read error");
			c->read_errno = errno;
			return -EIO;
		}
		if (!any) {
			/* blank line: skip it, or the end */
			if (ch == EOF)
				return 0;
			goto again;
		}
		return 1;
	}
nul:
	snprintf(c->err, sizeof(c->err), "NUL byte in field %zu", c->nf);
	return -EBADMSG;
}

/* --------------------------------------------------------------- values */

/* Parse decimal, -decimal (signed columns) or 0x hex into *v, checking the
 * column's range. */
static int parse_num(const struct tape_column *c, const char *s, uint64_t *v,
		     char *err, size_t errlen)
{
	int neg = 0, hex = 0, sgn = c->type == TAPE_COL_I64;
	uint64_t max, x = 0;
	const char *p = s;

	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		hex = 1;
		p += 2;
	}
	if (!*p)
		goto bad;
	for (; *p; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (hex && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (hex && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			goto bad;
		if (x > (UINT64_MAX - d) / (hex ? 16 : 10))
			goto range;
		x = x * (hex ? 16 : 10) + d;
	}
	if (neg && !sgn)
		goto range;
	max = c->width == 4 ? (sgn ? INT32_MAX : UINT32_MAX) :
			      (sgn ? INT64_MAX : UINT64_MAX);
	if (neg ? x > max + 1 : x > max)
		goto range;
	*v = neg ? 0 - x : x;
	if (neg && c->width == 4)
		*v &= 0xffffffffu;
	return 0;
bad:
	snprintf(err, errlen, "column %s: '%.40s' is not a number", c->name, s);
	return -EINVAL;
range:
	snprintf(err, errlen, "column %s: %.40s is out of range (%s %d-bit)",
		 c->name, s, sgn ? "signed" : "unsigned", c->width * 8);
	return -ERANGE;
}

static int parse_value(const struct tape_column *c, const char *s, uint64_t *v,
		       char *err, size_t errlen)
{
	int n = -EINVAL;

	switch (c->text) {
	case TAPE_TXT_OP:
	case TAPE_TXT_CACHEKIND:
	case TAPE_TXT_METRIC:
	case TAPE_TXT_WAKE:
	case TAPE_TXT_WAITCALL:
		n = tape_column_enum_value(c, s);
		break;
	case TAPE_TXT_BLKFLAGS:
		if (*s && !(*s >= '0' && *s <= '9') && tape_blk_flags_parse(s, v) == 0)
			return 0;
		break;
	case TAPE_TXT_FSTYPE:	/* a magic, or its name in a hand-written CSV */
		if ((*v = cm_fstype_from_name(s)))
			return 0;
		break;
	}
	if (n >= 0) {
		*v = (uint64_t)n;
		return 0;
	}
	if (c->text != TAPE_TXT_NUM && c->text != TAPE_TXT_HEX &&
	    !(*s >= '0' && *s <= '9')) {
		snprintf(err, errlen, "column %s: unknown %s '%.40s'", c->name,
			 c->text == TAPE_TXT_OP ? "op" :
			 c->text == TAPE_TXT_BLKFLAGS ? "RWBS flags" :
			 c->text == TAPE_TXT_FSTYPE ? "file system type" :
			 c->text == TAPE_TXT_CACHEKIND ? "cache kind" :
			 c->text == TAPE_TXT_WAKE ? "wake kind" :
			 c->text == TAPE_TXT_WAITCALL ? "wait call" : "metric", s);
		return -EINVAL;
	}
	return parse_num(c, s, v, err, errlen);
}

/* --------------------------------------------------------------- import */

union any_event {
	struct tape_syscall sys;
	struct tape_block blk;
	struct tape_cache cache;
	struct tape_process proc;
	struct tape_file file;
	struct tape_sample sample;
	uint64_t raw[32];
};

struct import {
	int table;
	struct csv csv;
	const struct tape_column *cols;	/* of the table */
	size_t ncols;
	const struct tape_column **map;	/* CSV field -> column */
	size_t nmap;
	char *have;		/* per table column: present in the CSV */
	struct imp_sys st;
	char err[256];
};

/* Read the header row: which column each field is. */
static int import_header(struct import *im)
{
	int ret = csv_read(&im->csv);

	if (ret < 0)
		return ret;
	if (ret == 0) {
		snprintf(im->err, sizeof(im->err), "empty input: no header row");
		return -EINVAL;
	}
	im->nmap = im->csv.nf;
	im->map = calloc(im->nmap, sizeof(*im->map));
	im->have = calloc(im->ncols, 1);
	if (!im->map || !im->have)
		return -ENOMEM;
	for (size_t i = 0; i < im->nmap; i++) {
		const char *name = csv_field(&im->csv, i);
		const struct tape_column *c;

		if (i == 0 && strncmp(name, "\xef\xbb\xbf", 3) == 0)
			name += 3;	/* UTF-8 byte order mark (spreadsheets) */
		c = tape_column_find(im->table, name);
		if (!c) {
			snprintf(im->err, sizeof(im->err),
				 "unknown column '%.60s' for table %s", name,
				 tape_table_name(im->table));
			return -EINVAL;
		}
		if (im->have[c - im->cols]) {
			snprintf(im->err, sizeof(im->err), "column %s appears twice",
				 name);
			return -EINVAL;
		}
		im->have[c - im->cols] = 1;
		im->map[i] = c;
	}
	if (!im->have[0]) {
		snprintf(im->err, sizeof(im->err), "no ts_ns column");
		return -EINVAL;
	}
	if (im->table == TAPE_TABLE_SYSCALL &&
	    !im->have[tape_column_find(im->table, "op") - im->cols]) {
		snprintf(im->err, sizeof(im->err), "no op column");
		return -EINVAL;
	}
	return 0;
}

/* Turn the current record into *ev. */
static int import_row(struct import *im, union any_event *ev)
{
	static const char *const empty = "";
	struct csv *csv = &im->csv;

	memset(ev, 0, sizeof(*ev));
	for (size_t i = 0; i < im->ncols; i++)
		if (im->cols[i].type == TAPE_COL_STR)
			memcpy((char *)ev + im->cols[i].offset, &empty, sizeof(empty));
	if (csv->nf != im->nmap) {
		snprintf(im->err, sizeof(im->err), "%zu fields, the header has %zu",
			 csv->nf, im->nmap);
		return -EINVAL;
	}
	for (size_t i = 0; i < im->nmap; i++) {
		const struct tape_column *c = im->map[i];
		const char *s = csv_field(csv, i);
		uint64_t v;
		int ret;

		if (c->type == TAPE_COL_STR) {
			if (strlen(s) > TAPE_MAX_STRING) {
				snprintf(im->err, sizeof(im->err),
					 "column %s: string longer than %u bytes",
					 c->name, TAPE_MAX_STRING);
				return -EINVAL;
			}
			memcpy((char *)ev + c->offset, &s, sizeof(s));
			continue;
		}
		ret = parse_value(c, s, &v, im->err, sizeof(im->err));
		if (ret)
			return ret;
		tape_column_set(c, ev, v);
	}
	if (im->table == TAPE_TABLE_SYSCALL)
		return imp_sys_fill(&im->st, &ev->sys, im->have, im->err,
				    sizeof(im->err));
	return 0;
}

static int csv_import(FILE *in, tape_writer *w, const struct imp_opts *o,
		      struct imp_diag *d)
{
	struct import im = { .table = o->table };
	union any_event ev;
	int ret;

	im.csv.f = in;
	im.csv.line = 1;
	im.cols = tape_table_columns(im.table, &im.ncols);
	if (!im.cols) {
		snprintf(d->msg, sizeof(d->msg), "no table %d", o->table);
		return -EINVAL;
	}
	ret = import_header(&im);
	d->line = im.csv.rec_line;
	while (ret == 0 && (ret = csv_read(&im.csv)) > 0) {
		d->line = im.csv.rec_line;
		ret = import_row(&im, &ev);
		if (!ret) {
			ret = tape_writer_append(w, im.table, &ev);
			if (ret < 0) {
				d->line = 0;	/* the writer's error, not the input's */
				break;
			}
		}
	}
	if (ret < 0 && d->line)
		d->line = im.csv.rec_line;
	if (ret == -EIO)
		d->read_errno = im.csv.read_errno ? im.csv.read_errno : EIO;
	if (ret < 0 && d->line)
		snprintf(d->msg, sizeof(d->msg), "%s", im.err[0] ? im.err : im.csv.err);
	free(im.csv.buf);
	free(im.csv.off);
	free(im.map);
	free(im.have);
	imp_sys_release(&im.st);
	return ret < 0 ? ret : 0;
}

const struct importer imp_csv = {
	.name = "csv",
	.summary = "the columns of one table, as 'iotape dump --format csv' prints them",
	.clock = "unknown",
	.run = csv_import,
};
