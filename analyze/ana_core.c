/* SPDX-License-Identifier: MIT */
/*
 * ana_core.c - the analysis driver: opens the trace, fixes the time window,
 * runs the process and file passes (the lookup tables every other pass
 * reads) and the sample pass, then the three event passes (cache and block
 * on a second thread when asked), then joins their results.  Out of memory
 * anywhere in there, ana_run returns -ENOMEM (ana_oom_catch).
 *
 * Invariant: after the sample pass returns and until ana_join, only the
 * syscall pass changes files[]/procs[]/fid_idx/ext (it adds files the
 * file table did not list); the cache and block passes never touch them
 * (the cache pass reads the frozen ident[] and devino index, and keeps
 * its state of the file table's files in its own array by their index).
 */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include "analyze.h"
#include "fstype.h"

/* ------------------------------------------------------------ processes */

struct ana_proc *ana_proc_get(struct ana *a, uint32_t pid)
{
	uint64_t *v = ana_map_put(&a->procmap, pid, 0);
	if (*v == ANA_NONE) {
		*v = (uint32_t)a->nprocs;
		ANA_VEC_GROW(a->procs, a->capprocs, a->nprocs);
		ANA_VEC_CLEAR(a->procs, a->nprocs, a->nprocs);
		a->procs[a->nprocs].pid = pid;
		a->procs[a->nprocs].start_ns = UINT64_MAX;
		a->nprocs++;
	}
	return &a->procs[*v];
}

static struct ana_proc *proc_find(const struct ana *a, uint32_t pid)
{
	uint64_t *v = ana_map_get(&a->procmap, pid, 0);
	return v ? &a->procs[*v] : NULL;
}

int ana_pid_included(struct ana *a, uint32_t pid)
{
	if (!a->o.has_pid || pid == a->o.pid)
		return 1;
	struct ana_proc *p = proc_find(a, pid);
	if (!p)
		return 0;
	if (p->filter)
		return p->filter == 1;
	/* walk up the parents (bounded: the table may hold a cycle) */
	uint32_t cur = p->ppid;
	int in = 0;
	for (int depth = 0; depth < 256 && cur; depth++) {
		if (cur == a->o.pid) {
			in = 1;
			break;
		}
		struct ana_proc *q = proc_find(a, cur);
		if (!q || q->ppid == cur)
			break;
		if (q->filter) {
			in = q->filter == 1;
			break;
		}
		cur = q->ppid;
	}
	p->filter = in ? 1 : 2;
	return in;
}

int ana_pass_process(struct ana *a)
{
	tape_cursor *c;
	int err = ana_cursor_open(a->r, TAPE_TABLE_PROCESS, 0, UINT64_MAX, &c);
	if (err)
		return err;
	const void *evs;
	size_t n;
	while ((err = tape_cursor_next_block(c, &evs, &n)) > 0) {
		const struct tape_process *e = evs;
		for (size_t i = 0; i < n; i++, e++) {
			if (ANA_HOST_SKIP(a, TAPE_TABLE_PROCESS, e))
				continue;
			struct ana_proc *p = ana_proc_get(a, e->pid);
			int main_thread = e->tid == e->pid || e->tid == 0;
			if (main_thread || !p->ppid)
				p->ppid = e->ppid;
			if (e->comm && *e->comm && (main_thread || !p->comm)) {
				free(p->comm);
				p->comm = ana_xstrdup(e->comm);
			}
			if (e->argv && *e->argv && (main_thread || !p->argv)) {
				free(p->argv);
				p->argv = ana_xstrdup(e->argv);
			}
			if (e->ts_ns < p->start_ns)
				p->start_ns = e->ts_ns;
			if (main_thread && e->end_ns)
				p->end_ns = e->end_ns;
		}
	}
	if (err < 0)
		ana_note_damage(a, TAPE_TABLE_PROCESS, err);
	ana_cursor_free(c);
	return 0;
}

/* ---------------------------------------------------------------- files */

/*
 * (dev, inode) -> files[]: open addressing over files[] indexes, keyed by
 * their ident; a key put again goes to the file put last (as a map's
 * value would).  With devino_tag (files[] indexes below 2^24 - 1), a
 * slot holds the top 8 bits of its key's hash above the index, and only a
 * slot whose tag matches costs a look at its file's ident.  A file whose
 * ident a later row of the file table changed leaves its old key in
 * devino_old.
 */
static inline uint64_t devino_hash(uint64_t dev, uint64_t ino)
{
	uint64_t x = (dev ^ (ino * 0xc2b2ae3d27d4eb4full)) * 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29) ^ (x >> 47);	/* (cm_map_slot's, unmasked) */
}

static inline uint32_t devino_tag(const struct ana *a, uint64_t h)
{
	return a->devino_tag ? (uint32_t)(h >> 56) << 24 : 0;
}

