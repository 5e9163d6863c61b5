/* SPDX-License-Identifier: MIT */
/*
 * ss_stage.c - the staging scenario, --stage-hot FAST_DIR --stage-size
 * SIZE (iotape-replay(1), STAGING): the files the analysis ranks hottest
 * (bytes read per byte) are placed under FAST_DIR while they fit, the
 * rest stay under --dir; the report says what went where.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "fmt.h"
#include "parse.h"
#include "ss_internal.h"

/*
 * Choose the files to stage (iotape-replay(1), STAGING): the trace's
 * analysis ranks the files read by bytes read per byte of size; those the
 * layout replays are taken in that order while they fit in --stage-size
 * (one that does not fit is passed over, the next are tried); each taken
 * gets placement 1 (FAST_DIR), the rest stay under --dir.  0, or -1 after
 * one error line.
 */
static int stage_layout(struct ss_replay *s, struct rp_layout *l)
{
	struct ana a;
	struct ana_opts ao = { .to_ns = UINT64_MAX, .top = -1, .threads = 1 };
	struct ana_staging st = { 0 };
	struct ana_stage_file *c = NULL;
	uint8_t *seen = NULL, *chosen = NULL;
	size_t nc = 0;
	int rc, ret = SS_FAIL;

	if ((rc = ana_run(&a, s->sa.trace, &ao))) {
		if (rc == -ENOMEM)
			ss_error(s, "--stage-hot: %s: out of memory analysing it", s->sa.trace);
		else
			ss_tape_error(s, s->sa.trace, rc);
		ana_release(&a);
		return SS_FAIL;
	}
	if ((rc = ana_staging_build(&a, &st)) || (rc = ana_staging_rank(&a, &st)) ||
	    !(c = calloc(st.n + 1, sizeof(*c))) || !(chosen = calloc(st.n + 1, 1)) ||
	    !(seen = calloc(l->nfiles + 1, 1))) {
		ss_error(s, "--stage-hot: out of memory");
		goto out;
	}
	/* the ranked files the replay has, under their layout ids (a path
	 * named by two files, one replacing the other, counts once: the
	 * first, ranked higher) */
	for (size_t i = 0; i < st.n; i++) {
		char buf[ANA_PATH_BUF];
		char *rel = strdup(ana_file_path(&a, &a.files[st.f[i]], buf));
		uint32_t id;
		if (!rel) {
			ss_error(s, "--stage-hot: out of memory");
			goto out;
		}
		if (!rp_path_map(rel) && !cm_strtab_find(&l->paths, rel, &id) && id < l->nfiles &&
		    !l->files[id].isdir && !seen[id]) {
			seen[id] = 1;
			c[nc] = ana_stage_of(&a, st.f[i]);
			c[nc++].file = id;
		}
		free(rel);
	}
	ana_stage_pick(c, nc, s->sh.size, chosen);
	if (nc && !(s->sh.f = calloc(nc, sizeof(*s->sh.f)))) {
		ss_error(s, "--stage-hot: out of memory");
		goto out;
	}
	s->sh.all = nc;
	for (size_t i = 0; i < nc; i++) {
		s->sh.all_bytes += c[i].size;
		s->sh.all_read += c[i].read_bytes;
		if (!chosen[i])
			continue;
		s->sh.f[s->sh.n++] = (struct ss_staged){ c[i].file, c[i].read_bytes, c[i].size };
		s->sh.bytes += c[i].size;
		s->sh.read_bytes += c[i].read_bytes;
		l->files[c[i].file].place = 1;
	}
	if ((rc = rp_layout_place_done(l))) {
		ss_error(s, "--stage-hot: %s", strerror(-rc));
		goto out;
	}
	ret = SS_OK;
out:
	free(seen);
	free(chosen);
	free(c);
	ana_staging_release(&st);
	ana_release(&a);
	return ret;
}

/* The staging line (and with verbose each file staged), before the report. */
static void stage_text(struct ss_replay *s, FILE *out, const struct rp_layout *l, int verbose)
{
	char b1[32], b2[32], b3[32];

	cm_fmt_bytes(b1, sizeof(b1), s->sh.bytes);
	cm_fmt_bytes(b2, sizeof(b2), s->sh.size);
	cm_fmt_bytes(b3, sizeof(b3), s->sh.all_read);
	fprintf(out, "Staging: %zu of %zu files read, %s of --stage-size %s, under ", s->sh.n, s->sh.all,
		b1, b2);
	cm_put_escaped(out, s->c.stage_dir, 0);
	fprintf(out, ": %.1f%% of the %s read (by bytes read per byte, iotape-analyze(1) STAGING)\n",
		s->sh.all_read ? 100.0 * (double)s->sh.read_bytes / (double)s->sh.all_read : 0.0, b3);
	for (size_t i = 0; verbose && i < s->sh.n; i++) {
		cm_fmt_bytes(b1, sizeof(b1), s->sh.f[i].read_bytes);
		cm_fmt_bytes(b2, sizeof(b2), s->sh.f[i].size);
		fprintf(out, "  staged %10.3f %12s %12s  ", (double)s->sh.f[i].read_bytes /
			(double)s->sh.f[i].size, b1, b2);
		cm_put_escaped(out, rp_file_path(l, s->sh.f[i].id), 0);
		fputc('\n', out);
	}
}

