// SPDX-License-Identifier: GPL-2.0
/* The LTTng-UST tracepoint provider of stream_bench. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tools/bench/stream_tp.h"
