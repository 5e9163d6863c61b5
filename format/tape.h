/* SPDX-License-Identifier: MIT */
/*
 * tape.h - public API of the iotape trace format library (libtape).
 *
 * A trace is a file of tables (syscall, block, cache, process, file,
 * sample), each stored as a stream of compressed columnar blocks.  The byte
 * layout is specified in iotape-format(5); this header is the only one that
 * programs outside format/ include.  The library links libzstd and libxxhash
 * and nothing else: no libbpf, no liburing.
 *
 * Conventions:
 *  - every function that can fail returns 0 (or a count) on success and a
 *    negative errno on failure; tape_strerror() turns it into text and
 *    tape_error_detail() says where (file offset, block, column);
 *  - handles are opaque; every *_free() accepts NULL;
 *  - strings handed to the writer are copied; strings returned by the reader
 *    point into the cursor and stay valid until the next call on it.
 */
#ifndef IOTAPE_TAPE_H
#define IOTAPE_TAPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TAPE_FORMAT_MAJOR 1
#define TAPE_FORMAT_MINOR 1

/* Table ids are stored on disk: never renumber, only add. */
enum tape_table {
	TAPE_TABLE_SYSCALL = 1,
	TAPE_TABLE_BLOCK = 2,
	TAPE_TABLE_CACHE = 3,
	TAPE_TABLE_PROCESS = 4,
	TAPE_TABLE_FILE = 5,
	TAPE_TABLE_SAMPLE = 6,
	TAPE_TABLE_SCHED = 7,	/* added in 1.1, later: readers before skip it */
	TAPE_TABLE_MAX /* one past the last table this library knows */
};

/* Syscall op codes, stored on disk: never renumber, only add. */
enum tape_op {
	TAPE_OP_UNKNOWN = 0,
	TAPE_OP_OPEN = 1, TAPE_OP_OPENAT, TAPE_OP_OPENAT2, TAPE_OP_CREAT,
	TAPE_OP_CLOSE = 5, TAPE_OP_CLOSE_RANGE, TAPE_OP_DUP, TAPE_OP_DUP2,
	TAPE_OP_DUP3, TAPE_OP_FCNTL_DUPFD,
	TAPE_OP_READ = 11, TAPE_OP_PREAD64, TAPE_OP_READV, TAPE_OP_PREADV,
	TAPE_OP_PREADV2,
	TAPE_OP_WRITE = 16, TAPE_OP_PWRITE64, TAPE_OP_WRITEV, TAPE_OP_PWRITEV,
	TAPE_OP_PWRITEV2,
	TAPE_OP_LSEEK = 21, TAPE_OP_FSYNC, TAPE_OP_FDATASYNC,
	TAPE_OP_SYNC_FILE_RANGE, TAPE_OP_FADVISE64, TAPE_OP_READAHEAD,
	TAPE_OP_MMAP = 27, TAPE_OP_MUNMAP, TAPE_OP_MSYNC, TAPE_OP_MADVISE,
	TAPE_OP_FTRUNCATE = 31, TAPE_OP_FALLOCATE,
	TAPE_OP_RENAME = 33, TAPE_OP_RENAMEAT, TAPE_OP_RENAMEAT2,
	TAPE_OP_UNLINK = 36, TAPE_OP_UNLINKAT, TAPE_OP_MKDIR, TAPE_OP_MKDIRAT,
	TAPE_OP_GETDENTS64 = 40,
	TAPE_OP_STATX = 41, TAPE_OP_NEWFSTATAT, TAPE_OP_NEWSTAT,
	TAPE_OP_NEWLSTAT, TAPE_OP_NEWFSTAT,
	TAPE_OP_SENDFILE = 46, TAPE_OP_COPY_FILE_RANGE, TAPE_OP_SPLICE,
	TAPE_OP_IO_URING_ENTER = 49,
	/* operations submitted through an io_uring ring */
	TAPE_OP_URING_READ = 50, TAPE_OP_URING_WRITE, TAPE_OP_URING_FSYNC,
	TAPE_OP_URING_OPENAT, TAPE_OP_URING_CLOSE, TAPE_OP_URING_OTHER,
	/* metadata calls that name a file by path (added in 1.1, later) */
	TAPE_OP_ACCESS = 56, TAPE_OP_FACCESSAT, /* faccessat and faccessat2 */
	TAPE_OP_READLINK, TAPE_OP_READLINKAT,
	/* calls a thread waits in for other fds (added in 1.1, later): fd is
	 * the first fd polled (poll, ppoll), the epoll fd (epoll_*), or -1
	 * (select); size the fds asked for (nfds, maxevents), ret how many
	 * were ready; flags poll's and epoll_wait's timeout argument (ms,
	 * -1: none), else 0 */
	TAPE_OP_POLL = 60, TAPE_OP_PPOLL, TAPE_OP_SELECT, TAPE_OP_PSELECT6,
	TAPE_OP_EPOLL_WAIT, TAPE_OP_EPOLL_PWAIT, TAPE_OP_EPOLL_PWAIT2,
	TAPE_OP_MAX /* one past the last op this library knows */
};

