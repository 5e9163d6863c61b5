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
 * arguments must be refused without moving the cursor.  Read on several
 * threads (tape_cursor_set_threads), all of it must be the same, string
 * table included, byte for byte.  Read a block ahead on a thread
 * (tape_cursor_set_readahead), the blocks must be those of one cursor, in
 * a time window too, and a damaged block must end them where it ends one
 * cursor's, with its error.
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

/* A memfd with the trace of fd, its k-th block (from 1) damaged: a byte
 * of its payload flipped, so that its checksum fails. */
static int damaged(int fd, unsigned k)
{
	uint8_t *p;
	size_t len, nch, blk = 0, seen = 0;
	struct t_chunk ch[256];

	assert_int_equal(t_fd_contents(fd, &p, &len), 0);
	nch = t_chunks(p, len, ch, 256);
	for (size_t i = 0; i < nch; i++)
		if (ch[i].type == 2 && ++seen == k)
			blk = i;
	assert_true(blk > 0);
	p[ch[blk].end - 3] ^= 0x55;
	int dfd = t_memfd(p, len);
	assert_true(dfd >= 0);
	free(p);
	return dfd;
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
	assert_int_equal(tape_cursor_set_threads(cur, 0), -EINVAL);
	assert_int_equal(tape_cursor_set_threads(cur, 65), -EINVAL);
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
	size_t n, total = 0;
	tape_reader *r;
	tape_cursor *cur;
	uint64_t ts[NEV];
	unsigned cols[] = { 0 };
	void *out[] = { ts };
	int rc, want, dfd = damaged(fd, 5);

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
	close(dfd);
	close(fd);
}

/* Table's events in [from, to] a block at a time, read ahead or not:
 * into got (deep copies), the blocks' sizes into sizes (*nb of them);
 * the cursor's last return. */
static int read_blocks(tape_reader *r, int table, uint64_t from, uint64_t to, int ahead,
		       struct t_evs *got, size_t *sizes, size_t *nb)
{
	tape_cursor *cur;
	const void *evs;
	size_t n, sz = tape_table_event_size(table);
	int rc;

	assert_int_equal(tape_cursor_open(r, table, from, to, &cur), 0);
	if (ahead) {
		assert_int_equal(tape_cursor_set_readahead(cur), 0);
		assert_int_equal(tape_cursor_set_readahead(cur), 0);	/* (once) */
	}
	*nb = 0;
	while ((rc = tape_cursor_next_block(cur, &evs, &n)) > 0) {
		sizes[(*nb)++] = n;
		for (size_t i = 0; i < n; i++)
			assert_int_equal(t_evs_push_copy(got, (const uint8_t *)evs + i * sz), 0);
	}
	if (rc < 0)	/* and again: the error stays */
		assert_int_equal(tape_cursor_next_block(cur, &evs, &n), rc);
	else
		assert_int_equal(tape_cursor_next_block(cur, &evs, &n), 0);
	tape_cursor_free(cur);
	return rc;
}

/* The blocks read ahead are one cursor's: every table, the whole of it and
 * a window that starts and ends inside blocks; a damaged block's error
 * after the same rows; the other ways of reading refused; a cursor freed
 * with a block being decoded ahead. */
