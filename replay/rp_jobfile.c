/* SPDX-License-Identifier: MIT */
/*
 * rp_jobfile.c - the job-file source: a synthetic training job described by
 * an INI file (man/iotape-job.5), generated as the replay asks for ops.
 *
 * Thread 0 is the trainer, threads 1..R the readers (DataLoader workers).
 * Epoch e walks the files in the order perm(e, 0..N-1): a keyed bijection
 * (a Feistel network with cycle walking), so no permutation is stored.
 * Batch b of an epoch (samples b*B .. b*B+B-1 of that order) is read by
 * reader b % R; for each file of it: open, reads, [0-byte read at EOF],
 * close.  The trainer's step s is two placeholder ops (RP_F_STEP, never
 * issued): W waits for the reader's op count at the end of batch s, then
 * C carries the compute gap; after some steps it writes a checkpoint.  A
 * reader's batch b waits for the trainer's C of step b - prefetch * R.
 * Op counts are computed, not stored: the trainer keeps, per reader, the
 * ops of the batches it has consumed (it counts each batch's groups), and
 * a reader knows the trainer's op count at any step in closed form.
 * Without a data set (num_files = 0, a job of checkpoints only) there are
 * no readers: a step's W waits for nothing, and an epoch is
 * steps_per_epoch steps (default 1).
 *
 * Memory: the layout (files, threads) and O(R) counters; nothing per op.
 */
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include "fmt.h"
#include "job.h"
#include "parse.h"
#include "replay.h"

/* ------------------------------------------------------------ the keys */

/*
 * The keys, their types, ranges and defaults are common/job.h's
 * cm_job_keys[], which cm_job_parse() checks a value against; here, the
 * field of struct rp_jobspec each lands in, of the C type its key's type
 * says (an informative key, CM_JOB_INFO, lands nowhere).
 */
enum { F_NONE, F_CHARS, F_U64, F_DOUBLE, F_INT };	/* F_NONE: no field */
struct jfield {
	unsigned char ctype;	/* F_* */
	size_t off, len;	/* len: the field's size */
};
#define FSIZE(f) sizeof(((struct rp_jobspec *)0)->f)
#define S(f) { F_CHARS, offsetof(struct rp_jobspec, f), FSIZE(f) }
#define U(f) { F_U64, CM_OPT_OFF(struct rp_jobspec, f, uint64_t), FSIZE(f) }
#define D(f) { F_DOUBLE, CM_OPT_OFF(struct rp_jobspec, f, double), FSIZE(f) }
#define I(f) { F_INT, CM_OPT_OFF(struct rp_jobspec, f, int), FSIZE(f) }
static const struct jfield fields[CM_JOB_NKEYS] = {
	[CM_JOB_K_NAME] = S(name),
	[CM_JOB_K_DATA_FOLDER] = S(data_folder),
	[CM_JOB_K_NUM_FILES] = U(num_files),
	[CM_JOB_K_NUM_SUBFOLDERS] = U(num_subfolders),
	[CM_JOB_K_FILE_PREFIX] = S(file_prefix),
	[CM_JOB_K_FILE_SUFFIX] = S(file_suffix),
	[CM_JOB_K_RECORD_LENGTH] = U(record_length),
	[CM_JOB_K_RECORD_STDEV] = U(record_length_stdev),
	[CM_JOB_K_RECORD_MIN] = U(record_length_min),
	[CM_JOB_K_RECORD_MAX] = U(record_length_max),
	/* samples of a file are byte ranges of it: nothing is kept per sample */
	[CM_JOB_K_SAMPLES_PER_FILE] = U(num_samples_per_file),
	[CM_JOB_K_GENERATE] = I(generate),
	[CM_JOB_K_READ_THREADS] = U(read_threads),
	[CM_JOB_K_BATCH_SIZE] = U(batch_size),
	[CM_JOB_K_TRANSFER_SIZE] = U(transfer_size),
	[CM_JOB_K_FILE_SHUFFLE] = I(file_shuffle),
	[CM_JOB_K_SAMPLE_SHUFFLE] = I(sample_shuffle),
	[CM_JOB_K_PREFETCH] = U(prefetch_size),
	[CM_JOB_K_ODIRECT] = I(odirect),
	[CM_JOB_K_READ_EOF] = I(read_eof),
	[CM_JOB_K_DROP_LAST] = I(drop_last),
	[CM_JOB_K_MMAP] = I(mmap),
	[CM_JOB_K_EPOCHS] = U(epochs),
	[CM_JOB_K_STEPS_PER_EPOCH] = U(steps_per_epoch),
	[CM_JOB_K_COMPUTE] = D(computation_time),
	[CM_JOB_K_COMPUTE_STDEV] = D(computation_time_stdev),
	[CM_JOB_K_COMPUTE_DIST] = I(computation_time_distribution),
	[CM_JOB_K_SEED] = U(seed),
	[CM_JOB_K_CKPT_FOLDER] = S(checkpoint_folder),
	[CM_JOB_K_CKPT_AFTER] = U(checkpoint_after_epoch),
	[CM_JOB_K_CKPT_EPOCHS] = U(epochs_between_checkpoints),
	[CM_JOB_K_CKPT_STEPS] = U(steps_between_checkpoints),
	[CM_JOB_K_CKPT_WRITES] = U(num_checkpoints_write),
	[CM_JOB_K_CKPT_READS] = U(num_checkpoints_read),
	[CM_JOB_K_CKPT_SIZE] = U(ckpt_size),
	[CM_JOB_K_CKPT_FILES] = U(ckpt_files),
	[CM_JOB_K_CKPT_TRANSFER] = U(ckpt_transfer_size),
	[CM_JOB_K_CKPT_FSYNC] = I(ckpt_fsync),
	[CM_JOB_K_CKPT_RENAME] = I(ckpt_rename),
	[CM_JOB_K_CKPT_READ_BACK] = I(ckpt_read_back),
};
#undef S
#undef U
#undef D
#undef I
#undef FSIZE
_Static_assert(CM_JOB_NKEYS <= 64, "key_line[] holds 64 keys");
_Static_assert(CM_JOB_NSECTIONS <= 8, "sec_line[] holds 8 sections");

/* Whether key was given (in the file or by --set). */
static int seen(const struct rp_jobspec *j, int key)
{
	return j->seen[key / 64] >> (key % 64) & 1;
}

/* Store v, value parsed as key, in its field of j: 0, or -ENOTSUP where the
 * key has no field of its type (a bug of fields[]). */
static int store(struct rp_jobspec *j, int key, const char *value, const struct cm_job_val *v)
{
	static const unsigned char ctype[] = {
		[CM_JOB_STR] = F_CHARS, [CM_JOB_UINT] = F_U64, [CM_JOB_SIZE] = F_U64,
		[CM_JOB_SECS] = F_DOUBLE, [CM_JOB_BOOL] = F_INT, [CM_JOB_CHOICE] = F_INT,
	};
	const struct cm_job_keydef *k = &cm_job_keys[key];
	const struct jfield *f = &fields[key];
	char *p = (char *)j + f->off;
	size_t n;

	if (k->flags & CM_JOB_INFO)
		return 0;
	if (f->ctype != ctype[k->type] || (f->ctype == F_CHARS && (!k->max || f->len <= k->max)))
		return -ENOTSUP;
	switch (f->ctype) {
	case F_CHARS:
		snprintf(p, f->len, "%s", value);
		/* a folder's trailing '/' (DLIO writes 'data/NAME/') */
		n = strlen(p);
		if (strstr(k->name, "_folder"))
			while (n > 1 && p[n - 1] == '/')
				p[--n] = 0;
		break;
	case F_U64:
		*(uint64_t *)p = v->u;
		break;
	case F_DOUBLE:
		*(double *)p = v->d;
		break;
	case F_INT:
		*(int *)p = v->c;
		break;
	}
	return 0;
}

void rp_jobspec_init(struct rp_jobspec *j)
{
	struct cm_job_val v;
	char why[256];

	memset(j, 0, sizeof(*j));
	for (int k = 0; k < CM_JOB_NKEYS; k++)
		if (cm_job_keys[k].def &&
		    !cm_job_parse(k, cm_job_keys[k].def, &v, why, sizeof(why)))
			store(j, k, cm_job_keys[k].def, &v);
}

/* Set key sec.key to value: its index in cm_job_keys[], or -EINVAL with
 * the reason in why. */
