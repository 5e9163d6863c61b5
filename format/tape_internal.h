/* SPDX-License-Identifier: MIT */
/*
 * tape_internal.h - on-disk layout and helpers private to libtape.
 *
 * The normative description is man/iotape-format.5; this file must agree
 * with it.  Everything on disk is little-endian.
 *
 * File       = Header (32 bytes) , Chunk* , [ IndexChunk , Trailer (24) ]
 *
 * Header:  0  u8[8] magic  89 49 4F 54 0D 0A 1A 0A  ("\x89IOT\r\n\x1a\n")
 *          8  u16 major (1)   10 u16 minor (0)
 *         12  u32 header_size (32; first chunk starts here)
 *         16  u64 required feature flags (1.1: bit 0 TAPE_REQ_11; a reader
 *             refuses any bit it does not know)
 *         24  u32 optional feature flags (ignored when unknown)
 *         28  u32 xxh32(bytes 0..27, seed 0)
 *
 * Chunk header (48 bytes), then stored_size payload bytes:
 *          0  u8[4] magic "ITCK"
 *          4  u8  type (1 META, 2 BLOCK, 3 INDEX; unknown types are skipped)
 *          5  u8  codec (0 stored, 1 zstd frame)
 *          6  u16 table id (BLOCK) else 0
 *          8  u32 count (rows, meta entries, index entries)
 *         12  u32 stored_size
 *         16  u32 raw_size (after decompression)
 *         20  u32 header check: xxh32 of the 48 bytes with this field 0
 *         24  u64 t_min  32 u64 t_max (BLOCK: of column ts_ns; else 0)
 *         40  u64 xxh64 of the stored payload (seed 0)
 *
 * META payload:  count x { varint klen, key, varint vlen, value }
 * INDEX payload: count x 32 bytes { u64 offset, u8 type, u8 0, u16 table,
 *                u32 count, u64 t_min, u64 t_max } (every chunk but itself)
 * Trailer (last 24 bytes): u64 index offset, u32 xxh32(those 8 bytes),
 *                u32 0, u8[8] "ITAPEEND"
 *
 * BLOCK payload (raw): u16 ncols, u16 0, ncols x { u16 col id, u8 type,
 *                u8 encoding, u32 size }, then the column data in order.
 * Encoding byte: bits 0-5 the encoding id below; 0x40 PRED (values are
 *                residuals of the syscall prediction, predict.c); 0x80 ZSTD
 *                (the column's bytes are exactly one zstd frame holding
 *                the encoded column).  Writers store BLOCK chunks with
 *                codec 0 and compress columns one by one.
 * Integer encodings (count values):
 *   1 RAW       count x u64
 *   2 VARINT    count x LEB128(v)
 *   3 ZVARINT   count x LEB128(zigzag(v as int64))
 *   4 DELTA     count x LEB128(zigzag(v[i] - v[i-1])), v[-1] = 0
 *   5 BITPACK   LEB128 base, u8 width (0..64), packed (v - base), LSB first
 *   6 DBITPACK  LEB128 v[0], then as BITPACK over the count-1 values
 *               zigzag(v[i] - v[i-1]), i >= 1
 *   7 DICT      LEB128 n, n x LEB128 value, u8 width, packed indices
 *   8 PBITPACK  LEB128 base, u8 width, LEB128 nexc, packed low bits of
 *               (v - base), nexc x { LEB128 index gap, LEB128 (v-base) >> w }
 *   9 DPBITPACK LEB128 v[0], then as PBITPACK over the count-1 deltas
 *  10 EXP       (1.1) LEB128 base, then bit lengths and mantissas (expenc.c)
 *  11 DEXP      (1.1) LEB128 v[0], LEB128 zigzag(least delta), then as EXP
 * String encodings:
 *   16 SDICT    LEB128 n, n x { LEB128 len, bytes }, u8 int encoding,
 *               the indices in that integer encoding
 */
#ifndef IOTAPE_TAPE_INTERNAL_H
#define IOTAPE_TAPE_INTERNAL_H

#include <stdint.h>
#include <string.h>
#include "tape.h"

#define TAPE_MAGIC "\x89IOT\r\n\x1a\n"
#define TAPE_HEADER_SIZE 32
#define TAPE_CHUNK_MAGIC "ITCK"
#define TAPE_CHUNK_HDR 48
#define TAPE_TRAILER_MAGIC "ITAPEEND"
#define TAPE_TRAILER_SIZE 24
#define TAPE_INDEX_ENTRY 32

