// SPDX-License-Identifier: GPL-2.0
/*
 * load_message_test.c - what fxtprobe_open() says when libbpf fails, with
 * libbpf's calls replaced (-Wl,--wrap): no BPF, no root needed.
 *
 * - The verifier refusing the programs (EACCES from the load) names the
 *   verifier and, without libbpf's warnings, the -v that shows its log;
 *   it used to say only "Permission denied".
 * - A kprobe whose attach fails with ERANGE is told ERANGE's own text; it
 *   used to be told the USDT message meant for a USDT argument past the
 *   probe's ("USDT probe (null):... has 0 arguments").
 *
 * Prints TAP.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "fxtprobe.h"

static int n, failed;
static int load_ret;		/* what the wrapped load returns */

int __wrap_bpf_object__load_skeleton(struct bpf_object_skeleton *s)
{
	(void)s;
	return load_ret;
}

/* The loaded programs' maps, as far as fxtprobe_open() writes them. */
int __wrap_bpf_map__update_elem(const struct bpf_map *map, const void *key,
				size_t key_sz, const void *value,
				size_t value_sz, __u64 flags)
{
	(void)map, (void)key, (void)key_sz, (void)value, (void)value_sz;
	(void)flags;
	return 0;
}

struct bpf_link *
__wrap_bpf_program__attach_kprobe_opts(const struct bpf_program *prog,
				       const char *func_name,
				       const struct bpf_kprobe_opts *opts)
{
	(void)prog, (void)func_name, (void)opts;
	errno = ERANGE;
	return NULL;
}

static void result(bool ok, const char *what, const char *got)
{
	printf("%sok %d - %s: \"%s\"\n", ok ? "" : "not ", ++n, what, got);
	if (!ok)
		failed = 1;
}

static char attach_reason[512];

static void on_attach_error(void *ctx, const char *spec, int err,
			    const char *reason)
{
	(void)ctx, (void)spec, (void)err;
	snprintf(attach_reason, sizeof(attach_reason), "%s", reason);
}

/* fxtprobe_open() of one kprobe: its error message in err. */
static int open_one(bool warnings, char *err, size_t size)
{
	struct fxtprobe_options opts = { .libbpf_warnings = warnings };
	struct fxtprobe *set = fxtprobe_new();
	int ret;

	err[0] = attach_reason[0] = '\0';
	if (!set || fxtprobe_add(set, "kprobe:vfs_read", err, size)) {
		fxtprobe_close(set);
		return -EINVAL;
	}
	ret = fxtprobe_open(set, &opts, on_attach_error, NULL, err, size);
	fxtprobe_close(set);
	return ret;
}

int main(void)
{
	char err[512];
	int ret;

	load_ret = -EACCES;
	ret = open_one(false, err, sizeof(err));
	result(ret == -EACCES && !strcmp(err,
	       "cannot load the BPF programs: Permission denied (the BPF verifier refused them: -v shows its log)"),
	       "verifier refusal, without -v", err);
	ret = open_one(true, err, sizeof(err));
	result(ret == -EACCES && !strcmp(err,
	       "cannot load the BPF programs: Permission denied (the BPF verifier refused them: its log is above)"),
	       "verifier refusal, with -v", err);

	load_ret = 0;
	open_one(false, err, sizeof(err));
	result(!strcmp(attach_reason, strerror(ERANGE)),
	       "a kprobe's attach failing with ERANGE", attach_reason);

	printf("1..%d\n", n);
	return failed;
}
