/* SPDX-License-Identifier: MIT */
/*
 * cmd_compare.c - `iotape compare A B`: the analyses of two traces side by
 * side, with their differences, and (--check) the fidelity test of a
 * replay: B is the recording of `iotape replay` of A.
 *
 * Both traces go through the analyze engine (ana_run) with files_only set:
 * only reads and writes of regular files with a path count, so a job's
 * pipes and sockets (DataLoader queues), which a replay does not issue,
 * leave both sides alike.  With --map DIR, B counts only files under DIR
 * (the replayer's own I/O, reading the trace and writing its report, is
 * not the job's) and each is named by its path with DIR taken off, which
 * is the original path (rp_path_map in replay/rp_trace.c is the other
 * direction).  Files are matched by that path, normalized the same way on
 * both sides ("/a//b/./c" and "a/b/c" are one file).
 *
 * Every check and its threshold is in man/iotape-compare.1; this is the
 * only place that decides them.
 *
 * The data set is A's (iotape-analyze(1), DATA SET), for both sides: a
 * file of B is in it when A's file of the same path is, so the two sides'
 * data-set figures are over the same files.  The page cache counts only
 * the files compared on both sides.
 *
 * The report is one function per section, t_* for text and j_* for JSON
 * (t_summary prints SUMMARY, j_summary builds "summary"), which cmp_text
 * and cmp_json call in order.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "anon.h"
#include "cli.h"
#include "faults.h"
#include "fmt.h"
#include "ops.h"
#include "opt.h"
#include "path.h"

/* fidelity thresholds (iotape-compare(1), CHECKS) */
#define CHK_RANDOMNESS 0.02	/* |B - A| of read_randomness */
#define CHK_GAP 0.05		/* relative, total compute gap */
#define CHK_DURATION 0.10	/* relative, duration */

enum {
	O_JSON = OPT_LONG(0),
	O_MAP = OPT_LONG(1),
	O_CHECK = OPT_LONG(2),
	O_TOP = OPT_LONG(3),
	O_NO_META = OPT_LONG(4),
	O_KEY = OPT_LONG(5),
};

struct compare_cfg {
	int json, check, no_metadata;
	const char *map, *key;
	unsigned top;		/* text only: JSON lists all */
};

static const struct opt compare_opts[] = {
	{ O_JSON, "json", NULL, "print JSON (schema iotape-compare/1) instead of text",
	  OPT_T_FLAG(struct compare_cfg, json) },
	{ O_MAP, "map", "DIR", "B replayed A under DIR: count B's files under DIR, named without DIR",
	  OPT_T_STR(struct compare_cfg, map) },
	{ O_KEY, "key", "FILE", "B is A anonymized with the key in FILE: A's names are "
	  "anonymized alike before matching", OPT_T_STR(struct compare_cfg, key) },
	{ O_CHECK, "check", NULL, "exit 1 unless B reproduces A within the fidelity thresholds",
	  OPT_T_FLAG(struct compare_cfg, check) },
	{ O_NO_META, "no-metadata", NULL, "B replayed with --no-metadata: A's metadata ops are "
	  "compute, and metadata_ops is not checked", OPT_T_FLAG(struct compare_cfg, no_metadata) },
	{ O_TOP, "top", "N", "list at most N differing files and threads (0: all)", NULL,
	  "20; all in JSON", OPT_T_UINT(struct compare_cfg, top, 0, CM_OPT_NOMAX) },
	{ 0 }
};

const struct opt_cmd compare_cmd = {
	"compare", "A B", "Compare two traces' analyses; check a replay's fidelity.",
	"Operations and bytes per kind and per file, access pattern, request\n"
	"sizes, hit ratio, compute gaps and duration of A and B side by side.\n"
	"With --map DIR --check: is B, a recorded replay of A under DIR, faithful?\n"
	"See iotape-compare(1).",
	compare_opts,
};

/* One file, by normalized path, on both sides (0 = A, 1 = B). */
struct cmp_file {
	char *key;
	uint64_t rops[2], rbytes[2], wops[2], wbytes[2];
	uint64_t acc[2], miss[2];
	uint64_t pairs[2], nonconsec[2], seq[2];	/* read streams, folded */
	int seen[2];
	int excluded;		/* A's file is a pipe, socket, device: B's too */
	int faults;		/* A's page faults on it are replayed as reads */
	int dataset;		/* in A's data set */
};

/* The figures of the data set or of the other files, per side, summed
 * over their files (cmp_groups); pages only of the files on both sides. */
struct cmp_group {
	uint64_t files[2], rops[2], rbytes[2], pairs[2], nonconsec[2], seq[2];
	uint64_t pairs_nf[2], nonconsec_nf[2];	/* files without fault reads */
	uint64_t acc[2], miss[2];
	uint64_t rd_hist[2][ANA_SZ_BUCKETS], wr_hist[2][ANA_SZ_BUCKETS];
};

struct cmp {
	struct ana a[2];
	const char *path[2];
	const char *map;	/* --map as given */
	char *under;		/* its absolute form */
	cm_anon *anon;		/* --key: A's paths as B names them */
	struct cmp_file *f;
	size_t nf, capf;
	/* key -> f[] (key_find): open addressing, each slot f[]'s index and
	 * the top of its key's hash; the keys in chunks (a million files'
	 * keys: no allocation and no 24-byte map entry each) */
	struct kslot { uint32_t id, tag; } *ks;
	size_t kcap, kn;
	char **kchunk;
	size_t nkchunk, capkchunk, kused;
	/* f[] indexes of A's files in the order of their paths: mostly the
	 * keys' order, which the sort of f[] at the end starts from */
	uint32_t *hint;
	size_t nhint;
	uint64_t excluded[2];	/* files with I/O left out (no path, pipe, ...) */
	uint64_t gap[2], io[2];	/* threads with counted reads or writes */
	uint64_t nthr[2];
	uint32_t *thr[2];	/* those threads, most bytes first */
	struct cmp_group g[3];	/* CG_DATA, CG_OTHER, CG_ALL */
	int have_cache[2];
	uint64_t fault_reads, fault_bytes;	/* A's page faults that replay reads */
	uint64_t fault_only;	/* files A only mapped: left out */
	int metadata;		/* B replayed A's metadata ops (--map, no
				 * --no-metadata): checked */
};

enum { CG_DATA, CG_OTHER, CG_ALL };

/* ------------------------------------------------------------ matching */

/* The key of a path: normalized (common/path.h), without a leading '/'. */
static void norm_path(char *s)
{
	cm_path_normalize(s, CM_PATH_RELATIVE);
}

