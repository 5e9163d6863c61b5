/* SPDX-License-Identifier: MIT */
/*
 * ss_place.c - the placement scenario, --place GLOB=DIR: the files whose
 * recorded path GLOB matches are prepared and replayed under DIR instead
 * of --dir.  --stage-hot and --burst-buffer place files too (a placement
 * each, no glob); the placements' DIRs are opened here for all three.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ss_internal.h"

/* The option that gave placement i, for messages: "--place GLOB=DIR",
 * or "--stage-hot DIR" (no glob). */
static const char *place_opt(const struct ss_replay *s, unsigned i, char *buf, size_t len)
{
	if (s->pl.glob[i])
		snprintf(buf, len, "--place %s=%s", s->pl.glob[i], s->pl.dir[i]);
	else
		snprintf(buf, len, "%s %s", s->c.burst_dir && i == s->bb.place ? "--burst-buffer" :
			 "--stage-hot", s->pl.dir[i]);
	return buf;
}

/* A --place that places no file of layout l is surely a mistake (a glob
 * written for other paths): one warning line each, naming why. */
static void place_warn(struct ss_replay *s, const struct rp_layout *l)
{
	char w[4200];

	for (unsigned i = 1; i < s->pl.n; i++) {
		size_t placed = 0, matched = 0;
		if (!s->pl.glob[i])
			continue;
		for (size_t f = 0; f < l->nfiles && !placed; f++) {
			placed += l->files[f].place == i;
			matched += rp_place_match(s->pl.glob[i], rp_file_path(l, (uint32_t)f));
		}
		if (placed)
			continue;
		if (matched)
			ss_error(s, "warning: %s places no file: those it matches are placed by an "
				 "earlier --place", place_opt(s, i, w, sizeof(w)));
		else if (l->nfiles)
			ss_error(s, "warning: %s matches no file of the trace (a path as recorded: "
				 "/%s)", place_opt(s, i, w, sizeof(w)), rp_file_path(l, 0));
		else
			ss_error(s, "warning: %s matches no file: the trace has none",
				 place_opt(s, i, w, sizeof(w)));
	}
}

/* Each placement's DIR must be there, a directory: SS_OK, or SS_FAIL
 * after one error line (before anything is prepared). */
int ss_place_dirs_check(struct ss_replay *s)
{
	struct stat sb;
	char w[4200];

	for (unsigned i = 1; i < s->pl.n; i++) {
		if (stat(s->pl.dir[i], &sb))
			return ss_error(s, "%s: %s", place_opt(s, i, w, sizeof(w)), strerror(errno));
		if (!S_ISDIR(sb.st_mode))
			return ss_error(s, "%s: not a directory", place_opt(s, i, w, sizeof(w)));
	}
	return SS_OK;
}

/* Open each placement's DIR as --dir is (its marker, refused when neither
 * empty nor ours unless force): SS_OK, or SS_FAIL after one error line. */
int ss_place_open(struct ss_replay *s)
{
	char err[512], w[4200];

	s->pl.fd[0] = s->dirfd;
	s->pl.dir[0] = s->dir;
	for (unsigned i = 1; i < s->pl.n; i++)
		if ((s->pl.fd[i] = rp_dir_open(s->pl.dir[i], s->c.force, err, sizeof(err))) < 0)
			return ss_error(s, "%s: %s", place_opt(s, i, w, sizeof(w)), err);
	return SS_OK;
}

/* The directory resolver of a run of src under dirfd (rp_places: DIR,
 * the placements, --scale-dataset's copies), set on src: *out, to free
 * after the run (its hooks and figures, rp_places_hooks and _result).  0,
 * or -1 after one error line. */
int ss_place_dirs(struct ss_replay *s, struct rp_source *src, int dirfd,
		  struct rp_places **out)
{
	int rc = s->pl.n > 1 ? rp_places_new(out, &src->layout, s->pl.fd, s->pl.n, s->c.r.scale,
					       s->c.sparse) :
			       rp_places_new(out, &src->layout, &dirfd, 1, s->c.r.scale, s->c.sparse);

	if (rc) {
		ss_error(s, "--place: %s", strerror(-rc));
		return -1;
	}
	src->dirs = rp_places_dirs(*out);
	return 0;
}

/* A placement more (--stage-hot's, --burst-buffer's: no glob): its index. */
unsigned ss_place_add(struct ss_replay *s, const char *dir)
{
	if (!s->pl.n)
		s->pl.n = 1;
	s->pl.glob[s->pl.n] = NULL;
	s->pl.dir[s->pl.n] = dir;
	s->pl.fd[s->pl.n] = -1;
	return s->pl.n++;
}

static int place_on(const struct ss_replay *s)
{
	return s->c.nplace > 0;
}

/* --place GLOB=DIR (checked as parsed: an '=' with text on each side):
 * the glob is up to the last '=' (a DIR has none, a glob may). */
static int place_check(struct ss_replay *s)
{
	for (unsigned i = 0; i < s->c.nplace; i++) {
		const char *arg = s->c.place[i], *eq = strrchr(arg, '=');
		char *g = strndup(arg, (size_t)(eq - arg));
		if (!g)
			return ss_error(s, "out of memory");
		s->pl.glob[i + 1] = g;
		s->pl.dir[i + 1] = eq + 1;
		s->pl.fd[i + 1] = -1;
	}
	if (s->c.nplace && !s->c.stage_dir)
		s->pl.n = s->c.nplace + 1;
	if (s->pl.n > 1 && (s->c.mpi || s->c.find))
		return ss_usage(s, "--place and %s exclude each other",
				s->c.mpi ? "--mpi" : "--find-max");
	return SS_OK;
}

static int place_layout(struct ss_replay *s, struct rp_layout *l)
{
	int rc;

	if ((rc = rp_layout_place(l, (const char *const *)s->pl.glob + 1, s->c.nplace)))
		return ss_error(s, "--place: %s", strerror(-rc));
	place_warn(s, l);
	return SS_OK;
}

static void place_release(struct ss_replay *s)
{
	for (unsigned i = 1; i < RP_PLACE_MAX; i++) {
		if (i < s->pl.n && s->pl.fd[i] >= 0)
			close(s->pl.fd[i]);
		free(s->pl.glob[i]);
		s->pl.glob[i] = NULL;
	}
	s->pl.n = 0;
}

const struct ss_scenario ss_place = { "place", place_on, place_check, place_layout,
				      .release = place_release };

/* The placements' section of the report (the resolver's, rp_places_section),
 * first of the sections after the jobs: a run with more than one. */
static int placements_on(const struct ss_replay *s)
{
	return s->res.nplaces > 1;
}

static int placements_report(struct ss_replay *s, FILE *f, json_t **j)
{
	struct rp_section x = rp_places_section(s->c.o.loops);

	if (f) {
		x.text(x.arg, f, &s->src->layout, &s->res);
		return 0;
	}
	return (*j = x.json(x.arg, &s->src->layout, &s->res)) ? 0 : -ENOMEM;
}

const struct ss_scenario ss_placements = { "placements", placements_on,
					   .key = "placements", .at = RP_AT_PLACEMENTS,
					   .report = placements_report };
