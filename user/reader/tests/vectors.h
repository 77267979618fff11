/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vectors.h - FXT inputs written word by word from sources other than
 * fxtrace's encoder, and the helpers the decoder tests share (the checks are
 * tap.h's).
 *
 * Words are host-order values; words_to_le() lays them out as FXT's
 * little-endian bytes.
 */
#ifndef FXT_TEST_VECTORS_H
#define FXT_TEST_VECTORS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt_reader.h"
#include "../../tests/tap.h"

#define N_WORDS(a) (sizeof(a) / sizeof((a)[0]))

/* Documentation/fxt.rst, the worked examples (computed by hand, re-checked). */
extern const uint64_t spec_magic[1];		/* (a) */
extern const uint64_t spec_string_app[2];	/* (b) index 1 = "app" */
extern const uint64_t spec_instant[7];		/* (c) needs (b) */
extern const uint64_t spec_process[3];		/* (d) process 0x1234 "demo" */
extern const uint64_t spec_thread[6];		/* (d) thread 0x5678 "main" */
extern const uint64_t spec_switch[4];		/* (e) context switch */
extern const uint64_t spec_init[2];		/* (f) 1e9 ticks/s */

/*
 * Perfetto's importer tests (google/perfetto
 * src/trace_processor/importers/fuchsia/fuchsia_parser_unittest.cc), each
 * preceded by the magic word as the test fixture writes it.
 */
extern const uint64_t perfetto_inline_instant[7];
extern const uint64_t perfetto_boolean_args[11];
extern const uint64_t perfetto_sched[12];
extern const uint64_t perfetto_legacy_sched[19];
extern const uint64_t perfetto_corrupted[2];

/*
 * A real trace from another writer: the first 0x378 bytes (111 words, cut
 * at a record boundary) of test_data/trace.fxt in RichieSams/fxt, written by
 * Jane Street's tracing library (magic-trace, provider "jane_tracing").
 */
extern const uint64_t jane_prefix[111];

/*
 * A small trace using every event type, a context switch, a wakeup, a drop
 * report and a log record, laid out by hand (the layout is in vectors.c).
 */
extern const uint64_t example_trace[81];

/* ---- building inputs ------------------------------------------------------ */

struct words {
	uint64_t w[4608];
	size_t n;
};

/* Append a word; a test that overflows the buffer exits with failure. */
void put(struct words *b, uint64_t word);
/* len bytes of s, zero padded to a word (written here, not by fxt.h). */
void put_stream(struct words *b, const char *s, size_t len);
void put_all(struct words *b, const uint64_t *words, size_t n);

/* The words as little-endian bytes in out (8 * n bytes). */
void words_to_le(const uint64_t *words, size_t n, unsigned char *out);

/* ---- collecting problems ------------------------------------------------ */

struct diags {
	char text[32768];	/* "0x000010: error: rule: message\n" lines */
	size_t len;
	unsigned int count;
};

/* An fxt_diag_fn that appends to a struct diags. */
void collect_diag(void *ctx, const struct fxt_diag *diag);

/*
 * Check words (cut to `bytes` bytes if not 8 * n) with a fresh reader;
 * the problems land in *d.  Returns the number of records.
 */
uint64_t check_words(const uint64_t *words, size_t n, size_t bytes,
		     struct diags *d);

/* An fxt_string is the C string (its bytes, not a prefix). */
#define ASSERT_FXT_STR(expected, s) ASSERT_STRN(expected, (s).ptr, (s).len)

#endif /* FXT_TEST_VECTORS_H */
