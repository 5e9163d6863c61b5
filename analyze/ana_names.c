/* SPDX-License-Identifier: MIT */
/*
 * ana_names.c - the paths of the files, one table for every pass, and
 * their orders.
 *
 * A file's path is a 32-bit id (struct ana_file.path, 0: none) into
 * struct ana_paths: its directory, interned once (a data set of a million
 * files has a thousand directories), and its last component less the
 * start it shares with the directory's (struct pent), in chunks of an
 * arena that never move, so a path costs the rest of its name and three
 * bytes (seven from the 65,534th directory on), not a string and an
 * allocation of its own.  A path with no '/', or too long
 * to be put back together in ANA_PATH_BUF bytes, is kept whole.
 *
 * The orders are the two the analysis sorts paths by: strcmp's
 * (ana_path_cmp) and strverscmp's, the natural order of the epochs' name
 * ranks (ana_name_ranks); both compare ids without building the paths
 * where the directories tell, and give what strcmp and strverscmp give on
 * the whole paths.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"

#define CHUNK_SHIFT 20			/* 1 MiB chunks */
#define CHUNK (1u << CHUNK_SHIFT)
#define OFF_BITS (CHUNK_SHIFT - 2)	/* offsets in 4-byte units */
#define MAX_CHUNKS (1u << (32 - OFF_BITS))
#define BIG (CHUNK / 4)			/* an entry this large gets a chunk of its own */
#define WHOLE UINT32_MAX		/* an entry's dir: the path is its name */
#define H_WHOLE 0xffffu			/* an entry's head: kept whole */
#define H_WIDE 0xfffeu			/* its directory's id in the 4 bytes after */

/*
 * An entry, at a 4-byte boundary: a 16-bit head, its directory's id (or
 * H_WHOLE: the path is the name that follows; or H_WIDE: the id is in the
 * next 4 bytes, for the directories from the 65,534th on), then a byte,
 * how many of the name's first bytes are its directory's last
 * component's (front coding: ImageNet's "n01440764/n01440764_10026.JPEG"
 * keeps "_10026.JPEG"), then the rest of the name, NUL-ended.  That
 * prefix never ends in a digit that a digit follows, so that two names of
 * one directory with prefixes of the same length compare as their rests
 * do, by strcmp and by strverscmp (struct named).
 */
struct pent {
	uint32_t dir;
	unsigned pl;		/* the name's first pl bytes: its directory's */
	const char *rest;	/* the name's rest (the name where pl is 0) */
};

static inline const uint8_t *pent_at(const struct ana_paths *t, uint32_t id)
{
	return (const uint8_t *)t->chunk[id >> OFF_BITS] + ((size_t)(id & ((1u << OFF_BITS) - 1)) << 2);
}

static inline void pent(const struct ana_paths *t, uint32_t id, struct pent *e)
{
	const uint8_t *p = pent_at(t, id);
	uint16_t h;

	memcpy(&h, p, 2);
	if (h == H_WHOLE) {
		*e = (struct pent){ WHOLE, 0, (const char *)p + 2 };
	} else if (h == H_WIDE) {
		memcpy(&e->dir, p + 2, 4);
		e->pl = p[6];
		e->rest = (const char *)p + 7;
	} else {
		*e = (struct pent){ h, p[2], (const char *)p + 3 };
	}
}

static inline uint32_t pent_dir(const struct ana_paths *t, uint32_t id)
{
	struct pent e;
	pent(t, id, &e);
	return e.dir;
}

/* The last component of directory d (its name's prefix, front coding). */
static inline const char *dir_base(const struct ana_paths *t, uint32_t d)
{
	const char *s = cm_strtab_str(&t->dirs, d), *r = strrchr(s, '/');
	return r ? r + 1 : s;
}

/* Its name whole: rest, or built in buf (ANA_PATH_BUF bytes: a path of
 * a directory is shorter). */
static const char *pent_name(const struct ana_paths *t, const struct pent *e, char *buf)
{
	if (!e->pl)
		return e->rest;
	memcpy(buf, dir_base(t, e->dir), e->pl);
	strcpy(buf + e->pl, e->rest);
	return buf;
}

