/* SPDX-License-Identifier: MIT */
/*
 * job.c - the keys of a job file, their checks and the writer (job.h),
 * and the MLPerf Storage presets.
 *
 * The writer writes only the keys a model gives, section by section in the
 * order of cm_job_keys[], the value's comment aligned at column 32 as in
 * the format's example.  Presets cite their source in the notes: a preset
 * value nobody published is left out, not guessed.
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
	[CM_JOB_K_READ_THREADS] = { "reader", "read_threads", CM_JOB_UINT },
	[CM_JOB_K_BATCH_SIZE] = { "reader", "batch_size", CM_JOB_UINT },
	[CM_JOB_K_TRANSFER_SIZE] = { "reader", "transfer_size", CM_JOB_SIZE },
	[CM_JOB_K_FILE_SHUFFLE] = { "reader", "file_shuffle", CM_JOB_BOOL },
	[CM_JOB_K_SAMPLE_SHUFFLE] = { "reader", "sample_shuffle", CM_JOB_BOOL },
	[CM_JOB_K_PREFETCH] = { "reader", "prefetch_size", CM_JOB_UINT },
	[CM_JOB_K_ODIRECT] = { "reader", "odirect", CM_JOB_BOOL },
	[CM_JOB_K_READ_EOF] = { "reader", "read_eof", CM_JOB_BOOL },
	[CM_JOB_K_MMAP] = { "reader", "mmap", CM_JOB_BOOL },
	[CM_JOB_K_EPOCHS] = { "train", "epochs", CM_JOB_UINT },
	[CM_JOB_K_STEPS_PER_EPOCH] = { "train", "steps_per_epoch", CM_JOB_UINT },
	[CM_JOB_K_COMPUTE] = { "train", "computation_time", CM_JOB_SECS },
	[CM_JOB_K_COMPUTE_STDEV] = { "train", "computation_time_stdev", CM_JOB_SECS },
	[CM_JOB_K_SEED] = { "train", "seed", CM_JOB_UINT },
	[CM_JOB_K_CKPT_FOLDER] = { "checkpoint", "checkpoint_folder", CM_JOB_STR },
	[CM_JOB_K_CKPT_EPOCHS] = { "checkpoint", "epochs_between_checkpoints", CM_JOB_UINT },
	[CM_JOB_K_CKPT_STEPS] = { "checkpoint", "steps_between_checkpoints", CM_JOB_UINT },
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

/* ---------------------------------------------------------------- presets */

struct preset_val {
	int key;
	const char *val;
	const char *note;
};

struct preset {
	const char *name, *summary, *source;
	struct preset_val vals[24];
	const char *h100, *a100;	/* computation_time; NULL: no accelerator */
};

#define MLPS "MLPerf Storage configs/dlio/workload/"

