/* SPDX-License-Identifier: MIT */
/*
 * imagenet_gen.c - an ImageNet-shaped training trace, for the imagenet
 * section of `make bench` (bench/run.sh; issue 31: analyze, report,
 * compare and model of a 1.28-million-file job).
 *
 *   imagenet_gen TRACE              the job, as `iotape record` would see it
 *   imagenet_gen TRACE --replay DIR the recording of `iotape replay -d DIR`
 *                                   of that job (compare --map DIR A B)
 *
 * Environment: IMAGENET_FILES (1281167), IMAGENET_CLASSES (1000),
 * IMAGENET_EPOCHS (2).  Everything comes from a fixed seed: the same
 * arguments write the same trace.  Prints key=value lines (events, files).
 *
 * The job (from traces/image_folder.iotape, a recorded torchvision
 * ImageFolder job, scaled up): FILES JPEGs under
 * /data/imagenet/train/nXXXXXXXX/nXXXXXXXX_K.JPEG, CLASSES class
 * directories, sizes 30-190 KB (mean 110 KB, ImageNet's).  Per epoch the
 * main process (pid 1000) lists each class directory (stat, openat,
 * fstat, getdents64 until it returns 0, close) and forks 8 DataLoader
 * workers, which take batches of 256 of a fresh shuffle in turn; each
 * sample is stat, openat, fstat, read of the file's size + 1 (which
 * returns its size), the read at EOF (returns 0), close.  After each
 * epoch the main process writes a 98 MiB checkpoint (1 MiB writes).
 * Around that, what the recorder adds in the bundled recording's
 * proportions: a file row at a file's first open; in the first epoch
 * (cold cache) each read brings a cache insert, one block read per
 * 128 KiB and a cache access, in the later ones a cache access alone
 * (image_folder.iotape: per JPEG 1 insert, 1 block request, 2 accesses
 * over its 2 epochs).  About 16 events per file.
 *
 * The replay's recording has what `iotape record` of `iotape replay`
 * shows (tests/cli/replay_record.sh): one process, a thread per thread
 * of the job, each path under DIR, the opens, reads and closes as
 * uring_openat, uring_read (of the bytes the job got, and the EOF read
 * of 0), uring_close, the stats as statx, with the job's timing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include "tape.h"

static uint64_t rs = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static uint32_t env_u32(const char *k, uint32_t dflt)
{
	const char *v = getenv(k);
	long n = v ? atol(v) : 0;
	return n > 0 ? (uint32_t)n : dflt;
}

#define DEV (254u << 20)
#define WORKERS 8
#define BATCH 256
#define PAGE 4096u
#define RA_MAX (128u << 10)
#define CKPT_MB 98

struct gen {
	tape_writer *w;
	int replay;
	const char *dir;	/* --replay: DIR */
	uint32_t nfiles, nclasses, epochs;
	uint32_t *size;		/* per file */
	uint8_t *seen;		/* file row written */
	uint32_t *order;
	uint64_t ts, sector, next_id;
	int err;
};

static void put(struct gen *g, int table, const void *ev)
{
	int e = tape_writer_append(g->w, table, ev);
	if (e && !g->err)
		g->err = e;
}

/* class c's directory name: "n" and 8 digits, ascending like ImageNet's */
static void class_name(char *b, size_t n, uint32_t c)
{
	snprintf(b, n, "n%08u", 1440764u + c * 9973u);
}

static uint32_t class_of(const struct gen *g, uint32_t f)
{
	return (uint32_t)((uint64_t)f * g->nclasses / g->nfiles);
}

/* The first file of class c (files are numbered class by class). */
static uint32_t class_first(const struct gen *g, uint32_t c)
{
	return (uint32_t)(((uint64_t)c * g->nfiles + g->nclasses - 1) / g->nclasses);
}

static void path_of(const struct gen *g, char *b, size_t n, uint32_t f, int dir_only)
{
	char cn[16];
	uint32_t c = class_of(g, f);
	class_name(cn, sizeof(cn), c);
	const char *pre = g->replay ? g->dir : "";
	if (dir_only)
		snprintf(b, n, "%s/data/imagenet/train/%s", pre, cn);
	else
		snprintf(b, n, "%s/data/imagenet/train/%s/%s_%u.JPEG", pre, cn, cn,
			 f - class_first(g, c) + 1);
}

