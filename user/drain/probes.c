// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace-drain's dynamic probes (--probe): libfxtprobe loads and attaches
 * them after Initialize; their events come in through a poll on the BPF
 * ring buffer's epoll fd in the drainer's ring and are written as their
 * own provider, on the session clock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "drainer.h"

static void report_probe_error(void *ctx, const char *spec, int err,
			       const char *reason)
{
	(void)ctx;
	(void)err;
	fprintf(stderr, "fxtrace-drain: %s: cannot attach: %s\n", spec, reason);
}

static int chunk_write(void *chunk, const void *bytes, size_t len)
{
	return chunk_append(chunk, bytes, len);
}

/* The BPF clock's mapping to session ticks, from the session page. */
void probes_clock(struct drain *d)
{
	struct fxtprobe_clock clock;

	if (!fxtprobe_clock_from_session(d->c.page, &clock))
		fxtprobe_set_clock(d->probes, &clock);
}

/*
 * Load and attach the probes (after Initialize: the session's clock and the
 * command's pid are known) and queue the provider's preamble.  A probe that
 * cannot attach is reported and the session goes on without it.
 */
int open_probes(struct drain *d)
{
	struct fxtprobe_options popts = {
		.filter_tgid = d->opt.filter_command ? (uint32_t)d->child :
			       d->opt.filter_pid,
		.libbpf_warnings = d->opt.verbose,
	};
	struct fxtprobe *set = d->opt.probes;
	struct chunk chunk = { 0 };
	char err[512];
	size_t size;
	int attached;

	d->opt.probes = NULL;
	attached = fxtprobe_open(set, &popts, report_probe_error, NULL, err,
				 sizeof(err));
	if (attached <= 0) {
		if (attached < 0)
			fprintf(stderr, "fxtrace-drain: probes: %s\n", err);
		fprintf(stderr, "fxtrace-drain: no probe attached; tracing without probes\n");
		fxtprobe_close(set);
		return 0;
	}
	d->probes = set;
	d->out.probe_provider = FXTPROBE_PROVIDER_ID_DEFAULT;
	probes_clock(d);
	size = fxtprobe_preamble_size(set);
	chunk.data = malloc(size);
	if (!chunk.data)
		return -ENOMEM;
	chunk.cap = size;
	chunk.len = fxtprobe_write_preamble(set, chunk.data, size);
	output_place(&d->out, &chunk, FXTPROBE_PROVIDER_ID_DEFAULT);
	queue_chunk(d, &chunk, NULL, 0);
	submit_probes_poll(d);
	return 0;
}

/*
 * Every probe event waiting in the BPF ring buffer, into the file: how
 * many, or 0 after an error.
 */
int consume_probes(struct drain *d)
{
	struct chunk chunk = { 0 };
	int ret = fxtprobe_consume(d->probes, chunk_write, &chunk);

	if (ret < 0) {
		chunk_free(&chunk);
		if (!d->error)
			d->error = ret;
		return 0;
	}
	d->probe_events += (uint64_t)ret;
	output_place(&d->out, &chunk, FXTPROBE_PROVIDER_ID_DEFAULT);
	queue_chunk(d, &chunk, NULL, (uint64_t)ret);
	return ret;
}

/* The last events, then the probes' drop counter. */
void flush_probes(struct drain *d)
{
	struct chunk chunk = { 0 };
	int ret;

	consume_probes(d);
	ret = fxtprobe_write_drops(d->probes, chunk_write, &chunk);
	if (ret) {
		chunk_free(&chunk);
		if (!d->error)
			d->error = ret;
		return;
	}
	output_place(&d->out, &chunk, FXTPROBE_PROVIDER_ID_DEFAULT);
	queue_chunk(d, &chunk, NULL, 0);
}

void probes_summary(const struct fxtprobe *set, uint64_t events)
{
	struct fxtprobe_drops drops;
	size_t i, attached = 0;

	for (i = 0; i < fxtprobe_count(set); i++)
		attached += fxtprobe_attached(set, i);
	fxtprobe_drops(set, &drops);
	/* The drops as fxtrace-probe's summary gives them. */
	fprintf(stderr, "fxtrace-drain: probes %zu of %zu attached, %llu events, %llu dropped (ring full), %llu missed (nested), %llu invalid\n",
		attached, fxtprobe_count(set), (unsigned long long)events,
		(unsigned long long)drops.ring_full,
		(unsigned long long)drops.missed,
		(unsigned long long)drops.invalid);
}
