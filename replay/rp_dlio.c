/* SPDX-License-Identifier: MIT */
/*
 * rp_dlio.c - a DLIO workload (dlio_benchmark configs/workload/NAME.yaml,
 * MLPerf Storage configs/dlio/workload/NAME.yaml) as the job DLIO runs
 * (replay.h, iotape-model(1) DLIO WORKLOADS).
 *
 * Three passes.  The keys: every key DLIO's LoadConfig reads is in
 * dlio_keys[] with its type; a value of the wrong type, or a list or a
 * mapping where a value goes, is an error naming the key and its line; a
 * key DLIO does not read is a note (DLIO ignores it too).  Then DLIO's
 * configuration: its defaults (ConfigArguments) overridden by the keys.
 * Then the job, as DLIO's code runs that configuration:
 *
 *   workflow    train: a training job; train False with checkpoint: the
 *               checkpoints only (num_checkpoints_write, then _read, each
 *               after time_between_checkpoints of compute); generate_data
 *               alone: the job of writing the data set;
 *   data set    DLIO's layout (DATA_FOLDER/train/PREFIX_I_of_N.FORMAT) and
 *               the size its generator writes for the format, from the
 *               dimensions it draws (int(sqrt(record_length)), stdev over
 *               2 sqrt(record_length), each truncated): their mean and
 *               stdev over a file's samples;
 *   reader      the loader's file order (PyTorch's sampler reads in name
 *               order whatever the shuffle keys say; tf.data shuffles the
 *               file list once), its prefetch per worker, drop_last, the
 *               read sizes of its readers;
 *   checkpoints the schedule of main.py (checkpoint_after_epoch, every
 *               epochs_between_checkpoints; steps_between_checkpoints in
 *               each epoch) and the bytes and files each rank writes, as
 *               base_checkpointing.py sizes them from the model keys (layer
 *               parameters, parallelism, ZeRO stage, datatypes,
 *               model_size_bytes): the job's checkpoint is one writing
 *               rank's (their mean).
 *
 * What cannot be honoured is one note per key, through the caller's
 * callback.  Nothing here prints; memory is the key list's.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "job.h"
#include "parse.h"
#include "replay.h"

/* ------------------------------------------------------------- the keys */

enum dt {
	T_INT,		/* a whole number (DLIO: int), may be negative */
	T_NUM,		/* a number (float) */
	T_STR,
	T_BOOL,
	T_TIME,		/* a number, or a mapping {mean, stdev} / {type, ...} */
	T_LIST,		/* a list of whole numbers */
	T_ANY,		/* read by DLIO, nothing of ours: no check */
};

/* Where a key goes (enum f: the fields of struct cfg). */
enum f {
	F_NONE,
	F_FRAMEWORK, F_STORAGE_TYPE, F_STORAGE_ROOT,
	F_RECLEN, F_RECLEN_SD, F_NUM_FILES, F_NUM_FILES_EVAL, F_SAMPLES, F_DATA_FOLDER,
	F_SUBFOLDERS, F_COMPRESSION, F_PREFIX, F_FORMAT, F_REC_DIMS, F_ELEM_TYPE, F_ELEM_BYTES,
	F_LOADER, F_READ_THREADS, F_BATCH, F_PREFETCH, F_FILE_SHUFFLE, F_SAMPLE_SHUFFLE,
	F_TRANSFER, F_ODIRECT, F_PREPROCESS, F_PREPROCESS_SD, F_SAMPLER, F_READER_CLASS,
	F_LOADER_CLASS,
	F_EPOCHS, F_TOTAL_STEPS, F_SEED_CHANGE, F_COMPUTE, F_COMPUTE_SD, F_SEED,
	F_EVAL_TIME,
	F_CK_FOLDER, F_CK_AFTER, F_CK_EPOCHS, F_CK_STEPS, F_CK_FSYNC, F_CK_TIME, F_CK_WRITES,
	F_CK_READS, F_CK_RANK_SYNC, F_CK_MODE, F_CK_SHIFT, F_CK_CLASS,
	F_MODEL, F_MODEL_TYPE, F_MODEL_SIZE, F_OPT_GROUPS, F_LAYERS, F_LAYER_PARAMS,
	F_MODEL_DT, F_OPT_DT, F_TP, F_PP, F_DP, F_ZERO, F_VOCAB, F_HIDDEN, F_FFN, F_HEADS,
	F_KV_HEADS,
	F_EXCL_START, F_EXCL_END,
	F_DO_TRAIN, F_GENERATE, F_DO_EVAL, F_DO_CKPT, F_DO_PROFILE,
	F_AU,
	F_NFIELDS
};

/* What a key that is not honoured does instead (NULL: honoured, or no
 * effect on the I/O). */
struct dkey {
	const char *key;	/* "reader.read_threads" ("reader." also reads
				 * "data_reader.") */
	enum dt type;
	enum f f;
	const char *note;
};

static const struct dkey dlio_keys[] = {
	{ "framework", T_STR, F_FRAMEWORK, NULL },
	{ "storage.storage_type", T_STR, F_STORAGE_TYPE, NULL },
	{ "storage.storage_root", T_STR, F_STORAGE_ROOT, NULL },
	{ "storage.storage_options", T_ANY, F_NONE, NULL },
	{ "dataset.record_length_bytes", T_NUM, F_RECLEN, NULL },
	{ "dataset.record_length_bytes_stdev", T_NUM, F_RECLEN_SD, NULL },
	{ "dataset.record_length_bytes_resize", T_NUM, F_NONE, NULL },	/* in memory */
	{ "dataset.num_files_train", T_INT, F_NUM_FILES, NULL },
	{ "dataset.num_files_eval", T_INT, F_NUM_FILES_EVAL, NULL },
	{ "dataset.generation_buffer_size", T_INT, F_NONE, NULL },
	{ "dataset.num_samples_per_file", T_INT, F_SAMPLES, NULL },
	{ "dataset.data_folder", T_STR, F_DATA_FOLDER, NULL },
	{ "dataset.num_subfolders_train", T_INT, F_SUBFOLDERS, NULL },
	{ "dataset.num_subfolders_eval", T_INT, F_NONE, NULL },
	{ "dataset.enable_chunking", T_BOOL, F_NONE, "HDF5 chunking is not modelled: the "
	  "files' sizes and reads are those of contiguous data" },
	{ "dataset.chunk_size", T_INT, F_NONE, "HDF5 chunking is not modelled" },
	{ "dataset.compression", T_STR, F_COMPRESSION, NULL },
	{ "dataset.compression_level", T_INT, F_NONE, NULL },
	{ "dataset.file_prefix", T_STR, F_PREFIX, NULL },
	{ "dataset.format", T_STR, F_FORMAT, NULL },
	{ "dataset.keep_files", T_BOOL, F_NONE, NULL },
	{ "dataset.record_element_bytes", T_INT, F_ELEM_BYTES, NULL },
	{ "dataset.record_element_type", T_STR, F_ELEM_TYPE, NULL },
	{ "dataset.record_dims", T_LIST, F_REC_DIMS, NULL },
	{ "dataset.hdf5", T_ANY, F_NONE, "HDF5 layout (chunk_dims, num_dset_per_record, "
	  "max_shape) is not modelled" },
	{ "reader.dont_use_mmap", T_BOOL, F_NONE, NULL },
	{ "reader.reader_classname", T_STR, F_READER_CLASS, NULL },
	{ "reader.multiprocessing_context", T_STR, F_NONE, NULL },
	{ "reader.data_loader", T_STR, F_LOADER, NULL },
	{ "reader.data_loader_classname", T_STR, F_LOADER_CLASS, NULL },
	{ "reader.data_loader_sampler", T_STR, F_SAMPLER, NULL },
	{ "reader.read_threads", T_INT, F_READ_THREADS, NULL },
	{ "reader.computation_threads", T_INT, F_NONE, NULL },	/* parsing, in memory */
	{ "reader.batch_size", T_INT, F_BATCH, NULL },
	{ "reader.batch_size_eval", T_INT, F_NONE, NULL },
	{ "reader.prefetch_size", T_INT, F_PREFETCH, NULL },
	{ "reader.file_shuffle", T_STR, F_FILE_SHUFFLE, NULL },
	{ "reader.file_access", T_STR, F_NONE, NULL },
	{ "reader.shuffle_size", T_INT, F_NONE, NULL },	/* a record buffer, in memory */
	{ "reader.sample_shuffle", T_STR, F_SAMPLE_SHUFFLE, NULL },
	{ "reader.read_type", T_STR, F_NONE, NULL },
	{ "reader.transfer_size", T_INT, F_TRANSFER, NULL },
	{ "reader.odirect", T_BOOL, F_ODIRECT, NULL },
	{ "reader.preprocess_time", T_TIME, F_PREPROCESS, NULL },
	{ "reader.preprocess_time_stdev", T_NUM, F_PREPROCESS_SD, NULL },
	{ "reader.pin_memory", T_BOOL, F_NONE, NULL },
	{ "reader.transformed_record_dims", T_LIST, F_NONE, NULL },
	{ "reader.transformed_record_element_type", T_STR, F_NONE, NULL },
	{ "train.epochs", T_INT, F_EPOCHS, NULL },
	{ "train.total_training_steps", T_INT, F_TOTAL_STEPS, NULL },
	{ "train.seed_change_epoch", T_BOOL, F_SEED_CHANGE, NULL },
	{ "train.computation_time", T_TIME, F_COMPUTE, NULL },
	{ "train.computation_time_stdev", T_NUM, F_COMPUTE_SD, NULL },
	{ "train.seed", T_INT, F_SEED, NULL },
	{ "evaluation.eval_time", T_TIME, F_EVAL_TIME, NULL },
	{ "evaluation.eval_time_stdev", T_NUM, F_NONE, NULL },
	{ "evaluation.eval_after_epoch", T_INT, F_NONE, NULL },
	{ "evaluation.epochs_between_evals", T_INT, F_NONE, NULL },
	{ "checkpoint.checkpoint_folder", T_STR, F_CK_FOLDER, NULL },
	{ "checkpoint.checkpoint_after_epoch", T_INT, F_CK_AFTER, NULL },
	{ "checkpoint.epochs_between_checkpoints", T_INT, F_CK_EPOCHS, NULL },
	{ "checkpoint.steps_between_checkpoints", T_INT, F_CK_STEPS, NULL },
	{ "checkpoint.type", T_STR, F_NONE, NULL },	/* DLIO follows zero_stage */
	{ "checkpoint.checkpoint_mechanism_classname", T_STR, F_CK_CLASS, NULL },
	{ "checkpoint.fsync", T_BOOL, F_CK_FSYNC, NULL },
	{ "checkpoint.time_between_checkpoints", T_NUM, F_CK_TIME, NULL },
	{ "checkpoint.num_checkpoints_write", T_INT, F_CK_WRITES, NULL },
	{ "checkpoint.num_checkpoints_read", T_INT, F_CK_READS, NULL },
	{ "checkpoint.recovery_rank_shift", T_BOOL, F_CK_SHIFT, NULL },
	{ "checkpoint.rank_sync", T_BOOL, F_CK_RANK_SYNC, NULL },
	{ "checkpoint.mode", T_STR, F_CK_MODE, NULL },
	{ "checkpoint.randomize_tensor", T_BOOL, F_NONE, NULL },	/* the bytes' values */
	{ "checkpoint.ksm", T_ANY, F_NONE, "KSM page merging of the checkpoint's tensors is "
	  "memory, not I/O: left out" },
	{ "model.name", T_STR, F_MODEL, NULL },
	{ "model.type", T_STR, F_MODEL_TYPE, NULL },
	{ "model.model_size_bytes", T_INT, F_MODEL_SIZE, NULL },
	{ "model.optimization_groups", T_LIST, F_OPT_GROUPS, NULL },
	{ "model.num_layers", T_INT, F_LAYERS, NULL },
	{ "model.layer_parameters", T_LIST, F_LAYER_PARAMS, NULL },
	{ "model.model_datatype", T_STR, F_MODEL_DT, NULL },
	{ "model.optimizer_datatype", T_STR, F_OPT_DT, NULL },
	{ "model.parallelism.tensor", T_INT, F_TP, NULL },
	{ "model.parallelism.pipeline", T_INT, F_PP, NULL },
	{ "model.parallelism.data", T_INT, F_DP, NULL },
	{ "model.parallelism.zero_stage", T_INT, F_ZERO, NULL },
	{ "model.transformer.vocab_size", T_INT, F_VOCAB, NULL },
	{ "model.transformer.hidden_size", T_INT, F_HIDDEN, NULL },
	{ "model.transformer.ffn_hidden_size", T_INT, F_FFN, NULL },
	{ "model.transformer.num_attention_heads", T_INT, F_HEADS, NULL },
	{ "model.transformer.num_kv_heads", T_INT, F_KV_HEADS, NULL },
	{ "output.folder", T_STR, F_NONE, NULL },
	{ "output.log_file", T_STR, F_NONE, NULL },
	{ "output.metric.exclude_start_steps", T_INT, F_EXCL_START, NULL },
	{ "output.metric.exclude_end_steps", T_INT, F_EXCL_END, NULL },
	{ "workflow.train", T_BOOL, F_DO_TRAIN, NULL },
	{ "workflow.generate_data", T_BOOL, F_GENERATE, NULL },
	{ "workflow.evaluation", T_BOOL, F_DO_EVAL, NULL },
	{ "workflow.checkpoint", T_BOOL, F_DO_CKPT, NULL },
	{ "workflow.profiling", T_BOOL, F_DO_PROFILE, NULL },
	{ "profiling.profiler", T_STR, F_NONE, NULL },
	{ "profiling.iostat_devices", T_ANY, F_NONE, NULL },
	{ "metric.au", T_NUM, F_AU, NULL },
	{ NULL }
};

