/* SPDX-License-Identifier: MIT */
/*
 * hist.h - latency samples: exact, then a mergeable log-linear histogram.
 *
 * A struct cm_lat keeps exact values while there are at most CM_LAT_EXACT
 * of them and the owner's budget (a count of exact values it may still
 * store, shared by the owner's cm_lats) allows; then it switches to a
 * log-linear histogram: values below 256 exact, above that 128 sub-buckets
 * per power of two, so a percentile read at the bucket midpoint is within
 * 0.4 % of the value (fio's histogram, FIO_IO_U_PLAT, is within 1.6 %).
 * A budget of 0 makes it a histogram from the first value: fixed size
 * (CM_LAT_BUCKETS counters, 29 KiB), whatever the number of values.
 *
 * The exact values take 4 bytes each while every one fits 32 bits (4.3 s
 * of nanoseconds: almost always), 8 once one does not.
 *
 * Count, min, max, sum and sum of squares are always exact.  Two cm_lats
 * merge into one (cm_lat_merge), exactly while both are exact and the
 * budget allows, else as histograms.  Errors are -ENOMEM; a cm_lat whose
 * add failed has dropped that value (l->dropped counts them).
 */
#ifndef IOTAPE_COMMON_HIST_H
#define IOTAPE_COMMON_HIST_H

#include <stddef.h>
#include <stdint.h>

#define CM_LAT_EXACT (1u << 20)
#define CM_LAT_SUB 128
#define CM_LAT_BUCKETS (256 + 56 * CM_LAT_SUB)

struct cm_lat {
	/* the exact values (both NULL once a histogram): in v32 while each
	 * fits 32 bits, else in v */
	uint64_t *v;
	uint32_t *v32;
	size_t n, cap;
	uint32_t *hist;	  /* CM_LAT_BUCKETS counters once a histogram */
	uint64_t count, min, max;
	uint64_t sum;	  /* ns: overflows after 584 years of latency */
	double sq;	  /* sum of squares, for the standard deviation */
	uint64_t dropped; /* values an allocation failure lost */
	int inexact;	  /* a histogram: percentiles within 0.4 % */
};

/* Histogram bucket of v. */
static inline unsigned cm_lat_bucket(uint64_t v)
{
	if (v < 256)
		return (unsigned)v;
	unsigned e = 63 - (unsigned)__builtin_clzll(v);	/* >= 8 */
	unsigned sub = (unsigned)(v >> (e - 7)) - CM_LAT_SUB;	/* 0..127 */
	return 256 + (e - 8) * CM_LAT_SUB + sub;
}

/* The exact figures of one more value (cm_lat_add's part). */
static inline void cm_lat__count(struct cm_lat *l, uint64_t v)
{
	if (l->count == 0 || v < l->min)
		l->min = v;
	if (v > l->max)
		l->max = v;
	l->count++;
	l->sum += v;
	l->sq += (double)v * (double)v;
}

/* Count v and keep it, in the histogram or as an exact value (there is
 * room: the caller saw to it). */
static inline void cm_lat__put(struct cm_lat *l, uint64_t v)
{
	cm_lat__count(l, v);
	if (l->hist)
		l->hist[cm_lat_bucket(v)]++;
	else if (l->v)
		l->v[l->n++] = v;
	else
		l->v32[l->n++] = (uint32_t)v;
}

/* budget: the exact values the owner may still store (NULL: no limit but
 * CM_LAT_EXACT).  0 or -ENOMEM (the value is dropped). */
int cm_lat_add_slow(struct cm_lat *l, uint64_t v, size_t *budget);
static inline int cm_lat_add(struct cm_lat *l, uint64_t v, size_t *budget)
{
	/* the common cases: room for an exact value (one that fits, where
	 * they take 32 bits), or a histogram already */
	if (l->hist || (l->n < l->cap && (l->v || v <= UINT32_MAX))) {
		cm_lat__put(l, v);
		return 0;
	}
	return cm_lat_add_slow(l, v, budget);
}
/* Add every value of src to dst (src unchanged): 0 or -ENOMEM (dst then
 * unchanged).  budget as for cm_lat_add. */
int cm_lat_merge(struct cm_lat *dst, const struct cm_lat *src, size_t *budget);
/* Prepare for cm_lat_pct (sorts the exact values). */
void cm_lat_finish(struct cm_lat *l);
/* Nearest-rank percentile p in (0, 100]: the smallest x with >= p % of
 * the values <= x (after cm_lat_finish); 0 when empty. */
uint64_t cm_lat_pct(const struct cm_lat *l, double p);
double cm_lat_mean(const struct cm_lat *l);
/* Sample standard deviation (n - 1), 0 below two values. */
double cm_lat_stddev(const struct cm_lat *l);
/* Values <= x (after cm_lat_finish); with a histogram, whole buckets. */
uint64_t cm_lat_count_le(const struct cm_lat *l, uint64_t x);
void cm_lat_release(struct cm_lat *l);

#endif /* IOTAPE_COMMON_HIST_H */
