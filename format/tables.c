/* SPDX-License-Identifier: MIT */
/*
 * tables.c - the tables and columns of format v1, and the names of the
 * enumerations stored in them.
 *
 * Column ids and enumeration values are on disk: never renumber, only add.
 * Column order here is the order of dump's CSV columns.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "tape_internal.h"

#define COL(st, f, nm, idn, ty, tx) \
	{ .name = nm, .id = idn, .type = ty, .width = sizeof(((struct st *)0)->f), \
	  .text = tx, .offset = offsetof(struct st, f) }
#define U(st, f, id) COL(st, f, #f, id, TAPE_COL_U64, TAPE_TXT_NUM)
#define I(st, f, id) COL(st, f, #f, id, TAPE_COL_I64, TAPE_TXT_NUM)
#define S(st, f, id) COL(st, f, #f, id, TAPE_COL_STR, TAPE_TXT_NUM)

static const struct tape_column syscall_cols[] = {
	U(tape_syscall, ts_ns, 0),
	U(tape_syscall, pid, 2),
	U(tape_syscall, tid, 3),
	COL(tape_syscall, op, "op", 4, TAPE_COL_U64, TAPE_TXT_OP),
	S(tape_syscall, path, 11),
	I(tape_syscall, fd, 5),
	U(tape_syscall, offset, 7),
	U(tape_syscall, size, 8),
	I(tape_syscall, ret, 9),
	U(tape_syscall, dur_ns, 1),
	U(tape_syscall, file_id, 6),
	COL(tape_syscall, flags, "flags", 10, TAPE_COL_U64, TAPE_TXT_HEX),
	S(tape_syscall, path2, 12),
	I(tape_syscall, fd2, 13),
	U(tape_syscall, file_id2, 14),
	U(tape_syscall, offset2, 15),
};

static const struct tape_column block_cols[] = {
	U(tape_block, ts_ns, 0),
	U(tape_block, pid, 2),
	U(tape_block, tid, 3),
	COL(tape_block, dev, "dev", 4, TAPE_COL_U64, TAPE_TXT_NUM),
	COL(tape_block, flags, "rwbs", 7, TAPE_COL_U64, TAPE_TXT_BLKFLAGS),
	U(tape_block, sector, 5),
	U(tape_block, bytes, 6),
	U(tape_block, dur_ns, 1),
	U(tape_block, inode, 8),
	I(tape_block, error, 9),
};

static const struct tape_column cache_cols[] = {
	U(tape_cache, ts_ns, 0),
	U(tape_cache, pid, 1),
	U(tape_cache, tid, 2),
	COL(tape_cache, kind, "kind", 3, TAPE_COL_U64, TAPE_TXT_CACHEKIND),
	U(tape_cache, dev, 4),
	U(tape_cache, inode, 5),
	U(tape_cache, file_id, 6),
	U(tape_cache, index, 7),
	U(tape_cache, count, 8),
};

static const struct tape_column process_cols[] = {
	U(tape_process, ts_ns, 0),
	U(tape_process, pid, 2),
	U(tape_process, tid, 3),
	U(tape_process, ppid, 4),
	S(tape_process, comm, 6),
	U(tape_process, end_ns, 1),
	I(tape_process, exit_code, 5),
	S(tape_process, argv, 7),
};

static const struct tape_column file_cols[] = {
	U(tape_file, ts_ns, 0),
	U(tape_file, file_id, 1),
	S(tape_file, path, 6),
	U(tape_file, dev, 2),
	U(tape_file, inode, 3),
	U(tape_file, size, 4),
	COL(tape_file, mode, "mode", 5, TAPE_COL_U64, TAPE_TXT_NUM),
	COL(tape_file, fstype, "fstype", 7, TAPE_COL_U64, TAPE_TXT_FSTYPE),
};

static const struct tape_column sample_cols[] = {
	U(tape_sample, ts_ns, 0),
	COL(tape_sample, metric, "metric", 1, TAPE_COL_U64, TAPE_TXT_METRIC),
	U(tape_sample, subject, 2),
	U(tape_sample, value, 3),
};

static const struct tape_column sched_cols[] = {
	U(tape_sched, ts_ns, 0),
	U(tape_sched, pid, 2),
	U(tape_sched, tid, 3),
	COL(tape_sched, kind, "kind", 6, TAPE_COL_U64, TAPE_TXT_WAKE),
	U(tape_sched, waker_pid, 4),
	U(tape_sched, waker_tid, 5),
	U(tape_sched, dur_ns, 1),
	COL(tape_sched, call, "call", 7, TAPE_COL_U64, TAPE_TXT_WAITCALL),
	U(tape_sched, sysnr, 8),
	U(tape_sched, run_ns, 9),
	U(tape_sched, cpu_ns, 10),
};

#define TABLE(i, nm, st, cols) \
	[i] = { i, nm, sizeof(struct st), cols, sizeof(cols) / sizeof(cols[0]) }
static const struct tape_table_def tables[TAPE_TABLE_MAX] = {
	TABLE(TAPE_TABLE_SYSCALL, "syscall", tape_syscall, syscall_cols),
	TABLE(TAPE_TABLE_BLOCK, "block", tape_block, block_cols),
	TABLE(TAPE_TABLE_CACHE, "cache", tape_cache, cache_cols),
	TABLE(TAPE_TABLE_PROCESS, "process", tape_process, process_cols),
	TABLE(TAPE_TABLE_FILE, "file", tape_file, file_cols),
	TABLE(TAPE_TABLE_SAMPLE, "sample", tape_sample, sample_cols),
	TABLE(TAPE_TABLE_SCHED, "sched", tape_sched, sched_cols),
};

const struct tape_table_def *tape__table(int id)
{
	if (id <= 0 || id >= TAPE_TABLE_MAX)
		return NULL;
	return &tables[id];
}

const char *tape_table_name(int table)
{
	const struct tape_table_def *t = tape__table(table);
	return t ? t->name : NULL;
}

int tape_table_from_name(const char *name)
{
	for (int i = 1; i < TAPE_TABLE_MAX; i++)
		if (name && strcmp(tables[i].name, name) == 0)
			return i;
	return -EINVAL;
}

size_t tape_table_event_size(int table)
{
	const struct tape_table_def *t = tape__table(table);
	return t ? t->size : 0;
}

const struct tape_column *tape_table_columns(int table, size_t *n)
{
	const struct tape_table_def *t = tape__table(table);
	if (n)
		*n = t ? t->ncols : 0;
	return t ? t->cols : NULL;
}

const struct tape_column *tape_column_find(int table, const char *name)
{
	size_t n;
	const struct tape_column *c = tape_table_columns(table, &n);
	for (size_t i = 0; c && i < n; i++)
		if (strcmp(c[i].name, name) == 0)
			return &c[i];
	return NULL;
}

uint64_t tape_column_get(const struct tape_column *c, const void *ev)
{
	const char *p = (const char *)ev + c->offset;
	if (c->type == TAPE_COL_STR)
		return 0;
	if (c->width == 4) {
		uint32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

void tape_column_set(const struct tape_column *c, void *ev, uint64_t v)
{
	char *p = (char *)ev + c->offset;
	if (c->type == TAPE_COL_STR)
		return;
	if (c->width == 4) {
		uint32_t w = (uint32_t)v;
		memcpy(p, &w, 4);
	} else {
		memcpy(p, &v, 8);
	}
}

/* ------------------------------------------------------------- op names */

