// SPDX-License-Identifier: GPL-2.0
/*
 * perfetto.c - `fxtrace check --perfetto[=json] FILE`: import FILE with
 * Perfetto's trace processor and compare what it shows with what fxtrace's
 * decoder says it must show (Documentation/perfetto.rst).
 *
 * The decoder walks the trace and replays what Perfetto's FXT importer
 * (src/trace_processor/importers/fuchsia/ in Perfetto's sources) does with
 * each record: events sorted by time (ties in file order), slices on one
 * track per thread with the slice tracker's stack rules, async slices on the
 * track compressor's global tracks (by correlation id, not by process),
 * flows bound to the innermost slice of their thread, counters one row per
 * numeric argument, sched_slice one row per switch to a non-idle thread.
 * Then one query gives the same figures from the trace processor, and every
 * pair must agree.  Any stats row of severity error or data_loss fails the
 * comparison too.
 *
 * With =json the trace is exported as `fxtrace export` does and the JSON is
 * imported instead: the round trip must show the same slices, counters and
 * names, plus the export's CPU tracks (scheduling records become instants
 * and running spans there; JSON has no sched_slice).
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fxt_map.h"
#include "fxtrace.h"

#define TP_ENV		"FXTRACE_TRACE_PROCESSOR"
#define TP_NAME		"trace_processor_shell"
#define SLICE_PENDING	(-1)	/* Perfetto's dur of a slice still open */
#define MAX_DEPTH	512	/* SliceTracker::kMaxDepth */
#define TMP_JSON	"/tmp/fxtrace-XXXXXX.json"	/* mkstemps(), suffix 5 */

/* The figures compared: names are the query's column names. */
enum figure {
	F_THREAD_SLICES,	/* slices on thread tracks */
	F_THREAD_OPEN,		/* ... never closed (dur = -1) */
	F_THREAD_ZERO,		/* ... with dur = 0 (instants, mostly) */
	F_THREAD_DUR,		/* sum of the closed ones' durations */
	F_ASYNC_SLICES,		/* slices on other tracks (async) */
	F_ASYNC_OPEN,
	F_COUNTERS,		/* counter rows */
	F_COUNTER_TRACKS,
	F_FLOWS,
	F_NAMED_THREADS,
	F_NAMED_PROCESSES,
	F_SCHED_SLICES,
	F_THREAD_STATES,
	F_START,		/* trace_bounds */
	F_END,
	F_COUNT
};

static const char *const figure_names[F_COUNT] = {
	[F_THREAD_SLICES] = "thread_slices",
	[F_THREAD_OPEN] = "thread_slices_open",
	[F_THREAD_ZERO] = "thread_slices_dur0",
	[F_THREAD_DUR] = "thread_slices_dur_sum",
	[F_ASYNC_SLICES] = "async_slices",
	[F_ASYNC_OPEN] = "async_slices_open",
	[F_COUNTERS] = "counters",
	[F_COUNTER_TRACKS] = "counter_tracks",
	[F_FLOWS] = "flows",
	[F_NAMED_THREADS] = "named_threads",
	[F_NAMED_PROCESSES] = "named_processes",
	[F_SCHED_SLICES] = "sched_slices",
	[F_THREAD_STATES] = "thread_states",
	[F_START] = "start_ts",
	[F_END] = "end_ts",
};

/*
 * One statement, one row: the figures in enum order, then the problem
 * stats.  Then the named threads and processes, names in hex (no quoting
 * to undo).  Thread tracks are the tracks whose dimension is a utid.
 */
static const char query_fxt[] =
	"CREATE PERFETTO TABLE _fx_ts AS SELECT s.dur FROM slice s "
	"JOIN thread_track t ON s.track_id = t.id;\n"
	"SELECT (SELECT count(*) FROM _fx_ts) AS thread_slices,"
	" (SELECT count(*) FROM _fx_ts WHERE dur = -1) AS thread_slices_open,"
	" (SELECT count(*) FROM _fx_ts WHERE dur = 0) AS thread_slices_dur0,"
	" (SELECT ifnull(sum(dur), 0) FROM _fx_ts WHERE dur > 0)"
	" AS thread_slices_dur_sum,"
	" (SELECT count(*) FROM slice) - (SELECT count(*) FROM _fx_ts)"
	" AS async_slices,"
	" (SELECT count(*) FROM slice WHERE dur = -1) -"
	" (SELECT count(*) FROM _fx_ts WHERE dur = -1) AS async_slices_open,"
	" (SELECT count(*) FROM counter) AS counters,"
	" (SELECT count(*) FROM counter_track) AS counter_tracks,"
	" (SELECT count(*) FROM flow) AS flows,"
	" (SELECT count(*) FROM thread WHERE name IS NOT NULL) AS named_threads,"
	" (SELECT count(*) FROM process WHERE name IS NOT NULL)"
	" AS named_processes,"
	" (SELECT count(*) FROM sched_slice) AS sched_slices,"
	" (SELECT count(*) FROM thread_state) AS thread_states,"
	" (SELECT start_ts FROM trace_bounds) AS start_ts,"
	" (SELECT end_ts FROM trace_bounds) AS end_ts,"
	" (SELECT ifnull(group_concat(name || '=' || value, ' '), '')"
	" FROM stats WHERE severity IN ('error', 'data_loss') AND value > 0)"
	" AS problems,"
	" (SELECT ifnull(str_value, '') FROM metadata WHERE name = 'trace_type')"
	" AS trace_type;\n"
	"SELECT tid, hex(name) FROM thread WHERE name IS NOT NULL;\n"
	"SELECT pid, hex(name) FROM process WHERE name IS NOT NULL;\n";

/* ---- what the decoder says Perfetto must show ----------------------------- */

enum sim_kind {
	SIM_BEGIN, SIM_END, SIM_SCOPED, SIM_FLOW_BEGIN, SIM_FLOW_STEP,
	SIM_FLOW_END, SIM_ASYNC_BEGIN, SIM_ASYNC_INSTANT, SIM_ASYNC_END,
};

