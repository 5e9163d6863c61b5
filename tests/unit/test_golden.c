/* SPDX-License-Identifier: MIT */
/*
 * test_golden.c - this library still reads the v1 files of the past.
 *
 * tests/golden/v1.iotape was written once by tests/helpers/mkgolden (see
 * tests/golden/README) and is committed; it is never regenerated.  Every
 * event, every metadata value and every table's stats must come out as
 * tests/lib/golden.c says, through the footer index and through a scan
 * (footer cut off), whole or by time range.  tests/golden/v1_1.iotape, the
 * format 1.1 file, must give the events of tests/lib/golden11.c, with and
 * without its footer, and hold the 1.1 features it was made to hold.
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
#include "../lib/golden.h"
#include "../lib/golden11.h"

#define GOLDEN_SIZE_MIN 2048	/* sanity: a few hundred events, compressed */

static char golden_path[4096], golden11_path[4096];

static int setup(void **state)
{
	const char *top = getenv("TOP");
	snprintf(golden_path, sizeof(golden_path), "%s/tests/golden/v1.iotape",
		 top && *top ? top : ".");
	snprintf(golden11_path, sizeof(golden11_path), "%s/tests/golden/v1_1.iotape",
		 top && *top ? top : ".");
	if (access(golden_path, R_OK) || access(golden11_path, R_OK)) {
		fprintf(stderr, "test_golden: cannot read %s (run from the top of the tree)\n",
			golden_path);
		return -1;
	}
	return 0;
}

/* The expected events of a table, from the generator. */
static void expected(int table, struct t_evs *out)
{
	char strs[2][GOLDEN_STR];
	uint8_t ev[256];
	t_evs_init(out, table);
	for (size_t i = 0; i < golden_count(table); i++) {
		golden_event(table, i, ev, strs);
		assert_int_equal(t_evs_push_copy(out, ev), 0);
	}
}

static void check_reader(tape_reader *r, int footer)
{
	char why[600];
	unsigned ma, mi;
	size_t total = 0;

	tape_reader_version(r, &ma, &mi);
	assert_int_equal(ma, 1);
	assert_int_equal(mi, 0);
	assert_true(footer ? !tape_reader_recovered(r) : !!tape_reader_recovered(r));
	assert_int_equal(tape_reader_trailing_bytes(r), 0);
	assert_int_equal(tape_reader_unknown_blocks(r), 0);
	assert_int_equal(tape_reader_damaged_meta(r, NULL), 0);

	assert_int_equal(tape_reader_meta_count(r), golden_nmeta);
	for (size_t k = 0; k < golden_nmeta; k++) {
		const char *v = tape_reader_meta(r, golden_meta[k].key);
		if (!v || strcmp(v, golden_meta[k].value))
			fail_msg("meta %s = '%s', expected '%s'", golden_meta[k].key,
				 v ? v : "(null)", golden_meta[k].value);
	}

	for (int t = GOLDEN_TABLES; t < TAPE_TABLE_MAX; t++) {	/* added later */
		struct tape_table_stats st;
		assert_int_equal(tape_reader_table_stats(r, t, &st), 0);
		assert_int_equal(st.events, 0);
	}
	for (int t = 1; t < GOLDEN_TABLES; t++) {
		struct t_evs exp, got;
		struct tape_table_stats st;
		uint64_t lo = UINT64_MAX, hi = 0;
		expected(t, &exp);
		assert_true(exp.n > 0);
		for (size_t i = 0; i < exp.n; i++) {
			uint64_t ts;
			memcpy(&ts, t_evs_at(&exp, i), 8);
			lo = ts < lo ? ts : lo;
			hi = ts > hi ? ts : hi;
		}
		assert_int_equal(tape_reader_table_stats(r, t, &st), 0);
		if (st.events != exp.n || st.blocks != golden_blocks(t) || st.t_min != lo ||
		    st.t_max != hi || st.bytes < st.blocks * TAPE_CHUNK_HDR)
			fail_msg("%s stats: %llu events in %llu blocks (%llu bytes), t %llu..%llu; "
				 "expected %zu in %zu, t %llu..%llu", tape_table_name(t),
				 (unsigned long long)st.events, (unsigned long long)st.blocks,
				 (unsigned long long)st.bytes, (unsigned long long)st.t_min,
				 (unsigned long long)st.t_max, exp.n, golden_blocks(t),
				 (unsigned long long)lo, (unsigned long long)hi);
		assert_true(golden_blocks(t) >= 2); /* several blocks per table */
		total += exp.n;

		int err = t_read_table(r, t, 0, UINT64_MAX, &got);
		if (err)
			fail_msg("%s: cursor error %d: %s", tape_table_name(t), err, tape_error_detail());
		assert_int_equal(got.n, exp.n);
		if (t_evs_cmp_prefix(&got, &exp, exp.n, why, sizeof(why)))
			fail_msg("%s %s: %s", footer ? "footer" : "scan", tape_table_name(t), why);
		t_evs_release(&got);

		/* the middle third by time */
		uint64_t a = lo + (hi - lo) / 3, b = lo + 2 * (hi - lo) / 3;
		struct t_evs want;
		t_evs_init(&want, t);
		for (size_t i = 0; i < exp.n; i++) {
			uint64_t ts;
			memcpy(&ts, t_evs_at(&exp, i), 8);
			if (ts >= a && ts <= b)
				assert_int_equal(t_evs_push_copy(&want, t_evs_at(&exp, i)), 0);
		}
		assert_true(want.n > 0);
		assert_int_equal(t_read_table(r, t, a, b, &got), 0);
		assert_int_equal(got.n, want.n);
		if (t_evs_cmp_prefix(&got, &want, want.n, why, sizeof(why)))
			fail_msg("%s by time: %s", tape_table_name(t), why);
		t_evs_release(&got);
		t_evs_release(&want);
		t_evs_release(&exp);
	}
	assert_true(total >= 300);
}

