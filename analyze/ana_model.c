/* SPDX-License-Identifier: MIT */
/*
 * ana_model.c - a job file from a trace's analysis (`iotape model TRACE`,
 * iotape-model(1), FROM A TRACE: how each value is derived, and only
 * there).  Each value the analysis shows is set with a note saying what it
 * was measured from; what it does not show is left out, never guessed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "job.h"

/* File order randomness from which the files are taken as shuffled. */
#define MODEL_SHUFFLE_MIN 0.5

/* The standard deviation of n values of sum sum and sum of squares sq;
 * NaN for none. */
static double stdev(uint64_t n, double sum, double sq)
{
	double m, v;

	if (!n)
		return NAN;
	m = sum / (double)n;
	v = sq / (double)n - m * m;
	return v > 0 ? sqrt(v) : 0;
}

double ana_step_stdev_ms(const struct ana_thread *t)
{
	return stdev(t->steps, t->step_ns / 1e6, t->step_sq_ms);
}

/* Length of the directory part of path ("/a/b" of "/a/b/c"), 0 for none. */
static size_t dir_len(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? (size_t)(s - path) : 0;
}

/* Length of the common directory prefix of a[0..na) and b[0..nb): ends at
 * a '/' (or the whole of both when equal). */
static size_t common_dir(const char *a, size_t na, const char *b, size_t nb)
{
	size_t i = 0, last = 0;

	while (i < na && i < nb && a[i] == b[i]) {
		if (a[i] == '/')
			last = i;
		i++;
	}
	if (i == na && i == nb)
		return na;
	if (i == na && b[i] == '/')
		return na;
	if (i == nb && a[i] == '/')
		return nb;
	return last;
}

/* Length of the parent of the directory path[0..n). */
static size_t dir_len_n(const char *path, size_t n)
{
	while (n && path[n - 1] != '/')
		n--;
	return n ? n - 1 : 0;
}

struct model {
	const struct ana *a;
	struct cm_job *job;
	int err;
	char note[512];
	/* a data set read through mmap (ana_mmap_dataset): its faults */
	int mmap;
	struct ana_mmap mm;
	uint64_t spf;		/* samples per file: pages, with mmap; else 1 */
	/* the epochs: their count, first start and last end (ns) */
	size_t nep;
	uint64_t ep_from, ep_to;
	/* the data set's directory, its files' name prefix, the checkpoints'
	 * first file */
	char dsdir[ANA_PATH_BUF], pre[ANA_PATH_BUF], ckfile[ANA_PATH_BUF];
};

static void set(struct model *m, int key, const char *val, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set(struct model *m, int key, const char *val, const char *fmt, ...)
{
	va_list ap;

	if (m->err)
		return;
	va_start(ap, fmt);
	vsnprintf(m->note, sizeof(m->note), fmt, ap);
	va_end(ap);
	m->err = cm_job_set(m->job, key, val, m->note);
}

static void setu(struct model *m, int key, uint64_t v, const char *note)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	set(m, key, b, "%s", note);
}

/* model_dataset()'s data set: its files' directory (dir, dl long), the
 * start their names share (pre, pl long) and their suffix (suf, NULL:
 * none), their count (n) and sizes (nsz of them known: their sum, sum of
 * squares, least and most; next: by their extent) */
struct dsfiles {
	const char *dir, *pre, *suf;
	size_t dl, pl, n, nsz;
	double sum, sq;
	uint64_t mn, mx, next;
};

