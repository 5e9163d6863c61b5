/* SPDX-License-Identifier: MIT */
/*
 * imp_darshan_dxt.c - the darshan-dxt importer: the text that
 * darshan-dxt-parser prints of a Darshan log's DXT (extended tracing)
 * modules, into syscalls.
 *
 * The parser prints, per module (DXT_POSIX, then DXT_MPIIO), one record
 * per (file, rank): "# DXT, file_id: ID, file_name: PATH", "# DXT, rank:
 * R, hostname: H", "# DXT, write_count: W, read_count: N", then W write
 * and N read segments, "X_POSIX RANK write|read SEGMENT OFFSET LENGTH
 * START END [OST...]", START and END in seconds since the job started
 * (4 decimals: 0.1 ms).  Each record becomes, in time order: an open of
 * PATH at its first segment's start, a pread64 or pwrite64 per segment
 * (offset, length, dur_ns = END - START), a close at its last segment's
 * end; pid and tid are rank + 1 (pid 0 is no process).  fds and file ids
 * are imp_sys_fill's.  An MPI-IO record of a file that has POSIX records
 * is skipped: MPI-IO's I/O reaches the file through the POSIX calls
 * already imported; of a file without, its segments are imported the
 * same way.  Other '#' lines are the job's header and comments.
 *
 * A record's segments are held until the next record (to sort them: the
 * parser prints writes, then reads); memory grows with the largest
 * record, which Darshan held in memory itself, and with the files.
 * Records follow each other as the parser prints them, so rows are in
 * time order within a record, not across records.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "import.h"
#include "imp_text.h"

struct seg {
	uint64_t start, end, offset, length;
	size_t idx;		/* in the input: ties keep it */
	int write;
};

struct dxt {
	struct imp_sys st;
	struct cm_strtab posix_paths;	/* files with DXT_POSIX records */
	int module;		/* 0 none yet, 1 POSIX, 2 MPI-IO */
	int in_rec;		/* a file_id header was read */
	int has_rank, has_counts;
	char *path;
	int64_t rank;
	uint64_t want_w, want_r, got_w, got_r;
	unsigned long rec_line;	/* where the record starts */
	unsigned long err_line;	/* the line at fault when not the current one */
	struct seg *seg;
	size_t nseg, cap;
	char err[200];
};

