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
 * streams, as the lines need not wait for the end.
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
	size_t text, len;	/* in the memory stream */
	uint8_t nthreads;	/* 0: the record names no thread */
	uint64_t pid[2], tid[2];	/* pid may be PID_UNKNOWN */
};

struct dump {
	FILE *out;		/* the lines, into memory unless streaming */
	const struct dump_options *opts;
	const struct fxtrace_select *select;
	struct fxt_reader *r;
	struct line *lines;
	size_t nlines, cap;
	int64_t last_key;
	struct fxt_map pids;	/* (tid, 0) -> uint64_t pid */
	bool streaming;		/* lines go straight to the output */
};

static void format_time(const struct dump *d, char *buf, size_t size,
			uint64_t ticks, int64_t ns, bool ns_valid)
{
	if (d->opts->ticks)
		snprintf(buf, size, "%" PRIu64, ticks);
	else if (!ns_valid)
		snprintf(buf, size, "%" PRIu64 "t", ticks);
	else
		snprintf(buf, size, "%" PRId64 ".%09" PRId64,
			 ns / 1000000000, ns % 1000000000);
}

/* "pid/tid name": the name from a kernel object record, printable only. */
static void format_thread(const struct dump *d, char *buf, size_t size,
			  const struct fxt_thread *th)
{
	struct fxt_string name;
	size_t n, i;

	n = snprintf(buf, size, "%" PRIu64 "/%" PRIu64, th->pid, th->tid);
	if (th->undefined)
		snprintf(buf, size, "<thread %u>", th->ref);
	else if (fxt_reader_thread_name(d->r, th->tid, &name, NULL) &&
		 name.len && n + 1 < size) {
		buf[n++] = ' ';
		for (i = 0; i < name.len && i < NAME_COLUMN_MAX && n + 1 < size;
		     i++) {
			unsigned char c = name.ptr[i];

			buf[n++] = c >= 0x20 && c < 0x7f ? c : '?';
		}
		buf[n] = '\0';
	}
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

static void print_args(FILE *out, const struct fxt_record *rec)
{
	uint32_t i;

	for (i = 0; i < rec->nargs; i++) {
		fputc(' ', out);
		fxtrace_print_arg(out, &rec->args[i]);
	}
}

/* category:name, or name alone when the category is empty. */
static void print_cat_name(FILE *out, const struct fxt_record *rec)
{
	if (!rec->category.ptr || rec->category.len) {
		fxtrace_print_escaped(out, &rec->category);
		fputc(':', out);
	}
	fxtrace_print_escaped(out, &rec->name);
}

static void print_event(const struct dump *d, const struct fxt_record *rec)
{
	FILE *out = d->out;

	print_cat_name(out, rec);
	switch (rec->subtype) {
	case FXT_EVENT_COUNTER:
		fprintf(out, " id=%" PRIu64, rec->id);
		break;
	case FXT_EVENT_DURATION_COMPLETE:
		if (d->opts->ticks || !rec->ts_ns_valid || !rec->end_ts_ns_valid)
			fprintf(out, " dur=%" PRId64 "t",
				(int64_t)(rec->end_ts - rec->ts));
		else
			fprintf(out, " dur=%" PRId64 "ns",
				rec->end_ts_ns - rec->ts_ns);
		break;
	case FXT_EVENT_ASYNC_BEGIN:
	case FXT_EVENT_ASYNC_INSTANT:
	case FXT_EVENT_ASYNC_END:
	case FXT_EVENT_FLOW_BEGIN:
	case FXT_EVENT_FLOW_STEP:
	case FXT_EVENT_FLOW_END:
		fprintf(out, " id=%#" PRIx64, rec->id);
		break;
	}
	print_args(out, rec);
}

static void print_metadata(FILE *out, const struct fxt_record *rec)
{
	switch (rec->subtype) {
	case FXT_META_PROVIDER_INFO:
		fprintf(out, "provider %" PRIu64 " ", rec->id);
		fxtrace_print_quoted(out, &rec->name);
		break;
	case FXT_META_PROVIDER_SECTION:
		fprintf(out, "provider %" PRIu64, rec->id);
		break;
	case FXT_META_PROVIDER_EVENT:
		fprintf(out, "provider %" PRIu64 " ", rec->id);
		if (rec->value == FXT_PROVIDER_EVENT_BUFFER_FULL)
			fputs("buffer full", out);
		else
			fprintf(out, "event %" PRIu64, rec->value);
		break;
	case FXT_META_TRACE_INFO:
		if (rec->id == FXT_TRACE_INFO_MAGIC)
			fprintf(out, "%#" PRIx64, rec->value);
		else
			fprintf(out, "type %" PRIu64, rec->id);
		break;
	default:
		fprintf(out, "type %u", rec->subtype);
		break;
	}
}

static void print_kobj(FILE *out, const struct fxt_record *rec)
{
	if (rec->subtype == FXT_KOBJ_PROCESS)
		fprintf(out, "process %" PRIu64 " ", rec->id);
	else if (rec->subtype == FXT_KOBJ_THREAD)
		fprintf(out, "thread %" PRIu64 " ", rec->id);
	else
		fprintf(out, "type %u koid %" PRIu64 " ", rec->subtype, rec->id);
	fxtrace_print_quoted(out, &rec->name);
	print_args(out, rec);
}

static void print_sched(FILE *out, const struct fxt_record *rec)
{
	switch (rec->subtype) {
	case FXT_SCHED_LEGACY_CONTEXT_SWITCH:
		fprintf(out, "%" PRIu64 "/%" PRIu64 " (%s, prio %u) -> %" PRIu64
			"/%" PRIu64 " (prio %u)", rec->out.pid, rec->out.tid,
			fxt_thread_state_name(rec->out_state), rec->out_prio,
			rec->in.pid, rec->in.tid, rec->in_prio);
		break;
	case FXT_SCHED_CONTEXT_SWITCH:
		fprintf(out, "%" PRIu64 " (%s) -> %" PRIu64, rec->out.tid,
			fxt_thread_state_name(rec->out_state), rec->in.tid);
		print_args(out, rec);
		break;
	case FXT_SCHED_WAKEUP:
		fprintf(out, "%" PRIu64, rec->thread.tid);
		print_args(out, rec);
		break;
	default:
		fprintf(out, "subtype %u", rec->subtype);
		break;
	}
}

static void print_details(const struct dump *d, const struct fxt_record *rec)
{
	FILE *out = d->out;

	if (!rec->bytes) {
		fprintf(out, "%" PRIu64 " words, not decoded", rec->words);
		return;
	}
	switch (rec->type) {
	case FXT_REC_METADATA:
		print_metadata(out, rec);
		break;
	case FXT_REC_INIT:
		fprintf(out, "%" PRIu64 " ticks/s", rec->value);
		break;
	case FXT_REC_STRING:
		fprintf(out, "#%" PRIu64 " ", rec->id);
		fxtrace_print_quoted(out, &rec->name);
		break;
	case FXT_REC_THREAD:
		fprintf(out, "#%" PRIu64 " %" PRIu64 "/%" PRIu64, rec->id,
			rec->thread.pid, rec->thread.tid);
		break;
	case FXT_REC_EVENT:
		print_event(d, rec);
		break;
	case FXT_REC_BLOB:
		fxtrace_print_quoted(out, &rec->name);
		fprintf(out, " type %u, %" PRIu64 " bytes", rec->subtype,
			rec->payload_len);
		break;
	case FXT_REC_USEROBJ:
		fprintf(out, "%#" PRIx64 " process %" PRIu64 " ", rec->id,
			rec->thread.pid);
		fxtrace_print_quoted(out, &rec->name);
		print_args(out, rec);
		break;
	case FXT_REC_KOBJ:
		print_kobj(out, rec);
		break;
	case FXT_REC_SCHED:
		print_sched(out, rec);
		break;
	case FXT_REC_LOG:
		fxtrace_print_quoted(out, &rec->name);
		break;
	case FXT_REC_LARGE:
		if (rec->subtype == FXT_LARGE_BLOB) {
			print_cat_name(out, rec);
			fprintf(out, " format %" PRIu64 ", %" PRIu64 " bytes",
				rec->value, rec->payload_len);
			print_args(out, rec);
		} else {
			fprintf(out, "type %u", rec->subtype);
		}
		break;
	default:
		fprintf(out, "type %u, %" PRIu64 " words", rec->type,
			rec->words);
		break;
	}
}

static void print_words(FILE *out, const struct fxt_record *rec)
{
	uint64_t i, w;

	for (i = 0; rec->bytes && i < rec->words; i++) {
		memcpy(&w, rec->bytes + 8 * i, sizeof(w));
		fprintf(out, "%s%016" PRIx64, i % 4 ? " " : "         ",
			le64toh(w));
		if (i % 4 == 3 || i + 1 == rec->words)
			fputc('\n', out);
	}
}

/* Remember a thread's process for the thread filters. */
static int learn_pid(struct dump *d, uint64_t pid, uint64_t tid)
{
	uint64_t *p = fxt_map_put(&d->pids, tid, 0, NULL);

	if (!p)
		return -ENOMEM;
	*p = pid;
	return 0;
}

/* The threads a record names, for the thread filters. */
static int record_threads(struct dump *d, const struct fxt_record *rec,
			  struct line *l)
{
	uint64_t pid = 0;
	uint32_t i;

	switch (rec->type) {
	case FXT_REC_EVENT:
	case FXT_REC_LOG:
	case FXT_REC_LARGE:
	case FXT_REC_THREAD:
		if (rec->thread.undefined)
			return 0;
		l->nthreads = 1;
		l->pid[0] = rec->thread.pid;
		l->tid[0] = rec->thread.tid;
		return learn_pid(d, rec->thread.pid, rec->thread.tid);
	case FXT_REC_KOBJ:
		if (rec->subtype == FXT_KOBJ_PROCESS) {
			l->nthreads = 1;
			l->pid[0] = rec->id;
			l->tid[0] = PID_UNKNOWN;	/* any tid filter fails */
		} else if (rec->subtype == FXT_KOBJ_THREAD) {
			for (i = 0; i < rec->nargs; i++)
				if (rec->args[i].type == FXT_ARG_KOID &&
				    fxt_string_is(&rec->args[i].name, "process"))
					pid = rec->args[i].value.u64;
			l->nthreads = 1;
			l->pid[0] = pid ? pid : PID_UNKNOWN;
			l->tid[0] = rec->id;
			if (pid)
				return learn_pid(d, pid, rec->id);
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
			if (learn_pid(d, rec->out.pid, rec->out.tid))
				return -ENOMEM;
			return learn_pid(d, rec->in.pid, rec->in.tid);
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
	long start;

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
	start = ftell(d->out);
	if (start < 0)
		return -errno;
	l->text = start;
	return 0;
}

static int dump_record(void *ctx, const struct fxt_record *rec)
{
	struct dump *d = ctx;
	char time[32] = "", who[64] = "";
	struct line threads = { 0 };
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
	if (rec->has_ts)
		format_time(d, time, sizeof(time), rec->ts, rec->ts_ns,
			    rec->ts_ns_valid);
	if (rec->type == FXT_REC_SCHED && rec->subtype <= FXT_SCHED_WAKEUP)
		snprintf(who, sizeof(who), "cpu %u", rec->cpu);
	else if (rec->has_ts && (rec->type == FXT_REC_EVENT ||
				 rec->type == FXT_REC_LOG ||
				 rec->type == FXT_REC_LARGE))
		format_thread(d, who, sizeof(who), &rec->thread);
	fprintf(d->out, "0x%06" PRIx64 " %16s  %-24s %-17s ", rec->offset,
		time, who, record_name(rec));
	print_details(d, rec);
	fputc('\n', d->out);
	if (d->opts->hex)
		print_words(d->out, rec);
	if (d->streaming)
		return 0;
	if (ferror(d->out))
		return -ENOMEM;
	d->lines[d->nlines].len = ftell(d->out) - d->lines[d->nlines].text;
	d->nlines++;
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

int fxtrace_dump(FILE *out, struct fxt_reader *r, fxt_read_fn *read,
		 void *read_ctx, const struct dump_options *opts)
{
	static const struct fxtrace_select all;
	struct dump d = {
		.out = out, .opts = opts, .r = r, .last_key = INT64_MIN,
		.select = opts->select ? opts->select : &all,
	};
	char *text = NULL;
	size_t size = 0, i;
	int ret;

	fxt_map_init(&d.pids, sizeof(uint64_t));
	/* In file order without thread filters, nothing waits for the end. */
	d.streaming = opts->file_order && !fxtrace_select_by_thread(d.select);
	if (d.streaming)
		return fxt_reader_read(r, read, read_ctx, dump_record, &d);
	d.out = open_memstream(&text, &size);
	if (!d.out)
		return -errno;
	ret = fxt_reader_read(r, read, read_ctx, dump_record, &d);
	if (fclose(d.out) && !ret)
		ret = -ENOMEM;
	if (!opts->file_order && d.nlines)
		qsort(d.lines, d.nlines, sizeof(*d.lines), by_time);
	for (i = 0; ret >= 0 && i < d.nlines; i++)
		if (!fxtrace_select_by_thread(d.select) ||
		    threads_selected(&d, &d.lines[i]))
			fwrite(text + d.lines[i].text, 1, d.lines[i].len, out);
	free(text);
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fxtrace_select select = { 0 };
	struct dump_options opts = { .select = &select };
	struct fxtrace_input in;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":txp:c:h", options, NULL)) != -1) {
		switch (opt) {
		case 't':
			opts.ticks = true;
			break;
		case 'x':
			opts.hex = true;
			break;
		case FILE_ORDER:
			opts.file_order = true;
			break;
		case SELECT_PID:
		case SELECT_TID:
		case SELECT_CATEGORY:
		case SELECT_NAME:
		case SELECT_SINCE:
		case SELECT_UNTIL:
		case SELECT_TIME:
			ret = fxtrace_select_option(&select, "dump", opt, optarg);
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
			return fxtrace_option_error("dump", opt, argv);
		}
	}
	ret = fxtrace_input_open(&in, "dump", argc, argv);
	if (!ret) {
		ret = fxtrace_dump(stdout, in.reader, fxtrace_read_source,
				   &in.src, &opts);
		ret = fxtrace_input_close(&in, ret);
	}
	fxtrace_select_free(&select);
	return ret;
}
