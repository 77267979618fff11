// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - `fxtrace export --format=json`: Chrome trace-event JSON, the
 * format chrome://tracing and Perfetto's JSON importer read:
 *
 *   {"displayTimeUnit":"ns","traceEvents":[ {"ph":"B",...}, ... ]}
 *
 * Events map to phases B/E/X/i/C, async events to b/n/e, flows to s/t/f,
 * kernel objects to M process_name/thread_name; ts and dur are in
 * microseconds with three decimals (nanosecond precision).
 *
 * Scheduling records have no JSON equivalent, so they go on CPU tracks: a
 * process "CPUs" (pid EXPORT_CPU_PID, above any Linux pid) with one thread
 * "CPU N" per CPU (tid EXPORT_CPU_TID + N).  Each context switch is an
 * instant "sched_switch" there, each wakeup an instant "sched_wakeup", and
 * the time a thread runs between two switches on a CPU an X slice named
 * after it.  Blobs and userspace objects are left out, and so are records
 * whose time does not convert (Perfetto drops those too).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "fxt_map.h"
#include "fxtrace.h"

/* Who a CPU runs since when, from its last context switch. */
struct cpu_track {
	int64_t since;
	uint64_t pid, tid;	/* pid 0 when the switch did not say */
};

struct export {
	FILE *out;
	bool first;
	struct fxt_reader *r;
	struct fxt_map cpus;	/* (cpu, 0) -> struct cpu_track */
	int error;
};

static void json_string(FILE *out, const struct fxt_string *s)
{
	char placeholder[48];

	if (s->ptr) {
		fxtrace_print_json_string(out, s->ptr, s->len);
		return;
	}
	snprintf(placeholder, sizeof(placeholder), "<%s string %u>",
		 s->undefined ? "undefined" : "unkept", s->ref);
	fxtrace_print_json_string(out, placeholder, strlen(placeholder));
}

static void json_cstring(FILE *out, const char *s)
{
	fxtrace_print_json_string(out, s, strlen(s));
}

