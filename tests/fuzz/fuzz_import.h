/* SPDX-License-Identifier: MIT */
/*
 * fuzz_import.h - the body of every importer's libFuzzer target: a
 * fuzz_import_NAME.c defines IMPORT_FORMAT "NAME" and includes this.
 *
 * The input is the importer's input (a FILE over the bytes); the trace
 * goes to a memfd, is closed, and is then read back through every table,
 * so what an importer writes must be a trace the reader accepts.  Import
 * errors are fine; a crash, a sanitizer report, a hang or a trace the
 * reader refuses is a bug (abort).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_back(int fd)
{
	tape_reader *r = NULL;
	tape_cursor *c;
	const void *ev;

	if (lseek(fd, 0, SEEK_SET) < 0 || tape_reader_open_fd(&r, fd) < 0)
		abort();
	for (int t = 1; t < TAPE_TABLE_MAX; t++) {
		int rc;

		if (tape_cursor_open(r, t, 0, UINT64_MAX, &c) < 0)
			abort();
		while ((rc = tape_cursor_next(c, &ev)) > 0)
			;
		if (rc < 0)
			abort();
		tape_cursor_free(c);
	}
	tape_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct importer *imp = imp_find(IMPORT_FORMAT);
	struct imp_opts o = { .table = TAPE_TABLE_SYSCALL };
	struct imp_diag d = { 0 };
	tape_writer *w = NULL;
	FILE *in;
	int fd, rd, rc;

	if (!imp)
		abort();
	/* fmemopen refuses a buffer of 0 bytes */
	in = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
	fd = memfd_create("fuzz_import", 0);
	if (!in || fd < 0)
		abort();
	rd = dup(fd);
	if (rd < 0 || tape_writer_open_fd(&w, fd, NULL) < 0)
		abort();
	rc = imp->run(in, w, &o, &d);
	if (rc == 0) {
		if (tape_writer_close(w) < 0)
			abort();
		read_back(rd);
	} else {
		tape_writer_free(w);
	}
	fclose(in);
	close(rd);
	return 0;
}
