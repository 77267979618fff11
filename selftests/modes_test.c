// SPDX-License-Identifier: GPL-2.0
/*
 * Buffering modes end to end: producer threads write through libfxtrace
 * (its module backend), the test is the controller (libfxtctl), and the
 * records are decoded back with the project's strict decoder.  Every
 * record a producer attempted is either read intact or counted as
 * dropped.  Run as root in the guest with fxtrace.ko loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fxtrace/trace.h>
#include <linux/fxt.h>

#include "fxt_reader.h"
#include "fxtctl.h"
#include "kselftest_harness.h"
#include "fxtrace_selftest.h"

#define KiB 1024ULL

/* ---- decoding a buffer ------------------------------------------------- */

struct events {
	long long *ticks;		/* the "i" argument of "tick" events */
	size_t nticks, cap;
	size_t others;			/* events with other names */
	uint64_t errors, warnings;
	uint64_t last_ts;
	bool ts_backwards;
	char names[8][32];		/* names of the first "other" events */
};

static int on_record(void *ctx, const struct fxt_record *rec)
{
	struct events *ev = ctx;

	if (rec->type != FXT_REC_EVENT)
		return 0;
	if (rec->ts < ev->last_ts)
		ev->ts_backwards = true;
	ev->last_ts = rec->ts;
	if (fxt_string_is(&rec->name, "tick")) {
		/* TRACE_INSTANT's scope argument comes first. */
		const struct fxt_arg *i = &rec->args[rec->nargs - 1];

		if (!fxt_string_is(&i->name, "i") || i->type != FXT_ARG_INT64)
			return -EINVAL;
		if (ev->nticks == ev->cap) {
			ev->cap = ev->cap ? 2 * ev->cap : 1024;
			ev->ticks = realloc(ev->ticks, ev->cap * sizeof(*ev->ticks));
		}
		ev->ticks[ev->nticks++] = i->value.i64;
		return 0;
	}
	if (ev->others < 8 && rec->name.ptr)
		snprintf(ev->names[ev->others], sizeof(ev->names[0]), "%.*s",
			 (int)rec->name.len, rec->name.ptr);
	ev->others++;
	return 0;
}

/* Decode spans (magic first) into ev with a whole-trace reader. */
static void decode_spans(const struct fxtctl_span *spans, unsigned int n,
			 struct events *ev)
{
	size_t len = 8, off;
	unsigned char *buf;
	struct fxt_reader *r;
	unsigned int i;

	for (i = 0; i < n; i++)
		len += spans[i].len;
	buf = malloc(len);
	*(uint64_t *)buf = FXT_MAGIC_WORD;
	for (off = 8, i = 0; i < n; i++) {
		memcpy(buf + off, spans[i].ptr, spans[i].len);
		off += spans[i].len;
	}
	r = fxt_reader_new(NULL, NULL);
	fxt_reader_read_buffer(r, buf, len, on_record, ev);
	ev->errors += fxt_reader_count(r, FXT_ERROR);
	ev->warnings += fxt_reader_count(r, FXT_WARNING);
	fxt_reader_free(r);
	free(buf);
}

/* ---- producers --------------------------------------------------------- */

struct producer {
	pthread_t thread;
	long count;			/* events to emit */
	long pause_every;		/* sleep 1 ms every this many, or 0 */
	__u32 tid;
	uint64_t dropped;		/* libfxtrace's count for the thread */
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	long i;

	p->tid = (__u32)syscall(SYS_gettid);
	for (i = 0; i < p->count; i++) {
		TRACE_INSTANT("app", "tick", FXT_SCOPE_THREAD, FXT_ARG("i", (long long)i));
		if (p->pause_every && i % p->pause_every == p->pause_every - 1)
			usleep(1000);
	}
	p->dropped = fxt_thread_dropped();
	return NULL;
}

static void run_producers(struct producer *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		pthread_create(&p[i].thread, NULL, produce, &p[i]);
	for (i = 0; i < n; i++)
		pthread_join(p[i].thread, NULL);
}

/* ---- the controller ---------------------------------------------------- */

FIXTURE(ctl) {
	struct fxtctl c;
};

