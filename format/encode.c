/* SPDX-License-Identifier: MIT */
/*
 * encode.c - integer column encodings (RAW, VARINT, ZVARINT, DELTA, BITPACK,
 * DBITPACK, DICT), the growable buffer and the error detail.
 *
 * The encoder picks, per column and block, the smallest of BITPACK,
 * DBITPACK, PBITPACK, DPBITPACK and DICT without trial encodings: the plain
 * sizes come exactly from one statistics pass (AVX2 where the CPU has it),
 * the patched ones are estimated from the bit lengths of 1 value in 8, and
 * the dictionary stops collecting once it cannot win.  The varint
 * encodings are read everywhere and written when forced (tests) or when a
 * future writer prefers them.
 * Decoders trust nothing: every read is bounded, every count checked, and
 * the data must be used exactly.
 */
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "tape_internal.h"
#include "tape_vec.h"

int tape__force_encoding;
int tape__no_predict;

static __thread char err_detail[512];

int tape__fail(int err, const char *fmt, ...)
{
	char msg[sizeof(err_detail)];	/* fmt's arguments may be err_detail */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memcpy(err_detail, msg, sizeof(msg));
	return err;
}

const char *tape_error_detail(void)
{
	return err_detail;
}

const char *tape_strerror(int err)
{
	switch (-err) {
	case EILSEQ: return "not an iotape trace";
	case EBADMSG: return "damaged trace data";
	case EPROTONOSUPPORT: return "unsupported trace format version";
	case ENOTSUP: return "unsupported trace feature";
	case E2BIG: return "value too large for the format";
	default: return strerror(err < 0 ? -err : err);
	}
}

int buf_reserve(struct buf *b, size_t extra)
{
	return TAPE_VEC_GROW(b->p, b->cap, b->len + extra, 4096);
}

void buf_release(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

int rd_varint_slow(struct rd *r, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			return -EBADMSG;
		uint8_t c = *r->p++;
		if (shift == 63 && c > 1)
			return -EBADMSG; /* more than 64 bits */
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -EBADMSG;
}

static inline unsigned bit_width(uint64_t x)
{
	return x ? 64 - (unsigned)__builtin_clzll(x) : 0;
}

static inline size_t packed_bytes(size_t n, unsigned w)
{
	return (n * w + 7) / 8;
}

/* The exceptions of a patched bit-packing, found while packing: the
 * groups of 8 values that hold one at least. */
struct patch {
	uint32_t *groups;
	size_t n;
};

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Bit j set where t[j] - base (j < 8) has bits from w up. */
static inline unsigned wide_bits8(const uint64_t *t, uint64_t base, unsigned w)
{
	unsigned m = 0;
	for (unsigned j = 0; j < 8; j++)
		m |= (unsigned)((t[j] - base) >> w != 0) << j;
	return m;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
__attribute__((target("avx2"))) static inline unsigned
wide_bits8_avx2(const uint64_t *t, uint64_t base, unsigned w)
{
	const __m256i b = _mm256_set1_epi64x((int64_t)base), zero = _mm256_setzero_si256();
	const __m128i c = _mm_cvtsi32_si128((int)w);
	__m256i lo = _mm256_loadu_si256((const __m256i *)t);
	__m256i hi = _mm256_loadu_si256((const __m256i *)(t + 4));
	lo = _mm256_cmpeq_epi64(_mm256_srl_epi64(_mm256_sub_epi64(lo, b), c), zero);
	hi = _mm256_cmpeq_epi64(_mm256_srl_epi64(_mm256_sub_epi64(hi, b), c), zero);
	unsigned m = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(lo)) |
		     (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(hi)) << 4;
	return ~m & 0xff;
}
#endif

/* Write at p the exceptions (index gap, value >> w) of t[0..n) minus base:
 * those of the groups x found, then of the values after the last whole
 * group.  Returns the end; *nexc gets their count. */
static inline __attribute__((always_inline)) uint8_t *
put_exceptions_t(uint8_t *p, const uint64_t *t, size_t n, const struct patch *x,
		 uint64_t base, unsigned w, size_t *nexc, const int avx2)
{
	/* the first gap is the index itself: from a last index of 0 */
	size_t cnt = 0, last = 0, ng = x->n;
	for (size_t g = 0; g <= ng; g++) {
		size_t i = g < ng ? 8 * (size_t)x->groups[g] : n / 8 * 8;
		unsigned m;
		if (g == ng) {
			m = 0;
			for (size_t j = i; j < n; j++)
				m |= (unsigned)((t[j] - base) >> w != 0) << (j - i);
		} else {
#if defined(__x86_64__) && defined(__GNUC__)
			m = avx2 ? wide_bits8_avx2(t + i, base, w) : wide_bits8(t + i, base, w);
#else
			m = wide_bits8(t + i, base, w);
#endif
		}
		while (m) {
			size_t k = i + (unsigned)__builtin_ctz(m);
			m &= m - 1;
			uint64_t gap = k - last, hi = (t[k] - base) >> w;
			if ((gap | hi) < 0x80) {
				p[0] = (uint8_t)gap;
				p[1] = (uint8_t)hi;
				p += 2;
			} else {
				p = put_varint(p, gap);
				p = put_varint(p, hi);
			}
			last = k;
			cnt++;
		}
	}
	*nexc = cnt;
	return p;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static uint8_t *
put_exceptions_avx2(uint8_t *p, const uint64_t *t, size_t n, const struct patch *x,
		    uint64_t base, unsigned w, size_t *nexc)
{
	return put_exceptions_t(p, t, n, x, base, w, nexc, 1);
}
#endif

static uint8_t *put_exceptions(uint8_t *p, const uint64_t *t, size_t n, const struct patch *x,
			       uint64_t base, unsigned w, size_t *nexc)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2"))
		return put_exceptions_avx2(p, t, n, x, base, w, nexc);
#endif
	return put_exceptions_t(p, t, n, x, base, w, nexc, 0);
}

/*
 * Packing mirrors the unpacking below: value j of a stream of width w starts
 * at bit j*w, so each group of 8 values starts on a byte boundary and
 * fills exactly w bytes.  pack_groups_w() has one copy per width where
 * every shift and store of the 8 values is a constant; a group's last
 * store may write up to 7 bytes past it, which the next group (or the 8
 * bytes of slack every caller reserves) absorbs.  With x (patched
 * widths, below 64), the groups holding a value wider than w are noted
 * in x: one test per group.
 */
static inline __attribute__((always_inline)) uint8_t *
pack_groups_w(uint8_t *p, const uint64_t *t, size_t groups, uint64_t base,
	      const unsigned w, struct patch *x)
{
	const uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
	for (size_t g = 0; g < groups; g++, t += 8) {
		uint64_t acc = 0, any = 0;
		unsigned nb = 0, o = 0;
		_Pragma("GCC unroll 8")
		for (unsigned j = 0; j < 8; j++) {
			uint64_t v = t[j] - base, lo = v & mask;
			any |= v;
			acc |= lo << nb;
			if (nb + w >= 64) {
				uint64_t le = htole64(acc);
				memcpy(p + o, &le, 8);
				o += 8;
				acc = nb ? lo >> (64 - nb) : 0;
				nb = nb + w - 64;
			} else {
				nb += w;
			}
		}
		if (nb) {
			uint64_t le = htole64(acc);
			memcpy(p + o, &le, 8);
		}
		if (x && w < 64 && __builtin_expect(any >> (w & 63), 0))
			x->groups[x->n++] = (uint32_t)g;
		p += w;
	}
	return p;
}

#define PACK_WIDTHS \
	W(1) W(2) W(3) W(4) W(5) W(6) W(7) W(8) W(9) W(10) W(11) W(12) W(13) \
	W(14) W(15) W(16) W(17) W(18) W(19) W(20) W(21) W(22) W(23) W(24) \
	W(25) W(26) W(27) W(28) W(29) W(30) W(31) W(32) W(33) W(34) W(35) \
	W(36) W(37) W(38) W(39) W(40) W(41) W(42) W(43) W(44) W(45) W(46) \
	W(47) W(48) W(49) W(50) W(51) W(52) W(53) W(54) W(55) W(56) W(57) \
	W(58) W(59) W(60) W(61) W(62) W(63)

static uint8_t *pack_groups(uint8_t *p, const uint64_t *t, size_t groups,
			    uint64_t base, unsigned w)
{
	switch (w) {
#define W(n) case n: return pack_groups_w(p, t, groups, base, n, NULL);
	PACK_WIDTHS W(64)
#undef W
	}
	return p;
}

/* pack_groups() finding the exceptions (w below 64) on the way. */
static uint8_t *pack_groups_patched(uint8_t *p, const uint64_t *t, size_t groups,
				    uint64_t base, unsigned w, struct patch *x)
{
	switch (w) {
#define W(n) case n: return pack_groups_w(p, t, groups, base, n, x);
	PACK_WIDTHS
#undef W
	}
	return p;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* pack_groups(), or with x pack_groups_patched(), for widths 1 to 16: the
 * 8 values of a group shifted to their bit positions in 2 vectors of 4,
 * each ORed down to one word of 4w bits, the group being the first word
 * then the second.  A group's store may reach 7 bytes past it, as above. */
__attribute__((target("avx2"))) static uint8_t *
pack_groups16_avx2(uint8_t *p, const uint64_t *t, size_t groups, uint64_t base,
		   unsigned w, struct patch *x)
{
	const __m256i b = _mm256_set1_epi64x((int64_t)base);
	const __m256i mask = _mm256_set1_epi64x((int64_t)((1ull << w) - 1));
	const __m256i wide = _mm256_set1_epi64x((int64_t)~((1ull << w) - 1));
	const __m256i sh = _mm256_setr_epi64x(0, w, 2 * w, 3 * w);
	/* shift counts of 64 give 0 (w == 16) */
	const __m128i sl = _mm_cvtsi32_si128((int)(4 * w)), sr = _mm_cvtsi32_si128((int)(64 - 4 * w));
	for (size_t g = 0; g < groups; g++, t += 8) {
		__m256i v0 = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)t), b);
		__m256i v1 = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(t + 4)), b);
		if (x && !_mm256_testz_si256(_mm256_or_si256(v0, v1), wide))
			x->groups[x->n++] = (uint32_t)g;
		__m256i a = _mm256_sllv_epi64(_mm256_and_si256(v0, mask), sh);
		__m256i c = _mm256_sllv_epi64(_mm256_and_si256(v1, mask), sh);
		__m128i a2 = _mm_or_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
		__m128i c2 = _mm_or_si128(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1));
		/* the two words, then the group's low and high 64 bits */
		__m128i ac = _mm_or_si128(_mm_unpacklo_epi64(a2, c2), _mm_unpackhi_epi64(a2, c2));
		__m128i cc = _mm_unpackhi_epi64(ac, ac);
		__m128i lo = _mm_or_si128(ac, _mm_sll_epi64(cc, sl));
		if (w <= 8)
			_mm_storel_epi64((__m128i *)p, lo);
		else
			_mm_storeu_si128((__m128i *)p, _mm_unpacklo_epi64(lo, _mm_srl_epi64(cc, sr)));
		p += w;
	}
	return p;
}

