/* SPDX-License-Identifier: MIT */
/*
 * mkgolden - write a golden trace: tests/golden/v1.iotape (format 1.0, by
 * the libtape of iotape 0.1.0) or, with --v1_1, tests/golden/v1_1.iotape
 * (format 1.1).
 *
 *   .output/tests/mkgolden tests/golden/v1.iotape
 *   .output/tests/mkgolden --v1_1 tests/golden/v1_1.iotape
 *
 * Run ONCE, by hand, when a golden file for a new format version is
 * created; the build never runs it, and it refuses to overwrite a file.
 * The committed file is the point: every later iotape must read it as
 * test_golden expects (see tests/golden/README).
 */
#include <stdio.h>
#include "tape.h"
#include <string.h>
#include "../lib/golden.c"
#include "../lib/golden11.c"

int main(int argc, char **argv)
{
	struct tape_writer_opts o = { .block_rows = GOLDEN_BLOCK_ROWS };
	tape_writer *w;
	int err, v11 = argc == 3 && !strcmp(argv[1], "--v1_1");

	if (argc != 2 && !v11) {
		fprintf(stderr, "usage: mkgolden [--v1_1] OUT.iotape\n");
		return 2;
	}
	if (v11)
		o.block_rows = GOLDEN11_BLOCK_ROWS;
	if ((err = tape_writer_open(&w, argv[argc - 1], &o))) {
		fprintf(stderr, "mkgolden: %s: %s\n", tape_strerror(err), tape_error_detail());
		return 1;
	}
	if ((err = v11 ? golden11_write(w) : golden_write(w))) {
		fprintf(stderr, "mkgolden: %s: %s\n", tape_strerror(err), tape_error_detail());
		tape_writer_free(w);
		return 1;
	}
	if ((err = tape_writer_close(w))) {
		fprintf(stderr, "mkgolden: %s: %s\n", tape_strerror(err), tape_error_detail());
		return 1;
	}
	return 0;
}
