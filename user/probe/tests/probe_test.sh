#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxtrace-probe (libfxtprobe) end to end in the guest: a
# kprobe, a uprobe + uretprobe pair and a USDT probe on build/test/probe/target
# give exactly one event per hit on the target's thread, with the captured
# arguments; bad specs and unattachable probes give the documented errors
# while the other probes go on.  Then the same probes through
# `fxtrace record --probe`, in one trace with the target's own libfxtrace
# durations, inside which they must fall; the overhead figures of
# probe_bench.
# Runs as root with fxtrace.ko loaded.  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# Paths, result() and check_strict(), shared with the drainer's tests.
# shellcheck source=../../drain/tests/tap.sh
. "$here/../../drain/tests/tap.sh" || exit 1
target=$root/build/test/probe/target

# traced NAME: after a run of target that wrote $out/NAME.{fxt,stdout,stderr}:
# its exit status in $rc, the target's "pid P tid T" line in $who (as
# "P/T"), the dump in $out/NAME.dump.
traced() {
	rc=$?
	sed 's/^/# /' "$out/$1.stderr"
	who=$(awk '/^pid / { print $2 "/" $4 }' "$out/$1.stdout")
	"$bin/fxtrace" dump "$out/$1.fxt" >"$out/$1.dump" 2>&1
}

# probe NAME COUNT SPEC...: fxtrace-probe on `target COUNT`, then traced.
probe() {
	local name=$1 count=$2 args=()
	shift 2
	for spec in "$@"; do args+=(-P "$spec"); done
	"$bin/fxtrace-probe" -o "$out/$name.fxt" "${args[@]}" -- \
		"$target" "$count" >"$out/$name.stdout" 2>"$out/$name.stderr"
	traced "$name"
}

# count NAME REGEX: dump lines matching REGEX.
count() { grep -cE "$2" "$out/$1.dump"; }

K=1000

# Without kernel BTF (the debug kernel of make check-debug is built without
# debug info) the programs cannot load: the error must say why, and there
# is nothing else to test.
if [[ ! -e /sys/kernel/btf/vmlinux ]]; then
	got=$("$bin/fxtrace-probe" -o "$out/nobtf.fxt" -P kprobe:__x64_sys_getppid -- true 2>&1)
	rc=$?
	[[ $rc == 1 && $got == "fxtrace-probe: cannot load the BPF programs: No such process (the kernel has no BTF, /sys/kernel/btf/vmlinux: CONFIG_DEBUG_INFO_BTF is needed)" ]]
	result $? "no kernel BTF: exit 1 ($rc) and the reason: $got"
	echo "ok $((n + 1)) # SKIP the kernel has no BTF: no probe can load"
	echo "1..$((n + 1))"
	exit $failed
fi

# ---- kprobe: one instant per getppid() ---------------------------------------
probe kprobe $K kprobe:__x64_sys_getppid
result $rc "kprobe: exit 0"
check_strict "$out/kprobe.fxt" kprobe
got=$(count kprobe " $who +instant +probe:kprobe:__x64_sys_getppid$")
all=$(count kprobe "instant|duration")
echo "# kprobe: $got events on $who, $all events in all"
[[ $got == "$K" && $all == "$K" ]]
result $? "kprobe: exactly $K events, all on the target's thread"

# ---- uprobe + uretprobe: one duration per call -------------------------------
probe uprobe $K "uprobe:$target:fxtprobe_target_work i=arg0:s64" \
	"uretprobe:$target:fxtprobe_target_work ret:s64"
result $rc "uprobe: exit 0"
check_strict "$out/uprobe.fxt" uprobe
begins=$(count uprobe " $who +duration begin +probe:uprobe:fxtprobe_target_work i=")
ends=$(count uprobe " $who +duration end +probe:uprobe:fxtprobe_target_work ret=")
echo "# uprobe: $begins begins, $ends ends"
[[ $begins == "$K" && $ends == "$K" ]]
result $? "uprobe: exactly $K duration pairs on the target's thread"
# Begin i=N then end ret=3N+1, for N = 0, 1, 2, ... in order.
awk -v k=$K '
	/duration begin/ { split($NF, a, "="); if (a[2] != i || open) bad++; open = 1 }
	/duration end/ { split($NF, a, "="); if (a[2] != 3 * i + 1 || !open) bad++; open = 0; i++ }
	END { exit bad || i != k }' "$out/uprobe.dump"
