// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - turn buffer spans into chunks of valid FXT (drain.h).
 *
 * Producer bytes are untrusted and can change under us, so every span is
 * copied out of its mapping first and each record of the copy is decoded
 * against the tables a reader of the output file will have for that buffer's
 * provider.  Only records that decode without an error or a warning are
 * written; their definitions (strings, threads, tick rate) then enter the
 * tables, so the tables and the file never disagree.
 *
 * A task buffer is written by an untrusted producer, so its records must
 * also be attributable to that producer alone (its pid and tid come from
 * the kernel's header page), of kinds no consumer mistakes for kernel data,
 * inside the session window, and within its process's share of the async
 * table (producer_refusal()).  Its flow events must bind to a slice of its
 * thread and begin no id its user holds open, as the reader's cross-record
 * checks see the file (flow_allowed()), and reach only its own user's
 * flows (flow_written()).  What is refused is counted against the buffer
 * that held it.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "drain.h"
#include "fastpass.h"
#include "flush_mark.h"
#include "fxt_map.h"

/* Provider info (1 + 32 words for a 255-byte name) and an init record. */
#define ANNOUNCE_MAX_BYTES	((1 + 32 + 2) * 8)

/*
 * Room for the drop counter (output_drops() computes its size with
 * fxt_event_words()): header, time, thread, category, name, 2 args, id.
 */
#define DROPS_WORDS_MAX		16

/*
 * Async begins open at once per process, and in the session: past either
 * its new begins are refused.  A process exhausts only its own share; the
 * session's bound keeps the table's memory bounded whatever the number of
 * processes.  The processes of the users the session traces have no
 * share, only the session's bound (output_user_traced()).
 */
#define ASYNC_OPEN_PER_PROCESS	16384
#define ASYNC_OPEN_PER_SESSION	(16 * ASYNC_OPEN_PER_PROCESS)

/*
 * Begins of one (pid, id) open at once below its outermost written one,
 * written or refused: a begin of an open id nests (struct async_open),
 * and one past this is refused, with its instants and its end.  Each
 * level keeps its name, or a bit saying it was refused, so that the
 * table's entries stay of one bounded size.
 */
#define ASYNC_NEST_MAX		4

/* The least room of a process's list of its open async ids (pid_share). */
#define ASYNC_IDS_MIN		16

/*
 * Flow begins open at once per process, per user and in the session: past
 * any of them its new begins are refused.  Open flows outlive their
 * process (a later begin of the id would be a duplicate in the file), so
 * the session's bound is what keeps the table's memory bounded; the
 * user's, a quarter of it, keeps one user's processes from holding all
 * of it, which would refuse every other user's begins.  As in fxtrace.ko,
 * the users the session traces and root have neither share
 * (user_exempt()), and the users it does not trace, root among them,
 * together leave the traced users a quarter of the session's bound.
 */
#define FLOW_OPEN_PER_PROCESS	16384
#define FLOW_OPEN_PER_SESSION	(16 * FLOW_OPEN_PER_PROCESS)
#define FLOW_OPEN_PER_USER	(FLOW_OPEN_PER_SESSION / 4)
#define FLOW_OPEN_OTHERS	(FLOW_OPEN_PER_SESSION - FLOW_OPEN_PER_USER)

/*
 * Slice frames of 16 bytes kept for threads whose last task buffer retired
 * with slices open, which the reader keeps open for the tid's next buffer
 * (keep_stack()): in the session, and per user a quarter of it, so that
 * one user's threads cannot fill it and leave another user's stacks
 * forgotten.  A kept stack is charged its depth and KEPT_FRAMES_SLACK
 * frames of room for the kernel's slices that come while it is kept.
 */
#define KEPT_FRAMES_PER_SESSION	(1 << 18)
#define KEPT_FRAMES_PER_USER	(KEPT_FRAMES_PER_SESSION / 4)
#define KEPT_FRAMES_OTHERS	(KEPT_FRAMES_PER_SESSION - KEPT_FRAMES_PER_USER)
#define KEPT_FRAMES_SLACK	8
/*
 * A user's stacks forgotten with slices on them (past those bounds, or
 * their tid taken by another process) leave only a horizon, the latest
 * in each of these slots by a hash of pid and tid (fold_stack()).
 */
#define KEPT_HORIZON_SLOTS	1024

/*
 * The thread's comm at ATTACH in the header page: `char comm[16]` right
 * after `flags` (ABI 0.3).  Read at its offset, and only when the header's
 * header_size covers it, so that a module of ABI 0.2 works too.
 */
#define HEADER_COMM_OFFSET	(offsetof(struct fxtrace_buffer_header, flags) + \
				 sizeof(__u32))
#define HEADER_COMM_LEN		16

/*
 * The owner of a task buffer whose header has no owner_uid (a module of
 * ABI 0.7 or older): above every uid, so that no user's flows meet those
 * of such buffers, which are keyed among themselves by id alone, as
 * before.
 */
#define OWNER_UNKNOWN		(1ULL << 32)
#define HEADER_OWNER_END	(offsetof(struct fxtrace_buffer_header, \
					  owner_uid) + sizeof(__u32))

/*
 * A process's live task buffers, its open asyncs and its open flows; kept
 * after its last buffer retires while it has open flows.  A buffer of the
 * pid after that is of a thread of the process attached anew, whose
 * asyncs were forgotten, when its owner and its process's start time
 * (output.process_start, noted at the first buffer: start) are the
 * former's: its flows stay its own.  Otherwise it is taken for a new
 * process (the pid used again): its share starts empty, and the flows
 * begun before, whose output ids are at
 * most since_id (the drainer's count then, not the producers' times, which
 * the former could stamp ahead of the next process's), are former_flows,
 * counted apart until they end, so that a later process of the pid, of
 * any user, does not inherit them.  async_ids[0,
 * asyncs) are the ids of the asyncs its task buffers opened, each entry of
 * output.asyncs under (pid, async_ids[i]) holding slot i + 1, so that its
 * last buffer's retirement forgets them without walking the table.
 */
struct pid_share {
	uint32_t buffers;
	uint64_t asyncs;
	uint64_t *async_ids;
	uint64_t async_cap;
	uint64_t flows;
	uint64_t former_flows;
	uint64_t since_id;
	uint64_t start;			/* of its process, 0: unknown */
	uint64_t owner;			/* of its first buffer */
};

/*
 * An open async of output.asyncs: 1 + its place in its process's
 * pid_share.async_ids, or 0 when no share counts it (a begin of a kernel
 * or CPU buffer), the id its events carry in the output, how many begins
 * of it still open enclose the last one (those refused past
 * ASYNC_NEST_MAX included, up to UINT32_MAX), a bit per level below
 * ASYNC_NEST_MAX whose begin was refused (levels past it all were; the
 * outermost never is: a refused first begin makes no entry), and the
 * keyed hash of the category and name of each written open begin,
 * outermost first.  A begin of an open id nests on its Perfetto track,
 * and an end closes the innermost open slice there of its category and
 * name
 * (SliceTracker::MatchingIncompleteSliceIndex()); a reader judges each
 * instant and end against the innermost open begin (check_async(),
 * user/reader/fxt_reader.c).  So an instant or end must have the
 * innermost's category and name: one that names an outer begin would
 * close it in Perfetto and leave the inner open, one that names none (or
 * is in another category) closes nothing.  A refused begin's instants
 * and end are refused: written, they would be judged against, and close,
 * the written begin around it.
 */
struct async_open {
	uint16_t slot;
	uint8_t refused;
	uint32_t nested;
	uint64_t out_id;
	uint64_t name_hash[ASYNC_NEST_MAX];
};

/* Its slot and refused levels fit, so that an entry stays 48 bytes. */
_Static_assert(ASYNC_OPEN_PER_PROCESS <= UINT16_MAX &&
	       ASYNC_NEST_MAX <= 8, "async_open's slot or refused too narrow");
/* Documentation/drain.rst: "2^19 slots of 65 bytes" (16 of key, 1 used). */
_Static_assert(sizeof(struct async_open) == 48,
	       "drain.rst gives the async table's slot as 65 bytes");

/*
 * A user's kept stacks, made with its first task buffer: the frames
 * charged, the horizons its forgotten stacks left (KEPT_HORIZON_SLOTS,
 * allocated at the first), and whether a stack of its was forgotten
 * without one (no memory for them).  From then on every new stack of its
 * threads is unsure: the forgotten one may be the reader's stack of that
 * thread.
 */
struct kept_user {
	uint64_t frames;
	int64_t *horizons;
	bool forgot;
};

/*
 * The first half of output.flows' key when flows are shared across users
 * (output.shared_flows): one for every buffer, so that the key is the id.
 */
#define FLOW_KEY_SHARED		(OWNER_UNKNOWN + 1)

/*
 * An open flow of output.flows: the process whose begin opened it (whose
 * share counts it), the begin's user (whose count in output.flow_users
 * holds it: not the key's with shared flows), the id its events carry
 * in the output, from a count that cannot reach 2^62, and the begin's
 * time in ns (INT64_MIN when it has none).
 */
struct flow_open {
	uint32_t pid;
	uint32_t owner_uid;
	uint64_t out_id : 62;
	uint64_t owner_unknown : 1;	/* the begin's header had no owner_uid */
	/* counted in output.flows_others: the filter's user may change */
	uint64_t other : 1;
	int64_t begin_ns;
};

/*
 * Steps and ends of a (key, id) that no begin holds open are written
 * with an id of their own, and kept as runs for a begin saved later (a
 * client's buffer after its server's): Perfetto sorts the events by time
 * before it binds flows, so a later-saved begin older than a run's first
 * event takes the run's id, and binds to its events there
 * (flow_written()).  A run is charged to the user of its first event: at
 * most FLOW_EARLY_PER_USER per user and FLOW_EARLY_PER_SESSION in the
 * session.  Past either, a new run forgets its own user's oldest, so
 * that ends whose begins are never saved (their clients not traced)
 * cannot fill the bound for the rest of a long session, and one user's
 * runs never make another user's forgotten; a user with none kept when
 * the session is full keeps none (its id binds to nothing, as before).
 * At most FLOW_EARLY_PER_ID per (key, id), the oldest forgotten first.
 */
#define FLOW_EARLY_PER_ID	4
#define FLOW_EARLY_PER_SESSION	65536
#define FLOW_EARLY_PER_USER	(FLOW_EARLY_PER_SESSION / 4)
#define EARLY_NODE_NONE		UINT32_MAX

/*
 * A run of output.flows_early: the time of its first event in ns, its id
 * in the output, whether an end is among its events (then nothing more
 * joins it, and the begin that takes it opens nothing) and its place in
 * output.early_nodes.
 */
struct flow_early_run {
	int64_t first_ns;
	uint64_t out_id : 63;
	uint64_t ended : 1;
	uint32_t node;
};

/*
 * The runs of a (key, id), in the order they came, and the latest first
 * time of a run forgotten (when forgot): a begin older than it may have
 * been that run's, so it takes none.
 */
struct flow_early {
	uint32_t runs;
	uint32_t forgot;
	int64_t forgot_ns;
	struct flow_early_run run[FLOW_EARLY_PER_ID];
};

/*
 * A run's place in its user's runs, oldest made first: the user whose
 * run it is (output.early_users' key) and its (key, id) in
 * output.flows_early.  Free ones are chained by newer.
 */
struct flow_early_node {
	uint64_t key, id, owner;
	uint32_t older, newer;
};

/* A user's runs kept: how many, and the nodes of its oldest and newest. */
struct early_user {
	uint64_t runs;
	uint32_t oldest, newest;
};

/* Documentation/drain.rst: "2^17 slots of 129 bytes" (16 of key, 1 used). */
_Static_assert(sizeof(struct flow_early) == 112,
	       "drain.rst gives the early flow table's slot as 129 bytes");
/* Documentation/drain.rst: "65,536 places of 32 bytes". */
_Static_assert(sizeof(struct flow_early_node) == 32,
	       "drain.rst gives a run's place as 32 bytes");

/* Documentation/drain.rst: the flow table's and the tids' slots. */
_Static_assert(sizeof(struct flow_open) == 24,
	       "drain.rst gives the flow table's slot as 41 bytes");
_Static_assert(sizeof(struct thread_slices) == 64 &&
	       sizeof(struct fxt_slice_frame) == 16 &&
	       sizeof(struct kept_user) == 24,
	       "drain.rst gives a tid's slot as 81 bytes, a frame as 16, a user's as 41");

