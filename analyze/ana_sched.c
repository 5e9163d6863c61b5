/* SPDX-License-Identifier: MIT */
/*
 * ana_sched.c - a thread's waits (the sched table), read alongside the
 * syscall pass.
 *
 * A gap between two calls of a thread is its own work (on a CPU, or
 * blocked until a timer or a device woke it: a sleep standing for an
 * accelerator, a GPU's interrupt) plus its waits for other threads of the
 * job (blocked until a thread of the job woke it: a DataLoader worker's
 * write to the pipe its trainer polls, a lock).  The recorder writes a
 * row per wait when the thread runs again; the syscall table holds a row
 * per call when it returns.  Taking a wait once the syscall rows reach
 * the time it was written at (ts + dur + run_ns) puts it after every call
 * of its thread that ended before it began, and before every call of the
 * thread that began after it ended: its thread's open gap is the one it
 * lies in, unless it lies inside a call (its call kind says so).  Memory:
 * a row per thread, and one per (thread, waker) pair.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"

struct ana_sched_feed {
	tape_cursor *c;
	const struct tape_sched *ev;
	size_t n, i;
	uint64_t next;		/* ev[i] was written at this time; UINT64_MAX: none */
	int end;
};

static uint64_t written_at(const struct tape_sched *w)
{
	return w->ts_ns + w->dur_ns + w->run_ns;
}

int ana_wait_in_gap(const struct ana *a, unsigned call)
{
	switch (call) {
	case TAPE_WAITC_IO:
		return 0;	/* a recorded file call: it bounds the gap */
	case TAPE_WAITC_READ:
	case TAPE_WAITC_WRITE:
		/* read or write on a pipe or socket (a file's is woken by the
		 * device): a call that bounds gaps, but for the replay's
		 * view, which counts only the calls it issues */
		return a->o.replayed_io;
	default:
		return 1;	/* poll, futex, sleep, no call: in the gap */
	}
}

struct ana_wthread *ana_wthread_find(const struct ana *a, uint32_t tid)
{
	uint64_t *v = ana_map_get(&a->sched.map, tid, 0);

	return v ? &a->sched.t[*v] : NULL;
}

static struct ana_wthread *wthread_get(struct ana_sched *s, uint32_t tid, uint32_t pid)
{
	uint64_t *v = ana_map_put(&s->map, tid, 0);

	if (*v == ANA_NONE) {
		ANA_VEC_GROW(s->t, s->cap, s->n);
		ANA_VEC_CLEAR(s->t, s->n, s->n);
		s->t[s->n].tid = tid;
		s->t[s->n].pid = pid;
		s->t[s->n].first_ns = UINT64_MAX;
		*v = s->n++;
	}
	return &s->t[*v];
}

static void take(struct ana *a, const struct tape_sched *w)
{
	struct ana_sched *s = &a->sched;
	struct ana_wthread *t;

	if (ANA_HOST_SKIP(a, TAPE_TABLE_SCHED, w) ||
	    (a->o.has_pid && !ana_pid_included(a, w->pid)))
		return;
	s->rows++;
	t = wthread_get(s, w->tid, w->pid);
	if (w->cpu_ns > t->cpu_ns)
		t->cpu_ns = w->cpu_ns;
	if (w->kind == TAPE_WAKE_NONE)
		return;		/* its exit: the on-CPU time only */
	t->waits++;
	if (w->kind < TAPE_WAKE_KIND_MAX)
		t->wait_ns[w->kind] += w->dur_ns;
	if (w->ts_ns < t->first_ns)
		t->first_ns = w->ts_ns;
	if (w->ts_ns > t->last_ns)
		t->last_ns = w->ts_ns;
	if (w->kind != TAPE_WAKE_JOB || w->waker_tid == w->tid)
		return;
	if (w->waker_tid) {
		int added;
		uint64_t *ns = ana_map_count(&s->pair, w->tid, w->waker_tid, &added);

		*ns += w->dur_ns;
		if (*ns > t->waker_ns || (*ns == t->waker_ns && w->waker_tid < t->waker_tid)) {
			t->waker_ns = *ns;
			t->waker_tid = w->waker_tid;
		}
	}
	if (ana_wait_in_gap(a, w->call)) {
		uint64_t *v = ana_map_get(&a->sys.threadmap, w->tid, 0);

		t->job_ns += w->dur_ns;
		if (v)	/* the thread's open gap (none before its first call) */
			a->sys.threads[*v].wait_pend += w->dur_ns;
	}
}

static void feed_next(struct ana *a, struct ana_sched_feed *f)
{
	int err;

	while (f->i >= f->n && !f->end) {
		const void *evs;

		f->i = 0;
		f->n = 0;
		err = tape_cursor_next_block(f->c, &evs, &f->n);
		if (err <= 0) {
			if (err < 0)
				ana_note_damage(a, TAPE_TABLE_SCHED, err);
			f->end = 1;
			f->n = 0;
		}
		f->ev = evs;
	}
	f->next = f->i < f->n ? written_at(&f->ev[f->i]) : UINT64_MAX;
}

int ana_sched_open(struct ana *a, tape_reader *r, struct ana_sched_feed **out)
{
	struct ana_sched_feed *f;
	struct tape_table_stats st;
	const char *v;
	int err;

	*out = NULL;
	if (tape_reader_table_stats(r, TAPE_TABLE_SCHED, &st) || !st.events)
		return 0;
	a->sched.have = 1;
	if ((v = tape_reader_meta(r, "sched.wait_min_ns")))
		a->sched.wait_min_ns = strtoull(v, NULL, 10);
	f = ana_xcalloc(1, sizeof(*f));
	/* waits that began before the window but end in it count too */
	err = tape_cursor_open(r, TAPE_TABLE_SCHED, 0, a->t1, &f->c);
	if (err) {
		free(f);
		return err;
	}
	feed_next(a, f);
	*out = f;
	return 0;
}

void ana_sched_until(struct ana *a, struct ana_sched_feed *f, uint64_t ts)
{
	if (!f)
		return;
	while (f->i < f->n && f->next <= ts) {
		const struct tape_sched *w = &f->ev[f->i++];

		if (w->ts_ns + w->dur_ns >= a->t0)
			take(a, w);
		feed_next(a, f);
	}
}

void ana_sched_close(struct ana *a, struct ana_sched_feed *f)
{
	if (!f)
		return;
	ana_sched_until(a, f, UINT64_MAX);
	tape_cursor_free(f->c);
	free(f);
}
