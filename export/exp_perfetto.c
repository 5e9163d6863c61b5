/* SPDX-License-Identifier: MIT */
/*
 * exp_perfetto.c - a trace as Chrome trace-event JSON, the format that
 * ui.perfetto.dev and chrome://tracing open (`iotape export --format
 * perfetto`, iotape-export(1)).
 *
 * One streaming pass: the syscall, block and cache tables are merged by
 * ts_ns (each in file order, as `iotape dump` merges them) and written as
 * they come, so nothing grows with events:
 *  - each syscall is a complete event ("ph":"X") on its thread's track
 *    (pid, tid); time between them (compute) is left empty, a gap;
 *  - each block request is a complete event on a pseudo-process per device
 *    (pid EXP_PF_PID_BASE + 1 + k), one track (tid) per request in flight
 *    at once, so overlapping requests never share a track;
 *  - counters ("ph":"C") on the pseudo-process EXP_PF_PID_BASE: syscall
 *    and block read and write bandwidth and the page-cache hit ratio, per
 *    interval of bucket_ns, written when the merge moves past the interval
 *    (an event that comes late, the tables being only nearly sorted, goes
 *    into the open interval: the totals stay exact);
 *  - process and thread names ("ph":"M") from the process table, read
 *    first (it grows with threads).
 * Timestamps are microseconds since t0 (the trace's first event, in
 * otherData.t0_ns), with three decimals: the nanoseconds are exact.
 *
 * Memory: per thread and per device a few lanes (one per overlapping
 * event), the process table's names, a fixed output buffer (stdio's).
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "export.h"
#include "map.h"
#include "trace.h"

#define LANES_MAX 64u		/* tracks per thread or device at most */
#define AUTO_BUCKETS 1000u	/* counter intervals over the trace (auto) */
#define BUCKET_MIN 1000000ull	/* auto interval at least 1 ms */

struct pf_track {		/* a thread's or a device's tracks */
	uint64_t *ends;		/* end of the last event on each lane */
	uint32_t n, cap;
	uint32_t pid, tid;	/* lane 0: (pid, tid); lane k: (pid, lane_tid[k]) */
	uint32_t *lane_tid;
};

struct pf_bucket {
	uint64_t rd, wr, brd, bwr;	/* bytes */
	uint64_t acc, ins;		/* pages accessed, inserted */
};

struct pf {
	FILE *f;
	uint64_t t0, bucket_ns;
	int first;			/* no event written yet */
	struct cm_map tracks;		/* (0, pid << 32 | tid) or (1, dev) -> tr[] */
	struct pf_track *tr;
	size_t ntr, captr;
	uint32_t ndev;
	uint32_t next_tid;		/* synthetic tids of extra lanes */
	struct pf_bucket b;
	uint64_t cb;			/* the open interval */
	int cb_set, last_zero;		/* an interval was opened; zeros written */
	struct exp_perfetto_stats *st;
};

/* ---------------------------------------------------------------- JSON */

static void put_ts(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

/* Length of the UTF-8 sequence at s, 0 when it is not a valid one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) { n = 2; c = s[0] & 0x1f; }
	else if ((s[0] & 0xf0) == 0xe0) { n = 3; c = s[0] & 0x0f; }
	else if ((s[0] & 0xf8) == 0xf0) { n = 4; c = s[0] & 0x07; }
	else return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/* s as a JSON string; bytes that are not UTF-8 become U+FFFD. */
static void put_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', f);
	while (*s) {
		size_t n;

		if (*s == '"' || *s == '\\') {
			putc('\\', f);
			putc(*s++, f);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s++);
		} else if ((n = utf8_len(s))) {
			fwrite(s, 1, n, f);
			s += n;
		} else {
			fputs("\\ufffd", f);
			s++;
		}
	}
	putc('"', f);
}

static void ev_begin(struct pf *p)
{
	fputs(p->first ? "\n" : ",\n", p->f);
	p->first = 0;
}

static void meta(struct pf *p, const char *what, uint32_t pid, uint32_t tid, const char *name)
{
	ev_begin(p);
	fprintf(p->f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
		",\"args\":{\"name\":", what, pid, tid);
	put_str(p->f, name);
	fputs("}}", p->f);
}

/* -------------------------------------------------------------- tracks */

