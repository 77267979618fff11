# SPDX-License-Identifier: GPL-2.0
# kselftest-harness tests of fxtrace.ko, run in the guest (GUEST_TESTS).
# The harness header comes from linux-source (tools/deps.sh unpacks it).

SELFTESTS := $(patsubst selftests/%.c,$(B)/selftests/%,$(wildcard selftests/*_test.c))
GUEST_TESTS += $(SELFTESTS)

# The harness compares its int expectations with unsigned fields and has an
# unused handler parameter; the kernel builds selftests without -Wextra.
SELFTEST_CFLAGS := -Ibuild/linux-source/tools/testing/selftests \
	-Wno-sign-compare -Wno-unused-parameter

# Tests may act as producers (libfxtrace), controllers (libfxtctl) and
# readers (libfxtread); a static library adds only what a test uses.
SELFTEST_LIBS := $(B)/lib/libfxtrace.a $(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a

$(B)/selftests/%: selftests/%.c uapi/linux/fxtrace.h $(SELFTEST_LIBS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_USER) $(SELFTEST_CFLAGS) -o $@ $< $(SELFTEST_LIBS) \
		$(LDLIBS_USER)

$(B)/selftests/hostile_test: selftests/hostile.h
