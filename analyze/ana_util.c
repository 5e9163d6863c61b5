/* SPDX-License-Identifier: MIT */
/*
 * ana_util.c - containers and numbers for the analyzer: a 128-bit-key hash
 * map, latency samples (exact, then a log-linear histogram), an interval
 * set of page ranges, Kendall-tau order randomness, and the humanized
 * counts and ratios the text report needs beyond cm_fmt_bytes/cm_fmt_ns.
 *
 * None of these prints; allocation failure jumps to the thread's catch
 * point (ana_oom_catch): the analyzer cannot produce a partial result worth
 * keeping, but the caller gets -ENOMEM and one error line.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "analyze.h"

static __thread jmp_buf *oom_jb;
size_t ana_oom_after;

void ana_oom_catch(jmp_buf *jb)
{
	oom_jb = jb;
}

/* the cursors this thread has open (a pass reads two tables at most) */
#define ANA_NCUR 4
static __thread tape_cursor *open_cursors[ANA_NCUR];

int ana_cursor_open(tape_reader *r, int table, uint64_t t0, uint64_t t1, tape_cursor **c)
{
	int err = tape_cursor_open(r, table, t0, t1, c);
	for (int i = 0; !err && i < ANA_NCUR; i++)
		if (!open_cursors[i]) {
			open_cursors[i] = *c;
			break;
		}
	return err;
}

void ana_cursor_free(tape_cursor *c)
{
	for (int i = 0; c && i < ANA_NCUR; i++)
		if (open_cursors[i] == c)
			open_cursors[i] = NULL;
	tape_cursor_free(c);
}

#define ANA_NTMP 16
static __thread void *tmps[ANA_NTMP];

void *ana_tmp_calloc(size_t n, size_t sz)
{
	void *p = ana_xcalloc(n, sz);
	for (int i = 0; i < ANA_NTMP; i++)
		if (!tmps[i]) {
			tmps[i] = p;
			break;
		}
	return p;
}

void ana_tmp_free(void *p)
{
	for (int i = 0; p && i < ANA_NTMP; i++)
		if (tmps[i] == p)
			tmps[i] = NULL;
	free(p);
}

void ana_oom_cleanup(void)
{
	for (int i = 0; i < ANA_NCUR; i++) {
		tape_cursor_free(open_cursors[i]);
		open_cursors[i] = NULL;
	}
	for (int i = 0; i < ANA_NTMP; i++) {
		free(tmps[i]);
		tmps[i] = NULL;
	}
}

static void oom(size_t n)
{
	(void)n;
	if (oom_jb)
		longjmp(*oom_jb, 1);
	abort();	/* no catch point: a bug (see analyze.h) */
}

void ana_oom(void)
{
	oom(0);
}

int ana_guard(int (*fn)(void *arg), void *arg)
{
	jmp_buf jb;
	volatile int rc;

	if (setjmp(jb)) {
		oom_jb = NULL;
		ana_oom_cleanup();
		return -ENOMEM;
	}
	oom_jb = &jb;
	rc = fn(arg);
	oom_jb = NULL;
	return rc;
}

int ana_guard_here(int (*fn)(void *arg), void *arg)
{
	return oom_jb ? fn(arg) : ana_guard(fn, arg);
}

static int fail_now(void)
{
	size_t left = __atomic_load_n(&ana_oom_after, __ATOMIC_RELAXED);
	return left && __atomic_sub_fetch(&ana_oom_after, 1, __ATOMIC_RELAXED) == 0;
}

void *ana_xrealloc(void *p, size_t n)
{
	void *q = fail_now() ? NULL : realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

void *ana_xcalloc(size_t n, size_t sz)
{
	void *q = fail_now() ? NULL : calloc(n ? n : 1, sz ? sz : 1);
	if (!q)
		oom(n * sz);
	return q;
}

void *ana_xrealloc_lines(void *p, size_t old_n, size_t n)
{
	size_t al = n >= (1u << 20) ? (2u << 20) : 64;	/* big: on huge pages */
	n = (n + al - 1) & ~(al - 1);
	void *q = fail_now() ? NULL : aligned_alloc(al, n ? n : 64);
	if (!q)
		oom(n);
	if (al > 64)
		madvise(q, n, MADV_HUGEPAGE);
	if (p)
		memcpy(q, p, old_n < n ? old_n : n);
	free(p);
	return q;
}

struct prefault {
	void *p;
	size_t n;
};

static void *prefault_main(void *arg)
{
	struct prefault pf = *(struct prefault *)arg;

	free(arg);
	(void)madvise(pf.p, pf.n, MADV_POPULATE_WRITE);
	return NULL;
}

void ana_prefault(void *p, size_t n)
{
	uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)4095;
	struct prefault *pf;
	pthread_attr_t at;
	pthread_t th;

	if (e <= a || !(pf = malloc(sizeof(*pf))))
		return;
	*pf = (struct prefault){ (void *)a, e - a };
	if (pthread_attr_init(&at)) {
		free(pf);
		return;
	}
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &at, prefault_main, pf))
		free(pf);
	pthread_attr_destroy(&at);
}

