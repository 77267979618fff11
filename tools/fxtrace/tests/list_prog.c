// SPDX-License-Identifier: GPL-2.0
/*
 * list_prog - a libfxtrace program for list_test.sh: it emits an instant in
 * "list_test.on" and one in "list_test.off", so that the module registers
 * both names, then runs COMMAND [ARG]... while it is itself still running
 * and exits with the command's status.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fxtrace/trace.h>

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: list_prog COMMAND [ARG]...\n");
		return 2;
	}
	TRACE_INSTANT("list_test.on", "registered", FXT_SCOPE_THREAD);
	TRACE_INSTANT("list_test.off", "registered", FXT_SCOPE_THREAD);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
