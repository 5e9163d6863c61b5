/* SPDX-License-Identifier: MIT */
/*
 * faults.c - page faults on file mappings as reads (the rule: faults.h).
 *
 * A fault-around (map_pages) is held, one per thread, until the thread's
 * next kept cache event says whether a fault completed it, or until
 * CM_FAULT_PAIR_NS have passed in the cache table's time (a FIFO of held
 * events in the order they were held, each entry valid while its thread's
 * hold has the same generation).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "faults.h"
#include "map.h"
#include "tape_vec.h"

struct held {
	struct tape_cache c;
	uint64_t gen;
	int valid;
};

struct fifo_ent {
	uint32_t held;
	uint64_t gen, ts;
};

struct cm_faults {
	tape_reader *r;
	uint64_t page;
	struct cm_map faulted;	/* file_id -> 1: has fault or map_pages events */
	struct cm_map ids;	/* file_id -> index in paths (of those only) */
	char **paths;
	size_t npaths, cappaths;
	struct cm_map code;	/* file_id -> 1: mapped PROT_EXEC */
	tape_cursor *c;
	int eof;
	struct cm_map tids;	/* tid -> index in held */
	struct held *held;
	size_t nheld, capheld;
	struct fifo_ent *fifo;	/* ring */
	size_t fhead, fn, fcap;
	struct cm_fault_read *out;	/* reads ready to give */
	size_t nout, outpos, capout;
	struct cm_fault_stats st;
};

static int scan_code(struct cm_faults *f)
{
	tape_cursor *c;
	const void *evs;
	size_t n;
	int rc = tape_cursor_open(f->r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &c);

	if (rc)
		return rc;
	while ((rc = tape_cursor_next_block(c, &evs, &n)) > 0) {
		const struct tape_syscall *s = evs;
		for (size_t i = 0; i < n; i++)
			if (s[i].op == TAPE_OP_MMAP && s[i].file_id && (s[i].flags & PROT_EXEC) &&
			    cm_map_set(&f->code, s[i].file_id, 0, 1)) {
				rc = -ENOMEM;
				goto out;
			}
	}
out:
	tape_cursor_free(c);
	return rc < 0 ? rc : 0;
}

/*
 * The files of the fault and map_pages events, from two columns of the
 * cache table: the only files whose paths the reads need (a trace without
 * a mapped file needs neither the scan for code nor any path).  0, 1 when
 * there is none, or -errno.
 */
#define SCAN_ROWS 4096
static int scan_faulted(struct cm_faults *f)
{
	size_t nc;
	const struct tape_column *cols = tape_table_columns(TAPE_TABLE_CACHE, &nc);
	const struct tape_column *kc = tape_column_find(TAPE_TABLE_CACHE, "kind");
	const struct tape_column *fc = tape_column_find(TAPE_TABLE_CACHE, "file_id");
	uint32_t *kind = malloc(SCAN_ROWS * sizeof(*kind));
	uint64_t *fid = malloc(SCAN_ROWS * sizeof(*fid));
	tape_cursor *c = NULL;
	size_t n;
	int rc = -ENOMEM;

	if (!kc || !fc || kc->width != 4 || fc->width != 8) {
		rc = -EINVAL;
		goto out;
	}
	if (!kind || !fid || (rc = tape_cursor_open(f->r, TAPE_TABLE_CACHE, 0, UINT64_MAX, &c)))
		goto out;
	unsigned idx[2] = { (unsigned)(kc - cols), (unsigned)(fc - cols) };
	void *out[2] = { kind, fid };
	while ((rc = tape_cursor_read_columns(c, idx, 2, out, SCAN_ROWS, NULL, &n)) > 0)
		for (size_t i = 0; i < n; i++)
			if ((kind[i] == TAPE_CACHE_FAULT || kind[i] == TAPE_CACHE_MAP_PAGES) &&
			    cm_map_set(&f->faulted, fid[i], 0, 1)) {
				rc = -ENOMEM;
				goto out;
			}
	/* (a damaged block: the iterator meets it too, and says so) */
	rc = f->faulted.n ? 0 : 1;
out:
	tape_cursor_free(c);
	free(kind);
	free(fid);
	return rc;
}

