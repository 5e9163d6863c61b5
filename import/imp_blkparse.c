/* SPDX-License-Identifier: MIT */
/*
 * imp_blkparse.c - the blkparse importer: blkparse's default text output
 * (blktrace's events on block devices) into the block table.
 *
 * Each line is "MAJ,MIN CPU SEQ SECS.NSECS PID ACTION RWBS ..." (the
 * header blkparse_fmt.c prints for every event, then per action).  One
 * block row is one request, from its issue to the driver (D) to its
 * completion (C): D lines wait in a table keyed by (dev, sector) until the
 * C with the same key gives the duration and the error.  Only D and C are
 * used: Q, G, I, M, F, P, U, X, A, B, S and messages (m) are parsed for
 * their header and skipped.  pid and tid are the D line's (the C's is the
 * interrupted task, usually 0).  A D not completed by the end of the input
 * (or issued again at the same sector before completing: a requeue) is
 * written with dur_ns 0; a C without a D is skipped; a requeue (R) forgets
 * the pending D.  Memory grows with the requests in flight.
 *
 * The summary blkparse prints after the events (per CPU, per device, per
 * process with -s) ends the events: the first line that starts with
 * "CPU", "Total (", "Throughput" or "Events (", or that names a process
 * as "comm (pid...)", and everything after it is skipped.  "Input file X
 * added" lines are skipped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "import.h"
#include "imp_text.h"
#include "tape_vec.h"

struct pending {
	uint64_t ts_ns;
	uint32_t pid;
	int used;
	uint64_t dev, sector, bytes, flags;
};

struct blk {
	struct cm_map inflight;		/* (dev, sector) -> slot in p */
	struct pending *p;
	size_t np, pcap;
	size_t *free_slots;
	size_t nfree, fcap;
	char err[200];
};

/* Parse an unsigned decimal at *s; advance *s.  -1 when none or too big. */
static int num(const char **s, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*s = p;
	*v = x;
	return 0;
}

static void blanks(const char **s)
{
	while (**s == ' ' || **s == '\t')
		(*s)++;
}

/* One whitespace-separated word at *s into buf (at most len - 1 bytes). */
static int word(const char **s, char *buf, size_t len)
{
	size_t n = 0;

	blanks(s);
	while (**s && **s != ' ' && **s != '\t') {
		if (n + 1 >= len)
			return -1;
		buf[n++] = *(*s)++;
	}
	buf[n] = '\0';
	return n ? 0 : -1;
}

/* RWBS as blkparse writes it (fill_rwbs: F flush, then D, W, R or N,
 * then F for FUA, A, S, M) into tape_blk_flag bits. */
static int rwbs_flags(const char *s, uint64_t *flags)
{
	uint64_t f = 0;
	int seen_dir = 0;

	for (; *s; s++) {
		switch (*s) {
		case 'F': f |= seen_dir ? TAPE_BLK_FUA : TAPE_BLK_FLUSH; break;
		case 'D': f |= TAPE_BLK_DISCARD; seen_dir = 1; break;
		case 'W': f |= TAPE_BLK_WRITE; seen_dir = 1; break;
		case 'R': f |= TAPE_BLK_READ; seen_dir = 1; break;
		case 'N': seen_dir = 1; break;
		case 'A': f |= TAPE_BLK_RAHEAD; break;
		case 'S': f |= TAPE_BLK_SYNC; break;
		case 'M': f |= TAPE_BLK_META; break;
		case 'B': break;	/* barrier (kernels before 2.6.36) */
		default: return -1;
		}
	}
	*flags = f;
	return 0;
}

/* A line of blkparse's summary, which follows the events. */
static int summary_line(const char *s, size_t len)
{
	return strncmp(s, "CPU", 3) == 0 || strncmp(s, "Total (", 7) == 0 ||
	       strncmp(s, "Throughput", 10) == 0 || strncmp(s, "Events (", 8) == 0 ||
	       (len && s[len - 1] == ')' && strstr(s, " ("));
}

static int emit(tape_writer *w, const struct pending *p, uint64_t end_ns,
		int64_t error)
{
	struct tape_block b = {
		.ts_ns = p->ts_ns,
		.dur_ns = end_ns > p->ts_ns ? end_ns - p->ts_ns : 0,
		.pid = p->pid, .tid = p->pid,
		.dev = p->dev, .sector = p->sector, .bytes = p->bytes,
		.flags = p->flags, .error = error,
	};

	return tape_writer_append(w, TAPE_TABLE_BLOCK, &b);
}

