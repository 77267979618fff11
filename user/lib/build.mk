# SPDX-License-Identifier: GPL-2.0
# libfxtrace: static and shared.  Initial-exec TLS keeps the emit path free
# of __tls_get_addr calls in the shared library too.

LIBFXTRACE_CFLAGS := -fPIC -ftls-model=initial-exec
# size.c and output_file.c (user/control) are shared with the tools: one
# size parser, one way to create a trace file.
LIBFXTRACE_CONTROL_OBJS := $(B)/obj/user/lib/size.o $(B)/obj/user/lib/output_file.o
LIBFXTRACE_OBJS := $(B)/obj/user/lib/fxtrace.o $(LIBFXTRACE_CONTROL_OBJS)

$(LIBFXTRACE_CONTROL_OBJS): $(B)/obj/user/lib/%.o: user/control/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_USER) -c -o $@ $<

$(LIBFXTRACE_OBJS): CFLAGS_USER += $(LIBFXTRACE_CFLAGS)

$(B)/lib/libfxtrace.a: $(LIBFXTRACE_OBJS)
	$(archive)

# The shared library exports exactly the functions and the object
# <fxtrace/trace.h> declares (libfxtrace.map, checked by shared_test.sh);
# programs record its soname, libfxtrace.so.0, which links to the file.
# -z nodelete: loaded with a plugin, it stays when the plugin is
# dlclose()d (its thread-exit key destructor, fork handler, buffers and
# exit-time flush belong to the process; shared_test.sh).
LIBFXTRACE_SONAME := libfxtrace.so.0
LIBFXTRACE_SO := $(B)/lib/libfxtrace.so.$(FXTRACE_VERSION)

$(LIBFXTRACE_SO): $(LIBFXTRACE_OBJS) user/lib/libfxtrace.map
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,--version-script=user/lib/libfxtrace.map \
		-Wl,-soname,$(LIBFXTRACE_SONAME) -Wl,--no-undefined -Wl,-z,relro \
		-Wl,-z,now -Wl,-z,nodelete -o $@ $(LIBFXTRACE_OBJS) -lpthread

$(B)/lib/$(LIBFXTRACE_SONAME): $(LIBFXTRACE_SO)
	$(Q)ln -sf $(notdir $<) $@

$(B)/lib/libfxtrace.so: $(B)/lib/$(LIBFXTRACE_SONAME)
	$(Q)ln -sf $(notdir $<) $@

PROGS += $(B)/lib/libfxtrace.a $(LIBFXTRACE_SO) $(B)/lib/$(LIBFXTRACE_SONAME) \
	$(B)/lib/libfxtrace.so

UNIT_TESTS += user/lib/tests/shared_test.sh

UNIT_TESTS += $(B)/test/lib/trace_test user/lib/tests/ntrace_test.sh
$(B)/test/lib/trace_test: $(B)/obj/user/lib/tests/trace_test.o \
		$(B)/lib/libfxtrace.a $(B)/lib/libfxtread.a
	$(link)

