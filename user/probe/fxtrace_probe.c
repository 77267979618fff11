// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace-probe - run a command with dynamic probes attached and write what
 * they saw as an FXT file, without the drainer (Documentation/probes.rst).
 *
 *	fxtrace-probe -o out.fxt [-a|-p PID] [-P SPEC]... [-- COMMAND [ARG]...]
 *
 * The timestamps are on the clock of the /dev/fxtrace session if one
 * exists, else CLOCK_MONOTONIC ns.  Exit status: the command's (128 + the
 * signal that killed it), else 3 if a probe could not attach, 0 otherwise;
 * 2 for a usage error or a bad spec, 1 when nothing could be traced or the
 * output could not be written (the command is then ended: stop_command()).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fxt.h>

#include "fxtprobe.h"
#include "output_file.h"
#include "size.h"

#define EXIT_NOT_ATTACHED	3
/* How long to wait for events before checking on the command, in ms. */
#define POLL_MS			100

static const char usage[] =
	"usage: fxtrace-probe -o FILE [-a|-p PID] [-P SPEC]... -- COMMAND [ARG]...\n"
	"       fxtrace-probe -o FILE -a|-p PID [-P SPEC]...\n"
	"\n"
	"Without COMMAND, trace until SIGINT (Ctrl-C) or SIGTERM.\n"
	"\n"
	"  -o, --output FILE     the FXT file to write\n"
	"  -P, --probe SPEC      a probe (repeatable), e.g. 'kprobe:do_sys_openat2 path=arg1:ustr'\n"
	"  -p, --pid PID         events of process PID only [default: the command's]\n"
	"  -a, --all             events of every process [default: the command's]\n"
	"  -r, --ring-size BYTES the BPF ring buffer, a power of 2 of pages [default: 4M]\n"
	"  -v, --verbose         show libbpf's warnings\n"
	"  -h, --help            this help\n"
	"      --version         the fxtrace ABI this tool speaks\n"
	"\n"
	"SPEC: kprobe:FUNC, kretprobe:FUNC, uprobe:PATH:SYMBOL, uretprobe:PATH:SYMBOL,\n"
	"usdt:PATH:PROVIDER:NAME, then up to 4 [NAME=]SOURCE:TYPE arguments, SOURCE\n"
	"argN or ret, TYPE u64 s64 u32 s32 ptr ustr kstr; or\n"
	"tracepoint:SUBSYSTEM:EVENT, then FIELD names to keep [default: all] and\n"
	"FIELD==N (!= < <= > >=) conditions (Documentation/probes.rst).\n"
	"Exit status: the command's; 3 if a probe did not attach; 2 usage; 1 error\n"
	"(FILE cannot be written: the command is then sent SIGTERM).\n";

static int attach_failures;

/*
 * A ring size: BYTES with an optional K or M suffix, a power of 2 of at
 * least a page, as fxtprobe_open() requires: refused here, before the
 * output is created and COMMAND started.
 */
static int parse_size(const char *s, uint32_t *size)
{
	uint64_t n;

	if (fxtctl_parse_size(s, UINT32_MAX, &n) || n & (n - 1) ||
	    n < (uint64_t)sysconf(_SC_PAGESIZE))
		return -EINVAL;
	*size = (uint32_t)n;
	return 0;
}

static void report_attach_error(void *ctx, const char *spec, int err,
				const char *reason)
{
	(void)ctx;
	(void)err;
	fprintf(stderr, "fxtrace-probe: %s: cannot attach: %s\n", spec, reason);
	attach_failures++;
}

static int write_all(void *ctx, const void *bytes, size_t len)
{
	int fd = *(int *)ctx;
	const char *p = bytes;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}

