/* SPDX-License-Identifier: MIT */
/*
 * tlib.h - helpers shared by the unit tests (linked into every
 * tests/unit/test_*.c program).
 *
 * Everything here is generic over the tables: events are handled through
 * tape_table_columns()/tape_column_get()/tape_column_set(), so a column
 * added to format/tables.c is covered by every test without touching them.
 * Randomness comes from a seeded splitmix64, never from rand(), so every
 * failure is reproducible from the seed the test prints.
 */
#ifndef IOTAPE_TLIB_H
#define IOTAPE_TLIB_H

#include <stddef.h>
#include <stdint.h>
#include "tape.h"

/* ------------------------------------------------------------ random */
struct t_rng {
	uint64_t s;
};
uint64_t t_rand(struct t_rng *r);
uint64_t t_below(struct t_rng *r, uint64_t n);	/* 0..n-1, n > 0 */

/* ---------------------------------------------------------- event sets */
/*
 * A growable array of events of one table.  String fields of the events
 * in a set point to heap copies the set owns (never NULL once pushed).
 */
struct t_evs {
	int table;
	size_t size, n, cap;
	uint8_t *ev;
};
void t_evs_init(struct t_evs *s, int table);
void t_evs_release(struct t_evs *s);
void *t_evs_at(const struct t_evs *s, size_t i);
/* Append a deep copy of ev (strings copied; NULL strings become ""). */
int t_evs_push_copy(struct t_evs *s, const void *ev);

/* String field access through a column description. */
const char *t_ev_str(const struct tape_column *c, const void *ev);
void t_ev_set_str(const struct tape_column *c, void *ev, const char *s);

/*
 * Fill ev (zeroed by the caller) with random column values; string fields
 * get malloc'd strings the caller frees with t_ev_free_strings().
 * extreme: mix in 0, the width's maximum, INT64_MIN, -1, special strings
 * (commas, quotes, newlines, high bytes) and 4 KiB paths.  ts: when
 * non-NULL, ts_ns is *ts plus a small random step (monotonic streams).
 */
void t_ev_random(struct t_rng *r, int table, void *ev, int extreme, uint64_t *ts);
void t_ev_free_strings(int table, void *ev);

/* 0 when every column of a and b is equal, else -1 with why filled. */
int t_ev_cmp(int table, const void *a, const void *b, char *why, size_t len);

/* -------------------------------------------------------------- traces */
/*
 * Read a table with a cursor into out (deep copies).  Returns 0 at the
 * end, or the cursor's negative error (out then holds what came before).
 */
int t_read_table(tape_reader *r, int table, uint64_t from, uint64_t to,
		 struct t_evs *out);
/* Compare got with exp[0..n); -1 with why on the first difference. */
int t_evs_cmp_prefix(const struct t_evs *got, const struct t_evs *exp,
		     size_t n, char *why, size_t len);

/* A memfd holding len bytes of p (for tape_reader_open_fd); -1 on error. */
int t_memfd(const void *p, size_t len);
/* Whole contents of an fd (from offset 0) into a malloc'd buffer. */
int t_fd_contents(int fd, uint8_t **p, size_t *len);
int t_file_contents(const char *path, uint8_t **p, size_t *len);
/*
 * Open a writer on a fresh memfd; *fd gets a second descriptor of it that
 * stays open after tape_writer_close() (close it yourself).
 */
int t_writer_memfd(tape_writer **w, const struct tape_writer_opts *o, int *fd);

/* Chunks of a trace, walked from the header as iotape-format(5) says. */
struct t_chunk {
	uint64_t off, end;	/* header offset, offset after the payload */
	uint8_t type;
	uint16_t table;
	uint32_t count;
};
/* Fills up to max chunks (index chunk included); returns the count. */
size_t t_chunks(const uint8_t *p, size_t len, struct t_chunk *out, size_t max);
/* A chunk's payload, decompressed (malloc'd, *len bytes); NULL if bad. */
uint8_t *t_chunk_raw(const uint8_t *file, const struct t_chunk *c, size_t *len);
/*
 * Re-encode a trace with every chunk stored (codec 0, payload
 * decompressed), checks recomputed, and a new index + trailer when footer:
 * a second, independent writer of the v1 layout.  Chunks after a damaged
 * one are dropped.  *out is malloc'd.
 */
int t_restore_stored(const uint8_t *in, size_t len, int footer, uint8_t **out,
		     size_t *outlen);
/* Recompute a chunk header's check after patching it (p: chunk header). */
void t_fix_chunk_header(uint8_t *h);
/* Recompute the file header check (bytes 28..31). */
void t_fix_file_header(uint8_t *p);

/* Clear the thread's error detail, so a later failure must set one. */
void t_clear_detail(void);

#endif
