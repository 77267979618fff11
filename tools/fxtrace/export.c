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
	struct fxtrace_out *out;
	bool first;
	struct fxt_reader *r;
	struct fxt_map cpus;	/* (cpu, 0) -> struct cpu_track */
	int error;
};

/* ns (never negative here) as microseconds with 3 decimals. */
static void json_us(struct fxtrace_out *out, int64_t ns)
{
	char frac[3];

	fxtrace_out_i64(out, ns / 1000);
	fxtrace_out_char(out, '.');
	frac[0] = (char)('0' + ns % 1000 / 100);
	frac[1] = (char)('0' + ns % 100 / 10);
	frac[2] = (char)('0' + ns % 10);
	fxtrace_out_bytes(out, frac, 3);
}

/* One argument as a member "name":value. */
static void json_arg(struct fxtrace_out *out, const struct fxt_arg *a)
{
	fxtrace_out_json_fxt_string(out, &a->name);
	fxtrace_out_char(out, ':');
	fxtrace_out_arg_value(out, a, FXTRACE_ARG_JSON);
}

/* "args":{...}: every argument, or only the numeric ones (counters). */
static void json_args(struct fxtrace_out *out, const struct fxt_record *rec,
		      bool numeric)
{
	bool first = true;
	uint32_t i;
	double v;

	fxtrace_out_str(out, ",\"args\":{");
	for (i = 0; i < rec->nargs; i++) {
		if (numeric && !fxt_arg_number(&rec->args[i], &v))
			continue;
		if (!first)
			fxtrace_out_char(out, ',');
		first = false;
		json_arg(out, &rec->args[i]);
	}
	fxtrace_out_char(out, '}');
}

/* The record's arguments as more members of an open "args" object. */
static void json_args_inner(struct fxtrace_out *out,
			    const struct fxt_record *rec)
{
	uint32_t i;

	for (i = 0; i < rec->nargs; i++) {
		fxtrace_out_char(out, ',');
		json_arg(out, &rec->args[i]);
	}
}

