#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: the command lines of `fxtrace record`, `fxtrace list`,
# `fxtrace stop`, fxtrace-drain and fxtrace-probe, on the host (no module
# needed): what record asks the drainer for (-c/-e/--filter selection,
# through a stand-in fxtrace-drain next to a copy of fxtrace that prints
# its arguments), its exit statuses, usage errors with their messages,
# --version and --help, and `fxtrace list` on a stand-in tracefs.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tap.sh
. "$here/tap.sh" || exit 1

# ---- what record asks fxtrace-drain for ----------------------------------------
fake=$out/fake
mkdir -p "$fake"
cp "$bin/fxtrace" "$fake/fxtrace"
cat >"$fake/fxtrace-drain" <<'DRAIN'
#!/bin/bash
# Stand-in: print the arguments one per line; with FAKE_WRITE, write a
# trace to the -o file dated FAKE_WRITE (touch -d: the clock of the file
# system's server); with FAKE_TRACE, copy that file there; then exit as
# FAKE_EXIT says.
printf '%s\n' "$@" >"$FAKE_ARGS"
while [[ $# -gt 0 && $1 != -o ]]; do shift; done
if [[ -n ${FAKE_WRITE:-} ]]; then
	printf '%016d' 0 >"$2" && touch -d "$FAKE_WRITE" "$2"
fi
if [[ -n ${FAKE_TRACE:-} ]]; then
	cp "$FAKE_TRACE" "$2"
fi
case ${FAKE_EXIT:-0} in
kill) kill -KILL $$ ;;
*) exit "${FAKE_EXIT:-0}" ;;
esac
DRAIN
chmod +x "$fake/fxtrace-drain"
export FAKE_ARGS=$out/args

# drain_args RECORD-ARGS...: the drainer's arguments, on one line.
drain_args() {
	"$fake/fxtrace" record -q "$@" >/dev/null 2>&1
	tr '\n' ' ' <"$FAKE_ARGS"
}

expect_args() {
	local want=$1 got ok
	shift
	got=$(drain_args "$@")
	# The check's status, not the echo's (as in usage_error()).
	[[ $got == "$want" ]] && ok=0 || ok=1
	((ok == 0)) || echo "# got: $got"
	result $ok "record $*: drainer gets $want"
}

expect_args "-c *,kernel:sched,kernel:task,kernel:syscall,fxtrace -p command -o fxtrace.fxt -q -- prog " -- prog
expect_args "-c *,kernel:sched,kernel:syscall,fxtrace -p command -o fxtrace.fxt -q -- prog " -e sched,syscall -- prog
expect_args "-c app*,net,kernel:sched,kernel:task,kernel:syscall,fxtrace -p command -o fxtrace.fxt -q -- prog " -c 'app*' -c net -- prog
expect_args "-c kernel:syscall,fxtrace -p command -o fxtrace.fxt -q -- prog " -c none -e syscall -- prog
expect_args "-c *,kernel:sched,kernel:task,kernel:syscall,fxtrace -p command -r 5 --shared-flows -o fxtrace.fxt -q -- prog " --shared-flows -r 5 -- prog
# --no-shared-flows wins over the config file's key; the last one is passed on.
expect_args "-C my.conf -p command -r 5 --no-shared-flows -o fxtrace.fxt -q -- prog " -C my.conf --no-shared-flows -r 5 -- prog
expect_args "-c *,kernel:sched,kernel:task,kernel:syscall,fxtrace -p command --no-shared-flows -o fxtrace.fxt -q -- prog " --shared-flows --no-shared-flows -- prog
expect_args "-c *,kernel:sched,kernel:task,kernel:syscall,fxtrace -p command --shared-flows -o fxtrace.fxt -q -- prog " --no-shared-flows --shared-flows -- prog
expect_args "-m circular -c *,kernel:sched,kernel:task,kernel:syscall,fxtrace -p command --snapshot-retired 8M -o fxtrace.fxt -q -- prog " -m circular --snapshot-retired 8M -- prog
expect_args "-c *,fxtrace -p command -o fxtrace.fxt -q -- prog " -e none -- prog
expect_args "-c *,kernel:sched,kernel:task,kernel:irq,kernel:syscall,fxtrace -o fxtrace.fxt -q -- " -a -e all
expect_args "-c app,kernel:sched,fxtrace -p command -o fxtrace.fxt -q -- prog " -c app,kernel:sched -- prog
expect_args "-c *,kernel:sched,fxtrace -P tracepoint:block:block_rq_issue -p command -o fxtrace.fxt -q -- prog " -e sched,block:block_rq_issue -- prog
expect_args "-c *,fxtrace -P tracepoint:sched:sched_switch prev_pid==42 next_pid>=2 -p 7 -o fxtrace.fxt -q -- " -p 7 -e sched:sched_switch --filter 'prev_pid == 42 && next_pid >= 2'
expect_args "-C my.conf -p command -o fxtrace.fxt -q -- prog " -C my.conf -- prog
expect_args "-c *,kernel:sched,kernel:task,kernel:syscall,fxtrace -p command -u nobody -o fxtrace.fxt -q -- prog " -u nobody -- prog
expect_args "-c *,kernel:sched,kernel:task,kernel:syscall,fxtrace -p command -r 5 -o fxtrace.fxt -q -- prog " -r 5 -- prog