/* The data set's files (those faulted in, with mmap): ds */
static void dataset_files(struct model *m, struct dsfiles *ds)
{
	const struct ana *a = m->a;
	const char *dir = NULL, *pre = NULL, *suf = NULL;
	size_t dl = 0, pl = 0, n = 0, nsz = 0;
	double sum = 0, sq = 0;
	uint64_t mn = UINT64_MAX, mx = 0, next = 0;
	char buf[ANA_PATH_BUF];

	for (size_t i = 0; i < a->nfiles; i++) {
		const struct ana_file *f = &a->files[i];
		const char *base, *p;

		if (!f->dataset || !f->path || (m->mmap && !ana_file_mapped(a, f)))
			continue;
		p = ana_file_path(a, f, buf);
		n++;
		if (!dir) {
			dl = dir_len(p);
			memcpy(m->dsdir, p, dl);
			dir = m->dsdir;
		} else {
			dl = common_dir(dir, dl, p, dir_len(p));
		}
		base = strrchr(p, '/');
		base = base ? base + 1 : p;
		if (!pre) {
			pl = strlen(base);
			memcpy(m->pre, base, pl + 1);
			pre = m->pre;
			suf = strrchr(pre, '.');
		} else {
			size_t k = 0;

			while (k < pl && base[k] == pre[k])
				k++;
			pl = k;
			if (suf) {
				size_t sl = strlen(suf), bl = strlen(base);
				if (bl < sl || strcmp(base + bl - sl, suf) != 0)
					suf = NULL;
			}
		}
		/* its size: the file table's (at its open: 0 for a file the
		 * job created), or where larger (no file table: an import)
		 * the end of its furthest read or write */
		uint64_t sz = f->from_table ? ana_file_size(a, f) : 0, ext = ana_file_extent(a, i);
		if (ext > sz) {
			sz = ext;
			next++;
		}
		if (sz) {
			double s = (double)sz;
			nsz++;
			sum += s;
			sq += s * s;
			if (sz < mn)
				mn = sz;
			if (sz > mx)
				mx = sz;
		}
	}
	*ds = (struct dsfiles){ dir, pre, suf, dl, pl, n, nsz, sum, sq, mn, mx, next };
}

/* The subfolders of the data set's directory (dl long): the distinct
 * first components under it, by the files' directories (each looked at
 * once), paths kept whole alone; their count */
static size_t dataset_subfolders(const struct model *m, size_t dl)
{
	const struct ana *a = m->a;
	char buf[ANA_PATH_BUF];
	size_t nsub;
	struct cm_strtab subs = { 0 };
	size_t nd = cm_strtab_count(&a->paths.dirs);
	uint8_t *seen = dl ? ana_tmp_calloc(nd + 1, 1) : NULL;
	for (size_t i = 0; i < a->nfiles && dl; i++) {
		const struct ana_file *f = &a->files[i];
		const char *rest, *sl;
		uint32_t d, id;

		if (!f->dataset || !f->path || (m->mmap && !ana_file_mapped(a, f)))
			continue;
		d = ana_path_dir_id(a, f->path);
		if (d != ANA_NONE) {
			if (seen[d])
				continue;
			seen[d] = 1;
		}
		rest = ana_file_path(a, f, buf) + dl + 1;
		if (!(sl = strchr(rest, '/')))
			continue;
		char c[ANA_PATH_BUF];
		memcpy(c, rest, (size_t)(sl - rest));
		c[sl - rest] = 0;
		if (cm_strtab_intern(&subs, c, &id) < 0) {
			cm_strtab_release(&subs);
			ana_oom();
		}
	}
	nsub = cm_strtab_count(&subs);
	cm_strtab_release(&subs);
	ana_tmp_free(seen);
	return nsub;
}

/* The record sizes of the data set ds, which knows some of its files'
 * sizes: theirs, or with mmap in samples of pages */
static void dataset_sizes(struct model *m, const struct dsfiles *ds)
{
	const struct ana *a = m->a;
	double mean = ds->sum / (double)ds->nsz, v = ds->sq / (double)ds->nsz - mean * mean, S = 1;
	char b[64], note[256], per[96] = "";

	if (ds->next)
		snprintf(per, sizeof(per), " (%llu by the end of their furthest read or "
			 "write)", (unsigned long long)ds->next);

	if (m->mmap) {	/* a sample per page: what a fault reaches */
		m->spf = (uint64_t)llround(mean / (double)a->page_size);
		if (!m->spf)
			m->spf = 1;
		S = (double)m->spf;
		strcat(per, " over the samples per file");
		setu(m, CM_JOB_K_SAMPLES_PER_FILE, m->spf, "the mean file size in pages: a "
		     "sample is a page, what a page fault reaches (the job's own records "
		     "are not seen through a map)");
	}
	snprintf(b, sizeof(b), "%.0f", round(mean / S));
	set(m, CM_JOB_K_RECORD_LENGTH, b, "mean of %zu file sizes%s", ds->nsz, per);
	snprintf(b, sizeof(b), "%.0f", round(v > 0 ? sqrt(v) / S : 0));
	set(m, CM_JOB_K_RECORD_STDEV, b, "standard deviation of %zu file sizes%s", ds->nsz, per);
	snprintf(note, sizeof(note), "smallest of %zu file sizes%s", ds->nsz, per);
	setu(m, CM_JOB_K_RECORD_MIN, (uint64_t)llround((double)ds->mn / S), note);
	snprintf(note, sizeof(note), "largest of %zu file sizes%s", ds->nsz, per);
	setu(m, CM_JOB_K_RECORD_MAX, (uint64_t)llround((double)ds->mx / S), note);
}

