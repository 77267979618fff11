# SPDX-License-Identifier: GPL-2.0
#
# fxtrace, the command line tool: one file per subcommand (Documentation/fxtrace.rst).

FXTRACE_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(wildcard tools/fxtrace/*.c))

# stop -o writes an orphan's buffers through the drainer's checks.
$(B)/bin/fxtrace: $(FXTRACE_OBJS) $(B)/obj/user/drain/output.o \
		$(B)/obj/user/drain/fastpass.o $(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a
	$(link)

# The flush mark of drainer files (check, recover, the readers), and
# the drainer's output (stop).
$(FXTRACE_OBJS): CFLAGS_USER += -Iuser/drain

PROGS += $(B)/bin/fxtrace

# The HTML page of `report --html` is compiled in with .incbin.
$(B)/obj/tools/fxtrace/report_html.o: tools/fxtrace/report_template.html

# The dump, report and export tests (tools/fxtrace/tests): mktrace writes
# kernel-like traces with the encoder, user_prog is a libfxtrace program
# traced in user-only mode; report_test.sh checks every figure against
# numbers computed from dump's output, html_test.sh the page in chromium.
$(B)/test/fxtrace/mktrace: $(B)/obj/tools/fxtrace/tests/mktrace.o
	$(link)

# drops_trace: drop series that meet at one key of stats' map.
$(B)/test/fxtrace/drops_trace: $(B)/obj/tools/fxtrace/tests/drops_trace.o
	$(link)

UNIT_TESTS += tools/fxtrace/tests/drops_test.sh

$(B)/test/fxtrace/user_prog: $(B)/obj/tools/fxtrace/tests/user_prog.o \
		$(B)/lib/libfxtrace.a
	$(link)

# print_test: the printf-free writers and the one argument printer (common.c).
$(B)/obj/tools/fxtrace/tests/print_test.o: CFLAGS_USER += -Itools/fxtrace -Iuser/reader/tests
$(B)/test/fxtrace/print_test: $(B)/obj/tools/fxtrace/tests/print_test.o \
		$(B)/obj/tools/fxtrace/common.o $(B)/obj/tools/fxtrace/usage.o \
		$(READER_TEST_LIB) $(B)/lib/libfxtread.a $(B)/lib/libfxtctl.a
	$(link)

UNIT_TESTS += $(B)/test/fxtrace/print_test
UNIT_TESTS += tools/fxtrace/tests/report_test.sh tools/fxtrace/tests/html_test.sh
# Outputs private, never through a planted symlink or hard link.
UNIT_TESTS += tools/fxtrace/tests/output_file_test.sh
# export -o and report --html replace OUT only once written whole.
UNIT_TESTS += tools/fxtrace/tests/output_replace_test.sh
# Preloaded by output_replace_test.sh: a file system without O_TMPFILE.
$(B)/test/fxtrace/no_tmpfile.so: tools/fxtrace/tests/no_tmpfile.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS_USER)) -fPIC -shared -o $@ $< -ldl

PROGS += $(B)/test/fxtrace/no_tmpfile.so
# export -o, recover -o and report --html sync OUT before the rename and
# its directory after.
UNIT_TESTS += tools/fxtrace/tests/output_sync_test.sh
# Preloaded by output_sync_test.sh and stop_test.sh: logs fsync() and
# rename(), and fails fsync() when asked.
$(B)/test/fxtrace/sync_log.so: tools/fxtrace/tests/sync_log.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS_USER)) -fPIC -shared -o $@ $< -ldl

PROGS += $(B)/test/fxtrace/sync_log.so
# No output overwrites a drainer's trace or a spool recover could save.
UNIT_TESTS += tools/fxtrace/tests/output_keep_test.sh
# dump and export stop reading once their output is gone (SIGPIPE ignored).
UNIT_TESTS += tools/fxtrace/tests/output_gone_test.sh
# -o - of record, stop and recover is a usage error, not a file named "-".
UNIT_TESTS += tools/fxtrace/tests/output_dash_test.sh
# SIGINT, SIGTERM and SIGHUP to record reach its drainer (a fake one).
UNIT_TESTS += tools/fxtrace/tests/record_signal_test.sh
# Preloaded by record_signal_test.sh: signals record between its fork()
# of the drainer and its knowing the drainer's pid.
$(B)/test/fxtrace/signal_after_fork.so: tools/fxtrace/tests/signal_after_fork.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS_USER)) -fPIC -shared -o $@ $< -ldl

PROGS += $(B)/test/fxtrace/signal_after_fork.so
# record_signal_test.sh's stand-in drainer: what record's relay says.
$(B)/obj/tools/fxtrace/tests/relay_probe.o: CFLAGS_USER += -Iuser/drain
$(B)/test/fxtrace/relay_probe: $(B)/obj/tools/fxtrace/tests/relay_probe.o
	$(link)

PROGS += $(B)/test/fxtrace/relay_probe
# check --perfetto=json's temporary export is removed on SIGINT, SIGTERM, SIGHUP.
UNIT_TESTS += tools/fxtrace/tests/perfetto_tmp_test.sh
# check --perfetto's model tells names apart by their bytes, as Perfetto does.
UNIT_TESTS += tools/fxtrace/tests/perfetto_model_test.sh
# Crafted traces against the reader's memory limit (--memory-limit).
UNIT_TESTS += tools/fxtrace/tests/memory_limit_test.sh
# Each parser, its -h and its .rst name the same options (and the
# drainer's config keys).
UNIT_TESTS += tools/fxtrace/tests/help_test.py
user: $(B)/test/fxtrace/mktrace $(B)/test/fxtrace/user_prog \
	$(B)/test/fxtrace/drops_trace

# `fxtrace list` in the guest: list_prog registers categories and runs it.
$(B)/test/fxtrace/list_prog: $(B)/obj/tools/fxtrace/tests/list_prog.o \
		$(B)/lib/libfxtrace.a
	$(link)

GUEST_TESTS += tools/fxtrace/tests/list_test.sh
# stop -o FILE that cannot be written leaves the orphan to save.
GUEST_TESTS += tools/fxtrace/tests/stop_test.sh
user: $(B)/test/fxtrace/list_prog
