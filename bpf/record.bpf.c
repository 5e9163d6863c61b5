// SPDX-License-Identifier: GPL-2.0
/*
 * record.bpf.c - kernel side of `iotape record`.
 *
 * Invariants:
 *  - Only tasks whose tgid is in `traced` (a bitmap) produce syscall,
 *    mmap and per-task page-cache events.  The set is seeded by user space (the
 *    command's pid, or -p pids) and grows at sched_process_fork, shrinks at
 *    sched_process_exit when the thread group dies.
 *  - Tracepoints only (no kprobes, no fentry on our kernels).  Syscalls use
 *    ONE enter and ONE exit program on the raw sys_enter/sys_exit
 *    tracepoints (tp_btf); the syscalls it records and how to read their
 *    arguments come from the `specs` array, indexed by syscall number.
 *    Not the ~100 syscalls/sys_{enter,exit}_X events: on kernels with
 *    faultable syscall tracepoints (6.13+) every detach waits for an RCU
 *    tasks-trace grace period, 60-90 ms each, 8 s at exit for our list.
 *  - An event that cannot be delivered (ring buffer full, in-flight map
 *    full) is counted in lost[layer]: never silent.
 *  - Kernel layouts come from BTF (vmlinux.h + CO-RE), never offsets.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "record.h"
#include "record.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space between open and load. */
const volatile __u64 wakeup_events = 0;	/* wake the reader every N records */
const volatile __u32 layers = ~0u;	/* REC_LAYER_BIT(enum rec_layer) */
const volatile __u64 cgroup_id = 0;	/* --cgroup: v2 cgroup id, 0 = none */
const volatile __u32 cgroup_level = 0;	/* its depth below the root (root: 0) */
const volatile __u64 wait_min_ns = 0;	/* REC_L_SCHED: shorter waits are not sent */

/* Events we could not deliver, per enum rec_layer. */
__u64 lost[REC_L_MAX] = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20); /* resized by user space (--buffer) */
} rb SEC(".maps");

/* The traced set: one bit per tgid (PID_MAX_LIMIT is 4 Mi: 512 KiB).  A
 * bit test is a plain load; the hash map it replaced cost a hashed lookup
 * on every recorded-kind syscall of every process on the machine.  In
 * .bss, so user space sets bits with atomic ORs through the mmap. */
__u64 traced[REC_TRACED_WORDS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, REC_MAX_SYSCALL);
	__type(key, __u32);
	__type(value, struct rec_spec);
} specs SEC(".maps");

/* What sys_enter saw, for sys_exit of the same thread. */
struct inflight {
	__u64 ts;
	__u64 args[8];		/* 6 used; 8 so a masked index stays inside */
	__u64 file;		/* struct file * of fd_arg at entry */
	__u64 pos;		/* f_pos at entry, or *off_arg for REC_OFF_PTR */
	__u64 dev;
	__u64 ino;
	__u32 nr;
	__u32 ptr_ok;		/* REC_OFF_PTR: pos holds *off_arg */
	__u32 active;		/* set by sys_enter, cleared by sys_exit */
	__u32 acc_pending;	/* acc holds a page-cache access of this call */
	struct rec_access acc;
	/* REC_SF_COPY only: the output side, as file, pos, dev, ino above */
	__u64 file2;
	__u64 pos2;		/* f_pos of fd2 at entry, or *off2_arg */
	__u64 dev2;
	__u64 ino2;
	__u32 ptr2_ok;		/* pos2 holds *off2_arg */
	__u32 _pad2;
};

/* Per-thread storage: no allocation or hashing per syscall, freed with the
 * task (a hash keyed by tid cost ~150 ns per syscall here). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct inflight);
} inflight SEC(".maps");

/* Files traced processes opened or read: eviction and async insert run in
 * other tasks' context, so those events are filtered on the inode. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct rec_inode_key);
	__type(value, __u8);
} files SEC(".maps");

struct scratch {
	struct rec_syscall ev;
	char paths[2 * REC_PATH_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* Block requests in flight, keyed by struct request *. */
struct blk_start {
	__u64 ts;
	__u32 pid;
	__u32 tid;
	__u64 ino;
	__u64 dev;
	__u64 sector;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct blk_start);
} blkreq SEC(".maps");

/* Bios submitted by traced tasks, for requests issued from other contexts
 * (plug flush by kblockd, scheduler dispatch). */
struct bio_owner {
	__u64 pid_tgid;
	__u64 sector;	/* bio start: a freed and reused bio will differ */
	__u64 ts;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);	/* struct bio * */
	__type(value, struct bio_owner);
} bioowner SEC(".maps");

static __always_inline void count_lost(__u32 layer)
{
	if (layer < REC_L_MAX)
		__sync_fetch_and_add(&lost[layer], 1);
}

/* Wake the reader once per wakeup_events records per CPU (a per-CPU array
 * lookup is inlined: no helper call, unlike bpf_ringbuf_query); user space
 * also polls every 100 ms, so a quiet ring is drained anyway. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} wake_count SEC(".maps");

static __always_inline __u64 rb_flags(void)
{
	__u32 zero = 0;
	__u64 *n;

	if (!wakeup_events)
		return 0;
	n = bpf_map_lookup_elem(&wake_count, &zero);
	if (!n)
		return 0;
	/* a countdown: no 64-bit division per record */
	if (*n > 1) {
		--*n;
		return BPF_RB_NO_WAKEUP;
	}
	*n = wakeup_events;
	return BPF_RB_FORCE_WAKEUP;
}

/* In the traced set.  With --cgroup a task of that cgroup or of any cgroup
 * below it joins the set the first time it is seen here (its children
 * then follow by fork, wherever they are moved). */
static __always_inline void traced_set(__u32 tgid)
{
	__u32 w = tgid / 64;

	if (w < REC_TRACED_WORDS)
		__sync_fetch_and_or(&traced[w], 1ull << (tgid & 63));
}

static __always_inline void traced_clear(__u32 tgid)
{
	__u32 w = tgid / 64;

	if (w < REC_TRACED_WORDS)
		__sync_fetch_and_and(&traced[w], ~(1ull << (tgid & 63)));
}

