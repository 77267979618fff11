# SPDX-License-Identifier: GPL-2.0
# libfxtrace: static and shared.  Initial-exec TLS keeps the emit path free
# of __tls_get_addr calls in the shared library too.

LIBFXTRACE_CFLAGS := -fPIC -ftls-model=initial-exec
LIBFXTRACE_OBJS := $(B)/obj/user/lib/fxtrace.o

$(LIBFXTRACE_OBJS): CFLAGS_USER += $(LIBFXTRACE_CFLAGS)

$(B)/lib/libfxtrace.a: $(LIBFXTRACE_OBJS)
	$(archive)

# The shared library exports exactly the functions and the object
# <fxtrace/trace.h> declares (libfxtrace.map, checked by shared_test.sh);
# programs record its soname, libfxtrace.so.0, which links to the file.
LIBFXTRACE_SONAME := libfxtrace.so.0
LIBFXTRACE_SO := $(B)/lib/libfxtrace.so.$(FXTRACE_VERSION)

$(LIBFXTRACE_SO): $(LIBFXTRACE_OBJS) user/lib/libfxtrace.map
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,--version-script=user/lib/libfxtrace.map \
		-Wl,-soname,$(LIBFXTRACE_SONAME) -Wl,--no-undefined -Wl,-z,relro \
		-Wl,-z,now -o $@ $(LIBFXTRACE_OBJS) -lpthread

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
