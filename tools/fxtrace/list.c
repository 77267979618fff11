// SPDX-License-Identifier: GPL-2.0
/*
 * list.c - `fxtrace list`: what `fxtrace record` can record here, like
 * `perf list`: the module's kernel categories, the tracepoints of the
 * running kernel (tracefs), the probe kinds, the current session's
 * category list and the categories programs have registered.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "fxtrace.h"

const struct fxtrace_kernel_category
	fxtrace_kernel_categories[FXTRACE_KERNEL_CATEGORIES + 1] = {
	{ "sched", "context switches on the CPU tracks, wakeups naming the waker" },
	{ "task", "fork, exec, rename and exit: process and thread names" },
	{ "irq", "hardirqs and softirqs as slices on the CPU tracks" },
	{ "syscall", "system calls as slices on the calling thread, with nr and ret" },
	{ NULL, NULL },
};

static const struct {
	const char *syntax, *what;
} probe_kinds[] = {
	{ "tracepoint:SUBSYSTEM:EVENT [FIELD|FIELDopN]...",
	  "a kernel tracepoint, its fields as arguments (-e SUBSYSTEM:EVENT)" },
	{ "kprobe:FUNCTION [NAME=]argN:TYPE...", "entry of a kernel function" },
	{ "kretprobe:FUNCTION [NAME=]ret:TYPE", "return of a kernel function" },
	{ "uprobe:PATH:SYMBOL [NAME=]argN:TYPE...", "entry of a user function" },
	{ "uretprobe:PATH:SYMBOL [NAME=]ret:TYPE", "return of a user function" },
	{ "usdt:PATH:PROVIDER:NAME [NAME=]argN:TYPE...",
	  "a USDT (sys/sdt.h) probe of a program or library" },
};

#define SECTION_KERNEL		1
#define SECTION_TRACEPOINTS	2
#define SECTION_PROBES		4
#define SECTION_USER		8

/* tracefs: the directory given, else where it is usually mounted. */
static const char *tracefs_dir(const char *given)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[4096];
	size_t i;

	if (given)
		return given;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/available_events", dirs[i]);
		if (!access(path, R_OK))
			return dirs[i];
	}
	return dirs[0];
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The tracepoints of available_events matching glob, sorted. */
static int list_tracepoints(const char *dir, const char *glob)
{
	char path[4096], *line = NULL, **names = NULL, **grown;
	size_t cap = 0, n = 0, size = 0, i;
	ssize_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/available_events", dir);
	f = fopen(path, "re");
	if (!f) {
		printf("  (cannot read %s: %s; as root, 'mount -t tracefs nodev /sys/kernel/tracing')\n",
		       path, strerror(errno));
		return 1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (glob && fnmatch(glob, line, 0))
			continue;
		if (n == size) {
			size = size ? 2 * size : 1024;
			grown = realloc(names, size * sizeof(*names));
			if (!grown)
				break;
			names = grown;
		}
		names[n] = strdup(line);
		if (!names[n])
			break;
		n++;
	}
	free(line);
	fclose(f);
	qsort(names, n, sizeof(*names), compare_strings);
	for (i = 0; i < n; i++) {
		printf("  %s\n", names[i]);
		free(names[i]);
	}
	free(names);
	printf("  (%zu tracepoint%s%s%s)\n", n, n == 1 ? "" : "s",
	       glob ? " matching " : "", glob ? glob : "");
	return 0;
}

static const char *const state_names[] = {
	[FXTRACE_STATE_NONE] = "none",
	[FXTRACE_STATE_INITIALIZED] = "initialized",
	[FXTRACE_STATE_STARTED] = "started",
	[FXTRACE_STATE_STOPPED] = "stopped",
};

/*
 * The registered categories, slot by slot (FXTRACE_IOC_CATEGORY_NAME, ABI
 * 0.4): slots are given out from 0 up, so the first empty one ends the
 * table.  An older module has no such ioctl: say so and go on.
 */
static void list_registered(int fd)
{
	struct fxtrace_category_name cn;
	unsigned int i;
	int len;

	for (i = 0; i < FXTRACE_CATEGORY_SLOTS; i++) {
		memset(&cn, 0, sizeof(cn));
		cn.size = sizeof(cn);
		cn.index = i;
		if (ioctl(fd, FXTRACE_IOC_CATEGORY_NAME, &cn))
			break;
		if (!i)
			printf("  registered categories (name, slot, whether the session records it now):\n");
		len = cn.name_len < sizeof(cn.name) ? (int)cn.name_len : 0;
		printf("    %-32.*s slot %-4u %s\n", len, cn.name, i,
		       cn.flags & FXTRACE_CATEGORY_NAME_ENABLED ? "enabled" :
								  "disabled");
	}
	if (i == FXTRACE_CATEGORY_SLOTS || errno == ENOENT)
		printf("  (%u registered categor%s)\n", i, i == 1 ? "y" : "ies");
	else if (errno == ENOTTY)
		printf("  (registered categories: this fxtrace.ko is older than ABI 0.4 and cannot name them)\n");
	else
		printf("  (registered categories: %s)\n", strerror(errno));
}

