/* SPDX-License-Identifier: MIT */
/*
 * cmd_anonymize.c - `iotape anonymize`: a trace a site can publish.
 *
 * Paths, process names, the hostname and the command line are replaced or
 * removed by cli/anon.c's rules (keyed BLAKE2b; see anon.h); every
 * number is copied.  The key comes from --key FILE (32 raw bytes or 64 hex
 * digits), from --new-key FILE (a new random key written there, 64 hex
 * digits and a newline, mode 0600) or, with neither, is random and
 * forgotten at exit.
 *
 * Any failure leaves no OUT (nor the --new-key file) behind; so does
 * SIGINT, SIGTERM or SIGHUP (cli_rm_on_signal).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "anon.h"
#include "cli.h"
#include "fmt.h"
#include "opt.h"
#include "tape.h"

struct anon_cfg {
	const char *out, *key, *new_key;
	int force, keep_ext, quiet;
	unsigned keep_dirs;
};

static const struct opt anon_opts[] = {
	{ 'o', "output", "TRACE", "trace to create", NULL, NULL, OPT_REQUIRED,
	  OPT_T_STR(struct anon_cfg, out) },
	{ 'f', "force", NULL, "replace TRACE if it exists", OPT_T_FLAG(struct anon_cfg, force) },
	{ 'k', "key", "FILE", "the site's key: 32 bytes, or 64 hex digits (default: random, "
	  "forgotten)", OPT_T_STR(struct anon_cfg, key) },
	{ OPT_LONG(0), "new-key", "FILE", "make a new random key, write it to FILE (which must "
	  "not exist) and use it", OPT_T_STR(struct anon_cfg, new_key) },
	{ 'e', "keep-ext", NULL, "keep file name extensions (.jpg, .npy)",
	  OPT_T_FLAG(struct anon_cfg, keep_ext) },
	{ 'd', "keep-dirs", "N", "keep the first N components of every path", NULL, "0",
	  OPT_T_UINT(struct anon_cfg, keep_dirs, 0, 4096) },
	{ 'q', "quiet", NULL, "no summary line on stderr", OPT_T_FLAG(struct anon_cfg, quiet) },
	{ 0 }
};

const struct opt_cmd anonymize_cmd = {
	"anonymize", "IN", "Replace a trace's names by keyed hashes, to share it.",
	"Paths, process names and the hostname become keyed BLAKE2b hashes, the\n"
	"command line and other free text are removed; every number is kept.\n"
	"See iotape-anonymize(1).",
	anon_opts,
};

/* The key in file path: 0, or -1 after one error line. */
int anon_read_key(const char *path, uint8_t key[CLI_ANON_KEY_BYTES])
{
	char buf[2 * CLI_ANON_KEY_BYTES + 2];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;

	if (fd < 0) {
		cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		cli_error("%s: %s", path, strerror(errno));
	else if (cli_anon_key_parse(buf, (size_t)n, key) < 0)
		cli_error("%s: not a key (%s%zd bytes; a key is 32 bytes, or 64 hex digits "
			  "and a newline)", path, n == (ssize_t)sizeof(buf) ? "at least " : "",
			  n);
	else
		rc = 0;
	cli_anon_wipe(buf, sizeof(buf));
	close(fd);
	return rc;
}

/* A new random key, written to path (which must not exist): 0, or -1
 * after one error line with no file left. */
static int new_key(const char *path, uint8_t key[CLI_ANON_KEY_BYTES])
{
	char hex[2 * CLI_ANON_KEY_BYTES + 2];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), rc = 0;

	if (fd < 0) {
		cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	cli_anon_key_random(key);
	for (int i = 0; i < CLI_ANON_KEY_BYTES; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	hex[2 * CLI_ANON_KEY_BYTES] = '\n';
	if (write(fd, hex, sizeof(hex) - 1) != (ssize_t)sizeof(hex) - 1 || fsync(fd) < 0) {
		cli_error("%s: %s", path, errno ? strerror(errno) : "short write");
		rc = -1;
	}
	cli_anon_wipe(hex, sizeof(hex));
	if (close(fd) < 0 && !rc) {
		cli_error("%s: %s", path, strerror(errno));
		rc = -1;
	}
	if (rc)
		unlink(path);
	return rc;
}

int anon_of_trace(const char *keyfile, const char *trace, cli_anon **out)
{
	struct cli_anon_opts ao = { 0 };
	tape_reader *r = NULL;
	const char *m, *kid, *ext, *dirs;
	char id[CLI_ANON_ID_LEN + 1];
	int err, rc = -1;

	*out = NULL;
	if ((err = tape_reader_open(&r, trace)) < 0) {
		cli_tape_error(trace, err);
		return -1;
	}
	m = tape_reader_meta(r, "anon.method");
	kid = tape_reader_meta(r, "anon.key_id");
	ext = tape_reader_meta(r, "anon.keep_ext");
	dirs = tape_reader_meta(r, "anon.keep_dirs");
	if (!m || !kid || !ext || !dirs) {
		cli_error("%s: not an anonymized trace (no anon.* metadata)", trace);
		goto out;
	}
	if (strcmp(m, CLI_ANON_METHOD)) {
		cli_error("%s: anonymized by method '%s', this version knows '%s'", trace, m,
			  CLI_ANON_METHOD);
		goto out;
	}
	if (anon_read_key(keyfile, ao.key))
		goto out;
	cli_anon_key_id(ao.key, id);
	if (strcmp(id, kid)) {
		cli_error("%s: key id %s, but %s was anonymized with key id %s", keyfile, id,
			  trace, kid);
		goto out;
	}
	ao.keep_ext = !strcmp(ext, "1");
	ao.keep_dirs = (unsigned)strtoul(dirs, NULL, 10);
	if ((err = cli_anon_new(out, &ao)) < 0)
		cli_error("%s", strerror(-err));
	else
		rc = 0;
out:
	cli_anon_wipe(ao.key, sizeof(ao.key));
	tape_reader_free(r);
	return rc;
}

int cmd_anonymize(int argc, char **argv)
{
	struct anon_cfg cfg = { 0 };
	struct cli_anon_opts ao = { 0 };
	struct cli_anon_stats st;
	struct opt_parser p;
	const char *in;
	int c, ret = EXIT_FAIL, err, made_key = 0;
	tape_reader *r = NULL;
	tape_writer *w = NULL;
	cli_anon *a = NULL;
	char *tmp = NULL, side, id[CLI_ANON_ID_LEN + 1];
	struct stat si, so;
	sigset_t sigs, oldsigs;
	int blocked = 0;

	opt_init_cfg(&p, &anonymize_cmd, &cfg, argc, argv);
	if ((c = opt_all(&p)) != OPT_END)
		return c == OPT_HELP ? EXIT_OK : EXIT_USAGE;
	if (!(in = opt_one_arg(&p, "IN")))
		return EXIT_USAGE;
	if (!cfg.out) {
		opt_error(&anonymize_cmd, "missing -o TRACE");
		return EXIT_USAGE;
	}
	if (cfg.key && cfg.new_key) {
		opt_error(&anonymize_cmd, "--key and --new-key exclude each other");
		return EXIT_USAGE;
	}
	if ((err = tape_reader_open(&r, in)) < 0) {
		cli_tape_error(in, err);
		return EXIT_FAIL;
	}
	if (stat(in, &si) == 0 && stat(cfg.out, &so) == 0 && si.st_dev == so.st_dev &&
	    si.st_ino == so.st_ino) {
		cli_error("%s: is the input (write to another file)", cfg.out);
		goto cleanup;
	}
	if (cli_output_refused(cfg.out, cfg.force))
		goto cleanup;
	/* the files made below are removed should a signal end us: none can
	 * come between a file's making and its registration */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, &oldsigs);
	blocked = 1;
	if (cfg.key ? anon_read_key(cfg.key, ao.key) :
	    cfg.new_key ? new_key(cfg.new_key, ao.key) : (cli_anon_key_random(ao.key), 0))
		goto cleanup;
	made_key = cfg.new_key != NULL;
	if (made_key)
		cli_rm_on_signal(cfg.new_key);
	ao.keep_ext = cfg.keep_ext;
	ao.keep_dirs = cfg.keep_dirs;
	if ((err = cli_anon_new(&a, &ao)) < 0) {
		cli_error("%s", strerror(-err));
		goto cleanup;
	}
	if (cli_trace_create(cfg.out, cfg.force, NULL, &tmp, &w))
		goto cleanup;
	cli_rm_on_signal(tmp ? tmp : cfg.out);
	sigprocmask(SIG_SETMASK, &oldsigs, NULL);
	blocked = 0;
	if ((err = cli_anon_trace(a, r, w, &st, &side)) < 0) {
		cli_tape_error(side == 'r' ? in : cfg.out, err);
		goto fail;
	}
	err = cli_trace_finish(w, cfg.out, tmp);
	w = NULL;
	if (err)
		goto fail;
	cli_rm_on_signal(NULL);	/* done: OUT and the key stay */
	if (!cfg.quiet) {
		cli_anon_key_id(ao.key, id);
		cm_put_escaped(stderr, cfg.out, 0);
		fprintf(stderr, ": %" PRIu64 " events, %" PRIu64 " names replaced, metadata: %u "
			"kept, %u replaced, %u removed; key id %s%s\n", st.events, st.names,
			st.meta_kept, st.meta_replaced, st.meta_removed, id,
			cfg.key || cfg.new_key ? "" : " (random, not kept)");
	}
	made_key = 0;
	ret = EXIT_OK;
	goto cleanup;
fail:
	cli_trace_abandon(w, cfg.out, tmp);
cleanup:
	if (made_key)
		unlink(cfg.new_key);
	cli_rm_on_signal(NULL);
	if (blocked)
		sigprocmask(SIG_SETMASK, &oldsigs, NULL);
	cli_anon_wipe(ao.key, sizeof(ao.key));
	cli_anon_free(a);
	free(tmp);
	tape_reader_free(r);
	return ret;
}