static int set_key(struct rp_jobspec *j, const char *sec, const char *key, const char *value,
		   char *why, size_t whylen)
{
	struct cm_job_val v;
	int i;

	if (cm_job_section(sec) < 0) {
		snprintf(why, whylen, "unknown section [%s]", sec);
		return -EINVAL;
	}
	if ((i = cm_job_find(sec, key)) < 0) {
		snprintf(why, whylen, "unknown key '%s' in [%s]", key, sec);
		return -EINVAL;
	}
	if (cm_job_parse(i, value, &v, why, whylen) < 0)
		return -EINVAL;
	if (store(j, i, value, &v) < 0) {
		snprintf(why, whylen, "%s.%s: no field of its type in the job (a bug)", sec, key);
		return -EINVAL;
	}
	if (!strcmp(sec, "checkpoint"))
		j->checkpoint = 1;
	j->seen[i / 64] |= 1ull << (i % 64);
	return i;
}

/* ------------------------------------------------------------ the parser */

struct pctx {
	struct rp_jobspec *j;
	FILE *f;
	const char *path;
	unsigned line;
	char *err;
	size_t errlen;
	int failed;
	unsigned sections;	/* section headers read */
};

/* libinih's reader: counts lines (the handler's line is the last read), and
 * checks section headers itself (inih calls the handler for keys only). */
static char *reader(char *buf, int size, void *arg)
{
	struct pctx *p = arg;
	char *s = fgets(buf, size, p->f), *q, *e;

	if (!s)
		return NULL;
	p->line++;
	p->j->last_line = p->line;
	for (q = s; *q == ' ' || *q == '\t'; q++)
		;
	if (*q == '[' && !p->failed) {
		if ((e = strchr(q, ']'))) {
			char name[64];
			int i;
			snprintf(name, sizeof(name), "%.*s", (int)(e - q - 1), q + 1);
			if ((i = cm_job_section(name)) < 0) {
				snprintf(p->err, p->errlen, "%s:%u: unknown section [%s]", p->path,
					 p->line, name);
				p->failed = 1;
			} else {
				p->j->sec_line[i] = p->line;
				p->sections++;
			}
		}
	}
	return s;
}

static int handler(void *arg, const char *sec, const char *key, const char *value)
{
	struct pctx *p = arg;
	char why[384];
	int i;

	if (p->failed)
		return 0;
	if (!*sec) {
		snprintf(p->err, p->errlen, "%s:%u: '%s' outside a section", p->path, p->line, key);
		p->failed = 1;
		return 0;
	}
	if ((i = set_key(p->j, sec, key, value, why, sizeof(why))) < 0) {
		snprintf(p->err, p->errlen, "%s:%u: %s", p->path, p->line, why);
		p->failed = 1;
		return 0;
	}
	p->j->key_line[i] = p->line;
	return 1;
}

int rp_jobspec_parse(struct rp_jobspec *j, const char *path, char *err, size_t errlen)
{
	struct pctx p = { .j = j, .path = path, .err = err, .errlen = errlen };
	int rc;

	rp_jobspec_init(j);
	if (!(p.f = fopen(path, "r"))) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	rc = ini_parse_stream(reader, &p, handler, &p);
	fclose(p.f);
	if (p.failed)
		return -EINVAL;
	if (!rc && !p.j->seen[0] && !p.j->seen[1] && !p.sections) {
		snprintf(err, errlen, "%s: %s: neither a job file (iotape-job(5): '[job]' and "
			 "'format = 1' first) nor a trace", path, p.line ? "no section, no key" :
			 "an empty file");
		return -EINVAL;
	}
	if (rc) {
		snprintf(err, errlen, "%s:%d: not an INI line (key = value, [section], ; comment)",
			 path, rc > 0 ? rc : (int)p.line);
		return -EINVAL;
	}
	return 0;
}

int rp_jobspec_set(struct rp_jobspec *j, const char *kv, const char *what, char *err,
		   size_t errlen)
{
	char buf[1024], why[384], *dot, *eq;
	int i;

	snprintf(buf, sizeof(buf), "%s", kv);
	eq = strchr(buf, '=');
	dot = strchr(buf, '.');
	if (!eq || !dot || dot > eq) {
		snprintf(err, errlen, "%s: not section.key=value", what);
		return -EINVAL;
	}
	*eq = *dot = 0;
	if ((i = set_key(j, buf, dot + 1, eq + 1, why, sizeof(why))) < 0) {
		snprintf(err, errlen, "%s: %s", what, why);
		return -EINVAL;
	}
	/* a check across keys names the option, not a line of the file */
	j->key_line[i] = RP_JOB_LINE_SET;
	snprintf(j->key_what[i], sizeof(j->key_what[i]), "%s", what);
	return 0;
}

/* Whether a folder name is confined (relative, no "..", not empty). */
static int bad_folder(const char *f)
{
	char buf[RP_JOB_STR];

	snprintf(buf, sizeof(buf), "%s", f);
	return !*f || strchr(f, '\n') || rp_path_map(buf) || strcmp(buf, f);
}

/* The line of sec.key in the file: the key's, its section's header, or
 * the last line; RP_JOB_LINE_SET where an option gave it. */
static unsigned key_line(const struct rp_jobspec *j, const char *sec, const char *key,
			 const char **what)
{
	int i = cm_job_find(sec, key), s = cm_job_section(sec);

	if (i >= 0 && j->key_line[i]) {
		*what = j->key_what[i];
		return j->key_line[i];
	}
	return s >= 0 && j->sec_line[s] ? j->sec_line[s] : j->last_line;
}

/* Whether sec.key was given (in the file or by --set). */
static int given(const struct rp_jobspec *j, const char *sec, const char *key)
{
	int i = cm_job_find(sec, key);

	return i >= 0 && seen(j, i);
}

/* "PATH:LINE: " of sec.key, or "--set KEY=VALUE: " where an option gave it,
 * then the message. */
