// SPDX-License-Identifier: GPL-2.0
/*
 * dump.c - `fxtrace dump`: one line per record, in file order, like
 * `trace-cmd report`:
 *
 *   OFFSET   TIME         WHO                      RECORD            DETAILS
 *   0x0000b8      0.000001000  4660/22136 main          instant           app:tick n=-2
 *
 * WHO is pid/tid and the thread's name from the kernel object records seen
 * so far, or the CPU of a scheduling record.
 */
#include <endian.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "fxtrace.h"

#define NAME_COLUMN_MAX 16

struct dump {
	FILE *out;
	const struct dump_options *opts;
	struct fxt_reader *r;
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

static int dump_record(void *ctx, const struct fxt_record *rec)
{
	const struct dump *d = ctx;
	char time[32] = "", who[64] = "";

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
	return 0;
}

int fxtrace_dump(FILE *out, struct fxt_reader *r, fxt_read_fn *read,
		 void *read_ctx, const struct dump_options *opts)
{
	struct dump d = { .out = out, .opts = opts, .r = r };

	return fxt_reader_read(r, read, read_ctx, dump_record, &d);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option options[] = {
		{ "ticks", no_argument, NULL, 't' },
		{ "hex", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dump_options opts = { 0 };
	struct fxtrace_input in;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":txh", options, NULL)) != -1) {
		switch (opt) {
		case 't':
			opts.ticks = true;
			break;
		case 'x':
			opts.hex = true;
			break;
		case 'h':
			return fxtrace_cmd_help("dump");
		default:
			return fxtrace_option_error("dump", opt, argv);
		}
	}
	ret = fxtrace_input_open(&in, "dump", argc, argv);
	if (ret)
		return ret;
	ret = fxtrace_dump(stdout, in.reader, fxtrace_read_source, &in.src, &opts);
	fflush(stdout);
	return fxtrace_input_close(&in, ret);
}
