/* SPDX-License-Identifier: MIT */
/*
 * imp_darshan_dxt.c - the darshan-dxt importer: the text that
 * darshan-dxt-parser prints of a Darshan log's DXT (extended tracing)
 * modules, into syscalls.
 *
 * The parser prints, per module (DXT_POSIX, then DXT_MPIIO), one record
 * per (file, rank): "# DXT, file_id: ID, file_name: PATH", "# DXT, rank:
 * R, hostname: H", ("# DXT, number of threads: T" since 3.5), "# DXT,
 * write_count: W, read_count: N", then W write and N read segments,
 * "X_POSIX RANK write|read SEGMENT OFFSET LENGTH START END [OST...]
 * [PTHREAD-ID]", START and END in seconds since the job started (4
 * decimals: 0.1 ms).  The Pthread-ID column (3.5 on) is the writing
 * thread's pthread_self(), or "N/A" for a log of an older module
 * version; the Lustre OSTs ("[3]") come before it.  Before 3.2, X_MPIIO
 * segments had no OFFSET (7 columns).
 *
 * Each record becomes, in time order: an open of PATH at its first
 * segment's start, a pread64 or pwrite64 per segment (offset, length,
 * dur_ns = END - START), a close at its last segment's end.  pid is rank
 * + 1 (pid 0 is no process); a rank's first thread (by Pthread-ID, "N/A"
 * being one) has tid = pid, its others tids 2^31, 2^31 + 1, ... in order
 * of first appearance.  The open is by the first segment's thread, the
 * close by the last one's.  Its flags are what the record did: O_RDWR |
 * O_CREAT when it wrote and read, O_WRONLY | O_CREAT when it only wrote,
 * O_RDONLY when it only read (Darshan does not keep them).  Its fd is the
 * lowest from 3 not held, at any time of the record's [open, close]
 * span, by another record of the same rank: records are printed file
 * after file, not in time order, and two files open at once in a process
 * have two fds.  Old MPI-IO segments without an offset are read or write
 * at the file position.  An MPI-IO record of a file that has POSIX
 * records is skipped: MPI-IO's I/O reaches the file through the POSIX
 * calls already imported; of a file without, its segments are imported
 * the same way.  File names are normalized (imp_path_normalize).  Other
 * '#' lines are the job's header and comments.
 *
 * A record's segments are held until the next record (to sort them: the
 * parser prints writes, then reads); memory grows with the largest
 * record, which Darshan held in memory itself, and with the files and
 * threads (an fd's busy spans: one per record).  Records follow each
 * other as the parser prints them, so rows are in time order within a
 * record, not across records.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "import.h"
#include "imp_text.h"
#include "tape_vec.h"

#define MAX_RANK ((1u << 31) - 2)	/* pid = rank + 1 stays below the extra tids */
#define TID_EXTRA (1u << 31)		/* a rank's second, third, ... thread */

struct seg {
	uint64_t start, end, offset, length;
	size_t idx;		/* in the input: ties keep it */
	uint32_t tid;
	int write;
	int has_off;		/* 0: an MPI-IO segment of darshan < 3.2 */
};

/* The spans [start, end] an fd of a pid is held, sorted, disjoint. */
struct busy {
	uint64_t (*span)[2];
	size_t n, cap;
};