FIXTURE_SETUP(ctl)
{
	FXT_SELFTEST_REQUIRE_DEVICE();
	ASSERT_EQ(0, fxtctl_open(&self->c));
	/* A session left behind by a crashed test: adopt and end it. */
	if (!fxtctl_adopt(&self->c)) {
		fxtctl_terminate(&self->c);
		fxtctl_close(&self->c);
		ASSERT_EQ(0, fxtctl_open(&self->c));
	}
}

FIXTURE_TEARDOWN(ctl)
{
	fxtctl_terminate(&self->c);
	fxtctl_close(&self->c);
}

static int start_session(struct fxtctl *c, unsigned int mode, __u64 task_size,
			 const char *cats, size_t cats_size)
{
	struct fxtrace_config cfg = {
		.size = sizeof(cfg),
		.mode = mode,
		.cpu_buffer_size = 64 * KiB,
		.task_buffer_size = task_size,
		.categories = (__u64)(uintptr_t)cats,
		.categories_size = (__u32)cats_size,
	};
	int ret = fxtctl_init(c, &cfg);

	return ret ? ret : fxtctl_start(c, FXTRACE_START_CLEAR_ALL);
}

/*
 * Read packets without blocking until none is left; save and acknowledge
 * each SAVE_BUFFER; note task buffers added.  Returns the packets seen.
 */
struct drain {
	__u32 task_ids[64];
	unsigned int ntasks;
	struct events saved[64];	/* by index in task_ids */
	unsigned int saves, cpu_saves, retired, stopped;
};

static int task_index(struct drain *d, __u32 id)
{
	unsigned int i;

	for (i = 0; i < d->ntasks; i++)
		if (d->task_ids[i] == id)
			return (int)i;
	return -1;
}

static int handle_packet(struct fxtctl *c, struct drain *d,
			 const struct fxtrace_packet *pkt)
{
	struct fxtctl_buffer *b;
	struct fxtctl_span spans[FXTCTL_SPANS_MAX];
	int i;

	switch (pkt->request) {
	case FXTRACE_PKT_BUFFER_ADDED:
		if (pkt->data16 == FXTRACE_BUFFER_TASK && d->ntasks < 64)
			d->task_ids[d->ntasks++] = pkt->data32;
		return 0;
	case FXTRACE_PKT_BUFFER_RETIRED:
		d->retired++;
		return 0;
	case FXTRACE_PKT_STOPPED:
		d->stopped++;
		return 0;
	case FXTRACE_PKT_SAVE_BUFFER:
		i = task_index(d, pkt->data32);
		if (i < 0) {
			/* A CPU buffer: the kernel's events are not checked here. */
			d->cpu_saves++;
			return fxtctl_ack(c, pkt);
		}
		b = fxtctl_buffer(c, pkt->data32);
		if (!b)
			return -ENOENT;
		/* The durable part first, for the strings the half refers to. */
		fxtctl_buffer_spans(b, ~0ULL, spans);
		spans[1] = fxtctl_save_span(b, pkt->data64);
		decode_spans(spans, 2, &d->saved[i]);
		d->saves++;
		return fxtctl_ack(c, pkt);
	}
	return 0;
}

struct reader_thread {
	pthread_t thread;
	struct fxtctl *c;
	struct drain *d;
	int error;
};

/* Blocking reads until STOPPED, as a drainer would. */
static void *read_packets(void *arg)
{
	struct reader_thread *rt = arg;
	struct fxtrace_packet pkts[16];
	ssize_t n, i;

	while (!rt->d->stopped && !rt->error) {
		n = fxtctl_read_packets(rt->c, pkts, 16);
		if (n < 0) {
			rt->error = (int)n;
			break;
		}
		for (i = 0; i < n && !rt->error; i++)
			rt->error = handle_packet(rt->c, rt->d, &pkts[i]);
	}
	return NULL;
}

/* Everything left in task buffer index i after the session stopped. */
static void read_rest(struct fxtctl *c, struct drain *d, unsigned int i,
		      struct events *ev)
{
	struct fxtctl_buffer *b = fxtctl_buffer(c, d->task_ids[i]);
	struct fxtctl_span spans[FXTCTL_SPANS_MAX];
	unsigned int n;

	n = fxtctl_buffer_spans(b, b->hdr->saved_wraps, spans);
	decode_spans(spans, n, ev);
}

/*
 * The ticks of one producer, from saves then the rest: strictly increasing,
 * consecutive if contiguous.  Returns how many.
 */
