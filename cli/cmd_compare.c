/* SPDX-License-Identifier: MIT */
/*
 * cmd_compare.c - `iotape compare A B`: the analyses of two traces side by
 * side, with their differences, and (--check) the fidelity test of a
 * replay: B is the recording of `iotape replay` of A.
 *
 * The comparison, the checks with their thresholds and the report are
 * the analyze library's (analyze/ana_compare.h); this file parses the
 * options, resolves --map, names the errors and picks the exit status.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "ana_compare.h"
#include "anon.h"
#include "cli.h"
#include "opt.h"

enum {
	O_JSON = OPT_LONG(0),
	O_MAP = OPT_LONG(1),
	O_CHECK = OPT_LONG(2),
	O_TOP = OPT_LONG(3),
	O_NO_META = OPT_LONG(4),
	O_KEY = OPT_LONG(5),
};

struct compare_cfg {
	int json, check, no_metadata;
	const char *map, *key;
	unsigned top;		/* text only: JSON lists all */
};

static const struct opt compare_opts[] = {
	{ O_JSON, "json", NULL, "print JSON (schema iotape-compare/1) instead of text",
	  OPT_T_FLAG(struct compare_cfg, json) },
	{ O_MAP, "map", "DIR", "B replayed A under DIR: count B's files under DIR, named without DIR",
	  OPT_T_STR(struct compare_cfg, map) },
	{ O_KEY, "key", "FILE", "B is A anonymized with the key in FILE: A's names are "
	  "anonymized alike before matching", OPT_T_STR(struct compare_cfg, key) },
	{ O_CHECK, "check", NULL, "exit 1 unless B reproduces A within the fidelity thresholds",
	  OPT_T_FLAG(struct compare_cfg, check) },
	{ O_NO_META, "no-metadata", NULL, "B replayed with --no-metadata: A's metadata ops are "
	  "compute, and metadata_ops is not checked", OPT_T_FLAG(struct compare_cfg, no_metadata) },
	{ O_TOP, "top", "N", "list at most N differing files and threads (0: all)", NULL,
	  "20; all in JSON", OPT_T_UINT(struct compare_cfg, top, 0, CM_OPT_NOMAX) },
	{ 0 }
};

const struct opt_cmd compare_cmd = {
	"compare", "A B", "Compare two traces' analyses; check a replay's fidelity.",
	"Operations and bytes per kind and per file, access pattern, request\n"
	"sizes, hit ratio, compute gaps and duration of A and B side by side.\n"
	"With --map DIR --check: is B, a recorded replay of A under DIR, faithful?\n"
	"See iotape-compare(1).",
	compare_opts,
};

/* --key: A's path as the anonymizer names it (ana_cmp_opts.name_a). */
static int anon_name(void *arg, const char *path, const char **out)
{
	return cli_anon_path(arg, path, out);
}

/* --map's directory as the recorder names B's files: absolute, resolved
 * (or as given, without trailing '/', when it is not there).  0, or
 * EXIT_USAGE / EXIT_FAIL after one error line. */
static int resolve_map(const char *map, char **under)
{
	*under = realpath(map, NULL);
	if (!*under) {
		if (!(*under = strdup(map))) {
			cli_error("out of memory");
			return EXIT_FAIL;
		}
		size_t n = strlen(*under);
		while (n > 1 && (*under)[n - 1] == '/')
			(*under)[--n] = 0;
	}
	if ((*under)[0] != '/' || !(*under)[1]) {
		opt_error(&compare_cmd, "--map: '%s' is '/', or relative and not there", map);
		return EXIT_USAGE;
	}
	return 0;
}

/* Analyse side s of c and fold it in: EXIT_OK, or EXIT_FAIL after one
 * error line (and a warning per damaged table). */