struct dxt {
	struct imp_sys st;
	struct cm_strtab posix_paths;	/* files with DXT_POSIX records */
	struct cm_map threads;	/* (rank, pthread id; 0 for N/A) -> tid */
	struct cm_map rank_main;/* (rank, 0) -> 1: the rank's tid = pid is given */
	uint64_t next_tid;	/* the next extra thread's */
	struct cm_map fd_busy;	/* (pid, fd) -> index in busy + 1 */
	struct busy *busy;
	size_t nbusy, capbusy;
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

/* One row of the record, on its fd (an open returns it: its fd column
 * is -1); has_off 0 leaves the offset to the file position. */
struct row {
	unsigned op;
	uint32_t tid;
	uint64_t ts, dur, offset, size, flags;
	int64_t fd;
	int has_off;
};

static int put(struct dxt *x, tape_writer *w, const struct row *r)
{
	const struct tape_column *cols = tape_table_columns(TAPE_TABLE_SYSCALL, NULL);
	char have[32] = { 0 };
	int open = r->op == TAPE_OP_OPEN;
	struct tape_syscall ev = {
		.ts_ns = r->ts, .dur_ns = r->dur, .op = r->op,
		.pid = (uint32_t)(x->rank + 1), .tid = r->tid,
		.fd = open ? -1 : r->fd, .ret = open ? r->fd : 0,
		.offset = r->offset, .size = r->size, .flags = r->flags,
		.path = x->path, .path2 = "",
	};
	int rc;

#define HAS(name) have[tape_column_find(TAPE_TABLE_SYSCALL, name) - cols] = 1
	HAS("ts_ns"); HAS("dur_ns"); HAS("op"); HAS("pid"); HAS("tid");
	HAS("path"); HAS("size"); HAS("fd");
	if (open) {
		HAS("ret");
		HAS("flags");
	}
	if (r->has_off)
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

/* Whether fd's spans b leave [s, e] free; *at: where it would go.  Spans
 * that touch count as overlapping: a close and an open at the same time
 * would not be ordered. */
static int busy_free(const struct busy *b, uint64_t s, uint64_t e, size_t *at)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {	/* the first span starting after e */
		size_t mid = lo + (hi - lo) / 2;

		if (b->span[mid][0] > e)
			hi = mid;
		else
			lo = mid + 1;
	}
	*at = lo;
	return lo == 0 || b->span[lo - 1][1] < s;
}

/* The lowest fd from 3 that pid holds at no time of [s, e], marked held
 * then: >= 3, or -ENOMEM. */
static int64_t fd_for(struct dxt *x, uint32_t pid, uint64_t s, uint64_t e)
{
	for (int64_t fd = 3;; fd++) {
		uint64_t *v;
		struct busy *b;
		size_t at;
		int rc = cm_map_put(&x->fd_busy, pid, (uint64_t)fd, &v);

		if (rc < 0)
			return rc;
		if (rc == 1) {
			if (TAPE_VEC_GROW(x->busy, x->capbusy, x->nbusy + 1, 16)) {
				cm_map_del(&x->fd_busy, pid, (uint64_t)fd, NULL);
				return -ENOMEM;
			}
			x->busy[x->nbusy] = (struct busy){ 0 };
			*v = ++x->nbusy;
		}
		b = &x->busy[*v - 1];
		if (!busy_free(b, s, e, &at))
			continue;
		if (TAPE_VEC_GROW(b->span, b->cap, b->n + 1, 8))
			return -ENOMEM;
		memmove(&b->span[at + 1], &b->span[at], (b->n - at) * sizeof(*b->span));
		b->span[at][0] = s;
		b->span[at][1] = e;
		b->n++;
		return fd;
	}
}

/* Write the record read so far (nothing when it was skipped or empty). */
static int rec_end(struct dxt *x, tape_writer *w)
{
	uint64_t last = 0, flags = O_RDONLY;
	uint32_t id, last_tid;
	int64_t fd;
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
	last_tid = x->seg[0].tid;
	for (size_t i = 0; i < x->nseg; i++) {
		if (x->seg[i].end > last || i == 0) {
			last = x->seg[i].end;
			last_tid = x->seg[i].tid;
		}
	}
	if (x->got_w && x->got_r)
		flags = O_RDWR | O_CREAT;
	else if (x->got_w)
		flags = O_WRONLY | O_CREAT;
	fd = fd_for(x, (uint32_t)(x->rank + 1), x->seg[0].start, last);
	if (fd < 0)
		return (int)fd;
	rc = put(x, w, &(struct row){ .op = TAPE_OP_OPEN, .tid = x->seg[0].tid,
				      .ts = x->seg[0].start, .fd = fd, .flags = flags });
	for (size_t i = 0; i < x->nseg && rc == 0; i++) {
		const struct seg *s = &x->seg[i];
		unsigned op = s->has_off ? (s->write ? TAPE_OP_PWRITE64 : TAPE_OP_PREAD64) :
					   (s->write ? TAPE_OP_WRITE : TAPE_OP_READ);

		rc = put(x, w, &(struct row){ .op = op, .tid = s->tid, .ts = s->start,
					      .dur = s->end - s->start, .fd = fd,
					      .offset = s->offset, .size = s->length,
					      .has_off = s->has_off });
	}
	if (rc == 0)
		rc = put(x, w, &(struct row){ .op = TAPE_OP_CLOSE, .tid = last_tid, .ts = last,
					      .fd = fd });
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
		imp_path_normalize(x->path);	/* as the program named it */
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
		if (u64_at(p, &a) || a > MAX_RANK) {
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

/* The tid of the rank's thread pthread (0: "N/A", the only one known). */
static int thread_tid(struct dxt *x, uint64_t pthread, uint32_t *tid)
{
	uint64_t *v, *m;
	int rc = cm_map_put(&x->threads, (uint64_t)x->rank, pthread, &v);

	if (rc < 0)
		return rc;
	if (rc == 0) {
		*tid = (uint32_t)*v;
		return 0;
	}
	rc = cm_map_put(&x->rank_main, (uint64_t)x->rank, 0, &m);
	if (rc < 0) {
		cm_map_del(&x->threads, (uint64_t)x->rank, pthread, NULL);
		return rc;
	}
	if (rc == 1) {
		*m = 1;
		*v = (uint64_t)x->rank + 1;
	} else {
		if (!x->next_tid)
			x->next_tid = TID_EXTRA;
		if (x->next_tid > UINT32_MAX) {
			cm_map_del(&x->threads, (uint64_t)x->rank, pthread, NULL);
			snprintf(x->err, sizeof(x->err), "more than %u threads", TID_EXTRA);
			return -EINVAL;
		}
		*v = x->next_tid++;
	}
	*tid = (uint32_t)*v;
	return 0;
}

/*
 * A segment line: MODULE RANK write|read SEGMENT [OFFSET] LENGTH START
 * END, then Lustre OSTs in brackets, then the Pthread-ID (a number or
 * N/A).  No OFFSET: an X_MPIIO line of darshan < 3.2.
 */
static int segment(struct dxt *x, char *s)
{
	char *tok[8], *pthread = NULL, *save = NULL;
	size_t n = 0;
	int brackets = 0, ost = 0, old;
	uint64_t rank, v[3], ptid = 0;
	struct seg *g;

	for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		size_t l = strlen(t);

		if (brackets || *t == '[') {	/* an OST: "[3]", "[  3]" */
			if (pthread)
				goto shape;
			brackets = t[l - 1] != ']';
			ost = 1;
		} else if (n < 8 && !ost) {
			tok[n++] = t;
		} else if (!pthread && n == 8) {
			pthread = t;
		} else {
			goto shape;
		}
	}
	old = n == 7 && !pthread && !ost;
	if (brackets || !(n == 8 || old))
		goto shape;
	if (!x->in_rec || !x->has_rank) {
		snprintf(x->err, sizeof(x->err),
			 "a segment outside a record (no '# DXT, file_id' and '# DXT, rank' before it)");
		return -EINVAL;
	}
	if (strcmp(tok[0], "X_POSIX") != 0 && strcmp(tok[0], "X_MPIIO") != 0) {
		snprintf(x->err, sizeof(x->err), "unknown module '%.20s' (X_POSIX or X_MPIIO)", tok[0]);
		return -EINVAL;
	}
	if (old && tok[0][2] != 'M')
		goto shape;
	if (u64_at(tok[1], &rank) || rank != (uint64_t)x->rank) {
		snprintf(x->err, sizeof(x->err), "rank '%.20s' is not the record's (%lld)",
			 tok[1], (long long)x->rank);
		return -EINVAL;
	}
	if (strcmp(tok[2], "write") != 0 && strcmp(tok[2], "read") != 0) {
		snprintf(x->err, sizeof(x->err), "'%.20s': want write or read", tok[2]);
		return -EINVAL;
	}
	v[1] = 0;
	if (u64_at(tok[3], &v[0]) || (!old && u64_at(tok[4], &v[1])) ||
	    u64_at(tok[old ? 4 : 5], &v[2]) || v[1] > INT64_MAX || v[2] > INT64_MAX) {
		snprintf(x->err, sizeof(x->err), "bad segment, offset or length");
		return -EINVAL;
	}
	if (pthread && strcmp(pthread, "N/A") != 0 && u64_at(pthread, &ptid)) {
		snprintf(x->err, sizeof(x->err), "Pthread-ID '%.30s': want a number or N/A", pthread);
		return -EINVAL;
	}
	if (TAPE_VEC_GROW(x->seg, x->cap, x->nseg + 1, 256))
		return -ENOMEM;
	g = &x->seg[x->nseg];
	if (secs(tok[old ? 5 : 6], &g->start) || secs(tok[old ? 6 : 7], &g->end) ||
	    g->end < g->start) {
		snprintf(x->err, sizeof(x->err), "bad start or end time (seconds, end >= start)");
		return -EINVAL;
	}
	int rc = thread_tid(x, ptid, &g->tid);

	if (rc)
		return rc;
	g->offset = v[1];
	g->length = v[2];
	g->has_off = !old;
	g->write = tok[2][0] == 'w';
	g->idx = x->nseg++;
	if (g->write)
		x->got_w++;
	else
		x->got_r++;
	return 0;
shape:
	snprintf(x->err, sizeof(x->err),
		 "want 'MODULE RANK write|read SEGMENT OFFSET LENGTH START END [[OST]...] [PTHREAD-ID]'");
	return -EINVAL;
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
	cm_map_release(&x.threads);
	cm_map_release(&x.rank_main);
	cm_map_release(&x.fd_busy);
	for (size_t i = 0; i < x.nbusy; i++)
		free(x.busy[i].span);
	free(x.busy);
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
