/* SPDX-License-Identifier: MIT */
/*
 * util.c - error lines, trace creation, the signals that end a command
 * and a replay session's voice in a log, shared by the subcommands (the
 * creation itself is common/trace.c's, here with the messages).
 *
 * Every message a subcommand prints on stderr goes through cli_error(), so
 * each one is a single line starting "iotape CMD: ": the message's control
 * bytes and backslashes are escaped as dump escapes paths, so that a path
 * holding a newline or a terminal escape sequence can neither split the
 * line nor reach the terminal.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "fmt.h"
#include "session.h"
#include "tape.h"
#include "trace.h"

const char *cli_cmd = "iotape";

void cli_verror(const char *cmd, const char *tail, const char *fmt, va_list ap)
{
	char buf[1024], *msg = buf, *big = NULL;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n >= (int)sizeof(buf) && (big = malloc((size_t)n + 1))) {
		vsnprintf(big, (size_t)n + 1, fmt, again);
		msg = big;
	}	/* else (out of memory) the message is cut */
	va_end(again);
	fprintf(stderr, "iotape%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	if (n > 0)
		cm_put_escaped(stderr, msg, 0);
	fprintf(stderr, "%s\n", tail);
	free(big);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_verror(cli_cmd, "", fmt, ap);
	va_end(ap);
}

void cli_tape_error(const char *what, int err)
{
	char msg[8192];

	cli_error("%s", cm_trace_error(msg, sizeof(msg), what, err));
}

static void exists_error(const char *out)
{
	cli_error("%s: exists (use -f to replace it)", out);
}

int cli_output_refused(const char *out, int force)
{
	struct stat sb;

	if (force || lstat(out, &sb) < 0)
		return 0;
	exists_error(out);
	return 1;
}

int cli_trace_create(const char *out, int force, const struct tape_writer_opts *opts,
		     char **tmp, tape_writer **w)
{
	int err = cm_trace_create(out, force, opts, tmp, w);

	if (err == -EEXIST)
		exists_error(out);
	else if (err < 0)
		cli_tape_error(out, err);
	return err < 0 ? -1 : 0;
}

int cli_trace_finish(tape_writer *w, const char *out, const char *tmp)
{
	int err = tape_writer_close(w);

	if (err < 0) {
		cli_tape_error(out, err);
		return -1;
	}
	if (tmp && rename(tmp, out) < 0) {
		cli_error("%s: %s", out, strerror(errno));
		return -1;
	}
	return 0;
}

void cli_trace_abandon(tape_writer *w, const char *out, const char *tmp)
{
	tape_writer_free(w);
	unlink(tmp ? tmp : out);
}

/* cli_replay_log: a replay session's messages into a log (arg), as
 * iotape replay says them */
static void log_error(void *arg, int usage, const char *msg)
{
	fprintf(arg, "iotape replay: ");
	cm_put_escaped(arg, msg, 0);
	fprintf(arg, "%s\n", usage ? " (see 'iotape replay -h')" : "");
}

static void log_note(void *arg, const char *text)
{
	fputs(text, arg);
}

void cli_replay_log(struct ss_ui *ui, FILE *log)
{
	*ui = (struct ss_ui){ .arg = log, .error = log_error, .note = log_note };
}

/* The signals that end this process, which cli_rm_on_signal and
 * cli_stop_catch deal with */
#define END_NSIGS 3
static const int end_sigs[END_NSIGS] = { SIGINT, SIGTERM, SIGHUP };

/* cli_rm_on_signal: the files removed should a signal end us */
#define RM_MAX 4
static const char *volatile rm_paths[RM_MAX];

static void rm_handler(int sig)
{
	for (int i = 0; i < RM_MAX; i++)
		if (rm_paths[i])
			unlink(rm_paths[i]);
	signal(sig, SIG_DFL);
	raise(sig);		/* (delivered when the handler returns) */
}

void cli_rm_on_signal(const char *path)
{
	static int installed;
	sigset_t block, old;

	sigemptyset(&block);
	for (size_t i = 0; i < END_NSIGS; i++)
		sigaddset(&block, end_sigs[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (!path) {
		for (int i = 0; i < RM_MAX; i++)
			rm_paths[i] = NULL;
	} else {
		for (int i = 0; i < RM_MAX; i++)
			if (!rm_paths[i]) {
				rm_paths[i] = path;
				break;
			}
		if (!installed) {
			struct sigaction sa = { .sa_handler = rm_handler }, cur;
			sigemptyset(&sa.sa_mask);
			for (size_t i = 0; i < END_NSIGS; i++)
				if (!sigaction(end_sigs[i], NULL, &cur) && cur.sa_handler == SIG_DFL)
					sigaction(end_sigs[i], &sa, NULL);
			installed = 1;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* cli_stop_*: what a signal removes and says before it ends this process
 * (its handler calls only async-signal-safe functions) */
#define STOP_MAX 24
static struct {
	char path[STOP_MAX][PATH_MAX];
	volatile sig_atomic_t n;
	char tail[PATH_MAX + 128];
} stop;

/* s appended to buf (of len, with n used): the new n */
static size_t stop_put(char *buf, size_t n, size_t len, const char *s)
{
	while (s && *s && n + 1 < len)
		buf[n++] = *s++;
	buf[n] = 0;
	return n;
}

static void stop_handler(int sig)
{
	char line[sizeof(stop.tail) + 64];
	size_t n = 0;

	for (sig_atomic_t i = stop.n; i-- > 0;)
		if (unlink(stop.path[i]) && errno == EISDIR)
			rmdir(stop.path[i]);
	n = stop_put(line, n, sizeof(line), "iotape ");
	n = stop_put(line, n, sizeof(line), cli_cmd);
	n = stop_put(line, n, sizeof(line), ": stopped by SIG");
	n = stop_put(line, n, sizeof(line), sigabbrev_np(sig));
	n = stop_put(line, n, sizeof(line), stop.tail);
	n = stop_put(line, n, sizeof(line), "\n");
	if (write(STDERR_FILENO, line, n) < 0)
		line[0] = 0;
	_exit(128 + sig);
}

void cli_stop_catch(void)
{
	struct sigaction sa = { .sa_handler = stop_handler }, old;

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < END_NSIGS; i++)
		sigaddset(&sa.sa_mask, end_sigs[i]);
	for (size_t i = 0; i < END_NSIGS; i++)
		if (!sigaction(end_sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)	/* nohup's */
			sigaction(end_sigs[i], &sa, NULL);
}

/* (signals held while the handler's data changes) */
static void stop_hold(int hold, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < END_NSIGS; i++)
		sigaddset(&set, end_sigs[i]);
	sigprocmask(hold ? SIG_BLOCK : SIG_SETMASK, hold ? &set : old, hold ? old : NULL);
}

int cli_stop_rm(const char *path)
{
	sigset_t old;
	int rc = -1;

	stop_hold(1, &old);
	if (stop.n < STOP_MAX && strlen(path) < PATH_MAX) {
		strcpy(stop.path[stop.n], path);
		stop.n++;
		rc = 0;
	}
	stop_hold(0, &old);
	return rc;
}

void cli_stop_say(const char *tail)
{
	sigset_t old;

	stop_hold(1, &old);
	snprintf(stop.tail, sizeof(stop.tail), "%s", tail);
	stop_hold(0, &old);
}

void cli_stop_release(void)
{
	struct sigaction old;

	for (size_t i = 0; i < END_NSIGS; i++)
		if (!sigaction(end_sigs[i], NULL, &old) && old.sa_handler == stop_handler)
			signal(end_sigs[i], SIG_IGN);
	stop.n = 0;
}
