/* SPDX-License-Identifier: MIT */
/*
 * test_compat.c - what a v1 reader does with what it does not know, as the
 * table "What a reader does with what it does not know" in
 * iotape-format(5) promises: unknown columns, tables, chunk types, minor
 * versions and optional flags are skipped; a missing known column reads as
 * 0 or ""; an unknown major version, required flag, codec, encoding or a
 * column of the wrong type is refused with a clear error.
 *
 * Future files are made with the library's test hooks
 * (tape__encode_block, tape_writer__raw_chunk) and by patching bytes and
 * recomputing the checks, as a future writer would write them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "tape_internal.h"
#include "../lib/tlib.h"

#define SEED 0xC0317ull

static void gen(struct t_rng *r, int table, size_t n, struct t_evs *out)
{
	uint8_t ev[256];
	uint64_t ts = 5000;
	t_evs_init(out, table);
	for (size_t i = 0; i < n; i++) {
		memset(ev, 0, sizeof(ev));
		t_ev_random(r, table, ev, (int)(i & 1), &ts);
		assert_int_equal(t_evs_push_copy(out, ev), 0);
		t_ev_free_strings(table, ev);
	}
}

static void ts_range(const struct t_evs *e, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t i = 0; i < e->n; i++) {
		uint64_t ts;
		memcpy(&ts, t_evs_at(e, i), 8);
		*lo = ts < *lo ? ts : *lo;
		*hi = ts > *hi ? ts : *hi;
	}
}

/* Append raw (an encoded block of e's table, maybe patched) as a chunk. */
static void put_block(tape_writer *w, int table, const struct t_evs *e, const struct buf *raw)
{
	uint64_t lo, hi;
	ts_range(e, &lo, &hi);
	assert_int_equal(tape_writer__raw_chunk(w, CHUNK_BLOCK, (uint16_t)table, (uint32_t)e->n,
						lo, hi, raw->p, raw->len), 0);
}

/* Finish the file (footer or not) and open a reader on it. */
static tape_reader *finish(tape_writer *w, int fd, int footer)
{
	tape_reader *r;
	if (footer) {
		assert_int_equal(tape_writer_close(w), 0);
	} else {
		assert_int_equal(tape_writer_flush(w), 0);
		tape_writer_free(w);
	}
	int err = tape_reader_open_fd(&r, fd);
	if (err)
		fail_msg("open: %d %s", err, tape_error_detail());
	assert_true(footer ? !tape_reader_recovered(r) : !!tape_reader_recovered(r));
	return r;
}

/* Read table t, expect exactly exp (and a clean end). */
static void expect_table(tape_reader *r, int t, const struct t_evs *exp, const char *ctx)
{
	struct t_evs got;
	char why[600];
	int err = t_read_table(r, t, 0, UINT64_MAX, &got);
	if (err)
		fail_msg("%s: %s: cursor error %d %s", ctx, tape_table_name(t), err,
			 tape_error_detail());
	if (got.n != exp->n)
		fail_msg("%s: %s: %zu events, expected %zu", ctx, tape_table_name(t), got.n, exp->n);
	if (t_evs_cmp_prefix(&got, exp, exp->n, why, sizeof(why)))
		fail_msg("%s: %s", ctx, why);
	t_evs_release(&got);
}

/* Read table t expecting the cursor to fail with err and a detail. */
static void expect_cursor_error(tape_reader *r, int t, int want, const char *ctx,
				const char *detail_has)
{
	struct t_evs got;
	t_clear_detail();
	int err = t_read_table(r, t, 0, UINT64_MAX, &got);
	if (err != want)
		fail_msg("%s: cursor returned %d (%s), expected %d", ctx, err,
			 tape_error_detail(), want);
	if (!*tape_error_detail() || (detail_has && !strstr(tape_error_detail(), detail_has)))
		fail_msg("%s: detail '%s' does not say '%s'", ctx, tape_error_detail(),
			 detail_has ? detail_has : "anything");
	assert_int_equal(got.n, 0);
	t_evs_release(&got);
}

/* Column directory entry c of an encoded block. */
static uint8_t *dir_entry(struct buf *b, unsigned c)
{
	assert_true(c < get_le16(b->p));
	return b->p + 4 + 8 * c;
}

