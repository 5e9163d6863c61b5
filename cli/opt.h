/* SPDX-License-Identifier: MIT */
/*
 * opt.h - option tables for iotape subcommands (fio's fio_options[] idea).
 *
 * Each subcommand describes its options once, in a table; the same table
 * builds the getopt_long() arrays, parses, checks and stores the values of
 * typed options, gives their defaults, and prints the usage text that
 * `iotape CMD -h`, `iotape help CMD` and the man page SYNOPSIS share.
 * -h/--help is added to every table.
 *
 * A typed option (OPT_T_*: a flag, a string, a choice, a number, a size,
 * a time) names a field of the command's config struct: opt_init_cfg()
 * stores its default there, and opt_next() parses, checks and stores each
 * value given (common/parse.h says the rules and the field types), or
 * prints one error line ("iotape replay: --speed: 'nan' is not a number
 * from 0.001 to 1000000 (see 'iotape replay -h')"); an empty string,
 * for a string option (OPT_T_STR, or OPT_PATH), is refused the same way
 * ("--output: an empty FILE"): no file, directory, cgroup or name is "".
 * opt_next() still
 * returns the option's id, so a command can react to it being given.  An
 * untyped option (no OPT_T_*) leaves its value in p.arg to the command.
 *
 *	struct dump_cfg { const char *out; int stats; unsigned n; };
 *	static const struct opt opts[] = {
 *		{ 'o', "output", "FILE", "write to FILE instead of stdout",
 *		  OPT_T_STR(struct dump_cfg, out) },
 *		{ OPT_LONG(0), "stats", NULL, "print statistics",
 *		  OPT_T_FLAG(struct dump_cfg, stats) },
 *		{ 'n', "count", "N", "print N events", NULL, "10",
 *		  OPT_T_UINT(struct dump_cfg, n, 1, 1000) },
 *		{ 0 }
 *	};
 *	const struct opt_cmd dump_cmd = { "dump", "TRACE", "Print events.", NULL, opts };
 *
 *	struct dump_cfg cfg = { 0 };
 *	struct opt_parser p;
 *	opt_init_cfg(&p, &dump_cmd, &cfg, argc, argv);	// cfg.n = 10
 *	if ((c = opt_all(&p)) != OPT_END)	// or a loop of opt_next()
 *		return c == OPT_HELP ? EXIT_OK : EXIT_USAGE;
 *	args = opt_args(&p, &nargs);
 */
#ifndef IOTAPE_OPT_H
#define IOTAPE_OPT_H

#include <getopt.h>
#include <stdio.h>
#include "parse.h"

#define OPT_MAX 64		/* options per table, -h included (more are cut
				 * off, -h first: options.sh catches it) */
#define OPT_LONG(n) (256 + (n))	/* id of an option with no short form */

/* opt.flags */
#define OPT_REQUIRED (1u << 0)	/* shown without [] in the synopsis */
#define OPT_MULTI (1u << 1)	/* may be repeated: "[-p PID]..." */
#define OPT_PATH (1u << 2)	/* an untyped option whose value names a file
				 * or directory: an empty one is refused (as
				 * every OPT_T_STR's is) */

/* opt_cmd.flags */
#define OPT_CMD_STOP (1u << 0)	/* options end at the first argument (a
				 * command line to run: its own options are
				 * not ours) */

struct opt {
	int id;			/* short option letter or OPT_LONG(n); 0 ends */
	const char *name;	/* long name, without "--" */
	const char *arg;	/* argument name ("FILE"), NULL for a flag */
	const char *help;	/* one line */
	const char *choices;	/* "text|csv|jsonl": arg must be one of these */
	/* The default, shown in the help; NULL for none.  Of a typed option
	 * it is also the value opt_init_cfg() stores: the text before a ';',
	 * the rest being a note for the help ("20; all in JSON").  Of an
	 * untyped one it is only shown: the command picks the default. */
	const char *def;
	unsigned flags;		/* OPT_* */
	/* typed options: OPT_T_* below fills these */
	enum cm_opt_type type;	/* CM_OPT_NONE: untyped */
	double min, max;	/* bounds of a number, inclusive */
	size_t off;		/* of its field in the config struct */
};