static int scan_files(struct cm_faults *f)
{
	tape_cursor *c;
	const void *ev;
	int rc = tape_cursor_open(f->r, TAPE_TABLE_FILE, 0, UINT64_MAX, &c);

	if (rc)
		return rc;
	while ((rc = tape_cursor_next(c, &ev)) == 1) {
		const struct tape_file *e = ev;
		uint64_t *v;

		if (!e->file_id || !e->path || !e->path[0] ||
		    (e->mode && (e->mode & 0170000) != 0100000))
			continue;	/* faults are on regular files */
		if (!cm_map_get(&f->faulted, e->file_id, 0))
			continue;	/* (no fault names it) */
		if ((rc = TAPE_VEC_GROW(f->paths, f->cappaths, f->npaths + 1, 2)))
			break;
		if (cm_map_put(&f->ids, e->file_id, 0, &v) < 0 ||
		    !(f->paths[f->npaths] = strdup(e->path))) {
			rc = -ENOMEM;
			break;
		}
		*v = f->npaths++;	/* a later row of the same id wins */
	}
	tape_cursor_free(c);
	return rc < 0 ? rc : 0;
}

int cm_faults_open(struct cm_faults **out, tape_reader *r)
{
	struct tape_table_stats cs;
	const char *ps = tape_reader_meta(r, "page_size");
	struct cm_faults *f;
	int rc;

	*out = NULL;
	if (tape_reader_table_stats(r, TAPE_TABLE_CACHE, &cs) || !cs.events)
		return 0;
	if (!(f = calloc(1, sizeof(*f))))
		return -ENOMEM;
	f->r = r;
	f->page = ps ? strtoull(ps, NULL, 10) : 0;
	if (!f->page || (f->page & (f->page - 1)) || f->page > (1u << 24))
		f->page = 4096;
	if ((rc = scan_faulted(f)) || (rc = scan_code(f)) || (rc = scan_files(f))) {
		cm_faults_free(f);
		return rc < 0 ? rc : 0;	/* (1: no fault: none to give) */
	}
	*out = f;
	return 0;
}

static int emit(struct cm_faults *f, const struct tape_cache *e)
{
	uint64_t *v = cm_map_get(&f->ids, e->file_id, 0);

	if (TAPE_VEC_GROW(f->out, f->capout, f->nout + 1, 16))
		return -ENOMEM;
	f->out[f->nout++] = (struct cm_fault_read){
		.ts = e->ts_ns, .pid = e->pid, .tid = e->tid, .file_id = e->file_id,
		.path = f->paths[*v], .offset = e->index * f->page,
		.len = e->count * f->page, .pages = e->count,
	};
	f->st.reads++;
	f->st.pages += e->count;
	return 0;
}

/* Give the held event of slot h, if it is still held. */
static int release(struct cm_faults *f, struct held *h)
{
	if (!h->valid)
		return 0;
	h->valid = 0;
	return emit(f, &h->c);
}

/* Give the holds older than ts - CM_FAULT_PAIR_NS (all with UINT64_MAX). */
static int expire(struct cm_faults *f, uint64_t ts)
{
	while (f->fn) {
		struct fifo_ent *q = &f->fifo[f->fhead];
		if (ts != UINT64_MAX && q->ts + CM_FAULT_PAIR_NS >= ts)
			break;
		struct held *h = &f->held[q->held];
		int rc = h->gen == q->gen ? release(f, h) : 0;
		if (rc)
			return rc;
		f->fhead = (f->fhead + 1) % f->fcap;
		f->fn--;
	}
	return 0;
}

