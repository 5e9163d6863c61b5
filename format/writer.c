/* SPDX-License-Identifier: MIT */
/*
 * writer.c - append-only trace writer.
 *
 * Events are buffered per table in column arrays; a full block is encoded
 * column by column (the syscall table first through the per-thread
 * prediction of predict.c), each column compressed with zstd only when that
 * pays, and the block appended as one chunk.  The file is only ever
 * appended to, so whatever a crash leaves behind is a header followed by
 * complete chunks (and perhaps one partial chunk that a reader ignores).
 * close() adds the index chunk and the trailer.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* the hashes inline: one per new string of a block's dictionaries */
#define XXH_INLINE_ALL
#include <xxhash.h>
#include <zstd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include "tape_internal.h"
#include "tape_vec.h"

#ifdef __SSE2__
/* Whether the 16 bytes at a + i and b + i, and those at a + j and b + j,
 * are equal. */
static inline int eq16x2(const uint8_t *a, const char *b, size_t i, size_t j)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(a + i));
	__m128i y = _mm_loadu_si128((const __m128i *)(b + i));
	__m128i u = _mm_loadu_si128((const __m128i *)(a + j));
	__m128i v = _mm_loadu_si128((const __m128i *)(b + j));
	return _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(x, y),
					       _mm_cmpeq_epi8(u, v))) == 0xffff;
}
#endif

/* Equality of short strings without a libc call (this is the hot path):
 * whole words, the last ones overlapping those before instead of a loop
 * over the odd bytes. */
static inline int bytes_equal(const uint8_t *a, const char *b, size_t n)
{
	if (n >= 16) {
#ifdef __SSE2__
		size_t i = 0;
		for (; i + 32 < n; i += 32)
			if (!eq16x2(a, b, i, i + 16))
				return 0;
		/* 1 to 32 bytes left, n - 16 <= i when 16 at most */
		return eq16x2(a, b, i < n - 16 ? i : n - 16, n - 16);
#else
		uint64_t x, y, d = 0;
		size_t i = 0;
		for (; i + 8 < n; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			d |= x ^ y;
		}
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return !(d | (x ^ y));
#endif
	}
	if (n >= 8) {
		uint64_t x0, y0, x1, y1;
		memcpy(&x0, a, 8);
		memcpy(&y0, b, 8);
		memcpy(&x1, a + n - 8, 8);
		memcpy(&y1, b + n - 8, 8);
		return !((x0 ^ y0) | (x1 ^ y1));
	}
	if (n >= 4) {
		uint32_t x0, y0, x1, y1;
		memcpy(&x0, a, 4);
		memcpy(&y0, b, 4);
		memcpy(&x1, a + n - 4, 4);
		memcpy(&y1, b + n - 4, 4);
		return !((x0 ^ y0) | (x1 ^ y1));
	}
	for (size_t i = 0; i < n; i++)
		if (a[i] != (uint8_t)b[i])
			return 0;
	return 1;
}

/* Per-block string dictionary: open addressing over an arena of copies. */
struct sdict {
	uint32_t *slots;	/* 0 empty, else index + 1 */
	uint32_t nslots;
	uint32_t n;
	uint32_t *off, *len;	/* per entry, into arena */
	uint64_t *hash;
	uint32_t cap;
	uint32_t last;		/* index of the last string added or found */
	struct buf arena;
};

struct tbuf {
	const struct tape_table_def *def;
	/* append plan: integer fields by width, then string fields */
	unsigned n8, n4, ns;
	uint16_t off8[TAPE_MAX_COLS_KNOWN], off4[TAPE_MAX_COLS_KNOWN], offs[TAPE_MAX_STRCOLS];
	uint64_t *dst8[TAPE_MAX_COLS_KNOWN], *dst4[TAPE_MAX_COLS_KNOWN];
	unsigned strcol[TAPE_MAX_STRCOLS];
	size_t rows;
	uint64_t **cols;	/* ncols arrays of block_rows values, in mem */
	uint64_t *mem;		/* the columns, stride values apart */
	size_t stride;
	struct sdict *dicts;	/* ncols, used by string columns */
	size_t text;		/* bytes of text in dicts, for the block cut */
	/* syscall table, for tbuf_put_syscall(): its columns lie in mem by
	 * id (column id i at mem + i * stride); NULL for other tables */
	struct sdict *sc_path, *sc_path2;
	/* non-zero when a row of the block has an output side other than
	 * fd2 -1, file_id2 0, offset2 0: else those columns are left out */
	uint64_t sc_out;
	/* file table, for tbuf_put_file(): the same by FC_ id; else NULL */
	struct sdict *fc_path;
	/* non-zero when a row of the block has an fstype: else the column is
	 * left out (files of writers that do not know it stay as they were) */
	uint64_t fc_fstype;
	/* the path index of each thread's last row (index + 1, 0 none) by
	 * tid & 63, tried before hashing: threads interleave, but each
	 * names the same file for several rows */
	uint32_t tidkey[64], tidpath[64];
};

struct ientry {
	uint64_t off;
	uint8_t type;
	uint16_t table;
	uint32_t count;
	uint64_t tmin, tmax;
};

