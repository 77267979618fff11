#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a QEMU guest once, run test programs in it, bring back their results.
#
# Usage: tools/guest/run.sh [-k VER] [-m MODULE.ko] [-p "MODPARAMS"]
#                           [-a "EXTRA CMDLINE"] [-t TIMEOUT_S] -o OUTDIR TEST...
#
#   -k VER    kernel: 6.1 (default), 6.12, or debug (tools/guest/debug-kernel.sh)
#   -m KO     insmod KO (with -p parameters) before the tests, rmmod it after
#   -a ARGS   more kernel command line
#   -t SECS   hard timeout of the whole run (default 300): qemu is killed
#   -o DIR    results; created, and earlier results in it are removed
#   $GUEST_ACCEL  QEMU's -accel (default tcg,thread=single)
#   $GUEST_MEM    the guest's memory (default 1G; its /tmp holds half)
#   TEST      host path of an executable, optionally with arguments in the same
#             word ("prog arg1 arg2", split on blanks)
#
# The guest (TCG, 2 CPUs in one host thread, 1 GiB) boots Debian's kernel
# from its uncompressed vmlinux (the debug kernel from its bzImage) and a
# busybox initramfs, mounts the host root read-only over 9p and makes it the
# root (tools/guest/init.sh), so host-built programs run unchanged.  OUTDIR is shared writable at the
# same path.  /tmp in the guest is a tmpfs; the host directories under /tmp
# holding this checkout, the tests or the module are bound into it.
#
# Each TEST runs as root, in turn, with cwd and $FXTRACE_OUT = OUTDIR/files/<n>-<name>/
# and $FXTRACE_KO = the module (when -m is given), under what is left of the
# run's timeout.  Results in OUTDIR:
#   <n>-<name>.log   its stdout and stderr        <n>-<name>.rc   its exit status
#   files/<n>-<name>/  its files                  dmesg.txt      the guest kernel log
#   dmesg-bad.txt    kernel log lines that fail the run (see bad_log below)
#   dmesg-boot-bad.txt  such lines from the kernel's boot, before the run
#   insmod.txt rmmod.txt console.txt              outputs of those, serial console
#   memory.txt       kernel memory before insmod and after rmmod (see below)
#   slabinfo-before.txt slabinfo-after.txt  /proc/slabinfo at those times
#   vmallocinfo-before.txt -loaded.txt -after.txt  /proc/vmallocinfo before
#                    insmod, just before rmmod and after it
#
# Exit 0 when the guest finished, every test exited 0, insmod and rmmod
# succeeded, the kernel memory came back after rmmod and the kernel log is
# clean; 1 otherwise (reasons on stderr).

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

# Kernel log lines that fail a run: the issue's list, plus panics and the
# hung-task and RCU-stall headers themselves (a trace does not always follow).
bad_log='BUG:|WARNING:|Oops|general protection|KASAN|UBSAN|lockdep|refcount_t'
bad_log+='|list_add corruption|kmemleak|soft lockup|hung task|Call Trace'
bad_log+='|Kernel panic|blocked for more than|detected stall'

# After rmmod, no vmalloc or vmap area made by the module may be left
# (vmalloc_leaks.sh: the areas are judged one by one, with their callers, so
# the rest of the kernel's churn -- thread stacks, BPF programs, per-CPU
# chunks -- cannot fail a run nor hide a leak), and the bytes of live
# kmalloc objects must be back to their figure from before insmod within
# this tolerance (bytes).  The kmalloc caches are shared with everything the
# tests make the kernel do (processes a test leaves behind, 9p inodes, netfs
# requests): 0.5-0.7 MB more after the whole suite (Documentation/
# testing.rst), so 1 MiB there catches only a large leak of the module's
# structs.
mem_tolerance_kmalloc=$((1 << 20))

die() { echo "run.sh: $*" >&2; exit 1; }
usage() { sed -n '6,7s/^# //p' "$0" >&2; exit 2; }

ver=6.1 ko='' modparams='' extra='' timeout_s=300 out=''
while getopts k:m:p:a:t:o:h opt; do
	case $opt in
	k) ver=$OPTARG ;;
	m) ko=$OPTARG ;;
	p) modparams=$OPTARG ;;
	a) extra=$OPTARG ;;
	t) timeout_s=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[[ -n $out ]] || usage
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die "-t wants a number of seconds, not '$timeout_s'"
[[ -z $modparams || -n $ko ]] || die "-p without -m"

