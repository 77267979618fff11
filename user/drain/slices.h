/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slices.h - a thread's slice stack as the reader sees it, for the
 * drainer's judgement of flow events (output.c, fastpass.c).
 *
 * A mirror of struct thread_state, check_duration() and check_sched()'s
 * dead threads in user/reader/fxt_reader.c, which raise rule
 * flow-no-enclosing-slice: the
 * reader cannot be called per record, so the few lines are repeated here
 * and must change with it; the stack itself is the reader's
 * (fxt_slice_stack.h).
 */
#ifndef DRAIN_SLICES_H
#define DRAIN_SLICES_H

#include <stdbool.h>
#include <stdint.h>

#include "fxt_reader.h"
#include "fxt_slice_stack.h"

/* The event types that push or pop the thread's slice stack. */
#define SLICE_EVENTS	(1u << FXT_EVENT_INSTANT | \
			 1u << FXT_EVENT_DURATION_BEGIN | \
			 1u << FXT_EVENT_DURATION_END | \
			 1u << FXT_EVENT_DURATION_COMPLETE)

/* slice_state.horizon of a stack with no older slices to wait out. */
#define SLICE_NO_HORIZON	INT64_MIN

struct slice_state {
	uint64_t pid;		/* of the tid's newest task buffer */
	struct fxt_slice_stack stack;
	/*
	 * ns: the reader may still hold slices of this pid and tid that the
	 * drainer forgot (output.c, fold_stack()), all ended by then, or
	 * INT64_MAX when one may never end.  A slice event at or before it
	 * leaves the stack unsure; the first one after it pops them all in
	 * the reader, and the horizon is passed.  The fast pass leaves a
	 * task buffer whose stack has one to the full path (fast_begin()).
	 */
	int64_t horizon;
	/*
	 * The stack may differ from the reader's: a frame could not be
	 * pushed (no memory), or an end closed none of its slices
	 * (FXT_SLICE_END_UNDER).
	 */
	bool unsure;
};

/*
 * A tid with task buffers, or with none left but slices open (kept:
 * output.c, keep_stack(); stack.fixed holds it in the room charged).  The
 * reader keeps one stack per pid and tid (Perfetto's thread), pushed and
 * popped by every buffer's slice events in file order (the kernel's
 * syscall slices in CPU buffers too).  Only the
 * stack of the process of the tid's newest task buffer holds flows the
 * drainer judges, so that is the one kept: the events of the tid's other
 * processes leave it as it is, and their flows are judged outside any
 * slice (refused at worst, never written unbound).
 */
struct thread_slices {
	uint32_t buffers;		/* its live task buffers */
	uint32_t kept_frames : 31;	/* charged to owner while kept */
	uint32_t kept_other : 1;	/* ... and to users not traced */
	uint64_t owner;			/* of its newest task buffer */
	struct slice_state slices;
};

/*
 * An event of type written for the thread of process pid at ns; end_ns is
 * read only for a complete event.  Other types, and another process's
 * events (another thread to Perfetto), leave the stack as it is.
 *
 * The reader's stack of the thread may hold begins under this one's: the
 * kernel's (a syscall's, an interrupt's) written from a CPU buffer before
 * the thread's first task buffer was known here.  While they stay
 * beneath, below every slice here, the two stacks agree on whether a
 * slice is open; an end that closes none of the slices here while some
 * are on the stack closes such a begin in the reader, under them, and
 * its end then pops or cuts there what it does not pop here.  A stack
 * short of a frame could be wrong either way too.  Either way its flows
 * are judged outside any slice from then on (refused at worst).
 */
static inline void slice_event_passed(struct slice_state *s,
				      unsigned int type, uint64_t pid,
				      int64_t ns, int64_t end_ns)
{
	if (!(SLICE_EVENTS >> type & 1) || s->pid != pid)
		return;
	if (fxt_slice_event(&s->stack, type, ns, end_ns, NULL))
		s->unsure = true;
}

/* slice_event_passed() of a stack that may have a horizon. */
static inline void slice_event(struct slice_state *s, unsigned int type,
			       uint64_t pid, int64_t ns, int64_t end_ns)
{
	if (s->horizon != SLICE_NO_HORIZON && SLICE_EVENTS >> type & 1 &&
	    s->pid == pid) {
		if (ns <= s->horizon)
			s->unsure = true;
		else
			s->horizon = SLICE_NO_HORIZON;
	}
	slice_event_passed(s, type, pid, ns, end_ns);
}

/* The stack of a thread the drainer forgets, or starts again. */
static inline void slice_reset(struct slice_state *s, uint64_t pid)
{
	fxt_slice_stack_free(&s->stack);
	s->pid = pid;
	s->unsure = false;
	s->horizon = SLICE_NO_HORIZON;
}

/*
 * A context switch out of the tid in state dead: the reader forgets the
 * stacks of all its processes (check_sched()), and a tid used again starts
 * with none.  A kept stack is forgotten instead (output.c).
 */
static inline void slice_thread_dead(struct slice_state *s)
{
	slice_reset(s, s->pid);
}

/* A flow event of process pid now binds to a slice of the thread. */
static inline bool slice_open(const struct slice_state *s, uint64_t pid)
{
	return s->pid == pid && !s->unsure && s->stack.depth;
}

#endif /* DRAIN_SLICES_H */
