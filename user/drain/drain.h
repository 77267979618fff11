/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drain.h - fxtrace-drain's parts: the output (validated FXT built from
 * buffer spans, output.c) and the daemon around it (drain.c).
 *
 * The output is built in file order: each chunk is given its file offset
 * when it is built, so the provider sections, the announcement of each
 * buffer and the durable additions come out in the order a reader needs
 * them even though the writes complete out of order.
 */
#ifndef DRAIN_H
#define DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt_map.h"
#include "fxt_reader.h"
#include "fxtctl.h"
#include "slices.h"

/* Bytes bound for the file at one offset. */
struct chunk {
	unsigned char *data;
	size_t len, cap;
	uint64_t offset;		/* in the output file */
};

/*
 * Why a record of a buffer was not written; each is counted against the
 * buffer that held it (Documentation/drain.rst, "What a producer cannot
 * do").
 */
enum refusal {
	REFUSED_INVALID,	/* breaks a decoder rule (error or warning) */
	REFUSED_KIND,		/* a record kind this buffer may not write */
	REFUSED_FOREIGN,	/* names a process or thread not its own */
	REFUSED_TIME,		/* a timestamp outside the session window */
	REFUSED_ASYNC,		/* its process's async share is full, or
				 * an async end named unlike its begin */
	REFUSED_STRINGS,	/* its string budget is full */
	REFUSED_FLOW,		/* a flow outside its thread's slices, a
				 * begin of an open id, or past a share */
	REFUSED_PROVIDER,	/* its buffer id is the probes' provider id */
	REFUSED_COUNT
};

extern const char *const refusal_names[REFUSED_COUNT];

/*
 * A producer's own count of the records it dropped, as written in its
 * control page (untrusted): shown as its own and bounded, never added to
 * the kernel's counts.
 */
#define PRODUCER_DROPS_MAX	(1ULL << 40)

/* What the drainer knows of one buffer; the buffer id is its provider id. */
struct drain_buffer {
	uint32_t id, kind;
	uint32_t cpu, tid;
	uint64_t pid;
	/*
	 * Task buffers: the user the kernel charges its thread to (the
	 * header's owner_uid), or OWNER_UNKNOWN when the module is older
	 * than ABI 0.8 and does not say.
	 */
	uint64_t owner;
	bool announced;			/* provider info is in the file */
	bool durable_broken;		/* an unframeable durable record */
	bool released;
	struct fxt_tables *tables;	/* as a reader of the file sees them */
	char name[FXT_PROVIDER_NAME_MAX + 1];	/* from the kernel */
	uint64_t durable_done;		/* durable bytes consumed */
	uint64_t next_wrap;		/* first rolling half not written */
	uint64_t records, bytes;	/* written to the file */
	uint64_t invalid;		/* records refused, all reasons */
	uint64_t refused[REFUSED_COUNT];
	uint64_t repaired;		/* kernel names made valid UTF-8 */
	/* Its string bytes kept by itself (TASK_STRINGS_OWN or 0). */
	size_t strings_own;
	/* Of its string tables' bytes, those in output.task_strings. */
	size_t strings_shared;
	/*
	 * Records its writer dropped: the kernel's count (CPU and kernel
	 * buffers), the producer's own (task buffers, PRODUCER_DROPS_MAX at
	 * most).
	 */
	uint64_t dropped;
	uint64_t last_ts;		/* of its newest valid event */
	/* The kernel's last save request: its half and time (0: none). */
	uint64_t request_wrap, request_ns;
};

/*
 * A process's count of events it lost without a buffer, as the newest
 * "fxtrace:lost events" counter of its own task buffers says it
 * (untrusted: bounded at PRODUCER_DROPS_MAX, never added to other counts).
 */
struct pid_lost {
	uint64_t ts;			/* of that counter */
	uint64_t count;
};

/*
 * Processes whose events lost without a buffer the summary lists (the
 * first to report them); later ones' reports are only counted, so that the
 * table (2 MB at most) and the summary stay bounded whatever pid_max is.
 */
#define LOST_PIDS_MAX		32768

/* What the buffers of one kind wrote, retired ones included. */
struct kind_totals {
	unsigned int buffers;
	uint64_t records, bytes, dropped, invalid, repaired;
	uint64_t refused[REFUSED_COUNT];
};