# Exit statuses: the drainer's, which is the command's.
for status in 0 1 3 127; do
	FAKE_EXIT=$status "$fake/fxtrace" record -q -- prog 2>/dev/null
	rc=$?
	[[ $rc == "$status" ]]
	result $? "record: exit status $status passed on ($rc)"
done
# A killed drainer: record names the signal and says what the drainer
# left in the file, by its flush mark; whether it was killed while
# tracing or once the trace was written the module says (the guest's
# drain_test.sh sigkilled and record_test.sh orphan), and there is none
# here.  (It said "killed by signal 9; 'fxtrace recover t.fxt' keeps what
# it had written" whatever was there, also of a file it never wrote.)
# killed NAME TRACE WANT: the drainer killed after copying TRACE (empty:
# nothing) to NAME.fxt.
killed() {
	local file=$out/$1.fxt got rc
	rm -f "$file"
	got=$(FAKE_TRACE=$2 FAKE_EXIT="kill" "$fake/fxtrace" record -q -o "$file" -- prog 2>&1)
	rc=$?
	[[ $rc == 1 && $got == "${3//FILE/$file}" ]]
	result $? "record: a drainer killed, $1: exit 1 ($rc), '$got'"
}
unfinished_trace "$out/unfinished.trace"
head -c 56 "$out/unfinished.trace" >"$out/whole.trace"
killed killed-whole "$out/whole.trace" "fxtrace record: fxtrace-drain was killed by SIGKILL: FILE holds 56 bytes, whole up to its last flush at 56 ('fxtrace recover FILE' keeps that much); 'fxtrace stop' ends a session it left"
killed killed-unfinished "$out/unfinished.trace" "fxtrace record: fxtrace-drain was killed by SIGKILL: FILE holds 120 bytes, whole up to its last flush at 56 ('fxtrace recover FILE' keeps that much); 'fxtrace stop' ends a session it left"
killed killed-before "" "fxtrace record: fxtrace-drain was killed by SIGKILL before it wrote FILE; 'fxtrace stop' ends a session it left"

# The trace is announced when the drainer wrote it, by the file's own
# timestamps: a file system whose server's clock is behind ours (9p from a
# guest whose clock ran ahead) dated a trace just written before the run,
# and it went unannounced.  An older file of that name the drainer did not
# write is not announced.
rm -f "$out/new.fxt"
got=$(FAKE_WRITE="1 hour ago" "$fake/fxtrace" record -o "$out/new.fxt" -- prog 2>&1)
[[ $got == *"[ fxtrace record: open it at https://ui.perfetto.dev"* ]]
result $? "record: a trace dated by a server's clock an hour behind is announced"
got=$(FAKE_WRITE="1 hour ago" "$fake/fxtrace" record -o "$out/new.fxt" -- prog 2>&1)
[[ $got == *"[ fxtrace record: wrote 0.000 MB to $out/new.fxt ]"* ]]
result $? "record: so is one written over an older file of that name"
got=$("$fake/fxtrace" record -o "$out/new.fxt" -- prog 2>&1)
[[ $got != *"fxtrace record: wrote"* && $got != *"open it at"* ]]
result $? "record: an older file the drainer did not write is not announced"
# Standard output is the command's: the announcement goes to stderr.
rm -f "$out/new.fxt"
got=$(FAKE_WRITE="now" "$fake/fxtrace" record -o "$out/new.fxt" -- prog 2>/dev/null)
[[ -z $got ]]
result $? "record: nothing of its own on the command's standard output${got:+ (got: ${got//$'\n'/ | })}"