/* The sections (and nested mappings) DLIO reads keys under. */
static const char *const dlio_maps[] = {
	"storage", "dataset", "reader", "data_reader", "train", "evaluation", "checkpoint",
	"model", "model.parallelism", "model.transformer", "output", "output.metric",
	"workflow", "profiling", "metric", NULL
};

/* ----------------------------------------------------- DLIO's settings */

enum fmt { FMT_TFRECORD, FMT_HDF5, FMT_CSV, FMT_NPZ, FMT_NPY, FMT_HDF5_OPT, FMT_JPEG, FMT_PNG,
	   FMT_INDEXED, FMT_MMAP_INDEXED, FMT_SYNTHETIC };
static const char *const fmt_names = "tfrecord|hdf5|csv|npz|npy|hdf5_opt|jpeg|png|"
				     "indexed_binary|mmap_indexed_binary|synthetic";
enum loader { LD_TENSORFLOW, LD_PYTORCH, LD_DALI, LD_NATIVE_DALI, LD_SYNTHETIC, LD_CUSTOM };
static const char *const loader_names = "tensorflow|pytorch|dali|native_dali|synthetic";

/* DLIO's ConfigArguments, as far as the job needs it: its defaults
 * (config.py) until a key overrides them. */
struct cfg {
	const char *framework, *storage_type, *storage_root;
	double reclen, reclen_sd;
	int64_t num_files, num_files_eval, samples, subfolders;
	const char *data_folder, *prefix, *format_s, *compression, *elem_type;
	int64_t elem_bytes;
	int fmt, loader;
	int64_t read_threads, batch, prefetch, transfer;	/* transfer -1: None */
	const char *file_shuffle, *sample_shuffle;
	int odirect, seed_change;
	int64_t epochs, total_steps, seed;
	double ct_mean, ct_sd;
	int ct_given, ct_sd_given;
	const char *ck_folder;
	int64_t ck_after, ck_epochs, ck_steps, ck_writes, ck_reads;
	int ck_fsync_given, ck_fsync;
	double ck_time;
	const char *ck_mode;
	const char *model, *model_type, *model_dt, *opt_dt;
	int64_t model_size, layers, tp, pp, dp, zero, vocab, hidden, ffn, heads, kv;
	const struct rp_dlio_kv *layer_params, *opt_groups, *rec_dims;
	int64_t excl_start, excl_end;
	int do_train, generate, do_eval, do_ckpt;
	int has_dataset;	/* a dataset section */
	unsigned line[F_NFIELDS];	/* the key that set each field */
};

static void cfg_defaults(struct cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->framework = "tensorflow";
	c->storage_type = "local_fs";
	c->storage_root = "./";
	c->reclen = 64 * 1024;
	c->num_files = 8;
	c->samples = 1;
	c->data_folder = "./data/";
	c->prefix = "img";
	c->format_s = "tfrecord";
	c->fmt = FMT_TFRECORD;
	c->loader = LD_TENSORFLOW;
	c->elem_type = "uint8";
	c->read_threads = 1;
	c->batch = 1;
	c->prefetch = 2;
	c->transfer = -1;
	c->file_shuffle = c->sample_shuffle = "off";
	c->seed_change = 1;
	c->epochs = 1;
	c->total_steps = -1;
	c->seed = 123;
	c->ck_folder = "./checkpoints/";
	c->ck_after = 1;
	c->ck_epochs = 1;
	c->ck_steps = -1;
	c->ck_writes = c->ck_reads = -1;
	c->ck_time = -1;
	c->ck_mode = "default";
	c->model = "default";
	c->model_dt = "fp16";
	c->opt_dt = "fp32";
	c->model_size = 10240;
	c->layers = -1;
	c->tp = c->pp = 1;
	c->dp = -1;
	c->vocab = 32000;
	c->hidden = 2048;
	c->heads = 32;
	c->kv = 8;
	c->ffn = 8192;
	c->excl_start = 1;
	c->do_train = 1;
}

/* ------------------------------------------------------------ the pass */

struct ctx {
	const struct rp_dlio_kv *kv;
	size_t n;
	const char *prefix;		/* "workload." for a whole DLIO config */
	rp_dlio_note_fn note;
	void *arg;
	unsigned *errline;
	char *err;
	size_t errlen;
	struct cfg c;
};

static void notef(struct ctx *x, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void notef(struct ctx *x, unsigned line, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x->note)
		x->note(x->arg, line, msg);
}

