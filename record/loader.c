/* SPDX-License-Identifier: MIT */
/*
 * loader.c - open, configure, load and attach the recorder's BPF object.
 *
 * A program whose tracepoint the running kernel lacks is not loaded
 * (bpf_program__set_autoload(prog, false)) and we say so once; so is a
 * program whose layer was not selected with -e.  Which syscalls are
 * recorded is data (the specs map), not a set of attachments.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "rec.h"
#include "loader.h"
#include "record.skel.h"
#include "tape_vec.h"

static const char *tracefs_root(void)
{
	static const char *roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct stat sb;
	char p[128];

	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/events", roots[i]);
		if (stat(p, &sb) == 0)
			return roots[i];
	}
	/* root can mount it; libbpf needs it to find tracepoint ids */
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		return roots[0];
	return NULL;
}

/* Tests: IOTAPE_PRETEND_MISSING=name[,name] makes tracepoints look absent. */
static int pretend_missing(const char *name)
{
	const char *l = getenv("IOTAPE_PRETEND_MISSING");
	size_t n = strlen(name);

	for (; l && *l; l += strcspn(l, ",") + (l[strcspn(l, ",")] == ',')) {
		if (strncmp(l, name, n) == 0 && (l[n] == ',' || l[n] == 0))
			return 1;
	}
	return 0;
}

/* Without tracefs (not mounted, cannot be): the raw tracepoint's BTF
 * type, from a vmlinux BTF parsed once on demand. */
static int btf_tp_exists(struct btf **vmlinux, const char *name)
{
	char t[128];

	if (!*vmlinux)
		*vmlinux = btf__load_vmlinux_btf();
	snprintf(t, sizeof(t), "btf_trace_%s", name);
	return *vmlinux && btf__find_by_name_kind(*vmlinux, t, BTF_KIND_TYPEDEF) > 0;
}

static int tp_exists(struct btf **vmlinux, const char *cat, const char *name)
{
	const char *root = tracefs_root();
	char p[256];

	if (pretend_missing(name))
		return 0;
	if (!root)
		return btf_tp_exists(vmlinux, name);
	snprintf(p, sizeof(p), "%s/events/%s/%s", root, cat, name);
	return access(p, F_OK) == 0;
}

/*
 * Every program is tp_btf (a perf-event tracepoint fills a record before
 * the program runs, and its link takes 50-100 ms to close).  Whether the
 * kernel has a tracepoint is asked of tracefs first, the vmlinux BTF
 * (btf_trace_<name>) only without it: all of ours are trace events, which
 * have both, and parsing the BTF a second time (libbpf parses it for
 * CO-RE) cost ~20 ms of every start.
 */
struct prog_def {
	const char *prog;	/* program name in record.bpf.c */
	const char *cat, *name;	/* events/<cat>/<name> in tracefs */
	int layer;		/* -1: always (process tracking), -2: syscall or mmap */
};

static const struct prog_def progs[] = {
	{ "sys_exit", "raw_syscalls", "sys_exit", -2 },	/* before sys_enter */
	{ "sys_enter", "raw_syscalls", "sys_enter", -2 },
	{ "proc_fork", "sched", "sched_process_fork", -1 },
	{ "proc_exec", "sched", "sched_process_exec", -1 },
	{ "proc_exit", "sched", "sched_process_exit", -1 },
	{ "cache_get_pages", "filemap", "mm_filemap_get_pages", REC_L_CACHE },
	{ "cache_add", "filemap", "mm_filemap_add_to_page_cache", REC_L_CACHE },
	{ "cache_delete", "filemap", "mm_filemap_delete_from_page_cache", REC_L_CACHE },
	{ "cache_fault", "filemap", "mm_filemap_fault", REC_L_MMAP },
	{ "cache_map_pages", "filemap", "mm_filemap_map_pages", REC_L_MMAP },
	{ "uring_submit", "io_uring", "io_uring_submit_req", REC_L_SYSCALL },
	{ "uring_complete", "io_uring", "io_uring_complete", REC_L_SYSCALL },
	{ "blk_bio_queue", "block", "block_bio_queue", REC_L_BLOCK },
	{ "blk_issue", "block", "block_rq_issue", REC_L_BLOCK },
	{ "blk_complete", "block", "block_rq_complete", REC_L_BLOCK },
	{ "sched_switch", "sched", "sched_switch", REC_L_SCHED },
	{ "sched_waking", "sched", "sched_waking", REC_L_SCHED },
	{ "irq_entry", "irq", "irq_handler_entry", REC_L_SCHED },
	{ "irq_exit", "irq", "irq_handler_exit", REC_L_SCHED },
	{ "softirq_entry", "irq", "softirq_entry", REC_L_SCHED },
	{ "softirq_exit", "irq", "softirq_exit", REC_L_SCHED },
	{ "hrtimer_entry", "timer", "hrtimer_expire_entry", REC_L_SCHED },
	{ "hrtimer_exit", "timer", "hrtimer_expire_exit", REC_L_SCHED },
};

static size_t pow2_pages(size_t bytes)
{
	size_t n = 4096;

	while (n < bytes)
		n <<= 1;
	return n;
}

static void *destroy_link(void *l)
{
	bpf_link__destroy(l);
	return NULL;
}

/*
 * Detaching a perf-event tracepoint program waits for an RCU (tasks trace)
 * grace period, 60-100 ms each on 6.18: one after the other that was 0.4 s
 * at the end of every recording.  Threads let the waits overlap.
 */
