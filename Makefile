# SPDX-License-Identifier: GPL-2.0
#
# fxtrace: top-level build.
#
#   make              fxtrace.ko (through ./Kbuild) and every user-space program
#   make modules      only the module;  KDIR=... picks the kernel build tree
#   make user         only user space;  CC=clang B=build/clang for a clang build
#   make check        everything tested (tools/check.sh), ends with "N passed, N failed, N skipped"
#   make perfetto-check  the traces of the last check against Perfetto's trace
#                     processor, and the differential test (Documentation/perfetto.rst)
#   make check-debug  the guest tests on a lockdep/KASAN kernel built from source (~1 h)
#   make demo         the main job end to end (in the QEMU guest on this machine)
#   make bench        user-space benchmarks against the peers
#   make bench-kernel kernel events against ftrace and lttng-modules, in the guest
#   make bench-stream streaming against LTTng-UST, in the guest
#   make man          the manual pages, from Documentation/man/*.rst (rst2man)
#   make install      PREFIX (/usr/local), DESTDIR, LIBDIR...: Documentation/install.rst
#   make uninstall    removes what make install put there
#   make dkms-source  the DKMS source tree (DKMS_SRC=DIR)
#   make PROBES=0     without dynamic probes (the default when libbpf is missing)
#   make V=1          show the commands
#
# Each directory adds its programs in its own build.mk fragment:
#   PROGS       built by `make`
#   UNIT_TESTS  host test programs run by `make check` (exit 0 pass, 77 skip)
#   GUEST_TESTS test programs run in the QEMU guest by `make check` (TAP)

B ?= build
# The release: libfxtrace's file name, libfxtrace.pc, the packages.
FXTRACE_VERSION := 0.1.0
Q := $(if $(filter 1,$(V)),,@)

# Default kernel tree: the running kernel's headers when they are installed,
# else the Debian headers of the kernel the guest bench boots
# (tools/guest/kernel.sh).  Without either, `make` builds user space only.
ifeq ($(origin KDIR),undefined)
KDIR := $(or $(wildcard /lib/modules/$(shell uname -r)/build),\
	$(shell tools/guest/kernel.sh kdir 6.1 2>/dev/null))
endif

CFLAGS_USER := -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
	-Iuapi -Iuser/include -Iuser/reader -Iuser/control -MMD -MP \
	$(EXTRA_CFLAGS)
LDLIBS_USER := -lpthread

PROGS :=
UNIT_TESTS :=
GUEST_TESTS :=

.PHONY: all modules user check check-debug demo bench bench-kernel bench-stream clean \
	man install install-files uninstall no-module dkms-source perfetto-check
all: $(if $(KDIR),modules,no-module) user

no-module:
	@echo "  NOTE    no kernel build tree (install linux-headers-$$(uname -r) or set KDIR): building user space only"

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

bench-stream: all
	tools/bench/stream.sh

check-debug:
	tools/guest/check-debug.sh

