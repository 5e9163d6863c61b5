/* SPDX-License-Identifier: MIT */
/*
 * cmd_analyze.c - `iotape analyze`: parse options, run the analysis
 * (ana_run), print text or JSON.  The only file of analyze/ that prints
 * messages to the user or picks an exit status: 0 done (a damaged block
 * included: a warning, and the events before it), 1 the trace could not be
 * read or the output could not be written (main() checks stdout), 2 bad
 * usage.  The engines (ana_*.c) link without this file.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "analyze.h"
#include "cli.h"
#include "opt.h"

enum {
	O_JSON = OPT_LONG(0),
	O_PER_FILE = OPT_LONG(1),
	O_PER_PROCESS = OPT_LONG(2),
	O_TOP = OPT_LONG(3),
	O_FROM = OPT_LONG(4),
	O_TO = OPT_LONG(5),
	O_PID = OPT_LONG(6),
	O_THREADS = OPT_LONG(7),
};

struct analyze_cfg {
	struct ana_opts o;
	unsigned top;
	int threads;		/* index in "1|2" */
};

#define CFG struct analyze_cfg
static const struct opt analyze_opts[] = {
	{ O_JSON, "json", NULL, "print JSON (schema iotape-analyze/1) instead of text",
	  OPT_T_FLAG(CFG, o.json) },
	{ O_PER_FILE, "per-file", NULL, "list files (text; JSON always has them)",
	  OPT_T_FLAG(CFG, o.per_file) },
	{ O_PER_PROCESS, "per-process", NULL, "list processes and every thread (text)",
	  OPT_T_FLAG(CFG, o.per_process) },
	{ O_TOP, "top", "N", "list at most N files, processes, threads (0: all)", NULL,
	  "20; all in JSON", OPT_T_UINT(CFG, top, 0, CM_OPT_NOMAX) },
	{ O_FROM, "from", "T", "start T after the trace start (12, 1.5s, 250ms, 2m)", NULL, "0",
	  OPT_T_DURATION(CFG, o.from_ns, 0, CM_OPT_NOMAX) },
	{ O_TO, "to", "T", "stop T after the trace start",
	  OPT_T_DURATION(CFG, o.to_ns, 0, CM_OPT_NOMAX) },
	{ O_PID, "pid", "P", "only process P and its descendants",
	  OPT_T_UINT(CFG, o.pid, 0, UINT32_MAX) },
	{ O_THREADS, "threads", "N", "2: a second thread (cache and block passes, decoding ahead, JSON rows)", "1|2",
	  "2", OPT_T_CHOICE(CFG, threads) },
	{ 0 }
};
#undef CFG

const struct opt_cmd analyze_cmd = {
	"analyze", "TRACE", "Characterize the I/O of a recorded training job.",
	"The data set, told from the job's code: its access pattern, epochs,\n"
	"request sizes and page cache, then the other files'; block layer,\n"
	"syscall latency, checkpoints and compute/I/O overlap, as text or one\n"
	"JSON object.  Every metric is defined in iotape-analyze(1).",
	analyze_opts,
};

int cmd_analyze(int argc, char **argv)
{
	struct opt_parser p;
	/* no --to: the end */
	struct analyze_cfg cfg = { .o = { .to_ns = UINT64_MAX } };
	struct ana_opts o;
	struct ana a;
	const char *path, *why;
	int c, err, top_given = 0;

	opt_init_cfg(&p, &analyze_cmd, &cfg, argc, argv);
	while ((c = opt_next(&p)) != OPT_END) {
		switch (c) {
		case OPT_HELP:
			return EXIT_OK;
		case OPT_ERR:
			return EXIT_USAGE;
		case O_TOP:
			top_given = 1;
			break;
		case O_PID:
			cfg.o.has_pid = 1;
			break;
		}
	}
	o = cfg.o;
	o.top = top_given || !o.json ? (long)cfg.top : -1;	/* -1: the engine's, all */
	o.threads = cfg.threads + 1;
	if (!(path = opt_one_arg(&p, "TRACE"))) {
		return EXIT_USAGE;
	}
	if (o.to_ns != UINT64_MAX && o.to_ns <= o.from_ns) {
		opt_error(&analyze_cmd, "--to must be after --from");
		return EXIT_USAGE;
	}

	err = ana_run(&a, path, &o);
	if (!err)	/* a merged trace: each host's analysis too */
		err = ana_hosts(&a);
	if (err == -ENOMEM) {
		cli_error("%s: out of memory: the analysis keeps state per file, process, "
			  "thread and open fd, and this trace has more than fits", path);
		ana_release(&a);
		return EXIT_FAIL;
	}
	if (err) {
		cli_tape_error(path, err);
		ana_release(&a);
		return EXIT_FAIL;
	}
	why = tape_reader_recovered(a.r);
	if (why)
		cli_error("warning: %s: index rebuilt by scanning (%s); analysing what was recovered",
			  path, why);
	for (int t = 1; t < TAPE_TABLE_MAX; t++)
		if (a.damage[t])
			cli_error("warning: %s: %s table: %s; analysing the events before it",
				  path, tape_table_name(t), a.damage_detail[t]);
	ana_release_lookup(&a);	/* (the reports look no file up by inode: memory) */
	/* a failed write shows in ferror(stdout), checked by main() */
	if (o.json)
		err = ana_report_json(&a, stdout);
	else
		err = ana_report_text(&a, stdout);
	ana_release(&a);
	if (err == -ENOMEM) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
