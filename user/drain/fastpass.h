/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fastpass.h - the drainer's fast judgement of one record (fastpass.c).
 *
 * The full decoder (fxt_decode_record()) judges every record against every
 * rule; the drainer then refuses what a producer must not write
 * (output.c).  Most records of a saved half are plain events (and, in CPU
 * buffers, context switches and wakeups) that pass both without changing
 * anything but the buffer's last timestamp.  fast_record() recognises
 * exactly those, from the words alone, and says nothing of the others: it
 * accepts a record only when the full path would write it unchanged with
 * no other effect, so that the output is the same byte for byte
 * (user/drain/tests/output_test.c compares the two on every corpus).
 */
#ifndef DRAIN_FASTPASS_H
#define DRAIN_FASTPASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fxt_reader.h"

/* What a string index of the buffer's tables is, as far as fast_record() cares. */
enum fast_string {
	FAST_STRING_UNKNOWN,	/* not looked up yet */
	FAST_STRING_UNDEFINED,	/* the full path judges the record */
	FAST_STRING_OTHER,	/* defined, no name the decoder looks for */
	FAST_STRING_INCOMING_WEIGHT,
	FAST_STRING_OUTGOING_WEIGHT,
	FAST_STRING_WEIGHT,
};

enum fast_thread {
	FAST_THREAD_UNKNOWN,
	FAST_THREAD_NO,		/* undefined, or not the producer's own */
	FAST_THREAD_YES,
};

/*
 * One buffer's view while its span is judged.  The caches mirror the
 * buffer's tables: fast_forget() drops an index the full path (re)defined.
 */
struct fast_pass {
	const struct fxt_tables *tables;
	bool enabled;		/* false: every record goes the full path */
	bool task;		/* a producer's buffer: its own thread only */
	uint64_t pid, tid;	/* a task buffer's, from the header page */
	uint64_t lo, hi;	/* the session window, ticks */
	uint8_t threads[FXT_THREAD_INDEX_MAX + 1];	/* enum fast_thread */
	uint8_t strings[FXT_STRING_INDEX_MAX + 1];	/* enum fast_string */
};

/*
 * Judge records of a buffer against tables (ticks_per_second theirs) in
 * window [lo, hi]; task buffers' records must name pid and tid only.
 */
void fast_begin(struct fast_pass *fp, const struct fxt_tables *tables,
		bool task, uint64_t pid, uint64_t tid, uint64_t lo,
		uint64_t hi);

/*
 * The size in bytes of the record at p (avail bytes, 8-byte aligned) when
 * it is one the drainer writes unchanged with no effect but its
 * timestamp (*event_ts set for events, else 0); 0 when the full path must
 * judge it.
 */
size_t fast_record(struct fast_pass *fp, const unsigned char *p,
		   size_t avail, uint64_t *event_ts);

/* The full path handled a record: forget what it may have (re)defined. */
void fast_forget(struct fast_pass *fp, const struct fxt_record *rec);

#endif /* DRAIN_FASTPASS_H */
