/* SPDX-License-Identifier: MIT */
/*
 * golden.c - the deterministic content of tests/golden/v1.iotape (see
 * golden.h).  Pure functions of (table, index): no libc randomness, no
 * time, no locale.  Frozen: the committed file was written from this code.
 */
#include <stdio.h>
#include <string.h>
#include "golden.h"

static const size_t counts[GOLDEN_TABLES] = {
	[TAPE_TABLE_SYSCALL] = 260, [TAPE_TABLE_BLOCK] = 90, [TAPE_TABLE_CACHE] = 130,
	[TAPE_TABLE_PROCESS] = 60, [TAPE_TABLE_FILE] = 64, [TAPE_TABLE_SAMPLE] = 75,
};

const struct golden_kv golden_meta[] = {
	{ "host", "golden-host" },
	{ "cmd", "python train.py --data=/data/a,b \"quoted\"" },
	{ "clock", "monotonic" },
	{ "phase", "done" },		/* "start", then "middle", then "done" */
	{ "note", "line1\nline2\t\xc3\xa9" },
	{ "empty", "" },
};
const size_t golden_nmeta = sizeof(golden_meta) / sizeof(golden_meta[0]);

size_t golden_count(int table)
{
	return table > 0 && table < GOLDEN_TABLES ? counts[table] : 0;
}