# ---- usage errors -----------------------------------------------------------------
usage_error() {
	local want=$1 got ok
	shift
	got=$("$@" 2>&1 >/dev/null | head -n 1)
	"$@" >/dev/null 2>&1
	rc=$?
	# The check's status, not the echo's: it used to pass every case.
	[[ $rc == 2 && $got == "$want" ]] && ok=0 || ok=1
	((ok == 0)) || echo "# got ($rc): $got"
	result $ok "$(basename "$1") ${*:2}: exit 2, '$want'"
}
names="the kernel categories are sched, task, irq and syscall (or all, none); a tracepoint is SUBSYSTEM:EVENT ('fxtrace list' shows both)"
usage_error "fxtrace record: unknown kernel event 'bogus': $names" "$fake/fxtrace" record -e bogus,schde -- true
usage_error "fxtrace record: unknown kernel event 'kernel:bogus': $names" "$fake/fxtrace" record -c kernel:bogus -- true
usage_error "fxtrace record: unknown kernel event '': $names" "$fake/fxtrace" record -e '' -- true
usage_error "fxtrace record: --filter 'x == 1' follows no -e SUBSYSTEM:EVENT" "$fake/fxtrace" record --filter 'x == 1' -- true
usage_error "fxtrace record: --filter 'prev_pid == 1 || next_pid == 2': conditions are joined by && only" "$fake/fxtrace" record -e sched:sched_switch --filter 'prev_pid == 1 || next_pid == 2' -- true
usage_error "fxtrace record: --filter 'prev_pid == 1 & next_pid == 2': conditions are joined by && only" "$fake/fxtrace" record -e sched:sched_switch --filter 'prev_pid == 1 & next_pid == 2' -- true
limits="a buffer size is a multiple of 4K from 16K to 256M (K and M suffixes)"
usage_error "fxtrace-drain: -b '12K': $limits" "$bin/fxtrace-drain" -b 12K -- true
usage_error "fxtrace-drain: -B '18K': $limits" "$bin/fxtrace-drain" -B 18K -- true
usage_error "fxtrace-drain: -b '512M': $limits" "$bin/fxtrace-drain" -b 512M -- true
usage_error "fxtrace-drain: -o/--output needs a file name, not ''" "$bin/fxtrace-drain" -o '' -- true
usage_error "fxtrace-drain: -o/--output needs a file name, not ''" "$bin/fxtrace-drain" --output= -- true
# "-" was a file of that name, which 'fxtrace stats -' does not read.
dash="a trace is not written to standard output; name a file ('./-' for one named '-')"
usage_error "fxtrace-drain: -o -: $dash" "$bin/fxtrace-drain" -o - -- true
usage_error "fxtrace-drain: -o -: $dash" "$bin/fxtrace-drain" --output=- -- true
printf 'output = -\n' >"$out/dash.conf"
usage_error "fxtrace-drain: $out/dash.conf:1: expected 'key = value' with a valid value" "$bin/fxtrace-drain" -C "$out/dash.conf" -- true
rt="a real-time priority is a number from 1 to 99"
usage_error "fxtrace-drain: -r '0': $rt" "$bin/fxtrace-drain" -r 0 -- true
usage_error "fxtrace-drain: -r '100': $rt" "$bin/fxtrace-drain" --rt-priority=100 -- true
usage_error "fxtrace-drain: -r '5x': $rt" "$bin/fxtrace-drain" -r 5x -- true
printf 'rt-priority = -1\n' >"$out/rt.conf"
usage_error "fxtrace-drain: rt-priority '-1': $rt" "$bin/fxtrace-drain" -C "$out/rt.conf" -- true
# --shared-flows and its config key are options the drainer knows: the
# error is the next option's.  A config value is yes or no.
usage_error "fxtrace-drain: -b '12K': $limits" "$bin/fxtrace-drain" --shared-flows -b 12K -- true
usage_error "$bin/fxtrace-drain: option '--shared-flows' doesn't allow an argument" "$bin/fxtrace-drain" --shared-flows=yes -- true
usage_error "fxtrace record: option '--shared-flows' takes no value" "$fake/fxtrace" record --shared-flows=yes -- true
for value in yes no; do
	printf 'shared-flows = %s\n' "$value" >"$out/shared-$value.conf"
	usage_error "fxtrace-drain: -b '12K': $limits" "$bin/fxtrace-drain" -C "$out/shared-$value.conf" -b 12K -- true