/* The slot of (dev, ino): its file's, or the empty one it would take. */
static uint32_t *devino_find(const struct ana *a, uint64_t dev, uint64_t ino)
{
	uint64_t h = devino_hash(dev, ino);
	uint32_t tag = devino_tag(a, h), tm = a->devino_tag ? 0xff000000u : 0;
	size_t mask = a->capdevino - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		uint32_t *v = &a->devino[i];
		if (*v == ANA_NONE)
			return v;
		if ((*v & tm) != tag)
			continue;
		struct ana_ident id = ana_file_ident(a, ana_devino_file(a, *v));
		if (id.inode == ino && id.dev == dev)
			return v;
	}
}

static void devino_put(struct ana *a, uint64_t dev, uint64_t ino, uint32_t f)
{
	if ((a->ndevino + 1) * 4 > a->capdevino * 3) {
		size_t oc = a->capdevino, nc = oc ? oc * 2 : 1024;
		uint32_t *old = a->devino;
		a->devino = ana_xrealloc(NULL, nc * sizeof(*a->devino));
		memset(a->devino, 0xff, nc * sizeof(*a->devino));
		a->capdevino = nc;
		for (size_t i = 0; i < oc; i++)
			if (old[i] != ANA_NONE) {
				struct ana_ident id = ana_file_ident(a, ana_devino_file(a, old[i]));
				*devino_find(a, id.dev, id.inode) = old[i];
			}
		free(old);
	}
	uint32_t *v = devino_find(a, dev, ino);
	a->ndevino += *v == ANA_NONE;
	*v = f | devino_tag(a, devino_hash(dev, ino));
}

/* Remove a slot's file (linear probing: the files after it that it kept
 * from their place move back). */
static void devino_del(struct ana *a, uint32_t *slot)
{
	size_t mask = a->capdevino - 1, i = (size_t)(slot - a->devino), j = i;

	a->devino[i] = ANA_NONE;
	a->ndevino--;
	for (;;) {
		j = (j + 1) & mask;
		uint32_t v = a->devino[j];
		if (v == ANA_NONE)
			return;
		struct ana_ident id = ana_file_ident(a, ana_devino_file(a, v));
		size_t k = devino_hash(id.dev, id.inode) & mask;
		/* its home k is not in (i, j] (cyclically): it moves to i */
		if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
			a->devino[i] = v;
			a->devino[j] = ANA_NONE;
			i = j;
		}
	}
}

/* Identities [nident, n) made, zero. */
static void ident_grow(struct ana *a, size_t n)
{
	if (n <= a->nident)
		return;
	if (a->identw) {
		ANA_VEC_GROW(a->identw, a->capident, n - 1);
		ANA_VEC_CLEAR(a->identw, a->nident, n - 1);
	} else {
		ANA_VEC_GROW(a->ident, a->capident, n - 1);
		ANA_VEC_CLEAR(a->ident, a->nident, n - 1);
	}
	a->nident = n;
}

/* dev's index in devs[] (added when new), 0 for dev 0; -1 when there are
 * as many as an identity's bits can say */
static int64_t dev_index(struct ana *a, uint64_t dev)
{
	if (!dev)
		return 0;
	if (a->dev_last < a->ndevs && a->devs[a->dev_last] == dev)
		return (int64_t)a->dev_last;
	for (size_t d = 1; d < a->ndevs; d++)
		if (a->devs[d] == dev)
			return (int64_t)(a->dev_last = d);
	if (a->ndevs >= (1u << (64 - ANA_IDENT_INO_BITS)) - 1)
		return -1;
	if (!a->ndevs) {
		a->devs = ana_xrealloc(NULL, (1u << (64 - ANA_IDENT_INO_BITS)) * sizeof(*a->devs));
		a->devs[a->ndevs++] = 0;
	}
	a->devs[a->ndevs] = dev;
	return (int64_t)(a->dev_last = a->ndevs++);
}

/* files[i]'s identity (i < nident): packed while it fits, else every
 * identity from then on in identw. */
static void ident_set(struct ana *a, size_t i, uint64_t dev, uint64_t ino)
{
	if (!a->identw) {
		int64_t d = ino >> ANA_IDENT_INO_BITS ? -1 : dev_index(a, dev);
		if (d >= 0) {
			a->ident[i] = (uint64_t)d << ANA_IDENT_INO_BITS | ino;
			return;
		}
		struct ana_ident *w = ana_xcalloc(a->capident ? a->capident : 1, sizeof(*w));
		for (size_t j = 0; j < a->nident; j++)
			w[j] = ana_file_ident(a, j);
		a->identw = w;
		free(a->ident);
		a->ident = NULL;
	}
	a->identw[i] = (struct ana_ident){ dev, ino };
}

uint32_t ana_file_by_devino(const struct ana *a, uint64_t dev, uint64_t ino)
{
	if (!ino)
		return ANA_NONE;
	if (a->capdevino) {
		uint32_t v = *devino_find(a, dev, ino);
		if (v != ANA_NONE)
			return ana_devino_file(a, v);
	}
	uint64_t *m = a->devino_old.n ? cm_map_get(&a->devino_old, dev, ino) : NULL;
	return m ? (uint32_t)*m : ANA_NONE;
}

