# SPDX-License-Identifier: GPL-2.0
#
# libfxtread.a, the strict FXT decoder (fxt_reader.h), and its tests.

READER_OBJS := $(addprefix $(B)/obj/user/reader/,fxt_decode.o fxt_reader.o fxt_map.o \
	trace_keep.o)

# What fxtrace recover could save, found by the drainer's flush mark.
$(B)/obj/user/reader/trace_keep.o: CFLAGS_USER += -Iuser/drain

$(B)/lib/libfxtread.a: $(READER_OBJS)
	$(archive)

# Test inputs word by word (vectors.c), shared by the tests and the fuzz seeds.
READER_TEST_LIB := $(B)/obj/user/reader/tests/vectors.o

READER_TESTS := $(addprefix $(B)/test/reader/,decode_test corpus_test map_test \
	cli_test)
UNIT_TESTS += $(READER_TESTS)

$(B)/test/reader/decode_test: $(B)/obj/user/reader/tests/decode_test.o \
		$(READER_TEST_LIB) $(B)/lib/libfxtread.a
	$(link)

$(B)/test/reader/corpus_test: $(B)/obj/user/reader/tests/corpus_test.o \
		$(READER_TEST_LIB) $(B)/lib/libfxtread.a
	$(link)

$(B)/test/reader/map_test: $(B)/obj/user/reader/tests/map_test.o \
		$(READER_TEST_LIB) $(B)/lib/libfxtread.a
	$(link)

# cli_test writes drainer files (user/drain/flush_mark.h) for `check`.
$(B)/obj/user/reader/tests/cli_test.o: CFLAGS_USER += -Iuser/drain

# cli_test runs $(B)/bin/fxtrace, found next to it as ../../bin/fxtrace.
$(B)/test/reader/cli_test: $(B)/obj/user/reader/tests/cli_test.o \
		$(READER_TEST_LIB) $(B)/lib/libfxtread.a | $(B)/bin/fxtrace
	$(link)
