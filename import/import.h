/* SPDX-License-Identifier: MIT */
/*
 * import.h - libimport: other tools' traces turned into iotape traces.
 *
 * An importer reads one text format (fixed per importer) from a FILE and
 * appends events to a tape_writer; `iotape import --format NAME` picks it
 * from imp_formats[].  Importers stream: memory grows with the files,
 * processes and open fds the input names, never with its lines.
 *
 * Errors: an importer returns 0, or -errno with d->line (1-based, 0 when
 * no line is at fault) and d->msg saying what is wrong; it never prints.
 * The caller owns the writer and removes the output on failure.
 */
#ifndef IOTAPE_IMPORT_H
#define IOTAPE_IMPORT_H

#include <stdint.h>
#include <stdio.h>
#include "map.h"
#include "tape.h"

struct imp_opts {
	int table;		/* csv: the table the rows belong to */
};

struct imp_diag {
	unsigned long line;	/* the input line at fault, 0 when none */
	int read_errno;		/* -EIO: why reading failed */
	char msg[256];
};

struct importer {
	const char *name;	/* --format NAME */
	const char *summary;	/* one line: what the input is */
	/* What the source does not record, stored as the trace's
	 * "not_recorded" metadata and shown by `iotape info`; NULL: all of
	 * what it names it records */
	const char *not_recorded;
	/* The "clock" metadata: the time base of the input's timestamps */
	const char *clock;
	int (*run)(FILE *in, tape_writer *w, const struct imp_opts *o,
		   struct imp_diag *d);
};

/* Every importer, NULL-terminated, in the order -h lists them. */
extern const struct importer *const imp_formats[];
/* The importer called name, or NULL. */
const struct importer *imp_find(const char *name);

/* ------------------------------------------------ syscall bookkeeping */

/*
 * What the syscalls imported so far did (open fds, file positions, paths
 * seen), so that an importer can fill what its source leaves out the way
 * a real program would: fds handed out lowest-free from 3, read and write
 * offsets following the file position, file ids 1, 2, ... in order of a
 * path's first appearance.  Zeroed to start; imp_sys_release frees it.
 */
struct imp_fd;
struct imp_sys {
	struct cm_strtab paths;
	struct imp_fd *fds;
	size_t nfds, fcap;
	struct cm_map by_fd;	/* (pid, fd) -> fds index */
	struct cm_map last_open;/* (pid, path id) -> fd */
};

void imp_sys_release(struct imp_sys *st);
/*
 * Fill the syscall columns that have[] (one flag per syscall column, in
 * tape_table_columns order) says the source left out, and track what the
 * call did to the fd table.  0, -ENOMEM, or -EINVAL with a message in
 * err.  ev->path and ev->path2 may come to point into st (valid while st
 * lives).
 */
int imp_sys_fill(struct imp_sys *st, struct tape_syscall *ev, const char *have,
		 char *err, size_t errlen);
/* The fd the last open of path in pid returned, if it is still open;
 * -1 when none, or -ENOMEM. */
int64_t imp_sys_open_fd(struct imp_sys *st, uint32_t pid, const char *path);
/* The file id imp_sys_fill gives path (1, 2, ... by first appearance);
 * 0 for "", or -ENOMEM. */
int64_t imp_sys_file_id(struct imp_sys *st, const char *path);

/*
 * Normalize a path a tool wrote as the program passed it, in place:
 * cm_path_normalize's lexical rule ("a/./b//c/.." is "a/b"), and the ".."
 * a relative path starts with dropped as the root's are ("../x" is "x"),
 * so that the path stays inside the directory a replay maps it under.
 * A path of no components is "/" (absolute) or "" (relative).
 */
void imp_path_normalize(char *p);

#endif
