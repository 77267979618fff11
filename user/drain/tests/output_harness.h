/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output_harness.h - fxtrace-drain's data path (output.c) on the host,
 * without the module: buffers laid out in memory as the kernel lays them
 * out, the file their chunks make, its strict check, and the fast pass
 * against the full decoder.  Shared by output_test.c and the libFuzzer
 * target fuzz/fuzz_output.c; failures are reported as tap.h's checks do.
 */
#ifndef DRAIN_OUTPUT_HARNESS_H
#define DRAIN_OUTPUT_HARNESS_H

#include "drain.h"

#define PID	100
#define TID	101
#define SECOND	1000000000ULL
#define START	(1000 * SECOND)		/* the session clock at Start */

/* A buffer in memory, as the kernel maps it to the drainer. */
struct fake {
	unsigned char *mem;
	struct fxtctl_buffer b;
	struct fxtrace_buffer_header *hdr;
	struct fxtrace_buffer_control *ctl;
	unsigned char *data;
	size_t durable;			/* bytes written in the durable part */
};

/* The trace being built: the magic chunk, then every chunk in order. */
struct file {
	unsigned char *bytes;
	size_t len, cap;
};

/*
 * A buffer as ATTACH (task) or Initialize makes it: the kernel's
 * provider info and init records at the start of the durable part.  comm
 * NULL: a header without the comm field.
 */
void fake_new(struct fake *f, __u32 id, __u32 kind, __u32 pid, __u32 tid,
	      size_t durable_size, size_t rolling_size, const char *comm);
void fake_free(struct fake *f);
/*
 * The header as a module of ABI 0.8 writes it: all its fields, owner_uid
 * the user the thread is charged to.  Before the buffer's first drain.
 */
void fake_owner(struct fake *f, __u32 uid);

/*
 * The kernel's announcement of f as the kernel writes it (kmod/buffer.c,
 * fxt_buffer_write_prefix()): provider info named name, init record,
 * durable_reserved after them; instead of what fake_new() wrote.
 */
void fake_announce(struct fake *f, const char *name, uint64_t tps);

/* len bytes (n words) added to the durable part and committed. */
void put_durable(struct fake *f, const void *bytes, size_t len);
void put_words(struct fake *f, const __u64 *w, size_t n);

/*
 * Chunk c into f, at the file's end: a chunk placed elsewhere, or longer
 * than its allocation, exits.
 */
void file_add(struct file *f, const struct chunk *c);

/*
 * File f of output o passes `fxtrace check --strict` with the drainer's
 * window: no error, no warning but of rule tolerated (FXT_RULE_COUNT:
 * none).  fn(ctx, record) sees every record (fn may be NULL).
 */
int check_output_but(const struct output *o, const struct file *f,
		     enum fxt_rule_id tolerated, fxt_record_fn *fn, void *ctx);
/*
 * The same with a set of rules tolerated: bit r for rule r.  The bit of
 * FXT_RULE_MISPLACED_END lets a thread's cuts pass, never an async id's:
 * the drainer keeps a producer's misnested slices (drain.rst), while an
 * async cut in its output is a regression to see.
 */
int check_output_tolerating(const struct output *o, const struct file *f,
			    uint64_t tolerated, fxt_record_fn *fn, void *ctx);
/*
 * The errors and warnings of f that tolerated (as above) does not let
 * pass, as check prints them ("" when none); NULL if f could not be read.
 */
const char *check_output_problems(const struct output *o,
				  const struct file *f, uint64_t tolerated);
/* The warnings of tolerated rules the last of these checks let pass. */
extern unsigned int check_output_tolerated;

/*
 * What the durable part of every buffer in the differential runs starts
 * with: strings 1 to DIFF_STRINGS - 1 (the names the decoder looks for
 * among them), and threads 1 (the producer's own) and 2 (another's).
 */
#define DIFF_STRINGS	11
extern const char *const diff_strings[DIFF_STRINGS];

/*
 * The probes' records as probes.c writes them: provider
 * FXTPROBE_PROVIDER_ID_DEFAULT (user/probe/fxtprobe.h), output.probe_provider.
 */
#define PROBE_PROVIDER	0xb9f0000U
#define PROBE_TID	7

/*
 * A chunk of the probes' provider into f, placed by o: its preamble
 * (provider info, init at o's tick rate, string 1 = "probe-name") when
 * first, else a provider section; then an instant at ts of tid PROBE_TID
 * named by string 1.
 */
void probe_chunk(struct output *o, struct file *f, bool first, uint64_t ts);

