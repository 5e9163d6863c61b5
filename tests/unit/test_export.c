/* SPDX-License-Identifier: MIT */
/*
 * test_export.c - libexport's table of exporters (export/export.h): every
 * format found by its name, with a write function, a summary and what it
 * needs; no name twice; an unknown name, a near miss or NULL finds none;
 * and the row exporters on a trace written here: the exact CSV and JSON
 * lines, the table chosen, and an unreadable trace's error (cmocka; exit 0
 * pass, 1 fail).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "export.h"

/* Every format and what it needs, as iotape dump, export and report use them. */
static const struct {
	const char *name;
	unsigned needs;
} want[] = {
	{ "text", EXP_NEEDS_READER | EXP_ROWS },
	{ "csv", EXP_NEEDS_READER | EXP_ROWS },
	{ "jsonl", EXP_NEEDS_READER | EXP_ROWS },
	{ "perfetto", EXP_NEEDS_READER },
	{ "fio-iolog", EXP_NEEDS_DIR | EXP_WRITES_DIR },
	{ "fio-job", 0 },
	{ "html", EXP_NEEDS_ANALYSIS },
};
#define NWANT (sizeof(want) / sizeof(*want))

static void test_find(void **state)
{
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < NWANT; i++) {
		const struct exporter *e = exp_find(want[i].name);

		assert_non_null(e);
		assert_string_equal(e->name, want[i].name);
		assert_int_equal(e->needs, want[i].needs);
		assert_non_null(e->write);
		assert_non_null(e->summary);
		assert_true(strlen(e->summary) > 10);
	}
	for (; exp_formats[n]; n++)
		for (size_t j = 0; j < n; j++)	/* no name twice */
			assert_string_not_equal(exp_formats[n]->name, exp_formats[j]->name);
	assert_int_equal(n, NWANT);
	assert_null(exp_find("nosuch"));
	assert_null(exp_find("CSV"));
	assert_null(exp_find("csv "));
	assert_null(exp_find(""));
	assert_null(exp_find(NULL));
}

/* A trace of two syscalls at path. */
static void make_trace(const char *path)
{
	struct tape_syscall a = { .ts_ns = 1000, .dur_ns = 50, .pid = 7, .tid = 8,
				  .op = (uint32_t)tape_op_from_name("openat"), .fd = -100,
				  .ret = 3, .path = "/d/a,b" };
	struct tape_syscall b = { .ts_ns = 2000, .dur_ns = 20, .pid = 7, .tid = 8,
				  .op = (uint32_t)tape_op_from_name("read"), .fd = 3,
				  .size = 4096, .ret = 4096, .path = "/d/a,b" };
	tape_writer *w;

	assert_int_equal(tape_writer_open(&w, path, NULL), 0);
	assert_int_equal(tape_writer_append(w, TAPE_TABLE_SYSCALL, &a), 0);
	assert_int_equal(tape_writer_append(w, TAPE_TABLE_SYSCALL, &b), 0);
	assert_int_equal(tape_writer_close(w), 0);
}

/* The rows exporter name writes of path's table (0: its default). */
static char *rows(const char *name, const char *path, int table)
{
	struct exp_opts o = { .table = table };
	struct exp_io io = { .trace = path, .out = "memory" };
	struct exp_diag d = { 0 };
	const struct exporter *e = exp_find(name);
	char *buf = NULL;
	size_t len = 0;

	assert_non_null(e);
	assert_int_equal(exp_reader_open(&io.r, path, &d), 0);
	assert_string_equal(d.warning, "");
	assert_non_null(io.f = open_memstream(&buf, &len));
	assert_int_equal(e->write(&io, &o, &d), 0);
	assert_int_equal(fclose(io.f), 0);
	tape_reader_free(io.r);
	return buf;
}

static void test_rows(void **state)
{
	char dir[] = "/tmp/test_export.XXXXXX", path[64];
	char *s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.iotape", dir);
	make_trace(path);
	s = rows("csv", path, 0);	/* csv: the syscall table by default */
	assert_string_equal(s,
		"ts_ns,pid,tid,op,path,fd,offset,size,ret,dur_ns,file_id,flags,path2,fd2,"
		"file_id2,offset2\n"
		"1000,7,8,openat,\"/d/a,b\",-100,0,0,3,50,0,0x0,,-1,0,0\n"
		"2000,7,8,read,\"/d/a,b\",3,0,4096,4096,20,0,0x0,,-1,0,0\n");
	free(s);
	s = rows("csv", path, TAPE_TABLE_BLOCK);
	assert_string_equal(s, "ts_ns,pid,tid,dev,rwbs,sector,bytes,dur_ns,inode,error\n");
	free(s);
	s = rows("jsonl", path, TAPE_TABLE_SYSCALL);
	assert_non_null(strstr(s, "\n{\"table\":\"syscall\",\"ts_ns\":2000,\"pid\":7,"
			       "\"tid\":8,\"op\":\"read\",\"path\":\"/d/a,b\",\"fd\":3,"
			       "\"offset\":0,\"size\":4096,\"ret\":4096,\"dur_ns\":20,"));
	assert_int_equal(strchr(strchr(s, '\n') + 1, '\n')[1], 0);	/* two lines */
	free(s);
	unlink(path);
	rmdir(dir);
}

static void test_unreadable(void **state)
{
	struct exp_diag d = { 0 };
	tape_reader *r = NULL;

	(void)state;
	assert_int_equal(exp_reader_open(&r, "/nonexistent/trace.iotape", &d), -ENOENT);
	assert_null(r);
	assert_non_null(strstr(d.msg, "/nonexistent/trace.iotape"));
	assert_non_null(strstr(d.msg, strerror(ENOENT)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_unreadable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
