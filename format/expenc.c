/* SPDX-License-Identifier: MIT */
/*
 * expenc.c - the EXP and DEXP integer encodings (format 1.1).
 *
 * A value u is stored as its bit length e (0..64) and, when e >= 2, the
 * e - 1 bits below its leading one (its "mantissa").  The exponents take
 * one byte each and go through zstd, whose Huffman coding of them is where
 * the entropy coding happens: their distribution is narrow.  The mantissas
 * are packed as they are, LSB first, one after another: they are close to
 * random and zstd could not shrink them, so they never go through it.
 *
 * Durations, gaps between timestamps and request sizes are spread over
 * several octaves (lognormal, heavy tails).  One bit width for a whole
 * block (BITPACK, PBITPACK) pays the widest common value for every value;
 * EXP pays each value's own length plus about the entropy of the lengths,
 * within a few per cent of an order-0 entropy coder.
 *
 *   EXP    LEB128 base, section over the count values u[i] = v[i] - base
 *   DEXP   LEB128 v[0], LEB128 zigzag(dmin), section over the count - 1
 *          values u[i-1] = v[i] - v[i-1] - dmin (mod 2^64), dmin the least
 *          difference as a signed number (0 for sorted timestamps)
 *   section  u8 xcodec (0 stored, 1 zstd), LEB128 xlen, xlen bytes of
 *          exponents (stored: one byte per value; zstd: one frame whose
 *          content is one byte per value), then the mantissas, exactly
 *          ceil(sum of max(e - 1, 0) / 8) bytes, up to the column's end.
 *
 * iotape-format(5) is the normative text.
 */
#include <endian.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "tape_internal.h"

static inline unsigned blen(uint64_t u)
{
	return u ? 64 - (unsigned)__builtin_clzll(u) : 0;
}

/* Per exponent e: the mantissa's width, its mask, the leading one. */
#define R8(F, e) F(e), F(e + 1), F(e + 2), F(e + 3), F(e + 4), F(e + 5), F(e + 6), F(e + 7)
#define R65(F) R8(F, 0), R8(F, 8), R8(F, 16), R8(F, 24), R8(F, 32), R8(F, 40), \
	R8(F, 48), R8(F, 56), F(64)
#define XW(e) ((e) ? (e) - 1 : 0)
#define XMASK(e) ((e) > 1 ? (1ull << (((e) - 1) & 63)) - 1 : 0)
#define XLEAD(e) ((e) ? 1ull << (((e) - 1) & 63) : 0)
#define XML(e) { XMASK(e), XLEAD(e) }
static const uint8_t xw[65] = { R65(XW) };
static const struct { uint64_t mask, lead; } xml[65] = { R65(XML) };
#undef XML
#undef XW
#undef XMASK
#undef XLEAD
#undef R65
#undef R8


/* Exponent bytes below this count are stored: a zstd frame with its
 * Huffman table does not pay for fewer. */
#define EXP_ZSTD_MIN 64

size_t tape__exp_estimate(const uint32_t h[65], size_t m)
{
	size_t s = 0;
	double bits = 0, ent = 0;
	for (unsigned e = 0; e <= 64; e++)
		s += h[e];
	if (!s)
		return 12;
	for (unsigned e = 0; e <= 64; e++) {
		if (!h[e])
			continue;
		double p = (double)h[e] / (double)s;
		ent -= p * log2(p);
		bits += (double)h[e] * (e > 1 ? e - 1 : 0);
	}
	/* the sample stands for m values; zstd's Huffman coding of the
	 * exponents costs a little over their entropy, and its table and
	 * frame ~40 bytes */
	double x = m >= EXP_ZSTD_MIN ? (double)m * ent * 1.04 / 8 + 40 : (double)m;
	if (x > (double)m)
		x = (double)m;
	return (size_t)(x + bits * (double)m / (double)s / 8) + 12;
}

