// SPDX-License-Identifier: GPL-2.0
/*
 * output_test - fxtrace-drain's data path (output.c) on the host, without
 * the module: buffers laid out in memory as the kernel lays them out
 * (header page, control page, data), filled with what a hostile producer
 * writes, turned into a file the way the drainer does it.  Each test
 * asserts the exact records refused, by reason, and that the file passes
 * the strict check (`fxtrace check --strict`: no error, no warning) inside
 * the session window the drainer declares.
 *
 * `output_test --bench N`: N honest instants (indexed thread, category,
 * name and argument name, one int64 argument) through output_rest(), for
 * instruction counts per record under `valgrind --tool=callgrind`.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "drain.h"
#include "flush_mark.h"
#include "vectors.h"

#define PID	100
#define TID	101
#define SECOND	1000000000ULL
#define START	(1000 * SECOND)		/* the session clock at Start */

/* A buffer in memory, as the kernel maps it to the drainer. */
struct fake {
	unsigned char *mem;
	struct fxtctl_buffer b;
	struct fxtrace_buffer_header *hdr;
	struct fxtrace_buffer_control *ctl;
	unsigned char *data;
	size_t durable;			/* bytes written in the durable part */
};

/* The trace being built: the magic chunk, then every chunk in order. */
struct file {
	unsigned char *bytes;
	size_t len, cap;
};

static struct output out;
static struct file file;

static void file_add(const struct chunk *c)
{
	if (!c->len)
		return;
	if (c->offset != file.len) {
		printf("# chunk at %#llx, file ends at %#zx\n",
		       (unsigned long long)c->offset, file.len);
		exit(1);
	}
	if (file.len + c->len > file.cap) {
		file.cap = 2 * (file.len + c->len);
		file.bytes = realloc(file.bytes, file.cap);
		if (!file.bytes)
			exit(1);
	}
	memcpy(file.bytes + file.len, c->data, c->len);
	file.len += c->len;
}

/* A fresh output and file, the session clock at START. */
static void start(void)
{
	struct chunk c;

	output_free(&out);
	output_init(&out, SECOND, START);
	out.verbose = getenv("V") != NULL;
	output_set_now(&out, START + 10 * SECOND);
	file.len = 0;
	if (output_magic(&out, &c))
		exit(1);
	file_add(&c);
	chunk_free(&c);
}

static void put_words(struct fake *f, const __u64 *w, size_t n)
{
	memcpy(f->data + f->durable, w, 8 * n);
	f->durable += 8 * n;
	if (f->b.kind == FXTRACE_BUFFER_TASK)
		f->ctl->durable_committed = f->durable;
	else
		f->hdr->durable_committed = f->durable;
}

/*
 * A buffer as ATTACH (task) or Initialize makes it: the kernel's
 * provider info and init records at the start of the durable part.  comm
 * NULL: a header without the comm field.
 */
static void fake_new(struct fake *f, __u32 id, __u32 kind, __u32 pid,
		     __u32 tid, size_t durable_size, size_t rolling_size,
		     const char *comm)
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

static void fake_free(struct fake *f)
{
	free(f->mem);
}

/* A saved half holding n words w, into the file. */
static void drain_half(struct fake *f, __u64 wrap, const __u64 *w, size_t n)
{
	struct fxtctl_span half;
	struct chunk c;

	half.ptr = f->data + f->hdr->durable_size +
		   (wrap & 1) * f->hdr->rolling_size;
	half.len = 8 * n;
	half.wrap = wrap;
	half.durable = false;
	memcpy((unsigned char *)half.ptr, w, half.len);
	if (output_half(&out, &f->b, &half, &c))
		exit(1);
	file_add(&c);
	chunk_free(&c);
}

/* Everything of the buffer not written yet into the file. */
static struct drain_buffer *drain_rest(struct fake *f)
{
	struct drain_buffer *db;
	struct chunk c;

	if (output_rest(&out, &f->b, &c))
		exit(1);
	file_add(&c);
	chunk_free(&c);
	db = output_find(&out, f->b.id);
	if (output_drops(&out, db, &c))
		exit(1);
	file_add(&c);
	chunk_free(&c);
	return db;
}

