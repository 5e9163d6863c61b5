/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.bpf.h - architecture and kernel-version helpers for record.bpf.c.
 *
 * Syscall arguments (and, at sys_exit, the number) from the raw
 * tracepoints' pt_regs (the user registers of the syscall).  libbpf 1.1 (Debian 12) has no
 * PT_REGS_PARM6_SYSCALL, so the x86-64 and arm64 registers are named here.
 */
#ifndef IOTAPE_RECORD_BPF_H
#define IOTAPE_RECORD_BPF_H

#if defined(__TARGET_ARCH_x86)
#define SC_ARG0(r) ((r)->di)
#define SC_ARG1(r) ((r)->si)
#define SC_ARG2(r) ((r)->dx)
#define SC_ARG3(r) ((r)->r10)
#define SC_ARG4(r) ((r)->r8)
#define SC_ARG5(r) ((r)->r9)
#define SC_NR(r) ((r)->orig_ax)
#elif defined(__TARGET_ARCH_arm64)
#define SC_ARG0(r) ((r)->orig_x0)
#define SC_ARG1(r) ((r)->regs[1])
#define SC_ARG2(r) ((r)->regs[2])
#define SC_ARG3(r) ((r)->regs[3])
#define SC_ARG4(r) ((r)->regs[4])
#define SC_ARG5(r) ((r)->regs[5])
#define SC_NR(r) ((r)->syscallno)
#else
#error "record.bpf.h: add this architecture's syscall argument registers"
/*
 * The syscall task t (current, going off the CPU) is in, -1 when none.
 */
#if defined(__TARGET_ARCH_x86)
/* entry_SYSCALL_64 stores -ENOSYS as pt_regs->ax until the call returns,
 * and an exception (a page fault) keeps its error code in orig_ax, so both
 * are tested. */
static __always_inline int task_sysnr(struct task_struct *t)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(t);
	long nr, ax;

	if (!r)
		return -1;
	nr = BPF_CORE_READ(r, orig_ax);
	ax = BPF_CORE_READ(r, ax);
	return nr >= 0 && ax == -38 /* -ENOSYS */ ? (int)nr : -1;
}
#elif defined(__TARGET_ARCH_arm64)
static __always_inline int task_sysnr(struct task_struct *t)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(t);

	return r ? (int)BPF_CORE_READ(r, syscallno) : -1;
}
#endif

#endif

/*
 * Direct (BTF) loads instead of bpf_probe_read_kernel: a helper call costs
 * 30-50 ns, a BTF load a few.  Pointers that come out of plain memory (the
 * fd array, our maps) are turned back into BTF pointers with the
 * bpf_rdonly_cast kfunc (kernel 6.2+); loads through them are fault-safe.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
#define as_file(p) ((struct file *)bpf_rdonly_cast((void *)(p), \
					bpf_core_type_id_kernel(struct file)))

/*
 * The same cast of a pointer the verifier trusts (a tracepoint argument,
 * bpf_get_current_task_btf()), to walk the pointers inside it.  Loading a
 * pointer member through a trusted pointer makes the verifier look up
 * "<type>__safe_trusted" and three similar names in the kernel's BTF, each
 * a linear search of ~150k types on 6.18, at every visit of the load: that
 * was two thirds of the programs' load time (~20 ms of every recording's
 * start).  The loads themselves are the same fault-safe loads either way.
 * Keep the trusted pointer for what needs it (bpf_task_storage_get).
 */
#define untrusted(p) ((typeof(p))bpf_rdonly_cast((void *)(p), \
					bpf_core_type_id_kernel(typeof(*(p)))))

/*
 * folio_order() as the filemap tracepoints print it: 0 unless the folio is
 * large (PG_head in flags), else the low byte of _flags_1 (6.3+; before
 * that the order was elsewhere and a large folio reads as order 0).  flags
 * is read with bpf_core_read: an unsigned long up to 6.17, a
 * memdesc_flags_t (one unsigned long) since, at offset 0 in both.
 */
static __always_inline unsigned int folio_order_of(struct folio *folio)
{
	unsigned long fl = 0;

	bpf_core_read(&fl, sizeof(fl), &folio->flags);
	if (!(fl & (1ul << bpf_core_enum_value(enum pageflags, PG_head))))
		return 0;
	if (bpf_core_field_exists(folio->_flags_1))
		return BPF_CORE_READ(folio, _flags_1) & 0xff;
	return 0;
}

/*
 * The syscall task t (current, going off the CPU) is in, -1 when none.
 */
#if defined(__TARGET_ARCH_x86)
/* entry_SYSCALL_64 stores -ENOSYS as pt_regs->ax until the call returns,
 * and an exception (a page fault) keeps its error code in orig_ax, so both
 * are tested. */
static __always_inline int task_sysnr(struct task_struct *t)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(t);
	long nr, ax;

	if (!r)
		return -1;
	nr = BPF_CORE_READ(r, orig_ax);
	ax = BPF_CORE_READ(r, ax);
	return nr >= 0 && ax == -38 /* -ENOSYS */ ? (int)nr : -1;
}
#elif defined(__TARGET_ARCH_arm64)
static __always_inline int task_sysnr(struct task_struct *t)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(t);

	return r ? (int)BPF_CORE_READ(r, syscallno) : -1;
}
#endif

#endif
