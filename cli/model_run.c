/* SPDX-License-Identifier: MIT */
/*
 * model_run.c - the two replays of `iotape model --check` (model_check.c),
 * each `iotape replay -d DIR --timing think --output-format json -o REPORT`
 * as a replay session (session/), with no child program and no argv:
 *
 *   the trace's   a session in this process;
 *   the model's   a session in a child process (fork) that this one
 *                 records with the recorder's library (record/recorder.h,
 *                 as `iotape record -q -e syscall -p PID` does: the child
 *                 and every thread it starts, by tgid).  The child waits on
 *                 a pipe until the recorder is attached and has started,
 *                 so that the recording holds the whole replay, its
 *                 preparation included; it gets SIGTERM should this
 *                 process die without a word (SIGKILL).
 *
 * Each run's messages go to its log, as iotape replay says them (the
 * child's stdout and stderr too); the recorder's errors are one line on
 * stderr.  SIGINT and SIGTERM end this process whenever they come: during
 * the recording the recorder catches them, the child gets the signal, and
 * once it has ended the signal is raised again.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "recorder.h"
#include "session.h"

#define MR_RING_BYTES (64u << 20)	/* record --buffer's default */

/* Replay job under dir, its JSON report to report, its messages to log:
 * the session's verdict (SS_OK, SS_FAIL, SS_USAGE). */
static int replay(const char *job, const char *dir, const char *report, FILE *log)
{
	struct ss_replay *s = NULL;
	struct ss_cfg c;
	struct ss_ui ui;
	FILE *jf;
	int st;

	cli_replay_defaults(&c);
	c.trace = job;
	c.dir = dir;
	c.o.timing = RP_TIME_THINK;
	c.json = 1;
	cli_replay_log(&ui, log);
	if (!(jf = fopen(report, "w"))) {
		fprintf(log, "iotape replay: %s: %s\n", report, strerror(errno));
		return SS_FAIL;
	}
	if (ss_replay_new(&s, &c, &ui, NULL)) {
		fprintf(log, "iotape replay: out of memory\n");
		fclose(jf);
		return SS_FAIL;
	}
	st = ss_replay_setup(s);
	if (st == SS_OK)
		st = ss_replay_run(s, jf, report);
	st = ss_replay_end(s, st);
	ss_replay_free(s);
	if (fclose(jf) && st == SS_OK) {
		fprintf(log, "iotape replay: %s: %s\n", report, strerror(errno));
		st = SS_FAIL;
	}
	return st;
}

int model_replay(const char *job, const char *dir, const char *report, const char *log)
{
	FILE *lf = fopen(log, "w");
	int st;

	if (!lf) {
		cli_error("%s: %s", log, strerror(errno));
		return -1;
	}
	setvbuf(lf, NULL, _IOLBF, 0);
	st = replay(job, dir, report, lf);
	if (fclose(lf)) {
		cli_error("%s: %s", log, strerror(errno));
		return -1;
	}
	return st;
}

/* ------------------------------------------------------- recorded */

/* The recorder's notes (a tracepoint this kernel lacks) into the log. */
static void rec_note(void *arg, const char *msg)
{
	fprintf(arg, "iotape record: %s\n", msg);
}

/* The child: once released (a byte on go), replay; exit with the
 * verdict.  End of file on go: the recorder could not start, nothing
 * runs. */
static void child(int go, pid_t parent, const char *job, const char *dir, const char *report,
		  FILE *log)
{
	ssize_t n;
	char g;
	int st;

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(127);
	do
		n = read(go, &g, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);
	close(go);
	if (dup2(fileno(log), STDOUT_FILENO) < 0 || dup2(fileno(log), STDERR_FILENO) < 0)
		_exit(127);
	st = replay(job, dir, report, log);
	fflush(NULL);
	_exit(st);
}

/* Record pid (held on go, released here) into trace until it exits: 0,
 * or -1 after one error line (pid is then sent SIGTERM: a replay that is
 * not recorded, or not whole, is of no use), or the signal (SIGINT,
 * SIGTERM) that stopped the recording (passed on to pid). */
static int record(pid_t pid, int go, const char *trace, FILE *log)
{
	uint32_t pid32 = (uint32_t)pid;
	struct rec_opts o = { .output = trace, .pids = &pid32, .npids = 1,
			      .buffer_bytes = MR_RING_BYTES, .wait_min_ns = REC_WAIT_MIN_NS,
			      .note = rec_note, .arg = log };
	struct rec_result res;
	rec_session *r = NULL;
	char err[1024];
	int ret = -1;

	if (rec_layers_parse("syscall", &o.layers, err, sizeof(err)) ||
	    rec_session_open(&r, &o, err, sizeof(err)) ||
	    rec_session_start(r, err, sizeof(err))) {
		cli_error("recording the model's replay: %s", err);
		goto out;
	}
	if (write(go, "g", 1) != 1) {
		cli_error("starting the model's replay: %s", strerror(errno));
		goto out;
	}
	if (rec_session_run(r, err, sizeof(err))) {
		cli_error("recording the model's replay: %s", err);
		rec_session_finish(r, &res, err, sizeof(err));
		goto out;
	}
	if (rec_session_finish(r, &res, err, sizeof(err))) {
		cli_error("recording the model's replay: %s", err);
		goto out;
	}
	if (res.lost_total)
		fprintf(log, "iotape record: %llu events lost (see --buffer)\n",
			(unsigned long long)res.lost_total);
	ret = rec_session_signal(r);
	if (ret)
		kill(pid, ret);
out:
	if (ret < 0)
		kill(pid, SIGTERM);	/* (held: it gets end of file, and exits) */
	close(go);
	rec_session_free(r);
	return ret;
}

int model_replay_recorded(const char *job, const char *dir, const char *report,
			  const char *log, const char *trace)
{
	pid_t parent = getpid(), pid;
	int go[2], st, rc;
	FILE *lf;

	if (!(lf = fopen(log, "w"))) {
		cli_error("%s: %s", log, strerror(errno));
		return -1;
	}
	setvbuf(lf, NULL, _IOLBF, 0);
	if (pipe2(go, O_CLOEXEC)) {
		cli_error("pipe: %s", strerror(errno));
		fclose(lf);
		return -1;
	}
	fflush(NULL);
	if ((pid = fork()) == 0) {
		close(go[1]);
		child(go[0], parent, job, dir, report, lf);
	}
	close(go[0]);
	if (pid < 0) {
		cli_error("fork: %s", strerror(errno));
		close(go[1]);
		fclose(lf);
		return -1;
	}
	rc = record(pid, go[1], trace, lf);
	fclose(lf);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			cli_error("waitpid: %s", strerror(errno));
			return -1;
		}
	if (rc > 0) {	/* SIGINT or SIGTERM: it ends this process, as before
			 * the recording (the recorder's handlers are gone) */
		raise(rc);
		return 128 + rc;
	}
	if (rc < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
