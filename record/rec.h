/* SPDX-License-Identifier: MIT */
/*
 * rec.h - internals of `iotape record` shared by the files in record/.
 *
 * Threading: everything here runs on the recorder's one thread (the
 * consumer); nothing is locked.  The tape_writer is only touched there.
 */
#ifndef IOTAPE_REC_H
#define IOTAPE_REC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "map.h"
#include "record.h"
#include "recorder.h"
#include "tape.h"

struct rec_syscall_def {
	int nr;
	const char *tp;		/* syscalls/sys_enter_<tp> */
	struct rec_spec spec;
};
extern const struct rec_syscall_def rec_syscalls[];
extern const size_t rec_nsyscalls;

/* ------------------------------------------------------------ hash map */
/* The common map (common/map.h) with pointer values owned by the caller. */
static inline void *rec_map_get(const struct cm_map *m, uint64_t k1, uint64_t k2)
{
	uint64_t *v = cm_map_get(m, k1, k2);
	return v ? (void *)(uintptr_t)*v : NULL;
}
static inline int rec_map_put(struct cm_map *m, uint64_t k1, uint64_t k2, void *v)
{
	return cm_map_set(m, k1, k2, (uintptr_t)v);
}
static inline void *rec_map_del(struct cm_map *m, uint64_t k1, uint64_t k2)
{
	uint64_t old;
	return cm_map_del(m, k1, k2, &old) ? (void *)(uintptr_t)old : NULL;
}
/* Every value, as ptr (a void *). */
#define rec_map_for_each(m, ptr) \
	for (size_t i_##ptr = 0; i_##ptr < (m)->cap; i_##ptr++) \
		for (void *ptr = (m)->e[i_##ptr].v < CM_MAP_DEAD ? \
			(void *)(uintptr_t)(m)->e[i_##ptr].v : NULL; ptr; ptr = NULL)

/* ------------------------------------------------------------ state */
struct rec_mapping {		/* a file mapping, for munmap/madvise/msync */
	uint64_t start, end, file_id;
};

struct rec_group {		/* a process (thread group) */
	uint32_t pid, ppid;
	char *argv;		/* space separated */
	char *cwd;		/* NULL until first needed */
	int live_threads;
	int exited;
	struct rec_mapping *maps;
	size_t nmaps, capmaps;
};

struct rec_thread {
	uint32_t pid, tid;
	uint64_t start_ns;
	char comm[REC_COMM_LEN];
};

struct rec_file {
	uint64_t file_id, dev, ino;
	char *path;
};

struct rec_state {
	tape_writer *w;
	struct cm_map groups;	/* tgid -> rec_group */
	struct cm_map threads;	/* tid -> rec_thread */
	struct cm_map files;	/* dev, ino -> rec_file */
	struct cm_map fstypes;	/* dev, 0 -> the fstype of its first file row */
	/* directories as opens named them -> their path with symlinks
	 * resolved (real_path): hash of the name -> index + 1 in rdirs */
	struct cm_map rdir_map;
	struct rec_rdir { char *dir, *real; } *rdirs;
	size_t nrdirs, caprdirs;
	uint64_t next_file_id;
	uint64_t events[TAPE_TABLE_MAX];	/* appended per table */
	uint64_t bpf_events;	/* ring buffer records consumed */
	uint64_t bad_events;	/* malformed records (counted, skipped) */
	int write_err;		/* first tape_writer error */
	int live_groups;
	uint32_t layers;	/* REC_LAYER_BIT()s, plus REC_LAYER_SAMPLE */
	struct rec_gpu *gpu;	/* NULL: no GPU samples */
	rec_row_fn *row;	/* rec_opts.row and its arg, NULL none */
	void *row_arg;
};
#define REC_LAYER_SAMPLE (1u << 31)

int rec_state_init(struct rec_state *st, tape_writer *w);
void rec_state_release(struct rec_state *st);
/* Ring buffer callback: one BPF event -> zero or more tape rows. */
int rec_handle_event(void *ctx, void *data, size_t len);
/* A process traced from outside the event stream (the command, -p PIDs). */
void rec_add_process(struct rec_state *st, uint32_t pid, uint32_t ppid,
		     uint64_t ts, int with_threads);
/* Rows for threads still running at the end. */
void rec_finish_processes(struct rec_state *st);
int rec_append(struct rec_state *st, int table, const void *ev);

/* sampler.c */
void rec_sample(struct rec_state *st, uint64_t now_ns);

/* gpu.c: NULL when NVML or GPUs are absent (not an error) */
struct rec_gpu;
struct rec_gpu *rec_gpu_open(void);
void rec_gpu_sample(struct rec_gpu *g, struct rec_state *st, uint64_t ts);
void rec_gpu_free(struct rec_gpu *g);

uint64_t rec_now_ns(void);	/* CLOCK_MONOTONIC, like bpf_ktime_get_ns */

#endif
