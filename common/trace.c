/* SPDX-License-Identifier: MIT */
/*
 * trace.c - a new trace file (directly, or through a temporary file that
 * replaces the output at the end) and the message for a libtape error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trace.h"

/* A temporary file next to out, with the mode a new trace gets. */
static int tmp_create(const char *out, char **tmp)
{
	mode_t mask;
	int fd, err;

	if (asprintf(tmp, "%s" CM_TRACE_TMP "XXXXXX", out) < 0) {
		*tmp = NULL;
		return -ENOMEM;
	}
	fd = mkstemp(*tmp);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	/* mkstemp makes it 0600: give it the mode the writer's own open gives
	 * a new trace without -f (0644 less the umask) */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0644 & ~mask) < 0) {
		err = -errno;
		close(fd);
		unlink(*tmp);
		goto fail;
	}
	close(fd);
	return 0;
fail:
	free(*tmp);
	*tmp = NULL;
	return err;
}

int cm_trace_create(const char *out, int force, const struct tape_writer_opts *opts,
		    char **tmp, tape_writer **w)
{
	struct tape_writer_opts o = { 0 };
	struct stat st;
	int err;

	if (opts)
		o = *opts;
	o.flags &= ~TAPE_WRITE_FORCE;
	*tmp = NULL;
	*w = NULL;
	if (!force)
		return tape_writer_open(w, out, &o);
	/* the rename at the end would fail: say so before anything is written */
	if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	if ((err = tmp_create(out, tmp)))
		return err;
	o.flags |= TAPE_WRITE_FORCE;
	err = tape_writer_open(w, *tmp, &o);
	if (err < 0) {
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return err;
}

/* Does detail name what the way libtape names a path, in single quotes
 * ("cannot open 'x': ...")?  A bare substring is not enough: the trace
 * "d" is in "not a regular file (a directory)". */
static int names(const char *detail, const char *what)
{
	size_t n = strlen(what);

	for (const char *p = detail; (p = strchr(p, '\'')); p++)
		if (strncmp(p + 1, what, n) == 0 && p[n + 1] == '\'')
			return 1;
	return 0;
}

char *cm_trace_error(char *buf, size_t len, const char *what, int err)
{
	const char *detail = tape_error_detail();
	const char *msg = tape_strerror(err);

	if (!detail || !*detail) {
		snprintf(buf, len, "%s: %s", what, msg);
		return buf;
	}
	/* the detail often says it all already: do not repeat it */
	if (names(detail, what))
		what = NULL;
	if (strstr(detail, msg))
		msg = NULL;
	snprintf(buf, len, "%s%s%s%s%s", what ? what : "", what ? ": " : "",
		 msg ? msg : "", msg ? ": " : "", detail);
	return buf;
}
