/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every fxtrace selftest fixture checks first: the tests need
 * /dev/fxtrace (fxtrace.ko loaded) and root (sessions need CAP_PERFMON,
 * some tests change uid or load the module).  Without them each test is
 * reported as skipped with the reason (KSFT_SKIP), as kselftests do where
 * a feature is absent, instead of failing.
 *
 *	FIXTURE_SETUP(f)
 *	{
 *		FXT_SELFTEST_REQUIRE_DEVICE();
 *		...
 *
 * or first thing in a TEST() without a fixture.  selftests/skip_test.sh
 * fails for a test program of selftests/ that does not skip on the build
 * host.
 */
#ifndef FXTRACE_SELFTEST_H
#define FXTRACE_SELFTEST_H

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "kselftest_harness.h"

/* Why the fxtrace tests cannot run here, or NULL when they can. */
static inline const char *fxt_selftest_unmet(void)
{
	static char why[160];
	int fd;

	if (access(FXTRACE_DEVICE, F_OK))
		return FXTRACE_DEVICE " is absent: load fxtrace.ko";
	if (geteuid())
		return "needs root (sessions need CAP_PERFMON; some tests change uid or reload the module)";
	fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot open " FXTRACE_DEVICE ": %s",
			 strerror(errno));
		return why;
	}
	close(fd);
	return NULL;
}

/*
 * In a FIXTURE_SETUP (or a TEST): skip the test when fxt_selftest_unmet()
 * says so.
 * The longjmp leaves the harness's setup and test body both (in 6.1's
 * harness a setup that only returns after SKIP still runs the body).
 */
#define FXT_SELFTEST_REQUIRE_DEVICE() do {				\
	const char *fxt_why_ = fxt_selftest_unmet();			\
	if (fxt_why_)							\
		SKIP(longjmp(_metadata->env, 1), "%s", fxt_why_);	\
} while (0)

#endif /* FXTRACE_SELFTEST_H */
