// SPDX-License-Identifier: GPL-2.0
/*
 * fxt_reader.c - walk a whole FXT trace: providers and their tables, names
 * from kernel objects, and the checks that span records (Documentation/fxt.rst,
 * "What Perfetto does with it"): magic first, provider sections only for announced providers,
 * scheduling records in time order per CPU, async begin/end names, and the
 * balance of durations per thread (notes: circular buffers and traces
 * started mid-call legitimately cut durations).
 *
 * State grows by at most two map entries per record (an async begin: its
 * place in its id's stack and its name's count) or one frame of a thread's
 * slice stack (fxt_slice_stack.h), so memory is proportional
 * to the input, except the tables and the names, which count against the
 * memory budget.  fxt_reader_read() reads through a window that grows to the
 * largest record seen, up to window_max; a record larger than that (only a
 * large record can be) is framed and skipped without being held.
 */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fxt_internal.h"
#include "fxt_map.h"
#include "fxt_slice_stack.h"

#define WINDOW_INITIAL (64u << 10)

/* Kinds of content Perfetto ignores, each noted once per trace. */
enum unsupported {
	UNSUPPORTED_LOG,
	UNSUPPORTED_USEROBJ,
	UNSUPPORTED_LARGE,
	UNSUPPORTED_BLOB,
	UNSUPPORTED_BLOB_ARG,
	UNSUPPORTED_COUNT
};

struct cpu_state {
	int64_t last_ns;	/* newest scheduling record so far */
	uint64_t last_offset;
};

/*
 * A thread of Perfetto's: a (pid, tid) that is alive, with its slice stack.
 * The threads of a tid form a list, newest first, so that a dead switch of
 * the tid, which names no pid, can end them all.
 */
struct thread_state {
	uint64_t pid;
	uint64_t older_pid;	/* the tid's thread before this one */
	bool has_older;
	uint64_t depth;		/* open duration begins */
	uint64_t first_open;	/* offset of the outermost open begin */
	struct fxt_slice_stack stack;	/* Perfetto's: what flows bind to */
	bool has_last;
	int64_t last_ns;	/* the thread's last event in the file */
	uint64_t last_offset;
};

/*
 * A flow id begun and not yet ended, keyed like Perfetto: by correlation
 * id.  Forgotten at its end, as Perfetto forgets it: memory grows with
 * the flows open, not with all the ids a trace ever used.
 */
struct flow_state {
	bool bound;		/* by a begin in a slice */
	uint64_t offset;	/* of that begin */
	int64_t last_ns;	/* the id's last event in the file */
	uint64_t last_offset;
};

/* An async begin of a (pid, id) still on its track's stack. */
struct async_begin {
	uint64_t name_hash;	/* of its category and name */
	bool name_known;	/* the begin's category and name bytes were kept */
	bool ended;		/* an end closed it under open begins */
	int64_t end_ns;		/* when ended: the end's time */
	uint64_t offset;	/* of the begin */
	uint64_t number;	/* its key in async_outer once it is not inner */
	uint64_t outer;		/* number of the begin it nests in, 0: none */
	uint64_t same_outer;	/* number of the next open one of its name */
};

/*
 * The open begins of a (pid, id) with one category and name: how many,
 * and the innermost's number; each names the next (same_outer), so an end
 * finds the begin it closes without walking the stack.
 */
struct async_name {
	uint64_t count;
	uint64_t innermost;
};

/*
 * The begins of a (pid, id) on its track's slice stack: a begin of an open
 * id nests on the id's track in Perfetto (TrackCompressor::BeginInternal
 * counts nest_count), so an end of the innermost's category and name pops
 * it.  An end of an outer begin's closes that one only
 * (async_end_named()): it stays on the stack, ended, until
 * async_settle() pops it.  Outer begins wait in async_outer, one map entry
 * per begin, and async_named chains the open ones by category and name:
 * two entries per begin at most.
 */
struct async_state {
	struct async_begin inner;
	uint64_t depth;		/* begins on the stack, inner included */
	uint64_t ended;		/* of those, the ones an end closed */
	int64_t ended_ns;	/* time of the latest such end */
	int64_t last_ns;	/* the id's last event in the file */
	uint64_t last_offset;
};

struct name_entry {
	char *bytes;
	uint32_t len;
	uint64_t pid;		/* threads: the "process" argument, or 0 */
};

struct fxt_reader {
	struct fxt_sink sink;
	uint64_t offset;		/* stream offset of the next record */
	uint64_t records;
	uint64_t need;			/* size of the record that did not fit */
	uint32_t need_type;		/* and its type */
	bool magic_checked;
	bool stopped;			/* a record could not be framed */
	int error;			/* -ENOMEM or -ENOBUFS once memory ran out */
	size_t window_max;
	struct fxt_memory memory;	/* of the tables and names */
	bool has_window;		/* timestamps checked against the session's */
	int64_t window_lo, window_hi;	/* ns */
	uint32_t current_id;
	struct fxt_tables *current;
	struct fxt_map providers;	/* (id, 0) -> struct provider */
	struct fxt_map cpus;		/* (cpu, 0) -> struct cpu_state */
	struct fxt_map threads;		/* (tid, pid) -> struct thread_state */
	struct fxt_map tids;		/* (tid, 0) -> newest thread's pid */
	struct fxt_map asyncs;		/* (pid, id) -> struct async_state */
	struct fxt_map async_outer;	/* (number, 0) -> struct async_begin */
	struct fxt_map async_named;	/* (pid, id ^ name_hash) -> async_name */
	uint64_t async_outer_next;	/* last number given to a begin */
	uint64_t async_open;		/* begins open, nested ones included */
	struct fxt_map flows;		/* (correlation id, 0) -> struct flow_state */
	struct fxt_map thread_names;	/* (tid, 0) -> struct name_entry */
	struct fxt_map process_names;	/* (pid, 0) -> struct name_entry */
	bool unsupported_noted[UNSUPPORTED_COUNT];
	bool time_order_noted;
};

struct provider {
	struct fxt_tables *tables;
	bool announced;			/* by a provider info record */
};

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/*
 * The provider with this id, created (unannounced) if new; NULL with *err
 * -ENOMEM or -ENOBUFS (the memory budget) when it cannot be.
 */
static struct provider *provider_get(struct fxt_reader *r, uint32_t id,
				     int *err)
{
	struct provider *p;
	int created;

	p = fxt_map_put(&r->providers, id, 0, &created);
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	if (created) {
		p->tables = fxt_tables_new_counted(id, &r->memory, err);
		if (!p->tables) {
			fxt_map_del(&r->providers, id, 0);
			return NULL;
		}
	}
	return p;
}

struct fxt_reader *fxt_reader_new(fxt_diag_fn *fn, void *ctx)
{
	struct fxt_reader *r = calloc(1, sizeof(*r));
	struct provider *p;
	int err;

