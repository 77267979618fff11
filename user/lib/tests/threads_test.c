// SPDX-License-Identifier: GPL-2.0
/*
 * libfxtrace in user-only circular mode with many threads: interning
 * survives wraps (the durable part is never overwritten), concurrent
 * threads keep their own newest records, short-lived threads all appear
 * with their names, and a forked child writes a trace of its own.  TAP.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fxtrace/trace.h>
#include <linux/fxt.h>

#include "fxt_reader.h"
#include "../../tests/tap.h"


#define MAX_THREADS 256

/* Per thread: the "i" values of its "tick" events, in file order. */
struct seen {
	uint64_t tid;
	long first, last, count;
	bool contiguous, named;
};

static struct seen seen[MAX_THREADS];
static int nseen;

static struct seen *seen_for(uint64_t tid)
{
	int i;

	for (i = 0; i < nseen; i++)
		if (seen[i].tid == tid)
			return &seen[i];
	if (nseen == MAX_THREADS)
		return NULL;
	seen[nseen] = (struct seen){ .tid = tid, .first = -1, .last = -1,
				     .contiguous = true };
	return &seen[nseen++];
}

static int collect(void *ctx, const struct fxt_record *rec)
{
	struct seen *s;

	(void)ctx;
	if (rec->type == FXT_REC_KOBJ && rec->subtype == FXT_KOBJ_THREAD) {
		s = seen_for(rec->id);
		if (s)
			s->named = true;
		return 0;
	}
	if (rec->type != FXT_REC_EVENT || !fxt_string_is(&rec->name, "tick"))
		return 0;
	s = seen_for(rec->thread.tid);
	if (!s)
		return 0;
	if (s->count && rec->args[1].value.i64 != s->last + 1)
		s->contiguous = false;
	if (!s->count)
		s->first = rec->args[1].value.i64;
	s->last = rec->args[1].value.i64;
	s->count++;
	return 0;
}

/* Decode path; returns errors + warnings. */
static uint64_t decode(const char *path)
{
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);
	FILE *f = fopen(path, "rb");
	uint64_t problems;
	int fd;

	nseen = 0;
	if (!r || !f)
		return 1;
	fd = fileno(f);
	fxt_reader_read_fd(r, fd, collect, NULL);
	fclose(f);
	problems = fxt_reader_count(r, FXT_ERROR) + fxt_reader_count(r, FXT_WARNING);
	fxt_reader_free(r);
	return problems;
}

struct worker {
	pthread_t thread;
	long n;
	uint64_t tid;
};

/* Each tick carries a string argument whose name and value are interned. */
static void *tick(void *arg)
{
	struct worker *w = arg;
	long i;

	w->tid = (uint64_t)syscall(SYS_gettid);
	for (i = 0; i < w->n; i++)
		TRACE_INSTANT("app", "tick", FXT_SCOPE_THREAD, FXT_ARG("i", i),
			      FXT_ARG("what", "a string argument"));
	return NULL;
}

static void run(struct worker *w, int n, long events, bool concurrent)
{
	int i;

	for (i = 0; i < n; i++) {
		w[i].n = events;
		pthread_create(&w[i].thread, NULL, tick, &w[i]);
		if (!concurrent)
			pthread_join(w[i].thread, NULL);
	}
	for (i = 0; concurrent && i < n; i++)
		pthread_join(w[i].thread, NULL);
}

int main(void)
{
	char out[] = "/tmp/fxtrace-threads-test-XXXXXX", child_out[64];
	static struct worker many[8], churn[200];
	struct seen *s;
	int fd, i, status;
	pid_t child;

	fd = mkstemp(out);
	if (fd < 0)
		return 1;
	close(fd);
	setenv("FXTRACE_OUTPUT", out, 1);
	setenv("FXTRACE_MODE", "circular", 1);
	setenv("FXTRACE_BUFFER_SIZE", "16K", 1);

	/* 8 threads at once, 20000 records each: ~10 wraps per buffer. */
	run(many, 8, 20000, true);
	/* 200 short-lived threads, one after the other. */
	run(churn, 200, 10, false);
	fxt_flush();
	EXPECT_EQ(0, decode(out));
	tap_result("the trace decodes with no error or warning");
	for (i = 0; i < 8; i++) {
		s = seen_for(many[i].tid);
		if (!EXPECT_CMP(s->count, >, 0) || !EXPECT_TRUE(s->contiguous) ||
		    !EXPECT_EQ(19999, s->last) || !EXPECT_TRUE(s->named)) {
			printf("#     (thread %d of 8)\n", i);
			break;
		}
	}
	tap_result("each of 8 concurrent threads kept a contiguous tail ending at 19999, strings defined across wraps");
	for (i = 0; i < 200; i++) {
		s = seen_for(churn[i].tid);
		if (!EXPECT_EQ(10, s->count) || !EXPECT_EQ(0, s->first) ||
		    !EXPECT_TRUE(s->contiguous) || !EXPECT_TRUE(s->named)) {
			printf("#     (thread %d of 200)\n", i);
			break;
		}
	}
	tap_result("all 200 short-lived threads are there, 10 records each, named");

	/* A forked child writes OUTPUT.<pid> with only its own records. */
	fflush(stdout);
	child = fork();
	if (child == 0) {
		struct worker w = { .n = 7 };

		tick(&w);
		exit(0);
	}
	waitpid(child, &status, 0);
	snprintf(child_out, sizeof(child_out), "%s.%d", out, child);
	if (EXPECT_TRUE(WIFEXITED(status))) {
		EXPECT_EQ(0, decode(child_out));
		EXPECT_EQ(1, nseen);
		EXPECT_EQ((uint64_t)child, seen[0].tid);
		EXPECT_EQ(7, seen[0].count);
	}
	tap_result("the forked child's trace holds its 7 records only");
	unlink(child_out);
	unlink(out);
	return tap_plan();
}
