/* SPDX-License-Identifier: MIT */
/*
 * opt.c - parse options and print usage from one table per subcommand.
 *
 * getopt_long() does the parsing (GNU permutation, so options may follow
 * the positional arguments); this file builds its arrays from the table,
 * turns its errors into one line on stderr, checks arguments that must be
 * one of a set of words, has common/parse.h store typed options and their
 * defaults, and prints the help.
 */
#include <stdarg.h>
#include <string.h>
#include "cli.h"
#include "opt.h"

static const struct opt help_opt = {
	'h', "help", NULL, "show this help and exit", NULL, NULL, 0
};

/* The i-th option of the table, -h/--help last; NULL past the end. */
static const struct opt *opt_at(const struct opt_cmd *cmd, int i)
{
	int n = 0;

	while (cmd->opts && cmd->opts[n].id)
		n++;
	if (i < n)
		return &cmd->opts[i];
	return i == n ? &help_opt : NULL;
}

/* The typed description of o, for common/parse.h. */
static void opt_def(const struct opt *o, struct cm_optdef *d)
{
	*d = (struct cm_optdef){ o->name, o->type, o->def, o->min, o->max, o->choices,
				 o->off };
}

void opt_init(struct opt_parser *p, const struct opt_cmd *cmd, int argc,
	      char **argv)
{
	opt_init_cfg(p, cmd, NULL, argc, argv);
}

/* Store the default of every typed option in p->cfg; a default that does
 * not parse is a bug of the table, said once. */
static void opt_defaults(struct opt_parser *p)
{
	const struct opt *o;
	struct cm_optdef d;
	char why[128] = "no config struct";

	for (int i = 0; (o = opt_at(p->cmd, i)); i++) {
		if (o->type == CM_OPT_NONE)
			continue;
		opt_def(o, &d);
		if (!p->cfg || cm_opt_default(&d, p->cfg, why, sizeof(why)) < 0) {
			fprintf(stderr, "iotape %s: bug: --%s: default '%s': %s\n",
				p->cmd->name, o->name, o->def ? o->def : "", why);
			p->bad_table = 1;
			return;
		}
	}
}

void opt_init_cfg(struct opt_parser *p, const struct opt_cmd *cmd, void *cfg, int argc,
		  char **argv)
{
	const struct opt *o;
	size_t s = 0;
	int i;

	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->cfg = cfg;
	p->argc = argc;
	p->argv = argv;
	p->choice = -1;
	/* '+': stop at the first argument (POSIX), for commands that run a
	 * command line; ':' first: a missing argument returns ':' rather
	 * than '?' */
	if (cmd->flags & OPT_CMD_STOP)
		p->sopts[s++] = '+';
	p->sopts[s++] = ':';
	for (i = 0; i < OPT_MAX && (o = opt_at(cmd, i)); i++) {
		p->lopts[i].name = o->name;
		p->lopts[i].has_arg = o->arg ? required_argument : no_argument;
		p->lopts[i].val = o->id;
		if (o->id > 0 && o->id < 256) {
			p->sopts[s++] = (char)o->id;
			if (o->arg)
				p->sopts[s++] = ':';
		}
	}
	p->sopts[s] = '\0';
	optind = 0;	/* glibc: re-initialise */
	opterr = 0;
	opt_defaults(p);
}

static const struct opt *opt_by_id(const struct opt_cmd *cmd, int id)
{
	const struct opt *o;

	for (int i = 0; (o = opt_at(cmd, i)); i++)
		if (o->id == id)
			return o;
	return NULL;
}

int opt_error(const struct opt_cmd *cmd, const char *fmt, ...)
{
	char tail[64];
	va_list ap;

	snprintf(tail, sizeof(tail), " (see 'iotape %s -h')", cmd->name);
	va_start(ap, fmt);
	cli_verror(cmd->name, tail, fmt, ap);
	va_end(ap);
	return OPT_ERR;
}

