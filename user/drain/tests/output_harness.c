// SPDX-License-Identifier: GPL-2.0
/*
 * output_harness.c - fake buffers, the file, its strict check and the
 * differential runs of output_test and fuzz_output (output_harness.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flush_mark.h"
#include "output_harness.h"
#include "vectors.h"

void file_add(struct file *f, const struct chunk *c)
{
	if (!c->len)
		return;
	if (c->offset != f->len) {
		printf("# chunk at %#llx, file ends at %#zx\n",
		       (unsigned long long)c->offset, f->len);
		exit(1);
	}
	/* Written past its allocation: the heap around it is corrupt. */
	if (c->len > c->cap) {
		printf("# chunk of %zu bytes in an allocation of %zu\n",
		       c->len, c->cap);
		exit(1);
	}
	if (f->len + c->len > f->cap) {
		f->cap = 2 * (f->len + c->len);
		f->bytes = realloc(f->bytes, f->cap);
		if (!f->bytes)
			exit(1);
	}
	memcpy(f->bytes + f->len, c->data, c->len);
	f->len += c->len;
}

void fake_owner(struct fake *f, __u32 uid)
{
	f->hdr->header_size = sizeof(*f->hdr);
	f->hdr->owner_uid = uid;
}

void put_durable(struct fake *f, const void *bytes, size_t len)
{
	memcpy(f->data + f->durable, bytes, len);
	f->durable += len;
	if (f->b.kind == FXTRACE_BUFFER_TASK)
		f->ctl->durable_committed = f->durable;
	else
		f->hdr->durable_committed = f->durable;
}

void put_words(struct fake *f, const __u64 *w, size_t n)
{
	put_durable(f, w, 8 * n);
}

void fake_new(struct fake *f, __u32 id, __u32 kind, __u32 pid, __u32 tid,
	      size_t durable_size, size_t rolling_size, const char *comm)
{
	size_t size = 8192 + durable_size + 2 * rolling_size;
	__u64 w[40];
	__u32 n;

	f->mem = calloc(1, size);
	if (!f->mem)
		exit(1);
	f->hdr = (void *)f->mem;
	f->ctl = (void *)(f->mem + 4096);
	f->data = f->mem + 8192;
	f->hdr->magic = FXTRACE_BUFFER_MAGIC;
	f->hdr->header_size = offsetof(struct fxtrace_buffer_header, flags) + 4;
	if (comm) {
		memcpy(f->mem + f->hdr->header_size, comm, strlen(comm) + 1);
		f->hdr->header_size += 16;
	}
	f->hdr->id = id;
	f->hdr->kind = kind;
	f->hdr->cpu = ~0U;
	f->hdr->pid = pid;
	f->hdr->tid = tid;
	f->hdr->data_offset = 8192;
	f->hdr->durable_size = durable_size;
	f->hdr->rolling_size = rolling_size;
	f->b = (struct fxtctl_buffer){ .id = id, .kind = kind, .hdr = f->hdr,
				       .ctl = f->ctl, .data = f->data,
				       .map_size = size };
	f->durable = 0;
	/* The kernel's name; a producer overwrites it to look like another. */
	n = fxt_write_provider_info(w, id, "honest 42", 9);
	n += fxt_write_init(w + n, SECOND);
	put_words(f, w, n);
	f->hdr->durable_reserved = f->durable;
}

void fake_free(struct fake *f)
{
	free(f->mem);
}

void probe_chunk(struct output *o, struct file *f, bool first, uint64_t ts)
{
	const __u32 words = fxt_event_words(FXT_EVENT_INSTANT,
					    FXT_THREAD_REF_INLINE, 0, 1, 0);
	struct chunk c = { 0 };
	__u64 w[32];
	__u32 n = 0;

	if (first) {
		n += fxt_write_provider_info(w, PROBE_PROVIDER, "bpf", 3);
		n += fxt_write_init(w + n, o->ticks_per_second);
		n += fxt_write_string(w + n, 1, "probe-name", 10);
	} else {
		w[n++] = fxt_provider_section_hdr(PROBE_PROVIDER);
	}
	w[n++] = fxt_event_hdr(words, FXT_EVENT_INSTANT, 0,
			       FXT_THREAD_REF_INLINE, 0, 1);
	w[n++] = ts;
	w[n++] = 0;
	w[n++] = PROBE_TID;
	if (chunk_append(&c, w, 8 * n))
		exit(1);
	output_place(o, &c, PROBE_PROVIDER);
	file_add(f, &c);
	chunk_free(&c);
}

/* ---- the strict check ----------------------------------------------------- */

/* Errors and warnings of a file but those of some rules. */
struct problems {
	struct diags d;
	uint64_t tolerated;		/* bit r: rule r */
	unsigned int count;
	unsigned int tolerated_count;	/* those of the rules let pass */
};

unsigned int check_output_tolerated;

static void collect_problem(void *ctx, const struct fxt_diag *diag)
{
	struct problems *p = ctx;

	if (diag->severity != FXT_ERROR && diag->severity != FXT_WARNING)
		return;
	if (p->tolerated >> diag->rule & 1 &&
	    (diag->rule != FXT_RULE_MISPLACED_END ||
	     !strncmp(diag->message, "thread ", 7))) {
		p->tolerated_count++;
		return;
	}
	p->count++;
	collect_diag(&p->d, diag);
}

