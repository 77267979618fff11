# SPDX-License-Identifier: GPL-2.0
# kselftest-harness tests of fxtrace.ko, run in the guest (GUEST_TESTS).
# The harness header comes from linux-source (tools/deps.sh unpacks it).

SELFTESTS := $(B)/selftests/fxtrace_test
GUEST_TESTS += $(SELFTESTS)

# The harness compares its int expectations with unsigned fields and has an
# unused handler parameter; the kernel builds selftests without -Wextra.
SELFTEST_CFLAGS := -Ibuild/linux-source/tools/testing/selftests \
	-Wno-sign-compare -Wno-unused-parameter

$(B)/selftests/%: selftests/%.c uapi/linux/fxtrace.h
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_USER) $(SELFTEST_CFLAGS) -o $@ $< $(LDLIBS_USER)
