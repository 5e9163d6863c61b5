/* SPDX-License-Identifier: MIT */
/*
 * ana_stage.c - staging: the files worth a faster tier, from an analysis.
 *
 * Two orders of the same files (iotape-analyze(1), STAGING): by bytes
 * read per byte of size, for filling a tier of a given size (iotape
 * replay --stage-hot: ana_stage_pick), and by bytes read, for the fewest
 * files that carry a share of the reads (the levels).  Both are total
 * orders (ties by path), so a hand computation gets the same files.
 * Memory: a files[] index per file read; nothing here prints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"

const unsigned ana_stage_pcts[ANA_STAGE_LEVELS] = { 50, 80, 95 };

/* Bytes of f the job read: by read calls, and the pages faulted in
 * through its shared mapping (a data set read through mmap, which the
 * replay reads as it faulted them). */
static uint64_t stage_reads(const struct ana *a, const struct ana_file *f)
{
	return ana_file_read_bytes(a, f) +
	       (f->shared_map ? ana_file_mapped(a, f) * a->page_size : 0);
}

struct ana_stage_file ana_stage_of(const struct ana *a, uint32_t i)
{
	const struct ana_file *f = &a->files[i];
	struct ana_stage_file s = { .read_bytes = stage_reads(a, f), .size = ana_file_size(a, f),
				    .file = i };

	if (!s.size) {	/* a read moved bytes: its end is past 0 */
		s.size = ana_file_extent(a, i);
		if (!s.size)	/* only faulted in: what was */
			s.size = s.read_bytes;
	}
	return s;
}

/* bytes read per byte of size, most first (exact: cross products); the
 * ties are left in the order they came */
