/* SPDX-License-Identifier: MIT */
/*
 * live.c - iotape's live metrics (live.h): which metrics, and how the
 * recorder's rows and the replay's ops update them.
 *
 * The hot paths keep series pointers so that a row or an op is a few
 * relaxed atomic adds: the recorder (one thread) in a small direct-mapped
 * cache of processes by pid and comm, the replay per layout thread (set
 * up before the run, read only while it runs).  A process label set past
 * the metric's bound goes to its "other" series (cli/metrics.h).
 * Accelerator utilization during a replay is computed when scraped: each
 * accelerator's most compute of its threads over the time since the run
 * started (rp_scale_stats's definition, without its warm-up step); after
 * the run, rp_scale_stats's own values.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "live.h"
#include "metrics.h"
#include "opt.h"
#include "recorder.h"
#include "replay.h"

#define NCLASS 10		/* enum tape_op_class */
#define PROC_SERIES 256		/* processes (pid, comm) a metric tells apart */
#define PROC_CACHE 256

static const char *const class_names[NCLASS] = {
	"other", "open", "close", "dup", "read", "write", "sync", "mmap", "meta", "namespace",
};

/* The replay's op kinds as the recorder's op classes. */
static unsigned kind_class(unsigned kind)
{
	switch (kind) {
	case CM_OPEN: return TAPE_OPC_OPEN;
	case CM_CLOSE: return TAPE_OPC_CLOSE;
	case CM_READ: return TAPE_OPC_READ;
	case CM_WRITE: return TAPE_OPC_WRITE;
	case CM_FSYNC: case CM_FDATASYNC: return TAPE_OPC_SYNC;
	case CM_UNLINK: case CM_RENAME: case CM_MKDIR: return TAPE_OPC_NAMESPACE;
	case CM_DUP: return TAPE_OPC_DUP;
	case CM_STAT: case CM_GETDENTS: case CM_ACCESS: case CM_READLINK: return TAPE_OPC_META;
	}
	return TAPE_OPC_OTHER;
}

/* 512 B .. 64 MiB, by 4 */
static const double size_bounds[] = {
	512, 2048, 8192, 32768, 131072, 524288, 2097152, 8388608, 33554432, 67108864,
};
/* 1 us .. 10 s */
static const double lat_bounds[] = {
	1e-6, 4e-6, 16e-6, 64e-6, 256e-6, 1e-3, 4e-3, 16e-3, 64e-3, 0.256, 1, 4, 10,
};
#define NB(a) (sizeof(a) / sizeof((a)[0]))

/* A process's series (recorder) or a replay thread's. */
struct proc {
	uint32_t pid;
	char comm[16];
	struct cli_series *rbytes, *wbytes, *ops[NCLASS];
};

struct tslot {			/* a replay thread */
	struct proc p;
	unsigned accel;
	_Atomic uint64_t compute_ns;
};

