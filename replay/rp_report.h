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
 * A section of the report that is not the engine's (a scenario's, a
 * hook's: --stage-hot's "staging", the burst buffer's "burst_buffer"),
 * named by the caller in rp_result.sections: the report writes each where
 * it says, knowing none of them.  Text: after the placements, in order.
 */
enum rp_section_at {
	RP_AT_PLACEMENTS,	/* JSON: after "placements", before "scale" */
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

int rp_report_text(FILE *f, const struct rp_layout *l, const struct rp_opts *o,
		   struct rp_result *res);
int rp_report_json(FILE *f, const struct rp_layout *l, const struct rp_opts *o,
		   struct rp_result *res);

#endif /* IOTAPE_RP_REPORT_H */
