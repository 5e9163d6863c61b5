/* SPDX-License-Identifier: MIT */
/*
 * cmd_replay.c - `iotape replay`: run a recorded job's I/O against DIR.
 *
 * Parse the options, build a replay session of them (session/: the
 * source, the scenarios, the phases), run it, print: its errors and
 * warnings come here through callbacks, one line each, exit 1 (runtime)
 * or 2 (usage).  --metrics is the session's hooks from cli/live.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "live.h"
#include "opt.h"
#include "session.h"

enum {
	O_PREP_ONLY = OPT_LONG(1), O_NO_PREP, O_SPARSE, O_TIMING, O_SPEED,
	O_SCALE, O_IODEPTH, O_DIRECT_OPT, O_DROP, O_LOOPS, O_FMT, O_MEMLIMIT,
	O_SCALE_DS, O_IGNORE, O_NO_META, O_WRITERS, O_AU, O_RUNTIME, O_FIND_MAX, O_SYNC_STEPS,
	O_MPI, O_SET, O_SEED, O_METRICS, O_LINGER, O_PLACE, O_READERS, O_PREFETCH,
	O_BURST, O_DRAIN,
	O_STAGE_HOT, O_STAGE_SIZE, O_NO_HANDOVER, O_LOADER_SCALE,
};

/* Typed options go to struct ss_cfg (the engine's knobs to its rp_opts o, what else
 * a run is asked to its rp_report_opts r); the others are parse()'s. */
