/* SPDX-License-Identifier: MIT */
/*
 * ss_scen.c - the scenarios of a replay session, walked in one order: the
 * order of their checks is the order their conflicts are told in, the
 * order of their hooks the order the engine calls them.  A scenario off
 * (its on() false) is skipped; one without on() is always on.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ss_internal.h"
#include "trace.h"

static void say(struct ss_replay *s, int usage, const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	if (s->ui.error)
		s->ui.error(s->ui.arg, usage, msg ? msg : "out of memory");
	free(msg);
}

int ss_error(struct ss_replay *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(s, 0, fmt, ap);
	va_end(ap);
	return SS_FAIL;
}

int ss_usage(struct ss_replay *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(s, 1, fmt, ap);
	va_end(ap);
	return SS_USAGE;
}

void ss_note(struct ss_replay *s, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg && s->ui.note)
		s->ui.note(s->ui.arg, msg);
	free(msg);
}

void ss_tape_error(struct ss_replay *s, const char *what, int err)
{
	char msg[8192];

	ss_error(s, "%s", cm_trace_error(msg, sizeof(msg), what, err));
}

/* ------------------------------------------------ the replay itself */

static int core_check(struct ss_replay *s)
{
	if (s->c.prep_only && s->c.no_prep)
		return ss_usage(s, "--prepare-only and --no-prepare exclude each other");
	return SS_OK;
}

static int memlimit_check(struct ss_replay *s)
{
	if (s->c.r.mem_limit && geteuid() != 0)
		return ss_error(s, "--mem-limit needs root (it creates a cgroup)");
	if (!s->c.acc_given)		/* not asked: the report says nothing of it; */
		s->c.r.accelerators = 0;	/* find-max searches up to 1024 */
	return SS_OK;
}

static const struct ss_scenario ss_core = { "replay", NULL, core_check };
static const struct ss_scenario ss_memlimit = { "mem-limit", NULL, memlimit_check };

/* ----------------------------------------------- the caller's hooks */

static int ext_on(const struct ss_replay *s)
{
	return s->c.metrics || s->c.linger > 0;
}

static int ext_check(struct ss_replay *s)
{
	if (s->c.linger > 0 && !s->c.metrics)
		return ss_usage(s, "--metrics-linger needs --metrics");
	if (s->c.metrics && s->c.mpi)
		return ss_usage(s, "--metrics and --mpi exclude each other (the ranks of a "
				"node would want one port)");
	return SS_OK;
}

static int ext_hooks(struct ss_replay *s, struct rp_engine *e)
{
	struct rp_hooks lh;

	if (!s->ext.hooks)
		return SS_OK;
	if (s->ext.hooks(s->ext.arg, &s->src->layout, s->c.o.loops, &lh) ||
	    rp_engine_add_hooks(e, &lh))
		return ss_error(s, "out of memory");
	return SS_OK;
}

const struct ss_scenario ss_ext_hooks = { "metrics", ext_on, ext_check, .hooks = ext_hooks };

/* ------------------------------------------------------- the walk */

const struct ss_scenario *const ss_scenarios[] = {
	&ss_core, &ss_memlimit, &ss_findmax, &ss_ext_hooks, &ss_mpi, &ss_placements, &ss_stage,
	&ss_place, &ss_burst, &ss_readers, NULL
};

#define EACH(sc) for (const struct ss_scenario *const *sc = ss_scenarios; *sc; sc++) \
	if (!(*sc)->on || (*sc)->on(s))

int ss_scen_check(struct ss_replay *s)
{
	int rc;

	for (const struct ss_scenario *const *sc = ss_scenarios; *sc; sc++)
		if ((*sc)->check && (rc = (*sc)->check(s)))
			return rc;
	return SS_OK;
}

int ss_scen_layout(struct ss_replay *s, struct rp_layout *l)
{
	int rc;

	EACH(sc)
		if ((*sc)->layout && (rc = (*sc)->layout(s, l)))
			return rc;
	return SS_OK;
}

int ss_scen_prepared(struct ss_replay *s, FILE *out)
{
	int rc;

	EACH(sc)
		if ((*sc)->prepared && (rc = (*sc)->prepared(s, out)))
			return rc;
	return SS_OK;
}

int ss_scen_hooks(struct ss_replay *s, struct rp_engine *e)
{
	int rc;

	EACH(sc)
		if ((*sc)->hooks && (rc = (*sc)->hooks(s, e)))
			return rc;
	return SS_OK;
}

void ss_scen_after(struct ss_replay *s, struct rp_result *res)
{
	EACH(sc)
		if ((*sc)->after)
			(*sc)->after(s, res);
}

void ss_scen_release(struct ss_replay *s)
{
	for (const struct ss_scenario *const *sc = ss_scenarios; *sc; sc++)
		if ((*sc)->release)
			(*sc)->release(s);
}
