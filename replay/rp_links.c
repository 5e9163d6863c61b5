/* SPDX-License-Identifier: MIT */
/*
 * rp_links.c - the job's symbolic links, found from the paths it opened,
 * made again under DIR by prepare.
 *
 * A recording names each file by its real path (the file table: symlinks
 * resolved) and each open by the path the job gave: an open of
 * /etc/localtime that reached /usr/share/zoneinfo/Etc/UTC, of data/x that
 * reached /mnt/nvme/data/x.  The trace source hands these pairs (the
 * "vias": the opened path P, the real file F) to rp_layout_links, which
 * finds a set of links that leads each P to its F:
 *
 *   - P is first resolved through the links already found (its longest
 *     prefix that is a link is replaced by the link's target, again until
 *     none is);
 *   - if that is not F, the new link is the shortest prefix A of it whose
 *     rest R is F's end (F = T/R): A -> T.  A directory link made once
 *     serves every file under it (data -> mnt/nvme/data);
 *   - A must not be a real path the trace knows, nor hold one (a file row
 *     under it), so that no file the job reached by its real path is moved
 *     behind a link; a prefix that fails that is passed for a longer one,
 *     down to P itself (a link per file).  A pair no link explains keeps
 *     its open of F by F's path.
 *
 * Each link is a layout file (rp_file.symlink) and an entry of
 * layout.links naming its target, a layout file too (a directory target
 * is prepared as a directory).  Prepare makes each link relative, from
 * the link's directory to the target's path under DIR, so that it stays
 * under DIR (an absolute target could not: the engine opens beneath DIR).
 * Memory: the vias, the links and the real paths' directories (only when
 * the trace has vias).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "replay.h"

#define MAX_HOPS 40	/* links followed resolving one path (the kernel's) */

struct lk {
	const struct rp_layout *l;
	struct cm_strtab real;	/* real paths and their directories */
	struct cm_strtab from;	/* link paths (id i: link i) */
	struct cm_strtab cands;	/* directory links that would explain a pair */
	uint32_t *count;	/* ... how many pairs each */
	size_t capcount;
	char **to;		/* link i's target path */
	uint8_t *dead;		/* link i is left out (lk_under_link) */
	size_t n, cap;
};

/* Add real path p and its directories to k->real. */
static int lk_real_add(struct lk *k, const char *p)
{
	char *d;
	uint32_t id;
	int rc = cm_strtab_intern(&k->real, p, &id);

	if (rc <= 0)
		return rc;	/* there already, with its directories */
	if (!(d = strdup(p)))
		return -ENOMEM;
	for (char *s = strrchr(d, '/'); s; s = strrchr(d, '/')) {
		*s = 0;
		if ((rc = cm_strtab_intern(&k->real, d, &id)) <= 0)
			break;	/* this one was there: the rest too */
	}
	free(d);
	return rc < 0 ? rc : 0;
}

/* Resolve *pp (a malloc'd path) through the links found so far, in
 * place: 0, 1 for a loop, -ENOMEM (*pp freed and NULL then). */
static int lk_resolve(struct lk *k, char **pp)
{
	char *p = *pp;

	for (int hop = 0; hop < MAX_HOPS; hop++) {
		size_t n = strlen(p), cut = 0;
		uint32_t id = 0;
		int found = 0;

		/* the longest prefix (whole components) that is a link */
		for (size_t i = n; i > 0 && !found; i--) {
			if (i < n && p[i] != '/')
				continue;
			char c = p[i];
			p[i] = 0;
			found = cm_strtab_find(&k->from, p, &id) == 0 && !k->dead[id];
			p[i] = c;
			cut = i;
		}
		if (!found)
			return 0;
		const char *t = k->to[id], *rest = p + cut;
		char *q = malloc(strlen(t) + strlen(rest) + 1);
		if (!q) {
			free(p);
			*pp = NULL;
			return -ENOMEM;
		}
		strcpy(q, t);
		strcat(q, rest);
		free(p);
		*pp = p = q;
	}
	return 1;	/* a loop */
}

/* Whether path a (a prefix of the resolved open path) may become a link:
 * not a real path nor a directory of one (every link's target is one),
 * not a link already. */
static int lk_may_link(struct lk *k, const char *a)
{
	uint32_t id;

	return cm_strtab_find(&k->real, a, &id) != 0 && cm_strtab_find(&k->from, a, &id) != 0;
}

/* Whether the first i bytes of q (a prefix of whole components) may be
 * a link A -> T that leads q to f (f = T + the rest of q): 0 with A and T
 * strdup'd into *a, *t; 1 when not; -ENOMEM. */
