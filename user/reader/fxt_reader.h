/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxt_reader.h - the strict FXT decoder of fxtrace (libfxtread.a).
 *
 * Written to the specification (Fuchsia's trace-format,
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format, and
 * Documentation/fxt.rst), not to fxtrace's encoder: it judges traces written by
 * any tool.  Two layers:
 *
 * 1. One record at a time, against one provider's tables:
 *    fxt_decode_record() decodes and validates a record given a
 *    struct fxt_tables (string table 1..0x7fff, thread table 1..255, ticks
 *    per second) and reports every problem through a struct fxt_sink;
 *    fxt_tables_apply() then enters the record's definition (string, thread,
 *    initialization) into the tables.  Nothing else is kept, so a caller
 *    that copies records out of an untrusted producer's buffer (the drainer)
 *    keeps one struct fxt_tables per producer and validates each copied
 *    record with these two calls.
 *
 * 2. A whole trace: struct fxt_reader walks a stream of records, keeps the
 *    providers (each with its tables), the current provider, process and
 *    thread names, and runs the checks that span records (magic first,
 *    scheduler order per CPU, duration balance per thread, async names).
 *    It needs only the record in hand: fxt_reader_next() takes the bytes of
 *    one record, fxt_reader_read() streams from a read callback through a
 *    bounded window, fxt_reader_read_buffer() walks a buffer in memory.
 *
 * Bounds: tables are indexed (at most 0x7fff strings and 255 threads per
 * provider), but they come in blocks of 6 KiB that a record of one word can
 * bring, and a reader's names copy strings of up to 32 KiB: what the
 * tables and names hold is counted against a memory budget
 * (fxt_reader_set_memory_budget()).  Every other structure grows by one
 * entry per record at most, so the rest of the memory is proportional to
 * the input; each record is decoded in time proportional to its size.  No
 * input can make the decoder read outside the bytes it was given.
 *
 * Decoded strings point into the record's bytes or into the tables: they are
 * valid until the next call that decodes or applies a record.  Strings are
 * not NUL-terminated.  Words are little endian (Documentation/fxt.rst).
 */
#ifndef FXT_READER_H
#define FXT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/fxt.h>

/* Values fxt.h does not define (Documentation/fxt.rst). */
#define FXT_BLOB_TYPE_DATA		1
#define FXT_BLOB_TYPE_LAST_BRANCH	2
#define FXT_BLOB_TYPE_PERFETTO		3
#define FXT_LARGE_BLOB			0	/* large record type [36..39] */
#define FXT_LARGE_BLOB_WITH_METADATA	0	/* blob format [40..43] */
#define FXT_LARGE_BLOB_ATTACHMENT	1
#define FXT_TICKS_PER_SECOND_DEFAULT	1000000000ULL	/* without init record */
/* Perfetto's CpuTracker::kMaxCpusPerMachine: rule sched-cpu. */
#define FXT_SCHED_CPUS_MAX		4096

/* ---- problems ----------------------------------------------------------- */

enum fxt_severity {
	FXT_NOTE,	/* legal, worth knowing (unbalanced durations, ...) */
	FXT_WARNING,	/* legal FXT that Perfetto drops or shows wrongly */
	FXT_ERROR,	/* breaks the specification */
};
#define FXT_SEVERITY_COUNT 3

