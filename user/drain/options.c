// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace-drain's options: the command line and the -C config file.
 */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drainer.h"
#include "size.h"

const char *const mode_names[__FXTRACE_MODE_COUNT] = {
	[FXTRACE_MODE_ONESHOT] = "oneshot",
	[FXTRACE_MODE_CIRCULAR] = "circular",
	[FXTRACE_MODE_STREAMING] = "streaming",
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fxtrace-drain [-C FILE] [-m MODE] [-b SIZE] [-B SIZE] [-c CATEGORIES]\n"
		"                     [-P PROBE]... [-p PID|command] [-o OUT.fxt] [-q] [-v]\n"
		"                     [-u USER] [-r PRIO] [--[no-]shared-flows]\n"
		"                     [--snapshot-retired=SIZE]\n"
		"                     [-- COMMAND ARGS...]\n"
		"\n"
		"Start a tracing session, run COMMAND (or wait for SIGINT, SIGTERM or\n"
		"SIGHUP), stop, and write every buffer to one FXT file.  In circular\n"
		"mode SIGUSR1 writes a snapshot of every buffer to OUT.<n>.\n"
		"\n"
		"  -C, --config=FILE      read options from FILE (key = value lines: mode,\n"
		"                         cpu-buffer-size, task-buffer-size, categories,\n"
		"                         output, pid, probe, rt-priority, shared-flows,\n"
		"                         snapshot-retired);\n"
		"                         options on the command line win, probes add up\n"
		"  -m, --mode=MODE        oneshot, circular or streaming [default: streaming]\n"
		"  -b, --cpu-buffer-size=SIZE\n"
		"                         per-CPU buffer size, K/M suffixes, a multiple of\n"
		"                         4K from 16K to 256M [default: 1M]\n"
		"  -B, --task-buffer-size=SIZE\n"
		"                         per-thread buffer size, same limits [default: 1M]\n"
		"  -c, --categories=LIST  comma-separated category globs, given to the\n"
		"                         module as they are: user categories match any\n"
		"                         glob, kernel ones only globs starting with\n"
		"                         'kernel:' [default: every user category, no\n"
		"                         kernel category]\n"
		"  -P, --probe=PROBE      a dynamic probe (kprobe:FUNC, kretprobe:FUNC,\n"
		"                         uprobe:PATH:SYMBOL, uretprobe:PATH:SYMBOL,\n"
		"                         usdt:PATH:PROVIDER:NAME, tracepoint:SUBSYS:EVENT;\n"
		"                         Documentation/probes.rst); repeatable\n"
		"  -p, --pid=PID          kernel:syscall and probe events of process PID\n"
		"                         only, task buffers of PID and its descendants\n"
		"                         only; 'command': of COMMAND's process\n"
		"                         [default: every process]\n"
		"  -o, --output=OUT       output file [default: fxtrace.fxt]\n"
		"  -u, --user=USER        run COMMAND as USER (a name or a uid in the\n"
		"                         password database; root only): its uid, groups,\n"
		"                         HOME, USER and LOGNAME, in a session of its own\n"
		"                         (with a pty of its own, from a terminal)\n"
		"                         [default: the drainer's]\n"
		"  -r, --rt-priority=PRIO run the drainer at real-time priority PRIO\n"
		"                         (SCHED_FIFO, 1-99; COMMAND keeps its own), so\n"
		"                         that busy CPUs do not delay saves [default: off]\n"
		"      --shared-flows     join flow events by correlation id whatever the\n"
		"                         user of their process, as Perfetto does, so that\n"
		"                         flows between users (a client and a daemon of\n"
		"                         another user) bind: any producer of the session\n"
		"                         can then step, end or hold open any user's flow\n"
		"                         ids; only when every producer is trusted\n"
		"                         [default: a step or end joins only a begin of\n"
		"                         its own user]\n"
		"      --no-shared-flows  a step or end joins only a begin of its own\n"
		"                         user, whatever the config file says\n"
		"      --snapshot-retired=SIZE\n"
		"                         circular mode: keep copies of the buffers of\n"
		"                         threads that exited, the most recent first, in\n"
		"                         up to SIZE bytes (K/M suffixes, up to 4096M; 0:\n"
		"                         none), so that SIGUSR1's snapshots hold them\n"
		"                         [default: 64M, or two copies of -B SIZE if more]\n"
		"  -q, --quiet            no progress and no summary\n"
		"  -v, --verbose          describe the first 100 invalid records, log every\n"
		"                         acknowledged save, and say how long saves waited\n"
		"  -h, --help             this help\n"
		"      --version          the fxtrace ABI this drainer speaks\n"
		"\n"
		"Exit status: COMMAND's (128+N if signal N killed it, 127 if it could\n"
		"not be run) once the trace is written, 0 without COMMAND; 128+N if\n"
		"signal N stopped the trace and COMMAND runs on; 1 if tracing failed;\n"
		"2 usage error.\n");
}