/* What block encoding needs besides the rows: reused between blocks. */
struct enc_ctx {
	ZSTD_CCtx *cctx;	/* NULL: no column compression */
	int level;
	struct buf col;		/* one encoded column */
	struct pred pred;
	uint64_t *res[SC_NCOLS];/* prediction residuals */
	size_t rescap;
	/* Rows to wait before trying zstd again on a column where it did
	 * not pay (high-entropy columns like durations): per table, column.
	 * In rows, not blocks, so that the block size does not change it. */
	uint32_t zskip[TAPE_TABLE_MAX][TAPE_MAX_COLS_KNOWN];
	/* Failures in a row: the wait doubles with each, 7 to 127 times
	 * ZWAIT_ROWS rows. */
	uint8_t zmiss[TAPE_TABLE_MAX][TAPE_MAX_COLS_KNOWN];
	/* EXP and DEXP against the other encodings + zstd, which the encoder's
	 * estimate cannot see (zstd packs runs of zeros far below their
	 * entropy): the first block after every EXP_TRIAL_ROWS rows encodes
	 * a column both ways and keeps the smaller; the blocks between follow
	 * its verdict. */
	uint32_t etry[TAPE_TABLE_MAX][TAPE_MAX_COLS_KNOWN];	/* rows to the next trial */
	uint8_t eno[TAPE_TABLE_MAX][TAPE_MAX_COLS_KNOWN];	/* 1: EXP lost the last one */
	struct buf alt, altz;
	unsigned v10 : 1;	/* write format 1.0 (TAPE_WRITE_V10) */
	unsigned noexp : 1;	/* no EXP/DEXP (TAPE_WRITE_FAST, V10) */
};
#define ZWAIT_ROWS 8192
#define EXP_TRIAL_ROWS (16 * 8192)

struct tape_writer {
	int fd;
	unsigned flags;
	unsigned block_rows;
	int level;
	int err;
	uint64_t off;
	uint64_t events;
	ZSTD_CCtx *cctx;
	struct enc_ctx enc;
	struct tbuf tables[TAPE_TABLE_MAX];
	struct buf raw, comp;
	struct ientry *index;
	size_t nindex, capindex;
	struct buf meta;	/* pending META entries */
	uint32_t nmeta;
};

static int write_all(tape_writer *w, const void *p, size_t len)
{
	const uint8_t *c = p;
	while (len) {
		ssize_t n = write(w->fd, c, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return tape__fail(-errno, "write: %s", strerror(errno));
		}
		c += n;
		len -= (size_t)n;
		w->off += (uint64_t)n;
	}
	return 0;
}

static int set_err(tape_writer *w, int err)
{
	if (err && !w->err)
		w->err = err;
	return err;
}

/* Append one chunk; raw is compressed when that makes it smaller. */
static int write_chunk(tape_writer *w, uint8_t type, uint16_t table,
		       uint32_t count, uint64_t tmin, uint64_t tmax,
		       const uint8_t *raw, size_t raw_len, int compress)
{
	uint8_t h[TAPE_CHUNK_HDR];
	const uint8_t *payload = raw;
	size_t stored = raw_len;
	uint8_t codec = CODEC_STORED;
	int err;

	if (raw_len > TAPE_MAX_RAW)
		return tape__fail(-E2BIG, "chunk of %zu bytes exceeds the format's limit", raw_len);
	if (compress && raw_len > 64) {
		size_t bound = ZSTD_compressBound(raw_len);
		w->comp.len = 0;
		if ((err = buf_reserve(&w->comp, bound)))
			return err;
		size_t c = ZSTD_compressCCtx(w->cctx, w->comp.p, bound, raw, raw_len, w->level);
		if (ZSTD_isError(c))
			return tape__fail(-EIO, "zstd: %s", ZSTD_getErrorName(c));
		if (c < raw_len) {
			payload = w->comp.p;
			stored = c;
			codec = CODEC_ZSTD;
		}
	}
	memcpy(h, TAPE_CHUNK_MAGIC, 4);
	h[4] = type;
	h[5] = codec;
	put_le16(h + 6, table);
	put_le32(h + 8, count);
	put_le32(h + 12, (uint32_t)stored);
	put_le32(h + 16, (uint32_t)raw_len);
	put_le32(h + 20, 0);
	put_le64(h + 24, tmin);
	put_le64(h + 32, tmax);
	put_le64(h + 40, XXH64(payload, stored, 0));
	put_le32(h + 20, XXH32(h, sizeof(h), 0));

	if (type != CHUNK_INDEX) {
		if ((err = TAPE_VEC_GROW(w->index, w->capindex, w->nindex + 1, 64)))
			return err;
		w->index[w->nindex++] = (struct ientry){ w->off, type, table, count, tmin, tmax };
	}
	if ((err = write_all(w, h, sizeof(h))) || (err = write_all(w, payload, stored)))
		return err;
	return 0;
}

static int flush_meta(tape_writer *w)
{
	int err;
	if (!w->nmeta)
		return 0;
	err = write_chunk(w, CHUNK_META, 0, w->nmeta, 0, 0, w->meta.p, w->meta.len, 1);
	w->meta.len = 0;
	w->nmeta = 0;
	return err;
}

/* ------------------------------------------------------ string columns */