static long check_sequence(struct __test_metadata *_metadata,
			   const struct events *saved, const struct events *rest,
			   bool contiguous)
{
	const struct events *parts[2] = { saved, rest };
	long long prev = -1;
	long total = 0;
	size_t i;
	int p;

	for (p = 0; p < 2; p++) {
		if (!parts[p])
			continue;
		EXPECT_EQ(0, parts[p]->errors);
		EXPECT_EQ(0, parts[p]->warnings);
		EXPECT_FALSE(parts[p]->ts_backwards);
		for (i = 0; i < parts[p]->nticks; i++) {
			long long v = parts[p]->ticks[i];

			if (contiguous && prev >= 0) {
				EXPECT_EQ(prev + 1, v);
			} else {
				EXPECT_LT(prev, v);
			}
			prev = v;
		}
		total += (long)parts[p]->nticks;
	}
	return total;
}

/* Oneshot: records until the buffer is full, then exact drop counts. */
TEST_F(ctl, oneshot_counts_every_drop)
{
	struct producer p = { .count = 5000 };
	struct drain d = { 0 };
	struct events ev = { 0 };
	struct fxtrace_packet pkts[64];
	struct fxtctl_buffer *b;
	ssize_t n, i;

	ASSERT_EQ(0, start_session(&self->c, FXTRACE_MODE_ONESHOT, 16 * KiB,
				   NULL, 0));
	run_producers(&p, 1);
	ASSERT_EQ(0, fxtctl_stop(&self->c));
	n = fxtctl_read_packets(&self->c, pkts, 64);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, handle_packet(&self->c, &d, &pkts[i]));
	ASSERT_EQ(1, d.ntasks);
	b = fxtctl_buffer(&self->c, d.task_ids[0]);
	ASSERT_NE(NULL, b);
	/* The thread exited: its buffer is retired, its header final. */
	EXPECT_EQ(FXTRACE_BUFFER_RETIRED, b->hdr->state);
	EXPECT_EQ(p.tid, b->hdr->tid);
	EXPECT_EQ(getpid(), b->hdr->pid);
	EXPECT_EQ(1, b->hdr->wrap_count);
	read_rest(&self->c, &d, 0, &ev);
	EXPECT_EQ(0, ev.others);
	EXPECT_GT(ev.nticks, 100);
	EXPECT_GT(p.dropped, 0);
	/* Ticks 0..k-1 are there, the other 5000 - k were counted. */
	EXPECT_EQ(ev.nticks, check_sequence(_metadata, NULL, &ev, true));
	EXPECT_EQ(0, ev.ticks[0]);
	EXPECT_EQ(5000, ev.nticks + p.dropped);
	EXPECT_EQ(p.dropped, b->hdr->dropped_records);
	TH_LOG("oneshot 16 KiB: %zu records kept, %llu dropped", ev.nticks,
	       (unsigned long long)p.dropped);
}

/* Circular: the newest records, contiguous up to the last one. */
TEST_F(ctl, circular_keeps_the_newest)
{
	struct producer p = { .count = 5000 };
	struct events ev = { 0 };
	struct drain d = { 0 };
	struct fxtrace_packet pkts[64];
	struct fxtctl_buffer *b;
	ssize_t n, i;

	ASSERT_EQ(0, start_session(&self->c, FXTRACE_MODE_CIRCULAR, 16 * KiB,
				   NULL, 0));
	run_producers(&p, 1);
	ASSERT_EQ(0, fxtctl_stop(&self->c));
	n = fxtctl_read_packets(&self->c, pkts, 64);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, handle_packet(&self->c, &d, &pkts[i]));
	ASSERT_EQ(1, d.ntasks);
	b = fxtctl_buffer(&self->c, d.task_ids[0]);
	ASSERT_NE(NULL, b);
	EXPECT_GT(b->hdr->wrap_count, 2);
	read_rest(&self->c, &d, 0, &ev);
	EXPECT_EQ(0, p.dropped);
	ASSERT_GT(ev.nticks, 100);
	check_sequence(_metadata, NULL, &ev, true);
	EXPECT_EQ(4999, ev.ticks[ev.nticks - 1]);
	TH_LOG("circular 16 KiB: the last %zu of 5000 records, %llu wraps",
	       ev.nticks, (unsigned long long)b->hdr->wrap_count);
}

