/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - TAP output for the host tests: T(cond, format, ...) reports one
 * test, evaluating cond once; tap_plan() ends the run and gives the exit
 * status.
 */
#ifndef FXTRACE_TAP_H
#define FXTRACE_TAP_H

#include <stdbool.h>
#include <stdio.h>

static int ntest, nfail;

#define T(cond, ...) do {						\
	bool ok_ = (cond);						\
									\
	ntest++;							\
	if (!ok_)							\
		nfail++;						\
	printf("%sok %d - ", ok_ ? "" : "not ", ntest);			\
	printf(__VA_ARGS__);						\
	putchar('\n');							\
} while (0)

static inline int tap_plan(void)
{
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}

#endif /* FXTRACE_TAP_H */