static int errorf(struct ctx *x, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int errorf(struct ctx *x, unsigned line, const char *fmt, ...)
{
	va_list ap;

	*x->errline = line;
	va_start(ap, fmt);
	vsnprintf(x->err, x->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* YAML's booleans as PyYAML reads them (YAML 1.1): 1, 0, or -1. */
static int yaml_bool(const char *s)
{
	static const char *const t[] = { "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On",
					  "ON", "y", "Y", NULL };
	static const char *const f[] = { "false", "False", "FALSE", "no", "No", "NO", "off", "Off",
					  "OFF", "n", "N", NULL };

	for (int i = 0; t[i]; i++)
		if (!strcmp(s, t[i]))
			return 1;
	for (int i = 0; f[i]; i++)
		if (!strcmp(s, f[i]))
			return 0;
	return -1;
}

static int parse_int(const char *s, int64_t *v)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(s, &end, 10);
	if (end == s || *end || errno)
		return -EINVAL;
	*v = x;
	return 0;
}

static int parse_num(const char *s, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(x))
		return -EINVAL;
	*v = x;
	return 0;
}

/* The key without the caller's prefix, "data_reader." read as "reader.". */
static const char *plain_key(const struct ctx *x, const char *k, char *buf, size_t len)
{
	size_t pl = strlen(x->prefix);

	if (pl && !strncmp(k, x->prefix, pl))
		k += pl;
	if (!strncmp(k, "data_reader.", 12)) {
		snprintf(buf, len, "reader.%s", k + 12);
		return buf;
	}
	return k;
}

static const struct dkey *find_key(const char *k)
{
	for (const struct dkey *d = dlio_keys; d->key; d++)
		if (!strcmp(d->key, k))
			return d;
	return NULL;
}

static int is_map(const char *k)
{
	for (int i = 0; dlio_maps[i]; i++)
		if (!strcmp(dlio_maps[i], k))
			return 1;
	return 0;
}

/* Whether k is under mapping m ("m." prefix). */
static int under(const char *k, const char *m)
{
	size_t n = strlen(m);

	return !strncmp(k, m, n) && k[n] == '.';
}

/* A T_TIME key: a number, or a mapping {mean, stdev} or {type: normal |
 * uniform | gamma | exponential | poisson, ...} (DLIO's utility.sleep): its
 * mean and stdev.  0, or -EINVAL after errorf. */
static int time_value(struct ctx *x, const struct rp_dlio_kv *kv, const char *k, double *mean,
		      double *sd, int *has_sd)
{
	char want[256];
	double p[6] = { 0 };
	int have[6] = { 0 }, type = -1;
	static const char *const names[] = { "mean", "stdev", "min", "max", "shape", "scale" };

	*has_sd = 0;
	if (kv->kind == RP_DLIO_SCALAR) {
		if (parse_num(kv->val, mean) < 0)
			return errorf(x, kv->line, "%s: '%s' is not a number of seconds", k, kv->val);
		*mean = fabs(*mean);	/* DLIO sleeps abs(value) */
		return 0;
	}
	if (kv->kind != RP_DLIO_MAP)
		return errorf(x, kv->line, "%s: a list where a number of seconds (or a mapping "
			      "{mean, stdev}) goes", k);
	for (size_t i = 0; i < x->n; i++) {
		char b[300];
		const char *c = plain_key(x, x->kv[i].key, b, sizeof(b));
		const char *leaf;

		if (!under(c, k))
			continue;
		leaf = c + strlen(k) + 1;
		if (x->kv[i].kind != RP_DLIO_SCALAR)
			return errorf(x, x->kv[i].line, "%s: not a value", c);
		if (!strcmp(leaf, "type")) {
			type = cm_parse_choice("normal|uniform|gamma|exponential|poisson", x->kv[i].val);
			if (type < 0)
				return errorf(x, x->kv[i].line, "%s: '%s' is not normal, uniform, gamma, "
					      "exponential or poisson", c, x->kv[i].val);
			continue;
		}
		int j;
		for (j = 0; j < 6 && strcmp(leaf, names[j]); j++)
			;
		if (j == 6 && !strcmp(leaf, "lam"))
			j = 5, type = type < 0 ? 4 : type;
		if (j == 6) {
			notef(x, x->kv[i].line, "%s: not a key of DLIO's computation times: ignored, "
			      "as DLIO ignores it", c);
			continue;
		}
		if (parse_num(x->kv[i].val, &p[j]) < 0)
			return errorf(x, x->kv[i].line, "%s: '%s' is not a number", c, x->kv[i].val);
		have[j] = 1;
	}
	snprintf(want, sizeof(want), "%s: a mapping without", k);
	switch (type) {
	case -1:	/* {mean[, stdev]} */
	case 0:		/* normal */
		if (!have[0])
			return errorf(x, kv->line, "%s mean", want);
		*mean = fabs(p[0]);
		*sd = p[1];
		*has_sd = have[1];
		return 0;
	case 1:		/* uniform on [min, max] */
		if (!have[2] || !have[3])
			return errorf(x, kv->line, "%s min and max", want);
		*mean = (p[2] + p[3]) / 2;
		*sd = fabs(p[3] - p[2]) / sqrt(12.0);
		break;
	case 2:		/* gamma(shape, scale) */
		if (!have[4] || !have[5])
			return errorf(x, kv->line, "%s shape and scale", want);
		*mean = p[4] * p[5];
		*sd = sqrt(p[4]) * p[5];
		break;
	case 3:		/* exponential(scale) */
		if (!have[5])
			return errorf(x, kv->line, "%s scale", want);
		*mean = *sd = p[5];
		break;
	case 4:		/* poisson(lam) */
		if (!have[5])
			return errorf(x, kv->line, "%s lam", want);
		*mean = p[5];
		*sd = sqrt(p[5]);
		break;
	}
	*has_sd = 1;
	notef(x, kv->line, "%s: type %s: drawn from a normal law of the same mean (%g s) and stdev "
	      "(%g s)", k, type == 1 ? "uniform" : type == 2 ? "gamma" : type == 3 ?
	      "exponential" : "poisson", *mean, *sd);
	return 0;
}

/* A list of whole numbers (a model's layer parameters, ...): 0 or the
 * error's return. */
static int take_list(struct ctx *x, const struct dkey *d, const struct rp_dlio_kv *kv,
		     const char *k)
{
	struct cfg *c = &x->c;
	const char *v = kv->val;
	int64_t i = 0;

	if (kv->kind != RP_DLIO_LIST)
		return errorf(x, kv->line, "%s: '%s' is not a list of numbers", k,
			      v ? v : "a mapping");
	for (size_t j = 0; j < kv->nitems; j++)
		if (!kv->items[j] || parse_int(kv->items[j], &i) < 0 || i < 0)
			return errorf(x, kv->line, "%s: item %zu is not a whole number >= 0",
				      k, j + 1);
	if (d->f == F_LAYER_PARAMS)
		c->layer_params = kv;
	else if (d->f == F_OPT_GROUPS)
		c->opt_groups = kv;
	else if (d->f == F_REC_DIMS)
		c->rec_dims = kv;
	return 0;
}

/* A time (a mean, and maybe its standard deviation): 0 or the error's
 * return. */
static int take_time(struct ctx *x, const struct dkey *d, const struct rp_dlio_kv *kv,
		     const char *k)
{
	struct cfg *c = &x->c;

	double mean = 0, sd = 0;
	int has_sd = 0, rc = time_value(x, kv, k, &mean, &sd, &has_sd);

	if (rc)
		return rc;
	if (d->f == F_COMPUTE) {
		c->ct_mean = mean;
		c->ct_given = 1;
		if (has_sd) {
			c->ct_sd = sd;
			c->ct_sd_given = 1;
		}
	} else if (d->f == F_PREPROCESS && mean > 0) {
		notef(x, kv->line, "%s: %g s a sample in the reader: not replayed (the "
		      "readers read back to back)", k, mean);
	}
	return 0;
}

/* A scalar's value, parsed as its key's type wants. */
struct dval {
	const char *v;
	int64_t i;
	double num;
	int b;
};

/* The checkpoint's, the model's and the workflow's keys. */
static int store_more(struct ctx *x, const struct dkey *d, const struct rp_dlio_kv *kv,
		      const char *k, const struct dval *dv)
{
	struct cfg *c = &x->c;
	const char *v = dv->v;
	int64_t i = dv->i;
	double num = dv->num;
	int b = dv->b;

	switch (d->f) {
	case F_CK_FOLDER: c->ck_folder = v; break;
	case F_CK_AFTER: c->ck_after = i; break;
	case F_CK_EPOCHS: c->ck_epochs = i; break;
	case F_CK_STEPS: c->ck_steps = i; break;
	case F_CK_FSYNC:
		c->ck_fsync_given = 1;
		c->ck_fsync = b;
		break;
	case F_CK_TIME: c->ck_time = num; break;
	case F_CK_WRITES: c->ck_writes = i; break;
	case F_CK_READS: c->ck_reads = i; break;
	case F_CK_RANK_SYNC:
		if (b)
			notef(x, kv->line, "%s: True: the ranks' barrier after each checkpoint is "
			      "left out (replay --sync-steps synchronizes the steps)", k);
		break;
	case F_CK_SHIFT:
		if (b)
			notef(x, kv->line, "%s: True: each rank reads its own checkpoint back, not "
			      "the next node's", k);
		break;
	case F_CK_MODE:
		if (cm_parse_choice("default|subset", v) < 0)
			return errorf(x, kv->line, "%s: '%s' is not default or subset", k, v);
		c->ck_mode = v;
		break;
	case F_MODEL: c->model = v; break;
	case F_MODEL_TYPE: c->model_type = v; break;
	case F_MODEL_SIZE: c->model_size = i; break;
	case F_LAYERS: c->layers = i; break;
	case F_MODEL_DT: c->model_dt = v; break;
	case F_OPT_DT: c->opt_dt = v; break;
	case F_TP: c->tp = i; break;
	case F_PP: c->pp = i; break;
	case F_DP: c->dp = i; break;
	case F_ZERO: c->zero = i; break;
	case F_VOCAB: c->vocab = i; break;
	case F_HIDDEN: c->hidden = i; break;
	case F_FFN: c->ffn = i; break;
	case F_HEADS: c->heads = i; break;
	case F_KV_HEADS: c->kv = i; break;
	case F_EXCL_START: c->excl_start = i; break;
	case F_EXCL_END: c->excl_end = i; break;
	case F_DO_TRAIN: c->do_train = b; break;
	case F_GENERATE: c->generate = b; break;
	case F_DO_EVAL: c->do_eval = b; break;
	case F_DO_CKPT: c->do_ckpt = b; break;
	case F_DO_PROFILE:
		if (b)
			notef(x, kv->line, "%s: True: DLIO's profiler (iostat) is not run; iotape "
			      "record is the profiler", k);
		break;
	case F_AU:
		notef(x, kv->line, "%s: %s: a job file has no AU threshold: give it to the replay "
		      "(iotape replay --au %s)", k, v, v);
		break;
	case F_EVAL_TIME: case F_PREPROCESS: case F_COMPUTE: case F_NONE: case F_NFIELDS:
	case F_REC_DIMS: case F_OPT_GROUPS: case F_LAYER_PARAMS:
		break;
	default:
		break;
	}
	return 0;
}

/* A scalar key's value into the configuration: 0 or the error's return. */
static int store(struct ctx *x, const struct dkey *d, const struct rp_dlio_kv *kv,
		 const char *k, const struct dval *dv)
{
	struct cfg *c = &x->c;
	const char *v = dv->v;
	int64_t i = dv->i;
	double num = dv->num;
	int b = dv->b;

	switch (d->f) {
	case F_FRAMEWORK:
		if (cm_parse_choice("tensorflow|pytorch", v) < 0)
			return errorf(x, kv->line, "%s: '%s' is not tensorflow or pytorch", k, v);
		c->framework = v;
		break;
	case F_STORAGE_TYPE: c->storage_type = v; break;
	case F_STORAGE_ROOT: c->storage_root = v; break;
	case F_RECLEN: c->reclen = num; break;
	case F_RECLEN_SD: c->reclen_sd = num; break;
	case F_NUM_FILES: c->num_files = i; break;
	case F_NUM_FILES_EVAL: c->num_files_eval = i; break;
	case F_SAMPLES: c->samples = i; break;
	case F_DATA_FOLDER: c->data_folder = v; break;
	case F_SUBFOLDERS: c->subfolders = i; break;
	case F_COMPRESSION: c->compression = v; break;
	case F_PREFIX: c->prefix = v; break;
	case F_FORMAT:
		if ((c->fmt = cm_parse_choice(fmt_names, v)) < 0)
			return errorf(x, kv->line, "%s: '%s' is not a DLIO format (%s)", k, v,
				      fmt_names);
		c->format_s = v;
		break;
	case F_ELEM_TYPE: c->elem_type = v; break;
	case F_ELEM_BYTES: c->elem_bytes = i; break;
	case F_LOADER:
		if ((c->loader = cm_parse_choice(loader_names, v)) < 0)
			return errorf(x, kv->line, "%s: '%s' is not a DLIO data loader (%s)", k, v,
				      loader_names);
		break;
	case F_READ_THREADS: c->read_threads = i; break;
	case F_BATCH: c->batch = i; break;
	case F_PREFETCH: c->prefetch = i; break;
	case F_TRANSFER: c->transfer = i; break;
	case F_ODIRECT: c->odirect = b; break;
	case F_FILE_SHUFFLE: c->file_shuffle = v; break;
	case F_SAMPLE_SHUFFLE: c->sample_shuffle = v; break;
	case F_PREPROCESS_SD: break;
	case F_SAMPLER: case F_READER_CLASS: case F_LOADER_CLASS: case F_CK_CLASS:
		notef(x, kv->line, "%s: %s: a class of the user's own: its I/O is not known; "
		      "DLIO's own is replayed", k, v);
		break;
	case F_EPOCHS: c->epochs = i; break;
	case F_TOTAL_STEPS: c->total_steps = i; break;
	case F_SEED_CHANGE: c->seed_change = b; break;
	case F_COMPUTE_SD:
		c->ct_sd = num;
		c->ct_sd_given = 1;
		break;
	case F_SEED: c->seed = i; break;
	default:
		return store_more(x, d, kv, k, dv);
	}
	return 0;
}

/* One key DLIO reads, of kind kv->kind: into the configuration. */
static int take(struct ctx *x, const struct dkey *d, const struct rp_dlio_kv *kv, const char *k)
{
	struct dval dv = { .v = kv->val };
	const char *v = kv->val;
	int rc;

	if (d->type == T_LIST || d->type == T_TIME) {
		rc = d->type == T_LIST ? take_list(x, d, kv, k) : take_time(x, d, kv, k);
		if (rc)
			return rc;
		goto done;
	}
	if (d->type == T_ANY)
		goto done;
	if (kv->kind != RP_DLIO_SCALAR)
		return errorf(x, kv->line, "%s: a %s where a value goes", k,
			      kv->kind == RP_DLIO_LIST ? "list" : "mapping");
	switch (d->type) {
	case T_INT:
		if (parse_int(v, &dv.i) < 0)
			return errorf(x, kv->line, "%s: '%s' is not a whole number", k, v);
		break;
	case T_NUM:
		if (parse_num(v, &dv.num) < 0)
			return errorf(x, kv->line, "%s: '%s' is not a number", k, v);
		break;
	case T_BOOL:
		if ((dv.b = yaml_bool(v)) < 0)
			return errorf(x, kv->line, "%s: '%s' is not True or False", k, v);
		break;
	default:
		break;
	}
	if ((rc = store(x, d, kv, k, &dv)))
		return rc;
done:
	if (d->f != F_NONE)
		x->c.line[d->f] = kv->line;
	if (d->note)
		notef(x, kv->line, "%s: %s", k, d->note);
	return 0;
}

/* Every key of the YAML: into x->c, or an error, or a note. */
static int read_keys(struct ctx *x)
{
	for (size_t i = 0; i < x->n; i++) {
		const struct rp_dlio_kv *kv = &x->kv[i];
		char buf[300];
		const char *k = plain_key(x, kv->key, buf, sizeof(buf));
		const struct dkey *d;
		int rc, skip = 0;

		if (*x->prefix && strncmp(kv->key, x->prefix, strlen(x->prefix))) {
			/* a whole DLIO config: only its workload is ours */
			if (!strchr(kv->key, '.') && strcmp(kv->key, "workload"))
				notef(x, kv->line, "%s: not part of the workload: ignored", kv->key);
			continue;
		}
		if (!strcmp(k, "workload") && *x->prefix)
			continue;
		/* under a key already taken whole (a T_TIME or T_ANY mapping), or
		 * under a mapping already said to be unknown */
		for (size_t j = 0; j < i && !skip; j++) {
			char b2[300];
			const char *p = plain_key(x, x->kv[j].key, b2, sizeof(b2));
			const struct dkey *dp;

			if (x->kv[j].kind != RP_DLIO_MAP || !under(k, p))
				continue;
			dp = find_key(p);
			skip = (dp && (dp->type == T_TIME || dp->type == T_ANY)) ||
			       (!dp && !is_map(p));
		}
		if (skip)
			continue;
		if (!strcmp(k, "dataset"))
			x->c.has_dataset = 1;
		if ((d = find_key(k))) {
			if ((rc = take(x, d, kv, k)))
				return rc;
			continue;
		}
		if (kv->kind == RP_DLIO_MAP && is_map(k))
			continue;
		if (!strcmp(k, "model.model_size") || !strcmp(k, "checkpoint.model_size"))
			notef(x, kv->line, "%s: not a key DLIO reads (model.model_size_bytes is): "
			      "ignored, as DLIO ignores it (its model state stays %lld bytes)", k,
			      (long long)x->c.model_size);
		else
			notef(x, kv->line, "%s: not a key DLIO reads: ignored, as DLIO ignores it", k);
	}
	return 0;
}

/* ------------------------------------------------- the data set's sizes */

static uint64_t mix(uint64_t v)
{
	v += 0x9e3779b97f4a7c15ull;
	v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
	v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
	return v ^ (v >> 31);
}

static double normal(uint64_t i)
{
	double u = ((double)(mix(2 * i) >> 11) + 0.5) / 9007199254740992.0;
	double w = ((double)(mix(2 * i + 1) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * w);
}

static uint64_t varint_len(uint64_t v)
{
	uint64_t n = 1;

	while (v >= 128) {
		v >>= 7;
		n++;
	}
	return n;
}

/* A length-delimited protobuf field of n bytes, tag included. */
static uint64_t pb_field(uint64_t n)
{
	return 1 + varint_len(n) + n;
}

/* A TFRecord record of DLIO's tf_generator: an Example with 'image' (the
 * d1 x d2 bytes) and 'size' (the dimension, an int64), framed by its
 * length and two CRCs (8 + 4 + data + 4). */
static uint64_t tfrecord_size(uint64_t pixels, uint64_t dim)
{
	uint64_t image = pb_field(5) + pb_field(pb_field(pb_field(pixels)));
	uint64_t size = pb_field(4) + pb_field(pb_field(varint_len(dim)));
	uint64_t features = pb_field(image) + pb_field(size);

	return 16 + pb_field(features);
}

/* CSV of DLIO's csv_generator (pandas' to_csv of samples rows of
 * pixels uint8 values with an index): a value is 1 to 3 digits and a
 * comma, 3.569 bytes on average for values uniform in [0, 255). */
static double csv_size(uint64_t pixels, uint64_t samples)
{
	double header = 0;

	for (uint64_t k = 0, p = 1, d = 1; k < pixels; k += p * 9, p *= 10, d++)
		header += (double)(d + 1) * (double)((pixels - k) < p * 9 ? pixels - k : p * 9);
	return header + 1 + (double)samples * (3.5686 * (double)pixels + 1 +
					       ceil(log10((double)samples + 1)) + 1);
}

/* The bytes DLIO's generator writes for a file of samples records of
 * d1 x d2 bytes (measured on numpy 1.24, h5py 3.7 and Pillow 9.4: exact
 * for npz, npy, hdf5, tfrecord and the indexed formats; within 1% for
 * JPEG (quality 75 of uniform noise, whole 8x8 blocks) from 150 x 150
 * pixels and for PNG). */
static double file_bytes(int fmt, uint64_t d1, uint64_t d2, uint64_t samples, uint64_t dim)
{
	uint64_t px = d1 * d2;
	double p8;

	switch (fmt) {
	case FMT_NPZ:		/* a zip of x.npy and y.npy (int64 labels) */
		return (double)(px * samples + 8 * samples + 490);
	case FMT_NPY:
		return (double)(px * samples + 128);
	case FMT_HDF5:
	case FMT_HDF5_OPT:
		return (double)(px * samples + 8 * samples + 2048);
	case FMT_TFRECORD:
		return (double)(samples * tfrecord_size(px, dim));
	case FMT_CSV:
		return csv_size(px, samples);
	case FMT_JPEG:		/* one image a file */
		p8 = (double)((d1 + 7) / 8 * 8) * (double)((d2 + 7) / 8 * 8);
		return p8 >= 5000 ? 0.55489 * p8 + 76 : 0.57 * p8 + 300;
	case FMT_PNG:
		return 1.0013732 * (double)(d1 * (d2 + 1)) + 42;
	default:		/* the indexed formats: the samples back to back */
		return (double)(px * samples);
	}
}

/* The mean and stdev of the files' sizes as DLIO's generator draws them
 * (data_generator.get_dimension: two dimensions a file, normal around
 * int(sqrt(record_length)), stdev record_length_stdev / 2 / sqrt(...),
 * each truncated, at least 1), over 100000 draws (the law's, not those of
 * the files numpy's seed gives: those are not reproduced). */
static void dataset_sizes(const struct cfg *c, double *mean, double *sd)
{
	uint64_t dim = (uint64_t)sqrt(c->reclen), n = 100000;
	double dsd = c->reclen > 0 ? c->reclen_sd / 2 / sqrt(c->reclen) : 0, s = 0, s2 = 0;

	if (dsd <= 0) {
		*mean = file_bytes(c->fmt, dim, dim, (uint64_t)c->samples, dim);
		*sd = 0;
		return;
	}
	for (uint64_t i = 0; i < n; i++) {
		double a = (double)dim + dsd * normal(2 * i), b = (double)dim + dsd * normal(2 * i + 1);
		uint64_t d1 = a < 1 ? 1 : (uint64_t)a, d2 = b < 1 ? 1 : (uint64_t)b;
		double v = file_bytes(c->fmt, d1, d2, (uint64_t)c->samples, dim);

		s += v;
		s2 += v * v;
	}
	*mean = s / (double)n;
	*sd = s2 / (double)n - *mean * *mean > 0 ? sqrt(s2 / (double)n - *mean * *mean) : 0;
}

/* ------------------------------------------------------- checkpoints */

static int dt_bytes(const char *t)
{
	if (!strcmp(t, "int8") || !strcmp(t, "uint8"))
		return 1;
	if (!strcmp(t, "fp16") || !strcmp(t, "bf16"))
		return 2;
	if (!strcmp(t, "fp32"))
		return 4;
	if (!strcmp(t, "fp64"))
		return 8;
	return 0;
}

struct ckpt {
	double bytes;		/* all ranks' */
	uint64_t files;		/* all ranks' */
	unsigned writers;	/* ranks that write */
	double min, max;	/* a writing rank's bytes */
	uint64_t params;	/* the model's parameters (transformer) */
};

static uint64_t list_sum(const struct rp_dlio_kv *l, int div)
{
	uint64_t s = 0;

	for (size_t i = 0; l && i < l->nitems; i++) {
		int64_t v = strtoll(l->items[i], NULL, 10);
		if (v > 0)
			s += (uint64_t)v / (uint64_t)div;
	}
	return s;
}

/*
 * What each of ranks ranks writes in a checkpoint, as DLIO's
 * base_checkpointing.py (mlperf_storage_v2.0) sizes it: the layers of its
 * pipeline stage (their parameters over tensor parallelism, and over data
 * parallelism with ZeRO 3; saved by data-parallel rank 0 only with ZeRO
 * 1 and 2, a file a layer with pipeline parallelism), the optimizer state
 * (3 x its share of the parameters + 15 x hidden, optimizer datatype), and
 * a model_size_bytes state of int8 for a model that is not a transformer.
 * With ZeRO 0 only the ranks of the first model-parallel group write.
 */
static void ckpt_sizes(const struct cfg *c, unsigned ranks, struct ckpt *k)
{
	int64_t TP = c->tp, PP = c->pp, MP = TP * PP, L = c->layers, h = c->hidden;
	int64_t DP = c->dp > 0 ? c->dp : (int64_t)ranks / MP;
	int mdt = dt_bytes(c->model_dt), odt = dt_bytes(c->opt_dt);
	int predefined = c->layer_params && c->layer_params->nitems;
	uint64_t nparam = 0;

	memset(k, 0, sizeof(*k));
	if (DP < 1)
		DP = 1;
	if (L > 0) {
		int64_t hs = h / c->heads, dkv = hs * c->kv;
		nparam = (uint64_t)(c->vocab * h + (h + h * (h + 2 * dkv) + h * h + h + c->ffn * 2 * h +
				    c->ffn * h) * L + h + c->vocab * h);
	}
	k->params = nparam;
	for (int64_t r = 0; r < (int64_t)ranks; r++) {
		int64_t ppr = (r / TP) % PP, dpr = r / MP;
		double bytes = 0;
		uint64_t files = 0;

		if (c->zero == 0 && r >= MP)
			continue;	/* rank_to_checkpoint is 0: not its own */
		/* the layers of its pipeline stage */
		int64_t per = L > 0 ? L / PP : 0, rem = L > 0 ? L % PP : 0, s, e;
		if (ppr < rem) {
			s = ppr * (per + 1) + 1;
			e = s + per;
		} else {
			s = rem * (per + 1) + (ppr - rem) * per + 1;
			e = s + per - 1;
		}
		if (!predefined) {
			if (ppr == PP - 1)
				e = L + 2;
			if (ppr == 0)
				s = 0;
		}
		double layers = 0;
		if (predefined) {
			layers = (double)list_sum(c->layer_params, (int)TP) * (double)(e - s + 1);
		} else if (L > 0 && !(c->zero == 1 && dpr != 0)) {
			int64_t sf = c->zero >= 3 ? DP : 1;
			for (int64_t li = s; li <= e; li++) {
				uint64_t p;
				if (li == 0 || li == L + 1)
					p = (uint64_t)(h * c->vocab / TP / sf);
				else if (li == L + 2)
					p = (uint64_t)(h / sf);
				else
					p = (uint64_t)(h / sf + h * (h + 2 * (h / c->heads * c->kv)) /
						       TP / sf + h * h / TP / sf + h / sf +
						       h * 2 * c->ffn / TP / sf + h * c->ffn / TP / sf);
				layers += (double)p * mdt;
			}
		}
		/* saved: with ZeRO 1 and 2 by data-parallel rank 0 only */
		if (layers > 0 && (c->zero == 0 || c->zero >= 3 || (dpr == 0 && L > 0))) {
			bytes += layers;
			files += c->zero > 0 && c->zero < 3 && PP > 1 ? (uint64_t)(e - s + 1) : 1;
		}
		/* the optimizer state */
		if (c->opt_groups && c->opt_groups->nitems) {
			bytes += 3.0 * (double)list_sum(c->opt_groups, 1);
			files++;
		} else if (L > 0) {
			uint64_t np = c->zero > 0 ? nparam / (uint64_t)(DP * MP) : nparam / (uint64_t)MP;
			if (np) {
				bytes += (double)(3 * np + 15 * (uint64_t)h) * odt;
				files++;
			}
		}
		/* a model state of model_size_bytes (not a transformer) */
		if (c->model_size > 0 && (!c->model_type || strcmp(c->model_type, "transformer"))) {
			bytes += (double)c->model_size;
			files++;
		}
		if (!files)
			continue;
		k->bytes += bytes;
		k->files += files;
		if (!k->writers++ || bytes < k->min)
			k->min = bytes;
		if (bytes > k->max)
			k->max = bytes;
	}
}

/* ------------------------------------------------------------ the job */

/* A folder of DLIO (relative to its working directory) as one under DIR:
 * "./" and trailing '/' dropped, an absolute one placed under DIR.  0, or
 * -EINVAL after errorf for one that leaves DIR. */
static int folder(struct ctx *x, const char *key, unsigned line, const char *root,
		  const char *f, char *out, size_t len)
{
	char buf[RP_JOB_STR * 2], norm[RP_JOB_STR * 2];
	int abs_ = 0;

	while (!strncmp(f, "./", 2))
		f += 2;
	if (root && *root && strcmp(root, "./") && strcmp(root, ".") && *f != '/') {
		while (!strncmp(root, "./", 2))
			root += 2;
		snprintf(buf, sizeof(buf), "%s/%s", root, f);
	} else {
		snprintf(buf, sizeof(buf), "%s", f);
	}
	abs_ = *buf == '/';
	snprintf(norm, sizeof(norm), "%s", buf);
	if (rp_path_map(norm) < 0 || !*norm)
		return errorf(x, line, "%s: '%s' is not a folder under DIR (no '..', not empty)", key,
			      f);
	if (strlen(norm) >= len)
		return errorf(x, line, "%s: '%s' is longer than %zu bytes", key, f, len - 1);
	if (abs_)
		notef(x, line, "%s: %s: an absolute path, placed under DIR as %s", key, f, norm);
	snprintf(out, len, "%s", norm);
	return 0;
}

#define SET(k, note, ...) do { if (cm_job_setf(job, k, note, __VA_ARGS__) < 0) return -ENOMEM; } \
	while (0)

/* dataset.*: the data set's files. */
static int job_dataset(struct ctx *x, struct cm_job *job, uint64_t files)
{
	struct cfg *c = &x->c;
	char dir[RP_JOB_STR], note[300];
	double mean, sd;
	int rc;

	if ((rc = folder(x, "dataset.data_folder", c->line[F_DATA_FOLDER], c->storage_root,
			 c->data_folder, dir, sizeof(dir) - 6)))
		return rc;
	SET(CM_JOB_K_DATA_FOLDER, "DLIO reads dataset.data_folder/train", "%s/train", dir);
	SET(CM_JOB_K_NUM_FILES, c->line[F_NUM_FILES] ? "dataset.num_files_train" :
	    "DLIO's default", "%llu", (unsigned long long)files);
	if (c->subfolders > 1)
		SET(CM_JOB_K_NUM_SUBFOLDERS, "dataset.num_subfolders_train", "%lld",
		    (long long)c->subfolders);
	SET(CM_JOB_K_FILE_PREFIX, "DLIO names a file PREFIX_I_of_N.FORMAT", "%s_", c->prefix);
	SET(CM_JOB_K_FILE_SUFFIX, "dataset.format", "_of_%lld.%s", (long long)c->num_files,
	    c->format_s);
	dataset_sizes(c, &mean, &sd);
	snprintf(note, sizeof(note), "what DLIO's %s generator writes for record_length_bytes "
		 "%.10g%s", c->format_s, c->reclen, c->samples > 1 ? ", over the file's samples" :
		 "");
	SET(CM_JOB_K_RECORD_LENGTH, note, "%.0f", fmax(1, round(mean / (double)c->samples)));
	if (sd > 0)
		SET(CM_JOB_K_RECORD_STDEV, "the stdev of those sizes (DLIO draws two dimensions "
		    "a file)", "%.0f", round(sd / (double)c->samples));
	SET(CM_JOB_K_SAMPLES_PER_FILE, "dataset.num_samples_per_file", "%lld",
	    (long long)c->samples);
	if (c->compression && strcmp(c->compression, "none"))
		notef(x, c->line[F_COMPRESSION], "dataset.compression: %s: DLIO's data is random "
		      "bytes, which do not compress: the sizes are the uncompressed ones",
		      c->compression);
	return 0;
}

/* reader.*: the loader's reads, order, prefetch. */
static int job_reader(struct ctx *x, struct cm_job *job)
{
	struct cfg *c = &x->c;
	int torch = c->loader == LD_PYTORCH || c->loader == LD_DALI || c->loader == LD_NATIVE_DALI;
	int native_tf = c->loader == LD_TENSORFLOW && c->fmt == FMT_TFRECORD;
	int64_t rt = c->read_threads, pf;
	int fs = strcmp(c->file_shuffle, "off") && yaml_bool(c->file_shuffle) != 0;
	int ss = strcmp(c->sample_shuffle, "off") && yaml_bool(c->sample_shuffle) != 0;

	if (rt < 1) {
		if (c->line[F_READ_THREADS])
			notef(x, c->line[F_READ_THREADS], "reader.read_threads: %lld: %s", (long long)rt,
			      torch ? "the main process reads: one reader" : "tf.data takes 1");
		rt = 1;
	}
	SET(CM_JOB_K_READ_THREADS, torch ? "reader.read_threads (DataLoader workers)" :
	    "reader.read_threads (tf.data's parallel reads)", "%lld", (long long)rt);
	SET(CM_JOB_K_BATCH_SIZE, "reader.batch_size", "%lld", (long long)c->batch);
	/* the reads: tf.data's TFRecordDataset reads in its buffer_size (256 KiB
	 * when transfer_size is None); numpy reads a .npz member in 256 KiB
	 * pieces; the other readers read a sample whole */
	if (native_tf)
		SET(CM_JOB_K_TRANSFER_SIZE, c->transfer > 0 ? "reader.transfer_size (tf.data's "
		    "buffer_size)" : "tf.data's TFRecordDataset buffer: 256 KiB (transfer_size None)",
		    "%lld", (long long)(c->transfer > 0 ? c->transfer : 262144));
	else if (c->fmt == FMT_NPZ && !c->odirect)
		SET(CM_JOB_K_TRANSFER_SIZE, "numpy reads a .npz member in 256 KiB pieces", "262144");
	else
		SET(CM_JOB_K_TRANSFER_SIZE, "DLIO's reader reads a sample whole", "0");
	if (c->transfer > 0 && !native_tf)
		notef(x, c->line[F_TRANSFER], "reader.transfer_size: only DLIO's TFRecord reader "
		      "uses it: DLIO's %s reader does not", c->format_s);
	/* the order of the files */
	if (torch) {
		for (int k = 0; k < 2; k++)
			if (k ? ss : fs)
				notef(x, c->line[k ? F_SAMPLE_SHUFFLE : F_FILE_SHUFFLE], "reader.%s: %s: "
				      "no effect with DLIO's PyTorch loader (its seeded shuffle reorders "
				      "a dict; the sampler reads the files in name order every epoch)",
				      k ? "sample_shuffle" : "file_shuffle",
				      k ? c->sample_shuffle : c->file_shuffle);
		SET(CM_JOB_K_FILE_SHUFFLE, "DLIO's PyTorch loader reads in name order", "off");
	} else if (native_tf) {
		SET(CM_JOB_K_FILE_SHUFFLE, fs ? "reader.file_shuffle: tf.data repeats the order of "
		    "epoch 1 (a new shuffle only reconfigures the list it was made from)" :
		    "reader.file_shuffle off: name order", fs ? "once" : "off");
	} else {
		SET(CM_JOB_K_FILE_SHUFFLE, fs ? "reader.file_shuffle: a new order each epoch" :
		    "reader.file_shuffle off", fs ? (c->seed_change ? "on" : "once") : "off");
	}
	SET(CM_JOB_K_SAMPLE_SHUFFLE, ss && !torch ? "reader.sample_shuffle shuffles records in "
	    "memory (shuffle_size), not the reads" : "the samples of a file are read in order",
	    "off");
	/* prefetch: PyTorch's prefetch_factor a worker is ceil(prefetch_size /
	 * read_threads), 2 when that is 0; tf.data's prefetch is the loader's,
	 * shared by its readers */
	pf = c->prefetch > 0 ? (c->prefetch + rt - 1) / rt : torch ? 2 : 1;
	SET(CM_JOB_K_PREFETCH, torch ? "PyTorch's prefetch_factor: ceil(reader.prefetch_size / "
	    "read_threads)" : "tf.data's prefetch over its readers", "%lld", (long long)pf);
	if (c->odirect) {
		if (c->fmt != FMT_NPZ && c->fmt != FMT_NPY)
			return errorf(x, c->line[F_ODIRECT], "reader.odirect: DLIO has no O_DIRECT "
				      "reader for %s (only npz and npy): it stops there", c->format_s);
		SET(CM_JOB_K_ODIRECT, "reader.odirect", "on");
	}
	SET(CM_JOB_K_READ_EOF, c->fmt == FMT_NPZ || c->fmt == FMT_NPY || c->fmt == FMT_HDF5 ||
	    c->fmt >= FMT_INDEXED ? "numpy and h5py read what they need, not up to EOF" :
	    "the reader reads to EOF", c->fmt == FMT_NPZ || c->fmt == FMT_NPY || c->fmt == FMT_HDF5 ||
	    c->fmt == FMT_HDF5_OPT || c->fmt >= FMT_INDEXED ? "off" : "on");
	SET(CM_JOB_K_DROP_LAST, "DLIO's loaders drop the last partial batch", "on");
	if (c->fmt == FMT_MMAP_INDEXED)
		SET(CM_JOB_K_MMAP, "mmap_indexed_binary: DLIO reads the samples through np.memmap",
		    "on");
	return 0;
}

/* train.*: epochs, steps, compute.  A rank's steps an epoch are
 * floor(num_files x num_samples_per_file / batch_size / ranks), at most
 * total_training_steps (main.py: both end each epoch). */
static int job_train(struct ctx *x, struct cm_job *job, unsigned ranks)
{
	struct cfg *c = &x->c;
	uint64_t spe = (uint64_t)c->num_files * (uint64_t)c->samples / (uint64_t)c->batch / ranks;

	SET(CM_JOB_K_EPOCHS, c->line[F_EPOCHS] ? "train.epochs" : "DLIO's default", "%lld",
	    (long long)c->epochs);
	if (!spe)
		return errorf(x, c->line[F_BATCH], "reader.batch_size %lld: the %llu samples make "
			      "no step of %u rank%s", (long long)c->batch,
			      (unsigned long long)(c->num_files * c->samples), ranks,
			      ranks == 1 ? "" : "s");
	if (c->total_steps > 0 && (uint64_t)c->total_steps < spe)
		SET(CM_JOB_K_STEPS_PER_EPOCH, "train.total_training_steps: DLIO stops each epoch "
		    "there", "%lld", (long long)c->total_steps);
	else if (ranks > 1)
		SET(CM_JOB_K_STEPS_PER_EPOCH, "a rank's steps: the samples over batch_size and the "
		    "ranks", "%llu", (unsigned long long)spe);
	SET(CM_JOB_K_COMPUTE, c->ct_given ? "train.computation_time (mean)" :
	    "DLIO's default: no compute", "%.9g", c->ct_mean);
	if (c->ct_sd_given && c->ct_sd > 0)
		SET(CM_JOB_K_COMPUTE_STDEV, "train.computation_time stdev", "%.9g", c->ct_sd);
	SET(CM_JOB_K_SEED, c->line[F_SEED] ? "train.seed" : "DLIO's default seed", "%lld",
	    (long long)c->seed);
	if (c->excl_start != 1)
		notef(x, c->line[F_EXCL_START], "output.metric.exclude_start_steps: %lld: the replay's "
		      "AU leaves out the first step only", (long long)c->excl_start);
	if (c->excl_end > 0)
		notef(x, c->line[F_EXCL_END], "output.metric.exclude_end_steps: %lld: the replay's AU "
		      "keeps the last steps", (long long)c->excl_end);
	return 0;
}

/* checkpoint.*: where, when, how big, fsync. */
static int job_checkpoint(struct ctx *x, struct cm_job *job, unsigned ranks, int only)
{
	struct cfg *c = &x->c;
	char dir[RP_JOB_STR], note[400];
	struct ckpt k;
	int rc;

	if ((rc = folder(x, "checkpoint.checkpoint_folder", c->line[F_CK_FOLDER], NULL,
			 c->ck_folder, dir, sizeof(dir))))
		return rc;
	if (!dt_bytes(c->model_dt) || !dt_bytes(c->opt_dt))
		return errorf(x, c->line[dt_bytes(c->model_dt) ? F_OPT_DT : F_MODEL_DT], "model.%s: "
			      "'%s' is not int8, uint8, fp16, bf16, fp32 or fp64",
			      dt_bytes(c->model_dt) ? "optimizer_datatype" : "model_datatype",
			      dt_bytes(c->model_dt) ? c->opt_dt : c->model_dt);
	if (c->tp < 1 || c->pp < 1 || (c->layers > 0 && (c->hidden < 1 || c->heads < 1)))
		return errorf(x, c->line[c->tp < 1 ? F_TP : c->pp < 1 ? F_PP : F_HEADS],
			      "model: parallelism and sizes must be 1 or more");
	if (c->layers > 0 && c->layers < c->pp)
		return errorf(x, c->line[F_LAYERS], "model.num_layers %lld is below "
			      "model.parallelism.pipeline %lld (DLIO stops there)",
			      (long long)c->layers, (long long)c->pp);
	if (c->pp > 1 && c->zero == 3)
		return errorf(x, c->line[F_ZERO], "model.parallelism.zero_stage 3 with pipeline "
			      "parallelism: DLIO stops there");
	if (ranks % (unsigned)(c->tp * c->pp))
		return errorf(x, c->line[F_TP], "%u ranks are not a multiple of tensor x pipeline "
			      "parallelism (%lld): DLIO stops there", ranks, (long long)(c->tp * c->pp));
	SET(CM_JOB_K_CKPT_FOLDER, "checkpoint.checkpoint_folder", "%s", dir);
	ckpt_sizes(c, ranks, &k);
	if (!k.writers)
		return errorf(x, c->line[F_DO_CKPT], "workflow.checkpoint: the model keys size a "
			      "checkpoint of nothing");
	if (!only) {
		if (c->ck_steps == 0) {
			notef(x, c->line[F_CK_STEPS], "checkpoint.steps_between_checkpoints: 0: DLIO "
			      "writes no checkpoint");
			return 1;
		}
		if (c->ck_steps > 0) {
			SET(CM_JOB_K_CKPT_STEPS, "checkpoint.steps_between_checkpoints (counted in each "
			    "epoch)", "%lld", (long long)c->ck_steps);
		} else {
			if (c->ck_after < 1 || c->ck_epochs < 1)
				return errorf(x, c->line[c->ck_after < 1 ? F_CK_AFTER : F_CK_EPOCHS],
					      "checkpoint.%s: not 1 or more", c->ck_after < 1 ?
					      "checkpoint_after_epoch" : "epochs_between_checkpoints");
			SET(CM_JOB_K_CKPT_AFTER, c->line[F_CK_AFTER] ? "checkpoint.checkpoint_after_epoch"
			    : "DLIO's default", "%lld", (long long)c->ck_after);
			SET(CM_JOB_K_CKPT_EPOCHS, c->line[F_CK_EPOCHS] ?
			    "checkpoint.epochs_between_checkpoints" : "DLIO's default", "%lld",
			    (long long)c->ck_epochs);
		}
	}
	snprintf(note, sizeof(note), "%u of %u ranks write a checkpoint of %.0f bytes in %llu "
		 "files (%.4g GiB); a rank's mean%s", k.writers, ranks, k.bytes,
		 (unsigned long long)k.files, k.bytes / 1073741824.0,
		 k.min != k.max ? " (they differ)" : "");
	SET(CM_JOB_K_CKPT_SIZE, note, "%.0f", round(k.bytes / k.writers));
	SET(CM_JOB_K_CKPT_FILES, "files a rank writes (their mean)", "%llu",
	    (unsigned long long)((k.files + k.writers / 2) / k.writers));
	if (k.min != k.max)
		notef(x, c->line[F_LAYERS] ? c->line[F_LAYERS] : c->line[F_DO_CKPT], "model: the ranks' "
		      "checkpoints differ (%.0f to %.0f bytes: pipeline stages, ZeRO): every rank "
		      "writes their mean", k.min, k.max);
	if (c->ck_fsync_given && c->ck_fsync)
		notef(x, c->line[F_CK_FSYNC], "checkpoint.fsync: True: fsync on (MLPerf Storage "
		      "enforces it; DLIO's config.py stores it as checkpoint_sync, which its "
		      "checkpointing never reads)");
	SET(CM_JOB_K_CKPT_FSYNC, c->ck_fsync_given ? "checkpoint.fsync" : "DLIO's default "
	    "(checkpoint_fsync False)", "%s", c->ck_fsync_given && c->ck_fsync ? "on" : "off");
	if (!strcmp(c->framework, "tensorflow"))
		notef(x, c->line[F_FRAMEWORK] ? c->line[F_FRAMEWORK] : c->line[F_DO_CKPT],
		      "framework: tensorflow: tf.train.Checkpoint's .index and 'checkpoint' "
		      "files (a few bytes) are left out: a file a state");
	return 0;
}

/* An object store is not a file system: 0, or -ENOTSUP said in err. */
static int refuse_object_store(struct ctx *x)
{
	struct cfg *c = &x->c;

	if (strcmp(c->storage_type, "local_fs") && strcmp(c->storage_type, "parallel_fs")) {
		*x->errline = c->line[F_STORAGE_TYPE];
		snprintf(x->err, x->errlen, "storage.storage_type: %s: iotape replays a job on a "
			 "file system (DIR); an object store is not one", c->storage_type);
		return -ENOTSUP;
	}
	if (!strncmp(c->data_folder, "s3://", 5)) {
		*x->errline = c->line[F_DATA_FOLDER];
		snprintf(x->err, x->errlen, "dataset.data_folder: %s: an object store, not a folder "
			 "of a file system", c->data_folder);
		return -ENOTSUP;
	}
	return 0;
}

/* DLIO's newer record_dims: the record's size from them. */
static void record_dims(struct ctx *x)
{
	struct cfg *c = &x->c;
	double p = 1;

	for (size_t i = 0; i < c->rec_dims->nitems; i++)
		p *= (double)strtoll(c->rec_dims->items[i], NULL, 10);
	int eb = dt_bytes(c->elem_type);
	c->reclen = p * (c->elem_bytes > 0 ? (double)c->elem_bytes : eb ? eb : 1);
	notef(x, c->rec_dims->line, "dataset.record_dims: a record of %.0f bytes, drawn as "
	      "DLIO draws record_length_bytes", c->reclen);
}

/* What DLIO runs (config.py LoadConfig's end, main.py run()): training,
 * data generation or checkpoints only; 0 or the error's return. */
static int workflow(struct ctx *x, int *trainp, int *genp, int *onlyp)
{
	struct cfg *c = &x->c;
	int train, gen, only;

	train = c->do_train;
	gen = !train && c->generate && !c->do_ckpt;
	only = !train && c->do_ckpt;
	if (train && c->do_ckpt && !c->has_dataset && (c->ck_writes > 0 || c->ck_reads > 0)) {
		/* DLIO's llama_1t: a checkpoint workload with no data set */
		notef(x, c->line[F_DO_TRAIN], "workflow.train: True without a dataset section: run "
		      "as DLIO's checkpoint workloads run (num_checkpoints_write, _read)");
		only = 1;
		train = 0;
	}
	if (!train && !gen && !only)
		return errorf(x, c->line[F_DO_TRAIN], "workflow: no training, no data generation, no "
			      "checkpoint: DLIO runs nothing");
	if (c->do_eval)
		notef(x, c->line[F_DO_EVAL], "workflow.evaluation: True: the evaluation pass over "
		      "num_files_eval files is not replayed");
	if (train && c->generate)
		notef(x, c->line[F_GENERATE], "workflow.generate_data: True: the data set is "
		      "prepared before the run (iotape replay prepares it, untimed)");
	if (!only && !gen && c->line[F_CK_WRITES])
		notef(x, c->line[F_CK_WRITES], "checkpoint.num_checkpoints_write: DLIO reads it in "
		      "a checkpoint-only workload (workflow.train False) only");
	*trainp = train;
	*genp = gen;
	*onlyp = only;
	return 0;
}

/* The data set's keys DLIO stops on: 0 or the error's return. */
static int check_dataset(struct ctx *x, int train, int gen)
{
	struct cfg *c = &x->c;

	if (c->num_files < 1 && (train || gen))
		return errorf(x, c->line[F_NUM_FILES], "dataset.num_files_train: %lld: no "
			      "file to %s", (long long)c->num_files, gen ? "write" : "read");
	if (c->samples < 1)
		return errorf(x, c->line[F_SAMPLES], "dataset.num_samples_per_file: %lld: "
			      "not 1 or more", (long long)c->samples);
	if (c->reclen < 1)
		return errorf(x, c->line[F_RECLEN], "dataset.record_length_bytes: %g: not 1 "
			      "or more", c->reclen);
	if (c->reclen_sd < 0)
		return errorf(x, c->line[F_RECLEN_SD], "dataset.record_length_bytes_stdev: "
			      "%g: below 0", c->reclen_sd);
	if (c->batch < 1)
		return errorf(x, c->line[F_BATCH], "reader.batch_size: %lld: not 1 or more",
			      (long long)c->batch);
	if (c->epochs < 1)
		return errorf(x, c->line[F_EPOCHS], "train.epochs: %lld: not 1 or more",
			      (long long)c->epochs);
	if (strchr(c->prefix, '/') || strchr(c->format_s, '/'))
		return errorf(x, c->line[strchr(c->prefix, '/') ? F_PREFIX : F_FORMAT],
			      "dataset.%s: '%s' has a '/'", strchr(c->prefix, '/') ?
			      "file_prefix" : "format", strchr(c->prefix, '/') ? c->prefix :
			      c->format_s);
	if (c->fmt == FMT_SYNTHETIC && (train || gen))
		return errorf(x, c->line[F_FORMAT], "dataset.format: synthetic: DLIO reads "
			      "no file: nothing to replay");
	return 0;
}

/* workflow.generate_data alone: the job writes the data set. */
static int job_generate(struct ctx *x, struct cm_job *job, unsigned ranks, char *hdr,
			size_t hdrlen)
{
	struct cfg *c = &x->c;

	SET(CM_JOB_K_GENERATE, "workflow.generate_data alone: the job writes the data set",
	    "on");
	SET(CM_JOB_K_READ_THREADS, "DLIO's generator: one writer a rank", "1");
	SET(CM_JOB_K_TRANSFER_SIZE, "1 MiB writes (DLIO's generators write through numpy, "
	    "Pillow, h5py, tf.io: not modelled)", "1m");
	SET(CM_JOB_K_COMPUTE, "no training", "0");
	snprintf(hdr, hdrlen, "DLIO workload %s: data generation (workflow.generate_data "
		 "alone): %lld %s files%s", c->model, (long long)c->num_files, c->format_s,
		 ranks > 1 ? ", over the ranks" : "");
	return 0;
}

/* Training: the reader, the steps, and the checkpoints if any. */
static int job_training(struct ctx *x, struct cm_job *job, unsigned ranks, char *hdr,
			size_t hdrlen)
{
	struct cfg *c = &x->c;
	int rc;

	if ((rc = job_reader(x, job)) || (rc = job_train(x, job, ranks)))
		return rc;
	if (c->do_ckpt && (rc = job_checkpoint(x, job, ranks, 0)) < 0)
		return rc;
	if (rc == 1) {	/* DLIO writes none: no [checkpoint] */
		for (int k = CM_JOB_K_CKPT_FOLDER; k <= CM_JOB_K_CKPT_READ_BACK; k++)
			cm_job_set(job, k, NULL, NULL);
	}
	if (!c->do_ckpt) {
		for (int f = F_CK_FOLDER; f <= F_CK_CLASS; f++)
			if (c->line[f]) {
				notef(x, c->line[f], "checkpoint: workflow.checkpoint is not True: "
				      "DLIO writes no checkpoint");
				break;
			}
	}
	snprintf(hdr, hdrlen, "DLIO workload %s: training, %lld epoch%s%s", c->model,
		 (long long)c->epochs, c->epochs == 1 ? "" : "s",
		 c->do_ckpt ? ", checkpoints" : "");
	return 0;
}

/* Checkpoints only: written, then read. */
static int job_ckpt_only(struct ctx *x, struct cm_job *job, unsigned ranks, char *hdr,
			 size_t hdrlen)
{
	struct cfg *c = &x->c;
	int rc;

	int64_t w = c->ck_writes > 0 ? c->ck_writes : 0, r = c->ck_reads > 0 ? c->ck_reads : 0;

	if (!w && !r)
		return errorf(x, c->line[F_DO_CKPT], "workflow.checkpoint: True with train "
			      "False, and no checkpoint.num_checkpoints_write or _read: DLIO "
			      "writes and reads no checkpoint");
	if (w && r > w)
		return errorf(x, c->line[F_CK_READS], "checkpoint.num_checkpoints_read %lld "
			      "is above num_checkpoints_write %lld (DLIO stops there)",
			      (long long)r, (long long)w);
	SET(CM_JOB_K_NUM_FILES, "checkpoints only: no data set", "0");
	SET(CM_JOB_K_COMPUTE, c->line[F_CK_TIME] ? "checkpoint.time_between_checkpoints: "
	    "compute before each checkpoint" : "DLIO sleeps abs(-1) s before each "
	    "checkpoint (time_between_checkpoints -1)", "%.9g", fabs(c->ck_time));
	if ((rc = job_checkpoint(x, job, ranks, 1)) < 0)
		return rc;
	SET(CM_JOB_K_CKPT_WRITES, "checkpoint.num_checkpoints_write", "%lld", (long long)w);
	SET(CM_JOB_K_CKPT_READS, "checkpoint.num_checkpoints_read: after the writes",
	    "%lld", (long long)r);
	snprintf(hdr, hdrlen, "DLIO workload %s: checkpoints only, %lld written then "
		 "%lld read", c->model, (long long)w, (long long)r);
	return 0;
}

int rp_dlio_job(struct cm_job *job, const struct rp_dlio_kv *kv, size_t n,
		const struct rp_dlio_opts *o, rp_dlio_note_fn note, void *arg, unsigned *errline,
		char *err, size_t errlen)
{
	struct ctx x = { .kv = kv, .n = n, .prefix = "", .note = note, .arg = arg,
			 .errline = errline, .err = err, .errlen = errlen };
	struct cfg *c = &x.c;
	unsigned ranks;
	char hdr[600];
	int rc, only = 0, gen = 0, train = 0;

	*errline = 0;
	cfg_defaults(c);
	/* a whole DLIO config (hydra's, with a workload: mapping) */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, "workload") && kv[i].kind == RP_DLIO_MAP)
			x.prefix = "workload.";
	if ((rc = read_keys(&x)) || (rc = refuse_object_store(&x)))
		return rc;
	if (c->rec_dims && c->rec_dims->nitems)
		record_dims(&x);
	if ((rc = workflow(&x, &train, &gen, &only)))
		return rc;
	/* ranks: given, or the least DLIO runs the model on (a model-parallel
	 * group: tensor x pipeline parallelism) */
	ranks = o && o->ranks ? o->ranks : (only || c->do_ckpt) && c->tp > 0 && c->pp > 0 ?
		(unsigned)(c->tp * c->pp) : 1;
	if (c->dp > 0 && !strcmp(c->ck_mode, "default") && (only || c->do_ckpt))
		return errorf(&x, c->line[F_DP], "model.parallelism.data is for checkpoint.mode "
			      "subset (DLIO stops there)");
	if ((c->line[F_NUM_FILES] || train || gen) && (rc = check_dataset(&x, train, gen)))
		return rc;
	if (cm_job_setf(job, CM_JOB_K_NAME, "model.name", "%s", c->model) < 0)
		return -ENOMEM;
	if ((gen || train) && (rc = job_dataset(&x, job, (uint64_t)c->num_files)))
		return rc;
	if (gen)
		rc = job_generate(&x, job, ranks, hdr, sizeof(hdr));
	else if (train)
		rc = job_training(&x, job, ranks, hdr, sizeof(hdr));
	else
		rc = job_ckpt_only(&x, job, ranks, hdr, sizeof(hdr));
	if (rc)
		return rc;
	if (ranks > 1 || only) {
		size_t l = strlen(hdr);
		snprintf(hdr + l, sizeof(hdr) - l, "\na rank's job, for %u rank%s (mpirun -np %u): "
			 "iotape replay -n %u", ranks, ranks == 1 ? "" : "s", ranks, ranks);
		SET(CM_JOB_K_RANKS, o && o->ranks ? "the ranks it is run on (mpirun -np)" :
		    "its model-parallel group: tensor x pipeline parallelism", "%u", ranks);
	}
	if (cm_job_set_header(job, hdr) < 0)
		return -ENOMEM;
	return 0;
}