/*
 * Streaming: halves are saved and acknowledged while the producer runs;
 * saved + left + dropped == attempted, in order, nothing twice.
 */
static void streaming_run(struct __test_metadata *_metadata, struct fxtctl *c,
			  int nproducers, long count, long pause_every)
{
	struct producer p[8] = { 0 };
	struct reader_thread rt = { .c = c };
	struct drain *d = calloc(1, sizeof(*d));
	struct events rest[8] = { 0 };
	unsigned int j;
	int i;

	rt.d = d;
	ASSERT_EQ(0, start_session(c, FXTRACE_MODE_STREAMING, 16 * KiB, NULL, 0));
	pthread_create(&rt.thread, NULL, read_packets, &rt);
	for (i = 0; i < nproducers; i++) {
		p[i].count = count;
		p[i].pause_every = pause_every;
	}
	run_producers(p, nproducers);
	ASSERT_EQ(0, fxtctl_stop(c));
	pthread_join(rt.thread, NULL);
	ASSERT_EQ(0, rt.error);
	ASSERT_EQ(nproducers, d->ntasks);
	EXPECT_GT(d->saves, 0);
	for (i = 0; i < nproducers; i++) {
		struct fxtctl_buffer *b = NULL;
		long total;

		for (j = 0; j < d->ntasks; j++) {
			b = fxtctl_buffer(c, d->task_ids[j]);
			if (b && b->hdr->tid == p[i].tid)
				break;
		}
		ASSERT_LT(j, d->ntasks);
		read_rest(c, d, j, &rest[i]);
		total = check_sequence(_metadata, &d->saved[j], &rest[i],
				       p[i].dropped == 0);
		EXPECT_EQ(count, total + (long)p[i].dropped);
		TH_LOG("producer %d: %ld saved or left + %llu dropped, %llu halves saved",
		       i, total, (unsigned long long)p[i].dropped,
		       (unsigned long long)b->hdr->saved_wraps);
	}
	free(d);
}

TEST_F(ctl, streaming_saves_and_acks)
{
	/* Paced so the controller keeps up: nothing may be dropped. */
	streaming_run(_metadata, &self->c, 1, 4000, 50);
}

TEST_F_TIMEOUT(ctl, streaming_stress_many_threads, 120)
{
	streaming_run(_metadata, &self->c, 8, 20000, 0);
}

/* Only enabled categories reach the buffer; the enable byte says so. */
TEST_F(ctl, categories_filter_events)
{
	static const char cats[] = "app\0net.*";
	struct events ev = { 0 };
	struct drain d = { 0 };
	struct fxtrace_packet pkts[64];
	ssize_t n, i;

	ASSERT_EQ(0, start_session(&self->c, FXTRACE_MODE_ONESHOT, 64 * KiB,
				   cats, sizeof(cats)));
	EXPECT_TRUE(fxt_category_enabled("app"));
	EXPECT_TRUE(fxt_category_enabled("net.rx"));
	EXPECT_FALSE(fxt_category_enabled("disk"));
	TRACE_INSTANT("app", "seen", FXT_SCOPE_THREAD);
	TRACE_INSTANT("disk", "unseen", FXT_SCOPE_THREAD);
	TRACE_INSTANT("net.rx", "also seen", FXT_SCOPE_THREAD);
	ASSERT_EQ(0, fxtctl_stop(&self->c));
	/* Stopped: every category reads as off. */
	EXPECT_FALSE(fxt_category_enabled("app"));
	TRACE_INSTANT("app", "after stop", FXT_SCOPE_THREAD);
	n = fxtctl_read_packets(&self->c, pkts, 64);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, handle_packet(&self->c, &d, &pkts[i]));
	ASSERT_EQ(1, d.ntasks);
	read_rest(&self->c, &d, 0, &ev);
	ASSERT_EQ(2, ev.others);
	EXPECT_STREQ("seen", ev.names[0]);
	EXPECT_STREQ("also seen", ev.names[1]);
}

