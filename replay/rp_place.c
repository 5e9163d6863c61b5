/* SPDX-License-Identifier: MIT */
/*
 * rp_place.c - placements: which of several directories each file of a
 * layout lives under (--place GLOB=DIR, --stage-hot, --burst-buffer), set
 * in the layout; prepare opens each file beneath its placement's dirfd
 * (rp_prep.c).  And rp_places: DIR, its placements and the data set's
 * copies (--scale-dataset) as the directory resolver the engine opens
 * files through (rp_dirs), with the hooks that count per placement and
 * per copy for the report.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
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

/* ------------------------------------------- the resolver, the figures */

struct place_thread {		/* a replay thread's figures */
	struct rp_dir_stats *d;	/* per placement p, d[3p + 0 read, 1 write,
				 * 2 sync] (n > 1; else NULL) */
	size_t budget;		/* cm_lat_add's: 0, histograms from the start */
};

struct rp_places {
	const struct rp_layout *l;
	int fds[RP_PLACE_MAX];	/* per placement; fds[0] DIR's */
	unsigned n;
	unsigned copies;	/* --scale-dataset K */
	unsigned copy;		/* the copy the current loop reads */
	int sparse;
	_Atomic uint64_t *copy_bytes;	/* per copy: data set bytes read */
	struct place_thread *th;	/* per layout thread */
};

