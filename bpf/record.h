/* SPDX-License-Identifier: MIT */
/*
 * record.h - events the recorder's BPF side sends to user space, and the
 * per-syscall specs user space gives the BPF side.
 *
 * This is a kernel<->user ABI private to one build of iotape, NOT the file
 * format: record/convert.c turns these into struct tape_* rows.  Every
 * struct is fixed-width with explicit padding and a _Static_assert on its
 * size so clang -target bpf and the host compiler agree byte for byte.
 * Variable-length data (paths, argv) follows the fixed part; hdr.len is the
 * total size of the event.
 */
#ifndef IOTAPE_RECORD_H
#define IOTAPE_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define REC_PATH_MAX 4096	/* one path, NUL included (PATH_MAX) */
#define REC_ARGV_MAX 4096	/* argv bytes captured at exec */
#define REC_COMM_LEN 16
#define REC_MAX_SYSCALL 512	/* size of the syscall-spec array */
#define REC_MAX_IOV 1024	/* iovecs summed for readv/writev sizes (UIO_MAXIOV) */
#define REC_TRACED_WORDS 65536	/* traced-set bitmap: PID_MAX_LIMIT (4 Mi) bits */

enum rec_ev_type {
	REC_EV_SYSCALL = 1,
	REC_EV_FORK = 2,
	REC_EV_EXEC = 3,
	REC_EV_EXIT = 4,
	REC_EV_CACHE = 5,
	REC_EV_BLOCK = 6,
	REC_EV_SYSCALL_ACCESS = 7, /* struct rec_syscall_access */
	REC_EV_WAIT = 8,	/* struct rec_wait */
};

/* Layers, for -e and for the lost-event counters. */
enum rec_layer {
	REC_L_SYSCALL = 0,
	REC_L_MMAP = 1,
	REC_L_CACHE = 2,
	REC_L_BLOCK = 3,
	REC_L_PROC = 4,
	REC_L_SCHED = 5,	/* waits: sched_switch, sched_waking */
	REC_L_MAX = 6,
};
#define REC_LAYER_BIT(l) (1u << (l))

/* Ops the recorder uses internally and never writes to the trace. */
enum rec_internal_op {
	REC_OP_CHDIR = 200,
	REC_OP_FCHDIR = 201,
};

/*
 * How a syscall's arguments are read.  One spec per syscall number, set by
 * user space (record/syscalls.c) in the `specs` array map before attach.
 * Argument indexes are 0..5; -1 means "none".
 */
enum rec_off_kind {
	REC_OFF_NONE = 0,
	REC_OFF_POS = 1,	/* file position: f_pos (see record.bpf.c) */
	REC_OFF_ARG = 2,	/* explicit offset argument off_arg */
	REC_OFF_ARG_OR_POS = 3,	/* preadv2/pwritev2: -1 means current pos */
	REC_OFF_PTR = 4,	/* loff_t *off_arg, NULL means current pos */
	REC_OFF_ADDR = 5,	/* munmap/msync/madvise: address in offset */
};

enum rec_spec_flag {
	REC_SF_VEC = 1u << 0,	  /* size = sum of iov_len (size_arg = iovcnt) */
	REC_SF_DUPFD_ONLY = 1u << 1, /* fcntl: only F_DUPFD/F_DUPFD_CLOEXEC */
	REC_SF_NEWFD = 1u << 2,	  /* ret is a new fd: look up its file */
	REC_SF_FILE_ONLY = 1u << 3, /* mmap: skip MAP_ANONYMOUS */
	REC_SF_OPENAT2 = 1u << 4, /* flags = how->flags (user memory) */
	REC_SF_FLAGS_2_3 = 1u << 5, /* flags = arg 2 | arg 3 << 32: mmap's prot
				     * and flags, faccessat2's mode and flags */
	REC_SF_COPY = 1u << 6,	  /* copies fd_arg -> fd2_arg: the output side
				   * in dev2, ino2, off2 (off2_arg: loff_t *,
				   * NULL or none: fd2's position) */
	REC_SF_POLLFD = 1u << 7,  /* poll, ppoll: fd_arg is a struct pollfd *;
				   * the fd is its first entry's */
};

struct rec_spec {
	__u16 op;	/* enum tape_op, or enum rec_internal_op */
	__u8 layer;	/* enum rec_layer */
	__u8 off_kind;	/* enum rec_off_kind */
	__s8 fd_arg;	/* fd the op acts on (or dirfd of path_arg) */
	__s8 path_arg;	/* const char __user * */
	__s8 fd2_arg;	/* second fd (sendfile out, rename newdirfd) */
	__s8 path2_arg;
	__s8 off_arg;
	__s8 size_arg;
	__s8 flags_arg;
	__s8 off2_arg;	/* REC_SF_COPY: loff_t __user * of the output, -1 none */
	__u32 sflags;	/* enum rec_spec_flag */
	__u32 flags_const; /* ORed into flags (creat: O_CREAT|O_WRONLY|O_TRUNC) */
};
_Static_assert(sizeof(struct rec_spec) == 20, "rec_spec size");

struct rec_hdr {
	__u32 type;	/* enum rec_ev_type */
	__u32 len;	/* whole event in bytes, trailing data included */
	__u64 ts;	/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 pid;	/* tgid */
	__u32 tid;
};
_Static_assert(sizeof(struct rec_hdr) == 24, "rec_hdr size");

/* One syscall, emitted at sys_exit.  path (path_len bytes incl. NUL) then
 * path2 (path2_len bytes) follow when the op names files. */
