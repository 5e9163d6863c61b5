/* SPDX-License-Identifier: MIT */
/*
 * cmd_replay.c - `iotape replay`: run a recorded job's I/O against DIR.
 *
 * Phases, one function each: parse options; open the trace source
 * (rp_trace_open: the layout; paths confined, "..": refused); open DIR
 * (empty or marked unless --force) and enter the --mem-limit cgroup
 * (before prepare, so the page cache the prepared data fills is charged
 * to it); prepare the dataset; optionally drop caches; run the engine
 * (progress through a hook); report.  Only this file prints; errors are
 * one line, exit 1 (runtime) or 2 (usage).
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include "analyze.h"
#include "cli.h"
#include "job.h"
#include "fmt.h"
#include "parse.h"
#include "live.h"
#include "opt.h"
#include "replay.h"
#include "rp_mpi.h"
#include "tape.h"

enum {
	O_PREP_ONLY = OPT_LONG(1), O_NO_PREP, O_SPARSE, O_TIMING, O_SPEED,
	O_SCALE, O_IODEPTH, O_DIRECT_OPT, O_DROP, O_LOOPS, O_FMT, O_MEMLIMIT,
	O_SCALE_DS, O_IGNORE, O_NO_META, O_WRITERS, O_AU, O_RUNTIME, O_FIND_MAX, O_SYNC_STEPS,
	O_MPI, O_SET, O_SEED, O_METRICS, O_LINGER, O_PLACE, O_READERS, O_PREFETCH,
	O_BURST, O_DRAIN,
	O_STAGE_HOT, O_STAGE_SIZE, O_NO_HANDOVER, O_LOADER_SCALE,
};

/* Typed options go to struct rp_opts; the others are taken in cmd_replay(). */
#define CFG struct rp_opts
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
	  OPT_T_CHOICE(CFG, timing) },
	{ O_SPEED, "speed", "X", "run X times faster (all recorded times / X)", NULL, "1",
	  OPT_T_DOUBLE(CFG, speed, 1e-3, 1e6) },
	{ O_SCALE, "compute-scale", "X", "scale think-time compute delays by X", NULL, "1",
	  OPT_T_DOUBLE(CFG, compute_scale, 0, 1000) },
	{ O_LOADER_SCALE, "loader-cpu-scale", "X", "what-if: the data loaders' own work (the threads that hand the training thread its data) X times faster", NULL, "1",
	  OPT_T_DOUBLE(CFG, loader_scale, 1e-3, 1000) },
	{ O_NO_HANDOVER, "no-handover", NULL, "replay a thread's waits for the job's other threads as delays, not as waits for them (a trace with a sched table)" },
	{ O_IODEPTH, "iodepth", "N", "at most N ops in flight per thread where the recording overlapped them", NULL, "32",
	  OPT_T_UINT(CFG, iodepth, 1, 65536) },
	{ O_DIRECT_OPT, "direct", NULL, "open files O_DIRECT (ops aligned to 4 KiB)",
	  OPT_T_FLAG(CFG, direct) },
	{ O_DROP, "drop-caches", NULL, "drop the page cache before replaying (root)" },
	{ O_LOOPS, "loops", "N", "replay N times", NULL, "1; K with --scale-dataset",
	  OPT_T_UINT(CFG, loops, 1, 65536) },
	/* the replayer's own memory (code, rings, plan) is a few MiB: under a
	 * 1 MiB limit it is OOM-killed before the first op */
	{ O_MEMLIMIT, "mem-limit", "SIZE", "run in a cgroup limited to SIZE bytes of memory, k/m/g suffixes (root)",
	  OPT_T_SIZE(CFG, mem_limit, 8 << 20, CM_OPT_NOMAX) },
	{ O_SCALE_DS, "scale-dataset", "K", "prepare K copies of the read-only files; loop L reads copy L % K", NULL, "1",
	  OPT_T_UINT(CFG, scale, 1, 1024) },
	{ O_FMT, "output-format", "FORMAT", "report format", "normal|json", "normal" },
	{ 'o', "output", "FILE", "write the report to FILE instead of stdout", NULL, NULL, OPT_PATH },
	{ 'f', "force", NULL, "use a DIR that is neither empty nor prepared by iotape" },
	{ O_IGNORE, "ignore-errors", NULL, "exit 0 even when ops failed in the replay" },
	{ O_NO_META, "no-metadata", NULL, "leave the metadata ops (stat, getdents, ...) out" },
	{ 'n', "accelerators", "N", "N simulated accelerators run the job at once, each on its own copy of the data set (--find-max: at most N)",
	  NULL, "1", OPT_T_UINT(CFG, accelerators, 1, 1024) },
	{ O_WRITERS, "checkpoint-writers", "WHO", "which accelerators write the files the job writes",
	  "all|one", "all", OPT_T_CHOICE(CFG, writers) },
	{ O_AU, "au", "X", "the accelerator utilization a run must reach (pass/fail)", NULL, "0.90",
	  OPT_T_DOUBLE(CFG, au, 1e-3, 1) },
	{ O_RUNTIME, "runtime", "T", "stop taking ops after T (12, 1.5s, 2m): bounds each run",
	  OPT_T_DURATION(CFG, runtime_ns, 1000000, CM_OPT_NOMAX) },
	{ O_FIND_MAX, "find-max", NULL, "search the most accelerators whose every AU reaches --au" },
	{ O_SYNC_STEPS, "sync-steps", NULL, "accelerators wait for each other at every training step",
	  OPT_T_FLAG(CFG, sync_steps) },
	{ O_MPI, "mpi", NULL, "under mpirun: each rank runs its share of the accelerators, rank 0 reports" },
	{ O_READERS, "reader-threads", "N", "what-if: the data set's reads dealt over N reader threads (a job file: reader.read_threads)",
	  NULL, NULL, OPT_T_UINT(CFG, reader_threads, 1, 1024) },
	{ O_PREFETCH, "prefetch", "K", "what-if: reads run up to K batches ahead of compute (a job file: reader.prefetch_size)",
	  NULL, NULL, OPT_T_UINT(CFG, prefetch, 1, 1000000) },
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

/* read_bytes of /proc/self/io: what the storage delivered to us. */
static uint64_t io_read_bytes(void)
{
	char buf[512], *p;
	int fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strstr(buf, "\nread_bytes: ");
	return p ? strtoull(p + 13, NULL, 10) : 0;
}

static int drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "3\n", 2) != 2) {
		int e = errno;
		close(fd);
		return -e;
	}
	return close(fd) ? -errno : 0;
}

/* ------------------------------------------------------------ --place */

/* --place: the placements; fds[0] is --dir's (set once it is open) */
static struct {
	unsigned n;	/* 1 + the --place options (0: none given) */
	char *glob[RP_PLACE_MAX];
	const char *dir[RP_PLACE_MAX];
	int fd[RP_PLACE_MAX];
} PL;


/* One --place GLOB=DIR: 0, or -1 after a usage error line. */
static int place_arg(const char *arg)
{
	const char *eq = strrchr(arg, '=');

	if (!PL.n)
		PL.n = 1;
	if (!eq || eq == arg || !eq[1]) {
		opt_error(&replay_cmd, "--place: '%s' is not GLOB=DIR", arg);
		return -1;
	}
	if (PL.n == RP_PLACE_MAX) {
		opt_error(&replay_cmd, "--place: at most %d of them", RP_PLACE_MAX - 1);
		return -1;
	}
	/* the glob is arg up to the '=' (the last: a DIR has none, a glob may) */
	char *g = strndup(arg, (size_t)(eq - arg));
	if (!g) {
		opt_error(&replay_cmd, "out of memory");
		return -1;
	}
	PL.glob[PL.n] = g;
	PL.dir[PL.n] = eq + 1;
	PL.fd[PL.n++] = -1;
	return 0;
}

/* --burst-buffer FAST_DIR [--drain]: a placement of the checkpoints'
 * files, after --place's (PL.glob NULL) */
static struct {
	const char *dir;
	int drain;
	unsigned place;
	struct rp_burst_plan *plan;
	size_t n;
	unsigned nckpts;
	struct rp_burst *b;
} BB;

/* The option that gave placement i, for messages: "--place GLOB=DIR",
 * or "--stage-hot DIR" (no glob). */