const uint32_t *ana_devino_home(const struct ana *a, uint64_t dev, uint64_t ino)
{
	return &a->devino[devino_hash(dev, ino) & (a->capdevino - 1)];
}

const struct ana_fext ana_fext_none;

struct ana_fext *ana_file_ext_get(struct ana *a, struct ana_file *f)
{
	if (!f->ext) {
		ANA_VEC_GROW(a->ext, a->capext, a->next);
		ANA_VEC_CLEAR(a->ext, a->next, a->next);
		f->ext = (uint32_t)++a->next;
	}
	return &a->ext[f->ext - 1];
}

void ana_file_fw_wide(struct ana *a, struct ana_file *f, int k, uint64_t v)
{
	if (!f->wide) {
		struct ana_fext *x = ana_file_ext_get(a, f);
		ANA_VEC_GROW(a->wides, a->capwides, a->nwides);
		for (int j = 0; j < ANA_FW_N; j++)
			a->wides[a->nwides].v[j] = f->fw[j];
		x->wide = (uint32_t)++a->nwides;
		f->wide = 1;
	}
	a->wides[a->ext[f->ext - 1].wide - 1].v[k] = v;
}

void ana_file_fid_put(struct ana *a, size_t i, uint64_t id)
{
	if (!a->fids) {
		if (id == (uint64_t)i + 1)
			return;
		size_t n = a->nfiles > i ? a->nfiles : i + 1;
		ANA_VEC_GROW(a->fids, a->capfids, n - 1);
		for (size_t j = 0; j < n; j++)
			a->fids[j] = j + 1;
	}
	ANA_VEC_GROW(a->fids, a->capfids, i);
	a->fids[i] = id;
}

void ana_file_id_set(struct ana *a, uint64_t file_id, uint32_t f)
{
	uint64_t *m = NULL;
	uint32_t *v;

	if (file_id == a->fid_implied + 1 && f == a->fid_implied && !a->fid_idx.n &&
	    !a->fileid_map.n) {
		a->fid_implied++;	/* the next of 1, 2, 3, ... */
		return;
	}
	if (a->fid_implied) {	/* the ids so far into the index */
		size_t rows = a->st[TAPE_TABLE_FILE].events;
		ana_idx_reserve(&a->fid_idx, (rows > a->fid_implied ? rows : a->fid_implied) + 2);
		for (size_t k = 0; k < a->fid_implied; k++)
			a->fid_idx.v[k + 1] = (uint32_t)k;
		a->fid_implied = 0;
	}
	/* an id stored in the map before the dense index reached it stays
	 * there: an id is in one of the two */
	if (ana_idx_get(&a->fid_idx, file_id) == ANA_NONE && a->fileid_map.n)
		m = cm_map_get(&a->fileid_map, file_id, 0);
	if (!m && (v = ana_idx_put(&a->fid_idx, file_id, ANA_IDX_LIMIT(a->nfiles)))) {
		*v = f;
		return;
	}
	*(m ? m : ana_map_put(&a->fileid_map, file_id, 0)) = f;
}

const char *ana_file_label(const struct ana *a, const struct ana_file *f, char *buf)
{
	const size_t len = ANA_PATH_BUF;
	size_t i = (size_t)(f - a->files);
	if (f->path)
		return ana_path_str(a, f->path, buf);
	struct ana_ident id = ana_file_ident(a, i);
	if (id.inode)
		snprintf(buf, len, "[dev %llu:%llu inode %llu]",
			 (unsigned long long)(id.dev >> 20),
			 (unsigned long long)(id.dev & 0xfffff),
			 (unsigned long long)id.inode);
	else if (ana_file_fid(a, i))
		snprintf(buf, len, "[file id %llu]", (unsigned long long)ana_file_fid(a, i));
	else
		snprintf(buf, len, "[unknown]");
	return buf;
}

