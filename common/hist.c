/* SPDX-License-Identifier: MIT */
/*
 * hist.c - exact latency samples that become a log-linear histogram
 * (see hist.h for the error bound and the budget).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"

/* Lowest value of a bucket, and its width. */
static uint64_t bucket_lo(unsigned b, uint64_t *width)
{
	if (b < 256) {
		*width = 1;
		return b;
	}
	unsigned e = (b - 256) / CM_LAT_SUB + 8, sub = (b - 256) % CM_LAT_SUB;
	*width = 1ull << (e - 7);
	return (uint64_t)(CM_LAT_SUB + sub) << (e - 7);
}

/* Midpoint of a bucket (its only value below 256). */
static uint64_t bucket_mid(unsigned b)
{
	uint64_t w, lo = bucket_lo(b, &w);
	return lo + w / 2;
}

/* Exact value i. */
static inline uint64_t val(const struct cm_lat *l, size_t i)
{
	return l->v ? l->v[i] : l->v32[i];
}

static int to_hist(struct cm_lat *l, size_t *budget)
{
	uint32_t *h = calloc(CM_LAT_BUCKETS, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++)
		h[cm_lat_bucket(val(l, i))]++;
	if (budget)
		*budget += l->cap;	/* the exact values' room goes back */
	free(l->v);
	free(l->v32);
	l->v = NULL;
	l->v32 = NULL;
	l->n = l->cap = 0;
	l->hist = h;
	l->inexact = 1;
	return 0;
}

/* Room for nc exact values (in the width they have): 0 or -ENOMEM. */
static int grow(struct cm_lat *l, size_t nc)
{
	if (l->v) {
		uint64_t *a = realloc(l->v, nc * sizeof(*a));
		if (!a)
			return -ENOMEM;
		l->v = a;
	} else {
		uint32_t *a = realloc(l->v32, nc * sizeof(*a));
		if (!a)
			return -ENOMEM;
		l->v32 = a;
	}
	l->cap = nc;
	return 0;
}