	if (!r)
		return NULL;
	r->sink.fn = fn;
	r->sink.ctx = ctx;
	r->window_max = FXT_READER_WINDOW_MAX;
	fxt_map_init(&r->providers, sizeof(struct provider));
	fxt_map_init(&r->cpus, sizeof(struct cpu_state));
	fxt_map_init(&r->threads, sizeof(struct thread_state));
	fxt_map_init(&r->tids, sizeof(uint64_t));
	fxt_map_init(&r->asyncs, sizeof(struct async_state));
	fxt_map_init(&r->async_outer, sizeof(struct async_begin));
	fxt_map_init(&r->async_named, sizeof(struct async_name));
	fxt_map_init(&r->flows, sizeof(struct flow_state));
	fxt_map_init(&r->thread_names, sizeof(struct name_entry));
	fxt_map_init(&r->process_names, sizeof(struct name_entry));
	/* Like Perfetto, start in provider 0, announced implicitly. */
	p = provider_get(r, 0, &err);
	if (!p) {
		fxt_reader_free(r);
		return NULL;
	}
	p->announced = true;
	r->current = p->tables;
	return r;
}

static void free_names(struct fxt_map *m)
{
	struct name_entry *e;
	size_t pos = 0;

	while ((e = fxt_map_next(m, &pos, NULL, NULL)))
		free(e->bytes);
	fxt_map_free(m);
}

void fxt_reader_free(struct fxt_reader *r)
{
	struct thread_state *ts;
	struct provider *p;
	size_t pos = 0;

	if (!r)
		return;
	while ((p = fxt_map_next(&r->providers, &pos, NULL, NULL)))
		fxt_tables_free(p->tables);
	pos = 0;
	while ((ts = fxt_map_next(&r->threads, &pos, NULL, NULL)))
		fxt_slice_stack_free(&ts->stack);
	fxt_map_free(&r->providers);
	fxt_map_free(&r->cpus);
	fxt_map_free(&r->threads);
	fxt_map_free(&r->tids);
	fxt_map_free(&r->asyncs);
	fxt_map_free(&r->async_outer);
	fxt_map_free(&r->async_named);
	fxt_map_free(&r->flows);
	free_names(&r->thread_names);
	free_names(&r->process_names);
	free(r);
}

void fxt_reader_set_window_max(struct fxt_reader *r, size_t bytes)
{
	r->window_max = bytes < 8 ? 8 : bytes;
}

void fxt_reader_set_memory_budget(struct fxt_reader *r, size_t bytes)
{
	r->memory.budget = bytes;
}

size_t fxt_reader_memory_budget(const struct fxt_reader *r)
{
	return r->memory.budget;
}

size_t fxt_memory_budget_for(uint64_t len)
{
	if (len <= FXT_MEMORY_BUDGET_FLOOR / FXT_MEMORY_BUDGET_PER_BYTE)
		return FXT_MEMORY_BUDGET_FLOOR;
	if (len > SIZE_MAX / FXT_MEMORY_BUDGET_PER_BYTE)
		return SIZE_MAX;
	return len * FXT_MEMORY_BUDGET_PER_BYTE;
}

void fxt_reader_set_session_window(struct fxt_reader *r, int64_t lo_ns,
				   int64_t hi_ns)
{
	r->has_window = true;
	r->window_lo = lo_ns;
	r->window_hi = hi_ns;
}

uint64_t fxt_reader_offset(const struct fxt_reader *r)
{
	return r->offset;
}

uint64_t fxt_reader_count(const struct fxt_reader *r,
			  enum fxt_severity severity)
{
	return r->sink.counts[severity];
}

uint64_t fxt_reader_records(const struct fxt_reader *r)
{
	return r->records;
}

/* ---- names --------------------------------------------------------------- */

/*
 * A name is a copy of a string that may come from the tables: a record of
 * 2 words can name a new koid with 32 KiB, so the copies count against the
 * memory budget.
 */
static int set_name(struct fxt_reader *r, struct fxt_map *m, uint64_t koid,
		    const struct fxt_string *name, uint64_t pid)
{
	struct name_entry *e;
	char *bytes;
	int ret;

	if (!name->ptr)
		return 0;
	ret = fxt_memory_charge(&r->memory, name->len);
	if (ret)
		return ret;
	bytes = malloc(name->len ? name->len : 1);
	e = bytes ? fxt_map_put(m, koid, 0, NULL) : NULL;
	if (!e) {
		fxt_memory_release(&r->memory, name->len);
		free(bytes);
		return -ENOMEM;
	}
	memcpy(bytes, name->ptr, name->len);
	fxt_memory_release(&r->memory, e->bytes ? e->len : 0);
	free(e->bytes);
	e->bytes = bytes;
	e->len = name->len;
	e->pid = pid;
	return 0;
}

static void entry_string(const struct name_entry *e, struct fxt_string *s)
{
	memset(s, 0, sizeof(*s));
	s->ptr = e->bytes;
	s->len = e->len;
}

bool fxt_reader_process_name(const struct fxt_reader *r, uint64_t pid,
			     struct fxt_string *name)
{
	const struct name_entry *e = fxt_map_get(&r->process_names, pid, 0);

	if (e)
		entry_string(e, name);
	return e;
}

bool fxt_reader_thread_name(const struct fxt_reader *r, uint64_t tid,
			    struct fxt_string *name, uint64_t *pid)
{
	const struct name_entry *e = fxt_map_get(&r->thread_names, tid, 0);

	if (e) {
		entry_string(e, name);
		if (pid)
			*pid = e->pid;
	}
	return e;
}

bool fxt_reader_next_process(const struct fxt_reader *r, size_t *pos,
			     uint64_t *pid, struct fxt_string *name)
{
	const struct name_entry *e = fxt_map_next(&r->process_names, pos, pid,
						  NULL);

	if (e)
		entry_string(e, name);
	return e;
}

bool fxt_reader_next_thread(const struct fxt_reader *r, size_t *pos,
			    uint64_t *tid, uint64_t *pid,
			    struct fxt_string *name)
{
	const struct name_entry *e = fxt_map_next(&r->thread_names, pos, tid,
						  NULL);

	if (e) {
		entry_string(e, name);
		if (pid)
			*pid = e->pid;
	}
	return e;
}

/* ---- checks across records ----------------------------------------------- */

static void note_unsupported(struct fxt_reader *r, uint64_t offset,
			     enum unsupported kind)
{
	static const char *const what[UNSUPPORTED_COUNT] = {
		[UNSUPPORTED_LOG] = "log records",
		[UNSUPPORTED_USEROBJ] = "userspace object records",
		[UNSUPPORTED_LARGE] = "large records",
		[UNSUPPORTED_BLOB] = "blob records other than type 3 (Perfetto protobuf)",
		[UNSUPPORTED_BLOB_ARG] = "blob arguments",
	};

