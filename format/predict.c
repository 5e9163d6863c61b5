/* SPDX-License-Identifier: MIT */
/*
 * predict.c - per-thread prediction of syscall columns (encoding flag PRED).
 *
 * Rows of different threads interleave in a block, which hides from a
 * column encoder that each thread reads its file sequentially with the same
 * request size.  With PRED a column stores, instead of its value, the
 * zigzag'ed difference from what the same thread's earlier rows predict:
 *
 *   op               the op that followed the thread's last op (mod 64)
 *                    the last time the thread made that op (1.1); the
 *                    column holds 0 where that holds, else op + 1
 *                    (not a difference: a miss costs what a plain op
 *                    costs).  The writer predicts op only in blocks where
 *                    4 in 5 rows hold, so a block may lack its PRED flag.
 *   pid              the thread's last pid (1.1)
 *   fd, size, flags  the value of the thread's last row with the same op
 *                    (op mod 64)
 *   file_id, path    the value of the thread's last row (path: its
 *                    dictionary index)
 *   ret              this row's size
 *   offset           the thread's last offset + its last ret when > 0
 *
 * State starts at zero in every block and is updated with the actual values
 * of every row, predicted column or not; so encoder and decoder walk the
 * rows in order and agree.  iotape-format(5) is the normative text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tape_internal.h"

void pred_reset(struct pred *p)
{
	if (p->nslots)
		memset(p->slot, 0, p->nslots * sizeof(*p->slot));
	p->n = 0;
}

void pred_release(struct pred *p)
{
	free(p->s);
	free(p->slot);
	memset(p, 0, sizeof(*p));
}

static int pred_grow(struct pred *p)
{
	uint32_t ns = p->nslots ? p->nslots * 2 : 64;
	uint32_t *slot = calloc(ns, sizeof(*slot));
	struct pstate *s = realloc(p->s, ns / 2 * sizeof(*s));
	if (!slot || !s) {
		free(slot);
		if (s)
			p->s = s;
		return -ENOMEM;
	}
	p->s = s;
	for (uint32_t i = 0; i < p->n; i++) {
		uint32_t k = (p->s[i].tid * 0x9E3779B1u) & (ns - 1);
		while (slot[k])
			k = (k + 1) & (ns - 1);
		slot[k] = i + 1;
	}
	free(p->slot);
	p->slot = slot;
	p->nslots = ns;
	return 0;
}

struct pstate *pred_state_slow(struct pred *p, uint32_t tid)
{
	if (p->n * 2 >= p->nslots && pred_grow(p))
		return NULL;
	uint32_t k = (tid * 0x9E3779B1u) & (p->nslots - 1);
	while (p->slot[k]) {
		struct pstate *s = &p->s[p->slot[k] - 1];
		if (s->tid == tid) {
			p->last = p->slot[k] - 1;
			return s;
		}
		k = (k + 1) & (p->nslots - 1);
	}
	struct pstate *s = &p->s[p->n];
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	p->last = p->n;
	p->slot[k] = ++p->n;
	return s;
}

/* The columns that hold zigzag'ed differences (op holds hits, see above). */
static const int pred_cols[] = { SC_PID, SC_FD, SC_SIZE, SC_FLAGS, SC_FILE_ID,
				 SC_PATH, SC_RET, SC_OFFSET };
#define NPRED (sizeof(pred_cols) / sizeof(pred_cols[0]))

int pred_encode_syscall(struct pred *p, uint64_t *const col[SC_NCOLS],
			uint64_t *const res[SC_NCOLS], size_t n, size_t *op_hits)
{
	size_t hits = 0;
	struct pstate *s = NULL;
	uint32_t stid = 0;
	pred_reset(p);
	/* the differences row by row, zigzag'ed column by column after */
	for (size_t r = 0; r < n; r++) {
		unsigned op = col[SC_OP][r] & 63;
		uint64_t v;
		if (!s || (uint32_t)col[SC_TID][r] != stid) {
			stid = (uint32_t)col[SC_TID][r];
			if (!(s = pred_state(p, stid)))
				return -ENOMEM;
		}
		v = col[SC_OP][r];
		int hit = v == s->next[s->op & 63];
		hits += hit;
		res[SC_OP][r] = hit ? 0 : v + 1;
		s->next[s->op & 63] = v;
		s->op = v;
		v = col[SC_PID][r];
		res[SC_PID][r] = v - s->pid;
		s->pid = v;
		v = col[SC_FD][r];
		res[SC_FD][r] = v - s->fd[op];
		s->fd[op] = v;
		v = col[SC_SIZE][r];
		res[SC_SIZE][r] = v - s->size[op];
		s->size[op] = v;
		v = col[SC_FLAGS][r];
		res[SC_FLAGS][r] = v - s->flags[op];
		s->flags[op] = v;
		v = col[SC_FILE_ID][r];
		res[SC_FILE_ID][r] = v - s->file_id;
		s->file_id = v;
		v = col[SC_PATH][r];
		res[SC_PATH][r] = v - s->path;
		s->path = v;
		res[SC_RET][r] = col[SC_RET][r] - col[SC_SIZE][r];
		uint64_t guess = s->offset + ((int64_t)s->ret > 0 ? s->ret : 0);
		res[SC_OFFSET][r] = col[SC_OFFSET][r] - guess;
		s->offset = col[SC_OFFSET][r];
		s->ret = col[SC_RET][r];
	}
	for (size_t i = 0; i < NPRED; i++)
		tape_zigzag_n(res[pred_cols[i]], n);
	*op_hits = hits;
	return 0;
}

