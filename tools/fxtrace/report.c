// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - `fxtrace report`: the answers perf and trace-cmd users expect
 * before they open a browser.
 *
 * The walk keeps what it needs in memory (durations, scheduling records,
 * drop reports, names interned), then computes, in time order:
 * - slices: per thread, a duration end closes the innermost open begin
 *   (as Perfetto does); complete events are slices of their own.  Per
 *   category:name: count, total, self (total minus the time of the slices
 *   nested directly inside), mean, p50, p99, max.  kernel:syscall slices
 *   form the syscall table.  The longest slices, with thread and start.
 * - scheduling: per thread, CPU time (switched in to switched out on one
 *   CPU), time blocked (switched out in a state other than running, until
 *   woken, or switched in if no wakeup is seen), time preempted (switched
 *   out running, until switched in again), wakeup-to-run latency
 *   (wakeup to the next switch in); per process the sums; per CPU busy and
 *   idle time.
 * - drops: per buffer, the last fxtrace:dropped counter values; provider
 *   "buffer full" events.
 * Documentation/fxtrace.rst defines every figure; tools/fxtrace/tests
 * recompute them from `fxtrace dump` lines.
 *
 * Every figure is an integer number of nanoseconds; time order is
 * (time, file offset), the order of `fxtrace dump`.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_map.h"
#include "fxtrace.h"
#include "report.h"

/* ---- collecting ----------------------------------------------------------- */

/*
 * The number of category:name, its bytes compared.  Keyed hashes: with
 * FNV-1a a trace can give any number of names one hash (a few colliding
 * pairs of blocks, chained), each new one walking past all the others.
 */
