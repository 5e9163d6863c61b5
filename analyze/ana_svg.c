/* SPDX-License-Identifier: MIT */
/*
 * ana_svg.c - plots as SVG text (ana_svg.h).
 *
 * The plot area is the box less its margins; data map to it linearly,
 * y upwards.  Everything is written as it is drawn: nothing is kept but
 * the plot's geometry.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ana_svg.h"

const char *const ana_svg_palette[ANA_SVG_NCOLOURS] = {
	"#0072B2",	/* blue */
	"#E69F00",	/* orange */
	"#009E73",	/* bluish green */
	"#CC79A7",	/* reddish purple */
	"#56B4E9",	/* sky blue */
	"#D55E00",	/* vermillion */
	"#F0E442",	/* yellow */
};

/* viridis at 0, 1/8, ..., 1 (its published end and middle colours) */
static const unsigned char ramp[9][3] = {
	{ 68, 1, 84 }, { 71, 44, 122 }, { 59, 81, 139 }, { 44, 113, 142 }, { 33, 144, 141 },
	{ 39, 173, 129 }, { 92, 200, 99 }, { 170, 220, 50 }, { 253, 231, 37 },
};

void ana_svg_ramp(double t, char out[8])
{
	if (!(t > 0))
		t = 0;
	if (t > 1)
		t = 1;
	double f = t * 8;
	int i = (int)f;
	if (i > 7)
		i = 7;
	f -= i;
	int c[3];
	for (int k = 0; k < 3; k++)
		c[k] = (int)lround(ramp[i][k] + f * (ramp[i + 1][k] - ramp[i][k]));
	snprintf(out, 8, "#%02x%02x%02x", c[0] & 255, c[1] & 255, c[2] & 255);
}

/* 1, 2, 5 (round) or the next of 1, 2, 5, 10 at or above x's mantissa */
static double nice(double x, int round_it)
{
	if (!(x > 0))
		return 1;
	double e = floor(log10(x)), f = x / pow(10, e), n;
	if (round_it)
		n = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
	else
		n = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
	return n * pow(10, e);
}

size_t ana_svg_ticks(double lo, double hi, size_t max, double *ticks)
{
	if (max < 2)
		max = 2;
	if (!(hi > lo)) {
		double d = fabs(lo) > 0 ? fabs(lo) / 2 : 1;
		lo -= d;
		hi += d;
	}
	double step = nice(nice(hi - lo, 0) / (double)(max - 1), 1);
	size_t n = 0;
	for (double v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9 && n < max + 2; v += step) {
		if (n == max)
			break;
		ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

double ana_svg_nice_ceil(double hi)
{
	if (!(hi > 0) || !isfinite(hi))
		return 1;
	double e = floor(log10(hi)), f = hi / pow(10, e);
	double n = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
	return n * pow(10, e);
}

void ana_svg_fmt_si(char *buf, size_t len, double v, void *arg)
{
	static const char *const sfx[] = { "", "k", "M", "G", "T", "P" };
	double a = fabs(v);
	int k = 0;
	while (a >= 1000 && k < 5) {
		a /= 1000;
		v /= 1000;
		k++;
	}
	snprintf(buf, len, "%.3g%s", v, sfx[k]);
}

void ana_svg_esc(FILE *o, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': fputs("&amp;", o); break;
		case '<': fputs("&lt;", o); break;
		case '>': fputs("&gt;", o); break;
		case '"': fputs("&quot;", o); break;
		case '\'': fputs("&#39;", o); break;
		default:
			if (c >= 0x20 && c != 0x7f)
				fputc(c, o);
		}
	}
}

