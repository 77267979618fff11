// SPDX-License-Identifier: GPL-2.0
/*
 * flow_hop begin|end ID: one "hop:work" duration holding a "hop:hop" flow
 * begin or end of correlation id ID, through libfxtrace; record_test.sh
 * runs the begin as root and the end as another user, to see whether
 * the drainer joins them (--shared-flows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fxtrace/trace.h>

int main(int argc, char **argv)
{
	uint64_t id;

	if (argc != 3 || (strcmp(argv[1], "begin") && strcmp(argv[1], "end"))) {
		fprintf(stderr, "usage: flow_hop begin|end ID\n");
		return 2;
	}
	id = strtoull(argv[2], NULL, 0);
	{
		TRACE_DURATION("hop", "work");
		if (!strcmp(argv[1], "begin"))
			TRACE_FLOW_BEGIN("hop", "hop", id);
		else
			TRACE_FLOW_END("hop", "hop", id);
	}
	return 0;
}
