/* SPDX-License-Identifier: MIT */
/*
 * job.c - the keys of a job file, their checks and the writer (job.h).
 *
 * cm_job_keys[] is the one table of the keys: the writer walks it, the
 * job-file source (replay/rp_jobfile.c) parses each value with
 * cm_job_parse() and takes its defaults from it; the ranges are the
 * source's (what it can run), the words iotape-job(5)'s.
 *
 * The writer writes only the keys a model gives, section by section in the
 * order of cm_job_keys[], the value's comment aligned at column 32 as in
 * the format's example.  (The MLPerf Storage presets are DLIO workloads:
 * replay/rp_dlio.c.)
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "job.h"
#include "parse.h"

const char *const cm_job_sections[CM_JOB_NSECTIONS] = {
	"job", "source", "dataset", "reader", "train", "checkpoint",
};

#define REQ CM_JOB_REQUIRED
#define INFO CM_JOB_INFO
#define TIB (1ull << 40)
#define GIB (1ull << 30)
#define STRMAX 255	/* the longest folder or name (replay.h: RP_JOB_STR - 1) */
/* K(key, section, name, type, flags, min, max, default, what it does) */
#define K(k, s, n, t, f, lo, hi, d, u) [k] = { s, n, t, f, lo, hi, NULL, d, u }
#define C(k, s, n, ch, d, u) [k] = { s, n, CM_JOB_CHOICE, 0, 0, 0, ch, d, u }