#define CFG struct ss_cfg
static const struct opt replay_opts[] = {
	{ 'd', "dir", "DIR", "replay under DIR (every trace path is mapped into it)",
	  NULL, NULL, OPT_REQUIRED | OPT_PATH },
	{ O_PLACE, "place", "GLOB=DIR", "prepare and replay the paths GLOB matches under DIR (an existing directory) instead of --dir",
	  NULL, NULL, OPT_MULTI },
	{ O_BURST, "burst-buffer", "FAST_DIR", "what-if: the checkpoints (as analyze finds them) are written under FAST_DIR (an existing directory)",
	  NULL, NULL, OPT_PATH },
	{ O_DRAIN, "drain", NULL, "with --burst-buffer: copy each checkpoint file to --dir in the background once closed" },
	{ O_STAGE_HOT, "stage-hot", "FAST_DIR", "what-if: the files with the most bytes read per byte, up to --stage-size, under FAST_DIR (an existing directory); the rest under --dir",
	  NULL, NULL, OPT_PATH },
	{ O_STAGE_SIZE, "stage-size", "SIZE", "with --stage-hot: the room in FAST_DIR, k/m/g/t suffixes" },
	{ 'v', "verbose", NULL, "with --stage-hot: list the files staged" },
	{ O_PREP_ONLY, "prepare-only", NULL, "create the dataset and stop" },
	{ O_NO_PREP, "no-prepare", NULL, "do not create the dataset (it must be there)" },
	{ O_SPARSE, "sparse", NULL, "prepare files as holes instead of random data" },
	{ O_TIMING, "timing", "MODE", "when ops are issued", "original|think|afap", "think",
	  OPT_T_CHOICE(CFG, o.timing) },
	{ O_SPEED, "speed", "X", "run X times faster (all recorded times / X)", NULL, "1",
	  OPT_T_DOUBLE(CFG, o.speed, 1e-3, 1e6) },
	{ O_SCALE, "compute-scale", "X", "scale think-time compute delays by X", NULL, "1",
	  OPT_T_DOUBLE(CFG, o.compute_scale, 0, 1000) },
	{ O_LOADER_SCALE, "loader-cpu-scale", "X", "what-if: the data loaders' own work (the threads that hand the training thread its data) X times faster", NULL, "1",
	  OPT_T_DOUBLE(CFG, o.loader_scale, 1e-3, 1000) },
	{ O_NO_HANDOVER, "no-handover", NULL, "replay a thread's waits for the job's other threads as delays, not as waits for them (a trace with a sched table)" },
	{ O_IODEPTH, "iodepth", "N", "at most N ops in flight per thread where the recording overlapped them", NULL, "32",
	  OPT_T_UINT(CFG, o.iodepth, 1, 65536) },
	{ O_DIRECT_OPT, "direct", NULL, "open files O_DIRECT (ops aligned to 4 KiB)" },
	{ O_DROP, "drop-caches", NULL, "drop the page cache before replaying (root)" },
	{ O_LOOPS, "loops", "N", "replay N times", NULL, "1; K with --scale-dataset",
	  OPT_T_UINT(CFG, o.loops, 1, 65536) },
	/* the replayer's own memory (code, rings, plan) is a few MiB: under a
	 * 1 MiB limit it is OOM-killed before the first op */
	{ O_MEMLIMIT, "mem-limit", "SIZE", "run in a cgroup limited to SIZE bytes of memory, k/m/g suffixes (root)",
	  OPT_T_SIZE(CFG, r.mem_limit, 8 << 20, CM_OPT_NOMAX) },
	{ O_SCALE_DS, "scale-dataset", "K", "prepare K copies of the read-only files; loop L reads copy L % K", NULL, "1",
	  OPT_T_UINT(CFG, r.scale, 1, 1024) },
	{ O_FMT, "output-format", "FORMAT", "report format", "normal|json", "normal" },
	{ 'o', "output", "FILE", "write the report to FILE instead of stdout", NULL, NULL, OPT_PATH },
	{ 'f', "force", NULL, "use a DIR that is neither empty nor prepared by iotape" },
	{ O_IGNORE, "ignore-errors", NULL, "exit 0 even when ops failed in the replay" },
	{ O_NO_META, "no-metadata", NULL, "leave the metadata ops (stat, getdents, ...) out" },
	{ 'n', "accelerators", "N", "N simulated accelerators run the job at once, each on its own copy of the data set (--find-max: at most N)",
	  NULL, "1", OPT_T_UINT(CFG, r.accelerators, 1, 1024) },
	{ O_WRITERS, "checkpoint-writers", "WHO", "which accelerators write the files the job writes",
	  "all|one", "all", OPT_T_CHOICE(CFG, r.writers) },
	{ O_AU, "au", "X", "the accelerator utilization a run must reach (pass/fail)", NULL, "0.90",
	  OPT_T_DOUBLE(CFG, r.au, 1e-3, 1) },
	{ O_RUNTIME, "runtime", "T", "stop taking ops after T (12, 1.5s, 2m): bounds each run",
	  OPT_T_DURATION(CFG, r.runtime_ns, 1000000, CM_OPT_NOMAX) },
	{ O_FIND_MAX, "find-max", NULL, "search the most accelerators whose every AU reaches --au" },
	{ O_SYNC_STEPS, "sync-steps", NULL, "accelerators wait for each other at every training step",
	  OPT_T_FLAG(CFG, r.sync_steps) },
	{ O_MPI, "mpi", NULL, "under mpirun: each rank runs its share of the accelerators, rank 0 reports" },
	{ O_READERS, "reader-threads", "N", "what-if: the data set's reads dealt over N reader threads (a job file: reader.read_threads)",
	  NULL, NULL, OPT_T_UINT(CFG, r.reader_threads, 1, 1024) },
	{ O_PREFETCH, "prefetch", "K", "what-if: reads run up to K batches ahead of compute (a job file: reader.prefetch_size)",
	  NULL, NULL, OPT_T_UINT(CFG, r.prefetch, 1, 1000000) },
	{ O_SET, "set", "SECTION.KEY=VALUE", "a job file: override a key (iotape-job(5))",
	  NULL, NULL, OPT_MULTI },
	{ O_SEED, "seed", "N", "a job file: its seed (train.seed)" },
	{ O_METRICS, "metrics", "[ADDR:]PORT", "serve live metrics (Prometheus) at http://ADDR:PORT/metrics, ADDR 127.0.0.1 unless given" },
	{ O_LINGER, "metrics-linger", "SEC", "with --metrics: keep serving SEC seconds after the end (0 to 86400)",
	  NULL, "0" },
	{ 0 }
};
#undef CFG

const struct opt_cmd replay_cmd = {
	"replay", "TRACE", "Replay the I/O of a trace under a directory, reporting like fio.",
	"Creates the files the trace reads under DIR, then issues the recorded\n"
	"ops with io_uring, one thread per recorded thread, and reports like fio.",
	replay_opts,
};

/* ------------------------------------------------- the session's voice */

