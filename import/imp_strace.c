/* SPDX-License-Identifier: MIT */
/*
 * imp_strace.c - the strace importer: the text strace writes, best with
 * `strace -f -tt -T -y -o FILE` (-yy, -ttt, -t, no -T, no -f: all read).
 *
 * A line is [PID or "[pid N] "] [TIME] then one of
 *   NAME(ARGS) = RET [ERRNO (text)] [<DURATION>]   a call
 *   NAME(ARGS <unfinished ...>                   its start ...
 *   <... NAME resumed>ARGS) = RET ...            ... and the rest
 *   --- SIGNAL {...} ---                         skipped
 *   +++ exited with N +++, +++ killed by SIG +++ the thread's end
 * Unfinished calls are joined with their resumed line per thread (one
 * buffer per thread, reused), and the call is dated by its start.
 *
 * The calls the recorder traces (record/syscalls.c) become syscall rows
 * with the same columns: fd and its path from -y's "3</path>", the path of
 * path arguments (made absolute with the dirfd's or AT_FDCWD's -y path,
 * the resolved path of a returned fd for opens), offsets from the
 * arguments or, for read and write, from the file position imp_sys keeps,
 * sizes (iovecs summed), symbolic flags as numbers, ret (-errno), dur_ns
 * from -T.  Calls that return "?" (exit, restarted calls) and every other
 * call are left out.  clone, fork, vfork and execve build the process
 * table: a row per thread at its "+++" line (or at the end), with ppid,
 * comm and argv from execve, exit code as the shell's $?.
 *
 * A stat, fstat, newfstatat or statx that succeeded prints the file's
 * st_size and st_mode (and with -v st_dev, st_ino): the first of each
 * file makes its row in the file table (the size when first seen, like a
 * recording's size at the first open).  Paths the program passed are
 * normalized (imp_path_normalize).  strace -f writing to a terminal cuts
 * the line it is writing with "strace: Process N attached": the two
 * halves are joined.
 *
 * Lines without a pid (strace without -f, or -f writing to a terminal
 * before the first fork) belong to pid 1.  Time: -tt's time of day is
 * taken as ns since the midnight the trace started (a time more than 12 h
 * before the last one is the next day), -ttt's as ns since the epoch;
 * without a time each line is 1 us after the one before.
 * Memory: per thread and per open fd, never per line.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include "import.h"
#include "tape_vec.h"

#define MAXARGS 8
#define DEFAULT_PID 1u

enum off_kind { OFF_NONE, OFF_POS, OFF_ARG, OFF_ARG_OR_POS, OFF_PTR, OFF_ADDR };
enum {
	SF_VEC = 1u << 0,	/* size = sum of the iovecs' iov_len */
	SF_DUPFD = 1u << 1,	/* fcntl: only F_DUPFD, F_DUPFD_CLOEXEC */
	SF_FILE = 1u << 2,	/* mmap: only of an fd */
	SF_FLAGS23 = 1u << 3,	/* flags = arg 2 | arg 3 << 32 */
	SF_HOW = 1u << 4,	/* openat2: flags from how's flags= */
	SF_CLONE = 1u << 5,	/* process table: clone, fork */
	SF_EXEC = 1u << 6,	/* process table: execve (path, argv) */
	SF_CHDIR = 1u << 7,	/* the process's cwd: chdir, fchdir */
};

#define N -1
struct spec {
	const char *name;
	unsigned op;
	int8_t fd, path, fd2, path2, off, size, flags, off2;
	uint8_t off_kind, sf;
	uint64_t flags_const;
};

