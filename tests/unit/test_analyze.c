/* SPDX-License-Identifier: MIT */
/*
 * test_analyze.c - ground truth for `iotape analyze`: each test writes a
 * small trace with the format library's writer, runs the analysis and
 * asserts the numbers (cmocka; exit 0 pass, 1 fail).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analyze.h"
#include "ana_compare.h"
#include "ana_rows.h"
#include "fmt.h"

static char dir[64];
static int seq_no;

struct tw {
	tape_writer *w;
	char path[128];
};

static void tw_open(struct tw *t)
{
	snprintf(t->path, sizeof(t->path), "%s/t%d.tape", dir, seq_no++);
	struct tape_writer_opts o = { .flags = TAPE_WRITE_FORCE };
	assert_int_equal(tape_writer_open(&t->w, t->path, &o), 0);
}

static void tw_close(struct tw *t)
{
	assert_int_equal(tape_writer_close(t->w), 0);
}

#define T0 1000000000000ull	/* 1000 s: a monotonic clock never starts at 0 */
#define MS 1000000ull

static void sc(struct tw *t, uint64_t ts, uint64_t dur, uint32_t pid, uint32_t tid,
	       unsigned op, int64_t fd, uint64_t file_id, uint64_t off, uint64_t size,
	       int64_t ret, const char *path)
{
	struct tape_syscall e = { .ts_ns = T0 + ts, .dur_ns = dur, .pid = pid, .tid = tid,
				  .op = op, .fd = fd, .file_id = file_id, .offset = off,
				  .size = size, .ret = ret, .path = path ? path : "", .path2 = "" };
	assert_int_equal(tape_writer_append(t->w, TAPE_TABLE_SYSCALL, &e), 0);
}

static void file_row(struct tw *t, uint64_t id, const char *path, uint64_t dev, uint64_t ino,
		     uint64_t size)
{
	struct tape_file f = { .ts_ns = T0, .file_id = id, .dev = dev, .inode = ino,
			       .size = size, .mode = 0100644, .path = path };
	assert_int_equal(tape_writer_append(t->w, TAPE_TABLE_FILE, &f), 0);
}

static void proc_row(struct tw *t, uint32_t pid, uint32_t ppid, const char *comm)
{
	struct tape_process p = { .ts_ns = T0, .pid = pid, .tid = pid, .ppid = ppid,
				  .comm = comm, .argv = comm };
	assert_int_equal(tape_writer_append(t->w, TAPE_TABLE_PROCESS, &p), 0);
}

static void cache_ev(struct tw *t, uint64_t ts, uint32_t tid, unsigned kind, uint64_t ino,
		     uint64_t index, uint64_t count)
{
	struct tape_cache c = { .ts_ns = T0 + ts, .pid = tid, .tid = tid, .kind = kind,
				.dev = (8u << 20) | 1, .inode = ino, .index = index, .count = count };
	assert_int_equal(tape_writer_append(t->w, TAPE_TABLE_CACHE, &c), 0);
}

static void blk_ev(struct tw *t, uint64_t ts, uint64_t dur, uint64_t sector, uint64_t bytes,
		   uint64_t flags)
{
	struct tape_block b = { .ts_ns = T0 + ts, .dur_ns = dur, .dev = (8u << 20), .sector = sector,
				.bytes = bytes, .flags = flags };
	assert_int_equal(tape_writer_append(t->w, TAPE_TABLE_BLOCK, &b), 0);
}

static void run(struct ana *a, struct tw *t, const struct ana_opts *o)
{
	struct ana_opts def = { .top = -1, .to_ns = UINT64_MAX, .threads = 1 };
	assert_int_equal(ana_run(a, t->path, o ? o : &def), 0);
}

static json_t *run_json(struct tw *t)
{
	struct ana a;
	run(&a, t, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(ana_report_json(&a, f), 0);
	fclose(f);
	json_error_t err;
	json_t *j = json_loads(buf, 0, &err);
	if (!j)
		fail_msg("bad JSON at line %d: %s\n%s", err.line, err.text, buf);
	free(buf);
	/* the text report must not crash either */
	f = fopen("/dev/null", "w");
	ana_report_text(&a, f);
	fclose(f);
	ana_release(&a);
	return j;
}

/* xorshift: the same "random" trace on every machine */
static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void shuffle(uint32_t *v, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rnd() % (i + 1);
		uint32_t x = v[i];
		v[i] = v[j];
		v[j] = x;
	}
}

/* ------------------------------------------------------------------ tests */

/* A file's figures past 32 bits (ana_file.wide): a 6 GiB file read whole
 * twice, in 1 GiB reads, beside a small one; the file table's ids not
 * files[i]'s i + 1 (ana_file_fid). */
static void test_file_wide(void **state)
{
	const uint64_t G = 1ull << 30;
	struct tw t;
	tw_open(&t);
	file_row(&t, 1, "/data/big.bin", 8u << 20, 11, 6 * G);
	file_row(&t, 9, "/data/small.bin", 8u << 20, 12, 4096);
	for (int ep = 0; ep < 2; ep++) {
		uint64_t t0 = (uint64_t)ep * 100 * MS;
		sc(&t, t0, 1000, 100, 100, TAPE_OP_OPENAT, -100, 1, 0, 0, 3, "/data/big.bin");
		for (int i = 0; i < 6; i++)
			sc(&t, t0 + (i + 1) * MS, 1000, 100, 100, TAPE_OP_READ, 3, 1,
			   (uint64_t)i * G, G, (int64_t)G, "");
		sc(&t, t0 + 8 * MS, 1000, 100, 100, TAPE_OP_CLOSE, 3, 1, 0, 0, 0, "");
		sc(&t, t0 + 9 * MS, 1000, 100, 100, TAPE_OP_OPENAT, -100, 9, 0, 0, 4,
		   "/data/small.bin");
		sc(&t, t0 + 10 * MS, 1000, 100, 100, TAPE_OP_READ, 4, 9, 0, 4096, 4096, "");
		sc(&t, t0 + 11 * MS, 1000, 100, 100, TAPE_OP_CLOSE, 4, 9, 0, 0, 0, "");
	}
	tw_close(&t);

	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(a.nfiles, 2);
	const struct ana_file *b = &a.files[0], *s = &a.files[1];
	assert_true(b->wide);
	assert_false(s->wide);
	assert_int_equal(ana_file_fid(&a, 0), 1);
	assert_int_equal(ana_file_fid(&a, 1), 9);
	assert_int_equal(ana_file_size(&a, b), 6 * G);
	assert_int_equal(ana_file_read_ops(&a, b), 12);
	assert_int_equal(ana_file_read_bytes(&a, b), 12 * G);
	assert_int_equal(ana_file_extent(&a, 0), 6 * G);
	assert_int_equal(ana_file_read_bytes(&a, s), 8192);
	assert_int_equal(ana_file_extent(&a, 1), 4096);
	assert_int_equal(ana_epoch_count(&a), 2);
	assert_int_equal(a.sys.epochs[0].bytes, 6 * G + 4096);
	assert_int_equal(a.sys.epochs[1].bytes, 6 * G + 4096);
	assert_int_equal(a.ds.size, 6 * G + 4096);
	assert_int_equal(a.ds.read_bytes, 12 * G + 8192);
	ana_release(&a);
}

static void test_sequential_1mib(void **state)
{
	struct tw t;
	tw_open(&t);
	file_row(&t, 1, "/data/train.bin", 8u << 20, 11, 64u << 20);
	sc(&t, 0, 1000, 100, 100, TAPE_OP_OPENAT, -100, 1, 0, 0, 3, "/data/train.bin");
	for (int i = 0; i < 64; i++)
		sc(&t, (i + 1) * MS, 500000, 100, 100, TAPE_OP_READ, 3, 1, (uint64_t)i << 20, 1 << 20,
		   1 << 20, "");
	sc(&t, 70 * MS, 0, 100, 100, TAPE_OP_READ, 3, 1, 64u << 20, 1 << 20, 0, ""); /* EOF */
	sc(&t, 71 * MS, 1000, 100, 100, TAPE_OP_CLOSE, 3, 1, 0, 0, 0, "");
	tw_close(&t);

	struct ana a;
	run(&a, &t, NULL);
	assert_true(ana_read_randomness(&a) == 0.0);
	assert_true(ana_seq_read_fraction(&a) == 1.0);
	assert_int_equal(a.sys.read_ops, 65);
	assert_int_equal(a.sys.read_bytes, 64u << 20);
	assert_int_equal(a.sys.st_count, 1);
	assert_int_equal(a.sys.st_consec, 63);
	assert_int_equal(a.sys.st_cls[1], 1);	/* sequential */
	assert_int_equal(a.sys.rd_hist[21], 64);	/* [1 MiB, 2 MiB) */
	assert_int_equal(ana_epoch_count(&a), 1);
	ana_release(&a);
}

static void test_random_4k(void **state)
{
	struct tw t;
	tw_open(&t);
	uint64_t size = 4ull << 30;
	file_row(&t, 1, "/data/big.bin", 8u << 20, 12, size);
	sc(&t, 0, 1000, 100, 100, TAPE_OP_OPENAT, -100, 1, 0, 0, 3, "/data/big.bin");
	for (int i = 0; i < 20000; i++) {
		uint64_t off = (rnd() % (size / 4096)) * 4096;
		sc(&t, MS + i * 1000ull, 800, 100, 100, TAPE_OP_PREAD64, 3, 1, off, 4096, 4096, "");
	}
	tw_close(&t);
	struct ana a;
	run(&a, &t, NULL);
	double r = ana_read_randomness(&a);
	assert_true(r >= 0.99);
	assert_int_equal(a.sys.st_cls[3], 1);	/* random */
	assert_int_equal(a.sys.rd_hist[13], 20000);	/* [4 KiB, 8 KiB) */
	ana_release(&a);
}

static void test_strided(void **state)
{
	struct tw t;
	tw_open(&t);
	sc(&t, 0, 1000, 100, 100, TAPE_OP_OPENAT, -100, 1, 0, 0, 3, "/data/s.bin");
	for (int i = 0; i < 100; i++)	/* 4 KiB every 64 KiB */
		sc(&t, MS + i * 1000ull, 800, 100, 100, TAPE_OP_PREAD64, 3, 0,
		   (uint64_t)i * 65536, 4096, 4096, "");
	tw_close(&t);
	struct ana a;
	run(&a, &t, NULL);
	assert_true(ana_read_randomness(&a) == 1.0);	/* no read continues the previous */
	assert_true(ana_seq_read_fraction(&a) == 1.0);	/* all move forward (Darshan SEQ) */
	assert_int_equal(a.sys.st_cls[2], 1);	/* strided */
	ana_release(&a);
}

static void write_order_trace(struct tw *t, const uint32_t *order, size_t n)
{
	char path[64];
	tw_open(t);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/data/img_%zu.jpg", i);	/* natural order matters */
		file_row(t, i + 1, path, 8u << 20, 100 + i, 4096);
	}
	for (size_t k = 0; k < n; k++) {
		uint32_t i = order[k];
		uint64_t ts = k * 10 * 1000ull;
		snprintf(path, sizeof(path), "/data/img_%u.jpg", i);
		sc(t, ts, 1000, 100, 100, TAPE_OP_OPENAT, -100, i + 1, 0, 0, 5, path);
		sc(t, ts + 2000, 1000, 100, 100, TAPE_OP_READ, 5, i + 1, 0, 4096, 4096, "");
		sc(t, ts + 4000, 1000, 100, 100, TAPE_OP_CLOSE, 5, i + 1, 0, 0, 0, "");
	}
	tw_close(t);
}

/* jansson's text of s as a JSON string (what ana_rb_str must write) */
static char *jansson_str(const char *s)
{
	json_t *j = cm_json_str(s);
	char *d = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
	json_decref(j);
	return d;
}

static void row_of(void *ctx, size_t i, struct ana_rowbuf *r)
{
	(void)ctx;
	if (i)
		ana_rb_lit(r, ",");
	ana_rb_lit(r, "{\"i\":");
	ana_rb_u64(r, i * 7919);
	ana_rb_lit(r, ",\"big\":");
	ana_rb_u64(r, UINT64_MAX - i);
	ana_rb_lit(r, ",\"r\":");
	ana_rb_real(r, i % 3 ? 1.0 / (double)(i % 3 + 1) : 0.0);
	ana_rb_lit(r, "}");
}

/* The rows of ana_rows_write: in order, the same on one thread and two
 * (chunks of rows across both), each figure as jansson prints it; the
 * strings and paths as jansson escapes them, wherever in a word of eight
 * bytes the byte to escape falls. */
