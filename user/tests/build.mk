# SPDX-License-Identifier: GPL-2.0
# Golden-byte tests of the FXT encoder (uapi/linux/fxt.h).
UNIT_TESTS += $(B)/test/fxt_encode_test
$(B)/test/fxt_encode_test: $(B)/obj/user/tests/fxt_encode_test.o
	$(link)