result $? "uprobe: arguments i=0..$((K - 1)) and ret=3i+1, nested in order"

# ---- USDT: one instant per tick, with both arguments -------------------------
probe usdt $K "usdt:$target:fxtprobe_test:tick i=arg0:s64 label=arg1:ustr"
result $rc "usdt: exit 0"
check_strict "$out/usdt.fxt" usdt
got=$(count usdt " $who +instant +probe:usdt:fxtprobe_test:tick i=[0-9]+ label=\"tick-label\"$")
echo "# usdt: $got events"
[[ $got == "$K" ]]
result $? "usdt: exactly $K events with label=\"tick-label\""
awk -v k=$K '/instant +probe:usdt/ { split($(NF - 1), a, "="); if (a[2] != i++) bad++ }
	END { exit bad || i != k }' "$out/usdt.dump"
result $? "usdt: i=0..$((K - 1)) in order"

# ---- PATH is the file named when the probe was added -------------------------
# Renamed over between the add and the attach (libbpf opens PATH, then the
# kernel opens it again): the probes stay on the file added.  On the
# guest's tmpfs: over 9p, where $out may be, an open of /proc/self/fd/N
# walks the name again (Documentation/probes.rst).
tmp=$(mktemp -d /tmp/probe-path.XXXXXX)
"$root/build/test/probe/probe_path_test" "$target" /bin/true "$tmp/dir" \
	>"$out/probe-path.tap" 2>&1
rc=$?
rm -rf "$tmp"
sed 's/^/# /' "$out/probe-path.tap"
[[ $rc == 0 ]] && ! grep -q '^not ok' "$out/probe-path.tap" &&
	grep -q '^1\.\.8$' "$out/probe-path.tap"
result $? "probe path: a uprobe and a USDT probe attach to the file added, not to what was renamed over it"

# ---- bad specs: exit 2 and the documented message ----------------------------
bad_spec() {
	local spec=$1 want=$2 got rc
	got=$("$bin/fxtrace-probe" -o "$out/bad.fxt" -P "$spec" -- true 2>&1)
	rc=$?
	[[ $rc == 2 && $got == "fxtrace-probe: $want" ]]
	result $? "bad spec '$spec': exit 2 ($rc), '$want'"
	[[ $got == "fxtrace-probe: $want" ]] || echo "# got: $got"
}
bad_spec "bogus:f" "bogus:f: unknown probe kind 'bogus' (kprobe, kretprobe, uprobe, uretprobe, usdt, tracepoint)"
bad_spec "kprobe:" "kprobe:: '' is not a kernel function name"
bad_spec "kprobe:a-b" "kprobe:a-b: 'a-b' is not a kernel function name"
bad_spec "uprobe:/bin/true" "uprobe:/bin/true: expected PATH:SYMBOL"
bad_spec "usdt:/bin/true:tick" "usdt:/bin/true:tick: expected usdt:PATH:PROVIDER:NAME"
bad_spec "kprobe:f arg6:u64" "kprobe:f arg6:u64: 'arg6': a kprobe has arg0..arg5"
bad_spec "usdt:/x:p:n arg12:u64" "usdt:/x:p:n arg12:u64: 'arg12': a usdt has arg0..arg11"
bad_spec "kretprobe:f arg0:u64" "kretprobe:f arg0:u64: arguments are gone at return: use ret"
bad_spec "kprobe:f ret:u64" "kprobe:f ret:u64: ret exists only in kretprobe and uretprobe"
bad_spec "uprobe:/x:f arg0:kstr" "uprobe:/x:f arg0:kstr: kstr reads kernel memory: a uprobe reads ustr"
bad_spec "kprobe:f arg0:float" "kprobe:f arg0:float: unknown type 'float' (u64, s64, u32, s32, ptr, ustr, kstr)"
bad_spec "kprobe:f arg0" "kprobe:f arg0: 'arg0': expected [NAME=]SOURCE:TYPE"
bad_spec "kprobe:f 9x=arg0:u64" "kprobe:f 9x=arg0:u64: argument name '9x' is not an identifier of at most 31 characters"
bad_spec "kprobe:f a=arg0:u64 b=arg1:u64 c=arg2:u64 d=arg3:u64 e=arg4:u64" \
	"kprobe:f a=arg0:u64 b=arg1:u64 c=arg2:u64 d=arg3:u64 e=arg4:u64: at most 4 arguments"

