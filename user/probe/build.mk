# SPDX-License-Identifier: GPL-2.0
#
# libfxtprobe.a (dynamic probes through libbpf, fxtprobe.h), fxtrace-probe,
# and their guest tests.  The BPF programs are compiled with clang for the
# bpf target against a vmlinux.h dumped from the BTF of the guest's Debian
# 6.1 kernel image (never the build host's), and embedded in the library
# through bpftool-generated skeletons.

PROBE_VMLINUX = $(shell tools/guest/kernel.sh vmlinux 6.1 2>/dev/null)
PROBE_GEN := $(B)/probe
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-I$(PROBE_GEN) -Iuser/probe -I/usr/include/$(shell gcc -dumpmachine)

$(PROBE_GEN)/vmlinux.h:
	@test -n "$(PROBE_VMLINUX)" || { echo "no 6.1 guest kernel: run tools/guest/kernel.sh fetch 6.1" >&2; exit 1; }
	@mkdir -p $(@D)
	$(if $(Q),@echo "  BTF     $@")
	$(Q)bpftool btf dump file $(PROBE_VMLINUX) format c >$@.tmp && mv $@.tmp $@

$(PROBE_GEN)/%.bpf.o: user/probe/%.bpf.c user/probe/probe_event.h $(PROBE_GEN)/vmlinux.h
	$(if $(Q),@echo "  BPF     $<")
	$(Q)clang $(BPF_CFLAGS) -c -o $@ $<

$(PROBE_GEN)/%.skel.h: $(PROBE_GEN)/%.bpf.o
	$(if $(Q),@echo "  SKEL    $@")
	$(Q)bpftool gen skeleton $< name $(subst -,_,$*)_bpf >$@.tmp && mv $@.tmp $@

$(B)/obj/user/probe/%.o: CFLAGS_USER += -I$(PROBE_GEN) -Iuser/probe
$(B)/obj/user/probe/fxtprobe.o: $(PROBE_GEN)/fxtprobe.skel.h
$(B)/obj/user/probe/tests/probe_bench.o: $(PROBE_GEN)/bare.skel.h

$(B)/lib/libfxtprobe.a: $(B)/obj/user/probe/fxtprobe.o
	$(archive)

PROBE_LDLIBS := -lbpf -lelf -lz

$(B)/bin/fxtrace-probe: $(B)/obj/user/probe/fxtrace_probe.o $(B)/lib/libfxtprobe.a
	$(link)
LDLIBS_fxtrace-probe := $(PROBE_LDLIBS)

# The guest tests' programs: a target with a function and a USDT probe to
# probe, and the overhead measurement.
$(B)/test/probe/target: $(B)/obj/user/probe/tests/target.o $(B)/lib/libfxtrace.a
	$(link)

$(B)/test/probe/probe_bench: $(B)/obj/user/probe/tests/probe_bench.o $(B)/lib/libfxtprobe.a
	$(link)
LDLIBS_probe_bench := $(PROBE_LDLIBS)

PROGS += $(B)/lib/libfxtprobe.a $(B)/bin/fxtrace-probe \
	$(B)/test/probe/target $(B)/test/probe/probe_bench
GUEST_TESTS += user/probe/tests/probe_test.sh user/probe/tests/tracepoint_test.sh