#define KIND_COUNT (FXTRACE_BUFFER_KERNEL + 1)

/*
 * The string tables of the task buffers share a bound besides their own
 * (twice the durable part plus 1 MiB): each of the first
 * TASK_STRINGS_OWNERS task buffers at once keeps up to TASK_STRINGS_OWN
 * bytes by itself, the durable part of a default 1 MiB buffer, and what
 * they hold past that, with all that the others hold, is at most
 * TASK_STRINGS_SHARED, the durable parts of 64 buffers of the largest
 * (1 MiB) filled with strings.  TASK_STRINGS_OWNERS is the controller's
 * default max_task_buffers, so that every buffer of the drainer's session
 * keeps its own part; a session made with more (up to 65,536: fxtrace stop
 * -o adopts any) gives the rest none, or its strings could take 4 GiB.
 * All of them hold at most 128 MiB (Documentation/drain.rst, "string
 * budget full").
 */
#define TASK_STRINGS_OWN	(64 << 10)
#define TASK_STRINGS_OWNERS	1024
#define TASK_STRINGS_SHARED	(64 << 20)

struct flow_early_node;

struct output {
	uint64_t offset;		/* of the next chunk */
	uint32_t current;		/* provider of the file's last record */
	uint64_t ticks_per_second;
	/*
	 * The session window in ticks: records with a timestamp outside it
	 * are refused (Documentation/drain.rst, "The session window").
	 */
	uint64_t window_lo, window_hi;
	struct fxt_map bufs;		/* (id, 0) -> struct drain_buffer * */
	struct fxt_map pids;		/* (pid, 0) -> struct pid_share */
	struct kind_totals retired[KIND_COUNT];	/* buffers freed */
	size_t task_strings;		/* past their own, all task buffers */
	unsigned int task_string_owners;	/* with strings_own, live */
	unsigned char *scratch;		/* producer bytes copied out */
	size_t scratch_cap;
	struct fxt_map asyncs;		/* (pid, id) -> its begin (async_open) */
	uint64_t async_last_id;		/* the last id given in the output */
	/* (owner, id), or (FLOW_KEY_SHARED, id) -> its begin (flow_open) */
	struct fxt_map flows;
	struct fxt_map flow_users;	/* (owner, 0) -> its flows open */
	bool shared_flows;		/* flows keyed by id across users */
	/*
	 * The users the session traces (output_traced_users()): its owner
	 * and its pid filter's process's user, or NO_USER.  They and root
	 * have no share of their own, as in fxtrace.ko (fxt_share_exempt());
	 * the others together leave the traced users a quarter of the
	 * session's bounds.
	 */
	uint64_t traced_users[2];
	uint64_t flows_others;		/* open flows of users not traced */
	/* (owner, id), or (FLOW_KEY_SHARED, id) -> struct flow_early */
	struct fxt_map flows_early;
	struct fxt_map early_users;	/* (owner, 0) -> struct early_user */
	uint64_t early_count;		/* early ids kept, all users */
	/* each run's place in its user's age order (output.c) */
	struct flow_early_node *early_nodes;
	uint32_t early_nodes_made;	/* of early_nodes, ever used */
	uint32_t early_nodes_cap;
	uint32_t early_nodes_free;	/* first of the free ones, or none */
	uint64_t flow_last_id;		/* the last id given in the output */
	/*
	 * The start time of process pid now (any clock that never repeats
	 * for a pid), 0 when unknown; NULL: never known.  Tells a thread of
	 * a process attached anew from a new process of its pid.
	 */
	uint64_t (*process_start)(uint32_t pid);
	bool owner_unknown_told;	/* the old module's header is reported */
	struct fxt_map threads;		/* (tid, 0) -> struct thread_slices */
	struct fxt_map kept_users;	/* (owner, 0) -> struct kept_user */
	uint64_t kept_frames;		/* charged for kept stacks, all users */
	uint64_t kept_frames_others;	/* ... of users not traced */
	struct fxt_map lost;		/* (pid, 0) -> struct pid_lost */
	uint64_t lost_unlisted;		/* reports past LOST_PIDS_MAX pids */
	bool verbose;			/* describe invalid records */
	unsigned int diags;		/* invalid records described */
	__u64 repair[64];		/* a kernel record, its name repaired */
	struct fxt_record rec;
	/*
	 * The fast pass's view of the buffer being drained (fastpass.h);
	 * allocated on first use.  full_decode: every record through the
	 * full decoder instead, the reference the fast pass is tested against.
	 */
	struct fast_pass *fast;
	bool full_decode;
	/*
	 * The provider id of the records the drainer writes itself (the
	 * probes'), 0 while there are none.  Buffer ids count up to 2^32 - 1,
	 * so a buffer can get it; that buffer's provider info would replace
	 * the probes' provider in a reader, string table and all, and its
	 * string records would name their events: its records are refused.
	 */
	uint32_t probe_provider;
};