static const char *place_opt(unsigned i, char *buf, size_t len)
{
	if (PL.glob[i])
		snprintf(buf, len, "--place %s=%s", PL.glob[i], PL.dir[i]);
	else
		snprintf(buf, len, "%s %s", BB.dir && i == BB.place ? "--burst-buffer" : "--stage-hot",
			 PL.dir[i]);
	return buf;
}

/* A --place that places no file of layout l is surely a mistake (a glob
 * written for other paths): one warning line each, naming why. */
static void place_warn(const struct rp_layout *l)
{
	char w[4200];

	for (unsigned i = 1; i < PL.n; i++) {
		size_t placed = 0, matched = 0;
		if (!PL.glob[i])
			continue;
		for (size_t f = 0; f < l->nfiles && !placed; f++) {
			placed += l->files[f].place == i;
			matched += rp_place_match(PL.glob[i], rp_file_path(l, (uint32_t)f));
		}
		if (placed)
			continue;
		if (matched)
			cli_error("warning: %s places no file: those it matches are placed by an "
				  "earlier --place", place_opt(i, w, sizeof(w)));
		else if (l->nfiles)
			cli_error("warning: %s matches no file of the trace (a path as recorded: "
				  "/%s)", place_opt(i, w, sizeof(w)), rp_file_path(l, 0));
		else
			cli_error("warning: %s matches no file: the trace has none",
				  place_opt(i, w, sizeof(w)));
	}
}

/* Each placement's DIR must be there, a directory: 0, or -1 after one
 * error line (before anything is prepared). */
static int place_dirs_check(void)
{
	struct stat sb;
	char w[4200];

	for (unsigned i = 1; i < PL.n; i++) {
		if (stat(PL.dir[i], &sb)) {
			cli_error("%s: %s", place_opt(i, w, sizeof(w)), strerror(errno));
			return -1;
		}
		if (!S_ISDIR(sb.st_mode)) {
			cli_error("%s: not a directory", place_opt(i, w, sizeof(w)));
			return -1;
		}
	}
	return 0;
}

/* Open each placement's DIR as --dir is (its marker, refused when neither
 * empty nor ours unless force): 0, or -1 after one error line. */
static int place_open(const char *dir, int dirfd, int force)
{
	char err[512], w[4200];

	PL.fd[0] = dirfd;
	PL.dir[0] = dir;
	for (unsigned i = 1; i < PL.n; i++)
		if ((PL.fd[i] = rp_dir_open(PL.dir[i], force, err, sizeof(err))) < 0) {
			cli_error("%s: %s", place_opt(i, w, sizeof(w)), err);
			return -1;
		}
	return 0;
}

/* ----------------------------------------------------- --burst-buffer */


/* Place the checkpoints of trace under FAST_DIR (a placement more): 0, or
 * the exit status after one error line. */
static int burst_setup(const char *trace, struct rp_layout *l)
{
	struct stat sb;
	int rc;

	errno = 0;
	if (stat(BB.dir, &sb) || !S_ISDIR(sb.st_mode)) {
		int e = errno;
		cli_error("--burst-buffer %s: %s", BB.dir, e ? strerror(e) : "not a directory");
		return EXIT_FAIL;
	}
	if (!PL.n)
		PL.n = 1;
	if (PL.n == RP_PLACE_MAX) {
		cli_error("--burst-buffer: at most %d placements with --place", RP_PLACE_MAX - 1);
		return EXIT_USAGE;
	}
	BB.place = PL.n;
	if ((rc = burst_plan(trace, l, BB.place, &BB.plan, &BB.n, &BB.nckpts)))
		return rc;
	PL.glob[PL.n] = NULL;
	PL.dir[PL.n] = BB.dir;
	PL.fd[PL.n++] = -1;
	return 0;
}

/* The burst buffer's hooks and drain thread on engine e: 0, or -1 after
 * one error line. */
static int burst_start(struct rp_engine *e, const struct rp_layout *l, unsigned loops)
{
	struct rp_hooks h;
	int rc = rp_burst_new(&BB.b, l, BB.plan, BB.n, BB.nckpts, loops, BB.place,
			      PL.fd[BB.place], PL.fd[0], BB.drain);

	if (!rc) {
		rp_burst_hooks(BB.b, &h);
		rc = rp_engine_add_hooks(e, &h);
	}
	if (!rc)
		rc = rp_burst_start(BB.b);
	if (rc)
		cli_error("--burst-buffer: %s", strerror(-rc));
	return rc ? -1 : 0;
}

/* -------------------------------------------------------- --stage-hot */

/* One staged file, in rank order: its layout id, its reads and size (the
 * analysis's: iotape-analyze(1), STAGING). */
struct staged {
	uint32_t id;
	uint64_t read_bytes, size;
};

/* --stage-hot FAST_DIR --stage-size SIZE: what was staged */
static struct {
	const char *dir;	/* FAST_DIR; NULL: no staging */
	uint64_t size;		/* --stage-size */
	struct staged *f;	/* the files staged, n of them */
	size_t n;
	uint64_t bytes, read_bytes;	/* theirs: sizes, reads */
	size_t all;			/* the files that could be staged */
	uint64_t all_bytes, all_read;	/* their sizes, their reads */
} SH;

/*
 * Choose the files to stage (iotape-replay(1), STAGING): the trace's
 * analysis ranks the files read by bytes read per byte of size; those the
 * layout replays are taken in that order while they fit in --stage-size
 * (one that does not fit is passed over, the next are tried); each taken
 * gets placement 1 (FAST_DIR), the rest stay under --dir.  0, or -1 after
 * one error line.
 */
static int stage_choose(const char *trace, struct rp_layout *l)
{
	struct ana a;
	struct ana_opts ao = { .to_ns = UINT64_MAX, .top = -1, .threads = 1 };
	struct ana_staging st = { 0 };
	struct ana_stage_file *c = NULL;
	uint8_t *seen = NULL, *chosen = NULL;
	size_t nc = 0;
	int rc, ret = -1;

	if ((rc = ana_run(&a, trace, &ao))) {
		if (rc == -ENOMEM)
			cli_error("--stage-hot: %s: out of memory analysing it", trace);
		else
			cli_tape_error(trace, rc);
		ana_release(&a);
		return -1;
	}
	if ((rc = ana_staging_build(&a, &st)) ||
	    !(c = calloc(st.n + 1, sizeof(*c))) || !(chosen = calloc(st.n + 1, 1)) ||
	    !(seen = calloc(l->nfiles + 1, 1))) {
		cli_error("--stage-hot: out of memory");
		goto out;
	}
	/* the ranked files the replay has, under their layout ids (a path
	 * named by two files, one replacing the other, counts once: the
	 * first, ranked higher) */
	for (size_t i = 0; i < st.n; i++) {
		char *rel = strdup(st.f[i].path);
		uint32_t id;
		if (!rel) {
			cli_error("--stage-hot: out of memory");
			goto out;
		}
		if (!rp_path_map(rel) && !cm_strtab_find(&l->paths, rel, &id) && id < l->nfiles &&
		    !l->files[id].isdir && !seen[id]) {
			seen[id] = 1;
			c[nc] = st.f[i];
			c[nc++].file = id;
		}
		free(rel);
	}
	ana_stage_pick(c, nc, SH.size, chosen);
	if (nc && !(SH.f = calloc(nc, sizeof(*SH.f)))) {
		cli_error("--stage-hot: out of memory");
		goto out;
	}
	SH.all = nc;
	for (size_t i = 0; i < nc; i++) {
		SH.all_bytes += c[i].size;
		SH.all_read += c[i].read_bytes;
		if (!chosen[i])
			continue;
		SH.f[SH.n++] = (struct staged){ c[i].file, c[i].read_bytes, c[i].size };
		SH.bytes += c[i].size;
		SH.read_bytes += c[i].read_bytes;
		l->files[c[i].file].place = 1;
	}
	if ((rc = rp_layout_place_done(l))) {
		cli_error("--stage-hot: %s", strerror(-rc));
		goto out;
	}
	ret = 0;
out:
	free(seen);
	free(chosen);
	free(c);
	ana_staging_release(&st);
	ana_release(&a);
	return ret;
}

