// SPDX-License-Identifier: GPL-2.0
/*
 * size_test: fxtctl_parse_size (user/control/size.c), the size parser of
 * fxtrace-drain, fxtrace-probe and FXTRACE_BUFFER_SIZE, at its edges.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "size.h"
#include "../../tests/tap.h"

/* s parses (under max) to expected. */
static void good(const char *s, uint64_t max, uint64_t expected)
{
	uint64_t got = 0xdeadbeef;
	int ret = fxtctl_parse_size(s, max, &got);

	EXPECT_EQ(0, ret);
	EXPECT_EQ(expected, got);
	tap_result("'%s' (max %" PRIu64 ") is %" PRIu64, s, max, expected);
}

/* s is refused with err, *out untouched. */
static void bad(const char *s, uint64_t max, int err)
{
	uint64_t got = 42;
	int ret = fxtctl_parse_size(s, max, &got);

	EXPECT_EQ(err, ret);
	EXPECT_EQ(42, got);
	tap_result("'%s' (max %" PRIu64 ") is refused: %s", s, max, strerror(-err));
}

int main(void)
{
	good("0", UINT64_MAX, 0);
	good("0K", UINT64_MAX, 0);
	good("4096", UINT64_MAX, 4096);
	good("16K", UINT64_MAX, 16384);
	good("16k", UINT64_MAX, 16384);
	good("1M", UINT64_MAX, 1 << 20);
	good("256m", UINT64_MAX, 256ULL << 20);
	good("007", UINT64_MAX, 7);		/* decimal, not octal */
	good("18446744073709551615", UINT64_MAX, UINT64_MAX);
	good("17592186044415M", UINT64_MAX, 17592186044415ULL << 20);
	/* max itself passes, one above does not. */
	good("1024M", 1ULL << 30, 1ULL << 30);
	bad("1025M", 1ULL << 30, -ERANGE);
	good("4294967295", UINT32_MAX, UINT32_MAX);
	bad("4294967296", UINT32_MAX, -ERANGE);
	bad("4194304K", UINT32_MAX, -ERANGE);
	/* Overflow: of the digits, of the shift. */
	bad("18446744073709551616", UINT64_MAX, -ERANGE);
	bad("99999999999999999999999", UINT64_MAX, -ERANGE);
	bad("17592186044416M", UINT64_MAX, -ERANGE);
	bad("18014398509481984K", UINT64_MAX, -ERANGE);
	/* Garbage. */
	bad("", UINT64_MAX, -EINVAL);
	bad("K", UINT64_MAX, -EINVAL);
	bad("-1", UINT64_MAX, -EINVAL);
	bad("+1", UINT64_MAX, -EINVAL);
	bad(" 1", UINT64_MAX, -EINVAL);
	bad("1 ", UINT64_MAX, -EINVAL);
	bad("0x10", UINT64_MAX, -EINVAL);
	bad("1G", UINT64_MAX, -EINVAL);
	bad("1KB", UINT64_MAX, -EINVAL);
	bad("1KK", UINT64_MAX, -EINVAL);
	bad("1.5M", UINT64_MAX, -EINVAL);
	bad("1e3", UINT64_MAX, -EINVAL);
	return tap_plan();
}