/* The slack around the session window: Start - 1 s to now + 1 s. */
#define WINDOW_SLACK_NS		1000000000ULL

/* start_ticks: the session clock before anything is traced. */
int output_init(struct output *o, uint64_t ticks_per_second,
		uint64_t start_ticks);
void output_free(struct output *o);

/* No user: output_traced_users()'s filter_user without a pid filter. */
#define NO_USER			UINT64_MAX

/*
 * The users the session traces, uids of the init user namespace as task
 * buffers' headers name them: its owner, and the user of the process its
 * pid filter names (NO_USER: none), again whenever that user changes.
 */
void output_traced_users(struct output *o, uint64_t owner,
			 uint64_t filter_user);

/* uid is a user the session traces (output_traced_users()). */
bool output_user_traced(const struct output *o, uint64_t uid);
/*
 * Field 22 (starttime) of the text of a /proc/PID/stat, 0 if it has
 * none: after the comm's last ')', whatever the comm holds.
 */
uint64_t proc_stat_start(const char *text);

/* The session clock now: records up to it (and the slack) are accepted. */
void output_set_now(struct output *o, uint64_t now_ticks);

/* The session window in ns, as the window mark says it (flush_mark.h). */
void output_window_ns(const struct output *o, uint64_t *lo_ns,
		      uint64_t *hi_ns);

/* The magic, flush mark and window records (flush_mark.h), the first chunk. */
int output_magic(struct output *o, struct chunk *c);
/*
 * The magic alone, the first chunk of a stream: it cannot be rewritten, so
 * it carries no mark (a trace written whole, as a snapshot is).
 */
int output_magic_unmarked(struct output *o, struct chunk *c);

/* The state of buffer b (mapped), created on first use; NULL on ENOMEM. */
struct drain_buffer *output_buffer(struct output *o,
				   const struct fxtctl_buffer *b);
struct drain_buffer *output_find(struct output *o, uint32_t id);

/* Iterate the buffers not retired (*pos starts at 0); NULL at the end. */
struct drain_buffer *output_next(const struct output *o, size_t *pos);

/*
 * Buffer db is released: fold its counts into o->retired and free it
 * (its tables, and its share of the async table and its thread's slice
 * stack when it was the last buffer of its process or thread; its
 * process's open flows stay).
 */
void output_retire(struct output *o, struct drain_buffer *db);

/* The totals of a kind: the retired buffers' and the live ones'. */
void output_totals(const struct output *o, unsigned int kind,
		   struct kind_totals *t);

/*
 * One saved rolling half of b with the durable additions before it.
 * c->len is 0 when nothing valid was there.
 */
int output_half(struct output *o, const struct fxtctl_buffer *b,
		const struct fxtctl_span *half, struct chunk *c);

/* Everything of b not written yet (Stop, retirement). */
int output_rest(struct output *o, const struct fxtctl_buffer *b,
		struct chunk *c);

/*
 * One summary line per process whose producer reported events lost
 * without a buffer (a nonzero count), by pid: "fxtrace-drain: pid P: N
 * events lost without a buffer (as its producer reports)".
 */
void output_report_lost(const struct output *o, FILE *f);

/* The "fxtrace:dropped" counter of db, when it has drops. */
int output_drops(struct output *o, struct drain_buffer *db, struct chunk *c);

/*
 * A retired task buffer's private copy, kept for a circular session's
 * snapshots (Documentation/drain.rst, "Threads that exited"): its header
 * page, its control page as read once, and its data area up to the last
 * byte that control page says is committed, with those bytes.  Its
 * producer wrote all of it, so it is as untrusted as the mapping:
 * snapshots put it through the same checks (output_rest()).
 */
