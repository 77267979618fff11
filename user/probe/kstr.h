/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kstr.h - whether a kprobe's kstr argument is a kernel string (kstr.c),
 * for fxtprobe_add() and its test.
 */
#ifndef FXTPROBE_KSTR_H
#define FXTPROBE_KSTR_H

#include <stddef.h>

#include <linux/types.h>

struct btf;

/*
 * Whether argument source (argN from 0, or FXTPROBE_SOURCE_RET: the return
 * value) of every function named function in btf is a pointer to char not
 * tagged __user.  0, or -EINVAL with a message that starts with spec and
 * names the argument and its C type in err.
 */
int fxtprobe_check_kstr(const struct btf *btf, const char *spec,
			const char *function, __u8 source, char *err,
			size_t err_size);

#endif /* FXTPROBE_KSTR_H */
