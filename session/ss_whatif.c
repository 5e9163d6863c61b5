/* SPDX-License-Identifier: MIT */
/*
 * ss_whatif.c - the what-ifs of a trace (iotape-whatif(1)): the trace's
 * facts they need (its analysis and its replay source: reader threads,
 * data loaders, checkpoints, the staging room), the what-ifs that apply,
 * and each one run as a replay session in this process, its numbers taken
 * from the session's report callback (struct ss_summary).
 *
 *   stage-hot     --stage-hot FAST --stage-size SIZE   (the trace reads files; FAST)
 *   burst-buffer  --burst-buffer FAST --drain          (the trace checkpoints; FAST)
 *   readers-2x/4x --reader-threads 2R / 4R             (R recorded reader threads)
 *   loaders-2x    --loader-cpu-scale 2                 (the trace's data loaders)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "analyze.h"
#include "fmt.h"
#include "trace.h"
#include "ss_internal.h"

static struct ss_wi_run *wi_add(struct ss_whatif *w, const char *name, enum ss_wi_kind kind)
{
	struct ss_wi_run *r = &w->run[w->n++];

	snprintf(r->name, sizeof(r->name), "%s", name);
	r->kind = kind;
	r->ckpt_s = -1;
	return r;
}

/* The trace's facts the what-ifs need: its reader threads (as the
 * replay's reader what-if finds them), data loaders, checkpoints and bytes
 * read; the staging room, unless given: the fewest files that carry 80% of
 * the reads.  0, or -1 with why in err. */
static int wi_facts(struct ss_whatif *w, char *err, size_t errlen)
{
	struct rp_trace_opts to = { .reader_threads = 1 };
	struct ana_opts ao = { .top = -1, .to_ns = UINT64_MAX, .threads = 2 };
	struct rp_source *src = NULL;
	struct ana_staging stg;
	struct ana a;
	int rc;

	rc = ana_run(&a, w->trace, &ao);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "%s: out of memory", w->trace);
		else
			cm_trace_error(err, errlen, w->trace, rc);
		return -1;
	}
	/* the training thread, as the replay finds its loaders from it, and
	 * the data set, as its readers are found from it (its paths in one
	 * block, as ss_trace_trainer gives them) */
	if (a.train.found)
		to.train_tid = a.train.tid;
	const char **ds;
	void *blk = ss_dataset_paths(&a, 0, &ds, &to.ndataset);
	if (!blk) {
		snprintf(err, errlen, "%s: out of memory", w->trace);
		ana_release(&a);
		return -1;
	}
	to.has_dataset = 1;
	to.dataset = ds;
	err[0] = 0;
	rc = rp_trace_open(&src, w->trace, &to, err, errlen);
	free(blk);
	if (rc == 0) {
		w->readers = src->layout.readers_recorded;
		for (size_t i = 0; i < src->layout.nthreads; i++)
			w->loaders += src->layout.threads[i].loader;
	} else if (rc != -ENOENT) {
		if (!err[0])
			snprintf(err, errlen, "%s", strerror(-rc));
		ana_release(&a);
		return -1;
	}
	rp_source_free(src);
	uint64_t mb;
	w->mapped = ana_mmap_dataset(&a, &mb) != ANA_NONE;
	w->ckpts = a.nckpts;	/* ana_ckpt_find's, as analyze reports them */
	if ((rc = ana_staging_build(&a, &stg))) {
		snprintf(err, errlen, "%s: out of memory", w->trace);
		ana_release(&a);
		return -1;
	}
	w->read_bytes = stg.read_bytes;
	for (size_t i = 0; i < ANA_STAGE_LEVELS; i++)
		if (!w->stage_size && stg.lv[i].pct == 80)
			w->stage_size = stg.lv[i].bytes;
	ana_staging_release(&stg);
	ana_release(&a);
	return 0;
}

