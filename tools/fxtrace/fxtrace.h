/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace.h - what the fxtrace subcommands share.
 *
 * Conventions (Documentation/fxtrace.rst): data on stdout, diagnostics on
 * stderr; exit 0 success, 1 failure (including a trace with errors), 2 usage
 * error; `fxtrace CMD -h` prints the command's help and exits 0.
 */
#ifndef FXTRACE_H
#define FXTRACE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fxt_reader.h"
#include "trace_keep.h"

#define EXIT_USAGE 2

/* One subcommand: the dispatch table in fxtrace.c lists these. */
/*
 * fxtrace export's CPU tracks (export.c): the process "CPUs" and its threads
 * "CPU N"; check --perfetto=json models them.
 */
#define EXPORT_CPU_PID 2147483647ULL	/* INT32_MAX: Linux pids stay below 2^22 */
#define EXPORT_CPU_TID 2147418112ULL	/* 0x7fff0000 + the CPU (16 bits) */

int cmd_check(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stop(int argc, char **argv);

/* ---- kernel categories (list.c): the module's, without "kernel:" ---------- */

#define FXTRACE_KERNEL_CATEGORIES 4

struct fxtrace_kernel_category {
	const char *name;
	const char *what;
};

/* FXTRACE_KERNEL_CATEGORIES entries, then { NULL, NULL }. */
extern const struct fxtrace_kernel_category
	fxtrace_kernel_categories[FXTRACE_KERNEL_CATEGORIES + 1];

/* ---- help (usage.c): the one help table ---------------------------------- */

struct fxtrace_help {
	const char *name;
	const char *summary;	/* one line, for `fxtrace -h` */
	const char *usage;	/* synopsis, description, options, defaults */
};

extern const struct fxtrace_help fxtrace_help[];

/* `fxtrace -h`: every command with its summary. */
void fxtrace_list_commands(FILE *out);

/* `fxtrace CMD -h`: the command's help on stdout; returns 0. */
int fxtrace_cmd_help(const char *cmd);

/* A usage error: message, synopsis and a hint on stderr; returns 2. */
__attribute__((format(printf, 2, 3)))
int fxtrace_usage_error(const char *cmd, const char *fmt, ...);

/*
 * For the -o of a command that writes a trace (record, stop, recover):
 * the usage error of '' or "-", else 0.
 */
int fxtrace_trace_output_error(const char *cmd, const char *out);

/*
 * getopt_long() returned '?' or ':' (optstring starts with ':') for the
 * command's options: report the unknown, ambiguous or misused option or
 * the missing argument as a usage error; returns 2.
 */
struct option;
int fxtrace_option_error(const char *cmd, int opt, char **argv,
			 const struct option *options);

/* ---- input (common.c) ---------------------------------------------------- */

/* What `fxtrace record` writes, and what the readers read by default. */
#define FXTRACE_DEFAULT_TRACE	"fxtrace.fxt"

/*
 * The trace a reading command reads: -i's (input, NULL when not given) or
 * the FILE operand, or FXTRACE_DEFAULT_TRACE when neither is, as `perf
 * report` reads perf.data.  NULL after a usage error (more than one).
 */
const char *fxtrace_trace_path(const char *cmd, int argc, char **argv,
			       const char *input);

/*
 * Open the trace named on the command line ("-" is stdin).  Returns an fd,
 * or -1 after printing why on stderr.
 */
int fxtrace_open_trace(const char *cmd, const char *path);

/* A trace file, read up to a limit. */
struct fxtrace_source {
	int fd;
	uint64_t left;		/* bytes still to read */
};

/* An fxt_read_fn reading the struct fxtrace_source at ctx. */
ssize_t fxtrace_read_source(void *ctx, void *buf, size_t len);

/*
 * fxt_reader_read(r, read, read_ctx, fn, ctx), except that a struct
 * fxtrace_source on a regular file (not stdin, read from its start) is
 * mapped instead of copied (fxt_reader_read_map()).
 */
int fxtrace_walk(struct fxt_reader *r, fxt_read_fn *read, void *read_ctx,
		 fxt_record_fn *fn, void *ctx);

/*
 * Say on stderr why the walk of path (open as fd) by r failed with
 * -errno err: a file cut while mapped (-ENODATA) is named with its new
 * size and the offset the walk reached, the memory limit (-ENOBUFS) with
 * the record that went past it and the option that raises it.
 */
void fxtrace_read_failed(const char *cmd, const char *path, int fd,
			 const struct fxt_reader *r, int err);

/*
 * How much of the trace at fd to read: up to its flush mark, which a
 * drainer that did not finish leaves below the end of the file (said on
 * stderr).  Returns 0 and *limit, or 1 after printing why the file cannot
 * be trusted (it is shorter than its flush mark says, or unreadable).
 */
int fxtrace_trace_limit(const char *cmd, const char *path, int fd,
			uint64_t *limit);

/*
 * What the reader of a command may keep in string and thread tables and
 * names (fxt_reader_set_memory_budget()): --memory-limit=SIZE, else
 * fxt_memory_budget_for() the file's size (standard input and pipes: its
 * floor, 256 MiB).
 */
#define FXTRACE_MEMORY_LIMIT_AUTO	UINT64_MAX	/* no --memory-limit */

/* The option of every command that reads a trace, for getopt_long(). */
#define FXTRACE_OPT_MEMORY_LIMIT	0x180	/* past the SELECT_ codes */

/* Parse --memory-limit's SIZE into *limit; 0, or a usage error's status. */
int fxtrace_memory_limit_option(const char *cmd, const char *arg,
				uint64_t *limit);

/* Give r the memory limit for the trace at fd (limit as parsed, or AUTO). */
void fxtrace_set_memory_limit(struct fxt_reader *r, int fd, uint64_t limit);

/*
 * The FILE operand of dump, stats and export, opened, with a reader that
 * prints the trace's errors (not its warnings or notes: that is `check`'s
 * job) on stderr as "fxtrace CMD: FILE+OFFSET: ...".
 */
struct fxtrace_input {
	const char *cmd;
	const char *path;
	struct fxtrace_source src;	/* an fxt_read_fn's context */
	struct fxt_reader *reader;
};

/*
 * Whether output names the file open as input_fd (`export -o t.fxt t.fxt`,
 * standard input included), said on stderr: creating it would truncate
 * the input.
 */
bool fxtrace_output_is_input(const char *cmd, const char *output,
			     int input_fd, const char *input);

/*
 * A file the command is making and removes unless it completes (the new
 * file of an output, check --perfetto=json's export): SIGINT, SIGTERM and
 * SIGHUP remove it too before they end the command, as they would have,
 * unless they are ignored (a background job's SIGINT), and give the child
 * of fxtrace_pending_fork() the same signal (the trace processor working
 * on the file).  One at a time.
 *
 * fxtrace_pending_mask(): block (SIG_BLOCK, *old set) or unblock
 * (SIG_SETMASK, *old restored) those signals, around the file's creation
 * and fxtrace_pending_start(name), which installs the handlers (name ""
 * for a file that has no name yet).  fxtrace_pending_end(): remove the
 * file, put the handlers back.  fxtrace_pending_fork(): fork(), the child
 * recorded with the signals blocked; fxtrace_pending_reaping(): forget it
 * before it is reaped and its pid can be reused.
 */
void fxtrace_pending_mask(int how, sigset_t *old);
void fxtrace_pending_start(const char *name);
void fxtrace_pending_end(void);
pid_t fxtrace_pending_fork(void);
void fxtrace_pending_reaping(void);

/* trace_keep_recoverable() for `fxtrace cmd`, its output named by -o or --html. */
bool fxtrace_keep_recoverable(const char *cmd, const char *path, int fd,
			      enum fxtrace_keep keep);

/*
 * A file the user named for the output of in's command (export -o, report
 * --html, recover's, stop -o), which replaces what is at its name only once written whole: a
 * failed command leaves an earlier output as it was, and no output where
 * there was none.  A regular file, or no file, at path is checked as
 * trace files are (output_file.h) and written as a new file next to it
 * (fxtctl_create_temp_output(), given the old file's owner and mode,
 * less what its group had when that group cannot be kept): unnamed until
 * written whole where the file system allows, so that it vanishes however
 * the command ends, else removed if a signal (SIGINT, SIGTERM, SIGHUP)
 * ends the command; a FIFO
 * or character device is written directly, and so is a file whose
 * directory takes no new file from us (EACCES, EPERM).  Never in's FILE.
 * One at a time.
 */
struct fxtrace_output {
	FILE *file;
	const char *path;
	char tmp[4096];		/* the new file; "" when path is written */
	bool unnamed;		/* the new file has no name yet (O_TMPFILE) */
	bool existed;		/* a file was at path */
};

/* Open out for path: 0, or 1 after a message. */
int fxtrace_output_open(struct fxtrace_output *out,
			const struct fxtrace_input *in, const char *path);

/*
 * The same for cmd's output without an input to compare (its caller's
 * to do); flags: FXTCTL_OUTPUT_STREAM if an existing FIFO or character
 * device will do (written directly), or 0.
 */
int fxtrace_output_create(struct fxtrace_output *out, const char *cmd,
			  const char *path, int flags);

/*
 * For a message after a failed write to out, what became of its path:
 * " (the file is left as it was)", " (no file is made)", or "" when path
 * itself was written.
 */
const char *fxtrace_output_kept(const struct fxtrace_output *out);

/* fxtrace_output_close(): path replaced, its directory not synced. */
#define FXTRACE_OUTPUT_DIR_UNSYNCED 2

/*
 * Close out: when whole, the file is synced (fsync()) and the new file
 * takes the path's name (renamed over it), its directory synced after;
 * when not, it is removed.  Returns 0; 1 after saying on stderr that
 * path cannot be written (a write, the sync, the close or the rename
 * failed: the new file removed); or FXTRACE_OUTPUT_DIR_UNSYNCED after
 * saying that its directory cannot be synced (path replaced, but a
 * crash may undo that).
 */
int fxtrace_output_close(struct fxtrace_output *out, const char *cmd,
			 bool whole);

/*
 * Take exactly one FILE from argv[optind..argc) and open it, with a reader
 * limited to memory_limit (fxtrace_set_memory_limit()).  Returns 0, or the
 * exit status after printing why on stderr.
 */
int fxtrace_input_open(struct fxtrace_input *in, const char *cmd,
		       const char *path, uint64_t memory_limit);

/*
 * After a walk that returned walk_ret: report a read failure or the trace's
 * errors, release the input, and return the exit status (0 clean, 1 not).
 */
int fxtrace_input_close(struct fxtrace_input *in, int walk_ret);

/* ---- threads (common.c): what records say of threads' processes ---------- */

struct fxt_map;

/*
 * rec->thread is the thread the record is of: an event, log, large or
 * thread record whose thread reference is defined.
 */
bool fxtrace_record_thread(const struct fxt_record *rec);

/*
 * The process koid a kernel-object thread record names (its last "process"
 * koid argument), 0 if it names none or rec is no thread object.
 */
uint64_t fxtrace_thread_process(const struct fxt_record *rec);

/* Remember tid's process in pids ((tid, 0) -> uint64_t pid): 0 or -ENOMEM. */
int fxtrace_learn_pid(struct fxt_map *pids, uint64_t pid, uint64_t tid);

/* ---- printing (common.c) ------------------------------------------------- */

/*
 * After command cmd (NULL: fxtrace itself, its help and version) returned
 * status: when standard output could not be written (a full disk,
 * > /dev/full, a closed pipe), say so and return 1.
 */
int fxtrace_output_status(const char *cmd, int status);

/*
 * Text built without printf: dump and export format millions of records,
 * and printf's format parsing and locale handling cost more than the
 * decoding.  A struct fxtrace_out is a buffer that either grows in memory
 * (file NULL: dump's lines waiting to be sorted) or is written to file
 * whenever it holds FXTRACE_OUT_FLUSH bytes.  Out of memory sets `failed`
 * and drops what follows; a write that fails sets `write_failed` (and
 * stays on file: ferror()), so that a walk stops reading a trace whose
 * output is gone (`| head` with SIGPIPE ignored) and the caller reports
 * the write's error.
 */
#define FXTRACE_OUT_FLUSH (256u << 10)

struct fxtrace_out {
	FILE *file;
	char *buf;
	size_t len, cap;
	bool failed;
	bool write_failed;
};

/*
 * What a walk's callback returns to stop it when its output cannot be
 * written: not a read error, so fxtrace_input_close() says nothing and the
 * write's error is the caller's to report.
 */
#define FXTRACE_WALK_OUTPUT_GONE 1

void fxtrace_out_init(struct fxtrace_out *o, FILE *file);
/* Write what is buffered to o->file (nothing in memory mode). */
void fxtrace_out_flush(struct fxtrace_out *o);
/* Flush, then release the buffer. */
void fxtrace_out_free(struct fxtrace_out *o);
/* Room for n more bytes at o->buf + o->len; NULL when memory ran out. */
char *fxtrace_out_room(struct fxtrace_out *o, size_t n);

/* The slow paths of the inline writers below: flush or grow first. */
void fxtrace_out_bytes_slow(struct fxtrace_out *o, const void *p, size_t n);

/* Inline: most pieces are a few bytes, and the buffer has room. */
static inline void fxtrace_out_bytes(struct fxtrace_out *o, const void *p,
				     size_t n)
{
	if (o->len + n <= o->cap) {
		if (n)	/* the buffer may not exist yet */
			memcpy(o->buf + o->len, p, n);
		o->len += n;
	} else {
		fxtrace_out_bytes_slow(o, p, n);
	}
}

static inline void fxtrace_out_str(struct fxtrace_out *o, const char *s)
{
	fxtrace_out_bytes(o, s, strlen(s));
}

static inline void fxtrace_out_char(struct fxtrace_out *o, char c)
{
	if (o->len < o->cap)
		o->buf[o->len++] = c;
	else
		fxtrace_out_bytes_slow(o, &c, 1);
}
/* As printf's %PRIu64, %PRId64, %PRIx64 and %0*PRIx64 (width <= 16). */
void fxtrace_out_u64(struct fxtrace_out *o, uint64_t v);
void fxtrace_out_i64(struct fxtrace_out *o, int64_t v);
void fxtrace_out_hex(struct fxtrace_out *o, uint64_t v);
void fxtrace_out_hex0(struct fxtrace_out *o, uint64_t v, unsigned int width);
/* n spaces. */
void fxtrace_out_spaces(struct fxtrace_out *o, size_t n);
/* As printf's %.17g. */
void fxtrace_out_double(struct fxtrace_out *o, double v);
/* ns as seconds.nanoseconds ("1.000000500"), as "%" PRId64 ".%09" PRId64. */
void fxtrace_out_seconds(struct fxtrace_out *o, int64_t ns);

/* A string in double quotes; quotes, backslashes, control bytes escaped. */
void fxtrace_out_quoted(struct fxtrace_out *o, const struct fxt_string *s);
/* The same without the quotes (names: category:name, argument names). */
void fxtrace_out_escaped(struct fxtrace_out *o, const struct fxt_string *s);
/* A string as a JSON string literal (invalid UTF-8 becomes U+FFFD). */
void fxtrace_out_json_string(struct fxtrace_out *o, const char *s, size_t len);
/* A decoded string as JSON, "<undefined string N>" when it has no bytes. */
void fxtrace_out_json_fxt_string(struct fxtrace_out *o,
				 const struct fxt_string *s);

/*
 * An argument's value, the one printer of dump (text: strings quoted and
 * escaped, pointers 0x..., blobs "<blob N bytes>") and export (JSON: JSON
 * strings, pointers and non-numbers as strings, NaN and infinities as
 * strings, other types "<type>").
 */
enum fxtrace_arg_style { FXTRACE_ARG_TEXT, FXTRACE_ARG_JSON };
void fxtrace_out_arg_value(struct fxtrace_out *o, const struct fxt_arg *a,
			   enum fxtrace_arg_style style);
/* An argument as name=value (dump). */
void fxtrace_out_arg(struct fxtrace_out *o, const struct fxt_arg *a);

/* The FILE versions, for the commands that print little. */
void fxtrace_print_quoted(FILE *out, const struct fxt_string *s);
void fxtrace_print_escaped(FILE *out, const struct fxt_string *s);
void fxtrace_print_seconds(FILE *out, int64_t ns);
void fxtrace_print_json_string(FILE *out, const char *s, size_t len);

/* fxtrace_out_quoted() into buf, cut to fit size (NUL-terminated). */
void fxtrace_format_quoted(char *buf, size_t size, const struct fxt_string *s);

/*
 * The terminal columns len bytes of text printed by the escapes above
 * take: one for an ASCII byte, and for a UTF-8 character what wcwidth()
 * says in C.UTF-8 (2 for most CJK, 0 for a combining mark), or one where
 * that locale is missing or gives none.
 */
size_t fxtrace_text_width(const char *text, size_t len);

/* text (len bytes) on out, then spaces up to width columns. */
void fxtrace_print_padded(FILE *out, const char *text, size_t len,
			  size_t width);

/* ---- selecting records (select.c): dump's and report's filters ---------- */

/* Option codes of the selection, for getopt_long() tables. */
enum {
	SELECT_PID = 'p',
	SELECT_CATEGORY = 'c',
	SELECT_TID = 0x100,
	SELECT_NAME,
	SELECT_SINCE,
	SELECT_UNTIL,
	SELECT_TIME,
};

#define FXTRACE_SELECT_OPTIONS                                                 \
	{ "pid", required_argument, NULL, SELECT_PID },                        \
	{ "tid", required_argument, NULL, SELECT_TID },                        \
	{ "category", required_argument, NULL, SELECT_CATEGORY },              \
	{ "name", required_argument, NULL, SELECT_NAME },                      \
	{ "since", required_argument, NULL, SELECT_SINCE },                    \
	{ "until", required_argument, NULL, SELECT_UNTIL },                    \
	{ "time", required_argument, NULL, SELECT_TIME }

/* Their case labels, for the switch of a getopt_long() loop. */
#define FXTRACE_SELECT_CASES                                                   \
	case SELECT_PID:                                                       \
	case SELECT_TID:                                                       \
	case SELECT_CATEGORY:                                                  \
	case SELECT_NAME:                                                      \
	case SELECT_SINCE:                                                     \
	case SELECT_UNTIL:                                                     \
	case SELECT_TIME

struct fxtrace_select {
	uint64_t *pids, *tids;
	size_t npids, ntids;
	char **categories, **names;	/* NULL-terminated globs */
	size_t ncategories, nnames;
	bool since_set, until_set;
	int64_t since_ns, until_ns;	/* inclusive */
};

/* A time as SECONDS[.NANOS] or N(ns|us|ms|s); 0 or -EINVAL / -ERANGE. */
int fxtrace_parse_time(const char *arg, int64_t *ns);

/* Take a selection option; returns 0 or the exit status (usage error). */
int fxtrace_select_option(struct fxtrace_select *s, const char *cmd, int opt,
			  const char *arg);
void fxtrace_select_free(struct fxtrace_select *s);

/* Which kinds of filter are set. */
bool fxtrace_select_by_thread(const struct fxtrace_select *s);
bool fxtrace_select_by_event(const struct fxtrace_select *s);
bool fxtrace_select_by_time(const struct fxtrace_select *s);

/* Whether a value passes (true when that filter is not set). */
bool fxtrace_select_pid(const struct fxtrace_select *s, uint64_t pid);
bool fxtrace_select_tid(const struct fxtrace_select *s, uint64_t tid);
bool fxtrace_select_thread(const struct fxtrace_select *s, uint64_t pid,
			   uint64_t tid);
bool fxtrace_select_event(const struct fxtrace_select *s,
			  const struct fxt_string *category,
			  const struct fxt_string *name);
bool fxtrace_select_time(const struct fxtrace_select *s, int64_t ns);

/*
 * The time and event filters, which need the record in hand: a record
 * passes when it has a time in the window and, with -c or --name, is an
 * event or large blob whose category and name match.  The thread filters
 * are judged apart, once every thread's process is known.
 */
bool fxtrace_select_record(const struct fxtrace_select *s,
			   const struct fxt_record *rec);

/* ---- the subcommands' cores, callable without a command line ------------- */

struct dump_options {
	bool ticks;		/* timestamps in ticks, not seconds */
	bool hex;		/* each record's words after its line */
	bool file_order;	/* as stored, not sorted by time */
	const struct fxtrace_select *select;	/* NULL: every record */
};

/*
 * Walk the trace read by read(ctx) and print it; returns fxt_reader_read(),
 * or FXTRACE_WALK_OUTPUT_GONE when out could not be written.
 */
int fxtrace_dump(FILE *out, struct fxt_reader *r, fxt_read_fn *read,
		 void *read_ctx, const struct dump_options *opts);

int fxtrace_stats(FILE *out, struct fxt_reader *r, fxt_read_fn *read,
		  void *read_ctx, const char *name);

/* Returns as fxtrace_dump() does. */
int fxtrace_export_json(FILE *out, struct fxt_reader *r, fxt_read_fn *read,
			void *read_ctx);

/*
 * `fxtrace check --perfetto[=MODE] FILE` (perfetto.c): FILE is path.
 * MODE "fxt" imports the trace, "json" its export; the decoder's reader has
 * memory_limit (fxtrace_set_memory_limit()).  Returns 0 when Perfetto's
 * trace processor agrees with the decoder, 1 when not, 2 on usage errors, or
 * FXTRACE_EXIT_NO_TRACE_PROCESSOR when there is none to run.
 */
#define FXTRACE_EXIT_NO_TRACE_PROCESSOR 4
int fxtrace_check_perfetto(const char *path, const char *mode, bool quiet,
			   uint64_t memory_limit);

#endif /* FXTRACE_H */
