/* SPDX-License-Identifier: MIT */
/*
 * bpffloor.c - the price of the least a syscall recorder's BPF side must
 * do for a read or pread64, step by step (bench/README.md, section record).
 *
 *   bpffloor [-s] MODE -- COMMAND [ARGS]
 *
 * Loads bench/bpffloor.bpf.c's programs for MODE (empty, filter, stamp,
 * emit, file: each adds to the one before, see bpffloor.h), runs COMMAND
 * as a child released only once they are attached, drains the ring buffer
 * until the child exits, and exits with its status.  On stderr, one line:
 * records received and lost.  -s also turns on the kernel's BPF run-time
 * statistics (for as long as bpffloor runs) and prints each program's
 * average run time.  Root.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpffloor.h"
#include "bench/bpffloor.skel.h"

static const char *const mode_names[FLOOR_MODES] = {
	[FLOOR_EMPTY] = "empty",
	[FLOOR_FILTER] = "filter",
	[FLOOR_STAMP] = "stamp",
	[FLOOR_EMIT] = "emit",
	[FLOOR_FILE] = "file",
};

static void usage(FILE *f)
{
	fprintf(f, "usage: bpffloor [-s] MODE -- COMMAND [ARGS]\n"
		"  MODE  empty | filter | stamp | emit | file (each adds to the one before)\n"
		"  -s    print each program's average run time (BPF run-time statistics)\n");
}

static int on_record(void *ctx, void *data, size_t len)
{
	(*(unsigned long long *)ctx)++;
	return 0;
}

/* Average run time of a loaded program, from the kernel's statistics. */
static void print_stats(const char *name, const struct bpf_program *p)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(p);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	if (info.run_cnt)
		fprintf(stderr, "bpffloor: %-12s %8.1f ns/run %12llu runs\n", name,
			(double)info.run_time_ns / info.run_cnt,
			(unsigned long long)info.run_cnt);
}

/* the command line: -s into *stats, MODE into *mode, the command into
 * *cmd; -1 to go on, else the exit status */