# ---- unattachable probes: reported, the others go on -------------------------
probe unattachable 100 kprobe:fxtprobe_no_such_function \
	uprobe:/nonexistent/prog:main uprobe:/dev/null:main \
	"uprobe:$target:fxtprobe_no_such_symbol" \
	"usdt:$target:fxtprobe_test:nope" kprobe:__x64_sys_getppid
[[ $rc == 3 ]]
result $? "unattachable: exit 3 ($rc)"
expected="fxtrace-probe: kprobe:fxtprobe_no_such_function: cannot attach: no kernel function fxtprobe_no_such_function
fxtrace-probe: uprobe:/nonexistent/prog:main: cannot attach: /nonexistent/prog: No such file or directory
fxtrace-probe: uprobe:/dev/null:main: cannot attach: /dev/null: not a regular file
fxtrace-probe: uprobe:$target:fxtprobe_no_such_symbol: cannot attach: no function symbol fxtprobe_no_such_symbol in $target
fxtrace-probe: usdt:$target:fxtprobe_test:nope: cannot attach: no USDT probe fxtprobe_test:nope in $target"
[[ $(grep 'cannot attach' "$out/unattachable.stderr") == "$expected" ]]
result $? "unattachable: one message per probe, naming it and the reason"
grep -q '^fxtrace-probe: 100 events from 1 of 6 probes, 0 dropped (ring full), 0 missed (nested), 0 invalid$' \
	"$out/unattachable.stderr"
result $? "unattachable: the summary counts 1 of 6 probes attached"
check_strict "$out/unattachable.fxt" unattachable
got=$(count unattachable " $who +instant +probe:kprobe:__x64_sys_getppid$")
[[ $got == 100 ]]
result $? "unattachable: the probe that attached has exactly 100 events ($got)"

# ---- a USDT argument its probe does not have --------------------------------
# fxtprobe_test:tick has 2 arguments: arg2 would read as 0 at every hit.
probe usdt-args 10 "usdt:$target:fxtprobe_test:tick i=arg0:s64 x=arg2:u64"
[[ $rc == 3 ]]
result $? "usdt arg2 of 2: exit 3 ($rc)"
expected="fxtrace-probe: usdt:$target:fxtprobe_test:tick i=arg0:s64 x=arg2:u64: cannot attach: USDT probe fxtprobe_test:tick in $target has 2 arguments, not arg2"
[[ $(grep 'cannot attach' "$out/usdt-args.stderr") == "$expected" ]]
result $? "usdt arg2 of 2: the message says how many it has"
got=$(count usdt-args "probe:usdt:")
[[ $got == 0 ]]
result $? "usdt arg2 of 2: no event ($got)"

# One argument is one: fxtprobe_test:start has only COUNT.
probe usdt-one 1 "usdt:$target:fxtprobe_test:start n=arg0:s64 x=arg1:u64"
expected="fxtrace-probe: usdt:$target:fxtprobe_test:start n=arg0:s64 x=arg1:u64: cannot attach: USDT probe fxtprobe_test:start in $target has 1 argument, not arg1"
[[ $rc == 3 && $(grep 'cannot attach' "$out/usdt-one.stderr") == "$expected" ]]
result $? "usdt arg1 of 1: exit 3 ($rc), the message says it has 1 argument"

# ---- a full ring: every hit is an event or a drop -----------------------------
# A one-page ring holds 12 events; the tool drains it every 100 ms at best.
"$bin/fxtrace-probe" -o "$out/full.fxt" -r 4096 -P kprobe:__x64_sys_getppid -- \
	"$target" $K >"$out/full.stdout" 2>"$out/full.stderr"