/* The staging line (and with verbose each file staged), before the report. */
static void stage_text(FILE *out, const struct rp_layout *l, int verbose)
{
	char b1[32], b2[32], b3[32];

	cm_fmt_bytes(b1, sizeof(b1), SH.bytes);
	cm_fmt_bytes(b2, sizeof(b2), SH.size);
	cm_fmt_bytes(b3, sizeof(b3), SH.all_read);
	fprintf(out, "Staging: %zu of %zu files read, %s of --stage-size %s, under ", SH.n, SH.all,
		b1, b2);
	cm_put_escaped(out, SH.dir, 0);
	fprintf(out, ": %.1f%% of the %s read (by bytes read per byte, iotape-analyze(1) STAGING)\n",
		SH.all_read ? 100.0 * (double)SH.read_bytes / (double)SH.all_read : 0.0, b3);
	for (size_t i = 0; verbose && i < SH.n; i++) {
		cm_fmt_bytes(b1, sizeof(b1), SH.f[i].read_bytes);
		cm_fmt_bytes(b2, sizeof(b2), SH.f[i].size);
		fprintf(out, "  staged %10.3f %12s %12s  ", (double)SH.f[i].read_bytes /
			(double)SH.f[i].size, b1, b2);
		cm_put_escaped(out, rp_file_path(l, SH.f[i].id), 0);
		fputc('\n', out);
	}
}

/* The report's "staging" member: what stage_text says, every file listed. */
static json_t *stage_json(const struct rp_layout *l)
{
	json_t *o = json_object(), *fa = json_array(), *all = json_object();

	json_object_set_new(o, "dir", cm_json_str(SH.dir));
	json_object_set_new(o, "stage_size", cm_json_u64(SH.size));
	json_object_set_new(o, "files", cm_json_u64(SH.n));
	json_object_set_new(o, "bytes", cm_json_u64(SH.bytes));
	json_object_set_new(o, "read_bytes", cm_json_u64(SH.read_bytes));
	json_object_set_new(o, "read_fraction", SH.all_read ?
			    json_real((double)SH.read_bytes / (double)SH.all_read) : json_null());
	json_object_set_new(all, "files", cm_json_u64(SH.all));
	json_object_set_new(all, "bytes", cm_json_u64(SH.all_bytes));
	json_object_set_new(all, "read_bytes", cm_json_u64(SH.all_read));
	json_object_set_new(o, "files_read", all);
	for (size_t i = 0; i < SH.n; i++)
		json_array_append_new(fa, json_pack("{s:o,s:o,s:o}",
			"path", cm_json_str(rp_file_path(l, SH.f[i].id)),
			"read_bytes", cm_json_u64(SH.f[i].read_bytes),
			"size", cm_json_u64(SH.f[i].size)));
	json_object_set_new(o, "staged", fa);
	json_t *x = json_object();
	json_object_set_new(x, "staging", o);
	return x;
}

/* ------------------------------------------------------------ phases */

static int has_ops(const struct rp_layout *l)
{
	for (size_t i = 0; i < l->nthreads; i++)
		if (l->threads[i].nops)
			return 1;
	return 0;
}

/* --mpi: this rank, and its share of the accelerators */
static struct {
	int on, rank, size;
	unsigned count, first;	/* its accelerators: first .. first + count - 1 */
	int shared;		/* one DIR for every rank (no %r in it) */
} M;

/* Open DIR (refusing one that is not empty and not ours) and, with
 * --mem-limit, enter the memory cgroup before prepare, so that the page
 * cache the prepared data fills is charged to it.  The dirfd, or -1
 * after one error line. */
static int setup_dir(const char *dir, int force, const struct rp_opts *o, int prep_only,
		     struct rp_cgroup *cg)
{
	char err[512];
	int dirfd = rp_dir_open(dir, force, err, sizeof(err));

	if (dirfd < 0) {
		cli_error("%s", err);
		return -1;
	}
	if (o->mem_limit && !prep_only && rp_cgroup_enter(cg, o->mem_limit, err, sizeof(err))) {
		cli_error("%s", err);
		close(dirfd);
		return -1;
	}
	return dirfd;
}

struct progress_line {
	int printed;
	struct timespec t0;	/* prepare's start */
};

static void prep_progress(void *arg, uint64_t files, uint64_t nfiles, uint64_t bytes,
			  uint64_t total)
{
	struct progress_line *pl = arg;
	struct timespec t;
	double s;

	clock_gettime(CLOCK_MONOTONIC, &t);
	s = (double)(t.tv_sec - pl->t0.tv_sec) + (double)(t.tv_nsec - pl->t0.tv_nsec) / 1e9;
	fprintf(stderr, "\riotape replay: preparing %" PRIu64 "/%" PRIu64 " files, %" PRIu64
		"/%" PRIu64 " MiB, %.0f files/s, %.0f MiB/s ", files, nfiles, bytes >> 20,
		total >> 20, s > 0 ? (double)files / s : 0, s > 0 ? (double)(bytes >> 20) / s : 0);
	pl->printed = 1;
}

static void run_progress(void *arg, uint64_t done, uint64_t total)
{
	struct progress_line *pl = arg;

	fprintf(stderr, "\riotape replay: %" PRIu64 "/%" PRIu64 " ops ", done, total);
	pl->printed = 1;
}

/* Create the files the layout reads (with a progress line on a terminal):
 * 0, or -1 after one error line. */
static int prepare(int dirfd, const struct rp_layout *l, int sparse, unsigned scale,
		   int progress)
{
	struct progress_line pl = { 0 };
	struct rp_prep_opts po = { .sparse = sparse, .scale = scale,
				   .progress = progress ? prep_progress : NULL, .arg = &pl,
				   .dirfds = PL.n > 1 ? PL.fd : NULL };
	struct rp_prep_stats ps;
	char err[512];
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &pl.t0);
	rc = rp_prepare(dirfd, l, &po, &ps, err, sizeof(err));
	if (pl.printed)
		fputc('\n', stderr);
	if (rc)
		cli_error("%s", err);
	return rc ? -1 : 0;
}

/* Bytes of read-only data set files a layout prepares (its own copies,
 * and scale - 1 more). */
static uint64_t dataset_bytes(const struct rp_layout *l, unsigned scale)
{
	uint64_t b = 0;

	/* (a job file's data set made as the run reaches it is not prepared,
	 * and is the data set all the same) */
	for (size_t i = 0; i < l->nfiles; i++)
		if (l->files[i].dataset && !l->files[i].isdir)
			b += l->files[i].size;
	return b * (scale ? scale : 1);
}

/* The memory the replay may use: --mem-limit, else the machine's. */
static uint64_t memory_bytes(const struct rp_opts *o)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (o->mem_limit)
		return o->mem_limit;
	return pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;
}

/* --metrics: the endpoint, NULL none */
static struct live *LV;

/* Replay src under dirfd into res, with what /proc/self/io and the cgroup
 * say about it (with --mpi: every rank started together, and on rank 0
 * every rank's results): 0, or -1 after one error line. */
static int run(struct rp_source *src, int dirfd, const struct rp_opts *o, int progress,
	       struct rp_cgroup *cg, struct rp_result *res)
{
	struct progress_line pl = { 0 };
	struct rp_hooks hooks = { .arg = &pl, .progress = run_progress };
	struct rp_engine *e;
	char err[512];
	uint64_t rb0;
	int rc;

	if (rp_engine_init(&e, src, dirfd, o, err, sizeof(err))) {
		cli_error("%s", err);
		return -1;
	}
	if (PL.n > 1 && (rc = rp_engine_set_places(e, PL.fd, PL.n))) {
		rp_engine_free(e);
		cli_error("--place: %s", strerror(-rc));
		return -1;
	}
	if (progress && rp_engine_add_hooks(e, &hooks)) {
		rp_engine_free(e);
		cli_error("out of memory");
		return -1;
	}
	if (LV) {
		struct rp_hooks lh;
		if (live_replay_hooks(LV, &src->layout, o->loops, &lh) ||
		    rp_engine_add_hooks(e, &lh)) {
			rp_engine_free(e);
			cli_error("out of memory");
			return -1;
		}
	}
	if (M.on) {
		struct rp_hooks mh;
		rp_mpi_hooks(&mh);	/* every rank starts each loop together */
		if (rp_engine_add_hooks(e, &mh) || rp_mpi_barrier(err, sizeof(err))) {
			rp_engine_free(e);
			cli_error("--mpi: %s", err);
			return -1;
		}
	}
	if (BB.dir && burst_start(e, &src->layout, o->loops)) {
		rp_engine_free(e);
		return -1;
	}
	rb0 = io_read_bytes();
	rc = rp_engine_run(e, err, sizeof(err));
	if (pl.printed)
		fputc('\n', stderr);
	if (BB.drain) {		/* the job is over; its drains may not be */
		if (progress)
			fprintf(stderr, "iotape replay: waiting for the burst buffer's drains\n");
		rp_burst_wait(BB.b);
	}
	if (rc) {
		cli_error("%s", err);
		rp_engine_free(e);
		return -1;
	}
	rp_engine_finish(e, res);
	rp_engine_free(e);
	if (PL.n > 1)
		res->place_names = PL.dir;
	res->burst = BB.b;
	res->burst_dir = BB.dir;
	if (LV)
		live_replay_end(LV, &src->layout, res);
	res->dev_read_bytes = io_read_bytes() - rb0;
	if (cg->entered) {
		rp_cgroup_stats(cg);
		res->cgroup = cg->v2 ? 2 : 1;
		res->mem_peak = cg->peak;
		res->mem_limit_hits = cg->limit_hits;
	}
	res->dataset_bytes = dataset_bytes(&src->layout, o->scale);
	res->mem_bytes = memory_bytes(o);
	if (M.on && (rp_mpi_hook_error(err, sizeof(err)) ||
		     rp_mpi_gather(res, NULL, err, sizeof(err)))) {
		cli_error("--mpi: %s", err);
		return -1;
	}
	return 0;
}

