/* SPDX-License-Identifier: MIT */
/*
 * ss_source.c - a session's source: a trace (its training thread and AU
 * windows as the analysis finds them, and under --mpi a merged trace's
 * host), a job file or a DLIO workload (its --set, --seed and reader
 * what-ifs), replicated for N accelerators or bounded by --runtime.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "rp_mpi.h"
#include "ss_internal.h"
#include "tape.h"

/* TRACE is a job file when its first bytes are text starting with '[',
 * ';', '#' or blank (a trace starts with its format's magic), a DLIO
 * workload when the caller read one (s->c.dlio: the job model --from-dlio
 * makes of it): parse it, apply the --set overrides and --seed, check it.
 * SS_OK, or SS_USAGE after one error line (the job file is part of the
 * command). */
int ss_job_file(struct ss_replay *s)
{
	struct ss_src *sa = &s->sa;
	struct rp_jobspec *job = &s->job;
	const char **sets = s->c.sets, *seed = s->c.seed;
	int nsets = s->c.nsets;
	struct rp_report_opts *r = &s->c.r;
	char err[768], what[1100];
	int rc;

	if (s->c.dlio) {
		/* a DLIO workload: the job iotape model --from-dlio writes */
		const struct cm_job *cj = s->c.dlio;

		rp_jobspec_init(job);
		rc = rp_jobspec_set(job, "job.format=" CM_JOB_FORMAT, sa->trace, err, sizeof(err));
		for (int k = 0; !rc && k < CM_JOB_NKEYS; k++) {
			if (!cj->val[k] || k == CM_JOB_K_FORMAT)
				continue;
			snprintf(what, sizeof(what), "%s.%s=%s", cm_job_keys[k].section,
				 cm_job_keys[k].name, cj->val[k]);
			rc = rp_jobspec_set(job, what, sa->trace, err, sizeof(err));
		}
		if (rc) {
			ss_error(s, "%s", err);
			return SS_USAGE;
		}
	} else if (!rp_job_sniff(sa->trace)) {
		if (nsets || seed) {
			ss_usage(s, "--set and --seed are for job files (%s is not one)",
				  sa->trace);
			return SS_USAGE;
		}
		return 0;
	} else if (rp_jobspec_parse(job, sa->trace, err, sizeof(err))) {
		ss_error(s, "%s", err);
		return SS_USAGE;
	}
	for (int i = 0; i < nsets; i++) {
		snprintf(what, sizeof(what), "--set %s", sets[i]);
		if (rp_jobspec_set(job, sets[i], what, err, sizeof(err))) {
			ss_error(s, "%s", err);
			return SS_USAGE;
		}
	}
	if (seed) {
		snprintf(what, sizeof(what), "train.seed=%s", seed);
		if (rp_jobspec_set(job, what, "--seed", err, sizeof(err))) {
			ss_error(s, "%s", err);
			return SS_USAGE;
		}
	}
	/* the reader what-ifs are the job's own keys (after --set: they win) */
	r->readers_recorded = (unsigned)job->read_threads;
	r->prefetch_recorded = (unsigned)job->prefetch_size;
	if (r->reader_threads) {
		snprintf(what, sizeof(what), "reader.read_threads=%u", r->reader_threads);
		if (rp_jobspec_set(job, what, "--reader-threads", err, sizeof(err))) {
			ss_error(s, "%s", err);
			return SS_USAGE;
		}
	}
	if (r->prefetch) {
		snprintf(what, sizeof(what), "reader.prefetch_size=%u", r->prefetch);
		if (rp_jobspec_set(job, what, "--prefetch", err, sizeof(err))) {
			ss_error(s, "%s", err);
			return SS_USAGE;
		}
	}
	if (rp_jobspec_check(job, sa->trace, err, sizeof(err))) {
		ss_error(s, "%s", err);
		return SS_USAGE;
	}
	sa->job = job;
	return 0;
}

/* --mpi with a merged trace (iotape merge): rank r replays host r, so
 * there must be one rank per host.  0 (to set, or the trace is not a
 * merged one: every rank replays it whole, as before), or the exit
 * status after one error line (rank 0's). */
int ss_merged_host(struct ss_replay *s)
{
	const char *trace = s->sa.trace;
	struct rp_trace_opts *to = &s->sa.to;
	tape_reader *r;
	unsigned n;
	int err = tape_reader_open(&r, trace);

	if (err < 0)
		return 0;	/* the source's open says what is wrong */
	n = tape_reader_hosts(r);
	tape_reader_free(r);
	if (!n)
		return 0;
	if ((unsigned)s->m.size != n) {
		if (s->m.rank == 0)
			ss_usage(s, "--mpi: %s is a merged trace of %u hosts: run it "
				  "with %u ranks (rank r replays host r), not %d", trace, n, n,
				  s->m.size);
		return SS_USAGE;
	}
	to->has_host = 1;
	to->host = (unsigned)s->m.rank;
	return 0;
}

