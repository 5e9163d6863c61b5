/* SPDX-License-Identifier: MIT */
/*
 * ana_html.c - `iotape report`: the analysis as one HTML page of plots
 * (analyze.h, ana_report_html).
 *
 * The page is self-contained: inline CSS and SVG (ana_svg.h), no
 * script, nothing fetched.  Each section is a plot and, beside it, a table
 * of its figures.  The figures are those of ana_report_json: the page
 * builds that JSON, parses it back, and prints every figure it shows from
 * it, each cell with data-json-key (its JSON Pointer, RFC 6901, in the
 * output of `iotape analyze --json`) and data-value (its JSON text), so a
 * test or a script can read them back and find them equal.  What the JSON
 * has no key for (the series by time, from ana_series_build) is drawn and
 * printed without one.  The JSON it builds leaves out the lists of files
 * (a million-file job's would be most of it): the top files come from the
 * analysis, keyed by their place in the full JSON's "files".
 *
 * With b (`--compare`), every section shows a and b side by side, their
 * cells marked data-side="a" and "b", under the fidelity checks.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "fmt.h"
#include "ana_svg.h"

#define MAXCOL 160		/* columns of the series by time */
#define TOP_FILES 10
#define TOP_DIRS 12
#ifndef IOTAPE_VERSION
#define IOTAPE_VERSION "0.0.0"
#endif

enum unit { U_COUNT, U_BYTES, U_SEC, U_RATIO, U_NS, U_BPS, U_TEXT };

struct side {
	struct ana *a;
	struct ana_series s;
	json_t *j;
	const char *name;	/* "a", "b"; NULL when alone */
	double w;		/* plot width */
	double span_s;		/* time axes' length: the longer side's */
};

/* ------------------------------------------------------------ helpers */

/* The value at a JSON Pointer ("/summary/read_bytes"), NULL if none. */
static json_t *jptr(json_t *root, const char *ptr)
{
	char key[256];
	json_t *v = root;

	while (v && *ptr == '/') {
		const char *e = strchr(ptr + 1, '/');
		size_t n = e ? (size_t)(e - ptr - 1) : strlen(ptr + 1);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, ptr + 1, n);
		key[n] = 0;
		if (json_is_array(v)) {
			char *end;
			unsigned long i = strtoul(key, &end, 10);
			v = *end ? NULL : json_array_get(v, i);
		} else {
			v = json_object_get(v, key);
		}
		ptr += n + 1;
	}
	return v;
}