/* The same for widths 17 to 32: each half of a group (4w bits, 68 to 128)
 * ORed down to two words, a value at bit jw going to the first word
 * shifted left by jw and to the second shifted right by 64 - jw, or left
 * by jw - 64 (AVX2 shifts by 64 or more give 0); the second half goes
 * 4w bits after the first. */
__attribute__((target("avx2"))) static uint8_t *
pack_groups32_avx2(uint8_t *p, const uint64_t *t, size_t groups, uint64_t base,
		   unsigned w, struct patch *x)
{
	const int64_t iw = (int64_t)w;
	const __m256i b = _mm256_set1_epi64x((int64_t)base);
	const __m256i mask = _mm256_set1_epi64x((int64_t)((1ull << w) - 1));
	const __m256i wide = _mm256_set1_epi64x((int64_t)~((1ull << w) - 1));
	const __m256i s0 = _mm256_setr_epi64x(0, iw, 2 * iw, 3 * iw);
	const __m256i s1 = _mm256_setr_epi64x(64, 64 - iw, 64 - 2 * iw, 64 - 3 * iw);
	const __m256i s2 = _mm256_setr_epi64x(-64, iw - 64, 2 * iw - 64, 3 * iw - 64);
	const __m128i sl = _mm_cvtsi32_si128((int)(4 * w - 64)), sr = _mm_cvtsi32_si128((int)(128 - 4 * w));
	for (size_t g = 0; g < groups; g++, t += 8) {
		__m256i v0 = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)t), b);
		__m256i v1 = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(t + 4)), b);
		if (x && !_mm256_testz_si256(_mm256_or_si256(v0, v1), wide))
			x->groups[x->n++] = (uint32_t)g;
		v0 = _mm256_and_si256(v0, mask);
		v1 = _mm256_and_si256(v1, mask);
		__m256i a0 = _mm256_sllv_epi64(v0, s0);
		__m256i a1 = _mm256_or_si256(_mm256_srlv_epi64(v0, s1), _mm256_sllv_epi64(v0, s2));
		__m256i c0 = _mm256_sllv_epi64(v1, s0);
		__m256i c1 = _mm256_or_si256(_mm256_srlv_epi64(v1, s1), _mm256_sllv_epi64(v1, s2));
		/* each half's two words */
		__m256i za = _mm256_or_si256(_mm256_unpacklo_epi64(a0, a1), _mm256_unpackhi_epi64(a0, a1));
		__m256i zc = _mm256_or_si256(_mm256_unpacklo_epi64(c0, c1), _mm256_unpackhi_epi64(c0, c1));
		__m128i ha = _mm_or_si128(_mm256_castsi256_si128(za), _mm256_extracti128_si256(za, 1));
		__m128i hc = _mm_or_si128(_mm256_castsi256_si128(zc), _mm256_extracti128_si256(zc, 1));
		/* the group's 4 words: the first half, the second from bit 4w */
		__m128i cl = _mm_sll_epi64(hc, sl), cr = _mm_srl_epi64(hc, sr);
		_mm_storeu_si128((__m128i *)p, _mm_or_si128(ha, _mm_slli_si128(cl, 8)));
		__m128i hi = _mm_or_si128(cr, _mm_srli_si128(cl, 8));
		if (w <= 24)
			_mm_storel_epi64((__m128i *)(p + 16), hi);
		else
			_mm_storeu_si128((__m128i *)(p + 16), hi);
		p += w;
	}
	return p;
}

/* The groups of 8 of t with a value other than base, into x (width 0). */
__attribute__((target("avx2"))) static void
note_groups0_avx2(const uint64_t *t, size_t groups, uint64_t base, struct patch *x)
{
	const __m256i b = _mm256_set1_epi64x((int64_t)base);
	for (size_t g = 0; g < groups; g++, t += 8) {
		__m256i v0 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)t), b);
		__m256i v1 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(t + 4)), b);
		__m256i v = _mm256_or_si256(v0, v1);
		if (!_mm256_testz_si256(v, v))
			x->groups[x->n++] = (uint32_t)g;
	}
}
#endif

/* Write the low w bits of (t[i] - base) for n values, LSB first, at p
 * (packed_bytes(n, w) + 8 bytes there); with x, note the groups of 8 with
 * exceptions of a patched width w < 64 too.  Returns the end of the
 * packed bytes. */
static uint8_t *pack_to(uint8_t *p, const uint64_t *t, size_t n, unsigned w, uint64_t base,
			struct patch *x)
{
	const uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
	uint64_t acc = 0;
	unsigned nb = 0;

	if (w == 0) {
		/* nothing to pack: every value not base is an exception */
#if defined(__x86_64__) && defined(__GNUC__)
		if (x && __builtin_cpu_supports("avx2")) {
			note_groups0_avx2(t, n / 8, base, x);
			return p;
		}
#endif
		for (size_t g = 0; x && g < n / 8; g++) {
			uint64_t any = 0;
			_Pragma("GCC unroll 8")
			for (unsigned j = 0; j < 8; j++)
				any |= t[8 * g + j] ^ base;
			if (__builtin_expect(any != 0, 0))
				x->groups[x->n++] = (uint32_t)g;
		}
		return p;
	}
#if defined(__x86_64__) && defined(__GNUC__)
	if (w <= 16 && __builtin_cpu_supports("avx2"))
		p = pack_groups16_avx2(p, t, n / 8, base, w, x);
	else if (w <= 32 && __builtin_cpu_supports("avx2"))
		p = pack_groups32_avx2(p, t, n / 8, base, w, x);
	else
#endif
	if (x)
		p = pack_groups_patched(p, t, n / 8, base, w, x);
	else
		p = pack_groups(p, t, n / 8, base, w);
	for (size_t i = n / 8 * 8; i < n; i++) {
		uint64_t x = (t[i] - base) & mask;
		acc |= x << nb;
		if (nb + w >= 64) {
			uint64_t le = htole64(acc);
			memcpy(p, &le, 8);
			p += 8;
			acc = nb ? x >> (64 - nb) : 0;
			nb = nb + w - 64;
		} else {
			nb += w;
		}
	}
	for (unsigned i = 0; i < nb; i += 8)
		*p++ = (uint8_t)(acc >> i);
	return p;
}