static unsigned dir_find(struct buf *b, unsigned id)
{
	unsigned n = get_le16(b->p);
	for (unsigned c = 0; c < n; c++)
		if (get_le16(b->p + 4 + 8 * c) == id)
			return c;
	fail_msg("column %u not in block", id);
	return 0;
}

/* Remove column c (directory entry and data) from an encoded block. */
static void drop_column(struct buf *b, unsigned c)
{
	unsigned n = get_le16(b->p);
	size_t data = 4 + 8 * (size_t)n, off = data;
	for (unsigned k = 0; k < c; k++)
		off += get_le32(b->p + 4 + 8 * k + 4);
	size_t sz = get_le32(b->p + 4 + 8 * c + 4);
	uint8_t *p = malloc(b->len);
	size_t len = 0;
	put_le16(p, (uint16_t)(n - 1));
	put_le16(p + 2, 0);
	len = 4;
	for (unsigned k = 0; k < n; k++)
		if (k != c) {
			memcpy(p + len, b->p + 4 + 8 * k, 8);
			len += 8;
		}
	memcpy(p + len, b->p + data, off - data);
	len += off - data;
	memcpy(p + len, b->p + off + sz, b->len - off - sz);
	len += b->len - off - sz;
	free(b->p);
	b->p = p;
	b->len = len;
	b->cap = len;
}

/* ---------------------------------------------------------------- tests */

/* Extra columns (ids 900+, and unknown ids below 64, any type or encoding)
 * are skipped; the known ones read exactly. */
static void test_extra_columns(void **state)
{
	struct t_rng r = { SEED };
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		size_t ncols;
		tape_table_columns(t, &ncols);
		for (int variant = 0; variant < 4; variant++) {
			for (int footer = 0; footer <= 1; footer++) {
				struct t_evs e;
				struct buf b = { 0 };
				tape_writer *w;
				int fd;
				char ctx[96];
				snprintf(ctx, sizeof(ctx), "%s, extra column variant %d, footer %d",
					 tape_table_name(t), variant, footer);
				gen(&r, t, 1 + t_below(&r, 40), &e);
				assert_int_equal(tape__encode_block(t, e.ev, e.n, 3, &b), 0);
				assert_int_equal(get_le16(b.p), ncols + 3);
				for (unsigned k = 0; k < 3; k++) {
					uint8_t *d = dir_entry(&b, (unsigned)ncols + k);
					assert_int_equal(get_le16(d), 900 + k);
					if (variant == 1)
						put_le16(d, (uint16_t)(40 + k)); /* unknown, < 64 */
					if (variant == 2) {
						put_le16(d, (uint16_t)(61 + k)); /* up to 63 */
						d[2] = TAPE_COL_STR;	/* a type and an */
						d[3] = 200;		/* encoding unknown here */
					}
					if (variant == 3) {
						put_le16(d, (uint16_t)(64 + 1000 * k)); /* >= 64 */
						d[2] = 77;
					}
				}
				assert_int_equal(t_writer_memfd(&w, NULL, &fd), 0);
				put_block(w, t, &e, &b);
				tape_reader *rd = finish(w, fd, footer);
				expect_table(rd, t, &e, ctx);
				tape_reader_free(rd);
				close(fd);
				buf_release(&b);
				t_evs_release(&e);
			}
		}
	}
}

/* A block of an unknown table (77, 0, and the next id a v1.x may add) is
 * skipped and counted. */
