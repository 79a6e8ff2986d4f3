/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks for the host unit-test programs: report every failed check, then
 * exit non-zero from check_done().
 */
#ifndef TB_UNIT_CHECK_H
#define TB_UNIT_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		check_failures++;					\
		fprintf(stderr, "%s:%d: check failed: %s\n",		\
			__FILE__, __LINE__, #cond);			\
	}								\
} while (0)

#define CHECK_EQ(actual, expected) do {					\
	long long _a = (long long)(actual);				\
	long long _e = (long long)(expected);				\
	if (_a != _e) {							\
		check_failures++;					\
		fprintf(stderr, "%s:%d: %s is %lld, expected %s = %lld\n", \
			__FILE__, __LINE__, #actual, _a, #expected, _e); \
	}								\
} while (0)

static inline int check_done(void)
{
	return check_failures ? 1 : 0;
}

#endif /* TB_UNIT_CHECK_H */
