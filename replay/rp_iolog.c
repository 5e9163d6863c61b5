/* SPDX-License-Identifier: MIT */
/*
 * rp_iolog.c - a trace as fio iologs, version 3 (`iotape export --format
 * fio-iolog`, iotape-export(1)), so that fio itself can replay it.
 *
 * fio reads (iolog.c, read_iolog): a first line "fio version 3 iolog",
 * then "TIMESTAMP FILENAME ACTION" lines for add, open and close and
 * "TIMESTAMP FILENAME ACTION OFFSET LENGTH" for read, write, sync,
 * datasync and trim; TIMESTAMP in microseconds since the job's start;
 * FILENAME one word of at most 256 bytes (sscanf "%256s"); LENGTH an
 * unsigned int.  One log per fio job: here one per process or per thread.
 *
 * The paths are the replay's: the trace source's layout pass
 * (rp_trace_open: rp_path_map, the same confinement and the same choice
 * of what is storage) says which files `iotape replay --prepare-only -d
 * DIR` makes, and each log names DIR/<the layout's path>.  Only ops on
 * those files are written; the rest (pipes, /proc, memory file systems,
 * files fio cannot name) are counted in the stats.  A read or write is
 * written with what it transferred (ret bytes, split below 4 GiB), so
 * that fio moves the recorded bytes; failed ops are left out.
 *
 * Per log a file is added and opened at its first read or write and
 * closed when the last recorded fd on it closes (fio keeps one open per
 * file); files only opened, stat'ed or listed stay out of the logs.
 * Memory: per log its open counts per file (logs x files), nothing per
 * event.  The logs are written to FILE *s the caller's open() gives.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "replay.h"
#include "tape.h"

#define FIO_NAME_MAX 256	/* fio reads a file name with "%256s" */
#define CHUNK_MAX (1u << 30)	/* LENGTH is an unsigned int: split above */

struct il_log {
	FILE *f;
	uint32_t pid, tid;
};

struct il {
	const struct rp_iolog_opts *o;
	struct rp_source *src;
	const struct rp_layout *l;
	struct cm_map logmap;	/* (pid, tid or 0) -> logs[] */
	struct il_log *logs;
	size_t nlogs, caplogs;
	struct cm_map state;	/* (log, file) -> opens << 1 | added */
	struct cm_map names;	/* file -> 1: fio can name it, 2: it cannot */
	char *name;		/* DIR/path of the file in hand */
	size_t namecap;
	uint64_t t0;
	struct rp_iolog_stats *st;
	char *err;
	size_t errlen;
};

/* DIR/path of layout file fi in il->name; 0, or 1 when fio cannot name
 * it (white space, longer than fio reads). */
static int il_name(struct il *il, uint32_t fi)
{
	const char *rel = rp_file_path(il->l, fi);
	size_t n = strlen(il->o->dir) + strlen(rel) + 2;

	if (n > il->namecap) {
		char *p = realloc(il->name, n);

		if (!p)
			return -ENOMEM;
		il->name = p;
		il->namecap = n;
	}
	snprintf(il->name, n, "%s/%s", il->o->dir, rel);
	if (n - 1 > FIO_NAME_MAX)
		return 1;
	for (const char *s = il->name; *s; s++)
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\v' ||
		    *s == '\f')
			return 1;
	return 0;
}

static int il_log(struct il *il, uint32_t pid, uint32_t tid, struct il_log **out)
{
	uint64_t *v;
	int rc = cm_map_put(&il->logmap, pid, il->o->per_thread ? tid : 0, &v);

	if (rc < 0)
		return rc;
	if (rc == 1) {		/* added */
		struct il_log *lg;

		if (il->nlogs == il->caplogs) {
			size_t cap = il->caplogs ? 2 * il->caplogs : 16;

			if (!(lg = realloc(il->logs, cap * sizeof(*lg))))
				return -ENOMEM;
			il->logs = lg;
			il->caplogs = cap;
		}
		lg = &il->logs[il->nlogs];
		lg->pid = pid;
		lg->tid = il->o->per_thread ? tid : 0;
		lg->f = il->o->open(il->o->arg, pid, lg->tid, &rc);
		if (!lg->f) {
			snprintf(il->err, il->errlen, "cannot create the log of %s %" PRIu32
				 "%s", il->o->per_thread ? "thread" : "process",
				 il->o->per_thread ? tid : pid, rc == -EMFILE ?
				 " (too many open files: export --per process)" : "");
			return rc < 0 ? rc : -EIO;
		}
		fputs("fio version 3 iolog\n", lg->f);
		*v = il->nlogs++;
		il->st->logs++;
	}
	*out = &il->logs[*v];
	return 0;
}