/* Ops that failed in the replay: one line saying how many and the first
 * (unless ignore), and whether there were any. */
static int failures(const struct rp_layout *l, const struct rp_result *res, int ignore)
{
	const struct rp_failure *first = NULL;
	unsigned kind = 0;
	uint64_t n = 0;

	for (size_t i = 0; i < res->njobs; i++)
		for (unsigned k = 0; k < RP_KIND_MAX; k++) {
			const struct rp_job *j = &res->jobs[i];
			n += j->failed[k];
			if (j->failed[k] && (!first || j->first_fail[k].ts < first->ts)) {
				first = &j->first_fail[k];
				kind = k;
			}
		}
	if (n && !ignore)
		cli_error("%" PRIu64 " ops failed in the replay (the first: %s %s: %s); "
			  "--ignore-errors exits 0", n, kind ? rp_kind_name(kind) : "ring",
			  kind && first->file < l->nfiles ? rp_file_path(l, first->file) : "-",
			  strerror(-first->err));
	return n && !ignore;
}

/* ------------------------------------------------------- the sources */

struct src_arg {
	const char *trace;
	struct rp_trace_opts to;
	const struct rp_jobspec *job;	/* TRACE is a job file (iotape-job(5)) */
	/* a job file under --runtime, one accelerator: its data set made as
	 * the run reaches it, under *dirfd */
	int lazy, sparse;
	const int *dirfd;
};

static int open_trace(void *arg, unsigned accel, struct rp_source **out, char *err,
		      size_t errlen)
{
	const struct src_arg *sa = arg;

	if (sa->job)
		return rp_job_open(out, sa->job, &(struct rp_job_opts){ .direct = sa->to.direct,
				   .lazy = sa->lazy, .sparse = sa->sparse, .dirfd = sa->dirfd },
				   err, errlen);
	return rp_trace_open(out, sa->trace, &sa->to, err, errlen);
}

/* --mpi --sync-steps: a step ends when every rank's accelerators are at
 * it (the first error is kept: the loop hook's check reports ranks that
 * went apart) */
static void mpi_step(void *arg)
{
	char err[128];

	rp_mpi_barrier(err, sizeof(err));
}

/* The source of a run of n accelerators (the trace itself for one with no
 * bound): 0, or -1 after one error line. */
static int open_source(const struct src_arg *sa, const struct rp_opts *o, unsigned n,
		       struct rp_source **src)
{
	char err[512];
	int rc;

	if (!n && !o->runtime_ns && !M.on) {	/* no accelerators asked for */
		rc = open_trace((void *)sa, 0, src, err, sizeof(err));
	} else {
		/* n instances share the bound of the queued ops */
		struct src_arg one = *sa;
		struct rp_replica_opts ro = { .accelerators = n ? n : 1, .writers_one = o->writers == 1,
					      .runtime_ns = o->runtime_ns,
					      .sync_steps = o->sync_steps, .base = M.first,
					      .step = M.on ? mpi_step : NULL };
		uint64_t q = sa->to.queue_bytes ? sa->to.queue_bytes : 64ull << 20;
		one.to.queue_bytes = q / ro.accelerators > (1u << 20) ? q / ro.accelerators : 1u << 20;
		rc = rp_replica_open(src, &ro, open_trace, &one, err, sizeof(err));
	}
	if (rc)
		cli_error("%s", err);
	return rc ? -1 : 0;
}

/*
 * --mpi with one DIR for every rank (no %r: the shared storage MLPerf
 * Storage's clients read one data set from): rank 0 opens DIR (its lock)
 * and prepares the files of all n accelerators, every rank's (their names
 * are apart: .iotape-copy-A, .iotape-acc-A), while the others wait for it
 * (a barrier), then open DIR as it left it, sharing its lock, and prepare
 * nothing.  Two ranks on one DIR raced on its marker and its lock.  The
 * dirfd, or -1 after one error line (rank 0's failure ends the run: the
 * others wait for it at the barrier until the abort).
 */
static int shared_dir(const struct src_arg *sa, const struct rp_opts *o, unsigned n,
		      const char *dir, int force, int prep_only, int no_prep, int sparse,
		      int progress, struct rp_cgroup *cg)
{
	char err[512];
	int dirfd = -1;

	if (M.rank) {
		if (rp_mpi_barrier(err, sizeof(err))) {
			cli_error("--mpi: %s", err);
			return -1;
		}
		return setup_dir(dir, force | RP_DIR_SHARED, o, prep_only, cg);
	}
	if ((dirfd = setup_dir(dir, force, o, prep_only, cg)) < 0)
		return -1;
	if (!no_prep) {
		struct rp_source *all = NULL;
		unsigned first = M.first;
		int rc;

		M.first = 0;
		rc = open_source(sa, o, n, &all);
		M.first = first;
		if (!rc)
			rc = prepare(dirfd, &all->layout, sparse, 1, progress);
		rp_source_free(all);
		if (rc) {
			close(dirfd);
			return -1;
		}
	}
	if (rp_mpi_barrier(err, sizeof(err))) {
		cli_error("--mpi: %s", err);
		close(dirfd);
		return -1;
	}
	return dirfd;
}


/* TRACE is a job file when its first bytes are text starting with '[',
 * ';', '#' or blank (a trace starts with its format's magic), a DLIO
 * workload when it is named *.yaml or *.yml (the job model --from-dlio
 * makes of it): parse it, apply the --set overrides and --seed, check it.  0, or the exit status
 * after one error line (exit 2: the job file is part of the command). */
static int job_file(struct src_arg *sa, struct rp_jobspec *job, const char **sets, int nsets,
		    const char *seed, struct rp_opts *o)
{
	char err[768], what[1100];
	size_t tl = strlen(sa->trace);
	int rc;

	if ((tl > 5 && !strcmp(sa->trace + tl - 5, ".yaml")) ||
	    (tl > 4 && !strcmp(sa->trace + tl - 4, ".yml"))) {
		/* a DLIO workload: the job iotape model --from-dlio writes */
		struct cm_job cj = { 0 };

		if ((rc = model_dlio_job(sa->trace, 0, &cj)) != EXIT_OK) {
			cm_job_release(&cj);
			return rc;
		}
		rp_jobspec_init(job);
		rc = rp_jobspec_set(job, "job.format=" CM_JOB_FORMAT, sa->trace, err, sizeof(err));
		for (int k = 0; !rc && k < CM_JOB_NKEYS; k++) {
			if (!cj.val[k] || k == CM_JOB_K_FORMAT)
				continue;
			snprintf(what, sizeof(what), "%s.%s=%s", cm_job_keys[k].section,
				 cm_job_keys[k].name, cj.val[k]);
			rc = rp_jobspec_set(job, what, sa->trace, err, sizeof(err));
		}
		cm_job_release(&cj);
		if (rc) {
			cli_error("%s", err);
			return EXIT_USAGE;
		}
	} else if (!rp_job_sniff(sa->trace)) {
		if (nsets || seed) {
			opt_error(&replay_cmd, "--set and --seed are for job files (%s is not one)",
				  sa->trace);
			return EXIT_USAGE;
		}
		return 0;
	} else if (rp_jobspec_parse(job, sa->trace, err, sizeof(err))) {
		cli_error("%s", err);
		return EXIT_USAGE;
	}
	for (int i = 0; i < nsets; i++) {
		snprintf(what, sizeof(what), "--set %s", sets[i]);
		if (rp_jobspec_set(job, sets[i], what, err, sizeof(err))) {
			cli_error("%s", err);
			return EXIT_USAGE;
		}
	}
	if (seed) {
		snprintf(what, sizeof(what), "train.seed=%s", seed);
		if (rp_jobspec_set(job, what, "--seed", err, sizeof(err))) {
			cli_error("%s", err);
			return EXIT_USAGE;
		}
	}
	/* the reader what-ifs are the job's own keys (after --set: they win) */
	o->readers_recorded = (unsigned)job->read_threads;
	o->prefetch_recorded = (unsigned)job->prefetch_size;
	if (o->reader_threads) {
		snprintf(what, sizeof(what), "reader.read_threads=%u", o->reader_threads);
		if (rp_jobspec_set(job, what, "--reader-threads", err, sizeof(err))) {
			cli_error("%s", err);
			return EXIT_USAGE;
		}
	}
	if (o->prefetch) {
		snprintf(what, sizeof(what), "reader.prefetch_size=%u", o->prefetch);
		if (rp_jobspec_set(job, what, "--prefetch", err, sizeof(err))) {
			cli_error("%s", err);
			return EXIT_USAGE;
		}
	}
	if (rp_jobspec_check(job, sa->trace, err, sizeof(err))) {
		cli_error("%s", err);
		return EXIT_USAGE;
	}
	sa->job = job;
	return 0;
}