int tape__exp_put(struct buf *out, const uint64_t *u, size_t m)
{
	struct enc_scratch *t = tape__scratch();
	uint64_t bits = 0;
	uint8_t *x;
	int err;

	if (!t)
		return -ENOMEM;
	t->x.len = 0;
	if ((err = buf_reserve(&t->x, m)))
		return err;
	x = t->x.p;
	for (size_t i = 0; i < m; i++) {
		unsigned e = blen(u[i]);
		x[i] = (uint8_t)e;
		bits += e - (e != 0);
	}
	size_t mbytes = (size_t)((bits + 7) / 8);
	size_t bound = m >= EXP_ZSTD_MIN ? ZSTD_compressBound(m) : m;
	if ((err = buf_reserve(out, 1 + 10 + bound + mbytes + 8)))
		return err;

	/* exponents: a zstd frame when it is smaller, else stored */
	uint8_t *hdr = out->p + out->len;
	size_t xlen = m;
	hdr[0] = 0;
	if (m >= EXP_ZSTD_MIN) {
		if (!t->xcctx && !(t->xcctx = ZSTD_createCCtx()))
			return -ENOMEM;
		/* after a 1-byte codec and at most 10 bytes of length */
		size_t c = ZSTD_compressCCtx(t->xcctx, hdr + 11, bound, x, m, 1);
		if (ZSTD_isError(c))
			return tape__fail(-EIO, "zstd: %s", ZSTD_getErrorName(c));
		if (c < m) {
			hdr[0] = 1;
			xlen = c;
		}
	}
	struct buf h = { hdr, 1, 11 };
	buf_put_varint(&h, xlen);
	if (hdr[0] == 1)
		memmove(hdr + h.len, hdr + 11, xlen);
	else if (m)
		memcpy(hdr + h.len, x, m);
	out->len += h.len + xlen;

	/* mantissas, 64 bits at a time */
	uint8_t *p = out->p + out->len;
	uint64_t acc = 0;
	unsigned nb = 0;
	for (size_t i = 0; i < m; i++) {
		unsigned e = x[i], w = xw[e];
		uint64_t v = u[i] & xml[e].mask;
		acc |= v << nb;
		if (nb + w >= 64) {
			uint64_t le = htole64(acc);
			memcpy(p, &le, 8);
			p += 8;
			/* nb > 0 here: w <= 63 */
			acc = v >> (64 - nb);
			nb = nb + w - 64;
		} else {
			nb += w;
		}
	}
	for (unsigned b = 0; b < nb; b += 8, acc >>= 8)
		*p++ = (uint8_t)acc;
	out->len = (size_t)(p - out->p);
	return 0;
}

static int bad(const char *what)
{
	return tape__fail(-EBADMSG, "%s", what);
}

/* Over x[0..m): *bits = the mantissa bits, sum of max(e - 1, 0); *over
 * non-zero when some e > 64.  Eight bytes at a time: byte sums in 16-bit
 * lanes (folded before they can overflow), the non-zero bytes and those
 * above 64 as high bits. */
static void exp_sum(const uint8_t *x, size_t m, uint64_t *bits, uint64_t *over,
		    uint64_t *wide)
{
	const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, hi = 0x8080808080808080ull;
	const uint64_t b16 = 0x00ff00ff00ff00ffull;
	uint64_t sum = 0, nz = 0, ov = 0, wd = 0;
	size_t i = 0;
	while (m - i >= 8) {
		uint64_t lanes = 0;
		for (size_t j = 0; j < 128 && m - i >= 8; j++, i += 8) {
			uint64_t w;
			memcpy(&w, x + i, 8);
			lanes += (w & b16) + ((w >> 8) & b16);
			/* high bit of each non-zero byte, summed by a multiply */
			nz += (((((w & lo7) + lo7) | w) & hi) >> 7) * 0x0101010101010101ull >> 56;
			ov |= (((w & lo7) + 0x3f3f3f3f3f3f3f3full) | w) & hi;
			wd |= (((w & lo7) + 0x4646464646464646ull) | w) & hi; /* >= 58 */
		}
		lanes = (lanes & 0x0000ffff0000ffffull) + ((lanes >> 16) & 0x0000ffff0000ffffull);
		sum += (lanes & 0xffffffffull) + (lanes >> 32);
	}
	for (; i < m; i++) {
		sum += x[i];
		nz += x[i] != 0;
		ov |= x[i] > 64;
		wd |= x[i] >= 58;
	}
	*bits = sum - nz;
	*over = ov;
	*wide = wd;
}