int ana_pass_file(struct ana *a)
{
	tape_cursor *c;
	int err = ana_cursor_open(a->r, TAPE_TABLE_FILE, 0, UINT64_MAX, &c);
	if (err)
		return err;
	if (a->o.threads > 1)	/* (the blocks decoded on a thread of their own) */
		(void)tape_cursor_set_readahead(c);
	/* room for every row: files[] is not copied as it grows */
	size_t rows = a->st[TAPE_TABLE_FILE].events;
	if (rows) {
		ANA_VEC_GROW_LINES(a->files, a->capfiles, rows);
		ANA_VEC_GROW(a->ident, a->capident, rows);	/* (none wide yet) */
		if (a->o.threads > 1) {	/* (1.28 M files: 90 MB to clear) */
			ana_prefault(a->files, rows * sizeof(*a->files));
			ana_prefault(a->ident, rows * sizeof(*a->ident));
		}
		size_t cap = 1024;
		while (cap * 3 < rows * 4)
			cap *= 2;
		a->devino = ana_xrealloc(NULL, cap * sizeof(*a->devino));
		memset(a->devino, 0xff, cap * sizeof(*a->devino));
		a->capdevino = cap;
		a->devino_tag = rows < 0xffffffu;
	}
	const void *evs;
	size_t n;
	uint64_t fs_last = 0;
	int fs_mem = 0;
	while ((err = tape_cursor_next_block(c, &evs, &n)) > 0) {
		const struct tape_file *e0 = evs, *e = e0;
		for (size_t i = 0; i < n; i++, e++) {
			/* the devino slot a row 8 ahead goes to (a miss each) */
			if (i + 8 < n && e0[i + 8].inode && a->capdevino)
				__builtin_prefetch(ana_devino_home(a, e0[i + 8].dev, e0[i + 8].inode));
			if (ANA_HOST_SKIP(a, TAPE_TABLE_FILE, e))
				continue;
			uint32_t v = ana_file_id_lookup(a, e->file_id);
			if (v == ANA_NONE) {
				v = (uint32_t)a->nfiles;
				ana_file_id_set(a, e->file_id, v);
				ANA_VEC_GROW_LINES(a->files, a->capfiles, a->nfiles);
				ANA_VEC_CLEAR(a->files, a->nfiles, a->nfiles);
				ident_grow(a, a->nfiles + 1);
				a->nfiles++;
				ana_file_fid_put(a, v, e->file_id);
			}
			struct ana_file *f = &a->files[v];
			struct ana_ident id = ana_file_ident(a, v);
			if (id.inode && (id.dev != e->dev || id.inode != e->inode) &&
			    a->capdevino && *devino_find(a, id.dev, id.inode) != ANA_NONE &&
			    ana_devino_file(a, *devino_find(a, id.dev, id.inode)) == v) {
				/* its old key still finds it, as a map's would */
				devino_del(a, devino_find(a, id.dev, id.inode));
				*ana_map_put(&a->devino_old, id.dev, id.inode) = v;
			}
			ident_set(a, v, e->dev, e->inode);
			ana_file_fw_set(a, f, ANA_FW_SIZE, e->size);
			f->from_table = 1;
			/* sockets come without a mode and without a path */
			f->not_regular = e->mode ? !S_ISREG(e->mode) : !e->path || !*e->path;
			f->dir = S_ISDIR(e->mode);
			if (e->fstype != fs_last) {	/* (rows of one file system come together) */
				fs_last = e->fstype;
				fs_mem = fs_last && cm_fstype_is_memory(fs_last);
			}
			f->memfs = fs_mem;
			if (e->path && *e->path)
				f->path = ana_path_add(a, e->path);
			if (e->inode) {
				devino_put(a, e->dev, e->inode, v);
				if (a->devino_old.n)
					cm_map_del(&a->devino_old, e->dev, e->inode, NULL);
			}
			f->kind = ANA_FK_UNKNOWN;	/* its path, now while it is at hand */
			f->excl = 0;
			ana_file_kind(a, f);
		}
	}
	if (err < 0)
		ana_note_damage(a, TAPE_TABLE_FILE, err);
	ana_cursor_free(c);
	a->nfiles_table = a->nfiles;
	return 0;
}

/* ------------------------------------------------------------------ run */

struct side_job {
	struct ana *a;
	int err;
};

static void *side_main(void *arg)
{
	struct side_job *j = arg;
	tape_reader *volatile r = NULL;
	jmp_buf jb;
	if (setjmp(jb)) {	/* out of memory */
		ana_oom_catch(NULL);
		ana_oom_cleanup();
		tape_reader_free(r);
		j->err = -ENOMEM;
		return NULL;
	}
	ana_oom_catch(&jb);
	tape_reader *rr;
	j->err = tape_reader_open(&rr, j->a->path);
	if (!j->err) {
		r = rr;
		j->err = ana_pass_cache(j->a, r);
		if (!j->err)
			j->err = ana_pass_block(j->a, r);
		tape_reader_free(r);
	}
	ana_oom_catch(NULL);
	return NULL;
}

static const int event_tables[] = { TAPE_TABLE_SYSCALL, TAPE_TABLE_BLOCK,
				    TAPE_TABLE_CACHE, TAPE_TABLE_SAMPLE };

static int run_passes(struct ana *a);

/* A host's window in a merged trace, from its metadata (iotape merge),
 * which also becomes the event tables' window (trace_end reads it): 0,
 * or -1 when the trace does not have that host. */
static int host_window(struct ana *a, uint64_t *start, uint64_t *end)
{
	char k[64];
	const char *lo, *hi;

	if (a->o.host >= tape_reader_hosts(a->r))
		return -1;
	snprintf(k, sizeof(k), "host.%u.t_min", a->o.host);
	lo = tape_reader_meta(a->r, k);
	snprintf(k, sizeof(k), "host.%u.t_max", a->o.host);
	hi = tape_reader_meta(a->r, k);
	*start = lo ? strtoull(lo, NULL, 10) : 0;	/* none: a host without events */
	*end = hi ? strtoull(hi, NULL, 10) : *start;
	if (*end < *start)
		*end = *start;
	for (size_t i = 0; i < sizeof(event_tables) / sizeof(*event_tables); i++) {
		struct tape_table_stats *s = &a->st[event_tables[i]];
		if (s->events) {
			s->t_min = *start;
			s->t_max = *end;
		}
	}
	return 0;
}

