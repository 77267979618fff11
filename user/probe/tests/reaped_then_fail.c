// SPDX-License-Identifier: GPL-2.0
/*
 * Preloaded into fxtrace-probe by output_gone_test.sh: the command's exit
 * is seen (reaped) before the events it left in the ring are written, and
 * those writes fail.  waitpid() with WNOHANG waits for the command
 * instead, so its exit is seen in the first poll with its events still
 * to convert; after that, a write() to a descriptor past stderr fails
 * with EIO; a kill() of the reaped pid is reported, not made (the pid
 * may belong to another process by then).
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t reaped;

pid_t waitpid(pid_t pid, int *status, int options)
{
	pid_t (*real)(pid_t, int *, int) =
		(pid_t (*)(pid_t, int *, int))dlsym(RTLD_NEXT, "waitpid");
	pid_t done;

	if (pid > 0 && !reaped)
		options &= ~WNOHANG;
	done = real(pid, status, options);
	if (done > 0)
		reaped = done;
	return done;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	ssize_t (*real)(int, const void *, size_t) =
		(ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT,
							      "write");

	if (reaped && fd > 2) {
		errno = EIO;
		return -1;
	}
	return real(fd, buf, len);
}

int kill(pid_t pid, int sig)
{
	int (*real)(pid_t, int) =
		(int (*)(pid_t, int))dlsym(RTLD_NEXT, "kill");

	if (reaped && pid == reaped) {
		fprintf(stderr, "reaped_then_fail: kill(%d, %d) of the reaped command\n",
			(int)pid, sig);
		return 0;
	}
	return real(pid, sig);
}
