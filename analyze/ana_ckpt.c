/* SPDX-License-Identifier: MIT */
/*
 * ana_ckpt.c - the checkpoints of a job (iotape-analyze(1), Checkpoints):
 * the one rule that analyze's report, model, report, whatif and the burst
 * buffer (replay --burst-buffer) use, so that they agree on what the
 * trace's checkpoints are and on which files' write bursts make each one.
 *
 * The syscall pass keeps the files' write bursts that may be part of one
 * (a->sys.bursts, burst_close in ana_syscall.c); ana_ckpt_find, at the
 * join, decides.  Memory grows with those bursts (files written), not
 * with writes.
 */
#include <stdlib.h>
#include <string.h>
#include "analyze.h"

#define CKPT_GAP_NS 1000000000ull

static int cmp_start(const void *x, const void *y)
{
	const struct ana_ckpt *p = x, *q = y;
	return p->start_ns < q->start_ns ? -1 : p->start_ns > q->start_ns;
}

/* The directory part of a file's path, its length in *n (0 for none). */
static const char *dir_of(const struct ana *a, const struct ana_file *f, char *buf, size_t *n)
{
	const char *p = ana_path_str(a, f->path, buf);
	const char *s = p ? strrchr(p, '/') : NULL;

	*n = s ? (size_t)(s - p) : 0;
	return p;
}

/* The directories of two bursts' files, compared. */
static int cmp_dir(const struct ana_ckpt *p, const struct ana_ckpt *q, const struct ana *a)
{
	char b1[ANA_PATH_BUF], b2[ANA_PATH_BUF];
	size_t m, n;
	const char *x = dir_of(a, &a->files[p->file], b1, &m);
	const char *y = dir_of(a, &a->files[q->file], b2, &n);
	int c = m && n ? memcmp(x, y, m < n ? m : n) : 0;

	return c ? c : m < n ? -1 : m > n;
}

/* Bursts by the directory of their file, then by start. */
static int cmp_start_dir(const void *x, const void *y, void *a)
{
	int c = cmp_dir(x, y, a);
	return c ? c : cmp_start(x, y);
}

/*
 * A big burst is a candidate; a burst that only wrote its file whole is
 * one when whole-file writes repeat in its directory (one of them starts
 * more than CKPT_GAP_NS after another ended); candidates that overlap or
 * follow within CKPT_GAP_NS are one checkpoint.  Each burst's .ckpt says
 * which (ANA_CKPT_NONE: none); a->sys.bursts ends in time order.
 */
void ana_ckpt_find(struct ana *a)
{
	struct ana_ckpt *b = a->sys.bursts;
	size_t n = a->sys.nbursts;

	if (n)
		qsort_r(b, n, sizeof(*b), cmp_start_dir, a);
	for (size_t i = 0, j; i < n; i = j) {	/* [i, j): one directory */
		uint64_t first_end = 0, last_start = 0;
		int any = 0;
		for (j = i; j < n && !cmp_dir(&b[i], &b[j], a); j++) {
			if (b[j].big || !b[j].whole)
				continue;
			if (!any || b[j].end_ns < first_end)
				first_end = b[j].end_ns;
			last_start = b[j].start_ns;
			any = 1;
		}
		int periodic = any && last_start > first_end + CKPT_GAP_NS;
		for (size_t k = i; k < j; k++)
			if (!b[k].big && !periodic)
				b[k].files = 0;	/* a whole-file write that does not repeat */
	}
	if (n)
		qsort(b, n, sizeof(*b), cmp_start);
	a->ckpts = ana_xcalloc(n, sizeof(*a->ckpts));
	for (size_t i = 0; i < n; i++) {
		struct ana_ckpt *p = &b[i];
		struct ana_ckpt *c = a->nckpts ? &a->ckpts[a->nckpts - 1] : NULL;
		p->ckpt = ANA_CKPT_NONE;
		if (!p->files)
			continue;
		if (c && p->start_ns <= c->end_ns + CKPT_GAP_NS) {
			if (p->end_ns > c->end_ns)
				c->end_ns = p->end_ns;
			c->bytes += p->bytes;
			c->sq += p->sq;
			c->ops += p->ops;
			c->syncs += p->syncs;
			c->files += p->files;
			c->big |= p->big;
			c->whole &= p->whole;
		} else {
			a->ckpts[a->nckpts++] = *p;
		}
		p->ckpt = (uint32_t)(a->nckpts - 1);
	}
}
