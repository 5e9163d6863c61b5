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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "parse.h"
#include "replay.h"

/* ------------------------------------------------------------ the keys */

enum { K_STR, K_U64, K_SIZE, K_SEC, K_BOOL };
struct jkey {
	const char *sec, *key;
	int type, req;
	size_t off, len;	/* K_STR: buffer length */
	uint64_t min, max;
};
#define J(f) offsetof(struct rp_jobspec, f)
#define U64MAX UINT64_MAX
static const char *const sections[] = { "job", "source", "dataset", "reader", "train",
					 "checkpoint" };
static const struct jkey keys[] = {
	{ "job", "format", K_U64, 1, 0, 0, 1, 1 },
	{ "job", "name", K_STR, 0, J(name), RP_JOB_STR },
	{ "source", "trace", K_STR, 0, 0, 0 },		/* informative: checked, kept nowhere */
	{ "source", "duration_s", K_SEC, 0, 0, 0 },
	{ "source", "events", K_U64, 0, 0, 0, 0, U64MAX },
	{ "dataset", "data_folder", K_STR, 1, J(data_folder), RP_JOB_STR },
	{ "dataset", "num_files", K_U64, 1, J(num_files), 0, 0, 100000000 },
	{ "dataset", "num_subfolders", K_U64, 0, J(num_subfolders), 0, 0, 1000000 },
	{ "dataset", "file_prefix", K_STR, 0, J(file_prefix), 64 },
	{ "dataset", "file_suffix", K_STR, 0, J(file_suffix), 64 },
	{ "dataset", "record_length", K_SIZE, 1, J(record_length), 0, 1, 1ull << 40 },
	{ "dataset", "record_length_stdev", K_SIZE, 0, J(record_length_stdev), 0, 0, 1ull << 40 },
	{ "dataset", "record_length_min", K_SIZE, 0, J(record_length_min), 0, 1, 1ull << 40 },
	{ "dataset", "record_length_max", K_SIZE, 0, J(record_length_max), 0, 0, 1ull << 40 },
	{ "dataset", "num_samples_per_file", K_U64, 0, J(num_samples_per_file), 0, 1, 1000000 },
	{ "reader", "read_threads", K_U64, 0, J(read_threads), 0, 1, 1024 },
	{ "reader", "batch_size", K_U64, 0, J(batch_size), 0, 1, 100000000 },
	{ "reader", "transfer_size", K_SIZE, 0, J(transfer_size), 0, 0, 1ull << 30 },
	{ "reader", "file_shuffle", K_BOOL, 0, J(file_shuffle) },
	{ "reader", "sample_shuffle", K_BOOL, 0, J(sample_shuffle) },
	{ "reader", "prefetch_size", K_U64, 0, J(prefetch_size), 0, 1, 1000000 },
	{ "reader", "odirect", K_BOOL, 0, J(odirect) },
	{ "reader", "read_eof", K_BOOL, 0, J(read_eof) },
	{ "reader", "mmap", K_BOOL, 0, J(mmap) },
	{ "train", "epochs", K_U64, 1, J(epochs), 0, 1, 1000000 },
	{ "train", "steps_per_epoch", K_U64, 0, J(steps_per_epoch), 0, 1, 1000000000 },
	{ "train", "computation_time", K_SEC, 1, J(computation_time), 0, 0, 3600 },
	{ "train", "computation_time_stdev", K_SEC, 0, J(computation_time_stdev), 0, 0, 3600 },
	{ "train", "seed", K_U64, 0, J(seed), 0, 0, U64MAX },
	{ "checkpoint", "checkpoint_folder", K_STR, 0, J(checkpoint_folder), RP_JOB_STR },
	{ "checkpoint", "epochs_between_checkpoints", K_U64, 0, J(epochs_between_checkpoints), 0,
	  0, 1000000 },
	{ "checkpoint", "steps_between_checkpoints", K_U64, 0, J(steps_between_checkpoints), 0, 0,
	  1ull << 40 },
	{ "checkpoint", "size", K_SIZE, 0, J(ckpt_size), 0, 0, 1ull << 40 },
	{ "checkpoint", "files", K_U64, 0, J(ckpt_files), 0, 1, 4096 },
	{ "checkpoint", "transfer_size", K_SIZE, 0, J(ckpt_transfer_size), 0, 1, 1ull << 30 },
	{ "checkpoint", "fsync", K_BOOL, 0, J(ckpt_fsync) },
	{ "checkpoint", "rename", K_BOOL, 0, J(ckpt_rename) },
	{ "checkpoint", "read_back", K_BOOL, 0, J(ckpt_read_back) },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))
