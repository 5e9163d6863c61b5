/* SPDX-License-Identifier: MIT */
/*
 * ops.h - the op vocabulary: which recorded op iotape replays as what.
 *
 * One table (ops.c) says, for every trace op (enum tape_op), what the
 * replay does with it; analyze, compare and replay all read it, so what
 * the replay reproduces and what compare counts as reproduced I/O cannot
 * drift apart.  The rule for page faults on file mappings, the other
 * source of replayed reads, is in faults.h.
 */
#ifndef IOTAPE_COMMON_OPS_H
#define IOTAPE_COMMON_OPS_H

#include <stdint.h>

/* What the replay issues (struct rp_op.kind); 0 is none.  From CM_STAT
 * on, the metadata kinds: replayed unless --no-metadata, and replayed when
 * they failed in the recording too (they should fail again: a negative
 * lookup is work for the storage as well).  A readlink only then: one that
 * succeeded read a symlink, and prepare makes none. */
enum cm_kind {
	CM_OPEN = 1, CM_CLOSE, CM_READ, CM_WRITE, CM_FSYNC, CM_FDATASYNC,
	CM_UNLINK, CM_RENAME, CM_MKDIR,
	CM_DUP,		/* a new fd on the open file of another (CM_MAPS_FD) */
	CM_STAT, CM_GETDENTS, CM_ACCESS, CM_READLINK,
	CM_KIND_MAX
};
#define CM_META_FIRST CM_STAT

static inline int cm_kind_is_meta(unsigned kind)
{
	return kind >= CM_META_FIRST && kind < CM_KIND_MAX;
}

/* How a recorded op is replayed. */
enum cm_how {
	CM_SKIP = 0,	/* not replayed (stat, lseek, mmap, ftruncate, ...) */
	CM_ISSUE,	/* issued as its kind */
	CM_MAPS_FD,	/* dup: its new fd names the old one's open file; the
			 * replay issues it (CM_DUP), so that each fd keeps
			 * its own stream, but it moves no bytes: compare
			 * counts its time as compute */
	CM_COPY,	/* sendfile, copy_file_range, splice: a read of the input
			 * side, then a write of the output side */
};

struct cm_op_rule {
	uint8_t how;	/* enum cm_how */
	uint8_t kind;	/* enum cm_kind, for CM_ISSUE */
};

/* The rule of op (any value: unknown ops are CM_SKIP). */
struct cm_op_rule cm_op_rule(unsigned op);
/* Whether the replay reproduces op as I/O (issued, or a copy) when it
 * succeeded in the recording (a metadata op also when it failed): compare
 * counts these as I/O time on both sides, the rest as compute (the
 * replay turns them into think time).  metadata 0: as with --no-metadata. */
int cm_op_replayed(unsigned op, int metadata, int failed);
/* "open", "read", ...; "?" for none. */
const char *cm_kind_name(unsigned kind);

/* The marker file `iotape replay` writes in the directory it replays
 * under; compare --map leaves it out of B. */
#define CM_REPLAY_MARKER ".iotape-replay"

#endif /* IOTAPE_COMMON_OPS_H */