# ---- manual pages -----------------------------------------------------------
# Each Documentation/man/NAME.SECTION.rst includes the Documentation/ page it
# documents, so the manual cannot drift from it.
# fxtrace-probe.1 only in a build with probes.
MAN_PAGES := $(patsubst Documentation/man/%.rst,$(B)/man/%,$(filter-out \
	$(if $(filter 1,$(PROBES)),,Documentation/man/fxtrace-probe.1.rst),\
	$(wildcard Documentation/man/*.[1-8].rst)))

$(B)/man/%: Documentation/man/%.rst $(wildcard Documentation/*.rst)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  MAN     $@")
	$(Q)rst2man --exit-status=2 --report=2 $< $@.tmp && mv $@.tmp $@

man: $(MAN_PAGES)

# ---- install ----------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=] [LIBDIR=...]: nothing is built
# as root here; run `make` and `make man` first when installing with sudo.
# System integration files (udev, modules-load.d, modprobe.d, systemd) go
# where the system reads them: /lib/... for PREFIX=/usr (packages), /etc/...
# for a local install.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
SYSLIBDIR ?= $(if $(filter /usr,$(PREFIX)),/lib,/etc)
UDEVRULESDIR ?= $(SYSLIBDIR)/udev/rules.d
MODULESLOADDIR ?= $(SYSLIBDIR)/modules-load.d
MODPROBEDIR ?= $(SYSLIBDIR)/modprobe.d
SYSTEMDUNITDIR ?= $(SYSLIBDIR)/systemd/system
INSTALL ?= install

# What make install writes, relative to DESTDIR: make uninstall's list.
INSTALL_BINS := fxtrace fxtrace-drain $(if $(filter 1,$(PROBES)),fxtrace-probe)
INSTALL_FILES = $(addprefix $(BINDIR)/,$(INSTALL_BINS)) \
	$(LIBDIR)/libfxtrace.so.$(FXTRACE_VERSION) $(LIBDIR)/libfxtrace.so.0 \
	$(LIBDIR)/libfxtrace.so $(LIBDIR)/libfxtrace.a \
	$(INCLUDEDIR)/fxtrace/trace.h $(INCLUDEDIR)/linux/fxtrace.h \
	$(INCLUDEDIR)/linux/fxt.h $(PKGCONFIGDIR)/libfxtrace.pc \
	$(foreach m,$(notdir $(MAN_PAGES)),$(MANDIR)/man$(subst .,,$(suffix $m))/$m) \
	$(BASHCOMPDIR)/fxtrace $(BASHCOMPDIR)/fxtrace-drain $(UDEVRULESDIR)/60-fxtrace.rules \
	$(MODULESLOADDIR)/fxtrace.conf $(MODPROBEDIR)/fxtrace.conf \
	$(SYSTEMDUNITDIR)/fxtrace-recorder.service $(SYSCONFDIR)/fxtrace/recorder.conf

# Written again at each install: PREFIX and LIBDIR may have changed.
.PHONY: $(B)/libfxtrace.pc $(B)/fxtrace-recorder.service
$(B)/libfxtrace.pc: libfxtrace.pc.in
	@mkdir -p $(@D)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(FXTRACE_VERSION)|' \
		$< >$@.tmp && mv $@.tmp $@

$(B)/fxtrace-recorder.service: dist/systemd/fxtrace-recorder.service
	$(Q)sed -e 's|@BINDIR@|$(BINDIR)|' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|' \
		$< >$@.tmp && mv $@.tmp $@

# What make install copies, built without the tests (debian/rules builds this).
install-files: $(addprefix $(B)/bin/,$(INSTALL_BINS)) $(B)/lib/libfxtrace.a \
	$(B)/lib/libfxtrace.so $(MAN_PAGES) $(B)/libfxtrace.pc $(B)/fxtrace-recorder.service

install: install-files
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR)/fxtrace $(DESTDIR)$(INCLUDEDIR)/linux \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(UDEVRULESDIR) \
		$(DESTDIR)$(MODULESLOADDIR) $(DESTDIR)$(MODPROBEDIR) \
		$(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(SYSCONFDIR)/fxtrace
	$(INSTALL) -m 755 $(addprefix $(B)/bin/,$(INSTALL_BINS)) $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 644 $(B)/lib/libfxtrace.so.$(FXTRACE_VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libfxtrace.so.$(FXTRACE_VERSION) $(DESTDIR)$(LIBDIR)/libfxtrace.so.0
	ln -sf libfxtrace.so.0 $(DESTDIR)$(LIBDIR)/libfxtrace.so
	$(INSTALL) -m 644 $(B)/lib/libfxtrace.a $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 644 user/include/fxtrace/*.h $(DESTDIR)$(INCLUDEDIR)/fxtrace/
	$(INSTALL) -m 644 uapi/linux/fxtrace.h uapi/linux/fxt.h $(DESTDIR)$(INCLUDEDIR)/linux/
	$(INSTALL) -m 644 $(B)/libfxtrace.pc $(DESTDIR)$(PKGCONFIGDIR)/
	$(foreach m,$(MAN_PAGES),$(INSTALL) -D -m 644 $m \
		$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $m))/$(notdir $m) &&) true
	$(INSTALL) -m 644 dist/bash-completion/fxtrace $(DESTDIR)$(BASHCOMPDIR)/
	ln -sf fxtrace $(DESTDIR)$(BASHCOMPDIR)/fxtrace-drain
	$(INSTALL) -m 644 dist/udev/60-fxtrace.rules $(DESTDIR)$(UDEVRULESDIR)/
	$(INSTALL) -m 644 dist/modules-load.d/fxtrace.conf $(DESTDIR)$(MODULESLOADDIR)/
	$(INSTALL) -m 644 dist/modprobe.d/fxtrace.conf $(DESTDIR)$(MODPROBEDIR)/
	$(INSTALL) -m 644 $(B)/fxtrace-recorder.service $(DESTDIR)$(SYSTEMDUNITDIR)/
	$(INSTALL) -m 644 dist/fxtrace/recorder.conf $(DESTDIR)$(SYSCONFDIR)/fxtrace/

# The DKMS source tree (/usr/src/fxtrace-VERSION in fxtrace-dkms):
# make dkms-source DKMS_SRC=DIR.
DKMS_SRC ?= $(B)/dkms/fxtrace-$(FXTRACE_VERSION)
dkms-source:
	rm -rf $(DKMS_SRC) && mkdir -p $(DKMS_SRC)/kmod $(DKMS_SRC)/uapi/linux
	cp Kbuild $(DKMS_SRC)/
	cp kmod/Kbuild kmod/*.[ch] $(DKMS_SRC)/kmod/
	rm -f $(DKMS_SRC)/kmod/*.mod.c
	cp uapi/linux/*.h $(DKMS_SRC)/uapi/linux/
	sed 's|@VERSION@|$(FXTRACE_VERSION)|' dkms.conf >$(DKMS_SRC)/dkms.conf

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALL_FILES))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/fxtrace $(DESTDIR)$(SYSCONFDIR)/fxtrace 2>/dev/null

# The downloaded kernels (build/kernels) survive: they take minutes to fetch.
clean:
	find $(B) -mindepth 1 -maxdepth 1 ! -name kernels -exec rm -rf {} +
	-$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)

# `make -s print-VAR` prints a variable (tools/check.sh reads the test lists).
print-%:
	@echo $($*)
