/* preadbench.c - N preads of SIZE bytes cycling over FILE (page cache hits);
 * prints "N ops, X ns/op, Y ops/s" on stderr.  Used by the overhead
 * benchmark (4 KiB) and the load test (exact syscall count).
 * usage: preadbench FILE N SIZE [RATE]  (RATE: ops/s, paced; 0 = flat out) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	struct timespec a, b;
	struct stat sb;
	long n, size, span;
	double rate = argc > 4 ? atof(argv[4]) : 0;
	int fd;

	if (argc < 4)
		return 2;
	n = atol(argv[2]);
	size = atol(argv[3]);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &sb) || size > (long)sizeof(buf))
		return 1;
	span = sb.st_size / size;
	if (span < 1)
		span = 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		if (pread(fd, buf, size, (i % span) * size) < 0)
			return 1;
		if (rate > 0 && (i & 63) == 63) {	/* pace in steps of 64 ops */
			struct timespec now, t;
			double due = (i + 1) / rate;
			double el;
			clock_gettime(CLOCK_MONOTONIC, &now);
			el = (now.tv_sec - a.tv_sec) + (now.tv_nsec - a.tv_nsec) / 1e9;
			if (due > el) {
				t.tv_sec = (time_t)(due - el);
				t.tv_nsec = (long)((due - el - t.tv_sec) * 1e9);
				nanosleep(&t, NULL);
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	fprintf(stderr, "%ld ops, %.1f ns/op, %.0f ops/s\n", n, ns / n, n * 1e9 / ns);
	return 0;
}