/* Room for n bytes (a multiple of 4): the id of where they go. */
static uint32_t reserve(struct ana_paths *t, size_t n, char **at)
{
	size_t c;
	size_t off;

	if (n > BIG || !t->nchunk || t->used + n > CHUNK) {
		if (t->nchunk + 1 >= MAX_CHUNKS)
			ana_oom();	/* 16 GiB of names: out of ids */
		ANA_VEC_GROW(t->chunk, t->capchunk, t->nchunk);
		t->chunk[t->nchunk] = ana_xrealloc(NULL, n > BIG ? n : CHUNK);
		c = t->nchunk++;
		off = 0;
		if (n > BIG) {	/* its own; the small ones go on in a new chunk */
			*at = t->chunk[c];
			t->used = CHUNK;
			return (uint32_t)(c << OFF_BITS);
		}
		t->used = c ? 0 : 4;	/* id 0 is no path */
		off = t->used;
	} else {
		c = t->nchunk - 1;
		off = t->used;
	}
	t->used = off + n;
	*at = t->chunk[c] + off;
	return (uint32_t)(c << OFF_BITS | off >> 2);
}

/* How many of name's first bytes to take from base (front coding): their
 * common start, 255 at most, less the digits it ends in where a digit
 * follows. */
static size_t front(const char *base, const char *name)
{
	size_t l = 0;

	while (l < 255 && base[l] && base[l] == name[l])
		l++;
	if (l && isdigit((unsigned char)name[l]))
		while (l && isdigit((unsigned char)name[l - 1]))
			l--;
	return l;
}

uint32_t ana_path_add(struct ana *a, const char *path)
{
	struct ana_paths *t = &a->paths;
	const char *slash = strrchr(path, '/');
	size_t len = strlen(path), pl = 0, hl = 2;
	uint32_t dir = WHOLE;
	const char *name = path;
	char *at;

	if (slash && len < ANA_PATH_BUF) {
		char d[ANA_PATH_BUF];
		size_t dl = (size_t)(slash - path);
		if (t->last_dir && dl == t->last_dl &&
		    !memcmp(path, cm_strtab_str(&t->dirs, t->last_dir - 1), dl)) {
			dir = t->last_dir - 1;	/* the last path's directory */
		} else {
			memcpy(d, path, dl);
			d[dl] = 0;
			if (cm_strtab_intern(&t->dirs, d, &dir) < 0)
				ana_oom();
			t->last_dir = dir + 1;
			t->last_dl = dl;
		}
		name = slash + 1;
		pl = front(dir_base(t, dir), name);
		hl = dir < H_WIDE ? 3 : 7;
	}
	size_t nl = strlen(name + pl), n = (hl + nl + 1 + 3) & ~(size_t)3;
	uint32_t id = reserve(t, n, &at);
	uint16_t h = dir == WHOLE ? H_WHOLE : dir < H_WIDE ? (uint16_t)dir : H_WIDE;
	memcpy(at, &h, 2);
	if (h == H_WIDE)
		memcpy(at + 2, &dir, 4);
	if (dir != WHOLE)
		at[hl - 1] = (char)pl;
	memcpy(at + hl, name + pl, nl + 1);
	return id;
}

/* Entry e's path (a directory's: e.dir != WHOLE) at dst: its length. */
static size_t put_in_dir(const struct ana_paths *t, const struct pent *e, char *dst)
{
	const char *d = cm_strtab_str(&t->dirs, e->dir);
	size_t dl = strlen(d), nl = strlen(e->rest);
	memcpy(dst, d, dl);
	dst[dl] = '/';
	if (e->pl) {	/* (the directory's last component: after its last '/') */
		const char *r = memrchr(d, '/', dl);
		memcpy(dst + dl + 1, r ? r + 1 : d, e->pl);
	}
	memcpy(dst + dl + 1 + e->pl, e->rest, nl);
	return dl + 1 + e->pl + nl;
}

size_t ana_path_put(const struct ana *a, uint32_t id, char *dst)
{
	struct pent e;
	pent(&a->paths, id, &e);
	if (e.dir == WHOLE) {
		size_t l = strlen(e.rest);
		memcpy(dst, e.rest, l);
		return l;
	}
	return put_in_dir(&a->paths, &e, dst);
}

const char *ana_path_str(const struct ana *a, uint32_t id, char *buf)
{
	if (!id)
		return NULL;
	struct pent e;
	pent(&a->paths, id, &e);
	if (e.dir == WHOLE)
		return e.rest;
	buf[put_in_dir(&a->paths, &e, buf)] = 0;
	return buf;
}

int ana_path_empty(const struct ana *a, uint32_t id)
{
	if (!id)
		return 1;
	struct pent e;
	pent(&a->paths, id, &e);
	return e.dir == WHOLE && !e.rest[0];
}