/* What an op does, for analysis and replay (not stored on disk). */
enum tape_op_class {
	TAPE_OPC_OTHER = 0,
	TAPE_OPC_OPEN,	/* ret is the new fd, path is the file */
	TAPE_OPC_CLOSE,
	TAPE_OPC_DUP,	/* ret is the new fd, fd the old one */
	TAPE_OPC_READ,	/* fd, offset, size; ret bytes read */
	TAPE_OPC_WRITE,
	TAPE_OPC_SYNC,
	TAPE_OPC_MMAP,
	TAPE_OPC_META,	/* stat, access, readlink, getdents, lseek, fadvise, ... */
	TAPE_OPC_NAMESPACE, /* rename, unlink, mkdir: path (and path2) */
	TAPE_OPC_WAIT,	/* poll, select, epoll_wait: waits for other fds */
};

/* Block request flags (block.flags, column "rwbs"), printed as RWBS letters. */
enum tape_blk_flag {
	TAPE_BLK_READ = 1u << 0,
	TAPE_BLK_WRITE = 1u << 1,
	TAPE_BLK_FLUSH = 1u << 2,
	TAPE_BLK_SYNC = 1u << 3,
	TAPE_BLK_META = 1u << 4,
	TAPE_BLK_FUA = 1u << 5,
	TAPE_BLK_DISCARD = 1u << 6,
	TAPE_BLK_RAHEAD = 1u << 7,
};
#define TAPE_BLK_KNOWN 0xffu	/* the bits above; others print as hex */

/* Page-cache event kinds, stored on disk. */
enum tape_cache_kind {
	TAPE_CACHE_ACCESS = 1,	  /* buffered read touched pages index..+count */
	TAPE_CACHE_INSERT = 2,	  /* pages added to the cache (a miss) */
	TAPE_CACHE_EVICT = 3,	  /* pages deleted from the cache */
	TAPE_CACHE_FAULT = 4,	  /* page fault on a file mapping */
	TAPE_CACHE_MAP_PAGES = 5, /* fault-around mapped cached pages */
	TAPE_CACHE_KIND_MAX
};

/*
 * What woke a thread that waited (sched.kind), stored on disk.  Told from
 * the context of the wakeup (sched_waking): an interrupt (a timer, a
 * device: the storage's completion), a thread of the traced job, a kernel
 * thread, or a task outside the job.
 */
enum tape_wake_kind {
	TAPE_WAKE_NONE = 0,	/* no wait: the row of a thread's exit (dur 0,
				 * cpu_ns its total on-CPU time) */
	TAPE_WAKE_IRQ = 1,	/* hard or soft interrupt: timer, device */
	TAPE_WAKE_JOB = 2,	/* a thread of the traced job (waker_pid/tid) */
	TAPE_WAKE_KTHREAD = 3,	/* a kernel thread (kworker, io_uring worker) */
	TAPE_WAKE_OTHER = 4,	/* a task outside the job (waker_pid/tid) */
	TAPE_WAKE_KIND_MAX
};