/* An event, replayed in Perfetto's order after the walk. */
struct sim_event {
	int64_t ts;
	uint64_t seq;		/* file order: ties keep it */
	int64_t dur;		/* SIM_SCOPED */
	uint64_t id;		/* flows, asyncs: correlation id */
	uint64_t name;		/* json, asyncs: key of category, name */
	uint64_t raw_name;	/* asyncs: the key of the name alone */
	uint32_t pid, tid;	/* 32 bits, as Perfetto keeps them */
	enum sim_kind kind;
};

struct sim_slice {
	int64_t ts, dur;
	uint64_t name;		/* as sim_event's */
	bool async;		/* on an async track, not a thread's */
};

struct sim_track {
	uint32_t *stack;	/* indexes into model.slices */
	uint32_t depth, cap;
};

/*
 * A global async track (TrackCompressor's TrackState of slice type
 * kCookie): the cookie (correlation id) it is kept for and how many of
 * its begins are open.  A begin of an open id nests on it.
 */
struct async_track {
	struct sim_track t;
	uint64_t cookie;
	uint64_t nest_count;
};

/*
 * The tracks of one name: InternLegacyAsyncTrack() puts every event of a
 * correlation id in the set of the first name seen with that id (its
 * async_tracks_to_root_string_id_), whatever the process, and the set's
 * tracks are found in creation order.
 */
struct async_set {
	uint64_t *tracks;	/* numbers in model.async_tracks */
	size_t n, cap;
};

struct flow_owner {
	uint32_t pid;
	bool ambiguous;
};

/* Perfetto stats the replay predicts, by name. */
enum predicted {
	P_FLOW_NO_SLICE, P_FLOW_DUPLICATE, P_MISPLACED_END, P_OVERLAP_DROP,
	P_OVERLAP_SPILL, P_MAX_DEPTH, P_NON_NUMERIC, P_ARG_TYPE, P_COUNT
};

static const char *const predicted_names[P_COUNT] = {
	[P_FLOW_NO_SLICE] = "flow_no_enclosing_slice",
	[P_FLOW_DUPLICATE] = "flow_duplicate_id",
	[P_MISPLACED_END] = "misplaced_end_event",
	[P_OVERLAP_DROP] = "slice_drop_overlapping_complete_event",
	[P_OVERLAP_SPILL] = "slice_spill_overlapping_complete_event",
	[P_MAX_DEPTH] = "slice_max_depth_exceeded",
	[P_NON_NUMERIC] = "fuchsia_non_numeric_counters",
	[P_ARG_TYPE] = "fuchsia_invalid_event_arg_type",
};

/*
 * What the model tells apart as Perfetto does, by the bytes (Perfetto's
 * StringIds): each byte string once, numbered.  A keyed hash finds a
 * number, the bytes decide: by a hash alone, two names whose FNV-1a
 * collide (anyone can write some) would pass for one, and with keys no
 * trace can choose chains of equal hashes stay short.
 */
struct keys {
	struct fxt_map index;	/* (keyed hash, n) -> the n-th such key's number */
	size_t *offsets;	/* key i: bytes[offsets[i]] .. bytes[offsets[i + 1]] */
	size_t count, cap_offsets;
	char *bytes;
	size_t cap_bytes;
	char *scratch;		/* a key being put together */
	size_t len, cap_scratch;
};

struct model {
	struct sim_event *events;
	size_t nevents, cap_events;
	struct sim_slice *slices;
	size_t nslices, cap_slices;
	struct keys keys;
	struct fxt_map tracks;		/* (pid, tid) -> sim_track */
	struct fxt_map async_roots;	/* (id, 0) -> key of a first name */
	struct fxt_map async_sets;	/* (that key, 0) -> async_set */
	struct fxt_map async_cookies;	/* (that key, id) -> its track */
	struct fxt_map async_tracks;	/* (n, 0) -> struct async_track */
	struct fxt_map counter_tracks;	/* (key of pid and series, 0) -> nothing */
	struct fxt_map active_flows;	/* (pid, id) -> global flow id */
	struct fxt_map flow_owners;	/* (id, 0) -> flow_owner */
	struct fxt_map flow_slices;	/* (global id, 0) -> slice index */
	struct fxt_map cpus;		/* json: (cpu, 0) -> struct cpu_span */
	uint64_t next_flow;
	int64_t fig[F_COUNT];
	uint64_t predicted[P_COUNT];
	uint64_t skipped;		/* records with errors, not modelled */
	bool json;			/* the export is imported, not the trace */
	bool have_time;
	int error;
};

static void see_time(struct model *m, int64_t ns)
{
	if (!m->have_time || ns < m->fig[F_START])
		m->fig[F_START] = ns;
	if (!m->have_time || ns > m->fig[F_END])
		m->fig[F_END] = ns;
	m->have_time = true;
}

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap * 2 : 1024;
	void *q;

	if (n < *cap)
		return p;
	q = realloc(p, c * size);
	if (q)
		*cap = c;
	return q;
}

/* Append len bytes at p to the key being put together. */
static void key_add(struct model *m, const void *p, size_t len)
{
	struct keys *k = &m->keys;
	size_t cap = k->cap_scratch ? k->cap_scratch : 256;
	char *bigger;

	while (cap < k->len + len)
		cap *= 2;
	if (cap != k->cap_scratch) {
		bigger = realloc(k->scratch, cap);
		if (!bigger) {
			m->error = -ENOMEM;
			return;
		}
		k->scratch = bigger;
		k->cap_scratch = cap;
	}
	if (len)
		memcpy(k->scratch + k->len, p, len);
	k->len += len;
}

static void key_add_string(struct model *m, const struct fxt_string *s)
{
	key_add(m, s->ptr, s->ptr ? s->len : 0);
}

/* A pid, or a length that keeps ("ab", "c") and ("a", "bc") apart. */
static void key_add_u32(struct model *m, uint32_t v)
{
	key_add(m, &v, sizeof(v));
}

