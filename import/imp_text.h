/* SPDX-License-Identifier: MIT */
/*
 * imp_text.h - lines of a text input, plain or gzip'd, for the importers
 * of line-oriented formats (blkparse, dftracer, darshan-dxt).
 *
 * A gzip'd input is recognized by its magic (1f 8b) and inflated as it is
 * read, through the FILE (no fd: the fuzzers read from fmemopen), member
 * after member (DFTracer writes .pfw.gz as many concatenated members).
 * Memory: one buffer as long as the longest line, and zlib's window.
 */
#ifndef IOTAPE_IMP_TEXT_H
#define IOTAPE_IMP_TEXT_H

#include <stdio.h>
#include <zlib.h>

#define IMP_TEXT_MAX_LINE (64u << 20)	/* longer lines are an error */

struct imp_text {
	FILE *f;
	int gz;			/* the input is gzip'd */
	int zend;		/* the gzip input ended */
	z_stream z;
	unsigned char *in;	/* compressed bytes read from f */
	char *out;		/* bytes not yet returned as lines */
	size_t out_off, out_len, out_cap;
	char *line;		/* the current line, NUL-terminated */
	size_t line_cap;
	unsigned long lineno;	/* of the current line, 1-based */
	int read_errno;		/* why reading failed (-EIO) */
	char err[128];		/* why imp_text_next failed */
};

/* Start reading f; 0 or -ENOMEM. */
int imp_text_init(struct imp_text *t, FILE *f);
/*
 * The next line in t->line (without its LF or CRLF), its length in *len:
 * 1, 0 at the end of the input, -EIO (read_errno), -EBADMSG (corrupt
 * gzip data, a NUL byte or a line longer than IMP_TEXT_MAX_LINE; err says
 * which) or -ENOMEM.
 */
int imp_text_next(struct imp_text *t, size_t *len);
void imp_text_release(struct imp_text *t);

struct imp_diag;
/* When err is set (a line's parser said why it failed): line and err into
 * d.  Nothing when err is "" (-ENOMEM, the writer's errors). */
void imp_diag_set(struct imp_diag *d, unsigned long line, const char *err);
/* After the loop over t's lines ended with rc: when imp_text_next was what
 * failed (t->err set), its line, message and read errno into d. */
void imp_text_diag(const struct imp_text *t, int rc, struct imp_diag *d);

#endif
