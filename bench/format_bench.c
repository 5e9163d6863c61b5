/* SPDX-License-Identifier: MIT */
/*
 * format_bench.c - how fast and how small is the trace format on a
 * deep-learning I/O stream?
 *
 * Generates, from a fixed seed, the syscall stream of a PyTorch-like
 * training job (a main process with a checkpoint thread and four
 * DataLoader worker processes: two reading TFRecord-like shards
 * sequentially in 128 KiB - 1 MiB requests from two threads each, two
 * reading a shuffled ImageFolder of 20-200 KB JPEGs), plus the file,
 * process, block and cache rows a recording of it would carry.  Then, on
 * one core (CPU 0 unless -c), best of -r runs:
 *
 *   encode   tape_writer_open + tape_writer_append of every event +
 *            tape_writer_close, wall time (the file lands in the page cache);
 *   decode   tape_reader_open + tape_cursor_next_block over the syscall
 *            table, reading every field of every event, with the file in
 *            the page cache ("hot") and evicted first with
 *            POSIX_FADV_DONTNEED ("cold");
 *
 * and checks that the decoded events are the generated ones (a digest of
 * every field).  With -C it also writes the syscall table as CSV, byte for
 * byte what `iotape dump --format csv` prints, so bench/run.sh can compare
 * the trace with zstd-compressed CSV (and with Parquet, bench/parquet_peer.mjs).
 * -S leaves out the rows of the other tables (only the syscall table is
 * encoded, as the CSV and Parquet peers hold it); -i takes the syscall rows
 * of a recorded trace instead of generating them.
 *
 * Output: "key=value" lines on stdout (parsed by bench/run.sh), progress on
 * stderr.  Exit 0, or 1 when something failed (not when a target is missed:
 * targets are run.sh's business).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "tape.h"

/* ------------------------------------------------------------- random */