/* The session's state and category list, and the registered categories. */
static int list_user(void)
{
	const struct fxtrace_session_page *page;
	const char *list, *glob;
	/* The module maps the session page only for a read-write open. */
	int fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("  (%s: %s: fxtrace.ko is not loaded)\n", FXTRACE_DEVICE,
		       strerror(errno));
		return 1;
	}
	page = mmap(NULL, FXTRACE_SESSION_MAP_SIZE, PROT_READ, MAP_SHARED, fd,
		    FXTRACE_MMAP_SESSION);
	if (page == MAP_FAILED) {
		printf("  (cannot map the session page: %s)\n", strerror(errno));
		close(fd);
		return 1;
	}
	if (page->magic != FXTRACE_SESSION_MAGIC ||
	    page->state > FXTRACE_STATE_STOPPED ||
	    page->categories_offset > FXTRACE_SESSION_MAP_SIZE ||
	    page->categories_size > FXTRACE_SESSION_MAP_SIZE -
				    page->categories_offset) {
		printf("  (the session page is not one this fxtrace knows)\n");
		munmap((void *)page, FXTRACE_SESSION_MAP_SIZE);
		close(fd);
		return 1;
	}
	printf("  session: %s\n", state_names[page->state]);
	if (page->state != FXTRACE_STATE_NONE) {
		list = (const char *)page + page->categories_offset;
		printf("  category list:");
		if (!page->categories_count)
			printf(" (empty: every user category)");
		for (glob = list; glob < list + page->categories_size &&
		     *glob; glob += strnlen(glob, list + page->categories_size -
					     glob) + 1)
			printf(" %.*s", (int)strnlen(glob, list +
						     page->categories_size -
						     glob), glob);
		printf("\n");
	}
	munmap((void *)page, FXTRACE_SESSION_MAP_SIZE);
	list_registered(fd);
	close(fd);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	static const struct option options[] = {
		{ "tracefs", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *tracefs = NULL, *glob = NULL;
	unsigned int sections = 0;
	const struct fxtrace_kernel_category *k;
	size_t i;
	int opt, rc = 0;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":t:h", options, NULL)) != -1) {
		switch (opt) {
		case 't':
			tracefs = optarg;
			break;
		case 'h':
			return fxtrace_cmd_help("list");
		default:
			return fxtrace_option_error("list", opt, argv, options);
		}
	}
	if (optind < argc) {
		if (!strcmp(argv[optind], "kernel"))
			sections = SECTION_KERNEL;
		else if (!strcmp(argv[optind], "tracepoints"))
			sections = SECTION_TRACEPOINTS;
		else if (!strcmp(argv[optind], "probes"))
			sections = SECTION_PROBES;
		else if (!strcmp(argv[optind], "user"))
			sections = SECTION_USER;
		else
			return fxtrace_usage_error("list", "unknown section '%s' (kernel, tracepoints, probes, user)",
						   argv[optind]);
		optind++;
	}
	if (optind < argc) {
		if (sections != SECTION_TRACEPOINTS)
			return fxtrace_usage_error("list", "a GLOB follows only 'tracepoints'");
		glob = argv[optind++];
	}
	if (optind < argc)
		return fxtrace_usage_error("list", "unexpected '%s'", argv[optind]);
	if (!sections)
		sections = SECTION_KERNEL | SECTION_TRACEPOINTS |
			   SECTION_PROBES | SECTION_USER;

	if (sections & SECTION_KERNEL) {
		printf("Kernel categories (fxtrace record -e NAME; recorded by fxtrace.ko):\n");
		for (k = fxtrace_kernel_categories; k->name; k++)
			printf("  %-12s %s\n", k->name, k->what);
	}
	if (sections & SECTION_TRACEPOINTS) {
		printf("Tracepoints of this kernel (fxtrace record -e SUBSYSTEM:EVENT; from %s):\n",
		       tracefs_dir(tracefs));
		rc |= list_tracepoints(tracefs_dir(tracefs), glob);
	}
	if (sections & SECTION_PROBES) {
		printf("Probe kinds (fxtrace record -P SPEC; TYPE u64 s64 u32 s32 ptr ustr kstr):\n");
		for (i = 0; i < sizeof(probe_kinds) / sizeof(probe_kinds[0]); i++)
			printf("  %-45s %s\n", probe_kinds[i].syntax,
			       probe_kinds[i].what);
	}
	if (sections & SECTION_USER) {
		printf("User categories (fxtrace record -c GLOBS; programs register them as they run):\n");
		rc |= list_user();
	}
	/* A section asked for alone fails when it cannot be listed. */
	return sections == (SECTION_KERNEL | SECTION_TRACEPOINTS |
			    SECTION_PROBES | SECTION_USER) ? 0 : rc;
}