/* Reads f into p; 0, or 1 when the reader could not. */
static int read_problems(const struct output *o, const struct file *f,
			 uint64_t tolerated, fxt_record_fn *fn, void *ctx,
			 struct problems *p)
{
	uint64_t lo, hi;
	struct fxt_reader *r;
	int ret;

	memset(p, 0, sizeof(*p));
	p->tolerated = tolerated;
	r = fxt_reader_new(collect_problem, p);
	ASSERT_TRUE(r);
	output_window_ns(o, &lo, &hi);
	fxt_reader_set_session_window(r, (int64_t)lo, (int64_t)hi);
	ret = fxt_reader_read_buffer(r, f->bytes, f->len, fn, ctx);
	fxt_reader_free(r);
	check_output_tolerated = p->tolerated_count;
	ASSERT_EQ(0, ret);
	return 0;
}

int check_output_tolerating(const struct output *o, const struct file *f,
			    uint64_t tolerated, fxt_record_fn *fn, void *ctx)
{
	static struct problems p;

	ASSERT_EQ(0, read_problems(o, f, tolerated, fn, ctx, &p));
	if (p.count)
		printf("# %s", p.d.text);
	ASSERT_EQ(0, p.count);
	return 0;
}

const char *check_output_problems(const struct output *o,
				  const struct file *f, uint64_t tolerated)
{
	static struct problems p;

	if (read_problems(o, f, tolerated, NULL, NULL, &p))
		return NULL;
	return p.d.text;
}

int check_output_but(const struct output *o, const struct file *f,
		     enum fxt_rule_id tolerated, fxt_record_fn *fn, void *ctx)
{
	_Static_assert(FXT_RULE_COUNT < 64, "a rule is a bit of a uint64_t");

	return check_output_tolerating(o, f, tolerated < FXT_RULE_COUNT ?
				       1ULL << tolerated : 0, fn, ctx);
}

/* ---- the fast pass against the full decoder ------------------------------ */

/* One output and its file: [0] with the fast pass, [1] the full decoder. */
struct side {
	struct output o;
	struct file f;
	uint64_t now;			/* the session clock */
	/* circular: the retired task buffers' copies, their snapshot */
	struct retired_copies kept;
	struct output snap_o;
	struct file snap_f;
};

static struct side sides[2];
struct diff_totals diff_totals;

static void side_add(struct side *s, struct chunk *c)
{
	file_add(&s->f, c);
	chunk_free(c);
}

/*
 * The session clock is CLOCK_MONOTONIC's (a ktime_t) or a TSC's count
 * since reset: its time fits int64 nanoseconds, and this is its last tick.
 */
static uint64_t clock_end(uint64_t ticks_per_second)
{
	unsigned __int128 t = (unsigned __int128)INT64_MAX * ticks_per_second /
			      SECOND;

	return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

/* The session clock moves on by ms: it stops at its end, never wraps. */
static void side_advance(struct side *sd, const struct diff_config *cfg,
			 uint32_t ms)
{
	uint64_t ticks = ms * (cfg->ticks_per_second / 1000);
	uint64_t end = clock_end(cfg->ticks_per_second);

	sd->now = end - sd->now < ticks ? end : sd->now + ticks;
	output_set_now(&sd->o, sd->now);
}

/* A fresh output at Start; the first half is saved 10 s (and more) later. */
static void side_start(struct side *sd, const struct diff_config *cfg,
		       bool full_decode)
{
	struct chunk c;

	output_free(&sd->o);
	output_init(&sd->o, cfg->ticks_per_second, cfg->start_ticks);
	retired_free(&sd->kept);
	/* The drainer's default budget, for buffers of 1 MiB. */
	sd->kept = (struct retired_copies){
		.budget = snapshot_retired_default(1 << 20),
	};
	sd->snap_f.len = 0;
	sd->o.full_decode = full_decode;
	sd->o.shared_flows = cfg->shared_flows;
	output_traced_users(&sd->o, cfg->owner_traced ? 1000 : NO_USER,
			    NO_USER);
	sd->now = cfg->start_ticks;
	side_advance(sd, cfg, 10000);
	side_advance(sd, cfg, cfg->advance_ms[0]);
	sd->f.len = 0;
	if (output_magic(&sd->o, &c))
		exit(1);
	side_add(sd, &c);
	/* As open_probes(): before any buffer's records. */
	if (cfg->probe_id) {
		sd->o.probe_provider = PROBE_PROVIDER;
		probe_chunk(&sd->o, &sd->f, true, sd->now);
	}
}

/* The window mark as the drainer rewrites it with its last flush mark. */
static void side_mark_window(struct side *sd)
{
	__u64 words[WINDOW_MARK_WORDS];
	uint64_t lo, hi;

	output_window_ns(&sd->o, &lo, &hi);
	window_mark_write(words, lo, hi);
	memcpy(sd->f.bytes + WINDOW_MARK_OFFSET, words, sizeof(words));
}

void diff_free(void)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		output_free(&sides[i].o);
		free(sides[i].f.bytes);
		memset(&sides[i].f, 0, sizeof(sides[i].f));
		retired_free(&sides[i].kept);
		output_free(&sides[i].snap_o);
		memset(&sides[i].snap_o, 0, sizeof(sides[i].snap_o));
		free(sides[i].snap_f.bytes);
		memset(&sides[i].snap_f, 0, sizeof(sides[i].snap_f));
	}
}

