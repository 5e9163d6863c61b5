/* SPDX-License-Identifier: MIT */
/*
 * test_common.c - common/: the hash map (with deletion), the string table,
 * the path rule, the latency histogram (exact, histogram, merge), the op
 * vocabulary, the file system types, the page-fault rule on a trace
 * written here, and a string cut without splitting a UTF-8 character.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <cmocka.h>
#include "faults.h"
#include "fmt.h"
#include "fstype.h"
#include "hist.h"
#include "map.h"
#include "ops.h"
#include "path.h"
#include "tape.h"

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* 200k keys in, every other one deleted, the rest still there with their
 * values; deleted slots are reused without growing for ever. */
static void test_map(void **state)
{
	struct cm_map m = { 0 };
	uint64_t *v, old;
	const uint64_t n = 200000;

	(void)state;
	for (uint64_t i = 0; i < n; i++) {
		assert_int_equal(cm_map_put(&m, i, i * 7, &v), 1);
		*v = i + 1;
	}
	assert_int_equal(cm_map_put(&m, 5, 35, &v), 0);
	assert_int_equal(*v, 6);
	for (uint64_t i = 0; i < n; i += 2)
		assert_int_equal(cm_map_del(&m, i, i * 7, &old), 1), assert_int_equal(old, i + 1);
	assert_int_equal(cm_map_del(&m, 0, 0, NULL), 0);
	assert_int_equal(m.n, n / 2);
	for (uint64_t i = 0; i < n; i++) {
		v = cm_map_get(&m, i, i * 7);
		if (i % 2)
			assert_non_null(v), assert_int_equal(*v, i + 1);
		else
			assert_null(v);
	}
	size_t cap = m.cap, seen = 0;
	for (int round = 0; round < 20; round++) {	/* churn: same size */
		for (uint64_t i = 0; i < n; i += 2)
			assert_int_equal(cm_map_set(&m, i, round + 1000, i), 0);
		for (uint64_t i = 0; i < n; i += 2)
			assert_int_equal(cm_map_del(&m, i, round + 1000, NULL), 1);
	}
	assert_true(m.cap <= cap * 2);
	CM_MAP_FOR_EACH(&m, e) {
		assert_int_equal(e->v, e->a + 1);
		seen++;
	}
	assert_int_equal(seen, n / 2);
	cm_map_clear(&m);
	assert_null(cm_map_get(&m, 1, 7));
	cm_map_release(&m);
	cm_map_release(&m);	/* a released map releases again */
}

static void test_strtab(void **state)
{
	struct cm_strtab t = { 0 };
	char buf[64];
	uint32_t id;

	(void)state;
	for (unsigned i = 0; i < 100000; i++) {
		snprintf(buf, sizeof(buf), "/data/%u/f%u.jpg", i % 97, i);
		assert_int_equal(cm_strtab_intern(&t, buf, &id), 1);
		assert_int_equal(id, i);
	}
	assert_int_equal(cm_strtab_intern(&t, "/data/3/f100.jpg", &id), 0);
	assert_int_equal(id, 100);
	assert_int_equal(cm_strtab_find(&t, "/data/3/f100.jpg", &id), 0);
	assert_int_equal(cm_strtab_find(&t, "/data/3/f100.jp", &id), -ENOENT);
	assert_int_equal(cm_strtab_intern(&t, "", &id), 1);
	assert_string_equal(cm_strtab_str(&t, id), "");
	assert_string_equal(cm_strtab_str(&t, 99999), "/data/89/f99999.jpg");
	assert_int_equal(cm_strtab_count(&t), 100001);
	cm_strtab_release(&t);
}

static void check_path(const char *in, unsigned flags, int rc, const char *want)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", in);
	int got = cm_path_normalize(buf, flags);
	if (got != rc || (rc == 0 && strcmp(buf, want))) {
		print_error("'%s' flags %u: got %d '%s', want %d '%s'\n", in, flags, got, buf,
			    rc, want);
		fail();
	}
}

static void test_path(void **state)
{
	(void)state;
	check_path("/a//b/./c/", 0, 0, "/a/b/c");
	check_path("/a//b/./c/", CM_PATH_RELATIVE, 0, "a/b/c");
	check_path("a/b/../c", 0, 0, "a/c");
	check_path("/a/../../b", 0, 0, "/b");		/* the root's parent */
	check_path("/..", 0, 0, "/");
	check_path("/", 0, 0, "/");
	check_path("//", CM_PATH_RELATIVE, 0, "");
	check_path("", 0, 0, "");
	check_path("../a/./../..", 0, 0, "../..");	/* relative: kept */
	check_path("a/../../b", 0, 0, "../b");
	check_path("./x", 0, 0, "x");
	check_path("/x/..y/z", CM_PATH_NO_DOTDOT, 0, "/x/..y/z");
	check_path("/data/../../outside/s", CM_PATH_NO_DOTDOT, -EPERM, "");
	check_path("/x/..", CM_PATH_NO_DOTDOT | CM_PATH_RELATIVE, -EPERM, "");
	check_path("/proc/self/root/t", CM_PATH_RELATIVE | CM_PATH_NO_DOTDOT, 0,
		   "proc/self/root/t");
}

