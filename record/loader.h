/* SPDX-License-Identifier: MIT */
/* loader.h - the recorder's BPF object (record/loader.c). */
#ifndef IOTAPE_LOADER_H
#define IOTAPE_LOADER_H
#include <stdint.h>

struct record_bpf;
struct bpf_link;

struct rec_bpf {
	struct record_bpf *skel;
	struct bpf_link **links;
	size_t nlinks, caplinks;
	size_t ring_bytes;	/* actual ring size (power of two) */
	int missing;		/* tracepoints this kernel lacks */
	char what[160];		/* after a failure: the step that failed */
};

/* Open, load and attach for the REC_LAYER_BIT()s in layers (REC_L_SCHED:
 * waits of wait_min_ns or more); a tracepoint
 * this kernel lacks is said to note (one message each, without a newline;
 * note may be NULL).  Returns 0 or -errno, with b->what saying which step
 * failed; call rec_bpf_free() in every case. */
int rec_bpf_open(struct rec_bpf *b, uint32_t layers, size_t ring_bytes,
		 uint64_t cgroup_id, unsigned cgroup_level, uint64_t wait_min_ns,
		 void (*note)(void *arg, const char *msg), void *arg);
void rec_bpf_free(struct rec_bpf *b);
/* Detach every program (in parallel: each detach waits for a grace period). */
void rec_bpf_detach(struct rec_bpf *b);
int rec_bpf_trace_pid(struct rec_bpf *b, uint32_t tgid);
uint64_t rec_bpf_lost(const struct rec_bpf *b, int layer);
/* The ring buffer map's fd (for ring_buffer__new). */
int rec_bpf_ring_fd(const struct rec_bpf *b);
#endif
