// SPDX-License-Identifier: GPL-2.0
/*
 * leader_exit PIDFILE SECONDS: write its pid to PIDFILE, then its first
 * thread exits while a second one sleeps SECONDS.  /proc/PID/status says
 * Z from then on, and waitpid() waits for the second thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *sleeper(void *seconds)
{
	sleep((unsigned int)(unsigned long)seconds);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long seconds;
	pthread_t thread;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: leader_exit PIDFILE SECONDS\n");
		return 2;
	}
	seconds = strtoul(argv[2], NULL, 10);
	if (pthread_create(&thread, NULL, sleeper, (void *)seconds))
		return 1;
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f))
		return 1;
	pthread_exit(NULL);
}