static void test_rows(void **state)
{
	(void)state;
	const size_t n = 5000;
	char *buf[2];
	size_t len[2];
	for (int t = 0; t < 2; t++) {
		FILE *f = open_memstream(&buf[t], &len[t]);
		assert_non_null(f);
		assert_int_equal(ana_rows_write(f, n, row_of, NULL, t + 1), 0);
		assert_int_equal(fclose(f), 0);
	}
	assert_int_equal(len[0], len[1]);
	assert_memory_equal(buf[0], buf[1], len[0]);
	char *d = malloc(len[0] + 3);
	assert_non_null(d);
	d[0] = '[';
	memcpy(d + 1, buf[0], len[0]);
	memcpy(d + 1 + len[0], "]", 2);
	json_error_t je;
	json_t *j = json_loads(d, 0, &je);
	if (!j)
		fail_msg("rows are not JSON: %s", je.text);
	assert_int_equal(json_array_size(j), n);
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_array_get(j, i);
		assert_int_equal(json_integer_value(json_object_get(o, "i")), i * 7919);
		char want[32];
		snprintf(want, sizeof(want), "%" PRIu64, UINT64_MAX - i);
		assert_string_equal(json_string_value(json_object_get(o, "big")), want);
		double r = i % 3 ? 1.0 / (double)(i % 3 + 1) : 0.0;
		assert_true(fabs(json_real_value(json_object_get(o, "r")) - r) < 1e-9);
	}
	json_decref(j);
	free(d);
	free(buf[0]);
	free(buf[1]);

	static const char *const odd[] = { "\"", "\\", "\n", "\x01", "\x7f", "\xc3\xa9", "\xff",
					   "\xe2\x82\xac", "/" };
	struct ana *a = calloc(1, sizeof(*a));
	assert_non_null(a);
	struct ana_rowbuf r = { malloc(ANA_ROW_MAX), 0, ANA_ROW_MAX };
	assert_non_null(r.b);
	for (size_t k = 0; k < sizeof(odd) / sizeof(*odd); k++) {
		for (size_t at = 0; at < 20; at++) {
			char s[64], pb[ANA_PATH_BUF];
			memset(s, 'a', at);
			snprintf(s + at, sizeof(s) - at, "%sbcdefghij", odd[k]);
			char *want = jansson_str(s);
			r.n = 0;
			ana_rb_str(&r, s);
			assert_int_equal(r.n, strlen(want));
			assert_memory_equal(r.b, want, r.n);
			free(want);
			/* as a path of a directory, and kept whole */
			char p[80];
			if (at % 2)
				snprintf(p, sizeof(p), "/d%zu/%s", k, s);
			else
				snprintf(p, sizeof(p), "%s", s);
			uint32_t id = ana_path_add(a, p);
			want = jansson_str(ana_path_str(a, id, pb));
			r.n = 0;
			ana_rb_path(&r, a, id);
			assert_int_equal(r.n, strlen(want));
			assert_memory_equal(r.b, want, r.n);
			free(want);
		}
	}
	free(r.b);
	ana_release(a);
	free(a);
}

/* ana_order_randomness's tau against the discordant pairs counted one by
 * one: permutations, ranks with gaps up to 2^32 - 1, repeated ranks
 * (equal ranks are not discordant), sorted and reversed. */
static void test_order_inversions(void **state)
{
	(void)state;
	static const size_t sizes[] = { 2, 3, 17, 255, 1000, 2500 };
	static const uint32_t tops[] = { 0, 1, 7, 65535, 65536, 1u << 20, 0xffffffffu };
	uint32_t seq[2500];
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (size_t si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
		for (size_t ti = 0; ti < sizeof(tops) / sizeof(*tops); ti++) {
			for (int shape = 0; shape < 4; shape++) {
				size_t n = sizes[si];
				for (size_t i = 0; i < n; i++) {
					x ^= x << 13, x ^= x >> 7, x ^= x << 17;
					uint32_t v = tops[ti] ? (uint32_t)(x % ((uint64_t)tops[ti] + 1)) : 0;
					if (shape == 1)	/* ascending */
						v = (uint32_t)((uint64_t)tops[ti] * i / n);
					else if (shape == 2)	/* descending */
						v = (uint32_t)((uint64_t)tops[ti] * (n - 1 - i) / n);
					seq[i] = v;
				}
				if (shape == 3)	/* the largest rank where it may be */
					seq[n / 2] = tops[ti];
				uint64_t inv = 0;
				for (size_t i = 0; i < n; i++)
					for (size_t j = i + 1; j < n; j++)
						inv += seq[i] > seq[j];
				double want = 1.0 - 2.0 * (double)inv / ((double)n * (double)(n - 1) / 2.0);
				double tau = NAN, r = ana_order_randomness(seq, n, &tau);
				if (tau != want)
					fail_msg("n %zu, top %u, shape %d: tau %.17g, want %.17g",
						 n, tops[ti], shape, tau, want);
				assert_true(r == 1.0 - fabs(want));
			}
		}
	}
	assert_true(isnan(ana_order_randomness(seq, 1, NULL)));
}

static void test_file_order(void **state)
{
	enum { N = 1000 };
	uint32_t order[N];
	for (uint32_t i = 0; i < N; i++)
		order[i] = i;
	struct tw t;
	struct ana a;
	double tau;

	write_order_trace(&t, order, N);
	run(&a, &t, NULL);
	assert_true(ana_file_order_randomness(&a, &tau) == 0.0);
	assert_true(tau == 1.0);
	ana_release(&a);

	shuffle(order, N);
	write_order_trace(&t, order, N);
	run(&a, &t, NULL);
	double r = ana_file_order_randomness(&a, &tau);
	assert_true(r >= 0.9);
	ana_release(&a);

	for (uint32_t i = 0; i < N; i++)
		order[i] = N - 1 - i;
	write_order_trace(&t, order, N);
	run(&a, &t, NULL);
	assert_true(ana_file_order_randomness(&a, &tau) == 0.0);	/* reverse is not a shuffle */
	assert_true(tau == -1.0);
	ana_release(&a);
}

static void test_cache_exact(void **state)
{
	struct tw t;
	tw_open(&t);
	file_row(&t, 1, "/data/a", (8u << 20) | 1, 42, 1 << 20);
	/* file a: 25 of 100 pages inserted by the read itself, then readahead
	 * of 100 pages never used and evicted */
	cache_ev(&t, 1 * MS, 7, TAPE_CACHE_INSERT, 42, 0, 25);
	cache_ev(&t, 1 * MS + 10, 7, TAPE_CACHE_ACCESS, 42, 0, 100);
	cache_ev(&t, 1 * MS + 20, 7, TAPE_CACHE_INSERT, 42, 100, 100);
	cache_ev(&t, 5 * MS, 9, TAPE_CACHE_EVICT, 42, 100, 100);
	/* file b: one read of 64 pages reported twice by the kernel's read
	 * loop, readahead inserting in between: 32 missed of 64 */
	cache_ev(&t, 2 * MS, 7, TAPE_CACHE_INSERT, 43, 0, 16);
	cache_ev(&t, 2 * MS + 10, 7, TAPE_CACHE_ACCESS, 43, 0, 64);
	cache_ev(&t, 2 * MS + 20, 7, TAPE_CACHE_INSERT, 43, 16, 16);
	cache_ev(&t, 2 * MS + 30, 7, TAPE_CACHE_ACCESS, 43, 16, 48);
	/* file c: a fault whose page comes in after it, then fault-around */
	cache_ev(&t, 1100 * MS, 7, TAPE_CACHE_FAULT, 44, 10, 1);
	cache_ev(&t, 1100 * MS + 10, 7, TAPE_CACHE_INSERT, 44, 8, 8);
	cache_ev(&t, 1100 * MS + 20, 7, TAPE_CACHE_MAP_PAGES, 44, 11, 5);
	/* file a again, all cached now */
	cache_ev(&t, 1200 * MS, 7, TAPE_CACHE_ACCESS, 42, 0, 100);
	tw_close(&t);

	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(a.cache.accessed, 100 + 64 + 1 + 5 + 100);
	assert_int_equal(a.cache.missed, 25 + 32 + 1 + 5);
	assert_int_equal(a.cache.ra_unused, 100 + 2);	/* evicted + [8,10) never used */
	double h = ana_hit_ratio(a.cache.accessed, a.cache.missed);
	assert_true(h == 1.0 - 63.0 / 270.0);
	uint32_t fa = ana_file_by_devino(&a, (8u << 20) | 1, 42);
	assert_int_not_equal(fa, ANA_NONE);
	assert_int_equal(ana_file_pages(&a, fa).accessed, 200);
	assert_int_equal(ana_file_pages(&a, fa).missed, 25);
	assert_int_equal(a.ntl, 2);	/* two 1 s buckets */
	assert_int_equal(a.tl[1].pages_accessed, 106);
	assert_int_equal(a.tl[1].pages_missed, 6);
	ana_release(&a);
}

static int cmp_desc_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a < b) - (a > b);
}

/* Staging's levels against the definition (iotape-analyze(1), STAGING):
 * the files by bytes read, most first, the fewest whose reads reach 50,
 * 80 and 95 %, of the ties the smallest; files of many equal reads, of
 * reads that differ in their low bytes, their middle ones, their top. */
static void test_staging_levels(void **state)
{
	enum { N = 300 };
	uint64_t rd[N], sz[N];
	struct tw t;
	tw_open(&t);
	for (int i = 0; i < N; i++) {
		char p[64];
		uint64_t r = i < 120 ? 4096 : i < 200 ? 1 + rnd() % 5000 :
			     i < 260 ? (rnd() % 7 + 1) << 20 : (rnd() % 3 + 1) << 40;
		snprintf(p, sizeof(p), "/data/f%03d", i);
		rd[i] = r;
		sz[i] = r + rnd() % 4096;
		file_row(&t, (uint64_t)i + 1, p, 8u << 20, (uint64_t)i + 100, sz[i]);
		sc(&t, (uint64_t)i * MS, 1000, 100, 100, TAPE_OP_OPENAT, -100, (uint64_t)i + 1,
		   0, 0, 3, p);
		sc(&t, (uint64_t)i * MS + 2000, 1000, 100, 100, TAPE_OP_READ, 3, (uint64_t)i + 1,
		   0, r, (int64_t)r, "");
		sc(&t, (uint64_t)i * MS + 4000, 1000, 100, 100, TAPE_OP_CLOSE, 3, (uint64_t)i + 1,
		   0, 0, 0, "");
	}
	tw_close(&t);

	struct ana a;
	struct ana_staging st;
	run(&a, &t, NULL);
	assert_int_equal(ana_staging_build(&a, &st), 0);
	assert_int_equal(st.n, N);
	uint64_t sorted[N], total = 0;
	memcpy(sorted, rd, sizeof(rd));
	qsort(sorted, N, sizeof(*sorted), cmp_desc_u64);
	for (int i = 0; i < N; i++)
		total += rd[i];
	assert_int_equal(st.read_bytes, total);
	for (unsigned k = 0; k < ANA_STAGE_LEVELS; k++) {
		uint64_t sum = 0, bytes = 0, ties[N];
		size_t m = 0, nt = 0, gt = 0;
		while ((unsigned __int128)sum * 100 < (unsigned __int128)total * st.lv[k].pct)
			sum += sorted[m++];
		for (int i = 0; i < N; i++)
			if (rd[i] > sorted[m - 1]) {
				bytes += sz[i];
				gt++;
			} else if (rd[i] == sorted[m - 1]) {
				ties[nt++] = sz[i];
			}
		qsort(ties, nt, sizeof(*ties), cmp_desc_u64);
		for (size_t i = 0; i < m - gt; i++)
			bytes += ties[nt - 1 - i];	/* the smallest */
		assert_int_equal(st.lv[k].files, m);
		assert_int_equal(st.lv[k].read_bytes, sum);
		assert_int_equal(st.lv[k].bytes, bytes);
	}
	ana_staging_release(&st);
	ana_release(&a);
}

/* Identities (dev, inode) kept in 8 bytes while they fit, in 16 once an
 * inode does not: the cache pass finds each file by its identity either
 * way. */
static void test_ident_wide(void **state)
{
	const uint64_t dev = (8u << 20) | 1, big = (1ull << 60) + 5;
	struct tw t;
	tw_open(&t);
	file_row(&t, 1, "/data/a", dev, 42, 1 << 20);
	file_row(&t, 2, "/data/b", dev, big, 1 << 20);
	file_row(&t, 3, "/data/c", dev, 44, 1 << 20);
	cache_ev(&t, 1 * MS, 7, TAPE_CACHE_INSERT, 42, 0, 4);
	cache_ev(&t, 1 * MS + 10, 7, TAPE_CACHE_ACCESS, 42, 0, 8);
	cache_ev(&t, 2 * MS, 7, TAPE_CACHE_ACCESS, big, 0, 16);
	cache_ev(&t, 3 * MS, 7, TAPE_CACHE_INSERT, 44, 0, 2);
	cache_ev(&t, 3 * MS + 10, 7, TAPE_CACHE_ACCESS, 44, 0, 32);
	tw_close(&t);

	struct ana a;
	run(&a, &t, NULL);
	assert_non_null(a.identw);
	assert_int_equal(a.nfiles, 3);
	const uint64_t ino[3] = { 42, big, 44 }, acc[3] = { 8, 16, 32 }, miss[3] = { 4, 0, 2 };
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(ana_file_ident(&a, i).dev, dev);
		assert_int_equal(ana_file_ident(&a, i).inode, ino[i]);
		assert_int_equal(ana_file_by_devino(&a, dev, ino[i]), i);
		assert_int_equal(ana_file_pages(&a, i).accessed, acc[i]);
		assert_int_equal(ana_file_pages(&a, i).missed, miss[i]);
	}
	assert_int_equal(ana_file_by_devino(&a, dev + 1, 42), ANA_NONE);
	ana_release(&a);
}

/* The cache pass's compact state (struct ana_cst, 20 bytes) and where it
 * does not fit: a file of ANA_CST_EOF pages or more (its end in
 * cache.eofs), an access of more than ANA_CST_LEN pages (the state whole
 * from then on); the kernel's read loop re-reporting the rest of a read
 * (the same thread, a later start, the same end) counts no pages twice in
 * either form, and pages past a file's end are not counted. */