/* Append the low w bits of (t[i] - base) for n values, LSB first; the
 * caller reserved packed_bytes(n, w) + 8 bytes. */
static void pack(struct buf *b, const uint64_t *t, size_t n, unsigned w, uint64_t base)
{
	b->len = (size_t)(pack_to(b->p + b->len, t, n, w, base, NULL) - b->p);
}

/* ------------------------------------------------------------ encoder */

struct dict {
	uint64_t keys[2 * TAPE_MAX_DICT];
	int16_t slot[2 * TAPE_MAX_DICT];   /* -1 empty, else index into vals */
	uint64_t vals[TAPE_MAX_DICT];
	unsigned n;
};

static inline unsigned dict_hash(uint64_t v)
{
	return (unsigned)((v * 0x9E3779B97F4A7C15ull) >> 55); /* 9 bits */
}

/* Collect distinct values; 0 when more than maxn (<= TAPE_MAX_DICT). */
static int dict_build(struct dict *d, const uint64_t *v, size_t n, unsigned maxn)
{
	memset(d->slot, 0xff, sizeof(d->slot));
	d->n = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned h = dict_hash(v[i]);
		while (d->slot[h] >= 0 && d->keys[h] != v[i])
			h = (h + 1) & (2 * TAPE_MAX_DICT - 1);
		if (d->slot[h] < 0) {
			if (d->n == maxn)
				return 0;
			d->keys[h] = v[i];
			d->slot[h] = (int16_t)d->n;
			d->vals[d->n++] = v[i];
		}
	}
	return 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sort the dictionary and rewrite slots to sorted positions. */
static void dict_sort(struct dict *d)
{
	qsort(d->vals, d->n, sizeof(d->vals[0]), cmp_u64);
	for (unsigned i = 0; i < d->n; i++) {
		unsigned h = dict_hash(d->vals[i]);
		while (d->keys[h] != d->vals[i] || d->slot[h] < 0)
			h = (h + 1) & (2 * TAPE_MAX_DICT - 1);
		d->slot[h] = (int16_t)i;
	}
}

static inline unsigned dict_index(const struct dict *d, uint64_t v)
{
	unsigned h = dict_hash(v);
	while (d->keys[h] != v || d->slot[h] < 0)
		h = (h + 1) & (2 * TAPE_MAX_DICT - 1);
	return (unsigned)d->slot[h];
}

static int encode_varints(struct buf *out, const uint64_t *v, size_t n, int mode)
{
	int err = buf_reserve(out, n * 10 + 10);
	if (err)
		return err;
	uint64_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t x = v[i];
		if (mode == ENC_ZVARINT)
			x = zigzag(x);
		else if (mode == ENC_DELTA) {
			x = zigzag(v[i] - prev);
			prev = v[i];
		}
		buf_put_varint(out, x);
	}
	return 0;
}

/* Pick the width for a patched bit-packing of n values whose bit lengths
 * are counted in h[0..maxw], each count standing for scale values;
 * returns the estimated bytes past the base. */
static size_t pfor_plan(const uint32_t *h, unsigned scale, size_t n, unsigned maxw,
			unsigned *wout)
{
	size_t best = SIZE_MAX, above = 0;
	unsigned x0 = maxw;
	/* The values above x only get fewer as x grows: the widths with at
	 * most 1 in 8 above them (the others are no exceptions) are x0 on. */
	while (x0 > 0 && (above + (size_t)h[x0] * scale) * 8 <= n)
		above += (size_t)h[x0--] * scale;
	/* the bit lengths above x0 that occur (empty ones add nothing) */
	unsigned bl[65], k = 0, j = 0;
	size_t cnt[65];
	for (unsigned b = x0 + 1; b <= maxw; b++)
		if (h[b]) {
			bl[k] = b;
			cnt[k++] = (size_t)h[b] * scale;
		}
	for (unsigned x = x0; x <= maxw; x++) {
		size_t nexc = 0, exc = 0;
		while (j < k && bl[j] <= x)
			j++;
		for (unsigned i = j; i < k; i++) {
			nexc += cnt[i];
			exc += cnt[i] * (1 + (bl[i] - x + 6) / 7);
		}
		size_t sz = 1 + varint_size(nexc) + packed_bytes(n, x) + exc + (nexc ? nexc / 4 : 0);
		if (sz < best) {
			best = sz;
			*wout = x;
		}
	}
	return best;
}

/* The histograms of bit lengths that plan a patched width look at one
 * value in PFOR_STRIDE: the plan only needs the shape of the distribution
 * (the exceptions themselves are found exactly when packing). */
#define PFOR_STRIDE 8

/* h[bit length of (v[i] - base)]++, or with delta of (zigzag(v[i] -
 * v[i - 1]) - base), for i = delta, delta + stride, ... below n.  One copy
 * per stride, so the loop unrolls. */
static inline __attribute__((always_inline)) void
hist_w(uint32_t *h, const uint64_t *v, size_t n, uint64_t base, const unsigned stride,
       const int delta)
{
	_Pragma("GCC unroll 4")
	for (size_t i = (size_t)delta; i < n; i += stride)
		h[bit_width((delta ? zigzag(v[i] - v[i - 1]) : v[i]) - base)]++;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* hist() for stride PFOR_STRIDE with LZCNT, defined at 0: counted by
 * leading zeros, without a test for 0. */
__attribute__((target("lzcnt"))) static void
hist_lzcnt(uint32_t *h, const uint64_t *v, size_t n, uint64_t base, int delta)
{
	uint32_t z[65] = { 0 };
	if (delta) {
		_Pragma("GCC unroll 4")
		for (size_t i = 1; i < n; i += PFOR_STRIDE)
			z[_lzcnt_u64(zigzag(v[i] - v[i - 1]) - base)]++;
	} else {
		_Pragma("GCC unroll 4")
		for (size_t i = 0; i < n; i += PFOR_STRIDE)
			z[_lzcnt_u64(v[i] - base)]++;
	}
	for (unsigned k = 0; k <= 64; k++)
		h[64 - k] += z[k];
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
/* LZCNT (CPUID 0x80000001, ECX bit 5, "ABM"): asked of CPUID itself, as
 * __builtin_cpu_supports("lzcnt") is GCC's alone (clang builds the fuzzer). */
static int have_lzcnt(void)
{
	static int known = -1;
	if (known < 0) {
		unsigned a, b, c, d;
		known = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 5));
	}
	return known;
}
#endif

static void hist(uint32_t *h, const uint64_t *v, size_t n, uint64_t base, unsigned stride,
		 int delta)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (stride == PFOR_STRIDE && have_lzcnt()) {
		hist_lzcnt(h, v, n, base, delta);
		return;
	}
#endif
	if (stride == PFOR_STRIDE && delta)
		hist_w(h, v, n, base, PFOR_STRIDE, 1);
	else if (stride == PFOR_STRIDE)
		hist_w(h, v, n, base, PFOR_STRIDE, 0);
	else if (delta)
		hist_w(h, v, n, base, 1, 1);
	else
		hist_w(h, v, n, base, 1, 0);
}

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static __thread struct enc_scratch *scratch_tls;

static void scratch_free(void *p)
{
	struct enc_scratch *s = p;
	free(s->t);
	free(s->groups);
	ZSTD_freeCCtx(s->xcctx);
	ZSTD_freeDCtx(s->xdctx);
	buf_release(&s->x);
	free(s);
}

static void scratch_key_init(void)
{
	if (pthread_key_create(&scratch_key, scratch_free))
		abort();
}

struct enc_scratch *tape__scratch(void)
{
	if (!scratch_tls) {
		pthread_once(&scratch_once, scratch_key_init);
		struct enc_scratch *s = calloc(1, sizeof(*s));
		if (!s || pthread_setspecific(scratch_key, s)) {
			free(s);
			return NULL;
		}
		scratch_tls = s;
	}
	return scratch_tls;
}

/* Patched bit-packing of t[0..n) minus base: the packed low width bits,
 * then the exceptions as (index gap, value >> width).  Their count goes
 * before the packed bits, and is known after them: the bits and the
 * exceptions are written leaving room for the largest count, n, and moved
 * down when the count is shorter. */
