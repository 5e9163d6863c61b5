/* SPDX-License-Identifier: MIT */
/*
 * host.c - the host of an event in a merged trace (iotape merge).
 *
 * A merged trace holds the events of several traces, one "host" each
 * (numbered 0, 1, ... in the order of merge's inputs).  Rather than a new
 * column, the host is folded into the ids that would otherwise collide
 * across hosts (iotape-format(5), "Merged traces"):
 *
 *   pid, tid, ppid            host << 22 | id   (Linux's PID_MAX_LIMIT is 2^22)
 *   file_id, file_id2         host << 48 | id
 *   dev                       host << 32 | dev  (a dev_t is major << 20 | minor)
 *   sample subject            pid metrics like a pid, the others like a dev
 *   sched waker_pid, _tid     like pid and tid (0, no task, stays 0)
 *
 * Host 0's ids are those of its input, unchanged.  Every reader, old ones
 * included, then keeps hosts apart wherever it keys by (pid, ...), file id
 * or device; a reader that knows the rule gets the host back from one
 * shift.  The file format itself is unchanged (1.1).
 */
#include <errno.h>
#include "tape_internal.h"

static int pid_metric(uint32_t m)
{
	return m == TAPE_METRIC_CPU_USER_NS || m == TAPE_METRIC_CPU_SYS_NS ||
	       m == TAPE_METRIC_RSS_BYTES;
}

unsigned tape_event_host(int table, const void *ev)
{
	switch (table) {
	case TAPE_TABLE_SYSCALL:
		return ((const struct tape_syscall *)ev)->pid >> TAPE_HOST_PID_SHIFT;
	case TAPE_TABLE_BLOCK:
		return ((const struct tape_block *)ev)->pid >> TAPE_HOST_PID_SHIFT;
	case TAPE_TABLE_CACHE:
		return ((const struct tape_cache *)ev)->pid >> TAPE_HOST_PID_SHIFT;
	case TAPE_TABLE_PROCESS:
		return ((const struct tape_process *)ev)->pid >> TAPE_HOST_PID_SHIFT;
	case TAPE_TABLE_FILE:
		return (unsigned)(((const struct tape_file *)ev)->file_id >> TAPE_HOST_ID_SHIFT);
	case TAPE_TABLE_SAMPLE: {
		const struct tape_sample *s = ev;
		return (unsigned)(s->subject >> (pid_metric(s->metric) ? TAPE_HOST_PID_SHIFT
									: TAPE_HOST_DEV_SHIFT));
	}
	case TAPE_TABLE_SCHED:
		return ((const struct tape_sched *)ev)->pid >> TAPE_HOST_PID_SHIFT;
	}
	return 0;
}

/* v with host h in its bits from shift up; -ERANGE when v already uses them. */
static int pack64(uint64_t *v, unsigned h, unsigned shift)
{
	if (*v >> shift)
		return -ERANGE;
	*v |= (uint64_t)h << shift;
	return 0;
}

static int pack32(uint32_t *v, unsigned h)
{
	if (*v >> TAPE_HOST_PID_SHIFT)
		return -ERANGE;
	*v |= (uint32_t)h << TAPE_HOST_PID_SHIFT;
	return 0;
}

int tape_event_set_host(int table, void *ev, unsigned h)
{
	int e = 0;

	if (h >= TAPE_HOSTS_MAX)
		return -EINVAL;
	switch (table) {
	case TAPE_TABLE_SYSCALL: {
		struct tape_syscall *s = ev;
		e = pack32(&s->pid, h) | pack32(&s->tid, h);
		if (s->file_id)
			e |= pack64(&s->file_id, h, TAPE_HOST_ID_SHIFT);
		if (s->file_id2)
			e |= pack64(&s->file_id2, h, TAPE_HOST_ID_SHIFT);
		break;
	}
	case TAPE_TABLE_BLOCK: {
		struct tape_block *b = ev;
		e = pack32(&b->pid, h) | pack32(&b->tid, h) |
		    pack64(&b->dev, h, TAPE_HOST_DEV_SHIFT);
		break;
	}
	case TAPE_TABLE_CACHE: {
		struct tape_cache *c = ev;
		e = pack32(&c->pid, h) | pack32(&c->tid, h) |
		    pack64(&c->dev, h, TAPE_HOST_DEV_SHIFT);
		if (c->file_id)
			e |= pack64(&c->file_id, h, TAPE_HOST_ID_SHIFT);
		break;
	}
	case TAPE_TABLE_PROCESS: {
		struct tape_process *p = ev;
		e = pack32(&p->pid, h) | pack32(&p->tid, h);
		if (p->ppid)	/* 0: no parent known (the kernel's pid 0) */
			e |= pack32(&p->ppid, h);
		break;
	}
	case TAPE_TABLE_FILE: {
		struct tape_file *f = ev;
		e = pack64(&f->file_id, h, TAPE_HOST_ID_SHIFT) |
		    pack64(&f->dev, h, TAPE_HOST_DEV_SHIFT);
		break;
	}
	case TAPE_TABLE_SAMPLE: {
		struct tape_sample *s = ev;
		e = pack64(&s->subject, h, pid_metric(s->metric) ? TAPE_HOST_PID_SHIFT
								: TAPE_HOST_DEV_SHIFT);
		break;
	}
	case TAPE_TABLE_SCHED: {
		struct tape_sched *s = ev;
		e = pack32(&s->pid, h) | pack32(&s->tid, h);
		if (s->waker_pid)	/* 0: an interrupt, no task */
			e |= pack32(&s->waker_pid, h) | pack32(&s->waker_tid, h);
		break;
	}
	default:
		return -EINVAL;
	}
	return e ? -ERANGE : 0;
}

