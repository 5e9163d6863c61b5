/* SPDX-License-Identifier: MIT */
/*
 * iotape.c - main(): the table of subcommands, top-level options and help.
 *
 * Like git and perf, `iotape CMD ARGS` runs cmd_CMD(argc, argv) with
 * argv[0] = "CMD".  Whatever the command, stdout is flushed and checked
 * before exit: a full disk or a closed pipe is an error, not silence.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tape.h"

struct cmd_struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;	/* one line for `iotape -h` */
};

/* Add new subcommands here (and declare them in cli.h). */
static const struct cmd_struct commands[] = {
	{ "record", cmd_record, "record the I/O of a command and its children with eBPF" },
	{ "info", cmd_info, "show the metadata, tables and health of a trace" },
	{ "dump", cmd_dump, "print the events of a trace as text, CSV or JSON lines" },
	{ "import", cmd_import, "build a trace from a CSV file" },
	{ "analyze", cmd_analyze, "characterize a trace: access pattern, cache, block, epochs" },
	{ "compare", cmd_compare, "compare two traces' analyses; check a replay's fidelity" },
	{ "replay", cmd_replay, "replay the I/O of a trace under a directory, reporting like fio" },
};

#define NCMDS (sizeof(commands) / sizeof(commands[0]))

static const struct cmd_struct *cmd_find(const char *name)
{
	for (size_t i = 0; i < NCMDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	fputs("usage: iotape [--version] [-h | --help] COMMAND [ARGS]\n\n"
	      "Record, analyze and replay the I/O of deep-learning jobs.\n\n"
	      "commands:\n", f);
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("   help       show the usage of a command\n\n"
	      "See 'iotape help COMMAND' or 'iotape COMMAND -h' for the options "
	      "of a command.\n", f);
}

static void unknown(const char *name)
{
	fprintf(stderr, "iotape: '%s' is not an iotape command. See 'iotape -h'.\n",
		name);
}

/* iotape help [CMD]: the command's -h text, and where the manual is. */
static int cmd_help(int argc, char **argv)
{
	const struct cmd_struct *c;
	char *hargv[] = { NULL, "-h", NULL };
	int ret;

	if (argc < 2 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (argc > 2) {
		cli_error("too many arguments (see 'iotape help')");
		return EXIT_USAGE;
	}
	c = cmd_find(argv[1]);
	if (!c) {
		unknown(argv[1]);
		return EXIT_FAIL;
	}
	hargv[0] = (char *)c->name;
	cli_cmd = c->name;
	ret = c->fn(2, hargv);
	printf("\nSee iotape-%s(1).\n", c->name);
	return ret;
}

/* perf's check: anything stdout could not write is an error. */
static int check_stdout(int ret)
{
	int err = 0;

	if (fflush(stdout) != 0)
		err = errno;
	else if (ferror(stdout))
		err = errno ? errno : EIO;
	if (err) {
		cli_error("write error: %s", strerror(err));
		return ret ? ret : EXIT_FAIL;
	}
	return ret;
}

int main(int argc, char **argv)
{
	const struct cmd_struct *c;
	int ret;

	if (argc < 2 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return check_stdout(EXIT_OK);
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("iotape version %s (trace format %d.%d)\n", IOTAPE_VERSION,
		       TAPE_FORMAT_MAJOR, TAPE_FORMAT_MINOR);
		return check_stdout(EXIT_OK);
	}
	if (argv[1][0] == '-') {
		fprintf(stderr, "iotape: unknown option '%s'. See 'iotape -h'.\n",
			argv[1]);
		return EXIT_USAGE;
	}
	cli_cmd = argv[1];
	if (strcmp(argv[1], "help") == 0)
		return check_stdout(cmd_help(argc - 1, argv + 1));
	c = cmd_find(argv[1]);
	if (!c) {
		unknown(argv[1]);
		return EXIT_FAIL;
	}
	ret = c->fn(argc - 1, argv + 1);
	return check_stdout(ret);
}
