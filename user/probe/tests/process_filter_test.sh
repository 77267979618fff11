#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxtrace-probe's process filter where the caller's pids are
# not the kernel's global ones, and its runs without COMMAND.  In a pid
# namespace (unshare -pf), the command's uprobe hits are all recorded, and
# those of a process outside it whose global pid is the command's pid
# there are not; -a and -p PID without COMMAND trace until SIGINT or
# SIGTERM.  Needs root and BPF with kernel BTF, not the module: it runs on
# the host too.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../drain/tests/tap.sh
. "$here/../../drain/tests/tap.sh" || exit 1
target=$root/build/test/probe/target
probe=$bin/fxtrace-probe
spec="uprobe:$target:fxtprobe_target_work i=arg0:s64"
hit="instant +probe:uprobe:fxtprobe_target_work i="

if [[ ! -e /sys/kernel/btf/vmlinux ]]; then
	echo "ok 1 # SKIP the kernel has no BTF: no probe can load"
	echo "1..1"
	exit 0
fi

# Processes that live on and hit the uprobe about 100 times a second.
victims=()
trap 'kill "${victims[@]}" 2>/dev/null' EXIT
victim() {
	"$target" 100000 10000 >/dev/null &
	victims+=($!)
}

# dumped NAME: the dump of NAME.fxt, and fxtrace check --strict.
dumped() {
	sed 's/^/# /' "$out/$1.stderr"
	"$bin/fxtrace" dump "$out/$1.fxt" >"$out/$1.dump" 2>&1
	check_strict "$out/$1.fxt" "$1"
}

count() { grep -cE "$2" "$out/$1.dump"; }

# ---- the command in a pid namespace: its own hits, all of them ---------------
unshare -pf --mount-proc "$probe" -o "$out/ns.fxt" -P "$spec" -- "$target" 100 \
	>"$out/ns.stdout" 2>"$out/ns.stderr"
result $? "pid namespace: exit 0"
dumped ns
got=$(count ns "$hit")
threads=$(grep -E "$hit" "$out/ns.dump" | awk '{ print $3 }' | sort -u | wc -l)
echo "# pid namespace: $got events on $threads threads (the command: $(head -n 1 "$out/ns.stdout"))"
[[ $got == 100 && $threads == 1 ]]
result $? "pid namespace: exactly 100 events, on one thread"

# ---- a host process with the command's pid: none of its hits -----------------
# The namespace's next pid is set so that the command gets, there, the
# global pid of a victim that lives outside it.
victim
vp=${victims[-1]}
# shellcheck disable=SC2016 # expanded by the shells in the namespace
unshare -pf --mount-proc bash -c 'echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid &&
	exec "$2" -o "$3" -P "$4" -- sh -c "echo pid \$\$; sleep 1"' \
	_ "$vp" "$probe" "$out/cross.fxt" "$spec" >"$out/cross.stdout" 2>"$out/cross.stderr"
result $? "same pid: exit 0"
dumped cross
[[ $(cat "$out/cross.stdout") == "pid $vp" ]]
result $? "same pid: the command's pid in its namespace is the victim's global pid $vp ($(cat "$out/cross.stdout"))"
got=$(count cross "$hit")
[[ $got == 0 ]]
result $? "same pid: no event of the victim ($got)"

# ---- without COMMAND: until SIGINT (-a) or SIGTERM (-p) ------------------------
# until_signal NAME SIGNAL ARGS...: fxtrace-probe ARGS, SIGNAL after 2 s;
# its exit status in $rc, how long it ran in $ms.
until_signal() {
	local name=$1 sig=$2 t0
	shift 2
	t0=$(date +%s%N)
	timeout -s "$sig" --preserve-status 2 "$probe" -o "$out/$name.fxt" "$@" \
		-P "$spec" 2>"$out/$name.stderr"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	dumped "$name"
}

victim
until_signal all INT -a
result $rc "-a: exit 0 after SIGINT"
((ms >= 1500))
result $? "-a: runs until SIGINT ($ms ms)"
got=$(count all "$hit")
((got > 0))
result $? "-a: the victims' events ($got)"

until_signal pid TERM -p "$vp"
result $rc "-p: exit 0 after SIGTERM"
((ms >= 1500))
result $? "-p: runs until SIGTERM ($ms ms)"
got=$(count pid "$hit")
mine=$(count pid " $vp/$vp +$hit")
((got > 0 && mine == got))
result $? "-p: events of process $vp only ($mine of $got)"

echo "1..$n"
exit $failed