	if (r->unsupported_noted[kind])
		return;
	r->unsupported_noted[kind] = true;
	fxt_report(&r->sink, offset, FXT_RULE_PERFETTO_UNSUPPORTED,
		   "Perfetto ignores %s (noted once)", what[kind]);
}

static inline __attribute__((always_inline)) void
check_unsupported(struct fxt_reader *r, const struct fxt_record *rec)
{
	/* The record types that can hold what Perfetto ignores. */
	const uint32_t types = 1u << FXT_REC_LOG | 1u << FXT_REC_USEROBJ |
			       1u << FXT_REC_LARGE | 1u << FXT_REC_BLOB;
	uint32_t i;

	/* One test for the common case: an event, a scheduling record... */
	if (!(types >> rec->type & 1) && !rec->blob_args)
		return;
	switch (rec->type) {
	case FXT_REC_LOG:
		note_unsupported(r, rec->offset, UNSUPPORTED_LOG);
		break;
	case FXT_REC_USEROBJ:
		note_unsupported(r, rec->offset, UNSUPPORTED_USEROBJ);
		break;
	case FXT_REC_LARGE:
		note_unsupported(r, rec->offset, UNSUPPORTED_LARGE);
		break;
	case FXT_REC_BLOB:
		if (rec->subtype != FXT_BLOB_TYPE_PERFETTO)
			note_unsupported(r, rec->offset, UNSUPPORTED_BLOB);
		break;
	}
	for (i = 0; rec->blob_args && i < rec->nargs; i++)
		if (rec->args[i].type == FXT_ARG_BLOB)
			note_unsupported(r, rec->args[i].offset,
					 UNSUPPORTED_BLOB_ARG);
}

/*
 * Perfetto sorts an FXT trace's events by time (ns; ties in file order)
 * before its trackers see them; this reader judges nesting and flows in
 * file order, so an event older than its thread's or id's previous one
 * may be judged otherwise here (Documentation/perfetto.rst).
 */
static void note_time_order(struct fxt_reader *r, const struct fxt_record *rec,
			    const char *track, uint64_t last_offset,
			    int64_t last_ns)
{
	if (r->time_order_noted)
		return;
	r->time_order_noted = true;
	fxt_report(&r->sink, rec->offset, FXT_RULE_TIME_ORDER,
		   "%s: an event at %lld ns is older than the one at offset %#llx (%lld ns): Perfetto nests them in time order, this check in file order (noted once)",
		   track, (long long)rec->ts_ns,
		   (unsigned long long)last_offset, (long long)last_ns);
}

static void thread_order(struct fxt_reader *r, struct thread_state *ts,
			 const struct fxt_record *rec)
{
	char track[64];

	if (!rec->ts_ns_valid)
		return;
	if (ts->has_last && rec->ts_ns < ts->last_ns) {
		snprintf(track, sizeof(track), "thread %llu (process %llu)",
			 (unsigned long long)rec->thread.tid,
			 (unsigned long long)rec->thread.pid);
		note_time_order(r, rec, track, ts->last_offset, ts->last_ns);
	}
	ts->has_last = true;
	ts->last_ns = rec->ts_ns;
	ts->last_offset = rec->offset;
}

static void note_unended(struct fxt_reader *r, uint64_t tid,
			 const struct thread_state *ts, const char *when)
{
	fxt_report(&r->sink, ts->first_open, FXT_RULE_DURATION_UNENDED,
		   "thread %llu (process %llu): %llu duration begin%s never ended %s; the outermost is here",
		   (unsigned long long)tid, (unsigned long long)ts->pid,
		   (unsigned long long)ts->depth, plural(ts->depth), when);
}

/*
 * Perfetto keeps a thread per (pid, tid) (ProcessTracker::UpdateThread()
 * finds the tid's live thread of that pid): the tid of another process is
 * another thread, and the former one's stack stays for its later events.
 */
static struct thread_state *thread_get(struct fxt_reader *r, uint64_t tid,
				       uint64_t pid)
{
	struct thread_state *ts;
	uint64_t *newest;
	int created, first;

	ts = fxt_map_put(&r->threads, tid, pid, &created);
	if (!ts || !created)
		return ts;
	newest = fxt_map_put(&r->tids, tid, 0, &first);
	if (!newest) {
		fxt_map_del(&r->threads, tid, pid);
		return NULL;
	}
	ts->pid = pid;
	ts->has_older = !first;
	ts->older_pid = *newest;
	*newest = pid;
	return ts;
}

/* The thread event fxt_slice_event() judges, for its reports. */
struct slice_report_ctx {
	struct fxt_reader *r;
	const struct fxt_record *rec;
};

static void slice_cut(void *ctx, int64_t end_ns, uint32_t slices)
{
	const struct slice_report_ctx *c = ctx;
	const struct fxt_record *rec = c->rec;

	fxt_report(&c->r->sink, rec->offset, FXT_RULE_MISPLACED_END,
		   "thread %llu (process %llu): an event at %lld ns cuts %u slice%s left open inside a slice that ended at %lld ns: Perfetto ends %s there (stat misplaced_end_event)",
		   (unsigned long long)rec->thread.tid,
		   (unsigned long long)rec->thread.pid,
		   (long long)rec->ts_ns, slices, plural(slices),
		   (long long)end_ns, slices == 1 ? "it" : "them");
}

static void slice_overlap(void *ctx, int64_t ts_ns, int64_t end_ns)
{
	const struct slice_report_ctx *c = ctx;
	const struct fxt_record *rec = c->rec;

	fxt_report(&c->r->sink, rec->offset, FXT_RULE_COMPLETE_OVERLAP,
		   "complete event on thread %llu (process %llu) from %lld to %lld ns partly overlaps the slice from %lld to %lld ns on its stack: Perfetto drops it (stat slice_drop_overlapping_complete_event)",
		   (unsigned long long)rec->thread.tid,
		   (unsigned long long)rec->thread.pid,
		   (long long)rec->ts_ns, (long long)rec->end_ts_ns,
		   (long long)ts_ns, (long long)end_ns);
}