static const struct {
	const char *name;
	unsigned char cls;
	unsigned char path;	/* names a file by path */
	unsigned char fd;	/* acts on an fd */
} ops[TAPE_OP_MAX] = {
	[TAPE_OP_UNKNOWN] = { "unknown", TAPE_OPC_OTHER, 0, 0 },
	[TAPE_OP_OPEN] = { "open", TAPE_OPC_OPEN, 1, 0 },
	[TAPE_OP_OPENAT] = { "openat", TAPE_OPC_OPEN, 1, 0 },
	[TAPE_OP_OPENAT2] = { "openat2", TAPE_OPC_OPEN, 1, 0 },
	[TAPE_OP_CREAT] = { "creat", TAPE_OPC_OPEN, 1, 0 },
	[TAPE_OP_CLOSE] = { "close", TAPE_OPC_CLOSE, 0, 1 },
	[TAPE_OP_CLOSE_RANGE] = { "close_range", TAPE_OPC_CLOSE, 0, 0 },
	[TAPE_OP_DUP] = { "dup", TAPE_OPC_DUP, 0, 1 },
	[TAPE_OP_DUP2] = { "dup2", TAPE_OPC_DUP, 0, 1 },
	[TAPE_OP_DUP3] = { "dup3", TAPE_OPC_DUP, 0, 1 },
	[TAPE_OP_FCNTL_DUPFD] = { "fcntl_dupfd", TAPE_OPC_DUP, 0, 1 },
	[TAPE_OP_READ] = { "read", TAPE_OPC_READ, 0, 1 },
	[TAPE_OP_PREAD64] = { "pread64", TAPE_OPC_READ, 0, 1 },
	[TAPE_OP_READV] = { "readv", TAPE_OPC_READ, 0, 1 },
	[TAPE_OP_PREADV] = { "preadv", TAPE_OPC_READ, 0, 1 },
	[TAPE_OP_PREADV2] = { "preadv2", TAPE_OPC_READ, 0, 1 },
	[TAPE_OP_WRITE] = { "write", TAPE_OPC_WRITE, 0, 1 },
	[TAPE_OP_PWRITE64] = { "pwrite64", TAPE_OPC_WRITE, 0, 1 },
	[TAPE_OP_WRITEV] = { "writev", TAPE_OPC_WRITE, 0, 1 },
	[TAPE_OP_PWRITEV] = { "pwritev", TAPE_OPC_WRITE, 0, 1 },
	[TAPE_OP_PWRITEV2] = { "pwritev2", TAPE_OPC_WRITE, 0, 1 },
	[TAPE_OP_LSEEK] = { "lseek", TAPE_OPC_META, 0, 1 },
	[TAPE_OP_FSYNC] = { "fsync", TAPE_OPC_SYNC, 0, 1 },
	[TAPE_OP_FDATASYNC] = { "fdatasync", TAPE_OPC_SYNC, 0, 1 },
	[TAPE_OP_SYNC_FILE_RANGE] = { "sync_file_range", TAPE_OPC_SYNC, 0, 1 },
	[TAPE_OP_FADVISE64] = { "fadvise64", TAPE_OPC_META, 0, 1 },
	[TAPE_OP_READAHEAD] = { "readahead", TAPE_OPC_META, 0, 1 },
	[TAPE_OP_MMAP] = { "mmap", TAPE_OPC_MMAP, 0, 1 },
	[TAPE_OP_MUNMAP] = { "munmap", TAPE_OPC_MMAP, 0, 0 },
	[TAPE_OP_MSYNC] = { "msync", TAPE_OPC_SYNC, 0, 0 },
	[TAPE_OP_MADVISE] = { "madvise", TAPE_OPC_MMAP, 0, 0 },
	[TAPE_OP_FTRUNCATE] = { "ftruncate", TAPE_OPC_WRITE, 0, 1 },
	[TAPE_OP_FALLOCATE] = { "fallocate", TAPE_OPC_WRITE, 0, 1 },
	[TAPE_OP_RENAME] = { "rename", TAPE_OPC_NAMESPACE, 1, 0 },
	[TAPE_OP_RENAMEAT] = { "renameat", TAPE_OPC_NAMESPACE, 1, 0 },
	[TAPE_OP_RENAMEAT2] = { "renameat2", TAPE_OPC_NAMESPACE, 1, 0 },
	[TAPE_OP_UNLINK] = { "unlink", TAPE_OPC_NAMESPACE, 1, 0 },
	[TAPE_OP_UNLINKAT] = { "unlinkat", TAPE_OPC_NAMESPACE, 1, 0 },
	[TAPE_OP_MKDIR] = { "mkdir", TAPE_OPC_NAMESPACE, 1, 0 },
	[TAPE_OP_MKDIRAT] = { "mkdirat", TAPE_OPC_NAMESPACE, 1, 0 },
	[TAPE_OP_GETDENTS64] = { "getdents64", TAPE_OPC_META, 0, 1 },
	[TAPE_OP_STATX] = { "statx", TAPE_OPC_META, 1, 0 },
	[TAPE_OP_NEWFSTATAT] = { "newfstatat", TAPE_OPC_META, 1, 0 },
	[TAPE_OP_NEWSTAT] = { "newstat", TAPE_OPC_META, 1, 0 },
	[TAPE_OP_NEWLSTAT] = { "newlstat", TAPE_OPC_META, 1, 0 },
	[TAPE_OP_NEWFSTAT] = { "newfstat", TAPE_OPC_META, 0, 1 },
	[TAPE_OP_SENDFILE] = { "sendfile", TAPE_OPC_OTHER, 0, 1 },
	[TAPE_OP_COPY_FILE_RANGE] = { "copy_file_range", TAPE_OPC_OTHER, 0, 1 },
	[TAPE_OP_SPLICE] = { "splice", TAPE_OPC_OTHER, 0, 1 },
	[TAPE_OP_IO_URING_ENTER] = { "io_uring_enter", TAPE_OPC_OTHER, 0, 1 },
	[TAPE_OP_URING_READ] = { "uring_read", TAPE_OPC_READ, 0, 1 },
	[TAPE_OP_URING_WRITE] = { "uring_write", TAPE_OPC_WRITE, 0, 1 },
	[TAPE_OP_URING_FSYNC] = { "uring_fsync", TAPE_OPC_SYNC, 0, 1 },
	[TAPE_OP_URING_OPENAT] = { "uring_openat", TAPE_OPC_OPEN, 1, 0 },
	[TAPE_OP_URING_CLOSE] = { "uring_close", TAPE_OPC_CLOSE, 0, 1 },
	[TAPE_OP_URING_OTHER] = { "uring_other", TAPE_OPC_OTHER, 0, 1 },
	[TAPE_OP_ACCESS] = { "access", TAPE_OPC_META, 1, 0 },
	[TAPE_OP_FACCESSAT] = { "faccessat", TAPE_OPC_META, 1, 0 },
	[TAPE_OP_READLINK] = { "readlink", TAPE_OPC_META, 1, 0 },
	[TAPE_OP_READLINKAT] = { "readlinkat", TAPE_OPC_META, 1, 0 },
	[TAPE_OP_POLL] = { "poll", TAPE_OPC_WAIT, 0, 1 },
	[TAPE_OP_PPOLL] = { "ppoll", TAPE_OPC_WAIT, 0, 1 },
	[TAPE_OP_SELECT] = { "select", TAPE_OPC_WAIT, 0, 0 },
	[TAPE_OP_PSELECT6] = { "pselect6", TAPE_OPC_WAIT, 0, 0 },
	[TAPE_OP_EPOLL_WAIT] = { "epoll_wait", TAPE_OPC_WAIT, 0, 1 },
	[TAPE_OP_EPOLL_PWAIT] = { "epoll_pwait", TAPE_OPC_WAIT, 0, 1 },
	[TAPE_OP_EPOLL_PWAIT2] = { "epoll_pwait2", TAPE_OPC_WAIT, 0, 1 },
};

