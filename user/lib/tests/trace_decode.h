/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_decode.h - the host tests' view of a trace file: every event with
 * its thread, type, category, name and arguments, decoded by the project's
 * decoder, and the decoder's error and warning counts.
 */
#ifndef FXTRACE_TRACE_DECODE_H
#define FXTRACE_TRACE_DECODE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_reader.h"

struct ev {
	unsigned int type;		/* FXT_EVENT_* */
	uint64_t pid, tid, id;
	char cat[64], name[64];
	unsigned int nargs;
	char arg_name[4][32];
	uint64_t arg_u64[4];
	char arg_str[4][64];
	uint32_t arg_len[4];
	int64_t ts_ns, end_ns;		/* end_ns: duration complete */
};

struct trace {
	struct ev *ev;
	int n;
	uint64_t errors, warnings;
	int thread_names;		/* thread kernel-object records */
	char *bytes;			/* the file (strings point into it) */
	size_t len;
	int ok;				/* the file could be read */
	uint64_t ticks_per_second;	/* of the last event's provider */
};

static inline void copy_str(char *dst, size_t cap, const struct fxt_string *s)
{
	snprintf(dst, cap, "%.*s", (int)s->len, s->ptr ? s->ptr : "?");
}

static inline int trace_collect(void *ctx, const struct fxt_record *rec)
{
	struct trace *tr = ctx;
	struct ev *e;
	unsigned int i;

	if (rec->type == FXT_REC_KOBJ && rec->subtype == FXT_KOBJ_THREAD)
		tr->thread_names++;
	if (rec->type != FXT_REC_EVENT)
		return 0;
	tr->ev = realloc(tr->ev, sizeof(*tr->ev) * (size_t)(tr->n + 1));
	tr->ticks_per_second = rec->ticks_per_second;
	e = &tr->ev[tr->n++];
	memset(e, 0, sizeof(*e));
	e->type = rec->subtype;
	e->pid = rec->thread.pid;
	e->tid = rec->thread.tid;
	e->id = rec->id;
	e->ts_ns = rec->has_ts && rec->ts_ns_valid ? rec->ts_ns : -1;
	e->end_ns = rec->end_ts_ns_valid ? rec->end_ts_ns : -1;
	copy_str(e->cat, sizeof(e->cat), &rec->category);
	copy_str(e->name, sizeof(e->name), &rec->name);
	e->nargs = rec->nargs;
	for (i = 0; i < rec->nargs && i < 4; i++) {
		copy_str(e->arg_name[i], sizeof(e->arg_name[i]), &rec->args[i].name);
		e->arg_u64[i] = rec->args[i].value.u64;
		if (rec->args[i].type == FXT_ARG_STRING) {
			copy_str(e->arg_str[i], sizeof(e->arg_str[i]),
				 &rec->args[i].value.str);
			e->arg_len[i] = rec->args[i].value.str.len;
		}
	}
	return 0;
}

/* Decode the trace at path; tr->ok is 0 when it cannot be read. */
static inline struct trace trace_read(const char *path)
{
	struct trace tr = { 0 };
	struct fxt_reader *r = fxt_reader_new(NULL, NULL);
	FILE *f = fopen(path, "rb");
	long size;

	if (!r || !f) {
		if (f)
			fclose(f);
		fxt_reader_free(r);
		return tr;
	}
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	tr.bytes = malloc((size_t)size + 8);
	tr.len = fread(tr.bytes, 1, (size_t)size, f);
	fclose(f);
	tr.ok = fxt_reader_read_buffer(r, tr.bytes, tr.len, trace_collect, &tr) == 0;
	tr.errors = fxt_reader_count(r, FXT_ERROR);
	tr.warnings = fxt_reader_count(r, FXT_WARNING);
	fxt_reader_free(r);
	return tr;
}

static inline void trace_free(struct trace *tr)
{
	free(tr->ev);
	free(tr->bytes);
	memset(tr, 0, sizeof(*tr));
}

/* Events of thread tid (0: any) named name (NULL: any). */
static inline int trace_count(const struct trace *tr, uint64_t tid, const char *name)
{
	int i, n = 0;

	for (i = 0; i < tr->n; i++)
		if ((!tid || tr->ev[i].tid == tid) &&
		    (!name || !strcmp(tr->ev[i].name, name)))
			n++;
	return n;
}

#endif /* FXTRACE_TRACE_DECODE_H */