static int check_duration(struct fxt_reader *r, const struct fxt_record *rec)
{
	struct slice_report_ctx ctx = { r, rec };
	const struct fxt_slice_report rep = { slice_cut, slice_overlap, &ctx };
	struct thread_state *ts;

	if (rec->thread.undefined)
		return 0;
	ts = thread_get(r, rec->thread.tid, rec->thread.pid);
	if (!ts)
		return -ENOMEM;
	thread_order(r, ts, rec);
	if (rec->subtype == FXT_EVENT_DURATION_BEGIN) {
		if (!ts->depth++)
			ts->first_open = rec->offset;
	} else if (rec->subtype == FXT_EVENT_DURATION_END) {
		if (ts->depth)
			ts->depth--;
		else
			fxt_report(&r->sink, rec->offset,
				   FXT_RULE_DURATION_UNMATCHED_END,
				   "duration end on thread %llu (process %llu) with no begin open (the trace may start inside it)",
				   (unsigned long long)rec->thread.tid,
				   (unsigned long long)rec->thread.pid);
	}
	/* Perfetto drops a record whose time overflows (timestamp-overflow). */
	if (!rec->ts_ns_valid || (rec->subtype == FXT_EVENT_DURATION_COMPLETE &&
				  !rec->end_ts_ns_valid))
		return 0;
	/* This stack misses no begin: an end under its slices is as Perfetto's. */
	return fxt_slice_event(&ts->stack, rec->subtype, rec->ts_ns,
			       rec->end_ts_ns, &rep) == -ENOMEM ? -ENOMEM : 0;
}

/*
 * Perfetto's trace processor binds a flow event to the topmost slice on its
 * thread's stack (its pid's thread of that tid, thread_get()).  It keys
 * flows by process and correlation id (a step or end of an id its process
 * did not begin joins the one process that did), and drops a begin of an
 * id its process began and did not end (stat flow_duplicate_id); the rule
 * keys by id alone, stricter (Documentation/perfetto.rst).  It drops a
 * begin, or a step or end of a begun id, with no slice on the stack (stat
 * flow_no_enclosing_slice); both stats are errors.  A begin with no slice
 * still begins its id (FuchsiaTraceParser::GetGlobalFlowId() registers it
 * before FlowTracker::Begin() drops it), so a step or end of it with no
 * slice counts too, and a later begin binds it without a duplicate.  A
 * step or end of an id not begun is only counted as info; an end closes
 * its id even unbound.  Records whose time overflows are dropped.
 */
static void flow_no_slice(struct fxt_reader *r, const struct fxt_record *rec)
{
	fxt_report(&r->sink, rec->offset, FXT_RULE_FLOW_NO_SLICE,
		   "%s (id %#llx) on thread %llu (process %llu) outside any slice of that thread; Perfetto drops it",
		   fxt_event_type_name(rec->subtype),
		   (unsigned long long)rec->id,
		   (unsigned long long)rec->thread.tid,
		   (unsigned long long)rec->thread.pid);
}

static void flow_order(struct fxt_reader *r, struct flow_state *fs,
		       const struct fxt_record *rec)
{
	char track[40];

	if (rec->ts_ns < fs->last_ns) {
		snprintf(track, sizeof(track), "flow id %#llx",
			 (unsigned long long)rec->id);
		note_time_order(r, rec, track, fs->last_offset, fs->last_ns);
	}
	fs->last_ns = rec->ts_ns;
	fs->last_offset = rec->offset;
}

static int check_flow(struct fxt_reader *r, const struct fxt_record *rec)
{
	struct thread_state *ts;
	struct flow_state *fs;
	bool in_slice;
	int created;

	if (rec->thread.undefined || !rec->ts_ns_valid)
		return 0;
	ts = thread_get(r, rec->thread.tid, rec->thread.pid);
	if (!ts)
		return -ENOMEM;
	in_slice = ts->stack.depth;
	thread_order(r, ts, rec);
	if (rec->subtype != FXT_EVENT_FLOW_BEGIN) {
		fs = fxt_map_get(&r->flows, rec->id, 0);
		if (!fs)
			return 0;
		flow_order(r, fs, rec);
		if (rec->subtype == FXT_EVENT_FLOW_END)
			fxt_map_del(&r->flows, rec->id, 0);
		if (!in_slice)
			flow_no_slice(r, rec);
		return 0;
	}
	fs = fxt_map_put(&r->flows, rec->id, 0, &created);
	if (!fs)
		return -ENOMEM;
	if (created)
		fs->last_ns = rec->ts_ns;
	flow_order(r, fs, rec);
	if (!in_slice) {
		flow_no_slice(r, rec);
		return 0;
	}
	if (fs->bound) {
		fxt_report(&r->sink, rec->offset, FXT_RULE_FLOW_DUPLICATE,
			   "flow begin (id %#llx, process %llu) while the flow begun at offset %#llx is not ended; Perfetto drops it",
			   (unsigned long long)rec->id,
			   (unsigned long long)rec->thread.pid,
			   (unsigned long long)fs->offset);
		return 0;
	}
	fs->offset = rec->offset;
	fs->bound = true;
	return 0;
}

static void async_name_mismatch(struct fxt_reader *r,
				const struct fxt_record *rec,
				const struct async_begin *begin)
{
	fxt_report(&r->sink, rec->offset, FXT_RULE_ASYNC_NAME,
		   "%s \"%.*s\" in category \"%.*s\" (process %llu, id %#llx): its begin at offset %#llx has another name or category (Perfetto ends only a slice of the end's category and name)",
		   fxt_event_type_name(rec->subtype), (int)rec->name.len,
		   rec->name.ptr ? rec->name.ptr : "",
		   (int)rec->category.len,
		   rec->category.ptr ? rec->category.ptr : "",
		   (unsigned long long)rec->thread.pid,
		   (unsigned long long)rec->id,
		   (unsigned long long)begin->offset);
}

/* A begin of a (pid, id) already open nests inside the open one. */
static int async_push(struct fxt_reader *r, struct async_state *as)
{
	struct async_begin *outer;

	outer = fxt_map_put(&r->async_outer, as->inner.number, 0, NULL);
	if (!outer)
		return -ENOMEM;
	*outer = as->inner;
	as->inner.outer = as->inner.number;
	return 0;
}

/*
 * A begin that an end closes (always the innermost open one of its name)
 * is no longer open, nor in its name's chain.
 */
static void async_close(struct fxt_reader *r, const struct async_begin *begin,
			uint64_t pid, uint64_t id)
{
	struct async_name *named;

	if (begin->name_known) {
		named = fxt_map_get(&r->async_named, pid, id ^ begin->name_hash);
		named->innermost = begin->same_outer;
		if (!--named->count)
			fxt_map_del(&r->async_named, pid, id ^ begin->name_hash);
	}
	r->async_open--;
}

/*
 * Pop the innermost begin of a (pid, id): the begin it nests in is
 * innermost again.  Returns false when none is left (as is gone).
 */
static bool async_pop(struct fxt_reader *r, struct async_state *as,
		      uint64_t pid, uint64_t id)
{
	uint64_t number = as->inner.outer;
	struct async_begin *outer;

	if (as->inner.ended)
		as->ended--;
	else
		async_close(r, &as->inner, pid, id);
	if (!--as->depth) {
		fxt_map_del(&r->asyncs, pid, id);
		return false;
	}
	outer = fxt_map_get(&r->async_outer, number, 0);
	as->inner = *outer;
	fxt_map_del(&r->async_outer, number, 0);
	return true;
}