int ss_whatif_plan(struct ss_whatif *w, char *err, size_t errlen)
{
	struct ss_wi_run *r;
	char sz[32];

	if (wi_facts(w, err, errlen))
		return -1;
	r = wi_add(w, "baseline", SS_WI_BASE);
	snprintf(r->what, sizeof(r->what), "as recorded, under DIR");
	if (w->fast && w->read_bytes && w->stage_size) {
		r = wi_add(w, "stage-hot", SS_WI_STAGE);
		cm_fmt_bytes(sz, sizeof(sz), w->stage_size);
		snprintf(r->what, sizeof(r->what), "hot files on FAST_DIR (%s)", sz);
		snprintf(r->argbuf, sizeof(r->argbuf), "%" PRIu64, w->stage_size);
		r->says = "the storage holds back the data set's reads";
		r->args[0] = "--stage-hot";
		r->args[1] = w->fast;
		r->args[2] = "--stage-size";
		r->args[3] = r->argbuf;
	}
	if (w->fast && w->ckpts) {
		r = wi_add(w, "burst-buffer", SS_WI_BURST);
		snprintf(r->what, sizeof(r->what), "checkpoints to FAST_DIR, drained to DIR");
		r->says = "the storage holds back the checkpoints";
		r->args[0] = "--burst-buffer";
		r->args[1] = w->fast;
		r->args[2] = "--drain";
	}
	for (unsigned k = 2; w->readers && !w->mapped && k <= 4; k *= 2) {
		char name[32];

		snprintf(name, sizeof(name), "readers-%ux", k);
		r = wi_add(w, name, SS_WI_READERS);
		r->readers = k * w->readers;
		snprintf(r->what, sizeof(r->what), "%u reader threads (recorded %u)",
			 k * w->readers, w->readers);
		snprintf(r->argbuf, sizeof(r->argbuf), "%u", k * w->readers);
		r->says = "the reads want more of them in flight";
		r->args[0] = "--reader-threads";
		r->args[1] = r->argbuf;
	}
	if (w->loaders) {
		r = wi_add(w, "loaders-2x", SS_WI_LOADERS);
		snprintf(r->what, sizeof(r->what), "data loaders' work 2x faster (%u thread%s)",
			 w->loaders, w->loaders == 1 ? "" : "s");
		r->says = "the job waits for its data loaders' CPUs, not for its storage";
		r->args[0] = "--loader-cpu-scale";
		r->args[1] = "2";
	}
	return 0;
}

/* A run's summary, from its report (ss_ext.report). */
struct wi_report {
	struct ss_wi_run *r;
	const char *path;	/* the JSON report's */
	int got;		/* 1: the numbers; -1: no AU; 0: none came */
};

static void wi_summary(void *arg, const struct ss_summary *sum)
{
	struct wi_report *rep = arg;
	struct ss_wi_run *r = rep->r;

	if (sum->au_na) {	/* the report's scale.au_min is null */
		snprintf(r->err, sizeof(r->err), "%.120s: no scale.au_min, runtime_ns or read_bw_bytes",
			 rep->path ? rep->path : "the report");
		rep->got = -1;
		return;
	}
	rep->got = 1;
	r->au = sum->au_min;
	r->job_s = (double)sum->wall_ns / 1e9;
	r->read_bw = (double)sum->read_bw;
	r->ops_failed = sum->ops_failed;
	r->ckpt_s = sum->burst ? (double)sum->burst_seen_ns / 1e9 : -1;
	/* cut by --runtime: the whole job's time at the pace of this run */
	if (sum->runtime_limit_ns && sum->ops_done && sum->ops_done < sum->ops_expected) {
		r->job_s *= (double)sum->ops_expected / (double)sum->ops_done;
		r->estimated = 1;
	}
}

/* What run r asks of the replay: base and the what-if's options. */
static void wi_cfg(const struct ss_whatif *w, const struct ss_wi_run *r, struct ss_cfg *c)
{
	c->trace = w->trace;
	c->dir = w->dir;
	c->r.runtime_ns = w->runtime_ns;
	c->json = 1;
	c->force = w->force;
	c->drop = w->drop;
	switch (r->kind) {
	case SS_WI_STAGE:
		c->stage_dir = w->fast;
		c->stage_size = r->argbuf;
		break;
	case SS_WI_BURST:
		c->burst_dir = w->fast;
		c->drain = 1;
		break;
	case SS_WI_READERS:
		c->r.reader_threads = r->readers;
		break;
	case SS_WI_LOADERS:
		c->o.loader_scale = 2;
		break;
	case SS_WI_BASE:
		break;
	}
	/* the checkpoints' time, where no what-if moves them: DIR as its own
	 * burst buffer (nothing moves; replay's checkpoint hook times them) */
	if (w->ckpts && r->kind != SS_WI_STAGE && r->kind != SS_WI_BURST)
		c->burst_dir = w->dir;
}

