# SPDX-License-Identifier: GPL-2.0
# libfxtctl.a: the controller side of /dev/fxtrace (fxtctl.h).

$(B)/lib/libfxtctl.a: $(addprefix $(B)/obj/user/control/,fxtctl.o size.o spool.o \
	write.o output_file.o)
	$(archive)

PROGS += $(B)/lib/libfxtctl.a

# The spool read once, whatever its owner does to the file afterwards, and
# its regions written only when checked (fxtctl_write_buffer()).
$(B)/test/control/spool_read_test: $(B)/obj/user/control/tests/spool_read_test.o \
		$(B)/lib/libfxtctl.a $(B)/lib/libfxtread.a
	$(link)

UNIT_TESTS += $(B)/test/control/spool_read_test

# A name raced between the exclusive create and the open: bounded retries.
$(B)/test/control/output_race_test: $(B)/obj/user/control/tests/output_race_test.o \
		$(B)/obj/user/control/output_file.o
	$(link)

LDLIBS_output_race_test := -Wl,--wrap=open
UNIT_TESTS += $(B)/test/control/output_race_test
