/* SPDX-License-Identifier: MIT */
/*
 * map.c - hash map, string set and string table (see map.h).
 *
 * Invariants: cap is 0 or a power of two; used (entries and tombstones)
 * stays at or below 3/4 of cap, so a probe always ends at an empty slot;
 * a rebuild (growth, or rehashing when tombstones fill the table) keeps
 * only the entries in use.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "map.h"
#include "tape_vec.h"

uint64_t cm_hash(const void *s, size_t n)
{
	return XXH3_64bits(s, n);
}

uint64_t cm_hash_str(const char *s)
{
	return XXH3_64bits(s, strlen(s));
}

static int map_rebuild(struct cm_map *m, size_t ncap)
{
	struct cm_map_ent *ne = malloc(ncap * sizeof(*ne));
	size_t mask = ncap - 1;

	if (!ne)
		return -ENOMEM;
	for (size_t i = 0; i < ncap; i++)
		ne[i].v = CM_MAP_EMPTY;
	for (size_t j = 0; j < m->cap; j++) {
		const struct cm_map_ent *e = &m->e[j];
		if (e->v >= CM_MAP_DEAD)
			continue;
		size_t i = cm_map_slot(e->a, e->b, mask);
		while (ne[i].v != CM_MAP_EMPTY)
			i = (i + 1) & mask;
		ne[i] = *e;
	}
	free(m->e);
	m->e = ne;
	m->cap = ncap;
	m->used = m->n;
	return 0;
}

int cm_map_put(struct cm_map *m, uint64_t a, uint64_t b, uint64_t **val)
{
	uint64_t *v = cm_map_get(m, a, b);
	size_t mask, i;

	if (v) {
		*val = v;
		return 0;
	}
	if ((m->used + 1) * 4 > m->cap * 3) {
		/* mostly tombstones: rehash at the same size */
		size_t ncap = m->cap ? m->cap : 64;
		if ((m->n + 1) * 2 > m->cap)
			ncap = m->cap ? m->cap * 2 : 64;
		if (map_rebuild(m, ncap))
			return -ENOMEM;
	}
	mask = m->cap - 1;
	for (i = cm_map_slot(a, b, mask); m->e[i].v < CM_MAP_DEAD; i = (i + 1) & mask)
		;
	if (m->e[i].v == CM_MAP_EMPTY)
		m->used++;
	m->e[i] = (struct cm_map_ent){ a, b, 0 };
	m->n++;
	*val = &m->e[i].v;
	return 1;
}

int cm_map_set(struct cm_map *m, uint64_t a, uint64_t b, uint64_t v)
{
	uint64_t *p;
	int rc = cm_map_put(m, a, b, &p);

	if (rc < 0)
		return rc;
	*p = v;
	return 0;
}

int cm_map_del(struct cm_map *m, uint64_t a, uint64_t b, uint64_t *old)
{
	uint64_t *v = cm_map_get(m, a, b);

	if (!v)
		return 0;
	if (old)
		*old = *v;
	*v = CM_MAP_DEAD;
	m->n--;
	return 1;
}

void cm_map_clear(struct cm_map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		m->e[i].v = CM_MAP_EMPTY;
	m->n = m->used = 0;
}

void cm_map_release(struct cm_map *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

/* ---------------------------------------------------------- string set */

int cm_strset_find(const struct cm_map *m, const char *s, cm_str_of str, void *arg,
		   uint64_t *id)
{
	uint64_t h = cm_hash_str(s), *v;

	for (uint64_t k = 0; (v = cm_map_get(m, h, k)); k++)
		if (strcmp(str(*v, arg), s) == 0) {
			*id = *v;
			return 0;
		}
	return -ENOENT;
}

int cm_strset_put(struct cm_map *m, const char *s, cm_str_of str, void *arg,
		  uint64_t **slot)
{
	uint64_t h = cm_hash_str(s), *v, k;

	for (k = 0; (v = cm_map_get(m, h, k)); k++)
		if (strcmp(str(*v, arg), s) == 0) {
			*slot = v;
			return 0;
		}
	return cm_map_put(m, h, k, slot);
}

/* -------------------------------------------------------- string table */

#define ARENA_CHUNK (64u << 10)

static const char *tab_str(uint64_t id, void *arg)
{
	return ((const struct cm_strtab *)arg)->str[id];
}

/* A copy of the n bytes of s (plus a NUL) in the arena, or NULL. */
static char *arena_copy(struct cm_strtab *t, const char *s, size_t n)
{
	char *p;

	if (t->arena_cap - t->arena_used < n + 1) {
		size_t sz = n + 1 > ARENA_CHUNK ? n + 1 : ARENA_CHUNK;
		char **nc = realloc(t->chunks, (t->nchunks + 1) * sizeof(*nc));
		if (!nc)
			return NULL;
		t->chunks = nc;
		if (!(p = malloc(sz)))
			return NULL;
		t->chunks[t->nchunks++] = p;
		t->arena = p;
		t->arena_used = 0;
		t->arena_cap = sz;
	}
	p = t->arena + t->arena_used;
	memcpy(p, s, n);
	p[n] = 0;
	t->arena_used += n + 1;
	return p;
}

int cm_strtab_intern(struct cm_strtab *t, const char *s, uint32_t *id)
{
	uint64_t v = t->n;
	int rc;

	if (t->n >= UINT32_MAX)
		return -ENOMEM;
	if (TAPE_VEC_GROW(t->str, t->cap, t->n + 1, 64))
		return -ENOMEM;
	char *copy;
	uint64_t *slot;

	rc = cm_strset_put(&t->map, s, tab_str, t, &slot);
	if (rc <= 0) {
		if (rc == 0)
			*id = (uint32_t)*slot;
		return rc;
	}
	if (!(copy = arena_copy(t, s, strlen(s)))) {
		uint64_t h = cm_hash_str(s), *p, k = 0;
		/* undo the new entry: the last k of this hash is it */
		while ((p = cm_map_get(&t->map, h, k + 1)))
			k++;
		cm_map_del(&t->map, h, k, NULL);
		return -ENOMEM;
	}
	*slot = v;
	t->str[t->n] = copy;
	*id = (uint32_t)t->n++;
	return 1;
}

int cm_strtab_find(const struct cm_strtab *t, const char *s, uint32_t *id)
{
	uint64_t v;
	int rc = cm_strset_find(&t->map, s, tab_str, (void *)t, &v);

	if (rc == 0)
		*id = (uint32_t)v;
	return rc;
}

void cm_strtab_release(struct cm_strtab *t)
{
	for (size_t i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->str);
	cm_map_release(&t->map);
	memset(t, 0, sizeof(*t));
}