static int track_get(struct pf *p, uint64_t a, uint64_t b, uint32_t pid, uint32_t tid,
		     struct pf_track **out)
{
	uint64_t *v;
	int rc = cm_map_put(&p->tracks, a, b, &v);

	if (rc < 0)
		return rc;
	if (rc == 1) {		/* added */
		if (p->ntr == p->captr) {
			size_t cap = p->captr ? 2 * p->captr : 64;
			struct pf_track *t = realloc(p->tr, cap * sizeof(*t));

			if (!t)
				return -ENOMEM;
			p->tr = t;
			p->captr = cap;
		}
		memset(&p->tr[p->ntr], 0, sizeof(p->tr[0]));
		p->tr[p->ntr].pid = pid;
		p->tr[p->ntr].tid = tid;
		*v = p->ntr++;
	}
	*out = &p->tr[*v];
	return 0;
}

/* The tid of the lane of t an event [s, e) goes on: the first lane free
 * at s; a new lane (named after the thread, or "requests k") when none
 * is, up to LANES_MAX (then the last, overlapping). */
static int lane(struct pf *p, struct pf_track *t, uint64_t s, uint64_t e, const char *dev,
		uint32_t *tid)
{
	uint32_t k;

	for (k = 0; k < t->n && t->ends[k] > s; k++)
		;
	if (k == t->n && t->n == LANES_MAX)
		k = t->n - 1;
	if (k == t->n) {
		char name[64];

		if (t->n == t->cap) {
			uint32_t cap = t->cap ? 2 * t->cap : 2;
			uint64_t *ends = realloc(t->ends, cap * sizeof(*ends));
			uint32_t *tids;

			if (!ends)
				return -ENOMEM;
			t->ends = ends;
			if (!(tids = realloc(t->lane_tid, cap * sizeof(*tids))))
				return -ENOMEM;
			t->lane_tid = tids;
			t->cap = cap;
		}
		if (dev) {
			t->lane_tid[k] = k + 1;
			snprintf(name, sizeof(name), "%s requests %u", dev, k + 1);
			meta(p, "thread_name", t->pid, k + 1, name);
		} else if (k == 0) {
			t->lane_tid[k] = t->tid;
		} else {
			/* above any real tid (pid_max <= 2^22) */
			t->lane_tid[k] = EXP_PF_PID_BASE + ++p->next_tid;
			snprintf(name, sizeof(name), "%u (overlapping %u)", t->tid, k);
			meta(p, "thread_name", t->pid, t->lane_tid[k], name);
		}
		t->n++;
		p->st->tracks++;
	}
	t->ends[k] = e;
	*tid = t->lane_tid[k];
	return 0;
}

/* ------------------------------------------------------------ counters */

static void counter(struct pf *p, uint64_t ts, const char *name, const char *unit, double v)
{
	ev_begin(p);
	fprintf(p->f, "{\"ph\":\"C\",\"name\":\"%s\",\"pid\":%u,\"ts\":", name, EXP_PF_PID_BASE);
	put_ts(p->f, ts);
	fprintf(p->f, ",\"args\":{\"%s\":%.3f}}", unit, v);
	p->st->counters++;
}

/* Write the open interval's counters (zeros once after a busy one). */
static void bucket_flush(struct pf *p)
{
	const struct pf_bucket *b = &p->b;
	uint64_t ts = p->cb * p->bucket_ns;
	double per_s = 1e9 / (double)p->bucket_ns;
	int zero = !b->rd && !b->wr && !b->brd && !b->bwr;

	if (!zero || !p->last_zero) {
		counter(p, ts, "syscall read", "bytes/s", b->rd * per_s);
		counter(p, ts, "syscall write", "bytes/s", b->wr * per_s);
		counter(p, ts, "block read", "bytes/s", b->brd * per_s);
		counter(p, ts, "block write", "bytes/s", b->bwr * per_s);
	}
	p->last_zero = zero;
	if (b->acc) {
		uint64_t miss = b->ins < b->acc ? b->ins : b->acc;

		counter(p, ts, "page cache hit ratio", "ratio",
			1.0 - (double)miss / (double)b->acc);
	}
	memset(&p->b, 0, sizeof(p->b));
}