static double jnum(json_t *root, const char *ptr)
{
	json_t *v = jptr(root, ptr);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void human(char *buf, size_t len, json_t *v, enum unit u)
{
	double d = json_is_number(v) ? json_number_value(v) : NAN;

	if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
		return;
	}
	if (json_is_boolean(v)) {
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
		return;
	}
	if (!json_is_number(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	switch (u) {
	case U_BYTES:
		cm_fmt_bytes(buf, len, (uint64_t)d);
		break;
	case U_BPS:
		cm_fmt_bytes(buf, len, (uint64_t)d);
		strncat(buf, "/s", len - strlen(buf) - 1);
		break;
	case U_SEC:
		cm_fmt_ns(buf, len, (uint64_t)(d * 1e9 + 0.5));
		break;
	case U_NS:
		cm_fmt_ns(buf, len, (uint64_t)d);
		break;
	case U_RATIO:
		snprintf(buf, len, "%.3f", d);
		break;
	default:
		if (json_is_integer(v))
			snprintf(buf, len, "%" PRIu64, (uint64_t)json_integer_value(v));
		else
			snprintf(buf, len, "%.4g", d);
	}
}

/* A table cell of the JSON value v (NULL: none) at ptr, humanized, with
 * its key. */
static void cell_v(struct side *sd, FILE *o, const char *ptr, json_t *v, enum unit u)
{
	char buf[128];
	char *raw;

	human(buf, sizeof(buf), v, u);
	if (!v) {	/* no such key: nothing to compare with */
		fputs("<td class=\"num\">n/a</td>", o);
		return;
	}
	fputs("<td class=\"num\" data-json-key=\"", o);
	ana_svg_esc(o, ptr);
	fputs("\" data-value=\"", o);
	raw = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
	ana_svg_esc(o, raw ? raw : "null");
	free(raw);
	fputc('"', o);
	if (sd->name)
		fprintf(o, " data-side=\"%s\"", sd->name);
	fputc('>', o);
	ana_svg_esc(o, buf);
	fputs("</td>", o);
}

/* A table cell of the JSON value at ptr, humanized, with its key. */
static void cell(struct side *sd, FILE *o, const char *ptr, enum unit u)
{
	cell_v(sd, o, ptr, jptr(sd->j, ptr), u);
}

/* The same for a count the JSON has at ptr (a file's, in "files"). */
static void cell_u64(struct side *sd, FILE *o, const char *ptr, uint64_t x, enum unit u)
{
	json_t *v = cm_json_u64(x);
	cell_v(sd, o, ptr, v, u);
	json_decref(v);
}

static void row(struct side *sd, FILE *o, const char *label, const char *ptr, enum unit u)
{
	fputs("<tr><th>", o);
	ana_svg_esc(o, label);
	fputs("</th>", o);
	cell(sd, o, ptr, u);
	fputs("</tr>\n", o);
}

/* Rows whose labels and JSON Pointers are constants. */
struct rowdef {
	const char *label, *ptr;
	enum unit u;
};

static void rows(struct side *sd, FILE *o, const struct rowdef *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		row(sd, o, r[i].label, r[i].ptr, r[i].u);
}

/* A row of plain text (no JSON key). */
static void trow(FILE *o, const char *label, const char *text)
{
	fputs("<tr><th>", o);
	ana_svg_esc(o, label);
	fputs("</th><td>", o);
	ana_svg_esc(o, text);
	fputs("</td></tr>\n", o);
}

/* Axes in bytes: values are divided by the binary unit that suits their
 * maximum, so that ticks fall on nice numbers of that unit. */
static double bytes_unit(double max, const char **name)
{
	static const char *const u[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double d = 1;
	int k = 0;

	while (max / d >= 1024 && k < 4) {
		d *= 1024;
		k++;
	}
	*name = u[k];
	return d;
}

static void fmt_sec_axis(char *buf, size_t len, double v, void *arg)
{
	snprintf(buf, len, "%gs", v);
}

/* The plot's id: "NAME" alone, "NAME-a" side by side. */
static const char *plot_id(struct side *sd, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", name, sd->name ? "-" : "", sd->name ? sd->name : "");
	return buf;
}

static double dur_s(struct side *sd)
{
	double d = jnum(sd->j, "/summary/duration_s");
	return isfinite(d) && d > 0 ? d : 1e-9;
}

/* The time axes' length: with --compare both sides share the longer. */
static double span_s(struct side *sd)
{
	return sd->span_s > 0 ? sd->span_s : dur_s(sd);
}

static void no_data(struct ana_svg_plot *p, const char *what)
{
	ana_svg_label(p, (p->x.lo + p->x.hi) / 2, (p->y.lo + p->y.hi) / 2, "middle", what);
}

/* ------------------------------------------------------------ sections */

static void sec_summary(struct side *sd, FILE *o)
{
	struct ana *a = sd->a;
	static const char *const tables[] = { "syscall", "block", "cache", "process", "file",
					      "sample" };
	struct ana_svg_plot p = { 0 };
	char id[32], ptr[96], buf[64];
	double v[6], max = 0;
	uint64_t lost = 0;
	const char *s;

	for (int i = 0; i < 6; i++) {
		snprintf(ptr, sizeof(ptr), "/summary/trace_events/%s", tables[i]);
		v[i] = jnum(sd->j, ptr);
		if (!isfinite(v[i]))
			v[i] = 0;
		if (v[i] > max)
			max = v[i];
	}
	p.ml = 64;
	p.x = (struct ana_svg_axis){ .lo = 0, .hi = ana_svg_nice_ceil(max), .label = "events per table" };
	p.y = (struct ana_svg_axis){ .lo = 0, .hi = 6, .no_ticks = 1 };
	ana_svg_begin(&p, o, sd->w, 200, plot_id(sd, "plot-summary", id, sizeof(id)),
		  "Events recorded per table");
	ana_svg_axes(&p);
	for (int i = 0; i < 6; i++) {
		snprintf(buf, sizeof(buf), "%s: %.0f events", tables[i], v[i]);
		ana_svg_rect(&p, 0, 5.8 - i, v[i], 5.2 - i, ana_svg_palette[i % ANA_SVG_NCOLOURS], buf);
		fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
			p.ml - 4, ana_svg_py(&p, 5.5 - i) + 4, tables[i]);
	}
	ana_svg_end(&p);
	fputs("</figure><table>\n", o);
	s = tape_reader_meta(a->r, "cmdline");
	trow(o, "command", s ? s : "?");
	s = tape_reader_meta(a->r, "hostname");
	trow(o, "host", s ? s : "?");
	s = tape_reader_meta(a->r, "kernel");
	trow(o, "kernel", s ? s : "?");
	row(sd, o, "duration", "/summary/duration_s", U_SEC);
	uint64_t events = 0;
	for (int t = 0; t < TAPE_TABLE_MAX; t++)
		events += a->st[t].events;
	for (size_t i = 0; i < tape_reader_meta_count(a->r); i++) {
		const char *k, *val;
		if (!tape_reader_meta_at(a->r, i, &k, &val) && !strncmp(k, "lost.", 5))
			lost += strtoull(val, NULL, 10);
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, events);
	trow(o, "events", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, lost);
	trow(o, "lost events", buf);
	for (int i = 0; i < 6; i++) {
		snprintf(ptr, sizeof(ptr), "/summary/trace_events/%s", tables[i]);
		snprintf(buf, sizeof(buf), "%s events", tables[i]);
		row(sd, o, buf, ptr, U_COUNT);
	}
	static const struct rowdef r[] = {
		{ "reads", "/summary/read_ops", U_COUNT },
		{ "bytes read", "/summary/read_bytes", U_BYTES },
		{ "writes", "/summary/write_ops", U_COUNT },
		{ "bytes written", "/summary/write_bytes", U_BYTES },
		{ "files read", "/summary/files_read", U_COUNT },
		{ "files written", "/summary/files_written", U_COUNT },
		{ "processes", "/summary/processes", U_COUNT },
		{ "threads", "/summary/threads", U_COUNT },
	};
	rows(sd, o, r, sizeof(r) / sizeof(r[0]));
	fputs("</table>\n", o);
}

static void sec_bandwidth(struct side *sd, FILE *o)
{
	struct ana *a = sd->a;
	struct ana_series *s = &sd->s;
	struct ana_svg_plot p = { 0 };
	double *x = ana_tmp_calloc(s->ncol + 1, sizeof(double));
	double *yr = ana_tmp_calloc(s->ncol + 1, sizeof(double));
	double *yw = ana_tmp_calloc(s->ncol + 1, sizeof(double));
	double col_s = (double)s->col_ns / 1e9, max = 0;
	char id[32], ptr[96], buf[64];
	static const char *const names[] = { "read", "write", "epoch", "checkpoint" };
	const char *colours[] = { ana_svg_palette[0], ana_svg_palette[1], "#555", ana_svg_palette[5] };

	for (size_t i = 0; i < s->ncol; i++) {
		x[i] = (i + 0.5) * col_s;
		yr[i] = s->rbytes[i] / col_s;
		yw[i] = s->wbytes[i] / col_s;
		if (yr[i] > max)
			max = yr[i];
		if (yw[i] > max)
			max = yw[i];
	}
	const char *un;
	double div = bytes_unit(max, &un);
	char ylab[32];
	for (size_t i = 0; i < s->ncol; i++) {
		yr[i] /= div;
		yw[i] /= div;
	}
	snprintf(ylab, sizeof(ylab), "%s/s", un);
	p.ml = 64;
	p.x = (struct ana_svg_axis){ .lo = 0, .hi = span_s(sd), .label = "time", .fmt = fmt_sec_axis };
	p.y = (struct ana_svg_axis){ .lo = 0, .hi = ana_svg_nice_ceil(max / div), .label = ylab };
	ana_svg_begin(&p, o, sd->w, 260, plot_id(sd, "plot-bandwidth", id, sizeof(id)),
		  "Read and write bandwidth over time");
	ana_svg_axes(&p);
	size_t ne = json_array_size(jptr(sd->j, "/epochs/epochs"));
	for (size_t i = 0; i < ne; i++) {
		snprintf(ptr, sizeof(ptr), "/epochs/epochs/%zu/start_s", i);
		snprintf(buf, sizeof(buf), "e%zu", i);
		ana_svg_vline(&p, jnum(sd->j, ptr), "#555", 1, buf);
	}
	size_t nc = json_array_size(jptr(sd->j, "/checkpoints/checkpoints"));
	for (size_t i = 0; i < nc; i++) {
		snprintf(ptr, sizeof(ptr), "/checkpoints/checkpoints/%zu/start_s", i);
		ana_svg_vline(&p, jnum(sd->j, ptr), ana_svg_palette[5], 0, "ckpt");
	}
	ana_svg_line(&p, x, yr, s->ncol, ana_svg_palette[0], "read");
	ana_svg_line(&p, x, yw, s->ncol, ana_svg_palette[1], "write");
	ana_svg_legend(&p, names, colours, 4);
	ana_svg_end(&p);
	ana_tmp_free(x);
	ana_tmp_free(yr);
	ana_tmp_free(yw);
	fputs("</figure><table>\n", o);
	cm_fmt_ns(buf, sizeof(buf), s->col_ns);
	trow(o, "resolution", buf);
	static const struct rowdef r[] = {
		{ "bytes read", "/summary/read_bytes", U_BYTES },
		{ "bytes written", "/summary/write_bytes", U_BYTES },
		{ "epochs", "/epochs/count", U_COUNT },
	};
	rows(sd, o, r, sizeof(r) / sizeof(r[0]));
	for (size_t i = 0; i < ne && i < 8; i++) {
		snprintf(ptr, sizeof(ptr), "/epochs/epochs/%zu/start_s", i);
		snprintf(buf, sizeof(buf), "epoch %zu starts", i);
		row(sd, o, buf, ptr, U_SEC);
		snprintf(ptr, sizeof(ptr), "/epochs/epochs/%zu/bytes", i);
		snprintf(buf, sizeof(buf), "epoch %zu read", i);
		row(sd, o, buf, ptr, U_BYTES);
	}
	row(sd, o, "checkpoints", "/checkpoints/count", U_COUNT);
	row(sd, o, "checkpoint bytes", "/checkpoints/bytes", U_BYTES);
	for (size_t i = 0; i < nc && i < 8; i++) {
		snprintf(ptr, sizeof(ptr), "/checkpoints/checkpoints/%zu/start_s", i);
		snprintf(buf, sizeof(buf), "checkpoint %zu at", i);
		row(sd, o, buf, ptr, U_SEC);
	}
	fputs("</table>\n", o);
	(void)a;
}

static void sec_heatmap(struct side *sd, FILE *o)
{
	struct ana_series *s = &sd->s;
	size_t ng = cm_strtab_count(&s->dirs), top[TOP_DIRS], nt = 0;
	struct ana_svg_plot p = { 0 };
	double col_s = (double)s->col_ns / 1e9;
	uint64_t max = 0;
	char id[32], buf[512], b1[32], c[8];

	for (size_t g = 0; g < ng; g++) {	/* the directories most read */
		size_t k = nt < TOP_DIRS ? nt++ : TOP_DIRS;
		if (k == TOP_DIRS) {
			if (s->gtotal[g] <= s->gtotal[top[k - 1]])
				continue;
			k--;
		}
		while (k > 0 && s->gtotal[top[k - 1]] < s->gtotal[g]) {
			top[k] = top[k - 1];
			k--;
		}
		top[k] = g;
	}
	for (size_t k = 0; k < nt; k++)
		for (size_t i = 0; i < s->ncol; i++)
			if (s->gbytes[top[k] * s->ncol + i] > max)
				max = s->gbytes[top[k] * s->ncol + i];
	p.ml = 20;
	p.mr = 70;
	p.x = (struct ana_svg_axis){ .lo = 0, .hi = span_s(sd), .label = "time", .fmt = fmt_sec_axis };
	p.y = (struct ana_svg_axis){ .lo = 0, .hi = nt ? (double)nt : 1, .no_ticks = 1 };
	ana_svg_begin(&p, o, sd->w, 60 + 22.0 * (double)(nt ? nt : 1),
		  plot_id(sd, "plot-heatmap", id, sizeof(id)),
		  "Bytes read per directory over time");
	ana_svg_axes(&p);
	for (size_t k = 0; k < nt; k++) {
		double y1 = (double)(nt - k), y0 = y1 - 0.92;
		ana_svg_rect(&p, 0, y0, dur_s(sd), y1, "#f4f4f4", NULL);
		for (size_t i = 0; i < s->ncol; i++) {
			uint64_t b = s->gbytes[top[k] * s->ncol + i];
			if (!b)
				continue;
			ana_svg_ramp(sqrt((double)b / (double)max), c);
			cm_fmt_bytes(b1, sizeof(b1), b);
			snprintf(buf, sizeof(buf), "%s: %s at %.3gs", cm_strtab_str(&s->dirs, (uint32_t)top[k]),
				 b1, i * col_s);
			ana_svg_rect(&p, i * col_s, y0, (i + 1) * col_s, y1, c, buf);
		}
		snprintf(buf, sizeof(buf), "%zu", k + 1);
		ana_svg_label(&p, 0, y0 + 0.3, "end", buf);
	}
	if (!nt)
		no_data(&p, "no reads of files with a path");
	cm_fmt_bytes(b1, sizeof(b1), max);
	ana_svg_ramp_legend(&p, "0", b1);
	ana_svg_end(&p);
	fputs("</figure><table>\n<tr><th>#</th><th>directory</th><th>read</th></tr>\n", o);
	for (size_t k = 0; k < nt; k++) {
		cm_fmt_bytes(b1, sizeof(b1), s->gtotal[top[k]]);
		fprintf(o, "<tr><td>%zu</td><td class=\"path\">", k + 1);
		ana_svg_esc(o, cm_strtab_str(&s->dirs, (uint32_t)top[k]));
		fprintf(o, "</td><td class=\"num\">%s</td></tr>\n", b1);
	}
	fputs("</table><table>\n", o);
	static const struct rowdef r[] = {
		{ "data set directory", "/dataset/directory", U_TEXT },
		{ "data set bytes read", "/dataset/read_bytes", U_BYTES },
		{ "other files' bytes read", "/other_files/read_bytes", U_BYTES },
	};
	rows(sd, o, r, sizeof(r) / sizeof(r[0]));
	fputs("</table>\n", o);
}

static void size_label(char *buf, size_t len, double v, void *arg)
{
	json_t *h = arg;
	json_t *e = json_array_get(h, (size_t)v);
	uint64_t mn = (uint64_t)json_integer_value(json_object_get(e, "min"));
	cm_fmt_bytes(buf, len, mn);
}

static void sec_sizes(struct side *sd, FILE *o)
{
	json_t *h = jptr(sd->j, "/pattern/request_size_histogram");
	size_t n = json_array_size(h);
	struct ana_svg_plot p = { 0 };
	static const char *const names[] = { "reads", "writes" };
	const char *colours[] = { ana_svg_palette[0], ana_svg_palette[1] };
	double max = 0;
	char id[32], ptr[96], buf[96], b1[32];

	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(h, i);
		double r = (double)json_integer_value(json_object_get(e, "reads"));
		double w = (double)json_integer_value(json_object_get(e, "writes"));
		if (r > max)
			max = r;
		if (w > max)
			max = w;
	}
	p.mb = 52;
	p.x = (struct ana_svg_axis){ .lo = 0, .hi = n ? (double)n : 1, .label = "request size (at least)",
				 .no_ticks = 1 };
	p.y = (struct ana_svg_axis){ .lo = 0, .hi = ana_svg_nice_ceil(max), .label = "requests" };
	ana_svg_begin(&p, o, sd->w, 260, plot_id(sd, "plot-sizes", id, sizeof(id)),
		  "Request size histogram (reads and writes)");
	ana_svg_axes(&p);
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(h, i);
		double r = (double)json_integer_value(json_object_get(e, "reads"));
		double w = (double)json_integer_value(json_object_get(e, "writes"));
		size_label(b1, sizeof(b1), (double)i, h);
		snprintf(buf, sizeof(buf), ">= %s: %.0f reads", b1, r);
		if (r)
			ana_svg_rect(&p, i + 0.1, 0, i + 0.5, r, ana_svg_palette[0], buf);
		snprintf(buf, sizeof(buf), ">= %s: %.0f writes", b1, w);
		if (w)
			ana_svg_rect(&p, i + 0.5, 0, i + 0.9, w, ana_svg_palette[1], buf);
		fprintf(o, "<text transform=\"translate(%.1f %.1f) rotate(-45)\" font-size=\"10\" "
			"text-anchor=\"end\">", ana_svg_px(&p, i + 0.5), p.h - p.mb + 12);
		ana_svg_esc(o, b1);
		fputs("</text>\n", o);
	}
	if (!n)
		no_data(&p, "no reads or writes");
	ana_svg_legend(&p, names, colours, 2);
	ana_svg_end(&p);
	fputs("</figure><table>\n<tr><th>size</th><th>reads</th><th>writes</th></tr>\n", o);
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(h, i);
		char b2[32];
		cm_fmt_bytes(b1, sizeof(b1), (uint64_t)json_integer_value(json_object_get(e, "min")));
		cm_fmt_bytes(b2, sizeof(b2), (uint64_t)json_integer_value(json_object_get(e, "max")));
		fprintf(o, "<tr><th>%s - %s</th>", b1, b2);
		snprintf(ptr, sizeof(ptr), "/pattern/request_size_histogram/%zu/reads", i);
		cell(sd, o, ptr, U_COUNT);
		snprintf(ptr, sizeof(ptr), "/pattern/request_size_histogram/%zu/writes", i);
		cell(sd, o, ptr, U_COUNT);
		fputs("</tr>\n", o);
	}
	fputs("</table>\n", o);
}