#define KCHUNK (1u << 20)

/* A copy of key in the chunks. */
static char *key_store(struct cmp *c, const char *key)
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
static struct kslot *key_find(const struct cmp *c, const char *key, uint64_t h)
{
	size_t mask = c->kcap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		struct kslot *s = &c->ks[i];
		if (s->id == ANA_NONE || (s->tag == (uint32_t)(h >> 32) && !strcmp(c->f[s->id].key, key)))
			return s;
	}
}

static void key_grow(struct cmp *c)
{
	size_t oc = c->kcap, nc = oc ? oc * 2 : 1024;
	struct kslot *old = c->ks;

	c->ks = ana_xrealloc(NULL, nc * sizeof(*c->ks));
	memset(c->ks, 0xff, nc * sizeof(*c->ks));
	c->kcap = nc;
	for (size_t i = 0; i < oc; i++)
		if (old[i].id != ANA_NONE)
			*key_find(c, c->f[old[i].id].key, cm_hash_str(c->f[old[i].id].key)) = old[i];
	free(old);
}

static struct cmp_file *cmp_file_get(struct cmp *c, const char *key)
{
	uint64_t h = cm_hash_str(key);

	if ((c->kn + 1) * 4 > c->kcap * 3)
		key_grow(c);
	struct kslot *s = key_find(c, key, h);
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
	const struct cmp_file *f = arg;
	return strcmp(f[x].key, f[y].key);
}

/* c->f by key: their indexes sorted, from c->hint's order (remap: its
 * indexes to c->f's now; a merge of runs already in order compares only
 * where they meet), then the files moved along the permutation's cycles
 * in place */
static void sort_files(struct cmp *c, const uint32_t *remap)
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
		struct cmp_file t = c->f[s];
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

struct sort_job {
	struct cmp *c;
	const uint32_t *remap;
};

static int sort_job(void *arg)
{
	struct sort_job *j = arg;
	sort_files(j->c, j->remap);
	return 0;
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
	struct cmp *c = arg;
	size_t ul = c->under ? strlen(c->under) : 0;
	char buf[PATH_MAX], *key = buf;

	if (c->under && !is_under(path, c->under))
		return 1;
	if (strlen(path + ul) >= sizeof(buf))
		key = ana_xstrdup(path + ul);
	else
		strcpy(buf, path + ul);
	norm_path(key);
	if (c->under && strcmp(key, CM_REPLAY_MARKER) == 0) {
		if (key != buf)
			free(key);
		return 1;
	}
	struct kslot *ks = c->kcap ? key_find(c, key, cm_hash_str(key)) : NULL;
	int skip = ks && ks->id != ANA_NONE && c->f[ks->id].excluded;
	if (key != buf)
		free(key);
	return skip;
}

/* Fold side k's analysis into the file table and the totals. */
/* The key of side k's path (malloc'd): with --key, A's path anonymized. */
static char *key_of(struct cmp *c, int k, const char *path)
{
	const char *p = path;

	if (k == 0 && c->anon && cm_anon_path(c->anon, path, &p) < 0)
		ana_oom();
	char *key = ana_xstrdup(p);
	norm_path(key);
	return key;
}

