/* SPDX-License-Identifier: MIT */
/*
 * merge.c - one trace from the traces of several nodes (or several
 * recordings on one node), each event tagged with its host (`iotape
 * merge`, iotape-merge(1); tape.h's tape_merge_*).
 *
 * Input i becomes host i: its ids get the host folded in
 * (tape_event_set_host, iotape-format(5) "Merged traces") and its times
 * are moved by one offset, from its recorded clock pair (start_wall_ns,
 * start_mono_ns: the merged clock is CLOCK_REALTIME) or, with an align
 * match, from a common event.  Each table is a k-way merge by ts_ns of the
 * inputs' cursors (a heap of one decoded block per input): memory grows
 * with inputs, never with events, and each input's rows keep their order,
 * so tape_split() by host gives every input back.
 *
 * Every input's metadata is kept as host.H.KEY; the merged trace's own
 * keys say how it was made (merge.hosts, merge.align, host.H.offset_ns)
 * and each host's event window (host.H.t_min, host.H.t_max), which
 * `iotape analyze` uses for its per-host reports.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tape.h"
#include "tape_internal.h"

/* the version the build stamps on what it writes (the Makefile defines it;
 * a build of format/ alone, as `make fuzz` and clang_build.sh make, has
 * none) */
#ifndef IOTAPE_VERSION
#define IOTAPE_VERSION "unknown"
#endif

#define ALIGN_MAX 16
struct match {
	size_t n;
	struct {
		const struct tape_column *c;
		const char *s;	/* string columns: a glob */
		uint64_t v;
	} t[ALIGN_MAX];
	char *buf;
};

/* Parse --align's COL=VALUE[,COL=VALUE...]: 0, or -errno with e's message. */
static int match_parse(struct match *m, const char *spec, struct tape_xform_error *e)
{
	char *save = NULL, *tok;

	m->n = 0;
	if (!(m->buf = strdup(spec)))
		return tape__xerr(e, -ENOMEM, "out of memory");
	for (tok = strtok_r(m->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		const struct tape_column *c;

		if (!eq) {
			return tape__xerr(e, -EINVAL, "--align: '%s': want COLUMN=VALUE", tok);
		}
		*eq = 0;
		if (!(c = tape_column_find(TAPE_TABLE_SYSCALL, tok))) {
			return tape__xerr(e, -EINVAL, "--align: '%s' is not a column of the syscall table",
				    tok);
		}
		if (m->n == ALIGN_MAX) {
			return tape__xerr(e, -EINVAL, "--align: more than %d conditions", ALIGN_MAX);
		}
		m->t[m->n].c = c;
		m->t[m->n].s = eq + 1;
		if (c->type != TAPE_COL_STR) {
			int op = c->text == TAPE_TXT_OP ? tape_op_from_name(eq + 1) : -1;
			errno = 0;
			if (op >= 0) {
				m->t[m->n].v = (uint64_t)op;
			} else {
				m->t[m->n].v = c->type == TAPE_COL_I64
					? (uint64_t)strtoll(eq + 1, &end, 0) : strtoull(eq + 1, &end, 0);
				if (errno || end == eq + 1 || *end || (c->type == TAPE_COL_U64 &&
								       eq[1] == '-')) {
					return tape__xerr(e, -EINVAL, "--align: %s: '%s' is not a %s",
						    tok, eq + 1, c->text == TAPE_TXT_OP ?
						    "syscall name" : "number");
				}
			}
		}
		m->n++;
	}
	if (!m->n) {
		return tape__xerr(e, -EINVAL, "--align: no COLUMN=VALUE");
	}
	return 0;
}

static int match_event(const struct match *m, const struct tape_syscall *e)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct tape_column *c = m->t[i].c;
		if (c->type == TAPE_COL_STR) {
			const char *s = *(const char *const *)((const char *)e + c->offset);
			if (fnmatch(m->t[i].s, s ? s : "", 0))
				return 0;
		} else if (tape_column_get(c, e) != m->t[i].v &&
			   !(c->width == 4 && (uint32_t)m->t[i].v == tape_column_get(c, e))) {
			return 0;
		}
	}
	return 1;
}

/* ts_ns of r's earliest syscall matching m into *ts: 1, 0 when none,
 * -errno on a damaged block. */
