/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The unit tests' one assertion: CHECK(cond, fmt, ...) counts the check
 * and, when cond is false, prints "FAIL file:line: cond: message" and
 * counts the failure; the message arguments are evaluated only then. It is
 * an expression worth cond, for "ok" lines. check_done() prints the totals
 * and gives main's exit code.
 */
#ifndef BTFI_TEST_CHECK_H
#define BTFI_TEST_CHECK_H

#include <stdbool.h>
#include <stdio.h>

static int fails, checks;

#define CHECK(cond, ...) ({							\
	bool ok_ = (cond);							\
	checks++;								\
	if (!ok_) {								\
		fails++;							\
		printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);		\
		printf(__VA_ARGS__);						\
		putchar('\n');							\
		fflush(stdout);							\
	}									\
	ok_;									\
})

static inline int check_done(void)
{
	printf("%d checks, %d failed\n", checks, fails);
	return fails ? 1 : 0;
}

#endif
