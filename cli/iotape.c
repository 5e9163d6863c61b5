/* SPDX-License-Identifier: MIT */
/*
 * iotape.c - main(): the table of subcommands, top-level options and help.
 *
 * Like git and perf, `iotape CMD ARGS` runs cmd_CMD(argc, argv) with
 * argv[0] = "CMD".  Whatever the command, stdout is flushed and checked
 * before exit: a full disk or a closed pipe is an error, not silence.
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "opt.h"
#include "tape.h"

struct cmd_struct {
	int (*fn)(int argc, char **argv);
	const struct opt_cmd *cmd;	/* its name and summary */
};


/* Add new subcommands here (and declare them in cli.h). */
static const struct cmd_struct commands[] = {
	{ cmd_record, &record_cmd },
	{ cmd_info, &info_cmd },
	{ cmd_dump, &dump_cmd },
	{ cmd_import, &import_cmd },
	{ cmd_convert, &convert_cmd },
	{ cmd_anonymize, &anonymize_cmd },
	{ cmd_analyze, &analyze_cmd },
	{ cmd_compare, &compare_cmd },
	{ cmd_report, &report_cmd },
	{ cmd_whatif, &whatif_cmd },
	{ cmd_replay, &replay_cmd },
	{ cmd_model, &model_cmd },
	{ cmd_export, &export_cmd },
};

#define NCMDS (sizeof(commands) / sizeof(commands[0]))

static const struct cmd_struct *cmd_find(const char *name)
{
	for (size_t i = 0; i < NCMDS; i++)
		if (strcmp(commands[i].cmd->name, name) == 0)
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	fputs("usage: iotape [--version] [-h | --help] COMMAND [ARGS]\n\n"
	      "Record, analyze and replay the I/O of deep-learning jobs.\n\n"
	      "commands:\n", f);
	for (size_t i = 0; i < NCMDS; i++) {
		/* the summary without its capital and period */
		const char *s = commands[i].cmd->summary;
		int n = (int)strlen(s);

		n -= n && s[n - 1] == '.';
		fprintf(f, "   %-10s %c%.*s\n", commands[i].cmd->name,
			tolower((unsigned char)s[0]), n - 1, s + 1);
	}
	fputs("   help       show the manual page of a command (-u: its options)\n\n"
	      "See 'iotape help COMMAND' or 'iotape COMMAND -h' for the options "
	      "of a command.\n", f);
}

/* "iotape: <message>\n" on stderr, escaped as cli_error() escapes. */
static void __attribute__((format(printf, 1, 2))) main_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_verror(NULL, "", fmt, ap);
	va_end(ap);
}

static void unknown(const char *name)
{
	main_error("'%s' is not an iotape command. See 'iotape -h'.", name);
}

/*
 * The manual page of a topic (a command, "format" or "iotape"): the copy
 * beside the binary when it runs from the source tree (./iotape and
 * man/), the installed copy under PREFIX when it runs from PREFIX/bin,
 * else whatever man(1) finds.  Like `git help`, man prints it (through
 * $MANPAGER when stdout is a terminal).  Returns man's exit status, or -1
 * when man could not be run.
 */
static int show_man(const char *page, int section)
{
	char exe[4096], path[4200], name[16];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *file = NULL;
	int status;
	pid_t pid;

	if (n > 0) {
		char *slash;
		exe[n] = 0;
		if ((slash = strrchr(exe, '/')))
			*slash = 0;
		snprintf(path, sizeof(path), "%s/man/%s.%d", exe, page, section);
		if (access(path, R_OK) != 0)
			snprintf(path, sizeof(path), "%s/../share/man/man%d/%s.%d",
				 exe, section, page, section);
		if (access(path, R_OK) == 0)
			file = path;
	}
	snprintf(name, sizeof(name), "%d", section);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (file)
			execlp("man", "man", "-l", file, (char *)NULL);
		else
			execlp("man", "man", name, page, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 127)
		return -1;
	return WEXITSTATUS(status);
}

/*
 * iotape help [-u] [TOPIC]: the manual page of a command (or of "format",
 * the trace file format); with -u, or when man is missing, the command's
 * -h text and where the manual is.
 */
static int cmd_help(int argc, char **argv)
{
	const struct cmd_struct *c = NULL;
	char *hargv[] = { NULL, "-h", NULL };
	char page[64];
	int usage_only = 0, section = 1, ret;

	if (argc > 1 && (strcmp(argv[1], "-u") == 0 || strcmp(argv[1], "--usage") == 0)) {
		usage_only = 1;
		argc--, argv++;
	}
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		puts("usage: iotape help [-u | --usage] [COMMAND | format]\n\n"
		     "Shows the manual page of COMMAND (or iotape-format(5)); -u prints\n"
		     "the command's options instead.");
		return EXIT_OK;
	}
	if (argc > 1 && argv[1][0] == '-') {
		cli_error("unknown option '%s' (see 'iotape help -h')", argv[1]);
		return EXIT_USAGE;
	}
	if (argc < 2 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (argc > 2) {
		cli_error("too many arguments (see 'iotape help -h')");
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "format") == 0) {
		section = 5;
	} else if (!(c = cmd_find(argv[1]))) {
		unknown(argv[1]);
		return EXIT_FAIL;
	}
	snprintf(page, sizeof(page), "iotape-%s", argv[1]);
	if (!usage_only) {
		ret = show_man(page, section);
		if (ret == 0)
			return EXIT_OK;
		if (ret > 0) {	/* man said why on stderr */
			if (!c)
				return EXIT_FAIL;
			cli_error("no manual page %s(%d); the options follow", page, section);
		} else {
			cli_error("man(1) is not installed; the options follow");
		}
	}
	if (!c) {
		printf("See %s(%d).\n", page, section);
		return EXIT_OK;
	}
	hargv[0] = (char *)c->cmd->name;
	cli_cmd = c->cmd->name;
	ret = c->fn(2, hargv);
	printf("\nSee %s(%d).\n", page, section);
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
		main_error("unknown option '%s'. See 'iotape -h'.", argv[1]);
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
