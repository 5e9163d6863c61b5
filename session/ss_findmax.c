/* SPDX-License-Identifier: MIT */
/*
 * ss_findmax.c - the scale-out scenarios: --find-max (the most
 * accelerators whose every AU reaches --au, a search of trials), and
 * --mpi (each rank runs its share of the accelerators; rank 0 reports).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "fmt.h"
#include "rp_mpi.h"
#include "ss_internal.h"

struct trial {
	unsigned n;
	int pass;
	double au_min, au_mean, read_bw, iops, mem_ratio;
};

/* One trial of --find-max with n accelerators: prepare, drop the caches
 * (root), run; 0 with t filled, or -1 after one error line. */
static int trial(struct ss_replay *s, struct rp_report_opts r, unsigned n, struct trial *t)
{
	struct rp_source *src = NULL;
	struct rp_result res = { 0 };
	struct rp_scale st;
	int dirfd = -1, ret = -1;

	unsigned mine = n;
	r.accelerators = n;
	if (s->m.on && rp_mpi_split(n, s->m.rank, s->m.size, &mine, &s->m.first))
		return -1;
	if (ss_open_source(s, &r, mine, &src))
		return -1;
	if ((dirfd = s->m.shared ? ss_shared_dir(s, &r, n, 1) : ss_setup_dir(s, &r, 1)) < 0)
		goto out;
	if (!s->c.no_prep && !s->m.shared && ss_prepare(s, dirfd, &src->layout, 1))
		goto out;
	if (geteuid() == 0 && ss_drop_caches()) {
		ss_error(s, "--find-max: dropping the page cache failed");
		goto out;
	}
	if (ss_run(s, src, dirfd, &r, &res))
		goto out;
	if (rp_scale_stats(&res, &src->layout, r.au, &st)) {
		ss_error(s, "out of memory");
		goto out;
	}
	*t = (struct trial){ n, st.pass, st.au_min, st.au_mean, st.read_bw, st.iops,
			     res.mem_bytes ? (double)res.dataset_bytes / (double)res.mem_bytes : 0 };
	rp_scale_release(&st);
	ret = 0;
	for (size_t i = 0; i < res.njobs; i++)
		if (res.jobs[i].errors) {
			ss_error(s, "--find-max: %u accelerators: ops failed in the replay; "
				  "a plain replay with -n %u says which", n, n);
			ret = -1;
			break;
		}
	if (s->m.on) {	/* rank 0 has every rank's results: its verdict is the one */
		char err[256];
		int v[2] = { ret, 0 };
		if (rp_mpi_bcast(v, sizeof(v), 0, err, sizeof(err)) ||
		    rp_mpi_bcast(t, sizeof(*t), 0, err, sizeof(err))) {
			ss_error(s, "--mpi: %s", err);
			ret = -1;
		} else {
			ret = v[0];
		}
	}
out:
	if (dirfd >= 0)
		close(dirfd);
	rp_result_release(&res);
	rp_source_free(src);
	return ret;
}

/* The most accelerators the search may try: *limit (-n, or 1024) bounded
 * by the room in DIR for the data set each prepares (--mpi: the rank with
 * the least room).  SS_OK, or the verdict after one error line. */
static int search_limit(struct ss_replay *s, int talk, unsigned *limitp)
{
	const struct rp_report_opts *r = &s->c.r;
	const char *dir = s->dir;
	unsigned limit = *limitp;
	int no_prep = s->c.no_prep;
	struct rp_source *one = NULL;
	struct statvfs vfs;
	char b1[32], b2[32];

	/* what one accelerator prepares, against the room in DIR */
	if (ss_open_source(s, r, 1, &one))
		return SS_FAIL;
	if (rp_layout_no_compute(&one->layout)) {
		rp_source_free(one);
		ss_error(s, "--find-max: the job has no compute (AU, compute time over wall time, "
			  "is n/a): no accelerator count passes or fails");
		return SS_USAGE;
	}
	uint64_t per = 0;
	for (size_t i = 0; i < one->layout.nfiles; i++)
		if (one->layout.files[i].prepare && !one->layout.files[i].isdir &&
		    !one->layout.files[i].holes)
			per += one->layout.files[i].size;
	rp_source_free(one);
	char parent[4096];
	snprintf(parent, sizeof(parent), "%s", dir);
	char *slash = strrchr(parent, '/');
	if (access(dir, F_OK) != 0) {	/* made by the first trial: its parent */
		if (slash && slash != parent)
			*slash = 0;
		else
			snprintf(parent, sizeof(parent), "%s", slash ? "/" : ".");
	}
	uint64_t fit = UINT32_MAX, room = 0;	/* accelerators this rank has room for */
	if (!no_prep && statvfs(parent, &vfs) == 0 && per) {
		room = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		/* what is prepared already counts as room: one accelerator
		 * more than the free space holds, at most */
		fit = room / per + 1;
		if (fit == 1 && access(dir, F_OK) != 0) {
			cm_fmt_bytes(b1, sizeof(b1), per);
			cm_fmt_bytes(b2, sizeof(b2), room);
			ss_error(s, "%s: %s free, one accelerator needs %s", dir, b2, b1);
			return SS_FAIL;
		}
	}
	if (s->m.on) {	/* the rank with the least room bounds them all */
		char err[256];
		if (rp_mpi_allreduce_u64(&fit, RP_MPI_MIN, err, sizeof(err))) {
			ss_error(s, "--mpi: %s", err);
			return SS_FAIL;
		}
		fit *= (uint64_t)s->m.size;
	}
	if (fit < limit)
		limit = (unsigned)fit;
	if (per && room && talk) {
		cm_fmt_bytes(b1, sizeof(b1), per);
		cm_fmt_bytes(b2, sizeof(b2), room);
		ss_note(s, "iotape replay: --find-max: each accelerator prepares %s; the file "
			"system of %s has %s free%s: up to %u accelerators\n", b1, dir, b2,
			s->m.on ? " (rank 0's)" : "", limit);
	}
	*limitp = limit;
	return SS_OK;
}