/* A buffer of a differential run, on both sides, and what became of it. */
struct diff_buf {
	struct fake f[2];
	__u32 id, kind;
	__u32 pid, tid;			/* whose records it holds */
	bool attached[2], active[2], retired[2];
	__u64 wraps[2];			/* halves saved */
	struct drain_buffer last[2];	/* the drainer's, at retirement */
};

/*
 * The main buffer (id 7, of the kind under test), the task buffer beside
 * a CPU or kernel buffer (6), the task buffer's successor (8).
 */
#define DIFF_BUFS	3

struct diff_run {
	const struct diff_config *cfg;
	struct diff_buf b[DIFF_BUFS];
	struct diff_buf *task;		/* the task buffer that retires */
	struct diff_buf *next;		/* its successor, or NULL */
	const void *halves[2];
	size_t lens[2];
	const void *durable;
	size_t durable_len;
	size_t durable_size, rolling_size;
};

/* The buffer's state in output s: live, or as it was when it retired. */
static const struct drain_buffer *diff_state(struct diff_buf *b,
					     unsigned int s)
{
	return b->retired[s] ? &b->last[s] : output_find(&sides[s].o, b->id);
}

/*
 * Everything the drainer keeps about the buffers and the session,
 * compared: the full decoder's side is the expected one, the fast pass's
 * observed.
 */
static int sides_same(struct diff_run *run, const char *what)
{
	const struct output *oa = &sides[0].o, *ob = &sides[1].o;
	const struct file *fa = &sides[0].f, *fb = &sides[1].f;
	const struct thread_slices *ta, *tb;
	const struct drain_buffer *a, *b;
	const struct kind_totals *ka, *kb;
	struct kind_totals totals[2];
	char *ra = NULL, *rb = NULL;
	size_t la = 0, lb = 0, pos = 0;
	unsigned int i, r;
	uint64_t tid;
	FILE *sa, *sb;
	bool same;

	sa = open_memstream(&ra, &la);
	ASSERT_TRUE(sa);
	sb = open_memstream(&rb, &lb);
	ASSERT_TRUE(sb);
	output_report_lost(&sides[0].o, sa);
	output_report_lost(&sides[1].o, sb);
	fclose(sa);
	fclose(sb);
	same = EXPECT_EQ(fb->len, fa->len);
	same &= EXPECT_MEM(fb->bytes, fa->bytes,
			   fa->len < fb->len ? fa->len : fb->len);
	same &= EXPECT_STRN(rb, ra, la);	/* the lost-events reports */
	free(ra);
	free(rb);
	for (i = 0; i < DIFF_BUFS; i++) {
		if (!run->b[i].attached[0])
			continue;
		a = diff_state(&run->b[i], 0);
		b = diff_state(&run->b[i], 1);
		ASSERT_TRUE(a);
		ASSERT_TRUE(b);
		same &= EXPECT_EQ(b->records, a->records);
		same &= EXPECT_EQ(b->bytes, a->bytes);
		same &= EXPECT_EQ(b->invalid, a->invalid);
		same &= EXPECT_EQ(b->repaired, a->repaired);
		same &= EXPECT_EQ(b->dropped, a->dropped);
		same &= EXPECT_EQ(b->last_ts, a->last_ts);
		same &= EXPECT_EQ(b->durable_done, a->durable_done);
		same &= EXPECT_EQ(b->durable_broken, a->durable_broken);
		same &= EXPECT_EQ(b->next_wrap, a->next_wrap);
		same &= EXPECT_MEM(b->refused, a->refused, sizeof(a->refused));
	}
	/* The summary's, retired buffers' and live ones' (and those alone). */
	for (i = 0; i < 2 * KIND_COUNT; i++) {
		if (i < KIND_COUNT) {
			output_totals(oa, i, &totals[0]);
			output_totals(ob, i, &totals[1]);
			ka = &totals[0];
			kb = &totals[1];
		} else {
			ka = &oa->retired[i - KIND_COUNT];
			kb = &ob->retired[i - KIND_COUNT];
		}
		same &= EXPECT_EQ(kb->buffers, ka->buffers);
		same &= EXPECT_EQ(kb->records, ka->records);
		same &= EXPECT_EQ(kb->bytes, ka->bytes);
		same &= EXPECT_EQ(kb->dropped, ka->dropped);
		same &= EXPECT_EQ(kb->invalid, ka->invalid);
		same &= EXPECT_EQ(kb->repaired, ka->repaired);
		for (r = 0; r < REFUSED_COUNT; r++)
			same &= EXPECT_EQ(kb->refused[r], ka->refused[r]);
	}
	same &= EXPECT_EQ(ob->asyncs.count, oa->asyncs.count);
	same &= EXPECT_EQ(ob->flows.count, oa->flows.count);
	same &= EXPECT_EQ(ob->threads.count, oa->threads.count);
	while ((ta = fxt_map_next(&oa->threads, &pos, &tid, NULL))) {
		tb = fxt_map_get(&ob->threads, tid, 0);
		same &= EXPECT_TRUE(tb);
		if (!tb)
			continue;
		same &= EXPECT_EQ(tb->buffers, ta->buffers);
		same &= EXPECT_EQ(tb->slices.unsure, ta->slices.unsure);
		same &= EXPECT_EQ(tb->slices.stack.depth,
				  ta->slices.stack.depth);
		for (i = 0; i < ta->slices.stack.depth &&
			    i < tb->slices.stack.depth; i++) {
			same &= EXPECT_EQ(tb->slices.stack.frames[i].ts,
					  ta->slices.stack.frames[i].ts);
			same &= EXPECT_EQ(tb->slices.stack.frames[i].dur,
					  ta->slices.stack.frames[i].dur);
		}
	}
	same &= EXPECT_EQ(ob->pids.count, oa->pids.count);
	same &= EXPECT_EQ(ob->offset, oa->offset);
	if (!same)
		FAIL("%s: the fast pass (observed) differs from the full decoder (expected)",
		     what);
	return 0;
}

