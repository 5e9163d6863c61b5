/* SPDX-License-Identifier: MIT */
/*
 * rp_cgroup.c - --mem-limit: run the replay in a memory-limited cgroup.
 *
 * The whole iotape process (prepare and replay, so the page cache the
 * prepared data fills is charged to the limit too) moves into a new
 * cgroup "iotape-replay.PID":
 *   cgroup v2  under the root of the cgroup2 mount (/sys/fs/cgroup, or
 *              /sys/fs/cgroup/unified on a hybrid host when the memory
 *              controller is bound there): the root is exempt from the
 *              no-internal-processes rule, so "+memory" can be enabled in
 *              its cgroup.subtree_control when it is not;
 *              memory.max = limit, memory.swap.max = 0 when present;
 *   cgroup v1  (memory controller not on cgroup2, a hybrid host) under
 *              the process's own memory cgroup, so the limits above it
 *              still apply; memory.limit_in_bytes = limit and
 *              memory.memsw.limit_in_bytes = limit (no swap) when present.
 * Leaving moves the process back to the cgroup it came from and removes
 * the new one; a SIGINT/SIGTERM/SIGHUP handler does the same with
 * async-signal-safe calls only (open, write, close, rmdir), so Ctrl-C
 * leaves no cgroup behind.
 *
 * A process that dies without running either (SIGKILL, the OOM killer
 * when the limit is below iotape's own memory, SIGPIPE) cannot remove
 * its cgroup: a watcher does.  Before moving in, iotape starts /bin/sh in
 * a session of its own, outside the cgroup, reading a pipe whose other
 * end only iotape holds; when iotape is gone, however it went, the read
 * ends and the watcher removes the cgroup once the last thread has left
 * it (retrying for 10 s), then exits.  It is an exec'd shell rather than a
 * fork of iotape so that it holds none of iotape's memory.  A leftover
 * whose watcher was killed too is removed by the next --mem-limit replay:
 * every iotape-replay.PID next to the one it makes whose PID no longer
 * exists (rmdir refuses a cgroup that still has processes).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "replay.h"

#define NAME "iotape-replay."	/* the cgroup's name, then the PID */

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif

static struct rp_cgroup *active;	/* for the signal handler */
static int watch_fd = -1;		/* the write end of the watcher's pipe */

extern char **environ;

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;
	size_t n = strlen(s);

	if (fd < 0)
		return -errno;
	if (write(fd, s, n) != (ssize_t)n)
		rc = -errno;
	close(fd);
	return rc;
}

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static int read_u64(const char *dir, const char *file, uint64_t *v)
{
	char path[PATH_MAX + 64], buf[64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_str(path, buf, sizeof(buf)))
		return -1;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

static int fs_is(const char *path, long magic)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && (long)sf.f_type == magic;
}

/* "0::/a/b" (v2) or "N:memory:/a/b" (v1) line of /proc/self/cgroup. */
static int own_cgroup(int v2, char *out, size_t len)
{
	char buf[4096], *line, *save = NULL;

	if (read_str("/proc/self/cgroup", buf, sizeof(buf)))
		return -errno;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = 0;
		if (v2 ? strcmp(a + 1, "") == 0 && strncmp(line, "0", 1) == 0 :
			 strstr(a + 1, "memory") != NULL) {
			snprintf(out, len, "%s", b + 1);
			return 0;
		}
	}
	return -ENOENT;
}

static int has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ' || p[n] == '\n'))
			return 1;
	return 0;
}

/* Where to make the cgroup: 1 v2 (root in *root), 0 v1, -errno none. */
static int pick(char *root, size_t len, char *err, size_t errlen)
{
	static const char *const v2roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	char buf[512], path[PATH_MAX];

	for (size_t i = 0; i < 2; i++) {
		if (!fs_is(v2roots[i], CGROUP2_SUPER_MAGIC))
			continue;
		snprintf(path, sizeof(path), "%s/cgroup.controllers", v2roots[i]);
		if (read_str(path, buf, sizeof(buf)) == 0 && has_word(buf, "memory")) {
			snprintf(root, len, "%s", v2roots[i]);
			return 1;
		}
	}
	if (fs_is("/sys/fs/cgroup/memory", CGROUP_SUPER_MAGIC)) {
		snprintf(root, len, "/sys/fs/cgroup/memory");
		return 0;
	}
	snprintf(err, errlen, "--mem-limit: no cgroup v2 with the memory controller "
		 "(nor a cgroup v1 memory hierarchy) under /sys/fs/cgroup");
	return -ENOTSUP;
}

/* Remove the cgroups of replays that died and whose watcher was killed
 * too: NAME PID under parent, PID gone. */
static void sweep(const char *parent)
{
	char path[PATH_MAX + 64];
	struct dirent *e;
	DIR *d = opendir(parent);

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long pid;

		if (e->d_type != DT_DIR || strncmp(e->d_name, NAME, strlen(NAME)))
			continue;
		errno = 0;
		pid = strtol(e->d_name + strlen(NAME), &end, 10);
		if (errno || *end || pid <= 0 || pid > INT_MAX || pid == getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", parent, e->d_name);
		rmdir(path);	/* fails when it still has processes */
	}
	closedir(d);
}

/*
 * Start the watcher of dir (see the top of this file); watch_fd is the end
 * of its pipe that this process holds, closed by rp_cgroup_leave.  -errno
 * when it cannot be started.
 */
