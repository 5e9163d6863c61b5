/* SPDX-License-Identifier: MIT */
/*
 * test_jobkeys.c - the one table of job-file keys (common/job.h's
 * cm_job_keys[]) and what uses it: each key's default is a value of its
 * type and range, just past the range is refused with the message the
 * job-file source prints, iotape-job(5) documents every key in its
 * section, and the source (replay/rp_jobfile.c) stores every key but the
 * informative ones in a field of the job, takes its defaults from the
 * table and refuses what the table refuses (cmocka; exit 0 pass, 1 fail).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "job.h"
#include "replay.h"

/* The value of key k a job would not have by default: its range's far
 * end, the other word, the longest text. */
static void other_value(int k, char *buf, size_t len)
{
	const struct cm_job_keydef *d = &cm_job_keys[k];
	const char *def = d->def ? d->def : "";
	struct cm_job_val v;
	char why[512];
	size_t n;

	switch (d->type) {
	case CM_JOB_STR:
		n = d->max ? d->max : 1;
		assert_true(n < len);
		memset(buf, 'a', n);
		buf[n] = 0;
		break;
	case CM_JOB_UINT:
	case CM_JOB_SIZE:
	case CM_JOB_SECS:
		v.u = 0;
		v.d = 0;
		if (d->def)
			assert_int_equal(cm_job_parse(k, d->def, &v, why, sizeof(why)), 0);
		if (d->def && (d->type == CM_JOB_SECS ? v.d == (double)d->max : v.u == d->max))
			snprintf(buf, len, "%llu", (unsigned long long)d->min);
		else
			snprintf(buf, len, "%llu", (unsigned long long)d->max);
		break;
	case CM_JOB_BOOL:
		snprintf(buf, len, "%s", strcmp(def, "on") ? "on" : "off");
		break;
	case CM_JOB_CHOICE:
		snprintf(buf, len, "%.*s", (int)strcspn(d->choices, "|"), d->choices);
		if (!strcmp(buf, def))
			snprintf(buf, len, "%s", strrchr(d->choices, '|') + 1);
		break;
	}
}

/* The table: names unique, in a known section; a default parses as its
 * key's type; the ends of a range are taken, past them is refused. */
static void test_table(void **state)
{
	char why[512], buf[512];
	struct cm_job_val v;

	(void)state;
	for (int k = 0; k < CM_JOB_NKEYS; k++) {
		const struct cm_job_keydef *d = &cm_job_keys[k];

		assert_non_null(d->section);
		assert_non_null(d->name);
		assert_non_null(d->use);
		assert_true(cm_job_section(d->section) >= 0);
		assert_int_equal(cm_job_find(d->section, d->name), k);
		if (d->def)
			assert_int_equal(cm_job_parse(k, d->def, &v, why, sizeof(why)), 0);
		if (d->flags & (CM_JOB_REQUIRED | CM_JOB_INFO))
			assert_null(d->def);
		switch (d->type) {
		case CM_JOB_UINT:
		case CM_JOB_SIZE:
			assert_true(d->min <= d->max);
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)d->max);
			assert_int_equal(cm_job_parse(k, buf, &v, why, sizeof(why)), 0);
			assert_true(v.u == d->max);
			if (d->max < UINT64_MAX) {
				snprintf(buf, sizeof(buf), "%llu", (unsigned long long)d->max + 1);
				assert_int_equal(cm_job_parse(k, buf, &v, why, sizeof(why)), -EINVAL);
				assert_true(!strncmp(why, d->section, strlen(d->section)));
				assert_non_null(strstr(why, buf));
			}
			if (d->min) {
				snprintf(buf, sizeof(buf), "%llu", (unsigned long long)d->min - 1);
				assert_int_equal(cm_job_parse(k, buf, &v, why, sizeof(why)), -EINVAL);
			}
			break;
		case CM_JOB_SECS:
			assert_true(d->max > 0);
			assert_int_equal(cm_job_parse(k, "-1", &v, why, sizeof(why)), -EINVAL);
			assert_int_equal(cm_job_parse(k, "nan", &v, why, sizeof(why)), -EINVAL);
			break;
		case CM_JOB_STR:
			if (d->max) {
				assert_true(d->max < sizeof(buf) - 1);
				memset(buf, 'a', d->max + 1);
				buf[d->max + 1] = 0;
				assert_int_equal(cm_job_parse(k, buf, &v, why, sizeof(why)), -EINVAL);
				buf[d->max] = 0;
				assert_int_equal(cm_job_parse(k, buf, &v, why, sizeof(why)), 0);
			}
			break;
		case CM_JOB_BOOL:
			assert_int_equal(cm_job_parse(k, "on", &v, why, sizeof(why)), 0);
			assert_int_equal(v.c, 1);
			assert_int_equal(cm_job_parse(k, "yes", &v, why, sizeof(why)), -EINVAL);
			break;
		case CM_JOB_CHOICE:
			assert_non_null(d->choices);
			assert_int_equal(cm_job_parse(k, "nope", &v, why, sizeof(why)), -EINVAL);
			break;
		}
	}
	/* the message the job-file source prints, word for word */
	assert_int_equal(cm_job_parse(CM_JOB_K_NUM_FILES, "x", &v, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "dataset.num_files: 'x' is not a whole number from 0 to 100000000");
	assert_int_equal(cm_job_find("dataset", "nope"), -ENOENT);
	assert_int_equal(cm_job_section("nope"), -ENOENT);
}

