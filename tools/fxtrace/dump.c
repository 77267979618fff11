// SPDX-License-Identifier: GPL-2.0
/*
 * dump.c - `fxtrace dump`: one line per record, like `trace-cmd report`:
 *
 *   OFFSET   TIME         WHO                      RECORD            DETAILS
 *   0x0000b8      0.000001000  4660/22136 main          instant           app:tick n=-2
 *
 * WHO is pid/tid and the thread's name from the kernel object records seen
 * so far, or the CPU of a scheduling record.
 *
 * Lines come in time order: a file interleaves buffers (each CPU's, each
 * thread's), so file order puts a thread's events far from its syscalls and
 * time goes backwards.  The lines are formatted during the walk into memory,
 * then sorted by (time, offset); a record without a time (definitions,
 * metadata) keeps the time of the timed record before it in the file, so it
 * stays next to what it defines.  --file-order keeps the file's order.
 *
 * Thread filters are applied after the walk, when every thread's process is
 * known (a context switch names threads only).  --file-order without them
 * streams, as the lines need not wait for the end.  The lines kept count
 * against the memory limit of the reader (--memory-limit).
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxt_map.h"
#include "fxtrace.h"

#define NAME_COLUMN_MAX 16

#define PID_UNKNOWN UINT64_MAX

/* A formatted line, and what the thread filters need to judge it. */
struct line {
	int64_t key;		/* ns; the order of the output */
	uint64_t offset;	/* the record's: ties keep file order */
	size_t text, len;	/* in the memory buffer */
	uint8_t nthreads;	/* 0: the record names no thread */
	uint64_t pid[2], tid[2];	/* pid may be PID_UNKNOWN */
};

struct dump {
	struct fxtrace_out *out;	/* the lines, in memory unless streaming */
	const struct dump_options *opts;
	const struct fxtrace_select *select;
	struct fxt_reader *r;
	struct line *lines;
	size_t nlines, cap;
	int64_t last_key;
	struct fxt_map pids;	/* (tid, 0) -> uint64_t pid */
	bool streaming;		/* lines go straight to the output */
	size_t memory_limit;	/* of the lines kept; 0: none */
};

/* A column of width bytes: text, then spaces (left) or spaces first. */
static void column(struct fxtrace_out *out, const char *text, size_t len,
		   size_t width, bool left)
{
	if (!left && len < width)
		fxtrace_out_spaces(out, width - len);
	fxtrace_out_bytes(out, text, len);
	if (left && len < width)
		fxtrace_out_spaces(out, width - len);
}

/*
 * Spaces after what was written since start, up to width bytes.  The
 * buffer does not flush within a line's first columns (dump_record()).
 */
static void pad_to(struct fxtrace_out *out, size_t start, size_t width)
{
	if (out->len - start < width)
		fxtrace_out_spaces(out, width - (out->len - start));
}

/* The TIME column, right-aligned in 16. */
static void put_time(const struct dump *d, uint64_t ticks, int64_t ns,
		     bool ns_valid)
{
	struct fxtrace_out *out = d->out;
	size_t start = out->len, len;
	char *p;

	if (d->opts->ticks) {
		fxtrace_out_u64(out, ticks);
	} else if (!ns_valid) {
		fxtrace_out_u64(out, ticks);
		fxtrace_out_char(out, 't');
	} else {
		fxtrace_out_seconds(out, ns);
	}
	len = out->len - start;
	if (len >= 16 || out->failed)
		return;
	/* Shift it right (no flush within the line's first columns). */
	p = fxtrace_out_room(out, 16 - len);
	if (!p)
		return;
	memmove(out->buf + start + 16 - len, out->buf + start, len);
	memset(out->buf + start, ' ', 16 - len);
	out->len += 16 - len;
}