/* Exact while the budget allows, then within 0.4 % as a histogram; merge
 * keeps count, min, max, mean, stddev exact either way. */
static void test_hist(void **state)
{
	struct cm_lat a = { 0 }, b = { 0 }, h = { 0 };
	size_t big = SIZE_MAX, none = 0;
	uint64_t s = 42;
	double sum = 0, sq = 0;

	(void)state;
	for (uint64_t i = 1; i <= 1000; i++)
		assert_int_equal(cm_lat_add(&a, i * 1000, &big), 0);
	cm_lat_finish(&a);
	assert_false(a.inexact);
	assert_null(a.v);	/* 4 bytes a value while they fit */
	assert_non_null(a.v32);
	assert_int_equal(cm_lat_pct(&a, 50), 500000);
	assert_int_equal(cm_lat_pct(&a, 99.9), 999000);
	assert_int_equal(cm_lat_count_le(&a, 250000), 250);
	/* a value past 32 bits: the exact values widen, still exact */
	struct cm_lat w = { 0 }, w2 = { 0 };
	for (uint64_t i = 1; i <= 1000; i++)
		assert_int_equal(cm_lat_add(&w, i * 10000000ull, &big), 0);	/* to 10^10 */
	assert_non_null(w.v);
	assert_null(w.v32);
	for (uint64_t i = 1; i <= 10; i++)
		assert_int_equal(cm_lat_add(&w2, i, &big), 0);
	assert_int_equal(cm_lat_merge(&w2, &w, &big), 0);	/* wide into narrow */
	assert_int_equal(cm_lat_merge(&w, &a, &big), 0);	/* narrow into wide */
	cm_lat_finish(&w);
	cm_lat_finish(&w2);
	assert_false(w.inexact || w2.inexact);
	assert_int_equal(w2.count, 1010);
	assert_int_equal(cm_lat_pct(&w2, 100), 10000000000ull);
	assert_int_equal(cm_lat_pct(&w2, 0.5), 6);
	assert_int_equal(cm_lat_count_le(&w2, 10), 10);
	assert_int_equal(w.count, 2000);
	assert_int_equal(cm_lat_pct(&w, 50), 1000000);	/* a's 1000 below 10^7 */
	assert_int_equal(cm_lat_count_le(&w, 4294967295ull), 1429);
	cm_lat_release(&w);
	cm_lat_release(&w2);
	for (int i = 0; i < 100000; i++) {
		uint64_t v = 1000 + splitmix(&s) % 10000000;
		assert_int_equal(cm_lat_add(&h, v, &none), 0);
		assert_int_equal(cm_lat_add(&b, v, &big), 0);
		sum += (double)v;
		sq += (double)v * (double)v;
	}
	cm_lat_finish(&b);
	cm_lat_finish(&h);
	assert_true(h.inexact);
	assert_null(h.v);
	for (double p = 1; p <= 100; p += 7.5) {
		double x = (double)cm_lat_pct(&b, p), y = (double)cm_lat_pct(&h, p);
		assert_true(fabs(y - x) <= 0.004 * x + 1);
	}
	double mean = sum / 100000, sd = sqrt((sq - 100000 * mean * mean) / 99999);
	assert_true(fabs(cm_lat_mean(&h) - mean) < 1e-6 * mean);
	assert_true(fabs(cm_lat_stddev(&h) - sd) < 1e-6 * sd);
	/* merge exact into histogram and exact into exact */
	assert_int_equal(cm_lat_merge(&h, &a, &none), 0);
	assert_int_equal(h.count, 101000);
	assert_int_equal(h.min, 1000);
	assert_int_equal(cm_lat_merge(&a, &a, &big), 0);
	cm_lat_finish(&a);
	assert_false(a.inexact);
	assert_int_equal(a.count, 2000);
	assert_int_equal(cm_lat_pct(&a, 50), 500000);
	/* a budget too small for the merge makes a histogram */
	size_t small = 10;
	struct cm_lat c = { 0 };
	assert_int_equal(cm_lat_merge(&c, &b, &small), 0);
	assert_true(c.inexact);
	assert_int_equal(c.count, b.count);
	assert_int_equal(c.max, b.max);
	cm_lat_release(&a);
	cm_lat_release(&b);
	cm_lat_release(&c);
	cm_lat_release(&h);
}

