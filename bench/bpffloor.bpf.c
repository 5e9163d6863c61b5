// SPDX-License-Identifier: GPL-2.0
/*
 * bpffloor.bpf.c - the least a syscall recorder's BPF side must do for a
 * read or pread64, in cumulative steps (enum floor_mode), so that each
 * step's price can be measured on its own (bench/bpffloor.c).
 *
 * One sys_enter and one sys_exit program; `mode` is read-only data set
 * before load, so the verifier drops the code of the steps a mode leaves
 * out: each mode runs only its own instructions.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "record.bpf.h"	/* SC_ARG*, SC_NR, bpf_rdonly_cast */
#include "bpffloor.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space between open and load. */
const volatile __u32 mode = FLOOR_EMPTY;
const volatile long nr_read = -1;	/* the syscall numbers of this arch */
const volatile long nr_pread = -1;

/* Records that found the ring buffer full, and enters whose storage could
 * not be made. */
__u64 lost = 0;

/* Traced tgids, one bit each; user space sets the command's bit through
 * the skeleton's mmap of .bss, fork sets its children's. */
__u64 traced[FLOOR_TRACED_WORDS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);
} rb SEC(".maps");

/* What the enter of a call leaves for its exit, per thread. */
struct call {
	__u64 ts;	/* 0: no enter seen */
	__u64 dev;
	__u64 ino;
	__u64 pos;	/* f_pos at enter */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct call);
} calls SEC(".maps");

static __always_inline int is_traced(__u32 tgid)
{
	__u32 w = tgid / 64;

	return w < FLOOR_TRACED_WORDS && (traced[w] >> (tgid % 64)) & 1;
}

static __always_inline int recorded_nr(long nr)
{
	return nr == nr_read || nr == nr_pread;
}

/*
 * The open file behind fd in task's table, NULL if none.  fdt->fd is a
 * `struct file **`: BTF gives the verifier no type for what it points to,
 * so the slot's address is viewed (read-only, loads fault-safe) as a
 * struct kiocb, whose first member is a struct file *.
 */
static __always_inline struct file *fd_to_file(struct task_struct *task, long fd)
{
	struct fdtable *fdt = task->files->fdt;
	struct kiocb *slot;

	if (fd < 0 || fd >= fdt->max_fds)
		return NULL;
	slot = bpf_rdonly_cast((void *)((__u64)fdt->fd + fd * sizeof(void *)),
			       bpf_core_type_id_kernel(struct kiocb));
	return slot->ki_filp;
}

/* The filter both programs run first (mode filter and up): the task when
 * the call is a recorded kind made by a traced process, else NULL. */
static __always_inline struct task_struct *traced_call(long nr)
{
	struct task_struct *task;

	if (!recorded_nr(nr))
		return NULL;
	task = bpf_get_current_task_btf();
	return is_traced(task->tgid) ? task : NULL;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task;
	struct file *f;
	struct call *c;

	if (mode < FLOOR_FILTER)
		return 0;
	task = traced_call(id);
	if (!task || mode < FLOOR_STAMP)
		return 0;

	c = bpf_task_storage_get(&calls, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	c->ts = bpf_ktime_get_ns();
	if (mode < FLOOR_FILE)
		return 0;

	c->dev = c->ino = c->pos = 0;
	f = fd_to_file(task, SC_ARG0(regs));
	if (f) {
		c->ino = f->f_inode->i_ino;
		c->dev = f->f_inode->i_sb->s_dev;
		c->pos = f->f_pos;
	}
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_exit, struct pt_regs *regs, long ret)
{
	struct floor_file_event *fe = NULL;
	struct floor_event *ev;
	struct task_struct *task;
	struct call *c;
	long nr;
	__u64 ts;

	if (mode < FLOOR_FILTER)
		return 0;
	nr = SC_NR(regs);	/* the number is still in the registers */
	task = traced_call(nr);
	if (!task || mode < FLOOR_STAMP)
		return 0;

	c = bpf_task_storage_get(&calls, task, 0, 0);
	if (!c || !c->ts)	/* attached during the call: no enter */
		return 0;
	ts = c->ts;
	c->ts = 0;
	if (mode < FLOOR_EMIT)
		return 0;

	if (mode >= FLOOR_FILE) {
		fe = bpf_ringbuf_reserve(&rb, sizeof(*fe), 0);
		ev = fe ? &fe->ev : NULL;
	} else {
		ev = bpf_ringbuf_reserve(&rb, sizeof(*ev), 0);
	}
	if (!ev) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	/* the arguments too are still in the registers (x86-64, arm64) */
	ev->ts = ts;
	ev->dur = bpf_ktime_get_ns() - ts;
	ev->pid = task->tgid;
	ev->tid = task->pid;
	ev->ret = ret;
	ev->fd = SC_ARG0(regs);
	ev->size = SC_ARG2(regs);
	ev->offset = 0;
	if (nr == nr_pread)
		ev->offset = SC_ARG3(regs);
	if (fe) {
		if (nr != nr_pread)
			ev->offset = c->pos;
		fe->dev = c->dev;
		fe->ino = c->ino;
	}
	/* no wakeup: user space polls the ring every 100 ms */
	bpf_ringbuf_submit(ev, BPF_RB_NO_WAKEUP);
	return 0;
}

/* Children of a traced process are traced from their first syscall. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(floor_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid = child->tgid;

	if (is_traced(parent->tgid) && tgid / 64 < FLOOR_TRACED_WORDS)
		__sync_fetch_and_or(&traced[tgid / 64], 1ull << (tgid % 64));
	return 0;
}