static void test_readahead(void **state)
{
	struct t_rng rng = { SEED + 7 };
	size_t s1[NEV], s2[NEV], n1, n2;
	char why[256];

	for (int table = 1; table < TAPE_TABLE_MAX; table++) {
		struct t_evs exp;
		int fd = make_trace(table, NEV, &rng, &exp);
		const uint64_t ts0 = *(const uint64_t *)t_evs_at(&exp, ROWS + 5);
		const uint64_t ts1 = *(const uint64_t *)t_evs_at(&exp, NEV - ROWS - 9);
		const uint64_t win[][2] = { { 0, UINT64_MAX }, { ts0, ts1 } };
		tape_reader *r;

		assert_int_equal(tape_reader_open_fd(&r, fd), 0);
		for (size_t w = 0; w < 2; w++) {
			struct t_evs a, b;
			t_evs_init(&a, table);
			t_evs_init(&b, table);
			assert_int_equal(read_blocks(r, table, win[w][0], win[w][1], 0, &a, s1, &n1), 0);
			assert_int_equal(read_blocks(r, table, win[w][0], win[w][1], 1, &b, s2, &n2), 0);
			assert_true(n1 > 2);
			assert_int_equal(n1, n2);
			assert_memory_equal(s1, s2, n1 * sizeof(*s1));
			assert_int_equal(a.n, b.n);
			if (t_evs_cmp_prefix(&b, &a, a.n, why, sizeof(why)))
				fail_msg("%s, window %zu: %s", tape_table_name(table), w, why);
			t_evs_release(&a);
			t_evs_release(&b);
		}
		tape_reader_free(r);
		t_evs_release(&exp);
		close(fd);
	}

	struct t_evs exp, a, b;
	int fd = make_trace(TAPE_TABLE_SYSCALL, NEV, &rng, &exp);
	int dfd = damaged(fd, 7);
	tape_reader *r;
	assert_int_equal(tape_reader_open_fd(&r, dfd), 0);
	t_evs_init(&a, TAPE_TABLE_SYSCALL);
	t_evs_init(&b, TAPE_TABLE_SYSCALL);
	int want = read_blocks(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, 0, &a, s1, &n1);
	assert_true(want < 0);
	assert_int_equal(read_blocks(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, 1, &b, s2, &n2), want);
	assert_int_equal(n1, 6);
	assert_int_equal(n2, 6);
	assert_int_equal(b.n, 6 * ROWS);
	if (t_evs_cmp_prefix(&b, &a, a.n, why, sizeof(why)))
		fail_msg("damaged: %s", why);

	/* blocks only; freed with the next block under way */
	tape_cursor *cur;
	const void *ev;
	unsigned cols[] = { 0 };
	uint64_t ts[8];
	void *out[] = { ts };
	assert_int_equal(tape_cursor_open(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &cur), 0);
	assert_int_equal(tape_cursor_set_readahead(cur), 0);
	assert_int_equal(tape_cursor_next(cur, &ev), -EINVAL);
	assert_int_equal(tape_cursor_read_columns(cur, cols, 1, out, 8, NULL, &n1), -EINVAL);
	assert_int_equal(tape_cursor_next_block(cur, &ev, &n1), 1);
	assert_int_equal(n1, ROWS);
	tape_cursor_free(cur);
	/* a cursor inside a block cannot start reading ahead */
	assert_int_equal(tape_cursor_open(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &cur), 0);
	assert_int_equal(tape_cursor_next(cur, &ev), 1);
	assert_int_equal(tape_cursor_set_readahead(cur), -EINVAL);
	assert_int_equal(tape_cursor_next(cur, &ev), 1);
	tape_cursor_free(cur);

	tape_reader_free(r);
	t_evs_release(&a);
	t_evs_release(&b);
	t_evs_release(&exp);
	close(dfd);
	close(fd);
}

/* Bytes of a column's element in tape_cursor_read_columns()'s arrays. */
static size_t out_width(const struct tape_column *c)
{
	return c->type == TAPE_COL_STR ? 4 : c->width;
}

/* Everything read with one thread, as arrays (NEV rows) and the string
 * table's bytes and offsets. */
struct whole {
	void *out[64];
	size_t n, nstr, len;
	char *data;
	uint64_t *off;
};

static int read_whole(int fd, int table, unsigned threads, size_t batch, struct whole *w)
{
	size_t ncols, n;
	const struct tape_column *c = tape_table_columns(table, &ncols);
	unsigned cols[64];
	tape_strings *s;
	tape_reader *r;
	tape_cursor *cur;
	int rc;

	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < ncols; i++) {
		cols[i] = (unsigned)i;
		w->out[i] = calloc(NEV + 10, 8);
		assert_non_null(w->out[i]);
	}
	assert_int_equal(tape_strings_new(&s), 0);
	assert_int_equal(tape_reader_open_fd(&r, fd), 0);
	assert_int_equal(tape_cursor_open(r, table, 0, UINT64_MAX, &cur), 0);
	assert_int_equal(tape_cursor_set_threads(cur, threads), 0);
	for (;;) {
		void *at[64];
		for (size_t i = 0; i < ncols; i++)
			at[i] = (char *)w->out[i] + w->n * out_width(&c[i]);
		rc = tape_cursor_read_columns(cur, cols, ncols, at, batch, s, &n);
		if (rc != 1)
			break;
		w->n += n;
	}
	const uint64_t *off;
	const char *data = tape_strings_data(s, &off);
	w->nstr = tape_strings_count(s);
	w->len = off[w->nstr];
	w->data = malloc(w->len);
	w->off = malloc((w->nstr + 1) * sizeof(*off));
	assert_true(w->data && w->off);
	memcpy(w->data, data, w->len);
	memcpy(w->off, off, (w->nstr + 1) * sizeof(*off));
	tape_cursor_free(cur);
	tape_reader_free(r);
	tape_strings_free(s);
	return rc;
}

