/* SPDX-License-Identifier: MIT */
/*
 * ana_cache.c - the cache pass: page-cache hit ratio from the filemap
 * tracepoints (access, insert, fault, map_pages, evict), per file and per
 * timeline bucket.
 *
 * Model (iotape-analyze(1), CACHE): pages accessed = pages of access,
 * fault and map_pages events; a page is missed when the access finds it in
 * the "inserted, not yet accessed" set of its file, which holds the pages
 * insert events brought in.  So a readahead page counts as a miss only when
 * it is later used; one never used is "readahead_unused" when evicted or
 * still pending at the end.  Per file the pending pages are an interval set
 * (sequential readahead collapses into few intervals); beyond
 * ANA_CACHE_MAX_IVALS per file or ANA_CACHE_MAX_IVALS_ALL overall, further
 * inserts are not tracked (counted in untracked_pages, and hit_ratio is
 * marked approximate: it can only be too high).
 */
#include <errno.h>
#include <string.h>
#include "analyze.h"

#define ANA_CACHE_MAX_IVALS (1u << 16)
#define ANA_CACHE_MAX_IVALS_ALL (2u << 20)
#define PF_IDX 32	/* prefetch distances in events */
#define PF_FILE 16

/* Does f have the key of e (see cfile_get)? */
static inline int cfile_is(const struct ana_cfile *f, const struct tape_cache *e)
{
	if (e->inode)
		return f->inode == e->inode && f->dev == e->dev;
	return !f->inode && f->file_id == e->file_id;
}

/* The state of e's file: keyed by (dev, inode), else by file id.  The
 * dense index by file id finds it without hashing; the key decides. */
static struct ana_cfile *cfile_get(struct ana *a, struct ana_cache *c,
				   const struct tape_cache *e)
{
	uint32_t k = ana_idx_get(&c->fidx, e->file_id);
	if (k != ANA_NONE && cfile_is(&c->f[k], e))
		return &c->f[k];
	uint64_t ka = e->dev, kb = e->inode;
	if (!e->inode) {	/* no inode: fall back on the file id */
		ka = (1ull << 63) | e->file_id;
		kb = 0;
	}
	if (c->last != ANA_NONE && c->last_a == ka && c->last_b == kb)
		return &c->f[c->last];
	uint64_t *v = ana_map_put(&c->map, ka, kb);
	c->last_a = ka;
	c->last_b = kb;
	c->last = *v == ANA_NONE ? (uint32_t)c->nf : *v;
	if (*v == ANA_NONE) {
		ANA_VEC_GROW_LINES(c->f, c->capf, c->nf);
		ANA_VEC_CLEAR(c->f, c->nf, c->nf);
		*v = (uint32_t)c->nf++;
		struct ana_cfile *f = &c->f[*v];
		f->dev = e->dev;
		f->inode = e->inode;
		f->file_id = e->file_id;
		/* its size in the file table (devino_map is frozen) */
		uint32_t fi = ana_file_by_devino(a, e->dev, e->inode);
		f->eof = fi < a->nfiles_table ? (a->table_size[fi] + a->page_size - 1) / a->page_size
					      : UINT64_MAX;
	} else if (!c->f[*v].file_id && e->file_id) {
		c->f[*v].file_id = e->file_id;
	}
	if (e->file_id) {
		/* nfiles_table, not nfiles: the syscall pass may be growing it */
		uint32_t *x = ana_idx_put(&c->fidx, e->file_id,
					  ANA_IDX_LIMIT(a->nfiles_table + c->nf));
		if (x)
			*x = *v;
	}
	return &c->f[*v];
}

static inline struct ana_bucket *bucket(struct ana *a, uint64_t ts)
{
	size_t b = ana_bucket_index(a, &a->cache.bkc, ts);
	if (b >= a->ntl_cache) {
		ANA_VEC_GROW(a->tl_cache, a->captl_cache, b);
		ANA_VEC_CLEAR(a->tl_cache, a->ntl_cache, b);
		a->ntl_cache = b + 1;
	}
	return &a->tl_cache[b];
}

static uint64_t take(struct ana_cache *c, struct ana_cfile *f, uint64_t s, uint64_t e)
{
	int64_t dn;
	uint64_t got = ana_ivset_take(&f->pending, s, e, &dn);
	c->ivals += dn;
	return got;
}

static void pend(struct ana_cache *c, struct ana_cfile *f, uint64_t s, uint64_t e)
{
	uint32_t max = c->ivals >= ANA_CACHE_MAX_IVALS_ALL ? 0 : ANA_CACHE_MAX_IVALS;
	int64_t dn;
	if (ana_ivset_add(&f->pending, s, e, max, &dn) < 0)
		c->untracked += e - s;
	c->ivals += dn;
}