static int parse_args(int argc, char **argv, int *stats, int *mode, char ***cmd)
{
	int opt;

	while ((opt = getopt(argc, argv, "+sh")) != -1) {
		switch (opt) {
		case 's':
			*stats = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		for (int m = 0; m < FLOOR_MODES; m++)
			if (strcmp(argv[optind], mode_names[m]) == 0)
				*mode = m;
	}
	if (*mode < 0 || optind + 2 >= argc || strcmp(argv[optind + 1], "--") != 0) {
		usage(stderr);
		return 2;
	}
	*cmd = argv + optind + 2;
	return -1;
}

/* The BPF programs of mode, opened and loaded (not attached); NULL, said
 * on stderr, when they cannot be. */
static struct bpffloor_bpf *floor_load(int mode)
{
	struct bpffloor_bpf *skel = bpffloor_bpf__open();
	int err;

	if (!skel) {
		fprintf(stderr, "bpffloor: opening the BPF object: %s\n", strerror(errno));
		return NULL;
	}
	skel->rodata->mode = mode;
	skel->rodata->nr_read = SYS_read;
	skel->rodata->nr_pread = SYS_pread64;
	/* nothing to follow when nothing is filtered */
	bpf_program__set_autoload(skel->progs.floor_fork, mode >= FLOOR_FILTER);
	err = bpffloor_bpf__load(skel);
	if (err) {
		fprintf(stderr, "bpffloor: loading the BPF programs: %s\n", strerror(-err));
		bpffloor_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* The command, started as a child that waits on the pipe go (made here;
 * the caller closes what is left of it) until it is written to.  Returns
 * the child's pid, or -1 said on stderr. */
static pid_t start_held(char **cmd, int go[2])
{
	pid_t child;

	if (pipe2(go, O_CLOEXEC)) {
		fprintf(stderr, "bpffloor: pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(NULL);
	child = fork();
	if (child < 0) {
		fprintf(stderr, "bpffloor: fork: %s\n", strerror(errno));
		return -1;
	}
	if (child == 0) {
		char b;

		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		close(go[0]);
		execvp(cmd[0], cmd);
		fprintf(stderr, "bpffloor: %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	go[0] = -1;
	return child;
}

/* The child traced, the run-time statistics on (-s: their fd in
 * *stats_fd), the programs attached, then the child released (go[1]
 * written and closed).  0, or -1 said on stderr. */
static int attach_and_release(struct bpffloor_bpf *skel, pid_t child, int stats, int *stats_fd,
			      int go[2])
{
	int err;

	if ((unsigned)child / 64 < FLOOR_TRACED_WORDS)
		__atomic_fetch_or(&skel->bss->traced[child / 64], 1ull << (child % 64),
				  __ATOMIC_SEQ_CST);
	if (stats) {
		*stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (*stats_fd < 0)
			fprintf(stderr, "bpffloor: run-time statistics: %s\n", strerror(-*stats_fd));
	}
	err = bpffloor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "bpffloor: attaching: %s\n", strerror(-err));
		return -1;	/* closing the pipe ends the child */
	}
	if (write(go[1], "g", 1) != 1) {
		fprintf(stderr, "bpffloor: releasing the command: %s\n", strerror(errno));
		return -1;
	}
	close(go[1]);
	go[1] = -1;
	return 0;
}

/* The ring buffer drained until the child exits (its status in *status).
 * 0, or -1 said on stderr (the child not waited for). */
static int drain_until_exit(struct ring_buffer *ring, pid_t child, int *status)
{
	int err;

	/* Records come without wakeups: poll's timeout paces the draining. */
	for (;;) {
		err = ring_buffer__poll(ring, 100);
		if (err >= 0)
			err = ring_buffer__consume(ring);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "bpffloor: ring buffer: %s\n", strerror(-err));
			return -1;
		}
		pid_t r = waitpid(child, status, WNOHANG);
		if (r == child)
			return 0;
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "bpffloor: waitpid: %s\n", strerror(errno));
			return -1;
		}
	}
}

int main(int argc, char **argv)
{
	struct bpffloor_bpf *skel = NULL;
	struct ring_buffer *ring = NULL;
	unsigned long long records = 0;
	int stats = 0, stats_fd = -1, go[2] = { -1, -1 };
	int mode = -1, status = 0, rc;
	pid_t child = -1;
	char **cmd;

	if ((rc = parse_args(argc, argv, &stats, &mode, &cmd)) >= 0)
		return rc;
	rc = 1;
	if (!(skel = floor_load(mode)))
		return 1;
	ring = ring_buffer__new(bpf_map__fd(skel->maps.rb), on_record, &records, NULL);
	if (!ring) {
		fprintf(stderr, "bpffloor: ring buffer: %s\n", strerror(errno));
		goto out;
	}

	/* The command waits on a pipe until the programs are attached. */
	if ((child = start_held(cmd, go)) < 0)
		goto out;
	/* the child's interrupt is the child's: wait for it to end */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if (attach_and_release(skel, child, stats, &stats_fd, go) ||
	    drain_until_exit(ring, child, &status))
		goto out;
	child = -1;
	bpffloor_bpf__detach(skel);
	while (ring_buffer__consume(ring) > 0)
		;
	if (stats_fd >= 0) {
		print_stats("floor_enter", skel->progs.floor_enter);
		print_stats("floor_exit", skel->progs.floor_exit);
		print_stats("floor_fork", skel->progs.floor_fork);
	}
	fprintf(stderr, "bpffloor: %s: %llu records, %llu lost\n", mode_names[mode], records,
		(unsigned long long)__atomic_load_n(&skel->bss->lost, __ATOMIC_RELAXED));
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	if (child > 0)
		waitpid(child, NULL, 0);
	if (stats_fd >= 0)
		close(stats_fd);
	ring_buffer__free(ring);
	bpffloor_bpf__destroy(skel);
	return rc;
}
