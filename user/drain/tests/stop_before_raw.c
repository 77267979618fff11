// SPDX-License-Identifier: GPL-2.0
/*
 * stop_before_raw.so, preloaded into fxtrace-drain by pty_test.sh: the
 * terminal relay (the process named "fxtrace-relay", pty.c) stops its job
 * with SIGTSTP just before it first makes root's terminal raw, and makes
 * it raw only once continued.  The test then continues the job in the
 * background (bash's bg): the terminal is the shell's by then, and must
 * stay as the shell set it.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <termios.h>

int tcsetattr(int fd, int action, const struct termios *t)
{
	static bool stopped;
	int (*real)(int, int, const struct termios *) =
		(int (*)(int, int, const struct termios *))
		dlsym(RTLD_NEXT, "tcsetattr");
	char name[16] = "";

	prctl(PR_GET_NAME, name);
	if (!stopped && !(t->c_lflag & ICANON) &&
	    !strcmp(name, "fxtrace-relay")) {
		stopped = true;
		/* The whole job, as kill -TSTP of a shell would. */
		kill(0, SIGTSTP);
	}
	return real(fd, action, t);
}