/*
 * SliceTracker::MaybeCloseStack before each event of the (pid, id)'s
 * track: an event later than the ended begins' end cuts the open begins
 * inside them at that end (misplaced_end_event), so those end, and pops
 * them all; an event at that time pops only ended begins on top.  An outer
 * end that is the track's last event leaves the begins inside it open.
 * Returns false when no begin is left (as is gone).
 */
static bool async_settle(struct fxt_reader *r, struct async_state *as,
			 const struct fxt_record *rec)
{
	uint64_t pid = rec->thread.pid, id = rec->id, cut = 0;
	int64_t ns = rec->ts_ns, end_ns;
	bool ended;

	if (!as->ended || ns < as->ended_ns)
		return true;
	while (as->ended && (ns > as->ended_ns || as->inner.ended)) {
		ended = as->inner.ended;
		end_ns = as->inner.end_ns;
		if (!ended)
			cut++;
		else if (cut) {
			/* one stat for each ended begin that had some open */
			fxt_report(&r->sink, rec->offset, FXT_RULE_MISPLACED_END,
				   "async id %#llx (process %llu): an event at %lld ns cuts %llu begin%s left open inside a slice that ended at %lld ns: Perfetto ends %s there (stat misplaced_end_event)",
				   (unsigned long long)id,
				   (unsigned long long)pid, (long long)ns,
				   (unsigned long long)cut, plural(cut),
				   (long long)end_ns, cut == 1 ? "it" : "them");
			cut = 0;
		}
		if (!async_pop(r, as, pid, id))
			return false;
	}
	return true;
}

/*
 * An end whose category and name are not the innermost begin's:
 * Perfetto's End closes the innermost open slice that has them
 * (MatchingIncompleteSliceIndex()) and pops it only if it is on top
 * (CompleteSliceFinalize()), so the begins inside it stay open until
 * async_settle().  An end that has no open begin's closes nothing.
 * async_named gives the innermost open begin of each category and name, so
 * an end costs no walk of the stack, whatever its depth.  That begin is
 * never the innermost of the stack: check_async() pops that one on an
 * end of its category and name, and an ended one is in no chain.
 */
static void async_end_named(struct fxt_reader *r, struct async_state *as,
			    const struct fxt_record *rec, uint64_t hash)
{
	uint64_t pid = rec->thread.pid, id = rec->id;
	struct async_name *named;
	struct async_begin *begin;

	named = fxt_map_get(&r->async_named, pid, id ^ hash);
	if (!named)
		return;
	begin = fxt_map_get(&r->async_outer, named->innermost, 0);
	async_close(r, begin, pid, id);
	begin->ended = true;
	begin->end_ns = rec->ts_ns;
	as->ended++;
	if (rec->ts_ns > as->ended_ns)
		as->ended_ns = rec->ts_ns;
}

static int check_async(struct fxt_reader *r, const struct fxt_record *rec)
{
	uint64_t pid = rec->thread.pid, hash, same_outer = 0;
	struct async_name *named;
	struct async_state *as;
	char track[80];
	int created, ret;
	bool known;

	/*
	 * Perfetto drops a record whose time overflows (timestamp-overflow),
	 * and orders the others by their time in ns: ticks of two providers,
	 * or two ticks faster than 1 GHz, may be one ns, or not compare.
	 */
	if (rec->name.undefined || rec->category.undefined || !rec->ts_ns_valid)
		return 0;
	/*
	 * Perfetto's end closes a slice of its category and name.  A string
	 * whose bytes were not kept (string budget) compares to nothing.
	 */
	known = rec->name.ptr && rec->category.ptr;
	hash = fxt_category_name_hash_keyed(&rec->category, &rec->name);
	as = fxt_map_get(&r->asyncs, pid, rec->id);
	if (as && rec->ts_ns < as->last_ns) {
		snprintf(track, sizeof(track), "async id %#llx (process %llu)",
			 (unsigned long long)rec->id, (unsigned long long)pid);
		note_time_order(r, rec, track, as->last_offset, as->last_ns);
	}
	if (as && !async_settle(r, as, rec))
		as = NULL;
	if (rec->subtype == FXT_EVENT_ASYNC_BEGIN) {
		if (known) {
			named = fxt_map_put(&r->async_named, pid,
					    rec->id ^ hash, &created);
			if (!named)
				return -ENOMEM;
			if (created)
				named->count = 0;
			else
				same_outer = named->innermost;
			named->count++;
			named->innermost = r->async_outer_next + 1;
		}
		as = fxt_map_put(&r->asyncs, pid, rec->id, &created);
		if (!as)
			return -ENOMEM;
		if (created) {
			as->depth = 0;
			as->ended = 0;
			as->ended_ns = 0;
			as->inner.outer = 0;
		} else {
			ret = async_push(r, as);
			if (ret)
				return ret;
		}
		as->depth++;
		r->async_open++;
		as->inner.name_hash = hash;
		as->inner.name_known = known;
		as->inner.ended = false;
		as->inner.offset = rec->offset;
		as->inner.number = ++r->async_outer_next;
		as->inner.same_outer = same_outer;
		as->last_ns = rec->ts_ns;
		as->last_offset = rec->offset;
		return 0;
	}
	if (!as) {
		if (rec->subtype == FXT_EVENT_ASYNC_END)
			fxt_report(&r->sink, rec->offset,
				   FXT_RULE_ASYNC_UNMATCHED_END,
				   "async end (process %llu, id %#llx) with no begin (the trace may start inside it)",
				   (unsigned long long)pid,
				   (unsigned long long)rec->id);
		return 0;
	}
	if (!as->inner.ended && as->inner.name_known && known &&
	    as->inner.name_hash != hash)
		async_name_mismatch(r, rec, &as->inner);
	as->last_ns = rec->ts_ns;
	as->last_offset = rec->offset;
	if (rec->subtype != FXT_EVENT_ASYNC_END)
		return 0;
	if (!as->inner.ended && (!as->inner.name_known || !known ||
				 as->inner.name_hash == hash))
		async_pop(r, as, pid, rec->id);
	else
		async_end_named(r, as, rec, hash);
	return 0;
}

static int check_event(struct fxt_reader *r, const struct fxt_record *rec)
{
	if (!rec->complete)
		return 0;
	switch (rec->subtype) {
	case FXT_EVENT_INSTANT:
	case FXT_EVENT_DURATION_BEGIN:
	case FXT_EVENT_DURATION_END:
	case FXT_EVENT_DURATION_COMPLETE:
		return check_duration(r, rec);
	case FXT_EVENT_FLOW_BEGIN:
	case FXT_EVENT_FLOW_STEP:
	case FXT_EVENT_FLOW_END:
		return check_flow(r, rec);
	case FXT_EVENT_ASYNC_BEGIN:
	case FXT_EVENT_ASYNC_INSTANT:
	case FXT_EVENT_ASYNC_END:
		return check_async(r, rec);
	default:
		return 0;
	}
}