/* As record/syscalls.c reads them, by the names strace prints. */
static const struct spec specs[] = {
	{ "open", TAPE_OP_OPEN, N, 0, N, N, N, N, 1, N, 0, 0, 0 },
	{ "openat", TAPE_OP_OPENAT, 0, 1, N, N, N, N, 2, N, 0, 0, 0 },
	{ "openat2", TAPE_OP_OPENAT2, 0, 1, N, N, N, N, 2, N, 0, SF_HOW, 0 },
	{ "creat", TAPE_OP_CREAT, N, 0, N, N, N, N, N, N, 0, 0, O_CREAT | O_WRONLY | O_TRUNC },
	{ "close", TAPE_OP_CLOSE, 0, N, N, N, N, N, N, N, 0, 0, 0 },
	{ "close_range", TAPE_OP_CLOSE_RANGE, N, N, N, N, N, 1, 2, N, 0, 0, 0 },
	{ "dup", TAPE_OP_DUP, 0, N, N, N, N, N, N, N, 0, 0, 0 },
	{ "dup2", TAPE_OP_DUP2, 0, N, 1, N, N, N, N, N, 0, 0, 0 },
	{ "dup3", TAPE_OP_DUP3, 0, N, 1, N, N, N, 2, N, 0, 0, 0 },
	{ "fcntl", TAPE_OP_FCNTL_DUPFD, 0, N, N, N, N, N, 1, N, 0, SF_DUPFD, 0 },
	{ "read", TAPE_OP_READ, 0, N, N, N, N, 2, N, N, OFF_POS, 0, 0 },
	{ "pread64", TAPE_OP_PREAD64, 0, N, N, N, 3, 2, N, N, OFF_ARG, 0, 0 },
	{ "readv", TAPE_OP_READV, 0, N, N, N, N, 1, N, N, OFF_POS, SF_VEC, 0 },
	{ "preadv", TAPE_OP_PREADV, 0, N, N, N, 3, 1, N, N, OFF_ARG, SF_VEC, 0 },
	{ "preadv2", TAPE_OP_PREADV2, 0, N, N, N, 3, 1, 4, N, OFF_ARG_OR_POS, SF_VEC, 0 },
	{ "write", TAPE_OP_WRITE, 0, N, N, N, N, 2, N, N, OFF_POS, 0, 0 },
	{ "pwrite64", TAPE_OP_PWRITE64, 0, N, N, N, 3, 2, N, N, OFF_ARG, 0, 0 },
	{ "writev", TAPE_OP_WRITEV, 0, N, N, N, N, 1, N, N, OFF_POS, SF_VEC, 0 },
	{ "pwritev", TAPE_OP_PWRITEV, 0, N, N, N, 3, 1, N, N, OFF_ARG, SF_VEC, 0 },
	{ "pwritev2", TAPE_OP_PWRITEV2, 0, N, N, N, 3, 1, 4, N, OFF_ARG_OR_POS, SF_VEC, 0 },
	{ "lseek", TAPE_OP_LSEEK, 0, N, N, N, 1, N, 2, N, OFF_ARG, 0, 0 },
	{ "fsync", TAPE_OP_FSYNC, 0, N, N, N, N, N, N, N, 0, 0, 0 },
	{ "fdatasync", TAPE_OP_FDATASYNC, 0, N, N, N, N, N, N, N, 0, 0, 0 },
	{ "sync_file_range", TAPE_OP_SYNC_FILE_RANGE, 0, N, N, N, 1, 2, 3, N, OFF_ARG, 0, 0 },
	{ "fadvise64", TAPE_OP_FADVISE64, 0, N, N, N, 1, 2, 3, N, OFF_ARG, 0, 0 },
	{ "readahead", TAPE_OP_READAHEAD, 0, N, N, N, 1, 2, N, N, OFF_ARG, 0, 0 },
	{ "mmap", TAPE_OP_MMAP, 4, N, N, N, 5, 1, N, N, OFF_ARG, SF_FILE | SF_FLAGS23, 0 },
	{ "munmap", TAPE_OP_MUNMAP, N, N, N, N, 0, 1, N, N, OFF_ADDR, 0, 0 },
	{ "msync", TAPE_OP_MSYNC, N, N, N, N, 0, 1, 2, N, OFF_ADDR, 0, 0 },
	{ "madvise", TAPE_OP_MADVISE, N, N, N, N, 0, 1, 2, N, OFF_ADDR, 0, 0 },
	{ "ftruncate", TAPE_OP_FTRUNCATE, 0, N, N, N, N, 1, N, N, 0, 0, 0 },
	{ "fallocate", TAPE_OP_FALLOCATE, 0, N, N, N, 2, 3, 1, N, OFF_ARG, 0, 0 },
	{ "rename", TAPE_OP_RENAME, N, 0, N, 1, N, N, N, N, 0, 0, 0 },
	{ "renameat", TAPE_OP_RENAMEAT, 0, 1, 2, 3, N, N, N, N, 0, 0, 0 },
	{ "renameat2", TAPE_OP_RENAMEAT2, 0, 1, 2, 3, N, N, 4, N, 0, 0, 0 },
	{ "unlink", TAPE_OP_UNLINK, N, 0, N, N, N, N, N, N, 0, 0, 0 },
	{ "unlinkat", TAPE_OP_UNLINKAT, 0, 1, N, N, N, N, 2, N, 0, 0, 0 },
	{ "mkdir", TAPE_OP_MKDIR, N, 0, N, N, N, N, 1, N, 0, 0, 0 },
	{ "mkdirat", TAPE_OP_MKDIRAT, 0, 1, N, N, N, N, 2, N, 0, 0, 0 },
	{ "getdents64", TAPE_OP_GETDENTS64, 0, N, N, N, N, 2, N, N, 0, 0, 0 },
	{ "statx", TAPE_OP_STATX, 0, 1, N, N, N, N, 2, N, 0, 0, 0 },
	{ "newfstatat", TAPE_OP_NEWFSTATAT, 0, 1, N, N, N, N, 3, N, 0, 0, 0 },
	{ "stat", TAPE_OP_NEWSTAT, N, 0, N, N, N, N, N, N, 0, 0, 0 },
	{ "lstat", TAPE_OP_NEWLSTAT, N, 0, N, N, N, N, N, N, 0, 0, 0 },
	{ "fstat", TAPE_OP_NEWFSTAT, 0, N, N, N, N, N, N, N, 0, 0, 0 },
	{ "access", TAPE_OP_ACCESS, N, 0, N, N, N, N, 1, N, 0, 0, 0 },
	{ "faccessat", TAPE_OP_FACCESSAT, 0, 1, N, N, N, N, 2, N, 0, 0, 0 },
	{ "faccessat2", TAPE_OP_FACCESSAT, 0, 1, N, N, N, N, N, N, 0, SF_FLAGS23, 0 },
	{ "readlink", TAPE_OP_READLINK, N, 0, N, N, N, 2, N, N, 0, 0, 0 },
	{ "readlinkat", TAPE_OP_READLINKAT, 0, 1, N, N, N, 3, N, N, 0, 0, 0 },
	{ "sendfile", TAPE_OP_SENDFILE, 1, N, 0, N, 2, 3, N, N, OFF_PTR, 0, 0 },
	{ "copy_file_range", TAPE_OP_COPY_FILE_RANGE, 0, N, 2, N, 1, 4, 5, 3, OFF_PTR, 0, 0 },
	{ "splice", TAPE_OP_SPLICE, 0, N, 2, N, 1, 4, 5, 3, OFF_PTR, 0, 0 },
	{ "io_uring_enter", TAPE_OP_IO_URING_ENTER, 0, N, N, N, N, 1, 3, N, 0, 0, 0 },
	{ "clone", TAPE_OP_UNKNOWN, N, N, N, N, N, N, N, N, 0, SF_CLONE, 0 },
	{ "clone3", TAPE_OP_UNKNOWN, N, N, N, N, N, N, N, N, 0, SF_CLONE, 0 },
	{ "fork", TAPE_OP_UNKNOWN, N, N, N, N, N, N, N, N, 0, SF_CLONE, 0 },
	{ "vfork", TAPE_OP_UNKNOWN, N, N, N, N, N, N, N, N, 0, SF_CLONE, 0 },
	{ "execve", TAPE_OP_UNKNOWN, N, 0, N, N, N, N, N, N, 0, SF_EXEC, 0 },
	{ "execveat", TAPE_OP_UNKNOWN, 0, 1, N, N, N, N, N, N, 0, SF_EXEC, 0 },
	{ "chdir", TAPE_OP_UNKNOWN, N, 0, N, N, N, N, N, N, 0, SF_CHDIR, 0 },
	{ "fchdir", TAPE_OP_UNKNOWN, 0, N, N, N, N, N, N, N, 0, SF_CHDIR, 0 },
};
#undef N

/* The symbolic constants strace prints in the flags arguments read. */
#define F(x) { #x, (uint64_t)(x) }
static const struct { const char *name; uint64_t v; } consts[] = {
	F(O_RDONLY), F(O_WRONLY), F(O_RDWR), F(O_CREAT), F(O_EXCL), F(O_NOCTTY),
	F(O_TRUNC), F(O_APPEND), F(O_NONBLOCK), F(O_DSYNC), F(O_SYNC), F(O_DIRECT),
	F(O_LARGEFILE), F(O_DIRECTORY), F(O_NOFOLLOW), F(O_NOATIME), F(O_CLOEXEC),
	F(O_PATH), F(O_TMPFILE), F(O_ASYNC),
	F(SEEK_SET), F(SEEK_CUR), F(SEEK_END), F(SEEK_DATA), F(SEEK_HOLE),
	F(PROT_NONE), F(PROT_READ), F(PROT_WRITE), F(PROT_EXEC),
	F(MAP_SHARED), F(MAP_PRIVATE), F(MAP_SHARED_VALIDATE), F(MAP_FIXED),
	F(MAP_ANONYMOUS), F(MAP_DENYWRITE), F(MAP_POPULATE), F(MAP_NORESERVE),
	F(MAP_STACK), F(MAP_HUGETLB), F(MAP_FIXED_NOREPLACE), F(MAP_GROWSDOWN),
	F(MAP_LOCKED), F(MAP_NONBLOCK), F(MAP_EXECUTABLE), F(MAP_SYNC),
	F(F_OK), F(R_OK), F(W_OK), F(X_OK),
	F(AT_EMPTY_PATH), F(AT_SYMLINK_NOFOLLOW), F(AT_SYMLINK_FOLLOW),
	F(AT_REMOVEDIR), F(AT_EACCESS), F(AT_NO_AUTOMOUNT), F(AT_STATX_SYNC_AS_STAT),
	F(AT_STATX_FORCE_SYNC), F(AT_STATX_DONT_SYNC),
	F(FALLOC_FL_KEEP_SIZE), F(FALLOC_FL_PUNCH_HOLE), F(FALLOC_FL_COLLAPSE_RANGE),
	F(FALLOC_FL_ZERO_RANGE), F(FALLOC_FL_INSERT_RANGE), F(FALLOC_FL_UNSHARE_RANGE),
	F(POSIX_FADV_NORMAL), F(POSIX_FADV_RANDOM), F(POSIX_FADV_SEQUENTIAL),
	F(POSIX_FADV_WILLNEED), F(POSIX_FADV_DONTNEED), F(POSIX_FADV_NOREUSE),
	F(SYNC_FILE_RANGE_WAIT_BEFORE), F(SYNC_FILE_RANGE_WRITE),
	F(SYNC_FILE_RANGE_WAIT_AFTER),
	F(MS_ASYNC), F(MS_INVALIDATE), F(MS_SYNC),
	F(MADV_NORMAL), F(MADV_RANDOM), F(MADV_SEQUENTIAL), F(MADV_WILLNEED),
	F(MADV_DONTNEED), F(MADV_FREE), F(MADV_REMOVE), F(MADV_HUGEPAGE),
	F(MADV_NOHUGEPAGE), F(MADV_DONTDUMP), F(MADV_DODUMP),
	F(RENAME_NOREPLACE), F(RENAME_EXCHANGE), F(RENAME_WHITEOUT),
	F(F_DUPFD), F(F_DUPFD_CLOEXEC),
	{ "STATX_BASIC_STATS", 0x7ff }, { "STATX_ALL", 0xfff },
	{ "CLOSE_RANGE_UNSHARE", 2 }, { "CLOSE_RANGE_CLOEXEC", 4 },
};
#undef F