static void sec_randomness(struct side *sd, FILE *o)
{
	struct ana_series *s = &sd->s;
	size_t ne = json_array_size(jptr(sd->j, "/epochs/epochs"));
	struct ana_svg_plot p = { 0 };
	static const char *const names[] = { "file order randomness", "read randomness" };
	const char *colours[] = { ana_svg_palette[2], ana_svg_palette[3] };
	char id[32], ptr[96], buf[96];
	size_t n = ne ? ne : 1;

	p.x = (struct ana_svg_axis){ .lo = 0, .hi = (double)n, .label = ne ? "epoch" : "whole job",
				 .no_ticks = 1 };
	p.y = (struct ana_svg_axis){ .lo = 0, .hi = 1, .label = "randomness (0 ordered, 1 random)" };
	ana_svg_begin(&p, o, sd->w, 240, plot_id(sd, "plot-randomness", id, sizeof(id)),
		  "Read randomness and file order randomness per epoch");
	ana_svg_axes(&p);
	for (size_t i = 0; i < n; i++) {
		double fo, rr = NAN;
		if (ne) {
			snprintf(ptr, sizeof(ptr), "/epochs/epochs/%zu/file_order_randomness", i);
			fo = jnum(sd->j, ptr);
			if (i < s->nep && s->ep_pairs[i])
				rr = (double)s->ep_nonconsec[i] / (double)s->ep_pairs[i];
		} else {
			fo = jnum(sd->j, "/pattern/file_order_randomness");
			rr = jnum(sd->j, "/pattern/read_randomness");
		}
		if (isfinite(fo)) {
			snprintf(buf, sizeof(buf), "file order randomness %.3f", fo);
			ana_svg_rect(&p, i + 0.15, 0, i + 0.5, fo, ana_svg_palette[2], buf);
		} else {
			ana_svg_label(&p, i + 0.32, 0.02, "middle", "n/a");
		}
		if (isfinite(rr)) {
			snprintf(buf, sizeof(buf), "read randomness %.3f", rr);
			ana_svg_rect(&p, i + 0.5, 0, i + 0.85, rr, ana_svg_palette[3], buf);
		} else {
			ana_svg_label(&p, i + 0.68, 0.02, "middle", "n/a");
		}
		snprintf(buf, sizeof(buf), ne ? "%zu" : "all", i);
		fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">",
			ana_svg_px(&p, i + 0.5), p.h - p.mb + 14);
		ana_svg_esc(o, buf);
		fputs("</text>\n", o);
	}
	ana_svg_legend(&p, names, colours, 2);
	ana_svg_end(&p);
	fputs("</figure><table>\n", o);
	static const struct rowdef r[] = {
		{ "file order randomness, data set", "/dataset/pattern/file_order_randomness", U_RATIO },
		{ "read randomness, data set", "/dataset/pattern/read_randomness", U_RATIO },
		{ "read randomness, all files", "/pattern/read_randomness", U_RATIO },
		{ "sequential read fraction", "/pattern/sequential_read_fraction", U_RATIO },
	};
	rows(sd, o, r, sizeof(r) / sizeof(r[0]));
	for (size_t i = 0; i < ne && i < 16; i++) {
		snprintf(ptr, sizeof(ptr), "/epochs/epochs/%zu/file_order_randomness", i);
		snprintf(buf, sizeof(buf), "epoch %zu file order", i);
		row(sd, o, buf, ptr, U_RATIO);
		if (i < s->nep && s->ep_pairs[i])
			snprintf(buf, sizeof(buf), "%.3f (%" PRIu64 " pairs)",
				 (double)s->ep_nonconsec[i] / (double)s->ep_pairs[i], s->ep_pairs[i]);
		else
			snprintf(buf, sizeof(buf), "n/a (no stream read twice)");
		char l[64];
		snprintf(l, sizeof(l), "epoch %zu read randomness", i);
		trow(o, l, buf);
	}
	fputs("</table>\n", o);
}

