/* SPDX-License-Identifier: MIT */
/*
 * util.c - error lines and trace creation shared by the
 * subcommands.
 *
 * Every message a subcommand prints on stderr goes through cli_error(), so
 * each one is a single line starting "iotape CMD: ".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "tape.h"

const char *cli_cmd = "iotape";

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "iotape %s: ", cli_cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_tape_error(const char *what, int err)
{
	const char *detail = tape_error_detail();
	const char *msg = tape_strerror(err);

	if (!detail || !*detail) {
		cli_error("%s: %s", what, msg);
		return;
	}
	/* the detail often says it all already: do not repeat it */
	if (strstr(detail, what))
		what = NULL;
	if (strstr(detail, msg))
		msg = NULL;
	cli_error("%s%s%s%s%s", what ? what : "", what ? ": " : "",
		  msg ? msg : "", msg ? ": " : "", detail);
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

static int trace_create(const char *out, int force, const struct tape_writer_opts *opts,
			char **tmp, tape_writer **w)
{
	struct tape_writer_opts o = { 0 };
	mode_t mask;
	int fd, ret;

	if (opts)
		o = *opts;
	o.flags &= ~TAPE_WRITE_FORCE;
	*tmp = NULL;
	if (!force)
		return tape_writer_open(w, out, &o);
	if (asprintf(tmp, "%s.tmp.XXXXXX", out) < 0) {
		*tmp = NULL;
		return -ENOMEM;
	}
	fd = mkstemp(*tmp);
	if (fd < 0) {
		ret = -errno;
		free(*tmp);
		*tmp = NULL;
		return ret;
	}
	/* mkstemp makes it 0600: give it the mode the writer's own open gives
	 * a new trace without -f (0644 less the umask) */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0644 & ~mask) < 0) {
		ret = -errno;
		close(fd);
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
		return ret;
	}
	close(fd);
	o.flags |= TAPE_WRITE_FORCE;
	ret = tape_writer_open(w, *tmp, &o);
	if (ret < 0) {
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return ret;
}

int cli_trace_create(const char *out, int force, const struct tape_writer_opts *opts,
		     char **tmp, tape_writer **w)
{
	int err = trace_create(out, force, opts, tmp, w);

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
