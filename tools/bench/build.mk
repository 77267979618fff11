# SPDX-License-Identifier: GPL-2.0
# make bench: user-space event costs against the floors and peers.
PROGS += $(B)/bin/user_bench
$(B)/bin/user_bench: $(B)/obj/tools/bench/user_bench.o $(B)/lib/libfxtrace.a
	$(link)