/* Start dispositions act on a producer's buffer at its next event. */
TEST_F(ctl, start_dispositions)
{
	struct events ev;
	struct drain d = { 0 };
	struct fxtrace_packet pkts[64];
	ssize_t n, i;

	ASSERT_EQ(0, start_session(&self->c, FXTRACE_MODE_ONESHOT, 64 * KiB,
				   NULL, 0));
	TRACE_INSTANT("app", "first", FXT_SCOPE_THREAD);
	ASSERT_EQ(0, fxtctl_stop(&self->c));
	ASSERT_EQ(0, fxtctl_start(&self->c, FXTRACE_START_RETAIN));
	TRACE_INSTANT("app", "second", FXT_SCOPE_THREAD);
	ASSERT_EQ(0, fxtctl_stop(&self->c));
	n = fxtctl_read_packets(&self->c, pkts, 64);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, handle_packet(&self->c, &d, &pkts[i]));
	ASSERT_EQ(1, d.ntasks);
	memset(&ev, 0, sizeof(ev));
	read_rest(&self->c, &d, 0, &ev);
	ASSERT_EQ(2, ev.others);
	EXPECT_STREQ("first", ev.names[0]);
	EXPECT_STREQ("second", ev.names[1]);

	/* The rolling data goes, the strings stay defined. */
	ASSERT_EQ(0, fxtctl_start(&self->c, FXTRACE_START_CLEAR_NONDURABLE));
	TRACE_INSTANT("app", "third", FXT_SCOPE_THREAD);
	ASSERT_EQ(0, fxtctl_stop(&self->c));
	memset(&ev, 0, sizeof(ev));
	read_rest(&self->c, &d, 0, &ev);
	ASSERT_EQ(1, ev.others);
	EXPECT_STREQ("third", ev.names[0]);
	EXPECT_EQ(0, ev.errors);

	ASSERT_EQ(0, fxtctl_start(&self->c, FXTRACE_START_CLEAR_ALL));
	TRACE_INSTANT("app", "fourth", FXT_SCOPE_THREAD);
	ASSERT_EQ(0, fxtctl_stop(&self->c));
	memset(&ev, 0, sizeof(ev));
	read_rest(&self->c, &d, 0, &ev);
	ASSERT_EQ(1, ev.others);
	EXPECT_STREQ("fourth", ev.names[0]);
	EXPECT_EQ(0, ev.errors);
	EXPECT_EQ(0, ev.warnings);
}

/* A forked child attaches a buffer of its own; the parent's stays intact. */
TEST_F(ctl, fork_child_attaches_its_own_buffer)
{
	struct drain d = { 0 };
	struct fxtrace_packet pkts[64];
	struct fxtctl_buffer *b[2];
	struct events ev[2] = { { 0 } };
	int status, k;
	ssize_t n, i;
	pid_t child;

	ASSERT_EQ(0, start_session(&self->c, FXTRACE_MODE_ONESHOT, 64 * KiB,
				   NULL, 0));
	TRACE_INSTANT("app", "parent", FXT_SCOPE_THREAD);
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		TRACE_INSTANT("app", "child", FXT_SCOPE_THREAD);
		_exit(fxt_thread_dropped() ? 1 : 0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	TRACE_INSTANT("app", "parent again", FXT_SCOPE_THREAD);
	ASSERT_EQ(0, fxtctl_stop(&self->c));
	n = fxtctl_read_packets(&self->c, pkts, 64);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, handle_packet(&self->c, &d, &pkts[i]));
	ASSERT_EQ(2, d.ntasks);
	for (k = 0; k < 2; k++) {
		b[k] = fxtctl_buffer(&self->c, d.task_ids[k]);
		ASSERT_NE(NULL, b[k]);
		read_rest(&self->c, &d, k, &ev[k]);
	}
	EXPECT_EQ(getpid(), b[0]->hdr->pid);
	EXPECT_EQ(FXTRACE_BUFFER_ACTIVE, b[0]->hdr->state);
	ASSERT_EQ(2, ev[0].others);
	EXPECT_STREQ("parent", ev[0].names[0]);
	EXPECT_STREQ("parent again", ev[0].names[1]);
	EXPECT_EQ(child, b[1]->hdr->pid);
	EXPECT_EQ(FXTRACE_BUFFER_RETIRED, b[1]->hdr->state);
	ASSERT_EQ(1, ev[1].others);
	EXPECT_STREQ("child", ev[1].names[0]);
}