/* iotape-job(5) has each key as a tagged paragraph (.TP, then .B or .BR
 * naming it) under its section's .SS [SECTION]. */
static void test_man(void **state)
{
	const char *top = getenv("TOP");
	char path[4096], line[1024], sec[64] = "";
	int found[CM_JOB_NKEYS] = { 0 }, tp = 0;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/man/iotape-job.5", top ? top : ".");
	f = fopen(path, "r");
	if (!f)
		skip();	/* not run from the top of the tree */
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, ".SS [", 5)) {
			snprintf(sec, sizeof(sec), "%.*s", (int)strcspn(line + 5, "]"), line + 5);
		} else if (!strncmp(line, ".S", 2)) {
			sec[0] = 0;
		} else if (tp && (!strncmp(line, ".B ", 3) || !strncmp(line, ".BR ", 4))) {
			for (char *w = strtok(line + 3, " \","); w; w = strtok(NULL, " \",")) {
				int k = *sec ? cm_job_find(sec, w) : -1;
				if (k >= 0)
					found[k] = 1;
			}
		}
		tp = !strcmp(line, ".TP");
	}
	fclose(f);
	for (int k = 0; k < CM_JOB_NKEYS; k++)
		if (!found[k])
			fail_msg("iotape-job(5) has no paragraph for %s.%s", cm_job_keys[k].section,
				 cm_job_keys[k].name);
}

/* The fields before the parser's bookkeeping (seen, lines), less the
 * [checkpoint] flag any key of that section sets. */
static int same_job(struct rp_jobspec *a, struct rp_jobspec *b)
{
	int ca = a->checkpoint, cb = b->checkpoint, same;

	a->checkpoint = b->checkpoint = 0;
	same = !memcmp(a, b, offsetof(struct rp_jobspec, seen));
	a->checkpoint = ca;
	b->checkpoint = cb;
	return same;
}

/* The job-file source: a key given its default changes nothing; given
 * another value it changes the job, unless informative; a value the table
 * refuses is refused with the table's message. */
static void test_source(void **state)
{
	static struct rp_jobspec dflt, j;
	char kv[1024], val[512], err[1024], want[1024], why[512];

	(void)state;
	rp_jobspec_init(&dflt);
	for (int k = 0; k < CM_JOB_NKEYS; k++) {
		const struct cm_job_keydef *d = &cm_job_keys[k];
		int info;

		if (d->def) {
			rp_jobspec_init(&j);
			snprintf(kv, sizeof(kv), "%s.%s=%s", d->section, d->name, d->def);
			assert_int_equal(rp_jobspec_set(&j, kv, "--set", err, sizeof(err)), 0);
			if (!same_job(&j, &dflt))
				fail_msg("%s: not the default the job starts with", kv);
		}
		other_value(k, val, sizeof(val));
		rp_jobspec_init(&j);
		snprintf(kv, sizeof(kv), "%s.%s=%s", d->section, d->name, val);
		if (rp_jobspec_set(&j, kv, "--set", err, sizeof(err)))
			fail_msg("%s: %s", kv, err);
		info = !!(d->flags & CM_JOB_INFO);
		if (info != same_job(&j, &dflt))
			fail_msg("%s: %s the job", kv, same_job(&j, &dflt) ? "does not change" :
				 "(informative) changes");

		snprintf(kv, sizeof(kv), "%s.%s=%s", d->section, d->name, "-x");
		assert_int_equal(cm_job_parse(k, "-x", NULL, why, sizeof(why)),
				 d->type == CM_JOB_STR ? 0 : -EINVAL);
		if (d->type != CM_JOB_STR) {
			assert_int_equal(rp_jobspec_set(&j, kv, "--set", err, sizeof(err)), -EINVAL);
			snprintf(want, sizeof(want), "--set: %s", why);
			assert_string_equal(err, want);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_man),
		cmocka_unit_test(test_source),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
