/* SPDX-License-Identifier: MIT */
/*
 * util.c - error lines, human units and trace creation shared by the
 * subcommands.
 *
 * Every message a subcommand prints on stderr goes through cli_error(), so
 * each one is a single line starting "iotape CMD: ".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "tape.h"

const char *cli_cmd = "iotape";

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "iotape %s: ", cli_cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_tape_error(const char *what, int err)
{
	const char *detail = tape_error_detail();
	const char *msg = tape_strerror(err);

	if (!detail || !*detail) {
		cli_error("%s: %s", what, msg);
		return;
	}
	/* the detail often says it all already: do not repeat it */
	if (strstr(detail, what))
		what = NULL;
	if (strstr(detail, msg))
		msg = NULL;
	cli_error("%s%s%s%s%s", what ? what : "", what ? ": " : "",
		  msg ? msg : "", msg ? ": " : "", detail);
}

void cli_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, units[u]);
}

void cli_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.3fs", ns / 1e9);
}

int cli_put_escaped(FILE *f, const char *s, int quote)
{
	const unsigned char *p;
	int need = 0;

	if (quote) {
		for (p = (const unsigned char *)s; *p; p++)
			if (*p <= ' ' || *p == 0x7f || *p == '"' || *p == '\\')
				need = 1;
		quote = need || !*s;
	}
	if (quote)
		fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case '"':
			fputs(quote ? "\\\"" : "\"", f);
			break;
		default:
			if (*p < ' ' || *p == 0x7f)
				fprintf(f, "\\x%02x", *p);
			else
				fputc(*p, f);
		}
	}
	if (quote)
		fputc('"', f);
	return ferror(f) ? -1 : 0;
}

json_t *cli_json_u64(uint64_t v)
{
	char buf[24];

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return json_string(buf);
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

json_t *cli_json_str(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i, o = 0;
	json_t *j;
	char *buf;

	for (i = 0; i < n; ) {
		size_t l = utf8_len(p + i, n - i);

		if (!l)
			break;
		i += l;
	}
	if (i == n)
		return json_stringn_nocheck(s, n);
	buf = malloc(3 * n + 1);
	if (!buf)
		return NULL;
	for (i = 0; i < n; ) {
		size_t l = utf8_len(p + i, n - i);

		if (l) {
			memcpy(buf + o, s + i, l);
			o += l;
			i += l;
		} else {
			memcpy(buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	j = json_stringn_nocheck(buf, o);
	free(buf);
	return j;
}

static void exists_error(const char *out)
{
	cli_error("%s: exists (use -f to replace it)", out);
}

int cli_output_refused(const char *out, int force)
{
	struct stat sb;

	if (force || lstat(out, &sb) < 0)
		return 0;
	exists_error(out);
	return 1;
}

static int trace_create(const char *out, int force, const struct tape_writer_opts *opts,
			char **tmp, tape_writer **w)
{
	struct tape_writer_opts o = { 0 };
	mode_t mask;
	int fd, ret;

	if (opts)
		o = *opts;
	o.flags &= ~TAPE_WRITE_FORCE;
	*tmp = NULL;
	if (!force)
		return tape_writer_open(w, out, &o);
	if (asprintf(tmp, "%s.tmp.XXXXXX", out) < 0) {
		*tmp = NULL;
		return -ENOMEM;
	}
	fd = mkstemp(*tmp);
	if (fd < 0) {
		ret = -errno;
		free(*tmp);
		*tmp = NULL;
		return ret;
	}
	/* mkstemp makes it 0600: give it the mode the writer's own open gives
	 * a new trace without -f (0644 less the umask) */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0644 & ~mask) < 0) {
		ret = -errno;
		close(fd);
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
		return ret;
	}
	close(fd);
	o.flags |= TAPE_WRITE_FORCE;
	ret = tape_writer_open(w, *tmp, &o);
	if (ret < 0) {
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return ret;
}

int cli_trace_create(const char *out, int force, const struct tape_writer_opts *opts,
		     char **tmp, tape_writer **w)
{
	int err = trace_create(out, force, opts, tmp, w);

	if (err == -EEXIST)
		exists_error(out);
	else if (err < 0)
		cli_tape_error(out, err);
	return err < 0 ? -1 : 0;
}

int cli_trace_finish(tape_writer *w, const char *out, const char *tmp)
{
	int err = tape_writer_close(w);

	if (err < 0) {
		cli_tape_error(out, err);
		return -1;
	}
	if (tmp && rename(tmp, out) < 0) {
		cli_error("%s: %s", out, strerror(errno));
		return -1;
	}
	return 0;
}
