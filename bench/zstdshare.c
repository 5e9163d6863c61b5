/* SPDX-License-Identifier: MIT */
/*
 * zstdshare.so - how much of a run's time libzstd takes.
 *
 *   LD_PRELOAD=.output/bench/zstdshare.so format_bench -m encode ...
 *
 * Wraps the two calls the trace library makes into libzstd,
 * ZSTD_compressCCtx and ZSTD_decompressDCtx (format/writer.c, reader.c,
 * expenc.c), times each with CLOCK_THREAD_CPUTIME_ID and, at exit, prints
 * on stderr
 *
 *   zstd_compress_calls=N zstd_compress_in=BYTES zstd_compress_out=BYTES
 *   zstd_compress_cpu_s=S   (and the same four for decompress)
 *
 * bench/run.sh sets these against the encode and decode times: the part of
 * the format's speed that zstd itself decides.  The clock reads add ~50 ns a
 * call, a few hundred calls a million events: nothing next to the figures.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zstd.h>

struct tally {
	unsigned long long calls, in, out;
	double cpu;
};

static struct tally comp, decomp;

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "zstdshare: %s not found\n", name);
		abort();
	}
	return f;
}

static void count(struct tally *t, double t0, size_t in, size_t r)
{
	t->cpu += cpu_now() - t0;
	t->calls++;
	t->in += in;
	if (!ZSTD_isError(r))
		t->out += r;
}

size_t ZSTD_compressCCtx(ZSTD_CCtx *cctx, void *dst, size_t cap, const void *src,
			 size_t len, int level)
{
	static size_t (*real)(ZSTD_CCtx *, void *, size_t, const void *, size_t, int);
	double t0;
	size_t r;

	if (!real)
		real = next("ZSTD_compressCCtx");
	t0 = cpu_now();
	r = real(cctx, dst, cap, src, len, level);
	count(&comp, t0, len, r);
	return r;
}

size_t ZSTD_decompressDCtx(ZSTD_DCtx *dctx, void *dst, size_t cap, const void *src,
			   size_t len)
{
	static size_t (*real)(ZSTD_DCtx *, void *, size_t, const void *, size_t);
	double t0;
	size_t r;

	if (!real)
		real = next("ZSTD_decompressDCtx");
	t0 = cpu_now();
	r = real(dctx, dst, cap, src, len);
	count(&decomp, t0, len, r);
	return r;
}

__attribute__((destructor)) static void report(void)
{
	fprintf(stderr,
		"zstd_compress_calls=%llu\nzstd_compress_in=%llu\nzstd_compress_out=%llu\n"
		"zstd_compress_cpu_s=%.4f\nzstd_decompress_calls=%llu\nzstd_decompress_in=%llu\n"
		"zstd_decompress_out=%llu\nzstd_decompress_cpu_s=%.4f\n",
		comp.calls, comp.in, comp.out, comp.cpu, decomp.calls, decomp.in, decomp.out,
		decomp.cpu);
}
