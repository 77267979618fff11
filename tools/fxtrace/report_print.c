// SPDX-License-Identifier: GPL-2.0
/*
 * report_print.c - `fxtrace report`'s command line, its tables sorted, and
 * its text and JSON outputs (the HTML page is in report_html.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_file.h"
#include "report.h"

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* ---- rows ----------------------------------------------------------------- */

static const struct report *sort_rp;
static enum report_key sort_key;

static int64_t stat_value(const struct report_stat *s, enum report_key key)
{
	switch (key) {
	case KEY_COUNT:
		return (int64_t)s->count;
	case KEY_SELF:
		return s->self;
	case KEY_MEAN:
		return s->mean;
	case KEY_P50:
		return s->p50;
	case KEY_P99:
		return s->p99;
	case KEY_MAX:
		return s->max;
	default:
		return s->total;
	}
}

/* As strcmp(), but over len bytes: a name may hold NUL bytes. */
static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

static int name_cmp(const struct report_name *x, const struct report_name *y)
{
	int c = bytes_cmp(x->cat, x->cat_len, y->cat, y->cat_len);

	return c ? c : bytes_cmp(x->name, x->name_len, y->name, y->name_len);
}

/* Largest first; by category:name for KEY_NAME and on ties. */
static int by_stat(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t vx = stat_value(&sort_rp->stats[x], sort_key);
	int64_t vy = stat_value(&sort_rp->stats[y], sort_key);

	if (sort_key != KEY_NAME && vx != vy)
		return CMP(vy, vx);
	return name_cmp(&sort_rp->names[x], &sort_rp->names[y]);
}

static int64_t thread_value(const struct report_thread_row *t,
			    enum report_key key)
{
	switch (key) {
	case KEY_BLOCKED:
		return t->t->blocked_ns;
	case KEY_WAKEUPS:
		return (int64_t)t->t->wakeups;
	case KEY_LATENCY:
		return t->lat_max;
	case KEY_TID:
		return 0;
	default:
		return t->t->cpu_ns;
	}
}

static int by_thread(const void *a, const void *b)
{
	const struct report_thread_row *x = a, *y = b;
	int64_t vx = thread_value(x, sort_key), vy = thread_value(y, sort_key);

	if (vx != vy)
		return CMP(vy, vx);
	return x->pid != y->pid ? CMP(x->pid, y->pid) : CMP(x->t->tid, y->t->tid);
}

static int64_t process_value(const struct report_process_row *p,
			     enum report_key key)
{
	switch (key) {
	case KEY_BLOCKED:
		return p->blocked_ns;
	case KEY_WAKEUPS:
		return (int64_t)p->wakeups;
	case KEY_LATENCY:
		return p->lat_max;
	case KEY_TID:
		return 0;
	default:
		return p->cpu_ns;
	}
}

static int by_process(const void *a, const void *b)
{
	const struct report_process_row *x = a, *y = b;
	int64_t vx = process_value(x, sort_key), vy = process_value(y, sort_key);

	return vx != vy ? CMP(vy, vx) : CMP(x->pid, y->pid);
}

static int by_cpu(const void *a, const void *b)
{
	return CMP(((const struct report_cpu *)a)->cpu,
		   ((const struct report_cpu *)b)->cpu);
}

/* Longest first; then earliest, then by thread and offset. */
static int by_length(const void *a, const void *b)
{
	const struct report_slice *x = &sort_rp->slices[*(const uint32_t *)a];
	const struct report_slice *y = &sort_rp->slices[*(const uint32_t *)b];

	if (x->end - x->start != y->end - y->start)
		return CMP(y->end - y->start, x->end - x->start);
	if (x->start != y->start)
		return CMP(x->start, y->start);
	if (x->tid != y->tid)
		return CMP(x->tid, y->tid);
	return CMP(x->offset, y->offset);
}

static int by_value(const void *a, const void *b)
{
	return CMP(*(const int64_t *)a, *(const int64_t *)b);
}

