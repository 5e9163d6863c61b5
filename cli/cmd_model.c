/* SPDX-License-Identifier: MIT */
/*
 * cmd_model.c - `iotape model`: write a job file (iotape-model(1)).
 *
 * Two sources of a model: a published MLPerf Storage workload (--preset,
 * common/job.c holds their values and sources), or a DLIO workload YAML
 * (--from-dlio), read with libyaml: the DLIO keys that mean something in a
 * job file are mapped (table dlio_map below, the man page's table), every
 * other key is named in one warning line.  A value of the wrong type is
 * one error line with FILE:LINE and exit 2; nothing is written then.
 * The job file goes to stdout, or to -o FILE (refused when it exists,
 * unless -f), created only once the whole job is made.  --fio writes the
 * job (or a job file given as TRACE) as an fio job file instead
 * (replay/rp_fio.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>
#include "analyze.h"
#include "cli.h"
#include "job.h"
#include "opt.h"
#include "parse.h"
#include "replay.h"

struct model_cfg {
	const char *preset, *dlio, *out, *dir;
	int a100, list, force, check, fio;
};

static const struct opt model_opts[] = {
	{ 'p', "preset", "NAME", "an MLPerf Storage workload (see --list)",
	  OPT_T_STR(struct model_cfg, preset) },
	{ 'a', "accelerator", "ACCEL", "accelerator of the preset's computation_time",
	  "h100|a100", "h100", OPT_T_CHOICE(struct model_cfg, a100) },
	{ 'd', "from-dlio", "YAML", "map a DLIO workload YAML",
	  OPT_T_STR(struct model_cfg, dlio) },
	{ 'l', "list", NULL, "list the presets", OPT_T_FLAG(struct model_cfg, list) },
	{ 'o', "output", "FILE", "write the job file to FILE instead of stdout",
	  OPT_T_STR(struct model_cfg, out) },
	{ 'f', "force", NULL, "replace FILE if it exists", OPT_T_FLAG(struct model_cfg, force) },
	{ 'c', "check", NULL, "run the model of TRACE and the trace, recorded, and check the "
	  "model's fidelity", OPT_T_FLAG(struct model_cfg, check) },
	{ OPT_LONG(1), "dir", "DIR", "--check: work under DIR (created; kept) instead of a temporary "
	  "directory", OPT_T_STR(struct model_cfg, dir) },
	{ OPT_LONG(2), "fio", NULL, "write an fio job file instead (TRACE may be a job file)",
	  OPT_T_FLAG(struct model_cfg, fio) },
	{ 0 }
};

const struct opt_cmd model_cmd = {
	"model", "[TRACE]", "Write a job file: from a trace, a preset workload or a DLIO workload.",
	"Exactly one of TRACE, --preset, --from-dlio or --list; see iotape-model(1).\n"
	"With --check TRACE: is the model faithful to the trace (root, BPF)?",
	model_opts,
};

/* ------------------------------------------------------------------ DLIO */

enum dlio_conv {
	DC_COPY,	/* the value as it is, checked as the job key's type */
	DC_ROUND,	/* a number >= 0, rounded to a whole number of bytes */
	DC_SHUFFLE,	/* off|seed|random (or a YAML boolean) -> on|off */
	DC_BOOL,	/* a YAML boolean -> on|off */
	DC_SUFFIX,	/* format npz -> .npz */
	DC_THREADS,	/* read_threads: 0 (the main process reads) -> 1 */
};

struct dlio_key {
	const char *dlio;	/* "dataset.num_files_train" */
	int key;		/* enum cm_job_key */
	enum dlio_conv conv;
};

