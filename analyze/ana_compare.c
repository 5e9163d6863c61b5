/* SPDX-License-Identifier: MIT */
/*
 * ana_compare.c - two traces' analyses matched file by file
 * (ana_compare.h; iotape-compare(1)).
 *
 * Both traces go through the analyze engine (ana_run) with files_only set:
 * only reads and writes of regular files with a path count, so a job's
 * pipes and sockets (DataLoader queues), which a replay does not issue,
 * leave both sides alike.  With o.under (compare --map DIR), B counts only
 * files under DIR (the replayer's own I/O, reading the trace and writing
 * its report, is not the job's) and each is named by its path with DIR
 * taken off, which is the original path (rp_path_map in replay/rp_trace.c
 * is the other direction).  Files are matched by that path, normalized the
 * same way on both sides ("/a//b/./c" and "a/b/c" are one file).
 *
 * The data set is A's (iotape-analyze(1), DATA SET), for both sides: a
 * file of B is in it when A's file of the same path is, so the two sides'
 * data-set figures are over the same files.  The page cache counts only
 * the files compared on both sides.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "ana_compare.h"
#include "faults.h"
#include "ops.h"
#include "path.h"

/* ------------------------------------------------------------ matching */

/* The key of a path: normalized (common/path.h), without a leading '/'. */
static void norm_path(char *s)
{
	cm_path_normalize(s, CM_PATH_RELATIVE);
}

#define KCHUNK (1u << 20)

/* A copy of key in the chunks. */
static char *key_store(struct ana_cmp *c, const char *key)
{
	size_t n = strlen(key) + 1;

	if (!c->nkchunk || n > KCHUNK - c->kused) {
		ANA_VEC_GROW(c->kchunk, c->capkchunk, c->nkchunk);
		c->kchunk[c->nkchunk] = ana_xrealloc(NULL, n > KCHUNK ? n : KCHUNK);
		c->nkchunk++;
		c->kused = 0;
	}
	char *p = c->kchunk[c->nkchunk - 1] + c->kused;
	c->kused += n > KCHUNK ? KCHUNK : n;
	return memcpy(p, key, n);
}

/* The slot of key (hash h): its file's, or the empty one it would take. */
static struct ana_cmp_kslot *key_find(const struct ana_cmp *c, const char *key, uint64_t h)
{
	size_t mask = c->kcap - 1;

	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		struct ana_cmp_kslot *s = &c->ks[i];
		if (s->id == ANA_NONE ||
		    (s->tag == (uint32_t)(h >> 32) && !strcmp(c->f[s->id].key, key)))
			return s;
	}
}

static void key_grow(struct ana_cmp *c)
{
	size_t oc = c->kcap, nc = oc ? oc * 2 : 1024;
	struct ana_cmp_kslot *old = c->ks;

	c->ks = ana_xrealloc(NULL, nc * sizeof(*c->ks));
	memset(c->ks, 0xff, nc * sizeof(*c->ks));
	c->kcap = nc;
	for (size_t i = 0; i < oc; i++)
		if (old[i].id != ANA_NONE)
			*key_find(c, c->f[old[i].id].key, cm_hash_str(c->f[old[i].id].key)) = old[i];
	free(old);
}

static struct ana_cmp_file *cmp_file_get(struct ana_cmp *c, const char *key)
{
	uint64_t h = cm_hash_str(key);

	if ((c->kn + 1) * 4 > c->kcap * 3)
		key_grow(c);
	struct ana_cmp_kslot *s = key_find(c, key, h);
	if (s->id == ANA_NONE) {
		/* (out of memory below, the comparison is dropped with the map) */
		ANA_VEC_GROW(c->f, c->capf, c->nf);
		memset(&c->f[c->nf], 0, sizeof(*c->f));
		c->f[c->nf].key = key_store(c, key);
		s->id = (uint32_t)c->nf++;
		s->tag = (uint32_t)(h >> 32);
		c->kn++;
	}
	return &c->f[s->id];
}

