/* SPDX-License-Identifier: MIT */
/*
 * replay.h - the replay engine, its op sources and its hooks (libreplay):
 * one include for all of it; the API is in rp_source.h (layout, sources,
 * DIR), rp_hook.h (hooks, the burst buffer), rp_engine.h (knobs, engine,
 * results) and rp_report.h (the reports).
 *
 *   source  --ops-->  engine (threads, io_uring, timing)  --results-->  report
 *     |                  |
 *   layout             hooks (loop start, progress, ...)
 *
 * An op source says what to replay: its layout (the files to prepare and
 * name, the threads to run, what is expected) before anything runs, then,
 * while the replay runs, each thread's ops one at a time (next()).  Memory
 * grows with files and threads, never with operations: nothing holds a
 * whole plan.  The trace source (rp_trace.c) decodes a trace's syscall
 * and cache tables as the replay runs; other sources (a job-file
 * generator, replicas of a source) plug in the same way.  Hooks let a
 * caller act at points of the run (a barrier per loop across nodes,
 * progress lines, metrics) without a change to the engine.
 *
 * Files:
 *   rp_trace.c   the trace source: a layout pass over the trace, then a
 *                feeder thread that walks it again and hands each replay
 *                thread its ops through a bounded queue;
 *   rp_prep.c    DIR: confinement (openat2 RESOLVE_BENEATH on a dirfd of
 *                DIR) and the preparation of the files a layout reads;
 *   rp_run.c     the engine: one thread and one io_uring per layout
 *                thread, timing, cross-thread order, results;
 *   rp_cgroup.c  --mem-limit: the process in a memory-limited cgroup;
 *   rp_report.c  fio-shaped text and JSON;
 *   rp_fio.c     a job file as an fio job file (iotape model --fio);
 *   rp_iolog.c   a trace as fio iologs (iotape export --format fio-iolog).
 * Library code: functions return 0 or -errno and fill an error buffer
 * (err, errlen) where a message helps; nothing here prints on its own (the
 * report functions write to the FILE * they are given) or exits.
 */
#ifndef IOTAPE_REPLAY_H
#define IOTAPE_REPLAY_H

#include "rp_source.h"
#include "rp_hook.h"
#include "rp_engine.h"
#include "rp_report.h"

#endif /* IOTAPE_REPLAY_H */
