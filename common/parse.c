/* SPDX-License-Identifier: MIT */
/*
 * parse.c - option values: the parsers and the typed option descriptions
 * of parse.h.
 *
 * The size rule is the one `iotape replay --mem-limit` always had, the
 * duration rule the one of `iotape analyze --from/--to`; both moved here
 * unchanged but for bounds given by the caller (a size of 0 is now a
 * bound's business, not the parser's).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

/* The leading unsigned decimal of s in *v and where it ends; no '-'. */
static int lead_u64(const char *s, uint64_t *v, char **end)
{
	const char *p = s;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, end, 10);
	if (*end == s)
		return -EINVAL;
	return errno == ERANGE ? -ERANGE : 0;
}

/* The leading number of s in *v and where it ends; finite. */
static int lead_double(const char *s, double *v, char **end)
{
	*v = strtod(s, end);
	if (*end == s || isnan(*v))
		return -EINVAL;
	/* "inf", or too big for a double; an underflow is the tiny value
	 * strtod() gives, left to the bounds */
	return isinf(*v) ? -ERANGE : 0;
}

int cm_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	char *end;
	int rc = lead_u64(s, &v, &end);

	if (rc == 0 && *end)
		rc = -EINVAL;
	if (rc == 0 && (v < min || v > max))
		rc = -ERANGE;
	if (rc == 0)
		*out = v;
	return rc;
}