static int put_patched(struct buf *out, const uint64_t *t, size_t n, unsigned width,
		       uint64_t base)
{
	struct enc_scratch *sc = tape__scratch();
	size_t room = varint_size(n), len = packed_bytes(n, width), nexc;
	int err;

	if (!sc)
		return -ENOMEM;
	if (n / 8 >= sc->gcap) {
		uint32_t *g = realloc(sc->groups, (n / 8 + 1) * sizeof(*g));
		if (!g)
			return -ENOMEM;
		sc->groups = g;
		sc->gcap = n / 8 + 1;
	}
	/* at most one exception per value, 20 bytes each */
	if ((err = buf_reserve(out, 1 + room + len + 8 + 20 * n)))
		return err;
	struct patch x = { sc->groups, 0 };
	buf_put_u8(out, (uint8_t)width);
	uint8_t *bits = out->p + out->len + room;
	pack_to(bits, t, n, width, base, &x);
	uint8_t *end = put_exceptions(bits + len, t, n, &x, base, width, &nexc);
	size_t vs = varint_size(nexc);
	if (vs < room)
		memmove(bits - (room - vs), bits, (size_t)(end - bits));
	buf_put_varint(out, nexc);
	out->len += (size_t)(end - bits);
	return 0;
}

/* Min and max of v[0..n) (n >= 1), and of zigzag(v[i] - v[i-1]) for
 * i >= 1 (UINT64_MAX and 0 when n == 1), from i0 on. */
static inline void stats_scalar(const uint64_t *v, size_t i0, size_t n, uint64_t *mn,
				uint64_t *mx, uint64_t *dmn, uint64_t *dmx)
{
	uint64_t min = *mn, max = *mx, dmin = *dmn, dmax = *dmx, prev = v[i0 - 1];
	for (size_t i = i0; i < n; i++) {
		uint64_t x = v[i], d = zigzag(x - prev);
		prev = x;
		min = x < min ? x : min;
		max = x > max ? x : max;
		dmin = d < dmin ? d : dmin;
		dmax = d > dmax ? d : dmax;
	}
	*mn = min, *mx = max, *dmn = dmin, *dmx = dmax;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same, 4 values at a time.  AVX2 compares signed 64-bit lanes, so the
 * lanes hold values with the sign bit flipped (x ^ 2^63), which orders
 * them as unsigned. */
__attribute__((target("avx2"))) static void
stats_avx2(const uint64_t *v, size_t n, uint64_t *mn, uint64_t *mx, uint64_t *dmn,
	   uint64_t *dmx)
{
	const __m256i sign = _mm256_set1_epi64x(INT64_MIN), zero = _mm256_setzero_si256();
	__m256i fmin = _mm256_set1_epi64x((int64_t)(v[0] ^ (1ull << 63)));
	__m256i fmax = fmin;
	__m256i fdmin = _mm256_set1_epi64x(INT64_MAX), fdmax = sign;
	size_t i = 1;
	_Pragma("GCC unroll 4")
	for (; i + 4 <= n; i += 4) {
		__m256i x = _mm256_loadu_si256((const __m256i *)(v + i));
		__m256i p = _mm256_loadu_si256((const __m256i *)(v + i - 1));
		__m256i d = _mm256_sub_epi64(x, p);
		__m256i z = _mm256_xor_si256(_mm256_slli_epi64(d, 1), _mm256_cmpgt_epi64(zero, d));
		__m256i fx = _mm256_xor_si256(x, sign), fz = _mm256_xor_si256(z, sign);
		fmin = _mm256_blendv_epi8(fmin, fx, _mm256_cmpgt_epi64(fmin, fx));
		fmax = _mm256_blendv_epi8(fmax, fx, _mm256_cmpgt_epi64(fx, fmax));
		fdmin = _mm256_blendv_epi8(fdmin, fz, _mm256_cmpgt_epi64(fdmin, fz));
		fdmax = _mm256_blendv_epi8(fdmax, fz, _mm256_cmpgt_epi64(fz, fdmax));
	}
	uint64_t a[4], b[4], c[4], e[4];
	_mm256_storeu_si256((__m256i *)a, fmin);
	_mm256_storeu_si256((__m256i *)b, fmax);
	_mm256_storeu_si256((__m256i *)c, fdmin);
	_mm256_storeu_si256((__m256i *)e, fdmax);
	uint64_t min = UINT64_MAX, max = 0, dmin = UINT64_MAX, dmax = 0;
	for (int j = 0; j < 4; j++) {
		uint64_t x = a[j] ^ (1ull << 63), y = b[j] ^ (1ull << 63);
		uint64_t dz = c[j] ^ (1ull << 63), dx = e[j] ^ (1ull << 63);
		min = x < min ? x : min;
		max = y > max ? y : max;
		dmin = dz < dmin ? dz : dmin;
		dmax = dx > dmax ? dx : dmax;
	}
	*mn = min, *mx = max, *dmn = dmin, *dmx = dmax;
	if (i < n)
		stats_scalar(v, i, n, mn, mx, dmn, dmx);
}
#endif

static void col_stats(const uint64_t *v, size_t n, uint64_t *mn, uint64_t *mx,
		      uint64_t *dmn, uint64_t *dmx)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (n >= 16 && __builtin_cpu_supports("avx2")) {
		stats_avx2(v, n, mn, mx, dmn, dmx);
		return;
	}
#endif
	*mn = *mx = v[0];
	*dmn = UINT64_MAX;
	*dmx = 0;
	if (n > 1)
		stats_scalar(v, 1, n, mn, mx, dmn, dmx);
}

/* The least difference v[i] - v[i-1] as a signed number (0 for n < 2). */
static uint64_t exp_dmin(const uint64_t *v, size_t n)
{
	int64_t dm = INT64_MAX;
	if (n < 2)
		return 0;
	for (size_t i = 1; i < n; i++) {
		int64_t x = (int64_t)(v[i] - v[i - 1]);
		dm = x < dm ? x : dm;
	}
	return (uint64_t)dm;
}

/* t[i - 1] = zigzag(v[i] - v[i - 1]) - dmin for 1 <= i < n. */
static inline void deltas_scalar(uint64_t *t, const uint64_t *v, size_t i, size_t n,
				 uint64_t dmin)
{
	for (; i < n; i++)
		t[i - 1] = zigzag(v[i] - v[i - 1]) - dmin;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void
deltas_avx2(uint64_t *t, const uint64_t *v, size_t n, uint64_t dmin)
{
	const __m256i zero = _mm256_setzero_si256(), m = _mm256_set1_epi64x((int64_t)dmin);
	size_t i = 1;
	for (; i + 4 <= n; i += 4) {
		__m256i x = _mm256_loadu_si256((const __m256i *)(v + i));
		__m256i p = _mm256_loadu_si256((const __m256i *)(v + i - 1));
		__m256i d = _mm256_sub_epi64(x, p);
		__m256i z = _mm256_xor_si256(_mm256_slli_epi64(d, 1), _mm256_cmpgt_epi64(zero, d));
		_mm256_storeu_si256((__m256i *)(t + i - 1), _mm256_sub_epi64(z, m));
	}
	deltas_scalar(t, v, i, n, dmin);
}
#endif

static void deltas(uint64_t *t, const uint64_t *v, size_t n, uint64_t dmin)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2")) {
		deltas_avx2(t, v, n, dmin);
		return;
	}
#endif
	deltas_scalar(t, v, 1, n, dmin);
}

/*
 * The plan of one integer column: its statistics, the encoding chosen and
 * the size it was chosen for.  tape_int_encode() fills it in steps, each
 * step may replace the choice by a smaller one, then writes the column.
 */
struct int_plan {
	uint64_t min, max, dmin, dmax;
	unsigned w, dw;		/* plain widths of values - min and of deltas */
	unsigned pw, dpw;	/* patched widths (PBITPACK, DPBITPACK) */
	size_t dn;		/* deltas: n - 1 */
	uint64_t dm;		/* DEXP's least difference, when considered */
	unsigned stride;	/* sampling of the bit-length histograms */
	int have_h1;
	uint32_t h1[65];	/* bit lengths of v[i] - min, when taken: PBITPACK's and EXP's plan */
	size_t best;
	int choice;
};

/* The plain bit-packed sizes, exact from one statistics pass: BITPACK
 * against DBITPACK. */