/* Every check has a rule; fxt_rules[] lists them with a description. */
enum fxt_rule_id {
	FXT_RULE_MAGIC_FIRST,
	FXT_RULE_TRUNCATED,
	FXT_RULE_RECORD_SIZE_ZERO,
	FXT_RULE_RECORD_TYPE,
	FXT_RULE_RECORD_OVERFLOW,
	FXT_RULE_RECORD_EXTENSION,
	FXT_RULE_RESERVED_BITS,
	FXT_RULE_PADDING,
	FXT_RULE_UTF8,
	FXT_RULE_METADATA_TYPE,
	FXT_RULE_TRACE_INFO_TYPE,
	FXT_RULE_MAGIC,
	FXT_RULE_PROVIDER_SECTION,
	FXT_RULE_PROVIDER_EVENT,
	FXT_RULE_DROPS,
	FXT_RULE_TICKS_ZERO,
	FXT_RULE_STRING_INDEX_ZERO,
	FXT_RULE_THREAD_INDEX_ZERO,
	FXT_RULE_STRING_UNDEFINED,
	FXT_RULE_THREAD_UNDEFINED,
	FXT_RULE_STRING_NOT_KEPT,
	FXT_RULE_EVENT_TYPE,
	FXT_RULE_ARG_TYPE,
	FXT_RULE_ARG_SIZE_ZERO,
	FXT_RULE_ARG_OVERFLOW,
	FXT_RULE_ARG_SIZE,
	FXT_RULE_ARG_EXTENSION,
	FXT_RULE_BLOB_TYPE,
	FXT_RULE_LARGE_TYPE,
	FXT_RULE_SCHED_TYPE,
	FXT_RULE_THREAD_STATE,
	FXT_RULE_USEROBJ_LAYOUT,
	FXT_RULE_TIMESTAMP_OVERFLOW,
	FXT_RULE_DURATION_NEGATIVE,
	FXT_RULE_COUNTER_VALUE,
	FXT_RULE_KOID_TRUNCATED,
	FXT_RULE_KOBJ_THREAD_PROCESS,
	FXT_RULE_SCHED_WEIGHT,
	FXT_RULE_SCHED_ORDER,
	FXT_RULE_SCHED_CPU,
	FXT_RULE_ASYNC_NAME,
	FXT_RULE_LARGE_PERFETTO,
	FXT_RULE_PERFETTO_UNSUPPORTED,
	FXT_RULE_DURATION_UNMATCHED_END,
	FXT_RULE_DURATION_UNENDED,
	FXT_RULE_ASYNC_UNMATCHED_END,
	FXT_RULE_ASYNC_UNENDED,
	FXT_RULE_NOT_CHECKED,
	/* Constructs Perfetto cannot take although the spec allows them. */
	FXT_RULE_BLOB_PERFETTO,
	FXT_RULE_TIMESTAMP_WINDOW,
	FXT_RULE_FLOW_NO_SLICE,
	FXT_RULE_FLOW_DUPLICATE,
	FXT_RULE_MISPLACED_END,
	FXT_RULE_COMPLETE_OVERLAP,
	FXT_RULE_TIME_ORDER,
	FXT_RULE_COUNT		/* non-ABI: number of rules */
};

struct fxt_rule {
	const char *name;		/* short, lower-case-with-dashes */
	enum fxt_severity severity;
	const char *description;	/* one line */
};

extern const struct fxt_rule fxt_rules[FXT_RULE_COUNT];

const char *fxt_severity_name(enum fxt_severity severity);

/* One problem, as handed to a struct fxt_sink's callback. */
struct fxt_diag {
	uint64_t offset;		/* byte offset in the stream */
	enum fxt_rule_id rule;
	enum fxt_severity severity;	/* fxt_rules[rule].severity */
	const char *rule_name;
	const char *message;		/* valid during the callback only */
};

typedef void fxt_diag_fn(void *ctx, const struct fxt_diag *diag);

/*
 * Where problems go.  fn may be NULL: problems are then only counted (no
 * message is formatted, which keeps validation cheap).
 */
struct fxt_sink {
	fxt_diag_fn *fn;
	void *ctx;
	uint64_t counts[FXT_SEVERITY_COUNT];	/* problems reported so far */
};

/* ---- decoded records ---------------------------------------------------- */

/* A string: inline bytes, a table entry, or missing (ptr NULL). */
struct fxt_string {
	const char *ptr;	/* NULL when undefined or not kept */
	uint32_t len;
	uint16_t ref;		/* the string ref it came from */
	bool undefined;		/* indexed ref with no table entry */
};

/* A thread: inline koids or a thread table entry. */
struct fxt_thread {
	uint64_t pid;		/* process koid */
	uint64_t tid;		/* thread koid */
	uint8_t ref;		/* 0 inline, else the index */
	bool undefined;		/* indexed ref with no table entry */
};

struct fxt_arg {
	uint64_t offset;	/* byte offset of the argument header */
	uint32_t type;		/* FXT_ARG_* */
	uint32_t words;		/* argument size from its header */
	struct fxt_string name;
	union {
		int64_t i64;		/* INT32, INT64 */
		uint64_t u64;		/* UINT32, UINT64, POINTER, KOID */
		double f64;		/* DOUBLE */
		bool b;			/* BOOL */
		struct fxt_string str;	/* STRING */
		struct {
			const unsigned char *ptr;	/* BLOB payload */
			uint32_t len;
		} blob;
	} value;
};