static int match_first(tape_reader *r, const struct match *m, uint64_t *ts)
{
	tape_cursor *c;
	const void *evs;
	size_t n;
	int rc, found = 0;

	if ((rc = tape_cursor_open(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &c)) < 0)
		return rc;
	while ((rc = tape_cursor_next_block(c, &evs, &n)) > 0) {
		const struct tape_syscall *e = evs;
		for (size_t i = 0; i < n; i++, e++)
			if ((!found || e->ts_ns < *ts) && match_event(m, e)) {
				*ts = e->ts_ns;
				found = 1;
			}
	}
	tape_cursor_free(c);
	return rc < 0 ? rc : found;
}

/* ------------------------------------------------------------- inputs */

struct input {
	const char *path;
	tape_reader *r;
	int64_t off;		/* added to every time */
	uint64_t wall, mono;	/* the recorded clock pair */
	int has_clock;
	uint64_t t_min, t_max;	/* its event tables' window, before the offset */
	/* the table being merged */
	tape_cursor *c;
	const char *evs;
	size_t n, i;
};

static int meta_u64(tape_reader *r, const char *key, uint64_t *v)
{
	const char *s = tape_reader_meta(r, key);
	char *end;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

static const int event_tables[] = { TAPE_TABLE_SYSCALL, TAPE_TABLE_BLOCK,
				    TAPE_TABLE_CACHE, TAPE_TABLE_SAMPLE, TAPE_TABLE_SCHED };

/* Check input in (its reader open) and read its clock: 0, or -errno. */
static int input_check(struct input *in, struct tape_xform_error *e)
{
	const char *why;

	if ((why = tape_reader_recovered(in->r)))
		return tape__xerr(e, -EINVAL, "%s: incomplete trace (%s): merge refuses it; 'iotape "
			    "convert' makes a complete copy of what is left", in->path, why);
	if (tape_reader_hosts(in->r) || tape_reader_meta(in->r, "merge.hosts"))
		return tape__xerr(e, -EINVAL, "%s: already a merged trace (split it first: iotape "
			    "split --by host)", in->path);
	in->has_clock = meta_u64(in->r, "start_wall_ns", &in->wall) &&
			meta_u64(in->r, "start_mono_ns", &in->mono) &&
			in->wall <= INT64_MAX && in->mono <= INT64_MAX;
	in->t_min = UINT64_MAX;
	in->t_max = 0;
	for (size_t k = 0; k < sizeof(event_tables) / sizeof(*event_tables); k++) {
		struct tape_table_stats st;
		if (tape_reader_table_stats(in->r, event_tables[k], &st) == 0 && st.events) {
			if (st.t_min < in->t_min)
				in->t_min = st.t_min;
			if (st.t_max > in->t_max)
				in->t_max = st.t_max;
		}
	}
	return 0;
}

/* The offsets: 0, or -errno. */
static int offsets(struct input *in, int n, const struct match *m, const char *align,
		   const char **clock, struct tape_xform_error *e)
{
	if (!m) {
		for (int i = 0; i < n; i++)
			if (!in[i].has_clock)
				return tape__xerr(e, -EINVAL, "%s: no recorded wall-clock start (metadata "
					    "start_wall_ns and start_mono_ns): align the inputs with "
					    "--align, or set them (iotape import --meta)", in[i].path);
		for (int i = 0; i < n; i++)
			in[i].off = (int64_t)in[i].wall - (int64_t)in[i].mono;
		*clock = "realtime";
		return 0;
	}
	uint64_t *t = calloc((size_t)n, sizeof(*t)), base = 0;
	int ret = -ENOMEM;

	if (!t)
		return tape__xerr(e, -ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		int rc = match_first(in[i].r, m, &t[i]);
		if (rc < 0) {
			ret = tape__xtape(e, rc, in[i].path);
			goto out;
		}
		if (!rc) {
			ret = tape__xerr(e, -ENOENT, "%s: no syscall matches --align %s", in[i].path, align);
			goto out;
		}
		if (t[i] > base)
			base = t[i];
	}
	/* the match is at the same instant in every input: input 0's wall
	 * clock when it has one, else the latest match (no time below 0) */
	*clock = "unknown";
	if (in[0].has_clock && in[0].wall >= in[0].mono && t[0] <= INT64_MAX) {
		base = in[0].wall - in[0].mono + t[0];
		*clock = "realtime";
	}
	for (int i = 0; i < n; i++)
		in[i].off = (int64_t)(base - t[i]);
	ret = 0;
out:
	free(t);
	return ret;
}

/* ---------------------------------------------------------- the merge */

/* Load input i's next row: 1, 0 at its end, -errno. */
static int input_next(struct input *in)
{
	if (++in->i < in->n)
		return 1;
	int rc = tape_cursor_next_block(in->c, (const void **)&in->evs, &in->n);
	in->i = 0;
	return rc;
}

static uint64_t input_ts(const struct input *in, size_t size)
{
	return *(const uint64_t *)(in->evs + in->i * size) + (uint64_t)in->off;
}

/* heap of input indexes by (shifted ts, index): the order is total, so
 * equal times come out in input order */
static int before(const struct input *in, size_t size, int a, int b)
{
	uint64_t ta = input_ts(&in[a], size), tb = input_ts(&in[b], size);
	return ta < tb || (ta == tb && a < b);
}

static void sift_down(int *h, int n, int i, const struct input *in, size_t size)
{
	for (;;) {
		int l = 2 * i + 1, m = i;
		if (l < n && before(in, size, h[l], h[m]))
			m = l;
		if (l + 1 < n && before(in, size, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		int x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

/* Merge one table of every input into w: 0, or -errno. */
static int merge_table(struct input *in, int n, int table, tape_writer *w, const char *out,
		       uint64_t *events, struct tape_xform_error *e)
{
	size_t size = tape_table_event_size(table);
	int *h = calloc((size_t)n, sizeof(*h)), nh = 0, ret = 0, rc;
	union tape_event_any ev;

	if (!h)
		return tape__xerr(e, -ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		in[i].n = in[i].i = 0;
		if ((rc = tape_cursor_open(in[i].r, table, 0, UINT64_MAX, &in[i].c)) < 0 ||
		    (rc = input_next(&in[i])) < 0) {
			ret = tape__xtape(e, rc, in[i].path);
			goto out;
		}
		if (rc)
			h[nh++] = i;
	}
	for (int i = nh / 2 - 1; i >= 0; i--)
		sift_down(h, nh, i, in, size);
	while (nh) {
		struct input *s = &in[h[0]];
		memcpy(&ev, s->evs + s->i * size, size);
		if ((rc = tape_event_set_host(table, &ev, (unsigned)h[0])) < 0) {
			ret = tape__xerr(e, rc, "%s: %s table: an id too large for a merged trace (pid "
				   "or tid >= 2^22, device >= 2^32 or file id >= 2^48)", s->path,
				   tape_table_name(table));
			goto out;
		}
		if ((rc = tape_event_shift(table, &ev, s->off)) < 0) {
			ret = tape__xerr(e, rc, "%s: %s table: the clock offset %" PRId64 " ns moves a "
				   "time out of range", s->path, tape_table_name(table), s->off);
			goto out;
		}
		if ((rc = tape_writer_append(w, table, &ev)) < 0) {
			ret = tape__xtape(e, rc, out);
			goto out;
		}
		(*events)++;
		if ((rc = input_next(s)) < 0) {
			ret = tape__xtape(e, rc, s->path);
			goto out;
		}
		if (!rc)
			h[0] = h[--nh];
		sift_down(h, nh, 0, in, size);
	}
out:
	for (int i = 0; i < n; i++) {
		tape_cursor_free(in[i].c);
		in[i].c = NULL;
	}
	free(h);
	return ret;
}

/* w's metadata key k: 0, or -errno with e saying which file. */
static int set_meta(tape_writer *w, const char *out, const char *k, const char *v,
		    struct tape_xform_error *e)
{
	int err = tape_writer_set_meta(w, k, v);
	if (err < 0)
		tape__xtape(e, err, out);
	return err < 0 ? err : 0;
}

/* The merged trace's metadata: 0, or -errno. */
static int merge_meta(struct input *in, int n, tape_writer *w, const char *out,
		      const char *clock, const char *align, struct tape_xform_error *e)
{
	char k[256], v[64];
	uint64_t start = UINT64_MAX;

	snprintf(v, sizeof(v), "%d", n);
	if (set_meta(w, out, "merge.hosts", v, e) || set_meta(w, out, "source", "merge", e) ||
	    set_meta(w, out, "iotape_version", IOTAPE_VERSION, e) ||
	    set_meta(w, out, "clock", clock, e) ||
	    (align && set_meta(w, out, "merge.align", align, e)))
		return e->err;
	/* keys every input agrees on stay keys of the whole trace */
	static const char *const same[] = { "page_size", "layers" };
	for (size_t j = 0; j < sizeof(same) / sizeof(*same); j++) {
		const char *s = tape_reader_meta(in[0].r, same[j]);
		int all = s != NULL;
		for (int i = 1; i < n && all; i++) {
			const char *t = tape_reader_meta(in[i].r, same[j]);
			all = t && strcmp(s, t) == 0;
		}
		if (all && set_meta(w, out, same[j], s, e))
			return e->err;
	}
	for (int i = 0; i < n; i++) {
		const char *name = tape_reader_meta(in[i].r, "hostname");
		for (size_t j = 0; j < tape_reader_meta_count(in[i].r); j++) {
			const char *key, *val;
			if (tape_reader_meta_at(in[i].r, j, &key, &val))
				continue;
			snprintf(k, sizeof(k), "host.%d.%s", i, key);
			if (set_meta(w, out, k, val, e))
				return e->err;
		}
		snprintf(k, sizeof(k), "host.%d.name", i);
		if (set_meta(w, out, k, name && *name ? name : in[i].path, e))
			return e->err;
		snprintf(k, sizeof(k), "host.%d.input", i);
		if (set_meta(w, out, k, in[i].path, e))
			return e->err;
		snprintf(k, sizeof(k), "host.%d.offset_ns", i);
		snprintf(v, sizeof(v), "%" PRId64, in[i].off);
		if (set_meta(w, out, k, v, e))
			return e->err;
		if (in[i].t_min != UINT64_MAX) {
			snprintf(k, sizeof(k), "host.%d.t_min", i);
			snprintf(v, sizeof(v), "%" PRIu64, in[i].t_min + (uint64_t)in[i].off);
			if (set_meta(w, out, k, v, e))
				return e->err;
			snprintf(k, sizeof(k), "host.%d.t_max", i);
			snprintf(v, sizeof(v), "%" PRIu64, in[i].t_max + (uint64_t)in[i].off);
			if (set_meta(w, out, k, v, e))
				return e->err;
		}
		if (in[i].has_clock && in[i].wall < start)
			start = in[i].wall;
	}
	if (strcmp(clock, "realtime") == 0 && start != UINT64_MAX) {
		/* on the realtime clock the pair is one value twice */
		snprintf(v, sizeof(v), "%" PRIu64, start);
		if (set_meta(w, out, "start_wall_ns", v, e) || set_meta(w, out, "start_mono_ns", v, e))
			return e->err;
	}
	return 0;
}


/* ------------------------------------------------------------ the API */

struct tape_merge {
	struct match m;
	const char *align;	/* NULL: the recorded clocks */
	struct input *in;
	int n, cap;
	const char *clock;
};

int tape_merge_new(tape_merge **out, const char *align, struct tape_xform_error *e)
{
	tape_merge *g = calloc(1, sizeof(*g));
	int err;

	*out = NULL;
	tape__xclear(e);
	if (!g)
		return tape__xerr(e, -ENOMEM, "out of memory");
	if (align && (err = match_parse(&g->m, align, e))) {
		tape_merge_free(g);
		return err;
	}
	g->align = align;
	*out = g;
	return 0;
}

int tape_merge_add(tape_merge *g, tape_reader *r, const char *name, struct tape_xform_error *e)
{
	struct input *in;
	int err;

	tape__xclear(e);
	if (g->n == TAPE_HOSTS_MAX)
		return tape__xerr(e, -E2BIG, "%d traces: a merged trace holds %d hosts at most",
			    g->n + 1, TAPE_HOSTS_MAX);
	if (g->n == g->cap) {
		struct input *v = realloc(g->in, (size_t)(g->cap ? 2 * g->cap : 8) * sizeof(*v));

		if (!v)
			return tape__xerr(e, -ENOMEM, "out of memory");
		g->in = v;
		g->cap = g->cap ? 2 * g->cap : 8;
	}
	in = &g->in[g->n];
	memset(in, 0, sizeof(*in));
	in->path = name;
	in->r = r;
	if ((err = input_check(in, e)))
		return err;
	g->n++;
	return 0;
}

int tape_merge_clock(tape_merge *g, const char **clock, struct tape_xform_error *e)
{
	int err;

	tape__xclear(e);
	if ((err = offsets(g->in, g->n, g->align ? &g->m : NULL, g->align, &g->clock, e)))
		return err;
	*clock = g->clock;
	return 0;
}

int tape_merge_write(tape_merge *g, tape_writer *w, const char *out, uint64_t *events,
		     struct tape_xform_error *e)
{
	int err;

	tape__xclear(e);
	*events = 0;
	if (!g->clock)
		return tape__xerr(e, -EINVAL, "tape_merge_write before tape_merge_clock");
	if ((err = merge_meta(g->in, g->n, w, out, g->clock, g->align, e)))
		return err;
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		if ((err = merge_table(g->in, g->n, t, w, out, events, e)))
			return err;
	return 0;
}

void tape_merge_free(tape_merge *g)
{
	if (!g)
		return;
	free(g->m.buf);
	free(g->in);
	free(g);
}