static void cmp_collect(struct cmp *c, int k)
{
	struct ana *a = &c->a[k];
	size_t ul = c->under ? strlen(c->under) : 0;

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
		if (!f->read_ops && !x->write_ops && !pg.accessed)
			continue;
		int under = k == 1 && c->under;
		const char *path = ana_file_path(a, f, buf);
		if (ana_file_excluded(a, f)) {
			/* B's files outside DIR, and its marker, are the
			 * replayer's own */
			if (under && (!path || !is_under(path, c->under) ||
				      is_marker(path + ul)))
				continue;
			if (f->read_ops + x->write_ops)
				c->excluded[k]++;
			if (k == 0 && path && !f->anon) {
				char *key = key_of(c, k, path);
				cmp_file_get(c, key)->excluded = 1;
				free(key);
			}
			continue;
		}
		char *key = key_of(c, k, path + (under ? ul : 0));
		struct cmp_file *e = cmp_file_get(c, key);
		free(key);
		if (fe)
			fe[i] = (uint32_t)(e - c->f);
		if (e->excluded)
			continue;
		if (k == 0)
			e->dataset |= f->dataset;
		e->seen[k] = 1;
		e->rops[k] += f->read_ops;
		e->rbytes[k] += f->read_bytes;
		e->wops[k] += x->write_ops;
		e->wbytes[k] += x->write_bytes;
		/* the pages B can see: with --map, not the ones A's page faults
		 * on code (mapped executable) reached, which the replay leaves
		 * to the loader (common/faults.h) */
		int code = k == 0 && c->under && f->exec_map;
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
	memcpy(c->g[CG_DATA].rd_hist[k], a->ds.rd_hist, sizeof(a->ds.rd_hist));
	memcpy(c->g[CG_DATA].wr_hist[k], a->ds.wr_hist, sizeof(a->ds.wr_hist));
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
 * With --map, B is a recording of `iotape replay` of A, which turns some
 * of A's page faults on file mappings into reads (iotape-replay(1)).  A
 * file A only mapped (no read or write: the loader's ld.so.cache, locale
 * files) is left out on both sides, like a pipe: its fault reads would
 * only add the faults' order to B's read randomness.  On a file A also
 * read or wrote (a numpy memmap whose header np.load reads), the fault
 * reads, as the replay's own plan of A has them, count as A's reads, so
 * that equal ops and bytes still mean "the replay did what the job did".
 */
static int cmp_faults(struct cmp *c)
{
	struct ana *a = &c->a[0];
	struct cm_faults *fl;
	struct cm_fault_read fr;
	int rc = cm_faults_open(&fl, a->r);

	while (rc == 0 && fl && (rc = cm_faults_next(fl, &fr)) == 1) {
		char *key = ana_xstrdup(fr.path);
		norm_path(key);
		struct cmp_file *e = cmp_file_get(c, key);
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
			c->g[CG_DATA].rd_hist[0][ana_sz_bucket(fr.len)]++;
		c->fault_reads++;
		c->fault_bytes += fr.len;
	}
	cm_faults_free(fl);
	return rc;
}

/* The steps of the comparison that allocate with the analyzer's helpers,
 * under its catch point (ana_guard): 0 or -ENOMEM. */
struct cmp_step {
	struct cmp *c;
	int side;
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

/* The groups, once the files are final: the data set's and the other
 * files' sums over their files (their request sizes: the data set's from
 * cmp_collect, the other files' the totals less those), CG_ALL both. */
static void cmp_groups(struct cmp *c)
{
	for (size_t i = 0; i < c->nf; i++) {
		const struct cmp_file *f = &c->f[i];
		const int gs[2] = { f->dataset ? CG_DATA : CG_OTHER, CG_ALL };
		for (int j = 0; j < 2; j++) {
			struct cmp_group *g = &c->g[gs[j]];
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
			struct cmp_group *d = &c->g[CG_DATA], *o = &c->g[CG_OTHER], *t = &c->g[CG_ALL];
			t->rd_hist[s][b] = c->a[s].sys.rd_hist[b];
			t->wr_hist[s][b] = c->a[s].sys.wr_hist[b];
			o->rd_hist[s][b] = t->rd_hist[s][b] - d->rd_hist[s][b];
			o->wr_hist[s][b] = t->wr_hist[s][b] - d->wr_hist[s][b];
		}
}

/* -------------------------------------------------------------- checks */

static uint64_t duration_ns(const struct ana *a)
{
	return ana_trace_end(a) - a->t0;
}

static void check_count(struct cli_checks *k, const char *name, uint64_t a, uint64_t b)
{
	cli_check_add(k, name, a == b, "A %" PRIu64 ", B %" PRIu64 " (must be equal)", a, b);
}

/* A file differs when its read or write ops or bytes do. */
static int file_differs(const struct cmp_file *f)
{
	return f->rops[0] != f->rops[1] || f->rbytes[0] != f->rbytes[1] ||
	       f->wops[0] != f->wops[1] || f->wbytes[0] != f->wbytes[1];
}

static void cmp_checks(struct cmp *c, struct cli_checks *k)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];

	check_count(k, "read_ops", a->sys.read_ops, b->sys.read_ops);
	check_count(k, "read_bytes", a->sys.read_bytes, b->sys.read_bytes);
	check_count(k, "write_ops", a->sys.write_ops, b->sys.write_ops);
	check_count(k, "write_bytes", a->sys.write_bytes, b->sys.write_bytes);

	size_t bad = 0, only_a = 0, only_b = 0;
	const struct cmp_file *first = NULL;
	for (size_t i = 0; i < c->nf; i++) {
		const struct cmp_file *f = &c->f[i];
		if (!file_differs(f))
			continue;
		bad++;
		only_a += !f->seen[1];
		only_b += !f->seen[0];
		if (!first)
			first = f;
	}
	if (bad) {
		/* the path cut to 60 bytes, not inside a UTF-8 character */
		int cut = (int)cm_utf8_cut(first->key, 60);

		cli_check_add(k, "files", 0, "%zu of %zu files differ in read/write ops or bytes "
			  "(%zu not in B, %zu not in A; first: %.*s%s)", bad, c->nf, only_a,
			  only_b, cut, first->key, first->key[cut] ? "..." : "");
	}
	else
		cli_check_add(k, "files", 1, "%zu files: equal read/write ops and bytes", c->nf);

	if (c->metadata) {
		/* per kind, as the replay issues them (stat, getdents, ...) */
		char d[160];
		size_t n = 0;
		int ok = 1;
		d[0] = 0;
		for (unsigned kd = CM_META_FIRST; kd < CM_KIND_MAX && n < sizeof(d); kd++) {
			uint64_t x = a->sys.meta_ops[kd], y = b->sys.meta_ops[kd];
			ok &= x == y;
			if (x || y)	/* the kinds either side has */
				n += (size_t)snprintf(d + n, sizeof(d) - n, "%s%s A %" PRIu64
						      ", B %" PRIu64, n ? "; " : "",
						      cm_kind_name(kd), x, y);
		}
		cli_check_add(k, "metadata_ops", ok, "%s (must be equal)", n ? d : "none on either side");
	}

	/* read randomness, of the data set and of the other files: with page
	 * faults replayed as reads, over the files without them (B's reads
	 * of a mapped data file include the faults, in fault order, which A's
	 * syscall reads do not) */
	char det[2][80];
	int ok = 1;
	for (int gi = CG_DATA; gi <= CG_OTHER; gi++) {
		const struct cmp_group *g = &c->g[gi];
		const uint64_t *p = c->fault_reads ? g->pairs_nf : g->pairs;
		const uint64_t *n = c->fault_reads ? g->nonconsec_nf : g->nonconsec;
		double ra = p[0] ? (double)n[0] / (double)p[0] : NAN;
		double rb = p[1] ? (double)n[1] / (double)p[1] : NAN;
		const char *what = gi == CG_DATA ? "data set" : "other files";
		if (isnan(ra) && isnan(rb)) {
			snprintf(det[gi], sizeof(det[gi]), "%s n/a", what);
		} else {
			ok &= !isnan(ra) && !isnan(rb) && fabs(rb - ra) <= CHK_RANDOMNESS;
			snprintf(det[gi], sizeof(det[gi]), "%s A %.4f, B %.4f", what, ra, rb);
		}
	}
	cli_check_add(k, "read_randomness", ok, "%s; %s (within %.2f%s)", det[0], det[1],
		  CHK_RANDOMNESS, c->fault_reads ? ", files without page-fault reads" : "");

	size_t hb[2] = { 0 };
	for (int gi = CG_DATA; gi <= CG_OTHER; gi++)
		for (unsigned i = 0; i < ANA_SZ_BUCKETS; i++) {
			const struct cmp_group *g = &c->g[gi];
			hb[gi] += g->rd_hist[0][i] != g->rd_hist[1][i] ||
				  g->wr_hist[0][i] != g->wr_hist[1][i];
		}
	if (hb[0] + hb[1])
		cli_check_add(k, "request_sizes", 0, "%zu size classes of the data set and %zu of the "
			  "other files differ (must be identical)", hb[0], hb[1]);
	else
		cli_check_add(k, "request_sizes", 1, "identical");

	char x[32], y[32];
	double g = cli_rel_diff((double)c->gap[0], (double)c->gap[1]);
	cm_fmt_ns(x, sizeof(x), c->gap[0]);
	cm_fmt_ns(y, sizeof(y), c->gap[1]);
	cli_check_add(k, "compute_gap", fabs(g) <= CHK_GAP, "A %s, B %s, %+.1f%% (within %.0f%%)",
		  x, y, 100 * g, 100 * CHK_GAP);
	double d = cli_rel_diff((double)duration_ns(a), (double)duration_ns(b));
	cm_fmt_ns(x, sizeof(x), duration_ns(a));
	cm_fmt_ns(y, sizeof(y), duration_ns(b));
	cli_check_add(k, "duration", fabs(d) <= CHK_DURATION, "A %s, B %s, %+.1f%% (within %.0f%%)",
		  x, y, 100 * d, 100 * CHK_DURATION);
}

struct cmp_checks_job {
	struct cmp *c;
	struct cli_checks *k;
};

static int checks_job(void *arg)
{
	struct cmp_checks_job *j = arg;
	cmp_checks(j->c, j->k);
	return 0;
}

/* ---------------------------------------------------------------- text */

static void t_pct(char *buf, double a, double b)
{
	double r = cli_rel_diff(a, b);
	if (isnan(a) || isnan(b))
		snprintf(buf, 32, "n/a");
	else if (isinf(r))
		snprintf(buf, 32, "new");
	else if (r == 0)
		snprintf(buf, 32, "=");
	else
		snprintf(buf, 32, "%+.1f%%", 100 * r);
}

static void t_count(FILE *o, const char *name, uint64_t a, uint64_t b)
{
	char d[32];
	t_pct(d, (double)a, (double)b);
	fprintf(o, "  %-28s %14" PRIu64 " %14" PRIu64 " %9s\n", name, a, b, d);
}

/* A line of two values in human units (fmt: cm_fmt_bytes, cm_fmt_ns). */
static void t_units(FILE *o, const char *name, uint64_t a, uint64_t b,
		    void (*fmt)(char *, size_t, uint64_t))
{
	char x[32], y[32], d[32];
	fmt(x, sizeof(x), a);
	fmt(y, sizeof(y), b);
	t_pct(d, (double)a, (double)b);
	fprintf(o, "  %-28s %14s %14s %9s\n", name, x, y, d);
}

static void t_bytes(FILE *o, const char *name, uint64_t a, uint64_t b)
{
	t_units(o, name, a, b, cm_fmt_bytes);
}

static void t_ns(FILE *o, const char *name, uint64_t a, uint64_t b)
{
	t_units(o, name, a, b, cm_fmt_ns);
}

/* Ratios differ by an absolute amount. */
static void t_ratio(FILE *o, const char *name, double a, double b)
{
	char x[32], y[32], d[32];
	if (isnan(a) || isnan(b))
		snprintf(d, sizeof(d), "n/a");
	else
		snprintf(d, sizeof(d), "%+.3f", b - a);
	fprintf(o, "  %-28s %14s %14s %9s\n", name, ana_fmt_ratio(x, a), ana_fmt_ratio(y, b), d);
}

static void t_head(FILE *o, const char *section)
{
	fprintf(o, "\n%-30s %14s %14s %9s\n", section, "A", "B", "diff");
}

static double hit(uint64_t acc, uint64_t miss, int have)
{
	return have ? ana_hit_ratio(acc, miss) : NAN;
}

/* Rows of the threads side by side: as many as the side with more. */
static size_t thread_rows(const struct cmp *c)
{
	return c->nthr[0] > c->nthr[1] ? c->nthr[0] : c->nthr[1];
}

/* Side s's thread in row i (most bytes first), NULL past its last. */
static const struct ana_thread *thread_at(const struct cmp *c, int s, size_t i)
{
	return i < c->nthr[s] ? &c->a[s].sys.threads[c->thr[s][i]] : NULL;
}

/* Request size class i has reads or writes in group g on either side. */
static int size_class_used(const struct cmp_group *g, unsigned i)
{
	return g->rd_hist[0][i] || g->rd_hist[1][i] || g->wr_hist[0][i] || g->wr_hist[1][i];
}

/* num / den of side s, NaN when den is 0. */
static double side_ratio(const uint64_t *num, const uint64_t *den, int s)
{
	return den[s] ? (double)num[s] / (double)den[s] : NAN;
}

/* Side s's epoch count, NaN where it cannot be counted (ana_epochs_known). */
static double epochs_of(const struct cmp *c, int s)
{
	return ana_epochs_known(&c->a[s]) ? (double)ana_epoch_count(&c->a[s]) : NAN;
}

/* The note under a list cut at top entries of n (top < 0: not cut). */
static void t_more(FILE *o, size_t n, long top, const char *what)
{
	if (top >= 0 && n > (size_t)top)
		fprintf(o, "  (%zu more %s: --top 0 lists all)\n", n - top, what);
}

/* The traces, what is counted, and A's page-fault reads. */
static void t_header(FILE *o, const struct cmp *c)
{
	fputs("iotape compare\n  A  ", o);
	cm_put_escaped(o, c->path[0], 0);
	fputs("\n  B  ", o);
	cm_put_escaped(o, c->path[1], 0);
	if (c->map) {
		fputs("   (files under ", o);
		cm_put_escaped(o, c->under, 0);
		fputs(", named without it)", o);
	}
	fprintf(o, "\n  reads and writes of regular files with a path; left out: %" PRIu64
		" files in A, %" PRIu64 " in B (pipes, sockets, unknown fds)\n",
		c->excluded[0], c->excluded[1]);
	if (c->fault_reads || c->fault_only) {
		char fb[32];
		cm_fmt_bytes(fb, sizeof(fb), c->fault_bytes);
		fprintf(o, "  A's reads include %" PRIu64 " page-fault reads (%s) that the replay"
			" issues as reads; %" PRIu64 " files A only mapped are left out\n",
			c->fault_reads, fb, c->fault_only);
	}
}

static void t_summary(FILE *o, const struct cmp *c)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];
	t_head(o, "SUMMARY");
	t_ns(o, "duration", duration_ns(a), duration_ns(b));
	t_count(o, "read ops", a->sys.read_ops, b->sys.read_ops);
	t_bytes(o, "read bytes", a->sys.read_bytes, b->sys.read_bytes);
	t_count(o, "write ops", a->sys.write_ops, b->sys.write_ops);
	t_bytes(o, "write bytes", a->sys.write_bytes, b->sys.write_bytes);
	uint64_t fr[2] = { 0 }, fw[2] = { 0 };
	for (size_t i = 0; i < c->nf; i++)
		for (int s = 0; s < 2; s++) {
			fr[s] += c->f[i].rops[s] > 0;
			fw[s] += c->f[i].wops[s] > 0;
		}
	t_count(o, "files read", fr[0], fr[1]);
	t_count(o, "files written", fw[0], fw[1]);
	/* metadata ops, as the replay issues them (failed ones too) */
	for (unsigned kd = CM_META_FIRST; kd < CM_KIND_MAX; kd++) {
		char n[32];
		if (!a->sys.meta_ops[kd] && !b->sys.meta_ops[kd])
			continue;
		snprintf(n, sizeof(n), "%s ops", cm_kind_name(kd));
		t_count(o, n, a->sys.meta_ops[kd], b->sys.meta_ops[kd]);
	}
}

