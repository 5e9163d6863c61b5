/* SPDX-License-Identifier: MIT */
/*
 * ana_sample.c - the sample pass: the job's CPU time, peak RSS, the page
 * cache and free memory, device counters and GPU use, from the sample
 * table the recorder fills every ~100 ms (its "sample" layer).
 *
 * Counters are cumulative: a process's CPU time and a device's bytes are
 * the last sample minus the first one in the window.  The job's RSS is
 * summed over its processes per tick (samples of one tick share their
 * timestamp).  State grows with processes and devices only.  Runs on the
 * main thread before the event passes: it may add to procs[].
 */
#include <errno.h>
#include <string.h>
#include "analyze.h"

static void rss_tick_end(struct ana_res *r)
{
	if (r->has_rss && r->rss_tick > r->rss_peak)
		r->rss_peak = r->rss_tick;
	r->rss_tick = 0;
}

static struct ana_disk *disk_get(struct ana_res *r, uint64_t dev)
{
	for (size_t i = 0; i < r->nd; i++)
		if (r->d[i].dev == dev)
			return &r->d[i];
	ANA_VEC_GROW(r->d, r->capd, r->nd);
	ANA_VEC_CLEAR(r->d, r->nd, r->nd);
	r->d[r->nd].dev = dev;
	return &r->d[r->nd++];
}

static void first_last(uint64_t v, uint8_t *has, uint64_t *first, uint64_t *last)
{
	if (!*has)
		*first = v;
	*has = 1;
	*last = v;
}

int ana_pass_sample(struct ana *a)
{
	struct ana_res *r = &a->res;
	tape_cursor *c;
	int err = ana_cursor_open(a->r, TAPE_TABLE_SAMPLE, a->t0, a->t1, &c);
	if (err)
		return err;
	const void *evs;
	size_t n;
	r->pc_min = r->avail_min = UINT64_MAX;
	while ((err = tape_cursor_next_block(c, &evs, &n)) > 0) {
		const struct tape_sample *e = evs;
		for (size_t i = 0; i < n; i++, e++) {
			if (ANA_HOST_SKIP(a, TAPE_TABLE_SAMPLE, e))
				continue;
			r->n_events++;
			switch (e->metric) {
			case TAPE_METRIC_CPU_USER_NS:
			case TAPE_METRIC_CPU_SYS_NS: {
				if (!ana_pid_included(a, (uint32_t)e->subject))
					break;
				struct ana_proc *p = ana_proc_get(a, (uint32_t)e->subject);
				if (e->metric == TAPE_METRIC_CPU_USER_NS)
					first_last(e->value, &p->has_cpu_u, &p->cpu_u0, &p->cpu_u1);
				else
					first_last(e->value, &p->has_cpu_s, &p->cpu_s0, &p->cpu_s1);
				break;
			}
			case TAPE_METRIC_RSS_BYTES:
				if (!ana_pid_included(a, (uint32_t)e->subject))
					break;
				if (e->ts_ns != r->rss_ts) {
					rss_tick_end(r);
					r->rss_ts = e->ts_ns;
				}
				r->rss_tick += e->value;
				r->has_rss = 1;
				break;
			case TAPE_METRIC_PAGECACHE_BYTES:
				if (e->value < r->pc_min)
					r->pc_min = e->value;
				if (e->value > r->pc_max)
					r->pc_max = e->value;
				r->has_pc = 1;
				break;
			case TAPE_METRIC_MEM_AVAILABLE_BYTES:
				if (e->value < r->avail_min)
					r->avail_min = e->value;
				r->has_avail = 1;
				break;
			case TAPE_METRIC_DISK_READ_BYTES: {
				struct ana_disk *d = disk_get(r, e->subject);
				first_last(e->value, &d->has_r, &d->r0, &d->r1);
				break;
			}
			case TAPE_METRIC_DISK_WRITE_BYTES: {
				struct ana_disk *d = disk_get(r, e->subject);
				first_last(e->value, &d->has_w, &d->w0, &d->w1);
				break;
			}
			case TAPE_METRIC_GPU_UTIL_PCT:
				r->gpu_util_sum += e->value;
				r->gpu_util_n++;
				break;
			case TAPE_METRIC_GPU_MEM_BYTES:
				if (e->value > r->gpu_mem_max)
					r->gpu_mem_max = e->value;
				r->has_gpu_mem = 1;
				break;
			default:
				break;
			}
		}
	}
	rss_tick_end(r);
	if (err < 0)
		ana_note_damage(a, TAPE_TABLE_SAMPLE, err);
	ana_cursor_free(c);
	return 0;
}