/* The data set's files: their directory (common to all), names, sizes.
 * *dsdir: in m->dsdir. */
static void model_dataset(struct model *m, const char **dsdir, size_t *dslen)
{
	struct dsfiles ds;
	size_t nsub;
	char b[64], note[256];

	dataset_files(m, &ds);
	if (!ds.n) {
		set(m, CM_JOB_K_NUM_FILES, "0", "no data set: the trace reads no file "
		    "again, nor any that may be data");
		return;
	}
	nsub = dataset_subfolders(m, ds.dl);
	*dsdir = ds.dir;
	*dslen = ds.dl;
	snprintf(note, sizeof(note), "%zu files %s in the data set directory %.*s",
		 ds.n, m->mmap ? "faulted in through a map" : "read", (int)ds.dl, ds.dir);
	setu(m, CM_JOB_K_NUM_FILES, ds.n, note);
	snprintf(note, sizeof(note), "subdirectories of %.*s holding data set files",
		 (int)ds.dl, ds.dir);
	setu(m, CM_JOB_K_NUM_SUBFOLDERS, nsub, note);
	while (ds.pl && ds.pre[ds.pl - 1] >= '0' && ds.pre[ds.pl - 1] <= '9')
		ds.pl--;	/* the index's leading digits are not the prefix */
	if (ds.pl && (!ds.suf || ds.pre + ds.pl <= ds.suf)) {
		snprintf(b, sizeof(b), "%.*s", (int)(ds.pl < sizeof(b) - 1 ? ds.pl : sizeof(b) - 1),
			 ds.pre);
		set(m, CM_JOB_K_FILE_PREFIX, b, "all %zu names begin with it", ds.n);
	}
	if (ds.suf && ds.suf[1]) {
		snprintf(b, sizeof(b), "%s", ds.suf);
		set(m, CM_JOB_K_FILE_SUFFIX, b, "all %zu names end with it", ds.n);
	}
	if (ds.nsz)
		dataset_sizes(m, &ds);
}

/* The reader of a data set read through mmap: its faults (ana_mmap.c). */
static void model_mmap_reader(struct model *m)
{
	const struct ana_mmap *mm = &m->mm;
	double r = mm->rd_pairs ? (double)mm->rd_nonconsec / (double)mm->rd_pairs : NAN;

	set(m, CM_JOB_K_MMAP, "on", "the data set is read through a map: %llu fault reads, "
	    "%.1f MiB", (unsigned long long)mm->reads, (double)mm->bytes / 1048576.0);
	if (mm->readers)
		setu(m, CM_JOB_K_READ_THREADS, mm->readers, "the most threads faulting the data "
		     "set in at once");
	if (mm->max_len)
		setu(m, CM_JOB_K_TRANSFER_SIZE, mm->max_len, "the largest fault read of a data "
		     "set file: the fault window (a fault and its fault-around)");
	if (!isnan(r))
		set(m, CM_JOB_K_SAMPLE_SHUFFLE, r >= MODEL_SHUFFLE_MIN ? "on" : "off",
		    "fault read randomness %.3f (on from %.1f)", r, MODEL_SHUFFLE_MIN);
}

/* The most threads reading files that may be data at once: the largest
 * overlap of the threads' first-to-last data reads, counting the threads
 * with 1% of those reads or more (not one that read a file once). */
static size_t reader_threads(const struct ana *a)
{
	const struct ana_sys *s = &a->sys;
	size_t best = 0;

	for (size_t i = 0; i < s->nthreads; i++) {
		const struct ana_thread *t = &s->threads[i];
		size_t k = 0;

		if (!t->data_reads || t->data_reads * 100 < s->data_reads)
			continue;
		for (size_t j = 0; j < s->nthreads; j++) {
			const struct ana_thread *u = &s->threads[j];

			if (u->data_reads && u->data_reads * 100 >= s->data_reads &&
			    u->data_first <= t->data_first && u->data_last >= t->data_first)
				k++;
		}
		if (k > best)
			best = k;
	}
	return best;
}

