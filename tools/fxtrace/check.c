// SPDX-License-Identifier: GPL-2.0
/*
 * check.c - `fxtrace check`: is a file well-formed FXT?  Every problem the
 * decoder finds is printed with its offset, severity and rule; the summary
 * line counts them.  Warnings become errors with --strict; notes never fail.
 *
 * The whole file is checked, as Perfetto reads it whole.  A file that
 * fxtrace-drain did not finish (its flush mark below the end) and whose
 * errors all lie past the mark gets its own exit status, EXIT_PARTIAL:
 * `fxtrace recover` cuts it to a well-formed trace.
 */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "fxtrace.h"

/* Well formed up to the flush mark, not after it. */
#define EXIT_PARTIAL 3

struct check {
	bool strict;
	bool quiet;
	uint64_t counts[FXT_SEVERITY_COUNT];
	uint64_t flushed;		/* the flush mark, or UINT64_MAX */
	uint64_t errors_before_mark;
};

static void print_problem(void *ctx, const struct fxt_diag *diag)
{
	struct check *c = ctx;
	enum fxt_severity severity = diag->severity;

	if (c->strict && severity == FXT_WARNING)
		severity = FXT_ERROR;
	c->counts[severity]++;
	if (severity == FXT_ERROR && diag->offset < c->flushed)
		c->errors_before_mark++;
	if (!c->quiet)
		printf("0x%06" PRIx64 ": %s: %s: %s\n", diag->offset,
		       fxt_severity_name(severity), diag->rule_name,
		       diag->message);
}

static void list_rules(void)
{
	int i;

	for (i = 0; i < FXT_RULE_COUNT; i++)
		printf("%-24s %-8s %s\n", fxt_rules[i].name,
		       fxt_severity_name(fxt_rules[i].severity),
		       fxt_rules[i].description);
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

int cmd_check(int argc, char **argv)
{
	static const struct option options[] = {
		{ "strict", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "list-rules", no_argument, NULL, 'l' },
		{ "perfetto", optional_argument, NULL, 'p' },
		{ "input", required_argument, NULL, 'i' },
		{ "memory-limit", required_argument, NULL, FXTRACE_OPT_MEMORY_LIMIT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct check c = { .flushed = UINT64_MAX };
	struct fxtrace_source src = { .left = UINT64_MAX };
	uint64_t memory_limit = FXTRACE_MEMORY_LIMIT_AUTO;
	struct fxtrace_flush f;
	struct fxt_reader *r;
	const char *path, *perfetto = NULL, *input = NULL;
	bool list = false;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":sqli:h", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			input = optarg;
			break;
		case 's':
			c.strict = true;
			break;
		case 'q':
			c.quiet = true;
			break;
		case 'l':
			list = true;
			break;
		case 'p':
			perfetto = optarg ? optarg : "fxt";
			break;
		case FXTRACE_OPT_MEMORY_LIMIT:
			ret = fxtrace_memory_limit_option("check", optarg,
							  &memory_limit);
			if (ret)
				return ret;
			break;
		case 'h':
			return fxtrace_cmd_help("check");
		default:
			return fxtrace_option_error("check", opt, argv, options);
		}
	}
	if (list) {
		if (argc > optind || input)
			return fxtrace_usage_error("check", "--list-rules takes no FILE");
		list_rules();
		return 0;
	}
	path = fxtrace_trace_path("check", argc, argv, input);
	if (!path)
		return EXIT_USAGE;
	if (perfetto)
		return fxtrace_check_perfetto(path, perfetto, c.quiet,
					      memory_limit);
	src.fd = fxtrace_open_trace("check", path);
	if (src.fd < 0)
		return 1;
	r = NULL;
	ret = fxtrace_flush_read(src.fd, &f);
	if (ret) {
		fprintf(stderr, "fxtrace check: cannot read %s: %s\n", path,
			strerror(-ret));
	} else if (f.marked && f.flushed > f.size) {
		fprintf(stderr, "fxtrace check: %s: the drainer flushed 0x%06" PRIx64
			" bytes but the file has 0x%06" PRIx64 ": it was cut short\n",
			path, f.flushed, f.size);
	} else {
		r = fxt_reader_new(print_problem, &c);
		if (!r)
			fprintf(stderr, "fxtrace check: out of memory\n");
	}
	if (r)
		fxtrace_set_memory_limit(r, src.fd, memory_limit);
	if (r && f.marked && f.flushed < f.size)
		c.flushed = f.flushed;
	if (r && f.windowed && f.window_hi <= INT64_MAX)
		fxt_reader_set_session_window(r, (int64_t)f.window_lo,
					      (int64_t)f.window_hi);
	if (!r) {
		if (src.fd != STDIN_FILENO)
			close(src.fd);
		return 1;
	}
	ret = fxtrace_walk(r, fxtrace_read_source, &src, NULL, NULL);
	if (ret < 0)
		fxtrace_read_failed("check", path, src.fd, r, ret);
	if (src.fd != STDIN_FILENO)
		close(src.fd);
	if (ret < 0) {
		fxt_reader_free(r);
		return 1;
	}
	printf("%s: %" PRIu64 " record%s, %" PRIu64 " error%s, %" PRIu64
	       " warning%s, %" PRIu64 " note%s\n", path, fxt_reader_records(r),
	       plural(fxt_reader_records(r)), c.counts[FXT_ERROR],
	       plural(c.counts[FXT_ERROR]), c.counts[FXT_WARNING],
	       plural(c.counts[FXT_WARNING]), c.counts[FXT_NOTE],
	       plural(c.counts[FXT_NOTE]));
	fxt_reader_free(r);
	if (!c.counts[FXT_ERROR])
		return 0;
	if (c.flushed != UINT64_MAX && !c.errors_before_mark) {
		fprintf(stderr, "fxtrace check: %s: well formed up to the flush watermark 0x%06" PRIx64
			" only; the drainer stopped while writing the %" PRIu64
			" bytes after it ('fxtrace recover %s' cuts them)\n",
			path, c.flushed, f.size - c.flushed, path);
		return EXIT_PARTIAL;
	}
	return 1;
}
