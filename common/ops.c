/* SPDX-License-Identifier: MIT */
/*
 * ops.c - the table of ops.h: how the replay reproduces each trace op.
 *
 * Metadata (stat and friends, getdents64, access and faccessat, readlink
 * and readlinkat that failed) is replayed as the storage's work too.  Not replayed: what moves no bytes to or from storage by itself
 * or what the replay cannot reproduce without the job's state:
 * lseek, fadvise, readahead, mmap/munmap/madvise (a mapping's I/O is its
 * page faults: faults.h), msync, ftruncate, fallocate, close_range (which
 * closes fds the replay tracks one by one), io_uring_enter
 * (its ops are recorded one by one) and io_uring ops of other kinds.
 * sync_file_range is replayed as fdatasync, the nearest io_uring has.
 */
#include <stddef.h>
#include "tape.h"
#include "ops.h"

#define ISSUE(k) { CM_ISSUE, CM_##k }

static const struct cm_op_rule rules[TAPE_OP_MAX] = {
	[TAPE_OP_OPEN] = ISSUE(OPEN),
	[TAPE_OP_OPENAT] = ISSUE(OPEN),
	[TAPE_OP_OPENAT2] = ISSUE(OPEN),
	[TAPE_OP_CREAT] = ISSUE(OPEN),
	[TAPE_OP_URING_OPENAT] = ISSUE(OPEN),
	[TAPE_OP_CLOSE] = ISSUE(CLOSE),
	[TAPE_OP_URING_CLOSE] = ISSUE(CLOSE),
	[TAPE_OP_DUP] = { CM_MAPS_FD, CM_DUP },
	[TAPE_OP_DUP2] = { CM_MAPS_FD, CM_DUP },
	[TAPE_OP_DUP3] = { CM_MAPS_FD, CM_DUP },
	[TAPE_OP_FCNTL_DUPFD] = { CM_MAPS_FD, CM_DUP },
	[TAPE_OP_READ] = ISSUE(READ),
	[TAPE_OP_PREAD64] = ISSUE(READ),
	[TAPE_OP_READV] = ISSUE(READ),
	[TAPE_OP_PREADV] = ISSUE(READ),
	[TAPE_OP_PREADV2] = ISSUE(READ),
	[TAPE_OP_URING_READ] = ISSUE(READ),
	[TAPE_OP_WRITE] = ISSUE(WRITE),
	[TAPE_OP_PWRITE64] = ISSUE(WRITE),
	[TAPE_OP_WRITEV] = ISSUE(WRITE),
	[TAPE_OP_PWRITEV] = ISSUE(WRITE),
	[TAPE_OP_PWRITEV2] = ISSUE(WRITE),
	[TAPE_OP_URING_WRITE] = ISSUE(WRITE),
	[TAPE_OP_FSYNC] = ISSUE(FSYNC),
	[TAPE_OP_URING_FSYNC] = ISSUE(FSYNC),
	[TAPE_OP_FDATASYNC] = ISSUE(FDATASYNC),
	[TAPE_OP_SYNC_FILE_RANGE] = ISSUE(FDATASYNC),
	[TAPE_OP_RENAME] = ISSUE(RENAME),
	[TAPE_OP_RENAMEAT] = ISSUE(RENAME),
	[TAPE_OP_RENAMEAT2] = ISSUE(RENAME),
	[TAPE_OP_UNLINK] = ISSUE(UNLINK),
	[TAPE_OP_UNLINKAT] = ISSUE(UNLINK),
	[TAPE_OP_MKDIR] = ISSUE(MKDIR),
	[TAPE_OP_MKDIRAT] = ISSUE(MKDIR),
	[TAPE_OP_STATX] = ISSUE(STAT),
	[TAPE_OP_NEWFSTATAT] = ISSUE(STAT),
	[TAPE_OP_NEWSTAT] = ISSUE(STAT),
	[TAPE_OP_NEWLSTAT] = ISSUE(STAT),
	[TAPE_OP_NEWFSTAT] = ISSUE(STAT),
	[TAPE_OP_GETDENTS64] = ISSUE(GETDENTS),
	[TAPE_OP_ACCESS] = ISSUE(ACCESS),
	[TAPE_OP_FACCESSAT] = ISSUE(ACCESS),
	[TAPE_OP_READLINK] = ISSUE(READLINK),
	[TAPE_OP_READLINKAT] = ISSUE(READLINK),
	[TAPE_OP_SENDFILE] = { CM_COPY, 0 },
	[TAPE_OP_COPY_FILE_RANGE] = { CM_COPY, 0 },
	[TAPE_OP_SPLICE] = { CM_COPY, 0 },
};

struct cm_op_rule cm_op_rule(unsigned op)
{
	return op < TAPE_OP_MAX ? rules[op] : (struct cm_op_rule){ CM_SKIP, 0 };
}

int cm_op_replayed(unsigned op, int metadata, int failed)
{
	struct cm_op_rule r = cm_op_rule(op);

	if (cm_kind_is_meta(r.kind))
		return metadata && (r.kind != CM_READLINK || failed);
	return !failed && (r.how == CM_ISSUE || r.how == CM_COPY);
}

static const char *const kind_names[CM_KIND_MAX] = {
	[CM_OPEN] = "open", [CM_CLOSE] = "close", [CM_READ] = "read",
	[CM_WRITE] = "write", [CM_FSYNC] = "fsync", [CM_FDATASYNC] = "fdatasync",
	[CM_UNLINK] = "unlink", [CM_RENAME] = "rename", [CM_MKDIR] = "mkdir",
	[CM_DUP] = "dup",
	[CM_STAT] = "stat", [CM_GETDENTS] = "getdents",
	[CM_ACCESS] = "access", [CM_READLINK] = "readlink",
};

const char *cm_kind_name(unsigned kind)
{
	return kind < CM_KIND_MAX && kind_names[kind] ? kind_names[kind] : "?";
}