#define NSECS (sizeof(sections) / sizeof(sections[0]))
_Static_assert(NKEYS <= 64, "key_line[] holds 64 keys");

void rp_jobspec_init(struct rp_jobspec *j)
{
	memset(j, 0, sizeof(*j));
	snprintf(j->file_prefix, sizeof(j->file_prefix), "img_");
	snprintf(j->file_suffix, sizeof(j->file_suffix), ".jpg");
	snprintf(j->checkpoint_folder, sizeof(j->checkpoint_folder), "checkpoints");
	j->record_length_min = 1;
	j->num_samples_per_file = 1;
	j->read_threads = 2;
	j->batch_size = 64;
	j->file_shuffle = 1;
	j->prefetch_size = 2;
	j->read_eof = 1;
	j->seed = 1;
	j->epochs_between_checkpoints = 1;
	j->ckpt_size = 16ull << 20;
	j->ckpt_files = 1;
	j->ckpt_transfer_size = 1ull << 20;
	j->ckpt_fsync = 1;
}

static int sec_index(const char *sec)
{
	for (unsigned i = 0; i < NSECS; i++)
		if (!strcmp(sections[i], sec))
			return (int)i;
	return -1;
}

/* Set key sec.key to value: 0, or -EINVAL with the reason in why. */
static int set_key(struct rp_jobspec *j, const char *sec, const char *key, const char *value,
		   char *why, size_t whylen)
{
	const struct jkey *k = NULL;
	char *base = (char *)j;
	uint64_t u;
	double d;
	size_t i;
	int c;

	if (sec_index(sec) < 0) {
		snprintf(why, whylen, "unknown section [%s]", sec);
		return -EINVAL;
	}
	for (i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].sec, sec) && !strcmp(keys[i].key, key)) {
			k = &keys[i];
			break;
		}
	if (!k) {
		snprintf(why, whylen, "unknown key '%s' in [%s]", key, sec);
		return -EINVAL;
	}
	switch (k->type) {
	case K_STR:
		if (k->len && strlen(value) >= k->len) {
			snprintf(why, whylen, "%s.%s: longer than %zu bytes", sec, key, k->len - 1);
			return -EINVAL;
		}
		if (k->len)
			snprintf(base + k->off, k->len, "%s", value);
		break;
	case K_U64:
		if (cm_parse_u64(value, k->min, k->max, &u)) {
			snprintf(why, whylen, "%s.%s: '%s' is not a whole number from %llu to %llu",
				 sec, key, value, (unsigned long long)k->min,
				 (unsigned long long)k->max);
			return -EINVAL;
		}
		if (strcmp(sec, "source") && strcmp(key, "format"))	/* kept nowhere */
			*(uint64_t *)(base + k->off) = u;
		break;
	case K_SIZE:
		if (cm_parse_size(value, k->min, k->max, &u)) {
			snprintf(why, whylen, "%s.%s: '%s' is not a size from %llu to %llu bytes "
				 "(k/m/g suffixes)", sec, key, value, (unsigned long long)k->min,
				 (unsigned long long)k->max);
			return -EINVAL;
		}
		*(uint64_t *)(base + k->off) = u;
		break;
	case K_SEC:
		if (cm_parse_double(value, 0, k->max ? (double)k->max : 1e12, &d)) {
			snprintf(why, whylen, "%s.%s: '%s' is not a number of seconds from 0 to %g",
				 sec, key, value, k->max ? (double)k->max : 1e12);
			return -EINVAL;
		}
		if (strcmp(sec, "source"))
			*(double *)(base + k->off) = d;
		break;
	case K_BOOL:
		if ((c = cm_parse_choice("off|on", value)) < 0) {
			snprintf(why, whylen, "%s.%s: '%s' is not on or off", sec, key, value);
			return -EINVAL;
		}
		*(int *)(base + k->off) = c;
		break;
	}
	if (!strcmp(sec, "checkpoint"))
		j->checkpoint = 1;
	j->seen[i / 64] |= 1ull << (i % 64);
	return 0;
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
			if ((i = sec_index(name)) < 0) {
				snprintf(p->err, p->errlen, "%s:%u: unknown section [%s]", p->path,
					 p->line, name);
				p->failed = 1;
			} else {
				p->j->sec_line[i] = p->line;
			}
		}
	}
	return s;
}

