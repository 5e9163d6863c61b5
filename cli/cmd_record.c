/* SPDX-License-Identifier: MIT */
/*
 * cmd_record.c - `iotape record`: options, messages and the exit status of
 * a recording (record/recorder.h does the recording).
 *
 * One function per phase of the session: set up, start, run, finish (and
 * the summary), wait for the command.  Every message is one line
 * "iotape record: ..." (cli_error); the live status line (a terminal only)
 * is cleared before any of them.  With a command the exit status is the
 * command's (128 + signal when it was killed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "cli.h"
#include "fmt.h"
#include "live.h"
#include "opt.h"
#include "recorder.h"

#define DEFAULT_OUTPUT "iotape.iotape"
#define PATIENCE_MS 3000	/* for the command after SIGINT or SIGTERM */

enum {
	OPT_CGROUP = OPT_LONG(0),
	OPT_DURATION = OPT_LONG(1),
	OPT_BUFFER = OPT_LONG(2),
	OPT_METRICS = OPT_LONG(3),
	OPT_LINGER = OPT_LONG(4),
};

struct record {
	struct rec_opts o;
	uint32_t *pids;		/* o.pids, ours */
	int quiet;
	double buffer_mb;
	const char *metrics;	/* --metrics [ADDR:]PORT, NULL none */
	double linger;		/* --metrics-linger seconds */
	struct live *live;	/* its endpoint, NULL none */
	int show;		/* the status line */
	rec_session *s;
	char err[8192];		/* the session's last error */
};

/* Typed options go to struct record; -e, -p and --cgroup are
 * taken in parse_args(). */
#define CFG struct record

static const struct opt record_opts[] = {
	{ 'o', "output", "TRACE", "trace file", NULL, DEFAULT_OUTPUT,
	  OPT_T_STR(CFG, o.output) },
	{ 'f', "force", NULL, "overwrite TRACE if it exists", OPT_T_FLAG(CFG, o.force) },
	{ 'e', "events", "EVENTS", "comma-separated layers: syscall,mmap,cache,block,sample",
	  NULL, "all" },
	{ 'p', "pid", "PID", "attach to a running process and the processes it starts",
	  NULL, NULL, OPT_MULTI },
	{ OPT_CGROUP, "cgroup", "PATH", "trace the processes of a cgroup v2 (and of the cgroups below it)",
	  NULL, NULL, OPT_PATH },
	{ OPT_DURATION, "duration", "SEC", "stop after SEC seconds (0.001 to 10^9)",
	  OPT_T_DOUBLE(CFG, o.duration, 1e-3, 1e9) },
	/* fractions for tests: 0.0625 = 64 KiB */
	{ OPT_BUFFER, "buffer", "MB", "BPF ring buffer size in MiB (0.004 to 4096)", NULL, "64",
	  OPT_T_DOUBLE(CFG, buffer_mb, 0.004, 4096) },
	{ 'q', "quiet", NULL, "no status line and no summary", OPT_T_FLAG(CFG, quiet) },
	{ OPT_METRICS, "metrics", "[ADDR:]PORT", "serve live metrics (Prometheus) at http://ADDR:PORT/metrics, ADDR 127.0.0.1 unless given",
	  OPT_T_STR(CFG, metrics) },
	{ OPT_LINGER, "metrics-linger", "SEC", "with --metrics: keep serving SEC seconds after the end (0 to 86400)",
	  NULL, "0", OPT_T_DOUBLE(CFG, linger, 0, 86400) },
	{ 0 }
};

const struct opt_cmd record_cmd = {
	"record", "[-- COMMAND [ARGS...]]",
	"Record the I/O of a command and its children with eBPF.",
	"Runs COMMAND (or attaches to -p PIDs or a --cgroup) and writes the file\n"
	"I/O of it and of every process it starts into TRACE.  With a command,\n"
	"exits with its status.  Needs root, or CAP_BPF and CAP_PERFMON.",
	record_opts, OPT_CMD_STOP,
};


static int status_shown;	/* a status line is on the terminal */

/* Clear the live status line so that the next message starts a line. */
static void status_clear(void)
{
	if (status_shown) {
		fprintf(stderr, "\r%-79s\r", "");
		status_shown = 0;
	}
}