void *ss_dataset_paths(const struct ana *a, size_t head, const char ***ds, size_t *n)
{
	char buf[ANA_PATH_BUF];
	size_t nds = 0, sz = 0;

	for (size_t i = 0; i < a->nfiles; i++) {
		const char *p = a->files[i].dataset ? ana_file_path(a, &a->files[i], buf) : NULL;
		if (p) {
			nds++;
			sz += strlen(p) + 1;
		}
	}
	char *blk = calloc(1, head + nds * sizeof(char *) + sz + 1);
	if (!blk)
		return NULL;
	const char **d = (const char **)(blk + head);
	char *q = (char *)(d + nds);
	*n = 0;
	for (size_t i = 0; i < a->nfiles; i++) {
		const char *p = a->files[i].dataset ? ana_file_path(a, &a->files[i], buf) : NULL;
		if (p) {
			d[(*n)++] = q;
			q = stpcpy(q, p) + 1;
		}
	}
	*ds = d;
	return blk;
}

/*
 * The training thread, its epochs' AU windows and its steps, as the
 * analysis finds them (iotape-analyze(1), ACCELERATOR), and its data set
 * (DATA SET), for the trace source: the replay reports AU as DLIO computes
 * it over the same windows, and counts the same steps and data set.
 * *marks (one block: the windows, the steps, the data set's paths) is the
 * session's.  SS_OK, or SS_FAIL after one error line.
 */
int ss_trace_trainer(struct ss_replay *s)
{
	const char *trace = s->sa.trace;
	struct rp_trace_opts *to = &s->sa.to;
	uint64_t **marks = &s->marks;
	struct ana_opts ao = { .to_ns = UINT64_MAX, .top = -1, .threads = 1,
			       .has_host = to->has_host, .host = to->host };
	struct ana a;
	int rc;

	*marks = NULL;
	if ((rc = ana_run(&a, trace, &ao))) {
		if (rc == -ENOMEM) {
			ss_error(s, "%s: analysing it: out of memory", trace);
			return SS_FAIL;
		}
		return 0;	/* the source's open says what is wrong */
	}
	const struct ana_train *tr = &a.train;
	size_t nw = tr->nep ? 2 * tr->nep : 2;
	const char **ds;
	if ((*marks = ss_dataset_paths(&a, (nw + tr->steps + 1) * sizeof(**marks), &ds,
				       &to->ndataset))) {
		to->has_dataset = 1;
		to->dataset = ds;
	}
	if (tr->found && *marks) {
		unsigned n = 0;
		to->train_tid = tr->tid;
		if (!tr->nep && !isnan(tr->au_dlio)) {
			(*marks)[n++] = tr->span.from_ns;	/* one window over its steps */
			(*marks)[n++] = tr->span.to_ns;
		}
		for (size_t e = 0; e < tr->nep; e++) {
			const struct ana_au_epoch *x = &tr->ep[e];
			if (!x->from_ns || x->to_ns <= x->from_ns)
				continue;	/* no window: no marks */
			(*marks)[n++] = x->from_ns;
			(*marks)[n++] = x->to_ns;
		}
		to->marks = n ? *marks : NULL;
		to->nmarks = n;
		if (tr->steps)
			memcpy(*marks + nw, tr->ends, tr->steps * sizeof(**marks));
		to->steps = *marks + nw;	/* none: none (not the source's rule) */
		to->nsteps = tr->steps;
	}
	ana_release(&a);
	return 0;
}

static int open_trace(void *arg, unsigned accel, struct rp_source **out, char *err,
		      size_t errlen)
{
	const struct ss_src *sa = arg;

	if (sa->job)
		return rp_job_open(out, sa->job, &(struct rp_job_opts){ .direct = sa->to.direct,
				   .lazy = sa->lazy, .sparse = sa->sparse, .dirfd = sa->dirfd },
				   err, errlen);
	return rp_trace_open(out, sa->trace, &sa->to, err, errlen);
}

/* --mpi --sync-steps: a step ends when every rank's accelerators are at
 * it (the first error is kept: the loop hook's check reports ranks that
 * went apart) */
static void mpi_step(void *arg)
{
	char err[128];

	rp_mpi_barrier(err, sizeof(err));
}

/* The source of a run of n accelerators (the trace itself for one with no
 * bound): SS_OK, or SS_FAIL after one error line. */
int ss_open_source(struct ss_replay *s, const struct rp_report_opts *r, unsigned n,
		   struct rp_source **src)
{
	const struct ss_src *sa = &s->sa;
	char err[512];
	int rc;

	if (!n && !r->runtime_ns && !s->m.on) {	/* no accelerators asked for */
		rc = open_trace((void *)sa, 0, src, err, sizeof(err));
	} else {
		/* n instances share the bound of the queued ops */
		struct ss_src one = *sa;
		struct rp_replica_opts ro = { .accelerators = n ? n : 1, .writers_one = r->writers == 1,
					      .runtime_ns = r->runtime_ns,
					      .sync_steps = r->sync_steps, .base = s->m.first,
					      .step = s->m.on ? mpi_step : NULL };
		uint64_t q = sa->to.queue_bytes ? sa->to.queue_bytes : 64ull << 20;
		one.to.queue_bytes = q / ro.accelerators > (1u << 20) ? q / ro.accelerators : 1u << 20;
		rc = rp_replica_open(src, &ro, open_trace, &one, err, sizeof(err));
	}
	if (rc)
		return ss_error(s, "%s", err);
	return SS_OK;
}