/* In the set now (no --cgroup side effect). */
static __always_inline int traced_bit(__u32 tgid)
{
	__u32 w = tgid / 64;

	return w < REC_TRACED_WORDS && (traced[w] >> (tgid & 63)) & 1;
}

static __always_inline int is_traced(__u32 tgid)
{
	if (traced_bit(tgid))
		return 1;
	if (cgroup_id && bpf_get_current_ancestor_cgroup_id(cgroup_level) == cgroup_id &&
	    (bpf_get_current_pid_tgid() >> 32) == tgid) {
		traced_set(tgid);
		return 1;
	}
	return 0;
}

static __always_inline int tracked_file(__u64 dev, __u64 ino)
{
	struct rec_inode_key k = { .dev = dev, .ino = ino };

	return bpf_map_lookup_elem(&files, &k) != NULL;
}

static __always_inline void track_file(__u64 dev, __u64 ino)
{
	struct rec_inode_key k = { .dev = dev, .ino = ino };
	__u8 one = 1;

	if (!bpf_map_lookup_elem(&files, &k))
		bpf_map_update_elem(&files, &k, &one, BPF_ANY);
}

/* The struct file behind fd in task t (current), 0 when none.  fdt->fd is
 * a `struct file **`, which BTF loads treat as a plain number; the slot is
 * read through a read-only cast to a struct whose first member is a
 * `struct file *` (struct kiocb), a fault-safe load instead of a
 * bpf_probe_read_kernel call. */
static __always_inline __u64 task_fd_file(struct task_struct *t, long fd)
{
	struct fdtable *fdt = untrusted(t)->files->fdt;
	struct kiocb *slot;

	if (fd < 0 || (unsigned long)fd >= fdt->max_fds)
		return 0;
	slot = bpf_rdonly_cast((void *)((__u64)fdt->fd + fd * sizeof(void *)),
			       bpf_core_type_id_kernel(struct kiocb));
	return (__u64)slot->ki_filp;
}

static __always_inline __u64 fd_file(long fd)
{
	return task_fd_file(bpf_get_current_task_btf(), fd);
}

static __always_inline void file_id(__u64 fp, __u64 *dev, __u64 *ino)
{
	struct inode *i = as_file(fp)->f_inode;

	*ino = i->i_ino;
	*dev = i->i_sb->s_dev;
}

static __always_inline __u64 arg(const struct inflight *e, __s8 i)
{
	return e->args[i & 7];
}

/* ------------------------------------------------------- cache events */

static __always_inline void cache_event_at(__u32 layer, __u32 kind, __u64 dev,
					   __u64 ino, __u64 index, __u64 count,
					   __u64 id, __u64 ts)
{
	struct rec_cache *ev = bpf_ringbuf_reserve(&rb, sizeof(*ev), 0);

	if (!ev) {
		count_lost(layer);
		return;
	}
	ev->h.type = REC_EV_CACHE;
	ev->h.len = sizeof(*ev);
	ev->h.ts = ts;
	ev->h.pid = id >> 32;
	ev->h.tid = (__u32)id;
	ev->kind = kind;
	ev->_pad = 0;
	ev->dev = dev;
	ev->ino = ino;
	ev->index = index;
	ev->count = count;
	bpf_ringbuf_submit(ev, rb_flags());
}

static __always_inline void cache_event(__u32 layer, __u32 kind, __u64 dev,
					__u64 ino, __u64 index, __u64 count,
					__u64 id)
{
	cache_event_at(layer, kind, dev, ino, index, count, id, bpf_ktime_get_ns());
}

/*
 * The page-cache access of a buffered read rides in the read's own syscall
 * record (REC_EV_SYSCALL_ACCESS): one ring reservation per read instead of
 * two, ~60 ns.  cache_get_pages keeps it in the task's in-flight storage
 * while a recorded syscall is active; it goes out on its own, before
 * anything else, when the same task produces another cache event first
 * (a read of several batches, the misses of the next batch, reclaim in
 * the task), so a task's cache rows keep their order.  The only rows that
 * move are another task's cache events in the same read (an eviction by
 * kswapd, say): they now come before the access, not after.
 */
static __always_inline void access_flush(struct inflight *e, __u64 id)
{
	if (!e->acc_pending)
		return;
	e->acc_pending = 0;
	cache_event_at(REC_L_CACHE, 1, e->acc.dev, e->acc.ino, e->acc.index,
		       e->acc.count, id, e->acc.ts);
}

/* Before a cache event of the current task t (traced): its pending access. */
static __always_inline void access_flush_task(struct task_struct *t)
{
	struct inflight *e = bpf_task_storage_get(&inflight, t, 0, 0);

	if (e && e->acc_pending)
		access_flush(e, (__u64)t->tgid << 32 | (__u32)t->pid);
}

/* ------------------------------------------------------------ syscalls */

/* *p (a loff_t * argument) into *pos; 1 when read.  A failed read zeroes
 * its destination: *pos keeps what it held (f_pos, the fallback). */
static __always_inline int read_off_ptr(void *p, __u64 *pos)
{
	__u64 v;

	if (!p || bpf_probe_read_user(&v, sizeof(v), p))
		return 0;
	*pos = v;
	return 1;
}

/* The output side of a copy at entry (only copies get here: the read and
 * write path pays one flag test). */
static __always_inline void copy_enter(struct inflight *e, const struct rec_spec *sp,
				  struct task_struct *task)
{
	__u64 f;

	e->file2 = e->pos2 = e->dev2 = e->ino2 = 0;
	e->ptr2_ok = 0;
	if (sp->fd2_arg < 0)
		return;
	f = task_fd_file(task, (int)arg(e, sp->fd2_arg));
	if (f) {
		e->file2 = f;
		file_id(f, &e->dev2, &e->ino2);
		e->pos2 = as_file(f)->f_pos;
	}
	if (sp->off2_arg >= 0)
		e->ptr2_ok = read_off_ptr((void *)arg(e, sp->off2_arg), &e->pos2);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	__u32 nr = id;
	struct rec_spec *sp;
	struct inflight *e;
	struct task_struct *task;
	__u64 f;