static int by_start(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int put(struct dxt *x, tape_writer *w, unsigned op, uint64_t ts, uint64_t dur,
	       uint64_t offset, uint64_t size)
{
	const struct tape_column *cols = tape_table_columns(TAPE_TABLE_SYSCALL, NULL);
	char have[32] = { 0 };
	struct tape_syscall ev = {
		.ts_ns = ts, .dur_ns = dur, .op = op,
		.pid = (uint32_t)(x->rank + 1), .tid = (uint32_t)(x->rank + 1),
		.offset = offset, .size = size, .path = x->path, .path2 = "",
	};
	int rc;

#define HAS(name) have[tape_column_find(TAPE_TABLE_SYSCALL, name) - cols] = 1
	HAS("ts_ns"); HAS("dur_ns"); HAS("op"); HAS("pid"); HAS("tid");
	HAS("path"); HAS("size");
	if (op == TAPE_OP_PREAD64 || op == TAPE_OP_PWRITE64)
		HAS("offset");
#undef HAS
	rc = imp_sys_fill(&x->st, &ev, have, x->err, sizeof(x->err));
	if (rc)
		return rc;
	rc = tape_writer_append(w, TAPE_TABLE_SYSCALL, &ev);
	if (rc < 0)
		x->err[0] = '\0';
	return rc;
}

/* Write the record read so far (nothing when it was skipped or empty). */
static int rec_end(struct dxt *x, tape_writer *w)
{
	uint64_t last = 0;
	uint32_t id;
	int rc = 0;

	if (!x->in_rec)
		return 0;
	x->in_rec = 0;
	if (x->has_counts && (x->got_w != x->want_w || x->got_r != x->want_r)) {
		x->err_line = x->rec_line;
		snprintf(x->err, sizeof(x->err),
			 "the record starting on line %lu has %llu write and %llu read segments, its header says %llu and %llu",
			 x->rec_line, (unsigned long long)x->got_w, (unsigned long long)x->got_r,
			 (unsigned long long)x->want_w, (unsigned long long)x->want_r);
		return -EINVAL;
	}
	if (!x->nseg)
		return 0;
	if (x->module == 1) {
		if (cm_strtab_intern(&x->posix_paths, x->path, &id) < 0)
			return -ENOMEM;
	} else if (cm_strtab_find(&x->posix_paths, x->path, &id) == 0) {
		x->nseg = 0;
		return 0;
	}
	qsort(x->seg, x->nseg, sizeof(*x->seg), by_start);
	rc = put(x, w, TAPE_OP_OPEN, x->seg[0].start, 0, 0, 0);
	for (size_t i = 0; i < x->nseg && rc == 0; i++) {
		struct seg *s = &x->seg[i];

		rc = put(x, w, s->write ? TAPE_OP_PWRITE64 : TAPE_OP_PREAD64, s->start,
			 s->end - s->start, s->offset, s->length);
		if (s->end > last)
			last = s->end;
	}
	if (rc == 0)
		rc = put(x, w, TAPE_OP_CLOSE, last, 0, 0, 0);
	x->nseg = 0;
	return rc;
}

/* "KEY: VALUE" fields of a "# DXT, ..." line. */
static const char *field(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? p + strlen(key) : NULL;
}

static int u64_at(const char *p, uint64_t *v)
{
	char *end;

	if (!p || *p == '-' || *p < '0' || *p > '9')
		return -1;
	errno = 0;
	*v = strtoull(p, &end, 10);
	return errno || (*end && *end != ',' && *end != ' ') ? -1 : 0;
}

static int comment(struct dxt *x, tape_writer *w, const char *s, unsigned long line)
{
	const char *p;
	uint64_t a, b;
	int rc;

	if (strncmp(s, "# DXT_POSIX module data", 23) == 0 ||
	    strncmp(s, "# DXT_MPIIO module data", 23) == 0) {
		if ((rc = rec_end(x, w)))
			return rc;
		x->module = s[6] == 'P' ? 1 : 2;
		return 0;
	}
	if (strncmp(s, "# DXT, ", 7) != 0)
		return 0;
	if ((p = field(s, "# DXT, file_id: "))) {
		const char *name = field(s, ", file_name: ");

		if ((rc = rec_end(x, w)))
			return rc;
		if (!name || u64_at(p, &a)) {
			snprintf(x->err, sizeof(x->err), "want '# DXT, file_id: ID, file_name: PATH'");
			return -EINVAL;
		}
		if (strlen(name) > TAPE_MAX_STRING) {
			snprintf(x->err, sizeof(x->err), "file name longer than %u bytes",
				 TAPE_MAX_STRING);
			return -EINVAL;
		}
		free(x->path);
		x->path = strdup(name);
		if (!x->path)
			return -ENOMEM;
		x->in_rec = 1;
		x->has_rank = x->has_counts = 0;
		x->got_w = x->got_r = 0;
		x->rec_line = line;
		if (!x->module)
			x->module = 1;	/* no module banner: take it as POSIX */
		return 0;
	}
	if (!x->in_rec)
		return 0;
	if ((p = field(s, "# DXT, rank: "))) {
		if (u64_at(p, &a) || a > UINT32_MAX - 1) {
			snprintf(x->err, sizeof(x->err), "bad rank");
			return -EINVAL;
		}
		x->rank = (int64_t)a;
		x->has_rank = 1;
	} else if ((p = field(s, "# DXT, write_count: "))) {
		if (u64_at(p, &a) || u64_at(field(s, ", read_count: "), &b)) {
			snprintf(x->err, sizeof(x->err), "want '# DXT, write_count: N, read_count: N'");
			return -EINVAL;
		}
		x->want_w = a;
		x->want_r = b;
		x->has_counts = 1;
	}
	return 0;
}

/* Seconds with a fraction, as nanoseconds. */
static int secs(const char *tok, uint64_t *ns)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(tok, &end);
	if (end == tok || *end || errno || !(d >= 0 && d < 1.8e10))
		return -1;
	*ns = (uint64_t)llround(d * 1e9);
	return 0;
}

