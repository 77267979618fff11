// SPDX-License-Identifier: GPL-2.0
/*
 * report_html.c - `fxtrace report --html OUT`: one self-contained page.
 *
 * The page is report_template.html, compiled in (.incbin below), with the
 * report's data written where the template says FXTRACE_DATA: a JavaScript
 * object literal (JSON) of the CPU tracks (who ran when), the thread tracks
 * (slices with their nesting depth), the tables and the latency samples.
 * The template's script draws the timeline on a canvas and the histograms
 * as SVG; nothing is loaded from the network.
 *
 * Strings are escaped for JSON and also '<', '>' and '&', so no trace
 * content can close the <script> element; bytes that are not UTF-8 become
 * U+FFFD.  Times are ns from the trace's first time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

__asm__(".section .rodata\n"
	".global fxtrace_report_template\n"
	"fxtrace_report_template:\n"
	".incbin \"tools/fxtrace/report_template.html\"\n"
	".byte 0\n"
	".previous\n");
extern const char fxtrace_report_template[];

#define DATA_MARK "/*FXTRACE_DATA*/"

static void html_json_string(FILE *out, const char *s, size_t len)
{
	bool utf8 = fxt_utf8_valid((const unsigned char *)s, len);
	size_t i;

	fputc('"', out);
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(out, "\\u%04x", c);
		else if (c >= 0x80 && !utf8)
			fputs("\\ufffd", out);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void html_cstring(FILE *out, const char *s)
{
	html_json_string(out, s, strlen(s));
}

static void html_name(FILE *out, const struct report_name *n)
{
	size_t size = n->cat_len + n->name_len + 2;
	char *full = malloc(size);

	if (!full) {
		html_json_string(out, n->name, n->name_len);
		return;
	}
	html_json_string(out, full, report_full_name(n, full, size));
	free(full);
}

static void koid_name(FILE *out, const struct report *rp, bool thread,
		      uint64_t koid)
{
	struct fxt_string name;
	bool known = thread ? fxt_reader_thread_name(rp->r, koid, &name, NULL) :
			      fxt_reader_process_name(rp->r, koid, &name);
	char fallback[32];

	if (known && name.ptr) {
		html_json_string(out, name.ptr, name.len);
	} else {
		snprintf(fallback, sizeof(fallback), "%s %" PRIu64,
			 thread ? "tid" : "pid", koid);
		html_cstring(out, fallback);
	}
}

/* An item of rp's records: its group (a CPU, a name) and its index. */
struct grouped {
	uint32_t group;
	size_t index;
};

static int by_group(const void *a, const void *b)
{
	const struct grouped *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/*
 * CPU tracks: [start, duration, tid] while a thread (not idle) runs.  The
 * switches grouped by CPU, in time order within one, in one sort: not a
 * pass over all of them per CPU.
 */
static int write_cpus(FILE *out, const struct report *rp,
		      const struct report_rows *rows)
{
	const struct report_sched *s, *prev;
	struct grouped *sw;
	size_t c, i, k = 0, n = 0, spans;

	sw = malloc((rp->nsched + 1) * sizeof(*sw));
	if (!sw)
		return -ENOMEM;
	for (i = 0; i < rp->nsched; i++)
		if (!rp->sched[i].wakeup)
			sw[n++] = (struct grouped){ rp->sched[i].cpu, i };
	qsort(sw, n, sizeof(*sw), by_group);
	fputs("\"cpus\":[", out);
	/* rows->cpus is sorted by CPU too. */
	for (c = 0; c < rows->ncpus; c++) {
		fprintf(out, "%s\n{\"cpu\":%u,\"spans\":[", c ? "," : "",
			rows->cpus[c].cpu);
		while (k < n && sw[k].group < rows->cpus[c].cpu)
			k++;
		prev = NULL;
		spans = 0;
		for (; k < n && sw[k].group == rows->cpus[c].cpu; k++) {
			s = &rp->sched[sw[k].index];
			if (prev && prev->in && prev->ts <= s->ts)
				fprintf(out, "%s[%" PRId64 ",%" PRId64 ",%" PRIu64 "]",
					spans++ ? "," : "", prev->ts - rp->first_ns,
					s->ts - prev->ts, prev->in);
			prev = s;
		}
		fputs("]}", out);
	}
	fputs("],\n", out);
	free(sw);
	return 0;
}

/* Thread tracks: [start, duration, depth, name index] per slice. */
static int write_threads(FILE *out, const struct report *rp,
			 const struct report_rows *rows)
{
	const struct report_slice **stack = NULL, *s;
	size_t i, depth = 0, n = 0, t;
	struct fxt_map with_slices;	/* (tid, 0) -> a byte */
	bool any = false;

	fxt_map_init(&with_slices, 1);
	if (rp->nslices) {
		stack = malloc(rp->nslices * sizeof(*stack));
		if (!stack)
			return -ENOMEM;
	}
	fputs("\"threads\":[", out);
	/* rp->slices is in nesting order: thread, start, longer first. */
	for (i = 0; i < rp->nslices; i++) {
		s = &rp->slices[i];
		if (!i || s->pid != s[-1].pid || s->tid != s[-1].tid) {
			fprintf(out, "%s\n{\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
				",\"name\":", i ? "]}," : "", s->pid, s->tid);
			koid_name(out, rp, true, s->tid);
			fputs(",\"slices\":[", out);
			depth = n = 0;
			any = true;
			if (!fxt_map_put(&with_slices, s->tid, 0, NULL)) {
				free(stack);
				fxt_map_free(&with_slices);
				return -ENOMEM;
			}
		}
		while (depth && stack[depth - 1]->end <= s->start)
			depth--;
		fprintf(out, "%s[%" PRId64 ",%" PRId64 ",%zu,%" PRIu32 "]",
			n++ ? "," : "", s->start - rp->first_ns,
			s->end - s->start, depth, s->name);
		stack[depth++] = s;
	}
	if (rp->nslices)
		fputs("]}", out);
	/* Threads without a slice (they ran, or had other events) too. */
	for (t = 0; t < rows->nthreads; t++) {
		const struct report_thread_row *row = &rows->threads[t];

		if (fxt_map_get(&with_slices, row->t->tid, 0))
			continue;
		fprintf(out, "%s\n{\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
			",\"name\":", any ? "," : "", row->pid, row->t->tid);
		koid_name(out, rp, true, row->t->tid);
		fputs(",\"slices\":[]}", out);
		any = true;
	}
	fputs("],\n", out);
	free(stack);
	fxt_map_free(&with_slices);
	return 0;
}

static void write_names(FILE *out, const struct report *rp)
{
	size_t i;

	fputs("\"names\":[", out);
	for (i = 0; i < rp->nnames; i++) {
		if (i)
			fputc(',', out);
		html_name(out, &rp->names[i]);
	}
	fputs("],\n", out);
}

static void write_stats(FILE *out, const struct report *rp, const char *key,
			const uint32_t *names, size_t n)
{
	size_t i;

	fprintf(out, "\"%s\":[", key);
	for (i = 0; i < n; i++) {
		const struct report_stat *s = &rp->stats[names[i]];

		fputs(i ? ",\n[" : "\n[", out);
		html_name(out, &rp->names[names[i]]);
		fprintf(out, ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%"
			PRId64 ",%" PRId64 ",%" PRId64 "]", s->count, s->total,
			s->self, s->mean, s->p50, s->p99, s->max);
	}
	fputs("],\n", out);
}

static void write_thread_table(FILE *out, const struct report *rp,
			       const struct report_rows *rows)
{
	size_t i;

	fputs("\"thread_table\":[", out);
	for (i = 0; i < rows->nthreads; i++) {
		const struct report_thread_row *t = &rows->threads[i];

		fprintf(out, "%s\n[%" PRIu64 ",%" PRIu64 ",", i ? "," : "",
			t->pid, t->t->tid);
		koid_name(out, rp, true, t->t->tid);
		fprintf(out, ",%" PRId64 ",%" PRIu64 ",%" PRId64 ",%" PRId64
			",%" PRIu64 ",%zu,%" PRId64 ",%" PRId64 ",%" PRId64 "]",
			t->t->cpu_ns, t->t->switches_in, t->t->blocked_ns,
			t->t->preempted_ns, t->t->wakeups, t->t->nlatency,
			t->lat_p50, t->lat_p99, t->lat_max);
	}
	fputs("],\n", out);
}

/*
 * Samples: every wakeup-to-run latency; each syscall's durations, from the
 * slices grouped by name in one sort.
 */
static int write_histograms(FILE *out, const struct report *rp,
			    const struct report_rows *rows)
{
	struct grouped *sl, key;
	size_t i, j, k, n = 0;

	sl = malloc((rp->nslices + 1) * sizeof(*sl));
	if (!sl)
		return -ENOMEM;
	for (i = 0; i < rp->nslices; i++)
		sl[i] = (struct grouped){ rp->slices[i].name, i };
	qsort(sl, rp->nslices, sizeof(*sl), by_group);
	fputs("\"histograms\":[\n{\"name\":\"wakeup-to-run latency\",\"samples\":[",
	      out);
	for (i = 0; i < rows->nthreads; i++)
		for (j = 0; j < rows->threads[i].t->nlatency; j++)
			fprintf(out, "%s%" PRId64, n++ ? "," : "",
				rows->threads[i].t->latency[j]);
	fputs("]}", out);
	for (i = 0; i < rows->nsyscalls; i++) {
		fputs(",\n{\"name\":", out);
		html_name(out, &rp->names[rows->syscalls[i]]);
		fputs(",\"samples\":[", out);
		/* The name's first slice: the least index in its group. */
		key = (struct grouped){ rows->syscalls[i], 0 };
		for (j = 0, k = rp->nslices; j < k;) {
			size_t mid = j + (k - j) / 2;

			if (by_group(&sl[mid], &key) < 0)
				j = mid + 1;
			else
				k = mid;
		}
		for (n = 0; j < rp->nslices && sl[j].group == rows->syscalls[i]; j++)
			fprintf(out, "%s%" PRId64, n++ ? "," : "",
				rp->slices[sl[j].index].end -
				rp->slices[sl[j].index].start);
		fputs("]}", out);
	}
	fputs("]\n", out);
	free(sl);
	return 0;
}

int report_write_html(FILE *out, const struct report *rp,
		      const struct report_rows *rows,
		      const struct report_options *o)
{
	const char *mark = strstr(fxtrace_report_template, DATA_MARK);
	int ret;

	if (!mark)
		return -EINVAL;
	fwrite(fxtrace_report_template, 1, mark - fxtrace_report_template, out);
	fputs("{\"trace\":", out);
	html_cstring(out, o->path);
	fprintf(out, ",\"records\":%" PRIu64 ",\"span\":%" PRId64 ",\n",
		rp->records, rp->have_time ? rp->last_ns - rp->first_ns : 0);
	ret = write_cpus(out, rp, rows);
	if (!ret)
		ret = write_threads(out, rp, rows);
	if (ret)
		return ret;
	write_names(out, rp);
	write_stats(out, rp, "slice_table", rows->slices, rows->nslices);
	write_stats(out, rp, "syscall_table", rows->syscalls, rows->nsyscalls);
	write_thread_table(out, rp, rows);
	ret = write_histograms(out, rp, rows);
	if (ret)
		return ret;
	fputc('}', out);
	fputs(mark + strlen(DATA_MARK), out);
	return ferror(out) ? -EIO : 0;
}