static void whole_release(struct whole *w)
{
	for (size_t i = 0; i < 64; i++)
		free(w->out[i]);
	free(w->data);
	free(w->off);
}

static void assert_same(int table, const struct whole *a, const struct whole *b)
{
	size_t ncols;
	const struct tape_column *c = tape_table_columns(table, &ncols);

	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < ncols; i++)
		assert_memory_equal(a->out[i], b->out[i], a->n * out_width(&c[i]));
	assert_int_equal(a->nstr, b->nstr);
	assert_int_equal(a->len, b->len);
	assert_memory_equal(a->data, b->data, a->len);
	assert_memory_equal(a->off, b->off, (a->nstr + 1) * sizeof(*a->off));
}

/* Several threads give what one gives: the same values, and the same
 * string table (ids in file order), byte for byte; batches that end
 * inside blocks leave the blocks across their ends to one thread. */
static void test_threads_same(void **state)
{
	static const unsigned threads[] = { 2, 3, 8 };
	static const size_t batches[] = { NEV + 10, 333, 2 * ROWS };
	struct t_rng rng = { SEED + 4 };

	for (int table = 1; table < TAPE_TABLE_MAX; table++) {
		struct t_evs exp;
		int fd = make_trace(table, NEV, &rng, &exp);
		struct whole one, many;

		for (size_t b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
			assert_int_equal(read_whole(fd, table, 1, batches[b], &one), 0);
			assert_int_equal(one.n, NEV);
			for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
				assert_int_equal(read_whole(fd, table, threads[t], batches[b], &many), 0);
				assert_same(table, &one, &many);
				whole_release(&many);
			}
			whole_release(&one);
		}
		t_evs_release(&exp);
		close(fd);
	}
}

/* A damaged block read on threads: the rows before it, its error (again
 * on the next call), and no string of the blocks after it in the table. */
static void test_threads_damaged(void **state)
{
	struct t_rng rng = { SEED + 5 };
	struct t_evs exp;
	int fd = make_trace(TAPE_TABLE_SYSCALL, NEV, &rng, &exp);
	struct whole one, many;
	int dfd = damaged(fd, 7);

	int want = read_whole(dfd, TAPE_TABLE_SYSCALL, 1, NEV, &one);
	assert_true(want < 0);
	assert_int_equal(one.n, 6 * ROWS);
	for (unsigned t = 2; t <= 4; t++) {
		assert_int_equal(read_whole(dfd, TAPE_TABLE_SYSCALL, t, NEV, &many), want);
		assert_same(TAPE_TABLE_SYSCALL, &one, &many);
		whole_release(&many);
	}
	whole_release(&one);
	/* the error stays, on threads too */
	tape_reader *r;
	tape_cursor *cur;
	uint64_t ts[NEV];
	unsigned cols[] = { 0 };
	void *out[] = { ts };
	size_t n;
	assert_int_equal(tape_reader_open_fd(&r, dfd), 0);
	assert_int_equal(tape_cursor_open(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &cur), 0);
	assert_int_equal(tape_cursor_set_threads(cur, 3), 0);
	assert_int_equal(tape_cursor_read_columns(cur, cols, 1, out, NEV, NULL, &n), 1);
	assert_int_equal(n, 6 * ROWS);
	assert_int_equal(tape_cursor_read_columns(cur, cols, 1, out, NEV, NULL, &n), want);
	assert_int_equal(tape_cursor_read_columns(cur, cols, 1, out, NEV, NULL, &n), want);
	assert_int_equal(n, 0);
	tape_cursor_free(cur);
	tape_reader_free(r);
	t_evs_release(&exp);
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
		cmocka_unit_test(test_threads_same),
		cmocka_unit_test(test_threads_damaged),
		cmocka_unit_test(test_readahead),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