const char *tape_op_name(unsigned op)
{
	return op < TAPE_OP_MAX ? ops[op].name : NULL;
}

int tape_op_from_name(const char *name)
{
	for (unsigned i = 0; name && i < TAPE_OP_MAX; i++)
		if (ops[i].name && strcmp(ops[i].name, name) == 0)
			return (int)i;
	return -EINVAL;
}

enum tape_op_class tape_op_class(unsigned op)
{
	return op < TAPE_OP_MAX ? (enum tape_op_class)ops[op].cls : TAPE_OPC_OTHER;
}

int tape_op_has_path(unsigned op)
{
	return op < TAPE_OP_MAX && ops[op].path;
}

int tape_op_uses_fd(unsigned op)
{
	return op < TAPE_OP_MAX && ops[op].fd;
}

/* The mask the writer tests inline (tape_internal.h): one list. */
int tape_op_has_output(unsigned op)
{
	return tape__op_has_output(op);
}

struct tape_syscall tape_syscall_output(const struct tape_syscall *e)
{
	struct tape_syscall o = *e;

	o.fd = e->fd2;
	o.file_id = e->file_id2;
	o.offset = e->offset2;
	o.path = e->path2;
	return o;
}

/* ------------------------------------------------------- other enums */

static const char *const cache_kinds[TAPE_CACHE_KIND_MAX] = {
	[TAPE_CACHE_ACCESS] = "access", [TAPE_CACHE_INSERT] = "insert",
	[TAPE_CACHE_EVICT] = "evict", [TAPE_CACHE_FAULT] = "fault",
	[TAPE_CACHE_MAP_PAGES] = "map_pages",
};

