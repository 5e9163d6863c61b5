/* SPDX-License-Identifier: MIT */
/*
 * recorder.h - the recorder (`iotape record`) as a library: the one header
 * of record/ that other modules include.
 *
 * A recording is a session that goes through its phases in order:
 *   rec_session_open    check privileges, start the command held before
 *                       its exec, create the trace, load and attach the
 *                       BPF programs, attach to -p processes;
 *   rec_session_start   catch SIGINT and SIGTERM, write and flush the
 *                       metadata known at the start, release the command;
 *   rec_session_run     the event loop, until the command exits, a signal,
 *                       --duration, or every attached process has exited;
 *   rec_session_finish  detach, drain, final metadata, close the trace;
 *                       the figures of the summary;
 *   rec_session_wait    wait for the command (its exit status);
 *   rec_session_free    in every case, after any phase.
 * Everything runs on the caller's thread.  Functions return 0 or -errno
 * and, on error, put one line (no newline) in err; nothing here prints or
 * exits: the caller says what it has to.  The trace is flushed every
 * second, so a recorder killed with SIGKILL leaves a trace that reads up
 * to its last second: the output, or with force the temporary file
 * (common/trace.h: OUTPUT CM_TRACE_TMP "XXXXXX") that a finished
 * recording renames over the output, which until then is untouched.
 */
#ifndef IOTAPE_RECORDER_H
#define IOTAPE_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "tape.h"

#define REC_LAYERS_ALL (~0u)	/* every layer (-e all) */
#define REC_NLOST 5		/* tables the recorder can lose rows of */
#define REC_WAIT_MIN_NS 20000ull	/* rec_opts.wait_min_ns's default */

/* Messages the session has on its way (a tracepoint this kernel lacks):
 * one line each, without a newline. */
typedef void rec_note_fn(void *arg, const char *msg);

/* Every second while recording. */
struct rec_progress {
	double events_per_s;	/* over the last second */
	uint64_t lost;		/* events lost so far */
	struct {
		int table;		/* enum tape_table */
		uint64_t n;
	} lost_table[REC_NLOST];	/* of those, per table (as rec_result) */
	uint64_t bytes;		/* written to the trace so far */
	int processes;		/* traced processes alive */
};
typedef void rec_progress_fn(void *arg, const struct rec_progress *p);

/* Each row the recorder appends to the trace, right after it appended it,
 * on the recorder's thread: table (enum tape_table), the row (struct
 * tape_syscall, tape_cache, ...: valid during the call only) and the name
 * of the row's process (its main thread's comm), "" when not known.  For
 * live metrics: it must be quick and must not block.  Not set (NULL),
 * costs one pointer test a row. */
typedef void rec_row_fn(void *arg, int table, const void *row, const char *comm);

/* What to record: a command, processes, a cgroup (at least one). */
struct rec_opts {
	const char *output;	/* the trace */
	int force;		/* replace output if it exists (see above) */
	uint32_t layers;	/* rec_layers_parse(), or REC_LAYERS_ALL */
	char **cmd;		/* the command to run (execvp): ncmd words,
				 * cmd[ncmd] NULL */
	int ncmd;
	const uint32_t *pids;	/* processes to attach to */
	size_t npids;
	const char *cgroup;	/* --cgroup as given (metadata), NULL none */
	uint64_t cgroup_id;	/* rec_cgroup_lookup() of it */
	unsigned cgroup_level;
	size_t buffer_bytes;	/* BPF ring buffer (rounded up to a power of two) */
	uint64_t wait_min_ns;	/* sched layer: the shortest wait written */
	double duration;	/* stop after this many seconds, 0 never */
	rec_note_fn *note;	/* each may be NULL; all get arg */
	rec_progress_fn *progress;
	rec_row_fn *row;
	void *arg;
};

/* What the summary says, from rec_session_finish(). */
struct rec_result {
	uint64_t events[TAPE_TABLE_MAX];	/* rows written, per table */
	uint64_t events_total;
	struct {
		int table;		/* enum tape_table */
		uint64_t n;
	} lost[REC_NLOST];		/* events lost, per table, in the
					 * order a summary names them */
	uint64_t lost_total;
	uint64_t bytes;			/* size of the trace file */
	double wall_s;			/* from the start to the end */
	double cpu_s;			/* the recorder's CPU time (user + system) */
	pid_t cmd_pid;			/* the command, 0 none */
};

/* -e: comma-separated layers (syscall, mmap, cache, block, sched, sample, all)
 * into *layers; -EINVAL with err naming the word it does not know. */
int rec_layers_parse(const char *s, uint32_t *layers, char *err, size_t errlen);

/* A cgroup v2 directory, absolute or relative to /sys/fs/cgroup: the id
 * the BPF side sees (its inode number) and its level (the root is 0).
 * -ENOENT when path is not one. */
int rec_cgroup_lookup(const char *path, uint64_t *id, unsigned *level);

typedef struct rec_session rec_session;

/*
 * Set up a recording of o (copied; its strings and arrays must outlive the
 * session): everything that can fail before the command runs.  Without
 * o->force an existing output is refused (-EEXIST).  On error *s is NULL,
 * the command never ran, no file was created and an old output is as it
 * was.
 */
int rec_session_open(rec_session **s, const struct rec_opts *o, char *err, size_t errlen);

/*
 * Catch SIGINT and SIGTERM (they end rec_session_run) and SIGCHLD, ignore
 * SIGPIPE; write the metadata of the start and flush it; release the
 * command.  A command that cannot be executed is a failed start: err is
 * "CMD: <execvp's error>" and rec_session_wait() has its exit status (127).
 * After any error rec_session_free() removes the trace.
 */
int rec_session_start(rec_session *s, char *err, size_t errlen);

/*
 * Record until the command exits, SIGINT or SIGTERM, o->duration, or
 * (without a command or cgroup) every -p process has exited; o->progress
 * is called every second.  0, or -errno when the ring buffer failed (the
 * recording stopped there; rec_session_finish still makes a trace of it).
 * A write error also stops it, and rec_session_finish reports it.
 */
int rec_session_run(rec_session *s, char *err, size_t errlen);

/*
 * Detach, write the last events and the metadata of the end, close the
 * trace (with force: rename it over the output); pass a SIGINT or SIGTERM
 * that stopped the recording on to the command.  Fills res.  0, or the
 * first write error (the file written is kept, readable up to its last
 * flush, and err names it; with force the old output is untouched), or
 * the rename's error (err names the complete new trace).
 */
int rec_session_finish(rec_session *s, struct rec_result *res, char *err, size_t errlen);

/* The SIGINT or SIGTERM that stopped the recording (or, with none, that
 * ended a rec_session_wait), 0 none. */
int rec_session_signal(const rec_session *s);

/*
 * Wait for the command to exit: 0 and its wait(2) *status; -ECHILD when
 * there is none (or it never started); -ETIMEDOUT when it still runs after
 * patience_ms (< 0: no limit) or when SIGINT or SIGTERM arrives meanwhile:
 * it is left running, and forgotten.
 */
int rec_session_wait(rec_session *s, int patience_ms, int *status);

/* Free s (NULL accepted).  When rec_session_finish() was not called the
 * file written is removed (an old output is as it was); a command that
 * was never released never runs.  The signal dispositions that
 * rec_session_start() changed are restored. */
void rec_session_free(rec_session *s);

#endif /* IOTAPE_RECORDER_H */
