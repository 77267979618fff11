// SPDX-License-Identifier: GPL-2.0
/* events_body.h from C; FXTRACE_OUTPUT is argv[1] (cxx_same_test runs it). */
#include <stdlib.h>

#include <fxtrace/trace.h>

#include "events_body.h"

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	setenv("FXTRACE_OUTPUT", argv[1], 1);
	setenv("FXTRACE_CATEGORIES", "app", 1);
	emit_all();
	return 0;
}