static const struct dlio_key dlio_map[] = {
	{ "model", CM_JOB_K_NAME, DC_COPY },
	{ "model.name", CM_JOB_K_NAME, DC_COPY },
	{ "dataset.data_folder", CM_JOB_K_DATA_FOLDER, DC_COPY },
	{ "dataset.num_files_train", CM_JOB_K_NUM_FILES, DC_COPY },
	{ "dataset.num_subfolders_train", CM_JOB_K_NUM_SUBFOLDERS, DC_COPY },
	{ "dataset.num_samples_per_file", CM_JOB_K_SAMPLES_PER_FILE, DC_COPY },
	{ "dataset.record_length_bytes", CM_JOB_K_RECORD_LENGTH, DC_ROUND },
	{ "dataset.record_length", CM_JOB_K_RECORD_LENGTH, DC_ROUND },
	{ "dataset.record_length_bytes_stdev", CM_JOB_K_RECORD_STDEV, DC_ROUND },
	{ "dataset.record_length_stdev", CM_JOB_K_RECORD_STDEV, DC_ROUND },
	{ "dataset.record_length_std", CM_JOB_K_RECORD_STDEV, DC_ROUND },
	{ "dataset.format", CM_JOB_K_FILE_SUFFIX, DC_SUFFIX },
	{ "dataset.file_prefix", CM_JOB_K_FILE_PREFIX, DC_COPY },
	{ "reader.read_threads", CM_JOB_K_READ_THREADS, DC_THREADS },
	{ "reader.batch_size", CM_JOB_K_BATCH_SIZE, DC_COPY },
	{ "reader.transfer_size", CM_JOB_K_TRANSFER_SIZE, DC_ROUND },
	{ "reader.file_shuffle", CM_JOB_K_FILE_SHUFFLE, DC_SHUFFLE },
	{ "reader.sample_shuffle", CM_JOB_K_SAMPLE_SHUFFLE, DC_SHUFFLE },
	{ "reader.prefetch_size", CM_JOB_K_PREFETCH, DC_COPY },
	{ "reader.odirect", CM_JOB_K_ODIRECT, DC_BOOL },
	{ "train.epochs", CM_JOB_K_EPOCHS, DC_COPY },
	{ "train.epoch", CM_JOB_K_EPOCHS, DC_COPY },
	{ "train.computation_time", CM_JOB_K_COMPUTE, DC_COPY },
	{ "train.computation_time_stdev", CM_JOB_K_COMPUTE_STDEV, DC_COPY },
	{ "train.seed", CM_JOB_K_SEED, DC_COPY },
	{ "checkpoint.checkpoint_folder", CM_JOB_K_CKPT_FOLDER, DC_COPY },
	{ "checkpoint.epochs_between_checkpoints", CM_JOB_K_CKPT_EPOCHS, DC_COPY },
	{ "checkpoint.steps_between_checkpoints", CM_JOB_K_CKPT_STEPS, DC_COPY },
	{ "checkpoint.model_size", CM_JOB_K_CKPT_SIZE, DC_ROUND },
	{ "model.model_size", CM_JOB_K_CKPT_SIZE, DC_ROUND },
	{ NULL }
};

struct dlio {
	const char *path;
	struct cm_job *job;
	int train, checkpoint;		/* workflow.*: -1 not given, 0, 1 */
	char *unknown;			/* "a, b, c" */
	size_t unknown_len;
};

static int yaml_bool(const char *s)
{
	static const char *const t[] = { "true", "True", "TRUE", "yes", "Yes", "on", "On", NULL };
	static const char *const f[] = { "false", "False", "FALSE", "no", "No", "off", "Off", NULL };

	for (int i = 0; t[i]; i++)
		if (strcmp(s, t[i]) == 0)
			return 1;
	for (int i = 0; f[i]; i++)
		if (strcmp(s, f[i]) == 0)
			return 0;
	return -1;
}

