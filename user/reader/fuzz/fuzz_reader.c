// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_reader.c - libFuzzer target: arbitrary bytes through every path that
 * decodes FXT in fxtrace, under ASan and UBSan (user/reader/fuzz/run.sh):
 *
 *   1. fxt_reader_read_buffer(), formatting every problem and reading every
 *      byte each decoded record points to;
 *   2. fxt_reader_read() fed in small chunks through a small window (so that
 *      records are split across reads and large ones skipped), the chunk
 *      size and window taken from the input's first bytes;
 *   3. fxt_decode_record() + fxt_tables_apply() record by record with a
 *      string budget, as the drainer validates a producer's buffer;
 *   4. fxtrace dump, stats and export --format=json, writing to /dev/null.
 *
 * Leaks fail the run too (LeakSanitizer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fxt_reader.h"
#include "fxtrace.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;
static int mapped_fd = -1;	/* a memfd the input is written to */

static void consume_diag(void *ctx, const struct fxt_diag *diag)
{
	uint64_t *sum = ctx;

	*sum += strlen(diag->message) + strlen(diag->rule_name) + diag->offset;
}

static uint64_t sum_bytes(const void *p, uint64_t len)
{
	const unsigned char *b = p;
	uint64_t sum = 0, i;

	for (i = 0; b && i < len; i++)
		sum += b[i];
	return sum;
}

static uint64_t sum_string(const struct fxt_string *s)
{
	return sum_bytes(s->ptr, s->len);
}

/* Read every byte the record points to: ASan checks each pointer. */
static int consume_record(void *ctx, const struct fxt_record *rec)
{
	uint64_t *sum = ctx;
	uint32_t i;

	*sum += sum_bytes(rec->bytes, rec->bytes ? rec->words * 8 : 0);
	*sum += sum_string(&rec->category) + sum_string(&rec->name);
	*sum += sum_bytes(rec->payload, rec->payload_len);
	for (i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *a = &rec->args[i];

		*sum += sum_string(&a->name);
		if (a->type == FXT_ARG_STRING)
			*sum += sum_string(&a->value.str);
		else if (a->type == FXT_ARG_BLOB)
			*sum += sum_bytes(a->value.blob.ptr, a->value.blob.len);
	}
	return 0;
}

struct memory {
	const uint8_t *data;
	size_t len, pos, chunk;
};

static ssize_t read_memory(void *ctx, void *buf, size_t len)
{
	struct memory *m = ctx;
	size_t n = m->chunk < len ? m->chunk : len;

	if (n > m->len - m->pos)
		n = m->len - m->pos;
	memcpy(buf, m->data + m->pos, n);
	m->pos += n;
	return n;
}

static void walk_records(const uint8_t *data, size_t size, uint64_t *sum)
{
	struct fxt_tables *t = fxt_tables_new(1, 16384);	/* 2 blocks and 4 KiB */
	struct fxt_sink sink = { .fn = consume_diag, .ctx = sum };
	struct fxt_record *rec = malloc(sizeof(*rec));
	size_t pos = 0;
	uint64_t need;
	ssize_t n;

	while (t && rec && pos < size &&
	       (n = fxt_decode_record(t, data + pos, size - pos, pos, rec,
				      &sink, &need)) > 0) {
		consume_record(sum, rec);
		if (rec->valid && fxt_tables_apply(t, rec, &sink))
			break;
		pos += n;
	}
	free(rec);
	fxt_tables_free(t);
}

/* fxtrace report: text, JSON and the HTML page. */
static void run_report(struct fxt_reader *r, struct memory *m, size_t size)
{
	struct report_options o = { .slice_key = size % 8,
				    .thread_key = KEY_CPU + size % 5,
				    .top = size % 16, .path = "fuzz" };
	struct report_rows rows = { 0 };
	struct report rp;

	report_init(&rp, r, NULL);
	if (report_collect(&rp, read_memory, m) >= 0 && !report_compute(&rp) &&
	    !report_rows(&rp, &o, &rows)) {
		report_print_text(devnull, &rp, &rows, &o);
		report_print_json(devnull, &rp, &rows, &o);
		report_write_html(devnull, &rp, &rows, &o);
	}
	report_rows_free(&rows);
	report_free(&rp);
}

static void run_tool(int tool, const uint8_t *data, size_t size)
{
	struct memory m = { .data = data, .len = size, .chunk = 4096 };
	struct dump_options opts = { .ticks = size & 1, .hex = size & 2 };
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);

	if (!r)
		return;
	if (tool == 0)
		fxtrace_dump(devnull, r, read_memory, &m, &opts);
	else if (tool == 1)
		fxtrace_stats(devnull, r, read_memory, &m, "fuzz");
	else if (tool == 2)
		fxtrace_export_json(devnull, r, read_memory, &m);
	else
		run_report(r, &m, size);
	fxt_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memory m = { .data = data, .len = size };
	uint64_t sum = 0;
	struct fxt_reader *r;
	int tool;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();

	r = fxt_reader_new(consume_diag, &sum);
	if (r)
		fxt_reader_read_buffer(r, data, size, consume_record, &sum);
	fxt_reader_free(r);

	m.chunk = (size ? data[0] % 64 : 0) + 1;
	r = fxt_reader_new(consume_diag, &sum);
	if (r) {
		fxt_reader_set_window_max(r, (size_t)64 << (size > 1 ? data[1] % 12 : 0));
		/* 4 KiB to 512 KiB: walks that stop at the memory budget. */
		fxt_reader_set_memory_budget(r, (size_t)4096 << (size > 2 ? data[2] % 8 : 0));
		fxt_reader_read(r, read_memory, &m, consume_record, &sum);
	}
	fxt_reader_free(r);

	/* The same window over the input as a mapped file. */
	if (mapped_fd < 0)
		mapped_fd = memfd_create("fuzz_reader", MFD_CLOEXEC);
	if (mapped_fd < 0 || ftruncate(mapped_fd, 0) ||
	    pwrite(mapped_fd, data, size, 0) != (ssize_t)size)
		abort();
	r = fxt_reader_new(consume_diag, &sum);
	if (r) {
		fxt_reader_set_window_max(r, (size_t)64 << (size > 1 ? data[1] % 12 : 0));
		fxt_reader_read_map(r, mapped_fd, UINT64_MAX, consume_record,
				    &sum);
	}
	fxt_reader_free(r);

	walk_records(data, size, &sum);
	for (tool = 0; tool < 4; tool++)
		run_tool(tool, data, size);
	/* Keep the sums alive so that nothing is optimized away. */
	if (sum == 1)
		fputc(0, devnull);
	return 0;
}