/* -------------------------------------------------------------- presets */

/*
 * The MLPerf Storage v2.0 workloads: each is the DLIO keys of its workload
 * YAML (mlcommons/storage, v2.0-branch, configs/dlio/workload/), made a
 * job by rp_dlio_job as `model --from-dlio` makes one of the YAML itself;
 * "@CT" is the accelerator's computation_time.  The checkpoint workloads
 * run on the process counts of the rules' Table 2 (TP x PP x DP).
 */
struct pkv {
	const char *key, *val;	/* val NULL: a section (a mapping) */
};

struct preset {
	const char *name, *summary, *source;
	const char *h100, *a100;	/* computation_time; NULL: none */
	unsigned ranks;			/* the rules' processes; 0: the import's */
	struct pkv kv[40];
	/* the rules' figures (rp_dlio_rules) */
	const char *au, *order, *ckpt, *tb2, *size;
	double size_gib;		/* Table 2's checkpoint size, in GiB */
};

#define MLPS "MLPerf Storage v2.0 configs/dlio/workload/"
#define RULES "MLPerf Storage v2.0 rules (Submission_guidelines.md)"

static const struct preset presets[] = {
	{ "unet3d", "3D U-Net (KiTS19): 168 npz files of 140 MiB, batch 7, one checkpoint",
	  MLPS "unet3d_h100.yaml, unet3d_a100.yaml", "0.323", "0.636", 0, {
		{ "model", NULL }, { "model.name", "unet3d" }, { "model.type", "cnn" },
		{ "framework", "pytorch" },
		{ "workflow", NULL }, { "workflow.generate_data", "False" },
		{ "workflow.train", "True" }, { "workflow.checkpoint", "True" },
		{ "dataset", NULL }, { "dataset.data_folder", "data/unet3d/" },
		{ "dataset.format", "npz" }, { "dataset.num_files_train", "168" },
		{ "dataset.num_samples_per_file", "1" },
		{ "dataset.record_length_bytes", "146600628" },
		{ "dataset.record_length_bytes_stdev", "68341808" },
		{ "dataset.record_length_bytes_resize", "2097152" },
		{ "reader", NULL }, { "reader.data_loader", "pytorch" }, { "reader.batch_size", "7" },
		{ "reader.read_threads", "4" }, { "reader.file_shuffle", "seed" },
		{ "reader.sample_shuffle", "seed" },
		{ "train", NULL }, { "train.epochs", "5" }, { "train.computation_time", "@CT" },
		{ "checkpoint", NULL }, { "checkpoint.checkpoint_folder", "checkpoints/unet3d" },
		{ "checkpoint.checkpoint_after_epoch", "5" },
		{ "checkpoint.epochs_between_checkpoints", "2" },
		{ NULL } },
	  "90%", "file_shuffle seed, PyTorch loader: name order",
	  "required (mlpstorage rules.py: Unet3D training requires workflow.checkpoint): "
	  "after epoch 5", NULL, NULL, 0 },
	{ "resnet50", "ResNet-50 (ImageNet): 1024 tfrecord files of 1251 samples, batch 400",
	  MLPS "resnet50_h100.yaml, resnet50_a100.yaml", "0.224", "0.435", 0, {
		{ "model", NULL }, { "model.name", "resnet50" }, { "model.type", "cnn" },
		{ "framework", "tensorflow" },
		{ "workflow", NULL }, { "workflow.generate_data", "False" },
		{ "workflow.train", "True" },
		{ "dataset", NULL }, { "dataset.num_files_train", "1024" },
		{ "dataset.num_samples_per_file", "1251" },
		{ "dataset.record_length_bytes", "114660.07" },
		{ "dataset.record_length_bytes_resize", "150528" },
		{ "dataset.data_folder", "data/resnet50" }, { "dataset.format", "tfrecord" },
		{ "train", NULL }, { "train.computation_time", "@CT" }, { "train.epochs", "5" },
		{ "reader", NULL }, { "reader.data_loader", "tensorflow" },
		{ "reader.read_threads", "8" }, { "reader.computation_threads", "8" },
		{ "reader.batch_size", "400" },
		{ NULL } },
	  "90%", "no file_shuffle (DLIO's off): name order", "none (workflow.checkpoint not set)",
	  NULL, NULL, 0 },
	{ "cosmoflow", "CosmoFlow: 524288 tfrecord files of 2.7 MiB, batch 1",
	  MLPS "cosmoflow_h100.yaml, cosmoflow_a100.yaml", "0.00350", "0.00551", 0, {
		{ "model", NULL }, { "model.name", "cosmoflow" }, { "framework", "tensorflow" },
		{ "workflow", NULL }, { "workflow.generate_data", "False" },
		{ "workflow.train", "True" },
		{ "dataset", NULL }, { "dataset.data_folder", "data/cosmoflow" },
		{ "dataset.num_files_train", "524288" }, { "dataset.num_samples_per_file", "1" },
		{ "dataset.record_length_bytes", "2828486" },
		{ "dataset.record_length_bytes_stdev", "71311" }, { "dataset.format", "tfrecord" },
		{ "reader", NULL }, { "reader.data_loader", "tensorflow" },
		{ "reader.read_threads", "4" }, { "reader.batch_size", "1" },
		{ "reader.file_shuffle", "seed" }, { "reader.sample_shuffle", "seed" },
		{ "reader.shuffle_size", "2" },
		{ "train", NULL }, { "train.epochs", "5" }, { "train.computation_time", "@CT" },
		{ NULL } },
	  "70%", "file_shuffle seed: shuffled (tf.data keeps epoch 1's order)",
	  "none (workflow.checkpoint not set)", NULL, NULL, 0 },
#define LLAMA(NAME, SUM, YNAME, RANKS, L, H, FFN, HEADS, KV, TP, PP, ZERO, TB2, SIZE, GIB) \
	{ NAME, SUM, MLPS "llama3_" YNAME ".yaml", NULL, NULL, RANKS, { \
		{ "model", NULL }, { "model.name", "llama_" YNAME }, \
		{ "model.type", "transformer" }, \
		{ "model.num_layers", L }, { "model.model_datatype", "fp16" }, \
		{ "model.optimizer_datatype", "fp32" }, { "model.parallelism", NULL }, \
		{ "model.parallelism.tensor", TP }, { "model.parallelism.pipeline", PP }, \
		{ "model.parallelism.zero_stage", ZERO }, { "model.transformer", NULL }, \
		{ "model.transformer.vocab_size", "128256" }, \
		{ "model.transformer.hidden_size", H }, \
		{ "model.transformer.ffn_hidden_size", FFN }, \
		{ "model.transformer.num_attention_heads", HEADS }, \
		{ "model.transformer.num_kv_heads", KV }, \
		{ "framework", "pytorch" }, \
		{ "workflow", NULL }, { "workflow.generate_data", "False" }, \
		{ "workflow.train", "False" }, { "workflow.checkpoint", "True" }, \
		{ "checkpoint", NULL }, \
		{ "checkpoint.checkpoint_folder", "checkpoints/llama_" YNAME }, \
		{ "checkpoint.time_between_checkpoints", "5" }, \
		{ "checkpoint.num_checkpoints_write", "10" }, \
		{ "checkpoint.num_checkpoints_read", "10" }, { "checkpoint.fsync", "True" }, \
		{ NULL } }, \
	  NULL, NULL, "10 written, then 10 read (Table 3), fsync (2.2.2)", TB2, SIZE, GIB }
	LLAMA("llama3-8b", "Llama 3 8B checkpoints: 105 GB from 8 ranks, 10 written, 10 read",
	      "8b", 8, "32", "4096", "14336", "32", "8", "1", "1", "3",
	      "1x1x8 = 8 processes, ZeRO 3", "105 GB", 105),
	LLAMA("llama3-70b", "Llama 3 70B checkpoints: 912 GB from 64 ranks, 10 written, 10 read",
	      "70b", 64, "80", "8192", "28672", "128", "8", "8", "1", "3",
	      "8x1x8 = 64 processes, ZeRO 3", "912 GB", 912),
	LLAMA("llama3-405b", "Llama 3 405B checkpoints: 5.29 TB from 512 ranks, 10 written, 10 "
	      "read", "405b", 512, "126", "16384", "53248", "128", "8", "8", "32", "1",
	      "8x32x2 = 512 processes, ZeRO 1", "5.29 TB", 5290),
	LLAMA("llama3-1t", "Llama 3 1T checkpoints: 18 TB (rules) from 1024 ranks, 10 written, "
	      "10 read", "1t", 1024, "128", "25872", "98304", "192", "32", "8", "64",
	      "1", "8x64x2 = 1024 processes, ZeRO 1", "18 TB", 18000),
#undef LLAMA
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

const char *rp_dlio_preset_name(size_t i, const char **summary)
{
	if (i >= NPRESETS)
		return NULL;
	if (summary)
		*summary = presets[i].summary;
	return presets[i].name;
}

static const struct preset *preset_find(const char *name)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

int rp_dlio_preset(struct cm_job *job, const char *name, int a100)
{
	const struct preset *p = preset_find(name);
	struct rp_dlio_kv kv[40];
	struct rp_dlio_opts o = { 0 };
	char err[512], hdr[1200];
	unsigned line;
	size_t n;
	int rc;

	if (!p)
		return -ENOENT;
	for (n = 0; p->kv[n].key; n++) {
		const char *v = p->kv[n].val;

		kv[n] = (struct rp_dlio_kv){ .key = p->kv[n].key, .line = (unsigned)n + 1,
					     .kind = v ? RP_DLIO_SCALAR : RP_DLIO_MAP,
					     .val = v && !strcmp(v, "@CT") ? (a100 ? p->a100 : p->h100) :
						    v };
	}
	o.ranks = p->ranks;
	if ((rc = rp_dlio_job(job, kv, n, &o, NULL, NULL, &line, err, sizeof(err))))
		return rc == -ENOMEM ? -ENOMEM : -EINVAL;	/* (a preset is checked: bug) */
	snprintf(hdr, sizeof(hdr), "preset %s%s: %s\nsource: %s, as DLIO runs it (iotape model "
		 "--from-dlio)\n%s", p->name, !p->h100 ? "" : a100 ? " --accelerator a100" :
		 " --accelerator h100", p->summary, p->source, job->header ? job->header : "");
	return cm_job_set_header(job, hdr);
}

/* A row of the table. */
static void row(struct rp_dlio_rule *r, size_t max, size_t *n, const char *preset,
		const char *what, const char *rule, int ok, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 9, 10)));
