// SPDX-License-Identifier: GPL-2.0
/*
 * Description: with the module, two copies of libfxtrace in one process:
 * this program's (libfxtrace.a, its symbols not exported) and
 * static_plugin.so's (libfxtrace.a linked into it).  Each opens its own
 * file of /dev/fxtrace, and the kernel gives a thread a buffer through
 * each (ABI 0.7).
 * - both: one thread writes 5 events through each copy, and so does a
 *   second thread; all 20 are in the session, none lost.  Before, the
 *   second copy's ATTACH said EEXIST for every thread and its events were
 *   lost.
 * - reload: the plugin is opened, writes one event and is closed 40 times
 *   while this copy's buffer stays attached, in a session of 4 task
 *   buffers, with RLIMIT_NOFILE 8 above the descriptors open before; the
 *   controller releases each retired buffer after reading it.  The
 *   plugin's last destructor unmaps its buffer, which retires it, and
 *   closes its file of /dev/fxtrace, so all 40 events are in the session,
 *   and the reloads leave no descriptor or mapping.  Before 5b309f7, its
 *   buffer stayed attached after dlclose(): the next copy's ATTACH said
 *   EEXIST, and its events were lost; before the closed copy gave its
 *   file and its mappings back, each kept them, and the copies past the
 *   limit could not open /dev/fxtrace: their events were lost.
 * - exit: a thread writes one event, then, while the process exits, 5
 *   more after this program's destructors have run (exit_hook.so's
 *   destructor lets it), then waits for exit_group(); all 6 are in the
 *   session, as the kernel retires the buffer at the thread's exit.
 * Each case runs in a child of its own, which is the controller
 * (libfxtctl) and the producer.  In the guest with fxtrace.ko loaded.
 * Prints TAP.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fxtrace/trace.h>
#include <linux/fxt.h>

#include "fxtctl.h"
#include "../../tests/tap.h"
#include "trace_decode.h"

#define RELOADS		40
#define SPARE_FDS	8
#define TASK_BUFFERS	4
#define LATE_EVENTS	5

static struct fxtctl ctl;

static int new_session(__u32 max_task_buffers)
{
	static const char cats[] = "app";
	struct fxtrace_config cfg = {
		.size = sizeof(cfg),
		.mode = FXTRACE_MODE_ONESHOT,
		.cpu_buffer_size = 64 << 10,
		.task_buffer_size = 64 << 10,
		.categories = (__u64)(uintptr_t)cats,
		.categories_size = sizeof(cats),
		.max_task_buffers = max_task_buffers,
	};

	return fxtctl_init(&ctl, &cfg) ?:
	       fxtctl_start(&ctl, FXTRACE_START_CLEAR_ALL);
}

/* The events named name in buffer id (a task buffer of the session). */
static int events_in(__u32 id, const char *name)
{
	const char *path = "/tmp/module_plugins_test.fxt";
	struct fxtctl_buffer *b = fxtctl_buffer(&ctl, id);
	unsigned char *bytes;
	struct trace tr;
	int i, count = 0;
	size_t len;
	FILE *f;

	if (!b || b->kind != FXTRACE_BUFFER_TASK)
		return 0;
	bytes = fxtctl_buffer_copy(b, 0, &len);
	f = fopen(path, "wb");
	/* Out of descriptors (the reload case's old library): none read. */
	if (!bytes || !f) {
		printf("# buffer %u not read: %m\n", id);
		free(bytes);
		if (f)
			fclose(f);
		return 0;
	}
	fwrite(bytes, 1, len, f);
	fclose(f);
	free(bytes);
	tr = trace_read(path);
	for (i = 0; i < tr.n; i++)
		count += !strcmp(tr.ev[i].name, name);
	trace_free(&tr);
	unlink(path);
	return count;
}

/*
 * The events named name in the session's task buffers; with release,
 * only the retired buffers are read, then released.
 */
static int events(const char *name, bool release)
{
	struct fxtrace_buffer_info info = { .size = sizeof(info), .id = 1 };
	int count = 0;

	while (!ioctl(ctl.fd, FXTRACE_IOC_BUFFER_INFO, &info)) {
		if (info.kind == FXTRACE_BUFFER_TASK &&
		    (!release || info.state == FXTRACE_BUFFER_RETIRED)) {
			count += events_in(info.id, name);
			if (release)
				fxtctl_release(&ctl, info.id);
		}
		info.id++;
	}
	return count;
}

static void *plugin;
static void (*work)(int);
static uint64_t (*plugin_lost)(void);

/* The shared object name, built beside this program. */
static void *open_beside(const char *name)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;

	path[n > 0 ? n : 0] = 0;
	slash = strrchr(path, '/');
	if (slash)
		strcpy(slash + 1, name);
	return dlopen(path, RTLD_NOW);
}

static bool plugin_open(void)
{
	plugin = open_beside("static_plugin.so");
	if (!plugin)
		return false;
	*(void **)&work = dlsym(plugin, "plugin_work");
	*(void **)&plugin_lost = dlsym(plugin, "fxt_process_lost");
	return work && plugin_lost;
}

/* Five events through this copy, five through the plugin's. */
static void *both_copies(void *arg)
{
	int i;

	for (i = 0; i < 5; i++) {
		TRACE_INSTANT("app", "host", FXT_SCOPE_THREAD);
		work(i);
	}
	return arg;
}