/* MLPerf Storage asks for a data set of 5x the client's memory at least,
 * so that the page cache cannot hide the storage: below that, a run that
 * measures accelerators (-n) gets one warning with what would reach it. */
static void mem_warning(const struct rp_result *res, const struct rp_opts *o)
{
	char d[32], m[32], want[32];
	double ratio;

	if (!res->mem_bytes || !res->dataset_bytes || !o->accelerators || o->direct)
		return;	/* a plain replay reproduces a job: the report has the
			 * ratio; O_DIRECT reads bypass the page cache */
	ratio = (double)res->dataset_bytes / (double)res->mem_bytes;
	if (ratio >= 5)
		return;
	cm_fmt_bytes(d, sizeof(d), res->dataset_bytes);
	cm_fmt_bytes(m, sizeof(m), res->mem_bytes);
	fprintf(stderr, "iotape replay: warning: the data set (%s) is %.2fx the memory the replay "
		"may use (%s, %s): the page cache can hide the storage; MLPerf Storage asks for 5x",
		d, ratio, m, o->mem_limit ? "--mem-limit" : "MemTotal");
	uint64_t limit = res->dataset_bytes / 5 & ~((1ull << 20) - 1);
	unsigned n = o->accelerators ? o->accelerators : 1;
	uint64_t per_copy = res->dataset_bytes / (n * (o->scale ? o->scale : 1));
	uint64_t k = per_copy ? (5 * res->mem_bytes + per_copy - 1) / per_copy : 0;
	if (limit >= (8u << 20)) {
		cm_fmt_bytes(want, sizeof(want), limit);
		fprintf(stderr, ": --mem-limit %s", want);
		if (n == 1 && k && k <= 1024)
			fprintf(stderr, " or --scale-dataset %" PRIu64, k);
	} else if (n == 1 && k && k <= 1024) {
		fprintf(stderr, ": --scale-dataset %" PRIu64, k);
	}
	fputc('\n', stderr);
}

/* --mpi with a merged trace (iotape merge): rank r replays host r, so
 * there must be one rank per host.  0 (to set, or the trace is not a
 * merged one: every rank replays it whole, as before), or the exit
 * status after one error line (rank 0's). */
static int merged_host(const char *trace, struct rp_trace_opts *to)
{
	tape_reader *r;
	unsigned n;
	int err = tape_reader_open(&r, trace);

	if (err < 0)
		return 0;	/* the source's open says what is wrong */
	n = tape_reader_hosts(r);
	tape_reader_free(r);
	if (!n)
		return 0;
	if ((unsigned)M.size != n) {
		if (M.rank == 0)
			opt_error(&replay_cmd, "--mpi: %s is a merged trace of %u hosts: run it "
				  "with %u ranks (rank r replays host r), not %d", trace, n, n,
				  M.size);
		return EXIT_USAGE;
	}
	to->has_host = 1;
	to->host = (unsigned)M.rank;
	return 0;
}

/*
 * The training thread, its epochs' AU windows and its steps, as the
 * analysis finds them (iotape-analyze(1), ACCELERATOR), and its data set
 * (DATA SET), for the trace source: the replay reports AU as DLIO computes
 * it over the same windows, and counts the same steps and data set.
 * *marks (one block: the windows, the steps, the data set's paths) is the
 * caller's to free.  0, or -1 after one error line.
 */
static int trace_trainer(const char *trace, struct rp_trace_opts *to, uint64_t **marks)
{
	struct ana_opts ao = { .to_ns = UINT64_MAX, .top = -1, .threads = 1,
			       .has_host = to->has_host, .host = to->host };
	struct ana a;
	int rc;

	*marks = NULL;
	if ((rc = ana_run(&a, trace, &ao))) {
		if (rc == -ENOMEM) {
			cli_error("%s: analysing it: out of memory", trace);
			return -1;
		}
		return 0;	/* the source's open says what is wrong */
	}
	const struct ana_train *tr = &a.train;
	size_t nw = tr->nep ? 2 * tr->nep : 2, nds = 0, sz = 0;
	for (size_t i = 0; i < a.nfiles; i++)
		if (a.files[i].dataset && a.files[i].path) {
			nds++;
			sz += strlen(a.files[i].path) + 1;
		}
	size_t off = (nw + tr->steps + 1) * sizeof(**marks);
	if ((*marks = calloc(1, off + nds * sizeof(char *) + sz))) {
		const char **ds = (const char **)((char *)*marks + off);
		char *p = (char *)(ds + nds);
		size_t k = 0;
		for (size_t i = 0; i < a.nfiles; i++)
			if (a.files[i].dataset && a.files[i].path) {
				ds[k++] = p;
				p = stpcpy(p, a.files[i].path) + 1;
			}
		to->has_dataset = 1;
		to->dataset = ds;
		to->ndataset = nds;
	}
	if (tr->found && *marks) {
		unsigned n = 0;
		to->train_tid = tr->tid;
		if (!tr->nep && !isnan(tr->au_dlio)) {
			(*marks)[n++] = tr->span.from_ns;	/* one window over its steps */
			(*marks)[n++] = tr->span.to_ns;
		}
		for (size_t e = 0; e < tr->nep; e++) {
			const struct ana_au_epoch *x = &tr->ep[e];
			if (!x->from_ns || x->to_ns <= x->from_ns)
				continue;	/* no window: no marks */
			(*marks)[n++] = x->from_ns;
			(*marks)[n++] = x->to_ns;
		}
		to->marks = n ? *marks : NULL;
		to->nmarks = n;
		if (tr->steps)
			memcpy(*marks + nw, tr->ends, tr->steps * sizeof(**marks));
		to->steps = *marks + nw;	/* none: none (not the source's rule) */
		to->nsteps = tr->steps;
	}
	ana_release(&a);
	return 0;
}

/* ---------------------------------------------------------- find-max */

struct trial {
	unsigned n;
	int pass;
	double au_min, au_mean, read_bw, iops, mem_ratio;
};

/* One trial of --find-max with n accelerators: prepare, drop the caches
 * (root), run; 0 with t filled, or -1 after one error line. */
