/* SPDX-License-Identifier: MIT */
/*
 * ana_compare.h - two traces' analyses side by side (iotape-compare(1)),
 * and the fidelity checks of a replay (B is the recording of `iotape
 * replay` of A) and of a model (`model --check`: B is the recording of the
 * replay of a job file derived from A).
 *
 * The comparison (ana_compare.c) runs the analyze engine on both traces
 * with files_only set and matches their files by normalized path; the
 * checks and their thresholds (ana_fidelity.c) are the only place that
 * decides whether B reproduces A, for `compare --check`, `report
 * --compare` and whoever else asks; the report (ana_cmp_report.c) writes
 * the comparison as text or JSON (schema iotape-compare/1) to a FILE *.
 *
 * A comparison is made in steps, so that the caller can say what it
 * wants between them (a damaged table, a trace without syscall events):
 *
 *	ana_cmp_init(&c, a, b, &opts);
 *	for (s = 0; s < 2; s++)
 *		ana_cmp_load(&c, s) ... ana_cmp_fold(&c, s);
 *	ana_cmp_finish(&c, &checks);
 *	ana_cmp_text(stdout, &c, &checks, top);
 *	ana_cmp_release(&c);
 *
 * Every function returns 0 or -errno and prints nothing.
 */
#ifndef ANA_COMPARE_H
#define ANA_COMPARE_H

#include <stdio.h>
#include "analyze.h"

/* ------------------------------------------------------------- checks */

/* The fidelity thresholds (iotape-compare(1), CHECKS). */
#define ANA_CHK_RANDOMNESS 0.02	/* |B - A| of read_randomness */
#define ANA_CHK_GAP 0.05	/* relative, total compute gap */
#define ANA_CHK_DURATION 0.10	/* relative, duration */

/*
 * Pass/fail checks (`compare --check`, `model --check`): each a name, ok
 * and a one-line detail.  The capacity is above what either makes
 * (compare 11, model 8); a check past it is not kept but counts as failed.
 */