static uint32_t sdict_add(struct sdict *d, const char *s, size_t len, int *err)
{
	/* Consecutive events usually name the same file. */
	if (d->n && d->last < d->n && d->len[d->last] == len &&
	    bytes_equal(d->arena.p + d->off[d->last], s, len))
		return d->last;
	uint64_t h = XXH3_64bits(s, len);
	if (d->n * 2 >= d->nslots) {
		uint32_t ns = d->nslots ? d->nslots * 2 : 1024;
		uint32_t *slots = calloc(ns, sizeof(*slots));
		if (!slots) {
			*err = -ENOMEM;
			return 0;
		}
		for (uint32_t i = 0; i < d->n; i++) {
			uint32_t k = (uint32_t)d->hash[i] & (ns - 1);
			while (slots[k])
				k = (k + 1) & (ns - 1);
			slots[k] = i + 1;
		}
		free(d->slots);
		d->slots = slots;
		d->nslots = ns;
	}
	uint32_t k = (uint32_t)h & (d->nslots - 1);
	while (d->slots[k]) {
		uint32_t i = d->slots[k] - 1;
		if (d->hash[i] == h && d->len[i] == len &&
		    bytes_equal(d->arena.p + d->off[i], s, len))
			return d->last = i;
		k = (k + 1) & (d->nslots - 1);
	}
	if (d->n == d->cap) {
		size_t cap = tape_vec_cap(d->cap, d->n + 1, 256, sizeof(*d->hash));
		if (!cap || cap > UINT32_MAX || TAPE_VEC_RESIZE(d->off, cap) ||
		    TAPE_VEC_RESIZE(d->len, cap) || TAPE_VEC_RESIZE(d->hash, cap)) {
			*err = -ENOMEM;
			return 0;
		}
		d->cap = (uint32_t)cap;
	}
	if (d->arena.len + len > d->arena.cap && (*err = buf_reserve(&d->arena, len)))
		return 0;
	if (len)
		memcpy(d->arena.p + d->arena.len, s, len);
	d->off[d->n] = (uint32_t)d->arena.len;
	d->len[d->n] = (uint32_t)len;
	d->hash[d->n] = h;
	d->arena.len += len;
	d->slots[k] = d->n + 1;
	d->last = d->n;
	return d->n++;
}

static void sdict_reset(struct sdict *d)
{
	if (d->nslots)
		memset(d->slots, 0, d->nslots * sizeof(*d->slots));
	d->n = 0;
	d->arena.len = 0;
}

static void sdict_release(struct sdict *d)
{
	free(d->slots);
	free(d->off);
	free(d->len);
	free(d->hash);
	buf_release(&d->arena);
}

/* --------------------------------------------------------- block encode */

static void enc_ctx_release(struct enc_ctx *x)
{
	ZSTD_freeCCtx(x->cctx);
	buf_release(&x->col);
	buf_release(&x->alt);
	buf_release(&x->altz);
	pred_release(&x->pred);
	for (int i = 0; i < SC_NCOLS; i++)
		free(x->res[i]);
	memset(x, 0, sizeof(*x));
}

/* Residuals of the syscall prediction, by column id; 0 or -errno. */
static int predict(struct enc_ctx *x, const struct tape_table_def *def,
		   uint64_t **cols, size_t n, size_t *op_hits)
{
	uint64_t *col[SC_NCOLS] = { 0 };
	if (n > x->rescap) {
		for (int i = 0; i < SC_NCOLS; i++) {
			free(x->res[i]);
			if (!(x->res[i] = malloc(n * sizeof(uint64_t)))) {
				x->rescap = 0;
				return -ENOMEM;
			}
		}
		x->rescap = n;
	}
	for (size_t c = 0; c < def->ncols; c++)
		if (def->cols[c].id < SC_NCOLS)
			col[def->cols[c].id] = cols[c];
	for (int i = 0; i < SC_NCOLS; i++)
		if (!col[i])
			return -EINVAL;
	return pred_encode_syscall(&x->pred, col, x->res, n, op_hits);
}

/* Append x->col to out, as one zstd frame when that saves enough. */
static int put_column(struct enc_ctx *x, struct buf *out, uint8_t *enc, size_t n,
		      uint32_t *skip, uint8_t *miss)
{
	size_t len = x->col.len;
	int err;
	/* EXP and DEXP compress their exponents themselves */
	int own = ENC_ID(*enc) == ENC_EXP || ENC_ID(*enc) == ENC_DEXP;
	if (skip && *skip) {
		*skip = *skip > n ? *skip - (uint32_t)n : 0;
	} else if (x->cctx && len >= 64 && !own) {
		size_t bound = ZSTD_compressBound(len);
		if ((err = buf_reserve(out, bound)))
			return err;
		size_t c = ZSTD_compressCCtx(x->cctx, out->p + out->len, bound,
					     x->col.p, len, x->level);
		if (ZSTD_isError(c))
			return tape__fail(-EIO, "zstd: %s", ZSTD_getErrorName(c));
		if (c < len - len / 16) {
			out->len += c;
			*enc |= ENC_ZSTD;
			if (miss)
				*miss = 0;
			return 0;
		}
		if (skip) {
			*skip = ((8u << *miss) - 1) * ZWAIT_ROWS;
			*miss += *miss < 4;
		}
	}
	if ((err = buf_reserve(out, len)))
		return err;
	if (len)
		memcpy(out->p + out->len, x->col.p, len);
	out->len += len;
	return 0;
}

/* x->col = v[0..n) in the encoding the trials of EXP pick (see enc_ctx);
 * table < 0: a column without trial state, EXP allowed. */