	/* cheapest test first: most syscalls have no spec */
	sp = bpf_map_lookup_elem(&specs, &nr);
	if (!sp || !sp->op)
		return 0;
	if ((sp->sflags & REC_SF_DUPFD_ONLY) &&
	    SC_ARG1(regs) != 0 /* F_DUPFD */ && SC_ARG1(regs) != 1030 /* F_DUPFD_CLOEXEC */)
		return 0;
	if ((sp->sflags & REC_SF_FILE_ONLY) && (SC_ARG3(regs) & 0x20 /* MAP_ANONYMOUS */))
		return 0;
	/* The bit test is what every untraced process pays for a syscall
	 * of a recorded kind; the storage (created on first use) only
	 * traced tasks. */
	task = bpf_get_current_task_btf();
	if (!is_traced(task->tgid))
		return 0;
	e = bpf_task_storage_get(&inflight, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!e) {
		count_lost(sp->layer);
		return 0;
	}
	if (e->acc_pending)	/* the last call's exit was not seen */
		access_flush(e, (__u64)task->tgid << 32 | (__u32)task->pid);
	e->ts = bpf_ktime_get_ns();
	e->nr = nr;
	e->args[0] = SC_ARG0(regs);
	e->args[1] = SC_ARG1(regs);
	e->args[2] = SC_ARG2(regs);
	e->args[3] = SC_ARG3(regs);
	e->args[4] = SC_ARG4(regs);
	e->args[5] = SC_ARG5(regs);
	e->file = e->pos = e->dev = e->ino = 0;
	e->ptr_ok = 0;
	if (sp->sflags & REC_SF_POLLFD) {
		/* the first struct pollfd's fd stands for the call's fd */
		int pfd = -1;

		if (SC_ARG1(regs) == 0 ||
		    bpf_probe_read_user(&pfd, sizeof(pfd), (void *)arg(e, sp->fd_arg)))
			pfd = -1;
		e->args[6] = (__u64)(__s64)pfd;
	}
	if (sp->fd_arg >= 0) {
		f = task_fd_file(task, (sp->sflags & REC_SF_POLLFD) ? (int)e->args[6] :
								       (int)arg(e, sp->fd_arg));
		if (f) {
			e->file = f;
			file_id(f, &e->dev, &e->ino);
			if (sp->off_kind != REC_OFF_ARG)
				e->pos = as_file(f)->f_pos;
		}
	}
	if (sp->off_kind == REC_OFF_PTR && sp->off_arg >= 0)
		e->ptr_ok = read_off_ptr((void *)arg(e, sp->off_arg), &e->pos);
	if (sp->sflags & REC_SF_COPY)
		copy_enter(e, sp, task);
	e->active = 1;
	return 0;
}

/* Position a read/write without explicit offset started at.  For regular
 * files f_pos after the call minus bytes done is exact even with O_APPEND
 * (writes land at i_size) and with fds shared by dup/fork; f_pos at entry
 * is the fallback for failures and for streams. */
static __always_inline __u64 pos_of(__u64 file, __u64 pos_at_entry, long ret)
{
	__u64 now;

	if (ret > 0 && file) {
		now = as_file(file)->f_pos;
		if (now >= (__u64)ret)
			return now - ret;
	}
	return pos_at_entry;
}

static __always_inline __u64 pos_start(const struct inflight *e, long ret)
{
	return pos_of(e->file, e->pos, ret);
}

/* Where a copy started writing: *off_out when given (the fd's position
 * does not move then), else the same on the output file. */
static __always_inline __u64 copy_pos2(const struct inflight *e, long ret)
{
	return e->ptr2_ok ? e->pos2 : pos_of(e->file2, e->pos2, ret);
}

struct iov_sum {
	const struct iovec *iov;
	__u64 sum;
};

static long iov_add(__u64 i, void *ctx)
{
	struct iov_sum *s = ctx;
	__u64 len = 0;

	bpf_probe_read_user(&len, sizeof(len), &s->iov[i].iov_len);
	s->sum += len;
	return 0;
}

/* Bytes asked by a vectored call: the sum of its iovecs' lengths (as many
 * as the kernel accepts, UIO_MAXIOV). */
static __always_inline __u64 iov_total(const struct inflight *e, __s8 vec_arg,
				       __u64 cnt)
{
	struct iov_sum s = { (const struct iovec *)arg(e, vec_arg), 0 };

	bpf_loop(cnt < REC_MAX_IOV ? cnt : REC_MAX_IOV, iov_add, &s, 0);
	return s.sum;
}

/* The file a call returned as fd (open, dup, an io_uring open): its id,
 * size, mode and file system in the event, and tracked from now on.  The
 * file system's magic is read here, at open, and not for the reads and
 * writes: user space writes a file's row when it first sees the file,
 * which is at its open for every file opened while recording; reading it
 * here is exact (the file the fd was installed with, not what the fd
 * names by the time user space could statfs /proc/PID/fd/N) and costs a
 * load per open, none per read or write. */
static __always_inline void new_file(struct rec_syscall *ev, long fd)
{
	__u64 f = fd_file(fd);

	if (f) {
		struct inode *in = as_file(f)->f_inode;

		file_id(f, &ev->ndev, &ev->nino);
		ev->nsize = in->i_size;
		ev->nmode = in->i_mode;
		ev->nfstype = in->i_sb->s_magic;
		track_file(ev->ndev, ev->nino);
	}
}