/* A file row at a file's first open: ids in that order, as the
 * recorder numbers them; inodes of another file system in the replay. */
static uint64_t file_row(struct gen *g, const char *path, uint64_t size, uint64_t mode)
{
	uint64_t id = ++g->next_id;
	struct tape_file fr = { .ts_ns = g->ts, .file_id = id, .dev = DEV,
				.inode = (g->replay ? 50000000u : 10000000u) + id,
				.size = size, .mode = mode, .path = path,
				.fstype = 0xef53 };
	put(g, TAPE_TABLE_FILE, &fr);
	return id;
}

static struct tape_syscall sc(const struct gen *g, uint32_t pid, uint32_t tid, uint32_t op,
			      const char *path)
{
	struct tape_syscall s = { .ts_ns = g->ts, .pid = pid, .tid = tid, .op = op, .fd = -1,
				  .path = path, .path2 = "" };
	return s;
}

static uint32_t op_open(const struct gen *g) { return g->replay ? TAPE_OP_URING_OPENAT : TAPE_OP_OPENAT; }
static uint32_t op_read(const struct gen *g) { return g->replay ? TAPE_OP_URING_READ : TAPE_OP_READ; }
static uint32_t op_close(const struct gen *g) { return g->replay ? TAPE_OP_URING_CLOSE : TAPE_OP_CLOSE; }
static uint32_t op_stat(const struct gen *g) { return g->replay ? TAPE_OP_STATX : TAPE_OP_NEWFSTATAT; }

/* stat PATH, openat, fstat: the fd's file id in *id (a file row first
 * when new: *id 0). */
static void open_seq(struct gen *g, uint32_t pid, uint32_t tid, const char *path, int fd,
		     uint64_t *id, uint64_t size, uint64_t mode, uint64_t oflags)
{
	struct tape_syscall s = sc(g, pid, tid, op_stat(g), path);
	s.dur_ns = 3000 + rnd() % 4000;
	s.flags = g->replay ? 0x100 : 0;
	s.ret = 0;
	put(g, TAPE_TABLE_SYSCALL, &s);
	g->ts += s.dur_ns + 500;
	if (!*id)
		*id = file_row(g, path, size, mode);
	s = sc(g, pid, tid, op_open(g), path);
	s.fd = -100;
	s.dur_ns = 6000 + rnd() % 10000;
	s.file_id = *id;
	s.flags = oflags;
	s.ret = fd;
	put(g, TAPE_TABLE_SYSCALL, &s);
	g->ts += s.dur_ns + 400;
	s = sc(g, pid, tid, op_stat(g), path);
	s.fd = fd;
	s.dur_ns = 800 + rnd() % 800;
	s.file_id = *id;
	s.flags = 0x1000;	/* AT_EMPTY_PATH: fstat */
	s.ret = 0;
	put(g, TAPE_TABLE_SYSCALL, &s);
	g->ts += s.dur_ns + 300;
}

static void close_seq(struct gen *g, uint32_t pid, uint32_t tid, const char *path, int fd,
		      uint64_t id)
{
	struct tape_syscall s = sc(g, pid, tid, op_close(g), path);
	s.fd = fd;
	s.dur_ns = 1500 + rnd() % 3000;
	s.file_id = id;
	s.ret = 0;
	put(g, TAPE_TABLE_SYSCALL, &s);
	g->ts += s.dur_ns;
}

/* The main process lists every class directory (ImageFolder's scan). */
static void scan(struct gen *g, uint64_t *dir_ids)
{
	char p[4200];
	uint32_t pid = 1000, tid = 1000;
	for (uint32_t c = 0; c < g->nclasses; c++) {
		uint32_t n = class_first(g, c + 1) - class_first(g, c);
		path_of(g, p, sizeof(p), class_first(g, c), 1);
		open_seq(g, pid, tid, p, 3, &dir_ids[c], 4096 * (1 + n / 100), 040755,
			 0x90800);
		/* ~40 bytes a directory entry, 32 KiB a call */
		uint64_t left = (uint64_t)(n + 2) * 40;
		for (;;) {
			struct tape_syscall s = sc(g, pid, tid, TAPE_OP_GETDENTS64, p);
			s.fd = 3;
			s.file_id = dir_ids[c];
			s.size = 32768;
			s.ret = left > 32760 ? 32760 : (int64_t)left;
			s.dur_ns = s.ret ? 20000 + rnd() % 60000 : 1200;
			put(g, TAPE_TABLE_SYSCALL, &s);
			g->ts += s.dur_ns + 200;
			if (!s.ret)
				break;
			left -= (uint64_t)s.ret;
		}
		close_seq(g, pid, tid, p, 3, dir_ids[c]);
		g->ts += 50000;
	}
}

