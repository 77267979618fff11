# SPDX-License-Identifier: GPL-2.0
#
# Perfetto's trace processor as an oracle (Documentation/perfetto.rst): the
# mutator of the differential test, and the host test of the rule corpus it
# found (user/reader/tests/perfetto-corpus/), which needs no trace processor.

$(B)/test/perfetto/mutate: $(B)/obj/user/reader/tests/mutate.o
	$(link)

PROGS += $(B)/test/perfetto/mutate
UNIT_TESTS += user/reader/tests/perfetto_corpus_test.sh tools/perfetto/cli_test.sh