static void test_ops(void **state)
{
	(void)state;
	assert_int_equal(cm_op_rule(TAPE_OP_PREAD64).how, CM_ISSUE);
	assert_int_equal(cm_op_rule(TAPE_OP_PREAD64).kind, CM_READ);
	assert_int_equal(cm_op_rule(TAPE_OP_URING_OPENAT).kind, CM_OPEN);
	assert_int_equal(cm_op_rule(TAPE_OP_SYNC_FILE_RANGE).kind, CM_FDATASYNC);
	assert_int_equal(cm_op_rule(TAPE_OP_DUP2).how, CM_MAPS_FD);
	assert_int_equal(cm_op_rule(TAPE_OP_FCNTL_DUPFD).kind, CM_DUP);	/* issued */
	assert_false(cm_kind_is_meta(CM_DUP));
	assert_int_equal(cm_op_rule(TAPE_OP_SENDFILE).how, CM_COPY);
	assert_int_equal(cm_op_rule(TAPE_OP_MAX + 5).how, CM_SKIP);
	/* what the replay skips is not replayed I/O for compare either */
	static const unsigned skipped[] = { TAPE_OP_FTRUNCATE, TAPE_OP_FALLOCATE, TAPE_OP_MSYNC,
					    TAPE_OP_CLOSE_RANGE, TAPE_OP_LSEEK,
					    TAPE_OP_MMAP, TAPE_OP_DUP };
	for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
		assert_false(cm_op_replayed(skipped[i], 1, 0));
	assert_true(cm_op_replayed(TAPE_OP_RENAMEAT2, 1, 0));
	assert_false(cm_op_replayed(TAPE_OP_RENAMEAT2, 1, 1));	/* failed */
	assert_true(cm_op_replayed(TAPE_OP_COPY_FILE_RANGE, 0, 0));
	/* metadata: replayed, failed or not, unless --no-metadata */
	assert_int_equal(cm_op_rule(TAPE_OP_NEWFSTATAT).kind, CM_STAT);
	assert_int_equal(cm_op_rule(TAPE_OP_GETDENTS64).kind, CM_GETDENTS);
	assert_true(cm_op_replayed(TAPE_OP_NEWSTAT, 1, 1));
	assert_false(cm_op_replayed(TAPE_OP_NEWSTAT, 0, 0));
	assert_int_equal(cm_op_rule(TAPE_OP_FACCESSAT).kind, CM_ACCESS);
	assert_int_equal(cm_op_rule(TAPE_OP_READLINKAT).kind, CM_READLINK);
	assert_true(cm_op_replayed(TAPE_OP_ACCESS, 1, 0));
	/* a readlink only when it failed: one that read a link needs a link */
	assert_false(cm_op_replayed(TAPE_OP_READLINK, 1, 0));
	assert_true(cm_op_replayed(TAPE_OP_READLINK, 1, 1));
	assert_false(cm_op_replayed(TAPE_OP_READLINK, 0, 1));
	assert_true(cm_kind_is_meta(CM_STAT));
	assert_false(cm_kind_is_meta(CM_MKDIR));
	assert_string_equal(cm_kind_name(CM_FDATASYNC), "fdatasync");
	assert_string_equal(cm_kind_name(0), "?");
	/* the table and the ops agree: every op has a name and a rule the
	 * replay knows, and an op it issues has a kind */
	for (unsigned op = 0; op < TAPE_OP_MAX; op++) {
		struct cm_op_rule r = cm_op_rule(op);
		assert_non_null(tape_op_name(op));
		assert_true(r.how <= CM_COPY && r.kind < CM_KIND_MAX);
		assert_true((r.how == CM_ISSUE || r.how == CM_MAPS_FD) == (r.kind != 0));
	}
}

/* Names, the memory/storage rule of fstype.h's list, and the magics the
 * kernel's own header defines. */