/* One sample: the job's reads, and what the cache and block layers show. */
static void sample(struct gen *g, uint32_t pid, uint32_t tid, uint32_t f, uint64_t *ids,
		   int cold)
{
	char p[4200];
	int fd = 40 + (int)(tid % 8);
	uint64_t size = g->size[f], pages = (size + PAGE - 1) / PAGE;
	path_of(g, p, sizeof(p), f, 0);
	open_seq(g, pid, tid, p, fd, &ids[f], size, 0100644, 0x80000);
	struct tape_syscall s = sc(g, pid, tid, op_read(g), p);
	s.fd = fd;
	s.file_id = ids[f];
	s.offset = 0;
	s.size = g->replay ? size : size + 1;
	s.ret = (int64_t)size;
	s.dur_ns = cold ? 60000 + size / 2 + rnd() % 40000 : 15000 + size / 20 + rnd() % 5000;
	put(g, TAPE_TABLE_SYSCALL, &s);
	struct tape_cache ce = { .ts_ns = g->ts + 2000, .pid = pid, .tid = tid, .dev = DEV,
				 .inode = (g->replay ? 50000000u : 10000000u) + ids[f],
				 .file_id = ids[f], .index = 0, .count = pages };
	if (cold) {
		ce.kind = TAPE_CACHE_INSERT;
		put(g, TAPE_TABLE_CACHE, &ce);
		for (uint64_t off = 0; off < pages * PAGE; off += RA_MAX) {
			uint64_t len = pages * PAGE - off > RA_MAX ? RA_MAX : pages * PAGE - off;
			struct tape_block b = { .ts_ns = g->ts + 3000 + off / 1024, .dur_ns = 50000 + rnd() % 50000,
						.pid = pid, .tid = tid, .dev = DEV,
						.sector = g->sector, .bytes = len,
						.flags = TAPE_BLK_READ | TAPE_BLK_RAHEAD,
						.inode = ce.inode };
			g->sector += len / 512 + (rnd() % 4 ? 0 : 8 + rnd() % 4096);
			put(g, TAPE_TABLE_BLOCK, &b);
		}
	}
	ce.kind = TAPE_CACHE_ACCESS;
	ce.ts_ns = g->ts + s.dur_ns - 1000;
	put(g, TAPE_TABLE_CACHE, &ce);
	g->ts += s.dur_ns + 3000;
	s = sc(g, pid, tid, op_read(g), p);
	s.fd = fd;
	s.file_id = ids[f];
	s.offset = size;
	s.size = g->replay ? 0 : 1;
	s.ret = 0;
	s.dur_ns = 700 + rnd() % 600;
	put(g, TAPE_TABLE_SYSCALL, &s);
	g->ts += s.dur_ns + 400;
	close_seq(g, pid, tid, p, fd, ids[f]);
}

static void checkpoint(struct gen *g, uint32_t e)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/ckpt/resnet50_epoch%u.pt", g->replay ? g->dir : "", e);
	uint64_t id = file_row(g, p, 0, 0100644);
	struct tape_syscall s = sc(g, 1000, 1000, op_open(g), p);
	s.fd = -100;
	s.file_id = id;
	s.flags = 01101;	/* O_WRONLY | O_CREAT | O_TRUNC */
	s.ret = 5;
	s.dur_ns = 30000;
	put(g, TAPE_TABLE_SYSCALL, &s);
	g->ts += 40000;
	for (uint32_t i = 0; i < CKPT_MB; i++) {
		s = sc(g, 1000, 1000, g->replay ? TAPE_OP_URING_WRITE : TAPE_OP_WRITE, p);
		s.fd = 5;
		s.file_id = id;
		s.offset = (uint64_t)i << 20;
		s.size = 1u << 20;
		s.ret = 1 << 20;
		s.dur_ns = 400000 + rnd() % 200000;
		put(g, TAPE_TABLE_SYSCALL, &s);
		g->ts += s.dur_ns + 1000;
	}
	close_seq(g, 1000, 1000, p, 5, id);
}