char *ana_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(ana_xrealloc(NULL, n), s, n);
}

/* ------------------------------------------------------------ hash map */

uint64_t *ana_map_count(struct cm_map *m, uint64_t a, uint64_t b, int *added)
{
	uint64_t *v;
	/* the test hook counts the allocation a growing put makes */
	int grows = (m->used + 1) * 4 > m->cap * 3 && !cm_map_get(m, a, b);
	int rc = grows && fail_now() ? -ENOMEM : cm_map_put(m, a, b, &v);

	if (rc < 0)
		oom(0);
	*added = rc == 1;
	return v;
}

uint64_t *ana_map_put(struct cm_map *m, uint64_t a, uint64_t b)
{
	int added;
	uint64_t *v = ana_map_count(m, a, b, &added);

	if (added)
		*v = ANA_NONE;
	return v;
}

/* ---------------------------------------------------------- dense index */

uint32_t *ana_idx_put(struct ana_idx *x, uint64_t k, size_t limit)
{
	if (k >= limit)
		return NULL;
	if (k >= x->n) {
		size_t n = x->n ? x->n : 1024;
		while (n <= k)
			n *= 2;
		x->v = ana_xrealloc(x->v, n * sizeof(*x->v));
		memset(x->v + x->n, 0xff, (n - x->n) * sizeof(*x->v));	/* ANA_NONE */
		x->n = n;
	}
	return &x->v[k];
}

void ana_idx_reserve(struct ana_idx *x, size_t n)
{
	if (n <= x->n)
		return;
	x->v = ana_xrealloc(x->v, n * sizeof(*x->v));
	memset(x->v + x->n, 0xff, (n - x->n) * sizeof(*x->v));	/* ANA_NONE */
	x->n = n;
}

void ana_idx_release(struct ana_idx *x)
{
	free(x->v);
	memset(x, 0, sizeof(*x));
}

/* -------------------------------------------------------- interval set */

/* The intervals: inline while there is at most one (most files read
 * sequentially never hold more), on the heap beyond. */
static inline struct ana_ival *ivs(struct ana_ivset *set)
{
	return set->cap ? set->iv : &set->one;
}

/* Room for one more interval. */
static void iv_reserve(struct ana_ivset *set)
{
	if (!set->cap) {
		if (set->n < 1)
			return;
		struct ana_ival one = set->one;
		set->iv = ana_xrealloc(NULL, 4 * sizeof(*set->iv));
		set->iv[0] = one;
		set->cap = 4;
	} else if (set->n == set->cap) {
		set->cap *= 2;
		set->iv = ana_xrealloc(set->iv, set->cap * sizeof(*set->iv));
	}
}

