/* SPDX-License-Identifier: MIT */
/*
 * test_roundtrip.c - what the writer writes, the reader reads back exactly.
 *
 * Randomized event streams of every table go through every integer
 * encoding (tape__force_encoding = each of RAW..DEXP, and 0 = automatic),
 * with extreme values, awkward strings, all the block-size edge cases,
 * metadata, time-range cursors and mid-stream flushes.  The integer codec
 * is also tested directly over widths 0..64 and adversarial shapes.  The
 * forced encodings are checked in the file itself (the test decompresses
 * the blocks and reads their column directories), so a hook that silently
 * stopped working would fail here.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>
#include <zstd.h>
#include "tape_internal.h"
#include "../lib/tlib.h"

#define SEED 0x10DA7Eull

static const int encodings[] = { 0, ENC_CHOOSE_ALL, ENC_RAW, ENC_VARINT, ENC_ZVARINT,
				 ENC_DELTA, ENC_BITPACK, ENC_DBITPACK, ENC_DICT, ENC_PBITPACK,
				 ENC_DPBITPACK, ENC_EXP, ENC_DEXP };

/* What the encoder may choose on its own: the bit-packed family, and with
 * ENC_CHOOSE_ALL the exponent encodings of 1.1 too. */
static int automatic(unsigned e, int force)
{
	return e == ENC_BITPACK || e == ENC_DBITPACK || e == ENC_DICT ||
	       e == ENC_PBITPACK || e == ENC_DPBITPACK ||
	       (force == ENC_CHOOSE_ALL && (e == ENC_EXP || e == ENC_DEXP));
}
#define NENC (sizeof(encodings) / sizeof(encodings[0]))

/* ------------------------------------------------------- integer codec */

static void codec_one(const uint64_t *v, size_t n, int force, const char *what)
{
	struct buf b = { 0 };
	uint8_t enc = 0;
	int err = tape_int_encode(v, n, &b, &enc, force);
	if (err)
		fail_msg("%s n=%zu force=%d: encode: %d", what, n, force, err);
	if (force && force != ENC_DICT && force != ENC_CHOOSE_ALL && enc != force)
		fail_msg("%s n=%zu: forced %d, got %u", what, n, force, enc);
	if (force == ENC_DICT && enc != ENC_DICT && enc != ENC_BITPACK)
		fail_msg("%s n=%zu: forced DICT, got %u", what, n, enc);
	if ((!force || force == ENC_CHOOSE_ALL) && !automatic(enc, force))
		fail_msg("%s n=%zu: automatic choice %u is not a bit-packed encoding", what, n, enc);

	/* Exactly 8 readable bytes past the data, as the decoder documents:
	 * ASan catches a decoder reading further. */
	uint8_t *p = malloc(b.len + 8), *q = malloc(b.len + 1 + 8);
	uint64_t *out = malloc((n + 1) * sizeof(*out));
	assert_non_null(p);
	assert_non_null(q);
	assert_non_null(out);
	if (b.len) {
		memcpy(p, b.p, b.len);
		memcpy(q, b.p, b.len);
	}
	memset(p + b.len, 0xa5, 8);
	memset(q + b.len, 0x00, 9);
	err = tape_int_decode(enc, p, b.len, n, out);
	if (err)
		fail_msg("%s n=%zu enc=%u: decode: %d (%s)", what, n, enc, err, tape_error_detail());
	for (size_t i = 0; i < n; i++)
		if (out[i] != v[i])
			fail_msg("%s n=%zu enc=%u: value %zu: %llu != %llu", what, n, enc, i,
				 (unsigned long long)out[i], (unsigned long long)v[i]);
	/* The data must be used exactly: one byte more or less is damage. */
	if (b.len > 0 && tape_int_decode(enc, p, b.len - 1, n, out) != -EBADMSG)
		fail_msg("%s n=%zu enc=%u: decoding one byte short did not fail", what, n, enc);
	if (tape_int_decode(enc, q, b.len + 1, n, out) != -EBADMSG)
		fail_msg("%s n=%zu enc=%u: a trailing byte was accepted", what, n, enc);
	free(q);
	free(p);
	free(out);

	/* The automatic choice is never bigger than BITPACK or DBITPACK. */
	if (!force) {
		for (int f = ENC_BITPACK; f <= ENC_DBITPACK; f++) {
			struct buf o = { 0 };
			uint8_t e2;
			assert_int_equal(tape_int_encode(v, n, &o, &e2, f), 0);
			if (b.len > o.len)
				fail_msg("%s n=%zu: automatic %zu bytes > forced %d %zu bytes",
					 what, n, b.len, f, o.len);
			buf_release(&o);
		}
	}
	buf_release(&b);
}

static void codec_all(const uint64_t *v, size_t n, const char *what)
{
	for (size_t e = 0; e < NENC; e++)
		codec_one(v, n, encodings[e], what);
}

static void test_int_codec(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 255, 256, 257, 1000 };
	struct t_rng r = { SEED };
	uint64_t *v = malloc(2000 * sizeof(*v));
	char what[64];
	assert_non_null(v);

	/* n = 0 on a fresh thread is test_int_encode_empty's business */
	v[0] = 1;
	codec_all(v, 1, "warm-up");

	for (unsigned w = 0; w <= 64; w++) {
		uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			size_t n = sizes[k];
			/* random values of exactly this width, with a random base */
			uint64_t base = t_below(&r, 3) ? 0 : t_rand(&r);
			for (size_t i = 0; i < n; i++)
				v[i] = base + (t_rand(&r) & mask);
			if (n)
				v[t_below(&r, n)] = base + mask; /* the width is reached */
			snprintf(what, sizeof(what), "random w=%u", w);
			codec_all(v, n, what);
			/* monotonic with steps of this width */
			uint64_t x = t_rand(&r);
			for (size_t i = 0; i < n; i++)
				v[i] = x += t_rand(&r) & mask;
			snprintf(what, sizeof(what), "monotonic w=%u", w);
			codec_all(v, n, what);
			/* decreasing */
			for (size_t i = 0; i < n; i++)
				v[i] = x -= t_rand(&r) & mask;
			snprintf(what, sizeof(what), "decreasing w=%u", w);
			codec_all(v, n, what);
			/* few distinct values of this width (dictionary) */
			uint64_t d[5];
			for (int j = 0; j < 5; j++)
				d[j] = t_rand(&r) & mask;
			for (size_t i = 0; i < n; i++)
				v[i] = d[t_below(&r, 5)];
			snprintf(what, sizeof(what), "dict w=%u", w);
			codec_all(v, n, what);
		}
	}
	static const uint64_t special[] = { 0, 1, UINT64_MAX, UINT64_MAX - 1, 1ull << 63,
					    (1ull << 63) - 1, UINT32_MAX, 1ull << 32 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		for (size_t s = 0; s < sizeof(special) / sizeof(special[0]); s++) {
			for (size_t i = 0; i < n; i++)
				v[i] = special[s];
			snprintf(what, sizeof(what), "all equal %llu", (unsigned long long)special[s]);
			codec_all(v, n, what);
		}
		for (size_t i = 0; i < n; i++)
			v[i] = i & 1 ? UINT64_MAX : 0;
		codec_all(v, n, "alternating 0/UINT64_MAX");
		for (size_t i = 0; i < n; i++)
			v[i] = i & 1 ? 1ull << 63 : (1ull << 63) - 1;
		codec_all(v, n, "alternating INT64_MIN/INT64_MAX");
		for (size_t i = 0; i < n; i++)
			v[i] = special[t_below(&r, 8)];
		codec_all(v, n, "random specials");
		for (size_t i = 0; i < n; i++)
			v[i] = i;
		codec_all(v, n, "0,1,2,...");
		for (size_t i = 0; i < n; i++)
			v[i] = UINT64_MAX - i;
		codec_all(v, n, "UINT64_MAX down");
	}
	/* more than TAPE_MAX_DICT distinct values: DICT cannot be used */
	for (size_t i = 0; i < 300; i++)
		v[i] = i * 1000003;
	codec_all(v, 300, "300 distinct");
	/* random widths per value */
	for (int round = 0; round < 200; round++) {
		size_t n = t_below(&r, 2000);
		for (size_t i = 0; i < n; i++)
			v[i] = t_rand(&r) >> t_below(&r, 64);
		codec_all(v, n, "random widths");
	}
	free(v);
}

