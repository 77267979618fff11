// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace-drain's reports: the live progress line, what each buffer lost,
 * the summary.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include "drainer.h"

static const char *const kind_names[] = {
	[FXTRACE_BUFFER_CPU] = "cpu",
	[FXTRACE_BUFFER_TASK] = "task",
	[FXTRACE_BUFFER_KERNEL] = "kernel",
};

/*
 * The saves of one kind of buffer, timed from the module's requests: with
 * -v, how long they took; and whenever the producers dropped while a save
 * outlasted the filling of a half, what would have avoided it.
 */
static void print_save_timing(const struct drain *d, unsigned int k,
			      const struct kind_totals *t)
{
	const struct save_timing *tm = &d->timing[k];

	const struct save_times *st = &tm->slowest;
	/* Requested while the drainer was busy: it waited from then on. */
	uint64_t free_ns = st->waiting > st->requested ? st->waiting :
							 st->requested;

	if (d->opt.verbose && tm->saves) {
		fprintf(stderr, "fxtrace-drain: %-6s %llu saves acknowledged up to %.1f ms after the module's request (read up to %.1f ms after it); the fastest half filled in %.1f ms\n",
			kind_names[k], (unsigned long long)tm->saves,
			tm->ack_ns_max / 1e6, tm->read_ns_max / 1e6,
			tm->fill_ns_min / 1e6);
		fprintf(stderr, "fxtrace-drain: %-6s the slowest save: the drainer busy %.1f ms after the request, its packet read %.1f ms later, begun %.1f ms later, copied and checked in %.1f, written in %.1f, acknowledged %.1f ms after\n",
			kind_names[k], (free_ns - st->requested) / 1e6,
			(st->read - free_ns) / 1e6,
			(st->started - st->read) / 1e6,
			(st->judged - st->started) / 1e6,
			(st->written - st->judged) / 1e6,
			(st->requested + tm->ack_ns_max - st->written) / 1e6);
	}
	if (t->dropped && tm->fill_ns_min && tm->ack_ns_max > tm->fill_ns_min &&
	    (k == FXTRACE_BUFFER_CPU || k == FXTRACE_BUFFER_TASK))
		fprintf(stderr, "fxtrace-drain: %-6s a save took up to %.1f ms, a half filled in as little as %.1f ms: larger buffers (%s) give the drainer more time\n",
			kind_names[k], tm->ack_ns_max / 1e6,
			tm->fill_ns_min / 1e6,
			k == FXTRACE_BUFFER_CPU ? "-b" : "-B");
}

/* " (N reason, N reason)" for the refusals counted, "" for none. */
static void print_refusals(const uint64_t refused[REFUSED_COUNT],
			   uint64_t repaired)
{
	const char *sep = " (";
	unsigned int r;

	for (r = 0; r < REFUSED_COUNT; r++) {
		if (!refused[r])
			continue;
		fprintf(stderr, "%s%llu %s", sep, (unsigned long long)refused[r],
			refusal_names[r]);
		sep = ", ";
	}
	if (*sep == ',')
		fputc(')', stderr);
	if (repaired)
		fprintf(stderr, ", %llu names made valid UTF-8",
			(unsigned long long)repaired);
	fputc('\n', stderr);
}

/* What a buffer lost, when it lost any (the summary, or its retirement). */
void report_buffer(const struct drain *d, const struct drain_buffer *db)
{
	if (d->opt.quiet || (!db->dropped && !db->invalid && !db->repaired))
		return;
	fprintf(stderr, "fxtrace-drain: buffer %u (%s): %llu records dropped %s, %llu invalid",
		db->id, db->name, (unsigned long long)db->dropped,
		db->kind == FXTRACE_BUFFER_TASK ? "as its producer reports" :
						  "by the kernel",
		(unsigned long long)db->invalid);
	print_refusals(db->refused, db->repaired);
}

/* Records, bytes and invalid records written so far. */
static void totals(const struct drain *d, uint64_t *records, uint64_t *bytes,
		   uint64_t *invalid)
{
	struct kind_totals t;
	unsigned int k;

	*records = *bytes = *invalid = 0;
	for (k = 0; k < KIND_COUNT; k++) {
		output_totals(&d->out, k, &t);
		*records += t.records;
		*bytes += t.bytes;
		*invalid += t.invalid;
	}
}