static void plan_plain(struct int_plan *p, const uint64_t *v, size_t n)
{
	/* Statistics of the values and of their zigzag'ed deltas, one pass. */
	if (n) {
		col_stats(v, n, &p->min, &p->max, &p->dmin, &p->dmax);
		if (n == 1)
			p->dmin = 0;
	}
	p->w = bit_width(p->max - p->min);
	p->dw = bit_width(p->dmax - p->dmin);
	p->dn = n ? n - 1 : 0;
	size_t bp = varint_size(p->min) + 1 + packed_bytes(n, p->w);
	size_t dbp = varint_size(n ? v[0] : 0) + varint_size(p->dmin) + 1 + packed_bytes(p->dn, p->dw);
	p->choice = bp <= dbp ? ENC_BITPACK : ENC_DBITPACK;
	p->best = bp <= dbp ? bp : dbp;
	p->pw = p->w;
	p->dpw = p->dw;
	/* few values: look at all of them */
	p->stride = n >= 64 * PFOR_STRIDE ? PFOR_STRIDE : 1;
}

/* Frame of reference with exceptions: a narrower width for most values,
 * the few wide ones patched (residual columns are mostly 0). */
static void plan_patched(struct int_plan *p, const uint64_t *v, size_t n)
{
	uint32_t h2[65] = { 0 };
	size_t pb = SIZE_MAX, dpb = SIZE_MAX;
	/* only the variant that can win: the plain widths bound them */
	if (p->w >= 6 && packed_bytes(n, p->w) / 2 < p->best) {
		hist(p->h1, v, n, p->min, p->stride, 0);
		p->have_h1 = 1;
		pb = pfor_plan(p->h1, p->stride, n, p->w, &p->pw) + varint_size(p->min) + 1;
	}
	if (p->dw >= 6 && packed_bytes(p->dn, p->dw) / 2 < p->best) {
		hist(h2, v, n, p->dmin, p->stride, 1);
		dpb = pfor_plan(h2, p->stride, p->dn, p->dw, &p->dpw) + varint_size(n ? v[0] : 0) +
		      varint_size(p->dmin) + 1;
	}
	if (p->pw < p->w && pb < p->best) {
		p->best = pb;
		p->choice = ENC_PBITPACK;
	}
	if (p->dpw < p->dw && dpb < p->best) {
		p->best = dpb;
		p->choice = ENC_DPBITPACK;
	}
}

/* EXP and DEXP (1.1): each value's own bit length, the lengths
 * entropy-coded; for columns spread over several octaves.  The exponents
 * are zstd'ed inside the encoding, so only when the caller allows it
 * (ENC_CHOOSE_ALL) or forces one of them.  Decoding them costs ~5x a
 * bit-packed value, so they must save a bit a value. */
static void plan_exp(struct int_plan *p, const uint64_t *v, size_t n, int force)
{
	uint32_t h[65];
	if (p->w >= 6 || force == ENC_EXP) {
		if (!p->have_h1)
			hist(p->h1, v, n, p->min, p->stride, 0);
		size_t eb = varint_size(p->min) + tape__exp_estimate(p->h1, n);
		if (eb + n / 8 < p->best || force == ENC_EXP) {
			p->best = eb;
			p->choice = ENC_EXP;
		}
	}
	if (p->dw >= 6 || force == ENC_DEXP) {
		p->dm = exp_dmin(v, n);
		memset(h, 0, sizeof(h));
		for (size_t i = 1; i < n; i += p->stride)
			h[bit_width(v[i] - v[i - 1] - p->dm)]++;
		size_t db = varint_size(n ? v[0] : 0) + varint_size(zigzag(p->dm)) +
			    tape__exp_estimate(h, p->dn);
		if (db + n / 8 < p->best || force == ENC_DEXP) {
			p->best = db;
			p->choice = ENC_DEXP;
		}
	}
}

/* DICT, when its values are few enough to beat the best so far (or it is
 * forced); returns whether the dictionary d was built. */
static int plan_dict(struct int_plan *p, struct dict *d, const uint64_t *v, size_t n, int force)
{
	/* A dictionary of m entries takes at least 2 + m bytes besides its
	 * packed indices: stop collecting where it can no longer win. */
	unsigned maxn = force == ENC_DICT ? TAPE_MAX_DICT : 0;
	for (unsigned b = 0; !force && b <= 8; b++) {
		size_t fixed = 3 + packed_bytes(n, b);
		if (fixed >= p->best)
			break;
		size_t m = p->best - fixed < (1u << b) ? p->best - fixed : (1u << b);
		maxn = m > maxn ? (unsigned)m : maxn;
	}
	if (!maxn || !((force == ENC_DICT) || (!force && (p->w < p->dw ? p->w : p->dw) > 8)))
		return 0;
	if (!dict_build(d, v, n, maxn))
		return 0;
	size_t ds = varint_size(d->n) + 1 + packed_bytes(n, bit_width(d->n ? d->n - 1 : 0));
	for (unsigned i = 0; i < d->n; i++)
		ds += varint_size(d->vals[i]);
	if (ds < p->best) {
		p->best = ds;
		p->choice = ENC_DICT;
	}
	return 1;
}

/* The per-thread scratch of n transformed values, kept between columns,
 * into *t (NULL while nothing was ever needed); 0 or -ENOMEM. */
static int int_scratch(size_t n, uint64_t **t)
{
	struct enc_scratch *sc = tape__scratch();
	if (!sc)
		return -ENOMEM;
	if (n > sc->tcap) {
		uint64_t *nt = realloc(sc->t, n * sizeof(*nt));
		if (!nt)
			return -ENOMEM;
		sc->t = nt;
		sc->tcap = n;
	}
	*t = sc->t;
	return 0;
}

/* Write v[0..n) in the encoding p chose; t is the scratch of n values
 * the transforming encodings need, d DICT's dictionary. */
static int int_put(struct buf *out, const uint64_t *v, size_t n, const struct int_plan *p,
		   struct dict *d, uint64_t *t)
{
	int err = -EINVAL;

	switch (p->choice) {
	case ENC_RAW:
		if ((err = buf_reserve(out, n * 8)))
			break;
		for (size_t i = 0; i < n; i++) {
			put_le64(out->p + out->len, v[i]);
			out->len += 8;
		}
		err = 0;
		break;
	case ENC_VARINT:
	case ENC_ZVARINT:
	case ENC_DELTA:
		err = encode_varints(out, v, n, p->choice);
		break;
	case ENC_BITPACK: {
		if ((err = buf_reserve(out, 11 + packed_bytes(n, p->w) + 8)))
			break;
		buf_put_varint(out, p->min);
		buf_put_u8(out, (uint8_t)p->w);
		pack(out, v, n, p->w, p->min);
		err = 0;
		break;
	}
	case ENC_DBITPACK: {
		deltas(t, v, n, p->dmin);
		if ((err = buf_reserve(out, 21 + packed_bytes(p->dn, p->dw) + 8)))
			break;
		buf_put_varint(out, n ? v[0] : 0);
		buf_put_varint(out, p->dmin);
		buf_put_u8(out, (uint8_t)p->dw);
		pack(out, t, p->dn, p->dw, 0);
		err = 0;
		break;
	}
	case ENC_PBITPACK: {
		if ((err = buf_reserve(out, 10)))
			break;
		buf_put_varint(out, p->min);
		err = put_patched(out, v, n, p->pw, p->min);
		break;
	}
	case ENC_DPBITPACK: {
		deltas(t, v, n, p->dmin);
		if ((err = buf_reserve(out, 20)))
			break;
		buf_put_varint(out, n ? v[0] : 0);
		buf_put_varint(out, p->dmin);
		err = put_patched(out, t, p->dn, p->dpw, 0);
		break;
	}
	case ENC_EXP:
		for (size_t i = 0; i < n; i++)
			t[i] = v[i] - p->min;
		if ((err = buf_reserve(out, 10)))
			break;
		buf_put_varint(out, p->min);
		err = tape__exp_put(out, t, n);
		break;
	case ENC_DEXP: {
		/* dm was found when DEXP was considered (always, for a choice
		 * or a force of DEXP) */
		for (size_t i = 1; i < n; i++)
			t[i - 1] = v[i] - v[i - 1] - p->dm;
		if ((err = buf_reserve(out, 20)))
			break;
		buf_put_varint(out, n ? v[0] : 0);
		buf_put_varint(out, zigzag(p->dm));
		err = tape__exp_put(out, t, p->dn);
		break;
	}
	case ENC_DICT: {
		dict_sort(d);
		unsigned width = bit_width(d->n ? d->n - 1 : 0);
		for (size_t i = 0; i < n; i++)
			t[i] = dict_index(d, v[i]);
		if ((err = buf_reserve(out, 11 + 10 * d->n + 1 + packed_bytes(n, width) + 8)))
			break;
		buf_put_varint(out, d->n);
		for (unsigned i = 0; i < d->n; i++)
			buf_put_varint(out, d->vals[i]);
		buf_put_u8(out, (uint8_t)width);
		pack(out, t, n, width, 0);
		err = 0;
		break;
	}
	}
	return err;
}