done
printf 'mode = oneshot\nshared-flows = true\n' >"$out/shared-bad.conf"
usage_error "fxtrace-drain: $out/shared-bad.conf:2: expected 'key = value' with a valid value" "$bin/fxtrace-drain" -C "$out/shared-bad.conf" -- true
if "$bin/fxtrace-drain" --help | grep -F -- "--shared-flows     join flow events by correlation id whatever the" >/dev/null; then ok=0; else ok=1; fi
result $ok "fxtrace-drain --help: --shared-flows and what it trusts"
usage_error "fxtrace-drain: -b '12K': $limits" "$bin/fxtrace-drain" -C "$out/shared-yes.conf" --no-shared-flows -b 12K -- true
if "$bin/fxtrace-drain" --help | grep -F -- "--no-shared-flows  a step or end joins only a begin of its own" >/dev/null; then ok=0; else ok=1; fi
result $ok "fxtrace-drain --help: --no-shared-flows"
if "$bin/fxtrace" record --help | grep -F -- "--no-shared-flows        flows join within a user, whatever the" >/dev/null; then ok=0; else ok=1; fi
result $ok "fxtrace record --help: --no-shared-flows"
# --snapshot-retired: a size from 0 to 4096M, on the command line and in
# the config file; fxtrace record's help names it.
retired="a size from 0 to 4096M (K and M suffixes)"
usage_error "fxtrace-drain: --snapshot-retired '1G': $retired" "$bin/fxtrace-drain" --snapshot-retired 1G -- true
usage_error "fxtrace-drain: --snapshot-retired '4097M': $retired" "$bin/fxtrace-drain" --snapshot-retired=4097M -- true
usage_error "fxtrace-drain: -b '12K': $limits" "$bin/fxtrace-drain" --snapshot-retired 0 -b 12K -- true
printf 'snapshot-retired = 5x\n' >"$out/retired-bad.conf"
usage_error "fxtrace-drain: snapshot-retired '5x': $retired" "$bin/fxtrace-drain" -C "$out/retired-bad.conf" -- true
if "$bin/fxtrace" record --help | grep -F -- "--snapshot-retired=SIZE  -m circular: keep copies of exited threads'" >/dev/null; then ok=0; else ok=1; fi
result $ok "fxtrace record --help: --snapshot-retired"
# The config file (-C): errors name it, exit 2, before /dev/fxtrace is opened.
printf 'mode = oneshot\noutput =\n' >"$out/empty-output.conf"
usage_error "fxtrace-drain: $out/empty-output.conf:2: expected 'key = value' with a valid value" \
	"$bin/fxtrace-drain" -C "$out/empty-output.conf" -- true
