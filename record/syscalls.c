/* SPDX-License-Identifier: MIT */
/*
 * syscalls.c - which syscalls the recorder traces and how the BPF side reads
 * their arguments (struct rec_spec, one per syscall number).
 *
 * The BPF side has one enter and one exit program; record/loader.c attaches
 * them to syscalls/sys_{enter,exit}_<tp> for every row here whose layer is
 * selected.  Argument indexes follow the x86-64 syscall ABI
 * (include/linux/syscalls.h); syscall numbers come from <sys/syscall.h> of
 * the build architecture.
 */
#include <fcntl.h>
#include <stddef.h>
#include <sys/syscall.h>
#include "tape.h"
#include "rec.h"

#define N -1
/* op, layer, off_kind, fd, path, fd2, path2, off, size, flags, sflags, const */
#define S(nr_, tp_, op_, l_, ok_, fd_, p_, fd2_, p2_, off_, sz_, fl_, sf_, c_) \
	S2(nr_, tp_, op_, l_, ok_, fd_, p_, fd2_, p2_, off_, sz_, fl_, sf_, c_, -1)
/* the same, and the output offset pointer of a copy (REC_SF_COPY) */
#define S2(nr_, tp_, op_, l_, ok_, fd_, p_, fd2_, p2_, off_, sz_, fl_, sf_, c_, off2_) \
	{ .nr = nr_, .tp = tp_, .spec = { .op = op_, .layer = l_, .off_kind = ok_, \
	  .fd_arg = fd_, .path_arg = p_, .fd2_arg = fd2_, .path2_arg = p2_, \
	  .off_arg = off_, .size_arg = sz_, .flags_arg = fl_, .sflags = sf_, \
	  .flags_const = c_, .off2_arg = off2_ } }
#define SC REC_L_SYSCALL
#define MM REC_L_MMAP