struct thread {
	uint32_t tid, pid, ppid;
	int alive;
	uint64_t start;
	char comm[16];
	char *argv;		/* the process's, shared by its threads: owned by the leader */
	char *cwd;		/* the same: from AT_FDCWD's -y path and chdir, or NULL */
	uint32_t leader;	/* index of the process's main thread */
	char *pend;		/* the unfinished call's text ("NAME(args"), NUL-terminated */
	size_t pcap;
	uint64_t pend_ts;
	int has_pend;
	int cloned;		/* made a thread or process (clone traced) */
};

struct strace {
	struct imp_sys st;
	struct thread *th;
	size_t nth, thcap;
	struct cm_map by_tid;	/* tid -> th index */
	int pending_clone;	/* th index + 1 of the last thread whose clone is unfinished */
	int aliased;		/* the unprefixed process has been seen with a pid */
	uint64_t last_ts, day_ns, last_tod;
	int tod_seen;
	char *join;		/* a joined call */
	size_t jcap;
	char *sbuf[4];		/* decoded strings: path, path2, their absolute forms */
	size_t scap[4];
	struct cm_map stat_seen;	/* (file_id, 0): its file row is written */
	int werr;
	char err[256];
};

/* ------------------------------------------------------------ helpers */

static int grow(char **buf, size_t *cap, size_t need)
{
	return TAPE_VEC_GROW(*buf, *cap, need, 256);
}

