/* SPDX-License-Identifier: MIT */
/*
 * ana_rows.h - the long arrays of analyze's JSON (files[], staging's
 * ranked files: a million rows), written a row at a time.
 *
 * A row is formatted by hand into a buffer, in the format jansson prints
 * (no tree, no printf per field); an array's rows are formatted in chunks
 * on one or two threads and written in their order (ana_rows_write):
 *
 *	static void row(void *ctx, size_t i, struct ana_rowbuf *r)
 *	{
 *		ana_rb_lit(r, "{\"size\":");
 *		ana_rb_u64(r, size_of(ctx, i));
 *		ana_rb_lit(r, "}");
 *	}
 *	err = ana_rows_write(out, n, row, ctx, a->o.threads);
 *
 * Memory: a few chunks of rows, whatever the array's length.
 */
#ifndef ANA_ROWS_H
#define ANA_ROWS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "analyze.h"

/* The room a row may take: a path of ANA_PATH_BUF bytes escaped (six
 * bytes a byte at most) and its figures. */
#define ANA_ROW_MAX (6 * ANA_PATH_BUF + 1024)

/* A chunk's text: ana_rows_write makes ANA_ROW_MAX bytes of room before
 * each row, which the ana_rb_* writers count on. */
struct ana_rowbuf {
	char *b;
	size_t n, cap;
};

static inline void ana_rb_mem(struct ana_rowbuf *r, const char *s, size_t l)
{
	memcpy(r->b + r->n, s, l);
	r->n += l;
}

/* A string literal. */
#define ana_rb_lit(r, s) ana_rb_mem((r), "" s, sizeof(s) - 1)

extern const char ana_digits2[200];

/* As cm_json_u64 prints it: decimal, a string above INT64_MAX. */
static inline void ana_rb_u64(struct ana_rowbuf *r, uint64_t v)
{
	char t[24];
	int k = 24, str = v > INT64_MAX;

	if (str)
		t[--k] = '"';
	while (v >= 100) {
		k -= 2;
		memcpy(t + k, ana_digits2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		k -= 2;
		memcpy(t + k, ana_digits2 + 2 * v, 2);
	} else {
		t[--k] = (char)('0' + v);
	}
	if (str)
		t[--k] = '"';
	ana_rb_mem(r, t + k, (size_t)(24 - k));
}

/* A real as jansson prints one (%.10g, ".0" where it would read as an
 * integer); null for NaN and infinities. */
void ana_rb_real(struct ana_rowbuf *r, double v);
/* A JSON string: plain ASCII copied, anything else escaped by jansson
 * (null if it cannot: out of memory). */
void ana_rb_str(struct ana_rowbuf *r, const char *s);

/* Path id (!= 0) of a's paths as a JSON string, as ana_rb_str writes it. */
void ana_rb_path(struct ana_rowbuf *r, const struct ana *a, uint32_t id);

/* Row i of an array into r (its separator included).  Called on two
 * threads at once: it may only read what it is given. */
typedef void ana_row_fn(void *ctx, size_t i, struct ana_rowbuf *r);

/* Rows 0 to n - 1 to out, in order, formatted on threads threads (1, or
 * 2: this one and a second).  0, or -ENOMEM (the rows before the chunk
 * that found no memory are written). */
int ana_rows_write(FILE *out, size_t n, ana_row_fn *fn, void *ctx, int threads);

#endif
