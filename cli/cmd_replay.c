/* SPDX-License-Identifier: MIT */
/*
 * cmd_replay.c - `iotape replay`: run a recorded job's I/O against DIR.
 *
 * Steps: parse options, load the plan (rp_trace.c: paths confined,
 * "..": refused), open DIR (rp_prep.c: empty or marked unless --force),
 * enter the --mem-limit cgroup (rp_cgroup.c: before prepare, so the page
 * cache the prepared data fills is charged to it), prepare the dataset,
 * optionally drop caches, replay (rp_run.c), report (rp_report.c).  Only
 * this file prints; errors are one line, exit 1 (runtime) or 2 (usage).
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
	O_SCALE_DS,
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

int cmd_replay(int argc, char **argv)
{
	struct rp_opts o = { 0 };	/* the defaults are replay_opts' */
	struct rp_cgroup cg = { 0 };
	const char *dir = NULL, *trace, *output = NULL;
	int prep_only = 0, no_prep = 0, sparse = 0, drop = 0, force = 0, json = 0, loops_given = 0;
	struct rp_plan plan;
	struct rp_result res = { 0 };
	struct rp_prep_stats ps;
	struct opt_parser p;
	char err[512];
	int c, dirfd = -1, ret = EXIT_FAIL, rc;
	FILE *out = stdout;

	opt_init_cfg(&p, &replay_cmd, &o, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case OPT_HELP: return EXIT_OK;
		case OPT_ERR: return EXIT_USAGE;
		case 'd': dir = p.arg; break;
		case O_PREP_ONLY: prep_only = 1; break;
		case O_NO_PREP: no_prep = 1; break;
		case O_SPARSE: sparse = 1; break;
		case O_DROP: drop = 1; break;
		case O_LOOPS: loops_given = 1; break;
		case O_FMT: json = p.choice == 1; break;
		case 'o': output = p.arg; break;
		case 'f': force = 1; break;
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
	o.progress = isatty(STDERR_FILENO);

	rc = rp_plan_load(&plan, trace, o.direct, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		return EXIT_FAIL;
	}
	if (!plan.nops) {
		cli_error("%s: no file operations to replay (%" PRIu64 " skipped, %" PRIu64
			  " failed, %" PRIu64 " unmatched in the recording)", trace,
			  plan.skipped, plan.failed, plan.unmatched);
		goto out;
	}
	dirfd = rp_dir_open(dir, force, err, sizeof(err));
	if (dirfd < 0) {
		cli_error("%s", err);
		goto out;
	}
	if (o.mem_limit && !prep_only) {
		rc = rp_cgroup_enter(&cg, o.mem_limit, err, sizeof(err));
		if (rc) {
			cli_error("%s", err);
			goto out;
		}
	}
	if (!no_prep) {
		rc = rp_prepare(dirfd, &plan, sparse, o.direct, o.scale, o.progress, &ps,
				err, sizeof(err));
		if (rc) {
			cli_error("%s", err);
			goto out;
		}
	}
	if (prep_only) {
		ret = EXIT_OK;
		goto out;
	}
	if (drop && (rc = drop_caches())) {
		cli_error("--drop-caches: /proc/sys/vm/drop_caches: %s%s", strerror(-rc),
			  rc == -EACCES || rc == -EPERM ? " (needs root)" : "");
		goto out;
	}
	if (output) {
		out = fopen(output, "w");
		if (!out) {
			cli_error("%s: %s", output, strerror(errno));
			out = stdout;
			goto out;
		}
	}
	uint64_t rb0 = io_read_bytes();
	rc = rp_run(dirfd, &plan, &o, &res, err, sizeof(err));
	if (rc) {
		cli_error("%s", err);
		goto out;
	}
	res.dev_read_bytes = io_read_bytes() - rb0;
	if (cg.entered) {
		rp_cgroup_stats(&cg);
		res.cgroup = cg.v2 ? 2 : 1;
		res.mem_peak = cg.peak;
		res.mem_limit_hits = cg.limit_hits;
	}
	if (json)
		rc = rp_report_json(out, &plan, &o, &res);
	else
		rc = rp_report_text(out, &plan, &o, &res);
	/* stdout is checked by main(); a report file here */
	if (rc || (out != stdout && (fflush(out) || ferror(out)))) {
		cli_error("%s: write error: %s", output ? output : "stdout",
			  strerror(errno ? errno : EIO));
		goto out;
	}
	ret = EXIT_OK;
out:
	rp_cgroup_leave(&cg);
	if (out != stdout && fclose(out) && ret == EXIT_OK) {
		cli_error("%s: %s", output, strerror(errno));
		ret = EXIT_FAIL;
	}
	if (dirfd >= 0)
		close(dirfd);
	rp_result_release(&res, plan.nfiles);
	rp_plan_release(&plan);
	return ret;
}
