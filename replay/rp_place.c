/* SPDX-License-Identifier: MIT */
/*
 * rp_place.c - placements: which of several directories each file of a
 * layout lives under (--place GLOB=DIR, --stage-hot).  Data in the layout
 * only; prepare and the engine open each file beneath its placement's
 * dirfd (rp_prep.c, rp_run.c).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "replay.h"

int rp_place_match(const char *glob, const char *path)
{
	const char *base = strrchr(path, '/');

	if (!strchr(glob, '/'))
		path = base ? base + 1 : path;
	else			/* the path as recorded, '/' first, or not */
		while (*glob == '/')
			glob++;
	return fnmatch(glob, path, 0) == 0;
}

int rp_layout_place(struct rp_layout *l, const char *const *globs, size_t n)
{
	if (n >= RP_PLACE_MAX)
		return -EINVAL;
	for (size_t f = 0; f < l->nfiles; f++) {
		l->files[f].place = 0;
		for (size_t g = 0; g < n; g++)
			if (rp_place_match(globs[g], rp_file_path(l, (uint32_t)f))) {
				l->files[f].place = (uint8_t)(g + 1);
				break;
			}
	}
	return rp_layout_place_done(l);
}

int rp_layout_place_done(struct rp_layout *l)
{
	size_t nd = cm_strtab_count(&l->dirs);
	uint8_t *dp = calloc(nd ? nd : 1, 1), *set = calloc(nd ? nd : 1, 1);
	unsigned np = 1;

	if (!dp || !set) {
		free(dp);
		free(set);
		return -ENOMEM;
	}
	/* a dir that is a file of the layout (the job makes it) is where that
	 * file is placed; another, where its first file is */
	for (uint32_t d = 0; d < nd; d++) {
		uint32_t f;
		if (!cm_strtab_find(&l->paths, cm_strtab_str(&l->dirs, d), &f) && f < l->nfiles) {
			dp[d] = l->files[f].place;
			set[d] = 1;
		}
	}
	for (size_t f = 0; f < l->nfiles; f++) {
		struct rp_file *fi = &l->files[f];
		if (fi->place + 1u > np)
			np = fi->place + 1u;
		if (fi->dir != RP_NO_DIR && fi->dir < nd && !set[fi->dir]) {
			dp[fi->dir] = fi->place;
			set[fi->dir] = 1;
		}
	}
	for (size_t f = 0; f < l->nfiles; f++) {
		struct rp_file *fi = &l->files[f];
		const char *path = rp_file_path(l, (uint32_t)f), *slash = strrchr(path, '/');
		uint8_t pp = fi->place;
		fi->apart = 0;
		if (!slash)
			continue;
		if (fi->dir != RP_NO_DIR && fi->dir < nd) {
			pp = dp[fi->dir];
		} else {
			char parent[4096];
			uint32_t id;
			size_t len = (size_t)(slash - path);
			if (len < sizeof(parent)) {
				memcpy(parent, path, len);
				parent[len] = 0;
				if (!cm_strtab_find(&l->paths, parent, &id) && id < l->nfiles)
					pp = l->files[id].place;
			}
		}
		if (pp != fi->place) {
			fi->apart = 1;
			fi->dir = RP_NO_DIR;
		}
	}
	free(set);
	free(l->dir_place);
	l->dir_place = dp;
	l->nplaces = np;
	return 0;
}
