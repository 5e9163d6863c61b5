/* SPDX-License-Identifier: MIT */
/*
 * test_columns.c - tape_cursor_read_columns() gives, column by column,
 * exactly what the cursor gives event by event.
 *
 * Random events of every table (extreme values and awkward strings
 * included) are written in small blocks, then read back both ways with
 * batch sizes that start and end inside blocks, mixed with
 * tape_cursor_next() on the same cursor; string ids must name the strings
 * the events hold, in a table shared by every read.  A damaged block must
 * stop the batch read after exactly the events before it, and bad
 * arguments must be refused without moving the cursor.
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
#include "tape.h"
#include "../lib/tlib.h"

#define SEED 0xC01D5ull
#define NEV 2000
#define ROWS 97		/* block rows: batches cross blocks at odd places */

/* A trace of n random events of table on a memfd; *exp gets them back as
 * the cursor reads them. */
static int make_trace(int table, size_t n, struct t_rng *rng, struct t_evs *exp)
{
	struct tape_writer_opts o = { .block_rows = ROWS };
	size_t sz = tape_table_event_size(table);
	uint8_t *ev = calloc(1, sz);
	tape_writer *w;
	tape_reader *r;
	uint64_t ts = 1000;
	int fd;

	assert_non_null(ev);
	assert_int_equal(t_writer_memfd(&w, &o, &fd), 0);
	for (size_t i = 0; i < n; i++) {
		memset(ev, 0, sz);
		t_ev_random(rng, table, ev, i % 5 == 0, &ts);
		assert_int_equal(tape_writer_append(w, table, ev), 0);
		t_ev_free_strings(table, ev);
	}
	free(ev);
	assert_int_equal(tape_writer_close(w), 0);
	assert_int_equal(tape_reader_open_fd(&r, fd), 0);
	t_evs_init(exp, table);
	assert_int_equal(t_read_table(r, table, 0, UINT64_MAX, exp), 0);
	assert_int_equal(exp->n, n);
	tape_reader_free(r);
	return fd;
}

/* Column i of the batch row at, against event ev. */
static void check_row(int table, const struct tape_column *c, void *const *out,
		      size_t ncols, size_t at, const void *ev, const tape_strings *s, size_t row)
{
	for (size_t i = 0; i < ncols; i++) {
		uint64_t want, got;

		if (c[i].type == TAPE_COL_STR) {
			uint32_t id = ((uint32_t *)out[i])[at];
			const char *str = tape_strings_get(s, id);
			if (!str || strcmp(str, t_ev_str(&c[i], ev)))
				fail_msg("%s row %zu column %s: id %u is '%s', want '%s'",
					 tape_table_name(table), row, c[i].name, id,
					 str ? str : "(none)", t_ev_str(&c[i], ev));
			continue;
		}
		want = tape_column_get(&c[i], ev);
		got = c[i].width == 8 ? ((uint64_t *)out[i])[at] : ((uint32_t *)out[i])[at];
		if (got != want)
			fail_msg("%s row %zu column %s: %llu, want %llu", tape_table_name(table),
				 row, c[i].name, (unsigned long long)got, (unsigned long long)want);
	}
}

static void test_same_as_cursor(void **state)
{
	static const size_t batches[] = { 1, 7, ROWS, ROWS + 1, 333, NEV + 10 };
	struct t_rng rng = { SEED };

	for (int table = 1; table < TAPE_TABLE_MAX; table++) {
		struct t_evs exp;
		int fd = make_trace(table, NEV, &rng, &exp);
		size_t ncols;
		const struct tape_column *c = tape_table_columns(table, &ncols);
		unsigned cols[64];
		void *out[64];
		tape_strings *s;

		assert_int_equal(tape_strings_new(&s), 0);
		assert_string_equal(tape_strings_get(s, 0), "");
		for (size_t i = 0; i < ncols; i++) {
			cols[i] = (unsigned)i;
			out[i] = malloc((NEV + 10) * 8);
			assert_non_null(out[i]);
		}
		for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
			tape_reader *r;
			tape_cursor *cur;
			size_t row = 0, n;
			int rc;

			assert_int_equal(tape_reader_open_fd(&r, fd), 0);
			assert_int_equal(tape_cursor_open(r, table, 0, UINT64_MAX, &cur), 0);
			for (unsigned k = 0;; k++) {
				/* every third turn one event the ordinary way */
				if (k % 3 == 2) {
					const void *ev;
					rc = tape_cursor_next(cur, &ev);
					assert_true(rc >= 0);
					if (rc == 0)
						break;
					assert_int_equal(t_ev_cmp(table, ev, t_evs_at(&exp, row), NULL, 0), 0);
					row++;
					continue;
				}
				rc = tape_cursor_read_columns(cur, cols, ncols, out, batches[b], s, &n);
				assert_true(rc >= 0);
				if (rc == 0) {
					assert_int_equal(n, 0);
					break;
				}
				assert_true(n >= 1 && n <= batches[b]);
				for (size_t j = 0; j < n; j++)
					check_row(table, c, out, ncols, j, t_evs_at(&exp, row + j), s, row + j);
				row += n;
			}
			assert_int_equal(row, NEV);
			tape_cursor_free(cur);
			tape_reader_free(r);
		}
		/* the table: distinct strings, all of them reachable */
		const uint64_t *off;
		const char *data = tape_strings_data(s, &off);
		size_t ns = tape_strings_count(s);
		for (size_t i = 0; i < ns; i++) {
			assert_int_equal(off[i + 1] - off[i] - 1, strlen(data + off[i]));
			for (size_t j = i + 1; j < ns && j < i + 50; j++)
				assert_string_not_equal(data + off[i], data + off[j]);
		}
		assert_null(tape_strings_get(s, ns));
		for (size_t i = 0; i < ncols; i++)
			free(out[i]);
		tape_strings_free(s);
		t_evs_release(&exp);
		close(fd);
	}
}