/* "pid/tid name": the name from a kernel object record, printable only. */
static void put_thread(const struct dump *d, const struct fxt_thread *th)
{
	struct fxtrace_out *out = d->out;
	size_t start = out->len, i;
	struct fxt_string name;

	if (th->undefined) {
		fxtrace_out_str(out, "<thread ");
		fxtrace_out_u64(out, th->ref);
		fxtrace_out_char(out, '>');
	} else {
		fxtrace_out_u64(out, th->pid);
		fxtrace_out_char(out, '/');
		fxtrace_out_u64(out, th->tid);
		if (fxt_reader_thread_name(d->r, th->tid, &name, NULL) &&
		    name.len) {
			fxtrace_out_char(out, ' ');
			for (i = 0; i < name.len && i < NAME_COLUMN_MAX; i++) {
				unsigned char c = name.ptr[i];

				fxtrace_out_char(out, c >= 0x20 && c < 0x7f ?
						 (char)c : '?');
			}
		}
	}
	pad_to(out, start, 24);
}

static const char *metadata_name(const struct fxt_record *rec)
{
	switch (rec->subtype) {
	case FXT_META_PROVIDER_INFO:
		return "provider info";
	case FXT_META_PROVIDER_SECTION:
		return "provider section";
	case FXT_META_PROVIDER_EVENT:
		return "provider event";
	case FXT_META_TRACE_INFO:
		return rec->id == FXT_TRACE_INFO_MAGIC ? "magic" : "trace info";
	default:
		return "metadata";
	}
}

static const char *record_name(const struct fxt_record *rec)
{
	static const char *const sched[] = {
		"legacy switch", "context switch", "wakeup",
	};

	switch (rec->type) {
	case FXT_REC_METADATA:
		return metadata_name(rec);
	case FXT_REC_EVENT:
		return fxt_event_type_name(rec->subtype);
	case FXT_REC_SCHED:
		return rec->subtype <= FXT_SCHED_WAKEUP ? sched[rec->subtype] :
							  "scheduling";
	default:
		return fxt_record_type_name(rec->type);
	}
}

static void print_args(struct fxtrace_out *out, const struct fxt_record *rec)
{
	uint32_t i;

	for (i = 0; i < rec->nargs; i++) {
		fxtrace_out_char(out, ' ');
		fxtrace_out_arg(out, &rec->args[i]);
	}
}

/* category:name, or name alone when the category is empty. */
static void print_cat_name(struct fxtrace_out *out,
			   const struct fxt_record *rec)
{
	if (!rec->category.ptr || rec->category.len) {
		fxtrace_out_escaped(out, &rec->category);
		fxtrace_out_char(out, ':');
	}
	fxtrace_out_escaped(out, &rec->name);
}

/* " " or "" then text then a decimal: the common "label N" pieces. */
static void put_u64(struct fxtrace_out *out, const char *text, uint64_t v)
{
	fxtrace_out_str(out, text);
	fxtrace_out_u64(out, v);
}

/* As printf's %#PRIx64: 0 alone, else 0x then the digits. */
static void put_alt_hex(struct fxtrace_out *out, uint64_t v)
{
	if (v)
		fxtrace_out_str(out, "0x");
	fxtrace_out_hex(out, v);
}

static void print_event(const struct dump *d, const struct fxt_record *rec)
{
	struct fxtrace_out *out = d->out;

	print_cat_name(out, rec);
	switch (rec->subtype) {
	case FXT_EVENT_COUNTER:
		put_u64(out, " id=", rec->id);
		break;
	case FXT_EVENT_DURATION_COMPLETE:
		fxtrace_out_str(out, " dur=");
		if (d->opts->ticks || !rec->ts_ns_valid || !rec->end_ts_ns_valid) {
			fxtrace_out_i64(out, (int64_t)(rec->end_ts - rec->ts));
			fxtrace_out_char(out, 't');
		} else {
			fxtrace_out_i64(out, rec->end_ts_ns - rec->ts_ns);
			fxtrace_out_str(out, "ns");
		}
		break;
	case FXT_EVENT_ASYNC_BEGIN:
	case FXT_EVENT_ASYNC_INSTANT:
	case FXT_EVENT_ASYNC_END:
	case FXT_EVENT_FLOW_BEGIN:
	case FXT_EVENT_FLOW_STEP:
	case FXT_EVENT_FLOW_END:
		fxtrace_out_str(out, " id=");
		put_alt_hex(out, rec->id);
		break;
	}
	print_args(out, rec);
}

