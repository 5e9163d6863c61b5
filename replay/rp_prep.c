/* SPDX-License-Identifier: MIT */
/*
 * rp_prep.c - the replay directory: confinement and dataset preparation.
 *
 * Everything the replay creates, writes, renames or deletes is reached
 * from one dirfd of DIR through openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS): a symlink planted under DIR that points out of
 * it, an absolute symlink or a /proc magic link makes the open fail with
 * EXDEV/ELOOP instead of leaving DIR.  Directory-modifying calls
 * (mkdirat, unlinkat, renameat) act on a parent directory fd obtained the
 * same way and on a last component that is never followed.
 *
 * Prepare never writes through a name it did not create: each file it
 * makes or remakes, and the marker, is written under a temporary name
 * (RP_PREP_TMP, created O_EXCL|O_NOFOLLOW in the file's directory) and
 * renamed over its path.  A hard link planted at a path (or at the
 * marker) is replaced, never written through, and a prepare killed
 * midway leaves no full-size file of holes under a path: only the
 * temporary, which the next prepare removes.
 *
 * One replay at a time: rp_dir_open takes an exclusive flock(2) on DIR's
 * own fd (held while the process keeps it open), and names the holder,
 * from /proc/locks, when another replay has it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "fmt.h"
#include "replay.h"

int rp_open_beneath(int dirfd, const char *rel, int flags, unsigned mode)
{
	struct open_how how = {
		.flags = (uint64_t)flags | O_CLOEXEC,
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd;
	int i = 0;

	/* EAGAIN: a ".." met while a rename or mount ran (openat2(2): the
	 * caller may try again) */
	do
		fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN && rp_eagain_again(++i));

	return fd < 0 ? -errno : (int)fd;
}

int rp_eagain_again(int tries)
{
	struct timespec ts;
	long us;

	if (tries >= RP_EAGAIN_TRIES)
		return 0;
	if (tries > 4) {
		us = tries - 5 < 12 ? 1L << (tries - 5) : 4096;
		ts.tv_sec = 0;
		ts.tv_nsec = us * 1000;
		nanosleep(&ts, NULL);
	}
	return 1;
}

int rp_parent_beneath(int dirfd, const char *rel, int mkdirs, const char **base)
{
	const char *slash = strrchr(rel, '/');
	char *pre;
	int pfd, rc;

	*base = slash ? slash + 1 : rel;
	if (!slash)
		return rp_open_beneath(dirfd, ".", O_PATH | O_DIRECTORY, 0);
	if (!mkdirs) {
		pre = strndup(rel, (size_t)(slash - rel));
		if (!pre)
			return -ENOMEM;
		rc = rp_open_beneath(dirfd, pre, O_PATH | O_DIRECTORY, 0);
		free(pre);
		return rc;
	}
	/* walk: mkdir each component in its (confined) parent */
	pfd = rp_open_beneath(dirfd, ".", O_PATH | O_DIRECTORY, 0);
	if (pfd < 0)
		return pfd;
	pre = strdup(rel);
	if (!pre) {
		close(pfd);
		return -ENOMEM;
	}
	for (char *p = pre; (p = strchr(p, '/')); p++) {
		const char *comp = strrchr(pre, '/');
		int nfd;

		*p = 0;
		comp = strrchr(pre, '/');
		comp = comp ? comp + 1 : pre;
		if (mkdirat(pfd, comp, 0755) && errno != EEXIST) {
			rc = -errno;
			goto fail;
		}
		nfd = rp_open_beneath(dirfd, pre, O_PATH | O_DIRECTORY, 0);
		if (nfd < 0) {
			rc = nfd;
			goto fail;
		}
		close(pfd);
		pfd = nfd;
		*p = '/';
	}
	free(pre);
	return pfd;
fail:
	free(pre);
	close(pfd);
	return rc;
}

/* The marker's text; prepare adds MARK_CLEAN, the first replay after it
 * takes it away (rp_take_prepared). */
static const char msg[] = "iotape replay directory: files here are "
			  "created, overwritten and deleted by iotape replay\n";
