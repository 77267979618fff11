// SPDX-License-Identifier: GPL-2.0
/*
 * deny_setscheduler.c - run a command under a seccomp filter that fails
 * sched_setscheduler() and sched_setattr() with EPERM, as systemd's
 * RestrictRealtime= does for real-time policies, whatever capabilities or
 * RLIMIT_RTPRIO the command has (record_cli_test.sh: fxtrace-drain -r).
 *
 * Usage: deny_setscheduler COMMAND [ARGS...]; exits 127 if it cannot.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__)
#define NATIVE_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH	AUDIT_ARCH_AARCH64
#else
#error "deny_setscheduler: no AUDIT_ARCH for this architecture"
#endif

int main(int argc, char **argv)
{
	struct sock_filter insns[] = {
		/* Another ABI's numbers mean other calls: fail them all. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sched_setscheduler,
			 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sched_setattr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(insns) / sizeof(insns[0]),
		.filter = insns,
	};

	if (argc < 2) {
		fputs("usage: deny_setscheduler COMMAND [ARGS...]\n", stderr);
		return 127;
	}
	/* Without it only a task with CAP_SYS_ADMIN may install a filter. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		fprintf(stderr, "deny_setscheduler: %s\n", strerror(errno));
		return 127;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "deny_setscheduler: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