/* Encoding zero values works on a thread that never encoded before (the
 * encoder's per-thread scratch space is not allocated yet). */
static void *encode_empty(void *arg)
{
	int force = *(int *)arg;
	struct buf b = { 0 };
	uint8_t enc;
	uint64_t v = 0;
	long err = tape_int_encode(&v, 0, &b, &enc, force);
	buf_release(&b);
	return (void *)err;
}

static void test_int_encode_empty(void **state)
{
	for (size_t e = 0; e < NENC; e++) {
		pthread_t th;
		void *rc;
		int force = encodings[e];
		assert_int_equal(pthread_create(&th, NULL, encode_empty, &force), 0);
		assert_int_equal(pthread_join(th, &rc), 0);
		if ((long)rc != 0)
			fail_msg("encoding 0 values (force %d) on a new thread: %ld", force, (long)rc);
	}
}

/* Malformed input the decoder must refuse (not crash on). */
static void test_int_decode_rejects(void **state)
{
	uint64_t out[8];
	uint8_t p[64] = { 0 };

	/* unknown encoding */
	assert_int_equal(tape_int_decode(99, p, 8, 1, out), -EBADMSG);
	assert_true(strlen(tape_error_detail()) > 0);
	/* bit width above 64 */
	p[0] = 0;
	p[1] = 65;
	assert_int_equal(tape_int_decode(ENC_BITPACK, p, 2 + 9, 1, out), -EBADMSG);
	/* dictionary index out of range: 1 entry (5), width 1, index 1 */
	p[0] = 1; p[1] = 5; p[2] = 1; p[3] = 1;
	assert_int_equal(tape_int_decode(ENC_DICT, p, 4, 1, out), -EBADMSG);
	p[3] = 0;
	assert_int_equal(tape_int_decode(ENC_DICT, p, 4, 1, out), 0);
	assert_int_equal(out[0], 5);
	/* dictionary larger than the limit */
	p[0] = 0x81; p[1] = 0x04; /* 513 */
	assert_int_equal(tape_int_decode(ENC_DICT, p, 8, 1, out), -EBADMSG);
	/* varint longer than 64 bits */
	memset(p, 0xff, 10);
	p[10] = 0x01;
	assert_int_equal(tape_int_decode(ENC_VARINT, p, 11, 1, out), -EBADMSG);
	memset(p, 0xff, 9);
	p[9] = 0x01; /* exactly UINT64_MAX */
	assert_int_equal(tape_int_decode(ENC_VARINT, p, 10, 1, out), 0);
	assert_true(out[0] == UINT64_MAX);
	p[9] = 0x02;
	assert_int_equal(tape_int_decode(ENC_VARINT, p, 10, 1, out), -EBADMSG);

	/* EXP: base 5, stored exponents {3}, mantissa 2 bits (10b): 5 + 110b */
	memset(p, 0, sizeof(p));
	p[0] = 5; p[1] = 0; p[2] = 1; p[3] = 3; p[4] = 0x02;
	assert_int_equal(tape_int_decode(ENC_EXP, p, 5, 1, out), 0);
	assert_int_equal(out[0], 11);
	/* DEXP: v[0] 7, least delta -2 (zigzag 3), exponent 0: 7, 5 */
	p[0] = 7; p[1] = 3; p[2] = 0; p[3] = 1; p[4] = 0;
	assert_int_equal(tape_int_decode(ENC_DEXP, p, 5, 2, out), 0);
	assert_int_equal(out[0], 7);
	assert_int_equal(out[1], 5);
	/* an exponent above 64 (with the 64 bits it would need) */
	p[0] = 0; p[1] = 0; p[2] = 1; p[3] = 65;
	assert_int_equal(tape_int_decode(ENC_EXP, p, 4 + 8, 1, out), -EBADMSG);
	/* an unknown exponent codec */
	p[1] = 2; p[3] = 0;
	assert_int_equal(tape_int_decode(ENC_EXP, p, 4, 1, out), -EBADMSG);
	/* a zstd codec whose bytes are no zstd frame */
	p[1] = 1; p[2] = 4; p[3] = 0x28; p[4] = 0xb5; p[5] = 0x2f; p[6] = 0xfd;
	assert_int_equal(tape_int_decode(ENC_EXP, p, 7, 1, out), -EBADMSG);
	/* exponents longer than the column */
	p[1] = 0; p[2] = 9;
	assert_int_equal(tape_int_decode(ENC_EXP, p, 4, 1, out), -EBADMSG);
}

/* ------------------------------------------------------- format versions */

/*
 * A training-like syscall stream (four threads of two processes, each
 * reading its file sequentially; durations spread over several octaves)
 * written three ways: the default (format 1.1), TAPE_WRITE_FAST (1.1
 * without EXP/DEXP) and TAPE_WRITE_V10 (a 1.0 file).  Each reads back
 * exactly; the header, the encodings in the blocks and the sizes are what
 * each mode promises.
 */
static void versions_stream(struct t_evs *exp)
{
	struct t_rng r = { SEED + 11 };
	uint64_t ts = 1000000000ull, off[4] = { 0 }, k[4] = { 0 };
	static const unsigned ops[] = { TAPE_OP_READ, TAPE_OP_READ, TAPE_OP_READ, TAPE_OP_LSEEK };
	t_evs_init(exp, TAPE_TABLE_SYSCALL);
	for (size_t i = 0; i < 40000; i++) {
		unsigned th = (unsigned)t_below(&r, 4);
		unsigned op = ops[k[th]++ % 4];
		uint64_t size = op == TAPE_OP_READ ? 131072 << t_below(&r, 3) : 0;
		/* 2^9..2^21 ns, every bit below the leading one random */
		unsigned lg = 9 + (unsigned)t_below(&r, 12);
		uint64_t dur = (1ull << lg) | (t_rand(&r) & ((1ull << lg) - 1));
		struct tape_syscall e = {
			.ts_ns = ts += 1 + (t_rand(&r) & 0xfff) * (1 + t_below(&r, 60)),
			.dur_ns = dur,
			.pid = 4000 + th / 2, .tid = 4000 + th, .op = op, .fd = 3 + th,
			.file_id = 1 + th, .offset = off[th], .size = size,
			.ret = (int64_t)size, .path = th & 1 ? "/data/odd.bin" : "/data/even.bin",
			.path2 = "",
		};
		off[th] += size;
		assert_int_equal(t_evs_push_copy(exp, &e), 0);
	}
}

/* The integer encodings and PRED flags of the syscall blocks of a file:
 * *exp_cols counts EXP/DEXP columns, *pred_pidop PRED on pid or op. */