static int trial(const struct src_arg *sa, const char *dir, int force, struct rp_opts o,
		 unsigned n, int no_prep, int progress, struct rp_cgroup *cg, struct trial *t)
{
	struct rp_source *src = NULL;
	struct rp_result res = { 0 };
	struct rp_scale st;
	int dirfd = -1, ret = -1;

	unsigned mine = n;
	o.accelerators = n;
	if (M.on && rp_mpi_split(n, M.rank, M.size, &mine, &M.first))
		return -1;
	if (open_source(sa, &o, mine, &src))
		return -1;
	if ((dirfd = M.shared ? shared_dir(sa, &o, n, dir, force, 1, no_prep, o.sparse,
					   progress, cg) :
				setup_dir(dir, force, &o, 1, cg)) < 0)
		goto out;
	if (!no_prep && !M.shared && prepare(dirfd, &src->layout, o.sparse, 1, progress))
		goto out;
	if (geteuid() == 0 && drop_caches()) {
		cli_error("--find-max: dropping the page cache failed");
		goto out;
	}
	if (run(src, dirfd, &o, progress, cg, &res))
		goto out;
	if (rp_scale_stats(&res, &src->layout, o.au, &st)) {
		cli_error("out of memory");
		goto out;
	}
	*t = (struct trial){ n, st.pass, st.au_min, st.au_mean, st.read_bw, st.iops,
			     res.mem_bytes ? (double)res.dataset_bytes / (double)res.mem_bytes : 0 };
	rp_scale_release(&st);
	ret = 0;
	for (size_t i = 0; i < res.njobs; i++)
		if (res.jobs[i].errors) {
			cli_error("--find-max: %u accelerators: ops failed in the replay; "
				  "a plain replay with -n %u says which", n, n);
			ret = -1;
			break;
		}
	if (M.on) {	/* rank 0 has every rank's results: its verdict is the one */
		char err[256];
		int v[2] = { ret, 0 };
		if (rp_mpi_bcast(v, sizeof(v), 0, err, sizeof(err)) ||
		    rp_mpi_bcast(t, sizeof(*t), 0, err, sizeof(err))) {
			cli_error("--mpi: %s", err);
			ret = -1;
		} else {
			ret = v[0];
		}
	}
out:
	if (dirfd >= 0)
		close(dirfd);
	rp_result_release(&res);
	rp_source_free(src);
	return ret;
}

/*
 * --find-max: the most accelerators whose every AU reaches o->au.  N grows
 * 1, 2, 4, ... until a trial fails, then the gap between the last that
 * passed and the first that failed is bisected.  The data set of each
 * accelerator must fit in DIR: the search says how many fit and stops
 * there.
 */
static int find_max(const struct src_arg *sa, const char *dir, int force, const struct rp_opts *o,
		    int no_prep, int json, FILE *out, struct rp_cgroup *cg)
{
	struct trial tr[64];
	unsigned ntr = 0, lo = 0, hi = 0, limit = o->accelerators ? o->accelerators : 1024;
	unsigned n = M.on ? (unsigned)M.size : 1;	/* --mpi: one a rank at least */
	const unsigned n0 = n;
	int talk = !M.on || M.rank == 0;	/* rank 0 prints */
	struct rp_source *one = NULL;
	struct statvfs vfs;
	char b1[32], b2[32];
	int progress = isatty(STDERR_FILENO) && (!M.on || M.rank == 0), low_mem = 0;
	double au = o->au;

	/* what one accelerator prepares, against the room in DIR */
	if (open_source(sa, o, 1, &one))
		return EXIT_FAIL;
	if (rp_layout_no_compute(&one->layout)) {
		rp_source_free(one);
		cli_error("--find-max: the job has no compute (AU, compute time over wall time, "
			  "is n/a): no accelerator count passes or fails");
		return EXIT_USAGE;
	}
	uint64_t per = 0;
	for (size_t i = 0; i < one->layout.nfiles; i++)
		if (one->layout.files[i].prepare && !one->layout.files[i].isdir &&
		    !one->layout.files[i].holes)
			per += one->layout.files[i].size;
	rp_source_free(one);
	char parent[4096];
	snprintf(parent, sizeof(parent), "%s", dir);
	char *slash = strrchr(parent, '/');
	if (access(dir, F_OK) != 0) {	/* made by the first trial: its parent */
		if (slash && slash != parent)
			*slash = 0;
		else
			snprintf(parent, sizeof(parent), "%s", slash ? "/" : ".");
	}
	uint64_t fit = UINT32_MAX, room = 0;	/* accelerators this rank has room for */
	if (!no_prep && statvfs(parent, &vfs) == 0 && per) {
		room = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		/* what is prepared already counts as room: one accelerator
		 * more than the free space holds, at most */
		fit = room / per + 1;
		if (fit == 1 && access(dir, F_OK) != 0) {
			cm_fmt_bytes(b1, sizeof(b1), per);
			cm_fmt_bytes(b2, sizeof(b2), room);
			cli_error("%s: %s free, one accelerator needs %s", dir, b2, b1);
			return EXIT_FAIL;
		}
	}
	if (M.on) {	/* the rank with the least room bounds them all */
		char err[256];
		if (rp_mpi_allreduce_u64(&fit, RP_MPI_MIN, err, sizeof(err))) {
			cli_error("--mpi: %s", err);
			return EXIT_FAIL;
		}
		fit *= (uint64_t)M.size;
	}
	if (fit < limit)
		limit = (unsigned)fit;
	if (per && room && talk) {
		cm_fmt_bytes(b1, sizeof(b1), per);
		cm_fmt_bytes(b2, sizeof(b2), room);
		fprintf(stderr, "iotape replay: --find-max: each accelerator prepares %s; the file "
			"system of %s has %s free%s: up to %u accelerators\n", b1, dir, b2,
			M.on ? " (rank 0's)" : "", limit);
	}
	if (n > limit) {
		cli_error("--find-max: %u ranks need %u accelerators at least; the search may go to %u",
			  M.size, n, limit);
		return EXIT_FAIL;
	}
	if (!json && talk)
		fprintf(out, "find-max: AU >= %.0f%%%s%s\n%12s %8s %8s %12s %10s %9s %5s\n",
			100 * au, o->runtime_ns ? ", each trial bounded by --runtime" : "",
			geteuid() == 0 ? ", page cache dropped before each" : "",
			"accelerators", "AU min", "AU mean", "read MiB/s", "IOPS", "data/mem", "pass");
	while (ntr < 64) {
		struct trial *t = &tr[ntr];
		if (progress)
			fprintf(stderr, "iotape replay: --find-max: trial %u, %u accelerators\n",
				ntr + 1, n);
		if (trial(sa, dir, force, *o, n, no_prep, progress, cg, t))
			return EXIT_FAIL;
		ntr++;
		low_mem |= t->mem_ratio > 0 && t->mem_ratio < 5 && !o->direct;
		if (!json && talk) {
			fprintf(out, "%12u %7.1f%% %7.1f%% %12.1f %10.0f %8.2fx %5s\n", t->n,
				100 * t->au_min, 100 * t->au_mean, t->read_bw / 1048576, t->iops,
				t->mem_ratio, t->pass ? "yes" : "no");
			fflush(out);
		}
		if (t->pass)
			lo = n;
		else
			hi = n;
		if (hi && (hi - lo <= 1 || hi <= n0))
			break;	/* (--mpi: fewer than a rank each is not tried) */
		if (!hi && lo >= limit)
			break;
		n = hi ? lo + (hi - lo) / 2 : (2 * lo < limit ? 2 * lo : limit);
	}
	if (!talk)
		return EXIT_OK;
	if (low_mem)
		fprintf(stderr, "iotape replay: warning: in some trials the data set was below 5x "
			"the memory the replay may use (data/mem): the page cache may have hidden "
			"the storage; --mem-limit lowers the memory\n");
	if (json) {
		json_t *a = json_array();
		for (unsigned i = 0; i < ntr; i++)
			json_array_append_new(a, json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:b}",
				"accelerators", (int)tr[i].n, "au_min", tr[i].au_min,
				"au_mean", tr[i].au_mean, "read_bw_bytes", tr[i].read_bw,
				"iops", tr[i].iops, "dataset_memory_ratio", tr[i].mem_ratio,
				"pass", tr[i].pass));
		json_t *v = json_pack("{s:{s:f,s:i,s:i,s:b,s:o}}", "find_max", "au_threshold", au,
				      "max_accelerators", (int)lo, "search_limit", (int)limit,
				      "limit_reached", !hi, "trials", a);
		if (json_dumpf(v, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
			return EXIT_FAIL;
		fputc('\n', out);
		json_decref(v);
	} else {
		fprintf(out, "max accelerators at AU >= %.2f: %u%s\n", au, lo,
			hi ? "" : " (the search's limit: -n, or the room in DIR; more may keep up)");
	}
	return EXIT_OK;
}