static void model_reader(struct model *m)
{
	const struct ana *a = m->a;
	const struct ana_group *g = &a->ds;
	double tau, r = ana_file_order_randomness(a, &tau);
	size_t nt = reader_threads(a);
	char b[32];

	if (nt) {
		snprintf(b, sizeof(b), "%zu", nt);
		set(m, CM_JOB_K_READ_THREADS, b, "the most threads reading data files at once");
	}
	if (g->streams && g->st_cls[0] != g->streams && a->sys.data_read_max) {
		snprintf(b, sizeof(b), "%llu", (unsigned long long)a->sys.data_read_max);
		set(m, CM_JOB_K_TRANSFER_SIZE, b, "the largest read of a data file (%llu reads "
		    "in %llu reads of a file)", (unsigned long long)g->read_ops,
		    (unsigned long long)g->streams);
	}

	if (!isnan(r))
		set(m, CM_JOB_K_FILE_SHUFFLE, r >= MODEL_SHUFFLE_MIN ? "on" : "off",
		    "file order randomness %.3f (on from %.1f)", r, MODEL_SHUFFLE_MIN);
	if (g->streams && g->st_cls[0] == g->streams)
		set(m, CM_JOB_K_TRANSFER_SIZE, "0", "each of %llu reads of a file read it "
		    "in one request", (unsigned long long)g->streams);
	if (g->streams && g->rd_hist[0] >= g->streams)
		set(m, CM_JOB_K_READ_EOF, "on", "%llu 0-byte reads in %llu reads of a file",
		    (unsigned long long)g->rd_hist[0], (unsigned long long)g->streams);
	else if (g->streams && !g->rd_hist[0])
		set(m, CM_JOB_K_READ_EOF, "off", "no 0-byte read in %llu reads of a file",
		    (unsigned long long)g->streams);
	(void)b;
}

/*
 * Steps and compute, from the training thread (ana_train.c; iotape-
 * analyze(1), ACCELERATOR): batch_size is the data set's samples of an
 * epoch over its steps in the epochs (a step per batch it takes from its
 * loaders, or per gap of 1 ms of work or more), computation_time and its
 * stdev those of its steps' work, its waits for the loaders left out
 * (DLIO's computation_time: what the accelerator does per step).
 */