static void versions_scan(const uint8_t *file, size_t len, size_t *exp_cols, size_t *pred_pidop)
{
	struct t_chunk ch[256];
	size_t n = t_chunks(file, len, ch, 256);
	*exp_cols = *pred_pidop = 0;
	for (size_t i = 0; i < n; i++) {
		if (ch[i].type != CHUNK_BLOCK || ch[i].table != TAPE_TABLE_SYSCALL)
			continue;
		size_t rl;
		uint8_t *raw = t_chunk_raw(file, &ch[i], &rl);
		assert_non_null(raw);
		for (unsigned c = 0; c < get_le16(raw); c++) {
			const uint8_t *d = raw + 4 + 8 * c;
			unsigned id = get_le16(d), e = d[3];
			if (ENC_ID(e) == ENC_EXP || ENC_ID(e) == ENC_DEXP)
				(*exp_cols)++;
			if ((id == SC_PID || id == SC_OP) && (e & ENC_PRED))
				(*pred_pidop)++;
		}
		free(raw);
	}
}

static void test_format_versions(void **state)
{
	static const unsigned modes[] = { 0, TAPE_WRITE_FAST, TAPE_WRITE_V10 };
	struct t_evs exp;
	size_t sizes[3];
	char why[600];
	versions_stream(&exp);
	for (int m = 0; m < 3; m++) {
		struct tape_writer_opts o = { .flags = modes[m] };
		tape_writer *w;
		tape_reader *r;
		int fd;
		assert_int_equal(t_writer_memfd(&w, &o, &fd), 0);
		for (size_t i = 0; i < exp.n; i++)
			assert_int_equal(tape_writer_append(w, TAPE_TABLE_SYSCALL, t_evs_at(&exp, i)), 0);
		assert_int_equal(tape_writer_close(w), 0);

		uint8_t *file;
		size_t len, nexp, npred;
		assert_int_equal(t_fd_contents(fd, &file, &len), 0);
		sizes[m] = len;
		/* 1.1 and its required flag, or a plain 1.0 header */
		assert_int_equal(get_le16(file + 10), m == 2 ? 0 : 1);
		assert_true(get_le64(file + 16) == (m == 2 ? 0 : TAPE_REQ_11));
		versions_scan(file, len, &nexp, &npred);
		if (m == 0 && !nexp)
			fail_msg("default writer: no EXP/DEXP column on spread durations");
		if (m != 0 && nexp)
			fail_msg("mode %u: %zu EXP/DEXP columns", modes[m], nexp);
		if ((m == 2) != !npred)
			fail_msg("mode %u: %zu pid/op columns predicted", modes[m], npred);
		free(file);

		unsigned ma, mi;
		assert_int_equal(tape_reader_open_fd(&r, fd), 0);
		tape_reader_version(r, &ma, &mi);
		assert_int_equal(mi, m == 2 ? 0 : 1);
		struct t_evs got;
		assert_int_equal(t_read_table(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &got), 0);
		assert_int_equal(got.n, exp.n);
		if (t_evs_cmp_prefix(&got, &exp, exp.n, why, sizeof(why)))
			fail_msg("mode %u: %s", modes[m], why);
		t_evs_release(&got);
		tape_reader_free(r);
		close(fd);
	}
	/* each mode gives up size for speed or compatibility */
	if (!(sizes[0] < sizes[1] && sizes[1] < sizes[2]))
		fail_msg("sizes default %zu, fast %zu, 1.0 %zu: not increasing", sizes[0], sizes[1],
			 sizes[2]);
	t_evs_release(&exp);
}

/* ------------------------------------------------------ trace round trip */

/* A column's bytes, zstd-decompressed when its encoding byte says so. */
static uint8_t *column_bytes(const uint8_t *p, size_t len, uint8_t e, size_t *out)
{
	uint8_t *c;
	if (!(e & ENC_ZSTD)) {
		c = malloc(len + 1);
		assert_non_null(c);
		if (len)
			memcpy(c, p, len);
		*out = len;
		return c;
	}
	unsigned long long n = ZSTD_getFrameContentSize(p, len);
	assert_true(n != ZSTD_CONTENTSIZE_ERROR && n != ZSTD_CONTENTSIZE_UNKNOWN);
	c = malloc(n + 1);
	assert_non_null(c);
	size_t got = ZSTD_decompress(c, n, p, len);
	assert_false(ZSTD_isError(got));
	assert_int_equal(got, n);
	*out = n;
	return c;
}

/*
 * Every integer column of every block uses enc (strings: their indices),
 * read from the file itself; PRED only where the format allows it.
 */
static void check_encodings(const uint8_t *file, size_t len, int enc)
{
	struct t_chunk ch[4096];
	size_t n = t_chunks(file, len, ch, 4096), blocks = 0;
	for (size_t i = 0; i < n; i++) {
		if (ch[i].type != CHUNK_BLOCK)
			continue;
		size_t rl;
		uint8_t *raw = t_chunk_raw(file, &ch[i], &rl);
		assert_non_null(raw);
		unsigned ncols = get_le16(raw);
		const uint8_t *data = raw + 4 + 8 * ncols;
		for (unsigned c = 0; c < ncols; c++) {
			const uint8_t *d = raw + 4 + 8 * c;
			uint8_t type = d[2], e = d[3];
			size_t cl;
			uint8_t *col = column_bytes(data, get_le32(d + 4), e, &cl);
			data += get_le32(d + 4);
			if (type == TAPE_COL_STR) {
				assert_int_equal(ENC_ID(e), ENC_SDICT);
				assert_false(e & ENC_PRED); /* the directory byte never has PRED */
				/* skip the dictionary to the index encoding byte */
				struct rd rd = { col, col + cl };
				uint64_t nd, sl;
				assert_int_equal(rd_varint(&rd, &nd), 0);
				for (uint64_t k = 0; k < nd; k++) {
					assert_int_equal(rd_varint(&rd, &sl), 0);
					rd.p += sl;
				}
				assert_true(rd.p < rd.end);
				e = *rd.p;
				assert_false(e & ENC_ZSTD);
			}
			if ((e & ENC_PRED) && ch[i].table != TAPE_TABLE_SYSCALL)
				fail_msg("PRED on a column of table %u", ch[i].table);
			free(col);
			e = ENC_ID(e);
			if (type == TAPE_COL_STR && (enc == ENC_DICT || enc == ENC_CHOOSE_ALL))
				continue; /* indices: automatic choice */
			if (enc == 0 || enc == ENC_CHOOSE_ALL) {
				/* the writer's own choice includes EXP, but not
				 * for string indices */
				if (!automatic(e, type == TAPE_COL_STR ? 0 : ENC_CHOOSE_ALL))
					fail_msg("block at %llu column %u: automatic encoding %u",
						 (unsigned long long)ch[i].off, get_le16(d), e);
			} else if (enc == ENC_DICT) {
				assert_true(e == ENC_DICT || e == ENC_BITPACK);
			} else if (e != enc) {
				fail_msg("block at %llu column %u: encoding %u, forced %d",
					 (unsigned long long)ch[i].off, get_le16(d), e, enc);
			}
		}
		assert_true(data == raw + rl);
		free(raw);
		blocks++;
	}
	assert_true(blocks > 0);
}

struct rt {
	int table;
	size_t n;
	unsigned block_rows;
	int extreme;
	int monotonic;
	unsigned flush_every;	/* 0 = never */
};

static void gen_events(struct t_rng *r, const struct rt *p, struct t_evs *exp)
{
	size_t size = tape_table_event_size(p->table);
	uint8_t *ev = calloc(1, size);
	uint64_t ts = t_rand(r) >> 8;
	t_evs_init(exp, p->table);
	for (size_t i = 0; i < p->n; i++) {
		memset(ev, 0, size);
		t_ev_random(r, p->table, ev, p->extreme, p->monotonic ? &ts : NULL);
		assert_int_equal(t_evs_push_copy(exp, ev), 0);
		t_ev_free_strings(p->table, ev);
	}
	free(ev);
}

