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
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "opt.h"
#include "replay.h"

enum {
	O_PREP_ONLY = OPT_LONG(1), O_NO_PREP, O_SPARSE, O_TIMING, O_SPEED,
	O_SCALE, O_IODEPTH, O_DIRECT_OPT, O_DROP, O_LOOPS, O_FMT, O_MEMLIMIT,
	O_SCALE_DS, O_IGNORE, O_NO_META,
};

/* Typed options go to struct rp_opts; the others are taken in cmd_replay(). */
#define CFG struct rp_opts
static const struct opt replay_opts[] = {
	{ 'd', "dir", "DIR", "replay under DIR (every trace path is mapped into it)",
	  NULL, NULL, OPT_REQUIRED },
	{ O_PREP_ONLY, "prepare-only", NULL, "create the dataset and stop" },
	{ O_NO_PREP, "no-prepare", NULL, "do not create the dataset (it must be there)" },
	{ O_SPARSE, "sparse", NULL, "prepare files as holes instead of random data" },
	{ O_TIMING, "timing", "MODE", "when ops are issued", "original|think|afap", "think",
	  OPT_T_CHOICE(CFG, timing) },
	{ O_SPEED, "speed", "X", "run X times faster (all recorded times / X)", NULL, "1",
	  OPT_T_DOUBLE(CFG, speed, 1e-3, 1e6) },
	{ O_SCALE, "compute-scale", "X", "scale think-time compute delays by X", NULL, "1",
	  OPT_T_DOUBLE(CFG, compute_scale, 0, 1000) },
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
	{ 'o', "output", "FILE", "write the report to FILE instead of stdout" },
	{ 'f', "force", NULL, "use a DIR that is neither empty nor prepared by iotape" },
	{ O_IGNORE, "ignore-errors", NULL, "exit 0 even when ops failed in the replay" },
	{ O_NO_META, "no-metadata", NULL, "leave the metadata ops (stat, getdents, ...) out" },
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

/* ------------------------------------------------------------ phases */

static int has_ops(const struct rp_layout *l)
{
	for (size_t i = 0; i < l->nthreads; i++)
		if (l->threads[i].nops)
			return 1;
	return 0;
}

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
};

static void prep_progress(void *arg, uint64_t files, uint64_t nfiles, uint64_t bytes,
			  uint64_t total)
{
	struct progress_line *pl = arg;

	fprintf(stderr, "\riotape replay: preparing %" PRIu64 "/%" PRIu64 " files, %" PRIu64
		"/%" PRIu64 " MiB ", files, nfiles, bytes >> 20, total >> 20);
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
				   .progress = progress ? prep_progress : NULL, .arg = &pl };
	struct rp_prep_stats ps;
	char err[512];
	int rc = rp_prepare(dirfd, l, &po, &ps, err, sizeof(err));

	if (pl.printed)
		fputc('\n', stderr);
	if (rc)
		cli_error("%s", err);
	return rc ? -1 : 0;
}