static void test_unknown_table(void **state)
{
	struct t_rng r = { SEED + 1 };
	static const uint16_t ids[] = { 77, 0, TAPE_TABLE_MAX, 65535 };
	for (int footer = 0; footer <= 1; footer++) {
		struct t_evs sys, smp;
		struct buf b = { 0 };
		tape_writer *w;
		int fd;
		gen(&r, TAPE_TABLE_SYSCALL, 30, &sys);
		gen(&r, TAPE_TABLE_SAMPLE, 12, &smp);
		assert_int_equal(tape__encode_block(TAPE_TABLE_SYSCALL, sys.ev, sys.n, 0, &b), 0);
		assert_int_equal(t_writer_memfd(&w, NULL, &fd), 0);
		for (size_t i = 0; i < 10; i++)
			assert_int_equal(tape_writer_append(w, TAPE_TABLE_SYSCALL, t_evs_at(&sys, i)), 0);
		assert_int_equal(tape_writer_flush(w), 0);
		for (size_t k = 0; k < 4; k++)
			put_block(w, ids[k], &sys, &b); /* syscall rows, foreign table ids */
		for (size_t i = 10; i < sys.n; i++)
			assert_int_equal(tape_writer_append(w, TAPE_TABLE_SYSCALL, t_evs_at(&sys, i)), 0);
		for (size_t i = 0; i < smp.n; i++)
			assert_int_equal(tape_writer_append(w, TAPE_TABLE_SAMPLE, t_evs_at(&smp, i)), 0);
		tape_reader *rd = finish(w, fd, footer);
		assert_int_equal(tape_reader_unknown_blocks(rd), 4);
		struct tape_table_stats st;
		assert_int_equal(tape_reader_table_stats(rd, TAPE_TABLE_SYSCALL, &st), 0);
		assert_int_equal(st.events, 30);
		assert_int_equal(st.blocks, 2);
		assert_int_equal(tape_reader_table_stats(rd, TAPE_TABLE_SAMPLE, &st), 0);
		assert_int_equal(st.events, 12);
		expect_table(rd, TAPE_TABLE_SYSCALL, &sys, "unknown table");
		expect_table(rd, TAPE_TABLE_SAMPLE, &smp, "unknown table");
		tape_reader_free(rd);
		close(fd);
		buf_release(&b);
		t_evs_release(&sys);
		t_evs_release(&smp);
	}
}

/* Unknown chunk types (9, 200, 0) are skipped wherever they are. */
static void test_unknown_chunk_type(void **state)
{
	struct t_rng r = { SEED + 2 };
	static const uint8_t types[] = { 9, 200, 0, 255 };
	uint8_t junk[300];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)t_rand(&r);
	for (int footer = 0; footer <= 1; footer++) {
		struct t_evs blk;
		tape_writer *w;
		int fd;
		gen(&r, TAPE_TABLE_BLOCK, 25, &blk);
		assert_int_equal(t_writer_memfd(&w, &(struct tape_writer_opts){ .block_rows = 10 }, &fd), 0);
		assert_int_equal(tape_writer__raw_chunk(w, 9, 0, 1, 0, 0, junk, 10), 0); /* first */
		assert_int_equal(tape_writer_set_meta(w, "k", "v"), 0);
		for (size_t i = 0; i < blk.n; i++) {
			assert_int_equal(tape_writer_append(w, TAPE_TABLE_BLOCK, t_evs_at(&blk, i)), 0);
			if (i % 7 == 0) {
				uint8_t ty = types[(i / 7) % 4];
				/* table/count/time fields of a foreign chunk mean nothing to us */
				assert_int_equal(tape_writer__raw_chunk(w, ty, (uint16_t)TAPE_TABLE_BLOCK,
									(uint32_t)i, 1, 0, junk,
									(size_t)t_below(&r, sizeof(junk))), 0);
			}
		}
		assert_int_equal(tape_writer__raw_chunk(w, 9, 0, 0, 0, 0, junk, 0), 0); /* empty */
		tape_reader *rd = finish(w, fd, footer);
		assert_int_equal(tape_reader_unknown_blocks(rd), 0);
		assert_int_equal(tape_reader_trailing_bytes(rd), 0);
		assert_string_equal(tape_reader_meta(rd, "k"), "v");
		assert_int_equal(tape_reader_meta_count(rd), 1);
		expect_table(rd, TAPE_TABLE_BLOCK, &blk, "unknown chunk types");
		tape_reader_free(rd);
		close(fd);
		t_evs_release(&blk);
	}
}

