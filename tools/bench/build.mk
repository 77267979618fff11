# SPDX-License-Identifier: GPL-2.0
# make bench: user-space event costs against the floors and the peers
# (LTTng-UST, fprintf, write()).
PROGS += $(B)/bin/user_bench
USER_BENCH_OBJS := $(B)/obj/tools/bench/user_bench.o $(B)/obj/tools/bench/lttng_tp.o
$(USER_BENCH_OBJS): CFLAGS_USER += -I.
LDLIBS_user_bench := -llttng-ust -ldl
$(B)/bin/user_bench: $(USER_BENCH_OBJS) $(B)/lib/libfxtrace.a
	$(link)