const char *ana_path_dir(const struct ana *a, uint32_t id, size_t *len)
{
	uint32_t d = id ? pent_dir(&a->paths, id) : WHOLE;
	if (d == WHOLE) {
		*len = 0;
		return NULL;
	}
	const char *s = cm_strtab_str(&a->paths.dirs, d);
	*len = strlen(s);
	return s;
}

void ana_path_prefetch(const struct ana *a, uint32_t id)
{
	if (id)
		__builtin_prefetch(pent_at(&a->paths, id));
}

uint32_t ana_path_dir_id(const struct ana *a, uint32_t id)
{
	return id ? pent_dir(&a->paths, id) : ANA_NONE;
}

const char *ana_path_name(const struct ana *a, uint32_t id, char *buf)
{
	if (!id)
		return NULL;
	struct pent e;
	pent(&a->paths, id, &e);
	return pent_name(&a->paths, &e, buf);
}

void ana_paths_release(struct ana_paths *t)
{
	for (size_t i = 0; i < t->nchunk; i++)
		free(t->chunk[i]);
	free(t->chunk);
	cm_strtab_release(&t->dirs);
	memset(t, 0, sizeof(*t));
}

int ana_path_eq(const struct ana *a, uint32_t id, const char *s)
{
	struct pent e;
	pent(&a->paths, id, &e);
	if (e.dir == WHOLE)
		return !strcmp(s, e.rest);
	const char *d = cm_strtab_str(&a->paths.dirs, e.dir);
	size_t dl = strlen(d);
	return !strncmp(s, d, dl) && s[dl] == '/' &&
	       !strncmp(s + dl + 1, dir_base(&a->paths, e.dir), e.pl) &&
	       !strcmp(s + dl + 1 + e.pl, e.rest);
}

/* ------------------------------------------------------------ by path */

/*
 * path -> files[]: open addressing, a slot a files[] index and the top 32
 * bits of its path's hash (the path is compared only where they match):
 * 8 bytes a slot, not a 24-byte map entry and a hash of the path built.
 */
struct pslot {
	uint32_t file, tag;
};

static uint32_t *pidx_find(struct ana *a, const char *path, uint64_t h)
{
	struct ana_pidx *x = &a->pidx;
	struct pslot *sl = (struct pslot *)x->slot;
	size_t mask = x->cap - 1;
	uint32_t tag = (uint32_t)(h >> 32);

	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		if (sl[i].file == ANA_NONE ||
		    (sl[i].tag == tag && ana_path_eq(a, a->files[sl[i].file].path, path)))
			return &sl[i].file;
	}
}

static void pidx_grow(struct ana *a)
{
	struct ana_pidx *x = &a->pidx;
	size_t oc = x->cap, nc = oc ? oc * 2 : 1024;
	struct pslot *old = (struct pslot *)x->slot;
	struct pslot *sl = ana_xrealloc(NULL, nc * sizeof(*sl));

	memset(sl, 0xff, nc * sizeof(*sl));
	for (size_t i = 0; i < oc; i++) {
		if (old[i].file == ANA_NONE)
			continue;
		/* (the tag holds the hash's top; the slot needs its bottom) */
		char buf[ANA_PATH_BUF];
		uint64_t h = cm_hash_str(ana_path_str(a, a->files[old[i].file].path, buf));
		for (size_t j = (size_t)h & (nc - 1);; j = (j + 1) & (nc - 1))
			if (sl[j].file == ANA_NONE) {
				sl[j] = old[i];
				break;
			}
	}
	free(old);
	x->slot = (uint64_t *)sl;
	x->cap = nc;
}

void ana_pidx_reserve(struct ana *a, size_t n)
{
	while ((n + 1) * 4 > a->pidx.cap * 3)
		pidx_grow(a);
}

void ana_pidx_ahead(const struct ana *a, uint64_t h, int stage, uint32_t *fi)
{
	const struct ana_pidx *x = &a->pidx;

	if (!x->cap)
		return;
	const struct pslot *sl = (const struct pslot *)x->slot + ((size_t)h & (x->cap - 1));
	if (stage == 0) {
		__builtin_prefetch(sl);
	} else if (stage == 1) {
		*fi = sl->file != ANA_NONE && sl->tag == (uint32_t)(h >> 32) ? sl->file : ANA_NONE;
		if (*fi != ANA_NONE)
			__builtin_prefetch(&a->files[*fi].path);
	} else if (*fi != ANA_NONE && a->files[*fi].path) {
		const uint8_t *e = pent_at(&a->paths, a->files[*fi].path);
		if (stage == 2)
			__builtin_prefetch(e);
		else
			__builtin_prefetch(e + 7);
	}
}

