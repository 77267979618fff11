// SPDX-License-Identifier: GPL-2.0
/* size.c - sizes with K and M suffixes (size.h). */
#include <errno.h>

#include "size.h"

int fxtctl_parse_size(const char *s, uint64_t max, uint64_t *out)
{
	unsigned int shift = 0;
	uint64_t v = 0;
	const char *p;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (p = s; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p == 'k' || *p == 'K')
		shift = 10, p++;
	else if (*p == 'm' || *p == 'M')
		shift = 20, p++;
	if (*p)
		return -EINVAL;
	if (v > max >> shift)
		return -ERANGE;
	*out = v << shift;
	return 0;
}