static int bad(const struct rp_jobspec *j, const char *path, char *err, size_t errlen,
	       const char *sec, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
static int bad(const struct rp_jobspec *j, const char *path, char *err, size_t errlen,
	       const char *sec, const char *key, const char *fmt, ...)
{
	const char *what = NULL;
	unsigned l = key_line(j, sec, key, &what);
	va_list ap;
	int n;

	if (l == RP_JOB_LINE_SET)
		n = snprintf(err, errlen, "%s: ", what);
	else
		n = snprintf(err, errlen, "%s:%u: ", path, l ? l : j->last_line);
	if (n < 0 || (size_t)n >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int rp_jobspec_check(const struct rp_jobspec *j, const char *path, char *err, size_t errlen)
{
	/* num_files = 0: no data set, so none of its keys is required */
	int nodata = !j->num_files && given(j, "dataset", "num_files");
	int wr = given(j, "checkpoint", "num_checkpoints_write") ||
		 given(j, "checkpoint", "num_checkpoints_read");

	for (int i = 0; i < CM_JOB_NKEYS; i++) {
		const struct cm_job_keydef *k = &cm_job_keys[i];

		if (!(k->flags & CM_JOB_REQUIRED) || seen(j, i))
			continue;
		if (nodata && !strcmp(k->section, "dataset"))
			continue;
		int s = cm_job_section(k->section);
		unsigned line = j->sec_line[s] ? j->sec_line[s] : j->last_line;
		snprintf(err, errlen, "%s:%u: missing required key %s.%s", path, line, k->section,
			 k->name);
		return -EINVAL;
	}
#define BAD(sec, key, ...) return bad(j, path, err, errlen, sec, key, __VA_ARGS__)
	if (nodata && !j->checkpoint)
		BAD("dataset", "num_files", "dataset.num_files = 0 (no data set) needs a [checkpoint] "
		    "section: a job of checkpoints only");
	if ((!nodata || *j->data_folder) && bad_folder(j->data_folder))
		BAD("dataset", "data_folder", "dataset.data_folder: '%s' is not a relative path "
		    "under DIR (no '..', not empty)", j->data_folder);
	if (j->checkpoint && bad_folder(j->checkpoint_folder))
		BAD("checkpoint", "checkpoint_folder", "checkpoint.checkpoint_folder: '%s' is not a "
		    "relative path under DIR (no '..', not empty)", j->checkpoint_folder);
	if (strchr(j->file_prefix, '/'))
		BAD("dataset", "file_prefix", "dataset.file_prefix: '%s' has a '/'", j->file_prefix);
	if (strchr(j->file_suffix, '/'))
		BAD("dataset", "file_suffix", "dataset.file_suffix: '%s' has a '/'", j->file_suffix);
	if (j->record_length_max && j->record_length_min > j->record_length_max)
		BAD("dataset", "record_length_max", "dataset.record_length_min is above "
		    "record_length_max");
	if (j->num_subfolders > j->num_files)
		BAD("dataset", "num_subfolders", "dataset.num_subfolders is above num_files");
	if (j->num_files && j->num_samples_per_file > (1ull << 40) / j->num_files)
		BAD("dataset", "num_samples_per_file", "dataset.num_files x num_samples_per_file: "
		    "more than 2^40 samples");
	if (j->generate && nodata)
		BAD("dataset", "generate", "dataset.generate: on writes the data set: num_files "
		    "is 0");
	if (j->generate && j->checkpoint)
		BAD("dataset", "generate", "dataset.generate: on (the job writes the data set, "
		    "nothing else) and a [checkpoint] section exclude each other");
	if (j->generate && j->mmap)
		BAD("dataset", "generate", "dataset.generate and reader.mmap exclude each other");
	if (wr && !nodata)
		BAD("checkpoint", given(j, "checkpoint", "num_checkpoints_write") ?
		    "num_checkpoints_write" : "num_checkpoints_read",
		    "checkpoint.num_checkpoints_write, num_checkpoints_read are for a job of "
		    "checkpoints only (dataset.num_files = 0), as DLIO's");
	if (wr && j->num_checkpoints_write && j->num_checkpoints_read > j->num_checkpoints_write)
		BAD("checkpoint", "num_checkpoints_read", "checkpoint.num_checkpoints_read %llu is "
		    "above num_checkpoints_write %llu: it reads checkpoints the job wrote",
		    (unsigned long long)j->num_checkpoints_read,
		    (unsigned long long)j->num_checkpoints_write);
	if (j->checkpoint && !wr && !j->epochs_between_checkpoints && !j->steps_between_checkpoints)
		BAD("checkpoint", "epochs_between_checkpoints", "checkpoint: epochs_between_checkpoints "
		    "and steps_between_checkpoints are both 0");
	if (j->num_files && !j->generate && !rp_jobspec_steps_per_epoch(j))
		BAD("reader", "drop_last", "reader.drop_last: num_files x num_samples_per_file "
		    "(%llu) is below batch_size (%llu): no step", (unsigned long long)(j->num_files *
		    j->num_samples_per_file), (unsigned long long)j->batch_size);
#undef BAD
	return 0;
}

int rp_job_sniff(const char *path)
{
	unsigned char b[64];
	struct stat st;
	FILE *f;
	size_t n, i = 0;

	/* a FIFO or a device is no job file, and must not be read here (the
	 * trace source refuses it) */
	if (stat(path, &st) || !S_ISREG(st.st_mode) || !(f = fopen(path, "rb")))
		return 0;
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	if (n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf)
		i = 3;	/* a UTF-8 byte order mark */
	for (; i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'); i++)
		;
	if (i == n)
		return 1;	/* blank so far, or empty: the parser says which */
	return b[i] == '[' || b[i] == ';' || b[i] == '#';
}

/* ------------------------------------------------------------ the draws */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static double uniform(uint64_t key, uint64_t i)	/* (0, 1) */
{
	return ((double)(mix(key ^ mix(i)) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t key, uint64_t i)
{
	double u = uniform(key, 2 * i), v = uniform(key, 2 * i + 1);
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/*
 * Step s's compute, seconds: computation_time, or with a stdev a draw:
 * normal, its absolute value taken (DLIO's utility.sleep), or log-normal
 * of that mean and stdev (a model's: a folded normal raises the mean
 * where the stdev nears it, as measured steps' stdevs do): sigma^2 =
 * ln(1 + sd^2 / mean^2), mu = ln(mean) - sigma^2 / 2.  (The log-normal
 * draws of the loop are then scaled so that their mean is the mean:
 * jobsrc.ct_norm.)
 */
static double step_time(double mean, double sd, int lognormal, uint64_t seed, uint64_t s)
{
	if (sd <= 0 || mean <= 0)
		return mean > 0 ? mean : 0;
	if (!lognormal)
		return fabs(mean + sd * normal(seed ^ 0xc0ffee, s));
	double s2 = log1p(sd * sd / (mean * mean));
	return exp(log(mean) - s2 / 2 + sqrt(s2) * normal(seed ^ 0xc0ffee, s));
}

/* A keyed bijection on [0, n): a 4-round Feistel network on the smallest
 * even number of bits that holds n, walking the cycle until below n. */
struct perm {
	uint64_t n, key;
	unsigned half;
	uint64_t mask;
};

static void perm_init(struct perm *p, uint64_t n, uint64_t key)
{
	unsigned bits = 2;

	while (bits < 64 && (1ull << bits) < n)
		bits += 2;
	p->n = n;
	p->key = key;
	p->half = bits / 2;
	p->mask = (1ull << p->half) - 1;
}

static uint64_t perm_at(const struct perm *p, uint64_t x)
{
	if (p->n <= 1)
		return 0;
	do {
		uint64_t l = x >> p->half, r = x & p->mask;
		for (unsigned k = 0; k < 4; k++) {
			uint64_t t = l ^ (mix(p->key ^ (r << 3 | k)) & p->mask);
			l = r;
			r = t;
		}
		x = l << p->half | r;
	} while (x >= p->n);
	return x;
}

/* ------------------------------------------------------------ the source */

enum { P_BATCH, P_OPEN, P_READ, P_EOF, P_CLOSE };		/* reader phases */
enum { T_WAIT, T_COMPUTE, T_CKPT };				/* trainer phases */
enum { C_OPEN, C_WRITE, C_FSYNC, C_CLOSE, C_RENAME, C_ROPEN, C_READ, C_RCLOSE, C_NEXT };

struct gen {			/* one thread's place in its loop */
	unsigned phase;
	uint64_t e, b, i, iend, gend, p, j, co;
	uint32_t f;
	int whole, first;
	uint64_t *bm;		/* reader.mmap: the windows mapped this epoch */
	/* trainer */
	uint64_t s, ts, *rcnt;
	uint64_t ck;		/* the checkpoint written or read */
	unsigned shard, cph, rd;
};

/* When the trainer writes a checkpoint (DLIO's rules, main.py) */
enum { CK_NONE, CK_EPOCHS, CK_STEPS, CK_WR };

struct jobsrc {
	struct rp_source s;
	struct rp_jobspec j;
	uint64_t N, S, B, R, P, NS, spe, nsteps, ck_ops;
	uint64_t NSread;	/* samples an epoch reads: spe batches' */
	uint64_t ntrain;	/* the training steps (the rest read checkpoints) */
	int mode;		/* CK_* */
	uint64_t A, E, K;	/* after_epoch, epochs_between, steps_between */
	uint64_t nck, nckr, ckr_ops;	/* checkpoints written, read after the
					 * last step; ops of one read */
	uint32_t ck_first;	/* layout file of checkpoint 0's first shard */
	uint32_t oflags;	/* the readers' opens */
	uint64_t *rl;		/* per file: sample (record) length */
	uint64_t W, nwin;	/* reader.mmap: the fault window, windows in all */
	uint64_t *wbase;	/* per file: its first window's index */
	double ct, ct_sd;
	int ct_log;		/* log-normal draws */
	double ct_norm;		/* the draws' scale: their sum over the loop is
				 * computation_time times the steps (1: no stdev) */
	struct gen *g;		/* per thread */
	/* lazy (rp_job_opts.lazy): the data set made as the run reaches it */
	int lazy, sparse;
	const int *dirfdp;
	pthread_t th;
	int th_started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Atomic uint64_t *ready;	/* a bit per data set file: made */
	_Atomic int stop;
	int perr;			/* the maker's error (-errno), 0 */
};

/* Whether the trainer writes a checkpoint after training step s (0-based,
 * below ntrain): by epochs, after epoch e (1-based) when e >= A and
 * (e - A) % E == 0; by steps, after each K-th step of an epoch (DLIO counts
 * its steps from 1 in each epoch); checkpoints only, after every step. */
static int ckpt_after(const struct jobsrc *js, uint64_t s)
{
	uint64_t e;

	switch (js->mode) {
	case CK_WR:
		return s < js->ntrain;
	case CK_STEPS:
		return (s % js->spe + 1) % js->K == 0;
	case CK_EPOCHS:
		if ((s + 1) % js->spe)
			return 0;
		e = (s + 1) / js->spe;
		return e >= js->A && (e - js->A) % js->E == 0;
	}
	return 0;
}

/* The checkpoints written after the training steps before step s. */
static uint64_t ck_before(const struct jobsrc *js, uint64_t s)
{
	uint64_t e;

	if (s > js->ntrain)
		s = js->ntrain;
	switch (js->mode) {
	case CK_WR:
		return s;
	case CK_STEPS:
		return s / js->spe * (js->spe / js->K) + s % js->spe / js->K;
	case CK_EPOCHS:
		e = s / js->spe;
		return e < js->A ? 0 : (e - js->A) / js->E + 1;
	}
	return 0;
}

/* The trainer's op count once step s's compute op is done: two ops a
 * step, the checkpoints written after the steps before, and the reads of
 * checkpoints after the read steps before (those past ntrain). */
static uint64_t trainer_seq(const struct jobsrc *js, uint64_t s)
{
	return 2 * (s + 1) + js->ck_ops * ck_before(js, s) +
	       js->ckr_ops * (s > js->ntrain ? s - js->ntrain : 0);
}

/* The steps done when checkpoint c is written (its name says them). */
static uint64_t ck_at(const struct jobsrc *js, uint64_t c)
{
	uint64_t m;

	switch (js->mode) {
	case CK_STEPS:
		m = js->spe / js->K;
		return c / m * js->spe + (c % m + 1) * js->K;
	case CK_EPOCHS:
		return (js->A + c * js->E) * js->spe;
	}
	return c + 1;
}

static uint64_t chunks(uint64_t len, uint64_t ts)
{
	return ts && len ? (len + ts - 1) / ts : 1;
}

static uint64_t epoch_key(const struct jobsrc *js, uint64_t e)
{
	return mix(js->j.seed ^ mix(0x5eed0000ull + e));
}

static uint32_t file_at(const struct jobsrc *js, uint64_t e, uint64_t pos)
{
	struct perm p;

	if (!js->j.file_shuffle)
		return (uint32_t)pos;
	perm_init(&p, js->N, epoch_key(js, js->j.file_shuffle == RP_SHUFFLE_ONCE ? 0 : e));
	return (uint32_t)perm_at(&p, pos);
}

/* The place in file f of its k-th sample read in epoch e. */
static uint64_t sample_at(const struct jobsrc *js, uint64_t e, uint32_t f, uint64_t k)
{
	struct perm p;

	if (!js->j.sample_shuffle || js->S <= 1)
		return k;
	perm_init(&p, js->S, mix(epoch_key(js, e) ^ f));
	return perm_at(&p, k);
}

/* reader.mmap: the fault windows that sample k of file f spans. */
static uint64_t sample_windows(const struct jobsrc *js, uint32_t f, uint64_t k)
{
	uint64_t off = k * js->rl[f];

	return (off + js->rl[f] - 1) / js->W - off / js->W + 1;
}

/* Ops of batch b of epoch e (a reader's).  With reader.mmap, an op per
 * window each sample spans: a read, or a placeholder where the window was
 * mapped already (map_next). */
static uint64_t batch_ops(const struct jobsrc *js, uint64_t e, uint64_t b)
{
	uint64_t i = b * js->B, iend = i + js->B < js->NS ? i + js->B : js->NS, n = 0;
	struct perm p;

	perm_init(&p, js->N, epoch_key(js, js->j.file_shuffle == RP_SHUFFLE_ONCE ? 0 : e));
	while (i < iend) {
		uint64_t pos = i / js->S, gend = (pos + 1) * js->S < iend ? (pos + 1) * js->S : iend;
		uint32_t f = js->j.file_shuffle ? (uint32_t)perm_at(&p, pos) : (uint32_t)pos;
		n += 2;
		if (js->W) {
			for (uint64_t k = i; k < gend; k++)
				n += sample_windows(js, f, sample_at(js, e, f, k - pos * js->S));
		} else {
			n += (gend - i) * chunks(js->rl[f], js->j.transfer_size);
			if (js->j.read_eof && i == pos * js->S && gend == (pos + 1) * js->S)
				n++;
		}
		i = gend;
	}
	return n;
}

/* Window w of file f: 1 if it was mapped already in bitmap bm, else mark
 * it and 0. */
static int map_test_set(const struct jobsrc *js, uint64_t *bm, uint32_t f, uint64_t w)
{
	uint64_t bit = js->wbase[f] + w, m = 1ull << (bit % 64);

	if (bm[bit / 64] & m)
		return 1;
	bm[bit / 64] |= m;
	return 0;
}

static void op_init(struct rp_op *op, uint64_t ts, uint32_t kind)
{
	memset(op, 0, sizeof(*op));
	op->ts = op->end = ts;
	op->kind = kind;
	op->slot = RP_NO_SLOT;
	op->file = op->file2 = UINT32_MAX;
	op->conc = 1;
}

/*
 * reader.mmap: the next window of the sample at [off, off + rl) of file
 * g->f (g->co counts the windows done).  The first touch of a window in
 * the reader's epoch faults it in: a read of the whole window (a page
 * fault and its fault-around); later touches find it mapped: a placeholder
 * that keeps the op count (batch_ops) without I/O.
 */
static int map_next(struct jobsrc *js, struct gen *g, unsigned t, struct rp_op *op,
		    uint64_t off, uint64_t rl)
{
	uint64_t w = off / js->W + g->co, size = js->s.layout.files[g->f].size;

	op_init(op, 0, 0);
	if (!map_test_set(js, g->bm, g->f, w)) {
		op->kind = CM_READ;
		op->flags = RP_F_FAULT;
		op->file = g->f;
		op->slot = t;
		op->off = w * js->W;
		op->len = size - op->off < js->W ? size - op->off : js->W;
	} else {
		op->flags = RP_F_STEP;
	}
	if (w >= (off + rl - 1) / js->W) {
		g->co = 0;
		g->j++;
	} else {
		g->co++;
	}
	return 1;
}

static void map_clear(const struct jobsrc *js, struct gen *g)
{
	if (g->bm)
		memset(g->bm, 0, (js->nwin + 63) / 64 * sizeof(*g->bm));
}

/* ------------------------------------------------- the lazy data set */

static int is_ready(const struct jobsrc *js, uint32_t f)
{
	return atomic_load_explicit(&js->ready[f / 64], memory_order_acquire) >> (f % 64) & 1;
}

/* Wait until the maker has made file f: 0, or its error. */
static int wait_ready(struct jobsrc *js, uint32_t f)
{
	int rc = 0;

	pthread_mutex_lock(&js->mu);
	while (!is_ready(js, f) && !js->perr && !js->stop)
		pthread_cond_wait(&js->cv, &js->mu);
	if (!is_ready(js, f))
		rc = js->perr ? js->perr : -ECANCELED;
	pthread_mutex_unlock(&js->mu);
	return rc;
}

/* The maker: the data set's files in the order the epochs read them
 * (each once), until they are all made or the run stops. */
static void *maker(void *arg)
{
	struct jobsrc *js = arg;
	struct rp_prep_cursor *cur = NULL;
	uint64_t left = 0;
	int rc = 0;

	for (uint64_t f = 0; f < js->N; f++)
		left += js->s.layout.files[f].rbytes > 0;
	for (uint64_t e = 0; e < js->j.epochs && left && !rc && !js->stop; e++)
		for (uint64_t pos = 0; pos * js->S < js->NSread && left && !js->stop; pos++) {
			uint32_t f = file_at(js, e, pos);

			if (is_ready(js, f))
				continue;
			if ((rc = rp_prepare_file(*js->dirfdp, &js->s.layout, f, js->sparse, &cur,
						  js->s.err, sizeof(js->s.err))))
				break;
			pthread_mutex_lock(&js->mu);
			atomic_fetch_or_explicit(&js->ready[f / 64], 1ull << (f % 64),
						 memory_order_release);
			pthread_cond_broadcast(&js->cv);
			pthread_mutex_unlock(&js->mu);
			left--;
		}
	rp_prep_cursor_free(cur);
	pthread_mutex_lock(&js->mu);
	js->perr = rc;
	pthread_cond_broadcast(&js->cv);
	pthread_mutex_unlock(&js->mu);
	return NULL;
}

static int reader_next(struct jobsrc *js, unsigned t, struct rp_op *op)
{
	struct gen *g = &js->g[t];
	uint64_t r = t - 1;

	for (;;) {
		switch (g->phase) {
		case P_BATCH:
			if (g->b >= js->spe) {
				g->e++;
				g->b = r;
				map_clear(js, g);	/* a new epoch maps anew */
			}
			if (g->e >= js->j.epochs) {
				uint64_t *bm = g->bm;
				memset(g, 0, sizeof(*g));
				g->b = r;
				g->bm = bm;
				map_clear(js, g);
				return 0;
			}
			if (g->b >= js->spe)
				continue;
			g->i = g->b * js->B;
			g->iend = g->i + js->B < js->NS ? g->i + js->B : js->NS;
			g->first = 1;
			g->phase = P_OPEN;
			continue;
		case P_OPEN:
			if (g->i >= g->iend) {
				g->b += js->R;
				g->phase = P_BATCH;
				continue;
			}
			g->p = g->i / js->S;
			g->f = file_at(js, g->e, g->p);
			if (js->th_started && !is_ready(js, g->f)) {	/* (not map_walk's) */
				int rc = wait_ready(js, g->f);
				if (rc)
					return rc;
			}
			g->gend = (g->p + 1) * js->S < g->iend ? (g->p + 1) * js->S : g->iend;
			g->whole = g->i == g->p * js->S && g->gend == (g->p + 1) * js->S;
			op_init(op, 0, CM_OPEN);
			op->file = g->f;
			op->slot = t;
			op->oflags = js->oflags;
			if (g->first) {
				uint64_t step = g->e * js->spe + g->b, lag = js->P * js->R;
				g->first = 0;
				if (step >= lag) {
					op->dep_thread = 0;
					op->dep_seq = (uint32_t)trainer_seq(js, step - lag);
				}
			}
			g->j = g->i;
			g->co = 0;
			g->phase = P_READ;
			return 1;
		case P_READ: {
			if (g->j >= g->gend) {
				g->phase = g->whole && js->j.read_eof && !js->W ? P_EOF : P_CLOSE;
				continue;
			}
			uint64_t rl = js->rl[g->f], ts = js->j.transfer_size;
			uint64_t k = sample_at(js, g->e, g->f, g->j - g->p * js->S);
			if (js->W)
				return map_next(js, g, t, op, k * rl, rl);
			op_init(op, 0, CM_READ);
			op->file = g->f;
			op->slot = t;
			op->off = k * rl + g->co;
			op->len = ts && rl - g->co > ts ? ts : rl - g->co;
			g->co += op->len;
			if (g->co >= rl) {
				g->co = 0;
				g->j++;
			}
			return 1;
		}
		case P_EOF:
			op_init(op, 0, CM_READ);
			op->file = g->f;
			op->slot = t;
			op->off = js->s.layout.files[g->f].size;
			g->phase = P_CLOSE;
			return 1;
		case P_CLOSE:
			op_init(op, 0, CM_CLOSE);
			op->file = g->f;
			op->slot = t;
			op->flags = RP_F_REALCLOSE;
			g->i = g->gend;
			g->phase = P_OPEN;
			return 1;
		}
	}
}

static uint64_t shard_size(const struct jobsrc *js, unsigned h)
{
	return js->j.ckpt_size / js->j.ckpt_files + (h < js->j.ckpt_size % js->j.ckpt_files);
}

/* The checkpoint's next op (g->ck, g->shard, g->cph, g->co): 1, or 0 when
 * it is over. */
static int ckpt_next(struct jobsrc *js, struct gen *g, struct rp_op *op)
{
	const struct rp_jobspec *j = &js->j;
	unsigned per = j->ckpt_rename ? 2 : 1;

	for (;;) {
		if (g->shard >= j->ckpt_files)
			return 0;
		uint32_t fin = js->ck_first + (uint32_t)((g->ck * j->ckpt_files + g->shard) * per);
		uint32_t w = j->ckpt_rename ? fin + 1 : fin;
		uint64_t size = shard_size(js, g->shard), ts = j->ckpt_transfer_size;
		op_init(op, g->ts, CM_OPEN);
		op->slot = 0;
		switch (g->cph) {
		case C_OPEN:
			op->file = w;
			op->oflags = O_CREAT | O_TRUNC | O_WRONLY;
			g->co = 0;
			g->cph = size ? C_WRITE : j->ckpt_fsync ? C_FSYNC : C_CLOSE;
			return 1;
		case C_WRITE:
		case C_READ:
			op->kind = g->cph == C_WRITE ? CM_WRITE : CM_READ;
			op->file = g->cph == C_WRITE ? w : fin;
			op->off = g->co;
			op->len = size - g->co > ts ? ts : size - g->co;
			g->co += op->len;
			if (g->co >= size)
				g->cph = g->cph == C_READ ? C_RCLOSE : j->ckpt_fsync ? C_FSYNC : C_CLOSE;
			return 1;
		case C_FSYNC:
			op->kind = CM_FSYNC;
			op->file = w;
			g->cph = C_CLOSE;
			return 1;
		case C_CLOSE:
		case C_RCLOSE:
			op->kind = CM_CLOSE;
			op->file = g->cph == C_CLOSE ? w : fin;
			op->flags = RP_F_REALCLOSE;
			g->cph = g->cph == C_RCLOSE ? C_NEXT : j->ckpt_rename ? C_RENAME :
				 j->ckpt_read_back ? C_ROPEN : C_NEXT;
			return 1;
		case C_RENAME:
			op->kind = CM_RENAME;
			op->slot = RP_NO_SLOT;
			op->file = w;
			op->file2 = fin;
			g->cph = j->ckpt_read_back ? C_ROPEN : C_NEXT;
			return 1;
		case C_ROPEN:
			op->file = fin;
			op->oflags = O_RDONLY;
			g->co = 0;
			g->cph = size ? C_READ : C_RCLOSE;
			return 1;
		default:
			g->shard++;
			g->cph = g->rd ? C_ROPEN : C_OPEN;
			continue;
		}
	}
}

/* dataset.generate: writer t's next op: it creates files t - 1, t - 1 + R,
 * ... (as a DLIO rank writes its share of the data set), each in
 * transfer_size writes (0: a sample a write). */
static int writer_next(struct jobsrc *js, unsigned t, struct rp_op *op)
{
	struct gen *g = &js->g[t];
	uint64_t size, ts;

	for (;;) {
		switch (g->phase) {
		case P_BATCH:
			if (!g->first) {
				g->first = 1;
				g->i = t - 1;
			}
			if (g->i >= js->N) {	/* the loop is over */
				memset(g, 0, sizeof(*g));
				return 0;
			}
			g->f = (uint32_t)g->i;
			g->phase = P_OPEN;
			continue;
		case P_OPEN:
			op_init(op, 0, CM_OPEN);
			op->file = g->f;
			op->slot = t;
			op->oflags = O_CREAT | O_TRUNC | O_WRONLY | (js->oflags & O_DIRECT);
			g->co = 0;
			g->phase = js->s.layout.files[g->f].wbytes ? P_READ : P_CLOSE;
			return 1;
		case P_READ:
			size = js->s.layout.files[g->f].wbytes;
			ts = js->j.transfer_size ? js->j.transfer_size : js->rl[g->f];
			op_init(op, 0, CM_WRITE);
			op->file = g->f;
			op->slot = t;
			op->off = g->co;
			op->len = size - g->co > ts ? ts : size - g->co;
			g->co += op->len;
			if (g->co >= size)
				g->phase = P_CLOSE;
			return 1;
		default:
			op_init(op, 0, CM_CLOSE);
			op->file = g->f;
			op->slot = t;
			op->flags = RP_F_REALCLOSE;
			g->i += js->R;
			g->phase = P_BATCH;
			return 1;
		}
	}
}

static int trainer_next(struct jobsrc *js, struct rp_op *op)
{
	struct gen *g = &js->g[0];

	for (;;) {
		switch (g->phase) {
		case T_WAIT: {
			if (g->s >= js->nsteps) {	/* the loop is over */
				uint64_t *rc = g->rcnt;
				memset(g, 0, sizeof(*g));
				memset(rc, 0, js->R * sizeof(*rc));
				g->rcnt = rc;
				return 0;
			}
			op_init(op, g->ts, 0);
			op->flags = RP_F_STEP;
			/* no data set, or a step that reads a checkpoint back:
			 * no batch to wait for */
			if (js->R && g->s < js->ntrain) {
				uint64_t e = g->s / js->spe, b = g->s % js->spe, r = b % js->R;
				g->rcnt[r] += batch_ops(js, e, b);
				op->dep_thread = (uint32_t)(1 + r);
				op->dep_seq = (uint32_t)g->rcnt[r];
				/* its batch: a wait for it is a stall */
				op->flags |= RP_F_HANDOVER;
			}
			g->phase = T_COMPUTE;
			return 1;
		}
		case T_COMPUTE: {
			double c = js->ct_norm * step_time(js->ct, js->ct_sd, js->ct_log, js->j.seed, g->s);
			g->ts += (uint64_t)(c * 1e9 + 0.5);
			op_init(op, g->ts, 0);
			op->flags = RP_F_STEP | (g->s ? 0 : RP_F_MARK);
			if (js->spe >= 2 && g->s < js->ntrain &&
			    (g->s % js->spe == 0 || g->s % js->spe == js->spe - 1)) {
				/* DLIO's AU window of epoch e: from its first
				 * step's end to its last's (rp_layout.nmarks) */
				op->flags |= RP_F_EPOCH;
				op->off = 2 * (g->s / js->spe) + (g->s % js->spe != 0);
			}
			if (g->s >= js->ntrain) {	/* read checkpoint s - ntrain */
				g->phase = T_CKPT;
				g->ck = g->s - js->ntrain;
				g->shard = 0;
				g->rd = 1;
				g->cph = C_ROPEN;
			} else if (ckpt_after(js, g->s)) {
				g->phase = T_CKPT;
				g->ck = ck_before(js, g->s);
				g->shard = 0;
				g->rd = 0;
				g->cph = C_OPEN;
			} else {
				g->s++;
				g->phase = T_WAIT;
			}
			return 1;
		}
		case T_CKPT:
			if (ckpt_next(js, g, op))
				return 1;
			g->s++;
			g->phase = T_WAIT;
			continue;
		}
	}
}

static int job_next(struct rp_source *s, unsigned t, struct rp_op *op)
{
	struct jobsrc *js = (struct jobsrc *)s;

	if (!t)
		return trainer_next(js, op);
	return js->j.generate ? writer_next(js, t, op) : reader_next(js, t, op);
}

static int job_start(struct rp_source *s, unsigned loops)
{
	struct jobsrc *js = (struct jobsrc *)s;
	int rc;

	(void)loops;
	if (!js->lazy || js->th_started)
		return 0;
	if ((rc = pthread_create(&js->th, NULL, maker, js))) {
		snprintf(s->err, sizeof(s->err), "the data set's maker: %s", strerror(rc));
		return -rc;
	}
	js->th_started = 1;
	return 0;
}

static int job_stop(struct rp_source *s)
{
	struct jobsrc *js = (struct jobsrc *)s;

	if (!js->th_started)
		return 0;
	pthread_mutex_lock(&js->mu);
	js->stop = 1;
	pthread_cond_broadcast(&js->cv);
	pthread_mutex_unlock(&js->mu);
	pthread_join(js->th, NULL);
	js->th_started = 0;
	/* a file the maker could not make fails the run where a reader waited
	 * for it (its next() returned the error), not where none did */
	return 0;
}

static void job_free(struct rp_source *s)
{
	struct jobsrc *js = (struct jobsrc *)s;

	if (!js)
		return;
	if (js->g) {
		free(js->g[0].rcnt);
		for (uint64_t r = 1; r <= js->R; r++)
			free(js->g[r].bm);
	}
	free(js->g);
	free(js->rl);
	free(js->wbase);
	if (js->ready) {
		free((void *)js->ready);
		pthread_mutex_destroy(&js->mu);
		pthread_cond_destroy(&js->cv);
	}
	rp_layout_release(&s->layout);
	free(js);
}

static const struct rp_source_ops job_ops = {
	.start = job_start,
	.next = job_next,
	.stop = job_stop,
	.free = job_free,
};

/* Intern path as layout file *id (it must be the next one). */
static int add_file(struct rp_layout *l, const char *path, uint32_t want)
{
	uint32_t id;
	int rc = cm_strtab_intern(&l->paths, path, &id);

	if (rc < 0)
		return rc;
	return id == want ? 0 : -EEXIST;
}

/*
 * reader.mmap: what the readers' maps read in a loop, by running each
 * reader's own generator through it once (it ends back at its start, its
 * bitmap cleared): the reads, and each file's bytes.  Time grows with the
 * ops; memory is the readers' bitmaps.
 */
static void map_walk(struct jobsrc *js, uint64_t *reads, uint64_t *pages)
{
	struct rp_layout *l = &js->s.layout;
	struct rp_op op;

	for (uint64_t f = 0; f < js->N; f++)
		l->files[f].rbytes = 0;
	for (unsigned t = 1; t <= js->R; t++)
		while (reader_next(js, t, &op) > 0) {
			if (!(op.flags & RP_F_FAULT))
				continue;
			(*reads)++;
			*pages += (op.len + 4095) / 4096;
			l->files[op.file].rbytes += op.len;
		}
}

/* The sample length of file f, drawn once with the seed (normal, rounded,
 * clamped to [record_length_min, record_length_max]). */
static uint64_t draw_rl(const struct rp_jobspec *j, uint64_t f)
{
	uint64_t rl = j->record_length;

	if (j->record_length_stdev) {
		double d = (double)j->record_length +
			   (double)j->record_length_stdev * normal(j->seed ^ 0x51e5ull, f);
		rl = d < 1 ? 1 : (uint64_t)llround(d);
	}
	if (rl < j->record_length_min)
		rl = j->record_length_min;
	if (j->record_length_max && rl > j->record_length_max)
		rl = j->record_length_max;
	return rl;
}

/* The path of data set file f (width: digits of its index). */
static void data_path(const struct rp_jobspec *j, uint64_t f, unsigned width, char *path,
		      size_t len)
{
	if (j->num_subfolders)
		snprintf(path, len, "%s/sub_%llu/%s%0*llu%s", j->data_folder,
			 (unsigned long long)(f % j->num_subfolders), j->file_prefix, width,
			 (unsigned long long)f, j->file_suffix);
	else
		snprintf(path, len, "%s/%s%0*llu%s", j->data_folder, j->file_prefix, width,
			 (unsigned long long)f, j->file_suffix);
}

/* The data set's files (read, or written with generate): sizes, names. */
static int build_files(struct jobsrc *js, const struct rp_job_opts *o, uint64_t *maxrl)
{
	const struct rp_jobspec *j = &js->j;
	struct rp_layout *l = &js->s.layout;
	char path[RP_JOB_STR * 2 + 256];
	unsigned width = 1;
	int rc;

	for (uint64_t x = js->N ? js->N - 1 : 0; x >= 10; x /= 10)
		width++;
	for (uint64_t f = 0; f < js->N; f++) {
		struct rp_file *fi = &l->files[f];
		uint64_t rl = draw_rl(j, f);

		js->rl[f] = rl;
		fi->size = rl * js->S;
		if (o && o->direct)
			fi->size = (fi->size + RP_ALIGN - 1) & ~(uint64_t)(RP_ALIGN - 1);
		fi->dir = RP_NO_DIR;
		if (j->generate) {	/* the job makes it: nothing prepared */
			fi->modified = 1;
			fi->wbytes = fi->size;
		} else {
			fi->rbytes = fi->size * j->epochs;
			fi->prepare = fi->dataset = 1;
		}
		if (rl > *maxrl)
			*maxrl = rl;
		data_path(j, f, width, path, sizeof(path));
		if ((rc = add_file(l, path, (uint32_t)f)))
			return rc;
		if (j->generate) {	/* its directory, made by prepare */
			char *sl = strrchr(path, '/');
			uint32_t d;

			*sl = 0;
			if ((rc = cm_strtab_intern(&l->dirs, path, &d)) < 0)
				return rc;
			fi->dir = d;
		}
	}
	if (js->NSread < js->NS) {
		/* an epoch reads its first NSread samples only (steps_per_epoch,
		 * drop_last): what each file gives, by the epochs' orders;
		 * a file no epoch reads is not prepared */
		for (uint64_t f = 0; f < js->N; f++)
			l->files[f].rbytes = 0;
		for (uint64_t e = 0; e < j->epochs; e++)
			for (uint64_t pos = 0; pos * js->S < js->NSread; pos++) {
				uint64_t end = (pos + 1) * js->S < js->NSread ? (pos + 1) * js->S :
					       js->NSread;
				uint32_t f = file_at(js, e, pos);

				l->files[f].rbytes += (end - pos * js->S) * js->rl[f];
			}
		for (uint64_t f = 0; f < js->N; f++)
			if (!l->files[f].rbytes)
				l->files[f].prepare = l->files[f].dataset = 0;
	}
	if (js->lazy)	/* the source makes them, as the run reaches them */
		for (uint64_t f = 0; f < js->N; f++)
			l->files[f].prepare = 0;
	for (uint64_t f = 0; f < js->N; f++)
		l->dataset_bytes += l->files[f].rbytes;
	return 0;
}

/* The checkpoints' files: nset sets of ckpt_files shards (and their .tmp
 * with rename); those written by the job are made by it, those only read
 * (num_checkpoints_write 0) are prepared. */
static int build_ckpt_files(struct jobsrc *js, uint64_t nset, uint32_t ckdir)
{
	const struct rp_jobspec *j = &js->j;
	struct rp_layout *l = &js->s.layout;
	unsigned per = j->ckpt_rename ? 2 : 1;
	char path[RP_JOB_STR * 2 + 256];
	int rc;

	js->ck_first = (uint32_t)js->N;
	for (uint64_t c = 0; c < nset; c++) {
		uint64_t at = ck_at(js, c);	/* steps done */
		int written = c < js->nck;

		for (uint64_t h = 0; h < j->ckpt_files; h++) {
			int n = js->mode != CK_EPOCHS ?
				snprintf(path, sizeof(path), "%s/ckpt_step%llu", j->checkpoint_folder,
					 (unsigned long long)at) :
				snprintf(path, sizeof(path), "%s/ckpt_%llu", j->checkpoint_folder,
					 (unsigned long long)(at / js->spe));
			if (j->ckpt_files > 1)
				n += snprintf(path + n, sizeof(path) - (size_t)n, "_%llu",
					      (unsigned long long)h);
			snprintf(path + n, sizeof(path) - (size_t)n, ".pt");
			uint32_t id = js->ck_first + (uint32_t)((c * j->ckpt_files + h) * per);
			uint64_t sz = shard_size(js, (unsigned)h);
			for (unsigned k = 0; k < per; k++) {
				struct rp_file *fi = &l->files[id + k];
				if (k)
					strcat(path, ".tmp");
				if ((rc = add_file(l, path, id + k)))
					return rc;
				fi->dir = RP_NO_DIR;
				if (!written) {	/* read only: it must be there */
					if (!k) {
						fi->prepare = 1;
						fi->size = sz;
						fi->rbytes = sz;
					}
					continue;
				}
				fi->dir = ckdir;
				fi->modified = 1;
				fi->wbytes = k + 1 == per ? sz : 0;
				fi->rbytes = !k ? sz * ((j->ckpt_read_back ? 1 : 0) +
							(c < js->nckr ? 1 : 0)) : 0;
			}
		}
	}
	return 0;
}

/* reader.mmap: each file's windows, a reader's bitmap. 0 or -errno. */
static int build_windows(struct jobsrc *js)
{
	struct rp_layout *l = &js->s.layout;

	if (!(js->wbase = malloc((js->N + 1) * sizeof(*js->wbase))))
		return -ENOMEM;
	js->nwin = 0;
	for (uint64_t f = 0; f < js->N; f++) {
		js->wbase[f] = js->nwin;
		js->nwin += (l->files[f].size + js->W - 1) / js->W;
	}
	if (js->nwin / 8 * js->R > RP_JOB_MAP_MAX)
		return -E2BIG;
	for (uint64_t r = 1; r <= js->R; r++)
		if (!(js->g[r].bm = calloc((js->nwin + 63) / 64, sizeof(uint64_t))))
			return -ENOMEM;
	return 0;
}

/* The readers' threads, and what one loop of theirs does (the ops each
 * issues, the ops expected of the data set). */
static void build_readers(struct jobsrc *js, uint64_t maxrl)
{
	const struct rp_jobspec *j = &js->j;
	struct rp_layout *l = &js->s.layout;

	uint64_t rops = 0, opens = 0, reads = 0;
	if (j->generate) {	/* each file: open, writes, close */
		for (uint64_t f = 0; f < js->N; f++) {
			uint64_t ts = j->transfer_size ? j->transfer_size : js->rl[f];
			uint64_t n = l->files[f].size ? chunks(l->files[f].size, ts) : 0;
			l->threads[1 + f % js->R].nops += 2 + n;
			l->expected[CM_WRITE] += n;
		}
		l->expected[CM_OPEN] = l->expected[CM_CLOSE] = js->N;
	}
	for (uint64_t e = 0; js->R && !j->generate && e < j->epochs; e++) {
		for (uint64_t b = 0; b < js->spe; b++) {
			uint64_t n = batch_ops(js, e, b);
			l->threads[1 + b % js->R].nops += n;
			rops += n;
		}
	}
	/* per epoch: the samples it reads; a group per (batch, file) */
	for (uint64_t pos = 0; !j->generate && pos * js->S < js->NSread; pos++) {
		uint64_t end = (pos + 1) * js->S < js->NSread ? (pos + 1) * js->S : js->NSread;
		uint64_t first = pos * js->S / js->B, last = (end - 1) / js->B;
		opens += last - first + 1;
		if (js->j.read_eof && first == last && end == (pos + 1) * js->S)
			reads++;
	}
	opens *= j->epochs;
	reads *= j->epochs;
	reads += rops - 2 * opens - reads;	/* the rest are sample reads */
	if (js->W) {	/* ... or windows a map faulted in, and placeholders */
		reads = 0;
		map_walk(js, &reads, &l->fault_pages);
		l->fault_reads = reads;
	}
	if (!j->generate) {
		l->expected[CM_OPEN] = opens;
		l->expected[CM_CLOSE] = opens;
		l->expected[CM_READ] = reads;
	}
	uint64_t ts_r = js->W ? js->W : j->transfer_size && j->transfer_size < maxrl ?
					j->transfer_size : maxrl;
	for (uint64_t r = 0; r < js->R; r++) {
		struct rp_thread *th = &l->threads[1 + r];
		th->tid = (uint32_t)(2 + r);
		th->pid = 1;
		th->maxlen = ts_r;
		th->depth = 1;
	}
}

/* The trainer: its compute, steps and checkpoints; its compute's sum. */
static uint64_t build_trainer(struct jobsrc *js)
{
	const struct rp_jobspec *j = &js->j;
	struct rp_layout *l = &js->s.layout;

	struct rp_thread *tr = &l->threads[0];
	uint64_t cts = 0;
	double raw = 0;
	/* the draws, scaled so that their mean is computation_time exactly
	 * (a log-normal of a large stdev would take many steps to get there) */
	for (uint64_t s = 0; js->ct_log && s < js->nsteps; s++)
		raw += step_time(js->ct, js->ct_sd, 1, j->seed, s);
	js->ct_norm = raw > 0 ? js->ct * (double)js->nsteps / raw : 1;
	for (uint64_t s = 0; s < js->nsteps; s++) {
		uint64_t d = (uint64_t)(js->ct_norm * step_time(js->ct, js->ct_sd, js->ct_log, j->seed, s) * 1e9 +
					0.5);
		cts += d;
		if (d >= RP_STEP_GAP_NS)
			tr->steps++;
	}
	tr->tid = 1;
	tr->pid = 1;
	tr->compute_ns = cts;
	tr->train = 1;		/* the trainer; the readers are its loaders */
	l->train = 1;
	for (uint64_t r = 0; r < js->R; r++)
		l->threads[1 + r].loader = 1;
	if (js->spe >= 2 && js->ntrain / js->spe <= UINT32_MAX / 2)
		l->nmarks = (unsigned)(2 * (js->ntrain / js->spe));
	tr->depth = 1;
	tr->nops = 2 * js->nsteps + js->nck * js->ck_ops + js->nckr * js->ckr_ops;
	for (unsigned h = 0; (js->nck || js->nckr) && h < j->ckpt_files; h++) {
		uint64_t sz = shard_size(js, h), w = sz ? chunks(sz, j->ckpt_transfer_size) : 0;
		uint64_t rd = js->nck * !!j->ckpt_read_back + js->nckr;
		l->expected[CM_OPEN] += js->nck + rd;
		l->expected[CM_CLOSE] += js->nck + rd;
		l->expected[CM_WRITE] += js->nck * w;
		l->expected[CM_READ] += rd * w;
		l->expected[CM_FSYNC] += j->ckpt_fsync ? js->nck : 0;
		l->expected[CM_RENAME] += j->ckpt_rename ? js->nck : 0;
	}
	if (js->nck || js->nckr)
		tr->maxlen = j->ckpt_transfer_size < j->ckpt_size ? j->ckpt_transfer_size :
								    j->ckpt_size;
	return cts;
}

static int build(struct jobsrc *js, const struct rp_job_opts *o)
{
	const struct rp_jobspec *j = &js->j;
	struct rp_layout *l = &js->s.layout;
	unsigned per = j->ckpt_rename ? 2 : 1;
	uint64_t nset = js->nck > js->nckr ? js->nck : js->nckr, nckf, maxrl = 0;
	uint32_t ckdir = RP_NO_DIR;
	uint64_t cts;
	int rc;

	nckf = nset * j->ckpt_files * per;
	if (js->N + nckf > UINT32_MAX / 2)
		return -EOVERFLOW;
	l->nfiles = js->N + nckf;
	l->nthreads = js->R + 1;
	if (!(l->files = calloc(l->nfiles + 1, sizeof(*l->files))) ||
	    !(l->threads = calloc(l->nthreads, sizeof(*l->threads))) ||
	    !(js->rl = malloc((js->N + 1) * sizeof(*js->rl))))
		return -ENOMEM;
	if (js->nck && (rc = cm_strtab_intern(&l->dirs, j->checkpoint_folder, &ckdir)) < 0)
		return rc;
	if ((rc = build_files(js, o, &maxrl)) || (rc = build_ckpt_files(js, nset, ckdir)))
		return rc;
	if (!(l->dir_made = calloc(cm_strtab_count(&l->dirs) + 1, 1)))
		return -ENOMEM;
	if (js->W && (rc = build_windows(js)))
		return rc;
	build_readers(js, maxrl);
	cts = build_trainer(js);
	l->nslots = (uint32_t)js->R + 1;
	l->span = cts;
	return 0;
}

uint64_t rp_jobspec_steps_per_epoch(const struct rp_jobspec *j)
{
	uint64_t ns, spe;

	if (j->generate)
		return 0;
	if (!j->num_files)	/* checkpoints only */
		return j->steps_per_epoch ? j->steps_per_epoch : 1;
	ns = j->num_files * j->num_samples_per_file;
	spe = j->drop_last ? ns / j->batch_size : (ns + j->batch_size - 1) / j->batch_size;
	if (j->steps_per_epoch && spe > j->steps_per_epoch)
		spe = j->steps_per_epoch;	/* DLIO's total_training_steps */
	return spe;
}

/* Whether the checkpoints are DLIO's num_checkpoints_write / _read. */
static int wr_mode(const struct rp_jobspec *j)
{
	return seen(j, CM_JOB_K_CKPT_WRITES) || seen(j, CM_JOB_K_CKPT_READS);
}

/* js's schedule of steps and checkpoints from its spec. */
static void schedule(struct jobsrc *js)
{
	const struct rp_jobspec *j = &js->j;

	js->spe = rp_jobspec_steps_per_epoch(j);
	js->ntrain = js->nsteps = js->spe * j->epochs;
	js->NSread = js->spe * js->B < js->NS ? js->spe * js->B : js->NS;
	js->mode = CK_NONE;
	if (!j->checkpoint || j->generate)
		return;
	if (wr_mode(j)) {	/* checkpoints only: W written, then R read */
		js->mode = CK_WR;
		js->ntrain = j->num_checkpoints_write;
		js->nck = j->num_checkpoints_write;
		js->nckr = j->num_checkpoints_read;
		js->nsteps = js->nck + js->nckr;
		return;
	}
	if (j->steps_between_checkpoints) {
		js->mode = CK_STEPS;
		js->K = j->steps_between_checkpoints;
	} else {
		js->mode = CK_EPOCHS;
		js->E = j->epochs_between_checkpoints;
		js->A = j->checkpoint_after_epoch ? j->checkpoint_after_epoch : js->E;
	}
	js->nck = ck_before(js, js->ntrain);
}

void rp_jobspec_checkpoints(const struct rp_jobspec *j, uint64_t *writes, uint64_t *reads)
{
	struct jobsrc js = { .j = *j, .N = j->num_files, .S = j->num_samples_per_file,
			     .B = j->batch_size };

	js.NS = js.N * js.S;
	schedule(&js);
	*writes = js.nck;
	*reads = js.nckr;
}

int rp_job_open(struct rp_source **out, const struct rp_jobspec *j, const struct rp_job_opts *o,
		char *err, size_t errlen)
{
	struct jobsrc *js = calloc(1, sizeof(*js));
	int rc;

	*out = NULL;
	if (!js) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	js->s.ops = &job_ops;
	js->j = *j;
	js->N = j->num_files;
	js->S = j->num_samples_per_file;
	js->B = j->batch_size;
	js->R = js->N ? j->read_threads : 0;	/* no data set: no readers */
	if (j->generate && js->R > js->N)
		js->R = js->N;		/* a writer per file at most */
	js->P = j->prefetch_size;
	js->NS = js->N * js->S;
	schedule(js);
	js->ct = j->computation_time;
	js->ct_sd = j->computation_time_stdev;
	js->ct_log = j->computation_time_distribution;
	js->oflags = O_RDONLY | ((j->odirect || (o && o->direct)) ? O_DIRECT : 0);
	if (o && o->lazy && o->dirfd && js->N && !j->generate) {
		js->lazy = 1;
		js->sparse = o->sparse;
		js->dirfdp = o->dirfd;
		if (!(js->ready = calloc((js->N + 63) / 64, sizeof(*js->ready)))) {
			job_free(&js->s);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		pthread_mutex_init(&js->mu, NULL);
		pthread_cond_init(&js->cv, NULL);
	}
	if (j->mmap && js->N)	/* the fault window: fault-around's 64 KiB */
		js->W = j->transfer_size ? j->transfer_size : RP_JOB_MAP_WINDOW;
	for (unsigned h = 0; (js->nck || js->nckr) && h < j->ckpt_files; h++) {
		uint64_t sz = shard_size(js, h), w = sz ? chunks(sz, j->ckpt_transfer_size) : 0;
		js->ck_ops += 2 + w + !!j->ckpt_fsync + !!j->ckpt_rename +
			      (j->ckpt_read_back ? 2 + w : 0);	/* ops per checkpoint */
		js->ckr_ops += 2 + w;				/* ... per read of one */
	}
	js->g = calloc(js->R + 1, sizeof(*js->g));
	if (js->g)
		js->g[0].rcnt = calloc(js->R + 1, sizeof(uint64_t));
	if (!js->g || !js->g[0].rcnt) {
		job_free(&js->s);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint64_t r = 1; r <= js->R; r++)
		js->g[r].b = r - 1;
	if ((rc = build(js, o))) {
		snprintf(err, errlen, "job: %s", rc == -EEXIST ? "two files of the job have one name" :
			 rc == -E2BIG ? "reader.mmap: the readers' maps would take more than 1 GiB "
					"of bitmaps (a bit per transfer_size window of the data set "
					"per reader): raise reader.transfer_size" : strerror(-rc));
		job_free(&js->s);
		return rc;
	}
	for (size_t t = 0; t < js->s.layout.nthreads; t++)
		if (js->s.layout.threads[t].nops >= UINT32_MAX) {
			/* the engine numbers a thread's ops of a loop in 32 bits */
			snprintf(err, errlen, "job: thread %zu has 2^32 ops or more", t);
			job_free(&js->s);
			return -EOVERFLOW;
		}
	js->s.layout.direct = o && o->direct;
	*out = &js->s;
	return 0;
}

/* The nearest existing directory of path (path itself, or a parent). */
static int nearest_dir(const char *path, char *buf, size_t len, struct statvfs *sv)
{
	char *sl;

	snprintf(buf, len, "%s", *path ? path : ".");
	for (;;) {
		if (!statvfs(buf, sv))
			return 0;
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		if (!(sl = strrchr(buf, '/')))
			return statvfs(".", sv) ? -errno : 0;
		if (sl == buf) {
			sl[1] = 0;
			return statvfs(buf, sv) ? -errno : 0;
		}
		*sl = 0;
	}
}

int rp_jobspec_room(const struct rp_jobspec *j, const char *dir, unsigned copies, int sparse,
		    char *err, size_t errlen)
{
	struct jobsrc js = { .j = *j, .N = j->num_files, .S = j->num_samples_per_file,
			     .B = j->batch_size };
	uint64_t files, bytes = 0, nset, inodes, room;
	char where[4096], a[32], b[32];
	struct statvfs sv;
	int rc;

	if (!copies)
		copies = 1;
	js.NS = js.N * js.S;
	schedule(&js);
	/* the data set files prepare makes (or the job writes); those an
	 * epoch of a bounded job (steps_per_epoch, drop_last) reads, at most */
	files = js.N;
	if (js.NSread < js.NS && !j->generate) {
		uint64_t per = (js.NSread + js.S - 1) / js.S;
		files = j->file_shuffle == RP_SHUFFLE_ON && per * j->epochs < js.N ?
			per * j->epochs : per < js.N ? per : js.N;
	}
	if (!sparse && !j->generate) {	/* (generate: the job writes them) */
		if (js.N <= 10000000) {	/* exact: the same draws as the layout's */
			for (uint64_t f = 0; f < files; f++)
				bytes += draw_rl(j, f) * js.S;
		} else {
			bytes = files * js.S * j->record_length;
		}
	}
	nset = js.nck > js.nckr ? js.nck : js.nckr;
	files += nset * j->ckpt_files * (j->ckpt_rename ? 2 : 1);
	if (!js.nck && js.nckr && !sparse)	/* checkpoints read only: prepared */
		bytes += js.nckr * j->ckpt_size;
	files *= copies;
	bytes *= copies;
	if ((rc = nearest_dir(dir, where, sizeof(where), &sv))) {
		snprintf(err, errlen, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	inodes = (uint64_t)sv.f_favail;
	room = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (sv.f_files && files > inodes) {	/* (f_files 0: no inode limit) */
		snprintf(err, errlen, "%s: %llu free inodes, and the job makes %llu files%s: "
			 "not enough (dataset.num_files)", where, (unsigned long long)inodes,
			 (unsigned long long)files, copies > 1 ? " (a data set per accelerator)" : "");
		return -ENOSPC;
	}
	if (bytes > room) {
		cm_fmt_bytes(a, sizeof(a), room);
		cm_fmt_bytes(b, sizeof(b), bytes);
		snprintf(err, errlen, "%s: %s free, and the data set%s takes %s: not enough "
			 "(--sparse prepares it as holes)", where, a,
			 copies > 1 ? "s (one per accelerator)" : "", b);
		return -ENOSPC;
	}
	return 0;
}