/* ---- records a producer writes ------------------------------------------ */

static __u32 event(__u64 *w, unsigned int type, __u64 ts, __u64 pid,
		   __u64 tid, const char *name, __u64 trailing)
{
	__u16 name_ref = fxt_inline_string_ref((__u32)strlen(name));
	__u32 words = fxt_event_words(type, FXT_THREAD_REF_INLINE, 0, name_ref,
				      0);
	__u32 n = 0;

	w[n++] = fxt_event_hdr(words, type, 0, FXT_THREAD_REF_INLINE, 0,
			       name_ref);
	w[n++] = ts;
	w[n++] = pid;
	w[n++] = tid;
	n += fxt_write_stream(w + n, name, (__u32)strlen(name));
	if (fxt_event_trailing_words(type))
		w[n++] = trailing;
	return n;
}

static __u32 blob(__u64 *w, unsigned int blob_type)
{
	w[0] = fxt_field(FXT_REC_BLOB, 0, 3) | fxt_field(2, 4, 15) |
	       fxt_field(8, 32, 46) | fxt_field(blob_type, 48, 55);
	w[1] = 0x3a;		/* not a protobuf Perfetto can parse */
	return 2;
}

/* A large blob of 4 words, empty category and name, 8 payload bytes. */
static __u32 large(__u64 *w, unsigned int format)
{
	__u32 n = 0;

	w[n++] = fxt_field(FXT_REC_LARGE, 0, 3) |
		 fxt_field(format ? 4 : 7, 4, 35) | fxt_field(format, 40, 43);
	w[n++] = 0;		/* format header: refs 0, thread inline */
	if (!format) {
		w[n++] = START + SECOND;
		w[n++] = 1;	/* pid 1, tid 1: somebody else's */
		w[n++] = 1;
	}
	w[n++] = 8;
	w[n++] = 0;
	return n;
}

/* ---- the checks ---------------------------------------------------------- */

struct walk {
	uint64_t kobj_foreign;		/* kernel objects of pids 1, 555 */
	uint64_t events;
	uint64_t async_begins[2];	/* of pids 200 and 300 */
	uint64_t repaired;		/* thread named "\ufffd\ufffdabc" */
};

static int count_record(void *ctx, const struct fxt_record *rec)
{
	struct walk *w = ctx;

	if (rec->type == FXT_REC_KOBJ && (rec->id == 1 || rec->id == 555))
		w->kobj_foreign++;
	if (rec->type == FXT_REC_KOBJ &&
	    fxt_string_is(&rec->name, "\xef\xbf\xbd\xef\xbf\xbd" "abc"))
		w->repaired++;
	if (rec->type == FXT_REC_EVENT && rec->subtype != FXT_EVENT_COUNTER)
		w->events++;
	if (rec->type == FXT_REC_EVENT &&
	    rec->subtype == FXT_EVENT_ASYNC_BEGIN)
		w->async_begins[rec->thread.pid == 300]++;
	return 0;
}

/*
 * The file passes `fxtrace check --strict` with the drainer's window: no
 * error, no warning; *w counts what it holds.
 */
static int check_file(struct walk *w)
{
	static struct diags d;
	uint64_t lo, hi;
	struct fxt_reader *r;
	int ret;

	memset(&d, 0, sizeof(d));
	memset(w, 0, sizeof(*w));
	r = fxt_reader_new(collect_diag, &d);
	ASSERT_TRUE(r);
	output_window_ns(&out, &lo, &hi);
	fxt_reader_set_session_window(r, (int64_t)lo, (int64_t)hi);
	ret = fxt_reader_read_buffer(r, file.bytes, file.len, count_record, w);
	ASSERT_EQ(0, ret);
	if (fxt_reader_count(r, FXT_ERROR) || fxt_reader_count(r, FXT_WARNING))
		printf("# %s", d.text);
	ASSERT_EQ(0, fxt_reader_count(r, FXT_ERROR));
	ASSERT_EQ(0, fxt_reader_count(r, FXT_WARNING));
	fxt_reader_free(r);
	return 0;
}