/* The kind of call a thread waited in (sched.call), stored on disk. */
enum tape_wait_call {
	TAPE_WAITC_NONE = 0,	/* not in a system call (a page fault, ...) */
	TAPE_WAITC_SLEEP = 1,	/* nanosleep, clock_nanosleep */
	TAPE_WAITC_POLL = 2,	/* poll, select, epoll_wait and their kin */
	TAPE_WAITC_FUTEX = 3,	/* futex: a lock, a condition, a join */
	TAPE_WAITC_READ = 4,	/* read, recv*: a pipe, a socket, a device */
	TAPE_WAITC_WRITE = 5,	/* write, send*: a full pipe or socket */
	TAPE_WAITC_WAIT = 6,	/* wait4, waitid: a child process */
	TAPE_WAITC_IO = 7,	/* a call of the file I/O the trace records */
	TAPE_WAITC_OTHER = 8,	/* any other call */
	TAPE_WAITC_MAX
};

/* Sample metrics, stored on disk. */
enum tape_metric {
	TAPE_METRIC_CPU_USER_NS = 1, /* subject: pid */
	TAPE_METRIC_CPU_SYS_NS = 2,  /* subject: pid */
	TAPE_METRIC_RSS_BYTES = 3,   /* subject: pid */
	TAPE_METRIC_PAGECACHE_BYTES = 4, /* subject: 0 (system) */
	TAPE_METRIC_MEM_AVAILABLE_BYTES = 5,
	TAPE_METRIC_DISK_READ_BYTES = 6,  /* subject: dev */
	TAPE_METRIC_DISK_WRITE_BYTES = 7, /* subject: dev */
	TAPE_METRIC_DISK_READ_IOS = 8,
	TAPE_METRIC_DISK_WRITE_IOS = 9,
	TAPE_METRIC_DISK_BUSY_MS = 10,
	TAPE_METRIC_GPU_UTIL_PCT = 11,	  /* subject: GPU index */
	TAPE_METRIC_GPU_MEM_BYTES = 12,
	TAPE_METRIC_MAX
};

/*
 * Event structs.  Field order and widths are an API, not the disk layout:
 * the disk layout is per column (see tape_table_columns()).  Every table
 * starts with ts_ns: nanoseconds on the clock named by the "clock" meta key
 * (CLOCK_MONOTONIC for recordings).
 */
struct tape_syscall {
	uint64_t ts_ns;	  /* syscall entry */
	uint64_t dur_ns;  /* exit - entry */
	uint32_t pid;	  /* thread group id */
	uint32_t tid;
	uint32_t op;	  /* enum tape_op */
	uint32_t _pad;
	int64_t fd;	  /* fd argument, -1 when none */
	uint64_t file_id; /* key into the file table, 0 = unknown */
	uint64_t offset;  /* file offset the op started at */
	uint64_t size;	  /* bytes requested */
	int64_t ret;	  /* return value (negative errno on failure) */
	uint64_t flags;	  /* open flags, mmap prot|flags<<32, whence, ... */
	const char *path; /* file the op hit ("" when unknown) */
	const char *path2;/* second path (rename target, copy output), else "" */
	/* The output side of a copy (sendfile, copy_file_range, splice: the
	 * ops tape_op_has_output() names); for every other op the writer
	 * stores -1, 0, 0 whatever the struct holds, and readers give those. */
	int64_t fd2;	  /* out_fd / fd_out, -1 when none */
	uint64_t file_id2;/* file table key, 0 = unknown or not a file */
	uint64_t offset2; /* file offset the copy started writing at */
};

struct tape_block {
	uint64_t ts_ns;	 /* request issue */
	uint64_t dur_ns; /* issue -> completion */
	uint32_t pid;
	uint32_t tid;
	uint64_t dev;	 /* kernel dev_t: major << 20 | minor */
	uint64_t sector; /* 512-byte units */
	uint64_t bytes;
	uint64_t flags;	 /* enum tape_blk_flag bits */
	uint64_t inode;	 /* 0 when the pages do not say */
	int64_t error;	 /* completion status, negative errno */
};

struct tape_cache {
	uint64_t ts_ns;
	uint32_t pid;
	uint32_t tid;
	uint32_t kind;	 /* enum tape_cache_kind */
	uint32_t _pad;
	uint64_t dev;
	uint64_t inode;
	uint64_t file_id;
	uint64_t index;	 /* first page index */
	uint64_t count;	 /* pages */
};