static int cmp_thread(const void *x, const void *y, void *arg)
{
	const struct ana_thread *t = arg;
	const struct ana_thread *p = &t[*(const uint32_t *)x], *q = &t[*(const uint32_t *)y];
	uint64_t u = p->read_bytes + p->write_bytes, v = q->read_bytes + q->write_bytes;

	if (u != v)
		return u > v ? -1 : 1;
	u = p->read_ops + p->write_ops;
	v = q->read_ops + q->write_ops;
	if (u != v)
		return u > v ? -1 : 1;
	return p->first_ns < q->first_ns ? -1 : p->first_ns > q->first_ns;
}

static int cmp_key_at(uint32_t x, uint32_t y, void *arg)
{
	const struct ana_cmp_file *f = arg;
	return strcmp(f[x].key, f[y].key);
}

/* c->f by key: their indexes sorted, from c->hint's order (remap: its
 * indexes to c->f's now; a merge of runs already in order compares only
 * where they meet), then the files moved along the permutation's cycles
 * in place */
static void sort_files(struct ana_cmp *c, const uint32_t *remap)
{
	uint32_t *o = ana_xrealloc(NULL, (c->nf + 1) * sizeof(*o));
	uint8_t *in = ana_xcalloc(c->nf + 1, 1);
	size_t m = 0;

	for (size_t i = 0; i < c->nhint; i++) {
		uint32_t x = remap[c->hint[i]];
		if (x != ANA_NONE && !in[x]) {
			in[x] = 1;
			o[m++] = x;
		}
	}
	for (size_t i = 0; i < c->nf; i++)
		if (!in[i])
			o[m++] = (uint32_t)i;
	free(in);
	ana_sort_u32(o, c->nf, cmp_key_at, c->f);
	for (size_t s = 0; s < c->nf; s++) {	/* place j gets file o[j] */
		if (o[s] == s)
			continue;
		struct ana_cmp_file t = c->f[s];
		size_t j = s;
		while (o[j] != s) {
			size_t k = o[j];
			c->f[j] = c->f[k];
			o[j] = (uint32_t)j;
			j = k;
		}
		c->f[j] = t;
		o[j] = (uint32_t)j;
	}
	free(o);
}

static int is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

static int is_marker(const char *rel)
{
	char *key = ana_xstrdup(rel);
	norm_path(key);
	int m = strcmp(key, CM_REPLAY_MARKER) == 0;
	free(key);
	return m;
}

/* ana_opts.skip of B: the file (named without DIR) is one A left out. */
static int skip_b(const char *path, void *arg)
{
	struct ana_cmp *c = arg;
	const char *under = c->o.under;
	size_t ul = under ? strlen(under) : 0;
	char buf[PATH_MAX], *key = buf;

	if (under && !is_under(path, under))
		return 1;
	if (strlen(path + ul) >= sizeof(buf))
		key = ana_xstrdup(path + ul);
	else
		strcpy(buf, path + ul);
	norm_path(key);
	if (under && strcmp(key, CM_REPLAY_MARKER) == 0) {
		if (key != buf)
			free(key);
		return 1;
	}
	struct ana_cmp_kslot *ks = c->kcap ? key_find(c, key, cm_hash_str(key)) : NULL;
	int skip = ks && ks->id != ANA_NONE && c->f[ks->id].excluded;
	if (key != buf)
		free(key);
	return skip;
}

/* The key of side k's path (malloc'd): with name_a, A's path as B names it. */
static char *key_of(struct ana_cmp *c, int k, const char *path)
{
	const char *p = path;

	if (k == 0 && c->o.name_a && c->o.name_a(c->o.name_arg, path, &p) < 0)
		ana_oom();
	char *key = ana_xstrdup(p);
	norm_path(key);
	return key;
}

