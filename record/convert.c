/* SPDX-License-Identifier: MIT */
/*
 * convert.c - turn the BPF side's events (bpf/record.h) into trace rows
 * (tape_writer_append), keeping what that needs: the process table (argv,
 * cwd, file mappings per process) and the file table (dev, inode -> stable
 * file id and absolute path).
 *
 * Invariants:
 *  - a file row is appended the first time a (dev, inode) is seen, before
 *    any syscall or cache row that carries its file_id; its fstype is the
 *    superblock magic the BPF side read at the open, else the one an
 *    earlier file of its device had, else fstatfs of the fd through /proc
 *    (files opened before the recording), else 0;
 *  - a process row is appended once per thread, when it exits (or at the
 *    end for threads still running), so it carries end_ns and exit_code;
 *  - relative paths are resolved against the dirfd's file or the process
 *    cwd as the recorder knows it at the time the event is converted;
 *  - a file row names the file by its real path (symlinks resolved), an
 *    open row by the path the job gave (made absolute): the two differ
 *    when the open went through a symlink (/etc/localtime), which is how
 *    a reader (the replay) knows the job's symlinks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include "path.h"
#include "rec.h"
#include "tape_vec.h"

uint64_t rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ------------------------------------------------------------ helpers */

/* rec_opts.row: the row, with the comm of its process's main thread. */
static void row_hook(struct rec_state *st, int table, const void *ev)
{
	const struct rec_thread *t = NULL;
	uint32_t pid = 0;

	switch (table) {
	case TAPE_TABLE_SYSCALL: pid = ((const struct tape_syscall *)ev)->pid; break;
	case TAPE_TABLE_CACHE: pid = ((const struct tape_cache *)ev)->pid; break;
	case TAPE_TABLE_BLOCK: pid = ((const struct tape_block *)ev)->pid; break;
	case TAPE_TABLE_PROCESS:
		st->row(st->row_arg, table, ev, ((const struct tape_process *)ev)->comm);
		return;
	}
	if (pid)
		t = rec_map_get(&st->threads, pid, 0);
	st->row(st->row_arg, table, ev, t ? t->comm : "");
}

int rec_append(struct rec_state *st, int table, const void *ev)
{
	int err = tape_writer_append(st->w, table, ev);

	if (err) {
		if (!st->write_err)
			st->write_err = err;
		return err;
	}
	st->events[table]++;
	if (st->row)
		row_hook(st, table, ev);
	return 0;
}

/* A copy of s (NULL: ""), or NULL when out of memory: each caller keeps
 * going without the string (an empty path, an unknown argv), and the
 * trace's rows stay consistent. */
static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

