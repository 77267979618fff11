/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LTTng-UST peer of user_bench: one tracepoint with two integer fields,
 * the same payload as fxtrace's begin with two int arguments.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER fxbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "tools/bench/lttng_tp.h"

#if !defined(FXBENCH_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define FXBENCH_LTTNG_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(fxbench, pair,
	LTTNG_UST_TP_ARGS(int, a, int, b),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, a, a)
		lttng_ust_field_integer(int, b, b)
	)
)

#endif /* FXBENCH_LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
