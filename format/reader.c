/* SPDX-License-Identifier: MIT */
/*
 * reader.c - trace reader and cursors.
 *
 * Traces come from other sites, so nothing in the file is trusted: every
 * size is bounded before it is allocated, every offset is checked against
 * the file size, every payload is checksummed before it is decoded, and the
 * decoders check every count.  A damaged block stops a cursor with
 * -EBADMSG after all earlier events were delivered; a missing or damaged
 * footer is replaced by an index rebuilt from the chunk headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>
#include "tape_internal.h"
#include "tape_vec.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <stddef.h>
#include <immintrin.h>
#endif

#define PAD 16	/* readable bytes past decoded data (bit unpacking) */
#define TILE 256	/* rows decoded at a time: keeps the work in cache */

struct entry {
	uint64_t off;
	uint64_t end;	/* offset of the next chunk */
	uint8_t type;
	uint16_t table;
	uint32_t count;
	uint64_t tmin, tmax;
};

struct tape_reader {
	int fd, own_fd;
	uint64_t size;
	unsigned major, minor;
	uint32_t header_size;
	struct entry *ents;
	size_t nents;
	char *recovered;
	uint64_t trailing;
	char **keys, **vals;
	size_t nmeta;
	struct tape_table_stats stats[TAPE_TABLE_MAX];
	uint64_t unknown_blocks;
	uint64_t damaged;		/* META chunks that could not be read */
	char damaged_detail[256];
};

struct tape_cursor {
	tape_reader *r;
	const struct tape_table_def *def;
	int colmap[64];		/* on-disk column id -> index in def, -1 */
	uint64_t from, to;
	size_t next;		/* next entry to look at */
	ZSTD_DCtx *dctx;
	struct buf stored, raw;
	uint8_t *evs;
	size_t nevs, capevs, pos;
	const char **strp;	/* per string slot, the block's dictionary */
	size_t capstrp;
	uint32_t *slen;		/* the lengths of one dictionary's strings */
	struct coldec *dec;	/* per known column */
	struct buf *colz;	/* per known column: decompressed bytes */
	uint64_t *tile;		/* ncols x TILE decoded values */
	unsigned tslot[TAPE_MAX_COLS_KNOWN]; /* column -> its TILE in tile */
	uint64_t deftile;	/* columns (by index) whose TILE holds the default
				 * of a missing column whole: not filled again */
	int byid;		/* tslot[ci] is the column's id */
	struct pred pred;
	int idxpred;		/* last string column's indices were predicted */
	struct { uint16_t off, len; } gap[16]; /* struct bytes no column covers */
	size_t ngaps;
	unsigned strslot[TAPE_MAX_COLS_KNOWN]; /* string column -> slot */
	int err;
	/* tape_cursor_read_columns() of a whole block: the block's columns go
	 * from the tiles to the caller's arrays, no structs in between */
	struct colsink *sink;
	uint32_t *sids;		/* per string slot, dictionary index -> string id */
	size_t capsids;
	int sinkfail;		/* the sink's string table could not grow */
	/* decoding on several threads (tape_cursor_set_threads()) */
	unsigned nthreads;
	tape_cursor **helpers;	/* the other threads' decoders, opened as needed */
	unsigned nhelpers;
	struct job *jobs;	/* read_batch()'s plan */
	int defer;		/* string columns' dictionary indexes go to didx,
				 * made ids later (read_batch()) */
	uint32_t *didx;		/* per string slot, the block's indexes */
	size_t capdidx;
	int dicts;		/* decode_block() got to the string ids */
	uint64_t lastseen;	/* the columns of the block decoded last ... */
	uint64_t lastnd[TAPE_MAX_STRCOLS]; /* ... and its dictionaries' sizes */
	struct ahead *ahead;	/* tape_cursor_set_readahead() */
};

struct colsink {
	const unsigned *cols;	/* indexes into the table's columns */
	size_t ncols;
	void *const *out;	/* the caller's arrays */
	size_t at;		/* first element of this block in them */
	tape_strings *strs;
};

