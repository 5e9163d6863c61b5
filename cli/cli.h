/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the iotape front end shares with its subcommands.
 *
 * Every subcommand is one `int cmd_NAME(int argc, char **argv)` that gets
 * its own argv (argv[0] is the command name), prints what it has to say and
 * returns the process exit status: 0 ok, 1 runtime error, 2 usage error.
 * Only cmd_* functions print to the user; helpers below write to the FILE *
 * they are given and return 0 or -errno.
 *
 * Adding a command: declare it and its struct opt_cmd here and add one
 * line to the table in iotape.c.
 */
#ifndef IOTAPE_CLI_H
#define IOTAPE_CLI_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "ana_compare.h"

#ifndef IOTAPE_VERSION
#define IOTAPE_VERSION "0.0.0"
#endif

/* Exit statuses of every subcommand. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	/* runtime error: bad file, write error, ... */
	EXIT_USAGE = 2,	/* bad option or argument */
};

/* Subcommands (one file each): the function, and its option table and
 * usage (cli/opt.h), whose name and summary `iotape -h` shows too. */
struct opt_cmd;
int cmd_info(int argc, char **argv);
extern const struct opt_cmd info_cmd;
int cmd_dump(int argc, char **argv);
extern const struct opt_cmd dump_cmd;
int cmd_import(int argc, char **argv);
extern const struct opt_cmd import_cmd;
int cmd_analyze(int argc, char **argv);
extern const struct opt_cmd analyze_cmd;
int cmd_compare(int argc, char **argv);
extern const struct opt_cmd compare_cmd;
int cmd_record(int argc, char **argv);
extern const struct opt_cmd record_cmd;
int cmd_replay(int argc, char **argv);
extern const struct opt_cmd replay_cmd;
int cmd_convert(int argc, char **argv);
extern const struct opt_cmd convert_cmd;
int cmd_merge(int argc, char **argv);
extern const struct opt_cmd merge_cmd;
int cmd_split(int argc, char **argv);
extern const struct opt_cmd split_cmd;
int cmd_model(int argc, char **argv);
extern const struct opt_cmd model_cmd;
int cmd_export(int argc, char **argv);
extern const struct opt_cmd export_cmd;
int cmd_report(int argc, char **argv);
extern const struct opt_cmd report_cmd;
int cmd_whatif(int argc, char **argv);
extern const struct opt_cmd whatif_cmd;
int cmd_anonymize(int argc, char **argv);
extern const struct opt_cmd anonymize_cmd;
/* The key in file path (cli/cmd_anonymize.c): 32 raw bytes or 64 hex
 * digits; 0, or -1 after one error line. */
int anon_read_key(const char *path, uint8_t key[32]);
/* An anonymizer that names files as trace, an anonymized trace, does:
 * the key in keyfile (its key id must be trace's anon.key_id) and trace's
 * anon.* options.  0, or -1 after one error line (*out NULL). */
typedef struct cli_anon cli_anon;
int anon_of_trace(const char *keyfile, const char *trace, cli_anon **out);

/*
 * Pass/fail checks (`compare --check`, `model --check`) are the analyze
 * library's (analyze/ana_compare.h, with the fidelity checks); the cli
 * names for them stay.
 */
#define CLI_CHECKS_MAX ANA_CHECKS_MAX
#define cli_checks ana_checks
#define cli_check_add ana_check_add
#define cli_checks_print ana_checks_print
#define cli_rel_diff ana_rel_diff
/* `iotape compare --check`'s checks of B against A (ana_cmp_checks),
 * with --map map (NULL: none) and --no-metadata: EXIT_OK with k filled
 * (passed or not), else EXIT_USAGE or EXIT_FAIL after one error line. */
int compare_checks(const char *a, const char *b, const char *map, int no_metadata,
		   struct cli_checks *k);

/* `iotape model --check` (cli/model_check.c): run the trace and the job
 * file job derived from it under dir, recorded, and print the fidelity
 * checks: EXIT_OK when they pass, else EXIT_FAIL (after one error line). */