/* A known column missing from a block reads as 0 or "" in every row. */
static void missing_column(struct t_rng *r, int t, size_t c, int predict)
{
	size_t ncols;
	const struct tape_column *cols = tape_table_columns(t, &ncols);
	struct t_evs e;
	struct buf b = { 0 };
	tape_writer *w;
	int fd;
	char ctx[128];
	/* iotape-format(5) PREDICTION: a block with predicted columns needs
	 * the tid, op, size, ret and offset columns; without one it is damaged */
	int needed = t == TAPE_TABLE_SYSCALL && predict &&
		     (!strcmp(cols[c].name, "tid") || !strcmp(cols[c].name, "op") ||
		      !strcmp(cols[c].name, "size") || !strcmp(cols[c].name, "ret") ||
		      !strcmp(cols[c].name, "offset"));
	snprintf(ctx, sizeof(ctx), "%s without column %s%s", tape_table_name(t),
		 cols[c].name, t == TAPE_TABLE_SYSCALL ? predict ? " (predicted)" : " (not predicted)" : "");
	gen(r, t, 1 + t_below(r, 30), &e);
	/* copies among the rows, so that their output side is read too */
	for (size_t i = 0; t == TAPE_TABLE_SYSCALL && i < e.n; i += 3)
		((struct tape_syscall *)t_evs_at(&e, i))->op = TAPE_OP_SENDFILE;
	tape__no_predict = !predict;
	assert_int_equal(tape__encode_block(t, e.ev, e.n, 0, &b), 0);
	tape__no_predict = 0;
	drop_column(&b, dir_find(&b, cols[c].id));
	assert_int_equal(t_writer_memfd(&w, NULL, &fd), 0);
	put_block(w, t, &e, &b);
	tape_reader *rd = finish(w, fd, 1);
	if (needed) {
		expect_cursor_error(rd, t, -EBADMSG, ctx, NULL);
	} else {
		/* what the reader must return: the column zeroed (syscall
		 * fd2: -1, see iotape-format(5) Copies) */
		int m1 = t == TAPE_TABLE_SYSCALL && !strcmp(cols[c].name, "fd2");
		for (size_t i = 0; i < e.n; i++) {
			void *ev = t_evs_at(&e, i);
			if (cols[c].type == TAPE_COL_STR) {
				free((char *)t_ev_str(&cols[c], ev));
				t_ev_set_str(&cols[c], ev, strdup(""));
			} else {
				tape_column_set(&cols[c], ev, m1 ? UINT64_MAX : 0);
			}
		}
		expect_table(rd, t, &e, ctx);
	}
	tape_reader_free(rd);
	close(fd);
	buf_release(&b);
	t_evs_release(&e);
}

static void test_missing_column(void **state)
{
	struct t_rng r = { SEED + 3 };
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		size_t ncols;
		tape_table_columns(t, &ncols);
		for (size_t c = 1; c < ncols; c++) { /* all but ts_ns */
			missing_column(&r, t, c, 1);
			if (t == TAPE_TABLE_SYSCALL)
				missing_column(&r, t, c, 0);
		}
	}
}

/* A small valid trace, as bytes, for header patching. */
static void small_trace(int footer, uint8_t **p, size_t *len, struct t_evs *e)
{
	struct t_rng r = { SEED + 4 };
	tape_writer *w;
	int fd;
	gen(&r, TAPE_TABLE_FILE, 20, e);
	assert_int_equal(t_writer_memfd(&w, &(struct tape_writer_opts){ .block_rows = 8 }, &fd), 0);
	assert_int_equal(tape_writer_set_meta(w, "clock", "monotonic"), 0);
	for (size_t i = 0; i < e->n; i++)
		assert_int_equal(tape_writer_append(w, TAPE_TABLE_FILE, t_evs_at(e, i)), 0);
	if (footer) {
		assert_int_equal(tape_writer_close(w), 0);
	} else {
		assert_int_equal(tape_writer_flush(w), 0);
		tape_writer_free(w);
	}
	assert_int_equal(t_fd_contents(fd, p, len), 0);
	close(fd);
}

static int open_bytes(const uint8_t *p, size_t len, tape_reader **r, int *fd)
{
	*fd = t_memfd(p, len);
	assert_true(*fd >= 0);
	t_clear_detail();
	return tape_reader_open_fd(r, *fd);
}

