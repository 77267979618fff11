// SPDX-License-Identifier: GPL-2.0
/*
 * Preloaded by record_signal_test.sh into `fxtrace record`: once fork()
 * has made the drainer, and before record has seen its pid, wait for the
 * drainer to be ready ($FAKE_DIR/ready) and send record
 * $SIGNAL_AFTER_FORK, the signal a user could send in that window.  The
 * child drops the preload, so the drainer and its children run unchanged.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pid_t fork(void)
{
	pid_t (*real_fork)(void) = (pid_t (*)(void))dlsym(RTLD_NEXT, "fork");
	const char *sig = getenv("SIGNAL_AFTER_FORK");
	const char *dir = getenv("FAKE_DIR");
	char ready[4096];
	pid_t pid = real_fork();
	int i;

	if (!pid)
		unsetenv("LD_PRELOAD");
	if (pid <= 0 || !sig || !dir)
		return pid;
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	for (i = 0; i < 100 && access(ready, F_OK); i++)
		usleep(100000);
	kill(getpid(), atoi(sig));
	return pid;
}