static int lk_cand(struct lk *k, const char *q, size_t i, const char *f, char **a, char **t)
{
	const char *rest = q + i;	/* "" or "/R" */
	size_t nr = strlen(rest), nf = strlen(f), nt;

	if (nr >= nf || strcmp(f + nf - nr, rest))
		return 1;	/* f does not end with /R */
	nt = nf - nr;
	if ((i == nt && !strncmp(q, f, i)) || (nt > i && !strncmp(f, q, i) && f[i] == '/'))
		return 1;	/* itself, or under itself */
	if (!(*a = strndup(q, i)))
		return -ENOMEM;
	if (!lk_may_link(k, *a)) {
		free(*a);
		return 1;
	}
	if (!(*t = strndup(f, nt))) {
		free(*a);
		return -ENOMEM;
	}
	return 0;
}

/* The key of candidate A -> T in k->cands. */
static char *lk_key(const char *a, const char *t)
{
	char *s = malloc(strlen(a) + strlen(t) + 2);

	if (s)
		sprintf(s, "%s\n%s", a, t);
	return s;
}

/* Count, for each directory link A -> T that would explain a pair, the
 * pairs it explains (k->cands, k->ncand): 0 or -ENOMEM. */
static int lk_count(struct lk *k, const char *q, const char *f)
{
	size_t nq = strlen(q);
	char *a, *t, *key;
	uint32_t id;
	int rc;

	for (size_t i = 1; i < nq; i++) {
		if (q[i] != '/')
			continue;
		if ((rc = lk_cand(k, q, i, f, &a, &t)) < 0)
			return rc;
		if (rc)
			continue;
		key = lk_key(a, t);
		free(a);
		free(t);
		if (!key || (rc = cm_strtab_intern(&k->cands, key, &id)) < 0) {
			free(key);
			return -ENOMEM;
		}
		free(key);
		if (id >= k->capcount) {
			size_t nc = k->capcount ? 2 * k->capcount : 64;
			uint32_t *c = realloc(k->count, nc * sizeof(*c));
			if (!c)
				return -ENOMEM;
			memset(c + k->capcount, 0, (nc - k->capcount) * sizeof(*c));
			k->count = c;
			k->capcount = nc;
		}
		k->count[id]++;
	}
	return 0;
}

/* The link that leads q (resolved, not f) to f: A -> T, strdup'd into
 * *a, *t.  A directory link that explains two pairs or more (the
 * outermost: /lib -> usr/lib, data -> mnt/nvme/data), else a link of the
 * file itself (/etc/localtime), else the outermost that explains it.  0,
 * 1 when none does, -ENOMEM. */
static int lk_find(struct lk *k, const char *q, const char *f, int shared_only, char **a,
		   char **t)
{
	size_t nq = strlen(q);
	uint32_t id;
	int rc;

	for (size_t i = 1; i < nq; i++) {	/* a shared directory link */
		if (q[i] != '/')
			continue;
		if ((rc = lk_cand(k, q, i, f, a, t)) < 0)
			return rc;
		if (rc)
			continue;
		char *key = lk_key(*a, *t);
		if (!key) {
			free(*a);
			free(*t);
			return -ENOMEM;
		}
		rc = cm_strtab_find(&k->cands, key, &id) == 0 && k->count[id] >= 2;
		free(key);
		if (rc)
			return 0;
		free(*a);
		free(*t);
	}
	if (shared_only)
		return 1;
	if ((rc = lk_cand(k, q, nq, f, a, t)) <= 0)	/* the file's own */
		return rc;
	for (size_t i = 1; i < nq; i++)	/* any */
		if (q[i] == '/' && (rc = lk_cand(k, q, i, f, a, t)) <= 0)
			return rc;
	return 1;
}

static void lk_release(struct lk *k)
{
	cm_strtab_release(&k->real);
	cm_strtab_release(&k->from);
	cm_strtab_release(&k->cands);
	free(k->count);
	free(k->dead);
	for (size_t i = 0; i < k->n; i++)
		free(k->to[i]);
	free(k->to);
}

/* Intern path p as a layout file (files has room): its id. */
static int lk_file(struct rp_layout *l, const char *p, uint32_t *id)
{
	int rc = cm_strtab_intern(&l->paths, p, id);

	if (rc == 1) {
		memset(&l->files[*id], 0, sizeof(l->files[0]));
		l->files[*id].dir = RP_NO_DIR;
		l->nfiles = *id + 1;
	}
	return rc < 0 ? rc : 0;
}