static void print_metadata(struct fxtrace_out *out,
			   const struct fxt_record *rec)
{
	switch (rec->subtype) {
	case FXT_META_PROVIDER_INFO:
		put_u64(out, "provider ", rec->id);
		fxtrace_out_char(out, ' ');
		fxtrace_out_quoted(out, &rec->name);
		break;
	case FXT_META_PROVIDER_SECTION:
		put_u64(out, "provider ", rec->id);
		break;
	case FXT_META_PROVIDER_EVENT:
		put_u64(out, "provider ", rec->id);
		if (rec->value == FXT_PROVIDER_EVENT_BUFFER_FULL)
			fxtrace_out_str(out, " buffer full");
		else
			put_u64(out, " event ", rec->value);
		break;
	case FXT_META_TRACE_INFO:
		if (rec->id == FXT_TRACE_INFO_MAGIC)
			put_alt_hex(out, rec->value);
		else
			put_u64(out, "type ", rec->id);
		break;
	default:
		put_u64(out, "type ", rec->subtype);
		break;
	}
}

static void print_kobj(struct fxtrace_out *out, const struct fxt_record *rec)
{
	if (rec->subtype == FXT_KOBJ_PROCESS) {
		put_u64(out, "process ", rec->id);
	} else if (rec->subtype == FXT_KOBJ_THREAD) {
		put_u64(out, "thread ", rec->id);
	} else {
		put_u64(out, "type ", rec->subtype);
		put_u64(out, " koid ", rec->id);
	}
	fxtrace_out_char(out, ' ');
	fxtrace_out_quoted(out, &rec->name);
	print_args(out, rec);
}

static void print_sched(struct fxtrace_out *out, const struct fxt_record *rec)
{
	switch (rec->subtype) {
	case FXT_SCHED_LEGACY_CONTEXT_SWITCH:
		put_u64(out, "", rec->out.pid);
		put_u64(out, "/", rec->out.tid);
		fxtrace_out_str(out, " (");
		fxtrace_out_str(out, fxt_thread_state_name(rec->out_state));
		put_u64(out, ", prio ", rec->out_prio);
		put_u64(out, ") -> ", rec->in.pid);
		put_u64(out, "/", rec->in.tid);
		put_u64(out, " (prio ", rec->in_prio);
		fxtrace_out_char(out, ')');
		break;
	case FXT_SCHED_CONTEXT_SWITCH:
		put_u64(out, "", rec->out.tid);
		fxtrace_out_str(out, " (");
		fxtrace_out_str(out, fxt_thread_state_name(rec->out_state));
		put_u64(out, ") -> ", rec->in.tid);
		print_args(out, rec);
		break;
	case FXT_SCHED_WAKEUP:
		put_u64(out, "", rec->thread.tid);
		print_args(out, rec);
		break;
	default:
		put_u64(out, "subtype ", rec->subtype);
		break;
	}
}

