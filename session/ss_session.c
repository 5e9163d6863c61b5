/* SPDX-License-Identifier: MIT */
/*
 * ss_session.c - a replay session from end to end (iotape-replay(1)):
 * ss_replay_setup checks and readies, ss_replay_run prepares, runs and
 * reports, ss_replay_end settles the verdict (--mpi: rank 0's).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rp_mpi.h"
#include "ss_internal.h"

int ss_replay_new(struct ss_replay **out, const struct ss_cfg *cfg, const struct ss_ui *ui,
		  const struct ss_ext *ext)
{
	struct ss_replay *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return -ENOMEM;
	s->c = *cfg;
	if (ui)
		s->ui = *ui;
	if (ext)
		s->ext = *ext;
	s->dir = cfg->dir;
	s->sa.trace = cfg->trace;
	s->dirfd = -1;
	return 0;
}

/* The trace source's options, its training thread, a job file's room. */
static int setup_source(struct ss_replay *s)
{
	struct rp_report_opts *r = &s->c.r;
	int rc;

	/* under a memory limit, the queued ops take a quarter of it at most */
	s->sa.to = (struct rp_trace_opts){ .direct = s->c.direct, .no_metadata = s->c.no_meta,
					   .queue_bytes = r->mem_limit ? r->mem_limit / 4 : 0 };
	if (s->sa.to.queue_bytes > (64ull << 20))
		s->sa.to.queue_bytes = 64ull << 20;
	if (s->m.on && !s->sa.job && (rc = ss_merged_host(s))) {
		rp_mpi_finalize();	/* every rank says so: none waits */
		s->m.on = 0;
		return rc;
	}
	if (!s->sa.job) {	/* a job file's are its keys (ss_job_file) */
		s->sa.to.reader_threads = r->reader_threads;
		s->sa.to.prefetch = r->prefetch;
		s->sa.to.no_handover = s->c.no_handover;
		r->readers_trace = 1;
		if (ss_trace_trainer(s))
			return SS_FAIL;
	}
	/* a job file's data set: the inodes and room it needs, before its
	 * layout is made (a file each: 10^8 files would take gigabytes) */
	if (s->sa.job && !s->c.no_prep) {
		char err[768];
		unsigned copies = s->c.find ? 1 : s->m.on ? s->m.count :
				  r->accelerators ? r->accelerators : 1;

		if (rp_jobspec_room(s->sa.job, s->dir, copies, s->c.sparse, err, sizeof(err)))
			return ss_error(s, "%s", err);
	}
	return SS_OK;
}

int ss_replay_setup(struct ss_replay *s)
{
	int rc;

	if ((rc = ss_job_file(s)))
		return rc;
	if (!s->dir)
		return ss_usage(s, "--dir is required");
	if ((rc = ss_scen_check(s)))
		return rc;
	if (ss_place_dirs_check(s))
		return SS_FAIL;
	if ((rc = ss_mpi_open(s)))
		return rc;
	if (!s->c.loops_given)
		s->c.o.loops = s->c.r.scale;	/* each copy read once */
	s->progress = isatty(STDERR_FILENO);
	s->usage = 0;
	return setup_source(s);
}

int ss_replay_reports(const struct ss_replay *s)
{
	return !s->m.on || !s->m.rank;
}

int ss_replay_done(const struct ss_replay *s)
{
	return s->done;
}

/* The source, its layout placed by the scenarios. */
static int open_placed(struct ss_replay *s)
{
	const struct rp_report_opts *r = &s->c.r;

	/* a bounded run of a job file waits for no file it does not read: its
	 * data set is made as the run reaches it, in the order it reads it */
	s->sa.lazy = s->sa.job && r->runtime_ns && !s->m.on && r->accelerators <= 1 &&
		     s->c.r.scale <= 1 && s->pl.n <= 1 && !s->c.prep_only && !s->c.no_prep &&
		     !s->c.burst_dir && !s->c.stage_dir;
	s->sa.sparse = s->c.sparse;
	s->sa.dirfd = &s->dirfd;
	if (ss_open_source(s, r, s->m.on ? s->m.count : r->accelerators, &s->src))
		return SS_FAIL;
	const struct rp_layout *l = &s->src->layout;
	if (!ss_has_ops(l))
		return ss_error(s, "%s: no file operations to replay (%" PRIu64 " skipped, %"
				PRIu64 " failed, %" PRIu64 " unmatched in the recording)",
				s->sa.trace, l->skipped, l->failed, l->unmatched);
	if (s->m.on && s->m.rank)
		s->progress = 0;	/* rank 0 speaks for all */
	return ss_scen_layout(s, &s->src->layout);
}

/* DIR and the placements open, the data set prepared. */
static int open_dirs(struct ss_replay *s, FILE *out)
{
	const struct rp_report_opts *r = &s->c.r;

	if ((s->dirfd = s->m.shared ? ss_shared_dir(s, r, r->accelerators, s->c.prep_only) :
				      ss_setup_dir(s, r, s->c.prep_only)) < 0)
		return SS_FAIL;
	if (s->pl.n > 1 && ss_place_open(s))
		return SS_FAIL;
	if (!s->c.no_prep && !s->m.shared && ss_prepare(s, s->dirfd, &s->src->layout, s->c.r.scale))
		return SS_FAIL;
	return ss_scen_prepared(s, out);
}

int ss_replay_run(struct ss_replay *s, FILE *out, const char *out_name)
{
	int rc;

	if (s->c.find) {
		if (s->c.r.mem_limit) {
			char err[512];
			if (rp_cgroup_enter(&s->cg, s->c.r.mem_limit, err, sizeof(err)))
				return ss_error(s, "%s", err);
		}
		rc = ss_find_max(s, out);
		s->done = rc == SS_OK;
		return rc;
	}
	if ((rc = open_placed(s)) || (rc = open_dirs(s, out)))
		return rc;
	if (s->c.prep_only)
		return SS_OK;
	if (s->c.drop && (rc = ss_drop_caches()))
		return ss_error(s, "--drop-caches: /proc/sys/vm/drop_caches: %s%s", strerror(-rc),
				rc == -EACCES || rc == -EPERM ? " (needs root)" : "");
	return ss_replay_go(s, out, out_name);
}
