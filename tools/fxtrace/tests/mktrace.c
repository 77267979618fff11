// SPDX-License-Identifier: GPL-2.0
/*
 * mktrace - a kernel-like trace for the report, dump and export tests,
 * written with the project's encoder (uapi/linux/fxt.h) from a simulated
 * schedule: two CPUs, two processes of two threads each (pinned, one pair
 * per CPU), context switches with blocked and preempted threads, wakeups
 * recorded on either CPU, kernel:syscall slices in the CPU buffers, nested
 * user durations (begin/end and complete) in each thread's buffer, drop
 * counters per buffer and a provider "buffer full" event.
 *
 * Records are laid out as the drainer does: chunks of each buffer in turn,
 * so file order is not time order.  Deterministic for a given SEED.
 *
 * Usage: mktrace OUT.fxt [SEED [SWITCHES]]
 * (SWITCHES per CPU, default 60: a larger one makes a trace for timing.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/fxt.h>

#define NCPUS		2
#define NBUFS		(NCPUS + 4)	/* the CPUs', then one per thread */
#define SWITCHES	60		/* per CPU, by default */
#define CHUNK		5		/* records per chunk */

struct rec {
	__u64 ts;
	__u32 n;
	__u64 w[24];
};

struct buf {
	struct rec *recs;
	size_t n, cap;
};

static struct buf bufs[NBUFS];
static unsigned long long rng;
static unsigned long switches = SWITCHES;

static const struct {
	__u64 pid, tid;
	const char *pname, *tname;
} threads[4] = {
	{ 100, 100, "client", "main" }, { 100, 101, "client", "worker" },
	{ 200, 200, "server", "accept" }, { 200, 201, "server", "io" },
};

static unsigned int rnd(unsigned int n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)(rng >> 33) % n;
}

static struct rec *add(unsigned int b, __u64 ts)
{
	struct buf *bf = &bufs[b];
	struct rec *r;

	if (bf->n == bf->cap) {
		bf->cap = bf->cap ? 2 * bf->cap : 64;
		bf->recs = realloc(bf->recs, bf->cap * sizeof(*bf->recs));
		if (!bf->recs) {
			perror("mktrace");
			exit(1);
		}
	}
	r = &bf->recs[bf->n++];
	r->ts = ts;
	r->n = 0;
	return r;
}

/* An event with an inline thread, category and name. */
static void event(unsigned int b, unsigned int type, int th, const char *cat,
		  const char *name, __u64 ts, __u64 trailing)
{
	__u16 cref = fxt_inline_string_ref(strlen(cat));
	__u16 nref = fxt_inline_string_ref(strlen(name));
	__u32 args = type == FXT_EVENT_COUNTER ? 2 * 3 : 0;
	struct rec *r = add(b, ts);

	r->w[r->n++] = fxt_event_hdr(fxt_event_words(type, 0, cref, nref, args),
				     type, args ? 2 : 0, 0, cref, nref);
	r->w[r->n++] = ts;
	r->w[r->n++] = threads[th].pid;
	r->w[r->n++] = threads[th].tid;
	r->n += fxt_write_stream(r->w + r->n, cat, strlen(cat));
	r->n += fxt_write_stream(r->w + r->n, name, strlen(name));
	if (args) {
		r->n += fxt_write_arg64(r->w + r->n, FXT_ARG_INT64,
					fxt_inline_string_ref(7), "records",
					trailing);
		r->n += fxt_write_arg64(r->w + r->n, FXT_ARG_INT64,
					fxt_inline_string_ref(7), "invalid", 0);
		trailing = 10 + b;	/* the counter id: one per buffer */
	}
	if (fxt_event_trailing_words(type))
		r->w[r->n++] = trailing;
}

static void weight(struct rec *r, const char *name, __u64 tid)
{
	r->n += fxt_write_arg32(r->w + r->n, FXT_ARG_INT32,
				fxt_inline_string_ref(strlen(name)), name,
				tid ? 120 : (__u32)FXT_SCHED_WEIGHT_IDLE);
}

static void cswitch(unsigned int cpu, __u64 ts, __u64 out, unsigned int state,
		    __u64 in)
{
	struct rec *r = add(cpu, ts);

	r->w[r->n++] = fxt_context_switch_hdr(4 + 3 + 3, 2, cpu, state);
	r->w[r->n++] = ts;
	r->w[r->n++] = out;
	r->w[r->n++] = in;
	weight(r, "incoming_weight", in);
	weight(r, "outgoing_weight", out);
}

static void wakeup(unsigned int cpu, __u64 ts, __u64 tid)
{
	struct rec *r = add(cpu, ts);

	r->w[r->n++] = fxt_wakeup_hdr(3 + 2, 1, cpu);
	r->w[r->n++] = ts;
	r->w[r->n++] = tid;
	r->n += fxt_write_arg32(r->w + r->n, FXT_ARG_INT32,
				fxt_inline_string_ref(6), "weight", 120);
}

