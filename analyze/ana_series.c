/* SPDX-License-Identifier: MIT */
/*
 * ana_series.c - the HTML report's series by time (analyze.h, struct
 * ana_series): one more pass over the syscall table, after ana_run, so the
 * first pass (the hot one) pays nothing for a report nobody asked for.
 *
 * Columns are a bounded number of equal spans of the window; every event
 * adds to one column (a call's I/O time to the columns it spans), so
 * memory is directories, threads and files times the columns.  A read
 * stream for the per-epoch randomness is (tid, fd), as in the first pass,
 * restarted at each epoch; it holds the end of its last read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"

void ana_series_release(struct ana_series *s)
{
	cm_strtab_release(&s->dirs);
	free(s->gbytes);
	free(s->gtotal);
	free(s->tio);
	free(s->rbytes);
	free(s->wbytes);
	free(s->file_ns);
	free(s->ep_pairs);
	free(s->ep_nonconsec);
	cm_map_release(&s->streams);
	memset(s, 0, sizeof(*s));
}

/* Directory group of files[f], interned on first use (fg caches it per
 * file, dg per directory: a directory's files but the data set's share
 * one). */
static uint32_t dir_group(struct ana *a, struct ana_series *s, uint32_t *fg, uint32_t *dg,
			  uint32_t f)
{
	char buf[ANA_PATH_BUF + 16], pb[ANA_PATH_BUF];
	const char *p, *slash;
	uint32_t id, d = ANA_NONE;

	if (fg[f] != ANA_NONE)
		return fg[f];
	if (a->files[f].dataset && a->ds_dir)
		d = (uint32_t)cm_strtab_count(&a->paths.dirs);	/* (dg's last: the data set) */
	else
		d = ana_path_dir_id(a, a->files[f].path);
	if (d != ANA_NONE && dg[d] != ANA_NONE)
		return fg[f] = dg[d];
	p = ana_file_path(a, &a->files[f], pb);
	if (a->files[f].dataset && a->ds_dir)	/* the data set: one row */
		snprintf(buf, sizeof(buf), "%s (data set)", a->ds_dir);
	else if (!p || !(slash = strrchr(p, '/')))
		snprintf(buf, sizeof(buf), "(no path)");
	else if (slash == p)
		snprintf(buf, sizeof(buf), "/");
	else
		snprintf(buf, sizeof(buf), "%.*s", (int)(slash - p), p);
	if (cm_strtab_intern(&s->dirs, buf, &id) < 0)
		ana_oom();
	if ((size_t)id >= s->capg) {
		size_t old = s->capg, nc = old ? old * 2 : 16;
		while (nc <= id)
			nc *= 2;
		s->gbytes = ana_xrealloc(s->gbytes, nc * s->ncol * sizeof(*s->gbytes));
		s->gtotal = ana_xrealloc(s->gtotal, nc * sizeof(*s->gtotal));
		memset(s->gbytes + old * s->ncol, 0, (nc - old) * s->ncol * sizeof(*s->gbytes));
		memset(s->gtotal + old, 0, (nc - old) * sizeof(*s->gtotal));
		s->capg = nc;
	}
	if (d != ANA_NONE)
		dg[d] = id;
	return fg[f] = id;
}

/* Add [from, to) (absolute ns) to row's columns. */
static void add_span(const struct ana *a, const struct ana_series *s, uint64_t *row,
		     uint64_t from, uint64_t to)
{
	while (from < to) {
		size_t c = from > a->t0 ? (from - a->t0) / s->col_ns : 0;
		if (c >= s->ncol)
			c = s->ncol - 1;
		uint64_t ce = a->t0 + (c + 1) * s->col_ns, e = to < ce || c == s->ncol - 1 ? to : ce;
		row[c] += e - from;
		from = e;
	}
}

struct series_job {
	struct ana *a;
	struct ana_series *s;
	size_t maxcol;
};

/* The read stream of the first (tid, fd) to read a file in an epoch, by
 * files[] index; the streams of the others in ana_series.streams (a
 * million data-set files read once an epoch: no map entry each). */
struct fstream {
	uint64_t key;	  /* tid << 32 ^ fd */
	uint64_t last;	  /* the end of its last read, ANA_NONE: none yet */
	uint32_t ep1;	  /* 1 + the epoch it is of, 0: none */
};

/* The series' shape: its columns (at most maxcol, 0: one), its threads
 * (the busiest: most time in I/O calls) */
static void series_shape(struct ana *a, struct ana_series *s, size_t maxcol)
{
	uint64_t span = ana_trace_end(a) > a->t0 ? ana_trace_end(a) - a->t0 : 1;

	s->ncol = maxcol ? maxcol : 1;
	if (s->ncol > span / 1000 + 1)	/* at least a microsecond a column */
		s->ncol = span / 1000 + 1;
	s->col_ns = (span + s->ncol - 1) / s->ncol;
	/* the busiest threads: most time in I/O calls */
	for (size_t i = 0; i < a->sys.nthreads; i++) {
		size_t k = s->nthr < ANA_SERIES_THREADS ? s->nthr++ : ANA_SERIES_THREADS;
		uint64_t io = a->sys.threads[i].io_ns;
		if (k == ANA_SERIES_THREADS) {
			if (io <= a->sys.threads[s->thr[k - 1]].io_ns)
				continue;
			k--;
		}
		while (k > 0 && a->sys.threads[s->thr[k - 1]].io_ns < io) {
			s->thr[k] = s->thr[k - 1];
			k--;
		}
		s->thr[k] = (uint32_t)i;
	}
}

/* A read e of data-set file f: a pair of reads in its stream (tid, fd on
 * one file) in the epoch it is in (*ep: the epoch of the reads before),
 * consecutive or not; fs: the first stream of each file this epoch */