static void sec_cache(struct side *sd, FILE *o)
{
	json_t *h = jptr(sd->j, "/cache/timeline/hit_ratio");
	size_t n = json_array_size(h);
	double bs = jnum(sd->j, "/cache/timeline/bucket_s");
	struct ana_svg_plot p = { 0 };
	double *x = ana_tmp_calloc(n + 1, sizeof(double)), *y = ana_tmp_calloc(n + 1, sizeof(double));
	char id[32];

	if (!isfinite(bs))
		bs = 1;
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(h, i);
		x[i] = (i + 0.5) * bs;
		y[i] = json_is_number(v) ? json_number_value(v) : NAN;
	}
	p.x = (struct ana_svg_axis){ .lo = 0, .hi = span_s(sd), .label = "time", .fmt = fmt_sec_axis };
	p.y = (struct ana_svg_axis){ .lo = 0, .hi = 1, .label = "hit ratio" };
	ana_svg_begin(&p, o, sd->w, 240, plot_id(sd, "plot-cache", id, sizeof(id)),
		  "Page cache hit ratio over time");
	ana_svg_axes(&p);
	for (size_t i = 0; i < n; i++)	/* points too: a bucket alone has no line */
		if (isfinite(y[i]))
			fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
				ana_svg_px(&p, x[i]), ana_svg_py(&p, y[i]), ana_svg_palette[2]);
	ana_svg_line(&p, x, y, n, ana_svg_palette[2], "hit ratio");
	if (!n)
		no_data(&p, "no page cache events");
	ana_svg_end(&p);
	ana_tmp_free(x);
	ana_tmp_free(y);
	fputs("</figure><table>\n", o);
	static const struct rowdef r[] = {
		{ "bucket", "/cache/timeline/bucket_s", U_SEC },
		{ "hit ratio, all files", "/cache/hit_ratio", U_RATIO },
		{ "hit ratio, data set", "/dataset/cache/hit_ratio", U_RATIO },
		{ "hit ratio, other files", "/other_files/cache/hit_ratio", U_RATIO },
		{ "pages accessed", "/cache/pages_accessed", U_COUNT },
		{ "pages missed", "/cache/pages_missed", U_COUNT },
		{ "pages inserted", "/cache/pages_inserted", U_COUNT },
		{ "readahead unused pages", "/cache/readahead_unused_pages", U_COUNT },
	};
	rows(sd, o, r, sizeof(r) / sizeof(r[0]));
	fputs("</table>\n", o);
}

