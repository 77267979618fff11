# SPDX-License-Identifier: GPL-2.0
#
# libfxtprobe.a (dynamic probes through libbpf, fxtprobe.h), fxtrace-probe,
# and their guest tests.  The BPF programs are compiled with clang for the
# bpf target against a vmlinux.h dumped from kernel BTF, and embedded in the
# library through bpftool-generated skeletons.  CO-RE relocates them to the
# kernel they load into, so the BTF is the first of: the running kernel's
# (/sys/kernel/btf/vmlinux), the vmlinux of the kernel tree the module is
# built against (KDIR, or the guest bench's image for its headers).
#
# Without libbpf, bpftool, clang or any BTF, libfxtprobe.a is
# fxtprobe_none.c, which refuses every probe spec saying why: fxtrace and
# fxtrace-drain work without -P.  PROBES=0 forces that build.

PROBE_BTF = $(firstword $(wildcard /sys/kernel/btf/vmlinux $(KDIR)/vmlinux \
	$(KDIR)/../../../../vmlinux))
ifeq ($(origin PROBES),undefined)
PROBES := $(if $(and $(shell pkg-config --exists libbpf && echo y),\
	$(shell PATH=$$PATH:/usr/sbin:/sbin command -v bpftool),\
	$(shell command -v clang),$(PROBE_BTF)),1,0)
endif
BPFTOOL := $(or $(shell PATH=$$PATH:/usr/sbin:/sbin command -v bpftool),bpftool)
PROBE_GEN := $(B)/probe
$(B)/obj/user/probe/%.o: CFLAGS_USER += -I$(PROBE_GEN) -Iuser/probe

ifeq ($(PROBES),1)

# The host's multiarch headers (asm/types.h) for the bpf target: clang, the
# compiler of the BPF programs, names the directory (-dumpmachine does not:
# x86_64-pc-linux-gnu), whatever $(CC) is.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-I$(PROBE_GEN) -Iuser/probe -I/usr/include/$(shell clang -print-multiarch)

$(PROBE_GEN)/vmlinux.h:
	@test -n "$(PROBE_BTF)" || { echo "no kernel BTF: no /sys/kernel/btf/vmlinux and no vmlinux for KDIR=$(KDIR)" >&2; exit 1; }
	@mkdir -p $(@D)
	$(if $(Q),@echo "  BTF     $@ (from $(PROBE_BTF))")
	$(Q)$(BPFTOOL) btf dump file $(PROBE_BTF) format c >$@.tmp && mv $@.tmp $@

$(PROBE_GEN)/%.bpf.o: user/probe/%.bpf.c user/probe/probe_event.h $(PROBE_GEN)/vmlinux.h
	$(if $(Q),@echo "  BPF     $<")
	$(Q)clang $(BPF_CFLAGS) -c -o $@ $<

$(PROBE_GEN)/%.skel.h: $(PROBE_GEN)/%.bpf.o
	$(if $(Q),@echo "  SKEL    $@")
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf >$@.tmp && mv $@.tmp $@

$(B)/obj/user/probe/fxtprobe.o: $(PROBE_GEN)/fxtprobe.skel.h
$(B)/obj/user/probe/tests/probe_bench.o: $(PROBE_GEN)/bare.skel.h

$(B)/lib/libfxtprobe.a: $(B)/obj/user/probe/fxtprobe.o $(B)/obj/user/probe/kstr.o \
		$(B)/obj/user/probe/drops_record.o
	$(archive)

PROBE_LDLIBS := -lbpf -lelf -lz

$(B)/bin/fxtrace-probe: $(B)/obj/user/probe/fxtrace_probe.o $(B)/lib/libfxtprobe.a \
		$(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a
	$(link)
LDLIBS_fxtrace-probe := $(PROBE_LDLIBS)

# The guest tests' programs: a target with a function and a USDT probe to
# probe, the overhead measurement, and the test that a probe's PATH is the
# file it named when added.
$(B)/test/probe/target: $(B)/obj/user/probe/tests/target.o $(B)/lib/libfxtrace.a
	$(link)

$(B)/test/probe/probe_bench: $(B)/obj/user/probe/tests/probe_bench.o $(B)/lib/libfxtprobe.a \
		$(B)/lib/libfxtread.a
	$(link)
LDLIBS_probe_bench := $(PROBE_LDLIBS)

$(B)/test/probe/probe_path_test: $(B)/obj/user/probe/tests/probe_path_test.o \
		$(B)/lib/libfxtprobe.a $(B)/lib/libfxtread.a
	$(link)
LDLIBS_probe_path_test := $(PROBE_LDLIBS)

# kstr's check against the kernel's BTF: on the host, whose BTF it reads.
$(B)/test/probe/kstr_test: $(B)/obj/user/probe/tests/kstr_test.o $(B)/lib/libfxtprobe.a \
		$(B)/lib/libfxtread.a
	$(link)
LDLIBS_kstr_test := $(PROBE_LDLIBS)

# fxtprobe_open()'s messages when libbpf fails: libbpf's calls wrapped, on
# the host, no BPF needed.
$(B)/test/probe/load_message_test: $(B)/obj/user/probe/tests/load_message_test.o \
		$(B)/lib/libfxtprobe.a $(B)/lib/libfxtread.a
	$(link)
LDLIBS_load_message_test := -Wl,--wrap=bpf_object__load_skeleton \
	-Wl,--wrap=bpf_map__update_elem -Wl,--wrap=bpf_program__attach_kprobe_opts \
	$(PROBE_LDLIBS)

# Preloaded into fxtrace-probe by output_gone_test.sh: the command reaped,
# then the writes of its last events failing.
$(B)/test/probe/reaped_then_fail.so: user/probe/tests/reaped_then_fail.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS_USER)) -fPIC -shared -o $@ $< -ldl

PROGS += $(B)/lib/libfxtprobe.a $(B)/bin/fxtrace-probe \
	$(B)/test/probe/target $(B)/test/probe/probe_bench \
	$(B)/test/probe/probe_path_test $(B)/test/probe/reaped_then_fail.so
UNIT_TESTS += $(B)/test/probe/kstr_test $(B)/test/probe/load_message_test
GUEST_TESTS += user/probe/tests/probe_test.sh user/probe/tests/tracepoint_test.sh \
	user/probe/tests/process_filter_test.sh user/probe/tests/output_gone_test.sh

else

$(B)/lib/libfxtprobe.a: $(B)/obj/user/probe/fxtprobe_none.o
	@echo "  NOTE    no libbpf, bpftool, clang or kernel BTF: building without dynamic probes (fxtrace record -P)"
	$(archive)

PROBE_LDLIBS :=
PROGS += $(B)/lib/libfxtprobe.a

endif

# The probes' drop counter against the words it had when built by hand
# (no libbpf needed).
UNIT_TESTS += $(B)/test/probe/drops_record_test
$(B)/test/probe/drops_record_test: $(B)/obj/user/probe/tests/drops_record_test.o \
		$(B)/obj/user/probe/drops_record.o
	$(link)