struct tape_process {
	uint64_t ts_ns;	 /* start (fork/clone/exec) */
	uint64_t end_ns; /* exit, 0 while running */
	uint32_t pid;	 /* thread group id */
	uint32_t tid;	 /* == pid for the main thread */
	uint32_t ppid;
	uint32_t _pad;
	int64_t exit_code;
	const char *comm;
	const char *argv; /* arguments separated by single spaces */
};

struct tape_file {
	uint64_t ts_ns;	  /* first open */
	uint64_t file_id;
	uint64_t dev;
	uint64_t inode;
	uint64_t size;	  /* size at open */
	uint64_t mode;	  /* st_mode */
	const char *path; /* absolute */
	/* the file system's magic (statfs(2) f_type: 0xef53 ext4, 0x01021994
	 * tmpfs, ...), 0 = unknown; common/fstype.h names them */
	uint64_t fstype;
};

struct tape_sample {
	uint64_t ts_ns;
	uint32_t metric;  /* enum tape_metric */
	uint32_t _pad;
	uint64_t subject; /* pid, dev or GPU index, per metric */
	uint64_t value;	  /* cumulative counters stay cumulative */
};

/*
 * A thread's wait (sched table; iotape-format(5), "The sched table"): it
 * went off the CPU to block at ts_ns and was woken dur_ns later by
 * waker_pid/waker_tid (kind says what that is), and ran again run_ns after
 * that.  cpu_ns is the thread's on-CPU time from its start to ts_ns, so
 * two rows of a thread give its on-CPU time between them.  The recorder
 * writes the waits of wait_min_ns (metadata "sched.wait_min_ns") or more.
 */
struct tape_sched {
	uint64_t ts_ns;	  /* went off the CPU, blocked */
	uint64_t dur_ns;  /* until it was woken */
	uint32_t pid;
	uint32_t tid;
	uint32_t waker_pid;/* 0 for an interrupt or none */
	uint32_t waker_tid;
	uint32_t kind;	  /* enum tape_wake_kind */
	uint32_t call;	  /* enum tape_wait_call */
	uint64_t sysnr;	  /* the system call's number + 1 (metadata "arch"), 0 none */
	uint64_t run_ns;  /* woken -> on a CPU again */
	uint64_t cpu_ns;  /* the thread's on-CPU time until ts_ns */
};
/* (A row of kind TAPE_WAKE_NONE is the thread's exit, not a wait.) */

/*
 * Column descriptions: one table per event struct, driving encoding, dump
 * and import.  Column ids are stored on disk.
 */
enum tape_col_type {
	TAPE_COL_U64 = 1, /* unsigned integer (4- or 8-byte field) */
	TAPE_COL_I64 = 2, /* signed integer */
	TAPE_COL_STR = 3, /* NUL-free byte string */
};

/* How a column is written as text (dump/import). */
enum tape_col_text {
	TAPE_TXT_NUM = 0,
	TAPE_TXT_OP,	  /* op name */
	TAPE_TXT_BLKFLAGS,/* RWBS letters */
	TAPE_TXT_CACHEKIND,
	TAPE_TXT_METRIC,
	TAPE_TXT_HEX,
	TAPE_TXT_FSTYPE,  /* a file system magic: hex, or its name for people */
	TAPE_TXT_WAKE,	  /* enum tape_wake_kind name */
	TAPE_TXT_WAITCALL,/* enum tape_wait_call name */
};

struct tape_column {
	const char *name;
	uint16_t id;	/* on-disk column id */
	uint8_t type;	/* enum tape_col_type */
	uint8_t width;	/* field size in the struct: 4 or 8 (strings: sizeof(char *)) */
	uint8_t text;	/* enum tape_col_text */
	uint16_t offset;/* offsetof the field in the event struct */
};

const char *tape_table_name(int table);		/* NULL when unknown */
int tape_table_from_name(const char *name);	/* -EINVAL when unknown */
size_t tape_table_event_size(int table);	/* 0 when unknown */
/* Columns of a table; *n gets the count. NULL when the table is unknown. */
const struct tape_column *tape_table_columns(int table, size_t *n);
const struct tape_column *tape_column_find(int table, const char *name);
uint64_t tape_column_get(const struct tape_column *c, const void *ev);
void tape_column_set(const struct tape_column *c, void *ev, uint64_t v);

