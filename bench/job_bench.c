/* SPDX-License-Identifier: MIT */
/*
 * job_bench.c - ops per second of the job-file generator alone.
 *
 *   job_bench JOB.ini [LOOPS]
 *
 * Opens the job source (rp_job_open) and takes every thread's ops of a
 * loop with next(), thread after thread (no engine, no I/O: the
 * dependencies are handed out, not waited for), LOOPS times (default 1).
 * Prints "ops N seconds S ops_per_s R" on one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "replay.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct rp_jobspec j;
	struct rp_source *s;
	struct rp_op op;
	char err[512];
	uint64_t n = 0, sum = 0;
	unsigned loops = argc > 2 ? (unsigned)atoi(argv[2]) : 1;
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: job_bench JOB.ini [LOOPS]\n");
		return 2;
	}
	if (rp_jobspec_parse(&j, argv[1], err, sizeof(err)) ||
	    rp_jobspec_check(&j, argv[1], err, sizeof(err)) ||
	    rp_job_open(&s, &j, NULL, err, sizeof(err))) {
		fprintf(stderr, "job_bench: %s\n", err);
		return 1;
	}
	if (s->ops->start(s, loops)) {
		fprintf(stderr, "job_bench: start failed\n");
		return 1;
	}
	double t0 = now_s();
	for (unsigned l = 0; l < loops; l++)
		for (unsigned t = 0; t < s->layout.nthreads; t++)
			while ((rc = s->ops->next(s, t, &op)) == 1) {
				n++;
				sum += op.off + op.dep_seq;	/* keep the ops used */
			}
	double dt = now_s() - t0;
	s->ops->stop(s);
	rp_source_free(s);
	printf("ops %llu seconds %.3f ops_per_s %.0f check %llu\n", (unsigned long long)n, dt,
	       dt > 0 ? (double)n / dt : 0, (unsigned long long)(sum & 0xff));
	return rc < 0;
}
