/* SPDX-License-Identifier: MIT */
/*
 * cmd_export.c - `iotape export`: a trace in the formats other tools read
 * (iotape-export(1)).
 *
 *   perfetto   Chrome trace-event JSON (analyze/ana_perfetto.c)
 *   fio-iolog  fio iologs, version 3, one per process or thread, and a job
 *              file that runs them all (replay/rp_iolog.c)
 *   fio-job    an fio job file approximating the job: the model `iotape
 *              model` derives, written as `iotape model --fio` writes it
 *
 * Output goes to stdout or -o: a file (a directory for fio-iolog) made
 * under a temporary name next to it and renamed when complete, so a
 * failed export leaves nothing behind; an existing one is refused unless
 * -f.  Row formats (CSV, JSON lines) are `iotape dump`'s.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "analyze.h"
#include "cli.h"
#include "job.h"
#include "opt.h"
#include "replay.h"
#include "tape.h"

enum { FMT_PERFETTO, FMT_IOLOG, FMT_JOB };	/* order of the choices */

struct export_cfg {
	int fmt, per_thread, force, verbose;
	const char *out, *dir;
	uint64_t interval;
};

static const struct opt export_opts[] = {
	{ 'F', "format", "FORMAT", "what to write", "perfetto|fio-iolog|fio-job", NULL,
	  OPT_REQUIRED },
	{ 'o', "output", "FILE", "write to FILE instead of stdout (fio-iolog: a directory, "
	  "required)", OPT_T_STR(struct export_cfg, out) },
	{ 'f', "force", NULL, "replace FILE if it exists", OPT_T_FLAG(struct export_cfg, force) },
	{ 'd', "dir", "DIR", "fio-iolog: the directory `iotape replay --prepare-only -d DIR` "
	  "prepared (required)", OPT_T_STR(struct export_cfg, dir) },
	{ OPT_LONG(1), "per", "WHAT", "fio-iolog: one log per process or per thread",
	  "process|thread", "process", OPT_T_CHOICE(struct export_cfg, per_thread) },
	{ OPT_LONG(2), "interval", "TIME", "perfetto: counter interval (0: about 1/1000 of the "
	  "trace, at least 1ms)", NULL, "0", OPT_T_DURATION(struct export_cfg, interval, 0,
							    CM_OPT_NOMAX) },
	{ 'v', "verbose", NULL, "say on stderr what was written and left out",
	  OPT_T_FLAG(struct export_cfg, verbose) },
	{ 0 }
};

const struct opt_cmd export_cmd = {
	"export", "TRACE", "Write a trace in a format other tools read.",
	"perfetto: Chrome trace-event JSON for ui.perfetto.dev and chrome://tracing.\n"
	"fio-iolog: fio iologs (version 3) and a job file running them, under -o DIR,\n"
	"naming the files under -d DIR where 'iotape replay --prepare-only' puts them.\n"
	"fio-job: an fio job file approximating the job ('iotape model --fio').\n"
	"Rows for pandas or DuckDB: 'iotape dump --format csv|jsonl'.",
	export_opts,
};

/* ---------------------------------------------------------------- output */

/* A temporary file next to out, open for writing: 0, or EXIT_FAIL after
 * one error line.  tmp gets its name. */