static int hold(struct cm_faults *f, struct held *h, const struct tape_cache *e)
{
	if (f->fn == f->fcap) {	/* grow the ring, keeping its order */
		size_t nc = f->fcap ? f->fcap * 2 : 64;
		struct fifo_ent *a = malloc(nc * sizeof(*a));
		if (!a)
			return -ENOMEM;
		for (size_t i = 0; i < f->fn; i++)
			a[i] = f->fifo[(f->fhead + i) % f->fcap];
		free(f->fifo);
		f->fifo = a;
		f->fhead = 0;
		f->fcap = nc;
	}
	h->c = *e;
	h->valid = 1;
	h->gen++;
	f->fifo[(f->fhead + f->fn++) % f->fcap] =
		(struct fifo_ent){ (uint32_t)(h - f->held), h->gen, e->ts_ns };
	return 0;
}

/* The held slot of a thread (created when new), or NULL. */
static struct held *held_of(struct cm_faults *f, uint32_t tid)
{
	uint64_t *v;
	int rc = cm_map_put(&f->tids, tid, 0, &v);

	if (rc < 0)
		return NULL;
	if (rc == 1) {
		if (TAPE_VEC_GROW(f->held, f->capheld, f->nheld + 1, 16)) {
			cm_map_del(&f->tids, tid, 0, NULL);
			return NULL;
		}
		memset(&f->held[f->nheld], 0, sizeof(f->held[0]));
		*v = f->nheld++;
	}
	return &f->held[*v];
}

/* One cache event: 0 or -errno; what it makes ready is in out[]. */
static int step(struct cm_faults *f, const struct tape_cache *e)
{
	uint64_t *v;
	struct held *h;
	int rc;

	if ((e->kind != TAPE_CACHE_FAULT && e->kind != TAPE_CACHE_MAP_PAGES) || !e->count)
		return 0;
	if (cm_map_get(&f->code, e->file_id, 0)) {
		f->st.code++;
		return 0;
	}
	if (!(v = cm_map_get(&f->ids, e->file_id, 0))) {
		f->st.unmatched++;
		return 0;
	}
	if (strncmp(f->paths[*v], "/dev/", 5) == 0) {
		f->st.shm++;
		return 0;
	}
	if ((rc = expire(f, e->ts_ns)))
		return rc;
	if (!(h = held_of(f, e->tid)))
		return -ENOMEM;
	if (h->valid) {
		const struct tape_cache *m = &h->c;
		if (e->kind == TAPE_CACHE_FAULT && e->file_id == m->file_id &&
		    e->index >= m->index && e->index < m->index + m->count)
			h->valid = 0;	/* fault-around that did not map the page */
		else if ((rc = release(f, h)))
			return rc;
	}
	return e->kind == TAPE_CACHE_MAP_PAGES ? hold(f, h, e) : emit(f, e);
}

int cm_faults_next(struct cm_faults *f, struct cm_fault_read *out)
{
	const void *ev;
	int rc;

	while (f->outpos == f->nout) {
		f->nout = f->outpos = 0;
		if (f->eof)
			return 0;
		if (!f->c && (rc = tape_cursor_open(f->r, TAPE_TABLE_CACHE, 0, UINT64_MAX, &f->c)))
			return rc;
		rc = tape_cursor_next(f->c, &ev);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			f->eof = 1;
			if ((rc = expire(f, UINT64_MAX)))
				return rc;
			continue;
		}
		if ((rc = step(f, ev)))
			return rc;
	}
	*out = f->out[f->outpos++];
	return 1;
}

void cm_faults_rewind(struct cm_faults *f)
{
	tape_cursor_free(f->c);
	f->c = NULL;
	f->eof = 0;
	f->nout = f->outpos = 0;
	f->fhead = f->fn = 0;
	for (size_t i = 0; i < f->nheld; i++)
		f->held[i].valid = 0;
	memset(&f->st, 0, sizeof(f->st));
}

const struct cm_fault_stats *cm_faults_stats(const struct cm_faults *f)
{
	return &f->st;
}

void cm_faults_free(struct cm_faults *f)
{
	if (!f)
		return;
	tape_cursor_free(f->c);
	for (size_t i = 0; i < f->npaths; i++)
		free(f->paths[i]);
	free(f->paths);
	cm_map_release(&f->ids);
	cm_map_release(&f->faulted);
	cm_map_release(&f->code);
	cm_map_release(&f->tids);
	free(f->held);
	free(f->fifo);
	free(f->out);
	free(f);
}
