/* SPDX-License-Identifier: MIT */
/*
 * analyze_bench.c - how fast is `iotape analyze`, and how much memory does
 * it hold, on a large synthetic training trace?
 *
 *   analyze_bench gen TRACE N     write a trace of about N events
 *                                 (ANALYZE_FILES: dataset files, default 20000)
 *   analyze_bench run TRACE [T]   analyse it (T = 1 or 2 threads), JSON
 *                                 report to /dev/null; prints key=value
 *   analyze_bench decode TRACE    only iterate the three event tables
 *                                 (the format library's share of the time)
 *
 * The trace, from a fixed seed: 4 DataLoader worker processes of 2 threads
 * each read a 20,000-file dataset in shuffled passes (open, 1-8 sequential
 * 128 KiB reads, close), the main process writes a 256 MiB checkpoint now
 * and then; each read brings a cache access event and, 3 times in 4, a cache
 * insert and a block request.  About 36 % syscall, 44 % cache, 19 % block
 * events.
 *
 * Run gen and run as separate processes so peak RSS is the analysis alone.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "analyze.h"

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

static long peak_rss_kib(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_maxrss;
}

static uint32_t NFILES = 20000;	/* ANALYZE_FILES overrides */
#define CHUNK (128u << 10)

static int gen(const char *path, uint64_t n)
{
	const char *nf = getenv("ANALYZE_FILES");
	if (nf && atoi(nf) > 0)
		NFILES = (uint32_t)atoi(nf);
	tape_writer *w;
	struct tape_writer_opts o = { .flags = TAPE_WRITE_FORCE };
	int err = tape_writer_open(&w, path, &o);
	if (err) {
		fprintf(stderr, "gen: %s: %s\n", path, tape_strerror(err));
		return 1;
	}
	char p[64];
	for (uint32_t i = 0; i < NFILES; i++) {
		snprintf(p, sizeof(p), "/data/train/shard_%05u.rec", i);
		struct tape_file f = { .ts_ns = 1, .file_id = i + 1, .dev = 8u << 20,
				       .inode = 1000 + i, .size = 8 * CHUNK, .mode = 0100644, .path = p };
		tape_writer_append(w, TAPE_TABLE_FILE, &f);
	}
	for (uint32_t pid = 100; pid <= 104; pid++) {
		struct tape_process pr = { .ts_ns = 1, .pid = pid, .tid = pid,
					   .ppid = pid == 100 ? 1 : 100,
					   .comm = pid == 100 ? "python" : "pt_data_worker",
					   .argv = "python train.py" };
		tape_writer_append(w, TAPE_TABLE_PROCESS, &pr);
	}
	uint32_t *order = malloc(NFILES * sizeof(*order));
	for (uint32_t i = 0; i < NFILES; i++)
		order[i] = i;
	uint64_t ts = 1000000000ull, ev = 0, sector = 0, k = NFILES, ckpt_at = 50000000;
	while (ev < n) {
		if (k == NFILES) {	/* a new epoch: reshuffle */
			for (uint32_t i = NFILES - 1; i > 0; i--) {
				uint32_t j = rnd() % (i + 1), x = order[i];
				order[i] = order[j];
				order[j] = x;
			}
			k = 0;
		}
		uint32_t fi = order[k++], worker = fi % 4, th = (uint32_t)(rnd() & 1);
		uint32_t pid = 101 + worker, tid = pid * 100 + th;
		struct tape_syscall s = { .pid = pid, .tid = tid, .fd = 10 + th, .file_id = fi + 1,
					  .path = "", .path2 = "" };
		s.ts_ns = ts += 2000;
		s.dur_ns = 3000;
		s.op = TAPE_OP_OPENAT;
		s.fd = -100;
		s.ret = 10 + th;
		tape_writer_append(w, TAPE_TABLE_SYSCALL, &s);
		s.fd = 10 + th;
		unsigned reads = 1 + rnd() % 8;
		for (unsigned r = 0; r < reads; r++) {
			s.ts_ns = ts += 5000 + rnd() % 20000;
			s.dur_ns = 20000 + rnd() % 200000;
			s.op = TAPE_OP_READ;
			s.offset = (uint64_t)r * CHUNK;
			s.size = CHUNK;
			s.ret = CHUNK;
			tape_writer_append(w, TAPE_TABLE_SYSCALL, &s);
			struct tape_cache c = { .ts_ns = s.ts_ns + 100, .pid = pid, .tid = tid,
						.kind = TAPE_CACHE_INSERT, .dev = 8u << 20, .inode = 1000 + fi,
						.file_id = fi + 1, .index = r * 32, .count = 32 };
			if (rnd() % 4) {	/* 3 in 4 reads miss */
				tape_writer_append(w, TAPE_TABLE_CACHE, &c);
				struct tape_block b = { .ts_ns = s.ts_ns + 200, .dur_ns = 50000 + rnd() % 100000,
							.pid = pid, .tid = tid, .dev = 8u << 20,
							.sector = sector, .bytes = CHUNK, .flags = TAPE_BLK_READ,
							.inode = 1000 + fi };
				sector = rnd() % 8 ? sector + CHUNK / 512 : rnd() % (1u << 30);
				tape_writer_append(w, TAPE_TABLE_BLOCK, &b);
				ev += 2;
			}
			c.kind = TAPE_CACHE_ACCESS;
			c.ts_ns += 50;
			tape_writer_append(w, TAPE_TABLE_CACHE, &c);
			ev += 2;
		}
		s.ts_ns = ts += 2000;
		s.dur_ns = 2000;
		s.op = TAPE_OP_CLOSE;
		s.ret = 0;
		tape_writer_append(w, TAPE_TABLE_SYSCALL, &s);
		ev += 2;
		if (ev >= ckpt_at) {	/* a 256 MiB checkpoint from the main process */
			ckpt_at += 50000000;
			struct tape_syscall c = { .pid = 100, .tid = 100, .fd = 20, .file_id = 900000,
						  .path = "/ckpt/model.pt", .path2 = "" };
			c.ts_ns = ts += 1000;
			c.op = TAPE_OP_OPENAT;
			c.ret = 20;
			tape_writer_append(w, TAPE_TABLE_SYSCALL, &c);
			c.path = "";
			for (int i = 0; i < 256; i++) {
				c.ts_ns = ts += 1000000;
				c.dur_ns = 800000;
				c.op = TAPE_OP_WRITE;
				c.offset = (uint64_t)i << 20;
				c.size = c.ret = 1 << 20;
				tape_writer_append(w, TAPE_TABLE_SYSCALL, &c);
			}
			c.ts_ns = ts += 1000000;
			c.op = TAPE_OP_FSYNC;
			c.ret = 0;
			tape_writer_append(w, TAPE_TABLE_SYSCALL, &c);
			ev += 258;
		}
	}
	free(order);
	uint64_t total = tape_writer_events(w);
	err = tape_writer_close(w);
	if (err) {
		fprintf(stderr, "gen: %s: %s\n", path, tape_strerror(err));
		return 1;
	}
	printf("events=%" PRIu64 "\n", total);
	return 0;
}