static void print_details(const struct dump *d, const struct fxt_record *rec)
{
	struct fxtrace_out *out = d->out;

	if (!rec->bytes) {
		put_u64(out, "", rec->words);
		fxtrace_out_str(out, " words, not decoded");
		return;
	}
	switch (rec->type) {
	case FXT_REC_METADATA:
		print_metadata(out, rec);
		break;
	case FXT_REC_INIT:
		put_u64(out, "", rec->value);
		fxtrace_out_str(out, " ticks/s");
		break;
	case FXT_REC_STRING:
		put_u64(out, "#", rec->id);
		fxtrace_out_char(out, ' ');
		fxtrace_out_quoted(out, &rec->name);
		break;
	case FXT_REC_THREAD:
		put_u64(out, "#", rec->id);
		put_u64(out, " ", rec->thread.pid);
		put_u64(out, "/", rec->thread.tid);
		break;
	case FXT_REC_EVENT:
		print_event(d, rec);
		break;
	case FXT_REC_BLOB:
		fxtrace_out_quoted(out, &rec->name);
		put_u64(out, " type ", rec->subtype);
		put_u64(out, ", ", rec->payload_len);
		fxtrace_out_str(out, " bytes");
		break;
	case FXT_REC_USEROBJ:
		put_alt_hex(out, rec->id);
		put_u64(out, " process ", rec->thread.pid);
		fxtrace_out_char(out, ' ');
		fxtrace_out_quoted(out, &rec->name);
		print_args(out, rec);
		break;
	case FXT_REC_KOBJ:
		print_kobj(out, rec);
		break;
	case FXT_REC_SCHED:
		print_sched(out, rec);
		break;
	case FXT_REC_LOG:
		fxtrace_out_quoted(out, &rec->name);
		break;
	case FXT_REC_LARGE:
		if (rec->subtype == FXT_LARGE_BLOB) {
			print_cat_name(out, rec);
			put_u64(out, " format ", rec->value);
			put_u64(out, ", ", rec->payload_len);
			fxtrace_out_str(out, " bytes");
			print_args(out, rec);
		} else {
			put_u64(out, "type ", rec->subtype);
		}
		break;
	default:
		put_u64(out, "type ", rec->type);
		put_u64(out, ", ", rec->words);
		fxtrace_out_str(out, " words");
		break;
	}
}

static void print_words(struct fxtrace_out *out, const struct fxt_record *rec)
{
	uint64_t i, w;

	for (i = 0; rec->bytes && i < rec->words; i++) {
		memcpy(&w, rec->bytes + 8 * i, sizeof(w));
		fxtrace_out_str(out, i % 4 ? " " : "         ");
		fxtrace_out_hex0(out, le64toh(w), 16);
		if (i % 4 == 3 || i + 1 == rec->words)
			fxtrace_out_char(out, '\n');
	}
}

/* The threads a record names, for the thread filters. */
static int record_threads(struct dump *d, const struct fxt_record *rec,
			  struct line *l)
{
	uint64_t pid;

	if (fxtrace_record_thread(rec)) {
		l->nthreads = 1;
		l->pid[0] = rec->thread.pid;
		l->tid[0] = rec->thread.tid;
		return fxtrace_learn_pid(&d->pids, rec->thread.pid,
					 rec->thread.tid);
	}
	switch (rec->type) {
	case FXT_REC_KOBJ:
		if (rec->subtype == FXT_KOBJ_PROCESS) {
			l->nthreads = 1;
			l->pid[0] = rec->id;
			l->tid[0] = PID_UNKNOWN;	/* any tid filter fails */
		} else if (rec->subtype == FXT_KOBJ_THREAD) {
			pid = fxtrace_thread_process(rec);
			l->nthreads = 1;
			l->pid[0] = pid ? pid : PID_UNKNOWN;
			l->tid[0] = rec->id;
			if (pid)
				return fxtrace_learn_pid(&d->pids, pid, rec->id);
		}
		return 0;
	case FXT_REC_SCHED:
		if (rec->subtype == FXT_SCHED_WAKEUP) {
			l->nthreads = 1;
			l->pid[0] = PID_UNKNOWN;
			l->tid[0] = rec->thread.tid;
		} else if (rec->subtype == FXT_SCHED_CONTEXT_SWITCH) {
			l->nthreads = 2;
			l->pid[0] = l->pid[1] = PID_UNKNOWN;
			l->tid[0] = rec->out.tid;
			l->tid[1] = rec->in.tid;
		} else if (rec->subtype == FXT_SCHED_LEGACY_CONTEXT_SWITCH) {
			l->nthreads = 2;
			l->pid[0] = rec->out.pid;
			l->tid[0] = rec->out.tid;
			l->pid[1] = rec->in.pid;
			l->tid[1] = rec->in.tid;
			if (fxtrace_learn_pid(&d->pids, rec->out.pid, rec->out.tid))
				return -ENOMEM;
			return fxtrace_learn_pid(&d->pids, rec->in.pid, rec->in.tid);
		}
		return 0;
	}
	return 0;
}

