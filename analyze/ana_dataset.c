/* SPDX-License-Identifier: MIT */
/*
 * ana_dataset.c - the data set: which of the files a job read are its
 * training data, and which are its code (the interpreter's imports, shared
 * libraries) and the system's files (locale, ld.so.cache, /proc, /sys,
 * /dev).  The rule is man/iotape-analyze.1's DATA SET section, and only
 * there; ana_path_is_code and ana_dataset are its two halves.
 *
 * What a file can be (ana_file_kind) is decided on its first read or
 * write, from its path alone, so the syscall pass keeps code out of the
 * epochs and counts the request sizes of the files that may be data, per
 * file (sys.fhist).  Which of those are the data set is decided at the
 * join, from per-file state the passes kept (visits, rounds, bytes read,
 * pages faulted in through a shared mapping, size, path): no pass of its
 * own, and nothing that grows with events.  Then the figures of the data
 * set and of the other files (struct ana_group) are sums over files, and
 * the epochs are finished over the data set: the other files that may be
 * data were read in one round each, so their reads come off their pass.
 */
#include <string.h>
#include "analyze.h"

/* ---------------------------------------------------------------- code */

/* Whether the n bytes at s are the string w. */
static int is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(s, w, n);
}

/* Whether name (a file name) is a Python module or a shared library. */
static int code_name(const char *name)
{
	static const char *const ext[] = { "py", "pyc", "pyo", "pyd", "so", "sh", "bash" };
	const char *dot = strrchr(name, '.'), *v;

	if (!dot)
		return 0;
	for (size_t i = 0; dot > name && i < sizeof(ext) / sizeof(*ext); i++)
		if (!strcmp(dot + 1, ext[i]))
			return 1;
	/* libc.so.6, libfoo.so.1.2.3: digits after the last dot (a data
	 * file's name ends in its kind: out here) */
	for (v = dot + 1; *v; v++)
		if (*v < '0' || *v > '9')
			return 0;
	v = strstr(name, ".so.");
	if (!v || !v[4])
		return 0;
	for (v += 4; *v; v++)
		if ((*v < '0' || *v > '9') && *v != '.')
			return 0;
	return 1;
}

int ana_path_is_code(const char *path)
{
	static const char *const sys[] = { "proc", "sys", "dev", "run", "etc", "usr", "lib",
					   "lib32", "lib64", "libx32", "bin", "sbin", "boot" };
	static const char *const comp[] = { "site-packages", "dist-packages", "__pycache__",
					    "locale", "locale-archive" };
	const char *p = path, *name = path;

	/* the system's directories: programs, libraries, the interpreter's
	 * modules, configuration (ld.so.cache), kernel and device files */
	if (*p == '/') {
		const char *e = strchr(p + 1, '/');
		for (size_t i = 0; e && i < sizeof(sys) / sizeof(*sys); i++)
			if (is(p + 1, (size_t)(e - p - 1), sys[i]))
				return 1;
	}
	/* anywhere: an environment's packages and compiled modules, message
	 * catalogs, an interpreter's library (venv/lib/python3.11/) */
	const char *prev = "";	/* the component before */
	size_t pn = 0;
	for (const char *c = p; *c; ) {
		while (*c == '/')
			c++;
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);
		if (!e)
			name = c;
		for (size_t i = 0; i < sizeof(comp) / sizeof(*comp); i++)
			if (is(c, n, comp[i]))
				return 1;
		if (e && n >= 6 && !memcmp(c, "python", 6) &&
		    (is(prev, pn, "lib") || is(prev, pn, "lib64")))
			return 1;
		prev = c;
		pn = n;
		c += n;
	}
	return code_name(name);
}

/* Whether a path's last component (no '/') makes it code: the checks
 * ana_path_is_code makes of it alone. */
