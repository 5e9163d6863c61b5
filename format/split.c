/* SPDX-License-Identifier: MIT */
/*
 * split.c - the reverse of merge, and more: a trace into one trace per
 * host (of a merged trace), per process, or per span of time (`iotape
 * split`, iotape-split(1); tape.h's tape_split).
 *
 *   by host      PREFIX-hostH.iotape: host H's events with its ids and
 *                times as they were in merge's input H, and that input's
 *                metadata (host.H.KEY) back under KEY: the input itself,
 *                event for event.
 *   by process   PREFIX-pidP.iotape: the events whose pid is P (syscall,
 *                block, cache, process; samples of P's CPU and memory).
 *   by time      PREFIX-partK.iotape: events of [t0 + K*D, t0 + (K+1)*D),
 *                D from every or parts; t0 the trace start.
 *
 * What belongs to no one part (process and time: the file table, the
 * system's samples; time: the process table) is copied to every part, so
 * each part analyzes alone.  Each part keeps the input's row order.
 *
 * No output file may exist (they are all checked before the first is
 * created); on any error every part created is removed.  Memory: one
 * writer per part, the pids (process), never the events.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tape.h"
#include "tape_internal.h"
#include "tape_vec.h"

#define MAX_PARTS 10000u

struct part {
	char *path;
	tape_writer *w;
	int created;	/* by us: removed on failure */
	uint64_t events;
};

struct split {
	const struct tape_split_opts *cfg;
	struct tape_xform_error *e;
	tape_reader *r;
	const char *in;
	struct part *p;
	size_t np;
	uint32_t *pids;		/* --by process: part i is pid pids[i], sorted */
	int64_t *off;		/* --by host: merge's offset of each host */
	uint64_t t0, span;	/* --by time */
};

static int pid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int pid_metric(uint32_t m)
{
	return m == TAPE_METRIC_CPU_USER_NS || m == TAPE_METRIC_CPU_SYS_NS ||
	       m == TAPE_METRIC_RSS_BYTES;
}

/* The pid an event belongs to: 1 and *pid, or 0 for no one process. */
static int event_pid(int table, const void *ev, uint32_t *pid)
{
	switch (table) {
	case TAPE_TABLE_SYSCALL: *pid = ((const struct tape_syscall *)ev)->pid; return 1;
	case TAPE_TABLE_BLOCK: *pid = ((const struct tape_block *)ev)->pid; return 1;
	case TAPE_TABLE_CACHE: *pid = ((const struct tape_cache *)ev)->pid; return 1;
	case TAPE_TABLE_PROCESS: *pid = ((const struct tape_process *)ev)->pid; return 1;
	case TAPE_TABLE_SCHED: *pid = ((const struct tape_sched *)ev)->pid; return 1;
	case TAPE_TABLE_SAMPLE: {
		const struct tape_sample *s = ev;
		if (!pid_metric(s->metric) || s->subject > UINT32_MAX)
			return 0;
		*pid = (uint32_t)s->subject;
		return 1;
	}
	}
	return 0;
}

/* The part of an event: its index, or -1 for every part. */
static long part_of(const struct split *s, int table, const void *ev)
{
	uint32_t pid;

	switch (s->cfg->by) {
	case TAPE_SPLIT_HOST:
		return tape_event_host(table, ev);
	case TAPE_SPLIT_PROCESS: {
		if (!event_pid(table, ev, &pid))
			return -1;
		uint32_t *f = bsearch(&pid, s->pids, s->np, sizeof(pid), pid_cmp);
		return f ? f - s->pids : -1;
	}
	default:
		if (table == TAPE_TABLE_PROCESS || table == TAPE_TABLE_FILE)
			return -1;
		uint64_t ts = *(const uint64_t *)ev;
		uint64_t k = ts < s->t0 ? 0 : (ts - s->t0) / s->span;
		return k < s->np ? (long)k : (long)s->np - 1;
	}
}