int model_check(const char *trace, const char *dir, const char *job);
/* Its runs (cli/model_run.c): job (a trace or a job file) replayed under
 * dir as `iotape replay -d DIR --timing think --output-format json -o
 * REPORT JOB` would, a replay session in this process, its messages to
 * the file log; _recorded: in a child process, recorded into the trace
 * trace (syscall layer).  The replay's exit status (128 + the signal that
 * stopped it), or -1 after one error line (the replay could not run, or
 * its recording failed). */
int model_replay(const char *job, const char *dir, const char *report, const char *log);
int model_replay_recorded(const char *job, const char *dir, const char *report,
			  const char *log, const char *trace);

struct ss_cfg;
struct ss_ui;
/* A replay session's options as iotape replay's defaults (replay_cmd's
 * table) make them: a run with no option (cli/cmd_replay.c). */
void cli_replay_defaults(struct ss_cfg *c);
/* A replay session's voice (errors and notes) into log, as iotape replay
 * says them on stderr (cli/util.c). */
void cli_replay_log(struct ss_ui *ui, FILE *log);

struct cm_job;
/* The job a DLIO workload YAML runs (cli/model_dlio.c, rp_dlio_job()) for
 * ranks ranks (0: its default) into job (empty): EXIT_OK after one warning
 * line per key it cannot honour, else EXIT_USAGE (a bad YAML, a value of
 * the wrong type, an object store) or EXIT_FAIL after one error line. */
int model_dlio_job(const char *path, unsigned ranks, struct cm_job *job);

/* Command being run ("dump"), for error messages; set by main(). */
extern const char *cli_cmd;

/* Print "iotape CMD: <message>\n" on stderr: one line, whatever the
 * message holds (its control bytes and backslashes escaped like a path in
 * `iotape dump`: \n, \t, \x1b, \\). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same for any line: "iotape CMD: <message><tail>\n", without " CMD"
 * when cmd is NULL; only the message is escaped. */
void cli_verror(const char *cmd, const char *tail, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Same, for a libtape error: "iotape CMD: <what>: <strerror>: <detail>",
 * leaving out the parts the detail already holds. */
void cli_tape_error(const char *what, int err);

/* Should SIGINT, SIGTERM or SIGHUP (those not ignored or handled) end this
 * process, remove path first (a file it is writing and would leave
 * incomplete); path must live until exit or until cli_rm_on_signal(NULL),
 * which forgets every path.  At most 4 paths. */
void cli_rm_on_signal(const char *path);
/* From now on SIGINT, SIGTERM and SIGHUP (those not ignored: nohup's) end
 * this process at once, with what it runs (an in-process replay): the
 * paths given to cli_stop_rm are removed, the last first (a file, or an
 * empty directory), one line "iotape CMD: stopped by SIGX<tail>" is said
 * (cli_stop_say) and the exit status is 128 + the signal.  cli_stop_rm: 0,
 * or -1 when the table (24 paths) is full.  cli_stop_release: the work is
 * done: the signals are ignored from now on, nothing is removed. */
void cli_stop_catch(void);
int cli_stop_rm(const char *path);
void cli_stop_say(const char *tail);
void cli_stop_release(void);

/* Without force, an existing out is refused: 1 after one error line
 * ("OUT: exists (use -f to replace it)"), else 0.  For a check before the
 * input is read; cli_trace_create() refuses the same way. */
int cli_output_refused(const char *out, int force);

/*
 * Create the trace out for writing.  Without force it must not exist
 * (O_EXCL); with force the writer writes to a temporary file next to it,
 * *tmp (malloc'd), which the caller renames over out when done, or
 * unlinks on failure.  0, or -1 after one error line; opts may be NULL.
 */
struct tape_writer_opts;
typedef struct tape_writer tape_writer;
int cli_trace_create(const char *out, int force, const struct tape_writer_opts *opts,
		     char **tmp, tape_writer **w);
/* Close w (freed in every case) and rename tmp, when not NULL, over out;
 * 0, or -1 after one error line (the caller then calls cli_trace_abandon
 * with w NULL). */
int cli_trace_finish(tape_writer *w, const char *out, const char *tmp);
/* After a failure between cli_trace_create and a successful
 * cli_trace_finish: free w (may be NULL) and remove what was created, tmp
 * when not NULL, else out. */
void cli_trace_abandon(tape_writer *w, const char *out, const char *tmp);

#endif /* IOTAPE_CLI_H */