static int encode_int_column(struct enc_ctx *x, const uint64_t *v, size_t n, uint8_t *enc,
			     int table, size_t c)
{
	int err;
	if (x->noexp)
		return tape_int_encode(v, n, &x->col, enc, 0);
	if (table < 0)
		return tape_int_encode(v, n, &x->col, enc, ENC_CHOOSE_ALL);
	uint32_t *try = &x->etry[table][c];
	uint8_t *no = &x->eno[table][c];
	if (*try) {
		*try = *try > n ? *try - (uint32_t)n : 0;
		return tape_int_encode(v, n, &x->col, enc, *no ? 0 : ENC_CHOOSE_ALL);
	}
	*try = n < EXP_TRIAL_ROWS ? EXP_TRIAL_ROWS - (uint32_t)n : 0;
	*no = 1;	/* until EXP wins a trial */
	if ((err = tape_int_encode(v, n, &x->col, enc, ENC_CHOOSE_ALL)))
		return err;
	if ((*enc != ENC_EXP && *enc != ENC_DEXP) || !x->cctx)
		return 0;
	*no = 0;
	uint8_t aenc;
	x->alt.len = 0;
	if ((err = tape_int_encode(v, n, &x->alt, &aenc, 0)))
		return err;
	size_t asz = x->alt.len;
	if (asz >= 64) {
		size_t bound = ZSTD_compressBound(asz);
		x->altz.len = 0;
		if ((err = buf_reserve(&x->altz, bound)))
			return err;
		size_t z = ZSTD_compressCCtx(x->cctx, x->altz.p, bound, x->alt.p, asz, x->level);
		if (ZSTD_isError(z))
			return tape__fail(-EIO, "zstd: %s", ZSTD_getErrorName(z));
		asz = z < asz ? z : asz;
	}
	/* EXP must save a bit a value (see tape_int_encode) */
	if (asz < x->col.len + n / 8) {
		struct buf t = x->col;
		x->col = x->alt;
		x->alt = t;
		*enc = aenc;
		*no = 1;
	}
	return 0;
}

/* omit: ids (< 64) of columns to leave out of the block, whose every row
 * holds what a reader gives for a missing column. */
static int encode_columns(struct enc_ctx *x, const struct tape_table_def *def,
			  uint64_t **cols, struct sdict *dicts, size_t n,
			  int extra_cols, uint64_t omit, struct buf *out)
{
	size_t ncols = def->ncols + (size_t)extra_cols, nout = ncols, slot = 0;
	unsigned predmask = 0;
	size_t dir;
	int err;

	for (size_t c = 0; c < def->ncols; c++)
		if (def->cols[c].id < 64 && ((omit >> def->cols[c].id) & 1))
			nout--;

	if (def->id == TAPE_TABLE_SYSCALL && n && !tape__no_predict) {
		size_t hits;
		if ((err = predict(x, def, cols, n, &hits)))
			return err;
		predmask = x->v10 ? SC_PREDICTED_10 : SC_PREDICTED;
		/* op: only where the prediction holds for 4 rows in 5 */
		if (hits * 5 < n * 4)
			predmask &= ~(1u << SC_OP);
	}
	out->len = 0;
	if ((err = buf_reserve(out, 4 + 8 * nout)))
		return err;
	put_le16(out->p, (uint16_t)nout);
	put_le16(out->p + 2, 0);
	dir = 4;
	out->len = 4 + 8 * nout;
	for (size_t c = 0; c < ncols; c++) {
		const struct tape_column *col = c < def->ncols ? &def->cols[c] : NULL;
		size_t start = out->len;
		if (col && col->id < 64 && ((omit >> col->id) & 1))
			continue;
		uint8_t enc, type = col ? col->type : TAPE_COL_U64;
		int pred = col && col->id < 32 && ((predmask >> col->id) & 1);
		/* extra (test) columns reuse ts_ns values */
		const uint64_t *v = !col ? cols[0] : pred ? x->res[col->id] : cols[c];

		x->col.len = 0;
		if (col && col->type == TAPE_COL_STR) {
			struct sdict *d = &dicts[c];
			if ((err = buf_reserve(&x->col, 10 + d->arena.len + 10 * (size_t)d->n + 1)))
				return err;
			buf_put_varint(&x->col, d->n);
			for (uint32_t i = 0; i < d->n; i++) {
				buf_put_varint(&x->col, d->len[i]);
				if (d->len[i])
					memcpy(x->col.p + x->col.len, d->arena.p + d->off[i], d->len[i]);
				x->col.len += d->len[i];
			}
			size_t encpos = x->col.len;
			buf_put_u8(&x->col, 0);
			int force = tape__force_encoding == ENC_DICT ||
				    tape__force_encoding == ENC_CHOOSE_ALL ? 0 : tape__force_encoding;
			if ((err = tape_int_encode(v, n, &x->col, &enc, force)))
				return err;
			x->col.p[encpos] = enc | (pred ? ENC_PRED : 0);
			enc = ENC_SDICT;
		} else if (tape__force_encoding) {
			if ((err = tape_int_encode(v, n, &x->col, &enc, tape__force_encoding)))
				return err;
			enc |= pred ? ENC_PRED : 0;
		} else {
			int known = c < TAPE_MAX_COLS_KNOWN && def->id < TAPE_TABLE_MAX;
			if ((err = encode_int_column(x, v, n, &enc, known ? def->id : -1, c)))
				return err;
			enc |= pred ? ENC_PRED : 0;
		}
		int known = c < TAPE_MAX_COLS_KNOWN && def->id < TAPE_TABLE_MAX;
		uint32_t *skip = known ? &x->zskip[def->id][c] : NULL;
		uint8_t *miss = known ? &x->zmiss[def->id][c] : NULL;
		if ((err = put_column(x, out, &enc, n, skip, miss)))
			return err;
		size_t sz = out->len - start;
		if (sz > UINT32_MAX)
			return -E2BIG;
		uint8_t *e = out->p + dir + 8 * slot++;
		put_le16(e, col ? col->id : (uint16_t)(900 + (c - def->ncols)));
		e[2] = type;
		e[3] = enc;
		put_le32(e + 4, (uint32_t)sz);
	}
	return 0;
}

