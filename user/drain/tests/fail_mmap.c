// SPDX-License-Identifier: GPL-2.0
/*
 * fail_mmap.so, preloaded into fxtrace-drain by record_test.sh: the
 * drainer cannot map the buffers it is given.  An mmap() of /dev/fxtrace
 * whose length is within FAIL_MMAP_MIN..FAIL_MMAP_MAX bytes (a task
 * buffer of -B's size, not the CPU buffers') fails with EACCES, or with
 * FAIL_MMAP_ERRNO (a number) if set; with FAIL_MMAP_COUNT=N only the first
 * N such mmap() calls fail (a memory shortage that passes).  The drainer's
 * commands do not inherit it.
 */
#include <errno.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

static size_t min_len, max_len;
static int fail_errno = EACCES;
static long fail_count = -1;	/* failures left; -1: every one */

__attribute__((constructor)) static void fail_mmap_init(void)
{
	const char *min = getenv("FAIL_MMAP_MIN");
	const char *max = getenv("FAIL_MMAP_MAX");
	const char *err = getenv("FAIL_MMAP_ERRNO");
	const char *count = getenv("FAIL_MMAP_COUNT");

	min_len = min ? strtoull(min, NULL, 0) : 1;
	max_len = max ? strtoull(max, NULL, 0) : 0;
	if (err)
		fail_errno = atoi(err);
	if (count)
		fail_count = atol(count);
	/* The drainer's alone, not its command's (libfxtrace maps too). */
	unsetenv("LD_PRELOAD");
}

static int is_fxtrace(int fd)
{
	char link[32], target[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	return !strcmp(target, "/dev/fxtrace");
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);

	if (len >= min_len && len <= max_len && fd >= 0 && fail_count &&
	    is_fxtrace(fd)) {
		if (fail_count > 0)
			fail_count--;
		errno = fail_errno;
		return MAP_FAILED;
	}
	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))
			dlsym(RTLD_NEXT, "mmap");
	return real(addr, len, prot, flags, fd, off);
}
