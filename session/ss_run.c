/* SPDX-License-Identifier: MIT */
/*
 * ss_run.c - a replay session's phases: check the options (each
 * scenario its own), open the source, place the files (the scenarios'
 * layout callbacks), open DIR (empty or marked unless --force) and enter
 * the --mem-limit cgroup (before prepare, so the page cache the prepared
 * data fills is charged to it), prepare, optionally drop caches, run the
 * engine with the scenarios' hooks, report (the scenarios' sections).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fmt.h"
#include "rp_mpi.h"
#include "ss_internal.h"

/* read_bytes of /proc/self/io: what the storage delivered to us. */
static uint64_t io_read_bytes(void)
{
	char buf[512], *p;
	int fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strstr(buf, "\nread_bytes: ");
	return p ? strtoull(p + 13, NULL, 10) : 0;
}

int ss_drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "3\n", 2) != 2) {
		int e = errno;
		close(fd);
		return -e;
	}
	return close(fd) ? -errno : 0;
}

int ss_has_ops(const struct rp_layout *l)
{
	for (size_t i = 0; i < l->nthreads; i++)
		if (l->threads[i].nops)
			return 1;
	return 0;
}

/* Open DIR (refusing one that is not empty and not ours) and, with
 * --mem-limit, enter the memory cgroup before prepare, so that the page
 * cache the prepared data fills is charged to it.  The dirfd, or -1
 * after one error line. */
static int setup_dir_as(struct ss_replay *s, const struct rp_report_opts *r, int prep_only,
			int force);

int ss_setup_dir(struct ss_replay *s, const struct rp_report_opts *r, int prep_only)
{
	return setup_dir_as(s, r, prep_only, s->c.force);
}

static int setup_dir_as(struct ss_replay *s, const struct rp_report_opts *r, int prep_only,
			int force)
{
	struct rp_cgroup *cg = &s->cg;
	char err[512];
	int dirfd = rp_dir_open(s->dir, force, err, sizeof(err));

	if (dirfd < 0) {
		ss_error(s, "%s", err);
		return -1;
	}
	if (r->mem_limit && !prep_only && rp_cgroup_enter(cg, r->mem_limit, err, sizeof(err))) {
		ss_error(s, "%s", err);
		close(dirfd);
		return -1;
	}
	return dirfd;
}

/* Create the files the layout reads (with a progress line on a terminal):
 * 0, or -1 after one error line. */
int ss_prepare(struct ss_replay *s, int dirfd, const struct rp_layout *l, unsigned scale)
{
	struct rp_prep_opts po = { .sparse = s->c.sparse, .scale = scale,
				   .progress = s->progress ? s->ui.prep_progress : NULL,
				   .arg = s->ui.arg, .dirfds = s->pl.n > 1 ? s->pl.fd : NULL };
	struct rp_prep_stats ps;
	char err[512];
	int rc;

	rc = rp_prepare(dirfd, l, &po, &ps, err, sizeof(err));
	if (s->progress && s->ui.progress_end)
		s->ui.progress_end(s->ui.arg);
	if (rc)
		ss_error(s, "%s", err);
	return rc ? -1 : 0;
}

/* Bytes of read-only data set files a layout prepares (its own copies,
 * and scale - 1 more). */
static uint64_t dataset_bytes(const struct rp_layout *l, unsigned scale)
{
	uint64_t b = 0;

	/* (a job file's data set made as the run reaches it is not prepared,
	 * and is the data set all the same) */
	for (size_t i = 0; i < l->nfiles; i++)
		if (l->files[i].dataset && !l->files[i].isdir)
			b += l->files[i].size;
	return b * (scale ? scale : 1);
}

/* The memory the replay may use: --mem-limit, else the machine's. */
static uint64_t memory_bytes(const struct rp_report_opts *r)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (r->mem_limit)
		return r->mem_limit;
	return pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;
}

/* Replay src under dirfd into res, with what /proc/self/io and the cgroup
 * say about it (with --mpi: every rank started together, and on rank 0
 * every rank's results): 0, or -1 after one error line. */
int ss_run(struct ss_replay *s, struct rp_source *src, int dirfd, const struct rp_report_opts *r,
	   struct rp_result *res)
{
	struct rp_cgroup *cg = &s->cg;
	struct rp_hooks hooks = { .arg = s->ui.arg, .progress = s->ui.run_progress }, ph;
	int progress = s->progress && s->ui.run_progress;
	struct rp_places *pl;
	struct rp_engine *e;
	char err[512];
	uint64_t rb0;
	int rc;

