/* SPDX-License-Identifier: MIT */
/*
 * ss_burst.c - the burst-buffer scenario, --burst-buffer FAST_DIR
 * [--drain]: which files of a replay's layout are checkpoints.  The
 * analysis names the checkpoints and their files' write bursts; the files
 * the job renames those to (NAME.tmp -> NAME) are placed with them, so
 * that the rename stays within one directory tree.  replay/rp_burst.c
 * does the rest: its hooks follow each checkpoint, its thread drains them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "analyze.h"
#include "ss_internal.h"

/* The layout file of a recorded path: 0 and *f, or -1 when the replay
 * has no such file. */
static int layout_file(const struct rp_layout *l, const char *path, uint32_t *f)
{
	char *p = strdup(path);
	int rc = -1;

	if (p && !rp_path_map(p) && !cm_strtab_find(&l->paths, p, f) && *f < l->nfiles)
		rc = 0;
	free(p);
	return rc;
}

/* The renames of placed files place their targets too (in the job's order,
 * so a chain of them is followed).  0, or the error of the trace. */
static int place_renames(const char *trace, struct rp_layout *l, unsigned place)
{
	tape_reader *r;
	tape_cursor *c;
	const void *ev;
	int rc;

	if ((rc = tape_reader_open(&r, trace)))
		return rc;
	if ((rc = tape_cursor_open(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &c))) {
		tape_reader_free(r);
		return rc;
	}
	while ((rc = tape_cursor_next(c, &ev)) == 1) {
		const struct tape_syscall *e = ev;
		uint32_t f, g;
		if ((e->op != TAPE_OP_RENAME && e->op != TAPE_OP_RENAMEAT &&
		     e->op != TAPE_OP_RENAMEAT2) || e->ret < 0 || !e->path2 || !*e->path2)
			continue;
		if (!layout_file(l, e->path, &f) && l->files[f].place == place &&
		    !layout_file(l, e->path2, &g))
			l->files[g].place = (uint8_t)place;
	}
	tape_cursor_free(c);
	tape_reader_free(r);
	return rc;
}

/* Place the checkpoints of the trace (placement place): s->bb's plan.
 * SS_OK, or SS_FAIL after one error line. */
int ss_burst_plan(struct ss_replay *s, struct rp_layout *l, unsigned place)
{
	const char *trace = s->sa.trace;
	struct rp_burst_plan **plan = &s->bb.plan;
	size_t *n = &s->bb.n;
	unsigned *nckpts = &s->bb.nckpts;
	struct ana_opts o = { .to_ns = UINT64_MAX, .top = -1, .threads = 2 };
	struct ana a;
	size_t np = 0;
	int err;

	*plan = NULL;
	*n = 0;
	memset(&a, 0, sizeof(a));
	if ((err = ana_run(&a, trace, &o))) {
		if (err == -ENOMEM)
			ss_error(s, "%s: out of memory", trace);
		else
			ss_tape_error(s, trace, err);
		ana_release(&a);
		return SS_FAIL;
	}
	struct rp_burst_plan *p = calloc(a.sys.nbursts ? a.sys.nbursts : 1, sizeof(*p));
	if (!p) {
		ss_error(s, "out of memory");
		ana_release(&a);
		return SS_FAIL;
	}
	/* the bursts the checkpoints are made of, in time order, each in its
	 * checkpoint (ana_ckpt_find: the analysis's rule) */
	for (size_t i = 0; i < a.sys.nbursts; i++) {
		const struct ana_ckpt *b = &a.sys.bursts[i];
		char buf[ANA_PATH_BUF];
		const char *path = b->file < a.nfiles ? ana_file_path(&a, &a.files[b->file], buf) : NULL;
		uint32_t f;
		if (b->ckpt == ANA_CKPT_NONE || !path || layout_file(l, path, &f))
			continue;
		p[np++] = (struct rp_burst_plan){ f, b->ckpt };
		l->files[f].place = (uint8_t)place;
	}
	*nckpts = (unsigned)a.nckpts;
	ana_release(&a);
	if (!np) {
		free(p);
		ss_error(s, "--burst-buffer: %s has no checkpoints (write bursts of 1 MiB or more, "
			  "whole-file writes that repeat: iotape-analyze(1)) to put in a burst buffer",
			  trace);
		return SS_FAIL;
	}
	if ((err = place_renames(trace, l, place))) {
		free(p);
		ss_tape_error(s, trace, err);
		return SS_FAIL;
	}
	if ((err = rp_layout_place_done(l))) {
		free(p);
		ss_error(s, "out of memory");
		return SS_FAIL;
	}
	*plan = p;
	*n = np;
	return 0;
}