/* The number of the key put together since the last one (0 on error). */
static uint64_t key_end(struct model *m)
{
	struct keys *k = &m->keys;
	struct fxt_string whole = { .ptr = k->scratch, .len = (uint32_t)k->len };
	uint64_t hash = fxt_string_hash_keyed(&whole), n, *number;
	size_t len = k->len, off;
	int created;
	void *p;

	k->len = 0;
	if (m->error)
		return 0;
	for (n = 0;; n++) {
		number = fxt_map_put(&k->index, hash, n, &created);
		if (!number)
			goto nomem;
		if (created)
			break;
		off = k->offsets[*number];
		if (k->offsets[*number + 1] - off == len &&
		    !memcmp(k->bytes + off, k->scratch, len))
			return *number;
	}
	off = k->count ? k->offsets[k->count] : 0;
	p = grow(k->offsets, &k->cap_offsets, k->count + 1, sizeof(size_t));
	if (!p)
		goto nomem;
	k->offsets = p;
	if (off + len > k->cap_bytes) {
		size_t cap = k->cap_bytes ? k->cap_bytes : 4096;

		while (cap < off + len)
			cap *= 2;
		p = realloc(k->bytes, cap);
		if (!p)
			goto nomem;
		k->bytes = p;
		k->cap_bytes = cap;
	}
	if (len)
		memcpy(k->bytes + off, k->scratch, len);
	k->offsets[k->count] = off;
	k->offsets[k->count + 1] = off + len;
	*number = k->count++;
	return *number;
nomem:
	m->error = -ENOMEM;
	return 0;
}

/* The key of rec's category and name. */
static uint64_t event_name_key(struct model *m, const struct fxt_record *rec)
{
	key_add_u32(m, rec->category.ptr ? rec->category.len : 0);
	key_add_string(m, &rec->category);
	key_add_string(m, &rec->name);
	return key_end(m);
}

static struct sim_event *new_event(struct model *m, int64_t ts,
				   enum sim_kind kind, int64_t dur)
{
	struct sim_event *e;
	void *p = grow(m->events, &m->cap_events, m->nevents, sizeof(*e));

	if (!p) {
		m->error = -ENOMEM;
		return NULL;
	}
	m->events = p;
	e = &m->events[m->nevents];
	e->ts = ts;
	e->seq = m->nevents++;
	e->dur = dur;
	e->id = 0;
	e->name = 0;
	e->kind = kind;
	return e;
}

static void add_event(struct model *m, const struct fxt_record *rec,
		      enum sim_kind kind, int64_t dur)
{
	struct sim_event *e = new_event(m, rec->ts_ns, kind, dur);

	if (!e)
		return;
	e->id = rec->id;
	/* FXT duration ends are not matched by name: no key to make. */
	if (m->json || kind >= SIM_ASYNC_BEGIN)
		e->name = event_name_key(m, rec);
	if (kind >= SIM_ASYNC_BEGIN) {
		key_add_string(m, &rec->name);
		e->raw_name = key_end(m);
	}
	e->pid = (uint32_t)rec->thread.pid;
	e->tid = (uint32_t)rec->thread.tid;
}

/* Who a CPU track of the export runs since when (export.c's cpu_track). */
struct cpu_span {
	int64_t since;
	uint64_t tid;
};

/* A slice on the export's track of `cpu`: an instant, or a running span. */
static void add_cpu_slice(struct model *m, uint32_t cpu, int64_t ts,
			  int64_t dur)
{
	struct sim_event *e = new_event(m, ts, SIM_SCOPED, dur);

	if (!e)
		return;
	e->pid = (uint32_t)EXPORT_CPU_PID;
	e->tid = (uint32_t)(EXPORT_CPU_TID + cpu);
}

/*
 * What `fxtrace export` makes of a scheduling record (export.c): on the
 * track "CPU N" of the process "CPUs", an instant per switch and wakeup and,
 * at each switch, the span the thread switched in before it ran.
 */
static void model_export_sched(struct model *m, const struct fxt_record *rec)
{
	struct cpu_span *c;
	int created;

	if (rec->subtype > FXT_SCHED_WAKEUP || rec->ts_ns < 0)
		return;
	c = fxt_map_put(&m->cpus, rec->cpu, 0, &created);
	if (!c) {
		m->error = -ENOMEM;
		return;
	}
	if (created)
		c->since = -1;
	if (rec->subtype != FXT_SCHED_WAKEUP) {
		if (c->since >= 0 && c->tid && c->since <= rec->ts_ns)
			add_cpu_slice(m, rec->cpu, c->since,
				      rec->ts_ns - c->since);
		c->since = rec->ts_ns;
		c->tid = rec->in.tid;
	}
	add_cpu_slice(m, rec->cpu, rec->ts_ns, 0);
}


/* An argument named `name`: its int32 value, or false (and *bad if typed wrong). */
static bool int32_arg(const struct fxt_record *rec, const char *name,
		      int64_t *value, bool *bad)
{
	uint32_t i;

	for (i = 0; i < rec->nargs; i++) {
		if (!fxt_string_is(&rec->args[i].name, name))
			continue;
		if (rec->args[i].type != FXT_ARG_INT32) {
			*bad = true;
			return false;
		}
		*value = rec->args[i].value.i64;
		return true;
	}
	return false;
}

static bool koid_arg_ok(const struct fxt_record *rec, const char *name)
{
	uint32_t i;

	for (i = 0; i < rec->nargs; i++)
		if (fxt_string_is(&rec->args[i].name, name) &&
		    rec->args[i].type != FXT_ARG_KOID)
			return false;
	return true;
}

/*
 * Perfetto keys the track of a counter series by its process and the name
 * it gives it, "NAME:ARGUMENT:ID": counter "a:b" argument "c" shares the
 * track of counter "a" argument "b:c".
 */
static void model_counter(struct model *m, const struct fxt_record *rec)
{
	char id[24];
	bool any = false;
	uint32_t i;
	double v;

	snprintf(id, sizeof(id), ":%" PRIu64, rec->id);
	for (i = 0; i < rec->nargs; i++) {
		if (!fxt_arg_number(&rec->args[i], &v)) {
			m->predicted[P_NON_NUMERIC]++;
			continue;
		}
		m->fig[F_COUNTERS]++;
		any = true;
		key_add_u32(m, (uint32_t)rec->thread.pid);
		key_add_string(m, &rec->name);
		key_add(m, ":", 1);
		key_add_string(m, &rec->args[i].name);
		key_add(m, id, strlen(id));
		if (!fxt_map_put(&m->counter_tracks, key_end(m), 0, NULL))
			m->error = -ENOMEM;
	}
	if (any)
		see_time(m, rec->ts_ns);
}