static const char *const metrics[TAPE_METRIC_MAX] = {
	[TAPE_METRIC_CPU_USER_NS] = "cpu_user_ns",
	[TAPE_METRIC_CPU_SYS_NS] = "cpu_sys_ns",
	[TAPE_METRIC_RSS_BYTES] = "rss_bytes",
	[TAPE_METRIC_PAGECACHE_BYTES] = "pagecache_bytes",
	[TAPE_METRIC_MEM_AVAILABLE_BYTES] = "mem_available_bytes",
	[TAPE_METRIC_DISK_READ_BYTES] = "disk_read_bytes",
	[TAPE_METRIC_DISK_WRITE_BYTES] = "disk_write_bytes",
	[TAPE_METRIC_DISK_READ_IOS] = "disk_read_ios",
	[TAPE_METRIC_DISK_WRITE_IOS] = "disk_write_ios",
	[TAPE_METRIC_DISK_BUSY_MS] = "disk_busy_ms",
	[TAPE_METRIC_GPU_UTIL_PCT] = "gpu_util_pct",
	[TAPE_METRIC_GPU_MEM_BYTES] = "gpu_mem_bytes",
};

static const char *const wake_kinds[TAPE_WAKE_KIND_MAX] = {
	[TAPE_WAKE_NONE] = "none", [TAPE_WAKE_IRQ] = "irq", [TAPE_WAKE_JOB] = "job",
	[TAPE_WAKE_KTHREAD] = "kthread", [TAPE_WAKE_OTHER] = "other",
};