UNIT_TESTS += $(B)/test/lib/spool_test
# spool_test runs $(B)/bin/fxtrace recover.
$(B)/test/lib/spool_test: $(B)/obj/user/lib/tests/spool_test.o \
		$(B)/lib/libfxtrace.a $(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a \
		| $(B)/bin/fxtrace
	$(link)

UNIT_TESTS += $(B)/test/lib/threads_test
$(B)/test/lib/threads_test: $(B)/obj/user/lib/tests/threads_test.o \
		$(B)/lib/libfxtrace.a $(B)/lib/libfxtread.a
	$(link)

UNIT_TESTS += $(B)/test/lib/behaviour_test
# A spool whose file system fills up (a tmpfs in a mount namespace).
UNIT_TESTS += user/lib/tests/diskfull_test.sh
$(B)/test/lib/behaviour_test: $(B)/obj/user/lib/tests/behaviour_test.o \
		$(B)/lib/libfxtrace.a $(B)/lib/libfxtread.a
	$(link)

# C++: the header from g++ and clang++, pedantic; same records as from C.
CXXFLAGS_USER := -std=c++17 -O2 -g -Wall -Wextra -Werror -pedantic \
	-D_GNU_SOURCE -Iuapi -Iuser/include -Iuser/reader $(EXTRA_CXXFLAGS)
$(B)/obj/user/lib/tests/cxx_events_gcc.o: user/lib/tests/cxx_events.cc \
		user/include/fxtrace/trace.h user/lib/tests/events_body.h
	@mkdir -p $(@D)
	$(Q)g++ $(CXXFLAGS_USER) -c -o $@ $<
$(B)/obj/user/lib/tests/cxx_events_clang.o: user/lib/tests/cxx_events.cc \
		user/include/fxtrace/trace.h user/lib/tests/events_body.h
	@mkdir -p $(@D)
	$(Q)clang++ $(CXXFLAGS_USER) -c -o $@ $<
$(B)/test/lib/cxx_events_gcc: $(B)/obj/user/lib/tests/cxx_events_gcc.o \
		$(B)/lib/libfxtrace.a
	$(Q)g++ -o $@ $(filter %.o %.a,$^) -lpthread
$(B)/test/lib/cxx_events_clang: $(B)/obj/user/lib/tests/cxx_events_clang.o \
		$(B)/lib/libfxtrace.a
	$(Q)clang++ -o $@ $(filter %.o %.a,$^) -lpthread
$(B)/test/lib/c_events: $(B)/obj/user/lib/tests/c_events.o $(B)/lib/libfxtrace.a
	$(link)
# The same as ISO C11 (-std=c11): without GNU extensions the preprocessor
# keeps the comma before an empty ##__VA_ARGS__ in more places.
$(B)/obj/user/lib/tests/c_events_c11.o: user/lib/tests/c_events.c \
		user/include/fxtrace/trace.h user/lib/tests/events_body.h
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_USER) -std=c11 -c -o $@ $<
$(B)/test/lib/c_events_c11: $(B)/obj/user/lib/tests/c_events_c11.o \
		$(B)/lib/libfxtrace.a
	$(link)
UNIT_TESTS += $(B)/test/lib/cxx_same_test user/lib/tests/cxx_header_test.sh
$(B)/test/lib/cxx_same_test: $(B)/obj/user/lib/tests/cxx_same_test.o \
		$(B)/lib/libfxtread.a | $(B)/test/lib/c_events \
		$(B)/test/lib/c_events_c11 $(B)/test/lib/cxx_events_gcc \
		$(B)/test/lib/cxx_events_clang
	$(link)

# With the module (guest): the same scopes under `fxtrace record`.
GUEST_TESTS += user/lib/tests/module_scopes_test.sh
# fxt_now() in a time namespace, before the first event and after.
GUEST_TESTS += user/lib/tests/module_timens_test.sh
# A buffer attached and not mapped: the thread's retry maps it.
GUEST_TESTS += user/lib/tests/module_attach_test.sh
# A pid filter: programs outside its process tree are not traced.
GUEST_TESTS += user/lib/tests/module_filter_test.sh
# A session begun while a thread attaches: its events reach that session.
GUEST_TESTS += $(B)/test/lib/module_attach_race_test
# It loads static_plugin.so, whose mappings go through its mmap().
LDLIBS_module_attach_race_test := -Wl,--export-dynamic-symbol=mmap
$(B)/test/lib/module_attach_race_test: \
		$(B)/obj/user/lib/tests/module_attach_race_test.o \
		$(B)/lib/libfxtrace.a $(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a \
		| $(B)/test/lib/static_plugin.so
	$(link)
# libfxtrace.a linked into a plugin, closed while a thread that wrote an
# event there lives: the thread's exit must not call into the plugin.
GUEST_TESTS += user/lib/tests/module_dlclose_test.sh
$(B)/obj/user/lib/tests/static_plugin.o: CFLAGS_USER += -fPIC
$(B)/test/lib/static_plugin.so: $(B)/obj/user/lib/tests/static_plugin.o \
		$(B)/lib/libfxtrace.a
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_USER) -shared -o $@ $^ $(LDLIBS_USER)
# A plugin with libfxtrace.a opened and closed again and again: each
# closed copy gives back its descriptors, mappings, memory and key.
UNIT_TESTS += $(B)/test/lib/plugin_reload_test
LDLIBS_plugin_reload_test := -ldl
$(B)/test/lib/plugin_reload_test: $(B)/obj/user/lib/tests/plugin_reload_test.o \
		$(B)/lib/libfxtread.a | $(B)/test/lib/static_plugin.so
	$(link)
