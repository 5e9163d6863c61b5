/* SPDX-License-Identifier: MIT */
/*
 * trace.h - creating a trace file without losing the one it replaces, and
 * the one message for a libtape error.
 *
 * Every command that writes a trace (record, import, convert) creates it
 * here: without force the output must not exist; with force the trace is
 * written to a temporary file next to the output, which the caller renames
 * over it once the trace is complete, so a failed or killed run leaves the
 * old trace as it was.
 */
#ifndef IOTAPE_COMMON_TRACE_H
#define IOTAPE_COMMON_TRACE_H

#include <stddef.h>
#include "tape.h"

/* The temporary file's name: the output's, then this, then 6 characters. */
#define CM_TRACE_TMP ".tmp."

/*
 * Open a writer on a new trace for out; opts may be NULL (its
 * TAPE_WRITE_FORCE is ignored: force decides).  Without force out must not
 * exist (-EEXIST) and is the file written, *tmp NULL.  With force out
 * must not be a directory (-EISDIR: the rename would fail at the end) and
 * the writer writes *tmp (malloc'd, out CM_TRACE_TMP "XXXXXX", mode 0644 less
 * the umask, like a new trace), which the caller renames over out when
 * done, or unlinks on failure; out is not touched.  0, or -errno (the
 * tape error detail may say more) with *w and *tmp NULL and no file left.
 */
int cm_trace_create(const char *out, int force, const struct tape_writer_opts *opts,
		    char **tmp, tape_writer **w);

/*
 * The message for err, a libtape error (or any -errno) about what (a file
 * name): "<what>: <tape_strerror>: <tape_error_detail>", leaving out the
 * parts the detail already holds.  buf gets at most len bytes; returns buf.
 */
char *cm_trace_error(char *buf, size_t len, const char *what, int err);

#endif /* IOTAPE_COMMON_TRACE_H */