static int thread_rows(const struct report *rp, struct report_rows *rows)
{
	const struct report_thread *t;
	struct report_thread_row *row;
	size_t pos = 0, i;
	int64_t *sorted;

	rows->threads = calloc(rp->threads.count + 1, sizeof(*rows->threads));
	if (!rows->threads)
		return -ENOMEM;
	while ((t = fxt_map_next(&rp->threads, &pos, NULL, NULL))) {
		/* With --pid/--tid, the threads switched with them are not rows. */
		if (!fxtrace_select_thread(rp->select, report_pid_of(rp, t->tid),
					   t->tid))
			continue;
		row = &rows->threads[rows->nthreads++];
		row->t = t;
		row->pid = report_pid_of(rp, t->tid);
		if (!t->nlatency)
			continue;
		sorted = malloc(t->nlatency * sizeof(*sorted));
		if (!sorted)
			return -ENOMEM;
		memcpy(sorted, t->latency, t->nlatency * sizeof(*sorted));
		qsort(sorted, t->nlatency, sizeof(*sorted), by_value);
		for (i = 0; i < t->nlatency; i++)
			row->lat_total = report_ns_add(row->lat_total,
						      sorted[i]);
		row->lat_max = sorted[t->nlatency - 1];
		row->lat_p50 = report_percentile(sorted, t->nlatency, 50);
		row->lat_p99 = report_percentile(sorted, t->nlatency, 99);
		free(sorted);
	}
	return 0;
}

static int process_rows(struct report_rows *rows)
{
	struct report_process_row *p;
	struct fxt_map index;		/* (pid, 0) -> index in processes */
	size_t i, *j;
	int created;

	rows->processes = calloc(rows->nthreads + 1, sizeof(*rows->processes));
	if (!rows->processes)
		return -ENOMEM;
	fxt_map_init(&index, sizeof(size_t));
	for (i = 0; i < rows->nthreads; i++) {
		const struct report_thread_row *t = &rows->threads[i];

		j = fxt_map_put(&index, t->pid, 0, &created);
		if (!j) {
			fxt_map_free(&index);
			return -ENOMEM;
		}
		if (created)
			*j = rows->nprocesses++;
		p = &rows->processes[*j];
		p->pid = t->pid;
		p->threads++;
		p->switches_in += t->t->switches_in;
		p->wakeups += t->t->wakeups;
		p->latency_count += t->t->nlatency;
		p->cpu_ns = report_ns_add(p->cpu_ns, t->t->cpu_ns);
		p->blocked_ns = report_ns_add(p->blocked_ns, t->t->blocked_ns);
		p->preempted_ns = report_ns_add(p->preempted_ns,
					      t->t->preempted_ns);
		p->lat_total = report_ns_add(p->lat_total, t->lat_total);
		if (t->lat_max > p->lat_max)
			p->lat_max = t->lat_max;
	}
	fxt_map_free(&index);
	return 0;
}

int report_rows(const struct report *rp, const struct report_options *o,
		struct report_rows *rows)
{
	const struct report_cpu *c;
	size_t pos = 0, i;

	memset(rows, 0, sizeof(*rows));
	rows->slices = malloc((rp->nnames + 1) * sizeof(uint32_t));
	rows->syscalls = malloc((rp->nnames + 1) * sizeof(uint32_t));
	rows->cpus = malloc((rp->cpus.count + 1) * sizeof(*rows->cpus));
	rows->longest = malloc((rp->nslices + 1) * sizeof(uint32_t));
	if (!rows->slices || !rows->syscalls || !rows->cpus || !rows->longest)
		return -ENOMEM;
	for (i = 0; i < rp->nnames; i++) {
		if (!rp->stats[i].count)
			continue;
		if (rp->names[i].syscall)
			rows->syscalls[rows->nsyscalls++] = i;
		else
			rows->slices[rows->nslices++] = i;
	}
	sort_rp = rp;
	sort_key = o->slice_key;
	qsort(rows->slices, rows->nslices, sizeof(uint32_t), by_stat);
	qsort(rows->syscalls, rows->nsyscalls, sizeof(uint32_t), by_stat);
	for (i = 0; i < rp->nslices; i++)
		rows->longest[i] = i;
	qsort(rows->longest, rp->nslices, sizeof(uint32_t), by_length);
	rows->nlongest = rp->nslices < o->top ? rp->nslices : o->top;