uint32_t *ana_pidx_slot(struct ana *a, const char *path)
{
	struct ana_pidx *x = &a->pidx;

	if ((x->n + 1) * 4 > x->cap * 3)
		pidx_grow(a);
	uint64_t h = path == x->hint ? x->hint_h : cm_hash_str(path);
	uint32_t *v = pidx_find(a, path, h);
	if (*v == ANA_NONE) {
		((struct pslot *)v)->tag = (uint32_t)(h >> 32);
		x->n++;
	}
	return v;
}

void ana_pidx_release(struct ana_pidx *x)
{
	free(x->slot);
	memset(x, 0, sizeof(*x));
}

/* ---------------------------------------------------------- strcmp order */

/* A path as up to four pieces: directory, "/", the name's prefix (front
 * coding) and its rest (or the name alone). */
struct pieces {
	const char *s[4];
	size_t n[4];
	int k;
};

static void pieces(const struct ana *a, uint32_t id, struct pieces *p)
{
	struct pent e;
	pent(&a->paths, id, &e);
	if (e.dir == WHOLE) {
		p->s[0] = e.rest;
		p->n[0] = strlen(e.rest);
		p->k = 1;
		return;
	}
	p->s[0] = cm_strtab_str(&a->paths.dirs, e.dir);
	p->n[0] = strlen(p->s[0]);
	p->s[1] = "/";
	p->n[1] = 1;
	p->s[2] = dir_base(&a->paths, e.dir);
	p->n[2] = e.pl;
	p->s[3] = e.rest;
	p->n[3] = strlen(e.rest);
	p->k = 4;
}

/* Byte i of a path in pieces (0 past its end); walking forward only. */
struct cur {
	const struct pieces *p;
	int k;
	size_t i;
};

static inline int cur_get(struct cur *c)
{
	while (c->k < c->p->k && c->i >= c->p->n[c->k]) {
		c->i = 0;
		c->k++;
	}
	return c->k < c->p->k ? (unsigned char)c->p->s[c->k][c->i] : 0;
}

int ana_path_cmp(const struct ana *a, uint32_t x, uint32_t y)
{
	if (x == y)
		return 0;
	if (!x || !y)
		return !x ? -1 : 1;	/* (never compared: callers have paths) */
	struct pent p, q;
	pent(&a->paths, x, &p);
	pent(&a->paths, y, &q);
	if (p.dir == q.dir && p.dir != WHOLE && p.pl == q.pl)
		return strcmp(p.rest, q.rest);	/* (struct pent) */
	struct pieces u, v;
	pieces(a, x, &u);
	pieces(a, y, &v);
	struct cur c = { &u, 0, 0 }, d = { &v, 0, 0 };
	for (;;) {
		int s = cur_get(&c), t = cur_get(&d);
		if (s != t)
			return s - t;
		if (!s)
			return 0;
		c.i++;
		d.i++;
	}
}

/* ------------------------------------------------------- natural order */

static int cmp_u32(const void *x, const void *y)
{
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	return (i > j) - (i < j);
}

/* strverscmp(s, t), faster where they differ outside a run of digits: the
 * part before the run they differ in changes nothing (strverscmp's state
 * after a character that is not a digit is always its first). */
int ana_natcmp(const char *s, const char *t)
{
	size_t i = 0;
	while (s[i] == t[i]) {
		if (!s[i])
			return 0;
		i++;
	}
	size_t j = i;
	while (j > 0 && isdigit((unsigned char)s[j - 1]))
		j--;
	if (j == i && !isdigit((unsigned char)s[i]) && !isdigit((unsigned char)t[i]))
		return (unsigned char)s[i] - (unsigned char)t[i];
	return strverscmp(s + j, t + j);
}

/* strverscmp (natural) or strcmp of two whole paths, built where their
 * directories differ. */
static int cmp_ids(const struct ana *a, uint32_t x, uint32_t y, int nat)
{
	char b1[ANA_PATH_BUF], b2[ANA_PATH_BUF];
	struct pent p, q;
	pent(&a->paths, x, &p);
	pent(&a->paths, y, &q);
	if (p.dir == q.dir && p.dir != WHOLE && p.pl == q.pl)
		return nat ? ana_natcmp(p.rest, q.rest) : strcmp(p.rest, q.rest);
	if (!nat)
		return ana_path_cmp(a, x, y);
	return ana_natcmp(ana_path_str(a, x, b1), ana_path_str(a, y, b2));
}

