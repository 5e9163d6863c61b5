/* SPDX-License-Identifier: MIT */
/*
 * ss_internal.h - a replay session's state, shared by session/'s files
 * (private to session/).
 */
#ifndef IOTAPE_SS_INTERNAL_H
#define IOTAPE_SS_INTERNAL_H

#include <jansson.h>
#include "session.h"

/* One staged file, in rank order: its layout id, its reads and size (the
 * analysis's: iotape-analyze(1), STAGING). */
struct ss_staged {
	uint32_t id;
	uint64_t read_bytes, size;
};

/* The source's arguments: a trace, or a job file; a job file under
 * --runtime, one accelerator: its data set made as the run reaches it,
 * under *dirfd. */
struct ss_src {
	const char *trace;
	struct rp_trace_opts to;
	const struct rp_jobspec *job;
	int lazy, sparse;
	const int *dirfd;
};

#define SS_SECTIONS_MAX 8	/* scenarios with a section of the report */

struct ss_scenario;

struct ss_replay {
	struct ss_cfg c;
	struct ss_ui ui;
	struct ss_ext ext;
	const char *dir;
	char rankdir[4096];
	struct ss_src sa;
	struct rp_jobspec job;
	uint64_t *marks;	/* the trace's AU windows (sa.to.marks) */
	struct rp_cgroup cg;
	struct rp_result res;
	struct rp_section sec[SS_SECTIONS_MAX];	/* the scenarios' (res.sections) */
	struct ss_secarg {
		struct ss_replay *s;
		const struct ss_scenario *sc;
	} secarg[SS_SECTIONS_MAX];
	struct rp_source *src;
	int dirfd, progress, done, usage;
	/* placements: 0 is --dir's (its fd set once it is open) */
	struct {
		unsigned n;	/* 1 + the placements (0: none) */
		char *glob[RP_PLACE_MAX];	/* NULL: --stage-hot's, --burst-buffer's */
		const char *dir[RP_PLACE_MAX];
		int fd[RP_PLACE_MAX];
	} pl;
	/* --burst-buffer */
	struct {
		unsigned place;
		struct rp_burst_plan *plan;
		size_t n;
		unsigned nckpts;
		struct rp_burst *b;
	} bb;
	/* --stage-hot: what was staged */
	struct {
		uint64_t size;		/* --stage-size */
		struct ss_staged *f;	/* the files staged, n of them */
		size_t n;
		uint64_t bytes, read_bytes;	/* theirs: sizes, reads */
		size_t all;			/* the files that could be staged */
		uint64_t all_bytes, all_read;	/* their sizes, their reads */
	} sh;
	/* --mpi: this rank, and its share of the accelerators */
	struct {
		int on, rank, size;
		unsigned count, first;	/* its accelerators: first .. first + count - 1 */
		int shared;		/* one DIR for every rank (no %r in it) */
	} m;
};

/* A scenario: a row of callbacks, each optional (ss_scen.c walks them). */
struct ss_scenario {
	const char *name;
	int (*on)(const struct ss_replay *s);
	/* its conflicts with the rest: SS_OK or the verdict after one line */
	int (*check)(struct ss_replay *s);
	/* once the source is open: what it does to the layout */
	int (*layout)(struct ss_replay *s, struct rp_layout *l);
	/* once DIR and the placements are open, before prepare */
	int (*prepared)(struct ss_replay *s, FILE *out);
	/* its hooks on the engine, and after the run */
	int (*hooks)(struct ss_replay *s, struct rp_engine *e);
	void (*after)(struct ss_replay *s, struct rp_result *res);
	/* its section of the report (rp_section): its key in the JSON
	 * report and where it goes there; report: its text to f, or (f NULL)
	 * its JSON value into *j */
	const char *key;
	enum rp_section_at at;
	int (*report)(struct ss_replay *s, FILE *f, json_t **j);
	void (*release)(struct ss_replay *s);
};

/* one line through the caller's callbacks; SS_FAIL, SS_USAGE */
int ss_error(struct ss_replay *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ss_usage(struct ss_replay *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ss_note(struct ss_replay *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ss_tape_error(struct ss_replay *s, const char *what, int err);

/* ss_scen.c: every scenario, in order */
extern const struct ss_scenario *const ss_scenarios[];
int ss_scen_check(struct ss_replay *s);
int ss_scen_layout(struct ss_replay *s, struct rp_layout *l);
int ss_scen_prepared(struct ss_replay *s, FILE *out);
int ss_scen_hooks(struct ss_replay *s, struct rp_engine *e);
void ss_scen_after(struct ss_replay *s, struct rp_result *res);
void ss_scen_release(struct ss_replay *s);

/* ss_source.c */
int ss_job_file(struct ss_replay *s);
int ss_trace_trainer(struct ss_replay *s);
struct ana;
/* The analysis's data set as the trace source takes it
 * (rp_trace_opts.dataset): one block of head bytes for the caller, then
 * the files' paths (*ds, *n of them, pointing into the block).  The
 * block (the caller's to free), or NULL: out of memory. */
void *ss_dataset_paths(const struct ana *a, size_t head, const char ***ds, size_t *n);
int ss_merged_host(struct ss_replay *s);
int ss_open_source(struct ss_replay *s, const struct rp_report_opts *r, unsigned n,
		   struct rp_source **src);

/* ss_run.c */
int ss_setup_dir(struct ss_replay *s, const struct rp_report_opts *r, int prep_only);
int ss_shared_dir(struct ss_replay *s, const struct rp_report_opts *r, unsigned n, int prep_only);
int ss_prepare(struct ss_replay *s, int dirfd, const struct rp_layout *l, unsigned scale);
int ss_run(struct ss_replay *s, struct rp_source *src, int dirfd, const struct rp_report_opts *r,
	   struct rp_result *res);
int ss_drop_caches(void);

/* ss_findmax.c */
int ss_find_max(struct ss_replay *s, FILE *out);

/* the scenarios' rows */
extern const struct ss_scenario ss_place, ss_placements, ss_stage, ss_burst, ss_ext_hooks,
	ss_mpi, ss_findmax, ss_readers;
int ss_mpi_open(struct ss_replay *s);
/* ss_place.c, ss_burst.c */
int ss_place_dirs_check(struct ss_replay *s);
int ss_place_open(struct ss_replay *s);
int ss_place_dirs(struct ss_replay *s, struct rp_source *src, int dirfd,
		  struct rp_places **out);
unsigned ss_place_add(struct ss_replay *s, const char *dir);
int ss_burst_failed(struct ss_replay *s);
int ss_has_ops(const struct rp_layout *l);
int ss_replay_go(struct ss_replay *s, FILE *out, const char *out_name);
/* ss_burst.c: the analysis's checkpoints, placed */
int ss_burst_plan(struct ss_replay *s, struct rp_layout *l, unsigned place);

#endif /* IOTAPE_SS_INTERNAL_H */