/* A buffer size the module accepts, or a message saying what it accepts. */
static int parse_buffer_size(const char *what, const char *s, uint64_t *out)
{
	if (!fxtctl_parse_size(s, FXTRACE_BUFFER_SIZE_MAX, out) &&
	    *out % FXTRACE_BUFFER_PAGE_SIZE == 0 &&
	    *out >= FXTRACE_BUFFER_SIZE_MIN)
		return 0;
	fprintf(stderr, "fxtrace-drain: %s '%s': a buffer size is a multiple of 4K from %lluK to %lluM (K and M suffixes)\n",
		what, s, FXTRACE_BUFFER_SIZE_MIN >> 10,
		FXTRACE_BUFFER_SIZE_MAX >> 20);
	return -EINVAL;
}

static int parse_mode(const char *s, unsigned int *mode)
{
	unsigned int m;

	for (m = 0; m < __FXTRACE_MODE_COUNT; m++) {
		if (!strcmp(s, mode_names[m])) {
			*mode = m;
			return 0;
		}
	}
	fprintf(stderr, "fxtrace-drain: unknown mode '%s'\n", s);
	return -EINVAL;
}

/* The snapshots' budget for retired buffers' copies, 0 to 4 GiB. */
#define SNAPSHOT_RETIRED_MAX	(4ULL << 30)
/* Neither the config file nor the command line gave it (above the max). */
#define SNAPSHOT_RETIRED_UNSET	UINT64_MAX

static int parse_snapshot_retired(const char *what, const char *s,
				  uint64_t *out)
{
	if (!fxtctl_parse_size(s, SNAPSHOT_RETIRED_MAX, out))
		return 0;
	fprintf(stderr, "fxtrace-drain: %s '%s': a size from 0 to %lluM (K and M suffixes)\n",
		what, s, SNAPSHOT_RETIRED_MAX >> 20);
	return -EINVAL;
}

/* A SCHED_FIFO priority, as chrt(1) and trace-cmd record -r take it. */
static int parse_rt_priority(const char *what, const char *s, int *prio)
{
	int min = sched_get_priority_min(SCHED_FIFO);
	int max = sched_get_priority_max(SCHED_FIFO);
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "fxtrace-drain: %s '%s': a real-time priority is a number from %d to %d\n",
			what, s, min, max);
		return -EINVAL;
	}
	*prio = (int)v;
	return 0;
}

/* A config file's yes or no. */
static int parse_yes_no(const char *s, bool *value)
{
	if (!strcmp(s, "yes") || !strcmp(s, "no")) {
		*value = !strcmp(s, "yes");
		return 0;
	}
	return -EINVAL;
}

/* A pid in 1..INT_MAX, or "command". */
static int parse_pid(struct options *opt, const char *s)
{
	char *end;
	long v;

	if (!strcmp(s, "command")) {
		opt->filter_command = true;
		opt->filter_pid = 0;
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > INT32_MAX) {
		fprintf(stderr, "fxtrace-drain: bad pid '%s'\n", s);
		return -EINVAL;
	}
	opt->filter_command = false;
	opt->filter_pid = (uint32_t)v;
	return 0;
}

