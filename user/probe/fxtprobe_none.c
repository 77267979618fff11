// SPDX-License-Identifier: GPL-2.0
/*
 * libfxtprobe.a for a build without libbpf (user/probe/build.mk chooses it):
 * the same API, where every probe spec is refused with a message that says
 * why, so fxtrace-drain and `fxtrace record` work without -P.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fxtprobe.h"

struct fxtprobe {
	int unused;
};

struct fxtprobe *fxtprobe_new(void)
{
	return calloc(1, sizeof(struct fxtprobe));
}

int fxtprobe_add(struct fxtprobe *set, const char *spec, char *err,
		 size_t err_size)
{
	(void)set;
	snprintf(err, err_size,
		 "probe '%s': this fxtrace was built without libbpf, so it has no dynamic probes (rebuild with libbpf-dev, bpftool and clang installed)",
		 spec);
	return -EOPNOTSUPP;
}

int fxtprobe_open(struct fxtprobe *set, const struct fxtprobe_options *opts,
		  fxtprobe_error_fn on_error, void *ctx, char *err,
		  size_t err_size)
{
	(void)set, (void)opts, (void)on_error, (void)ctx;
	snprintf(err, err_size, "this fxtrace was built without libbpf");
	return -EOPNOTSUPP;
}

int fxtprobe_set_filter_tgid(struct fxtprobe *set, uint32_t tgid)
{
	(void)set, (void)tgid;
	return -EOPNOTSUPP;
}

int fxtprobe_epoll_fd(const struct fxtprobe *set)
{
	(void)set;
	return -EOPNOTSUPP;
}

int fxtprobe_clock_from_session(const struct fxtrace_session_page *page,
				struct fxtprobe_clock *clock)
{
	(void)page, (void)clock;
	return -EOPNOTSUPP;
}

void fxtprobe_clock_monotonic(struct fxtprobe_clock *clock)
{
	*clock = (struct fxtprobe_clock){
		.clock = FXTRACE_CLOCK_MONOTONIC,
		.ticks_per_second = 1000000000,
	};
}

int fxtprobe_set_clock(struct fxtprobe *set, const struct fxtprobe_clock *clock)
{
	(void)set, (void)clock;
	return -EOPNOTSUPP;
}

uint64_t fxtprobe_ticks(const struct fxtprobe *set, uint64_t monotonic_ns)
{
	(void)set;
	return monotonic_ns;
}

size_t fxtprobe_preamble_size(const struct fxtprobe *set)
{
	(void)set;
	return 0;
}

size_t fxtprobe_write_preamble(const struct fxtprobe *set, void *buf,
			       size_t size)
{
	(void)set, (void)buf, (void)size;
	return 0;
}

int fxtprobe_consume(struct fxtprobe *set, fxtprobe_write_fn write, void *ctx)
{
	(void)set, (void)write, (void)ctx;
	return 0;
}

void fxtprobe_drops(const struct fxtprobe *set, struct fxtprobe_drops *drops)
{
	(void)set;
	*drops = (struct fxtprobe_drops){ 0 };
}

int fxtprobe_write_drops(struct fxtprobe *set, fxtprobe_write_fn write,
			 void *ctx)
{
	(void)set, (void)write, (void)ctx;
	return 0;
}

size_t fxtprobe_count(const struct fxtprobe *set)
{
	(void)set;
	return 0;
}

const char *fxtprobe_spec(const struct fxtprobe *set, size_t i)
{
	(void)set, (void)i;
	return NULL;
}

enum fxtprobe_kind fxtprobe_kind(const struct fxtprobe *set, size_t i)
{
	(void)set, (void)i;
	return FXTPROBE_KPROBE;
}

bool fxtprobe_attached(const struct fxtprobe *set, size_t i)
{
	(void)set, (void)i;
	return false;
}

void fxtprobe_close(struct fxtprobe *set)
{
	free(set);
}