/*
 * Write exp (with flushes), read it back and compare everything: events,
 * block sizes, stats.  Returns nothing; fails the test on a difference.
 */
static void roundtrip(const struct rt *p, const struct t_evs *exp, int enc)
{
	struct tape_writer_opts o = { .block_rows = p->block_rows };
	tape_writer *w;
	tape_reader *r;
	int fd;
	size_t bs[4096], nb = 0, rows = 0;
	char why[600];

	tape__force_encoding = enc;
	assert_int_equal(t_writer_memfd(&w, &o, &fd), 0);
	for (size_t i = 0; i < exp->n; i++) {
		assert_int_equal(tape_writer_append(w, p->table, t_evs_at(exp, i)), 0);
		if (++rows == p->block_rows) {
			bs[nb++] = rows;
			rows = 0;
		}
		if (p->flush_every && (i + 1) % p->flush_every == 0) {
			assert_int_equal(tape_writer_flush(w), 0);
			if (rows)
				bs[nb++] = rows;
			rows = 0;
		}
		assert_true(nb < 4000);
	}
	if (rows)
		bs[nb++] = rows;
	assert_int_equal(tape_writer_events(w), exp->n);
	assert_int_equal(tape_writer_close(w), 0);
	tape__force_encoding = 0;

	uint8_t *file;
	size_t len;
	assert_int_equal(t_fd_contents(fd, &file, &len), 0);
	if (exp->n)
		check_encodings(file, len, enc);
	free(file);

	assert_int_equal(tape_reader_open_fd(&r, fd), 0);
	assert_null(tape_reader_recovered(r));
	assert_int_equal(tape_reader_trailing_bytes(r), 0);
	assert_int_equal(tape_reader_unknown_blocks(r), 0);

	struct tape_table_stats st;
	uint64_t tmin = UINT64_MAX, tmax = 0;
	for (size_t i = 0; i < exp->n; i++) {
		uint64_t ts;
		memcpy(&ts, t_evs_at(exp, i), 8);
		tmin = ts < tmin ? ts : tmin;
		tmax = ts > tmax ? ts : tmax;
	}
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		assert_int_equal(tape_reader_table_stats(r, t, &st), 0);
		if (t != p->table) {
			assert_int_equal(st.events, 0);
			assert_int_equal(st.blocks, 0);
			continue;
		}
		assert_int_equal(st.events, exp->n);
		assert_int_equal(st.blocks, nb);
		assert_true(st.t_min == tmin);
		assert_true(st.t_max == tmax);
		assert_true(st.bytes >= nb * TAPE_CHUNK_HDR);
	}

	/* Whole blocks: the sizes are the ones the writer was asked for. */
	tape_cursor *c;
	const void *evs;
	size_t n, k = 0, done = 0;
	assert_int_equal(tape_cursor_open(r, p->table, 0, UINT64_MAX, &c), 0);
	while (tape_cursor_next_block(c, &evs, &n) == 1) {
		assert_true(k < nb);
		if (n != bs[k])
			fail_msg("block %zu has %zu rows, expected %zu", k, n, bs[k]);
		for (size_t i = 0; i < n; i++)
			if (t_ev_cmp(p->table, (const uint8_t *)evs + i * exp->size,
				     t_evs_at(exp, done + i), why, sizeof(why)))
				fail_msg("enc %d block %zu row %zu: %s", enc, k, i, why);
		done += n;
		k++;
	}
	assert_int_equal(k, nb);
	assert_int_equal(done, exp->n);
	tape_cursor_free(c);

	/* Event at a time. */
	struct t_evs got;
	assert_int_equal(t_read_table(r, p->table, 0, UINT64_MAX, &got), 0);
	assert_int_equal(got.n, exp->n);
	if (t_evs_cmp_prefix(&got, exp, exp->n, why, sizeof(why)))
		fail_msg("enc %d table %s: %s", enc, tape_table_name(p->table), why);
	t_evs_release(&got);
	tape_reader_free(r);
	close(fd);
}

/* Every table x every encoding, random extreme streams, random block sizes. */
static void test_tables_encodings(void **state)
{
	static const unsigned brows[] = { 1, 3, 7, 16, 100, 0 };
	struct t_rng r = { SEED + 1 };
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		for (size_t e = 0; e < NENC; e++) {
			for (int extreme = 0; extreme <= 1; extreme++) {
				struct rt p = {
					.table = t,
					.n = 1 + t_below(&r, 300),
					.block_rows = brows[t_below(&r, 6)],
					.extreme = extreme,
					.monotonic = !extreme || t_below(&r, 2),
					.flush_every = t_below(&r, 3) ? 0 : 1 + (unsigned)t_below(&r, 50),
				};
				struct t_evs exp;
				gen_events(&r, &p, &exp);
				roundtrip(&p, &exp, encodings[e]);
				if (t == TAPE_TABLE_SYSCALL) { /* and without the prediction */
					tape__no_predict = 1;
					roundtrip(&p, &exp, encodings[e]);
					tape__no_predict = 0;
				}
				t_evs_release(&exp);
			}
		}
	}
}

/* Extreme values in every column, one event per shape. */
static void test_extremes(void **state)
{
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		size_t ncols, size = tape_table_event_size(t);
		const struct tape_column *cols = tape_table_columns(t, &ncols);
		struct t_evs exp;
		uint8_t *ev = calloc(1, size);
		t_evs_init(&exp, t);
		/* shape 0: all 0 / ""; 1: all max; 2: INT64_MIN-ish; 3: -1; 4: mix */
		for (int shape = 0; shape < 5; shape++) {
			memset(ev, 0, size);
			for (size_t c = 0; c < ncols; c++) {
				const struct tape_column *col = &cols[c];
				uint64_t max = col->width == 4 ? UINT32_MAX : UINT64_MAX;
				if (col->type == TAPE_COL_STR) {
					static const char *s[] = { "", ",\"\n\xff", "a,b,\"c\"\r\n",
								   "\x01", "/x y/z" };
					t_ev_set_str(col, ev, s[shape]);
					continue;
				}
				uint64_t v = shape == 0 ? 0 : shape == 1 ? max :
					shape == 2 ? (col->width == 4 ? 0x80000000u : 1ull << 63) :
					shape == 3 ? max : (c & 1 ? max : 0);
				if (shape == 3 && col->type == TAPE_COL_I64)
					v = (uint64_t)-4; /* -EINTR */
				tape_column_set(col, ev, v);
			}
			assert_int_equal(t_evs_push_copy(&exp, ev), 0);
		}
		free(ev);
		for (size_t e = 0; e < NENC; e++) {
			struct rt p = { .table = t, .n = exp.n, .block_rows = 2 };
			roundtrip(&p, &exp, encodings[e]);
			p.block_rows = 0;
			roundtrip(&p, &exp, encodings[e]);
		}
		t_evs_release(&exp);
	}
}

/* 1, odd, exactly block_rows, block_rows + 1, 2 * block_rows + 3 events. */
static void test_block_sizes(void **state)
{
	static const unsigned brows[] = { 1, 2, 8, 17 };
	struct t_rng r = { SEED + 2 };
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		for (size_t b = 0; b < 4; b++) {
			unsigned B = brows[b];
			size_t ns[] = { 0, 1, 5, B, B + 1, 2 * B + 3 };
			for (size_t k = 0; k < 6; k++) {
				struct rt p = { .table = t, .n = ns[k], .block_rows = B, .monotonic = 1 };
				struct t_evs exp;
				gen_events(&r, &p, &exp);
				roundtrip(&p, &exp, 0);
				t_evs_release(&exp);
			}
		}
	}
}

