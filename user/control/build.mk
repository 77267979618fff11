# SPDX-License-Identifier: GPL-2.0
# libfxtctl.a: the controller side of /dev/fxtrace (fxtctl.h).

$(B)/lib/libfxtctl.a: $(addprefix $(B)/obj/user/control/,fxtctl.o size.o spool.o \
	write.o output_file.o)
	$(archive)

PROGS += $(B)/lib/libfxtctl.a