static void sec_threads(struct side *sd, FILE *o)
{
	struct ana *a = sd->a;
	struct ana_series *s = &sd->s;
	json_t *th = jptr(sd->j, "/compute/threads");
	struct ana_svg_plot p = { 0 };
	static const char *const names[] = { "compute (running, between calls)", "blocked in I/O calls" };
	const char *colours[] = { "#cfe3f3", ana_svg_palette[5] };
	double col_s = (double)s->col_ns / 1e9;
	char id[32], buf[128], ptr[96];

	p.ml = 70;
	p.mt = 40;
	p.x = (struct ana_svg_axis){ .lo = 0, .hi = span_s(sd), .label = "time", .fmt = fmt_sec_axis };
	p.y = (struct ana_svg_axis){ .lo = 0, .hi = s->nthr ? (double)s->nthr : 1, .no_ticks = 1 };
	ana_svg_begin(&p, o, sd->w, 80 + 26.0 * (double)(s->nthr ? s->nthr : 1),
		  plot_id(sd, "plot-threads", id, sizeof(id)),
		  "Per-thread timeline: compute and blocked in I/O (the busiest threads)");
	ana_svg_axes(&p);
	for (size_t k = 0; k < s->nthr; k++) {
		const struct ana_thread *t = &a->sys.threads[s->thr[k]];
		double y1 = (double)(s->nthr - k), y0 = y1 - 0.85;
		double f = (double)(t->first_ns - a->t0) / 1e9 , l = (double)(t->last_end - a->t0) / 1e9;
		snprintf(buf, sizeof(buf), "tid %u: running from %.3fs to %.3fs", t->tid, f, l);
		ana_svg_rect(&p, f, y0, l, y1, colours[0], buf);
		for (size_t i = 0; i < s->ncol; i++) {
			uint64_t io = s->tio[k * s->ncol + i];
			if (!io)
				continue;
			double fr = (double)io / (double)s->col_ns;
			if (fr > 1)
				fr = 1;
			snprintf(buf, sizeof(buf), "tid %u at %.3gs: %.0f%% in I/O calls", t->tid,
				 i * col_s, fr * 100);
			ana_svg_rect(&p, i * col_s, y0, (i + 1) * col_s, y0 + 0.85 * fr, colours[1], buf);
		}
		snprintf(buf, sizeof(buf), "%u", t->tid);
		fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">", p.ml - 4,
			ana_svg_py(&p, y0 + 0.3));
		ana_svg_esc(o, buf);
		fputs("</text>\n", o);
	}
	if (!s->nthr)
		no_data(&p, "no system calls");
	p.mt = 8;	/* the legend above the rows */
	ana_svg_legend(&p, names, colours, 2);
	ana_svg_end(&p);
	fputs("</figure><table>\n<tr><th>tid</th><th>comm</th><th>in I/O</th><th>compute</th>"
	      "<th>I/O fraction</th></tr>\n", o);
	for (size_t k = 0; k < s->nthr; k++) {
		uint32_t tid = a->sys.threads[s->thr[k]].tid;
		size_t j, n = json_array_size(th);
		for (j = 0; j < n; j++)
			if (json_integer_value(json_object_get(json_array_get(th, j), "tid")) == tid)
				break;
		if (j == n)
			continue;
		json_t *c = json_object_get(json_array_get(th, j), "comm");
		fprintf(o, "<tr><td>%u</td><td>", tid);
		ana_svg_esc(o, json_is_string(c) ? json_string_value(c) : "?");
		fputs("</td>", o);
		snprintf(ptr, sizeof(ptr), "/compute/threads/%zu/io_s", j);
		cell(sd, o, ptr, U_SEC);
		snprintf(ptr, sizeof(ptr), "/compute/threads/%zu/gap_s", j);
		cell(sd, o, ptr, U_SEC);
		snprintf(ptr, sizeof(ptr), "/compute/threads/%zu/io_fraction", j);
		cell(sd, o, ptr, U_RATIO);
		fputs("</tr>\n", o);
	}
	fputs("</table><table>\n", o);
	row(sd, o, "blocked fraction, all threads", "/compute/blocked_fraction", U_RATIO);
	row(sd, o, "I/O busy fraction", "/compute/io_busy_fraction", U_RATIO);
	fputs("</table>\n", o);
}

/* Latency histogram of l over log2 buckets [2^k, 2^(k+1)) ns, k in
 * [kmin, kmax): fractions in f.  Exact values are read in place. */
#define LAT_K0 8
#define LAT_K1 34
static void lat_hist(const struct cm_lat *l, double *f, double total)
{
	uint64_t prev = cm_lat_count_le(l, (1ull << LAT_K0) - 1);
	for (int k = LAT_K0; k < LAT_K1; k++) {
		uint64_t le = k == LAT_K1 - 1 ? l->count : cm_lat_count_le(l, (1ull << (k + 1)) - 1);
		f[k - LAT_K0] += (double)(le - prev) / total;
		prev = le;
	}
	if (l->count)
		f[0] += (double)cm_lat_count_le(l, (1ull << LAT_K0) - 1) / total;
}

static void lat_axis(char *buf, size_t len, double v, void *arg)
{
	cm_fmt_ns(buf, len, (uint64_t)1 << (int)v);
}

static void sec_latency(struct side *sd, FILE *o)
{
	struct ana *a = sd->a;
	struct ana_svg_plot p = { 0 };
	enum { NB = LAT_K1 - LAT_K0 };
	double f[3][NB] = { { 0 } }, x[NB], max = 0;
	uint64_t cnt[3] = { 0 };
	static const char *const names[] = { "syscall reads and writes", "other syscalls", "block requests" };
	const char *colours[] = { ana_svg_palette[0], ana_svg_palette[4], ana_svg_palette[5] };
	char id[32], ptr[96], buf[64];

	for (unsigned op = 0; op < TAPE_OP_MAX; op++) {
		enum tape_op_class c = tape_op_class(op);
		cnt[c == TAPE_OPC_READ || c == TAPE_OPC_WRITE ? 0 : 1] += a->sys.lat[op].count;
	}
	cnt[2] = a->blk.lat.count;
	for (unsigned op = 0; op < TAPE_OP_MAX; op++) {
		enum tape_op_class c = tape_op_class(op);
		int k = c == TAPE_OPC_READ || c == TAPE_OPC_WRITE ? 0 : 1;
		if (a->sys.lat[op].count) {
			cm_lat_finish(&a->sys.lat[op]);
			lat_hist(&a->sys.lat[op], f[k], (double)cnt[k]);
		}
	}
	if (cnt[2]) {
		cm_lat_finish(&a->blk.lat);
		lat_hist(&a->blk.lat, f[2], (double)cnt[2]);
	}
	for (int k = 0; k < NB; k++) {
		x[k] = LAT_K0 + k + 0.5;
		for (int s = 0; s < 3; s++)
			if (f[s][k] > max)
				max = f[s][k];
	}
	p.ml = 48;
	p.x = (struct ana_svg_axis){ .lo = LAT_K0, .hi = LAT_K1, .label = "latency (log scale)",
				 .no_ticks = 1 };
	p.y = (struct ana_svg_axis){ .lo = 0, .hi = max > 0 ? ana_svg_nice_ceil(max * 100) / 100 : 1,
				 .label = "fraction of calls" };
	ana_svg_begin(&p, o, sd->w, 260, plot_id(sd, "plot-latency", id, sizeof(id)),
		  "Latency distribution per layer");
	ana_svg_axes(&p);
	fputs("<g class=\"axes\">", o);
	for (int k = LAT_K0; k <= LAT_K1; k += 4) {
		double px = ana_svg_px(&p, k);
		lat_axis(buf, sizeof(buf), k, NULL);
		fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
			px, p.h - p.mb, px, p.h - p.mb + 4, px, p.h - p.mb + 15, buf);
	}
	fputs("</g>\n", o);
	for (int s = 0; s < 3; s++)
		if (cnt[s])
			ana_svg_line(&p, x, f[s], NB, colours[s], names[s]);
	if (!cnt[0] && !cnt[1] && !cnt[2])
		no_data(&p, "no calls");
	ana_svg_legend(&p, names, colours, 3);
	ana_svg_end(&p);
	fputs("</figure><table>\n<tr><th>layer</th><th>calls</th><th>p50</th><th>p99</th>"
	      "<th>max</th></tr>\n", o);
	json_t *lat = jptr(sd->j, "/latency");
	const char *key;
	json_t *v;
	json_object_foreach(lat, key, v) {
		const char *cls = NULL;
		for (unsigned op = 0; op < TAPE_OP_MAX; op++) {
			const char *nm = tape_op_name(op);
			if (nm && !strcmp(nm, key)) {
				enum tape_op_class c = tape_op_class(op);
				cls = c == TAPE_OPC_READ || c == TAPE_OPC_WRITE ? nm : NULL;
				break;
			}
		}
		if (!cls || strchr(key, '/') || strchr(key, '~'))
			continue;
		fputs("<tr><th>syscall ", o);
		ana_svg_esc(o, key);
		fputs("</th>", o);
		static const char *const col[] = { "count", "p50", "p99", "max" };
		for (int c = 0; c < 4; c++) {
			snprintf(ptr, sizeof(ptr), "/latency/%s/%s", key, col[c]);
			cell(sd, o, ptr, c ? U_NS : U_COUNT);
		}
		fputs("</tr>\n", o);
	}
	static const char *const bl[] = { "latency_ns", "read_latency_ns", "write_latency_ns" };
	static const char *const bn[] = { "block, all", "block reads", "block writes" };
	for (int b = 0; b < 3; b++) {
		static const char *const col[] = { "count", "p50", "p99", "max" };
		snprintf(ptr, sizeof(ptr), "/block/%s", bl[b]);
		if (!jptr(sd->j, ptr))
			continue;
		fprintf(o, "<tr><th>%s</th>", bn[b]);
		for (int c = 0; c < 4; c++) {
			snprintf(ptr, sizeof(ptr), "/block/%s/%s", bl[b], col[c]);
			cell(sd, o, ptr, c ? U_NS : U_COUNT);
		}
		fputs("</tr>\n", o);
	}
	fputs("</table>\n", o);
}