static void t_kinds(FILE *o, const struct cmp *c)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];
	t_head(o, "BY KIND");
	for (unsigned op = 0; op < TAPE_OP_MAX; op++) {
		if (!a->sys.op_ops[op] && !b->sys.op_ops[op])
			continue;
		char n[48];
		snprintf(n, sizeof(n), "%s ops", tape_op_name(op));
		t_count(o, n, a->sys.op_ops[op], b->sys.op_ops[op]);
		snprintf(n, sizeof(n), "%s bytes", tape_op_name(op));
		t_bytes(o, n, a->sys.op_bytes[op], b->sys.op_bytes[op]);
	}
}

/* A line of two counts that may be unknown (NaN). */
static void t_opt_count(FILE *o, const char *name, double a, double b)
{
	char x[32], y[32];
	if (isnan(a) || isnan(b)) {
		snprintf(x, sizeof(x), isnan(a) ? "n/a" : "%.0f", a);
		snprintf(y, sizeof(y), isnan(b) ? "n/a" : "%.0f", b);
		fprintf(o, "  %-28s %14s %14s %9s\n", name, x, y, "n/a");
	} else {
		t_count(o, name, (uint64_t)a, (uint64_t)b);
	}
}

/* A group's files, reads and access pattern. */
static void t_group(FILE *o, const struct cmp_group *g)
{
	t_count(o, "files", g->files[0], g->files[1]);
	t_count(o, "read ops", g->rops[0], g->rops[1]);
	t_bytes(o, "read bytes", g->rbytes[0], g->rbytes[1]);
	t_ratio(o, "read randomness", side_ratio(g->nonconsec, g->pairs, 0),
		side_ratio(g->nonconsec, g->pairs, 1));
	t_ratio(o, "sequential read fraction", side_ratio(g->seq, g->pairs, 0),
		side_ratio(g->seq, g->pairs, 1));
}

