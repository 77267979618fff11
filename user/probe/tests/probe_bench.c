// SPDX-License-Identifier: GPL-2.0
/*
 * probe_bench.c - cost per kprobe hit of fxtrace's BPF program against a
 * bare one that only writes a fixed event into a BPF ring buffer
 * (bare.bpf.c), on getppid(): the same loop with no probe, with fxtrace's
 * kprobe on __x64_sys_getppid, and with the bare one.  Rounds alternate the
 * three, each after the same pause; each reports its best round.  Only the system call loops are
 * timed; the rings are emptied between batches.  Prints one line per mode
 * and checks that every hit made exactly one event.
 *
 *	probe_bench [CALLS_PER_ROUND [ROUNDS]]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bare.skel.h"
#include "fxtprobe.h"

#define BATCH		1000	/* hits between ring drains: 1000 events fit */
#define FUNCTION	"__x64_sys_getppid"
/* Past the kprobe optimizer's delay (5 jiffies), as in every mode. */
#define SETTLE_US	200000

enum mode { NONE, FXTRACE, BARE, MODES };
static const char *const mode_names[] = { "none", "fxtrace", "bare" };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int discard(void *ctx, const void *bytes, size_t len)
{
	(void)ctx;
	(void)bytes;
	(void)len;
	return 0;
}

static int count_bare(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	++*(long *)ctx;
	return 0;
}

/* The ns of calls getppid() calls, draining the ring every BATCH. */
static uint64_t run(long calls, struct fxtprobe *set, struct ring_buffer *bare,
		    long *events)
{
	uint64_t total = 0, t0;
	long done, i, n;

	for (done = 0; done < calls; done += n) {
		n = calls - done < BATCH ? calls - done : BATCH;
		t0 = now_ns();
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		total += now_ns() - t0;
		if (set)
			*events += fxtprobe_consume(set, discard, NULL);
		if (bare)
			ring_buffer__consume(bare);
	}
	return total;
}

/* fxtrace's kprobe on FUNCTION, for this process. */
static struct fxtprobe *open_fxtprobe(void)
{
	struct fxtprobe_options opts = { .filter_tgid = getpid() };
	struct fxtprobe *set = fxtprobe_new();
	char err[512] = "kprobe:" FUNCTION " did not attach";

	if (!set || fxtprobe_add(set, "kprobe:" FUNCTION, err, sizeof(err)) ||
	    fxtprobe_open(set, &opts, NULL, NULL, err, sizeof(err)) != 1) {
		fprintf(stderr, "probe_bench: fxtprobe: %s\n", err);
		fxtprobe_close(set);
		return NULL;
	}
	return set;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 200000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	uint64_t best[MODES] = { 0 };
	long events[MODES] = { 0 };
	struct fxtprobe_drops set_drops;
	uint64_t drops = 0;
	struct bare_bpf *skel;
	struct bpf_link *link;
	struct ring_buffer *bare;
	struct fxtprobe *set;
	int r, m, ok = 1;

	if (calls <= 0 || rounds <= 0) {
		fprintf(stderr, "usage: probe_bench [CALLS_PER_ROUND [ROUNDS]]\n");
		return 2;
	}
	skel = bare_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "probe_bench: bare: %s\n", strerror(errno));
		return 1;
	}
	bare = ring_buffer__new(bpf_map__fd(skel->maps.bare_events),
				count_bare, &events[BARE], NULL);
	if (!bare) {
		fprintf(stderr, "probe_bench: bare ring: %s\n", strerror(errno));
		return 1;
	}
	for (r = 0; r < rounds; r++) {
		for (m = 0; m < MODES; m++) {
			uint64_t ns;

			/* One probe attached at a time, or none. */
			link = NULL;
			set = NULL;
			if (m == FXTRACE) {
				set = open_fxtprobe();
				if (!set)
					return 1;
			}
			if (m == BARE) {
				link = bpf_program__attach_kprobe(
					skel->progs.bare_kprobe, false,
					FUNCTION);
				if (!link) {
					fprintf(stderr, "probe_bench: bare attach: %s\n",
						strerror(errno));
					return 1;
				}
			}
			/* The kprobe optimizer replaces the int3 after a delay. */
			usleep(SETTLE_US);
			ns = run(calls, set, m == BARE ? bare : NULL,
				 &events[FXTRACE]);
			bpf_link__destroy(link);
			if (set) {
				fxtprobe_drops(set, &set_drops);
				drops += set_drops.ring_full;
				fxtprobe_close(set);
			}
			if (!best[m] || ns < best[m])
				best[m] = ns;
		}
	}
	for (m = 0; m < MODES; m++)
		printf("%-8s %8.1f ns/call  %+8.1f ns/hit  %ld events\n",
		       mode_names[m], (double)best[m] / calls,
		       (double)(best[m] - best[NONE]) / calls, events[m]);
	printf("dropped %" PRIu64 "\n", drops);
	for (m = FXTRACE; m < MODES; m++)
		if (events[m] != calls * rounds) {
			printf("# %s: %ld events for %ld hits\n", mode_names[m],
			       events[m], calls * rounds);
			ok = 0;
		}
	ring_buffer__free(bare);
	bare_bpf__destroy(skel);
	return ok ? 0 : 1;
}
