/*
 * readtwice.c - read FILE whole, twice, with plain read() of SIZE bytes
 * (default 128 KiB): open, read to end of file, close, and the same once
 * more.  With the page cache dropped before, the first pass misses every
 * page and the second hits every page: a hit ratio of 0.5 for the file
 * (tests/cli/analyze_real.sh).  Nothing else is read or written; prints
 * nothing on success.
 *
 * usage: readtwice FILE [SIZE]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char buf[1 << 20];

static long read_whole(const char *path, size_t size)
{
	long total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, size)) > 0)
		total += n;
	close(fd);
	return n < 0 ? -1 : total;
}

int main(int argc, char **argv)
{
	size_t size = argc > 2 ? strtoul(argv[2], NULL, 0) : 128 * 1024;
	long a, b;

	if (argc < 2 || size == 0 || size > sizeof(buf)) {
		fprintf(stderr, "usage: readtwice FILE [SIZE <= 1 MiB]\n");
		return 2;
	}
	a = read_whole(argv[1], size);
	b = read_whole(argv[1], size);
	if (a < 0 || b < 0 || a != b) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