struct voice {
	int printed;		/* a progress line is on stderr */
	struct timespec t0;	/* prepare's start */
};

static void v_error(void *arg, int usage, const char *msg)
{
	if (usage)
		opt_error(&replay_cmd, "%s", msg);
	else
		cli_error("%s", msg);
}

static void v_note(void *arg, const char *text)
{
	fputs(text, stderr);
}

static void v_prep(void *arg, uint64_t files, uint64_t nfiles, uint64_t bytes, uint64_t total)
{
	struct voice *v = arg;
	struct timespec t;
	double s;

	if (!v->printed && !v->t0.tv_sec)
		clock_gettime(CLOCK_MONOTONIC, &v->t0);
	clock_gettime(CLOCK_MONOTONIC, &t);
	s = (double)(t.tv_sec - v->t0.tv_sec) + (double)(t.tv_nsec - v->t0.tv_nsec) / 1e9;
	fprintf(stderr, "\riotape replay: preparing %" PRIu64 "/%" PRIu64 " files, %" PRIu64
		"/%" PRIu64 " MiB, %.0f files/s, %.0f MiB/s ", files, nfiles, bytes >> 20,
		total >> 20, s > 0 ? (double)files / s : 0, s > 0 ? (double)(bytes >> 20) / s : 0);
	v->printed = 1;
}

static void v_run(void *arg, uint64_t done, uint64_t total)
{
	struct voice *v = arg;

	fprintf(stderr, "\riotape replay: %" PRIu64 "/%" PRIu64 " ops ", done, total);
	v->printed = 1;
}

static void v_end(void *arg)
{
	struct voice *v = arg;

	if (v->printed)
		fputc('\n', stderr);
	v->printed = 0;
	v->t0.tv_sec = 0;
}

/* --metrics: the endpoint's hooks */
static int lv_hooks(void *arg, const struct rp_layout *l, unsigned loops, struct rp_hooks *h)
{
	return live_replay_hooks(*(struct live **)arg, l, loops, h);
}

static void lv_end(void *arg, const struct rp_layout *l, const struct rp_result *res)
{
	live_replay_end(*(struct live **)arg, l, res);
}

/* One --place GLOB=DIR: 0, or -1 after a usage error line. */
static int place_arg(struct ss_cfg *c, const char *arg)
{
	const char *eq = strrchr(arg, '=');

	if (!eq || eq == arg || !eq[1]) {
		opt_error(&replay_cmd, "--place: '%s' is not GLOB=DIR", arg);
		return -1;
	}
	if (c->nplace == SS_PLACE_MAX - 1) {
		opt_error(&replay_cmd, "--place: at most %d of them", SS_PLACE_MAX - 1);
		return -1;
	}
	c->place[c->nplace++] = arg;
	return 0;
}

/* The options not in the table's types, into c: -1 (usage), or 0 and
 * the report's file name in *output, the endpoint's spec in *metrics. */
static int parse(struct opt_parser *p, struct ss_cfg *c, const char **output, const char **metrics)
{
	char *end;
	int o;

	while ((o = opt_next(p)) != OPT_END) {
		switch (o) {
		case OPT_HELP: return 1;
		case OPT_ERR: return -1;
		case 'd': c->dir = p->arg; break;
		case O_PREP_ONLY: c->prep_only = 1; break;
		case O_NO_PREP: c->no_prep = 1; break;
		case O_SPARSE: c->sparse = 1; break;
		case O_DROP: c->drop = 1; break;
		case O_DIRECT_OPT: c->direct = 1; break;
		case O_LOOPS: c->loops_given = 1; break;
		case O_FMT: c->json = p->choice == 1; break;
		case 'o': *output = p->arg; break;
		case 'f': c->force = 1; break;
		case O_IGNORE: c->ignore = 1; break;
		case O_NO_META: c->no_meta = 1; break;
		case O_NO_HANDOVER: c->no_handover = 1; break;
		case 'n': c->acc_given = 1; break;
		case O_FIND_MAX: c->find = 1; break;
		case O_MPI: c->mpi = 1; break;
		case O_SET: c->sets[c->nsets++] = p->arg; break;
		case O_SEED: c->seed = p->arg; break;
		case O_BURST: c->burst_dir = p->arg; break;
		case O_DRAIN: c->drain = 1; break;
		case O_STAGE_HOT: c->stage_dir = p->arg; break;
		case O_STAGE_SIZE: c->stage_size = p->arg; break;
		case 'v': c->verbose = 1; break;
		case O_PLACE:
			if (place_arg(c, p->arg))
				return -1;
			break;
		case O_METRICS:
			if (live_check(&replay_cmd, p->arg))
				return -1;
			*metrics = p->arg;
			c->metrics = 1;
			break;
		case O_LINGER:
			c->linger = strtod(p->arg, &end);
			if (end == p->arg || *end || !(c->linger >= 0 && c->linger <= 86400))
				return opt_error(&replay_cmd, "--metrics-linger: '%s' is not a number "
						 "from 0 to 86400", p->arg), -1;
			break;
		}
	}
	return 0;
}

