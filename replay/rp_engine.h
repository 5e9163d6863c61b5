/* SPDX-License-Identifier: MIT */
/*
 * rp_engine.h - the replay engine (libreplay; replay.h includes it): its
 * knobs (rp_opts: what the engine reads, nothing else; what else a run is
 * asked is the session's, and the report's to state: rp_report_opts), its
 * results and the scale-out figures made of them, and the --mem-limit
 * cgroup it runs in.
 */
#ifndef IOTAPE_RP_ENGINE_H
#define IOTAPE_RP_ENGINE_H

#include "rp_hook.h"

/* --------------------------------------------------------------- engine */

struct rp_opts {
	int timing;		/* enum rp_timing */
	double speed, compute_scale;
	double loader_scale;	/* --loader-cpu-scale X: the loader threads'
				 * (rp_thread.loader) work X times faster
				 * (0: as recorded) */
	unsigned iodepth;
	unsigned loops;
};


struct rp_dir_stats {		/* fio's read / write / sync */
	uint64_t ios, bytes, short_ios, drop_ios;
	struct cm_lat clat, lat;
};

struct rp_failure {
	int err;		/* -errno */
	uint32_t file;		/* layout file */
	uint64_t ts;		/* CLOCK_MONOTONIC ns */
};

struct rp_job {			/* one replay thread */
	uint32_t tid, pid;
	uint32_t accel;		/* the simulated accelerator it belongs to
				 * (rp_replica_open; 0 without) */
	int rank;		/* MPI rank that ran it (0 without MPI) */
	char host[64];		/* host name of that rank ("" : this one) */
	struct rp_dir_stats d[3];	/* 0 read, 1 write, 2 sync */
	uint64_t done[RP_KIND_MAX];
	/* ops that failed in the replay, or were not issued because their
	 * fd's open failed, per kind (0: the ring itself broke), and the
	 * first of each kind */
	uint64_t failed[RP_KIND_MAX];
	struct rp_failure first_fail[RP_KIND_MAX];
	uint64_t errors;	/* all of failed[] */
	uint64_t mkdir_existed;	/* mkdirs (done) that found the directory */
	uint64_t meta_unlike;	/* metadata ops (done) that succeeded where
				 * the recording's failed */
	uint64_t absent;	/* RP_F_ABSENT ops (done) that failed */
	uint64_t unissued[RP_KIND_MAX];	/* RP_F_SKIP ops, per kind */
	int first_error;	/* -errno of the first failed op, 0 */
	uint64_t wall_ns;	/* first op to last completion */
	uint64_t compute_ns;	/* synthetic compute delays */
	uint64_t mark_ns;	/* RP_F_MARK: wall_ns and compute_ns when its */
	uint64_t mark_compute_ns;/* op was issued (0: no mark) */
	uint64_t worked_ns;	/* its compute as it ran: each delay from its
				 * start to the end of its sleep (an overrun
				 * too, as DLIO times its compute), or to its
				 * target when it then waited for another
				 * thread (original timing: compute_ns) */
	/* RP_F_EPOCH: at mark i (nmarks of them: the layout's), the wall (as
	 * wall_ns) and worked_ns when its op was issued; marks[2i] wall,
	 * marks[2i + 1] worked; UINT64_MAX: not reached */
	uint64_t *marks;
	uint32_t nmarks;
	uint8_t train;		/* its thread is its accelerator's training
				 * thread (rp_thread.train) */
	uint64_t adjusted;	/* ops aligned for O_DIRECT */
	int realtime;		/* ran SCHED_FIFO (original timing, root) */
	struct cm_lat terr;	/* original timing: issue - target (ns) */
	uint64_t fault_reads;	/* RP_F_FAULT reads done */
	uint64_t usr_ns, sys_ns;/* the thread's CPU time (getrusage) */
	uint64_t ctx, majf, minf;/* its context switches and page faults */
	struct rp_dir_stats *place;	/* with placements (rp_result.nplaces
					 * > 1): per placement p, place[3p +
					 * 0 read, 1 write, 2 sync]; else NULL
					 * (rp_places_result's) */
};

struct rp_result {
	struct rp_job *jobs;
	size_t njobs;
	uint64_t *file_bytes;	/* per layout file: bytes read + written */
	size_t nfiles;
	uint64_t wall_ns;
	int bounded;		/* the source's bound (rp_source.runtime_ns:
				 * --runtime) came before the run ended: the
				 * ops after it were not taken */
	uint64_t implicit_opens;
	int64_t start_unix;
	/* filled by the caller, for the report */
	uint64_t *copy_bytes;	/* per dataset copy: bytes read (rp_places) */
	unsigned ncopies;
	uint64_t dev_read_bytes;/* /proc/self/io read_bytes during the run:
				 * what the storage delivered, page cache
				 * misses included */
	int cgroup;		/* --mem-limit: cgroup version 1 or 2 */
	uint64_t mem_peak;	/* its peak usage */
	uint64_t mem_limit_hits;
	uint64_t dataset_bytes;	/* read-only data prepared for the run (all
				 * accelerators' copies) */
	uint64_t mem_bytes;	/* memory the replay may use: --mem-limit, or
				 * MemTotal */
	unsigned nplaces;	/* the layout's placements (rp_job.place;
				 * rp_places) */
	const char *const *place_names;	/* per placement, for the report
					 * (the caller's DIRs; NULL: none) */
	const struct rp_section *sections;	/* the caller's sections of the
					 * report (rp_report.h), nsections */
	unsigned nsections;
};
void rp_result_release(struct rp_result *res);

