// SPDX-License-Identifier: GPL-2.0
/*
 * Description: every libfxtrace macro and argument type, in user-only mode,
 * decoded back from the trace with the project's decoder: exact records.
 * Also a full buffer (exact drops) and a signal handler emitting into a
 * thread that is inside fxt_emit().  Prints TAP.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fxtrace/trace.h>
#include <fxt_reader.h>
#include "../../tests/tap.h"


#define MAX_EVENTS 64

/* What the decoder saw: the events, in file order. */
static struct fxt_record events[MAX_EVENTS];
static int nevents;
static char names[MAX_EVENTS][64], cats[MAX_EVENTS][64];

static int collect(void *ctx, const struct fxt_record *rec)
{
	(void)ctx;
	if (rec->type != FXT_REC_EVENT || nevents == MAX_EVENTS)
		return 0;
	events[nevents] = *rec;
	snprintf(names[nevents], sizeof(names[0]), "%.*s",
		 (int)rec->name.len, rec->name.ptr ? rec->name.ptr : "?");
	snprintf(cats[nevents], sizeof(cats[0]), "%.*s",
		 (int)rec->category.len, rec->category.ptr ? rec->category.ptr : "?");
	/* Argument strings point into the buffer, which outlives the walk. */
	nevents++;
	return 0;
}

static const struct fxt_arg *arg(int e, const char *name)
{
	uint32_t i;

	for (i = 0; i < events[e].nargs; i++)
		if (fxt_string_is(&events[e].args[i].name, name))
			return &events[e].args[i];
	return NULL;
}

static void work(int n)
{
	TRACE_DURATION("app", "work", FXT_ARG("n", n));
	TRACE_INSTANT("app", "inside", FXT_SCOPE_THREAD);
}

static void emit_everything(void)
{
	uint64_t start;
	bool flag = true;	/* true itself is an int constant in C */
	int i32 = -7;

	TRACE_DURATION_BEGIN("app", "all types", FXT_ARG("i32", i32),
			     FXT_ARG("u32", 7u), FXT_ARG("i64", -70000000000L),
			     FXT_ARG("u64", 70000000000UL), FXT_ARG("dbl", 2.5),
			     FXT_ARG("str", "text"), FXT_ARG("bool", flag),
			     FXT_POINTER("ptr", (void *)0x1234),
			     FXT_KOID("koid", 4242), FXT_NULL("nil"));
	TRACE_DURATION_END("app", "all types");
	work(3);
	TRACE_COUNTER("app", "load", 1, FXT_ARG("pending", 5));
	TRACE_ASYNC_BEGIN("app", "req", 99);
	TRACE_ASYNC_INSTANT("app", "req", 99);
	TRACE_ASYNC_END("app", "req", 99);
	/* Inside a slice: Perfetto drops a flow event with none open. */
	TRACE_DURATION_BEGIN("app", "flows");
	TRACE_FLOW_BEGIN("app", "flow", 5);
	TRACE_FLOW_STEP("app", "flow", 5);
	TRACE_FLOW_END("app", "flow", 5);
	TRACE_DURATION_END("app", "flows");
	start = fxt_now();
	TRACE_COMPLETE("app", "complete", start);
	TRACE_INSTANT("off", "not recorded", FXT_SCOPE_GLOBAL);
	TRACE_INSTANT("net.rx", "glob matched", FXT_SCOPE_PROCESS);
}

static int decode(const char *path, struct fxt_reader **out)
{
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);
	FILE *f = fopen(path, "rb");
	static char buf[1 << 20];
	size_t len;

	if (!r || !f)
		return -1;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	nevents = 0;
	*out = r;
	return fxt_reader_read_buffer(r, buf, len, collect, NULL);
}