static int name_code(const char *name)
{
	static const char *const comp[] = { "site-packages", "dist-packages", "__pycache__",
					    "locale", "locale-archive" };
	for (size_t i = 0; i < sizeof(comp) / sizeof(*comp); i++)
		if (name[0] == comp[i][0] && !strcmp(name, comp[i]))
			return 1;
	return code_name(name);
}

/* Whether directory d (paths.dirs id) makes the paths in it code: what
 * ana_path_is_code finds in "d/" (the checks of d's components), with
 * ana_opts.under taken off; kept per directory. */
static int dir_code(struct ana *a, uint32_t d)
{
	if (d >= a->ndircode) {
		size_t n = a->ndircode ? a->ndircode : 64;
		while (n <= d)
			n *= 2;
		a->dircode = ana_xrealloc(a->dircode, n);
		memset(a->dircode + a->ndircode, 0, n - a->ndircode);
		a->ndircode = n;
	}
	if (!a->dircode[d]) {
		char b[ANA_PATH_BUF + 1];
		const char *p = cm_strtab_str(&a->paths.dirs, d);
		size_t n = a->o.under ? strlen(a->o.under) : 0;
		if (n && !strncmp(p, a->o.under, n) && (!p[n] || p[n] == '/'))
			p += n;	/* compare's B: the job's path under DIR */
		size_t l = strlen(p);
		memcpy(b, p, l);
		b[l] = '/';
		b[l + 1] = 0;
		a->dircode[d] = ana_path_is_code(b) ? 2 : 1;
	}
	return a->dircode[d] == 2;
}

int ana_file_kind(const struct ana *a, struct ana_file *f)
{
	if (f->kind != ANA_FK_UNKNOWN)
		return f->kind;
	if (f->not_regular || f->anon || ana_path_empty(a, f->path) ||
	    (a->o.files_only && ana_file_excluded(a, f))) {
		f->kind = ANA_FK_NONE;
		return f->kind;
	}
	uint32_t d = ana_path_dir_id(a, f->path);
	if (d != ANA_NONE) {	/* its directory's verdict, then its name's */
		char nb[ANA_PATH_BUF];
		int code = dir_code((struct ana *)a, d) || name_code(ana_path_name(a, f->path, nb));
		f->kind = code ? ANA_FK_CODE : ANA_FK_DATA;
		return f->kind;
	}
	char buf[ANA_PATH_BUF];	/* (a path kept whole: no directory) */
	const char *p = ana_file_path(a, f, buf);
	size_t n = a->o.under ? strlen(a->o.under) : 0;
	if (n && !strncmp(p, a->o.under, n) && p[n] == '/')
		p += n;	/* compare's B: the job's path under DIR */
	f->kind = ana_path_is_code(p) ? ANA_FK_CODE : ANA_FK_DATA;
	return f->kind;
}

/* ------------------------------------------------------------ data set */

/* Pages of f faulted in through its shared mapping (a data file's). */
static uint64_t shared_pages(const struct ana *a, const struct ana_file *f)
{
	return f->shared_map && !f->not_regular ? ana_file_mapped(a, f) : 0;
}

/* Bytes of f the job reached: read, and faulted in through its mapping. */
static uint64_t reached(const struct ana *a, const struct ana_file *f)
{
	return ana_file_read_bytes(a, f) + shared_pages(a, f) * a->page_size;
}

/* Whether f was read again: in a second round (a second pass), through a
 * second open, or more of it read or faulted in than it holds. */
static int read_again(const struct ana *a, const struct ana_file *f)
{
	uint64_t size = ana_file_size(a, f), pages = (size + a->page_size - 1) / a->page_size;
	return f->again || f->visits >= 2 ||
	       (size && (ana_file_read_bytes(a, f) > size || shared_pages(a, f) > pages));
}

/* A file that may be data and was read (or faulted in). */
static int candidate(const struct ana *a, struct ana_file *f)
{
	return ana_file_kind(a, f) == ANA_FK_DATA &&
	       (ana_file_read_bytes(a, f) || shared_pages(a, f));
}