static void t_pattern(FILE *o, const struct cmp *c)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];
	double ta, tb;
	t_head(o, "ACCESS PATTERN (data set)");
	t_group(o, &c->g[CG_DATA]);
	double fa = ana_file_order_randomness(a, &ta), fb = ana_file_order_randomness(b, &tb);
	t_ratio(o, "file order randomness", fa, fb);
	t_opt_count(o, "epochs", epochs_of(c, 0), epochs_of(c, 1));
	t_head(o, "ACCESS PATTERN (other files)");
	t_group(o, &c->g[CG_OTHER]);
}

static void t_sizes(FILE *o, const struct cmp *c, int gi, const char *title)
{
	const struct cmp_group *g = &c->g[gi];
	char b1[32], b2[32];
	t_head(o, title);
	for (unsigned i = 0; i < ANA_SZ_BUCKETS; i++) {
		if (!size_class_used(g, i))
			continue;
		char r[80];
		if (i <= 1)
			snprintf(r, sizeof(r), "%u B", i);
		else {
			cm_fmt_bytes(b1, sizeof(b1), 1ull << (i - 1));
			if (i == 64)
				snprintf(b2, sizeof(b2), "16.0 EiB");
			else
				cm_fmt_bytes(b2, sizeof(b2), 1ull << i);
			snprintf(r, sizeof(r), "%s - <%s", b1, b2);
		}
		char n[96];
		if (g->rd_hist[0][i] || g->rd_hist[1][i]) {
			snprintf(n, sizeof(n), "read  %s", r);
			t_count(o, n, g->rd_hist[0][i], g->rd_hist[1][i]);
		}
		if (g->wr_hist[0][i] || g->wr_hist[1][i]) {
			snprintf(n, sizeof(n), "write %s", r);
			t_count(o, n, g->wr_hist[0][i], g->wr_hist[1][i]);
		}
	}
}

static void t_cache(FILE *o, const struct cmp *c)
{
	static const char *const what[] = { "data set", "other files", "all files" };
	char n[64];
	t_head(o, "PAGE CACHE (files on both sides)");
	for (int gi = CG_DATA; gi <= CG_ALL; gi++) {
		const struct cmp_group *g = &c->g[gi];
		snprintf(n, sizeof(n), "hit ratio, %s", what[gi]);
		t_ratio(o, n, hit(g->acc[0], g->miss[0], c->have_cache[0]),
			hit(g->acc[1], g->miss[1], c->have_cache[1]));
		snprintf(n, sizeof(n), "pages accessed, %s", what[gi]);
		t_count(o, n, g->acc[0], g->acc[1]);
		snprintf(n, sizeof(n), "pages missed, %s", what[gi]);
		t_count(o, n, g->miss[0], g->miss[1]);
	}
}

static void t_compute(FILE *o, const struct cmp *c, long top)
{
	t_head(o, "COMPUTE");
	t_ns(o, "compute gap (all threads)", c->gap[0], c->gap[1]);
	t_ns(o, "I/O time (all threads)", c->io[0], c->io[1]);
	t_count(o, "threads with I/O", c->nthr[0], c->nthr[1]);
	size_t nt = thread_rows(c);
	for (size_t i = 0; i < nt && (top < 0 || (long)i < top); i++) {
		const struct ana_thread *x = thread_at(c, 0, i), *y = thread_at(c, 1, i);
		char n[64];
		snprintf(n, sizeof(n), "gap tid %u / %u", x ? x->tid : 0, y ? y->tid : 0);
		t_ns(o, n, x ? x->gap_ns : 0, y ? y->gap_ns : 0);
	}
	t_more(o, nt, top, "threads");
}