static void test_every_macro(const char *path)
{
	struct fxt_reader *r;
	const struct fxt_arg *a;
	int e;

	emit_everything();
	EXPECT_EQ(0, fxt_flush());
	tap_result("flush writes %s", path);
	EXPECT_EQ(0, decode(path, &r));
	tap_result("the trace decodes");
	EXPECT_EQ(0, fxt_reader_count(r, FXT_ERROR));
	EXPECT_EQ(0, fxt_reader_count(r, FXT_WARNING));
	tap_result("no errors or warnings (%llu, %llu)",
		   (unsigned long long)fxt_reader_count(r, FXT_ERROR),
		   (unsigned long long)fxt_reader_count(r, FXT_WARNING));
	EXPECT_EQ(16, nevents);
	tap_result("16 events recorded, got %d", nevents);
	for (e = 0; e < nevents && nevents != 16; e++)
		printf("# %d %s:%s\n", e, cats[e], names[e]);
	if (nevents != 16)
		return;

	e = 0;
	EXPECT_EQ(FXT_EVENT_DURATION_BEGIN, events[e].subtype);
	EXPECT_STR("all types", names[e]);
	EXPECT_STR("app", cats[e]);
	EXPECT_EQ(10, events[e].nargs);
	tap_result("begin \"all types\" with 10 args");
	a = arg(e, "i32");
	if (EXPECT_TRUE(a)) {
		EXPECT_EQ(FXT_ARG_INT32, a->type);
		EXPECT_EQ(-7, a->value.i64);
	}
	tap_result("int32 -7");
	a = arg(e, "u32");
	if (EXPECT_TRUE(a)) {
		EXPECT_EQ(FXT_ARG_UINT32, a->type);
		EXPECT_EQ(7, a->value.u64);
	}
	tap_result("uint32 7");
	a = arg(e, "i64");
	if (EXPECT_TRUE(a)) {
		EXPECT_EQ(FXT_ARG_INT64, a->type);
		EXPECT_EQ(-70000000000L, a->value.i64);
	}
	tap_result("int64 -7e10");
	a = arg(e, "u64");
	if (EXPECT_TRUE(a)) {
		EXPECT_EQ(FXT_ARG_UINT64, a->type);
		EXPECT_EQ(70000000000UL, a->value.u64);
	}
	tap_result("uint64 7e10");
	a = arg(e, "dbl");
	if (EXPECT_TRUE(a)) {
		EXPECT_EQ(FXT_ARG_DOUBLE, a->type);
		EXPECT_EQ(2.5, a->value.f64);
	}
	tap_result("double 2.5");
	a = arg(e, "str");
	if (EXPECT_TRUE(a)) {
		EXPECT_EQ(FXT_ARG_STRING, a->type);
		EXPECT_STRN("text", a->value.str.ptr, a->value.str.len);
	}
	tap_result("string \"text\"");
	a = arg(e, "bool");
	if (EXPECT_TRUE(a)) {
		EXPECT_EQ(FXT_ARG_BOOL, a->type);
		EXPECT_TRUE(a->value.b);
	}
	tap_result("bool true");
	a = arg(e, "ptr");
	if (EXPECT_TRUE(a)) {
		EXPECT_EQ(FXT_ARG_POINTER, a->type);
		EXPECT_EQ(0x1234, a->value.u64);
	}
	tap_result("pointer 0x1234");
	a = arg(e, "koid");
	if (EXPECT_TRUE(a)) {
		EXPECT_EQ(FXT_ARG_KOID, a->type);
		EXPECT_EQ(4242, a->value.u64);
	}
	tap_result("koid 4242");
	a = arg(e, "nil");
	if (EXPECT_TRUE(a)) {
		EXPECT_EQ(FXT_ARG_NULL, a->type);
	}
	tap_result("null");

	e = 1;
	EXPECT_EQ(FXT_EVENT_DURATION_END, events[e].subtype);
	tap_result("end");
	e = 2;
	EXPECT_EQ(FXT_EVENT_DURATION_BEGIN, events[e].subtype);
	EXPECT_STR("work", names[e]);
	if (EXPECT_TRUE(arg(e, "n"))) {
		EXPECT_EQ(3, arg(e, "n")->value.i64);
	}
	tap_result("scoped duration begins with n=3");
	e = 3;
	EXPECT_EQ(FXT_EVENT_INSTANT, events[e].subtype);
	EXPECT_STR("inside", names[e]);
	if (EXPECT_TRUE(arg(e, "scope"))) {
		EXPECT_STRN("thread", arg(e, "scope")->value.str.ptr,
			    arg(e, "scope")->value.str.len);
	}
	tap_result("instant inside it, scope thread");
	e = 4;
	EXPECT_EQ(FXT_EVENT_DURATION_END, events[e].subtype);
	EXPECT_CMP(events[e].ts, >=, events[3].ts);
	tap_result("scope exit ends the duration");
	e = 5;
	EXPECT_EQ(FXT_EVENT_COUNTER, events[e].subtype);
	EXPECT_EQ(1, events[e].id);
	if (EXPECT_TRUE(arg(e, "pending"))) {
		EXPECT_EQ(5, arg(e, "pending")->value.i64);
	}
	tap_result("counter id 1 pending=5");
	EXPECT_EQ(FXT_EVENT_ASYNC_BEGIN, events[6].subtype);
	EXPECT_EQ(99, events[6].id);
	EXPECT_EQ(FXT_EVENT_ASYNC_INSTANT, events[7].subtype);
	EXPECT_EQ(99, events[7].id);
	EXPECT_EQ(FXT_EVENT_ASYNC_END, events[8].subtype);
	EXPECT_EQ(99, events[8].id);
	tap_result("async begin/instant/end id 99");
	EXPECT_EQ(FXT_EVENT_DURATION_BEGIN, events[9].subtype);
	EXPECT_STR("flows", names[9]);
	EXPECT_EQ(FXT_EVENT_FLOW_BEGIN, events[10].subtype);
	EXPECT_EQ(5, events[10].id);
	EXPECT_EQ(FXT_EVENT_FLOW_STEP, events[11].subtype);
	EXPECT_EQ(FXT_EVENT_FLOW_END, events[12].subtype);
	EXPECT_EQ(5, events[12].id);
	EXPECT_EQ(FXT_EVENT_DURATION_END, events[13].subtype);
	tap_result("flow begin/step/end id 5 inside duration \"flows\"");
	e = 14;
	EXPECT_EQ(FXT_EVENT_DURATION_COMPLETE, events[e].subtype);
	EXPECT_CMP(events[e].end_ts, >=, events[e].ts);
	EXPECT_CMP(events[e].ts, >=, events[13].ts);
	tap_result("complete event from start to now");
	e = 15;
	EXPECT_STR("net.rx", cats[e]);
	EXPECT_STR("glob matched", names[e]);
	tap_result("category net.rx enabled by the glob net.*, category off is not");
	EXPECT_EQ((uint64_t)syscall(SYS_gettid), events[e].thread.tid);
	EXPECT_EQ((uint64_t)getpid(), events[e].thread.pid);
	tap_result("events carry this thread's pid/tid");
	for (e = 0; e < nevents - 1; e++)
		if (events[e + 1].ts < events[e].ts)
			break;
	EXPECT_EQ(nevents - 1, e);
	tap_result("timestamps never go back");
	fxt_reader_free(r);
}