/* The layout file of a syscall's path (mapped as the replay maps it):
 * 0 and *fi, 1 when the replay has no such file. */
static int il_file(struct il *il, const char *path, uint32_t *fi)
{
	char buf[PATH_MAX];

	if (!*path || strlen(path) >= sizeof(buf))
		return 1;
	strcpy(buf, path);
	if (rp_path_map(buf))
		return 1;
	return cm_strtab_find(&il->l->paths, buf, fi) ? 1 : 0;
}

static void il_line(struct il *il, struct il_log *lg, uint64_t ts, const char *act)
{
	uint64_t us = ts > il->t0 ? (ts - il->t0) / 1000 : 0;

	fprintf(lg->f, "%" PRIu64 " %s %s\n", us, il->name, act);
}

/* Per log and file: opens << 2 | opened in the log << 1 | added.  A
 * recorded open only counts; the log opens the file at its first read or
 * write (so directories and files only opened or stat'ed stay out) and
 * closes it when the last recorded fd on it closes. */
#define ST_ADDED 1u
#define ST_OPEN 2u
#define ST_FD 4u

static int il_state(struct il *il, struct il_log *lg, uint32_t fi, uint64_t **v)
{
	int rc = cm_map_put(&il->state, lg - il->logs, fi, v);

	return rc < 0 ? rc : 0;
}

/* Before a data op on fi in lg: add and open it in the log. */
static void il_use(struct il *il, struct il_log *lg, uint64_t *v, uint64_t ts)
{
	if (!(*v & ST_ADDED)) {
		il_line(il, lg, ts, "add");
		*v |= ST_ADDED;
	}
	if (!(*v & ST_OPEN)) {
		il_line(il, lg, ts, "open");
		*v |= ST_OPEN;
		il->st->opens++;
	}
}

static void il_close(struct il *il, struct il_log *lg, uint64_t *v, uint64_t ts)
{
	if (*v < ST_FD)
		return;
	*v -= ST_FD;
	if (*v < ST_FD && (*v & ST_OPEN)) {
		il_line(il, lg, ts, "close");
		*v &= ~(uint64_t)ST_OPEN;
		il->st->closes++;
	}
}