int ana_hosts(struct ana *a)
{
	unsigned n = tape_reader_hosts(a->r);
	struct ana_opts o = a->o;

	if (!n || a->o.has_pid || a->o.has_host)
		return 0;
	if (!(a->hosts = calloc(n, sizeof(*a->hosts))))
		return -ENOMEM;
	o.has_host = 1;
	for (unsigned h = 0; h < n; h++) {
		o.host = h;
		a->nhosts = h + 1;	/* ana_release frees what ana_run made */
		int err = ana_run(&a->hosts[h], a->path, &o);
		if (err)
			return err;
	}
	return 0;
}

int ana_run(struct ana *a, const char *path, const struct ana_opts *o)
{
	/* Blocks of 128 KiB and more mapped, and given back when freed:
	 * glibc's default raises that bound to the largest block freed (the
	 * latency samples', 4 MiB), after which the blocks freed below it
	 * stay in the heap, resident (20 MiB of an ImageNet job's peak). */
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	memset(a, 0, sizeof(*a));
	a->mmap_file = ANA_NONE;
	a->o = *o;
	a->path = path;
	int err = tape_reader_open(&a->r, path);
	if (err)
		return err;
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		tape_reader_table_stats(a->r, t, &a->st[t]);
	const char *ps = tape_reader_meta(a->r, "page_size");
	a->page_size = ps ? strtoull(ps, NULL, 10) : 0;
	if (a->page_size < 512 || (a->page_size & (a->page_size - 1)))
		a->page_size = 4096;

	/* Trace start: the first event of an event table (process and file
	 * rows carry start times that can predate the recording). */
	uint64_t start = UINT64_MAX, end = 0;
	for (size_t i = 0; i < sizeof(event_tables) / sizeof(*event_tables); i++) {
		const struct tape_table_stats *s = &a->st[event_tables[i]];
		if (!s->events)
			continue;
		if (s->t_min < start)
			start = s->t_min;
		if (s->t_max > end)
			end = s->t_max;
	}
	if (start == UINT64_MAX)
		start = end = 0;
	if (o->has_host && host_window(a, &start, &end))
		return -EINVAL;
	a->t0 = start + o->from_ns;
	a->t1 = o->to_ns == UINT64_MAX || start + o->to_ns < start ? UINT64_MAX
								  : start + o->to_ns;
	uint64_t span = (a->t1 < end ? a->t1 : end) - (a->t0 < end ? a->t0 : end);
	a->bucket_ns = 1000000000ull;
	while (span / a->bucket_ns > 100000)	/* keep the timeline <= 100k rows */
		a->bucket_ns *= 2;
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		a->have[t] = a->st[t].events > 0;

	return run_passes(a);
}

/* The passes and the join, under this thread's out-of-memory catch point:
 * -ENOMEM leaves a whose ana_release frees what was built. */
/* The name ranks, on a thread of their own beside the trainer's pass
 * (they read only the files' paths, which are final then). */
struct rank_job {
	struct ana *a;
	uint32_t *rank, *sorder;
	int err;
};

static void *rank_main(void *arg)
{
	struct rank_job *j = arg;
	jmp_buf jb;

	if (setjmp(jb)) {	/* out of memory */
		ana_oom_catch(NULL);
		ana_oom_cleanup();
		j->err = -ENOMEM;
		return NULL;
	}
	ana_oom_catch(&jb);
	j->rank = ana_xcalloc(j->a->nfiles + 1, sizeof(*j->rank));
	ana_name_ranks(j->a, j->rank);
	/* the epochs' orders as ranks, beside the
	 * trainer's pass too (it reads neither: the epochs' start times) */
	ana_join_ranks(j->a, j->rank);
	if (j->a->o.json || j->a->o.per_file || j->a->o.path_order) {
		/* the files in strcmp order of their paths, for the outputs
		 * that list staging's files (ana_stage_rank), or the caller */
		uint32_t *o = ana_xcalloc(j->a->nfiles + 1, sizeof(*o));
		j->sorder = o;
		ana_path_sort_all(j->a, o, 0);
	}
	ana_oom_catch(NULL);
	return NULL;
}