static void test_cache_compact(void **state)
{
	const uint64_t big = 70000;	/* pages: past ANA_CST_EOF */
	struct tw t;
	tw_open(&t);
	file_row(&t, 1, "/data/small", (8u << 20) | 1, 42, 20 * 4096);
	file_row(&t, 2, "/data/huge", (8u << 20) | 1, 43, big * 4096);
	file_row(&t, 3, "/data/long", (8u << 20) | 1, 44, 20000 * 4096);
	cache_ev(&t, 1 * MS, 7, TAPE_CACHE_INSERT, 42, 0, 16);
	cache_ev(&t, 1 * MS + 10, 7, TAPE_CACHE_ACCESS, 42, 0, 16);
	cache_ev(&t, 1 * MS + 20, 7, TAPE_CACHE_ACCESS, 42, 8, 8);	/* re-reported */
	cache_ev(&t, 1 * MS + 30, 8, TAPE_CACHE_ACCESS, 42, 8, 8);	/* another thread */
	cache_ev(&t, 2 * MS, 7, TAPE_CACHE_INSERT, 43, big - 10, 10);
	cache_ev(&t, 2 * MS + 10, 7, TAPE_CACHE_ACCESS, 43, big - 10, 32);	/* 10 exist */
	cache_ev(&t, 2 * MS + 20, 7, TAPE_CACHE_ACCESS, 43, big - 4, 26);	/* re-reported */
	cache_ev(&t, 3 * MS, 7, TAPE_CACHE_INSERT, 44, 0, 10000);
	cache_ev(&t, 3 * MS + 10, 7, TAPE_CACHE_ACCESS, 44, 0, 10000);	/* > ANA_CST_LEN */
	cache_ev(&t, 3 * MS + 20, 7, TAPE_CACHE_ACCESS, 44, 5000, 5000);	/* re-reported */
	cache_ev(&t, 3 * MS + 30, 7, TAPE_CACHE_ACCESS, 44, 10000, 100);
	cache_ev(&t, 3 * MS + 40, 7, TAPE_CACHE_ACCESS, 44, 10050, 50);	/* re-reported */
	tw_close(&t);
	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(a.cache.nf, 1);	/* "/data/long" whole */
	assert_int_equal(ana_file_pages(&a, 0).accessed, 16 + 8);
	assert_int_equal(ana_file_pages(&a, 0).missed, 16);
	assert_int_equal(ana_file_pages(&a, 1).accessed, 10);
	assert_int_equal(ana_file_pages(&a, 1).missed, 10);
	assert_int_equal(ana_file_pages(&a, 2).accessed, 10000 + 100);
	assert_int_equal(ana_file_pages(&a, 2).missed, 10000);
	for (uint32_t i = 0; i < 3; i++)
		assert_true(a.files[i].has_cache);
	ana_release(&a);
}

/* A file's pages in the page cache in 32 bits each (a->pages32) until
 * one figure does not fit: a file the file table does not list, accessed
 * 5 Gi pages, makes them all 64 (a->pages), the others' kept. */
static void test_pages_wide(void **state)
{
	const uint64_t dev = (8u << 20) | 1, lots = 5ull << 30;
	struct tw t;
	tw_open(&t);
	file_row(&t, 1, "/data/a", dev, 42, 1 << 20);
	file_row(&t, 2, "/data/b", dev, 43, 1 << 20);
	cache_ev(&t, 1 * MS, 7, TAPE_CACHE_INSERT, 42, 0, 4);
	cache_ev(&t, 1 * MS + 10, 7, TAPE_CACHE_ACCESS, 42, 0, 8);
	cache_ev(&t, 2 * MS, 7, TAPE_CACHE_ACCESS, 43, 0, 16);
	tw_close(&t);
	struct ana a;
	run(&a, &t, NULL);
	assert_non_null(a.pages32);
	assert_null(a.pages);
	assert_int_equal(ana_file_pages(&a, 0).accessed, 8);
	assert_int_equal(ana_file_pages(&a, 0).missed, 4);
	assert_int_equal(ana_file_pages(&a, 1).accessed, 16);
	assert_int_equal(ana_file_pages(&a, 1).missed, 0);
	ana_release(&a);

	tw_open(&t);
	file_row(&t, 1, "/data/a", dev, 42, 1 << 20);
	file_row(&t, 2, "/data/b", dev, 43, 1 << 20);
	cache_ev(&t, 1 * MS, 7, TAPE_CACHE_INSERT, 42, 0, 4);
	cache_ev(&t, 1 * MS + 10, 7, TAPE_CACHE_ACCESS, 42, 0, 8);
	cache_ev(&t, 2 * MS, 7, TAPE_CACHE_ACCESS, 43, 0, 16);
	cache_ev(&t, 3 * MS, 7, TAPE_CACHE_ACCESS, 99, 0, lots);	/* no row, no size */
	tw_close(&t);
	run(&a, &t, NULL);
	assert_null(a.pages32);
	assert_non_null(a.pages);
	const uint32_t big = 2;	/* (a file of the cache pass's, after the table's) */
	assert_int_equal(a.nfiles, 3);
	assert_int_equal(ana_file_ident(&a, big).inode, 99);
	assert_int_equal(ana_file_pages(&a, big).accessed, lots);
	assert_int_equal(ana_file_pages(&a, 0).accessed, 8);
	assert_int_equal(ana_file_pages(&a, 0).missed, 4);
	assert_int_equal(ana_file_pages(&a, 1).accessed, 16);
	assert_true(a.files[0].has_cache && a.files[1].has_cache && a.files[big].has_cache);
	assert_int_equal(a.cache.accessed, 8 + 16 + lots);
	ana_release(&a);
}

/* A read() asking for more than is left: the access event names the pages
 * asked for; those past the end of the file are not counted (a file of 10
 * pages read twice after drop_caches has hit ratio 0.5, not 0.69). */
static void test_cache_eof(void **state)
{
	struct tw t;
	tw_open(&t);
	file_row(&t, 1, "/data/a", (8u << 20) | 1, 42, 10 * 4096 - 100);	/* 10 pages */
	file_row(&t, 2, "/data/new", (8u << 20) | 1, 43, 0);	/* empty at open */
	for (int pass = 0; pass < 2; pass++) {
		uint64_t ts = (1 + pass) * MS;
		if (!pass)
			cache_ev(&t, ts, 7, TAPE_CACHE_INSERT, 42, 0, 10);
		cache_ev(&t, ts + 10, 7, TAPE_CACHE_ACCESS, 42, 0, 16);	/* 64 KiB asked */
	}
	/* written after its open (the inserts grow it), then read with room
	 * to spare: 4 pages exist */
	cache_ev(&t, 3 * MS, 7, TAPE_CACHE_INSERT, 43, 0, 4);
	cache_ev(&t, 4 * MS, 8, TAPE_CACHE_ACCESS, 43, 0, 16);
	/* no file-table row, no size: nothing is clamped */
	cache_ev(&t, 5 * MS, 8, TAPE_CACHE_ACCESS, 44, 0, 16);
	tw_close(&t);

	struct ana a;
	run(&a, &t, NULL);
	uint32_t fa = ana_file_by_devino(&a, (8u << 20) | 1, 42);
	uint32_t fn = ana_file_by_devino(&a, (8u << 20) | 1, 43);
	assert_int_equal(ana_file_pages(&a, fa).accessed, 20);
	assert_int_equal(ana_file_pages(&a, fa).missed, 10);
	assert_true(ana_hit_ratio(ana_file_pages(&a, fa).accessed, ana_file_pages(&a, fa).missed) == 0.5);
	assert_int_equal(ana_file_pages(&a, fn).accessed, 4);
	assert_int_equal(ana_file_pages(&a, fn).missed, 4);
	assert_int_equal(a.cache.accessed, 20 + 4 + 16);
	assert_int_equal(a.cache.missed, 14);
	assert_int_equal(a.tl[0].pages_accessed, 40);
	ana_release(&a);
}

static void test_three_epochs(void **state)
{
	enum { N = 50 };
	char path[64];
	uint32_t order[N];
	struct tw t;
	tw_open(&t);
	for (uint32_t i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/data/s%03u.npz", i);
		file_row(&t, i + 1, path, 8u << 20, 200 + i, 131072);
		order[i] = i;
	}
	file_row(&t, 999, "/etc/config.yaml", 8u << 20, 999, 100);
	uint64_t ts = 0;
	sc(&t, ts, 1000, 100, 100, TAPE_OP_OPENAT, -100, 999, 0, 0, 4, "/etc/config.yaml");
	sc(&t, ts += 1000, 1000, 100, 100, TAPE_OP_READ, 4, 999, 0, 4096, 100, "");
	for (int ep = 0; ep < 3; ep++) {
		shuffle(order, N);
		for (int k = 0; k < N; k++) {
			uint32_t i = order[k];
			uint32_t tid = 101 + k % 4;	/* four loader workers */
			sc(&t, ts += 10000, 1000, 100 + k % 4, tid, TAPE_OP_OPENAT, -100, i + 1, 0, 0, 7, "");
			sc(&t, ts += 10000, 5000, 100 + k % 4, tid, TAPE_OP_READ, 7, i + 1, 0, 65536, 65536, "");
			sc(&t, ts += 10000, 5000, 100 + k % 4, tid, TAPE_OP_READ, 7, i + 1, 65536, 65536, 65536, "");
			sc(&t, ts += 10000, 1000, 100 + k % 4, tid, TAPE_OP_CLOSE, 7, i + 1, 0, 0, 0, "");
		}
		ts += 100 * MS;
	}
	/* the config file read again once: not an epoch */
	sc(&t, ts += 1000, 1000, 100, 100, TAPE_OP_OPENAT, -100, 999, 0, 0, 4, "/etc/config.yaml");
	sc(&t, ts += 1000, 1000, 100, 100, TAPE_OP_READ, 4, 999, 0, 4096, 100, "");
	tw_close(&t);

	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(ana_epoch_count(&a), 3);
	/* the config file is a system file (/etc): not the data set's */
	assert_int_equal(a.ds.files, N);
	assert_int_equal(a.sys.epochs[0].files, N);
	assert_int_equal(a.sys.epochs[1].files, N);
	assert_int_equal(a.sys.epochs[2].files, N);
	assert_int_equal(a.sys.epochs[1].bytes, N * 131072ull);
	assert_int_equal(a.sys.nepochs, 3);
	for (int e = 0; e < 3; e++)
		assert_true(ana_order_randomness(a.sys.epochs[e].order, a.sys.epochs[e].norder, NULL) > 0.6);
	assert_true(ana_read_randomness(&a) == 0.0);
	ana_release(&a);
}

/* pid opens file id as fd, reads n bytes of it and closes it, 1 us apart
 * from *ts on. */
static void visit(struct tw *t, uint64_t *ts, uint32_t pid, int64_t fd, uint64_t id, uint64_t n)
{
	sc(t, *ts += 1000, 1000, pid, pid, TAPE_OP_OPENAT, -100, id, 0, 0, fd, "");
	sc(t, *ts += 1000, 1000, pid, pid, TAPE_OP_READ, fd, id, 0, n, (int64_t)n, "");
	sc(t, *ts += 1000, 1000, pid, pid, TAPE_OP_CLOSE, fd, id, 0, 0, 0, "");
}

/* n data files of size bytes (file ids 1 + i, path fmt of i) in the file
 * table. */
static void data_files(struct tw *t, uint32_t n, const char *fmt, uint64_t size)
{
	char path[96];
	for (uint32_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), fmt, i);
		file_row(t, i + 1, path, 8u << 20, 200 + i, size);
	}
}

/* n Python modules of 4 KiB (file ids 10000 + i, path fmt of i) in the file
 * table, imported (read whole) by pid 100 in a shuffled order from *ts on. */
static void imports(struct tw *t, uint32_t n, const char *fmt, uint64_t *ts)
{
	char path[96];
	uint32_t *order = calloc(n, sizeof(*order));
	assert_non_null(order);
	for (uint32_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), fmt, i);
		file_row(t, 10000 + i, path, 8u << 20, 10000 + i, 4096);
		order[i] = i;
	}
	shuffle(order, n);
	for (uint32_t k = 0; k < n; k++)
		visit(t, ts, 100, 3, 10000 + order[k], 4096);
	free(order);
}

/* A Python job: 1,500 modules imported (read once, in no name order), then
 * 100 samples read in name order in 3 passes by workers that each read the
 * same 5 modules again: 3 epochs of the 100 samples (the modules are code,
 * in no pass), and the file order is that of the samples alone (0), not of
 * the imports. */
static void test_epochs_after_imports(void **state)
{
	enum { NIMP = 1500, N = 100, NMOD = 5 };
	uint64_t ts = 0;
	struct tw t;
	tw_open(&t);
	data_files(&t, N, "/data/s%03u.bin", 4096);
	imports(&t, NIMP, "/usr/lib/python3/m%04u.py", &ts);
	for (uint32_t ep = 0; ep < 3; ep++) {
		for (uint32_t w = 0; w < 2; w++)	/* each new worker re-reads 5 modules */
			for (uint32_t m = 0; m < NMOD; m++)
				visit(&t, &ts, 200 + 2 * ep + w, 5, 10000 + m, 4096);
		for (uint32_t i = 0; i < N; i++)
			visit(&t, &ts, 200 + 2 * ep + i % 2, 7, i + 1, 4096);
	}
	tw_close(&t);

	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(ana_epoch_count(&a), 3);
	assert_int_equal(a.ds.files, N);
	assert_int_equal(a.sys.epochs[0].files, N);
	assert_int_equal(a.sys.epochs[1].files, N);
	assert_int_equal(a.sys.epochs[2].files, N);
	assert_int_equal(a.sys.epochs[0].bytes, N * 4096);
	double tau;
	assert_true(ana_file_order_randomness(&a, &tau) == 0.0);
	assert_true(tau == 1.0);
	for (int e = 0; e < 3; e++)
		assert_true(a.sys.epochs[e].order_rand == 0.0);
	ana_release(&a);
}

/* 40 start-up files of the data set (its metadata), two of them read again
 * before the samples; 64 samples read in 2 epochs from 1 s and 2 s: epoch
 * 1 starts at 2 s, not at the start-up re-reads (which are in its pass). */