/* The report's "staging" member: what stage_text says, every file listed. */
static json_t *stage_json(struct ss_replay *s, const struct rp_layout *l)
{
	json_t *o = json_object(), *fa = json_array(), *all = json_object();

	json_object_set_new(o, "dir", cm_json_str(s->c.stage_dir));
	json_object_set_new(o, "stage_size", cm_json_u64(s->sh.size));
	json_object_set_new(o, "files", cm_json_u64(s->sh.n));
	json_object_set_new(o, "bytes", cm_json_u64(s->sh.bytes));
	json_object_set_new(o, "read_bytes", cm_json_u64(s->sh.read_bytes));
	json_object_set_new(o, "read_fraction", s->sh.all_read ?
			    json_real((double)s->sh.read_bytes / (double)s->sh.all_read) : json_null());
	json_object_set_new(all, "files", cm_json_u64(s->sh.all));
	json_object_set_new(all, "bytes", cm_json_u64(s->sh.all_bytes));
	json_object_set_new(all, "read_bytes", cm_json_u64(s->sh.all_read));
	json_object_set_new(o, "files_read", all);
	for (size_t i = 0; i < s->sh.n; i++)
		json_array_append_new(fa, json_pack("{s:o,s:o,s:o}",
			"path", cm_json_str(rp_file_path(l, s->sh.f[i].id)),
			"read_bytes", cm_json_u64(s->sh.f[i].read_bytes),
			"size", cm_json_u64(s->sh.f[i].size)));
	json_object_set_new(o, "staged", fa);
	return o;
}


static int stage_on(const struct ss_replay *s)
{
	return s->c.stage_dir != NULL;
}

static int stage_check(struct ss_replay *s)
{
	const struct ss_cfg *c = &s->c;

	if ((c->stage_size || c->verbose) && !c->stage_dir)
		return ss_usage(s, "%s is for --stage-hot", c->stage_size ? "--stage-size" : "--verbose");
	if (!c->stage_dir)
		return SS_OK;
	if (!c->stage_size)
		return ss_usage(s, "--stage-hot needs --stage-size SIZE (the room in FAST_DIR)");
	if (cm_parse_size(c->stage_size, 1, UINT64_MAX, &s->sh.size))
		return ss_usage(s, "--stage-size: '%s' is not a size of 1 byte or more "
				"(k, m, g, t suffixes)", c->stage_size);
	if (s->sa.job)
		return ss_usage(s, "--stage-hot ranks the files by the reads a trace recorded: "
				"the job file %s has none (--place puts its files)", c->trace);
	if (c->nplace)
		return ss_usage(s, "--stage-hot and --place exclude each other (both say "
				"where files go)");
	if (c->mpi || c->find)
		return ss_usage(s, "--stage-hot and %s exclude each other",
				c->mpi ? "--mpi" : "--find-max");
	if ((c->acc_given && c->r.accelerators > 1) || c->r.scale > 1)
		return ss_usage(s, "--stage-hot and %s exclude each other (copies of the "
				"data set: which would FAST_DIR hold?)",
				c->r.scale > 1 ? "--scale-dataset" : "-n above 1");
	ss_place_add(s, c->stage_dir);
	return SS_OK;
}

/* what went where, once it is there (the JSON report has it too) */
static int stage_prepared(struct ss_replay *s, FILE *out)
{
	if (!s->c.json)
		stage_text(s, out, &s->src->layout, s->c.verbose);
	return SS_OK;
}

static int stage_report(struct ss_replay *s, FILE *f, json_t **j)
{
	if (f)
		return SS_OK;	/* (the text is out before the run) */
	if (!(*j = stage_json(s, &s->src->layout)))
		return ss_error(s, "out of memory");
	return SS_OK;
}

static void stage_release(struct ss_replay *s)
{
	free(s->sh.f);
	memset(&s->sh, 0, sizeof(s->sh));
}

const struct ss_scenario ss_stage = { "stage-hot", stage_on, stage_check, stage_layout,
				      stage_prepared, .key = "staging", .at = RP_AT_PLACEMENTS,
				      .report = stage_report,
				      .release = stage_release };
