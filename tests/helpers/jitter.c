/* SPDX-License-Identifier: MIT */
/*
 * jitter - how late this machine wakes threads at absolute times, with the
 * pattern of `iotape replay --timing original` (SCHED_FIFO when allowed,
 * a timer sleep to 100 us before the target, then polling the clock):
 *
 *   jitter THREADS OPS PERIOD_NS [FILE]
 *
 * THREADS threads take turns, one target every PERIOD_NS, OPS in all; at
 * each, with FILE, a thread reads 4 KiB of it at a random page (pread, as
 * the replay's ops do through io_uring), which delays its next target as
 * the replay's would; it prints the 99th percentile of (wake - target) in
 * ns.  replay_timing.sh compares the replay's issue error with it: a host
 * that stalls its VM's timers or page cache for milliseconds makes any
 * replay late by as much.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

static uint64_t t0, period;
static unsigned nthreads, nops;
static uint64_t *errs;
static int fd = -1;
static off_t pages;

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void *run(void *arg)
{
	unsigned k = (unsigned)(uintptr_t)arg;
	struct sched_param sp = { .sched_priority = 1 };
	uint64_t x = 0x9e3779b97f4a7c15ull * (k + 1);
	char buf[4096];

	prctl(PR_SET_TIMERSLACK, 1UL);
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);	/* best effort */
	for (unsigned i = k; i < nops; i += nthreads) {
		uint64_t t = t0 + (uint64_t)i * period, w = t - 100000;
		struct timespec ts = { (time_t)(w / 1000000000ull), (long)(w % 1000000000ull) };
		if (now_ns() < w)
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		while (now_ns() < t)
			;
		errs[i] = now_ns() - t;
		if (fd >= 0) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			if (pread(fd, buf, sizeof(buf), (off_t)(x % (uint64_t)pages) * 4096) < 0)
				errs[i] = UINT64_MAX;
		}
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	pthread_t th[64];

	if (argc == 5) {
		if ((fd = open(argv[4], O_RDONLY)) < 0 || (pages = lseek(fd, 0, SEEK_END) / 4096) < 1) {
			perror(argv[4]);
			return 1;
		}
	}
	if ((argc != 4 && argc != 5) || (nthreads = (unsigned)atoi(argv[1])) < 1 || nthreads > 64 ||
	    (nops = (unsigned)atoi(argv[2])) < 1 || !(period = strtoull(argv[3], NULL, 10))) {
		fprintf(stderr, "usage: jitter THREADS OPS PERIOD_NS [FILE]\n");
		return 2;
	}
	if (!(errs = calloc(nops, sizeof(*errs))))
		return 1;
	t0 = now_ns() + 10000000;
	for (unsigned k = 0; k < nthreads; k++)
		if (pthread_create(&th[k], NULL, run, (void *)(uintptr_t)k))
			return 1;
	for (unsigned k = 0; k < nthreads; k++)
		pthread_join(th[k], NULL);
	qsort(errs, nops, sizeof(*errs), cmp);
	printf("%llu\n", (unsigned long long)errs[(size_t)nops * 99 / 100]);
	return 0;
}