/*
 * USER, a name or else a uid, as the password database has it.  Only root
 * becomes another user: a drainer with capabilities and another uid would
 * pass them on (setuid() clears them only when leaving uid 0).
 */
static int parse_user(struct options *opt, const char *s)
{
	struct passwd *pw;
	char *end;
	unsigned long uid;

	if (getuid() || geteuid()) {
		fprintf(stderr, "fxtrace-drain: -u needs root (uid 0): only root runs COMMAND as another user\n");
		return -EINVAL;
	}
	pw = getpwnam(s);
	errno = 0;
	uid = strtoul(s, &end, 10);
	if (!pw && *s >= '0' && *s <= '9' && !*end && !errno &&
	    uid < (uid_t)-1)
		pw = getpwuid((uid_t)uid);
	if (!pw) {
		fprintf(stderr, "fxtrace-drain: unknown user '%s'\n", s);
		return -EINVAL;
	}
	free(opt->user_name);
	free(opt->user_home);
	opt->user_name = strdup(pw->pw_name);
	opt->user_home = strdup(pw->pw_dir);
	if (!opt->user_name || !opt->user_home)
		return -ENOMEM;
	opt->user_uid = pw->pw_uid;
	opt->user_gid = pw->pw_gid;
	return 0;
}

static char *trim(char *s)
{
	char *end = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* Parse a probe spec into the options' set; it is opened after Initialize. */
static int add_probe(struct options *opt, const char *spec)
{
	char err[FXTPROBE_SPEC_MAX + 128];

	if (!opt->probes) {
		opt->probes = fxtprobe_new();
		if (!opt->probes)
			return -ENOMEM;
	}
	if (fxtprobe_add(opt->probes, spec, err, sizeof(err))) {
		fprintf(stderr, "fxtrace-drain: %s\n", err);
		return -EINVAL;
	}
	return 0;
}

/* Keep a value read from the config file; the previous one of key k goes. */
static const char *keep_string(struct options *opt, int k, const char *value)
{
	free(opt->config_strings[k]);
	opt->config_strings[k] = strdup(value);
	return opt->config_strings[k];
}

/* One "key = value" line of a config file. */
static int config_line(struct options *opt, char *key, char *value)
{
	int ret = 0;

	if (!strcmp(key, "mode")) {
		ret = parse_mode(value, &opt->mode);
	} else if (!strcmp(key, "cpu-buffer-size")) {
		ret = parse_buffer_size(key, value, &opt->cpu_size);
	} else if (!strcmp(key, "task-buffer-size")) {
		ret = parse_buffer_size(key, value, &opt->task_size);
	} else if (!strcmp(key, "categories")) {
		opt->categories = keep_string(opt, 0, value);
		ret = opt->categories ? 0 : -ENOMEM;
	} else if (!strcmp(key, "output")) {
		if (!*value || !strcmp(value, "-"))
			return -EINVAL;
		opt->out = keep_string(opt, 1, value);
		ret = opt->out ? 0 : -ENOMEM;
	} else if (!strcmp(key, "pid")) {
		ret = parse_pid(opt, value);
	} else if (!strcmp(key, "probe")) {
		ret = add_probe(opt, value);
	} else if (!strcmp(key, "rt-priority")) {
		ret = parse_rt_priority(key, value, &opt->rt_priority);
	} else if (!strcmp(key, "shared-flows")) {
		ret = parse_yes_no(value, &opt->shared_flows);
	} else if (!strcmp(key, "snapshot-retired")) {
		ret = parse_snapshot_retired(key, value,
					     &opt->snapshot_retired);
	} else {
		ret = -ENOENT;
	}
	return ret;
}

/*
 * The longest config line and the largest config file read: a probe spec
 * (FXTPROBE_SPEC_MAX) and its key fit a line; a file that has no line end
 * (-C /dev/zero) or no end must not take the drainer's memory.
 */
#define CONFIG_LINE_MAX		(FXTPROBE_SPEC_MAX + 64U)
#define CONFIG_SIZE_MAX		(1U << 20)

/*
 * The next line of f into line (CONFIG_LINE_MAX + 1 bytes, NUL-terminated,
 * without its '\n'), *size counting the bytes read: 1, 0 at the end of the
 * file, or -EFBIG (line too long or file too large), -EILSEQ (a NUL byte:
 * the string would end there, its value cut) or -errno.
 */
static int config_getline(FILE *f, char *line, size_t *size)
{
	size_t len = 0;
	int ch;

	while ((ch = getc(f)) != EOF && ch != '\n') {
		if (len == CONFIG_LINE_MAX || ++*size > CONFIG_SIZE_MAX)
			return -EFBIG;
		if (!ch)
			return -EILSEQ;
		line[len++] = (char)ch;
	}
	line[len] = '\0';
	if (ferror(f))
		return errno ? -errno : -EIO;
	if (ch == '\n' && ++*size > CONFIG_SIZE_MAX)
		return -EFBIG;
	return ch != EOF || len;
}

/* Lines "key = value"; blank lines and lines starting with '#' skipped. */
static int read_config(struct options *opt, const char *path)
{
	FILE *f = fopen(path, "re");
	char line[CONFIG_LINE_MAX + 1], *key = line, *value, *eq;
	unsigned int lineno = 0;
	size_t size = 0;
	int ret;

	if (!f) {
		fprintf(stderr, "fxtrace-drain: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	errno = 0;
	while ((ret = config_getline(f, line, &size)) > 0) {
		lineno++;
		key = trim(line);
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			ret = -EINVAL;
			break;
		}
		*eq = '\0';
		key = trim(key);
		value = trim(eq + 1);
		ret = config_line(opt, key, value);
		if (ret)
			break;
	}
	if (ret == -EFBIG && size > CONFIG_SIZE_MAX)
		fprintf(stderr, "fxtrace-drain: %s: larger than %u bytes: not a config file\n",
			path, CONFIG_SIZE_MAX);
	else if (ret == -EFBIG)
		fprintf(stderr, "fxtrace-drain: %s:%u: a line longer than %u bytes\n",
			path, lineno + 1, CONFIG_LINE_MAX);
	else if (ret == -EILSEQ)
		fprintf(stderr, "fxtrace-drain: %s:%u: a NUL byte in the line\n",
			path, lineno + 1);
	else if (ret == -ENOENT)
		fprintf(stderr, "fxtrace-drain: %s:%u: unknown key '%s'\n", path,
			lineno, key);
	else if (ret == -EINVAL || ret == -ENOMEM)
		fprintf(stderr, "fxtrace-drain: %s:%u: expected 'key = value' with a valid value\n",
			path, lineno);
	else if (ret)
		fprintf(stderr, "fxtrace-drain: %s: cannot read it: %s\n", path,
			strerror(-ret));
	fclose(f);
	return ret ? -EINVAL : 0;
}

#define OPTSTRING "+C:m:b:B:c:P:p:o:u:r:qvh"
#define OPT_VERSION 256
#define OPT_SHARED_FLOWS 257
#define OPT_NO_SHARED_FLOWS 258
#define OPT_SNAPSHOT_RETIRED 259

static const struct option long_options[] = {
	{ "config", required_argument, NULL, 'C' },
	{ "mode", required_argument, NULL, 'm' },
	{ "cpu-buffer-size", required_argument, NULL, 'b' },
	{ "task-buffer-size", required_argument, NULL, 'B' },
	{ "categories", required_argument, NULL, 'c' },
	{ "probe", required_argument, NULL, 'P' },
	{ "pid", required_argument, NULL, 'p' },
	{ "output", required_argument, NULL, 'o' },
	{ "user", required_argument, NULL, 'u' },
	{ "rt-priority", required_argument, NULL, 'r' },
	{ "shared-flows", no_argument, NULL, OPT_SHARED_FLOWS },
	{ "no-shared-flows", no_argument, NULL, OPT_NO_SHARED_FLOWS },
	{ "snapshot-retired", required_argument, NULL, OPT_SNAPSHOT_RETIRED },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

int parse_options(struct options *opt, int argc, char **argv)
{
	int ch;

	*opt = (struct options){
		.mode = FXTRACE_MODE_STREAMING,
		.cpu_size = 1 << 20,
		.task_size = 1 << 20,
		.out = "fxtrace.fxt",
		/* Not given: snapshot_retired_default() of -B, at the end. */
		.snapshot_retired = SNAPSHOT_RETIRED_UNSET,
	};
	/* The config file first, wherever -C is: the command line wins. */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, OPTSTRING, long_options,
				 NULL)) != -1)
		if (ch == 'C' && read_config(opt, optarg))
			return -EINVAL;
	optind = 0;
	opterr = 1;
	while ((ch = getopt_long(argc, argv, OPTSTRING, long_options,
				 NULL)) != -1) {
		switch (ch) {
		case 'C':
			break;
		case 'm':
			if (parse_mode(optarg, &opt->mode))
				return -EINVAL;
			break;
		case 'b':
		case 'B':
			if (parse_buffer_size(ch == 'b' ? "-b" : "-B", optarg,
					      ch == 'b' ? &opt->cpu_size :
					      &opt->task_size))
				return -EINVAL;
			break;
		case 'c':
			opt->categories = optarg;
			break;
		case 'P':
			if (add_probe(opt, optarg))
				return -EINVAL;
			break;
		case 'p':
			if (parse_pid(opt, optarg))
				return -EINVAL;
			break;
		case 'o':
			/* As `fxtrace record -o ''`: the value is wrong, not a file. */
			if (!*optarg) {
				fprintf(stderr, "fxtrace-drain: -o/--output needs a file name, not ''\n");
				return -EINVAL;
			}
			/* As `fxtrace record -o -`: not a file named "-". */
			if (!strcmp(optarg, "-")) {
				fprintf(stderr, "fxtrace-drain: -o -: a trace is not written to standard output; name a file ('./-' for one named '-')\n");
				return -EINVAL;
			}
			opt->out = optarg;
			break;
		case 'u':
			if (parse_user(opt, optarg))
				return -EINVAL;
			break;
		case 'r':
			if (parse_rt_priority("-r", optarg, &opt->rt_priority))
				return -EINVAL;
			break;
		case OPT_SHARED_FLOWS:
		case OPT_NO_SHARED_FLOWS:
			opt->shared_flows = ch == OPT_SHARED_FLOWS;
			break;
		case OPT_SNAPSHOT_RETIRED:
			if (parse_snapshot_retired("--snapshot-retired", optarg,
						   &opt->snapshot_retired))
				return -EINVAL;
			break;
		case 'q':
			opt->quiet = true;
			break;
		case 'v':
			opt->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_VERSION:
			printf("fxtrace-drain (fxtrace) ABI %d.%d\n",
			       FXTRACE_ABI_MAJOR, FXTRACE_ABI_MINOR);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc)
		opt->command = argv + optind;
	if (opt->snapshot_retired == SNAPSHOT_RETIRED_UNSET)
		opt->snapshot_retired = snapshot_retired_default(opt->task_size);
	if (opt->filter_command && !opt->command) {
		fprintf(stderr, "fxtrace-drain: '-p command' needs a COMMAND\n");
		return -EINVAL;
	}
	if (opt->user_name && !opt->command) {
		fprintf(stderr, "fxtrace-drain: -u needs a COMMAND\n");
		return -EINVAL;
	}
	return 0;
}
