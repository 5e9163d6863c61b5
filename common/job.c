/* SPDX-License-Identifier: MIT */
/*
 * job.c - the keys of a job file, their checks and the writer (job.h).
 *
 * The writer writes only the keys a model gives, section by section in the
 * order of cm_job_keys[], the value's comment aligned at column 32 as in
 * the format's example.  (The MLPerf Storage presets are DLIO workloads:
 * replay/rp_dlio.c.)
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "job.h"
#include "parse.h"

const struct cm_job_keydef cm_job_keys[CM_JOB_NKEYS] = {
	[CM_JOB_K_FORMAT] = { "job", "format", CM_JOB_UINT },
	[CM_JOB_K_NAME] = { "job", "name", CM_JOB_STR },
	[CM_JOB_K_RANKS] = { "job", "ranks", CM_JOB_UINT },
	[CM_JOB_K_SRC_TRACE] = { "source", "trace", CM_JOB_STR },
	[CM_JOB_K_SRC_DURATION] = { "source", "duration_s", CM_JOB_SECS },
	[CM_JOB_K_SRC_EVENTS] = { "source", "events", CM_JOB_UINT },
	[CM_JOB_K_DATA_FOLDER] = { "dataset", "data_folder", CM_JOB_STR },
	[CM_JOB_K_NUM_FILES] = { "dataset", "num_files", CM_JOB_UINT },
	[CM_JOB_K_NUM_SUBFOLDERS] = { "dataset", "num_subfolders", CM_JOB_UINT },
	[CM_JOB_K_FILE_PREFIX] = { "dataset", "file_prefix", CM_JOB_STR },
	[CM_JOB_K_FILE_SUFFIX] = { "dataset", "file_suffix", CM_JOB_STR },
	[CM_JOB_K_RECORD_LENGTH] = { "dataset", "record_length", CM_JOB_SIZE },
	[CM_JOB_K_RECORD_STDEV] = { "dataset", "record_length_stdev", CM_JOB_SIZE },
	[CM_JOB_K_RECORD_MIN] = { "dataset", "record_length_min", CM_JOB_SIZE },
	[CM_JOB_K_RECORD_MAX] = { "dataset", "record_length_max", CM_JOB_SIZE },
	[CM_JOB_K_SAMPLES_PER_FILE] = { "dataset", "num_samples_per_file", CM_JOB_UINT },
	[CM_JOB_K_GENERATE] = { "dataset", "generate", CM_JOB_BOOL },
	[CM_JOB_K_READ_THREADS] = { "reader", "read_threads", CM_JOB_UINT },
	[CM_JOB_K_BATCH_SIZE] = { "reader", "batch_size", CM_JOB_UINT },
	[CM_JOB_K_TRANSFER_SIZE] = { "reader", "transfer_size", CM_JOB_SIZE },
	[CM_JOB_K_FILE_SHUFFLE] = { "reader", "file_shuffle", CM_JOB_CHOICE, "off|on|once" },
	[CM_JOB_K_SAMPLE_SHUFFLE] = { "reader", "sample_shuffle", CM_JOB_BOOL },
	[CM_JOB_K_PREFETCH] = { "reader", "prefetch_size", CM_JOB_UINT },
	[CM_JOB_K_ODIRECT] = { "reader", "odirect", CM_JOB_BOOL },
	[CM_JOB_K_READ_EOF] = { "reader", "read_eof", CM_JOB_BOOL },
	[CM_JOB_K_DROP_LAST] = { "reader", "drop_last", CM_JOB_BOOL },
	[CM_JOB_K_MMAP] = { "reader", "mmap", CM_JOB_BOOL },
	[CM_JOB_K_EPOCHS] = { "train", "epochs", CM_JOB_UINT },
	[CM_JOB_K_STEPS_PER_EPOCH] = { "train", "steps_per_epoch", CM_JOB_UINT },
	[CM_JOB_K_COMPUTE] = { "train", "computation_time", CM_JOB_SECS },
	[CM_JOB_K_COMPUTE_STDEV] = { "train", "computation_time_stdev", CM_JOB_SECS },
	[CM_JOB_K_SEED] = { "train", "seed", CM_JOB_UINT },
	[CM_JOB_K_CKPT_FOLDER] = { "checkpoint", "checkpoint_folder", CM_JOB_STR },
	[CM_JOB_K_CKPT_AFTER] = { "checkpoint", "checkpoint_after_epoch", CM_JOB_UINT },
	[CM_JOB_K_CKPT_EPOCHS] = { "checkpoint", "epochs_between_checkpoints", CM_JOB_UINT },
	[CM_JOB_K_CKPT_STEPS] = { "checkpoint", "steps_between_checkpoints", CM_JOB_UINT },
	[CM_JOB_K_CKPT_WRITES] = { "checkpoint", "num_checkpoints_write", CM_JOB_UINT },
	[CM_JOB_K_CKPT_READS] = { "checkpoint", "num_checkpoints_read", CM_JOB_UINT },
	[CM_JOB_K_CKPT_SIZE] = { "checkpoint", "size", CM_JOB_SIZE },
	[CM_JOB_K_CKPT_FILES] = { "checkpoint", "files", CM_JOB_UINT },
	[CM_JOB_K_CKPT_TRANSFER] = { "checkpoint", "transfer_size", CM_JOB_SIZE },
	[CM_JOB_K_CKPT_FSYNC] = { "checkpoint", "fsync", CM_JOB_BOOL },
	[CM_JOB_K_CKPT_RENAME] = { "checkpoint", "rename", CM_JOB_BOOL },
	[CM_JOB_K_CKPT_READ_BACK] = { "checkpoint", "read_back", CM_JOB_BOOL },
};

int cm_job_find(const char *section, const char *name)
{
	for (int k = 0; k < CM_JOB_NKEYS; k++)
		if (strcmp(cm_job_keys[k].section, section) == 0 &&
		    strcmp(cm_job_keys[k].name, name) == 0)
			return k;
	return -ENOENT;
}

int cm_job_check(int key, const char *value, char *why, size_t whylen)
{
	uint64_t u;
	double d;
	int err = 0;

	if (key < 0 || key >= CM_JOB_NKEYS || !value)
		return -EINVAL;
	switch (cm_job_keys[key].type) {
	case CM_JOB_STR:
		if (strpbrk(value, "\n\r;#")) {
			snprintf(why, whylen, "not one line without ';' or '#'");
			return -EINVAL;
		}
		return 0;
	case CM_JOB_UINT:
		if ((err = cm_parse_u64(value, 0, UINT32_MAX, &u)) < 0)
			snprintf(why, whylen, "not a whole number from 0 to %u", UINT32_MAX);
		return err;
	case CM_JOB_SIZE:
		if ((err = cm_parse_size(value, 0, UINT64_MAX, &u)) < 0)
			snprintf(why, whylen, "not a size (bytes, with k, m, g or t)");
		return err;
	case CM_JOB_SECS:
		if ((err = cm_parse_double(value, 0, 1e9, &d)) < 0)
			snprintf(why, whylen, "not a number of seconds from 0 to 1e9");
		return err;
	case CM_JOB_BOOL:
		if (cm_parse_choice("on|off", value) < 0) {
			snprintf(why, whylen, "not on or off");
			return -EINVAL;
		}
		return 0;
	case CM_JOB_CHOICE:
		if (cm_parse_choice(cm_job_keys[key].choices, value) < 0) {
			snprintf(why, whylen, "not one of %s", cm_job_keys[key].choices);
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
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
