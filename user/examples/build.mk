# SPDX-License-Identifier: GPL-2.0
# Example programs instrumented with libfxtrace.
PROGS += $(B)/bin/pipeline
$(B)/bin/pipeline: $(B)/obj/user/examples/pipeline.o $(B)/lib/libfxtrace.a
	$(link)
