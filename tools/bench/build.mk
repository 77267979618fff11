# SPDX-License-Identifier: GPL-2.0
# make bench: user-space event costs against the floors and the peers
# (LTTng-UST, fprintf, write()).
PROGS += $(B)/bin/user_bench
USER_BENCH_OBJS := $(B)/obj/tools/bench/user_bench.o $(B)/obj/tools/bench/lttng_tp.o
# Loops at 32-byte boundaries: on this AMD EPYC the disabled-category loop
# cost 1.0 or 0.3 ns per iteration depending only on where it fell.
$(USER_BENCH_OBJS): CFLAGS_USER += -I. -falign-loops=32
LDLIBS_user_bench := -llttng-ust -ldl
$(B)/bin/user_bench: $(USER_BENCH_OBJS) $(B)/lib/libfxtrace.a
	$(link)

# make bench-kernel: the kernel events' cost against ftrace, in the guest.
PROGS += $(B)/bin/kernel_bench
$(B)/bin/kernel_bench: $(B)/obj/tools/bench/kernel_bench.o $(B)/lib/libfxtctl.a
	$(link)

# make bench: the drainer's data path (user/drain/output.c) on the host.
PROGS += $(B)/bin/dataplane
$(B)/obj/tools/bench/dataplane.o: CFLAGS_USER += -Iuser/drain
$(B)/bin/dataplane: $(B)/obj/tools/bench/dataplane.o \
		$(B)/obj/user/drain/output.o $(B)/obj/user/drain/fastpass.o \
		$(B)/lib/libfxtctl.a \
		$(B)/lib/libfxtread.a
	$(link)

# make bench-kernel: the kernel writer's records in user space, for
# callgrind's instruction counts (tools/bench/kwriter.sh).
PROGS += $(B)/bin/kwriter_bench
$(B)/bin/kwriter_bench: $(B)/obj/tools/bench/kwriter_bench.o
	$(link)

# make bench-stream: paced producers, fxtrace against LTTng-UST, in the guest.
PROGS += $(B)/bin/stream_bench
STREAM_BENCH_OBJS := $(B)/obj/tools/bench/stream_bench.o $(B)/obj/tools/bench/stream_tp.o
$(STREAM_BENCH_OBJS): CFLAGS_USER += -I.
LDLIBS_stream_bench := -llttng-ust -ldl -lpthread
$(B)/bin/stream_bench: $(STREAM_BENCH_OBJS) $(B)/lib/libfxtrace.a
	$(link)