/* Min and max of v[i..n) into *mn and *mx. */
static inline void minmax_scalar(const uint64_t *v, size_t i, size_t n, uint64_t *mn,
				 uint64_t *mx)
{
	uint64_t min = *mn, max = *mx;
	for (; i < n; i++) {
		min = v[i] < min ? v[i] : min;
		max = v[i] > max ? v[i] : max;
	}
	*mn = min, *mx = max;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same, 4 at a time: signed compares of the values with the sign bit
 * flipped order them as unsigned. */
__attribute__((target("avx2"))) static void
minmax_avx2(const uint64_t *v, size_t n, uint64_t *mn, uint64_t *mx)
{
	const __m256i sign = _mm256_set1_epi64x(INT64_MIN);
	__m256i fmin = _mm256_set1_epi64x(INT64_MAX), fmax = sign;
	size_t i = 0;
	_Pragma("GCC unroll 4")
	for (; i + 4 <= n; i += 4) {
		__m256i x = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(v + i)), sign);
		fmin = _mm256_blendv_epi8(fmin, x, _mm256_cmpgt_epi64(fmin, x));
		fmax = _mm256_blendv_epi8(fmax, x, _mm256_cmpgt_epi64(x, fmax));
	}
	uint64_t a[4], b[4];
	_mm256_storeu_si256((__m256i *)a, fmin);
	_mm256_storeu_si256((__m256i *)b, fmax);
	for (int j = 0; j < 4; j++) {
		a[j] ^= 1ull << 63;
		b[j] ^= 1ull << 63;
		*mn = a[j] < *mn ? a[j] : *mn;
		*mx = b[j] > *mx ? b[j] : *mx;
	}
	minmax_scalar(v, i, n, mn, mx);
}
#endif

/* The time range of a block: min and max of its first column (ts_ns),
 * found once per block rather than row by row. */
static void time_range(const uint64_t *v, size_t n, uint64_t *mn, uint64_t *mx)
{
	*mn = UINT64_MAX;
	*mx = 0;
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2")) {
		minmax_avx2(v, n, mn, mx);
		return;
	}
#endif
	minmax_scalar(v, 0, n, mn, mx);
}

static int write_block(tape_writer *w, struct tbuf *t)
{
	uint64_t tmin, tmax;
	int err;
	if (!t->rows)
		return 0;
	if ((err = flush_meta(w)))
		return err;
	time_range(t->cols[0], t->rows, &tmin, &tmax);
	err = encode_columns(&w->enc, t->def, t->cols, t->dicts, t->rows, 0,
			     t->sc_path2 && !t->sc_out ? SC_OUTPUT :
			     t->fc_path && !t->fc_fstype ? 1ull << FC_FSTYPE : 0, &w->raw);
	if (!err)
		err = write_chunk(w, CHUNK_BLOCK, (uint16_t)t->def->id, (uint32_t)t->rows,
				  tmin, tmax, w->raw.p, w->raw.len, 0);
	t->rows = 0;
	t->text = 0;
	t->sc_out = 0;
	t->fc_fstype = 0;
	for (size_t c = 0; c < t->def->ncols; c++)
		if (t->def->cols[c].type == TAPE_COL_STR)
			sdict_reset(&t->dicts[c]);
	memset(t->tidpath, 0, sizeof(t->tidpath));
	return err;
}

static const uint16_t fc_offset[FC_NCOLS] = {
	offsetof(struct tape_file, ts_ns), offsetof(struct tape_file, file_id),
	offsetof(struct tape_file, dev), offsetof(struct tape_file, inode),
	offsetof(struct tape_file, size), offsetof(struct tape_file, mode),
	offsetof(struct tape_file, path), offsetof(struct tape_file, fstype),
};

static int tbuf_init(struct tbuf *t, const struct tape_table_def *def, unsigned rows)
{
	/* the syscall columns by id when their ids are 0..SC_NCOLS-1; the
	 * file columns when they are the fields tbuf_put_file() knows */
	unsigned seen = 0;
	int sc = def->id == TAPE_TABLE_SYSCALL && def->ncols == SC_NCOLS;
	int fc = def->id == TAPE_TABLE_FILE && def->ncols == FC_NCOLS;
	int by_id = sc || fc;
	for (size_t c = 0; by_id && c < def->ncols; c++) {
		const struct tape_column *col = &def->cols[c];
		unsigned id = col->id;
		by_id = id < def->ncols && !(seen & (1u << id));
		if (by_id && fc)
			by_id = col->offset == fc_offset[id] &&
				(id == FC_PATH ? col->type == TAPE_COL_STR :
				 col->type != TAPE_COL_STR && col->width == 8);
		if (by_id)
			seen |= 1u << id;
	}

	t->def = def;
	t->cols = calloc(def->ncols, sizeof(*t->cols));
	t->dicts = calloc(def->ncols, sizeof(*t->dicts));
	/* one cache line between columns keeps them off each other's sets */
	t->stride = (size_t)rows + 8;
	t->mem = malloc(def->ncols * t->stride * sizeof(uint64_t));
	if (!t->cols || !t->dicts || !t->mem)
		return -ENOMEM;
	for (size_t c = 0; c < def->ncols; c++) {
		const struct tape_column *col = &def->cols[c];
		t->cols[c] = t->mem + (by_id ? col->id : c) * t->stride;
		if (col->type == TAPE_COL_STR) {
			t->offs[t->ns] = col->offset;
			t->strcol[t->ns++] = (unsigned)c;
		} else if (col->width == 8) {
			t->off8[t->n8] = col->offset;
			t->dst8[t->n8++] = t->cols[c];
		} else {
			t->off4[t->n4] = col->offset;
			t->dst4[t->n4++] = t->cols[c];
		}
	}
	for (size_t c = 0; by_id && c < def->ncols; c++) {
		unsigned id = def->cols[c].id;
		if (sc && id == SC_PATH)
			t->sc_path = &t->dicts[c];
		if (sc && id == SC_PATH2)
			t->sc_path2 = &t->dicts[c];
		if (fc && id == FC_PATH)
			t->fc_path = &t->dicts[c];
	}
	return 0;
}

