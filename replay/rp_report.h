/* SPDX-License-Identifier: MIT */
/*
 * rp_report.h - a replay's results as fio-shaped text and JSON (libreplay;
 * replay.h includes it).
 */
#ifndef IOTAPE_RP_REPORT_H
#define IOTAPE_RP_REPORT_H

#include "rp_engine.h"

/* ---------------------------------------------------------------- report */

/*
 * What a run was asked besides the engine's knobs (rp_opts), which the
 * report states: the session acts on it (the sources it opens, the
 * cgroup), the engine never reads it.
 */
struct rp_report_opts {
	unsigned scale;		/* --scale-dataset K (1: no copies): loop l
				 * reads copy l % K of the dataset files
				 * (the session's rp_places) */
	uint64_t mem_limit;	/* --mem-limit bytes, 0 none */
	/* the scale-out questions (the source runs them; the engine runs
	 * the threads it is given) */
	unsigned accelerators;	/* --accelerators N; 0: not asked (1) */
	int writers;		/* --checkpoint-writers: 0 all, 1 one */
	double au;		/* --au: the AU a run must reach */
	uint64_t runtime_ns;	/* --runtime: ops end after this (0: none) */
	int sync_steps;		/* --sync-steps (the report says which) */
	unsigned ranks;		/* --mpi: ranks whose results these are (the
				 * report gives per host figures, and no
				 * per-file list: each rank has its own) */
	/* the reader what-ifs: --reader-threads N, --prefetch K (0: not
	 * asked; the source does them), and what the job had (0: not known),
	 * for the report's statement of the model */
	unsigned reader_threads, prefetch;
	unsigned readers_recorded, prefetch_recorded;
	int readers_trace;	/* a trace's readers (else a job file's) */
};

/*
 * A section of the report that is not the engine's (a scenario's, a
 * hook's, a resolver's: the placements' "placements", --stage-hot's
 * "staging", the burst buffer's "burst_buffer"), named by the caller in
 * rp_result.sections: the report writes each where it says, knowing none
 * of them.  Text: after the jobs, in order.
 */
enum rp_section_at {
	RP_AT_PLACEMENTS,	/* JSON: after "jobs", before "scale" */
	RP_AT_SCALE,		/* JSON: after "scale", before "replay" */
};
struct rp_section {
	const char *key;	/* its member of the JSON report's top level */
	enum rp_section_at at;
	void *arg;
	/* its text (NULL: none in the text report) */
	void (*text)(void *arg, FILE *f, const struct rp_layout *l, const struct rp_result *res);
	/* its JSON value, a new reference; NULL: out of memory */
	struct json_t *(*json)(void *arg, const struct rp_layout *l, const struct rp_result *res);
};

/* fio's figures of one kind of ops (rp_dir_names: read, write, sync) over
 * ns, as the jobs' are written: for a section that writes its own. */
extern const char *const rp_dir_names[3];
struct json_t *rp_dir_json(struct rp_dir_stats *d, uint64_t runtime_ns);
void rp_dir_text(FILE *f, const char *name, struct rp_dir_stats *d, uint64_t ns);

/* The placements' section (rp_place.c): "placements", after the jobs,
 * each placement's files, their recorded reads over loops and what was
 * done under it, from what rp_places_result put in res; for a run with
 * more than one placement (rp_result.nplaces). */
struct rp_section rp_places_section(unsigned loops);

/* The report of res: the engine's knobs o, what else was asked r. */
int rp_report_text(FILE *f, const struct rp_layout *l, const struct rp_opts *o,
		   const struct rp_report_opts *r, struct rp_result *res);
int rp_report_json(FILE *f, const struct rp_layout *l, const struct rp_opts *o,
		   const struct rp_report_opts *r, struct rp_result *res);

#endif /* IOTAPE_RP_REPORT_H */