/* A trace with no events (and then with metadata only). */
static void test_empty_trace(void **state)
{
	for (int with_meta = 0; with_meta <= 1; with_meta++) {
		tape_writer *w;
		tape_reader *r;
		int fd;
		assert_int_equal(t_writer_memfd(&w, NULL, &fd), 0);
		if (with_meta)
			assert_int_equal(tape_writer_set_meta(w, "host", "h1"), 0);
		assert_int_equal(tape_writer_close(w), 0);
		assert_int_equal(tape_reader_open_fd(&r, fd), 0);
		assert_null(tape_reader_recovered(r));
		assert_int_equal(tape_reader_meta_count(r), with_meta);
		if (with_meta)
			assert_string_equal(tape_reader_meta(r, "host"), "h1");
		else
			assert_null(tape_reader_meta(r, "host"));
		for (int t = 1; t < TAPE_TABLE_MAX; t++) {
			struct tape_table_stats st;
			tape_cursor *c;
			const void *ev;
			assert_int_equal(tape_reader_table_stats(r, t, &st), 0);
			assert_int_equal(st.events, 0);
			assert_int_equal(st.blocks, 0);
			assert_true(st.t_min == UINT64_MAX);
			assert_int_equal(tape_cursor_open(r, t, 0, UINT64_MAX, &c), 0);
			assert_int_equal(tape_cursor_next(c, &ev), 0);
			assert_int_equal(tape_cursor_next(c, &ev), 0);
			tape_cursor_free(c);
		}
		tape_reader_free(r);

		/* the same file without its footer (writer freed, not closed) */
		close(fd);
		assert_int_equal(t_writer_memfd(&w, NULL, &fd), 0);
		if (with_meta)
			assert_int_equal(tape_writer_set_meta(w, "host", "h1"), 0);
		assert_int_equal(tape_writer_flush(w), 0);
		tape_writer_free(w);
		assert_int_equal(tape_reader_open_fd(&r, fd), 0);
		assert_non_null(tape_reader_recovered(r));
		assert_int_equal(tape_reader_trailing_bytes(r), 0);
		assert_int_equal(tape_reader_meta_count(r), with_meta);
		tape_reader_free(r);
		close(fd);
	}
}

/* Later values win, across flushes and within one; odd bytes survive. */
static void test_metadata(void **state)
{
	tape_writer *w;
	tape_reader *r;
	int fd;
	struct tape_writer_opts o = { .block_rows = 4 };
	struct tape_sample s = { .ts_ns = 1, .metric = 1, .value = 2 };
	char *big = malloc(TAPE_MAX_STRING + 2);
	memset(big, 'v', TAPE_MAX_STRING + 1);
	big[TAPE_MAX_STRING] = 0;

	assert_int_equal(t_writer_memfd(&w, &o, &fd), 0);
	assert_int_equal(tape_writer_set_meta(w, "a", "1"), 0);
	assert_int_equal(tape_writer_set_meta(w, "b", "first"), 0);
	assert_int_equal(tape_writer_set_meta(w, "b", "second"), 0); /* same flush */
	for (int i = 0; i < 10; i++) {
		s.ts_ns = (uint64_t)i;
		assert_int_equal(tape_writer_append(w, TAPE_TABLE_SAMPLE, &s), 0);
	}
	assert_int_equal(tape_writer_flush(w), 0);
	assert_int_equal(tape_writer_set_meta(w, "a", "2"), 0);
	assert_int_equal(tape_writer_set_meta(w, "empty", ""), 0);
	assert_int_equal(tape_writer_set_meta(w, "odd", "x,y\n\"z\"\xff"), 0);
	assert_int_equal(tape_writer_set_meta(w, "big", big), 0);
	assert_int_equal(tape_writer_flush(w), 0);
	assert_int_equal(tape_writer_set_meta(w, "a", "3"), 0);
	assert_int_equal(tape_writer_set_meta(w, "nullval", NULL), 0);
	/* refused: empty key, value too long; nothing is changed */
	assert_true(tape_writer_set_meta(w, "", "x") < 0);
	big[TAPE_MAX_STRING] = 'v';
	big[TAPE_MAX_STRING + 1] = 0;
	assert_true(tape_writer_set_meta(w, "toolong", big) < 0);
	big[TAPE_MAX_STRING] = 0;
	for (int i = 10; i < 13; i++) {
		s.ts_ns = (uint64_t)i;
		assert_int_equal(tape_writer_append(w, TAPE_TABLE_SAMPLE, &s), 0);
	}
	assert_int_equal(tape_writer_close(w), 0);

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			/* without the footer: the scan sees the same META chunks */
			uint8_t *f;
			size_t len;
			assert_int_equal(t_fd_contents(fd, &f, &len), 0);
			close(fd);
			fd = t_memfd(f, len - TAPE_TRAILER_SIZE);
			free(f);
		}
		assert_int_equal(tape_reader_open_fd(&r, fd), 0);
		assert_true(pass == 0 ? tape_reader_recovered(r) == NULL
				      : tape_reader_recovered(r) != NULL);
		assert_int_equal(tape_reader_meta_count(r), 6);
		assert_string_equal(tape_reader_meta(r, "a"), "3");
		assert_string_equal(tape_reader_meta(r, "b"), "second");
		assert_string_equal(tape_reader_meta(r, "empty"), "");
		assert_string_equal(tape_reader_meta(r, "nullval"), "");
		assert_string_equal(tape_reader_meta(r, "odd"), "x,y\n\"z\"\xff");
		assert_string_equal(tape_reader_meta(r, "big"), big);
		assert_null(tape_reader_meta(r, "toolong"));
		assert_null(tape_reader_meta(r, ""));
		/* meta_at enumerates the same keys, each once */
		size_t seen = 0;
		for (size_t i = 0; i < tape_reader_meta_count(r); i++) {
			const char *k, *v;
			assert_int_equal(tape_reader_meta_at(r, i, &k, &v), 0);
			assert_string_equal(tape_reader_meta(r, k), v);
			seen++;
		}
		assert_int_equal(seen, 6);
		const char *k, *v;
		assert_int_equal(tape_reader_meta_at(r, 6, &k, &v), -ERANGE);
		struct tape_table_stats st;
		assert_int_equal(tape_reader_table_stats(r, TAPE_TABLE_SAMPLE, &st), 0);
		assert_int_equal(st.events, 13);
		assert_int_equal(st.blocks, 4); /* 4 4 | 2 flushed | 3 at close */
		tape_reader_free(r);
	}
	close(fd);
	free(big);
}