int ss_whatif_run(const struct ss_whatif *w, struct ss_wi_run *r, const struct ss_cfg *base,
		  const struct ss_ui *ui, FILE *report, const char *report_name)
{
	struct wi_report wr = { r, report_name, 0 };
	struct ss_ext ext = { .arg = &wr, .report = wi_summary };
	struct ss_replay *s = NULL;
	struct ss_cfg c = *base;
	int st;

	wi_cfg(w, r, &c);
	if (ss_replay_new(&s, &c, ui, &ext))
		return -ENOMEM;
	st = ss_replay_setup(s);
	if (st == SS_OK)
		st = ss_replay_run(s, report, report_name);
	st = ss_replay_end(s, st);
	ss_replay_free(s);
	r->status = st;
	if (st != SS_OK)
		r->err[0] = 0;	/* the caller's: its last message line */
	if (st == SS_OK && wr.got != 1) {
		if (!wr.got)
			snprintf(r->err, sizeof(r->err), "%.120s: no report",
				 report_name ? report_name : "the run");
		r->status = SS_FAIL;
	}
	return 0;
}

size_t ss_whatif_best(const struct ss_whatif *w)
{
	size_t best = 0;

	if (w->run[0].status)
		return 0;
	for (size_t i = 1; i < w->n; i++)
		if (!w->run[i].status && w->run[i].au >= w->run[0].au + SS_WI_GAIN &&
		    (!best || w->run[i].au > w->run[best].au))
			best = i;
	return best;
}

/* The what-ifs' results as one JSON object (whatif --json). */
int ss_whatif_json(const struct ss_whatif *w, FILE *f)
{
	json_t *root = json_object(), *arr = json_array();
	const struct ss_wi_run *b = &w->run[0];
	int rc;

	if (!root || !arr)
		goto oom;
	json_object_set_new(root, "trace", json_string(w->trace));
	json_object_set_new(root, "dir", json_string(w->dir));
	json_object_set_new(root, "fast", w->fast ? json_string(w->fast) : json_null());
	json_object_set_new(root, "runtime_limit_ns", cm_json_u64(w->runtime_ns));
	json_object_set_new(root, "recorded_reader_threads", json_integer(w->readers));
	json_object_set_new(root, "loader_threads", json_integer(w->loaders));
	json_object_set_new(root, "checkpoints", json_integer((json_int_t)w->ckpts));
	for (size_t i = 0; i < w->n; i++) {
		const struct ss_wi_run *r = &w->run[i];
		json_t *o = json_object(), *a = json_array();

		if (!o || !a || json_array_append_new(arr, o))
			goto oom;
		json_object_set_new(o, "name", json_string(r->name));
		json_object_set_new(o, "change", json_string(r->what));
		for (size_t k = 0; k < SS_WI_ARGS && r->args[k]; k++)
			json_array_append_new(a, json_string(r->args[k]));
		json_object_set_new(o, "replay_options", a);
		json_object_set_new(o, "ok", json_boolean(!r->status));
		if (r->status) {
			json_object_set_new(o, "error", json_string(r->err));
			continue;
		}
		json_object_set_new(o, "au", json_real(r->au));
		json_object_set_new(o, "job_time_s", json_real(r->job_s));
		json_object_set_new(o, "job_time_estimated", json_boolean(r->estimated));
		json_object_set_new(o, "read_bw_bytes", json_real(r->read_bw));
		json_object_set_new(o, "checkpoint_time_s",
				    r->ckpt_s >= 0 ? json_real(r->ckpt_s) : json_null());
		if (i && !b->status) {
			json_object_set_new(o, "job_time_change", json_real((r->job_s - b->job_s) / b->job_s));
			json_object_set_new(o, "au_change", json_real(r->au - b->au));
		}
	}
	json_object_set_new(root, "whatifs", arr);
	size_t best = ss_whatif_best(w);
	json_object_set_new(root, "helps_most", best ? json_string(w->run[best].name) : json_null());
	rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(root);
	fputc('\n', f);
	return rc ? -EIO : 0;
oom:
	json_decref(arr);
	json_decref(root);
	return -ENOMEM;
}