struct sorter {
	const struct ana *a;
	int nat;
};

static int cmp_dir_rank(const void *x, const void *y, void *arg)
{
	const struct sorter *so = arg;
	const struct cm_strtab *d = &so->a->paths.dirs;
	const char *s = cm_strtab_str(d, *(const uint32_t *)x);
	const char *t = cm_strtab_str(d, *(const uint32_t *)y);
	/* "dir/": the '/' decides where one directory's name is the start of
	 * the other's ("/a/b" and "/a/b-c": '/' is after '-') */
	char b1[ANA_PATH_BUF + 1], b2[ANA_PATH_BUF + 1];
	size_t m = strlen(s), n = strlen(t);
	memcpy(b1, s, m);
	b1[m] = '/';
	b1[m + 1] = 0;
	memcpy(b2, t, n);
	b2[n] = '/';
	b2[n + 1] = 0;
	return so->nat ? ana_natcmp(b1, b2) : strcmp(b1, b2);
}

/* files in one directory: by name, then by index (stable); name is the
 * rest after a prefix of pl bytes of the directory's last component
 * (struct pent: where all have the same pl, the rests compare as the
 * names) */
struct named {
	const char *name;
	uint32_t i, pl;
};

static int cmp_in_dir_nat(const void *x, const void *y)
{
	const struct named *p = x, *q = y;
	int c = ana_natcmp(p->name, q->name);
	return c ? c : (p->i > q->i) - (p->i < q->i);
}

static int cmp_in_dir_str(const void *x, const void *y)
{
	const struct named *p = x, *q = y;
	int c = strcmp(p->name, q->name);
	return c ? c : (p->i > q->i) - (p->i < q->i);
}

/* the same where prefixes differ: the names built */
struct in_dir {
	const char *base;	/* the directory's last component */
	int nat;
};

static int cmp_in_dir_built(const void *x, const void *y, void *arg)
{
	const struct named *p = x, *q = y;
	const struct in_dir *d = arg;
	char b1[ANA_PATH_BUF], b2[ANA_PATH_BUF];
	memcpy(b1, d->base, p->pl);
	strcpy(b1 + p->pl, p->name);
	memcpy(b2, d->base, q->pl);
	strcpy(b2 + q->pl, q->name);
	int c = d->nat ? ana_natcmp(b1, b2) : strcmp(b1, b2);
	return c ? c : (p->i > q->i) - (p->i < q->i);
}

/*
 * A directory's names that differ only in their last run of digits (the
 * same text before it and after it, as ImageNet's "n01440764_10026.JPEG"):
 * each name's place as a number, *key (0 where they do not).  In
 * strverscmp order (nat) a run without a leading zero is its value: the
 * names' common part before it ends with something else than a digit, so
 * strverscmp compares the runs as integers (the longer run is the larger).
 * In strcmp order the runs' digits count from the left, and where one run
 * is the start of the other, the text after it decides: taken only where
 * that text is empty or begins below '0' (the shorter run first), each
 * digit d as d + 1 in base 11, 0 past the run's end.  Runs of 18 digits at
 * most.
 */
struct keyed {
	uint64_t k;
	uint32_t i;
};

static int digit_keys(const struct named *nm, size_t m, int nat, struct keyed *key)
{
	const char *p0 = NULL, *s0 = NULL;
	size_t pl0 = 0, sl0 = 0;

	for (size_t q = 0; q < m; q++) {
		const char *s = nm[q].name;
		size_t len = strlen(s), e = len, b;

		while (e > 0 && !isdigit((unsigned char)s[e - 1]))
			e--;
		if (!e)
			return 0;
		b = e;
		while (b > 0 && isdigit((unsigned char)s[b - 1]))
			b--;
		if (s[b] == '0' || e - b > 18)
			return 0;
		if (!q) {
			p0 = s;
			pl0 = b;
			s0 = s + e;
			sl0 = len - e;
			if (!nat && sl0 && (unsigned char)s0[0] >= '0')
				return 0;
		} else if (b != pl0 || len - e != sl0 || memcmp(s, p0, b) ||
			   memcmp(s + e, s0, sl0)) {
			return 0;
		}
		uint64_t k = 0;
		if (nat) {
			for (size_t j = b; j < e; j++)
				k = k * 10 + (uint64_t)(s[j] - '0');
		} else {
			for (size_t j = 0; j < 18; j++)
				k = k * 11 + (b + j < e ? (uint64_t)(s[b + j] - '0') + 1 : 0);
		}
		key[q] = (struct keyed){ k, nm[q].i };
	}
	return 1;
}

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *p = x, *q = y;
	if (p->k != q->k)
		return p->k < q->k ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