static uint64_t rng_s[4];

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void rng_seed(uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		rng_s[i] = splitmix(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** */
static uint64_t rnd(void)
{
	uint64_t r = rotl(rng_s[1] * 5, 7) * 9, t = rng_s[1] << 17;
	rng_s[2] ^= rng_s[0];
	rng_s[3] ^= rng_s[1];
	rng_s[1] ^= rng_s[2];
	rng_s[0] ^= rng_s[3];
	rng_s[2] ^= t;
	rng_s[3] = rotl(rng_s[3], 45);
	return r;
}

static double unit(void) { return (double)(rnd() >> 11) * 0x1.0p-53; }
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }
static int chance(double p) { return unit() < p; }

static double normal(void)
{
	double u = unit(), v = unit();
	return sqrt(-2.0 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

/* Lognormal with the given median (ns or bytes) and log-space sigma. */
static uint64_t lognormal(double median, double sigma)
{
	double x = median * exp(sigma * normal());
	return x < 1 ? 1 : (uint64_t)x;
}

/* A value that depends only on (a, b): file sizes stay the same per file. */
static uint64_t hash2(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9E3779B97F4A7C15ull ^ b;
	return splitmix(&x);
}

/* ------------------------------------------------------------- model */

#define US 1000ull
#define MS 1000000ull
#define SEC 1000000000ull
#define KiB 1024ull
#define MiB (1024ull * 1024)

#define AT_FDCWD_ -100
#define O_RDONLY_CLOEXEC 0x80000ull	 /* O_RDONLY | O_CLOEXEC */
#define O_CKPT 0x80241ull		 /* O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC */
#define O_LOG 0x80441ull		 /* O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC */
#define AT_EMPTY_PATH_ 0x1000ull
#define DEV_NVME ((259ull << 20) | 1)	 /* nvme0n1p1 */

#define NSHARDS 1024
#define NCLASSES 1000
#define PER_CLASS 1300
#define NIMAGES (NCLASSES * PER_CLASS)
#define BATCH 64

/* Events of the other tables, appended just before syscall number `at`. */
struct side {
	uint64_t at;
	int table;
	union {
		struct tape_block b;
		struct tape_cache c;
		struct tape_file f;
		struct tape_process p;
	} u;
};

struct gen {
	struct tape_syscall *ev;
	size_t n, cap;
	struct side *side;
	size_t nside, capside;
	uint64_t next_file_id;
	/* strings live for the whole run: one arena of fixed-size chunks */
	char *arena;
	size_t arena_left;
	/* files */
	const char *shard_path[NSHARDS];
	uint64_t shard_fid[NSHARDS], shard_size[NSHARDS];
	uint64_t shard_ino[NSHARDS];
	const char **img_path;	/* NIMAGES, created on first open */
	uint64_t *img_fid;
	uint32_t *perm;		/* shuffled image order */
	uint32_t shard_order[NSHARDS];
	size_t next_shard, next_img;
	uint64_t sector;	/* next block sector */
};

static struct gen G;

static void *xalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		fprintf(stderr, "format_bench: out of memory (%zu bytes)\n", n);
		exit(1);
	}
	return p;
}

static const char *intern(const char *s)
{
	size_t len = strlen(s) + 1;
	if (len > G.arena_left) {
		G.arena_left = 1 << 20;
		G.arena = xalloc(G.arena_left);
	}
	char *p = memcpy(G.arena, s, len);
	G.arena += len;
	G.arena_left -= len;
	return p;
}

static struct side *side_new(int table, uint64_t ts)
{
	if (G.nside == G.capside) {
		G.capside = G.capside ? 2 * G.capside : 4096;
		struct side *p = realloc(G.side, G.capside * sizeof(*p));
		if (!p) {
			fprintf(stderr, "format_bench: out of memory\n");
			exit(1);
		}
		G.side = p;
	}
	struct side *s = &G.side[G.nside++];
	memset(s, 0, sizeof(*s));
	s->at = G.n;
	s->table = table;
	s->u.b.ts_ns = ts; /* ts_ns is the first field of every struct */
	return s;
}

enum kind { K_MAIN, K_CKPT, K_SHARD, K_IMAGE };

struct thr {
	enum kind kind;
	uint32_t pid, tid;
	uint64_t t;		/* entry time of the next syscall */
	int state;
	int fd;
	int use_pread;		/* shard readers: pread64 instead of read */
	uint64_t req;		/* shard readers: request size, 0 = per sample */
	int shard;
	uint64_t pos, size, fid;
	const char *path;
	unsigned until_stall;
	unsigned batch_left;
	size_t img;
	unsigned steps;		/* checkpoint: writes left */
	uint64_t next_ckpt, next_log, log_pos;
	unsigned ckpt_no;
};

static void emit(struct thr *th, unsigned op, int64_t fd, uint64_t fid, uint64_t off,
		 uint64_t size, int64_t ret, uint64_t flags, const char *path, uint64_t dur,
		 uint64_t gap)
{
	struct tape_syscall *e = &G.ev[G.n++];
	*e = (struct tape_syscall){
		.ts_ns = th->t, .dur_ns = dur, .pid = th->pid, .tid = th->tid, .op = op,
		.fd = fd, .file_id = fid, .offset = off, .size = size, .ret = ret,
		.flags = flags, .path = path ? path : "", .path2 = "",
		.fd2 = -1,	/* no copies: what the writer stores for other ops */
	};
	th->t += dur + gap;
}

static void new_file(uint64_t ts, uint64_t fid, uint64_t ino, uint64_t size, const char *path)
{
	struct side *s = side_new(TAPE_TABLE_FILE, ts);
	s->u.f.file_id = fid;
	s->u.f.dev = DEV_NVME;
	s->u.f.inode = ino;
	s->u.f.size = size;
	s->u.f.mode = 0100644;
	s->u.f.path = path;
}

/* Now and then a read leaves a trace in the block and cache tables. */
static void maybe_block(struct thr *th, uint64_t ino, uint64_t fid, uint64_t off,
			uint64_t bytes, int write)
{
	if (!bytes || !chance(1.0 / 1500))
		return;
	uint64_t ts = th->t;
	struct side *s = side_new(TAPE_TABLE_CACHE, ts + lognormal(2 * US, 0.3));
	s->u.c.pid = th->pid;
	s->u.c.tid = th->tid;
	s->u.c.kind = write ? TAPE_CACHE_ACCESS : TAPE_CACHE_INSERT;
	s->u.c.dev = DEV_NVME;
	s->u.c.inode = ino;
	s->u.c.file_id = fid;
	s->u.c.index = off >> 12;
	s->u.c.count = (bytes + 4095) >> 12;
	for (uint64_t done = 0; done < bytes; done += 128 * KiB) {
		uint64_t b = bytes - done < 128 * KiB ? bytes - done : 128 * KiB;
		s = side_new(TAPE_TABLE_BLOCK, ts + lognormal(5 * US, 0.3));
		s->u.b.dur_ns = lognormal(write ? 40 * US : 80 * US, 0.6);
		s->u.b.pid = th->pid;
		s->u.b.tid = th->tid;
		s->u.b.dev = DEV_NVME;
		s->u.b.sector = G.sector;
		s->u.b.bytes = (b + 4095) & ~4095ull;
		s->u.b.flags = write ? TAPE_BLK_WRITE | TAPE_BLK_SYNC
				     : TAPE_BLK_READ | (done ? TAPE_BLK_RAHEAD : 0);
		s->u.b.inode = ino;
		G.sector += s->u.b.bytes >> 9;
	}
}

/* Read latency: a fixed cost plus ~2.8 GB/s, with a heavy tail. */
static uint64_t read_dur(uint64_t bytes)
{
	return lognormal(12 * US + bytes * 0.35, 0.7);
}

static void step_shard(struct thr *th)
{
	if (th->state == 0) { /* open the next shard */
		int s = (int)G.shard_order[G.next_shard++ % NSHARDS];
		th->shard = s;
		th->path = G.shard_path[s];
		th->size = G.shard_size[s];
		th->pos = 0;
		if (!G.shard_fid[s]) {
			G.shard_fid[s] = G.next_file_id++;
			new_file(th->t, G.shard_fid[s], G.shard_ino[s], th->size, th->path);
		}
		th->fid = G.shard_fid[s];
		emit(th, TAPE_OP_OPENAT, AT_FDCWD_, th->fid, 0, 0, th->fd, O_RDONLY_CLOEXEC,
		     th->path, lognormal(9 * US, 0.5), lognormal(3 * US, 0.4));
		th->state = 1;
		return;
	}
	if (th->state == 1) { /* fstat, as Python's open() does */
		emit(th, TAPE_OP_NEWFSTATAT, th->fd, th->fid, 0, 0, 0, AT_EMPTY_PATH_, th->path,
		     lognormal(1500, 0.3), lognormal(2 * US, 0.4));
		th->state = 2;
		return;
	}
	if (th->state == 3) { /* EOF seen: close */
		emit(th, TAPE_OP_CLOSE, th->fd, th->fid, 0, 0, 0, 0, th->path,
		     lognormal(2 * US, 0.4), lognormal(20 * US, 1.0));
		th->state = 0;
		return;
	}
	/* state 2: read on */
	if (!th->use_pread && th->pos < th->size && chance(1.0 / 400)) {
		/* skip a damaged record or jump to an index entry */
		uint64_t to = th->pos + below(4 * MiB);
		if (to > th->size)
			to = th->size;
		emit(th, TAPE_OP_LSEEK, th->fd, th->fid, th->pos, 0, (int64_t)to, 0 /* SEEK_SET */,
		     th->path, lognormal(800, 0.3), lognormal(3 * US, 0.4));
		th->pos = to;
		return;
	}
	uint64_t req = th->req ? th->req : lognormal(400 * KiB, 0.5);
	if (req < 128 * KiB)
		req = 128 * KiB;
	if (req > MiB)
		req = MiB;
	if (!th->req)
		req &= ~511ull;
	uint64_t got = th->pos + req <= th->size ? req : th->size - th->pos;
	uint64_t gap = lognormal(150 * US, 1.0);
	if (--th->until_stall == 0) { /* queue full: the GPU step catches up */
		gap += lognormal(25 * MS, 0.8);
		th->until_stall = 32 + (unsigned)below(96);
	}
	uint64_t dur = read_dur(got);
	maybe_block(th, G.shard_ino[th->shard], th->fid, th->pos, got, 0);
	emit(th, th->use_pread ? TAPE_OP_PREAD64 : TAPE_OP_READ, th->fd, th->fid, th->pos, req,
	     (int64_t)got, 0, th->path, dur, got ? gap : lognormal(3 * US, 0.4));
	th->pos += got;
	if (!got)
		th->state = 3;
}

static const char *image_path(size_t img)
{
	if (!G.img_path[img]) {
		char p[128];
		unsigned cls = (unsigned)(img / PER_CLASS);
		unsigned syn = 1440764 + cls * 7919;
		snprintf(p, sizeof(p), "/datasets/imagenet/train/n%08u/n%08u_%u.JPEG", syn, syn,
			 (unsigned)(hash2(img, 7) % 50000));
		G.img_path[img] = intern(p);
	}
	return G.img_path[img];
}

static uint64_t image_size(size_t img)
{
	uint64_t x = hash2(img, 1);
	double z = ((double)(x >> 11) * 0x1.0p-53) * 2 - 1; /* cheap, stable spread */
	uint64_t s = (uint64_t)(110000 * exp(0.7 * z * fabs(z)));
	return s < 20000 ? 20000 + (x & 0xfff) : s > 200000 ? 200000 - (x & 0xfff) : s;
}

static void step_image(struct thr *th)
{
	uint64_t ino = 5000000 + th->img;

	switch (th->state) {
	case 0: /* open the next sample of this worker's batch */
		if (!th->batch_left) {
			th->img = G.next_img; /* DataLoader hands out whole batches */
			G.next_img += BATCH;
			th->batch_left = BATCH;
		}
		{
			size_t img = G.perm[th->img++ % NIMAGES];
			th->path = image_path(img);
			th->size = image_size(img);
			th->pos = 0;
			if (!G.img_fid[img]) {
				G.img_fid[img] = G.next_file_id++;
				new_file(th->t, G.img_fid[img], 5000000 + img, th->size, th->path);
			}
			th->fid = G.img_fid[img];
			ino = 5000000 + img;
		}
		emit(th, TAPE_OP_OPENAT, AT_FDCWD_, th->fid, 0, 0, th->fd, O_RDONLY_CLOEXEC,
		     th->path, lognormal(12 * US, 0.6), lognormal(3 * US, 0.4));
		th->state = 1;
		break;
	case 1:
		emit(th, TAPE_OP_NEWFSTATAT, th->fd, th->fid, 0, 0, 0, AT_EMPTY_PATH_, th->path,
		     lognormal(1500, 0.3), lognormal(2 * US, 0.4));
		th->state = chance(0.5) ? 2 : 3;
		break;
	case 2: /* BufferedReader asks where it is */
		emit(th, TAPE_OP_LSEEK, th->fd, th->fid, 0, 0, 0, 1 /* SEEK_CUR */, th->path,
		     lognormal(700, 0.3), lognormal(2 * US, 0.4));
		th->state = 3;
		break;
	case 3: { /* read the whole file: size + 1 asked, size returned */
		uint64_t dur = read_dur(th->size);
		maybe_block(th, ino, th->fid, 0, th->size, 0);
		emit(th, TAPE_OP_READ, th->fd, th->fid, 0, th->size + 1, (int64_t)th->size, 0,
		     th->path, dur, lognormal(2 * US, 0.4));
		th->pos = th->size;
		th->state = chance(0.3) ? 4 : 5;
		break;
	}
	case 4: /* and the read that sees EOF */
		emit(th, TAPE_OP_READ, th->fd, th->fid, th->pos, 1, 0, 0, th->path,
		     lognormal(900, 0.3), lognormal(2 * US, 0.4));
		th->state = 5;
		break;
	case 5: { /* close, then decode and augment the JPEG */
		uint64_t gap = lognormal(2000 * US, 0.5);
		if (--th->batch_left == 0)
			gap += lognormal(8 * MS, 0.6); /* collate, put on the queue */
		emit(th, TAPE_OP_CLOSE, th->fd, th->fid, 0, 0, 0, 0, th->path,
		     lognormal(2 * US, 0.4), gap);
		th->state = 0;
		break;
	}
	}
}

static void step_ckpt(struct thr *th)
{
	static char path[96];
	const uint64_t chunk = 16 * MiB;

	switch (th->state) {
	case 0:
		snprintf(path, sizeof(path), "/checkpoints/run42/step_%06u.pt", th->ckpt_no * 5000);
		th->path = intern(path);
		th->fid = G.next_file_id++;
		th->size = 380 * MiB + below(8 * MiB);
		th->pos = 0;
		new_file(th->t, th->fid, 9000000 + th->ckpt_no, 0, th->path);
		emit(th, TAPE_OP_OPENAT, AT_FDCWD_, th->fid, 0, 0, th->fd, O_CKPT, th->path,
		     lognormal(40 * US, 0.5), lognormal(20 * US, 0.5));
		th->state = 1;
		break;
	case 1: {
		uint64_t n = th->size - th->pos < chunk ? th->size - th->pos : chunk;
		maybe_block(th, 9000000 + th->ckpt_no, th->fid, th->pos, n, 1);
		emit(th, TAPE_OP_PWRITE64, th->fd, th->fid, th->pos, n, (int64_t)n, 0, th->path,
		     lognormal(6 * MS, 0.4), lognormal(30 * US, 0.6));
		th->pos += n;
		if (th->pos == th->size)
			th->state = 2;
		break;
	}
	case 2:
		emit(th, TAPE_OP_FSYNC, th->fd, th->fid, 0, 0, 0, 0, th->path,
		     lognormal(450 * MS, 0.5), lognormal(10 * US, 0.5));
		th->state = 3;
		break;
	case 3:
		emit(th, TAPE_OP_CLOSE, th->fd, th->fid, 0, 0, 0, 0, th->path,
		     lognormal(5 * US, 0.4), 0);
		th->t += 120 * SEC + below(2 * SEC); /* next checkpoint */
		th->ckpt_no++;
		th->state = 0;
		break;
	}
}

static void step_main(struct thr *th)
{
	static const char *logp, *probe;
	if (!logp) {
		logp = intern("/runs/run42/train.log");
		probe = intern("/checkpoints/run42/latest.pt");
		th->fid = G.next_file_id++;
		new_file(th->t, th->fid, 8000001, 0, logp);
	}
	if (chance(0.02)) { /* is there a checkpoint to resume from? */
		emit(th, TAPE_OP_NEWFSTATAT, AT_FDCWD_, 0, 0, 0, -2 /* ENOENT */, 0, probe,
		     lognormal(3 * US, 0.4), lognormal(200 * MS, 0.3));
		return;
	}
	uint64_t n = 90 + below(60);
	emit(th, TAPE_OP_WRITE, th->fd, th->fid, th->log_pos, n, (int64_t)n, 0, logp,
	     lognormal(4 * US, 0.5), lognormal(250 * MS, 0.3));
	th->log_pos += n;
}

static void process_row(struct thr *th, uint32_t ppid, const char *comm, const char *argv)
{
	struct side *s = side_new(TAPE_TABLE_PROCESS, th->t);
	s->u.p.pid = th->pid;
	s->u.p.tid = th->tid;
	s->u.p.ppid = ppid;
	s->u.p.comm = comm;
	s->u.p.argv = argv;
}

static void generate(size_t n, uint64_t seed)
{
	char p[128];

	rng_seed(seed);
	G.cap = n;
	G.ev = xalloc(n * sizeof(*G.ev));
	G.next_file_id = 1;
	G.sector = 2048;
	for (int s = 0; s < NSHARDS; s++) {
		snprintf(p, sizeof(p), "/datasets/imagenet/tfrecord/train-%05d-of-%05d", s, NSHARDS);
		G.shard_path[s] = intern(p);
		G.shard_size[s] = 100 * MiB + below(80 * MiB) + below(4096);
		G.shard_ino[s] = 3000000 + (uint64_t)s * 17;
		G.shard_order[s] = (uint32_t)s;
	}
	for (int s = NSHARDS - 1; s > 0; s--) {
		int k = (int)below((uint64_t)s + 1);
		uint32_t t = G.shard_order[s];
		G.shard_order[s] = G.shard_order[k];
		G.shard_order[k] = t;
	}
	G.img_path = calloc(NIMAGES, sizeof(*G.img_path));
	G.img_fid = calloc(NIMAGES, sizeof(*G.img_fid));
	G.perm = xalloc(NIMAGES * sizeof(*G.perm));
	if (!G.img_path || !G.img_fid) {
		fprintf(stderr, "format_bench: out of memory\n");
		exit(1);
	}
	for (uint32_t i = 0; i < NIMAGES; i++)
		G.perm[i] = i;
	for (uint32_t i = NIMAGES - 1; i > 0; i--) {
		uint32_t k = (uint32_t)below((uint64_t)i + 1), t = G.perm[i];
		G.perm[i] = G.perm[k];
		G.perm[k] = t;
	}

	/* CLOCK_MONOTONIC of a machine up for three days */
	const uint64_t t0 = 3 * 86400 * SEC + 123456789;
	static struct thr th[] = {
		{ K_MAIN, 1000, 1000, .fd = 3 },
		{ K_CKPT, 1000, 1002, .fd = 4 },
		{ K_SHARD, 1010, 1010, .fd = 5, .req = 256 * KiB },
		{ K_SHARD, 1010, 1015, .fd = 6, .req = 1 * MiB },
		{ K_SHARD, 1011, 1011, .fd = 5, .use_pread = 1 },
		{ K_SHARD, 1011, 1016, .fd = 6, .req = 128 * KiB },
		{ K_IMAGE, 1012, 1012, .fd = 5 },
		{ K_IMAGE, 1013, 1013, .fd = 5 },
	};
	const size_t nth = sizeof(th) / sizeof(th[0]);
	const char *py = intern("python3"), *wk = intern("pt_data_worker");
	const char *argv = intern("python3 train.py --data /datasets/imagenet --epochs 90 --batch-size 256 --workers 4");
	for (size_t i = 0; i < nth; i++) {
		th[i].t = t0 + i * 1500 * US + below(100 * US);
		th[i].until_stall = 1 + (unsigned)below(64);
		process_row(&th[i], th[i].pid == 1000 ? 1 : 1000,
			    th[i].pid == 1000 ? py : wk, argv);
	}
	th[1].t += 120 * SEC;	/* first checkpoint after two minutes */

	while (G.n < n) {
		struct thr *t = &th[0];
		for (size_t i = 1; i < nth; i++)
			if (th[i].t < t->t)
				t = &th[i];
		switch (t->kind) {
		case K_MAIN: step_main(t); break;
		case K_CKPT: step_ckpt(t); break;
		case K_SHARD: step_shard(t); break;
		case K_IMAGE: step_image(t); break;
		}
	}
}

/* -i: the syscall rows of a recorded trace instead of the generated stream
 * (and no rows of the other tables), so the encoder is timed on a real
 * recording.  Strings are copied: a cursor's live only until its next call. */
static int load_trace(const char *path)
{
	tape_reader *r = NULL;
	tape_cursor *c = NULL;
	const void *evs;
	size_t k;
	int err;

	if ((err = tape_reader_open(&r, path)) ||
	    (err = tape_cursor_open(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &c)))
		goto fail;
	while ((err = tape_cursor_next_block(c, &evs, &k)) > 0) {
		const struct tape_syscall *e = evs;
		if (G.n + k > G.cap) {
			size_t cap = G.cap ? 2 * G.cap : 65536;
			while (cap < G.n + k)
				cap *= 2;
			struct tape_syscall *p = realloc(G.ev, cap * sizeof(*p));
			if (!p) {
				fprintf(stderr, "format_bench: out of memory\n");
				exit(1);
			}
			G.ev = p;
			G.cap = cap;
		}
		for (size_t i = 0; i < k; i++) {
			struct tape_syscall *d = &G.ev[G.n++];
			*d = e[i];
			d->path = intern(e[i].path ? e[i].path : "");
			d->path2 = intern(e[i].path2 ? e[i].path2 : "");
		}
	}
	if (err < 0)
		goto fail;
	tape_cursor_free(c);
	tape_reader_free(r);
	if (!G.n) {
		fprintf(stderr, "format_bench: %s: no syscall rows\n", path);
		return -1;
	}
	return 0;
fail:
	fprintf(stderr, "format_bench: %s: %s (%s)\n", path, tape_strerror(err), tape_error_detail());
	tape_cursor_free(c);
	tape_reader_free(r);
	return -1;
}

/* Digest of every field, the same whether computed on the generated or the
 * decoded events.  Strings count by their first byte and their length class
 * only, so the decode loop reads them without walking them. */
static inline uint64_t ev_digest(const struct tape_syscall *e)
{
	return e->ts_ns * 3 + e->dur_ns * 5 + e->pid * 7ull + e->tid * 11ull + e->op * 13ull +
	       (uint64_t)e->fd * 17 + e->file_id * 19 + e->offset * 23 + e->size * 29 +
	       (uint64_t)e->ret * 31 + e->flags * 37 + (unsigned char)e->path[0] * 41ull +
	       (unsigned char)e->path2[0] * 43ull;
}

/* ------------------------------------------------------------- csv */

/* The CSV that `iotape dump --format csv` prints for the syscall table
 * (cli/cmd_dump.c): header of column names, numbers in decimal, signed
 * columns signed, op names, flags as 0x hex, strings RFC 4180-quoted when
 * they hold , " CR LF or start or end with a blank. */
struct out {
	int fd;
	char *p;
	size_t len, cap;
	uint64_t total;
	int err;
};

static void out_flush(struct out *o)
{
	size_t off = 0;
	while (off < o->len) {
		ssize_t k = write(o->fd, o->p + off, o->len - off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			o->err = errno;
			break;
		}
		off += (size_t)k;
	}
	o->total += o->len;
	o->len = 0;
}

static inline void out_str(struct out *o, const char *s, size_t n)
{
	if (o->len + n > o->cap)
		out_flush(o);
	if (n > o->cap) {
		o->err = E2BIG;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static inline void out_u64(struct out *o, uint64_t v)
{
	char b[24];
	int i = sizeof(b);
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	out_str(o, b + i, sizeof(b) - (size_t)i);
}

static inline void out_i64(struct out *o, int64_t v)
{
	if (v < 0) {
		out_str(o, "-", 1);
		out_u64(o, 0 - (uint64_t)v);
	} else {
		out_u64(o, (uint64_t)v);
	}
}

static inline void out_hex(struct out *o, uint64_t v)
{
	char b[24];
	int i = sizeof(b);
	do {
		b[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	b[--i] = 'x';
	b[--i] = '0';
	out_str(o, b + i, sizeof(b) - (size_t)i);
}

static void out_csvstr(struct out *o, const char *s)
{
	size_t n = strlen(s);
	int quote = n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t');
	if (!quote && !strpbrk(s, ",\"\r\n")) {
		out_str(o, s, n);
		return;
	}
	out_str(o, "\"", 1);
	for (; *s; s++) {
		if (*s == '"')
			out_str(o, "\"", 1);
		out_str(o, s, 1);
	}
	out_str(o, "\"", 1);
}

static int write_csv(const char *path, uint64_t *bytes)
{
	size_t ncols;
	const struct tape_column *cols = tape_table_columns(TAPE_TABLE_SYSCALL, &ncols);
	struct out o = { .cap = 1 << 20 };

	o.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o.fd < 0) {
		fprintf(stderr, "format_bench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	o.p = xalloc(o.cap);
	for (size_t i = 0; i < ncols; i++) {
		if (i)
			out_str(&o, ",", 1);
		out_str(&o, cols[i].name, strlen(cols[i].name));
	}
	out_str(&o, "\n", 1);
	for (size_t r = 0; r < G.n && !o.err; r++) {
		const struct tape_syscall *e = &G.ev[r];
		for (size_t i = 0; i < ncols; i++) {
			const struct tape_column *c = &cols[i];
			if (i)
				out_str(&o, ",", 1);
			if (c->type == TAPE_COL_STR) {
				const char *s;
				memcpy(&s, (const char *)e + c->offset, sizeof(s));
				out_csvstr(&o, s ? s : "");
				continue;
			}
			uint64_t v = tape_column_get(c, e);
			const char *name;
			if (c->text == TAPE_TXT_OP && v <= UINT32_MAX &&
			    (name = tape_op_name((unsigned)v)))
				out_str(&o, name, strlen(name));
			else if (c->text == TAPE_TXT_HEX)
				out_hex(&o, v);
			else if (c->type == TAPE_COL_I64)
				out_i64(&o, c->width == 4 ? (int32_t)(uint32_t)v : (int64_t)v);
			else
				out_u64(&o, v);
		}
		out_str(&o, "\n", 1);
	}
	out_flush(&o);
	free(o.p);
	if (close(o.fd) && !o.err)
		o.err = errno;
	if (o.err) {
		fprintf(stderr, "format_bench: %s: %s\n", path, strerror(o.err));
		return -1;
	}
	*bytes = o.total;
	return 0;
}

/* ------------------------------------------------------------- timing */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: close to the wall time on an idle machine, and
 * still meaningful on a busy one (it does not count time spent waiting for
 * the CPU). */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct timing {
	double wall, cpu;
};

static void timing_best(struct timing *best, double wall, double cpu)
{
	if (wall < best->wall)
		best->wall = wall;
	if (cpu < best->cpu)
		best->cpu = cpu;
}

static int encode(const char *path, const struct tape_writer_opts *opts, double *secs,
		  double *cpu, uint64_t *bytes)
{
	tape_writer *w;
	int err;

	unlink(path);
	double t = now(), c = cpu_now();
	if ((err = tape_writer_open(&w, path, opts)))
		goto fail;
	tape_writer_set_meta(w, "clock", "CLOCK_MONOTONIC");
	tape_writer_set_meta(w, "source", "format_bench");
	size_t s = 0;
	for (size_t i = 0; i < G.n; i++) {
		while (s < G.nside && G.side[s].at == i) {
			if ((err = tape_writer_append(w, G.side[s].table, &G.side[s].u))) {
				tape_writer_free(w);
				goto fail;
			}
			s++;
		}
		if ((err = tape_writer_append(w, TAPE_TABLE_SYSCALL, &G.ev[i]))) {
			tape_writer_free(w);
			goto fail;
		}
	}
	for (; s < G.nside; s++)
		if ((err = tape_writer_append(w, G.side[s].table, &G.side[s].u))) {
			tape_writer_free(w);
			goto fail;
		}
	*bytes = tape_writer_bytes(w);
	if ((err = tape_writer_close(w)))
		goto fail;
	*secs = now() - t;
	*cpu = cpu_now() - c;
	return 0;
fail:
	fprintf(stderr, "format_bench: encode: %s (%s)\n", tape_strerror(err), tape_error_detail());
	return -1;
}

static int decode(const char *path, int cold, double *secs, double *cpu, uint64_t *events,
		  uint64_t *digest)
{
	tape_reader *r = NULL;
	tape_cursor *c = NULL;
	const void *evs;
	size_t n;
	int err, rc;
	uint64_t sum = 0, cnt = 0;

	if (cold) { /* evict the file from the page cache (works without root) */
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fdatasync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) {
			fprintf(stderr, "format_bench: cannot evict %s: %s\n", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
	}
	double t = now(), cp = cpu_now();
	if ((err = tape_reader_open(&r, path)) ||
	    (err = tape_cursor_open(r, TAPE_TABLE_SYSCALL, 0, UINT64_MAX, &c)))
		goto fail;
	while ((rc = tape_cursor_next_block(c, &evs, &n)) > 0) {
		const struct tape_syscall *e = evs;
		for (size_t i = 0; i < n; i++)
			sum += ev_digest(&e[i]);
		cnt += n;
	}
	if (rc < 0) {
		err = rc;
		goto fail;
	}
	tape_cursor_free(c);
	tape_reader_free(r);
	*secs = now() - t;
	*cpu = cpu_now() - cp;
	*events = cnt;
	*digest = sum;
	return 0;
fail:
	fprintf(stderr, "format_bench: decode: %s (%s)\n", tape_strerror(err), tape_error_detail());
	tape_cursor_free(c);
	tape_reader_free(r);
	return -1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: format_bench [-n EVENTS] [-r RUNS] [-s SEED] [-c CPU] [-l LEVEL]\n"
		"                    [-b ROWS] [-F] [-V] [-S] [-i TRACE] [-o TRACE] [-C CSV]\n"
		"                    [-m MODE] [-q]\n"
		"  -n  syscall events to generate (default 10000000)\n"
		"  -r  runs per measurement, the best is kept (default 3)\n"
		"  -s  generator seed (default 1)\n"
		"  -c  CPU to pin to (default 0; -1: do not pin)\n"
		"  -l  zstd level (default: the writer's)\n"
		"  -b  rows per block (default: the writer's)\n"
		"  -F  write format 1.1 without EXP/DEXP (TAPE_WRITE_FAST)\n"
		"  -V  write format 1.0 (TAPE_WRITE_V10)\n"
		"  -S  syscall table only: leave out the file, process, block and cache rows\n"
		"  -i  the syscall rows of this trace instead of generated ones (-n, -s\n"
		"      ignored; implies -S)\n"
		"  -o  trace file (default format_bench.tape)\n"
		"  -C  also write the syscall table as CSV to this file\n"
		"  -m  what to time: all (default), encode, or decode (for perf record)\n"
		"  -q  no progress on stderr\n");
}

struct bench_opts {
	size_t n;
	int runs, cpu, quiet, do_enc, do_dec, syscall_only;
	uint64_t seed;
	const char *trace, *csv, *input;
	struct tape_writer_opts wo;
};

/* the command line into *o; -1 to go on, else the exit status */
static int parse_args(int argc, char **argv, struct bench_opts *o)
{
	int opt;

	*o = (struct bench_opts){
		.n = 10000000, .runs = 3, .cpu = 0, .do_enc = 1, .do_dec = 1, .seed = 1,
		.trace = "format_bench.tape", .wo = { .flags = TAPE_WRITE_FORCE },
	};
	while ((opt = getopt(argc, argv, "n:r:s:c:l:b:o:C:i:m:FVSqh")) != -1) {
		switch (opt) {
		case 'n': o->n = strtoull(optarg, NULL, 0); break;
		case 'r': o->runs = atoi(optarg); break;
		case 's': o->seed = strtoull(optarg, NULL, 0); break;
		case 'c': o->cpu = atoi(optarg); break;
		case 'l': o->wo.zstd_level = atoi(optarg); break;
		case 'b': o->wo.block_rows = (unsigned)atoi(optarg); break;
		case 'F': o->wo.flags |= TAPE_WRITE_FAST; break;
		case 'V': o->wo.flags |= TAPE_WRITE_V10; break;
		case 'o': o->trace = optarg; break;
		case 'C': o->csv = optarg; break;
		case 'i': o->input = optarg; break;
		case 'S': o->syscall_only = 1; break;
		case 'q': o->quiet = 1; break;
		case 'm':
			o->do_enc = !strcmp(optarg, "all") || !strcmp(optarg, "encode");
			o->do_dec = !strcmp(optarg, "all") || !strcmp(optarg, "decode");
			if (!o->do_enc && !o->do_dec) {
				usage(stderr);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!o->n || o->runs < 1 || optind != argc) {
		usage(stderr);
		return 2;
	}
	return -1;
}

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "format_bench: cannot pin to CPU %d: %s (running unpinned)\n",
			cpu, strerror(errno));
}

/* the events, read from -i or generated (without the other tables' rows
 * under -S); then what they are, on stdout; *want: their digest */
static int load_events(const struct bench_opts *o, uint64_t *want)
{
	double t = now();
	if (o->input) {
		if (load_trace(o->input))
			return -1;
	} else {
		generate(o->n, o->seed);
		if (o->syscall_only) {
			free(G.side);
			G.side = NULL;
			G.nside = G.capside = 0;
		}
	}
	uint64_t nfile = 0, nproc = 0, nblock = 0, ncache = 0;
	*want = 0;
	for (size_t i = 0; i < G.n; i++)
		*want += ev_digest(&G.ev[i]);
	for (size_t i = 0; i < G.nside; i++) {
		nfile += G.side[i].table == TAPE_TABLE_FILE;
		nproc += G.side[i].table == TAPE_TABLE_PROCESS;
		nblock += G.side[i].table == TAPE_TABLE_BLOCK;
		ncache += G.side[i].table == TAPE_TABLE_CACHE;
	}
	/* a recording's rows are in file order, not always in time order */
	uint64_t tmin = UINT64_MAX, tmax = 0;
	for (size_t i = 0; i < G.n; i++) {
		tmin = G.ev[i].ts_ns < tmin ? G.ev[i].ts_ns : tmin;
		tmax = G.ev[i].ts_ns > tmax ? G.ev[i].ts_ns : tmax;
	}
	uint64_t span = tmax - tmin;
	if (!o->quiet)
		fprintf(stderr, "format_bench: %s %zu syscall + %" PRIu64 " other events "
			"(%.0f s of a training job) in %.1f s\n", o->input ? "read" : "generated",
			G.n, (uint64_t)G.nside, span / 1e9, now() - t);

	if (o->input)
		printf("input=%s\n", o->input);
	else
		printf("seed=%" PRIu64 "\n", o->seed);
	printf("cpu=%d\n", o->cpu);
	printf("syscall_events=%zu\n", G.n);
	printf("file_events=%" PRIu64 "\nprocess_events=%" PRIu64 "\n", nfile, nproc);
	printf("block_events=%" PRIu64 "\ncache_events=%" PRIu64 "\n", nblock, ncache);
	printf("events=%" PRIu64 "\n", (uint64_t)G.n + G.nside);
	printf("span_s=%.1f\n", span / 1e9);
	fflush(stdout);
	return 0;
}

/* the encode runs, the best into *enc; -m decode reuses the trace of an
 * earlier run when there is one */
static int time_encode(const struct bench_opts *o, struct timing *enc)
{
	uint64_t bytes = 0;
	int enc_runs = o->do_enc ? o->runs : access(o->trace, F_OK) ? 1 : 0;

	for (int i = 0; i < enc_runs; i++) {
		double s, cs;
		if (encode(o->trace, &o->wo, &s, &cs, &bytes))
			return -1;
		if (!o->quiet)
			fprintf(stderr, "format_bench: encode run %d: %.3f s (cpu %.3f s)\n", i + 1, s, cs);
		timing_best(enc, s, cs);
	}
	return 0;
}

/* the decode runs, hot then cold, the best of each into *hot and *cold;
 * each must give back every event (their digest: want) */
static int time_decode(const struct bench_opts *o, uint64_t want, struct timing *hot,
		       struct timing *cold_t)
{
	uint64_t got = 0, digest = 0;

	for (int cold = 0; cold <= 1; cold++) {
		for (int i = 0; i < o->runs; i++) {
			double s, cs;
			if (decode(o->trace, cold, &s, &cs, &got, &digest))
				return -1;
			if (got != G.n || digest != want) {
				fprintf(stderr, "format_bench: decoded %" PRIu64 " events, digest %016"
					PRIx64 "; wrote %zu, digest %016" PRIx64 "\n",
					got, digest, G.n, want);
				return -1;
			}
			if (!o->quiet)
				fprintf(stderr, "format_bench: decode (%s) run %d: %.3f s (cpu %.3f s)\n",
					cold ? "cold" : "hot", i + 1, s, cs);
			timing_best(cold ? cold_t : hot, s, cs);
		}
	}
	return 0;
}

/* the bytes and blocks of each table of the trace, on stdout */
static int print_table_sizes(const char *trace)
{
	tape_reader *r;
	int err = tape_reader_open(&r, trace);
	if (err) {
		fprintf(stderr, "format_bench: %s: %s\n", trace, tape_strerror(err));
		return -1;
	}
	for (int tb = 1; tb < TAPE_TABLE_MAX; tb++) {
		struct tape_table_stats ts;
		if (!tape_reader_table_stats(r, tb, &ts) && ts.events)
			printf("table_%s_bytes=%" PRIu64 "\ntable_%s_blocks=%" PRIu64 "\n",
			       tape_table_name(tb), ts.bytes, tape_table_name(tb), ts.blocks);
	}
	tape_reader_free(r);
	return 0;
}

/* the syscall table as CSV (-C), and its size on stdout */
static int csv_figures(const struct bench_opts *o)
{
	uint64_t cb = 0;
	double t = now();

	if (write_csv(o->csv, &cb))
		return -1;
	if (!o->quiet)
		fprintf(stderr, "format_bench: wrote %s in %.1f s\n", o->csv, now() - t);
	printf("csv_bytes=%" PRIu64 "\n", cb);
	printf("csv_bytes_per_event=%.3f\n", (double)cb / (double)G.n);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (o.cpu >= 0)
		pin_cpu(o.cpu);

	uint64_t want;
	if (load_events(&o, &want))
		return 1;

	struct timing enc = { 1e30, 1e30 };
	if (time_encode(&o, &enc))
		return 1;
	struct stat st;
	if (stat(o.trace, &st)) {
		perror(o.trace);
		return 1;
	}

	struct timing hot = { 1e30, 1e30 }, cold_t = { 1e30, 1e30 };
	if (o.do_dec && time_decode(&o, want, &hot, &cold_t))
		return 1;

	if (print_table_sizes(o.trace))
		return 1;
	uint64_t total = (uint64_t)G.n + G.nside;
	printf("trace_bytes=%lld\n", (long long)st.st_size);
	printf("trace_bytes_per_event=%.3f\n", (double)st.st_size / (double)total);
	if (o.do_enc) {
		printf("encode_s=%.4f\nencode_mev_s=%.2f\n", enc.wall, total / enc.wall / 1e6);
		printf("encode_cpu_s=%.4f\nencode_cpu_mev_s=%.2f\n", enc.cpu, total / enc.cpu / 1e6);
	}
	if (o.do_dec) {
		printf("decode_hot_s=%.4f\ndecode_hot_mev_s=%.2f\n", hot.wall, G.n / hot.wall / 1e6);
		printf("decode_hot_cpu_s=%.4f\ndecode_hot_cpu_mev_s=%.2f\n", hot.cpu,
		       G.n / hot.cpu / 1e6);
		printf("decode_cold_s=%.4f\ndecode_cold_mev_s=%.2f\n", cold_t.wall,
		       G.n / cold_t.wall / 1e6);
		printf("roundtrip=ok\n");
	}
	fflush(stdout);

	if (o.csv && csv_figures(&o))
		return 1;
	if (fflush(stdout) || ferror(stdout))
		return 1;
	return 0;
}
