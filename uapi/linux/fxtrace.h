/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * fxtrace.h - the ABI of /dev/fxtrace.
 *
 * Every ioctl takes a struct that starts with its own size, so that the
 * struct can grow: the kernel accepts any size from the first version's up
 * to a page, zero-fills what an older caller did not pass and refuses
 * non-zero bytes it does not know (-E2BIG).  Documentation/uapi.rst.
 */
#ifndef _UAPI_LINUX_FXTRACE_H
#define _UAPI_LINUX_FXTRACE_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* The ABI version; a new major is incompatible, a new minor adds to it. */
#define FXTRACE_ABI_MAJOR	0
#define FXTRACE_ABI_MINOR	1

#define FXTRACE_DEVICE		"/dev/fxtrace"

/* Output of FXTRACE_IOC_VERSION. */
struct fxtrace_version {
	__u32 size;		/* Input: sizeof(struct fxtrace_version) */
	__u32 abi_major;	/* Output: FXTRACE_ABI_MAJOR of the module */
	__u32 abi_minor;	/* Output: FXTRACE_ABI_MINOR of the module */
	__u32 __reserved;	/* Output: 0 */
	__u64 features;		/* Output: FXTRACE_FEATURE_* bits */
};

#define FXTRACE_VERSION_SIZE_V0	24	/* first published size */

#define FXTRACE_IOC_MAGIC	0xf8
#define FXTRACE_IOC_VERSION	_IOWR(FXTRACE_IOC_MAGIC, 0, struct fxtrace_version)

#endif /* _UAPI_LINUX_FXTRACE_H */