int tape_int_encode(const uint64_t *v, size_t n, struct buf *out,
		    uint8_t *enc, int force)
{
	static __thread struct dict d;
	struct int_plan p = { 0 };
	int err, have_dict, allow_all = force == ENC_CHOOSE_ALL;

	if (allow_all)
		force = 0;
	plan_plain(&p, v, n);
	if ((p.w >= 6 || p.dw >= 6) && (force == 0 || force == ENC_PBITPACK || force == ENC_DPBITPACK))
		plan_patched(&p, v, n);
	if ((allow_all && n >= 2 && (p.w >= 6 || p.dw >= 6)) || force == ENC_EXP || force == ENC_DEXP)
		plan_exp(&p, v, n, force);
	have_dict = plan_dict(&p, &d, v, n, force);
	if (force) {
		if (force == ENC_DICT && !have_dict)
			force = ENC_BITPACK; /* too many distinct values */
		p.choice = force;
	}
	/* patched widths stop at 63: the exceptions carry the top bits */
	p.pw = p.pw > 63 ? 63 : p.pw;
	p.dpw = p.dpw > 63 ? 63 : p.dpw;
	*enc = (uint8_t)p.choice;

	/* transformed values: a per-thread scratch kept between columns */
	uint64_t *t = NULL;
	if (p.choice == ENC_DBITPACK || p.choice == ENC_DPBITPACK || p.choice == ENC_DICT ||
	    p.choice == ENC_EXP || p.choice == ENC_DEXP) {
		if ((err = int_scratch(n, &t)))
			return err;
	}
	/* w == 0 and BITPACK: every value is min, nothing to pack */
	if (p.choice == ENC_BITPACK && p.w == 0) {
		if ((err = buf_reserve(out, 11)))
			return err;
		buf_put_varint(out, p.min);
		buf_put_u8(out, 0);
		return 0;
	}
	return int_put(out, v, n, &p, &d, t);
}

/* ------------------------------------------------- zigzag of columns */

static inline void zigzag_scalar(uint64_t *x, size_t i, size_t k)
{
	for (; i < k; i++)
		x[i] = zigzag(x[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void zigzag_avx2(uint64_t *x, size_t k)
{
	const __m256i zero = _mm256_setzero_si256();
	size_t i = 0;
	_Pragma("GCC unroll 4")
	for (; i + 4 <= k; i += 4) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(x + i));
		__m256i s = _mm256_cmpgt_epi64(zero, v);	/* all ones when negative */
		_mm256_storeu_si256((__m256i *)(x + i),
				    _mm256_xor_si256(_mm256_slli_epi64(v, 1), s));
	}
	zigzag_scalar(x, i, k);
}
#endif

/* x[i] = zigzag(x[i]) for i < k. */
void tape_zigzag_n(uint64_t *x, size_t k)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2")) {
		zigzag_avx2(x, k);
		return;
	}
#endif
	zigzag_scalar(x, 0, k);
}

static inline void unzigzag_scalar(uint64_t *x, size_t i, size_t k)
{
	for (; i < k; i++)
		x[i] = unzigzag(x[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void unzigzag_avx2(uint64_t *x, size_t k)
{
	const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256();
	size_t i = 0;
#define UNZZ(j) do {								\
		__m256i v = _mm256_loadu_si256((const __m256i *)(x + i + (j)));	\
		__m256i s = _mm256_sub_epi64(zero, _mm256_and_si256(v, one));	\
		_mm256_storeu_si256((__m256i *)(x + i + (j)),			\
				    _mm256_xor_si256(_mm256_srli_epi64(v, 1), s)); \
	} while (0)
	/* 16 values a turn: the loop's own instructions are a third of the
	 * work at 4 */
	for (; i + 16 <= k; i += 16) {
		UNZZ(0);
		UNZZ(4);
		UNZZ(8);
		UNZZ(12);
	}
	for (; i + 4 <= k; i += 4)
		UNZZ(0);
#undef UNZZ
	unzigzag_scalar(x, i, k);
}
#endif

/* x[i] = unzigzag(x[i]) for i < k. */
void tape_unzigzag_n(uint64_t *x, size_t k)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2")) {
		unzigzag_avx2(x, k);
		return;
	}
#endif
	unzigzag_scalar(x, 0, k);
}

/* x[i] = prev += unzigzag(x[i]) for i < k; returns the last prev. */
static inline uint64_t undelta_scalar(uint64_t *x, size_t i, size_t k, uint64_t prev)
{
	for (; i < k; i++)
		x[i] = prev += unzigzag(x[i]);
	return prev;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* 4 values at a time: unzigzag, then the prefix sum in two shift-and-add
 * steps across the elements, plus the running sum broadcast. */
__attribute__((target("avx2"))) static uint64_t undelta_avx2(uint64_t *x, size_t k, uint64_t prev)
{
	const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256();
	__m256i run = _mm256_set1_epi64x((long long)prev);
	size_t i = 0;
	for (; i + 4 <= k; i += 4) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(x + i));
		v = _mm256_xor_si256(_mm256_srli_epi64(v, 1),
				     _mm256_sub_epi64(zero, _mm256_and_si256(v, one)));
		/* [0, v0, v1, v2], then [0, 0, s0, s1] */
		v = _mm256_add_epi64(v, _mm256_blend_epi32(
			_mm256_permute4x64_epi64(v, _MM_SHUFFLE(2, 1, 0, 0)), zero, 0x03));
		v = _mm256_add_epi64(v, _mm256_blend_epi32(
			_mm256_permute4x64_epi64(v, _MM_SHUFFLE(1, 0, 0, 0)), zero, 0x0f));
		v = _mm256_add_epi64(v, run);
		_mm256_storeu_si256((__m256i *)(x + i), v);
		run = _mm256_permute4x64_epi64(v, _MM_SHUFFLE(3, 3, 3, 3));
	}
	if (i)
		prev = x[i - 1];
	return undelta_scalar(x, i, k, prev);
}
#endif

static uint64_t undelta_n(uint64_t *x, size_t k, uint64_t prev)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2"))
		return undelta_avx2(x, k, prev);
#endif
	return undelta_scalar(x, 0, k, prev);
}

/* ------------------------------------------------------------ decoder */

static int bad(const char *what)
{
	return tape__fail(-EBADMSG, "%s", what);
}

/* Read the next exception of a patched column into d->excidx/exchi; with
 * none left, check the column ends exactly there. */
static inline __attribute__((always_inline)) int
next_exception(struct coldec *d, int first)
{
	struct rd r = { d->exc, d->end };
	uint64_t gap;
	size_t m = d->enc == ENC_DPBITPACK && d->n ? d->n - 1 : d->n;
	if (!d->nexc) {
		if (r.p != r.end)
			return bad("patched column has trailing bytes");
		d->excidx = SIZE_MAX;
		return 0;
	}
	if (rd_varint(&r, &gap) || rd_varint(&r, &d->exchi))
		return bad("patched column exception ends early");
	if ((!first && gap == 0) || gap >= m || d->excidx + gap >= m)
		return bad("patched column exception out of order");
	d->excidx = first ? gap : d->excidx + gap;
	d->nexc--;
	d->exc = r.p;
	return 0;
}