/*
 * --find-max: the most accelerators whose every AU reaches r->au.  N grows
 * 1, 2, 4, ... until a trial fails, then the gap between the last that
 * passed and the first that failed is bisected.  The data set of each
 * accelerator must fit in DIR: the search says how many fit and stops
 * there.
 */
int ss_find_max(struct ss_replay *s, FILE *out)
{
	const struct rp_report_opts *r = &s->c.r;
	int json = s->c.json;
	struct trial tr[64];
	unsigned ntr = 0, lo = 0, hi = 0, limit = r->accelerators ? r->accelerators : 1024;
	unsigned n = s->m.on ? (unsigned)s->m.size : 1;	/* --mpi: one a rank at least */
	const unsigned n0 = n;
	int talk = !s->m.on || s->m.rank == 0;	/* rank 0 prints */
	int progress = isatty(STDERR_FILENO) && (!s->m.on || s->m.rank == 0), low_mem = 0, rc;
	double au = r->au;

	s->progress = progress;

	if ((rc = search_limit(s, talk, &limit)))
		return rc;
	if (n > limit) {
		ss_error(s, "--find-max: %u ranks need %u accelerators at least; the search may go to %u",
			  s->m.size, n, limit);
		return SS_FAIL;
	}
	if (!json && talk)
		fprintf(out, "find-max: AU >= %.0f%%%s%s\n%12s %8s %8s %12s %10s %9s %5s\n",
			100 * au, r->runtime_ns ? ", each trial bounded by --runtime" : "",
			geteuid() == 0 ? ", page cache dropped before each" : "",
			"accelerators", "AU min", "AU mean", "read MiB/s", "IOPS", "data/mem", "pass");
	while (ntr < 64) {
		struct trial *t = &tr[ntr];
		if (progress)
			ss_note(s, "iotape replay: --find-max: trial %u, %u accelerators\n",
				ntr + 1, n);
		if (trial(s, *r, n, t))
			return SS_FAIL;
		ntr++;
		low_mem |= t->mem_ratio > 0 && t->mem_ratio < 5 && !s->c.direct;
		if (!json && talk) {
			fprintf(out, "%12u %7.1f%% %7.1f%% %12.1f %10.0f %8.2fx %5s\n", t->n,
				100 * t->au_min, 100 * t->au_mean, t->read_bw / 1048576, t->iops,
				t->mem_ratio, t->pass ? "yes" : "no");
			fflush(out);
		}
		if (t->pass)
			lo = n;
		else
			hi = n;
		if (hi && (hi - lo <= 1 || hi <= n0))
			break;	/* (--mpi: fewer than a rank each is not tried) */
		if (!hi && lo >= limit)
			break;
		n = hi ? lo + (hi - lo) / 2 : (2 * lo < limit ? 2 * lo : limit);
	}
	if (!talk)
		return SS_OK;
	if (low_mem)
		ss_note(s, "iotape replay: warning: in some trials the data set was below 5x "
			"the memory the replay may use (data/mem): the page cache may have hidden "
			"the storage; --mem-limit lowers the memory\n");
	if (json) {
		json_t *a = json_array();
		for (unsigned i = 0; i < ntr; i++)
			json_array_append_new(a, json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:b}",
				"accelerators", (int)tr[i].n, "au_min", tr[i].au_min,
				"au_mean", tr[i].au_mean, "read_bw_bytes", tr[i].read_bw,
				"iops", tr[i].iops, "dataset_memory_ratio", tr[i].mem_ratio,
				"pass", tr[i].pass));
		json_t *v = json_pack("{s:{s:f,s:i,s:i,s:b,s:o}}", "find_max", "au_threshold", au,
				      "max_accelerators", (int)lo, "search_limit", (int)limit,
				      "limit_reached", !hi, "trials", a);
		if (json_dumpf(v, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
			return SS_FAIL;
		fputc('\n', out);
		json_decref(v);
	} else {
		fprintf(out, "max accelerators at AU >= %.2f: %u%s\n", au, lo,
			hi ? "" : " (the search's limit: -n, or the room in DIR; more may keep up)");
	}
	return SS_OK;
}


