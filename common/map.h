/* SPDX-License-Identifier: MIT */
/*
 * map.h - the one hash map and string table of iotape.
 *
 * struct cm_map: open addressing (linear probing) from a 128-bit key
 * (a, b) to a 64-bit value, load at most 3/4, with deletion (tombstones,
 * dropped when the table is rebuilt).  An entry is 24 bytes; the value
 * says whether the slot is in use, so a value may be anything below
 * CM_MAP_DEAD.  Lookups are inline: the analyzer does one for almost every
 * event.  Keys are mixed with a multiply-xorshift (integer keys: file ids,
 * (pid, fd), tids); strings are keyed by their XXH3 hash (cm_hash_str) in
 * struct cm_strtab, which resolves collisions by comparing the strings.
 *
 * struct cm_strtab: interns strings, giving each a dense id 0, 1, 2, ...
 * in order of first appearance; the strings live in the table's own
 * arena until cm_strtab_release.
 *
 * Errors are -ENOMEM; on error nothing is changed.  Every _release
 * accepts a zeroed struct.
 */
#ifndef IOTAPE_COMMON_MAP_H
#define IOTAPE_COMMON_MAP_H

#include <stddef.h>
#include <stdint.h>

#define CM_MAP_EMPTY UINT64_MAX		/* value of a free slot */
#define CM_MAP_DEAD (UINT64_MAX - 1)	/* value of a deleted slot */

struct cm_map_ent {
	uint64_t a, b, v;
};

struct cm_map {
	struct cm_map_ent *e;
	size_t cap;	/* a power of two, or 0 */
	size_t n;	/* entries in use */
	size_t used;	/* in use or deleted */
};

static inline size_t cm_map_slot(uint64_t a, uint64_t b, size_t mask)
{
	uint64_t x = (a ^ (b * 0xc2b2ae3d27d4eb4full)) * 0x9e3779b97f4a7c15ull;
	return (x ^ (x >> 29) ^ (x >> 47)) & mask;
}

/* Pointer to the value of (a, b), or NULL when absent.  Valid until the
 * next put or delete. */
static inline uint64_t *cm_map_get(const struct cm_map *m, uint64_t a, uint64_t b)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = cm_map_slot(a, b, mask);; i = (i + 1) & mask) {
		struct cm_map_ent *e = &m->e[i];
		if (e->v == CM_MAP_EMPTY)
			return NULL;
		if (e->a == a && e->b == b && e->v != CM_MAP_DEAD)
			return &e->v;
	}
}

/* Hint that (a, b) will be looked up soon (hides a cache miss). */
static inline void cm_map_prefetch(const struct cm_map *m, uint64_t a, uint64_t b)
{
	if (m->cap)
		__builtin_prefetch(&m->e[cm_map_slot(a, b, m->cap - 1)]);
}

/*
 * The value slot of (a, b) in *val: 1 when the key was added (its value is
 * 0 until the caller stores one), 0 when it was there, -ENOMEM.  The caller
 * must not store CM_MAP_EMPTY or CM_MAP_DEAD.
 */
int cm_map_put(struct cm_map *m, uint64_t a, uint64_t b, uint64_t **val);
/* Set (a, b) to v: 0 or -ENOMEM. */
int cm_map_set(struct cm_map *m, uint64_t a, uint64_t b, uint64_t v);
/* Remove (a, b): 1 and its value in *old (when not NULL), or 0 when absent. */
int cm_map_del(struct cm_map *m, uint64_t a, uint64_t b, uint64_t *old);
/* Forget every entry, keep the memory. */
void cm_map_clear(struct cm_map *m);
void cm_map_release(struct cm_map *m);

/* Every entry in use: for (e = ...; ...) with CM_MAP_FOR_EACH(m, e) { ... } */
#define CM_MAP_FOR_EACH(m, ent) \
	for (struct cm_map_ent *ent = (m)->e; ent && ent < (m)->e + (m)->cap; ent++) \
		if (ent->v < CM_MAP_DEAD)

/* XXH3 64-bit hash of the n bytes at s. */
uint64_t cm_hash(const void *s, size_t n);
/* XXH3 of a NUL-terminated string. */
uint64_t cm_hash_str(const char *s);

/*
 * A set of strings keyed by XXH3 in a cm_map whose values are ids of the
 * caller's: (hash, k) -> id, k = 0, 1, ... for strings of the same hash.
 * str(id, arg) gives the string of an id.  For callers that keep their
 * strings elsewhere (the analyzer's files); cm_strtab is built on it.
 */
typedef const char *(*cm_str_of)(uint64_t id, void *arg);
/* The id of s: 0, or -ENOENT. */
int cm_strset_find(const struct cm_map *m, const char *s, cm_str_of str, void *arg,
		   uint64_t *id);
/*
 * The value slot of s in *slot: 0 when s is there (the caller may point
 * it to another id of an equal string), 1 when s was added (the caller
 * must store its id there before the next call), -ENOMEM.
 */
int cm_strset_put(struct cm_map *m, const char *s, cm_str_of str, void *arg,
		  uint64_t **slot);

struct cm_strtab {
	struct cm_map map;	/* (hash, k) -> id */
	char **str;		/* id -> string, in the arena */
	size_t n, cap;
	char *arena;		/* current chunk: bytes [arena_used, arena_cap) free */
	size_t arena_used, arena_cap;
	char **chunks;		/* every chunk, for release */
	size_t nchunks;
};

/* The id of s, added when new: 1 added, 0 found, -ENOMEM. */
int cm_strtab_intern(struct cm_strtab *t, const char *s, uint32_t *id);
/* The id of s: 0, or -ENOENT. */
int cm_strtab_find(const struct cm_strtab *t, const char *s, uint32_t *id);
static inline const char *cm_strtab_str(const struct cm_strtab *t, uint32_t id)
{
	return t->str[id];
}
static inline size_t cm_strtab_count(const struct cm_strtab *t)
{
	return t->n;
}
void cm_strtab_release(struct cm_strtab *t);

#endif /* IOTAPE_COMMON_MAP_H */