static void test_epoch_start(void **state)
{
	enum { NSTART = 40, N = 64 };
	char path[64];
	struct tw t;
	tw_open(&t);
	for (uint32_t i = 0; i < NSTART + N; i++) {
		snprintf(path, sizeof(path), i < NSTART ? "/data/meta/m%03u.json" : "/data/s%03u.bin", i);
		file_row(&t, i + 1, path, 8u << 20, 100 + i, 4096);
	}
	uint64_t ts = 0;
	for (uint32_t k = 0; k < NSTART + 2; k++) {	/* m000, m001 twice */
		uint32_t id = k % NSTART + 1;
		sc(&t, ts += MS, 1000, 100, 100, TAPE_OP_OPENAT, -100, id, 0, 0, 3, "");
		sc(&t, ts += MS, 1000, 100, 100, TAPE_OP_READ, 3, id, 0, 4096, 4096, "");
		sc(&t, ts += MS, 1000, 100, 100, TAPE_OP_CLOSE, 3, id, 0, 0, 0, "");
	}
	for (uint64_t ep = 0; ep < 2; ep++) {
		for (uint32_t i = 0; i < N; i++) {
			uint64_t t0 = (1 + ep) * 1000 * MS + i * 10 * MS;
			uint32_t id = NSTART + i + 1;
			sc(&t, t0, 1000, 101, 101, TAPE_OP_OPENAT, -100, id, 0, 0, 7, "");
			sc(&t, t0 + MS, 1000, 101, 101, TAPE_OP_READ, 7, id, 0, 4096, 4096, "");
			sc(&t, t0 + 2 * MS, 1000, 101, 101, TAPE_OP_CLOSE, 7, id, 0, 0, 0, "");
		}
	}
	tw_close(&t);

	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(ana_epoch_count(&a), 2);
	assert_int_equal(a.ds.files, NSTART + N);	/* under /data, with the samples */
	assert_int_equal(a.sys.epochs[1].files, N + 2);	/* the re-reads are in pass 1 */
	assert_int_equal(a.sys.epochs[0].start_ns, T0 + 2 * MS);	/* the job's first read */
	assert_int_equal(a.sys.epochs[1].start_ns, T0 + 2000 * MS + MS);
	assert_int_equal(a.sys.epochs[1].end_ns - a.sys.epochs[1].start_ns,
			 (N - 1) * 10 * MS + 1000);
	ana_release(&a);
}

static void mmap_ev(struct tw *t, uint64_t ts, uint32_t pid, int64_t fd, uint64_t file_id,
		    uint64_t size, uint64_t prot, uint64_t flags)
{
	struct tape_syscall e = { .ts_ns = T0 + ts, .dur_ns = 1000, .pid = pid, .tid = pid,
				  .op = TAPE_OP_MMAP, .fd = fd, .file_id = file_id, .size = size,
				  .ret = 0x7f0000000000, .flags = prot | flags << 32,
				  .path = "", .path2 = "" };
	assert_int_equal(tape_writer_append(t->w, TAPE_TABLE_SYSCALL, &e), 0);
}

static int unavailable_has(json_t *j, const char *metric, const char *why_part)
{
	json_t *un = json_object_get(j, "unavailable");
	for (size_t i = 0; i < json_array_size(un); i++) {
		json_t *x = json_array_get(un, i);
		if (strcmp(json_string_value(json_object_get(x, "metric")), metric) == 0 &&
		    strstr(json_string_value(json_object_get(x, "reason")), why_part))
			return 1;
	}
	return 0;
}

/* A 1 MiB data set read through a shared mapping by 2 epochs of workers
 * (faults reach its 256 pages twice), after 10 start-up files read with
 * read(): the reads say "1 epoch", which is wrong; the count is null with
 * the reason.  A library mapped privately and faulted does not count. */
static void test_mmap_dataset(void **state)
{
	struct tw t;
	tw_open(&t);
	for (uint32_t i = 0; i < 10; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/usr/lib/m%u.py", i);
		file_row(&t, i + 1, path, (8u << 20) | 1, 100 + i, 4096);
		sc(&t, i * MS, 1000, 100, 100, TAPE_OP_OPENAT, -100, i + 1, 0, 0, 3, "");
		sc(&t, i * MS + 10, 1000, 100, 100, TAPE_OP_READ, 3, i + 1, 0, 4096, 4096, "");
		sc(&t, i * MS + 20, 1000, 100, 100, TAPE_OP_CLOSE, 3, i + 1, 0, 0, 0, "");
	}
	file_row(&t, 20, "/usr/lib/libbig.so", (8u << 20) | 1, 20, 8 << 20);
	file_row(&t, 21, "/data/features.npy", (8u << 20) | 1, 21, 1 << 20);
	sc(&t, 20 * MS, 1000, 100, 100, TAPE_OP_OPENAT, -100, 20, 0, 0, 4, "");
	mmap_ev(&t, 20 * MS + 10, 100, 4, 20, 8 << 20, 5, 2);	/* PROT_READ|EXEC, MAP_PRIVATE */
	cache_ev(&t, 20 * MS + 20, 100, TAPE_CACHE_MAP_PAGES, 20, 0, 2048);
	for (uint32_t w = 0; w < 2; w++) {
		uint32_t pid = 200 + w;
		sc(&t, (100 + w) * MS, 1000, pid, pid, TAPE_OP_OPENAT, -100, 21, 0, 0, 5, "");
		mmap_ev(&t, (100 + w) * MS + 10, pid, 5, 21, 1 << 20, 1, 1);	/* PROT_READ, MAP_SHARED */
		cache_ev(&t, (100 + w) * MS + 20, pid, TAPE_CACHE_FAULT, 21, 0, 1);
		cache_ev(&t, (100 + w) * MS + 30, pid, TAPE_CACHE_MAP_PAGES, 21, 1, 255);
	}
	tw_close(&t);

	json_t *j = run_json(&t);
	json_t *ep = json_object_get(j, "epochs");
	assert_true(json_is_null(json_object_get(ep, "count")));
	assert_int_equal(json_array_size(json_object_get(ep, "epochs")), 0);
	assert_true(unavailable_has(j, "epochs.count", "/data/features.npy: 2.0 MiB"));
	json_decref(j);

	/* without the shared mapping (the same faults through a private
	 * one, as a library's), the read-based count stands */
	tw_open(&t);
	file_row(&t, 1, "/data/a", (8u << 20) | 1, 21, 1 << 20);
	sc(&t, 0, 1000, 100, 100, TAPE_OP_OPENAT, -100, 1, 0, 0, 3, "");
	sc(&t, 10, 1000, 100, 100, TAPE_OP_READ, 3, 1, 0, 4096, 4096, "");
	mmap_ev(&t, 20, 100, 3, 1, 1 << 20, 1, 2);
	cache_ev(&t, 30, 100, TAPE_CACHE_MAP_PAGES, 21, 0, 256);
	tw_close(&t);
	j = run_json(&t);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "epochs"), "count")), 1);
	json_decref(j);
}

/* ------------------------------------------------------------- data set */

static json_t *jpath(json_t *j, const char *a, const char *b)
{
	return json_object_get(json_object_get(j, a), b);
}


/* The code and system files of iotape-analyze(1), DATA SET, and files
 * that may be data. */
/* ana_path_sort and ana_name_ranks against qsort of the whole paths by
 * strcmp and strverscmp (equal paths by index, no path last): random
 * paths over few characters, with directories under others ("/d/x" and
 * "/d/e/y"), names that begin another directory's ("/a/b" and "/a/b-c/x"),
 * runs of digits, paths with no '/', duplicates and files with none. */
static const char *const *ps_paths;
static int ps_nat;

static int ps_cmp(const void *x, const void *y)
{
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const char *p = ps_paths[i], *q = ps_paths[j];
	if (!p || !q) {
		if (p || q)
			return !p - !q;
		return (i > j) - (i < j);
	}
	int c = ps_nat ? strverscmp(p, q) : strcmp(p, q);
	return c ? (c < 0 ? -1 : 1) : (i > j) - (i < j);
}

/* got is want, the first place it is not named (what: the sort) */
static void same_order(char *const *paths, const uint32_t *got, const uint32_t *want,
		       uint32_t n, const char *what, int nat)
{
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("%s%s order, place %zu: file %u (%s), want %u (%s)", what,
				 nat ? "strverscmp" : "strcmp", i, got[i],
				 paths[got[i]] ? paths[got[i]] : "-", want[i],
				 paths[want[i]] ? paths[want[i]] : "-");
}

/* ana_path_sort of the n files given in reverse order against qsort by
 * ps_cmp in strverscmp (nat) or strcmp order; want gets qsort's order,
 * got ana_path_sort's. */
static void check_path_sort(const struct ana *a, char *const *paths, uint32_t n, int nat,
			    uint32_t *want, uint32_t *got)
{
	ps_paths = (const char *const *)paths;
	ps_nat = nat;
	for (uint32_t i = 0; i < n; i++)
		want[i] = got[i] = n - 1 - i;	/* any order in */
	qsort(want, n, sizeof(*want), ps_cmp);
	ana_path_sort(a, got, n, nat);
	same_order(paths, got, want, n, "", nat);
}

static void test_path_sort(void **state)
{
	(void)state;
	static const char *const parts[] = { "a", "b", "b-c", "d", "e", "1", "01", "2", "10",
					     "x9", "x10", "x010", "y.jpg", "", "0" };
	enum { N = 3000 };
	struct ana a;
	char *paths[N];
	uint32_t want[N], got[N], rank[N];
	unsigned seed = 7;

	memset(&a, 0, sizeof(a));
	a.files = calloc(N, sizeof(*a.files));
	assert_non_null(a.files);
	a.nfiles = N;
	for (size_t i = 0; i < N; i++) {
		char b[256] = "";
		seed = seed * 1103515245 + 12345;
		unsigned r = seed >> 16;
		if (r % 23 == 0) {
			paths[i] = NULL;	/* no path */
			continue;
		}
		if (r % 17 == 0) {
			snprintf(b, sizeof(b), "[pid %u fd %u]", r % 7, r % 5);	/* no '/' */
		} else if (r % 29 == 0 && i) {
			snprintf(b, sizeof(b), "%s", paths[i - 1] ? paths[i - 1] : "/a");	/* same */
		} else {
			int depth = 1 + (int)(r % 4);
			strcat(b, r % 31 ? "/" : "");
			for (int k = 0; k < depth; k++) {
				seed = seed * 1103515245 + 12345;
				strcat(b, parts[(seed >> 16) % (sizeof(parts) / sizeof(*parts))]);
				if (k + 1 < depth)
					strcat(b, "/");
			}
		}
		paths[i] = strdup(b);
		a.files[i].path = ana_path_add(&a, b);
	}
	for (int nat = 0; nat < 2; nat++) {
		check_path_sort(&a, paths, N, nat, want, got);
		memset(got, 0xff, sizeof(got));	/* all files, in place */
		ana_path_sort_all(&a, got, nat);
		same_order(paths, got, want, N, "all, ", nat);
	}
	ana_name_ranks(&a, rank);
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(rank[want[i]], i);
	for (size_t i = 0; i < N; i++)
		free(paths[i]);
	free(a.files);
	a.files = NULL;
	a.nfiles = 0;
	ana_release(&a);
}

/* Paths front-coded against their directory's last component
 * (ana_names.c, struct pent), and their fallbacks: directories from the
 * 65,534th on (their id in 4 more bytes), names of one directory whose
 * shared starts differ in length (sorted by their names built), a start
 * that would end inside a run of digits (shortened), names equal to the
 * directory's; each path back whole (ana_path_str, ana_path_eq,
 * ana_path_name, ana_path_dir) and both orders against qsort. */
static void test_path_front(void **state)
{
	(void)state;
	static const char *const names[] = {
		"n0144_1.jpg", "n0144_10.jpg", "n0144_9.jpg", "n01445.jpg", "n01440", "n0144",
		"n.jpg", "m.jpg", "n01", "n0144a", "n0144_02.jpg", "",
	};
	enum { NDIR = 70000, NN = sizeof(names) / sizeof(*names), N = NDIR + 2 * NN };
	struct ana a;
	char **paths = calloc(N, sizeof(*paths));
	uint32_t *want = calloc(N, sizeof(*want)), *got = calloc(N, sizeof(*got));

	assert_non_null(paths);
	assert_non_null(want);
	assert_non_null(got);
	memset(&a, 0, sizeof(a));
	a.files = calloc(N, sizeof(*a.files));
	assert_non_null(a.files);
	a.nfiles = N;
	for (size_t i = 0; i < N; i++) {
		char b[128];
		if (i < NN)	/* before the wide directories, and after them */
			snprintf(b, sizeof(b), "/x/n0144/%s", names[i]);
		else if (i < NN + NDIR)
			snprintf(b, sizeof(b), "/d/k%05zu/k%05zu_%zu.jpg", (i * 7919) % NDIR,
				 (i * 7919) % NDIR, i % 3);
		else
			snprintf(b, sizeof(b), "/y/n0144/%s", names[i - NN - NDIR]);
		paths[i] = strdup(b);
		a.files[i].path = ana_path_add(&a, b);
	}
	assert_true(cm_strtab_count(&a.paths.dirs) > 65536);
	for (size_t i = 0; i < N; i++) {
		char buf[ANA_PATH_BUF], nb[ANA_PATH_BUF];
		const char *slash = strrchr(paths[i], '/'), *d;
		size_t dl;
		assert_string_equal(ana_path_str(&a, a.files[i].path, buf), paths[i]);
		assert_true(ana_path_eq(&a, a.files[i].path, paths[i]));
		assert_string_equal(ana_path_name(&a, a.files[i].path, nb), slash + 1);
		d = ana_path_dir(&a, a.files[i].path, &dl);
		assert_int_equal(dl, (size_t)(slash - paths[i]));
		assert_memory_equal(d, paths[i], dl);
		/* a path that differs in its name's shared start only */
		if (slash[1] && slash[1] != 'z') {
			snprintf(buf, sizeof(buf), "%.*s/z%s", (int)dl, paths[i], slash + 2);
			assert_false(ana_path_eq(&a, a.files[i].path, buf));
		}
	}
	for (int nat = 0; nat < 2; nat++) {
		check_path_sort(&a, paths, N, nat, want, got);
		ana_path_sort_all(&a, got, nat);
		assert_memory_equal(got, want, N * sizeof(*got));
		for (size_t i = 0; i + 1 < N; i++)	/* ana_path_cmp */
			if (!nat) {
				int c = ana_path_cmp(&a, a.files[want[i]].path, a.files[want[i + 1]].path);
				assert_true(c < 0 || (c == 0 && !strcmp(paths[want[i]], paths[want[i + 1]])));
			}
	}
	for (size_t i = 0; i < N; i++)
		free(paths[i]);
	free(paths);
	free(want);
	free(got);
	free(a.files);
	a.files = NULL;
	a.nfiles = 0;
	ana_release(&a);
}