/* Every event and argument type, as libfxtrace wrote them, read back. */
struct typed {
	int events[FXT_EVENT_TYPE_COUNT];
	int args[FXT_ARG_TYPE_COUNT];
	bool values_ok;
};

static int on_typed(void *ctx, const struct fxt_record *rec)
{
	struct typed *t = ctx;
	uint32_t i;

	if (rec->type != FXT_REC_EVENT || !fxt_string_is(&rec->category, "app"))
		return 0;
	t->events[rec->subtype]++;
	for (i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *a = &rec->args[i];

		t->args[a->type]++;
		if ((fxt_string_is(&a->name, "i32") && a->value.i64 != -7) ||
		    (fxt_string_is(&a->name, "u32") && a->value.u64 != 7) ||
		    (fxt_string_is(&a->name, "i64") && a->value.i64 != -70000000000L) ||
		    (fxt_string_is(&a->name, "u64") && a->value.u64 != 70000000000UL) ||
		    (fxt_string_is(&a->name, "dbl") && a->value.f64 != 2.5) ||
		    (fxt_string_is(&a->name, "str") && !fxt_string_is(&a->value.str, "text")) ||
		    (fxt_string_is(&a->name, "bool") && !a->value.b) ||
		    (fxt_string_is(&a->name, "ptr") && a->value.u64 != 0x1234) ||
		    (fxt_string_is(&a->name, "koid") && a->value.u64 != 4242))
			t->values_ok = false;
	}
	return 0;
}

/* A program's events reach the controller's buffers exactly. */
TEST_F(ctl, every_macro_through_the_module)
{
	struct fxtrace_buffer_info bi = { .size = sizeof(bi), .id = 1 };
	struct typed t = { .values_ok = true };
	struct fxtctl_buffer *b = NULL;
	struct fxt_reader *r;
	unsigned char *buf;
	size_t len;
	bool flag = true;
	uint64_t start;

	ASSERT_EQ(0, start_session(&self->c, FXTRACE_MODE_ONESHOT, 64 * KiB,
				   NULL, 0));
	TRACE_DURATION_BEGIN("app", "all types", FXT_ARG("i32", -7),
			     FXT_ARG("u32", 7u), FXT_ARG("i64", -70000000000L),
			     FXT_ARG("u64", 70000000000UL), FXT_ARG("dbl", 2.5),
			     FXT_ARG("str", "text"), FXT_ARG("bool", flag),
			     FXT_POINTER("ptr", (void *)0x1234),
			     FXT_KOID("koid", 4242), FXT_NULL("nil"));
	TRACE_DURATION_END("app", "all types");
	{
		TRACE_DURATION("app", "scoped");
	}
	TRACE_INSTANT("app", "instant", FXT_SCOPE_GLOBAL);
	TRACE_COUNTER("app", "load", 1, FXT_ARG("pending", 5));
	TRACE_ASYNC_BEGIN("app", "req", 99);
	TRACE_ASYNC_INSTANT("app", "req", 99);
	TRACE_ASYNC_END("app", "req", 99);
	TRACE_FLOW_BEGIN("app", "flow", 5);
	TRACE_FLOW_STEP("app", "flow", 5);
	TRACE_FLOW_END("app", "flow", 5);
	start = fxt_now();
	TRACE_COMPLETE("app", "complete", start);
	ASSERT_EQ(0, fxtctl_stop(&self->c));

	while (!b && !ioctl(self->c.fd, FXTRACE_IOC_BUFFER_INFO, &bi)) {
		b = fxtctl_buffer(&self->c, bi.id);
		ASSERT_NE(NULL, b);
		if (b->kind != FXTRACE_BUFFER_TASK)
			b = NULL;
		bi.id++;
	}
	ASSERT_NE(NULL, b);
	buf = fxtctl_buffer_copy(b, 0, &len);
	ASSERT_NE(NULL, buf);
	r = fxt_reader_new(NULL, NULL);
	ASSERT_EQ(0, fxt_reader_read_buffer(r, buf, len, on_typed, &t));
	EXPECT_EQ(0, fxt_reader_count(r, FXT_ERROR));
	EXPECT_EQ(0, fxt_reader_count(r, FXT_WARNING));
	fxt_reader_free(r);
	free(buf);

	EXPECT_EQ(2, t.events[FXT_EVENT_DURATION_BEGIN]);
	EXPECT_EQ(2, t.events[FXT_EVENT_DURATION_END]);
	EXPECT_EQ(1, t.events[FXT_EVENT_DURATION_COMPLETE]);
	EXPECT_EQ(1, t.events[FXT_EVENT_INSTANT]);
	EXPECT_EQ(1, t.events[FXT_EVENT_COUNTER]);
	EXPECT_EQ(1, t.events[FXT_EVENT_ASYNC_BEGIN]);
	EXPECT_EQ(1, t.events[FXT_EVENT_ASYNC_INSTANT]);
	EXPECT_EQ(1, t.events[FXT_EVENT_ASYNC_END]);
	EXPECT_EQ(1, t.events[FXT_EVENT_FLOW_BEGIN]);
	EXPECT_EQ(1, t.events[FXT_EVENT_FLOW_STEP]);
	EXPECT_EQ(1, t.events[FXT_EVENT_FLOW_END]);
	/* i32 and the counter's pending; the instant's scope string. */
	EXPECT_EQ(2, t.args[FXT_ARG_INT32]);
	EXPECT_EQ(1, t.args[FXT_ARG_UINT32]);
	EXPECT_EQ(1, t.args[FXT_ARG_INT64]);
	EXPECT_EQ(1, t.args[FXT_ARG_UINT64]);
	EXPECT_EQ(1, t.args[FXT_ARG_DOUBLE]);
	EXPECT_EQ(2, t.args[FXT_ARG_STRING]);
	EXPECT_EQ(1, t.args[FXT_ARG_BOOL]);
	EXPECT_EQ(1, t.args[FXT_ARG_POINTER]);
	EXPECT_EQ(1, t.args[FXT_ARG_KOID]);
	EXPECT_EQ(1, t.args[FXT_ARG_NULL]);
	EXPECT_TRUE(t.values_ok);
}