	if (ss_place_dirs(s, src, dirfd, &pl))	/* where the files are */
		return -1;
	if (rp_engine_init(&e, src, dirfd, &s->c.o, err, sizeof(err))) {
		rp_places_free(pl);
		ss_error(s, "%s", err);
		return -1;
	}
	rp_places_hooks(pl, &ph);
	if (rp_engine_add_hooks(e, &ph) || (progress && rp_engine_add_hooks(e, &hooks))) {
		rp_engine_free(e);
		rp_places_free(pl);
		ss_error(s, "out of memory");
		return -1;
	}
	if (ss_scen_hooks(s, e)) {	/* the scenarios' (their own errors) */
		rp_engine_free(e);
		rp_places_free(pl);
		return -1;
	}
	rb0 = io_read_bytes();
	rc = rp_engine_run(e, err, sizeof(err));
	if (progress && s->ui.progress_end)
		s->ui.progress_end(s->ui.arg);
	if (!rc) {
		rp_engine_finish(e, res);
		if (rp_places_result(pl, res))
			snprintf(err, sizeof(err), "out of memory"), rc = -ENOMEM;
	}
	ss_scen_after(s, res);	/* (on the result finish made) */
	rp_places_free(pl);
	if (rc) {
		ss_error(s, "%s", err);
		rp_engine_free(e);
		return -1;
	}
	rp_engine_free(e);
	if (s->pl.n > 1)
		res->place_names = s->pl.dir;
	if (s->ext.end && s->c.metrics)
		s->ext.end(s->ext.arg, &src->layout, res);
	res->dev_read_bytes = io_read_bytes() - rb0;
	if (cg->entered) {
		rp_cgroup_stats(cg);
		res->cgroup = cg->v2 ? 2 : 1;
		res->mem_peak = cg->peak;
		res->mem_limit_hits = cg->limit_hits;
	}
	res->dataset_bytes = dataset_bytes(&src->layout, s->c.r.scale);
	res->mem_bytes = memory_bytes(r);
	if (s->m.on && (rp_mpi_hook_error(err, sizeof(err)) ||
		     rp_mpi_gather(res, NULL, err, sizeof(err)))) {
		ss_error(s, "--mpi: %s", err);
		return -1;
	}
	return 0;
}

/* Ops that failed in the replay: one line saying how many and the first
 * (unless ignore), and whether there were any. */
static int failures(struct ss_replay *s, const struct rp_layout *l, const struct rp_result *res, int ignore)
{
	const struct rp_failure *first = NULL;
	unsigned kind = 0;
	uint64_t n = 0;

	for (size_t i = 0; i < res->njobs; i++)
		for (unsigned k = 0; k < RP_KIND_MAX; k++) {
			const struct rp_job *j = &res->jobs[i];
			n += j->failed[k];
			if (j->failed[k] && (!first || j->first_fail[k].ts < first->ts)) {
				first = &j->first_fail[k];
				kind = k;
			}
		}
	if (n && !ignore)
		ss_error(s, "%" PRIu64 " ops failed in the replay (the first: %s %s: %s); "
			  "--ignore-errors exits 0", n, kind ? rp_kind_name(kind) : "ring",
			  kind && first->file < l->nfiles ? rp_file_path(l, first->file) : "-",
			  strerror(-first->err));
	return n && !ignore;
}

/*
 * --mpi with one DIR for every rank (no %r: the shared storage MLPerf
 * Storage's clients read one data set from): rank 0 opens DIR (its lock)
 * and prepares the files of all n accelerators, every rank's (their names
 * are apart: .iotape-copy-A, .iotape-acc-A), while the others wait for it
 * (a barrier), then open DIR as it left it, sharing its lock, and prepare
 * nothing.  Two ranks on one DIR raced on its marker and its lock.  The
 * dirfd, or -1 after one error line (rank 0's failure ends the run: the
 * others wait for it at the barrier until the abort).
 */