/* The interval of an event at rel (ns since t0): later ones close the
 * open interval (and one empty interval after it reads zero). */
static struct pf_bucket *bucket(struct pf *p, uint64_t rel)
{
	uint64_t i = rel / p->bucket_ns;

	if (!p->cb_set) {
		p->cb = i;
		p->cb_set = 1;
		p->last_zero = 1;
	} else if (i > p->cb) {
		bucket_flush(p);
		if (i > p->cb + 1) {
			p->cb++;
			bucket_flush(p);
		}
		p->cb = i;
	}
	return &p->b;
}

/* -------------------------------------------------------------- events */

static int syscall_ev(struct pf *p, const struct tape_syscall *e)
{
	uint64_t rel = e->ts_ns - p->t0;
	enum tape_op_class c = tape_op_class(e->op);
	const char *name = tape_op_name(e->op);
	struct pf_track *t;
	uint32_t tid;
	int rc;

	if ((rc = track_get(p, 0, (uint64_t)e->pid << 32 | e->tid, e->pid, e->tid, &t)) < 0 ||
	    (rc = lane(p, t, e->ts_ns, e->ts_ns + e->dur_ns, NULL, &tid)) < 0)
		return rc;
	if (c == TAPE_OPC_READ && e->ret > 0) {
		bucket(p, rel)->rd += (uint64_t)e->ret;
		p->st->read_bytes += (uint64_t)e->ret;
	} else if (c == TAPE_OPC_WRITE && e->ret > 0) {
		bucket(p, rel)->wr += (uint64_t)e->ret;
		p->st->write_bytes += (uint64_t)e->ret;
	} else {
		bucket(p, rel);
	}
	ev_begin(p);
	if (name)
		fprintf(p->f, "{\"ph\":\"X\",\"cat\":\"syscall\",\"name\":\"%s\"", name);
	else
		fprintf(p->f, "{\"ph\":\"X\",\"cat\":\"syscall\",\"name\":\"op %u\"", e->op);
	fprintf(p->f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":", e->pid, tid);
	put_ts(p->f, rel);
	fputs(",\"dur\":", p->f);
	put_ts(p->f, e->dur_ns);
	fputs(",\"args\":{", p->f);
	if (*e->path) {
		fputs("\"path\":", p->f);
		put_str(p->f, e->path);
		putc(',', p->f);
	}
	if (*e->path2) {
		fputs("\"path2\":", p->f);
		put_str(p->f, e->path2);
		putc(',', p->f);
	}
	if (e->fd != -1)
		fprintf(p->f, "\"fd\":%" PRId64 ",", e->fd);
	if (c == TAPE_OPC_READ || c == TAPE_OPC_WRITE || e->offset || e->size)
		fprintf(p->f, "\"offset\":%" PRIu64 ",\"bytes\":%" PRIu64 ",", e->offset, e->size);
	if (e->file_id)
		fprintf(p->f, "\"file_id\":%" PRIu64 ",", e->file_id);
	fprintf(p->f, "\"ret\":%" PRId64 "}}", e->ret);
	p->st->syscalls++;
	return 0;
}

static int block_ev(struct pf *p, const struct tape_block *e)
{
	uint64_t rel = e->ts_ns - p->t0;
	struct pf_track *t;
	struct pf_bucket *b;
	char dev[32], rwbs[16];
	uint32_t tid;
	int rc;

	snprintf(dev, sizeof(dev), "%" PRIu64 ":%" PRIu64, e->dev >> 20, e->dev & 0xfffff);
	if ((rc = track_get(p, 1, e->dev, EXP_PF_PID_BASE + 1 + p->ndev, 0, &t)) < 0)
		return rc;
	if (t->pid == EXP_PF_PID_BASE + 1 + p->ndev) {	/* new device */
		char name[64];

		p->ndev++;
		snprintf(name, sizeof(name), "block device %s", dev);
		meta(p, "process_name", t->pid, 0, name);
	}
	if ((rc = lane(p, t, e->ts_ns, e->ts_ns + e->dur_ns, dev, &tid)) < 0)
		return rc;
	b = bucket(p, rel);
	if (e->flags & TAPE_BLK_READ)
		b->brd += e->bytes;
	else if (e->flags & TAPE_BLK_WRITE)
		b->bwr += e->bytes;
	tape_blk_flags_format(e->flags, rwbs, sizeof(rwbs));
	ev_begin(p);
	fputs("{\"ph\":\"X\",\"cat\":\"block\",\"name\":", p->f);
	put_str(p->f, rwbs);
	fprintf(p->f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":", t->pid, tid);
	put_ts(p->f, rel);
	fputs(",\"dur\":", p->f);
	put_ts(p->f, e->dur_ns);
	fprintf(p->f, ",\"args\":{\"dev\":\"%s\",\"sector\":%" PRIu64 ",\"bytes\":%" PRIu64
		",\"issuer_pid\":%" PRIu32 ",\"issuer_tid\":%" PRIu32 ",\"inode\":%" PRIu64
		",\"error\":%" PRId64 "}}", dev, e->sector, e->bytes, e->pid, e->tid, e->inode,
		e->error);
	p->st->blocks++;
	return 0;
}

