/* SPDX-License-Identifier: MIT */
/*
 * exp_fio.c - the exporters for fio:
 *
 *   fio-iolog  fio iologs, version 3, one per process or thread, and a job
 *              file that runs them all, in a directory (replay/rp_iolog.c
 *              writes the logs, naming the files where `iotape replay
 *              --prepare-only -d DIR` puts them)
 *   fio-job    an fio job file approximating the job: the model the
 *              analysis derives (ana_model), written as `iotape model
 *              --fio` writes it (replay/rp_fio.c)
 *
 * The directory is made under a temporary name next to it and renamed
 * when complete, so a failed export leaves nothing behind; an existing
 * one is replaced only with o->force, and only when it holds nothing but
 * an earlier export's files.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "analyze.h"
#include "export.h"
#include "job.h"
#include "replay.h"
#include "trace.h"

/* ----------------------------------------------------------------- fio-job */

int exp_trace_job(const char *path, struct cm_job *job, struct exp_diag *d)
{
	struct ana_opts o = { .to_ns = UINT64_MAX, .top = -1, .threads = 2,
			      .replayed_io = 1 };
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
			snprintf(d->msg, sizeof(d->msg), "%s: damaged trace (%s): no job derived "
				 "from a part of it", path, why);
			ana_release(&a);
			return -EINVAL;
		}
		err = ana_model(&a, job);
	}
	if (err == -ENOMEM)
		snprintf(d->msg, sizeof(d->msg), "%s: out of memory", path);
	else if (err)
		cm_trace_error(d->msg, sizeof(d->msg), path, err);
	ana_release(&a);
	return err;
}

int exp_fio_job_write(FILE *f, const struct cm_job *job, const char *what,
		      struct exp_diag *d)
{
	struct rp_jobspec j;
	char err[1024];
	int rc = rp_jobspec_model(&j, job, what, err, sizeof(err));

	if (rc) {
		snprintf(d->msg, sizeof(d->msg), "%s", err);
		d->usage = rc == -EINVAL;
		return rc;
	}
	if ((rc = rp_fio_write(f, &j, err, sizeof(err)))) {
		snprintf(d->msg, sizeof(d->msg), "%s: %s", what, err);
		d->usage = rc == -EINVAL;
	}
	return rc;
}

static int job_write(const struct exp_io *io, const struct exp_opts *o, struct exp_diag *d)
{
	struct cm_job job = { 0 };
	int rc = exp_trace_job(io->trace, &job, d);

	if (!rc)
		rc = exp_fio_job_write(io->f, &job, io->trace, d);
	cm_job_release(&job);
	return rc;
}

const struct exporter exp_fio_job = {
	"fio-job", "an fio job file approximating the job (`iotape model --fio`)", 0, job_write,
};

/* --------------------------------------------------------------- fio-iolog */

/* The logs go to files in a temporary directory. */
struct iolog_out {
	char tmp[2 * PATH_MAX + 16];	/* the temporary directory */
	char final[2 * PATH_MAX + 2];	/* the absolute path it is renamed to */
	char dir[PATH_MAX];		/* the prepared directory, absolute */
	FILE *job;			/* its replay.fio */
	int per_thread;
};