static void model_sched(struct model *m, const struct fxt_record *rec)
{
	int64_t in_w = 0, out_w = 0, w = 0;
	bool bad = false;

	switch (rec->subtype) {
	case FXT_SCHED_CONTEXT_SWITCH:
		int32_arg(rec, "incoming_weight", &in_w, &bad);
		int32_arg(rec, "outgoing_weight", &out_w, &bad);
		if (bad) {
			m->predicted[P_ARG_TYPE]++;
			return;
		}
		if (in_w != FXT_SCHED_WEIGHT_IDLE) {
			m->fig[F_SCHED_SLICES]++;
			m->fig[F_THREAD_STATES]++;
		}
		if (out_w != FXT_SCHED_WEIGHT_IDLE)
			m->fig[F_THREAD_STATES]++;
		if (in_w != FXT_SCHED_WEIGHT_IDLE ||
		    out_w != FXT_SCHED_WEIGHT_IDLE)
			see_time(m, rec->ts_ns);
		break;
	case FXT_SCHED_WAKEUP:
		int32_arg(rec, "weight", &w, &bad);
		if (bad || !koid_arg_ok(rec, "waker")) {
			m->predicted[P_ARG_TYPE]++;
			return;
		}
		if (w != FXT_SCHED_WEIGHT_IDLE) {
			m->fig[F_THREAD_STATES]++;
			see_time(m, rec->ts_ns);
		}
		break;
	case FXT_SCHED_LEGACY_CONTEXT_SWITCH:
		/*
		 * Idle is pid 0 and priority 0; fxtrace writes no legacy
		 * switches, so the priority alone decides here.
		 */
		m->fig[F_SCHED_SLICES] += rec->in_prio != 0;
		m->fig[F_THREAD_STATES] += (rec->in_prio != 0) +
					   (rec->out_prio != 0);
		see_time(m, rec->ts_ns);
		break;
	}
}

static int model_record(void *ctx, const struct fxt_record *rec)
{
	struct model *m = ctx;

	if (!rec->bytes || (rec->type != FXT_REC_EVENT &&
			    rec->type != FXT_REC_SCHED &&
			    rec->type != FXT_REC_LOG))
		return 0;
	if (!rec->valid || !rec->ts_ns_valid) {
		m->skipped++;
		return 0;
	}
	/* Perfetto ignores FXT log records; the export makes them instants. */
	if (rec->type == FXT_REC_LOG) {
		if (m->json)
			add_event(m, rec, SIM_SCOPED, 0);
		return m->error;
	}
	if (rec->type == FXT_REC_SCHED) {
		if (m->json)
			model_export_sched(m, rec);
		else
			model_sched(m, rec);
		return m->error;
	}
	switch (rec->subtype) {
	case FXT_EVENT_INSTANT:
		add_event(m, rec, SIM_SCOPED, 0);
		break;
	case FXT_EVENT_COUNTER:
		model_counter(m, rec);
		break;
	case FXT_EVENT_DURATION_BEGIN:
		add_event(m, rec, SIM_BEGIN, 0);
		break;
	case FXT_EVENT_DURATION_END:
		add_event(m, rec, SIM_END, 0);
		break;
	case FXT_EVENT_DURATION_COMPLETE:
		if (rec->end_ts_ns_valid && rec->end_ts_ns >= rec->ts_ns)
			add_event(m, rec, SIM_SCOPED,
				  rec->end_ts_ns - rec->ts_ns);
		break;
	case FXT_EVENT_ASYNC_BEGIN:
		add_event(m, rec, SIM_ASYNC_BEGIN, 0);
		break;
	case FXT_EVENT_ASYNC_INSTANT:
		add_event(m, rec, SIM_ASYNC_INSTANT, 0);
		break;
	case FXT_EVENT_ASYNC_END:
		add_event(m, rec, SIM_ASYNC_END, 0);
		break;
	case FXT_EVENT_FLOW_BEGIN:
		add_event(m, rec, SIM_FLOW_BEGIN, 0);
		break;
	case FXT_EVENT_FLOW_STEP:
		add_event(m, rec, SIM_FLOW_STEP, 0);
		break;
	case FXT_EVENT_FLOW_END:
		add_event(m, rec, SIM_FLOW_END, 0);
		break;
	}
	return m->error;
}