static int run_passes(struct ana *a)
{
	pthread_t th, rth;
	struct side_job j = { .a = a };
	struct rank_job rj = { .a = a };
	volatile int side = 0, rside = 0;
	jmp_buf jb;
	int err;

	if (setjmp(jb)) {
		ana_oom_catch(NULL);
		ana_oom_cleanup();
		if (side)
			pthread_join(th, NULL);
		if (rside)
			pthread_join(rth, NULL);
		free(rj.rank);
		free(rj.sorder);
		return -ENOMEM;
	}
	ana_oom_catch(&jb);
	if ((err = ana_pass_process(a)) || (err = ana_pass_file(a)))
		goto out;
	/* Decide --pid for every known process now: the passes only read. */
	for (size_t i = 0; i < a->nprocs; i++)
		ana_pid_included(a, a->procs[i].pid);
	if ((err = ana_pass_sample(a)) || (err = ana_cache_prepare(a)))
		goto out;

	if (a->o.threads > 1 && pthread_create(&th, NULL, side_main, &j) == 0) {
		side = 1;
		err = ana_pass_syscall(a, a->r);
		pthread_join(th, NULL);
		side = 0;
		if (!err)
			err = j.err;
	} else {
		if (!(err = ana_pass_syscall(a, a->r)) && !(err = ana_pass_cache(a, a->r)))
			err = ana_pass_block(a, a->r);
	}
	if (err)
		goto out;
	ana_join(a);
	if (a->o.threads > 1 && pthread_create(&rth, NULL, rank_main, &rj) == 0) {
		rside = 1;
		err = a->o.no_train ? 0 : ana_train(a);
		pthread_join(rth, NULL);
		rside = 0;
	} else {
		rank_main(&rj);
		ana_oom_catch(&jb);	/* (rank_main left this thread without) */
		err = a->o.no_train ? 0 : ana_train(a);
	}
	if (!err && !(err = rj.err)) {
		a->sorder = rj.sorder;
		rj.sorder = NULL;
		a->name_rank = rj.rank;
		rj.rank = NULL;
	}
	free(rj.rank);
	free(rj.sorder);
out:
	ana_oom_catch(NULL);
	return err;
}

void ana_note_damage(struct ana *a, int table, int err)
{
	const char *d = tape_error_detail();
	a->damage[table] = err;
	free(a->damage_detail[table]);
	a->damage_detail[table] = ana_xstrdup(d && *d ? d : tape_strerror(err));
}

/* ----------------------------------------------------------------- join */

void ana_file_pages_prefetch(const struct ana *a, size_t i)
{
	if (i >= a->npages)
		return;
	if (a->pages)
		__builtin_prefetch(&a->pages[i]);
	else
		__builtin_prefetch(&a->pages32[2 * i]);
}

/* a->pages32 into 64-bit a->pages (a figure outgrew 32 bits) */
static void pages_widen(struct ana *a)
{
	struct ana_pages *w = ana_xcalloc(a->npages + 1, sizeof(*w));
	for (size_t i = 0; i < a->npages; i++)
		w[i] = (struct ana_pages){ a->pages32[2 * i], a->pages32[2 * i + 1] };
	free(a->pages32);
	a->pages32 = NULL;
	a->pages = w;
}

/* The files of the cache pass's whole states: those of the file table by
 * index, the others by dev and inode, else by file id, else as new files,
 * in the order they came (fis[]). */
static void cache_files(struct ana *a, uint32_t *fis)
{
	struct ana_cache *c = &a->cache;
	for (size_t i = 0; i < c->nf; i++) {
		struct ana_cfile *cf = &c->f[i];
		uint32_t fi = cf->fi;
		if (fi == ANA_NONE)
			fi = ana_file_by_devino(a, cf->dev, cf->inode);
		if (fi == ANA_NONE)
			fi = ana_file_by_id(a, cf->file_id);
		if (fi == ANA_NONE) {
			fi = (uint32_t)a->nfiles;
			ANA_VEC_GROW_LINES(a->files, a->capfiles, a->nfiles);
			ANA_VEC_CLEAR(a->files, a->nfiles, a->nfiles);
			a->nfiles++;
			ident_grow(a, (size_t)fi + 1);
			ident_set(a, fi, cf->dev, cf->inode);
			ana_file_fid_put(a, fi, cf->file_id);
		}
		fis[i] = fi;
	}
}

/*
 * The cache pass's figures onto files (a->pages32, and the pages faulted
 * in in their ext): the compact states of the file table's files as the
 * pass left them (ana_cache_compact: 8 bytes a file), then the whole ones
 * (cache_files); 64 bits a figure (a->pages) once one does not fit in 32.
 */
static void join_cache(struct ana *a)
{
	struct ana_cache *c = &a->cache;

	ana_cache_compact(c);	/* (where the pass did not) */
	size_t n0 = c->npg;
	for (size_t i = 0; i < n0; i++)
		if (c->touched[i / 8] >> (i % 8) & 1)
			a->files[i].has_cache = 1;
	free(c->touched);
	c->touched = NULL;
	uint32_t *fis = ana_tmp_calloc(c->nf + 1, sizeof(*fis));
	cache_files(a, fis);
	if (!n0 && !c->nf) {
		ana_tmp_free(fis);
		return;
	}
	/* (the tmp list does not hold pg: a failed grow leaves it to c) */
	uint32_t *pg = ana_xrealloc(c->pg32, 2 * (a->nfiles + 1) * sizeof(*pg));
	c->pg32 = NULL;
	c->npg = 0;
	memset(pg + 2 * n0, 0, 2 * (a->nfiles + 1 - n0) * sizeof(*pg));
	a->pages32 = pg;
	a->npages = a->nfiles;
	for (size_t i = 0; i < c->nf; i++) {
		struct ana_cfile *cf = &c->f[i];
		struct ana_file *f = &a->files[fis[i]];
		struct ana_pages p = ana_file_pages(a, fis[i]);
		f->has_cache = 1;
		p.accessed += cf->accessed;
		p.missed += cf->missed;
		if (!a->pages && (p.accessed > UINT32_MAX || p.missed > UINT32_MAX))
			pages_widen(a);
		if (a->pages) {
			a->pages[fis[i]] = p;
		} else {
			a->pages32[2 * fis[i]] = (uint32_t)p.accessed;
			a->pages32[2 * fis[i] + 1] = (uint32_t)p.missed;
		}
		if (cf->mapped || cf->mapped_missed) {
			struct ana_fext *x = ana_file_ext_get(a, f);
			x->mapped += cf->mapped;
			x->mapped_missed += cf->mapped_missed;
		}
	}
	ana_tmp_free(fis);
}