/* A DLIO workload (named *.yaml or *.yml): the job iotape model
 * --from-dlio makes of it, into cj.  EXIT_OK, or the exit status after one
 * error line. */
static int dlio(const char *trace, struct cm_job *cj, int *is)
{
	size_t tl = strlen(trace);

	*is = (tl > 5 && !strcmp(trace + tl - 5, ".yaml")) ||
	      (tl > 4 && !strcmp(trace + tl - 4, ".yml"));
	return *is ? model_dlio_job(trace, 0, cj) : EXIT_OK;
}

void cli_replay_defaults(struct ss_cfg *c)
{
	struct opt_parser p;

	memset(c, 0, sizeof(*c));
	opt_init_cfg(&p, &replay_cmd, c, 0, NULL);
}

/* Set up, start the endpoint, open the report's file, run. */
static int go(struct ss_replay *s, const char *output, const char *metrics, struct live **lv)
{
	FILE *out = stdout;
	int ret;

	if ((ret = ss_replay_setup(s)))
		return ret;
	/* the endpoint before any work: a port in use stops us here */
	if (metrics && live_start(lv, LIVE_REPLAY, metrics))
		return EXIT_FAIL;
	if (!ss_replay_reports(s))
		output = NULL;	/* rank 0 writes the report */
	if (output && !(out = fopen(output, "w"))) {
		cli_error("%s: %s", output, strerror(errno));
		return EXIT_FAIL;
	}
	ret = ss_replay_run(s, out, output);
	if (out != stdout && fclose(out) && ret == EXIT_OK) {
		cli_error("%s: %s", output, strerror(errno));
		ret = EXIT_FAIL;
	}
	return ret;
}

int cmd_replay(int argc, char **argv)
{
	struct ss_cfg c = { 0 };	/* the defaults are replay_opts' */
	struct voice v = { 0 };
	struct ss_ui ui = { &v, v_error, v_note, v_prep, v_run, v_end };
	struct live *lv = NULL;
	struct ss_replay *s = NULL;
	struct cm_job cj = { 0 };
	const char *output = NULL, *metrics = NULL;
	struct opt_parser p;
	int ret, is_dlio;

	if (!(c.sets = calloc((size_t)argc + 1, sizeof(*c.sets))))
		return EXIT_FAIL;
	opt_init_cfg(&p, &replay_cmd, &c, argc, argv);
	if ((ret = parse(&p, &c, &output, &metrics))) {
		free(c.sets);
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	}
	if (!(c.trace = opt_one_arg(&p, "TRACE"))) {
		free(c.sets);
		return EXIT_USAGE;
	}
	if ((ret = dlio(c.trace, &cj, &is_dlio)) != EXIT_OK) {
		cm_job_release(&cj);
		free(c.sets);
		return ret;
	}
	c.dlio = is_dlio ? &cj : NULL;
	if (ss_replay_new(&s, &c, &ui, &(struct ss_ext){ &lv, lv_hooks, lv_end })) {
		cli_error("out of memory");
		ret = EXIT_FAIL;
	} else {
		ret = ss_replay_end(s, go(s, output, metrics, &lv));
	}
	/* a last scrape sees the end, and the report is out before it */
	if (lv && ss_replay_done(s) && c.linger > 0)
		fflush(stdout);
	live_stop(lv, ss_replay_done(s) && !c.prep_only ? c.linger : 0);
	ss_replay_free(s);
	cm_job_release(&cj);
	free(c.sets);
	return ret;
}
