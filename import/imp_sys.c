/* SPDX-License-Identifier: MIT */
/*
 * imp_sys.c - the fd table behind imported syscalls (import.h).
 *
 * Sources often leave columns out: a hand-written CSV, a fio iolog (no
 * fds), strace (no file ids).  imp_sys_fill gives them the values a real
 * program would have produced, documented in iotape-import(1).  Defaults
 * only ever fill columns the source does not have: a value it has, even
 * empty, is taken as it is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "import.h"
#include "path.h"
#include "tape_vec.h"

struct imp_fd {
	uint32_t pid;
	int64_t fd;
	int open;
	uint32_t path;		/* id in paths */
	uint64_t pos;		/* file position */
};

void imp_sys_release(struct imp_sys *st)
{
	cm_strtab_release(&st->paths);
	free(st->fds);
	cm_map_release(&st->by_fd);
	cm_map_release(&st->last_open);
}

/* Id of path s in st->paths, added when new; -ENOMEM. */
static int64_t path_intern(struct imp_sys *st, const char *s)
{
	uint32_t id;
	int rc = cm_strtab_intern(&st->paths, s, &id);

	return rc < 0 ? rc : (int64_t)id;
}

/* The fd entry of (pid, fd) if it is open. */
static struct imp_fd *fd_find(struct imp_sys *st, uint32_t pid, int64_t fd)
{
	uint64_t *v = cm_map_get(&st->by_fd, pid, (uint64_t)fd);

	return v && st->fds[*v].open ? &st->fds[*v] : NULL;
}

static int fd_set_open(struct imp_sys *st, uint32_t pid, int64_t fd,
		       uint32_t path, uint64_t pos)
{
	uint64_t *v = cm_map_get(&st->by_fd, pid, (uint64_t)fd);
	struct imp_fd *e;

	if (!v) {
		if (TAPE_VEC_GROW(st->fds, st->fcap, st->nfds + 1, 64))
			return -ENOMEM;
		if (cm_map_set(&st->by_fd, pid, (uint64_t)fd, st->nfds))
			return -ENOMEM;
		e = &st->fds[st->nfds++];
	} else {
		e = &st->fds[*v];
	}
	*e = (struct imp_fd){ pid, fd, 1, path, pos };
	return cm_map_set(&st->last_open, pid, path, (uint64_t)fd);
}

static int64_t fd_lowest_free(struct imp_sys *st, uint32_t pid)
{
	int64_t fd = 3;

	while (fd_find(st, pid, fd))
		fd++;
	return fd;
}

/* Ops that move the file position (read(2), not pread(2)). */
static int op_moves_pos(unsigned op)
{
	return op == TAPE_OP_READ || op == TAPE_OP_READV ||
	       op == TAPE_OP_WRITE || op == TAPE_OP_WRITEV;
}

/* Read and write ops whose ret is a byte count. */
static int op_transfers(unsigned op)
{
	enum tape_op_class k = tape_op_class(op);

	return ((k == TAPE_OPC_READ || k == TAPE_OPC_WRITE) &&
		op != TAPE_OP_FTRUNCATE && op != TAPE_OP_FALLOCATE) ||
	       tape_op_has_output(op);
}

#define HAVE(col) (have[(col) - cols])

/*
 * Fill the syscall columns the source left out (see iotape-import(1)) and
 * track opens, closes and file positions.  A path's file id is its id in
 * st->paths + 1.
 */