const char *const refusal_names[REFUSED_COUNT] = {
	[REFUSED_INVALID] = "invalid",
	[REFUSED_KIND] = "kind not allowed",
	[REFUSED_FOREIGN] = "another process or thread",
	[REFUSED_TIME] = "outside the session window",
	[REFUSED_ASYNC] = "async share full or misnamed",
	[REFUSED_STRINGS] = "string budget full",
	[REFUSED_FLOW] = "flow outside a slice, of an open id or share full",
	[REFUSED_PROVIDER] = "buffer id is the probes' provider id",
};

/* Kernel names repaired up to this length (a comm is 15 bytes). */
#define KOBJ_NAME_REPAIR_MAX	64

/* Invalid records described with -v. */
#define DIAG_MAX		100

/* The slack in ticks: one second of the session clock. */
static uint64_t window_slack(const struct output *o)
{
	return o->ticks_per_second;
}

int output_init(struct output *o, uint64_t ticks_per_second,
		uint64_t start_ticks)
{
	memset(o, 0, sizeof(*o));
	o->ticks_per_second = ticks_per_second ? ticks_per_second :
				FXT_TICKS_PER_SECOND_DEFAULT;
	o->window_lo = start_ticks > window_slack(o) ?
		       start_ticks - window_slack(o) : 0;
	output_set_now(o, start_ticks);
	output_traced_users(o, NO_USER, NO_USER);
	fxt_map_init(&o->bufs, sizeof(struct drain_buffer *));
	fxt_map_init(&o->pids, sizeof(struct pid_share));
	fxt_map_init(&o->asyncs, sizeof(struct async_open));
	fxt_map_init(&o->flows, sizeof(struct flow_open));
	fxt_map_init(&o->flow_users, sizeof(uint64_t));
	fxt_map_init(&o->flows_early, sizeof(struct flow_early));
	fxt_map_init(&o->early_users, sizeof(struct early_user));
	o->early_nodes_free = EARLY_NODE_NONE;
	fxt_map_init(&o->threads, sizeof(struct thread_slices));
	fxt_map_init(&o->kept_users, sizeof(struct kept_user));
	fxt_map_init(&o->lost, sizeof(struct pid_lost));
	return 0;
}

void output_traced_users(struct output *o, uint64_t owner,
			 uint64_t filter_user)
{
	o->traced_users[0] = owner;
	o->traced_users[1] = filter_user;
}

uint64_t proc_stat_start(const char *text)
{
	const char *p = strrchr(text, ')');
	unsigned long long start;
	unsigned int field;
	char *end;

	/* The comm, field 2, may hold blanks and ')': fields 3.. follow the last. */
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || p[1] < '0' || p[1] > '9')
		return 0;
	errno = 0;
	start = strtoull(p + 1, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
		return 0;
	return start;
}

bool output_user_traced(const struct output *o, uint64_t uid)
{
	return uid != NO_USER &&
	       (uid == o->traced_users[0] || uid == o->traced_users[1]);
}

/* owner has no share of its own (fxtrace.ko's fxt_share_exempt()). */
static bool user_exempt(const struct output *o, uint64_t owner)
{
	return owner == 0 || output_user_traced(o, owner);
}

/*
 * owner is a user the session does not trace: with the others, it leaves
 * the traced users a quarter of the session's bounds.  A buffer that names
 * no user (a module older than ABI 0.8) has only the session's, as before.
 */
static bool user_other(const struct output *o, uint64_t owner)
{
	return owner != OWNER_UNKNOWN && !output_user_traced(o, owner);
}

void output_set_now(struct output *o, uint64_t now_ticks)
{
	uint64_t hi = now_ticks + window_slack(o);

	if (hi < now_ticks)
		hi = UINT64_MAX;
	/* The window only grows: what was accepted stays inside it. */
	if (hi > o->window_hi)
		o->window_hi = hi;
}

void output_window_ns(const struct output *o, uint64_t *lo_ns,
		      uint64_t *hi_ns)
{
	int64_t ns;

	*lo_ns = fxt_ticks_to_ns(o->window_lo, o->ticks_per_second, &ns) ?
		 (uint64_t)ns : INT64_MAX;
	*hi_ns = fxt_ticks_to_ns(o->window_hi, o->ticks_per_second, &ns) ?
		 (uint64_t)ns : INT64_MAX;
}

static void buffer_free(struct drain_buffer *db)
{
	fxt_tables_free(db->tables);
	free(db);
}

void output_free(struct output *o)
{
	struct thread_slices *thread;
	struct drain_buffer **p;
	struct pid_share *share;
	struct kept_user *user;
	size_t pos = 0;

	while ((p = fxt_map_next(&o->bufs, &pos, NULL, NULL)))
		buffer_free(*p);
	pos = 0;
	while ((share = fxt_map_next(&o->pids, &pos, NULL, NULL)))
		free(share->async_ids);
	pos = 0;
	while ((thread = fxt_map_next(&o->threads, &pos, NULL, NULL)))
		slice_reset(&thread->slices, 0);
	pos = 0;
	while ((user = fxt_map_next(&o->kept_users, &pos, NULL, NULL)))
		free(user->horizons);
	fxt_map_free(&o->bufs);
	fxt_map_free(&o->pids);
	free(o->scratch);
	free(o->fast);
	fxt_map_free(&o->asyncs);
	fxt_map_free(&o->flows);
	fxt_map_free(&o->flow_users);
	fxt_map_free(&o->flows_early);
	fxt_map_free(&o->early_users);
	free(o->early_nodes);
	fxt_map_free(&o->threads);
	fxt_map_free(&o->kept_users);
	fxt_map_free(&o->lost);
	memset(o, 0, sizeof(*o));
}

void chunk_free(struct chunk *c)
{
	free(c->data);
	memset(c, 0, sizeof(*c));
}

static int chunk_alloc(struct chunk *c, size_t cap)
{
	memset(c, 0, sizeof(*c));
	c->data = malloc(cap);
	if (!c->data)
		return -ENOMEM;
	c->cap = cap;
	return 0;
}

/*
 * bytes may lie in c's own data, at or after its end (add_records()):
 * records already in place are not copied.
 */
static void chunk_put(struct chunk *c, const void *bytes, size_t len)
{
	if (c->data + c->len != bytes)
		memmove(c->data + c->len, bytes, len);
	c->len += len;
}

/* Room for len more bytes in c. */
static int chunk_room(struct chunk *c, size_t len)
{
	size_t cap = c->cap ? c->cap : 4096;
	unsigned char *data;

	if (c->len + len <= c->cap)
		return 0;
	while (cap < c->len + len)
		cap *= 2;
	data = realloc(c->data, cap);
	if (!data)
		return -ENOMEM;
	c->data = data;
	c->cap = cap;
	return 0;
}

int chunk_append(struct chunk *c, const void *bytes, size_t len)
{
	int ret = chunk_room(c, len);

	if (!ret)
		chunk_put(c, bytes, len);
	return ret;
}

void output_place(struct output *o, struct chunk *c, uint32_t provider)
{
	c->offset = o->offset;
	o->offset += c->len;
	if (c->len)
		o->current = provider;
}

int output_magic(struct output *o, struct chunk *c)
{
	__u64 words[1 + FLUSH_MARK_WORDS + WINDOW_MARK_WORDS];
	uint64_t lo_ns, hi_ns;
	int ret = chunk_alloc(c, sizeof(words));

	if (ret)
		return ret;
	fxt_write_magic(words);
	/* Once this chunk is in the file, so is everything it covers. */
	flush_mark_write(words + 1, o->offset + sizeof(words));
	output_window_ns(o, &lo_ns, &hi_ns);
	window_mark_write(words + 1 + FLUSH_MARK_WORDS, lo_ns, hi_ns);
	chunk_put(c, words, sizeof(words));
	c->offset = o->offset;
	o->offset += c->len;
	return 0;
}

int output_magic_unmarked(struct output *o, struct chunk *c)
{
	__u64 magic;
	int ret = chunk_alloc(c, sizeof(magic));

	if (ret)
		return ret;
	fxt_write_magic(&magic);
	chunk_put(c, &magic, sizeof(magic));
	output_place(o, c, 0);
	return 0;
}

struct drain_buffer *output_find(struct output *o, uint32_t id)
{
	struct drain_buffer **p = fxt_map_get(&o->bufs, id, 0);

	return p ? *p : NULL;
}

struct drain_buffer *output_next(const struct output *o, size_t *pos)
{
	struct drain_buffer **p = fxt_map_next(&o->bufs, pos, NULL, NULL);

	return p ? *p : NULL;
}

static void totals_add(struct kind_totals *t, const struct drain_buffer *db)
{
	unsigned int r;

	t->buffers++;
	t->records += db->records;
	t->bytes += db->bytes;
	t->dropped += db->dropped;
	t->invalid += db->invalid;
	t->repaired += db->repaired;
	for (r = 0; r < REFUSED_COUNT; r++)
		t->refused[r] += db->refused[r];
}

void output_totals(const struct output *o, unsigned int kind,
		   struct kind_totals *t)
{
	const struct drain_buffer *db;
	size_t pos = 0;

	*t = kind < KIND_COUNT ? o->retired[kind] : (struct kind_totals){ 0 };
	while ((db = output_next(o, &pos)))
		if (db->kind == kind)
			totals_add(t, db);
}

/* The async begins of a process whose last buffer went: nobody ends them. */
static void forget_asyncs(struct output *o, uint64_t pid,
			  struct pid_share *share)
{
	uint64_t i;

	for (i = 0; i < share->asyncs; i++)
		fxt_map_del(&o->asyncs, pid, share->async_ids[i]);
	free(share->async_ids);
	share->async_ids = NULL;
	share->async_cap = 0;
	share->asyncs = 0;
}

/*
 * The latest time the reader may still hold a slice of s, all of which
 * are ended, or INT64_MAX: a begin left open, or an unsure stack.
 */
static int64_t stack_horizon(const struct slice_state *s)
{
	int64_t horizon = SLICE_NO_HORIZON;
	uint32_t i;

	if (s->unsure)
		return INT64_MAX;
	for (i = 0; i < s->stack.depth; i++) {
		const struct fxt_slice_frame *f = &s->stack.frames[i];

		if (f->dur == FXT_SLICE_PENDING)
			return INT64_MAX;
		if (f->ts + f->dur > horizon)
			horizon = f->ts + f->dur;
	}
	return horizon;
}

/* A user's horizon slot of pid and tid (not chosen by others: per user). */
static size_t horizon_slot(uint64_t pid, uint64_t tid)
{
	return (size_t)(((pid << 32) ^ tid) * 0x9e3779b97f4a7c15ULL >> 54);
}

/*
 * The drainer forgets s, user's stack of pid s->pid and tid, while the
 * reader may still hold its slices, and the pid and tid may get a task
 * buffer again.  What is left is a horizon (slice_state.horizon): the
 * new stack of that pid and tid, or of any hashed alike, is unsure at
 * each slice event until one after it.  A user's slots are its own, so
 * another user's horizons (a hostile producer's never-ending ones)
 * refuse none of its flows.  Without memory for them, every new stack of
 * the user is unsure.
 */
static void fold_horizon(struct kept_user *user, uint64_t pid, uint64_t tid,
			 int64_t horizon)
{
	int64_t *slot;
	size_t i;

	if (horizon == SLICE_NO_HORIZON)
		return;
	if (!user->horizons) {
		user->horizons = malloc(KEPT_HORIZON_SLOTS *
					sizeof(*user->horizons));
		if (!user->horizons) {
			user->forgot = true;
			return;
		}
		for (i = 0; i < KEPT_HORIZON_SLOTS; i++)
			user->horizons[i] = SLICE_NO_HORIZON;
	}
	slot = &user->horizons[horizon_slot(pid, tid)];
	if (horizon > *slot)
		*slot = horizon;
}

static void fold_stack(struct kept_user *user, const struct slice_state *s,
		       uint64_t tid)
{
	fold_horizon(user, s->pid, tid, stack_horizon(s));
}

/*
 * A slice event of a task buffer whose thread's stack another process's
 * buffer took (the tid used again before this buffer retired): the
 * reader's stack of its pid and tid moves, the drainer's is gone, so its
 * horizon grows.  An end is left out: it can only close a begin, whose
 * horizon is never already.
 */