static int handler(void *arg, const char *sec, const char *key, const char *value)
{
	struct pctx *p = arg;
	char why[384];

	if (p->failed)
		return 0;
	if (!*sec) {
		snprintf(p->err, p->errlen, "%s:%u: '%s' outside a section", p->path, p->line, key);
		p->failed = 1;
		return 0;
	}
	if (set_key(p->j, sec, key, value, why, sizeof(why))) {
		snprintf(p->err, p->errlen, "%s:%u: %s", p->path, p->line, why);
		p->failed = 1;
		return 0;
	}
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].sec, sec) && !strcmp(keys[i].key, key))
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

	snprintf(buf, sizeof(buf), "%s", kv);
	eq = strchr(buf, '=');
	dot = strchr(buf, '.');
	if (!eq || !dot || dot > eq) {
		snprintf(err, errlen, "%s: not section.key=value", what);
		return -EINVAL;
	}
	*eq = *dot = 0;
	if (set_key(j, buf, dot + 1, eq + 1, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", what, why);
		return -EINVAL;
	}
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
 * the last line (0 where a --set gave it). */
static unsigned key_line(const struct rp_jobspec *j, const char *sec, const char *key)
{
	int s = sec_index(sec);

	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].sec, sec) && !strcmp(keys[i].key, key) && j->key_line[i])
			return j->key_line[i];
	return s >= 0 && j->sec_line[s] ? j->sec_line[s] : j->last_line;
}

/* Whether sec.key was given (in the file or by --set). */
static int given(const struct rp_jobspec *j, const char *sec, const char *key)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].sec, sec) && !strcmp(keys[i].key, key))
			return j->seen[i / 64] >> (i % 64) & 1;
	return 0;
}

int rp_jobspec_check(const struct rp_jobspec *j, const char *path, char *err, size_t errlen)
{
	/* num_files = 0: no data set, so none of its keys is required */
	int nodata = !j->num_files && given(j, "dataset", "num_files");

	for (size_t i = 0; i < NKEYS; i++) {
		if (!keys[i].req || (j->seen[i / 64] >> (i % 64) & 1))
			continue;
		if (nodata && !strcmp(keys[i].sec, "dataset"))
			continue;
		int s = sec_index(keys[i].sec);
		unsigned line = j->sec_line[s] ? j->sec_line[s] : j->last_line;
		snprintf(err, errlen, "%s:%u: missing required key %s.%s", path, line, keys[i].sec,
			 keys[i].key);
		return -EINVAL;
	}
#define BAD(sec, key, ...) do { \
		unsigned l_ = key_line(j, sec, key); \
		int n_ = snprintf(err, errlen, "%s:%u: ", path, l_ ? l_ : j->last_line); \
		snprintf(err + n_, errlen - (size_t)n_, __VA_ARGS__); \
		return -EINVAL; \
	} while (0)
	if (nodata && !j->checkpoint)
		BAD("dataset", "num_files", "dataset.num_files = 0 (no data set) needs a [checkpoint] "
		    "section: a job of checkpoints only");
	if (j->num_files && given(j, "train", "steps_per_epoch"))
		BAD("train", "steps_per_epoch", "train.steps_per_epoch is for a job without a data set "
		    "(num_files = 0); with one, a step is a batch: ceil(num_files x "
		    "num_samples_per_file / batch_size) an epoch");
	if ((!nodata || *j->data_folder) && bad_folder(j->data_folder))
		BAD("dataset", "data_folder", "dataset.data_folder: '%s' is not a relative path under DIR (no "
		    "'..', not empty)", j->data_folder);
	if (j->checkpoint && bad_folder(j->checkpoint_folder))
		BAD("checkpoint", "checkpoint_folder", "checkpoint.checkpoint_folder: '%s' is not a relative path under "
		    "DIR (no '..', not empty)", j->checkpoint_folder);
	if (strchr(j->file_prefix, '/') || strchr(j->file_suffix, '/'))
		BAD("dataset", "file_prefix", "dataset.file_prefix, file_suffix: no '/' in them");
	if (j->record_length_max && j->record_length_min > j->record_length_max)
		BAD("dataset", "record_length_max", "dataset.record_length_min is above record_length_max");
	if (j->num_subfolders > j->num_files)
		BAD("dataset", "num_subfolders", "dataset.num_subfolders is above num_files");
	if (j->num_files * j->num_samples_per_file > (1ull << 40))
		BAD("dataset", "num_files", "dataset.num_files x num_samples_per_file: more than 2^40 samples");
	if (j->checkpoint && !j->epochs_between_checkpoints && !j->steps_between_checkpoints)
		BAD("checkpoint", "epochs_between_checkpoints", "checkpoint: epochs_between_checkpoints and "
		    "steps_between_checkpoints are both 0");
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
		return n > 0;	/* blank so far */
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
	unsigned ck, shard, cph;
};