static void test_versions_and_flags(void **state)
{
	for (int footer = 0; footer <= 1; footer++) {
		uint8_t *orig, *f;
		size_t len;
		struct t_evs e;
		tape_reader *r;
		int fd, err;
		small_trace(footer, &orig, &len, &e);
		f = malloc(len + 64);

		/* unknown major versions: refused, saying so */
		static const uint16_t majors[] = { 0, 2, 3, 0xffff };
		for (size_t k = 0; k < 4; k++) {
			memcpy(f, orig, len);
			put_le16(f + 8, majors[k]);
			t_fix_file_header(f);
			err = open_bytes(f, len, &r, &fd);
			if (err != -EPROTONOSUPPORT)
				fail_msg("major %u: open returned %d, expected -EPROTONOSUPPORT",
					 majors[k], err);
			assert_null(r);
			if (!strstr(tape_error_detail(), "version"))
				fail_msg("major %u: detail '%s' does not name the version", majors[k],
					 tape_error_detail());
			char num[16];
			snprintf(num, sizeof(num), "%u", majors[k]);
			assert_non_null(strstr(tape_error_detail(), num));
			close(fd);
		}
		/* the header check guards the version: unpatched check = damage */
		memcpy(f, orig, len);
		put_le16(f + 8, 2);
		err = open_bytes(f, len, &r, &fd);
		assert_int_equal(err, -EBADMSG);
		close(fd);

		/* every unknown required flag bit: refused (bit 0 is 1.1's) */
		for (int bit = 1; bit < 64; bit++) {
			memcpy(f, orig, len);
			put_le64(f + 16, 1ull << bit);
			t_fix_file_header(f);
			err = open_bytes(f, len, &r, &fd);
			if (err != -ENOTSUP || !*tape_error_detail())
				fail_msg("required flag bit %d: open returned %d, detail '%s'", bit, err,
					 tape_error_detail());
			close(fd);
		}

		/* newer minor versions and unknown optional flags: read as usual */
		static const uint16_t minors[] = { 1, 7, 0xffff };
		for (size_t k = 0; k < 4; k++) {
			unsigned ma, mi;
			memcpy(f, orig, len);
			if (k < 3)
				put_le16(f + 10, minors[k]);
			else
				put_le32(f + 24, 0xffffffffu); /* optional flags */
			t_fix_file_header(f);
			err = open_bytes(f, len, &r, &fd);
			if (err)
				fail_msg("minor/optional variant %zu: open: %d %s", k, err,
					 tape_error_detail());
			tape_reader_version(r, &ma, &mi);
			assert_int_equal(ma, 1);
			assert_int_equal(mi, k < 3 ? minors[k] : TAPE_FORMAT_MINOR);
			assert_true(footer ? !tape_reader_recovered(r) : !!tape_reader_recovered(r));
			assert_string_equal(tape_reader_meta(r, "clock"), "monotonic");
			expect_table(r, TAPE_TABLE_FILE, &e, "newer minor");
			tape_reader_free(r);
			close(fd);
		}

		/* a longer header (a future 1.x): bytes after 32 are ignored and
		 * the first chunk starts at header_size */
		if (!footer) {
			static const uint32_t extra[] = { 8, 16, 1000 };
			for (size_t k = 0; k < 3; k++) {
				uint8_t *g = malloc(len + extra[k]);
				memcpy(g, orig, 32);
				memset(g + 32, 0xee, extra[k]);
				memcpy(g + 32 + extra[k], orig + 32, len - 32);
				put_le32(g + 12, 32 + extra[k]);
				t_fix_file_header(g);
				err = open_bytes(g, len + extra[k], &r, &fd);
				if (err)
					fail_msg("header of %u bytes: %d %s", 32 + extra[k], err,
						 tape_error_detail());
				assert_int_equal(tape_reader_trailing_bytes(r), 0);
				assert_string_equal(tape_reader_meta(r, "clock"), "monotonic");
				expect_table(r, TAPE_TABLE_FILE, &e, "longer header");
				tape_reader_free(r);
				close(fd);
				free(g);
			}
		}
		/* header sizes below 32 or past the end of the file: damage */
		static const uint32_t bad[] = { 0, 31, 0x7fffffff, 0xffffffff };
		for (size_t k = 0; k < 4; k++) {
			memcpy(f, orig, len);
			put_le32(f + 12, bad[k]);
			t_fix_file_header(f);
			err = open_bytes(f, len, &r, &fd);
			if (err != -EBADMSG || !*tape_error_detail())
				fail_msg("header_size %u: open returned %d", bad[k], err);
			close(fd);
		}
		/* not a trace at all */
		memcpy(f, orig, len);
		f[1] = 'X';
		assert_int_equal(open_bytes(f, len, &r, &fd), -EILSEQ);
		assert_true(*tape_error_detail());
		close(fd);
		free(f);
		free(orig);
		t_evs_release(&e);
	}
}