/* Per simulated accelerator, from the jobs of a result (rp_scale_stats). */
struct rp_scale_acc {
	unsigned accel;
	int rank;
	const char *host;	/* the first job's (points into the result) */
	double au;		/* the AU judged: au_dlio where known, else au_run */
	double au_run;		/* its training thread's compute (without one:
				 * its threads' largest) / its wall time (after
				 * its first step, when marked) */
	double au_dlio;		/* DLIO's: the mean of au_ep; NaN unknown */
	double *au_ep;		/* per epoch (nep): the training thread's
				 * compute over the time between its epoch
				 * marks (rp_job.marks); NaN: not reached */
	uint64_t *ep_ns;	/* per epoch: that time (0: not reached) */
	unsigned nep;
	int train;		/* the source named its training thread */
	int first_step_out;	/* the first step was left out of au_run: */
	uint64_t first_wall_ns, first_compute_ns;	/* its time and compute */
	uint64_t compute_ns, wall_ns;
	uint64_t read_bytes, write_bytes, ios, opens;
};
/* Per MPI rank (a client node), from its accelerators. */
struct rp_scale_rank {
	int rank;
	const char *host;
	unsigned accelerators;
	double au_min;
	uint64_t read_bytes, write_bytes, ios;
};
struct rp_scale {
	unsigned n;		/* accelerators */
	struct rp_scale_acc *acc;
	unsigned nranks;	/* 1 without MPI */
	struct rp_scale_rank *ranks;
	double au_min, au_mean, au_max;
	int pass;		/* au_min >= the threshold */
	int au_na;		/* the job has no compute at all (a job file's
				 * computation_time 0): AU, compute over wall
				 * time, means nothing; au_* 0, pass 0, and
				 * the reports say n/a */
	uint64_t read_bytes, write_bytes, ios, opens;
	double read_bw, write_bw, iops, files_per_s;	/* over the run's wall time */
};
/*
 * Accelerator utilization as DLIO defines it (compute time / wall time),
 * per accelerator: the largest compute time among its threads (the
 * synthetic compute delays, the recorded gaps) over its wall time (the
 * run's start to the end of its last thread), so an accelerator waits for
 * whichever of its threads the storage slowed most.  The layout l (NULL:
 * not known) tells a job without compute (rp_layout_no_compute).  0 or
 * -ENOMEM.
 */
int rp_scale_stats(const struct rp_result *res, const struct rp_layout *l, double au,
		   struct rp_scale *st);
void rp_scale_release(struct rp_scale *st);

struct rp_engine;
/* Set up the replay of src's layout under dirfd (where src's directory
 * resolver, rp_source.dirs, says; none: every file beneath dirfd):
 * threads' rings and buffers.  The source and dirfd must outlive the
 * engine. */
int rp_engine_init(struct rp_engine **out, struct rp_source *src, int dirfd,
		   const struct rp_opts *o, char *err, size_t errlen);
/* Add a set of hooks (copied); 0 or -ENOMEM. */
int rp_engine_add_hooks(struct rp_engine *e, const struct rp_hooks *h);
/* Run every loop: 0 (failed ops are counted in the results, not an
 * error here), or -errno when the replay could not run (a thread could
 * not start, the source failed). */
int rp_engine_run(struct rp_engine *e, char *err, size_t errlen);
/* Move the results into res (rp_result_release frees them). */
void rp_engine_finish(struct rp_engine *e, struct rp_result *res);
void rp_engine_free(struct rp_engine *e);	/* NULL: nothing */


/* ---------------------------------------------------------------- cgroup */

struct rp_cgroup {
	int v2;			/* 1 cgroup v2, 0 v1 */
	int entered;
	uint64_t limit, peak, limit_hits;
	char dir[4096];		/* the cgroup made, "" once removed */
	char orig_procs[4096];	/* cgroup.procs of the one we came from */
};
/* Make a cgroup limited to limit bytes (no swap) and move this process
 * into it; SIGINT/SIGTERM/SIGHUP leave it before dying.  On error (not
 * root, no memory cgroup) err says why and nothing is left behind. */
int rp_cgroup_enter(struct rp_cgroup *cg, uint64_t limit, char *err, size_t errlen);
/* Fill peak and limit_hits (before rp_cgroup_leave). */
void rp_cgroup_stats(struct rp_cgroup *cg);
/* Back to the original cgroup, remove ours; NULL or left: nothing. */
void rp_cgroup_leave(struct rp_cgroup *cg);


#endif /* IOTAPE_RP_ENGINE_H */