static void hbar_plot(struct side *sd, FILE *o, const char *id, const char *title,
		      double *v1, double *v2, size_t n, const char *xlabel,
		      void (*fmt)(char *, size_t, double, void *), const char *const *names,
		      const char *const *tips)
{
	struct ana_svg_plot p = { 0 };
	const char *colours[] = { ana_svg_palette[0], ana_svg_palette[1] };
	double max = 0;

	for (size_t i = 0; i < n; i++)
		if (v1[i] + (v2 ? v2[i] : 0) > max)
			max = v1[i] + (v2 ? v2[i] : 0);
	if (max > 0 && !fmt) {	/* bytes: in their unit */
		double d = bytes_unit(max, &xlabel);
		for (size_t i = 0; i < n; i++) {
			v1[i] /= d;
			if (v2)
				v2[i] /= d;
		}
		max /= d;
	}
	p.ml = 28;
	p.x = (struct ana_svg_axis){ .lo = 0, .hi = ana_svg_nice_ceil(max), .label = xlabel, .fmt = fmt,
				 .nticks = 5 };
	p.y = (struct ana_svg_axis){ .lo = 0, .hi = n ? (double)n : 1, .no_ticks = 1 };
	ana_svg_begin(&p, o, sd->w, 60 + 20.0 * (double)(n ? n : 1), id, title);
	ana_svg_axes(&p);
	for (size_t i = 0; i < n; i++) {
		double y1 = (double)(n - i) - 0.1, y0 = y1 - 0.8;
		char b[32];
		ana_svg_rect(&p, 0, y0, v1[i], y1, colours[0], tips[i]);
		if (v2 && v2[i] > 0)
			ana_svg_rect(&p, v1[i], y0, v1[i] + v2[i], y1, colours[1], tips[i]);
		snprintf(b, sizeof(b), "%zu", i + 1);
		fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
			p.ml - 4, ana_svg_py(&p, y0 + 0.25), b);
	}
	if (!n)
		no_data(&p, "no files");
	if (v2 && names)
		ana_svg_legend(&p, names, colours, 2);
	ana_svg_end(&p);
}

/* The value json_integer_value gives for a count as cm_json_u64 writes it */
static double jint(uint64_t v)
{
	return v > INT64_MAX ? 0 : (double)v;
}

/* Whether files[i]'s label is lb, whose last component is name (NULL:
 * no path); a file's name is compared first (most differ there). */
static int label_is(const struct ana *a, uint32_t i, const char *lb, const char *name, char *buf)
{
	const struct ana_file *f = &a->files[i];
	if (name && f->path) {
		char nb[ANA_PATH_BUF];
		const char *n = ana_path_name(a, f->path, nb);
		if (n[0] != name[0] || strcmp(n, name))
			return 0;
	}
	return !strcmp(ana_file_label(a, f, buf), lb);
}

/* The first entries of /files (its order: ana_file_list_cmp) that read or
 * wrote, at most TOP_FILES in top; found without sorting every file.
 * Their count; *nl: the files listed. */
static size_t top_by_bytes(struct ana *a, uint32_t *top, size_t *nl)
{
	size_t nt = 0;

	for (uint32_t i = 0; i < a->nfiles; i++) {
		if (!ana_file_listed(a, i))
			continue;
		(*nl)++;
		const struct ana_file *f = &a->files[i];
		if (!(jint(ana_file_read_bytes(a, f)) + jint(ana_file_write_bytes(a, f)) > 0))
			continue;
		size_t k = nt < TOP_FILES ? nt++ : TOP_FILES;
		if (k == TOP_FILES) {
			if (ana_file_list_cmp(a, i, top[k - 1]) > 0)
				continue;
			k--;
		}
		while (k > 0 && ana_file_list_cmp(a, top[k - 1], i) > 0) {
			top[k] = top[k - 1];
			k--;
		}
		top[k] = i;
	}
	return nt;
}

/* The top files by bytes, figure and table; /files' length */
static size_t files_by_bytes(struct side *sd, FILE *o)
{
	struct ana *a = sd->a;
	size_t nt, nl = 0;
	uint32_t top[TOP_FILES];
	double v1[TOP_FILES] = { 0 }, v2[TOP_FILES] = { 0 };
	char *tips[TOP_FILES] = { 0 };
	char id[32], ptr[96], b1[32], b2[32], lb[ANA_PATH_BUF];
	static const char *const names[] = { "read", "written" };
	long lim = ana_json_list_limit(a);

	nt = top_by_bytes(a, top, &nl);
	size_t nf = lim >= 0 && nl > (size_t)lim ? (size_t)lim : nl;	/* /files' length */
	if (nt > nf)
		nt = nf;
	for (size_t k = 0; k < nt; k++) {
		const struct ana_file *f = &a->files[top[k]];
		v1[k] = jint(ana_file_read_bytes(a, f));
		v2[k] = jint(ana_file_write_bytes(a, f));
		cm_fmt_bytes(b1, sizeof(b1), (uint64_t)v1[k]);
		cm_fmt_bytes(b2, sizeof(b2), (uint64_t)v2[k]);
		if (asprintf(&tips[k], "%s: read %s, written %s", ana_file_label(a, f, lb), b1, b2) < 0)
			ana_oom();
	}
	hbar_plot(sd, o, plot_id(sd, "plot-files-bytes", id, sizeof(id)), "Top files by bytes",
		  v1, v2, nt, "bytes", NULL, names, (const char *const *)tips);
	for (size_t k = 0; k < nt; k++)
		free(tips[k]);
	fputs("</figure><table>\n<tr><th>#</th><th>file</th><th>read</th><th>written</th></tr>\n", o);
	for (size_t k = 0; k < nt; k++) {
		const struct ana_file *f = &a->files[top[k]];
		fprintf(o, "<tr><td>%zu</td><td class=\"path\">", k + 1);
		ana_svg_esc(o, ana_file_label(a, f, lb));
		fputs("</td>", o);
		snprintf(ptr, sizeof(ptr), "/files/%zu/read_bytes", k);
		cell_u64(sd, o, ptr, ana_file_read_bytes(a, f), U_BYTES);
		snprintf(ptr, sizeof(ptr), "/files/%zu/write_bytes", k);
		cell_u64(sd, o, ptr, ana_file_write_bytes(a, f), U_BYTES);
		fputs("</tr>\n", o);
	}
	return nf;
}