int tape__exp_init(struct coldec *d, const uint8_t *p, size_t len, size_t n)
{
	struct rd r = { p, p + len };
	const int delta = d->enc == ENC_DEXP;
	size_t m = delta && n ? n - 1 : n;
	uint64_t xlen, dz;

	if (delta) {
		if (rd_varint(&r, &d->first) || rd_varint(&r, &dz))
			return bad("delta column header ends early");
		d->base = unzigzag(dz);
	} else if (rd_varint(&r, &d->base)) {
		return bad("EXP column header ends early");
	}
	if (r.p >= r.end)
		return bad("EXP column header ends early");
	uint8_t codec = *r.p++;
	if (codec > 1 || rd_varint(&r, &xlen) || xlen > (uint64_t)(r.end - r.p))
		return bad("bad EXP column header");
	if (codec == 0) {
		if (xlen != m)
			return bad("EXP exponents have the wrong size");
		d->xp = r.p;
	} else {
		struct enc_scratch *t = tape__scratch();
		int err;
		if (!t)
			return -ENOMEM;
		if (!t->xdctx && !(t->xdctx = ZSTD_createDCtx()))
			return -ENOMEM;
		d->xb.len = 0;
		if ((err = buf_reserve(&d->xb, m)))
			return err;
		if (ZSTD_findFrameCompressedSize(r.p, (size_t)xlen) != xlen ||
		    ZSTD_getFrameContentSize(r.p, (size_t)xlen) != m)
			return bad("EXP exponents: bad zstd frame");
		size_t got = ZSTD_decompressDCtx(t->xdctx, d->xb.p, m, r.p, (size_t)xlen);
		if (ZSTD_isError(got) || got != m)
			return bad("EXP exponents: bad zstd frame");
		d->xp = d->xb.p;
	}
	r.p += xlen;
	/* every exponent at most 64, and the mantissas fill the rest exactly:
	 * sum(e) - #(e > 0) bits (32-bit sums in chunks, which vectorize) */
	uint64_t bits, over, wide;
	exp_sum(d->xp, m, &bits, &over, &wide);
	if (over)
		return bad("EXP exponent above 64");
	if ((uint64_t)(r.end - r.p) != (bits + 7) / 8)
		return bad("EXP mantissas have the wrong size");
	d->p = r.p;
	d->bitpos = 0;
	d->width = wide != 0;	/* some exponent >= 58 (see mant) */
	return 0;
}

/* The value of exponent e whose mantissa starts at bit bitpos: mantissa
 * | leading one.  An 8-byte load holds it unless sh + w > 64, which needs
 * e >= 58: wide is 0 in blocks without such exponents (exp_sum). */
static inline __attribute__((always_inline)) uint64_t
mant(const uint8_t *p, uint64_t bitpos, unsigned e, const int wide)
{
	unsigned sh = bitpos & 7;
	uint64_t v;
	memcpy(&v, p + (bitpos >> 3), 8);
	v = le64toh(v) >> sh;
	if (wide && sh + e - (e != 0) > 64)
		v |= (uint64_t)p[(bitpos >> 3) + 8] << (64 - sh);
	return (v & xml[e].mask) | xml[e].lead;
}

/* The values [i, k) of tape__exp_next, for constant delta and wide. */
static inline __attribute__((always_inline)) void
exp_run(const uint8_t *p, const uint8_t *xp, uint64_t *out, size_t i, size_t k,
	uint64_t *bitpos_io, uint64_t *prev_io, uint64_t base, const int delta, const int wide)
{
	uint64_t bitpos = *bitpos_io, prev = *prev_io;
	for (; i < k; i++) {
		unsigned e = xp[i];
		uint64_t u = mant(p, bitpos, e, wide) + base;
		if (delta)
			out[i] = prev += u;
		else
			out[i] = u;
		bitpos += e - (e != 0);
	}
	*bitpos_io = bitpos;
	*prev_io = prev;
}

void tape__exp_next(struct coldec *d, size_t k, uint64_t *out)
{
	const int delta = d->enc == ENC_DEXP;
	const uint8_t *p = d->p;
	uint64_t bitpos = d->bitpos, prev = d->prev;
	const uint64_t base = d->base;
	size_t i = 0, x = d->done;

	if (delta) {
		/* value 0 is stored whole; value j >= 1 is exponent j - 1 */
		if (d->done == 0 && k) {
			out[0] = prev = d->first;
			i = 1;
			x = 0;
		} else {
			x = d->done - 1;
		}
	}
	const uint8_t *xp = d->xp + x - i;
	if (delta && d->width)
		exp_run(p, xp, out, i, k, &bitpos, &prev, base, 1, 1);
	else if (delta)
		exp_run(p, xp, out, i, k, &bitpos, &prev, base, 1, 0);
	else if (d->width)
		exp_run(p, xp, out, i, k, &bitpos, &prev, base, 0, 1);
	else
		exp_run(p, xp, out, i, k, &bitpos, &prev, base, 0, 0);
	d->bitpos = bitpos;
	d->prev = prev;
}
