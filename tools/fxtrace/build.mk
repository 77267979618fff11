# SPDX-License-Identifier: GPL-2.0
#
# fxtrace, the command line tool: one file per subcommand (Documentation/fxtrace.rst).

FXTRACE_OBJS := $(patsubst %.c,$(B)/obj/%.o,$(wildcard tools/fxtrace/*.c))

$(B)/bin/fxtrace: $(FXTRACE_OBJS) $(B)/lib/libfxtread.a
	$(link)

PROGS += $(B)/bin/fxtrace
