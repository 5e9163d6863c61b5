/* SPDX-License-Identifier: MIT */
/*
 * ana_mmap.c - a data set read through mmap, seen from its page faults.
 *
 * When the job reaches its data set through a memory map (a numpy memmap,
 * an Arrow data set: ana_mmap_dataset), reads say nothing of its epochs;
 * its I/O is the page faults, which the replay reproduces as reads by the
 * rule of common/faults.h.  ana_mmap_reads takes those same reads, on the
 * data set's files, and finds in them what a model and its check need:
 * the files, the bytes, the sizes (the fault window), the randomness, the
 * reader threads and the epochs.
 *
 * Epochs: a map's pages stay mapped for as long as the map lives, so a
 * process that keeps its map faults only in the first epoch; a
 * DataLoader's workers (non-persistent, the default) map the data set
 * anew in each epoch.  The epochs are the generations of reader threads:
 * threads with 1% or more of the fault reads, grouped by their
 * first-to-last fault (overlapping ones are one generation, a gap between
 * them starts the next).  Persistent readers make one.
 *
 * Memory grows with threads (one entry each), not with faults.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "faults.h"
#include "map.h"

struct mthread {
	uint32_t tid;
	uint64_t first, last, reads;
	uint32_t file;		/* of its last fault read */
	uint64_t end;		/* where its last fault read ended */
};

struct walk {
	const struct ana *a;
	struct ana_mmap *m;
	struct cm_faults *f;
	struct mthread *t;
	size_t nt, cap;
	struct cm_map tmap;	/* tid -> t[] + 1 */
	char *seen;		/* per file: faulted in */
};

static int by_first(const void *x, const void *y)
{
	const struct mthread *a = x, *b = y;

	return a->first < b->first ? -1 : a->first > b->first;
}

static int walk_faults(struct walk *w)
{
	const struct ana *a = w->a;
	struct ana_mmap *m = w->m;
	struct cm_fault_read fr;
	int rc;

	while ((rc = cm_faults_next(w->f, &fr)) > 0) {
		uint32_t fi = ana_file_id_lookup(a, fr.file_id);
		struct mthread *t;
		uint64_t *v;

		if (fi == ANA_NONE || fi >= a->nfiles || !a->files[fi].dataset)
			continue;
		if (!w->seen[fi]) {
			w->seen[fi] = 1;
			m->files++;
		}
		m->reads++;
		m->bytes += fr.len;
		if (fr.len > m->max_len)
			m->max_len = fr.len;
		m->rd_hist[ana_sz_bucket(fr.len)]++;
		if ((v = cm_map_get(&w->tmap, fr.tid, 0))) {
			t = &w->t[*v - 1];
			if (t->file == fi) {
				m->rd_pairs++;
				m->rd_nonconsec += fr.offset != t->end;
			}
		} else {
			ANA_VEC_GROW(w->t, w->cap, w->nt);
			t = &w->t[w->nt++];
			memset(t, 0, sizeof(*t));
			t->tid = fr.tid;
			t->first = fr.ts;
			if ((rc = cm_map_set(&w->tmap, fr.tid, 0, w->nt)))
				return rc;
		}
		t->last = fr.ts;
		t->reads++;
		t->file = fi;
		t->end = fr.offset + fr.len;
	}
	return rc;
}

/* The generations of reader threads (the top comment), and the most
 * readers at once. */
static void generations(struct walk *w)
{
	struct ana_mmap *m = w->m;
	size_t n = 0;
	uint64_t end = 0;

	for (size_t i = 0; i < w->nt; i++)	/* the readers, first */
		if (w->t[i].reads * 100 >= m->reads)
			w->t[n++] = w->t[i];
	if (n)	/* (w->t is NULL without threads) */
		qsort(w->t, n, sizeof(*w->t), by_first);
	for (size_t i = 0; i < n; i++) {
		const struct mthread *t = &w->t[i];
		size_t k = 0;

		if (!m->epochs || t->first > end) {
			m->epochs++;
			if (m->epochs == 1)
				m->first_ns = t->first;
			end = t->last;
		} else if (t->last > end) {
			end = t->last;
		}
		m->last_ns = end;
		for (size_t j = 0; j < n; j++)
			k += w->t[j].first <= t->first && w->t[j].last >= t->first;
		if (k > m->readers)
			m->readers = k;
	}
}

static int mmap_walk(void *arg)
{
	struct walk *w = arg;
	int rc;

	w->seen = ana_xcalloc(w->a->nfiles + 1, 1);
	if ((rc = cm_faults_open(&w->f, w->a->r)) || !w->f)
		return rc;
	if ((rc = walk_faults(w)) < 0)
		return rc;
	generations(w);
	return 0;
}

int ana_mmap_reads(const struct ana *a, struct ana_mmap *m)
{
	struct walk w = { .a = a, .m = m };
	int rc;

	memset(m, 0, sizeof(*m));
	rc = ana_guard(mmap_walk, &w);
	cm_faults_free(w.f);
	cm_map_release(&w.tmap);
	free(w.t);
	free(w.seen);
	return rc;
}