static FILE *iolog_open(void *arg, uint32_t pid, uint32_t tid, int *err)
{
	struct iolog_out *o = arg;
	char name[64], path[sizeof(o->tmp) + sizeof(name)];
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
 * 0, or -errno with d->msg. */
static int iolog_remove(const char *dir, struct exp_diag *d)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	int bad = 0, err;

	if (!dp) {
		err = -errno;
		snprintf(d->msg, sizeof(d->msg), "%s: %s", dir, strerror(-err));
		return err;
	}
	while ((e = readdir(dp))) {
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
	closedir(dp);
	if (bad || rmdir(dir)) {
		snprintf(d->msg, sizeof(d->msg), "%s: not an export of fio-iolog (holds other "
			 "files): not replaced", dir);
		return -ENOTEMPTY;
	}
	return 0;
}

/* The absolute paths, the temporary directory and its replay.fio's
 * header: 0, or -errno with d->msg (nothing left behind). */
static int iolog_setup(struct iolog_out *io, const struct exp_io *x, const struct exp_opts *o,
		       struct exp_diag *d)
{
	char parent[PATH_MAX], job[2 * PATH_MAX + 32], *copy;
	int err;

	/* absolute paths: fio may run elsewhere */
	if (!realpath(o->dir, io->dir)) {
		err = -errno;
		snprintf(d->msg, sizeof(d->msg), "%s: %s (prepare it with iotape replay "
			 "--prepare-only -d %s %s)", o->dir, strerror(-err), o->dir, x->trace);
		return err;
	}
	if (!(copy = strdup(x->out))) {
		snprintf(d->msg, sizeof(d->msg), "out of memory");
		return -ENOMEM;
	}
	if (!realpath(dirname(copy), parent)) {
		err = -errno;
		snprintf(d->msg, sizeof(d->msg), "%s: %s", x->out, strerror(-err));
		free(copy);
		return err;
	}
	strcpy(copy, x->out);
	snprintf(io->final, sizeof(io->final), "%s/%s", parent, basename(copy));
	free(copy);
	snprintf(io->tmp, sizeof(io->tmp), "%s.tmp.XXXXXX", io->final);
	if (!mkdtemp(io->tmp)) {
		err = -errno;
		snprintf(d->msg, sizeof(d->msg), "%s: %s", x->out, strerror(-err));
		return err;
	}
	snprintf(job, sizeof(job), "%s/replay.fio", io->tmp);
	if (!(io->job = fopen(job, "w"))) {
		err = -errno;
		snprintf(d->msg, sizeof(d->msg), "%s: %s", job, strerror(-err));
		rmdir(io->tmp);
		return err;
	}
	fprintf(io->job, "; iotape export --format fio-iolog: the I/O of %s, one fio job per %s,\n"
		"; each replaying its iolog (version 3) with the recorded timing.  The files\n"
		"; are under %s, where `iotape replay --prepare-only -d %s` made them.\n"
		"; Run: fio %s/replay.fio  (add --replay_no_stall=1 for as fast as fio can)\n"
		"[global]\nioengine=psync\n", x->trace, o->per_thread ? "thread" : "process",
		io->dir, io->dir, io->final);
	return 0;
}

static void iolog_summary(const struct rp_iolog_stats *st, struct exp_diag *d)
{
	snprintf(d->summary, sizeof(d->summary), "%" PRIu64 " logs: %" PRIu64 " reads (%" PRIu64
		 " B), %" PRIu64 " writes (%" PRIu64 " B), %" PRIu64 " syncs, %" PRIu64 " opens; "
		 "left out: %" PRIu64 " ops on what the replay does not make, %" PRIu64
		 " on names fio cannot read (%" PRIu64 " B)", st->logs, st->reads,
		 st->read_bytes, st->writes, st->write_bytes, st->syncs, st->opens,
		 st->skipped_ops, st->unnamed_ops, st->skipped_bytes);
}

static int iolog_write(const struct exp_io *x, const struct exp_opts *o, struct exp_diag *d)
{
	struct rp_iolog_opts ro = { .per_thread = o->per_thread };
	struct rp_iolog_stats st;
	struct iolog_out io = { .per_thread = o->per_thread };
	struct exp_diag scratch;
	char err[512];
	struct stat sb;
	int rc, ok;

	if ((rc = iolog_setup(&io, x, o, d)))
		return rc;
	ro.dir = io.dir;
	ro.open = iolog_open;
	ro.close = iolog_close;
	ro.arg = &io;
	rc = rp_iolog_write(x->trace, &ro, &st, err, sizeof(err));
	ok = !(ferror(io.job) | fclose(io.job));
	if (rc < 0) {
		snprintf(d->msg, sizeof(d->msg), "%s: %s", x->trace, err);
	} else if (!ok) {
		rc = -(errno ? errno : EIO);
		snprintf(d->msg, sizeof(d->msg), "%s: write error: %s", x->out, strerror(-rc));
	} else if (!st.logs) {
		rc = -ENODATA;
		snprintf(d->msg, sizeof(d->msg), "%s: no reads or writes of files the replay "
			 "prepares: no log", x->trace);
	} else if (lstat(io.final, &sb) == 0 && o->force && (rc = iolog_remove(io.final, d))) {
		;
	} else if (rename(io.tmp, io.final)) {
		rc = -errno;
		snprintf(d->msg, sizeof(d->msg), "%s: %s", x->out, -rc == EEXIST ||
			 -rc == ENOTEMPTY ? "exists (use -f to replace it)" : strerror(-rc));
	} else {
		iolog_summary(&st, d);
		return 0;
	}
	iolog_remove(io.tmp, &scratch);
	return rc;
}

const struct exporter exp_fio_iolog = {
	"fio-iolog", "fio iologs (version 3), one a process or thread, and a job file running "
	"them", EXP_NEEDS_DIR | EXP_WRITES_DIR, iolog_write,
};
