# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The guest side of tools/guest/run.sh, sourced by OUTDIR/.guest/plan.sh in the
# host root (tools/guest/init.sh made it the root).  plan.sh sets:
#   out          the output directory (same path as on the host, writable)
#   ko           the module to load, or empty; modname its name
#   modparams    its parameters (one string, split on blanks)
#   timeout_s    the run's timeout: each test gets what is left of it
#   tests names  the test commands ("prog arg...") and their <n>-<name> stems
#   mem_tolerance_kmalloc  bytes (see run.sh)
#   vmalloc_leaks  tools/guest/vmalloc_leaks.sh
# Results go to $out as described in run.sh; .guest/ holds the bookkeeping
# run.sh reads back (insmod.rc, rmmod.rc, times, done).

# shellcheck disable=SC2154 # the variables above come from plan.sh
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
cd /
state=$out/.guest

uptime_s() {
	local up rest
	read -r up rest </proc/uptime
	echo "$up"
}

uptime_s >"$state/boot-uptime"

# The kernel memory a module can hold and leak, in bytes, after dropping the
# page cache, dentries and inodes (the tests' files come and go through 9p):
# "VMALLOC KMALLOC SUNRECLAIM".  The kmalloc caches (its structs) are judged;
# VmallocUsed and SUnreclaim are reported: the module's vmalloc and vmap
# areas are judged one by one from /proc/vmallocinfo (vmalloc_leaks.sh).
# (No process substitution here: the guest's /dev has no /dev/fd.)
memory_now() {
	local vmalloc sunreclaim kmalloc
	sync
	echo 3 >/proc/sys/vm/drop_caches
	vmalloc=$(awk '/^VmallocUsed:/ { print $2 * 1024 }' /proc/meminfo)
	sunreclaim=$(awk '/^SUnreclaim:/ { print $2 * 1024 }' /proc/meminfo)
	kmalloc=$(awk '$1 ~ /^kmalloc-/ { b += $2 * $4 } END { printf "%d", b }' /proc/slabinfo)
	echo "$vmalloc $kmalloc $sunreclaim"
}

# Follow the kernel log into the results as it comes, so that a guest that
# hangs or panics still leaves most of it behind; replaced by a full copy at
# the end.
stdbuf -oL dmesg --follow >"$out/dmesg.txt" 2>&1 &
dmesg_pid=$!
# run.sh judges the log from here on: what came before is the kernel's boot.
echo "fxtrace-guest: run begins" >/dev/kmsg

if [[ -n $ko ]]; then
	mem_before=$(memory_now)
	echo "before $mem_before" >"$out/memory.txt"
	cp /proc/slabinfo "$out/slabinfo-before.txt"
	cp /proc/vmallocinfo "$out/vmallocinfo-before.txt"
	read -ra params <<<"$modparams"
	insmod "$ko" "${params[@]}" >"$out/insmod.txt" 2>&1
	echo $? >"$state/insmod.rc"
fi

# Keep some of the run's time for unloading and collecting the log.
reserve_s=15
if [[ -z $ko || $(<"$state/insmod.rc") == 0 ]]; then
	for i in "${!tests[@]}"; do
		stem=${names[i]}
		dir=$out/files/$stem
		mkdir -p "$dir"
		read -ra cmd <<<"${tests[i]}"
		left=$(awk -v t="$timeout_s" -v up="$(uptime_s)" -v r=$reserve_s \
			'BEGIN { printf "%d", t - up - r }')
		t0=$(uptime_s)
		if ((left < 5)); then
			echo "run.sh: not started, no time left in the run's ${timeout_s}s" \
				>"$out/$stem.log"
			rc=124
		else
			(cd "$dir" && exec env -i PATH="$PATH" HOME=/root TERM=dumb LANG=C.UTF-8 \
				FXTRACE_OUT="$dir" ${ko:+FXTRACE_KO="$ko"} \
				timeout -k 5 "$left" "${cmd[@]}") >"$out/$stem.log" 2>&1 </dev/null
			rc=$?
			((rc == 124)) && echo "run.sh: killed after ${left}s (the run's timeout)" \
				>>"$out/$stem.log"
		fi
		echo "$rc" >"$out/$stem.rc"
		echo "$stem $t0 $(uptime_s)" >>"$state/times"
	done
fi

if [[ -n $ko && $(<"$state/insmod.rc") == 0 ]]; then
	cp /proc/vmallocinfo "$out/vmallocinfo-loaded.txt"
	rmmod "$modname" >"$out/rmmod.txt" 2>&1
	echo $? >"$state/rmmod.rc"
	# Back to the figures from before insmod, within the tolerance run.sh
	# gives, and no area of the module left; up to 10 samples a second
	# apart, since frees can be deferred (RCU, the vfree workqueue).
	read -r _ km0 _ <<<"$mem_before"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		mem_after=$(memory_now)
		echo "after $mem_after" >>"$out/memory.txt"
		read -r _ km1 _ <<<"$mem_after"
		cp /proc/vmallocinfo "$out/vmallocinfo-after.txt"
		((km1 - km0 <= mem_tolerance_kmalloc)) &&
			"$vmalloc_leaks" "$out/vmallocinfo-before.txt" \
				"$out/vmallocinfo-after.txt" >/dev/null && break
		sleep 1
	done
	cp /proc/slabinfo "$out/slabinfo-after.txt"
fi

kill "$dmesg_pid" 2>/dev/null
wait "$dmesg_pid" 2>/dev/null
dmesg >"$out/dmesg.txt"
uptime_s >"$state/done"
sync