#define MARK_CLEAN "prepared: the files are as prepare made them\n"

static int is_marked(int dirfd)
{
	struct stat st;

	return fstatat(dirfd, RP_MARKER, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode);
}

/* Write n bytes of buf at off, through short writes: 0 or -errno (a full
 * disk is ENOSPC, not a short write's EIO). */
static int write_all(int fd, const void *buf, size_t n, uint64_t off)
{
	const char *p = buf;

	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* Create RP_PREP_TMP in pfd (a leftover of a prepare that was killed is
 * removed first): an fd open read-write on a new file of ours, or -errno. */
static int tmp_create(int pfd)
{
	int fd = openat(pfd, RP_PREP_TMP, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0 && errno == EEXIST) {
		if (unlinkat(pfd, RP_PREP_TMP, 0) && errno != ENOENT)
			return -errno;
		fd = openat(pfd, RP_PREP_TMP, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
	}
	return fd < 0 ? -errno : fd;
}

/* Rename RP_PREP_TMP over base in pfd (whatever base was: a planted hard
 * link or symlink is replaced, not followed); on failure the temporary is
 * removed.  0 or -errno. */
static int tmp_commit(int pfd, const char *base)
{
	int rc = renameat(pfd, RP_PREP_TMP, pfd, base) ? -errno : 0;

	if (rc)
		unlinkat(pfd, RP_PREP_TMP, 0);
	return rc;
}

/* The marker holds text (the message, and MARK_CLEAN when clean): written
 * whole under the temporary name and renamed over it.  0 or -errno. */
static int marker_write(int dirfd, int clean)
{
	int fd = tmp_create(dirfd), rc;

	if (fd < 0)
		return fd;
	rc = write_all(fd, msg, sizeof(msg) - 1, 0);
	if (!rc && clean)
		rc = write_all(fd, MARK_CLEAN, sizeof(MARK_CLEAN) - 1, sizeof(msg) - 1);
	if (close(fd) && !rc)
		rc = -errno;
	if (rc) {
		unlinkat(dirfd, RP_PREP_TMP, 0);
		return rc;
	}
	return tmp_commit(dirfd, RP_MARKER);
}

/* The process holding a flock on the file (dev, ino), from /proc/locks:
 * its pid, or 0 when none is listed.  The device as the kernel prints it
 * may differ from st_dev (btrfs subvolumes): an inode match alone is
 * taken when no line matches both. */
static pid_t lock_holder(dev_t dev, ino_t ino)
{
	FILE *f = fopen("/proc/locks", "re");
	char line[256];
	pid_t exact = 0, by_ino = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char type[16], adv[16], rw[16];
		unsigned maj, min;
		unsigned long long i;
		int pid;

		/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a waiter's
		 * line has "->" after the number */
		if (strstr(line, "->") ||
		    sscanf(line, "%*d: %15s %15s %15s %d %x:%x:%llu", type, adv, rw, &pid, &maj,
			   &min, &i) != 7 ||
		    strcmp(type, "FLOCK") || i != (unsigned long long)ino || pid <= 0)
			continue;
		if (maj == major(dev) && min == minor(dev))
			exact = pid;
		else
			by_ino = pid;
	}
	fclose(f);
	return exact ? exact : by_ino;
}

int rp_dir_lock(int dirfd, const char *dir, char *err, size_t errlen)
{
	char cmd[160] = "";
	struct stat sb;
	pid_t pid;
	int fd;

	if (flock(dirfd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK) {
		int e = errno;
		snprintf(err, errlen, "%s: locking it: %s", dir, strerror(e));
		return -e;
	}
	pid = fstat(dirfd, &sb) ? 0 : lock_holder(sb.st_dev, sb.st_ino);
	if (pid == getpid())
		return 0;	/* ours already (the same DIR given twice) */
	if (pid > 0) {
		char path[64];
		ssize_t n = 0;

		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
			n = read(fd, cmd, sizeof(cmd) - 1);
			close(fd);
		}
		cmd[n > 0 ? n : 0] = 0;
		for (ssize_t k = 0; k + 1 < n; k++)
			if (!cmd[k] || cmd[k] == '\n')
				cmd[k] = ' ';
		snprintf(err, errlen, "%s is being replayed by pid %d (%s): refused (one replay "
			 "at a time in a DIR)", dir, (int)pid, cmd[0] ? cmd : "?");
	} else {
		snprintf(err, errlen, "%s is being replayed by another process: refused (one "
			 "replay at a time in a DIR)", dir);
	}
	return -EBUSY;
}

int rp_dir_open(const char *dir, int flags, char *err, size_t errlen)
{
	int fd, dfd, empty = 1, mfd, rc, force = flags & RP_DIR_FORCE;
	struct dirent *de;
	DIR *d;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(e));
		return -e;
	}
	/* before anything is looked at or written: one replay at a time */
	if (!(flags & RP_DIR_SHARED) && (rc = rp_dir_lock(fd, dir, err, errlen))) {
		close(fd);
		return rc;
	}
	dfd = dup(fd);
	d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		int e = errno;
		if (dfd >= 0)
			close(dfd);
		close(fd);
		snprintf(err, errlen, "%s: %s", dir, strerror(e));
		return -e;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = 0;
	closedir(d);
	if (!empty && !is_marked(fd) && !force) {
		close(fd);
		snprintf(err, errlen, "%s is not empty and was not prepared by iotape "
			 "(no %s file); use an empty directory or --force", dir, RP_MARKER);
		return -ENOTEMPTY;
	}
	if (!is_marked(fd)) {
		mfd = rp_open_beneath(fd, RP_MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
		if (mfd < 0 || write(mfd, msg, sizeof(msg) - 1) != (ssize_t)sizeof(msg) - 1) {
			int e = mfd < 0 ? -mfd : errno ? errno : EIO;
			if (mfd >= 0)
				close(mfd);
			close(fd);
			snprintf(err, errlen, "%s/%s: %s", dir, RP_MARKER, strerror(e));
			return -e;
		}
		close(mfd);
	}
	return fd;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Incompressible bytes (xorshift64*), regenerated per chunk. */
static void fill_random(uint64_t *buf, size_t words, uint64_t *state)
{
	uint64_t x = *state;
	for (size_t i = 0; i < words; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		buf[i] = x * 2685821657736338717ull;
	}
	*state = x;
}

#define PREP_CHUNK (1u << 20)

/* A file prepare did not make itself with more than one link may be a
 * hard link planted to a file outside DIR: never written through. */
#define LINKED_WHY "has more than one link (a hard link may lead out of DIR), refused"

/* The parent directory of the file prepare made last, kept open: a data
 * set's files come in runs of one directory, whose walk of parents (a
 * mkdir and an open of each) is then done once, not once a file. */
struct pcache {
	int dirfd;		/* the DIR (placement) it is under */
	int fd;			/* its fd, -1: none */
	char dir[4096];		/* its path, relative */
};

static void pc_release(struct pcache *pc)
{
	if (pc && pc->fd >= 0)
		close(pc->fd);
	if (pc)
		pc->fd = -1;
}

/* The parent of rel, made when missing, as rp_parent_beneath gives it;
 * with pc, the one kept when rel is in it (not closed by the caller). */
static int pc_parent(struct pcache *pc, int dirfd, const char *rel, int isdir,
		     const char **base)
{
	const char *sl = strrchr(rel, '/');
	size_t dl = sl ? (size_t)(sl - rel) : 0;
	int fd;

	if (!pc || isdir)
		return rp_parent_beneath(dirfd, rel, 1, base);
	*base = sl ? sl + 1 : rel;
	if (pc->fd >= 0 && pc->dirfd == dirfd && dl < sizeof(pc->dir) &&
	    !strncmp(pc->dir, rel, dl) && !pc->dir[dl])
		return pc->fd;
	pc_release(pc);
	if ((fd = rp_parent_beneath(dirfd, rel, 1, base)) < 0 || dl >= sizeof(pc->dir))
		return fd;	/* (not kept: the caller closes it) */
	memcpy(pc->dir, rel, dl);
	pc->dir[dl] = 0;
	pc->dirfd = dirfd;
	pc->fd = fd;
	return fd;
}

/*
 * Make rel as f says, unless it is there with its size and its blocks
 * (a file of holes, what a --sparse prepare made, is made again for one
 * that is not): written under RP_PREP_TMP in its directory, then renamed
 * over rel, so that nothing is written through a name prepare did not
 * create, and a prepare killed midway leaves no file of holes at rel.
 * *why: what went wrong, when the errno does not say it.
 */
struct pcache;
static int prep_one(int dirfd, const char *rel, const struct rp_file *f, int sparse,
		    uint64_t *buf, uint64_t *rng, struct rp_prep_stats *st, const char **why,
		    struct pcache *pc)
{
	const char *base;
	struct stat sb;
	int pfd, fd, rc = 0;

	*why = NULL;
	pfd = pc_parent(pc, dirfd, rel, f->isdir, &base);
	if (pfd < 0)
		return pfd;
	if (f->isdir) {
		rc = mkdirat(pfd, base, 0755) && errno != EEXIST ? -errno : 0;
		close(pfd);
		if (!rc)
			st->skipped++;
		return rc;
	}
	sparse |= f->holes;	/* nothing reads it: its size is enough */
	/* prepare's new file of holes (a large data set, --sparse): made at
	 * its path (O_EXCL, not followed: a file of ours) and sized, no
	 * temporary: killed before it is sized, it is found short next time */
	if (pc && sparse) {
		fd = openat(pfd, base, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			rc = f->size && ftruncate(fd, (off_t)f->size) ? -errno : 0;
			if (close(fd) && !rc)
				rc = -errno;
			if (rc) {
				unlinkat(pfd, base, 0);
				goto out;
			}
			st->created++;
			st->bytes += f->size;
			goto out;
		}
		if (errno != EEXIST) {
			rc = -errno;
			goto out;
		}
	}
	/* what is there (a symlink under DIR followed, one out of it refused) */
	fd = rp_open_beneath(dirfd, rel, O_PATH, 0);
	if (fd >= 0) {
		rc = fstat(fd, &sb) ? -errno : 0;
		close(fd);
		if (rc)
			goto out;
		if (!S_ISREG(sb.st_mode)) {
			rc = -EINVAL;
			*why = "not a regular file";
			goto out;
		}
		if (sb.st_nlink > 1) {
			rc = -EMLINK;
			*why = LINKED_WHY;
			goto out;
		}
		if ((uint64_t)sb.st_size == f->size &&
		    (sparse || (uint64_t)sb.st_blocks * 512 >= (f->size & ~(uint64_t)4095))) {
			st->skipped++;
			goto out;
		}
	} else if (fd != -ENOENT) {
		rc = fd;
		goto out;
	}
	if ((fd = tmp_create(pfd)) < 0) {
		rc = fd;
		goto out;
	}
	if (f->size && ftruncate(fd, (off_t)f->size)) {
		rc = -errno;
		goto fail;
	}
	for (uint64_t off = 0; !sparse && off < f->size; off += PREP_CHUNK) {
		size_t n = f->size - off < PREP_CHUNK ? (size_t)(f->size - off) : PREP_CHUNK;
		fill_random(buf, (n + 7) / 8, rng);
		if ((rc = write_all(fd, buf, n, off)))
			goto fail;
	}
	/* on disk before the replay, so its reads do not wait for
	 * writeback: big files are synced, small ones only start writeback
	 * (10^6 tiny files must not cost 10^6 journal commits) */
	if (!sparse && f->size >= PREP_CHUNK && fdatasync(fd)) {
		rc = -errno;
		goto fail;
	}
	if (!sparse && f->size && f->size < PREP_CHUNK)
		sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	if (close(fd)) {
		fd = -1;
		rc = -errno;
		goto fail;
	}
	if ((rc = tmp_commit(pfd, base)))
		goto out;
	st->created++;
	st->bytes += f->size;
out:
	if (!pc || pfd != pc->fd)	/* (pc's is kept for the next file) */
		close(pfd);
	return rc;
fail:
	if (fd >= 0)
		close(fd);
	unlinkat(pfd, RP_PREP_TMP, 0);
	if (!pc || pfd != pc->fd)
		close(pfd);
	return rc;
}

/* Make link (layout.links) k as the job had it, relative: kept when it is
 * there with that target, else made under the temporary name and renamed
 * over its path.  0, or -errno (*why set when the errno does not say). */
static int prep_link(int dirfd, const struct rp_layout *l, const struct rp_link *k,
		     struct rp_prep_stats *st, const char **why)
{
	const char *from = rp_file_path(l, k->file), *base;
	char tgt[4096], cur[4096];
	ssize_t n;
	int pfd, rc;

	*why = NULL;
	if ((rc = rp_link_target(from, rp_file_path(l, k->target), tgt, sizeof(tgt))))
		return rc;
	if ((pfd = rp_parent_beneath(dirfd, from, 1, &base)) < 0)
		return pfd;
	n = readlinkat(pfd, base, cur, sizeof(cur));
	if (n >= 0 && (size_t)n == strlen(tgt) && !memcmp(cur, tgt, (size_t)n)) {
		st->skipped++;
		close(pfd);
		return 0;
	}
	if (unlinkat(pfd, RP_PREP_TMP, 0) && errno != ENOENT)
		rc = -errno;
	else if (symlinkat(tgt, pfd, RP_PREP_TMP))
		rc = -errno;
	else if ((rc = tmp_commit(pfd, base)) == -EISDIR || rc == -ENOTEMPTY || rc == -EEXIST)
		*why = "a directory is there, where the job had a symlink";
	if (!rc)
		st->created++;
	close(pfd);
	return rc;
}

/* The dirfd file i lives under: its placement's (fds NULL: dirfd). */
static int fd_of(int dirfd, const int *fds, const struct rp_layout *l, uint32_t i);

/* Make the layout's links (each under its placement, when its target is
 * under the same one: else the engine opens the file by its own path).
 * 0, or -errno with the message in err (NULL: none kept). */
static int prep_links(int dirfd, const int *fds, const struct rp_layout *l,
		      struct rp_prep_stats *st, char *err, size_t errlen)
{
	const char *why;
	int rc;

	for (size_t i = 0; i < l->nlinks; i++) {
		const struct rp_link *k = &l->links[i];
		if (l->files[k->file].place != l->files[k->target].place)
			continue;
		if ((rc = prep_link(fd_of(dirfd, fds, l, k->file), l, k, st, &why))) {
			if (err)
				snprintf(err, errlen, "preparing '%s': %s", rp_file_path(l, k->file),
					 why ? why : rc == -EXDEV || rc == -ELOOP ?
					 "a symlink leads out of DIR, refused" : strerror(-rc));
			return rc;
		}
		st->files++;
	}
	return 0;
}

/* A file the job writes, creates or truncates, and prepare does not make:
 * if it is there, it must not be a hard link (LINKED_WHY).  0 or -errno. */
static int check_links(int dirfd, const char *rel)
{
	struct stat sb;
	int fd = rp_open_beneath(dirfd, rel, O_PATH | O_NOFOLLOW, 0), rc = 0;

	if (fd == -ENOENT || fd == -ENOTDIR)
		return 0;	/* not there: the job makes it */
	if (fd < 0)
		return fd;
	if (fstat(fd, &sb))
		rc = -errno;
	else if (S_ISREG(sb.st_mode) && sb.st_nlink > 1)
		rc = -EMLINK;
	close(fd);
	return rc;
}

static void prep_error(char *err, size_t errlen, const char *rel, int rc, const char *why)
{
	snprintf(err, errlen, "preparing '%s': %s", rel, why ? why :
		 rc == -EXDEV || rc == -ELOOP ? "a symlink leads out of DIR, refused" :
		 rc == -EMLINK ? LINKED_WHY : strerror(-rc));
}

/* The dirfd file i lives under: its placement's (fds NULL: dirfd). */
static int fd_of(int dirfd, const int *fds, const struct rp_layout *l, uint32_t i)
{
	return fds && l->files[i].place < (l->nplaces ? l->nplaces : 1) ?
		fds[l->files[i].place] : dirfd;
}

/* Bytes of the files to prepare under placement p that are not there with
 * their size. */
static uint64_t bytes_missing(int dirfd, const struct rp_layout *l, unsigned scale, unsigned p)
{
	char cpath[4096 + 32];
	uint64_t need = 0;

	for (size_t n = 0; n < l->nfiles * scale; n++) {
		unsigned k = (unsigned)(n / l->nfiles);
		uint32_t i = (uint32_t)(n % l->nfiles);
		const struct rp_file *f = &l->files[i];
		struct stat sb;
		int fd;

		if (!f->prepare || f->isdir || (k && !f->dataset) || f->place != p)
			continue;
		fd = rp_open_beneath(dirfd, rp_copy_path(l, i, k, cpath, sizeof(cpath)),
				     O_PATH | O_NOFOLLOW, 0);
		if (fd < 0 || fstat(fd, &sb) || (uint64_t)sb.st_size != f->size)
			need += f->size;
		if (fd >= 0)
			close(fd);
	}
	return need;
}

/* Refuse what does not fit placement p's file system (total bytes in
 * nfiles files): 0, or -ENOSPC with err. */
static int check_space(int dirfd, const struct rp_layout *l, unsigned scale, unsigned p,
		       uint64_t total, uint64_t nfiles, char *err, size_t errlen)
{
	struct statvfs sv;
	uint64_t avail, need;
	char a[32], b[32];

	if (fstatvfs(dirfd, &sv))
		return 0;	/* cannot tell: the writes will */
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (total <= avail || (need = bytes_missing(dirfd, l, scale, p)) <= avail)
		return 0;
	cm_fmt_bytes(a, sizeof(a), need);
	cm_fmt_bytes(b, sizeof(b), avail);
	snprintf(err, errlen, "preparing %" PRIu64 " files needs %s (%" PRIu64 " bytes), and "
		 "%s file system has %s (%" PRIu64 " bytes) free: refused (--sparse makes "
		 "holes)", nfiles, a, need, p ? "the placement's" : "DIR's", b, avail);
	return -ENOSPC;
}

/* The directories the job creates files in but did not make: there
 * before the replay, so that its creates need no mkdir of their own. */
static int prep_dirs(int dirfd, const int *fds, const struct rp_layout *l, char *err,
		     size_t errlen)
{
	for (uint32_t d = 0; d < cm_strtab_count(&l->dirs); d++) {
		const char *dir = cm_strtab_str(&l->dirs, d), *base;
		char *sub;
		int pfd;
		if (l->dir_made[d])
			continue;
		if (asprintf(&sub, "%s/.", dir) < 0)
			return -ENOMEM;
		pfd = rp_parent_beneath(fds && l->dir_place ? fds[l->dir_place[d]] : dirfd, sub, 1,
					&base);
		free(sub);
		if (pfd < 0) {
			prep_error(err, errlen, dir, pfd, NULL);
			return pfd;
		}
		close(pfd);
	}
	/* a file placed apart from its directory has a parent of its own
	 * under its placement (the job's mkdir makes the other) */
	for (uint32_t i = 0; i < l->nfiles; i++) {
		const char *base;
		int pfd;
		if (!l->files[i].apart)
			continue;
		pfd = rp_parent_beneath(fd_of(dirfd, fds, l, i), rp_file_path(l, i), 1, &base);
		if (pfd < 0) {
			prep_error(err, errlen, rp_file_path(l, i), pfd, NULL);
			return pfd;
		}
		close(pfd);
	}
	return 0;
}

/* Say in the marker that DIR is as prepare made it: 0 or -errno. */
static int mark_prepared(int dirfd)
{
	return marker_write(dirfd, 1);
}

int rp_prepare(int dirfd, const struct rp_layout *l, const struct rp_prep_opts *po,
	       struct rp_prep_stats *st, char *err, size_t errlen)
{
	uint64_t *buf = NULL, rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)now_ns();
	uint64_t total = 0, nfiles = 0, done = 0, last = now_ns();
	unsigned scale = po->scale ? po->scale : 1;
	char cpath[4096 + 32];
	const int *fds = po->dirfds;
	unsigned np = fds && l->nplaces ? l->nplaces : 1;
	struct pcache pc = { .fd = -1 };
	const char *why;
	int rc;

	memset(st, 0, sizeof(*st));
	for (unsigned p = 0; p < np; p++) {
		uint64_t ptotal = 0, pfiles = 0;
		for (size_t i = 0; i < l->nfiles; i++)
			if ((l->files[i].prepare || (l->files[i].isdir && !l->files[i].made_dir)) &&
			    (np == 1 || l->files[i].place == p)) {
				unsigned k = l->files[i].dataset ? scale : 1;
				pfiles += k;
				ptotal += l->files[i].size * k;
			}
		nfiles += pfiles;
		total += ptotal;
		if (!po->sparse && (rc = check_space(fds ? fds[p] : dirfd, l, scale, np == 1 ? 0 : p,
						     ptotal, pfiles, err, errlen)))
			return rc;
	}
	/* what the job writes and prepare does not make must not be a link */
	for (uint32_t i = 0; i < l->nfiles; i++)
		if (l->files[i].modified && !l->files[i].prepare && !l->files[i].isdir &&
		    (rc = check_links(fd_of(dirfd, fds, l, i), rp_file_path(l, i)))) {
			prep_error(err, errlen, rp_file_path(l, i), rc, NULL);
			return rc;
		}
	/* what the job makes with O_EXCL must not be there (an earlier
	 * replay left it) */
	for (uint32_t i = 0; i < l->nfiles; i++) {
		const char *base;
		int pfd;
		if (!l->files[i].excl)
			continue;
		pfd = rp_parent_beneath(fd_of(dirfd, fds, l, i), rp_file_path(l, i), 0, &base);
		rc = pfd < 0 ? pfd : unlinkat(pfd, base, 0) && errno != ENOENT ? -errno : 0;
		if (pfd >= 0)
			close(pfd);
		if (rc && rc != -ENOENT && rc != -ENOTDIR) {
			prep_error(err, errlen, rp_file_path(l, i), rc, NULL);
			return rc;
		}
		rc = 0;
	}
	if ((rc = prep_dirs(dirfd, fds, l, err, errlen)))
		return rc;
	if (!(buf = malloc(PREP_CHUNK + 8)))
		return -ENOMEM;
	/* copy by copy: copy 0 is the trace's own layout */
	for (size_t n = 0; !rc && n < l->nfiles * scale; n++) {
		unsigned k = (unsigned)(n / l->nfiles);
		uint32_t i = (uint32_t)(n % l->nfiles);
		const struct rp_file *f = &l->files[i];
		const char *rel;

		/* a directory the job makes is the job's to make */
		if ((!f->prepare && (!f->isdir || f->made_dir)) || (k && !f->dataset))
			continue;
		rel = rp_copy_path(l, i, k, cpath, sizeof(cpath));
		if ((rc = prep_one(fd_of(dirfd, fds, l, i), rel, f, po->sparse, buf, &rng, st,
				   &why, &pc))) {
			prep_error(err, errlen, rel, rc, why);
			break;
		}
		st->files++;
		done += f->size;
		if (po->progress && now_ns() - last > 200000000ull) {
			last = now_ns();
			po->progress(po->arg, st->files, nfiles, done, total);
		}
	}
	pc_release(&pc);
	free(buf);
	if (po->progress && !rc)	/* the last word: all of it, its rate */
		po->progress(po->arg, st->files, nfiles, done, total);
	/* the job's symlinks, once their targets are there */
	if (!rc)
		rc = prep_links(dirfd, fds, l, st, err, errlen);
	for (unsigned p = 0; !rc && p < np; p++)
		if ((rc = mark_prepared(fds ? fds[p] : dirfd)))
			prep_error(err, errlen, RP_MARKER, rc, NULL);
	return rc;
}