static void cache_ev(struct pf *p, const struct tape_cache *e)
{
	struct pf_bucket *b = bucket(p, e->ts_ns - p->t0);

	if (e->kind == TAPE_CACHE_ACCESS || e->kind == TAPE_CACHE_FAULT ||
	    e->kind == TAPE_CACHE_MAP_PAGES)
		b->acc += e->count;
	else if (e->kind == TAPE_CACHE_INSERT)
		b->ins += e->count;
	p->st->cache++;
}

/* --------------------------------------------------------------- merge */

struct pf_src {
	int table;
	tape_cursor *cur;
	const void *ev;		/* NULL when done */
};

static int names(struct pf *p, tape_reader *r)
{
	tape_cursor *c;
	const void *ev;
	int rc;

	meta(p, "process_name", EXP_PF_PID_BASE, 0, "I/O counters (iotape)");
	if ((rc = tape_cursor_open(r, TAPE_TABLE_PROCESS, 0, UINT64_MAX, &c)) < 0)
		return rc;
	while ((rc = tape_cursor_next(c, &ev)) == 1) {
		const struct tape_process *e = ev;
		char name[300];

		if (e->tid == e->pid) {
			meta(p, "process_name", e->pid, 0, e->comm);
			if (*e->argv) {	/* the command line, cut */
				size_t n = strlen(e->argv);

				snprintf(name, sizeof(name), "%.*s%s", n > 256 ? 256 : (int)n,
					 e->argv, n > 256 ? "..." : "");
				ev_begin(p);
				fprintf(p->f, "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":%"
					PRIu32 ",\"tid\":0,\"args\":{\"labels\":", e->pid);
				put_str(p->f, name);
				fputs("}}", p->f);
			}
		}
		meta(p, "thread_name", e->pid, e->tid, e->comm);
	}
	tape_cursor_free(c);
	return rc < 0 ? rc : 0;
}

uint64_t exp_perfetto_auto_bucket(uint64_t span_ns)
{
	uint64_t want = span_ns / AUTO_BUCKETS, b = BUCKET_MIN;

	/* 1, 2, 5 times a power of ten */
	while (b < want) {
		if (want <= 2 * b) { b *= 2; break; }
		if (want <= 5 * b) { b *= 5; break; }
		b *= 10;
	}
	return b;
}

