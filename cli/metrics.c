/* SPDX-License-Identifier: MIT */
/*
 * metrics.c - the metrics registry and its Prometheus text exposition
 * (metrics.h says the rules).
 *
 * Invariants: a series slot goes 0 (free) -> 1 (being claimed: its label
 * values being written) -> 2 (ready) once, and is never freed before the
 * registry; only ready slots are read by the writer or matched by a
 * lookup.  A metric with max_series N has N slots in one open-addressed
 * table (linear probing from the hash of the label values) and the
 * overflow slot N.  Histogram buckets are kept per bucket (not
 * cumulative), so one observation is one atomic add there, one to the
 * sum; the writer makes them cumulative and their total is _count.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "metrics.h"

#define DEFAULT_SERIES 64
#define SLOT_FREE 0u
#define SLOT_CLAIMING 1u
#define SLOT_READY 2u

struct cli_series {
	const struct cli_metric *m;
	_Atomic uint32_t state;
	uint32_t hash;
	_Atomic uint64_t v;	/* counter: raw units; gauge: the double's bits;
				 * histogram: the sum, raw */
	_Atomic uint64_t *b;	/* histogram: nb + 1 buckets, the last +Inf */
	char val[CLI_METRIC_LABELS][CLI_METRIC_VALUE];
};

struct cli_metric {
	char *name, *help;
	int type;
	unsigned nlabels;
	char *labels[CLI_METRIC_LABELS];
	unsigned cap;		/* slots of the table; the overflow is s[cap] */
	double scale;
	unsigned nb;
	double bounds[CLI_METRIC_BUCKETS];
	uint64_t rawb[CLI_METRIC_BUCKETS];	/* the bounds in raw units */
	struct cli_series *s;
	_Atomic uint64_t *buckets;
	struct cli_metric *next;
};

struct cli_metrics {
	struct cli_metric *first, *last;
	void (*collect)(void *arg);
	void *collect_arg;
};