static void test_golden_footer(void **state)
{
	tape_reader *r;
	int err = tape_reader_open(&r, golden_path);
	if (err)
		fail_msg("%s: %s", golden_path, tape_error_detail());
	assert_true(tape_reader_file_size(r) >= GOLDEN_SIZE_MIN);
	check_reader(r, 1);
	tape_reader_free(r);
}

/* The same file without its footer: the scan must find the same. */
static void test_golden_scan(void **state)
{
	uint8_t *p;
	size_t len;
	tape_reader *r;
	assert_int_equal(t_file_contents(golden_path, &p, &len), 0);
	assert_memory_equal(p + len - 8, TAPE_TRAILER_MAGIC, 8);
	uint64_t ix = get_le64(p + len - TAPE_TRAILER_SIZE);
	assert_true(ix < len);
	int fd = t_memfd(p, ix); /* cut before the index chunk */
	int err = tape_reader_open_fd(&r, fd);
	if (err)
		fail_msg("scan: %s", tape_error_detail());
	check_reader(r, 0);
	tape_reader_free(r);
	close(fd);
	free(p);
}

/* The file's layout is the v1 layout the man page describes. */
static void test_golden_layout(void **state)
{
	uint8_t *p;
	size_t len;
	struct t_chunk ch[256];
	assert_int_equal(t_file_contents(golden_path, &p, &len), 0);
	assert_memory_equal(p, TAPE_MAGIC, 8);
	assert_int_equal(get_le16(p + 8), 1);
	assert_int_equal(get_le16(p + 10), 0);
	assert_int_equal(get_le32(p + 12), 32);
	size_t n = t_chunks(p, len, ch, 256), blocks = 0, metas = 0;
	assert_true(n > 0);
	assert_int_equal(ch[n - 1].type, CHUNK_INDEX);
	assert_int_equal(ch[n - 1].end + TAPE_TRAILER_SIZE, len);
	assert_int_equal(ch[n - 1].count, n - 1);
	for (size_t i = 0; i < n; i++) {
		blocks += ch[i].type == CHUNK_BLOCK;
		metas += ch[i].type == CHUNK_META;
	}
	size_t want = 0;
	for (int t = 1; t < GOLDEN_TABLES; t++)
		want += golden_blocks(t);
	assert_int_equal(blocks, want);
	assert_true(metas >= 3); /* "phase" was set three times */
	free(p);
}