static uint64_t low(uint64_t v, unsigned shift)
{
	return v & ((1ull << shift) - 1);
}

void tape_event_clear_host(int table, void *ev)
{
	const uint32_t pm = (1u << TAPE_HOST_PID_SHIFT) - 1;

	switch (table) {
	case TAPE_TABLE_SYSCALL: {
		struct tape_syscall *s = ev;
		s->pid &= pm;
		s->tid &= pm;
		s->file_id = low(s->file_id, TAPE_HOST_ID_SHIFT);
		s->file_id2 = low(s->file_id2, TAPE_HOST_ID_SHIFT);
		break;
	}
	case TAPE_TABLE_BLOCK: {
		struct tape_block *b = ev;
		b->pid &= pm;
		b->tid &= pm;
		b->dev = low(b->dev, TAPE_HOST_DEV_SHIFT);
		break;
	}
	case TAPE_TABLE_CACHE: {
		struct tape_cache *c = ev;
		c->pid &= pm;
		c->tid &= pm;
		c->dev = low(c->dev, TAPE_HOST_DEV_SHIFT);
		c->file_id = low(c->file_id, TAPE_HOST_ID_SHIFT);
		break;
	}
	case TAPE_TABLE_PROCESS: {
		struct tape_process *p = ev;
		p->pid &= pm;
		p->tid &= pm;
		p->ppid &= pm;
		break;
	}
	case TAPE_TABLE_FILE: {
		struct tape_file *f = ev;
		f->file_id = low(f->file_id, TAPE_HOST_ID_SHIFT);
		f->dev = low(f->dev, TAPE_HOST_DEV_SHIFT);
		break;
	}
	case TAPE_TABLE_SAMPLE: {
		struct tape_sample *s = ev;
		s->subject = low(s->subject, pid_metric(s->metric) ? TAPE_HOST_PID_SHIFT
								   : TAPE_HOST_DEV_SHIFT);
		break;
	}
	case TAPE_TABLE_SCHED: {
		struct tape_sched *s = ev;
		s->pid &= pm;
		s->tid &= pm;
		s->waker_pid &= pm;
		s->waker_tid &= pm;
		break;
	}
	}
}

/* v + off into *v: 0, or -ERANGE (v unchanged) outside [0, 2^64). */
static int add(uint64_t *v, int64_t off)
{
	uint64_t t = *v + (uint64_t)off;

	if (off < 0 ? t > *v : t < *v)
		return -ERANGE;
	*v = t;
	return 0;
}

int tape_event_shift(int table, void *ev, int64_t off)
{
	uint64_t ts = *(uint64_t *)ev;	/* every table starts with ts_ns */

	if (add(&ts, off))
		return -ERANGE;
	if (table == TAPE_TABLE_PROCESS) {
		struct tape_process *p = ev;
		if (p->end_ns && add(&p->end_ns, off))
			return -ERANGE;
	}
	*(uint64_t *)ev = ts;
	return 0;
}

unsigned tape_reader_hosts(const tape_reader *r)
{
	const char *v = tape_reader_meta(r, "merge.hosts");
	unsigned long n = 0;

	if (!v)
		return 0;
	for (; *v >= '0' && *v <= '9' && n <= TAPE_HOSTS_MAX; v++)
		n = n * 10 + (unsigned long)(*v - '0');
	return *v || n < 1 || n > TAPE_HOSTS_MAX ? 0 : (unsigned)n;
}
