// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - `fxtrace record`: trace a command (or the whole system until
 * SIGINT) into one .fxt file, like `perf record`.  The work is
 * fxtrace-drain's, found next to this binary; record builds its command
 * line, runs it, passes SIGINT/SIGTERM on, and says where the trace is.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fxtrace.h"

/* fxtrace-drain's options and their values, "--" and the final NULL. */
#define DRAIN_OPTION_ARGS 20

static volatile sig_atomic_t drain_pid;

/* A signal for record is one for the session: the drainer stops on it. */
static void forward_signal(int sig)
{
	if (drain_pid > 0)
		kill(drain_pid, sig);
}

/* fxtrace-drain in the directory of this executable. */
static int drain_path(char *buf, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return -errno;
	exe[n] = '\0';
	if ((size_t)snprintf(buf, size, "%s/fxtrace-drain", dirname(exe)) >= size)
		return -ENAMETOOLONG;
	return access(buf, X_OK) ? -errno : 0;
}

/* "sched,syscall" to "kernel:sched,kernel:syscall", appended to *list. */
static int add_kernel_categories(char **list, const char *events)
{
	size_t len = *list ? strlen(*list) : 0;
	/* At most strlen + 1 names, each with "kernel:" and a comma added. */
	size_t cap = len + strlen(events) + 8 * (strlen(events) + 1) + 1;
	char *copy = strdup(events), *name, *save = NULL;
	char *out = realloc(*list, cap);

	if (!copy || !out) {
		free(copy);
		if (out)
			*list = out;
		return -ENOMEM;
	}
	*list = out;
	out[len] = '\0';
	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		if (len)
			out[len++] = ',';
		len += (size_t)sprintf(out + len, "%s%s",
				       strncmp(name, "kernel:", 7) ? "kernel:" : "",
				       name);
	}
	free(copy);
	return 0;
}

static int add_categories(char **list, const char *globs)
{
	size_t len = *list ? strlen(*list) : 0;
	char *out = realloc(*list, len + strlen(globs) + 2);

	if (!out)
		return -ENOMEM;
	*list = out;
	if (len)
		out[len++] = ',';
	strcpy(out + len, globs);
	return 0;
}

