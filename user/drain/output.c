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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drain.h"
#include "flush_mark.h"
#include "fxt_map.h"

/* Provider info (1 + 32 words for a 255-byte name) and an init record. */
#define ANNOUNCE_MAX_BYTES	((1 + 32 + 2) * 8)

/* The drop counter: header, time, thread, category, name, 2 args, id. */
#define DROPS_WORDS		13

/* Async begins open at once; past it new begins are dropped. */
#define ASYNC_OPEN_MAX		65536

/* Invalid records described with -v. */
#define DIAG_MAX		100

int output_init(struct output *o, uint64_t ticks_per_second)
{
	memset(o, 0, sizeof(*o));
	o->ticks_per_second = ticks_per_second ? ticks_per_second :
				FXT_TICKS_PER_SECOND_DEFAULT;
	fxt_map_init(&o->asyncs, sizeof(uint64_t));
	return 0;
}

void output_free(struct output *o)
{
	size_t i;

	for (i = 0; i < o->nbufs; i++) {
		if (!o->bufs[i])
			continue;
		fxt_tables_free(o->bufs[i]->tables);
		free(o->bufs[i]);
	}
	free(o->bufs);
	free(o->scratch);
	fxt_map_free(&o->asyncs);
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

static void chunk_put(struct chunk *c, const void *bytes, size_t len)
{
	memcpy(c->data + c->len, bytes, len);
	c->len += len;
}

int chunk_append(struct chunk *c, const void *bytes, size_t len)
{
	size_t cap = c->cap ? c->cap : 4096;
	unsigned char *data;

	if (c->len + len > c->cap) {
		while (cap < c->len + len)
			cap *= 2;
		data = realloc(c->data, cap);
		if (!data)
			return -ENOMEM;
		c->data = data;
		c->cap = cap;
	}
	chunk_put(c, bytes, len);
	return 0;
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
	__u64 words[1 + FLUSH_MARK_WORDS];
	int ret = chunk_alloc(c, sizeof(words));

	if (ret)
		return ret;
	fxt_write_magic(words);
	/* Once this chunk is in the file, so is everything it covers. */
	flush_mark_write(words + 1, o->offset + sizeof(words));
	chunk_put(c, words, sizeof(words));
	c->offset = o->offset;
	o->offset += c->len;
	return 0;
}

struct drain_buffer *output_find(struct output *o, uint32_t id)
{
	return id < o->nbufs ? o->bufs[id] : NULL;
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
 * The kernel starts every durable part with a provider info record and an
 * init record, then (CPU buffers) strings of its own.  Take the provider
 * name, if it is still there and sound (a producer can overwrite its own
 * copy), and return where the records after the announcement start, or 0.
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
		    rec->name.len > FXT_PROVIDER_NAME_MAX ||
		    !fxt_utf8_valid((const unsigned char *)rec->name.ptr,
				    rec->name.len))
			return 0;
		memcpy(db->name, rec->name.ptr, rec->name.len);
		db->name[rec->name.len] = '\0';
		/* The init record that follows is replaced by ours too. */
		n = fxt_decode_record(db->tables, o->scratch + off, len - off,
				      off, rec, &sink, &need);
		if (n > 0 && rec->type == FXT_REC_INIT)
			off += (size_t)n;
		return off;
	}
	return 0;
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

static int buffers_reserve(struct output *o, uint32_t id)
{
	struct drain_buffer **p;
	size_t n;

	if (id < o->nbufs)
		return 0;
	n = o->nbufs ? o->nbufs : 64;
	while (n <= id)
		n *= 2;
	p = realloc(o->bufs, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + o->nbufs, 0, (n - o->nbufs) * sizeof(*p));
	o->bufs = p;
	o->nbufs = n;
	return 0;
}