/* Cursors with t_from/t_to return exactly the events in range, in order. */
static void test_time_range(void **state)
{
	struct t_rng r = { SEED + 3 };
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		for (int shape = 0; shape < 2; shape++) {
			struct rt p = { .table = t, .n = 200 + t_below(&r, 200),
					.block_rows = 1 + (unsigned)t_below(&r, 40),
					.monotonic = shape == 0, .extreme = shape == 1 };
			struct t_evs exp, got;
			tape_writer *w;
			tape_reader *rd;
			int fd;
			char why[600];
			struct tape_writer_opts o = { .block_rows = p.block_rows };

			gen_events(&r, &p, &exp);
			if (shape == 1) { /* unsorted, with 0 and UINT64_MAX */
				const struct tape_column *c0 = tape_table_columns(t, NULL);
				for (size_t i = 0; i < exp.n; i++) {
					uint64_t v = t_below(&r, 10) == 0 ? 0 :
						     t_below(&r, 10) == 0 ? UINT64_MAX : t_below(&r, 1000);
					tape_column_set(c0, t_evs_at(&exp, i), v);
				}
			}
			assert_int_equal(t_writer_memfd(&w, &o, &fd), 0);
			for (size_t i = 0; i < exp.n; i++)
				assert_int_equal(tape_writer_append(w, t, t_evs_at(&exp, i)), 0);
			assert_int_equal(tape_writer_close(w), 0);
			assert_int_equal(tape_reader_open_fd(&rd, fd), 0);

			for (int q = 0; q < 60; q++) {
				uint64_t a, b;
				uint64_t ta, tb;
				memcpy(&ta, t_evs_at(&exp, t_below(&r, exp.n)), 8);
				memcpy(&tb, t_evs_at(&exp, t_below(&r, exp.n)), 8);
				switch (q % 6) {
				case 0: a = ta; b = ta; break;		/* one timestamp */
				case 1: a = ta < tb ? ta : tb; b = ta < tb ? tb : ta; break;
				case 2: a = ta + 1; b = ta; break;	/* empty (from > to) */
				case 3: a = 0; b = ta; break;
				case 4: a = ta; b = UINT64_MAX; break;
				default: a = ta + 1; b = tb - 1; break;
				}
				if (q == 0) { a = 0; b = 0; }
				if (q == 1) { a = UINT64_MAX; b = UINT64_MAX; }
				if (q == 2) { a = 0; b = UINT64_MAX; }
				struct t_evs want;
				t_evs_init(&want, t);
				for (size_t i = 0; i < exp.n; i++) {
					uint64_t ts;
					memcpy(&ts, t_evs_at(&exp, i), 8);
					if (ts >= a && ts <= b)
						assert_int_equal(t_evs_push_copy(&want, t_evs_at(&exp, i)), 0);
				}
				assert_int_equal(t_read_table(rd, t, a, b, &got), 0);
				if (got.n != want.n)
					fail_msg("%s [%llu, %llu]: %zu events, expected %zu",
						 tape_table_name(t), (unsigned long long)a,
						 (unsigned long long)b, got.n, want.n);
				if (t_evs_cmp_prefix(&got, &want, want.n, why, sizeof(why)))
					fail_msg("%s [%llu, %llu]: %s", tape_table_name(t),
						 (unsigned long long)a, (unsigned long long)b, why);
				t_evs_release(&got);
				t_evs_release(&want);
			}
			tape_reader_free(rd);
			close(fd);
			t_evs_release(&exp);
		}
	}
}

/* All tables interleaved, flushed at random points; meta between. */
static void test_flush_interleaved(void **state)
{
	struct t_rng r = { SEED + 4 };
	struct t_evs exp[TAPE_TABLE_MAX];
	size_t rows[TAPE_TABLE_MAX] = { 0 }, blocks[TAPE_TABLE_MAX] = { 0 };
	struct tape_writer_opts o = { .block_rows = 13 };
	tape_writer *w;
	tape_reader *rd;
	int fd;
	char why[600];
	uint8_t ev[256];

	assert_int_equal(t_writer_memfd(&w, &o, &fd), 0);
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		t_evs_init(&exp[t], t);
	for (int i = 0; i < 2000; i++) {
		int t = 1 + (int)t_below(&r, TAPE_TABLE_MAX - 1);
		memset(ev, 0, sizeof(ev));
		t_ev_random(&r, t, ev, (int)t_below(&r, 2), NULL);
		assert_int_equal(tape_writer_append(w, t, ev), 0);
		assert_int_equal(t_evs_push_copy(&exp[t], ev), 0);
		t_ev_free_strings(t, ev);
		if (++rows[t] == o.block_rows) {
			blocks[t]++;
			rows[t] = 0;
		}
		if (t_below(&r, 100) == 0) {
			char v[32];
			snprintf(v, sizeof(v), "%d", i);
			assert_int_equal(tape_writer_set_meta(w, "last_flush", v), 0);
			assert_int_equal(tape_writer_flush(w), 0);
			for (int k = 1; k < TAPE_TABLE_MAX; k++) {
				blocks[k] += rows[k] != 0;
				rows[k] = 0;
			}
			/* a second flush with nothing pending writes nothing */
			uint64_t bytes = tape_writer_bytes(w);
			assert_int_equal(tape_writer_flush(w), 0);
			assert_int_equal(tape_writer_bytes(w), bytes);
		}
	}
	assert_int_equal(tape_writer_events(w), 2000);
	for (int k = 1; k < TAPE_TABLE_MAX; k++)
		blocks[k] += rows[k] != 0;
	/* keep a copy without the footer too */
	assert_int_equal(tape_writer_flush(w), 0);
	uint8_t *nofooter;
	size_t nflen;
	assert_int_equal(t_fd_contents(fd, &nofooter, &nflen), 0);
	assert_int_equal(tape_writer_close(w), 0);

	for (int pass = 0; pass < 2; pass++) {
		int rfd = pass == 0 ? fd : t_memfd(nofooter, nflen);
		assert_int_equal(tape_reader_open_fd(&rd, rfd), 0);
		assert_true(pass == 0 ? !tape_reader_recovered(rd) : !!tape_reader_recovered(rd));
		assert_non_null(tape_reader_meta(rd, "last_flush"));
		for (int t = 1; t < TAPE_TABLE_MAX; t++) {
			struct tape_table_stats st;
			struct t_evs got;
			assert_int_equal(tape_reader_table_stats(rd, t, &st), 0);
			assert_int_equal(st.events, exp[t].n);
			assert_int_equal(st.blocks, blocks[t]);
			assert_int_equal(t_read_table(rd, t, 0, UINT64_MAX, &got), 0);
			assert_int_equal(got.n, exp[t].n);
			if (t_evs_cmp_prefix(&got, &exp[t], exp[t].n, why, sizeof(why)))
				fail_msg("pass %d: %s", pass, why);
			t_evs_release(&got);
		}
		tape_reader_free(rd);
		close(rfd);
	}
	free(nofooter);
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		t_evs_release(&exp[t]);
}

/*
 * Syscall paths from many interleaved threads (tids that share tid % 64),
 * each switching between paths of the same length, always from one reused
 * buffer: the writer tries a thread's last path first and must compare the
 * bytes, never trust the pointer.
 */
static void test_thread_paths(void **state)
{
	struct t_rng r = { SEED + 7 };
	struct tape_writer_opts o = { .block_rows = 97 };
	struct t_evs exp, got;
	tape_writer *w;
	tape_reader *rd;
	int fd;
	char why[600], buf[64];

	t_evs_init(&exp, TAPE_TABLE_SYSCALL);
	assert_int_equal(t_writer_memfd(&w, &o, &fd), 0);
	for (int i = 0; i < 3000; i++) {
		struct tape_syscall e = { 0 };
		e.ts_ns = 1000 + (uint64_t)i;
		e.tid = (uint32_t)(1 + 64 * t_below(&r, 3) + t_below(&r, 2));
		e.pid = 1;
		e.op = (uint32_t)t_below(&r, 4);
		e.fd = (int64_t)t_below(&r, 5);
		e.size = t_below(&r, 3) * 4096;
		e.ret = (int64_t)e.size;
		snprintf(buf, sizeof(buf), "/data/shard-%05u.rec", (unsigned)t_below(&r, 6));
		e.path = buf;
		e.path2 = t_below(&r, 50) ? "" : buf;
		assert_int_equal(tape_writer_append(w, TAPE_TABLE_SYSCALL, &e), 0);
		assert_int_equal(t_evs_push_copy(&exp, &e), 0);
		memset(buf, 'x', sizeof(buf) - 1);	/* the writer must have copied it */
	}
	assert_int_equal(tape_writer_close(w), 0);
	assert_int_equal(tape_reader_open_fd(&rd, fd), 0);
	assert_int_equal(t_read_table(rd, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &got), 0);
	assert_int_equal(got.n, exp.n);
	if (t_evs_cmp_prefix(&got, &exp, exp.n, why, sizeof(why)))
		fail_msg("%s", why);
	t_evs_release(&got);
	t_evs_release(&exp);
	tape_reader_free(rd);
	close(fd);
}