/* First interval with e >= s (adjacent counts as touching). */
static uint32_t iv_lower(const struct ana_ival *iv, uint32_t n, uint64_t s)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (iv[mid].e < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ana_ivset_add_slow(struct ana_ivset *set, uint64_t s, uint64_t e, uint32_t max,
		       int64_t *dn)
{
	*dn = 0;
	if (s >= e)
		return 0;
	if (!set->cap && !set->n) {
		if (!max)
			return -1;
		set->one = (struct ana_ival){ s, e };
		set->n = 1;
		*dn = 1;
		return 0;
	}
	struct ana_ival *iv = ivs(set);
	uint32_t i = iv_lower(iv, set->n, s), j = i;
	while (j < set->n && iv[j].s <= e)
		j++;
	if (i == j) {	/* no overlap: insert at i */
		if (set->n >= max)
			return -1;
		iv_reserve(set);
		iv = ivs(set);
		memmove(&iv[i + 1], &iv[i], (set->n - i) * sizeof(*iv));
		iv[i] = (struct ana_ival){ s, e };
		set->n++;
		*dn = 1;
		return 0;
	}
	/* merge [i, j) with [s, e) into slot i */
	uint64_t ns = iv[i].s < s ? iv[i].s : s;
	uint64_t ne = iv[j - 1].e > e ? iv[j - 1].e : e;
	iv[i] = (struct ana_ival){ ns, ne };
	memmove(&iv[i + 1], &iv[j], (set->n - j) * sizeof(*iv));
	set->n -= j - i - 1;
	*dn = -(int64_t)(j - i - 1);
	return 0;
}

uint64_t ana_ivset_take_slow(struct ana_ivset *set, uint64_t s, uint64_t e, int64_t *dn)
{
	*dn = 0;
	if (s >= e || !set->n)
		return 0;
	struct ana_ival *iv = ivs(set);
	uint32_t i = iv_lower(iv, set->n, s + 1);	/* first with iv.e > s */
	uint32_t j = i;
	uint64_t taken = 0;
	while (j < set->n && iv[j].s < e) {
		uint64_t a = iv[j].s > s ? iv[j].s : s;
		uint64_t b = iv[j].e < e ? iv[j].e : e;
		taken += b - a;
		j++;
	}
	if (i == j)
		return 0;
	struct ana_ival keep[2];
	int nk = 0;
	if (iv[i].s < s)
		keep[nk++] = (struct ana_ival){ iv[i].s, s };
	if (iv[j - 1].e > e)
		keep[nk++] = (struct ana_ival){ e, iv[j - 1].e };
	int64_t delta = nk - (int64_t)(j - i);
	if (delta > 0) {	/* one interval split in two */
		iv_reserve(set);
		iv = ivs(set);
	}
	memmove(&iv[i + nk], &iv[j], (set->n - j) * sizeof(*iv));
	memcpy(&iv[i], keep, nk * sizeof(*keep));
	set->n = (uint32_t)((int64_t)set->n + delta);
	*dn = delta;
	return taken;
}

uint64_t ana_ivset_pages(const struct ana_ivset *set)
{
	const struct ana_ival *iv = set->cap ? set->iv : &set->one;
	uint64_t p = 0;
	for (uint32_t i = 0; i < set->n; i++)
		p += iv[i].e - iv[i].s;
	return p;
}

void ana_ivset_release(struct ana_ivset *set)
{
	if (set->cap)
		free(set->iv);
	memset(set, 0, sizeof(*set));
}

/* ------------------------------------------------------ order randomness */

/* Fenwick tree of counts over [0, 2^bits): how many added are <= v, and
 * add v.  (A tree of 2^16 entries at most: in the cache.) */
static inline uint32_t fen_le(const uint32_t *f, uint32_t v)
{
	uint32_t le = 0;
	for (uint32_t k = v + 1; k; k -= k & -k)
		le += f[k];
	return le;
}

static inline void fen_add(uint32_t *f, uint32_t v, uint32_t size)
{
	for (uint32_t k = v + 1; k <= size; k += k & -k)
		f[k]++;
}

/*
 * The pairs i < j with seq[i] > seq[j] (Kendall's discordant pairs), in
 * two passes of small Fenwick trees instead of one the size of the ranks:
 * the pairs whose ranks differ in their high half, counted on the high
 * halves; then, the values put in groups of the same high half (stably,
 * their low halves only), those of each group on its low halves.
 */
static uint64_t inversions(const uint32_t *seq, size_t n, uint32_t max)
{
	unsigned bits = 1;
	while (bits < 32 && (max >> bits))
		bits++;
	unsigned lo = bits / 2, hi = bits - lo;
	uint32_t nh = 1u << hi, nl = 1u << lo, lmask = nl - 1;
	uint32_t *fh = ana_tmp_calloc(nh + 1, sizeof(*fh));
	uint32_t *fl = ana_tmp_calloc(nl + 1, sizeof(*fl));
	size_t *at = ana_tmp_calloc(nh + 1, sizeof(*at));
	uint16_t *low = ana_tmp_calloc(n, sizeof(*low));
	uint64_t inv = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t h = seq[i] >> lo;
		inv += i - fen_le(fh, h);
		fen_add(fh, h, nh);
		at[h + 1]++;
	}
	for (uint32_t h = 0; h < nh; h++)
		at[h + 1] += at[h];
	for (size_t i = 0; i < n; i++)
		low[at[seq[i] >> lo]++] = (uint16_t)(seq[i] & lmask);
	/* (at[h] is now the end of group h) */
	size_t s = 0;
	for (uint32_t h = 0; h < nh; h++) {
		size_t e = at[h];
		if (e - s < 2) {
			s = e;
			continue;
		}
		memset(fl, 0, (nl + 1) * sizeof(*fl));
		for (size_t i = s; i < e; i++) {
			inv += (i - s) - fen_le(fl, low[i]);
			fen_add(fl, low[i], nl);
		}
		s = e;
	}
	ana_tmp_free(low);
	ana_tmp_free(at);
	ana_tmp_free(fl);
	ana_tmp_free(fh);
	return inv;
}

double ana_order_randomness(const uint32_t *seq, size_t n, double *tau)
{
	if (tau)
		*tau = NAN;
	if (n < 2)
		return NAN;
	uint32_t max = 0;
	for (size_t i = 0; i < n; i++)
		if (seq[i] > max)
			max = seq[i];
	uint64_t inv = inversions(seq, n, max);
	double pairs = (double)n * (double)(n - 1) / 2.0;
	double t = 1.0 - 2.0 * (double)inv / pairs;
	if (tau)
		*tau = t;
	return 1.0 - fabs(t);
}

/* ----------------------------------------------------------- humanized */

const char *ana_fmt_count(char *buf, uint64_t v)
{
	if (v < 10000)
		snprintf(buf, 32, "%llu", (unsigned long long)v);
	else if (v < 999500)
		snprintf(buf, 32, "%.1f k", v / 1e3);
	else if (v < 999500000)
		snprintf(buf, 32, "%.*f M", v < 9995000 ? 2 : v < 99950000 ? 1 : 0, v / 1e6);
	else
		snprintf(buf, 32, "%.*f G", v < 9995000000ull ? 2 : 1, v / 1e9);
	return buf;
}

const char *ana_fmt_ratio(char *buf, double v)
{
	if (isnan(v))
		snprintf(buf, 32, "n/a");
	else
		snprintf(buf, 32, "%.3f", v);
	return buf;
}
