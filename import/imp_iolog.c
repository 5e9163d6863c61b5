/* SPDX-License-Identifier: MIT */
/*
 * imp_iolog.c - the fio-iolog importer: the I/O logs fio writes with
 * write_iolog (and replays with read_iolog), versions 2 and 3.
 *
 * A log starts with "fio version 2 iolog" or "fio version 3 iolog"; each
 * line after is "FILE ACTION" for add, open and close or "FILE ACTION
 * OFFSET LENGTH" for read, write, sync, datasync, sync_file_range, trim
 * and wait, version 3 putting the microseconds since the job started
 * first.  Words are split at white space, as fio's sscanf does.
 *
 * Events, one per line (iotape-import(1)): open -> openat (O_RDWR: fio
 * does not log its flags), close -> close, read/write -> pread64/pwrite64
 * at OFFSET of LENGTH bytes, sync -> fsync, datasync -> fdatasync,
 * sync_file_range -> sync_file_range, trim -> fallocate(PUNCH_HOLE |
 * KEEP_SIZE); add makes no event.  fds come from imp_sys (lowest free from
 * 3).  An I/O on a file not open opens it first (an openat at the same
 * time); a close of a file not open is skipped.
 *
 * One log is one fio job, a thread: pid 1; a version line in the middle
 * (logs of several jobs appended to one file) starts the next job, pid 2,
 * 3, ...  Time: version 3's timestamps; version 2 has none, so each line
 * is 1 us after the one before, and "wait" (milliseconds since the job
 * started, as fio 3 replays it) moves the clock forward to that time.
 * Memory: the longest line and the files open, nothing per line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/falloc.h>
#include "import.h"

#define NWORDS 6

struct iolog {
	struct imp_sys st;
	char have[64];		/* per syscall column: what a line gives */
	int version;		/* of the current job: 2 or 3, 0 before the first line */
	uint32_t pid;		/* job number */
	uint64_t clock;		/* version 2: synthetic ns of the last line */
	int werr;		/* the writer's error: no input line at fault */
	char err[256];
};

/* Word i of the line, NUL-terminated in place; returns the count. */
static int split(char *s, char **w, int max)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' ||
		       *s == '\v' || *s == '\f')
			s++;
		if (!*s)
			return n;
		if (n == max)
			return max + 1;
		w[n++] = s;
		while (*s && !(*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' ||
			       *s == '\v' || *s == '\f'))
			s++;
		if (*s)
			*s++ = '\0';
	}
}

static int num(const char *s, uint64_t *v, const char *what, char *err, size_t errlen)
{
	uint64_t x = 0;

	if (!*s)
		goto bad;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			goto bad;
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
			snprintf(err, errlen, "%s %.40s is out of range", what, s);
			return -ERANGE;
		}
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	return 0;
bad:
	snprintf(err, errlen, "%s '%.40s' is not a number", what, s);
	return -EINVAL;
}

static void have_set(char *have, const char *col)
{
	const struct tape_column *cols = tape_table_columns(TAPE_TABLE_SYSCALL, NULL);

	have[tape_column_find(TAPE_TABLE_SYSCALL, col) - cols] = 1;
}

/* Append ev, filled by imp_sys. */
static int emit(struct iolog *il, tape_writer *w, struct tape_syscall *ev)
{
	int ret = imp_sys_fill(&il->st, ev, il->have, il->err, sizeof(il->err));

	if (ret)
		return ret;
	return tape_writer_append(w, TAPE_TABLE_SYSCALL, ev) < 0 ? -EPIPE : 0;
}

static const struct {
	const char *name;
	unsigned op;
	int io;		/* 1: takes OFFSET LENGTH, 0: a file action */
} actions[] = {
	{ "read", TAPE_OP_PREAD64, 1 },
	{ "write", TAPE_OP_PWRITE64, 1 },
	{ "sync", TAPE_OP_FSYNC, 1 },
	{ "datasync", TAPE_OP_FDATASYNC, 1 },
	{ "sync_file_range", TAPE_OP_SYNC_FILE_RANGE, 1 },
	{ "trim", TAPE_OP_FALLOCATE, 1 },
	{ "wait", TAPE_OP_UNKNOWN, 1 },
	{ "add", TAPE_OP_UNKNOWN, 0 },
	{ "open", TAPE_OP_OPENAT, 0 },
	{ "close", TAPE_OP_CLOSE, 0 },
};