/* A fixed 64-bit mix of (table, i, k). */
static uint64_t h(int table, size_t i, unsigned k)
{
	uint64_t z = (uint64_t)table * 0x9E3779B97F4A7C15ull ^ (uint64_t)i * 0xBF58476D1CE4E5B9ull ^
		     (uint64_t)k * 0x94D049BB133111EBull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t ts_of(int table, size_t i)
{
	return 1000000000ull + (uint64_t)i * (1000ull + 7 * (uint64_t)table) + h(table, i, 0) % 500;
}

void golden_event(int table, size_t i, void *ev, char s[2][GOLDEN_STR])
{
	uint64_t ts = ts_of(table, i);
	s[0][0] = s[1][0] = 0;
	switch (table) {
	case TAPE_TABLE_SYSCALL: {
		struct tape_syscall *e = ev;
		static const uint32_t ops[] = { TAPE_OP_OPENAT, TAPE_OP_READ, TAPE_OP_PREAD64,
						TAPE_OP_READ, TAPE_OP_CLOSE, TAPE_OP_MMAP,
						TAPE_OP_RENAME, TAPE_OP_URING_READ, TAPE_OP_FSYNC };
		memset(e, 0, sizeof(*e));
		e->ts_ns = ts;
		e->dur_ns = 100 + h(table, i, 1) % 100000;
		e->pid = 4242;
		e->tid = i % 50 == 7 ? UINT32_MAX : 4242 + (uint32_t)(i % 4);
		e->op = ops[i % 9];
		e->fd = e->op == TAPE_OP_RENAME ? -1 : 3 + (int64_t)(i % 5);
		e->file_id = 1 + i % 40;
		e->offset = (uint64_t)(i / 9) * 1048576;
		e->size = i % 11 == 0 ? 0 : 4096u << (i % 8);
		e->ret = i % 13 == 5 ? -11 /* EAGAIN */ : i % 29 == 3 ? INT64_MIN : (int64_t)e->size;
		e->flags = i % 31 == 0 ? UINT64_MAX : 0x80000 | (i & 3);
		snprintf(s[0], GOLDEN_STR, "/data/train/shard-%05zu.tfrecord", i % 40);
		if (e->op == TAPE_OP_RENAME)
			snprintf(s[1], GOLDEN_STR, "/ckpt/step,%zu \"tmp\"\n\xff", i);
		e->path = s[0];
		e->path2 = s[1];
		break;
	}
	case TAPE_TABLE_BLOCK: {
		struct tape_block *e = ev;
		memset(e, 0, sizeof(*e));
		e->ts_ns = ts;
		e->dur_ns = 20000 + h(table, i, 1) % 2000000;
		e->pid = i % 3 ? 4242 : 0;
		e->tid = e->pid;
		e->dev = 8u << 20 | (uint32_t)(i % 3);
		e->sector = 2048 + (uint64_t)i * 256 + (i % 7 == 0 ? h(table, i, 2) % 1000000 : 0);
		e->bytes = 131072;
		e->flags = i % 5 == 0 ? TAPE_BLK_WRITE | TAPE_BLK_SYNC : TAPE_BLK_READ |
			   (i % 4 == 0 ? TAPE_BLK_RAHEAD : 0);
		e->inode = i % 6 == 0 ? 0 : 100000 + i % 40;
		e->error = i == 77 ? -5 /* EIO */ : 0;
		break;
	}
	case TAPE_TABLE_CACHE: {
		struct tape_cache *e = ev;
		memset(e, 0, sizeof(*e));
		e->ts_ns = ts;
		e->pid = 4242;
		e->tid = 4243;
		e->kind = 1 + (uint32_t)(i % 5);
		e->dev = 8u << 20;
		e->inode = 100000 + i % 40;
		e->file_id = 1 + i % 40;
		e->index = (uint64_t)i * 32;
		e->count = i % 9 == 0 ? 1 : 32;
		break;
	}
	case TAPE_TABLE_PROCESS: {
		struct tape_process *e = ev;
		memset(e, 0, sizeof(*e));
		e->ts_ns = ts;
		e->end_ns = i % 4 == 3 ? 0 : ts + 5000000000ull;
		e->pid = 4242 + (uint32_t)i;
		e->tid = e->pid;
		e->ppid = i ? 4242 : 1;
		e->exit_code = i == 5 ? -9 : i == 6 ? 137 : 0;
		snprintf(s[0], GOLDEN_STR, i ? "pt_data_worker" : "python3");
		snprintf(s[1], GOLDEN_STR, "python3 train.py --rank=%zu --tag=\"a,b\"", i);
		e->comm = s[0];
		e->argv = i == 11 ? "" : s[1];
		if (i == 11)
			s[1][0] = 0;
		break;
	}
	case TAPE_TABLE_FILE: {
		struct tape_file *e = ev;
		memset(e, 0, sizeof(*e));
		e->ts_ns = ts;
		e->file_id = 1 + i;
		e->dev = 8u << 20;
		e->inode = 100000 + i;
		e->size = i == 39 ? UINT64_MAX : (uint64_t)(i + 1) * 150000000ull;
		e->mode = 0100644;
		snprintf(s[0], GOLDEN_STR, "/data/train/shard-%05zu.tfrecord", i);
		e->path = s[0];
		break;
	}
	case TAPE_TABLE_SAMPLE: {
		struct tape_sample *e = ev;
		memset(e, 0, sizeof(*e));
		e->ts_ns = ts;
		e->metric = 1 + (uint32_t)(i % 12);
		e->subject = e->metric == TAPE_METRIC_GPU_UTIL_PCT ? 0 : 4242;
		e->value = e->metric == TAPE_METRIC_GPU_UTIL_PCT ? i % 101 :
			   (uint64_t)i * 123456789ull + h(table, i, 3) % 1000;
		break;
	}
	}
}

static size_t max_count(void)
{
	size_t m = 0;
	for (int t = 1; t < GOLDEN_TABLES; t++)
		m = counts[t] > m ? counts[t] : m;
	return m;
}

size_t golden_blocks(int table)
{
	size_t rows = 0, blocks = 0;
	for (size_t s = 0; s < max_count(); s++) {
		if (s < golden_count(table) && ++rows == GOLDEN_BLOCK_ROWS) {
			blocks++;
			rows = 0;
		}
		if (s % GOLDEN_FLUSH_EVERY == GOLDEN_FLUSH_EVERY - 1 && rows) {
			blocks++;
			rows = 0;
		}
	}
	return blocks + (rows != 0);
}

int golden_write(tape_writer *w)
{
	char strs[2][GOLDEN_STR];
	union {
		struct tape_syscall a;
		struct tape_block b;
		struct tape_cache c;
		struct tape_process d;
		struct tape_file e;
		struct tape_sample f;
	} ev;
	int err;

	for (size_t k = 0; k < golden_nmeta; k++) {
		const char *v = golden_meta[k].value;
		if (!strcmp(golden_meta[k].key, "phase"))
			v = "start";
		if ((err = tape_writer_set_meta(w, golden_meta[k].key, v)))
			return err;
	}
	for (size_t s = 0; s < max_count(); s++) {
		for (int t = 1; t < GOLDEN_TABLES; t++) {
			if (s >= golden_count(t))
				continue;
			golden_event(t, s, &ev, strs);
			if ((err = tape_writer_append(w, t, &ev)))
				return err;
		}
		if (s == 150 && (err = tape_writer_set_meta(w, "phase", "middle")))
			return err;
		if (s % GOLDEN_FLUSH_EVERY == GOLDEN_FLUSH_EVERY - 1 && (err = tape_writer_flush(w)))
			return err;
	}
	return tape_writer_set_meta(w, "phase", "done");
}
