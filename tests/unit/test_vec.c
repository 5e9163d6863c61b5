/* SPDX-License-Identifier: MIT */
/*
 * test_vec.c - format/tape_vec.h, the growing array: doubling from the
 * minimum, room for several at once, the contents kept, a resize to an
 * exact count, and a failure (the size or the capacity's type would
 * overflow) that changes nothing (cmocka; exit 0 pass, 1 fail).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "tape_vec.h"

static void test_grow(void **state)
{
	uint64_t *a = NULL;
	size_t cap = 0, n = 0;

	(void)state;
	assert_int_equal(TAPE_VEC_GROW(a, cap, 0, 16), 0);	/* room already */
	assert_null(a);
	assert_int_equal(cap, 0);
	for (n = 0; n < 100; n++) {
		assert_int_equal(TAPE_VEC_GROW(a, cap, n + 1, 16), 0);
		a[n] = n * 3;
		/* 16, 32, 64, 128: doubled only when full */
		assert_int_equal(cap, n < 16 ? 16 : n < 32 ? 32 : n < 64 ? 64 : 128);
	}
	assert_int_equal(TAPE_VEC_GROW(a, cap, 1000, 16), 0);	/* several doublings */
	assert_int_equal(cap, 1024);
	for (n = 0; n < 100; n++)
		assert_true(a[n] == n * 3);
	assert_int_equal(TAPE_VEC_RESIZE(a, 100), 0);
	for (n = 0; n < 100; n++)
		assert_true(a[n] == n * 3);
	free(a);
}

static void test_overflow(void **state)
{
	uint64_t *a = NULL, *keep;
	size_t cap = 0;
	uint8_t small = 0;
	char *s = NULL;

	(void)state;
	assert_int_equal(TAPE_VEC_GROW(a, cap, 4, 4), 0);
	keep = a;
	assert_int_equal(TAPE_VEC_GROW(a, cap, SIZE_MAX / 4, 4), -ENOMEM);	/* bytes */
	assert_ptr_equal(a, keep);
	assert_int_equal(cap, 4);
	assert_int_equal(TAPE_VEC_RESIZE(a, SIZE_MAX / 2), -ENOMEM);
	assert_ptr_equal(a, keep);
	assert_int_equal(TAPE_VEC_GROW(s, small, 100, 16), 0);
	assert_int_equal(small, 128);
	s[127] = 1;
	assert_int_equal(TAPE_VEC_GROW(s, small, 200, 16), -ENOMEM);	/* 256: no uint8_t */
	assert_int_equal(small, 128);
	assert_int_equal(tape_vec_cap(0, 5, 0, 1), 8);	/* no minimum: from 1 */
	assert_int_equal(tape_vec_cap(SIZE_MAX / 2 + 1, SIZE_MAX, 1, 1), 0);
	free(a);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