void ana_release_lookup(struct ana *a)
{
	free(a->devino);
	a->devino = NULL;
	a->capdevino = a->ndevino = 0;
	cm_map_release(&a->devino_old);
}

void ana_join(struct ana *a)
{
	/* timeline */
	size_t n = a->ntl_sys;
	if (a->ntl_cache > n) n = a->ntl_cache;
	if (a->ntl_blk > n) n = a->ntl_blk;
	a->tl = ana_xcalloc(n, sizeof(*a->tl));
	a->ntl = n;
	for (size_t i = 0; i < n; i++) {
		struct ana_bucket *b = &a->tl[i];
		if (i < a->ntl_sys) {
			*b = a->tl_sys[i];
		}
		if (i < a->ntl_cache) {
			b->pages_accessed = a->tl_cache[i].pages_accessed;
			b->pages_missed = a->tl_cache[i].pages_missed;
		}
		if (i < a->ntl_blk) {
			b->blk_read_bytes = a->tl_blk[i].blk_read_bytes;
			b->blk_write_bytes = a->tl_blk[i].blk_write_bytes;
			b->blk_busy_ns = a->tl_blk[i].blk_busy_ns;
			b->blk_reqs = a->tl_blk[i].blk_reqs;
		}
	}

	join_cache(a);

	/* threads onto processes */
	for (size_t i = 0; i < a->sys.nthreads; i++) {
		struct ana_thread *t = &a->sys.threads[i];
		struct ana_proc *p = ana_proc_get(a, t->pid);
		p->threads++;
		p->seen = 1;
		p->io_ns += t->io_ns;
		p->read_ops += t->read_ops;
		p->read_bytes += t->read_bytes;
		p->write_ops += t->write_ops;
		p->write_bytes += t->write_bytes;
	}

	/* the data set, its figures and the other files', its epochs (their
	 * visit orders as name ranks: ana_join_ranks) */
	ana_dataset(a);
	ana_ckpt_find(a);

	for (int op = 0; op < TAPE_OP_MAX; op++)
		cm_lat_finish(&a->sys.lat[op]);
	cm_lat_finish(&a->blk.lat);
	cm_lat_finish(&a->blk.rlat);
	cm_lat_finish(&a->blk.wlat);
}

/* The name ranks (natural order of the paths): the epochs' visit orders
 * as ranks and their randomness (a->name_rank becomes rank once the
 * trainer's pass beside it is done). */
void ana_join_ranks(struct ana *a, const uint32_t *rank)
{
	ana_epochs_order(a, rank);
}

/* -------------------------------------------------------------- metrics */

double ana_read_randomness(const struct ana *a)
{
	uint64_t pairs = a->sys.st_pairs;
	return pairs ? (double)a->sys.st_nonconsec / (double)pairs : NAN;
}

double ana_seq_read_fraction(const struct ana *a)
{
	uint64_t pairs = a->sys.st_pairs;
	return pairs ? (double)a->sys.st_seq / (double)pairs : NAN;
}

double ana_file_order_randomness(const struct ana *a, double *tau)
{
	if (!a->nep || !ana_epochs_known(a)) {
		if (tau)
			*tau = NAN;
		return NAN;
	}
	if (tau)
		*tau = a->sys.epochs[0].order_tau;
	return a->sys.epochs[0].order_rand;
}

double ana_hit_ratio(uint64_t accessed, uint64_t missed)
{
	if (!accessed)
		return NAN;
	double h = 1.0 - (double)missed / (double)accessed;
	return h < 0 ? 0 : h > 1 ? 1 : h;
}

double ana_group_randomness(const struct ana_group *g)
{
	return g->rd_pairs ? (double)g->rd_nonconsec / (double)g->rd_pairs : NAN;
}

double ana_group_seq_fraction(const struct ana_group *g)
{
	return g->rd_pairs ? (double)g->rd_seq / (double)g->rd_pairs : NAN;
}

size_t ana_epoch_count(const struct ana *a)
{
	return a->nep;
}

int ana_epochs_known(const struct ana *a)
{
	return a->ds_rule != ANA_DS_NONE && a->mmap_file == ANA_NONE;
}

uint32_t ana_mmap_dataset(const struct ana *a, uint64_t *bytes)
{
	*bytes = a->mmap_bytes;
	return a->mmap_file;
}

