// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace info: what this fxtrace speaks and what the loaded module speaks.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "fxtrace.h"

int cmd_info(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fxtrace_version v = { .size = sizeof(v) };
	int opt, fd, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (opt == 'h')
			return fxtrace_cmd_help("info");
		return fxtrace_option_error("info", opt, argv, options);
	}
	if (optind != argc)
		return fxtrace_usage_error("info", "unexpected argument '%s'",
					   argv[optind]);

	printf("fxtrace ABI:  %u.%u (uapi/linux/fxtrace.h)\n",
	       FXTRACE_ABI_MAJOR, FXTRACE_ABI_MINOR);
	fd = open(FXTRACE_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("module:       not loaded (%s: %s)\n", FXTRACE_DEVICE,
		       strerror(errno));
		return 1;
	}
	ret = ioctl(fd, FXTRACE_IOC_VERSION, &v);
	close(fd);
	if (ret) {
		printf("module:       %s: FXTRACE_IOC_VERSION: %s\n",
		       FXTRACE_DEVICE, strerror(errno));
		return 1;
	}
	printf("module ABI:   %u.%u, features 0x%llx\n", v.abi_major,
	       v.abi_minor, (unsigned long long)v.features);
	if (v.abi_major != FXTRACE_ABI_MAJOR) {
		printf("module:       incompatible ABI major version\n");
		return 1;
	}
	return 0;
}
