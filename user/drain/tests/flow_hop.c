// SPDX-License-Identifier: GPL-2.0
/*
 * flow_hop begin|end ID [SECONDS]: one "hop:work" duration holding a
 * "hop:hop" flow begin or end of correlation id ID, through libfxtrace;
 * record_test.sh runs the begin as root and the end as another user, to
 * see whether the drainer joins them (--shared-flows).  With SECONDS it
 * then says "begin|end ID written" and lives that long: a circular
 * session's snapshot holds the buffers of live tasks only.
 *
 * flow_hop begins ID COUNT: the duration holds COUNT flow begins, of ids
 * ID to ID + COUNT - 1, none ended (traced_share_test.sh: more than a
 * process's share of open flows in the drainer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fxtrace/trace.h>

int main(int argc, char **argv)
{
	uint64_t id, i, count;

	if (argc == 4 && !strcmp(argv[1], "begins")) {
		id = strtoull(argv[2], NULL, 0);
		count = strtoull(argv[3], NULL, 0);
		TRACE_DURATION("hop", "work");
		for (i = 0; i < count; i++)
			TRACE_FLOW_BEGIN("hop", "hop", id + i);
		return 0;
	}
	if ((argc != 3 && argc != 4) ||
	    (strcmp(argv[1], "begin") && strcmp(argv[1], "end"))) {
		fprintf(stderr, "usage: flow_hop begin|end ID [SECONDS], flow_hop begins ID COUNT\n");
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
	if (argc == 4) {
		printf("%s %llu written\n", argv[1], (unsigned long long)id);
		fflush(stdout);
		sleep(atoi(argv[3]));
	}
	return 0;
}