int tape_coldec_init(struct coldec *d, uint8_t enc, const uint8_t *p,
		     size_t len, size_t n)
{
	struct rd r = { p, p + len };
	struct buf xb = d->xb;

	/* dict[] is only read below nd, and filled up to it here; the
	 * EXP exponent buffer is kept from block to block */
	memset(d, 0, offsetof(struct coldec, dict));
	d->xb = xb;
	d->enc = enc;
	d->n = n;
	d->end = p + len;
	switch (enc) {
	case ENC_RAW:
		if (len != n * 8)
			return bad("RAW column has the wrong size");
		d->p = p;
		return 0;
	case ENC_VARINT:
	case ENC_ZVARINT:
	case ENC_DELTA:
		d->p = p;
		return 0;
	case ENC_BITPACK:
	case ENC_DBITPACK:
		if (enc == ENC_DBITPACK && rd_varint(&r, &d->first))
			return bad("delta column header ends early");
		if (rd_varint(&r, &d->base) || r.p >= r.end)
			return bad("bit-packed column header ends early");
		d->width = *r.p++;
		if (d->width > 64)
			return bad("bit width above 64");
		if ((size_t)(r.end - r.p) !=
		    packed_bytes(enc == ENC_DBITPACK && n ? n - 1 : n, d->width))
			return bad("bit-packed column has the wrong size");
		d->p = r.p;
		return 0;
	case ENC_PBITPACK:
	case ENC_DPBITPACK: {
		size_t m = enc == ENC_DPBITPACK && n ? n - 1 : n;
		if (enc == ENC_DPBITPACK && rd_varint(&r, &d->first))
			return bad("delta column header ends early");
		if (rd_varint(&r, &d->base) || r.p >= r.end)
			return bad("patched column header ends early");
		d->width = *r.p++;
		if (d->width > 63 || rd_varint(&r, &d->nexc) || d->nexc > m)
			return bad("bad patched column header");
		if ((size_t)(r.end - r.p) < packed_bytes(m, d->width))
			return bad("patched column ends early");
		d->p = r.p;
		d->exc = r.p + packed_bytes(m, d->width);
		d->excidx = 0;
		return next_exception(d, 1);
	}
	case ENC_EXP:
	case ENC_DEXP:
		return tape__exp_init(d, p, len, n);
	case ENC_DICT:
		if (rd_varint(&r, &d->nd) || d->nd > TAPE_MAX_DICT || (n && !d->nd))
			return bad("bad dictionary size");
		for (uint64_t i = 0; i < d->nd; i++)
			if (rd_varint(&r, &d->dict[i]))
				return bad("dictionary ends early");
		if (r.p >= r.end)
			return bad("dictionary ends early");
		d->width = *r.p++;
		if (d->width > 64)
			return bad("bit width above 64");
		if ((size_t)(r.end - r.p) != packed_bytes(n, d->width))
			return bad("dictionary indices have the wrong size");
		d->p = r.p;
		return 0;
	}
	return tape__fail(-EBADMSG, "unknown integer encoding %u", enc);
}

void tape_coldec_release(struct coldec *d)
{
	buf_release(&d->xb);
}

/*
 * Unpacking: value j of a packed stream of width w sits at bit j*w, so a
 * group of 8 values starting at a multiple of 8 starts on a byte boundary
 * (byte (j/8)*w).  unpack_groups() has one copy per width, where every
 * shift and offset of the 8 values is a constant; the values around the
 * groups go through the generic loop.  Every read is 8 bytes at the byte
 * holding the value's first bit, which the stream's padding (PAD bytes in
 * reader.c) keeps in bounds.
 */
static inline __attribute__((always_inline)) void
unpack_groups_w(const uint8_t *p, size_t groups, uint64_t *out, uint64_t base,
		const unsigned w)
{
	const uint64_t mask = (1ull << w) - 1;
	for (size_t g = 0; g < groups; g++, p += w, out += 8) {
		_Pragma("GCC unroll 8")
		for (unsigned j = 0; j < 8; j++) {
			uint64_t u;
			memcpy(&u, p + (j * w) / 8, 8);
			out[j] = ((le64toh(u) >> ((j * w) & 7)) & mask) + base;
		}
	}
}

static void unpack_groups(const uint8_t *p, size_t groups, uint64_t *out, uint64_t base,
			  unsigned w)
{
	switch (w) {
#define W(n) case n: unpack_groups_w(p, groups, out, base, n); break;
	W(1) W(2) W(3) W(4) W(5) W(6) W(7) W(8) W(9) W(10) W(11) W(12) W(13)
	W(14) W(15) W(16) W(17) W(18) W(19) W(20) W(21) W(22) W(23) W(24)
	W(25) W(26) W(27) W(28) W(29) W(30) W(31) W(32) W(33) W(34) W(35)
	W(36) W(37) W(38) W(39) W(40) W(41) W(42) W(43) W(44) W(45) W(46)
	W(47) W(48) W(49) W(50) W(51) W(52) W(53) W(54) W(55) W(56)
#undef W
	}
}

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * The same with AVX2, for w <= 56: a 128-bit lane holds values 2i and
 * 2i+1, loaded as the 16 bytes from the byte of value 2i; a byte shuffle
 * puts each value's 8 bytes in its 64-bit element and a variable shift
 * drops its first (j*w) & 7 bits.  Value 2i+1 starts at most 8 bytes after
 * value 2i and needs at most 8 bytes (w + 7 <= 63 bits), so the 16 bytes
 * hold both.  The loads reach (6w >> 3) + 16 bytes past a group's start:
 * the caller leaves the groups that would read too far to the scalar code.
 */
/* Per width: the byte shuffles and bit shifts of values 0-3 and 4-7, and
 * the bytes where values 2, 4 and 6 start. */
struct unpack_k {
	uint8_t shuf[2][32];
	uint64_t sh[2][4];
	uint32_t b2, b4, b6, pad[5];
};
_Static_assert(sizeof(struct unpack_k) % 32 == 0, "aligned loads from every entry");
#define UK_SH(d) (d), (d) + 1, (d) + 2, (d) + 3, (d) + 4, (d) + 5, (d) + 6, (d) + 7
#define UK_B(j, w) (((j) * (w)) >> 3)
#define UK(w) {								\
	{ { UK_SH(0), UK_SH(UK_B(1, w)), UK_SH(0), UK_SH(UK_B(3, w) - UK_B(2, w)) },	\
	  { UK_SH(0), UK_SH(UK_B(5, w) - UK_B(4, w)), UK_SH(0), UK_SH(UK_B(7, w) - UK_B(6, w)) } }, \
	{ { 0, (w) & 7, (2 * (w)) & 7, (3 * (w)) & 7 },			\
	  { (4 * (w)) & 7, (5 * (w)) & 7, (6 * (w)) & 7, (7 * (w)) & 7 } },	\
	UK_B(2, w), UK_B(4, w), UK_B(6, w), { 0 } }
static const struct unpack_k unpack_k[57] __attribute__((aligned(32))) = {
	UK(0), UK(1), UK(2), UK(3), UK(4), UK(5), UK(6), UK(7), UK(8), UK(9),
	UK(10), UK(11), UK(12), UK(13), UK(14), UK(15), UK(16), UK(17), UK(18),
	UK(19), UK(20), UK(21), UK(22), UK(23), UK(24), UK(25), UK(26), UK(27),
	UK(28), UK(29), UK(30), UK(31), UK(32), UK(33), UK(34), UK(35), UK(36),
	UK(37), UK(38), UK(39), UK(40), UK(41), UK(42), UK(43), UK(44), UK(45),
	UK(46), UK(47), UK(48), UK(49), UK(50), UK(51), UK(52), UK(53), UK(54),
	UK(55), UK(56),
};
#undef UK
#undef UK_B
#undef UK_SH

__attribute__((target("avx2"))) static void
unpack_groups_avx2(const uint8_t *p, size_t groups, uint64_t *out, uint64_t base,
		   unsigned w)
{
	const struct unpack_k *kw = &unpack_k[w];
	const size_t b2 = kw->b2, b4 = kw->b4, b6 = kw->b6;
	const __m256i shuf0 = _mm256_load_si256((const __m256i *)kw->shuf[0]);
	const __m256i shuf1 = _mm256_load_si256((const __m256i *)kw->shuf[1]);
	const __m256i sh0 = _mm256_load_si256((const __m256i *)kw->sh[0]);
	const __m256i sh1 = _mm256_load_si256((const __m256i *)kw->sh[1]);
	const __m256i mask = _mm256_set1_epi64x((long long)((1ull << w) - 1));
	const __m256i vb = _mm256_set1_epi64x((long long)base);

#define GROUP(q, o) do {							\
		__m256i a = _mm256_inserti128_si256(				\
			_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(q))), \
			_mm_loadu_si128((const __m128i *)((q) + b2)), 1);	\
		__m256i b = _mm256_inserti128_si256(				\
			_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)((q) + b4))), \
			_mm_loadu_si128((const __m128i *)((q) + b6)), 1);	\
		a = _mm256_srlv_epi64(_mm256_shuffle_epi8(a, shuf0), sh0);	\
		b = _mm256_srlv_epi64(_mm256_shuffle_epi8(b, shuf1), sh1);	\
		_mm256_storeu_si256((__m256i *)(o), _mm256_add_epi64(_mm256_and_si256(a, mask), vb)); \
		_mm256_storeu_si256((__m256i *)((o) + 4),			\
				    _mm256_add_epi64(_mm256_and_si256(b, mask), vb)); \
	} while (0)
	size_t g = 0;
	for (; g + 2 <= groups; g += 2, p += 2 * w, out += 16) {
		GROUP(p, out);
		GROUP(p + w, out + 8);
	}
	if (g < groups)
		GROUP(p, out);