/* Replay src under dirfd into res, with what /proc/self/io and the cgroup
 * say about it: 0, or -1 after one error line. */
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
	if (progress && rp_engine_add_hooks(e, &hooks)) {
		rp_engine_free(e);
		cli_error("out of memory");
		return -1;
	}
	rb0 = io_read_bytes();
	rc = rp_engine_run(e, err, sizeof(err));
	if (pl.printed)
		fputc('\n', stderr);
	if (rc) {
		cli_error("%s", err);
		rp_engine_free(e);
		return -1;
	}
	rp_engine_finish(e, res);
	rp_engine_free(e);
	res->dev_read_bytes = io_read_bytes() - rb0;
	if (cg->entered) {
		rp_cgroup_stats(cg);
		res->cgroup = cg->v2 ? 2 : 1;
		res->mem_peak = cg->peak;
		res->mem_limit_hits = cg->limit_hits;
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

int cmd_replay(int argc, char **argv)
{
	struct rp_opts o = { 0 };	/* the defaults are replay_opts' */
	struct rp_cgroup cg = { 0 };
	const char *dir = NULL, *trace, *output = NULL;
	int prep_only = 0, no_prep = 0, sparse = 0, drop = 0, force = 0, json = 0, loops_given = 0;
	int ignore = 0, no_meta = 0;
	struct rp_source *src = NULL;
	struct rp_result res = { 0 };
	struct opt_parser p;
	char err[512];
	int c, dirfd = -1, ret = EXIT_FAIL, rc, progress;
	FILE *out = stdout;

	opt_init_cfg(&p, &replay_cmd, &o, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case OPT_HELP: return EXIT_OK;
		case OPT_ERR: return EXIT_USAGE;
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
		}
	}
	trace = opt_one_arg(&p, "TRACE");
	if (!trace)
		return EXIT_USAGE;
	if (!dir) {
		opt_error(&replay_cmd, "--dir is required");
		return EXIT_USAGE;
	}
	if (prep_only && no_prep) {
		opt_error(&replay_cmd, "--prepare-only and --no-prepare exclude each other");
		return EXIT_USAGE;
	}
	if (o.mem_limit && geteuid() != 0) {
		cli_error("--mem-limit needs root (it creates a cgroup)");
		return EXIT_FAIL;
	}
	if (!loops_given)
		o.loops = o.scale;	/* each copy read once */
	progress = isatty(STDERR_FILENO);

	/* under a memory limit, the queued ops take a quarter of it at most */
	struct rp_trace_opts to = { .direct = o.direct, .no_metadata = no_meta,
				    .queue_bytes = o.mem_limit ? o.mem_limit / 4 : 0 };
	if (to.queue_bytes > (64ull << 20))
		to.queue_bytes = 64ull << 20;
	rc = rp_trace_open(&src, trace, &to, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return EXIT_FAIL;
	}
	if (!has_ops(&src->layout)) {
		cli_error("%s: no file operations to replay (%" PRIu64 " skipped, %" PRIu64
			  " failed, %" PRIu64 " unmatched in the recording)", trace,
			  src->layout.skipped, src->layout.failed, src->layout.unmatched);
		goto out;
	}
	if ((dirfd = setup_dir(dir, force, &o, prep_only, &cg)) < 0)
		goto out;
	if (!no_prep && prepare(dirfd, &src->layout, sparse, o.scale, progress))
		goto out;
	if (prep_only) {
		ret = EXIT_OK;
		goto out;
	}
	if (drop && (rc = drop_caches())) {
		cli_error("--drop-caches: /proc/sys/vm/drop_caches: %s%s", strerror(-rc),
			  rc == -EACCES || rc == -EPERM ? " (needs root)" : "");
		goto out;
	}
	if (output && !(out = fopen(output, "w"))) {
		cli_error("%s: %s", output, strerror(errno));
		out = stdout;
		goto out;
	}
	if (run(src, dirfd, &o, progress, &cg, &res))
		goto out;
	rc = json ? rp_report_json(out, &src->layout, &o, &res) :
		    rp_report_text(out, &src->layout, &o, &res);
	/* stdout is checked by main(); a report file here */
	if (rc || (out != stdout && (fflush(out) || ferror(out)))) {
		cli_error("%s: write error: %s", output ? output : "stdout",
			  strerror(errno ? errno : EIO));
		goto out;
	}
	ret = failures(&src->layout, &res, ignore) ? EXIT_FAIL : EXIT_OK;
out:
	rp_cgroup_leave(&cg);
	if (out != stdout && fclose(out) && ret == EXIT_OK) {
		cli_error("%s: %s", output, strerror(errno));
		ret = EXIT_FAIL;
	}
	if (dirfd >= 0)
		close(dirfd);
	rp_result_release(&res);
	rp_source_free(src);
	return ret;
}