	if (thread_rows(rp, rows) || process_rows(rows))
		return -ENOMEM;
	sort_key = o->thread_key;
	qsort(rows->threads, rows->nthreads, sizeof(*rows->threads), by_thread);
	qsort(rows->processes, rows->nprocesses, sizeof(*rows->processes),
	      by_process);
	while ((c = fxt_map_next(&rp->cpus, &pos, NULL, NULL)))
		rows->cpus[rows->ncpus++] = *c;
	qsort(rows->cpus, rows->ncpus, sizeof(*rows->cpus), by_cpu);
	return 0;
}

void report_rows_free(struct report_rows *rows)
{
	free(rows->slices);
	free(rows->syscalls);
	free(rows->threads);
	free(rows->processes);
	free(rows->cpus);
	free(rows->longest);
}

/* ---- text ----------------------------------------------------------------- */

/*
 * category:name whole (two names cut alike would read as one), escaped,
 * padded to width columns by what is printed: an escape takes more
 * columns than its byte, a UTF-8 character fewer (or two for one).
 */
static void print_name(FILE *out, const struct report_name *n, size_t width)
{
	struct fxtrace_out o;

	fxtrace_out_init(&o, NULL);
	if (n->cat_len) {
		fxtrace_out_escaped(&o, &(struct fxt_string){
			.ptr = n->cat, .len = (uint32_t)n->cat_len });
		fxtrace_out_char(&o, ':');
	}
	fxtrace_out_escaped(&o, &(struct fxt_string){
		.ptr = n->name, .len = (uint32_t)n->name_len });
	if (!o.failed)
		fxtrace_print_padded(out, o.buf ? o.buf : "", o.len, width);
	fxtrace_out_free(&o);
}

static const char *const key_names[] = {
	[KEY_COUNT] = "count", [KEY_TOTAL] = "total", [KEY_SELF] = "self",
	[KEY_MEAN] = "mean", [KEY_P50] = "p50", [KEY_P99] = "p99",
	[KEY_MAX] = "max", [KEY_NAME] = "name", [KEY_CPU] = "cpu",
	[KEY_BLOCKED] = "blocked", [KEY_WAKEUPS] = "wakeups",
	[KEY_LATENCY] = "latency", [KEY_TID] = "tid",
};

static void print_stat_table(FILE *out, const struct report *rp,
			     const uint32_t *names, size_t n,
			     const char *title, const struct report_options *o)
{
	size_t i;

	fprintf(out, "\n%s (ns, sorted by %s)\n", title, key_names[o->slice_key]);
	if (!n) {
		fprintf(out, "  none\n");
		return;
	}
	fprintf(out, "  %-32s %8s %14s %14s %12s %12s %12s %12s\n", "NAME",
		"COUNT", "TOTAL", "SELF", "MEAN", "P50", "P99", "MAX");
	for (i = 0; i < n; i++) {
		const struct report_stat *s = &rp->stats[names[i]];

		fputs("  ", out);
		print_name(out, &rp->names[names[i]], 32);
		fprintf(out, " %8" PRIu64 " %14" PRId64 " %14" PRId64 " %12"
			PRId64 " %12" PRId64 " %12" PRId64 " %12" PRId64 "\n",
			s->count, s->total, s->self, s->mean, s->p50, s->p99,
			s->max);
	}
}

static void thread_name(const struct report *rp, uint64_t tid, char *buf,
			size_t size)
{
	struct fxt_string name;

	snprintf(buf, size, "-");
	if (fxt_reader_thread_name(rp->r, tid, &name, NULL))
		fxtrace_format_quoted(buf, size, &name);
}

static void process_name(const struct report *rp, uint64_t pid, char *buf,
			 size_t size)
{
	struct fxt_string name;

	snprintf(buf, size, "-");
	if (fxt_reader_process_name(rp->r, pid, &name))
		fxtrace_format_quoted(buf, size, &name);
}