static const char *opt_label(const struct opt *o, char *buf, size_t len)
{
	if (o->id > 0 && o->id < 256)
		snprintf(buf, len, "-%c", o->id);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

int opt_next(struct opt_parser *p)
{
	const struct opt *o;
	struct cm_optdef d;
	char lbl[64], why[128];
	int c;

	p->arg = NULL;
	p->choice = -1;
	if (p->bad_table)
		return OPT_ERR;
	c = getopt_long(p->argc, p->argv, p->sopts, p->lopts, NULL);
	if (c == -1)
		return OPT_END;
	if (c == '?') {
		const char *bad = p->argv[optind - 1];
		int lng = bad && bad[0] == '-' && bad[1] == '-';

		if (optopt && lng)	/* --flag=value */
			return opt_error(p->cmd, "option '%.*s' takes no argument",
					 (int)strcspn(bad, "="), bad);
		if (optopt && optopt < 256)
			return opt_error(p->cmd, "unknown option '-%c'", optopt);
		return opt_error(p->cmd, "unknown option '%s'", bad ? bad : "?");
	}
	if (c == ':') {
		o = opt_by_id(p->cmd, optopt);
		return opt_error(p->cmd, "option '%s' needs an argument",
				 o ? opt_label(o, lbl, sizeof(lbl)) :
				     p->argv[optind - 1]);
	}
	if (c == 'h') {
		opt_usage(p->cmd, stdout);
		return OPT_HELP;
	}
	o = opt_by_id(p->cmd, c);
	p->arg = optarg;
	if (o && optarg && !*optarg && (o->type == CM_OPT_STR || (o->flags & OPT_PATH)))
		return opt_error(p->cmd, "--%s: an empty %s", o->name, o->arg ? o->arg : "value");
	if (o && o->choices && optarg) {
		p->choice = cm_parse_choice(o->choices, optarg);
		if (p->choice < 0)
			return opt_error(p->cmd, "--%s: '%s' is not one of %s", o->name,
					 optarg, o->choices);
	}
	if (o && o->type != CM_OPT_NONE) {
		opt_def(o, &d);
		if (cm_opt_set(&d, p->cfg, optarg, why, sizeof(why)) < 0)
			return opt_error(p->cmd, "--%s: '%s' is %s", o->name,
					 optarg ? optarg : "", why);
	}
	return c;
}

int opt_all(struct opt_parser *p)
{
	int c;

	while ((c = opt_next(p)) >= 0)
		;
	return c;
}

char **opt_args(struct opt_parser *p, int *n)
{
	*n = p->argc - optind;
	return p->argv + optind;
}

const char *opt_one_arg(struct opt_parser *p, const char *what)
{
	int n;
	char **args = opt_args(p, &n);
	if (n == 1)
		return args[0];
	if (n)
		opt_error(p->cmd, "expected one %s, got %d arguments", what, n);
	else
		opt_error(p->cmd, "missing %s", what);
	return NULL;
}

void opt_synopsis(const struct opt_cmd *cmd, FILE *f)
{
	const struct opt *o;
	char lbl[64];

	fprintf(f, "iotape %s", cmd->name);
	for (int i = 0; (o = opt_at(cmd, i)) && o != &help_opt; i++) {
		int req = o->flags & OPT_REQUIRED;

		fprintf(f, " %s%s", req ? "" : "[", opt_label(o, lbl, sizeof(lbl)));
		if (o->arg)
			fprintf(f, " %s", o->arg);
		fputs(req ? "" : "]", f);
		if (o->flags & OPT_MULTI)
			fputs("...", f);
	}
	if (cmd->args && *cmd->args)
		fprintf(f, " %s", cmd->args);
}

void opt_usage(const struct opt_cmd *cmd, FILE *f)
{
	const struct opt *o;

	fputs("usage: ", f);
	opt_synopsis(cmd, f);
	fprintf(f, "\n\n%s\n", cmd->summary);
	if (cmd->desc)
		fprintf(f, "\n%s\n", cmd->desc);
	fputs("\noptions:\n", f);
	for (int i = 0; (o = opt_at(cmd, i)); i++) {
		char left[80];
		int n;

		if (o->id > 0 && o->id < 256)
			n = snprintf(left, sizeof(left), "-%c, --%s", o->id, o->name);
		else
			n = snprintf(left, sizeof(left), "    --%s", o->name);
		if (o->arg && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - n, "=%s", o->arg);
		fprintf(f, "  %-24s %s", left, o->help);
		if (o->choices)
			fprintf(f, " (%s)", o->choices);
		if (o->def)
			fprintf(f, " [default: %s]", o->def);
		fputc('\n', f);
	}
}