static int check_sched(struct fxt_reader *r, const struct fxt_record *rec)
{
	struct thread_state *ts;
	struct cpu_state *cs;
	uint64_t *newest, pid, older;
	bool more;
	int created;

	if (!rec->complete || rec->subtype > FXT_SCHED_WAKEUP)
		return 0;
	if (rec->ts_ns_valid) {
		cs = fxt_map_put(&r->cpus, rec->cpu, 0, &created);
		if (!cs)
			return -ENOMEM;
		if (!created && rec->ts_ns < cs->last_ns)
			fxt_report(&r->sink, rec->offset, FXT_RULE_SCHED_ORDER,
				   "scheduling record on CPU %u at %lld ns is older than the one at offset %#llx (%lld ns)",
				   rec->cpu, (long long)rec->ts_ns,
				   (unsigned long long)cs->last_offset,
				   (long long)cs->last_ns);
		cs->last_ns = rec->ts_ns;
		cs->last_offset = rec->offset;
	}
	/*
	 * A thread that switches out dead has ended: its open durations too.
	 * The record names no pid and Perfetto ends the tid's newest live
	 * thread; every thread of the tid ends here, so that a flow this
	 * reader passes never lacks Perfetto's slice.
	 */
	if (rec->subtype != FXT_SCHED_WAKEUP &&
	    rec->out_state == FXT_THREAD_STATE_DEAD &&
	    (newest = fxt_map_get(&r->tids, rec->out.tid, 0))) {
		pid = *newest;
		fxt_map_del(&r->tids, rec->out.tid, 0);
		do {
			ts = fxt_map_get(&r->threads, rec->out.tid, pid);
			if (!ts)
				break;
			if (ts->depth)
				note_unended(r, rec->out.tid, ts,
					     "before the thread exited");
			more = ts->has_older;
			older = ts->older_pid;
			fxt_slice_stack_free(&ts->stack);
			fxt_map_del(&r->threads, rec->out.tid, pid);
			pid = older;
		} while (more);
	}
	return 0;
}

static int record_names(struct fxt_reader *r, const struct fxt_record *rec)
{
	uint64_t pid = 0;
	uint32_t i;

	if (!rec->complete)
		return 0;
	if (rec->subtype == FXT_KOBJ_PROCESS)
		return set_name(r, &r->process_names, rec->id, &rec->name, 0);
	if (rec->subtype != FXT_KOBJ_THREAD)
		return 0;
	for (i = 0; i < rec->nargs; i++)
		if (rec->args[i].type == FXT_ARG_KOID &&
		    fxt_string_is(&rec->args[i].name, "process"))
			pid = rec->args[i].value.u64;
	return set_name(r, &r->thread_names, rec->id, &rec->name, pid);
}

static int apply_metadata(struct fxt_reader *r, const struct fxt_record *rec)
{
	struct provider *p;
	int err;

	switch (rec->subtype) {
	case FXT_META_PROVIDER_INFO:
		if (!rec->complete)
			return 0;
		p = provider_get(r, rec->id, &err);
		if (!p)
			return err;
		/* A provider announced again starts with empty tables. */
		p->announced = true;
		fxt_tables_clear(p->tables);
		r->current = p->tables;
		r->current_id = rec->id;
		return 0;
	case FXT_META_PROVIDER_SECTION:
		p = provider_get(r, rec->id, &err);
		if (!p)
			return err;
		if (!p->announced)
			fxt_report(&r->sink, rec->offset, FXT_RULE_PROVIDER_SECTION,
				   "provider section for provider %llu, which no provider info record announced; Perfetto drops the records that follow",
				   (unsigned long long)rec->id);
		r->current = p->tables;
		r->current_id = rec->id;
		return 0;
	case FXT_META_PROVIDER_EVENT:
		if (rec->value == FXT_PROVIDER_EVENT_BUFFER_FULL)
			fxt_report(&r->sink, rec->offset, FXT_RULE_DROPS,
				   "provider %llu reports a full buffer: records were dropped",
				   (unsigned long long)rec->id);
		return 0;
	default:
		return 0;
	}
}

static void window_problem(struct fxt_reader *r, const struct fxt_record *rec,
			   int64_t ns, const char *what)
{
	fxt_report(&r->sink, rec->offset, FXT_RULE_TIMESTAMP_WINDOW,
		   "%s record's %s at %lld ns is outside the session's window [%lld, %lld] ns",
		   fxt_record_type_name(rec->type), what, (long long)ns,
		   (long long)r->window_lo, (long long)r->window_hi);
}

/* Inline: every record of a drainer's file is checked against its window. */
static inline void check_window_ts(struct fxt_reader *r,
				   const struct fxt_record *rec, int64_t ns,
				   const char *what)
{
	if (ns < r->window_lo || ns > r->window_hi)
		window_problem(r, rec, ns, what);
}

static void check_window(struct fxt_reader *r, const struct fxt_record *rec)
{
	if (!r->has_window || !rec->complete)
		return;
	if (rec->has_ts && rec->ts_ns_valid)
		check_window_ts(r, rec, rec->ts_ns, "timestamp");
	if (rec->type == FXT_REC_EVENT &&
	    rec->subtype == FXT_EVENT_DURATION_COMPLETE && rec->end_ts_ns_valid)
		check_window_ts(r, rec, rec->end_ts_ns, "end timestamp");
}

static int apply_record(struct fxt_reader *r, const struct fxt_record *rec)
{
	check_unsupported(r, rec);
	check_window(r, rec);
	switch (rec->type) {
	case FXT_REC_METADATA:
		return apply_metadata(r, rec);
	case FXT_REC_INIT:
	case FXT_REC_STRING:
	case FXT_REC_THREAD:
		return fxt_tables_apply(r->current, rec, &r->sink);
	case FXT_REC_EVENT:
		return check_event(r, rec);
	case FXT_REC_KOBJ:
		return record_names(r, rec);
	case FXT_REC_SCHED:
		return check_sched(r, rec);
	default:
		return 0;
	}
}

/* ---- walking ------------------------------------------------------------- */

static void check_magic(struct fxt_reader *r, const void *buf)
{
	uint64_t w;

	r->magic_checked = true;
	memcpy(&w, buf, sizeof(w));
	if (le64toh(w) != FXT_MAGIC_WORD)
		fxt_report(&r->sink, 0, FXT_RULE_MAGIC_FIRST,
			   "the first word is %#018llx, not the magic number record %#018llx; Perfetto does not recognise the file",
			   (unsigned long long)le64toh(w), FXT_MAGIC_WORD);
}

/* fxt_reader_next(), inline in the walking loop: once per record. */
static inline __attribute__((always_inline)) ssize_t
reader_next(struct fxt_reader *r, const void *buf, size_t len,
	    struct fxt_record *rec, uint64_t *need)
{
	ssize_t n;
	uint64_t h;