void ana_svg_begin(struct ana_svg_plot *p, FILE *o, double w, double h, const char *id,
		   const char *title)
{
	p->o = o;
	p->w = w;
	p->h = h;
	if (!p->ml)
		p->ml = 56;
	if (!p->mr)
		p->mr = 16;
	if (!p->mt)
		p->mt = 14;
	if (!p->mb)
		p->mb = 38;
	fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%g\" "
		"height=\"%g\" viewBox=\"0 0 %g %g\" role=\"img\"", w, h, w, h);
	if (id) {
		fputs(" id=\"", o);
		ana_svg_esc(o, id);
		fputc('"', o);
	}
	fputs("><title>", o);
	ana_svg_esc(o, title);
	fputs("</title>\n", o);
}

void ana_svg_end(struct ana_svg_plot *p)
{
	fputs("</svg>\n", p->o);
}

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

double ana_svg_px(const struct ana_svg_plot *p, double x)
{
	double span = p->x.hi - p->x.lo, w = p->w - p->ml - p->mr;
	double f = span > 0 ? (x - p->x.lo) / span : 0;
	return p->ml + clampd(f, 0, 1) * w;
}

double ana_svg_py(const struct ana_svg_plot *p, double y)
{
	double span = p->y.hi - p->y.lo, h = p->h - p->mt - p->mb;
	double f = span > 0 ? (y - p->y.lo) / span : 0;
	return p->mt + (1 - clampd(f, 0, 1)) * h;
}

static void tick_label(const struct ana_svg_axis *a, double v, char *buf, size_t len)
{
	if (a->fmt)
		a->fmt(buf, len, v, a->arg);
	else
		ana_svg_fmt_si(buf, len, v, NULL);
}

void ana_svg_axes(struct ana_svg_plot *p)
{
	FILE *o = p->o;
	double t[16], x0 = p->ml, x1 = p->w - p->mr, y0 = p->mt, y1 = p->h - p->mb;
	char buf[64];
	size_t n;

	fprintf(o, "<g class=\"axes\" font-size=\"11\" fill=\"#333\">\n");
	if (!p->y.no_ticks) {
		n = ana_svg_ticks(p->y.lo, p->y.hi, p->y.nticks ? (size_t)p->y.nticks : 5, t);
		for (size_t i = 0; i < n; i++) {
			if (t[i] < p->y.lo - 1e-12 || t[i] > p->y.hi + 1e-12)
				continue;
			double y = ana_svg_py(p, t[i]);
			fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#ddd\"/>", x0, y, x1, y);
			tick_label(&p->y, t[i], buf, sizeof(buf));
			fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x0 - 4, y + 4);
			ana_svg_esc(o, buf);
			fputs("</text>\n", o);
		}
	}
	if (!p->x.no_ticks) {
		n = ana_svg_ticks(p->x.lo, p->x.hi, p->x.nticks ? (size_t)p->x.nticks : 7, t);
		for (size_t i = 0; i < n; i++) {
			if (t[i] < p->x.lo - 1e-12 || t[i] > p->x.hi + 1e-12)
				continue;
			double x = ana_svg_px(p, t[i]);
			fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#333\"/>", x, y1, x, y1 + 4);
			tick_label(&p->x, t[i], buf, sizeof(buf));
			fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, y1 + 15);
			ana_svg_esc(o, buf);
			fputs("</text>\n", o);
		}
	}
	fprintf(o, "<path d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" stroke=\"#333\"/>\n",
		x0, y0, y1, x1);
	if (p->x.label) {
		fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (x0 + x1) / 2,
			p->h - 4);
		ana_svg_esc(o, p->x.label);
		fputs("</text>\n", o);
	}
	if (p->y.label) {
		fprintf(o, "<text transform=\"translate(12 %.1f) rotate(-90)\" "
			"text-anchor=\"middle\">", (y0 + y1) / 2);
		ana_svg_esc(o, p->y.label);
		fputs("</text>\n", o);
	}
	fputs("</g>\n", o);
}

