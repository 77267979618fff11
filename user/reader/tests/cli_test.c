// SPDX-License-Identifier: GPL-2.0
/*
 * cli_test - the fxtrace command (built next to this test, as
 * ../../bin/fxtrace) on small traces: the exact output of check, dump,
 * stats and export, exit statuses, help and usage errors, and the exported
 * JSON read back by `python3 -m json.tool`.
 *
 * The main input is example_trace (vectors.c, where its layout is drawn).
 * Runs in a temporary directory, so the file names in the output are fixed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flush_mark.h"
#include "vectors.h"


static char fxtrace[PATH_MAX];
static const char *stdout_path = "stdout.txt";	/* fxtrace's standard output */

struct run {
	int status;		/* exit status, or -1 */
	char out[65536];
	char err[16384];
};

static struct run r;

static int write_words(const char *path, const uint64_t *words, size_t n)
{
	static unsigned char bytes[sizeof(((struct words *)0)->w)];
	FILE *f = fopen(path, "wb");

	words_to_le(words, n, bytes);
	if (!f || fwrite(bytes, 8, n, f) != n || fclose(f)) {
		printf("# cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* Run fxtrace with argv (NULL-terminated, argv[0] ignored) into r. */
static int run_fxtrace(const char *stdin_path, char *const argv[])
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int in = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
		int out = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int err = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 ||
		    dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(127);
		execv(fxtrace, argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	slurp("stdout.txt", r.out, sizeof(r.out));
	slurp("stderr.txt", r.err, sizeof(r.err));
	return 0;
}

#define RUN(...)                                                              \
	do {                                                                  \
		char *argv_[] = { "fxtrace", __VA_ARGS__, NULL };             \
		ASSERT_EQ(0, run_fxtrace(NULL, argv_));                       \
	} while (0)

#define RUN_STDIN(path, ...)                                                  \
	do {                                                                  \
		char *argv_[] = { "fxtrace", __VA_ARGS__, NULL };             \
		ASSERT_EQ(0, run_fxtrace(path, argv_));                       \
	} while (0)

static const char commands[] =
	"usage: fxtrace COMMAND [OPTIONS] [ARGS]\n"
	"\n"
	"Commands:\n"
	"  check    verify that a file is well-formed FXT\n"
	"  dump     print one line per record, in time order\n"
	"  stats    summarize a trace: counts, threads, CPUs, time span, drops\n"
	"  report   per-name, per-thread, per-CPU and syscall figures; HTML plots\n"
	"  export   convert a trace to Chrome trace-event JSON\n"
	"  info     show the ABI of this fxtrace and of the loaded module\n"
	"  list     list the kernel categories, tracepoints, probe kinds, user categories\n"
	"  record   trace a command, or the whole system, into a .fxt file\n"
	"  recover  cut a trace the drainer did not finish at its flush watermark\n"
	"  stop     end the session a killed drainer left (an orphan)\n"
	"\n"
	"'fxtrace COMMAND -h' shows a command's options.\n";

static int test_command_list(void)
{
	char *none[] = { "fxtrace", NULL };

	ASSERT_EQ(0, run_fxtrace(NULL, none));
	ASSERT_EQ(0, r.status);
	ASSERT_STR(commands, r.out);
	ASSERT_STR("", r.err);
	RUN("-h");
	ASSERT_EQ(0, r.status);
	ASSERT_STR(commands, r.out);
	RUN("bogus");
	ASSERT_EQ(2, r.status);
	ASSERT_STR("", r.out);
	ASSERT_PREFIX("fxtrace: 'bogus' is not a command.\n\nusage:", r.err);
	return 0;
}

static int test_command_help(void)
{
	static const char *const cmds[] = { "check", "dump", "stats", "report",
					    "export" };
	char synopsis[64];
	size_t i;

	for (i = 0; i < N_WORDS(cmds); i++) {
		RUN((char *)cmds[i], "-h");
		ASSERT_EQ(0, r.status);
		snprintf(synopsis, sizeof(synopsis), "usage: fxtrace %s ",
			 cmds[i]);
		ASSERT_PREFIX(synopsis, r.out);
		ASSERT_SUBSTR("  -h, --help", r.out);
		/* Every option with a value or a switch says its default. */
		ASSERT_SUBSTR("[default", r.out);
		ASSERT_STR("", r.err);
	}
	RUN("check", "--help");
	ASSERT_EQ(0, r.status);
	ASSERT_SUBSTR("  -s, --strict      count warnings as errors [default: off]\n", r.out);
	RUN("export", "-h");
	ASSERT_SUBSTR("  -o, --output=OUT     write to OUT [default: stdout]\n", r.out);
	return 0;
}

/*
 * Without FILE, the readers read fxtrace.fxt, what `fxtrace record` writes,
 * as perf report reads perf.data: the same output as with it named.
 */
static int test_default_file(void)
{
	static const char *const cmds[] = { "check", "dump", "stats", "report",
					    "export" };
	char named[sizeof(r.out)];
	size_t i;

	for (i = 0; i < N_WORDS(cmds); i++) {
		RUN((char *)cmds[i]);
		ASSERT_EQ(1, r.status);
		ASSERT_STR("", r.out);
		ASSERT_SUBSTR(": cannot open fxtrace.fxt: No such file or directory (try 'fxtrace record' first)\n",
			      r.err);
	}
	ASSERT_EQ(0, link("t.fxt", "fxtrace.fxt"));
	for (i = 0; i < N_WORDS(cmds); i++) {
		RUN((char *)cmds[i], "fxtrace.fxt");
		ASSERT_EQ(0, r.status);
		memcpy(named, r.out, sizeof(named));
		RUN((char *)cmds[i]);
		ASSERT_EQ(0, r.status);
		ASSERT_STR(named, r.out);
		ASSERT_STR("", r.err);
	}
	ASSERT_EQ(0, unlink("fxtrace.fxt"));
	/* -i FILE, as perf report and trace-cmd report take it; not both. */
	for (i = 0; i < N_WORDS(cmds); i++) {
		RUN((char *)cmds[i], "t.fxt");
		ASSERT_EQ(0, r.status);
		memcpy(named, r.out, sizeof(named));
		RUN((char *)cmds[i], "-i", "t.fxt");
		ASSERT_EQ(0, r.status);
		ASSERT_STR(named, r.out);
		RUN((char *)cmds[i], "--input=t.fxt", "t.fxt");
		ASSERT_EQ(2, r.status);
		ASSERT_SUBSTR(": -i and FILE name two traces\n", r.err);
	}
	return 0;
}

static int test_usage_errors(void)
{
	RUN("check", "t.fxt", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_STR("fxtrace check: one FILE only\n"
		   "usage: fxtrace check [--strict] [--quiet] [--memory-limit=SIZE] [FILE]\n"
		   "       fxtrace check --list-rules\n"
		   "Try 'fxtrace check -h'.\n", r.err);
	ASSERT_STR("", r.out);
	RUN("check", "--nope", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace check: unknown option '--nope'\n", r.err);
	RUN("dump", "-z", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace dump: unknown option '-z'\n", r.err);
	RUN("dump", "t.fxt", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace dump: one FILE only\n", r.err);
	RUN("export", "--format=xml", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace export: format 'xml' is not known (json is)\n", r.err);
	RUN("export", "t.fxt", "-o");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace export: option '-o' needs a value\n", r.err);
	RUN("stats", "t.fxt", "t.fxt");
	ASSERT_EQ(2, r.status);
	/* An empty output name: the option's value is wrong, not the file. */
	RUN("export", "-o", "", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace export: -o/--output needs a file name, not ''\n", r.err);
	RUN("report", "--html=", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace report: --html needs a file name, not ''\n", r.err);
	ASSERT_STR("", r.out);
	RUN("recover", "--output=", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace recover: -o/--output needs a file name, not ''\n", r.err);
	RUN("stop", "-o", "");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace stop: -o/--output needs a file name, not ''\n", r.err);
	RUN("record", "-o", "", "--", "true");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace record: -o/--output needs a file name, not ''\n", r.err);
	return 0;
}

static int test_missing_file(void)
{
	RUN("check", "missing.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_STR("", r.out);
	ASSERT_STR("fxtrace check: cannot open missing.fxt: No such file or directory\n",
		   r.err);
	RUN("export", "-o", "no/such/dir.json", "t.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_STR("fxtrace export: cannot create no/such/dir.json: No such file or directory\n",
		   r.err);
	return 0;
}

static const char check_output[] =
	"0x000260: note: drops: provider 0 reports a full buffer: records were dropped\n"
	"0x000268: note: perfetto-unsupported: Perfetto ignores log records (noted once)\n";

static int test_check(void)
{
	char expected[1024];

	RUN("check", "t.fxt");
	ASSERT_EQ(0, r.status);
	snprintf(expected, sizeof(expected), "%s%s", check_output,
		 "t.fxt: 19 records, 0 errors, 0 warnings, 2 notes\n");
	ASSERT_STR(expected, r.out);
	ASSERT_STR("", r.err);
	RUN("check", "--strict", "t.fxt");
	ASSERT_EQ(0, r.status);
	RUN_STDIN("t.fxt", "check", "-");
	ASSERT_EQ(0, r.status);
	snprintf(expected, sizeof(expected), "%s%s", check_output,
		 "-: 19 records, 0 errors, 0 warnings, 2 notes\n");
	ASSERT_STR(expected, r.out);
	return 0;
}

static int test_check_strict(void)
{
	RUN("check", "warn.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR("0x000008: warning: sched-weight: context switch without int32 arguments incoming_weight and outgoing_weight; Perfetto cannot tell idle threads\n"
		   "warn.fxt: 2 records, 0 errors, 1 warning, 0 notes\n", r.out);
	RUN("check", "-s", "warn.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_STR("0x000008: error: sched-weight: context switch without int32 arguments incoming_weight and outgoing_weight; Perfetto cannot tell idle threads\n"
		   "warn.fxt: 2 records, 1 error, 0 warnings, 0 notes\n", r.out);
	/* Unbalanced durations are notes: --strict does not fail on them. */
	RUN("check", "--strict", "end-only.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR("0x000008: note: duration-unmatched-end: duration end on thread 2 (process 1) with no begin open (the trace may start inside it)\n"
		   "end-only.fxt: 2 records, 0 errors, 0 warnings, 1 note\n", r.out);
	return 0;
}

static int test_check_errors(void)
{
	RUN("check", "bad.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_STR("0x000008: error: thread-undefined: the thread refers to thread 9, which provider 0 has not defined\n"
		   "0x000008: error: string-undefined: the name refers to string 5, which provider 0 has not defined\n"
		   "bad.fxt: 2 records, 2 errors, 0 warnings, 0 notes\n", r.out);
	RUN("check", "--quiet", "bad.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_STR("bad.fxt: 2 records, 2 errors, 0 warnings, 0 notes\n", r.out);
	return 0;
}

static int test_list_rules(void)
{
	const char *p;
	int lines = 0;

	RUN("check", "--list-rules");
	ASSERT_EQ(0, r.status);
	for (p = r.out; *p; p++)
		lines += *p == '\n';
	ASSERT_EQ(FXT_RULE_COUNT, lines);
	ASSERT_PREFIX("magic-first              error    the trace does not start with the magic number record", r.out);
	ASSERT_SUBSTR("\nduration-unended         note     ", r.out);
	/* The slice rules together, the time-order note that qualifies them last. */
	ASSERT_SUBSTR("\nmisplaced-end            warning  ", r.out);
	ASSERT_SUBSTR(" (stat misplaced_end_event)\ncomplete-overlap         warning  ", r.out);
	ASSERT_SUBSTR(" (stat slice_drop_overlapping_complete_event)\ntime-order               note     ", r.out);
	/* Its flow ids too (check_flow()). */
	ASSERT_SUBSTR("\ntime-order               note     an event of a thread, of a flow id begun and not ended or of an async id with a begin open, older than its previous one in the file: Perfetto nests events in time order, the checks here in file order (reported once)\n", r.out);
	return 0;
}

/* Time order: the async end at 2.7 us comes after the flow begin at 2.3 us. */
static int test_dump(void)
{
	RUN("dump", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR(
	"0x000000                                            magic             0x16547846\n"
	"0x000008                                            init              1000000000 ticks/s\n"
	"0x000018                                            string            #1 \"app\"\n"
	"0x000028                                            kernel object     process 4660 \"demo\"\n"
	"0x000040                                            kernel object     thread 22136 \"main\" process=4660\n"
	"0x000070                                            thread            #1 4660/22136\n"
	"0x000088      0.000001000  4660/22136 main          duration begin    app:work k=\"v\"\n"
	"0x0000b8      0.000001000  4660/22136 main          instant           app:tick n=-2\n"
	"0x0000f0      0.000001500  4660/22136 main          counter           fxtrace:dropped id=1 n=3\n"
	"0x000130      0.000002000  4660/22136 main          duration end      app:work\n"
	"0x000148      0.000002100  4660/22136 main          duration complete app:step dur=500ns\n"
	"0x000168      0.000002200  4660/22136 main          async begin       app:req id=0x42\n"
	"0x0001a8      0.000002300  4660/22136 main          flow begin        app:flow id=0x7\n"
	"0x000188      0.000002700  4660/22136 main          async end         app:req id=0x42\n"
	"0x0001c8      0.000002800  4660/22136 main          flow end          app:flow id=0x7\n"
	"0x0001e8      0.000003000  cpu 3                    context switch    22136 (blocked) -> 39612 incoming_weight=0 outgoing_weight=0\n"
	"0x000238      0.000003100  cpu 3                    wakeup            22136 weight=1\n"
	"0x000260                                            provider event    provider 0 buffer full\n"
	"0x000268      0.000003200  4660/22136 main          log               \"hi \\\"there\\\"\\x0a\"\n"
		, r.out);
	ASSERT_STR("", r.err);
	return 0;
}

/* --file-order: the records as stored; the only two out of time order swap. */
static int test_dump_file_order(void)
{
	char sorted[sizeof(r.out)];
	char *a, *b;

	RUN("dump", "t.fxt");
	memcpy(sorted, r.out, sizeof(sorted));
	RUN("dump", "--file-order", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_EQ(strlen(sorted), strlen(r.out));
	a = strstr(r.out, "0x000188 ");
	b = strstr(r.out, "0x0001a8 ");
	ASSERT_TRUE(a);
	ASSERT_TRUE(b);
	ASSERT_CMP(a - r.out, <, b - r.out);
	a = strstr(sorted, "0x000188 ");
	b = strstr(sorted, "0x0001a8 ");
	ASSERT_TRUE(a);
	ASSERT_TRUE(b);
	ASSERT_CMP(b - sorted, <, a - sorted);
	/* With a thread filter (judged after the walk) too. */
	RUN("dump", "--file-order", "--tid=22136", "--name=req,flow", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR(
	"0x000168      0.000002200  4660/22136 main          async begin       app:req id=0x42\n"
	"0x000188      0.000002700  4660/22136 main          async end         app:req id=0x42\n"
	"0x0001a8      0.000002300  4660/22136 main          flow begin        app:flow id=0x7\n"
	"0x0001c8      0.000002800  4660/22136 main          flow end          app:flow id=0x7\n",
		   r.out);
	return 0;
}

static int test_dump_filters(void)
{
	/* A time window: records with a time in it, both ends included. */
	RUN("dump", "--since", "0.0000022", "--until", "2800ns", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR(
	"0x000168      0.000002200  4660/22136 main          async begin       app:req id=0x42\n"
	"0x0001a8      0.000002300  4660/22136 main          flow begin        app:flow id=0x7\n"
	"0x000188      0.000002700  4660/22136 main          async end         app:req id=0x42\n"
	"0x0001c8      0.000002800  4660/22136 main          flow end          app:flow id=0x7\n",
		   r.out);
	/* A time too large for int64 ns is said to be one. */
	RUN("dump", "--since", "9223372037", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace dump: '9223372037': a time up to 9223372036.854775807 s (INT64_MAX ns)\n", r.err);
	RUN("report", "--time", "1,9223372036854775808ns", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace report: '1,9223372036854775808ns': a time up to 9223372036.854775807 s (INT64_MAX ns)\n", r.err);
	RUN("dump", "--until", "9223372036.854775807", "t.fxt");
	ASSERT_EQ(0, r.status);
	RUN("dump", "--time", "3us,", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR(
	"0x0001e8      0.000003000  cpu 3                    context switch    22136 (blocked) -> 39612 incoming_weight=0 outgoing_weight=0\n"
	"0x000238      0.000003100  cpu 3                    wakeup            22136 weight=1\n"
	"0x000268      0.000003200  4660/22136 main          log               \"hi \\\"there\\\"\\x0a\"\n",
		   r.out);
	/* Category and name globs: events only. */
	RUN("dump", "-c", "fxtrace", "--name=w*,st?p", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR("", r.out);
	RUN("dump", "-c", "a*", "--name=w*,st?p", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR(
	"0x000088      0.000001000  4660/22136 main          duration begin    app:work k=\"v\"\n"
	"0x000130      0.000002000  4660/22136 main          duration end      app:work\n"
	"0x000148      0.000002100  4660/22136 main          duration complete app:step dur=500ns\n",
		   r.out);
	/*
	 * --tid: the thread's records, its kernel object, and the scheduling
	 * records naming it; 39612 is only switched to.
	 */
	RUN("dump", "--tid", "39612", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR(
	"0x0001e8      0.000003000  cpu 3                    context switch    22136 (blocked) -> 39612 incoming_weight=0 outgoing_weight=0\n",
		   r.out);
	/* --pid: 22136's process is known from its kernel object record. */
	RUN("dump", "--pid", "1,4660", "--name", "tick", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR(
	"0x0000b8      0.000001000  4660/22136 main          instant           app:tick n=-2\n",
		   r.out);
	RUN("dump", "-p", "4660", "--since", "2.9us", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR(
	"0x0001e8      0.000003000  cpu 3                    context switch    22136 (blocked) -> 39612 incoming_weight=0 outgoing_weight=0\n"
	"0x000238      0.000003100  cpu 3                    wakeup            22136 weight=1\n"
	"0x000268      0.000003200  4660/22136 main          log               \"hi \\\"there\\\"\\x0a\"\n",
		   r.out);
	/* The process of 22136 comes from records outside the window. */
	RUN("dump", "--pid", "4660", "--time", "3us,3.1us", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR(
	"0x0001e8      0.000003000  cpu 3                    context switch    22136 (blocked) -> 39612 incoming_weight=0 outgoing_weight=0\n"
	"0x000238      0.000003100  cpu 3                    wakeup            22136 weight=1\n",
		   r.out);
	RUN("dump", "--pid", "4661", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR("", r.out);
	/* Bad values are usage errors naming the option. */
	RUN("dump", "--pid", "x", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace dump: 'x': --pid wants process ids", r.err);
	RUN("dump", "--since", "1.5h", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace dump: '1.5h': --since wants a time", r.err);
	RUN("dump", "--time", "3,2", "t.fxt");
	ASSERT_EQ(2, r.status);
	ASSERT_PREFIX("fxtrace dump: the time window ends before it starts\n", r.err);
	RUN("dump", "--since", "0.0000000001", "t.fxt");
	ASSERT_EQ(2, r.status);
	return 0;
}

/* Writing stdout fails: dump and stats say so and exit 1. */
static int test_dump_full(void)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "%s dump t.fxt >/dev/full 2>full.txt",
		 fxtrace);
	ASSERT_EQ(1 << 8, system(cmd));
	slurp("full.txt", r.err, sizeof(r.err));
	ASSERT_STR("fxtrace dump: cannot write the standard output: No space left on device\n",
		   r.err);
	snprintf(cmd, sizeof(cmd), "%s stats t.fxt >/dev/full 2>full.txt",
		 fxtrace);
	ASSERT_EQ(1 << 8, system(cmd));
	slurp("full.txt", r.err, sizeof(r.err));
	ASSERT_STR("fxtrace stats: cannot write the standard output: No space left on device\n",
		   r.err);
	return 0;
}

static int test_dump_hex_and_errors(void)
{
	RUN("dump", "--hex", "warn.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR("0x000000                                            magic             0x16547846\n"
		   "         0016547846040010\n"
		   "0x000008      0.000002000  cpu 3                    context switch    22136 (blocked) -> 39612\n"
		   "         1000003000300048 00000000000007d0 0000000000005678 0000000000009abc\n",
		   r.out);
	/* Errors go to stderr and fail the command; warnings do not. */
	RUN("dump", "bad.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_STR("fxtrace dump: bad.fxt+0x000008: error: thread-undefined: the thread refers to thread 9, which provider 0 has not defined\n"
		   "fxtrace dump: bad.fxt+0x000008: error: string-undefined: the name refers to string 5, which provider 0 has not defined\n"
		   "fxtrace dump: bad.fxt has 2 errors; 'fxtrace check bad.fxt' tells more\n",
		   r.err);
	ASSERT_STR("0x000000                                            magic             0x16547846\n"
		   "0x000008      0.000000001  <thread 9>               instant           <undefined string 5>\n",
		   r.out);
	return 0;
}

static int test_stats(void)
{
	RUN("stats", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR("t.fxt\n"
		   "  records              19\n"
		   "  bytes                648\n"
		   "  time span            0.000001000 to 0.000003200 (2200 ns)\n"
		   "  problems             0 errors, 0 warnings, 2 notes\n"
		   "\n"
		   "records by type\n"
		   "  metadata             2\n"
		   "  init                 1\n"
		   "  string               1\n"
		   "  thread               1\n"
		   "  event                9\n"
		   "  kernel object        2\n"
		   "  scheduling           2\n"
		   "  log                  1\n"
		   "\n"
		   "events by type\n"
		   "  instant              1\n"
		   "  counter              1\n"
		   "  duration begin       1\n"
		   "  duration end         1\n"
		   "  duration complete    1\n"
		   "  async begin          1\n"
		   "  async end            1\n"
		   "  flow begin           1\n"
		   "  flow end             1\n"
		   "\n"
		   "events by thread\n"
		   "  PID/TID                  NAME             EVENTS\n"
		   "  4660/22136               \"main\"           9\n"
		   "\n"
		   "scheduling records by CPU\n"
		   "  CPU    SWITCHES         WAKEUPS          LEGACY SWITCHES\n"
		   "  3      1                1                0\n"
		   "\n"
		   "named processes\n"
		   "  4660       \"demo\"\n"
		   "\n"
		   "named threads\n"
		   "  22136      \"main\" (process 4660)\n"
		   "\n"
		   "drops\n"
		   "  provider 0: 1 buffer full event\n"
		   "  fxtrace:dropped process 4660 id 1 n: 3 (last of 1)\n",
		   r.out);
	ASSERT_STR("", r.err);
	return 0;
}

static const char json[] =
	"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4660,\"tid\":0,\"args\":{\"name\":\"demo\"}},\n"
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":4660,\"tid\":22136,\"args\":{\"name\":\"main\"}},\n"
	"{\"ph\":\"B\",\"name\":\"work\",\"cat\":\"app\",\"ts\":1.000,\"pid\":4660,\"tid\":22136,\"args\":{\"k\":\"v\"}},\n"
	"{\"ph\":\"i\",\"name\":\"tick\",\"cat\":\"app\",\"ts\":1.000,\"pid\":4660,\"tid\":22136,\"s\":\"t\",\"args\":{\"n\":-2}},\n"
	"{\"ph\":\"C\",\"name\":\"dropped\",\"cat\":\"fxtrace\",\"ts\":1.500,\"pid\":4660,\"tid\":22136,\"id\":\"0x1\",\"args\":{\"n\":3}},\n"
	"{\"ph\":\"E\",\"name\":\"work\",\"cat\":\"app\",\"ts\":2.000,\"pid\":4660,\"tid\":22136,\"args\":{}},\n"
	"{\"ph\":\"X\",\"name\":\"step\",\"cat\":\"app\",\"ts\":2.100,\"pid\":4660,\"tid\":22136,\"dur\":0.500,\"args\":{}},\n"
	"{\"ph\":\"b\",\"name\":\"req\",\"cat\":\"app\",\"ts\":2.200,\"pid\":4660,\"tid\":22136,\"id\":\"0x42\",\"args\":{}},\n"
	"{\"ph\":\"e\",\"name\":\"req\",\"cat\":\"app\",\"ts\":2.700,\"pid\":4660,\"tid\":22136,\"id\":\"0x42\",\"args\":{}},\n"
	"{\"ph\":\"s\",\"name\":\"flow\",\"cat\":\"app\",\"ts\":2.300,\"pid\":4660,\"tid\":22136,\"id\":\"0x7\",\"args\":{}},\n"
	"{\"ph\":\"f\",\"name\":\"flow\",\"cat\":\"app\",\"ts\":2.800,\"pid\":4660,\"tid\":22136,\"bp\":\"e\",\"id\":\"0x7\",\"args\":{}},\n"
	/* Scheduling records on the CPU tracks: pid INT32_MAX, tid 0x7fff0000 + CPU. */
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":2147483647,\"tid\":2147418115,\"args\":{\"name\":\"CPU 3\"}},\n"
	"{\"ph\":\"i\",\"name\":\"sched_switch\",\"cat\":\"sched\",\"s\":\"t\",\"ts\":3.000,\"pid\":2147483647,\"tid\":2147418115,\"args\":{\"prev_tid\":22136,\"prev_state\":\"blocked\",\"next_tid\":39612,\"incoming_weight\":0,\"outgoing_weight\":0}},\n"
	"{\"ph\":\"i\",\"name\":\"sched_wakeup\",\"cat\":\"sched\",\"s\":\"t\",\"ts\":3.100,\"pid\":2147483647,\"tid\":2147418115,\"args\":{\"tid\":22136,\"weight\":1}},\n"
	"{\"ph\":\"i\",\"name\":\"log\",\"cat\":\"log\",\"s\":\"t\",\"ts\":3.200,\"pid\":4660,\"tid\":22136,\"args\":{\"message\":\"hi \\\"there\\\"\\n\"}},\n"
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2147483647,\"tid\":0,\"args\":{\"name\":\"CPUs\"}}\n"
	"]}\n";

/* python3 -m json.tool accepts the file. */
static int json_valid(const char *path)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "python3 -m json.tool %s >/dev/null", path);
	return system(cmd) == 0;
}

static int test_export(void)
{
	char file[sizeof(json) + 64];

	RUN("export", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR(json, r.out);
	ASSERT_STR("", r.err);
	ASSERT_TRUE(json_valid("stdout.txt"));
	RUN("export", "--format=json", "-o", "t.json", "t.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR("", r.out);
	slurp("t.json", file, sizeof(file));
	ASSERT_STR(json, file);
	return 0;
}

/*
 * A drainer file: magic, flush mark (flushed; 0: the end of the words),
 * window mark [lo, hi] ns, then the words of b, then `junk` random bytes.
 */
static int write_drained(const char *path, uint64_t flushed, uint64_t lo,
			 uint64_t hi, const struct words *b, size_t junk)
{
	static struct words f;
	static unsigned char bytes[sizeof(f.w)];
	__u64 mark[FLUSH_MARK_WORDS], window[WINDOW_MARK_WORDS];
	uint64_t window64[WINDOW_MARK_WORDS];
	FILE *out;
	size_t i;

	f.n = 0;
	put(&f, FXT_MAGIC_WORD);
	f.n += FLUSH_MARK_WORDS;
	window_mark_write(window, lo, hi);
	memcpy(window64, window, sizeof(window));
	put_all(&f, window64, WINDOW_MARK_WORDS);
	put_all(&f, b->w, b->n);
	flush_mark_write(mark, flushed ? flushed : 8 * f.n);
	memcpy(f.w + 1, mark, sizeof(mark));
	words_to_le(f.w, f.n, bytes);
	out = fopen(path, "wb");
	if (!out || fwrite(bytes, 8, f.n, out) != f.n)
		return -1;
	srandom(1);
	for (i = 0; i < junk; i++)
		fputc((int)(random() & 0xff), out);
	return fclose(out);
}

/* An instant with an inline thread, empty category and name, at ts. */
static void put_instant(struct words *b, uint64_t ts)
{
	put(b, fxt_event_hdr(4, FXT_EVENT_INSTANT, 0, FXT_THREAD_REF_INLINE,
			     0, 0));
	put(b, ts);
	put(b, 7);
	put(b, 8);
}

/* Exit 0 means the whole file; a broken tail after the mark exits 3. */
static int test_check_partial(void)
{
	static struct words b;

	b.n = 0;
	put_instant(&b, 1500);
	/* Well formed, flush mark at the end: 0. */
	ASSERT_EQ(0, write_drained("whole.fxt", 0, 1000, 2000, &b, 0));
	RUN("check", "--strict", "--quiet", "whole.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR("", r.err);
	/* A forged mark right after itself, then 1 MiB of random bytes. */
	ASSERT_EQ(0, write_drained("forged.fxt", 8 + FLUSH_MARK_BYTES, 1000,
				   2000, &b, 1 << 20));
	RUN("check", "--strict", "--quiet", "forged.fxt");
	ASSERT_EQ(3, r.status);
	ASSERT_SUBSTR("forged.fxt: well formed up to the flush watermark 0x000038 only", r.err);
	RUN("check", "--quiet", "forged.fxt");
	ASSERT_EQ(3, r.status);
	/* An error before the mark: 1, partial or not. */
	b.n = 0;
	put(&b, fxt_event_hdr(4, 15, 0, FXT_THREAD_REF_INLINE, 0, 0));
	put(&b, 1500);
	put(&b, 7);
	put(&b, 8);
	ASSERT_EQ(0, write_drained("broken.fxt", 0, 1000, 2000, &b, 0));
	RUN("check", "--quiet", "broken.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_EQ(0, write_drained("broken-tail.fxt", 0, 1000, 2000, &b, 64));
	RUN("check", "--quiet", "broken-tail.fxt");
	ASSERT_EQ(1, r.status);
	/*
	 * A tail after the mark that switches to a provider never announced
	 * (perfetto-corpus/m09884.fxt): Perfetto reads it and counts
	 * fuchsia_invalid_event; check --strict fails with 3, not 0.
	 */
	b.n = 0;
	put_instant(&b, 1500);
	put(&b, fxt_provider_section_hdr(9));
	put_instant(&b, 1600);
	ASSERT_EQ(0, write_drained("provider-tail.fxt",
				   8 * (1 + FLUSH_MARK_WORDS + WINDOW_MARK_WORDS + 4),
				   1000, 2000, &b, 0));
	RUN("check", "--strict", "provider-tail.fxt");
	ASSERT_EQ(3, r.status);
	ASSERT_SUBSTR(": error: provider-section: provider section for provider 9, which no provider info record announced", r.out);
	/* A tail after the mark that is well formed: the whole file is. */
	b.n = 0;
	put_instant(&b, 1500);
	ASSERT_EQ(0, write_drained("tail.fxt", 8 + FLUSH_MARK_BYTES, 1000,
				   2000, &b, 0));
	RUN("check", "--strict", "--quiet", "tail.fxt");
	ASSERT_EQ(0, r.status);
	return 0;
}

/* Timestamps outside the window a drainer file declares. */
static int test_check_window(void)
{
	static struct words b;

	b.n = 0;
	put_instant(&b, 1000);
	put_instant(&b, 2000);
	put_instant(&b, 4600000000000000000ULL);
	put(&b, fxt_event_hdr(5, FXT_EVENT_DURATION_COMPLETE, 0,
			      FXT_THREAD_REF_INLINE, 0, 0));
	put(&b, 1500);
	put(&b, 7);
	put(&b, 8);
	put(&b, 2001);
	ASSERT_EQ(0, write_drained("window.fxt", 0, 1000, 2000, &b, 0));
	RUN("check", "window.fxt");
	ASSERT_EQ(0, r.status);
	RUN("check", "--strict", "window.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_STR("0x0000b8: error: timestamp-window: event record's timestamp at 4600000000000000000 ns is outside the session's window [1000, 2000] ns\n"
		   "0x0000d8: error: timestamp-window: event record's end timestamp at 2001 ns is outside the session's window [1000, 2000] ns\n"
		   "0x0000d8: note: time-order: thread 8 (process 7): an event at 1500 ns is older than the one at offset 0xb8 (4600000000000000000 ns): Perfetto nests them in time order, this check in file order (noted once)\n"
		   "window.fxt: 7 records, 2 errors, 0 warnings, 1 note\n", r.out);
	/* A record not framed (its argument runs past it): that alone. */
	b.n = 0;
	put(&b, fxt_event_hdr(5, FXT_EVENT_INSTANT, 1, FXT_THREAD_REF_INLINE,
			      0, 0));
	put(&b, 500);
	put(&b, 7);
	put(&b, 8);
	put(&b, fxt_arg_hdr(FXT_ARG_INT64, 2, 0, 0));
	ASSERT_EQ(0, write_drained("window-cut.fxt", 0, 1000, 2000, &b, 0));
	RUN("check", "--strict", "window-cut.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_STR("0x000098: error: arg-overflow: argument 1 of 1 (2 words) runs past the end of the event record (1 word left)\n"
		   "window-cut.fxt: 4 records, 1 error, 0 warnings, 0 notes\n", r.out);
	return 0;
}

/* A report that cannot be written fails the command. */
static int test_stdout_full(void)
{
	stdout_path = "/dev/full";
	RUN("check", "t.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_SUBSTR("fxtrace check: cannot write the standard output: No space left on device", r.err);
	RUN("dump", "t.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_SUBSTR("fxtrace dump: cannot write the standard output", r.err);
	RUN("stats", "t.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_SUBSTR("fxtrace stats: cannot write the standard output", r.err);
	stdout_path = "stdout.txt";
	return 0;
}

/*
 * A trace cut while `fxtrace dump` reads it (mapped): dump blocks writing
 * to a pipe nobody reads yet, the file is cut to one page, then the pipe is
 * drained.  The dump ends with an error naming the file, its new size and
 * the record it lost, not with SIGBUS.
 */
static int test_cut_while_read(void)
{
	static struct words big;
	static unsigned char bytes[sizeof(big.w)];
	const size_t instants = (N_WORDS(big.w) - 1) / 4;
	char buf[4096];
	int out[2], status, err;
	ssize_t n;
	size_t i;
	pid_t pid;
	FILE *f;

	big.n = 0;
	put(&big, example_trace[0]);	/* the magic number record */
	for (i = 0; i < instants; i++) {
		/* An instant, inline thread, empty category and name. */
		put(&big, 4 | 4 << 4);
		put_all(&big, (const uint64_t[]){ 1000 + i, 10, 11 }, 3);
	}
	words_to_le(big.w, big.n, bytes);
	f = fopen("big.fxt", "wb");
	ASSERT_TRUE(f);
	/* Repeated so that the dump's output is far larger than the pipe. */
	ASSERT_EQ(1, fwrite(bytes, 8, big.n, f) == big.n);
	for (i = 0; i < 63; i++)
		ASSERT_EQ(1, fwrite(bytes + 8, 8, big.n - 1, f) == big.n - 1);
	ASSERT_EQ(0, fclose(f));
	ASSERT_EQ(0, pipe(out));
	fflush(stdout);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		err = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (err < 0 || dup2(out[1], 1) < 0 || dup2(err, 2) < 0)
			_exit(127);
		close(out[0]);
		execl(fxtrace, "fxtrace", "dump", "--file-order", "big.fxt",
		      (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	/* The first output: dump has the file mapped and is walking it. */
	ASSERT_TRUE(read(out[0], buf, sizeof(buf)) > 0);
	ASSERT_EQ(0, truncate("big.fxt", 4096));
	while ((n = read(out[0], buf, sizeof(buf))) > 0)
		;
	close(out[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	slurp("stderr.txt", r.err, sizeof(r.err));
	ASSERT_EQ(1, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	ASSERT_PREFIX("fxtrace dump: big.fxt was cut to 0x001000 bytes while being read: the record at 0x",
		      r.err);
	ASSERT_SUBSTR(" and the rest are gone\n", r.err);
	return 0;
}

/* Other writers' traces, with invalid UTF-8 and cut records, still export valid JSON. */
static int test_export_foreign(void)
{
	ASSERT_EQ(0, write_words("jane.fxt", jane_prefix, N_WORDS(jane_prefix)));
	RUN("export", "-o", "jane.json", "jane.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_TRUE(json_valid("jane.json"));

	ASSERT_EQ(0, write_words("perfetto.fxt", perfetto_boolean_args,
				 N_WORDS(perfetto_boolean_args)));
	RUN("export", "perfetto.fxt");
	ASSERT_EQ(1, r.status);
	ASSERT_TRUE(json_valid("stdout.txt"));

	ASSERT_EQ(0, write_words("instant.fxt", perfetto_inline_instant,
				 N_WORDS(perfetto_inline_instant)));
	RUN("dump", "instant.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR("0x000000                                            magic             0x16547846\n"
		   "0x000008 12297829382473034410t  13527612320720337851/14757395258967641292 instant           \\xdd\\xdd\\xdd\\xdd\\xdd\\xdd\\xdd\\xdd:\\xee\\xee\\xee\\xee\\xee\\xee\\xee\\xee\n",
		   r.out);
	return 0;
}

static char source_dir[PATH_MAX];

/*
 * Every rule has an entry in Documentation/fxtrace.rst: a line that starts
 * with ``...``, names it as ``name`` and gives its severity as (severity).
 */
static int test_rules_documented(void)
{
	static char doc[1 << 17];
	char path[PATH_MAX + 32], name[64], severity[32];
	const char *at, *bol, *eol;
	bool found;
	int i;

	snprintf(path, sizeof(path), "%s/Documentation/fxtrace.rst", source_dir);
	slurp(path, doc, sizeof(doc));
	ASSERT_TRUE(doc[0]);
	for (i = 0; i < FXT_RULE_COUNT; i++) {
		snprintf(name, sizeof(name), "``%s``", fxt_rules[i].name);
		snprintf(severity, sizeof(severity), "(%s)",
			 fxt_severity_name(fxt_rules[i].severity));
		found = false;
		for (at = strstr(doc, name); at && !found;
		     at = strstr(at + 1, name)) {
			for (bol = at; bol > doc && bol[-1] != '\n'; bol--)
				;
			eol = strchr(at, '\n');
			found = eol && !strncmp(bol, "``", 2) &&
				memmem(bol, eol - bol, severity, strlen(severity));
		}
		if (!found)
			FAIL("rule %s has no entry %s ... %s", fxt_rules[i].name,
				name, severity);
	}
	return 0;
}

/*
 * A trace's strings reach no terminal raw: an escape sequence in an async
 * end's name (check's async-name message) and in a drop counter's argument
 * name (stats and report drops) came out as it was, for whoever wrote the
 * events to play on the terminal of whoever reads the trace; and a C1
 * control (U+009B, CSI, valid UTF-8) came out raw everywhere.
 */
static int test_terminal_escapes(void)
{
	static const char esc[] = "\x1b]0;title\x07\x1b[2J\xc2\x9b" "1m";
	static struct words b;
	const char *cmds[][2] = {
		{ "check", NULL }, { "stats", NULL }, { "report", NULL },
		{ "dump", NULL }, { "export", NULL }, { "report", "--json" },
	};
	size_t i;

	b.n = 0;
	put(&b, FXT_MAGIC_WORD);
	put(&b, fxt_string_hdr(1, 7));
	put_stream(&b, "fxtrace", 7);
	put(&b, fxt_string_hdr(2, 7));
	put_stream(&b, "dropped", 7);
	put(&b, fxt_string_hdr(3, 2));
	put_stream(&b, "ok", 2);
	put(&b, fxt_string_hdr(4, sizeof(esc) - 1));
	put_stream(&b, esc, sizeof(esc) - 1);
	put(&b, fxt_thread_hdr(1));
	put(&b, 10);
	put(&b, 11);
	/* Counter fxtrace:dropped, id 7, its argument named esc = 5. */
	put(&b, fxt_event_hdr(4, FXT_EVENT_COUNTER, 1, 1, 1, 2));
	put(&b, 1000);
	put(&b, fxt_arg_hdr(FXT_ARG_INT32, 1, 4, 5));
	put(&b, 7);
	/* Async "ok" id 9 ended as esc. */
	put(&b, fxt_event_hdr(3, FXT_EVENT_ASYNC_BEGIN, 0, 1, 1, 3));
	put(&b, 2000);
	put(&b, 9);
	put(&b, fxt_event_hdr(3, FXT_EVENT_ASYNC_END, 0, 1, 1, 4));
	put(&b, 3000);
	put(&b, 9);
	ASSERT_EQ(0, write_words("escapes.fxt", b.w, b.n));
	for (i = 0; i < N_WORDS(cmds); i++) {
		if (cmds[i][1])
			RUN((char *)cmds[i][0], (char *)cmds[i][1], "escapes.fxt");
		else
			RUN((char *)cmds[i][0], "escapes.fxt");
		if (strchr(r.out, '\x1b') || strchr(r.err, '\x1b') ||
		    strchr(r.out, '\x07') || strchr(r.err, '\x07') ||
		    strstr(r.out, "\xc2\x9b") || strstr(r.err, "\xc2\x9b"))
			FAIL("fxtrace %s %s printed a control byte of the trace",
			     cmds[i][0], cmds[i][1] ? cmds[i][1] : "");
	}
	RUN("check", "escapes.fxt");
	ASSERT_SUBSTR("async end \"?]0;title??[2J??1m\"", r.out);
	RUN("stats", "escapes.fxt");
	ASSERT_SUBSTR("id 7 \\x1b]0;title\\x07\\x1b[2J\\xc2\\x9b1m: 5", r.out);
	RUN("report", "escapes.fxt");
	ASSERT_SUBSTR("(thread 10/11): \\x1b]0;title\\x07\\x1b[2J\\xc2\\x9b1m=5", r.out);
	RUN("export", "escapes.fxt");
	ASSERT_SUBSTR("\\u001b]0;title\\u0007\\u001b[2J\\u009b1m", r.out);
	return 0;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * --name and -c match a glob against the whole name: names were cut to
 * 511 bytes first, so that an SQL statement or a URL used as an event's
 * name matched neither itself nor a glob on its end.
 */
static int test_glob_long_name(void)
{
	static char name[1002], glob[1004];
	static struct words b;

	memset(name, 'x', sizeof(name) - 4);
	memcpy(name + sizeof(name) - 4, "end", 4);
	snprintf(glob, sizeof(glob), "*%s", name + 600);
	b.n = 0;
	put(&b, FXT_MAGIC_WORD);
	put(&b, fxt_string_hdr(1, 3));
	put_stream(&b, "app", 3);
	put(&b, fxt_string_hdr(2, strlen(name)));
	put_stream(&b, name, strlen(name));
	put(&b, fxt_string_hdr(3, 5));
	put_stream(&b, "short", 5);
	put(&b, fxt_event_hdr(4, FXT_EVENT_INSTANT, 0, FXT_THREAD_REF_INLINE,
			      1, 2));
	put(&b, 1000);
	put(&b, 7);
	put(&b, 8);
	put(&b, fxt_event_hdr(4, FXT_EVENT_INSTANT, 0, FXT_THREAD_REF_INLINE,
			      1, 3));
	put(&b, 2000);
	put(&b, 7);
	put(&b, 8);
	ASSERT_EQ(0, write_words("long.fxt", b.w, b.n));
	/* The whole name, a glob on its end: the long event only. */
	RUN("dump", "--name", name, "long.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_PREFIX("0x000420      0.000001000  7/8 ", r.out);
	ASSERT_EQ(1, count_lines(r.out));
	RUN("dump", "--name", glob, "long.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_PREFIX("0x000420      0.000001000  7/8 ", r.out);
	ASSERT_EQ(1, count_lines(r.out));
	/* Its first 511 bytes are not its name. */
	name[511] = '\0';
	RUN("dump", "--name", name, "long.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_STR("", r.out);
	return 0;
}

/*
 * A name is its bytes, NUL bytes included, in report as in dump and
 * export: report cut names at their first NUL, so that "a\0x" and
 * "a\0y" made two rows both named "a" (text, JSON and HTML alike).
 */
static int test_report_nul_names(void)
{
	static struct words b;
	static char page[65536];

	b.n = 0;
	put(&b, FXT_MAGIC_WORD);
	put(&b, fxt_string_hdr(1, 1));
	put_stream(&b, "c", 1);
	put(&b, fxt_string_hdr(2, 3));
	put_stream(&b, "a\0x", 3);
	put(&b, fxt_string_hdr(3, 3));
	put_stream(&b, "a\0y", 3);
	put(&b, fxt_event_hdr(5, FXT_EVENT_DURATION_COMPLETE, 0,
			      FXT_THREAD_REF_INLINE, 1, 2));
	put(&b, 1000);
	put(&b, 7);
	put(&b, 8);
	put(&b, 3000);
	put(&b, fxt_event_hdr(5, FXT_EVENT_DURATION_COMPLETE, 0,
			      FXT_THREAD_REF_INLINE, 1, 3));
	put(&b, 4000);
	put(&b, 7);
	put(&b, 8);
	put(&b, 5000);
	ASSERT_EQ(0, write_words("nul.fxt", b.w, b.n));
	RUN("report", "nul.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_SUBSTR("\n  c:a\\x00x  ", r.out);
	ASSERT_SUBSTR("\n  c:a\\x00y  ", r.out);
	RUN("report", "--format=json", "--html=nul.html", "nul.fxt");
	ASSERT_EQ(0, r.status);
	ASSERT_SUBSTR("{\"category\":\"c\",\"name\":\"a\\u0000x\",\"count\":1,\"total_ns\":2000", r.out);
	ASSERT_SUBSTR("{\"category\":\"c\",\"name\":\"a\\u0000y\",\"count\":1,\"total_ns\":1000", r.out);
	slurp("nul.html", page, sizeof(page));
	ASSERT_SUBSTR("\"c:a\\u0000x\"", page);
	ASSERT_SUBSTR("\"c:a\\u0000y\"", page);
	return 0;
}

static const struct tap_test tests[] = {
	{ "fxtrace, fxtrace -h, unknown command", test_command_list },
	{ "CMD -h for every command", test_command_help },
	{ "usage errors exit 2", test_usage_errors },
	{ "no FILE: fxtrace.fxt, as record writes it; -i FILE", test_default_file },
	{ "missing files exit 1", test_missing_file },
	{ "check: a well-formed trace", test_check },
	{ "check --strict: warnings fail, notes do not", test_check_strict },
	{ "check: errors and --quiet", test_check_errors },
	{ "check --list-rules", test_list_rules },
	{ "dump", test_dump },
	{ "dump --file-order", test_dump_file_order },
	{ "dump --pid, --tid, -c, --name, --since, --until, --time", test_dump_filters },
	{ "dump, stats > /dev/full exit 1", test_dump_full },
	{ "dump --hex, dump of a broken trace", test_dump_hex_and_errors },
	{ "stats", test_stats },
	{ "export --format=json", test_export },
	{ "export and dump of other writers' traces", test_export_foreign },
	{ "every check rule is documented", test_rules_documented },
	{ "check: exit 0 is the whole file, 3 a partial one", test_check_partial },
	{ "check: timestamps inside the declared session window", test_check_window },
	{ "check, dump, stats: a full standard output fails", test_stdout_full },
	{ "dump of a file cut while mapped: an error, not SIGBUS", test_cut_while_read },
	{ "check, stats, report, dump: no control byte of a trace's strings printed", test_terminal_escapes },
	{ "dump --name: a glob against the whole of a long name", test_glob_long_name },
	{ "report: names with NUL bytes, in text, JSON and HTML", test_report_nul_names },
};

/*
 * The source tree: the nearest directory above the test (in $(B)/test/reader)
 * that holds Documentation/fxtrace.rst, else the current directory (make
 * check runs from the top of the tree, whatever B is).
 */
static int find_source_dir(const char *exe_dir)
{
	char path[PATH_MAX + 64], parent[PATH_MAX];
	int up;

	snprintf(source_dir, sizeof(source_dir), "%s", exe_dir);
	for (up = 0; up < 8; up++) {
		snprintf(path, sizeof(path), "%s/Documentation/fxtrace.rst",
			 source_dir);
		if (!access(path, R_OK))
			return 0;
		memcpy(parent, source_dir, sizeof(parent));
		snprintf(source_dir, sizeof(source_dir), "%s", dirname(parent));
	}
	if (getcwd(source_dir, sizeof(source_dir)) &&
	    !access("Documentation/fxtrace.rst", R_OK))
		return 0;
	printf("# no Documentation/fxtrace.rst above %s or here\n", exe_dir);
	return -1;
}

/* Build the inputs in a fresh directory and run there. */
static int setup(const char *self)
{
	static const uint64_t end_only[] = {
		0x0016547846040010,
		0x0000000000030044, 1, 1, 2,	/* duration end, 1/2, ts 1 */
	};
	static const uint64_t bad[] = {
		0x0016547846040010,
		0x0005000009000024, 1,	/* instant, thread #9, name #5 */
	};
	const char *tmp = getenv("TMPDIR");
	char exe[PATH_MAX], dir[PATH_MAX], *exe_dir;
	ssize_t n = readlink(self, exe, sizeof(exe) - 1);

	if (n < 0)
		return -1;
	exe[n] = '\0';
	exe_dir = dirname(exe);
	snprintf(fxtrace, sizeof(fxtrace), "%s/../../bin/fxtrace", exe_dir);
	if (find_source_dir(exe_dir))
		return -1;
	if (access(fxtrace, X_OK)) {
		printf("# no fxtrace at %s: %s\n", fxtrace, strerror(errno));
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/fxtrace-cli-test.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || chdir(dir))
		return -1;
	printf("# in %s\n", dir);
	return write_words("t.fxt", example_trace, N_WORDS(example_trace)) ||
	       write_words("warn.fxt", (const uint64_t[]){ 0x0016547846040010,
			   0x1000003000300048, 0x7D0, 0x5678, 0x9ABC }, 5) ||
	       write_words("end-only.fxt", end_only, N_WORDS(end_only)) ||
	       write_words("bad.fxt", bad, N_WORDS(bad));
}

int main(void)
{
	char cwd[PATH_MAX];
	int status;

	if (setup("/proc/self/exe")) {
		printf("Bail out! cannot set up\n");
		return 1;
	}
	status = tap_run(tests, N_WORDS(tests));
	/* Leave the directory behind only when something failed. */
	if (!status && getcwd(cwd, sizeof(cwd)) && !chdir("/")) {
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cwd);
		status = system(cmd) ? 1 : 0;
	}
	return status;
}