static char *read_link(const char *fmt, uint32_t a, long b)
{
	char p[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(p, sizeof(p), fmt, a, b);
	n = readlink(p, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return xstrdup(buf);
}

/* Lexically normalise an absolute path: //, /./, /../ (symlinks are kept;
 * common/path.h has the rule). */
static void normalize(char *p)
{
	cm_path_normalize(p, 0);
}

static char *join(const char *base, const char *rel)
{
	size_t lb = strlen(base), lr = strlen(rel);
	char *p = malloc(lb + lr + 2);

	if (!p)
		return NULL;
	memcpy(p, base, lb);
	p[lb] = '/';
	memcpy(p + lb + 1, rel, lr + 1);
	normalize(p);
	return p;
}

/* ------------------------------------------------------------ processes */

static struct rec_group *group_get(struct rec_state *st, uint32_t pid)
{
	return rec_map_get(&st->groups, pid, 0);
}

static struct rec_group *group_new(struct rec_state *st, uint32_t pid, uint32_t ppid)
{
	struct rec_group *g = group_get(st, pid);

	if (g)
		return g;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->pid = pid;
	g->ppid = ppid;
	rec_map_put(&st->groups, pid, 0, g);
	st->live_groups++;
	return g;
}

static void group_free(struct rec_group *g)
{
	if (!g)
		return;
	free(g->argv);
	free(g->cwd);
	free(g->maps);
	free(g);
}

static char *cmdline_of(uint32_t pid)
{
	char p[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%u/cmdline", pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	while (n > 0 && buf[n - 1] == 0)
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == 0)
			buf[i] = ' ';
	buf[n] = 0;
	return xstrdup(buf);
}

static void comm_of(uint32_t pid, uint32_t tid, char *comm)
{
	char p[64];
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%u/task/%u/comm", pid, tid);
	comm[0] = 0;
	f = fopen(p, "re");
	if (!f)
		return;
	if (fgets(comm, REC_COMM_LEN, f))
		comm[strcspn(comm, "\n")] = 0;
	fclose(f);
}

static struct rec_thread *thread_new(struct rec_state *st, uint32_t pid,
				     uint32_t tid, uint64_t ts, const char *comm)
{
	struct rec_thread *t = rec_map_get(&st->threads, tid, 0);
	struct rec_group *g;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	t->start_ns = ts;
	if (comm)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
	rec_map_put(&st->threads, tid, 0, t);
	g = group_get(st, pid);
	if (g)
		g->live_threads++;
	return t;
}

static void emit_thread(struct rec_state *st, struct rec_thread *t,
			uint64_t end, int64_t code)
{
	struct rec_group *g = group_get(st, t->pid);
	/* exit_code: like the shell's $?: the exit status, or 128 + signal */
	int64_t ec = (code & 0x7f) ? 128 + (code & 0x7f) : (code >> 8) & 0xff;
	struct tape_process r = {
		.ts_ns = t->start_ns, .end_ns = end, .pid = t->pid,
		.tid = t->tid, .ppid = g ? g->ppid : 0, .exit_code = end ? ec : 0,
		.comm = t->comm, .argv = g && g->argv ? g->argv : "",
	};

	rec_append(st, TAPE_TABLE_PROCESS, &r);
}

static struct rec_file *file_see(struct rec_state *st, uint64_t ts, uint64_t dev,
				 uint64_t ino, const char *path, uint32_t pid,
				 long fd, uint64_t size, uint64_t mode, uint64_t fstype);

/* The kernel's dev_t (what BPF reports: major << 20 | minor) of a stat's
 * st_dev, which is the user-space encoding. */
static uint64_t kdev(dev_t d)
{
	return (uint64_t)major(d) << 20 | minor(d);
}

/* What /proc/PID/fd/FD is now: its stat and its file system's magic, from
 * one O_PATH open, so that both describe the same file even if the
 * process closes or reuses the fd meanwhile (fstatfs works on an O_PATH
 * fd; so does the open for a pipe or a socket).  0, or -1 when the fd is
 * gone. */
static int proc_fd_stat(uint32_t pid, long fd, struct stat *sb, uint64_t *fstype)
{
	char p[64];
	struct statfs sf;
	int pfd, rc;

	snprintf(p, sizeof(p), "/proc/%u/fd/%ld", pid, fd);
	pfd = open(p, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	rc = fstat(pfd, sb);
	*fstype = rc == 0 && fstatfs(pfd, &sf) == 0 ? (uint64_t)(unsigned long)sf.f_type : 0;
	close(pfd);
	return rc;
}

static int fd_cloexec(uint32_t pid, long fd)
{
	char p[96], line[128];
	unsigned long flags = 0;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%u/fdinfo/%ld", pid, fd);
	f = fopen(p, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "flags: %lo", &flags) == 1)
			break;
	fclose(f);
	return (flags & O_CLOEXEC) != 0;
}

/* Files a process already has open (inherited stdio, -p targets): known
 * now, while /proc still shows them. */
static void scan_fds(struct rec_state *st, uint32_t pid, uint64_t ts)
{
	char p[64];
	DIR *d;
	struct dirent *de;

	snprintf(p, sizeof(p), "/proc/%u/fd", pid);
	d = opendir(p);
	while (d && (de = readdir(d))) {
		struct stat sb;
		uint64_t fstype;
		char *path;
		long fd = strtol(de->d_name, NULL, 10);

		if (de->d_name[0] == '.')
			continue;
		if (fd_cloexec(pid, fd))
			continue;	/* gone at exec (our own pipes, ...) */
		if (proc_fd_stat(pid, fd, &sb, &fstype))
			continue;
		path = read_link("/proc/%u/fd/%ld", pid, fd);
		file_see(st, ts, kdev(sb.st_dev), sb.st_ino, path, pid, fd, sb.st_size,
			 sb.st_mode, fstype);
		free(path);
	}
	if (d)
		closedir(d);
}

void rec_add_process(struct rec_state *st, uint32_t pid, uint32_t ppid,
		     uint64_t ts, int with_threads)
{
	struct rec_group *g = group_new(st, pid, ppid);
	char comm[REC_COMM_LEN];

	if (!g)
		return;
	if (!g->argv)
		g->argv = cmdline_of(pid);
	if (!g->cwd)
		g->cwd = read_link("/proc/%u/cwd%.0ld", pid, 0);
	comm_of(pid, pid, comm);
	thread_new(st, pid, pid, ts, comm);
	scan_fds(st, pid, ts);
	if (with_threads) {
		char p[64];
		snprintf(p, sizeof(p), "/proc/%u/task", pid);
		DIR *d = opendir(p);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			uint32_t tid = strtoul(de->d_name, NULL, 10);
			if (!tid || tid == pid)
				continue;
			comm_of(pid, tid, comm);
			thread_new(st, pid, tid, ts, comm);
		}
		if (d)
			closedir(d);
	}
}

void rec_finish_processes(struct rec_state *st)
{
	rec_map_for_each(&st->threads, t) {
		emit_thread(st, t, 0, 0);
		free(t);
	}
	cm_map_clear(&st->threads);
}

static void on_fork(struct rec_state *st, const struct rec_fork *e)
{
	struct rec_group *pg = group_get(st, e->h.pid), *g;

	if (!(e->flags & REC_FORK_THREAD)) {
		g = group_new(st, e->child_pid, e->h.pid);
		if (g && pg) {
			free(g->argv);
			g->argv = xstrdup(pg->argv);
			if (pg->cwd) {
				free(g->cwd);
				g->cwd = xstrdup(pg->cwd);
			}
			if (pg->nmaps) {
				g->maps = malloc(pg->nmaps * sizeof(*g->maps));
				if (g->maps) {
					memcpy(g->maps, pg->maps, pg->nmaps * sizeof(*g->maps));
					g->nmaps = g->capmaps = pg->nmaps;
				}
			}
		}
	}
	thread_new(st, e->child_pid, e->child_tid, e->h.ts, e->comm);
}

static void on_exec(struct rec_state *st, const struct rec_exec *e, size_t len)
{
	struct rec_group *g = group_get(st, e->h.pid);
	struct rec_thread *t;
	size_t n = e->argv_len;
	char *a;

	if (!g)
		g = group_new(st, e->h.pid, 0);
	if (!g)
		return;
	if (n > len - sizeof(*e))
		n = len - sizeof(*e);
	a = malloc(n + 1);
	if (!a)
		return;
	memcpy(a, (const char *)(e + 1), n);
	while (n > 0 && a[n - 1] == 0)
		n--;
	for (size_t i = 0; i < n; i++)
		if (a[i] == 0)
			a[i] = ' ';
	a[n] = 0;
	free(g->argv);
	g->argv = a;
	g->nmaps = 0;	/* a new image has no file mappings of the old one */
	/* a non-leader thread that execs takes over the leader's tid */
	if (e->old_tid != e->h.tid) {
		t = rec_map_del(&st->threads, e->old_tid, 0);
		if (t) {
			g->live_threads--;
			free(t);
		}
	}
	t = rec_map_get(&st->threads, e->h.tid, 0);
	if (!t)
		t = thread_new(st, e->h.pid, e->h.tid, e->h.ts, e->comm);
	if (t)
		snprintf(t->comm, sizeof(t->comm), "%.*s", REC_COMM_LEN - 1, e->comm);
}

static void on_exit_ev(struct rec_state *st, const struct rec_exit *e)
{
	struct rec_thread *t = rec_map_del(&st->threads, e->h.tid, 0);
	struct rec_group *g = group_get(st, e->h.pid);

	if (t) {
		snprintf(t->comm, sizeof(t->comm), "%.*s", REC_COMM_LEN - 1, e->comm);
		emit_thread(st, t, e->h.ts, e->exit_code);
		free(t);
		if (g)
			g->live_threads--;
	}
	if (g && e->group_dead && !g->exited) {
		g->exited = 1;
		st->live_groups--;
	}
}

/* ------------------------------------------------------------ files */

static struct rec_file *file_get(struct rec_state *st, uint64_t dev, uint64_t ino)
{
	return rec_map_get(&st->files, dev, ino);
}

/* The real path of directory dir (realpath(3), kept: one call per
 * directory the job opens files in), or NULL when it is dir itself or
 * unknown. */
static const char *real_dir(struct rec_state *st, const char *dir)
{
	uint64_t h = cm_hash_str(dir), *v;
	char *r;

	/* a collision of the hash is taken as a miss, and not kept */
	if ((v = cm_map_get(&st->rdir_map, h, 0)) && strcmp(st->rdirs[*v - 1].dir, dir) == 0)
		return st->rdirs[*v - 1].real;
	r = realpath(dir, NULL);
	if (r && strcmp(r, dir) == 0) {
		free(r);
		r = NULL;
	}
	if (v || TAPE_VEC_GROW(st->rdirs, st->caprdirs, st->nrdirs + 1, 64)) {
		free(r);
		return NULL;	/* not kept: asked again next time */
	}
	st->rdirs[st->nrdirs] = (struct rec_rdir){ xstrdup(dir), r };
	if (!st->rdirs[st->nrdirs].dir || cm_map_set(&st->rdir_map, h, 0, st->nrdirs + 1)) {
		free(st->rdirs[st->nrdirs].dir);
		free(r);
		return NULL;
	}
	return st->rdirs[st->nrdirs++].real;
}

/*
 * The real path (symlinks resolved) of the file (dev, ino) an open of the
 * absolute path reached, malloc'd; NULL when it is path itself, or when
 * path no longer leads to that file (unlinked, replaced: the path as
 * given is kept).  One lstat per new file, a realpath per new directory
 * (and per symlink at the last component).
 */
static char *real_path(struct rec_state *st, const char *path, uint64_t dev, uint64_t ino)
{
	const char *slash = strrchr(path, '/'), *rd;
	struct stat sb;
	char *dir, *r;

	if (path[0] != '/' || lstat(path, &sb))
		return NULL;
	if (S_ISLNK(sb.st_mode)) {	/* the last component: /etc/localtime */
		if (!(r = realpath(path, NULL)))
			return NULL;
		if (stat(r, &sb) || sb.st_ino != ino || kdev(sb.st_dev) != dev || !strcmp(r, path)) {
			free(r);
			return NULL;
		}
		return r;
	}
	if (sb.st_ino != ino || kdev(sb.st_dev) != dev || slash == path)
		return NULL;
	if (!(dir = strndup(path, (size_t)(slash - path))))
		return NULL;
	rd = real_dir(st, dir);
	free(dir);
	return rd ? join(rd, slash + 1) : NULL;
}

/* Whether path names the file (dev, ino) now. */
static int same_inode(const char *path, uint64_t dev, uint64_t ino)
{
	struct stat sb;

	return stat(path, &sb) == 0 && sb.st_ino == ino && kdev(sb.st_dev) == dev;
}

/*
 * The file (dev, ino), created with a file row on first sight.  path and
 * the stat fields are used only then; path may be NULL (then readlink of
 * /proc/pid/fd/fd, when fd >= 0).  fstype is the file system's magic, 0
 * when the caller does not know it: then the one an earlier file of dev
 * had (one superblock, one magic), else fstatfs through /proc/pid/fd/fd.
 * Most rows get the superblock's s_magic from the BPF side (every file
 * opened while recording); statfs(2) gives the same but on 9P2000.L
 * mounts (the server's type) and SMB2 ones (SMB2's magic, s_magic is
 * cifs's), and that earlier file of dev makes the two agree whenever the
 * BPF side saw one first.
 */
static struct rec_file *file_see(struct rec_state *st, uint64_t ts, uint64_t dev,
				 uint64_t ino, const char *path, uint32_t pid,
				 long fd, uint64_t size, uint64_t mode, uint64_t fstype)
{
	struct rec_file *f;
	uint64_t *known;
	char *p = NULL;

	if (!dev && !ino)
		return NULL;
	f = file_get(st, dev, ino);
	if (f && path && path[0] && f->path[0] && strcmp(f->path, path) != 0 &&
	    !same_inode(f->path, dev, ino)) {
		/* opened under another name, and the name we knew no longer
		 * leads to it: the inode was freed and reused (ext4 reuses
		 * them at once; a replay creating and unlinking files hits
		 * this), or renamed.  A new file, named as it is opened. */
		rec_map_del(&st->files, dev, ino);
		free(f->path);
		free(f);
		f = NULL;
	}
	if (f) {
		char *np;
		if (!f->path[0] && path && path[0] && (np = xstrdup(path))) {
			free(f->path);
			f->path = np;
		}
		return f;
	}
	if ((known = cm_map_get(&st->fstypes, dev, 0)) && !fstype)
		fstype = *known;
	if ((!path || !path[0]) && fd >= 0) {
		struct stat sb;
		uint64_t fs;

		/* The event is old by now: the fd may have been closed and
		 * reused for another file.  Keep what /proc says only when it
		 * is still the same (dev, inode). */
		if (proc_fd_stat(pid, fd, &sb, &fs) == 0 && sb.st_ino == ino &&
		    kdev(sb.st_dev) == dev) {
			p = read_link("/proc/%u/fd/%ld", pid, fd);
			if (!mode) {
				mode = sb.st_mode;
				size = sb.st_size;
			}
			if (!fstype)
				fstype = fs;
		}
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->file_id = ++st->next_file_id;
	f->dev = dev;
	f->ino = ino;
	f->path = p ? p : xstrdup(path);
	if (!f->path || rec_map_put(&st->files, dev, ino, f)) {
		free(f->path);
		free(f);
		return NULL;	/* out of memory: the event names no file */
	}
	if (fstype && !known)
		cm_map_set(&st->fstypes, dev, 0, fstype);	/* -ENOMEM: not kept */
	struct tape_file r = {
		.ts_ns = ts, .file_id = f->file_id, .dev = dev, .inode = ino,
		.size = size, .mode = mode, .path = f->path, .fstype = fstype,
	};
	rec_append(st, TAPE_TABLE_FILE, &r);
	return f;
}

/* Absolute path of `path` as the process saw it.  Returns malloc'd. */
static char *resolve(struct rec_state *st, uint32_t pid, int dirfd,
		     uint64_t ddev, uint64_t dino, const char *path)
{
	struct rec_group *g;
	struct rec_file *df;
	char *base = NULL, *r;

	if (!path[0])
		return xstrdup("");
	if (path[0] == '/') {
		r = xstrdup(path);
		normalize(r);
		return r;
	}
	if (dirfd == AT_FDCWD) {
		g = group_get(st, pid);
		if (g && !g->cwd)
			g->cwd = read_link("/proc/%u/cwd%.0ld", pid, 0);
		if (g && g->cwd)
			return join(g->cwd, path);
		base = read_link("/proc/%u/cwd%.0ld", pid, 0);
	} else {
		df = file_get(st, ddev, dino);
		if (df && df->path[0])
			return join(df->path, path);
		base = read_link("/proc/%u/fd/%ld", pid, dirfd);
	}
	if (!base)
		return xstrdup(path);	/* unknown base: keep it relative */
	r = join(base, path);
	free(base);
	return r;
}

static void mapping_add(struct rec_group *g, uint64_t start, uint64_t len, uint64_t id)
{
	if (TAPE_VEC_GROW(g->maps, g->capmaps, g->nmaps + 1, 16))
		return;
	g->maps[g->nmaps++] = (struct rec_mapping){ start, start + len, id };
}

/* File mapping overlapping [a, a+len); removes mappings inside it when
 * unmap.  Returns its file id, 0 when the range is anonymous memory. */
static uint64_t mapping_find(struct rec_group *g, uint64_t a, uint64_t len, int unmap)
{
	uint64_t id = 0;

	for (size_t i = 0; g && i < g->nmaps; i++) {
		struct rec_mapping *m = &g->maps[i];
		if (m->start < a + len && a < m->end) {
			id = m->file_id;
			if (unmap && a <= m->start && m->end <= a + len)
				g->maps[i--] = g->maps[--g->nmaps];
		}
	}
	return id;
}

/* ------------------------------------------------------------ syscalls */

static void on_syscall(struct rec_state *st, const struct rec_syscall *e, size_t len)
{
	const char *p1 = "", *p2 = "";
	char *r1 = NULL, *r2 = NULL;
	char b1[REC_PATH_MAX], b2[REC_PATH_MAX];
	struct rec_file *f = NULL;
	struct rec_group *g;
	size_t room = len - sizeof(*e);

	if ((size_t)e->path_len + e->path2_len > room) {
		st->bad_events++;
		return;
	}
	if (e->path_len) {
		memcpy(b1, (const char *)(e + 1), e->path_len);
		b1[e->path_len - 1] = 0;
		p1 = b1;
	}
	if (e->path2_len) {
		memcpy(b2, (const char *)(e + 1) + e->path_len, e->path2_len);
		b2[e->path2_len - 1] = 0;
		p2 = b2;
	}

	if (e->op == REC_OP_CHDIR || e->op == REC_OP_FCHDIR) {
		g = group_get(st, e->h.pid);
		if (e->ret != 0 || !g)
			return;
		if (e->op == REC_OP_CHDIR) {
			r1 = resolve(st, e->h.pid, AT_FDCWD, 0, 0, p1);
		} else {
			f = file_get(st, e->dev, e->ino);
			r1 = f && f->path[0] ? xstrdup(f->path) :
				read_link("/proc/%u/cwd%.0ld", e->h.pid, 0);
		}
		if (r1) {
			free(g->cwd);
			g->cwd = r1;
		}
		return;
	}

	struct tape_syscall r = {
		.ts_ns = e->h.ts, .dur_ns = e->dur, .pid = e->h.pid, .tid = e->h.tid,
		.op = e->op, .fd = e->fd, .offset = e->offset, .size = e->size,
		.ret = e->ret, .flags = e->flags, .path = "", .path2 = "", .fd2 = -1,
	};

	if (tape_op_has_path(e->op)) {
		/* ops without a dirfd argument (open, rename, ...) are cwd-relative */
		r1 = resolve(st, e->h.pid, e->fd == -1 ? AT_FDCWD : e->fd, e->dev, e->ino, p1);
		r.path = r1 ? r1 : "";	/* NULL: out of memory */
		if (e->path2_len) {
			int d2 = e->fd2 == -1 ? AT_FDCWD : e->fd2;
			int same = e->fd2 == e->fd;	/* renameat(d, a, d, b) */
			r2 = resolve(st, e->h.pid, d2, same ? e->dev : 0, same ? e->ino : 0, p2);
			r.path2 = r2 ? r2 : "";
		}
		/* the dirfd is not an I/O target; an empty path means the op
		 * acts on the fd itself (AT_EMPTY_PATH) */
		if (p1[0])
			r.fd = -1;
	}

	switch (tape_op_class(e->op)) {
	case TAPE_OPC_OPEN:
		if (e->ret >= 0) {
			/* a new file is named by its real path (the open's
			 * row keeps the path the job gave) */
			struct rec_file *known = file_get(st, e->ndev, e->nino);
			char *real = r1 && (!known || (strcmp(known->path, r1) &&
						      !same_inode(known->path, e->ndev, e->nino))) ?
				real_path(st, r1, e->ndev, e->nino) : NULL;
			f = file_see(st, e->h.ts, e->ndev, e->nino, real ? real : r1, e->h.pid,
				     e->ret, e->nsize, e->nmode, e->nfstype);
			free(real);
		}
		break;
	case TAPE_OPC_MMAP:
		g = group_get(st, e->h.pid);
		if (e->op == TAPE_OP_MMAP) {
			f = file_see(st, e->h.ts, e->dev, e->ino, NULL, e->h.pid,
				     e->fd, 0, 0, 0);
			if (f && g && e->ret >= 0)
				mapping_add(g, e->ret, e->size, f->file_id);
		} else {
			r.file_id = mapping_find(g, e->offset, e->size,
						 e->op == TAPE_OP_MUNMAP && e->ret == 0);
			if (!r.file_id)
				return;	/* anonymous memory: not I/O */
		}
		break;
	default:
		if (!tape_op_has_path(e->op) || !p1[0])
			f = file_see(st, e->h.ts, e->dev, e->ino, NULL, e->h.pid,
				     e->fd, 0, 0, 0);
	}
	if (f) {
		r.file_id = f->file_id;
		if (!r.path[0])
			r.path = f->path;
	}
	if (tape_op_has_output(e->op)) {
		/* the output side, known as the input side is: its file by
		 * (dev, inode) at entry, named for the dump in path2 */
		struct rec_file *f2 = file_see(st, e->h.ts, e->dev2, e->ino2, NULL,
					       e->h.pid, e->fd2, 0, 0, 0);

		r.fd2 = e->fd2;
		r.offset2 = e->off2;
		if (f2) {
			r.file_id2 = f2->file_id;
			r.path2 = f2->path;
		}
	}
	rec_append(st, TAPE_TABLE_SYSCALL, &r);
	free(r1);
	free(r2);
}

/* ------------------------------------------------------------ cache, block */

static void on_cache(struct rec_state *st, const struct rec_cache *e)
{
	struct rec_file *f = file_get(st, e->dev, e->ino);
	struct tape_cache r = {
		.ts_ns = e->h.ts, .pid = e->h.pid, .tid = e->h.tid, .kind = e->kind,
		.dev = e->dev, .inode = e->ino, .file_id = f ? f->file_id : 0,
		.index = e->index, .count = e->count,
	};

	rec_append(st, TAPE_TABLE_CACHE, &r);
}

static void on_block(struct rec_state *st, const struct rec_block *e)
{
	struct tape_block r = {
		.ts_ns = e->h.ts, .dur_ns = e->dur, .pid = e->h.pid, .tid = e->h.tid,
		.dev = e->dev, .sector = e->sector, .bytes = e->bytes,
		.flags = e->flags, .inode = e->ino, .error = e->error,
	};

	rec_append(st, TAPE_TABLE_BLOCK, &r);
}

_Static_assert(REC_WAKE_NONE == TAPE_WAKE_NONE && REC_WAKE_IRQ == TAPE_WAKE_IRQ &&
	       REC_WAKE_JOB == TAPE_WAKE_JOB && REC_WAKE_KTHREAD == TAPE_WAKE_KTHREAD &&
	       REC_WAKE_OTHER == TAPE_WAKE_OTHER, "rec_wait.kind is enum tape_wake_kind");

static void on_wait(struct rec_state *st, const struct rec_wait *e)
{
	struct tape_sched r = {
		.ts_ns = e->h.ts, .dur_ns = e->dur, .pid = e->h.pid, .tid = e->h.tid,
		.waker_pid = e->waker_pid, .waker_tid = e->waker_tid,
		.kind = e->kind < TAPE_WAKE_KIND_MAX ? e->kind : TAPE_WAKE_NONE,
		.call = rec_wait_call(e->sysnr), .sysnr = e->sysnr >= 0 ? (uint64_t)e->sysnr + 1 : 0,
		.run_ns = e->run, .cpu_ns = e->cpu,
	};

	rec_append(st, TAPE_TABLE_SCHED, &r);
}

static uint32_t ppid_of(uint32_t pid)
{
	char p[64], buf[512], *c;
	unsigned ppid = 0;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%u/stat", pid);
	f = fopen(p, "re");
	if (!f)
		return 0;
	c = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (c && (c = strrchr(buf, ')')))
		sscanf(c + 2, "%*c %u", &ppid);
	return ppid;
}

int rec_handle_event(void *ctx, void *data, size_t len)
{
	struct rec_state *st = ctx;
	const struct rec_hdr *h = data;
	static const size_t min[] = {
		[REC_EV_SYSCALL] = sizeof(struct rec_syscall),
		[REC_EV_SYSCALL_ACCESS] = sizeof(struct rec_syscall_access),
		[REC_EV_FORK] = sizeof(struct rec_fork),
		[REC_EV_EXEC] = sizeof(struct rec_exec),
		[REC_EV_EXIT] = sizeof(struct rec_exit),
		[REC_EV_CACHE] = sizeof(struct rec_cache),
		[REC_EV_BLOCK] = sizeof(struct rec_block),
		[REC_EV_WAIT] = sizeof(struct rec_wait),
	};

	st->bpf_events++;
	if (len >= sizeof(struct rec_syscall_access) && h->type == REC_EV_SYSCALL_ACCESS &&
	    h->len == sizeof(struct rec_syscall_access)) {
		/* the read's cache access first, as if it had come on its own
		 * (it happened first), then the syscall */
		const struct rec_syscall_access *ea = data;
		struct rec_cache c = {
			.h = { REC_EV_CACHE, sizeof(c), ea->acc.ts, h->pid, h->tid },
			.kind = 1, .dev = ea->acc.dev, .ino = ea->acc.ino,
			.index = ea->acc.index, .count = ea->acc.count,
		};

		on_cache(st, &c);
		st->bpf_events++;
	}
	if (len >= sizeof(*h) && h->type != REC_EV_FORK && h->pid &&
	    (h->type == REC_EV_SYSCALL || h->type == REC_EV_SYSCALL_ACCESS ||
	     h->type == REC_EV_EXEC) &&
	    !rec_map_get(&st->groups, h->pid, 0))
		/* a process we did not see start (--cgroup, or started
		 * between our /proc scan and the attach): take it from /proc */
		rec_add_process(st, h->pid, ppid_of(h->pid), h->ts, 1);
	if (len < sizeof(*h) || h->type == 0 || h->type > REC_EV_WAIT ||
	    len < min[h->type] || h->len > len) {
		st->bad_events++;
		return 0;
	}
	switch (h->type) {
	case REC_EV_SYSCALL: on_syscall(st, data, h->len); break;
	case REC_EV_SYSCALL_ACCESS: on_syscall(st, data, sizeof(struct rec_syscall)); break;
	case REC_EV_FORK: on_fork(st, data); break;
	case REC_EV_EXEC: on_exec(st, data, h->len); break;
	case REC_EV_EXIT: on_exit_ev(st, data); break;
	case REC_EV_CACHE: on_cache(st, data); break;
	case REC_EV_BLOCK: on_block(st, data); break;
	case REC_EV_WAIT: on_wait(st, data); break;
	}
	return 0;
}

int rec_state_init(struct rec_state *st, tape_writer *w)
{
	memset(st, 0, sizeof(*st));
	st->w = w;
	return 0;
}

void rec_state_release(struct rec_state *st)
{
	rec_map_for_each(&st->groups, g)
		group_free(g);
	rec_map_for_each(&st->threads, t)
		free(t);
	rec_map_for_each(&st->files, p) {
		struct rec_file *f = p;
		free(f->path);
		free(f);
	}
	cm_map_release(&st->groups);
	cm_map_release(&st->threads);
	cm_map_release(&st->files);
	cm_map_release(&st->fstypes);
	for (size_t i = 0; i < st->nrdirs; i++) {
		free(st->rdirs[i].dir);
		free(st->rdirs[i].real);
	}
	free(st->rdirs);
	cm_map_release(&st->rdir_map);
}