int imp_sys_fill(struct imp_sys *st, struct tape_syscall *ev, const char *have,
		 char *err, size_t errlen)
{
	/* the columns, looked up once (the same static table every time:
	 * finding them per row by name was most of an import's time) */
	static const struct tape_column *cols, *c_pid, *c_tid, *c_path, *c_fd,
		*c_ret, *c_off, *c_fid, *c_fd2, *c_fid2, *c_off2, *c_path2;
#define COL(name) (tape_column_find(TAPE_TABLE_SYSCALL, name))
	if (!c_path2) {
		cols = tape_table_columns(TAPE_TABLE_SYSCALL, NULL);
		c_pid = COL("pid"), c_tid = COL("tid");
		c_path = COL("path"), c_fd = COL("fd");
		c_ret = COL("ret"), c_off = COL("offset");
		c_fid = COL("file_id");
		c_fd2 = COL("fd2"), c_fid2 = COL("file_id2");
		c_off2 = COL("offset2");
		c_path2 = COL("path2");
	}
#undef COL
	unsigned op = ev->op;
	enum tape_op_class cls = tape_op_class(op);
	const char *opname = tape_op_name(op) ? tape_op_name(op) : "op";
	int64_t path = -1;	/* id in st->paths */
	struct imp_fd *fe;

	if (!HAVE(c_pid))
		ev->pid = 1;
	if (!HAVE(c_tid))
		ev->tid = ev->pid;
	if (!HAVE(c_path) && tape_op_has_path(op)) {
		snprintf(err, errlen, "%s needs a path: add a path column", opname);
		return -EINVAL;
	}
	if (HAVE(c_path) && *ev->path) {
		path = path_intern(st, ev->path);
		if (path < 0)
			return (int)path;
	}
	if (!HAVE(c_fd)) {
		ev->fd = -1;
		if (tape_op_uses_fd(op)) {
			uint64_t *fd = path >= 0 ?
				cm_map_get(&st->last_open, ev->pid, (uint64_t)path) : NULL;

			if (path < 0) {
				snprintf(err, errlen, "%s acts on an fd: add an fd column, or a path opened earlier",
					 opname);
				return -EINVAL;
			}
			if (!fd || !fd_find(st, ev->pid, (int64_t)*fd)) {
				snprintf(err, errlen, "%s: no open file with this path in pid %u to take the fd from; add an fd column",
					 opname, ev->pid);
				return -EINVAL;
			}
			ev->fd = (int64_t)*fd;
		}
	}
	fe = tape_op_uses_fd(op) ? fd_find(st, ev->pid, ev->fd) : NULL;
	if (!HAVE(c_path) && fe) {
		ev->path = cm_strtab_str(&st->paths, fe->path);
		path = fe->path;
	}
	if (!HAVE(c_ret)) {
		if (cls == TAPE_OPC_OPEN || cls == TAPE_OPC_DUP)
			ev->ret = fd_lowest_free(st, ev->pid);
		else if (op_transfers(op))
			ev->ret = (int64_t)ev->size;
		else
			ev->ret = 0;
	}
	if (!HAVE(c_off))
		ev->offset = op_transfers(op) && fe ? fe->pos : 0;
	if (!HAVE(c_fid))
		ev->file_id = path >= 0 ? (uint64_t)path + 1 : 0;
	if (!HAVE(c_fd2))
		ev->fd2 = -1;
	if (tape_op_has_output(op)) {
		/* the output side from fd2's open file, as the input side
		 * from fd's */
		struct imp_fd *fe2 = ev->fd2 >= 0 ? fd_find(st, ev->pid, ev->fd2) : NULL;

		if (!HAVE(c_path2) && fe2)
			ev->path2 = cm_strtab_str(&st->paths, fe2->path);
		if (!HAVE(c_fid2))
			ev->file_id2 = fe2 ? (uint64_t)fe2->path + 1 : 0;
		if (!HAVE(c_off2))
			ev->offset2 = fe2 ? fe2->pos : 0;
		/* the output fd's position moves when the copy wrote at it
		 * (no offset2 given, or sendfile, which always does); the
		 * input is taken to be read at an explicit offset */
		if (fe2 && ev->ret > 0 && (!HAVE(c_off2) || op == TAPE_OP_SENDFILE))
			fe2->pos = ev->offset2 + (uint64_t)ev->ret;
	}

	/* what this call did to the fd table */
	if (cls == TAPE_OPC_OPEN && ev->ret >= 0 && path >= 0)
		return fd_set_open(st, ev->pid, ev->ret, (uint32_t)path, 0);
	if (cls == TAPE_OPC_DUP && ev->ret >= 0 && fe)
		return fd_set_open(st, ev->pid, ev->ret, fe->path, fe->pos);
	if (cls == TAPE_OPC_CLOSE && fe && ev->ret == 0)
		fe->open = 0;
	else if (op_moves_pos(op) && fe && ev->ret > 0)
		fe->pos = ev->offset + (uint64_t)ev->ret;
	else if (op == TAPE_OP_LSEEK && fe && ev->ret >= 0)
		fe->pos = (uint64_t)ev->ret;
	return 0;
}

int64_t imp_sys_file_id(struct imp_sys *st, const char *path)
{
	int64_t id;

	if (!*path)
		return 0;
	id = path_intern(st, path);
	return id < 0 ? id : id + 1;
}

int64_t imp_sys_open_fd(struct imp_sys *st, uint32_t pid, const char *path)
{
	int64_t id = *path ? path_intern(st, path) : -1;
	uint64_t *fd;

	if (id < 0)
		return id == -1 ? -1 : id;
	fd = cm_map_get(&st->last_open, pid, (uint64_t)id);
	return fd && fd_find(st, pid, (int64_t)*fd) ? (int64_t)*fd : -1;
}

void imp_path_normalize(char *p)
{
	size_t skip = 0;

	cm_path_normalize(p, 0);
	if (*p == '/')
		return;
	while (p[skip] == '.' && p[skip + 1] == '.' && (p[skip + 2] == '/' || !p[skip + 2]))
		skip += p[skip + 2] ? 3 : 2;
	if (skip)
		memmove(p, p + skip, strlen(p + skip) + 1);
}