static void fold_event(struct output *o, const struct drain_buffer *db,
		       const struct fxt_record *rec)
{
	struct kept_user *user = fxt_map_get(&o->kept_users, db->owner, 0);
	int64_t horizon;

	if (!user || rec->subtype == FXT_EVENT_DURATION_END)
		return;
	if (rec->subtype == FXT_EVENT_DURATION_BEGIN)
		horizon = INT64_MAX;
	else if (rec->subtype == FXT_EVENT_DURATION_COMPLETE)
		horizon = rec->end_ts_ns;
	else
		horizon = rec->ts_ns;
	fold_horizon(user, rec->thread.pid, rec->thread.tid, horizon);
}

/*
 * The last task buffer of a thread with slices open retired.  The reader
 * keeps them open (a complete event until its end, a begin until an end
 * closes it), and the same pid and tid can get a buffer again (an exec(),
 * a munmap() and ATTACH again), whose flows the reader judges on that
 * stack: it is kept, in the room it is charged for, while the session's
 * and its user's bounds allow.  Past them it is folded into its user's
 * horizons.  False: forget the thread.
 */
static bool keep_stack(struct output *o, struct thread_slices *thread,
		       uint64_t tid)
{
	struct slice_state *s = &thread->slices;
	struct fxt_slice_frame *frames;
	struct kept_user *user;
	uint32_t charge;

	user = fxt_map_get(&o->kept_users, thread->owner, 0);
	if (!user || (!s->unsure && !s->stack.depth))
		return false;
	/* The user's new stacks are unsure already. */
	if (s->unsure && user->forgot)
		return false;
	charge = s->stack.depth + KEPT_FRAMES_SLACK;
	if (o->kept_frames + charge > KEPT_FRAMES_PER_SESSION ||
	    (!user_exempt(o, thread->owner) &&
	     user->frames + charge > KEPT_FRAMES_PER_USER) ||
	    (user_other(o, thread->owner) &&
	     o->kept_frames_others + charge > KEPT_FRAMES_OTHERS)) {
		fold_stack(user, s, tid);
		return false;
	}
	/* An unsure stack's frames are never read again. */
	frames = s->unsure ? NULL :
		 realloc(s->stack.frames, charge * sizeof(*frames));
	if (frames) {
		s->stack.frames = frames;
		s->stack.cap = charge;
	} else {
		fxt_slice_stack_free(&s->stack);
		s->unsure = true;
	}
	s->stack.fixed = true;
	thread->kept_frames = charge;
	user->frames += charge;
	o->kept_frames += charge;
	thread->kept_other = user_other(o, thread->owner);
	if (thread->kept_other)
		o->kept_frames_others += charge;
	return true;
}

/* A kept stack's thread has a task buffer again. */
static void unkeep_stack(struct output *o, struct thread_slices *thread)
{
	struct kept_user *user = fxt_map_get(&o->kept_users, thread->owner, 0);

	user->frames -= thread->kept_frames;
	o->kept_frames -= thread->kept_frames;
	if (thread->kept_other)
		o->kept_frames_others -= thread->kept_frames;
	thread->kept_frames = 0;
	thread->slices.stack.fixed = false;
}

/*
 * A context switch out of the tid in state dead: the reader forgets its
 * stacks, and a kept one is forgotten here, its charge given back.
 */
static void thread_dead(struct output *o, struct thread_slices *thread,
			uint64_t tid)
{
	if (thread->buffers) {
		slice_thread_dead(&thread->slices);
		return;
	}
	unkeep_stack(o, thread);
	slice_reset(&thread->slices, 0);
	fxt_map_del(&o->threads, tid, 0);
}

void output_retire(struct output *o, struct drain_buffer *db)
{
	struct thread_slices *thread;
	struct pid_share *share;

	if (db->kind == FXTRACE_BUFFER_TASK) {
		thread = fxt_map_get(&o->threads, db->tid, 0);
		if (thread && !--thread->buffers &&
		    !keep_stack(o, thread, db->tid)) {
			slice_reset(&thread->slices, 0);
			fxt_map_del(&o->threads, db->tid, 0);
		}
		share = fxt_map_get(&o->pids, db->pid, 0);
		if (share && !--share->buffers) {
			forget_asyncs(o, db->pid, share);
			if (!share->flows && !share->former_flows)
				fxt_map_del(&o->pids, db->pid, 0);
		}
	}
	if (db->kind < KIND_COUNT)
		totals_add(&o->retired[db->kind], db);
	o->task_strings -= db->strings_shared;
	if (db->strings_own)
		o->task_string_owners--;
	fxt_map_del(&o->bufs, db->id, 0);
	buffer_free(db);
}

static int scratch_reserve(struct output *o, size_t len)
{
	unsigned char *p;

	if (len <= o->scratch_cap)
		return 0;
	p = realloc(o->scratch, len);
	if (!p)
		return -ENOMEM;
	o->scratch = p;
	o->scratch_cap = len;
	return 0;
}

/*
 * s made valid UTF-8 into out (3 * len bytes at most): every byte that
 * starts no well-formed sequence becomes U+FFFD, as Perfetto shows it.
 * Returns the length.
 */
static size_t utf8_repair(const unsigned char *s, size_t len, char *out)
{
	size_t i = 0, n = 0, k;

	while (i < len) {
		k = fxt_utf8_sequence(s + i, len - i);
		if (k) {
			memcpy(out + n, s + i, k);
			n += k;
			i += k;
		} else {
			memcpy(out + n, "\xef\xbf\xbd", 3);
			n += 3;
			i++;
		}
	}
	return n;
}

/*
 * The kernel starts every durable part with a provider info record and an
 * init record, then (CPU buffers) strings of its own; return where the
 * records after the announcement start, or 0.  A CPU or kernel buffer's
 * name is taken from it; a task buffer's announcement lies in memory its
 * producer can write, so its name is not (output_buffer()).
 */
static uint64_t read_announcement(struct output *o, struct drain_buffer *db,
				  const unsigned char *prefix, size_t len)
{
	struct fxt_record *rec = &o->rec;
	struct fxt_sink sink = { 0 };
	uint64_t need;
	size_t off = 0;
	ssize_t n;

	if (scratch_reserve(o, len))
		return 0;
	memcpy(o->scratch, prefix, len);
	while (off < len) {
		n = fxt_decode_record(db->tables, o->scratch + off, len - off,
				      off, rec, &sink, &need);
		if (n <= 0)
			return 0;
		off += (size_t)n;
		if (rec->type == FXT_REC_INIT)
			continue;
		if (rec->type != FXT_REC_METADATA ||
		    rec->subtype != FXT_META_PROVIDER_INFO || !rec->valid ||
		    rec->id != db->id || !rec->name.ptr ||
		    rec->name.len > FXT_PROVIDER_NAME_MAX)
			return 0;
		/*
		 * A task's is "COMM TID", COMM any bytes its thread named
		 * itself with; not taken (task_name()), so need not be UTF-8.
		 */
		if (db->kind != FXTRACE_BUFFER_TASK) {
			if (!fxt_utf8_valid((const unsigned char *)
					    rec->name.ptr, rec->name.len))
				return 0;
			memcpy(db->name, rec->name.ptr, rec->name.len);
			db->name[rec->name.len] = '\0';
		}
		/* The init record that follows is replaced by ours too. */
		n = fxt_decode_record(db->tables, o->scratch + off, len - off,
				      off, rec, &sink, &need);
		if (n > 0 && rec->type == FXT_REC_INIT)
			off += (size_t)n;
		return off;
	}
	return 0;
}

/*
 * A task buffer's name, from the kernel's header page: the thread's comm
 * taken at ATTACH (when the header has it), its tid and its pid, never
 * from memory the producer writes.
 */
static void task_name(struct drain_buffer *db,
		      const struct fxtrace_buffer_header *hdr)
{
	const unsigned char *comm = (const unsigned char *)hdr +
				    HEADER_COMM_OFFSET;
	char repaired[3 * HEADER_COMM_LEN + 1];
	size_t len, i;

	if (hdr->header_size < HEADER_COMM_OFFSET + HEADER_COMM_LEN) {
		snprintf(db->name, sizeof(db->name), "task %u (pid %llu)",
			 db->tid, (unsigned long long)db->pid);
		return;
	}
	for (len = 0; len < HEADER_COMM_LEN - 1 && comm[len]; len++)
		;
	len = utf8_repair(comm, len, repaired);
	repaired[len] = '\0';
	/*
	 * The name is printed on root's terminal (the summary, -v): a
	 * control byte of the comm, which its thread sets, is not, nor a C1
	 * control (U+0080..U+009F, valid UTF-8).
	 */
	for (i = 0; i < len; i++) {
		unsigned char b = (unsigned char)repaired[i];

		if (b == 0xc2 && i + 1 < len &&
		    (unsigned char)repaired[i + 1] <= 0x9f) {
			repaired[i++] = '?';
			repaired[i] = '?';
		} else if (b < 0x20 || b == 0x7f) {
			repaired[i] = '?';
		}
	}
	snprintf(db->name, sizeof(db->name), "%s %u (pid %llu)", repaired,
		 db->tid, (unsigned long long)db->pid);
}

/* Enter the tick rate the announcement gives into db's tables. */
static int apply_init(struct output *o, struct drain_buffer *db)
{
	struct fxt_sink sink = { 0 };
	uint64_t need;
	__u64 words[2];

	fxt_write_init(words, o->ticks_per_second);
	if (fxt_decode_record(db->tables, words, sizeof(words), 0, &o->rec,
			      &sink, &need) != sizeof(words))
		return -EINVAL;
	return fxt_tables_apply(db->tables, &o->rec, &sink);
}

struct drain_buffer *output_buffer(struct output *o,
				   const struct fxtctl_buffer *b)
{
	const struct fxtrace_buffer_header *hdr = b->hdr;
	struct drain_buffer *db = output_find(o, b->id), **slot;
	struct thread_slices *thread = NULL;
	struct pid_share *share = NULL;
	struct kept_user *user, *former;
	uint64_t reserved, start;

	if (db)
		return db;
	db = calloc(1, sizeof(*db));
	if (!db)
		return NULL;
	db->id = b->id;
	db->kind = b->kind;
	db->cpu = hdr->cpu;
	if (b->kind == FXTRACE_BUFFER_TASK) {
		db->pid = hdr->pid;
		db->tid = hdr->tid;
		db->owner = hdr->header_size >= HEADER_OWNER_END ?
			    hdr->owner_uid : OWNER_UNKNOWN;
		share = fxt_map_put(&o->pids, db->pid, 0, NULL);
		user = share ? fxt_map_put(&o->kept_users, db->owner, 0, NULL) :
			       NULL;
		thread = user ? fxt_map_put(&o->threads, db->tid, 0, NULL) :
				NULL;
		if (!thread) {
			free(db);
			return NULL;
		}
		if (thread->kept_frames)
			unkeep_stack(o, thread);
		/*
		 * A new thread, or the tid used again: the former process's
		 * stack is no use here, but the reader keeps it for that
		 * process's next buffer of the tid.  This owner's forgotten
		 * stacks may be this thread's.
		 */
		if (thread->slices.pid != db->pid) {
			former = fxt_map_get(&o->kept_users, thread->owner, 0);
			if (former)
				fold_stack(former, &thread->slices, db->tid);
			slice_reset(&thread->slices, db->pid);
			thread->slices.unsure = user->forgot;
			if (user->horizons)
				thread->slices.horizon = user->horizons[
					horizon_slot(db->pid, db->tid)];
		}
		thread->owner = db->owner;
	}
	/*
	 * Strings are defined in the durable part, which is read once; twice
	 * its size leaves room for strings a producer puts in its halves.
	 */
	db->tables = fxt_tables_new(b->id, 2 * hdr->durable_size + (1 << 20));
	slot = fxt_map_put(&o->bufs, b->id, 0, NULL);
	if (!db->tables || !slot) {
		buffer_free(db);
		return NULL;
	}
	*slot = db;
	if (share) {
		if (!share->buffers) {
			start = o->process_start ? o->process_start(db->pid) : 0;
			if (share->flows && (!start || start != share->start ||
					     db->owner != share->owner)) {
				share->former_flows += share->flows;
				share->flows = 0;
				share->since_id = o->flow_last_id;
			}
			share->start = start;
			share->owner = db->owner;
		}
		share->buffers++;
		thread->buffers++;
		if (o->task_string_owners < TASK_STRINGS_OWNERS) {
			db->strings_own = TASK_STRINGS_OWN;
			o->task_string_owners++;
		}
	}
	switch (b->kind) {
	case FXTRACE_BUFFER_CPU:
		snprintf(db->name, sizeof(db->name), "cpu%u", db->cpu);
		break;
	case FXTRACE_BUFFER_KERNEL:
		snprintf(db->name, sizeof(db->name), "kernel");
		break;
	default:
		task_name(db, hdr);
		if (db->owner == OWNER_UNKNOWN && !o->owner_unknown_told) {
			o->owner_unknown_told = true;
			fprintf(stderr, "fxtrace-drain: buffer %u (%s): its header has no owner_uid (fxtrace.ko older than ABI 0.8): flows of such buffers are keyed by id alone, whatever their user\n",
				db->id, db->name);
		}
		break;
	}
	/*
	 * The kernel's init and provider info records are replaced by our own
	 * announcement: provider info first, then the init record, because a
	 * reader clears a provider's tick rate when the provider is announced.
	 */
	reserved = hdr->durable_reserved < hdr->durable_size ?
		   hdr->durable_reserved : hdr->durable_size;
	db->durable_done = read_announcement(o, db, b->data, reserved & ~7ULL);
	fxt_tables_clear(db->tables);
	if (apply_init(o, db)) {
		output_retire(o, db);
		return NULL;
	}
	return db;
}

