# SPDX-License-Identifier: GPL-2.0
#
# fxtrace, the command line tool: one file per subcommand (Documentation/fxtrace.rst).

FXTRACE_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(wildcard tools/fxtrace/*.c))

$(B)/bin/fxtrace: $(FXTRACE_OBJS) $(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a
	$(link)

# The flush mark of drainer files (check, recover, the readers).
$(FXTRACE_OBJS): CFLAGS_USER += -Iuser/drain

PROGS += $(B)/bin/fxtrace
