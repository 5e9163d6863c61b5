/* SPDX-License-Identifier: MIT */
/*
 * rp_report.h - a replay's results as fio-shaped text and JSON (libreplay;
 * replay.h includes it).
 */
#ifndef IOTAPE_RP_REPORT_H
#define IOTAPE_RP_REPORT_H

#include "rp_engine.h"

/* ---------------------------------------------------------------- report */

int rp_report_text(FILE *f, const struct rp_layout *l, const struct rp_opts *o,
		   struct rp_result *res);
int rp_report_json(FILE *f, const struct rp_layout *l, const struct rp_opts *o,
		   struct rp_result *res);

#endif /* IOTAPE_RP_REPORT_H */
