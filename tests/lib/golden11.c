/* SPDX-License-Identifier: MIT */
/*
 * golden11.c - see golden11.h.  Don't change what it returns.
 */
#include <string.h>
#include "golden11.h"

static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static const char *const paths[4] = {
	"/data/shard-000.rec", "/data/shard-001.rec", "/data/images/n01/img_0042.JPEG",
	"/data/images/n07/img_1337.JPEG",
};

/* The gap before row k: 2^6..2^17 ns, every lower bit random. */
static uint64_t gap(size_t k)
{
	unsigned gl = 6 + (unsigned)(mix(k + 4) % 12);
	return (1ull << gl) | (mix(k + 6) & ((1ull << gl) - 1));
}

/* Row i's timestamp, 10^9 plus the gaps before it (the last one computed
 * is kept, so that rows asked in order cost one gap each). */
static uint64_t golden11_ts(size_t i)
{
	static size_t ki;
	static uint64_t kts = 1000000000ull;
	if (i < ki) {
		ki = 0;
		kts = 1000000000ull;
	}
	for (; ki < i; ki++)
		kts += gap(ki);
	return kts;
}

/*
 * Four threads of two processes, taking turns.  Each thread's rows are a
 * pure function of its own row number j: a cycle openat, newfstatat, read,
 * close over its file (ops the prediction gets right), except in rows
 * 2048-3071, where the op is drawn at random (the block there loses op's
 * PRED).  Durations spread over
 * 2^9..2^21 ns with every lower bit random (EXP), timestamps growing by
 * random gaps of 2^6..2^17 ns (DEXP), read sizes of 2^12..2^20 bytes with random low bits
 * (EXP), offsets sequential per thread.
 */
void golden11_event(size_t i, struct tape_syscall *ev)
{
	unsigned th = (unsigned)(i & 3);
	size_t j = i / 4;	/* the thread's row number */
	static const uint32_t cyc[4] = { TAPE_OP_OPENAT, TAPE_OP_NEWFSTATAT, TAPE_OP_READ,
					 TAPE_OP_CLOSE };
	static const uint32_t any[4] = { TAPE_OP_READ, TAPE_OP_LSEEK, TAPE_OP_NEWFSTATAT,
					 TAPE_OP_CLOSE };
	uint32_t op = i >= 2048 && i < 3072 ? any[mix(i + 7) & 3] : cyc[j % 4];
	unsigned dl = 9 + (unsigned)(mix(i + 1) % 13);
	unsigned sl = 12 + (unsigned)(mix(i + 2) % 9);
	uint64_t size = op == TAPE_OP_READ ? (1ull << sl) | (mix(i + 3) & ((1ull << sl) - 1)) : 0;

	memset(ev, 0, sizeof(*ev));
	ev->ts_ns = golden11_ts(i);
	ev->dur_ns = (1ull << dl) | (mix(i + 5) & ((1ull << dl) - 1));
	ev->pid = 7000 + th / 2;
	ev->tid = 7000 + th;
	ev->op = op;
	ev->fd = 3 + (int64_t)th;
	ev->file_id = 1 + th;
	ev->offset = (uint64_t)j * 65536;
	ev->size = size;
	ev->ret = (int64_t)size;
	ev->flags = op == TAPE_OP_LSEEK ? 1 : 0;
	ev->path = paths[th];
	ev->path2 = "";
}

int golden11_write(tape_writer *w)
{
	struct tape_syscall ev;
	int err;

	if ((err = tape_writer_set_meta(w, "source", "golden 1.1")) ||
	    (err = tape_writer_set_meta(w, "clock", "monotonic")))
		return err;
	for (size_t i = 0; i < GOLDEN11_ROWS; i++) {
		golden11_event(i, &ev);
		if ((err = tape_writer_append(w, TAPE_TABLE_SYSCALL, &ev)))
			return err;
	}
	return 0;
}