static const char *const wait_calls[TAPE_WAITC_MAX] = {
	[TAPE_WAITC_NONE] = "none", [TAPE_WAITC_SLEEP] = "sleep",
	[TAPE_WAITC_POLL] = "poll", [TAPE_WAITC_FUTEX] = "futex",
	[TAPE_WAITC_READ] = "read", [TAPE_WAITC_WRITE] = "write",
	[TAPE_WAITC_WAIT] = "wait", [TAPE_WAITC_IO] = "io",
	[TAPE_WAITC_OTHER] = "other",
};

static int name_lookup(const char *const *names, unsigned n, const char *name)
{
	for (unsigned i = 0; name && i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return (int)i;
	return -EINVAL;
}

const char *tape_cache_kind_name(unsigned kind)
{
	return kind < TAPE_CACHE_KIND_MAX ? cache_kinds[kind] : NULL;
}

int tape_cache_kind_from_name(const char *name)
{
	return name_lookup(cache_kinds, TAPE_CACHE_KIND_MAX, name);
}

const char *tape_metric_name(unsigned metric)
{
	return metric < TAPE_METRIC_MAX ? metrics[metric] : NULL;
}

int tape_metric_from_name(const char *name)
{
	return name_lookup(metrics, TAPE_METRIC_MAX, name);
}

const char *tape_wake_kind_name(unsigned kind)
{
	return kind < TAPE_WAKE_KIND_MAX ? wake_kinds[kind] : NULL;
}

int tape_wake_kind_from_name(const char *name)
{
	return name_lookup(wake_kinds, TAPE_WAKE_KIND_MAX, name);
}

const char *tape_wait_call_name(unsigned call)
{
	return call < TAPE_WAITC_MAX ? wait_calls[call] : NULL;
}

int tape_wait_call_from_name(const char *name)
{
	return name_lookup(wait_calls, TAPE_WAITC_MAX, name);
}

const char *tape_column_enum_name(const struct tape_column *c, uint64_t v)
{
	if (v > UINT32_MAX)
		return NULL;
	switch (c->text) {
	case TAPE_TXT_OP: return tape_op_name((unsigned)v);
	case TAPE_TXT_CACHEKIND: return tape_cache_kind_name((unsigned)v);
	case TAPE_TXT_METRIC: return tape_metric_name((unsigned)v);
	case TAPE_TXT_WAKE: return tape_wake_kind_name((unsigned)v);
	case TAPE_TXT_WAITCALL: return tape_wait_call_name((unsigned)v);
	}
	return NULL;
}

int tape_column_enum_value(const struct tape_column *c, const char *name)
{
	switch (c->text) {
	case TAPE_TXT_OP: return tape_op_from_name(name);
	case TAPE_TXT_CACHEKIND: return tape_cache_kind_from_name(name);
	case TAPE_TXT_METRIC: return tape_metric_from_name(name);
	case TAPE_TXT_WAKE: return tape_wake_kind_from_name(name);
	case TAPE_TXT_WAITCALL: return tape_wait_call_from_name(name);
	}
	return -EINVAL;
}

/* RWBS-like letters, one per flag in this fixed order (U = FUA, unlike
 * blktrace's second F); "N" for no flags. */
static const struct { char c; uint64_t bit; } rwbs[] = {
	{ 'F', TAPE_BLK_FLUSH }, { 'D', TAPE_BLK_DISCARD }, { 'W', TAPE_BLK_WRITE },
	{ 'R', TAPE_BLK_READ }, { 'A', TAPE_BLK_RAHEAD }, { 'S', TAPE_BLK_SYNC },
	{ 'M', TAPE_BLK_META }, { 'U', TAPE_BLK_FUA },
};

void tape_blk_flags_format(uint64_t flags, char *buf, size_t len)
{
	size_t n = 0;
	if (!len)
		return;
	for (size_t i = 0; i < sizeof(rwbs) / sizeof(rwbs[0]) && n + 1 < len; i++)
		if (flags & rwbs[i].bit)
			buf[n++] = rwbs[i].c;
	if (n == 0 && len > 1)
		buf[n++] = 'N';
	buf[n] = '\0';
}

int tape_blk_flags_parse(const char *s, uint64_t *flags)
{
	uint64_t f = 0;
	if (!s || !*s)
		return -EINVAL;
	if (strcmp(s, "N") == 0) {
		*flags = 0;
		return 0;
	}
	for (; *s; s++) {
		size_t i;
		for (i = 0; i < sizeof(rwbs) / sizeof(rwbs[0]); i++)
			if (rwbs[i].c == *s)
				break;
		if (i == sizeof(rwbs) / sizeof(rwbs[0]))
			return -EINVAL;
		f |= rwbs[i].bit;
	}
	*flags = f;
	return 0;
}