static int read_at(const tape_reader *r, void *p, size_t len, uint64_t off)
{
	uint8_t *c = p;
	while (len) {
		ssize_t n = pread(r->fd, c, len, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return tape__fail(-errno, "read at offset %llu: %s",
					  (unsigned long long)off, strerror(errno));
		}
		if (n == 0)
			return tape__fail(-EBADMSG, "file ends at offset %llu (truncated?)",
					  (unsigned long long)off);
		c += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

struct chdr {
	uint8_t type, codec;
	uint16_t table;
	uint32_t count, stored, raw;
	uint64_t tmin, tmax, xxh;
};

/* Decompress exactly one zstd frame of len bytes into size bytes at dst;
 * NULL, or what was wrong. */
static const char *unzstd(ZSTD_DCtx *d, uint8_t *dst, size_t size,
			  const uint8_t *src, size_t len)
{
	if (ZSTD_findFrameCompressedSize(src, len) != len)
		return "not one zstd frame";
	size_t n = ZSTD_decompressDCtx(d, dst, size, src, len);
	if (ZSTD_isError(n))
		return ZSTD_getErrorName(n);
	return n == size ? NULL : "wrong size";
}

/* Read and check a chunk header; 0, or -EBADMSG with a detail. */
static int read_chunk_header(const tape_reader *r, uint64_t off, struct chdr *c)
{
	uint8_t h[TAPE_CHUNK_HDR];
	int err;

	if (off + TAPE_CHUNK_HDR > r->size)
		return tape__fail(-EBADMSG, "chunk header at offset %llu runs past the end of the file",
				  (unsigned long long)off);
	if ((err = read_at(r, h, sizeof(h), off)))
		return err;
	if (memcmp(h, TAPE_CHUNK_MAGIC, 4))
		return tape__fail(-EBADMSG, "no chunk at offset %llu (bad chunk magic)",
				  (unsigned long long)off);
	uint32_t check = get_le32(h + 20);
	put_le32(h + 20, 0);
	if (XXH32(h, sizeof(h), 0) != check)
		return tape__fail(-EBADMSG, "chunk header at offset %llu is damaged (header check mismatch)",
				  (unsigned long long)off);
	c->type = h[4];
	c->codec = h[5];
	c->table = get_le16(h + 6);
	c->count = get_le32(h + 8);
	c->stored = get_le32(h + 12);
	c->raw = get_le32(h + 16);
	c->tmin = get_le64(h + 24);
	c->tmax = get_le64(h + 32);
	c->xxh = get_le64(h + 40);
	if (off + TAPE_CHUNK_HDR + c->stored > r->size)
		return tape__fail(-EBADMSG, "chunk at offset %llu runs past the end of the file",
				  (unsigned long long)off);
	return 0;
}

/* Read a chunk's payload, verify it and decompress it into out (+PAD). */
static int load_payload(const tape_reader *r, uint64_t off, const struct chdr *c,
			ZSTD_DCtx *dctx, struct buf *stored, struct buf *out)
{
	int err;
	if (c->raw > TAPE_MAX_RAW || c->stored > TAPE_MAX_RAW + (TAPE_MAX_RAW >> 4))
		return tape__fail(-EBADMSG, "chunk at offset %llu claims %u bytes, above the format's limit",
				  (unsigned long long)off, c->raw);
	stored->len = 0;
	if ((err = buf_reserve(stored, (size_t)c->stored + PAD)))
		return err;
	if ((err = read_at(r, stored->p, c->stored, off + TAPE_CHUNK_HDR)))
		return err;
	if (XXH64(stored->p, c->stored, 0) != c->xxh)
		return tape__fail(-EBADMSG, "chunk at offset %llu is damaged (checksum mismatch)",
				  (unsigned long long)off);
	out->len = 0;
	if (c->codec == CODEC_STORED) {
		if (c->stored != c->raw)
			return tape__fail(-EBADMSG, "stored chunk at offset %llu has inconsistent sizes",
					  (unsigned long long)off);
		/* the payload is the raw data: hand the buffer over, no copy */
		struct buf t = *out;
		*out = *stored;
		*stored = t;
	} else if (c->codec == CODEC_ZSTD) {
		if ((err = buf_reserve(out, (size_t)c->raw + PAD)))
			return err;
		const char *why = unzstd(dctx, out->p, c->raw, stored->p, c->stored);
		if (why)
			return tape__fail(-EBADMSG, "chunk at offset %llu does not decompress: %s",
					  (unsigned long long)off, why);
	} else {
		return tape__fail(-ENOTSUP, "chunk at offset %llu uses unknown codec %u",
				  (unsigned long long)off, c->codec);
	}
	out->len = c->raw;
	memset(out->p + out->len, 0, PAD);
	return 0;
}

static int add_entry(tape_reader *r, size_t *cap, const struct entry *e)
{
	if (TAPE_VEC_GROW(r->ents, *cap, r->nents + 1, 64))
		return -ENOMEM;
	r->ents[r->nents++] = *e;
	return 0;
}

static int set_recovered(tape_reader *r, const char *fmt, const char *why)
{
	char msg[600];
	snprintf(msg, sizeof(msg), fmt, why);
	free(r->recovered);
	r->recovered = strdup(msg);
	return r->recovered ? 0 : -ENOMEM;
}

/* Try the footer; 0 when the index was loaded, 1 when it must be rebuilt. */
static int load_footer(tape_reader *r, ZSTD_DCtx *dctx)
{
	uint8_t tr[TAPE_TRAILER_SIZE];
	struct buf stored = { 0 }, raw = { 0 };
	struct chdr c;
	size_t cap = 0;
	int err, rc = 1;

	if (r->size < r->header_size + TAPE_CHUNK_HDR + TAPE_TRAILER_SIZE) {
		set_recovered(r, "%s", "no footer index (the recording did not finish)");
		return 1;
	}
	if ((err = read_at(r, tr, sizeof(tr), r->size - TAPE_TRAILER_SIZE)))
		return err;
	if (memcmp(tr + 16, TAPE_TRAILER_MAGIC, 8)) {
		set_recovered(r, "%s", "no footer index (the recording did not finish)");
		return 1;
	}
	uint64_t ioff = get_le64(tr);
	uint64_t iend = r->size - TAPE_TRAILER_SIZE;
	if (XXH32(tr, 8, 0) != get_le32(tr + 8) || ioff < r->header_size ||
	    ioff > iend || iend - ioff < TAPE_CHUNK_HDR) {
		tape__fail(-EBADMSG, "trailer is damaged");
		goto damaged;
	}
	if (read_chunk_header(r, ioff, &c))
		goto damaged;
	if (c.type != CHUNK_INDEX || ioff + TAPE_CHUNK_HDR + c.stored != iend ||
	    (uint64_t)c.count * TAPE_INDEX_ENTRY != c.raw) {
		tape__fail(-EBADMSG, "index chunk does not match the trailer");
		goto damaged;
	}
	if ((err = load_payload(r, ioff, &c, dctx, &stored, &raw))) {
		if (err != -EBADMSG && err != -ENOTSUP) {
			rc = err;
			goto out;
		}
		goto damaged;
	}
	uint64_t prev_end = r->header_size;
	for (uint32_t i = 0; i < c.count; i++) {
		const uint8_t *p = raw.p + (size_t)i * TAPE_INDEX_ENTRY;
		struct entry e = {
			.off = get_le64(p), .type = p[8], .table = get_le16(p + 10),
			.count = get_le32(p + 12), .tmin = get_le64(p + 16),
			.tmax = get_le64(p + 24),
		};
		if ((i == 0 && e.off != r->header_size) || e.off < prev_end) {
			tape__fail(-EBADMSG, "index entry %u has offset %llu", i,
				   (unsigned long long)e.off);
			goto damaged;
		}
		if (e.off + TAPE_CHUNK_HDR > ioff) {
			tape__fail(-EBADMSG, "index entry %u points past the index", i);
			goto damaged;
		}
		if (i && e.off <= r->ents[r->nents - 1].off) {
			tape__fail(-EBADMSG, "index entries out of order");
			goto damaged;
		}
		if (i)
			r->ents[r->nents - 1].end = e.off;
		if ((err = add_entry(r, &cap, &e))) {
			rc = err;
			goto out;
		}
		prev_end = e.off + TAPE_CHUNK_HDR;
	}
	if (r->nents)
		r->ents[r->nents - 1].end = ioff;
	rc = 0;
	goto out;
damaged:
	r->nents = 0;
	set_recovered(r, "footer index damaged (%s)", tape_error_detail());
	rc = 1;
out:
	buf_release(&stored);
	buf_release(&raw);
	return rc;
}

static int scan_chunks(tape_reader *r)
{
	uint64_t off = r->header_size;
	size_t cap = 0;
	struct chdr c;
	int err;

	r->nents = 0;
	while (off + TAPE_CHUNK_HDR <= r->size) {
		err = read_chunk_header(r, off, &c);
		if (err == -EBADMSG)
			break;
		if (err)
			return err;
		uint64_t end = off + TAPE_CHUNK_HDR + c.stored;
		if (c.type == CHUNK_INDEX) {
			off = end;
			if (r->size - off == TAPE_TRAILER_SIZE)
				off = r->size; /* the (damaged) trailer */
			continue;
		}
		struct entry e = { off, end, c.type, c.table, c.count, c.tmin, c.tmax };
		if ((err = add_entry(r, &cap, &e)))
			return err;
		off = end;
	}
	r->trailing = r->size - off;
	return 0;
}

static int meta_set(tape_reader *r, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
	char *key = strndup((const char *)k, kl), *val = strndup((const char *)v, vl);
	if (!key || !val) {
		free(key);
		free(val);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nmeta; i++) {
		if (strcmp(r->keys[i], key) == 0) {
			free(key);
			free(r->vals[i]);
			r->vals[i] = val;
			return 0;
		}
	}
	char **nk = realloc(r->keys, (r->nmeta + 1) * sizeof(*nk));
	if (nk)
		r->keys = nk;
	char **nv = realloc(r->vals, (r->nmeta + 1) * sizeof(*nv));
	if (nv)
		r->vals = nv;
	if (!nk || !nv) {
		free(key);
		free(val);
		return -ENOMEM;
	}
	r->keys[r->nmeta] = key;
	r->vals[r->nmeta++] = val;
	return 0;
}

static int load_meta(tape_reader *r, const struct entry *e, ZSTD_DCtx *dctx)
{
	struct buf stored = { 0 }, raw = { 0 };
	struct chdr c;
	int err = read_chunk_header(r, e->off, &c);

	if (!err && (c.type != e->type || c.count != e->count))
		err = tape__fail(-EBADMSG, "chunk at offset %llu does not match the index",
				 (unsigned long long)e->off);
	if (!err)
		err = load_payload(r, e->off, &c, dctx, &stored, &raw);
	/* Two passes: check the whole chunk, then apply it, so a malformed
	 * chunk changes nothing. */
	for (int apply = 0; !err && apply < 2; apply++) {
		struct rd rd = { raw.p, raw.p + raw.len };
		for (uint32_t i = 0; i < c.count && !err; i++) {
			uint64_t kl, vl;
			const uint8_t *k, *v;
			if (rd_varint(&rd, &kl) || kl > (uint64_t)(rd.end - rd.p)) {
				err = -EBADMSG;
				break;
			}
			k = rd.p;
			rd.p += kl;
			if (rd_varint(&rd, &vl) || vl > (uint64_t)(rd.end - rd.p)) {
				err = -EBADMSG;
				break;
			}
			v = rd.p;
			rd.p += vl;
			if (!kl || kl > TAPE_MAX_STRING || vl > TAPE_MAX_STRING ||
			    memchr(k, 0, kl) || memchr(v, 0, vl)) {
				err = -EBADMSG;
				break;
			}
			if (apply)
				err = meta_set(r, k, kl, v, vl);
		}
		if (!err && rd.p != rd.end)
			err = -EBADMSG;
	}
	if (err == -EBADMSG)
		tape__fail(err, "metadata chunk at offset %llu is malformed",
			   (unsigned long long)e->off);
	buf_release(&stored);
	buf_release(&raw);
	return err;
}

/* What a file that is not a regular file is, for the error. */
static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "of an unknown type";
}

int tape_reader_open_fd(tape_reader **out, int fd)
{
	tape_reader *r;
	uint8_t h[TAPE_HEADER_SIZE];
	struct stat st;
	ZSTD_DCtx *dctx = NULL;
	int err;

	*out = NULL;
	if (fstat(fd, &st))
		return tape__fail(-errno, "stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return tape__fail(-EINVAL, "not a regular file (%s)", file_kind(st.st_mode));
	if (!(r = calloc(1, sizeof(*r))))
		return -ENOMEM;
	r->fd = fd;
	r->size = (uint64_t)st.st_size;
	for (int i = 0; i < TAPE_TABLE_MAX; i++)
		r->stats[i].t_min = UINT64_MAX;

	if (r->size < 8 || (err = read_at(r, h, 8, 0)) || memcmp(h, TAPE_MAGIC, 8)) {
		err = tape__fail(-EILSEQ, "bad magic: not an iotape trace");
		goto fail;
	}
	if (r->size < TAPE_HEADER_SIZE) {
		err = tape__fail(-EBADMSG, "file ends inside the header (%llu bytes)",
				 (unsigned long long)r->size);
		goto fail;
	}
	if ((err = read_at(r, h, sizeof(h), 0)))
		goto fail;
	if (XXH32(h, 28, 0) != get_le32(h + 28)) {
		err = tape__fail(-EBADMSG, "file header is damaged (header check mismatch)");
		goto fail;
	}
	r->major = get_le16(h + 8);
	r->minor = get_le16(h + 10);
	r->header_size = get_le32(h + 12);
	if (r->major != TAPE_FORMAT_MAJOR) {
		err = tape__fail(-EPROTONOSUPPORT,
				 "format version %u.%u is not supported (this iotape reads %u.x)",
				 r->major, r->minor, TAPE_FORMAT_MAJOR);
		goto fail;
	}
	uint64_t req = get_le64(h + 16);
	if (req & ~TAPE_REQUIRED_KNOWN) {
		err = tape__fail(-ENOTSUP, "trace requires features this iotape lacks (flags 0x%llx)",
				 (unsigned long long)(req & ~TAPE_REQUIRED_KNOWN));
		goto fail;
	}
	if (r->header_size < TAPE_HEADER_SIZE || r->header_size > 65536 ||
	    r->header_size > r->size) {
		err = tape__fail(-EBADMSG, "bad header size %u", r->header_size);
		goto fail;
	}
	if (!(dctx = ZSTD_createDCtx())) {
		err = -ENOMEM;
		goto fail;
	}
	err = load_footer(r, dctx);
	if (err < 0)
		goto fail;
	if (err == 1 && (err = scan_chunks(r)))
		goto fail;

	for (size_t i = 0; i < r->nents; i++) {
		struct entry *e = &r->ents[i];
		if (e->type == CHUNK_META) {
			/* A damaged META chunk loses its keys, not the trace. */
			err = load_meta(r, e, dctx);
			if (err == -EBADMSG || err == -ENOTSUP) {
				if (!r->damaged++)
					snprintf(r->damaged_detail, sizeof(r->damaged_detail),
						 "%s", tape_error_detail());
				err = 0;
			}
			if (err)
				goto fail;
		} else if (e->type == CHUNK_BLOCK) {
			if (e->table > 0 && e->table < TAPE_TABLE_MAX) {
				struct tape_table_stats *s = &r->stats[e->table];
				s->events += e->count;
				s->blocks++;
				s->bytes += e->end - e->off;
				if (e->count && e->tmin < s->t_min)
					s->t_min = e->tmin;
				if (e->count && e->tmax > s->t_max)
					s->t_max = e->tmax;
			} else {
				r->unknown_blocks++;
			}
		}
	}
	ZSTD_freeDCtx(dctx);
	*out = r;
	return 0;
fail:
	ZSTD_freeDCtx(dctx);
	r->fd = -1;
	tape_reader_free(r);
	return err;
}

/*
 * O_NONBLOCK so that opening a FIFO returns at once (a blocking open waits
 * for a writer, forever); tape_reader_open_fd() then refuses it, as any
 * file that is not a regular one.  The flag is cleared before any read,
 * though a regular file ignores it.
 */
int tape_reader_open(tape_reader **out, const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int err, fl;
	*out = NULL;
	if (fd < 0)
		return tape__fail(-errno, "cannot open '%s': %s", path, strerror(errno));
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		err = tape__fail(-errno, "cannot open '%s': fcntl: %s", path, strerror(errno));
		close(fd);
		return err;
	}
	err = tape_reader_open_fd(out, fd);
	if (err) {
		close(fd);
		return err;
	}
	(*out)->own_fd = 1;
	return 0;
}

void tape_reader_free(tape_reader *r)
{
	if (!r)
		return;
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	for (size_t i = 0; i < r->nmeta; i++) {
		free(r->keys[i]);
		free(r->vals[i]);
	}
	free(r->keys);
	free(r->vals);
	free(r->ents);
	free(r->recovered);
	free(r);
}

void tape_reader_version(const tape_reader *r, unsigned *major, unsigned *minor)
{
	if (major)
		*major = r->major;
	if (minor)
		*minor = r->minor;
}

uint64_t tape_reader_file_size(const tape_reader *r) { return r->size; }
const char *tape_reader_recovered(const tape_reader *r) { return r->recovered; }
uint64_t tape_reader_trailing_bytes(const tape_reader *r) { return r->trailing; }
size_t tape_reader_meta_count(const tape_reader *r) { return r->nmeta; }
uint64_t tape_reader_unknown_blocks(const tape_reader *r) { return r->unknown_blocks; }

/* The column count of a block's raw payload p[0..len) at file offset off,
 * its directory checked to be there whole; 0 or -EBADMSG. */
static int block_dir(const uint8_t *p, size_t len, uint64_t off, size_t *ncols)
{
	if (len < 4)
		return tape__fail(-EBADMSG, "block at offset %llu: no column directory",
				  (unsigned long long)off);
	*ncols = get_le16(p);
	if (*ncols > TAPE_MAX_COLS || 4 + 8 * *ncols > len)
		return tape__fail(-EBADMSG, "block at offset %llu: bad column directory",
				  (unsigned long long)off);
	return 0;
}

const char *tape_encoding_name(unsigned id)
{
	static const char *const names[] = {
		[ENC_RAW] = "RAW", [ENC_VARINT] = "VARINT", [ENC_ZVARINT] = "ZVARINT",
		[ENC_DELTA] = "DELTA", [ENC_BITPACK] = "BITPACK", [ENC_DBITPACK] = "DBITPACK",
		[ENC_DICT] = "DICT", [ENC_PBITPACK] = "PBITPACK", [ENC_DPBITPACK] = "DPBITPACK",
		[ENC_EXP] = "EXP", [ENC_DEXP] = "DEXP", [ENC_SDICT] = "SDICT",
	};
	return id < sizeof(names) / sizeof(names[0]) ? names[id] : NULL;
}

int tape_reader_column_stats(tape_reader *r, int table, struct tape_column_stats *out,
			     size_t max, size_t *n)
{
	const struct tape_table_def *def = tape__table(table);
	struct buf stored = { 0 }, raw = { 0 };
	ZSTD_DCtx *dctx;
	int err = 0, more = 0;

	*n = 0;
	if (!def)
		return tape__fail(-EINVAL, "unknown table %d", table);
	if (!(dctx = ZSTD_createDCtx()))
		return -ENOMEM;
	for (size_t i = 0; i < r->nents && !err; i++) {
		const struct entry *e = &r->ents[i];
		struct chdr h;
		if (e->type != CHUNK_BLOCK || e->table != table)
			continue;
		if ((err = read_chunk_header(r, e->off, &h)) ||
		    (err = load_payload(r, e->off, &h, dctx, &stored, &raw)))
			break;
		size_t ncols;
		if ((err = block_dir(raw.p, raw.len, e->off, &ncols)))
			break;
		for (size_t c = 0; c < ncols; c++) {
			const uint8_t *d = raw.p + 4 + 8 * c;
			unsigned id = get_le16(d), enc = d[3];
			size_t k = 0;
			while (k < *n && out[k].id != id)
				k++;
			if (k == *n) {
				if (*n == max) {
					more = 1;
					continue;
				}
				(*n)++;
				memset(&out[k], 0, sizeof(out[k]));
				out[k].id = id;
				for (size_t j = 0; j < def->ncols; j++)
					if (def->cols[j].id == id)
						out[k].name = def->cols[j].name;
			}
			out[k].blocks++;
			out[k].bytes += get_le32(d + 4);
			out[k].zstd += (enc & ENC_ZSTD) != 0;
			out[k].pred += (enc & ENC_PRED) != 0;
			out[k].enc[ENC_ID(enc)]++;
		}
	}
	buf_release(&stored);
	buf_release(&raw);
	ZSTD_freeDCtx(dctx);
	if (more)
		*n = max + 1;
	return err;
}

uint64_t tape_reader_damaged_meta(const tape_reader *r, const char **detail)
{
	if (detail)
		*detail = r->damaged ? r->damaged_detail : NULL;
	return r->damaged;
}

int tape_reader_meta_at(const tape_reader *r, size_t i, const char **key, const char **value)
{
	if (i >= r->nmeta)
		return -ERANGE;
	*key = r->keys[i];
	*value = r->vals[i];
	return 0;
}

const char *tape_reader_meta(const tape_reader *r, const char *key)
{
	for (size_t i = 0; i < r->nmeta; i++)
		if (strcmp(r->keys[i], key) == 0)
			return r->vals[i];
	return NULL;
}

int tape_reader_table_stats(const tape_reader *r, int table, struct tape_table_stats *st)
{
	if (!tape__table(table))
		return -EINVAL;
	*st = r->stats[table];
	return 0;
}

/* ------------------------------------------------------------- cursor */

int tape_cursor_open(tape_reader *r, int table, uint64_t from, uint64_t to,
		     tape_cursor **out)
{
	const struct tape_table_def *def = tape__table(table);
	tape_cursor *c;

	*out = NULL;
	if (!def)
		return tape__fail(-EINVAL, "unknown table %d", table);
	if (!(c = calloc(1, sizeof(*c))))
		return -ENOMEM;
	c->r = r;
	c->def = def;
	c->nthreads = 1;
	c->from = from;
	c->to = to;
	for (int i = 0; i < 64; i++)
		c->colmap[i] = -1;
	unsigned nstr = 0;
	uint64_t ids = 0;
	for (size_t i = 0; i < def->ncols; i++) {
		c->colmap[def->cols[i].id] = (int)i;
		if (def->cols[i].type == TAPE_COL_STR)
			c->strslot[i] = nstr++;
		ids |= 1ull << def->cols[i].id;
	}
	/* Tiles in column id order when the ids are 0..ncols-1 (every known
	 * table): the syscall rows then read every column at a constant
	 * offset from one pointer. */
	c->byid = ids == (2ull << (def->ncols - 1)) - 1;
	for (size_t i = 0; i < def->ncols; i++)
		c->tslot[i] = c->byid ? def->cols[i].id : (unsigned)i;
	/* Padding inside the struct: bytes no column writes. */
	uint8_t covered[256] = { 0 };
	for (size_t i = 0; i < def->ncols; i++)
		memset(covered + def->cols[i].offset, 1, def->cols[i].width);
	for (size_t b = 0; b < def->size && c->ngaps < 16; b++) {
		if (covered[b])
			continue;
		size_t e = b;
		while (e < def->size && !covered[e])
			e++;
		c->gap[c->ngaps].off = (uint16_t)b;
		c->gap[c->ngaps++].len = (uint16_t)(e - b);
		b = e;
	}
	c->dec = calloc(def->ncols, sizeof(*c->dec));
	c->colz = calloc(def->ncols, sizeof(*c->colz));
	c->tile = malloc(def->ncols * TILE * sizeof(*c->tile));
	if (!c->dec || !c->colz || !c->tile || !(c->dctx = ZSTD_createDCtx())) {
		free(c->dec);
		free(c->colz);
		free(c->tile);
		free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

static void ahead_stop(tape_cursor *c);

void tape_cursor_free(tape_cursor *c)
{
	if (!c)
		return;
	ZSTD_freeDCtx(c->dctx);
	buf_release(&c->stored);
	buf_release(&c->raw);
	free(c->evs);
	free(c->strp);
	free(c->slen);
	free(c->sids);
	free(c->didx);
	for (size_t i = 0; c->dec && i < c->def->ncols; i++)
		tape_coldec_release(&c->dec[i]);
	free(c->dec);
	for (size_t i = 0; c->colz && i < c->def->ncols; i++)
		buf_release(&c->colz[i]);
	free(c->colz);
	free(c->tile);
	pred_release(&c->pred);
	ahead_stop(c);
	for (unsigned i = 0; i < c->nhelpers; i++)
		tape_cursor_free(c->helpers[i]);
	free(c->helpers);
	free(c->jobs);
	free(c);
}

static const char empty[] = "";


/* Parse a string column's dictionary: str[] gets pointers to its strings,
 * left in place in the column's bytes (p, which the cursor owns) and
 * NUL-terminated there over the byte after each (the next length, or the
 * index encoding byte), once the whole dictionary was read.  Strings must
 * not hold a NUL: one memchr() pass over them all, where a zero may only
 * be a length byte (an empty string's).  The index decoder is set up in d. */
static int string_dict(tape_cursor *c, const struct tape_column *col,
		       uint8_t *p, size_t len, size_t n, uint64_t off,
		       const char **str, uint64_t *nd, struct coldec *d)
{
	struct rd rd = { p, p + len };
	uint32_t *slen = c->slen;
	int err;

	if (rd_varint(&rd, nd) || *nd > n || (n && !*nd))
		return tape__fail(-EBADMSG, "block at offset %llu: column %s: bad dictionary size",
				  (unsigned long long)off, col->name);
	for (uint64_t i = 0; i < *nd; i++) {
		uint64_t sl;
		if (rd_varint(&rd, &sl) || sl > (uint64_t)(rd.end - rd.p) || sl > TAPE_MAX_STRING)
			return tape__fail(-EBADMSG, "block at offset %llu: column %s: bad string",
					  (unsigned long long)off, col->name);
		str[i] = (const char *)rd.p;
		slen[i] = (uint32_t)sl;
		rd.p += sl;
	}
	if (*nd) {
		const uint8_t *z = (const uint8_t *)str[0];
		size_t i = 0;
		while ((z = memchr(z, 0, (size_t)(rd.p - z)))) {
			while (i + 1 < *nd && (const uint8_t *)str[i + 1] <= z)
				i++;
			if (z < (const uint8_t *)str[i] + slen[i])
				return tape__fail(-EBADMSG, "block at offset %llu: column %s: bad string",
						  (unsigned long long)off, col->name);
			z++;
		}
	}
	if (rd.p >= rd.end)
		return tape__fail(-EBADMSG, "block at offset %llu: column %s: indices missing",
				  (unsigned long long)off, col->name);
	uint8_t enc = *rd.p++;
	for (uint64_t i = 0; i < *nd; i++)
		p[(const uint8_t *)str[i] + slen[i] - p] = 0;
	c->idxpred = (enc & ENC_PRED) != 0;
	if (enc & ENC_ZSTD)
		return tape__fail(-EBADMSG, "block at offset %llu: column %s: bad index encoding",
				  (unsigned long long)off, col->name);
	if ((err = tape_coldec_init(d, ENC_ID(enc), rd.p, (size_t)(rd.end - rd.p), n)))
		return tape__fail(err, "block at offset %llu: column %s: %s",
				  (unsigned long long)off, col->name, tape_error_detail());
	return 0;
}

/* A column's bytes, decompressed into c->colz[ci] when flagged ZSTD. */
static int column_bytes(tape_cursor *c, size_t ci, const struct tape_column *col,
			uint8_t enc, uint8_t **p, size_t *len, uint64_t off)
{
	if (!(enc & ENC_ZSTD))
		return 0;
	unsigned long long sz = ZSTD_getFrameContentSize(*p, *len);
	if (sz == ZSTD_CONTENTSIZE_UNKNOWN || sz == ZSTD_CONTENTSIZE_ERROR || sz > TAPE_MAX_RAW)
		return tape__fail(-EBADMSG, "block at offset %llu: column %s: bad zstd frame",
				  (unsigned long long)off, col->name);
	struct buf *b = &c->colz[ci];
	const char *why;
	int err;
	b->len = 0;
	if ((err = buf_reserve(b, (size_t)sz + PAD)))
		return err;
	if ((why = unzstd(c->dctx, b->p, (size_t)sz, *p, *len)))
		return tape__fail(-EBADMSG, "block at offset %llu: column %s does not decompress: %s",
				  (unsigned long long)off, col->name, why);
	memset(b->p + sz, 0, PAD);
	*p = b->p;
	*len = (size_t)sz;
	return 0;
}

/* Decode one block's raw payload into c->evs, TILE rows at a time: each
 * tile is decoded column by column into c->tile, the syscall prediction is
 * undone row by row, then the rows are written as structs. */
/* The structs of k syscall rows from the decoded tile, a row at a time
 * (every column present but perhaps the output side's, whose tiles then
 * hold the defaults): the same checks as the generic loop of
 * decode_block() (string indices, 32-bit fields, the time range). */
#if defined(__x86_64__) && defined(__GNUC__)
/* The struct as 15 little-endian words: pid and tid share one, op and _pad
 * the next. */
_Static_assert(sizeof(struct tape_syscall) == 120 && sizeof(char *) == 8 &&
	       offsetof(struct tape_syscall, pid) == 16 &&
	       offsetof(struct tape_syscall, tid) == 20 &&
	       offsetof(struct tape_syscall, op) == 24 &&
	       offsetof(struct tape_syscall, fd) == 32 &&
	       offsetof(struct tape_syscall, ret) == 64 &&
	       offsetof(struct tape_syscall, path) == 80 &&
	       offsetof(struct tape_syscall, path2) == 88 &&
	       offsetof(struct tape_syscall, fd2) == 96 &&
	       offsetof(struct tape_syscall, offset2) == 112, "struct tape_syscall layout");
#define SC_WORDS 15

/* Rows [0, k & ~3) of build_syscalls() 4 at a time: the checks as vector
 * compares, the string pointers gathered, each group of 4 words of 4 rows
 * transposed into place.  bad bit 0: a path index out of range, bit 1: a
 * path2 index, bit 2: pid, tid or op above 32 bits, bit 3: a timestamp
 * out of range.  Returns the rows done. */
__attribute__((target("avx2"))) static size_t
syscall_rows_avx2(const uint64_t *t, const char *const *str1, const char *const *str2,
		  uint64_t nd1, uint64_t nd2, uint64_t tmin, uint64_t span,
		  struct tape_syscall *out, size_t k, unsigned *bad)
{
	const __m256i sign = _mm256_set1_epi64x(INT64_MIN);
	const __m256i vmin = _mm256_set1_epi64x((long long)tmin);
	/* unsigned a > b as signed (a ^ sign) > (b ^ sign) */
	const __m256i vspan = _mm256_xor_si256(_mm256_set1_epi64x((long long)span), sign);
	const __m256i max1 = _mm256_xor_si256(_mm256_set1_epi64x((long long)(nd1 - 1)), sign);
	const __m256i max2 = _mm256_xor_si256(_mm256_set1_epi64x((long long)(nd2 - 1)), sign);
	__m256i bad1 = _mm256_setzero_si256(), bad2 = bad1, badt = bad1, wide = bad1;
	uint64_t *o = (uint64_t *)(void *)out;
	size_t r = 0;

#define LD(col) _mm256_loadu_si256((const __m256i *)(t + (col) * TILE + r))
#define ROWS(a, b, c_, d, w) do {					\
		__m256i t0 = _mm256_unpacklo_epi64(a, b), t1 = _mm256_unpackhi_epi64(a, b); \
		__m256i t2 = _mm256_unpacklo_epi64(c_, d), t3 = _mm256_unpackhi_epi64(c_, d); \
		_mm256_storeu_si256((__m256i *)(o + (w)), _mm256_permute2x128_si256(t0, t2, 0x20)); \
		_mm256_storeu_si256((__m256i *)(o + SC_WORDS + (w)), _mm256_permute2x128_si256(t1, t3, 0x20)); \
		_mm256_storeu_si256((__m256i *)(o + 2 * SC_WORDS + (w)), _mm256_permute2x128_si256(t0, t2, 0x31)); \
		_mm256_storeu_si256((__m256i *)(o + 3 * SC_WORDS + (w)), _mm256_permute2x128_si256(t1, t3, 0x31)); \
	} while (0)
	for (; r + 4 <= k; r += 4, o += 4 * SC_WORDS) {
		__m256i ts = LD(SC_TS), pid = LD(SC_PID), tid = LD(SC_TID), op = LD(SC_OP);
		__m256i i1 = LD(SC_PATH), i2 = LD(SC_PATH2);
		__m256i b1 = _mm256_cmpgt_epi64(_mm256_xor_si256(i1, sign), max1);
		__m256i b2 = _mm256_cmpgt_epi64(_mm256_xor_si256(i2, sign), max2);
		bad1 = _mm256_or_si256(bad1, b1);
		bad2 = _mm256_or_si256(bad2, b2);
		wide = _mm256_or_si256(wide, _mm256_or_si256(_mm256_or_si256(pid, tid), op));
		badt = _mm256_or_si256(badt, _mm256_cmpgt_epi64(
			_mm256_xor_si256(_mm256_sub_epi64(ts, vmin), sign), vspan));
		/* an index out of range reads string 0 (the block fails) */
		__m256i s1 = _mm256_i64gather_epi64((const long long *)(const void *)str1,
						    _mm256_andnot_si256(b1, i1), 8);
		__m256i s2 = _mm256_i64gather_epi64((const long long *)(const void *)str2,
						    _mm256_andnot_si256(b2, i2), 8);
		/* pid | tid << 32, op | 0 << 32 (wider values fail the block) */
		__m256i pt = _mm256_or_si256(pid, _mm256_slli_epi64(tid, 32));
		ROWS(ts, LD(SC_DUR), pt, op, 0);
		ROWS(LD(SC_FD), LD(SC_FILE_ID), LD(SC_OFFSET), LD(SC_SIZE), 4);
		ROWS(LD(SC_RET), LD(SC_FLAGS), s1, s2, 8);
		/* words 11 to 14: path2 again, then the output side (three
		 * words: a fourth store would run into the next row) */
		ROWS(s2, LD(SC_FD2), LD(SC_FILE_ID2), LD(SC_OFFSET2), 11);
	}
#undef ROWS
#undef LD
	const __m256i hi32 = _mm256_set1_epi64x((long long)0xffffffff00000000ull);
	*bad = (unsigned)!_mm256_testz_si256(bad1, bad1) |
	       (unsigned)!_mm256_testz_si256(bad2, bad2) << 1 |
	       (unsigned)!_mm256_testz_si256(wide, hi32) << 2 |
	       (unsigned)!_mm256_testz_si256(badt, badt) << 3;
	return r;
}
#endif

static int build_syscalls(tape_cursor *c, const struct entry *e, const uint64_t *nd,
			  uint8_t *tile, size_t k)
{
	const uint64_t *t = c->tile;	/* column id i at t + i * TILE (byid) */
	const int *map = c->colmap;
	unsigned s1 = c->strslot[map[SC_PATH]], s2 = c->strslot[map[SC_PATH2]];
	const char *const *str1 = c->strp + s1 * e->count, *const *str2 = c->strp + s2 * e->count;
	const uint64_t nd1 = nd[s1], nd2 = nd[s2], tmin = e->tmin, span = e->tmax - e->tmin;
	struct tape_syscall *out = (struct tape_syscall *)(void *)tile;
	uint64_t bad = 0, wide = 0, badidx = 0;
	size_t r = 0;

#define T(col) t[(col) * TILE + r]
	if (k && (!nd1 || !nd2))	/* every index is out of range */
		return tape__fail(-EBADMSG, "block at offset %llu: column %s: string index out of range",
				  (unsigned long long)e->off, !nd1 ? "path" : "path2");
#if defined(__x86_64__) && defined(__GNUC__)
	if (k >= 4 && __builtin_cpu_supports("avx2")) {
		unsigned b;
		r = syscall_rows_avx2(t, str1, str2, nd1, nd2, tmin, span, out, k, &b);
		badidx = b & 3;
		wide = b & 4 ? UINT64_MAX : 0;
		bad = b >> 3;
	}
#endif
	for (; r < k; r++) {
		uint64_t i1 = T(SC_PATH), i2 = T(SC_PATH2), ts = T(SC_TS);
		uint64_t pid = T(SC_PID), tid = T(SC_TID), op = T(SC_OP);
		badidx |= (uint64_t)(i1 >= nd1) | (uint64_t)(i2 >= nd2) << 1;
		i1 = i1 < nd1 ? i1 : 0;
		i2 = i2 < nd2 ? i2 : 0;
		wide |= pid | tid | op;
		bad |= ts - tmin > span;	/* tmin <= tmax: checked */
		struct tape_syscall *o = &out[r];
		o->ts_ns = ts;
		o->dur_ns = T(SC_DUR);
		o->pid = (uint32_t)pid;
		o->tid = (uint32_t)tid;
		o->op = (uint32_t)op;
		o->_pad = 0;
		o->fd = (int64_t)T(SC_FD);
		o->file_id = T(SC_FILE_ID);
		o->offset = T(SC_OFFSET);
		o->size = T(SC_SIZE);
		o->ret = (int64_t)T(SC_RET);
		o->flags = T(SC_FLAGS);
		o->path = str1[i1];
		o->path2 = str2[i2];
		o->fd2 = (int64_t)T(SC_FD2);
		o->file_id2 = T(SC_FILE_ID2);
		o->offset2 = T(SC_OFFSET2);
	}
#undef T
	if (wide > UINT32_MAX)
		return tape__fail(-EBADMSG, "block at offset %llu: column pid, tid or op: value out of range",
				  (unsigned long long)e->off);
	if (badidx)
		return tape__fail(-EBADMSG, "block at offset %llu: column %s: string index out of range",
				  (unsigned long long)e->off,
				  badidx & 1 ? "path" : "path2");
	if (bad)
		return tape__fail(-EBADMSG, "block at offset %llu: timestamps outside the block's range",
				  (unsigned long long)e->off);
	return 0;
}

/* dst[0..k) = v[0..k): the caller's arrays are far larger than the caches
 * and read only later, so on x86 they are written with non-temporal stores
 * (no read of each line before it is written; ~25 % faster on a 10^7-row
 * read), from the first 16-byte boundary on.  The caller fences
 * (_mm_sfence) before the arrays are read: next_block() after each block,
 * work() after its blocks. */
static void put_u64(const uint64_t *v, uint64_t *dst, size_t k)
{
	size_t r = 0;
#if defined(__x86_64__) && defined(__GNUC__)
	if (!((uintptr_t)dst & 7)) {
		for (; r < k && ((uintptr_t)(dst + r) & 15); r++)
			dst[r] = v[r];
		for (; r + 2 <= k; r += 2)
			_mm_stream_si128((__m128i *)(void *)(dst + r),
					 _mm_loadu_si128((const __m128i *)(const void *)(v + r)));
	}
#endif
	memcpy(dst + r, v + r, (k - r) * sizeof(*v));
}

/* dst[0..k) = v[0..k) as 32 bits (checked to fit), as put_u64(). */
static void put_u32(const uint64_t *v, uint32_t *dst, size_t k)
{
	size_t r = 0;
#if defined(__x86_64__) && defined(__GNUC__)
	if (!((uintptr_t)dst & 3)) {
		for (; r < k && ((uintptr_t)(dst + r) & 15); r++)
			dst[r] = (uint32_t)v[r];
		for (; r + 4 <= k; r += 4) {
			__m128 a = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(const void *)(v + r)));
			__m128 b = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(const void *)(v + r + 2)));
			/* the low halves of the four */
			_mm_stream_si128((__m128i *)(void *)(dst + r),
					 _mm_castps_si128(_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0))));
		}
	}