static void show_note(void *arg, const char *msg)
{
	(void)arg;
	status_clear();
	cli_error("%s", msg);
}

static void show_progress(void *arg, const struct rec_progress *p)
{
	struct record *r = arg;
	char mb[32];

	if (r->live)
		live_progress(r->live, p);
	if (!r->show)
		return;
	cm_fmt_bytes(mb, sizeof(mb), p->bytes);
	fprintf(stderr, "\riotape record: %.0f events/s, %llu lost, %s written, %d processes   ",
		p->events_per_s, (unsigned long long)p->lost, mb, p->processes);
	status_shown = 1;
}

/* -p PID, once more: 0, or an exit status after the message. */
static int add_pid(struct record *r, const char *arg)
{
	char *end;
	long v;
	void *n;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > INT32_MAX) {
		opt_error(&record_cmd, "-p: bad pid '%s'", arg);
		return EXIT_USAGE;
	}
	n = realloc(r->pids, (r->o.npids + 1) * sizeof(*r->pids));
	if (!n) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	r->pids = n;
	r->pids[r->o.npids++] = (uint32_t)v;
	r->o.pids = r->pids;
	return 0;
}

/* The options into r->o: -1 to go on, or the exit status (after a
 * message, or -h). */
static int parse_args(struct record *r, int argc, char **argv)
{
	struct opt_parser p;
	int c, rc;

	r->o.layers = REC_LAYERS_ALL;
	opt_init_cfg(&p, &record_cmd, r, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case OPT_HELP:
			return EXIT_OK;
		case OPT_ERR:
			return EXIT_USAGE;
		case 'e':
			if (rec_layers_parse(p.arg, &r->o.layers, r->err, sizeof(r->err))) {
				opt_error(&record_cmd, "%s", r->err);
				return EXIT_USAGE;
			}
			break;
		case 'p':
			if ((rc = add_pid(r, p.arg)))
				return rc;
			break;
		case OPT_METRICS:
			if (live_check(&record_cmd, p.arg))
				return EXIT_USAGE;
			break;
		case OPT_CGROUP:
			if (rec_cgroup_lookup(p.arg, &r->o.cgroup_id, &r->o.cgroup_level)) {
				opt_error(&record_cmd, "--cgroup %s: not a cgroup v2 directory",
					  p.arg);
				return EXIT_USAGE;
			}
			r->o.cgroup = p.arg;
			break;
		}
	}
	if (r->linger > 0 && !r->metrics) {
		opt_error(&record_cmd, "--metrics-linger needs --metrics");
		return EXIT_USAGE;
	}
	r->o.buffer_bytes = (size_t)(r->buffer_mb * 1048576);
	r->o.cmd = opt_args(&p, &r->o.ncmd);
	if (!r->o.ncmd && !r->o.npids && !r->o.cgroup_id) {
		opt_error(&record_cmd, "give a COMMAND, -p PID or --cgroup PATH");
		return EXIT_USAGE;
	}
	return -1;
}

/* The exit status of a command from its wait(2) status. */
static int exit_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Privileges, the held command, the trace, BPF: -1 to go on, or the exit
 * status after the message. */
/* The row hook (o.arg is the struct record). */
static void live_row_hook(void *arg, int table, const void *row, const char *comm)
{
	live_row(((struct record *)arg)->live, table, row, comm);
}

static int setup(struct record *r)
{
	r->o.note = show_note;
	r->o.arg = r;
	r->show = !r->quiet && isatty(2);
	/* the endpoint first: a port in use stops us before anything runs */
	if (r->metrics) {
		if (live_start(&r->live, LIVE_RECORD, r->metrics))
			return EXIT_FAIL;
		r->o.row = live_row_hook;
	}
	if (r->show || r->live)
		r->o.progress = show_progress;
	if (rec_session_open(&r->s, &r->o, r->err, sizeof(r->err))) {
		cli_error("%s", r->err);
		return EXIT_FAIL;
	}
	return -1;
}

/* The start metadata, then the command runs: -1 to go on, or the exit
 * status (the command's when it could not be executed). */
static int start(struct record *r)
{
	int status;

	if (!rec_session_start(r->s, r->err, sizeof(r->err)))
		return -1;
	cli_error("%s", r->err);
	if (rec_session_wait(r->s, 0, &status) == 0)
		return exit_status(status);
	return EXIT_FAIL;
}

