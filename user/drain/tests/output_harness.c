// SPDX-License-Identifier: GPL-2.0
/*
 * output_harness.c - fake buffers, the file, its strict check and the
 * differential runs of output_test and fuzz_output (output_harness.h).
 */
#include <stdlib.h>
#include <string.h>

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
	if (f->len + c->len > f->cap) {
		f->cap = 2 * (f->len + c->len);
		f->bytes = realloc(f->bytes, f->cap);
		if (!f->bytes)
			exit(1);
	}
	memcpy(f->bytes + f->len, c->data, c->len);
	f->len += c->len;
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

/* ---- the strict check ----------------------------------------------------- */

/* Errors and warnings of a file but one rule's (FXT_RULE_COUNT: none). */
struct problems {
	struct diags d;
	enum fxt_rule_id tolerated;
	unsigned int count;
};

static void collect_problem(void *ctx, const struct fxt_diag *diag)
{
	struct problems *p = ctx;

	if (diag->rule == p->tolerated ||
	    (diag->severity != FXT_ERROR && diag->severity != FXT_WARNING))
		return;
	p->count++;
	collect_diag(&p->d, diag);
}

int check_output_but(const struct output *o, const struct file *f,
		     enum fxt_rule_id tolerated, fxt_record_fn *fn, void *ctx)
{
	static struct problems p;
	uint64_t lo, hi;
	struct fxt_reader *r;
	int ret;

	memset(&p, 0, sizeof(p));
	p.tolerated = tolerated;
	r = fxt_reader_new(collect_problem, &p);
	ASSERT_TRUE(r);
	output_window_ns(o, &lo, &hi);
	fxt_reader_set_session_window(r, (int64_t)lo, (int64_t)hi);
	ret = fxt_reader_read_buffer(r, f->bytes, f->len, fn, ctx);
	fxt_reader_free(r);
	ASSERT_EQ(0, ret);
	if (p.count)
		printf("# %s", p.d.text);
	ASSERT_EQ(0, p.count);
	return 0;
}

/* ---- the fast pass against the full decoder ------------------------------ */

/* One output and its file: [0] with the fast pass, [1] the full decoder. */
struct side {
	struct output o;
	struct file f;
};

static struct side sides[2];
struct diff_totals diff_totals;

static void side_add(struct side *s, struct chunk *c)
{
	file_add(&s->f, c);
	chunk_free(c);
}

static void sides_start(void)
{
	struct chunk c;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		output_free(&sides[i].o);
		output_init(&sides[i].o, SECOND, START);
		sides[i].o.full_decode = i == 1;
		output_set_now(&sides[i].o, START + 10 * SECOND);
		sides[i].f.len = 0;
		if (output_magic(&sides[i].o, &c))
			exit(1);
		side_add(&sides[i], &c);
	}
}

void diff_free(void)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		output_free(&sides[i].o);
		free(sides[i].f.bytes);
		memset(&sides[i].f, 0, sizeof(sides[i].f));
	}
}

/*
 * Everything the drainer keeps about a buffer and the session, compared:
 * the full decoder's side is the expected one, the fast pass's observed.
 */