const char *tape_op_name(unsigned op);		/* NULL when unknown */
int tape_op_from_name(const char *name);	/* -EINVAL when unknown */
enum tape_op_class tape_op_class(unsigned op);
int tape_op_has_path(unsigned op);	/* op names a file by path */
int tape_op_uses_fd(unsigned op);	/* op acts on an open fd */
/* op copies from fd to fd2 (syscall columns fd2, file_id2, offset2) */
int tape_op_has_output(unsigned op);
/* A copy's output side as a row of its own: e with fd, file_id, offset
 * and path taken from fd2, file_id2, offset2 and path2. */
struct tape_syscall tape_syscall_output(const struct tape_syscall *e);
const char *tape_cache_kind_name(unsigned kind);
int tape_cache_kind_from_name(const char *name);
const char *tape_metric_name(unsigned metric);
int tape_metric_from_name(const char *name);
/* The name of value v of an enumerated column (TAPE_TXT_OP, _CACHEKIND,
 * _METRIC, _WAKE, _WAITCALL), NULL when c is not one or v has none; and
 * back: the value of name, -EINVAL when unknown. */
const char *tape_column_enum_name(const struct tape_column *c, uint64_t v);
int tape_column_enum_value(const struct tape_column *c, const char *name);
const char *tape_wake_kind_name(unsigned kind);
int tape_wake_kind_from_name(const char *name);
const char *tape_wait_call_name(unsigned call);
int tape_wait_call_from_name(const char *name);
/* RWBS text ("R", "WS", "F", "RA", "D"...); buf >= 16 bytes. */
void tape_blk_flags_format(uint64_t flags, char *buf, size_t len);
int tape_blk_flags_parse(const char *s, uint64_t *flags);

/* -errno -> text, including the library's own meanings (EBADMSG, ...). */
const char *tape_strerror(int err);
/* Detail of the last error in this thread ("block at offset 4096: ...").
 * Only meaningful right after a call failed: success does not clear it. */
const char *tape_error_detail(void);

/* ------------------------------------------------------------------ writer */

typedef struct tape_writer tape_writer;

#define TAPE_WRITE_FORCE   (1u << 0) /* truncate an existing file */
#define TAPE_WRITE_FSYNC   (1u << 1) /* fdatasync after every flush */
/* No EXP/DEXP columns: faster to write and read, ~9 % larger (format 1.1) */
#define TAPE_WRITE_FAST    (1u << 2)
/* A format 1.0 file, for readers older than 1.1: implies TAPE_WRITE_FAST
 * and predicts fewer columns (~13 % larger than the default) */
#define TAPE_WRITE_V10     (1u << 3)

struct tape_writer_opts {
	unsigned flags;		/* TAPE_WRITE_* */
	unsigned block_rows;	/* rows per block, 0 = default (32768) */
	int zstd_level;		/* 0 = default (1) */
};

/*
 * Create a trace at path (O_EXCL unless TAPE_WRITE_FORCE); opts may be NULL.
 * On error *out is NULL and no file is left behind.
 */
int tape_writer_open(tape_writer **out, const char *path,
		     const struct tape_writer_opts *opts);
/* Same, on an fd the caller opened for writing; on success the writer owns
 * it, on failure the caller still does (it is not closed). */
int tape_writer_open_fd(tape_writer **out, int fd,
			const struct tape_writer_opts *opts);
/* Set a metadata key; written with the next flush (later values win). */
int tape_writer_set_meta(tape_writer *w, const char *key, const char *value);
/*
 * Append one event of the given table (ev points to the table's struct).
 * A full block is encoded and written before this returns.  Strings must
 * not exceed TAPE_MAX_STRING bytes.
 */
#define TAPE_MAX_STRING (1u << 20)
int tape_writer_append(tape_writer *w, int table, const void *ev);
/* Write every partial block and pending metadata: all appended events are
 * then in complete blocks on disk (readable after a crash). */
int tape_writer_flush(tape_writer *w);
/* Flush, write the index and trailer, close and free.  Returns the first
 * error met during the writer's life; w is freed in every case. */
int tape_writer_close(tape_writer *w);
/* Free without finishing the file (what a crash leaves). Accepts NULL. */
void tape_writer_free(tape_writer *w);
/* Events appended so far / bytes written so far. */
uint64_t tape_writer_events(const tape_writer *w);
uint64_t tape_writer_bytes(const tape_writer *w);

