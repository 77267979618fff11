// SPDX-License-Identifier: GPL-2.0
/*
 * check.c - `fxtrace check`: is a file well-formed FXT?  Every problem the
 * decoder finds is printed with its offset, severity and rule; the summary
 * line counts them.  Warnings become errors with --strict; notes never fail.
 */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "fxtrace.h"

struct check {
	bool strict;
	bool quiet;
	uint64_t counts[FXT_SEVERITY_COUNT];
};

static void print_problem(void *ctx, const struct fxt_diag *diag)
{
	struct check *c = ctx;
	enum fxt_severity severity = diag->severity;

	if (c->strict && severity == FXT_WARNING)
		severity = FXT_ERROR;
	c->counts[severity]++;
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct check c = { 0 };
	struct fxtrace_source src;
	struct fxt_reader *r;
	const char *path, *perfetto = NULL;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":sqlh", options, NULL)) != -1) {
		switch (opt) {
		case 's':
			c.strict = true;
			break;
		case 'q':
			c.quiet = true;
			break;
		case 'l':
			list_rules();
			return 0;
		case 'p':
			perfetto = optarg ? optarg : "fxt";
			break;
		case 'h':
			return fxtrace_cmd_help("check");
		default:
			return fxtrace_option_error("check", opt, argv);
		}
	}
	if (argc - optind != 1)
		return fxtrace_usage_error("check", argc == optind ?
					   "no FILE given" : "one FILE only");
	if (perfetto)
		return fxtrace_check_perfetto(argc, argv, perfetto, c.quiet);
	path = argv[optind];
	src.fd = fxtrace_open_trace("check", path);
	if (src.fd < 0)
		return 1;
	/* A drainer file is checked up to its flush watermark. */
	r = NULL;
	if (!fxtrace_trace_limit("check", path, src.fd, &src.left)) {
		r = fxt_reader_new(print_problem, &c);
		if (!r)
			fprintf(stderr, "fxtrace check: out of memory\n");
	}
	if (!r) {
		if (src.fd != STDIN_FILENO)
			close(src.fd);
		return 1;
	}
	ret = fxt_reader_read(r, fxtrace_read_source, &src, NULL, NULL);
	if (src.fd != STDIN_FILENO)
		close(src.fd);
	if (ret < 0) {
		fprintf(stderr, "fxtrace check: cannot read %s: %s\n", path,
			strerror(-ret));
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
	return c.counts[FXT_ERROR] ? 1 : 0;
}