static void at_error(const struct dlio *d, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void at_error(const struct dlio *d, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cli_error("%s:%zu: %s", d->path, n->start_mark.line + 1, msg);
}

static int add_unknown(struct dlio *d, const char *name)
{
	size_t n = strlen(name);
	char *u = realloc(d->unknown, d->unknown_len + n + 3);

	if (!u)
		return -ENOMEM;
	d->unknown = u;
	if (d->unknown_len) {
		memcpy(u + d->unknown_len, ", ", 2);
		d->unknown_len += 2;
	}
	memcpy(u + d->unknown_len, name, n + 1);
	d->unknown_len += n;
	return 0;
}

/* One scalar DLIO key: 0, -EINVAL after an error line, -ENOMEM. */
static int dlio_scalar(struct dlio *d, const char *name, const yaml_node_t *n)
{
	const struct dlio_key *m;
	const char *v = (const char *)n->data.scalar.value;
	char buf[64], note[640], why[128];
	double x;
	int b;

	if (strcmp(name, "workflow.train") == 0 || strcmp(name, "workflow.checkpoint") == 0) {
		if ((b = yaml_bool(v)) < 0) {
			at_error(d, n, "%s: '%s' is not True or False", name, v);
			return -EINVAL;
		}
		*(name[9] == 't' ? &d->train : &d->checkpoint) = b;
		return 0;
	}
	for (m = dlio_map; m->dlio && strcmp(m->dlio, name) != 0; m++)
		;
	if (!m->dlio)
		return add_unknown(d, name);
	snprintf(note, sizeof(note), "DLIO %s", name);
	switch (m->conv) {
	case DC_COPY:
		break;
	case DC_ROUND:
		if (cm_parse_double(v, 0, 1e18, &x) < 0) {
			at_error(d, n, "%s: '%s' is not a size in bytes (a number >= 0)", name, v);
			return -EINVAL;
		}
		snprintf(buf, sizeof(buf), "%.0f", round(x));
		if (strcmp(buf, v) != 0)
			snprintf(note, sizeof(note), "DLIO %s: %s", name, v);
		v = buf;
		break;
	case DC_SHUFFLE:
		if ((b = yaml_bool(v)) < 0)
			b = strcmp(v, "seed") == 0 || strcmp(v, "random") == 0 ? 1 : -1;
		if (b < 0) {
			at_error(d, n, "%s: '%s' is not off, seed or random", name, v);
			return -EINVAL;
		}
		snprintf(note, sizeof(note), "DLIO %s: %s", name, v);
		v = b ? "on" : "off";
		break;
	case DC_BOOL:
		if ((b = yaml_bool(v)) < 0) {
			at_error(d, n, "%s: '%s' is not True or False", name, v);
			return -EINVAL;
		}
		v = b ? "on" : "off";
		break;
	case DC_SUFFIX:
		snprintf(buf, sizeof(buf), ".%s", v);
		snprintf(note, sizeof(note), "DLIO %s: %s", name, v);
		v = buf;
		break;
	case DC_THREADS:
		if (strcmp(v, "0") == 0) {
			snprintf(note, sizeof(note), "DLIO %s: 0 (the main process reads)", name);
			v = "1";
		}
		break;
	}
	if (cm_job_check(m->key, v, why, sizeof(why)) < 0) {
		at_error(d, n, "%s: '%s' is %s", name, (const char *)n->data.scalar.value, why);
		return -EINVAL;
	}
	return cm_job_set(d->job, m->key, v, note);
}

/* The keys of mapping node n, prefix "section" ("" at the top). */
static int dlio_mapping(struct dlio *d, yaml_document_t *doc, const yaml_node_t *n,
			const char *prefix)
{
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		char name[256];
		int err;

		if (!k || !v || k->type != YAML_SCALAR_NODE) {
			at_error(d, k ? k : n, "a key that is not a word");
			return -EINVAL;
		}
		snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "",
			 (const char *)k->data.scalar.value);
		if (v->type == YAML_SCALAR_NODE)
			err = dlio_scalar(d, name, v);
		else if (v->type == YAML_MAPPING_NODE && !*prefix)
			err = dlio_mapping(d, doc, v, name);
		else	/* a list, or deeper: nothing of ours */
			err = add_unknown(d, name);
		if (err)
			return err;
	}
	return 0;
}

/* Read the DLIO YAML at path into job: 0, or EXIT_USAGE / EXIT_FAIL after
 * an error line. */
static int dlio_read(const char *path, struct cm_job *job)
{
	struct dlio d = { .path = path, .job = job, .train = -1, .checkpoint = -1 };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	FILE *f = fopen(path, "r");
	int ret = EXIT_USAGE, err, k;

	if (!f) {
		cli_error("%s: %s", path, strerror(errno));
		return EXIT_FAIL;
	}
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		cli_error("%s:%zu: %s%s%s", path, parser.problem_mark.line + 1,
			  parser.problem ? parser.problem : "not YAML",
			  parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		fclose(f);
		return EXIT_USAGE;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		cli_error("%s:%zu: not a DLIO workload (a mapping of sections)", path,
			  root ? root->start_mark.line + 1 : 1);
		goto out;
	}
	if ((err = dlio_mapping(&d, &doc, root, "")) < 0) {
		if (err == -ENOMEM) {
			cli_error("out of memory");
			ret = EXIT_FAIL;
		}
		goto out;
	}
	/* workflow.train: False: a checkpoint-only job (no data set) */
	if (d.train == 0 && cm_job_set(job, CM_JOB_K_NUM_FILES, "0",
				       "DLIO workflow.train: False: checkpoints only") < 0)
		goto nomem;
	/* without workflow.checkpoint: True, DLIO writes no checkpoint */
	if (d.checkpoint != 1) {
		int any = 0;

		for (k = CM_JOB_K_CKPT_FOLDER; k <= CM_JOB_K_CKPT_READ_BACK; k++) {
			any |= job->val[k] != NULL;
			cm_job_set(job, k, NULL, NULL);
		}
		if (any && add_unknown(&d, "checkpoint.* (workflow.checkpoint is not True)") < 0)
			goto nomem;
	}
	{
		char hdr[4200];
		snprintf(hdr, sizeof(hdr), "from the DLIO workload %s", path);
		if (cm_job_set_header(job, hdr) < 0)
			goto nomem;
	}
	if (d.unknown)
		fprintf(stderr, "iotape model: warning: %s: keys with no meaning in a job file, "
			"left out: %s\n", path, d.unknown);
	ret = EXIT_OK;
	goto out;
nomem:
	cli_error("out of memory");
	ret = EXIT_FAIL;
out:
	free(d.unknown);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);
	return ret;
}

