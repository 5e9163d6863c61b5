/* SPDX-License-Identifier: MIT */
/*
 * mktape - write a trace with several tables from CSV files.
 *
 *   .output/tests/mktape OUT.iotape TABLE=FILE.csv [TABLE=FILE.csv...]
 *
 * `iotape import` builds one table per trace; tests that need tables
 * together (a file table, syscalls and the page faults they cause) use
 * this.  Each CSV starts with a header naming columns of TABLE as
 * `iotape dump --format csv` does; cells are numbers (any base strtoull
 * takes), op and cache kind names, or strings without commas.  Metadata
 * page_size=4096 and clock=monotonic are set.  Exit 0, or 1 with a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tape.h"

#define MAXCOLS 32

/* Strings of appended rows: the writer may keep pointers to them until
 * it writes the block, so they are freed after tape_writer_close. */
static char **strs;
static size_t nstrs, capstrs;

static int cell(const struct tape_column *c, void *ev, char *s)
{
	char *end;
	uint64_t v;
	int k;

	if (c->type == TAPE_COL_STR) {
		if (nstrs == capstrs) {
			size_t nc = capstrs ? 2 * capstrs : 256;
			char **a = realloc(strs, nc * sizeof(*a));
			if (!a)
				return -ENOMEM;
			strs = a;
			capstrs = nc;
		}
		if (!(strs[nstrs] = strdup(s)))
			return -ENOMEM;
		*(const char **)((char *)ev + c->offset) = strs[nstrs++];
		return 0;
	}
	if ((k = tape_column_enum_value(c, s)) >= 0) {
		v = (uint64_t)k;
	} else {
		errno = 0;
		v = *s == '-' ? (uint64_t)strtoll(s, &end, 0) : strtoull(s, &end, 0);
		if (end == s || *end || errno)
			return -EINVAL;
	}
	tape_column_set(c, ev, v);
	return 0;
}

static int load(tape_writer *w, int table, const char *path)
{
	const struct tape_column *cols[MAXCOLS];
	size_t ncols = 0, lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!f) {
		fprintf(stderr, "mktape: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		char ev[256] = { 0 }, *save = NULL, *tok;
		size_t i = 0;

		lineno++;
		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		for (tok = strtok_r(line, ",", &save); tok; tok = strtok_r(NULL, ",", &save), i++) {
			if (lineno == 1) {
				if (i == MAXCOLS || !(cols[i] = tape_column_find(table, tok))) {
					fprintf(stderr, "mktape: %s: no column '%s'\n", path, tok);
					rc = 1;
					goto out;
				}
				ncols++;
			} else if (i >= ncols || cell(cols[i], ev, tok)) {
				fprintf(stderr, "mktape: %s:%zu: bad cell '%s'\n", path, lineno, tok);
				rc = 1;
				goto out;
			}
		}
		/* strtok_r skips empty cells: keep them out of the CSV */
		if (lineno > 1 && tape_writer_append(w, table, ev)) {
			fprintf(stderr, "mktape: %s:%zu: %s\n", path, lineno, tape_error_detail());
			rc = 1;
			goto out;
		}
	}
out:
	free(line);
	fclose(f);
	return rc;
}

int main(int argc, char **argv)
{
	tape_writer *w;
	int err, rc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: mktape OUT.iotape TABLE=FILE.csv...\n");
		return 2;
	}
	if ((err = tape_writer_open(&w, argv[1], NULL))) {
		fprintf(stderr, "mktape: %s: %s\n", argv[1], tape_strerror(err));
		return 1;
	}
	tape_writer_set_meta(w, "page_size", "4096");
	tape_writer_set_meta(w, "clock", "monotonic");
	for (int i = 2; i < argc && !rc; i++) {
		char *eq = strchr(argv[i], '=');
		int t;

		if (eq)
			*eq = 0;
		t = eq ? tape_table_from_name(argv[i]) : -EINVAL;
		if (t < 0) {
			fprintf(stderr, "mktape: '%s': want TABLE=FILE.csv\n", argv[i]);
			rc = 1;
			break;
		}
		rc = load(w, t, eq + 1);
	}
	if ((err = tape_writer_close(w)) && !rc) {
		fprintf(stderr, "mktape: %s: %s\n", argv[1], tape_strerror(err));
		rc = 1;
	}
	if (rc)
		remove(argv[1]);
	for (size_t i = 0; i < nstrs; i++)
		free(strs[i]);
	free(strs);
	return rc;
}