/* By process: every pid into s->pids; 0 or -errno. */
static int collect_pids(struct split *s)
{
	static const int tables[] = { TAPE_TABLE_PROCESS, TAPE_TABLE_SYSCALL, TAPE_TABLE_BLOCK,
				      TAPE_TABLE_CACHE, TAPE_TABLE_SAMPLE, TAPE_TABLE_SCHED };
	size_t cap = 0, n = 0;
	int rc = 0;

	for (size_t t = 0; t < sizeof(tables) / sizeof(*tables) && rc >= 0; t++) {
		size_t size = tape_table_event_size(tables[t]), k;
		const void *evs;
		tape_cursor *c;
		uint32_t last = 0, pid;
		int have = 0;

		if ((rc = tape_cursor_open(s->r, tables[t], 0, UINT64_MAX, &c)) < 0)
			break;
		while ((rc = tape_cursor_next_block(c, &evs, &k)) > 0) {
			for (size_t i = 0; i < k; i++) {
				const void *ev = (const char *)evs + i * size;
				if (!event_pid(tables[t], ev, &pid) || (have && pid == last))
					continue;
				last = pid;
				have = 1;
				if (n == cap) {	/* sorted and made unique now and then */
					if (n)	/* qsort of no array: UB (UBSan) */
						qsort(s->pids, n, sizeof(*s->pids), pid_cmp);
					size_t u = 0;
					for (size_t j = 0; j < n; j++)
						if (!u || s->pids[u - 1] != s->pids[j])
							s->pids[u++] = s->pids[j];
					n = u;
					if (n * 2 >= cap &&
					    TAPE_VEC_GROW(s->pids, cap, cap + 1, 256)) {
						tape_cursor_free(c);
						return tape__xerr(s->e, -ENOMEM, "out of memory");
					}
				}
				s->pids[n++] = pid;
			}
		}
		tape_cursor_free(c);
	}
	if (rc < 0)
		return tape__xtape(s->e, rc, s->in);
	if (n)
		qsort(s->pids, n, sizeof(*s->pids), pid_cmp);
	size_t u = 0;
	for (size_t j = 0; j < n; j++)
		if (!u || s->pids[u - 1] != s->pids[j])
			s->pids[u++] = s->pids[j];
	s->np = u;
	return 0;
}

/* The parts, their names checked and their files created: 0 or -errno
 * (the parts created are removed by the caller). */
static int make_parts(struct split *s)
{
	const char *pre = s->cfg->prefix;
	int err;
	size_t len = strlen(pre) + 48;
	struct stat sb;

	if (s->np > MAX_PARTS)
		return tape__xerr(s->e, -E2BIG, "%zu parts: split makes %u at most", s->np,
				  MAX_PARTS);
	if (!(s->p = calloc(s->np ? s->np : 1, sizeof(*s->p))))
		return tape__xerr(s->e, -ENOMEM, "out of memory");
	for (size_t i = 0; i < s->np; i++) {
		if (!(s->p[i].path = malloc(len)))
			return tape__xerr(s->e, -ENOMEM, "out of memory");
		if (s->cfg->by == TAPE_SPLIT_HOST)
			snprintf(s->p[i].path, len, "%s-host%zu.iotape", pre, i);
		else if (s->cfg->by == TAPE_SPLIT_PROCESS)
			snprintf(s->p[i].path, len, "%s-pid%" PRIu32 ".iotape", pre, s->pids[i]);
		else
			snprintf(s->p[i].path, len, "%s-part%zu.iotape", pre, i);
		if (lstat(s->p[i].path, &sb) == 0)
			return tape__xerr(s->e, -EEXIST, "%s: exists (split does not replace files)",
					  s->p[i].path);
	}
	for (size_t i = 0; i < s->np; i++) {
		struct tape_writer_opts o = { 0 };

		if ((err = tape_writer_open(&s->p[i].w, s->p[i].path, &o)) == -EEXIST)
			return tape__xerr(s->e, err, "%s: exists (use -f to replace it)",
					  s->p[i].path);
		if (err < 0)
			return tape__xtape(s->e, err, s->p[i].path);
		s->p[i].created = 1;
	}
	return 0;
}