/* Required flag bit 0 (format 1.1): the file may use the encodings EXP and
 * DEXP and the syscall prediction of pid and op.  The writer sets it in
 * every file it writes. */
#define TAPE_REQ_11 1ull
#define TAPE_REQUIRED_KNOWN TAPE_REQ_11 /* required flags this reader understands */

enum { CHUNK_META = 1, CHUNK_BLOCK = 2, CHUNK_INDEX = 3 };
enum { CODEC_STORED = 0, CODEC_ZSTD = 1 };
enum {
	ENC_RAW = 1, ENC_VARINT = 2, ENC_ZVARINT = 3, ENC_DELTA = 4,
	ENC_BITPACK = 5, ENC_DBITPACK = 6, ENC_DICT = 7,
	ENC_PBITPACK = 8, ENC_DPBITPACK = 9,
	ENC_EXP = 10, ENC_DEXP = 11,	/* 1.1, TAPE_REQ_11 */
	ENC_SDICT = 16,
};

/* Room for one event of any table (a copy the transforms change before
 * they write it: merge.c, split.c). */
union tape_event_any {
	struct tape_syscall s;
	struct tape_block b;
	struct tape_cache c;
	struct tape_process p;
	struct tape_file f;
	struct tape_sample m;
	struct tape_sched d;
};

/* Limits a reader enforces so a hostile file cannot exhaust memory. */
#define TAPE_MAX_ROWS (1u << 20)	/* rows per block */
#define TAPE_MAX_RAW (256u << 20)	/* raw payload bytes per chunk */
#define TAPE_MAX_COLS 1024
#define TAPE_MAX_DICT 256		/* integer dictionary entries */
#define TAPE_DEFAULT_ROWS 32768

struct tape_table_def {
	int id;
	const char *name;
	size_t size;
	const struct tape_column *cols;
	size_t ncols;
};

const struct tape_table_def *tape__table(int id);

#define TAPE_MAX_STRCOLS 8	/* string columns per known table */
#define TAPE_MAX_COLS_KNOWN 64	/* columns per known table (ids < 64) */

static inline void put_le16(uint8_t *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }
static inline void put_le32(uint8_t *p, uint32_t v)
{ for (int i = 0; i < 4; i++) p[i] = v >> (8 * i); }
static inline void put_le64(uint8_t *p, uint64_t v)
{ for (int i = 0; i < 8; i++) p[i] = v >> (8 * i); }
static inline uint16_t get_le16(const uint8_t *p) { return p[0] | (uint16_t)p[1] << 8; }
static inline uint32_t get_le32(const uint8_t *p)
{ uint32_t v = 0; for (int i = 3; i >= 0; i--) v = v << 8 | p[i]; return v; }
static inline uint64_t get_le64(const uint8_t *p)
{ uint64_t v = 0; for (int i = 7; i >= 0; i--) v = v << 8 | p[i]; return v; }

static inline uint64_t zigzag(uint64_t v) { return (v << 1) ^ (uint64_t)((int64_t)v >> 63); }
static inline uint64_t unzigzag(uint64_t v) { return (v >> 1) ^ (0 - (v & 1)); }

/* Growable byte buffer. */
struct buf {
	uint8_t *p;
	size_t len, cap;
};
int buf_reserve(struct buf *b, size_t extra);
void buf_release(struct buf *b);
static inline void buf_put_u8(struct buf *b, uint8_t v) { b->p[b->len++] = v; }
/* Caller reserved 10 bytes. */
static inline void buf_put_varint(struct buf *b, uint64_t v)
{
	while (v >= 0x80) {
		b->p[b->len++] = (uint8_t)v | 0x80;
		v >>= 7;
	}
	b->p[b->len++] = (uint8_t)v;
}
static inline size_t varint_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) { v >>= 7; n++; }
	return n;
}

/* Bounded reader over a byte range; every get checks the end. */
struct rd {
	const uint8_t *p, *end;
};
int rd_varint_slow(struct rd *r, uint64_t *v);
/* 0 or -EBADMSG; one-byte values (most of them) without a call. */
static inline int rd_varint(struct rd *r, uint64_t *v)
{
	if (r->p < r->end && *r->p < 0x80) {
		*v = *r->p++;
		return 0;
	}
	return rd_varint_slow(r, v);
}

/* Encode count integers (already as u64) in the best encoding, or in
 * force_enc when non-zero: ENC_CHOOSE_ALL lets the choice include the
 * encodings of 1.1 (EXP, DEXP), which carry zstd frames of their own and
 * must not go through column compression again.  Appends to out; *enc
 * gets the encoding. */