static int cmp_side(struct ana_cmp *c, int s)
{
	const struct ana *a = &c->a[s];
	int err = ana_cmp_load(c, s);

	if (err) {
		cli_tape_error(c->path[s], err);
		return EXIT_FAIL;
	}
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		if (a->damage[t])
			cli_error("warning: %s: %s table: %s; comparing the events before it",
				  c->path[s], tape_table_name(t), a->damage_detail[t]);
	if (!a->have[TAPE_TABLE_SYSCALL]) {
		cli_error("%s: the trace has no syscall events: nothing to compare", c->path[s]);
		return EXIT_FAIL;
	}
	if ((err = ana_cmp_fold(c, s))) {
		cli_tape_error(c->path[s], err);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Compare a and b into c and run the checks into k: EXIT_OK, or
 * EXIT_USAGE / EXIT_FAIL after one error line.  c and *under are the
 * caller's to release, whatever the outcome. */
static int cmp_run(struct ana_cmp *c, const char *a, const char *b, const char *map,
		   int no_metadata, cli_anon *anon, char **under, struct cli_checks *k)
{
	struct ana_cmp_opts o = { .no_metadata = no_metadata,
				  .name_a = anon ? anon_name : NULL, .name_arg = anon };
	int rc;

	*under = NULL;
	if (map && (rc = resolve_map(map, under))) {
		ana_cmp_init(c, a, b, NULL);
		return rc;
	}
	o.under = *under;
	ana_cmp_init(c, a, b, &o);
	for (int s = 0; s < 2; s++)
		if ((rc = cmp_side(c, s)) != EXIT_OK)
			return rc;
	if (ana_cmp_finish(c, k)) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int compare_checks(const char *a, const char *b, const char *map, int no_metadata,
		   struct cli_checks *k)
{
	struct ana_cmp c;
	char *under;
	int rc;

	memset(k, 0, sizeof(*k));
	rc = cmp_run(&c, a, b, map, no_metadata, NULL, &under, k);
	ana_cmp_release(&c);
	free(under);
	return rc;
}

/* After a failed --check: its names on one error line. */
static void check_failed(const struct cli_checks *k)
{
	char names[256];
	size_t n = 0;

	names[0] = 0;
	for (size_t i = 0; i < k->n; i++)
		if (!k->v[i].ok && n < sizeof(names))
			n += snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
				      k->v[i].name);
	cli_error("fidelity check failed: %s", names);
}

int cmd_compare(int argc, char **argv)
{
	struct opt_parser p;
	struct compare_cfg cfg = { 0 };
	struct ana_cmp c;
	struct cli_checks k = { 0 };
	cli_anon *anon = NULL;
	char *under = NULL, **args;
	int ch, nargs, ret = EXIT_FAIL;

	ana_cmp_init(&c, NULL, NULL, NULL);
	opt_init_cfg(&p, &compare_cmd, &cfg, argc, argv);
	if ((ch = opt_all(&p)) != OPT_END)
		return ch == OPT_HELP ? EXIT_OK : EXIT_USAGE;
	args = opt_args(&p, &nargs);
	if (nargs != 2) {
		opt_error(&compare_cmd, nargs < 2 ? "missing trace (expected A B)" :
			  "too many arguments (expected A B)");
		return EXIT_USAGE;
	}
	if (cfg.key && anon_of_trace(cfg.key, args[1], &anon))
		goto out;
	ret = cmp_run(&c, args[0], args[1], cfg.map, cfg.no_metadata, anon, &under, &k);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FAIL;
	if (cfg.json) {
		if (ana_cmp_json(stdout, &c, &k)) {
			cli_error("out of memory");
			goto out;
		}
	} else {	/* --top 0: all */
		ana_cmp_text(stdout, &c, cfg.check ? &k : NULL, cfg.top ? (long)cfg.top : -1);
	}
	ret = cfg.check && k.failed ? EXIT_FAIL : EXIT_OK;
	if (cfg.check && k.failed)
		check_failed(&k);
out:
	ana_cmp_release(&c);
	free(under);
	cli_anon_free(anon);
	return ret;
}