#endif
	for (; r < k; r++)
		dst[r] = (uint32_t)v[r];
}

/* dst[0..k) = map[idx[0..k)] (idx64 or, when NULL, idx32: indexes checked
 * to be within map), as put_u64(). */
static inline void put_ids(const uint32_t *map, const uint64_t *idx64, const uint32_t *idx32,
			   uint32_t *dst, size_t k)
{
	size_t r = 0;
#define IDX(i) (idx64 ? idx64[i] : idx32[i])
#if defined(__x86_64__) && defined(__GNUC__)
	if (!((uintptr_t)dst & 3)) {
		for (; r < k && ((uintptr_t)(dst + r) & 15); r++)
			dst[r] = map[IDX(r)];
		for (; r + 4 <= k; r += 4)
			_mm_stream_si128((__m128i *)(void *)(dst + r),
					 _mm_set_epi32((int)map[IDX(r + 3)], (int)map[IDX(r + 2)],
						       (int)map[IDX(r + 1)], (int)map[IDX(r)]));
	}
#endif
	for (; r < k; r++)
		dst[r] = map[IDX(r)];
#undef IDX
}

/*
 * Rows r0..r0+k of the block, decoded in the tiles, to the sink's arrays:
 * the checks of the struct path (string indexes in range, 4-byte columns
 * within 32 bits, timestamps within the block's range), over every column
 * asked for or not, so an error does not depend on the columns asked for;
 * then each asked column copied out, strings as their ids (the block's
 * dictionaries were interned by decode_block).
 */