int ss_shared_dir(struct ss_replay *s, const struct rp_report_opts *r, unsigned n, int prep_only)
{
	char err[512];
	int dirfd = -1;

	if (s->m.rank) {
		if (rp_mpi_barrier(err, sizeof(err))) {
			ss_error(s, "--mpi: %s", err);
			return -1;
		}
		return setup_dir_as(s, r, prep_only, s->c.force | RP_DIR_SHARED);
	}
	if ((dirfd = ss_setup_dir(s, r, prep_only)) < 0)
		return -1;
	if (!s->c.no_prep) {
		struct rp_source *all = NULL;
		unsigned first = s->m.first;
		int rc;

		s->m.first = 0;
		rc = ss_open_source(s, r, n, &all);
		s->m.first = first;
		if (!rc)
			rc = ss_prepare(s, dirfd, &all->layout, 1);
		rp_source_free(all);
		if (rc) {
			close(dirfd);
			return -1;
		}
	}
	if (rp_mpi_barrier(err, sizeof(err))) {
		ss_error(s, "--mpi: %s", err);
		close(dirfd);
		return -1;
	}
	return dirfd;
}


/* MLPerf Storage asks for a data set of 5x the client's memory at least,
 * so that the page cache cannot hide the storage: below that, a run that
 * measures accelerators (-n) gets one warning with what would reach it. */
static void mem_warning(struct ss_replay *s, const struct rp_result *res,
			const struct rp_report_opts *r)
{
	char d[32], m[32], want[32], line[512];
	double ratio;
	size_t n0;

	if (!res->mem_bytes || !res->dataset_bytes || !r->accelerators || s->c.direct)
		return;	/* a plain replay reproduces a job: the report has the
			 * ratio; O_DIRECT reads bypass the page cache */
	ratio = (double)res->dataset_bytes / (double)res->mem_bytes;
	if (ratio >= 5)
		return;
	cm_fmt_bytes(d, sizeof(d), res->dataset_bytes);
	cm_fmt_bytes(m, sizeof(m), res->mem_bytes);
	n0 = (size_t)snprintf(line, sizeof(line), "iotape replay: warning: the data set (%s) is "
			      "%.2fx the memory the replay may use (%s, %s): the page cache can "
			      "hide the storage; MLPerf Storage asks for 5x", d, ratio, m,
			      r->mem_limit ? "--mem-limit" : "MemTotal");
	uint64_t limit = res->dataset_bytes / 5 & ~((1ull << 20) - 1);
	unsigned n = r->accelerators ? r->accelerators : 1;
	uint64_t per_copy = res->dataset_bytes / (n * (s->c.r.scale ? s->c.r.scale : 1));
	uint64_t k = per_copy ? (5 * res->mem_bytes + per_copy - 1) / per_copy : 0;
	char *p = line + (n0 < sizeof(line) ? n0 : sizeof(line) - 1);
	size_t left = sizeof(line) - (size_t)(p - line);
	if (limit >= (8u << 20)) {
		cm_fmt_bytes(want, sizeof(want), limit);
		if (n == 1 && k && k <= 1024)
			snprintf(p, left, ": --mem-limit %s or --scale-dataset %" PRIu64 "\n", want, k);
		else
			snprintf(p, left, ": --mem-limit %s\n", want);
	} else if (n == 1 && k && k <= 1024) {
		snprintf(p, left, ": --scale-dataset %" PRIu64 "\n", k);
	} else {
		snprintf(p, left, "\n");
	}
	ss_note(s, "%s", line);
}

/* The report, with the scenarios' sections: SS_OK, or -1 (write error). */
/* A scenario's section of the report (rp_section), through its report
 * callback. */
static void sec_text(void *arg, FILE *f, const struct rp_layout *l, const struct rp_result *res)
{
	struct ss_secarg *a = arg;

	(void)l, (void)res;
	a->sc->report(a->s, f, NULL);
}

static json_t *sec_json(void *arg, const struct rp_layout *l, const struct rp_result *res)
{
	struct ss_secarg *a = arg;
	json_t *j = NULL;

	(void)l, (void)res;
	return a->sc->report(a->s, NULL, &j) ? NULL : j;
}