static const struct preset presets[] = {
	{ "unet3d", "3D U-Net (KiTS19): 168 npz files of 140 MiB, batch 7",
	  "DLIO configs/workload/unet3d_{h100,a100}.yaml, MLPerf Storage v1.0/v2.0 "
	  "(" MLPS "unet3d_{h100,a100}.yaml)", {
		{ CM_JOB_K_NAME, "unet3d", "model.name" },
		{ CM_JOB_K_DATA_FOLDER, "data/unet3d", "dataset.data_folder" },
		{ CM_JOB_K_NUM_FILES, "168", "dataset.num_files_train" },
		{ CM_JOB_K_FILE_SUFFIX, ".npz", "dataset.format: npz" },
		{ CM_JOB_K_RECORD_LENGTH, "146600628", "dataset.record_length_bytes" },
		{ CM_JOB_K_RECORD_STDEV, "68341808", "dataset.record_length_bytes_stdev" },
		{ CM_JOB_K_SAMPLES_PER_FILE, "1", "dataset.num_samples_per_file" },
		{ CM_JOB_K_READ_THREADS, "4", "reader.read_threads" },
		{ CM_JOB_K_BATCH_SIZE, "7", "reader.batch_size" },
		{ CM_JOB_K_FILE_SHUFFLE, "on", "reader.file_shuffle: seed" },
		{ CM_JOB_K_SAMPLE_SHUFFLE, "on", "reader.sample_shuffle: seed" },
		{ CM_JOB_K_EPOCHS, "5", "train.epochs" },
		{ -1 } }, "0.323", "0.636" },
	{ "resnet50", "ResNet-50 (ImageNet): 1024 tfrecord files of 1251 samples, batch 400",
	  "MLPerf Storage v1.0/v2.0 (" MLPS "resnet50_{h100,a100}.yaml)", {
		{ CM_JOB_K_NAME, "resnet50", "model.name" },
		{ CM_JOB_K_DATA_FOLDER, "data/resnet50", "dataset.data_folder" },
		{ CM_JOB_K_NUM_FILES, "1024", "dataset.num_files_train" },
		{ CM_JOB_K_FILE_SUFFIX, ".tfrecord", "dataset.format: tfrecord" },
		{ CM_JOB_K_RECORD_LENGTH, "114660", "dataset.record_length_bytes: 114660.07" },
		{ CM_JOB_K_SAMPLES_PER_FILE, "1251", "dataset.num_samples_per_file" },
		{ CM_JOB_K_READ_THREADS, "8", "reader.read_threads" },
		{ CM_JOB_K_BATCH_SIZE, "400", "reader.batch_size" },
		{ CM_JOB_K_EPOCHS, "5", "train.epochs" },
		{ -1 } }, "0.224", "0.435" },
	{ "cosmoflow", "CosmoFlow: 524288 tfrecord files of 2.7 MiB, batch 1",
	  "MLPerf Storage v1.0/v2.0 (" MLPS "cosmoflow_{h100,a100}.yaml), "
	  "DLIO configs/workload/cosmoflow_{h100,a100}.yaml", {
		{ CM_JOB_K_NAME, "cosmoflow", "model.name" },
		{ CM_JOB_K_DATA_FOLDER, "data/cosmoflow", "dataset.data_folder" },
		{ CM_JOB_K_NUM_FILES, "524288", "dataset.num_files_train" },
		{ CM_JOB_K_FILE_SUFFIX, ".tfrecord", "dataset.format: tfrecord" },
		{ CM_JOB_K_RECORD_LENGTH, "2828486", "dataset.record_length_bytes" },
		{ CM_JOB_K_RECORD_STDEV, "71311", "dataset.record_length_bytes_stdev" },
		{ CM_JOB_K_SAMPLES_PER_FILE, "1", "dataset.num_samples_per_file" },
		{ CM_JOB_K_READ_THREADS, "4", "reader.read_threads" },
		{ CM_JOB_K_BATCH_SIZE, "1", "reader.batch_size" },
		{ CM_JOB_K_FILE_SHUFFLE, "on", "reader.file_shuffle: seed" },
		{ CM_JOB_K_SAMPLE_SHUFFLE, "on", "reader.sample_shuffle: seed" },
		{ CM_JOB_K_EPOCHS, "5", "train.epochs" },
		{ -1 } }, "0.00350", "0.00551" },
	{ "llama3-8b", "Llama 3 8B checkpointing: 105 GB in 8 shards, fsync, read back",
	  "MLPerf Storage v2.0 checkpointing (" MLPS "llama3_8b_checkpoint.yaml: "
	  "ZeRO-3 on 8 ranks, fp16 model 15 GB + fp32 optimizer 90 GB)", {
		{ CM_JOB_K_NAME, "llama3-8b", "model.name: llama_8b" },
		{ CM_JOB_K_NUM_FILES, "0", "checkpoint only: no data set (workflow.train: False)" },
		{ CM_JOB_K_EPOCHS, "2", "checkpoint.num_checkpoints_write: 2 (one per epoch)" },
		{ CM_JOB_K_COMPUTE, "0", "workflow.train: False: no training steps" },
		{ CM_JOB_K_CKPT_FOLDER, "checkpoints/llama3-8b", "checkpoint.checkpoint_folder" },
		{ CM_JOB_K_CKPT_EPOCHS, "1", "a checkpoint after each epoch" },
		{ CM_JOB_K_CKPT_SIZE, "105000000000", "105 GB (MLPerf Storage v2.0: 8B)" },
		{ CM_JOB_K_CKPT_FILES, "8", "one shard per rank (8 ranks, ZeRO-3)" },
		{ CM_JOB_K_CKPT_FSYNC, "on", "MLPerf Storage v2.0: written with fsync" },
		{ CM_JOB_K_CKPT_READ_BACK, "on", "checkpoint.num_checkpoints_read: 2" },
		{ -1 } }, NULL, NULL },
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

const char *cm_job_preset_name(size_t i, const char **summary)
{
	if (i >= NPRESETS)
		return NULL;
	if (summary)
		*summary = presets[i].summary;
	return presets[i].name;
}

int cm_job_preset(struct cm_job *job, const char *name, enum cm_job_accel accel)
{
	const struct preset *p = NULL;
	char hdr[512];

	for (size_t i = 0; i < NPRESETS; i++)
		if (strcmp(presets[i].name, name) == 0)
			p = &presets[i];
	if (!p)
		return -ENOENT;
	snprintf(hdr, sizeof(hdr), "preset %s%s: %s\nsource: %s", p->name,
		 !p->h100 ? "" : accel == CM_JOB_A100 ? " --accelerator a100" : " --accelerator h100",
		 p->summary, p->source);
	if (cm_job_set_header(job, hdr) < 0)
		return -ENOMEM;
	for (const struct preset_val *v = p->vals; v->key >= 0; v++)
		if (cm_job_set(job, v->key, v->val, v->note) < 0)
			return -ENOMEM;
	if (p->h100 && cm_job_set(job, CM_JOB_K_COMPUTE, accel == CM_JOB_A100 ? p->a100 : p->h100,
				  accel == CM_JOB_A100 ? "train.computation_time (A100)" :
				  "train.computation_time (H100)") < 0)
		return -ENOMEM;
	return 0;
}