static int intern(struct report *rp, const struct fxt_string *cat,
		  const struct fxt_string *name, uint32_t *index)
{
	uint64_t k1 = fxt_string_hash_keyed(cat);
	uint64_t k2 = fxt_string_hash_keyed(name);
	struct report_name *n, *grown;
	uint32_t *slot;
	int created;

	for (;; k2++) {
		slot = fxt_map_put(&rp->name_index, k1, k2, &created);
		if (!slot)
			return -ENOMEM;
		if (created)
			break;
		n = &rp->names[*slot];
		if (n->cat_len == (cat->ptr ? cat->len : 0) &&
		    n->name_len == (name->ptr ? name->len : 0) &&
		    !memcmp(n->cat, cat->ptr ? cat->ptr : "", n->cat_len) &&
		    !memcmp(n->name, name->ptr ? name->ptr : "", n->name_len)) {
			*index = *slot;
			return 0;
		}
	}
	if (rp->nnames == rp->names_cap) {
		size_t cap = rp->names_cap ? 2 * rp->names_cap : 64;

		grown = realloc(rp->names, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		rp->names = grown;
		rp->names_cap = cap;
	}
	n = &rp->names[rp->nnames];
	memset(n, 0, sizeof(*n));
	n->cat_len = cat->ptr ? cat->len : 0;
	n->name_len = name->ptr ? name->len : 0;
	n->cat = malloc(n->cat_len + 1);
	n->name = malloc(n->name_len + 1);
	if (!n->cat || !n->name) {
		free(n->cat);
		free(n->name);
		return -ENOMEM;
	}
	memcpy(n->cat, cat->ptr ? cat->ptr : "", n->cat_len);
	memcpy(n->name, name->ptr ? name->ptr : "", n->name_len);
	n->cat[n->cat_len] = n->name[n->name_len] = '\0';
	n->syscall = fxt_string_is(cat, "kernel:syscall");
	*slot = rp->nnames;
	*index = rp->nnames++;
	return 0;
}

size_t report_full_name(const struct report_name *n, char *buf, size_t size)
{
	size_t len = 0, part;

	if (n->cat_len) {
		part = n->cat_len < size - 1 ? n->cat_len : size - 1;
		memcpy(buf, n->cat, part);
		len = part;
		if (len < size - 1)
			buf[len++] = ':';
	}
	part = n->name_len < size - 1 - len ? n->name_len : size - 1 - len;
	memcpy(buf + len, n->name, part);
	len += part;
	buf[len] = '\0';
	return len;
}

/* Append one element to a growing array. */
static void *grow(void **array, size_t *n, size_t *cap, size_t size)
{
	void *grown;

	if (*n == *cap) {
		size_t more = *cap ? 2 * *cap : 256;

		grown = realloc(*array, more * size);
		if (!grown)
			return NULL;
		*array = grown;
		*cap = more;
	}
	return (char *)*array + size * (*n)++;
}

static int collect_event(struct report *rp, const struct fxt_record *rec)
{
	struct report_event *e;
	uint32_t i;
	double v;

	if (!rec->ts_ns_valid || rec->thread.undefined)
		return 0;
	switch (rec->subtype) {
	case FXT_EVENT_DURATION_BEGIN:
	case FXT_EVENT_DURATION_END:
	case FXT_EVENT_DURATION_COMPLETE:
		if (rec->subtype == FXT_EVENT_DURATION_COMPLETE &&
		    (!rec->end_ts_ns_valid || rec->end_ts_ns < rec->ts_ns))
			return 0;
		e = grow((void **)&rp->events, &rp->nevents, &rp->events_cap,
			 sizeof(*e));
		if (!e)
			return -ENOMEM;
		e->pid = rec->thread.pid;
		e->tid = rec->thread.tid;
		e->ts = rec->ts_ns;
		e->end = rec->end_ts_ns;
		e->offset = rec->offset;
		e->type = rec->subtype;
		return intern(rp, &rec->category, &rec->name, &e->name);
	case FXT_EVENT_COUNTER:
		if (!((fxt_string_is(&rec->category, "fxtrace") &&
		       fxt_string_is(&rec->name, "dropped")) ||
		      fxt_string_is(&rec->name, "fxtrace:dropped")))
			return 0;
		for (i = 0; i < rec->nargs; i++) {
			struct report_drop *d;

			if (!fxt_arg_number(&rec->args[i], &v))
				continue;
			d = grow((void **)&rp->drops, &rp->ndrops,
				 &rp->drops_cap, sizeof(*d));
			if (!d)
				return -ENOMEM;
			d->pid = rec->thread.pid;
			d->tid = rec->thread.tid;
			d->id = rec->id;
			d->ts = rec->ts_ns;
			d->offset = rec->offset;
			d->value = v;
			if (intern(rp, &(struct fxt_string){ 0 },
				   &rec->args[i].name, &d->arg))
				return -ENOMEM;
		}
		return 0;
	}
	return 0;
}

static int collect_sched(struct report *rp, const struct fxt_record *rec)
{
	struct report_sched *s;

	if (rec->subtype > FXT_SCHED_WAKEUP || !rec->ts_ns_valid)
		return 0;
	s = grow((void **)&rp->sched, &rp->nsched, &rp->sched_cap, sizeof(*s));
	if (!s)
		return -ENOMEM;
	memset(s, 0, sizeof(*s));
	s->ts = rec->ts_ns;
	s->offset = rec->offset;
	s->cpu = rec->cpu;
	s->wakeup = rec->subtype == FXT_SCHED_WAKEUP;
	s->state = rec->out_state;
	if (s->wakeup) {
		s->in = rec->thread.tid;
		return 0;
	}
	s->out = rec->out.tid;
	s->in = rec->in.tid;
	return 0;
}

/* What every record says of threads' processes, selected or not. */
static int learn_threads(struct report *rp, const struct fxt_record *rec)
{
	uint64_t pid;

	if (fxtrace_record_thread(rec))
		return fxtrace_learn_pid(&rp->pids, rec->thread.pid,
					 rec->thread.tid);
	switch (rec->type) {
	case FXT_REC_KOBJ:
		pid = fxtrace_thread_process(rec);
		return pid ? fxtrace_learn_pid(&rp->pids, pid, rec->id) : 0;
	case FXT_REC_SCHED:
		if (rec->subtype != FXT_SCHED_LEGACY_CONTEXT_SWITCH)
			return 0;
		return fxtrace_learn_pid(&rp->pids, rec->out.pid, rec->out.tid) ||
		       fxtrace_learn_pid(&rp->pids, rec->in.pid, rec->in.tid) ? -ENOMEM : 0;
	}
	return 0;
}

/* A selected record naming a thread lists it in the thread table. */
static int list_thread(struct report *rp, const struct fxt_record *rec)
{
	uint64_t *pid, koid;

	if (rec->type == FXT_REC_KOBJ) {
		koid = fxtrace_thread_process(rec);
		if (!koid)
			return 0;
		pid = fxt_map_put(&rp->listed, rec->id, 0, NULL);
		if (pid)
			*pid = koid;
		return pid ? 0 : -ENOMEM;
	}
	if (!rec->has_ts || rec->thread.undefined || !rec->thread.tid)
		return 0;
	pid = fxt_map_put(&rp->listed, rec->thread.tid, 0, NULL);
	if (pid)
		*pid = rec->thread.pid;
	return pid ? 0 : -ENOMEM;
}

static int collect(void *ctx, const struct fxt_record *rec)
{
	struct report *rp = ctx;
	struct report_provider *p;
	size_t *index;
	int created;

	rp->records++;
	if (rec->has_ts && rec->ts_ns_valid) {
		if (!rp->have_time || rec->ts_ns < rp->first_ns)
			rp->first_ns = rec->ts_ns;
		if (!rp->have_time || rec->ts_ns > rp->last_ns)
			rp->last_ns = rec->ts_ns;
		rp->have_time = true;
	}
	if (rec->type == FXT_REC_EVENT &&
	    rec->subtype == FXT_EVENT_DURATION_COMPLETE &&
	    rec->end_ts_ns_valid && rec->end_ts_ns > rp->last_ns)
		rp->last_ns = rec->end_ts_ns;
	if (!rec->bytes || !rec->complete)
		return 0;
	if (learn_threads(rp, rec))
		return -ENOMEM;
	if (!fxtrace_select_record(rp->select, rec))
		return 0;
	switch (rec->type) {
	case FXT_REC_EVENT:
		return list_thread(rp, rec) || collect_event(rp, rec) ?
		       -ENOMEM : 0;
	case FXT_REC_LOG:
	case FXT_REC_LARGE:
	case FXT_REC_KOBJ:
		return list_thread(rp, rec);
	case FXT_REC_SCHED:
		return collect_sched(rp, rec);
	case FXT_REC_METADATA:
		if (rec->subtype != FXT_META_PROVIDER_EVENT ||
		    rec->value != FXT_PROVIDER_EVENT_BUFFER_FULL)
			return 0;
		index = fxt_map_put(&rp->provider_index, rec->id, 0, &created);
		if (!index)
			return -ENOMEM;
		if (created) {
			*index = rp->nproviders;
			p = grow((void **)&rp->providers, &rp->nproviders,
				 &rp->providers_cap, sizeof(*p));
			if (!p)
				return -ENOMEM;
			p->id = rec->id;
			p->buffer_full = 0;
		}
		rp->providers[*index].buffer_full++;
		return 0;
	}
	return 0;
}

/* ---- computing ------------------------------------------------------------ */

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static int event_order(const void *a, const void *b)
{
	const struct report_event *x = a, *y = b;

	if (x->pid != y->pid)
		return CMP(x->pid, y->pid);
	if (x->tid != y->tid)
		return CMP(x->tid, y->tid);
	if (x->ts != y->ts)
		return CMP(x->ts, y->ts);
	return CMP(x->offset, y->offset);
}

static struct report_slice *add_slice(struct report *rp,
				      const struct report_event *open,
				      int64_t end)
{
	struct report_slice *s = grow((void **)&rp->slices, &rp->nslices,
				      &rp->slices_cap, sizeof(*s));

	if (!s)
		return NULL;
	s->pid = open->pid;
	s->tid = open->tid;
	s->name = open->name;
	s->start = open->ts;
	s->end = end;
	s->offset = open->offset;
	s->self = end - open->ts;
	return s;
}

/* Pair begins and ends per thread, in time order. */
static int make_slices(struct report *rp)
{
	const struct report_event **stack = NULL;
	size_t depth = 0, cap = 0, i;
	const struct report_event *e;

	if (rp->nevents)
		qsort(rp->events, rp->nevents, sizeof(*rp->events),
		      event_order);
	for (i = 0; i < rp->nevents; i++) {
		e = &rp->events[i];
		if (i && (e->pid != e[-1].pid || e->tid != e[-1].tid)) {
			rp->unended += depth;
			depth = 0;
		}
		if (e->type == FXT_EVENT_DURATION_BEGIN) {
			if (depth == cap) {
				const struct report_event **grown;

				cap = cap ? 2 * cap : 16;
				grown = realloc(stack, cap * sizeof(*stack));
				if (!grown)
					goto nomem;
				stack = grown;
			}
			stack[depth++] = e;
		} else if (e->type == FXT_EVENT_DURATION_END) {
			if (!depth)
				rp->unmatched_ends++;
			else if (!add_slice(rp, stack[--depth], e->ts))
				goto nomem;
		} else if (!add_slice(rp, e, e->end)) {
			goto nomem;
		}
	}
	rp->unended += depth;
	free(stack);
	return 0;
nomem:
	free(stack);
	return -ENOMEM;
}

static int slice_nesting_order(const void *a, const void *b)
{
	const struct report_slice *x = a, *y = b;

	if (x->pid != y->pid)
		return CMP(x->pid, y->pid);
	if (x->tid != y->tid)
		return CMP(x->tid, y->tid);
	if (x->start != y->start)
		return CMP(x->start, y->start);
	if (x->end != y->end)
		return CMP(y->end, x->end);	/* the outer one first */
	return CMP(x->offset, y->offset);
}

/*
 * Self time: a slice's duration minus the part of each slice nested
 * directly inside it on its thread (clipped to its end).
 */
static int self_times(struct report *rp)
{
	struct report_slice **stack = NULL, *s, *parent;
	size_t depth = 0, i;

	if (rp->nslices) {
		qsort(rp->slices, rp->nslices, sizeof(*rp->slices),
		      slice_nesting_order);
		stack = malloc(rp->nslices * sizeof(*stack));
		if (!stack)
			return -ENOMEM;
	}
	for (i = 0; i < rp->nslices; i++) {
		s = &rp->slices[i];
		if (i && (s->pid != s[-1].pid || s->tid != s[-1].tid))
			depth = 0;
		while (depth && stack[depth - 1]->end <= s->start)
			depth--;
		if (depth) {
			parent = stack[depth - 1];
			parent->self -= (s->end < parent->end ? s->end :
					 parent->end) - s->start;
		}
		stack[depth++] = s;
	}
	free(stack);
	return 0;
}

static int64_t *sorted_durations(const struct report_slice *all, size_t n,
				 const uint32_t *order, size_t first, size_t count)
{
	int64_t *d = malloc((count ? count : 1) * sizeof(*d));
	size_t i;

	(void)n;
	if (!d)
		return NULL;
	for (i = 0; i < count; i++)
		d[i] = all[order[first + i]].end - all[order[first + i]].start;
	return d;
}

/* Nearest rank: the smallest value with at least p% of them at or below. */
int64_t report_percentile(const int64_t *sorted, size_t n, unsigned int p)
{
	size_t rank = (p * n + 99) / 100;

	return n ? sorted[rank ? rank - 1 : 0] : 0;
}

static const struct report_slice *slices_for_sort;

static int by_name_then_duration(const void *a, const void *b)
{
	const struct report_slice *x = &slices_for_sort[*(const uint32_t *)a];
	const struct report_slice *y = &slices_for_sort[*(const uint32_t *)b];

	if (x->name != y->name)
		return CMP(x->name, y->name);
	return CMP(x->end - x->start, y->end - y->start);
}

static int compute_name_stats(struct report *rp)
{
	uint32_t *order;
	size_t i, j;
	int64_t *d;

	rp->stats = calloc(rp->nnames ? rp->nnames : 1, sizeof(*rp->stats));
	order = malloc((rp->nslices ? rp->nslices : 1) * sizeof(*order));
	if (!rp->stats || !order) {
		free(order);
		return -ENOMEM;
	}
	for (i = 0; i < rp->nslices; i++)
		order[i] = i;
	slices_for_sort = rp->slices;
	qsort(order, rp->nslices, sizeof(*order), by_name_then_duration);
	for (i = 0; i < rp->nslices; i = j) {
		struct report_stat *st = &rp->stats[rp->slices[order[i]].name];

		for (j = i; j < rp->nslices &&
		     rp->slices[order[j]].name == rp->slices[order[i]].name; j++) {
			const struct report_slice *s = &rp->slices[order[j]];

			st->total = report_ns_add(st->total, s->end - s->start);
			st->self = report_ns_add(st->self, s->self);
		}
		st->count = j - i;
		d = sorted_durations(rp->slices, rp->nslices, order, i, j - i);
		if (!d) {
			free(order);
			return -ENOMEM;
		}
		st->mean = st->total / (int64_t)st->count;
		st->p50 = report_percentile(d, st->count, 50);
		st->p99 = report_percentile(d, st->count, 99);
		st->max = d[st->count - 1];
		free(d);
	}
	free(order);
	return 0;
}

/* ---- scheduling ----------------------------------------------------------- */

static int sched_order(const void *a, const void *b)
{
	const struct report_sched *x = a, *y = b;

	return x->ts != y->ts ? CMP(x->ts, y->ts) : CMP(x->offset, y->offset);
}

static struct report_thread *thread_of(struct report *rp, uint64_t tid)
{
	struct report_thread *t;
	int created;

	t = fxt_map_put(&rp->threads, tid, 0, &created);
	if (t && created)
		t->tid = tid;
	return t;
}

static int add_latency(struct report_thread *t, int64_t ns)
{
	int64_t *grown;

	if (t->nlatency == t->latency_cap) {
		size_t cap = t->latency_cap ? 2 * t->latency_cap : 16;

		grown = realloc(t->latency, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		t->latency = grown;
		t->latency_cap = cap;
	}
	t->latency[t->nlatency++] = ns;
	return 0;
}

static struct report_cpu *cpu_of(struct report *rp, uint32_t cpu)
{
	struct report_cpu *c;
	int created;

	c = fxt_map_put(&rp->cpus, cpu, 0, &created);
	if (c && created)
		c->cpu = cpu;
	return c;
}

static int switch_thread(struct report *rp, const struct report_sched *s)
{
	struct report_cpu *c = cpu_of(rp, s->cpu);
	struct report_thread *out, *in;

	if (!c)
		return -ENOMEM;
	c->switches++;
	if (c->running && c->tid == s->out) {
		int64_t ran = s->ts - c->since;

		if (s->out) {
			out = thread_of(rp, s->out);
			if (!out)
				return -ENOMEM;
			out->cpu_ns = report_ns_add(out->cpu_ns, ran);
			out->on_cpu = false;
			c->busy_ns = report_ns_add(c->busy_ns, ran);
		} else {
			c->idle_ns = report_ns_add(c->idle_ns, ran);
		}
	}
	if (s->out) {
		out = thread_of(rp, s->out);
		if (!out)
			return -ENOMEM;
		out->on_cpu = false;
		out->blocked = s->state != FXT_THREAD_STATE_RUNNING;
		out->preempted = !out->blocked;
		out->blocked_since = s->ts;
		out->woken = false;
	}
	c->running = true;
	c->tid = s->in;
	c->since = s->ts;
	if (!s->in)
		return 0;
	in = thread_of(rp, s->in);
	if (!in)
		return -ENOMEM;
	in->switches_in++;
	if (in->woken && add_latency(in, s->ts - in->woken_at))
		return -ENOMEM;
	if (in->blocked) {
		in->blocked_ns = report_ns_add(in->blocked_ns,
					      s->ts - in->blocked_since);
		in->blocked = false;
	}
	if (in->preempted) {
		in->preempted_ns = report_ns_add(in->preempted_ns,
					      s->ts - in->blocked_since);
		in->preempted = false;
	}
	in->woken = false;
	in->on_cpu = true;
	return 0;
}

static int wake_thread(struct report *rp, const struct report_sched *s)
{
	struct report_cpu *c = cpu_of(rp, s->cpu);
	struct report_thread *t;

	if (!c)
		return -ENOMEM;
	c->wakeups++;
	if (!s->in)
		return 0;
	t = thread_of(rp, s->in);
	if (!t)
		return -ENOMEM;
	t->wakeups++;
	if (t->on_cpu || t->woken)
		return 0;
	if (t->blocked) {
		t->blocked_ns = report_ns_add(t->blocked_ns,
					      s->ts - t->blocked_since);
		t->blocked = false;
	}
	t->woken = true;
	t->woken_at = s->ts;
	return 0;
}

static int compute_sched(struct report *rp)
{
	size_t i;
	int ret;

	if (rp->nsched)
		qsort(rp->sched, rp->nsched, sizeof(*rp->sched), sched_order);
	for (i = 0; i < rp->nsched; i++) {
		ret = rp->sched[i].wakeup ? wake_thread(rp, &rp->sched[i]) :
					    switch_thread(rp, &rp->sched[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Threads named by selected records but never scheduled are listed too. */
static int add_event_threads(struct report *rp)
{
	size_t pos = 0;
	uint64_t tid;
	const uint64_t *pid;

	while ((pid = fxt_map_next(&rp->listed, &pos, &tid, NULL)))
		if (fxtrace_select_thread(rp->select, *pid, tid) &&
		    !thread_of(rp, tid))
			return -ENOMEM;
	return 0;
}

/* A thread passes --pid/--tid; its process as every record told it. */
static bool thread_selected(const struct report *rp, uint64_t tid)
{
	const uint64_t *pid = fxt_map_get(&rp->pids, tid, 0);

	if (rp->select->npids && tid && !pid)
		return false;
	return fxtrace_select_thread(rp->select, pid && tid ? *pid : 0, tid);
}

/*
 * --pid and --tid, judged once every record has told its threads'
 * processes (as dump does): a record passes when one of its threads does.
 */
static void select_threads(struct report *rp)
{
	size_t i, kept;

	if (!fxtrace_select_by_thread(rp->select))
		return;
	for (i = kept = 0; i < rp->nevents; i++)
		if (fxtrace_select_thread(rp->select, rp->events[i].pid,
					  rp->events[i].tid))
			rp->events[kept++] = rp->events[i];
	rp->nevents = kept;
	for (i = kept = 0; i < rp->ndrops; i++)
		if (fxtrace_select_thread(rp->select, rp->drops[i].pid,
					  rp->drops[i].tid))
			rp->drops[kept++] = rp->drops[i];
	rp->ndrops = kept;
	for (i = kept = 0; i < rp->nsched; i++)
		if (thread_selected(rp, rp->sched[i].in) ||
		    (!rp->sched[i].wakeup && thread_selected(rp, rp->sched[i].out)))
			rp->sched[kept++] = rp->sched[i];
	rp->nsched = kept;
	/* Provider events name no thread. */
	rp->nproviders = 0;
}

int report_compute(struct report *rp)
{
	int ret;

	select_threads(rp);
	ret = make_slices(rp);
	if (!ret)
		ret = self_times(rp);
	if (!ret)
		ret = compute_name_stats(rp);
	if (!ret)
		ret = compute_sched(rp);
	if (!ret)
		ret = add_event_threads(rp);
	return ret;
}

uint64_t report_pid_of(const struct report *rp, uint64_t tid)
{
	const uint64_t *pid = fxt_map_get(&rp->pids, tid, 0);

	return pid ? *pid : 0;
}

void report_init(struct report *rp, struct fxt_reader *r,
		 const struct fxtrace_select *select)
{
	static const struct fxtrace_select all;

	memset(rp, 0, sizeof(*rp));
	rp->r = r;
	rp->select = select ? select : &all;
	fxt_map_init(&rp->listed, sizeof(uint64_t));
	fxt_map_init(&rp->name_index, sizeof(uint32_t));
	fxt_map_init(&rp->pids, sizeof(uint64_t));
	fxt_map_init(&rp->threads, sizeof(struct report_thread));
	fxt_map_init(&rp->cpus, sizeof(struct report_cpu));
	fxt_map_init(&rp->provider_index, sizeof(size_t));
}

int report_collect(struct report *rp, fxt_read_fn *read, void *read_ctx)
{
	return fxt_reader_read(rp->r, read, read_ctx, collect, rp);
}

void report_free(struct report *rp)
{
	struct report_thread *t;
	size_t pos = 0, i;

	for (i = 0; i < rp->nnames; i++) {
		free(rp->names[i].cat);
		free(rp->names[i].name);
	}
	while ((t = fxt_map_next(&rp->threads, &pos, NULL, NULL)))
		free(t->latency);
	free(rp->names);
	free(rp->events);
	free(rp->slices);
	free(rp->sched);
	free(rp->drops);
	free(rp->providers);
	free(rp->stats);
	fxt_map_free(&rp->name_index);
	fxt_map_free(&rp->pids);
	fxt_map_free(&rp->listed);
	fxt_map_free(&rp->threads);
	fxt_map_free(&rp->cpus);
	fxt_map_free(&rp->provider_index);
}