static uint64_t trace_events(tape_reader *r)
{
	uint64_t n = 0;
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		struct tape_table_stats st;
		if (tape_reader_table_stats(r, t, &st) == 0)
			n += st.events;
	}
	return n;
}

static int decode(const char *path)
{
	tape_reader *r;
	int err = tape_reader_open(&r, path);
	if (err)
		return 1;
	double t0 = now(), c0 = cpu_s();
	uint64_t n = 0, sink = 0;
	const int tabs[] = { TAPE_TABLE_SYSCALL, TAPE_TABLE_CACHE, TAPE_TABLE_BLOCK };
	for (int i = 0; i < 3; i++) {
		tape_cursor *c;
		const void *evs;
		size_t k;
		if (tape_cursor_open(r, tabs[i], 0, UINT64_MAX, &c))
			return 1;
		while (tape_cursor_next_block(c, &evs, &k) > 0) {
			n += k;
			sink += *(const uint64_t *)evs;
		}
		tape_cursor_free(c);
	}
	double dt = now() - t0, dc = cpu_s() - c0;
	printf("decode_events=%" PRIu64 "\ndecode_s=%.3f\ndecode_mev_s=%.1f\n"
	       "decode_cpu_s=%.3f\ndecode_mev_per_cpu_s=%.1f\n",
	       n, dt, n / dt / 1e6, dc, n / dc / 1e6);
	tape_reader_free(r);
	return sink == 42;	/* never: keeps the loop */
}

static int run(const char *path, int threads)
{
	struct ana a;
	struct ana_opts o = { .top = -1, .to_ns = UINT64_MAX, .threads = threads };
	double c0 = cpu_s(), t0 = now();
	int err = ana_run(&a, path, &o);
	if (err) {
		fprintf(stderr, "run: %s: %s\n", path, tape_strerror(err));
		return 1;
	}
	double t1 = now();
	FILE *f = fopen("/dev/null", "w");
	ana_report_json(&a, f);
	fclose(f);
	double t2 = now(), c2 = cpu_s();
	uint64_t n = trace_events(a.r);
	printf("events=%" PRIu64 "\nthreads=%d\nanalyze_s=%.3f\nreport_s=%.3f\n"
	       "events_per_s=%.0f\nmev_s=%.1f\ncpu_s=%.3f\nmev_per_cpu_s=%.1f\npeak_rss_kib=%ld\n"
	       "epochs=%zu\ncheckpoints=%zu\nhit_ratio=%.4f\nread_randomness=%.4f\n",
	       n, threads, t1 - t0, t2 - t1, n / (t2 - t0), n / (t2 - t0) / 1e6, c2 - c0,
	       n / (c2 - c0) / 1e6, peak_rss_kib(),
	       ana_epoch_count(&a), a.nckpts, ana_hit_ratio(a.cache.accessed, a.cache.missed),
	       ana_read_randomness(&a));
	ana_release(&a);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "gen") == 0)
		return gen(argv[2], strtoull(argv[3], NULL, 10));
	if (argc >= 3 && strcmp(argv[1], "run") == 0)
		return run(argv[2], argc > 3 ? atoi(argv[3]) : 1);
	if (argc >= 3 && strcmp(argv[1], "decode") == 0)
		return decode(argv[2]);
	fprintf(stderr, "usage: analyze_bench gen TRACE N | run TRACE [1|2] | decode TRACE\n");
	return 2;
}
