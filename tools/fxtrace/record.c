// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - `fxtrace record`: trace a command (or the whole system until
 * SIGINT) into one .fxt file, like `perf record`.  The work is
 * fxtrace-drain's, found next to this binary; record builds its command
 * line, runs it, passes SIGINT/SIGTERM/SIGHUP on, and says where the
 * trace is.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "fxtctl.h"
#include "fxtrace.h"
#include "signal_relay.h"

/* fxtrace-drain's options and their values, "--" and the final NULL. */
#define DRAIN_OPTION_ARGS 27

static volatile sig_atomic_t drain_pid;
static int relay_signo;		/* SIGNAL_RELAY */

/*
 * One process's kill() of record and then of record's process group
 * (timeout(1) does so, as do `kill PID; kill -- -PGID` scripts) can reach
 * record twice, if its handler ran between the two, and the drainer once:
 * one intent.  The same signal from the same user-space sender within
 * this long of the one relayed before is not relayed again.  The kernel's
 * (a terminal's, one per keypress) always are.  Long enough for record's
 * handler to be scheduled again between the two on a loaded machine (a
 * TCG guest under load stalls 15-70 ms), short beside a script's
 * deliberate second kill.
 */
#define ONE_INTENT_NS	250000000LL

/* The last signal relayed: which, whose, and when (forward_signal()). */
static int relayed_signo;
static pid_t relayed_origin;
static struct timespec relayed_at;

/*
 * A signal for record is one for the session: the drainer stops on it.
 * Passed on as a relay naming its sender (signal_relay.h): a terminal's
 * Ctrl-C reaches the drainer too, and the drainer takes the two for one.
 * Runs with SIGINT, SIGTERM and SIGHUP blocked: the last relay's fields
 * are its own.
 */