static void run(struct record *r)
{
	if (rec_session_run(r->s, r->err, sizeof(r->err))) {
		status_clear();
		cli_error("%s", r->err);
	}
}

static void print_summary(const char *output, const struct rec_result *res)
{
	char sz[32];
	double wall = res->wall_s;

	fputs("iotape record: ", stderr);
	cm_put_escaped(stderr, output, 0);
	fputc(':', stderr);
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		fprintf(stderr, " %s %llu%s", tape_table_name(t),
			(unsigned long long)res->events[t], t + 1 < TAPE_TABLE_MAX ? "," : "\n");
	cm_fmt_bytes(sz, sizeof(sz), res->bytes);
	fprintf(stderr, "iotape record: %llu events, %llu lost",
		(unsigned long long)res->events_total, (unsigned long long)res->lost_total);
	if (res->lost_total) {
		int first = 1;

		fputs(" (", stderr);
		for (size_t i = 0; i < REC_NLOST; i++) {
			if (!res->lost[i].n)
				continue;
			fprintf(stderr, "%s%s %llu", first ? "" : ", ",
				tape_table_name(res->lost[i].table),
				(unsigned long long)res->lost[i].n);
			first = 0;
		}
		fputs(")", stderr);
	}
	fprintf(stderr, ", %s, %.2f bytes/event\n", sz,
		res->events_total ? (double)res->bytes / res->events_total : 0.0);
	fprintf(stderr, "iotape record: recorder CPU %.2f s over %.2f s (%.1f%% of a core), "
		"%.0f events/s\n", res->cpu_s, wall, wall > 0 ? 100 * res->cpu_s / wall : 0.0,
		wall > 0 ? res->events_total / wall : 0.0);
}

/* Close the trace and say what it holds: -1 to go on, or the exit status
 * after the message.  When the trace could not be written (a full disk)
 * the recording stopped with the command still running: it is left
 * running, and the one line says so, with its pid. */
static int finish(struct record *r, struct rec_result *res)
{
	int err = rec_session_finish(r->s, res, r->err, sizeof(r->err)), status;

	status_clear();
	if (err) {
		if (rec_session_wait(r->s, 0, &status) == -ETIMEDOUT)
			cli_error("%s: recording stopped; %s (pid %d) is still running; "
				  "not waiting for it", r->err, r->o.cmd[0], (int)res->cmd_pid);
		else
			cli_error("%s", r->err);
		return EXIT_FAIL;
	}
	if (!r->quiet)
		print_summary(r->o.output, res);
	else if (res->lost_total)
		cli_error("%llu events lost (see --buffer)", (unsigned long long)res->lost_total);
	return -1;
}

/* The trace is closed.  After SIGINT/SIGTERM wait a little for the command
 * (it may ignore the signal, e.g. started with &); a second signal stops
 * waiting at once.  The exit status. */
static int wait_command(struct record *r, const struct rec_result *res)
{
	int status, err;

	err = rec_session_wait(r->s, rec_session_signal(r->s) ? PATIENCE_MS : -1, &status);
	if (err == -ECHILD)
		return EXIT_OK;
	if (err == -ETIMEDOUT) {
		cli_error("%s (pid %d) is still running; not waiting for it",
			  r->o.cmd[0], (int)res->cmd_pid);
		return 128 + rec_session_signal(r->s);
	}
	if (err) {
		cli_error("waiting for %s: %s", r->o.cmd[0], strerror(-err));
		return EXIT_FAIL;
	}
	return exit_status(status);
}

int cmd_record(int argc, char **argv)
{
	struct record r = { 0 };
	struct rec_result res = { 0 };
	int rc;

	rc = parse_args(&r, argc, argv);
	if (rc < 0)
		rc = setup(&r);
	if (rc < 0)
		rc = start(&r);
	if (rc < 0) {
		run(&r);
		rc = finish(&r, &res);
		if (r.live)
			live_record_end(r.live, &res);
	}
	if (rc < 0) {
		rc = wait_command(&r, &res);
		live_stop(r.live, r.linger);	/* a last scrape sees the end */
		r.live = NULL;
	}
	live_stop(r.live, 0);
	rec_session_free(r.s);
	free(r.pids);
	return rc;
}