static int sink_tile(tape_cursor *c, const struct entry *e, uint64_t seen,
		     const uint64_t *nd, size_t r0, size_t k)
{
	const struct tape_table_def *def = c->def;
	const struct colsink *sk = c->sink;
	size_t n = e->count;

	for (size_t ci = 0; ci < def->ncols; ci++) {
		const struct tape_column *col = &def->cols[ci];
		const uint64_t *v = c->tile + c->tslot[ci] * TILE;
		uint64_t any = 0;

		if (col->type == TAPE_COL_STR) {
			if (!((seen >> col->id) & 1))
				continue;
			uint64_t lim = nd[c->strslot[ci]];
			for (size_t r = 0; r < k; r++)
				any |= v[r] >= lim;
			if (any)
				return tape__fail(-EBADMSG, "block at offset %llu: column %s: string index out of range",
						  (unsigned long long)e->off, col->name);
		} else if (col->width == 4) {
			for (size_t r = 0; r < k; r++)
				any |= v[r];
			if (any > UINT32_MAX)
				return tape__fail(-EBADMSG, "block at offset %llu: column %s: value out of range",
						  (unsigned long long)e->off, col->name);
		}
	}
	const uint64_t *ts = c->tile, span = e->tmax - e->tmin;	/* ts_ns: tile 0 */
	uint64_t bad = 0;
	for (size_t r = 0; r < k; r++)
		bad |= ts[r] - e->tmin > span;
	if (bad)
		return tape__fail(-EBADMSG, "block at offset %llu: timestamps outside the block's range",
				  (unsigned long long)e->off);

	for (size_t i = 0; i < sk->ncols; i++) {
		unsigned ci = sk->cols[i];
		const struct tape_column *col = &def->cols[ci];
		const uint64_t *v = c->tile + c->tslot[ci] * TILE;
		size_t at = sk->at + r0;

		if (col->type == TAPE_COL_STR) {
			uint32_t *o = (uint32_t *)sk->out[i] + at;
			if (!((seen >> col->id) & 1)) {
				memset(o, 0, k * sizeof(*o));	/* id 0: "" */
				continue;
			}
			size_t slot = c->strslot[ci] * n;
			if (c->defer) {	/* the indexes, made ids later (run_job) */
				uint32_t *d = c->didx + slot + r0;
				for (size_t r = 0; r < k; r++)
					d[r] = (uint32_t)v[r];
				continue;
			}
			put_ids(c->sids + slot, v, NULL, o, k);	/* v[r] < nd: checked */
		} else if (col->width == 8) {
			put_u64(v, (uint64_t *)sk->out[i] + at, k);
		} else {
			put_u32(v, (uint32_t *)sk->out[i] + at, k);
		}
	}
	return 0;
}