const struct cm_job_keydef cm_job_keys[CM_JOB_NKEYS] = {
	K(CM_JOB_K_FORMAT, "job", "format", CM_JOB_UINT, REQ | INFO, 1, 1, NULL,
	  "the file's format: 1"),
	K(CM_JOB_K_NAME, "job", "name", CM_JOB_STR, 0, 0, STRMAX, "",
	  "free text: the job's name in the fio job file"),
	K(CM_JOB_K_RANKS, "job", "ranks", CM_JOB_UINT, INFO, 1, 1u << 20, NULL,
	  "the ranks the job is one of (replay it with -n RANKS)"),
	K(CM_JOB_K_SRC_TRACE, "source", "trace", CM_JOB_STR, INFO, 0, 0, NULL,
	  "the trace the job was modelled from"),
	K(CM_JOB_K_SRC_DURATION, "source", "duration_s", CM_JOB_SECS, INFO, 0, 1000000000000ull,
	  NULL, "that trace's first to last event"),
	K(CM_JOB_K_SRC_EVENTS, "source", "events", CM_JOB_UINT, INFO, 0, UINT64_MAX, NULL,
	  "that trace's syscall events"),
	K(CM_JOB_K_DATA_FOLDER, "dataset", "data_folder", CM_JOB_STR, REQ, 0, STRMAX, NULL,
	  "the data set's directory under DIR (relative; a trailing '/' is dropped)"),
	K(CM_JOB_K_NUM_FILES, "dataset", "num_files", CM_JOB_UINT, REQ, 0, 100000000, NULL,
	  "the data set's files (DLIO's num_files_train); 0: no data set, checkpoints only"),
	K(CM_JOB_K_NUM_SUBFOLDERS, "dataset", "num_subfolders", CM_JOB_UINT, 0, 0, 1000000, "0",
	  "file i is in sub_K, K = i mod num_subfolders (0: flat)"),
	K(CM_JOB_K_FILE_PREFIX, "dataset", "file_prefix", CM_JOB_STR, 0, 0, 63, "img_",
	  "a file's name: PREFIX, its index zero-padded, SUFFIX"),
	K(CM_JOB_K_FILE_SUFFIX, "dataset", "file_suffix", CM_JOB_STR, 0, 0, 63, ".jpg",
	  "a file's name: PREFIX, its index zero-padded, SUFFIX"),
	K(CM_JOB_K_RECORD_LENGTH, "dataset", "record_length", CM_JOB_SIZE, REQ, 1, TIB, NULL,
	  "bytes per sample (DLIO's record_length_bytes)"),
	K(CM_JOB_K_RECORD_STDEV, "dataset", "record_length_stdev", CM_JOB_SIZE, 0, 0, TIB, "0",
	  "a file's sample length is drawn once, normal, within [min, max]"),
	K(CM_JOB_K_RECORD_MIN, "dataset", "record_length_min", CM_JOB_SIZE, 0, 1, TIB, "1",
	  "the drawn sample length's floor"),
	K(CM_JOB_K_RECORD_MAX, "dataset", "record_length_max", CM_JOB_SIZE, 0, 0, TIB, "0",
	  "the drawn sample length's ceiling (0: none)"),
	K(CM_JOB_K_SAMPLES_PER_FILE, "dataset", "num_samples_per_file", CM_JOB_UINT, 0, 1, TIB,
	  "1", "a file's samples, byte ranges of it: its size is samples x length"),
	K(CM_JOB_K_GENERATE, "dataset", "generate", CM_JOB_BOOL, 0, 0, 0, "off",
	  "on: the readers write the data set instead of reading it"),
	K(CM_JOB_K_READ_THREADS, "reader", "read_threads", CM_JOB_UINT, 0, 1, 1024, "2",
	  "reader threads (DataLoader workers): batch b is reader b mod read_threads'"),
	K(CM_JOB_K_BATCH_SIZE, "reader", "batch_size", CM_JOB_UINT, 0, 1, 100000000, "64",
	  "samples per step"),
	K(CM_JOB_K_TRANSFER_SIZE, "reader", "transfer_size", CM_JOB_SIZE, 0, 0, GIB, "0",
	  "bytes per read (0: a sample a read; with mmap, the fault window, 0: 64 KiB)"),
	C(CM_JOB_K_FILE_SHUFFLE, "reader", "file_shuffle", "off|on|once", "on",
	  "the files' order: names, a keyed shuffle each epoch, or one for every epoch"),
	K(CM_JOB_K_SAMPLE_SHUFFLE, "reader", "sample_shuffle", CM_JOB_BOOL, 0, 0, 0, "off",
	  "on: a file's samples are read in a shuffled order each epoch"),
	K(CM_JOB_K_PREFETCH, "reader", "prefetch_size", CM_JOB_UINT, 0, 1, 1000000, "2",
	  "batches a reader reads ahead of the trainer"),
	K(CM_JOB_K_ODIRECT, "reader", "odirect", CM_JOB_BOOL, 0, 0, 0, "off",
	  "on: the readers open with O_DIRECT"),
	K(CM_JOB_K_READ_EOF, "reader", "read_eof", CM_JOB_BOOL, 0, 0, 0, "on",
	  "on: a 0-byte read ends a whole-file read"),
	K(CM_JOB_K_DROP_LAST, "reader", "drop_last", CM_JOB_BOOL, 0, 0, 0, "off",
	  "on: an epoch is its whole batches only"),
	K(CM_JOB_K_MMAP, "reader", "mmap", CM_JOB_BOOL, 0, 0, 0, "off",
	  "on: the samples are reached through a memory map (page-fault reads)"),
	K(CM_JOB_K_EPOCHS, "train", "epochs", CM_JOB_UINT, 0, 1, 1000000, "1",
	  "the epochs the trainer runs"),
	K(CM_JOB_K_STEPS_PER_EPOCH, "train", "steps_per_epoch", CM_JOB_UINT, 0, 1, 1000000000,
	  NULL, "at most that many steps an epoch (not given: all its batches, or 1 step "
	  "without a data set)"),
	K(CM_JOB_K_COMPUTE, "train", "computation_time", CM_JOB_SECS, REQ, 0, 3600, NULL,
	  "seconds of compute per step"),
	K(CM_JOB_K_COMPUTE_STDEV, "train", "computation_time_stdev", CM_JOB_SECS, 0, 0, 3600, "0",
	  "with a stdev, a step's compute is drawn from computation_time_distribution"),
	C(CM_JOB_K_COMPUTE_DIST, "train", "computation_time_distribution", "normal|lognormal",
	  "normal", "normal: DLIO's draw (its absolute value); lognormal: of that mean and stdev"),
	K(CM_JOB_K_SEED, "train", "seed", CM_JOB_UINT, 0, 0, UINT64_MAX, "1",
	  "keys the shuffles and the drawn lengths"),
	K(CM_JOB_K_CKPT_FOLDER, "checkpoint", "checkpoint_folder", CM_JOB_STR, 0, 0, STRMAX,
	  "checkpoints", "the checkpoints' directory under DIR (relative)"),
	K(CM_JOB_K_CKPT_AFTER, "checkpoint", "checkpoint_after_epoch", CM_JOB_UINT, 0, 1, 1000000,
	  NULL, "the first epoch a checkpoint follows (not given: epochs_between_checkpoints)"),
	K(CM_JOB_K_CKPT_EPOCHS, "checkpoint", "epochs_between_checkpoints", CM_JOB_UINT, 0, 0,
	  1000000, "1", "a checkpoint every that many epochs"),
	K(CM_JOB_K_CKPT_STEPS, "checkpoint", "steps_between_checkpoints", CM_JOB_UINT, 0, 0, TIB,
	  "0", "a checkpoint after every that many steps of an epoch (0: by epochs)"),
	K(CM_JOB_K_CKPT_WRITES, "checkpoint", "num_checkpoints_write", CM_JOB_UINT, 0, 0, 1000000,
	  NULL, "given (num_files 0): that many steps, each then writing a checkpoint"),
	K(CM_JOB_K_CKPT_READS, "checkpoint", "num_checkpoints_read", CM_JOB_UINT, 0, 0, 1000000,
	  NULL, "given (num_files 0): then that many steps, each reading one back"),
	K(CM_JOB_K_CKPT_SIZE, "checkpoint", "size", CM_JOB_SIZE, 0, 0, TIB, "16m",
	  "bytes per checkpoint, split over its files"),
	K(CM_JOB_K_CKPT_FILES, "checkpoint", "files", CM_JOB_UINT, 0, 1, 4096, "1",
	  "files per checkpoint"),
	K(CM_JOB_K_CKPT_TRANSFER, "checkpoint", "transfer_size", CM_JOB_SIZE, 0, 1, GIB, "1m",
	  "bytes per checkpoint write"),
	K(CM_JOB_K_CKPT_FSYNC, "checkpoint", "fsync", CM_JOB_BOOL, 0, 0, 0, "on",
	  "on: each checkpoint file is synced"),
	K(CM_JOB_K_CKPT_RENAME, "checkpoint", "rename", CM_JOB_BOOL, 0, 0, 0, "off",
	  "on: each file is written as NAME.tmp, then renamed"),
	K(CM_JOB_K_CKPT_READ_BACK, "checkpoint", "read_back", CM_JOB_BOOL, 0, 0, 0, "off",
	  "on: each file is read back after it was written"),
};