static __always_inline void fill_syscall(struct rec_syscall *ev,
					 struct inflight *e,
					 const struct rec_spec *sp, __u64 id,
					 long ret)
{
	ev->h.type = REC_EV_SYSCALL;
	ev->h.len = sizeof(*ev);
	ev->h.ts = e->ts;
	ev->h.pid = id >> 32;
	ev->h.tid = (__u32)id;
	ev->dur = bpf_ktime_get_ns() - e->ts;
	ev->op = sp->op;
	ev->fd = sp->fd_arg < 0 ? -1 :
		 (sp->sflags & REC_SF_POLLFD) ? (__s32)e->args[6] : (__s32)arg(e, sp->fd_arg);
	ev->fd2 = sp->fd2_arg >= 0 ? (__s32)arg(e, sp->fd2_arg) : -1;
	ev->path_len = ev->path2_len = 0;
	ev->ret = ret;
	ev->dev = e->dev;
	ev->ino = e->ino;
	ev->ndev = ev->nino = ev->nsize = 0;
	ev->nmode = 0;
	ev->nfstype = 0;

	ev->size = 0;
	if (sp->size_arg >= 0) {
		ev->size = arg(e, sp->size_arg);
		if (sp->sflags & REC_SF_VEC)
			ev->size = iov_total(e, 1, ev->size);
	}

	ev->flags = sp->flags_const;
	if (sp->flags_arg >= 0)
		ev->flags |= arg(e, sp->flags_arg);
	if (sp->sflags & REC_SF_FLAGS_2_3)
		ev->flags = (e->args[2] & 0xffffffff) | (e->args[3] << 32);
	if (sp->sflags & REC_SF_OPENAT2) {
		__u64 fl = 0;
		bpf_probe_read_user(&fl, sizeof(fl), (void *)e->args[2]);
		ev->flags = fl;
	}

	switch (sp->off_kind) {
	case REC_OFF_POS:
		ev->offset = pos_start(e, ret);
		break;
	case REC_OFF_ARG:
	case REC_OFF_ADDR:
		ev->offset = arg(e, sp->off_arg);
		break;
	case REC_OFF_ARG_OR_POS:
		ev->offset = arg(e, sp->off_arg);
		if ((__s64)ev->offset == -1)
			ev->offset = pos_start(e, ret);
		break;
	case REC_OFF_PTR:
		ev->offset = e->ptr_ok ? e->pos : pos_start(e, ret);
		break;
	default:
		ev->offset = 0;
	}

	if ((sp->sflags & REC_SF_NEWFD) && ret >= 0)
		new_file(ev, ret);
	else if (sp->sflags & REC_SF_COPY) {
		ev->dev2 = e->dev2;
		ev->ino2 = e->ino2;
		ev->off2 = copy_pos2(e, ret);
	}
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	__u64 id;
	__u32 zero = 0, nr, len1 = 0, len2 = 0, size;
	struct inflight *e;
	struct rec_spec *sp;
	struct scratch *s;
	struct rec_syscall *ev;
	struct task_struct *t;
	long n;

	/* Most syscalls have no spec: filter on the number (still in the
	 * registers at exit) before asking for the task's storage. */
	nr = SC_NR(regs);
	sp = bpf_map_lookup_elem(&specs, &nr);
	if (!sp || !sp->op)
		return 0;
	t = bpf_get_current_task_btf();
	if (!traced_bit(t->tgid))	/* untraced: no storage call */
		return 0;
	e = bpf_task_storage_get(&inflight, t, 0, 0);
	if (!e || !e->active)
		return 0;
	e->active = 0;
	if (e->nr != nr) {
		/* the number changed under us (a ptracer): trust the entry */
		nr = e->nr;
		sp = bpf_map_lookup_elem(&specs, &nr);
		if (!sp)
			return 0;
	}
	id = (__u64)t->tgid << 32 | (__u32)t->pid;

	if (sp->path_arg < 0 && e->acc_pending) {
		/* a buffered read: the syscall and its cache access */
		struct rec_syscall_access *ea;

		e->acc_pending = 0;
		ea = bpf_ringbuf_reserve(&rb, sizeof(*ea), 0);
		if (!ea) {
			count_lost(sp->layer);
			count_lost(REC_L_CACHE);
			return 0;
		}
		fill_syscall(&ea->sc, e, sp, id, ret);
		ea->sc.h.type = REC_EV_SYSCALL_ACCESS;
		ea->sc.h.len = sizeof(*ea);
		ea->acc = e->acc;
		bpf_ringbuf_submit(ea, rb_flags());
		return 0;
	}
	if (sp->path_arg < 0) {
		/* common case: fixed size, built in place in the ring */
		ev = bpf_ringbuf_reserve(&rb, sizeof(*ev), 0);
		if (!ev) {
			count_lost(sp->layer);
			return 0;
		}
		fill_syscall(ev, e, sp, id, ret);
		bpf_ringbuf_submit(ev, rb_flags());
		return 0;
	}
	access_flush(e, id);

	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	ev = &s->ev;
	fill_syscall(ev, e, sp, id, ret);
	/* Paths are read at exit: the kernel has just copied them, so the
	 * pages are resident and bpf_probe_read_user_str cannot miss them. */
	n = bpf_probe_read_user_str(s->paths, REC_PATH_MAX,
				    (void *)arg(e, sp->path_arg));
	len1 = n > 0 ? n : 0;
	if (sp->path2_arg >= 0) {
		__u32 off = len1;

		if (off > REC_PATH_MAX)
			off = REC_PATH_MAX;
		n = bpf_probe_read_user_str(s->paths + off, REC_PATH_MAX,
					    (void *)arg(e, sp->path2_arg));
		len2 = n > 0 ? n : 0;
	}
	ev->path_len = len1;
	ev->path2_len = len2;
	size = sizeof(*ev) + len1 + len2;
	if (size > sizeof(*s))
		size = sizeof(*s);
	ev->h.len = size;
	if (bpf_ringbuf_output(&rb, ev, size, rb_flags()))
		count_lost(sp->layer);
	return 0;
}

/* ------------------------------------------------------------ processes */

SEC("tp_btf/sched_process_fork")
int BPF_PROG(proc_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct rec_fork *ev;

	if (!is_traced(ptgid))
		return 0;
	if (ctgid != ptgid)
		traced_set(ctgid);
	ev = bpf_ringbuf_reserve(&rb, sizeof(*ev), 0);
	if (!ev) {
		count_lost(REC_L_PROC);
		return 0;
	}
	ev->h.type = REC_EV_FORK;
	ev->h.len = sizeof(*ev);
	ev->h.ts = bpf_ktime_get_ns();
	ev->h.pid = ptgid;
	ev->h.tid = parent->pid;
	ev->child_pid = ctgid;
	ev->child_tid = child->pid;
	ev->flags = ctgid == ptgid ? REC_FORK_THREAD : 0;
	ev->_pad = 0;
	bpf_probe_read_kernel_str(ev->comm, sizeof(ev->comm), child->comm);
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

struct exec_scratch {
	struct rec_exec ev;
	char argv[2 * REC_ARGV_MAX];	/* 2x: room for the masked size below */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exec_scratch);
} exec_scratch SEC(".maps");