/* ------------------------------------------------------- format 1.1 */

static void check11(tape_reader *r)
{
	struct t_evs exp, got;
	char why[600];
	unsigned ma, mi;
	tape_reader_version(r, &ma, &mi);
	assert_int_equal(ma, 1);
	assert_int_equal(mi, 1);
	assert_string_equal(tape_reader_meta(r, "source"), "golden 1.1");
	t_evs_init(&exp, TAPE_TABLE_SYSCALL);
	for (size_t i = 0; i < GOLDEN11_ROWS; i++) {
		struct tape_syscall ev;
		golden11_event(i, &ev);
		assert_int_equal(t_evs_push_copy(&exp, &ev), 0);
	}
	assert_int_equal(t_read_table(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &got), 0);
	assert_int_equal(got.n, exp.n);
	if (t_evs_cmp_prefix(&got, &exp, exp.n, why, sizeof(why)))
		fail_msg("v1_1: %s", why);
	t_evs_release(&got);
	t_evs_release(&exp);
}

static void test_golden11(void **state)
{
	uint8_t *p;
	size_t len;
	tape_reader *r;
	struct t_chunk ch[64];
	assert_int_equal(t_file_contents(golden11_path, &p, &len), 0);
	/* 1.1 header: minor 1, required flag REQ_11 */
	assert_int_equal(get_le16(p + 10), 1);
	assert_true(get_le64(p + 16) == TAPE_REQ_11);

	/* the 1.1 features are all there: DEXP ts, EXP dur (zstd'd exponents),
	 * pid predicted, op predicted in some blocks and not in others */
	size_t n = t_chunks(p, len, ch, 64), blocks = 0, exp_ts = 0, exp_dur = 0;
	size_t pid_pred = 0, op_pred = 0;
	for (size_t i = 0; i < n; i++) {
		if (ch[i].type != CHUNK_BLOCK)
			continue;
		size_t rl;
		uint8_t *raw = t_chunk_raw(p, &ch[i], &rl);
		assert_non_null(raw);
		const uint8_t *data = raw + 4 + 8 * get_le16(raw);
		for (unsigned c = 0; c < get_le16(raw); c++) {
			const uint8_t *d = raw + 4 + 8 * c;
			unsigned id = get_le16(d), e = d[3];
			if (id == SC_TS && ENC_ID(e) == ENC_DEXP)
				exp_ts++;
			if (id == SC_DUR && ENC_ID(e) == ENC_EXP) {
				/* LEB128 base, then xcodec 1: zstd'd exponents */
				const uint8_t *q = data;
				while (*q & 0x80)
					q++;
				exp_dur += q[1] == 1;
			}
			pid_pred += id == SC_PID && (e & ENC_PRED);
			op_pred += id == SC_OP && (e & ENC_PRED);
			data += get_le32(d + 4);
		}
		free(raw);
		blocks++;
	}
	assert_int_equal(blocks, GOLDEN11_ROWS / GOLDEN11_BLOCK_ROWS);
	assert_int_equal(exp_ts, blocks);
	assert_int_equal(exp_dur, blocks);
	assert_int_equal(pid_pred, blocks);
	assert_true(op_pred > 0 && op_pred < blocks);

	/* through the footer, and by a scan with the footer cut off */
	assert_int_equal(tape_reader_open(&r, golden11_path), 0);
	assert_null(tape_reader_recovered(r));
	check11(r);
	tape_reader_free(r);
	uint64_t ix = get_le64(p + len - TAPE_TRAILER_SIZE);
	assert_true(ix < len);
	int fd = t_memfd(p, ix);
	assert_int_equal(tape_reader_open_fd(&r, fd), 0);
	assert_non_null(tape_reader_recovered(r));
	check11(r);
	tape_reader_free(r);
	close(fd);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_footer),
		cmocka_unit_test(test_golden_scan),
		cmocka_unit_test(test_golden_layout),
		cmocka_unit_test(test_golden11),
	};
	return cmocka_run_group_tests(tests, setup, NULL) ? 1 : 0;
}
