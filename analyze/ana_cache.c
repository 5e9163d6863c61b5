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
 *
 * A file's state is keyed by its dev and inode, else (events without an
 * inode) by its file id.  The files of the file table, found by their
 * dev and inode in the analysis's index (frozen while the passes run),
 * keep it in 20 bytes by their files[] index (struct ana_cst), their
 * pending pages in a map while they have some; one whose figures outgrow
 * that (4 Gi pages, page indexes past 2^32, an access of more than
 * ANA_CST_LEN pages, page faults), and the files
 * the table does not list, keep it whole (struct ana_cfile).  Every event
 * runs on the whole form (cache_event): the compact one is unpacked for
 * it and packed again, so the two cannot differ in what they count.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"

#define ANA_CACHE_MAX_IVALS (1u << 16)
#define ANA_CACHE_MAX_IVALS_ALL (2u << 20)


void ana_cache_release(struct ana_cache *c)
{
	cm_map_release(&c->map);
	for (size_t i = 0; i < c->nf; i++)
		ana_ivset_release(&c->f[i].pending);
	free(c->f);
	free(c->cst);
	free(c->pg32);
	free(c->touched);
	cm_map_release(&c->eofs);
	cm_map_release(&c->pend);
	for (size_t i = 0; i < c->npv; i++)
		ana_ivset_release(&c->pv[i]);
	free(c->pv);
	free(c->pv_free);
	memset(c, 0, sizeof(*c));
}

int ana_cache_prepare(struct ana *a)
{
	struct ana_cache *c = &a->cache;
	size_t n = a->nfiles_table;

	if (!n || !a->have[TAPE_TABLE_CACHE])
		return 0;
	c->cst = ana_xcalloc(n, sizeof(*c->cst));
	c->ncst = n;
	for (size_t i = 0; i < n; i++) {
		uint64_t eof = (ana_file_size(a, &a->files[i]) + a->page_size - 1) / a->page_size;
		if (eof >= ANA_CST_EOF) {
			*ana_map_put(&c->eofs, i, 0) = eof;
			eof = ANA_CST_EOF;
		}
		c->cst[i].eof = (uint16_t)eof;
	}
	return 0;
}

/* ------------------------------------------------------------- pending */

/* The pending pages of compact file fi (moved out of the map). */
static struct ana_ivset pend_take(struct ana_cache *c, uint32_t fi)
{
	uint64_t k;
	struct ana_ivset s = { 0 };

	if (cm_map_del(&c->pend, fi, 0, &k)) {
		s = c->pv[k];
		memset(&c->pv[k], 0, sizeof(c->pv[k]));
		ANA_VEC_GROW(c->pv_free, c->cappv_free, c->npv_free);
		c->pv_free[c->npv_free++] = (uint32_t)k;
	}
	return s;
}

/* Keep s as compact file fi's pending pages (it has some). */
static void pend_put(struct ana_cache *c, uint32_t fi, struct ana_ivset s)
{
	uint64_t k;

	if (c->npv_free) {
		k = c->pv_free[--c->npv_free];
	} else {
		ANA_VEC_GROW(c->pv, c->cappv, c->npv);
		k = c->npv++;
	}
	c->pv[k] = s;
	*ana_map_put(&c->pend, fi, 0) = k;
}

/* ------------------------------------------------------------- lookups */

/* Does f have the key of e? */
static inline int cfile_is(const struct ana_cfile *f, const struct tape_cache *e)
{
	if (e->inode)
		return f->inode == e->inode && f->dev == e->dev;
	return !f->inode && f->file_id == e->file_id;
}

/* A new whole state, keyed by e (eof: unknown) or, with fi, the file
 * table's file fi. */
static uint32_t cfile_new(struct ana_cache *c, const struct tape_cache *e, uint32_t fi)
{
	ANA_VEC_GROW_LINES(c->f, c->capf, c->nf);
	ANA_VEC_CLEAR(c->f, c->nf, c->nf);
	struct ana_cfile *f = &c->f[c->nf];
	f->dev = e->dev;
	f->inode = e->inode;
	f->file_id = e->file_id;
	f->eof = UINT64_MAX;
	f->fi = fi;
	return (uint32_t)c->nf++;
}

#define LAST_CST (1u << 31)