	if (r->stopped || r->error)
		return -1;
	if (!r->magic_checked && len >= 8)
		check_magic(r, buf);
	n = fxt_decode_record(r->current, buf, len, r->offset, rec, &r->sink,
			      need);
	if (n == 0) {
		r->need = *need;
		r->need_type = 0;
		if (len >= 8) {
			memcpy(&h, buf, sizeof(h));
			r->need_type = le64toh(h) & 15;
		}
		return 0;
	}
	if (n < 0) {
		r->stopped = true;
		return -1;
	}
	r->need = 0;
	r->records++;
	r->error = apply_record(r, rec);
	if (r->error)
		return -1;	/* the offset stays at the record that failed */
	r->offset += n;
	return n;
}

ssize_t fxt_reader_next(struct fxt_reader *r, const void *buf, size_t len,
			struct fxt_record *rec, uint64_t *need)
{
	return reader_next(r, buf, len, rec, need);
}

struct open_thread {
	uint64_t tid;
	struct thread_state ts;
};

static int by_first_open(const void *a, const void *b)
{
	const struct open_thread *x = a, *y = b;

	return (x->ts.first_open > y->ts.first_open) -
	       (x->ts.first_open < y->ts.first_open);
}

static void report_open_durations(struct fxt_reader *r)
{
	const struct thread_state *ts;
	struct open_thread *open;
	size_t pos = 0, n = 0, i;
	uint64_t tid;

	open = malloc((r->threads.count + 1) * sizeof(*open));
	if (!open) {
		r->error = -ENOMEM;
		return;
	}
	while ((ts = fxt_map_next(&r->threads, &pos, &tid, NULL)))
		if (ts->depth) {
			open[n].tid = tid;
			open[n++].ts = *ts;
		}
	/* In trace order, so that the report does not depend on hashing. */
	qsort(open, n, sizeof(*open), by_first_open);
	for (i = 0; i < n; i++)
		note_unended(r, open[i].tid, &open[i].ts, "by the end of the trace");
	free(open);
}

static void report_open_asyncs(struct fxt_reader *r)
{
	const struct async_begin *outer;
	const struct async_state *as;
	uint64_t first = UINT64_MAX;
	size_t pos = 0;

	while ((as = fxt_map_next(&r->asyncs, &pos, NULL, NULL)))
		if (!as->inner.ended && as->inner.offset < first)
			first = as->inner.offset;
	pos = 0;
	while ((outer = fxt_map_next(&r->async_outer, &pos, NULL, NULL)))
		if (!outer->ended && outer->offset < first)
			first = outer->offset;
	if (r->async_open)
		fxt_report(&r->sink, first, FXT_RULE_ASYNC_UNENDED,
			   "%llu async begin%s never ended; the first is here",
			   (unsigned long long)r->async_open,
			   plural(r->async_open));
}

void fxt_reader_finish(struct fxt_reader *r, size_t trailing)
{
	if (!r->magic_checked && !r->stopped)
		fxt_report(&r->sink, 0, FXT_RULE_MAGIC_FIRST,
			   "the input holds %zu byte%s: no magic number record",
			   trailing, plural(trailing));
	if (trailing && !r->stopped) {
		if (trailing >= 8 && r->need > trailing)
			fxt_report(&r->sink, r->offset, FXT_RULE_TRUNCATED,
				   "the %s record needs %llu bytes; the input ends after %zu",
				   fxt_record_type_name(r->need_type),
				   (unsigned long long)r->need, trailing);
		else
			fxt_report(&r->sink, r->offset, FXT_RULE_TRUNCATED,
				   "the input ends with %zu byte%s that do not make a word",
				   trailing, plural(trailing));
	}
	report_open_durations(r);
	report_open_asyncs(r);
}

/*
 * A record bigger than the window: describe it from its header, note that
 * it is not checked, and step over it.
 */
static void skip_record(struct fxt_reader *r, const void *header,
			struct fxt_record *rec)
{
	uint64_t h;

	memcpy(&h, header, sizeof(h));
	memset(rec, 0, offsetof(struct fxt_record, args));
	rec->offset = r->offset;
	rec->header = le64toh(h);
	rec->type = rec->header & 15;
	rec->words = r->need / 8;
	rec->content_words = rec->words;
	rec->valid = true;
	rec->provider_id = r->current_id;
	rec->ticks_per_second = fxt_tables_ticks_per_second(r->current);
	fxt_report(&r->sink, r->offset, FXT_RULE_NOT_CHECKED,
		   "%s record of %llu bytes is larger than the reader's %zu-byte window; skipped unchecked",
		   fxt_record_type_name(rec->type),
		   (unsigned long long)r->need, r->window_max);
	check_unsupported(r, rec);
	r->records++;
	r->offset += r->need;
	r->need = 0;
}

/* The input ended `missing` bytes before the end of the skipped record. */
static void skipped_cut(struct fxt_reader *r, const struct fxt_record *rec,
			uint64_t missing)
{
	fxt_report(&r->sink, rec->offset, FXT_RULE_TRUNCATED,
		   "the input ends %llu bytes before the end of the skipped %s record",
		   (unsigned long long)missing, fxt_record_type_name(rec->type));
}

/*
 * Hand fn every whole record of p[*pos..len) no larger than max bytes and
 * move *pos past them; *need is set as fxt_reader_next() sets it.  Returns
 * fn's non-zero return, else the reader's error (0 if none).
 */
static int decode_whole(struct fxt_reader *r, const unsigned char *p,
			size_t len, size_t max, size_t *pos,
			struct fxt_record *rec, uint64_t *need,
			fxt_record_fn *fn, void *ctx)
{
	size_t at = *pos;
	ssize_t n;
	int ret = 0;

	while (at < len &&
	       (n = reader_next(r, p + at, len - at < max ? len - at : max,
				rec, need)) > 0) {
		at += n;
		ret = fn ? fn(ctx, rec) : 0;
		if (ret)
			break;
	}
	*pos = at;
	return ret ? ret : r->error;
}