/* A subset of the columns, in another order. */
static void test_some_columns(void **state)
{
	struct t_rng rng = { SEED + 1 };
	struct t_evs exp;
	int fd = make_trace(TAPE_TABLE_SYSCALL, NEV, &rng, &exp);
	const struct tape_column *c = tape_table_columns(TAPE_TABLE_SYSCALL, NULL);
	unsigned cols[] = { 8, 4, 0, 3 };	/* ret, path, ts_ns, op */
	struct tape_column sub[4];
	uint64_t ret[NEV], ts[NEV];
	uint32_t path[NEV], op[NEV];
	void *out[] = { ret, path, ts, op };
	tape_strings *s;
	tape_reader *r;
	tape_cursor *cur;
	size_t n;

	for (int i = 0; i < 4; i++)
		sub[i] = c[cols[i]];
	assert_int_equal(tape_strings_new(&s), 0);
	assert_int_equal(tape_reader_open_fd(&r, fd), 0);
	assert_int_equal(tape_cursor_open(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &cur), 0);
	assert_int_equal(tape_cursor_read_columns(cur, cols, 4, out, NEV, s, &n), 1);
	assert_int_equal(n, NEV);
	for (size_t j = 0; j < n; j++)
		check_row(TAPE_TABLE_SYSCALL, sub, out, 4, j, t_evs_at(&exp, j), s, j);
	assert_int_equal(tape_cursor_read_columns(cur, cols, 4, out, NEV, s, &n), 0);
	tape_cursor_free(cur);
	tape_reader_free(r);
	tape_strings_free(s);
	t_evs_release(&exp);
	close(fd);
}

static void test_bad_arguments(void **state)
{
	struct t_rng rng = { SEED + 2 };
	struct t_evs exp;
	int fd = make_trace(TAPE_TABLE_SYSCALL, 10, &rng, &exp);
	uint64_t a[10];
	void *out[] = { a }, *none[] = { NULL };
	unsigned bad[] = { 99 }, path[] = { 4 }, ts[] = { 0 };
	tape_reader *r;
	tape_cursor *cur;
	size_t n = 5;

	assert_int_equal(tape_reader_open_fd(&r, fd), 0);
	assert_int_equal(tape_cursor_open(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &cur), 0);
	assert_int_equal(tape_cursor_read_columns(cur, bad, 1, out, 10, NULL, &n), -EINVAL);
	assert_int_equal(n, 0);
	assert_int_equal(tape_cursor_read_columns(cur, ts, 1, none, 10, NULL, &n), -EINVAL);
	assert_int_equal(tape_cursor_read_columns(cur, path, 1, out, 10, NULL, &n), -EINVAL);
	/* nothing moved: all ten events are still there */
	assert_int_equal(tape_cursor_read_columns(cur, ts, 1, out, 10, NULL, &n), 1);
	assert_int_equal(n, 10);
	assert_int_equal(a[0], ((const struct tape_syscall *)t_evs_at(&exp, 0))->ts_ns);
	tape_cursor_free(cur);
	tape_reader_free(r);
	t_evs_release(&exp);
	close(fd);
}

/* A damaged block: the batch read stops after exactly the events the
 * event-by-event read delivers, then returns the same error. */
static void test_damaged_block(void **state)
{
	struct t_rng rng = { SEED + 3 };
	struct t_evs exp, got;
	int fd = make_trace(TAPE_TABLE_SYSCALL, NEV, &rng, &exp);
	uint8_t *p;
	size_t len, nch, n, total = 0;
	struct t_chunk ch[256];
	tape_reader *r;
	tape_cursor *cur;
	uint64_t ts[NEV];
	unsigned cols[] = { 0 };
	void *out[] = { ts };
	int rc, want, dfd;

	assert_int_equal(t_fd_contents(fd, &p, &len), 0);
	nch = t_chunks(p, len, ch, 256);
	size_t blk = 0, seen = 0;
	for (size_t i = 0; i < nch; i++)
		if (ch[i].type == 2 && ++seen == 5)
			blk = i;
	assert_true(blk > 0);
	p[ch[blk].end - 3] ^= 0x55;	/* its payload: the checksum fails */
	dfd = t_memfd(p, len);
	assert_true(dfd >= 0);

	assert_int_equal(tape_reader_open_fd(&r, dfd), 0);
	t_evs_init(&got, TAPE_TABLE_SYSCALL);
	want = t_read_table(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &got);
	assert_true(want < 0);
	assert_int_equal(tape_cursor_open(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &cur), 0);
	while ((rc = tape_cursor_read_columns(cur, cols, 1, out, 150, NULL, &n)) == 1)
		total += n;
	assert_int_equal(rc, want);
	assert_int_equal(total, got.n);
	assert_int_equal(total, 4 * ROWS);
	/* and again: the error stays */
	assert_int_equal(tape_cursor_read_columns(cur, cols, 1, out, 150, NULL, &n), want);
	tape_cursor_free(cur);
	tape_reader_free(r);
	t_evs_release(&got);
	t_evs_release(&exp);
	free(p);
	close(dfd);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_cursor),
		cmocka_unit_test(test_some_columns),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_damaged_block),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