SEC("tp_btf/sched_process_exec")
int BPF_PROG(proc_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 zero = 0, len, size;
	struct exec_scratch *s;
	unsigned long start, end;

	if (!is_traced(p->tgid))
		return 0;
	s = bpf_map_lookup_elem(&exec_scratch, &zero);
	if (!s)
		return 0;
	s->ev.h.type = REC_EV_EXEC;
	s->ev.h.ts = bpf_ktime_get_ns();
	s->ev.h.pid = p->tgid;
	s->ev.h.tid = p->pid;
	s->ev.old_tid = old_pid;
	bpf_get_current_comm(s->ev.comm, sizeof(s->ev.comm));
	/* The new image's argv is on the new stack, current->mm is the new mm. */
	start = BPF_CORE_READ(p, mm, arg_start);
	end = BPF_CORE_READ(p, mm, arg_end);
	len = end > start ? end - start : 0;
	if (len > REC_ARGV_MAX - 1)
		len = REC_ARGV_MAX - 1;
	/* keep clang from folding the mask the verifier needs to see */
	asm volatile("" : "+r"(len));
	len &= REC_ARGV_MAX - 1;
	if (len > 0 && bpf_probe_read_user(s->argv, len, (void *)start))
		len = 0;
	s->ev.argv_len = len;
	size = sizeof(s->ev) + len;
	if (size > sizeof(*s))
		size = sizeof(*s);
	s->ev.h.len = size;
	if (bpf_ringbuf_output(&rb, s, size & (2 * REC_ARGV_MAX - 1), 0))
		count_lost(REC_L_PROC);
	return 0;
}

/* A thread's total on-CPU time when it exits: a wait row of kind none,
 * dur 0 (the waits only carry it up to their start). */
static __always_inline void exit_cpu(struct task_struct *p)
{
	struct rec_wait *ev = bpf_ringbuf_reserve(&rb, sizeof(*ev), 0);

	if (!ev) {
		count_lost(REC_L_SCHED);
		return;
	}
	ev->h.type = REC_EV_WAIT;
	ev->h.len = sizeof(*ev);
	ev->h.ts = bpf_ktime_get_ns();
	ev->h.pid = p->tgid;
	ev->h.tid = p->pid;
	ev->dur = ev->run = 0;
	ev->cpu = p->se.sum_exec_runtime;
	ev->waker_pid = ev->waker_tid = 0;
	ev->kind = REC_WAKE_NONE;
	ev->sysnr = -1;
	bpf_ringbuf_submit(ev, rb_flags());
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(proc_exit, struct task_struct *p, bool group_dead)
{
	__u32 tgid = p->tgid, tid = p->pid;
	struct rec_exit *ev;

	if (!is_traced(tgid))
		return 0;
	ev = bpf_ringbuf_reserve(&rb, sizeof(*ev), 0);
	if (ev) {
		ev->h.type = REC_EV_EXIT;
		ev->h.len = sizeof(*ev);
		ev->h.ts = bpf_ktime_get_ns();
		ev->h.pid = tgid;
		ev->h.tid = tid;
		ev->exit_code = p->exit_code;
		ev->group_dead = group_dead;
		bpf_probe_read_kernel_str(ev->comm, sizeof(ev->comm), p->comm);
		bpf_ringbuf_submit(ev, 0);
	} else {
		count_lost(REC_L_PROC);
	}
	if (layers & REC_LAYER_BIT(REC_L_SCHED))
		exit_cpu(p);
	if (group_dead)
		traced_clear(tgid);
	return 0;
}

/* ----------------------------------------------------------- page cache */

/* Is the current task traced?  A bit test, no helper call. */
static __always_inline int traced_now(void)
{
	return is_traced(bpf_get_current_task_btf()->tgid);
}


/* The (dev, inode) the filemap tracepoints print for a mapping: i_rdev
 * when the inode has no superblock (include/trace/events/filemap.h). */
static __always_inline void mapping_id(struct address_space *m, __u64 *dev, __u64 *ino)
{
	struct inode *h = untrusted(m)->host;
	struct super_block *sb = h->i_sb;

	*ino = h->i_ino;
	*dev = sb ? sb->s_dev : h->i_rdev;
}

static __always_inline __u64 current_id(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return (__u64)t->tgid << 32 | (__u32)t->pid;
}

/* Buffered read touched index..last_index (1 = TAPE_CACHE_ACCESS).  The
 * mapping programs are tp_btf, not tracepoint/filemap/...: a perf
 * tracepoint fills its record (and a perf buffer) before the program
 * runs, ~100 ns per buffered read that the program's own time hides. */
SEC("tp_btf/mm_filemap_get_pages")
int BPF_PROG(cache_get_pages, struct address_space *mapping, unsigned long index,
	     unsigned long last_index)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 dev, ino, id;
	struct inflight *e;

	/* no track_file here: files are tracked when opened, and this runs
	 * for every buffered read */
	if (!is_traced(t->tgid))
		return 0;
	mapping_id(mapping, &dev, &ino);
	id = (__u64)t->tgid << 32 | (__u32)t->pid;
	e = bpf_task_storage_get(&inflight, t, 0, 0);
	if (e && e->active) {
		/* inside a recorded syscall: goes out with it (see
		 * access_flush); a second batch sends the first one */
		access_flush(e, id);
		/* the call's entry time: a clock read costs ~60 ns on a VM,
		 * a tenth of a cached 4 KiB read, and the access happens
		 * inside the call anyway */
		e->acc.ts = e->ts;
		e->acc.dev = dev;
		e->acc.ino = ino;
		e->acc.index = index;
		e->acc.count = last_index - index + 1;
		e->acc_pending = 1;
		return 0;
	}
	cache_event(REC_L_CACHE, 1, dev, ino, index, last_index - index + 1, id);
	return 0;
}

/* A folio inserted: a miss, 1 << order pages (2 = TAPE_CACHE_INSERT).
 * tp_btf like the others: a perf tracepoint's link takes 50-100 ms to
 * close (an RCU grace period), at the end of every recording. */
SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(cache_add, struct folio *folio)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 id = (__u64)t->tgid << 32 | (__u32)t->pid, dev, ino;

	mapping_id(untrusted(folio)->mapping, &dev, &ino);
	if (is_traced(t->tgid))
		access_flush_task(t);
	else if (!tracked_file(dev, ino))
		return 0;
	cache_event(REC_L_CACHE, 2, dev, ino, folio->index,
		    1ull << (folio_order_of(folio) & 63), id);
	return 0;
}

/* Eviction runs in reclaim/truncate context: filter on the file only. */
SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(cache_delete, struct folio *folio)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 dev, ino;

	mapping_id(untrusted(folio)->mapping, &dev, &ino);
	if (!tracked_file(dev, ino))
		return 0;
	if (traced_bit(t->tgid))	/* reclaim or truncate in a traced task */
		access_flush_task(t);
	cache_event(REC_L_CACHE, 3, dev, ino, folio->index,
		    1ull << (folio_order_of(folio) & 63),
		    (__u64)t->tgid << 32 | (__u32)t->pid);
	return 0;
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(cache_fault, struct address_space *mapping, unsigned long index)
{
	__u64 dev, ino;

	if (!traced_now())
		return 0;
	access_flush_task(bpf_get_current_task_btf());
	mapping_id(mapping, &dev, &ino);
	track_file(dev, ino);
	cache_event(REC_L_MMAP, 4, dev, ino, index, 1, current_id());
	return 0;
}

SEC("tp_btf/mm_filemap_map_pages")
int BPF_PROG(cache_map_pages, struct address_space *mapping, unsigned long index,
	     unsigned long last_index)
{
	__u64 dev, ino;

	if (!traced_now())
		return 0;
	access_flush_task(bpf_get_current_task_btf());
	mapping_id(mapping, &dev, &ino);
	track_file(dev, ino);
	cache_event(REC_L_MMAP, 5, dev, ino, index, last_index - index + 1,
		    current_id());
	return 0;
}

/* ---------------------------------------------------------------- block */

SEC("tp_btf/block_bio_queue")
int BPF_PROG(blk_bio_queue, struct bio *bio)
{
	__u64 id = bpf_get_current_pid_tgid(), key = (__u64)bio;
	struct bio_owner o;

	if (!is_traced(id >> 32))
		return 0;
	o.pid_tgid = id;
	o.sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
	o.ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&bioowner, &key, &o, BPF_ANY);
	return 0;
}

/* Inode of the request's first page, 0 for anonymous/user pages (O_DIRECT)
 * and for requests without data. */
static __always_inline __u64 rq_inode(struct request *rq)
{
	struct bio *bio = BPF_CORE_READ(rq, bio);
	struct page *pg;
	struct address_space *m;

	if (!bio)
		return 0;
	pg = BPF_CORE_READ(bio, bi_io_vec, bv_page);
	if (!pg)
		return 0;
	m = BPF_CORE_READ(pg, mapping);
	if (!m || ((unsigned long)m & 3)) /* PAGE_MAPPING_ANON / MOVABLE */
		return 0;
	/* metadata read through the block device's own page cache */
	if ((BPF_CORE_READ(m, host, i_mode) & 0170000) == 0060000) /* S_ISBLK */
		return 0;
	return BPF_CORE_READ(m, host, i_ino);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(blk_issue, struct request *rq)
{
	__u64 id = bpf_get_current_pid_tgid(), key = (__u64)rq, bkey;
	struct blk_start st = {};
	struct bio_owner *owner = NULL;
	struct bio *bio;

	if (!is_traced(id >> 32)) {
		bio = BPF_CORE_READ(rq, bio);
		bkey = (__u64)bio;
		if (bio)
			owner = bpf_map_lookup_elem(&bioowner, &bkey);
		if (owner && (owner->sector != BPF_CORE_READ(rq, __sector) ||
			      bpf_ktime_get_ns() - owner->ts > 10000000000ull))
			owner = NULL;	/* a reused struct bio */
		if (owner) {
			id = owner->pid_tgid;
			bpf_map_delete_elem(&bioowner, &bkey);
		} else {
			__u64 ino = rq_inode(rq);
			__u64 dev = BPF_CORE_READ(rq, bio, bi_bdev, bd_dev);
			/* writeback and other contexts: a tracked file's
			 * pages.  The bio's bdev is the partition, whose dev
			 * is the filesystem's s_dev (the event's dev below is
			 * the whole disk, as in block:block_rq_issue). */
			if (!ino || !tracked_file(dev, ino))
				return 0;
			id = 0;
		}
	}
	st.ts = bpf_ktime_get_ns();
	st.pid = id >> 32;
	st.tid = (__u32)id;
	st.ino = rq_inode(rq);
	st.dev = BPF_CORE_READ(rq, q, disk, part0, bd_dev);
	st.sector = BPF_CORE_READ(rq, __sector);
	st.bytes = BPF_CORE_READ(rq, __data_len);
	bpf_map_update_elem(&blkreq, &key, &st, BPF_ANY);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(blk_complete, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	__u64 key = (__u64)rq;
	struct blk_start *st = bpf_map_lookup_elem(&blkreq, &key);
	struct rec_block *ev;
	__u32 opf, op, fl = 0;

	if (!st)
		return 0;
	ev = bpf_ringbuf_reserve(&rb, sizeof(*ev), 0);
	if (!ev) {
		count_lost(REC_L_BLOCK);
		goto out;
	}
	opf = BPF_CORE_READ(rq, cmd_flags);
	op = opf & 0xff; /* REQ_OP_MASK: REQ_OP_BITS = 8 */
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_READ))
		fl |= REC_BLK_READ;
	else if (op == bpf_core_enum_value(enum req_op, REQ_OP_WRITE))
		fl |= REC_BLK_WRITE;
	else if (op == bpf_core_enum_value(enum req_op, REQ_OP_FLUSH))
		fl |= REC_BLK_FLUSH;
	else if (op == bpf_core_enum_value(enum req_op, REQ_OP_DISCARD))
		fl |= REC_BLK_DISCARD;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		fl |= REC_BLK_SYNC;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		fl |= REC_BLK_META;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		fl |= REC_BLK_FUA;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))
		fl |= REC_BLK_FLUSH;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD)))
		fl |= REC_BLK_RAHEAD;

	ev->h.type = REC_EV_BLOCK;
	ev->h.len = sizeof(*ev);
	ev->h.ts = st->ts;
	ev->h.pid = st->pid;
	ev->h.tid = st->tid;
	ev->dur = bpf_ktime_get_ns() - st->ts;
	ev->dev = st->dev;
	ev->sector = st->sector;
	ev->bytes = st->bytes;	/* as issued; nr_bytes may be partial */
	ev->flags = fl;
	ev->cmd_flags = opf;
	ev->ino = st->ino;
	ev->error = error;
	ev->_pad = 0;
	bpf_ringbuf_submit(ev, rb_flags());