static void model_train(struct model *m, uint64_t files)
{
	struct ana *a = (struct ana *)m->a;
	const struct ana_train *tr = &a->train;
	size_t nep = m->nep;
	uint64_t steps = 0, n = 0, batch = 0, samples = files * m->spf;
	double mean = 0, sd = 0;
	char b[32];

	if (nep)
		set(m, CM_JOB_K_EPOCHS, (snprintf(b, sizeof(b), "%zu", nep), b),
		    m->mmap ? "%zu generations of threads faulting the data set in (a map "
		    "lives an epoch)" : "%zu epochs by coverage of the data set", nep);
	if (!tr->found)
		return;
	if (nep && files && !m->mmap && tr->nep == nep) {
		for (size_t k = 0; k < nep; k++)
			n += tr->ep[k].steps;
		mean = tr->step_mean_ms;
		sd = tr->step_sd_ms;
	} else if (nep && files) {
		/* through mmap: its steps (ana_train's) that ended in the
		 * faults' epochs, their work from its steps (the analysis
		 * knows no epochs there) */
		for (uint64_t k = 0; k < tr->steps; k++)
			n += tr->ends[k] >= m->ep_from && tr->ends[k] <= m->ep_to;
		mean = tr->step_mean_ms;
		sd = tr->step_sd_ms;
	}
	if (n >= nep && nep && files) {
		batch = (uint64_t)llround((double)samples * (double)nep / (double)n);
		if (!batch)
			batch = 1;
		snprintf(b, sizeof(b), "%llu", (unsigned long long)batch);
		set(m, CM_JOB_K_BATCH_SIZE, b, "%llu %s per epoch over thread %u's %llu "
		    "steps in the %zu epochs", (unsigned long long)samples,
		    m->mmap ? "samples" : "files", tr->tid, (unsigned long long)n, nep);
		steps = nep * ((samples + batch - 1) / batch);
	}
	if (!files && a->nckpts) {
		/* checkpoints only: a step per checkpoint, its compute all
		 * that came before it (the steps between two checkpoints are
		 * not told apart) */
		steps = a->nckpts;
		snprintf(b, sizeof(b), "%zu", a->nckpts);
		set(m, CM_JOB_K_EPOCHS, "1", "no data set: one epoch of checkpoints");
		set(m, CM_JOB_K_STEPS_PER_EPOCH, b, "a step per checkpoint (%zu): the compute "
		    "between two checkpoints is one step", a->nckpts);
		set(m, CM_JOB_K_CKPT_STEPS, "1", "a checkpoint after each step");
		snprintf(b, sizeof(b), "%.6f", tr->work_ns / 1e9 / (double)steps);
		set(m, CM_JOB_K_COMPUTE, b, "thread %u: %.3f s of work in all, start-up "
		    "included, over %llu steps", tr->tid, tr->work_ns / 1e9,
		    (unsigned long long)steps);
		return;
	}
	if (!n) {	/* no epochs: the thread's own steps */
		n = tr->steps;
		mean = tr->step_mean_ms;
		sd = tr->step_sd_ms;
	}
	if (!n) {
		set(m, CM_JOB_K_COMPUTE, "0", "thread %u: no step of 1 ms of work or more",
		    tr->tid);
		return;
	}
	snprintf(b, sizeof(b), "%.6f", mean / 1e3);
	set(m, CM_JOB_K_COMPUTE, b, "thread %u: mean work of its %llu steps%s, its waits "
	    "for the loaders left out", tr->tid, (unsigned long long)n,
	    nep ? " in the epochs" : "");
	snprintf(b, sizeof(b), "%.6f", sd / 1e3);
	set(m, CM_JOB_K_COMPUTE_STDEV, b, "thread %u: standard deviation of the work of "
	    "its %llu steps (mean %.1f ms)", tr->tid, (unsigned long long)n, mean);
	if (sd > 0)
		set(m, CM_JOB_K_COMPUTE_DIST, "lognormal", "measured steps are skewed: a "
		    "log-normal draw keeps their mean where the stdev nears it");
	(void)steps;
}

static void model_checkpoint(struct model *m, const char **dir, size_t *dl)
{
	const struct ana *a = m->a;
	uint64_t bytes = 0, files = 0, syncs = 0, ops = 0, n = a->nckpts;
	double sq = 0;
	const char *c0file = NULL;
	int same_files = 1;
	char b[32];

	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct ana_ckpt *c = &a->ckpts[i];
		if (!c0file && c->file != ANA_NONE && a->files[c->file].path)
			c0file = ana_file_path(a, &a->files[c->file], m->ckfile);
		ops += c->ops;
		sq += c->sq;
		bytes += c->bytes;
		same_files &= c->files == a->ckpts[0].files;
		files += c->files;
		syncs += c->syncs > 0;
		if (!*dir && c->file != ANA_NONE && a->files[c->file].path) {
			*dir = ana_file_path(a, &a->files[c->file], m->ckfile);
			*dl = dir_len(*dir);
		}
	}
	snprintf(b, sizeof(b), "%.0f", round((double)bytes / (double)n));
	set(m, CM_JOB_K_CKPT_SIZE, b, "mean of %llu checkpoints, %llu bytes in all",
	    (unsigned long long)n, (unsigned long long)bytes);
	if (same_files) {
		snprintf(b, sizeof(b), "%llu", (unsigned long long)a->ckpts[0].files);
		set(m, CM_JOB_K_CKPT_FILES, b, "files written by each of %llu checkpoints",
		    (unsigned long long)n);
	}
	if (syncs == n || !syncs)
		set(m, CM_JOB_K_CKPT_FSYNC, syncs ? "on" : "off", "%llu of %llu checkpoints synced",
		    (unsigned long long)syncs, (unsigned long long)n);
	if (c0file && strlen(c0file) > 4 && !strcmp(c0file + strlen(c0file) - 4, ".tmp"))
		set(m, CM_JOB_K_CKPT_RENAME, "on", "the checkpoint files are written as NAME.tmp "
		    "(then renamed)");
	if (ops && bytes) {	/* the size of the write that wrote the mean byte */
		snprintf(b, sizeof(b), "%.0f", round(sq / (double)bytes));
		set(m, CM_JOB_K_CKPT_TRANSFER, b, "%llu checkpoint writes of %.0f bytes on "
		    "average; weighted by their bytes, as here", (unsigned long long)ops,
		    (double)bytes / (double)ops);
	}
	if (ana_epochs_known(a) && ana_epoch_count(a) && ana_epoch_count(a) % n == 0) {
		snprintf(b, sizeof(b), "%llu", (unsigned long long)(ana_epoch_count(a) / n));
		set(m, CM_JOB_K_CKPT_EPOCHS, b, "%llu checkpoints in %zu epochs",
		    (unsigned long long)n, ana_epoch_count(a));
	}
}