/* ana_path_sort's directories whose names differ in one run of digits
 * only (sorted by the run's value) against qsort by strcmp and
 * strverscmp, beside the directories that come close: a leading zero, a
 * run of 19 digits, different text before or after the run, text after it
 * that begins above '0' (strcmp), a name without digits. */
static void test_path_sort_digits(void **state)
{
	(void)state;
	static const char *const fmt[] = {
		"/d/imagenet/n01440764/n01440764_%s.JPEG",	/* the runs alone */
		"/d/img/img%s",					/* nothing after */
		"/d/bare/%s",					/* nothing before */
		"/d/after/f%sa",				/* 'a' after: strcmp apart */
		"/d/zero/x_%s.bin",				/* + a leading zero */
		"/d/long/y%s.bin",				/* + a run of 19 digits */
		"/d/mixed/%s.bin",				/* + "a7.bin" */
		"/d/dots/r12_%s.",				/* '.' after */
	};
	enum { NF = sizeof(fmt) / sizeof(*fmt), PER = 500, N = NF * PER };
	struct ana a;
	char *paths[N];
	uint32_t want[N], got[N], rank[N];
	unsigned seed = 11;

	memset(&a, 0, sizeof(a));
	a.files = calloc(N, sizeof(*a.files));
	assert_non_null(a.files);
	a.nfiles = N;
	for (size_t i = 0; i < N; i++) {
		size_t d = i % NF;
		char num[32], b[256];
		seed = seed * 1103515245 + 12345;
		unsigned r = seed >> 8;
		/* 1 to 7 digits, some twice (the same name) */
		snprintf(num, sizeof(num), "%u", 1 + r % (r % 3 ? 999999u : 50u));
		if (i / NF == 7) {
			if (d == 4)
				snprintf(num, sizeof(num), "0%u", r % 100);
			if (d == 5)
				snprintf(num, sizeof(num), "1234567890123456789");
		}
		if (d == 6 && i / NF == 9) {
			snprintf(b, sizeof(b), "/d/mixed/a7.bin");
		} else {
			snprintf(b, sizeof(b), fmt[d], num);
		}
		paths[i] = strdup(b);
		a.files[i].path = ana_path_add(&a, b);
	}
	for (int nat = 0; nat < 2; nat++) {
		check_path_sort(&a, paths, N, nat, want, got);
	}
	ana_name_ranks(&a, rank);
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(rank[want[i]], i);
	for (size_t i = 0; i < N; i++)
		free(paths[i]);
	free(a.files);
	a.files = NULL;
	a.nfiles = 0;
	ana_release(&a);
}

static void test_path_is_code(void **state)
{
	static const char *const code[] = {
		"/usr/lib/python3/dist-packages/torch/nn/modules/linear.py",
		"/usr/lib/python3.11/encodings/utf_8.py",
		"/usr/lib/python3.11/lib-dynload/_json.cpython-311-x86_64-linux-gnu.so",
		"/usr/local/lib/python3.11/dist-packages/x.pth",
		"/home/u/venv/lib/python3.11/site-packages/numpy/__init__.py",
		"/home/u/venv/lib/python3.11/site-packages/numpy-1.26.dist-info/METADATA",
		"/opt/conda/lib/python3.11/os.py",
		"/opt/conda/lib/python3.11/json/tests/data.json",
		"/opt/conda/lib/libtorch_cpu.so",
		"/home/u/proj/train.py",
		"/home/u/proj/__pycache__/util.cpython-311.pyc",
		"/home/u/proj/ext.cpython-311-x86_64-linux-gnu.so",
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/opt/cuda/lib64/libcudart.so.12.1.105",
		"/etc/ld.so.cache",
		"/etc/passwd",
		"/usr/share/locale/de/LC_MESSAGES/libc.mo",
		"/usr/lib/locale/locale-archive",
		"/opt/conda/share/locale/fr/LC_MESSAGES/x.mo",
		"/proc/self/maps",
		"/sys/devices/system/cpu/online",
		"/dev/shm/torch_1234_5678",
		"/run/user/0/x",
	};
	static const char *const data[] = {
		"/data/train/img_0001.jpg",
		"/tmp/wl3/shard_007.tar",
		"/tmp/wl2/features.npy",
		"/home/u/.cache/huggingface/datasets/x/train.arrow",
		"/home/u/data/libri/103/1240/103-1240-0000.flac",
		"/data/so.what/a.so.bin",
		"/data/python/train.json",
		"/data/mylib/python3_samples/a.bin",
		"/mnt/lustre/imagenet/train/n01440764/x.JPEG",
		"relative/path.bin",
		"/data/d/.py",		/* a name that is only the kind */
		"/data/d/x.so.",
		"/data/d/x.so.1a",
		"/data/d/x.pyx",
		"/data/d/x.12",
	};
	for (size_t i = 0; i < sizeof(code) / sizeof(*code); i++)
		if (!ana_path_is_code(code[i]))
			fail_msg("%s: not taken for code", code[i]);
	for (size_t i = 0; i < sizeof(data) / sizeof(*data); i++)
		if (ana_path_is_code(data[i]))
			fail_msg("%s: taken for code", data[i]);
}

/* A Python job: imports (.py, .pyc, shared libraries, ld.so.cache, locale,
 * /proc), its script read three times, pretrained weights read once in
 * ~/.cache, and a data set of N JPEGs read in 2 epochs by 2 workers per
 * epoch (name order, then reverse) with classes.csv read once beside them.
 * The data set: the JPEGs (read again) and classes.csv (under their
 * directory); not the weights, not the code.  Its epochs, order, request
 * sizes and hit ratio are its own; the libraries' page faults are the
 * other files'.  (test_dataset_python_job; pyjob_* write and check it.) */
enum { PYJOB_NIMP = 300, PYJOB_N = 64 };
static const char *const pyjob_code[] = {
	"/home/u/venv/lib/python3.11/site-packages/numpy/core/_mu.cpython-311-x86_64-linux-gnu.so",
	"/lib/x86_64-linux-gnu/libc.so.6", "/etc/ld.so.cache",
	"/usr/share/locale/de/LC_MESSAGES/libc.mo", "/proc/self/maps",
	"/home/u/proj/__pycache__/util.cpython-311.pyc",
};
static const uint64_t pyjob_ncode = sizeof(pyjob_code) / sizeof(*pyjob_code);

/* the file table: the code, the script, the weights, classes.csv (id 100)
 * and the JPEGs (ids 1 .. N) */
static void pyjob_files(struct tw *t)
{
	enum { N = PYJOB_N };
	char path[128];

	for (uint32_t i = 0; i < pyjob_ncode; i++)
		file_row(t, 2000 + i, pyjob_code[i], (8u << 20) | 1, 2000 + i, 65536);
	file_row(t, 2100, "/home/u/proj/train.py", (8u << 20) | 1, 2100, 4096);
	file_row(t, 3000, "/home/u/.cache/torch/hub/checkpoints/resnet.pth", (8u << 20) | 1,
		 3000, 1 << 20);
	file_row(t, 100, "/data/train/classes.csv", (8u << 20) | 1, 100, 100);
	for (uint32_t i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/data/train/img_%03u.jpg", i);
		file_row(t, i + 1, path, (8u << 20) | 1, i + 1, 8192);
	}
}

/* before the data set: the imports, the libraries and the script, a
 * library's page faults, the weights */
static void pyjob_startup(struct tw *t, uint64_t *ts)
{
	imports(t, PYJOB_NIMP, "/usr/lib/python3/dist-packages/torch/m%03u.py", ts);
	for (uint32_t k = 0; k < pyjob_ncode + 3; k++)	/* libraries, ..., the script 3 times */
		visit(t, ts, 100, 3, k < pyjob_ncode ? 2000 + k : 2100, 832);
	/* a shared library's page faults: 100 pages, all missed */
	cache_ev(t, *ts += 1000, 100, TAPE_CACHE_INSERT, 2000, 0, 100);
	cache_ev(t, *ts += 1000, 100, TAPE_CACHE_MAP_PAGES, 2000, 0, 100);
	/* the weights, 1 MiB in 4 reads, all missed */
	sc(t, *ts += 1000, 1000, 100, 100, TAPE_OP_OPENAT, -100, 3000, 0, 0, 3, "");
	for (uint64_t r = 0; r < 4; r++) {
		cache_ev(t, *ts += 1000, 100, TAPE_CACHE_INSERT, 3000, r * 64, 64);
		cache_ev(t, *ts += 1000, 100, TAPE_CACHE_ACCESS, 3000, r * 64, 64);
		sc(t, *ts += 1000, 1000, 100, 100, TAPE_OP_READ, 3, 3000, r << 18, 1 << 18, 1 << 18, "");
	}
	sc(t, *ts += 1000, 1000, 100, 100, TAPE_OP_CLOSE, 3, 3000, 0, 0, 0, "");
}

/* classes.csv, once, 100 ms after *ts; returns the time of its read */
static uint64_t pyjob_classes(struct tw *t, uint64_t *ts)
{
	uint64_t t_classes = *ts += 100 * MS;

	sc(t, t_classes - 1000, 1000, 100, 100, TAPE_OP_OPENAT, -100, 100, 0, 0, 3, "");
	cache_ev(t, t_classes, 100, TAPE_CACHE_INSERT, 100, 0, 1);
	cache_ev(t, t_classes, 100, TAPE_CACHE_ACCESS, 100, 0, 1);
	sc(t, t_classes, 1000, 100, 100, TAPE_OP_READ, 3, 100, 0, 4096, 100, "");
	sc(t, t_classes + 1000, 1000, 100, 100, TAPE_OP_READ, 3, 100, 100, 4096, 0, "");
	sc(t, t_classes + 2000, 1000, 100, 100, TAPE_OP_CLOSE, 3, 100, 0, 0, 0, "");
	return t_classes;
}

/* the 2 epochs over the JPEGs, 2 workers each; returns the time of the
 * second epoch's first read */
static uint64_t pyjob_epochs(struct tw *t)
{
	enum { N = PYJOB_N };
	uint64_t t_ep1 = 0, ts;

	for (uint32_t ep = 0; ep < 2; ep++) {
		ts = (1 + ep) * 1000 * MS;
		for (uint32_t k = 0; k < N; k++) {
			uint32_t i = ep ? N - 1 - k : k, pid = 201 + 2 * ep + k % 2;
			uint64_t id = i + 1;
			if (ep && !k)
				t_ep1 = ts + 2000;
			sc(t, ts += 1000, 1000, pid, pid, TAPE_OP_OPENAT, -100, id, 0, 0, 7, "");
			if (!ep)
				cache_ev(t, ts, pid, TAPE_CACHE_INSERT, id, 0, 2);
			cache_ev(t, ts + 1, pid, TAPE_CACHE_ACCESS, id, 0, 2);
			sc(t, ts += 1000, 1000, pid, pid, TAPE_OP_READ, 7, id, 0, 4096, 4096, "");
			sc(t, ts += 1000, 1000, pid, pid, TAPE_OP_READ, 7, id, 4096, 4096, 4096, "");
			sc(t, ts += 1000, 1000, pid, pid, TAPE_OP_READ, 7, id, 8192, 4096, 0, "");
			sc(t, ts += 1000, 1000, pid, pid, TAPE_OP_CLOSE, 7, id, 0, 0, 0, "");
		}
	}
	return t_ep1;
}

/* the analysis of the job: its data set, epochs, order, request sizes and
 * page cache, apart from the other files' */
static void pyjob_check(struct tw *t, uint64_t t_classes, uint64_t t_ep1)
{
	enum { NIMP = PYJOB_NIMP, N = PYJOB_N };
	const uint64_t ncode = pyjob_ncode;
	struct ana a;

	run(&a, t, NULL);
	assert_int_equal(a.ds_rule, ANA_DS_READ_AGAIN);
	assert_non_null(a.ds_dir);
	assert_string_equal(a.ds_dir, "/data/train");
	assert_int_equal(a.ds.files, N + 1);
	assert_int_equal(a.ds_again, N);
	assert_int_equal(a.ds.size, N * 8192 + 100);
	for (size_t i = 0; i < a.nfiles; i++) {
		const struct ana_file *f = &a.files[i];
		uint64_t id = ana_file_fid(&a, i);
		int want = id == 100 || (id >= 1 && id <= N);
		if (f->dataset != want)
		{
			char buf[ANA_PATH_BUF];
			const char *pp = ana_file_path(&a, f, buf);
			fail_msg("%s: dataset %d", pp ? pp : "?", f->dataset);
		}
	}
	/* epochs: the data set's files, bytes and reads only */
	assert_int_equal(ana_epoch_count(&a), 2);
	assert_true(ana_epochs_known(&a));
	assert_int_equal(a.sys.epochs[0].files, N + 1);
	assert_int_equal(a.sys.epochs[1].files, N);
	assert_int_equal(a.sys.epochs[0].bytes, N * 8192 + 100);
	assert_int_equal(a.sys.epochs[1].bytes, N * 8192);
	assert_int_equal(a.sys.epochs[0].reads, 2 * N + 1);
	assert_int_equal(a.sys.epochs[0].start_ns, T0 + t_classes);
	assert_int_equal(a.sys.epochs[1].start_ns, T0 + t_ep1);
	/* file order: classes.csv and the JPEGs in name order, then reversed */
	double tau;
	assert_true(ana_file_order_randomness(&a, &tau) == 0.0);
	assert_true(tau == 1.0);
	assert_true(a.sys.epochs[1].order_rand == 0.0);
	assert_true(a.sys.epochs[1].order_tau == -1.0);
	/* request sizes: 4 KiB reads, the EOF reads and classes.csv's 100 B */
	assert_int_equal(a.ds.rd_hist[13], 4 * N);
	assert_int_equal(a.ds.rd_hist[0], 2 * N + 1);
	assert_int_equal(a.ds.rd_hist[7], 1);
	assert_int_equal(a.ds.read_ops, 6 * N + 2);
	assert_int_equal(a.other.read_ops, NIMP + ncode + 3 + 4);
	assert_int_equal(a.other.rd_hist[13], NIMP);	/* 4 KiB */
	assert_int_equal(a.other.rd_hist[10], ncode + 3);	/* 832 B */
	assert_int_equal(a.other.rd_hist[19], 4);	/* 256 KiB */
	/* JPEGs each read sequentially in 2 reads */
	assert_int_equal(a.ds.rd_pairs, 2 * N);
	assert_true(ana_group_randomness(&a.ds) == 0.0);
	/* page cache: the data set's pages against the libraries' faults */
	assert_int_equal(a.ds.pages_accessed, 4 * N + 1);
	assert_int_equal(a.ds.pages_missed, 2 * N + 1);
	assert_int_equal(a.other.pages_accessed, 100 + 256);
	assert_int_equal(a.other.pages_missed, 100 + 256);
	ana_release(&a);
}