/*
 * Drops so far, as the writers count them now: the kernel's in its
 * headers, and apart, the producers' own counts in their control pages
 * (untrusted: each bounded, never added to the kernel's).
 */
static void live_drops(const struct drain *d, uint64_t *kernel,
		       uint64_t *producers)
{
	uint64_t n;
	size_t i;

	*kernel = *producers = 0;
	for (i = 0; i < d->c.nbufs; i++) {
		const struct fxtctl_buffer *b = &d->c.bufs[i];

		if (b->kind != FXTRACE_BUFFER_TASK) {
			*kernel += __atomic_load_n(&b->hdr->dropped_records,
						   __ATOMIC_RELAXED);
			continue;
		}
		n = __atomic_load_n(&b->ctl->dropped_records, __ATOMIC_RELAXED);
		*producers += n < PRODUCER_DROPS_MAX ? n : PRODUCER_DROPS_MAX;
	}
}

void show_progress(struct drain *d)
{
	uint64_t records, bytes, invalid, kernel, producers;

	totals(d, &records, &bytes, &invalid);
	live_drops(d, &kernel, &producers);
	fprintf(stderr, "\r[ fxtrace-drain: %llu records/s, %.1f MB written, %zu buffers, %llu dropped, %llu reported by producers, %llu invalid ]   ",
		(unsigned long long)(records - d->progress_records),
		(double)bytes / 1e6, d->c.nbufs, (unsigned long long)kernel,
		(unsigned long long)producers, (unsigned long long)invalid);
	d->progress_records = records;
}

/* CPU time of the drainer's threads (io-wq workers included), seconds. */
double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

void summary(const struct drain *d)
{
	const struct drain_buffer *db;
	struct kind_totals t;
	struct timespec now;
	double seconds, cpu;
	uint64_t written;
	size_t pos = 0;
	unsigned int k;

	if (d->progress)
		fputc('\n', stderr);
	/* Retired buffers were reported as they retired. */
	while ((db = output_next(&d->out, &pos)))
		report_buffer(d, db);
	clock_gettime(CLOCK_MONOTONIC, &now);
	seconds = (double)(now.tv_sec - d->started.tv_sec) +
		  (double)(now.tv_nsec - d->started.tv_nsec) / 1e9;
	cpu = cpu_seconds() - d->cpu_at_start;
	/*
	 * After a failed write, what the file holds: a regular file is cut
	 * at its flush mark, a stream got what was written in order.
	 */
	written = !d->out_error ? d->out.offset :
		  d->write_inline ? d->published : d->flushed;
	fprintf(stderr, "fxtrace-drain: %s session, %.3f s, %llu bytes written to %s\n",
		mode_names[d->opt.mode], seconds,
		(unsigned long long)written, d->opt.out);
	/* CPU use since Start: the cost of draining, not of loading probes. */
	fprintf(stderr, "fxtrace-drain: %.3f s CPU (%.1f%% of one CPU), %.1f MB/s written\n",
		cpu, seconds > 0 ? 100 * cpu / seconds : 0,
		seconds > 0 ? (double)written / seconds / 1e6 : 0);
	for (k = 1; k < KIND_COUNT; k++) {
		output_totals(&d->out, k, &t);
		/* A producer's drop count is its own word: never the kernel's. */
		fprintf(stderr, "fxtrace-drain: %-6s %u buffers, %llu records, %llu bytes, %llu %s, %llu invalid",
			kind_names[k], t.buffers, (unsigned long long)t.records,
			(unsigned long long)t.bytes,
			(unsigned long long)t.dropped,
			k == FXTRACE_BUFFER_TASK ? "dropped as producers report" :
						   "dropped",
			(unsigned long long)t.invalid);
		print_refusals(t.refused, t.repaired);
		print_save_timing(d, k, &t);
	}
	output_report_lost(&d->out, stderr);
	if (d->opt.verbose && d->acked)
		fprintf(stderr, "fxtrace-drain: %llu saves acknowledged, the slowest %.1f ms after its packet was read, %llu after more than %llu ms\n",
			(unsigned long long)d->acked, d->ack_ns_max / 1e6,
			(unsigned long long)d->acked_slow,
			(unsigned long long)(ACK_SLOW_NS / 1000000));
	if (d->probes)
		probes_summary(d->probes, d->probe_events);
}