int ana_pass_cache(struct ana *a, tape_reader *r)
{
	struct ana_cache *c = &a->cache;
	c->last = ANA_NONE;
	tape_cursor *cur;
	int err = ana_cursor_open(r, TAPE_TABLE_CACHE, a->t0, a->t1, &cur);
	if (err)
		return err;
	const void *evs;
	size_t n;
	while ((err = tape_cursor_next_block(cur, &evs, &n)) > 0) {
		const struct tape_cache *e0 = evs, *e = e0;
		for (size_t i = 0; i < n; i++, e++) {
			/* hide the per-file cache misses (the decoder's output
			 * sweeps the caches between blocks): the index entry
			 * PF_IDX events ahead, the file PF_FILE ahead (the read
			 * of its index entry was prefetched before) */
			if (i + PF_IDX < n && e0[i + PF_IDX].file_id < c->fidx.n)
				__builtin_prefetch(&c->fidx.v[e0[i + PF_IDX].file_id]);
			if (i + PF_FILE < n) {
				uint32_t v = ana_idx_get(&c->fidx, e0[i + PF_FILE].file_id);
				if (v != ANA_NONE) {
					/* 120 bytes: both of its cache lines */
					__builtin_prefetch(&c->f[v], 1);
					__builtin_prefetch((char *)&c->f[v] + 64, 1);
				}
			}
			if (ANA_HOST_SKIP(a, TAPE_TABLE_CACHE, e))
				continue;
			/* evictions are done by whoever reclaims: never filtered */
			if (a->o.has_pid && e->kind != TAPE_CACHE_EVICT &&
			    !ana_pid_included(a, e->pid))
				continue;
			c->n_events++;
			struct ana_cfile *f = cfile_get(a, c, e);
			uint64_t s = e->index, end = e->index + e->count, miss;
			/* pages an access or fault names past the end of the
			 * file are none of its pages: the kernel reports the
			 * range a read() asked for, not what it got */
			uint64_t cs = s, ce = end;
			if (ce > f->eof && e->kind != TAPE_CACHE_INSERT &&
			    e->kind != TAPE_CACHE_EVICT) {
				ce = f->eof;
				cs = cs < ce ? cs : ce;
			}
			switch (e->kind) {
			case TAPE_CACHE_ACCESS: {
				struct ana_bucket *b = bucket(a, e->ts_ns);
				if (e->tid != f->last_tid || s <= f->last_s || end != f->last_e) {
					/* (else the kernel's read loop re-reports the
					 * rest of the same read: count new misses only) */
					f->accessed += ce - cs;
					c->accessed += ce - cs;
					b->pages_accessed += ce - cs;
				}
				miss = take(c, f, cs, ce);
				f->last_tid = e->tid;
				f->last_s = s;
				f->last_e = end;
				f->missed += miss;
				c->missed += miss;
				b->pages_missed += miss;
				f->fault_tid = 0;
				break;
			}
			case TAPE_CACHE_FAULT:
			case TAPE_CACHE_MAP_PAGES:
				f->accessed += ce - cs;
				f->mapped += ce - cs;
				c->accessed += ce - cs;
				miss = take(c, f, cs, ce);
				f->missed += miss;
				f->mapped_missed += miss;
				c->missed += miss;
				{
					struct ana_bucket *b = bucket(a, e->ts_ns);
					b->pages_accessed += ce - cs;
					b->pages_missed += miss;
				}
				if (e->kind == TAPE_CACHE_FAULT && !miss) {
					/* the fault's own page is inserted after the
					 * fault event: remember it */
					f->fault_tid = e->tid;
					f->fault_idx = e->index;
				}
				break;
			case TAPE_CACHE_INSERT:
				c->inserted += e->count;
				if (end > f->eof)	/* the file grew (written) */
					f->eof = end;
				if (f->fault_tid && f->fault_tid == e->tid &&
				    f->fault_idx >= s && f->fault_idx < end) {
					f->missed++;
					f->mapped_missed++;
					c->missed++;
					bucket(a, e->ts_ns)->pages_missed++;
					f->fault_tid = 0;
					pend(c, f, s, f->fault_idx);
					pend(c, f, f->fault_idx + 1, end);
				} else {
					pend(c, f, s, end);
				}
				break;
			case TAPE_CACHE_EVICT: {
				c->evicted += e->count;
				uint64_t unused = take(c, f, s, end);
				c->ra_unused += unused;
				break;
			}
			default:
				break;
			}
		}
	}
	if (err < 0)
		ana_note_damage(a, TAPE_TABLE_CACHE, err);
	ana_cursor_free(cur);
	for (size_t i = 0; i < c->nf; i++)
		c->ra_unused += ana_ivset_pages(&c->f[i].pending);
	return 0;
}