static void test_fstype(void **state)
{
	static const struct { const char *name; uint64_t magic; int memory; } want[] = {
		{ "tmpfs", TMPFS_MAGIC, 1 }, { "proc", PROC_SUPER_MAGIC, 1 },
		{ "sysfs", SYSFS_MAGIC, 1 }, { "devpts", DEVPTS_SUPER_MAGIC, 1 },
		{ "cgroup", CGROUP_SUPER_MAGIC, 1 }, { "cgroup2", CGROUP2_SUPER_MAGIC, 1 },
		{ "mqueue", 0x19800202, 1 }, { "debugfs", DEBUGFS_MAGIC, 1 },
		{ "tracefs", TRACEFS_MAGIC, 1 }, { "bpf", BPF_FS_MAGIC, 1 },
		{ "hugetlbfs", HUGETLBFS_MAGIC, 1 }, { "ramfs", RAMFS_MAGIC, 1 },
		{ "pipefs", PIPEFS_MAGIC, 1 }, { "sockfs", SOCKFS_MAGIC, 1 },
		{ "anon_inodefs", ANON_INODE_FS_MAGIC, 1 }, { "securityfs", SECURITYFS_MAGIC, 1 },
		{ "ext4", EXT4_SUPER_MAGIC, 0 }, { "xfs", XFS_SUPER_MAGIC, 0 },
		{ "btrfs", BTRFS_SUPER_MAGIC, 0 }, { "f2fs", F2FS_SUPER_MAGIC, 0 },
		{ "nfs", NFS_SUPER_MAGIC, 0 }, { "cifs", CIFS_SUPER_MAGIC, 0 },
		{ "smb2", SMB2_SUPER_MAGIC, 0 }, { "ceph", CEPH_SUPER_MAGIC, 0 },
		{ "lustre", 0x0bd00bd0, 0 }, { "overlay", OVERLAYFS_SUPER_MAGIC, 0 },
		{ "fuse", FUSE_SUPER_MAGIC, 0 }, { "9p", V9FS_MAGIC, 0 },
		{ "squashfs", SQUASHFS_MAGIC, 0 }, { "iso9660", ISOFS_SUPER_MAGIC, 0 },
		{ "vfat", MSDOS_SUPER_MAGIC, 0 }, { "exfat", EXFAT_SUPER_MAGIC, 0 },
	};
	struct statfs sf;

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *n = cm_fstype_name(want[i].magic);
		if (!n || strcmp(n, want[i].name))
			fail_msg("magic %#llx: name %s, want %s", (unsigned long long)want[i].magic,
				 n ? n : "NULL", want[i].name);
		assert_int_equal(cm_fstype_from_name(want[i].name), want[i].magic);
		assert_int_equal(cm_fstype_is_memory(want[i].magic), want[i].memory);
	}
	/* unknown: no name, and storage (replayed) like 0 */
	assert_null(cm_fstype_name(0));
	assert_null(cm_fstype_name(0x12345678));
	assert_null(cm_fstype_name(0x100000000ull | TMPFS_MAGIC));
	assert_false(cm_fstype_is_memory(0));
	assert_false(cm_fstype_is_memory(0x12345678));
	assert_int_equal(cm_fstype_from_name("nosuchfs"), 0);
	assert_int_equal(cm_fstype_from_name(NULL), 0);
	/* what statfs says of /proc here */
	assert_int_equal(statfs("/proc", &sf), 0);
	assert_string_equal(cm_fstype_name((uint64_t)sf.f_type), "proc");
}

static void put_cache(tape_writer *w, uint64_t ts, uint32_t tid, unsigned kind,
		      uint64_t file_id, uint64_t index, uint64_t count)
{
	struct tape_cache c = { .ts_ns = ts, .pid = 1, .tid = tid, .kind = kind,
				.file_id = file_id, .index = index, .count = count };
	assert_int_equal(tape_writer_append(w, TAPE_TABLE_CACHE, &c), 0);
}

/* The page-fault rule: a fault-around completed by a fault in its window
 * is one read; one that is not stays a read of its window; code, /dev and
 * unknown files are left out; a hold expires after CM_FAULT_PAIR_NS. */