/*
 * The records of task buffers in the file name their producer's process
 * and thread only, as an independent reading of Documentation/drain.rst
 * ("What a producer cannot do") and not of output.c's attributable().
 * The buffers are the run's, retired ones too.
 */
struct attribution {
	const struct diff_run *run;
	uint64_t foreign;
	/* cfg->probe_id: the probes' events, and those named "probe-name" */
	uint64_t probe_events, probe_named;
};

static bool names_producer(const struct fxt_record *rec, uint64_t pid,
			   uint64_t tid)
{
	uint32_t i;

	switch (rec->type) {
	case FXT_REC_THREAD:
	case FXT_REC_EVENT:
	case FXT_REC_LOG:
		return rec->thread.pid == pid && rec->thread.tid == tid;
	case FXT_REC_USEROBJ:
		return rec->thread.pid == pid;
	case FXT_REC_KOBJ:
		if (rec->subtype == FXT_KOBJ_PROCESS)
			return rec->id == pid;
		if (rec->subtype != FXT_KOBJ_THREAD || rec->id != tid)
			return false;
		for (i = 0; i < rec->nargs; i++)
			if (fxt_string_is(&rec->args[i].name, "process") &&
			    (rec->args[i].type != FXT_ARG_KOID ||
			     rec->args[i].value.u64 != pid))
				return false;
		return true;
	case FXT_REC_SCHED:
		return false;
	default:
		return true;
	}
}

static int check_attribution(void *ctx, const struct fxt_record *rec)
{
	struct attribution *a = ctx;
	const struct diff_buf *b;
	unsigned int i;

	/* The main buffer has the probes' id: no record of its may be here. */
	if (a->run->cfg->probe_id && rec->provider_id == PROBE_PROVIDER) {
		if (rec->type == FXT_REC_EVENT) {
			a->probe_events++;
			a->probe_named += rec->thread.tid == PROBE_TID &&
					  fxt_string_is(&rec->name,
							"probe-name");
		}
		return 0;
	}
	for (i = 0; i < DIFF_BUFS; i++) {
		b = &a->run->b[i];
		if (!b->attached[0] || b->id != rec->provider_id ||
		    b->kind != FXTRACE_BUFFER_TASK ||
		    names_producer(rec, b->pid, b->tid))
			continue;
		printf("# 0x%06llx: a %s record of task buffer %u names another process or thread\n",
		       (unsigned long long)rec->offset,
		       fxt_record_type_name(rec->type), rec->provider_id);
		a->foreign++;
	}
	return 0;
}

const char *const diff_strings[DIFF_STRINGS] = {
	NULL, "app", "frame", "incoming_weight", "outgoing_weight", "weight",
	"process", "fxtrace", "lost events", "no buffer", "\xc3\xa9t\xc3\xa9",
};

/* Threads 1 (pid, tid) and 2 (pid, tid + 1) after the strings. */
static size_t diff_prelude(__u64 *w, __u32 pid, __u32 tid)
{
	size_t n = 0;
	__u16 i;

	for (i = 1; i < DIFF_STRINGS; i++)
		n += fxt_write_string(w + n, i, diff_strings[i],
				      (__u32)strlen(diff_strings[i]));
	n += fxt_write_thread(w + n, 1, pid, tid);
	n += fxt_write_thread(w + n, 2, pid, tid + 1);
	return n;
}

#define DIFF_PRELUDE_WORDS	64

static size_t round_up8(size_t len)
{
	return (len + 7) & ~(size_t)7;
}

void fake_announce(struct fake *f, const char *name, uint64_t tps)
{
	__u64 w[2 + 1 + FXT_PROVIDER_NAME_MAX / 8 + 1];
	__u32 n;

	n = fxt_write_provider_info(w, f->b.id, name, (__u32)strlen(name));
	n += fxt_write_init(w + n, tps);
	f->durable = 0;
	put_words(f, w, n);
	f->hdr->durable_reserved = f->durable;
}

/*
 * BUFFER_ADDED: buffer b in output s, with the kernel's header and
 * announcement, then the strings and threads every buffer starts with.
 */