/* the same in analyze's JSON */
static void pyjob_check_json(struct tw *t)
{
	enum { N = PYJOB_N };
	json_t *j = run_json(t);
	json_t *d = json_object_get(j, "dataset");

	assert_string_equal(json_string_value(json_object_get(d, "rule")), "read_again");
	assert_string_equal(json_string_value(json_object_get(d, "directory")), "/data/train");
	assert_int_equal(json_integer_value(json_object_get(d, "files")), N + 1);
	assert_int_equal(json_integer_value(json_object_get(d, "epochs")), 2);
	assert_true(fabs(json_real_value(jpath(d, "cache", "hit_ratio")) -
			 (1.0 - (2.0 * N + 1) / (4.0 * N + 1))) < 1e-9);	/* 10 digits */
	assert_true(json_real_value(jpath(json_object_get(j, "other_files"), "cache", "hit_ratio")) == 0.0);
	assert_true(json_real_value(jpath(d, "pattern", "file_order_randomness")) == 0.0);
	json_decref(j);
}

static void test_dataset_python_job(void **state)
{
	uint64_t ts = 0;
	struct tw t;

	tw_open(&t);
	pyjob_files(&t);
	pyjob_startup(&t, &ts);
	uint64_t t_classes = pyjob_classes(&t, &ts);
	uint64_t t_ep1 = pyjob_epochs(&t);
	tw_close(&t);
	pyjob_check(&t, t_classes, t_ep1);
	pyjob_check_json(&t);
}

/* 8 tar shards (2.25 MiB) read whole twice, in 1 MiB reads, by 2 workers
 * per epoch, after 1,000 imports, the workers reading 5 modules again: a
 * data set of fewer than 32 files, 2 epochs; its order is the shards' (name
 * order: 0), not the imports'. */
static void test_epochs_few_shards(void **state)
{
	enum { NIMP = 1000, N = 8, NMOD = 5 };
	const uint64_t size = (9ull << 18) + 512;
	uint64_t ts = 0;
	struct tw t;
	tw_open(&t);
	data_files(&t, N, "/data/shards/shard_%03u.tar", size);
	imports(&t, NIMP, "/usr/lib/python3.11/m%04u.py", &ts);
	for (uint32_t ep = 0; ep < 2; ep++) {
		for (uint32_t w = 0; w < 2; w++)
			for (uint32_t m = 0; m < NMOD; m++)
				visit(&t, &ts, 200 + 2 * ep + w, 5, 10000 + m, 4096);
		for (uint32_t i = 0; i < N; i++) {	/* worker i % 2, in name order */
			uint32_t pid = 200 + 2 * ep + i % 2;
			sc(&t, ts += 1000, 1000, pid, pid, TAPE_OP_OPENAT, -100, i + 1, 0, 0, 7, "");
			for (uint64_t off = 0; off <= size; off += 1 << 20) {
				uint64_t n = size - off < (1 << 20) ? size - off : 1 << 20;
				sc(&t, ts += MS, 1000, pid, pid, TAPE_OP_READ, 7, i + 1, off, 1 << 20,
				   (int64_t)n, "");
			}
			sc(&t, ts += 1000, 1000, pid, pid, TAPE_OP_CLOSE, 7, i + 1, 0, 0, 0, "");
		}
	}
	tw_close(&t);

	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(a.ds.files, N);
	assert_int_equal(ana_epoch_count(&a), 2);
	assert_int_equal(a.npasses, 2);
	for (int e = 0; e < 2; e++) {
		assert_int_equal(a.sys.epochs[e].files, N);
		assert_int_equal(a.sys.epochs[e].bytes, N * size);
		assert_int_equal(a.sys.epochs[e].reads, N * 3);
	}
	double tau;
	assert_true(ana_file_order_randomness(&a, &tau) == 0.0);
	assert_true(tau == 1.0);
	assert_true(ana_group_randomness(&a.ds) == 0.0);
	ana_release(&a);
}

/* One 64 MiB file of 1,024 records of 64 KiB after 200 imports: read
 * twice at shuffled offsets through one open (2 epochs: its bytes covered
 * twice), by two workers per epoch each reading half of it through its
 * own open (2 epochs, not 4: a pass is the file's bytes, not its opens),
 * and once and a fifth (1 epoch and a partial pass). */
static void one_file_trace(struct tw *t, int workers, uint32_t passes_x5)
{
	enum { NIMP = 200, NREC = 1024 };
	const uint64_t rec = 65536;
	uint32_t order[NREC];
	uint64_t ts = 0;
	tw_open(t);
	imports(t, NIMP, "/usr/lib/python3/dist-packages/m%03u.py", &ts);
	file_row(t, 1, "/data/big.bin", 8u << 20, 1, NREC * rec);
	for (uint32_t i = 0; i < NREC; i++)
		order[i] = i;
	ts = 1000 * MS;
	if (!workers)
		sc(t, ts, 1000, 100, 100, TAPE_OP_OPENAT, -100, 1, 0, 0, 4, "");
	for (uint32_t ep = 0; ep * 5 < passes_x5; ep++) {
		uint32_t nrec = (passes_x5 - ep * 5) >= 5 ? NREC : NREC * (passes_x5 - ep * 5) / 5;
		shuffle(order, NREC);
		ts += 100 * MS;
		for (uint32_t w = 0; w < (uint32_t)workers; w++)
			sc(t, ts += 1000, 1000, 200 + 2 * ep + w, 200 + 2 * ep + w, TAPE_OP_OPENAT,
			   -100, 1, 0, 0, 5, "");
		for (uint32_t k = 0; k < nrec; k++) {
			uint32_t pid = workers ? 200 + 2 * ep + k % 2 : 100;
			sc(t, ts += 100000, 50000, pid, pid, TAPE_OP_PREAD64, workers ? 5 : 4, 1,
			   order[k] * rec, rec, (int64_t)rec, "");
		}
	}
	tw_close(t);
}

static void test_epochs_one_file(void **state)
{
	struct tw t;
	struct ana a;

	one_file_trace(&t, 0, 10);	/* one open, twice */
	run(&a, &t, NULL);
	assert_int_equal(a.ds.files, 1);
	assert_int_equal(a.ds_rule, ANA_DS_READ_AGAIN);
	assert_int_equal(ana_epoch_count(&a), 2);
	assert_int_equal(a.sys.epochs[0].bytes, 64u << 20);
	assert_int_equal(a.sys.epochs[1].bytes, 64u << 20);
	assert_int_equal(a.sys.epochs[1].reads, 1024);
	assert_true(isnan(ana_file_order_randomness(&a, NULL)));	/* one file */
	ana_release(&a);

	one_file_trace(&t, 2, 10);	/* 2 workers per epoch, half each */
	run(&a, &t, NULL);
	assert_int_equal(a.ds.files, 1);
	assert_int_equal(ana_epoch_count(&a), 2);
	assert_int_equal(a.npasses, 2);
	assert_int_equal(a.sys.epochs[1].bytes, 64u << 20);
	ana_release(&a);

	one_file_trace(&t, 0, 6);	/* 1.2 times */
	run(&a, &t, NULL);
	assert_int_equal(ana_epoch_count(&a), 1);
	assert_int_equal(a.npasses, 2);
	ana_release(&a);
}

/* A 124 KB torch.save per epoch (3 epochs), each file written front to back
 * in several writes and closed, one of them with fsync and rename: three
 * checkpoints, whatever their size.  Whole-file writes that do not repeat
 * (a results file once), files rewritten at offset 0 (a temporary file two
 * processes write 4 bytes to), temporary files written whole and deleted
 * (mkstemp, write, close, unlink), a log appended to and never closed, and
 * compiled modules written whole are none. */
static void test_checkpoints_small(void **state)
{
	static const uint64_t parts[] = { 1666, 1854, 18688, 98304, 5760, 606, 98 };
	const uint64_t total = 126976;
	struct tw t;
	tw_open(&t);
	uint64_t ts = 0;
	sc(&t, 0, 1000, 100, 101, TAPE_OP_OPENAT, -100, 50, 0, 0, 5, "/job/train.log");
	for (int i = 0; i < 300; i++)
		sc(&t, 1000 + i * 100 * MS, 1000, 100, 101, TAPE_OP_WRITE, 5, 50, i * 100ull, 100, 100, "");
	for (int c = 0; c < 3; c++) {
		char p[64];
		ts = (uint64_t)(c + 1) * 9000 * MS;
		snprintf(p, sizeof(p), c == 2 ? "/job/ckpt/epoch_%d.pt.tmp" : "/job/ckpt/epoch_%d.pt", c);
		sc(&t, ts, 1000, 100, 100, TAPE_OP_OPENAT, -100, 10 + c, 0, 0, 9, p);
		uint64_t off = 0;
		for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); i++) {
			sc(&t, ts += 20000, 10000, 100, 100, i % 2 ? TAPE_OP_WRITE : TAPE_OP_WRITEV, 9,
			   10 + c, off, parts[i], (int64_t)parts[i], "");
			off += parts[i];
		}
		if (c == 2)
			sc(&t, ts += 20000, MS, 100, 100, TAPE_OP_FSYNC, 9, 10 + c, 0, 0, 0, "");
		sc(&t, ts += 2 * MS, 1000, 100, 100, TAPE_OP_CLOSE, 9, 10 + c, 0, 0, 0, "");
		/* a temporary file: 4 bytes at offset 0 from two processes */
		snprintf(p, sizeof(p), "/tmp/tmp%dxyz", c);
		for (uint32_t w = 0; w < 2; w++) {
			sc(&t, ts += MS, 1000, 300 + w, 300 + w, TAPE_OP_OPENAT, -100, 20 + c, 0, 0, 4, p);
			sc(&t, ts += MS, 1000, 300 + w, 300 + w, TAPE_OP_WRITE, 4, 20 + c, 0, 4, 4, "");
			sc(&t, ts += MS, 1000, 300 + w, 300 + w, TAPE_OP_CLOSE, 4, 20 + c, 0, 0, 0, "");
		}
		/* a temporary file written whole, closed and deleted */
		snprintf(p, sizeof(p), "/tmp/tmp%dabc", c);
		sc(&t, ts += MS, 1000, 400, 401, TAPE_OP_OPENAT, -100, 60 + c, 0, 0, 4, p);
		sc(&t, ts += MS, 1000, 400, 401, TAPE_OP_WRITE, 4, 60 + c, 0, 4, 4, "");
		sc(&t, ts += MS, 1000, 400, 401, TAPE_OP_CLOSE, 4, 60 + c, 0, 0, 0, "");
		sc(&t, ts += MS, 1000, 400, 401, TAPE_OP_UNLINK, -1, 0, 0, 0, 0, p);
		/* a compiled module, written whole */
		snprintf(p, sizeof(p), "/job/__pycache__/m%d.cpython-311.pyc", c);
		sc(&t, ts += MS, 1000, 100, 100, TAPE_OP_OPENAT, -100, 30 + c, 0, 0, 4, p);
		sc(&t, ts += MS, 1000, 100, 100, TAPE_OP_WRITE, 4, 30 + c, 0, 5000, 5000, "");
		sc(&t, ts += MS, 1000, 100, 100, TAPE_OP_CLOSE, 4, 30 + c, 0, 0, 0, "");
	}
	sc(&t, ts += 5000 * MS, 1000, 100, 100, TAPE_OP_OPENAT, -100, 40, 0, 0, 4, "/job/results.json");
	sc(&t, ts += MS, 1000, 100, 100, TAPE_OP_WRITE, 4, 40, 0, 300, 300, "");
	sc(&t, ts += MS, 1000, 100, 100, TAPE_OP_CLOSE, 4, 40, 0, 0, 0, "");
	tw_close(&t);

	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(a.nckpts, 3);
	for (int c = 0; c < 3; c++) {
		assert_int_equal(a.ckpts[c].bytes, total);
		assert_int_equal(a.ckpts[c].files, 1);
		assert_int_equal(a.ckpts[c].ops, 7);
		assert_int_equal(a.ckpts[c].syncs, c == 2);
		assert_true(a.ckpts[c].whole);
		assert_int_equal(a.ckpts[c].start_ns, T0 + (c + 1) * 9000 * MS + 20000);
	}
	ana_release(&a);
}

/*
 * A trace of 40 files of 1 MiB, each opened and read once (4 KiB, a cache
 * miss, a block read) 1 ms apart by one of three threads of pid 100:
 * under /data, or with other_dirs every fourth (f0, f4, ...) under /other.
 */
static void write_40_reads(struct tw *t, int other_dirs)
{
	tw_open(t);
	proc_row(t, 100, 1, "python");
	for (uint32_t i = 0; i < 40; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/%s/f%u", other_dirs && i % 4 == 0 ? "other" : "data", i);
		file_row(t, i + 1, path, (8u << 20) | 1, 100 + i, 1 << 20);
		sc(t, i * MS, 1000, 100, 100 + i % 3, TAPE_OP_OPENAT, -100, i + 1, 0, 0, 3, "");
		sc(t, i * MS + 10, 1000, 100, 100 + i % 3, TAPE_OP_READ, 3, i + 1, 0, 4096, 4096, "");
		cache_ev(t, i * MS + 20, 100, TAPE_CACHE_INSERT, 100 + i, 0, 1);
		cache_ev(t, i * MS + 30, 100, TAPE_CACHE_ACCESS, 100 + i, 0, 1);
		blk_ev(t, i * MS + 40, 5000, i * 8, 4096, TAPE_BLK_READ);
	}
	tw_close(t);
}