/* ------------------------------------------------------------------ reader */

typedef struct tape_reader tape_reader;
typedef struct tape_cursor tape_cursor;

/*
 * Open a trace.  Reads the header and the footer index; when the footer is
 * missing or damaged the index is rebuilt by scanning chunk headers and
 * tape_reader_recovered() says why.  On error *out is NULL.  A path that
 * is not a regular file (a FIFO, a directory, a device) is refused with
 * -EINVAL ("not a regular file") without blocking or reading it.
 */
int tape_reader_open(tape_reader **out, const char *path);
/* Same on an fd; the reader does not close it. */
int tape_reader_open_fd(tape_reader **out, int fd);
void tape_reader_free(tape_reader *r);

void tape_reader_version(const tape_reader *r, unsigned *major, unsigned *minor);
uint64_t tape_reader_file_size(const tape_reader *r);
/* NULL when the index came from the footer, else why it was rebuilt by
 * scanning ("no footer index (the recording did not finish)", ...). */
const char *tape_reader_recovered(const tape_reader *r);
/* Bytes at the end of the file that are not a complete chunk (after a crash). */
uint64_t tape_reader_trailing_bytes(const tape_reader *r);

size_t tape_reader_meta_count(const tape_reader *r);
int tape_reader_meta_at(const tape_reader *r, size_t i, const char **key,
			const char **value);
const char *tape_reader_meta(const tape_reader *r, const char *key);

struct tape_table_stats {
	uint64_t events;
	uint64_t blocks;
	uint64_t bytes;	 /* stored bytes of its blocks, headers included */
	uint64_t t_min;	 /* UINT64_MAX when no events */
	uint64_t t_max;
};
/* Stats of a known table (zeros when absent); -EINVAL for unknown ids. */
int tape_reader_table_stats(const tape_reader *r, int table,
			    struct tape_table_stats *st);
/* Blocks of tables this library does not know (skipped). */
uint64_t tape_reader_unknown_blocks(const tape_reader *r);

/* Where a table's bytes go, column by column, over all its blocks. */
struct tape_column_stats {
	unsigned id;		/* column id in the file */
	const char *name;	/* this library's name for it, NULL when unknown */
	uint64_t blocks;	/* blocks that hold the column */
	uint64_t bytes;		/* its stored bytes in them (after compression) */
	uint64_t zstd;		/* blocks where it is one zstd frame */
	uint64_t pred;		/* blocks where it holds prediction residuals */
	uint64_t enc[64];	/* blocks per encoding id (tape_encoding_name) */
};
/*
 * Read every block of table (checksums verified) and fill out[0..max) with
 * its columns, in the order they first appear; *n gets how many (max + 1
 * when there were more than max).  0, -EINVAL for an unknown table, or
 * -errno on a damaged block.
 */
int tape_reader_column_stats(tape_reader *r, int table, struct tape_column_stats *out,
			     size_t max, size_t *n);
/* "BITPACK", "EXP", "SDICT", ... for an encoding id; NULL when unknown. */
const char *tape_encoding_name(unsigned id);
/* META chunks that were damaged (their keys are missing); *detail, when
 * not NULL, gets what was wrong with the first one. */
uint64_t tape_reader_damaged_meta(const tape_reader *r, const char **detail);

/*
 * Iterate over one table, in file order, events with t_from <= ts_ns <= t_to
 * (0, UINT64_MAX for all).  Each block's checksum is verified before use.
 */
int tape_cursor_open(tape_reader *r, int table, uint64_t t_from,
		     uint64_t t_to, tape_cursor **out);
/* 1 and *ev set, 0 at the end, -errno on a damaged block (the events before
 * it were all correct). */
int tape_cursor_next(tape_cursor *c, const void **ev);
/* Same, a whole block at a time: *evs is an array of *n structs. */
int tape_cursor_next_block(tape_cursor *c, const void **evs, size_t *n);
void tape_cursor_free(tape_cursor *c);

/* ------------------------------------------------------- columns in batch */