struct model_arg {
	const struct ana *a;
	struct cm_job *job;
};

static int model_fill(void *arg)
{
	const struct ana *a = ((struct model_arg *)arg)->a;
	struct cm_job *job = ((struct model_arg *)arg)->job;
	struct model m = { .a = a, .job = job };
	const char *ds = NULL, *ck = NULL;
	size_t dsl = 0, ckl = 0, rl;
	char b[64], *v;

	if ((m.err = cm_job_set_header(job, "derived from a trace by iotape model")))
		return m.err;
	set(&m, CM_JOB_K_SRC_TRACE, a->path, "the trace analysed");
	snprintf(b, sizeof(b), "%.3f", (ana_trace_end(a) - a->t0) / 1e9);
	set(&m, CM_JOB_K_SRC_DURATION, b, "first to last event");
	snprintf(b, sizeof(b), "%llu", (unsigned long long)a->sys.n_events);
	set(&m, CM_JOB_K_SRC_EVENTS, b, "syscall events");
	if (m.err)
		return m.err;
	m.spf = 1;
	if (a->mmap_file != ANA_NONE) {
		if ((m.err = ana_mmap_reads(a, &m.mm)))
			return m.err;
		m.mmap = m.mm.files > 0;
	}
	if (m.mmap) {
		m.nep = m.mm.epochs;
		m.ep_from = m.mm.first_ns;
		m.ep_to = m.mm.last_ns;
	} else if (ana_epochs_known(a) && a->sys.nepochs >= ana_epoch_count(a) &&
		   (m.nep = ana_epoch_count(a))) {
		m.ep_from = a->sys.epochs[0].start_ns;
		m.ep_to = a->sys.epochs[m.nep - 1].end_ns;
	}
	model_dataset(&m, &ds, &dsl);
	if (ds && m.mmap)
		model_mmap_reader(&m);
	else if (ds)
		model_reader(&m);
	model_train(&m, ds ? (m.mmap ? m.mm.files : a->ds.files) : 0);
	model_checkpoint(&m, &ck, &ckl);
	/* the folders, under the common root of both (the job's DIR) */
	rl = ds ? dir_len_n(ds, dsl) : 0;
	if (ds && ck) {
		rl = common_dir(ds, dsl, ck, ckl);
		if (rl == dsl || rl == ckl)
			rl = dir_len_n(ds, rl);
	} else if (ck) {
		rl = dir_len_n(ck, ckl);
	}
	if (ds && dsl > rl) {
		v = strndup(ds + rl + 1, dsl - rl - 1);
		if (!v)
			return -ENOMEM;
		set(&m, CM_JOB_K_DATA_FOLDER, v, "the data set directory %.*s under the root %.*s",
		    (int)dsl, ds, (int)rl, ds);
		free(v);
	}
	if (ck && ckl > rl) {
		v = strndup(ck + rl + 1, ckl - rl - 1);
		if (!v)
			return -ENOMEM;
		set(&m, CM_JOB_K_CKPT_FOLDER, v, "the checkpoints' directory %.*s under the root %.*s",
		    (int)ckl, ck, (int)rl, ck);
		free(v);
	}
	return m.err;
}

int ana_model(const struct ana *a, struct cm_job *job)
{
	struct model_arg arg = { a, job };

	return ana_guard(model_fill, &arg);
}
