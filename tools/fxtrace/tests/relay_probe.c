// SPDX-License-Identifier: GPL-2.0
/*
 * relay_probe: the stand-in fxtrace-drain of record_signal_test.sh, put
 * next to a copy of fxtrace.  It says it is ready ($FAKE_DIR/pid and
 * ready), waits for a SIGINT, SIGTERM or SIGHUP (not SIGHUP if ignored on
 * entry, as nohup leaves it) or for record's relay of one
 * (signal_relay.h), writes what came to $FAKE_DIR/got and exits 7:
 * "SIGINT relayed from pid N" (the relay's sender, checked: SI_QUEUE from
 * the parent), "SIGINT from pid N" for one sent to it directly; "kernel"
 * for pid 0 (SI_KERNEL), "parent" for record's own pid.  With
 * RELAY_PROBE_LINGER_MS set, it goes on waiting that long after each
 * signal, and writes one line for each that came.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "signal_relay.h"

static void note(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		exit(1);
}

static void sender(char *buf, size_t size, pid_t pid)
{
	if (!pid)
		snprintf(buf, size, "kernel");
	else if (pid == getppid())
		snprintf(buf, size, "parent");
	else
		snprintf(buf, size, "pid %d", (int)pid);
}

/* One line of what came: the signal, and from whom. */
static void describe(char *text, size_t size, const siginfo_t *si)
{
	char from[32];
	pid_t origin;
	int signo;

	if (si->si_signo != SIGNAL_RELAY) {
		sender(from, sizeof(from), si->si_code == SI_KERNEL ? 0 : si->si_pid);
		snprintf(text, size, "SIG%s from %s\n",
			 sigabbrev_np(si->si_signo), from);
	} else if (si->si_code != SI_QUEUE || si->si_pid != getppid() ||
		   !(signo = signal_relay_decode(si->si_value.sival_int,
						 &origin))) {
		snprintf(text, size, "a bad relay: code %d, pid %d, value %#x\n",
			 si->si_code, (int)si->si_pid,
			 (unsigned int)si->si_value.sival_int);
	} else {
		sender(from, sizeof(from), origin);
		snprintf(text, size, "SIG%s relayed from %s\n",
			 sigabbrev_np(signo), from);
	}
}

int main(void)
{
	const char *dir = getenv("FAKE_DIR");
	const char *linger = getenv("RELAY_PROBE_LINGER_MS");
	struct timespec wait = { 0 };
	char text[1024], line[128];
	struct sigaction hup;
	size_t len;
	siginfo_t si;
	sigset_t set;
	long ms;

	if (!dir)
		return 1;
	/* Lingering, every signal within that long of the first is written. */
	ms = linger ? strtol(linger, NULL, 10) : 0;
	wait.tv_sec = ms / 1000;
	wait.tv_nsec = ms % 1000 * 1000000;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (!sigaction(SIGHUP, NULL, &hup) && hup.sa_handler != SIG_IGN)
		sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGNAL_RELAY);
	sigprocmask(SIG_BLOCK, &set, NULL);
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	note(dir, "pid", text);
	note(dir, "ready", "");
	while (sigwaitinfo(&set, &si) < 0)
		;
	describe(text, sizeof(text), &si);
	while (ms > 0 && sigtimedwait(&set, &si, &wait) > 0) {
		describe(line, sizeof(line), &si);
		len = strlen(text);
		snprintf(text + len, sizeof(text) - len, "%s", line);
	}
	/* The lines without the last newline, as before. */
	text[strlen(text) - 1] = '\0';
	note(dir, "got", text);
	return 7;
}
