/* SPDX-License-Identifier: MIT */
/*
 * sampler.c - the sample table: every 100 ms, CPU time and RSS of each live
 * traced process (/proc/PID/stat), system page-cache size and available
 * memory (/proc/meminfo), per-device I/O counters (/proc/diskstats).
 * Counters are stored cumulative, as the kernel reports them.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "rec.h"

static void put(struct rec_state *st, uint64_t ts, unsigned metric,
		uint64_t subject, uint64_t value)
{
	struct tape_sample s = { .ts_ns = ts, .metric = metric,
				 .subject = subject, .value = value };

	rec_append(st, TAPE_TABLE_SAMPLE, &s);
}

static void sample_pid(struct rec_state *st, uint64_t ts, uint32_t pid,
		       long tick_ns, long page)
{
	char p[64], buf[1024], *c;
	unsigned long utime, stime;
	long rss;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%u/stat", pid);
	f = fopen(p, "re");
	if (!f)
		return;
	c = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!c || !(c = strrchr(buf, ')')))
		return;
	/* fields after comm: 3 state ... 14 utime 15 stime ... 24 rss */
	if (sscanf(c + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu "
		   "%*d %*d %*d %*d %*d %*d %*u %*u %ld", &utime, &stime, &rss) != 3)
		return;
	put(st, ts, TAPE_METRIC_CPU_USER_NS, pid, (uint64_t)utime * tick_ns);
	put(st, ts, TAPE_METRIC_CPU_SYS_NS, pid, (uint64_t)stime * tick_ns);
	put(st, ts, TAPE_METRIC_RSS_BYTES, pid, (uint64_t)rss * page);
}

static void sample_meminfo(struct rec_state *st, uint64_t ts)
{
	char line[256];
	unsigned long long kb;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Cached: %llu kB", &kb) == 1)
			put(st, ts, TAPE_METRIC_PAGECACHE_BYTES, 0, kb * 1024);
		else if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			put(st, ts, TAPE_METRIC_MEM_AVAILABLE_BYTES, 0, kb * 1024);
	}
	fclose(f);
}

/* Whole devices and partitions with any I/O; subject = major << 20 | minor
 * (the kernel's dev_t, as in the block table). */
static void sample_disks(struct rec_state *st, uint64_t ts)
{
	char line[512], name[64];
	unsigned maj, min;
	unsigned long long rio, rsec, wio, wsec, busy;
	FILE *f = fopen("/proc/diskstats", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u %u %63s %llu %*u %llu %*u %llu %*u %llu %*u %*u %llu",
			   &maj, &min, name, &rio, &rsec, &wio, &wsec, &busy) != 8)
			continue;
		if (!rio && !wio)
			continue;
		uint64_t dev = (uint64_t)maj << 20 | min;
		put(st, ts, TAPE_METRIC_DISK_READ_BYTES, dev, rsec * 512);
		put(st, ts, TAPE_METRIC_DISK_WRITE_BYTES, dev, wsec * 512);
		put(st, ts, TAPE_METRIC_DISK_READ_IOS, dev, rio);
		put(st, ts, TAPE_METRIC_DISK_WRITE_IOS, dev, wio);
		put(st, ts, TAPE_METRIC_DISK_BUSY_MS, dev, busy);
	}
	fclose(f);
}

void rec_sample(struct rec_state *st, uint64_t now)
{
	static long tick_ns, page;

	if (!tick_ns) {
		tick_ns = 1000000000L / sysconf(_SC_CLK_TCK);
		page = sysconf(_SC_PAGESIZE);
	}
	rec_map_for_each(&st->groups, p) {
		struct rec_group *g = p;
		if (!g->exited)
			sample_pid(st, now, g->pid, tick_ns, page);
	}
	sample_meminfo(st, now);
	sample_disks(st, now);
	rec_gpu_sample(st->gpu, st, now);
}
