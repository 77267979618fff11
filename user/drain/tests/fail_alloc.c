// SPDX-License-Identifier: GPL-2.0
/*
 * fail_alloc.so, preloaded into fxtrace-drain by drain_test.sh: it makes the
 * drainer fail once its session exists.  After FXTRACE_IOC_INIT succeeds,
 * allocation number FAIL_ALLOC_AFTER_INIT (1: the first) and every later
 * one fail with ENOMEM; the drainer must still end the session it made.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include <linux/fxtrace.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);

static bool armed;
static long left;		/* allocations that still succeed once armed */

static bool fails(void)
{
	if (!armed)
		return false;
	if (left > 0) {
		left--;
		return false;
	}
	errno = ENOMEM;
	return true;
}

void *malloc(size_t size)
{
	return fails() ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	return fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	return fails() ? NULL : __libc_realloc(p, size);
}

int ioctl(int fd, unsigned long request, ...)
{
	static int (*real)(int, unsigned long, ...);
	const char *nth = getenv("FAIL_ALLOC_AFTER_INIT");
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	ret = real(fd, request, arg);
	if (!ret && request == FXTRACE_IOC_INIT && nth && atol(nth) > 0) {
		left = atol(nth) - 1;
		armed = true;
	}
	return ret;
}
