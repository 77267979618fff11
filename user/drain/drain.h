/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drain.h - fxtrace-drain's parts: the output (validated FXT built from
 * buffer spans, output.c) and the daemon around it (drain.c).
 *
 * The output is built in file order: each chunk is given its file offset
 * when it is built, so the provider sections, the announcement of each
 * buffer and the durable additions come out in the order a reader needs
 * them even though the writes complete out of order.
 */
#ifndef DRAIN_H
#define DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fxt_map.h"
#include "fxt_reader.h"
#include "fxtctl.h"

/* Bytes bound for the file at one offset. */
struct chunk {
	unsigned char *data;
	size_t len, cap;
	uint64_t offset;		/* in the output file */
};

/* What the drainer knows of one buffer; the buffer id is its provider id. */
struct drain_buffer {
	uint32_t id, kind;
	uint32_t cpu, tid;
	uint64_t pid;
	bool announced;			/* provider info is in the file */
	bool durable_broken;		/* an unframeable durable record */
	bool released;
	struct fxt_tables *tables;	/* as a reader of the file sees them */
	char name[FXT_PROVIDER_NAME_MAX + 1];
	uint64_t durable_done;		/* durable bytes consumed */
	uint64_t next_wrap;		/* first rolling half not written */
	uint64_t records, bytes;	/* written to the file */
	uint64_t invalid;		/* records dropped by validation */
	uint64_t dropped;		/* records its writer dropped */
	uint64_t last_ts;		/* of its newest valid event */
};

struct output {
	uint64_t offset;		/* of the next chunk */
	uint32_t current;		/* provider of the file's last record */
	uint64_t ticks_per_second;
	struct drain_buffer **bufs;	/* by id */
	size_t nbufs;
	unsigned char *scratch;		/* producer bytes copied out */
	size_t scratch_cap;
	struct fxt_map asyncs;		/* (pid, id) -> name hash of its begin */
	bool verbose;			/* describe invalid records */
	unsigned int diags;		/* invalid records described */
	struct fxt_record rec;
};

int output_init(struct output *o, uint64_t ticks_per_second);
void output_free(struct output *o);

/* The magic and flush mark records (flush_mark.h), the file's first chunk. */
int output_magic(struct output *o, struct chunk *c);

/* The state of buffer b (mapped), created on first use; NULL on ENOMEM. */
struct drain_buffer *output_buffer(struct output *o,
				   const struct fxtctl_buffer *b);
struct drain_buffer *output_find(struct output *o, uint32_t id);

/*
 * One saved rolling half of b with the durable additions before it.
 * c->len is 0 when nothing valid was there.
 */
int output_half(struct output *o, const struct fxtctl_buffer *b,
		const struct fxtctl_span *half, struct chunk *c);

/* Everything of b not written yet (Stop, retirement). */
int output_rest(struct output *o, const struct fxtctl_buffer *b,
		struct chunk *c);

/* The "fxtrace:dropped" counter of db, when it has drops. */
int output_drops(struct output *o, struct drain_buffer *db, struct chunk *c);

/*
 * Records another source built (the probes, each batch with its own
 * provider section): append them to c, then give c its place in the file.
 * provider is the one of c's last section.
 */
int chunk_append(struct chunk *c, const void *bytes, size_t len);
void output_place(struct output *o, struct chunk *c, uint32_t provider);

void chunk_free(struct chunk *c);

#endif /* DRAIN_H */
