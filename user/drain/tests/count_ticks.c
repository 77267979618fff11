// SPDX-License-Identifier: GPL-2.0
/*
 * count_ticks FILE: count the "app:tick" instants of a trace (producer.c)
 * and the drops the "fxtrace:dropped" counters of the threads that emitted
 * them report (other buffers may have drops of their own).  Each thread's i
 * arguments must increase strictly: a record written twice or out of order
 * fails.  Prints "ticks N", "threads N", "dropped N", "invalid N",
 * "records N" (the records of buffers the drainer's summary counts: all in
 * providers' sections but their announcements and its drop counters), then
 * what the hostile producers of garbage.c try to get into the file:
 * "async N" (the honest "app:honest-op" async begins), "fake N" (kernel
 * objects named "fake-systemd"), "badcomm N" (threads named "bad" U+FFFD
 * U+FFFD "comm"), "blob N" (blobs of types 2 and 3), "names N" (provider
 * names starting with "honest").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxt_reader.h"

#define THREADS_MAX 256

struct thread {
	uint64_t tid;
	long long last;			/* i of its last tick, or -1 */
	uint64_t ticks, dropped, invalid;
};

struct counts {
	struct thread threads[THREADS_MAX];
	unsigned int nthreads;
	uint64_t disorder;
	uint64_t records;
	uint64_t async, fake, badcomm, blob, names;
};

/* What garbage.c's attacks would leave in the file. */
static void count_attacks(struct counts *c, const struct fxt_record *rec)
{
	switch (rec->type) {
	case FXT_REC_EVENT:
		c->async += rec->subtype == FXT_EVENT_ASYNC_BEGIN &&
			    fxt_string_is(&rec->name, "honest-op");
		break;
	case FXT_REC_KOBJ:
		c->fake += fxt_string_is(&rec->name, "fake-systemd");
		c->badcomm += fxt_string_is(&rec->name,
					    "bad\xef\xbf\xbd\xef\xbf\xbd" "comm");
		break;
	case FXT_REC_BLOB:
		c->blob += rec->subtype != FXT_BLOB_TYPE_DATA;
		break;
	case FXT_REC_METADATA:
		c->names += rec->subtype == FXT_META_PROVIDER_INFO &&
			    rec->name.ptr && rec->name.len >= 6 &&
			    !memcmp(rec->name.ptr, "honest", 6);
		break;
	}
}

static struct thread *thread_of(struct counts *c, uint64_t tid)
{
	struct thread *t;
	unsigned int i;

	for (i = 0; i < c->nthreads; i++)
		if (c->threads[i].tid == tid)
			return &c->threads[i];
	if (c->nthreads == THREADS_MAX)
		return NULL;
	t = &c->threads[c->nthreads++];
	t->tid = tid;
	t->last = -1;
	return t;
}

static const struct fxt_arg *arg_named(const struct fxt_record *rec,
				       const char *name)
{
	uint32_t i;

	for (i = 0; i < rec->nargs; i++)
		if (fxt_string_is(&rec->args[i].name, name))
			return &rec->args[i];
	return NULL;
}

static int on_record(void *ctx, const struct fxt_record *rec)
{
	struct counts *c = ctx;
	const struct fxt_arg *a;
	struct thread *t;

	count_attacks(c, rec);
	if (rec->type == FXT_REC_METADATA || rec->type == FXT_REC_INIT ||
	    !rec->provider_id)
		return 0;
	c->records++;
	if (rec->type != FXT_REC_EVENT)
		return 0;
	if (rec->subtype == FXT_EVENT_COUNTER &&
	    fxt_string_is(&rec->category, "fxtrace") &&
	    fxt_string_is(&rec->name, "dropped")) {
		/* The drainer's, not the buffer's own (output_drops()). */
		c->records--;
		t = thread_of(c, rec->thread.tid);
		if (!t)
			return -ENOSPC;
		a = arg_named(rec, "records");
		if (a)
			t->dropped += (uint64_t)a->value.i64;
		a = arg_named(rec, "invalid");
		if (a)
			t->invalid += (uint64_t)a->value.i64;
		return 0;
	}
	if (rec->subtype != FXT_EVENT_INSTANT ||
	    !fxt_string_is(&rec->category, "app") ||
	    !fxt_string_is(&rec->name, "tick"))
		return 0;
	a = arg_named(rec, "i");
	t = thread_of(c, rec->thread.tid);
	if (!a || !t)
		return -EINVAL;
	if (a->value.i64 <= t->last)
		c->disorder++;
	t->last = a->value.i64;
	t->ticks++;
	return 0;
}

int main(int argc, char **argv)
{
	static struct counts c;
	uint64_t ticks = 0, dropped = 0, invalid = 0;
	unsigned int i, threads = 0;
	struct fxt_reader *r;
	int fd, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: count_ticks FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	r = fxt_reader_new(NULL, NULL);
	if (!r)
		return 1;
	ret = fxt_reader_read_fd(r, fd, on_record, &c);
	for (i = 0; i < c.nthreads; i++) {
		if (!c.threads[i].ticks)
			continue;
		threads++;
		ticks += c.threads[i].ticks;
		dropped += c.threads[i].dropped;
		invalid += c.threads[i].invalid;
	}
	printf("ticks %llu\nthreads %u\ndropped %llu\ninvalid %llu\nrecords %llu\n",
	       (unsigned long long)ticks, threads, (unsigned long long)dropped,
	       (unsigned long long)invalid, (unsigned long long)c.records);
	printf("async %llu\nfake %llu\nbadcomm %llu\nblob %llu\nnames %llu\n",
	       (unsigned long long)c.async, (unsigned long long)c.fake,
	       (unsigned long long)c.badcomm, (unsigned long long)c.blob,
	       (unsigned long long)c.names);
	if (c.disorder)
		printf("out of order or repeated: %llu\n",
		       (unsigned long long)c.disorder);
	fxt_reader_free(r);
	close(fd);
	return ret || c.disorder ? 1 : 0;
}
