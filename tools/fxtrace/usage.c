// SPDX-License-Identifier: GPL-2.0
/*
 * usage.c - the one help table of fxtrace: a one-line summary for
 * `fxtrace -h` and the full help for `fxtrace CMD -h`, defaults included.
 * Documentation/fxtrace.rst says the same at more length.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fxtrace.h"

const struct fxtrace_help fxtrace_help[] = {
	{ "check", "verify that a file is well-formed FXT",
	  "usage: fxtrace check [--strict] [--quiet] [--memory-limit=SIZE] [FILE]\n"
	  "       fxtrace check --list-rules\n"
	  "\n"
	  "Check FILE (\"-\" for stdin; " FXTRACE_DEFAULT_TRACE ", what fxtrace record writes,\n"
	  "if left out) against the FXT specification and print every problem as\n"
	  "OFFSET: SEVERITY: RULE: MESSAGE, then a summary line.\n"
	  "Errors break the specification; warnings are legal FXT that Perfetto\n"
	  "drops or shows wrongly; notes are worth knowing (unbalanced durations,\n"
	  "extension words) and never fail the check.\n"
	  "\n"
	  "  -s, --strict      count warnings as errors [default: off]\n"
	  "  -q, --quiet       print only the summary line [default: off]\n"
	  "  -l, --list-rules  print every rule with its severity and exit\n"
	  "  -p, --perfetto[=fxt|json]\n"
	  "                    import FILE (fxt) or its JSON export (json) with\n"
	  "                    Perfetto's trace processor ($FXTRACE_TRACE_PROCESSOR,\n"
	  "                    else trace_processor_shell on PATH) and compare its\n"
	  "                    tables with the decoder's counts [default: fxt]\n"
	  "  -i, --input=FILE  the trace to read, as FILE [default: " FXTRACE_DEFAULT_TRACE "]\n"
	  "      --memory-limit=SIZE\n"
	  "                    memory for string and thread tables and names\n"
	  "                    (K or M; 0: none); past it the command fails\n"
	  "                    [default: 4 x the file's size, at least 256M]\n"
	  "  -h, --help        this help\n"
	  "\n"
	  "The whole file is checked, as Perfetto reads it.\n"
	  "\n"
	  "Exit status: 0 well formed (--perfetto: Perfetto agrees), 1 errors\n"
	  "(or warnings with --strict; --perfetto: the import failed or disagrees;\n"
	  "or FILE cannot be read, or not within the memory limit),\n"
	  "2 usage error, 3 a file fxtrace-drain did not finish, well formed up\n"
	  "to its flush watermark only ('fxtrace recover FILE' cuts it there),\n"
	  "4 no trace processor to run (--perfetto).\n" },
	{ "dump", "print one line per record, in time order",
	  "usage: fxtrace dump [--ticks] [--hex] [--file-order] [--memory-limit=SIZE]\n"
	  "                    [SELECTION] [FILE]\n"
	  "\n"
	  "Print each record of FILE (\"-\" for stdin; " FXTRACE_DEFAULT_TRACE " if left out) on\n"
	  "one line: offset, time, process/thread (named from kernel object\n"
	  "records) or CPU, record type, category:name and arguments, sorted by\n"
	  "time (a record without a time stays after the timed record before\n"
	  "it).  Errors in the trace go to stderr.\n"
	  "\n"
	  "  -t, --ticks          print times in ticks [default: seconds.nanoseconds]\n"
	  "  -x, --hex            print each record's words under its line [default: off]\n"
	  "      --file-order     records as stored in FILE [default: time order]\n"
	  "  -i, --input=FILE     the trace to read, as FILE [default: " FXTRACE_DEFAULT_TRACE "]\n"
	  "      --memory-limit=SIZE\n"
	  "                       memory for string and thread tables and names\n"
	  "                       (K or M; 0: none); past it the command fails\n"
	  "                       [default: 4 x the file's size, at least 256M]\n"
	  "  -h, --help           this help\n"
	  "\n"
	  "SELECTION (every filter given must pass) [default: every record]:\n"
	  "  -p, --pid=PIDS       records of these processes' threads, including\n"
	  "                       the context switches and wakeups naming them\n"
	  "      --tid=TIDS       the same for threads\n"
	  "  -c, --category=GLOBS events whose category matches a glob (app,kernel:*)\n"
	  "      --name=GLOBS     events whose name matches a glob (read,write*)\n"
	  "      --since=T        records at or after T: seconds (1.5) or N with\n"
	  "                       a unit ns, us, ms, s (2200ns, 2.2us)\n"
	  "      --until=T        records at or before T\n"
	  "      --time=T1,T2     --since=T1 --until=T2; either may be empty\n"
	  "\n"
	  "Exit status: 0, 1 if the trace has errors or cannot be read or stdout\n"
	  "cannot be written, 2 usage error.\n" },
	{ "stats", "summarize a trace: counts, threads, CPUs, time span, drops",
	  "usage: fxtrace stats [--memory-limit=SIZE] [FILE]\n"
	  "\n"
	  "Print counts per record and event type, per thread and per CPU, the\n"
	  "time span, the named processes and threads, and the drops the trace\n"
	  "reports (provider \"buffer full\" events; counters named fxtrace:dropped)\n"
	  "of FILE (" FXTRACE_DEFAULT_TRACE " if left out).\n"
	  "\n"
	  "  -i, --input=FILE     the trace to read, as FILE [default: " FXTRACE_DEFAULT_TRACE "]\n"
	  "      --memory-limit=SIZE\n"
	  "                       memory for string and thread tables and names\n"
	  "                       (K or M; 0: none); past it the command fails\n"
	  "                       [default: 4 x the file's size, at least 256M]\n"
	  "  -h, --help           this help\n"
	  "\n"
	  "Exit status: 0, 1 if the trace has errors or cannot be read or stdout\n"
	  "cannot be written, 2 usage error.\n" },
	{ "report", "per-name, per-thread, per-CPU and syscall figures; HTML plots",
	  "usage: fxtrace report [--sort=KEYS] [--top=N] [--format=text|json]\n"
	  "                      [--html=OUT.html] [--memory-limit=SIZE]\n"
	  "                      [SELECTION] [FILE]\n"
	  "\n"
	  "Answer what a trace (FILE, " FXTRACE_DEFAULT_TRACE " if left out) says without a\n"
	  "browser, in nanoseconds:\n"
	  "- slices per category:name (a duration end closes its thread's innermost\n"
	  "  begin; complete events count too): count, total, self (total minus\n"
	  "  the slices nested directly inside), mean, p50, p99 (nearest rank), max;\n"
	  "- the same for kernel:syscall slices, per syscall;\n"
	  "- the longest slices, with thread and start;\n"
	  "- per thread and process, from the scheduling records: CPU time, runs,\n"
	  "  time blocked, time preempted, wakeups and wakeup-to-run latency;\n"
	  "  per CPU busy and idle;\n"
	  "- drops per buffer (fxtrace:dropped counters) and provider buffer-full events.\n"
	  "Every figure agrees with what `fxtrace dump` shows.\n"
	  "\n"
	  "  -s, --sort=KEYS       comma-separated: count, total, self, mean, p50,\n"
	  "                        p99, max or name sort the slice and syscall\n"
	  "                        tables; cpu, blocked, wakeups, latency or tid\n"
	  "                        the thread and process tables\n"
	  "                        [default: total,cpu]\n"
	  "  -n, --top=N           longest slices listed [default: 10]\n"
	  "  -f, --format=FORMAT   text or json [default: text]\n"
	  "  -H, --html=OUT        also write a self-contained HTML page: timeline\n"
	  "                        of CPUs and threads, latency histograms (not\n"
	  "                        over a trace fxtrace-drain wrote, nor a spool)\n"
	  "                        [default: none]\n"
	  "  -i, --input=FILE      the trace to read, as FILE [default: " FXTRACE_DEFAULT_TRACE "]\n"
	  "      --memory-limit=SIZE\n"
	  "                        memory for string and thread tables and names\n"
	  "                        (K or M; 0: none); past it the command fails\n"
	  "                        [default: 4 x the file's size, at least 256M]\n"
	  "  -h, --help            this help\n"
	  "\n"
	  "SELECTION: the report of the records `fxtrace dump SELECTION` shows\n"
	  "(see fxtrace dump -h; with --pid/--tid the thread table lists the\n"
	  "selected threads only) [default: every record]:\n"
	  "  -p, --pid=PIDS  --tid=TIDS  -c, --category=GLOBS  --name=GLOBS\n"
	  "  --since=T  --until=T  --time=T1,T2\n"
	  "\n"
	  "Exit status: 0, 1 if the trace has errors or cannot be read or the\n"
	  "output cannot be written, 2 usage error.\n" },
	{ "export", "convert a trace to Chrome trace-event JSON",
	  "usage: fxtrace export [--format=json] [-o OUT] [--memory-limit=SIZE]\n"
	  "                      [FILE]\n"
	  "\n"
	  "Write FILE (" FXTRACE_DEFAULT_TRACE " if left out) as Chrome trace-event JSON\n"
	  "(chrome://tracing, Perfetto):\n"
	  "events with ts in microseconds, process and thread names as metadata;\n"
	  "context switches and wakeups as instants on CPU tracks (process \"CPUs\",\n"
	  "pid 2147483647, thread \"CPU N\"), with the time each thread runs as\n"
	  "slices there.  Blobs and userspace objects are left out.\n"
	  "\n"
	  "  -f, --format=FORMAT  output format; only json [default: json]\n"
	  "  -o, --output=OUT     write to OUT [default: stdout]\n"
	  "  -i, --input=FILE     the trace to read, as FILE [default: " FXTRACE_DEFAULT_TRACE "]\n"
	  "      --memory-limit=SIZE\n"
	  "                       memory for string and thread tables and names\n"
	  "                       (K or M; 0: none); past it the command fails\n"
	  "                       [default: 4 x the file's size, at least 256M]\n"
	  "  -h, --help           this help\n"
	  "\n"
	  "Exit status: 0, 1 if the trace has errors or cannot be read or written,\n"
	  "2 usage error.\n" },
	{ "info", "show the ABI of this fxtrace and of the loaded module",
	  "usage: fxtrace info\n"
	  "\n"
	  "Print the ABI version fxtrace was built with and, when fxtrace.ko is\n"
	  "loaded, the version /dev/fxtrace reports.\n"
	  "\n"
	  "  -h, --help  this help\n"
	  "\n"
	  "Exit status: 0 when the module is loaded and compatible, 1 otherwise,\n"
	  "2 usage error.\n" },
	{ "list", "list the kernel categories, tracepoints, probe kinds, user categories",
	  "usage: fxtrace list [--tracefs=DIR] [kernel|tracepoints [GLOB]|probes|user]\n"
	  "\n"
	  "What fxtrace record can record here, one section per kind, or only the\n"
	  "section named: the module's kernel categories (-e NAME); the\n"
	  "tracepoints of the running kernel, from tracefs's available_events,\n"
	  "those matching GLOB ('sched:*') if given (-e SUBSYSTEM:EVENT); the\n"
	  "probe kinds and their syntax (-P SPEC); and the user categories: the\n"
	  "session's state and category list, then every category programs have\n"
	  "registered with the module: name, slot, enabled or disabled now.\n"
	  "\n"
	  "  -t, --tracefs=DIR  where tracefs is mounted [default:\n"
	  "                     /sys/kernel/tracing, else /sys/kernel/debug/tracing]\n"
	  "  -h, --help         this help\n"
	  "\n"
	  "Exit status: 0; 1 if the one section asked for cannot be read (no\n"
	  "tracefs, no module); 2 usage error.\n" },
	{ "record", "trace a command, or the whole system, into a .fxt file",
	  "usage: fxtrace record [options] -- COMMAND [ARGS...]\n"
	  "       fxtrace record [options] -a\n"
	  "       fxtrace record [options] -p PID\n"
	  "\n"
	  "Start a session with fxtrace-drain (next to this fxtrace), run COMMAND\n"
	  "and stop when it exits; with -a or -p and no COMMAND, stop on SIGINT\n"
	  "(Ctrl-C), SIGTERM or SIGHUP (not under nohup).  Needs /dev/fxtrace\n"
	  "(fxtrace.ko) and CAP_PERFMON.\n"
	  "\n"
	  "What is recorded: the libfxtrace events of every traced program (user\n"
	  "categories: all unless -c names some), the kernel categories sched,\n"
	  "task and syscall unless -e names others (syscalls of COMMAND or PID\n"
	  "only, unless -a), and the tracepoints and probes named.  -e never\n"
	  "turns user events off; -c never turns kernel events off.\n"
	  "\n"
	  "  -o, --output=FILE            the trace, replaced (not an\n"
	  "                               unfinished one, nor a spool)\n"
	  "                               [default: fxtrace.fxt]\n"
	  "  -m, --mode=MODE              streaming, oneshot or circular\n"
	  "                               [default: streaming]\n"
	  "  -b, --cpu-buffer-size=SIZE   per-CPU buffer, K/M suffixes, a multiple\n"
	  "                               of 4K from 16K to 256M [default: 1M]\n"
	  "  -B, --task-buffer-size=SIZE  per-thread buffer, same limits [default: 1M]\n"
	  "  -c, --categories=GLOBS       user categories, comma-separated globs\n"
	  "                               ('app*,net'), or none [default: *]\n"
	  "  -e, --event=NAMES            kernel events, comma-separated, repeatable:\n"
	  "                               sched, task, irq, syscall, all, none, or a\n"
	  "                               tracepoint SUBSYSTEM:EVENT with its fields\n"
	  "                               as arguments [default: sched,task,syscall]\n"
	  "      --filter=EXPR            record the last -e tracepoint only where\n"
	  "                               EXPR holds: FIELD OP NUMBER joined by &&,\n"
	  "                               OP one of == != < <= > >=\n"
	  "  -P, --probe=PROBE            a dynamic probe, repeatable: kprobe:FUNC,\n"
	  "                               kretprobe:FUNC, uprobe:PATH:SYMBOL,\n"
	  "                               uretprobe:PATH:SYMBOL,\n"
	  "                               usdt:PATH:PROVIDER:NAME or\n"
	  "                               tracepoint:SUBSYSTEM:EVENT, then captures\n"
	  "                               (see Documentation/probes.rst)\n"
	  "  -p, --pid=PID                syscalls, tracepoints and probe hits of PID\n"
	  "                               only, libfxtrace events of PID and its\n"
	  "                               descendants only; with COMMAND the default\n"
	  "                               is COMMAND's process\n"
	  "  -a, --all                    syscalls, tracepoints and probe hits of every\n"
	  "                               process; without COMMAND, trace until SIGINT\n"
	  "  -u, --user=USER              run COMMAND as USER (name or uid): its\n"
	  "                               uid, group and supplementary groups, not\n"
	  "                               root's [default: record's own]\n"
	  "  -C, --config=FILE            fxtrace-drain's config file (key = value)\n"
	  "  -r, --rt-priority=PRIO       run the drainer SCHED_FIFO at PRIO (1-99;\n"
	  "                               COMMAND keeps its own), so that busy CPUs\n"
	  "                               do not delay saves [default: off]\n"
	  "      --shared-flows           join flows by id whatever the user of their\n"
	  "                               process (a client and a daemon of another\n"
	  "                               user): any producer can then step, end or\n"
	  "                               hold open any user's flows; for sessions\n"
	  "                               whose producers are all trusted\n"
	  "                               [default: flows join within a user]\n"
	  "      --no-shared-flows        flows join within a user, whatever the\n"
	  "                               config file (-C) says\n"
	  "      --snapshot-retired=SIZE  -m circular: keep copies of exited threads'\n"
	  "                               buffers for SIGUSR1's snapshots, the most\n"
	  "                               recent first, in up to SIZE bytes (0: none)\n"
	  "                               [default: 64M, or two copies of a -B\n"
	  "                               buffer if more]\n"
	  "  -q, --quiet                  no progress, summary or final message\n"
	  "  -v, --verbose                describe invalid records, log each save\n"
	  "  -h, --help                   this help\n"
	  "\n"
	  "A kernel:NAME glob in -c is the same as -e NAME.  Unknown kernel\n"
	  "categories and tracepoints are usage errors; 'fxtrace list' shows what\n"
	  "exists.  Options on the command line win over the config file; -o\n"
	  "always does.  A probe that cannot attach is named with the reason, and\n"
	  "tracing goes on without it.\n"
	  "\n"
	  "Exit status: COMMAND's once the trace is written (128+N if signal N\n"
	  "killed it, 127 if it could not be run), 0 without COMMAND; 128+N if\n"
	  "signal N stopped the trace and COMMAND runs on; 1 if tracing failed;\n"
	  "2 usage error.\n" },
	{ "recover", "cut a trace the drainer did not finish at its flush watermark",
	  "usage: fxtrace recover [-o OUT] FILE\n"
	  "\n"
	  "A file fxtrace-drain writes says, in its second record, the offset\n"
	  "below which every byte was written (the flush watermark).  When the\n"
	  "drainer is killed, bytes after it may be holes.  Cut FILE there, in\n"
	  "place, or copy what is below it to OUT.  dump, stats, report and\n"
	  "export read such a file up to the watermark too; check reads it all\n"
	  "(exit 3).\n"
	  "\n"
	  "FILE may also be the spool (TRACE.spool) a program traced without the\n"
	  "module left when it crashed: its threads' buffers become a trace in\n"
	  "OUT (default: FILE without .spool); a buffer that does not decode\n"
	  "cleanly is left out and named.\n"
	  "\n"
	  "  -o, --output=OUT  write the recovered trace to OUT, leave FILE\n"
	  "                    (not a trace fxtrace-drain wrote, nor a spool)\n"
	  "                    [default: cut FILE in place]\n"
	  "  -h, --help        this help\n"
	  "\n"
	  "Exit status: 0 recovered (or already complete), 1 FILE has no flush\n"
	  "mark, is shorter than it says, or cannot be written; 2 usage error.\n" },
	{ "stop", "end the session a killed drainer left (an orphan)",
	  "usage: fxtrace stop [-o FILE]\n"
	  "\n"
	  "A session whose fxtrace-drain was killed stays, stopped and orphaned,\n"
	  "and no new session can start until it is adopted or ended.  Adopt it\n"
	  "and end it; with -o, first write what each of its buffers still holds\n"
	  "to FILE (a streaming buffer's halves may repeat records the killed\n"
	  "drainer had written: its own file, cut by 'fxtrace recover', is the\n"
	  "trace up to its last flush).  A session with a running drainer is\n"
	  "left alone: stop that drainer with SIGINT.\n"
	  "\n"
	  "  -o, --output=FILE  save the orphan's buffers to FILE first (not a\n"
	  "                     trace fxtrace-drain wrote, nor a libfxtrace\n"
	  "                     spool: those are refused)\n"
	  "  -h, --help         this help\n"
	  "\n"
	  "Exit status: 0 ended (or no session), 1 the session has a drainer or\n"
	  "cannot be adopted or saved, or no /dev/fxtrace; 2 usage error.\n" },
	{ NULL, NULL, NULL },
};

static const struct fxtrace_help *find_help(const char *cmd)
{
	const struct fxtrace_help *h;

	for (h = fxtrace_help; h->name; h++)
		if (!strcmp(h->name, cmd))
			return h;
	return NULL;
}

void fxtrace_list_commands(FILE *out)
{
	const struct fxtrace_help *h;

	fprintf(out, "usage: fxtrace COMMAND [OPTIONS] [ARGS]\n\n"
		     "Commands:\n");
	for (h = fxtrace_help; h->name; h++)
		fprintf(out, "  %-8s %s\n", h->name, h->summary);
	fprintf(out, "\n'fxtrace COMMAND -h' shows a command's options.\n");
}

int fxtrace_cmd_help(const char *cmd)
{
	const struct fxtrace_help *h = find_help(cmd);

	if (!h) {
		fprintf(stderr, "fxtrace: '%s' is not a command.\n", cmd);
		return EXIT_USAGE;
	}
	fputs(h->usage, stdout);
	return 0;
}

/*
 * "-" is perf record's standard output, but a trace file is never written
 * through it (record's is COMMAND's; /dev/stdout is a symbolic link):
 * here it would be a file named "-", which `fxtrace stats -` does not read.
 */