/* A known column id with another type, or an unknown encoding: damage. */
static void test_type_mismatch(void **state)
{
	struct t_rng r = { SEED + 5 };
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		size_t ncols;
		const struct tape_column *cols = tape_table_columns(t, &ncols);
		for (size_t c = 0; c < ncols; c++) {
			for (int what = 0; what < 3; what++) {
				struct t_evs e, other;
				struct buf b = { 0 };
				tape_writer *w;
				int fd;
				char ctx[128];
				gen(&r, t, 10, &e);
				gen(&r, t, 5, &other);
				assert_int_equal(tape__encode_block(t, e.ev, e.n, 0, &b), 0);
				uint8_t *d = dir_entry(&b, dir_find(&b, cols[c].id));
				const char *has = cols[c].name;
				if (what == 0) {	/* another type */
					d[2] = cols[c].type == TAPE_COL_STR ? TAPE_COL_U64 :
					       cols[c].type == TAPE_COL_U64 ? TAPE_COL_I64 : TAPE_COL_STR;
					snprintf(ctx, sizeof(ctx), "%s.%s with type %u", tape_table_name(t),
						 cols[c].name, d[2]);
				} else if (what == 1) {	/* a type this reader does not know */
					d[2] = 9;
					snprintf(ctx, sizeof(ctx), "%s.%s with type 9", tape_table_name(t),
						 cols[c].name);
				} else {		/* an unknown encoding */
					d[3] = cols[c].type == TAPE_COL_STR ? ENC_RAW : 30;
					snprintf(ctx, sizeof(ctx), "%s.%s with encoding %u",
						 tape_table_name(t), cols[c].name, d[3]);
					has = cols[c].type == TAPE_COL_STR ? "1" : "30";
				}
				assert_int_equal(t_writer_memfd(&w, NULL, &fd), 0);
				put_block(w, t, &e, &b);
				/* a later good block of the same table is not reached,
				 * other tables are not affected */
				assert_int_equal(tape_writer_flush(w), 0);
				for (size_t i = 0; i < other.n; i++)
					assert_int_equal(tape_writer_append(w, t, t_evs_at(&other, i)), 0);
				tape_reader *rd = finish(w, fd, 1);
				expect_cursor_error(rd, t, -EBADMSG, ctx, has);
				tape_reader_free(rd);
				close(fd);
				buf_release(&b);
				t_evs_release(&e);
				t_evs_release(&other);
			}
		}
	}
}

/* An unknown codec on a BLOCK chunk: unsupported, not damage. */
static void test_unknown_codec(void **state)
{
	struct t_rng r = { SEED + 6 };
	struct t_evs e, smp;
	uint8_t *f;
	size_t len;
	tape_writer *w;
	tape_reader *rd;
	int fd;
	gen(&r, TAPE_TABLE_PROCESS, 30, &e);
	gen(&r, TAPE_TABLE_SAMPLE, 30, &smp);
	assert_int_equal(t_writer_memfd(&w, NULL, &fd), 0);
	for (size_t i = 0; i < e.n; i++) {
		assert_int_equal(tape_writer_append(w, TAPE_TABLE_PROCESS, t_evs_at(&e, i)), 0);
		assert_int_equal(tape_writer_append(w, TAPE_TABLE_SAMPLE, t_evs_at(&smp, i)), 0);
	}
	assert_int_equal(tape_writer_close(w), 0);
	assert_int_equal(t_fd_contents(fd, &f, &len), 0);
	close(fd);
	struct t_chunk ch[16];
	size_t n = t_chunks(f, len, ch, 16), k;
	for (k = 0; k < n; k++)
		if (ch[k].type == CHUNK_BLOCK && ch[k].table == TAPE_TABLE_PROCESS)
			break;
	assert_true(k < n);
	f[ch[k].off + 5] = 9; /* codec */
	t_fix_chunk_header(f + ch[k].off);
	for (int footer = 1; footer >= 0; footer--) {
		int err = open_bytes(f, footer ? len : ch[n - 1].off, &rd, &fd);
		if (err)
			fail_msg("open: %d %s", err, tape_error_detail());
		expect_cursor_error(rd, TAPE_TABLE_PROCESS, -ENOTSUP, "unknown codec", "codec");
		expect_table(rd, TAPE_TABLE_SAMPLE, &smp, "unknown codec elsewhere");
		tape_reader_free(rd);
		close(fd);
	}
	free(f);
	t_evs_release(&e);
	t_evs_release(&smp);
}