struct retired_copy {
	struct fxtctl_buffer b;		/* hdr, ctl and data point into mem */
	struct retired_copy *newer;
	size_t bytes;			/* allocated, all charged */
	unsigned char mem[];
};

/*
 * The copies, oldest first, within budget bytes (the allocations whole):
 * a new copy evicts the oldest ones until it fits; one larger than the
 * budget is not taken.
 */
struct retired_copies {
	struct retired_copy *oldest, *newest;
	uint64_t budget, used;
	unsigned int held;		/* copies in the list */
	uint64_t retired;		/* task buffers retired, kept or not */
	uint64_t lost;			/* not mapped, or no memory to copy */
};

/*
 * What a copy whose data area is data_len bytes is charged: its data, the
 * header and control pages as copied, and its bookkeeping.
 */
static inline uint64_t retired_copy_bytes(uint64_t data_len)
{
	return sizeof(struct retired_copy) + FXTRACE_BUFFER_PAGE_SIZE +
	       sizeof(struct fxtrace_buffer_control) + data_len;
}

/*
 * The default budget for task buffers of task_size bytes: 64 MiB (64 of
 * the default 1 MiB), or two whole copies of larger ones (drain.rst,
 * "Threads that exited").
 */
static inline uint64_t snapshot_retired_default(uint64_t task_size)
{
	uint64_t two = 2 * retired_copy_bytes(task_size);

	return two > (64ULL << 20) ? two : 64ULL << 20;
}

/*
 * Task buffer b retired: keep a copy of it, the most recent first.  0, or
 * -ENOMEM (nothing kept, counted lost).
 */
int retired_keep(struct retired_copies *r, const struct fxtctl_buffer *b);
/* A retired buffer the drainer could not map: counted lost. */
void retired_lose(struct retired_copies *r);
/*
 * The retired buffers not kept now and not lost: evicted, or too large
 * for the budget.  Kept (held), evicted and lost add up to retired.
 */
uint64_t retired_evicted(const struct retired_copies *r);
void retired_free(struct retired_copies *r);

/*
 * Task buffer b retired in a circular session: its copy kept in r
 * (retired_keep()), and its rest in c as output_rest() writes it, from
 * that copy when one is kept: the trace and every snapshot hold the same
 * bytes of it.  Without memory for the copy (counted lost in r) the rest
 * is written from b.  0, or output_rest()'s -errno.
 */
int output_retired_rest(struct output *o, struct retired_copies *r,
			const struct fxtctl_buffer *b, struct chunk *c);

/*
 * The start of a snapshot, to fd: the magic, then the copies of retired
 * buffers in kept (NULL: none), oldest first, each with its drop counter
 * and retired as the trace retired it.  The number of copies, or -errno.
 */
int output_snapshot_copies(struct output *o,
			   const struct retired_copies *kept, int fd);

/*
 * A trace of what every buffer of c's session holds now, to fd: the
 * copies (output_snapshot_copies()); then, with pause
 * while the writers pause (fxtctl_pause(): they drop and count what they
 * write meanwhile), each buffer of the session as output_rest() writes it
 * at the end of a session, through the same checks, and the drop
 * counters; then the writers resume.  The copies never change, so the
 * pause covers the live buffers alone.  o is fresh (output_init(), its
 * window set); its counts say what was refused.  A circular session's
 * snapshots (pause) and `fxtrace stop -o`.  With not_mapped, a buffer
 * that cannot be mapped is named on stderr, counted there and skipped;
 * without, it fails the whole.  Returns the number of buffers written,
 * kept copies included, or -errno (a pause that failed, said on stderr:
 * the file holds the copies alone).
 */
int output_session(struct output *o, struct fxtctl *c,
		   const struct retired_copies *kept, bool pause, int fd,
		   unsigned int *not_mapped);

/*
 * Records another source built (the probes, each batch with its own
 * provider section): append them to c, then give c its place in the file.
 * provider is the one of c's last section.
 */
int chunk_append(struct chunk *c, const void *bytes, size_t len);
void output_place(struct output *o, struct chunk *c, uint32_t provider);

void chunk_free(struct chunk *c);

#endif /* DRAIN_H */