/* Start a chunk of db's records: it switches the file to db's provider. */
static int chunk_begin(struct output *o, struct drain_buffer *db,
		       struct chunk *c, size_t body_max)
{
	__u64 words[ANNOUNCE_MAX_BYTES / 8];
	__u32 n;
	int ret = chunk_alloc(c, ANNOUNCE_MAX_BYTES + body_max);

	if (ret)
		return ret;
	if (!db->announced) {
		n = fxt_write_provider_info(words, db->id, db->name,
					    (__u32)strlen(db->name));
		n += fxt_write_init(words + n, o->ticks_per_second);
	} else if (o->current != db->id) {
		words[0] = fxt_provider_section_hdr(db->id);
		n = 1;
	} else {
		n = 0;
	}
	chunk_put(c, words, n * 8);
	return 0;
}

/* Give the chunk its place in the file, or empty it when it holds no record. */
static void chunk_end(struct output *o, struct drain_buffer *db,
		      struct chunk *c, uint64_t records)
{
	if (!records) {
		c->len = 0;
		return;
	}
	c->offset = o->offset;
	o->offset += c->len;
	o->current = db->id;
	db->announced = true;
	db->bytes += c->len;
}

/* db's provider is one the drainer writes records of (output.probe_provider). */
static bool provider_taken(const struct output *o,
			   const struct drain_buffer *db)
{
	return o->probe_provider && db->id == o->probe_provider;
}

/* Record kinds any buffer may hold after its announcement. */
static bool kind_allowed(const struct drain_buffer *db,
			 const struct fxt_record *rec)
{
	switch (rec->type) {
	case FXT_REC_METADATA:
		/* Provider records would switch the file to another buffer. */
		return false;
	case FXT_REC_INIT:
		/*
		 * The tick rate is the session's, announced by the drainer: a
		 * producer's own would re-time records already validated.
		 */
		return false;
	case FXT_REC_SCHED:
		return db->kind != FXTRACE_BUFFER_TASK;
	case FXT_REC_EVENT:
		/*
		 * A flow binds to the slices of a thread, which only a task
		 * buffer's state follows (the kernel writes no flows).
		 */
		return db->kind == FXTRACE_BUFFER_TASK ||
		       rec->subtype < FXT_EVENT_FLOW_BEGIN ||
		       rec->subtype > FXT_EVENT_FLOW_END;
	case FXT_REC_BLOB:
		/*
		 * Opaque kinds only: type 3 is parsed by Perfetto as protobuf
		 * (one it cannot parse fails the whole import), type 2 is read
		 * as the CPU's last-branch records.
		 */
		return rec->subtype == FXT_BLOB_TYPE_DATA;
	case FXT_REC_LARGE:
		/*
		 * An attachment is opaque; a blob with metadata is read as an
		 * event of a thread.  Both are under 4096 words (rule
		 * large-perfetto refused the others).
		 */
		return rec->value == FXT_LARGE_BLOB_ATTACHMENT;
	default:
		return true;
	}
}

static bool own_thread(const struct drain_buffer *db,
		       const struct fxt_thread *th)
{
	return th->pid == db->pid && th->tid == db->tid;
}

/* A task buffer's record names only its own process and thread. */
static bool attributable(const struct drain_buffer *db,
			 const struct fxt_record *rec)
{
	uint32_t i;

	switch (rec->type) {
	case FXT_REC_THREAD:
	case FXT_REC_EVENT:
	case FXT_REC_LOG:
		return own_thread(db, &rec->thread);
	case FXT_REC_USEROBJ:
		return rec->thread.pid == db->pid;
	case FXT_REC_KOBJ:
		if (rec->subtype == FXT_KOBJ_PROCESS)
			return rec->id == db->pid;
		if (rec->subtype != FXT_KOBJ_THREAD || rec->id != db->tid)
			return false;
		/* Its process, the one Perfetto files it under, is ours. */
		for (i = 0; i < rec->nargs; i++)
			if (fxt_string_is(&rec->args[i].name, "process") &&
			    (rec->args[i].type != FXT_ARG_KOID ||
			     rec->args[i].value.u64 != db->pid))
				return false;
		return true;
	default:
		return true;
	}
}

/* Every timestamp of the record lies in the session window. */
static bool in_window(const struct output *o, const struct fxt_record *rec)
{
	if (rec->has_ts &&
	    (rec->ts < o->window_lo || rec->ts > o->window_hi))
		return false;
	return !(rec->type == FXT_REC_EVENT &&
		 rec->subtype == FXT_EVENT_DURATION_COMPLETE &&
		 (rec->end_ts < o->window_lo || rec->end_ts > o->window_hi));
}

/* The innermost open begin of open was refused (async_refused()). */
static bool level_refused(const struct async_open *open)
{
	return open->nested >= ASYNC_NEST_MAX ||
	       open->refused >> open->nested & 1;
}

/*
 * A reader compares each async instant and end with its innermost open
 * begin's name, by (pid, id) across the whole file; a producer must not
 * make it fail, nor fill the table for others.
 */
static bool async_allowed(struct output *o, const struct drain_buffer *db,
			  const struct fxt_record *rec)
{
	const struct pid_share *share;
	const struct async_open *open;

	if (rec->type != FXT_REC_EVENT)
		return true;
	switch (rec->subtype) {
	case FXT_EVENT_ASYNC_BEGIN:
		open = fxt_map_get(&o->asyncs, rec->thread.pid, rec->id);
		if (open)
			return open->nested < ASYNC_NEST_MAX - 1;
		if (db->kind != FXTRACE_BUFFER_TASK)
			return true;
		if (o->asyncs.count >= ASYNC_OPEN_PER_SESSION)
			return false;
		share = fxt_map_get(&o->pids, db->pid, 0);
		return share && (output_user_traced(o, db->owner) ||
				 share->asyncs < ASYNC_OPEN_PER_PROCESS);
	case FXT_EVENT_ASYNC_INSTANT:
	case FXT_EVENT_ASYNC_END:
		open = fxt_map_get(&o->asyncs, rec->thread.pid, rec->id);
		if (open && level_refused(open))
			return false;	/* of a begin refused (async_refused()) */
		return !open || open->name_hash[open->nested] ==
				fxt_category_name_hash_keyed(&rec->category,
							     &rec->name);
	default:
		return true;
	}
}

/*
 * rec was refused, for any reason but its pid (async_may_refuse()) or an
 * error that may have left it unread (add_record()).  A
 * begin of an open id still nests in the program: its instants and its
 * end are refused in turn, or they would be judged against the innermost
 * written begin, and its end would close that one (each written slice
 * would end when its refused inner one does, and the outermost's end
 * would get an id of its own).  So the begin opens a refused level, and
 * any end of a refused level, refused, closes it.  An end refused while
 * its begin was written closes nothing: the begin stays open in the file,
 * so it stays open here, and the next end closes it there and here.  A
 * refused begin of no open id makes no entry: its instants and end get
 * ids of their own and close nothing.  Past UINT32_MAX refused begins
 * the count stays, and the ends of the outermost of them close written
 * ones.
 */
static void async_refused(struct output *o, const struct fxt_record *rec)
{
	struct async_open *open;

	if (rec->type != FXT_REC_EVENT)
		return;
	open = fxt_map_get(&o->asyncs, rec->thread.pid, rec->id);
	if (!open)
		return;
	if (rec->subtype == FXT_EVENT_ASYNC_BEGIN &&
	    open->nested < UINT32_MAX) {
		open->nested++;
		if (open->nested < ASYNC_NEST_MAX)
			open->refused |= (uint8_t)(1u << open->nested);
	} else if (rec->subtype == FXT_EVENT_ASYNC_END &&
		   level_refused(open)) {
		if (open->nested < ASYNC_NEST_MAX)
			open->refused &= (uint8_t)~(1u << open->nested);
		open->nested--;
	}
}

/*
 * A refusal of rec may touch the async table under its (pid, id) only if
 * that pid is the buffer's own: a kernel or CPU buffer's, trusted, or one
 * a task buffer's record names of itself.  A forged one (REFUSED_FOREIGN,
 * or an earlier refusal of a record that also is foreign) would let one
 * producer break another process's asyncs.
 */
static bool async_may_refuse(const struct drain_buffer *db,
			     const struct fxt_record *rec, enum refusal why)
{
	return why != REFUSED_FOREIGN &&
	       (db->kind != FXTRACE_BUFFER_TASK || attributable(db, rec));
}

/*
 * A task buffer's new async begin joins its process's share: the id goes
 * last in async_ids, the entry at open notes where.
 */