/* The cursor's per-block arrays grown for a block of n rows: the rows, the
 * string pointers and lengths, the sink's string ids and deferred
 * indexes. */
static int block_arrays(tape_cursor *c, size_t n)
{
	size_t sz = c->def->size;
	if (n > c->capevs) {
		uint8_t *ev = realloc(c->evs, n * sz);
		if (!ev)
			return -ENOMEM;
		c->evs = ev;
		c->capevs = n;
	}
	size_t need = n * TAPE_MAX_STRCOLS;
	if (need > c->capstrp) {
		const char **v = realloc(c->strp, need * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->strp = v;
		uint32_t *l = realloc(c->slen, n * sizeof(*l));
		if (!l)
			return -ENOMEM;
		c->slen = l;
		c->capstrp = need;
	}

	if (c->sink && need > c->capsids) {
		uint32_t *v = realloc(c->sids, need * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->sids = v;
		c->capsids = need;
	}
	if (c->defer && need > c->capdidx) {
		uint32_t *v = realloc(c->didx, need * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->didx = v;
		c->capdidx = need;
	}
	return 0;
}

/*
 * One column of a block, id with type and encoding enc, its bytes cd[0..clen):
 * checked against the table's definition and opened for decoding (a string
 * column's dictionary read into the string slots, its count in nd).  A
 * predicted column adds its id to *predmask.
 */
static int block_column(tape_cursor *c, int ci, unsigned id, unsigned type, unsigned enc,
			uint8_t *cd, size_t clen, size_t n, uint64_t off, uint64_t *nd,
			unsigned *predmask)
{
	const struct tape_table_def *def = c->def;
	const struct tape_column *col = &def->cols[ci];
	int err;

	if (type != col->type)
		return tape__fail(-EBADMSG, "block at offset %llu: column %s has type %u, expected %u",
				  (unsigned long long)off, col->name, type, col->type);
	if ((err = column_bytes(c, (size_t)ci, col, (uint8_t)enc, &cd, &clen, off)))
		return err;
	unsigned pred_ok = def->id == TAPE_TABLE_SYSCALL && ((SC_PREDICTED >> id) & 1);
	if (col->type == TAPE_COL_STR) {
		if (ENC_ID(enc) != ENC_SDICT || (enc & ENC_PRED))
			return tape__fail(-EBADMSG, "block at offset %llu: column %s: unknown string encoding %u",
					  (unsigned long long)off, col->name, enc);
		unsigned k = c->strslot[ci];
		if ((err = string_dict(c, col, cd, clen, n, off, c->strp + k * n,
				       &nd[k], &c->dec[ci])))
			return err;
		enc = c->dec[ci].enc | (c->idxpred ? ENC_PRED : 0);
	} else if (ENC_ID(enc) < ENC_RAW || ENC_ID(enc) > ENC_DEXP) {
		return tape__fail(-EBADMSG, "block at offset %llu: column %s: unknown integer encoding %u",
				  (unsigned long long)off, col->name, enc);
	} else if ((err = tape_coldec_init(&c->dec[ci], (uint8_t)ENC_ID(enc), cd, clen, n))) {
		return tape__fail(err, "block at offset %llu: column %s: %s",
				  (unsigned long long)off, col->name, tape_error_detail());
	}
	if (enc & ENC_PRED) {
		if (!pred_ok)
			return tape__fail(-EBADMSG, "block at offset %llu: column %s cannot be predicted",
					  (unsigned long long)off, col->name);
		*predmask |= 1u << id;
	}
	return 0;
}

/*
 * The column directory of the block in c->raw (ncols entries after the
 * 4-byte header): each column the reader knows opened by block_column(),
 * the others skipped; the sizes must add up to the block.  *seen gets the
 * ids of the columns present, *predmask those predicted.
 */
static int block_columns(tape_cursor *c, const struct entry *e, size_t ncols, uint64_t *nd,
			 uint64_t *seen, unsigned *predmask)
{
	const struct tape_table_def *def = c->def;
	uint8_t *p = c->raw.p, *end = c->raw.p + c->raw.len;
	uint64_t off = e->off;
	int err;

	uint8_t *data = p + 4 + 8 * ncols;
	for (size_t i = 0; i < ncols; i++) {
		const uint8_t *d = p + 4 + 8 * i;
		unsigned id = get_le16(d), type = d[2], enc = d[3];
		uint32_t size = get_le32(d + 4);
		if (size > (size_t)(end - data))
			return tape__fail(-EBADMSG, "block at offset %llu: column %u runs past the block",
					  (unsigned long long)off, id);
		uint8_t *cd = data;
		data += size;
		int ci = id < 64 ? c->colmap[id] : -1;
		if (ci < 0)
			continue; /* a column this reader does not know */
		if (*seen & (1ull << id))
			return tape__fail(-EBADMSG, "block at offset %llu: column %s appears twice",
					  (unsigned long long)off, def->cols[ci].name);
		*seen |= 1ull << id;
		if ((err = block_column(c, ci, id, type, enc, cd, size, e->count, off, nd, predmask)))
			return err;
	}
	if (data != end)
		return tape__fail(-EBADMSG, "block at offset %llu: column sizes do not add up",
				  (unsigned long long)off);
	if (*predmask) {
		/* The prediction reads these columns: a block without them
		 * cannot be decoded to the values that were written. */
		const uint64_t inputs = (1ull << SC_TID) | (1ull << SC_OP) | (1ull << SC_SIZE) |
					(1ull << SC_RET) | (1ull << SC_OFFSET);
		if ((*seen & inputs) != inputs)
			return tape__fail(-EBADMSG, "block at offset %llu: predicted columns without "
					  "the tid, op, size, ret and offset columns they depend on",
					  (unsigned long long)off);
		pred_reset(&c->pred);
	}
	return 0;
}

/* The ids of the dictionaries of the string columns the sink asked for, in
 * one go (tape__strings_intern_n overlaps the cache misses); deferred,
 * read_batch() does it in block order. */
static int block_intern(tape_cursor *c, uint64_t seen, const uint64_t *nd, size_t n)
{
	const struct tape_table_def *def = c->def;
	int err;

	for (size_t i = 0; c->sink && !c->defer && i < c->sink->ncols; i++) {
		unsigned ci = c->sink->cols[i], k = c->strslot[ci];
		if (def->cols[ci].type != TAPE_COL_STR || !((seen >> def->cols[ci].id) & 1))
			continue;
		if ((err = tape__strings_intern_n(c->sink->strs, c->strp + k * n, nd[k],
						  c->sids + k * n))) {
			c->sinkfail = 1;
			return tape__fail(err, "table %s: string table: %s", def->name,
					  tape_strerror(err));
		}
	}
	return 0;
}

/* The next k values of every column into the tiles: the columns the block
 * lacks hold their defaults, the predicted ones are predicted. */
static inline int tile_decode(tape_cursor *c, uint64_t seen, unsigned predmask, size_t k,
			      uint64_t off)
{
	const struct tape_table_def *def = c->def;
	int err;

	for (size_t ci = 0; ci < def->ncols; ci++) {
		const struct tape_column *col = &def->cols[ci];
		uint64_t *v = c->tile + c->tslot[ci] * TILE;
		if (!((seen >> col->id) & 1)) {
			/* 0, but fd2 (added later) -1: no output fd.
			 * Most blocks lack the same columns (the output
			 * side): their tiles are filled once. */
			if ((c->deftile >> ci) & 1)
				continue;
			int m1 = def->id == TAPE_TABLE_SYSCALL && col->id == SC_FD2;
			memset(v, m1 ? 0xff : 0, TILE * sizeof(*v));
			c->deftile |= ci < 64 ? 1ull << ci : 0;
			continue;
		}
		c->deftile &= ~(ci < 64 ? 1ull << ci : 0);
		if ((err = tape_coldec_next(&c->dec[ci], k, v)))
			return tape__fail(err, "block at offset %llu: column %s: %s",
					  (unsigned long long)off, col->name, tape_error_detail());
	}
	if (predmask) {
		uint64_t *col[SC_NCOLS];
		for (int i = 0; i < SC_NCOLS; i++)
			col[i] = c->tile + c->tslot[c->colmap[i]] * TILE;
		if ((err = pred_decode_syscall(&c->pred, col, predmask, k)))
			return err;
	}
	return 0;
}

/* The k rows of the tiles into the structs at tile (the generic path):
 * padding zeroed, strings as pointers into the dictionaries, 4-byte
 * columns within 32 bits, timestamps within the block's range. */
static inline int tile_structs(tape_cursor *c, const struct entry *e, uint64_t seen,
			       const uint64_t *nd, uint8_t *tile, size_t k)
{
	const struct tape_table_def *def = c->def;
	size_t n = e->count, sz = def->size;
	uint64_t off = e->off;

	for (size_t g = 0; g < c->ngaps; g++) {
		uint8_t *q = tile + c->gap[g].off;
		size_t gl = c->gap[g].len;
		if (gl == 4) {
			for (size_t r = 0; r < k; r++, q += sz)
				memcpy(q, &(uint32_t){ 0 }, 4);
		} else {
			for (size_t r = 0; r < k; r++, q += sz)
				memset(q, 0, gl);
		}
	}
	for (size_t ci = 0; ci < def->ncols; ci++) {
		const struct tape_column *col = &def->cols[ci];
		const uint64_t *v = c->tile + c->tslot[ci] * TILE;
		uint8_t *f = tile + col->offset;
		if (col->type == TAPE_COL_STR) {
			if (!((seen >> col->id) & 1)) {
				for (size_t r = 0; r < k; r++, f += sz)
					memcpy(f, &(const char *){ empty }, sizeof(char *));
				continue;
			}
			unsigned s = c->strslot[ci];
			const char *const *str = c->strp + s * n;
			for (size_t r = 0; r < k; r++, f += sz) {
				if (v[r] >= nd[s])
					return tape__fail(-EBADMSG, "block at offset %llu: column %s: string index out of range",
							  (unsigned long long)off, col->name);
				memcpy(f, &str[v[r]], sizeof(char *));
			}
		} else if (col->width == 8) {
			for (size_t r = 0; r < k; r++, f += sz)
				memcpy(f, &v[r], 8);
		} else {
			uint64_t any = 0;
			for (size_t r = 0; r < k; r++, f += sz) {
				uint32_t v32 = (uint32_t)v[r];
				any |= v[r];
				memcpy(f, &v32, 4);
			}
			if (any > UINT32_MAX)
				return tape__fail(-EBADMSG, "block at offset %llu: column %s: value out of range",
						  (unsigned long long)off, col->name);
		}
	}
	/* The index's time range must match the data (it drives seeking). */
	/* ts_ns is column 0 (id 0, so tile 0 either way) of every table */
	const uint64_t *ts = c->tile;
	uint64_t bad = 0;
	for (size_t r = 0; r < k; r++)
		bad |= (ts[r] < e->tmin) | (ts[r] > e->tmax);
	if (bad)
		return tape__fail(-EBADMSG, "block at offset %llu: timestamps outside the block's range",
				  (unsigned long long)off);
	return 0;
}

static int decode_block(tape_cursor *c, const struct entry *e)
{
	const struct tape_table_def *def = c->def;
	size_t n = e->count, sz = def->size;
	uint64_t seen = 0;
	uint64_t nd[TAPE_MAX_STRCOLS];
	unsigned predmask = 0;
	int err;

	size_t ncols;
	if ((err = block_dir(c->raw.p, c->raw.len, e->off, &ncols)))
		return err;
	if ((err = block_arrays(c, n)))
		return err;
	if ((err = block_columns(c, e, ncols, nd, &seen, &predmask)))
		return err;
	c->dicts = 1;
	c->lastseen = seen;
	memcpy(c->lastnd, nd, sizeof(nd));
	if ((err = block_intern(c, seen, nd, n)))
		return err;

	const uint64_t base_sc = SC_BASE;
	for (size_t r0 = 0; r0 < n; r0 += TILE) {
		size_t k = n - r0 < TILE ? n - r0 : TILE;
		uint8_t *tile = c->evs + r0 * sz;

		if ((err = tile_decode(c, seen, predmask, k, e->off)))
			return err;
		if (c->sink) {
			if ((err = sink_tile(c, e, seen, nd, r0, k)))
				return err;
			continue;
		}
		/* the output side may be missing: its tiles hold the defaults */
		if (def->id == TAPE_TABLE_SYSCALL && c->byid && (seen & base_sc) == base_sc) {
			if ((err = build_syscalls(c, e, nd, tile, k)))
				return err;
			continue;
		}
		if ((err = tile_structs(c, e, seen, nd, tile, k)))
			return err;
	}
	return 0;
}

/* Entry e's chunk: its header checked against the index, its payload
 * verified and decompressed into c->raw. */
static int load_block(tape_cursor *c, const struct entry *e)
{
	struct chdr h;
	int err = read_chunk_header(c->r, e->off, &h);

	if (!err && (h.type != e->type || h.table != e->table || h.count != e->count ||
		     h.tmin != e->tmin || h.tmax != e->tmax))
		err = tape__fail(-EBADMSG, "block at offset %llu does not match the index",
				 (unsigned long long)e->off);
	if (!err && (h.count > TAPE_MAX_ROWS || h.tmin > h.tmax))
		err = tape__fail(-EBADMSG, "block at offset %llu has %u rows, above the limit",
				 (unsigned long long)e->off, h.count);
	if (!err)
		err = load_payload(c->r, e->off, &h, c->dctx, &c->stored, &c->raw);
	return err;
}

/* The next block with events in range, decoded: to the sink's arrays when
 * sink is set and the block is whole in the range and holds at most room
 * events (2, *n its events), else to structs (1, *evs and *n), 0 at the
 * end, or -errno. */
static int next_block(tape_cursor *c, struct colsink *sink, size_t room,
		      const void **evs, size_t *n)
{
	tape_reader *r = c->r;
	int err;

	if (c->err)
		return c->err;
	while (c->next < r->nents) {
		const struct entry *e = &r->ents[c->next++];
		if (e->type != CHUNK_BLOCK || e->table != c->def->id)
			continue;
		if (e->count == 0 || e->tmax < c->from || e->tmin > c->to)
			continue;
		err = load_block(c, e);
		int direct = sink && e->count <= room && c->from <= e->tmin && c->to >= e->tmax;
		if (!err) {
			c->sink = direct ? sink : NULL;
			err = decode_block(c, e);
			c->sink = NULL;
#if defined(__x86_64__) && defined(__GNUC__)
			if (direct)	/* put_u64's stores, before the caller reads */
				_mm_sfence();
#endif
		}
		if (err && c->sinkfail) {	/* not the file's fault: again next time */
			c->sinkfail = 0;
			c->next--;
			return err;
		}
		if (err)
			return c->err = err;
		if (direct) {
			c->nevs = c->pos = 0;
			*n = e->count;
			return 2;
		}
		size_t m = e->count, sz = c->def->size;
		if (c->from > e->tmin || c->to < e->tmax) {
			size_t k = 0;
			for (size_t i = 0; i < m; i++) {
				uint64_t ts;
				memcpy(&ts, c->evs + i * sz, 8);
				if (ts >= c->from && ts <= c->to) {
					if (k != i)
						memcpy(c->evs + k * sz, c->evs + i * sz, sz);
					k++;
				}
			}
			m = k;
		}
		if (!m)
			continue;
		c->nevs = m;
		c->pos = m;
		*evs = c->evs;
		*n = m;
		return 1;
	}
	return 0;
}

/* ------------------------------------------------ the next block ahead */

/*
 * With tape_cursor_set_readahead(), tape_cursor_next_block() hands out
 * the blocks of two decoders in turn, the cursor itself and one of its
 * own: while the caller works on one's block, a thread decodes the next
 * block into the other.  A decoder starts where the other's last block
 * ended, so the blocks come in file order, one at a time, as one decoder
 * gives them: the same rows, the same error after the same rows.  The
 * thread waits for a job between blocks; the cursor's fields belong to
 * whichever thread decodes into it.
 */
struct ahead {
	tape_cursor *w[2];	/* w[0]: the cursor itself */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int job;		/* the decoder the thread works on, -1 none */
	int done;		/* its block is there: rc, evs, n */
	int quit;
	int front;		/* the decoder whose block the caller has, -1 */
	int rc, err;		/* the block's; the first error, returned again */
	const void *evs;
	size_t n;
	char detail[512];	/* the thread's tape_error_detail() */
};

static void *ahead_main(void *arg)
{
	struct ahead *a = arg;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->quit && (a->job < 0 || a->done))
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->quit)
			break;
		tape_cursor *w = a->w[a->job];
		pthread_mutex_unlock(&a->mu);
		const void *evs = NULL;
		size_t n = 0;
		int rc = next_block(w, NULL, 0, &evs, &n);
		if (rc < 0)
			snprintf(a->detail, sizeof(a->detail), "%s", tape_error_detail());
		pthread_mutex_lock(&a->mu);
		a->rc = rc;
		a->evs = evs;
		a->n = n;
		a->done = 1;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* Decoder k's next block, from entry `from` on (a->mu held). */
static void ahead_start(struct ahead *a, int k, size_t from)
{
	a->w[k]->next = from;
	a->job = k;
	a->done = 0;
	pthread_cond_broadcast(&a->cv);
}

static int ahead_next(tape_cursor *c, const void **evs, size_t *n)
{
	struct ahead *a = c->ahead;

	pthread_mutex_lock(&a->mu);
	if (a->err) {
		pthread_mutex_unlock(&a->mu);
		return tape__fail(a->err, "%s", a->detail);
	}
	if (a->job < 0) {	/* none under way: the block after the caller's */
		int k = a->front < 0 ? 0 : 1 - a->front;
		ahead_start(a, k, a->front < 0 ? c->next : a->w[a->front]->next);
	}
	while (!a->done)
		pthread_cond_wait(&a->cv, &a->mu);
	int k = a->job, rc = a->rc;
	a->job = -1;
	if (rc > 0) {
		*evs = a->evs;
		*n = a->n;
		a->front = k;
		/* the next one, while the caller works on this one */
		ahead_start(a, 1 - k, a->w[k]->next);
	} else if (rc < 0) {
		a->err = rc;
	}
	pthread_mutex_unlock(&a->mu);
	return rc < 0 ? tape__fail(rc, "%s", a->detail) : rc;
}

static void ahead_stop(tape_cursor *c)
{
	struct ahead *a = c->ahead;

	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->quit = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->th, NULL);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	c->ahead = NULL;
	tape_cursor_free(a->w[1]);
	free(a);
}

int tape_cursor_set_readahead(tape_cursor *c)
{
	struct ahead *a;
	int err;

	if (c->ahead)
		return 0;
	if (c->pos < c->nevs)
		return tape__fail(-EINVAL, "read ahead: the cursor is inside a block");
	if (!(a = calloc(1, sizeof(*a))))
		return -ENOMEM;
	if ((err = tape_cursor_open(c->r, c->def->id, c->from, c->to, &a->w[1]))) {
		free(a);
		return err;
	}
	a->w[0] = c;
	a->job = a->front = -1;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	if ((err = pthread_create(&a->th, NULL, ahead_main, a))) {
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		tape_cursor_free(a->w[1]);
		free(a);
		return -err;
	}
	c->ahead = a;
	return 0;
}

int tape_cursor_next_block(tape_cursor *c, const void **evs, size_t *n)
{
	if (c->ahead)
		return ahead_next(c, evs, n);
	return next_block(c, NULL, 0, evs, n);
}

int tape_cursor_next(tape_cursor *c, const void **ev)
{
	if (c->ahead)
		return tape__fail(-EINVAL, "tape_cursor_next: the cursor reads ahead (blocks only)");
	if (c->pos >= c->nevs) {
		const void *evs;
		size_t n;
		int rc = tape_cursor_next_block(c, &evs, &n);
		if (rc <= 0)
			return rc;
		c->pos = 0;
	}
	*ev = c->evs + c->pos++ * c->def->size;
	return 1;
}

/* ---------------------------------------------- whole blocks on threads */

/*
 * The blocks of a table are independent (each its own payload, dictionaries
 * and prediction state), so tape_cursor_read_columns() can decode several
 * at once, each thread with a cursor of its own (c->helpers) writing its
 * block's rows straight into the caller's arrays at the block's place.
 * What is shared is the string table, whose ids must be those one thread
 * gives: a thread decodes string columns as its block's dictionary
 * indexes, waits for its block's turn (block order), interns the block's
 * dictionaries, passes the turn on, then turns the indexes into ids.  A
 * failure is settled at its block's turn, so the first failing block in
 * file order wins and nothing after it is interned: the caller gets the
 * rows before it and its error, as with one thread.
 */
#define MAX_THREADS 64
#define BATCH_JOBS 1024	/* blocks planned at a time */

struct job {
	size_t ent;		/* index entry of the block */
	size_t at;		/* its first row in the caller's arrays */
};

struct batch {
	const tape_cursor *c;
	struct colsink sink;	/* at: unused, each job has its own */
	const struct job *jobs;
	size_t njobs;
	size_t next;		/* the next job to take (atomic) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t turn;		/* the job that interns next */
	size_t failed;		/* the failed job, njobs: none (atomic) */
	int err, sinkfail;
	char detail[512];	/* the failed thread's tape_error_detail() */
};

/* Job i on cursor w; 0, or -errno when the batch stops (the first failure
 * is in b). */
static int run_job(struct batch *b, tape_cursor *w, size_t i)
{
	const struct tape_table_def *def = w->def;
	const struct entry *e = &b->c->r->ents[b->jobs[i].ent];
	struct colsink sink = b->sink;
	size_t n = e->count;
	int err, sinkfail = 0;

	sink.at = b->jobs[i].at;
	w->dicts = 0;
	if (!(err = load_block(w, e))) {
		w->sink = &sink;
		w->defer = 1;
		err = decode_block(w, e);
		w->sink = NULL;
		w->defer = 0;
	}
	pthread_mutex_lock(&b->mu);
	while (b->turn != i && b->failed == b->njobs)
		pthread_cond_wait(&b->cv, &b->mu);
	if (b->failed != b->njobs) {	/* an earlier block failed */
		pthread_mutex_unlock(&b->mu);
		return -ECANCELED;
	}
	/* one thread interns a block's dictionaries before its rows, so
	 * those of a block whose rows then fail are in the table too */
	for (size_t j = 0; w->dicts && !sinkfail && j < sink.ncols; j++) {
		unsigned ci = sink.cols[j], k = w->strslot[ci];
		if (def->cols[ci].type != TAPE_COL_STR || !((w->lastseen >> def->cols[ci].id) & 1))
			continue;
		int ierr = tape__strings_intern_n(sink.strs, w->strp + k * n, w->lastnd[k],
						  w->sids + k * n);
		if (ierr) {
			sinkfail = 1;
			err = tape__fail(ierr, "table %s: string table: %s", def->name,
					 tape_strerror(ierr));
		}
	}
	if (err) {
		b->err = err;
		b->sinkfail = sinkfail;
		snprintf(b->detail, sizeof(b->detail), "%s", tape_error_detail());
		__atomic_store_n(&b->failed, i, __ATOMIC_RELAXED);
	} else {
		b->turn = i + 1;
	}
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	if (err)
		return err;
	for (size_t j = 0; j < sink.ncols; j++) {
		unsigned ci = sink.cols[j];
		if (def->cols[ci].type != TAPE_COL_STR || !((w->lastseen >> def->cols[ci].id) & 1))
			continue;
		size_t slot = w->strslot[ci] * n;	/* indexes < nd: checked by sink_tile */
		put_ids(w->sids + slot, NULL, w->didx + slot, (uint32_t *)sink.out[j] + sink.at, n);
	}
	return 0;
}

struct worker {
	struct batch *b;
	tape_cursor *w;
};

static void *work(void *arg)
{
	struct worker *wk = arg;
	struct batch *b = wk->b;

	for (;;) {
		size_t i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED);
		if (i >= b->njobs || __atomic_load_n(&b->failed, __ATOMIC_RELAXED) < i)
			break;
		if (run_job(b, wk->w, i))
			break;
	}
#if defined(__x86_64__) && defined(__GNUC__)
	_mm_sfence();	/* put_u64's stores, before the caller reads */
#endif
	return NULL;
}