#define ENC_CHOOSE_ALL 0x100
int tape_int_encode(const uint64_t *v, size_t count, struct buf *out,
		    uint8_t *enc, int force_enc);
/* Decode exactly count values from [p, p+len); the data must be fully used.
 * The 8 bytes after p+len must be readable (the caller pads). */
int tape_int_decode(uint8_t enc, const uint8_t *p, size_t len, size_t count,
		    uint64_t *out);

/* Streaming decoder of one integer column: init checks the header and the
 * size, next() yields the following k values. */
struct coldec {
	uint8_t enc;
	unsigned width;
	size_t n, done;
	const uint8_t *p, *end;
	uint64_t base, prev, nd, first;
	/* patched variants: the next exception (index in the packed stream) */
	size_t nexc, excidx;
	uint64_t exchi;
	const uint8_t *exc;
	/* EXP, DEXP: the exponents (in xb when they were compressed; xb is
	 * kept from block to block), the bit position in the mantissas */
	const uint8_t *xp;
	struct buf xb;
	uint64_t bitpos;
	uint64_t dict[TAPE_MAX_DICT];
};
int tape_coldec_init(struct coldec *d, uint8_t enc, const uint8_t *p,
		     size_t len, size_t n);
int tape_coldec_next(struct coldec *d, size_t k, uint64_t *out);
/* Free what a decoder keeps between blocks (the struct itself is the
 * caller's). */
void tape_coldec_release(struct coldec *d);

/* Per-thread scratch of the encoders, kept between columns and freed when
 * the thread exits (NULL when out of memory): transformed values, the
 * groups of a patched column with exceptions (encode.c); the zstd contexts
 * and exponents of EXP and DEXP (expenc.c). */
struct enc_scratch {
	uint64_t *t;
	size_t tcap;
	uint32_t *groups;
	size_t gcap;
	struct ZSTD_CCtx_s *xcctx;
	struct ZSTD_DCtx_s *xdctx;
	struct buf x;
};
struct enc_scratch *tape__scratch(void);

/* expenc.c: EXP and DEXP.  The estimate takes the bit lengths of a sample
 * (h[e], e = 0..64) standing for m values and returns the section's bytes;
 * put writes the section for u[0..m); init/next decode (d->enc set). */
size_t tape__exp_estimate(const uint32_t h[65], size_t m);
int tape__exp_put(struct buf *out, const uint64_t *u, size_t m);
int tape__exp_init(struct coldec *d, const uint8_t *p, size_t len, size_t n);
void tape__exp_next(struct coldec *d, size_t k, uint64_t *out);

/* x[i] = zigzag(x[i]), resp. unzigzag(x[i]), for i < k (AVX2 when the
 * CPU has it). */
void tape_zigzag_n(uint64_t *x, size_t k);
void tape_unzigzag_n(uint64_t *x, size_t k);

/* Encoding byte flags (directory entries and SDICT index encodings). */
#define ENC_ID(e)	((e) & 0x3f)
#define ENC_PRED	0x40	/* values are residuals of the table's prediction */
#define ENC_ZSTD	0x80	/* column bytes are one zstd frame */

/* Syscall columns by on-disk id (the prediction works on ids). */
enum {
	SC_TS = 0, SC_DUR = 1, SC_PID = 2, SC_TID = 3, SC_OP = 4, SC_FD = 5,
	SC_FILE_ID = 6, SC_OFFSET = 7, SC_SIZE = 8, SC_RET = 9, SC_FLAGS = 10,
	SC_PATH = 11, SC_PATH2 = 12,
	/* the output side of a copy: not predicted, and a writer leaves them
	 * out of blocks without a copy (a missing fd2 reads as -1) */
	SC_FD2 = 13, SC_FILE_ID2 = 14, SC_OFFSET2 = 15, SC_NCOLS = 16,
};
/* The columns every syscall block of the reference writer holds. */
#define SC_BASE ((1u << SC_FD2) - 1)
#define SC_OUTPUT ((1u << SC_FD2) | (1u << SC_FILE_ID2) | (1u << SC_OFFSET2))
/* The ops with an output side, as a mask the writer tests inline;
 * tape_op_has_output() answers from it too. */
#define TAPE_OPS_OUTPUT ((1ull << TAPE_OP_SENDFILE) | (1ull << TAPE_OP_COPY_FILE_RANGE) | \
			 (1ull << TAPE_OP_SPLICE))