/* The files with the most time in calls on them (ana_series), at most
 * TOP_FILES in tt; their count */
static size_t top_by_time(const struct ana *a, const struct ana_series *s, uint32_t *tt)
{
	size_t ntt = 0;

	for (uint32_t f = 0; f < a->nfiles; f++) {
		uint64_t ns = s->file_ns[f];
		if (!ns || ana_file_excluded(a, &a->files[f]))
			continue;
		size_t k = ntt < TOP_FILES ? ntt++ : TOP_FILES;
		if (k == TOP_FILES) {
			if (ns <= s->file_ns[tt[k - 1]])
				continue;
			k--;
		}
		while (k > 0 && s->file_ns[tt[k - 1]] < ns) {
			tt[k] = tt[k - 1];
			k--;
		}
		tt[k] = f;
	}
	return ntt;
}

/* The entries in /files (nf long) of the ntt files labelled lbl (named
 * nm): the first of their label (first), its place the files listed
 * before it (jx; -1: none, or past nf).  lb: a buffer. */
static void files_places(const struct ana *a, size_t ntt, char *const *lbl, char *const *nm,
			 uint32_t *first, long *jx, size_t nf, char *lb)
{
	for (uint32_t i = 0; ntt && i < a->nfiles; i++) {
		if (!ana_file_listed(a, i))
			continue;
		for (size_t k = 0; k < ntt; k++)
			if (label_is(a, i, lbl[k], nm[k], lb) &&
			    (first[k] == ANA_NONE || ana_file_list_cmp(a, i, first[k]) < 0))
				first[k] = i;
	}
	for (uint32_t i = 0; ntt && i < a->nfiles; i++) {
		if (!ana_file_listed(a, i))
			continue;
		for (size_t k = 0; k < ntt; k++)
			if (first[k] != ANA_NONE && ana_file_list_cmp(a, i, first[k]) < 0)
				jx[k]++;
	}
	for (size_t k = 0; k < ntt; k++)
		if (first[k] == ANA_NONE || (size_t)jx[k] >= nf)
			jx[k] = -1;
}

/* The top files by time in calls on them (ana_series), figure and table,
 * their cells those of their entries in /files (nf long) */
static void files_by_time(struct side *sd, FILE *o, size_t nf)
{
	struct ana *a = sd->a;
	struct ana_series *s = &sd->s;
	uint32_t tt[TOP_FILES];
	double v1[TOP_FILES] = { 0 };
	char *tips[TOP_FILES] = { 0 };
	char id[32], ptr[96], b1[32], lb[ANA_PATH_BUF];

	size_t ntt = top_by_time(a, s, tt);
	/* their entries in /files: the first of their label, its place the
	 * files listed before it */
	char *lbl[TOP_FILES], *nm[TOP_FILES];
	uint32_t first[TOP_FILES];
	long jx[TOP_FILES];
	/* (one temporary for their texts: freed if out of memory jumps) */
	char *tx = ana_tmp_calloc(2 * TOP_FILES, ANA_PATH_BUF);
	for (size_t k = 0; k < ntt; k++) {
		const struct ana_file *f = &a->files[tt[k]];
		lbl[k] = tx + 2 * k * ANA_PATH_BUF;
		nm[k] = f->path ? lbl[k] + ANA_PATH_BUF : NULL;
		snprintf(lbl[k], ANA_PATH_BUF, "%s", ana_file_label(a, f, lb));
		if (nm[k])
			snprintf(nm[k], ANA_PATH_BUF, "%s", ana_path_name(a, f->path, lb));
		first[k] = ANA_NONE;
		jx[k] = 0;
	}
	files_places(a, ntt, lbl, nm, first, jx, nf, lb);
	for (size_t k = 0; k < ntt; k++) {
		v1[k] = (double)s->file_ns[tt[k]] / 1e9;
		cm_fmt_ns(b1, sizeof(b1), s->file_ns[tt[k]]);
		if (asprintf(&tips[k], "%s: %s in calls", lbl[k], b1) < 0)
			ana_oom();
	}
	hbar_plot(sd, o, plot_id(sd, "plot-files-time", id, sizeof(id)),
		  "Top files by time in system calls", v1, NULL, ntt, "time in calls",
		  fmt_sec_axis, NULL, (const char *const *)tips);
	for (size_t k = 0; k < ntt; k++)
		free(tips[k]);
	fputs("</figure><table>\n<tr><th>#</th><th>file</th><th>time in calls</th><th>read</th>"
	      "<th>opens</th></tr>\n", o);
	for (size_t k = 0; k < ntt; k++) {
		long j = jx[k];
		cm_fmt_ns(b1, sizeof(b1), s->file_ns[tt[k]]);
		fprintf(o, "<tr><td>%zu</td><td class=\"path\">", k + 1);
		ana_svg_esc(o, lbl[k]);
		fprintf(o, "</td><td class=\"num\">%s</td>", b1);
		if (j >= 0) {
			const struct ana_file *f = &a->files[first[k]];
			snprintf(ptr, sizeof(ptr), "/files/%ld/read_bytes", j);
			cell_u64(sd, o, ptr, ana_file_read_bytes(a, f), U_BYTES);
			snprintf(ptr, sizeof(ptr), "/files/%ld/opens", j);
			cell_u64(sd, o, ptr, ana_file_opens(a, f), U_COUNT);
		} else {
			fputs("<td></td><td></td>", o);
		}
		fputs("</tr>\n", o);
	}
	fputs("</table>\n", o);
	ana_tmp_free(tx);
}

/* The top files by bytes and by time in calls */
static void sec_files(struct side *sd, FILE *o)
{
	size_t nf = files_by_bytes(sd, o);

	fputs("</table></div>\n<div class=\"row\"><figure>\n", o);
	files_by_time(sd, o, nf);
}

/* -------------------------------------------------------------- the page */

struct section {
	const char *id, *title, *what;
	void (*fn)(struct side *sd, FILE *o);
};