/*
 * Pause: while a snapshot is copied, producers and the kernel drop and
 * count every record; after Resume they write again.
 */
TEST_F(ctl, pause_drops_and_counts)
{
	static const char cats[] = "app\0kernel:syscall";
	struct events ev = { 0 };
	struct drain d = { 0 };
	struct fxtrace_packet pkts[64];
	struct fxtctl_buffer *cpu0;
	__u64 kernel_dropped = 0;
	ssize_t n, k;
	long i;

	ASSERT_EQ(0, start_session(&self->c, FXTRACE_MODE_CIRCULAR, 64 * KiB,
				   cats, sizeof(cats)));
	EXPECT_EQ(-EINVAL, fxtctl_resume(&self->c));
	for (i = 0; i < 300; i++) {
		if (i == 100)
			ASSERT_EQ(0, fxtctl_pause(&self->c));
		if (i == 100)
			EXPECT_EQ(-EINVAL, fxtctl_pause(&self->c));
		if (i == 200)
			ASSERT_EQ(0, fxtctl_resume(&self->c));
		TRACE_INSTANT("app", "tick", FXT_SCOPE_THREAD, FXT_ARG("i", (long long)i));
		if (i == 150) {
			/* The kernel's writers drop too: 50 syscalls here. */
			for (k = 0; k < 50; k++)
				syscall(SYS_getppid);
		}
	}
	EXPECT_EQ(100, fxt_thread_dropped());
	ASSERT_EQ(0, fxtctl_stop(&self->c));
	EXPECT_EQ(-EINVAL, fxtctl_pause(&self->c));
	n = fxtctl_read_packets(&self->c, pkts, 64);
	for (k = 0; k < n; k++)
		ASSERT_EQ(0, handle_packet(&self->c, &d, &pkts[k]));
	ASSERT_EQ(1, d.ntasks);
	read_rest(&self->c, &d, 0, &ev);
	ASSERT_EQ(200, ev.nticks);
	for (i = 0; i < 100; i++) {
		EXPECT_EQ(i, ev.ticks[i]);
		EXPECT_EQ(200 + i, ev.ticks[100 + i]);
	}
	for (k = 1; (cpu0 = fxtctl_buffer(&self->c, (__u32)k)) &&
		    cpu0->kind == FXTRACE_BUFFER_CPU; k++)
		kernel_dropped += cpu0->hdr->dropped_records;
	EXPECT_LE(100, kernel_dropped);
}