/* ns (never negative here) as microseconds with 3 decimals. */
static void json_us(FILE *out, int64_t ns)
{
	fprintf(out, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

static void json_double(FILE *out, double v)
{
	if (isnan(v))
		json_cstring(out, "NaN");
	else if (isinf(v))
		json_cstring(out, v > 0 ? "Infinity" : "-Infinity");
	else
		fprintf(out, "%.17g", v);
}

static void json_arg_value(FILE *out, const struct fxt_arg *a)
{
	char text[48];

	switch (a->type) {
	case FXT_ARG_NULL:
		fputs("null", out);
		break;
	case FXT_ARG_INT32:
	case FXT_ARG_INT64:
		fprintf(out, "%" PRId64, a->value.i64);
		break;
	case FXT_ARG_UINT32:
	case FXT_ARG_UINT64:
	case FXT_ARG_KOID:
		fprintf(out, "%" PRIu64, a->value.u64);
		break;
	case FXT_ARG_DOUBLE:
		json_double(out, a->value.f64);
		break;
	case FXT_ARG_STRING:
		json_string(out, &a->value.str);
		break;
	case FXT_ARG_POINTER:
		snprintf(text, sizeof(text), "0x%" PRIx64, a->value.u64);
		json_cstring(out, text);
		break;
	case FXT_ARG_BOOL:
		fputs(a->value.b ? "true" : "false", out);
		break;
	default:
		snprintf(text, sizeof(text), "<%s>", fxt_arg_type_name(a->type));
		json_cstring(out, text);
		break;
	}
}

/* "args":{...}: every argument, or only the numeric ones (counters). */
static void json_args(FILE *out, const struct fxt_record *rec, bool numeric)
{
	bool first = true;
	uint32_t i;
	double v;

	fputs(",\"args\":{", out);
	for (i = 0; i < rec->nargs; i++) {
		if (numeric && !fxt_arg_number(&rec->args[i], &v))
			continue;
		if (!first)
			fputc(',', out);
		first = false;
		json_string(out, &rec->args[i].name);
		fputc(':', out);
		json_arg_value(out, &rec->args[i]);
	}
	fputc('}', out);
}

/* The record's arguments as more members of an open "args" object. */
static void json_args_inner(FILE *out, const struct fxt_record *rec)
{
	uint32_t i;

	for (i = 0; i < rec->nargs; i++) {
		fputc(',', out);
		json_string(out, &rec->args[i].name);
		fputc(':', out);
		json_arg_value(out, &rec->args[i]);
	}
}

static void begin_event(struct export *e, const char *ph)
{
	fputs(e->first ? "\n" : ",\n", e->out);
	e->first = false;
	fprintf(e->out, "{\"ph\":\"%s\"", ph);
}

static void json_thread(FILE *out, uint64_t pid, uint64_t tid)
{
	fprintf(out, ",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64, pid, tid);
}

static void json_id(FILE *out, uint64_t id)
{
	fprintf(out, ",\"id\":\"0x%" PRIx64 "\"", id);
}

static void export_event(struct export *e, const struct fxt_record *rec)
{
	static const char *const phase[FXT_EVENT_TYPE_COUNT] = {
		[FXT_EVENT_INSTANT] = "i",
		[FXT_EVENT_COUNTER] = "C",
		[FXT_EVENT_DURATION_BEGIN] = "B",
		[FXT_EVENT_DURATION_END] = "E",
		[FXT_EVENT_DURATION_COMPLETE] = "X",
		[FXT_EVENT_ASYNC_BEGIN] = "b",
		[FXT_EVENT_ASYNC_INSTANT] = "n",
		[FXT_EVENT_ASYNC_END] = "e",
		[FXT_EVENT_FLOW_BEGIN] = "s",
		[FXT_EVENT_FLOW_STEP] = "t",
		[FXT_EVENT_FLOW_END] = "f",
	};
	FILE *out = e->out;

	if (rec->subtype >= FXT_EVENT_TYPE_COUNT || !rec->ts_ns_valid)
		return;
	if (rec->subtype == FXT_EVENT_DURATION_COMPLETE &&
	    (!rec->end_ts_ns_valid || rec->end_ts_ns < rec->ts_ns))
		return;
	begin_event(e, phase[rec->subtype]);
	fputs(",\"name\":", out);
	json_string(out, &rec->name);
	fputs(",\"cat\":", out);
	json_string(out, &rec->category);
	fputs(",\"ts\":", out);
	json_us(out, rec->ts_ns);
	json_thread(out, rec->thread.pid, rec->thread.tid);
	switch (rec->subtype) {
	case FXT_EVENT_INSTANT:
		fputs(",\"s\":\"t\"", out);
		break;
	case FXT_EVENT_COUNTER:
		if (rec->id)
			json_id(out, rec->id);
		break;
	case FXT_EVENT_DURATION_COMPLETE:
		fputs(",\"dur\":", out);
		json_us(out, rec->end_ts_ns - rec->ts_ns);
		break;
	case FXT_EVENT_FLOW_END:
		/* Bind to the enclosing slice, as FXT flow ends do. */
		fputs(",\"bp\":\"e\"", out);
		json_id(out, rec->id);
		break;
	case FXT_EVENT_ASYNC_BEGIN:
	case FXT_EVENT_ASYNC_INSTANT:
	case FXT_EVENT_ASYNC_END:
	case FXT_EVENT_FLOW_BEGIN:
	case FXT_EVENT_FLOW_STEP:
		json_id(out, rec->id);
		break;
	}
	json_args(out, rec, rec->subtype == FXT_EVENT_COUNTER);
	fputc('}', out);
}

static void export_kobj(struct export *e, const struct fxt_record *rec)
{
	FILE *out = e->out;
	uint64_t pid = 0;
	uint32_t i;

	if (rec->subtype == FXT_KOBJ_PROCESS) {
		begin_event(e, "M");
		fputs(",\"name\":\"process_name\"", out);
		json_thread(out, rec->id, 0);
	} else if (rec->subtype == FXT_KOBJ_THREAD) {
		for (i = 0; i < rec->nargs; i++)
			if (rec->args[i].type == FXT_ARG_KOID &&
			    fxt_string_is(&rec->args[i].name, "process"))
				pid = rec->args[i].value.u64;
		begin_event(e, "M");
		fputs(",\"name\":\"thread_name\"", out);
		json_thread(out, pid, rec->id);
	} else {
		return;
	}
	fputs(",\"args\":{\"name\":", out);
	json_string(out, &rec->name);
	fputs("}}", out);
}

static void export_log(struct export *e, const struct fxt_record *rec)
{
	FILE *out = e->out;

	if (!rec->ts_ns_valid)
		return;
	begin_event(e, "i");
	fputs(",\"name\":\"log\",\"cat\":\"log\",\"s\":\"t\",\"ts\":", out);
	json_us(out, rec->ts_ns);
	json_thread(out, rec->thread.pid, rec->thread.tid);
	fputs(",\"args\":{\"message\":", out);
	json_string(out, &rec->name);
	fputs("}}", out);
}

static void json_cpu(FILE *out, uint32_t cpu)
{
	json_thread(out, EXPORT_CPU_PID, EXPORT_CPU_TID + cpu);
}

/* The running span that a switch at rec ends on its CPU. */
static void export_span(struct export *e, const struct fxt_record *rec,
			const struct cpu_track *t)
{
	FILE *out = e->out;
	struct fxt_string name;
	uint64_t pid = t->pid;
	char fallback[32];

	begin_event(e, "X");
	fputs(",\"name\":", out);
	if (fxt_reader_thread_name(e->r, t->tid, &name, pid ? NULL : &pid) &&
	    name.ptr) {
		json_string(out, &name);
	} else {
		snprintf(fallback, sizeof(fallback), "tid %" PRIu64, t->tid);
		json_cstring(out, fallback);
	}
	fputs(",\"cat\":\"sched\",\"ts\":", out);
	json_us(out, t->since);
	fputs(",\"dur\":", out);
	json_us(out, rec->ts_ns - t->since);
	json_cpu(out, rec->cpu);
	fprintf(out, ",\"args\":{\"tid\":%" PRIu64, t->tid);
	if (pid)
		fprintf(out, ",\"pid\":%" PRIu64, pid);
	fputs("}}", out);
}

static void export_sched(struct export *e, const struct fxt_record *rec)
{
	FILE *out = e->out;
	struct cpu_track *t;
	int created;

	if (rec->subtype > FXT_SCHED_WAKEUP || !rec->ts_ns_valid ||
	    rec->ts_ns < 0)
		return;
	t = fxt_map_put(&e->cpus, rec->cpu, 0, &created);
	if (!t) {
		e->error = -ENOMEM;
		return;
	}
	if (created) {
		begin_event(e, "M");
		fputs(",\"name\":\"thread_name\"", out);
		json_cpu(out, rec->cpu);
		fprintf(out, ",\"args\":{\"name\":\"CPU %u\"}}", rec->cpu);
		t->since = -1;
	}
	if (rec->subtype == FXT_SCHED_WAKEUP) {
		begin_event(e, "i");
		fputs(",\"name\":\"sched_wakeup\",\"cat\":\"sched\",\"s\":\"t\",\"ts\":", out);
		json_us(out, rec->ts_ns);
		json_cpu(out, rec->cpu);
		fprintf(out, ",\"args\":{\"tid\":%" PRIu64, rec->thread.tid);
		json_args_inner(out, rec);
		fputs("}}", out);
		return;
	}
	/* A switch ends the span of the thread switched in before it. */
	if (t->since >= 0 && t->tid && t->since <= rec->ts_ns)
		export_span(e, rec, t);
	begin_event(e, "i");
	fputs(",\"name\":\"sched_switch\",\"cat\":\"sched\",\"s\":\"t\",\"ts\":", out);
	json_us(out, rec->ts_ns);
	json_cpu(out, rec->cpu);
	fprintf(out, ",\"args\":{\"prev_tid\":%" PRIu64 ",\"prev_state\":\"%s\",\"next_tid\":%" PRIu64,
		rec->out.tid, fxt_thread_state_name(rec->out_state), rec->in.tid);
	if (rec->subtype == FXT_SCHED_LEGACY_CONTEXT_SWITCH)
		fprintf(out, ",\"prev_pid\":%" PRIu64 ",\"next_pid\":%" PRIu64
			",\"prev_prio\":%u,\"next_prio\":%u", rec->out.pid,
			rec->in.pid, rec->out_prio, rec->in_prio);
	json_args_inner(out, rec);
	fputs("}}", out);
	t->since = rec->ts_ns;
	t->tid = rec->in.tid;
	t->pid = rec->subtype == FXT_SCHED_LEGACY_CONTEXT_SWITCH ? rec->in.pid : 0;
}

static int export_record(void *ctx, const struct fxt_record *rec)
{
	struct export *e = ctx;

	/* A record whose content is cut or of unknown layout is left out. */
	if (!rec->complete)
		return 0;
	switch (rec->type) {
	case FXT_REC_EVENT:
		export_event(e, rec);
		break;
	case FXT_REC_KOBJ:
		export_kobj(e, rec);
		break;
	case FXT_REC_LOG:
		export_log(e, rec);
		break;
	case FXT_REC_SCHED:
		export_sched(e, rec);
		break;
	}
	return e->error;
}

int fxtrace_export_json(FILE *out, struct fxt_reader *r, fxt_read_fn *read,
			void *read_ctx)
{
	struct export e = { .out = out, .first = true, .r = r };
	int ret;

	fxt_map_init(&e.cpus, sizeof(struct cpu_track));
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	ret = fxt_reader_read(r, read, read_ctx, export_record, &e);
	if (e.cpus.count) {
		begin_event(&e, "M");
		fprintf(out, ",\"name\":\"process_name\",\"pid\":%llu,\"tid\":0,\"args\":{\"name\":\"CPUs\"}}",
			EXPORT_CPU_PID);
	}
	fputs("\n]}\n", out);
	fxt_map_free(&e.cpus);
	return ret;
}

int cmd_export(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
	struct fxtrace_input in;
	int opt, ret, status;
	bool write_failed;
	FILE *out = stdout;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":f:o:h", options, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (strcmp(optarg, "json"))
				return fxtrace_usage_error("export",
							   "format '%s' is not known (json is)",
							   optarg);
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			return fxtrace_cmd_help("export");
		default:
			return fxtrace_option_error("export", opt, argv);
		}
	}
	ret = fxtrace_input_open(&in, "export", argc, argv);
	if (ret)
		return ret;
	if (output && strcmp(output, "-")) {
		out = fopen(output, "w");
		if (!out) {
			fprintf(stderr, "fxtrace export: cannot create %s: %s\n",
				output, strerror(errno));
			fxtrace_input_close(&in, 0);
			return 1;
		}
	}
	ret = fxtrace_export_json(out, in.reader, fxtrace_read_source, &in.src);
	status = fxtrace_input_close(&in, ret);
	write_failed = fflush(out) || ferror(out);
	if (out != stdout && fclose(out))
		write_failed = true;
	if (write_failed) {
		fprintf(stderr, "fxtrace export: cannot write %s: %s\n",
			output && strcmp(output, "-") ? output : "stdout",
			strerror(errno));
		return 1;
	}
	return status;
}