/* ----------------------------------------------------------------- trace */

/* The job of the trace at path (ana_model): EXIT_OK, or EXIT_FAIL after
 * one error line (cli.h: `iotape export --format fio-job` uses it too). */
int model_trace_job(const char *path, struct cm_job *job)
{
	struct ana_opts o = { .to_ns = UINT64_MAX, .top = -1, .threads = 2,
			      .replayed_io = 1, .no_train = 1 };
	struct ana a;
	int err;

	memset(&a, 0, sizeof(a));
	err = ana_run(&a, path, &o);
	if (!err) {
		/* a job derived from part of a trace would be wrong (epochs,
		 * files, steps): a damaged trace is an error here */
		const char *why = tape_reader_recovered(a.r);

		for (int t = 1; t < TAPE_TABLE_MAX && !why; t++)
			if (a.damage[t])
				why = a.damage_detail[t];
		if (why) {
			cli_error("%s: damaged trace (%s): no job derived from a part of it",
				  path, why);
			ana_release(&a);
			return EXIT_FAIL;
		}
		err = ana_model(&a, job);
	}
	if (err == -ENOMEM)
		cli_error("%s: out of memory", path);
	else if (err)
		cli_tape_error(path, err);
	ana_release(&a);
	return err ? EXIT_FAIL : EXIT_OK;
}

/* ---------------------------------------------------------------- output */

/* Write buf (freed here) to out (stdout when NULL): EXIT_OK or EXIT_FAIL
 * after one error line; a file is created only here, whole or not at all. */
static int output_buf(char *buf, size_t len, const char *out, int force)
{
	int fd, ret = EXIT_FAIL;

	if (!out) {
		fwrite(buf, 1, len, stdout);
		free(buf);
		return EXIT_OK;
	}
	fd = open(out, O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL), 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			cli_output_refused(out, 0);
		else
			cli_error("%s: %s", out, strerror(errno));
		free(buf);
		return EXIT_FAIL;
	}
	if (write(fd, buf, len) != (ssize_t)len || close(fd) != 0) {
		cli_error("%s: %s", out, strerror(errno ? errno : EIO));
		unlink(out);
	} else {
		ret = EXIT_OK;
	}
	free(buf);
	return ret;
}

/* Write job to out (stdout when NULL), as output_buf. */
static int model_output(const struct cm_job *job, const char *out, int force)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m || cm_job_write(m, job) < 0 || fclose(m) != 0) {
		cli_error("out of memory");
		free(buf);
		return EXIT_FAIL;
	}
	return output_buf(buf, len, out, force);
}

/* The fio job file of j to f (cli.h): EXIT_OK, or after one error line
 * EXIT_USAGE for a job fio cannot run, EXIT_FAIL. */
static int fio_write_spec(FILE *f, const struct rp_jobspec *j, const char *what)
{
	char err[1024];
	int rc = rp_fio_write(f, j, err, sizeof(err));

	if (rc)
		cli_error("%s: %s", what, err);
	return !rc ? EXIT_OK : rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
}

int model_fio_write(FILE *f, const struct cm_job *job, const char *what)
{
	struct rp_jobspec j;
	char err[1024];
	int rc = rp_jobspec_model(&j, job, what, err, sizeof(err));

	if (rc) {
		cli_error("%s", err);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	return fio_write_spec(f, &j, what);
}

/* --fio: the fio job file of job, or of the job file at path when job is
 * NULL (what: the source, for messages), as output_buf (exit 2 for a job
 * that cannot be written). */
static int model_fio(const struct cm_job *job, const char *path, const char *what,
		     const struct model_cfg *cfg)
{
	struct rp_jobspec j;
	char err[1024], *buf = NULL;
	size_t len = 0;
	FILE *m;
	int rc, ret;

	if (!job) {
		rc = rp_jobspec_parse(&j, path, err, sizeof(err));
		if (!rc)
			rc = rp_jobspec_check(&j, path, err, sizeof(err));
		if (rc) {
			cli_error("%s", err);
			return rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
		}
	}
	if (!(m = open_memstream(&buf, &len))) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	ret = job ? model_fio_write(m, job, what) : fio_write_spec(m, &j, what);
	if (fclose(m) != 0 && ret == EXIT_OK) {
		cli_error("out of memory");
		ret = EXIT_FAIL;
	}
	if (ret != EXIT_OK) {
		free(buf);
		return ret;
	}
	return output_buf(buf, len, cfg->out, cfg->force);
}

static int dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return 0;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st; (void)flag; (void)f;
	return remove(path) ? -1 : 0;
}