static int attach(struct diff_run *run, unsigned int s, struct diff_buf *b)
{
	const struct diff_config *cfg = run->cfg;
	bool task = b->kind == FXTRACE_BUFFER_TASK;
	char name[sizeof(cfg->comm) + 16];
	struct drain_buffer *db;
	__u64 w[DIFF_PRELUDE_WORDS];
	struct fake *f = &b->f[s];
	size_t n;

	fake_new(f, b->id, b->kind, task ? b->pid : 0, task ? b->tid : 0,
		 run->durable_size, run->rolling_size, NULL);
	/* As fxtrace-drain reads the filter's user at a new buffer. */
	if (cfg->successor_traced && b == run->next)
		output_traced_users(&sides[s].o, sides[s].o.traced_users[0],
				    1001);
	b->attached[s] = true;
	b->wraps[s] = 0;
	f->hdr->header_size = cfg->header_size;
	/* Users 1000 and 1001, where the header has owner_uid (ABI 0.8). */
	if (task && cfg->header_size >= offsetof(struct fxtrace_buffer_header,
						 owner_uid) +
					sizeof(f->hdr->owner_uid))
		f->hdr->owner_uid = cfg->other_owner && b == run->next ? 1001 :
									 1000;
	if (task) {
		if (cfg->header_size >= offsetof(struct fxtrace_buffer_header,
						 comm) + sizeof(f->hdr->comm))
			memcpy(f->hdr->comm, cfg->comm, sizeof(f->hdr->comm));
		snprintf(name, sizeof(name), "%s %u", cfg->comm, b->tid);
	} else if (b->kind == FXTRACE_BUFFER_CPU) {
		f->hdr->cpu = cfg->cpu;
		snprintf(name, sizeof(name), "cpu%u", cfg->cpu);
	} else {
		snprintf(name, sizeof(name), "kernel");
	}
	fake_announce(f, name, cfg->ticks_per_second);
	if (task && cfg->prefix_overwritten)
		memcpy(f->data, run->durable,
		       run->durable_len < f->durable ? run->durable_len :
						       f->durable);
	db = output_buffer(&sides[s].o, &f->b);
	if (!db)
		exit(1);
	/* Documentation/drain.rst: "the kernel's provider info ... skipped" */
	if (!(task && cfg->prefix_overwritten) &&
	    db->durable_done != f->hdr->durable_reserved)
		FAIL("buffer %u: the kernel's announcement (%llu bytes, named \"%s\") was judged as its records from byte %llu",
		     b->id, (unsigned long long)f->hdr->durable_reserved, name,
		     (unsigned long long)db->durable_done);
	n = diff_prelude(w, task ? b->pid : PID, task ? b->tid : TID);
	put_words(f, w, n);
	return 0;
}

/* What the buffer's durable part says is committed when the drainer reads. */
static void commit(struct fake *f, int16_t skew)
{
	/* A producer's word can be anything; the kernel's own is exact. */
	if (f->b.kind == FXTRACE_BUFFER_TASK)
		f->ctl->durable_committed = f->durable + (uint64_t)skew;
	else
		f->hdr->durable_committed = f->durable;
}

/* SAVE_BUFFER of b's next half, holding half i of the input. */
static void save_half(struct diff_run *run, unsigned int s,
		      struct diff_buf *b, unsigned int i)
{
	struct fake *f = &b->f[s];
	__u64 wrap = b->wraps[s]++;
	struct fxtctl_span half = {
		.ptr = f->data + f->hdr->durable_size +
		       (wrap & 1) * f->hdr->rolling_size,
		.len = run->lens[i],
		.wrap = wrap,
	};
	struct chunk c;

	memcpy((unsigned char *)half.ptr, run->halves[i], run->lens[i]);
	commit(f, run->cfg->durable_skew[i]);
	if (output_half(&sides[s].o, &f->b, &half, &c))
		exit(1);
	side_add(&sides[s], &c);
}

/* The mapping a sibling thread writes while its copy is taken, if any. */
static struct fake *copy_sibling;
static const struct diff_run *copy_run;

/*
 * A sibling thread of the retiring one goes on writing its mapping while
 * the drainer copies it: over the records it committed, after the
 * kernel's announcement, the bytes of half 1; the control page's
 * offsets on by a word, and its wrap count on by one.  The copy holds
 * what its one reading of the control page said, whatever the bytes
 * (Documentation/drain.rst, "Threads that exited").
 */
void diff_calloc_seen(size_t bytes)
{
	struct fake *f = copy_sibling;
	size_t from, len, i;

	if (!f || bytes < retired_copy_bytes(0))
		return;
	copy_sibling = NULL;
	from = f->hdr->durable_reserved;
	len = f->durable > from ? f->durable - from : 0;
	if (len > copy_run->lens[1])
		len = copy_run->lens[1];
	memcpy(f->data + from, copy_run->halves[1], len & ~(size_t)7);
	f->ctl->durable_committed += 8;
	for (i = 0; i < 2; i++)
		f->ctl->rolling_committed[i] += 8;
	f->ctl->wrap_count++;
	diff_totals.sibling_writes++;
}

/*
 * What is left of b (Stop, retirement), after the writer's last word;
 * with retiring in a circular session, a task buffer's from the copy the
 * snapshots keep (on_retired() in drain.c).
 */
