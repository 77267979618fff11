# SPDX-License-Identifier: GPL-2.0
#
# fxtrace: top-level build.
#
#   make              fxtrace.ko (through ./Kbuild) and every user-space program
#   make modules      only the module;  KDIR=... picks the kernel build tree
#   make user         only user space;  CC=clang B=build/clang for a clang build
#   make check        everything tested (tools/check.sh), ends with "N passed, N failed"
#   make perfetto-check  the traces of the last check against Perfetto's trace
#                     processor, and the differential test (Documentation/perfetto.rst)
#   make check-debug  the guest tests on a lockdep/KASAN kernel built from source (~1 h)
#   make demo         the main job end to end (in the QEMU guest on this machine)
#   make bench        user-space benchmarks against the peers
#   make bench-kernel kernel events against ftrace, in the guest
#   make V=1          show the commands
#
# Each directory adds its programs in its own build.mk fragment:
#   PROGS       built by `make`
#   UNIT_TESTS  host test programs run by `make check` (exit 0 pass, 77 skip)
#   GUEST_TESTS test programs run in the QEMU guest by `make check` (TAP)

B ?= build
Q := $(if $(filter 1,$(V)),,@)

# Default kernel tree: the running kernel's when it can load modules, else the
# Debian headers of the kernel the guest bench boots (tools/guest/kernel.sh).
ifeq ($(origin KDIR),undefined)
KDIR := $(shell tools/guest/kernel.sh kdir 2>/dev/null)
endif

CFLAGS_USER := -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
	-Iuapi -Iuser/include -Iuser/reader -Iuser/control -MMD -MP \
	$(EXTRA_CFLAGS)
LDLIBS_USER := -lpthread

PROGS :=
UNIT_TESTS :=
GUEST_TESTS :=

.PHONY: all modules user check check-debug demo bench bench-kernel clean perfetto-check
all: modules user

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_USER) -c -o $@ $<

# link = the rule body that links the prerequisites' objects and archives into $@
define link
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_USER) -o $@ $(filter %.o %.a,$^) $(LDLIBS_USER) $(LDLIBS_$(notdir $@))
endef

define archive
	@mkdir -p $(@D)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $(filter %.o,$^)
endef

# GUEST_TESTS runs in this order: the selftests, then the programs' tests.
-include $(wildcard selftests/build.mk user/*/build.mk tools/*/build.mk)

user: $(PROGS) $(UNIT_TESTS) $(GUEST_TESTS)

modules:
	@test -n "$(KDIR)" || { echo "no kernel build tree: set KDIR or run tools/deps.sh" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(if $(filter 1,$(V)),V=1) modules

check:
	tools/check.sh

demo:
	tools/demo.sh

# Exits 77 (an error to make) when there is no trace processor: a skip is no pass.
perfetto-check: user
	tools/perfetto/oracle.sh
	tools/perfetto/differential.sh

bench: user
	tools/bench/run.sh

bench-kernel: all
	tools/bench/kernel.sh

check-debug:
	tools/guest/check-debug.sh

# The downloaded kernels (build/kernels) survive: they take minutes to fetch.
clean:
	find $(B) -mindepth 1 -maxdepth 1 ! -name kernels -exec rm -rf {} +
	-$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)

# `make -s print-VAR` prints a variable (tools/check.sh reads the test lists).
print-%:
	@echo $($*)