static int sides_same(uint32_t id, const char *what)
{
	const struct drain_buffer *a = output_find(&sides[0].o, id);
	const struct drain_buffer *b = output_find(&sides[1].o, id);
	const struct output *oa = &sides[0].o, *ob = &sides[1].o;
	const struct file *fa = &sides[0].f, *fb = &sides[1].f;
	const struct thread_slices *ta, *tb;
	char *ra = NULL, *rb = NULL;
	size_t la = 0, lb = 0;
	FILE *sa, *sb;
	bool same;

	ASSERT_TRUE(a);
	ASSERT_TRUE(b);
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
	same &= EXPECT_EQ(ob->asyncs.count, oa->asyncs.count);
	same &= EXPECT_EQ(ob->flows.count, oa->flows.count);
	same &= EXPECT_EQ(ob->threads.count, oa->threads.count);
	ta = fxt_map_get(&oa->threads, TID, 0);
	tb = fxt_map_get(&ob->threads, TID, 0);
	same &= EXPECT_EQ(!tb, !ta);
	if (ta && tb) {
		same &= EXPECT_EQ(tb->slices.depth, ta->slices.depth);
		same &= EXPECT_EQ(tb->slices.scoped_open,
				  ta->slices.scoped_open);
		same &= EXPECT_EQ(tb->slices.scoped_end, ta->slices.scoped_end);
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
 */
struct attribution {
	const struct output *o;
	uint64_t foreign;
};

static bool names_producer(const struct fxt_record *rec)
{
	uint32_t i;

	switch (rec->type) {
	case FXT_REC_THREAD:
	case FXT_REC_EVENT:
	case FXT_REC_LOG:
		return rec->thread.pid == PID && rec->thread.tid == TID;
	case FXT_REC_USEROBJ:
		return rec->thread.pid == PID;
	case FXT_REC_KOBJ:
		if (rec->subtype == FXT_KOBJ_PROCESS)
			return rec->id == PID;
		if (rec->subtype != FXT_KOBJ_THREAD || rec->id != TID)
			return false;
		for (i = 0; i < rec->nargs; i++)
			if (fxt_string_is(&rec->args[i].name, "process") &&
			    (rec->args[i].type != FXT_ARG_KOID ||
			     rec->args[i].value.u64 != PID))
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
	struct drain_buffer **db = fxt_map_get(&a->o->bufs, rec->provider_id,
					       0);

	if (db && (*db)->kind == FXTRACE_BUFFER_TASK && !names_producer(rec)) {
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

static size_t diff_prelude(__u64 *w)
{
	size_t n = 0;
	__u16 i;

	for (i = 1; i < DIFF_STRINGS; i++)
		n += fxt_write_string(w + n, i, diff_strings[i],
				      (__u32)strlen(diff_strings[i]));
	n += fxt_write_thread(w + n, 1, PID, TID);
	n += fxt_write_thread(w + n, 2, PID, TID + 1);
	return n;
}

static size_t round_up8(size_t len)
{
	return (len + 7) & ~(size_t)7;
}

int diff_input(const void *half0, size_t len0, const void *half1,
	       size_t len1, const void *durable, size_t durable_len,
	       const char *what)
{
	static const __u32 kinds[] = { FXTRACE_BUFFER_TASK, FXTRACE_BUFFER_CPU,
				       FXTRACE_BUFFER_KERNEL };
	const void *halves[2] = { half0, half1 };
	const size_t lens[2] = { len0, len1 };
	size_t rolling = round_up8(len0 > len1 ? len0 : len1), n;
	struct attribution attribution;
	struct fake f[2][2];
	__u64 prelude[64];
	struct chunk c;
	unsigned int k, s, i, j, buffers;
	char label[300];

	diff_totals.inputs++;
	n = diff_prelude(prelude);
	for (k = 0; k < N_WORDS(kinds); k++) {
		/*
		 * Beside a CPU or kernel buffer, a task buffer of TID with
		 * the same bytes, drained in turn with it: their slice
		 * events of TID move its stack, and the file switches
		 * between their providers.
		 */
		buffers = kinds[k] == FXTRACE_BUFFER_TASK ? 1 : 2;
		sides_start();
		for (s = 0; s < 2; s++) {
			for (j = 0; j < buffers; j++) {
				fake_new(&f[s][j], 7 - j,
					 j ? FXTRACE_BUFFER_TASK : kinds[k],
					 PID, TID,
					 8 * n + round_up8(durable_len) + 4096,
					 rolling ? rolling : 8, "diff");
				if (!output_buffer(&sides[s].o, &f[s][j].b))
					exit(1);
				put_words(&f[s][j], prelude, n);
			}
			for (i = 0; i < 2; i++) {
				for (j = 0; j < buffers; j++) {
					struct fake *fk = &f[s][j];
					struct fxtctl_span half = {
						.ptr = fk->data +
						       fk->hdr->durable_size +
						       i * fk->hdr->rolling_size,
						.len = lens[i],
						.wrap = i,
					};

					memcpy((unsigned char *)half.ptr,
					       halves[i], lens[i]);
					if (output_half(&sides[s].o, &fk->b,
							&half, &c))
						exit(1);
					side_add(&sides[s], &c);
				}
			}
			for (j = 0; j < buffers; j++) {
				put_durable(&f[s][j], durable, durable_len);
				if (output_rest(&sides[s].o, &f[s][j].b, &c))
					exit(1);
				side_add(&sides[s], &c);
			}
			for (j = 0; j < buffers; j++) {
				if (output_drops(&sides[s].o,
						 output_find(&sides[s].o,
							     7 - j), &c))
					exit(1);
				side_add(&sides[s], &c);
			}
		}
		snprintf(label, sizeof(label), "%s (%s buffer)", what,
			 kinds[k] == FXTRACE_BUFFER_TASK ? "task" :
			 kinds[k] == FXTRACE_BUFFER_CPU ? "cpu" : "kernel");
		for (j = 0; j < buffers; j++)
			if (sides_same(7 - j, label))
				return 1;
		/*
		 * The file passes the strict check, its flows too.  The
		 * generated scheduling records are not in time order, which
		 * the drainer leaves as the kernel wrote it: sched-order may
		 * warn in CPU and kernel buffers, and only it.
		 */
		attribution = (struct attribution){ .o = &sides[0].o };
		if (check_output_but(&sides[0].o, &sides[0].f,
				     kinds[k] == FXTRACE_BUFFER_TASK ?
				     FXT_RULE_COUNT : FXT_RULE_SCHED_ORDER,
				     check_attribution, &attribution))
			FAIL("%s: the file fails the strict check", label);
		if (attribution.foreign)
			FAIL("%s: %llu records of a task buffer name another process or thread",
			     label, (unsigned long long)attribution.foreign);
		diff_totals.records += output_find(&sides[0].o, 7)->records;
		diff_totals.refused += output_find(&sides[0].o, 7)->invalid;
		diff_totals.flows_refused +=
			output_find(&sides[0].o, 7)->refused[REFUSED_FLOW];
		for (s = 0; s < 2; s++)
			for (j = 0; j < buffers; j++)
				fake_free(&f[s][j]);
	}
	return 0;
}
