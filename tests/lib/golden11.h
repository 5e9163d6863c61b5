/* SPDX-License-Identifier: MIT */
/*
 * golden11.h - the deterministic content of tests/golden/v1_1.iotape, the
 * golden trace of format 1.1.
 *
 * tests/helpers/mkgolden --v1_1 wrote the file ONCE with golden11_write();
 * test_golden reads the committed file and checks it against
 * golden11_event().  Changing anything here changes what the test expects
 * of a file that can no longer change: don't.
 *
 * What the file is for: the features 1.1 added, as the reference writer
 * chose them on its own: EXP and DEXP columns with zstd'd exponents, pid
 * and op predicted, and blocks where op is not (too many misses).
 */
#ifndef IOTAPE_GOLDEN11_H
#define IOTAPE_GOLDEN11_H

#include <stddef.h>
#include <stdint.h>
#include "tape.h"

#define GOLDEN11_ROWS 4096		/* syscall events */
#define GOLDEN11_BLOCK_ROWS 1024	/* writer opts.block_rows: 4 blocks */

/* Syscall event i: a pure function of i; path and path2 are static. */
void golden11_event(size_t i, struct tape_syscall *ev);
/* Write the whole trace with w (opened with GOLDEN11_BLOCK_ROWS, format
 * 1.1); does not close it. */
int golden11_write(tape_writer *w);

#endif
