# SPDX-License-Identifier: GPL-2.0
# Golden-byte tests of the FXT encoder (uapi/linux/fxt.h).
UNIT_TESTS += $(B)/test/fxt_encode_test
$(B)/test/fxt_encode_test: $(B)/obj/user/tests/fxt_encode_test.o
	$(link)

# The uapi's layout facts, checked at build time where user space sees them.
UNIT_TESTS += $(B)/test/layout_test
$(B)/test/layout_test: $(B)/obj/user/tests/layout_test.o
	$(link)