static void print_longest(FILE *out, const struct report *rp,
			  const struct report_rows *rows)
{
	char who[48], name[40];
	size_t i;

	fprintf(out, "\nlongest slices\n");
	if (!rows->nlongest) {
		fprintf(out, "  none\n");
		return;
	}
	fprintf(out, "  %12s %18s  %-20s %-16s %s\n", "DURATION", "START",
		"PID/TID", "THREAD", "NAME");
	for (i = 0; i < rows->nlongest; i++) {
		const struct report_slice *s = &rp->slices[rows->longest[i]];

		snprintf(who, sizeof(who), "%" PRIu64 "/%" PRIu64, s->pid,
			 s->tid);
		thread_name(rp, s->tid, name, sizeof(name));
		fprintf(out, "  %12" PRId64 " ", s->end - s->start);
		fprintf(out, "%8" PRId64 ".%09" PRId64, s->start / 1000000000,
			s->start % 1000000000);
		fprintf(out, "  %-20s ", who);
		fxtrace_print_padded(out, name, strlen(name), 16);
		fputc(' ', out);
		print_name(out, &rp->names[s->name], 0);
		fputc('\n', out);
	}
}

static void print_threads(FILE *out, const struct report *rp,
			  const struct report_rows *rows,
			  const struct report_options *o)
{
	char who[48], name[40];
	size_t i;

	fprintf(out, "\nthreads (ns, sorted by %s)\n", key_names[o->thread_key]);
	if (!rows->nthreads) {
		fprintf(out, "  none\n");
		return;
	}
	fprintf(out, "  %-16s %-16s %14s %8s %14s %14s %8s %8s %12s %12s %12s %12s\n",
		"PID/TID", "NAME", "CPU", "RUNS", "BLOCKED", "PREEMPTED",
		"WAKEUPS", "LATENCY#", "LAT-TOTAL", "LAT-P50", "LAT-P99",
		"LAT-MAX");
	for (i = 0; i < rows->nthreads; i++) {
		const struct report_thread_row *t = &rows->threads[i];

		snprintf(who, sizeof(who), "%" PRIu64 "/%" PRIu64, t->pid,
			 t->t->tid);
		thread_name(rp, t->t->tid, name, sizeof(name));
		fprintf(out, "  %-16s ", who);
		fxtrace_print_padded(out, name, strlen(name), 16);
		fprintf(out, " %14" PRId64 " %8" PRIu64 " %14" PRId64
			" %14" PRId64 " %8" PRIu64 " %8zu %12" PRId64 " %12"
			PRId64 " %12" PRId64 " %12" PRId64 "\n", t->t->cpu_ns,
			t->t->switches_in, t->t->blocked_ns,
			t->t->preempted_ns, t->t->wakeups, t->t->nlatency,
			t->lat_total, t->lat_p50, t->lat_p99, t->lat_max);
	}
}

static void print_processes(FILE *out, const struct report *rp,
			    const struct report_rows *rows)
{
	char name[40];
	size_t i;

	fprintf(out, "\nprocesses (ns)\n");
	if (!rows->nprocesses) {
		fprintf(out, "  none\n");
		return;
	}
	fprintf(out, "  %-10s %-16s %7s %14s %8s %14s %14s %8s %8s %12s %12s\n",
		"PID", "NAME", "THREADS", "CPU", "RUNS", "BLOCKED", "PREEMPTED",
		"WAKEUPS", "LATENCY#", "LAT-TOTAL", "LAT-MAX");
	for (i = 0; i < rows->nprocesses; i++) {
		const struct report_process_row *p = &rows->processes[i];

		process_name(rp, p->pid, name, sizeof(name));
		fprintf(out, "  %-10" PRIu64 " ", p->pid);
		fxtrace_print_padded(out, name, strlen(name), 16);
		fprintf(out, " %7zu %14" PRId64 " %8" PRIu64
			" %14" PRId64 " %14" PRId64 " %8" PRIu64 " %8" PRIu64
			" %12" PRId64 " %12" PRId64 "\n", p->threads,
			p->cpu_ns, p->switches_in, p->blocked_ns,
			p->preempted_ns, p->wakeups, p->latency_count,
			p->lat_total, p->lat_max);
	}
}