struct rec_syscall {
	struct rec_hdr h;	/* ts = syscall entry */
	__u64 dur;
	__u32 op;
	__s32 fd;	/* fd argument (or dirfd for *at), -1 none */
	__s32 fd2;	/* second fd / second dirfd, -1 none */
	__u16 path_len;
	__u16 path2_len;
	__u64 offset;
	__u64 size;
	__s64 ret;
	__u64 flags;
	__u64 dev;	/* file of fd (or of dirfd), 0 unknown */
	__u64 ino;
	union {
		struct {
			__u64 ndev;	/* the file a successful open/dup returned */
			__u64 nino;
			__u64 nsize;	/* its i_size */
		};
		struct {	/* REC_SF_COPY: the output side; no new fd */
			__u64 dev2;	/* file of fd2, 0 unknown */
			__u64 ino2;
			__u64 off2;	/* offset the copy started writing at */
		};
	};
	__u32 nmode;	/* its i_mode */
	/* its superblock's s_magic, the file system type statfs(2) gives in
	 * f_type (an unsigned long, but every magic of linux/magic.h, and of
	 * the out-of-tree file systems common/fstype.c names, fits 32 bits) */
	__u32 nfstype;
	/* char paths[] follow */
};
_Static_assert(sizeof(struct rec_syscall) == 128, "rec_syscall size");

/* A buffered read's page-cache access (a REC_EV_CACHE of kind 1, access),
 * carried in the read's own record; pid and tid are the syscall's. */
struct rec_access {
	__u64 ts;
	__u64 dev;
	__u64 ino;
	__u64 index;
	__u64 count;
};
_Static_assert(sizeof(struct rec_access) == 40, "rec_access size");

/* A syscall without paths and the page-cache access it made: the two
 * events in one ring record (user space writes the cache row first). */
struct rec_syscall_access {
	struct rec_syscall sc;	/* sc.h.type = REC_EV_SYSCALL_ACCESS */
	struct rec_access acc;
};
_Static_assert(sizeof(struct rec_syscall_access) == 168, "rec_syscall_access size");

#define REC_FORK_THREAD 1u

struct rec_fork {
	struct rec_hdr h;	/* pid/tid = parent */
	__u32 child_pid;	/* tgid of the child */
	__u32 child_tid;
	__u32 flags;		/* REC_FORK_THREAD */
	__u32 _pad;
	char comm[REC_COMM_LEN];
};
_Static_assert(sizeof(struct rec_fork) == 56, "rec_fork size");

struct rec_exec {
	struct rec_hdr h;	/* pid/tid after exec */
	__u32 old_tid;
	__u32 argv_len;		/* bytes of NUL-separated argv that follow */
	char comm[REC_COMM_LEN];
	/* char argv[] follows */
};
_Static_assert(sizeof(struct rec_exec) == 48, "rec_exec size");

struct rec_exit {
	struct rec_hdr h;
	__s32 exit_code;	/* task->exit_code (wait status form) */
	__u32 group_dead;	/* last thread of the process */
	char comm[REC_COMM_LEN];
};
_Static_assert(sizeof(struct rec_exit) == 48, "rec_exit size");

struct rec_cache {
	struct rec_hdr h;
	__u32 kind;		/* enum tape_cache_kind */
	__u32 _pad;
	__u64 dev;
	__u64 ino;
	__u64 index;
	__u64 count;
};
_Static_assert(sizeof(struct rec_cache) == 64, "rec_cache size");

struct rec_block {
	struct rec_hdr h;	/* ts = issue; pid/tid of the issuer (0 unknown) */
	__u64 dur;
	__u64 dev;
	__u64 sector;
	__u64 bytes;
	__u32 flags;		/* REC_BLK_* (== enum tape_blk_flag) */
	__u32 cmd_flags;	/* raw blk_opf_t, for debugging */
	__u64 ino;		/* from the first page's mapping, 0 unknown */
	__s32 error;
	__u32 _pad;
};
_Static_assert(sizeof(struct rec_block) == 80, "rec_block size");

/* Block flags are computed in BPF (CO-RE enum values) into these bits,
 * equal to enum tape_blk_flag. */
#define REC_BLK_READ (1u << 0)
#define REC_BLK_WRITE (1u << 1)
#define REC_BLK_FLUSH (1u << 2)
#define REC_BLK_SYNC (1u << 3)
#define REC_BLK_META (1u << 4)
#define REC_BLK_FUA (1u << 5)
#define REC_BLK_DISCARD (1u << 6)
#define REC_BLK_RAHEAD (1u << 7)

/*
 * A wait of a traced thread (REC_L_SCHED): it went off the CPU to block at
 * h.ts (sched_switch, not preempted), was woken dur ns later (sched_waking)
 * and ran again run ns after that (sched_switch).  Sent when it runs again,
 * for waits of wait_min_ns or more.
 */
struct rec_wait {
	struct rec_hdr h;	/* ts = went off the CPU; pid/tid: the thread */
	__u64 dur;		/* until sched_waking */
	__u64 run;		/* sched_waking -> on a CPU */
	__u64 cpu;		/* its se.sum_exec_runtime at h.ts */
	__u32 waker_pid;	/* tgid of the task that woke it, 0: an interrupt */
	__u32 waker_tid;
	__u32 kind;		/* REC_WAKE_* */
	__s32 sysnr;		/* the syscall it blocked in, -1 none */
};
_Static_assert(sizeof(struct rec_wait) == 64, "rec_wait size");

/* rec_wait.kind, equal to enum tape_wake_kind (record/convert.c checks). */
#define REC_WAKE_NONE 0
#define REC_WAKE_IRQ 1
#define REC_WAKE_JOB 2
#define REC_WAKE_KTHREAD 3
#define REC_WAKE_OTHER 4

struct rec_inode_key {
	__u64 dev;
	__u64 ino;
};

#endif /* IOTAPE_RECORD_H */
