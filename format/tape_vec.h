/* SPDX-License-Identifier: MIT */
/*
 * tape_vec.h - a growing array: the one way the tree makes room in a
 * heap array it appends to.
 *
 * An array is a pointer a to its elements and a count cap of the elements
 * allocated (any unsigned integer type; the number in use is the
 * caller's).  TAPE_VEC_GROW makes room for need elements, doubling the
 * capacity (from min, for an empty array) until it holds them, so n
 * appends cost O(n) copying; TAPE_VEC_RESIZE sets the allocation to n
 * elements exactly (for arrays kept side by side with one capacity).
 * Both return 0, or -ENOMEM with a and cap unchanged, also when the size
 * in bytes or the capacity's type would overflow; they evaluate a and cap
 * more than once.
 *
 * Header only: no symbol, nothing in libtape's API (tape.h).  In format/
 * because the format library grows arrays too and may use nothing above
 * it; every module above includes it as format/'s other public header.
 */
#ifndef IOTAPE_TAPE_VEC_H
#define IOTAPE_TAPE_VEC_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The capacity that holds need elements of sz bytes: cap (min when 0, 1
 * when both are) doubled until it does; 0 when that overflows. */
static inline size_t tape_vec_cap(size_t cap, size_t need, size_t min, size_t sz)
{
	size_t nc = cap ? cap : min ? min : 1;

	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return 0;
		nc *= 2;
	}
	return sz && nc > SIZE_MAX / sz ? 0 : nc;
}

/* realloc(a, n * sz) without the overflow (and with n 0 as 1: realloc
 * to 0 bytes may free); NULL on failure, a then untouched. */
static inline void *tape_vec_realloc(void *a, size_t n, size_t sz)
{
	if (sz && n > SIZE_MAX / sz)
		return NULL;
	return realloc(a, n && sz ? n * sz : 1);
}

/* Allocate n elements to a (its contents kept, up to n): 0 or -ENOMEM. */
#define TAPE_VEC_RESIZE(a, n) __extension__ ({					\
	void *tape_vec_p_ = tape_vec_realloc((a), (n), sizeof(*(a)));		\
	tape_vec_p_ ? ((a) = tape_vec_p_, 0) : -ENOMEM;				\
})

/* Room for need elements in a of cap allocated: 0 or -ENOMEM. */
#define TAPE_VEC_GROW(a, cap, need, min) __extension__ ({			\
	size_t tape_vec_need_ = (need), tape_vec_nc_;				\
	int tape_vec_rc_ = 0;							\
	if (tape_vec_need_ > (size_t)(cap)) {					\
		tape_vec_nc_ = tape_vec_cap((cap), tape_vec_need_, (min), sizeof(*(a))); \
		if (!tape_vec_nc_ ||						\
		    (size_t)(__typeof__(cap))tape_vec_nc_ != tape_vec_nc_)	\
			tape_vec_rc_ = -ENOMEM;					\
		else if (!(tape_vec_rc_ = TAPE_VEC_RESIZE(a, tape_vec_nc_)))	\
			(cap) = (__typeof__(cap))tape_vec_nc_;			\
	}									\
	tape_vec_rc_;								\
})

#endif /* IOTAPE_TAPE_VEC_H */