static int find_on(const struct ss_replay *s)
{
	return s->c.find;
}

static int find_check(struct ss_replay *s)
{
	if ((s->c.acc_given || s->c.find) && s->c.r.scale > 1)
		return ss_usage(s, "--scale-dataset and --accelerators/--find-max exclude each "
				"other (each accelerator reads a copy of its own)");
	if (s->c.find && s->c.prep_only)
		return ss_usage(s, "--find-max and --prepare-only exclude each other");
	return SS_OK;
}

const struct ss_scenario ss_findmax = { "find-max", find_on, find_check };

/* ---------------------------------------------------------------- --mpi */

static int mpi_on(const struct ss_replay *s)
{
	return s->c.mpi;
}

static int mpi_check(struct ss_replay *s)
{
	if (s->c.mpi && s->c.r.scale > 1)
		return ss_usage(s, "--scale-dataset and --mpi exclude each other");
	if (s->c.mpi && s->c.r.sync_steps && s->c.r.runtime_ns)
		return ss_usage(s, "--mpi --sync-steps and --runtime exclude each other (ranks "
				"would stop at different steps)");
	return SS_OK;
}

/* every rank starts each loop together */
static int mpi_hooks(struct ss_replay *s, struct rp_engine *e)
{
	struct rp_hooks mh;
	char err[512];

	rp_mpi_hooks(&mh);
	if (rp_engine_add_hooks(e, &mh) || rp_mpi_barrier(err, sizeof(err)))
		return ss_error(s, "--mpi: %s", err);
	return SS_OK;
}

/* MPI up, this rank's DIR and share of the accelerators. */
int ss_mpi_open(struct ss_replay *s)
{
	char err[512];

	if (!s->c.mpi)
		return SS_OK;
	if (s->c.prep_only)
		return ss_usage(s, "--mpi and --prepare-only exclude each other: prepare on each node");
	if (!rp_mpi_built)
		return ss_error(s, "--mpi: this iotape is built without MPI (make MPI=0)");
	if (rp_mpi_init(err, sizeof(err)))
		return ss_error(s, "--mpi: %s", err);
	s->m.on = 1;
	s->m.rank = rp_mpi_rank();
	s->m.size = rp_mpi_size();
	/* DIR's "%r" is the rank: a DIR of each rank's own on one node;
	 * without it, one DIR (on shared storage) for every rank */
	const char *pr = strstr(s->dir, "%r");
	if (pr) {
		snprintf(s->rankdir, sizeof(s->rankdir), "%.*s%d%s", (int)(pr - s->dir), s->dir,
			 s->m.rank, pr + 2);
		s->dir = s->rankdir;
	} else {
		s->m.shared = s->m.size > 1;
	}
	s->c.r.ranks = (unsigned)s->m.size;
	if (!s->c.find) {
		unsigned total = s->c.acc_given ? s->c.r.accelerators : (unsigned)s->m.size;
		if (total < (unsigned)s->m.size) {
			if (s->m.rank == 0)
				ss_usage(s, "--mpi: %u accelerators for %d ranks: one a rank at least",
					 total, s->m.size);
			rp_mpi_finalize();
			s->m.on = 0;
			return SS_USAGE;
		}
		rp_mpi_split(total, s->m.rank, s->m.size, &s->m.count, &s->m.first);
		s->c.r.accelerators = total;
	}
	return SS_OK;
}

const struct ss_scenario ss_mpi = { "mpi", mpi_on, mpi_check, .hooks = mpi_hooks };

/* ------------------------------------------- the reader what-ifs */

/* what the trace had, for the report's statement of the model (a job
 * file's: its keys, ss_job_file) */
static int readers_layout(struct ss_replay *s, struct rp_layout *l)
{
	if (s->c.r.readers_trace)
		s->c.r.readers_recorded = l->readers_recorded;
	return SS_OK;
}

const struct ss_scenario ss_readers = { "readers", .layout = readers_layout };