static void test_faults(void **state)
{
	char path[] = "/tmp/iotape-test-common.XXXXXX";
	int fd = mkstemp(path);
	tape_writer *w;
	tape_reader *r;
	struct cm_faults *f;
	struct cm_fault_read fr;
	struct tape_file tf = { .ts_ns = 1, .mode = 0100644 };
	struct tape_syscall mm = { .ts_ns = 1, .pid = 1, .tid = 1, .op = TAPE_OP_MMAP,
				   .fd = 3, .file_id = 3, .flags = PROT_READ | PROT_EXEC,
				   .path = "/lib/libc.so", .path2 = "" };

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tape_writer_open(&w, path, &(struct tape_writer_opts){
		.flags = TAPE_WRITE_FORCE }), 0);
	assert_int_equal(tape_writer_set_meta(w, "page_size", "4096"), 0);
	static const char *const paths[] = { NULL, "/d/data.npy", "/dev/shm/x", "/lib/libc.so" };
	for (uint64_t id = 1; id <= 3; id++) {
		tf.file_id = id;
		tf.path = paths[id];
		assert_int_equal(tape_writer_append(w, TAPE_TABLE_FILE, &tf), 0);
	}
	assert_int_equal(tape_writer_append(w, TAPE_TABLE_SYSCALL, &mm), 0);
	put_cache(w, 100, 7, TAPE_CACHE_MAP_PAGES, 1, 16, 16);	/* + fault at 20: one read */
	put_cache(w, 101, 7, TAPE_CACHE_FAULT, 1, 20, 1);
	put_cache(w, 200, 8, TAPE_CACHE_MAP_PAGES, 1, 0, 8);	/* + fault outside: two */
	put_cache(w, 201, 8, TAPE_CACHE_FAULT, 1, 40, 1);
	put_cache(w, 300, 7, TAPE_CACHE_FAULT, 2, 0, 1);	/* /dev */
	put_cache(w, 301, 7, TAPE_CACHE_FAULT, 3, 0, 1);	/* code */
	put_cache(w, 302, 7, TAPE_CACHE_FAULT, 9, 0, 1);	/* unknown */
	put_cache(w, 400, 9, TAPE_CACHE_MAP_PAGES, 1, 64, 4);	/* expires ... */
	put_cache(w, 400 + CM_FAULT_PAIR_NS + 1, 9, TAPE_CACHE_FAULT, 1, 65, 1); /* ... before this */
	put_cache(w, 500 + CM_FAULT_PAIR_NS, 10, TAPE_CACHE_MAP_PAGES, 1, 96, 2); /* held to the end */
	put_cache(w, 501 + CM_FAULT_PAIR_NS, 10, TAPE_CACHE_INSERT, 1, 0, 2);	/* not a fault */
	assert_int_equal(tape_writer_close(w), 0);

	assert_int_equal(tape_reader_open(&r, path), 0);
	assert_int_equal(cm_faults_open(&f, r), 0);
	assert_non_null(f);
	static const struct { uint32_t tid; uint64_t off, len; } want[] = {
		{ 7, 20 * 4096, 4096 }, { 8, 0, 8 * 4096 }, { 8, 40 * 4096, 4096 },
		{ 9, 64 * 4096, 4 * 4096 }, { 9, 65 * 4096, 4096 }, { 10, 96 * 4096, 2 * 4096 },
	};
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			assert_int_equal(cm_faults_next(f, &fr), 1);
			assert_int_equal(fr.tid, want[i].tid);
			assert_int_equal(fr.offset, want[i].off);
			assert_int_equal(fr.len, want[i].len);
			assert_string_equal(fr.path, "/d/data.npy");
		}
		assert_int_equal(cm_faults_next(f, &fr), 0);
		const struct cm_fault_stats *st = cm_faults_stats(f);
		assert_int_equal(st->reads, 6);
		assert_int_equal(st->pages, 1 + 8 + 1 + 4 + 1 + 2);
		assert_int_equal(st->code, 1);
		assert_int_equal(st->shm, 1);
		assert_int_equal(st->unmatched, 1);
		cm_faults_rewind(f);
	}
	cm_faults_free(f);
	tape_reader_free(r);
	unlink(path);
}

/* A cut ends before a character that does not fit whole; bytes that are
 * not UTF-8 count one by one. */
static void test_utf8_cut(void **state)
{
	(void)state;
	assert_int_equal(cm_utf8_cut("abc", 5), 3);
	assert_int_equal(cm_utf8_cut("abcdef", 5), 5);
	assert_int_equal(cm_utf8_cut("abcd\xc3\xa9", 5), 4);		/* é at 4-5 */
	assert_int_equal(cm_utf8_cut("abcd\xc3\xa9", 6), 6);
	assert_int_equal(cm_utf8_cut("abc\xe2\x82\xac", 5), 3);	/* € at 3-5 */
	assert_int_equal(cm_utf8_cut("ab\xf0\x9f\x98\x80z", 5), 2);	/* 4 bytes at 2-5 */
	assert_int_equal(cm_utf8_cut("ab\xf0\x9f\x98\x80z", 6), 6);
	assert_int_equal(cm_utf8_cut("abcd\xff\xffx", 5), 5);		/* not UTF-8 */
	assert_int_equal(cm_utf8_cut("abcd\xc3", 5), 5);		/* cut short already */
	assert_int_equal(cm_utf8_cut("abcd\xc3(", 5), 5);		/* a lone lead byte */
	assert_int_equal(cm_utf8_cut("", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_strtab),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_ops),
		cmocka_unit_test(test_fstype),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_utf8_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