/* The session's clock if /dev/fxtrace has a session, else monotonic ns. */
static void session_clock(struct fxtprobe_clock *clock)
{
	void *page = MAP_FAILED;
	int fd = open("/dev/fxtrace", O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		page = mmap(NULL, FXTRACE_SESSION_MAP_SIZE, PROT_READ,
			    MAP_SHARED, fd, FXTRACE_MMAP_SESSION);
	if (page == MAP_FAILED || fxtprobe_clock_from_session(page, clock))
		fxtprobe_clock_monotonic(clock);
	if (page != MAP_FAILED)
		munmap(page, FXTRACE_SESSION_MAP_SIZE);
	if (fd >= 0)
		close(fd);
}

/*
 * SIGPIPE as fxtrace-probe was started with, for the command: ignored here,
 * so that a FIFO whose reader left fails the write (EPIPE) and ends the
 * run as any failed write does, instead of killing fxtrace-probe and
 * leaving the command running unwatched.
 */
static struct sigaction caller_sigpipe;

/* Fork the command, stopped on a pipe until the probes are in place. */
static pid_t start_command(char **argv, int *go)
{
	int fds[2];
	pid_t pid;
	char byte;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		sigaction(SIGPIPE, &caller_sigpipe, NULL);
		close(fds[1]);
		if (read(fds[0], &byte, 1) != 1)
			_exit(127);	/* fxtrace-probe gave up */
		execvp(argv[0], argv);
		fprintf(stderr, "fxtrace-probe: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

/* How long a command has to end on SIGTERM before SIGKILL, in POLL_MS. */
#define STOP_GRACE_POLLS	20

/*
 * The command (pid 0: none), when tracing cannot start or go on: SIGTERM,
 * as `perf record` ends its workload, then SIGKILL if it is still there
 * STOP_GRACE_POLLS * POLL_MS later (it may ignore SIGTERM); waited for, so
 * that it does not outlive the trace unwatched.  One held before its exec
 * ends on the SIGTERM.
 */
static void stop_command(pid_t pid)
{
	int i;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (i = 0; i < STOP_GRACE_POLLS; i++) {
		if (waitpid(pid, NULL, WNOHANG) != 0)
			return;
		usleep(POLL_MS * 1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static volatile sig_atomic_t stop_requested;

static void request_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/*
 * Poll and convert until the command (*pid) exits (its wait status in
 * *status), or without a command (0) until SIGINT or SIGTERM.  Once the
 * command is reaped *pid is 0: its pid may be another process's by the
 * time a failed write ends the run.
 */
static int trace_command(struct fxtprobe *set, pid_t *pid, int *fd,
			 int *status)
{
	struct pollfd pfd = { .fd = fxtprobe_epoll_fd(set), .events = POLLIN };
	bool command = *pid;
	int events = 0, ret;

	for (;;) {
		pid_t done = *pid ? waitpid(*pid, status, WNOHANG) : 0;

		if (done < 0 && errno != EINTR)
			return -errno;
		if (done > 0)
			*pid = 0;
		/* After the exit: every event of the command is in the ring. */
		ret = fxtprobe_consume(set, write_all, fd);
		if (ret < 0)
			return ret;
		events += ret;
		if (command ? done > 0 : stop_requested)
			return events;
		if (poll(&pfd, 1, POLL_MS) < 0 && errno != EINTR)
			return -errno;
	}
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "probe", required_argument, NULL, 'P' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "version", no_argument, NULL, 'V' },
		{ "ring-size", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fxtprobe_options opts = { 0 };
	struct fxtprobe_drops drops;
	struct fxtprobe_clock clock;
	const char *output = NULL;
	bool all = false;
	unsigned long pid_filter = 0;
	struct fxtprobe *set;
	char *end;
	char err[512];
	__u64 magic;
	void *preamble;
	size_t size;
	int fd, go = -1, c, attached, events, ret, status = 0;
	pid_t pid;

	set = fxtprobe_new();
	if (!set) {
		fprintf(stderr, "fxtrace-probe: out of memory\n");
		return 1;
	}
	while ((c = getopt_long(argc, argv, "+o:P:p:ar:vh", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'p':
			errno = 0;
			pid_filter = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !pid_filter ||
			    pid_filter > INT32_MAX) {
				fprintf(stderr, "fxtrace-probe: -p needs a process id, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'V':
			printf("fxtrace-probe (fxtrace) ABI %d.%d\n",
			       FXTRACE_ABI_MAJOR, FXTRACE_ABI_MINOR);
			return 0;
		case 'P':
			if (fxtprobe_add(set, optarg, err, sizeof(err))) {
				fprintf(stderr, "fxtrace-probe: %s\n", err);
				return 2;
			}
			break;
		case 'a':
			all = true;
			break;
		case 'r':
			if (parse_size(optarg, &opts.ring_size)) {
				fprintf(stderr, "fxtrace-probe: -r '%s': a ring size is a power of 2 of at least a page (K and M suffixes)\n",
					optarg);
				return 2;
			}
			break;
		case 'v':
			opts.libbpf_warnings = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!output || (optind >= argc && !all && !pid_filter) ||
	    (all && pid_filter)) {
		fputs(usage, stderr);
		return 2;
	}
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_IGN },
		  &caller_sigpipe);
	/* Named by the user: a FIFO or a device will do. */
	fd = fxtctl_create_output(output, FXTCTL_OUTPUT_STREAM);
	if (fd < 0) {
		fprintf(stderr, "fxtrace-probe: %s: %s%s\n", output,
			strerror(-fd), fxtctl_output_refusal(fd));
		return 1;
	}
	pid = optind < argc ? start_command(argv + optind, &go) : 0;
	if (pid < 0) {
		fprintf(stderr, "fxtrace-probe: cannot start %s: %s\n",
			argv[optind], strerror(errno));
		return 1;
	}
	if (pid_filter)
		opts.filter_tgid = pid_filter;
	else if (!all)
		opts.filter_tgid = pid;
	attached = fxtprobe_open(set, &opts, report_attach_error, NULL, err,
				 sizeof(err));
	if (attached < 0) {
		fprintf(stderr, "fxtrace-probe: %s\n", err);
		stop_command(pid);
		return 1;
	}
	session_clock(&clock);
	fxtprobe_set_clock(set, &clock);
	size = fxtprobe_preamble_size(set);
	preamble = malloc(size);
	fxt_write_magic(&magic);
	if (!preamble || write_all(&fd, &magic, sizeof(magic)) ||
	    write_all(&fd, preamble,
		      fxtprobe_write_preamble(set, preamble, size))) {
		fprintf(stderr, "fxtrace-probe: %s: cannot write\n", output);
		stop_command(pid);
		return 1;
	}
	free(preamble);
	if (pid) {
		/* Ctrl-C is for the command; we stop when it does. */
		signal(SIGINT, SIG_IGN);
		if (write(go, "g", 1) != 1) {
			fprintf(stderr, "fxtrace-probe: cannot start %s\n",
				argv[optind]);
			return 1;
		}
		close(go);
	} else {
		signal(SIGINT, request_stop);
		signal(SIGTERM, request_stop);
	}
	events = trace_command(set, &pid, &fd, &status);
	if (events < 0) {
		/* pid is 0 when the command's exit was already seen. */
		fprintf(stderr, "fxtrace-probe: %s: %s%s\n", output,
			strerror(-events), pid ? "; the command is ended (SIGTERM)" : "");
		stop_command(pid);
		return 1;
	}
	ret = fxtprobe_write_drops(set, write_all, &fd);
	if (close(fd) && !ret)
		ret = -errno;
	if (ret) {
		fprintf(stderr, "fxtrace-probe: %s: %s\n", output,
			strerror(-ret));
		return 1;
	}
	fxtprobe_drops(set, &drops);
	fprintf(stderr,
		"fxtrace-probe: %d events from %d of %zu probes, %" PRIu64
		" dropped (ring full), %" PRIu64 " missed (nested), %" PRIu64
		" invalid\n",
		events, attached, fxtprobe_count(set), drops.ring_full,
		drops.missed, drops.invalid);
	fxtprobe_close(set);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	if (WEXITSTATUS(status))
		return WEXITSTATUS(status);
	return attach_failures ? EXIT_NOT_ATTACHED : 0;
}