const struct rec_syscall_def rec_syscalls[] = {
	S(SYS_open, "open", TAPE_OP_OPEN, SC, 0, N, 0, N, N, N, N, 1, REC_SF_NEWFD, 0),
	S(SYS_openat, "openat", TAPE_OP_OPENAT, SC, 0, 0, 1, N, N, N, N, 2, REC_SF_NEWFD, 0),
	S(SYS_openat2, "openat2", TAPE_OP_OPENAT2, SC, 0, 0, 1, N, N, N, N, N,
	  REC_SF_NEWFD | REC_SF_OPENAT2, 0),
	S(SYS_creat, "creat", TAPE_OP_CREAT, SC, 0, N, 0, N, N, N, N, N, REC_SF_NEWFD,
	  O_CREAT | O_WRONLY | O_TRUNC),
	S(SYS_close, "close", TAPE_OP_CLOSE, SC, 0, 0, N, N, N, N, N, N, 0, 0),
	S(SYS_close_range, "close_range", TAPE_OP_CLOSE_RANGE, SC, 0, N, N, N, N, N, 1, 2, 0, 0),
	S(SYS_dup, "dup", TAPE_OP_DUP, SC, 0, 0, N, N, N, N, N, N, REC_SF_NEWFD, 0),
	S(SYS_dup2, "dup2", TAPE_OP_DUP2, SC, 0, 0, N, 1, N, N, N, N, REC_SF_NEWFD, 0),
	S(SYS_dup3, "dup3", TAPE_OP_DUP3, SC, 0, 0, N, 1, N, N, N, 2, REC_SF_NEWFD, 0),
	S(SYS_fcntl, "fcntl", TAPE_OP_FCNTL_DUPFD, SC, 0, 0, N, N, N, N, N, 1,
	  REC_SF_NEWFD | REC_SF_DUPFD_ONLY, 0),
	S(SYS_read, "read", TAPE_OP_READ, SC, REC_OFF_POS, 0, N, N, N, N, 2, N, 0, 0),
	S(SYS_pread64, "pread64", TAPE_OP_PREAD64, SC, REC_OFF_ARG, 0, N, N, N, 3, 2, N, 0, 0),
	S(SYS_readv, "readv", TAPE_OP_READV, SC, REC_OFF_POS, 0, N, N, N, N, 2, N, REC_SF_VEC, 0),
	S(SYS_preadv, "preadv", TAPE_OP_PREADV, SC, REC_OFF_ARG, 0, N, N, N, 3, 2, N, REC_SF_VEC, 0),
	S(SYS_preadv2, "preadv2", TAPE_OP_PREADV2, SC, REC_OFF_ARG_OR_POS, 0, N, N, N, 3, 2, 5,
	  REC_SF_VEC, 0),
	S(SYS_write, "write", TAPE_OP_WRITE, SC, REC_OFF_POS, 0, N, N, N, N, 2, N, 0, 0),
	S(SYS_pwrite64, "pwrite64", TAPE_OP_PWRITE64, SC, REC_OFF_ARG, 0, N, N, N, 3, 2, N, 0, 0),
	S(SYS_writev, "writev", TAPE_OP_WRITEV, SC, REC_OFF_POS, 0, N, N, N, N, 2, N, REC_SF_VEC, 0),
	S(SYS_pwritev, "pwritev", TAPE_OP_PWRITEV, SC, REC_OFF_ARG, 0, N, N, N, 3, 2, N, REC_SF_VEC, 0),
	S(SYS_pwritev2, "pwritev2", TAPE_OP_PWRITEV2, SC, REC_OFF_ARG_OR_POS, 0, N, N, N, 3, 2, 5,
	  REC_SF_VEC, 0),
	S(SYS_lseek, "lseek", TAPE_OP_LSEEK, SC, REC_OFF_ARG, 0, N, N, N, 1, N, 2, 0, 0),
	S(SYS_fsync, "fsync", TAPE_OP_FSYNC, SC, 0, 0, N, N, N, N, N, N, 0, 0),
	S(SYS_fdatasync, "fdatasync", TAPE_OP_FDATASYNC, SC, 0, 0, N, N, N, N, N, N, 0, 0),
	S(SYS_sync_file_range, "sync_file_range", TAPE_OP_SYNC_FILE_RANGE, SC, REC_OFF_ARG,
	  0, N, N, N, 1, 2, 3, 0, 0),
	S(SYS_fadvise64, "fadvise64", TAPE_OP_FADVISE64, SC, REC_OFF_ARG, 0, N, N, N, 1, 2, 3, 0, 0),
	S(SYS_readahead, "readahead", TAPE_OP_READAHEAD, SC, REC_OFF_ARG, 0, N, N, N, 1, 2, N, 0, 0),
	S(SYS_mmap, "mmap", TAPE_OP_MMAP, MM, REC_OFF_ARG, 4, N, N, N, 5, 1, N,
	  REC_SF_FILE_ONLY | REC_SF_FLAGS_2_3, 0),
	S(SYS_munmap, "munmap", TAPE_OP_MUNMAP, MM, REC_OFF_ADDR, N, N, N, N, 0, 1, N, 0, 0),
	S(SYS_msync, "msync", TAPE_OP_MSYNC, MM, REC_OFF_ADDR, N, N, N, N, 0, 1, 2, 0, 0),
	S(SYS_madvise, "madvise", TAPE_OP_MADVISE, MM, REC_OFF_ADDR, N, N, N, N, 0, 1, 2, 0, 0),
	S(SYS_ftruncate, "ftruncate", TAPE_OP_FTRUNCATE, SC, 0, 0, N, N, N, N, 1, N, 0, 0),
	S(SYS_fallocate, "fallocate", TAPE_OP_FALLOCATE, SC, REC_OFF_ARG, 0, N, N, N, 2, 3, 1, 0, 0),
	S(SYS_rename, "rename", TAPE_OP_RENAME, SC, 0, N, 0, N, 1, N, N, N, 0, 0),
	S(SYS_renameat, "renameat", TAPE_OP_RENAMEAT, SC, 0, 0, 1, 2, 3, N, N, N, 0, 0),
	S(SYS_renameat2, "renameat2", TAPE_OP_RENAMEAT2, SC, 0, 0, 1, 2, 3, N, N, 4, 0, 0),
	S(SYS_unlink, "unlink", TAPE_OP_UNLINK, SC, 0, N, 0, N, N, N, N, N, 0, 0),
	S(SYS_unlinkat, "unlinkat", TAPE_OP_UNLINKAT, SC, 0, 0, 1, N, N, N, N, 2, 0, 0),
	S(SYS_mkdir, "mkdir", TAPE_OP_MKDIR, SC, 0, N, 0, N, N, N, N, 1, 0, 0),
	S(SYS_mkdirat, "mkdirat", TAPE_OP_MKDIRAT, SC, 0, 0, 1, N, N, N, N, 2, 0, 0),
	S(SYS_getdents64, "getdents64", TAPE_OP_GETDENTS64, SC, 0, 0, N, N, N, N, 2, N, 0, 0),
	S(SYS_statx, "statx", TAPE_OP_STATX, SC, 0, 0, 1, N, N, N, N, 2, 0, 0),
	S(SYS_newfstatat, "newfstatat", TAPE_OP_NEWFSTATAT, SC, 0, 0, 1, N, N, N, N, 3, 0, 0),
	S(SYS_stat, "newstat", TAPE_OP_NEWSTAT, SC, 0, N, 0, N, N, N, N, N, 0, 0),
	S(SYS_lstat, "newlstat", TAPE_OP_NEWLSTAT, SC, 0, N, 0, N, N, N, N, N, 0, 0),
	S(SYS_fstat, "newfstat", TAPE_OP_NEWFSTAT, SC, 0, 0, N, N, N, N, N, N, 0, 0),
	/* access(path, mode); faccessat(dirfd, path, mode) and faccessat2's
	 * flags too (glibc's faccessat and euidaccess call faccessat2),
	 * both as op faccessat: mode | flags << 32 */
	S(SYS_access, "access", TAPE_OP_ACCESS, SC, 0, N, 0, N, N, N, N, 1, 0, 0),
	S(SYS_faccessat, "faccessat", TAPE_OP_FACCESSAT, SC, 0, 0, 1, N, N, N, N, 2, 0, 0),
	S(SYS_faccessat2, "faccessat2", TAPE_OP_FACCESSAT, SC, 0, 0, 1, N, N, N, N, N,
	  REC_SF_FLAGS_2_3, 0),
	/* readlink(path, buf, size), readlinkat(dirfd, path, buf, size) */
	S(SYS_readlink, "readlink", TAPE_OP_READLINK, SC, 0, N, 0, N, N, N, 2, N, 0, 0),
	S(SYS_readlinkat, "readlinkat", TAPE_OP_READLINKAT, SC, 0, 0, 1, N, N, N, 3, N, 0, 0),
	/* copies: in fd, *off_in as fd and offset, out fd and *off_out as
	 * fd2 and off2 (sendfile always writes at out_fd's position) */
	S2(SYS_sendfile, "sendfile64", TAPE_OP_SENDFILE, SC, REC_OFF_PTR, 1, N, 0, N, 2, 3, N,
	   REC_SF_COPY, 0, N),
	S2(SYS_copy_file_range, "copy_file_range", TAPE_OP_COPY_FILE_RANGE, SC, REC_OFF_PTR,
	   0, N, 2, N, 1, 4, 5, REC_SF_COPY, 0, 3),
	S2(SYS_splice, "splice", TAPE_OP_SPLICE, SC, REC_OFF_PTR, 0, N, 2, N, 1, 4, 5,
	   REC_SF_COPY, 0, 3),
	S(SYS_io_uring_enter, "io_uring_enter", TAPE_OP_IO_URING_ENTER, SC, 0, 0, N, N, N, N, 1, 3, 0, 0),
	/* waits for other fds: the fd (poll: the first pollfd's), how many
	 * were asked for, the timeout argument of poll and epoll_wait */
#ifdef SYS_poll
	S(SYS_poll, "poll", TAPE_OP_POLL, SC, 0, 0, N, N, N, N, 1, 2, REC_SF_POLLFD, 0),
#endif
	S(SYS_ppoll, "ppoll", TAPE_OP_PPOLL, SC, 0, 0, N, N, N, N, 1, N, REC_SF_POLLFD, 0),
#ifdef SYS_select
	S(SYS_select, "select", TAPE_OP_SELECT, SC, 0, N, N, N, N, N, 0, N, 0, 0),
#endif
	S(SYS_pselect6, "pselect6", TAPE_OP_PSELECT6, SC, 0, N, N, N, N, N, 0, N, 0, 0),
#ifdef SYS_epoll_wait
	S(SYS_epoll_wait, "epoll_wait", TAPE_OP_EPOLL_WAIT, SC, 0, 0, N, N, N, N, 2, 3, 0, 0),
#endif
	S(SYS_epoll_pwait, "epoll_pwait", TAPE_OP_EPOLL_PWAIT, SC, 0, 0, N, N, N, N, 2, 3, 0, 0),
	S(SYS_epoll_pwait2, "epoll_pwait2", TAPE_OP_EPOLL_PWAIT2, SC, 0, 0, N, N, N, N, 2, N, 0, 0),
	/* internal: keep each process's cwd for relative paths */
	S(SYS_chdir, "chdir", REC_OP_CHDIR, SC, 0, N, 0, N, N, N, N, N, 0, 0),
	S(SYS_fchdir, "fchdir", REC_OP_FCHDIR, SC, 0, 0, N, N, N, N, N, N, 0, 0),
};
const size_t rec_nsyscalls = sizeof(rec_syscalls) / sizeof(rec_syscalls[0]);