static int restore(int dirfd, const int *fds, const struct rp_layout *l, int sparse)
{
	uint64_t *buf = NULL, rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)now_ns();
	struct rp_prep_stats st = { 0 };
	const char *why;
	int rc = 0;

	for (uint32_t i = 0; i < l->nfiles; i++) {
		const struct rp_file *f = &l->files[i];
		struct stat sb;
		int e, fd;
		if (!f->prepare || !f->modified || f->isdir)
			continue;
		/* there with its size: nothing to do (two calls, not prepare's
		 * walk of its parents) */
		fd = rp_open_beneath(fd_of(dirfd, fds, l, i), rp_file_path(l, i),
				     O_PATH | O_NOFOLLOW, 0);
		e = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    (uint64_t)sb.st_size == f->size;
		if (fd >= 0)
			close(fd);
		if (e)
			continue;
		if (!buf && !(buf = malloc(PREP_CHUNK + 8)))
			return -ENOMEM;
		if ((e = prep_one(fd_of(dirfd, fds, l, i), rp_file_path(l, i), f, sparse, buf, &rng,
				  &st, &why, NULL)) && !rc)
			rc = e;
	}
	free(buf);
	/* the links the job removed or replaced (each a readlink when there) */
	int e = prep_links(dirfd, fds, l, &st, NULL, 0);
	return rc ? rc : e;
}