out:
	bpf_map_delete_elem(&blkreq, &key);
	return 0;
}

/* ------------------------------------------------------------- io_uring */

/* An operation submitted through a ring, from submit to completion.  The
 * opcodes are io_uring UAPI (stable); op codes are enum tape_op. */
struct uring_start {
	__u64 ts;
	__u64 pid_tgid;
	__u64 off;
	__u64 len;
	__u64 dev;
	__u64 ino;
	__u64 flags;	/* an open's open_how.flags */
	__s32 fd;	/* the fd, or the dirfd of an open */
	__u32 op;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);	/* struct io_kiocb * */
	__type(value, struct uring_start);
} uring_req SEC(".maps");

/* Path of an open in flight (read at submit: the kernel frees its copy
 * before the completion). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);	/* struct io_kiocb * */
	__type(value, char[REC_PATH_MAX]);
} uring_path SEC(".maps");

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(uring_submit, struct io_kiocb *req)
{
	struct uring_start st = {};
	__u64 key = (__u64)req, f;
	__u32 zero = 0;
	__u8 opc = req->opcode;
	int rw = 0;

	if (!traced_now())
		return 0;
	switch (opc) {
	case 1: case 4: case 22:	/* READV, READ_FIXED, READ */
		st.op = 50; rw = 1; break;	/* TAPE_OP_URING_READ */
	case 2: case 5: case 23:	/* WRITEV, WRITE_FIXED, WRITE */
		st.op = 51; rw = 1; break;	/* TAPE_OP_URING_WRITE */
	case 3:				/* FSYNC */
		st.op = 52; break;
	case 18: case 28:		/* OPENAT, OPENAT2 */
		st.op = 53; break;
	case 19:			/* CLOSE */
		st.op = 54; break;
	case 0:				/* NOP */
		return 0;
	default:
		st.op = 55;		/* TAPE_OP_URING_OTHER */
	}
	st.ts = bpf_ktime_get_ns();
	st.pid_tgid = bpf_get_current_pid_tgid();
	st.fd = req->cqe.fd;
	if (opc == 19) {
		/* a close takes its fd from the sqe into struct io_close,
		 * not into req->cqe.fd (which reads 0: stdin) */
		struct io_close *cl = bpf_rdonly_cast(&req->cmd,
						      bpf_core_type_id_kernel(struct io_close));

		st.fd = cl->fd;
	} else if (st.op == 53) {
		/* openat/openat2: the dirfd and the path (getname()'d by prep) */
		struct io_open *op = bpf_rdonly_cast(&req->cmd,
						     bpf_core_type_id_kernel(struct io_open));
		struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
		struct filename *fn = op->filename;

		st.fd = op->dfd;
		st.flags = op->how.flags;
		if (s && fn && bpf_probe_read_kernel_str(s->paths, REC_PATH_MAX, fn->name) > 0)
			bpf_map_update_elem(&uring_path, &key, s->paths, BPF_ANY);
	}
	if (rw) {
		/* prep (io_prep_rw) ran before this tracepoint */
		struct io_rw *r = bpf_rdonly_cast(&req->cmd, bpf_core_type_id_kernel(struct io_rw));

		st.off = r->kiocb.ki_pos;
		st.len = r->len;
	}
	/* the file, or for an open the directory its path is relative to */
	if (!(req->flags & 1 /* REQ_F_FIXED_FILE */) && st.fd >= 0) {
		f = fd_file(st.fd);
		if (f)
			file_id(f, &st.dev, &st.ino);
	}
	bpf_map_update_elem(&uring_req, &key, &st, BPF_ANY);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(uring_complete, struct io_ring_ctx *rctx, void *req,
	     struct io_uring_cqe *cqe)
{
	__u64 key = (__u64)req;
	struct uring_start *st = bpf_map_lookup_elem(&uring_req, &key);
	struct scratch *s = NULL;
	struct rec_syscall *ev;
	char *pv = NULL;
	__u32 zero = 0;

	if (!st)
		return 0;
	if (st->op == 53 && (pv = bpf_map_lookup_elem(&uring_path, &key)))
		s = bpf_map_lookup_elem(&scratch, &zero);
	ev = s ? &s->ev : bpf_ringbuf_reserve(&rb, sizeof(*ev), 0);
	if (!ev) {
		count_lost(REC_L_SYSCALL);
		goto out;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->h.type = REC_EV_SYSCALL;
	ev->h.len = sizeof(*ev);
	ev->h.ts = st->ts;
	ev->h.pid = st->pid_tgid >> 32;
	ev->h.tid = (__u32)st->pid_tgid;
	ev->dur = bpf_ktime_get_ns() - st->ts;
	ev->op = st->op;
	ev->fd = st->fd;
	ev->fd2 = -1;
	ev->offset = st->off;
	ev->size = st->len;
	ev->ret = cqe->res;
	ev->flags = st->flags;
	ev->dev = st->dev;
	ev->ino = st->ino;
	if (st->op == 53 && cqe->res >= 0) {
		/* the file an open returned, as sys_exit does for open(2):
		 * the fd is installed before the completion, and the ring's
		 * workers share the submitter's fd table */
		new_file(ev, cqe->res);
	}
	if (s) {
		long n = bpf_probe_read_kernel_str(s->paths, REC_PATH_MAX, pv);
		__u32 size;

		ev->path_len = n > 0 ? n : 0;
		size = sizeof(*ev) + ev->path_len;
		if (size > sizeof(*s))
			size = sizeof(*s);
		ev->h.len = size;
		if (bpf_ringbuf_output(&rb, ev, size, rb_flags()))
			count_lost(REC_L_SYSCALL);
		bpf_map_delete_elem(&uring_path, &key);
	} else {
		bpf_ringbuf_submit(ev, rb_flags());
	}
out:
	bpf_map_delete_elem(&uring_req, &key);
	return 0;
}

/* --------------------------------------------------------------- waits */

/*
 * What a traced thread waits for between its calls (REC_L_SCHED): when it
 * goes off the CPU to block (sched_switch, not preempted), what woke it
 * (sched_waking, in the waker's context) and when it ran again
 * (sched_switch), one struct rec_wait per wait of wait_min_ns or more.
 * Untraced tasks pay one bit test per switch and per wakeup.  The
 * thread's on-CPU time is the scheduler's own sum (se.sum_exec_runtime,
 * brought up to date for prev before the tracepoint fires).
 */
#define REC_PF_KTHREAD 0x00200000	/* include/linux/sched.h */

/*
 * Whether this CPU is in an interrupt (a device's handler, a softirq, a
 * timer's callback): a wakeup there was made by a timer or a device, not by
 * the task that happens to be current.  The kernel's preempt count would
 * say so, but on x86 it is a per-CPU variable that a BPF program can only
 * reach through kallsyms, which our kernels do not list; so the interrupt
 * tracepoints keep a depth per CPU.  hrtimer callbacks (nanosleep, the
 * timeouts of poll, epoll, select and futex) run in hard interrupts that
 * irq_handler_entry does not see, hence their own pair.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} irq_depth SEC(".maps");

static __always_inline int irq_enter(void)
{
	__u32 zero = 0, *d = bpf_map_lookup_elem(&irq_depth, &zero);

	if (d)
		++*d;
	return 0;
}

static __always_inline int irq_leave(void)
{
	__u32 zero = 0, *d = bpf_map_lookup_elem(&irq_depth, &zero);

	if (d && *d)	/* attached inside one: its exit comes first */
		--*d;
	return 0;
}

static __always_inline int in_irq_context(void)
{
	__u32 zero = 0, *d = bpf_map_lookup_elem(&irq_depth, &zero);

	return d && *d;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(irq_entry) { return irq_enter(); }
SEC("tp_btf/irq_handler_exit")
int BPF_PROG(irq_exit) { return irq_leave(); }
SEC("tp_btf/softirq_entry")
int BPF_PROG(softirq_entry) { return irq_enter(); }
SEC("tp_btf/softirq_exit")
int BPF_PROG(softirq_exit) { return irq_leave(); }
SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(hrtimer_entry) { return irq_enter(); }
SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(hrtimer_exit) { return irq_leave(); }
#define REC_TASK_BLOCKED 0x3		/* TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE */

struct rec_sched_state {
	__u64 block_ts;		/* went off the CPU to block; 0: not blocked */
	__u64 cpu;		/* se.sum_exec_runtime then */
	__u64 wake_ts;		/* 0: not woken yet */
	__u32 waker_pid;
	__u32 waker_tid;
	__u32 kind;
	__s32 sysnr;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rec_sched_state);
} sched_st SEC(".maps");

static __always_inline void wait_send(struct task_struct *t, struct rec_sched_state *s, __u64 now)
{
	struct rec_wait *ev = bpf_ringbuf_reserve(&rb, sizeof(*ev), 0);

	if (!ev) {
		count_lost(REC_L_SCHED);
		return;
	}
	ev->h.type = REC_EV_WAIT;
	ev->h.len = sizeof(*ev);
	ev->h.ts = s->block_ts;
	ev->h.pid = t->tgid;
	ev->h.tid = t->pid;
	ev->dur = s->wake_ts - s->block_ts;
	ev->run = now - s->wake_ts;
	ev->cpu = s->cpu;
	ev->waker_pid = s->waker_pid;
	ev->waker_tid = s->waker_tid;
	ev->kind = s->kind;
	ev->sysnr = s->sysnr;
	bpf_ringbuf_submit(ev, rb_flags());
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	struct rec_sched_state *s;
	__u64 now = 0;

	if (!preempt && (prev_state & REC_TASK_BLOCKED) && traced_bit(prev->tgid)) {
		s = bpf_task_storage_get(&sched_st, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (s) {
			now = bpf_ktime_get_ns();
			s->block_ts = now;
			s->wake_ts = 0;
			s->cpu = prev->se.sum_exec_runtime;
			s->sysnr = task_sysnr(prev);
			s->kind = REC_WAKE_NONE;
			s->waker_pid = s->waker_tid = 0;
		} else {
			count_lost(REC_L_SCHED);
		}
	}
	if (traced_bit(next->tgid)) {
		s = bpf_task_storage_get(&sched_st, next, 0, 0);
		if (s && s->block_ts) {
			if (!now)
				now = bpf_ktime_get_ns();
			if (s->wake_ts && s->wake_ts - s->block_ts >= wait_min_ns)
				wait_send(next, s, now);
			s->block_ts = 0;
		}
	}
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(sched_waking, struct task_struct *p)
{
	struct rec_sched_state *s;
	struct task_struct *cur;

	if (!traced_bit(p->tgid))
		return 0;
	s = bpf_task_storage_get(&sched_st, p, 0, 0);
	if (!s || !s->block_ts || s->wake_ts)
		return 0;
	s->wake_ts = bpf_ktime_get_ns();
	if (in_irq_context()) {
		s->kind = REC_WAKE_IRQ;
		return 0;
	}
	cur = bpf_get_current_task_btf();
	s->waker_pid = cur->tgid;
	s->waker_tid = cur->pid;
	if (!cur->pid)			/* the idle task */
		s->kind = REC_WAKE_IRQ;
	else if (cur->flags & REC_PF_KTHREAD)
		s->kind = REC_WAKE_KTHREAD;
	else
		s->kind = traced_bit(cur->tgid) ? REC_WAKE_JOB : REC_WAKE_OTHER;
	if (s->kind == REC_WAKE_IRQ)
		s->waker_pid = s->waker_tid = 0;
	return 0;
}
