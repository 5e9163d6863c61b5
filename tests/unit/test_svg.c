/* SPDX-License-Identifier: MIT */
/*
 * test_svg.c - analyze/ana_svg.c, the plots of the HTML report: ticks at
 * nice numbers, the axis top, XML escaping, the colour ramp's ends, and a
 * plot that is well-formed text (cmocka; exit 0 pass, 1 fail).  A private
 * header of analyze/, through the tests' path (tests/tests.mk).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ana_svg.h"

/* ana_svg.h: ticks at nice numbers inside the range, the axis top, escaping,
 * the ramp's ends, and a plot that is well-formed text */
static void test_svg(void **state)
{
	double t[16];
	size_t n = ana_svg_ticks(0, 9.3, 5, t);
	char c[8], *buf = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(n, 5);	/* 0 2 4 6 8 */
	for (size_t i = 0; i < n; i++)
		assert_true(fabs(t[i] - 2.0 * (double)i) < 1e-9);
	n = ana_svg_ticks(0.013, 0.081, 5, t);
	assert_true(n >= 3 && n <= 5);
	assert_true(t[0] >= 0.013 && t[n - 1] <= 0.081);
	for (size_t i = 1; i < n; i++)	/* a step of 1, 2 or 5 times a power of ten */
		assert_true(fabs(t[i] - t[i - 1] - 0.02) < 1e-9 || fabs(t[i] - t[i - 1] - 0.01) < 1e-9);
	n = ana_svg_ticks(3, 3, 5, t);	/* an empty range is widened */
	assert_true(n >= 2);
	assert_true(ana_svg_nice_ceil(0) == 1);
	assert_true(ana_svg_nice_ceil(7.2) == 10);
	assert_true(ana_svg_nice_ceil(2.1) == 2.5);
	assert_true(ana_svg_nice_ceil(190e6) == 200e6);
	ana_svg_ramp(0, c);
	assert_string_equal(c, "#440154");
	ana_svg_ramp(1, c);
	assert_string_equal(c, "#fde725");
	ana_svg_ramp(NAN, c);
	assert_string_equal(c, "#440154");

	FILE *o = open_memstream(&buf, &len);
	assert_non_null(o);
	ana_svg_esc(o, "a<b>&\"c'\001d");
	fflush(o);
	assert_string_equal(buf, "a&lt;b&gt;&amp;&quot;c&#39;d");
	rewind(o);
	struct ana_svg_plot p = { 0 };
	double x[3] = { 0, 1, 2 }, y[3] = { 1, NAN, 3 };
	p.x = (struct ana_svg_axis){ .lo = 0, .hi = 2, .label = "x<" };
	p.y = (struct ana_svg_axis){ .lo = 0, .hi = 4 };
	ana_svg_begin(&p, o, 200, 100, "id&", "t");
	ana_svg_axes(&p);
	ana_svg_line(&p, x, y, 3, ana_svg_palette[0], NULL);	/* the NaN breaks the line */
	ana_svg_end(&p);
	fputc(0, o);
	fclose(o);
	assert_non_null(strstr(buf, "id=\"id&amp;\""));
	assert_non_null(strstr(buf, ">x&lt;</text>"));
	assert_non_null(strstr(buf, "d=\"M56.0 "));
	assert_int_equal(strstr(strstr(buf, "class=\"series\""), "M") != NULL, 1);
	const char *d = strstr(buf, "class=\"series\"");
	d = strstr(d, "d=\"");
	assert_null(memchr(d, 'L', strcspn(d + 3, "\"")));	/* two moves, no line */
	assert_non_null(strstr(buf, "</svg>"));
	/* pixels: the plot area's corners */
	assert_true(ana_svg_px(&p, 0) == p.ml && ana_svg_px(&p, 2) == 200 - p.mr);
	assert_true(ana_svg_py(&p, 4) == p.mt && ana_svg_py(&p, -1) == 100 - p.mb);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_svg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