int fxtrace_trace_output_error(const char *cmd, const char *out)
{
	if (!*out)
		return fxtrace_usage_error(cmd, "-o/--output needs a file name, not ''");
	if (!strcmp(out, "-"))
		return fxtrace_usage_error(cmd, "-o -: a trace is not written to standard output; name a file ('./-' for one named '-')");
	return 0;
}

int fxtrace_usage_error(const char *cmd, const char *fmt, ...)
{
	const struct fxtrace_help *h = find_help(cmd);
	const char *end;
	va_list ap;

	fprintf(stderr, "fxtrace %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (h) {
		/* The synopsis: the help up to its first blank line. */
		end = strstr(h->usage, "\n\n");
		fprintf(stderr, "%.*s\n", (int)(end ? end - h->usage :
					       (long)strlen(h->usage)),
			h->usage);
	}
	fprintf(stderr, "Try 'fxtrace %s -h'.\n", cmd);
	return EXIT_USAGE;
}

/*
 * A long option getopt_long() refused with optopt 0 (unknown or ambiguous),
 * or with its own code (a value given to an option that takes none): say
 * which, from the command's table.
 */
static int long_option_error(const char *cmd, const char *arg,
			     const struct option *options)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option *o, *match = NULL;
	char names[256];
	size_t used = 0;
	int matches = 0;

	for (o = options; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		if (strlen(o->name) == len) {
			match = o;
			matches = 1;
			break;
		}
		if (!match || match->val != o->val)
			matches++;
		match = o;
	}
	if (matches > 1) {
		for (o = options; o->name; o++)
			if (!strncmp(o->name, name, len) && used < sizeof(names))
				used += (size_t)snprintf(names + used,
							 sizeof(names) - used,
							 "%s--%s", used ? ", " : "",
							 o->name);
		return fxtrace_usage_error(cmd, "option '--%.*s' is ambiguous: %s",
					   (int)len, name, names);
	}
	if (matches && eq && match->has_arg == no_argument)
		return fxtrace_usage_error(cmd, "option '--%s' takes no value",
					   match->name);
	return fxtrace_usage_error(cmd, "unknown option '%.*s'",
				   (int)(len + 2), arg);
}

int fxtrace_option_error(const char *cmd, int opt, char **argv,
			 const struct option *options)
{
	const char *arg = argv[optind - 1];

	/*
	 * A long option without its value sets optopt to its code, which
	 * is another option's letter or no character at all (--since).
	 */
	if (opt == ':')
		return optopt && strncmp(arg, "--", 2) ?
			fxtrace_usage_error(cmd, "option '-%c' needs a value", optopt) :
			fxtrace_usage_error(cmd, "option '%s' needs a value", arg);
	if (!strncmp(arg, "--", 2) && arg[2])
		return long_option_error(cmd, arg, options);
	return optopt ? fxtrace_usage_error(cmd, "unknown option '-%c'", optopt)
		      : fxtrace_usage_error(cmd, "unknown option '%s'", arg);
}
