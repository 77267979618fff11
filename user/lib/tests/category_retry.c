// SPDX-License-Identifier: GPL-2.0
/*
 * The programs of module_category_retry_test.sh (with the module, in the
 * guest):
 *
 *   category_retry fill PREFIX   registers PREFIX.0, PREFIX.1, ... with
 *                                FXTRACE_IOC_CATEGORY until one is
 *                                refused; prints "COUNT ERRNO"
 *   category_retry daemon        fires category "late" once (refused:
 *                                the open slots are full), waits for a
 *                                line on stdin (a session has started):
 *                                at each "check", prints what
 *                                TRACE_ENABLED("late") says; at "go",
 *                                fires "late" from the site already
 *                                resolved, from a new site and from a
 *                                second thread; prints what
 *                                TRACE_ENABLED("late") (one call site)
 *                                and fxt_category_enabled("late") said
 *                                before and after, and whether a check of
 *                                "late" called into the library then;
 *                                then, at each "check", what
 *                                TRACE_ENABLED("late") says, until "end"
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <fxtrace/trace.h>
#include <linux/fxtrace.h>

/* One call site, resolved at its first call: before the retry. */
static void fire_a(int k)
{
	TRACE_INSTANT("late", "a", FXT_SCOPE_THREAD, FXT_ARG("k", k));
}

/* One TRACE_ENABLED call site, first run before the retry. */
static bool late_enabled(void)
{
	return TRACE_ENABLED("late");
}

/* A site as TRACE_ENABLED's, which this program can look at. */
static struct fxtrace_site late_site = FXT_SITE_INIT("late", "");

/*
 * Checks late_site, then whether its next check calls into the library
 * too: its enable pointer left at fxt_unresolved.
 */
static int check_calls(void)
{
	(void)fxt_site_check(&late_site);
	return late_site.enabled == &fxt_unresolved;
}

static void *second_thread(void *arg)
{
	int k;

	(void)arg;
	for (k = 11; k <= 13; k++)
		fire_a(k);
	return NULL;
}

static int fill(const char *prefix)
{
	struct fxtrace_category cat;
	char name[64];
	int fd = open("/dev/fxtrace", O_RDWR | O_CLOEXEC), n;

	if (fd < 0) {
		perror("/dev/fxtrace");
		return 1;
	}
	for (n = 0;; n++) {
		snprintf(name, sizeof(name), "%s.%d", prefix, n);
		memset(&cat, 0, sizeof(cat));
		cat.size = sizeof(cat);
		cat.name = (__u64)(uintptr_t)name;
		cat.name_len = (__u32)strlen(name);
		if (ioctl(fd, FXTRACE_IOC_CATEGORY, &cat))
			break;
	}
	printf("%d %s\n", n, strerrorname_np(errno));
	close(fd);
	return 0;
}

static int daemon_run(void)
{
	pthread_t thread;
	char line[16] = "";
	int k;

	fire_a(0);
	printf("trace_enabled_before %d\n", late_enabled());
	printf("check_calls_before %d\n", check_calls());
	printf("enabled_before %d\n", fxt_category_enabled("late"));
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) && !strcmp(line, "check\n")) {
		printf("trace_enabled_during %d\n", late_enabled());
		printf("check_calls_during %d\n", check_calls());
		fflush(stdout);
	}
	if (strcmp(line, "go\n"))
		return 1;
	for (k = 1; k <= 3; k++) {
		fire_a(k);
		/* A site first resolved after the retry. */
		TRACE_INSTANT("late", "b", FXT_SCOPE_THREAD, FXT_ARG("k", k));
	}
	if (pthread_create(&thread, NULL, second_thread, NULL) ||
	    pthread_join(thread, NULL))
		return 1;
	printf("trace_enabled_after %d\n", late_enabled());
	printf("check_calls_after %d\n", check_calls());
	printf("enabled_after %d\n", fxt_category_enabled("late"));
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) && !strcmp(line, "check\n")) {
		printf("trace_enabled_later %d\n", late_enabled());
		fflush(stdout);
	}
	return strcmp(line, "end\n") ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "fill"))
		return fill(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "daemon"))
		return daemon_run();
	fprintf(stderr, "usage: category_retry fill PREFIX | daemon\n");
	return 2;
}