/* any two files: by whole path, then by index */
static int cmp_any(const struct sorter *so, uint32_t i, uint32_t j)
{
	int c = cmp_ids(so->a, so->a->files[i].path, so->a->files[j].path, so->nat);
	return c ? c : (i > j) - (i < j);
}

static int cmp_any_q(const void *x, const void *y, void *arg)
{
	return cmp_any(arg, *(const uint32_t *)x, *(const uint32_t *)y);
}

/*
 * The directories in order (dord[], and each one's place in it, drank[]),
 * and those another is under (outer[]: its name and '/' begin the
 * other's; in either order, the directories under one come right after
 * it).
 */
static void dirs_order(const struct sorter *so, uint32_t *dord, uint32_t *drank, uint8_t *outer)
{
	const struct cm_strtab *dirs = &so->a->paths.dirs;
	size_t nd = cm_strtab_count(dirs);

	for (size_t d = 0; d < nd; d++)
		dord[d] = (uint32_t)d;
	if (nd > 1)
		qsort_r(dord, nd, sizeof(*dord), cmp_dir_rank, (void *)so);
	for (size_t k = 0; k < nd; k++)
		drank[dord[k]] = (uint32_t)k;
	/* a stack of the directories the current one is under */
	uint32_t *st = ana_tmp_calloc(nd + 1, sizeof(*st));
	size_t sp = 0;
	for (size_t k = 0; k < nd; k++) {
		const char *s = cm_strtab_str(dirs, dord[k]);
		while (sp) {
			const char *p = cm_strtab_str(dirs, st[sp - 1]);
			size_t pl = strlen(p);
			if (!strncmp(s, p, pl) && s[pl] == '/')
				break;
			sp--;
		}
		for (size_t q = 0; q < sp; q++)
			outer[st[q]] = 1;
		st[sp++] = dord[k];
	}
	ana_tmp_free(st);
}

/* The files of f (NULL: all, n of them) by directory rank (a counting
 * sort) into by, those of directory rank k at [start[k], start[k + 1]);
 * the outer directories' and the whole paths into apart (*napart);
 * *nnone: those without a path.  Returns the files in by. */
static size_t files_by_dir(const struct ana *a, const uint32_t *f, size_t n,
			   const uint32_t *drank, const uint8_t *outer, size_t *start,
			   uint32_t *by, uint32_t *apart, size_t *napart, size_t *nnone)
{
	size_t nd = cm_strtab_count(&a->paths.dirs);

	*napart = *nnone = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t fi = f ? f[i] : (uint32_t)i, id = a->files[fi].path;
		if (!id) {
			(*nnone)++;
			continue;
		}
		uint32_t d = pent_dir(&a->paths, id);
		if (d == WHOLE || outer[d])
			apart[(*napart)++] = fi;
		else
			start[drank[d] + 1]++;
	}
	for (size_t k = 0; k < nd; k++)
		start[k + 1] += start[k];
	size_t *pos = ana_tmp_calloc(nd + 1, sizeof(*pos));
	memcpy(pos, start, nd * sizeof(*pos));
	for (size_t i = 0; i < n; i++) {
		uint32_t fi = f ? f[i] : (uint32_t)i, id = a->files[fi].path;
		if (!id)
			continue;
		uint32_t d = pent_dir(&a->paths, id);
		if (d != WHOLE && !outer[d])
			by[pos[drank[d]]++] = fi;
	}
	ana_tmp_free(pos);
	return start[nd];
}

/* Each directory's files in by (as files_by_dir left them) by name: their
 * names beside them, so the sort reads one array. */