/* What thread th does while it runs on cpu in [start, end). */
static void run(unsigned int cpu, int th, __u64 start, __u64 end)
{
	static const char *const calls[] = { "read", "write", "futex" };
	unsigned int b = NCPUS + th;
	__u64 a = start + 1 + rnd(100), z = end - 1 - rnd(100), s, e;
	const char *call;

	event(b, FXT_EVENT_DURATION_BEGIN, th, "app", "work", a, 0);
	s = a + 10 + rnd(50);
	e = s + 100 + rnd(400);
	event(b, FXT_EVENT_DURATION_COMPLETE, th, "app", "step", s, e);
	s = e + 5 + rnd(50);
	e = s + 50 + rnd(600);
	call = calls[rnd(3)];
	/* The end names the syscall too, as the module writes it. */
	event(cpu, FXT_EVENT_DURATION_BEGIN, th, "kernel:syscall", call, s, 0);
	event(cpu, FXT_EVENT_DURATION_END, th, "kernel:syscall", call, e, 0);
	if (rnd(2)) {
		s = e + 5 + rnd(50);
		e = s + 200 + rnd(300);
		event(b, FXT_EVENT_DURATION_BEGIN, th, "app", "inner", s, 0);
		event(b, FXT_EVENT_DURATION_COMPLETE, th, "app", "leaf", s + 20,
		      s + 20 + rnd(150));
		event(b, FXT_EVENT_DURATION_END, th, "app", "inner", e, 0);
	}
	if (rnd(3) == 0)
		event(b, FXT_EVENT_INSTANT, th, "app", "tick", e + 1, 0);
	event(b, FXT_EVENT_DURATION_END, th, "app", "work", z, 0);
}

static void simulate(unsigned int cpu)
{
	int mine[2] = { 2 * cpu, 2 * cpu + 1 }, blocked[2] = { 0, 0 };
	int cur = -1, next;	/* -1: idle (tid 0) */
	unsigned long i;
	__u64 t = 1000 + 37 * cpu, last = 0, len;
	unsigned int state;

	for (i = 0; i < switches; i++) {
		do
			next = rnd(4) == 0 ? -1 : mine[rnd(2)];
		while (next == cur);
		state = cur < 0 || rnd(2) ? FXT_THREAD_STATE_RUNNING :
					   FXT_THREAD_STATE_BLOCKED;
		if (next >= 0 && blocked[next - 2 * cpu]) {
			wakeup(rnd(NCPUS), t - 1 - rnd(t - last - 1),
			       threads[next].tid);
			blocked[next - 2 * cpu] = 0;
		}
		cswitch(cpu, t, cur < 0 ? 0 : threads[cur].tid, state,
			next < 0 ? 0 : threads[next].tid);
		if (cur >= 0)
			blocked[cur - 2 * cpu] = state == FXT_THREAD_STATE_BLOCKED;
		last = t;
		len = 3000 + rnd(20000);
		if (next >= 0)
			run(cpu, next, t, t + len);
		t += len;
		cur = next;
	}
}

static int by_ts(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int put(FILE *f, const __u64 *w, size_t n)
{
	return fwrite(w, sizeof(*w), n, f) == n ? 0 : -1;
}

int main(int argc, char **argv)
{
	__u64 w[32];
	size_t pos[NBUFS] = { 0 }, left = 1;
	unsigned int b, i, k;
	FILE *f;
	int err = 0;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: mktrace OUT.fxt [SEED [SWITCHES]]\n");
		return 2;
	}
	rng = argc >= 3 ? strtoull(argv[2], NULL, 0) : 1;
	if (argc == 4)
		switches = strtoul(argv[3], NULL, 0);
	for (b = 0; b < NCPUS; b++)
		simulate(b);
	/* A buffer is in time order; wakeups land in either CPU's. */
	for (b = 0; b < NBUFS; b++)
		qsort(bufs[b].recs, bufs[b].n, sizeof(*bufs[b].recs), by_ts);
	f = fopen(argv[1], "wb");
	if (!f) {
		fprintf(stderr, "mktrace: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	err |= put(f, w, fxt_write_magic(w));
	err |= put(f, w, fxt_write_init(w, 1000000000));
	for (i = 0; i < 4; i++) {
		if (i % 2 == 0)
			err |= put(f, w, fxt_write_kobj_name(w, FXT_KOBJ_PROCESS,
				threads[i].pid, threads[i].pname,
				strlen(threads[i].pname), 0));
		err |= put(f, w, fxt_write_kobj_name(w, FXT_KOBJ_THREAD,
			threads[i].tid, threads[i].tname,
			strlen(threads[i].tname), threads[i].pid));
	}
	while (left) {
		left = 0;
		for (b = 0; b < NBUFS; b++)
			for (k = 0; k < CHUNK && pos[b] < bufs[b].n; k++, pos[b]++)
				err |= put(f, bufs[b].recs[pos[b]].w,
					   bufs[b].recs[pos[b]].n);
		for (b = 0; b < NBUFS; b++)
			left += bufs[b].n - pos[b];
	}
	/* Each thread buffer's drop counter, at its last time. */
	for (b = NCPUS; b < NBUFS; b++) {
		__u64 end = bufs[b].n ? bufs[b].recs[bufs[b].n - 1].ts + 1 : 1;

		bufs[b].n = 0;
		event(b, FXT_EVENT_COUNTER, b - NCPUS, "fxtrace", "dropped",
		      end, b - 1);
		err |= put(f, bufs[b].recs[0].w, bufs[b].recs[0].n);
	}
	w[0] = fxt_provider_event_hdr(0, FXT_PROVIDER_EVENT_BUFFER_FULL);
	err |= put(f, w, 1);
	if (err | fclose(f)) {
		fprintf(stderr, "mktrace: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
