/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slices.h - a thread's slice stack as the reader sees it, for the
 * drainer's judgement of flow events (output.c, fastpass.c).
 *
 * A mirror of struct thread_state, check_duration() and check_sched()'s
 * dead threads in user/reader/fxt_reader.c, which raise rule
 * flow-no-enclosing-slice: the
 * reader cannot be called per record, so the few lines are repeated here
 * and must change with it.
 */
#ifndef DRAIN_SLICES_H
#define DRAIN_SLICES_H

#include <stdbool.h>
#include <stdint.h>

#include "fxt_reader.h"

/* The event types that push or pop the thread's slice stack. */
#define SLICE_EVENTS	(1u << FXT_EVENT_INSTANT | \
			 1u << FXT_EVENT_DURATION_BEGIN | \
			 1u << FXT_EVENT_DURATION_END | \
			 1u << FXT_EVENT_DURATION_COMPLETE)

struct slice_state {
	uint64_t pid;		/* of the tid's newest task buffer */
	uint64_t depth;		/* open duration begins */
	/*
	 * Complete and instant slices stay on the stack until a later slice
	 * event at or after their end pops them.
	 */
	bool scoped_open;
	uint64_t scoped_end;	/* ticks: latest end of those slices */
};

/*
 * A tid with task buffers.  The reader keeps one stack per pid and tid
 * (Perfetto's thread), pushed and popped by every buffer's slice events in
 * file order (the kernel's syscall slices in CPU buffers too).  Only the
 * stack of the process of the tid's newest task buffer holds flows the
 * drainer judges, so that is the one kept: the events of the tid's other
 * processes leave it as it is, and their flows are judged outside any
 * slice (refused at worst, never written unbound).
 */
struct thread_slices {
	uint32_t buffers;		/* its live task buffers */
	struct slice_state slices;
};

/*
 * An event of type written for the thread of process pid at ts; end is read
 * only for a complete event.  Other types, and another process's events
 * (another thread to Perfetto), leave the stack as it is.
 */
static inline void slice_event(struct slice_state *s, unsigned int type,
			       uint64_t pid, uint64_t ts, uint64_t end)
{
	if (!(SLICE_EVENTS >> type & 1))
		return;
	if (s->pid != pid)
		return;
	if (s->scoped_open && ts >= s->scoped_end)
		s->scoped_open = false;
	if (type == FXT_EVENT_INSTANT || type == FXT_EVENT_DURATION_COMPLETE) {
		if (type == FXT_EVENT_INSTANT)
			end = ts;
		if (!s->scoped_open || end > s->scoped_end)
			s->scoped_end = end;
		s->scoped_open = true;
	} else if (type == FXT_EVENT_DURATION_BEGIN) {
		s->depth++;
	} else if (s->depth) {
		s->depth--;
	}
}

/*
 * A context switch out of the tid in state dead: the reader forgets the
 * stacks of all its processes (check_sched()), and a tid used again starts
 * with none.
 */
static inline void slice_thread_dead(struct slice_state *s)
{
	*s = (struct slice_state){ .pid = s->pid };
}

/* A flow event of process pid now binds to a slice of the thread. */
static inline bool slice_open(const struct slice_state *s, uint64_t pid)
{
	return s->pid == pid && (s->depth || s->scoped_open);
}

#endif /* DRAIN_SLICES_H */