/* Pair (p, f): if p, resolved, is not f, the link that explains it
 * (shared_only: only a directory link two pairs share) is added.  0 or
 * -ENOMEM. */
static int lk_explain(struct lk *k, const char *p, const char *f, int shared_only)
{
	char *q = strdup(p), *a = NULL, *t = NULL;
	uint32_t id;
	int rc;

	if (!q || (rc = lk_resolve(k, &q)) < 0)
		return -ENOMEM;
	if (rc || strcmp(q, f) == 0) {	/* a loop; or there already */
		free(q);
		return 0;
	}
	rc = lk_find(k, q, f, shared_only, &a, &t);
	free(q);
	if (rc)
		return rc < 0 ? rc : 0;
	if (k->n == k->cap) {
		size_t nc = k->cap ? 2 * k->cap : 16;
		char **x = realloc(k->to, nc * sizeof(*x));
		uint8_t *d = x ? realloc(k->dead, nc) : NULL;
		if (x)
			k->to = x;
		if (!x || !d) {
			free(a);
			free(t);
			return -ENOMEM;
		}
		k->dead = d;
		k->cap = nc;
	}
	rc = cm_strtab_intern(&k->from, a, &id);
	free(a);
	if (rc < 0) {
		free(t);
		return -ENOMEM;
	}
	k->dead[k->n] = 0;
	k->to[k->n++] = t;
	return 0;
}

/* Whether path p has a link found as a proper prefix. */
static int lk_under_link(struct lk *k, const char *p)
{
	char *d = strdup(p);
	uint32_t id;
	int under = 0;

	for (char *s = d ? strrchr(d, '/') : NULL; s && !under; s = strrchr(d, '/')) {
		*s = 0;
		under = cm_strtab_find(&k->from, d, &id) == 0 && !k->dead[id];
	}
	free(d);
	return under;
}

/*
 * The files whose path lies under a link (ops by path the job made through
 * it: a stat of data/x where data is a link): *res[f] is the layout file
 * of what the path leads to (added when the layout has none), RP_NO_FILE
 * for the others.  Preparing is moved there: prepare makes the file the
 * link leads to, never one at a path through a link.  0 or -ENOMEM.
 */
static int lk_under(struct lk *k, struct rp_layout *l, uint32_t **res)
{
	size_t n0 = l->nfiles, nnew = 0;
	uint32_t *r = malloc((n0 + 1) * sizeof(*r));
	char **path = calloc(n0 + 1, sizeof(*path));
	int rc = 0;

	if (!r || !path) {
		free(r);
		free(path);
		return -ENOMEM;
	}
	for (uint32_t f = 0; f < n0; f++) {
		const char *p = rp_file_path(l, f);
		uint32_t id;
		r[f] = RP_NO_FILE;
		if (l->files[f].symlink || !lk_under_link(k, p))
			continue;
		if (!(path[f] = strdup(p)) || (rc = lk_resolve(k, &path[f])) < 0) {
			rc = -ENOMEM;
			break;
		}
		if (rc) {	/* a loop: left as it is */
			rc = 0;
			free(path[f]);
			path[f] = NULL;
		} else if (cm_strtab_find(&l->paths, path[f], &id) == 0) {
			r[f] = id;
			free(path[f]);
			path[f] = NULL;
		} else {
			nnew++;
		}
	}
	if (!rc && nnew) {
		struct rp_file *nf = realloc(l->files, (l->nfiles + nnew + 1) * sizeof(*nf));
		if (!nf)
			rc = -ENOMEM;
		else
			l->files = nf;
	}
	for (uint32_t f = 0; f < n0 && !rc; f++)
		if (path[f])
			rc = lk_file(l, path[f], &r[f]);
	for (uint32_t f = 0; f < n0 && !rc; f++) {
		struct rp_file *a = &l->files[f], *b;
		if (r[f] == RP_NO_FILE)
			continue;
		b = &l->files[r[f]];
		if (a->prepare && !b->symlink) {
			b->prepare = 1;
			b->isdir |= a->isdir;
			if (a->size > b->size)
				b->size = a->size;
		}
		a->prepare = a->isdir = 0;
	}
	for (uint32_t f = 0; f < n0; f++)
		free(path[f]);
	free(path);
	if (rc)
		free(r);
	else
		*res = r;
	return rc;
}

