/* SPDX-License-Identifier: MIT */
/*
 * faults.h - the rule that turns page faults on file mappings into reads.
 *
 * A job that reads a file through mmap (a numpy memmap, an Arrow or
 * HuggingFace dataset) does its I/O in page faults, which the recorder
 * takes from the filemap tracepoints into the cache table.  The replay
 * reproduces them as reads, and compare counts those reads as the job's;
 * both take them from this iterator, so they agree on which they are:
 *   fault      (mm_filemap_fault: the page was not mapped from the cache
 *              by fault-around) -> a read of that page;
 *   map_pages  (fault-around: one fault mapped the cached pages of a
 *              window) -> one read of the window, unless the same
 *              thread's next cache event is a fault inside that window
 *              on the same file (within CM_FAULT_PAIR_NS): then it was
 *              the first half of that fault (the kernel tries
 *              fault-around first), and the fault's page read stands for
 *              both.
 * Pages are the recording's page_size (meta, default 4096).  Left out:
 * faults on a file the trace ever maps executable (a program or a shared
 * library: the loader maps its code PROT_EXEC): the loading of code, not
 * the job's data (stats.code); faults on files under /dev (DataLoader's
 * shared-memory batches in /dev/shm: memory, not storage; stats.shm); and
 * faults on a file the file table does not name as a regular file
 * (stats.unmatched).
 *
 * Memory grows with files (their paths, the executable set) and threads
 * (a held fault-around each), not with events.
 */
#ifndef IOTAPE_COMMON_FAULTS_H
#define IOTAPE_COMMON_FAULTS_H

#include <stdint.h>
#include "tape.h"

/* A map_pages and the fault it was the first half of come this close. */
#define CM_FAULT_PAIR_NS 10000000ull

struct cm_fault_read {
	uint64_t ts;
	uint32_t pid, tid;
	uint64_t file_id;
	const char *path;	/* the file table's path; valid until cm_faults_free */
	uint64_t offset, len;	/* bytes */
	uint64_t pages;
};

struct cm_fault_stats {
	uint64_t reads, pages;		/* fault reads given */
	uint64_t code, shm, unmatched;	/* fault events left out */
};

struct cm_faults;
/*
 * Prepare to read r's page faults: reads the file table and, when the
 * cache table has events, the syscall table's mmap rows (which files are
 * mapped executable).  0 or -errno (a damaged block: tape_error_detail()).
 * *out is NULL when the trace has no cache events: there is nothing to
 * iterate and the caller need not ask.
 */
int cm_faults_open(struct cm_faults **out, tape_reader *r);
/* The next fault read: 1, 0 at the end, -errno.  Reads come in the cache
 * table's order, a held fault-around at most CM_FAULT_PAIR_NS late. */
int cm_faults_next(struct cm_faults *f, struct cm_fault_read *out);
/* Start again from the first cache event (stats start again too). */
void cm_faults_rewind(struct cm_faults *f);
const struct cm_fault_stats *cm_faults_stats(const struct cm_faults *f);
void cm_faults_free(struct cm_faults *f);

#endif /* IOTAPE_COMMON_FAULTS_H */
