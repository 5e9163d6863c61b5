/* SPDX-License-Identifier: MIT */
/*
 * fmt.c - numbers and strings for people and for JSON: human units,
 * one-line escaping, JSON integers beyond INT64_MAX and strings that may
 * not be UTF-8.  Used by every report (analyze, compare, replay, info).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"

void cm_fmt_bytes(char *buf, size_t len, uint64_t bytes)
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

void cm_fmt_ns(char *buf, size_t len, uint64_t ns)
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

int cm_put_escaped(FILE *f, const char *s, int quote)
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

json_t *cm_json_u64(uint64_t v)
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

size_t cm_utf8_cut(const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strnlen(s, max + 4), i = 0;	/* a sequence is <= 4 bytes */

	if (n <= max)
		return n;
	while (i < max) {	/* whole sequences that end by max */
		size_t l = utf8_len(p + i, n - i);

		if (!l)
			l = 1;
		if (i + l > max)
			break;
		i += l;
	}
	return i;
}

json_t *cm_json_str(const char *s)
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
