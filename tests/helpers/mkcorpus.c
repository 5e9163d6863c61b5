/* SPDX-License-Identifier: MIT */
/*
 * mkcorpus - write the seed corpus of fuzz_reader.
 *
 *   .output/tests/mkcorpus tests/fuzz/corpus/reader
 *
 * Deterministic small traces that reach every part of the reader: each
 * table, each integer encoding, with and without footer, empty and
 * metadata-only files, future-format features (extra columns, unknown
 * tables and chunk types, newer minor version, longer header), and
 * truncated and bit-flipped variants.  Most are re-encoded with every
 * chunk stored (not zstd), so a mutation of a payload reaches the column
 * decoders (fuzz_reader recomputes the checksums).  Run by hand when the
 * corpus is renewed; the golden trace is copied in separately.  The
 * committed corpus is what `make check` replays.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "tape_internal.h"
#include "../lib/tlib.c"

static const char *outdir;

static void die(const char *what, int err)
{
	fprintf(stderr, "mkcorpus: %s: %s (%s)\n", what, tape_strerror(err), tape_error_detail());
	exit(1);
}

static void save(const char *name, const uint8_t *p, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f))
		die(path, -errno);
}

/* Events: n per table of tables (bitmask), deterministic. */
static void fill(tape_writer *w, unsigned tables, size_t n, uint64_t seed, int extreme)
{
	struct t_rng r = { seed };
	uint8_t ev[256];
	uint64_t ts = 1000;
	int err;
	for (size_t i = 0; i < n; i++)
		for (int t = 1; t < TAPE_TABLE_MAX; t++) {
			if (!(tables & (1u << t)))
				continue;
			memset(ev, 0, sizeof(ev));
			t_ev_random(&r, t, ev, extreme, &ts);
			/* keep strings short: small seeds fuzz better */
			size_t ncols;
			const struct tape_column *c = tape_table_columns(t, &ncols);
			for (size_t k = 0; k < ncols; k++)
				if (c[k].type == TAPE_COL_STR) {
					char *s = (char *)t_ev_str(&c[k], ev);
					if (strlen(s) > 12)
						s[12] = 0;
				}
			if ((err = tape_writer_append(w, t, ev)))
				die("append", err);
			t_ev_free_strings(t, ev);
		}
}

struct out {
	uint8_t *p;
	size_t len;
};

static tape_writer *start(unsigned rows, int *fd)
{
	tape_writer *w;
	int err;
	struct tape_writer_opts o = { .block_rows = rows };
	if ((err = t_writer_memfd(&w, &o, fd)))
		die("writer", err);
	return w;
}

static struct out finish(tape_writer *w, int fd, int footer)
{
	struct out o;
	int err;
	if (footer) {
		if ((err = tape_writer_close(w)))
			die("close", err);
	} else {
		if ((err = tape_writer_flush(w)))
			die("flush", err);
		tape_writer_free(w);
	}
	if ((err = t_fd_contents(fd, &o.p, &o.len)))
		die("read back", err);
	close(fd);
	return o;
}

static void save_stored(const char *name, struct out o, int footer)
{
	uint8_t *p;
	size_t len;
	if (t_restore_stored(o.p, o.len, footer, &p, &len))
		die("restore", -ENOMEM);
	save(name, p, len);
	free(p);
}

/* syscall copies (the output columns 13-15) among other rows, in blocks
 * with and without them */
static void seed_copies(void)
{
	struct t_rng r = { 46 };
	static const unsigned ops[] = { TAPE_OP_PREAD64, TAPE_OP_SENDFILE,
					TAPE_OP_COPY_FILE_RANGE, TAPE_OP_SPLICE };
	int fd, err;
	tape_writer *w = start(4, &fd);

	for (size_t i = 0; i < 12; i++) {
		struct tape_syscall e;
		memset(&e, 0, sizeof(e));
		t_ev_random(&r, TAPE_TABLE_SYSCALL, &e, i & 1, NULL);
		e.ts_ns = 1000 + i;
		e.op = i < 4 ? TAPE_OP_READ : ops[i % 4];
		free((char *)e.path);
		free((char *)e.path2);
		e.path = "/in";
		e.path2 = i < 4 ? "" : "/out";
		if ((err = tape_writer_append(w, TAPE_TABLE_SYSCALL, &e)))
			die("append", err);
	}
	struct out o = finish(w, fd, 1);
	save_stored("copies", o, 1);
	free(o.p);
}

/* one table each, a few small blocks */
static void seed_tables(void)
{
	char name[64];
	int fd;

	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		tape_writer *w = start(3, &fd);
		fill(w, 1u << t, 7, (uint64_t)t, t & 1);
		struct out o = finish(w, fd, 1);
		snprintf(name, sizeof(name), "table-%s", tape_table_name(t));
		save_stored(name, o, 1);
		free(o.p);
	}
}

