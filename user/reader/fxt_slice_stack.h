/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxt_slice_stack.h - a thread's slice stack as Perfetto's SliceTracker
 * keeps it (src/trace_processor/importers/common/slice_tracker.cc in
 * https://github.com/google/perfetto), in ns: what a flow event binds to.
 * The reader's checks (fxt_reader.c) and fxtrace-drain's judgement of flow
 * events (user/drain/slices.h) share it, so that the drainer never writes
 * a flow the reader would find outside any slice.
 *
 * At most FXT_SLICE_DEPTH_MAX frames, one per event pushed: memory linear
 * in the input and bounded per thread, and as many frames to look at per
 * event, as Perfetto looks at.
 */
#ifndef FXT_SLICE_STACK_H
#define FXT_SLICE_STACK_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "fxt_reader.h"

#define FXT_SLICE_PENDING	(-1)	/* Perfetto's dur of a slice still open */
#define FXT_SLICE_DEPTH_MAX	512	/* SliceTracker::kMaxDepth */
/*
 * fxt_slice_event(): a duration end found no begin open above the slices
 * still on the stack.  A stack that misses a begin beneath them (one saved
 * before this stack was started) would have it closed there, ended under
 * them: Perfetto then pops or cuts at its end what it does not pop here.
 */
#define FXT_SLICE_END_UNDER	1

/* A duration begin, a complete event or an instant on the stack. */
struct fxt_slice_frame {
	int64_t ts;		/* ns */
	int64_t dur;		/* ns, or FXT_SLICE_PENDING */
};

/*
 * fixed: the frames do not grow past cap (fxtrace-drain's stack of a
 * thread with no task buffer left): a push that needs more fails.
 */
struct fxt_slice_stack {
	struct fxt_slice_frame *frames;
	uint32_t depth, cap;
	bool fixed;
};

/*
 * What Perfetto loses that the stack shows, for the reader's warnings
 * (misplaced-end, complete-overlap); fxtrace-drain passes none.  cut: the
 * slices left open above a slice that ended at end_ns are cut there;
 * overlap: a complete event partly overlaps the slice from ts_ns to
 * end_ns and is dropped.  Told only when the slices involved, and the
 * event, are in time order: Perfetto sorts a trace's events by time
 * before it nests them, so a cut or drop of slices pushed out of time
 * order (a file's buffers saved out of order) is this stack's, not
 * Perfetto's.
 */
struct fxt_slice_report {
	void (*cut)(void *ctx, int64_t end_ns, uint32_t slices);
	void (*overlap)(void *ctx, int64_t ts_ns, int64_t end_ns);
	void *ctx;
};

/* The frames from i up, and then an event at ns, begin in time order. */
static inline bool fxt_slice_in_order(const struct fxt_slice_stack *s,
				      uint32_t i, int64_t ns)
{
	for (; i + 1 < s->depth; i++)
		if (s->frames[i + 1].ts < s->frames[i].ts)
			return false;
	return s->frames[i].ts <= ns;
}

/*
 * SliceTracker::MaybeCloseStack before a slice event at ns (dur: the new
 * slice's, or FXT_SLICE_PENDING): pops the slices that ended before it, or
 * at it unless both are instants, and cuts the begins left open inside
 * one that ended before it (misplaced_end_event).  False when a complete
 * event overlaps a slice partially: Perfetto drops it
 * (slice_drop_overlapping_complete_event).  rep may be NULL.
 */
static inline bool fxt_slice_settle(struct fxt_slice_stack *s, int64_t ns,
				    int64_t dur,
				    const struct fxt_slice_report *rep)
{
	bool open_child = false;
	int64_t end;
	uint32_t i;

	for (i = s->depth; i-- > 0;) {
		const struct fxt_slice_frame *f = &s->frames[i];

		end = f->ts + f->dur;
		if (f->dur == FXT_SLICE_PENDING) {
			open_child = true;
			continue;
		}
		if (open_child) {
			if (ns <= end)
				continue;
			if (rep && fxt_slice_in_order(s, i, ns))
				rep->cut(rep->ctx, end, s->depth - i - 1);
			s->depth = i;
			open_child = false;
			continue;
		}
		if (end < ns || (end == ns && !(f->dur == 0 && dur == 0))) {
			s->depth--;	/* the top, as Perfetto's StackPop */
			continue;
		}
		if (dur != FXT_SLICE_PENDING && ns < end && ns + dur > end) {
			if (rep && f->ts <= ns)
				rep->overlap(rep->ctx, f->ts, end);
			return false;
		}
	}
	return true;
}

/*
 * An event of the thread: type (FXT_EVENT_*), its time and a complete
 * event's end in ns.  A duration end, which names nothing, closes the
 * innermost open slice and pops it only if it is on top; an instant, a
 * complete event or a begin is pushed, unless dropped or 512 deep
 * (slice_max_depth_exceeded).  A complete event that ends before it
 * begins is dropped (Perfetto counts it as a timestamp overflow).
 * Returns -ENOMEM (no memory, or a fixed stack full), FXT_SLICE_END_UNDER
 * for a duration end that closes nothing while slices are left on the
 * stack, or 0.  rep (may be NULL) hears of what Perfetto cuts or drops.
 */
static inline int fxt_slice_event(struct fxt_slice_stack *s, unsigned int type,
				  int64_t ns, int64_t end_ns,
				  const struct fxt_slice_report *rep)
{
	struct fxt_slice_frame *p;
	int64_t dur;
	uint32_t i, cap;

	switch (type) {
	case FXT_EVENT_INSTANT:
		dur = 0;
		break;
	case FXT_EVENT_DURATION_COMPLETE:
		if (end_ns < ns)
			return 0;
		dur = end_ns - ns;
		break;
	case FXT_EVENT_DURATION_BEGIN:
		dur = FXT_SLICE_PENDING;
		break;
	case FXT_EVENT_DURATION_END:
		fxt_slice_settle(s, ns, FXT_SLICE_PENDING, rep);
		for (i = s->depth; i-- > 0;) {
			if (s->frames[i].dur != FXT_SLICE_PENDING)
				continue;
			s->frames[i].dur = ns - s->frames[i].ts;
			if (i == s->depth - 1)
				s->depth--;
			return 0;
		}
		return s->depth ? FXT_SLICE_END_UNDER : 0;
	default:
		return 0;
	}
	if (!fxt_slice_settle(s, ns, dur, rep) || s->depth >= FXT_SLICE_DEPTH_MAX)
		return 0;
	if (s->depth == s->cap) {
		if (s->fixed)
			return -ENOMEM;
		cap = s->cap ? s->cap * 2 : 8;
		p = realloc(s->frames, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->frames = p;
		s->cap = cap;
	}
	s->frames[s->depth++] = (struct fxt_slice_frame){ ns, dur };
	return 0;
}

static inline void fxt_slice_stack_free(struct fxt_slice_stack *s)
{
	free(s->frames);
	*s = (struct fxt_slice_stack){ 0 };
}

#endif /* FXT_SLICE_STACK_H */
