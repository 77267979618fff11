// SPDX-License-Identifier: GPL-2.0
/*
 * no_tmpfile.so - preloaded by output_replace_test.sh: open() with
 * O_TMPFILE fails with EOPNOTSUPP, as on a file system without it (vfat,
 * NFS), so that the named temporary file is tested on any host.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

static int refused_open(const char *name, const char *path, int flags,
			va_list ap)
{
	int (*real)(const char *, int, ...);
	mode_t mode = 0;

	if (flags & (O_CREAT | __O_TMPFILE))
		mode = va_arg(ap, mode_t);
	if ((flags & O_TMPFILE) == O_TMPFILE) {
		errno = EOPNOTSUPP;
		return -1;
	}
	real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);
	return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = refused_open("open", path, flags, ap);
	va_end(ap);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = refused_open("open64", path, flags, ap);
	va_end(ap);
	return fd;
}
