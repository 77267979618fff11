/* SPDX-License-Identifier: GPL-2.0 */
/*
 * size.h - the one parser of the sizes users give (buffer and ring sizes on
 * command lines, in config files and in FXTRACE_BUFFER_SIZE).  size.c is
 * compiled into libfxtctl.a and into libfxtrace.
 */
#ifndef FXTRACE_SIZE_H
#define FXTRACE_SIZE_H

#include <stdint.h>

/*
 * Decimal digits with an optional K (KiB) or M (MiB) suffix, either case:
 * "65536", "64K", "1m".  0 with *out set; -EINVAL for anything else (no
 * digits, a sign, a blank, another suffix, a byte after the suffix);
 * -ERANGE when the size is above max (overflow included).  0 is a size:
 * callers check their own minimum.
 */
int fxtctl_parse_size(const char *s, uint64_t max, uint64_t *out);

#endif /* FXTRACE_SIZE_H */