/* What the differential runs judged since the counts were cleared. */
struct diff_totals {
	uint64_t inputs, records, refused, flows_refused, retired;
	uint64_t snapshots, copies;	/* circular: of retired buffers */
	uint64_t sibling_writes;	/* mappings written during a copy */
};
extern struct diff_totals diff_totals;

/*
 * What a differential run varies besides the producer's bytes: what a
 * hostile producer or the passage of time can vary, and what the kernel
 * writes within what it can produce (fuzz/fuzz_output.c, whose input
 * starts with DIFF_CONFIG_BYTES of it, says which is which and why).
 * All zero but the comm: diff_input().
 */
enum diff_retire {
	DIFF_RETIRE_NONE,
	DIFF_RETIRE_HALF0,	/* the task buffer retires after half 0 */
	DIFF_RETIRE_HALF1,	/* after half 1 */
	DIFF_RETIRE_DURABLE,	/* after its durable additions */
};

enum diff_successor {
	DIFF_SAME_THREAD,	/* pid and tid again: an exec */
	DIFF_SIBLING,		/* another thread of the process */
	DIFF_TID_REUSED,	/* another process, the tid reused */
	DIFF_OTHER,		/* another process and thread */
};

struct diff_config {
	enum diff_retire retire;
	enum diff_successor successor;
	bool overlap;		/* the successor attaches before retirement */
	bool prefix_overwritten;	/* the producer's over the kernel's */
	bool kernel_retires;	/* the kernel buffer, after its rest */
	bool probe_id;		/* probes attached, the main buffer their id */
	bool circular;		/* retired task buffers copied, a snapshot */
	bool sibling_writes;	/* ... while a sibling writes the mapping */
	uint32_t header_size;	/* a module's fxtrace_buffer_header */
	bool other_owner;	/* the successor is another user's */
	bool shared_flows;	/* output.shared_flows: flows keyed by id */
	bool owner_traced;	/* uid 1000 is the session's owner */
	bool successor_traced;	/* the filter's user: 1001 once it attaches */
	uint32_t cpu;		/* the CPU buffer's */
	char comm[16];		/* NUL-terminated, zero-padded */
	uint64_t ticks_per_second, start_ticks;
	/* ms the session clock moves before half 0, half 1, rest, drops */
	uint32_t advance_ms[4];
	/* bytes a task buffer's durable_committed is off at half 0, 1, rest */
	int16_t durable_skew[3];
	/* at a rest: a task's control page, a kernel buffer's header */
	uint64_t wrap_count, rolling_committed[2], dropped;
};

#define DIFF_CONFIG_BYTES	72

/*
 * To be called by the calloc() wrapper of the program (-Wl,--wrap=calloc)
 * with the bytes asked: at the allocation of a retired buffer's copy,
 * between its reading of the control page and its copy of the data, the
 * sibling thread of byte 3's bit 2 writes the mapping.
 */
void diff_calloc_seen(size_t bytes);

/*
 * The config at the start of bytes (len of them; the bytes missing are 0),
 * as fuzz/fuzz_output.c's header comment lays it out.
 */
void diff_config_read(struct diff_config *cfg, const void *bytes, size_t len);

/*
 * The fast pass against the full decoder (output.full_decode): the same
 * bytes through a task, a CPU and a kernel buffer (the last two beside a
 * task buffer of the same thread holding them too, drained in turn), each
 * time through two outputs, as the saved halves of wraps 0 (half0) and 1
 * (half1), then as durable additions drained by output_rest(), then the
 * drops counters; the task buffer retired and followed by another as cfg
 * says, in the session window and with the header fields it says.
 * The two files must be the same byte for byte, and so must every count;
 * the file passes the strict check, a task buffer's records in it name
 * its producer's process and thread only, and the kernel's announcement
 * at the start of a buffer is never judged as records when the producer
 * left it as it was.  Returns 0, or 1 after saying what differed.
 */
int diff_config_input(const struct diff_config *cfg, const void *half0,
		      size_t len0, const void *half1, size_t len1,
		      const void *durable, size_t durable_len,
		      const char *what);

/* diff_config_input() with the config all zero, the comm "diff". */
int diff_input(const void *half0, size_t len0, const void *half1,
	       size_t len1, const void *durable, size_t durable_len,
	       const char *what);

/*
 * An input of fuzz/fuzz_output.c: its config, then the bytes cut at the
 * word nearest their middle as two halves, and whole as the durable
 * additions.
 */
int diff_fuzz_input(const void *data, size_t size, const char *what);

/* The memory the differential runs keep between inputs. */
void diff_free(void);

#endif /* DRAIN_OUTPUT_HARNESS_H */
