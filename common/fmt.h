/* SPDX-License-Identifier: MIT */
/*
 * fmt.h - human units, escaping and JSON values shared by every report.
 */
#ifndef IOTAPE_COMMON_FMT_H
#define IOTAPE_COMMON_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

/* Human units: "1.5 MiB", "12.3us", "1.234s".  buf gets at most len. */
void cm_fmt_bytes(char *buf, size_t len, uint64_t bytes);
void cm_fmt_ns(char *buf, size_t len, uint64_t ns);

/*
 * Escape a byte string for one-line human output: backslash and control
 * bytes become \\, \n, \t, \xNN; the rest (UTF-8 included) stays.  With
 * quote set, the result is wrapped in double quotes when it holds a space,
 * a double quote or anything escaped (and inner quotes become \").
 * 0, or -1 when f has an error.
 */
int cm_put_escaped(FILE *f, const char *s, int quote);

/* A JSON integer, or a decimal string when v > INT64_MAX (jansson's
 * integers are signed); NULL on allocation failure. */
json_t *cm_json_u64(uint64_t v);
/* A JSON string of s; bytes that are not UTF-8 become U+FFFD. */
json_t *cm_json_str(const char *s);

/* The length of s cut to at most max bytes without splitting a UTF-8
 * sequence (the bytes of an invalid one count one by one). */
size_t cm_utf8_cut(const char *s, size_t max);

#endif /* IOTAPE_COMMON_FMT_H */