static int run_both(void)
{
	int host, plugin_events;
	pthread_t th;

	if (!EXPECT_TRUE(plugin_open()) || !EXPECT_EQ(0, fxtctl_open(&ctl)) ||
	    !EXPECT_EQ(0, new_session(0)))
		return 1;
	both_copies(NULL);
	pthread_create(&th, NULL, both_copies, NULL);
	pthread_join(th, NULL);
	fxtctl_stop(&ctl);
	host = events("host", false);
	plugin_events = events("plugin", false);
	printf("# host %d, plugin %d; lost %llu, the plugin's %llu\n", host,
	       plugin_events, (unsigned long long)fxt_process_lost(),
	       (unsigned long long)plugin_lost());
	EXPECT_EQ(10, host);
	EXPECT_EQ(10, plugin_events);
	EXPECT_EQ(0, fxt_process_lost());
	EXPECT_EQ(0, plugin_lost());
	fxtctl_terminate(&ctl);
	fxtctl_close(&ctl);
	return tap_failed;
}

static int count_fds(void)
{
	DIR *dp = opendir("/proc/self/fd");
	struct dirent *d;
	int n = 0;

	while (dp && (d = readdir(dp)))
		n += d->d_name[0] != '.';
	if (dp)
		closedir(dp);
	return n;
}

static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

static int run_reload(void)
{
	int i, plugin_events = 0, lost = 0, fds, maps = 0, fds_after, maps_after;
	struct rlimit lim;

	if (!EXPECT_EQ(0, fxtctl_open(&ctl)) ||
	    !EXPECT_EQ(0, new_session(TASK_BUFFERS)))
		return 1;
	/* This copy's buffer stays attached throughout. */
	TRACE_INSTANT("app", "host", FXT_SCOPE_THREAD);
	fds = count_fds();
	getrlimit(RLIMIT_NOFILE, &lim);
	lim.rlim_cur = (rlim_t)fds + SPARE_FDS;
	setrlimit(RLIMIT_NOFILE, &lim);
	for (i = 0; i < RELOADS; i++) {
		/* After the first: dlopen()'s and stdio's lasting mappings. */
		if (i == 1)
			maps = count_maps();
		if (!EXPECT_TRUE(plugin_open()))
			return 1;
		work(i);
		lost += (int)plugin_lost();
		if (!EXPECT_EQ(0, dlclose(plugin)))
			return 1;
		plugin_events += events("plugin", true);
	}
	fds_after = count_fds();
	maps_after = count_maps();
	fxtctl_stop(&ctl);
	printf("# plugin events %d of %d, lost %d; host %d; fds %d, %d before; mappings %d, %d before\n",
	       plugin_events, RELOADS, lost, events("host", false), fds_after,
	       fds, maps_after, maps);
	EXPECT_EQ(fds, fds_after);
	EXPECT_EQ(maps, maps_after);
	EXPECT_EQ(RELOADS, plugin_events);
	EXPECT_EQ(0, lost);
	EXPECT_EQ(1, events("host", false));
	EXPECT_EQ(0, fxt_process_lost());
	fxtctl_terminate(&ctl);
	fxtctl_close(&ctl);
	return tap_failed;
}

static sem_t late_go, late_done;

/* exit_hook.so's destructor, after this program's: the writer's turn. */
static void let_late_writer_run(void)
{
	sem_post(&late_go);
	sem_wait(&late_done);
}

/* One event, LATE_EVENTS more during exit, then exit_group() kills it. */
static void *late_writer(void *arg)
{
	int i;

	TRACE_INSTANT("app", "late", FXT_SCOPE_THREAD);
	sem_post(&late_done);
	sem_wait(&late_go);
	for (i = 0; i < LATE_EVENTS; i++)
		TRACE_INSTANT("app", "late", FXT_SCOPE_THREAD);
	sem_post(&late_done);
	for (;;)
		pause();
	return arg;
}

/* The producer, a process of its own: it exits while late_writer runs. */
static void exit_while_writing(void)
{
	void *hook_so = open_beside("exit_hook.so");
	void (**hook)(void) = hook_so ? dlsym(hook_so, "exit_hook") : NULL;
	pthread_t th;

	if (!hook)
		_exit(2);
	*hook = let_late_writer_run;
	sem_init(&late_go, 0, 0);
	sem_init(&late_done, 0, 0);
	pthread_create(&th, NULL, late_writer, NULL);
	sem_wait(&late_done);
	exit(0);
}

static int run_exit(void)
{
	int late, status = -1;
	pid_t pid;

	if (!EXPECT_EQ(0, fxtctl_open(&ctl)) || !EXPECT_EQ(0, new_session(0)))
		return 1;
	fflush(stdout);
	pid = fork();
	if (!pid)
		exit_while_writing();
	waitpid(pid, &status, 0);
	EXPECT_EQ(0, status);
	fxtctl_stop(&ctl);
	late = events("late", false);
	printf("# late events %d of %d\n", late, 1 + LATE_EVENTS);
	EXPECT_EQ(1 + LATE_EVENTS, late);
	fxtctl_terminate(&ctl);
	fxtctl_close(&ctl);
	return tap_failed;
}

static void run_child(int (*fn)(void), const char *what)
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		int ret = fn();

		fflush(stdout);
		_exit(ret);
	}
	waitpid(pid, &status, 0);
	EXPECT_EQ(0, status);
	tap_result("%s", what);
}

int main(void)
{
	unsetenv("FXTRACE_OUTPUT");
	run_child(run_both,
		  "two copies in one process: each thread's events through both are recorded");
	run_child(run_reload,
		  "a plugin opened and closed 40 times in a session of 4 task buffers, 8 descriptors to spare: every event recorded, nothing kept");
	run_child(run_exit,
		  "a thread writing while its process exits: its events after the program's destructors recorded");
	return tap_plan();
}