result $? "full ring: exit 0"
sed 's/^/# /' "$out/full.stderr"
check_strict "$out/full.fxt" "full ring"
"$bin/fxtrace" dump "$out/full.fxt" >"$out/full.dump" 2>&1
got=$(count full "instant +probe:kprobe:__x64_sys_getppid$")
dropped=$(sed -n 's/^fxtrace-probe: .*, \([0-9]*\) dropped (ring full), 0 missed (nested), 0 invalid$/\1/p' "$out/full.stderr")
echo "# full ring: $got events, $dropped dropped"
[[ -n $dropped && $dropped -gt 0 && $((got + dropped)) == "$K" ]]
result $? "full ring: events + drops == $K"
grep -qE "counter +fxtrace:dropped id=[0-9]+ records=$dropped invalid=0$" "$out/full.dump"
result $? "full ring: the trace's fxtrace:dropped counter says records=$dropped"

# ---- nested hits: the kernel runs no program inside another ------------------
# The tracepoint's program copies the entry with bpf_probe_read_kernel(),
# that is copy_from_kernel_nofault(): a kprobe there fires inside that
# program, and trace_call_bpf() runs no BPF program while another runs on
# the CPU.  From 6.7 the kernel counts each such hit in the program's
# recursion_misses, and they are drops like a full ring's; 6.1 does not
# count them.  (Outside any program the kprobe runs: the target's own
# calls of copy_from_kernel_nofault() are events, not counted here.)
probe nested $K tracepoint:syscalls:sys_enter_getppid kprobe:copy_from_kernel_nofault
result $rc "nested: exit 0"
check_strict "$out/nested.fxt" nested
IFS=. read -r major minor _ <<<"$(uname -r)"
if ((major > 6 || (major == 6 && minor >= 7))); then lost=$K; else lost=0; fi
hits=$(count nested " $who +instant +probe:tracepoint:syscalls:sys_enter_getppid ")
inner=$(count nested "probe:kprobe:copy_from_kernel_nofault")
missed=$(sed -n 's/^fxtrace-probe: .*, 0 dropped (ring full), \([0-9]*\) missed (nested), 0 invalid$/\1/p' "$out/nested.stderr")
echo "# nested: $hits tracepoint events, $inner kprobe events, $missed missed (expected $lost)"
[[ $hits == "$K" && $missed == "$lost" ]]
result $? "nested: $K tracepoint events and $lost missed on $(uname -r)"
if ((lost)); then
	grep -qE "counter +fxtrace:dropped id=[0-9]+ records=$lost invalid=0$" "$out/nested.dump"
else
	! grep -q "fxtrace:dropped" "$out/nested.dump"
fi
result $? "nested: the trace's fxtrace:dropped counter says records=$lost"

# ---- fxtrace record --probe: probes and the program's own events, one clock --
# record_probes NAME COUNT RECORD-OPTIONS...: `fxtrace record` of
# `target COUNT`, then traced.
record_probes() {
	local name=$1 count=$2
	shift 2
	"$bin/fxtrace" record -o "$out/$name.fxt" "$@" -- "$target" "$count" \
		>"$out/$name.stdout" 2>"$out/$name.stderr"
	traced "$name"
}

# The dump names a thread after its PID/TID once the file has named it (the
# target's buffer does), so the probe events may show the name or not.
record_probes record $K -c probe_test -P kprobe:__x64_sys_getppid \
	-P "uprobe:$target:fxtprobe_target_work i=arg0:s64" \
	-P "uretprobe:$target:fxtprobe_target_work ret:s64" \
	-P "usdt:$target:fxtprobe_test:tick i=arg0:s64 label=arg1:ustr"
result $rc "record: exit 0"
check_strict "$out/record.fxt" record
grep -q "^fxtrace-drain: probes 4 of 4 attached, $((4 * K)) events, 0 dropped (ring full), 0 missed (nested), 0 invalid$" \
	"$out/record.stderr"
