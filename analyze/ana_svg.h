/* SPDX-License-Identifier: MIT */
/*
 * ana_svg.h - plots as SVG text: axes with ticks at nice numbers, grid lines,
 * lines, bars, rectangles (heat maps, timelines), markers and legends.
 *
 * Knows nothing of traces: a plot maps data coordinates (x, y) to pixels
 * in a box of the size it is given, and every call writes SVG elements to
 * the FILE * of ana_svg_begin.  Nothing here fails but the stream: the caller
 * checks ferror() on it when done.  Colours are the Okabe-Ito palette
 * (readable with every common colour-vision deficiency) and, for heat
 * maps, a viridis-like ramp (perceptually ordered, readable in grey).
 * Text is XML-escaped (ana_svg_esc); numbers are printed with %g.
 */
#ifndef IOTAPE_ANA_SVG_H
#define IOTAPE_ANA_SVG_H

#include <stddef.h>
#include <stdio.h>

/* Okabe-Ito, without its black: categorical series colours. */
#define ANA_SVG_NCOLOURS 7
extern const char *const ana_svg_palette[ANA_SVG_NCOLOURS];
/* Colour of t in [0, 1] on the viridis-like ramp, "#rrggbb" in out. */
void ana_svg_ramp(double t, char out[8]);

/* Axis: [lo, hi] in data units.  fmt (NULL: %g with k/M/G) writes a
 * tick's label; arg is passed to it. */
struct ana_svg_axis {
	double lo, hi;
	const char *label;	/* NULL: none */
	void (*fmt)(char *buf, size_t len, double v, void *arg);
	void *arg;
	int nticks;		/* about how many ticks (0: 5) */
	int no_ticks;		/* categories labelled by the caller */
};

struct ana_svg_plot {
	FILE *o;
	double w, h;			/* whole box, pixels */
	double ml, mr, mt, mb;		/* margins */
	struct ana_svg_axis x, y;
};

/*
 * Nice tick positions over [lo, hi]: at most max of them, at multiples of
 * 1, 2 or 5 times a power of ten (Heckbert's "nice numbers"), in ticks[];
 * returns how many.  lo == hi is widened first.
 */
size_t ana_svg_ticks(double lo, double hi, size_t max, double *ticks);
/* The nice number above hi (a y axis' top): 1, 2, 2.5 or 5 times a power
 * of ten; 1 for hi <= 0. */
double ana_svg_nice_ceil(double hi);

/* Default tick label: 0.5, 12, 1.5k, 2M, 3G. */
void ana_svg_fmt_si(char *buf, size_t len, double v, void *arg);

/* Open a plot: <svg> of w x h pixels with class "plot", id (NULL: none)
 * and a <title>; margins default to room for the axes' labels. */
void ana_svg_begin(struct ana_svg_plot *p, FILE *o, double w, double h, const char *id,
		   const char *title);
/* Grid lines, ticks, their labels and the axis labels. */
void ana_svg_axes(struct ana_svg_plot *p);
void ana_svg_end(struct ana_svg_plot *p);

/* Pixel of a data coordinate, clamped to the plot area. */
double ana_svg_px(const struct ana_svg_plot *p, double x);
double ana_svg_py(const struct ana_svg_plot *p, double y);

/* A polyline through n points (NaN y: a break in the line). */
void ana_svg_line(struct ana_svg_plot *p, const double *x, const double *y, size_t n,
		  const char *colour, const char *name);
/* A filled rectangle between data corners, with a tooltip (NULL: none). */
void ana_svg_rect(struct ana_svg_plot *p, double x0, double y0, double x1, double y1,
		  const char *fill, const char *tip);
/* A vertical marker at x with a short label on top (NULL: none). */
void ana_svg_vline(struct ana_svg_plot *p, double x, const char *colour, int dashed,
		   const char *label);
/* Text at a data coordinate, anchor "start", "middle" or "end". */
void ana_svg_label(struct ana_svg_plot *p, double x, double y, const char *anchor,
		   const char *text);
/* A legend in the top right corner of the plot area. */
void ana_svg_legend(struct ana_svg_plot *p, const char *const *names, const char *const *colours,
		    size_t n);
/* A colour bar for a ramp from lo to hi (heat maps), right of the plot. */
void ana_svg_ramp_legend(struct ana_svg_plot *p, const char *lo, const char *hi);

/* s with &, <, >, " and ' escaped, and control bytes left out. */
void ana_svg_esc(FILE *o, const char *s);

#endif
