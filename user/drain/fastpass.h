/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fastpass.h - the drainer's fast judgement of records (fastpass.c).
 *
 * The full decoder (fxt_decode_record()) judges every record against every
 * rule; the drainer then refuses what a producer must not write
 * (output.c).  Most records of a saved half are plain events (and, in CPU
 * buffers, context switches and wakeups) that pass both without changing
 * anything but the buffer's last timestamp and the slice stack of their
 * thread (when it has a task buffer).  fast_run() recognises
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

#include "fxt_map.h"
#include "fxt_reader.h"
#include "slices.h"

/* What a string index of the buffer's tables is, as far as fast_run() cares. */
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
 * The layouts of records accepted lately.  A record is mostly structure
 * that repeats (its header, argument headers, refs, inline strings and a
 * producer's own koids) around data that varies (timestamps, values,
 * ids): a record whose structure equals an accepted one's, bit for bit
 * where mask says so, passes every rule the other passed, so only its
 * data is checked (the window, an end after its start, koids in 32 bits).
 */
#define FAST_LAYOUT_WORDS	16
#define FAST_LAYOUT_BITS	6
#define FAST_LAYOUTS		(1 << FAST_LAYOUT_BITS)	/* by a hash of the header */

struct fast_layout {
	uint64_t header;	/* 0: the slot is free */
	uint64_t event_ts_mask;	/* ~0 for events: their timestamp is a last_ts */
	bool checks;		/* end_ts or koids */
	uint8_t end_ts;		/* index of a duration's end, or 0 */
	uint8_t koids;		/* scheduling: koids at index 2.. to check */
	uint8_t words;		/* of structure after the header */
	uint8_t index[FAST_LAYOUT_WORDS];	/* where they are */
	uint64_t value[FAST_LAYOUT_WORDS];
	uint64_t mask[FAST_LAYOUT_WORDS];	/* their bits of structure */
};

/*
 * One buffer's view while its span is judged.  The caches mirror the
 * buffer's tables: fast_forget() drops an index the full path (re)defined,
 * and the layouts that may have used it.
 */
struct fast_pass {
	const struct fxt_tables *tables;
	bool enabled;		/* false: every record goes the full path */
	bool task;		/* a producer's buffer: its own thread only */
	struct slice_state *slices;	/* a task buffer's thread's */
	/* Other buffers: threads with task buffers (NULL: none). */
	struct fxt_map *task_threads;
	uint64_t pid, tid;	/* a task buffer's, from the header page */
	uint64_t lo, hi;	/* the session window, ticks */
	uint64_t ticks_per_second;	/* the tables' */
	uint8_t threads[FXT_THREAD_INDEX_MAX + 1];	/* enum fast_thread */
	uint8_t strings[FXT_STRING_INDEX_MAX + 1];	/* enum fast_string */
	struct fast_layout layouts[FAST_LAYOUTS];
};

/*
 * Judge records of a buffer against tables (ticks_per_second theirs) in
 * window [lo, hi]; task buffers' records must name pid and tid only.  The
 * slice events accepted are applied to their threads in threads ((tid, 0)
 * -> struct thread_slices, output.c), which must not change until the
 * next fast_begin().
 */
void fast_begin(struct fast_pass *fp, const struct fxt_tables *tables,
		bool task, struct fxt_map *threads, uint64_t pid, uint64_t tid,
		uint64_t lo, uint64_t hi);

/*
 * The records from p on (len bytes, 8-byte aligned) that the drainer
 * writes unchanged with no effect but their timestamps and slices, up to
 * room bytes: returns their bytes, adds their count to *records, raises
 * *last_ts to their newest event's and applies their slice events.  It
 * stops at the first record the full path must judge.
 */
size_t fast_run(struct fast_pass *fp, const unsigned char *p, size_t len,
		size_t room, uint64_t *records, uint64_t *last_ts);

/*
 * fast_run() on len bytes copied from src to dst as they are judged: each
 * record is copied before it is judged, and judged from its copy, so
 * nothing a producer writes into src meanwhile reaches what was judged.
 * Returns the bytes accepted; the record it stopped at may be copied only
 * in part.  One pass over the producer's bytes instead of a copy and a
 * pass (Documentation/performance.rst, "Streaming against LTTng-UST").
 */
size_t fast_copy_run(struct fast_pass *fp, unsigned char *dst,
		     const unsigned char *src, size_t len, uint64_t *records,
		     uint64_t *last_ts);

/* The full path handled a record: forget what it may have (re)defined. */
void fast_forget(struct fast_pass *fp, const struct fxt_record *rec);

#endif /* DRAIN_FASTPASS_H */