/*
 * The whole blocks ahead of the cursor that fit in room rows, decoded on
 * up to c->nthreads threads into the sink's arrays from row sink->at: *n
 * gets the rows written.  0 when fewer than two blocks are ahead (nothing
 * done: the caller goes on with one), 1 when done, or -errno for the
 * first block that failed (*n: the rows of the blocks before it), left
 * as next_block() leaves it.
 */
static int read_batch(tape_cursor *c, const struct colsink *sink, size_t room, size_t *n)
{
	tape_reader *r = c->r;
	size_t nj = 0, at = sink->at;

	*n = 0;
	if (!c->jobs && !(c->jobs = malloc(BATCH_JOBS * sizeof(*c->jobs))))
		return 0;	/* one thread can still do it */
	for (size_t i = c->next; i < r->nents && nj < BATCH_JOBS; i++) {
		const struct entry *e = &r->ents[i];
		if (e->type != CHUNK_BLOCK || e->table != c->def->id)
			continue;
		if (e->count == 0 || e->tmax < c->from || e->tmin > c->to)
			continue;
		if (e->count > room || c->from > e->tmin || c->to < e->tmax)
			break;
		c->jobs[nj].ent = i;
		c->jobs[nj++].at = at;
		at += e->count;
		room -= e->count;
	}
	if (nj < 2)
		return 0;

	struct batch b = { .c = c, .sink = *sink, .jobs = c->jobs, .njobs = nj,
			   .failed = nj };
	unsigned nt = c->nthreads < nj ? c->nthreads : (unsigned)nj, started = 0;
	pthread_t th[MAX_THREADS];
	struct worker wk[MAX_THREADS];
	if (c->nhelpers < nt - 1) {
		tape_cursor **h = realloc(c->helpers, (nt - 1) * sizeof(*h));
		if (h) {
			c->helpers = h;
			while (c->nhelpers < nt - 1 &&
			       !tape_cursor_open(r, c->def->id, c->from, c->to, &h[c->nhelpers]))
				c->nhelpers++;
		}
	}
	pthread_mutex_init(&b.mu, NULL);
	pthread_cond_init(&b.cv, NULL);
	/* threads that cannot be had leave their share to the others */
	for (unsigned t = 0; t + 1 < nt && t < c->nhelpers; t++) {
		wk[t] = (struct worker){ &b, c->helpers[t] };
		if (pthread_create(&th[t], NULL, work, &wk[t]))
			break;
		started++;
	}
	struct worker self = { &b, c };
	work(&self);
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_cond_destroy(&b.cv);
	pthread_mutex_destroy(&b.mu);

	if (b.failed == nj) {
		c->next = c->jobs[nj - 1].ent + 1;
		*n = at - sink->at;
		return 1;
	}
	const struct job *f = &c->jobs[b.failed];
	*n = f->at - sink->at;
	tape__fail(b.err, "%s", b.detail);
	if (b.sinkfail) {	/* not the file's fault: again next time */
		c->next = f->ent;
		return b.err;
	}
	c->next = f->ent + 1;
	return c->err = b.err;
}