#define ANA_CHECKS_MAX 16
struct ana_check {
	char name[48];
	int ok;
	char detail[160];
};
struct ana_checks {
	struct ana_check v[ANA_CHECKS_MAX];
	size_t n;
	int failed;
};
void ana_check_add(struct ana_checks *k, const char *name, int ok, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "  ok   NAME  DETAIL" per check (details escaped as paths are), names
 * padded to the longest (at least 16), then "  PASSED: ..." or "FAILED". */
void ana_checks_print(FILE *o, const struct ana_checks *k);
/* (b - a) / a: 0 when equal, infinite when a is 0 and b is not. */
double ana_rel_diff(double a, double b);

/* ------------------------------------------------------ model --check */

/* The thresholds of `model --check` (iotape-model(1), CHECK). */
#define ANA_MCHK_BYTES	 0.02	/* read bytes per epoch: relative */
#define ANA_MCHK_TVD	 0.10	/* request sizes: total variation distance */
#define ANA_MCHK_RAND	 0.05	/* read and file-order randomness: absolute */
#define ANA_MCHK_COMPUTE 0.05	/* compute per step: relative */
#define ANA_MCHK_BATCH	 0.05	/* batch size: relative */
#define ANA_MCHK_AU	 0.02	/* accelerator utilization: absolute */

/*
 * One side of `model --check`: A, the trace, or B, the recording of its
 * model's replay, as the checks compare them.  ana_model_side fills what
 * the analysis tells (the data set's reads, or of a data set read through
 * mmap its page faults; A's training thread, its compute per step and
 * batch); the caller adds what the replays' reports tell (AU, and B's
 * compute per step and batch, its model's steps being the model's).
 */
struct ana_model_side {
	size_t epochs;		/* counted, or 1 when unknown */
	int epochs_known;
	uint32_t tid;		/* the training thread (ana_train.c) */
	double au_dlio, au_run;	/* of the replay: DLIO's (NAN: none), over the run */
	double step_s;		/* the training thread's compute per step */
	double batch;		/* data set samples (files) per step */
	uint64_t files, read_bytes;
	const uint64_t *rd_hist;	/* (the analysis's, or mm's) */
	double rand, order_rand;
	int mmap;		/* the data set is read through mmap: mm */
	struct ana_mmap mm;
};
/* s from analysis a (A: model 0, B: model 1): 0 or -errno. */
int ana_model_side(const struct ana *a, int model, struct ana_model_side *s);
/* The checks of `model --check`, A against B, added to k. */
void ana_model_checks(const struct ana_model_side *A, const struct ana_model_side *B,
		      struct ana_checks *k);

/* --------------------------------------------------------- comparison */

/* One file, by normalized path, on both sides (0 = A, 1 = B). */
struct ana_cmp_file {
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
 * over their files (ana_cmp_finish); pages only of the files on both sides. */
struct ana_cmp_group {
	uint64_t files[2], rops[2], rbytes[2], pairs[2], nonconsec[2], seq[2];
	uint64_t pairs_nf[2], nonconsec_nf[2];	/* files without fault reads */
	uint64_t acc[2], miss[2];
	uint64_t rd_hist[2][ANA_SZ_BUCKETS], wr_hist[2][ANA_SZ_BUCKETS];
};

enum { ANA_CG_DATA, ANA_CG_OTHER, ANA_CG_ALL };

struct ana_cmp_opts {
	/* B replayed A under this directory (absolute, resolved, no trailing
	 * '/'; compare --map): B counts only its files under it, named
	 * without it, and A's page faults the replay issues as reads count
	 * as A's reads.  NULL: none. */
	const char *under;
	int no_metadata;	/* B replayed without metadata ops: not checked */
	/* B is A anonymized (compare --key): A's path as B names it, in *out
	 * (the callee's, valid until its next call); 0 or -errno.  NULL: none */
	int (*name_a)(void *arg, const char *path, const char **out);
	void *name_arg;
};

struct ana_cmp {
	struct ana a[2];
	const char *path[2];
	struct ana_cmp_opts o;
	struct ana_cmp_file *f;	/* by key, once finished */
	size_t nf, capf;
	/* key -> f[] (ana_compare.c key_find): open addressing, each slot
	 * f[]'s index and the top of its key's hash; the keys in chunks (a
	 * million files' keys: no allocation and no map entry each) */
	struct ana_cmp_kslot { uint32_t id, tag; } *ks;
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
	struct ana_cmp_group g[3];	/* ANA_CG_* */
	int have_cache[2];
	uint64_t fault_reads, fault_bytes;	/* A's page faults that replay reads */
	uint64_t fault_only;	/* files A only mapped: left out */
	int metadata;		/* B replayed A's metadata ops (under, no
				 * no_metadata): checked */
};

/* Set c up to compare traces a and b (the strings and o->name_arg are
 * the caller's, kept until ana_cmp_release). */
void ana_cmp_init(struct ana_cmp *c, const char *a, const char *b, const struct ana_cmp_opts *o);
/* Analyse side s (0: A, 1: B; A first) into c->a[s]: 0 or the error of
 * ana_run.  The caller may then look at c->a[s] (damage, have). */
int ana_cmp_load(struct ana_cmp *c, int s);
/* Fold side s's analysis into the file table: 0, -ENOMEM, or the error
 * of reading A's page faults (with o.under). */
int ana_cmp_fold(struct ana_cmp *c, int s);
/* Once both sides are folded: the files sorted, the groups summed and
 * the fidelity checks into k (ana_cmp_checks).  0 or -ENOMEM. */
int ana_cmp_finish(struct ana_cmp *c, struct ana_checks *k);
/* The fidelity checks of a finished comparison, added to k. */
void ana_cmp_checks(const struct ana_cmp *c, struct ana_checks *k);
/* A file differs when its read or write ops or bytes do. */
int ana_cmp_file_differs(const struct ana_cmp_file *f);
/* Frees what c holds (not c); c may be only initialized. */
void ana_cmp_release(struct ana_cmp *c);

/* ------------------------------------------------------------- report */

/* The comparison as text, section by section; CHECK only with k (top:
 * at most that many differing files and threads, < 0: all). */
void ana_cmp_text(FILE *o, const struct ana_cmp *c, const struct ana_checks *k, long top);
/* The comparison as JSON (schema iotape-compare/1), k its "fidelity":
 * 0, or -ENOMEM. */
int ana_cmp_json(FILE *o, const struct ana_cmp *c, const struct ana_checks *k);

#endif
