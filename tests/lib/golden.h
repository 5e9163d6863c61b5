/* SPDX-License-Identifier: MIT */
/*
 * golden.h - the deterministic content of tests/golden/v1.iotape.
 *
 * tests/helpers/mkgolden wrote the file ONCE with golden_write(); the unit
 * test test_golden reads the committed file and checks it against
 * golden_event() and friends.  Changing anything here changes what the
 * test expects of a file that can no longer change: don't.  A format
 * v1.x that adds columns or tables needs a new golden file (v1_1.iotape)
 * with its own generator, next to this one.
 */
#ifndef IOTAPE_GOLDEN_H
#define IOTAPE_GOLDEN_H

#include <stddef.h>
#include <stdint.h>
#include "tape.h"

#define GOLDEN_BLOCK_ROWS 48	/* writer opts.block_rows */
#define GOLDEN_FLUSH_EVERY 100	/* tape_writer_flush() every this many steps */
#define GOLDEN_STR 160		/* longest string golden_event() makes, + 1 */
/* The tables the frozen file holds (1 .. GOLDEN_TABLES - 1): those of
 * format 1.0; tables added later (sched) are absent from it. */
#define GOLDEN_TABLES (TAPE_TABLE_SAMPLE + 1)

/* Events of a table in the file. */
size_t golden_count(int table);
/*
 * Event i of table: a pure function of (table, i).  String fields point
 * into strs, which must stay alive while ev is used.
 */
void golden_event(int table, size_t i, void *ev, char strs[2][GOLDEN_STR]);

/* Metadata as the reader must see it (later values won). */
struct golden_kv {
	const char *key, *value;
};
extern const struct golden_kv golden_meta[];
extern const size_t golden_nmeta;

/* Blocks of a table the writer made (block_rows and the flushes). */
size_t golden_blocks(int table);

/* Write the whole golden trace with w (opened with GOLDEN_BLOCK_ROWS);
 * does not close it. */
int golden_write(tape_writer *w);

#endif
