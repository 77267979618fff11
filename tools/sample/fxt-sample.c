// SPDX-License-Identifier: GPL-2.0
/*
 * fxt-sample: write a small, complete FXT trace with the project's encoder
 * (uapi/linux/fxt.h).  One process with two named threads: nested
 * durations, a counter, an async slice, a flow between the threads, and the
 * context switches and wakeup that hand the CPU from one to the other.
 *
 * Usage: fxt-sample OUT.fxt
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/fxt.h>

#define PID		1000
#define TID_MAIN	1000
#define TID_WORKER	1001
#define CPU		0
#define ASYNC_ID	7
#define FLOW_ID		42

enum { S_APP = 1, S_WORK, S_STEP, S_LOAD, S_QUEUE, S_REQUEST, S_HANDOFF,
       S_N, S_NAME, S_PENDING, S_BYTES, S_IN_WEIGHT, S_OUT_WEIGHT, S_WEIGHT,
       S_WAKER, S_DONE, S_HELLO };

static const char *const strings[] = {
	[S_APP] = "app",		[S_WORK] = "work",
	[S_STEP] = "step",		[S_LOAD] = "load",
	[S_QUEUE] = "queue",		[S_REQUEST] = "request",
	[S_HANDOFF] = "handoff",	[S_N] = "n",
	[S_NAME] = "name",		[S_PENDING] = "pending",
	[S_BYTES] = "bytes",		[S_IN_WEIGHT] = "incoming_weight",
	[S_OUT_WEIGHT] = "outgoing_weight", [S_WEIGHT] = "weight",
	[S_WAKER] = "waker",		[S_DONE] = "done",
	[S_HELLO] = "hello from the sample",
};

enum { T_MAIN = 1, T_WORKER };

static __u64 words[1024];
static __u32 n;

/* An event's header and timestamp; its arguments and trailing word follow. */
static void event(unsigned int type, __u8 thread, __u16 name, __u64 ts,
		  unsigned int nargs, __u32 arg_words)
{
	words[n++] = fxt_event_hdr(fxt_event_words(type, thread, S_APP, name,
						   arg_words),
				   type, nargs, thread, S_APP, name);
	words[n++] = ts;
}

static void trailing(__u64 word)
{
	words[n++] = word;
}

static void cswitch(__u64 ts, __u64 out_tid, unsigned int out_state,
		    __u64 in_tid)
{
	words[n++] = fxt_context_switch_hdr(6, 2, CPU, out_state);
	words[n++] = ts;
	words[n++] = out_tid;
	words[n++] = in_tid;
	n += fxt_write_arg32(words + n, FXT_ARG_INT32, S_IN_WEIGHT, NULL, 1024);
	n += fxt_write_arg32(words + n, FXT_ARG_INT32, S_OUT_WEIGHT, NULL, 1024);
}

static void build(void)
{
	__u32 i;

	n += fxt_write_magic(words + n);
	n += fxt_write_init(words + n, 1000000000);
	n += fxt_write_provider_info(words + n, 1, "fxt-sample", 10);
	for (i = 1; i < sizeof(strings) / sizeof(strings[0]); i++)
		n += fxt_write_string(words + n, (__u16)i, strings[i],
				      (__u32)strlen(strings[i]));
	n += fxt_write_thread(words + n, T_MAIN, PID, TID_MAIN);
	n += fxt_write_thread(words + n, T_WORKER, PID, TID_WORKER);
	n += fxt_write_kobj_name(words + n, FXT_KOBJ_PROCESS, PID,
				 "fxt-sample", 10, 0);
	n += fxt_write_kobj_name(words + n, FXT_KOBJ_THREAD, TID_MAIN,
				 "main", 4, PID);
	n += fxt_write_kobj_name(words + n, FXT_KOBJ_THREAD, TID_WORKER,
				 "worker", 6, PID);

	/* main runs "work" > "step", starts a request and a flow. */
	event(FXT_EVENT_DURATION_BEGIN, T_MAIN, S_WORK, 1000, 1, 2);
	n += fxt_write_arg64(words + n, FXT_ARG_UINT64, S_BYTES, NULL, 4096);
	event(FXT_EVENT_DURATION_BEGIN, T_MAIN, S_STEP, 1500, 1, 1);
	n += fxt_write_arg32(words + n, FXT_ARG_INT32, S_N, NULL, (__u32)-3);
	event(FXT_EVENT_ASYNC_BEGIN, T_MAIN, S_REQUEST, 2000, 1, 1);
	n += fxt_write_arg_string(words + n, S_NAME, NULL, S_QUEUE, NULL);
	trailing(ASYNC_ID);
	event(FXT_EVENT_FLOW_BEGIN, T_MAIN, S_HANDOFF, 2500, 0, 0);
	trailing(FLOW_ID);
	event(FXT_EVENT_COUNTER, T_MAIN, S_LOAD, 3000, 2, 3);
	n += fxt_write_arg32(words + n, FXT_ARG_INT32, S_PENDING, NULL, 3);
	n += fxt_write_arg64(words + n, FXT_ARG_DOUBLE, S_BYTES, NULL,
			     0x4059000000000000ULL);	/* 100.0 */
	trailing(1);					/* counter id */
	event(FXT_EVENT_DURATION_END, T_MAIN, S_STEP, 4000, 0, 0);

	/* main blocks; the worker runs. */
	cswitch(5000, TID_MAIN, FXT_THREAD_STATE_BLOCKED, TID_WORKER);
	event(FXT_EVENT_DURATION_BEGIN, T_WORKER, S_QUEUE, 5500, 0, 0);
	event(FXT_EVENT_FLOW_END, T_WORKER, S_HANDOFF, 6000, 0, 0);
	trailing(FLOW_ID);
	event(FXT_EVENT_ASYNC_INSTANT, T_WORKER, S_REQUEST, 6500, 0, 0);
	trailing(ASYNC_ID);
	event(FXT_EVENT_INSTANT, T_WORKER, S_DONE, 7000, 1, 1);
	n += fxt_write_arg_string(words + n, S_NAME, NULL, S_HELLO, NULL);
	event(FXT_EVENT_DURATION_COMPLETE, T_WORKER, S_STEP, 7200, 1, 1);
	n += fxt_write_arg32(words + n, FXT_ARG_BOOL, S_DONE, NULL, 1);
	trailing(7800);
	event(FXT_EVENT_DURATION_END, T_WORKER, S_QUEUE, 8000, 0, 0);

	/* The worker wakes main and blocks; main runs again and finishes. */
	words[n++] = fxt_wakeup_hdr(6, 2, CPU);
	words[n++] = 8500;
	words[n++] = TID_MAIN;
	n += fxt_write_arg32(words + n, FXT_ARG_INT32, S_WEIGHT, NULL, 1024);
	n += fxt_write_arg64(words + n, FXT_ARG_KOID, S_WAKER, NULL, TID_WORKER);
	cswitch(9000, TID_WORKER, FXT_THREAD_STATE_BLOCKED, TID_MAIN);
	event(FXT_EVENT_ASYNC_END, T_MAIN, S_REQUEST, 9500, 0, 0);
	trailing(ASYNC_ID);
	event(FXT_EVENT_DURATION_END, T_MAIN, S_WORK, 10000, 0, 0);
}

int main(int argc, char **argv)
{
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: fxt-sample OUT.fxt\n");
		return 2;
	}
	build();
	f = fopen(argv[1], "wb");
	if (!f || fwrite(words, sizeof(words[0]), n, f) != n || fclose(f)) {
		fprintf(stderr, "fxt-sample: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
