/* SPDX-License-Identifier: MIT */
/*
 * rp_mpi.h - a replay across nodes: one MPI rank per node (or per share of
 * the simulated accelerators), all started together, results gathered on
 * rank 0 (issue 16, iotape replay --mpi).
 *
 *   rank 0 .. P-1:  rp_mpi_init
 *                   rp_mpi_split(N, rank, P) -> this rank's accelerators
 *                   prepare, rp_engine_init, rp_engine_add_hooks(rp_mpi_hooks)
 *                   rp_mpi_barrier            every rank set up
 *                   rp_engine_run             loop_start: rp_mpi_loop_start
 *                   rp_engine_finish, dev_read_bytes
 *                   rp_mpi_gather             rank 0: every rank's jobs
 *                   rp_mpi_allreduce_*        values all ranks agree on
 *                   rp_mpi_finalize
 *
 * Threads: MPI is asked for MPI_THREAD_SERIALIZED (more than one thread
 * makes MPI calls, never two at once): the thread that calls rp_mpi_init
 * makes every call but the loop hook's for loops > 0, which runs on the
 * engine's serial replay thread while that thread waits in rp_engine_run
 * (loop 0's runs in rp_engine_run itself, before the replay threads
 * start; the progress hook must make no MPI call).  rp_mpi_init fails
 * with -ENOTSUP when the MPI library gives less.
 *
 * Every rank must make the same collective calls in the same order (the
 * same number of loops, of trials, of gathers); a rank that cannot go on
 * (rp_engine_run failed: the engine stops after the loop, its next loop
 * barrier never comes) calls rp_mpi_abort, else the others wait for it
 * for ever.  A rank without accelerators (N < P) still takes part: it
 * calls rp_mpi_loop_start itself for each loop, or the caller refuses it.
 *
 * mpirun binds each rank to one core by default (Open MPI 4: two ranks or
 * fewer), which would put all of a rank's replay threads on that core:
 * run it with --bind-to none.
 *
 * Errors are -errno (an MPI error: -EIO, its text in err); nothing prints.
 * Built without MPI (make MPI=0), every function that needs MPI returns
 * -ENOTSUP, rp_mpi_rank 0, rp_mpi_size 1; rp_mpi_split works in both.
 */
#ifndef IOTAPE_RP_MPI_H
#define IOTAPE_RP_MPI_H

#include <stddef.h>
#include <stdint.h>
#include "replay.h"

/* Whether this build has MPI (1) or the stubs (0). */
extern const int rp_mpi_built;

/* MPI_Init_thread(MPI_THREAD_SERIALIZED); errors return from then on
 * (MPI_ERRORS_RETURN), not abort.  Once per process, before any other
 * rp_mpi_ call and before any thread is started.  -EALREADY if done. */
int rp_mpi_init(char *err, size_t errlen);
/* MPI_Finalize (after the last collective call); 0 when not initialized. */
int rp_mpi_finalize(void);
/* Whether rp_mpi_init succeeded and rp_mpi_finalize has not run. */
int rp_mpi_active(void);
/* MPI_Abort(MPI_COMM_WORLD, code): ends every rank, does not return
 * (for cmd_replay: one rank failed, the others must not wait for it).
 * Without MPI (or before init) it returns and does nothing. */
void rp_mpi_abort(int code);

/* This rank and the number of ranks (0 and 1 when not active). */
int rp_mpi_rank(void);
int rp_mpi_size(void);
/* This rank's host name (MPI_Get_processor_name), cut to len - 1 bytes:
 * 0 or -errno (-ENOTSUP without MPI or before init). */
int rp_mpi_host(char *buf, size_t len);

/*
 * Split total accelerators over size ranks: rank gets total / size, the
 * first total % size ranks one more; *first is the global index of its
 * first accelerator (accelerators are numbered rank by rank).  A rank may
 * get none (total < size).  -EINVAL when size < 1 or rank is not in
 * [0, size).  Pure arithmetic: needs no MPI.
 */
int rp_mpi_split(unsigned total, int rank, int size, unsigned *count, unsigned *first);

/* Every rank waits for the others (MPI_Barrier). */
int rp_mpi_barrier(char *err, size_t errlen);

/*
 * A loop_start hook (struct rp_hooks): every rank's serial replay thread
 * waits there for the others' before each loop, so all ranks start each
 * loop together.  It checks that they are at the same loop; its first
 * error (-EIO, or -EPROTO when the loops differ) is kept for
 * rp_mpi_hook_error.  rp_mpi_hooks fills a struct rp_hooks with it (arg
 * NULL, no progress hook).
 */
void rp_mpi_loop_start(void *arg, unsigned loop);
void rp_mpi_hooks(struct rp_hooks *h);
/* The hook's first error since init, 0 if none; with a message in err. */
int rp_mpi_hook_error(char *err, size_t errlen);

enum rp_mpi_op { RP_MPI_MIN, RP_MPI_MAX, RP_MPI_SUM };
/* *v becomes op over every rank's *v, on every rank. */
int rp_mpi_allreduce_f64(double *v, enum rp_mpi_op op, char *err, size_t errlen);
int rp_mpi_allreduce_u64(uint64_t *v, enum rp_mpi_op op, char *err, size_t errlen);
/* len bytes of root's buf to every rank's buf. */
int rp_mpi_bcast(void *buf, size_t len, int root, char *err, size_t errlen);

/* What rank 0 learns of each rank by rp_mpi_gather. */
struct rp_mpi_rank {
	int rank;
	char host[64];
	size_t njobs;		/* its jobs, in res->jobs after the ranks
				 * before it */
	uint64_t wall_ns;	/* its rp_result.wall_ns */
	uint64_t dev_read_bytes;/* its rp_result.dev_read_bytes */
	uint64_t dataset_bytes;	/* its rp_result.dataset_bytes */
	uint64_t mem_bytes;	/* its rp_result.mem_bytes */
	int64_t start_unix;
};

/*
 * Gather every rank's result into rank 0's (collective: every rank calls
 * it, with its own result from rp_engine_finish and its dev_read_bytes,
 * mem_peak, ... filled).  Every rank's jobs get its rank and host.
 *
 * On rank 0, res becomes the whole run's: jobs are every rank's, in rank
 * order (latency samples and histograms as each rank had them: exact
 * values stay exact), wall_ns the largest rank's, start_unix the
 * earliest, dev_read_bytes, implicit_opens, mem_limit_hits and
 * dataset_bytes the sums, mem_peak the largest, mem_bytes the sum over
 * the hosts (ranks on one host share its memory: the largest they say),
 * file_bytes and copy_bytes summed index by index
 * (the ranks replay the same layout; entries past another rank's count
 * get nothing from it); *ranks (when not NULL) a size-long array (free()
 * it).  On the other ranks res is as it was but for rank and host, and
 * *ranks NULL.
 *
 * -ENOMEM, -EIO (MPI), -EPROTO (a rank runs another build of iotape: its
 * rp_job differs); on error rank 0's res is as it was (with rank and
 * host), and the error is that of rank 0 (another rank's is not known
 * there).
 */
int rp_mpi_gather(struct rp_result *res, struct rp_mpi_rank **ranks, char *err, size_t errlen);

#endif /* IOTAPE_RP_MPI_H */
