/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LTTng-UST peer of stream_bench's fxtrace event: a 64-bit counter and
 * 32 bytes of text, 48 bytes with LTTng's compact event header (4 bytes,
 * padded to the counter's 8-byte alignment), as fxtrace's instant is.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER fxstream

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "tools/bench/stream_tp.h"

#if !defined(FXSTREAM_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define FXSTREAM_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(fxstream, tick,
	LTTNG_UST_TP_ARGS(long long, i, const char *, text),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(long long, i, i)
		lttng_ust_field_array_text(char, text, text, 32)
	)
)

#endif /* FXSTREAM_TP_H */

#include <lttng/tracepoint-event.h>
