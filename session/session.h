/* SPDX-License-Identifier: MIT */
/*
 * session.h - replay sessions (libsession): a replay built from a source
 * (a trace, a job file, a DLIO workload) and the scenarios asked of it,
 * run in-process.  The layer above analyze/ and replay/: the analysis x
 * replay glue lives here (a trace's training thread and its AU windows,
 * the files to stage, the checkpoints of a burst buffer), so that the
 * commands (iotape replay, whatif, model --check) parse, build a session,
 * run it and print.
 *
 * A scenario (ss_scen.c) is one thing a replay may be asked besides the
 * replay itself: --place, --stage-hot, --burst-buffer, --mpi,
 * --find-max, the reader what-ifs, and hooks the caller brings (cli's
 * --metrics endpoint).  Each is a row of
 * callbacks: when it is on, its conflicts with the others, what it does
 * to the layout once the source is open, its hooks on the engine, and its
 * section of the report (text and JSON through one callback).
 *
 * Library code: nothing here prints on its own or exits; errors and
 * warnings go through the caller's callbacks (struct ss_ui), one line
 * each, as they happen, and the functions return a verdict (SS_OK,
 * SS_FAIL, SS_USAGE: the exit statuses of the commands).  The report goes
 * to the FILE * given.
 */
#ifndef IOTAPE_SESSION_H
#define IOTAPE_SESSION_H

#include <stdint.h>
#include <stdio.h>
#include "job.h"
#include "replay.h"

enum { SS_OK = 0, SS_FAIL = 1, SS_USAGE = 2 };

/* The caller's side: where messages go (each optional).  error: one line
 * (usage: a bad combination of options, the caller adds its hint); note:
 * text as it is (stderr's lines that are not errors: warnings, find-max's
 * plan); the progress lines of prepare and of the run. */
struct ss_ui {
	void *arg;
	void (*error)(void *arg, int usage, const char *msg);
	void (*note)(void *arg, const char *text);
	void (*prep_progress)(void *arg, uint64_t files, uint64_t nfiles, uint64_t bytes,
			      uint64_t total);
	void (*run_progress)(void *arg, uint64_t done, uint64_t total);
	void (*progress_end)(void *arg);	/* after either: end the line */
};

/* What a run's report says of it, in numbers (the JSON report's keys in
 * brackets), for a caller that weighs runs against each other (whatif). */
struct ss_summary {
	int au_na;		/* no AU: the job has no compute (scale.au_min null) */
	double au_min;		/* scale.au_min */
	uint64_t wall_ns;	/* scale.runtime_ns */
	uint64_t read_bw;	/* scale.read_bw_bytes */
	uint64_t runtime_limit_ns;	/* scale.runtime_limit_ns */
	uint64_t ops_expected, ops_done;	/* replay.ops_expected, ops_done: sums */
	uint64_t ops_failed;	/* replay.ops_failed */
	int burst;		/* --burst-buffer: the report has burst_buffer */
	uint64_t burst_seen_ns;	/* burst_buffer.seen_s: the time the job saw
				 * in its checkpoints */
};

/* Hooks the caller brings (cli's --metrics endpoint): its hooks on each
 * run's engine, and the run's results once it ended (with --metrics).
 * 0 or -ENOMEM.  report: the run's summary as its report is made (the
 * process that reports; not --find-max's trials). */
struct ss_ext {
	void *arg;
	int (*hooks)(void *arg, const struct rp_layout *l, unsigned loops, struct rp_hooks *h);
	void (*end)(void *arg, const struct rp_layout *l, const struct rp_result *res);
	void (*report)(void *arg, const struct ss_summary *sum);
};

#define SS_PLACE_MAX RP_PLACE_MAX

/* What a replay is asked: the options of iotape-replay(1). */
struct ss_cfg {
	const char *trace, *dir;
	struct rp_opts o;	/* the engine's knobs */
	struct rp_report_opts r;	/* what else the run is asked: the
					 * scale-out questions, --mem-limit,
					 * the reader what-ifs (the report
					 * states them) */
	int prep_only, no_prep, sparse, drop, force, ignore, no_meta, no_handover;
	int loops_given, acc_given, find, mpi, verbose, json;
	int direct;		/* --direct: the source's (rp_layout.direct) */
	const char **sets;	/* --set (nsets), --seed: a job file's */
	int nsets;
	const char *seed;
	const struct cm_job *dlio;	/* TRACE is a DLIO workload: its job
					 * (iotape model --from-dlio's) */
	const char *place[SS_PLACE_MAX];	/* --place GLOB=DIR, nplace */
	unsigned nplace;
	const char *burst_dir;	/* --burst-buffer FAST_DIR, --drain */
	int drain;
	const char *stage_dir, *stage_size;	/* --stage-hot, --stage-size */
	int metrics;		/* the caller serves metrics (ss_ext) */
	double linger;		/* --metrics-linger */
};

