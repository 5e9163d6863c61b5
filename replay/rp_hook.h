/* SPDX-License-Identifier: MIT */
/*
 * rp_hook.h - hooks: callbacks at points of a replay (libreplay;
 * replay.h includes it), and the burst buffer, the hook set with a
 * section of its own in the report.
 */
#ifndef IOTAPE_RP_HOOK_H
#define IOTAPE_RP_HOOK_H

#include "rp_source.h"

struct rp_result;
struct json_t;

/* What rp_hooks.op is told of an op the engine counts as done: every op
 * progress's ops_done counts, once (an op not issued, RP_F_SKIP or
 * RP_F_STEP, too: res 0, lat_ns 0). */
struct rp_op_done {
	unsigned thread;	/* index in the layout's threads */
	uint32_t kind;		/* enum cm_kind */
	uint32_t flags;		/* the op's RP_F_* */
	uint32_t file, file2;	/* the op's layout files (rp_op.file, file2;
				 * file2: RP_NO_FILE but for namespace ops) */
	int64_t res;		/* a data op's bytes, else 0; or -errno: it failed */
	uint64_t lat_ns;	/* from its issue to its completion */
	uint64_t clat_ns;	/* from its submission to its completion (an
				 * issued data op's; else lat_ns) */
	uint64_t compute_ns;	/* the thread's compute so far (rp_job.compute_ns) */
	uint64_t elapsed_ns;	/* since the first loop started */
};

/*
 * Hooks: callbacks at points of the run, each optional; several sets may
 * be added (rp_engine_add_hooks), called in the order added.  They run on
 * the threads named, and must not block for long.
 */
struct rp_hooks {
	void *arg;
	/* Serial replay thread, at the loop's start, before its clock starts
	 * (all replay threads are at the loop barrier). */
	void (*loop_start)(void *arg, unsigned loop);
	/* The thread that called rp_engine_run, about twice a second. */
	void (*progress)(void *arg, uint64_t ops_done, uint64_t ops_total);
	/* The replay thread of the op, as each op is done (live metrics):
	 * called from every replay thread at once, so it must be thread-safe,
	 * quick and never block.  With no op hook the engine's cost is one
	 * test an op. */
	void (*op)(void *arg, const struct rp_op_done *d);
};


/* ---------------------------------------------- placements and copies */

/*
 * DIR, its placements and the data set's copies (rp_place.c): the
 * directory resolver (rp_dirs) of a source, and hooks that count per
 * placement (fio's read / write per DIR) and per copy (the data set's
 * bytes read) for the report.  Layout l must outlive it, fds[p] (n of
 * them, n at least l's nplaces; fds[0] the dirfd of rp_engine_init) too.
 * copies: --scale-dataset K (loop l reads copy l % K, 0 taken as 1);
 * sparse: files restored as holes.  0, -EINVAL, -ENOMEM.
 */
struct rp_places;
int rp_places_new(struct rp_places **out, const struct rp_layout *l, const int *fds,
		  unsigned n, unsigned copies, int sparse);
/* The resolver to set on the source (rp_source.dirs), and the hooks to add
 * to the engine. */
struct rp_dirs rp_places_dirs(struct rp_places *p);
void rp_places_hooks(struct rp_places *p, struct rp_hooks *h);
/* After rp_engine_finish: the figures into res (rp_result.copy_bytes,
 * ncopies; with placements, nplaces and each job's place).  0, -ENOMEM. */
int rp_places_result(struct rp_places *p, struct rp_result *res);
void rp_places_free(struct rp_places *p);	/* NULL: nothing */

/* --------------------------------------------------------- burst buffer */

/*
 * --burst-buffer FAST [--drain] (rp_burst.c): the caller places the
 * checkpoint files (the analysis's write bursts of checkpoints, and what
 * the job renames them to) under FAST, a placement; hooks follow each
 * file's write burst in the replay, from its first write to its close
 * (its last open fd closed).  With drain, a thread copies each checkpoint
 * file, once closed, to its place under DIR (io_uring reads and writes,
 * O_DIRECT where DIR takes it, then fdatasync: what the drain took is the
 * slow tier's time), and does the job's later renames and unlinks of the
 * placed files there too, in the order the job did them, so DIR ends up
 * with the files the job would have left in it.
 */
struct rp_burst_plan {		/* one recorded write burst of a checkpoint */
	uint32_t file;		/* layout file written */
	uint32_t ckpt;		/* the checkpoint it is part of, 0 .. n-1 */
};

struct rp_burst_ckpt {		/* one checkpoint of the replay (times: ns
				 * since the first loop started) */
	uint64_t start_ns;	/* its first write issued */
	uint64_t close_ns;	/* its last file closed */
	uint64_t bytes, files;	/* written; file bursts closed */
	uint64_t drain_ns;	/* copying its files (their sum) */
	uint64_t drain_start_ns, drain_end_ns;	/* first copy began, last ended */
	uint64_t drained, gone;	/* files copied; gone before their copy (the
				 * job unlinked them first) */
	uint64_t superseded;	/* files whose copy was given up: the job
				 * wrote a newer version of the file before
				 * or while it ran (that version's copy
				 * follows, in a later checkpoint) */
	int err;		/* first failed copy: -errno (0: none) */
	uint32_t err_file;	/* its layout file */
	int busy;		/* set by rp_burst_result: a drain of an earlier
				 * checkpoint still ran (or waited) when it began */
};

struct rp_burst;
/*
 * A burst buffer over layout l (which must outlive it): plan[0 .. n-1], in
 * the recorded order, of nckpts checkpoints; the files placed under FAST
 * are those of placement place; fast_fd and dir_fd, the dirfds of FAST and
 * DIR (kept open by the caller).  drain: copy them to DIR.  0, -ENOMEM.
 */
int rp_burst_new(struct rp_burst **out, const struct rp_layout *l,
		 const struct rp_burst_plan *plan, size_t n, unsigned nckpts, unsigned loops,
		 unsigned place, int fast_fd, int dir_fd, int drain);
/* Its hooks (loop start, op): add them to the engine, then rp_burst_start
 * (the drain thread; 0 or -errno) before rp_engine_run. */
void rp_burst_hooks(struct rp_burst *b, struct rp_hooks *h);
int rp_burst_start(struct rp_burst *b);
/* After rp_engine_run: wait for the drains to end; 0. */
int rp_burst_wait(struct rp_burst *b);
/* The checkpoints (busy set), n of them: valid until rp_burst_free. */
const struct rp_burst_ckpt *rp_burst_result(struct rp_burst *b, size_t *n);
/* The first drain that failed (a copy's error; not a file the job unlinked
 * before its copy): 1 with *err and *file set, else 0. */
int rp_burst_failed(const struct rp_burst *b, int *err, uint32_t *file);
void rp_burst_free(struct rp_burst *b);	/* NULL: nothing; joins the thread */
/* Its section of the replay's report (the caller's rp_section): for FAST
 * (its directory, as the caller names it), per checkpoint, the time the
 * job saw and the drain's, and AU with and without the burst buffer. */
void rp_burst_text(FILE *f, struct rp_burst *b, const char *fast, const struct rp_layout *l,
		   const struct rp_result *res);
struct json_t *rp_burst_json(struct rp_burst *b, const char *fast, const struct rp_layout *l,
			     const struct rp_result *res);


#endif /* IOTAPE_RP_HOOK_H */