/* Run argv, passing SIGINT and SIGTERM on; its wait status or -errno. */
static int run_drain(char **argv)
{
	struct sigaction sa = { .sa_handler = forward_signal };
	int status;
	pid_t pid, w;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execv(argv[0], argv);
		fprintf(stderr, "fxtrace record: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	drain_pid = pid;
	do {
		w = waitpid(pid, &status, 0);
	} while (w < 0 && errno == EINTR);
	drain_pid = 0;
	return w < 0 ? -errno : status;
}

static void print_result(const char *out)
{
	struct stat st;

	if (stat(out, &st))
		return;
	printf("[ fxtrace record: wrote %.3f MB to %s ]\n",
	       (double)st.st_size / 1e6, out);
	printf("[ fxtrace record: open it at https://ui.perfetto.dev (\"Open trace file\");"
	       " 'fxtrace stats %s' summarizes it ]\n", out);
}

int cmd_record(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "mode", required_argument, NULL, 'm' },
		{ "cpu-buffer-size", required_argument, NULL, 'b' },
		{ "task-buffer-size", required_argument, NULL, 'B' },
		{ "categories", required_argument, NULL, 'c' },
		{ "event", required_argument, NULL, 'e' },
		{ "probe", required_argument, NULL, 'P' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "config", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = "fxtrace.fxt", *mode = NULL, *cpu_size = NULL;
	const char *task_size = NULL, *pid = NULL, *config = NULL;
	char *categories = NULL, **drain_argv = NULL, **probes;
	char drain[PATH_MAX];
	bool all = false, quiet = false, verbose = false;
	int opt, n = 0, nprobes = 0, i, ret, status, rc = 1;

	/* At most one probe per argument. */
	probes = calloc((size_t)argc, sizeof(*probes));
	if (!probes)
		goto nomem;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:o:m:b:B:c:e:P:p:aC:qvh",
				  options, NULL)) != -1) {
		ret = 0;
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'b':
			cpu_size = optarg;
			break;
		case 'B':
			task_size = optarg;
			break;
		case 'c':
			ret = add_categories(&categories, optarg);
			break;
		case 'e':
			ret = add_kernel_categories(&categories, optarg);
			break;
		case 'P':
			probes[nprobes++] = optarg;
			break;
		case 'p':
			pid = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'C':
			config = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			rc = fxtrace_cmd_help("record");
			goto out;
		default:
			rc = fxtrace_option_error("record", opt, argv);
			goto out;
		}
		if (ret)
			goto nomem;
	}
	rc = 0;
	if (all && pid)
		rc = fxtrace_usage_error("record", "-a and -p exclude each other");
	else if (optind == argc && !all && !pid)
		rc = fxtrace_usage_error("record", "no command given (-a traces the whole system until SIGINT)");
	else if (pid && (!*pid || strspn(pid, "0123456789") != strlen(pid)))
		rc = fxtrace_usage_error("record", "-p needs a process id, not '%s'", pid);
	if (rc)
		goto out;
	rc = 1;
	/*
	 * libfxtrace names a thread that has no buffer yet only when category
	 * "fxtrace" is on: a list of categories always includes it.
	 */
	if (categories && add_categories(&categories, "fxtrace"))
		goto nomem;
	ret = drain_path(drain, sizeof(drain));
	if (ret) {
		fprintf(stderr, "fxtrace record: %s: %s\n",
			ret == -ENAMETOOLONG ? "fxtrace-drain" : drain,
			strerror(-ret));
		goto out;
	}
	drain_argv = calloc((size_t)(argc - optind + 2 * nprobes) +
			    DRAIN_OPTION_ARGS, sizeof(*drain_argv));
	if (!drain_argv)
		goto nomem;

	drain_argv[n++] = drain;
	if (config) {
		drain_argv[n++] = "-C";
		drain_argv[n++] = (char *)config;
	}
	if (mode) {
		drain_argv[n++] = "-m";
		drain_argv[n++] = (char *)mode;
	}
	if (cpu_size) {
		drain_argv[n++] = "-b";
		drain_argv[n++] = (char *)cpu_size;
	}
	if (task_size) {
		drain_argv[n++] = "-B";
		drain_argv[n++] = (char *)task_size;
	}
	if (categories) {
		drain_argv[n++] = "-c";
		drain_argv[n++] = categories;
	}
	for (i = 0; i < nprobes; i++) {
		drain_argv[n++] = "-P";
		drain_argv[n++] = probes[i];
	}
	/* A command's own syscalls and probe hits, unless asked for all. */
	if (pid || (optind < argc && !all)) {
		drain_argv[n++] = "-p";
		drain_argv[n++] = pid ? (char *)pid : "command";
	}
	drain_argv[n++] = "-o";
	drain_argv[n++] = (char *)out;
	if (quiet)
		drain_argv[n++] = "-q";
	if (verbose)
		drain_argv[n++] = "-v";
	drain_argv[n++] = "--";
	while (optind < argc)
		drain_argv[n++] = argv[optind++];
	drain_argv[n] = NULL;

	fflush(stdout);
	status = run_drain(drain_argv);
	if (status < 0) {
		fprintf(stderr, "fxtrace record: %s: %s\n", drain, strerror(-status));
	} else if (WIFSIGNALED(status)) {
		fprintf(stderr, "fxtrace record: fxtrace-drain was killed by signal %d; 'fxtrace recover %s' keeps what it had written\n",
			WTERMSIG(status), out);
	} else if (WEXITSTATUS(status)) {
		rc = WEXITSTATUS(status) == EXIT_USAGE ? EXIT_USAGE : 1;
	} else {
		rc = 0;
		if (!quiet)
			print_result(out);
	}
	goto out;
nomem:
	fprintf(stderr, "fxtrace record: out of memory\n");
	rc = 1;
out:
	free(drain_argv);
	free(categories);
	free(probes);
	return rc;
}