/* Reserved fields that are not 0 are ignored (block directory header). */
static void test_reserved_fields(void **state)
{
	struct t_rng r = { SEED + 7 };
	struct t_evs e;
	struct buf b = { 0 };
	tape_writer *w;
	int fd;
	gen(&r, TAPE_TABLE_CACHE, 17, &e);
	assert_int_equal(tape__encode_block(TAPE_TABLE_CACHE, e.ev, e.n, 0, &b), 0);
	put_le16(b.p + 2, 0xbeef);
	assert_int_equal(t_writer_memfd(&w, NULL, &fd), 0);
	put_block(w, TAPE_TABLE_CACHE, &e, &b);
	tape_reader *rd = finish(w, fd, 1);
	expect_table(rd, TAPE_TABLE_CACHE, &e, "reserved field");
	tape_reader_free(rd);
	close(fd);
	buf_release(&b);
	t_evs_release(&e);
}

/* The same trace with every chunk stored instead of zstd-compressed, and
 * re-indexed by the test's own writer of the layout: reads the same. */
static void test_stored_reencode(void **state)
{
	struct t_rng r = { SEED + 8 };
	struct t_evs e[TAPE_TABLE_MAX];
	tape_writer *w;
	int fd;
	uint8_t *orig;
	size_t len;
	assert_int_equal(t_writer_memfd(&w, &(struct tape_writer_opts){ .block_rows = 33 }, &fd), 0);
	assert_int_equal(tape_writer_set_meta(w, "k", "v1"), 0);
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		gen(&r, t, 100, &e[t]);
		for (size_t i = 0; i < e[t].n; i++)
			assert_int_equal(tape_writer_append(w, t, t_evs_at(&e[t], i)), 0);
	}
	assert_int_equal(tape_writer_set_meta(w, "k", "v2"), 0);
	assert_int_equal(tape_writer_close(w), 0);
	assert_int_equal(t_fd_contents(fd, &orig, &len), 0);
	close(fd);
	for (int footer = 0; footer <= 1; footer++) {
		uint8_t *f;
		size_t fl;
		tape_reader *rd;
		assert_int_equal(t_restore_stored(orig, len, footer, &f, &fl), 0);
		int err = open_bytes(f, fl, &rd, &fd);
		if (err)
			fail_msg("stored, footer %d: %d %s", footer, err, tape_error_detail());
		assert_true(footer ? !tape_reader_recovered(rd) : !!tape_reader_recovered(rd));
		assert_int_equal(tape_reader_trailing_bytes(rd), 0);
		assert_string_equal(tape_reader_meta(rd, "k"), "v2");
		for (int t = 1; t < TAPE_TABLE_MAX; t++)
			expect_table(rd, t, &e[t], "stored");
		tape_reader_free(rd);
		close(fd);
		free(f);
	}
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		t_evs_release(&e[t]);
	free(orig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extra_columns),
		cmocka_unit_test(test_unknown_table),
		cmocka_unit_test(test_unknown_chunk_type),
		cmocka_unit_test(test_missing_column),
		cmocka_unit_test(test_versions_and_flags),
		cmocka_unit_test(test_type_mismatch),
		cmocka_unit_test(test_unknown_codec),
		cmocka_unit_test(test_reserved_fields),
		cmocka_unit_test(test_stored_reencode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
