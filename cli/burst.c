/* SPDX-License-Identifier: MIT */
/*
 * burst.c - `iotape replay --burst-buffer`: which files of a replay's
 * layout are checkpoints.  The analysis (analyze/, which replay/ may not
 * use) names the checkpoints and their files' write bursts; the files the
 * job renames those to (NAME.tmp -> NAME) are placed with them, so that
 * the rename stays within one directory tree.  replay/rp_burst.c does the
 * rest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "cli.h"
#include "replay.h"

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

int burst_plan(const char *trace, struct rp_layout *l, unsigned place,
	       struct rp_burst_plan **plan, size_t *n, unsigned *nckpts)
{
	struct ana_opts o = { .to_ns = UINT64_MAX, .top = -1, .threads = 2 };
	struct ana a;
	size_t np = 0;
	int err;

	*plan = NULL;
	*n = 0;
	memset(&a, 0, sizeof(a));
	if ((err = ana_run(&a, trace, &o))) {
		if (err == -ENOMEM)
			cli_error("%s: out of memory", trace);
		else
			cli_tape_error(trace, err);
		ana_release(&a);
		return EXIT_FAIL;
	}
	struct rp_burst_plan *p = calloc(a.sys.nbursts ? a.sys.nbursts : 1, sizeof(*p));
	if (!p) {
		cli_error("out of memory");
		ana_release(&a);
		return EXIT_FAIL;
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
		cli_error("--burst-buffer: %s has no checkpoints (write bursts of 1 MiB or more, "
			  "whole-file writes that repeat: iotape-analyze(1)) to put in a burst buffer",
			  trace);
		return EXIT_FAIL;
	}
	if ((err = place_renames(trace, l, place))) {
		free(p);
		cli_tape_error(trace, err);
		return EXIT_FAIL;
	}
	if ((err = rp_layout_place_done(l))) {
		free(p);
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	*plan = p;
	*n = np;
	return 0;
}
