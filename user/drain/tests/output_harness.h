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

/* len bytes (n words) added to the durable part and committed. */
void put_durable(struct fake *f, const void *bytes, size_t len);
void put_words(struct fake *f, const __u64 *w, size_t n);

/* Chunk c into f, at the file's end: a chunk placed elsewhere exits. */
void file_add(struct file *f, const struct chunk *c);

/*
 * File f of output o passes `fxtrace check --strict` with the drainer's
 * window: no error, no warning but of rule tolerated (FXT_RULE_COUNT:
 * none).  fn(ctx, record) sees every record (fn may be NULL).
 */
int check_output_but(const struct output *o, const struct file *f,
		     enum fxt_rule_id tolerated, fxt_record_fn *fn, void *ctx);

/*
 * What the durable part of every buffer in the differential runs starts
 * with: strings 1 to DIFF_STRINGS - 1 (the names the decoder looks for
 * among them), and threads 1 (the producer's own) and 2 (another's).
 */
#define DIFF_STRINGS	11
extern const char *const diff_strings[DIFF_STRINGS];

/* What the differential runs judged since the counts were cleared. */
struct diff_totals {
	uint64_t inputs, records, refused, flows_refused;
};
extern struct diff_totals diff_totals;

/*
 * The fast pass against the full decoder (output.full_decode): the same
 * bytes through a task, a CPU and a kernel buffer (the last two beside a
 * task buffer of the same thread holding them too, drained in turn), each
 * time through two outputs, as the saved halves of wraps 0 (half0) and 1
 * (half1), then as durable additions drained by output_rest(), then the
 * drops counters.
 * The two files must be the same byte for byte, and so must every count;
 * the file passes the strict check, and a task buffer's records in it name
 * its producer's process and thread only.  Returns 0, or 1 after saying
 * what differed.
 */
int diff_input(const void *half0, size_t len0, const void *half1,
	       size_t len1, const void *durable, size_t durable_len,
	       const char *what);

/* The memory the differential runs keep between inputs. */
void diff_free(void);

#endif /* DRAIN_OUTPUT_HARNESS_H */