# A directory's read fails (EISDIR): it used to be read as an empty file.
usage_error "fxtrace-drain: /: cannot read it: Is a directory" "$bin/fxtrace-drain" -C / -- true
# A line without an end grew the drainer's memory without bound (under
# this limit: getline() failed, taken for the end of the file).
# shellcheck disable=SC2317 # called through usage_error
bounded() { (ulimit -v 1048576 && exec timeout 30 "$@"); }
# /dev/zero now stops at its first byte, a NUL byte: the endless line is
# one of '#' on a pipe, read as /proc/self/fd/0: the guest's /dev
# (devtmpfs, no udev) has no /dev/stdin.
# shellcheck disable=SC2317 # called through usage_error
endless() { tr '\0' '#' </dev/zero | bounded "$@"; }
usage_error "fxtrace-drain: /proc/self/fd/0:1: a line longer than 4160 bytes" endless "$bin/fxtrace-drain" -C /proc/self/fd/0 -- true
usage_error "fxtrace-drain: /dev/zero:1: a NUL byte in the line" bounded "$bin/fxtrace-drain" -C /dev/zero -- true
# A NUL byte ended the value there, silently: the drainer wrote to "out".
printf 'mode = oneshot\noutput = out\0.fxt\n' >"$out/nul.conf"
usage_error "fxtrace-drain: $out/nul.conf:2: a NUL byte in the line" "$bin/fxtrace-drain" -C "$out/nul.conf" -- true
printf '# a comment\0\nmode = oneshot\n' >"$out/nul-comment.conf"
usage_error "fxtrace-drain: $out/nul-comment.conf:1: a NUL byte in the line" "$bin/fxtrace-drain" -C "$out/nul-comment.conf" -- true
{ printf 'mode = oneshot\n' && head -c 4160 /dev/zero | tr '\0' '#' && echo; } >"$out/longest.conf"
printf 'mode = oneshot\n#%4160s\n' '' >"$out/long.conf"
usage_error "fxtrace-drain: $out/long.conf:2: a line longer than 4160 bytes" "$bin/fxtrace-drain" -C "$out/long.conf" -- true
# 1 MiB of comment lines at most.
{ printf 'mode = oneshot\n' && yes '#' | head -c $((1048576 - 15)); } >"$out/largest.conf"
{ cat "$out/largest.conf" && echo; } >"$out/large.conf"
usage_error "fxtrace-drain: $out/large.conf: larger than 1048576 bytes: not a config file" "$bin/fxtrace-drain" -C "$out/large.conf" -- true
# The longest line and the largest file are read whole: the error is -b's.
for conf in longest largest; do
	usage_error "fxtrace-drain: -b '12K': $limits" "$bin/fxtrace-drain" -C "$out/$conf.conf" -b 12K -- true
done
usage_error "fxtrace record: -u runs COMMAND as USER: no command given" "$fake/fxtrace" record -u nobody -a
if ((EUID == 0)); then
	usage_error "fxtrace-drain: unknown user 'fxtrace-no-such-user'" "$bin/fxtrace-drain" -u fxtrace-no-such-user -- true
	usage_error "fxtrace-drain: unknown user '4294967294'" "$bin/fxtrace-drain" -u 4294967294 -- true
	usage_error "fxtrace-drain: -u needs a COMMAND" "$bin/fxtrace-drain" -u nobody
	# Not root, with capabilities or not: no -u (setuid() would leave them).
	if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
		usage_error "fxtrace-drain: -u needs root (uid 0): only root runs COMMAND as another user" \
			setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+setuid,+setgid \
			--ambient-caps=+setuid,+setgid "$bin/fxtrace-drain" -u nobody -- true
	fi
fi
usage_error "fxtrace-probe: -p needs a process id, not 'kprobe:f'" "$bin/fxtrace-probe" -o "$out/p.fxt" -p kprobe:f -- true
usage_error "fxtrace-probe: bogus:f: unknown probe kind 'bogus' (kprobe, kretprobe, uprobe, uretprobe, usdt, tracepoint)" \
	"$bin/fxtrace-probe" -o "$out/p.fxt" -P bogus:f -- true
usage_error "fxtrace list: unknown section 'bogus' (kernel, tracepoints, probes, user)" "$bin/fxtrace" list bogus

