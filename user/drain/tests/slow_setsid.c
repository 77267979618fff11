// SPDX-License-Identifier: GPL-2.0
/*
 * slow_setsid.so, preloaded into fxtrace-drain by drain_test.sh: setsid()
 * waits SLOW_SETSID_SECONDS first.  The -u command calls it in the child,
 * before exec, while the session may already run (initgroups() before it
 * can wait on a directory service): the command is still in the
 * drainer's process group then, and has none of its own.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

pid_t setsid(void)
{
	pid_t (*real)(void) = (pid_t (*)(void))dlsym(RTLD_NEXT, "setsid");
	const char *seconds = getenv("SLOW_SETSID_SECONDS");

	if (seconds)
		sleep((unsigned int)atoi(seconds));
	return real();
}
