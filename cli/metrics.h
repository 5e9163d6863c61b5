/* SPDX-License-Identifier: MIT */
/*
 * metrics.h - live metrics: a registry of counters, gauges and histograms,
 * their exposition in the Prometheus text format (version 0.0.4), and an
 * HTTP endpoint serving it (metrics_http.c, libmicrohttpd).
 *
 * A metric (a family: name, help, type, label names) is added before any
 * thread updates or reads the registry; from then on the set of metrics is
 * fixed.  Its series (one per set of label values) are claimed as they are
 * first asked for, without a lock (a compare-and-swap on a slot), up to the
 * metric's max_series; past that every new set of values shares one
 * overflow series whose label values are all "other": the label set is
 * bounded, whatever a workload does.  Updates are relaxed atomic adds and
 * stores, so any thread may update while the server's thread writes the
 * exposition; a scrape sees each value as it was at some point during the
 * scrape (a histogram's _count is the sum of the buckets it wrote, so its
 * "+Inf" bucket always equals _count).
 *
 * Values are integers in raw units (bytes, nanoseconds, pages) with a
 * scale that turns them into the metric's base unit when written (1e-9:
 * nanoseconds written as seconds); gauges hold a double.
 *
 * Library code: functions return 0 or -errno and never print.
 */
#ifndef IOTAPE_COMMON_METRICS_H
#define IOTAPE_COMMON_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CLI_METRIC_LABELS 4	/* label names a metric may have */
#define CLI_METRIC_BUCKETS 24	/* a histogram's bounds, +Inf aside */
#define CLI_METRIC_VALUE 64	/* bytes of a label value kept (longer: cut) */

enum cli_metric_type { CLI_COUNTER, CLI_GAUGE, CLI_HISTOGRAM };

struct cli_metric_def {
	const char *name;	/* [a-zA-Z_:][a-zA-Z0-9_:]* (checked) */
	const char *help;	/* one line */
	int type;		/* enum cli_metric_type */
	const char *labels[CLI_METRIC_LABELS];	/* names, NULL ends (none: an
						 * unlabelled metric, one series) */
	unsigned max_series;	/* distinct label sets kept (0: 64) */
	double scale;		/* base units per raw unit (0: 1) */
	const double *bounds;	/* a histogram's bucket upper bounds, in base
				 * units, increasing; +Inf is added */
	unsigned nbounds;
};

typedef struct cli_metrics cli_metrics;
struct cli_metric;		/* one metric of a registry */
struct cli_series;		/* one of its series */

int cli_metrics_new(cli_metrics **out);
/* Free m and its metrics (NULL accepted); no thread may use them after. */
void cli_metrics_free(cli_metrics *m);

/*
 * Add a metric to m (d and its strings are copied): 0 and *out, -EINVAL
 * for a bad name, a label count or bounds out of range, -EEXIST for a name
 * m has, -ENOMEM.  Only before the registry is shared (see above); on
 * error m is unchanged.
 */
int cli_metrics_add(cli_metrics *m, const struct cli_metric_def *d, struct cli_metric **out);

/*
 * The series of f for the label values v (as many as f has labels; NULL
 * for an unlabelled metric), claimed at the first call: never NULL (past
 * max_series, the overflow series).  Thread-safe, lock-free; a caller on a
 * hot path keeps the pointer rather than asking every time.
 */
struct cli_series *cli_metric_series(struct cli_metric *f, const char *const *v);

/* A counter: add n raw units. */
void cli_series_add(struct cli_series *s, uint64_t n);
/* A gauge: set it to v (base units). */
void cli_series_set(struct cli_series *s, double v);
/* A histogram: one observation of raw units. */
void cli_series_observe(struct cli_series *s, uint64_t raw);

/*
 * fn(arg) is called before each exposition, on the writer's thread: for
 * gauges computed when read.  One per registry (NULL: none); set it before
 * the registry is shared, or clear it (NULL) before what arg points to
 * goes away, with the server stopped.
 */
void cli_metrics_on_collect(cli_metrics *m, void (*fn)(void *arg), void *arg);

/* The exposition of every metric to f, in the order added: 0, or -EIO
 * when f reports an error. */
int cli_metrics_write(cli_metrics *m, FILE *f);

/* ------------------------------------------------------------- endpoint */

/*
 * "[ADDR:]PORT" (--metrics): an IPv4 address (default 127.0.0.1), or an
 * IPv6 one in brackets ("[::1]:9100"), and a port 0 to 65535 (0: any free
 * one).  0, or -EINVAL with why in err.  addr gets the address text.
 */
int cli_metrics_addr_parse(const char *s, char *addr, size_t addrlen, unsigned *port, char *err,
			  size_t errlen);

typedef struct cli_metrics_http cli_metrics_http;
/*
 * Serve m over HTTP at addr:port on a thread of its own (libmicrohttpd):
 * GET /metrics is the exposition, GET / a line pointing to it, anything
 * else 404 (405 for a method but GET and HEAD).  The listening socket is
 * bound before this returns: -EADDRINUSE (port taken), -EACCES, -errno,
 * with why in err; then nothing is left running.  *port_out, when not
 * NULL, gets the port bound (port 0: the one the kernel chose).  The
 * server's thread blocks every signal, so they keep going to the caller's.
 */
int cli_metrics_http_start(cli_metrics_http **out, cli_metrics *m, const char *addr, unsigned port,
			  unsigned *port_out, char *err, size_t errlen);
/* Stop serving and free h (NULL accepted): on return no request runs. */
void cli_metrics_http_stop(cli_metrics_http *h);

#endif /* IOTAPE_COMMON_METRICS_H */