struct live {
	enum live_kind kind;
	cli_metrics *m;
	cli_metrics_http *http;
	struct cli_metric *rbytes, *wbytes, *ops, *size, *lat, *errors;
	struct cli_metric *blk_bytes, *blk_lat, *pg_acc, *pg_miss, *events, *lost, *procs;
	struct cli_metric *done, *planned, *au;
	struct cli_series *size_s[NCLASS], *lat_s[NCLASS], *err_s[NCLASS];
	struct cli_series *blk_bytes_s[2], *blk_lat_s[2], *pg_acc_s, *pg_miss_s;
	struct cli_series *events_s[TAPE_TABLE_MAX], *lost_s[TAPE_TABLE_MAX], *procs_s;
	struct cli_series *done_s, *planned_s;
	struct proc cache[PROC_CACHE];	/* the recorder's (its thread only) */
	uint64_t lost_seen[TAPE_TABLE_MAX];	/* the lost counts added so far */
	/* the replay's */
	pthread_mutex_t mu;	/* the collector against a new run's arrays */
	struct tslot *t;
	size_t nt;
	unsigned naccel;
	struct cli_series **au_s;
	double *au_max;		/* scratch of the collector */
	_Atomic uint64_t start_ns;	/* CLOCK_MONOTONIC of the run's start, 0 */
	_Atomic int final;	/* the run ended: the gauges are final */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int live_check(const struct opt_cmd *cmd, const char *spec)
{
	char addr[64], err[256];
	unsigned port;

	if (cli_metrics_addr_parse(spec, addr, sizeof(addr), &port, err, sizeof(err))) {
		opt_error(cmd, "--metrics: %s", err);
		return EXIT_USAGE;
	}
	return 0;
}

/* ------------------------------------------------------------ metrics */

static int add(struct live *lv, struct cli_metric **f, const char *name, int type,
	       const char *help, const char *l1, const char *l2, const char *l3, unsigned max,
	       double scale, const double *b, unsigned nb)
{
	struct cli_metric_def d = {
		.name = name, .help = help, .type = type, .labels = { l1, l2, l3 },
		.max_series = max, .scale = scale, .bounds = b, .nbounds = nb,
	};
	return cli_metrics_add(lv->m, &d, f);
}

static int define(struct live *lv)
{
	int rc = 0, rec = lv->kind == LIVE_RECORD;
	const char *what = rec ? "recorded" : "replayed";
	char h[6][160];

	snprintf(h[0], sizeof(h[0]), "Bytes read by successful %s read calls, per process.",
		 what);
	snprintf(h[1], sizeof(h[1]), "Bytes written by successful %s write calls, per process.",
		 what);
	snprintf(h[2], sizeof(h[2]), "I/O operations %s, per op class and process.", what);
	snprintf(h[3], sizeof(h[3]), "Bytes asked for by each %s read and write.", what);
	snprintf(h[4], sizeof(h[4]), "Latency of each %s operation (%s), per op class.", what,
		 rec ? "system call entry to exit" : "io_uring submission to completion");
	snprintf(h[5], sizeof(h[5]), "%s operations that failed, per op class.",
		 rec ? "Recorded" : "Replayed");
	rc |= add(lv, &lv->rbytes, "iotape_read_bytes_total", CLI_COUNTER, h[0], "pid", "comm",
		  NULL, PROC_SERIES, 1, NULL, 0);
	rc |= add(lv, &lv->wbytes, "iotape_write_bytes_total", CLI_COUNTER, h[1], "pid", "comm",
		  NULL, PROC_SERIES, 1, NULL, 0);
	rc |= add(lv, &lv->ops, "iotape_operations_total", CLI_COUNTER, h[2], "op", "pid", "comm",
		  PROC_SERIES * 4, 1, NULL, 0);
	rc |= add(lv, &lv->errors, "iotape_operation_errors_total", CLI_COUNTER, h[5], "op", NULL,
		  NULL, NCLASS, 1, NULL, 0);
	rc |= add(lv, &lv->size, "iotape_request_size_bytes", CLI_HISTOGRAM, h[3], "op", NULL, NULL,
		  4, 1, size_bounds, NB(size_bounds));
	rc |= add(lv, &lv->lat, "iotape_operation_latency_seconds", CLI_HISTOGRAM, h[4], "op",
		  NULL, NULL, NCLASS, 1e-9, lat_bounds, NB(lat_bounds));
	if (rec) {
		rc |= add(lv, &lv->blk_bytes, "iotape_block_bytes_total", CLI_COUNTER,
			  "Bytes of block requests completed, reads and writes.", "op", NULL,
			  NULL, 2, 1, NULL, 0);
		rc |= add(lv, &lv->blk_lat, "iotape_block_latency_seconds", CLI_HISTOGRAM,
			  "Latency of block requests, issue to completion.", "op", NULL, NULL, 2,
			  1e-9, lat_bounds, NB(lat_bounds));
		rc |= add(lv, &lv->pg_acc, "iotape_page_cache_accessed_pages_total", CLI_COUNTER,
			  "Page-cache pages accessed (buffered reads, faults on file mappings).",
			  NULL, NULL, NULL, 0, 1, NULL, 0);
		rc |= add(lv, &lv->pg_miss, "iotape_page_cache_missed_pages_total", CLI_COUNTER,
			  "Page-cache pages added by reads (misses, readahead included).", NULL,
			  NULL, NULL, 0, 1, NULL, 0);
		rc |= add(lv, &lv->events, "iotape_events_total", CLI_COUNTER,
			  "Rows written to the trace, per table (layer).", "table", NULL, NULL,
			  TAPE_TABLE_MAX, 1, NULL, 0);
		rc |= add(lv, &lv->lost, "iotape_events_lost_total", CLI_COUNTER,
			  "Events the kernel side could not deliver, per table (layer).", "table",
			  NULL, NULL, TAPE_TABLE_MAX, 1, NULL, 0);
		rc |= add(lv, &lv->procs, "iotape_processes", CLI_GAUGE,
			  "Traced processes alive.", NULL, NULL, NULL, 0, 1, NULL, 0);
	} else {
		rc |= add(lv, &lv->done, "iotape_replay_operations_done_total", CLI_COUNTER,
			  "Operations the replay has done (issued or kept in place), all loops.",
			  NULL, NULL, NULL, 0, 1, NULL, 0);
		rc |= add(lv, &lv->planned, "iotape_replay_operations_planned", CLI_GAUGE,
			  "Operations the replay is to do, all loops.", NULL, NULL, NULL, 0, 1,
			  NULL, 0);
		rc |= add(lv, &lv->au, "iotape_accelerator_utilization_ratio", CLI_GAUGE,
			  "Simulated accelerator utilization (compute time / wall time), per "
			  "accelerator.", "accelerator", NULL, NULL, 1024, 1, NULL, 0);
	}
	if (rc)
		return rc;
	for (unsigned c = 0; c < NCLASS; c++) {
		const char *v[1] = { class_names[c] };
		if (c == TAPE_OPC_READ || c == TAPE_OPC_WRITE)
			lv->size_s[c] = cli_metric_series(lv->size, v);
		lv->lat_s[c] = cli_metric_series(lv->lat, v);
		lv->err_s[c] = cli_metric_series(lv->errors, v);
	}
	if (rec) {
		for (int d = 0; d < 2; d++) {
			const char *v[1] = { d ? "write" : "read" };
			lv->blk_bytes_s[d] = cli_metric_series(lv->blk_bytes, v);
			lv->blk_lat_s[d] = cli_metric_series(lv->blk_lat, v);
		}
		lv->pg_acc_s = cli_metric_series(lv->pg_acc, NULL);
		lv->pg_miss_s = cli_metric_series(lv->pg_miss, NULL);
		for (int t = 1; t < TAPE_TABLE_MAX; t++) {
			const char *v[1] = { tape_table_name(t) };
			lv->events_s[t] = cli_metric_series(lv->events, v);
			lv->lost_s[t] = cli_metric_series(lv->lost, v);
		}
		lv->procs_s = cli_metric_series(lv->procs, NULL);
	} else {
		lv->done_s = cli_metric_series(lv->done, NULL);
		lv->planned_s = cli_metric_series(lv->planned, NULL);
	}
	return 0;
}

static void replay_collect(void *arg);

int live_start(struct live **out, enum live_kind kind, const char *spec)
{
	struct live *lv = calloc(1, sizeof(*lv));
	char addr[64], err[256];
	unsigned port, bound;
	int rc;

	*out = NULL;
	if (!lv || cli_metrics_new(&lv->m)) {
		free(lv);
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	lv->kind = kind;
	pthread_mutex_init(&lv->mu, NULL);
	if ((rc = define(lv))) {
		cli_error("--metrics: %s", strerror(-rc));
		live_stop(lv, 0);
		return EXIT_FAIL;
	}
	if (kind == LIVE_REPLAY)
		cli_metrics_on_collect(lv->m, replay_collect, lv);
	if (cli_metrics_addr_parse(spec, addr, sizeof(addr), &port, err, sizeof(err)) ||
	    cli_metrics_http_start(&lv->http, lv->m, addr, port, &bound, err, sizeof(err))) {
		cli_error("--metrics %s: %s", spec, err);
		live_stop(lv, 0);
		return EXIT_FAIL;
	}
	cli_error("metrics at http://%s%s%s:%u/metrics", strchr(addr, ':') ? "[" : "", addr,
		  strchr(addr, ':') ? "]" : "", bound);
	*out = lv;
	return 0;
}

/* ------------------------------------------------------------ process */

static void proc_set(struct live *lv, struct proc *p, uint32_t pid, const char *comm)
{
	char spid[16];
	const char *v[3] = { NULL, spid, comm };

	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	snprintf(spid, sizeof(spid), "%u", pid);
	p->rbytes = cli_metric_series(lv->rbytes, v + 1);
	p->wbytes = cli_metric_series(lv->wbytes, v + 1);
	memset(p->ops, 0, sizeof(p->ops));
}

static struct cli_series *proc_ops(struct live *lv, struct proc *p, unsigned cls)
{
	if (!p->ops[cls]) {
		char spid[16];
		const char *v[3] = { class_names[cls], spid, p->comm };
		snprintf(spid, sizeof(spid), "%u", p->pid);
		p->ops[cls] = cli_metric_series(lv->ops, v);
	}
	return p->ops[cls];
}

/* ------------------------------------------------------------ recorder */

void live_row(void *arg, int table, const void *row, const char *comm)
{
	struct live *lv = arg;

	if (table > 0 && table < TAPE_TABLE_MAX)
		cli_series_add(lv->events_s[table], 1);
	if (table == TAPE_TABLE_SYSCALL) {
		const struct tape_syscall *s = row;
		unsigned cls = tape_op_class(s->op);
		struct proc *p = &lv->cache[s->pid % PROC_CACHE];

		if (cls >= NCLASS)
			cls = TAPE_OPC_OTHER;
		if (p->pid != s->pid || strncmp(p->comm, comm, sizeof(p->comm) - 1) || !p->rbytes)
			proc_set(lv, p, s->pid, comm);
		cli_series_add(proc_ops(lv, p, cls), 1);
		cli_series_observe(lv->lat_s[cls], s->dur_ns);
		if (s->ret < 0) {
			cli_series_add(lv->err_s[cls], 1);
		} else if (cls == TAPE_OPC_READ || cls == TAPE_OPC_WRITE) {
			cli_series_add(cls == TAPE_OPC_READ ? p->rbytes : p->wbytes, (uint64_t)s->ret);
			cli_series_observe(lv->size_s[cls], s->size);
		}
	} else if (table == TAPE_TABLE_CACHE) {
		const struct tape_cache *c = row;
		if (c->kind == TAPE_CACHE_INSERT)
			cli_series_add(lv->pg_miss_s, c->count);
		else if (c->kind == TAPE_CACHE_ACCESS || c->kind == TAPE_CACHE_FAULT ||
			 c->kind == TAPE_CACHE_MAP_PAGES)
			cli_series_add(lv->pg_acc_s, c->count);
	} else if (table == TAPE_TABLE_BLOCK) {
		const struct tape_block *b = row;
		int d = (b->flags & TAPE_BLK_WRITE) ? 1 : (b->flags & TAPE_BLK_READ) ? 0 : -1;
		if (d >= 0 && !b->error) {
			cli_series_add(lv->blk_bytes_s[d], b->bytes);
			cli_series_observe(lv->blk_lat_s[d], b->dur_ns);
		}
	}
}

/* lost: counters that only grow; the recorder gives running totals */
static void set_lost(struct live *lv, int table, uint64_t n)
{
	if (table <= 0 || table >= TAPE_TABLE_MAX || n <= lv->lost_seen[table])
		return;
	cli_series_add(lv->lost_s[table], n - lv->lost_seen[table]);
	lv->lost_seen[table] = n;
}

void live_progress(struct live *lv, const struct rec_progress *p)
{
	for (size_t i = 0; i < REC_NLOST; i++)
		set_lost(lv, p->lost_table[i].table, p->lost_table[i].n);
	cli_series_set(lv->procs_s, p->processes);
}

void live_record_end(struct live *lv, const struct rec_result *res)
{
	for (size_t i = 0; i < REC_NLOST; i++)
		set_lost(lv, res->lost[i].table, res->lost[i].n);
	cli_series_set(lv->procs_s, 0);
}

/* ------------------------------------------------------------ replay */

static void replay_op(void *arg, const struct rp_op_done *d)
{
	struct live *lv = arg;
	struct tslot *t = &lv->t[d->thread < lv->nt ? d->thread : 0];
	unsigned cls = kind_class(d->kind);

	if (!atomic_load_explicit(&lv->start_ns, memory_order_relaxed)) {
		uint64_t zero = 0;
		atomic_compare_exchange_strong(&lv->start_ns, &zero, mono_ns() - d->elapsed_ns);
	}
	atomic_store_explicit(&t->compute_ns, d->compute_ns, memory_order_relaxed);
	if (d->flags & RP_F_STEP)
		return;		/* a placeholder: no op of the job's (not planned) */
	cli_series_add(lv->done_s, 1);
	if (d->flags & RP_F_SKIP)
		return;		/* kept in place, not issued */
	cli_series_add(proc_ops(lv, &t->p, cls), 1);	/* t: this thread's own */
	cli_series_observe(lv->lat_s[cls], d->lat_ns);
	if (d->res < 0) {
		cli_series_add(lv->err_s[cls], 1);
	} else if (cls == TAPE_OPC_READ || cls == TAPE_OPC_WRITE) {
		cli_series_add(cls == TAPE_OPC_READ ? t->p.rbytes : t->p.wbytes, (uint64_t)d->res);
		cli_series_observe(lv->size_s[cls], (uint64_t)d->res);
	}
}

/* Each accelerator's AU so far (the scrape's thread). */
static void replay_collect(void *arg)
{
	struct live *lv = arg;
	uint64_t start = atomic_load(&lv->start_ns), now = mono_ns();

	pthread_mutex_lock(&lv->mu);
	if (atomic_load(&lv->final) || !start || !lv->nt || now <= start) {
		pthread_mutex_unlock(&lv->mu);
		return;
	}
	for (unsigned a = 0; a < lv->naccel; a++)
		lv->au_max[a] = 0;
	for (size_t i = 0; i < lv->nt; i++) {
		double c = (double)atomic_load_explicit(&lv->t[i].compute_ns, memory_order_relaxed);
		unsigned a = lv->t[i].accel;
		if (a < lv->naccel && c > lv->au_max[a])
			lv->au_max[a] = c;
	}
	for (unsigned a = 0; a < lv->naccel; a++) {
		double au = lv->au_max[a] / (double)(now - start);
		cli_series_set(lv->au_s[a], au > 1 ? 1 : au);
	}
	pthread_mutex_unlock(&lv->mu);
}

int live_replay_hooks(struct live *lv, const struct rp_layout *l, unsigned loops,
		      struct rp_hooks *h)
{
	size_t nt = l->nthreads;
	unsigned na = 0;
	uint64_t total = 0;

	for (size_t i = 0; i < nt; i++)
		if (l->threads[i].accel + 1 > na)
			na = l->threads[i].accel + 1;
	struct tslot *t = calloc(nt ? nt : 1, sizeof(*t));
	struct cli_series **au_s = calloc(na ? na : 1, sizeof(*au_s));
	double *au_max = calloc(na ? na : 1, sizeof(*au_max));
	if (!t || !au_s || !au_max) {
		free(t);
		free(au_s);
		free(au_max);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nt; i++) {
		proc_set(lv, &t[i].p, l->threads[i].pid, "");
		t[i].accel = l->threads[i].accel;
	}
	for (unsigned a = 0; a < na; a++) {
		char s[16];
		const char *v[1] = { s };
		snprintf(s, sizeof(s), "%u", a);
		au_s[a] = cli_metric_series(lv->au, v);
		cli_series_set(au_s[a], 0);
	}
	/* the previous run's arrays, which a scrape may be reading */
	pthread_mutex_lock(&lv->mu);
	free(lv->t);
	free(lv->au_s);
	free(lv->au_max);
	lv->t = t;
	lv->nt = nt;
	lv->au_s = au_s;
	lv->au_max = au_max;
	lv->naccel = na;
	for (unsigned k = 1; k < RP_KIND_MAX; k++)
		total += l->expected[k];
	cli_series_set(lv->planned_s, (double)(total * (loops ? loops : 1)));
	atomic_store(&lv->start_ns, 0);
	atomic_store(&lv->final, 0);
	pthread_mutex_unlock(&lv->mu);
	*h = (struct rp_hooks){ .arg = lv, .op = replay_op };
	return 0;
}

void live_replay_end(struct live *lv, const struct rp_layout *l, const struct rp_result *res)
{
	struct rp_scale st;

	pthread_mutex_lock(&lv->mu);
	atomic_store(&lv->final, 1);
	pthread_mutex_unlock(&lv->mu);
	if (rp_scale_stats(res, l, 0, &st))
		return;
	for (unsigned i = 0; i < st.n; i++)
		if (st.acc[i].accel < lv->naccel)
			cli_series_set(lv->au_s[st.acc[i].accel], st.au_na ? 0 : st.acc[i].au);
	rp_scale_release(&st);
}

/* ------------------------------------------------------------ the end */

static volatile sig_atomic_t linger_stop;

static void on_linger_signal(int sig)
{
	(void)sig;
	linger_stop = 1;
}

void live_stop(struct live *lv, double linger_s)
{
	if (!lv)
		return;
	if (lv->http && linger_s > 0) {
		struct sigaction sa = { .sa_handler = on_linger_signal }, old_int, old_term;
		uint64_t end = mono_ns() + (uint64_t)(linger_s * 1e9);

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
		while (!linger_stop && mono_ns() < end) {
			struct timespec ts = { 0, 50000000 };
			nanosleep(&ts, NULL);
		}
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
	cli_metrics_http_stop(lv->http);
	cli_metrics_free(lv->m);
	free(lv->t);
	free(lv->au_s);
	free(lv->au_max);
	pthread_mutex_destroy(&lv->mu);
	free(lv);
}
