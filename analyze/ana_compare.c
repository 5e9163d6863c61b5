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

static const char *file_key(uint64_t i, void *arg)
{
	return ((const struct ana_cmp *)arg)->f[i].key;
}

static struct ana_cmp_file *cmp_file_get(struct ana_cmp *c, const char *key)
{
	uint64_t *v;
	int rc = cm_strset_put(&c->fmap, key, file_key, c, &v);

	if (rc < 0)
		ana_oom();
	if (rc == 1) {
		/* (out of memory below, the comparison is dropped with the map) */
		ANA_VEC_GROW(c->f, c->capf, c->nf);
		memset(&c->f[c->nf], 0, sizeof(*c->f));
		c->f[c->nf].key = ana_xstrdup(key);
		*v = c->nf++;
	}
	return &c->f[*v];
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

static int cmp_key(const void *x, const void *y)
{
	return strcmp(((const struct ana_cmp_file *)x)->key,
		      ((const struct ana_cmp_file *)y)->key);
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
	uint64_t id;
	int skip = cm_strset_find(&c->fmap, key, file_key, c, &id) == 0 && c->f[id].excluded;
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
	for (size_t i = 0; i < a->nfiles; i++) {
		const struct ana_file *f = &a->files[i];
		if (!f->read_ops && !f->write_ops && !f->pages_accessed)
			continue;
		int in = k == 1 && under;
		if (ana_file_excluded(a, f)) {
			/* B's files outside DIR, and its marker, are the
			 * replayer's own */
			if (in && (!f->path || !is_under(f->path, under) ||
				   is_marker(f->path + ul)))
				continue;
			if (f->read_ops + f->write_ops)
				c->excluded[k]++;
			if (k == 0 && f->path && !f->anon) {
				char *key = key_of(c, k, f->path);
				cmp_file_get(c, key)->excluded = 1;
				free(key);
			}
			continue;
		}
		char *key = key_of(c, k, f->path + (in ? ul : 0));
		struct ana_cmp_file *e = cmp_file_get(c, key);
		free(key);
		if (e->excluded)
			continue;
		if (k == 0)
			e->dataset |= f->dataset;
		e->seen[k] = 1;
		e->rops[k] += f->read_ops;
		e->rbytes[k] += f->read_bytes;
		e->wops[k] += f->write_ops;
		e->wbytes[k] += f->write_bytes;
		/* the pages B can see: with under, not the ones A's page faults
		 * on code (mapped executable) reached, which the replay leaves
		 * to the loader (common/faults.h) */
		int code = k == 0 && under && f->exec_map;
		e->acc[k] += f->pages_accessed - (code ? f->mapped : 0);
		e->miss[k] += f->pages_missed - (code ? f->mapped_missed : 0);
		e->pairs[k] += f->rd_pairs;
		e->nonconsec[k] += f->rd_nonconsec;
		e->seq[k] += f->rd_seq;
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
			      .no_metadata = c->o.no_metadata };

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
	return err;
}

int ana_cmp_finish(struct ana_cmp *c, struct ana_checks *k)
{
	struct cmp_step step = { c, 0, k };
	size_t n = 0;

	/* the files left out were kept only to leave them out of B too */
	for (size_t i = 0; i < c->nf; i++) {
		if (c->f[i].excluded)
			free(c->f[i].key);
		else
			c->f[n++] = c->f[i];
	}
	c->nf = n;
	qsort(c->f, c->nf, sizeof(*c->f), cmp_key);
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
	for (size_t i = 0; i < c->nf; i++)
		free(c->f[i].key);
	free(c->f);
	cm_map_release(&c->fmap);
	memset(c, 0, sizeof(*c));
}