static int burst_on(const struct ss_replay *s)
{
	return s->c.burst_dir != NULL;
}

static int burst_check(struct ss_replay *s)
{
	const struct ss_cfg *c = &s->c;

	if (c->drain && !c->burst_dir)
		return ss_usage(s, "--drain needs --burst-buffer");
	if (c->burst_dir && (c->mpi || c->find || c->acc_given || s->sa.job || c->stage_dir))
		return ss_usage(s, "--burst-buffer and %s exclude each other%s", c->mpi ? "--mpi" :
				c->find ? "--find-max" : c->acc_given ? "--accelerators" :
				c->stage_dir ? "--stage-hot" : "a job file",
				s->sa.job ? " (its checkpoints: --place 'FOLDER/*=FAST_DIR')" : "");
	return SS_OK;
}

/* Place the checkpoints of the trace under FAST_DIR (a placement more). */
static int burst_layout(struct ss_replay *s, struct rp_layout *l)
{
	struct stat sb;

	errno = 0;
	if (stat(s->c.burst_dir, &sb) || !S_ISDIR(sb.st_mode)) {
		int e = errno;
		return ss_error(s, "--burst-buffer %s: %s", s->c.burst_dir,
				e ? strerror(e) : "not a directory");
	}
	if (s->pl.n == RP_PLACE_MAX)
		return ss_usage(s, "--burst-buffer: at most %d placements with --place",
				RP_PLACE_MAX - 1);
	s->bb.place = s->pl.n ? s->pl.n : 1;
	if (ss_burst_plan(s, l, s->bb.place))
		return SS_FAIL;
	ss_place_add(s, s->c.burst_dir);
	return SS_OK;
}

/* The burst buffer's hooks and drain thread on engine e. */
static int burst_hooks(struct ss_replay *s, struct rp_engine *e)
{
	struct rp_hooks h;
	int rc = rp_burst_new(&s->bb.b, &s->src->layout, s->bb.plan, s->bb.n, s->bb.nckpts,
			      s->c.o.loops, s->bb.place, s->pl.fd[s->bb.place], s->pl.fd[0],
			      s->c.drain);

	if (!rc) {
		rp_burst_hooks(s->bb.b, &h);
		rc = rp_engine_add_hooks(e, &h);
	}
	if (!rc)
		rc = rp_burst_start(s->bb.b);
	if (rc)
		return ss_error(s, "--burst-buffer: %s", strerror(-rc));
	return SS_OK;
}

/* The job is over; its drains may not be. */
static void burst_after(struct ss_replay *s, struct rp_result *res)
{
	(void)res;
	if (s->c.drain) {
		if (s->progress)
			ss_note(s, "iotape replay: waiting for the burst buffer's drains\n");
		rp_burst_wait(s->bb.b);
	}
}

/* Its section of the report: the checkpoints, as the job saw them and
 * drained. */
static int burst_report(struct ss_replay *s, FILE *f, json_t **j)
{
	if (!s->bb.b)
		return SS_OK;
	if (f)
		rp_burst_text(f, s->bb.b, s->c.burst_dir, &s->src->layout, &s->res);
	else if (!(*j = rp_burst_json(s->bb.b, s->c.burst_dir, &s->src->layout, &s->res)))
		return ss_error(s, "out of memory");
	return SS_OK;
}

/* After the report: a drain that failed fails the run. */
int ss_burst_failed(struct ss_replay *s)
{
	uint32_t f;
	int rc;

	if (s->bb.b && rp_burst_failed(s->bb.b, &rc, &f) && !s->c.ignore) {
		ss_error(s, "--burst-buffer: the drain of %s failed: %s; --ignore-errors exits 0",
			 rp_file_path(&s->src->layout, f), strerror(-rc));
		return 1;
	}
	return 0;
}

static void burst_release(struct ss_replay *s)
{
	rp_burst_free(s->bb.b);
	free(s->bb.plan);
	memset(&s->bb, 0, sizeof(s->bb));
}

const struct ss_scenario ss_burst = { "burst-buffer", burst_on, burst_check, burst_layout,
				      .hooks = burst_hooks, .after = burst_after,
				      .key = "burst_buffer", .at = RP_AT_SCALE, .report = burst_report,
				      .release = burst_release };