int tape_cursor_set_threads(tape_cursor *c, unsigned n)
{
	if (n < 1 || n > MAX_THREADS)
		return tape__fail(-EINVAL, "%u threads: 1 to %d", n, MAX_THREADS);
	c->nthreads = n;
	return 0;
}

/* Rows of a block transposed at a time: their structs stay in cache while
 * every column is copied out of them. */
#define COLTILE 256

/* Copy rows [0, k) of evs (structs of size sz) into the columns, from
 * element at of each array; -errno when strs cannot grow. */
static int put_columns(const struct tape_table_def *def, const uint8_t *evs, size_t k,
		       const unsigned *cols, size_t ncols, void *const *out,
		       size_t at, tape_strings *strs)
{
	size_t sz = def->size;

	for (size_t t = 0; t < k; t += COLTILE) {
		size_t m = k - t < COLTILE ? k - t : COLTILE;
		const uint8_t *base = evs + t * sz;

		for (size_t i = 0; i < ncols; i++) {
			const struct tape_column *col = &def->cols[cols[i]];
			const uint8_t *f = base + col->offset;

			if (col->type == TAPE_COL_STR) {
				int err = tape__strings_ids(strs, (const char *const *)f, sz, m,
							    (uint32_t *)out[i] + at + t);
				if (err)
					return err;
			} else if (col->width == 8) {
				uint64_t *o = (uint64_t *)out[i] + at + t;
				for (size_t r = 0; r < m; r++, f += sz)
					memcpy(&o[r], f, 8);
			} else {
				uint32_t *o = (uint32_t *)out[i] + at + t;
				for (size_t r = 0; r < m; r++, f += sz)
					memcpy(&o[r], f, 4);
			}
		}
	}
	return 0;
}

