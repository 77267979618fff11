// SPDX-License-Identifier: GPL-2.0
/*
 * Description: user-only, a signal handler that interrupted an event being
 * written forks, and the handler returns in the child too.  The child's
 * interrupted write goes on into memory of its own (not the parent's
 * spool) and is lost; its next event is written to a buffer of its own,
 * in its own trace; the parent's trace has its events, the interrupted
 * one too.  This program's fallocate(), which libfxtrace.a calls when a
 * half of the buffer needs disk blocks (the first event's record),
 * raises the signal.  Before, the child's interrupted write went on into
 * the parent's spool regions, which the child had unmapped at the fork:
 * the child died of SIGSEGV.  Prints TAP.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fxtrace/trace.h>

#include "../../tests/tap.h"
#include "trace_decode.h"

static volatile sig_atomic_t fallocate_calls;
static volatile pid_t handler_child = -1;

int fallocate(int fd, int mode, off_t offset, off_t len);

/* The second call: the first event's record (the first was the attach). */
int fallocate(int fd, int mode, off_t offset, off_t len)
{
	int ret = (int)syscall(SYS_fallocate, fd, mode, offset, len);

	/* After the blocks are there: the record is written next. */
	if (++fallocate_calls == 2)
		raise(SIGUSR1);
	return ret;
}

static void fork_on_signal(int sig)
{
	(void)sig;
	handler_child = fork();
}

/* The traced process: its exit writes OUTPUT, its child's OUTPUT.PID. */
static void producer(void)
{
	int status = -1;

	signal(SIGUSR1, fork_on_signal);
	TRACE_INSTANT("app", "first", FXT_SCOPE_THREAD);
	if (!handler_child) {
		TRACE_INSTANT("app", "child", FXT_SCOPE_THREAD);
		exit(0);
	}
	if (handler_child < 0)
		_exit(2);
	waitpid(handler_child, &status, 0);
	TRACE_INSTANT("app", "parent", FXT_SCOPE_THREAD);
	/* Said on stdout, read by main() through a pipe. */
	printf("%d %d\n", (int)handler_child, status);
	exit(0);
}

static int count(const struct trace *tr, const char *name)
{
	int i, n = 0;

	for (i = 0; i < tr->n; i++)
		n += !strcmp(tr->ev[i].name, name);
	return n;
}

int main(void)
{
	char dir[] = "/tmp/fork_handler_test.XXXXXX", out[64], path[96];
	struct trace parent, child;
	int status = -1, child_status = -1, child_pid = -1, said[2];
	pid_t pid;
	FILE *f;

	if (!mkdtemp(dir))
		return 1;
	snprintf(out, sizeof(out), "%s/out", dir);
	setenv("FXTRACE_OUTPUT", out, 1);
	if (pipe(said))
		return 1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		dup2(said[1], STDOUT_FILENO);
		producer();
	}
	close(said[1]);
	f = fdopen(said[0], "r");
	if (!f || fscanf(f, "%d %d", &child_pid, &child_status) != 2)
		printf("# the producer said nothing\n");
	if (f)
		fclose(f);
	waitpid(pid, &status, 0);
	EXPECT_EQ(0, status);
	parent = trace_read(out);
	printf("# parent: %d events; its child %d exited with status %d\n",
	       parent.n, child_pid, child_status);
	EXPECT_EQ(0, parent.errors);
	EXPECT_EQ(1, count(&parent, "first"));
	EXPECT_EQ(1, count(&parent, "parent"));
	EXPECT_EQ(0, count(&parent, "child"));
	EXPECT_EQ(0, child_status);
	snprintf(path, sizeof(path), "%s.%d", out, child_pid);
	child = trace_read(path);
	EXPECT_EQ(0, child.errors);
	EXPECT_EQ(1, count(&child, "child"));
	EXPECT_EQ(0, count(&child, "first"));
	tap_result("a handler's fork inside an event: the child's own trace, the parent's intact");
	trace_free(&parent);
	trace_free(&child);
	unlink(out);
	unlink(path);
	rmdir(dir);
	return tap_plan();
}