struct fxt_record {
	uint64_t offset;	/* byte offset of the header in the stream */
	const unsigned char *bytes;	/* the record (NULL when skipped) */
	uint64_t header;	/* the header word */
	uint64_t words;		/* record size in words, header included */
	uint64_t content_words;	/* words the record's layout defines */
	uint32_t type;		/* FXT_REC_* */
	/*
	 * Metadata type, event type, blob type, kernel object type,
	 * scheduling subtype or large record type; 0 for the others.
	 */
	uint32_t subtype;
	bool valid;		/* decoded without an error */
	bool complete;		/* all of its defined content was there */
	/* The flags side by side: the decoder clears the record per record. */
	bool has_ts;		/* ts is the record's timestamp */
	bool ts_ns_valid;	/* ts_ns is ts in ns (has_ts too) */

	uint32_t provider_id;	/* provider whose tables resolved the refs */
	uint64_t ticks_per_second;	/* that provider's tick rate */

	uint64_t ts;		/* ticks */
	int64_t ts_ns;		/* ts in ns; when has_ts && ts_ns_valid */

	struct fxt_thread thread;	/* event, log, large blob; wakeup: woken */
	struct fxt_string category;	/* event, large blob */
	/*
	 * Event, kernel object, userspace object, blob and large blob name;
	 * provider name; string record contents; log message.
	 */
	struct fxt_string name;

	/* Type-specific fields. */
	uint64_t id;		/* provider id, string/thread index, koid,
				 * userspace object pointer, counter id,
				 * async or flow correlation id */
	uint64_t end_ts;	/* duration complete */
	int64_t end_ts_ns;	/* when end_ts_ns_valid, below */
	uint64_t value;		/* ticks per second; magic; provider event id;
				 * trace info type; blob format */
	const unsigned char *payload;	/* blob payload */
	uint64_t payload_len;

	/* Scheduling records. */
	uint32_t cpu;
	uint32_t out_state;	/* FXT_THREAD_STATE_* */
	struct fxt_thread out;	/* outgoing (subtype 1: tid only) */
	struct fxt_thread in;	/* incoming (subtype 1: tid only) */
	uint32_t out_prio, in_prio;	/* legacy context switch */

	bool end_ts_ns_valid;	/* end_ts_ns is end_ts in ns */

	/* Arguments last: the decoder clears only what comes before them. */
	bool blob_args;		/* some argument is a blob */
	uint32_t nargs;
	struct fxt_arg args[FXT_ARGS_MAX];
};

/* ---- one provider's tables ---------------------------------------------- */

struct fxt_tables;

/*
 * Tables for provider_id.  max_string_bytes bounds the memory of the
 * strings kept at once: their bytes, and the blocks of 256 entries (6 KiB)
 * the table allocates for the indices in use (0: no bound beyond the
 * table's 0x7fff entries); past it a string index stays defined but its
 * bytes are not kept (rule string-not-kept).  Returns NULL when memory
 * runs out.
 */
struct fxt_tables *fxt_tables_new(uint32_t provider_id, size_t max_string_bytes);
void fxt_tables_free(struct fxt_tables *t);

/* Forget all strings and threads, reset the tick rate (provider re-announced). */
void fxt_tables_clear(struct fxt_tables *t);

uint32_t fxt_tables_provider_id(const struct fxt_tables *t);
uint64_t fxt_tables_ticks_per_second(const struct fxt_tables *t);

/* Look up an entry: 0 when defined, -ENOENT when not. */
int fxt_tables_string(const struct fxt_tables *t, uint16_t index,
		      struct fxt_string *out);
int fxt_tables_thread(const struct fxt_tables *t, uint8_t index,
		      struct fxt_thread *out);

/*
 * Whether a string record of len bytes for index would have its bytes
 * kept by t (fxt_tables_apply() would not report string-not-kept).
 */
bool fxt_tables_string_fits(const struct fxt_tables *t, uint16_t index,
			    uint32_t len);

/*
 * The string memory t holds now (bytes kept and blocks, as max_string_bytes
 * counts them), and what it would hold with a string record of len bytes
 * for index applied: for a bound shared by several tables.
 */
size_t fxt_tables_string_bytes(const struct fxt_tables *t);
size_t fxt_tables_string_bytes_with(const struct fxt_tables *t,
				    uint16_t index, uint32_t len);

/*
 * Decode the record at buf, avail bytes long, found at stream offset
 * `offset`, against tables t.  Problems are reported to sink (severity
 * counts always, messages when sink->fn is set).  Returns:
 *   > 0  the record's size in bytes (it lies entirely inside buf); *rec holds
 *        it and rec->valid says whether it broke no rule of severity error;
 *   0    buf holds less than the whole record: *need is set to the record
 *        size in bytes (8 when not even the header is there); nothing is
 *        reported;
 *   -1   the record cannot be framed (size 0): reported; stop decoding.
 * The tables are not changed: see fxt_tables_apply().
 */
