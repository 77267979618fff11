// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace - the command line: `fxtrace CMD [options] ARGS`.
 *
 * One dispatch table; each command lives in its own file and its help in
 * usage.c.  A new command is one line here and one entry there.
 */
#include <stdio.h>
#include <string.h>

#include <linux/fxtrace.h>

#include "fxtrace.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "check", cmd_check },
	{ "dump", cmd_dump },
	{ "stats", cmd_stats },
	{ "export", cmd_export },
	{ "info", cmd_info },
	{ "list", cmd_list },
	{ "record", cmd_record },
	{ "recover", cmd_recover },
	{ "report", cmd_report },
	{ "stop", cmd_stop },
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fxtrace_list_commands(stdout);
		return fxtrace_output_status(NULL, 0);
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		if (argc > 2 && strcmp(argv[1], "help") == 0)
			return fxtrace_output_status("help",
						     fxtrace_cmd_help(argv[2]));
		fxtrace_list_commands(stdout);
		return fxtrace_output_status(NULL, 0);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("fxtrace ABI %d.%d\n", FXTRACE_ABI_MAJOR,
		       FXTRACE_ABI_MINOR);
		return fxtrace_output_status(NULL, 0);
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return fxtrace_output_status(argv[1],
				commands[i].run(argc - 1, argv + 1));
	fprintf(stderr, "fxtrace: '%s' is not a command.\n\n", argv[1]);
	fxtrace_list_commands(stderr);
	return EXIT_USAGE;
}