static int watch(const char *dir)
{
	static const char script[] =
		"trap '' INT TERM HUP QUIT PIPE\n"
		"while read -r x; do :; done\n"	/* until iotape is gone */
		"i=0\n"
		"while [ -d \"$1\" ] && [ $i -lt 200 ]; do\n"
		"	rmdir \"$1\" 2>/dev/null || sleep 0.05\n"
		"	i=$((i + 1))\n"
		"done\n";
	char *argv[] = { "sh", "-c", (char *)script, "iotape-replay-watch", (char *)dir, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none;
	int p[2], rc;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	sigemptyset(&none);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	rc = posix_spawn_file_actions_adddup2(&fa, p[0], 0);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
	if (!rc)
		rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	if (!rc)
		rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK);
	if (!rc)
		rc = posix_spawnattr_setsigmask(&at, &none);
	if (!rc)
		rc = posix_spawn(&pid, "/bin/sh", &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[0]);
	if (rc) {
		close(p[1]);
		return -rc;
	}
	watch_fd = p[1];
	return 0;
}

static void on_signal(int sig)
{
	rp_cgroup_leave(active);
	signal(sig, SIG_DFL);
	raise(sig);
}

int rp_cgroup_enter(struct rp_cgroup *cg, uint64_t limit, char *err, size_t errlen)
{
	char root[64], own[2048], parent[2200], path[PATH_MAX + 64], buf[512], num[32];
	int v2, rc;

	memset(cg, 0, sizeof(*cg));
	cg->limit = limit;
	if (geteuid() != 0) {
		snprintf(err, errlen, "--mem-limit needs root (it creates a cgroup)");
		return -EPERM;
	}
	v2 = pick(root, sizeof(root), err, errlen);
	if (v2 < 0)
		return v2;
	cg->v2 = v2;
	rc = own_cgroup(v2, own, sizeof(own));
	if (rc) {
		snprintf(err, errlen, "--mem-limit: /proc/self/cgroup: no %s line",
			 v2 ? "cgroup v2" : "memory");
		return rc;
	}
	snprintf(cg->orig_procs, sizeof(cg->orig_procs), "%s%s/cgroup.procs", root,
		 strcmp(own, "/") ? own : "");
	if (v2) {
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
		if (read_str(path, buf, sizeof(buf)) == 0 && !has_word(buf, "memory") &&
		    (rc = write_str(path, "+memory"))) {
			snprintf(err, errlen, "--mem-limit: enabling the memory controller in %s: %s",
				 path, strerror(-rc));
			return rc;
		}
		snprintf(parent, sizeof(parent), "%s", root);
	} else {
		snprintf(parent, sizeof(parent), "%s%s", root, strcmp(own, "/") ? own : "");
	}
	snprintf(cg->dir, sizeof(cg->dir), "%s/" NAME "%d", parent, (int)getpid());
	sweep(parent);
	if (mkdir(cg->dir, 0755) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "--mem-limit: %s: %s", cg->dir, strerror(-rc));
		cg->dir[0] = 0;
		return rc;
	}
	snprintf(num, sizeof(num), "%" PRIu64, limit);
	snprintf(path, sizeof(path), "%s/%s", cg->dir, v2 ? "memory.max" : "memory.limit_in_bytes");
	rc = write_str(path, num);
	if (!rc) {	/* no swapping either (absent without swap accounting) */
		snprintf(path, sizeof(path), "%s/%s", cg->dir,
			 v2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes");
		if (access(path, F_OK) == 0)
			rc = write_str(path, v2 ? "0" : num);
	}
	if (!rc && (rc = watch(cg->dir)))
		snprintf(path, sizeof(path), "cannot start /bin/sh to watch %s", cg->dir);
	if (rc) {
		snprintf(err, errlen, "--mem-limit: %s: %s", path, strerror(-rc));
		rmdir(cg->dir);
		cg->dir[0] = 0;
		return rc;
	}
	active = cg;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	snprintf(num, sizeof(num), "%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->dir);
	rc = write_str(path, num);
	if (rc) {
		snprintf(err, errlen, "--mem-limit: moving into %s: %s", cg->dir, strerror(-rc));
		rp_cgroup_leave(cg);
		return rc;
	}
	cg->entered = 1;
	return 0;
}

void rp_cgroup_stats(struct rp_cgroup *cg)
{
	char path[PATH_MAX + 64], buf[1024], *p;

	if (!cg->dir[0])
		return;
	if (cg->v2) {
		read_u64(cg->dir, "memory.peak", &cg->peak);	/* 5.19+ */
		snprintf(path, sizeof(path), "%s/memory.events", cg->dir);
		if (read_str(path, buf, sizeof(buf)) == 0 && (p = strstr(buf, "max ")) &&
		    (p == buf || p[-1] == '\n'))
			cg->limit_hits = strtoull(p + 4, NULL, 10);
	} else {
		read_u64(cg->dir, "memory.max_usage_in_bytes", &cg->peak);
		read_u64(cg->dir, "memory.failcnt", &cg->limit_hits);
	}
}

/* Async-signal-safe: open, write, close, rmdir; no stdio, no malloc. */
void rp_cgroup_leave(struct rp_cgroup *cg)
{
	char num[24];
	int pid, n = 0, fd;

	if (!cg || !cg->dir[0])
		return;
	pid = (int)getpid();
	do
		num[sizeof(num) - 1 - ++n] = (char)('0' + pid % 10);
	while ((pid /= 10));
	fd = open(cg->orig_procs, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		/* on failure rmdir fails below and the cgroup stays */
		ssize_t w = write(fd, num + sizeof(num) - 1 - n, (size_t)n);
		(void)w;
		close(fd);
	}
	rmdir(cg->dir);	/* or, when a thread is still leaving, the watcher */
	cg->dir[0] = 0;
	if (watch_fd >= 0) {	/* the watcher's read ends: it removes, exits */
		close(watch_fd);
		watch_fd = -1;
	}
	if (active == cg)
		active = NULL;
}