# Without the module: how to load it.
if [[ ! -e /dev/fxtrace ]]; then
	got=$("$bin/fxtrace" record -q -o "$out/none.fxt" -- true 2>&1)
	rc=$?
	[[ $rc == 1 && $got == "fxtrace-drain: /dev/fxtrace: No such file or directory (the module is not loaded: 'sudo insmod kmod/fxtrace.ko' in the source tree, or 'sudo modprobe fxtrace' where it is installed)" ]]
	result $? "record without the module: exit 1 ($rc), says how to load it"
	got=$("$bin/fxtrace" list user)
	rc=$?
	[[ $rc == 1 && $got == *"(/dev/fxtrace: No such file or directory: fxtrace.ko is not loaded)" ]]
	result $? "list user without the module: exit 1 ($rc), says so"
	got=$("$bin/fxtrace" stop 2>&1)
	rc=$?
	[[ $rc == 1 && $got == "fxtrace stop: /dev/fxtrace: No such file or directory (the module is not loaded: 'sudo insmod kmod/fxtrace.ko' in the source tree, or 'sudo modprobe fxtrace' where it is installed)" ]]
	result $? "stop without the module: exit 1 ($rc), says how to load it as record does"
fi

# ---- -r without the right to it ----------------------------------------------------
# Refused before the session exists (before /dev/fxtrace is opened), exit
# 1, saying what is missing: CAP_SYS_NICE and a high enough RLIMIT_RTPRIO,
# or, with either, nothing the drainer can see (a seccomp filter, as
# systemd's RestrictRealtime=).  The hint used to name CAP_SYS_NICE and
# `ulimit -r` whatever refused it.
eperm="fxtrace-drain: -r 7: Operation not permitted"
other="a seccomp filter, e.g. systemd's RestrictRealtime=, a security module or a cgroup without real-time runtime"
# rt_refused WHAT WANT RTPRIO [deny] [root|userns]: fxtrace-drain -r 7 with
# that RLIMIT_RTPRIO, as nobody unless root or the root of a new user
# namespace, under deny_setscheduler if deny.
rt_refused() {
	local what=$1 want=$2 rtprio=$3 deny=${4:-} as=${5:-nobody} got rc
	local -a cmd=("$bin/fxtrace-drain" -r 7 -o /dev/null -- true)
	[[ -n $deny ]] && cmd=("$progs/deny_setscheduler" "${cmd[@]}")
	[[ $as == nobody ]] && cmd=(setpriv --reuid=65534 --regid=65534 --clear-groups "${cmd[@]}")
	[[ $as == userns ]] && cmd=(unshare --user --map-root-user "${cmd[@]}")
	got=$(prlimit --rtprio="$rtprio:$rtprio" "${cmd[@]}" 2>&1)
	rc=$?
	[[ $rc == 1 && $got == "$eperm $want" ]]
	result $? "fxtrace-drain -r 7 $what: exit 1 ($rc), says what is missing: $got"
}
if ((EUID == 0)) && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	rt_refused "without CAP_SYS_NICE, RLIMIT_RTPRIO 0" \
		"(SCHED_FIFO needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least 7; the drainer has no CAP_SYS_NICE and an RLIMIT_RTPRIO of 0: ulimit -r)" 0
	# Raising the hard limit above 0 needs CAP_SYS_RESOURCE, which a
	# container's root may lack (the guest's has it).
	if prlimit --rtprio=unlimited:unlimited true 2>/dev/null; then
		rt_refused "without CAP_SYS_NICE, RLIMIT_RTPRIO 3" \
			"(SCHED_FIFO needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least 7; the drainer has no CAP_SYS_NICE and an RLIMIT_RTPRIO of 3: ulimit -r)" 3
		rt_refused "with RLIMIT_RTPRIO 7, under a seccomp filter" \
			"(refused by the system although the drainer's RLIMIT_RTPRIO is 7: $other)" 7 deny
		rt_refused "with RLIMIT_RTPRIO unlimited, under a seccomp filter" \
			"(refused by the system although the drainer's RLIMIT_RTPRIO is unlimited: $other)" unlimited deny
	else
		echo "# SKIP: -r with an RLIMIT_RTPRIO above 0: prlimit cannot raise it here (no CAP_SYS_RESOURCE)"
	fi
	rt_refused "as root (CAP_SYS_NICE), under a seccomp filter" \
		"(refused by the system although the drainer has CAP_SYS_NICE: $other)" 0 deny root
	# The kernel wants CAP_SYS_NICE in the initial user namespace: a
	# user namespace's root (a rootless container's) has it in capget()
	# only.  The hint used to blame a seccomp filter for it.
	if unshare --user --map-root-user true 2>/dev/null; then
		rt_refused "as a user namespace's root, RLIMIT_RTPRIO 0" \
			"(SCHED_FIFO needs CAP_SYS_NICE in the initial user namespace or an RLIMIT_RTPRIO of at least 7; the drainer has CAP_SYS_NICE only in a user namespace and an RLIMIT_RTPRIO of 0: ulimit -r)" 0 "" userns
	else
		echo "# SKIP: -r in a user namespace: unshare --user cannot make one here"
	fi