/* Whether path is under the directory dir[0..n) (n 0: "/", everything). */
static int under(const char *path, const char *dir, size_t n)
{
	return !n || (!strncmp(path, dir, n) && path[n] == '/');
}

/*
 * The data directory: the deepest directory under which the files again[]
 * (read again) hold more than half of the bytes they reached (total).  At
 * each level at most one subdirectory can: found by a weighted majority
 * vote (Boyer-Moore), then checked.  The files vote by directory: each
 * directory's files' bytes at once (a file is under a directory, and in
 * which of its subdirectories, by its directory's name alone), a path
 * kept whole by itself; a majority wins whatever the order of the votes.
 * Its length in *len (0: "/"), its name the first *len bytes of dir.
 */
struct voter {
	const char *p;	/* a directory (files in it), or a whole path */
	size_t n;	/* its length */
	int whole;
	uint64_t b;	/* the bytes its files reached */
};

/* Whether v's files are under the directory d[0..dl); where, in *l: the
 * end of the component after d in their paths, 0 for a file in d. */
static int voter_under(const struct voter *v, const char *d, size_t dl, size_t *l)
{
	const char *e;

	if (v->whole) {
		if (!under(v->p, d, dl))
			return 0;
		e = strchr(v->p + dl + 1, '/');
		*l = e ? (size_t)(e - v->p) : 0;
		return 1;
	}
	/* its files' paths are p + "/" + a name without '/' */
	if (dl > v->n || (dl && (memcmp(v->p, d, dl) || (dl < v->n && v->p[dl] != '/'))))
		return 0;
	if (dl == v->n) {
		*l = 0;
		return 1;
	}
	e = memchr(v->p + dl + 1, '/', v->n - dl - 1);
	*l = e ? (size_t)(e - v->p) : v->n;
	return 1;
}

static void data_dir(const struct voter *vs, size_t n, uint64_t total, size_t *len, char *dir)
{
	char cand[ANA_PATH_BUF];
	size_t dl = 0;

	for (;;) {
		size_t cl = 0, l;
		uint64_t w = 0, sum = 0;
		for (size_t i = 0; i < n; i++) {
			const struct voter *v = &vs[i];
			if (!v->b || !voter_under(v, dir, dl, &l))
				continue;
			if (!w) {
				memcpy(cand, v->p, l);
				cl = l;
				w = v->b;
			} else if (l == cl && (!l || !memcmp(v->p, cand, l))) {
				w += v->b;
			} else if (v->b > w) {
				memcpy(cand, v->p, l);
				cl = l;
				w = v->b - w;
			} else {
				w -= v->b;
			}
		}
		if (!cl)
			break;
		for (size_t i = 0; i < n; i++)
			if (voter_under(&vs[i], cand, cl, &l))
				sum += vs[i].b;
		if (2 * sum <= total)
			break;
		memcpy(dir, cand, cl);
		dl = cl;
	}
	*len = dl;
}

