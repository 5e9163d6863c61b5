/* SPDX-License-Identifier: MIT */
/*
 * test_parse.c - common/parse: each value rule (what it takes, what it
 * refuses, -EINVAL or -ERANGE, nothing stored on error), the typed options
 * (storage at the offset, the reasons given, defaults and their notes).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "parse.h"

#define U64_MAX UINT64_MAX
#define N(a) (sizeof(a) / sizeof((a)[0]))

struct good {
	const char *s;
	uint64_t v;
};
typedef int (*parse_fn)(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* parse takes every good[] to its value and refuses every bad[] with
 * -EINVAL, storing nothing (no bounds but the type's). */
static void check_rule(parse_fn parse, const struct good *good, size_t ngood,
		       const char *const *bad, size_t nbad)
{
	uint64_t v;

	for (size_t i = 0; i < ngood; i++) {
		v = 1234;
		assert_int_equal(parse(good[i].s, 0, U64_MAX, &v), 0);
		assert_true(v == good[i].v);
	}
	for (size_t i = 0; i < nbad; i++) {
		v = 1234;
		assert_int_equal(parse(bad[i], 0, U64_MAX, &v), -EINVAL);
		assert_int_equal(v, 1234);
	}
}

static void test_u64(void **state)
{
	static const struct good good[] = {
		{ "0", 0 }, { "42", 42 }, { "+7", 7 }, { " 7", 7 }, { "007", 7 },
		{ "18446744073709551615", U64_MAX },
	};
	static const char *const bad[] = { "", " ", "-1", " -1", "-0", "x", "1x", "7 ", "1.5",
					   "0x10", "+", "1e3" };
	uint64_t v;

	(void)state;
	check_rule(cm_parse_u64, good, N(good), bad, N(bad));
	assert_int_equal(cm_parse_u64("18446744073709551616", 0, U64_MAX, &v), -ERANGE);
	assert_int_equal(cm_parse_u64("0", 1, 65536, &v), -ERANGE);
	assert_int_equal(cm_parse_u64("65537", 1, 65536, &v), -ERANGE);
	assert_int_equal(cm_parse_u64("65536", 1, 65536, &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(cm_parse_u64("1", 1, 65536, &v), 0);
	assert_int_equal(v, 1);
}

static void test_size(void **state)
{
	static const struct good good[] = {
		{ "0", 0 }, { "4096", 4096 }, { "64k", 64 << 10 }, { "64K", 64 << 10 },
		{ "16m", 16 << 20 }, { "16M", 16 << 20 }, { "1g", 1ull << 30 },
		{ "1GiB", 1ull << 30 }, { "1Gib", 1ull << 30 }, { "2tb", 2ull << 40 },
		{ "2TB", 2ull << 40 }, { "3kB", 3 << 10 }, { "+5k", 5 << 10 }, { " 5k", 5 << 10 },
		{ "16777215t", 16777215ull << 40 },
	};
	static const char *const bad[] = { "", "k", "-1k", "1x", "1k5", "1KIB", "1kiB ", "1.5g",
					   "1B", "5 k", "1kbb", "1kIb", "nan", "inf" };
	uint64_t v;

	(void)state;
	check_rule(cm_parse_size, good, N(good), bad, N(bad));
	assert_int_equal(cm_parse_size("16777216t", 0, U64_MAX, &v), -ERANGE);
	assert_int_equal(cm_parse_size("99999999999999999999", 0, U64_MAX, &v), -ERANGE);
	assert_int_equal(cm_parse_size("99999999999999999999x", 0, U64_MAX, &v), -EINVAL);
	assert_int_equal(cm_parse_size("1k", 8 << 20, U64_MAX, &v), -ERANGE);
	assert_int_equal(cm_parse_size("0", 8 << 20, U64_MAX, &v), -ERANGE);
	assert_int_equal(cm_parse_size("8m", 8 << 20, U64_MAX, &v), 0);
	assert_true(v == 8 << 20);
	assert_int_equal(cm_parse_size("2g", 0, 1 << 30, &v), -ERANGE);
}

static void test_duration(void **state)
{
	static const struct good good[] = {
		{ "12", 12000000000ull }, { "0", 0 }, { "-0", 0 }, { "1.5s", 1500000000 },
		{ "250ms", 250000000 }, { "3us", 3000 }, { "7ns", 7 }, { "0.4ns", 0 },
		{ "0.5ns", 1 }, { "2m", 120000000000ull }, { "2min", 120000000000ull },
		{ "1h", 3600000000000ull }, { "1e3ms", 1000000000 }, { " 1s", 1000000000 },
	};
	static const char *const bad[] = { "", "s", "5x", "-1", "-1s", "nan", "nans", "1 s", "1s ",
					   "1S", "1sec", "1hh" };
	uint64_t v = 1234;

	(void)state;
	check_rule(cm_parse_duration, good, N(good), bad, N(bad));
	assert_int_equal(cm_parse_duration("inf", 0, U64_MAX, &v), -ERANGE);
	assert_int_equal(cm_parse_duration("infs", 0, U64_MAX, &v), -ERANGE);
	assert_int_equal(cm_parse_duration("1e400", 0, U64_MAX, &v), -ERANGE);
	assert_int_equal(cm_parse_duration("6000000h", 0, U64_MAX, &v), -ERANGE);
	assert_int_equal(cm_parse_duration("1ms", 1000000000, U64_MAX, &v), -ERANGE);
	assert_int_equal(cm_parse_duration("2s", 0, 1000000000, &v), -ERANGE);
	assert_int_equal(v, 1234);
}

static void test_double(void **state)
{
	static const char *const bad[] = { "", "x", "1x", "1 ", "nan", "NaN", "-nan", "1,5" };
	double v;

	(void)state;
	assert_int_equal(cm_parse_double("1", 0, 10, &v), 0);
	assert_true(v == 1);
	assert_int_equal(cm_parse_double("0.5", 0, 10, &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(cm_parse_double("1e-3", 1e-3, 1e6, &v), 0);
	assert_true(v == 1e-3);
	assert_int_equal(cm_parse_double("-2.5", -INFINITY, INFINITY, &v), 0);
	assert_true(v == -2.5);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		assert_int_equal(cm_parse_double(bad[i], -INFINITY, INFINITY, &v), -EINVAL);
		assert_true(v == 7);
	}
	/* never infinite, whatever the bounds */
	assert_int_equal(cm_parse_double("inf", -INFINITY, INFINITY, &v), -ERANGE);
	assert_int_equal(cm_parse_double("-inf", -INFINITY, INFINITY, &v), -ERANGE);
	assert_int_equal(cm_parse_double("infinity", -INFINITY, INFINITY, &v), -ERANGE);
	assert_int_equal(cm_parse_double("1e400", -INFINITY, INFINITY, &v), -ERANGE);
	assert_int_equal(cm_parse_double("1e-300", 1e-3, 1e6, &v), -ERANGE);
	assert_int_equal(cm_parse_double("0", 1e-3, 1e6, &v), -ERANGE);
	assert_int_equal(cm_parse_double("-1", 0, 1000, &v), -ERANGE);
	assert_int_equal(cm_parse_double("1000.5", 0, 1000, &v), -ERANGE);
	assert_true(v == 7);
}

static void test_choice(void **state)
{
	(void)state;
	assert_int_equal(cm_parse_choice("text|csv|jsonl", "text"), 0);
	assert_int_equal(cm_parse_choice("text|csv|jsonl", "jsonl"), 2);
	assert_int_equal(cm_parse_choice("text|csv|jsonl", "json"), -EINVAL);
	assert_int_equal(cm_parse_choice("text|csv|jsonl", "TEXT"), -EINVAL);
	assert_int_equal(cm_parse_choice("text|csv|jsonl", ""), -EINVAL);
	assert_int_equal(cm_parse_choice("text|csv|jsonl", "text|csv"), -EINVAL);
	assert_int_equal(cm_parse_choice("1|2", "2"), 1);
}

struct cfg {
	int flag, choice;
	const char *str, *word;
	unsigned n;
	uint64_t size, ns;
	double x;
};

static const struct cm_optdef defs[] = {
	{ "flag", CM_OPT_FLAG, NULL, 0, 0, NULL, CM_OPT_OFF(struct cfg, flag, int) },
	{ "choice", CM_OPT_CHOICE, "b", 0, 0, "a|b|c", CM_OPT_OFF(struct cfg, choice, int) },
	{ "str", CM_OPT_STR, "hello", 0, 0, NULL, CM_OPT_OFF(struct cfg, str, const char *) },
	{ "word", CM_OPT_STR, NULL, 0, 0, "x|y", CM_OPT_OFF(struct cfg, word, const char *) },
	{ "n", CM_OPT_UINT, "20; all in JSON", 1, 65536, NULL,
	  CM_OPT_OFF(struct cfg, n, unsigned) },
	{ "size", CM_OPT_SIZE, NULL, 8 << 20, CM_OPT_NOMAX, NULL,
	  CM_OPT_OFF(struct cfg, size, uint64_t) },
	{ "ns", CM_OPT_DURATION, "1.5s", 0, CM_OPT_NOMAX, NULL,
	  CM_OPT_OFF(struct cfg, ns, uint64_t) },
	{ "x", CM_OPT_DOUBLE, "1", 1e-3, 1e6, NULL, CM_OPT_OFF(struct cfg, x, double) },
	{ NULL }
};

/* cm_opt_set of defs[i]: its return, why checked when want_why is set */
static int set(struct cfg *c, int i, const char *value, const char *want_why)
{
	char why[128];
	int rc = cm_opt_set(&defs[i], c, value, why, sizeof(why));

	if (want_why)
		assert_string_equal(why, want_why);
	if (rc == 0)
		assert_string_equal(why, "");
	return rc;
}

static void test_opt(void **state)
{
	struct cfg c, before;
	char why[128];

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(cm_opt_defaults(defs, &c, why, sizeof(why)), 0);
	assert_int_equal(c.flag, 0);
	assert_int_equal(c.choice, 1);
	assert_string_equal(c.str, "hello");
	assert_null(c.word);
	assert_int_equal(c.n, 20);	/* the note is not parsed */
	assert_true(c.size == 0);	/* no default: left alone */
	assert_true(c.ns == 1500000000);
	assert_true(c.x == 1);

	assert_int_equal(set(&c, 0, NULL, NULL), 0);
	assert_int_equal(c.flag, 1);
	assert_int_equal(set(&c, 0, "0", NULL), 0);
	assert_int_equal(c.flag, 0);
	assert_int_equal(set(&c, 1, "c", NULL), 0);
	assert_int_equal(c.choice, 2);
	assert_int_equal(set(&c, 2, "any thing", NULL), 0);
	assert_string_equal(c.str, "any thing");
	assert_int_equal(set(&c, 3, "y", NULL), 0);
	assert_string_equal(c.word, "y");
	assert_int_equal(set(&c, 4, "65536", NULL), 0);
	assert_int_equal(c.n, 65536);
	assert_int_equal(set(&c, 5, "16m", NULL), 0);
	assert_true(c.size == 16 << 20);
	assert_int_equal(set(&c, 6, "250ms", NULL), 0);
	assert_true(c.ns == 250000000);
	assert_int_equal(set(&c, 7, "2.5", NULL), 0);
	assert_true(c.x == 2.5);

	/* refused: the reason, nothing stored */
	memcpy(&before, &c, sizeof(c));
	assert_int_equal(set(&c, 0, "yes", "not 0 or 1"), -EINVAL);
	assert_int_equal(set(&c, 1, "d", "not one of a|b|c"), -EINVAL);
	assert_int_equal(set(&c, 3, "z", "not one of x|y"), -EINVAL);
	assert_int_equal(set(&c, 4, "0", "not a number from 1 to 65536"), -ERANGE);
	assert_int_equal(set(&c, 4, "x", "not a number from 1 to 65536"), -EINVAL);
	assert_int_equal(set(&c, 4, "4294967296", NULL), -ERANGE);
	assert_int_equal(set(&c, 5, "1k", "not a size of at least 8m (a number with k, m, g or t)"),
			 -ERANGE);
	assert_int_equal(set(&c, 5, "12q", NULL), -EINVAL);
	assert_int_equal(set(&c, 6, "5x", "not a time (e.g. 12, 1.5s, 250ms)"), -EINVAL);
	assert_int_equal(set(&c, 7, "nan", "not a number from 0.001 to 1000000"), -EINVAL);
	assert_int_equal(set(&c, 7, "inf", NULL), -ERANGE);
	assert_int_equal(set(&c, 7, "1e-300", NULL), -ERANGE);
	assert_int_equal(set(&c, 7, NULL, "needs a value"), -EINVAL);
	assert_memory_equal(&c, &before, sizeof(c));

	/* a number can hold the largest value of its field */
	struct cm_optdef d = defs[4];
	d.max = CM_OPT_NOMAX;
	assert_int_equal(cm_opt_set(&d, &c, "4294967295", why, sizeof(why)), 0);
	assert_int_equal(c.n, UINT_MAX);
	assert_int_equal(cm_opt_set(&d, &c, "4294967296", why, sizeof(why)), -ERANGE);
	assert_string_equal(why, "not a number from 1 to 4294967295");
	d = defs[5];
	d.min = 4096;
	d.max = 1 << 30;
	assert_int_equal(cm_opt_set(&d, &c, "2g", why, sizeof(why)), -ERANGE);
	assert_string_equal(why, "not a size from 4k to 1g (a number with k, m, g or t)");
	d = defs[6];
	d.min = 250e6;
	d.max = 7200e9;
	assert_int_equal(cm_opt_set(&d, &c, "1ms", why, sizeof(why)), -ERANGE);
	assert_string_equal(why, "not a time from 250ms to 2h (e.g. 12, 1.5s, 250ms)");
	d = defs[7];
	d.min = 0;
	d.max = CM_OPT_NOMAX;
	assert_int_equal(cm_opt_set(&d, &c, "-1", why, sizeof(why)), -ERANGE);
	assert_string_equal(why, "not a number of at least 0");
	d.min = -INFINITY;
	assert_int_equal(cm_opt_set(&d, &c, "inf", why, sizeof(why)), -ERANGE);
	assert_string_equal(why, "not a finite number");

	/* a short buffer is cut, not overrun */
	char small[8];
	memset(small, 'z', sizeof(small));
	assert_int_equal(cm_opt_set(&defs[4], &c, "0", small, 6), -ERANGE);
	assert_string_equal(small, "not a");
	assert_int_equal(small[6], 'z');

	/* not stored by the library */
	d = defs[0];
	d.type = CM_OPT_NONE;
	assert_int_equal(cm_opt_set(&d, &c, "1", why, sizeof(why)), -ENOTSUP);
	assert_int_equal(cm_opt_default(&d, &c, why, sizeof(why)), 0);
}

static void test_bad_defaults(void **state)
{
	struct cfg c = { 0 };
	char why[128];
	struct cm_optdef bad[] = {
		{ "n", CM_OPT_UINT, "7", 1, 65536, NULL, CM_OPT_OFF(struct cfg, n, unsigned) },
		{ "x", CM_OPT_DOUBLE, "0; off", 1e-3, 1e6, NULL, CM_OPT_OFF(struct cfg, x, double) },
		{ "size", CM_OPT_SIZE, "1k", 0, CM_OPT_NOMAX, NULL,
		  CM_OPT_OFF(struct cfg, size, uint64_t) },
		{ NULL }
	};

	(void)state;
	assert_int_equal(cm_opt_defaults(bad, &c, why, sizeof(why)), -ERANGE);
	assert_string_equal(why, "x: default '0; off': not a number from 0.001 to 1000000");
	assert_int_equal(c.n, 7);	/* the ones before it are stored */
	assert_true(c.size == 0);

	struct cm_optdef s = { "str", CM_OPT_STR, "a; note", 0, 0, NULL,
			       CM_OPT_OFF(struct cfg, str, const char *) };
	assert_int_equal(cm_opt_default(&s, &c, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "a string default has no note");
	assert_null(c.str);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_choice),
		cmocka_unit_test(test_opt),
		cmocka_unit_test(test_bad_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