/* --check: the work directory (--dir, or a temporary one, removed when
 * the checks passed), the model in it (and in -o FILE), model_check(). */
static int check_run(const struct cm_job *job, const char *trace, const struct model_cfg *cfg)
{
	char tmp[PATH_MAX], ini[PATH_MAX];
	const char *dir = cfg->dir;
	int ret;

	if (dir) {
		if (mkdir(dir, 0755) && (errno != EEXIST || !dir_empty(dir))) {
			cli_error("%s: %s", dir, errno == EEXIST ? "not an empty directory" :
				  strerror(errno));
			return EXIT_FAIL;
		}
	} else {
		const char *t = getenv("TMPDIR");

		snprintf(tmp, sizeof(tmp), "%s/iotape-check.XXXXXX", t && *t ? t : "/tmp");
		if (!(dir = mkdtemp(tmp))) {
			cli_error("%s: %s", tmp, strerror(errno));
			return EXIT_FAIL;
		}
	}
	snprintf(ini, sizeof(ini), "%s/model.ini", dir);
	ret = model_output(job, ini, 0);
	if (ret == EXIT_OK && cfg->out)
		ret = model_output(job, cfg->out, cfg->force);
	if (ret == EXIT_OK)
		ret = model_check(trace, dir, ini);
	if (!cfg->dir && ret == EXIT_OK)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	else if (!cfg->dir)
		cli_error("the runs and their reports are kept in %s", dir);
	return ret;
}

int cmd_model(int argc, char **argv)
{
	struct model_cfg cfg = { 0 };
	struct cm_job job = { 0 };
	struct opt_parser p;
	const char *trace;
	char **args;
	int c, n, ret, err;

	opt_init_cfg(&p, &model_cmd, &cfg, argc, argv);
	if ((c = opt_all(&p)) != OPT_END)
		return c == OPT_HELP ? EXIT_OK : EXIT_USAGE;
	args = opt_args(&p, &n);
	if (n > 1) {
		opt_error(&model_cmd, "unexpected argument '%s'", args[1]);
		return EXIT_USAGE;
	}
	trace = n ? args[0] : NULL;
	if (!!trace + !!cfg.preset + !!cfg.dlio + !!cfg.list != 1) {
		opt_error(&model_cmd, "give one of --preset, --from-dlio, --list or a TRACE");
		return EXIT_USAGE;
	}
	if (cfg.list) {
		const char *name, *summary;

		for (size_t i = 0; (name = cm_job_preset_name(i, &summary)); i++)
			printf("%-10s %s\n", name, summary);
		return EXIT_OK;
	}
	if ((cfg.check || cfg.dir) && !trace) {
		opt_error(&model_cmd, "--check and --dir need a TRACE");
		return EXIT_USAGE;
	}
	if (cfg.dir && !cfg.check) {
		opt_error(&model_cmd, "--dir goes with --check");
		return EXIT_USAGE;
	}
	if (cfg.check && cfg.fio) {
		opt_error(&model_cmd, "--check and --fio do not go together");
		return EXIT_USAGE;
	}
	if (cfg.out && cli_output_refused(cfg.out, cfg.force))
		return EXIT_FAIL;
	if (cfg.fio && trace && rp_job_sniff(trace))
		return model_fio(NULL, trace, trace, &cfg);
	if (trace) {
		if ((ret = model_trace_job(trace, &job)) != EXIT_OK) {
			cm_job_release(&job);
			return ret;
		}
	} else if (cfg.preset) {
		err = cm_job_preset(&job, cfg.preset, cfg.a100 ? CM_JOB_A100 : CM_JOB_H100);
		if (err == -ENOENT) {
			opt_error(&model_cmd, "no preset '%s' (see --list)", cfg.preset);
			return EXIT_USAGE;
		}
		if (err < 0) {
			cli_error("out of memory");
			cm_job_release(&job);
			return EXIT_FAIL;
		}
	} else if ((ret = dlio_read(cfg.dlio, &job)) != EXIT_OK) {
		cm_job_release(&job);
		return ret;
	}
	if (cfg.check)
		ret = check_run(&job, trace, &cfg);
	else if (cfg.fio)
		ret = model_fio(&job, NULL, trace ? trace : cfg.preset ? cfg.preset : cfg.dlio, &cfg);
	else
		ret = model_output(&job, cfg.out, cfg.force);
	cm_job_release(&job);
	return ret;
}
