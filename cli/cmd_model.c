/* SPDX-License-Identifier: MIT */
/*
 * cmd_model.c - `iotape model`: write a job file (iotape-model(1)).
 *
 * The sources of a model: a trace (analyze's model), a published MLPerf
 * Storage workload (--preset, common/job.c holds their values and
 * sources), or a DLIO workload YAML (--from-dlio: model_dlio.c reads it,
 * replay/rp_dlio.c makes the job DLIO runs of it, one warning line per key
 * it cannot honour).  A value of the wrong type is one error line with
 * FILE:LINE and exit 2; nothing is written then.
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
#include "analyze.h"
#include "cli.h"
#include "export.h"
#include "job.h"
#include "opt.h"
#include "parse.h"
#include "replay.h"

struct model_cfg {
	const char *preset, *dlio, *out, *dir;
	int a100, list, force, check, fio, rules;
	unsigned ranks;
};

static const struct opt model_opts[] = {
	{ 'p', "preset", "NAME", "an MLPerf Storage workload (see --list)",
	  OPT_T_STR(struct model_cfg, preset) },
	{ 'a', "accelerator", "ACCEL", "accelerator of the preset's computation_time",
	  "h100|a100", "h100", OPT_T_CHOICE(struct model_cfg, a100) },
	{ 'd', "from-dlio", "YAML", "the job a DLIO workload YAML runs, as DLIO runs it",
	  OPT_T_STR(struct model_cfg, dlio) },
	{ 'r', "ranks", "N", "--from-dlio: the ranks DLIO runs it on (mpirun -np N; 0: its "
	  "model-parallel group, 1 for most)", NULL, "0",
	  OPT_T_UINT(struct model_cfg, ranks, 0, 1048576) },
	{ 'l', "list", NULL, "list the presets", OPT_T_FLAG(struct model_cfg, list) },
	{ OPT_LONG(3), "check-rules", NULL, "print the MLPerf Storage rules' figures against "
	  "the presets' (exit 1 where one differs)", OPT_T_FLAG(struct model_cfg, rules) },
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

/* ----------------------------------------------------------------- trace */

/* The job of the trace at path (exp_trace_job): EXIT_OK, or EXIT_FAIL
 * after one error line. */
static int model_trace_job(const char *path, struct cm_job *job)
{
	struct exp_diag d = { 0 };

	if (exp_trace_job(path, job, &d) < 0) {
		cli_error("%s", d.msg);
		return EXIT_FAIL;
	}
	return EXIT_OK;
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

/* The fio job file of j to f: EXIT_OK, or after one error line
 * EXIT_USAGE for a job fio cannot run, EXIT_FAIL. */
static int fio_write_spec(FILE *f, const struct rp_jobspec *j, const char *what)
{
	char err[1024];
	int rc = rp_fio_write(f, j, err, sizeof(err));

	if (rc)
		cli_error("%s: %s", what, err);
	return !rc ? EXIT_OK : rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
}

/* The fio job file of job to f (exp_fio_job_write), as fio_write_spec. */
static int model_fio_write(FILE *f, const struct cm_job *job, const char *what)
{
	struct exp_diag d = { 0 };

	if (exp_fio_job_write(f, job, what, &d) < 0) {
		cli_error("%s", d.msg);
		return d.usage ? EXIT_USAGE : EXIT_FAIL;
	}
	return EXIT_OK;
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

/* --check-rules: a line per figure of the rules, the preset's beside it. */
static int check_rules(FILE *f)
{
	struct rp_dlio_rule r[64];
	size_t n, w = 0;
	int bad = 0;

	if (rp_dlio_rules(r, 64, &n)) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < n; i++)
		if (strlen(r[i].what) > w)
			w = strlen(r[i].what);
	(void)w;
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s%-12s %s\n  rule: %s (%s)\n  job:  %s  [%s]\n", i ? "\n" : "",
			r[i].preset, r[i].what, r[i].rule, r[i].source, r[i].job,
			r[i].ok == 1 ? "agrees" : r[i].ok == 2 ? "differs: the YAML's, see the rule" :
			"DIFFERS");
		bad |= !r[i].ok;
	}
	return bad ? EXIT_FAIL : EXIT_OK;
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
	if (!!trace + !!cfg.preset + !!cfg.dlio + !!cfg.list + !!cfg.rules != 1) {
		opt_error(&model_cmd, "give one of --preset, --from-dlio, --list, --check-rules or "
			  "a TRACE");
		return EXIT_USAGE;
	}
	if (cfg.rules)
		return check_rules(stdout);
	if (cfg.list) {
		const char *name, *summary;

		for (size_t i = 0; (name = rp_dlio_preset_name(i, &summary)); i++)
			printf("%-12s %s\n", name, summary);
		return EXIT_OK;
	}
	if ((cfg.check || cfg.dir) && !trace) {
		opt_error(&model_cmd, "--check and --dir need a TRACE");
		return EXIT_USAGE;
	}
	if (cfg.ranks && !cfg.dlio) {
		opt_error(&model_cmd, "--ranks goes with --from-dlio");
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
		err = rp_dlio_preset(&job, cfg.preset, cfg.a100);
		if (err == -ENOENT) {
			opt_error(&model_cmd, "no preset '%s' (see --list)", cfg.preset);
			return EXIT_USAGE;
		}
		if (err < 0) {
			cli_error("out of memory");
			cm_job_release(&job);
			return EXIT_FAIL;
		}
	} else if ((ret = model_dlio_job(cfg.dlio, cfg.ranks, &job)) != EXIT_OK) {
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