static int slot_new(struct blk *b, size_t *slot)
{
	if (b->nfree) {
		*slot = b->free_slots[--b->nfree];
		return 0;
	}
	if (TAPE_VEC_GROW(b->p, b->pcap, b->np + 1, 256))
		return -ENOMEM;
	*slot = b->np++;
	return 0;
}

static int slot_free(struct blk *b, size_t slot)
{
	if (TAPE_VEC_GROW(b->free_slots, b->fcap, b->nfree + 1, 256))
		return -ENOMEM;
	b->p[slot].used = 0;
	b->free_slots[b->nfree++] = slot;
	return 0;
}

/* "MAJ,MIN CPU SEQ SECONDS.NANOSECONDS PID" at *pp: the device, time and
 * pid, moving *pp; 0 or -errno (b->err). */
static int blk_head(struct blk *b, const char **pp, uint64_t *dev, uint64_t *ts, uint64_t *pid)
{
	uint64_t maj, min, cpu, seq, sec, nsec;
	const char *p = *pp, *frac;

	if (num(&p, &maj) || *p++ != ',' || num(&p, &min)) {
		snprintf(b->err, sizeof(b->err), "bad device: want MAJOR,MINOR");
		return -EINVAL;
	}
	if (maj > 0xfff || min > 0xfffff) {
		snprintf(b->err, sizeof(b->err), "device %lu,%lu out of range",
			 (unsigned long)maj, (unsigned long)min);
		return -ERANGE;
	}
	*dev = maj << 20 | min;
	blanks(&p);
	if (num(&p, &cpu)) {
		snprintf(b->err, sizeof(b->err), "bad cpu field");
		return -EINVAL;
	}
	blanks(&p);
	if (num(&p, &seq)) {
		snprintf(b->err, sizeof(b->err), "bad sequence field");
		return -EINVAL;
	}
	blanks(&p);
	if (num(&p, &sec) || *p++ != '.' || (frac = p, num(&p, &nsec)) || p - frac != 9 ||
	    sec > UINT64_MAX / 1000000000u - 1) {
		snprintf(b->err, sizeof(b->err), "bad time: want SECONDS.NANOSECONDS (9 digits)");
		return -EINVAL;
	}
	*ts = sec * 1000000000u + nsec;
	blanks(&p);
	if (num(&p, pid) || *pid > UINT32_MAX) {
		snprintf(b->err, sizeof(b->err), "bad pid field");
		return -EINVAL;
	}
	*pp = p;
	return 0;
}

/* "SECTOR + NBLOCKS", "SECTOR" (C of no data), or none (D of no data:
 * "[comm]"), then the elapsed time of blkparse -t, up to the '[' of the
 * command or error, at *pp (moved to that '['); 0, 1 for a packet command
 * (SCSI passthrough, "(...)": no event), or -errno (b->err). */
static int blk_sector(struct blk *b, const char **pp, char act, uint64_t *sector,
		      uint64_t *nblocks)
{
	const char *p = *pp;

	blanks(&p);
	if (*p == '(')
		return 1;
	if (*p >= '0' && *p <= '9') {
		if (num(&p, sector)) {
			snprintf(b->err, sizeof(b->err), "bad sector");
			return -EINVAL;
		}
		blanks(&p);
		if (*p == '+') {
			p++;
			blanks(&p);
			if (num(&p, nblocks) || *nblocks > UINT64_MAX / 512) {
				snprintf(b->err, sizeof(b->err), "bad block count after '+'");
				return -EINVAL;
			}
		}
		blanks(&p);
	}
	if (*p == '(') {	/* elapsed time (blkparse -t) */
		p = strchr(p, ')');
		if (!p) {
			snprintf(b->err, sizeof(b->err), "'(' without ')'");
			return -EINVAL;
		}
		p++;
		blanks(&p);
	}
	if (*p != '[') {
		snprintf(b->err, sizeof(b->err), "want [%s] after the sector",
			 act == 'C' ? "error" : "command");
		return -EINVAL;
	}
	*pp = p;
	return 0;
}

/* A D (issue): the request in flight at dev and sector, until its C or R;
 * one issued again before completing is written as it was. */
static int blk_issue(struct blk *b, tape_writer *w, const struct pending *ev)
{
	size_t slot;
	uint64_t *old = cm_map_get(&b->inflight, ev->dev, ev->sector);

	if (old) {	/* issued again before completing */
		int rc = emit(w, &b->p[*old], 0, 0);
		if (rc < 0)
			return rc;
		slot = *old;
	} else {
		if (slot_new(b, &slot) || cm_map_set(&b->inflight, ev->dev, ev->sector, slot))
			return -ENOMEM;
	}
	b->p[slot] = *ev;
	return 0;
}