/* Fold side k's analysis into the file table and the totals. */
static void cmp_collect(struct ana_cmp *c, int k)
{
	struct ana *a = &c->a[k];
	const char *under = c->o.under;
	size_t ul = under ? strlen(under) : 0;

	c->have_cache[k] = a->have[TAPE_TABLE_CACHE];
	/* A's files: room for all of them at once, not rehashed 20 times on
	 * the way to a million (B's mostly find A's keys) */
	while (!c->kn && (a->nfiles + 1) * 4 > c->kcap * 3)
		key_grow(c);
	char buf[ANA_PATH_BUF];
	/* A's files' entries (c->f), to list them in the order of A's paths
	 * (c->hint) for the sort at the end */
	uint32_t *fe = k == 0 && a->sorder ? ana_xrealloc(NULL, (a->nfiles + 1) * sizeof(*fe)) : NULL;
	for (size_t i = 0; fe && i < a->nfiles; i++)
		fe[i] = ANA_NONE;
	for (size_t i = 0; i < a->nfiles; i++) {
		const struct ana_file *f = &a->files[i];
		const struct ana_fext *x = ana_file_ext(a, f);
		struct ana_pages pg = ana_file_pages(a, i);
		if (!ana_file_read_ops(a, f) && !x->write_ops && !pg.accessed)
			continue;
		int in = k == 1 && under;
		const char *path = ana_file_path(a, f, buf);
		if (ana_file_excluded(a, f)) {
			/* B's files outside DIR, and its marker, are the
			 * replayer's own */
			if (in && (!path || !is_under(path, under) || is_marker(path + ul)))
				continue;
			if (ana_file_read_ops(a, f) + x->write_ops)
				c->excluded[k]++;
			if (k == 0 && path && !f->anon) {
				char *key = key_of(c, k, path);
				cmp_file_get(c, key)->excluded = 1;
				free(key);
			}
			continue;
		}
		char *key = key_of(c, k, path + (in ? ul : 0));
		struct ana_cmp_file *e = cmp_file_get(c, key);
		free(key);
		if (fe)
			fe[i] = (uint32_t)(e - c->f);
		if (e->excluded)
			continue;
		if (k == 0)
			e->dataset |= f->dataset;
		e->seen[k] = 1;
		e->rops[k] += ana_file_read_ops(a, f);
		e->rbytes[k] += ana_file_read_bytes(a, f);
		e->wops[k] += x->write_ops;
		e->wbytes[k] += x->write_bytes;
		/* the pages B can see: with under, not the ones A's page faults
		 * on code (mapped executable) reached, which the replay leaves
		 * to the loader (common/faults.h) */
		int code = k == 0 && under && f->exec_map;
		e->acc[k] += pg.accessed - (code ? x->mapped : 0);
		e->miss[k] += pg.missed - (code ? x->mapped_missed : 0);
		e->pairs[k] += x->rd_pairs;
		e->nonconsec[k] += x->rd_nonconsec;
		e->seq[k] += x->rd_seq;
	}
	if (fe) {
		c->hint = ana_xrealloc(NULL, (a->nfiles + 1) * sizeof(*c->hint));
		c->nhint = 0;
		for (size_t i = 0; i < a->nfiles; i++)
			if (fe[a->sorder[i]] != ANA_NONE)
				c->hint[c->nhint++] = fe[a->sorder[i]];
		free(fe);
	}
	/* the data set's request sizes: this side's (the same files as A's
	 * when B replays A); the other files' are the rest (cmp_groups) */
	memcpy(c->g[ANA_CG_DATA].rd_hist[k], a->ds.rd_hist, sizeof(a->ds.rd_hist));
	memcpy(c->g[ANA_CG_DATA].wr_hist[k], a->ds.wr_hist, sizeof(a->ds.wr_hist));
	c->thr[k] = ana_xrealloc(NULL, (a->sys.nthreads + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < a->sys.nthreads; i++) {
		const struct ana_thread *t = &a->sys.threads[i];
		if (!t->read_ops && !t->write_ops)
			continue;	/* no counted I/O: not the job's */
		c->thr[k][c->nthr[k]++] = (uint32_t)i;
		c->gap[k] += t->gap_ns;
		c->io[k] += t->io_ns;
	}
	qsort_r(c->thr[k], c->nthr[k], sizeof(uint32_t), cmp_thread, a->sys.threads);
}

/*
 * With under, B is a recording of `iotape replay` of A, which turns some
 * of A's page faults on file mappings into reads (iotape-replay(1)).  A
 * file A only mapped (no read or write: the loader's ld.so.cache, locale
 * files) is left out on both sides, like a pipe: its fault reads would
 * only add the faults' order to B's read randomness.  On a file A also
 * read or wrote (a numpy memmap whose header np.load reads), the fault
 * reads, as the replay's own plan of A has them, count as A's reads, so
 * that equal ops and bytes still mean "the replay did what the job did".
 */
static int cmp_faults(struct ana_cmp *c)
{
	struct ana *a = &c->a[0];
	struct cm_faults *fl;
	struct cm_fault_read fr;
	int rc = cm_faults_open(&fl, a->r);

	while (rc == 0 && fl && (rc = cm_faults_next(fl, &fr)) == 1) {
		char *key = ana_xstrdup(fr.path);
		norm_path(key);
		struct ana_cmp_file *e = cmp_file_get(c, key);
		free(key);
		rc = 0;
		if (!e->excluded && !e->rops[0] && !e->wops[0] && !e->faults) {
			e->excluded = 1;	/* only mapped */
			c->fault_only++;
		}
		e->faults = 1;
		if (e->excluded)
			continue;
		e->seen[0] = 1;
		e->rops[0]++;
		e->rbytes[0] += fr.len;
		a->sys.read_ops++;
		a->sys.read_bytes += fr.len;
		a->sys.rd_hist[ana_sz_bucket(fr.len)]++;
		if (e->dataset)
			c->g[ANA_CG_DATA].rd_hist[0][ana_sz_bucket(fr.len)]++;
		c->fault_reads++;
		c->fault_bytes += fr.len;
	}
	cm_faults_free(fl);
	return rc;
}

/* The groups, once the files are final: the data set's and the other
 * files' sums over their files (their request sizes: the data set's from
 * cmp_collect, the other files' the totals less those), ANA_CG_ALL both. */
static void cmp_groups(struct ana_cmp *c)
{
	for (size_t i = 0; i < c->nf; i++) {
		const struct ana_cmp_file *f = &c->f[i];
		const int gs[2] = { f->dataset ? ANA_CG_DATA : ANA_CG_OTHER, ANA_CG_ALL };
		for (int j = 0; j < 2; j++) {
			struct ana_cmp_group *g = &c->g[gs[j]];
			for (int s = 0; s < 2; s++) {
				g->files[s] += f->seen[s];
				g->rops[s] += f->rops[s];
				g->rbytes[s] += f->rbytes[s];
				g->pairs[s] += f->pairs[s];
				g->nonconsec[s] += f->nonconsec[s];
				g->seq[s] += f->seq[s];
				if (!f->faults) {
					g->pairs_nf[s] += f->pairs[s];
					g->nonconsec_nf[s] += f->nonconsec[s];
				}
				if (f->seen[0] && f->seen[1]) {
					g->acc[s] += f->acc[s];
					g->miss[s] += f->miss[s];
				}
			}
		}
	}
	for (int s = 0; s < 2; s++)
		for (unsigned b = 0; b < ANA_SZ_BUCKETS; b++) {
			struct ana_cmp_group *d = &c->g[ANA_CG_DATA], *o = &c->g[ANA_CG_OTHER];
			struct ana_cmp_group *t = &c->g[ANA_CG_ALL];
			t->rd_hist[s][b] = c->a[s].sys.rd_hist[b];
			t->wr_hist[s][b] = c->a[s].sys.wr_hist[b];
			o->rd_hist[s][b] = t->rd_hist[s][b] - d->rd_hist[s][b];
			o->wr_hist[s][b] = t->wr_hist[s][b] - d->wr_hist[s][b];
		}
}

/* -------------------------------------------------------------- steps */

void ana_cmp_init(struct ana_cmp *c, const char *a, const char *b, const struct ana_cmp_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->path[0] = a;
	c->path[1] = b;
	if (o)
		c->o = *o;
	c->metadata = c->o.under && !c->o.no_metadata;
}

int ana_cmp_load(struct ana_cmp *c, int s)
{
	struct ana_opts o = { .top = -1, .to_ns = UINT64_MAX, .threads = 2,
			      .files_only = 1, .under = s == 1 ? c->o.under : NULL,
			      .skip = s == 1 ? skip_b : NULL, .skip_arg = c,
			      .replayed_io = s == 0 && c->o.under,
			      .no_metadata = c->o.no_metadata, .no_train = 1,
			      .path_order = s == 0 };

	return ana_run(&c->a[s], c->path[s], &o);
}

/* The steps that allocate with the analyzer's helpers, under its catch
 * point (ana_guard): 0 or -ENOMEM. */
struct cmp_step {
	struct ana_cmp *c;
	int side;
	struct ana_checks *k;
};

static int collect_job(void *arg)
{
	struct cmp_step *j = arg;
	cmp_collect(j->c, j->side);
	return 0;
}

static int faults_job(void *arg)
{
	return cmp_faults(((struct cmp_step *)arg)->c);
}

static int checks_job(void *arg)
{
	struct cmp_step *j = arg;
	ana_cmp_checks(j->c, j->k);
	return 0;
}

int ana_cmp_fold(struct ana_cmp *c, int s)
{
	struct cmp_step step = { c, s, NULL };
	int err = ana_guard(collect_job, &step);

	if (!err && s == 0 && c->o.under)
		err = ana_guard(faults_job, &step);
	/* its files are in c->f now: what the analysis kept of them goes
	 * before the next one (a million files' worth) */
	if (!err)
		ana_release_files(&c->a[s]);
	return err;
}

struct sort_step {
	struct ana_cmp *c;
	const uint32_t *remap;
};

static int sort_job(void *arg)
{
	struct sort_step *j = arg;
	sort_files(j->c, j->remap);
	return 0;
}

int ana_cmp_finish(struct ana_cmp *c, struct ana_checks *k)
{
	struct cmp_step step = { c, 0, k };
	size_t n = 0;
	int err;

	/* the files left out were kept only to leave them out of B too */
	uint32_t *remap = malloc((c->nf + 1) * sizeof(*remap));
	if (!remap)
		return -ENOMEM;
	for (size_t i = 0; i < c->nf; i++) {
		remap[i] = c->f[i].excluded ? ANA_NONE : (uint32_t)n;
		if (!c->f[i].excluded)
			c->f[n++] = c->f[i];
	}
	c->nf = n;
	struct sort_step sj = { c, remap };
	err = ana_guard(sort_job, &sj);
	free(remap);
	free(c->hint);
	c->hint = NULL;
	c->nhint = 0;
	if (err)
		return err;
	cmp_groups(c);
	memset(k, 0, sizeof(*k));
	return ana_guard(checks_job, &step);
}

void ana_cmp_release(struct ana_cmp *c)
{
	for (int k = 0; k < 2; k++) {
		ana_release(&c->a[k]);
		free(c->thr[k]);
	}
	for (size_t i = 0; i < c->nkchunk; i++)
		free(c->kchunk[i]);
	free(c->kchunk);
	free(c->ks);
	free(c->f);
	free(c->hint);
	memset(c, 0, sizeof(*c));
}