/* Decide the data set: files[].dataset, ds_rule, ds_dir, ds_again. */
static void decide(struct ana *a)
{
	size_t nd = cm_strtab_count(&a->paths.dirs);
	uint32_t *again = ana_tmp_calloc(a->nfiles + 1, sizeof(*again));
	uint64_t *dbytes = ana_tmp_calloc(nd + 1, sizeof(*dbytes));
	uint8_t *din = ana_tmp_calloc(nd + 1, 1);
	size_t nagain = 0, ncand = 0, dl = 0, nv = 0, nwhole = 0;
	uint64_t total = 0;
	char dir[ANA_PATH_BUF], buf[ANA_PATH_BUF];

	for (size_t i = 0; i < a->nfiles; i++) {
		struct ana_file *f = &a->files[i];
		if (!candidate(a, f))
			continue;
		ncand++;
		if (read_again(a, f)) {
			again[nagain++] = (uint32_t)i;
			total += reached(a, f);
		}
	}
	a->ds_rule = nagain ? ANA_DS_READ_AGAIN : ncand ? ANA_DS_READ_ONCE : ANA_DS_NONE;
	a->ds_again = nagain;
	if (nagain) {
		/* the voters: the directories, then the paths kept whole */
		for (size_t i = 0; i < nagain; i++) {
			const struct ana_file *f = &a->files[again[i]];
			size_t n;
			if (ana_path_dir(a, f->path, &n))
				dbytes[ana_path_dir_id(a, f->path)] += reached(a, f);
			else
				nwhole++;
		}
		struct voter *vs = ana_tmp_calloc(nd + nwhole + 1, sizeof(*vs));
		for (size_t d = 0; d < nd; d++) {
			if (!dbytes[d])
				continue;
			const char *p = cm_strtab_str(&a->paths.dirs, (uint32_t)d);
			vs[nv++] = (struct voter){ p, strlen(p), 0, dbytes[d] };
		}
		for (size_t i = 0; i < nagain; i++) {
			const struct ana_file *f = &a->files[again[i]];
			size_t n;
			if (ana_path_dir(a, f->path, &n))
				continue;
			const char *p = ana_file_path(a, f, buf);
			vs[nv++] = (struct voter){ p, strlen(p), 1, reached(a, f) };
		}
		data_dir(vs, nv, total, &dl, dir);
		ana_tmp_free(vs);
		for (size_t i = 0; i < nagain; i++)
			a->files[again[i]].dataset = 1;
	}
	/* the directories under the data directory */
	for (size_t d = 0; dl && d < nd; d++) {
		const char *p = cm_strtab_str(&a->paths.dirs, (uint32_t)d);
		size_t n = strlen(p);
		din[d] = n >= dl && !memcmp(p, dir, dl) && (n == dl || p[dl] == '/');
	}
	for (size_t i = 0; ncand && i < a->nfiles; i++) {
		struct ana_file *f = &a->files[i];
		size_t n;
		if (!candidate(a, f))
			continue;
		if (!nagain)
			f->dataset = 1;
		else if (dl && ana_path_dir(a, f->path, &n))
			f->dataset |= din[ana_path_dir_id(a, f->path)];
		else if (dl && under(ana_file_path(a, f, buf), dir, dl))
			f->dataset = 1;
	}
	if (dl) {
		a->ds_dir = ana_xrealloc(NULL, dl + 1);
		memcpy(a->ds_dir, dir, dl);
		a->ds_dir[dl] = 0;
	}
	ana_tmp_free(din);
	ana_tmp_free(dbytes);
	ana_tmp_free(again);
}

/* ------------------------------------------------------------- figures */

/* n reads (key: a size class) or writes (class | 1 << 7) into g. */
static void size_add(struct ana_group *g, uint64_t key, uint64_t n)
{
	(key >> 7 ? g->wr_hist : g->rd_hist)[key & 0x7f] += n;
}

/* The reads of 0 bytes of file i, which may be data and was never read
 * again: all its reads are in its size counts. */
static uint64_t eof_reads(const struct ana *a, size_t i)
{
	const struct ana_file *f = &a->files[i];
	uint64_t *m = cm_map_get(&a->sys.fhist, i, 0), n = m ? *m : 0;
	for (int k = 0; k < 2; k++)
		n += f->hk[k] == 0 ? f->hc[k] : 0;
	return n;
}

static void group_add(const struct ana *a, struct ana_group *g, size_t i)
{
	const struct ana_file *f = &a->files[i];
	const struct ana_fext *x = ana_file_ext(a, f);
	struct ana_pages pg = ana_file_pages(a, i);
	g->files++;
	g->size += ana_file_size(a, f);
	g->read_ops += ana_file_read_ops(a, f);
	g->read_bytes += ana_file_read_bytes(a, f);
	g->write_ops += x->write_ops;
	g->write_bytes += x->write_bytes;
	g->rd_pairs += x->rd_pairs;
	g->rd_nonconsec += x->rd_nonconsec;
	g->rd_seq += x->rd_seq;
	for (int k = 0; k < 4; k++) {
		uint64_t n = x->st_cls[k] + (k ? 0 : f->st_single);
		g->st_cls[k] += n;
		g->streams += n;
	}
	g->pages_accessed += pg.accessed;
	g->pages_missed += pg.missed;
}