#undef K
#undef C

int cm_job_find(const char *section, const char *name)
{
	for (int k = 0; k < CM_JOB_NKEYS; k++)
		if (strcmp(cm_job_keys[k].section, section) == 0 &&
		    strcmp(cm_job_keys[k].name, name) == 0)
			return k;
	return -ENOENT;
}

int cm_job_section(const char *name)
{
	for (int s = 0; s < CM_JOB_NSECTIONS; s++)
		if (strcmp(cm_job_sections[s], name) == 0)
			return s;
	return -ENOENT;
}

int cm_job_parse(int key, const char *value, struct cm_job_val *out, char *why, size_t whylen)
{
	const struct cm_job_keydef *k;
	struct cm_job_val v = { 0 };
	unsigned long long lo, hi;
	const char *sec, *name;

	if (key < 0 || key >= CM_JOB_NKEYS || !value)
		return -EINVAL;
	k = &cm_job_keys[key];
	sec = k->section;
	name = k->name;
	lo = k->min;
	hi = k->max;
	switch (k->type) {
	case CM_JOB_STR:
		if (k->max && strlen(value) > k->max) {
			snprintf(why, whylen, "%s.%s: longer than %llu bytes", sec, name, hi);
			return -EINVAL;
		}
		break;
	case CM_JOB_UINT:
		if (cm_parse_u64(value, k->min, k->max, &v.u)) {
			snprintf(why, whylen, "%s.%s: '%s' is not a whole number from %llu to %llu",
				 sec, name, value, lo, hi);
			return -EINVAL;
		}
		break;
	case CM_JOB_SIZE:
		if (cm_parse_size(value, k->min, k->max, &v.u)) {
			snprintf(why, whylen, "%s.%s: '%s' is not a size from %llu to %llu bytes "
				 "(k/m/g suffixes)", sec, name, value, lo, hi);
			return -EINVAL;
		}
		break;
	case CM_JOB_SECS:
		if (cm_parse_double(value, 0, (double)k->max, &v.d)) {
			snprintf(why, whylen, "%s.%s: '%s' is not a number of seconds from 0 to %g",
				 sec, name, value, (double)k->max);
			return -EINVAL;
		}
		break;
	case CM_JOB_BOOL:
		if ((v.c = cm_parse_choice("off|on", value)) < 0) {
			snprintf(why, whylen, "%s.%s: '%s' is not on or off", sec, name, value);
			return -EINVAL;
		}
		break;
	case CM_JOB_CHOICE:
		if ((v.c = cm_parse_choice(k->choices, value)) < 0) {
			snprintf(why, whylen, "%s.%s: '%s' is not one of %s", sec, name, value,
				 k->choices);
			return -EINVAL;
		}
		break;
	default:
		return -EINVAL;
	}
	if (out)
		*out = v;
	return 0;
}