/* Listed only if some file differs. */
static void t_differ(FILE *o, const struct cmp *c, long top)
{
	size_t nd = 0;
	for (size_t i = 0; i < c->nf; i++) {
		const struct cmp_file *f = &c->f[i];
		if (!file_differs(f))
			continue;
		if (!nd++)
			fprintf(o, "\nFILES THAT DIFFER (A/B)\n");
		if (top >= 0 && (long)nd > top)
			continue;
		/* exact bytes: a humanized size hides a short read */
		fprintf(o, "  read %" PRIu64 "/%" PRIu64 " ops %" PRIu64 "/%" PRIu64 " B  write %"
			PRIu64 "/%" PRIu64 " ops %" PRIu64 "/%" PRIu64 " B%s  ", f->rops[0],
			f->rops[1], f->rbytes[0], f->rbytes[1], f->wops[0], f->wops[1],
			f->wbytes[0], f->wbytes[1],
			!f->seen[1] ? "  [not in B]" : !f->seen[0] ? "  [not in A]" : "");
		cm_put_escaped(o, f->key, 0);
		fputc('\n', o);
	}
	t_more(o, nd, top, "files");
}

static void t_files(FILE *o, const struct cmp *c)
{
	size_t nd = 0;
	for (size_t i = 0; i < c->nf; i++)
		nd += file_differs(&c->f[i]);
	fprintf(o, "\nFILES\n  %zu compared, %zu equal in ops and bytes, %zu differ\n", c->nf,
		c->nf - nd, nd);
}

/* --check */
static void t_check(FILE *o, const struct cli_checks *k)
{
	fprintf(o, "\nCHECK (B reproduces A)\n");
	cli_checks_print(o, k);
}

/* The sections in order; CHECK only with k (--check). */
static void cmp_text(struct cmp *c, const struct cli_checks *k, long top, FILE *o)
{
	t_header(o, c);
	t_summary(o, c);
	t_kinds(o, c);
	t_pattern(o, c);
	t_sizes(o, c, CG_DATA, "REQUEST SIZES (data set)");
	t_sizes(o, c, CG_OTHER, "REQUEST SIZES (other files)");
	t_cache(o, c);
	t_compute(o, c, top);
	t_differ(o, c, top);
	t_files(o, c);
	if (k)
		t_check(o, k);
}

/* ---------------------------------------------------------------- JSON */

static json_t *jreal(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

/* {"a": x, "b": y, "diff": y - x, "rel": (y - x) / x} */
static json_t *j_pair_u64(uint64_t a, uint64_t b)
{
	json_t *o = json_object();
	json_object_set_new(o, "a", cm_json_u64(a));
	json_object_set_new(o, "b", cm_json_u64(b));
	json_object_set_new(o, "diff", json_real((double)b - (double)a));
	json_object_set_new(o, "rel", jreal(cli_rel_diff((double)a, (double)b)));
	return o;
}

static json_t *j_pair_real(double a, double b, int rel)
{
	json_t *o = json_object();
	json_object_set_new(o, "a", jreal(a));
	json_object_set_new(o, "b", jreal(b));
	json_object_set_new(o, "diff", jreal(b - a));
	if (rel)
		json_object_set_new(o, "rel", jreal(cli_rel_diff(a, b)));
	return o;
}

/* The traces and what is counted of them. */
static json_t *j_traces(const struct cmp *c)
{
	json_t *x = json_object();
	json_object_set_new(x, "a", cm_json_str(c->path[0]));
	json_object_set_new(x, "b", cm_json_str(c->path[1]));
	json_object_set_new(x, "map", c->under ? cm_json_str(c->under) : json_null());
	json_object_set_new(x, "excluded_files_a", cm_json_u64(c->excluded[0]));
	json_object_set_new(x, "excluded_files_b", cm_json_u64(c->excluded[1]));
	json_object_set_new(x, "fault_reads_a", cm_json_u64(c->fault_reads));
	json_object_set_new(x, "fault_read_bytes_a", cm_json_u64(c->fault_bytes));
	json_object_set_new(x, "mapped_only_files_a", cm_json_u64(c->fault_only));
	return x;
}

static json_t *j_summary(const struct cmp *c)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];
	json_t *x = json_object();
	json_object_set_new(x, "duration_s", j_pair_real(duration_ns(a) / 1e9, duration_ns(b) / 1e9, 1));
	json_object_set_new(x, "read_ops", j_pair_u64(a->sys.read_ops, b->sys.read_ops));
	json_object_set_new(x, "read_bytes", j_pair_u64(a->sys.read_bytes, b->sys.read_bytes));
	json_object_set_new(x, "write_ops", j_pair_u64(a->sys.write_ops, b->sys.write_ops));
	json_object_set_new(x, "write_bytes", j_pair_u64(a->sys.write_bytes, b->sys.write_bytes));
	json_t *m = json_object();
	for (unsigned kd = CM_META_FIRST; kd < CM_KIND_MAX; kd++)
		json_object_set_new(m, cm_kind_name(kd),
				    j_pair_u64(a->sys.meta_ops[kd], b->sys.meta_ops[kd]));
	json_object_set_new(x, "metadata_ops", m);
	return x;
}

static json_t *j_kinds(const struct cmp *c)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];
	json_t *x = json_object();
	for (unsigned op = 0; op < TAPE_OP_MAX; op++) {
		if (!a->sys.op_ops[op] && !b->sys.op_ops[op])
			continue;
		json_t *y = json_object();
		json_object_set_new(y, "ops", j_pair_u64(a->sys.op_ops[op], b->sys.op_ops[op]));
		json_object_set_new(y, "bytes", j_pair_u64(a->sys.op_bytes[op], b->sys.op_bytes[op]));
		json_object_set_new(x, tape_op_name(op), y);
	}
	return x;
}

/* {"a": A, "b": B, ...} of two counts that may be unknown (NaN): null. */
static json_t *j_pair_opt(double a, double b)
{
	if (isnan(a) || isnan(b))
		return j_pair_real(a, b, 1);
	return j_pair_u64((uint64_t)a, (uint64_t)b);
}

static json_t *j_sizes(const struct cmp_group *g)
{
	json_t *h = json_array();
	for (unsigned i = 0; i < ANA_SZ_BUCKETS; i++) {
		if (!size_class_used(g, i))
			continue;
		json_t *y = json_object();
		json_object_set_new(y, "min", cm_json_u64(i ? 1ull << (i - 1) : 0));
		json_object_set_new(y, "max", i == 64 ? json_real(18446744073709551615.0) :
				    cm_json_u64(i ? (1ull << i) - 1 : 0));
		json_object_set_new(y, "reads", j_pair_u64(g->rd_hist[0][i], g->rd_hist[1][i]));
		json_object_set_new(y, "writes", j_pair_u64(g->wr_hist[0][i], g->wr_hist[1][i]));
		json_array_append_new(h, y);
	}
	return h;
}

