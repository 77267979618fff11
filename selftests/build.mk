# SPDX-License-Identifier: GPL-2.0
# kselftest-harness tests of fxtrace.ko, run in the guest (GUEST_TESTS).
# The harness header comes from linux-source (tools/deps.sh unpacks it).

SELFTESTS := $(patsubst selftests/%.c,$(B)/selftests/%,$(wildcard selftests/*_test.c))

# The guest runs them through the kselftest runner, from the tree
# selftests/Makefile installs (run_kselftest.sh, kselftest-list.txt).
$(B)/kselftest/kselftest-list.txt: $(SELFTESTS) selftests/Makefile selftests/config \
		selftests/settings
	$(if $(Q),@echo "  KSFT    $(@D)")
	$(Q)$(MAKE) -s --no-print-directory -C selftests B=$(B) kselftest_install >/dev/null
GUEST_TESTS += selftests/kselftest_guest.sh
PROGS += $(B)/kselftest/kselftest-list.txt

# The harness compares its int expectations with unsigned fields and has an
# unused handler parameter; the kernel builds selftests without -Wextra.
SELFTEST_CFLAGS := -Ibuild/linux-source/tools/testing/selftests \
	-Wno-sign-compare -Wno-unused-parameter

# Tests may act as producers (libfxtrace), controllers (libfxtctl) and
# readers (libfxtread); a static library adds only what a test uses.
SELFTEST_LIBS := $(B)/lib/libfxtrace.a $(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a

$(B)/selftests/%: selftests/%.c selftests/fxtrace_selftest.h uapi/linux/fxtrace.h \
		$(SELFTEST_LIBS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_USER) $(SELFTEST_CFLAGS) -o $@ $< $(SELFTEST_LIBS) \
		$(LDLIBS_USER)

$(B)/selftests/hostile_test: selftests/hostile.h

# On the build host (no /dev/fxtrace) every selftest skips, none fails.
UNIT_TESTS += selftests/skip_test.sh