int cli_metrics_new(cli_metrics **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void metric_free(struct cli_metric *f)
{
	if (!f)
		return;
	free(f->name);
	free(f->help);
	for (unsigned i = 0; i < f->nlabels; i++)
		free(f->labels[i]);
	free(f->s);
	free((void *)f->buckets);
	free(f);
}

void cli_metrics_free(cli_metrics *m)
{
	if (!m)
		return;
	for (struct cli_metric *f = m->first, *n; f; f = n) {
		n = f->next;
		metric_free(f);
	}
	free(m);
}

/* Prometheus's metric and label name rule; labels also refuse ':' and
 * the reserved "__" prefix. */
static int name_ok(const char *s, int label)
{
	if (!s || !*s || (label && !strncmp(s, "__", 2)))
		return 0;
	for (const char *p = s; *p; p++) {
		int c = (unsigned char)*p;
		int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
			    (!label && c == ':');
		if (!alpha && !(p > s && c >= '0' && c <= '9'))
			return 0;
	}
	return 1;
}

int cli_metrics_add(cli_metrics *m, const struct cli_metric_def *d, struct cli_metric **out)
{
	struct cli_metric *f;
	unsigned nl = 0;

	if (!name_ok(d->name, 0) || d->type < CLI_COUNTER || d->type > CLI_HISTOGRAM ||
	    d->nbounds > CLI_METRIC_BUCKETS || (d->type == CLI_HISTOGRAM && !d->nbounds))
		return -EINVAL;
	while (nl < CLI_METRIC_LABELS && d->labels[nl]) {
		if (!name_ok(d->labels[nl], 1) || (d->type == CLI_HISTOGRAM &&
						   !strcmp(d->labels[nl], "le")))
			return -EINVAL;
		nl++;
	}
	for (unsigned i = 1; i < d->nbounds; i++)
		if (!(d->bounds[i] > d->bounds[i - 1]))
			return -EINVAL;
	for (f = m->first; f; f = f->next)
		if (!strcmp(f->name, d->name))
			return -EEXIST;
	if (!(f = calloc(1, sizeof(*f))))
		return -ENOMEM;
	f->type = d->type;
	f->nlabels = nl;
	f->cap = nl ? (d->max_series ? d->max_series : DEFAULT_SERIES) : 1;
	f->scale = d->scale > 0 ? d->scale : 1;
	f->nb = d->type == CLI_HISTOGRAM ? d->nbounds : 0;
	f->name = strdup(d->name);
	f->help = strdup(d->help ? d->help : "");
	f->s = calloc(f->cap + 1, sizeof(*f->s));
	if (f->nb)
		f->buckets = calloc((size_t)(f->cap + 1) * (f->nb + 1), sizeof(*f->buckets));
	int bad = !f->name || !f->help || !f->s || (f->nb && !f->buckets);
	for (unsigned i = 0; i < nl; i++)
		bad |= !(f->labels[i] = strdup(d->labels[i]));
	if (bad) {
		metric_free(f);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < f->nb; i++) {
		double r = d->bounds[i] / f->scale;
		f->bounds[i] = d->bounds[i];
		f->rawb[i] = r <= 0 ? 0 : r >= 1.8e19 ? UINT64_MAX : (uint64_t)(r + 1e-6);
	}
	for (unsigned i = 0; i <= f->cap; i++) {
		f->s[i].m = f;
		if (f->nb)
			f->s[i].b = f->buckets + (size_t)i * (f->nb + 1);
		if (i == f->cap)	/* the overflow: "other" for every label */
			for (unsigned k = 0; k < nl; k++)
				strcpy(f->s[i].val[k], "other");
	}
	if (!nl)
		atomic_init(&f->s[0].state, SLOT_READY);
	if (m->last)
		m->last->next = f;
	else
		m->first = f;
	m->last = f;
	*out = f;
	return 0;
}

/* FNV-1a of the label values, each with its end. */
static uint32_t values_hash(unsigned n, const char *const *v)
{
	uint32_t h = 2166136261u;

	for (unsigned i = 0; i < n; i++) {
		for (const char *p = v[i] ? v[i] : ""; *p && p - (v[i] ? v[i] : "") <
		     CLI_METRIC_VALUE - 1; p++)
			h = (h ^ (unsigned char)*p) * 16777619u;
		h = (h ^ 0xffu) * 16777619u;
	}
	return h;
}

static int values_eq(const struct cli_series *s, unsigned n, const char *const *v)
{
	for (unsigned i = 0; i < n; i++)
		if (strncmp(s->val[i], v[i] ? v[i] : "", CLI_METRIC_VALUE - 1))
			return 0;
	return 1;
}

struct cli_series *cli_metric_series(struct cli_metric *f, const char *const *v)
{
	uint32_t h;

	if (!f->nlabels)
		return &f->s[0];
	h = values_hash(f->nlabels, v);
	for (unsigned probe = 0; probe < f->cap; probe++) {
		struct cli_series *s = &f->s[(h + probe) % f->cap];
		uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);

		if (st == SLOT_FREE) {
			uint32_t want = SLOT_FREE;
			if (atomic_compare_exchange_strong(&s->state, &want, SLOT_CLAIMING)) {
				s->hash = h;
				for (unsigned i = 0; i < f->nlabels; i++)
					snprintf(s->val[i], CLI_METRIC_VALUE, "%s", v[i] ? v[i] : "");
				atomic_store_explicit(&s->state, SLOT_READY, memory_order_release);
				return s;
			}
			st = want;
		}
		/* another thread is writing its values: a few stores away */
		while (st == SLOT_CLAIMING) {
			sched_yield();
			st = atomic_load_explicit(&s->state, memory_order_acquire);
		}
		if (s->hash == h && values_eq(s, f->nlabels, v))
			return s;
	}
	struct cli_series *o = &f->s[f->cap];
	if (atomic_load_explicit(&o->state, memory_order_relaxed) != SLOT_READY)
		atomic_store_explicit(&o->state, SLOT_READY, memory_order_release);
	return o;
}