static void row(struct rp_dlio_rule *r, size_t max, size_t *n, const char *preset,
		const char *what, const char *rule, int ok, const char *source, const char *fmt, ...)
{
	va_list ap;

	if (*n >= max)
		return;
	r += (*n)++;
	r->preset = preset;
	r->what = what;
	snprintf(r->rule, sizeof(r->rule), "%s", rule);
	r->ok = ok;
	r->source = source;
	va_start(ap, fmt);
	vsnprintf(r->job, sizeof(r->job), fmt, ap);
	va_end(ap);
}

/* A preset's DLIO key, or NULL. */
static const char *pkv(const struct preset *p, const char *key)
{
	for (const struct pkv *k = p->kv; k->key; k++)
		if (!strcmp(k->key, key))
			return k->val;
	return NULL;
}

static const char *jv(const struct cm_job *j, int k)
{
	return j->val[k] ? j->val[k] : "-";
}

int rp_dlio_rules(struct rp_dlio_rule *r, size_t max, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < NPRESETS; i++) {
		const struct preset *p = &presets[i];
		struct cm_job h = { 0 }, a = { 0 };
		struct rp_jobspec js;
		char err[256], rule[160];
		uint64_t w = 0, rd = 0;
		int rc;

		if ((rc = rp_dlio_preset(&h, p->name, 0)) || (p->a100 && (rc = rp_dlio_preset(&a,
											 p->name, 1)))) {
			cm_job_release(&h);
			cm_job_release(&a);
			return rc;
		}
		if (!rp_jobspec_model(&js, &h, p->name, err, sizeof(err)))
			rp_jobspec_checkpoints(&js, &w, &rd);
		if (p->h100) {	/* training */
			const char *ch = jv(&h, CM_JOB_K_CKPT_SIZE);
			const char *nf = pkv(p, "dataset.num_files_train"),
				   *ns = pkv(p, "dataset.num_samples_per_file"),
				   *rl = pkv(p, "dataset.record_length_bytes"),
				   *sd = pkv(p, "dataset.record_length_bytes_stdev");

			snprintf(rule, sizeof(rule), "%s files x %s samples of %s%s%s bytes (%s)",
				 nf, ns, rl, sd ? " +- " : "", sd ? sd : "", pkv(p, "dataset.format"));
			row(r, max, n, p->name, "data set", rule,
			    !strcmp(jv(&h, CM_JOB_K_NUM_FILES), nf) &&
			    !strcmp(jv(&h, CM_JOB_K_SAMPLES_PER_FILE), ns), p->source,
			    "%s x %s samples of %s%s%s bytes: what DLIO's generator writes",
			    jv(&h, CM_JOB_K_NUM_FILES), jv(&h, CM_JOB_K_SAMPLES_PER_FILE),
			    jv(&h, CM_JOB_K_RECORD_LENGTH), h.val[CM_JOB_K_RECORD_STDEV] ? " +- " : "",
			    h.val[CM_JOB_K_RECORD_STDEV] ? h.val[CM_JOB_K_RECORD_STDEV] : "");
			snprintf(rule, sizeof(rule), "batch %s, %s epochs, %s read threads",
				 pkv(p, "reader.batch_size"), pkv(p, "train.epochs"),
				 pkv(p, "reader.read_threads"));
			row(r, max, n, p->name, "steps", rule,
			    !strcmp(jv(&h, CM_JOB_K_BATCH_SIZE), pkv(p, "reader.batch_size")) &&
			    !strcmp(jv(&h, CM_JOB_K_EPOCHS), pkv(p, "train.epochs")) &&
			    !strcmp(jv(&h, CM_JOB_K_READ_THREADS), pkv(p, "reader.read_threads")),
			    p->source, "batch %s, %s epochs, %s read threads (drop_last %s)",
			    jv(&h, CM_JOB_K_BATCH_SIZE), jv(&h, CM_JOB_K_EPOCHS),
			    jv(&h, CM_JOB_K_READ_THREADS), jv(&h, CM_JOB_K_DROP_LAST));
			snprintf(rule, sizeof(rule), "%s / %s s", p->h100, p->a100);
			row(r, max, n, p->name, "computation_time H100 / A100", rule,
			    strtod(jv(&h, CM_JOB_K_COMPUTE), NULL) == strtod(p->h100, NULL) &&
			    strtod(jv(&a, CM_JOB_K_COMPUTE), NULL) == strtod(p->a100, NULL), p->source,
			    "%s / %s s",
			    jv(&h, CM_JOB_K_COMPUTE), jv(&a, CM_JOB_K_COMPUTE));
			row(r, max, n, p->name, "minimum AU (Table 1)", p->au, 1, RULES,
			    "replay --au %s", !strcmp(p->au, "90%") ? "0.9 (its default)" : "0.7");
			row(r, max, n, p->name, "file order", p->order, 1, p->source,
			    "file_shuffle = %s", jv(&h, CM_JOB_K_FILE_SHUFFLE));
			row(r, max, n, p->name, "checkpoint", p->ckpt, !!strncmp(p->ckpt, "none", 4) ==
			    !!w, strncmp(p->ckpt, "none", 4) ? "mlpstorage/rules.py, " MLPS :
			    p->source, "%llu written%s%s%s", (unsigned long long)w,
			    w ? " (" : "", w ? ch : "", w ? " bytes)" : "");
		} else {	/* checkpoints */
			double gib = strtod(jv(&h, CM_JOB_K_CKPT_SIZE), NULL) * p->ranks / 1073741824.0;
			row(r, max, n, p->name, "processes TP x PP x DP (Table 2)", p->tb2,
			    (unsigned)strtoul(jv(&h, CM_JOB_K_RANKS), NULL, 10) == p->ranks, RULES,
			    "ranks = %s", jv(&h, CM_JOB_K_RANKS));
			/* Table 2's 18 TB for 1T is mlpstorage's LLM_SIZE_BY_RANK, whose
			 * figures "need to be updated" (config.py): DLIO's sizing of
			 * the 1T YAML writes 15427 GiB */
			int ok = fabs(gib - p->size_gib) <= 0.01 * p->size_gib;
			row(r, max, n, p->name, "checkpoint size (Table 2)", p->size,
			    ok ? 1 : p->size_gib > 10000 ? 2 : 0, p->size_gib > 10000 ?
			    RULES "; Table 2's 18 TB is mlpstorage config.py's LLM_SIZE_BY_RANK, whose "
			    "figures 'need to be updated': the preset writes what DLIO writes for the "
			    "YAML" : RULES,
			    "%.1f GiB: %s ranks x %s bytes (DLIO's sizing of %s)", gib,
			    jv(&h, CM_JOB_K_RANKS), jv(&h, CM_JOB_K_CKPT_SIZE), p->source);
			row(r, max, n, p->name, "checkpoints, fsync", p->ckpt,
			    w == 10 && rd == 10 && !strcmp(jv(&h, CM_JOB_K_CKPT_FSYNC), "on"), RULES,
			    "%llu written, %llu read, fsync %s", (unsigned long long)w,
			    (unsigned long long)rd, jv(&h, CM_JOB_K_CKPT_FSYNC));
		}
		cm_job_release(&h);
		cm_job_release(&a);
	}
	return 0;
}