#undef GROUP
}
#endif

/* Values [idx, idx+m) of a stream of width w (<= 64), plus base, into out;
 * the stream is readable up to 8 bytes past end. */
static void unpack(const uint8_t *p, unsigned w, size_t idx, size_t m, uint64_t *out,
		   uint64_t base, const uint8_t *end)
{
	const uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
	size_t i = 0, bit = idx * w;

	(void)end;
	if (w == 0) {
		if (!base) {
			memset(out, 0, m * sizeof(*out));
			return;
		}
		for (; i < m; i++)
			out[i] = base;
		return;
	}
	if (w <= 56) {
		/* up to the first group boundary, then whole groups */
		for (; i < m && (idx + i) % 8; i++, bit += w) {
			uint64_t u;
			memcpy(&u, p + (bit >> 3), 8);
			out[i] = ((le64toh(u) >> (bit & 7)) & mask) + base;
		}
		size_t groups = (m - i) / 8;
#if defined(__x86_64__) && defined(__GNUC__)
		const uint8_t *g = p + (bit >> 3);
		size_t reach = (6 * w >> 3) + 16;
		if (groups && end > g && (size_t)(end - g) + 8 >= reach &&
		    __builtin_cpu_supports("avx2")) {
			size_t ng = ((size_t)(end - g) + 8 - reach) / w + 1;
			ng = ng < groups ? ng : groups;
			unpack_groups_avx2(g, ng, out + i, base, w);
			i += 8 * ng;
			bit += 8 * ng * w;
			groups -= ng;
		}
#endif
		unpack_groups(p + (bit >> 3), groups, out + i, base, w);
		i += 8 * groups;
		bit += 8 * groups * w;
	}
	for (; i < m; i++, bit += w) {
		uint64_t u;
		unsigned sh = bit & 7;
		memcpy(&u, p + (bit >> 3), 8);
		u = le64toh(u) >> sh;
		if (sh + w > 64)
			u |= (uint64_t)p[(bit >> 3) + 8] << (64 - sh);
		out[i] = (u & mask) + base;
	}
}

/* An exception's gap and high bits into gh[]; the byte after them, or NULL
 * when they end early.  Out of line: the loop in tape_coldec_next() keeps
 * its state in registers. */
static __attribute__((noinline)) const uint8_t *
exception_slow(const uint8_t *q, const uint8_t *end, uint64_t gh[2])
{
	struct rd r = { q, end };
	if (rd_varint(&r, &gh[0]) || rd_varint(&r, &gh[1]))
		return NULL;
	return r.p;
}

/*
 * Patch the exceptions of a PBITPACK or DPBITPACK column that fall in
 * o[0..kk), the packed values from index pidx on: their high bits go on
 * top of the low bits unpacked.  The column's exception cursor advances
 * past them.  Inlined: it runs on every batch of a patched column.
 */
static inline int coldec_patch(struct coldec *d, uint64_t *o, size_t pidx, size_t kk)
{
	/* next_exception() with the state in registers, and the
	 * usual one- or two-byte gap and high bits without a
	 * call; rel: the exception's index in o[], rem: the
	 * packed values from it on (>= 1) */
	size_t m = d->enc == ENC_DPBITPACK && d->n ? d->n - 1 : d->n;
	size_t rel = d->excidx - pidx, rem = m - d->excidx;
	size_t nexc = d->nexc;
	const uint8_t *q = d->exc, *end = d->end;
	uint64_t hi = d->exchi, gap;
	const unsigned w = d->width;
	do {
		/* low bits + base + the high bits (low < 2^width) */
		o[rel] += hi << w;
		if (!nexc) {
			if (q != end)
				return bad("patched column has trailing bytes");
			rel = SIZE_MAX - pidx;
			break;
		}
		uint16_t two;
		memcpy(&two, q, 2);	/* within the 8 readable bytes past end */
		if (end - q >= 4 && !(two & 0x8080)) {
			gap = q[0];
			hi = q[1];
			q += 2;
		} else if (end - q >= 4 && q[0] < 0x80 && q[2] < 0x80) {
			gap = q[0];
			hi = (q[1] & 0x7f) | (uint64_t)q[2] << 7;
			q += 3;
		} else {
			/* gap and hi stay in registers: not their addresses */
			uint64_t gh[2];
			if (!(q = exception_slow(q, end, gh)))
				return bad("patched column exception ends early");
			gap = gh[0];
			hi = gh[1];
		}
		/* gap == 0 || gap >= rem (i.e. idx + gap >= m) */
		if (gap - 1 >= rem - 1)
			return bad("patched column exception out of order");
		rel += gap;
		rem -= gap;
		nexc--;
	} while (rel < kk);
	d->excidx = rel + pidx;
	d->nexc = nexc;
	d->exc = q;
	d->exchi = hi;
	return 0;
}

int tape_coldec_next(struct coldec *d, size_t k, uint64_t *out)
{
	uint64_t x, prev = d->prev;

	if (k > d->n - d->done)
		return bad("column read past its end");
	switch (d->enc) {
	case ENC_RAW:
		for (size_t i = 0; i < k; i++)
			out[i] = get_le64(d->p + 8 * (d->done + i));
		break;
	case ENC_VARINT:
	case ENC_ZVARINT:
	case ENC_DELTA: {
		struct rd r = { d->p, d->end };
		for (size_t i = 0; i < k; i++) {
			if (rd_varint(&r, &x))
				return bad("varint column ends early");
			if (d->enc == ENC_ZVARINT)
				x = unzigzag(x);
			else if (d->enc == ENC_DELTA)
				x = prev += unzigzag(x);
			out[i] = x;
		}
		d->p = r.p;
		break;
	}
	case ENC_EXP:
	case ENC_DEXP:
		tape__exp_next(d, k, out);
		prev = d->prev;
		break;
	case ENC_BITPACK:
	case ENC_DBITPACK:
	case ENC_PBITPACK:
	case ENC_DPBITPACK:
	case ENC_DICT: {
		const int delta = d->enc == ENC_DBITPACK || d->enc == ENC_DPBITPACK;
		const int patched = d->enc == ENC_PBITPACK || d->enc == ENC_DPBITPACK;
		const uint64_t base = d->base;
		size_t i0 = 0, pidx = d->done;	/* packed index of out[i0] */
		if (delta) {
			/* value 0 is stored whole; packed value j is delta j+1 */
			if (d->done == 0 && k) {
				out[0] = prev = d->first;
				i0 = 1;
				pidx = 0;
			} else {
				pidx = d->done - 1;
			}
		}
		/* the base goes in while unpacking, except under the deltas */
		const uint64_t ubase = d->enc == ENC_DICT ? 0 : base;
		unpack(d->p, d->width, pidx, k - i0, out + i0, ubase, d->end);
		if (patched && d->excidx < pidx + (k - i0)) {
			int err = coldec_patch(d, out + i0, pidx, k - i0);
			if (err)
				return err;
		}
		if (d->enc == ENC_DICT) {
			uint64_t bad_idx = 0;
			const uint64_t nd = d->nd;
			for (size_t i = 0; i < k; i++) {
				uint64_t u = out[i];
				bad_idx |= u >= nd;
				out[i] = d->dict[u < nd ? u : 0];
			}
			if (bad_idx)
				return bad("dictionary index out of range");
		} else if (delta) {
			prev = undelta_n(out + i0, k - i0, prev);
		}
		break;
	}
	}
	d->prev = prev;
	d->done += k;
	if (d->done == d->n && (d->enc == ENC_VARINT || d->enc == ENC_ZVARINT ||
				d->enc == ENC_DELTA) && d->p != d->end)
		return bad("column has trailing bytes");
	return 0;
}

int tape_int_decode(uint8_t enc, const uint8_t *p, size_t len, size_t n,
		    uint64_t *out)
{
	struct coldec d = { 0 };
	int err = tape_coldec_init(&d, enc, p, len, n);
	if (!err)
		err = tape_coldec_next(&d, n, out);
	tape_coldec_release(&d);
	return err;
}