static void series_stream(struct ana *a, struct ana_series *s, struct fstream *fs,
			  const struct tape_syscall *e, uint32_t f, size_t *ep)
{
	while (*ep < s->nep && e->ts_ns > a->sys.epochs[*ep].end_ns) {
		(*ep)++;
		cm_map_clear(&s->streams);
	}
	if (*ep == s->nep || e->ts_ns < a->sys.epochs[*ep].start_ns)
		return;
	/* a stream: (tid, fd) on one file */
	uint64_t key = (uint64_t)e->tid << 32 ^ (uint64_t)e->fd, *last;
	struct fstream *st = &fs[f];
	int mine = ana_file_fid(a, f) == e->file_id;	/* (f is that id's) */
	if (mine && st->ep1 != *ep + 1) {	/* the file's first this epoch */
		st->ep1 = (uint32_t)(*ep + 1);
		st->key = key;
		st->last = ANA_NONE;
	}
	if (mine && st->key == key)
		last = &st->last;
	else
		last = ana_map_put(&s->streams, key, e->file_id);
	if (*last != ANA_NONE) {
		s->ep_pairs[*ep]++;
		s->ep_nonconsec[*ep] += e->offset != *last;
	}
	*last = e->offset + (uint64_t)e->ret;
}

static int series_job(void *arg)
{
	struct series_job *j = arg;
	struct ana *a = j->a;
	struct ana_series *s = j->s;
	uint64_t last_end[ANA_SERIES_THREADS] = { 0 };
	uint32_t tids[ANA_SERIES_THREADS];
	uint32_t *fg, *dg;
	struct fstream *fs;
	tape_cursor *c;
	const void *evs;
	size_t n, ep = 0;
	int err;

	series_shape(a, s, j->maxcol);
	for (size_t k = 0; k < s->nthr; k++)
		tids[k] = a->sys.threads[s->thr[k]].tid;
	s->tio = ana_xcalloc(s->nthr * s->ncol + 1, sizeof(*s->tio));
	s->rbytes = ana_xcalloc(s->ncol, sizeof(*s->rbytes));
	s->wbytes = ana_xcalloc(s->ncol, sizeof(*s->wbytes));
	s->file_ns = ana_xcalloc(a->nfiles + 1, sizeof(*s->file_ns));
	s->nep = ana_epochs_known(a) ? ana_epoch_count(a) : 0;
	s->ep_pairs = ana_xcalloc(s->nep + 1, sizeof(*s->ep_pairs));
	s->ep_nonconsec = ana_xcalloc(s->nep + 1, sizeof(*s->ep_nonconsec));
	fs = s->nep ? ana_tmp_calloc(a->nfiles + 1, sizeof(*fs)) : NULL;
	fg = ana_tmp_calloc(a->nfiles + 1, sizeof(*fg));
	memset(fg, 0xff, (a->nfiles + 1) * sizeof(*fg));
	size_t nd = cm_strtab_count(&a->paths.dirs);
	dg = ana_tmp_calloc(nd + 1, sizeof(*dg));
	memset(dg, 0xff, (nd + 1) * sizeof(*dg));

	if ((err = ana_cursor_open(a->r, TAPE_TABLE_SYSCALL, a->t0, a->t1, &c)))
		goto out;
	while ((err = tape_cursor_next_block(c, &evs, &n)) > 0) {
		const struct tape_syscall *e = evs;
		for (size_t i = 0; i < n; i++, e++) {
			unsigned op = e->op < TAPE_OP_MAX ? e->op : TAPE_OP_UNKNOWN;
			uint64_t end = e->ts_ns + e->dur_ns;
			uint32_t f = ana_file_by_id(a, e->file_id);

			if (f != ANA_NONE)
				s->file_ns[f] += e->dur_ns;
			for (size_t k = 0; k < s->nthr; k++) {
				if (tids[k] != e->tid || op >= TAPE_OP_URING_READ)
					continue;
				uint64_t from = e->ts_ns > last_end[k] ? e->ts_ns : last_end[k];
				if (end > from) {
					add_span(a, s, s->tio + k * s->ncol, from, end);
					last_end[k] = end;
				}
				break;
			}
			if (e->ret <= 0)
				continue;
			size_t col = e->ts_ns > a->t0 ? (e->ts_ns - a->t0) / s->col_ns : 0;
			if (col >= s->ncol)
				col = s->ncol - 1;
			enum tape_op_class cl = tape_op_class(op);
			if (cl == TAPE_OPC_WRITE)
				s->wbytes[col] += (uint64_t)e->ret;
			if (cl != TAPE_OPC_READ)
				continue;
			s->rbytes[col] += (uint64_t)e->ret;
			if (f == ANA_NONE)
				continue;
			uint32_t g = dir_group(a, s, fg, dg, f);
			s->gbytes[(size_t)g * s->ncol + col] += (uint64_t)e->ret;
			s->gtotal[g] += (uint64_t)e->ret;
			/* the data set's read streams, per epoch */
			if (a->files[f].dataset && s->nep)
				series_stream(a, s, fs, e, f, &ep);
		}
	}
	ana_cursor_free(c);
	err = err < 0 ? err : 0;
out:
	ana_tmp_free(dg);
	ana_tmp_free(fg);
	ana_tmp_free(fs);
	cm_map_release(&s->streams);
	return err;
}

int ana_series_build(struct ana *a, size_t maxcol, struct ana_series *s)
{
	struct series_job j = { a, s, maxcol };
	int err;

	memset(s, 0, sizeof(*s));
	err = ana_guard(series_job, &j);
	if (err)
		ana_series_release(s);
	return err;
}
