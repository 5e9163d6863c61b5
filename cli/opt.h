/* SPDX-License-Identifier: MIT */
/*
 * opt.h - option tables for iotape subcommands (fio's fio_options[] idea).
 *
 * Each subcommand describes its options once, in a table; the same table
 * builds the getopt_long() arrays, validates arguments that must be one of a
 * fixed set of words, and prints the usage text that `iotape CMD -h`,
 * `iotape help CMD` and the man page SYNOPSIS share.  -h/--help is added to
 * every table.
 *
 *	static const struct opt opts[] = {
 *		{ 'o', "output", "FILE", "write to FILE instead of stdout" },
 *		{ OPT_LONG(0), "stats", NULL, "print statistics" },
 *		{ 0 }
 *	};
 *	static const struct opt_cmd cmd = { "dump", "TRACE", "print events", NULL, opts };
 *
 *	struct opt_parser p;
 *	opt_init(&p, &cmd, argc, argv);
 *	while ((c = opt_next(&p)) != OPT_END) {
 *		switch (c) {
 *		case OPT_HELP: return EXIT_OK;
 *		case OPT_ERR: return EXIT_USAGE;
 *		case 'o': out = p.arg; break;
 *		}
 *	}
 *	args = opt_args(&p, &nargs);
 */
#ifndef IOTAPE_OPT_H
#define IOTAPE_OPT_H

#include <getopt.h>
#include <stdio.h>

#define OPT_MAX 32		/* options per table, -h included */
#define OPT_LONG(n) (256 + (n))	/* id of an option with no short form */

/* opt.flags */
#define OPT_REQUIRED (1u << 0)	/* shown without [] in the synopsis */
#define OPT_MULTI (1u << 1)	/* may be repeated: "[-p PID]..." */

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
	const char *def;	/* default shown in the help, NULL for none */
	unsigned flags;		/* OPT_* */
};

struct opt_cmd {
	const char *name;	/* "dump" */
	const char *args;	/* positional arguments in the synopsis ("TRACE") */
	const char *summary;	/* one line, also in `iotape -h` */
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
	int argc;
	char **argv;
	const char *arg;	/* argument of the option just returned */
	int choice;		/* its index in opt.choices, else -1 */
	struct option lopts[OPT_MAX + 1];
	char sopts[3 * OPT_MAX + 2];
};

/* Prepare to parse argv (argv[0] is the command name). */
void opt_init(struct opt_parser *p, const struct opt_cmd *cmd, int argc,
	      char **argv);
/* The next option's id, or OPT_END, OPT_HELP, OPT_ERR (see above). */
int opt_next(struct opt_parser *p);
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
