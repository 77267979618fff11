// SPDX-License-Identifier: GPL-2.0
/*
 * output_race_test - fxtctl_create_output() against a name that someone
 * makes and removes as fast as it is opened: each exclusive create finds
 * it there (EEXIST) and each plain open finds it gone (ENOENT).  The retry
 * used to go on for as long as the racer did; now it gives up with EAGAIN
 * after a bounded number of tries, and says why.  The race is made
 * deterministic by wrapping open() (linked with -Wl,--wrap=open): the
 * wrapper answers for RACED_PATH only, and ends the test as failed when it
 * has been called far more often than the bound allows.  Prints TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_file.h"

#define RACED_PATH	"/nonexistent/fxtrace-raced-name"
/* Far past the bound: only an unbounded retry gets here. */
#define SPINNING	100000

int __real_open(const char *path, int flags, ...);

static unsigned long raced_opens;

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (strcmp(path, RACED_PATH))
		return __real_open(path, flags, mode);
	if (++raced_opens == SPINNING) {
		printf("not ok 1 - a raced name: still retrying after %d opens\n",
		       SPINNING);
		printf("1..1\n");
		exit(1);
	}
	/* There for the exclusive create, gone for the open after it. */
	errno = flags & O_EXCL ? EEXIST : ENOENT;
	return -1;
}

int main(void)
{
	int tests = 0, failed = 0, fd, ok;

	fd = fxtctl_create_output(RACED_PATH, 0);
	ok = fd == -EAGAIN && raced_opens == 200;
	printf("%sok %d - a raced name: %d (%s) after %lu opens, expected -EAGAIN after 200\n",
	       ok ? "" : "not ", ++tests, fd, fd < 0 ? strerror(-fd) : "an fd",
	       raced_opens);
	failed |= !ok;

	ok = strstr(fxtctl_output_refusal(-EAGAIN), "racing") != NULL;
	printf("%sok %d - its refusal says so: \"%s\"\n", ok ? "" : "not ",
	       ++tests, fxtctl_output_refusal(-EAGAIN));
	failed |= !ok;

	printf("1..%d\n", tests);
	return failed;
}