int rp_layout_links(struct rp_layout *l, const uint32_t *via, size_t nvia, uint8_t *via_ok,
		    uint32_t **resolved)
{
	struct lk k = { .l = l };
	uint8_t *is_via = NULL;
	int rc = 0;

	memset(via_ok, 0, nvia);
	if (!nvia)
		return 0;
	if (!(is_via = calloc(l->nfiles + 1, 1)))
		return -ENOMEM;
	for (size_t i = 0; i < nvia; i++)
		is_via[via[2 * i]] = 1;
	/* what the trace knows as real: the file table's paths the layout
	 * has (an older trace's file table may name a file by a link: the
	 * paths opened through one are left out) */
	for (uint32_t f = 0; f < l->nfiles && !rc; f++)
		if (l->files[f].from_table && !is_via[f])
			rc = lk_real_add(&k, rp_file_path(l, f));
	free(is_via);
	for (size_t i = 0; i < nvia && !rc; i++)
		rc = lk_count(&k, rp_file_path(l, via[2 * i]), rp_file_path(l, via[2 * i + 1]));
	/* the directory links two pairs or more share first (/lib ->
	 * usr/lib), then what each pair still needs (a file's own link, found
	 * where the shared ones lead: usr/lib/x/libz.so.1 -> libz.so.1.2) */
	for (int shared = 1; shared >= 0 && !rc; shared--)
		for (size_t i = 0; i < nvia && !rc; i++)
			rc = lk_explain(&k, rp_file_path(l, via[2 * i]), rp_file_path(l, via[2 * i + 1]),
					shared);
	/* a link under another (a later directory link over an earlier one)
	 * would be made through it: left out */
	for (uint32_t i = 0; i < k.n; i++)
		if (lk_under_link(&k, cm_strtab_str(&k.from, i)))
			k.dead[i] = 1;
	for (size_t i = 0; i < nvia && !rc; i++) {
		char *q = strdup(rp_file_path(l, via[2 * i]));
		if (!q || (rc = lk_resolve(&k, &q)) < 0) {
			rc = -ENOMEM;
			break;
		}
		via_ok[i] = !rc && strcmp(q, rp_file_path(l, via[2 * i + 1])) == 0;
		rc = 0;
		free(q);
	}
	if (rc || !k.n)
		goto out;
	/* the links and their targets as layout files: room for them first */
	size_t room = l->nfiles + 2 * k.n + 1;
	struct rp_file *nf = realloc(l->files, room * sizeof(*nf));
	struct rp_link *nl = calloc(k.n, sizeof(*nl));
	if (!nf || !nl) {
		if (nf)
			l->files = nf;
		free(nl);
		rc = -ENOMEM;
		goto out;
	}
	l->files = nf;
	l->links = nl;
	for (uint32_t i = 0; i < k.n && !rc; i++) {
		uint32_t from, to;
		if (k.dead[i])
			continue;
		if ((rc = lk_file(l, cm_strtab_str(&k.from, i), &from)) ||
		    (rc = lk_file(l, k.to[i], &to)))
			break;
		struct rp_file *lf = &l->files[from], *tf = &l->files[to];
		lf->symlink = 1;
		lf->prepare = lf->isdir = lf->holes = lf->dataset = 0;
		/* a directory target no file under it made: prepared (mkdir) */
		if (!tf->from_table && !tf->prepare && !tf->modified && !tf->symlink)
			tf->isdir = 1;
		l->links[l->nlinks++] = (struct rp_link){ from, to };
	}
	if (!rc && resolved)
		rc = lk_under(&k, l, resolved);
out:
	lk_release(&k);
	return rc;
}

int rp_link_target(const char *from, const char *to, char *buf, size_t len)
{
	const char *slash = strrchr(from, '/'), *rest;
	size_t nd = slash ? (size_t)(slash - from) : 0, ndir = nd ? 1 : 0;
	size_t common = 0, end = 0, used = 0;

	for (size_t i = 0; i < nd; i++)
		ndir += from[i] == '/';
	/* the components from's directory and to begin with alike */
	for (size_t i = 0; i < nd;) {
		size_t j = i;
		while (j < nd && from[j] != '/')
			j++;
		if (strncmp(from + i, to + i, j - i) || (to[j] != '/' && to[j]))
			break;
		common++;
		end = j;
		i = j + 1;
	}
	rest = to + end + (to[end] == '/');
	for (size_t i = common; i < ndir; i++) {	/* up from the rest */
		if (used + 3 >= len)
			return -ENAMETOOLONG;
		memcpy(buf + used, "../", 3);
		used += 3;
	}
	if (used + strlen(rest) + 2 > len)
		return -ENAMETOOLONG;
	if (*rest)
		strcpy(buf + used, rest);
	else if (used)
		buf[used - 1] = 0;	/* "../.." */
	else
		strcpy(buf, ".");
	return 0;
}