static int segment(struct dxt *x, char *s)
{
	char *tok[9], *save = NULL;
	size_t n = 0;
	uint64_t rank, v[3];
	struct seg *g;

	for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == 8 && *t == '[')
			break;	/* Lustre OSTs: "[  3]" */
		if (n == 9)
			break;
		tok[n++] = t;
	}
	if (n != 8) {
		snprintf(x->err, sizeof(x->err),
			 "want 'MODULE RANK write|read SEGMENT OFFSET LENGTH START END'");
		return -EINVAL;
	}
	if (!x->in_rec || !x->has_rank) {
		snprintf(x->err, sizeof(x->err),
			 "a segment outside a record (no '# DXT, file_id' and '# DXT, rank' before it)");
		return -EINVAL;
	}
	if (strcmp(tok[0], "X_POSIX") != 0 && strcmp(tok[0], "X_MPIIO") != 0) {
		snprintf(x->err, sizeof(x->err), "unknown module '%.20s' (X_POSIX or X_MPIIO)", tok[0]);
		return -EINVAL;
	}
	if (u64_at(tok[1], &rank) || rank != (uint64_t)x->rank) {
		snprintf(x->err, sizeof(x->err), "rank '%.20s' is not the record's (%lld)",
			 tok[1], (long long)x->rank);
		return -EINVAL;
	}
	if (strcmp(tok[2], "write") != 0 && strcmp(tok[2], "read") != 0) {
		snprintf(x->err, sizeof(x->err), "'%.20s': want write or read", tok[2]);
		return -EINVAL;
	}
	if (u64_at(tok[3], &v[0]) || u64_at(tok[4], &v[1]) || u64_at(tok[5], &v[2]) ||
	    v[1] > INT64_MAX || v[2] > INT64_MAX) {
		snprintf(x->err, sizeof(x->err), "bad segment, offset or length");
		return -EINVAL;
	}
	if (x->nseg == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 256;
		struct seg *p = realloc(x->seg, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		x->seg = p;
		x->cap = cap;
	}
	g = &x->seg[x->nseg];
	if (secs(tok[6], &g->start) || secs(tok[7], &g->end) || g->end < g->start) {
		snprintf(x->err, sizeof(x->err), "bad start or end time (seconds, end >= start)");
		return -EINVAL;
	}
	g->offset = v[1];
	g->length = v[2];
	g->write = tok[2][0] == 'w';
	g->idx = x->nseg++;
	if (g->write)
		x->got_w++;
	else
		x->got_r++;
	return 0;
}

static int dxt_import(FILE *in, tape_writer *w, const struct imp_opts *o,
		      struct imp_diag *d)
{
	struct dxt x = { 0 };
	struct imp_text t;
	size_t len;
	int rc;

	rc = imp_text_init(&t, in);
	while (rc == 0 && (rc = imp_text_next(&t, &len)) > 0) {
		char *s = t.line;

		x.err[0] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			rc = 0;
		else if (*s == '#')
			rc = comment(&x, w, s, t.lineno);
		else
			rc = segment(&x, s);
		if (rc < 0)
			imp_diag_set(d, x.err_line ? x.err_line : t.lineno, x.err);
	}
	imp_text_diag(&t, rc, d);
	if (rc == 0 && (rc = rec_end(&x, w)) < 0)
		imp_diag_set(d, x.err_line ? x.err_line : t.lineno, x.err);
	imp_text_release(&t);
	imp_sys_release(&x.st);
	cm_strtab_release(&x.posix_paths);
	free(x.path);
	free(x.seg);
	return rc < 0 ? rc : 0;
}

const struct importer imp_darshan_dxt = {
	.name = "darshan-dxt",
	.summary = "darshan-dxt-parser's text (Darshan DXT POSIX and MPI-IO segments)",
	.not_recorded = "block, cache, process, file; of syscalls: opens and closes "
			"(one of each is made per file and rank), seeks, metadata calls, "
			"return values and errors",
	.clock = "darshan: seconds since the job's start, 0.1 ms resolution",
	.run = dxt_import,
};