/* A C (completion, its "[ERROR]" at p) or R (requeue) of the request in
 * flight at dev and sector: a C writes it, both end it. */
static int blk_end(struct blk *b, tape_writer *w, char act, uint64_t dev, uint64_t sector,
		   uint64_t ts, const char *p)
{
	uint64_t *v = cm_map_get(&b->inflight, dev, sector);
	int rc;

	if (!v)
		return 0;
	if (act == 'C') {
		char *end;
		long long err;

		p++;
		errno = 0;
		err = strtoll(p, &end, 10);
		if (end == p || *end != ']' || errno) {
			snprintf(b->err, sizeof(b->err), "bad completion status: want [ERROR]");
			return -EINVAL;
		}
		rc = emit(w, &b->p[*v], ts, err);
		if (rc < 0)
			return rc;
	}
	size_t slot = *v;

	cm_map_del(&b->inflight, dev, sector, NULL);
	return slot_free(b, slot);
}

/* One event line: 0, 1 when it starts the summary, -errno (b->err). */
static int blk_line(struct blk *b, tape_writer *w, const char *s, size_t len)
{
	uint64_t pid, dev, ts, sector = 0, nblocks = 0;
	uint64_t flags;
	char act[8], rwbs[16];
	const char *p = s;
	int rc;

	blanks(&p);
	if (!*p)
		return 0;
	if (*p < '0' || *p > '9') {
		if (strncmp(s, "Input file ", 11) == 0)
			return 0;
		if (summary_line(s, len))
			return 1;
		snprintf(b->err, sizeof(b->err),
			 "not a blkparse event line (want 'MAJ,MIN CPU SEQ TIME PID ACTION RWBS ...')");
		return -EINVAL;
	}
	if ((rc = blk_head(b, &p, &dev, &ts, &pid)))
		return rc;
	if (word(&p, act, sizeof(act)) || word(&p, rwbs, sizeof(rwbs))) {
		snprintf(b->err, sizeof(b->err), "no action or RWBS field");
		return -EINVAL;
	}
	if (act[0] != 'D' && act[0] != 'C' && act[0] != 'R')
		return 0;
	if (rwbs_flags(rwbs, &flags)) {
		snprintf(b->err, sizeof(b->err), "bad RWBS '%s'", rwbs);
		return -EINVAL;
	}
	rc = blk_sector(b, &p, act[0], &sector, &nblocks);
	if (rc)
		return rc < 0 ? rc : 0;
	if (act[0] == 'D')
		return blk_issue(b, w, &(struct pending){ ts, (uint32_t)pid, 1, dev, sector,
							 nblocks * 512, flags });
	return blk_end(b, w, act[0], dev, sector, ts, p);
}

static int by_ts(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

/* The requests still in flight at the end, in issue order. */
static int flush_inflight(struct blk *b, tape_writer *w)
{
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < b->np; i++)
		if (b->p[i].used)
			b->p[n++] = b->p[i];
	qsort(b->p, n, sizeof(*b->p), by_ts);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = emit(w, &b->p[i], 0, 0);
	return rc;
}

static int blkparse_import(FILE *in, tape_writer *w, const struct imp_opts *o,
			   struct imp_diag *d)
{
	struct blk b = { 0 };
	struct imp_text t;
	size_t len;
	int rc;

	rc = imp_text_init(&t, in);
	while (rc == 0 && (rc = imp_text_next(&t, &len)) > 0) {
		b.err[0] = '\0';
		rc = blk_line(&b, w, t.line, len);
		if (rc == 1) {
			rc = 0;
			break;	/* the summary */
		}
		if (rc < 0)
			imp_diag_set(d, t.lineno, b.err);
	}
	imp_text_diag(&t, rc, d);
	if (rc == 0)
		rc = flush_inflight(&b, w);
	imp_text_release(&t);
	cm_map_release(&b.inflight);
	free(b.p);
	free(b.free_slots);
	return rc < 0 ? rc : 0;
}

const struct importer imp_blkparse = {
	.name = "blkparse",
	.summary = "blkparse's default text output (blktrace block layer events)",
	.not_recorded = "syscall, cache, process, file: block requests only (D to C), "
			"without file names or inodes",
	.clock = "blkparse: seconds since the trace's first event",
	.run = blkparse_import,
};