static void sort_in_dirs(const struct ana *a, uint32_t *by, const size_t *start, int nat)
{
	size_t nd = cm_strtab_count(&a->paths.dirs), big = 0;

	for (size_t k = 0; k < nd; k++)
		if (start[k + 1] - start[k] > big)
			big = start[k + 1] - start[k];
	struct named *nm = ana_tmp_calloc(big + 1, sizeof(*nm));
	struct keyed *ky = ana_tmp_calloc(big + 1, sizeof(*ky));
	for (size_t k = 0; k < nd; k++) {
		size_t m = start[k + 1] - start[k];
		if (m < 2)
			continue;
		uint32_t *g = by + start[k], dir = ANA_NONE;
		int same = 1;	/* all prefixes of one length */
		/* (the files and their names in another order: fetched ahead) */
		for (size_t q = 0; q < m; q++) {
			if (q + 16 < m)
				__builtin_prefetch(&a->files[g[q + 16]].path);
			if (q + 8 < m)
				__builtin_prefetch(pent_at(&a->paths, a->files[g[q + 8]].path));
			struct pent e;
			pent(&a->paths, a->files[g[q]].path, &e);
			nm[q] = (struct named){ e.rest, g[q], e.pl };
			same &= e.pl == nm[0].pl;
			dir = e.dir;
		}
		if (!same) {
			struct in_dir d = { dir_base(&a->paths, dir), nat };
			qsort_r(nm, m, sizeof(*nm), cmp_in_dir_built, &d);
			for (size_t q = 0; q < m; q++)
				g[q] = nm[q].i;
			continue;
		}
		if (digit_keys(nm, m, nat, ky)) {
			qsort(ky, m, sizeof(*ky), cmp_keyed);
			for (size_t q = 0; q < m; q++)
				g[q] = ky[q].i;
			continue;
		}
		qsort(nm, m, sizeof(*nm), nat ? cmp_in_dir_nat : cmp_in_dir_str);
		for (size_t q = 0; q < m; q++)
			g[q] = nm[q].i;
	}
	ana_tmp_free(ky);
	ana_tmp_free(nm);
}

/* The first of v[lo, hi) (sorted) that comes after x: by halving. */
static size_t first_after(const struct sorter *so, const uint32_t *v, size_t lo, size_t hi,
			  uint32_t x)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_any(so, v[mid], x) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Into f: by (nin, sorted) with each of apart (sorted, usually few) where
 * it goes in (found by galloping, then halving), then none (nnone). */
static void merge_apart(const struct sorter *so, uint32_t *f, const uint32_t *by, size_t nin,
			const uint32_t *apart, size_t napart, const uint32_t *none, size_t nnone)
{
	size_t i = 0, k = 0;

	for (size_t j = 0; j < napart; j++) {
		size_t lo = i, step = 1, hi = i;
		while (hi < nin && cmp_any(so, by[hi], apart[j]) < 0) {
			lo = hi + 1;
			hi += step;
			step *= 2;
		}
		if (hi > nin)
			hi = nin;
		lo = first_after(so, by, lo, hi, apart[j]);
		memcpy(f + k, by + i, (lo - i) * sizeof(*f));
		k += lo - i;
		i = lo;
		f[k++] = apart[j];
	}
	memcpy(f + k, by + i, (nin - i) * sizeof(*f));
	k += nin - i;
	memcpy(f + k, none, nnone * sizeof(*none));
}

/* f[0, nin) sorted (by) with each of apart (sorted, usually few) where it
 * goes in, in place from the back, then none (nnone) after: f has room
 * for all. */
static void merge_apart_back(const struct sorter *so, uint32_t *f, size_t nin,
			     const uint32_t *apart, size_t napart, const uint32_t *none,
			     size_t nnone)
{
	size_t i = nin, k = nin + napart;

	memcpy(f + k, none, nnone * sizeof(*f));
	for (size_t j = napart; j-- > 0;) {
		size_t lo = i, step = 1, hi = i;	/* gallop back, then halve */
		while (lo > 0 && cmp_any(so, f[lo - 1], apart[j]) > 0) {
			hi = lo - 1;
			lo = lo > step ? lo - step : 0;
			step *= 2;
		}
		lo = first_after(so, f, lo, hi, apart[j]);
		memmove(f + k - (i - lo), f + lo, (i - lo) * sizeof(*f));
		k -= i - lo;
		f[--k] = apart[j];
		i = lo;
	}
}

/*
 * Sort f (n files[] indexes; NULL n: all files, into f, which has room
 * for them) by path: in strverscmp order (nat) or strcmp's, equal paths
 * by index, the files without a path last (by index).  The files of each
 * directory are sorted among themselves; directories come in the order of
 * "dir/", which is the paths' order but where a directory's files sit
 * among those of a directory under it ("/d/x" and "/d/e/y"): those
 * directories' files (and paths kept whole) are sorted apart by whole
 * path, and merged in.  The order does not depend on f's, so all files
 * are sorted in f itself, without a second array of them.
 */
