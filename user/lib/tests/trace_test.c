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
#include "tap.h"


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
	T(fxt_flush() == 0, "flush writes %s", path);
	T(decode(path, &r) == 0, "the trace decodes");
	T(fxt_reader_count(r, FXT_ERROR) == 0 &&
	  fxt_reader_count(r, FXT_WARNING) == 0,
	  "no errors or warnings (%llu, %llu)",
	  (unsigned long long)fxt_reader_count(r, FXT_ERROR),
	  (unsigned long long)fxt_reader_count(r, FXT_WARNING));
	T(nevents == 16, "16 events recorded, got %d", nevents);
	for (e = 0; e < nevents && nevents != 16; e++)
		printf("# %d %s:%s\n", e, cats[e], names[e]);
	if (nevents != 16)
		return;

	e = 0;
	T(events[e].subtype == FXT_EVENT_DURATION_BEGIN &&
	  !strcmp(names[e], "all types") && !strcmp(cats[e], "app") &&
	  events[e].nargs == 10, "begin \"all types\" with 10 args");
	a = arg(e, "i32");
	T(a && a->type == FXT_ARG_INT32 && a->value.i64 == -7, "int32 -7");
	a = arg(e, "u32");
	T(a && a->type == FXT_ARG_UINT32 && a->value.u64 == 7, "uint32 7");
	a = arg(e, "i64");
	T(a && a->type == FXT_ARG_INT64 && a->value.i64 == -70000000000L,
	  "int64 -7e10");
	a = arg(e, "u64");
	T(a && a->type == FXT_ARG_UINT64 && a->value.u64 == 70000000000UL,
	  "uint64 7e10");
	a = arg(e, "dbl");
	T(a && a->type == FXT_ARG_DOUBLE && a->value.f64 == 2.5, "double 2.5");
	a = arg(e, "str");
	T(a && a->type == FXT_ARG_STRING && fxt_string_is(&a->value.str, "text"),
	  "string \"text\"");
	a = arg(e, "bool");
	T(a && a->type == FXT_ARG_BOOL && a->value.b, "bool true");
	a = arg(e, "ptr");
	T(a && a->type == FXT_ARG_POINTER && a->value.u64 == 0x1234,
	  "pointer 0x1234");
	a = arg(e, "koid");
	T(a && a->type == FXT_ARG_KOID && a->value.u64 == 4242, "koid 4242");
	a = arg(e, "nil");
	T(a && a->type == FXT_ARG_NULL, "null");

	e = 1;
	T(events[e].subtype == FXT_EVENT_DURATION_END, "end");
	e = 2;
	T(events[e].subtype == FXT_EVENT_DURATION_BEGIN &&
	  !strcmp(names[e], "work") && arg(e, "n") && arg(e, "n")->value.i64 == 3,
	  "scoped duration begins with n=3");
	e = 3;
	T(events[e].subtype == FXT_EVENT_INSTANT && !strcmp(names[e], "inside") &&
	  arg(e, "scope") && fxt_string_is(&arg(e, "scope")->value.str, "thread"),
	  "instant inside it, scope thread");
	e = 4;
	T(events[e].subtype == FXT_EVENT_DURATION_END &&
	  events[e].ts >= events[3].ts, "scope exit ends the duration");
	e = 5;
	T(events[e].subtype == FXT_EVENT_COUNTER && events[e].id == 1 &&
	  arg(e, "pending") && arg(e, "pending")->value.i64 == 5,
	  "counter id 1 pending=5");
	T(events[6].subtype == FXT_EVENT_ASYNC_BEGIN && events[6].id == 99 &&
	  events[7].subtype == FXT_EVENT_ASYNC_INSTANT && events[7].id == 99 &&
	  events[8].subtype == FXT_EVENT_ASYNC_END && events[8].id == 99,
	  "async begin/instant/end id 99");
	T(events[9].subtype == FXT_EVENT_DURATION_BEGIN &&
	  !strcmp(names[9], "flows") &&
	  events[10].subtype == FXT_EVENT_FLOW_BEGIN && events[10].id == 5 &&
	  events[11].subtype == FXT_EVENT_FLOW_STEP &&
	  events[12].subtype == FXT_EVENT_FLOW_END && events[12].id == 5 &&
	  events[13].subtype == FXT_EVENT_DURATION_END,
	  "flow begin/step/end id 5 inside duration \"flows\"");
	e = 14;
	T(events[e].subtype == FXT_EVENT_DURATION_COMPLETE &&
	  events[e].end_ts >= events[e].ts && events[e].ts >= events[13].ts,
	  "complete event from start to now");
	e = 15;
	T(!strcmp(cats[e], "net.rx") && !strcmp(names[e], "glob matched"),
	  "category net.rx enabled by the glob net.*, category off is not");
	T(events[e].thread.tid == (uint64_t)syscall(SYS_gettid) &&
	  events[e].thread.pid == (uint64_t)getpid(),
	  "events carry this thread's pid/tid");
	for (e = 0; e < nevents - 1; e++)
		if (events[e + 1].ts < events[e].ts)
			break;
	T(e == nevents - 1, "timestamps never go back");
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
	T(f.dropped > 0 && filled + (int)f.dropped == 10000,
	  "oneshot: %d recorded + %llu dropped == 10000", filled,
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
	T(handler_calls > 0, "the handler ran %d times", handler_calls);
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
	T(decode(path, &r) == 0 && fxt_reader_count(r, FXT_ERROR) == 0 &&
	  fxt_reader_count(r, FXT_WARNING) == 0,
	  "the final trace (signals included) has no error or warning");
	fxt_reader_free(r);
	/* The main thread tried 16 events, busy loop events, handler events. */
	recorded = count_events(path, NULL, (uint64_t)syscall(SYS_gettid));
	T(recorded + (int)fxt_thread_dropped() == 16 + busy + handler_calls,
	  "main thread: %d recorded + %llu dropped == 16 + %d + %d attempted",
	  recorded, (unsigned long long)fxt_thread_dropped(), busy,
	  handler_calls);
	unlink(path);
	return tap_plan();
}