/*
 * The controller is killed mid-session: the session stops and waits,
 * orphaned; a new controller adopts it and reads every record the
 * producer wrote before the kill.
 */
TEST_F(ctl, controller_killed_then_adopted)
{
	struct fxtrace_session_info info = { .size = sizeof(info) };
	struct fxtrace_buffer_info bi = { .size = sizeof(bi), .id = 1 };
	pid_t child, tid = (pid_t)syscall(SYS_gettid);
	struct fxtctl_buffer *b = NULL;
	struct events ev = { 0 };
	struct fxtctl_span spans[FXTCTL_SPANS_MAX];
	int sync[2], status, i;
	char c;

	ASSERT_EQ(0, pipe(sync));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		struct fxtctl cc;

		if (fxtctl_open(&cc) ||
		    start_session(&cc, FXTRACE_MODE_ONESHOT, 64 * KiB, NULL, 0))
			_exit(1);
		if (write(sync[1], "s", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(sync[0], &c, 1));
	for (i = 0; i < 1000; i++)
		TRACE_INSTANT("app", "tick", FXT_SCOPE_THREAD, FXT_ARG("i", (long long)i));
	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(child, waitpid(child, &status, 0));

	ASSERT_EQ(0, ioctl(self->c.fd, FXTRACE_IOC_SESSION_INFO, &info));
	EXPECT_EQ(FXTRACE_STATE_STOPPED, info.state);
	EXPECT_EQ(FXTRACE_SESSION_ORPHANED, info.flags);
	ASSERT_EQ(0, fxtctl_adopt(&self->c));
	while (!ioctl(self->c.fd, FXTRACE_IOC_BUFFER_INFO, &bi)) {
		b = fxtctl_buffer(&self->c, bi.id);
		ASSERT_NE(NULL, b);
		if (b->kind == FXTRACE_BUFFER_TASK && b->hdr->tid == (__u32)tid)
			break;
		b = NULL;
		bi.id++;
	}
	ASSERT_NE(NULL, b);
	decode_spans(spans, fxtctl_buffer_spans(b, 0, spans), &ev);
	EXPECT_EQ(1000, check_sequence(_metadata, NULL, &ev, true));
	EXPECT_EQ(0, ev.ticks[0]);
	EXPECT_EQ(0, fxt_thread_dropped());
}

/* In a PID namespace, ATTACH still gives the init namespace's ids. */
TEST_F(ctl, attach_reports_init_namespace_ids)
{
	pid_t child, ids[3];
	int fds[2], inner_fds[2], status;

	ASSERT_EQ(0, start_session(&self->c, FXTRACE_MODE_ONESHOT, 64 * KiB,
				   NULL, 0));
	/* Two pipes: the two writers race. */
	ASSERT_EQ(0, pipe(fds));
	ASSERT_EQ(0, pipe(inner_fds));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		pid_t inner;

		if (unshare(CLONE_NEWPID))
			_exit(1);
		inner = fork();
		if (inner == 0) {
			struct fxtrace_attach at = { .size = sizeof(at) };
			int fd = open(FXTRACE_DEVICE, O_RDWR | O_CLOEXEC);

			if (fd < 0 || ioctl(fd, FXTRACE_IOC_ATTACH, &at))
				_exit(1);
			ids[0] = getpid();
			ids[1] = (pid_t)at.pid;
			ids[2] = (pid_t)at.tid;
			_exit(write(fds[1], ids, sizeof(ids)) == sizeof(ids) ? 0 : 1);
		}
		/* inner, as this namespace sees it, is its global pid. */
		if (write(inner_fds[1], &inner, sizeof(inner)) != sizeof(inner))
			_exit(1);
		waitpid(inner, &status, 0);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	}
	{
		pid_t inner;

		ASSERT_EQ(sizeof(inner), read(inner_fds[0], &inner, sizeof(inner)));
		ASSERT_EQ(sizeof(ids), read(fds[0], ids, sizeof(ids)));
		ASSERT_EQ(child, waitpid(child, &status, 0));
		ASSERT_EQ(0, WEXITSTATUS(status));
		EXPECT_EQ(1, ids[0]);
		EXPECT_EQ(inner, ids[1]);
		EXPECT_EQ(inner, ids[2]);
	}
}

TEST_HARNESS_MAIN
