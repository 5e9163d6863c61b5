/* SPDX-License-Identifier: MIT */
/*
 * bpffloor.h - what bench/bpffloor.bpf.c and bench/bpffloor.c share: the
 * modes and the records.  Fixed-width fields, explicit sizes: the records
 * are read straight out of the ring buffer.
 */
#ifndef IOTAPE_BPFFLOOR_H
#define IOTAPE_BPFFLOOR_H

/* Each mode does what the one before it does, and more. */
enum floor_mode {
	FLOOR_EMPTY,	/* sys_enter and sys_exit programs that return at once */
	FLOOR_FILTER,	/* + syscall number test, traced-tgid bit test */
	FLOOR_STAMP,	/* + task storage: enter time stored, read back at exit */
	FLOOR_EMIT,	/* + one ring-buffer record per call at exit */
	FLOOR_FILE,	/* + fd -> file: dev, inode and file position */
	FLOOR_MODES
};

/* traced-tgid bitmap: one bit per pid up to PID_MAX_LIMIT (4 Mi) */
#define FLOOR_TRACED_WORDS 65536

/* FLOOR_EMIT: one per read or pread64 */
struct floor_event {
	__u64 ts;	/* CLOCK_MONOTONIC ns at sys_enter */
	__u64 dur;	/* ns from sys_enter to sys_exit */
	__u32 pid;	/* tgid */
	__u32 tid;
	__s64 ret;
	__s32 fd;
	__u32 size;	/* bytes asked (at most MAX_RW_COUNT, < 2 GiB) */
	__u64 offset;	/* pread64: its offset; read: FLOOR_FILE's f_pos, else 0 */
};

/* FLOOR_FILE: the same and the file the call hit */
struct floor_file_event {
	struct floor_event ev;
	__u64 dev;	/* the kernel's dev_t (MKDEV: major << 20 | minor) */
	__u64 ino;
};

_Static_assert(sizeof(struct floor_event) == 48, "floor_event is 48 bytes");
_Static_assert(sizeof(struct floor_file_event) == 64, "floor_file_event is 64 bytes");

#endif