/*
 * The typed part of a table entry, after the positional fields (id ...
 * def or flags): the field of the config struct cfg the value goes to,
 * whose C type each macro checks at compile time, and the bounds of
 * numbers (CM_OPT_NOMAX: up to the type's largest).
 */
#define OPT_T_FLAG(cfg, field) \
	.type = CM_OPT_FLAG, .off = CM_OPT_OFF(cfg, field, int)
#define OPT_T_STR(cfg, field) \
	.type = CM_OPT_STR, .off = CM_OPT_OFF(cfg, field, const char *)
#define OPT_T_CHOICE(cfg, field) \
	.type = CM_OPT_CHOICE, .off = CM_OPT_OFF(cfg, field, int)
#define OPT_T_UINT(cfg, field, lo, hi) \
	.type = CM_OPT_UINT, .min = (lo), .max = (hi), .off = CM_OPT_OFF(cfg, field, unsigned)
#define OPT_T_SIZE(cfg, field, lo, hi) \
	.type = CM_OPT_SIZE, .min = (lo), .max = (hi), .off = CM_OPT_OFF(cfg, field, uint64_t)
#define OPT_T_DURATION(cfg, field, lo, hi) \
	.type = CM_OPT_DURATION, .min = (lo), .max = (hi), .off = CM_OPT_OFF(cfg, field, uint64_t)
#define OPT_T_DOUBLE(cfg, field, lo, hi) \
	.type = CM_OPT_DOUBLE, .min = (lo), .max = (hi), .off = CM_OPT_OFF(cfg, field, double)

struct opt_cmd {
	const char *name;	/* "dump" */
	const char *args;	/* positional arguments in the synopsis ("TRACE") */
	const char *summary;	/* one sentence ("Print the events of a trace."),
				 * also in `iotape -h` (there without the
				 * capital and the period) */
	const char *desc;	/* optional paragraph printed after the synopsis */
	const struct opt *opts;
	unsigned flags;		/* OPT_CMD_* */
};

enum {
	OPT_END = -1,	/* no more options */
	OPT_HELP = -2,	/* usage was printed on stdout: exit 0 */
	OPT_ERR = -3,	/* one error line was printed on stderr: exit 2 */
};

struct opt_parser {
	const struct opt_cmd *cmd;
	void *cfg;		/* where typed options go */
	int bad_table;		/* a default did not parse: OPT_ERR */
	int argc;
	char **argv;
	const char *arg;	/* argument of the option just returned */
	int choice;		/* its index in opt.choices, else -1 */
	struct option lopts[OPT_MAX + 1];
	char sopts[3 * OPT_MAX + 2];
};

/*
 * Prepare to parse argv (argv[0] is the command name) and store the
 * default of every typed option in cfg, which must not be NULL when the
 * table has typed options.  A default that does not parse is a bug of the
 * table: one error line, and opt_next() returns OPT_ERR.
 */
void opt_init_cfg(struct opt_parser *p, const struct opt_cmd *cmd, void *cfg, int argc,
		  char **argv);
/* The same for a table without typed options. */
void opt_init(struct opt_parser *p, const struct opt_cmd *cmd, int argc,
	      char **argv);
/* The next option's id (its value stored when it is typed), or OPT_END,
 * OPT_HELP, OPT_ERR (see above). */
int opt_next(struct opt_parser *p);
/* Every option, for a table whose options are all typed: OPT_END,
 * OPT_HELP or OPT_ERR. */
int opt_all(struct opt_parser *p);
/* After OPT_END: the positional arguments and their count. */
char **opt_args(struct opt_parser *p, int *n);
/* After OPT_END: the one positional argument (named what in the error),
 * or NULL after printing "missing WHAT" / "expected one WHAT" (exit 2). */
const char *opt_one_arg(struct opt_parser *p, const char *what);
/* Print the usage text to f. */
void opt_usage(const struct opt_cmd *cmd, FILE *f);
/* The synopsis line without "usage: " ("iotape dump [-o FILE] TRACE"). */
void opt_synopsis(const struct opt_cmd *cmd, FILE *f);
/* Print "iotape CMD: <msg> (see 'iotape CMD -h')" and return OPT_ERR. */
int opt_error(const struct opt_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* IOTAPE_OPT_H */