struct ss_replay;

/* A session of cfg (copied; its strings must outlive the session), ui
 * and ext (may be NULL).  0 or -ENOMEM. */
int ss_replay_new(struct ss_replay **out, const struct ss_cfg *cfg, const struct ss_ui *ui,
		  const struct ss_ext *ext);
/* Check the options, open MPI (--mpi), read the job file, find the
 * trace's training thread, check DIR's room: SS_OK, or the verdict after
 * one error line.  Before ss_replay_run; nothing is prepared yet. */
int ss_replay_setup(struct ss_replay *s);
/* This process writes the report (not a rank of --mpi but rank 0). */
int ss_replay_reports(const struct ss_replay *s);
/* Prepare, run, report to out (json: the JSON report): the verdict. */
int ss_replay_run(struct ss_replay *s, FILE *out, const char *out_name);
/* The verdict every rank takes (--mpi: rank 0's) from this one's ret;
 * MPI ends here.  Then ss_replay_free. */
int ss_replay_end(struct ss_replay *s, int ret);
/* The run got to its end (the report is out). */
int ss_replay_done(const struct ss_replay *s);
void ss_replay_free(struct ss_replay *s);	/* NULL: nothing */

/* ------------------------------------------------------- what-ifs */

/*
 * The what-ifs of a trace (iotape whatif): the baseline and each what-if
 * that applies, each a replay session run in this process.
 */
#define SS_WI_MAX 8
#define SS_WI_ARGS 8
#define SS_WI_GAIN 0.02	/* AU points a what-if must add to count as help */

enum ss_wi_kind { SS_WI_BASE, SS_WI_STAGE, SS_WI_BURST, SS_WI_READERS, SS_WI_LOADERS };

struct ss_wi_run {
	char name[32];		/* "baseline", "stage-hot", ... */
	enum ss_wi_kind kind;
	unsigned readers;	/* SS_WI_READERS: the reader threads */
	const char *says;	/* what its gain tells: "the storage holds
				 * back the data set's reads" */
	char what[96];		/* for people: "hot files on FAST (512 MiB)" */
	const char *args[SS_WI_ARGS];	/* the replay options it stands for */
	char argbuf[48];
	/* the run, from its report's summary */
	int status;		/* the session's verdict (replay's exit status) */
	char err[256];		/* why it failed (the caller's: its last
				 * message line) */
	double au;
	double job_s;		/* wall time, or its estimate when cut */
	int estimated;		/* cut by --runtime: job_s scaled up by the
				 * ops expected over those done */
	double read_bw;		/* bytes/s */
	double ckpt_s;		/* time the job saw in checkpoints; < 0: none */
	uint64_t ops_failed;
};

struct ss_whatif {
	/* the caller's */
	const char *trace, *dir, *fast;	/* fast: NULL, none */
	uint64_t runtime_ns;	/* each run bounded by it */
	uint64_t stage_size;	/* 0: the files carrying 80% of the reads */
	int force, drop;	/* replay -f, --drop-caches */
	/* the trace's facts (ss_whatif_plan) */
	unsigned readers;	/* recorded reader threads, 0: none */
	int mapped;		/* the data set is read through a memory map */
	unsigned loaders;	/* threads that hand the training thread its
				 * data (a sched table), 0: none */
	size_t ckpts;		/* checkpoints, as analyze finds them */
	uint64_t read_bytes;	/* bytes the files that can be staged had read */
	struct ss_wi_run run[SS_WI_MAX];	/* run[0]: the baseline */
	size_t n;
};

/* The what-ifs' results (after their runs) as one JSON object, the
 * keys of iotape-whatif(1): 0, -ENOMEM or -EIO. */
int ss_whatif_json(const struct ss_whatif *w, FILE *f);

/* The trace's facts and the what-ifs that apply (w->run, w->n): 0, or -1
 * with why in err. */
int ss_whatif_plan(struct ss_whatif *w, char *err, size_t errlen);
/* Run r of w: a session of base (the replay's defaults) and r's options,
 * its messages to ui, its JSON report to report (named report_name); r
 * filled from the report's summary, r->status the verdict.  0, or -ENOMEM
 * (nothing ran). */
int ss_whatif_run(const struct ss_whatif *w, struct ss_wi_run *r, const struct ss_cfg *base,
		  const struct ss_ui *ui, FILE *report, const char *report_name);
/* The what-if that raises AU the most, by SS_WI_GAIN or more: its index,
 * or 0 (the baseline: none does, or it failed). */
size_t ss_whatif_best(const struct ss_whatif *w);

#endif /* IOTAPE_SESSION_H */