/* ---- the tests ----------------------------------------------------------- */

/*
 * Issue 15 and 21: records about other processes, kinds consumers
 * interpret, timestamps outside the window; each refused and counted.
 */
static int test_forgery(void)
{
	__u64 w[64];
	struct drain_buffer *db;
	struct fake f;
	struct walk walk;
	__u32 n;

	start();
	fake_new(&f, 5, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	/* Kept: its own thread, process and events, an opaque blob. */
	n = fxt_write_thread(w, 1, PID, TID);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_PROCESS, PID, "me", 2, 0);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_THREAD, TID, "main", 4, PID);
	n += event(w + n, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "ok", 0);
	n += blob(w + n, FXT_BLOB_TYPE_DATA);
	n += large(w + n, FXT_LARGE_BLOB_ATTACHMENT);
	put_words(&f, w, n);
	/* Foreign: 6 records naming other processes or threads. */
	n = fxt_write_thread(w, 2, 1, 1);
	n += event(w + n, FXT_EVENT_INSTANT, START + SECOND, 1, 1, "pid1", 0);
	n += event(w + n, FXT_EVENT_INSTANT, START + SECOND, PID, 555, "sib", 0);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_PROCESS, 1, "fake-systemd",
				 12, 0);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_THREAD, TID, "moved", 5, 1);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_THREAD, 555, "other", 5, PID);
	put_words(&f, w, n);
	/* Kinds: 4 records a consumer would interpret (or fail on). */
	n = blob(w, FXT_BLOB_TYPE_PERFETTO);
	n += blob(w + n, FXT_BLOB_TYPE_LAST_BRANCH);
	n += large(w + n, FXT_LARGE_BLOB_WITH_METADATA);
	w[n++] = fxt_context_switch_hdr(4, 0, 0, 0);
	w[n++] = START + SECOND;
	w[n++] = 1;
	w[n++] = 2;
	put_words(&f, w, n);
	/* Time: 3 records outside [START - 1 s, now + 1 s]. */
	n = event(w, FXT_EVENT_INSTANT, 4600000000000000000ULL, PID, TID,
		  "future", 0);
	n += event(w + n, FXT_EVENT_INSTANT, START - 2 * SECOND, PID, TID,
		   "past", 0);
	n += event(w + n, FXT_EVENT_DURATION_COMPLETE, START + SECOND, PID,
		   TID, "long", START + 100 * SECOND);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(6, db->records);
	ASSERT_EQ(6, db->refused[REFUSED_FOREIGN]);
	/* Blob type 3 and the context switch break decoder rules already. */
	ASSERT_EQ(2, db->refused[REFUSED_KIND]);
	ASSERT_EQ(2, db->refused[REFUSED_INVALID]);
	ASSERT_EQ(3, db->refused[REFUSED_TIME]);
	ASSERT_EQ(13, db->invalid);
	/* Named from the header, not from the forged provider info. */
	ASSERT_STR("task 101 (pid 100)", db->name);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(0, walk.kobj_foreign);
	ASSERT_EQ(1, walk.events);
	fake_free(&f);
	return 0;
}

/* Issue 20 item 2: the comm the kernel took at ATTACH names the buffer. */
static int test_comm_name(void)
{
	struct drain_buffer *db;
	struct fake f;

	start();
	fake_new(&f, 6, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0,
		 "w\xffrker");
	db = drain_rest(&f);
	ASSERT_STR("w\xef\xbf\xbdrker 101 (pid 100)", db->name);
	fake_free(&f);
	return 0;
}

/*
 * Issue 15: past the string budget, strings used to be defined but not
 * kept and hashed as empty, so an async end named unlike its begin passed.
 */