int fxt_reader_read(struct fxt_reader *r, fxt_read_fn *read_fn,
		    void *read_ctx, fxt_record_fn *fn, void *ctx)
{
	size_t cap = WINDOW_INITIAL < r->window_max ? WINDOW_INITIAL :
						      r->window_max;
	size_t fill = 0, start = 0;
	uint64_t need = 0, skip = 0;
	unsigned char *buf = malloc(cap), *bigger;
	struct fxt_record *rec = malloc(sizeof(*rec));
	bool eof = false;
	ssize_t n;
	int ret = 0;

	if (!buf || !rec) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		/* Decode every whole record in the window. */
		need = 0;
		ret = skip ? r->error : decode_whole(r, buf, fill, SIZE_MAX,
						     &start, rec, &need, fn,
						     ctx);
		if (ret)
			goto out;
		if (r->stopped)
			break;
		/*
		 * Skipped even when the input ends inside it, so that what is
		 * reported does not depend on where the reads ended.
		 */
		if (!skip && start < fill && need > r->window_max) {
			skip_record(r, buf + start, rec);
			skip = rec->words * 8;
			need = 0;
			ret = fn ? fn(ctx, rec) : 0;
			if (ret)
				goto out;
		}
		if (skip) {
			/* Drop what the window holds of the skipped record. */
			n = skip < fill - start ? skip : fill - start;
			start += n;
			skip -= n;
		}
		if (eof)
			break;
		memmove(buf, buf + start, fill - start);
		fill -= start;
		start = 0;
		if (!skip && need > cap) {
			size_t want = need > 2 * cap ? need : 2 * cap;

			if (want > r->window_max)
				want = r->window_max;
			bigger = realloc(buf, want);
			if (!bigger) {
				ret = -ENOMEM;
				goto out;
			}
			buf = bigger;
			cap = want;
		}
		n = read_fn(read_ctx, buf + fill, cap - fill);
		if (n < 0) {
			ret = (int)n;
			goto out;
		}
		eof = n == 0;
		fill += n;
	}
	if (skip) {
		skipped_cut(r, rec, skip);
		fill = start = 0;
	}
	fxt_reader_finish(r, r->stopped ? 0 : fill - start);
	ret = r->error;
out:
	free(rec);
	free(buf);
	return ret;
}

static ssize_t read_fd(void *ctx, void *buf, size_t len)
{
	int fd = *(int *)ctx;
	ssize_t n;

	do {
		n = read(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int fxt_reader_read_fd(struct fxt_reader *r, int fd, fxt_record_fn *fn,
		       void *ctx)
{
	return fxt_reader_read(r, read_fd, &fd, fn, ctx);
}

int fxt_reader_read_buffer(struct fxt_reader *r, const void *buf, size_t len,
			   fxt_record_fn *fn, void *ctx)
{
	const unsigned char *p = buf;
	struct fxt_record *rec = malloc(sizeof(*rec));
	size_t pos = 0;
	uint64_t need;
	int ret;

	if (!rec)
		return -ENOMEM;
	ret = decode_whole(r, p, len, SIZE_MAX, &pos, rec, &need, fn, ctx);
	if (ret)
		goto out;
	fxt_reader_finish(r, r->stopped ? 0 : len - pos);
	ret = r->error;
out:
	free(rec);
	return ret;
}

/* ---- a mapped file ------------------------------------------------------- */

/*
 * The mapping a walk reads, for the SIGBUS handler: the pages of a file cut
 * while mapped (`fxtrace recover` cuts files) fault instead of reading.
 */
struct mapped_walk {
	const unsigned char *base;
	size_t len;			/* bytes mapped, whole pages */
	sigjmp_buf cut;
	struct sigaction old;		/* SIGBUS's disposition before */
};

static __thread struct mapped_walk *mapped_walk;

static void on_sigbus(int sig, siginfo_t *info, void *uc)
{
	struct mapped_walk *w = mapped_walk;
	const unsigned char *addr = info->si_addr;

	(void)uc;
	if (w && info->si_code > 0 && addr >= w->base &&
	    addr < w->base + w->len)
		siglongjmp(w->cut, 1);
	/*
	 * Not a fault in the mapping: the previous disposition takes it (a
	 * fault happens again on return; a sent signal is sent again).  A
	 * thread that is not walking has no record of it: the default then,
	 * not a fault returning here forever.
	 */
	if (w)
		sigaction(SIGBUS, &w->old, NULL);
	else
		signal(SIGBUS, SIG_DFL);
	if (info->si_code <= 0)
		raise(sig);
}

/* The records of p[0..len) as fxt_reader_read() walks them, then finish. */
static int walk_mapped(struct fxt_reader *r, const unsigned char *p,
		       size_t len, struct fxt_record *rec, fxt_record_fn *fn,
		       void *ctx)
{
	size_t pos = 0;
	uint64_t need;
	int ret;

	for (;;) {
		need = 0;
		/* Records past the window are skipped, as when read. */
		ret = decode_whole(r, p, len, r->window_max, &pos, rec, &need,
				   fn, ctx);
		if (ret)
			return ret;
		if (r->stopped || pos == len || need <= r->window_max)
			break;
		skip_record(r, p + pos, rec);
		ret = fn ? fn(ctx, rec) : 0;
		if (ret)
			return ret;
		if (rec->words * 8 > len - pos) {
			skipped_cut(r, rec, rec->words * 8 - (len - pos));
			pos = len;
			break;
		}
		pos += rec->words * 8;
	}
	fxt_reader_finish(r, r->stopped ? 0 : len - pos);
	return r->error;
}

/* walk_mapped(), or -ENODATA when the mapping faults (a separate frame:
 * nothing here changes between sigsetjmp() and the jump). */
static int walk_guarded(struct fxt_reader *r, struct mapped_walk *w,
			size_t len, struct fxt_record *rec, fxt_record_fn *fn,
			void *ctx)
{
	if (sigsetjmp(w->cut, 1))
		return -ENODATA;
	return walk_mapped(r, w->base, len, rec, fn, ctx);
}

int fxt_reader_read_map(struct fxt_reader *r, int fd, uint64_t len,
			fxt_record_fn *fn, void *ctx)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO };
	long page = sysconf(_SC_PAGESIZE);
	struct fxt_record *rec;
	struct mapped_walk w;
	struct stat st;
	void *map = NULL;
	int ret;

	if (fstat(fd, &st))
		return -errno;
	/* Files of size 0 may still read (procfs): they are read. */
	if (!S_ISREG(st.st_mode) || !st.st_size)
		return -ENODEV;
	if ((uint64_t)st.st_size < len)
		len = (uint64_t)st.st_size;
	if (len > SIZE_MAX / 2)
		return -ENODEV;
	if (len) {
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			return -ENODEV;
		madvise(map, len, MADV_SEQUENTIAL);
	}
	rec = malloc(sizeof(*rec));
	if (!rec) {
		ret = -ENOMEM;
		goto out;
	}
	memset(&w, 0, sizeof(w));
	w.base = map;
	w.len = (len + page - 1) / page * page;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &w.old)) {
		ret = -errno;
		goto out;
	}
	mapped_walk = &w;
	ret = walk_guarded(r, &w, len, rec, fn, ctx);
	mapped_walk = NULL;
	sigaction(SIGBUS, &w.old, NULL);
	/* Cut inside the last page: the walk read zeros, not the file. */
	if (ret != -ENODATA && !fstat(fd, &st) && (uint64_t)st.st_size < len)
		ret = -ENODATA;
out:
	free(rec);
	if (map)
		munmap(map, len);
	return ret;
}