/* Every allocation the analysis makes can fail: ana_run then returns
 * -ENOMEM (one or two threads) and ana_release frees what was built. */
static void test_out_of_memory(void **state)
{
	struct tw t;
	write_40_reads(&t, 0);
	for (int threads = 1; threads <= 2; threads++) {
		struct ana_opts o = { .top = -1, .to_ns = UINT64_MAX, .threads = threads };
		int fails = 0, err;
		for (size_t n = 1;; n++) {
			struct ana a;
			ana_oom_after = n;
			err = ana_run(&a, t.path, &o);
			ana_oom_after = 0;
			ana_release(&a);
			if (!err)
				break;
			assert_int_equal(err, -ENOMEM);
			fails++;
			assert_true(n < 100000);
		}
		assert_true(fails > 20);	/* files, maps, epochs, latency, ... */
	}
}

static void sample_ev(struct tw *t, uint64_t ts, unsigned metric, uint64_t subject, uint64_t v)
{
	struct tape_sample e = { .ts_ns = T0 + ts, .metric = metric, .subject = subject, .value = v };
	assert_int_equal(tape_writer_append(t->w, TAPE_TABLE_SAMPLE, &e), 0);
}

/* The sample layer: CPU time of the job's processes (last - first sample),
 * its peak RSS (summed per tick), page cache, devices; no GPU sampled:
 * those are null with their reason. */
static void test_resources(void **state)
{
	struct tw t;
	tw_open(&t);
	assert_int_equal(tape_writer_set_meta(t.w, "layers", "syscall,cache,sample"), 0);
	proc_row(&t, 100, 1, "python");
	proc_row(&t, 101, 100, "worker");
	sc(&t, 0, 1000, 100, 100, TAPE_OP_OPENAT, -100, 1, 0, 0, 3, "/data/x");
	for (uint64_t k = 0; k < 3; k++) {
		uint64_t ts = k * 1000 * MS;
		sample_ev(&t, ts, TAPE_METRIC_CPU_USER_NS, 100, 500 * MS + k * 800 * MS);
		sample_ev(&t, ts, TAPE_METRIC_CPU_SYS_NS, 100, k * 100 * MS);
		sample_ev(&t, ts, TAPE_METRIC_RSS_BYTES, 100, (100 + 20 * k) << 20);
		sample_ev(&t, ts, TAPE_METRIC_RSS_BYTES, 101, k == 1 ? 70 << 20 : 10 << 20);
		sample_ev(&t, ts, TAPE_METRIC_PAGECACHE_BYTES, 0, (10 + 10 * k) << 20);
		sample_ev(&t, ts, TAPE_METRIC_DISK_READ_BYTES, 8u << 20, 5000 + k * 4096);
	}
	tw_close(&t);
	json_t *j = run_json(&t);
	assert_true(json_real_value(jpath(j, "resources", "cpu_user_s")) == 1.6);
	assert_true(json_real_value(jpath(j, "resources", "cpu_sys_s")) == 0.2);
	assert_true(fabs(json_real_value(jpath(j, "resources", "cpu_cores")) - 0.9) < 1e-9);	/* 1.8 s in 2 s */
	assert_int_equal(json_integer_value(jpath(j, "resources", "peak_rss_bytes")), 190 << 20);
	assert_int_equal(json_integer_value(json_object_get(jpath(j, "resources", "pagecache_bytes"),
							    "max")), 30 << 20);
	assert_int_equal(json_integer_value(jpath(j, "resources", "disk_read_bytes")), 8192);
	assert_int_equal(json_integer_value(jpath(j, "resources", "disk_write_bytes")), 0); /* no write counter */
	assert_true(json_is_null(jpath(j, "resources", "gpu_util_mean_pct")));
	assert_true(unavailable_has(j, "resources.gpu_util_mean_pct", "no GPU samples"));
	/* a layer that was recorded and saw nothing, one that was not recorded */
	assert_true(unavailable_has(j, "cache", "the cache layer was recorded and saw none"));
	assert_true(unavailable_has(j, "block", "recorded without the block layer"));
	json_decref(j);

	/* no sample table: every resource is unknown, and said so */
	tw_open(&t);
	sc(&t, 0, 1000, 100, 100, TAPE_OP_OPENAT, -100, 1, 0, 0, 3, "/data/x");
	tw_close(&t);
	j = run_json(&t);
	assert_true(json_is_null(json_object_get(j, "resources")));
	assert_true(unavailable_has(j, "resources", "the trace has no sample events"));
	json_decref(j);
}

static void test_latency_exact(void **state)
{
	struct tw t;
	tw_open(&t);
	sc(&t, 0, 1000, 100, 100, TAPE_OP_OPENAT, -100, 1, 0, 0, 3, "/data/l");
	uint32_t v[100];
	for (uint32_t i = 0; i < 100; i++)
		v[i] = i + 1;
	shuffle(v, 100);
	for (int i = 0; i < 100; i++)
		sc(&t, MS + i * 200000ull, v[i] * 1000ull, 100, 100, TAPE_OP_READ, 3, 1,
		   (uint64_t)i * 4096, 4096, 4096, "");
	tw_close(&t);
	struct ana a;
	run(&a, &t, NULL);
	const struct cm_lat *l = &a.sys.lat[TAPE_OP_READ];
	assert_int_equal(l->count, 100);
	assert_int_equal(cm_lat_pct(l, 50), 50000);
	assert_int_equal(cm_lat_pct(l, 90), 90000);
	assert_int_equal(cm_lat_pct(l, 99), 99000);
	assert_int_equal(cm_lat_pct(l, 99.9), 100000);
	assert_int_equal(l->max, 100000);
	assert_int_equal(l->min, 1000);
	assert_false(l->inexact);
	ana_release(&a);
}

static void test_latency_histogram(void **state)
{
	struct cm_lat l = { 0 };
	size_t budget = SIZE_MAX;
	for (uint64_t i = 1; i <= 3000000; i++)
		ana_lat_add(&l, i * 37, &budget);
	cm_lat_finish(&l);
	assert_true(l.inexact);
	const double p[] = { 50, 90, 99, 99.9 };
	for (int k = 0; k < 4; k++) {
		double want = ceil(p[k] / 100 * 3000000) * 37;
		double got = (double)cm_lat_pct(&l, p[k]);
		assert_true(fabs(got - want) / want < 0.01);
	}
	assert_int_equal(cm_lat_pct(&l, 100), 3000000ull * 37);
	cm_lat_release(&l);
}

static void test_missing_layer_null(void **state)
{
	struct tw t;
	tw_open(&t);
	sc(&t, 0, 1000, 100, 100, TAPE_OP_OPENAT, -100, 1, 0, 0, 3, "/data/x");
	sc(&t, 1000, 1000, 100, 100, TAPE_OP_READ, 3, 1, 0, 4096, 4096, "");
	tw_close(&t);
	json_t *j = run_json(&t);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), "iotape-analyze/1");
	const char *keys[] = { "summary", "pattern", "cache", "block", "latency", "timeline",
			       "epochs", "checkpoints", "compute", "files", "processes" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		assert_non_null(json_object_get(j, keys[i]));
	assert_true(json_is_null(json_object_get(j, "cache")));
	assert_true(json_is_null(json_object_get(j, "block")));
	/* one read per stream: randomness is unknown, not 0 */
	assert_true(json_is_null(json_object_get(json_object_get(j, "pattern"), "read_randomness")));
	json_t *f0 = json_array_get(json_object_get(j, "files"), 0);
	assert_true(json_is_null(json_object_get(f0, "hit_ratio")));
	assert_string_equal(json_string_value(json_object_get(f0, "path")), "/data/x");
	json_t *un = json_object_get(j, "unavailable");
	int saw_cache = 0;
	for (size_t i = 0; i < json_array_size(un); i++)
		saw_cache |= strcmp(json_string_value(json_object_get(json_array_get(un, i), "metric")), "cache") == 0;
	assert_true(saw_cache);
	json_decref(j);

	/* and the other way round: only cache events */
	tw_open(&t);
	cache_ev(&t, 0, 7, TAPE_CACHE_ACCESS, 42, 0, 10);
	tw_close(&t);
	j = run_json(&t);
	assert_true(json_is_null(json_object_get(j, "pattern")));
	assert_true(json_is_null(json_object_get(j, "latency")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "summary"), "read_bytes")));
	assert_true(json_real_value(json_object_get(json_object_get(j, "cache"), "hit_ratio")) == 1.0);
	json_decref(j);

	/* an empty trace: every section null, nothing crashes */
	tw_open(&t);
	tw_close(&t);
	j = run_json(&t);
	const char *nulls[] = { "pattern", "cache", "block", "latency", "timeline", "epochs",
				"checkpoints", "compute" };
	for (size_t i = 0; i < sizeof(nulls) / sizeof(*nulls); i++)
		assert_true(json_is_null(json_object_get(j, nulls[i])));
	assert_int_equal(json_array_size(json_object_get(j, "files")), 0);
	json_decref(j);
}

/* Copies: a read of ret bytes on the input side and a write of them on
 * the output side; a pipe's side is not storage and left out, and the op's
 * own counters have each copy once. */
static void copy_ev(struct tw *t, uint64_t ts, unsigned op, int64_t fd, uint64_t fid,
		    uint64_t off, int64_t fd2, uint64_t fid2, uint64_t off2, int64_t ret)
{
	struct tape_syscall e = { .ts_ns = T0 + ts, .dur_ns = 1000, .pid = 100, .tid = 100,
				  .op = op, .fd = fd, .file_id = fid, .offset = off,
				  .size = (uint64_t)ret, .ret = ret, .path = "", .path2 = "",
				  .fd2 = fd2, .file_id2 = fid2, .offset2 = off2 };
	assert_int_equal(tape_writer_append(t->w, TAPE_TABLE_SYSCALL, &e), 0);
}

static void test_copies(void **state)
{
	struct tw t;
	tw_open(&t);
	file_row(&t, 1, "/data/in.bin", 8u << 20, 11, 2u << 20);
	file_row(&t, 2, "/data/out.bin", 8u << 20, 12, 0);
	struct tape_file pipe = { .ts_ns = T0, .file_id = 3, .dev = 13, .inode = 99,
				  .mode = 010600, .path = "pipe:[99]" };
	assert_int_equal(tape_writer_append(t.w, TAPE_TABLE_FILE, &pipe), 0);
	sc(&t, 0, 1000, 100, 100, TAPE_OP_OPENAT, -100, 1, 0, 0, 3, "/data/in.bin");
	sc(&t, MS, 1000, 100, 100, TAPE_OP_OPENAT, -100, 2, 0, 0, 4, "/data/out.bin");
	copy_ev(&t, 2 * MS, TAPE_OP_SENDFILE, 3, 1, 0, 4, 2, 0, 1 << 20);
	copy_ev(&t, 3 * MS, TAPE_OP_SPLICE, 3, 1, 1 << 20, 7, 3, 0, 4096);	 /* to a pipe */
	copy_ev(&t, 4 * MS, TAPE_OP_SPLICE, 8, 3, 0, 4, 2, 1 << 20, 4096);	 /* from one */
	copy_ev(&t, 5 * MS, TAPE_OP_COPY_FILE_RANGE, 3, 1, 0, -1, 0, 0, 512); /* no output */
	tw_close(&t);

	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(a.sys.read_ops, 3);
	assert_int_equal(a.sys.read_bytes, (1u << 20) + 4096 + 512);
	assert_int_equal(a.sys.write_ops, 2);
	assert_int_equal(a.sys.write_bytes, (1u << 20) + 4096);
	assert_int_equal(a.sys.op_ops[TAPE_OP_SENDFILE], 1);
	assert_int_equal(a.sys.op_bytes[TAPE_OP_SENDFILE], 1u << 20);
	assert_int_equal(a.sys.op_ops[TAPE_OP_SPLICE], 2);
	assert_int_equal(a.sys.op_bytes[TAPE_OP_SPLICE], 8192);
	assert_int_equal(a.sys.rd_hist[21], 1);	/* [1 MiB, 2 MiB) */
	assert_int_equal(a.sys.wr_hist[21], 1);
	/* the input is one sequential stream: 0, 1 MiB, then back to 0 */
	assert_int_equal(a.sys.st_count, 1);
	assert_int_equal(a.sys.st_consec, 1);
	ana_release(&a);
}

static void test_checkpoints(void **state)
{
	struct tw t;
	tw_open(&t);
	uint64_t ts = 0;
	for (int c = 0; c < 3; c++) {
		ts = (uint64_t)(c + 1) * 10000 * MS;
		sc(&t, ts, 1000, 100, 100, TAPE_OP_OPENAT, -100, 10 + c, 0, 0, 9, "/ckpt/model.pt");
		for (int i = 0; i < 64; i++)
			sc(&t, ts += MS, 900000, 100, 100, TAPE_OP_WRITE, 9, 10 + c, (uint64_t)i << 20,
			   1 << 20, 1 << 20, "");
		sc(&t, ts += MS, 50 * MS, 100, 100, TAPE_OP_FSYNC, 9, 10 + c, 0, 0, 0, "");
		sc(&t, ts += 51 * MS, 1000, 100, 100, TAPE_OP_CLOSE, 9, 10 + c, 0, 0, 0, "");
	}
	/* a log written every 100 ms: small writes, never a checkpoint */
	sc(&t, 0, 1000, 100, 101, TAPE_OP_OPENAT, -100, 50, 0, 0, 5, "/log.txt");
	for (int i = 0; i < 400; i++)
		sc(&t, 1000 + i * 100 * MS, 1000, 100, 101, TAPE_OP_WRITE, 5, 50, 0, 100, 100, "");
	tw_close(&t);
	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(a.nckpts, 3);
	for (int c = 0; c < 3; c++) {
		assert_int_equal(a.ckpts[c].bytes, 64u << 20);
		assert_int_equal(a.ckpts[c].syncs, 1);
		assert_int_equal(a.ckpts[c].end_ns - a.ckpts[c].start_ns, 114 * MS);
	}
	ana_release(&a);
}