int cmd_replay(int argc, char **argv)
{
	struct rp_opts o = { 0 };	/* the defaults are replay_opts' */
	struct rp_cgroup cg = { 0 };
	const char *dir = NULL, *output = NULL;
	int prep_only = 0, no_prep = 0, sparse = 0, drop = 0, force = 0, json = 0, loops_given = 0;
	int ignore = 0, no_meta = 0, acc_given = 0, find = 0, mpi = 0, done = 0;
	int no_handover = 0;
	uint64_t *marks = NULL;
	char rankdir[4096];
	struct rp_source *src = NULL;
	struct rp_result res = { 0 };
	struct opt_parser p;
	struct src_arg sa = { 0 };
	struct rp_jobspec job;
	const char **sets = calloc((size_t)argc + 1, sizeof(*sets)), *seed = NULL;
	const char *metrics = NULL, *stage_dir = NULL, *stage_size = NULL;
	int verbose = 0;
	double linger = 0;
	char *end;
	int nsets = 0;
	int c, dirfd = -1, ret = EXIT_FAIL, rc, progress;
	uint32_t bbf;
	FILE *out = stdout;

	opt_init_cfg(&p, &replay_cmd, &o, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case OPT_HELP: free(sets); return EXIT_OK;
		case OPT_ERR: free(sets); return EXIT_USAGE;
		case 'd': dir = p.arg; break;
		case O_PREP_ONLY: prep_only = 1; break;
		case O_NO_PREP: no_prep = 1; break;
		case O_SPARSE: sparse = o.sparse = 1; break;
		case O_DROP: drop = 1; break;
		case O_LOOPS: loops_given = 1; break;
		case O_FMT: json = p.choice == 1; break;
		case 'o': output = p.arg; break;
		case 'f': force = 1; break;
		case O_IGNORE: ignore = 1; break;
		case O_NO_META: no_meta = 1; break;
		case O_NO_HANDOVER: no_handover = 1; break;
		case 'n': acc_given = 1; break;
		case O_FIND_MAX: find = 1; break;
		case O_MPI: mpi = 1; break;
		case O_SET: if (sets) sets[nsets++] = p.arg; break;
		case O_SEED: seed = p.arg; break;
		case O_BURST: BB.dir = p.arg; break;
		case O_DRAIN: BB.drain = 1; break;
		case O_STAGE_HOT: stage_dir = p.arg; break;
		case O_STAGE_SIZE: stage_size = p.arg; break;
		case 'v': verbose = 1; break;
		case O_PLACE:
			if (place_arg(p.arg)) {
				free(sets);
				return EXIT_USAGE;
			}
			break;
		case O_METRICS:
			if (live_check(&replay_cmd, p.arg)) {
				free(sets);
				return EXIT_USAGE;
			}
			metrics = p.arg;
			break;
		case O_LINGER:
			linger = strtod(p.arg, &end);
			if (end == p.arg || *end || !(linger >= 0 && linger <= 86400)) {
				free(sets);
				opt_error(&replay_cmd, "--metrics-linger: '%s' is not a number from "
					  "0 to 86400", p.arg);
				return EXIT_USAGE;
			}
			break;
		}
	}
	sa.trace = opt_one_arg(&p, "TRACE");
	if (!sa.trace || !sets) {
		free(sets);
		return sets ? EXIT_USAGE : EXIT_FAIL;
	}
	rc = job_file(&sa, &job, sets, nsets, seed, &o);
	free(sets);
	if (rc)
		return rc;
	if (!dir) {
		opt_error(&replay_cmd, "--dir is required");
		return EXIT_USAGE;
	}
	if (prep_only && no_prep) {
		opt_error(&replay_cmd, "--prepare-only and --no-prepare exclude each other");
		return EXIT_USAGE;
	}
	if ((acc_given || find) && o.scale > 1) {
		opt_error(&replay_cmd, "--scale-dataset and --accelerators/--find-max exclude each "
			  "other (each accelerator reads a copy of its own)");
		return EXIT_USAGE;
	}
	if (find && prep_only) {
		opt_error(&replay_cmd, "--find-max and --prepare-only exclude each other");
		return EXIT_USAGE;
	}
	if (o.mem_limit && geteuid() != 0) {
		cli_error("--mem-limit needs root (it creates a cgroup)");
		return EXIT_FAIL;
	}
	if (!acc_given)		/* not asked: the report says nothing of it; */
		o.accelerators = 0;	/* find-max searches up to 1024 */
	if (mpi && o.scale > 1) {
		opt_error(&replay_cmd, "--scale-dataset and --mpi exclude each other");
		return EXIT_USAGE;
	}
	if (mpi && o.sync_steps && o.runtime_ns) {
		opt_error(&replay_cmd, "--mpi --sync-steps and --runtime exclude each other (ranks "
			  "would stop at different steps)");
		return EXIT_USAGE;
	}
	if (linger > 0 && !metrics) {
		opt_error(&replay_cmd, "--metrics-linger needs --metrics");
		return EXIT_USAGE;
	}
	if (metrics && mpi) {
		opt_error(&replay_cmd, "--metrics and --mpi exclude each other (the ranks of a "
			  "node would want one port)");
		return EXIT_USAGE;
	}
	if ((stage_size || verbose) && !stage_dir) {
		opt_error(&replay_cmd, "%s is for --stage-hot", stage_size ? "--stage-size" : "--verbose");
		return EXIT_USAGE;
	}
	if (stage_dir) {
		if (!stage_size) {
			opt_error(&replay_cmd, "--stage-hot needs --stage-size SIZE (the room in FAST_DIR)");
			return EXIT_USAGE;
		}
		if (cm_parse_size(stage_size, 1, UINT64_MAX, &SH.size)) {
			opt_error(&replay_cmd, "--stage-size: '%s' is not a size of 1 byte or more "
				  "(k, m, g, t suffixes)", stage_size);
			return EXIT_USAGE;
		}
		if (sa.job) {
			opt_error(&replay_cmd, "--stage-hot ranks the files by the reads a trace recorded: "
				  "the job file %s has none (--place puts its files)", sa.trace);
			return EXIT_USAGE;
		}
		if (PL.n) {
			opt_error(&replay_cmd, "--stage-hot and --place exclude each other (both say "
				  "where files go)");
			return EXIT_USAGE;
		}
		if (mpi || find) {
			opt_error(&replay_cmd, "--stage-hot and %s exclude each other",
				  mpi ? "--mpi" : "--find-max");
			return EXIT_USAGE;
		}
		if ((acc_given && o.accelerators > 1) || o.scale > 1) {
			opt_error(&replay_cmd, "--stage-hot and %s exclude each other (copies of the "
				  "data set: which would FAST_DIR hold?)",
				  o.scale > 1 ? "--scale-dataset" : "-n above 1");
			return EXIT_USAGE;
		}
		SH.dir = stage_dir;
		PL.n = 2;
		PL.glob[1] = NULL;
		PL.dir[1] = stage_dir;
		PL.fd[1] = -1;
	}
	if (PL.n > 1 && (mpi || find)) {
		opt_error(&replay_cmd, "--place and %s exclude each other", mpi ? "--mpi" : "--find-max");
		return EXIT_USAGE;
	}
	if (BB.drain && !BB.dir) {
		opt_error(&replay_cmd, "--drain needs --burst-buffer");
		return EXIT_USAGE;
	}
	if (BB.dir && (mpi || find || acc_given || sa.job || stage_dir)) {
		opt_error(&replay_cmd, "--burst-buffer and %s exclude each other%s", mpi ? "--mpi" :
			  find ? "--find-max" : acc_given ? "--accelerators" :
			  stage_dir ? "--stage-hot" : "a job file",
			  sa.job ? " (its checkpoints: --place 'FOLDER/*=FAST_DIR')" : "");
		return EXIT_USAGE;
	}
	if (place_dirs_check())
		return EXIT_FAIL;
	if (mpi && prep_only) {
		opt_error(&replay_cmd, "--mpi and --prepare-only exclude each other: prepare on each node");
		return EXIT_USAGE;
	}
	if (mpi) {
		char err[512];
		if (!rp_mpi_built) {
			cli_error("--mpi: this iotape is built without MPI (make MPI=0)");
			return EXIT_FAIL;
		}
		if (rp_mpi_init(err, sizeof(err))) {
			cli_error("--mpi: %s", err);
			return EXIT_FAIL;
		}
		M.on = 1;
		M.rank = rp_mpi_rank();
		M.size = rp_mpi_size();
		/* DIR's "%r" is the rank: a DIR of each rank's own on one node;
		 * without it, one DIR (on shared storage) for every rank */
		const char *pr = strstr(dir, "%r");
		if (pr) {
			snprintf(rankdir, sizeof(rankdir), "%.*s%d%s", (int)(pr - dir), dir, M.rank, pr + 2);
			dir = rankdir;
		} else {
			M.shared = M.size > 1;
		}
		o.ranks = (unsigned)M.size;
		if (!find) {
			unsigned total = acc_given ? o.accelerators : (unsigned)M.size;
			if (total < (unsigned)M.size) {
				if (M.rank == 0)
					opt_error(&replay_cmd, "--mpi: %u accelerators for %d ranks: one "
						  "a rank at least", total, M.size);
				rp_mpi_finalize();
				return EXIT_USAGE;
			}
			rp_mpi_split(total, M.rank, M.size, &M.count, &M.first);
			o.accelerators = total;
		}
	}
	if (!loops_given)
		o.loops = o.scale;	/* each copy read once */
	progress = isatty(STDERR_FILENO);

	/* under a memory limit, the queued ops take a quarter of it at most */
	sa.to = (struct rp_trace_opts){ .direct = o.direct, .no_metadata = no_meta,
					.queue_bytes = o.mem_limit ? o.mem_limit / 4 : 0 };
	if (sa.to.queue_bytes > (64ull << 20))
		sa.to.queue_bytes = 64ull << 20;
	if (M.on && !sa.job && (c = merged_host(sa.trace, &sa.to))) {
		rp_mpi_finalize();
		return c;
	}
	if (!sa.job) {		/* a job file's are its keys (job_file) */
		sa.to.reader_threads = o.reader_threads;
		sa.to.prefetch = o.prefetch;
		sa.to.no_handover = no_handover;
		o.readers_trace = 1;
		if (trace_trainer(sa.trace, &sa.to, &marks))
			goto out;
	}
	/* a job file's data set: the inodes and room it needs, before its
	 * layout is made (a file each: 10^8 files would take gigabytes) */
	if (sa.job && !no_prep) {
		char err[768];
		unsigned copies = find ? 1 : M.on ? M.count : o.accelerators ? o.accelerators : 1;

		if ((rc = rp_jobspec_room(sa.job, dir, copies, sparse, err, sizeof(err)))) {
			cli_error("%s", err);
			goto out;
		}
	}
	/* the endpoint before any work: a port in use stops us here */
	if (metrics && live_start(&LV, LIVE_REPLAY, metrics))
		return EXIT_FAIL;
	if (M.on && M.rank)
		output = NULL;	/* rank 0 writes the report */
	if (output && !(out = fopen(output, "w"))) {
		cli_error("%s: %s", output, strerror(errno));
		live_stop(LV, 0);
		return EXIT_FAIL;
	}
	if (find) {
		if (o.mem_limit) {
			char err[512];
			if (rp_cgroup_enter(&cg, o.mem_limit, err, sizeof(err))) {
				cli_error("%s", err);
				goto out;
			}
		}
		ret = find_max(&sa, dir, force, &o, no_prep, json, out, &cg);
		done = ret == EXIT_OK;
		goto out;
	}
	/* a bounded run of a job file waits for no file it does not read: its
	 * data set is made as the run reaches it, in the order it reads it */
	sa.lazy = sa.job && o.runtime_ns && !M.on && o.accelerators <= 1 && o.scale <= 1 &&
		  PL.n <= 1 && !prep_only && !no_prep && !BB.dir && !SH.dir;
	sa.sparse = sparse;
	sa.dirfd = &dirfd;
	if (open_source(&sa, &o, M.on ? M.count : o.accelerators, &src))
		goto out;
	if (o.readers_trace)
		o.readers_recorded = src->layout.readers_recorded;
	if (!has_ops(&src->layout)) {
		cli_error("%s: no file operations to replay (%" PRIu64 " skipped, %" PRIu64
			  " failed, %" PRIu64 " unmatched in the recording)", sa.trace,
			  src->layout.skipped, src->layout.failed, src->layout.unmatched);
		goto out;
	}
	if (M.on && M.rank)
		progress = 0;	/* rank 0 speaks for all */
	if (SH.dir) {
		if (stage_choose(sa.trace, &src->layout))
			goto out;
	} else if (PL.n > 1 && (rc = rp_layout_place(&src->layout, (const char *const *)PL.glob + 1,
							    PL.n - 1))) {
		cli_error("--place: %s", strerror(-rc));
		goto out;
	} else if (PL.n > 1) {
		place_warn(&src->layout);
	}
	if (BB.dir && (ret = burst_setup(sa.trace, &src->layout))) {
		ret = ret == EXIT_USAGE ? EXIT_USAGE : EXIT_FAIL;
		goto out;
	}
	ret = EXIT_FAIL;
	if ((dirfd = M.shared ? shared_dir(&sa, &o, o.accelerators, dir, force, prep_only,
					   no_prep, sparse, progress, &cg) :
				setup_dir(dir, force, &o, prep_only, &cg)) < 0)
		goto out;
	if (PL.n > 1 && place_open(dir, dirfd, force))
		goto out;
	if (!no_prep && !M.shared && prepare(dirfd, &src->layout, sparse, o.scale, progress))
		goto out;
	if (SH.dir && !json)	/* what went where, once it is there */
		stage_text(out, &src->layout, verbose);
	if (prep_only) {
		ret = EXIT_OK;
		goto out;
	}
	if (drop && (rc = drop_caches())) {
		cli_error("--drop-caches: /proc/sys/vm/drop_caches: %s%s", strerror(-rc),
			  rc == -EACCES || rc == -EPERM ? " (needs root)" : "");
		goto out;
	}
	res.dataset_bytes = dataset_bytes(&src->layout, o.scale);
	res.mem_bytes = memory_bytes(&o);
	if (!M.on || M.rank == 0)
		mem_warning(&res, &o);
	if (run(src, dirfd, &o, progress, &cg, &res))
		goto out;
	if (M.on) {
		if (M.rank) {	/* rank 0 reports, and says how it went */
			ret = EXIT_OK;
			done = 1;
			goto out;
		}
		/* rank 0's layout counts its own accelerators; the report, all */
		rp_layout_scale_counts(&src->layout, o.accelerators, M.count);
	}
	if (json && SH.dir && !(res.extra = stage_json(&src->layout))) {
		cli_error("out of memory");
		goto out;
	}
	rc = json ? rp_report_json(out, &src->layout, &o, &res) :
		    rp_report_text(out, &src->layout, &o, &res);
	json_decref(res.extra);
	res.extra = NULL;
	/* stdout is checked by main(); a report file here */
	if (rc || (out != stdout && (fflush(out) || ferror(out)))) {
		cli_error("%s: write error: %s", output ? output : "stdout",
			  strerror(errno ? errno : EIO));
		goto out;
	}
	ret = failures(&src->layout, &res, ignore) ? EXIT_FAIL : EXIT_OK;
	if (BB.b && rp_burst_failed(BB.b, &rc, &bbf) && !ignore) {
		cli_error("--burst-buffer: the drain of %s failed: %s; --ignore-errors exits 0",
			  rp_file_path(&src->layout, bbf), strerror(-rc));
		ret = EXIT_FAIL;
	}
	done = 1;