ssize_t fxt_decode_record(const struct fxt_tables *t, const void *buf,
			  size_t avail, uint64_t offset, struct fxt_record *rec,
			  struct fxt_sink *sink, uint64_t *need);

/*
 * Enter what a decoded string, thread or initialization record defines into
 * t (other records change nothing); index 0 and a zero tick rate are never
 * entered.  Returns 0, or -ENOMEM, or for a reader's tables -ENOBUFS when
 * the reader's memory budget would be exceeded (the entry is then left
 * undefined).
 * Call it before the record's bytes go away: string bytes are copied.
 */
int fxt_tables_apply(struct fxt_tables *t, const struct fxt_record *rec,
		     struct fxt_sink *sink);

/* Convert ticks to ns at ticks_per_second; false when it overflows int64. */
bool fxt_ticks_to_ns(uint64_t ticks, uint64_t ticks_per_second, int64_t *ns);

/* ---- a whole trace ------------------------------------------------------ */

struct fxt_reader;

/* A reader that reports problems to fn(ctx, ...) (fn may be NULL). */
struct fxt_reader *fxt_reader_new(fxt_diag_fn *fn, void *ctx);
void fxt_reader_free(struct fxt_reader *r);

/*
 * Records larger than this many bytes are framed and skipped, not decoded,
 * by fxt_reader_read() (rule not-checked): the window it reads through
 * never grows past it.  Only large records (type 15) can be that big.
 * Default FXT_READER_WINDOW_MAX.
 */
#define FXT_READER_WINDOW_MAX (64u << 20)
void fxt_reader_set_window_max(struct fxt_reader *r, size_t bytes);

/*
 * Bound on the memory of what the reader keeps that one small record can
 * make large, across all providers: each provider's tables (1 KiB), the
 * blocks of 256 string entries (6 KiB each) and thread tables (6 KiB) they
 * allocate, the string bytes they keep, and the copies of process and
 * thread names.  0, the default: no bound.  A record that would take the
 * reader past it stops the walk there: fxt_reader_next() returns -1,
 * fxt_reader_read() and the others -ENOBUFS, and fxt_reader_offset() is
 * the record's offset.  Nothing is reported: the trace is not at fault.
 */
void fxt_reader_set_memory_budget(struct fxt_reader *r, size_t bytes);
size_t fxt_reader_memory_budget(const struct fxt_reader *r);

/*
 * The budget for a trace of len bytes when nobody says otherwise (the
 * fxtrace commands without --memory-limit, spool recovery): 4 bytes per
 * byte and at least 256 MiB, so that a crafted trace cannot take memory
 * hundreds of times its size while a real one, whose tables are small
 * beside its records, always fits.
 */
#define FXT_MEMORY_BUDGET_FLOOR		(256ULL << 20)
#define FXT_MEMORY_BUDGET_PER_BYTE	4
size_t fxt_memory_budget_for(uint64_t len);

/*
 * The session's time window, in ns: a record whose timestamp (as its
 * provider's tick rate makes it ns) lies outside [lo_ns, hi_ns] breaks rule
 * timestamp-window.  fxtrace-drain declares it in the file (flush_mark.h);
 * without a window nothing is checked.
 */
void fxt_reader_set_session_window(struct fxt_reader *r, int64_t lo_ns,
				   int64_t hi_ns);

/* Stream offset of the next record. */
uint64_t fxt_reader_offset(const struct fxt_reader *r);

/*
 * Decode the record at the start of buf (len bytes), which sits at
 * fxt_reader_offset(r), and apply it to the reader's state.  Returns the
 * record's size in bytes (> 0), 0 when buf does not hold all of it (*need
 * tells how many bytes it takes), or -1 when decoding cannot go on.
 */
ssize_t fxt_reader_next(struct fxt_reader *r, const void *buf, size_t len,
			struct fxt_record *rec, uint64_t *need);

/*
 * End of the stream: `trailing` bytes were left that do not make a record.
 * Reports them, then what stays open (duration begins, async begins).
 * Call it once.
 */
void fxt_reader_finish(struct fxt_reader *r, size_t trailing);

/* Called for each record; a non-zero return stops the walk with that value. */
typedef int fxt_record_fn(void *ctx, const struct fxt_record *rec);

/* Reads up to len bytes into buf; returns the count, 0 at end, -errno. */
typedef ssize_t fxt_read_fn(void *ctx, void *buf, size_t len);