/* The access pattern, with the request sizes. */
static json_t *j_pattern(const struct cmp *c)
{
	const struct ana *a = &c->a[0], *b = &c->a[1];
	json_t *x = json_object();
	double ta, tb;
	json_object_set_new(x, "read_randomness",
			    j_pair_real(ana_read_randomness(a), ana_read_randomness(b), 0));
	json_object_set_new(x, "sequential_read_fraction",
			    j_pair_real(ana_seq_read_fraction(a), ana_seq_read_fraction(b), 0));
	double fa = ana_file_order_randomness(a, &ta), fb = ana_file_order_randomness(b, &tb);
	json_object_set_new(x, "file_order_randomness", j_pair_real(fa, fb, 0));
	json_object_set_new(x, "epochs", j_pair_opt(epochs_of(c, 0), epochs_of(c, 1)));
	json_object_set_new(x, "request_size_histogram", j_sizes(&c->g[CG_ALL]));
	return x;
}

static json_t *j_cache(const struct cmp *c, int gi)
{
	const struct cmp_group *g = &c->g[gi];
	json_t *x = json_object();
	json_object_set_new(x, "hit_ratio", j_pair_real(hit(g->acc[0], g->miss[0], c->have_cache[0]),
							 hit(g->acc[1], g->miss[1], c->have_cache[1]), 0));
	json_object_set_new(x, "pages_accessed", j_pair_u64(g->acc[0], g->acc[1]));
	json_object_set_new(x, "pages_missed", j_pair_u64(g->miss[0], g->miss[1]));
	return x;
}

/* "dataset" (gi CG_DATA) or "other_files". */
static json_t *j_group(const struct cmp *c, int gi)
{
	const struct cmp_group *g = &c->g[gi];
	json_t *x = json_object();
	json_object_set_new(x, "files", j_pair_u64(g->files[0], g->files[1]));
	json_object_set_new(x, "read_ops", j_pair_u64(g->rops[0], g->rops[1]));
	json_object_set_new(x, "read_bytes", j_pair_u64(g->rbytes[0], g->rbytes[1]));
	json_object_set_new(x, "read_randomness",
			    j_pair_real(side_ratio(g->nonconsec, g->pairs, 0),
					side_ratio(g->nonconsec, g->pairs, 1), 0));
	json_object_set_new(x, "sequential_read_fraction",
			    j_pair_real(side_ratio(g->seq, g->pairs, 0), side_ratio(g->seq, g->pairs, 1), 0));
	if (gi == CG_DATA) {
		double ta, tb;
		json_object_set_new(x, "file_order_randomness",
				    j_pair_real(ana_file_order_randomness(&c->a[0], &ta),
						ana_file_order_randomness(&c->a[1], &tb), 0));
		json_object_set_new(x, "epochs", j_pair_opt(epochs_of(c, 0), epochs_of(c, 1)));
	}
	json_object_set_new(x, "request_size_histogram", j_sizes(g));
	json_object_set_new(x, "cache", j_cache(c, gi));
	return x;
}

static json_t *j_compute(const struct cmp *c)
{
	json_t *x = json_object();
	json_object_set_new(x, "gap_s", j_pair_real(c->gap[0] / 1e9, c->gap[1] / 1e9, 1));
	json_object_set_new(x, "io_s", j_pair_real(c->io[0] / 1e9, c->io[1] / 1e9, 1));
	json_t *th = json_array();
	size_t nt = thread_rows(c);
	for (size_t i = 0; i < nt; i++) {
		const struct ana_thread *p = thread_at(c, 0, i), *q = thread_at(c, 1, i);
		json_t *y = json_object();
		json_object_set_new(y, "tid", json_pack("{s:o,s:o}", "a", p ? cm_json_u64(p->tid) : json_null(),
							"b", q ? cm_json_u64(q->tid) : json_null()));
		json_object_set_new(y, "gap_s", j_pair_real(p ? p->gap_ns / 1e9 : NAN,
							    q ? q->gap_ns / 1e9 : NAN, 1));
		json_object_set_new(y, "io_s", j_pair_real(p ? p->io_ns / 1e9 : NAN,
							   q ? q->io_ns / 1e9 : NAN, 1));
		json_object_set_new(y, "read_bytes", j_pair_u64(p ? p->read_bytes : 0, q ? q->read_bytes : 0));
		json_object_set_new(y, "write_bytes", j_pair_u64(p ? p->write_bytes : 0, q ? q->write_bytes : 0));
		json_array_append_new(th, y);
	}
	json_object_set_new(x, "threads", th);
	return x;
}

static json_t *j_files(const struct cmp *c)
{
	json_t *fs = json_array();
	for (size_t i = 0; i < c->nf; i++) {
		const struct cmp_file *f = &c->f[i];
		json_t *y = json_object();
		json_object_set_new(y, "path", cm_json_str(f->key));
		json_object_set_new(y, "in_a", json_boolean(f->seen[0]));
		json_object_set_new(y, "in_b", json_boolean(f->seen[1]));
		json_object_set_new(y, "dataset", json_boolean(f->dataset));
		json_object_set_new(y, "read_ops", j_pair_u64(f->rops[0], f->rops[1]));
		json_object_set_new(y, "read_bytes", j_pair_u64(f->rbytes[0], f->rbytes[1]));
		json_object_set_new(y, "write_ops", j_pair_u64(f->wops[0], f->wops[1]));
		json_object_set_new(y, "write_bytes", j_pair_u64(f->wbytes[0], f->wbytes[1]));
		json_object_set_new(y, "hit_ratio", j_pair_real(hit(f->acc[0], f->miss[0], c->have_cache[0]),
								hit(f->acc[1], f->miss[1], c->have_cache[1]), 0));
		json_array_append_new(fs, y);
	}
	return fs;
}

static json_t *j_fidelity(const struct cli_checks *k)
{
	json_t *ck = json_array();
	for (size_t i = 0; i < k->n; i++) {
		/* cm_json_str: json_pack's "s" refuses a path that is not
		 * UTF-8, and the check would be left out */
		json_t *y = json_object();

		json_object_set_new(y, "name", cm_json_str(k->v[i].name));
		json_object_set_new(y, "ok", json_boolean(k->v[i].ok));
		json_object_set_new(y, "detail", cm_json_str(k->v[i].detail));
		json_array_append_new(ck, y);
	}
	json_t *x = json_object();
	json_object_set_new(x, "passed", json_boolean(!k->failed));
	json_object_set_new(x, "checks", ck);
	return x;
}