int exp_perfetto_write(FILE *f, tape_reader *r, const char *trace,
		       const struct exp_perfetto_opts *o, struct exp_perfetto_stats *st)
{
	static const int tables[] = { TAPE_TABLE_SYSCALL, TAPE_TABLE_BLOCK, TAPE_TABLE_CACHE };
	struct pf_src src[3];
	struct pf p;
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int n = 0, rc = 0;

	memset(st, 0, sizeof(*st));
	memset(&p, 0, sizeof(p));
	p.f = f;
	p.first = 1;
	p.st = st;
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		struct tape_table_stats ts;

		if (tape_reader_table_stats(r, t, &ts) == 0 && ts.events) {
			t0 = ts.t_min < t0 ? ts.t_min : t0;
			t1 = ts.t_max > t1 ? ts.t_max : t1;
		}
	}
	if (t0 == UINT64_MAX)
		t0 = t1 = 0;
	p.t0 = t0;
	p.bucket_ns = o && o->bucket_ns ? o->bucket_ns : exp_perfetto_auto_bucket(t1 - t0);
	st->t0_ns = t0;
	st->bucket_ns = p.bucket_ns;

	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"trace\":", f);
	put_str(f, trace ? trace : "");
	fprintf(f, ",\"t0_ns\":%" PRIu64 ",\"counter_interval_ns\":%" PRIu64
		",\"exporter\":\"iotape export --format perfetto\"},\n\"traceEvents\":[",
		t0, p.bucket_ns);
	if ((rc = names(&p, r)) < 0) {
		st->bad_table = TAPE_TABLE_PROCESS;
		goto out;
	}
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		src[n].table = tables[i];
		src[n].ev = NULL;
		if ((rc = tape_cursor_open(r, tables[i], 0, UINT64_MAX, &src[n].cur)) < 0) {
			st->bad_table = tables[i];
			goto out;
		}
		n++;
		if ((rc = tape_cursor_next(src[n - 1].cur, &src[n - 1].ev)) < 0) {
			st->bad_table = tables[i];
			goto out;
		}
		if (!rc)
			src[n - 1].ev = NULL;
	}
	for (;;) {
		struct pf_src *min = NULL;
		uint64_t mts = 0;

		for (int i = 0; i < n; i++) {
			/* ts_ns leads every event struct */
			uint64_t ts = src[i].ev ? *(const uint64_t *)src[i].ev : 0;

			if (src[i].ev && (!min || ts < mts)) {
				min = &src[i];
				mts = ts;
			}
		}
		if (!min)
			break;
		if (min->table == TAPE_TABLE_SYSCALL)
			rc = syscall_ev(&p, min->ev);
		else if (min->table == TAPE_TABLE_BLOCK)
			rc = block_ev(&p, min->ev);
		else
			cache_ev(&p, min->ev);
		if (rc < 0)
			goto out;
		if ((rc = tape_cursor_next(min->cur, &min->ev)) < 0) {
			st->bad_table = min->table;
			goto out;
		}
		if (!rc)
			min->ev = NULL;
	}
	rc = 0;
	if (p.cb_set) {		/* the last interval, then zero after it */
		bucket_flush(&p);
		p.cb++;
		if (!p.last_zero)
			bucket_flush(&p);
	}
	fputs("\n]}\n", f);
	if (fflush(f) || ferror(f))
		rc = -(errno ? errno : EIO);
out:
	for (int i = 0; i < n; i++)
		tape_cursor_free(src[i].cur);
	for (size_t i = 0; i < p.ntr; i++) {
		free(p.tr[i].ends);
		free(p.tr[i].lane_tid);
	}
	free(p.tr);
	cm_map_release(&p.tracks);
	return rc;
}

/* ------------------------------------------------------------ the exporter */

static int perfetto_export(const struct exp_io *io, const struct exp_opts *o,
			   struct exp_diag *d)
{
	struct exp_perfetto_opts po = { .bucket_ns = o ? o->interval_ns : 0 };
	struct exp_perfetto_stats st;
	int err = exp_perfetto_write(io->f, io->r, io->trace, &po, &st);

	if (err == -ENOMEM) {
		snprintf(d->msg, sizeof(d->msg), "out of memory");
	} else if (err && st.bad_table) {
		char what[PATH_MAX + 32];

		snprintf(what, sizeof(what), "%s: table %s", io->trace,
			 tape_table_name(st.bad_table));
		cm_trace_error(d->msg, sizeof(d->msg), what, err);
	} else if (err) {
		snprintf(d->msg, sizeof(d->msg), "%s: write error: %s", io->out, strerror(-err));
	} else {
		snprintf(d->summary, sizeof(d->summary), "%" PRIu64 " syscalls, %" PRIu64
			 " block requests, %" PRIu64 " counter values (every %" PRIu64 " ns), %"
			 PRIu64 " tracks; read %" PRIu64 " B, written %" PRIu64 " B", st.syscalls,
			 st.blocks, st.counters, st.bucket_ns, st.tracks, st.read_bytes,
			 st.write_bytes);
	}
	return err;
}

const struct exporter exp_perfetto = {
	"perfetto", "Chrome trace-event JSON for ui.perfetto.dev and chrome://tracing",
	EXP_NEEDS_READER, perfetto_export,
};