static const struct section sections[] = {
	{ "summary", "Job summary", "What was recorded, and the totals.", sec_summary },
	{ "bandwidth", "Bandwidth over time",
	  "Bytes read and written by system calls per column of time; dashed lines: epochs "
	  "(passes over the data set), solid: checkpoints.", sec_bandwidth },
	{ "heatmap", "Bytes read per directory over time",
	  "The directories read most, one row each, by the files' directory; brighter: more "
	  "bytes in that column of time.", sec_heatmap },
	{ "sizes", "Request sizes", "Reads and writes by size class (powers of two).", sec_sizes },
	{ "randomness", "Randomness per epoch",
	  "File order randomness: 0 when the data set's files are read in name order, 1 "
	  "shuffled.  Read randomness: the share of a stream's reads that do not start where "
	  "the last ended.", sec_randomness },
	{ "cache", "Page cache hit ratio over time", "Pages found in the page cache over pages "
	  "accessed.", sec_cache },
	{ "threads", "Per-thread timeline",
	  "The threads with the most time in I/O calls: light while the thread runs, the "
	  "dark part of each column the share of it spent blocked in system calls.", sec_threads },
	{ "latency", "Latency per layer",
	  "How long system calls and block requests took, as shares of each layer's calls.",
	  sec_latency },
	{ "files", "Top files", "By bytes read and written, and by time spent in system calls "
	  "on them.", sec_files },
};

static const char css[] =
	"body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;"
	"max-width:1500px;padding:16px 24px;color:#222;background:#fff}"
	"h1{font-size:22px;margin:8px 0}h2{font-size:17px;margin:0 0 4px}"
	"section{border-top:1px solid #ccc;padding:12px 0}"
	"p.what{color:#555;margin:0 0 8px;max-width:60em}"
	".row{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}"
	".row>figure{flex:0 0 auto}.row>table{flex:1 1 320px}"
	".pair{display:flex;flex-wrap:wrap;gap:24px}.side{flex:1 1 0;min-width:0}"
	".side>h3{font-size:14px;margin:4px 0;color:#0072B2}"
	"figure{margin:0}table{border-collapse:collapse;font-size:12px}"
	"th,td{padding:1px 8px 1px 0;text-align:left;vertical-align:top}"
	"th{font-weight:600;color:#444;white-space:nowrap}td.num{text-align:right;font-variant-numeric:tabular-nums}"
	"td.path{max-width:28em;overflow-wrap:anywhere}"
	".ok{color:#009E73;font-weight:700}.fail{color:#D55E00;font-weight:700}"
	"svg.plot{background:#fff;font-family:inherit}";

static void side_release(struct side *sd)
{
	ana_series_release(&sd->s);
	json_decref(sd->j);
}

/* The analysis' JSON (ana_report_json), parsed back: 0 or -errno. */
static int side_init(struct side *sd, struct ana *a, const char *name, double w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	json_error_t je;
	int err;

	memset(sd, 0, sizeof(*sd));
	sd->a = a;
	sd->name = name;
	sd->w = w;
	if (!m)
		return -errno;
	err = ana_report_json_nofiles(a, m);
	if (fclose(m) && !err)
		err = -ENOMEM;
	if (!err && !(sd->j = json_loadb(buf, len, 0, &je)))
		err = -ENOMEM;
	free(buf);
	if (!err)
		err = ana_series_build(a, MAXCOL, &sd->s);
	if (err)
		side_release(sd);
	return err;
}

struct html_job {
	struct side *sd;
	size_t nsides;
	const struct ana_html_check *checks;
	size_t nchecks;
	FILE *o;
};

static void side_title(FILE *o, struct side *sd)
{
	fprintf(o, "<h3>%s: ", sd->name[0] == 'a' ? "A" : "B");
	ana_svg_esc(o, sd->a->path);
	fputs("</h3>\n", o);
}

static int html_job(void *arg)
{
	struct html_job *j = arg;
	FILE *o = j->o;
	int pair = j->nsides == 2;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"iotape " IOTAPE_VERSION "\">\n<title>", o);
	fputs(pair ? "iotape report: " : "iotape report: ", o);
	ana_svg_esc(o, j->sd[0].a->path);
	if (pair) {
		fputs(" vs ", o);
		ana_svg_esc(o, j->sd[1].a->path);
	}
	fprintf(o, "</title>\n<style>%s</style></head>\n<body>\n<h1>", css);
	if (pair) {
		fputs("iotape report: ", o);
		ana_svg_esc(o, j->sd[0].a->path);
		fputs(" (A) and ", o);
		ana_svg_esc(o, j->sd[1].a->path);
		fputs(" (B)", o);
	} else {
		fputs("iotape report: ", o);
		ana_svg_esc(o, j->sd[0].a->path);
	}
	fputs("</h1>\n", o);
	if (pair && j->nchecks) {
		int failed = 0;
		for (size_t i = 0; i < j->nchecks; i++)
			failed += !j->checks[i].ok;
		fputs("<section id=\"sec-checks\"><h2>Fidelity checks (B reproduces A)</h2>\n"
		      "<p class=\"what\">The checks of <code>iotape compare --check</code>: whether "
		      "B, the recording of a replay of A, did A's reads and writes, file by file, "
		      "with A's request sizes, access pattern, compute and duration.</p>\n<table>\n", o);
		for (size_t i = 0; i < j->nchecks; i++) {
			fprintf(o, "<tr class=\"check\" data-check=\"");
			ana_svg_esc(o, j->checks[i].name);
			fprintf(o, "\" data-ok=\"%d\"><td class=\"%s\">%s</td><th>", j->checks[i].ok,
				j->checks[i].ok ? "ok" : "fail", j->checks[i].ok ? "ok" : "FAIL");
			ana_svg_esc(o, j->checks[i].name);
			fputs("</th><td>", o);
			ana_svg_esc(o, j->checks[i].detail);
			fputs("</td></tr>\n", o);
		}
		fprintf(o, "</table>\n<p class=\"%s\" id=\"check-verdict\">%s: %d of %zu checks "
			"failed</p></section>\n", failed ? "fail" : "ok", failed ? "FAILED" : "PASSED",
			failed, j->nchecks);
	}
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		const struct section *s = &sections[i];
		fprintf(o, "<section id=\"sec-%s\"><h2>%s</h2>\n<p class=\"what\">%s</p>\n", s->id,
			s->title, s->what);
		if (pair)
			fputs("<div class=\"pair\">", o);
		for (size_t k = 0; k < j->nsides; k++) {
			if (pair) {
				fputs("<div class=\"side\">", o);
				side_title(o, &j->sd[k]);
			}
			fputs("<div class=\"row\"><figure>\n", o);
			s->fn(&j->sd[k], o);
			fputs("</div>\n", o);
			if (pair)
				fputs("</div>\n", o);
		}
		if (pair)
			fputs("</div>", o);
		fputs("</section>\n", o);
	}
	fputs("<footer><p class=\"what\">Made by <code>iotape report</code>; every figure in a "
	      "table carries its key in <code>iotape analyze --json</code> (data-json-key, "
	      "data-value). See iotape-report(1) and iotape-analyze(1).</p></footer>\n"
	      "</body></html>\n", o);
	return 0;
}

int ana_report_html(struct ana *a, struct ana *b, const struct ana_html_check *checks,
		    size_t nchecks, FILE *out)
{
	struct side sd[2];
	size_t n = 0;
	int err = 0;

	if ((err = side_init(&sd[0], a, b ? "a" : NULL, b ? 600 : 700)))
		return err;
	n = 1;
	if (b) {
		if ((err = side_init(&sd[1], b, "b", 600)))
			goto out;
		n = 2;
		double l = dur_s(&sd[0]) > dur_s(&sd[1]) ? dur_s(&sd[0]) : dur_s(&sd[1]);
		sd[0].span_s = sd[1].span_s = l;
	}
	struct html_job j = { sd, n, checks, nchecks, out };
	err = ana_guard(html_job, &j);
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
out:
	for (size_t i = 0; i < n; i++)
		side_release(&sd[i]);
	return err;
}