static int dup_or_null(const char *s, char **out)
{
	*out = NULL;
	if (s && !(*out = strdup(s)))
		return -ENOMEM;
	return 0;
}

int cm_job_set(struct cm_job *job, int key, const char *value, const char *note)
{
	char *v, *n;

	if (key < 0 || key >= CM_JOB_NKEYS)
		return -EINVAL;
	if (dup_or_null(value, &v) < 0)
		return -ENOMEM;
	if (dup_or_null(value ? note : NULL, &n) < 0) {
		free(v);
		return -ENOMEM;
	}
	free(job->val[key]);
	free(job->note[key]);
	job->val[key] = v;
	job->note[key] = n;
	return 0;
}

int cm_job_setf(struct cm_job *job, int key, const char *note, const char *fmt, ...)
{
	va_list ap;
	char *v;
	int n, err;

	va_start(ap, fmt);
	n = vasprintf(&v, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	err = cm_job_set(job, key, v, note);
	free(v);
	return err;
}

int cm_job_set_header(struct cm_job *job, const char *text)
{
	char *h;

	if (dup_or_null(text, &h) < 0)
		return -ENOMEM;
	free(job->header);
	job->header = h;
	return 0;
}

void cm_job_release(struct cm_job *job)
{
	if (!job)
		return;
	for (int k = 0; k < CM_JOB_NKEYS; k++) {
		free(job->val[k]);
		free(job->note[k]);
	}
	free(job->header);
	memset(job, 0, sizeof(*job));
}

/* A comment's text, one line per line of text, each after "; ". */
static void put_comment(FILE *f, const char *text)
{
	const char *p = text, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		fprintf(f, "; %.*s\n", (int)(nl ? nl - p : (ptrdiff_t)strlen(p)), p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

int cm_job_write(FILE *f, const struct cm_job *job)
{
	const char *section = NULL;

	fputs("; iotape job file, format " CM_JOB_FORMAT " (iotape-model(1))\n", f);
	if (job->header)
		put_comment(f, job->header);
	for (int k = 0; k < CM_JOB_NKEYS; k++) {
		const struct cm_job_keydef *d = &cm_job_keys[k];
		const char *v = k == CM_JOB_K_FORMAT ? CM_JOB_FORMAT : job->val[k];
		const char *note = k == CM_JOB_K_FORMAT ? "required" : job->note[k];
		int n;

		if (!v)
			continue;
		if (!section || strcmp(section, d->section) != 0) {
			section = d->section;
			fprintf(f, "\n[%s]\n", section);
		}
		n = fprintf(f, "%s = %s", d->name, v);
		if (note && *note) {
			const char *nl = strchr(note, '\n');

			fprintf(f, "%*s; %.*s", n < 31 ? 32 - n : 1, "",
				(int)(nl ? nl - note : (ptrdiff_t)strlen(note)), note);
			/* further lines of a note: own comment lines under it */
			if (nl) {
				fputc('\n', f);
				put_comment(f, nl + 1);
				continue;
			}
		}
		fputc('\n', f);
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
