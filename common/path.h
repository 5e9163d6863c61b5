/* SPDX-License-Identifier: MIT */
/*
 * path.h - the one path normalization of iotape.
 *
 * The recorder, the replay and compare all name files by path; they agree
 * on what two spellings of one path are by running them through this
 * function.  The rule, applied to the components between slashes:
 *   - empty components ("a//b", a trailing '/') and "." are dropped;
 *   - ".." removes the component before it (lexically: a symlink in the
 *     path is not followed, as the recorder, which sees the kernel's
 *     resolved paths, has nothing to follow); at the root it is dropped
 *     ("/.." is "/"); at the start of a relative path it stays;
 *   - with CM_PATH_NO_DOTDOT any ".." is refused instead (-EPERM), for
 *     callers that must not guess what a path from elsewhere meant;
 *   - the result starts with '/' when the input did, unless
 *     CM_PATH_RELATIVE asks for it without (an absolute path mapped under
 *     another directory); an absolute path with no components is "/",
 *     a relative one (or any path with CM_PATH_RELATIVE) "".
 * The result is never longer than the input, so it is written in place.
 */
#ifndef IOTAPE_COMMON_PATH_H
#define IOTAPE_COMMON_PATH_H

#define CM_PATH_RELATIVE (1u << 0)	/* no leading '/' in the result */
#define CM_PATH_NO_DOTDOT (1u << 1)	/* ".." is an error */

/* Normalize the NUL-terminated path p in place: 0, or -EPERM for ".."
 * under CM_PATH_NO_DOTDOT (p unchanged). */
int cm_path_normalize(char *p, unsigned flags);

/*
 * Whether an absolute path lies on a pseudo or memory file system by
 * where Linux mounts them: /proc, /sys and /dev (devtmpfs, and /dev/shm's
 * tmpfs).  For traces that do not say each file's file system; *where gets
 * the mount point ("/proc", "/sys", "/dev/shm", "/dev").  0 when not.
 */
int cm_path_is_pseudo(const char *path, const char **where);

#endif /* IOTAPE_COMMON_PATH_H */