struct jobsrc {
	struct rp_source s;
	struct rp_jobspec j;
	uint64_t N, S, B, R, P, NS, spe, nsteps, period, nck, ck_ops;
	uint32_t ck_first;	/* layout file of checkpoint 0's first shard */
	uint32_t oflags;	/* the readers' opens */
	uint64_t *rl;		/* per file: sample (record) length */
	uint64_t W, nwin;	/* reader.mmap: the fault window, windows in all */
	uint64_t *wbase;	/* per file: its first window's index */
	double ct, ct_sd;
	struct gen *g;		/* per thread */
};

static uint64_t ckpt_after(const struct jobsrc *js, uint64_t s)
{
	return js->period && (s + 1) % js->period == 0;
}

/* The trainer's op count once step s's compute op is done. */
static uint64_t trainer_seq(const struct jobsrc *js, uint64_t s)
{
	return 2 * (s + 1) + js->ck_ops * (js->period ? s / js->period : 0);
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
	perm_init(&p, js->N, epoch_key(js, e));
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

	perm_init(&p, js->N, epoch_key(js, e));
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
			g->cph = C_OPEN;
			continue;
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
			if (js->R) {	/* else no data set: no batch to wait for */
				uint64_t e = g->s / js->spe, b = g->s % js->spe, r = b % js->R;
				g->rcnt[r] += batch_ops(js, e, b);
				op->dep_thread = (uint32_t)(1 + r);
				op->dep_seq = (uint32_t)g->rcnt[r];
			}
			g->phase = T_COMPUTE;
			return 1;
		}
		case T_COMPUTE: {
			double c = js->ct;
			if (js->ct_sd > 0) {
				c += js->ct_sd * normal(js->j.seed ^ 0xc0ffee, g->s);
				if (c < 0)
					c = 0;
			}
			g->ts += (uint64_t)(c * 1e9 + 0.5);
			op_init(op, g->ts, 0);
			op->flags = RP_F_STEP | (g->s ? 0 : RP_F_MARK);
			if (ckpt_after(js, g->s)) {
				g->phase = T_CKPT;
				g->ck = (unsigned)(g->s / js->period);
				g->shard = 0;
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

	return t ? reader_next(js, t, op) : trainer_next(js, op);
}

static int job_start(struct rp_source *s, unsigned loops)
{
	(void)s;
	(void)loops;
	return 0;
}

static int job_stop(struct rp_source *s)
{
	(void)s;
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

static int build(struct jobsrc *js, const struct rp_job_opts *o)
{
	const struct rp_jobspec *j = &js->j;
	struct rp_layout *l = &js->s.layout;
	unsigned width = 1, per = j->ckpt_rename ? 2 : 1;
	char path[RP_JOB_STR * 2 + 256];
	uint64_t nckf;
	uint32_t ckdir = RP_NO_DIR;
	int rc;

	for (uint64_t x = js->N ? js->N - 1 : 0; x >= 10; x /= 10)
		width++;
	nckf = js->nck * j->ckpt_files * per;
	if (js->N + nckf > UINT32_MAX / 2)
		return -EOVERFLOW;
	l->nfiles = js->N + nckf;
	l->nthreads = js->R + 1;
	if (!(l->files = calloc(l->nfiles + 1, sizeof(*l->files))) ||
	    !(l->threads = calloc(l->nthreads, sizeof(*l->threads))) ||
	    !(js->rl = malloc((js->N + 1) * sizeof(*js->rl))) ||
	    !(l->dir_made = calloc(2, 1)))
		return -ENOMEM;
	if (js->nck) {
		if ((rc = cm_strtab_intern(&l->dirs, j->checkpoint_folder, &ckdir)) < 0)
			return rc;
	}
	uint64_t maxrl = 0, total = 0;
	for (uint64_t f = 0; f < js->N; f++) {
		struct rp_file *fi = &l->files[f];
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
		js->rl[f] = rl;
		fi->size = rl * js->S;
		if (o && o->direct)
			fi->size = (fi->size + RP_ALIGN - 1) & ~(uint64_t)(RP_ALIGN - 1);
		fi->rbytes = fi->size * j->epochs;
		fi->dir = RP_NO_DIR;
		fi->prepare = fi->dataset = 1;
		if (rl > maxrl)
			maxrl = rl;
		total += fi->rbytes;
		if (j->num_subfolders)
			snprintf(path, sizeof(path), "%s/sub_%llu/%s%0*llu%s", j->data_folder,
				 (unsigned long long)(f % j->num_subfolders), j->file_prefix, width,
				 (unsigned long long)f, j->file_suffix);
		else
			snprintf(path, sizeof(path), "%s/%s%0*llu%s", j->data_folder, j->file_prefix,
				 width, (unsigned long long)f, j->file_suffix);
		if ((rc = add_file(l, path, (uint32_t)f)))
			return rc;
	}
	l->dataset_bytes = total;
	if (js->W) {	/* reader.mmap: each file's windows, a reader's bitmap */
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
	}
	js->ck_first = (uint32_t)js->N;
	for (uint64_t c = 0; c < js->nck; c++) {
		uint64_t at = (c + 1) * js->period;	/* steps done */
		for (uint64_t h = 0; h < j->ckpt_files; h++) {
			int n = j->steps_between_checkpoints ?
				snprintf(path, sizeof(path), "%s/ckpt_step%llu", j->checkpoint_folder,
					 (unsigned long long)at) :
				snprintf(path, sizeof(path), "%s/ckpt_%llu", j->checkpoint_folder,
					 (unsigned long long)(at / js->spe));
			if (j->ckpt_files > 1)
				n += snprintf(path + n, sizeof(path) - (size_t)n, "_%llu",
					      (unsigned long long)h);
			snprintf(path + n, sizeof(path) - (size_t)n, ".pt");
			uint32_t id = js->ck_first + (uint32_t)((c * j->ckpt_files + h) * per);
			for (unsigned k = 0; k < per; k++) {
				struct rp_file *fi = &l->files[id + k];
				if (k)
					strcat(path, ".tmp");
				if ((rc = add_file(l, path, id + k)))
					return rc;
				fi->dir = ckdir;
				fi->modified = 1;
				fi->wbytes = k + 1 == per ? shard_size(js, (unsigned)h) : 0;
				fi->rbytes = !k && j->ckpt_read_back ? shard_size(js, (unsigned)h) : 0;
			}
		}
	}
	/* the threads, and what one loop does */
	uint64_t rops = 0, opens = 0, reads = 0;
	for (uint64_t e = 0; js->R && e < j->epochs; e++) {
		for (uint64_t b = 0; b < js->spe; b++) {
			uint64_t n = batch_ops(js, e, b);
			l->threads[1 + b % js->R].nops += n;
			rops += n;
		}
	}
	/* per epoch: each file read whole; a group per (batch, file) */
	for (uint64_t pos = 0; pos < js->N; pos++) {
		uint64_t first = pos * js->S / js->B, last = ((pos + 1) * js->S - 1) / js->B;
		opens += last - first + 1;
		if (js->j.read_eof && first == last)
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
	l->expected[CM_OPEN] = opens;
	l->expected[CM_CLOSE] = opens;
	l->expected[CM_READ] = reads;
	uint64_t ts_r = js->W ? js->W : j->transfer_size && j->transfer_size < maxrl ?
					j->transfer_size : maxrl;
	for (uint64_t r = 0; r < js->R; r++) {
		struct rp_thread *th = &l->threads[1 + r];
		th->tid = (uint32_t)(2 + r);
		th->pid = 1;
		th->maxlen = ts_r;
		th->depth = 1;
	}
	/* the trainer: compute, steps, checkpoints */
	struct rp_thread *tr = &l->threads[0];
	uint64_t cts = 0;
	for (uint64_t s = 0; s < js->nsteps; s++) {
		double c = js->ct;
		if (js->ct_sd > 0) {
			c += js->ct_sd * normal(j->seed ^ 0xc0ffee, s);
			if (c < 0)
				c = 0;
		}
		uint64_t d = (uint64_t)(c * 1e9 + 0.5);
		cts += d;
		if (d >= RP_STEP_GAP_NS)
			tr->steps++;
	}
	tr->tid = 1;
	tr->pid = 1;
	tr->compute_ns = cts;
	tr->depth = 1;
	tr->nops = 2 * js->nsteps + js->nck * js->ck_ops;
	for (unsigned h = 0; js->nck && h < j->ckpt_files; h++) {
		uint64_t sz = shard_size(js, h), w = sz ? chunks(sz, j->ckpt_transfer_size) : 0;
		l->expected[CM_OPEN] += js->nck * (1 + !!j->ckpt_read_back);
		l->expected[CM_CLOSE] += js->nck * (1 + !!j->ckpt_read_back);
		l->expected[CM_WRITE] += js->nck * w;
		l->expected[CM_READ] += j->ckpt_read_back ? js->nck * w : 0;
		l->expected[CM_FSYNC] += j->ckpt_fsync ? js->nck : 0;
		l->expected[CM_RENAME] += j->ckpt_rename ? js->nck : 0;
	}
	if (js->nck)
		tr->maxlen = j->ckpt_transfer_size < j->ckpt_size ? j->ckpt_transfer_size :
								    j->ckpt_size;
	l->nslots = (uint32_t)js->R + 1;
	l->span = cts;
	return 0;
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
	js->P = j->prefetch_size;
	js->NS = js->N * js->S;
	js->spe = js->N ? (js->NS + js->B - 1) / js->B :
		  j->steps_per_epoch ? j->steps_per_epoch : 1;
	js->nsteps = js->spe * j->epochs;
	js->ct = j->computation_time;
	js->ct_sd = j->computation_time_stdev;
	js->oflags = O_RDONLY | ((j->odirect || (o && o->direct)) ? O_DIRECT : 0);
	if (j->mmap && js->N)	/* the fault window: fault-around's 64 KiB */
		js->W = j->transfer_size ? j->transfer_size : RP_JOB_MAP_WINDOW;
	if (j->checkpoint) {
		js->period = j->steps_between_checkpoints ? j->steps_between_checkpoints :
							     j->epochs_between_checkpoints * js->spe;
		js->nck = js->nsteps / js->period;
		for (unsigned h = 0; h < j->ckpt_files; h++) {	/* ops per checkpoint */
			uint64_t sz = shard_size(js, h), w = sz ? chunks(sz, j->ckpt_transfer_size) : 0;
			js->ck_ops += 2 + w + !!j->ckpt_fsync + !!j->ckpt_rename +
				      (j->ckpt_read_back ? 2 + w : 0);
		}
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
	*out = &js->s;
	return 0;
}