static int cmp_density(uint32_t i, uint32_t j, void *arg)
{
	const struct ana *an = arg;
	struct ana_stage_file a = ana_stage_of(an, i), b = ana_stage_of(an, j);
	unsigned __int128 l = (unsigned __int128)a.read_bytes * b.size;
	unsigned __int128 r = (unsigned __int128)b.read_bytes * a.size;

	return l != r ? (l > r ? -1 : 1) : 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

/* The files by path (strcmp), then by those keys: stable sorts, which
 * leave the ties in path order. */
void ana_stage_rank(const struct ana *a, uint32_t *f, size_t n)
{
	if (!n)	/* (f may be NULL) */
		return;
	if (a->sorder) {	/* the path order at hand: f's files in it */
		uint8_t *in = ana_tmp_calloc(a->nfiles + 1, 1);
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			in[f[i]] = 1;
		for (size_t i = 0; i < a->nfiles && k < n; i++)
			if (in[a->sorder[i]])
				f[k++] = a->sorder[i];
		ana_tmp_free(in);
	} else {
		ana_path_sort(a, f, n, 0);
	}
	/* (already in order when their densities are one: a data set read
	 * whole each epoch; seen in one pass, the files fetched ahead) */
	size_t i = 1;
	for (; i < n; i++) {
		if (i + 16 < n)
			__builtin_prefetch(&a->files[f[i + 16]]);
		if (cmp_density(f[i - 1], f[i], (void *)a) > 0)
			break;
	}
	if (i < n)
		ana_sort_u32(f, n, cmp_density, (void *)a);
}

uint64_t ana_stage_pick(const struct ana_stage_file *f, size_t n, uint64_t budget,
			uint8_t *chosen)
{
	uint64_t left = budget;

	for (size_t i = 0; i < n; i++) {
		chosen[i] = f[i].size <= left;
		if (chosen[i])
			left -= f[i].size;
	}
	return budget - left;
}

/* Whether f can be staged: a regular file with a path, on storage, read. */
static int stageable(const struct ana *a, const struct ana_file *f)
{
	return f->path && !f->not_regular && !f->anon && !f->dir && !f->memfs &&
	       stage_reads(a, f) && !ana_path_empty(a, f->path) && !ana_file_excluded(a, f);
}

/*
 * Each level's prefix of st's files by bytes read, most first, without
 * sorting them (a million files: no array of their reads): the reads of
 * the prefix's last file (last[k]) found a byte at a time, most
 * significant first, as the value v whose files, with those of more
 * reads, reach the level's share while those of more reads alone do not
 * (a radix select, over the bytes in which the reads differ); then the
 * files of v it takes (mk[k] in all), and their sum.
 */
static void level_reads(const struct ana *a, struct ana_staging *st, size_t *mk,
			uint64_t *last)
{
	uint64_t or_ = 0, and_ = ~0ull, above[ANA_STAGE_LEVELS] = { 0 };
	size_t n = st->n, gt[ANA_STAGE_LEVELS] = { 0 };
	unsigned __int128 want[ANA_STAGE_LEVELS];

	for (size_t i = 0; i < n; i++) {
		uint64_t r = ana_stage_of(a, st->f[i]).read_bytes;
		or_ |= r;
		and_ &= r;
	}
	uint64_t same = 0;	/* the bytes all reads share */
	for (unsigned b = 0; b < 8; b++)
		if (!(((or_ ^ and_) >> (8 * b)) & 0xff))
			same |= 0xffull << (8 * b);
	for (unsigned k = 0; k < ANA_STAGE_LEVELS; k++) {
		want[k] = (unsigned __int128)st->read_bytes * st->lv[k].pct;
		last[k] = and_ & same;
	}
	for (int b = 7; b >= 0; b--) {
		size_t cnt[ANA_STAGE_LEVELS][256] = { { 0 } };
		uint64_t sum[ANA_STAGE_LEVELS][256] = { { 0 } };
		unsigned sh = 8 * (unsigned)b;
		if (!(((or_ ^ and_) >> sh) & 0xff))
			continue;	/* the same byte everywhere */
		for (size_t i = 0; i < n; i++) {
			uint64_t r = ana_stage_of(a, st->f[i]).read_bytes;
			for (unsigned k = 0; k < ANA_STAGE_LEVELS; k++)
				if (b == 7 || r >> (sh + 8) == last[k] >> (sh + 8)) {
					cnt[k][(r >> sh) & 0xff]++;
					sum[k][(r >> sh) & 0xff] += r;
				}
		}
		for (unsigned k = 0; k < ANA_STAGE_LEVELS; k++)
			for (unsigned d = 256; d-- > 0;) {
				if ((unsigned __int128)(above[k] + sum[k][d]) * 100 >= want[k] || !d) {
					last[k] |= (uint64_t)d << sh;
					break;
				}
				above[k] += sum[k][d];
				gt[k] += cnt[k][d];
			}
	}
	for (unsigned k = 0; k < ANA_STAGE_LEVELS; k++) {
		/* the files of last[k] reads it takes: the fewest that reach */
		unsigned __int128 v = (unsigned __int128)last[k] * 100;
		uint64_t j = (uint64_t)((want[k] - (unsigned __int128)above[k] * 100 + v - 1) / v);
		st->lv[k].files = mk[k] = gt[k] + j;
		st->lv[k].read_bytes = above[k] + j * last[k];
		st->lv[k].bytes = 0;
	}
}

struct stage_job {
	const struct ana *a;
	struct ana_staging *st;
};

static int staging_job(void *arg)
{
	const struct ana *a = ((struct stage_job *)arg)->a;
	struct ana_staging *st = ((struct stage_job *)arg)->st;
	size_t n = 0;

	for (size_t i = 0; i < a->nfiles; i++)
		n += stageable(a, &a->files[i]);
	if (!n)
		return 0;
	st->f = ana_tmp_calloc(n, sizeof(*st->f));
	for (size_t i = 0; i < a->nfiles; i++) {
		const struct ana_file *f = &a->files[i];
		if (!stageable(a, f))
			continue;
		struct ana_stage_file s = ana_stage_of(a, (uint32_t)i);
		st->f[st->n++] = (uint32_t)i;
		st->by_extent += !ana_file_size(a, f);
		st->read_bytes += s.read_bytes;
		st->bytes += s.size;
	}
	/* the levels: the files by bytes read, most first (ties: the smaller,
	 * then by path), the prefix whose reads reach pct %.  Which of the
	 * files of equal reads and size it takes changes none of its sums:
	 * the reads alone say how many it takes (level_reads), and the sizes
	 * of those of the last one's reads which are taken */
	size_t mk[ANA_STAGE_LEVELS];
	uint64_t last[ANA_STAGE_LEVELS];
	level_reads(a, st, mk, last);
	/* the sizes: of the files of more reads than a level's last, and of
	 * its ties, the smallest it takes (one pass for all levels) */
	size_t gt[ANA_STAGE_LEVELS] = { 0 }, neq[ANA_STAGE_LEVELS] = { 0 };
	uint64_t *sz[ANA_STAGE_LEVELS];
	for (size_t i = 0; i < n; i++) {
		uint64_t r = ana_stage_of(a, st->f[i]).read_bytes;
		for (unsigned k = 0; k < ANA_STAGE_LEVELS; k++)
			neq[k] += r == last[k];
	}
	for (unsigned k = 0; k < ANA_STAGE_LEVELS; k++) {
		sz[k] = ana_tmp_calloc(neq[k] + 1, sizeof(*sz[k]));
		neq[k] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct ana_stage_file f = ana_stage_of(a, st->f[i]);
		for (unsigned k = 0; k < ANA_STAGE_LEVELS; k++) {
			if (f.read_bytes > last[k]) {
				gt[k]++;
				st->lv[k].bytes += f.size;
			} else if (f.read_bytes == last[k]) {
				sz[k][neq[k]++] = f.size;
			}
		}
	}
	for (unsigned k = 0; k < ANA_STAGE_LEVELS; k++) {
		qsort(sz[k], neq[k], sizeof(*sz[k]), cmp_u64);
		for (size_t i = 0; mk[k] && i < mk[k] - gt[k]; i++)
			st->lv[k].bytes += sz[k][i];
		ana_tmp_free(sz[k]);
	}
	return 0;
}

static int rank_job(void *arg)
{
	const struct ana *a = ((struct stage_job *)arg)->a;
	struct ana_staging *st = ((struct stage_job *)arg)->st;

	ana_stage_rank(a, st->f, st->n);
	st->ranked = 1;
	return 0;
}

int ana_staging_rank(const struct ana *a, struct ana_staging *st)
{
	struct stage_job j = { a, st };

	return st->ranked ? 0 : ana_guard_here(rank_job, &j);
}

int ana_staging_build(const struct ana *a, struct ana_staging *st)
{
	struct stage_job j = { a, st };

	memset(st, 0, sizeof(*st));
	for (unsigned k = 0; k < ANA_STAGE_LEVELS; k++)
		st->lv[k].pct = ana_stage_pcts[k];
	int err = ana_guard_here(staging_job, &j);
	if (err)
		ana_staging_release(st);
	return err;
}

void ana_staging_release(struct ana_staging *st)
{
	ana_tmp_free(st->f);
	memset(st, 0, sizeof(*st));
}