int rp_restore(int dirfd, const struct rp_layout *l, int sparse)
{
	return restore(dirfd, NULL, l, sparse);
}

int rp_restore_places(const int *dirfds, const struct rp_layout *l, int sparse)
{
	return restore(dirfds[0], dirfds, l, sparse);
}

int rp_take_prepared(int dirfd)
{
	char buf[sizeof(msg) + sizeof(MARK_CLEAN)];
	size_t n = sizeof(MARK_CLEAN) - 1;
	int fd = rp_open_beneath(dirfd, RP_MARKER, O_RDWR | O_NOFOLLOW, 0);
	struct stat sb;
	ssize_t got;
	int clean;

	if (fd < 0)
		return 0;
	got = pread(fd, buf, sizeof(buf), 0);
	clean = got == (ssize_t)sizeof(buf) - 2 && memcmp(buf + got - n, MARK_CLEAN, n) == 0;
	/* cut in place (no write a recording of the replay would show) when
	 * the marker is ours alone; one with another link is replaced */
	if (clean && (fstat(fd, &sb) || sb.st_nlink != 1 ?
		      marker_write(dirfd, 0) : ftruncate(fd, (off_t)(got - (ssize_t)n))))
		clean = 0;	/* it would say so again */
	close(fd);
	return clean;
}

/* rp_prepare_file's state: its scratch and its parent cache. */
struct rp_prep_cursor {
	uint64_t *buf, rng;
	struct pcache pc;
};

int rp_prepare_file(int dirfd, const struct rp_layout *l, uint32_t i, int sparse,
		    struct rp_prep_cursor **cur, char *err, size_t errlen)
{
	struct rp_prep_stats st = { 0 };
	struct rp_prep_cursor *c = *cur;
	const char *why;
	int rc;

	if (!c) {
		if (!(c = calloc(1, sizeof(*c))) ||
		    (!sparse && !(c->buf = malloc(PREP_CHUNK + 8)))) {
			free(c);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		c->rng = 0x9e3779b97f4a7c15ull ^ now_ns();
		c->pc.fd = -1;
		*cur = c;
	}
	rc = prep_one(dirfd, rp_file_path(l, i), &l->files[i], sparse, c->buf, &c->rng, &st, &why,
		      &c->pc);
	if (rc)
		prep_error(err, errlen, rp_file_path(l, i), rc, why);
	return rc;
}

void rp_prep_cursor_free(struct rp_prep_cursor *c)
{
	if (c) {
		pc_release(&c->pc);
		free(c->buf);
	}
	free(c);
}