static int test_string_budget(void)
{
	static char text[30000];
	__u64 *w = malloc((1 << 21) * 8);
	struct drain_buffer *db;
	struct fake f;
	struct walk walk;
	size_t n = 0, i;

	ASSERT_TRUE(w);
	start();
	/*
	 * A budget of 2 * 64 KiB + 1 MiB: 39 strings of 30,000 bytes fit,
	 * the other 6, defined in a saved half, do not.
	 */
	fake_new(&f, 7, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 2 << 20, NULL);
	memset(text, 'x', sizeof(text));
	for (i = 1; i <= 45; i++) {
		text[0] = (char)('0' + i % 10);
		n += fxt_write_string(w + n, (__u16)i, text, sizeof(text));
	}
	/* Names 44 and 45 differ: begin and end of one async slice. */
	w[n++] = fxt_event_hdr(5, FXT_EVENT_ASYNC_BEGIN, 0,
			       FXT_THREAD_REF_INLINE, 0, 44);
	w[n++] = START + SECOND;
	w[n++] = PID;
	w[n++] = TID;
	w[n++] = 9;
	w[n++] = fxt_event_hdr(5, FXT_EVENT_ASYNC_END, 0,
			       FXT_THREAD_REF_INLINE, 0, 45);
	w[n++] = START + SECOND;
	w[n++] = PID;
	w[n++] = TID;
	w[n++] = 9;
	drain_half(&f, 0, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(39, db->records);
	ASSERT_EQ(6, db->refused[REFUSED_STRINGS]);
	/* Their refs are undefined now: refused as invalid, not matched. */
	ASSERT_EQ(2, db->refused[REFUSED_INVALID]);
	ASSERT_EQ(0, check_file(&walk));
	fake_free(&f);
	free(w);
	return 0;
}

/* Async begins of one process: 5 words, no name. */
static size_t async_begins(__u64 *w, __u32 pid, __u32 tid, size_t count,
			   __u64 first_id)
{
	size_t n = 0, i;

	for (i = 0; i < count; i++)
		n += event(w + n, FXT_EVENT_ASYNC_BEGIN, START + SECOND, pid,
			   tid, "", first_id + i);
	return n;
}

/*
 * Issue 20 item 3: a squatter's 70,000 async begins took the whole table
 * (65,536), and an honest producer's 2,000 were refused.
 */
static int test_async_squatter(void)
{
	size_t words = 70000 * 5, n;
	__u64 *w = malloc(words * 8);
	struct drain_buffer *squatter, *honest;
	struct fake s, h;
	struct walk walk;

	ASSERT_TRUE(w);
	start();
	fake_new(&s, 8, FXTRACE_BUFFER_TASK, 200, 201, words * 8 + 4096, 0,
		 NULL);
	fake_new(&h, 9, FXTRACE_BUFFER_TASK, 300, 301, 1 << 20, 0, NULL);
	n = async_begins(w, 200, 201, 70000, 1);
	put_words(&s, w, n);
	squatter = drain_rest(&s);
	n = async_begins(w, 300, 301, 2000, 1);
	put_words(&h, w, n);
	honest = drain_rest(&h);
	ASSERT_EQ(16384, squatter->records);
	ASSERT_EQ(70000 - 16384, squatter->refused[REFUSED_ASYNC]);
	ASSERT_EQ(2000, honest->records);
	ASSERT_EQ(0, honest->invalid);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(16384, walk.async_begins[0]);
	ASSERT_EQ(2000, walk.async_begins[1]);
	/* The squatter's process gone, its share is free for the next one. */
	output_retire(&out, squatter);
	ASSERT_EQ(2000, out.asyncs.count);
	fake_free(&s);
	fake_free(&h);
	free(w);
	return 0;
}

/*
 * Issue 20 item 4: a kernel record naming a thread whose comm is not
 * UTF-8 is kept, its name repaired; it used to be dropped as invalid.  A
 * producer's name for its own thread is repaired too.
 */
static int test_kernel_utf8(void)
{
	struct drain_buffer *db;
	struct fake f;
	struct walk walk;
	__u64 w[32];
	__u32 n;

	start();
	fake_new(&f, 2, FXTRACE_BUFFER_KERNEL, 0, 0, 1 << 16, 0, NULL);
	n = fxt_write_kobj_name(w, FXT_KOBJ_THREAD, 4242, "\xff\xfe" "abc", 5,
				4240);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_PROCESS, 4240,
				 "\xff\xfe" "abc", 5, 0);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(2, db->records);
	ASSERT_EQ(2, db->repaired);
	ASSERT_EQ(0, db->invalid);
	fake_free(&f);
	/* A producer's own thread too; its name for pid 1 is still refused. */
	fake_new(&f, 3, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	n = fxt_write_kobj_name(w, FXT_KOBJ_THREAD, TID, "\xff\xfe" "abc", 5,
				PID);
	n += fxt_write_kobj_name(w + n, FXT_KOBJ_PROCESS, 1, "\xff\xfe" "abc",
				 5, 0);
	put_words(&f, w, n);
	db = drain_rest(&f);
	ASSERT_EQ(1, db->records);
	ASSERT_EQ(2, db->repaired);
	ASSERT_EQ(1, db->refused[REFUSED_FOREIGN]);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(3, walk.repaired);
	fake_free(&f);
	return 0;
}

/*
 * Issue 15: a producer's drop count (any value it writes) is bounded and
 * kept apart from the kernel's.
 */
static int test_producer_drops(void)
{
	struct kind_totals task, cpu;
	struct drain_buffer *db;
	struct fake f, k;

	start();
	fake_new(&f, 10, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 0, NULL);
	fake_new(&k, 11, FXTRACE_BUFFER_CPU, 0, 0, 1 << 16, 0, NULL);
	/* The kernel copies the control page's count at Stop. */
	f.hdr->dropped_records = 10325538640411919867ULL;
	k.hdr->dropped_records = 7;
	db = drain_rest(&f);
	ASSERT_EQ(PRODUCER_DROPS_MAX, db->dropped);
	drain_rest(&k);
	output_totals(&out, FXTRACE_BUFFER_TASK, &task);
	output_totals(&out, FXTRACE_BUFFER_CPU, &cpu);
	ASSERT_EQ(PRODUCER_DROPS_MAX, task.dropped);
	ASSERT_EQ(7, cpu.dropped);
	fake_free(&f);
	fake_free(&k);
	return 0;
}

/*
 * A "fxtrace:lost events" counter as libfxtrace writes it (id 0, uint64
 * "no buffer"); arg_type lets a producer write another type.
 */
static __u32 lost_counter(__u64 *w, __u64 ts, __u64 pid, __u64 tid,
			  unsigned int arg_type, __u64 count)
{
	static const char cat[] = "fxtrace", name[] = "lost events",
			  arg[] = "no buffer";
	__u16 cat_ref = fxt_inline_string_ref(sizeof(cat) - 1);
	__u16 name_ref = fxt_inline_string_ref(sizeof(name) - 1);
	__u32 n = 1;

	w[n++] = ts;
	w[n++] = pid;
	w[n++] = tid;
	n += fxt_write_stream(w + n, cat, sizeof(cat) - 1);
	n += fxt_write_stream(w + n, name, sizeof(name) - 1);
	n += fxt_write_arg64(w + n, arg_type,
			     fxt_inline_string_ref(sizeof(arg) - 1), arg,
			     count);
	w[n++] = 0;
	w[0] = fxt_event_hdr(n, FXT_EVENT_COUNTER, 1, FXT_THREAD_REF_INLINE,
			     cat_ref, name_ref);
	return n;
}

/*
 * Issue 20 item 5: the summary's line per process of events lost without a
 * buffer is the newest count of its own task buffers (by timestamp, not
 * by the order buffers are drained), bounded at 2^40, kept after its
 * buffers retire; a counter naming another process, a CPU buffer's, or
 * one of another argument type counts for nobody.
 */
static int test_lost_events(void)
{
	struct fake a, b, big, liar, cpu;
	struct walk walk;
	char *text = NULL;
	size_t text_len = 0;
	FILE *f;
	__u64 w[64];
	__u32 n;

	start();
	fake_new(&a, 20, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 4096, NULL);
	fake_new(&b, 21, FXTRACE_BUFFER_TASK, PID, TID + 1, 1 << 16, 0, NULL);
	fake_new(&big, 22, FXTRACE_BUFFER_TASK, 200, 201, 1 << 16, 0, NULL);
	fake_new(&liar, 23, FXTRACE_BUFFER_TASK, 300, 301, 1 << 16, 0, NULL);
	fake_new(&cpu, 24, FXTRACE_BUFFER_CPU, 0, 0, 1 << 16, 0, NULL);
	/* Thread a: 3 then 5 lost; thread b's 4 is older, drained last. */
	n = lost_counter(w, START + SECOND, PID, TID, FXT_ARG_UINT64, 3);
	drain_half(&a, 0, w, n);
	n = lost_counter(w, START + 2 * SECOND, PID, TID, FXT_ARG_UINT64, 5);
	drain_half(&a, 1, w, n);
	n = lost_counter(w, START + SECOND + SECOND / 2, PID, TID + 1,
			 FXT_ARG_UINT64, 4);
	put_words(&b, w, n);
	/* Any value a producer writes, bounded. */
	n = lost_counter(w, START + SECOND, 200, 201, FXT_ARG_UINT64,
			 10325538640411919867ULL);
	put_words(&big, w, n);
	/* Pid 300 speaks for pid 100 (refused), then with an int64. */
	n = lost_counter(w, START + 3 * SECOND, PID, TID, FXT_ARG_UINT64,
			 999);
	n += lost_counter(w + n, START + 3 * SECOND, 300, 301, FXT_ARG_INT64,
			  7);
	put_words(&liar, w, n);
	/* A kernel buffer's record is no producer's report. */
	n = lost_counter(w, START + 3 * SECOND, 400, 401, FXT_ARG_UINT64, 8);
	put_words(&cpu, w, n);
	output_retire(&out, drain_rest(&a));
	output_retire(&out, drain_rest(&b));
	drain_rest(&big);
	ASSERT_EQ(1, drain_rest(&liar)->refused[REFUSED_FOREIGN]);
	ASSERT_EQ(1, drain_rest(&cpu)->records);
	ASSERT_EQ(0, check_file(&walk));

	f = open_memstream(&text, &text_len);
	ASSERT_TRUE(f);
	output_report_lost(&out, f);
	fclose(f);
	ASSERT_STR("fxtrace-drain: pid 100: 5 events lost without a buffer (as its producer reports)\n"
		   "fxtrace-drain: pid 200: 1099511627776 events lost without a buffer (as its producer reports)\n",
		   text);
	free(text);
	fake_free(&a);
	fake_free(&b);
	fake_free(&big);
	fake_free(&liar);
	fake_free(&cpu);
	return 0;
}

/* Issue 21: size-0 records and large records past the end never go out. */
static int test_unframed(void)
{
	struct drain_buffer *db;
	struct fake f;
	struct walk walk;
	__u64 w[32];
	__u32 n;

	start();
	fake_new(&f, 12, FXTRACE_BUFFER_TASK, PID, TID, 1 << 16, 4096, NULL);
	/* A half: an event, a large record running past the end. */
	n = event(w, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "a", 0);
	w[n++] = fxt_field(FXT_REC_LARGE, 0, 3) | fxt_field(1u << 20, 4, 35);
	drain_half(&f, 0, w, n);
	/* The other half: an event, a size-0 record, an event. */
	n = event(w, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "b", 0);
	w[n++] = fxt_field(FXT_REC_EVENT, 0, 3);
	n += event(w + n, FXT_EVENT_INSTANT, START + SECOND, PID, TID, "c", 0);
	drain_half(&f, 1, w, n);
	db = output_find(&out, 12);
	ASSERT_EQ(2, db->records);
	ASSERT_EQ(2, db->refused[REFUSED_INVALID]);
	ASSERT_EQ(0, check_file(&walk));
	ASSERT_EQ(2, walk.events);
	fake_free(&f);
	return 0;
}

/*
 * Issue 15: retired buffers' state, string tables included, used to stay
 * (~4.6 KB each).  100,000 thread lifetimes with strings, then the heap in
 * use must be back within 256 KiB of where it was after the first 1,000.
 */
static int test_retired_memory(void)
{
	struct mallinfo2 before = { 0 }, after;
	struct drain_buffer *db;
	struct fake f;
	__u64 w[64];
	__u32 n, i;

	start();
	for (i = 0; i < 100000; i++) {
		if (i == 1000)
			before = mallinfo2();
		fake_new(&f, 100 + i, FXTRACE_BUFFER_TASK, 1000 + i, 1000 + i,
			 1 << 12, 0, NULL);
		n = fxt_write_string(w, 1, "a name of a few bytes", 21);
		n += fxt_write_string(w + n, 2, "another string, longer", 22);
		n += fxt_write_thread(w + n, 1, 1000 + i, 1000 + i);
		n += event(w + n, FXT_EVENT_ASYNC_BEGIN, START + SECOND,
			   1000 + i, 1000 + i, "open", 1);
		put_words(&f, w, n);
		db = drain_rest(&f);
		if (db->records != 4)
			FAIL("lifetime %u: %llu records", i,
				(unsigned long long)db->records);
		output_retire(&out, db);
		fake_free(&f);
		/* The file itself is not the drainer's memory. */
		file.len = 0;
		out.offset = 0;
	}
	after = mallinfo2();
	printf("# heap in use after 1,000 lifetimes %zu bytes, after 100,000 %zu bytes\n",
	       before.uordblks, after.uordblks);
	ASSERT_CMP(after.uordblks, <, before.uordblks + (256 << 10));
	ASSERT_EQ(0, out.asyncs.count);
	ASSERT_EQ(0, out.bufs.count);
	ASSERT_EQ(100000, out.retired[FXTRACE_BUFFER_TASK].buffers);
	return 0;
}

static const struct tap_test tests[] = {
	{ "producer records about others, interpreted kinds, out of window: refused", test_forgery },
	{ "task buffers named from the kernel's header", test_comm_name },
	{ "strings past the budget are refused, not kept empty", test_string_budget },
	{ "an async squatter exhausts only its own share", test_async_squatter },
	{ "kernel names that are not UTF-8 are repaired, not dropped", test_kernel_utf8 },
	{ "producer drop counts bounded, apart from the kernel's", test_producer_drops },
	{ "events lost without a buffer: the newest count per process", test_lost_events },
	{ "size-0 and overlong records never reach the file", test_unframed },
	{ "retired buffers are freed", test_retired_memory },
};

static int bench(size_t count)
{
	__u64 w[16];
	struct drain_buffer *db;
	struct fake f;
	size_t i;
	__u32 n;

	start();
	fake_new(&f, 5, FXTRACE_BUFFER_TASK, PID, TID, 32 * count + 4096, 0,
		 NULL);
	n = fxt_write_thread(w, 1, PID, TID);
	n += fxt_write_string(w + n, 1, "app", 3);
	n += fxt_write_string(w + n, 2, "tick", 4);
	n += fxt_write_string(w + n, 3, "i", 1);
	put_words(&f, w, n);
	for (i = 0; i < count; i++) {
		w[0] = fxt_event_hdr(4, FXT_EVENT_INSTANT, 1, 1, 1, 2);
		w[1] = START + SECOND + i;
		w[2] = fxt_arg_hdr(FXT_ARG_INT64, 2, 3, 0);
		w[3] = i;
		put_words(&f, w, 4);
	}
	db = drain_rest(&f);
	printf("%llu records written, %llu refused\n",
	       (unsigned long long)db->records, (unsigned long long)db->invalid);
	fake_free(&f);
	return db->records == count + 4 ? 0 : 1;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc == 3 && !strcmp(argv[1], "--bench"))
		return bench((size_t)atol(argv[2]));
	ret = tap_run(tests, N_WORDS(tests));

	output_free(&out);
	free(file.bytes);
	return ret;
}