static int run(struct gen *g, const char *path)
{
	struct tape_writer_opts o = { .flags = TAPE_WRITE_FORCE };
	int err = tape_writer_open(&g->w, path, &o);
	if (err) {
		fprintf(stderr, "imagenet_gen: %s: %s\n", path, tape_strerror(err));
		return 1;
	}
	tape_writer_set_meta(g->w, "page_size", "4096");
	tape_writer_set_meta(g->w, "clock", "monotonic");
	tape_writer_set_meta(g->w, "source", "imagenet_gen");
	g->size = malloc(g->nfiles * sizeof(*g->size));
	g->order = malloc(g->nfiles * sizeof(*g->order));
	uint64_t *ids = calloc(g->nfiles, sizeof(*ids));
	uint64_t *dir_ids = calloc(g->nclasses, sizeof(*dir_ids));
	if (!g->size || !g->order || !ids || !dir_ids) {
		fprintf(stderr, "imagenet_gen: out of memory\n");
		return 1;
	}
	/* sizes from the job's seed, the same for its replay */
	for (uint32_t f = 0; f < g->nfiles; f++)
		g->size[f] = 30000 + (uint32_t)(rnd() % 80001) + (uint32_t)(rnd() % 80001);
	g->ts = 1000000000ull;
	g->sector = 2048;
	struct tape_process pr = { .ts_ns = g->ts, .pid = 1000, .tid = 1000, .ppid = 1,
				   .comm = g->replay ? "iotape" : "python3",
				   .argv = g->replay ? "iotape replay --timing think -d DIR imagenet.iotape"
						     : "python3 train.py --arch resnet50 /data/imagenet" };
	put(g, TAPE_TABLE_PROCESS, &pr);
	for (uint32_t e = 0; e < g->epochs; e++) {
		scan(g, dir_ids);
		uint64_t wstart = g->ts;
		if (!g->replay)
			for (uint32_t k = 0; k < WORKERS; k++) {
				struct tape_process w = { .ts_ns = wstart, .pid = 2000 + e * 100 + k,
							  .tid = 2000 + e * 100 + k, .ppid = 1000,
							  .comm = "pt_data_worker",
							  .argv = pr.argv };
				put(g, TAPE_TABLE_PROCESS, &w);
			}
		for (uint32_t i = 0; i < g->nfiles; i++)
			g->order[i] = i;
		for (uint32_t i = g->nfiles - 1; i > 0; i--) {
			uint32_t j = (uint32_t)(rnd() % (i + 1)), x = g->order[i];
			g->order[i] = g->order[j];
			g->order[j] = x;
		}
		for (uint32_t i = 0; i < g->nfiles; i++) {
			uint32_t k = (i / BATCH) % WORKERS;
			uint32_t tid = 2000 + e * 100 + k;
			/* the replay: one process, a thread per job thread */
			sample(g, g->replay ? 1000 : tid, tid, g->order[i], ids, e == 0);
			g->ts += 300000 + rnd() % 150000;	/* decoding, 8 workers at once */
		}
		checkpoint(g, e);
		g->ts += 2000000;
	}
	uint64_t total = tape_writer_events(g->w);
	err = tape_writer_close(g->w);
	free(ids);
	free(dir_ids);
	if (err || g->err) {
		fprintf(stderr, "imagenet_gen: %s: %s\n", path, tape_strerror(err ? err : g->err));
		return 1;
	}
	printf("events=%" PRIu64 "\nfiles=%u\nclasses=%u\nepochs=%u\n", total, g->nfiles,
	       g->nclasses, g->epochs);
	free(g->size);
	free(g->order);
	return 0;
}

int main(int argc, char **argv)
{
	struct gen g = { 0 };
	if (argc != 2 && !(argc == 4 && !strcmp(argv[2], "--replay") && argv[3][0] == '/')) {
		fprintf(stderr, "usage: imagenet_gen TRACE [--replay /DIR]\n");
		return 2;
	}
	g.replay = argc == 4;
	g.dir = g.replay ? argv[3] : "";
	g.nfiles = env_u32("IMAGENET_FILES", 1281167);
	g.nclasses = env_u32("IMAGENET_CLASSES", 1000);
	g.epochs = env_u32("IMAGENET_EPOCHS", 2);
	if (g.nclasses > g.nfiles)
		g.nclasses = g.nfiles;
	return run(&g, argv[1]);
}
