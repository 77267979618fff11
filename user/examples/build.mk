# SPDX-License-Identifier: GPL-2.0
# Example programs instrumented with libfxtrace.
PROGS += $(B)/bin/pipeline
$(B)/bin/pipeline: $(B)/obj/user/examples/pipeline.o $(B)/lib/libfxtrace.a
	$(link)

# The C++ example: <fxtrace/trace.h> from C++17, pedantic.
PROGS += $(B)/bin/wordfreq
$(B)/obj/user/examples/wordfreq.o: user/examples/wordfreq.cc user/include/fxtrace/trace.h
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CXX     $<")
	$(Q)g++ -std=c++17 -O2 -g -Wall -Wextra -Werror -pedantic -Iuser/include -c -o $@ $<
$(B)/bin/wordfreq: $(B)/obj/user/examples/wordfreq.o $(B)/lib/libfxtrace.a
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LD      $@")
	$(Q)g++ -o $@ $(filter %.o %.a,$^) -lpthread