static void begin_event(struct export *e, const char *ph)
{
	fxtrace_out_str(e->out, e->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	e->first = false;
	fxtrace_out_str(e->out, ph);
	fxtrace_out_char(e->out, '"');
}

static void json_thread(struct fxtrace_out *out, uint64_t pid, uint64_t tid)
{
	fxtrace_out_str(out, ",\"pid\":");
	fxtrace_out_u64(out, pid);
	fxtrace_out_str(out, ",\"tid\":");
	fxtrace_out_u64(out, tid);
}

static void json_id(struct fxtrace_out *out, uint64_t id)
{
	fxtrace_out_str(out, ",\"id\":\"0x");
	fxtrace_out_hex(out, id);
	fxtrace_out_char(out, '"');
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
	struct fxtrace_out *out = e->out;

	if (rec->subtype >= FXT_EVENT_TYPE_COUNT || !rec->ts_ns_valid)
		return;
	if (rec->subtype == FXT_EVENT_DURATION_COMPLETE &&
	    (!rec->end_ts_ns_valid || rec->end_ts_ns < rec->ts_ns))
		return;
	begin_event(e, phase[rec->subtype]);
	fxtrace_out_str(out, ",\"name\":");
	fxtrace_out_json_fxt_string(out, &rec->name);
	fxtrace_out_str(out, ",\"cat\":");
	fxtrace_out_json_fxt_string(out, &rec->category);
	fxtrace_out_str(out, ",\"ts\":");
	json_us(out, rec->ts_ns);
	json_thread(out, rec->thread.pid, rec->thread.tid);
	switch (rec->subtype) {
	case FXT_EVENT_INSTANT:
		fxtrace_out_str(out, ",\"s\":\"t\"");
		break;
	case FXT_EVENT_COUNTER:
		if (rec->id)
			json_id(out, rec->id);
		break;
	case FXT_EVENT_DURATION_COMPLETE:
		fxtrace_out_str(out, ",\"dur\":");
		json_us(out, rec->end_ts_ns - rec->ts_ns);
		break;
	case FXT_EVENT_FLOW_END:
		/* Bind to the enclosing slice, as FXT flow ends do. */
		fxtrace_out_str(out, ",\"bp\":\"e\"");
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
	fxtrace_out_char(out, '}');
}

static void export_kobj(struct export *e, const struct fxt_record *rec)
{
	struct fxtrace_out *out = e->out;
	uint64_t pid;

	if (rec->subtype == FXT_KOBJ_PROCESS) {
		begin_event(e, "M");
		fxtrace_out_str(out, ",\"name\":\"process_name\"");
		json_thread(out, rec->id, 0);
	} else if (rec->subtype == FXT_KOBJ_THREAD) {
		pid = fxtrace_thread_process(rec);
		begin_event(e, "M");
		fxtrace_out_str(out, ",\"name\":\"thread_name\"");
		json_thread(out, pid, rec->id);
	} else {
		return;
	}
	fxtrace_out_str(out, ",\"args\":{\"name\":");
	fxtrace_out_json_fxt_string(out, &rec->name);
	fxtrace_out_str(out, "}}");
}

static void export_log(struct export *e, const struct fxt_record *rec)
{
	struct fxtrace_out *out = e->out;

	if (!rec->ts_ns_valid)
		return;
	begin_event(e, "i");
	fxtrace_out_str(out, ",\"name\":\"log\",\"cat\":\"log\",\"s\":\"t\",\"ts\":");
	json_us(out, rec->ts_ns);
	json_thread(out, rec->thread.pid, rec->thread.tid);
	fxtrace_out_str(out, ",\"args\":{\"message\":");
	fxtrace_out_json_fxt_string(out, &rec->name);
	fxtrace_out_str(out, "}}");
}

static void json_cpu(struct fxtrace_out *out, uint32_t cpu)
{
	json_thread(out, EXPORT_CPU_PID, EXPORT_CPU_TID + cpu);
}

/* The running span that a switch at rec ends on its CPU. */
static void export_span(struct export *e, const struct fxt_record *rec,
			const struct cpu_track *t)
{
	struct fxtrace_out *out = e->out;
	struct fxt_string name;
	uint64_t pid = t->pid;

	begin_event(e, "X");
	fxtrace_out_str(out, ",\"name\":");
	if (fxt_reader_thread_name(e->r, t->tid, &name, pid ? NULL : &pid) &&
	    name.ptr) {
		fxtrace_out_json_fxt_string(out, &name);
	} else {
		fxtrace_out_str(out, "\"tid ");
		fxtrace_out_u64(out, t->tid);
		fxtrace_out_char(out, '"');
	}
	fxtrace_out_str(out, ",\"cat\":\"sched\",\"ts\":");
	json_us(out, t->since);
	fxtrace_out_str(out, ",\"dur\":");
	json_us(out, rec->ts_ns - t->since);
	json_cpu(out, rec->cpu);
	fxtrace_out_str(out, ",\"args\":{\"tid\":");
	fxtrace_out_u64(out, t->tid);
	if (pid) {
		fxtrace_out_str(out, ",\"pid\":");
		fxtrace_out_u64(out, pid);
	}
	fxtrace_out_str(out, "}}");
}

static void export_sched(struct export *e, const struct fxt_record *rec)
{
	struct fxtrace_out *out = e->out;
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
		fxtrace_out_str(out, ",\"name\":\"thread_name\"");
		json_cpu(out, rec->cpu);
		fxtrace_out_str(out, ",\"args\":{\"name\":\"CPU ");
		fxtrace_out_u64(out, rec->cpu);
		fxtrace_out_str(out, "\"}}");
		t->since = -1;
	}
	if (rec->subtype == FXT_SCHED_WAKEUP) {
		begin_event(e, "i");
		fxtrace_out_str(out, ",\"name\":\"sched_wakeup\",\"cat\":\"sched\",\"s\":\"t\",\"ts\":");
		json_us(out, rec->ts_ns);
		json_cpu(out, rec->cpu);
		fxtrace_out_str(out, ",\"args\":{\"tid\":");
		fxtrace_out_u64(out, rec->thread.tid);
		json_args_inner(out, rec);
		fxtrace_out_str(out, "}}");
		return;
	}
	/* A switch ends the span of the thread switched in before it. */
	if (t->since >= 0 && t->tid && t->since <= rec->ts_ns)
		export_span(e, rec, t);
	begin_event(e, "i");
	fxtrace_out_str(out, ",\"name\":\"sched_switch\",\"cat\":\"sched\",\"s\":\"t\",\"ts\":");
	json_us(out, rec->ts_ns);
	json_cpu(out, rec->cpu);
	fxtrace_out_str(out, ",\"args\":{\"prev_tid\":");
	fxtrace_out_u64(out, rec->out.tid);
	fxtrace_out_str(out, ",\"prev_state\":\"");
	fxtrace_out_str(out, fxt_thread_state_name(rec->out_state));
	fxtrace_out_str(out, "\",\"next_tid\":");
	fxtrace_out_u64(out, rec->in.tid);
	if (rec->subtype == FXT_SCHED_LEGACY_CONTEXT_SWITCH) {
		fxtrace_out_str(out, ",\"prev_pid\":");
		fxtrace_out_u64(out, rec->out.pid);
		fxtrace_out_str(out, ",\"next_pid\":");
		fxtrace_out_u64(out, rec->in.pid);
		fxtrace_out_str(out, ",\"prev_prio\":");
		fxtrace_out_u64(out, rec->out_prio);
		fxtrace_out_str(out, ",\"next_prio\":");
		fxtrace_out_u64(out, rec->in_prio);
	}
	json_args_inner(out, rec);
	fxtrace_out_str(out, "}}");
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
	if (!e->error && e->out->write_failed)
		return FXTRACE_WALK_OUTPUT_GONE;
	return e->error;
}

int fxtrace_export_json(FILE *file, struct fxt_reader *r, fxt_read_fn *read,
			void *read_ctx)
{
	struct fxtrace_out out;
	struct export e = { .out = &out, .first = true, .r = r };
	int ret;

	fxtrace_out_init(&out, file);
	fxt_map_init(&e.cpus, sizeof(struct cpu_track));
	fxtrace_out_str(&out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	ret = fxtrace_walk(r, read, read_ctx, export_record, &e);
	if (e.cpus.count) {
		begin_event(&e, "M");
		fxtrace_out_str(&out, ",\"name\":\"process_name\",\"pid\":");
		fxtrace_out_u64(&out, EXPORT_CPU_PID);
		fxtrace_out_str(&out, ",\"tid\":0,\"args\":{\"name\":\"CPUs\"}}");
	}
	fxtrace_out_str(&out, "\n]}\n");
	if (out.failed && !ret)
		ret = -ENOMEM;
	fxtrace_out_free(&out);
	fxt_map_free(&e.cpus);
	return ret;
}

int cmd_export(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "input", required_argument, NULL, 'i' },
		{ "memory-limit", required_argument, NULL, FXTRACE_OPT_MEMORY_LIMIT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t memory_limit = FXTRACE_MEMORY_LIMIT_AUTO;
	const char *output = NULL, *input = NULL, *path;
	struct fxtrace_output out;
	struct fxtrace_input in;
	int opt, ret, status;
	FILE *file = stdout;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":f:o:i:h", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			input = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "json"))
				return fxtrace_usage_error("export",
							   "format '%s' is not known (json is)",
							   optarg);
			break;
		case 'o':
			if (!*optarg)
				return fxtrace_usage_error("export",
							   "-o/--output needs a file name, not ''");
			output = optarg;
			break;
		case FXTRACE_OPT_MEMORY_LIMIT:
			ret = fxtrace_memory_limit_option("export", optarg,
							  &memory_limit);
			if (ret)
				return ret;
			break;
		case 'h':
			return fxtrace_cmd_help("export");
		default:
			return fxtrace_option_error("export", opt, argv, options);
		}
	}
	path = fxtrace_trace_path("export", argc, argv, input);
	if (!path)
		return EXIT_USAGE;
	ret = fxtrace_input_open(&in, "export", path, memory_limit);
	if (ret)
		return ret;
	if (output && strcmp(output, "-")) {
		if (fxtrace_output_open(&out, &in, output)) {
			fxtrace_input_close(&in, 0);
			return 1;
		}
		file = out.file;
	}
	ret = fxtrace_export_json(file, in.reader, fxtrace_read_source, &in.src);
	status = fxtrace_input_close(&in, ret);
	/* The standard output is main()'s to check (fxtrace_output_status()). */
	if (file == stdout)
		return status;
	/* Cut short, the JSON does not replace an earlier export. */
	if (fxtrace_output_close(&out, "export", ret >= 0))
		return 1;
	return status;
}