static void rest(struct diff_run *run, unsigned int s, struct diff_buf *b,
		 bool retiring)
{
	const struct diff_config *cfg = run->cfg;
	struct fake *f = &b->f[s];
	struct chunk c;
	unsigned int i;

	commit(f, cfg->durable_skew[2]);
	if (b->kind == FXTRACE_BUFFER_TASK) {
		/* Its control page, and its count as the kernel copied it. */
		f->ctl->wrap_count = cfg->wrap_count;
		memcpy(f->ctl->rolling_committed, cfg->rolling_committed,
		       sizeof(cfg->rolling_committed));
		f->hdr->dropped_records = cfg->dropped;
	} else {
		/*
		 * The kernel's writer: on the half after the last it asked to
		 * save, or one further (that half's request not read yet),
		 * with its halves' offsets in them; a count of its drops.
		 */
		f->hdr->wrap_count = b->wraps[s] + (cfg->wrap_count & 1);
		for (i = 0; i < 2; i++)
			f->hdr->rolling_committed[i] =
				(cfg->rolling_committed[i] <
				 f->hdr->rolling_size ?
				 cfg->rolling_committed[i] :
				 f->hdr->rolling_size) & ~7ULL;
		f->hdr->dropped_records = cfg->dropped >> 24;
	}
	if (retiring && cfg->circular && b->kind == FXTRACE_BUFFER_TASK) {
		if (cfg->sibling_writes) {
			copy_sibling = f;
			copy_run = run;
		}
		if (output_retired_rest(&sides[s].o, &sides[s].kept, &f->b,
					&c))
			exit(1);
		copy_sibling = NULL;
	} else if (output_rest(&sides[s].o, &f->b, &c)) {
		exit(1);
	}
	side_add(&sides[s], &c);
}

static void drops(unsigned int s, struct diff_buf *b)
{
	struct chunk c;

	if (output_drops(&sides[s].o, output_find(&sides[s].o, b->id), &c))
		exit(1);
	side_add(&sides[s], &c);
}

/* BUFFER_RETIRED, as on_retired() in drain.c handles it. */
static void retire(struct diff_run *run, unsigned int s, struct diff_buf *b)
{
	struct output *o = &sides[s].o;
	struct drain_buffer *db;

	rest(run, s, b, true);
	drops(s, b);
	db = output_find(o, b->id);
	b->last[s] = *db;
	b->last[s].tables = NULL;
	output_retire(o, db);
	b->active[s] = false;
	b->retired[s] = true;
	diff_totals.retired += s == 0;
}

/* The task buffer retires; its successor takes the bytes that follow. */
static int succeed(struct diff_run *run, unsigned int s)
{
	retire(run, s, run->task);
	if (!run->next->attached[s] && attach(run, s, run->next))
		return 1;
	run->next->active[s] = true;
	return 0;
}

/*
 * SIGUSR1 at the end of a circular run: the snapshot of the retired
 * buffers' copies (output_snapshot_copies(), what output_session() writes
 * before the pause), through a fresh output as snapshot() makes it.
 */
static void snapshot_copies(struct side *sd, const struct diff_config *cfg)
{
	struct chunk c = { 0 };
	off_t len;
	int fd = memfd_create("snapshot", 0);

	output_free(&sd->snap_o);
	output_init(&sd->snap_o, cfg->ticks_per_second, sd->now);
	sd->snap_o.window_lo = sd->o.window_lo;
	sd->snap_o.shared_flows = sd->o.shared_flows;
	sd->snap_o.full_decode = sd->o.full_decode;
	if (fd < 0 || output_snapshot_copies(&sd->snap_o, &sd->kept, fd) !=
		      (int)sd->kept.held)
		exit(1);
	len = lseek(fd, 0, SEEK_END);
	c.data = malloc(len > 0 ? (size_t)len : 1);
	if (len < 0 || !c.data || pread(fd, c.data, (size_t)len, 0) != len)
		exit(1);
	c.len = c.cap = (size_t)len;
	sd->snap_f.len = 0;
	file_add(&sd->snap_f, &c);
	free(c.data);
	close(fd);
}

/* One output through the run: side 0 with the fast pass, 1 without. */
static int run_side(struct diff_run *run, unsigned int s)
{
	const struct diff_config *cfg = run->cfg;
	struct side *sd = &sides[s];
	struct diff_buf *b;
	unsigned int i, half;

	side_start(sd, cfg, s == 1);
	for (i = 0; i < DIFF_BUFS; i++) {
		b = &run->b[i];
		b->attached[s] = b->active[s] = b->retired[s] = false;
	}
	for (i = 0; i < 2; i++) {
		if (i && run->task == &run->b[0])
			continue;
		if (attach(run, s, &run->b[i]))
			return 1;
		run->b[i].active[s] = true;
	}
	if (run->next && cfg->overlap && attach(run, s, run->next))
		return 1;
	for (half = 0; half < 2; half++) {
		if (half)
			side_advance(sd, cfg, cfg->advance_ms[1]);
		for (i = 0; i < DIFF_BUFS; i++)
			if (run->b[i].active[s])
				save_half(run, s, &run->b[i], half);
		if (cfg->retire == DIFF_RETIRE_HALF0 + half && succeed(run, s))
			return 1;
	}
	side_advance(sd, cfg, cfg->advance_ms[2]);
	for (i = 0; i < DIFF_BUFS; i++) {
		b = &run->b[i];
		if (!b->active[s])
			continue;
		put_durable(&b->f[s], run->durable, run->durable_len);
		rest(run, s, b, false);
	}
	if (cfg->retire == DIFF_RETIRE_DURABLE) {
		if (succeed(run, s))
			return 1;
		put_durable(&run->next->f[s], run->durable, run->durable_len);
		rest(run, s, run->next, false);
	}
	if (cfg->kernel_retires && run->b[0].kind == FXTRACE_BUFFER_KERNEL)
		retire(run, s, &run->b[0]);
	side_advance(sd, cfg, cfg->advance_ms[3]);
	for (i = 0; i < DIFF_BUFS; i++)
		if (run->b[i].attached[s] && !run->b[i].retired[s])
			drops(s, &run->b[i]);
	/* The probes' last event: named by their string 1 still. */
	if (cfg->probe_id)
		probe_chunk(&sd->o, &sd->f, false, sd->now);
	side_mark_window(sd);
	if (cfg->circular)
		snapshot_copies(sd, cfg);
	return 0;
}