static int il_row(struct il *il, const struct tape_syscall *e)
{
	enum tape_op_class c = tape_op_class(e->op);
	const char *act = NULL;
	struct il_log *lg;
	uint32_t fi;
	uint64_t *nm, *v;
	int rc;

	switch (c) {
	case TAPE_OPC_OPEN:
	case TAPE_OPC_CLOSE:
		if (e->ret < 0)
			return 0;
		break;
	case TAPE_OPC_READ:
	case TAPE_OPC_WRITE:
		if (e->ret <= 0)
			return 0;
		act = c == TAPE_OPC_READ ? "read" : "write";
		break;
	case TAPE_OPC_SYNC:
		if (e->ret < 0)
			return 0;
		if (e->op == TAPE_OP_FSYNC || e->op == TAPE_OP_URING_FSYNC)
			act = "sync";
		else if (e->op == TAPE_OP_FDATASYNC)
			act = "datasync";
		else
			return 0;
		break;
	default:
		return 0;
	}
	if (il_file(il, e->path, &fi)) {
		if (act && c != TAPE_OPC_SYNC) {
			il->st->skipped_ops++;
			il->st->skipped_bytes += (uint64_t)e->ret;
		}
		return 0;
	}
	if (il->l->files[fi].isdir)
		return 0;
	if ((rc = cm_map_put(&il->names, fi, 0, &nm)) < 0)
		return rc;
	if ((rc = il_name(il, fi)) < 0)
		return rc;
	if (!*nm)
		*nm = rc ? 2 : 1;
	if (*nm == 2) {		/* fio cannot name it */
		if (act && c != TAPE_OPC_SYNC) {
			il->st->unnamed_ops++;
			il->st->skipped_bytes += (uint64_t)e->ret;
		}
		return 0;
	}
	if ((rc = il_log(il, e->pid, e->tid, &lg)) < 0)
		return rc;
	if ((rc = il_state(il, lg, fi, &v)) < 0)
		return rc;
	if (c == TAPE_OPC_OPEN) {
		*v += ST_FD;
		return 0;
	}
	if (c == TAPE_OPC_CLOSE) {
		il_close(il, lg, v, e->ts_ns);
		return 0;
	}
	il_use(il, lg, v, e->ts_ns);
	if (c == TAPE_OPC_SYNC) {
		uint64_t us = e->ts_ns > il->t0 ? (e->ts_ns - il->t0) / 1000 : 0;

		fprintf(lg->f, "%" PRIu64 " %s %s 0 0\n", us, il->name, act);
		il->st->syncs++;
		return 0;
	}
	for (uint64_t done = 0, left = (uint64_t)e->ret; left; ) {
		uint64_t n = left > CHUNK_MAX ? CHUNK_MAX : left;
		uint64_t us = e->ts_ns > il->t0 ? (e->ts_ns - il->t0) / 1000 : 0;

		fprintf(lg->f, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu64 "\n", us, il->name, act,
			e->offset + done, n);
		done += n;
		left -= n;
	}
	if (c == TAPE_OPC_READ) {
		il->st->reads++;
		il->st->read_bytes += (uint64_t)e->ret;
	} else {
		il->st->writes++;
		il->st->write_bytes += (uint64_t)e->ret;
	}
	return 0;
}

int rp_iolog_write(const char *trace, const struct rp_iolog_opts *o, struct rp_iolog_stats *st,
		   char *err, size_t errlen)
{
	struct il il;
	tape_reader *r = NULL;
	tape_cursor *cur = NULL;
	struct tape_table_stats ts;
	const void *ev;
	int rc;

	memset(st, 0, sizeof(*st));
	memset(&il, 0, sizeof(il));
	il.o = o;
	il.st = st;
	il.err = err;
	il.errlen = errlen;
	err[0] = 0;
	if ((rc = rp_trace_open(&il.src, trace, NULL, err, errlen)) < 0)
		return rc;
	il.l = &il.src->layout;
	if ((rc = tape_reader_open(&r, trace)) < 0 ||
	    (rc = tape_reader_table_stats(r, TAPE_TABLE_SYSCALL, &ts)) < 0 ||
	    (rc = tape_cursor_open(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &cur)) < 0)
		goto out;
	il.t0 = ts.events ? ts.t_min : 0;
	while ((rc = tape_cursor_next(cur, &ev)) == 1) {
		if ((rc = il_row(&il, ev)) < 0)
			goto out;
	}
out:
	if (rc < 0 && !err[0])
		snprintf(err, errlen, "%s%s%s", tape_strerror(rc),
			 rc == -ENOMEM ? "" : ": ", rc == -ENOMEM ? "" : tape_error_detail());
	for (size_t i = 0; i < il.nlogs; i++)
		if (il.logs[i].f && o->close(o->arg, il.logs[i].f) && rc >= 0) {
			rc = -EIO;
			snprintf(err, errlen, "write error");
		}
	tape_cursor_free(cur);
	tape_reader_free(r);
	rp_source_free(il.src);
	cm_map_release(&il.logmap);
	cm_map_release(&il.state);
	cm_map_release(&il.names);
	free(il.logs);
	free(il.name);
	return rc < 0 ? rc : 0;
}
