/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - what `fxtrace report` collects from a trace and computes
 * (report.c), and prints as text, JSON (report_print.c) or HTML
 * (report_html.c).  All times are nanoseconds on the trace's clock.
 */
#ifndef FXTRACE_REPORT_H
#define FXTRACE_REPORT_H

#include "fxt_map.h"
#include "fxtrace.h"

/* An interned category:name (also argument names, with an empty category). */
struct report_name {
	char *cat, *name;	/* copies, NUL-terminated after their len */
	size_t cat_len, name_len;	/* NUL bytes within count too */
	bool syscall;		/* category kernel:syscall */
};

/*
 * "cat:name", or "name" without a category, into buf, cut to size - 1
 * bytes (size > 0); returns its length.  NUL bytes of the name are kept.
 */
size_t report_full_name(const struct report_name *n, char *buf, size_t size);

/* A duration begin, end or complete event. */
struct report_event {
	uint64_t pid, tid;
	int64_t ts, end;	/* end: complete events */
	uint64_t offset;
	uint32_t name;
	uint32_t type;		/* FXT_EVENT_DURATION_* */
};

/* A begin matched with its end, or a complete event. */
struct report_slice {
	uint64_t pid, tid;
	int64_t start, end, self;
	uint64_t offset;	/* of the record that opened it */
	uint32_t name;
};

/* Per category:name, over its slices. */
struct report_stat {
	uint64_t count;
	int64_t total, self, mean, p50, p99, max;
};

struct report_sched {
	int64_t ts;
	uint64_t offset;
	uint32_t cpu;
	bool wakeup;
	uint32_t state;		/* the outgoing thread's */
	uint64_t out, in;	/* tids; a wakeup's woken thread is `in` */
};

struct report_thread {
	uint64_t tid;
	uint64_t switches_in, wakeups;
	int64_t cpu_ns, blocked_ns, preempted_ns;
	int64_t *latency;	/* wakeup-to-run samples, in time order */
	size_t nlatency, latency_cap;
	/* While computing. */
	bool on_cpu, blocked, preempted, woken;
	int64_t blocked_since, woken_at;	/* blocked_since: switched out */
};

struct report_cpu {
	uint32_t cpu;
	uint64_t switches, wakeups;
	int64_t busy_ns, idle_ns;
	/* While computing: who runs since when. */
	bool running;
	uint64_t tid;
	int64_t since;
};

/* One numeric argument of an fxtrace:dropped counter. */
struct report_drop {
	uint64_t pid, tid, id;
	int64_t ts;
	uint64_t offset;
	uint32_t arg;		/* its name, interned */
	double value;
};

struct report_provider {
	uint64_t id, buffer_full;
};

struct report {
	struct fxt_reader *r;
	const struct fxtrace_select *select;	/* never NULL */
	uint64_t records;
	bool have_time;
	int64_t first_ns, last_ns;

	struct report_name *names;
	size_t nnames, names_cap;
	struct fxt_map name_index;	/* (hash cat, hash name) -> index */
	struct fxt_map pids;		/* (tid, 0) -> pid, from every record */
	struct fxt_map listed;		/* (tid, 0) -> pid: selected records' */

	struct report_event *events;
	size_t nevents, events_cap;
	struct report_slice *slices;
	size_t nslices, slices_cap;
	uint64_t unmatched_ends, unended;
	struct report_stat *stats;	/* per name */

	struct report_sched *sched;
	size_t nsched, sched_cap;
	struct fxt_map threads;		/* (tid, 0) -> report_thread */
	struct fxt_map cpus;		/* (cpu, 0) -> report_cpu */

	struct report_drop *drops;
	size_t ndrops, drops_cap;
	struct report_provider *providers;	/* in order of appearance */
	size_t nproviders, providers_cap;
	struct fxt_map provider_index;	/* (id, 0) -> index in providers */
};

/* select may be NULL: every record. */
void report_init(struct report *rp, struct fxt_reader *r,
		 const struct fxtrace_select *select);
int report_collect(struct report *rp, fxt_read_fn *read, void *read_ctx);
int report_compute(struct report *rp);
void report_free(struct report *rp);

/* The thread's process, 0 when no record said. */
uint64_t report_pid_of(const struct report *rp, uint64_t tid);

/* Nearest-rank percentile p of n sorted values (0 when n is 0). */
int64_t report_percentile(const int64_t *sorted, size_t n, unsigned int p);

/* ---- printing ------------------------------------------------------------- */

enum report_key {
	KEY_COUNT, KEY_TOTAL, KEY_SELF, KEY_MEAN, KEY_P50, KEY_P99, KEY_MAX,
	KEY_NAME,
	KEY_CPU, KEY_BLOCKED, KEY_WAKEUPS, KEY_LATENCY, KEY_TID,
};

struct report_options {
	enum report_key slice_key;	/* slices and syscalls tables */
	enum report_key thread_key;	/* threads and processes tables */
	size_t top;			/* longest slices listed */
	bool json;
	const char *path;		/* the trace, as named */
};

/* Rows sorted for printing, shared by the text, JSON and HTML outputs. */
struct report_thread_row {
	const struct report_thread *t;
	uint64_t pid;
	int64_t lat_total, lat_max, lat_p50, lat_p99;
};

struct report_process_row {
	uint64_t pid;
	size_t threads;
	uint64_t switches_in, wakeups, latency_count;
	int64_t cpu_ns, blocked_ns, preempted_ns, lat_total, lat_max;
};

struct report_rows {
	uint32_t *slices, *syscalls;	/* name indexes */
	size_t nslices, nsyscalls;
	struct report_thread_row *threads;
	size_t nthreads;
	struct report_process_row *processes;
	size_t nprocesses;
	struct report_cpu *cpus;
	size_t ncpus;
	uint32_t *longest;		/* slice indexes */
	size_t nlongest;
};

int report_rows(const struct report *rp, const struct report_options *o,
		struct report_rows *rows);
void report_rows_free(struct report_rows *rows);

void report_print_text(FILE *out, const struct report *rp,
		       const struct report_rows *rows,
		       const struct report_options *o);
void report_print_json(FILE *out, const struct report *rp,
		       const struct report_rows *rows,
		       const struct report_options *o);
int report_write_html(FILE *out, const struct report *rp,
		      const struct report_rows *rows,
		      const struct report_options *o);

/*
 * Sums of nanoseconds saturate at INT64_MAX (292 years) instead of
 * overflowing: a hostile trace's far-apart timestamps must not wrap a total.
 */
static inline int64_t report_ns_add(int64_t a, int64_t b)
{
	int64_t sum;

	if (__builtin_add_overflow(a, b, &sum))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return sum;
}

#endif /* FXTRACE_REPORT_H */
