// SPDX-License-Identifier: GPL-2.0
/*
 * slow_relay.so, preloaded into `fxtrace record` by drain_test.sh: the
 * signals record passes on to its drainer (sigqueue(), kill() before it)
 * wait SLOW_RELAY_MS first, as a relay held up on a loaded machine.  The
 * preload is taken out of the environment: the drainer record runs, and
 * the command, send theirs at once.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

static int (*real_sigqueue)(pid_t, int, const union sigval);
static int (*real_kill)(pid_t, int);
static struct timespec delay;

__attribute__((constructor)) static void slow_relay_init(void)
{
	const char *ms = getenv("SLOW_RELAY_MS");
	long n = ms ? atol(ms) : 0;

	real_sigqueue = (int (*)(pid_t, int, const union sigval))
		dlsym(RTLD_NEXT, "sigqueue");
	real_kill = (int (*)(pid_t, int))dlsym(RTLD_NEXT, "kill");
	delay.tv_sec = n / 1000;
	delay.tv_nsec = n % 1000 * 1000000;
	unsetenv("LD_PRELOAD");
}

/* Called from record's signal handler: nanosleep() is async-signal-safe. */
int sigqueue(pid_t pid, int sig, const union sigval value)
{
	nanosleep(&delay, NULL);
	return real_sigqueue(pid, sig, value);
}

int kill(pid_t pid, int sig)
{
	nanosleep(&delay, NULL);
	return real_kill(pid, sig);
}