void cli_series_add(struct cli_series *s, uint64_t n)
{
	atomic_fetch_add_explicit(&s->v, n, memory_order_relaxed);
}

void cli_series_set(struct cli_series *s, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	atomic_store_explicit(&s->v, bits, memory_order_relaxed);
}

void cli_series_observe(struct cli_series *s, uint64_t raw)
{
	const struct cli_metric *f = s->m;
	unsigned i = 0;

	while (i < f->nb && raw > f->rawb[i])
		i++;
	atomic_fetch_add_explicit(&s->b[i], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->v, raw, memory_order_relaxed);
}

void cli_metrics_on_collect(cli_metrics *m, void (*fn)(void *arg), void *arg)
{
	m->collect = fn;
	m->collect_arg = arg;
}

/* ------------------------------------------------------------ writing */

static void put_escaped(FILE *f, const char *s, int quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (quote && *s == '"')
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

static void put_double(FILE *f, double v)
{
	if (isnan(v))
		fputs("NaN", f);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", f);
	else
		fprintf(f, "%.17g", v);
}

/* A raw value in base units: exact for integers when the scale is 1. */
static void put_raw(FILE *f, const struct cli_metric *m, uint64_t raw)
{
	if (m->scale == 1)
		fprintf(f, "%" PRIu64, raw);
	else
		put_double(f, (double)raw * m->scale);
}

/* name{labels[,le="x"]} */
static void put_series_name(FILE *f, const struct cli_metric *m, const char *suffix,
			    const struct cli_series *s, const char *le)
{
	int any = 0;

	fprintf(f, "%s%s", m->name, suffix);
	for (unsigned i = 0; i < m->nlabels; i++) {
		fprintf(f, "%s%s=\"", any ? "," : "{", m->labels[i]);
		put_escaped(f, s->val[i], 1);
		fputc('"', f);
		any = 1;
	}
	if (le)
		fprintf(f, "%sle=\"%s\"", any ? "," : "{", le);
	if (any || le)
		fputc('}', f);
	fputc(' ', f);
}

static void write_series(FILE *f, const struct cli_metric *m, const struct cli_series *s)
{
	uint64_t v = atomic_load_explicit(&s->v, memory_order_relaxed);

	if (m->type == CLI_COUNTER) {
		put_series_name(f, m, "", s, NULL);
		put_raw(f, m, v);
	} else if (m->type == CLI_GAUGE) {
		double d;
		memcpy(&d, &v, sizeof(d));
		put_series_name(f, m, "", s, NULL);
		put_double(f, d);
	} else {
		uint64_t cum = 0;
		char le[40];
		for (unsigned i = 0; i <= m->nb; i++) {
			cum += atomic_load_explicit(&s->b[i], memory_order_relaxed);
			if (i < m->nb)
				snprintf(le, sizeof(le), "%.9g", m->bounds[i]);
			put_series_name(f, m, "_bucket", s, i < m->nb ? le : "+Inf");
			fprintf(f, "%" PRIu64 "\n", cum);
		}
		put_series_name(f, m, "_sum", s, NULL);
		put_raw(f, m, v);
		fputc('\n', f);
		put_series_name(f, m, "_count", s, NULL);
		fprintf(f, "%" PRIu64, cum);
	}
	fputc('\n', f);
}

int cli_metrics_write(cli_metrics *m, FILE *f)
{
	static const char *const types[] = { "counter", "gauge", "histogram" };

	if (m->collect)
		m->collect(m->collect_arg);
	for (const struct cli_metric *x = m->first; x; x = x->next) {
		fprintf(f, "# HELP %s ", x->name);
		put_escaped(f, x->help, 0);
		fprintf(f, "\n# TYPE %s %s\n", x->name, types[x->type]);
		for (unsigned i = 0; i <= x->cap; i++)
			if (atomic_load_explicit(&x->s[i].state, memory_order_acquire) == SLOT_READY)
				write_series(f, x, &x->s[i]);
	}
	return fflush(f) || ferror(f) ? -EIO : 0;
}