int ana_stream_class(const struct ana_stream *s)
{
	if (!s->pairs)
		return 0;
	uint64_t pairs = s->pairs;
	if (s->nonconsec * 10 <= pairs)
		return 1;	/* >= 90 % consecutive */
	if (pairs >= 2 && s->same_stride * 10 >= (pairs - 1) * 9)
		return 2;	/* >= 90 % repeat the previous stride */
	return 3;
}

/* -------------------------------------------------------------- release */

void ana_release_files(struct ana *a)
{
	free(a->files);
	a->files = NULL;
	free(a->sorder);
	a->sorder = NULL;
	a->nfiles = a->capfiles = a->nfiles_table = 0;
	ana_paths_release(&a->paths);
	free(a->dircode);
	a->dircode = NULL;
	a->ndircode = 0;
	free(a->ext);
	a->ext = NULL;
	a->next = a->capext = 0;
	free(a->wides);
	a->wides = NULL;
	a->nwides = a->capwides = 0;
	free(a->fids);
	a->fids = NULL;
	a->capfids = 0;
	free(a->name_rank);
	a->name_rank = NULL;
	free(a->ident);
	a->ident = NULL;
	free(a->identw);
	a->identw = NULL;
	a->nident = a->capident = 0;
	free(a->devs);
	a->devs = NULL;
	a->ndevs = a->dev_last = 0;
	free(a->pages);
	a->pages = NULL;
	free(a->pages32);
	a->pages32 = NULL;
	a->npages = 0;
	free(a->devino);
	a->devino = NULL;
	a->capdevino = a->ndevino = 0;
	a->devino_tag = 0;
	cm_map_release(&a->devino_old);
	cm_map_release(&a->fileid_map);
	ana_idx_release(&a->fid_idx);
	a->fid_implied = 0;
	ana_pidx_release(&a->pidx);
	a->path_map_built = 0;
	for (size_t e = 0; e < a->sys.nepochs; e++) {
		struct ana_epoch *ep = &a->sys.epochs[e];
		free(ep->order);
		free(ep->dts);
		free(ep->far);
		ep->order = NULL;
		ep->dts = NULL;
		ep->far = NULL;
		ep->norder = ep->cap = ep->nfar = ep->capfar = 0;
	}
	free(a->sys.sketches);
	a->sys.sketches = NULL;
	a->sys.nsketches = a->sys.capsketches = 0;
	cm_map_release(&a->sys.sketchmap);
	cm_map_release(&a->sys.fhist);
	ana_cache_release(&a->cache);
}

void ana_release(struct ana *a)
{
	for (size_t i = 0; i < a->nprocs; i++) {
		free(a->procs[i].comm);
		free(a->procs[i].argv);
	}
	free(a->procs);
	free(a->files);
	free(a->sorder);
	ana_paths_release(&a->paths);
	free(a->dircode);
	free(a->ext);
	free(a->wides);
	free(a->fids);
	free(a->name_rank);
	free(a->ident);
	free(a->identw);
	free(a->devs);
	free(a->pages);
	free(a->pages32);
	free(a->devino);
	cm_map_release(&a->devino_old);
	cm_map_release(&a->procmap);
	cm_map_release(&a->fileid_map);
	ana_idx_release(&a->fid_idx);
	ana_pidx_release(&a->pidx);
	cm_map_release(&a->sys.fdmap);
	cm_map_release(&a->sys.streammap);
	cm_map_release(&a->sys.threadmap);
	cm_map_release(&a->sys.pipe_r);
	cm_map_release(&a->sys.pipe_w);
	ana_train_release(&a->train);
	free(a->sched.t);
	cm_map_release(&a->sched.map);
	cm_map_release(&a->sched.pair);
	free(a->sys.fds);
	free(a->sys.streams);
	free(a->sys.threads);
	for (int op = 0; op < TAPE_OP_MAX; op++)
		cm_lat_release(&a->sys.lat[op]);
	for (size_t e = 0; e < a->sys.nepochs; e++) {
		free(a->sys.epochs[e].order);
		free(a->sys.epochs[e].dts);
		free(a->sys.epochs[e].far);
	}
	free(a->sys.epochs);
	free(a->sys.bursts);
	free(a->sys.wbs);
	free(a->sys.sketches);
	cm_map_release(&a->sys.sketchmap);
	cm_map_release(&a->sys.fhist);
	free(a->ds_dir);
	ana_cache_release(&a->cache);
	free(a->blk.d);
	free(a->res.d);
	cm_lat_release(&a->blk.lat);
	cm_lat_release(&a->blk.rlat);
	cm_lat_release(&a->blk.wlat);
	free(a->tl_sys);
	free(a->tl_cache);
	free(a->tl_blk);
	free(a->tl);
	free(a->ckpts);
	for (int t = 0; t < TAPE_TABLE_MAX; t++)
		free(a->damage_detail[t]);
	tape_reader_free(a->r);
	for (size_t h = 0; h < a->nhosts; h++)
		ana_release(&a->hosts[h]);
	free(a->hosts);
	memset(a, 0, sizeof(*a));
}