result $? "record: the drainer's summary counts 4 probes and $((4 * K)) events"
for what in "instant +probe:kprobe:__x64_sys_getppid$" \
	"duration begin +probe:uprobe:fxtprobe_target_work i=" \
	"duration end +probe:uprobe:fxtprobe_target_work ret=" \
	"instant +probe:usdt:fxtprobe_test:tick i=[0-9]+ label=\"tick-label\"$" \
	"duration begin +probe_test:iteration" "duration end +probe_test:iteration" \
	"duration begin +probe_test:work" "duration end +probe_test:work"; do
	got=$(count record " $who( target)? +$what")
	[[ $got == "$K" ]]
	result $? "record: exactly $K '$what' on the target's thread ($got)"
done
# On the time line: each getppid() kprobe inside its iteration's duration
# (exactly one each), each uprobe/uretprobe pair inside the "work"
# duration around the same call.  The gap is what the probes add.
grep " $who " "$out/record.dump" | sort -s -g -k2,2 | awk -v k=$K -v gaps="$out/gaps" '
	/duration begin +probe_test:iteration/ { if (it) bad++; it = 1; kp = 0 }
	/instant +probe:kprobe:/ { if (!it) bad++; kp++ }
	/duration end +probe_test:iteration/ { if (!it || kp != 1) bad++; it = 0; n++ }
	/duration begin +probe_test:work/ { wb = $2; w = 1; pb = pe = -1 }
	/duration begin +probe:uprobe:/ { if (!w || pb >= 0) bad++; pb = $2 }
	/duration end +probe:uprobe:/ { if (!w || pb < 0) bad++; pe = $2 }
	/duration end +probe_test:work/ {
		if (!w || pb < wb || pe < pb || $2 < pe) bad++
		printf "%.3f\n", (($2 - wb) - (pe - pb)) * 1e6 >gaps; m++; w = 0
	}
	END { exit (bad || n != k || m != k) }'
result $? "record: every kprobe inside its iteration, every uprobe pair inside its work duration"
# The bound is on the median: one preemption in the window makes a gap of
# milliseconds under TCG (about 5 us measured, Documentation/probes.rst).
sort -g "$out/gaps" | awk -v bound=50 '{ g[NR] = $1 }
	END { printf "# record: work duration minus probe duration: median %.1f us, p99 %.1f us, max %.1f us\n",
		g[int(NR / 2) + 1], g[int(NR * 0.99) + 1], g[NR]
		exit !(NR > 0 && g[int(NR / 2) + 1] < bound) }'
result $? "record: the uprobe durations match the work durations: median gap under 50 us"

# A probe from the config file, one that cannot attach, and the session
# goes on with the others.
echo "probe = kprobe:__x64_sys_getppid" >"$out/probes.conf"
record_probes record-conf 100 -c probe_test -C "$out/probes.conf" \
	-P kprobe:fxtprobe_no_such_function
result $rc "record with an unattachable probe: exit 0"
grep -qx "fxtrace-drain: kprobe:fxtprobe_no_such_function: cannot attach: no kernel function fxtprobe_no_such_function" \
	"$out/record-conf.stderr"
result $? "record: the probe that cannot attach is named with the reason"
got=$(count record-conf " $who( target)? +instant +probe:kprobe:__x64_sys_getppid$")
[[ $got == 100 ]]
result $? "record: the config file's probe has exactly 100 events ($got)"
got=$(count record-conf " $who( target)? +duration end +probe_test:iteration")
[[ $got == 100 ]]
result $? "record: the session went on: 100 iterations ($got)"
got=$("$bin/fxtrace" record -q -o "$out/bad.fxt" -P "kprobe:f arg6:u64" -- true 2>&1)
rc=$?
[[ $rc == 2 && $got == "fxtrace-drain: kprobe:f arg6:u64: 'arg6': a kprobe has arg0..arg5" ]]
result $? "record: a bad probe spec is a usage error, exit 2 ($rc): $got"

# ---- overhead per kprobe hit ---------------------------------------------------
"$root/build/test/probe/probe_bench" 100000 5 >"$out/bench.txt" 2>&1
rc=$?
sed 's/^/# /' "$out/bench.txt"
result $rc "probe_bench: one event per hit for both programs"

echo "1..$n"
exit $failed