static void forward_signal(int sig, siginfo_t *info, void *context)
{
	pid_t origin = signal_origin(info->si_code, info->si_pid);
	union sigval value = {
		.sival_int = signal_relay_value(sig, origin),
	};
	struct timespec now;
	long long since;

	(void)context;
	if (drain_pid <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	since = (now.tv_sec - relayed_at.tv_sec) * 1000000000LL +
		(now.tv_nsec - relayed_at.tv_nsec);
	if (origin && sig == relayed_signo && origin == relayed_origin &&
	    since < ONE_INTENT_NS)
		return;
	relayed_signo = sig;
	relayed_origin = origin;
	relayed_at = now;
	sigqueue(drain_pid, relay_signo, value);
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

/* What record turns on without -e: cheap, and what a timeline needs. */
#define DEFAULT_KERNEL_EVENTS "sched,task,syscall"

/* What -c, -e and --filter chose. */
struct selection {
	char *user;		/* comma-separated user globs; NULL: "*" */
	bool kernel_given;	/* -e was given: the default set is off */
	bool kernel[FXTRACE_KERNEL_CATEGORIES];
	char **probes;		/* -P specs and -e tracepoints, in order */
	int nprobes;
	int last_tracepoint;	/* index in probes of the last one, or -1 */
};

static int append(char **list, const char *item)
{
	size_t len = *list ? strlen(*list) : 0;
	char *out = realloc(*list, len + strlen(item) + 2);

	if (!out)
		return -ENOMEM;
	*list = out;
	if (len)
		out[len++] = ',';
	strcpy(out + len, item);
	return 0;
}

static int kernel_index(const char *name)
{
	size_t i;

	for (i = 0; i < FXTRACE_KERNEL_CATEGORIES; i++)
		if (!strcmp(name, fxtrace_kernel_categories[i].name))
			return (int)i;
	return -1;
}

/*
 * One -e name: a kernel category (with or without "kernel:"), "all",
 * "none", or SUBSYSTEM:EVENT, a tracepoint.  Returns 0, -EINVAL after a
 * usage message, or -ENOMEM.
 */
static int select_event(struct selection *sel, const char *name)
{
	const char *bare = strncmp(name, "kernel:", 7) ? name : name + 7;
	int k = kernel_index(bare);
	size_t i;

	sel->kernel_given = true;
	if (k >= 0) {
		sel->kernel[k] = true;
		return 0;
	}
	if (!strcmp(name, "all") || !strcmp(name, "none") ||
	    !strcmp(name, "kernel:*")) {
		for (i = 0; i < FXTRACE_KERNEL_CATEGORIES; i++)
			sel->kernel[i] = strcmp(name, "none") != 0;
		return 0;
	}
	if (bare == name && strchr(name, ':') && name[0] != ':') {
		if (asprintf(&sel->probes[sel->nprobes], "tracepoint:%s",
			     name) < 0)
			return -ENOMEM;
		sel->last_tracepoint = sel->nprobes++;
		return 0;
	}
	_Static_assert(FXTRACE_KERNEL_CATEGORIES == 4, "the message names 4");
	fxtrace_usage_error("record",
			    "unknown kernel event '%s': the kernel categories are %s, %s, %s and %s (or all, none); a tracepoint is SUBSYSTEM:EVENT ('fxtrace list' shows both)",
			    name, fxtrace_kernel_categories[0].name,
			    fxtrace_kernel_categories[1].name,
			    fxtrace_kernel_categories[2].name,
			    fxtrace_kernel_categories[3].name);
	return -EINVAL;
}

/* A comma-separated -e list. */
static int select_events(struct selection *sel, const char *events)
{
	char *copy = strdup(events), *name, *save = NULL;
	int ret = copy ? 0 : -ENOMEM;

	if (copy && !*copy)
		ret = select_event(sel, "");
	for (name = copy ? strtok_r(copy, ",", &save) : NULL; name && !ret;
	     name = strtok_r(NULL, ",", &save))
		ret = select_event(sel, name);
	free(copy);
	return ret;
}

/*
 * A -c list: user category globs, "none" for none; a "kernel:NAME" glob
 * is the same as -e NAME.
 */
static int select_categories(struct selection *sel, const char *globs)
{
	char *copy = strdup(globs), *glob, *save = NULL;
	int ret = copy ? 0 : -ENOMEM;

	if (ret)
		return ret;
	/* Given, even if empty: the default "*" is off. */
	if (!sel->user)
		sel->user = strdup("");
	if (!sel->user)
		ret = -ENOMEM;
	for (glob = strtok_r(copy, ",", &save); glob && !ret;
	     glob = strtok_r(NULL, ",", &save)) {
		if (!strncmp(glob, "kernel:", 7))
			ret = select_event(sel, glob);
		else if (strcmp(glob, "none"))
			ret = append(&sel->user, glob);
	}
	free(copy);
	return ret;
}

/*
 * --filter EXPR: conditions of the last -e tracepoint, "FIELD OP VALUE"
 * joined by "&&", added to its spec as words without blanks.  "||" and a
 * lone '&' or '|' are refused here: split as words they would reach the
 * probes as a number that is not one.
 */
static int add_filter(struct selection *sel, const char *expr)
{
	char *spec, *words;
	const char *c;
	size_t len = 0;
	int ret = 0;

	if (sel->last_tracepoint < 0) {
		fxtrace_usage_error("record", "--filter '%s' follows no -e SUBSYSTEM:EVENT",
				    expr);
		return -EINVAL;
	}
	words = malloc(strlen(expr) + 2);
	if (!words)
		return -ENOMEM;
	words[len++] = ' ';
	for (c = expr; *c; c++) {
		if (*c == '|' || (*c == '&' && c[1] != '&')) {
			fxtrace_usage_error("record", "--filter '%s': conditions are joined by && only",
					    expr);
			free(words);
			return -EINVAL;
		}
		if (*c == '&') {
			c++;
			if (words[len - 1] != ' ')
				words[len++] = ' ';
		} else if (*c != ' ' && *c != '\t') {
			words[len++] = *c;
		}
	}
	if (words[len - 1] == ' ')
		len--;
	words[len] = '\0';
	spec = sel->probes[sel->last_tracepoint];
	if (asprintf(&sel->probes[sel->last_tracepoint], "%s%s", spec,
		     words) < 0) {
		sel->probes[sel->last_tracepoint] = spec;
		ret = -ENOMEM;
	} else {
		free(spec);
	}
	free(words);
	return ret;
}

/*
 * The module's category list: the user globs ("*": every user category),
 * the kernel categories chosen, and "fxtrace": libfxtrace names a thread
 * that has no buffer yet only when that category is on.
 */
static char *category_list(struct selection *sel)
{
	char *list = NULL, name[32];
	size_t i;

	if (!sel->kernel_given && select_events(sel, DEFAULT_KERNEL_EVENTS))
		return NULL;
	if (append(&list, sel->user ? sel->user : "*"))
		return NULL;
	for (i = 0; i < FXTRACE_KERNEL_CATEGORIES; i++) {
		if (!sel->kernel[i])
			continue;
		snprintf(name, sizeof(name), "kernel:%s",
			 fxtrace_kernel_categories[i].name);
		if (append(&list, name))
			goto nomem;
	}
	if (append(&list, "fxtrace"))
		goto nomem;
	return list;
nomem:
	free(list);
	return NULL;
}

/*
 * Run argv, passing SIGINT, SIGTERM and SIGHUP on (the drainer stops its
 * session on each); its wait status or -errno.  A SIGHUP ignored on entry
 * (nohup) stays ignored, in record and in the drainer.
 */
static int run_drain(char **argv)
{
	struct sigaction sa = {
		.sa_sigaction = forward_signal,
		.sa_flags = SA_SIGINFO,
	}, hup;
	sigset_t forwarded, oldmask;
	bool hup_ignored;
	siginfo_t info;
	int status, ret;
	pid_t pid;

	/*
	 * Ignored on entry (SIG_IGN survives exec), it would have the kernel
	 * reap the drainer unseen and its status lost (ECHILD).
	 */
	signal(SIGCHLD, SIG_DFL);
	relay_signo = SIGNAL_RELAY;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/*
	 * Else a hangup ends record and leaves the drainer running unseen;
	 * but a session started under nohup is meant to outlive the terminal.
	 */
	sigaction(SIGHUP, NULL, &hup);
	hup_ignored = hup.sa_handler == SIG_IGN;
	if (!hup_ignored)
		sigaction(SIGHUP, &sa, NULL);
	/* One sent before drain_pid is set waits for it instead of being lost. */
	sigemptyset(&forwarded);
	sigaddset(&forwarded, SIGINT);
	sigaddset(&forwarded, SIGTERM);
	sigaddset(&forwarded, SIGHUP);
	sigprocmask(SIG_BLOCK, &forwarded, &oldmask);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		return ret;
	}
	if (!pid) {
		/* One sent before the exec ends the child: record reports it. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (!hup_ignored)
			signal(SIGHUP, SIG_DFL);
		/* Blocked until the drainer reads it: a relay is not lost. */
		sigaddset(&oldmask, relay_signo);
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		execv(argv[0], argv);
		fprintf(stderr, "fxtrace record: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	drain_pid = pid;
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	/*
	 * Reaped only after drain_pid is cleared: until then the pid is a
	 * zombie's, never a new process's that a late signal would hit.
	 */
	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			break;
	drain_pid = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return status;
}

/* On stderr, as perf record's: stdout is COMMAND's. */
static void print_result(const char *out)
{
	struct stat st;

	if (stat(out, &st))
		return;
	fprintf(stderr, "[ fxtrace record: wrote %.3f MB to %s ]\n",
		(double)st.st_size / 1e6, out);
	fprintf(stderr, "[ fxtrace record: open it at https://ui.perfetto.dev (\"Open trace file\");"
		" 'fxtrace stats %s' summarizes it ]\n", out);
}

/*
 * Whether out is not the file `before` described (existed false: there was
 * none).  Its own timestamps are compared, not the clock's: on a network or
 * 9p file system they come from the server, whose clock need not agree
 * with ours (a guest's ran a second ahead of its host's and the trace it
 * had just written looked older than the run).
 */
static bool written_since(const char *out, bool existed,
			  const struct stat *before)
{
	struct stat st;

	if (stat(out, &st) || st.st_size <= 8)
		return false;
	return !existed || st.st_dev != before->st_dev ||
	       st.st_ino != before->st_ino ||
	       st.st_mtim.tv_sec != before->st_mtim.tv_sec ||
	       st.st_mtim.tv_nsec != before->st_mtim.tv_nsec ||
	       st.st_ctim.tv_sec != before->st_ctim.tv_sec ||
	       st.st_ctim.tv_nsec != before->st_ctim.tv_nsec;
}

/*
 * What the module says of the session the drainer leaves: ended (it was
 * killed once the trace was written, in its wait for the command: the
 * drainer ends the session first), orphaned (killed while tracing), or
 * unknown (no device, another user's session).
 */
enum left_session { SESSION_UNKNOWN, SESSION_ENDED, SESSION_ORPHANED };

static enum left_session left_session(void)
{
	struct fxtrace_session_info info = { .size = sizeof(info) };
	enum left_session left = SESSION_UNKNOWN;
	struct fxtctl c;

	if (fxtctl_open(&c))
		return SESSION_UNKNOWN;
	if (!ioctl(c.fd, FXTRACE_IOC_SESSION_INFO, &info)) {
		if (info.state == FXTRACE_STATE_NONE)
			left = SESSION_ENDED;
		else if (info.flags & FXTRACE_SESSION_ORPHANED)
			left = SESSION_ORPHANED;
	}
	fxtctl_close(&c);
	return left;
}

/*
 * The drainer was killed by signo: say so, what it left in out (its size
 * and flush mark, below which every byte was written), and what of the
 * session, by the module: ended, the trace was written and only the
 * command's status is lost; orphaned, recover cuts the file at the mark
 * and stop ends the session.  The file alone cannot tell: a drainer
 * killed mid-session between two saves leaves its mark at its end too.
 */
static void drainer_killed(int signo, const char *out, bool existed,
			   const struct stat *before)
{
	enum left_session left = left_session();
	struct fxtrace_flush f = { 0 };
	struct stat st;
	int fd = -1;

	if (stat(out, &st) || (S_ISREG(st.st_mode) &&
				!written_since(out, existed, before))) {
		fprintf(stderr, "fxtrace record: fxtrace-drain was killed by SIG%s before it wrote %s; 'fxtrace stop' ends a session it left\n",
			sigabbrev_np(signo), out);
		return;
	}
	if (S_ISREG(st.st_mode))
		fd = open(out, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (fxtrace_flush_read(fd, &f))
			f.marked = false;
		close(fd);
	}
	if (f.marked && left == SESSION_ENDED)
		fprintf(stderr, "fxtrace record: fxtrace-drain was killed by SIG%s after the trace was written and the session ended: %s is whole (%llu bytes); the command's exit status is lost\n",
			sigabbrev_np(signo), out, (unsigned long long)f.size);
	else if (f.marked && left == SESSION_ORPHANED)
		fprintf(stderr, "fxtrace record: fxtrace-drain was killed by SIG%s while tracing: %s is unfinished (%llu bytes, whole up to its last flush at %llu); 'fxtrace recover %s' keeps that much, 'fxtrace stop' ends the session it left\n",
			sigabbrev_np(signo), out, (unsigned long long)f.size,
			(unsigned long long)f.flushed, out);
	else if (f.marked)
		fprintf(stderr, "fxtrace record: fxtrace-drain was killed by SIG%s: %s holds %llu bytes, whole up to its last flush at %llu ('fxtrace recover %s' keeps that much); 'fxtrace stop' ends a session it left\n",
			sigabbrev_np(signo), out, (unsigned long long)f.size,
			(unsigned long long)f.flushed, out);
	else
		fprintf(stderr, "fxtrace record: fxtrace-drain was killed by SIG%s; %s holds no trace it finished; 'fxtrace stop' ends a session it left\n",
			sigabbrev_np(signo), out);
}

/*
 * A wait status of fxtrace-drain as record's exit status; the file is
 * announced if the drainer wrote it (not an older one of that name).
 */
static int record_status(int status, const char *out, bool quiet,
			 bool existed, const struct stat *before)
{

	if (WIFSIGNALED(status)) {
		drainer_killed(WTERMSIG(status), out, existed, before);
		return 1;
	}
	/* The drainer exits with the command's status once the trace is in. */
	if (!quiet && written_since(out, existed, before))
		print_result(out);
	return WEXITSTATUS(status);
}

int cmd_record(int argc, char **argv)
{
	enum {
		OPT_FILTER = 256, OPT_SHARED_FLOWS, OPT_NO_SHARED_FLOWS,
		OPT_SNAPSHOT_RETIRED,
	};
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "mode", required_argument, NULL, 'm' },
		{ "cpu-buffer-size", required_argument, NULL, 'b' },
		{ "task-buffer-size", required_argument, NULL, 'B' },
		{ "categories", required_argument, NULL, 'c' },
		{ "event", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "probe", required_argument, NULL, 'P' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "user", required_argument, NULL, 'u' },
		{ "config", required_argument, NULL, 'C' },
		{ "rt-priority", required_argument, NULL, 'r' },
		{ "shared-flows", no_argument, NULL, OPT_SHARED_FLOWS },
		{ "no-shared-flows", no_argument, NULL, OPT_NO_SHARED_FLOWS },
		{ "snapshot-retired", required_argument, NULL, OPT_SNAPSHOT_RETIRED },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = FXTRACE_DEFAULT_TRACE, *mode = NULL, *cpu_size = NULL;
	const char *task_size = NULL, *pid = NULL, *config = NULL;
	const char *user = NULL, *rt_priority = NULL, *snapshot_retired = NULL;
	struct selection sel = { .last_tracepoint = -1 };
	char *categories = NULL, **drain_argv = NULL, *comma;
	char drain[PATH_MAX];
	bool all = false, quiet = false, verbose = false, pass_categories;
	/* The last of --shared-flows and --no-shared-flows, passed on. */
	const char *shared_flows = NULL;
	int opt, n = 0, i, ret, status, rc = 1;
	struct stat before;
	bool existed;

	/* At most one probe per name of each argument. */
	for (i = 0; i < argc; i++)
		for (comma = strchr(argv[i], ','); comma;
		     comma = strchr(comma + 1, ','))
			n++;
	sel.probes = calloc((size_t)(argc + n), sizeof(*sel.probes));
	n = 0;
	if (!sel.probes)
		goto nomem;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:o:m:b:B:c:e:P:p:au:C:r:qvh",
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
			ret = select_categories(&sel, optarg);
			break;
		case 'e':
			ret = select_events(&sel, optarg);
			break;
		case OPT_FILTER:
			ret = add_filter(&sel, optarg);
			break;
		case 'P':
			sel.probes[sel.nprobes] = strdup(optarg);
			ret = sel.probes[sel.nprobes++] ? 0 : -ENOMEM;
			break;
		case 'p':
			pid = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'u':
			user = optarg;
			break;
		case 'C':
			config = optarg;
			break;
		case 'r':
			rt_priority = optarg;
			break;
		case OPT_SHARED_FLOWS:
			shared_flows = "--shared-flows";
			break;
		case OPT_NO_SHARED_FLOWS:
			shared_flows = "--no-shared-flows";
			break;
		case OPT_SNAPSHOT_RETIRED:
			snapshot_retired = optarg;
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
			rc = fxtrace_option_error("record", opt, argv, options);
			goto out;
		}
		if (ret == -EINVAL) {
			rc = EXIT_USAGE;
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
	else if (user && optind == argc)
		rc = fxtrace_usage_error("record", "-u runs COMMAND as USER: no command given");
	else if (pid && (!*pid || strspn(pid, "0123456789") != strlen(pid)))
		rc = fxtrace_usage_error("record", "-p needs a process id, not '%s'", pid);
	else
		rc = fxtrace_trace_output_error("record", out);
	if (rc)
		goto out;
	rc = 1;
	/*
	 * The drainer replaces OUT, as it should a finished trace; but not
	 * what `fxtrace recover` would still save of a killed one's.
	 */
	if (fxtrace_keep_recoverable("record", out, -1, FXTRACE_KEEP_UNFINISHED))
		goto out;
	/* A config file's categories hold unless -c or -e says otherwise. */
	pass_categories = !config || sel.user || sel.kernel_given;
	categories = category_list(&sel);
	if (!categories)
		goto nomem;
	ret = drain_path(drain, sizeof(drain));
	if (ret) {
		fprintf(stderr, "fxtrace record: %s: %s\n",
			ret == -ENAMETOOLONG ? "fxtrace-drain" : drain,
			strerror(-ret));
		goto out;
	}
	drain_argv = calloc((size_t)(argc - optind + 2 * sel.nprobes) +
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
	if (pass_categories) {
		drain_argv[n++] = "-c";
		drain_argv[n++] = categories;
	}
	for (i = 0; i < sel.nprobes; i++) {
		drain_argv[n++] = "-P";
		drain_argv[n++] = sel.probes[i];
	}
	/* A command's own syscalls and probe hits, unless asked for all. */
	if (pid || (optind < argc && !all)) {
		drain_argv[n++] = "-p";
		drain_argv[n++] = pid ? (char *)pid : "command";
	}
	if (user) {
		drain_argv[n++] = "-u";
		drain_argv[n++] = (char *)user;
	}
	if (rt_priority) {
		drain_argv[n++] = "-r";
		drain_argv[n++] = (char *)rt_priority;
	}
	if (shared_flows)
		drain_argv[n++] = (char *)shared_flows;
	if (snapshot_retired) {
		drain_argv[n++] = "--snapshot-retired";
		drain_argv[n++] = (char *)snapshot_retired;
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
	existed = !stat(out, &before);
	status = run_drain(drain_argv);
	if (status < 0)
		fprintf(stderr, "fxtrace record: %s: %s\n", drain, strerror(-status));
	else
		rc = record_status(status, out, quiet, existed, &before);
	goto out;
nomem:
	fprintf(stderr, "fxtrace record: out of memory\n");
	rc = 1;
out:
	free(drain_argv);
	free(categories);
	for (i = 0; i < sel.nprobes; i++)
		free(sel.probes[i]);
	free(sel.probes);
	free(sel.user);
	return rc;
}