/* Events in the trace at path named name (NULL: any) of thread tid. */
static int count_events(const char *path, const char *name, uint64_t tid)
{
	static char buf[1 << 20];
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);
	FILE *f = fopen(path, "rb");
	struct fxt_record rec;
	size_t len, off = 0;
	int count = 0;
	uint64_t need;
	ssize_t n;

	if (!r || !f)
		return -1;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off < len &&
	       (n = fxt_reader_next(r, buf + off, len - off, &rec, &need)) > 0) {
		if (rec.type == FXT_REC_EVENT && rec.thread.tid == tid &&
		    (!name || fxt_string_is(&rec.name, name)))
			count++;
		off += (size_t)n;
	}
	fxt_reader_free(r);
	return count;
}

struct filler {
	uint64_t tid, dropped;
};

/* A thread fills its 16 KiB buffer: every event is recorded or counted. */
static void *fill(void *arg)
{
	struct filler *f = arg;
	int i;

	f->tid = (uint64_t)syscall(SYS_gettid);
	for (i = 0; i < 10000; i++)
		TRACE_INSTANT("app", "fill", FXT_SCOPE_THREAD, FXT_ARG("i", i));
	f->dropped = fxt_thread_dropped();
	return NULL;
}

static void test_oneshot_drops(const char *path)
{
	struct filler f = { 0, 0 };
	pthread_t th;
	int filled;

	pthread_create(&th, NULL, fill, &f);
	pthread_join(th, NULL);
	fxt_flush();
	filled = count_events(path, "fill", f.tid);
	EXPECT_CMP(f.dropped, >, 0);
	EXPECT_EQ(10000, filled + (int)f.dropped);
	tap_result("oneshot: %d recorded + %llu dropped == 10000", filled,
		   (unsigned long long)f.dropped);
}

/*
 * Signals emit while the thread may be inside fxt_emit(): each attempt is
 * either recorded whole or counted as dropped, and the trace stays valid.
 */
static volatile int handler_calls;

static void handler(int sig)
{
	(void)sig;
	TRACE_INSTANT("app", "from signal", FXT_SCOPE_THREAD);
	handler_calls++;
}

static int test_signal_nesting(void)
{
	int i;

	signal(SIGALRM, handler);
	ualarm(20, 20);
	for (i = 0; i < 1000000 && handler_calls < 100; i++)
		TRACE_INSTANT("app", "busy", FXT_SCOPE_THREAD, FXT_ARG("i", i));
	ualarm(0, 0);
	signal(SIGALRM, SIG_DFL);
	EXPECT_CMP(handler_calls, >, 0);
	tap_result("the handler ran %d times", handler_calls);
	return i;
}

int main(void)
{
	char path[] = "/tmp/fxtrace-trace-test-XXXXXX";
	int fd = mkstemp(path), busy, recorded;
	struct fxt_reader *r;

	if (fd < 0)
		return 1;
	close(fd);
	setenv("FXTRACE_OUTPUT", path, 1);
	setenv("FXTRACE_CATEGORIES", "app,net.*", 1);
	setenv("FXTRACE_BUFFER_SIZE", "16K", 1);
	test_every_macro(path);
	test_oneshot_drops(path);
	busy = test_signal_nesting();
	fxt_flush();
	if (EXPECT_EQ(0, decode(path, &r))) {
		EXPECT_EQ(0, fxt_reader_count(r, FXT_ERROR));
		EXPECT_EQ(0, fxt_reader_count(r, FXT_WARNING));
	}
	tap_result("the final trace (signals included) has no error or warning");
	fxt_reader_free(r);
	/* The main thread tried 16 events, busy loop events, handler events. */
	recorded = count_events(path, NULL, (uint64_t)syscall(SYS_gettid));
	EXPECT_EQ(16 + busy + handler_calls, recorded + (int)fxt_thread_dropped());
	tap_result("main thread: %d recorded + %llu dropped == 16 + %d + %d attempted",
		   recorded, (unsigned long long)fxt_thread_dropped(), busy,
		   handler_calls);
	unlink(path);
	return tap_plan();
}