static void test_compute(void **state)
{
	struct tw t;
	tw_open(&t);
	sc(&t, 0, 1 * MS, 100, 100, TAPE_OP_READ, 3, 1, 0, 4096, 4096, "/d");
	sc(&t, 10 * MS, 1 * MS, 100, 100, TAPE_OP_READ, 3, 1, 4096, 4096, 4096, "/d");
	sc(&t, 20 * MS, 2 * MS, 100, 100, TAPE_OP_READ, 3, 1, 8192, 4096, 4096, "/d");
	tw_close(&t);
	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(a.sys.nthreads, 1);
	assert_int_equal(a.sys.threads[0].io_ns, 4 * MS);
	assert_int_equal(a.sys.threads[0].gap_ns, 18 * MS);
	assert_int_equal(a.sys.busy_ns, 4 * MS);
	ana_release(&a);
}

static void test_block(void **state)
{
	struct tw t;
	tw_open(&t);
	/* 10 sequential 128 KiB reads, then 10 at scattered sectors */
	for (int i = 0; i < 10; i++)
		blk_ev(&t, i * MS, (i + 1) * 100000ull, 2048 + i * 256ull, 131072, TAPE_BLK_READ);
	for (int i = 0; i < 10; i++)
		blk_ev(&t, (10 + i) * MS, (i + 11) * 100000ull, 1000000 + i * 7919ull, 4096,
		       TAPE_BLK_WRITE | TAPE_BLK_SYNC);
	blk_ev(&t, 30 * MS, 100000, 0, 0, TAPE_BLK_FLUSH);
	tw_close(&t);
	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(a.blk.nd, 1);
	assert_int_equal(a.blk.d[0].pairs, 19);
	assert_int_equal(a.blk.d[0].nonconsec, 10);	/* first write + 9 scattered */
	assert_int_equal(a.blk.d[0].read_bytes, 10 * 131072);
	assert_int_equal(a.blk.d[0].flushes, 1);
	assert_int_equal(cm_lat_pct(&a.blk.rlat, 50), 500000);
	assert_int_equal(cm_lat_pct(&a.blk.wlat, 90), 1900000);
	assert_int_equal(a.blk.lat.count, 21);
	ana_release(&a);
}

static void test_pid_filter(void **state)
{
	struct tw t;
	tw_open(&t);
	proc_row(&t, 100, 1, "python");
	proc_row(&t, 200, 100, "pt_worker");
	proc_row(&t, 300, 1, "other");
	sc(&t, 0, 1000, 100, 100, TAPE_OP_READ, 3, 1, 0, 4096, 4096, "/a");
	sc(&t, 1000, 1000, 200, 200, TAPE_OP_READ, 3, 2, 0, 8192, 8192, "/b");
	sc(&t, 2000, 1000, 300, 300, TAPE_OP_READ, 3, 3, 0, 16384, 16384, "/c");
	tw_close(&t);
	struct ana a;
	struct ana_opts o = { .top = -1, .to_ns = UINT64_MAX, .threads = 2, .has_pid = 1, .pid = 100 };
	run(&a, &t, &o);
	assert_int_equal(a.sys.read_bytes, 4096 + 8192);
	assert_int_equal(a.sys.nthreads, 2);
	ana_release(&a);
	/* a time window */
	o = (struct ana_opts){ .top = -1, .from_ns = 500, .to_ns = 1500, .threads = 1 };
	run(&a, &t, &o);
	assert_int_equal(a.sys.read_bytes, 8192);
	ana_release(&a);
}

static void test_damaged_block(void **state)
{
	struct tw t;
	snprintf(t.path, sizeof(t.path), "%s/t%d.tape", dir, seq_no++);
	struct tape_writer_opts o = { .flags = TAPE_WRITE_FORCE, .block_rows = 100 };
	assert_int_equal(tape_writer_open(&t.w, t.path, &o), 0);
	for (int i = 0; i < 1000; i++)
		sc(&t, i * 1000ull, 500, 100, 100, TAPE_OP_READ, 3, 1, (uint64_t)i * 4096, 4096,
		   4096, "/d");
	tw_close(&t);
	/* flip a byte in the middle: inside some block's payload */
	FILE *f = fopen(t.path, "r+b");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, len / 2, SEEK_SET);
	int ch = fgetc(f);
	fseek(f, len / 2, SEEK_SET);
	fputc(ch ^ 0x5a, f);
	fclose(f);

	struct ana a;
	run(&a, &t, NULL);
	assert_int_equal(a.damage[TAPE_TABLE_SYSCALL], -EBADMSG);
	assert_non_null(a.damage_detail[TAPE_TABLE_SYSCALL]);
	assert_true(a.sys.read_ops > 0 && a.sys.read_ops < 1000);
	assert_true(a.sys.read_ops % 100 == 0);	/* whole blocks before the damage */
	assert_true(ana_read_randomness(&a) == 0.0);
	ana_release(&a);
	json_t *j = run_json(&t);
	assert_int_equal(json_array_size(json_object_get(j, "warnings")), 1);
	json_decref(j);
}

static void test_ivset(void **state)
{
	struct ana_ivset s = { 0 };
	int64_t dn;
	assert_int_equal(ana_ivset_add(&s, 10, 20, 100, &dn), 0);
	assert_int_equal(dn, 1);
	ana_ivset_add(&s, 30, 40, 100, &dn);
	ana_ivset_add(&s, 20, 30, 100, &dn);	/* bridges both */
	assert_int_equal(s.n, 1);
	assert_int_equal(dn, -1);
	assert_int_equal(ana_ivset_take(&s, 15, 35, &dn), 20);
	assert_int_equal(s.n, 2);
	assert_int_equal(dn, 1);
	assert_int_equal(ana_ivset_pages(&s), 10);
	assert_int_equal(ana_ivset_take(&s, 0, 100, &dn), 10);
	assert_int_equal(s.n, 0);
	assert_int_equal(ana_ivset_add(&s, 1, 2, 0, &dn), -1);	/* full */
	ana_ivset_release(&s);

	/* one interval lives inline; splitting it moves the set to the heap */
	ana_ivset_add(&s, 0, 32, 100, &dn);
	assert_int_equal(s.cap, 0);
	assert_int_equal(ana_ivset_take(&s, 10, 11, &dn), 1);
	assert_int_equal(dn, 1);
	assert_int_equal(s.n, 2);
	assert_int_equal(ana_ivset_pages(&s), 31);
	assert_int_equal(ana_ivset_take(&s, 0, 32, &dn), 31);
	assert_int_equal(s.n, 0);
	ana_ivset_release(&s);
}

/* The report's series (ana_series_build): bytes read per directory and
 * per column add up to the reads, time per file and per thread to the
 * calls'; and ana_report_html survives every allocation failing
 * (-ENOMEM, nothing leaked) and otherwise writes a whole page. */
static void test_report_html(void **state)
{
	struct tw t;
	write_40_reads(&t, 1);

	struct ana a;
	struct ana_series s;
	run(&a, &t, NULL);
	assert_int_equal(ana_series_build(&a, 16, &s), 0);
	assert_int_equal(s.ncol, 16);
	assert_int_equal(cm_strtab_count(&s.dirs), 2);
	uint64_t sum = 0, rsum = 0, io = 0, fns = 0;
	for (uint32_t g = 0; g < 2; g++) {
		uint64_t row = 0;
		for (size_t c = 0; c < s.ncol; c++)
			row += s.gbytes[g * s.ncol + c];
		assert_int_equal(row, s.gtotal[g]);
		sum += s.gtotal[g];
		const char *name = cm_strtab_str(&s.dirs, g);
		assert_int_equal(s.gtotal[g], strcmp(name, "/other") ? 30 * 4096 : 10 * 4096);
	}
	assert_int_equal(sum, 40 * 4096);
	for (size_t c = 0; c < s.ncol; c++)
		rsum += s.rbytes[c];
	assert_int_equal(rsum, 40 * 4096);
	assert_int_equal(s.nthr, 3);
	for (size_t k = 0; k < s.nthr * s.ncol; k++)
		io += s.tio[k];
	assert_int_equal(io, 40 * 1010);	/* per file an open [0, 1000) and a read [10, 1010) ns: their union */
	for (size_t f = 0; f < a.nfiles; f++)
		fns += s.file_ns[f];
	assert_int_equal(fns, 80 * 1000);
	ana_series_release(&s);

	/* the allocations ana_report_json makes come first: its own failures
	 * are test_out_of_memory's business (it leaks its partial JSON) */
	char *buf = NULL;
	size_t len = 0, json_allocs;
	FILE *o = open_memstream(&buf, &len);
	assert_non_null(o);
	ana_oom_after = 1000000;
	assert_int_equal(ana_report_json(&a, o), 0);
	json_allocs = 1000000 - ana_oom_after;
	ana_oom_after = 0;
	fclose(o);
	free(buf);
	buf = NULL;
	int fails = 0, err;
	for (size_t n = json_allocs + 1;; n++) {
		o = open_memstream(&buf, &len);
		assert_non_null(o);
		ana_oom_after = n;
		err = ana_report_html(&a, NULL, NULL, 0, o);
		ana_oom_after = 0;
		fclose(o);
		if (!err)
			break;
		assert_int_equal(err, -ENOMEM);
		fails++;
		free(buf);
		buf = NULL;
		assert_true(n < 100000);
	}
	assert_true(fails >= 2);	/* (the page's own: its plots' temporaries) */
	assert_non_null(strstr(buf, "<!DOCTYPE html>"));
	assert_non_null(strstr(buf, "</html>"));
	assert_non_null(strstr(buf, "data-json-key=\"/summary/read_bytes\" data-value=\"163840\""));
	assert_non_null(strstr(buf, "<td class=\"path\">/data</td><td class=\"num\">120.0 KiB</td>"));
	free(buf);
	/* side by side */
	o = open_memstream(&buf, &len);
	assert_non_null(o);
	struct ana_html_check ck = { "read_ops", "A 40, B 40", 1 };
	assert_int_equal(ana_report_html(&a, &a, &ck, 1, o), 0);
	fclose(o);
	assert_non_null(strstr(buf, "data-check=\"read_ops\" data-ok=\"1\""));
	assert_non_null(strstr(buf, "data-side=\"b\""));
	free(buf);
	ana_release(&a);
}

/* model --check's checks (ana_model_checks): each at its threshold and
 * past it, DLIO's AU compared where both sides have it, else the run's. */
static void test_model_checks(void **state)
{
	static const uint64_t h[ANA_SZ_BUCKETS] = { [3] = 10 };
	struct ana_model_side A = { .epochs = 2, .epochs_known = 1, .tid = 7,
				    .au_dlio = 0.900, .au_run = 0.800, .step_s = 0.100,
				    .batch = 32, .files = 100, .read_bytes = 1000000,
				    .rd_hist = h, .rand = 0.5, .order_rand = NAN };
	struct ana_model_side B = A;
	struct ana_checks k = { 0 };

	(void)state;
	B.au_dlio = 0.919;	/* 1.9 points: within 2 */
	B.read_bytes = 1019000;	/* +1.9% */
	ana_model_checks(&A, &B, &k);
	assert_int_equal(k.n, 8);
	assert_int_equal(k.failed, 0);
	assert_string_equal(k.v[4].name, "file_order_randomness");
	assert_non_null(strstr(k.v[4].detail, "n/a on both sides"));
	assert_non_null(strstr(k.v[7].detail, "as DLIO"));

	memset(&k, 0, sizeof(k));
	B.au_dlio = 0.921;	/* 2.1 points */
	B.files = 99;
	ana_model_checks(&A, &B, &k);
	assert_int_equal(k.failed, 2);
	assert_false(k.v[1].ok);	/* files */
	assert_false(k.v[7].ok);	/* accelerator_utilization */

	memset(&k, 0, sizeof(k));
	B = A;
	B.au_dlio = NAN;	/* then over the run: 0.800 vs 0.850 */
	B.au_run = 0.850;
	B.step_s = 0.106;	/* +6% */
	ana_model_checks(&A, &B, &k);
	assert_int_equal(k.failed, 2);
	assert_false(k.v[6].ok);
	assert_non_null(strstr(k.v[7].detail, "over the run"));
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/iotape-ana-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequential_1mib),
		cmocka_unit_test(test_file_wide),
		cmocka_unit_test(test_model_checks),
		cmocka_unit_test(test_ident_wide),
		cmocka_unit_test(test_staging_levels),
		cmocka_unit_test(test_random_4k),
		cmocka_unit_test(test_strided),
		cmocka_unit_test(test_order_inversions),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_file_order),
		cmocka_unit_test(test_cache_exact),
		cmocka_unit_test(test_cache_eof),
		cmocka_unit_test(test_pages_wide),
		cmocka_unit_test(test_cache_compact),
		cmocka_unit_test(test_three_epochs),
		cmocka_unit_test(test_epochs_after_imports),
		cmocka_unit_test(test_epoch_start),
		cmocka_unit_test(test_mmap_dataset),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_resources),
		cmocka_unit_test(test_latency_exact),
		cmocka_unit_test(test_latency_histogram),
		cmocka_unit_test(test_missing_layer_null),
		cmocka_unit_test(test_checkpoints),
		cmocka_unit_test(test_compute),
		cmocka_unit_test(test_block),
		cmocka_unit_test(test_pid_filter),
		cmocka_unit_test(test_damaged_block),
		cmocka_unit_test(test_ivset),
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_path_is_code),
		cmocka_unit_test(test_path_sort),
		cmocka_unit_test(test_path_sort_digits),
		cmocka_unit_test(test_path_front),
		cmocka_unit_test(test_dataset_python_job),
		cmocka_unit_test(test_epochs_few_shards),
		cmocka_unit_test(test_epochs_one_file),
		cmocka_unit_test(test_checkpoints_small),
		cmocka_unit_test(test_report_html),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		rc = rc ? rc : 1;
	return rc ? 1 : 0;
}
