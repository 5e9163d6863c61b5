/* SPDX-License-Identifier: MIT */
/*
 * live.h - `--metrics [ADDR:]PORT` of record and replay: iotape's metrics
 * (their names, labels and buckets, man iotape-record(1) METRICS) on the
 * registry and endpoint of cli/metrics.h, fed by the recorder's row
 * hook (rec_opts.row) or the replay engine's hooks (rp_hooks).
 *
 * Nothing of this exists unless --metrics is given: without it the
 * recorder and the engine keep their hooks unset.
 */
#ifndef IOTAPE_CLI_LIVE_H
#define IOTAPE_CLI_LIVE_H

#include <stdint.h>

struct opt_cmd;
struct rec_progress;
struct rec_result;
struct rp_hooks;
struct rp_layout;
struct rp_result;

enum live_kind { LIVE_RECORD, LIVE_REPLAY };

struct live;

/*
 * Check "[ADDR:]PORT" for cmd's --metrics: 0, or EXIT_USAGE after the
 * error line.
 */
int live_check(const struct opt_cmd *cmd, const char *spec);

/*
 * Register the metrics of kind and serve them at spec (checked): 0 and
 * *out, after "iotape CMD: metrics at http://ADDR:PORT/metrics" on stderr;
 * or EXIT_FAIL after one error line (a port in use: "--metrics ADDR:PORT:
 * ADDR port PORT is in use").
 */
int live_start(struct live **out, enum live_kind kind, const char *spec);

/* The recorder's hooks (rec_row_fn, and from rec_progress_fn): arg is the
 * struct live. */
void live_row(void *arg, int table, const void *row, const char *comm);
void live_progress(struct live *lv, const struct rec_progress *p);
/* The final lost counts of a recording. */
void live_record_end(struct live *lv, const struct rec_result *res);

/*
 * Hooks for a replay of layout l with loops loops, into *h (to add with
 * rp_engine_add_hooks): per-op counters and histograms, ops done against
 * planned, accelerator utilization.  The layout must outlive the run; the
 * next call (another run: --find-max's trials) starts from its layout.
 * 0 or -ENOMEM.
 */
int live_replay_hooks(struct live *lv, const struct rp_layout *l, unsigned loops,
		      struct rp_hooks *h);
/* After the run: the final AU per accelerator (rp_scale_stats) and ops
 * done; from then on the gauges hold these values. */
void live_replay_end(struct live *lv, const struct rp_layout *l, const struct rp_result *res);

/*
 * Keep serving for seconds (--metrics-linger) so that a last scrape sees
 * the final values; SIGINT or SIGTERM ends it early.  Then stop the
 * server and free lv (NULL: nothing).
 */
void live_stop(struct live *lv, double linger_s);

#endif /* IOTAPE_CLI_LIVE_H */