static int async_share_add(struct pid_share *share, struct async_open *open,
			   uint64_t id)
{
	uint64_t cap = share->async_cap ? 2 * share->async_cap : ASYNC_IDS_MIN;
	uint64_t *ids;

	if (share->asyncs == share->async_cap) {
		ids = realloc(share->async_ids, cap * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		share->async_ids = ids;
		share->async_cap = cap;
	}
	share->async_ids[share->asyncs++] = id;
	open->slot = (uint16_t)share->asyncs;
	return 0;
}

/*
 * The share's async at open ended: the share's last id takes its place.
 * open is not used after this (the map moves entries as they go).  A list
 * a quarter full is halved, down to ASYNC_IDS_MIN, so that its room stays
 * within 4 times its open asyncs: a process does not keep the room of the
 * most it ever had open.
 */
static void async_share_del(struct output *o, uint64_t pid,
			    struct pid_share *share,
			    const struct async_open *open)
{
	uint64_t i = open->slot - 1, last_id, *ids;
	struct async_open *moved;

	last_id = share->async_ids[--share->asyncs];
	if (i != share->asyncs) {
		share->async_ids[i] = last_id;
		moved = fxt_map_get(&o->asyncs, pid, last_id);
		moved->slot = (uint16_t)(i + 1);
	}
	if (share->async_cap <= ASYNC_IDS_MIN ||
	    share->asyncs > share->async_cap / 4)
		return;
	/* Failing, the list stays as large: still right. */
	ids = realloc(share->async_ids,
		      share->async_cap / 2 * sizeof(*ids));
	if (ids) {
		share->async_ids = ids;
		share->async_cap /= 2;
	}
}

/*
 * The record goes to the file: its async begin opens, its end closes, and
 * *out_id is the correlation id it carries there.  Perfetto puts FXT
 * async events on global tracks, one set per id whatever the process
 * (Documentation/drain.rst, "What a producer cannot do"), so each
 * process's open (pid, id) gets an id of its own in the output, from one
 * count for the session: no process ends or joins another's slices, or
 * names their tracks.  An instant or end of no open begin gets a new one.
 */
static int async_written(struct output *o, const struct drain_buffer *db,
			 const struct fxt_record *rec, uint64_t *out_id)
{
	uint64_t pid = rec->thread.pid;
	struct pid_share *share;
	struct async_open *open;
	int created;

	if (rec->type != FXT_REC_EVENT)
		return 0;
	switch (rec->subtype) {
	case FXT_EVENT_ASYNC_BEGIN:
		open = fxt_map_put(&o->asyncs, pid, rec->id, &created);
		if (!open)
			return -ENOMEM;
		if (created)
			open->out_id = ++o->async_last_id;
		else
			open->nested++;
		*out_id = open->out_id;
		/* Written: not past ASYNC_NEST_MAX (async_allowed()). */
		open->refused &= (uint8_t)~(1u << open->nested);
		open->name_hash[open->nested] =
			fxt_category_name_hash_keyed(&rec->category, &rec->name);
		/* A task buffer's pid is its record's (attributable()). */
		share = created && db->kind == FXTRACE_BUFFER_TASK ?
			fxt_map_get(&o->pids, pid, 0) : NULL;
		if (share && async_share_add(share, open, rec->id)) {
			fxt_map_del(&o->asyncs, pid, rec->id);
			return -ENOMEM;
		}
		return 0;
	case FXT_EVENT_ASYNC_INSTANT:
		open = fxt_map_get(&o->asyncs, pid, rec->id);
		*out_id = open ? open->out_id : ++o->async_last_id;
		return 0;
	case FXT_EVENT_ASYNC_END:
		open = fxt_map_get(&o->asyncs, pid, rec->id);
		*out_id = open ? open->out_id : ++o->async_last_id;
		if (!open)
			return 0;
		if (open->nested) {
			open->nested--;
			return 0;
		}
		/* Whichever buffer ends it, the share that counts it. */
		if (open->slot)
			async_share_del(o, pid, fxt_map_get(&o->pids, pid, 0),
					open);
		fxt_map_del(&o->asyncs, pid, rec->id);
		return 0;
	default:
		return 0;
	}
}

/*
 * The first half of a flow's key in output.flows: its user, or, with
 * shared flows, one value for all: one open flow per id, whose id in the
 * output only its begin's process began, so that Perfetto joins another
 * process's step or end to it (Documentation/perfetto.rst).
 */
static uint64_t flow_key(const struct output *o, const struct drain_buffer *db)
{
	return o->shared_flows ? FLOW_KEY_SHARED : db->owner;
}

/*
 * The run a flow begin rec (of key) takes: of those whose first event is
 * later than the begin, the one that comes first in time, as Perfetto
 * binds the begin to the end after it; none when a run forgotten
 * (FLOW_EARLY_PER_ID) came after the begin, which may have been its own,
 * or NULL.  A run whose first event is at the begin's time is not taken:
 * written before it, it comes first in Perfetto's sort too.
 */
static struct flow_early_run *early_taken(struct output *o, uint64_t key,
					  const struct fxt_record *rec)
{
	struct flow_early *e;
	struct flow_early_run *best = NULL;
	uint32_t i;

	if (!rec->ts_ns_valid)
		return NULL;
	e = fxt_map_get(&o->flows_early, key, rec->id);
	if (!e || (e->forgot && e->forgot_ns > rec->ts_ns))
		return NULL;
	for (i = 0; i < e->runs; i++)
		if (e->run[i].first_ns > rec->ts_ns &&
		    (!best || e->run[i].first_ns < best->first_ns))
			best = &e->run[i];
	return best;
}

/*
 * A free place for a new run, made when none is free, or
 * EARLY_NODE_NONE without memory.  At most FLOW_EARLY_PER_SESSION are
 * ever made: a run is kept only within that bound.
 */
static uint32_t early_node_new(struct output *o)
{
	struct flow_early_node *nodes;
	uint32_t n = o->early_nodes_free, cap;

	if (n != EARLY_NODE_NONE) {
		o->early_nodes_free = o->early_nodes[n].newer;
		return n;
	}
	if (o->early_nodes_made == o->early_nodes_cap) {
		cap = o->early_nodes_cap ? 2 * o->early_nodes_cap : 64;
		nodes = realloc(o->early_nodes, cap * sizeof(*nodes));
		if (!nodes)
			return EARLY_NODE_NONE;
		o->early_nodes = nodes;
		o->early_nodes_cap = cap;
	}
	return o->early_nodes_made++;
}

static void early_node_free(struct output *o, uint32_t n)
{
	o->early_nodes[n].newer = o->early_nodes_free;
	o->early_nodes_free = n;
}

/* Run i of e, kept under (key, id), goes: its user's place back. */
static void early_drop(struct output *o, uint64_t key, uint64_t id,
		       struct flow_early *e, uint32_t i)
{
	uint32_t n = e->run[i].node;
	struct flow_early_node *node = &o->early_nodes[n];
	struct early_user *user = fxt_map_get(&o->early_users, node->owner, 0);

	if (node->older != EARLY_NODE_NONE)
		o->early_nodes[node->older].newer = node->newer;
	else
		user->oldest = node->newer;
	if (node->newer != EARLY_NODE_NONE)
		o->early_nodes[node->newer].older = node->older;
	else
		user->newest = node->older;
	if (!--user->runs)
		fxt_map_del(&o->early_users, node->owner, 0);
	early_node_free(o, n);
	o->early_count--;
	memmove(&e->run[i], &e->run[i + 1],
		(e->runs - i - 1) * sizeof(e->run[0]));
	if (!--e->runs)
		fxt_map_del(&o->flows_early, key, id);
}

/*
 * Run i of e is forgotten: a begin older than it takes no run of its id
 * (early_taken()).  e is not used after this when it was the last run.
 */
static void early_forget(struct output *o, uint64_t key, uint64_t id,
			 struct flow_early *e, uint32_t i)
{
	if (!e->forgot || e->run[i].first_ns > e->forgot_ns)
		e->forgot_ns = e->run[i].first_ns;
	e->forgot = 1;
	early_drop(o, key, id, e, i);
}

/* A full e forgets its run of the oldest first event. */
static void early_forget_oldest(struct output *o, uint64_t key, uint64_t id,
				struct flow_early *e)
{
	uint32_t i, oldest = 0;

	for (i = 1; i < e->runs; i++)
		if (e->run[i].first_ns < e->run[oldest].first_ns)
			oldest = i;
	early_forget(o, key, id, e, oldest);
}

/* The user forgets the run it made first (entries of flows_early move). */
static void early_forget_user_oldest(struct output *o,
				     const struct early_user *user)
{
	const struct flow_early_node *node = &o->early_nodes[user->oldest];
	uint64_t key = node->key, id = node->id;
	struct flow_early *e = fxt_map_get(&o->flows_early, key, id);
	uint32_t i;

	for (i = 0; e->run[i].node != user->oldest; i++)
		;
	early_forget(o, key, id, e, i);
}

/*
 * A flow step or end rec of db, of (key, id) with no open begin, goes to
 * the file: it joins the run with no end whose first event is the latest
 * not after it, its events in time order, or gets a new id, kept as a run of its own within the bounds
 * (FLOW_EARLY_PER_USER), for a begin saved later.  Without memory for
 * it, or past the session's bound for a user with no run kept, the id
 * binds to nothing, as it did before runs were kept; so does one outside
 * every slice of its thread, which Perfetto would count as an error
 * (flow_no_enclosing_slice) once a begin bound its id.
 */
static void early_written(struct output *o, const struct drain_buffer *db,
			  uint64_t key, const struct fxt_record *rec,
			  uint64_t *out_id)
{
	bool end = rec->subtype == FXT_EVENT_FLOW_END;
	const struct thread_slices *thread;
	struct flow_early_run *run = NULL;
	struct flow_early *e = NULL;
	struct early_user *user;
	uint64_t bound;
	uint32_t i, n;
	int created;

	thread = fxt_map_get(&o->threads, db->tid, 0);
	if (!rec->ts_ns_valid || !thread ||
	    !slice_open(&thread->slices, db->pid)) {
		*out_id = ++o->flow_last_id;
		return;
	}
	e = fxt_map_get(&o->flows_early, key, rec->id);
	for (i = 0; e && i < e->runs; i++)
		if (!e->run[i].ended && e->run[i].first_ns <= rec->ts_ns &&
		    (!run || e->run[i].first_ns > run->first_ns))
			run = &e->run[i];
	if (run) {
		*out_id = run->out_id;
		run->ended = end;
		return;
	}
	*out_id = ++o->flow_last_id;
	/* A module older than ABI 0.8 names no user: the session's bound. */
	bound = db->owner == OWNER_UNKNOWN ? FLOW_EARLY_PER_SESSION :
					     FLOW_EARLY_PER_USER;
	user = fxt_map_get(&o->early_users, db->owner, 0);
	if (o->early_count >= FLOW_EARLY_PER_SESSION ||
	    (user && user->runs >= bound)) {
		if (!user)
			return;
		early_forget_user_oldest(o, user);
	}
	n = early_node_new(o);
	if (n == EARLY_NODE_NONE)
		return;
	e = fxt_map_put(&o->flows_early, key, rec->id, NULL);
	if (!e) {
		early_node_free(o, n);
		return;
	}
	if (e->runs == FLOW_EARLY_PER_ID)
		early_forget_oldest(o, key, rec->id, e);
	user = fxt_map_put(&o->early_users, db->owner, 0, &created);
	if (!user) {
		early_node_free(o, n);
		if (!e->runs)
			fxt_map_del(&o->flows_early, key, rec->id);
		return;
	}
	o->early_nodes[n] = (struct flow_early_node){
		.key = key, .id = rec->id, .owner = db->owner,
		.older = created ? EARLY_NODE_NONE : user->newest,
		.newer = EARLY_NODE_NONE,
	};
	if (created)
		user->oldest = n;
	else
		o->early_nodes[user->newest].newer = n;
	user->newest = n;
	user->runs++;
	o->early_count++;
	run = &e->run[e->runs++];
	run->first_ns = rec->ts_ns;
	run->out_id = *out_id;
	run->ended = end;
	run->node = n;
}

/*
 * Perfetto drops, as errors, a flow begin of an id begun and not ended
 * and a begin, or a step or end of a begun id, outside every slice of its
 * thread (check_flow() in user/reader/fxt_reader.c, rules
 * flow-duplicate-id and flow-no-enclosing-slice).  Flows are the
 * drainer's by (owner, id): a producer's step or end reaches only flows
 * its own user began, and its begin is refused only by an id its user
 * holds open (not when it takes a run with an end: it carries the run's
 * id); with shared flows by id alone, whatever the user.  A step
 * or end of no open flow is written with an id no open begin has
 * (flow_written(), early_written()).  rec is a task buffer's
 * (kind_allowed()).
 */
static bool flow_allowed(struct output *o, const struct drain_buffer *db,
			 const struct fxt_record *rec)
{
	const struct flow_early_run *run;
	const struct thread_slices *thread;
	const struct pid_share *share;
	uint64_t key = flow_key(o, db);
	const uint64_t *held;
	bool in_slice;

	if (rec->type != FXT_REC_EVENT || rec->subtype < FXT_EVENT_FLOW_BEGIN ||
	    rec->subtype > FXT_EVENT_FLOW_END)
		return true;
	thread = fxt_map_get(&o->threads, db->tid, 0);
	in_slice = thread && slice_open(&thread->slices, db->pid);
	/*
	 * The reader closes an id at its end even outside a slice; refused,
	 * the end leaves it open in the file and here.
	 */
	if (rec->subtype != FXT_EVENT_FLOW_BEGIN)
		return in_slice || !fxt_map_get(&o->flows, key, rec->id);
	if (!in_slice)
		return false;
	/*
	 * It closes a flow already ended: it holds nothing open, and its id
	 * is the run's, not that of a begin of its id still open.
	 */
	run = early_taken(o, key, rec);
	if (run && run->ended)
		return true;
	if (fxt_map_get(&o->flows, key, rec->id) ||
	    o->flows.count >= FLOW_OPEN_PER_SESSION)
		return false;
	/*
	 * The begin's user is charged, shared flows or not.  A module older
	 * than ABI 0.8 names no user: its buffers have only the session's
	 * bound, as before.
	 */
	held = fxt_map_get(&o->flow_users, db->owner, 0);
	if (db->owner != OWNER_UNKNOWN && !user_exempt(o, db->owner) && held &&
	    *held >= FLOW_OPEN_PER_USER)
		return false;
	if (user_other(o, db->owner) && o->flows_others >= FLOW_OPEN_OTHERS)
		return false;
	share = fxt_map_get(&o->pids, db->pid, 0);
	return share && (user_exempt(o, db->owner) ||
			 share->flows < FLOW_OPEN_PER_PROCESS);
}

/*
 * The record goes to the file: its flow begin opens (owner, id), its end
 * closes it, whichever process of the owner began it (with shared flows:
 * opens and closes id, whichever process of any user began it), and
 * *out_id is the correlation id it carries there.  Each open flow gets an
 * id of its own in the output, from one count for the session, so that
 * flows of two users never share an id in the file; a step or end of no
 * open flow gets a new one, which no open begin has, or a run's that only
 * a begin of its key and id saved later and older takes
 * (early_written()): Perfetto joins a step or end to the flow of the one
 * process that began its id, whatever its user
 * (Documentation/perfetto.rst), so the producer's id, or any id given to
 * a begin, could bind it to another user's flow.  A begin that takes a
 * run with an end opens nothing: its flow is whole.
 */
static int flow_written(struct output *o, const struct drain_buffer *db,
			const struct fxt_record *rec, uint64_t *out_id)
{
	uint64_t key = flow_key(o, db), pid, owner, open_id, *held;
	struct flow_early_run *run;
	struct flow_open *open;
	struct pid_share *share;
	struct flow_early *e;

	if (rec->type != FXT_REC_EVENT || rec->subtype < FXT_EVENT_FLOW_BEGIN ||
	    rec->subtype > FXT_EVENT_FLOW_END)
		return 0;
	if (rec->subtype == FXT_EVENT_FLOW_BEGIN) {
		run = early_taken(o, key, rec);
		e = run ? fxt_map_get(&o->flows_early, key, rec->id) : NULL;
		if (run && run->ended) {
			*out_id = run->out_id;
			early_drop(o, key, rec->id, e, (uint32_t)(run - e->run));
			return 0;
		}
		held = fxt_map_put(&o->flow_users, db->owner, 0, NULL);
		if (!held)
			return -ENOMEM;
		open = fxt_map_put(&o->flows, key, rec->id, NULL);
		if (!open) {
			if (!*held)
				fxt_map_del(&o->flow_users, db->owner, 0);
			return -ENOMEM;
		}
		++*held;
		open->other = user_other(o, db->owner);
		o->flows_others += open->other;
		open->pid = (uint32_t)db->pid;
		open->owner_uid = (uint32_t)db->owner;
		open->owner_unknown = db->owner == OWNER_UNKNOWN;
		open->out_id = run ? run->out_id : ++o->flow_last_id;
		open->begin_ns = rec->ts_ns_valid ? rec->ts_ns : INT64_MIN;
		*out_id = open->out_id;
		if (run)
			early_drop(o, key, rec->id, e, (uint32_t)(run - e->run));
		share = fxt_map_get(&o->pids, db->pid, 0);
		if (share)
			share->flows++;
		return 0;
	}
	open = fxt_map_get(&o->flows, key, rec->id);
	/*
	 * Older than the open begin (saved later, of another flow of the
	 * id): Perfetto, sorting by time, puts it before that begin, so it
	 * neither joins nor ends that flow, and may be a run of a begin
	 * older still, saved later.
	 */
	if (open && rec->ts_ns_valid && rec->ts_ns < open->begin_ns)
		open = NULL;
	if (!open) {
		early_written(o, db, key, rec, out_id);
		return 0;
	}
	*out_id = open->out_id;
	if (rec->subtype != FXT_EVENT_FLOW_END)
		return 0;
	pid = open->pid;
	open_id = open->out_id;
	owner = open->owner_unknown ? OWNER_UNKNOWN : open->owner_uid;
	o->flows_others -= open->other;
	fxt_map_del(&o->flows, key, rec->id);
	held = fxt_map_get(&o->flow_users, owner, 0);
	if (held && !--*held)
		fxt_map_del(&o->flow_users, owner, 0);
	share = fxt_map_get(&o->pids, pid, 0);
	if (!share)
		return 0;
	/* A former process's flow, or failing that whichever is counted. */
	if (share->former_flows &&
	    (open_id <= share->since_id || !share->flows))
		share->former_flows--;
	else if (share->flows)
		share->flows--;
	if (!share->flows && !share->former_flows && !share->buffers)
		fxt_map_del(&o->pids, pid, 0);
	return 0;
}

/*
 * A task buffer's "fxtrace:lost events" counter (id 0, uint64 "no
 * buffer", Documentation/api.rst) going to the file: the newest one of
 * its process is the process's count.  The record is already known to be
 * its own process's (attributable()).
 */
static int lost_written(struct output *o, const struct drain_buffer *db,
			const struct fxt_record *rec)
{
	struct pid_lost *lost;
	uint32_t i;
	int created;

	if (db->kind != FXTRACE_BUFFER_TASK || rec->type != FXT_REC_EVENT ||
	    rec->subtype != FXT_EVENT_COUNTER || rec->id != 0 ||
	    !fxt_string_is(&rec->category, "fxtrace") ||
	    !fxt_string_is(&rec->name, "lost events"))
		return 0;
	for (i = 0; i < rec->nargs; i++)
		if (rec->args[i].type == FXT_ARG_UINT64 &&
		    fxt_string_is(&rec->args[i].name, "no buffer"))
			break;
	if (i == rec->nargs)
		return 0;
	if (o->lost.count >= LOST_PIDS_MAX &&
	    !fxt_map_get(&o->lost, db->pid, 0)) {
		o->lost_unlisted++;
		return 0;
	}
	lost = fxt_map_put(&o->lost, db->pid, 0, &created);
	if (!lost)
		return -ENOMEM;
	/* Buffers are drained in no time order: the newest counter wins. */
	if (created || rec->ts >= lost->ts) {
		lost->ts = rec->ts;
		lost->count = rec->args[i].value.u64 < PRODUCER_DROPS_MAX ?
			      rec->args[i].value.u64 : PRODUCER_DROPS_MAX;
	}
	return 0;
}

static int pid_order(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

void output_report_lost(const struct output *o, FILE *f)
{
	const struct pid_lost *lost;
	uint64_t (*rows)[2], pid;
	size_t pos = 0, n = 0, i;

	if (!o->lost.count)
		return;
	rows = calloc(o->lost.count, sizeof(*rows));
	if (!rows) {
		fprintf(f, "fxtrace-drain: events lost without a buffer: out of memory to list them\n");
		return;
	}
	while ((lost = fxt_map_next(&o->lost, &pos, &pid, NULL)))
		if (lost->count) {
			rows[n][0] = pid;
			rows[n++][1] = lost->count;
		}
	qsort(rows, n, sizeof(*rows), pid_order);
	for (i = 0; i < n; i++)
		fprintf(f, "fxtrace-drain: pid %llu: %llu events lost without a buffer (as its producer reports)\n",
			(unsigned long long)rows[i][0],
			(unsigned long long)rows[i][1]);
	free(rows);
	if (o->lost_unlisted)
		fprintf(f, "fxtrace-drain: %llu reports of events lost without a buffer by processes past the first %u: not listed (their counters are in the trace)\n",
			(unsigned long long)o->lost_unlisted, LOST_PIDS_MAX);
}

/* Of a task buffer's string bytes, those the session's bound counts. */
static size_t strings_shared(const struct drain_buffer *db, size_t bytes)
{
	if (db->kind != FXTRACE_BUFFER_TASK || bytes <= db->strings_own)
		return 0;
	return bytes - db->strings_own;
}

/*
 * Whether db's tables can keep string record rec: within their own budget,
 * and for a task buffer within the one task buffers share.
 */
static bool string_fits(const struct output *o, const struct drain_buffer *db,
			const struct fxt_record *rec)
{
	size_t with = fxt_tables_string_bytes_with(db->tables,
						   (uint16_t)rec->id,
						   rec->name.len);

	if (!fxt_tables_string_fits(db->tables, (uint16_t)rec->id,
				    rec->name.len))
		return false;
	return o->task_strings - db->strings_shared +
	       strings_shared(db, with) <= TASK_STRINGS_SHARED;
}

/* After db's tables took a string: its share of the session's bound. */
static void strings_charge(struct output *o, struct drain_buffer *db)
{
	size_t shared = strings_shared(db,
				       fxt_tables_string_bytes(db->tables));

	o->task_strings = o->task_strings - db->strings_shared + shared;
	db->strings_shared = shared;
}

/*
 * Why a record that decoded cleanly is still not written, or
 * REFUSED_COUNT when it may be.  Kernel buffers are trusted for whom their
 * records name; producers' are not.
 */
static enum refusal refusal(struct output *o, const struct drain_buffer *db,
			    const struct fxt_record *rec)
{
	if (provider_taken(o, db))
		return REFUSED_PROVIDER;
	if (!kind_allowed(db, rec))
		return REFUSED_KIND;
	if (db->kind == FXTRACE_BUFFER_TASK && !attributable(db, rec))
		return REFUSED_FOREIGN;
	if (!in_window(o, rec))
		return REFUSED_TIME;
	if (!async_allowed(o, db, rec))
		return REFUSED_ASYNC;
	if (!flow_allowed(o, db, rec))
		return REFUSED_FLOW;
	/* A definition the tables cannot keep would leave refs without bytes. */
	if (rec->type == FXT_REC_STRING && !string_fits(o, db, rec))
		return REFUSED_STRINGS;
	return REFUSED_COUNT;
}

static void print_diag(void *ctx, const struct fxt_diag *diag)
{
	const struct drain_buffer *db = ctx;

	fprintf(stderr, "fxtrace-drain: buffer %u (%s): %s: %s\n", db->id,
		db->name, diag->rule_name, diag->message);
}

/*
 * Count a record refused against the buffer that held it (rec NULL: bytes
 * that do not make a record).
 */
static void refuse(struct output *o, struct drain_buffer *db,
		   const struct fxt_record *rec, enum refusal why)
{
	db->refused[why]++;
	db->invalid++;
	if (why == REFUSED_INVALID || !o->verbose || o->diags >= DIAG_MAX)
		return;
	o->diags++;
	fprintf(stderr, "fxtrace-drain: buffer %u (%s): a %s record refused: %s\n",
		db->id, db->name, fxt_record_type_name(rec->type),
		refusal_names[why]);
}

/*
 * A kernel-object record whose only fault is a name that is not UTF-8 (a
 * comm set with prctl(PR_SET_NAME), as the kernel or libfxtrace copy it):
 * the same record with the name repaired, in o->repair.  Returns its
 * bytes, or 0 when it is not such a record.  A producer's is then judged
 * like any other of its records.
 */
static size_t repair_kobj(struct output *o, struct drain_buffer *db,
			  const struct fxt_record *rec,
			  const struct fxt_sink *sink)
{
	char name[3 * KOBJ_NAME_REPAIR_MAX];
	uint64_t process = 0, need;
	struct fxt_sink check = { 0 };
	size_t len;
	ssize_t n;

	if (rec->type != FXT_REC_KOBJ || !rec->valid || !rec->complete ||
	    sink->counts[FXT_ERROR] ||
	    !rec->name.ptr || rec->name.len > KOBJ_NAME_REPAIR_MAX ||
	    rec->nargs > 1 ||
	    fxt_utf8_valid((const unsigned char *)rec->name.ptr, rec->name.len))
		return 0;
	if (rec->nargs) {
		if (rec->args[0].type != FXT_ARG_KOID ||
		    !fxt_string_is(&rec->args[0].name, "process") ||
		    !rec->args[0].value.u64)
			return 0;
		process = rec->args[0].value.u64;
	}
	len = utf8_repair((const unsigned char *)rec->name.ptr, rec->name.len,
			  name);
	n = fxt_write_kobj_name(o->repair, rec->subtype, rec->id, name,
				(__u32)len, process);
	/* Decoded again: written only if it is now clean. */
	n = fxt_decode_record(db->tables, o->repair, (size_t)n * 8, rec->offset,
			      &o->rec, &check, &need);
	if (n <= 0 || !o->rec.valid || check.counts[FXT_ERROR] ||
	    check.counts[FXT_WARNING])
		return 0;
	db->repaired++;
	return (size_t)n;
}

/*
 * The full path for the record at p (avail bytes of records from there, at
 * `offset` in the span): decode it, judge it, and append it to c when
 * valid.  Returns its size as fxt_decode_record() does (0: incomplete,
 * -1: size 0).
 */
static ssize_t add_record(struct output *o, struct drain_buffer *db,
			  const unsigned char *p, size_t avail,
			  uint64_t offset, struct chunk *c, uint64_t *records)
{
	struct fxt_record *rec = &o->rec;
	bool describe = o->verbose && o->diags < DIAG_MAX;
	struct thread_slices *thread;
	struct fxt_sink sink = { 0 };
	const unsigned char *bytes = p;
	uint64_t need, out_id = 0;
	enum refusal why;
	size_t size;
	ssize_t n;
	int err;

	if (describe) {
		sink.fn = print_diag;
		sink.ctx = db;
	}
	n = fxt_decode_record(db->tables, p, avail, offset, rec, &sink, &need);
	if (n <= 0)
		return n;
	size = (size_t)n;
	if (!rec->valid || !rec->complete ||
	    sink.counts[FXT_ERROR] || sink.counts[FXT_WARNING]) {
		/* A name's bytes never cost a kernel its record. */
		size = repair_kobj(o, db, rec, &sink);
		if (!size) {
			o->diags += describe;
			/* Only an error can have left its pid or id unread. */
			if (rec->valid && rec->complete &&
			    async_may_refuse(db, rec, REFUSED_INVALID))
				async_refused(o, rec);
			refuse(o, db, rec, REFUSED_INVALID);
			return n;
		}
		bytes = (const unsigned char *)o->repair;
		memset(sink.counts, 0, sizeof(sink.counts));
	}
	why = refusal(o, db, rec);
	if (why == REFUSED_COUNT && chunk_room(c, size))
		why = REFUSED_INVALID;
	if (why != REFUSED_COUNT) {
		if (async_may_refuse(db, rec, why))
			async_refused(o, rec);
		refuse(o, db, rec, why);
		return n;
	}
	/* Nothing else can refuse it: its definitions may enter the tables. */
	err = fxt_tables_apply(db->tables, rec, &sink);
	if (rec->type == FXT_REC_STRING)
		strings_charge(o, db);
	if (err || sink.counts[FXT_ERROR] || sink.counts[FXT_WARNING] ||
	    async_written(o, db, rec, &out_id) || lost_written(o, db, rec) ||
	    flow_written(o, db, rec, &out_id)) {
		/*
		 * No async event of an open id fails here (events define
		 * nothing in the tables; async_written() allocates only for
		 * a new id): no refused level to open.
		 */
		o->diags += describe;
		refuse(o, db, rec, REFUSED_INVALID);
		return n;
	}
	if (rec->type == FXT_REC_EVENT && rec->ts_ns_valid &&
	    rec->ts > db->last_ts)
		db->last_ts = rec->ts;
	/* Any buffer's slice event of a thread with task buffers. */
	if (rec->type == FXT_REC_EVENT && SLICE_EVENTS >> rec->subtype & 1 &&
	    rec->ts_ns_valid && (rec->subtype != FXT_EVENT_DURATION_COMPLETE ||
				 rec->end_ts_ns_valid) &&
	    (thread = fxt_map_get(&o->threads, rec->thread.tid, 0))) {
		slice_event(&thread->slices, rec->subtype, rec->thread.pid,
			    rec->ts_ns, rec->end_ts_ns);
		if (db->kind == FXTRACE_BUFFER_TASK &&
		    thread->slices.pid != rec->thread.pid)
			fold_event(o, db, rec);
	}
	if (rec->type == FXT_REC_SCHED && rec->subtype != FXT_SCHED_WAKEUP &&
	    rec->out_state == FXT_THREAD_STATE_DEAD &&
	    (thread = fxt_map_get(&o->threads, rec->out.tid, 0)))
		thread_dead(o, thread, rec->out.tid);
	chunk_put(c, bytes, size);
	/* An async or flow event's id is its last word (async_written()). */
	if (out_id) {
		out_id = htole64(out_id);
		memcpy(c->data + c->len - size + 8 * (rec->content_words - 1),
		       &out_id, sizeof(out_id));
	}
	(*records)++;
	return n;
}

/* The fast pass set up for db's records, or NULL (full path only). */
static struct fast_pass *fast_for(struct output *o,
				  const struct drain_buffer *db)
{
	/* The fast pass accepts records: none of this buffer's may be. */
	if (o->full_decode || provider_taken(o, db))
		return NULL;
	if (!o->fast)
		o->fast = calloc(1, sizeof(*o->fast));
	if (!o->fast)
		return NULL;	/* the full path judges the same */
	fast_begin(o->fast, db->tables, db->kind == FXTRACE_BUFFER_TASK,
		   &o->threads, db->pid, db->tid, o->window_lo, o->window_hi);
	return o->fast;
}

/* The largest kernel object repair_kobj() writes, in bytes. */
#define KOBJ_REPAIRED_MAX \
	(8 * fxt_kobj_name_words(3 * KOBJ_NAME_REPAIR_MAX, 1))

/*
 * The record at p (avail bytes) is one repair_kobj() could rewrite, and
 * so make longer: a kernel object whose inline name is not UTF-8.
 */
static bool may_grow(const unsigned char *p, size_t avail)
{
	uint64_t h, words;
	uint32_t len;

	memcpy(&h, p, sizeof(h));
	h = le64toh(h);
	words = fxt_bits(h, 4, 15);
	len = fxt_bits(h, 24, 39) & FXT_STRING_INDEX_MAX;
	if ((h & 15) != FXT_REC_KOBJ || !(fxt_bits(h, 24, 39) &
					  FXT_STRING_REF_INLINE))
		return false;
	/* Longer names, and names past the record, are not repaired. */
	if (len > KOBJ_NAME_REPAIR_MAX || words > avail / 8 ||
	    2 + fxt_stream_words(len) > words)
		return false;
	return !fxt_utf8_valid(p + 16, len);
}

/*
 * Judge the records of span (len bytes, a copy nobody else writes, at
 * `offset` in what was copied out) and append the valid ones to c.  Runs
 * the fast pass accepts are appended whole; every other record takes the
 * full path.  Returns the bytes framed as records.
 */
static size_t judge_span(struct output *o, struct drain_buffer *db,
			 struct fast_pass *fp, const unsigned char *span,
			 size_t len, uint64_t offset, struct chunk *c,
			 uint64_t *records, bool *unframed)
{
	size_t off = 0, run;
	ssize_t n;

	while (off < len) {
		if (fp) {
			/* Up to where the chunk would have to grow. */
			run = fast_run(fp, span + off, len - off,
				       c->cap - c->len, records, &db->last_ts);
			chunk_put(c, span + off, run);
			off += run;
			if (off == len)
				break;
		}
		n = add_record(o, db, span + off, len - off, offset + off, c,
			       records);
		if (n <= 0) {
			*unframed = n < 0;
			break;
		}
		if (fp)
			fast_forget(fp, &o->rec);
		off += (size_t)n;
	}
	return off;
}

/*
 * Copy the record at src (avail bytes left) to dst for the full path: the
 * words its header frames, or all that is left when it frames none that
 * fits.  The header is stored as it was read, so the copy frames what was
 * copied.  Returns the bytes copied.
 */
static size_t copy_record_out(unsigned char *dst, const unsigned char *src,
			      size_t avail)
{
	uint64_t raw, h, size;

	if (avail < sizeof(raw)) {
		memcpy(dst, src, avail);
		return avail;
	}
	memcpy(&raw, src, sizeof(raw));
	h = le64toh(raw);
	size = 8 * ((h & 15) == FXT_REC_LARGE ? fxt_bits(h, 4, 35) :
						 fxt_bits(h, 4, 15));
	if (!size || size > avail)
		size = avail;
	memcpy(dst, &raw, sizeof(raw));
	memcpy(dst + sizeof(raw), src + sizeof(raw), size - sizeof(raw));
	return size;
}

/*
 * Copy len bytes at src out of the mapping, and append the valid records
 * to c.  Returns the bytes framed as records; *unframed is set when a
 * record could not be framed (size 0), which ends the span.
 *
 * With the fast pass the copy goes straight to the end of the chunk and
 * is judged there: accepted records stay where they are, or move down over
 * refused ones, so they are copied once.  The fast pass copies each record
 * just before it judges it (fast_copy_run()), and a record it leaves to the
 * full path is copied whole first: one pass over the mapping, and nothing
 * judged that was not copied.  Only a kernel object that a repair could
 * make longer than the room refused records left sends the rest of the
 * span through o->scratch.
 */
static size_t add_records(struct output *o, struct drain_buffer *db,
			  const unsigned char *src, size_t len,
			  struct chunk *c, uint64_t *records, bool *unframed)
{
	struct fast_pass *fp = fast_for(o, db);
	size_t off = 0, copied = 0, run;
	unsigned char *span;
	ssize_t n;

	*unframed = false;
	if (!fp || chunk_room(c, len)) {
		if (scratch_reserve(o, len))
			return 0;
		memcpy(o->scratch, src, len);
		return judge_span(o, db, fp, o->scratch, len, 0, c, records,
				  unframed);
	}
	span = c->data + c->len;
	while (off < len) {
		run = fast_copy_run(fp, span + off, src + off, len - off,
				    records, &db->last_ts);
		chunk_put(c, span + off, run);
		off += run;
		if (off == len)
			break;
		copied = off + copy_record_out(span + off, src + off, len - off);
		if (may_grow(span + off, copied - off) &&
		    (size_t)(span + off - (c->data + c->len)) <
		    KOBJ_REPAIRED_MAX) {
			if (scratch_reserve(o, len - off))
				return off;
			memcpy(o->scratch, span + off, copied - off);
			memcpy(o->scratch + (copied - off), src + copied,
			       len - copied);
			return off + judge_span(o, db, fp, o->scratch,
						len - off, off, c, records,
						unframed);
		}
		n = add_record(o, db, span + off, copied - off, off, c,
			       records);
		if (n <= 0) {
			*unframed = n < 0;
			break;
		}
		fast_forget(fp, &o->rec);
		off += (size_t)n;
	}
	return off;
}

/* Durable bytes committed since the last chunk, up to durable_len. */
static void add_durable(struct output *o, struct drain_buffer *db,
			const struct fxtctl_buffer *b, uint64_t durable_len,
			struct chunk *c, uint64_t *records)
{
	bool unframed;

	if (db->durable_broken || durable_len <= db->durable_done)
		return;
	/* An unfinished last record is read again with the next additions. */
	db->durable_done += add_records(o, db, b->data + db->durable_done,
					durable_len - db->durable_done, c,
					records, &unframed);
	if (unframed) {
		refuse(o, db, NULL, REFUSED_INVALID);
		db->durable_broken = true;
	}
}

/* A rolling half: what does not make whole records is lost. */
static void add_half(struct output *o, struct drain_buffer *db,
		     const struct fxtctl_span *half, struct chunk *c,
		     uint64_t *records)
{
	bool unframed;

	if (add_records(o, db, half->ptr, half->len, c, records,
			&unframed) < half->len)
		refuse(o, db, NULL, REFUSED_INVALID);
	if (half->wrap + 1 > db->next_wrap)
		db->next_wrap = half->wrap + 1;
}

static uint64_t durable_pending(const struct drain_buffer *db,
				uint64_t durable_len)
{
	return durable_len > db->durable_done ? durable_len - db->durable_done : 0;
}

int output_half(struct output *o, const struct fxtctl_buffer *b,
		const struct fxtctl_span *half, struct chunk *c)
{
	struct drain_buffer *db = output_buffer(o, b);
	struct fxtctl_span spans[FXTCTL_SPANS_MAX];
	uint64_t records = 0;
	int ret;

	if (!db)
		return -ENOMEM;
	/* No half is newer than wrap ~0: only the durable part. */
	fxtctl_buffer_spans(b, ~0ULL, spans);
	ret = chunk_begin(o, db, c,
			  durable_pending(db, spans[0].len) + half->len);
	if (ret)
		return ret;
	add_durable(o, db, b, spans[0].len, c, &records);
	add_half(o, db, half, c, &records);
	chunk_end(o, db, c, records);
	db->records += records;
	return 0;
}

int output_rest(struct output *o, const struct fxtctl_buffer *b,
		struct chunk *c)
{
	struct drain_buffer *db = output_buffer(o, b);
	struct fxtctl_span spans[FXTCTL_SPANS_MAX];
	uint64_t records = 0;
	size_t body = 0;
	unsigned int n, i;
	int ret;

	if (!db)
		return -ENOMEM;
	n = fxtctl_buffer_spans(b, db->next_wrap, spans);
	body = durable_pending(db, spans[0].len);
	for (i = 1; i < n; i++)
		body += spans[i].len;
	ret = chunk_begin(o, db, c, body);
	if (ret)
		return ret;
	add_durable(o, db, b, spans[0].len, c, &records);
	for (i = 1; i < n; i++)
		add_half(o, db, &spans[i], c, &records);
	/*
	 * The kernel's count; for task buffers, the producer's own as the
	 * kernel copied it at Stop or retirement: any value it wrote, bounded.
	 * [snapshot] (kmod/buffer.c): the packet came first.
	 */
	db->dropped = __atomic_load_n(&b->hdr->dropped_records,
				      __ATOMIC_ACQUIRE);
	if (b->kind == FXTRACE_BUFFER_TASK && db->dropped > PRODUCER_DROPS_MAX)
		db->dropped = PRODUCER_DROPS_MAX;
	chunk_end(o, db, c, records);
	db->records += records;
	return 0;
}

int output_drops(struct output *o, struct drain_buffer *db, struct chunk *c)
{
	static const char cat[] = "fxtrace", name[] = "dropped",
			  records[] = "records", invalid[] = "invalid";
	const __u16 cat_ref = fxt_inline_string_ref(sizeof(cat) - 1);
	const __u16 name_ref = fxt_inline_string_ref(sizeof(name) - 1);
	const __u16 records_ref = fxt_inline_string_ref(sizeof(records) - 1);
	const __u16 invalid_ref = fxt_inline_string_ref(sizeof(invalid) - 1);
	const __u32 words = fxt_event_words(FXT_EVENT_COUNTER,
					    FXT_THREAD_REF_INLINE, cat_ref,
					    name_ref,
					    fxt_arg_words(records_ref, 1) +
					    fxt_arg_words(invalid_ref, 1));
	__u64 w[DROPS_WORDS_MAX];
	__u32 n = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	if ((!db->dropped && !db->invalid) || provider_taken(o, db))
		return 0;
	ret = chunk_begin(o, db, c, sizeof(w));
	if (ret)
		return ret;
	w[n++] = fxt_event_hdr(words, FXT_EVENT_COUNTER, 2,
			       FXT_THREAD_REF_INLINE, cat_ref, name_ref);
	/* At its newest event; at the session's start when it has none. */
	w[n++] = db->last_ts > o->window_lo ? db->last_ts : o->window_lo;
	w[n++] = db->pid;
	w[n++] = db->tid;
	n += fxt_write_string_ref(w + n, cat_ref, cat);
	n += fxt_write_string_ref(w + n, name_ref, name);
	n += fxt_write_arg64(w + n, FXT_ARG_INT64, records_ref, records,
			     db->dropped);
	n += fxt_write_arg64(w + n, FXT_ARG_INT64, invalid_ref, invalid,
			     db->invalid);
	/* The counter id: one track per buffer. */
	w[n++] = db->id;
	chunk_put(c, w, n * 8);
	chunk_end(o, db, c, 1);
	return 0;
}

/* c to fd at its offset, whole; c is freed. */
static int write_chunk(int fd, struct chunk *c)
{
	const unsigned char *p = c->data;
	size_t left = c->len;
	ssize_t n;
	int ret = 0;

	while (left) {
		n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n ? -errno : -EIO;
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	chunk_free(c);
	return ret;
}

static void retired_evict(struct retired_copies *r)
{
	struct retired_copy *rc = r->oldest;

	r->oldest = rc->newer;
	if (!r->oldest)
		r->newest = NULL;
	r->used -= rc->bytes;
	r->held--;
	free(rc);
}

/*
 * Task buffer b's copy, newest in r; NULL when none is taken (not a task
 * buffer, sizes past its mapping, larger than the budget; *err 0), or no
 * memory (*err -ENOMEM, counted lost).
 */
static struct retired_copy *retired_take(struct retired_copies *r,
					 const struct fxtctl_buffer *b,
					 int *err)
{
	const struct fxtrace_buffer_header *hdr = b->hdr;
	struct fxtctl_span spans[FXTCTL_SPANS_MAX];
	struct fxtrace_buffer_control ctl;
	struct fxtctl_buffer view;
	struct retired_copy *rc;
	uint64_t data_len = 0, bytes, end;
	unsigned char *data;
	unsigned int n, i;

	*err = 0;
	r->retired++;
	/* The kernel's sizes, within its mapping. */
	if (b->kind != FXTRACE_BUFFER_TASK ||
	    hdr->durable_size > FXTRACE_BUFFER_SIZE_MAX ||
	    hdr->rolling_size > FXTRACE_BUFFER_SIZE_MAX ||
	    hdr->data_offset > b->map_size ||
	    hdr->durable_size + 2 * hdr->rolling_size >
	    b->map_size - hdr->data_offset)
		return NULL;
	/*
	 * The producer may still write its control page and data: its page
	 * is read once, and the copy holds what that reading says is
	 * committed, whatever the producer writes after.
	 */
	ctl.durable_committed = __atomic_load_n(&b->ctl->durable_committed,
						__ATOMIC_ACQUIRE);
	ctl.rolling_committed[0] =
		__atomic_load_n(&b->ctl->rolling_committed[0], __ATOMIC_ACQUIRE);
	ctl.rolling_committed[1] =
		__atomic_load_n(&b->ctl->rolling_committed[1], __ATOMIC_ACQUIRE);
	ctl.wrap_count = __atomic_load_n(&b->ctl->wrap_count,
					 __ATOMIC_ACQUIRE);
	ctl.dropped_records = __atomic_load_n(&b->ctl->dropped_records,
					      __ATOMIC_RELAXED);
	ctl.start_seq = __atomic_load_n(&b->ctl->start_seq, __ATOMIC_RELAXED);
	/* The committed spans of the mapping as that reading gives them. */
	view = *b;
	view.ctl = &ctl;
	n = fxtctl_buffer_spans(&view, 0, spans);
	/*
	 * The copy's data area ends where its last span does: a thread that
	 * exited early is charged what it wrote, not its whole buffer.  The
	 * copy's spans are the same (same header, same reading), so none
	 * starts past it.
	 */
	for (i = 0; i < n; i++) {
		end = (uint64_t)(spans[i].ptr - b->data) + spans[i].len;
		if (end > data_len)
			data_len = end;
	}
	bytes = retired_copy_bytes(data_len);
	if (bytes > r->budget)
		return NULL;
	/*
	 * Allocated before any eviction: without memory for it the older
	 * copies stay, so none is evicted for a copy that is not taken.
	 */
	rc = calloc(1, bytes);
	if (!rc) {
		r->lost++;
		*err = -ENOMEM;
		return NULL;
	}
	/* The oldest make room: once it is in, the budget holds. */
	while (r->used + bytes > r->budget)
		retired_evict(r);
	rc->bytes = bytes;
	memcpy(rc->mem, hdr, FXTRACE_BUFFER_PAGE_SIZE);
	memcpy(rc->mem + FXTRACE_BUFFER_PAGE_SIZE, &ctl, sizeof(ctl));
	data = rc->mem + FXTRACE_BUFFER_PAGE_SIZE + sizeof(ctl);
	for (i = 0; i < n; i++)
		memcpy(data + (spans[i].ptr - b->data), spans[i].ptr,
		       spans[i].len);
	rc->b = *b;
	rc->b.hdr = (const void *)rc->mem;
	rc->b.ctl = (const void *)(rc->mem + FXTRACE_BUFFER_PAGE_SIZE);
	rc->b.data = data;
	rc->b.map_size = bytes;
	if (r->newest)
		r->newest->newer = rc;
	else
		r->oldest = rc;
	r->newest = rc;
	r->used += bytes;
	r->held++;
	return rc;
}

int retired_keep(struct retired_copies *r, const struct fxtctl_buffer *b)
{
	int err;

	retired_take(r, b, &err);
	return err;
}

void retired_lose(struct retired_copies *r)
{
	r->retired++;
	r->lost++;
}

uint64_t retired_evicted(const struct retired_copies *r)
{
	return r->retired - r->held - r->lost;
}

int output_retired_rest(struct output *o, struct retired_copies *r,
			const struct fxtctl_buffer *b, struct chunk *c)
{
	const struct retired_copy *rc;
	int err;

	/*
	 * One reading of the producer's memory: the trace's rest is written
	 * from the copy the snapshots write, so both hold the same records
	 * whatever a sibling thread writes into the mapping meanwhile.
	 */
	rc = retired_take(r, b, &err);
	/*
	 * No copy (none taken, or no memory for it: counted lost): the
	 * rest from the mapping, as without copies.  An -ENOMEM returned
	 * is output_rest()'s, not the copy's.
	 */
	return output_rest(o, rc ? &rc->b : b, c);
}

void retired_free(struct retired_copies *r)
{
	while (r->oldest)
		retired_evict(r);
}

/* A retired buffer's copy as the trace wrote it at retirement. */
static int output_retired(struct output *o, const struct fxtctl_buffer *b,
			  int fd)
{
	struct drain_buffer *db;
	struct chunk chunk;
	int ret;

	ret = output_rest(o, b, &chunk);
	if (!ret)
		ret = write_chunk(fd, &chunk);
	db = output_find(o, b->id);
	if (ret || !db)
		return ret;
	ret = output_drops(o, db, &chunk);
	if (!ret)
		ret = write_chunk(fd, &chunk);
	output_retire(o, db);
	return ret;
}

int output_snapshot_copies(struct output *o,
			   const struct retired_copies *kept, int fd)
{
	const struct retired_copy *rc = kept ? kept->oldest : NULL;
	struct chunk chunk;
	__u64 magic;
	int ret, n = 0;

	/* A trace written whole: no flush or window mark (flush_mark.h). */
	fxt_write_magic(&magic);
	ret = chunk_alloc(&chunk, sizeof(magic));
	if (ret)
		return ret;
	chunk_put(&chunk, &magic, sizeof(magic));
	output_place(o, &chunk, 0);
	ret = write_chunk(fd, &chunk);
	/* Retired before the live buffers' rests, as in the trace. */
	for (; !ret && rc; rc = rc->newer, n++)
		ret = output_retired(o, &rc->b, fd);
	return ret ? ret : n;
}

int output_session(struct output *o, struct fxtctl *c,
		   const struct retired_copies *kept, bool pause, int fd,
		   unsigned int *not_mapped)
{
	struct fxtrace_buffer_info bi = { .size = sizeof(bi), .id = 1 };
	const struct fxtctl_buffer *b;
	struct drain_buffer *db;
	struct chunk chunk;
	size_t pos = 0;
	int ret, err, n;

	/*
	 * The copies are the drainer's and never change: written before
	 * the pause, which covers the live buffers alone.
	 */
	n = output_snapshot_copies(o, kept, fd);
	if (n < 0)
		return n;
	ret = pause ? fxtctl_pause(c) : 0;
	if (ret) {
		fprintf(stderr, "fxtrace-drain: snapshot: pause: %s\n",
			strerror(-ret));
		return ret;
	}
	while (!ret && !ioctl(c->fd, FXTRACE_IOC_BUFFER_INFO, &bi)) {
		b = fxtctl_buffer(c, bi.id);
		if (!b && not_mapped) {
			/*
			 * One buffer that cannot be mapped (a retired one
			 * on_retired() could not map stays listed) costs
			 * its records, not every later snapshot.
			 */
			fprintf(stderr, "fxtrace-drain: snapshot: buffer %u not mapped: %s\n",
				bi.id, strerror(errno));
			++*not_mapped;
			bi.id++;
			continue;
		}
		if (!b) {
			ret = -errno;
			break;
		}
		ret = output_rest(o, b, &chunk);
		if (!ret)
			ret = write_chunk(fd, &chunk);
		n++;
		bi.id++;
	}
	if (!ret && errno != ENOENT)
		ret = -errno;
	while (!ret && (db = output_next(o, &pos))) {
		ret = output_drops(o, db, &chunk);
		if (!ret)
			ret = write_chunk(fd, &chunk);
	}
	err = pause ? fxtctl_resume(c) : 0;
	if (err)
		fprintf(stderr, "fxtrace-drain: snapshot: resume: %s\n",
			strerror(-err));
	return ret ? ret : n;
}