out:
	rp_cgroup_leave(&cg);	/* (before an MPI_Abort, which does not return) */
	if (M.on) {
		/* every rank that got to the end takes rank 0's verdict; one
		 * that failed before takes the others down with it (they would
		 * wait for it at the next barrier for ever) */
		char err[256];
		int v = ret;
		if (!done || rp_mpi_bcast(&v, sizeof(v), 0, err, sizeof(err)))
			rp_mpi_abort(ret != EXIT_OK ? ret : EXIT_FAIL);
		ret = v;
		rp_mpi_finalize();
	}
	if (out != stdout && fclose(out) && ret == EXIT_OK) {
		cli_error("%s: %s", output, strerror(errno));
		ret = EXIT_FAIL;
	}
	if (dirfd >= 0)
		close(dirfd);
	for (unsigned i = 1; i < PL.n; i++)
		if (PL.fd[i] >= 0)
			close(PL.fd[i]);
	for (unsigned i = 1; i < PL.n; i++)
		free(PL.glob[i]);
	PL.n = 0;
	free(marks);
	rp_burst_free(BB.b);	/* (res.burst points to it) */
	free(BB.plan);
	memset(&BB, 0, sizeof(BB));
	free(SH.f);
	memset(&SH, 0, sizeof(SH));
	/* a last scrape sees the end, and the report is out before it */
	if (LV && done && linger > 0)
		fflush(stdout);
	live_stop(LV, done && !prep_only ? linger : 0);
	LV = NULL;
	rp_result_release(&res);
	rp_source_free(src);
	return ret;
}