# A signal handler that interrupted an event forks.
UNIT_TESTS += $(B)/test/lib/fork_handler_test
$(B)/test/lib/fork_handler_test: $(B)/obj/user/lib/tests/fork_handler_test.o \
		$(B)/lib/libfxtrace.a $(B)/lib/libfxtread.a
	$(link)
$(B)/test/lib/plugin_host: $(B)/obj/user/lib/tests/plugin_host.o
	$(link)
user: $(B)/test/lib/static_plugin.so $(B)/test/lib/plugin_host
$(B)/obj/user/lib/tests/exit_hook.o: CFLAGS_USER += -fPIC
$(B)/test/lib/exit_hook.so: $(B)/obj/user/lib/tests/exit_hook.o
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS_USER) -shared -o $@ $^
# Two copies of the library in one process; a plugin closed and opened
# again, past the session's task-buffer limit; a thread writing after the
# program's destructors at exit.
GUEST_TESTS += $(B)/test/lib/module_plugins_test
$(B)/test/lib/module_plugins_test: \
		$(B)/obj/user/lib/tests/module_plugins_test.o \
		$(B)/lib/libfxtrace.a $(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a \
		| $(B)/test/lib/static_plugin.so $(B)/test/lib/exit_hook.so
	$(link)
# A signal's event while a thread's exit holds the library's lock.
GUEST_TESTS += $(B)/test/lib/module_exit_lock_test
# The same while a plugin's dlclose() holds its copy's, and a thread's
# exit during that dlclose(): the plugin calls this program's
# pthread_mutex_lock() and pthread_mutex_unlock().
LDLIBS_module_exit_lock_test := -ldl \
	-Wl,--export-dynamic-symbol=pthread_mutex_lock \
	-Wl,--export-dynamic-symbol=pthread_mutex_unlock
$(B)/test/lib/module_exit_lock_test: \
		$(B)/obj/user/lib/tests/module_exit_lock_test.o \
		$(B)/lib/libfxtrace.a $(B)/lib/libfxtctl.a \
		| $(B)/test/lib/static_plugin.so
	$(link)
# A category the module refused (its open slots full) is registered again
# when a session that lets its user take a reserved slot starts.
GUEST_TESTS += user/lib/tests/module_category_retry_test.sh
$(B)/test/lib/category_retry: $(B)/obj/user/lib/tests/category_retry.o \
		$(B)/lib/libfxtrace.a
	$(link)
user: $(B)/test/lib/category_retry
GUEST_TESTS += $(B)/test/lib/module_session_test
$(B)/test/lib/module_session_test: $(B)/obj/user/lib/tests/module_session_test.o \
		$(B)/lib/libfxtrace.a $(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a
	$(link)

# The one size parser (user/control/size.c) at its edges.
UNIT_TESTS += $(B)/test/lib/size_test
$(B)/test/lib/size_test: $(B)/obj/user/lib/tests/size_test.o $(B)/lib/libfxtctl.a
	$(link)

# A setuid-root copy of output_prog run by another user must not write its
# caller's FXTRACE_OUTPUT (secure_getenv()).
UNIT_TESTS += user/lib/tests/setuid_test.sh
$(B)/test/lib/output_prog: $(B)/obj/user/lib/tests/output_prog.o \
		$(B)/lib/libfxtrace.a
	$(link)
user: $(B)/test/lib/output_prog