/* Each part's metadata: 0 or -errno. */
static int part_meta(struct split *s)
{
	char pre[32];

	for (size_t i = 0; i < s->np; i++) {
		size_t pl = (size_t)snprintf(pre, sizeof(pre), "host.%zu.", i);
		for (size_t j = 0; j < tape_reader_meta_count(s->r); j++) {
			const char *k, *v;
			int err = 0;
			if (tape_reader_meta_at(s->r, j, &k, &v))
				continue;
			if (s->cfg->by != TAPE_SPLIT_HOST)
				err = tape_writer_set_meta(s->p[i].w, k, v);
			else if (strncmp(k, pre, pl) == 0 && strcmp(k + pl, "name") &&
				 strcmp(k + pl, "input") && strcmp(k + pl, "offset_ns") &&
				 strcmp(k + pl, "t_min") && strcmp(k + pl, "t_max"))
				err = tape_writer_set_meta(s->p[i].w, k + pl, v);
			if (err < 0)
				return tape__xtape(s->e, err, s->p[i].path);
		}
	}
	return 0;
}

static int put(struct split *s, size_t i, int table, void *ev)
{
	int err;

	if (s->cfg->by == TAPE_SPLIT_HOST) {
		tape_event_clear_host(table, ev);
		if ((err = tape_event_shift(table, ev, -s->off[i])) < 0)
			return tape__xerr(s->e, err, "%s: host %zu: its offset moves a time out of "
					  "range", s->in, i);
	}
	if ((err = tape_writer_append(s->p[i].w, table, ev)) < 0)
		return tape__xtape(s->e, err, s->p[i].path);
	s->p[i].events++;
	return 0;
}

/* Every table into the parts: 0 or -errno. */
static int distribute(struct split *s)
{
	union tape_event_any ev;

	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		size_t size = tape_table_event_size(t), k;
		const void *evs;
		tape_cursor *c;
		int rc;

		if ((rc = tape_cursor_open(s->r, t, 0, UINT64_MAX, &c)) < 0)
			return tape__xtape(s->e, rc, s->in);
		while ((rc = tape_cursor_next_block(c, &evs, &k)) > 0) {
			for (size_t i = 0; i < k; i++) {
				const void *e = (const char *)evs + i * size;
				long to = part_of(s, t, e);
				if (to >= (long)s->np) {
					tape_cursor_free(c);
					return tape__xerr(s->e, -EINVAL, "%s: a %s event of host %ld: "
							  "the trace has %zu hosts", s->in,
							  tape_table_name(t), to, s->np);
				}
				for (size_t j = to < 0 ? 0 : (size_t)to;
				     j < (to < 0 ? s->np : (size_t)to + 1); j++) {
					memcpy(&ev, e, size);
					if ((rc = put(s, j, t, &ev))) {
						tape_cursor_free(c);
						return rc;
					}
				}
			}
		}
		tape_cursor_free(c);
		if (rc < 0)
			return tape__xtape(s->e, rc, s->in);
	}
	return 0;
}

/* By host: the hosts and their offsets; 0 or -errno. */
static int host_setup(struct split *s)
{
	char k[64];

	if (!(s->np = tape_reader_hosts(s->r)))
		return tape__xerr(s->e, -EINVAL, "%s: not a merged trace (no merge.hosts): --by "
				  "host splits what iotape merge made", s->in);
	if (!(s->off = calloc(s->np, sizeof(*s->off))))
		return tape__xerr(s->e, -ENOMEM, "out of memory");
	for (size_t i = 0; i < s->np; i++) {
		const char *v;
		char *end;
		snprintf(k, sizeof(k), "host.%zu.offset_ns", i);
		if (!(v = tape_reader_meta(s->r, k)))
			return tape__xerr(s->e, -EINVAL, "%s: no metadata %s", s->in, k);
		errno = 0;
		s->off[i] = strtoll(v, &end, 10);
		if (errno || end == v || *end)
			return tape__xerr(s->e, -EINVAL, "%s: metadata %s: '%s' is not a number",
					  s->in, k, v);
	}
	return 0;
}

