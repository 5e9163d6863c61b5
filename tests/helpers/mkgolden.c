/* SPDX-License-Identifier: MIT */
/*
 * mkgolden - write the golden trace tests/golden/v1.iotape.
 *
 *   .output/tests/mkgolden tests/golden/v1.iotape
 *
 * Run ONCE, by hand, when a golden file for a new format version is
 * created; the build never runs it, and it refuses to overwrite a file.
 * The committed file is the point: every later iotape must read it as
 * test_golden expects (see tests/golden/README).
 */
#include <stdio.h>
#include "tape.h"
#include "../lib/golden.c"

int main(int argc, char **argv)
{
	struct tape_writer_opts o = { .block_rows = GOLDEN_BLOCK_ROWS };
	tape_writer *w;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: mkgolden OUT.iotape\n");
		return 2;
	}
	if ((err = tape_writer_open(&w, argv[1], &o))) {
		fprintf(stderr, "mkgolden: %s: %s\n", tape_strerror(err), tape_error_detail());
		return 1;
	}
	if ((err = golden_write(w))) {
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