static void print_cpus(FILE *out, const struct report_rows *rows)
{
	size_t i;

	fprintf(out, "\nCPUs (ns)\n");
	if (!rows->ncpus) {
		fprintf(out, "  none\n");
		return;
	}
	fprintf(out, "  %-5s %8s %8s %14s %14s\n", "CPU", "SWITCHES", "WAKEUPS",
		"BUSY", "IDLE");
	for (i = 0; i < rows->ncpus; i++)
		fprintf(out, "  %-5u %8" PRIu64 " %8" PRIu64 " %14" PRId64 " %14"
			PRId64 "\n", rows->cpus[i].cpu, rows->cpus[i].switches,
			rows->cpus[i].wakeups, rows->cpus[i].busy_ns,
			rows->cpus[i].idle_ns);
}

/* The last value of each buffer's drop counter arguments, in time order. */
static const struct report_drop **last_drops(const struct report *rp,
					     size_t *n);

static void print_drops(FILE *out, const struct report *rp)
{
	const struct report_drop **d;
	size_t n = 0, i;

	fprintf(out, "\ndrops\n");
	d = last_drops(rp, &n);
	if (!n && !rp->nproviders)
		fprintf(out, "  none reported\n");
	for (i = 0; i < n; i++) {
		if (!i || d[i]->pid != d[i - 1]->pid || d[i]->tid != d[i - 1]->tid ||
		    d[i]->id != d[i - 1]->id)
			fprintf(out, "%s  buffer %" PRIu64 " (thread %" PRIu64 "/%"
				PRIu64 "):", i ? "\n" : "", d[i]->id, d[i]->pid,
				d[i]->tid);
		fputc(' ', out);
		fxtrace_print_escaped(out, &(struct fxt_string){
			.ptr = rp->names[d[i]->arg].name,
			.len = (uint32_t)rp->names[d[i]->arg].name_len });
		fprintf(out, "=%.17g", d[i]->value);
	}
	if (n)
		fputc('\n', out);
	for (i = 0; i < rp->nproviders; i++)
		fprintf(out, "  provider %" PRIu64 ": %" PRIu64
			" buffer full event%s\n", rp->providers[i].id,
			rp->providers[i].buffer_full,
			rp->providers[i].buffer_full == 1 ? "" : "s");
	free(d);
}

static int by_drop(const void *a, const void *b)
{
	const struct report_drop *x = *(const struct report_drop *const *)a;
	const struct report_drop *y = *(const struct report_drop *const *)b;

	if (x->pid != y->pid)
		return CMP(x->pid, y->pid);
	if (x->tid != y->tid)
		return CMP(x->tid, y->tid);
	if (x->id != y->id)
		return CMP(x->id, y->id);
	if (x->arg != y->arg)
		return bytes_cmp(sort_rp->names[x->arg].name,
				 sort_rp->names[x->arg].name_len,
				 sort_rp->names[y->arg].name,
				 sort_rp->names[y->arg].name_len);
	if (x->ts != y->ts)
		return CMP(x->ts, y->ts);
	return CMP(x->offset, y->offset);
}

static const struct report_drop **last_drops(const struct report *rp, size_t *n)
{
	const struct report_drop **all = malloc((rp->ndrops + 1) * sizeof(*all));
	size_t i, kept = 0;

	*n = 0;
	if (!all)
		return NULL;
	for (i = 0; i < rp->ndrops; i++)
		all[i] = &rp->drops[i];
	sort_rp = rp;
	qsort(all, rp->ndrops, sizeof(*all), by_drop);
	/* Keep the last of each (buffer, argument). */
	for (i = 0; i < rp->ndrops; i++)
		if (i + 1 == rp->ndrops || all[i]->pid != all[i + 1]->pid ||
		    all[i]->tid != all[i + 1]->tid || all[i]->id != all[i + 1]->id ||
		    all[i]->arg != all[i + 1]->arg)
			all[kept++] = all[i];
	*n = kept;
	return all;
}