/* a->all: what the totals count (compare leaves files out of them);
 * a->ds: the data set's files; a->other: the rest, all less ds. */
static void groups(struct ana *a)
{
	struct ana_group *d = &a->ds, *o = &a->other, *t = &a->all;
	const struct ana_sys *s = &a->sys;

	memset(d, 0, sizeof(*d));
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < a->nfiles; i++) {
		const struct ana_file *f = &a->files[i];
		if (f->dataset)
			group_add(a, d, i);
		if ((ana_file_read_ops(a, f) || ana_file_write_ops(a, f) ||
		     ana_file_pages(a, i).accessed) &&
		    !(a->o.files_only && ana_file_excluded(a, f))) {
			t->files++;
			t->size += ana_file_size(a, f);
		}
	}
	/* request sizes: of the files read again, then the others' per file */
	memcpy(d->rd_hist, s->rd_again, sizeof(d->rd_hist));
	memcpy(d->wr_hist, s->wr_again, sizeof(d->wr_hist));
	for (size_t i = 0; i < a->nfiles; i++)
		for (int k = 0; k < 2 && a->files[i].dataset; k++)
			size_add(d, a->files[i].hk[k], a->files[i].hc[k]);
	CM_MAP_FOR_EACH(&s->fhist, e)
		if (a->files[e->a].dataset)
			size_add(d, e->b, e->v);
	t->read_ops = s->read_ops;
	t->read_bytes = s->read_bytes;
	t->write_ops = s->write_ops;
	t->write_bytes = s->write_bytes;
	t->rd_pairs = s->st_pairs;
	t->rd_nonconsec = s->st_nonconsec;
	t->rd_seq = s->st_seq;
	t->streams = s->st_count;
	memcpy(t->st_cls, s->st_cls, sizeof(t->st_cls));
	memcpy(t->rd_hist, s->rd_hist, sizeof(t->rd_hist));
	memcpy(t->wr_hist, s->wr_hist, sizeof(t->wr_hist));
	t->pages_accessed = a->cache.accessed;
	t->pages_missed = a->cache.missed;
	ana_group_diff(o, t, d);
}

void ana_group_diff(struct ana_group *o, const struct ana_group *t, const struct ana_group *d)
{
	const uint64_t *x = (const uint64_t *)t, *y = (const uint64_t *)d;
	uint64_t *z = (uint64_t *)o;

	for (size_t i = 0; i < sizeof(*o) / sizeof(uint64_t); i++)
		z[i] = x[i] - y[i];
}

/* -------------------------------------------------------------- epochs */

/*
 * The epochs over the data set (iotape-analyze(1), Epochs): the other
 * files' reads come off their pass, each pass keeps the data set's files
 * (their visit order as name ranks, their number), a pass starts with its
 * data set (a later one with its first data-set file read in more than
 * one pass after the middle such visit of the pass before), and the count
 * is the passes from pass 0 up that read at least half as many data-set
 * bytes as pass 0, or as the data set's extents where fewer.  A round
 * undone (epoch_undo, ana_syscall.c) left ANA_NONE in its pass's order.
 */