int tape_cursor_read_columns(tape_cursor *c, const unsigned *cols, size_t ncols,
			     void *const *out, size_t max, tape_strings *strs,
			     size_t *n)
{
	const struct tape_table_def *def = c->def;
	size_t got = 0;
	int err;

	*n = 0;
	if (c->ahead)
		return tape__fail(-EINVAL, "tape_cursor_read_columns: the cursor reads ahead (blocks only)");
	for (size_t i = 0; i < ncols; i++) {
		if (cols[i] >= def->ncols || !out[i])
			return tape__fail(-EINVAL, "column %u of table %s: no such column or no array",
					  cols[i], def->name);
		if (def->cols[cols[i]].type == TAPE_COL_STR && !strs)
			return tape__fail(-EINVAL, "column %s: a string column needs a string table",
					  def->cols[cols[i]].name);
	}
	if (strs)	/* another cursor may have used it since */
		tape__strings_new_block(strs);
	while (got < max) {
		if (c->pos >= c->nevs && c->nthreads > 1 && !c->err) {
			/* whole blocks that fit, several at once */
			struct colsink sink = { cols, ncols, out, got, strs };
			size_t nb;
			int rc = read_batch(c, &sink, max - got, &nb);
			got += nb;
			if (rc < 0 && got)
				break;	/* the error again on the next call */
			if (rc < 0)
				return rc;
			if (rc > 0)
				continue;
		}
		if (c->pos >= c->nevs) {
			/* a whole block that fits goes straight to the arrays */
			struct colsink sink = { cols, ncols, out, got, strs };
			const void *evs;
			size_t nb;
			int rc = next_block(c, &sink, max - got, &evs, &nb);
			if (rc < 0 && got)
				break;	/* the error again on the next call */
			if (rc < 0)
				return rc;
			if (rc == 0)
				break;
			if (rc == 2) {
				got += nb;
				continue;
			}
			c->pos = 0;
			if (strs)
				tape__strings_new_block(strs);
		}
		size_t k = c->nevs - c->pos;
		if (k > max - got)
			k = max - got;
		err = put_columns(def, c->evs + c->pos * def->size, k, cols, ncols, out, got, strs);
		if (err && got)
			break;
		if (err)
			return tape__fail(err, "table %s: string table: %s", def->name,
					  tape_strerror(err));
		c->pos += k;
		got += k;
	}
	*n = got;
	return got > 0;
}
