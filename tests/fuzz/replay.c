/* SPDX-License-Identifier: MIT */
/*
 * replay.c - main() for a fuzz target without libFuzzer, as zstd's
 * tests/fuzz does: run LLVMFuzzerTestOneInput on every file of the
 * directories (or files) given, so `make check` replays the committed
 * corpus under the ordinary and the sanitizer builds.
 *
 *   fuzz_reader tests/fuzz/corpus/reader [more dirs or files]
 *
 * Exit 0 when every input ran; 1 when an argument is missing, unreadable or
 * an empty directory (a corpus that silently vanished proves nothing).
 * A bug in the target shows as a crash or a sanitizer abort.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	size_t size = (size_t)st.st_size;
	/* exactly size bytes, so ASan sees any read past the input */
	uint8_t *data = malloc(size ? size : 1);
	if (!data || fread(data, 1, size, f) != size) {
		fprintf(stderr, "replay: %s: short read\n", path);
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	size_t total = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR|FILE...\n", argv[0]);
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]))
				return 1;
			total++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		/* sorted, so a failure names the same input every time */
		char **names = NULL;
		size_t n = 0, cap = 0;
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				names = realloc(names, cap * sizeof(*names));
				if (!names)
					return 1;
			}
			size_t l = strlen(argv[i]) + strlen(de->d_name) + 2;
			names[n] = malloc(l);
			snprintf(names[n++], l, "%s/%s", argv[i], de->d_name);
		}
		closedir(d);
		if (!n) {
			fprintf(stderr, "replay: %s: empty corpus directory\n", argv[i]);
			free(names);
			return 1;
		}
		qsort(names, n, sizeof(*names), cmp);
		size_t ran = 0;
		for (size_t k = 0; k < n; k++) {
			if (!stat(names[k], &st) && S_ISREG(st.st_mode)) {
				if (run_file(names[k]))
					return 1;
				ran++;
			}
			free(names[k]);
		}
		free(names);
		if (!ran) {
			fprintf(stderr, "replay: %s: no regular files\n", argv[i]);
			return 1;
		}
		total += ran;
	}
	printf("replay: %zu inputs ran\n", total);
	return 0;
}