/* One line (not the version line) of the current job. */
static int iolog_line(struct iolog *il, tape_writer *w, char *line)
{
	char *wd[NWORDS];
	int n = split(line, wd, NWORDS), v3 = il->version == 3, a;
	const char *file, *act;
	uint64_t ts = 0, off = 0, len = 0;
	struct tape_syscall ev = { .path = "", .path2 = "" };
	int ret;

	if (n == 0)
		return 0;	/* blank line */
	if (n != 2 + v3 && n != 4 + v3) {
		snprintf(il->err, sizeof(il->err),
			 "%d words: a version %d line is %s FILE ACTION [OFFSET LENGTH]",
			 n > NWORDS ? NWORDS + 1 : n, il->version, v3 ? "TIME" : "");
		return -EINVAL;
	}
	if (v3 && (ret = num(wd[0], &ts, "time", il->err, sizeof(il->err))))
		return ret;
	if (ts > UINT64_MAX / 1000) {
		snprintf(il->err, sizeof(il->err), "time %s us is out of range", wd[0]);
		return -ERANGE;
	}
	file = wd[v3];
	act = wd[v3 + 1];
	for (a = 0; a < (int)(sizeof(actions) / sizeof(actions[0])); a++)
		if (strcmp(actions[a].name, act) == 0)
			break;
	if (a == (int)(sizeof(actions) / sizeof(actions[0]))) {
		snprintf(il->err, sizeof(il->err), "unknown action '%.40s'", act);
		return -EINVAL;
	}
	if (actions[a].io != (n == 4 + v3)) {
		snprintf(il->err, sizeof(il->err), "%s %s OFFSET LENGTH", act,
			 actions[a].io ? "needs" : "takes no");
		return -EINVAL;
	}
	if (actions[a].io &&
	    ((ret = num(wd[v3 + 2], &off, "offset", il->err, sizeof(il->err))) ||
	     (ret = num(wd[v3 + 3], &len, "length", il->err, sizeof(il->err)))))
		return ret;
	if (v3) {
		ts *= 1000;
	} else if (actions[a].op == TAPE_OP_UNKNOWN && actions[a].io) {
		/* wait: OFFSET is when, in ms since the job started */
		if (off > UINT64_MAX / 1000000) {
			snprintf(il->err, sizeof(il->err), "wait %.40s ms is out of range",
				 wd[2]);
			return -ERANGE;
		}
		if (off * 1000000 > il->clock)
			il->clock = off * 1000000;
		return 0;
	} else {
		il->clock += 1000;
		ts = il->clock;
	}
	if (actions[a].op == TAPE_OP_UNKNOWN)
		return 0;	/* add; version 3's wait, which fio ignores */
	if (strlen(file) > TAPE_MAX_STRING) {
		snprintf(il->err, sizeof(il->err), "file name longer than %u bytes",
			 TAPE_MAX_STRING);
		return -EINVAL;
	}

	ev.ts_ns = ts;
	ev.pid = il->pid;
	ev.path = file;
	if (actions[a].op != TAPE_OP_OPENAT) {
		int64_t fd = imp_sys_open_fd(&il->st, il->pid, file);

		if (fd < -1)
			return (int)fd;
		if (fd == -1) {
			struct tape_syscall op = ev;

			if (actions[a].op == TAPE_OP_CLOSE)
				return 0;
			op.op = TAPE_OP_OPENAT;
			op.flags = O_RDWR;
			if ((ret = emit(il, w, &op)))
				return ret;
		}
	}
	ev.op = actions[a].op;
	switch (ev.op) {
	case TAPE_OP_OPENAT:
		ev.flags = O_RDWR;
		break;
	case TAPE_OP_FSYNC:
	case TAPE_OP_FDATASYNC:
		break;		/* fio logs the last I/O's offset: no meaning */
	case TAPE_OP_FALLOCATE:
		ev.flags = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
		/* fallthrough */
	default:
		ev.offset = off;
		ev.size = len;
		break;
	}
	return emit(il, w, &ev);
}

static int iolog_version(const char *line)
{
	static const char v[] = "fio version ", tail[] = " iolog";
	size_t n = sizeof(v) - 1;

	if (strncmp(line, v, n) != 0 || (line[n] != '2' && line[n] != '3') ||
	    strncmp(line + n + 1, tail, sizeof(tail) - 1) != 0)
		return 0;
	return line[n] - '0';
}

static int iolog_import(FILE *in, tape_writer *w, const struct imp_opts *o,
			struct imp_diag *d)
{
	struct iolog il = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	(void)o;
	for (const char *const *c = (const char *const[]){ "ts_ns", "pid", "op", "path",
			"offset", "size", "flags", NULL }; *c; c++)
		have_set(il.have, *c);
	errno = 0;
	while ((len = getline(&line, &cap, in)) >= 0) {
		int v;

		d->line++;
		if ((size_t)len != strlen(line)) {
			snprintf(il.err, sizeof(il.err), "NUL byte in the line");
			ret = -EINVAL;
			break;
		}
		v = iolog_version(line);
		if (v) {
			/* the next job's log */
			il.version = v;
			il.pid++;
			il.clock = 0;
			continue;
		}
		if (!il.version) {
			snprintf(il.err, sizeof(il.err),
				 "not a fio iolog: the first line is not 'fio version 2 iolog' or 'fio version 3 iolog'");
			ret = -EINVAL;
			break;
		}
		ret = iolog_line(&il, w, line);
		if (ret)
			break;
	}
	if (!ret && ferror(in)) {
		d->read_errno = errno ? errno : EIO;
		ret = -EIO;
	} else if (!ret && !il.version) {
		d->line = 0;
		snprintf(il.err, sizeof(il.err), "empty input: not a fio iolog");
		ret = -EINVAL;
	}
	if (il.werr)
		d->line = 0;	/* the writer's error, not the input's */
	else if (ret && ret != -ENOMEM)
		snprintf(d->msg, sizeof(d->msg), "%s", il.err);
	free(line);
	imp_sys_release(&il.st);
	return ret;
}

const struct importer imp_iolog = {
	.name = "fio-iolog",
	.summary = "the I/O log fio writes with --write_iolog (versions 2 and 3)",
	.not_recorded = "durations, block, cache, process",
	.clock = "relative",
	.run = iolog_import,
};