static void epochs(struct ana *a)
{
	struct ana_sys *s = &a->sys;

	for (size_t i = 0; i < a->nfiles; i++) {
		const struct ana_file *f = &a->files[i];
		if (f->in_round && !f->dataset) {	/* one round: not read again */
			struct ana_epoch *ep = &s->epochs[f->pass];
			ep->bytes -= ana_file_read_bytes(a, f);
			ep->reads -= ana_file_read_ops(a, f) - eof_reads(a, i);
		}
	}
	a->npasses = 0;
	uint64_t mid = 0;	/* the previous pass's middle data-set visit */
	for (size_t e = 0; e < s->nepochs; e++) {
		struct ana_epoch *ep = &s->epochs[e];
		size_t nd = 0, k = 0, n = 0;
		/* (the visits' files come in an order of their own: fetched
		 * ahead) */
#define VISIT_AHEAD(i)                                                           \
	do {                                                                     \
		if ((i) + 16 < ep->norder && ep->order[(i) + 16] != ANA_NONE)    \
			__builtin_prefetch(&a->files[ep->order[(i) + 16]]);      \
	} while (0)
		for (size_t i = 0; i < ep->norder; i++) {
			VISIT_AHEAD(i);
			if (ep->order[i] == ANA_NONE)
				continue;	/* a round undone */
			const struct ana_file *f = &a->files[ep->order[i]];
			nd += f->dataset && f->again;
		}
		uint64_t start = UINT64_MAX, first = UINT64_MAX, m = ep->start_ns, ts = 0;
		for (size_t i = 0, j = 0; i < ep->norder; i++) {
			VISIT_AHEAD(i);
			const struct ana_file *f = ep->order[i] == ANA_NONE ? NULL :
						   &a->files[ep->order[i]];
			ts = ep->dts[i] == ANA_TS_FAR ? ep->far[j++] : ts + (int64_t)ep->dts[i];
			if (!f || !f->dataset)
				continue;
			if (ts < first)
				first = ts;
			ep->order[n++] = ep->order[i];	/* (a rank: ana_epochs_order) */
			if (!f->again)
				continue;
			if (k++ == (nd - 1) / 2)
				m = ts;
			if (e && start == UINT64_MAX && ts >= mid)
				start = ts;
		}
#undef VISIT_AHEAD
		ep->norder = n;
		ep->files = n;
		if (n)
			a->npasses = e + 1;
		if (!e && first != UINT64_MAX)
			ep->start_ns = first;
		if (e && start != UINT64_MAX && start > ep->start_ns)
			ep->start_ns = start < ep->end_ns ? start : ep->end_ns;
		mid = m;
	}
	/* the bytes a pass must read half of: pass 0's, or where fewer the
	 * data set's extents (pass 0 read the files' headers and indexes
	 * too: a tar's, an npz's) */
	uint64_t ref = s->nepochs ? s->epochs[0].bytes : 0, ext = 0;
	for (size_t i = 0; i < a->nfiles; i++)
		if (a->files[i].dataset)
			ext += ana_file_extent(a, i);
	if (ext && ext < ref)
		ref = ext;
	a->nep = 0;
	while (a->nep < a->npasses && ref && 2 * s->epochs[a->nep].bytes >= ref)
		a->nep++;

	/* a data set read through mmap: more bytes faulted in from one of its
	 * files than the counted epochs read */
	uint64_t read = 0;
	a->mmap_file = ANA_NONE;
	a->mmap_bytes = 0;
	for (size_t e = 0; e < a->nep; e++)
		read += s->epochs[e].bytes;
	for (size_t i = 0; i < a->nfiles; i++) {
		uint64_t b = shared_pages(a, &a->files[i]) * a->page_size;
		if (a->files[i].dataset && b > read && b > a->mmap_bytes) {
			a->mmap_bytes = b;
			a->mmap_file = (uint32_t)i;
		}
	}
}

void ana_epochs_order(struct ana *a, const uint32_t *rank)
{
	struct ana_sys *s = &a->sys;

	for (size_t e = 0; e < s->nepochs; e++) {
		struct ana_epoch *ep = &s->epochs[e];
		for (size_t i = 0; i < ep->norder; i++)
			ep->order[i] = rank[ep->order[i]];
		if (e < a->nep)
			ep->order_rand = ana_order_randomness(ep->order, ep->norder, &ep->order_tau);
	}
}

void ana_dataset(struct ana *a)
{
	decide(a);
	groups(a);
	epochs(a);
}