/*
 * A table of distinct strings with stable ids, which the column reader
 * turns string columns into: id 0 is "" from the start, a new string gets
 * the next id, and an id keeps its string for the table's life, so one
 * table can serve a whole trace read in many batches (and several
 * cursors).  Strings are stored once each, followed by a NUL.
 */
typedef struct tape_strings tape_strings;

/* On error (-ENOMEM) *out is NULL. */
int tape_strings_new(tape_strings **out);
void tape_strings_free(tape_strings *s);	/* accepts NULL */
size_t tape_strings_count(const tape_strings *s);
/* String id, NUL-terminated; NULL when id >= tape_strings_count().  Valid
 * until the table grows (the next tape_cursor_read_columns() on it). */
const char *tape_strings_get(const tape_strings *s, size_t id);
/* Every string at once: string i is the bytes data[off[i]] up to, not
 * including, data[off[i + 1] - 1] (its NUL); off has count + 1 entries.
 * Returns data; both stay valid until the table grows. */
const char *tape_strings_data(const tape_strings *s, const uint64_t **off);

/*
 * Decode the cursor's next events, at most max, column by column into the
 * caller's arrays, with one call for many events (bindings from other
 * languages pass their arrays here: numpy, for python/iotape).
 *
 * cols[0..ncols) are indexes into tape_table_columns() of the cursor's
 * table; out[i] receives column cols[i] as an array of max elements of
 * the column's width: uint32_t for a 4-byte unsigned field (pid, op, ...),
 * uint64_t or int64_t for 8-byte ones (TAPE_COL_U64, TAPE_COL_I64), and
 * for string columns uint32_t ids into strs (required when a string
 * column is asked for, else may be NULL).  Values are those the cursor's
 * event structs hold (enumerations as numbers: tape_op_name(), ...).
 *
 * Returns 1 with *n events written (1 <= *n <= max), 0 at the end of the
 * table (*n = 0), or -errno: -EINVAL for a bad column index, a NULL array
 * or a string column without strs; -EBADMSG (and the other errors of
 * tape_cursor_next()) for a damaged block, in which case the events
 * before it were all returned by earlier calls; -ENOMEM or -EOVERFLOW
 * (2^32 - 1 distinct strings) when strs cannot grow, which leaves the
 * cursor where it was.  Shares the cursor's position with
 * tape_cursor_next(): calls of both may be mixed.
 */
int tape_cursor_read_columns(tape_cursor *c, const unsigned *cols, size_t ncols,
			     void *const *out, size_t max, tape_strings *strs,
			     size_t *n);

/*
 * Let tape_cursor_read_columns() decode on n threads (1 to 64; 1, the
 * default, is the caller's thread alone): the whole blocks ahead that fit
 * in its arrays are decoded several at once, by n - 1 threads it starts
 * for the call and the caller's, each block straight to its rows.  What
 * it returns is the same as with one thread: the same values, the same
 * string ids (given in file order), the same rows before a damaged block
 * and the same error.  Each thread holds a cursor's buffers of its own
 * (freed with c); a thread that cannot be started leaves its share to the
 * others.  When a block is damaged, rows of the arrays past the *n
 * returned may have been written (with one thread too: a block's first
 * tiles).  -EINVAL for n out of range (nothing changed).
 */
int tape_cursor_set_threads(tape_cursor *c, unsigned n);

/*
 * Let tape_cursor_next_block() decode the next block on a thread of the
 * cursor's own while the caller works on the block it has (a second
 * decoder's buffers, freed with c; one block ahead: memory does not grow
 * with the table).  The blocks, their rows and an error come as without
 * it; the rows of a block stay valid until the next call.  The cursor is
 * then read with tape_cursor_next_block() alone (tape_cursor_next() and
 * tape_cursor_read_columns() give -EINVAL).  0, or -errno (-EINVAL inside
 * a block that tape_cursor_next() is reading; nothing changed).
 */
int tape_cursor_set_readahead(tape_cursor *c);

/* ------------------------------------------------------- merged traces */

/*
 * A merged trace (iotape merge) holds the events of several hosts; the
 * metadata key "merge.hosts" says how many.  The host of an event is
 * folded into its ids (iotape-format(5), "Merged traces"): pid, tid and
 * ppid hold host << 22, file ids host << 48, devices host << 32, a
 * sample's subject one or the other after its metric.  Host 0's ids are
 * its input's.
 */
