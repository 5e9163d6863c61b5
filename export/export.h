/* SPDX-License-Identifier: MIT */
/*
 * export.h - libexport: a trace written in the formats other tools read,
 * the mirror of libimport (import.h).
 *
 * An exporter writes one format (fixed per exporter); `iotape dump
 * --format NAME` and `iotape export --format NAME` pick it from
 * exp_formats[].  What it needs from its caller is declared in data
 * (exp_needs): an open trace (exp_reader_open), its analysis
 * (exp_analysis_load), a directory the replay prepared; the caller makes
 * the output (a FILE, or a directory's path) and removes it on failure.
 *
 *   text, csv, jsonl  rows, one event a line (exp_rows.c); csv is what
 *                     import/imp_csv.c reads back
 *   perfetto          Chrome trace-event JSON (exp_perfetto.c)
 *   fio-iolog         fio iologs and a job file running them (exp_fio.c,
 *                     over replay/rp_iolog.c)
 *   fio-job           an fio job file approximating the job (exp_fio.c,
 *                     over the analysis's model and replay/rp_fio.c)
 *   html              the analysis as one page of plots (exp_html.c, over
 *                     analyze/ana_html.c)
 *
 * Errors: an exporter returns 0, or -errno with d->msg saying what is
 * wrong in one line (d->usage set when the fault is the request's, not
 * the input's); it never prints or exits.  Memory grows with threads,
 * devices and files, never with events.
 */
#ifndef IOTAPE_EXPORT_H
#define IOTAPE_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tape.h"

struct ana;
struct ana_html_check;
struct cm_job;

/* What an exporter needs from its caller (struct exporter's needs). */
enum exp_needs {
	EXP_NEEDS_READER = 1 << 0,	/* io->r: the trace, open (exp_reader_open) */
	EXP_NEEDS_ANALYSIS = 1 << 1,	/* io->a: its analysis (exp_analysis_load) */
	EXP_NEEDS_DIR = 1 << 2,		/* o->dir: what `replay --prepare-only` made */
	EXP_WRITES_DIR = 1 << 3,	/* io->out: a directory it makes; no io->f */
	EXP_ROWS = 1 << 4,		/* rows of one table, or all (`iotape dump`) */
};

struct exp_opts {
	int table;		/* EXP_ROWS: the table, 0: every table (csv: syscall) */
	uint64_t interval_ns;	/* perfetto: counter interval, 0: automatic */
	const char *dir;	/* EXP_NEEDS_DIR: the prepared directory */
	int per_thread;		/* fio-iolog: a log per thread, not per process */
	int force;		/* EXP_WRITES_DIR: replace an earlier export */
	/* html: a second analysis side by side (io->b), under these checks */
	const struct ana_html_check *checks;
	size_t nchecks;
};

struct exp_io {
	const char *trace;	/* the trace's path (names in the output) */
	tape_reader *r;		/* EXP_NEEDS_READER */
	struct ana *a, *b;	/* EXP_NEEDS_ANALYSIS: the trace's, b NULL or B's */
	FILE *f;		/* the output (not EXP_WRITES_DIR) */
	const char *out;	/* the output's name in messages; EXP_WRITES_DIR: its path */
};

#define EXP_MSG_MAX 8448	/* a path of PATH_MAX * 2 and words */
struct exp_diag {
	char msg[EXP_MSG_MAX];	/* the error, when < 0 was returned */
	char warning[EXP_MSG_MAX];	/* exp_reader_open: said before the rest; "" none */
	char summary[512];	/* what was written and left out; "" none */
	int usage;		/* the error is the request's (exit 2) */
};

struct exporter {
	const char *name;	/* --format NAME */
	const char *summary;	/* one line: what the output is */
	unsigned needs;		/* enum exp_needs */
	int (*write)(const struct exp_io *io, const struct exp_opts *o, struct exp_diag *d);
};

/* Every exporter, NULL-terminated. */
extern const struct exporter *const exp_formats[];
/* The exporter called name, or NULL. */
const struct exporter *exp_find(const char *name);

/*
 * Open the trace at path for an exporter needing it: 0, or -errno with
 * d->msg.  A trace whose index was rebuilt is opened with d->warning
 * saying so (the caller says it before anything else).
 */
int exp_reader_open(tape_reader **r, const char *path, struct exp_diag *d);
/*
 * The analysis of the trace at path into a (zeroed here), for a page of
 * plots of the whole job: 0, or -errno with d->msg; a trace cut short or
 * with a damaged block is refused (-EINVAL).  ana_release() frees it.
 */
int exp_analysis_load(struct ana *a, const char *path, struct exp_diag *d);

/*
 * The job the analysis of the trace at path models (ana_model), shared
 * by fio-job and `iotape model`: 0, or -errno with d->msg (a damaged
 * trace is refused: a job of part of it would be wrong).
 */
int exp_trace_job(const char *path, struct cm_job *job, struct exp_diag *d);
/* The fio job file of job to f (what: its source, in the messages): 0,
 * or -errno with d->msg (d->usage: a job fio cannot run). */
int exp_fio_job_write(FILE *f, const struct cm_job *job, const char *what,
		      struct exp_diag *d);

/* ------------------------------------------------------- perfetto export */

/*
 * The trace r as Chrome trace-event JSON (Perfetto, chrome://tracing),
 * streamed to f in one pass over the syscall, block and cache tables
 * (exp_perfetto.c says what becomes what; iotape-export(1) the format).
 * Memory grows with threads, devices and processes, never with events.
 * trace: the name written in otherData (may be NULL).  o may be NULL (an
 * automatic counter interval).  Returns 0, or -errno: a cursor's error
 * (st->bad_table says which table; tape_error_detail() where), -ENOMEM,
 * or f's write error.  f then holds a partial document: the caller
 * removes it.  st is filled in every case.
 */
#define EXP_PF_PID_BASE 4194304u	/* pseudo-processes: above pid_max's limit */
struct exp_perfetto_opts {
	uint64_t bucket_ns;	/* counter interval, 0: about 1/1000 of the trace, >= 1 ms */
};
struct exp_perfetto_stats {
	uint64_t syscalls, blocks, cache;	/* events read */
	uint64_t counters, tracks;		/* written */
	uint64_t read_bytes, write_bytes;	/* syscall bytes in the counters */
	uint64_t t0_ns, bucket_ns;
	int bad_table;				/* the table whose cursor failed */
};
int exp_perfetto_write(FILE *f, tape_reader *r, const char *trace,
		       const struct exp_perfetto_opts *o, struct exp_perfetto_stats *st);
/* The automatic counter interval of a trace span_ns long. */
uint64_t exp_perfetto_auto_bucket(uint64_t span_ns);

#endif
