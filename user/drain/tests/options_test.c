// SPDX-License-Identifier: GPL-2.0
/*
 * options_test - fxtrace-drain's options as parse_options() leaves them,
 * on the host: which of the config file and the command line sets
 * --shared-flows (Documentation/drain.rst: the command line wins, the
 * last of --shared-flows and --no-shared-flows counts), and the sizes
 * --snapshot-retired takes.  Prints TAP.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "drainer.h"
#include "tap.h"

static char yes_conf[PATH_MAX];
static char no_conf[PATH_MAX];
static char retired_conf[PATH_MAX];
static char task_conf[PATH_MAX];

/* A config file holding line, in $TMPDIR (or /tmp); its path in path. */
static int write_conf(char *path, const char *name, const char *line)
{
	const char *dir = getenv("TMPDIR");
	ssize_t len = (ssize_t)strlen(line);
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if (snprintf(path, PATH_MAX, "%s/options_test.%s.XXXXXX", dir, name) >=
	    PATH_MAX)
		return -1;
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, line, (size_t)len) != len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/*
 * The shared_flows parse_options() leaves for args (then "-- true"):
 * 0 or 1, or -1 when it refused them.
 */
static int shared_flows(const char *const *args)
{
	char *argv[16] = { "fxtrace-drain" };
	struct options opt;
	int argc = 1, ret;

	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc++] = "--";
	argv[argc++] = "true";
	optind = 0;
	ret = parse_options(&opt, argc, argv);
	free(opt.config_strings[0]);
	free(opt.config_strings[1]);
	return ret ? -1 : opt.shared_flows;
}

#define SHARED_FLOWS(...) shared_flows((const char *const[]){ __VA_ARGS__, NULL })

static int test_command_line(void)
{
	EXPECT_EQ(0, shared_flows((const char *const[]){ NULL }));
	EXPECT_EQ(1, SHARED_FLOWS("--shared-flows"));
	EXPECT_EQ(0, SHARED_FLOWS("--no-shared-flows"));
	EXPECT_EQ(0, SHARED_FLOWS("--shared-flows", "--no-shared-flows"));
	EXPECT_EQ(1, SHARED_FLOWS("--no-shared-flows", "--shared-flows"));
	return 0;
}

static int test_config_file(void)
{
	EXPECT_EQ(1, SHARED_FLOWS("-C", yes_conf));
	EXPECT_EQ(0, SHARED_FLOWS("-C", no_conf));
	return 0;
}

/* The command line wins over the file, wherever -C is. */
static int test_command_line_wins(void)
{
	EXPECT_EQ(1, SHARED_FLOWS("-C", no_conf, "--shared-flows"));
	EXPECT_EQ(0, SHARED_FLOWS("-C", yes_conf, "--no-shared-flows"));
	EXPECT_EQ(0, SHARED_FLOWS("--no-shared-flows", "-C", yes_conf));
	return 0;
}

/*
 * The snapshot_retired parse_options() leaves for args (then "-- true"),
 * or ~0 when it refused them.
 */
static uint64_t snapshot_retired(const char *const *args)
{
	char *argv[16] = { "fxtrace-drain" };
	struct options opt;
	int argc = 1, ret;

	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc++] = "--";
	argv[argc++] = "true";
	optind = 0;
	ret = parse_options(&opt, argc, argv);
	free(opt.config_strings[0]);
	free(opt.config_strings[1]);
	return ret ? ~0ULL : opt.snapshot_retired;
}

#define SNAPSHOT_RETIRED(...) \
	snapshot_retired((const char *const[]){ __VA_ARGS__, NULL })

/* 64M by default; 0 to 4096M, K and M suffixes; the command line wins. */
static int test_snapshot_retired(void)
{
	EXPECT_EQ(64ULL << 20, snapshot_retired((const char *const[]){ NULL }));
	EXPECT_EQ(0, SNAPSHOT_RETIRED("--snapshot-retired", "0"));
	EXPECT_EQ(100 << 10, SNAPSHOT_RETIRED("--snapshot-retired=100K"));
	EXPECT_EQ(4096ULL << 20, SNAPSHOT_RETIRED("--snapshot-retired", "4096M"));
	EXPECT_EQ(12345, SNAPSHOT_RETIRED("--snapshot-retired", "12345"));
	EXPECT_EQ(~0ULL, SNAPSHOT_RETIRED("--snapshot-retired", "4097M"));
	EXPECT_EQ(~0ULL, SNAPSHOT_RETIRED("--snapshot-retired", "-1"));
	EXPECT_EQ(~0ULL, SNAPSHOT_RETIRED("--snapshot-retired", "1G"));
	EXPECT_EQ(~0ULL, SNAPSHOT_RETIRED("--snapshot-retired", ""));
	EXPECT_EQ(8ULL << 20, SNAPSHOT_RETIRED("-C", retired_conf));
	EXPECT_EQ(0, SNAPSHOT_RETIRED("--snapshot-retired", "0", "-C",
				      retired_conf));
	return 0;
}

/*
 * Not given, the budget holds two whole copies of a -B buffer when 64M
 * would not: with -B 64M, 64M held none (a copy is the data area and
 * 4,200 bytes), and the snapshots kept no thread that exited.  Given, it
 * is what was given, whatever -B.
 */
static int test_snapshot_retired_task_size(void)
{
	/* A copy's header and control pages and bookkeeping. */
	const uint64_t copy_over = sizeof(struct retired_copy) + 4096 +
				   sizeof(struct fxtrace_buffer_control);

	EXPECT_EQ(64ULL << 20, SNAPSHOT_RETIRED("-B", "16M"));
	EXPECT_EQ(2 * ((32ULL << 20) + copy_over),
		  SNAPSHOT_RETIRED("-B", "32M"));
	EXPECT_EQ(2 * ((64ULL << 20) + copy_over),
		  SNAPSHOT_RETIRED("-m", "circular", "-B", "64M"));
	EXPECT_EQ(2 * ((256ULL << 20) + copy_over),
		  SNAPSHOT_RETIRED("--task-buffer-size=256M"));
	EXPECT_EQ(8ULL << 20, SNAPSHOT_RETIRED("-B", "256M", "-C",
					       retired_conf));
	EXPECT_EQ(0, SNAPSHOT_RETIRED("--snapshot-retired", "0", "-B", "256M"));
	EXPECT_EQ(2 * ((128ULL << 20) + copy_over),
		  SNAPSHOT_RETIRED("-C", task_conf));
	return 0;
}

static const struct tap_test tests[] = {
	{ "--shared-flows, --no-shared-flows: the last one counts", test_command_line },
	{ "shared-flows = yes and = no in the config file", test_config_file },
	{ "the command line wins over shared-flows = yes and = no", test_command_line_wins },
	{ "--snapshot-retired and snapshot-retired =: 64M by default, 0 to 4096M", test_snapshot_retired },
	{ "--snapshot-retired by default: two copies of a -B buffer past 64M", test_snapshot_retired_task_size },
};

int main(void)
{
	int ret;

	if (write_conf(yes_conf, "yes", "shared-flows = yes\n") ||
	    write_conf(no_conf, "no", "shared-flows = no\n") ||
	    write_conf(retired_conf, "retired", "snapshot-retired = 8M\n") ||
	    write_conf(task_conf, "task", "task-buffer-size = 128M\n")) {
		perror("options_test: a config file");
		return 1;
	}
	/* The usage errors, if any, go to stderr. */
	ret = tap_run(tests, sizeof(tests) / sizeof(tests[0]));
	unlink(yes_conf);
	unlink(no_conf);
	unlink(retired_conf);
	unlink(task_conf);
	return ret;
}