/* every integer encoding (and automatic), syscall + process */
static void seed_encodings(void)
{
	char name[64];
	int fd;

	for (int e = 0; e <= ENC_DEXP; e++) {
		tape__force_encoding = e;
		tape_writer *w = start(4, &fd);
		fill(w, 1u << TAPE_TABLE_SYSCALL | 1u << TAPE_TABLE_PROCESS, 6, 100 + (uint64_t)e, 1);
		struct out o = finish(w, fd, 1);
		tape__force_encoding = 0;
		snprintf(name, sizeof(name), "enc-%d", e);
		save_stored(name, o, 1);
		free(o.p);
	}
}

/* the mixed trace with its footer (o), damaged: truncated in the header, in
 * a block, in the footer; a bit flipped in a chunk header, a payload, the
 * index */
static void seed_damaged(struct out o)
{
	uint8_t *s;
	size_t sl;

	t_restore_stored(o.p, o.len, 1, &s, &sl);
	/* truncated: in the header, in a block, in the footer */
	save("cut-header", s, 20);
	save("cut-block", s, sl / 2);
	save("cut-trailer", s, sl - 10);
	/* bit flips: a chunk header, a payload, the index */
	struct t_chunk ch[64];
	size_t n = t_chunks(s, sl, ch, 64);
	uint8_t *f = malloc(sl);
	memcpy(f, s, sl);
	f[ch[1].off + 9] ^= 0x04;
	save("flip-chunk-header", f, sl);
	memcpy(f, s, sl);
	f[ch[2].off + TAPE_CHUNK_HDR + 5] ^= 0x01;
	save("flip-payload", f, sl);
	memcpy(f, s, sl);
	f[ch[n - 1].off + TAPE_CHUNK_HDR + 8] ^= 0x80;
	save("flip-index", f, sl);
	free(f);
	free(s);
}

/* all tables and metadata: stored with/without footer, zstd as written,
 * and the damaged ones */
static void seed_mixed(void)
{
	const unsigned all = 0x7e; /* tables 1..6 */
	int fd;

	for (int footer = 0; footer <= 1; footer++) {
		tape_writer *w = start(5, &fd);
		tape_writer_set_meta(w, "host", "fuzz");
		fill(w, all, 6, 7, 0);
		tape_writer_flush(w);
		tape_writer_set_meta(w, "host", "fuzz2");
		tape_writer_set_meta(w, "clock", "monotonic");
		fill(w, all, 4, 8, 1);
		struct out o = finish(w, fd, footer);
		save_stored(footer ? "mixed-footer" : "mixed-nofooter", o, footer);
		if (footer) {
			save("mixed-zstd", o.p, o.len);
			seed_damaged(o);
		}
		free(o.p);
	}
}

/* empty, metadata only */
static void seed_empty(void)
{
	int fd;
	tape_writer *w = start(0, &fd);
	struct out o = finish(w, fd, 1);

	save("empty", o.p, o.len);
	free(o.p);
	w = start(0, &fd);
	tape_writer_set_meta(w, "only", "meta");
	o = finish(w, fd, 0);
	save("meta-only-nofooter", o.p, o.len);
	free(o.p);
}

/* the future: extra columns, an unknown table and chunk type */
static void seed_future_chunks(void)
{
	struct t_evs e;
	struct t_rng r = { 99 };
	uint8_t ev[256];
	struct buf b = { 0 };
	uint64_t ts = 10;
	int fd, err;

	t_evs_init(&e, TAPE_TABLE_BLOCK);
	for (int i = 0; i < 5; i++) {
		memset(ev, 0, sizeof(ev));
		t_ev_random(&r, TAPE_TABLE_BLOCK, ev, 1, &ts);
		t_evs_push_copy(&e, ev);
	}
	if ((err = tape__encode_block(TAPE_TABLE_BLOCK, e.ev, e.n, 2, &b)))
		die("encode", err);
	tape_writer *w = start(0, &fd);
	tape_writer__raw_chunk(w, CHUNK_BLOCK, TAPE_TABLE_BLOCK, 5, 0, ts, b.p, b.len);
	tape_writer__raw_chunk(w, CHUNK_BLOCK, 77, 5, 0, ts, b.p, b.len);
	tape_writer__raw_chunk(w, 9, 0, 1, 0, 0, "future", 6);
	struct out o = finish(w, fd, 1);
	save_stored("future-chunks", o, 1);
	free(o.p);
	buf_release(&b);
	t_evs_release(&e);
}

/* a newer minor version with a longer header (no footer) */
static void seed_minor_header(void)
{
	int fd;
	tape_writer *w = start(2, &fd);

	fill(w, 1u << TAPE_TABLE_SAMPLE | 1u << TAPE_TABLE_FILE, 3, 5, 0);
	struct out o = finish(w, fd, 0);
	uint8_t *g = malloc(o.len + 16);
	memcpy(g, o.p, 32);
	memset(g + 32, 0, 16);
	memcpy(g + 48, o.p + 32, o.len - 32);
	put_le16(g + 10, 3);
	put_le32(g + 12, 48);
	t_fix_file_header(g);
	save("minor3-header48", g, o.len + 16);
	free(g);
	free(o.p);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkcorpus OUTDIR\n");
		return 2;
	}
	outdir = argv[1];
	seed_copies();
	seed_tables();
	seed_encodings();
	seed_mixed();
	seed_empty();
	seed_future_chunks();
	seed_minor_header();
	return 0;
}