/* The state of e's file: *cs a compact one (a files[] index in *fi), or
 * NULL and the whole one returned. */
static struct ana_cfile *cfile_get(struct ana *a, struct ana_cache *c,
				   const struct tape_cache *e, struct ana_cst **cs, uint32_t *fi)
{
	uint64_t ka = e->dev, kb = e->inode;
	uint32_t v;

	if (!e->inode) {	/* no inode: keyed by the file id */
		ka = (1ull << 63) | e->file_id;
		kb = 0;
	}
	if (c->last != ANA_NONE && c->last_a == ka && c->last_b == kb) {
		v = c->last;
	} else {
		uint32_t t = e->inode ? ana_file_by_devino(a, e->dev, e->inode) : ANA_NONE;
		if (t != ANA_NONE && t < c->ncst) {
			v = t | LAST_CST;
		} else {
			uint64_t *m = ana_map_put(&c->map, ka, kb);
			if (*m == ANA_NONE)
				*m = cfile_new(c, e, ANA_NONE);
			v = (uint32_t)*m;
		}
		c->last_a = ka;
		c->last_b = kb;
		c->last = v;
	}
	if (v & LAST_CST) {
		*fi = v & ~LAST_CST;
		*cs = &c->cst[*fi];
		if (!((*cs)->len & ANA_CST_BIG))
			return NULL;
		v = (*cs)->acc;
	}
	*cs = NULL;
	struct ana_cfile *f = &c->f[v];
	if (!f->file_id && e->file_id)
		f->file_id = e->file_id;
	return f;
}

/* Unpack compact file fi's state into w. */
static void cst_load(struct ana *a, struct ana_cache *c, const struct ana_cst *cs, uint32_t fi,
		     const struct tape_cache *e, struct ana_cfile *w)
{
	memset(w, 0, sizeof(*w));
	w->dev = e->dev;
	w->inode = e->inode;
	w->file_id = e->file_id;
	w->fi = fi;
	w->accessed = cs->acc;
	w->missed = cs->miss;
	w->last_tid = cs->last_tid;
	w->last_e = cs->last_e;
	w->last_s = w->last_e - (cs->len & ANA_CST_LEN);
	w->eof = cs->eof;
	if (w->eof == ANA_CST_EOF) {
		uint64_t *m = cm_map_get(&c->eofs, fi, 0);
		w->eof = m ? *m : ANA_CST_EOF;
	}
	if (cs->len & ANA_CST_PEND)
		w->pending = pend_take(c, fi);
	(void)a;
}

/* Pack w back into compact file fi, or make it whole where it does not
 * fit (from then on). */
static void cst_store(struct ana_cache *c, struct ana_cst *cs, uint32_t fi, struct ana_cfile *w)
{
	if (w->accessed <= UINT32_MAX && w->missed <= UINT32_MAX && w->last_e <= UINT32_MAX &&
	    w->last_e - w->last_s <= ANA_CST_LEN && !w->mapped && !w->mapped_missed &&
	    !w->fault_tid) {
		uint64_t eof = w->eof;
		if (w->eof >= ANA_CST_EOF) {	/* (set again: it may have grown) */
			*ana_map_put(&c->eofs, fi, 0) = w->eof;
			eof = ANA_CST_EOF;
		}
		cs->acc = (uint32_t)w->accessed;
		cs->miss = (uint32_t)w->missed;
		cs->last_tid = w->last_tid;
		cs->last_e = (uint32_t)w->last_e;
		cs->len = (uint16_t)((w->last_e - w->last_s) | ANA_CST_TOUCH);
		cs->eof = (uint16_t)eof;
		if (w->pending.n) {
			cs->len |= ANA_CST_PEND;
			pend_put(c, fi, w->pending);
		} else {
			ana_ivset_release(&w->pending);
		}
		return;
	}
	uint32_t k = (uint32_t)c->nf;
	ANA_VEC_GROW_LINES(c->f, c->capf, c->nf);
	c->f[c->nf++] = *w;
	cs->acc = k;
	cs->len = ANA_CST_BIG | ANA_CST_TOUCH;
}

/* The compact states, the pass done, as what the join takes from them
 * (8 bytes a file, in place of 20, while the other passes may still run):
 * pages accessed and missed (0 where whole: c->f has them), and a bit,
 * whether the file had an event. */
