/* SPDX-License-Identifier: MIT */
/*
 * fuzz_reader.c - libFuzzer target: any bytes opened as a trace.
 *
 * The input goes into a memfd and through everything a reader of an
 * untrusted trace does: open (header, footer or scan), metadata, stats,
 * every table's cursor to the end or to an error, by event, by block and
 * column by column (tape_cursor_read_columns, on one thread and on three,
 * which must agree), and a time-range cursor.
 * Every input runs twice: as it is, and with all its checksums recomputed
 * (file header, each chunk header and payload found by walking the
 * chunks, trailer), so mutations reach the decoders instead of stopping
 * at a checksum.  Errors are fine; a crash, a sanitizer report,
 * a hang or unbounded memory is a bug.  Built two ways (tests/tests.mk):
 * with tests/fuzz/replay.c for `make check`, and with -fsanitize=fuzzer
 * for `make fuzz`.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdlib.h>
#include <stdio.h>
#include <xxhash.h>
#include "tape_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void use_event(int table, const void *ev)
{
	size_t n;
	const struct tape_column *c = tape_table_columns(table, &n);
	for (size_t i = 0; i < n; i++) {
		if (c[i].type == TAPE_COL_STR) {
			const char *s;
			memcpy(&s, (const char *)ev + c[i].offset, sizeof(s));
			sink += strlen(s); /* every string is NUL-terminated */
		} else {
			sink += tape_column_get(&c[i], ev);
		}
	}
}

/* Recompute every check the reader verifies; returns 0 when nothing to do. */
static int fixup(uint8_t *p, size_t len)
{
	if (len < TAPE_HEADER_SIZE || memcmp(p, TAPE_MAGIC, 8))
		return 0;
	put_le32(p + 28, XXH32(p, 28, 0));
	uint64_t off = get_le32(p + 12);
	while (off + TAPE_CHUNK_HDR <= len && !memcmp(p + off, TAPE_CHUNK_MAGIC, 4)) {
		uint8_t *h = p + off;
		uint64_t stored = get_le32(h + 12);
		if (off + TAPE_CHUNK_HDR + stored > len)
			break;
		put_le64(h + 40, XXH64(h + TAPE_CHUNK_HDR, stored, 0));
		put_le32(h + 20, 0);
		put_le32(h + 20, XXH32(h, TAPE_CHUNK_HDR, 0));
		off += TAPE_CHUNK_HDR + stored;
	}
	if (len >= TAPE_HEADER_SIZE + TAPE_TRAILER_SIZE &&
	    !memcmp(p + len - 8, TAPE_TRAILER_MAGIC, 8)) {
		uint8_t *t = p + len - TAPE_TRAILER_SIZE;
		put_le32(t + 8, XXH32(t, 8, 0));
	}
	return 1;
}

static void read_trace(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_trace(data, size);
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (fixup(copy, size))
		read_trace(copy, size);
	free(copy);
	return 0;
}

#define BATCH 1000
static uint64_t colbuf[64][BATCH];

struct colread {
	uint64_t rows, hash, strings;
	int64_t rc;	/* the last call's */
};

/* Table t read column by column on threads threads: what it gave, hashed
 * (strings as their ids' bytes, so the ids count too). */
static struct colread read_columns(tape_reader *r, int t, unsigned threads)
{
	struct colread res = { 0, 0xcbf29ce484222325ull, 0, 0 };
	tape_strings *strs;
	tape_cursor *c;
	size_t nc, n;
	const struct tape_column *cd = tape_table_columns(t, &nc);
	unsigned cols[64];
	void *out[64];
	int rc;

	if (tape_strings_new(&strs))
		return res;
	if (tape_cursor_open(r, t, 0, UINT64_MAX, &c) || tape_cursor_set_threads(c, threads)) {
		tape_cursor_free(c);
		tape_strings_free(strs);
		return res;
	}
	for (size_t i = 0; i < nc; i++) {
		cols[i] = (unsigned)i;
		out[i] = colbuf[i];
	}
	while ((rc = tape_cursor_read_columns(c, cols, nc, out, BATCH, strs, &n)) == 1) {
		res.rows += n;
		for (size_t i = 0; i < nc; i++)
			for (size_t j = 0; j < n; j++) {
				uint64_t v = cd[i].type == TAPE_COL_STR || cd[i].width == 4
					? ((uint32_t *)colbuf[i])[j] : ((uint64_t *)colbuf[i])[j];
				if (cd[i].type == TAPE_COL_STR)
					v += strlen(tape_strings_get(strs, v));
				res.hash = (res.hash ^ v) * 0x100000001b3ull;
			}
	}
	res.rc = rc;
	res.strings = tape_strings_count(strs);
	tape_cursor_free(c);
	tape_strings_free(strs);
	return res;
}

static void read_trace(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	tape_reader *r = NULL;
	if (fd < 0)
		return;
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0)
			goto out;
		done += (size_t)n;
	}
	if (tape_reader_open_fd(&r, fd))
		goto out;

	unsigned ma, mi;
	tape_reader_version(r, &ma, &mi);
	sink += ma + mi + tape_reader_file_size(r) + tape_reader_trailing_bytes(r) +
		tape_reader_unknown_blocks(r) + tape_reader_damaged_meta(r, NULL);
	if (tape_reader_recovered(r))
		sink += strlen(tape_reader_recovered(r));
	for (size_t i = 0; i < tape_reader_meta_count(r); i++) {
		const char *k, *v;
		if (tape_reader_meta_at(r, i, &k, &v) == 0)
			sink += strlen(k) + strlen(v) + (tape_reader_meta(r, k) != NULL);
	}
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		struct tape_table_stats st;
		tape_cursor *c;
		const void *ev;
		size_t n;
		if (tape_reader_table_stats(r, t, &st))
			continue;
		sink += st.events + st.blocks + st.bytes;
		/* event by event */
		if (tape_cursor_open(r, t, 0, UINT64_MAX, &c) == 0) {
			while (tape_cursor_next(c, &ev) == 1)
				use_event(t, ev);
			tape_cursor_free(c);
		}
		/* block by block, over the middle of the time range */
		uint64_t lo = st.t_min, hi = st.t_max;
		if (lo <= hi && tape_cursor_open(r, t, lo + (hi - lo) / 4, hi - (hi - lo) / 4, &c) == 0) {
			while (tape_cursor_next_block(c, &ev, &n) == 1)
				for (size_t i = 0; i < n; i++)
					use_event(t, (const char *)ev + i * tape_table_event_size(t));
			tape_cursor_free(c);
		}
		/* column by column, in batches that cross blocks, on one thread
		 * and on three: the same rows, values, string ids and end */
		struct colread one = read_columns(r, t, 1), three = read_columns(r, t, 3);
		if (memcmp(&one, &three, sizeof(one))) {
			fprintf(stderr, "table %d: one thread: %" PRIu64 " rows, hash %" PRIx64
				", %" PRIu64 " strings, end %" PRId64 "; three: %" PRIu64
				" rows, hash %" PRIx64 ", %" PRIu64 " strings, end %" PRId64 "\n",
				t, one.rows, one.hash, one.strings, one.rc, three.rows, three.hash,
				three.strings, three.rc);
			abort();
		}
		sink += one.hash;
	}
out:
	tape_reader_free(r);
	close(fd);
}