/* By time: t0, the span of a part and their number; 0 or -errno. */
static int time_setup(struct split *s)
{
	static const int tables[] = { TAPE_TABLE_SYSCALL, TAPE_TABLE_BLOCK, TAPE_TABLE_CACHE,
				      TAPE_TABLE_SAMPLE, TAPE_TABLE_SCHED };
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t t = 0; t < sizeof(tables) / sizeof(*tables); t++) {
		struct tape_table_stats st;
		if (tape_reader_table_stats(s->r, tables[t], &st) == 0 && st.events) {
			lo = st.t_min < lo ? st.t_min : lo;
			hi = st.t_max > hi ? st.t_max : hi;
		}
	}
	if (lo == UINT64_MAX)
		return tape__xerr(s->e, -ENODATA, "%s: no events to split", s->in);
	s->t0 = lo;
	uint64_t len = hi - lo + 1;	/* [lo, hi] */
	if (s->cfg->every) {
		s->span = s->cfg->every;
		uint64_t n = len / s->span + (len % s->span != 0);
		if (n > MAX_PARTS)
			return tape__xerr(s->e, -E2BIG, "--every: %" PRIu64 " parts: split makes %u "
					  "at most", n, MAX_PARTS);
		s->np = (size_t)n;
	} else {
		s->np = s->cfg->parts;
		s->span = len / s->np + (len % s->np != 0);
	}
	return 0;
}

/* The parts made: each closed, or on failure every one removed. */
static int parts_finish(struct split *s, int err, struct tape_split_stats *st)
{
	for (size_t i = 0; !err && i < s->np; i++) {
		int rc = tape_writer_close(s->p[i].w);

		s->p[i].w = NULL;
		if (rc < 0)
			err = tape__xtape(s->e, rc, s->p[i].path);
		else
			st->events += s->p[i].events;
	}
	for (size_t i = 0; s->p && i < s->np; i++) {
		tape_writer_free(s->p[i].w);
		if (err && s->p[i].created)
			unlink(s->p[i].path);
		free(s->p[i].path);	/* NULL past a failed malloc */
	}
	return err;
}

int tape_split(tape_reader *r, const char *in, const struct tape_split_opts *o,
	       struct tape_split_stats *st, struct tape_xform_error *e)
{
	struct split s = { .cfg = o, .e = e, .r = r, .in = in };
	int err;

	tape__xclear(e);
	memset(st, 0, sizeof(*st));
	if (tape_reader_recovered(r))
		return tape__xerr(e, -EINVAL, "%s: incomplete trace (%s): split refuses it; "
				  "'iotape convert' makes a complete copy of what is left", in,
				  tape_reader_recovered(r));
	if (o->by == TAPE_SPLIT_TIME && !o->every == !o->parts)
		return tape__xerr(e, -EINVAL, "by time: give one of every and parts");
	err = o->by == TAPE_SPLIT_HOST ? host_setup(&s) :
	      o->by == TAPE_SPLIT_PROCESS ? collect_pids(&s) : time_setup(&s);
	if (!err && !s.np)
		err = tape__xerr(e, -ENODATA, "%s: no process to split by", in);
	if (!err) {
		err = make_parts(&s);
		if (!err)
			err = part_meta(&s);
		if (!err)
			err = distribute(&s);
		err = parts_finish(&s, err, st);
		st->parts = s.np;
	}
	free(s.p);
	free(s.pids);
	free(s.off);
	return err;
}
