// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - `fxtrace stats`: what a trace holds.  Counts per record type,
 * event type, thread and CPU, the time span, named processes and threads,
 * and the drops the trace reports.
 *
 * Drops, until a later issue settles the convention: provider events
 * "buffer full" (FXT's own), and counter events named "fxtrace:dropped"
 * (category "fxtrace", name "dropped", or the whole name), whose numeric
 * arguments are cumulative drop counts: the last value of each series counts.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxt_map.h"
#include "fxtrace.h"

struct thread_count {
	uint64_t pid, tid;
	uint64_t events;
};

struct cpu_count {
	uint64_t cpu;
	uint64_t by_subtype[3];	/* legacy switch, switch, wakeup */
};

struct drop_series {
	uint64_t pid, counter_id;
	char *key;		/* the argument's name, which tells series apart */
	uint32_t key_len;
	double last;
	uint64_t events;
};

struct provider_drops {
	uint64_t provider;
	uint64_t buffer_full;
};

struct stats {
	FILE *out;
	struct fxt_reader *r;
	uint64_t records, bytes;
	uint64_t by_type[16];
	uint64_t by_event[16];
	int64_t first_ns, last_ns;	/* INT64_MAX, INT64_MIN: none yet */
	struct fxt_map threads;		/* (pid, tid) -> thread_count */
	struct fxt_map cpus;		/* (cpu, 0) -> cpu_count */
	/*
	 * The entries last counted: records come in runs of one thread or
	 * CPU.  Valid until the next insertion, which only updates them.
	 */
	struct thread_count *thread_last;
	struct cpu_count *cpu_last;
	/*
	 * (hash of pid and id, hash of the name, + 1 per other series there)
	 * -> drop_series, the bytes compared.  Keyed hashes: the trace
	 * chooses names and ids, and with hashes it can compute (FNV-1a) it
	 * could start every series at one key, each new one walking past
	 * all the others.
	 */
	struct fxt_map drops;
	struct fxt_map providers;	/* (id, 0) -> provider_drops */
	int error;
};

static void see_time(struct stats *s, int64_t ns)
{
	if (ns < s->first_ns)
		s->first_ns = ns;
	if (ns > s->last_ns)
		s->last_ns = ns;
}

/* s equals the string literal lit; lengths first, as most differ. */
#define STRING_IS(s, lit)                                                      \
	((s)->ptr && (s)->len == sizeof(lit) - 1 &&                            \
	 !memcmp((s)->ptr, lit, sizeof(lit) - 1))

static bool is_drop_counter(const struct fxt_record *rec)
{
	return (STRING_IS(&rec->category, "fxtrace") &&
		STRING_IS(&rec->name, "dropped")) ||
	       STRING_IS(&rec->name, "fxtrace:dropped");
}

/* The series of the counter rec's argument a; NULL: no memory. */
static struct drop_series *drop_series(struct stats *s,
				       const struct fxt_record *rec,
				       const struct fxt_arg *a)
{
	const uint64_t where[2] = { rec->thread.pid, rec->id };
	const struct fxt_string where_bytes = {
		.ptr = (const char *)where, .len = sizeof(where)
	};
	uint64_t k1 = fxt_string_hash_keyed(&where_bytes);
	uint64_t k2 = fxt_string_hash_keyed(&a->name);
	uint32_t len = a->name.ptr ? a->name.len : 0;
	struct drop_series *d;
	int created;

	for (;; k2++) {
		d = fxt_map_put(&s->drops, k1, k2, &created);
		if (!d || created)
			break;
		if (d->pid == rec->thread.pid && d->counter_id == rec->id &&
		    d->key_len == len &&
		    !memcmp(d->key, a->name.ptr ? a->name.ptr : "", len))
			return d;
	}
	if (!d)
		return NULL;
	d->key = malloc(len + 1);
	if (!d->key)
		return NULL;
	memcpy(d->key, a->name.ptr ? a->name.ptr : "", len);
	d->key_len = len;
	d->pid = rec->thread.pid;
	d->counter_id = rec->id;
	return d;
}

/* Out of line, as the lookups below: rare, and calls. */
static __attribute__((noinline)) void
count_drops(struct stats *s, const struct fxt_record *rec)
{
	struct drop_series *d;
	uint32_t i;
	double v;

	for (i = 0; i < rec->nargs; i++) {
		const struct fxt_arg *a = &rec->args[i];

		if (!fxt_arg_number(a, &v))
			continue;
		d = drop_series(s, rec, a);
		if (!d) {
			s->error = -ENOMEM;
			return;
		}
		d->last = v;
		d->events++;
	}
}

/* The entry of the record's thread, now the last one; NULL: no memory. */
static __attribute__((noinline)) struct thread_count *
thread_entry(struct stats *s, const struct fxt_record *rec)
{
	struct thread_count *t = fxt_map_put(&s->threads, rec->thread.pid,
					     rec->thread.tid, NULL);

	if (!t) {
		s->error = -ENOMEM;
		return NULL;
	}
	t->pid = rec->thread.pid;
	t->tid = rec->thread.tid;
	s->thread_last = t;
	return t;
}

/* The entry of the record's CPU, now the last one; NULL: no memory. */
static __attribute__((noinline)) struct cpu_count *
cpu_entry(struct stats *s, const struct fxt_record *rec)
{
	struct cpu_count *c = fxt_map_put(&s->cpus, rec->cpu, 0, NULL);

	if (c) {
		c->cpu = rec->cpu;
		s->cpu_last = c;
	}
	return c;
}

static void count_event(struct stats *s, const struct fxt_record *rec)
{
	struct thread_count *t;

	s->by_event[rec->subtype & 15]++;
	if (rec->subtype == FXT_EVENT_DURATION_COMPLETE && rec->end_ts_ns_valid)
		see_time(s, rec->end_ts_ns);
	if (rec->subtype == FXT_EVENT_COUNTER && is_drop_counter(rec))
		count_drops(s, rec);
	t = s->thread_last;
	if (!t || t->tid != rec->thread.tid || t->pid != rec->thread.pid) {
		t = thread_entry(s, rec);
		if (!t)
			return;
	}
	t->events++;
}

static int count_record(void *ctx, const struct fxt_record *rec)
{
	struct stats *s = ctx;
	struct provider_drops *p;
	struct cpu_count *c;

	s->records++;
	s->bytes += rec->words * 8;
	s->by_type[rec->type]++;
	if (rec->has_ts && rec->ts_ns_valid)
		see_time(s, rec->ts_ns);
	if (!rec->bytes)
		return 0;
	switch (rec->type) {
	case FXT_REC_EVENT:
		count_event(s, rec);
		break;
	case FXT_REC_SCHED:
		if (rec->subtype > FXT_SCHED_WAKEUP)
			break;
		c = s->cpu_last;
		if (!c || c->cpu != rec->cpu) {
			c = cpu_entry(s, rec);
			if (!c)
				return -ENOMEM;
		}
		c->by_subtype[rec->subtype]++;
		break;
	case FXT_REC_METADATA:
		if (rec->subtype != FXT_META_PROVIDER_EVENT ||
		    rec->value != FXT_PROVIDER_EVENT_BUFFER_FULL)
			break;
		p = fxt_map_put(&s->providers, rec->id, 0, NULL);
		if (!p)
			return -ENOMEM;
		p->provider = rec->id;
		p->buffer_full++;
		break;
	}
	return s->error;
}

/* The values of a map as an array sorted by cmp; NULL when empty. */
static void *sorted(const struct fxt_map *m, size_t size,
		    int (*cmp)(const void *, const void *))
{
	unsigned char *all = malloc(m->count * size + 1);
	size_t pos = 0, n = 0;
	const void *v;

	if (!all)
		return NULL;
	while ((v = fxt_map_next(m, &pos, NULL, NULL)))
		memcpy(all + size * n++, v, size);
	qsort(all, n, size, cmp);
	return all;
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static int by_thread(const void *a, const void *b)
{
	const struct thread_count *x = a, *y = b;

	return x->pid != y->pid ? CMP(x->pid, y->pid) : CMP(x->tid, y->tid);
}

static int by_cpu(const void *a, const void *b)
{
	return CMP(((const struct cpu_count *)a)->cpu,
		   ((const struct cpu_count *)b)->cpu);
}

static int by_provider(const void *a, const void *b)
{
	return CMP(((const struct provider_drops *)a)->provider,
		   ((const struct provider_drops *)b)->provider);
}

static int by_series(const void *a, const void *b)
{
	const struct drop_series *x = a, *y = b;
	int c;

	if (x->pid != y->pid)
		return CMP(x->pid, y->pid);
	if (x->counter_id != y->counter_id)
		return CMP(x->counter_id, y->counter_id);
	c = memcmp(x->key, y->key, x->key_len < y->key_len ? x->key_len :
							      y->key_len);
	return c ? c : CMP(x->key_len, y->key_len);
}

struct named {
	uint64_t koid, pid;
	struct fxt_string name;
};

static int by_koid(const void *a, const void *b)
{
	return CMP(((const struct named *)a)->koid,
		   ((const struct named *)b)->koid);
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void print_counts(FILE *out, const uint64_t *counts, unsigned int n,
			 const char *(*name)(uint32_t))
{
	unsigned int i;

	char unknown[16];

	for (i = 0; i < n; i++) {
		if (!counts[i])
			continue;
		snprintf(unknown, sizeof(unknown), "type %u", i);
		fprintf(out, "  %-20s %" PRIu64 "\n",
			strcmp(name(i), "unknown") ? name(i) : unknown,
			counts[i]);
	}
}

static void print_threads(struct stats *s)
{
	struct thread_count *t = sorted(&s->threads, sizeof(*t), by_thread);
	struct fxt_string name;
	size_t i;

	if (!t)
		return;
	fprintf(s->out, "\nevents by thread\n  %-24s %-16s %s\n", "PID/TID",
		"NAME", "EVENTS");
	for (i = 0; i < s->threads.count; i++) {
		char who[48], quoted[40] = "-";

		snprintf(who, sizeof(who), "%" PRIu64 "/%" PRIu64, t[i].pid,
			 t[i].tid);
		if (fxt_reader_thread_name(s->r, t[i].tid, &name, NULL))
			fxtrace_format_quoted(quoted, sizeof(quoted), &name);
		fprintf(s->out, "  %-24s ", who);
		fxtrace_print_padded(s->out, quoted, strlen(quoted), 16);
		fprintf(s->out, " %" PRIu64 "\n", t[i].events);
	}
	free(t);
}

static void print_cpus(struct stats *s)
{
	struct cpu_count *c = sorted(&s->cpus, sizeof(*c), by_cpu);
	size_t i;

	if (!c)
		return;
	fprintf(s->out, "\nscheduling records by CPU\n  %-6s %-16s %-16s %s\n",
		"CPU", "SWITCHES", "WAKEUPS", "LEGACY SWITCHES");
	for (i = 0; i < s->cpus.count; i++)
		fprintf(s->out, "  %-6" PRIu64 " %-16" PRIu64 " %-16" PRIu64
			" %" PRIu64 "\n", c[i].cpu, c[i].by_subtype[1],
			c[i].by_subtype[2], c[i].by_subtype[0]);
	free(c);
}

static void print_names(struct stats *s, bool threads)
{
	struct named *all, one;
	size_t pos = 0, n = 0, cap = 16, i;
	struct named *bigger;

	all = malloc(cap * sizeof(*all));
	while (all) {
		one.pid = 0;
		if (!(threads ? fxt_reader_next_thread(s->r, &pos, &one.koid,
						       &one.pid, &one.name) :
				fxt_reader_next_process(s->r, &pos, &one.koid,
							&one.name)))
			break;
		if (n == cap) {
			bigger = realloc(all, 2 * cap * sizeof(*all));
			if (!bigger)
				break;
			all = bigger;
			cap *= 2;
		}
		all[n++] = one;
	}
	if (!all || !n) {
		free(all);
		return;
	}
	qsort(all, n, sizeof(*all), by_koid);
	fprintf(s->out, "\nnamed %s\n", threads ? "threads" : "processes");
	for (i = 0; i < n; i++) {
		fprintf(s->out, "  %-10" PRIu64 " ", all[i].koid);
		fxtrace_print_quoted(s->out, &all[i].name);
		if (threads && all[i].pid)
			fprintf(s->out, " (process %" PRIu64 ")", all[i].pid);
		fputc('\n', s->out);
	}
	free(all);
}

static void print_drops(struct stats *s)
{
	struct provider_drops *p = sorted(&s->providers, sizeof(*p),
					  by_provider);
	struct drop_series *d = sorted(&s->drops, sizeof(*d), by_series);
	size_t i;

	fprintf(s->out, "\ndrops\n");
	if (!s->providers.count && !s->drops.count)
		fprintf(s->out, "  none reported\n");
	for (i = 0; p && i < s->providers.count; i++)
		fprintf(s->out, "  provider %" PRIu64 ": %" PRIu64
			" buffer full event%s\n", p[i].provider,
			p[i].buffer_full, plural(p[i].buffer_full));
	for (i = 0; d && i < s->drops.count; i++) {
		fprintf(s->out, "  fxtrace:dropped process %" PRIu64 " id %"
			PRIu64 " ", d[i].pid, d[i].counter_id);
		/* Whole, as report prints it: a cut one may read as another. */
		fxtrace_print_escaped(s->out, &(struct fxt_string){
			.ptr = d[i].key, .len = d[i].key_len });
		fprintf(s->out, ": %.17g (last of %" PRIu64 ")\n", d[i].last,
			d[i].events);
	}
	free(p);
	free(d);
}

static void print_stats(struct stats *s, const char *name)
{
	FILE *out = s->out;
	const struct fxt_reader *r = s->r;

	fprintf(out, "%s\n", name);
	fprintf(out, "  %-20s %" PRIu64 "\n", "records", s->records);
	fprintf(out, "  %-20s %" PRIu64 "\n", "bytes", s->bytes);
	fprintf(out, "  %-20s ", "time span");
	if (s->first_ns <= s->last_ns) {
		fxtrace_print_seconds(out, s->first_ns);
		fputs(" to ", out);
		fxtrace_print_seconds(out, s->last_ns);
		fprintf(out, " (%" PRId64 " ns)\n", s->last_ns - s->first_ns);
	} else {
		fputs("none\n", out);
	}
	fprintf(out, "  %-20s %" PRIu64 " error%s, %" PRIu64 " warning%s, %"
		PRIu64 " note%s\n", "problems", fxt_reader_count(r, FXT_ERROR),
		plural(fxt_reader_count(r, FXT_ERROR)),
		fxt_reader_count(r, FXT_WARNING),
		plural(fxt_reader_count(r, FXT_WARNING)),
		fxt_reader_count(r, FXT_NOTE),
		plural(fxt_reader_count(r, FXT_NOTE)));
	fprintf(out, "\nrecords by type\n");
	print_counts(out, s->by_type, 16, fxt_record_type_name);
	if (s->by_type[FXT_REC_EVENT]) {
		fprintf(out, "\nevents by type\n");
		print_counts(out, s->by_event, 16, fxt_event_type_name);
	}
	if (s->threads.count)
		print_threads(s);
	if (s->cpus.count)
		print_cpus(s);
	print_names(s, false);
	print_names(s, true);
	print_drops(s);
}

int fxtrace_stats(FILE *out, struct fxt_reader *r, fxt_read_fn *read,
		  void *read_ctx, const char *name)
{
	struct stats s = { .out = out, .r = r, .first_ns = INT64_MAX,
			   .last_ns = INT64_MIN };
	struct drop_series *d;
	size_t pos;
	int ret;

	fxt_map_init(&s.threads, sizeof(struct thread_count));
	fxt_map_init(&s.cpus, sizeof(struct cpu_count));
	fxt_map_init(&s.drops, sizeof(struct drop_series));
	fxt_map_init(&s.providers, sizeof(struct provider_drops));
	ret = fxtrace_walk(r, read, read_ctx, count_record, &s);
	if (ret >= 0)
		print_stats(&s, name);
	fxt_map_free(&s.threads);
	fxt_map_free(&s.cpus);
	pos = 0;
	while ((d = fxt_map_next(&s.drops, &pos, NULL, NULL)))
		free(d->key);
	fxt_map_free(&s.drops);
	fxt_map_free(&s.providers);
	return ret;
}

int cmd_stats(int argc, char **argv)
{
	static const struct option options[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "memory-limit", required_argument, NULL, FXTRACE_OPT_MEMORY_LIMIT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t memory_limit = FXTRACE_MEMORY_LIMIT_AUTO;
	const char *input = NULL, *path;
	struct fxtrace_input in;
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:h", options, NULL)) != -1) {
		if (opt == 'i') {
			input = optarg;
			continue;
		}
		if (opt == FXTRACE_OPT_MEMORY_LIMIT) {
			ret = fxtrace_memory_limit_option("stats", optarg,
							  &memory_limit);
			if (ret)
				return ret;
			continue;
		}
		if (opt == 'h')
			return fxtrace_cmd_help("stats");
		return fxtrace_option_error("stats", opt, argv, options);
	}
	path = fxtrace_trace_path("stats", argc, argv, input);
	if (!path)
		return EXIT_USAGE;
	ret = fxtrace_input_open(&in, "stats", path, memory_limit);
	if (ret)
		return ret;
	ret = fxtrace_stats(stdout, in.reader, fxtrace_read_source, &in.src,
			    in.path);
	return fxtrace_input_close(&in, ret);
}