/* The rows of the fast path below, with op predicted or not. */
static inline __attribute__((always_inline)) int
decode_rows(struct pred *p, uint64_t *const col[SC_NCOLS], size_t k, const int opred,
	    const int pidpred)
{
	uint64_t *fd = col[SC_FD], *size = col[SC_SIZE], *flags = col[SC_FLAGS];
	uint64_t *fid = col[SC_FILE_ID], *path = col[SC_PATH], *ret = col[SC_RET];
	uint64_t *off = col[SC_OFFSET], *opc = col[SC_OP], *pid = col[SC_PID];
	const uint64_t *tid = col[SC_TID];
	struct pstate *s = NULL;
	uint32_t stid = 0;
	for (size_t r = 0; r < k; r++) {
		/* rows come in runs of one thread: look up on a change only
		 * (pred_state may move the states; s is refreshed with it) */
		if (!s || (uint32_t)tid[r] != stid) {
			stid = (uint32_t)tid[r];
			if (!(s = pred_state(p, stid)))
				return -ENOMEM;
		}
		uint64_t *nx = &s->next[s->op & 63];
		if (opred)
			opc[r] = opc[r] ? opc[r] - 1 : *nx;
		s->op = *nx = opc[r];
		if (pidpred)
			pid[r] += s->pid;
		s->pid = pid[r];
		unsigned op = opc[r] & 63;
		s->fd[op] = fd[r] = s->fd[op] + fd[r];
		s->size[op] = size[r] = s->size[op] + size[r];
		s->flags[op] = flags[r] = s->flags[op] + flags[r];
		s->file_id = fid[r] = s->file_id + fid[r];
		s->path = path[r] = s->path + path[r];
		ret[r] = size[r] + ret[r];
		off[r] = s->offset + ((int64_t)s->ret > 0 ? s->ret : 0) + off[r];
		s->offset = off[r];
		s->ret = ret[r];
	}
	return 0;
}

int pred_decode_syscall(struct pred *p, uint64_t *const col[SC_NCOLS],
			unsigned predmask, size_t k)
{
	const unsigned nop = SC_PREDICTED & ~(1u << SC_OP);
	if (predmask == SC_PREDICTED || predmask == nop || predmask == SC_PREDICTED_10) {
		/* What every writer of ours produces (1.1 with or without
		 * op, 1.0): the residuals first, column by column
		 * (vectorized), then no per-column tests. */
		for (size_t i = 0; i < NPRED; i++)
			if (pred_cols[i] != SC_PID || predmask != SC_PREDICTED_10)
				tape_unzigzag_n(col[pred_cols[i]], k);
		if (predmask == SC_PREDICTED)
			return decode_rows(p, col, k, 1, 1);
		if (predmask == nop)
			return decode_rows(p, col, k, 0, 1);
		return decode_rows(p, col, k, 0, 0);
	}
	for (size_t r = 0; r < k; r++) {
		struct pstate *s = pred_state(p, (uint32_t)col[SC_TID][r]);
		if (!s)
			return -ENOMEM;
#define UNPRED(C, slot) do {						\
		if (predmask & (1u << (C)))				\
			col[C][r] = (slot) + unzigzag(col[C][r]);	\
		(slot) = col[C][r];					\
	} while (0)
		uint64_t *nx = &s->next[s->op & 63];
		if (predmask & (1u << SC_OP))
			col[SC_OP][r] = col[SC_OP][r] ? col[SC_OP][r] - 1 : *nx;
		s->op = *nx = col[SC_OP][r];
		UNPRED(SC_PID, s->pid);
		unsigned op = col[SC_OP][r] & 63;
		UNPRED(SC_FD, s->fd[op]);
		UNPRED(SC_SIZE, s->size[op]);
		UNPRED(SC_FLAGS, s->flags[op]);
		UNPRED(SC_FILE_ID, s->file_id);
		UNPRED(SC_PATH, s->path);
#undef UNPRED
		if (predmask & (1u << SC_RET))
			col[SC_RET][r] = col[SC_SIZE][r] + unzigzag(col[SC_RET][r]);
		if (predmask & (1u << SC_OFFSET))
			col[SC_OFFSET][r] = s->offset + ((int64_t)s->ret > 0 ? s->ret : 0) +
					    unzigzag(col[SC_OFFSET][r]);
		s->offset = col[SC_OFFSET][r];
		s->ret = col[SC_RET][r];
	}
	return 0;
}