static void tbuf_release(struct tbuf *t)
{
	if (!t->def)
		return;
	for (size_t c = 0; c < t->def->ncols; c++)
		if (t->dicts)
			sdict_release(&t->dicts[c]);
	free(t->mem);
	free(t->cols);
	free(t->dicts);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------- public */

int tape_writer_open_fd(tape_writer **out, int fd, const struct tape_writer_opts *opts)
{
	tape_writer *w;
	uint8_t h[TAPE_HEADER_SIZE];
	int err;

	*out = NULL;
	if (!(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	w->fd = fd;
	w->flags = opts ? opts->flags : 0;
	w->block_rows = opts && opts->block_rows ? opts->block_rows : TAPE_DEFAULT_ROWS;
	w->level = opts && opts->zstd_level ? opts->zstd_level : 1;
	if (w->block_rows > TAPE_MAX_ROWS) {
		free(w);
		return tape__fail(-EINVAL, "block_rows above %u", TAPE_MAX_ROWS);
	}
	if (!(w->cctx = ZSTD_createCCtx()) || !(w->enc.cctx = ZSTD_createCCtx())) {
		ZSTD_freeCCtx(w->cctx);
		free(w);
		return -ENOMEM;
	}
	w->enc.level = w->level;
	w->enc.v10 = (w->flags & TAPE_WRITE_V10) != 0;
	w->enc.noexp = (w->flags & (TAPE_WRITE_V10 | TAPE_WRITE_FAST)) != 0;
	memcpy(h, TAPE_MAGIC, 8);
	put_le16(h + 8, TAPE_FORMAT_MAJOR);
	put_le16(h + 10, w->enc.v10 ? 0 : TAPE_FORMAT_MINOR);
	put_le32(h + 12, TAPE_HEADER_SIZE);
	put_le64(h + 16, w->enc.v10 ? 0 : TAPE_REQ_11);
	put_le32(h + 24, 0);
	put_le32(h + 28, XXH32(h, 28, 0));
	if ((err = write_all(w, h, sizeof(h)))) {
		w->fd = -1;
		tape_writer_free(w);
		return err;
	}
	*out = w;
	return 0;
}

int tape_writer_open(tape_writer **out, const char *path, const struct tape_writer_opts *opts)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC;
	int fd, err;

	*out = NULL;
	flags |= opts && (opts->flags & TAPE_WRITE_FORCE) ? O_TRUNC : O_EXCL;
	fd = open(path, flags, 0644);
	if (fd < 0) {
		err = -errno;
		if (err == -EEXIST)
			return tape__fail(err, "'%s' exists (use --force to overwrite)", path);
		return tape__fail(err, "cannot create '%s': %s", path, strerror(errno));
	}
	err = tape_writer_open_fd(out, fd, opts);
	if (err) {
		close(fd);
		unlink(path);
	}
	return err;
}

int tape_writer_set_meta(tape_writer *w, const char *key, const char *value)
{
	size_t kl = strlen(key), vl = strlen(value ? value : "");
	int err;
	if (w->err)
		return w->err;
	if (!kl || kl > TAPE_MAX_STRING || vl > TAPE_MAX_STRING)
		return tape__fail(-EINVAL, "bad metadata key or value length");
	if ((err = buf_reserve(&w->meta, kl + vl + 20)))
		return set_err(w, err);
	buf_put_varint(&w->meta, kl);
	memcpy(w->meta.p + w->meta.len, key, kl);
	w->meta.len += kl;
	buf_put_varint(&w->meta, vl);
	memcpy(w->meta.p + w->meta.len, value ? value : "", vl);
	w->meta.len += vl;
	w->nmeta++;
	return 0;
}

/* sdict_add() for a column of t, counting the text it adds: the index,
 * or -errno.  The rows that name a string already at hand do not get
 * here. */
static __attribute__((noinline)) int64_t
tbuf_str(struct tbuf *t, struct sdict *d, const char *s, size_t len)
{
	size_t before = d->arena.len;
	int err = 0;
	uint32_t i = sdict_add(d, s, len, &err);
	t->text += d->arena.len - before;
	return err ? err : (int64_t)i;
}

/* tbuf_put() for the syscall table, whose layout is known here: most
 * events of a trace are syscalls.  Straight-line, and the dictionaries
 * only looked up when the path is not the thread's last (path2: the last
 * of any thread). */
static inline __attribute__((always_inline)) int
tbuf_put_syscall(struct tbuf *t, const struct tape_syscall *e)
{
	const char *p1 = e->path ? e->path : "";
	struct sdict *d1 = t->sc_path, *d2 = t->sc_path2;
	uint32_t tid = e->tid, pi, pi2;
	unsigned h = tid & 63;
	size_t l1, r = t->rows;
	int64_t i;
	/* The thread's last path (tidpath holds index + 1: 0, none, gives an
	 * index out of range), compared in place: its length is known, no
	 * strlen() first. */
	pi = t->tidpath[h] - 1;
	int hit = t->tidkey[h] == tid && pi < d1->n && ((l1 = d1->len[pi]) == 0 ||
		  !strncmp(p1, (const char *)d1->arena.p + d1->off[pi], l1)) && !p1[l1];
	if (!hit)
		l1 = p1[0] ? strlen(p1) : 0;
	const char *p2 = e->path2 ? e->path2 : "";
	size_t l2 = p2[0] ? strlen(p2) : 0;

	if (l1 > TAPE_MAX_STRING || l2 > TAPE_MAX_STRING)
		return tape__fail(-E2BIG, "string of column %s longer than %u bytes",
				  l1 > TAPE_MAX_STRING ? "path" : "path2", TAPE_MAX_STRING);
	if (hit) {
		d1->last = pi;
	} else {
		if ((i = tbuf_str(t, d1, p1, l1)) < 0)
			return (int)i;
		pi = (uint32_t)i;
	}
	pi2 = d2->last;
	if (!(pi2 < d2->n && d2->len[pi2] == l2 &&
	      (!l2 || bytes_equal(d2->arena.p + d2->off[pi2], p2, l2)))) {
		if ((i = tbuf_str(t, d2, p2, l2)) < 0)
			return (int)i;
		pi2 = (uint32_t)i;
	}
	t->tidkey[h] = tid;
	t->tidpath[h] = pi + 1;
	uint64_t *row = t->mem + r;
	const size_t k = t->stride;
	/* the output side only where the op has one: a zeroed struct is a
	 * correct row of any other op, and the columns stay constant */
	uint64_t fd2 = UINT64_MAX, fid2 = 0, off2 = 0;
	if (__builtin_expect(tape__op_has_output(e->op), 0)) {
		fd2 = (uint64_t)e->fd2;
		fid2 = e->file_id2;
		off2 = e->offset2;
		t->sc_out |= (fd2 + 1) | fid2 | off2;
	}
	row[SC_TS * k] = e->ts_ns;
	row[SC_DUR * k] = e->dur_ns;
	row[SC_PID * k] = e->pid;
	row[SC_TID * k] = tid;
	row[SC_OP * k] = e->op;
	row[SC_FD * k] = (uint64_t)e->fd;
	row[SC_FILE_ID * k] = e->file_id;
	row[SC_OFFSET * k] = e->offset;
	row[SC_SIZE * k] = e->size;
	row[SC_RET * k] = (uint64_t)e->ret;
	row[SC_FLAGS * k] = e->flags;
	row[SC_PATH * k] = pi;
	row[SC_PATH2 * k] = pi2;
	row[SC_FD2 * k] = fd2;
	row[SC_FILE_ID2 * k] = fid2;
	row[SC_OFFSET2 * k] = off2;
	return 0;
}

/* tbuf_put() for the file table (a row per file a trace names), the same
 * way; its path is mostly new: straight to the dictionary. */
static __attribute__((noinline)) int tbuf_put_file(struct tbuf *t, const struct tape_file *e)
{
	const char *p = e->path ? e->path : "";
	size_t l = strlen(p);
	int64_t pi;

	if (l > TAPE_MAX_STRING)
		return tape__fail(-E2BIG, "string of column %s longer than %u bytes", "path",
				  TAPE_MAX_STRING);
	if ((pi = tbuf_str(t, t->fc_path, p, l)) < 0)
		return (int)pi;
	uint64_t *row = t->mem + t->rows;
	const size_t k = t->stride;
	row[FC_TS * k] = e->ts_ns;
	row[FC_FILE_ID * k] = e->file_id;
	row[FC_DEV * k] = e->dev;
	row[FC_INODE * k] = e->inode;
	row[FC_SIZE * k] = e->size;
	row[FC_MODE * k] = e->mode;
	row[FC_PATH * k] = (uint64_t)pi;
	row[FC_FSTYPE * k] = e->fstype;
	t->fc_fstype |= e->fstype;
	return 0;
}

static __attribute__((noinline)) int tbuf_put_any(struct tbuf *t, const void *ev)
{
	const struct tape_table_def *def = t->def;
	const char *strs[TAPE_MAX_STRCOLS];
	size_t lens[TAPE_MAX_STRCOLS];
	const char *e = ev;

	/* Check every string first so a refused event changes nothing. */
	for (unsigned i = 0; i < t->ns; i++) {
		const char *s;
		memcpy(&s, e + t->offs[i], sizeof(s));
		s = s ? s : "";
		lens[i] = strlen(s);
		if (lens[i] > TAPE_MAX_STRING)
			return tape__fail(-E2BIG, "string of column %s longer than %u bytes",
					  def->cols[t->strcol[i]].name, TAPE_MAX_STRING);
		strs[i] = s;
	}
	size_t r = t->rows;
	for (unsigned i = 0; i < t->n8; i++)
		memcpy(&t->dst8[i][r], e + t->off8[i], 8);
	for (unsigned i = 0; i < t->n4; i++) {
		uint32_t v;
		memcpy(&v, e + t->off4[i], 4);
		t->dst4[i][r] = v;
	}
	for (unsigned i = 0; i < t->ns; i++) {
		unsigned c = t->strcol[i];
		int64_t k = tbuf_str(t, &t->dicts[c], strs[i], lens[i]);
		if (k < 0)
			return (int)k;
		t->cols[c][r] = (uint64_t)k;
	}
	return 0;
}

/* Store event ev as row t->rows (not counted yet: the caller does
 * t->rows++).  -E2BIG for an over-long string changes nothing; -ENOMEM may
 * leave the row half written, unused. */
static inline int tbuf_put(struct tbuf *t, const void *ev)
{
	return t->sc_path2 ? tbuf_put_syscall(t, ev) :
	       t->fc_path ? tbuf_put_file(t, ev) : tbuf_put_any(t, ev);
}

/* The buffer of a table's first event (or of an unknown table); NULL
 * and *err on failure. */
static __attribute__((noinline)) struct tbuf *tbuf_first(tape_writer *w, int table, int *err)
{
	const struct tape_table_def *def = tape__table(table);
	struct tbuf *t;

	if (!def) {
		*err = tape__fail(-EINVAL, "unknown table %d", table);
		return NULL;
	}
	t = &w->tables[table];
	if (!t->def && (*err = tbuf_init(t, def, w->block_rows))) {
		tbuf_release(t);
		set_err(w, *err);
		return NULL;
	}
	return t;
}

int tape_writer_append(tape_writer *w, int table, const void *ev)
{
	struct tbuf *t;
	int err;

	if (w->err)
		return w->err;
	if ((unsigned)table < TAPE_TABLE_MAX && w->tables[table].def)
		t = &w->tables[table];
	else if (!(t = tbuf_first(w, table, &err)))
		return err;
	err = t->sc_path2 ? tbuf_put_syscall(t, ev) :
	      t->fc_path ? tbuf_put_file(t, ev) : tbuf_put_any(t, ev);
	if (err)
		return err == -E2BIG ? err : set_err(w, err);
	t->rows++;
	w->events++;
	/* Cut the block early when its strings grow large, so no block's raw
	 * size can reach TAPE_MAX_RAW (each event adds at most
	 * TAPE_MAX_STRCOLS * TAPE_MAX_STRING bytes of text). */
	if (t->rows == w->block_rows || t->text >= TAPE_MAX_RAW / 4)
		return set_err(w, write_block(w, t));
	return 0;
}

int tape_writer_flush(tape_writer *w)
{
	int err;
	if (w->err)
		return w->err;
	for (int i = 1; i < TAPE_TABLE_MAX; i++)
		if ((err = write_block(w, &w->tables[i])))
			return set_err(w, err);
	if ((err = flush_meta(w)))
		return set_err(w, err);
	if ((w->flags & TAPE_WRITE_FSYNC) && fdatasync(w->fd))
		return set_err(w, tape__fail(-errno, "fdatasync: %s", strerror(errno)));
	return 0;
}

static int write_index(tape_writer *w)
{
	size_t n = w->nindex;
	uint64_t index_off;
	uint8_t tr[TAPE_TRAILER_SIZE];
	int err;

	w->raw.len = 0;
	if ((err = buf_reserve(&w->raw, n * TAPE_INDEX_ENTRY)))
		return err;
	for (size_t i = 0; i < n; i++) {
		uint8_t *e = w->raw.p + i * TAPE_INDEX_ENTRY;
		put_le64(e, w->index[i].off);
		e[8] = w->index[i].type;
		e[9] = 0;
		put_le16(e + 10, w->index[i].table);
		put_le32(e + 12, w->index[i].count);
		put_le64(e + 16, w->index[i].tmin);
		put_le64(e + 24, w->index[i].tmax);
	}
	w->raw.len = n * TAPE_INDEX_ENTRY;
	index_off = w->off;
	if ((err = write_chunk(w, CHUNK_INDEX, 0, (uint32_t)n, 0, 0, w->raw.p, w->raw.len, 1)))
		return err;
	put_le64(tr, index_off);
	put_le32(tr + 8, XXH32(tr, 8, 0));
	put_le32(tr + 12, 0);
	memcpy(tr + 16, TAPE_TRAILER_MAGIC, 8);
	return write_all(w, tr, sizeof(tr));
}

int tape_writer_close(tape_writer *w)
{
	int err;
	if (!w)
		return 0;
	err = tape_writer_flush(w);
	if (!err)
		err = set_err(w, write_index(w));
	if (!err && (w->flags & TAPE_WRITE_FSYNC) && fdatasync(w->fd))
		err = set_err(w, tape__fail(-errno, "fdatasync: %s", strerror(errno)));
	if (w->fd >= 0 && close(w->fd) && !err)
		err = tape__fail(-errno, "close: %s", strerror(errno));
	w->fd = -1;
	err = w->err ? w->err : err;
	tape_writer_free(w);
	return err;
}

void tape_writer_free(tape_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	for (int i = 0; i < TAPE_TABLE_MAX; i++)
		tbuf_release(&w->tables[i]);
	ZSTD_freeCCtx(w->cctx);
	enc_ctx_release(&w->enc);
	buf_release(&w->raw);
	buf_release(&w->comp);
	buf_release(&w->meta);
	free(w->index);
	free(w);
}

uint64_t tape_writer_events(const tape_writer *w)
{
	return w->events;
}

uint64_t tape_writer_bytes(const tape_writer *w)
{
	return w->off;
}

/* ------------------------------------------------------------ test hooks */

int tape_writer__raw_chunk(tape_writer *w, uint8_t type, uint16_t table,
			   uint32_t count, uint64_t tmin, uint64_t tmax,
			   const void *raw, size_t raw_len)
{
	return set_err(w, write_chunk(w, type, table, count, tmin, tmax, raw, raw_len, 1));
}

int tape__encode_block(int table, const void *evs, size_t n, int extra_cols,
		       struct buf *out)
{
	const struct tape_table_def *def = tape__table(table);
	struct tbuf t = { 0 };
	int err;

	if (!def)
		return -EINVAL;
	if ((err = tbuf_init(&t, def, n ? (unsigned)n : 1)))
		goto out;
	for (size_t r = 0; r < n; r++, t.rows++)
		if ((err = tbuf_put(&t, (const char *)evs + r * def->size)))
			goto out;
	struct enc_ctx x = { .cctx = ZSTD_createCCtx(), .level = 1 };
	/* every column, those a writer leaves out included: the tests
	 * change and drop them by hand */
	err = x.cctx ? encode_columns(&x, def, t.cols, t.dicts, n, extra_cols, 0, out) :
		       -ENOMEM;
	enc_ctx_release(&x);
out:
	tbuf_release(&t);
	return err;
}
