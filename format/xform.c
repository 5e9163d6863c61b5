/* SPDX-License-Identifier: MIT */
/*
 * xform.c - what the trace transforms (merge.c, split.c) share: their
 * error, one line or a libtape error of a file (tape.h, struct
 * tape_xform_error).
 */
#include <stdarg.h>
#include <stdio.h>
#include "tape.h"
#include "tape_internal.h"

void tape__xclear(struct tape_xform_error *e)
{
	e->err = 0;
	e->what = NULL;
	e->msg[0] = 0;
}

int tape__xerr(struct tape_xform_error *e, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->what = NULL;
	return e->err = err;
}

int tape__xtape(struct tape_xform_error *e, int err, const char *what)
{
	e->msg[0] = 0;
	e->what = what;
	return e->err = err;
}
