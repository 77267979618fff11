# SPDX-License-Identifier: GPL-2.0
# kselftest-harness tests of fxtrace.ko, run in the guest (GUEST_TESTS).
# The harness header comes from the kernel's selftests tree, which
# tools/deps.sh unpacks once under build/linux-source for every $(B).
KSFT_DIR := build/linux-source/tools/testing/selftests

SELFTESTS := $(patsubst selftests/%.c,$(B)/selftests/%,$(wildcard selftests/*_test.c))

# The guest runs them through the kselftest runner, from the tree
# selftests/Makefile installs (run_kselftest.sh, kselftest-list.txt).
$(B)/kselftest/kselftest-list.txt: $(SELFTESTS) selftests/Makefile selftests/config \
		selftests/settings
	$(if $(Q),@echo "  KSFT    $(@D)")
	$(Q)$(MAKE) -s --no-print-directory -C selftests B=$(B) \
		KSFT_DIR=$(abspath $(KSFT_DIR)) kselftest_install >/dev/null
GUEST_TESTS += selftests/kselftest_guest.sh
PROGS += $(B)/kselftest/kselftest-list.txt

# The harness compares its int expectations with unsigned fields and has an
# unused handler parameter; the kernel builds selftests without -Wextra.
SELFTEST_CFLAGS := -I$(KSFT_DIR) \
	-Wno-sign-compare -Wno-unused-parameter

# Tests may act as producers (libfxtrace), controllers (libfxtctl) and
# readers (libfxtread); a static library adds only what a test uses.
SELFTEST_LIBS := $(B)/lib/libfxtrace.a $(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a
# mapping_abuse_test drives io_uring, as fxtrace-drain does.
SELFTEST_LDLIBS_mapping_abuse_test := -luring

$(B)/selftests/%: selftests/%.c selftests/fxtrace_selftest.h selftests/hostile.h \
		uapi/linux/fxtrace.h $(SELFTEST_LIBS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_USER) $(SELFTEST_CFLAGS) -o $@ $< $(SELFTEST_LIBS) \
		$(SELFTEST_LDLIBS_$*) $(LDLIBS_USER)

# On the build host (no /dev/fxtrace) every selftest skips, none fails.
UNIT_TESTS += selftests/skip_test.sh