void ana_svg_line(struct ana_svg_plot *p, const double *x, const double *y, size_t n,
		  const char *colour, const char *name)
{
	FILE *o = p->o;
	int open = 0;

	fprintf(o, "<path class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" "
		"stroke-linejoin=\"round\" d=\"", colour);
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(y[i])) {
			open = 0;
			continue;
		}
		fprintf(o, "%s%.1f %.1f", open ? "L" : "M", ana_svg_px(p, x[i]), ana_svg_py(p, y[i]));
		open = 1;
	}
	fputs("\">", o);
	if (name) {
		fputs("<title>", o);
		ana_svg_esc(o, name);
		fputs("</title>", o);
	}
	fputs("</path>\n", o);
}

void ana_svg_rect(struct ana_svg_plot *p, double x0, double y0, double x1, double y1,
		  const char *fill, const char *tip)
{
	double a = ana_svg_px(p, x0), b = ana_svg_px(p, x1), c = ana_svg_py(p, y0), d = ana_svg_py(p, y1);
	double x = a < b ? a : b, y = c < d ? c : d, w = fabs(b - a), h = fabs(d - c);

	fprintf(p->o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"",
		x, y, w, h, fill);
	if (tip) {
		fputs("><title>", p->o);
		ana_svg_esc(p->o, tip);
		fputs("</title></rect>\n", p->o);
	} else {
		fputs("/>\n", p->o);
	}
}

void ana_svg_vline(struct ana_svg_plot *p, double x, const char *colour, int dashed,
		   const char *label)
{
	double px = ana_svg_px(p, x);

	fprintf(p->o, "<line class=\"marker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"%s\"%s/>", px, p->mt, px, p->h - p->mb, colour,
		dashed ? " stroke-dasharray=\"4 3\"" : "");
	if (label) {
		fprintf(p->o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\">", px + 2,
			p->mt + 9, colour);
		ana_svg_esc(p->o, label);
		fputs("</text>", p->o);
	}
	fputc('\n', p->o);
}

void ana_svg_label(struct ana_svg_plot *p, double x, double y, const char *anchor, const char *text)
{
	fprintf(p->o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"%s\">",
		ana_svg_px(p, x), ana_svg_py(p, y), anchor);
	ana_svg_esc(p->o, text);
	fputs("</text>\n", p->o);
}

void ana_svg_legend(struct ana_svg_plot *p, const char *const *names, const char *const *colours,
		    size_t n)
{
	double x = p->w - p->mr - 8, y = p->mt + 4;
	size_t longest = 0;

	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) > longest)
			longest = strlen(names[i]);
	x -= 6.5 * (double)longest + 16;
	fprintf(p->o, "<g class=\"legend\" font-size=\"11\"><rect x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" fill-opacity=\"0.85\"/>\n",
		x - 4, y - 2, 6.5 * (double)longest + 24, 15.0 * (double)n + 4);
	for (size_t i = 0; i < n; i++) {
		fprintf(p->o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\">", x, y + 15.0 * (double)i + 1, colours[i],
			x + 14, y + 15.0 * (double)i + 10);
		ana_svg_esc(p->o, names[i]);
		fputs("</text>\n", p->o);
	}
	fputs("</g>\n", p->o);
}

void ana_svg_ramp_legend(struct ana_svg_plot *p, const char *lo, const char *hi)
{
	double x = p->w - p->mr + 8, y0 = p->mt, y1 = p->h - p->mb, h = (y1 - y0) / 16;
	char c[8];

	fputs("<g class=\"ramp\" font-size=\"10\">\n", p->o);
	for (int i = 0; i < 16; i++) {
		ana_svg_ramp((15 - i) / 15.0, c);
		fprintf(p->o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"%.1f\" "
			"fill=\"%s\"/>", x, y0 + i * h, h + 0.5, c);
	}
	fprintf(p->o, "\n<text x=\"%.1f\" y=\"%.1f\">", x + 13, y0 + 8);
	ana_svg_esc(p->o, hi);
	fprintf(p->o, "</text><text x=\"%.1f\" y=\"%.1f\">", x + 13, y1);
	ana_svg_esc(p->o, lo);
	fputs("</text></g>\n", p->o);
}