static void run_free(struct diff_run *run)
{
	unsigned int i, s;

	for (i = 0; i < DIFF_BUFS; i++)
		for (s = 0; s < 2; s++)
			if (run->b[i].attached[s])
				fake_free(&run->b[i].f[s]);
}

static uint64_t tolerated(__u32 kind);

/*
 * A circular run's snapshot of its copies: the same both ways, the strict
 * check passed (as the trace's), no task buffer's record naming another
 * process or thread.
 */
static int snapshot_same(struct diff_run *run, const char *label, __u32 kind)
{
	struct attribution attribution = { .run = run };
	const struct file *a = &sides[0].snap_f, *b = &sides[1].snap_f;

	if (sides[0].kept.held != sides[1].kept.held || a->len != b->len ||
	    memcmp(a->bytes, b->bytes, a->len))
		FAIL("%s: the snapshots of the copies differ: %u copies, %zu bytes with the fast pass, %u, %zu without",
		     label, sides[0].kept.held, a->len, sides[1].kept.held,
		     b->len);
	if (check_output_tolerating(&sides[0].snap_o, a, tolerated(kind),
				    check_attribution, &attribution))
		FAIL("%s: the snapshot of the copies fails the strict check",
		     label);
	if (attribution.foreign)
		FAIL("%s: %llu records of a copy in the snapshot name another process or thread",
		     label, (unsigned long long)attribution.foreign);
	diff_totals.snapshots++;
	diff_totals.copies += sides[0].kept.held;
	return 0;
}

/* The successor's ids (enum diff_successor). */
static void successor_ids(enum diff_successor who, __u32 *pid, __u32 *tid)
{
	*pid = who == DIFF_TID_REUSED || who == DIFF_OTHER ? PID + 100 : PID;
	*tid = who == DIFF_SIBLING ? TID + 1 : who == DIFF_OTHER ? TID + 100 :
	       TID;
}

/* The strict check's rules let pass (bit r: rule r). */
static uint64_t tolerated(__u32 kind)
{
	uint64_t rules = 0;

	/*
	 * The generated scheduling records are not in time order, which
	 * the drainer leaves as the kernel wrote it: sched-order may warn
	 * in CPU and kernel buffers, and only it.
	 */
	if (kind != FXTRACE_BUFFER_TASK)
		rules |= 1ULL << FXT_RULE_SCHED_ORDER;
	/*
	 * The generated slices nest at random: the producer's own thread's
	 * misnesting, which the drainer keeps (drain.rst, "What the drainer
	 * keeps that check warns of"); an async id's cut is not let pass
	 * (check_output_tolerating()).
	 */
	rules |= 1ULL << FXT_RULE_MISPLACED_END |
		 1ULL << FXT_RULE_COMPLETE_OVERLAP;
	return rules;
}

int diff_config_input(const struct diff_config *cfg, const void *half0,
		      size_t len0, const void *half1, size_t len1,
		      const void *durable, size_t durable_len,
		      const char *what)
{
	static const __u32 kinds[] = { FXTRACE_BUFFER_TASK, FXTRACE_BUFFER_CPU,
				       FXTRACE_BUFFER_KERNEL };
	static const char *const kind_names[] = { "task", "cpu", "kernel" };
	size_t rolling = round_up8(len0 > len1 ? len0 : len1);
	const struct drain_buffer *main_state;
	struct attribution attribution;
	struct diff_run run;
	unsigned int k, s;
	char label[300];

	diff_totals.inputs++;
	for (k = 0; k < N_WORDS(kinds); k++) {
		memset(&run, 0, sizeof(run));
		run.cfg = cfg;
		run.halves[0] = half0;
		run.halves[1] = half1;
		run.lens[0] = len0;
		run.lens[1] = len1;
		run.durable = durable;
		run.durable_len = durable_len;
		run.durable_size = 8 * DIFF_PRELUDE_WORDS +
				   round_up8(durable_len) + 4096;
		run.rolling_size = rolling ? rolling : 8;
		run.b[0] = (struct diff_buf){
			.id = cfg->probe_id ? PROBE_PROVIDER : 7,
			.kind = kinds[k], .pid = PID, .tid = TID,
		};
		/*
		 * Beside a CPU or kernel buffer, a task buffer of TID with
		 * the same bytes, drained in turn with it: their slice
		 * events of TID move its stack, and the file switches
		 * between their providers.
		 */
		run.b[1] = (struct diff_buf){ .id = 6,
					      .kind = FXTRACE_BUFFER_TASK,
					      .pid = PID, .tid = TID };
		run.task = kinds[k] == FXTRACE_BUFFER_TASK ? &run.b[0] :
							     &run.b[1];
		if (cfg->retire != DIFF_RETIRE_NONE) {
			run.next = &run.b[2];
			run.next->id = 8;
			run.next->kind = FXTRACE_BUFFER_TASK;
			successor_ids(cfg->successor, &run.next->pid,
				      &run.next->tid);
		}
		snprintf(label, sizeof(label), "%s (%s buffer)", what,
			 kind_names[k]);
		for (s = 0; s < 2; s++) {
			if (run_side(&run, s)) {
				run_free(&run);
				FAIL("%s: the run stopped", label);
			}
		}
		if (sides_same(&run, label)) {
			run_free(&run);
			return 1;
		}
		/* The file passes the strict check, its flows too. */
		attribution = (struct attribution){ .run = &run };
		if (check_output_tolerating(&sides[0].o, &sides[0].f,
					    tolerated(kinds[k]),
					    check_attribution, &attribution)) {
			run_free(&run);
			FAIL("%s: the file fails the strict check", label);
		}
		if (attribution.foreign) {
			run_free(&run);
			FAIL("%s: %llu records of a task buffer name another process or thread",
			     label, (unsigned long long)attribution.foreign);
		}
		if (cfg->circular && snapshot_same(&run, label, kinds[k])) {
			run_free(&run);
			return 1;
		}
		/*
		 * The probes' two events, named by their own string: none of
		 * the buffer with their id (output.probe_provider), which
		 * would announce their provider again and name their events.
		 */
		if (cfg->probe_id && (attribution.probe_events != 2 ||
				      attribution.probe_named != 2 ||
				      diff_state(&run.b[0], 0)->records)) {
			run_free(&run);
			FAIL("%s: %llu events of the probes' provider, %llu named by the probes, %llu records of the buffer with their id",
			     label,
			     (unsigned long long)attribution.probe_events,
			     (unsigned long long)attribution.probe_named,
			     (unsigned long long)diff_state(&run.b[0], 0)->records);
		}
		main_state = diff_state(&run.b[0], 0);
		diff_totals.records += main_state->records;
		diff_totals.refused += main_state->invalid;
		diff_totals.flows_refused += main_state->refused[REFUSED_FLOW];
		run_free(&run);
	}
	return 0;
}

