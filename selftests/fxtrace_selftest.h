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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * The 6.1 harness (the one build/linux-source has) runs every test and
 * ignores its arguments; the options of later harnesses are honoured here,
 * so that one test of a program can be run: -t TEST runs the tests so
 * named, -T TEST skips them, -f FIXTURE and -F FIXTURE the same by
 * fixture, -l lists FIXTURE.TEST.  The first option naming a test decides;
 * without -t or -f, every test not excluded runs.
 */
static inline bool fxt_selftest_enabled(int argc, char **argv,
					struct __fixture_metadata *f,
					struct __test_metadata *t)
{
	bool has_positive = false;
	int opt;

	optind = 1;
	while ((opt = getopt(argc, argv, "t:T:f:F:l")) != -1) {
		switch (opt) {
		case 't':
		case 'T':
			if (!strcmp(t->name, optarg))
				return opt == 't';
			break;
		case 'f':
		case 'F':
			if (!strcmp(f->name, optarg))
				return opt == 'f';
			break;
		}
		has_positive |= opt == 't' || opt == 'f';
	}
	return !has_positive;
}

/* Unlinks the tests the options leave out; -l lists the rest and exits. */
static inline void fxt_selftest_filter(int argc, char **argv)
{
	struct __test_metadata *t, *next, *kept;
	struct __fixture_metadata *f;
	bool list = false;
	int opt;

	while ((opt = getopt(argc, argv, "t:T:f:F:l")) != -1) {
		if (opt == '?') {
			fprintf(stderr, "usage: %s [-l] [-t TEST] [-T TEST] [-f FIXTURE] [-F FIXTURE]...\n",
				argv[0]);
			exit(KSFT_FAIL);
		}
		list |= opt == 'l';
	}
	for (f = __fixture_list; f; f = f->next) {
		kept = NULL;
		for (t = f->tests; t; t = next) {
			next = t->next;
			if (!fxt_selftest_enabled(argc, argv, f, t))
				continue;
			if (list)
				printf("%s.%s\n", f->name, t->name);
			/* __LIST_APPEND's shape: the head's prev is the tail. */
			t->next = NULL;
			if (kept) {
				t->prev = kept->prev;
				kept->prev->next = t;
				kept->prev = t;
			} else {
				t->prev = t;
				kept = t;
			}
		}
		f->tests = kept;
	}
	if (list)
		exit(KSFT_PASS);
}

#undef TEST_HARNESS_MAIN
#define TEST_HARNESS_MAIN \
	static void __attribute__((constructor)) \
	__constructor_order_last(void) \
	{ \
		if (!__constructor_order) \
			__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD; \
	} \
	int main(int argc, char **argv) \
	{ \
		fxt_selftest_filter(argc, argv); \
		return test_harness_run(argc, argv); \
	}

#endif /* FXTRACE_SELFTEST_H */