/* The run's summary, as the report says it (rp_report_json's keys). */
static int summary(const struct ss_replay *s, struct ss_summary *sum)
{
	const struct rp_result *res = &s->res;
	const struct rp_layout *l = &s->src->layout;
	const struct rp_opts *o = &s->c.o;
	const struct rp_report_opts *r = &s->c.r;
	struct rp_scale st;
	uint64_t unissued = 0;

	memset(sum, 0, sizeof(*sum));
	if (rp_scale_stats(res, l, r->au > 0 ? r->au : 0.9, &st))
		return -ENOMEM;
	sum->au_na = st.au_na;
	sum->au_min = st.au_min;
	sum->read_bw = (uint64_t)st.read_bw;
	rp_scale_release(&st);
	sum->wall_ns = res->wall_ns;
	sum->runtime_limit_ns = r->runtime_ns;
	for (size_t i = 0; i < res->njobs; i++) {
		for (unsigned k = 1; k < RP_KIND_MAX; k++) {
			sum->ops_done += res->jobs[i].done[k];
			unissued += res->jobs[i].unissued[k];
		}
		sum->ops_failed += res->jobs[i].errors;
	}
	for (unsigned k = 1; k < RP_KIND_MAX; k++)
		sum->ops_expected += l->expected[k] * o->loops;
	sum->ops_expected -= unissued;
	if (s->bb.b) {
		size_t n;
		const struct rp_burst_ckpt *c = rp_burst_result(s->bb.b, &n);

		sum->burst = 1;
		for (size_t i = 0; i < n; i++)
			if (c[i].files)
				sum->burst_seen_ns += c[i].close_ns - c[i].start_ns;
	}
	return 0;
}

static int report(struct ss_replay *s, FILE *out)
{
	struct rp_result *res = &s->res;
	int rc;

	if (s->ext.report) {
		struct ss_summary sum;
		if (summary(s, &sum))
			return ss_error(s, "out of memory");
		s->ext.report(s->ext.arg, &sum);
	}

	/* the scenarios' sections, which the report writes where each says */
	res->nsections = 0;
	for (const struct ss_scenario *const *sc = ss_scenarios; *sc; sc++)
		if ((*sc)->report && (!(*sc)->on || (*sc)->on(s)) &&
		    res->nsections < SS_SECTIONS_MAX) {
			unsigned i = res->nsections++;
			s->secarg[i] = (struct ss_secarg){ s, *sc };
			s->sec[i] = (struct rp_section){ (*sc)->key, (*sc)->at, &s->secarg[i],
							 sec_text, sec_json };
		}
	res->sections = s->sec;
	rc = s->c.json ? rp_report_json(out, &s->src->layout, &s->c.o, &s->c.r, res) :
			 rp_report_text(out, &s->src->layout, &s->c.o, &s->c.r, res);
	res->sections = NULL;
	res->nsections = 0;
	return rc ? -1 : SS_OK;
}

/* Run, report, and the verdict on the ops that failed. */
int ss_replay_go(struct ss_replay *s, FILE *out, const char *out_name)
{
	struct rp_result *res = &s->res;
	int rc;

	res->dataset_bytes = dataset_bytes(&s->src->layout, s->c.r.scale);
	res->mem_bytes = memory_bytes(&s->c.r);
	if (!s->m.on || s->m.rank == 0)
		mem_warning(s, res, &s->c.r);
	if (ss_run(s, s->src, s->dirfd, &s->c.r, res))
		return SS_FAIL;
	if (s->m.on) {
		if (s->m.rank) {	/* rank 0 reports, and says how it went */
			s->done = 1;
			return SS_OK;
		}
		/* rank 0's layout counts its own accelerators; the report, all */
		rp_layout_scale_counts(&s->src->layout, s->c.r.accelerators, s->m.count);
	}
	if ((rc = report(s, out)) > 0)
		return rc;
	/* stdout is checked by the caller; a report file here */
	if (rc || (out != stdout && (fflush(out) || ferror(out))))
		return ss_error(s, "%s: write error: %s", out_name ? out_name : "stdout",
				strerror(errno ? errno : EIO));
	rc = failures(s, &s->src->layout, res, s->c.ignore) ? SS_FAIL : SS_OK;
	if (ss_burst_failed(s))
		rc = SS_FAIL;
	s->done = 1;
	return rc;
}

int ss_replay_end(struct ss_replay *s, int ret)
{
	rp_cgroup_leave(&s->cg);	/* (before an MPI_Abort, which does not return) */
	if (s->m.on) {
		/* every rank that got to the end takes rank 0's verdict; one
		 * that failed before takes the others down with it (they would
		 * wait for it at the next barrier for ever) */
		char err[256];
		int v = ret;
		if (!s->done || rp_mpi_bcast(&v, sizeof(v), 0, err, sizeof(err)))
			rp_mpi_abort(ret != SS_OK ? ret : SS_FAIL);
		ret = v;
		rp_mpi_finalize();
		s->m.on = 0;
	}
	return ret;
}

void ss_replay_free(struct ss_replay *s)
{
	if (!s)
		return;
	if (s->dirfd >= 0)
		close(s->dirfd);
	ss_scen_release(s);
	free(s->marks);
	rp_result_release(&s->res);
	rp_source_free(s->src);
	free(s);
}