static uint64_t read_le(const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

void diff_config_read(struct diff_config *cfg, const void *bytes, size_t len)
{
	/* struct fxtrace_buffer_header of ABI 0.3, 0.2, 0.5 and later */
	static const uint32_t header_sizes[4] = {
		offsetof(struct fxtrace_buffer_header, comm) +
			sizeof(((struct fxtrace_buffer_header *)0)->comm),
		offsetof(struct fxtrace_buffer_header, comm),
		sizeof(struct fxtrace_buffer_header),
		FXTRACE_BUFFER_PAGE_SIZE,
	};
	unsigned char b[DIFF_CONFIG_BYTES] = { 0 };
	uint64_t tsc_khz, clock_max;
	unsigned int i;

	if (len)
		memcpy(b, bytes, len < sizeof(b) ? len : sizeof(b));
	memset(cfg, 0, sizeof(*cfg));
	cfg->retire = (enum diff_retire)(b[0] & 3);
	cfg->successor = (enum diff_successor)(b[0] >> 2 & 3);
	cfg->overlap = b[0] >> 4 & 1;
	cfg->prefix_overwritten = b[0] >> 5 & 1;
	cfg->kernel_retires = b[0] >> 6 & 1;
	cfg->header_size = header_sizes[b[1] & 3];
	cfg->other_owner = b[1] >> 2 & 1;
	cfg->shared_flows = b[1] >> 3 & 1;
	cfg->owner_traced = b[1] >> 4 & 1;
	cfg->successor_traced = b[1] >> 5 & 1;
	cfg->cpu = b[2];
	cfg->probe_id = b[3] & 1;
	cfg->circular = b[3] >> 1 & 1;
	cfg->sibling_writes = b[3] >> 2 & 1;
	tsc_khz = read_le(b + 4, 4);
	cfg->ticks_per_second = tsc_khz ?
				1000 * (100000 + tsc_khz % 9900001) : SECOND;
	clock_max = clock_end(cfg->ticks_per_second);
	cfg->start_ticks = START + read_le(b + 8, 8);
	if (cfg->start_ticks > clock_max)
		cfg->start_ticks %= clock_max + 1;
	/* get_task_comm(): up to the first NUL, zero-padded, 15 at most */
	for (i = 0; i < sizeof(cfg->comm) - 1 && b[16 + i]; i++)
		cfg->comm[i] = (char)b[16 + i];
	for (i = 0; i < 4; i++)
		cfg->advance_ms[i] = (uint32_t)read_le(b + 32 + 2 * i, 2);
	for (i = 0; i < 3; i++)
		cfg->durable_skew[i] = (int16_t)read_le(b + 40 + 2 * i, 2);
	cfg->wrap_count = read_le(b + 48, 8);
	for (i = 0; i < 2; i++)
		cfg->rolling_committed[i] = read_le(b + 56 + 4 * i, 4);
	cfg->dropped = read_le(b + 64, 8);
}

int diff_input(const void *half0, size_t len0, const void *half1,
	       size_t len1, const void *durable, size_t durable_len,
	       const char *what)
{
	struct diff_config cfg;

	diff_config_read(&cfg, NULL, 0);
	strcpy(cfg.comm, "diff");
	return diff_config_input(&cfg, half0, len0, half1, len1, durable,
				 durable_len, what);
}

int diff_fuzz_input(const void *data, size_t size, const char *what)
{
	const unsigned char *p = data;
	struct diff_config cfg;
	size_t len, split;

	diff_config_read(&cfg, data, size);
	len = size > DIFF_CONFIG_BYTES ? size - DIFF_CONFIG_BYTES : 0;
	p += size - len;
	split = len / 16 * 8;
	return diff_config_input(&cfg, p, split, p + split, len - split, p,
				 len, what);
}