void ana_cache_compact(struct ana_cache *c)
{
	size_t n = c->ncst;

	if (!n)
		return;
	c->touched = ana_xcalloc(n / 8 + 1, 1);
	uint32_t *pg = (uint32_t *)c->cst;
	for (size_t i = 0; i < n; i++) {
		struct ana_cst cs = c->cst[i];	/* (read before pg[2i] is written) */
		int big = cs.len & ANA_CST_BIG;
		pg[2 * i] = big ? 0 : cs.acc;
		pg[2 * i + 1] = big ? 0 : cs.miss;
		if (cs.len & ANA_CST_TOUCH)
			c->touched[i / 8] |= (uint8_t)(1u << (i % 8));
	}
	c->cst = NULL;
	c->ncst = 0;
	c->pg32 = pg;	/* (before the realloc: a failed one leaves it to c) */
	c->pg32 = ana_xrealloc(pg, 2 * n * sizeof(*pg));
	c->npg = n;
}

/* ---------------------------------------------------------------- pass */

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

/* One event e of file f. */
static void cache_event(struct ana *a, struct ana_cache *c, struct ana_cfile *f,
			const struct tape_cache *e)
{
	uint64_t s = e->index, end = e->index + e->count, miss;
	/* pages an access or fault names past the end of the file are none
	 * of its pages: the kernel reports the range a read() asked for, not
	 * what it got */
	uint64_t cs = s, ce = end;
	if (ce > f->eof && e->kind != TAPE_CACHE_INSERT && e->kind != TAPE_CACHE_EVICT) {
		ce = f->eof;
		cs = cs < ce ? cs : ce;
	}
	switch (e->kind) {
	case TAPE_CACHE_ACCESS: {
		struct ana_bucket *b = bucket(a, e->ts_ns);
		if (e->tid != f->last_tid || s <= f->last_s || end != f->last_e) {
			/* (else the kernel's read loop re-reports the rest of
			 * the same read: count new misses only) */
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
			/* the fault's own page is inserted after the fault
			 * event: remember it */
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

/* prefetch distances in events */
#define PF_SLOT 32
#define PF_FILE 16

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
			 * sweeps the caches between blocks): the index slot
			 * of the file of the event PF_SLOT ahead, the file's
			 * identity and state PF_FILE ahead */
			if (i + PF_SLOT < n && e0[i + PF_SLOT].inode && a->capdevino)
				__builtin_prefetch(ana_devino_home(a, e0[i + PF_SLOT].dev,
								   e0[i + PF_SLOT].inode));
			if (i + PF_FILE < n && e0[i + PF_FILE].inode && a->capdevino) {
				uint32_t v = ana_devino_file(a, *ana_devino_home(a, e0[i + PF_FILE].dev,
										 e0[i + PF_FILE].inode));
				if (v < c->ncst) {
					__builtin_prefetch(ana_file_ident_at(a, v));
					__builtin_prefetch(&c->cst[v], 1);
				}
			}
			if (ANA_HOST_SKIP(a, TAPE_TABLE_CACHE, e))
				continue;
			/* evictions are done by whoever reclaims: never filtered */
			if (a->o.has_pid && e->kind != TAPE_CACHE_EVICT &&
			    !ana_pid_included(a, e->pid))
				continue;
			c->n_events++;
			struct ana_cst *cs;
			uint32_t fi;
			struct ana_cfile *f = cfile_get(a, c, e, &cs, &fi);
			if (f) {
				cache_event(a, c, f, e);
				continue;
			}
			struct ana_cfile w;
			cst_load(a, c, cs, fi, e, &w);
			cache_event(a, c, &w, e);
			cst_store(c, cs, fi, &w);
		}
	}
	if (err < 0)
		ana_note_damage(a, TAPE_TABLE_CACHE, err);
	ana_cursor_free(cur);
	for (size_t i = 0; i < c->nf; i++)
		c->ra_unused += ana_ivset_pages(&c->f[i].pending);
	for (size_t i = 0; i < c->npv; i++)
		c->ra_unused += ana_ivset_pages(&c->pv[i]);
	ana_cache_compact(c);
	return 0;
}