uint32_t rec_wait_call(int nr)
{
	static const struct { int nr; uint32_t call; } calls[] = {
		{ SYS_nanosleep, TAPE_WAITC_SLEEP }, { SYS_clock_nanosleep, TAPE_WAITC_SLEEP },
		{ SYS_futex, TAPE_WAITC_FUTEX },
#ifdef SYS_futex_waitv
		{ SYS_futex_waitv, TAPE_WAITC_FUTEX },
#endif
		{ SYS_read, TAPE_WAITC_READ }, { SYS_readv, TAPE_WAITC_READ },
		{ SYS_recvfrom, TAPE_WAITC_READ }, { SYS_recvmsg, TAPE_WAITC_READ },
		{ SYS_recvmmsg, TAPE_WAITC_READ },
		{ SYS_write, TAPE_WAITC_WRITE }, { SYS_writev, TAPE_WAITC_WRITE },
		{ SYS_sendto, TAPE_WAITC_WRITE }, { SYS_sendmsg, TAPE_WAITC_WRITE },
		{ SYS_sendmmsg, TAPE_WAITC_WRITE },
		{ SYS_wait4, TAPE_WAITC_WAIT }, { SYS_waitid, TAPE_WAITC_WAIT },
		{ SYS_accept, TAPE_WAITC_READ }, { SYS_accept4, TAPE_WAITC_READ },
	};

	if (nr < 0)
		return TAPE_WAITC_NONE;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (calls[i].nr == nr)
			return calls[i].call;
	for (size_t i = 0; i < rec_nsyscalls; i++)
		if (rec_syscalls[i].nr == nr) {
			unsigned op = rec_syscalls[i].spec.op;

			if (op < TAPE_OP_MAX && tape_op_class(op) == TAPE_OPC_WAIT)
				return TAPE_WAITC_POLL;
			return TAPE_WAITC_IO;
		}
	return TAPE_WAITC_OTHER;
}