void report_print_text(FILE *out, const struct report *rp,
		       const struct report_rows *rows,
		       const struct report_options *o)
{
	fprintf(out, "%s: %" PRIu64 " records", o->path, rp->records);
	if (rp->have_time) {
		fputs(", ", out);
		fxtrace_print_seconds(out, rp->first_ns);
		fputs(" to ", out);
		fxtrace_print_seconds(out, rp->last_ns);
		fprintf(out, " (%" PRId64 " ns)", rp->last_ns - rp->first_ns);
	}
	fputc('\n', out);
	print_stat_table(out, rp, rows->slices, rows->nslices,
			 "slices by category:name", o);
	print_stat_table(out, rp, rows->syscalls, rows->nsyscalls,
			 "syscalls (kernel:syscall slices)", o);
	print_longest(out, rp, rows);
	print_threads(out, rp, rows, o);
	print_processes(out, rp, rows);
	print_cpus(out, rows);
	print_drops(out, rp);
	if (rp->unmatched_ends || rp->unended)
		fprintf(out, "\nunpaired: %" PRIu64 " duration end%s without a begin, %"
			PRIu64 " begin%s without an end (not counted)\n",
			rp->unmatched_ends, rp->unmatched_ends == 1 ? "" : "s",
			rp->unended, rp->unended == 1 ? "" : "s");
}

/* ---- JSON ----------------------------------------------------------------- */

static void json_str(FILE *out, const char *s)
{
	fxtrace_print_json_string(out, s, strlen(s));
}

/* A category or name: its bytes, NUL bytes too (as dump and export show). */
static void json_bytes(FILE *out, const char *s, size_t len)
{
	fxtrace_print_json_string(out, s, len);
}

static void json_stats(FILE *out, const struct report *rp,
		       const uint32_t *names, size_t n)
{
	size_t i;

	fputc('[', out);
	for (i = 0; i < n; i++) {
		const struct report_stat *s = &rp->stats[names[i]];

		fputs(i ? ",\n  {\"category\":" : "\n  {\"category\":", out);
		json_bytes(out, rp->names[names[i]].cat,
			   rp->names[names[i]].cat_len);
		fputs(",\"name\":", out);
		json_bytes(out, rp->names[names[i]].name,
			   rp->names[names[i]].name_len);
		fprintf(out, ",\"count\":%" PRIu64 ",\"total_ns\":%" PRId64
			",\"self_ns\":%" PRId64 ",\"mean_ns\":%" PRId64
			",\"p50_ns\":%" PRId64 ",\"p99_ns\":%" PRId64
			",\"max_ns\":%" PRId64 "}", s->count, s->total, s->self,
			s->mean, s->p50, s->p99, s->max);
	}
	fputc(']', out);
}

static void json_name_of(FILE *out, const struct report *rp, bool thread,
			 uint64_t koid)
{
	struct fxt_string name;
	bool known = thread ? fxt_reader_thread_name(rp->r, koid, &name, NULL) :
			      fxt_reader_process_name(rp->r, koid, &name);

	if (known && name.ptr)
		fxtrace_print_json_string(out, name.ptr, name.len);
	else
		fputs("null", out);
}