static int by_time(const void *a, const void *b)
{
	const struct sim_event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct sim_track *track_of(struct model *m, const struct sim_event *e,
				  bool create)
{
	struct sim_track *t;

	if (!create)
		return fxt_map_get(&m->tracks, e->pid, e->tid);
	t = fxt_map_put(&m->tracks, e->pid, e->tid, NULL);
	if (!t)
		m->error = -ENOMEM;
	return t;
}

/*
 * SliceTracker::MaybeCloseStack: false when the new slice overlaps an open
 * one partially and cannot go on the track.
 */
static bool close_stack(struct model *m, struct sim_track *t, int64_t ts,
			int64_t dur)
{
	bool open_child = false;
	int i, j;

	for (i = (int)t->depth - 1; i >= 0; i--) {
		struct sim_slice *s = &m->slices[t->stack[i]];
		int64_t end = s->ts + s->dur;

		if (s->dur == SLICE_PENDING) {
			open_child = true;
			continue;
		}
		if (open_child) {
			if (ts <= end)
				continue;
			m->predicted[P_MISPLACED_END]++;
			for (j = (int)t->depth - 1; j > i; j--)
				m->slices[t->stack[j]].dur =
					end - m->slices[t->stack[j]].ts;
			t->depth = i;
			open_child = false;
			continue;
		}
		if (end < ts || (end == ts && !(s->dur == 0 && dur == 0))) {
			t->depth--;	/* pops the top, as Perfetto does */
			continue;
		}
		if (dur == SLICE_PENDING)
			continue;
		if (ts < end && ts + dur > end)
			return false;
	}
	return true;
}

/* A row of the slice table; false when out of memory. */
static bool add_slice(struct model *m, const struct sim_event *e, int64_t dur)
{
	void *p = grow(m->slices, &m->cap_slices, m->nslices,
		       sizeof(*m->slices));

	if (!p)
		return false;
	m->slices = p;
	m->slices[m->nslices++] = (struct sim_slice){
		e->ts, dur, e->name, e->kind >= SIM_ASYNC_BEGIN
	};
	return true;
}

static void start_slice(struct model *m, struct sim_track *t,
			const struct sim_event *e, int64_t dur)
{
	void *p;

	if (!t)
		return;
	if (!close_stack(m, t, e->ts, dur)) {
		/*
		 * JSON's "X" goes to an overflow track of its thread instead
		 * (json_trace_parser.cc, case 'X'): a thread track too, where
		 * it nests or follows what is open (the track compressor's
		 * LegacyOverlappingScopedInternal), so it is kept with its
		 * duration and stays off the thread's stack.  FXT's complete
		 * event is dropped (fuchsia_trace_parser.cc, kDurationComplete).
		 */
		if (!m->json) {
			m->predicted[P_OVERLAP_DROP]++;
			return;
		}
		m->predicted[P_OVERLAP_SPILL]++;
		if (!add_slice(m, e, dur))
			m->error = -ENOMEM;
		return;
	}
	if (t->depth >= MAX_DEPTH) {
		m->predicted[P_MAX_DEPTH]++;
		return;
	}
	p = t->depth < t->cap ? t->stack :
	    realloc(t->stack, (t->cap * 2 + 8) * sizeof(*t->stack));
	if (p && t->depth == t->cap) {
		t->stack = p;
		t->cap = t->cap * 2 + 8;
	}
	if (!p || !add_slice(m, e, dur)) {
		m->error = -ENOMEM;
		return;
	}
	t->stack[t->depth++] = m->nslices - 1;
}

/*
 * SliceTracker::End: closes the innermost open slice, whatever its name for
 * an FXT duration end; JSON ends ("E") and async ends pass their category
 * and name, which must match (MatchingIncompleteSliceIndex).
 */
static void end_slice(struct model *m, struct sim_track *t,
		      const struct sim_event *e)
{
	bool by_name = m->json || e->kind == SIM_ASYNC_END;
	int i;

	if (!t || !close_stack(m, t, e->ts, SLICE_PENDING))
		return;
	for (i = (int)t->depth - 1; i >= 0; i--) {
		struct sim_slice *s = &m->slices[t->stack[i]];

		if (s->dur != SLICE_PENDING || (by_name && s->name != e->name))
			continue;
		s->dur = e->ts - s->ts;
		if ((uint32_t)i == t->depth - 1)
			t->depth--;
		return;
	}
}

/*
 * TrackCompressor::GetOrCreateTrackForCookie in the set of the first name
 * seen with the event's id: the track kept for the id, else the first track
 * of the set with no begin open (taken over for the id), else a new track.
 * Then BeginInternal and EndInternal count the id's open begins: a begin
 * adds one, an end takes one away unless none is open, an instant does both.
 */
static struct sim_track *async_track_of(struct model *m,
					const struct sim_event *e)
{
	uint64_t *root, *number, n = m->async_tracks.count;
	struct async_track *at = NULL;
	struct async_set *set;
	int created;
	size_t i;
	void *p;

	root = fxt_map_put(&m->async_roots, e->id, 0, &created);
	set = root ? fxt_map_put(&m->async_sets,
				 created ? e->raw_name : *root, 0, NULL) : NULL;
	if (!set)
		goto nomem;
	if (created)
		*root = e->raw_name;
	number = fxt_map_get(&m->async_cookies, *root, e->id);
	if (number) {
		at = fxt_map_get(&m->async_tracks, *number, 0);
	} else {
		for (i = 0; i < set->n && !at; i++) {
			at = fxt_map_get(&m->async_tracks, set->tracks[i], 0);
			if (at->nest_count) {
				at = NULL;
				continue;
			}
			fxt_map_del(&m->async_cookies, *root, at->cookie);
			n = set->tracks[i];
		}
		if (!at) {
			p = grow(set->tracks, &set->cap, set->n,
				 sizeof(*set->tracks));
			at = p ? fxt_map_put(&m->async_tracks, n, 0, NULL) :
				 NULL;
			if (!at)
				goto nomem;
			set->tracks = p;
			set->tracks[set->n++] = n;
			*at = (struct async_track){ .nest_count = 0 };
		}
		number = fxt_map_put(&m->async_cookies, *root, e->id, NULL);
		if (!number)
			goto nomem;
		*number = n;
		at->cookie = e->id;
	}
	if (e->kind == SIM_ASYNC_BEGIN)
		at->nest_count++;
	else if (e->kind == SIM_ASYNC_END && at->nest_count)
		at->nest_count--;
	return &at->t;
nomem:
	m->error = -ENOMEM;
	return NULL;
}

/* The innermost slice of the event's thread, or -1 (GetTopmostSliceOnTrack). */
static int64_t top_slice(struct model *m, const struct sim_event *e)
{
	struct sim_track *t = track_of(m, e, false);

	return t && t->depth ? (int64_t)t->stack[t->depth - 1] : -1;
}

/*
 * FuchsiaTraceParser::GetGlobalFlowId: flow ids are scoped by process; a
 * step or end from another process joins the flow of the only process that
 * began that id.  Returns false when the id resolves to no flow.
 */
static bool resolve_flow(struct model *m, const struct sim_event *e,
			 uint64_t *global, uint32_t *owner)
{
	uint64_t *g = fxt_map_get(&m->active_flows, e->pid, e->id);
	struct flow_owner *o;
	int created;

	*owner = e->pid;
	if (g) {
		*global = *g;
		return true;
	}
	if (e->kind == SIM_FLOW_BEGIN) {
		g = fxt_map_put(&m->active_flows, e->pid, e->id, NULL);
		o = g ? fxt_map_put(&m->flow_owners, e->id, 0,
				    &created) : NULL;
		if (!o) {
			m->error = -ENOMEM;
			return false;
		}
		*g = *global = m->next_flow++;
		if (created)
			o->pid = e->pid;
		else if (o->pid != e->pid)
			o->ambiguous = true;
		return true;
	}
	o = fxt_map_get(&m->flow_owners, e->id, 0);
	if (!o || o->ambiguous)
		return false;
	g = fxt_map_get(&m->active_flows, o->pid, e->id);
	if (!g)
		return false;
	*global = *g;
	*owner = o->pid;
	return true;
}

/* FlowTracker::Begin, Step and End (binding the enclosing slice). */
static void flow(struct model *m, const struct sim_event *e)
{
	uint64_t global, *bound;
	int64_t top;
	uint32_t owner;
	int created;

	if (!resolve_flow(m, e, &global, &owner))
		return;
	top = top_slice(m, e);
	if (top < 0) {
		m->predicted[P_FLOW_NO_SLICE]++;
	} else if (e->kind == SIM_FLOW_BEGIN) {
		bound = fxt_map_put(&m->flow_slices, global, 0, &created);
		if (!bound)
			m->error = -ENOMEM;
		else if (!created)
			m->predicted[P_FLOW_DUPLICATE]++;
		else
			*bound = top;
	} else if ((bound = fxt_map_get(&m->flow_slices, global, 0))) {
		m->fig[F_FLOWS]++;
		*bound = top;
		if (e->kind == SIM_FLOW_END)
			fxt_map_del(&m->flow_slices, global, 0);
	}
	if (e->kind == SIM_FLOW_END) {
		fxt_map_del(&m->active_flows, owner, e->id);
		fxt_map_del(&m->flow_owners, e->id, 0);
	}
}

static void replay(struct model *m)
{
	size_t i;

	qsort(m->events, m->nevents, sizeof(*m->events), by_time);
	for (i = 0; i < m->nevents && !m->error; i++) {
		const struct sim_event *e = &m->events[i];

		switch (e->kind) {
		case SIM_BEGIN:
			start_slice(m, track_of(m, e, true), e, SLICE_PENDING);
			break;
		case SIM_SCOPED:
			start_slice(m, track_of(m, e, true), e, e->dur);
			break;
		case SIM_END:
			end_slice(m, track_of(m, e, false), e);
			break;
		case SIM_ASYNC_BEGIN:
			start_slice(m, async_track_of(m, e), e, SLICE_PENDING);
			break;
		case SIM_ASYNC_INSTANT:
			start_slice(m, async_track_of(m, e), e, 0);
			break;
		case SIM_ASYNC_END:
			end_slice(m, async_track_of(m, e), e);
			break;
		default:
			flow(m, e);
			break;
		}
	}
	for (i = 0; i < m->nslices; i++) {
		const struct sim_slice *s = &m->slices[i];

		see_time(m, s->ts);
		if (s->async) {
			m->fig[F_ASYNC_SLICES]++;
			if (s->dur == SLICE_PENDING)
				m->fig[F_ASYNC_OPEN]++;
			else
				see_time(m, s->ts + s->dur);
			continue;
		}
		m->fig[F_THREAD_SLICES]++;
		if (s->dur == SLICE_PENDING) {
			m->fig[F_THREAD_OPEN]++;
			continue;
		}
		m->fig[F_THREAD_ZERO] += s->dur == 0;
		m->fig[F_THREAD_DUR] += s->dur;
		see_time(m, s->ts + s->dur);
	}
	/* Perfetto's bounds of a single instant in time end 1 ns later. */
	if (m->have_time && m->fig[F_END] == m->fig[F_START])
		m->fig[F_END]++;
}

static void model_free(struct model *m)
{
	struct sim_track *t;
	size_t pos = 0;

	struct async_track *at;
	struct async_set *set;

	while ((t = fxt_map_next(&m->tracks, &pos, NULL, NULL)))
		free(t->stack);
	pos = 0;
	while ((at = fxt_map_next(&m->async_tracks, &pos, NULL, NULL)))
		free(at->t.stack);
	pos = 0;
	while ((set = fxt_map_next(&m->async_sets, &pos, NULL, NULL)))
		free(set->tracks);
	fxt_map_free(&m->keys.index);
	free(m->keys.offsets);
	free(m->keys.bytes);
	free(m->keys.scratch);
	fxt_map_free(&m->tracks);
	fxt_map_free(&m->async_roots);
	fxt_map_free(&m->async_sets);
	fxt_map_free(&m->async_cookies);
	fxt_map_free(&m->async_tracks);
	fxt_map_free(&m->counter_tracks);
	fxt_map_free(&m->active_flows);
	fxt_map_free(&m->flow_owners);
	fxt_map_free(&m->flow_slices);
	fxt_map_free(&m->cpus);
	free(m->events);
	free(m->slices);
}

/* ---- the trace processor -------------------------------------------------- */

/* The trace processor to run, or NULL after saying why there is none. */
static const char *find_trace_processor(char *buf, size_t size)
{
	const char *env = getenv(TP_ENV), *path = getenv("PATH");
	const char *dir, *end;

	if (env && *env) {
		if (access(env, X_OK) == 0)
			return env;
		fprintf(stderr, "fxtrace check: %s=%s: %s\n", TP_ENV, env,
			strerror(errno));
		return NULL;
	}
	for (dir = path; dir && *dir; dir = *end ? end + 1 : end) {
		end = strchrnul(dir, ':');
		if (snprintf(buf, size, "%.*s/%s", (int)(end - dir), dir,
			     TP_NAME) < (int)size && access(buf, X_OK) == 0)
			return buf;
	}
	fprintf(stderr, "fxtrace check: no trace processor: set %s or put %s on PATH\n",
		TP_ENV, TP_NAME);
	return NULL;
}

/*
 * The temporary export, a copy of the whole trace: a pending file
 * (fxtrace.h), removed when a signal ends the check (Ctrl-C while the
 * trace processor imports a large trace), not left in /tmp.  The trace
 * processor running on it (fxtrace_pending_fork()) gets the signal too: a
 * `kill` of the check alone would leave it importing the file for
 * minutes, its space held though the name is gone.
 */
static char tmp_json[sizeof(TMP_JSON)];

/*
 * Run `tp query FILE SQL`; its stdout into *out (NUL-terminated, malloc'd),
 * its stderr into errfd.  Returns its exit status, or -1 after saying why.
 */
static int run_query(const char *tp, const char *file, const char *sql,
		     char **out, int errfd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *bigger;
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	if (!buf || pipe(pipefd)) {
		free(buf);
		fprintf(stderr, "fxtrace check: %s\n", strerror(errno));
		return -1;
	}
	pid = fxtrace_pending_fork();
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(errfd, STDERR_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execl(tp, tp, "query", file, sql, (char *)NULL);
		fprintf(stderr, "fxtrace check: cannot run %s: %s\n", tp,
			strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	while (pid > 0) {
		if (len + 1 >= cap) {
			bigger = realloc(buf, cap * 2);
			if (!bigger)
				break;
			buf = bigger;
			cap *= 2;
		}
		n = read(pipefd[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(pipefd[0]);
	fxtrace_pending_reaping();
	buf[len] = '\0';
	*out = buf;
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "fxtrace check: cannot run %s: %s\n", tp,
			strerror(errno));
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The next CSV line of s (cut in place), or NULL at the end. */
static char *next_line(char **s)
{
	char *line = *s, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*s = nl + 1;
	} else {
		*s = line + strlen(line);
	}
	return line;
}

/* Field i of a CSV line whose strings are quoted and have no commas. */
static const char *field(const char *line, int i, char *buf, size_t size)
{
	size_t n;

	while (i-- > 0 && line)
		line = strchr(line, ',') ? strchr(line, ',') + 1 : NULL;
	if (!line)
		return "";
	n = strcspn(line, ",");
	if (n >= 2 && line[0] == '"' && line[n - 1] == '"') {
		line++;
		n -= 2;
	}
	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), line);
	return buf;
}

static void hex(char *out, size_t size, const struct fxt_string *s)
{
	static const char digits[] = "0123456789ABCDEF";
	size_t i;

	for (i = 0; s->ptr && i < s->len && 2 * i + 2 < size; i++) {
		out[2 * i] = digits[(unsigned char)s->ptr[i] >> 4];
		out[2 * i + 1] = digits[(unsigned char)s->ptr[i] & 15];
	}
	out[2 * i] = '\0';
}

struct compare {
	const char *path;
	bool quiet;
	unsigned int disagreements;
};

__attribute__((format(printf, 2, 3)))
static void disagree(struct compare *c, const char *fmt, ...)
{
	va_list ap;

	c->disagreements++;
	if (c->quiet)
		return;
	printf("%s: perfetto: ", c->path);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Each named thread (threads) or process Perfetto lists, against the reader's. */
static void compare_names(struct compare *c, struct fxt_reader *r, char **rows,
			  bool threads, bool json)
{
	char koid_buf[32], name_buf[1024], want[1024];
	struct fxt_string name;
	uint64_t koid;
	char *line;

	next_line(rows);	/* the header */
	while ((line = next_line(rows)) && *line) {
		koid = strtoull(field(line, 0, koid_buf, sizeof(koid_buf)),
				NULL, 10);
		field(line, 1, name_buf, sizeof(name_buf));
		/* The export's own tracks: counted in the model already. */
		if (json && (threads ? koid >= EXPORT_CPU_TID &&
					koid <= EXPORT_CPU_TID + 0xffff :
				       koid == EXPORT_CPU_PID))
			continue;
		if (!(threads ? fxt_reader_thread_name(r, koid, &name, NULL) :
				fxt_reader_process_name(r, koid, &name))) {
			disagree(c, "%s %" PRIu64 " is named in Perfetto, not in the trace",
				 threads ? "thread" : "process", koid);
			continue;
		}
		hex(want, sizeof(want), &name);
		if (strcmp(want, name_buf))
			disagree(c, "%s %" PRIu64 " is named %s (hex) in Perfetto, %s in the trace",
				 threads ? "thread" : "process", koid, name_buf,
				 want);
	}
}

/* Count what the reader names, as the figures do. */
static int64_t count_named(struct fxt_reader *r, bool threads)
{
	struct fxt_string name;
	uint64_t koid, pid;
	size_t pos = 0;
	int64_t n = 0;

	while (threads ? fxt_reader_next_thread(r, &pos, &koid, &pid, &name) :
			 fxt_reader_next_process(r, &pos, &koid, &name))
		n++;
	return n;
}

/* Figures compared in the JSON round trip (no sched_slice from JSON). */
static bool in_json(enum figure f)
{
	return f != F_SCHED_SLICES && f != F_THREAD_STATES &&
	       f != F_COUNTER_TRACKS && f != F_FLOWS;
}

static int compare(struct compare *c, struct model *m, struct fxt_reader *r,
		   char *out, bool json)
{
	char header[2048], row[4096], buf[1024];
	char *rest = out, *line;
	int64_t got;
	int f;

	line = next_line(&rest);
	snprintf(header, sizeof(header), "%s", line ? line : "");
	line = next_line(&rest);
	if (!line) {
		disagree(c, "the query printed nothing");
		return 1;
	}
	snprintf(row, sizeof(row), "%s", line);
	next_line(&rest);	/* the blank line between results */
	m->fig[F_NAMED_THREADS] = count_named(r, true);
	m->fig[F_NAMED_PROCESSES] = count_named(r, false);
	if (json && m->cpus.count) {	/* the export's "CPU N" and "CPUs" */
		m->fig[F_NAMED_THREADS] += m->cpus.count;
		m->fig[F_NAMED_PROCESSES]++;
	}
	if (!json && strcmp(field(row, F_COUNT + 1, buf, sizeof(buf)), "fuchsia"))
		disagree(c, "imported as trace type '%s', not fuchsia", buf);
	if (*field(row, F_COUNT, buf, sizeof(buf)))
		disagree(c, "problem stats: %s", buf);
	for (f = 0; f < F_COUNT; f++) {
		if (json && !in_json(f))
			continue;
		got = strtoll(field(row, f, buf, sizeof(buf)), NULL, 10);
		if (got != m->fig[f])
			disagree(c, "%s: perfetto %" PRId64 ", fxtrace %" PRId64,
				 figure_names[f], got, m->fig[f]);
	}
	compare_names(c, r, &rest, true, json);
	compare_names(c, r, &rest, false, json);
	if (!c->quiet) {
		for (f = 0; f < P_COUNT; f++)
			if (m->predicted[f])
				printf("%s: perfetto: fxtrace predicts %s=%" PRIu64 "\n",
				       c->path, predicted_names[f],
				       m->predicted[f]);
		printf("%s: perfetto:", c->path);
		for (f = 0; f < F_COUNT; f++)
			if (!json || in_json(f))
				printf(" %s=%" PRId64, figure_names[f], m->fig[f]);
		putchar('\n');
	}
	return 0;
}

/*
 * The trace as `fxtrace export` writes it, in tmp_json, pending until
 * fxtrace_pending_end(); 1 after a message (none left).
 */
static int export_json(struct fxtrace_input *in)
{
	struct fxt_reader *r;
	bool write_failed;
	sigset_t old;
	FILE *out;
	int fd, ret;

	fxtrace_pending_mask(SIG_BLOCK, &old);
	memcpy(tmp_json, TMP_JSON, sizeof(TMP_JSON));
	fd = mkstemps(tmp_json, 5);
	if (fd >= 0)
		fxtrace_pending_start(tmp_json);
	fxtrace_pending_mask(SIG_SETMASK, &old);
	if (fd < 0) {
		fprintf(stderr, "fxtrace check: %s: %s\n", TMP_JSON,
			strerror(errno));
		return 1;
	}
	out = fdopen(fd, "w");
	if (!out) {
		fprintf(stderr, "fxtrace check: %s: %s\n", tmp_json,
			strerror(errno));
		close(fd);
		fxtrace_pending_end();
		return 1;
	}
	/* A reader of its own: the first walk left in->reader at the end. */
	r = fxt_reader_new(NULL, NULL);
	if (r)
		fxt_reader_set_memory_budget(r,
			fxt_reader_memory_budget(in->reader));
	ret = r ? fxtrace_export_json(out, r, fxtrace_read_source, &in->src) :
		  -ENOMEM;
	fxt_reader_free(r);
	/* A JSON file cut short (ENOSPC) is not one to compare. */
	write_failed = ret == FXTRACE_WALK_OUTPUT_GONE || ferror(out);
	if (fclose(out))
		write_failed = true;
	if (write_failed && ret >= 0)
		ret = errno ? -errno : -EIO;
	if (ret < 0) {
		fprintf(stderr, "fxtrace check: cannot export %s: %s\n",
			in->path, strerror(-ret));
		fxtrace_pending_end();
	}
	return ret < 0 ? 1 : 0;
}

int fxtrace_check_perfetto(const char *path, const char *mode, bool quiet,
			   uint64_t memory_limit)
{
	struct compare c = { .quiet = quiet };
	char tp_buf[PATH_MAX];
	const char *tp, *imported;
	struct fxtrace_input in;
	struct model m = { 0 };
	char errpath[] = "/tmp/fxtrace-XXXXXX";
	char *out = NULL, errtext[512];
	int ret, status, errfd;
	bool as_json;
	ssize_t n;

	if (strcmp(mode, "fxt") && strcmp(mode, "json"))
		return fxtrace_usage_error("check", "--perfetto=%s: fxt or json",
					   mode);
	as_json = !strcmp(mode, "json");
	ret = fxtrace_input_open(&in, "check", path, memory_limit);
	if (ret)
		return ret;
	c.path = in.path;
	if (!strcmp(in.path, "-")) {
		fxtrace_input_close(&in, 0);
		return fxtrace_usage_error("check", "--perfetto needs a file, not stdin");
	}
	/* Perfetto reads the whole file, past a drainer's flush mark too. */
	in.src.left = UINT64_MAX;
	tp = find_trace_processor(tp_buf, sizeof(tp_buf));
	if (!tp) {
		fxtrace_input_close(&in, 0);
		return FXTRACE_EXIT_NO_TRACE_PROCESSOR;
	}
	m.json = as_json;
	fxt_map_init(&m.keys.index, sizeof(uint64_t));
	fxt_map_init(&m.tracks, sizeof(struct sim_track));
	fxt_map_init(&m.async_roots, sizeof(uint64_t));
	fxt_map_init(&m.async_sets, sizeof(struct async_set));
	fxt_map_init(&m.async_cookies, sizeof(uint64_t));
	fxt_map_init(&m.async_tracks, sizeof(struct async_track));
	fxt_map_init(&m.counter_tracks, 1);
	fxt_map_init(&m.active_flows, sizeof(uint64_t));
	fxt_map_init(&m.flow_owners, sizeof(struct flow_owner));
	fxt_map_init(&m.flow_slices, sizeof(uint64_t));
	fxt_map_init(&m.cpus, sizeof(struct cpu_span));
	ret = fxt_reader_read(in.reader, fxtrace_read_source, &in.src,
			      model_record, &m);
	if (!ret)
		replay(&m);
	if (ret || m.error) {
		status = fxtrace_input_close(&in, ret ? ret : m.error);
		model_free(&m);
		return status ? status : 1;
	}
	m.fig[F_COUNTER_TRACKS] = m.counter_tracks.count;
	imported = in.path;
	if (as_json) {
		/* A second walk, the export's, needs the file from the start. */
		in.src.left = UINT64_MAX;
		if (lseek(in.src.fd, 0, SEEK_SET) || export_json(&in)) {
			fxtrace_input_close(&in, -EIO);
			model_free(&m);
			return 1;
		}
		imported = tmp_json;
	}
	errfd = mkstemp(errpath);
	if (errfd >= 0)
		unlink(errpath);
	status = errfd < 0 ? -1 : run_query(tp, imported, query_fxt, &out,
					    errfd);
	if (as_json)
		fxtrace_pending_end();
	if (status != 0) {
		n = errfd < 0 ? 0 : pread(errfd, errtext, sizeof(errtext) - 1, 0);
		errtext[n > 0 ? n : 0] = '\0';
		printf("%s: perfetto: import failed (%s exit %d): %s\n", in.path,
		       TP_NAME, status, errtext);
		c.disagreements++;
	} else {
		compare(&c, &m, in.reader, out, as_json);
	}
	if (errfd >= 0)
		close(errfd);
	if (m.skipped && !quiet)
		printf("%s: perfetto: %" PRIu64 " record%s with errors not modelled\n",
		       in.path, m.skipped, m.skipped == 1 ? "" : "s");
	printf("%s: perfetto%s: %s\n", in.path, as_json ? " (json)" : "",
	       c.disagreements ? "DISAGREES" : "agrees");
	free(out);
	model_free(&m);
	fxtrace_input_close(&in, 0);
	return c.disagreements ? 1 : 0;
}