static int bad(struct strace *s, const char *fmt, const char *arg)
{
	snprintf(s->err, sizeof(s->err), fmt, arg);
	return -EINVAL;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Parse a number at *p (decimal, -decimal, 0x hex, 0 octal) and move *p
 * past it; -EINVAL when there is none. */
static int parse_int(const char **p, int64_t *v)
{
	const char *s = *p;
	int neg = 0, base = 10;
	uint64_t x = 0;

	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (s[0] == '0' && is_digit(s[1])) {
		base = 8;
	}
	if (!(is_digit(*s) || (base == 16 && ((*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))))
		return -EINVAL;
	for (;; s++) {
		unsigned d;

		if (is_digit(*s))
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (d >= (unsigned)base)
			break;
		x = x * (unsigned)base + d;	/* wraps on overflow, as C's casts */
	}
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	*p = s;
	return 0;
}

/* The end of a -y annotation starting at '<' (one past its '>'): nested
 * annotations ("/dev/null<char 1:3>") and brackets ("TCP:[a->b]") count;
 * NULL when it does not end. */
static const char *annot_end(const char *p, const char *end)
{
	int angle = 0, bracket = 0;

	for (; p < end; p++) {
		if (*p == '\\' && p + 1 < end) {
			p++;
		} else if (*p == '[') {
			bracket++;
		} else if (*p == ']' && bracket) {
			bracket--;
		} else if (*p == '<' && !bracket) {
			angle++;
		} else if (*p == '>' && !bracket && --angle == 0) {
			return p + 1;
		}
	}
	return NULL;
}

/* Decode strace's escapes (\n, \t, \", \\, \xHH, \NNN) of [p, end) into
 * buf i; returns it or NULL (ENOMEM). */
static char *unescape(struct strace *s, int i, const char *p, const char *end)
{
	char *o;

	if (grow(&s->sbuf[i], &s->scap[i], (size_t)(end - p) + 1))
		return NULL;
	o = s->sbuf[i];
	while (p < end) {
		char c = *p++;

		if (c == '\\' && p < end) {
			c = *p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'v': c = '\v'; break;
			case 'f': c = '\f'; break;
			case 'x': {
				unsigned v = 0;

				for (int k = 0; k < 2 && p < end; k++, p++) {
					char h = *p;

					if (is_digit(h))
						v = v * 16 + (unsigned)(h - '0');
					else if (h >= 'a' && h <= 'f')
						v = v * 16 + (unsigned)(h - 'a' + 10);
					else if (h >= 'A' && h <= 'F')
						v = v * 16 + (unsigned)(h - 'A' + 10);
					else
						break;
				}
				c = (char)v;
				break;
			}
			default:
				if (c >= '0' && c <= '7') {
					unsigned v = (unsigned)(c - '0');

					for (int k = 0; k < 2 && p < end && *p >= '0' && *p <= '7'; k++)
						v = v * 8 + (unsigned)(*p++ - '0');
					c = (char)v;
				}
				break;
			}
		}
		if (c == '\0')
			c = '?';	/* strings in a trace hold no NUL */
		*o++ = c;
	}
	*o = '\0';
	return s->sbuf[i];
}

/* ------------------------------------------------------------ arguments */

struct call {
	const char *name;
	size_t nlen;
	const char *arg[MAXARGS], *aend[MAXARGS];
	int nargs;
	int has_ret;		/* 0: "= ?" */
	int64_t ret;
	const char *ret_annot, *ret_aend;	/* -y path of a returned fd */
	uint64_t dur;
};

/* Split "NAME(args) = ret ..." into c; 0, or -EINVAL (s->err). */
static int split_call(struct strace *s, const char *p, const char *end, struct call *c)
{
	const char *q = p;
	int depth = 0, n = 0;

	memset(c, 0, sizeof(*c));
	c->name = p;
	while (q < end && *q != '(')
		q++;
	if (q == end)
		return bad(s, "not a strace line%s", "");
	c->nlen = (size_t)(q - p);
	q++;
	while (q < end && *q == ' ')
		q++;
	c->arg[0] = q;
	for (; q < end; q++) {
		char ch = *q;

		if (ch == '"') {
			for (q++; q < end && *q != '"'; q++)
				if (*q == '\\')
					q++;
			if (q >= end)
				return bad(s, "a quoted string never ends%s", "");
		} else if (ch == '<' && !(q > c->arg[n] && q[-1] == ' ')) {
			const char *e = annot_end(q, end);

			if (!e)
				return bad(s, "an fd's <path> never ends%s", "");
			q = e - 1;
		} else if (ch == '(' || ch == '[' || ch == '{') {
			depth++;
		} else if (ch == ']' || ch == '}' || (ch == ')' && depth)) {
			depth--;
		} else if (ch == ')') {
			break;
		} else if (ch == ',' && depth == 0) {
			if (n + 1 < MAXARGS) {
				const char *e = q;

				c->aend[n] = e;
				n++;
				while (q + 1 < end && q[1] == ' ')
					q++;
				c->arg[n] = q + 1;
			}
		}
	}
	if (q >= end)
		return bad(s, "the call's ')' is missing%s", "");
	c->aend[n] = q;
	while (c->aend[n] > c->arg[n] && c->aend[n][-1] == ' ')
		c->aend[n]--;
	c->nargs = c->aend[n] > c->arg[n] || n ? n + 1 : 0;
	/* " = RET [...] [<dur>]" */
	q++;
	while (q < end && *q == ' ')
		q++;
	if (q == end || *q != '=')
		return bad(s, "no '= RET' after the call%s", "");
	q++;
	while (q < end && *q == ' ')
		q++;
	if (q < end && *q == '?') {
		c->has_ret = 0;
	} else {
		if (parse_int(&q, &c->ret))
			return bad(s, "the return value is not a number%s", "");
		c->has_ret = 1;
		if (q < end && *q == '<') {
			const char *e = annot_end(q, end);

			if (e) {
				c->ret_annot = q;
				c->ret_aend = e;
				q = e;
			}
		}
		if (c->ret == -1 && q + 1 < end && q[0] == ' ' && q[1] == 'E') {
			const char *e = q + 1;
			char name[32];
			size_t l = 0;

			while (e < end && ((*e >= 'A' && *e <= 'Z') || is_digit(*e)) && l < sizeof(name) - 1)
				name[l++] = *e++;
			name[l] = '\0';
			c->ret = -EIO;	/* an errno this libc does not name */
			for (int k = 1; k < 200; k++) {
				const char *en = strerrorname_np(k);

				if (en && strcmp(en, name) == 0) {
					c->ret = -k;
					break;
				}
			}
		}
	}
	/* -T: " <0.000123>" ends the line */
	if (end - q >= 4 && end[-1] == '>') {
		const char *b = end - 2;

		while (b > q && (is_digit(*b) || *b == '.'))
			b--;
		if (*b == '<' && b[-1] == ' ') {
			uint64_t sec = 0, ns = 0, mul = 100000000;

			for (b++; is_digit(*b); b++)
				sec = sec * 10 + (uint64_t)(*b - '0');
			if (*b == '.')
				for (b++; is_digit(*b); b++, mul /= 10)
					ns += (uint64_t)(*b - '0') * mul;
			c->dur = sec * 1000000000ull + ns;
		}
	}
	return 0;
}

/* Argument i's number, its first [value] for pointers ("[8192] =>
 * [24576]"); *absent for NULL, for a missing argument or when it is not a
 * number. */
static int64_t arg_num(const struct call *c, int i, int *absent)
{
	const char *p;
	int64_t v;

	*absent = 1;
	if (i < 0 || i >= c->nargs)
		return 0;
	p = c->arg[i];
	if (*p == '[')
		p++;
	if (c->aend[i] - p >= 8 && strncmp(p, "AT_FDCWD", 8) == 0) {
		*absent = 0;
		return AT_FDCWD;
	}
	if (parse_int(&p, &v))
		return 0;
	*absent = 0;
	return v;
}

/* Symbolic flags "A|B|0x10" (names strace prints, numbers) as a number;
 * unknown names count 0.  Inside "{...}" only the "flags=" field. */
static uint64_t arg_flags(const struct call *c, int i)
{
	const char *p, *end;
	uint64_t v = 0;

	if (i < 0 || i >= c->nargs)
		return 0;
	p = c->arg[i];
	end = c->aend[i];
	if (*p == '{') {
		const char *f = strstr(p, "flags=");

		if (!f || f >= end)
			return 0;
		p = f + 6;
	}
	while (p < end) {
		const char *e = p;
		int64_t n;

		while (e < end && *e != '|' && *e != ',' && *e != '}' && *e != ' ')
			e++;
		if (is_digit(*p) || *p == '-') {
			const char *q = p;

			if (parse_int(&q, &n) == 0)
				v |= (uint64_t)n;
		} else {
			for (size_t k = 0; k < sizeof(consts) / sizeof(consts[0]); k++)
				if (strlen(consts[k].name) == (size_t)(e - p) &&
				    strncmp(consts[k].name, p, (size_t)(e - p)) == 0) {
					v |= consts[k].v;
					break;
				}
		}
		if (e >= end || *e != '|')
			break;
		p = e + 1;
	}
	return v;
}

/* The -y path of argument i ("3</path>", "AT_FDCWD</dir>") decoded into
 * buf bi, or NULL; *err on ENOMEM. */
static const char *arg_fdpath(struct strace *s, const char *p, const char *end,
			      int bi, int *err)
{
	const char *a = memchr(p, '<', (size_t)(end - p)), *e, *q;
	int angle = 0, bracket = 0;
	char *r;

	if (!a || !(e = annot_end(a, end)))
		return NULL;
	/* the path ends at a nested annotation ("/dev/null<char 1:3>") */
	for (q = a + 1; q < e - 1; q++) {
		if (*q == '\\')
			q++;
		else if (*q == '[')
			bracket++;
		else if (*q == ']' && bracket)
			bracket--;
		else if (*q == '<' && !bracket && ++angle)
			break;
	}
	r = unescape(s, bi, a + 1, q < e - 1 ? q : e - 1);
	if (!r)
		*err = -ENOMEM;
	return r;
}

/* Argument i as a quoted string decoded into buf bi, or NULL. */
static const char *arg_str(struct strace *s, const struct call *c, int i, int bi, int *err)
{
	const char *p, *e;
	char *r;

	if (i < 0 || i >= c->nargs || *c->arg[i] != '"')
		return NULL;
	p = c->arg[i] + 1;
	for (e = p; e < c->aend[i] && *e != '"'; e++)
		if (*e == '\\')
			e++;
	r = unescape(s, bi, p, e < c->aend[i] ? e : c->aend[i]);
	if (!r)
		*err = -ENOMEM;
	return r;
}

/* ------------------------------------------------------------ processes */

static struct thread *thread_at(struct strace *s, uint32_t tid)
{
	uint64_t *v = cm_map_get(&s->by_tid, tid, 0);

	return v ? &s->th[*v] : NULL;
}

/* The thread tid, made when new: a child of parent (a clone pending or
 * returned) or, without one, a process of its own. */
static struct thread *thread_new(struct strace *s, uint32_t tid, uint64_t ts,
				 struct thread *parent, int is_thread)
{
	struct thread *t;
	size_t pi = parent ? (size_t)(parent - s->th) : 0;

	if (s->nth == s->thcap) {
		if (TAPE_VEC_GROW(s->th, s->thcap, s->nth + 1, 16))
			return NULL;
		if (parent)
			parent = &s->th[pi];
	}
	if (cm_map_set(&s->by_tid, tid, 0, s->nth))
		return NULL;
	t = &s->th[s->nth];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->alive = 1;
	t->start = ts;
	t->leader = (uint32_t)s->nth;
	t->pid = tid;
	if (parent) {
		snprintf(t->comm, sizeof(t->comm), "%s", parent->comm);
		if (is_thread) {
			t->pid = parent->pid;
			t->ppid = parent->ppid;
			t->leader = parent->leader;
		} else {
			t->ppid = parent->pid;
			if (s->th[parent->leader].argv &&
			    !(t->argv = strdup(s->th[parent->leader].argv)))
				return NULL;
			if (s->th[parent->leader].cwd &&
			    !(t->cwd = strdup(s->th[parent->leader].cwd)))
				return NULL;
		}
	}
	s->nth++;
	return t;
}

/*
 * The thread of a line (body: what follows the time).  A new tid is
 *  - the process strace printed without a pid (pid 1) when it resumes
 *    that one's unfinished call, or when that one has forked (its clone
 *    is traced, so a child would be known): strace -f writing to a
 *    terminal names the first process only once there are others;
 *  - else a child of the last unfinished clone (strace may print a
 *    child's lines before the clone returns);
 *  - else a process of its own.
 */
static struct thread *thread_get(struct strace *s, uint32_t tid, uint64_t ts,
				 const char *body)
{
	struct thread *t = thread_at(s, tid), *parent = NULL, *d;
	int is_thread = 0;

	if (t && t->alive)
		return t;	/* else a new thread that got a dead one's tid */
	d = tid != DEFAULT_PID && !s->aliased ? thread_at(s, DEFAULT_PID) : NULL;
	if (d && d->alive) {
		const char *name = body + 5;
		size_t nl = strcspn(name, " ");
		int resumes = strncmp(body, "<... ", 5) == 0 && d->has_pend &&
			      strncmp(d->pend, name, nl) == 0 && d->pend[nl] == '(';

		if (resumes || (d->cloned && !s->pending_clone)) {
			if (cm_map_set(&s->by_tid, tid, 0, (uint64_t)(d - s->th)))
				return NULL;
			s->aliased = 1;
			return d;
		}
	}
	if (s->pending_clone) {
		parent = &s->th[s->pending_clone - 1];
		is_thread = parent->has_pend && strstr(parent->pend, "CLONE_THREAD") != NULL;
		s->pending_clone = 0;
	}
	return thread_new(s, tid, ts, parent, is_thread);
}

static int thread_end(struct strace *s, tape_writer *w, struct thread *t,
		      uint64_t end, int64_t code)
{
	struct tape_process r = {
		.ts_ns = t->start, .end_ns = end, .pid = t->pid, .tid = t->tid,
		.ppid = t->ppid, .exit_code = code, .comm = t->comm,
		.argv = s->th[t->leader].argv ? s->th[t->leader].argv : "",
	};
	int ret;

	if (!t->alive)
		return 0;
	t->alive = 0;
	t->has_pend = 0;
	ret = tape_writer_append(w, TAPE_TABLE_PROCESS, &r);
	if (ret < 0)
		s->werr = ret;
	return ret;
}

/* "+++ exited with N +++", "+++ killed by SIGKILL (core dumped) +++" */
static int exit_line(struct strace *s, tape_writer *w, struct thread *t,
		     uint64_t ts, const char *p)
{
	int64_t code = 0;

	if (strncmp(p, "exited with ", 12) == 0) {
		p += 12;
		if (parse_int(&p, &code))
			return bad(s, "no exit status after 'exited with'%s", "");
	} else if (strncmp(p, "killed by SIG", 13) == 0) {
		char name[16];
		size_t l = 0;

		for (p += 13; ((*p >= 'A' && *p <= 'Z') || is_digit(*p)) && l < sizeof(name) - 1; p++)
			name[l++] = *p;
		name[l] = '\0';
		for (int k = 1; k < 65; k++) {
			const char *sn = sigabbrev_np(k);

			if (sn && strcmp(sn, name) == 0) {
				code = 128 + k;
				break;
			}
		}
	}
	return thread_end(s, w, t, ts, code);
}

/* execve's comm and argv (the strings of argument 1, space-separated) */
static int exec_done(struct strace *s, struct thread *t, const struct call *c, const char *path)
{
	struct thread *l = &s->th[t->leader];
	const char *base = strrchr(path, '/'), *p, *end;
	size_t len = 0;
	char *argv = NULL;
	int err = 0, ai = c->nlen == 8 ? 2 : 1;	/* execveat(dirfd, path, argv, ...) */

	snprintf(t->comm, sizeof(t->comm), "%s", base ? base + 1 : path);
	if (l != t)
		memcpy(l->comm, t->comm, sizeof(l->comm));
	if (c->nargs < ai + 1)
		return 0;
	p = c->arg[ai];
	end = c->aend[ai];
	while (p < end) {
		const char *q, *str;
		size_t n;

		while (p < end && *p != '"')
			p++;
		if (p >= end)
			break;
		for (q = p + 1; q < end && *q != '"'; q++)
			if (*q == '\\')
				q++;
		str = unescape(s, 2, p + 1, q < end ? q : end);
		if (!str) {
			err = -ENOMEM;
			break;
		}
		n = strlen(str);
		if (q + 4 <= end && memcmp(q + 1, "...", 3) == 0) {
			/* cut at strace -s's length: say so */
			if (grow(&s->sbuf[2], &s->scap[2], n + 4))
				err = -ENOMEM;
			else
				memcpy(s->sbuf[2] + n, "...", 4);
			str = s->sbuf[2];
			n += 3;
			q += 3;
		}
		if (err || len + n + 2 > TAPE_MAX_STRING)
			break;
		p = q + 1;
		{
			char *a = realloc(argv, len + n + 2);

			if (!a) {
				err = -ENOMEM;
				break;
			}
			argv = a;
		}
		if (len)
			argv[len++] = ' ';
		memcpy(argv + len, str, n + 1);
		len += n;
	}
	if (err) {
		free(argv);
		return err;
	}
	if (argv) {
		free(l->argv);
		l->argv = argv;
	}
	return 0;
}

/* ------------------------------------------------------------ calls */

/* The process's cwd is now dir (an absolute path), unless NULL. */
static int cwd_set(struct strace *s, struct thread *t, const char *dir)
{
	char **cwd = &s->th[t->leader].cwd;
	char *c;

	if (!dir || dir[0] != '/' || (*cwd && strcmp(*cwd, dir) == 0))
		return 0;
	if (!(c = strdup(dir)))
		return -ENOMEM;
	free(*cwd);
	*cwd = c;
	return 0;
}

static const struct spec *spec_find(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		if (strlen(specs[i].name) == len && memcmp(specs[i].name, name, len) == 0)
			return &specs[i];
	return NULL;
}

/* The index of column col in the syscall table, looked up once. */
enum { C_TS, C_DUR, C_PID, C_TID, C_OP, C_FD, C_SIZE, C_RET, C_FLAGS, C_FD2,
       C_OFF, C_OFF2, C_PATH, C_PATH2, NCOLS };
static const char *const colnames[NCOLS] = {
	"ts_ns", "dur_ns", "pid", "tid", "op", "fd", "size", "ret", "flags", "fd2",
	"offset", "offset2", "path", "path2",
};

static void have_set(char *have, int col, int v)
{
	static int idx[NCOLS] = { -1 };

	if (idx[0] < 0) {
		const struct tape_column *cols = tape_table_columns(TAPE_TABLE_SYSCALL, NULL);

		for (int i = NCOLS - 1; i >= 0; i--)
			idx[i] = (int)(tape_column_find(TAPE_TABLE_SYSCALL, colnames[i]) - cols);
	}
	have[idx[col]] = (char)v;
}

/* path, made absolute with the dirfd's -y path (dir) when relative, and
 * normalized (imp_path_normalize: a program's "/data/train/.." is
 * "/data"); "" stays "" */
static const char *abs_path(struct strace *s, int bi, const char *path, const char *dir,
			    int *err)
{
	size_t pl = strlen(path), dl = 0;
	int join = path[0] != '/' && dir && dir[0] == '/';

	if (!*path)
		return path;
	if (join)
		dl = strlen(dir) + 1;
	if (grow(&s->sbuf[bi], &s->scap[bi], dl + pl + 1)) {
		*err = -ENOMEM;
		return NULL;
	}
	if (join) {
		memcpy(s->sbuf[bi], dir, dl - 1);
		s->sbuf[bi][dl - 1] = '/';
	}
	memmove(s->sbuf[bi] + dl, path, pl + 1);	/* path may be in sbuf[bi] */
	imp_path_normalize(s->sbuf[bi]);
	return s->sbuf[bi];
}

/* Iovecs' total: the sum of the iov_len strace printed. */
static uint64_t iov_sum(const struct call *c, int i)
{
	uint64_t sum = 0;
	const char *p;

	if (i < 0 || i >= c->nargs)
		return 0;
	for (p = c->arg[i]; (p = strstr(p, "iov_len=")) && p < c->aend[i];) {
		int64_t v;

		p += 8;
		if (parse_int(&p, &v) == 0 && v > 0)
			sum += (uint64_t)v;
	}
	return sum;
}

/* The value of "KEY=" in the struct argument [p, end) of a stat call: 0,
 * or -1 when it is not there.  Symbolic modes ("S_IFREG|0644") are read. */
static int struct_field(const char *p, const char *end, const char *key, uint64_t *v)
{
	static const struct { const char *name; uint64_t v; } modes[] = {
		{ "S_IFREG", S_IFREG }, { "S_IFDIR", S_IFDIR }, { "S_IFLNK", S_IFLNK },
		{ "S_IFCHR", S_IFCHR }, { "S_IFBLK", S_IFBLK }, { "S_IFIFO", S_IFIFO },
		{ "S_IFSOCK", S_IFSOCK }, { "S_ISUID", S_ISUID }, { "S_ISGID", S_ISGID },
		{ "S_ISVTX", S_ISVTX },
	};
	size_t kl = strlen(key);
	const char *q;

	for (q = p; q + kl < end; q++)
		if ((q == p || q[-1] == '{' || q[-1] == ' ') && memcmp(q, key, kl) == 0)
			break;
	if (q + kl >= end)
		return -1;
	q += kl;
	*v = 0;
	if (strncmp(q, "makedev(", 8) == 0) {	/* st_dev=makedev(0x8, 0x1) */
		int64_t ma, mi;

		q += 8;
		if (parse_int(&q, &ma) || strncmp(q, ", ", 2) || (q += 2, parse_int(&q, &mi)))
			return -1;
		*v = (uint64_t)ma << 20 | ((uint64_t)mi & 0xfffff);
		return 0;
	}
	for (;;) {
		int64_t n;
		size_t k;

		if (parse_int(&q, &n) == 0) {
			*v |= (uint64_t)n;
		} else {
			for (k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
				size_t l = strlen(modes[k].name);

				if (strncmp(q, modes[k].name, l) == 0 && !(q[l] >= 'A' && q[l] <= 'Z')) {
					*v |= modes[k].v;
					q += l;
					break;
				}
			}
			if (k == sizeof(modes) / sizeof(modes[0]))
				return -1;
		}
		if (*q != '|')
			return 0;
		q++;
	}
}

/*
 * A stat that succeeded tells the file's size and mode ("{st_mode=S_IFREG
 * |0644, st_size=8192, ...}", statx's stx_ names; -v adds st_dev and
 * st_ino): the file table's row of the file, from the first stat of it.
 */
static int stat_row(struct strace *s, tape_writer *w, const struct call *c,
		    const struct tape_syscall *ev)
{
	const char *p = NULL, *end = NULL;
	uint64_t *seen, size, v;
	int sx = ev->op == TAPE_OP_STATX, rc;
	struct tape_file f = { .ts_ns = ev->ts_ns, .file_id = ev->file_id, .path = ev->path };

	if (ev->ret != 0 || !ev->file_id || ev->path[0] != '/')
		return 0;
	for (int i = 0; i < c->nargs; i++)
		if (*c->arg[i] == '{') {
			p = c->arg[i];
			end = c->aend[i];
		}
	if (!p || struct_field(p, end, sx ? "stx_size=" : "st_size=", &size) ||
	    struct_field(p, end, sx ? "stx_mode=" : "st_mode=", &f.mode))
		return 0;
	f.size = size;
	if (!sx && struct_field(p, end, "st_dev=", &v) == 0)
		f.dev = v;
	if (struct_field(p, end, sx ? "stx_ino=" : "st_ino=", &v) == 0)
		f.inode = v;
	rc = cm_map_put(&s->stat_seen, ev->file_id, 0, &seen);
	if (rc <= 0)
		return rc;
	*seen = 1;
	rc = tape_writer_append(w, TAPE_TABLE_FILE, &f);
	if (rc < 0)
		s->werr = rc;
	return rc < 0 ? rc : 0;
}

/* A clone of thread t that returned a new task: that thread (or process,
 * without CLONE_THREAD), born when the call ended. */
static int clone_done(struct strace *s, struct thread *t, uint64_t ts, const struct call *c)
{
	if (c->ret > 0)
		t->cloned = 1;
	if (c->ret > 0 && c->ret <= UINT32_MAX && !thread_at(s, (uint32_t)c->ret)) {
		int is_thread = 0;

		for (int i = 0; i < c->nargs; i++)
			if (memmem(c->arg[i], (size_t)(c->aend[i] - c->arg[i]), "CLONE_THREAD", 12))
				is_thread = 1;
		if (!thread_new(s, (uint32_t)c->ret, ts + c->dur, t, is_thread))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The input side of call c of thread t: its fd into *fd and its path into
 * *path (absolute, resolved against the dirfd or the cwd; the fd's own
 * path for an fd-only call or AT_EMPTY_PATH; the returned fd's for an
 * open).  A dirfd of AT_FDCWD updates the cwd.  0, 1 for a call that
 * makes no row (an anonymous mapping), or -errno (s->err).
 */
static int call_path(struct strace *s, struct thread *t, const struct spec *sp,
		     const struct call *c, int64_t *fd, const char **path)
{
	const char *fdp = NULL, *dirp = NULL;
	int absent, err = 0;

	if (sp->fd >= 0) {
		*fd = arg_num(c, sp->fd, &absent);
		if (absent)
			return bad(s, "argument %s: no fd", sp->fd == 0 ? "1" : "2+");
		if ((sp->sf & SF_FILE) && *fd < 0)
			return 1;	/* an anonymous mapping */
		fdp = arg_fdpath(s, c->arg[sp->fd], c->aend[sp->fd], 0, &err);
		if (err)
			return err;
		if (*fd == AT_FDCWD && (err = cwd_set(s, t, fdp)))
			return err;
		if (*fd == AT_FDCWD || sp->path >= 0) {
			/* a dirfd: keep its path to resolve with */
			dirp = fdp;
			fdp = NULL;
		}
	} else if (sp->path >= 0) {
		dirp = s->th[t->leader].cwd;	/* a path-only call */
	}
	if (dirp && !(dirp = strdup(dirp)))
		return -ENOMEM;
	if (sp->path >= 0) {
		*path = arg_str(s, c, sp->path, 0, &err);
		if (!*path && !err)
			*path = "";
		if (!err && !**path && dirp && *fd != AT_FDCWD) {
			/* AT_EMPTY_PATH: the fd's file */
			if (grow(&s->sbuf[2], &s->scap[2], strlen(dirp) + 1))
				err = -ENOMEM;
			else
				*path = strcpy(s->sbuf[2], dirp);
		} else if (!err) {
			*path = abs_path(s, 2, *path, dirp, &err);
		}
		if (!err && !*path)
			err = -ENOMEM;
		if (!err && c->ret_annot && (tape_op_class(sp->op) == TAPE_OPC_OPEN)) {
			*path = arg_fdpath(s, c->ret_annot, c->ret_aend, 0, &err);
		}
	} else if (fdp) {
		*path = fdp;
	}
	free((char *)dirp);
	return err;
}

/* The output side of call c of thread t: its fd into *fd2 and its path
 * into *path2 (a second path resolved against its dirfd or the cwd, or
 * the output fd's path).  0 or -errno (s->err). */
static int call_path2(struct strace *s, struct thread *t, const struct spec *sp,
		      const struct call *c, int64_t *fd2, const char **path2)
{
	int absent, err = 0;

	if (sp->path2 >= 0) {
		const char *d2 = sp->fd2 >= 0 ? arg_fdpath(s, c->arg[sp->fd2], c->aend[sp->fd2], 1, &err) :
				 s->th[t->leader].cwd;

		if (!err && d2 && !(d2 = strdup(d2)))
			err = -ENOMEM;
		if (!err)
			*path2 = arg_str(s, c, sp->path2, 1, &err);
		if (!err && *path2)
			*path2 = abs_path(s, 3, *path2, d2, &err);
		free((char *)d2);
		return err;
	}
	if (sp->fd2 >= 0) {
		*fd2 = arg_num(c, sp->fd2, &absent);
		if (absent)
			return bad(s, "no fd in the output fd argument%s", "");
		if (tape_op_has_output(sp->op)) {
			*path2 = arg_fdpath(s, c->arg[sp->fd2], c->aend[sp->fd2], 1, &err);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The row's other fields from call c: size, flags and offsets as the spec
 * says, the columns the call gives marked in have. */
static void call_fields(const struct spec *sp, const struct call *c, struct tape_syscall *ev,
			char *have)
{
	int absent;

	ev->dur_ns = c->dur;
	ev->op = sp->op;
	ev->ret = c->ret;
	if (sp->size >= 0)
		ev->size = (sp->sf & SF_VEC) ? iov_sum(c, sp->size) :
			   (uint64_t)arg_num(c, sp->size, &absent);
	if (sp->sf & SF_FLAGS23)
		ev->flags = arg_flags(c, 2) | arg_flags(c, 3) << 32;
	else if (sp->flags >= 0)
		ev->flags = arg_flags(c, sp->flags);
	ev->flags |= sp->flags_const;
	for (int col = C_TS; col <= C_FD2; col++)
		have_set(have, col, 1);
	if (sp->off >= 0) {
		int64_t off = arg_num(c, sp->off, &absent);

		if (!(absent || (sp->off_kind == OFF_ARG_OR_POS && off == -1))) {
			ev->offset = (uint64_t)off;
			have_set(have, C_OFF, 1);
		}
	} else if (sp->off_kind != OFF_POS) {
		have_set(have, C_OFF, 1);
	}
	if (sp->off2 >= 0) {
		int64_t off = arg_num(c, sp->off2, &absent);

		if (!absent) {
			ev->offset2 = (uint64_t)off;
			have_set(have, C_OFF2, 1);
		}
	}
}

/* A whole call of thread t, started at ts: a row, a process-table change,
 * or nothing. */
static int do_call(struct strace *s, tape_writer *w, struct thread *t, uint64_t ts,
		   const char *p, const char *end)
{
	struct call c;
	const struct spec *sp;
	struct tape_syscall ev = { .path = "", .path2 = "", .fd = -1, .fd2 = -1 };
	char have[64] = { 0 };
	const char *path = NULL, *path2 = NULL;
	int ret, err = 0;

	const char *paren = memchr(p, '(', (size_t)(end - p));

	if (!paren)
		return bad(s, "not a strace line: '%.40s'", p);
	sp = spec_find(p, (size_t)(paren - p));
	if (!sp)
		return 0;	/* not a call the recorder traces */
	ret = split_call(s, p, end, &c);
	if (ret)
		return ret;
	if (!c.has_ret)
		return 0;
	if (sp->sf & SF_CLONE)
		return clone_done(s, t, ts, &c);
	if (sp->sf & SF_EXEC) {
		path = arg_str(s, &c, sp->path, 0, &err);
		if (err)
			return err;
		return c.ret == 0 && path ? exec_done(s, t, &c, path) : 0;
	}
	if ((sp->sf & SF_DUPFD) && (c.nargs < 2 || strncmp(c.arg[1], "F_DUPFD", 7) != 0))
		return 0;
	ret = call_path(s, t, sp, &c, &ev.fd, &path);
	if (ret)
		return ret < 0 ? ret : 0;
	if (sp->sf & SF_CHDIR)
		return c.ret == 0 ? cwd_set(s, t, path) : 0;
	if ((err = call_path2(s, t, sp, &c, &ev.fd2, &path2)))
		return err;

	ev.ts_ns = ts;
	ev.pid = t->pid;
	ev.tid = t->tid;
	call_fields(sp, &c, &ev, have);
	if (path) {
		ev.path = path;
		have_set(have, C_PATH, 1);
	}
	if (path2) {
		ev.path2 = path2;
		have_set(have, C_PATH2, 1);
	}
	if (strlen(ev.path) > TAPE_MAX_STRING || strlen(ev.path2) > TAPE_MAX_STRING)
		return bad(s, "a path longer than %s bytes", "1 MiB");
	ret = imp_sys_fill(&s->st, &ev, have, s->err, sizeof(s->err));
	if (ret)
		return ret;
	ret = tape_writer_append(w, TAPE_TABLE_SYSCALL, &ev);
	if (ret < 0) {
		s->werr = ret;
		return ret;
	}
	if (sp->op == TAPE_OP_NEWSTAT || sp->op == TAPE_OP_NEWLSTAT || sp->op == TAPE_OP_NEWFSTAT ||
	    sp->op == TAPE_OP_NEWFSTATAT || sp->op == TAPE_OP_STATX)
		return stat_row(s, w, &c, &ev);
	return 0;
}

/* ------------------------------------------------------------ lines */

/* "HH:MM:SS[.frac]" or "SECONDS.frac" at *p: ns, moving *p; 0 when the
 * line has no time. */
static int parse_time(struct strace *s, const char **pp, uint64_t *ts)
{
	const char *p = *pp;
	uint64_t a = 0, ns = 0, mul = 100000000;
	int tod = 0;

	if (!is_digit(*p))
		return 0;
	while (is_digit(*p) && a < UINT64_MAX / 100)
		a = a * 10 + (uint64_t)(*p++ - '0');
	if (*p == ':') {
		uint64_t mm = 0, ss = 0;

		p++;
		while (is_digit(*p) && mm < 100)
			mm = mm * 10 + (uint64_t)(*p++ - '0');
		if (*p++ != ':')
			return bad(s, "a time that is not HH:MM:SS%s", "");
		while (is_digit(*p) && ss < 100)
			ss = ss * 10 + (uint64_t)(*p++ - '0');
		if (a > 23 || mm > 59 || ss > 60)
			return bad(s, "a time that is not HH:MM:SS%s", "");
		a = a * 3600 + mm * 60 + ss;
		tod = 1;
	} else if (*p != '.') {
		return 0;	/* not a time */
	}
	if (*p == '.')
		for (p++; is_digit(*p); p++, mul /= 10)
			ns += (uint64_t)(*p - '0') * mul;
	if (*p != ' ')
		return bad(s, "no space after the time%s", "");
	if (a > UINT64_MAX / 1000000000ull - 1)
		return bad(s, "a time out of range%s", "");
	*ts = a * 1000000000ull + ns;
	if (tod) {
		if (s->tod_seen && *ts + 12 * 3600 * 1000000000ull < s->last_tod)
			s->day_ns += 24 * 3600 * 1000000000ull;
		s->last_tod = *ts;
		s->tod_seen = 1;
		*ts += s->day_ns;
	}
	*pp = p + 1;
	return 1;
}

static int strace_line(struct strace *s, tape_writer *w, const char *p, const char *end)
{
	uint32_t tid = DEFAULT_PID;
	uint64_t ts;
	struct thread *t;
	int r;

	if (strncmp(p, "strace: ", 8) == 0 || p == end)
		return 0;	/* strace's own messages (attached, ...) */
	if (strncmp(p, "[pid", 4) == 0) {
		int64_t v;

		p += 4;
		while (*p == ' ')
			p++;
		if (parse_int(&p, &v) || *p != ']' || v <= 0 || v > UINT32_MAX)
			return bad(s, "bad '[pid N]' prefix%s", "");
		tid = (uint32_t)v;
		for (p++; *p == ' '; p++)
			;
	} else if (is_digit(*p)) {
		const char *q = p;
		uint64_t v = 0;

		while (is_digit(*q) && v <= UINT32_MAX)
			v = v * 10 + (uint64_t)(*q++ - '0');
		if (*q == ' ') {
			if (v == 0 || v > UINT32_MAX)
				return bad(s, "pid out of range%s", "");
			tid = (uint32_t)v;
			for (p = q; *p == ' '; p++)
				;
		}
	}
	r = parse_time(s, &p, &ts);
	if (r < 0)
		return r;
	if (r == 0)
		ts = s->last_ts + 1000;
	s->last_ts = ts;
	t = thread_get(s, tid, ts, p);
	if (!t)
		return -ENOMEM;
	if (strncmp(p, "--- ", 4) == 0)
		return 0;
	if (strncmp(p, "+++ ", 4) == 0)
		return exit_line(s, w, t, ts, p + 4);
	if (strncmp(p, "<... ", 5) == 0) {
		const char *name = p + 5, *q = name;
		size_t nl, pl;

		while (q < end && *q != ' ')
			q++;
		nl = (size_t)(q - name);
		if (end - q < 9 || strncmp(q, " resumed>", 9) != 0)
			return bad(s, "bad '<... NAME resumed>'%s", "");
		q += 9;
		if (!t->has_pend || strncmp(t->pend, name, nl) != 0 || t->pend[nl] != '(') {
			t->has_pend = 0;
			return 0;	/* its start is not in the trace */
		}
		t->has_pend = 0;
		if (s->pending_clone == (int)(t - s->th) + 1)
			s->pending_clone = 0;	/* the clone returns */
		if (end - q >= 17 && memcmp(end - 17, " <unfinished ...>", 17) == 0)
			return 0;	/* killed in the call: "<... read resumed> <unfinished ...>) = ?" */
		pl = strlen(t->pend);
		if (grow(&s->join, &s->jcap, pl + (size_t)(end - q) + 1))
			return -ENOMEM;
		memcpy(s->join, t->pend, pl);
		memcpy(s->join + pl, q, (size_t)(end - q));
		s->join[pl + (size_t)(end - q)] = '\0';
		return do_call(s, w, t, t->pend_ts, s->join, s->join + pl + (end - q));
	}
	if (!((*p >= 'a' && *p <= 'z') || *p == '_'))
		return bad(s, "not a strace line: '%.40s'", p);
	if (end - p >= 17 && memcmp(end - 17, " <unfinished ...>", 17) == 0) {
		const char *paren = memchr(p, '(', (size_t)(end - p));
		size_t n = (size_t)(end - 17 - p);
		const struct spec *sp;

		if (!paren)
			return bad(s, "not a strace line: '%.40s'", p);
		sp = spec_find(p, (size_t)(paren - p));
		t->has_pend = 0;
		if (!sp)
			return 0;
		if (grow(&t->pend, &t->pcap, n + 1))
			return -ENOMEM;
		memcpy(t->pend, p, n);
		t->pend[n] = '\0';
		t->pend_ts = ts;
		t->has_pend = 1;
		if (sp->sf & SF_CLONE) {
			s->pending_clone = (int)(t - s->th) + 1;
			t->cloned = 1;
		}
		return 0;
	}
	return do_call(s, w, t, ts, p, end);
}

/*
 * strace -f writing to a terminal (stderr) prints "strace: Process N
 * attached" when a child starts, in the middle of the line it is writing:
 * "... vfork(strace: Process 25504 attached", then " <unfinished ...>" on
 * the next line.  The length of the line before the message, or -1 when
 * the line does not end in one.
 */
static ssize_t cut_attach(const char *line)
{
	static const char msg[] = "strace: Process ";
	const char *m = NULL, *p;

	for (p = line; (p = strstr(p, msg)); p++)
		m = p;
	if (!m || m == line)
		return -1;
	p = m + sizeof(msg) - 1;
	if (!is_digit(*p))
		return -1;
	while (is_digit(*p))
		p++;
	if (strcmp(p, " attached") != 0 && strcmp(p, " detached") != 0)
		return -1;
	return m - line;
}

static int strace_import(FILE *in, tape_writer *w, const struct imp_opts *o,
			 struct imp_diag *d)
{
	struct strace s = { 0 };
	char *line = NULL, *held = NULL;
	size_t cap = 0, hcap = 0, hlen = 0;
	ssize_t len, cut;
	int ret = 0;

	(void)o;
	errno = 0;
	while ((len = getline(&line, &cap, in)) >= 0) {
		char *l = line;

		d->line++;
		if ((size_t)len != strlen(line)) {
			ret = bad(&s, "NUL byte in the line%s", "");
			break;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (hlen) {	/* the line an attach message cut */
			if ((ret = grow(&held, &hcap, hlen + (size_t)len + 1)))
				break;
			memcpy(held + hlen, line, (size_t)len + 1);
			l = held;
			len += (ssize_t)hlen;
			hlen = 0;
		}
		if ((cut = cut_attach(l)) > 0) {
			if (l != held && (ret = grow(&held, &hcap, (size_t)cut + 1)))
				break;
			memmove(held, l, (size_t)cut);
			hlen = (size_t)cut;
			continue;
		}
		ret = strace_line(&s, w, l, l + len);
		if (ret)
			break;
	}
	if (!ret && hlen)
		ret = strace_line(&s, w, held, held + hlen);
	if (!ret && ferror(in)) {
		d->read_errno = errno ? errno : EIO;
		ret = -EIO;
	} else if (!ret && d->line == 0) {
		ret = bad(&s, "empty input: no strace lines%s", "");
	}
	for (size_t i = 0; !ret && i < s.nth; i++)
		ret = thread_end(&s, w, &s.th[i], 0, 0);
	if (s.werr)
		d->line = 0;	/* the writer's error, not the input's */
	else if (ret && ret != -ENOMEM && ret != -EIO)
		snprintf(d->msg, sizeof(d->msg), "%s", s.err);
	for (size_t i = 0; i < s.nth; i++) {
		free(s.th[i].pend);
		free(s.th[i].argv);
		free(s.th[i].cwd);
	}
	free(s.th);
	cm_map_release(&s.by_tid);
	free(s.join);
	free(held);
	cm_map_release(&s.stat_seen);
	for (int i = 0; i < 4; i++)
		free(s.sbuf[i]);
	free(line);
	imp_sys_release(&s.st);
	return ret;
}

const struct importer imp_strace = {
	.name = "strace",
	.summary = "the output of strace -f -tt -T -y (or -yy, -ttt)",
	.not_recorded = "block, cache, samples; files but as a successful stat printed them "
			"(size and mode from the first stat of each; dev and inode with -v)",
	.clock = "realtime",
	.run = strace_import,
};