static int tmp_create(const char *out, char *tmp, size_t len, FILE **f)
{
	int fd;

	snprintf(tmp, len, "%s.tmp.XXXXXX", out);
	if ((fd = mkstemp(tmp)) < 0) {
		cli_error("%s: %s", out, strerror(errno));
		return EXIT_FAIL;
	}
	if (fchmod(fd, 0644) || !(*f = fdopen(fd, "w"))) {
		cli_error("%s: %s", out, strerror(errno));
		close(fd);
		unlink(tmp);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Close f (stdout: flush) and rename tmp over out when ok; on failure
 * remove tmp.  EXIT_OK, or EXIT_FAIL (after one error line when ok). */
static int tmp_finish(FILE *f, const char *out, const char *tmp, int ok)
{
	int bad;

	if (f == stdout)
		return ok ? EXIT_OK : EXIT_FAIL;	/* main() checks stdout */
	bad = ferror(f) | fclose(f);
	if (ok && bad)
		cli_error("%s: write error: %s", out, strerror(errno ? errno : EIO));
	else if (ok && rename(tmp, out))
		cli_error("%s: %s", out, strerror(errno));
	else if (ok)
		return EXIT_OK;
	unlink(tmp);
	return EXIT_FAIL;
}

/* ---------------------------------------------------------------- formats */

static int export_perfetto(const char *trace, const struct export_cfg *cfg, FILE *f)
{
	struct ana_perfetto_opts o = { .bucket_ns = cfg->interval };
	struct ana_perfetto_stats st;
	tape_reader *r;
	int err = tape_reader_open(&r, trace);

	if (err < 0) {
		cli_tape_error(trace, err);
		return EXIT_FAIL;
	}
	if (tape_reader_recovered(r))
		cli_error("warning: %s: index rebuilt by scanning (%s), %" PRIu64
			  " trailing bytes ignored", trace, tape_reader_recovered(r),
			  tape_reader_trailing_bytes(r));
	err = ana_perfetto_write(f, r, trace, &o, &st);
	if (err == -ENOMEM) {
		cli_error("out of memory");
	} else if (err && st.bad_table) {
		char what[PATH_MAX + 32];

		snprintf(what, sizeof(what), "%s: table %s", trace, tape_table_name(st.bad_table));
		cli_tape_error(what, err);
	} else if (err) {
		cli_error("%s: write error: %s", cfg->out ? cfg->out : "stdout", strerror(-err));
	} else if (cfg->verbose) {
		cli_error("%" PRIu64 " syscalls, %" PRIu64 " block requests, %" PRIu64
			  " counter values (every %" PRIu64 " ns), %" PRIu64 " tracks; "
			  "read %" PRIu64 " B, written %" PRIu64 " B", st.syscalls, st.blocks,
			  st.counters, st.bucket_ns, st.tracks, st.read_bytes, st.write_bytes);
	}
	tape_reader_free(r);
	return err ? EXIT_FAIL : EXIT_OK;
}

static int export_job(const char *trace, FILE *f)
{
	struct cm_job job = { 0 };
	int ret = model_trace_job(trace, &job);

	if (ret == EXIT_OK)
		ret = model_fio_write(f, &job, trace);
	cm_job_release(&job);
	return ret;
}

/* fio-iolog: the logs go to files in a temporary directory */
struct iolog_out {
	const char *tmp;	/* the temporary directory */
	const char *final;	/* the absolute path it is renamed to */
	FILE *job;		/* its replay.fio */
	int per_thread;
};

static FILE *iolog_open(void *arg, uint32_t pid, uint32_t tid, int *err)
{
	struct iolog_out *o = arg;
	char name[64], path[PATH_MAX];
	FILE *f;

	if (o->per_thread)
		snprintf(name, sizeof(name), "%" PRIu32 "-%" PRIu32 ".iolog", pid, tid);
	else
		snprintf(name, sizeof(name), "%" PRIu32 ".iolog", pid);
	snprintf(path, sizeof(path), "%s/%s", o->tmp, name);
	if (!(f = fopen(path, "wx"))) {
		*err = -errno;
		return NULL;
	}
	fprintf(o->job, "\n[%.*s]\nread_iolog=%s/%s\n", (int)(strlen(name) - 6), name, o->final, name);
	return f;
}

static int iolog_close(void *arg, FILE *f)
{
	(void)arg;
	return ferror(f) | fclose(f);
}

/* Remove dir, an earlier export (only *.iolog files and replay.fio):
 * 0, or -1 after one error line. */
static int iolog_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	int bad = 0;

	if (!d) {
		cli_error("%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (strcmp(e->d_name, "replay.fio") &&
		    (n < 6 || strcmp(e->d_name + n - 6, ".iolog"))) {
			bad = 1;
			break;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	if (bad || rmdir(dir)) {
		cli_error("%s: not an export of fio-iolog (holds other files): not replaced", dir);
		return -1;
	}
	return 0;
}

static int export_iolog(const char *trace, const struct export_cfg *cfg)
{
	struct rp_iolog_opts o = { .per_thread = cfg->per_thread };
	struct rp_iolog_stats st;
	struct iolog_out io = { .per_thread = cfg->per_thread };
	char dir[PATH_MAX], parent[PATH_MAX], final[2 * PATH_MAX + 2], tmp[2 * PATH_MAX + 16];
	char job[2 * PATH_MAX + 32], err[512];
	char *copy, *base;
	struct stat sb;
	int rc, ok;

	/* absolute paths: fio may run elsewhere */
	if (!realpath(cfg->dir, dir)) {
		cli_error("%s: %s (prepare it with iotape replay --prepare-only -d %s %s)",
			  cfg->dir, strerror(errno), cfg->dir, trace);
		return EXIT_FAIL;
	}
	if (!(copy = strdup(cfg->out))) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	if (!realpath(dirname(copy), parent)) {
		cli_error("%s: %s", cfg->out, strerror(errno));
		free(copy);
		return EXIT_FAIL;
	}
	strcpy(copy, cfg->out);
	base = basename(copy);
	snprintf(final, sizeof(final), "%s/%s", parent, base);
	free(copy);
	snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", final);
	if (!mkdtemp(tmp)) {
		cli_error("%s: %s", cfg->out, strerror(errno));
		return EXIT_FAIL;
	}
	io.tmp = tmp;
	io.final = final;
	snprintf(job, sizeof(job), "%s/replay.fio", tmp);
	if (!(io.job = fopen(job, "w"))) {
		cli_error("%s: %s", job, strerror(errno));
		rmdir(tmp);
		return EXIT_FAIL;
	}
	fprintf(io.job, "; iotape export --format fio-iolog: the I/O of %s, one fio job per %s,\n"
		"; each replaying its iolog (version 3) with the recorded timing.  The files\n"
		"; are under %s, where `iotape replay --prepare-only -d %s` made them.\n"
		"; Run: fio %s/replay.fio  (add --replay_no_stall=1 for as fast as fio can)\n"
		"[global]\nioengine=psync\n", trace, cfg->per_thread ? "thread" : "process",
		dir, dir, final);
	o.dir = dir;
	o.open = iolog_open;
	o.close = iolog_close;
	o.arg = &io;
	rc = rp_iolog_write(trace, &o, &st, err, sizeof(err));
	ok = !(ferror(io.job) | fclose(io.job));
	if (rc < 0)
		cli_error("%s: %s", trace, err);
	else if (!ok)
		cli_error("%s: write error: %s", cfg->out, strerror(errno ? errno : EIO));
	else if (!st.logs)
		cli_error("%s: no reads or writes of files the replay prepares: no log", trace);
	else if (lstat(final, &sb) == 0 && cfg->force && iolog_remove(final))
		;
	else if (rename(tmp, final))
		cli_error("%s: %s", cfg->out, errno == EEXIST || errno == ENOTEMPTY ?
			  "exists (use -f to replace it)" : strerror(errno));
	else {
		if (cfg->verbose)
			cli_error("%" PRIu64 " logs: %" PRIu64 " reads (%" PRIu64 " B), %" PRIu64
				  " writes (%" PRIu64 " B), %" PRIu64 " syncs, %" PRIu64 " opens; left out: "
				  "%" PRIu64 " ops on what the replay does not make, %" PRIu64
				  " on names fio cannot read (%" PRIu64 " B)", st.logs, st.reads,
				  st.read_bytes, st.writes, st.write_bytes, st.syncs, st.opens,
				  st.skipped_ops, st.unnamed_ops, st.skipped_bytes);
		return EXIT_OK;
	}
	iolog_remove(tmp);
	return EXIT_FAIL;
}

int cmd_export(int argc, char **argv)
{
	struct export_cfg cfg = { 0 };
	struct opt_parser p;
	char tmp[PATH_MAX + 16];
	const char *trace;
	FILE *f = stdout;
	int c, fmt = -1, ret;

	opt_init_cfg(&p, &export_cmd, &cfg, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		if (c == OPT_HELP || c == OPT_ERR)
			return c == OPT_HELP ? EXIT_OK : EXIT_USAGE;
		if (c == 'F')
			fmt = p.choice;
	}
	if (!(trace = opt_one_arg(&p, "TRACE")))
		return EXIT_USAGE;
	if (fmt < 0) {
		opt_error(&export_cmd, "give a --format");
		return EXIT_USAGE;
	}
	if (fmt == FMT_IOLOG && (!cfg.out || !cfg.dir)) {
		opt_error(&export_cmd, "fio-iolog needs -o DIR (the logs) and -d DIR (the "
			  "prepared files)");
		return EXIT_USAGE;
	}
	if (cfg.interval && cfg.interval < 1000) {
		opt_error(&export_cmd, "--interval: at least 1us");
		return EXIT_USAGE;
	}
	if (fmt != FMT_IOLOG && cfg.dir) {
		opt_error(&export_cmd, "--dir goes with --format fio-iolog");
		return EXIT_USAGE;
	}
	if (cfg.out && cli_output_refused(cfg.out, cfg.force))
		return EXIT_FAIL;
	if (fmt == FMT_IOLOG)
		return export_iolog(trace, &cfg);
	if (cfg.out && (ret = tmp_create(cfg.out, tmp, sizeof(tmp), &f)) != EXIT_OK)
		return ret;
	ret = fmt == FMT_PERFETTO ? export_perfetto(trace, &cfg, f) : export_job(trace, f);
	return tmp_finish(f, cfg.out, tmp, ret == EXIT_OK) == EXIT_OK ? EXIT_OK :
	       ret == EXIT_OK ? EXIT_FAIL : ret;
}