/*
 * Walk a stream through a bounded window, calling fn for every record, and
 * finish.  Returns 0, fn's non-zero value, or -errno (read error, -ENOMEM,
 * -ENOBUFS past the memory budget).
 */
int fxt_reader_read(struct fxt_reader *r, fxt_read_fn *read, void *read_ctx,
		    fxt_record_fn *fn, void *ctx);

/* fxt_reader_read() from a file descriptor. */
int fxt_reader_read_fd(struct fxt_reader *r, int fd, fxt_record_fn *fn,
		       void *ctx);

/*
 * fxt_reader_read() over the first len bytes of the regular file fd (from
 * offset 0; fewer if the file is shorter), mapped instead of copied through
 * a window; records past the window's maximum are skipped all the same.
 * Returns -ENODEV, having read nothing, when fd cannot be mapped (not a
 * regular file, or one whose size says 0: read it then), and -ENODATA when the file was cut while being read: the bytes of
 * the record at fxt_reader_offset() are gone, and the walk stopped there
 * (a cut that leaves part of a page shows as zeros first: a problem may be
 * reported for them).  While it runs it handles SIGBUS, in the mapping only
 * (others go to the previous disposition, put back on return; a fault of
 * a thread that is not walking gets the default one).
 */
int fxt_reader_read_map(struct fxt_reader *r, int fd, uint64_t len,
			fxt_record_fn *fn, void *ctx);

/* fxt_reader_read() over a buffer in memory. */
int fxt_reader_read_buffer(struct fxt_reader *r, const void *buf, size_t len,
			   fxt_record_fn *fn, void *ctx);

/* Problems reported so far, by severity. */
uint64_t fxt_reader_count(const struct fxt_reader *r,
			  enum fxt_severity severity);

/* Records decoded (or skipped by size) so far. */
uint64_t fxt_reader_records(const struct fxt_reader *r);

/*
 * Names from kernel object records seen so far: a process's name, a
 * thread's name and the pid its "process" argument gave (0 if none).
 * Return false when unknown.
 */
bool fxt_reader_process_name(const struct fxt_reader *r, uint64_t pid,
			     struct fxt_string *name);
bool fxt_reader_thread_name(const struct fxt_reader *r, uint64_t tid,
			    struct fxt_string *name, uint64_t *pid);

/* Iterate the named processes / threads (pos starts at 0; false at end). */
bool fxt_reader_next_process(const struct fxt_reader *r, size_t *pos,
			     uint64_t *pid, struct fxt_string *name);
bool fxt_reader_next_thread(const struct fxt_reader *r, size_t *pos,
			    uint64_t *tid, uint64_t *pid,
			    struct fxt_string *name);

/* ---- helpers ------------------------------------------------------------ */

/* Names for printing: "event", "duration begin", "int32", "blocked", ... */
const char *fxt_record_type_name(uint32_t type);
const char *fxt_event_type_name(uint32_t type);
const char *fxt_arg_type_name(uint32_t type);
const char *fxt_thread_state_name(uint32_t state);

/*
 * A hash of a string's bytes keyed with the process's random bytes
 * (AT_RANDOM), to compare names a trace's writer may have chosen so that
 * their hashes collide: anyone can find two names with one FNV-1a, and
 * SipHash-2-4 is a PRF: without the key nobody finds two with one keyed
 * hash.  Its values differ from run to run.
 */
uint64_t fxt_string_hash_keyed(const struct fxt_string *s);

/*
 * The same for an event's category and name together, as Perfetto matches
 * an async end to its begin: pairs differ where either string does.
 */
uint64_t fxt_category_name_hash_keyed(const struct fxt_string *category,
				      const struct fxt_string *name);

/* SipHash-2-4 of len bytes at p with a 16-byte key. */
uint64_t fxt_siphash24(const unsigned char key[16], const void *p,
		       size_t len);

/* The string s equals the C string c. */
bool fxt_string_is(const struct fxt_string *s, const char *c);

/* Well-formed UTF-8 (no overlongs, surrogates or code points past 0x10ffff). */
bool fxt_utf8_valid(const unsigned char *s, size_t len);

/*
 * Length of the well-formed UTF-8 sequence that starts at s (len >= 1 bytes
 * readable), or 0 if none starts there: for printers that replace bad bytes.
 */
size_t fxt_utf8_sequence(const unsigned char *s, size_t len);

/* A numeric argument's value as a double (false if not numeric). */
bool fxt_arg_number(const struct fxt_arg *arg, double *value);

#endif /* FXT_READER_H */