void report_print_json(FILE *out, const struct report *rp,
		       const struct report_rows *rows,
		       const struct report_options *o)
{
	const struct report_drop **d;
	size_t i, n = 0;

	fputs("{\"trace\":", out);
	json_str(out, o->path);
	fprintf(out, ",\"records\":%" PRIu64, rp->records);
	if (rp->have_time)
		fprintf(out, ",\"start_ns\":%" PRId64 ",\"end_ns\":%" PRId64,
			rp->first_ns, rp->last_ns);
	fputs(",\n\"slices\":", out);
	json_stats(out, rp, rows->slices, rows->nslices);
	fputs(",\n\"syscalls\":", out);
	json_stats(out, rp, rows->syscalls, rows->nsyscalls);
	fputs(",\n\"longest\":[", out);
	for (i = 0; i < rows->nlongest; i++) {
		const struct report_slice *s = &rp->slices[rows->longest[i]];

		fputs(i ? ",\n  {\"category\":" : "\n  {\"category\":", out);
		json_bytes(out, rp->names[s->name].cat,
			   rp->names[s->name].cat_len);
		fputs(",\"name\":", out);
		json_bytes(out, rp->names[s->name].name,
			   rp->names[s->name].name_len);
		fprintf(out, ",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
			",\"start_ns\":%" PRId64 ",\"dur_ns\":%" PRId64
			",\"offset\":%" PRIu64 "}", s->pid, s->tid, s->start,
			s->end - s->start, s->offset);
	}
	fputs("],\n\"threads\":[", out);
	for (i = 0; i < rows->nthreads; i++) {
		const struct report_thread_row *t = &rows->threads[i];

		fprintf(out, "%s\n  {\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
			",\"name\":", i ? "," : "", t->pid, t->t->tid);
		json_name_of(out, rp, true, t->t->tid);
		fprintf(out, ",\"cpu_ns\":%" PRId64 ",\"runs\":%" PRIu64
			",\"blocked_ns\":%" PRId64 ",\"preempted_ns\":%" PRId64
			",\"wakeups\":%" PRIu64
			",\"latency_count\":%zu,\"latency_total_ns\":%" PRId64
			",\"latency_p50_ns\":%" PRId64 ",\"latency_p99_ns\":%"
			PRId64 ",\"latency_max_ns\":%" PRId64 "}",
			t->t->cpu_ns, t->t->switches_in, t->t->blocked_ns,
			t->t->preempted_ns, t->t->wakeups, t->t->nlatency,
			t->lat_total, t->lat_p50, t->lat_p99, t->lat_max);
	}
	fputs("],\n\"processes\":[", out);
	for (i = 0; i < rows->nprocesses; i++) {
		const struct report_process_row *p = &rows->processes[i];

		fprintf(out, "%s\n  {\"pid\":%" PRIu64 ",\"name\":",
			i ? "," : "", p->pid);
		json_name_of(out, rp, false, p->pid);
		fprintf(out, ",\"threads\":%zu,\"cpu_ns\":%" PRId64 ",\"runs\":%"
			PRIu64 ",\"blocked_ns\":%" PRId64 ",\"preempted_ns\":%"
			PRId64 ",\"wakeups\":%" PRIu64
			",\"latency_count\":%" PRIu64 ",\"latency_total_ns\":%"
			PRId64 ",\"latency_max_ns\":%" PRId64 "}", p->threads,
			p->cpu_ns, p->switches_in, p->blocked_ns, p->preempted_ns,
			p->wakeups, p->latency_count, p->lat_total, p->lat_max);
	}
	fputs("],\n\"cpus\":[", out);
	for (i = 0; i < rows->ncpus; i++)
		fprintf(out, "%s\n  {\"cpu\":%u,\"switches\":%" PRIu64
			",\"wakeups\":%" PRIu64 ",\"busy_ns\":%" PRId64
			",\"idle_ns\":%" PRId64 "}", i ? "," : "",
			rows->cpus[i].cpu, rows->cpus[i].switches,
			rows->cpus[i].wakeups, rows->cpus[i].busy_ns,
			rows->cpus[i].idle_ns);
	fputs("],\n\"drops\":[", out);
	d = last_drops(rp, &n);
	for (i = 0; i < n; i++) {
		fprintf(out, "%s\n  {\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
			",\"buffer\":%" PRIu64 ",\"counter\":", i ? "," : "",
			d[i]->pid, d[i]->tid, d[i]->id);
		json_bytes(out, rp->names[d[i]->arg].name,
			   rp->names[d[i]->arg].name_len);
		fprintf(out, ",\"value\":%.17g}", d[i]->value);
	}
	free(d);
	fputs("],\n\"providers\":[", out);
	for (i = 0; i < rp->nproviders; i++)
		fprintf(out, "%s{\"provider\":%" PRIu64 ",\"buffer_full\":%" PRIu64
			"}", i ? "," : "", rp->providers[i].id,
			rp->providers[i].buffer_full);
	fprintf(out, "],\n\"unmatched_ends\":%" PRIu64 ",\"unended_begins\":%"
		PRIu64 "}\n", rp->unmatched_ends, rp->unended);
}

/* ---- the command ---------------------------------------------------------- */

static int parse_sort(struct report_options *o, const char *arg)
{
	char *copy = strdup(arg), *key, *save = NULL;
	size_t i;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	if (!*arg)
		ret = -EINVAL;
	for (key = strtok_r(copy, ",", &save); key && !ret;
	     key = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
			if (!strcmp(key, key_names[i]))
				break;
		if (i == sizeof(key_names) / sizeof(key_names[0]))
			ret = -EINVAL;
		else if (i <= KEY_NAME)
			o->slice_key = i;
		else
			o->thread_key = i;
	}
	free(copy);
	return ret;
}