/* Where the record's line goes: straight out, or a line kept for later. */
static int keep_line(struct dump *d, const struct fxt_record *rec,
		     const struct line *threads)
{
	struct line *l;

	if (d->streaming)
		return 0;
	if (d->nlines == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 1024;
		struct line *grown = realloc(d->lines, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		d->lines = grown;
		d->cap = cap;
	}
	l = &d->lines[d->nlines];
	*l = *threads;
	l->key = d->last_key;
	l->offset = rec->offset;
	l->text = d->out->len;
	return 0;
}

static int dump_record(void *ctx, const struct fxt_record *rec)
{
	struct dump *d = ctx;
	struct fxtrace_out *out = d->out;
	struct line threads = { 0 };
	const char *name;
	size_t start;
	int ret;

	if (rec->has_ts && rec->ts_ns_valid)
		d->last_key = rec->ts_ns;
	/* Every record tells processes of threads, selected or not. */
	if (!d->streaming && record_threads(d, rec, &threads))
		return -ENOMEM;
	if (!fxtrace_select_record(d->select, rec))
		return 0;
	ret = keep_line(d, rec, &threads);
	if (ret)
		return ret;
	/* A line is longer than a flush only when its strings are. */
	if (!fxtrace_out_room(out, 4096))
		return -ENOMEM;
	fxtrace_out_str(out, "0x");
	fxtrace_out_hex0(out, rec->offset, 6);
	fxtrace_out_char(out, ' ');
	if (rec->has_ts)
		put_time(d, rec->ts, rec->ts_ns, rec->ts_ns_valid);
	else
		fxtrace_out_spaces(out, 16);
	fxtrace_out_str(out, "  ");
	if (rec->type == FXT_REC_SCHED && rec->subtype <= FXT_SCHED_WAKEUP) {
		start = out->len;
		put_u64(out, "cpu ", rec->cpu);
		pad_to(out, start, 24);
	} else if (rec->has_ts && (rec->type == FXT_REC_EVENT ||
				   rec->type == FXT_REC_LOG ||
				   rec->type == FXT_REC_LARGE)) {
		put_thread(d, &rec->thread);
	} else {
		fxtrace_out_spaces(out, 24);
	}
	fxtrace_out_char(out, ' ');
	name = record_name(rec);
	column(out, name, strlen(name), 17, true);
	fxtrace_out_char(out, ' ');
	print_details(d, rec);
	fxtrace_out_char(out, '\n');
	if (d->opts->hex)
		print_words(out, rec);
	if (d->streaming)
		return out->write_failed ? FXTRACE_WALK_OUTPUT_GONE : 0;
	if (out->failed)
		return -ENOMEM;
	d->lines[d->nlines].len = out->len - d->lines[d->nlines].text;
	d->nlines++;
	/*
	 * The lines kept for sorting are bound by the reader's memory limit
	 * too: a 2-word event naming a 32-KiB string makes a 32-KiB line.
	 */
	if (d->memory_limit &&
	    out->len + d->cap * sizeof(*d->lines) > d->memory_limit)
		return -EFBIG;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* The thread filters: one of the record's threads passes both. */
static bool threads_selected(const struct dump *d, const struct line *l)
{
	const struct fxtrace_select *s = d->select;
	const uint64_t *known;
	uint64_t pid;
	unsigned int i;

	for (i = 0; i < l->nthreads; i++) {
		pid = l->pid[i];
		if (pid == PID_UNKNOWN) {
			known = fxt_map_get(&d->pids, l->tid[i], 0);
			pid = known ? *known : l->tid[i] ? PID_UNKNOWN : 0;
		}
		if ((!s->npids || pid != PID_UNKNOWN) &&
		    fxtrace_select_thread(s, pid, l->tid[i]))
			return true;
	}
	return false;
}

int fxtrace_dump(FILE *file, struct fxt_reader *r, fxt_read_fn *read,
		 void *read_ctx, const struct dump_options *opts)
{
	static const struct fxtrace_select all;
	struct fxtrace_out out, text;
	struct dump d = {
		.opts = opts, .r = r, .last_key = INT64_MIN,
		.select = opts->select ? opts->select : &all,
		.memory_limit = fxt_reader_memory_budget(r),
	};
	size_t i;
	int ret;

	fxt_map_init(&d.pids, sizeof(uint64_t));
	fxtrace_out_init(&out, file);
	/* In file order without thread filters, nothing waits for the end. */
	d.streaming = opts->file_order && !fxtrace_select_by_thread(d.select);
	if (d.streaming) {
		d.out = &out;
		ret = fxtrace_walk(r, read, read_ctx, dump_record, &d);
		if (out.failed && ret >= 0)
			ret = -ENOMEM;
		fxtrace_out_free(&out);
		return ret;
	}
	fxtrace_out_init(&text, NULL);
	d.out = &text;
	ret = fxtrace_walk(r, read, read_ctx, dump_record, &d);
	if (text.failed && !ret)
		ret = -ENOMEM;
	if (!opts->file_order && d.nlines)
		qsort(d.lines, d.nlines, sizeof(*d.lines), by_time);
	for (i = 0; ret >= 0 && !out.write_failed && i < d.nlines; i++)
		if (!fxtrace_select_by_thread(d.select) ||
		    threads_selected(&d, &d.lines[i]))
			fxtrace_out_bytes(&out, text.buf + d.lines[i].text,
					  d.lines[i].len);
	fxtrace_out_free(&out);
	fxtrace_out_free(&text);
	free(d.lines);
	fxt_map_free(&d.pids);
	return ret;
}

int cmd_dump(int argc, char **argv)
{
	enum { FILE_ORDER = 0x200 };
	static const struct option options[] = {
		{ "ticks", no_argument, NULL, 't' },
		{ "hex", no_argument, NULL, 'x' },
		{ "file-order", no_argument, NULL, FILE_ORDER },
		FXTRACE_SELECT_OPTIONS,
		{ "input", required_argument, NULL, 'i' },
		{ "memory-limit", required_argument, NULL, FXTRACE_OPT_MEMORY_LIMIT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fxtrace_select select = { 0 };
	struct dump_options opts = { .select = &select };
	uint64_t memory_limit = FXTRACE_MEMORY_LIMIT_AUTO;
	const char *input = NULL, *path;
	struct fxtrace_input in;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":txp:c:i:h", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			input = optarg;
			break;
		case 't':
			opts.ticks = true;
			break;
		case 'x':
			opts.hex = true;
			break;
		case FILE_ORDER:
			opts.file_order = true;
			break;
		FXTRACE_SELECT_CASES:
			ret = fxtrace_select_option(&select, "dump", opt, optarg);
			if (ret) {
				fxtrace_select_free(&select);
				return ret;
			}
			break;
		case FXTRACE_OPT_MEMORY_LIMIT:
			ret = fxtrace_memory_limit_option("dump", optarg,
							  &memory_limit);
			if (ret) {
				fxtrace_select_free(&select);
				return ret;
			}
			break;
		case 'h':
			fxtrace_select_free(&select);
			return fxtrace_cmd_help("dump");
		default:
			fxtrace_select_free(&select);
			return fxtrace_option_error("dump", opt, argv, options);
		}
	}
	path = fxtrace_trace_path("dump", argc, argv, input);
	ret = path ? fxtrace_input_open(&in, "dump", path, memory_limit) :
		     EXIT_USAGE;
	if (!ret) {
		ret = fxtrace_dump(stdout, in.reader, fxtrace_read_source,
				   &in.src, &opts);
		ret = fxtrace_input_close(&in, ret);
	}
	fxtrace_select_free(&select);
	return ret;
}