/* TAPE_MAX_STRING bytes is the longest string; one more is -E2BIG and the
 * event is not appended (and the writer keeps working). */
static void test_long_strings(void **state)
{
	char *max = malloc(TAPE_MAX_STRING + 2), *path4k = malloc(4097);
	assert_non_null(max);
	assert_non_null(path4k);
	for (size_t i = 0; i < TAPE_MAX_STRING + 1; i++)
		max[i] = (char)(i % 16 == 0 ? '/' : 'a' + i % 23);
	max[TAPE_MAX_STRING] = 0;
	for (size_t i = 0; i < 4096; i++)
		path4k[i] = (char)(i % 8 == 0 ? '/' : 'A' + i % 19);
	path4k[4096] = 0;

	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		size_t ncols, size = tape_table_event_size(t);
		const struct tape_column *cols = tape_table_columns(t, &ncols);
		int nstr = 0;
		for (size_t c = 0; c < ncols; c++)
			nstr += cols[c].type == TAPE_COL_STR;
		if (!nstr)
			continue;
		struct t_evs exp;
		struct tape_writer_opts o = { .block_rows = 3 };
		tape_writer *w;
		tape_reader *rd;
		int fd;
		uint8_t *ev = calloc(1, size);
		char why[600];
		t_evs_init(&exp, t);
		assert_int_equal(t_writer_memfd(&w, &o, &fd), 0);
		for (size_t sc = 0; sc < ncols; sc++) {
			if (cols[sc].type != TAPE_COL_STR)
				continue;
			/* too long in this column: refused, nothing appended */
			memset(ev, 0, size);
			tape_column_set(&cols[0], ev, 5);
			max[TAPE_MAX_STRING] = 'z';
			max[TAPE_MAX_STRING + 1] = 0;
			t_ev_set_str(&cols[sc], ev, max);
			uint64_t before = tape_writer_events(w);
			t_clear_detail();
			assert_int_equal(tape_writer_append(w, t, ev), -E2BIG);
			assert_true(strlen(tape_error_detail()) > 0);
			assert_int_equal(tape_writer_events(w), before);
			max[TAPE_MAX_STRING] = 0;
			/* exactly the limit, then a 4 KiB path, then "" */
			const char *vals[] = { max, path4k, "", max };
			for (int k = 0; k < 4; k++) {
				memset(ev, 0, size);
				tape_column_set(&cols[0], ev, exp.n);
				for (size_t c = 0; c < ncols; c++)
					if (cols[c].type == TAPE_COL_STR)
						t_ev_set_str(&cols[c], ev, c == sc ? vals[k] : "x");
				assert_int_equal(tape_writer_append(w, t, ev), 0);
				assert_int_equal(t_evs_push_copy(&exp, ev), 0);
			}
		}
		assert_int_equal(tape_writer_events(w), exp.n);
		assert_int_equal(tape_writer_close(w), 0);
		free(ev);
		assert_int_equal(tape_reader_open_fd(&rd, fd), 0);
		struct t_evs got;
		assert_int_equal(t_read_table(rd, t, 0, UINT64_MAX, &got), 0);
		assert_int_equal(got.n, exp.n);
		if (t_evs_cmp_prefix(&got, &exp, exp.n, why, sizeof(why)))
			fail_msg("%s", why);
		t_evs_release(&got);
		tape_reader_free(rd);
		close(fd);
		t_evs_release(&exp);
	}
	free(max);
	free(path4k);
}

/*
 * Every string within TAPE_MAX_STRING, yet together more than a block may
 * hold (TAPE_MAX_RAW): the writer must cut the block early, not refuse it.
 * 257 distinct 1 MiB argv strings in one table with the default
 * block_rows make a 257 MiB block payload.
 */
static void big_argv(char *s, size_t i)
{
	snprintf(s, 32, "python3 run.py --id=%08zu ", i);
	s[strlen(s)] = 'x';
}

static void test_block_byte_limit(void **state)
{
	const size_t n = TAPE_MAX_RAW / TAPE_MAX_STRING + 1;
	char *s = malloc(TAPE_MAX_STRING + 1);
	tape_writer *w;
	tape_reader *r;
	int fd, err;
	assert_non_null(s);
	memset(s, 'x', TAPE_MAX_STRING);
	s[TAPE_MAX_STRING] = 0;

	assert_int_equal(t_writer_memfd(&w, NULL, &fd), 0);
	for (size_t i = 0; i < n; i++) {
		struct tape_process p = { .ts_ns = i, .pid = (uint32_t)i, .comm = "python3", .argv = s };
		big_argv(s, i);
		if ((err = tape_writer_append(w, TAPE_TABLE_PROCESS, &p)))
			fail_msg("append %zu of %zu: %d (%s)", i, n, err, tape_error_detail());
	}
	err = tape_writer_close(w);
	if (err)
		fail_msg("close: %d (%s): %zu valid events of %u bytes each cannot be written",
			 err, tape_error_detail(), n, TAPE_MAX_STRING);
	assert_int_equal(tape_reader_open_fd(&r, fd), 0);
	tape_cursor *c;
	const void *ev;
	size_t k = 0;
	assert_int_equal(tape_cursor_open(r, TAPE_TABLE_PROCESS, 0, UINT64_MAX, &c), 0);
	while ((err = tape_cursor_next(c, &ev)) == 1) {
		const struct tape_process *p = ev;
		big_argv(s, k);
		assert_int_equal(p->ts_ns, k);
		assert_int_equal(strlen(p->argv), TAPE_MAX_STRING);
		assert_true(strcmp(p->argv, s) == 0);
		k++;
	}
	assert_int_equal(err, 0);
	assert_int_equal(k, n);
	tape_cursor_free(c);
	tape_reader_free(r);
	close(fd);
	free(s);
}

/* Write the n events evs of table (its structs), block_rows to a block,
 * to a trace in memory and read them back into *got; the reader, which
 * the caller frees (and closes *fd). */