#define TAPE_HOSTS_MAX 1024
#define TAPE_HOST_PID_SHIFT 22	/* Linux's PID_MAX_LIMIT is 1 << 22 */
#define TAPE_HOST_DEV_SHIFT 32	/* a dev_t: major << 20 | minor, 32 bits */
#define TAPE_HOST_ID_SHIFT 48
/* Host of an event of a merged trace (0 in any other trace). */
unsigned tape_event_host(int table, const void *ev);
/* Fold host into the event's ids: 0, -ERANGE when an id already uses the
 * host's bits (a pid >= 1 << 22, ...; the event is then partly changed),
 * -EINVAL for an unknown table or host >= TAPE_HOSTS_MAX. */
int tape_event_set_host(int table, void *ev, unsigned host);
/* The event's ids without their host: the ids of its input. */
void tape_event_clear_host(int table, void *ev);
/* Add off to the event's times (ts_ns; a process's end_ns when set):
 * 0, or -ERANGE when one would leave
 * [0, 2^64). */
int tape_event_shift(int table, void *ev, int64_t off);
/* Number of hosts of a merged trace ("merge.hosts"), 0 when it is not one. */
unsigned tape_reader_hosts(const tape_reader *r);

/* ------------------------------------------------------ trace transforms */

/*
 * What went wrong in a transform (merge, split): err (-errno), and msg,
 * one line saying it all, or, when msg is "", what: the file a libtape
 * call failed on (tape_strerror(err) and tape_error_detail() say the
 * rest, as `iotape` prints it).  what points into the caller's names.
 */
struct tape_xform_error {
	int err;
	const char *what;
	char msg[8192];
};

/*
 * Merge (merge.c): one trace of the hosts of several, input i as host i,
 * each table a k-way merge by time (memory grows with inputs, never with
 * events).  Steps: tape_merge_new (align: NULL to move each input by its
 * recorded clock pair, start_wall_ns - start_mono_ns, onto CLOCK_REALTIME;
 * else "COL=VALUE[,...]", each input moved so that its first syscall
 * matching all is at one instant; -EINVAL: a bad match), tape_merge_add
 * per input (the reader, open, stays the caller's and must outlive the
 * merge; name: its path, kept in the metadata; an incomplete or already
 * merged trace is refused), tape_merge_clock (the offsets: every input
 * with a clock pair, or a match in each; *clock "realtime" or "unknown",
 * a static string), then tape_merge_write into w (out: w's name in
 * messages; *events: how many were written).  Each returns 0 or -errno
 * with e filled; tape_merge_free accepts NULL.
 */
typedef struct tape_merge tape_merge;
int tape_merge_new(tape_merge **m, const char *align, struct tape_xform_error *e);
int tape_merge_add(tape_merge *m, tape_reader *r, const char *name, struct tape_xform_error *e);
int tape_merge_clock(tape_merge *m, const char **clock, struct tape_xform_error *e);
int tape_merge_write(tape_merge *m, tape_writer *w, const char *out, uint64_t *events,
		     struct tape_xform_error *e);
void tape_merge_free(tape_merge *m);

/*
 * Split (split.c): the trace r (named in, for messages) into traces
 * PREFIX-hostH.iotape (by host: a merged trace's inputs back, event for
 * event and key for key), PREFIX-pidP.iotape (by process) or
 * PREFIX-partK.iotape (by time: every or parts, exactly one of them).
 * What belongs to no one part is copied to each.  No part may exist; on
 * failure none is left.  0 with st filled, or -errno with e filled.
 */
enum { TAPE_SPLIT_HOST, TAPE_SPLIT_PROCESS, TAPE_SPLIT_TIME };
struct tape_split_opts {
	const char *prefix;
	int by;			/* TAPE_SPLIT_* */
	uint64_t every;		/* by time: a part's span in ns, or 0 */
	unsigned parts;		/* by time: parts of equal span, or 0 */
};
struct tape_split_stats {
	size_t parts;
	uint64_t events;
};
int tape_split(tape_reader *r, const char *in, const struct tape_split_opts *o,
	       struct tape_split_stats *st, struct tape_xform_error *e);

#ifdef __cplusplus
}
#endif
#endif /* IOTAPE_TAPE_H */