struct drain_buffer *output_buffer(struct output *o,
				   const struct fxtctl_buffer *b)
{
	const struct fxtrace_buffer_header *hdr = b->hdr;
	struct drain_buffer *db = output_find(o, b->id);
	uint64_t reserved;

	if (db)
		return db;
	if (buffers_reserve(o, b->id))
		return NULL;
	db = calloc(1, sizeof(*db));
	if (!db)
		return NULL;
	db->id = b->id;
	db->kind = b->kind;
	db->cpu = hdr->cpu;
	if (b->kind == FXTRACE_BUFFER_TASK) {
		db->pid = hdr->pid;
		db->tid = hdr->tid;
	}
	/*
	 * Strings are defined in the durable part, which is read once; twice
	 * its size leaves room for strings a producer puts in its halves.
	 */
	db->tables = fxt_tables_new(b->id, 2 * hdr->durable_size + (1 << 20));
	if (!db->tables) {
		free(db);
		return NULL;
	}
	switch (b->kind) {
	case FXTRACE_BUFFER_CPU:
		snprintf(db->name, sizeof(db->name), "cpu%u", db->cpu);
		break;
	case FXTRACE_BUFFER_KERNEL:
		snprintf(db->name, sizeof(db->name), "kernel");
		break;
	default:
		snprintf(db->name, sizeof(db->name), "task %u", db->tid);
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
		fxt_tables_free(db->tables);
		free(db);
		return NULL;
	}
	o->bufs[b->id] = db;
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

/* Record types a buffer of this kind may hold after its announcement. */
static bool record_allowed(const struct drain_buffer *db,
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
	default:
		return true;
	}
}

/*
 * A reader compares each async instant and end with its begin's name, by
 * (pid, id) across the whole file; a producer must not make it fail.
 */
static bool async_consistent(const struct output *o,
			     const struct fxt_record *rec)
{
	const uint64_t *name_hash;

	if (rec->type != FXT_REC_EVENT)
		return true;
	switch (rec->subtype) {
	case FXT_EVENT_ASYNC_BEGIN:
		return o->asyncs.count < ASYNC_OPEN_MAX ||
		       fxt_map_get(&o->asyncs, rec->thread.pid, rec->id);
	case FXT_EVENT_ASYNC_INSTANT:
	case FXT_EVENT_ASYNC_END:
		name_hash = fxt_map_get(&o->asyncs, rec->thread.pid, rec->id);
		return !name_hash || *name_hash == fxt_string_hash(&rec->name);
	default:
		return true;
	}
}

/* The record goes to the file: its async begin opens, its end closes. */
static int async_written(struct output *o, const struct fxt_record *rec)
{
	uint64_t *name_hash;

	if (rec->type != FXT_REC_EVENT)
		return 0;
	switch (rec->subtype) {
	case FXT_EVENT_ASYNC_BEGIN:
		name_hash = fxt_map_put(&o->asyncs, rec->thread.pid, rec->id,
					NULL);
		if (!name_hash)
			return -ENOMEM;
		*name_hash = fxt_string_hash(&rec->name);
		return 0;
	case FXT_EVENT_ASYNC_END:
		fxt_map_del(&o->asyncs, rec->thread.pid, rec->id);
		return 0;
	default:
		return 0;
	}
}

static void print_diag(void *ctx, const struct fxt_diag *diag)
{
	const struct drain_buffer *db = ctx;

	fprintf(stderr, "fxtrace-drain: buffer %u (%s): %s: %s\n", db->id,
		db->name, diag->rule_name, diag->message);
}

/* Why a record that decoded without a problem is still not written. */
static void print_refusal(struct output *o, const struct drain_buffer *db,
			  const struct fxt_record *rec)
{
	if (!o->verbose || o->diags >= DIAG_MAX)
		return;
	o->diags++;
	fprintf(stderr, "fxtrace-drain: buffer %u (%s): a %s record is not allowed here or breaks async naming\n",
		db->id, db->name, fxt_record_type_name(rec->type));
}

