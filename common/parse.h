/* SPDX-License-Identifier: MIT */
/*
 * parse.h - the one parser of option values: numbers, sizes, times, words.
 *
 * Every value a person types (a command-line option, later a key of a job
 * file) goes through these functions, so "16m", "1.5s" or "nan" mean the
 * same, or are refused the same, wherever they are given.  The rules:
 *
 *   unsigned   decimal digits, optionally after blanks and a '+' (what
 *              strtoull() takes in base 10, less the '-');
 *   size       an unsigned number with an optional suffix k, m, g or t
 *              (either case, powers of 1024), which may be followed by B,
 *              b, iB or ib: "4096", "64k", "16M", "1GiB";
 *   duration   a number (fractions allowed) with an optional unit: ns, us,
 *              ms, s (the default: "12" is 12 s), m or min, h; the result
 *              is in nanoseconds, rounded;
 *   double     what strtod() takes, finite: NaN and +-inf are always
 *              refused, whatever the bounds;
 *   choice     one of the words of "a|b|c", exactly; the result is its
 *              index (0 for "a").
 * Nothing may follow the value, not even a blank.  Bounds are inclusive.
 * Each parser returns 0, -EINVAL (not of the form) or -ERANGE (of the
 * form, outside the bounds or the type); on error *out is unchanged.
 *
 * struct cm_optdef describes one typed option of a configuration struct
 * (fio's fio_options[] idea): its name, type, default, bounds and the
 * offset of the field that holds it.  cm_opt_set() parses a value and
 * stores it there; cm_opt_defaults() stores every default of a table.  The
 * field's C type is fixed by the option type:
 *
 *   CM_OPT_FLAG      int          1 when given (a value: "1" or "0")
 *   CM_OPT_STR       const char * the value itself, not copied: it must
 *                                 outlive the struct (argv does); with
 *                                 choices, one of them
 *   CM_OPT_CHOICE    int          index of the value in choices
 *   CM_OPT_UINT      unsigned     bounds within 0 .. UINT_MAX
 *   CM_OPT_SIZE      uint64_t     bytes
 *   CM_OPT_DURATION  uint64_t     nanoseconds (bounds in nanoseconds too)
 *   CM_OPT_DOUBLE    double       finite
 *
 * CM_OPT_OFF() gives the offset and refuses, at compile time, a field of
 * another type.  No function here prints or exits; the caller words the
 * message ("--speed: 'nan' is not a number from 0.001 to 1000000") from
 * the reason they fill in.
 */
#ifndef IOTAPE_COMMON_PARSE_H
#define IOTAPE_COMMON_PARSE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

int cm_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int cm_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int cm_parse_duration(const char *s, uint64_t min, uint64_t max, uint64_t *ns);
int cm_parse_double(const char *s, double min, double max, double *out);
/* Index of s in choices ("a|b|c"), or -EINVAL. */
int cm_parse_choice(const char *choices, const char *s);

enum cm_opt_type {
	CM_OPT_NONE,	/* not stored: the caller handles the value */
	CM_OPT_FLAG,
	CM_OPT_STR,
	CM_OPT_CHOICE,
	CM_OPT_UINT,
	CM_OPT_SIZE,
	CM_OPT_DURATION,
	CM_OPT_DOUBLE,
};

/* max of an option with no upper bound but its type's */
#define CM_OPT_NOMAX INFINITY

struct cm_optdef {
	const char *name;	/* "iodepth"; NULL ends a table */
	enum cm_opt_type type;
	/* The default, NULL for none (the field keeps what the caller put
	 * there).  It is parsed like a given value; text after a ';' is a
	 * note for people ("20; all in JSON") and is not parsed.  A string
	 * default has no note. */
	const char *def;
	double min, max;	/* bounds of numbers; integers: whole numbers */
	const char *choices;	/* "a|b|c": CM_OPT_CHOICE, CM_OPT_STR */
	size_t off;		/* of the field in the struct (CM_OPT_OFF) */
};

/* offsetof(cfg, field), a compile error unless the field is a ctype */
#define CM_OPT_OFF(cfg, field, ctype) \
	(offsetof(cfg, field) + 0 * sizeof(struct { \
		_Static_assert(__builtin_types_compatible_p( \
			__typeof__(((cfg *)0)->field), ctype), \
			"the field of option " #field " is not " #ctype); \
		int unused; \
	}))

/*
 * Parse value as option d and store it in the struct at cfg: 0, or
 * -EINVAL / -ERANGE with why (NUL-terminated, cut to whylen) saying what
 * the value should be: "not a number from 1 to 65536", "not a size (a
 * number with k, m, g or t)".  value may be NULL for a flag only.  A
 * CM_OPT_NONE option stores nothing and returns -ENOTSUP.  On error
 * nothing is stored.
 */
int cm_opt_set(const struct cm_optdef *d, void *cfg, const char *value, char *why,
	       size_t whylen);

/* Store the default of d, when it has one: 0, or as cm_opt_set (a bad
 * default is a bug of the table). */
int cm_opt_default(const struct cm_optdef *d, void *cfg, char *why, size_t whylen);

/* Store every default of the table defs (ended by a NULL name): 0, or the
 * error of the first bad one, with why "NAME: default 'DEF': REASON";
 * the defaults before it are stored. */
int cm_opt_defaults(const struct cm_optdef *defs, void *cfg, char *why, size_t whylen);

#endif /* IOTAPE_COMMON_PARSE_H */