static tape_reader *write_read(int table, const void *evs, size_t n, unsigned block_rows,
			       int *fd, struct t_evs *got)
{
	struct tape_writer_opts o = { .block_rows = block_rows };
	size_t size = tape_table_event_size(table);
	tape_writer *w;
	tape_reader *r;

	assert_int_equal(t_writer_memfd(&w, &o, fd), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(tape_writer_append(w, table, (const char *)evs + i * size), 0);
	assert_int_equal(tape_writer_close(w), 0);
	assert_int_equal(tape_reader_open_fd(&r, *fd), 0);
	assert_int_equal(t_read_table(r, table, 0, UINT64_MAX, got), 0);
	assert_int_equal(got->n, n);
	return r;
}

/* The columns of table with an id in the mask ids are in `in` blocks,
 * every other column in `all`; returns how many of ids there were. */
static size_t column_blocks(tape_reader *r, int table, uint64_t ids, uint64_t in, uint64_t all)
{
	struct tape_column_stats cs[TAPE_MAX_COLS_KNOWN];
	size_t ncs, seen = 0;

	assert_int_equal(tape_reader_column_stats(r, table, cs, TAPE_MAX_COLS_KNOWN, &ncs), 0);
	for (size_t i = 0; i < ncs; i++) {
		int masked = cs[i].id < 64 && ((ids >> cs[i].id) & 1);
		assert_int_equal(cs[i].blocks, masked ? in : all);
		seen += masked;
	}
	return seen;
}

/*
 * The output side of copies (fd2, file_id2, offset2): stored where the op
 * has one, -1, 0, 0 elsewhere whatever the struct held, and left out of
 * blocks without a copy, whose rows then read -1, 0, 0 all the same.
 */
static void test_copy_columns(void **state)
{
	struct t_evs got;
	tape_reader *r;
	int fd;

	for (unsigned op = 0; op < 64; op++)
		assert_int_equal(tape_op_has_output(op), tape__op_has_output(op));
	assert_true(tape_op_has_output(TAPE_OP_SENDFILE));
	assert_true(tape_op_has_output(TAPE_OP_COPY_FILE_RANGE));
	assert_true(tape_op_has_output(TAPE_OP_SPLICE));
	assert_false(tape_op_has_output(TAPE_OP_PREAD64));
	assert_false(tape_op_has_output(TAPE_OP_MAX));

	/* block 1: reads only (garbage in their output side); block 2: copies */
	static const struct { unsigned op; int64_t fd2; uint64_t fid2, off2; } rows[] = {
		{ TAPE_OP_READ, 5, 9, 7 }, { TAPE_OP_PREAD64, 0, 0, 0 },
		{ TAPE_OP_WRITE, -1, 0, 0 }, { TAPE_OP_RENAMEAT, -100, 1, 1 },
		{ TAPE_OP_SENDFILE, 4, 2, 65536 },
		{ TAPE_OP_COPY_FILE_RANGE, INT64_MIN, UINT64_MAX, UINT64_MAX },
		{ TAPE_OP_SPLICE, -1, 0, 0 }, { TAPE_OP_READ, 3, 3, 3 },
	};
	const size_t n = sizeof(rows) / sizeof(rows[0]);
	struct tape_syscall evs[sizeof(rows) / sizeof(rows[0])];
	for (size_t i = 0; i < n; i++)
		evs[i] = (struct tape_syscall){ .ts_ns = 10 * i, .pid = 1, .tid = 1, .op = rows[i].op,
						.fd = 3, .path = "/a", .path2 = "",
						.fd2 = rows[i].fd2, .file_id2 = rows[i].fid2,
						.offset2 = rows[i].off2 };
	r = write_read(TAPE_TABLE_SYSCALL, evs, n, 4, &fd, &got);
	for (size_t i = 0; i < n; i++) {
		const struct tape_syscall *e = t_evs_at(&got, i);
		int out = tape_op_has_output(rows[i].op);
		assert_int_equal(e->op, rows[i].op);
		assert_true(e->fd2 == (out ? rows[i].fd2 : -1));
		assert_true(e->file_id2 == (out ? rows[i].fid2 : 0));
		assert_true(e->offset2 == (out ? rows[i].off2 : 0));
	}
	t_evs_release(&got);
	/* the columns are in the second block only: ~0 bytes elsewhere */
	assert_int_equal(column_blocks(r, TAPE_TABLE_SYSCALL, SC_OUTPUT, 1, 2), 3);
	tape_reader_free(r);
	close(fd);
}

/*
 * The file table's fstype: stored where a row of the block has one, the
 * column left out of blocks whose rows are all 0 (unknown), which then
 * read 0, as blocks of writers that did not know the column do.
 */
static void test_fstype_column(void **state)
{
	static const uint64_t fstypes[] = {
		0, 0, 0, 0,				/* block 1: none known */
		0x01021994, 0, 0xef53, UINT64_MAX,	/* block 2 */
		0, 0,					/* block 3 (closed early) */
	};
	const size_t n = sizeof(fstypes) / sizeof(fstypes[0]);
	struct tape_file evs[sizeof(fstypes) / sizeof(fstypes[0])];
	struct t_evs got;
	tape_reader *r;
	int fd;

	for (size_t i = 0; i < n; i++)
		evs[i] = (struct tape_file){ .ts_ns = 10 * i, .file_id = 1 + i, .dev = 8u << 20,
					     .inode = 100 + i, .mode = 0100644, .path = "/d/f",
					     .fstype = fstypes[i] };
	r = write_read(TAPE_TABLE_FILE, evs, n, 4, &fd, &got);
	for (size_t i = 0; i < n; i++) {
		const struct tape_file *e = t_evs_at(&got, i);
		assert_int_equal(e->file_id, 1 + i);
		assert_true(e->fstype == fstypes[i]);
	}
	t_evs_release(&got);
	/* the column is in block 2 only; every other column in all three */
	assert_int_equal(column_blocks(r, TAPE_TABLE_FILE, 1ull << FC_FSTYPE, 1, 3), 1);
	tape_reader_free(r);
	close(fd);
}

/* Arguments the API refuses. */
static void test_api_errors(void **state)
{
	tape_writer *w;
	tape_reader *r;
	tape_cursor *c;
	int fd;
	struct tape_sample s = { 0 };
	struct tape_table_stats st;

	assert_int_equal(t_writer_memfd(&w, NULL, &fd), 0);
	assert_int_equal(tape_writer_append(w, 0, &s), -EINVAL);
	assert_int_equal(tape_writer_append(w, TAPE_TABLE_MAX, &s), -EINVAL);
	assert_int_equal(tape_writer_append(w, TAPE_TABLE_SAMPLE, &s), 0);
	assert_int_equal(tape_writer_close(w), 0);
	assert_int_equal(tape_reader_open_fd(&r, fd), 0);
	assert_int_equal(tape_reader_table_stats(r, 0, &st), -EINVAL);
	assert_int_equal(tape_reader_table_stats(r, TAPE_TABLE_MAX, &st), -EINVAL);
	assert_int_equal(tape_cursor_open(r, 77, 0, UINT64_MAX, &c), -EINVAL);
	assert_null(c);
	tape_reader_free(r);
	close(fd);

	struct tape_writer_opts o = { .block_rows = TAPE_MAX_ROWS + 1 };
	fd = memfd_create("x", 0);
	assert_int_equal(tape_writer_open_fd(&w, fd, &o), -EINVAL);
	assert_null(w);
	close(fd);
	tape_writer_free(NULL);
	tape_reader_free(NULL);
	tape_cursor_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_codec),
		cmocka_unit_test(test_int_encode_empty),
		cmocka_unit_test(test_int_decode_rejects),
		cmocka_unit_test(test_format_versions),
		cmocka_unit_test(test_tables_encodings),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_block_sizes),
		cmocka_unit_test(test_empty_trace),
		cmocka_unit_test(test_metadata),
		cmocka_unit_test(test_time_range),
		cmocka_unit_test(test_flush_interleaved),
		cmocka_unit_test(test_thread_paths),
		cmocka_unit_test(test_long_strings),
		cmocka_unit_test(test_block_byte_limit),
		cmocka_unit_test(test_api_errors),
		cmocka_unit_test(test_copy_columns),
		cmocka_unit_test(test_fstype_column),
	};
	return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
