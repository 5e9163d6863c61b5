/* SPDX-License-Identifier: MIT */
/*
 * path.c - cm_path_normalize (the rule is in path.h).
 */
#include <errno.h>
#include <string.h>
#include "path.h"

static int is_dotdot(const char *c, size_t l)
{
	return l == 2 && c[0] == '.' && c[1] == '.';
}

int cm_path_normalize(char *p, unsigned flags)
{
	int abs = p[0] == '/';
	char *w = p;		/* end of the output (no trailing '/') */
	const char *r = p;

	if (flags & CM_PATH_NO_DOTDOT) {	/* refuse before writing */
		for (const char *c = p; *c;) {
			size_t l = strcspn(c, "/");
			if (is_dotdot(c, l))
				return -EPERM;
			c += l;
			c += *c == '/';
		}
	}
	if (abs && !(flags & CM_PATH_RELATIVE))
		w++;		/* keep the root's '/' */
	char *start = w;	/* output components begin here */
	while (*r) {
		size_t l = strcspn(r, "/");
		const char *c = r;

		r += l;
		r += *r == '/';
		if (!l || (l == 1 && c[0] == '.'))
			continue;
		if (is_dotdot(c, l)) {
			/* the last output component, unless there is none or
			 * it is a ".." that could not be removed */
			char *last = w;
			while (last > start && last[-1] != '/')
				last--;
			if (w > start && !is_dotdot(last, (size_t)(w - last))) {
				w = last > start ? last - 1 : start;
				continue;
			}
			if (abs)
				continue;	/* the root's parent is the root */
		}
		if (w > start)
			*w++ = '/';
		memmove(w, c, l);
		w += l;
	}
	*w = 0;
	return 0;
}

/* Whether path is dir or below it. */
static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || !path[n]);
}

int cm_path_is_pseudo(const char *path, const char **where)
{
	static const char *const dirs[] = { "/dev/shm", "/proc", "/sys", "/dev" };

	/* (most paths begin otherwise: a call per event) */
	if (path[0] != '/')
		return 0;
	switch (path[1]) {
	case 'd':
		if (path[2] != 'e' || path[3] != 'v')
			return 0;
		break;
	case 'p':
		if (path[2] != 'r')
			return 0;
		break;
	case 's':
		if (path[2] != 'y')
			return 0;
		break;
	default:
		return 0;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (under(path, dirs[i])) {
			if (where)
				*where = dirs[i];
			return 1;
		}
	return 0;
}