for cmd in qemu-system-x86_64 cpio timeout flock modinfo; do
	command -v "$cmd" >/dev/null || die "$cmd is missing: run tools/deps.sh"
done
[[ -x /bin/busybox ]] || die "/bin/busybox is missing: run tools/deps.sh"

# The kernel.
if [[ $ver == debug ]]; then
	kdir=$root/build/kernels/debug
	[[ -f $kdir/.built ]] || die "no debug kernel: run tools/guest/debug-kernel.sh"
else
	"$here/kernel.sh" fetch "$ver"
	kdir=$("$here/kernel.sh" dir "$ver")
fi
image=$("$here/kernel.sh" boot "$ver")
abi=$("$here/kernel.sh" abi "$ver")

# The module: refuse one built for another kernel here, with a clear message.
modname=
if [[ -n $ko ]]; then
	[[ -f $ko ]] || die "no module $ko"
	ko=$(realpath "$ko")
	vermagic=$(modinfo -F vermagic "$ko") || die "$ko is not a kernel module"
	[[ ${vermagic%% *} == "$abi" ]] ||
		die "$ko is built for ${vermagic%% *}, the guest runs $abi (-k $ver)"
	modname=$(modinfo -F name "$ko")
fi

# The tests: absolute paths, since they run elsewhere; stems <n>-<name>.
tests=() names=() tmpdirs=()
n=0
for t in "$@"; do
	read -ra words <<<"$t"
	((${#words[@]})) || die "empty test command"
	prog=${words[0]}
	[[ -f $prog && -x $prog ]] || die "test $prog is not an executable file"
	words[0]=$(realpath -s "$prog")
	tests+=("${words[*]}")
	n=$((n + 1))
	name=$(basename "$prog")
	names+=("$n-${name//[^A-Za-z0-9._-]/_}")
	tmpdirs+=("$(dirname "${words[0]}")")
done
[[ -n $ko ]] && tmpdirs+=("$(dirname "$ko")")
tmpdirs+=("$root")	# guest-run.sh runs from the checkout

mkdir -p "$out"
out=$(realpath "$out")
[[ $out != / && $out != *[[:space:],]* ]] ||
	die "OUTDIR must not be / nor contain blanks or commas: '$out'"
state=$out/.guest
rm -rf "$state" "$out/files"
rm -f "$out"/[0-9]*-*.log "$out"/[0-9]*-*.rc \
	"$out"/{dmesg,dmesg-bad,console,insmod,rmmod,memory}.txt \
	"$out"/slabinfo-{before,after}.txt "$out"/vmallocinfo-{before,loaded,after}.txt
mkdir -p "$state"

# Host directories under /tmp the guest must see through its own tmpfs /tmp:
# the outermost ones only.
printf '%s\n' "${tmpdirs[@]}" | grep -E '^/tmp(/|$)' | sort -u |
	awk 'index($0 "/", last "/") != 1 || last == "" { print; last = $0 }' \
	>"$state/tmpdirs" || true

{
	printf 'out=%q\nko=%q\nmodname=%q\nmodparams=%q\ntimeout_s=%q\n' \
		"$out" "$ko" "$modname" "$modparams" "$timeout_s"
	printf 'mem_tolerance_kmalloc=%q\nvmalloc_leaks=%q\n' \
		"$mem_tolerance_kmalloc" "$here/vmalloc_leaks.sh"
	declare -p tests names
	printf 'source %q\n' "$here/guest-run.sh"
} >"$state/plan.sh"

# One guest at a time on this machine: TCG guests competing for 2 CPUs would
# only time each other out.
exec {lock}>/tmp/fxtrace-guest.lock
if ! flock -n "$lock"; then
	echo "run.sh: waiting for another guest run to end" >&2
	flock "$lock"
fi

# The initramfs: busybox, /init, the modules that mount 9p.  Built once per
# kernel, again when its inputs change.
initramfs=$kdir/initramfs.cpio
if [[ ! -s $initramfs || $initramfs -ot $here/init.sh || $initramfs -ot /bin/busybox ||
	(-f $kdir/initmods/order && $initramfs -ot $kdir/initmods/order) ]]; then
	stage=$(mktemp -d "$kdir/.initramfs.XXXXXX")
	mkdir -p "$stage"/{bin,dev,proc,sys,host,out,keep,lib/modules}
	cp /bin/busybox "$stage/bin/"
	for applet in $(/bin/busybox --list); do
		[[ $applet == busybox ]] || ln -s busybox "$stage/bin/$applet"
	done
	mknod "$stage/dev/console" c 5 1
	install -m 755 "$here/init.sh" "$stage/init"
	if [[ -f $kdir/initmods/order ]]; then
		cp "$kdir"/initmods/* "$stage/lib/modules/"
	else
		: >"$stage/lib/modules/order"
	fi
	(cd "$stage" && find . -print0 | sort -z |
		cpio --null -o -H newc --owner 0:0 --quiet) >"$initramfs.tmp"
	mv "$initramfs.tmp" "$initramfs"
	rm -rf "$stage"
fi

cmdline="console=ttyS0 panic=-1 quiet tsc=reliable"
cmdline+=" rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=60"
cmdline+=" fxtrace_out=$out${extra:+ $extra}"

# One TCG thread for both vCPUs: with multi-threaded TCG (QEMU 7.2), patching
# kernel text (a tracepoint, kprobe or static key turned on) while 9p writes
# back hangs the guest within seconds; see Documentation/testing.rst.
accel=${GUEST_ACCEL:-tcg,thread=single}
mem=${GUEST_MEM:-1G}
[[ $mem =~ ^[1-9][0-9]*[MG]$ ]] || { echo "run.sh: GUEST_MEM is a size like 1G or 3072M, not '$mem'" >&2; exit 2; }

start=$EPOCHREALTIME
qemu_rc=0
timeout -k 5 "$timeout_s" qemu-system-x86_64 -accel "$accel" -cpu max -smp 2 -m "$mem" \
	-nodefaults -no-user-config -display none -no-reboot \
	-serial "file:$state/console.raw" \
	-kernel "$image" -initrd "$initramfs" -append "$cmdline" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap" \
	</dev/null >"$state/qemu.txt" 2>&1 || qemu_rc=$?
wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
exec {lock}>&-

# The serial console without carriage returns and terminal escapes.
sed -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' \
	"$state/console.raw" >"$out/console.txt" 2>/dev/null || true

failures=()
finished=0
[[ -f $state/done ]] && finished=1
if ((qemu_rc == 124 || qemu_rc == 137)); then
	failures+=("the guest did not finish within ${timeout_s}s (killed; see $out/console.txt)")
elif ((!finished)); then
	failures+=("the guest did not finish (qemu exit $qemu_rc; see $out/console.txt)")
	[[ -s $state/qemu.txt ]] && sed 's/^/run.sh: qemu: /' "$state/qemu.txt" >&2
fi

if [[ -n $ko && -f $state/insmod.rc && $(<"$state/insmod.rc") != 0 ]]; then
	failures+=("insmod $ko $modparams: exit $(<"$state/insmod.rc") $(tr '\n' ' ' <"$out/insmod.txt")")
fi

# One line per test.
declare -A took
if [[ -f $state/times ]]; then
	while read -r stem t0 t1; do
		took[$stem]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2fs", b - a }')
	done <"$state/times"
fi
for stem in "${names[@]}"; do
	if [[ ! -f $out/$stem.rc ]]; then
		echo "run.sh: $stem: not run" >&2
		failures+=("$stem not run")
	elif [[ $(<"$out/$stem.rc") == 0 ]]; then
		echo "run.sh: $stem: ok ${took[$stem]:-}" >&2
	else
		rc=$(<"$out/$stem.rc")
		echo "run.sh: $stem: FAILED, exit $rc ${took[$stem]:-} (see $out/$stem.log)" >&2
		failures+=("$stem exited $rc")
	fi
done

if [[ -n $ko && -f $state/rmmod.rc && $(<"$state/rmmod.rc") != 0 ]]; then
	failures+=("rmmod $modname: exit $(<"$state/rmmod.rc") $(tr '\n' ' ' <"$out/rmmod.txt")")
fi

# The module's memory: the last sample after rmmod against the one before
# insmod ("before|after VMALLOC KMALLOC SUNRECLAIM", bytes).
if [[ -n $ko && -f $state/rmmod.rc && $(<"$state/rmmod.rc") == 0 ]]; then
	read -r _ vm0 km0 su0 < <(grep '^before ' "$out/memory.txt" 2>/dev/null)
	read -r _ vm1 km1 su1 < <(grep '^after ' "$out/memory.txt" 2>/dev/null | tail -n 1)
	if [[ -z ${vm0:-} || -z ${vm1:-} ]]; then
		failures+=("no memory figures from the guest (see $out/memory.txt)")
	else
		echo "run.sh: kernel memory after rmmod minus before insmod: VmallocUsed $((vm1 - vm0)) B, kmalloc objects $((km1 - km0)) B, SUnreclaim $((su1 - su0)) B" >&2
		((km1 - km0 <= mem_tolerance_kmalloc)) ||
			failures+=("kmalloc objects are $((km1 - km0)) bytes above their figure before insmod (tolerance $mem_tolerance_kmalloc)")
	fi
	# The module's areas must be named while it is loaded (its session page
	# always is), else this kernel does not name callers and the check
	# after rmmod would be blind.
	if [[ ! -s $out/vmallocinfo-loaded.txt || ! -s $out/vmallocinfo-after.txt ]]; then
		failures+=("no /proc/vmallocinfo from before and after rmmod (see $out)")
	elif ! grep -q "\[$modname\]" "$out/vmallocinfo-loaded.txt"; then
		failures+=("no vmalloc area of [$modname] in /proc/vmallocinfo while it was loaded: the leak check cannot see its areas")
	elif ! leaked=$("$here/vmalloc_leaks.sh" "$out/vmallocinfo-before.txt" \
		"$out/vmallocinfo-after.txt"); then
		failures+=("$modname left $(wc -l <<<"$leaked") vmalloc or vmap areas after rmmod, $(awk '{ b += $2 } END { print b }' <<<"$leaked") bytes (vmallocinfo-after.txt): $(head -n 3 <<<"$leaked" | tr -s ' ' | tr '\n' ';')")
	fi
fi

# The kernel log: the copy the guest wrote, and the console when the guest did
# not finish (a panic's last words only reach the console).  The command line
# is echoed into the log and holds user text: it is not judged.
# A mistyped module parameter is only a line in the log: it fails the run too.
logs=()
[[ -f $out/dmesg.txt ]] && logs+=(dmesg.txt)
((finished)) || logs+=(console.txt)
if ((finished)) && [[ ! -s $out/dmesg.txt ]]; then
	failures+=("no kernel log from the guest")
fi
# Lines before the guest's "run begins" mark are the kernel's own boot, before
# any module or test: reported, not judged (the debug kernel has one KASAN
# report in its early interrupt handling now and then).  "RCU lockdep checking
# is enabled" is the debug kernel's banner.
if ((${#logs[@]})); then
	# The console of a guest that did not finish is judged whole.
	(cd "$out" && for log in "${logs[@]}"; do
		awk -v file="$log" -v run="$([[ $log == console.txt ]] && echo 1 || echo 0)" \
			'/fxtrace-guest: run begins/ { run = 1 }
			{ print file ":" NR ":" (run ? "run" : "boot") ":" $0 }' "$log"
	done | grep -E "^[^:]+:[0-9]+:[a-z]+:.*($bad_log${modname:+|$modname: unknown parameter})" |
		grep -vE 'Kernel command line:|Command line:|Unknown kernel command line|RCU lockdep checking is enabled') \
		>"$state/bad.txt" || true
	grep ':boot:' "$state/bad.txt" | sed 's/:boot:/:/' >"$out/dmesg-boot-bad.txt" || true
	grep ':run:' "$state/bad.txt" | sed 's/:run:/:/' >"$out/dmesg-bad.txt" || true
	if [[ -s $out/dmesg-boot-bad.txt ]]; then
		echo "run.sh: the kernel's boot log, before the run, has $(wc -l <"$out/dmesg-boot-bad.txt") bad lines (not judged; see $out/dmesg-boot-bad.txt)" >&2
	else
		rm -f "$out/dmesg-boot-bad.txt"
	fi
	if [[ -s $out/dmesg-bad.txt ]]; then
		failures+=("the kernel log has $(wc -l <"$out/dmesg-bad.txt") bad lines (see $out/dmesg-bad.txt)")
		head -n 5 "$out/dmesg-bad.txt" | sed 's/^/run.sh: /' >&2
	else
		rm -f "$out/dmesg-bad.txt"
	fi
fi

boot=
[[ -f $state/boot-uptime ]] && boot=", at tests after $(<"$state/boot-uptime")s guest uptime"
echo "run.sh: guest $abi: ${wall}s wall$boot" >&2

if ((${#failures[@]})); then
	for f in "${failures[@]}"; do echo "run.sh: FAILED: $f" >&2; done
	exit 1
fi
echo "run.sh: ${#names[@]} tests passed" >&2
