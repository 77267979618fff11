# SPDX-License-Identifier: GPL-2.0
# fxt-sample: a small complete trace written with the encoder (make demo).
PROGS += $(B)/bin/fxt-sample
$(B)/bin/fxt-sample: $(B)/obj/tools/sample/fxt-sample.o
	$(link)
UNIT_TESTS += tools/sample/sample_test.sh