static void path_sort(const struct ana *a, uint32_t *f, size_t n, int nat, int all)
{
	size_t nd = cm_strtab_count(&a->paths.dirs);
	struct sorter so = { a, nat };
	uint32_t *dord = ana_tmp_calloc(nd + 1, sizeof(*dord));
	uint32_t *drank = ana_tmp_calloc(nd + 1, sizeof(*drank));
	uint8_t *outer = ana_tmp_calloc(nd + 1, 1);
	size_t *start = ana_tmp_calloc(nd + 2, sizeof(*start));

	dirs_order(&so, dord, drank, outer);
	/* files by directory rank: the outer directories' and the whole
	 * paths apart; no path: last */
	uint32_t *by = all ? f : ana_tmp_calloc(n + 1, sizeof(*by));
	uint32_t *apart = ana_tmp_calloc(n + 1, sizeof(*apart));
	size_t napart, nnone;
	size_t nin = files_by_dir(a, all ? NULL : f, n, drank, outer, start, by, apart, &napart,
				  &nnone);
	sort_in_dirs(a, by, start, nat);
	if (napart > 1)
		qsort_r(apart, napart, sizeof(*apart), cmp_any_q, &so);
	/* the pathless (in index order, kept in f's tail) */
	uint32_t *none = ana_tmp_calloc(nnone + 1, sizeof(*none));
	size_t k = 0;
	for (size_t i = 0; i < n && k < nnone; i++) {
		uint32_t fi = all ? (uint32_t)i : f[i];
		if (!a->files[fi].path)
			none[k++] = fi;
	}
	if (nnone > 1)
		qsort(none, nnone, sizeof(*none), cmp_u32);
	if (all) {
		merge_apart_back(&so, f, nin, apart, napart, none, nnone);
	} else {
		merge_apart(&so, f, by, nin, apart, napart, none, nnone);
		ana_tmp_free(by);
	}
	ana_tmp_free(none);
	ana_tmp_free(apart);
	ana_tmp_free(start);
	ana_tmp_free(outer);
	ana_tmp_free(drank);
	ana_tmp_free(dord);
}

void ana_path_sort(const struct ana *a, uint32_t *f, size_t n, int nat)
{
	path_sort(a, f, n, nat, 0);
}

void ana_path_sort_all(const struct ana *a, uint32_t *f, int nat)
{
	path_sort(a, f, a->nfiles, nat, 1);
}

void ana_name_ranks(const struct ana *a, uint32_t *rank)
{
	uint32_t *f = ana_tmp_calloc(a->nfiles + 1, sizeof(*f));
	ana_path_sort_all(a, f, 1);
	for (size_t i = 0; i < a->nfiles; i++)
		rank[f[i]] = (uint32_t)i;
	ana_tmp_free(f);
}

/* ------------------------------------------------------ a stable sort */

/* Merge sort of n u32 (stable), skipping the merge of two runs already in
 * order: linear on input already sorted, or all equal. */
static void msort_u32(uint32_t *v, uint32_t *tmp, size_t n,
		      int (*cmp)(uint32_t, uint32_t, void *), void *arg)
{
	if (n < 2)
		return;
	if (n <= 8) {	/* insertion sort */
		for (size_t i = 1; i < n; i++) {
			uint32_t x = v[i];
			size_t j = i;
			while (j > 0 && cmp(v[j - 1], x, arg) > 0) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return;
	}
	size_t h = n / 2;
	msort_u32(v, tmp, h, cmp, arg);
	msort_u32(v + h, tmp, n - h, cmp, arg);
	if (cmp(v[h - 1], v[h], arg) <= 0)
		return;
	memcpy(tmp, v, h * sizeof(*v));
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		v[k++] = cmp(v[j], tmp[i], arg) < 0 ? v[j++] : tmp[i++];
	while (i < h)
		v[k++] = tmp[i++];
}

void ana_sort_u32(uint32_t *v, size_t n, int (*cmp)(uint32_t, uint32_t, void *), void *arg)
{
	uint32_t *tmp = ana_tmp_calloc(n / 2 + 1, sizeof(*tmp));
	msort_u32(v, tmp, n, cmp, arg);
	ana_tmp_free(tmp);
}