int rp_places_new(struct rp_places **out, const struct rp_layout *l, const int *fds,
		  unsigned n, unsigned copies, int sparse)
{
	struct rp_places *p;

	*out = NULL;
	if (!n || n < (l->nplaces ? l->nplaces : 1) || n > RP_PLACE_MAX)
		return -EINVAL;
	if (!(p = calloc(1, sizeof(*p))))
		return -ENOMEM;
	p->l = l;
	memcpy(p->fds, fds, n * sizeof(*fds));
	p->n = n;
	p->copies = copies ? copies : 1;
	p->sparse = sparse;
	p->copy_bytes = calloc(p->copies, sizeof(*p->copy_bytes));
	p->th = calloc(l->nthreads ? l->nthreads : 1, sizeof(*p->th));
	for (size_t t = 0; n > 1 && p->th && t < l->nthreads; t++)
		if (!(p->th[t].d = calloc(3u * n, sizeof(*p->th[t].d))))
			break;
	if (!p->copy_bytes || !p->th || (n > 1 && l->nthreads && !p->th[l->nthreads - 1].d)) {
		rp_places_free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

/* The fd of placement pl (one not given: DIR's). */
static int place_fd(const struct rp_places *p, unsigned pl)
{
	return pl < p->n ? p->fds[pl] : p->fds[0];
}

static int pl_file(void *arg, uint32_t f, const char **path, char *buf, size_t len)
{
	const struct rp_places *p = arg;

	if (path)
		*path = rp_copy_path(p->l, f, p->copy, buf, len);
	return place_fd(p, f < p->l->nfiles ? p->l->files[f].place : 0);
}

static int pl_dir(void *arg, uint32_t d)
{
	const struct rp_places *p = arg;

	return place_fd(p, p->l->dir_place ? p->l->dir_place[d] : 0);
}

/* A link cannot lead from one placement to another beneath DIR, and the
 * links lead to a data set file's copy 0 (that of accelerator 0: a
 * replica's copies are named RP_COPY_DIR too). */
static int pl_via(void *arg, uint32_t f, uint32_t g)
{
	const struct rp_places *p = arg;
	const struct rp_file *fi = &p->l->files[f];

	return p->l->files[g].place == fi->place &&
	       !(fi->dataset && (p->copy || !strncmp(rp_file_path(p->l, f), RP_COPY_DIR,
						     sizeof(RP_COPY_DIR) - 1)));
}

static int pl_loop(void *arg, unsigned loop)
{
	struct rp_places *p = arg;
	int clean = !loop;

	p->copy = loop % p->copies;
	for (unsigned i = 0; i < p->n; i++)	/* (each DIR's marker is taken) */
		clean = !loop && rp_take_prepared(p->fds[i]) && clean;
	if (!clean)
		rp_restore_places(p->fds, p->l, p->sparse);
	return clean;
}

struct rp_dirs rp_places_dirs(struct rp_places *p)
{
	return (struct rp_dirs){ p, pl_file, pl_dir, pl_via, pl_loop };
}

/* A data op done: its bytes, and its placement's figures (the thread's own:
 * no lock). */
static void pl_op(void *arg, const struct rp_op_done *d)
{
	struct rp_places *p = arg;
	const struct rp_file *fi;

	if ((d->kind != CM_READ && d->kind != CM_WRITE) || d->res < 0 ||
	    (d->flags & (RP_F_SKIP | RP_F_STEP)) || d->file >= p->l->nfiles)
		return;
	fi = &p->l->files[d->file];
	if (d->kind == CM_READ && fi->dataset)
		atomic_fetch_add_explicit(&p->copy_bytes[p->copy], (uint64_t)d->res,
					  memory_order_relaxed);
	if (p->n > 1 && d->thread < p->l->nthreads) {
		struct place_thread *t = &p->th[d->thread];
		struct rp_dir_stats *s = &t->d[3u * fi->place + (d->kind == CM_READ ? 0 : 1)];
		s->ios++;
		s->bytes += (uint64_t)d->res;
		cm_lat_add(&s->clat, d->clat_ns, &t->budget);
		cm_lat_add(&s->lat, d->lat_ns, &t->budget);
	}
}

void rp_places_hooks(struct rp_places *p, struct rp_hooks *h)
{
	*h = (struct rp_hooks){ .arg = p, .op = pl_op };
}

int rp_places_result(struct rp_places *p, struct rp_result *res)
{
	free(res->copy_bytes);
	res->ncopies = 0;
	if (!(res->copy_bytes = malloc(p->copies * sizeof(*res->copy_bytes))))
		return -ENOMEM;
	for (unsigned k = 0; k < p->copies; k++)
		res->copy_bytes[k] = atomic_load(&p->copy_bytes[k]);
	res->ncopies = p->copies;
	if (p->n <= 1)
		return 0;
	for (size_t i = 0; i < res->njobs && i < p->l->nthreads; i++) {
		res->jobs[i].place = p->th[i].d;	/* moved */
		p->th[i].d = NULL;
	}
	res->nplaces = p->n;
	return 0;
}

void rp_places_free(struct rp_places *p)
{
	if (!p)
		return;
	for (size_t t = 0; p->th && t < p->l->nthreads; t++) {
		for (unsigned k = 0; p->th[t].d && k < 3u * p->n; k++) {
			cm_lat_release(&p->th[t].d[k].clat);
			cm_lat_release(&p->th[t].d[k].lat);
		}
		free(p->th[t].d);
	}
	free(p->th);
	free((void *)p->copy_bytes);
	free(p);
}

/* ------------------------------------------------ the placements' section */

/* Placement p's stats summed over the jobs, in d[3]; the files it holds
 * and their recorded reads. */
static void place_total(const struct rp_layout *l, const struct rp_result *res, unsigned p,
			struct rp_dir_stats d[3], uint64_t *files, uint64_t *rbytes)
{
	size_t none = 0;

	memset(d, 0, 3 * sizeof(*d));
	for (size_t i = 0; i < res->njobs; i++)
		for (int k = 0; res->jobs[i].place && k < 3; k++) {
			const struct rp_dir_stats *s = &res->jobs[i].place[3u * p + (unsigned)k];
			d[k].ios += s->ios;
			d[k].bytes += s->bytes;
			d[k].short_ios += s->short_ios;
			d[k].drop_ios += s->drop_ios;
			cm_lat_merge(&d[k].clat, &s->clat, &none);
			cm_lat_merge(&d[k].lat, &s->lat, &none);
		}
	*files = *rbytes = 0;
	for (size_t i = 0; i < l->nfiles; i++)
		if (l->files[i].place == p && !l->files[i].isdir && !l->files[i].made_dir) {
			++*files;
			*rbytes += l->files[i].rbytes;
		}
}

static void place_release_stats(struct rp_dir_stats d[3])
{
	for (int k = 0; k < 3; k++) {
		cm_lat_release(&d[k].clat);
		cm_lat_release(&d[k].lat);
	}
}

static const char *place_name(const struct rp_result *res, unsigned p)
{
	return res->place_names && res->place_names[p] ? res->place_names[p] : "";
}

static void places_text(void *arg, FILE *f, const struct rp_layout *l,
			const struct rp_result *res)
{
	uint64_t loops = (uintptr_t)arg;
	char b1[32];

	for (unsigned p = 0; res->nplaces > 1 && p < res->nplaces; p++) {
		struct rp_dir_stats d[3];
		uint64_t nf, rb;
		place_total(l, res, p, d, &nf, &rb);
		cm_fmt_bytes(b1, sizeof(b1), rb * loops);
		fprintf(f, "\nPlacement %u%s (%s): %" PRIu64 " files, %s recorded reads\n", p,
			p ? "" : ", --dir", place_name(res, p), nf, b1);
		for (int k = 0; k < 3; k++)
			rp_dir_text(f, rp_dir_names[k], &d[k], res->wall_ns);
		place_release_stats(d);
	}
}

static json_t *places_json(void *arg, const struct rp_layout *l, const struct rp_result *res)
{
	uint64_t loops = (uintptr_t)arg;
	json_t *a = json_array();

	for (unsigned p = 0; a && p < res->nplaces; p++) {
		struct rp_dir_stats d[3];
		uint64_t nf, rb;
		json_t *po = json_object();
		place_total(l, res, p, d, &nf, &rb);
		json_object_set_new(po, "placement", json_integer(p));
		json_object_set_new(po, "dir", cm_json_str(place_name(res, p)));
		json_object_set_new(po, "files", cm_json_u64(nf));
		json_object_set_new(po, "recorded_read_bytes", cm_json_u64(rb * loops));
		for (int k = 0; k < 3; k++)
			json_object_set_new(po, rp_dir_names[k], rp_dir_json(&d[k], res->wall_ns));
		place_release_stats(d);
		if (json_array_append_new(a, po)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

struct rp_section rp_places_section(unsigned loops)
{
	return (struct rp_section){ "placements", RP_AT_PLACEMENTS, (void *)(uintptr_t)loops,
				    places_text, places_json };
}