/* The report of the trace named on the command line. */
static int report_run(struct report_options *o,
		      const struct fxtrace_select *select, const char *html,
		      uint64_t memory_limit, const char *path)
{
	struct report_rows rows = { 0 };
	struct fxtrace_output page;
	struct fxtrace_input in;
	struct report rp;
	int ret, status, html_ret = 0;

	ret = fxtrace_input_open(&in, "report", path, memory_limit);
	if (ret)
		return ret;
	o->path = in.path;
	/* Opened before the trace is read, so that a refusal is said at once. */
	if (html && fxtrace_output_open(&page, &in, html)) {
		fxtrace_input_close(&in, 0);
		return 1;
	}
	report_init(&rp, in.reader, select);
	ret = report_collect(&rp, fxtrace_read_source, &in.src);
	if (ret >= 0)
		ret = report_compute(&rp);
	if (ret >= 0)
		ret = report_rows(&rp, o, &rows);
	if (ret >= 0) {
		if (o->json)
			report_print_json(stdout, &rp, &rows, o);
		else
			report_print_text(stdout, &rp, &rows, o);
		if (html)
			html_ret = report_write_html(page.file, &rp, &rows, o);
	}
	report_rows_free(&rows);
	report_free(&rp);
	status = fxtrace_input_close(&in, ret);
	/*
	 * A report that fails leaves the page of an earlier run as it was.
	 * The page's failure is not the input's (ret).
	 */
	if (html_ret && !ferror(page.file)) {
		fprintf(stderr, "fxtrace report: cannot write %s: %s\n", html,
			strerror(-html_ret));
		status = 1;
	}
	if (html && fxtrace_output_close(&page, "report", ret >= 0 && !html_ret))
		status = 1;
	return status;
}

int cmd_report(int argc, char **argv)
{
	static const struct option options[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "html", required_argument, NULL, 'H' },
		FXTRACE_SELECT_OPTIONS,
		{ "input", required_argument, NULL, 'i' },
		{ "memory-limit", required_argument, NULL, FXTRACE_OPT_MEMORY_LIMIT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_options o = {
		.slice_key = KEY_TOTAL, .thread_key = KEY_CPU, .top = 10,
	};
	uint64_t memory_limit = FXTRACE_MEMORY_LIMIT_AUTO;
	struct fxtrace_select select = { 0 };
	const char *html = NULL, *input = NULL, *path;
	char *end;
	int opt, ret, status;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":s:n:f:H:p:c:i:h", options,
				  NULL)) != -1) {
		ret = 0;
		switch (opt) {
		case 'i':
			input = optarg;
			break;
		case 's':
			if (parse_sort(&o, optarg))
				ret = fxtrace_usage_error("report",
					"sort key '%s' is not known: count, total, self, mean, p50, p99, max, name (slices); cpu, blocked, wakeups, latency, tid (threads)",
					optarg);
			break;
		case 'n':
			errno = 0;
			o.top = strtoul(optarg, &end, 10);
			if (errno || *end || optarg[0] < '0' || optarg[0] > '9')
				ret = fxtrace_usage_error("report",
					"--top wants a number of slices, not '%s'",
					optarg);
			break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "text"))
				ret = fxtrace_usage_error("report",
					"format '%s' is not known (text and json are)",
					optarg);
			o.json = !strcmp(optarg, "json");
			break;
		case 'H':
			if (!*optarg)
				ret = fxtrace_usage_error("report",
					"--html needs a file name, not ''");
			html = optarg;
			break;
		FXTRACE_SELECT_CASES:
			ret = fxtrace_select_option(&select, "report", opt,
						    optarg);
			break;
		case FXTRACE_OPT_MEMORY_LIMIT:
			ret = fxtrace_memory_limit_option("report", optarg,
							  &memory_limit);
			break;
		case 'h':
			ret = fxtrace_cmd_help("report");
			fxtrace_select_free(&select);
			return ret;
		default:
			ret = fxtrace_option_error("report", opt, argv, options);
			break;
		}
		if (ret) {
			fxtrace_select_free(&select);
			return ret;
		}
	}
	path = fxtrace_trace_path("report", argc, argv, input);
	status = path ? report_run(&o, &select, html, memory_limit, path) :
			EXIT_USAGE;
	fxtrace_select_free(&select);
	return status;
}