fi

# ---- the command cannot be started ----------------------------------------------
# Four fds: the signalfd takes the last, and the command's gate (a pipe)
# fails; the message used to blame fork().
got=$(ulimit -n 4 && exec "$bin/fxtrace-drain" -o /dev/null -- true 2>&1)
rc=$?
[[ $rc == 1 && $got == "fxtrace-drain: cannot run true: Too many open files" ]]
result $? "fxtrace-drain with RLIMIT_NOFILE 4: exit 1 ($rc), names the command: $got"

# ---- --version and --help -------------------------------------------------------
abi=$(sed -n 's/^#define FXTRACE_ABI_MAJOR[[:space:]]*\([0-9]*\)$/\1/p' "$root/uapi/linux/fxtrace.h").$(sed -n 's/^#define FXTRACE_ABI_MINOR[[:space:]]*\([0-9]*\)$/\1/p' "$root/uapi/linux/fxtrace.h")
[[ $("$bin/fxtrace" --version) == "fxtrace ABI $abi" ]]
result $? "fxtrace --version: fxtrace ABI $abi"
[[ $("$bin/fxtrace-drain" --version) == "fxtrace-drain (fxtrace) ABI $abi" ]]
result $? "fxtrace-drain --version"
[[ $("$bin/fxtrace-probe" --version) == "fxtrace-probe (fxtrace) ABI $abi" ]]
result $? "fxtrace-probe --version"
"$bin/fxtrace-drain" --help | grep '^  -p, --pid=PID ' >/dev/null
result $? "fxtrace-drain --help: exit 0, long options"
"$bin/fxtrace-probe" --help | grep '^  -P, --probe SPEC ' >/dev/null
result $? "fxtrace-probe --help: -P is --probe"
"$bin/fxtrace" record -h | grep 'default: sched,task,syscall' >/dev/null
result $? "record -h states the default kernel events"

# ---- fxtrace list on a stand-in tracefs ----------------------------------------------
tracefs=$out/tracefs
mkdir -p "$tracefs"
printf '%s\n' sched:sched_switch block:block_rq_issue sched:sched_waking >"$tracefs/available_events"
got=$("$bin/fxtrace" list --tracefs="$tracefs" tracepoints)
[[ $got == "Tracepoints of this kernel (fxtrace record -e SUBSYSTEM:EVENT; from $tracefs):
  block:block_rq_issue
  sched:sched_switch
  sched:sched_waking
  (3 tracepoints)" ]]
result $? "list tracepoints: sorted, counted"
got=$("$bin/fxtrace" list --tracefs="$tracefs" tracepoints 'sched:*' | tail -n 1)
[[ $got == "  (2 tracepoints matching sched:*)" ]]
result $? "list tracepoints GLOB"
got=$("$bin/fxtrace" list kernel | awk 'NR > 1 { print $1 }' | tr '\n' ' ')
[[ $got == "sched task irq syscall " ]]
result $? "list kernel: the four categories ($got)"
"$bin/fxtrace" list --tracefs="$out/nonexistent" tracepoints >/dev/null
[[ $? == 1 ]]
result $? "list tracepoints without tracefs: exit 1"
"$bin/fxtrace" list --tracefs="$out/nonexistent" >/dev/null
result $? "list (every section) without tracefs: exit 0"

echo "1..$n"
exit $failed