/* The exact values in 64 bits from now on: 0 or -ENOMEM. */
static int widen(struct cm_lat *l)
{
	uint64_t *a = malloc((l->cap ? l->cap : 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++)
		a[i] = l->v32[i];
	free(l->v32);
	l->v32 = NULL;
	l->v = a;
	return 0;
}

int cm_lat_add_slow(struct cm_lat *l, uint64_t v, size_t *budget)
{
	if (!l->hist && l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 256;
		if (nc > CM_LAT_EXACT)
			nc = CM_LAT_EXACT;
		if (l->n >= CM_LAT_EXACT || (budget && *budget < nc - l->cap)) {
			if (to_hist(l, budget)) {
				l->dropped++;
				return -ENOMEM;
			}
		} else {
			size_t oc = l->cap;
			if (grow(l, nc)) {
				l->dropped++;
				return -ENOMEM;
			}
			if (budget)
				*budget -= nc - oc;
		}
	}
	if (!l->hist && !l->v && v > UINT32_MAX && widen(l)) {
		l->dropped++;
		return -ENOMEM;
	}
	cm_lat__put(l, v);
	return 0;
}

int cm_lat_merge(struct cm_lat *dst, const struct cm_lat *src, size_t *budget)
{
	if (!src->count)
		return 0;
	if (!dst->hist && !src->hist && dst->n + src->n <= CM_LAT_EXACT) {
		size_t need = dst->n + src->n, old = dst->cap;
		if (need > dst->cap && (!budget || *budget >= need - dst->cap)) {
			if (grow(dst, need))
				return -ENOMEM;
			if (budget)
				*budget -= need - old;
		}
		if (need <= dst->cap) {
			if (!dst->v && src->v && widen(dst))
				return -ENOMEM;
			for (size_t i = 0; i < src->n; i++) {
				uint64_t x = val(src, i);
				if (dst->v)
					dst->v[dst->n + i] = x;
				else
					dst->v32[dst->n + i] = (uint32_t)x;
			}
			dst->n = need;
			goto totals;
		}
	}
	if (!dst->hist && to_hist(dst, budget))
		return -ENOMEM;
	if (src->hist) {
		for (unsigned b = 0; b < CM_LAT_BUCKETS; b++)
			dst->hist[b] += src->hist[b];
	} else {
		for (size_t i = 0; i < src->n; i++)
			dst->hist[cm_lat_bucket(val(src, i))]++;
	}
totals:
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sq += src->sq;
	dst->dropped += src->dropped;
	return 0;
}

/*
 * LSD radix sort, 11-bit digits (the counts stay in the L1 cache),
 * skipping digits all values share; 0, or -ENOMEM (nothing sorted), and
 * the comparison qsort falls back on.  One body for the 64-bit samples
 * and the 32-bit ones (RADIX_SORT(name, type)).
 */
#define RADIX_BITS 11
#define RADIX_N (1u << RADIX_BITS)
#define RADIX_SORT(name, T)							\
static int cmp_##name(const void *a, const void *b)				\
{										\
	T x = *(const T *)a, y = *(const T *)b;					\
	return x < y ? -1 : x > y;						\
}										\
										\
static int radix_##name(T *v, size_t n)						\
{										\
	T *tmp = malloc(n * sizeof(*tmp)), *src = v, *dst = tmp;		\
	T all_or = 0, all_and = (T)~(T)0;					\
	size_t *cnt = malloc(RADIX_N * sizeof(*cnt));				\
										\
	if (!tmp || !cnt) {							\
		free(tmp);							\
		free(cnt);							\
		return -ENOMEM;							\
	}									\
	for (size_t i = 0; i < n; i++) {					\
		all_or |= v[i];							\
		all_and &= v[i];						\
	}									\
	for (unsigned sh = 0; sh < 8 * sizeof(T); sh += RADIX_BITS) {		\
		if ((((all_or ^ all_and) >> sh) & (RADIX_N - 1)) == 0)		\
			continue;	/* every value has the same digit here */	\
		memset(cnt, 0, RADIX_N * sizeof(*cnt));				\
		for (size_t i = 0; i < n; i++)					\
			cnt[(src[i] >> sh) & (RADIX_N - 1)]++;			\
		size_t sum = 0;							\
		for (size_t d = 0; d < RADIX_N; d++) {				\
			size_t c = cnt[d];					\
			cnt[d] = sum;						\
			sum += c;						\
		}								\
		for (size_t i = 0; i < n; i++)					\
			dst[cnt[(src[i] >> sh) & (RADIX_N - 1)]++] = src[i];	\
		T *t = src;							\
		src = dst;							\
		dst = t;							\
	}									\
	if (src != v)								\
		memcpy(v, src, n * sizeof(*v));					\
	free(tmp);								\
	free(cnt);								\
	return 0;								\
}
RADIX_SORT(u64, uint64_t)
RADIX_SORT(u32, uint32_t)

void cm_lat_finish(struct cm_lat *l)
{
	if (l->n < 2)
		return;
	if (l->v && radix_u64(l->v, l->n))
		qsort(l->v, l->n, sizeof(*l->v), cmp_u64);	/* no memory: in place */
	if (l->v32 && radix_u32(l->v32, l->n))
		qsort(l->v32, l->n, sizeof(*l->v32), cmp_u32);
}

uint64_t cm_lat_pct(const struct cm_lat *l, double p)
{
	uint64_t have = l->hist ? l->count : l->n;

	if (!have)
		return 0;
	uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)have - 1e-9);
	if (rank < 1)
		rank = 1;
	if (rank > have)
		rank = have;
	if (!l->hist)
		return val(l, rank - 1);
	if (rank == have)
		return l->max;
	if (rank == 1)
		return l->min;
	uint64_t seen = 0;
	for (unsigned b = 0; b < CM_LAT_BUCKETS; b++) {
		seen += l->hist[b];
		if (seen >= rank) {
			uint64_t m = bucket_mid(b);
			return m < l->min ? l->min : m > l->max ? l->max : m;
		}
	}
	return l->max;
}

double cm_lat_mean(const struct cm_lat *l)
{
	return l->count ? (double)l->sum / (double)l->count : 0;
}

double cm_lat_stddev(const struct cm_lat *l)
{
	if (l->count < 2)
		return 0;
	double n = (double)l->count, mean = (double)l->sum / n;
	double var = (l->sq - n * mean * mean) / (n - 1);
	return var > 0 ? sqrt(var) : 0;
}

uint64_t cm_lat_count_le(const struct cm_lat *l, uint64_t x)
{
	uint64_t c = 0;

	if (!l->hist) {
		size_t lo = 0, hi = l->n;	/* sorted: first value > x */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (val(l, mid) <= x)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo;
	}
	for (unsigned b = 0; b < CM_LAT_BUCKETS; b++) {
		uint64_t w, lo = bucket_lo(b, &w);
		if (lo > x)
			break;
		c += l->hist[b];
	}
	return c;
}

void cm_lat_release(struct cm_lat *l)
{
	free(l->v);
	free(l->v32);
	free(l->hist);
	memset(l, 0, sizeof(*l));
}