/*
 * Copy len bytes at src out of the mapping, and append the valid records
 * to c.  Returns the bytes framed as records; *unframed is set when a
 * record could not be framed (size 0), which ends the span.
 */
static size_t add_records(struct output *o, struct drain_buffer *db,
			  const unsigned char *src, size_t len,
			  struct chunk *c, uint64_t *records, bool *unframed)
{
	struct fxt_record *rec = &o->rec;
	uint64_t need;
	size_t off = 0;
	ssize_t n;

	*unframed = false;
	if (scratch_reserve(o, len))
		return 0;
	memcpy(o->scratch, src, len);
	while (off < len) {
		struct fxt_sink sink = { 0 };
		bool describe = o->verbose && o->diags < DIAG_MAX;

		if (describe) {
			sink.fn = print_diag;
			sink.ctx = db;
		}
		n = fxt_decode_record(db->tables, o->scratch + off, len - off,
				      off, rec, &sink, &need);
		if (n <= 0) {
			*unframed = n < 0;
			break;
		}
		off += (size_t)n;
		if (!rec->valid || !rec->complete ||
		    sink.counts[FXT_ERROR] || sink.counts[FXT_WARNING]) {
			o->diags += describe;
			db->invalid++;
			continue;
		}
		if (!record_allowed(db, rec) || !async_consistent(o, rec)) {
			print_refusal(o, db, rec);
			db->invalid++;
			continue;
		}
		/* Nothing else can refuse it: its definitions may enter the tables. */
		if (fxt_tables_apply(db->tables, rec, &sink) ||
		    sink.counts[FXT_ERROR] || sink.counts[FXT_WARNING] ||
		    async_written(o, rec)) {
			o->diags += describe;
			db->invalid++;
			continue;
		}
		if (rec->type == FXT_REC_EVENT && rec->ts_ns_valid &&
		    rec->ts > db->last_ts)
			db->last_ts = rec->ts;
		chunk_put(c, o->scratch + off - (size_t)n, (size_t)n);
		(*records)++;
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
		db->invalid++;
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
		db->invalid++;
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
	struct fxtctl_span spans[3];
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
	struct fxtctl_span spans[3];
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
	/* For task buffers: the producer's count as of Stop or retirement. */
	db->dropped = __atomic_load_n(&b->hdr->dropped_records,
				      __ATOMIC_ACQUIRE);
	chunk_end(o, db, c, records);
	db->records += records;
	return 0;
}

int output_drops(struct output *o, struct drain_buffer *db, struct chunk *c)
{
	static const char cat[] = "fxtrace", name[] = "dropped";
	__u64 words[DROPS_WORDS];
	__u16 cat_ref = fxt_inline_string_ref(sizeof(cat) - 1);
	__u16 name_ref = fxt_inline_string_ref(sizeof(name) - 1);
	__u32 n = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	if (!db->dropped && !db->invalid)
		return 0;
	ret = chunk_begin(o, db, c, sizeof(words));
	if (ret)
		return ret;
	words[n++] = fxt_event_hdr(DROPS_WORDS, FXT_EVENT_COUNTER, 2,
				   FXT_THREAD_REF_INLINE, cat_ref, name_ref);
	words[n++] = db->last_ts;
	words[n++] = db->pid;
	words[n++] = db->tid;
	n += fxt_write_stream(words + n, cat, sizeof(cat) - 1);
	n += fxt_write_stream(words + n, name, sizeof(name) - 1);
	n += fxt_write_arg64(words + n, FXT_ARG_INT64,
			     fxt_inline_string_ref(7), "records",
			     db->dropped);
	n += fxt_write_arg64(words + n, FXT_ARG_INT64,
			     fxt_inline_string_ref(7), "invalid",
			     db->invalid);
	/* The counter id: one track per buffer. */
	words[n++] = db->id;
	chunk_put(c, words, n * 8);
	chunk_end(o, db, c, 1);
	return 0;
}