/* The top-level keys in order. */
static int cmp_json(struct cmp *c, const struct cli_checks *k, FILE *out)
{
	json_t *root = json_object();

	json_object_set_new(root, "schema", json_string("iotape-compare/1"));
	json_object_set_new(root, "traces", j_traces(c));
	json_object_set_new(root, "summary", j_summary(c));
	json_object_set_new(root, "kinds", j_kinds(c));
	json_object_set_new(root, "dataset", j_group(c, CG_DATA));
	json_object_set_new(root, "other_files", j_group(c, CG_OTHER));
	json_object_set_new(root, "pattern", j_pattern(c));
	json_object_set_new(root, "cache", j_cache(c, CG_ALL));
	json_object_set_new(root, "compute", j_compute(c));
	json_object_set_new(root, "files", j_files(c));
	json_object_set_new(root, "fidelity", j_fidelity(k));

	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', out);
	json_decref(root);
	return rc ? -ENOMEM : 0;
}

/* ---------------------------------------------------------------- main */

static void cmp_release(struct cmp *c)
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
	free(c->under);
	cm_anon_free(c->anon);
}

/* Analyse A and B, match their files and run the checks into k (c->path,
 * c->map and c->metadata set): EXIT_OK, or EXIT_USAGE / EXIT_FAIL after
 * one error line. */
static int cmp_run(struct cmp *c, int no_metadata, struct cli_checks *k)
{
	int err;

	if (c->map) {
		/* the recorder names files by their absolute, resolved path */
		c->under = realpath(c->map, NULL);
		if (!c->under) {
			if (!(c->under = strdup(c->map))) {
				cli_error("out of memory");
				return EXIT_FAIL;
			}
			size_t n = strlen(c->under);
			while (n > 1 && c->under[n - 1] == '/')
				c->under[--n] = 0;
		}
		if (c->under[0] != '/' || !c->under[1]) {
			opt_error(&compare_cmd, "--map: '%s' is '/', or relative and not there", c->map);
			return EXIT_USAGE;
		}
	}

	for (int s = 0; s < 2; s++) {
		struct ana_opts o = { .top = -1, .to_ns = UINT64_MAX, .threads = 2,
				      .files_only = 1, .under = s == 1 ? c->under : NULL,
				      .skip = s == 1 ? skip_b : NULL, .skip_arg = c,
				      .replayed_io = s == 0 && c->map,
				      .no_metadata = no_metadata, .no_train = 1,
				      .path_order = s == 0 };
		err = ana_run(&c->a[s], c->path[s], &o);
		if (err) {
			cli_tape_error(c->path[s], err);
			return EXIT_FAIL;
		}
		for (int t = 1; t < TAPE_TABLE_MAX; t++)
			if (c->a[s].damage[t])
				cli_error("warning: %s: %s table: %s; comparing the events before it",
					  c->path[s], tape_table_name(t), c->a[s].damage_detail[t]);
		if (!c->a[s].have[TAPE_TABLE_SYSCALL]) {
			cli_error("%s: the trace has no syscall events: nothing to compare",
				  c->path[s]);
			return EXIT_FAIL;
		}
		struct cmp_step step = { c, s };
		err = ana_guard(collect_job, &step);
		if (!err && s == 0 && c->map)
			err = ana_guard(faults_job, &step);
		if (err) {
			cli_tape_error(c->path[s], err);
			return EXIT_FAIL;
		}
		/* its files are in c->f now: what the analysis kept of them
		 * goes before the next one (a million files' worth) */
		ana_release_files(&c->a[s]);
	}
	/* the files left out were kept only to leave them out of B too */
	size_t n = 0;
	uint32_t *remap = malloc((c->nf + 1) * sizeof(*remap));
	if (!remap) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < c->nf; i++) {
		remap[i] = c->f[i].excluded ? ANA_NONE : (uint32_t)n;
		if (!c->f[i].excluded)
			c->f[n++] = c->f[i];
	}
	c->nf = n;
	struct sort_job sj = { c, remap };
	err = ana_guard(sort_job, &sj);
	free(remap);
	free(c->hint);
	c->hint = NULL;
	c->nhint = 0;
	if (err) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	cmp_groups(c);
	struct cmp_checks_job cj = { c, k };
	if ((err = ana_guard(checks_job, &cj))) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int compare_checks(const char *a, const char *b, const char *map, int no_metadata,
		   struct cli_checks *k)
{
	struct cmp c;
	int rc;

	memset(&c, 0, sizeof(c));
	memset(k, 0, sizeof(*k));
	c.path[0] = a;
	c.path[1] = b;
	c.map = map;
	c.metadata = map && !no_metadata;
	rc = cmp_run(&c, no_metadata, k);
	cmp_release(&c);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct opt_parser p;
	struct compare_cfg cfg = { 0 };
	struct cmp c;
	struct cli_checks k = { 0 };
	int ch, json, check, err = 0, nargs, ret = EXIT_FAIL;
	long top;
	char **args;

	memset(&c, 0, sizeof(c));
	opt_init_cfg(&p, &compare_cmd, &cfg, argc, argv);
	if ((ch = opt_all(&p)) != OPT_END)
		return ch == OPT_HELP ? EXIT_OK : EXIT_USAGE;
	json = cfg.json;
	check = cfg.check;
	c.map = cfg.map;
	c.metadata = c.map && !cfg.no_metadata;
	top = cfg.top ? (long)cfg.top : -1;	/* -1: all */
	args = opt_args(&p, &nargs);
	if (nargs != 2) {
		opt_error(&compare_cmd, nargs < 2 ? "missing trace (expected A B)" :
			  "too many arguments (expected A B)");
		return EXIT_USAGE;
	}
	c.path[0] = args[0];
	c.path[1] = args[1];
	if (cfg.key && anon_of_trace(cfg.key, c.path[1], &c.anon))
		goto out;
	if ((ret = cmp_run(&c, cfg.no_metadata, &k)) != EXIT_OK)
		goto out;
	ret = EXIT_FAIL;
	if (json)
		err = cmp_json(&c, &k, stdout);
	else
		cmp_text(&c, check ? &k : NULL, top, stdout);
	if (err) {
		cli_error("out of memory");
		goto out;
	}
	ret = check && k.failed ? EXIT_FAIL : EXIT_OK;
	if (check && k.failed) {
		char names[256];
		size_t n = 0;
		names[0] = 0;
		for (size_t i = 0; i < k.n; i++)
			if (!k.v[i].ok && n < sizeof(names))
				n += snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
					      k.v[i].name);
		cli_error("fidelity check failed: %s", names);
	}
out:
	cmp_release(&c);
	return ret;
}
