/* SPDX-License-Identifier: MIT */
/*
 * exp_html.c - the html exporter: the analysis of a trace as one
 * self-contained HTML page of plots (analyze/ana_html.c draws it), or of
 * a job and its replay side by side under the fidelity checks
 * (`iotape report`, iotape-report(1)).
 *
 * A trace whose index had to be rebuilt (cut short) or with a damaged
 * block is refused: a page of plots does not show well that it covers
 * only part of the job (`iotape analyze` reads what is left, with a
 * warning).
 */
#include <errno.h>
#include <string.h>
#include "analyze.h"
#include "export.h"
#include "trace.h"

int exp_analysis_load(struct ana *a, const char *path, struct exp_diag *d)
{
	struct ana_opts o = { .top = -1, .to_ns = UINT64_MAX, .threads = 2 };
	const char *why;
	int err;

	memset(a, 0, sizeof(*a));
	err = ana_run(a, path, &o);
	if (err == -ENOMEM) {
		snprintf(d->msg, sizeof(d->msg), "%s: out of memory", path);
		return err;
	}
	if (err) {
		cm_trace_error(d->msg, sizeof(d->msg), path, err);
		return err;
	}
	if ((why = tape_reader_recovered(a->r))) {
		snprintf(d->msg, sizeof(d->msg), "%s: truncated or damaged (index rebuilt by "
			 "scanning: %s); no report of part of a job (iotape analyze reads what "
			 "is left)", path, why);
		return -EINVAL;
	}
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		if (a->damage[t]) {
			snprintf(d->msg, sizeof(d->msg), "%s: %s table: %s; no report of part of "
				 "a job (iotape analyze reads the events before it)", path,
				 tape_table_name(t), a->damage_detail[t]);
			return -EINVAL;
		}
	return 0;
}

static int html_write(const struct exp_io *io, const struct exp_opts *o, struct exp_diag *d)
{
	int err = ana_report_html(io->a, io->b, o ? o->checks : NULL, o ? o->nchecks : 0,
				  io->f);

	if (err)
		snprintf(d->msg, sizeof(d->msg), "%s: %s", io->out,
			 err == -ENOMEM ? "out of memory" : strerror(-err));
	return err;
}

const struct exporter exp_html = {
	"html", "the analysis as one self-contained HTML page of plots (`iotape report`)", EXP_NEEDS_ANALYSIS, html_write,
};
