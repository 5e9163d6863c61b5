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
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "replay.h"

int rp_open_beneath(int dirfd, const char *rel, int flags, unsigned mode)
{
	struct open_how how = {
		.flags = (uint64_t)flags | O_CLOEXEC,
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
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

static int is_marked(int dirfd)
{
	struct stat st;

	return fstatat(dirfd, RP_MARKER, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode);
}

int rp_dir_open(const char *dir, int force, char *err, size_t errlen)
{
	int fd, dfd, empty = 1, mfd;
	struct dirent *de;
	DIR *d;
	static const char msg[] = "iotape replay directory: files here are "
				  "created, overwritten and deleted by iotape replay\n";

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

static int prep_one(int dirfd, const char *rel, const struct rp_file *f, int sparse,
		    uint64_t *buf, uint64_t *rng, struct rp_prep_stats *st)
{
	const char *base;
	struct stat sb;
	int pfd, fd, rc = 0;

	pfd = rp_parent_beneath(dirfd, rel, 1, &base);
	if (pfd < 0)
		return pfd;
	if (f->isdir) {
		rc = mkdirat(pfd, base, 0755) && errno != EEXIST ? -errno : 0;
		close(pfd);
		if (!rc)
			st->skipped++;
		return rc;
	}
	close(pfd);
	fd = rp_open_beneath(dirfd, rel, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return fd;
	if (fstat(fd, &sb)) {
		rc = -errno;
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		rc = -EINVAL;
		goto out;
	}
	if ((uint64_t)sb.st_size == f->size) {
		st->skipped++;
		goto out;
	}
	if (ftruncate(fd, 0) || ftruncate(fd, (off_t)f->size)) {
		rc = -errno;
		goto out;
	}
	if (!sparse) {
		for (uint64_t off = 0; off < f->size; off += PREP_CHUNK) {
			size_t n = f->size - off < PREP_CHUNK ? (size_t)(f->size - off) : PREP_CHUNK;
			fill_random(buf, (n + 7) / 8, rng);
			ssize_t w = pwrite(fd, buf, n, (off_t)off);
			if (w != (ssize_t)n) {
				rc = w < 0 ? -errno : -EIO;
				goto out;
			}
		}
	}
	/* on disk before the replay, so its reads do not wait for
	 * writeback: big files are synced, small ones only start writeback
	 * (10^6 tiny files must not cost 10^6 journal commits) */
	if (!sparse && f->size >= PREP_CHUNK && fdatasync(fd)) {
		rc = -errno;
		goto out;
	}
	if (!sparse && f->size && f->size < PREP_CHUNK)
		sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	st->created++;
	st->bytes += f->size;
out:
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

int rp_prepare(int dirfd, const struct rp_layout *l, const struct rp_prep_opts *po,
	       struct rp_prep_stats *st, char *err, size_t errlen)
{
	uint64_t *buf = malloc(PREP_CHUNK + 8), rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)now_ns();
	uint64_t total = 0, nfiles = 0, done = 0, last = now_ns();
	unsigned scale = po->scale ? po->scale : 1;
	char cpath[4096 + 32];
	int rc = 0;

	memset(st, 0, sizeof(*st));
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < l->nfiles; i++)
		if (l->files[i].prepare || l->files[i].isdir) {
			unsigned k = l->files[i].dataset ? scale : 1;
			nfiles += k;
			total += l->files[i].size * k;
		}
	/* the directories the job creates files in but did not make: there
	 * before the replay, so that its creates need no mkdir of their own */
	for (uint32_t d = 0; !rc && d < cm_strtab_count(&l->dirs); d++) {
		const char *dir = cm_strtab_str(&l->dirs, d), *base;
		char *sub;
		int pfd;
		if (l->dir_made[d])
			continue;
		if (asprintf(&sub, "%s/.", dir) < 0) {
			rc = -ENOMEM;
			break;
		}
		if ((pfd = rp_parent_beneath(dirfd, sub, 1, &base)) >= 0)
			close(pfd);
		else
			snprintf(err, errlen, "preparing '%s': %s", dir,
				 pfd == -EXDEV || pfd == -ELOOP ?
				 "a symlink leads out of DIR, refused" : strerror(-pfd));
		rc = pfd < 0 ? pfd : 0;
		free(sub);
	}
	/* copy by copy: copy 0 is the trace's own layout */
	for (size_t n = 0; !rc && n < l->nfiles * scale; n++) {
		unsigned k = (unsigned)(n / l->nfiles);
		uint32_t i = (uint32_t)(n % l->nfiles);
		const struct rp_file *f = &l->files[i];
		const char *rel;

		if ((!f->prepare && !f->isdir) || (k && !f->dataset))
			continue;
		rel = rp_copy_path(l, i, k, cpath, sizeof(cpath));
		rc = prep_one(dirfd, rel, f, po->sparse, buf, &rng, st);
		if (rc) {
			snprintf(err, errlen, "preparing '%s': %s%s", rel,
				 rc == -EXDEV || rc == -ELOOP ?
				 "a symlink leads out of DIR, refused" : strerror(-rc),
				 rc == -EINVAL ? " (not a regular file)" : "");
			break;
		}
		st->files++;
		done += f->size;
		if (po->progress && now_ns() - last > 200000000ull) {
			last = now_ns();
			po->progress(po->arg, st->files, nfiles, done, total);
		}
	}
	free(buf);
	return rc;
}

int rp_restore(int dirfd, const struct rp_layout *l, int sparse)
{
	uint64_t *buf = NULL, rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)now_ns();
	struct rp_prep_stats st = { 0 };
	int rc = 0;

	for (uint32_t i = 0; i < l->nfiles; i++) {
		const struct rp_file *f = &l->files[i];
		int e;
		if (!f->prepare || !f->modified || f->isdir)
			continue;
		if (!buf && !(buf = malloc(PREP_CHUNK + 8)))
			return -ENOMEM;
		if ((e = prep_one(dirfd, rp_file_path(l, i), f, sparse, buf, &rng, &st)) && !rc)
			rc = e;
	}
	free(buf);
	return rc;
}

