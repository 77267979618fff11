# SPDX-License-Identifier: GPL-2.0
#
# fxtrace-drain, the io_uring session controller, and its guest tests with
# the programs they run: an honest producer, a garbage producer, a paced
# producer for the soak and a counter.

DRAIN_OBJS := $(addprefix $(B)/obj/user/drain/,drain.o loop.o options.o \
	probes.o progress.o output.o fastpass.o pty.o)

$(B)/bin/fxtrace-drain: $(DRAIN_OBJS) $(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a \
		$(B)/lib/libfxtprobe.a
	$(link)

$(filter-out %/output.o,$(DRAIN_OBJS)): CFLAGS_USER += -Iuser/probe
# Recursive: PROBE_LDLIBS comes from user/probe/build.mk, read later.
LDLIBS_fxtrace-drain = -luring $(PROBE_LDLIBS)

PROGS += $(B)/bin/fxtrace-drain

DRAIN_TEST_PROGS := $(addprefix $(B)/test/drain/,producer garbage soak count_ticks \
	deny_setscheduler leader_exit flow_hop)

$(B)/test/drain/producer: $(B)/obj/user/drain/tests/producer.o \
		$(B)/lib/libfxtrace.a
	$(link)

$(B)/test/drain/garbage: $(B)/obj/user/drain/tests/garbage.o
	$(link)

# record_cli_test.sh's -r under a seccomp filter (RestrictRealtime=).
$(B)/test/drain/deny_setscheduler: $(B)/obj/user/drain/tests/deny_setscheduler.o
	$(link)

# drain_test.sh's command whose first thread exits before the others.
$(B)/test/drain/leader_exit: $(B)/obj/user/drain/tests/leader_exit.o
	$(link)

# record_test.sh's flow from root's process to another user's.
$(B)/test/drain/flow_hop: $(B)/obj/user/drain/tests/flow_hop.o \
		$(B)/lib/libfxtrace.a
	$(link)

$(B)/test/drain/soak: $(B)/obj/user/drain/tests/soak.o $(B)/lib/libfxtrace.a
	$(link)

$(B)/test/drain/count_ticks: $(B)/obj/user/drain/tests/count_ticks.o \
		$(B)/lib/libfxtread.a
	$(link)

# The data path on the host, buffers laid out in memory (no module).
$(B)/test/drain/output_test: $(B)/obj/user/drain/tests/output_test.o \
		$(B)/obj/user/drain/tests/output_harness.o \
		$(B)/obj/user/drain/output.o $(B)/obj/user/drain/fastpass.o \
		$(B)/obj/user/reader/tests/vectors.o \
		$(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a
	$(link)

$(B)/obj/user/drain/tests/output_test.o \
$(B)/obj/user/drain/tests/output_harness.o: CFLAGS_USER += -Iuser/drain -Iuser/reader/tests
# The map slots the drainer walks counted, malloc() and a list's realloc()
# made to fail, a retired buffer's copy's calloc() watched, by the test.
LDLIBS_output_test = -Wl,--wrap=fxt_map_next -Wl,--wrap=malloc \
	-Wl,--wrap=realloc -Wl,--wrap=calloc

UNIT_TESTS += $(B)/test/drain/output_test
# parse_options(): the config file against the command line.
$(B)/test/drain/options_test: $(B)/obj/user/drain/tests/options_test.o \
		$(B)/obj/user/drain/options.o $(B)/lib/libfxtprobe.a \
		$(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a
	$(link)

$(B)/obj/user/drain/tests/options_test.o: CFLAGS_USER += -Iuser/drain -Iuser/probe -Iuser/tests
LDLIBS_options_test = $(PROBE_LDLIBS)
UNIT_TESTS += $(B)/test/drain/options_test
# The output is left alone until Initialize succeeds (a stand-in device).
UNIT_TESTS += user/drain/tests/output_reuse_test.sh
# What -u leaves the command: its ids, no capability (the same stand-in).
UNIT_TESTS += user/drain/tests/run_as_user_test.sh

# The tests run the programs above from $(B); `make` builds them.
PROGS += $(DRAIN_TEST_PROGS)
# The command lines of record, list, stop, the drainer and fxtrace-probe.
UNIT_TESTS += user/drain/tests/record_cli_test.sh
GUEST_TESTS += user/drain/tests/drain_test.sh user/drain/tests/record_test.sh \
	user/drain/tests/readme_test.sh \
	user/drain/tests/soak_test.sh user/drain/tests/unwind_test.sh
# -u from a terminal: the command's own pty (pty_harness.py plays root's).
GUEST_TESTS += user/drain/tests/pty_test.sh
# The output failing mid-session (ENOSPC, EFBIG, EPIPE), a FIFO read slowly.
GUEST_TESTS += user/drain/tests/robust_test.sh
# The traced users' open flows past a process's share (record -u).
GUEST_TESTS += user/drain/tests/traced_share_test.sh
# The probes' drops in the summary as fxtrace-probe gives them.
GUEST_TESTS += user/drain/tests/probe_summary_test.sh

# Preloaded by drain_test.sh: allocations fail once the session exists.
$(B)/test/drain/fail_alloc.so: user/drain/tests/fail_alloc.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS_USER)) -fPIC -shared -o $@ $< -ldl

PROGS += $(B)/test/drain/fail_alloc.so

# Preloaded by record_test.sh: the drainer cannot map a task buffer.
$(B)/test/drain/fail_mmap.so: user/drain/tests/fail_mmap.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS_USER)) -fPIC -shared -o $@ $< -ldl

PROGS += $(B)/test/drain/fail_mmap.so

# Preloaded by pty_test.sh: the command's child's memory map as it execs.
$(B)/test/drain/exec_maps.so: user/drain/tests/exec_maps.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS_USER)) -fPIC -shared -o $@ $< -ldl

PROGS += $(B)/test/drain/exec_maps.so

# Preloaded by pty_test.sh: the relay stops its job before it makes the
# terminal raw.
$(B)/test/drain/stop_before_raw.so: user/drain/tests/stop_before_raw.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS_USER)) -fPIC -shared -o $@ $< -ldl

PROGS += $(B)/test/drain/stop_before_raw.so

# Preloaded by drain_test.sh: a -u command's setsid() comes late.
$(B)/test/drain/slow_setsid.so: user/drain/tests/slow_setsid.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS_USER)) -fPIC -shared -o $@ $< -ldl

PROGS += $(B)/test/drain/slow_setsid.so

# Preloaded into fxtrace record by drain_test.sh: its relays come late.
$(B)/test/drain/slow_relay.so: user/drain/tests/slow_relay.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS_USER)) -fPIC -shared -o $@ $< -ldl

PROGS += $(B)/test/drain/slow_relay.so