static inline int tape__op_has_output(uint64_t op)
{
	return op < 64 && ((TAPE_OPS_OUTPUT >> op) & 1);
}
/* File table columns by on-disk id.  fstype (added later) is left out of
 * blocks whose rows all have 0 (unknown), what a reader gives a block
 * without it. */
enum { FC_TS, FC_FILE_ID, FC_DEV, FC_INODE, FC_SIZE, FC_MODE, FC_PATH, FC_FSTYPE,
       FC_NCOLS };

/* The columns a 1.0 writer predicts; 1.1 adds pid and op (TAPE_REQ_PRED2). */
#define SC_PREDICTED_10 ((1u << SC_FD) | (1u << SC_SIZE) | (1u << SC_FLAGS) | \
			 (1u << SC_FILE_ID) | (1u << SC_PATH) | (1u << SC_RET) | \
			 (1u << SC_OFFSET))
#define SC_PREDICTED (SC_PREDICTED_10 | (1u << SC_PID) | (1u << SC_OP))

struct pstate {
	uint32_t tid;
	uint64_t offset, ret, file_id, path, pid, op;
	uint64_t fd[64], size[64], flags[64];
	uint64_t next[64];	/* the op that followed op (mod 64) last time */
};
struct pred {
	struct pstate *s;
	uint32_t *slot;
	uint32_t nslots, n;
	uint32_t last;	/* index of the state found last (rows come in runs) */
};
void pred_reset(struct pred *p);
void pred_release(struct pred *p);
struct pstate *pred_state_slow(struct pred *p, uint32_t tid);
/* The state of thread tid, created (zeroed) when new; NULL on ENOMEM.  The
 * thread of the previous row and one probe of the table inline. */
static inline struct pstate *pred_state(struct pred *p, uint32_t tid)
{
	if (p->n && p->s[p->last].tid == tid)
		return &p->s[p->last];
	if (p->nslots) {
		uint32_t i = p->slot[(tid * 0x9E3779B1u) & (p->nslots - 1)];
		if (i && p->s[i - 1].tid == tid) {
			p->last = i - 1;
			return &p->s[i - 1];
		}
	}
	return pred_state_slow(p, tid);
}
/* col/res indexed by syscall column id; rows 0..n-1 of one block. */
/* *op_hits: the rows whose op the prediction got right. */
int pred_encode_syscall(struct pred *p, uint64_t *const col[SC_NCOLS],
			uint64_t *const res[SC_NCOLS], size_t n, size_t *op_hits);
/* In place, k rows continuing the block; predmask: columns that are residuals. */
int pred_decode_syscall(struct pred *p, uint64_t *const col[SC_NCOLS],
			unsigned predmask, size_t k);

/* strings.c, for tape_cursor_read_columns(): a new block's strings (the
 * pointer cache is for one block), and the ids of k strings found every
 * stride bytes from strs (a column of event structs), added when new. */
void tape__strings_new_block(tape_strings *s);
/* ids[i] = the id of p[i], i < n, added when new: 0 or -errno (the ids of
 * the strings before the failure are set and stay). */
int tape__strings_intern_n(tape_strings *s, const char *const *p, size_t n, uint32_t *ids);
int tape__strings_ids(tape_strings *s, const char *const *strs, size_t stride,
		      size_t k, uint32_t *ids);

/* Set an error detail (printf-style) and return err. */
int tape__fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Test hooks: force every integer column to one encoding (0 = choose). */
extern int tape__force_encoding;
/* Test hook: write syscall blocks without the prediction. */
extern int tape__no_predict;
/* Test hook: write a raw chunk (for unknown tables/columns/types). */
int tape_writer__raw_chunk(tape_writer *w, uint8_t type, uint16_t table,
			   uint32_t count, uint64_t tmin, uint64_t tmax,
			   const void *raw, size_t raw_len);
/* Test hook: encode a block of the given table from event structs, with
 * extra_cols additional (unknown) integer columns of ids 900+ appended;
 * every known column is written, even those a writer would leave out. */
int tape__encode_block(int table, const void *evs, size_t n, int extra_cols,
		       struct buf *out);

/* Transforms (merge.c, split.c; xform.c): fill e and return err. */
struct tape_xform_error;
void tape__xclear(struct tape_xform_error *e);
int tape__xerr(struct tape_xform_error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A libtape error err of the file what (e->msg left ""). */
int tape__xtape(struct tape_xform_error *e, int err, const char *what);

#endif