int cm_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	char *end;
	int sh = 0, rc = lead_u64(s, &v, &end);

	if (rc == -EINVAL)
		return rc;
	switch (*end) {
	case 0: break;
	case 'k': case 'K': sh = 10; break;
	case 'm': case 'M': sh = 20; break;
	case 'g': case 'G': sh = 30; break;
	case 't': case 'T': sh = 40; break;
	default: return -EINVAL;
	}
	/* after the suffix: nothing, B, iB (b for B too) */
	if (sh && end[1] && !((end[1] == 'b' || end[1] == 'B') && !end[2]) &&
	    !(end[1] == 'i' && (end[2] == 'b' || end[2] == 'B') && !end[3]))
		return -EINVAL;
	if (rc || v > (UINT64_MAX >> sh))
		return -ERANGE;
	v <<= sh;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static const struct {
	const char *name;
	double ns;
} time_units[] = {
	{ "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 },
	{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
};

int cm_parse_duration(const char *s, uint64_t min, uint64_t max, uint64_t *ns)
{
	double v, r;
	char *end;
	size_t i;
	int rc = lead_double(s, &v, &end);

	if (rc == 0 && v < 0)
		rc = -EINVAL;
	for (i = 0; i < sizeof(time_units) / sizeof(time_units[0]); i++)
		if (strcmp(end, time_units[i].name) == 0)
			break;
	if (rc == -EINVAL || i == sizeof(time_units) / sizeof(time_units[0]))
		return -EINVAL;
	if (rc)
		return rc;
	r = v * time_units[i].ns + 0.5;
	if (r >= 0x1p64)
		return -ERANGE;
	if ((uint64_t)r < min || (uint64_t)r > max)
		return -ERANGE;
	*ns = (uint64_t)r;
	return 0;
}

int cm_parse_double(const char *s, double min, double max, double *out)
{
	double v;
	char *end;
	int rc = lead_double(s, &v, &end);

	if (rc == 0 && *end)
		rc = -EINVAL;
	if (rc == 0 && !(v >= min && v <= max))
		rc = -ERANGE;
	if (rc == 0)
		*out = v;
	return rc;
}

int cm_parse_choice(const char *choices, const char *s)
{
	size_t sl = strlen(s);
	int i = 0;

	for (const char *c = choices; *c; i++) {
		size_t l = strcspn(c, "|");

		if (l == sl && strncmp(c, s, l) == 0)
			return i;
		c += l;
		if (*c == '|')
			c++;
	}
	return -EINVAL;
}

/* ---------------------------------------------------------- typed options */

/* A bound of an integer option: b within 0 .. top. */
static uint64_t int_bound(double b, uint64_t top)
{
	if (!(b > 0))
		return 0;
	return b >= (double)top ? top : (uint64_t)b;
}

/* n written as the suffix rule reads it: "8m", "4095" */
static void fmt_size(char *buf, size_t len, uint64_t n)
{
	static const char sfx[] = "kmgt";
	int k = 0;

	while (k < 4 && n && n % 1024 == 0) {
		n /= 1024;
		k++;
	}
	snprintf(buf, len, "%llu%.*s", (unsigned long long)n, k ? 1 : 0,
		 k ? &sfx[k - 1] : "");
}

/* ns in the largest unit that holds it whole: "250ms", "2h" */
static void fmt_duration(char *buf, size_t len, uint64_t ns)
{
	static const struct { const char *name; uint64_t ns; } u[] = {
		{ "h", 3600000000000ull }, { "min", 60000000000ull }, { "s", 1000000000 },
		{ "ms", 1000000 }, { "us", 1000 }, { "ns", 1 },
	};
	size_t i = 0;

	while (ns && ns % u[i].ns)
		i++;
	snprintf(buf, len, "%llu%s", (unsigned long long)(ns / u[ns ? i : 2].ns),
		 u[ns ? i : 2].name);
}

/* x without a needless exponent: "1000000", "0.001" */
static void fmt_double(char *buf, size_t len, double x)
{
	if (x == floor(x) && fabs(x) < 1e15)
		snprintf(buf, len, "%.0f", x);
	else
		snprintf(buf, len, "%g", x);
}

/* What a value of d should be, in why: "not a size of at least 8m (...)". */
static void explain(const struct cm_optdef *d, char *why, size_t whylen)
{
	char lo[32] = "", hi[32] = "", range[80] = "";
	const char *noun = "number", *hint = "";
	uint64_t top = UINT64_MAX;

	switch (d->type) {
	case CM_OPT_FLAG:
		snprintf(why, whylen, "not 0 or 1");
		return;
	case CM_OPT_STR:
	case CM_OPT_CHOICE:
		snprintf(why, whylen, "not one of %s", d->choices ? d->choices : "");
		return;
	case CM_OPT_UINT:	/* both bounds, always */
		top = UINT_MAX;
		snprintf(lo, sizeof(lo), "%llu", (unsigned long long)int_bound(d->min, top));
		snprintf(hi, sizeof(hi), "%llu", (unsigned long long)int_bound(d->max, top));
		break;
	case CM_OPT_SIZE:
	case CM_OPT_DURATION: {
		int size = d->type == CM_OPT_SIZE;
		void (*fmt)(char *, size_t, uint64_t) = size ? fmt_size : fmt_duration;

		noun = size ? "size" : "time";
		hint = size ? " (a number with k, m, g or t)" : " (e.g. 12, 1.5s, 250ms)";
		if (d->min > 0)
			fmt(lo, sizeof(lo), int_bound(d->min, top));
		if (d->max < 0x1p64)
			fmt(hi, sizeof(hi), int_bound(d->max, top));
		break;
	}
	case CM_OPT_DOUBLE:
		if (isfinite(d->min))
			fmt_double(lo, sizeof(lo), d->min);
		if (isfinite(d->max))
			fmt_double(hi, sizeof(hi), d->max);
		if (!*lo && !*hi)
			noun = "finite number";
		break;
	default:
		snprintf(why, whylen, "not a value of this option");
		return;
	}
	if (*lo && *hi)
		snprintf(range, sizeof(range), " from %s to %s", lo, hi);
	else if (*lo)
		snprintf(range, sizeof(range), " of at least %s", lo);
	else if (*hi)
		snprintf(range, sizeof(range), " of at most %s", hi);
	snprintf(why, whylen, "not a %s%s%s", noun, range, hint);
}

int cm_opt_set(const struct cm_optdef *d, void *cfg, const char *value, char *why,
	       size_t whylen)
{
	char *field = (char *)cfg + d->off;
	uint64_t top = d->type == CM_OPT_UINT ? UINT_MAX : UINT64_MAX;
	uint64_t lo = int_bound(d->min, top), hi = int_bound(d->max, top), u = 0;
	double x = 0;
	int rc = -EINVAL;

	if (whylen)
		*why = '\0';
	if (d->type == CM_OPT_NONE)
		return -ENOTSUP;
	if (!value && d->type != CM_OPT_FLAG) {
		snprintf(why, whylen, "needs a value");
		return -EINVAL;
	}
	switch (d->type) {
	case CM_OPT_FLAG:
		if (!value || strcmp(value, "1") == 0 || strcmp(value, "0") == 0) {
			*(int *)field = !value || *value == '1';
			return 0;
		}
		break;
	case CM_OPT_STR:
		if (!d->choices || cm_parse_choice(d->choices, value) >= 0) {
			*(const char **)field = value;
			return 0;
		}
		break;
	case CM_OPT_CHOICE:
		rc = d->choices ? cm_parse_choice(d->choices, value) : -EINVAL;
		if (rc >= 0) {
			*(int *)field = rc;
			return 0;
		}
		break;
	case CM_OPT_UINT:
		if ((rc = cm_parse_u64(value, lo, hi, &u)) == 0)
			*(unsigned *)field = (unsigned)u;
		break;
	case CM_OPT_SIZE:
		if ((rc = cm_parse_size(value, lo, hi, &u)) == 0)
			*(uint64_t *)field = u;
		break;
	case CM_OPT_DURATION:
		if ((rc = cm_parse_duration(value, lo, hi, &u)) == 0)
			*(uint64_t *)field = u;
		break;
	case CM_OPT_DOUBLE:
		if ((rc = cm_parse_double(value, d->min, d->max, &x)) == 0)
			*(double *)field = x;
		break;
	default:
		return -ENOTSUP;
	}
	if (rc == 0)
		return 0;
	explain(d, why, whylen);
	return rc < 0 ? rc : -EINVAL;
}

int cm_opt_default(const struct cm_optdef *d, void *cfg, char *why, size_t whylen)
{
	const char *semi;
	char val[128];
	size_t n;

	if (!d->def || d->type == CM_OPT_NONE)
		return 0;
	semi = strchr(d->def, ';');
	if (!semi)
		return cm_opt_set(d, cfg, d->def, why, whylen);
	n = (size_t)(semi - d->def);
	while (n && isspace((unsigned char)d->def[n - 1]))
		n--;
	if (d->type == CM_OPT_STR || n >= sizeof(val)) {
		snprintf(why, whylen, "%s", d->type == CM_OPT_STR ?
			 "a string default has no note" : "too long");
		return -EINVAL;
	}
	memcpy(val, d->def, n);
	val[n] = '\0';
	return cm_opt_set(d, cfg, val, why, whylen);
}

int cm_opt_defaults(const struct cm_optdef *defs, void *cfg, char *why, size_t whylen)
{
	char r[128];
	int rc;

	for (const struct cm_optdef *d = defs; d->name; d++) {
		if ((rc = cm_opt_default(d, cfg, r, sizeof(r))) < 0) {
			snprintf(why, whylen, "%s: default '%s': %s", d->name, d->def, r);
			return rc;
		}
	}
	return 0;
}