void rec_bpf_detach(struct rec_bpf *b)
{
	pthread_t th[64];
	int started[64] = { 0 };
	size_t n = b->nlinks < 64 ? b->nlinks : 64;

	for (size_t i = 0; i < n; i++)
		started[i] = pthread_create(&th[i], NULL, destroy_link, b->links[i]) == 0;
	for (size_t i = 0; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			bpf_link__destroy(b->links[i]);
	}
	for (size_t i = n; i < b->nlinks; i++)
		bpf_link__destroy(b->links[i]);
	b->nlinks = 0;
}

void rec_bpf_free(struct rec_bpf *b)
{
	rec_bpf_detach(b);
	free(b->links);
	record_bpf__destroy(b->skel);
	memset(b, 0, sizeof(*b));
}

static int add_link(struct rec_bpf *b, struct bpf_link *l)
{
	if (TAPE_VEC_GROW(b->links, b->caplinks, b->nlinks + 1, 64))
		return -ENOMEM;
	b->links[b->nlinks++] = l;
	return 0;
}

static int silent_print(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	if (lvl == LIBBPF_WARN && getenv("IOTAPE_BPF_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	if (getenv("IOTAPE_BPF_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

int rec_bpf_open(struct rec_bpf *b, uint32_t layers, size_t ring_bytes,
		 uint64_t cgroup_id, unsigned cgroup_level, uint64_t wait_min_ns,
		 void (*note)(void *arg, const char *msg), void *arg)
{
	struct btf *vmlinux = NULL;
	int err;

	memset(b, 0, sizeof(*b));
	libbpf_set_print(silent_print);
	b->skel = record_bpf__open();
	if (!b->skel) {
		snprintf(b->what, sizeof(b->what), "opening the BPF object");
		return -errno;
	}
	b->ring_bytes = pow2_pages(ring_bytes);
	bpf_map__set_max_entries(b->skel->maps.rb, b->ring_bytes);
	b->skel->rodata->layers = layers;
	/* ~1/16 of the ring between wakeups (records are ~128 bytes) */
	b->skel->rodata->wakeup_events = b->ring_bytes / 16 / 128 ?: 1;
	b->skel->rodata->cgroup_id = cgroup_id;
	b->skel->rodata->cgroup_level = cgroup_level;
	b->skel->rodata->wait_min_ns = wait_min_ns;

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		const struct prog_def *d = &progs[i];
		struct bpf_program *p =
			bpf_object__find_program_by_name(b->skel->obj, d->prog);
		int want = d->layer == -1 || (d->layer >= 0 && (layers & REC_LAYER_BIT(d->layer))) ||
			   (d->layer == -2 && (layers & (REC_LAYER_BIT(REC_L_SYSCALL) |
							REC_LAYER_BIT(REC_L_MMAP))));
		int have = tp_exists(&vmlinux, d->cat, d->name);

		if (!p)
			continue;
		if (want && !have) {
			char msg[160];

			snprintf(msg, sizeof(msg), "tracepoint %s:%s not in this kernel; "
				 "its events are not recorded", d->cat, d->name);
			if (note)
				note(arg, msg);
			b->missing++;
		}
		if (!want || !have)
			bpf_program__set_autoload(p, false);
	}
	btf__free(vmlinux);

	err = record_bpf__load(b->skel);
	if (err) {
		snprintf(b->what, sizeof(b->what), "loading the BPF programs");
		return err;
	}

	/* syscall specs: the enter program records only what has one */
	if (layers & (REC_LAYER_BIT(REC_L_SYSCALL) | REC_LAYER_BIT(REC_L_MMAP))) {
		int specs = bpf_map__fd(b->skel->maps.specs);
		for (size_t i = 0; i < rec_nsyscalls; i++) {
			const struct rec_syscall_def *d = &rec_syscalls[i];
			__u32 nr = d->nr;

			if (!(layers & REC_LAYER_BIT(d->spec.layer)))
				continue;
			if (bpf_map_update_elem(specs, &nr, &d->spec, BPF_ANY)) {
				snprintf(b->what, sizeof(b->what), "setting up syscall %s", d->tp);
				return -errno;
			}
		}
	}
	/* the rest auto-attach from their SEC() names */
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_program *p =
			bpf_object__find_program_by_name(b->skel->obj, progs[i].prog);
		struct bpf_link *l;

		if (!p || !bpf_program__autoload(p))
			continue;
		l = bpf_program__attach(p);
		if (!l) {
			err = -errno;
			snprintf(b->what, sizeof(b->what), "attaching to %s:%s",
				 progs[i].cat, progs[i].name);
			return err;
		}
		if (add_link(b, l)) {
			bpf_link__destroy(l);
			snprintf(b->what, sizeof(b->what), "attaching to %s:%s",
				 progs[i].cat, progs[i].name);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The traced set is a bitmap in the object's .bss (mmapped by the
 * skeleton); an atomic OR, as the BPF side may be setting bits of the same
 * word for children. */
int rec_bpf_trace_pid(struct rec_bpf *b, uint32_t tgid)
{
	if (tgid / 64 >= REC_TRACED_WORDS)
		return -ERANGE;
	__atomic_fetch_or(&b->skel->bss->traced[tgid / 64], 1ull << (tgid % 64),
			  __ATOMIC_SEQ_CST);
	return 0;
}

uint64_t rec_bpf_lost(const struct rec_bpf *b, int layer)
{
	return __atomic_load_n(&b->skel->bss->lost[layer], __ATOMIC_RELAXED);
}

int rec_bpf_ring_fd(const struct rec_bpf *b)
{
	return bpf_map__fd(b->skel->maps.rb);
}
