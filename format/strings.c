/* SPDX-License-Identifier: MIT */
/*
 * strings.c - a table of distinct strings, each with a stable id: what
 * tape_cursor_read_columns() turns a string column into, so a column of
 * paths becomes an array of small integers plus one table (a categorical
 * in pandas) instead of a pointer per row.
 *
 * Invariants: id 0 is "" from creation on; an id, once given, keeps its
 * string for the table's life (ids only grow); every string is stored
 * once, followed by a NUL, in one buffer (data), string i at off[i], so a
 * caller can take them all with one call (tape_strings_data()).
 *
 * The cursor's strings point into its block's dictionary, so within one
 * block the same pointer is the same string: a small direct-mapped cache
 * from pointer to id, valid for one block (tape__strings_new_block()),
 * saves hashing the string on every row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "tape_internal.h"
#include "tape_vec.h"

#define PCACHE 4096	/* pointer cache entries (a power of two) */

struct tape_strings {
	char *data;		/* the strings, each followed by a NUL */
	size_t len, cap;
	uint64_t *off;		/* off[i]: string i in data; off[n] = len */
	uint64_t *hash;		/* hash[i]: XXH3 of string i */
	size_t n, capn;
	/* open addressing: the hash's high 32 bits << 32 | id + 1, 0 = empty;
	 * a probe compares those bits before it touches the strings */
	uint64_t *slot;
	size_t nslots;
	uint32_t gen;		/* the block the pointer cache is for */
	struct { const char *p; uint32_t id, gen; } pc[PCACHE];
};

#define TAG(h) ((h) & 0xffffffff00000000ull)

static int slots_grow(tape_strings *s)
{
	size_t ns = s->nslots ? s->nslots * 2 : 1024;
	uint64_t *sl = calloc(ns, sizeof(*sl));

	if (!sl)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		size_t h = (size_t)s->hash[i] & (ns - 1);
		while (sl[h])
			h = (h + 1) & (ns - 1);
		sl[h] = TAG(s->hash[i]) | (i + 1);
	}
	free(s->slot);
	s->slot = sl;
	s->nslots = ns;
	return 0;
}

/* The id of p[0..len) of hash h, added when new; -errno on failure
 * (nothing changed). */
static int64_t intern_h(tape_strings *s, const char *p, size_t len, uint64_t h)
{
	size_t i;

	if (2 * (s->n + 1) > s->nslots && slots_grow(s))
		return -ENOMEM;
	for (i = (size_t)h & (s->nslots - 1); s->slot[i]; i = (i + 1) & (s->nslots - 1)) {
		if (TAG(s->slot[i]) != TAG(h))
			continue;
		uint32_t id = (uint32_t)s->slot[i] - 1;
		if (s->hash[id] == h && s->off[id + 1] - s->off[id] - 1 == len &&
		    memcmp(s->data + s->off[id], p, len) == 0)
			return id;
	}
	if (s->n >= UINT32_MAX - 1)
		return -EOVERFLOW;
	if (s->n + 2 > s->capn) {	/* off[] and hash[], side by side */
		size_t nc = tape_vec_cap(s->capn, s->n + 2, 1024, sizeof(*s->off));
		if (!nc || TAPE_VEC_RESIZE(s->off, nc) || TAPE_VEC_RESIZE(s->hash, nc))
			return -ENOMEM;
		s->capn = nc;
	}
	if (TAPE_VEC_GROW(s->data, s->cap, s->len + len + 1, 4096))
		return -ENOMEM;
	memcpy(s->data + s->len, p, len);
	s->data[s->len + len] = 0;
	s->len += len + 1;
	s->hash[s->n] = h;
	s->off[++s->n] = s->len;
	s->slot[i] = TAG(h) | s->n;	/* id n - 1, plus one */
	return (int64_t)s->n - 1;
}

static int64_t intern(tape_strings *s, const char *p, size_t len)
{
	return intern_h(s, p, len, XXH3_64bits(p, len));
}

int tape_strings_new(tape_strings **out)
{
	tape_strings *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->capn = 1;	/* off[0] = 0 before the first string */
	s->off = calloc(1, sizeof(*s->off));
	if (!s->off || intern(s, "", 0) != 0) {
		tape_strings_free(s);
		return -ENOMEM;
	}
	s->gen = 1;	/* the cache's zeroed entries are for no block */
	*out = s;
	return 0;
}

void tape_strings_free(tape_strings *s)
{
	if (!s)
		return;
	free(s->data);
	free(s->off);
	free(s->hash);
	free(s->slot);
	free(s);
}

size_t tape_strings_count(const tape_strings *s)
{
	return s->n;
}

const char *tape_strings_get(const tape_strings *s, size_t id)
{
	return id < s->n ? s->data + s->off[id] : NULL;
}

const char *tape_strings_data(const tape_strings *s, const uint64_t **off)
{
	*off = s->off;
	return s->data;
}

/* A table larger than the caches costs a miss or three per string (its
 * slot, then its offset and bytes to compare): in groups, every string's
 * slot is fetched ahead, then the first candidate's offset and bytes, so
 * the misses of a group overlap. */
#define GROUP 16
int tape__strings_intern_n(tape_strings *s, const char *const *p, size_t n, uint32_t *ids)
{
	size_t len[GROUP];
	uint64_t h[GROUP];

	for (size_t g = 0; g < n; g += GROUP) {
		size_t m = n - g < GROUP ? n - g : GROUP;

		if (2 * (s->n + m) > s->nslots && slots_grow(s))
			return -ENOMEM;
		for (size_t j = 0; j < m; j++) {
			len[j] = strlen(p[g + j]);
			h[j] = XXH3_64bits(p[g + j], len[j]);
			__builtin_prefetch(&s->slot[(size_t)h[j] & (s->nslots - 1)]);
		}
		for (size_t j = 0; j < m; j++) {
			uint64_t sl = s->slot[(size_t)h[j] & (s->nslots - 1)];
			if (sl && TAG(sl) == TAG(h[j]))
				__builtin_prefetch(&s->off[(uint32_t)sl - 1]);
		}
		for (size_t j = 0; j < m; j++) {
			uint64_t sl = s->slot[(size_t)h[j] & (s->nslots - 1)];
			if (sl && TAG(sl) == TAG(h[j]))
				__builtin_prefetch(s->data + s->off[(uint32_t)sl - 1]);
		}
		for (size_t j = 0; j < m; j++) {
			int64_t id = intern_h(s, p[g + j], len[j], h[j]);
			if (id < 0)
				return (int)id;
			ids[g + j] = (uint32_t)id;
		}
	}
	return 0;
}

void tape__strings_new_block(tape_strings *s)
{
	if (++s->gen == 0) {	/* wrapped: forget every entry */
		memset(s->pc, 0, sizeof(s->pc));
		s->gen = 1;
	}
}

int tape__strings_ids(tape_strings *s, const char *const *strs, size_t stride,
		      size_t k, uint32_t *ids)
{
	const char *p;

	for (size_t r = 0; r < k; r++) {
		memcpy(&p, (const char *)strs + r * stride, sizeof(p));
		size_t i = ((uintptr_t)p >> 3 ^ (uintptr_t)p >> 15) & (PCACHE - 1);
		if (s->pc[i].gen != s->gen || s->pc[i].p != p) {
			int64_t id = intern(s, p, strlen(p));
			if (id < 0)
				return (int)id;
			s->pc[i].p = p;
			s->pc[i].id = (uint32_t)id;
			s->pc[i].gen = s->gen;
		}
		ids[r] = s->pc[i].id;
	}
	return 0;
}
