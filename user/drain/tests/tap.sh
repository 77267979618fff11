# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the drainer's and the probes' guest tests (after setting $here
# to their directory): paths, TAP results and the checks they share.

set -uo pipefail
# shellcheck disable=SC2154 # $here is set by the test that sources this file
root=$(cd "$here/../../.." && pwd)
bin=$root/build/bin
progs=$root/build/test/drain
out=${FXTRACE_OUT:-$(mktemp -d)}
n=0 failed=0

# shellcheck disable=SC2034 # failed is read by the sourcing test (its exit status)
result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

# value KEY FILE: the number after "KEY " on its line.
value() { sed -n "s/^$1 \([0-9.]*\)$/\1/p" "$2" | tail -n 1; }

check_strict() {
	"$bin/fxtrace" check --strict --quiet "$1" >"$1.check" 2>&1
	local rc=$?
	((rc == 0)) || head -n 20 "$1.check" | sed 's/^/# /'
	result $rc "$2: fxtrace check --strict"
}

# exact NAME THREADS EVENTS: the trace holds every event not dropped, and
# reports the drops.
exact() {
	local name=$1 expected=$(($2 * $3)) dropped ticks reported
	"$progs/count_ticks" "$out/$name.fxt" >"$out/$name.count"
	result $? "$name: ticks in order, none twice"
	dropped=$(value dropped "$out/$name.producer")
	ticks=$(value ticks "$out/$name.count")
	reported=$(value dropped "$out/$name.count")
	echo "# $name: $ticks ticks, $dropped dropped by the producer, $reported in the trace's counters"
	[[ -n $dropped && -n $ticks && $ticks == $((expected - dropped)) ]]
	result $? "$name: ticks + drops == $expected ($ticks + ${dropped:-?})"
	[[ $reported == "$dropped" ]]
	result $? "$name: the trace reports the producer's drops"
}

# unfinished_trace FILE: a drainer's trace mimicked, as a killed drainer
# leaves it: magic, a flush mark at 0x38 (its end), 64 bytes after it.
unfinished_trace() {
	printf '\x10\x00\x04\x46\x78\x54\x16\x00\x62\x00\xff\x7f\x22\x00\x00\x00%s\0\0\0\0\0\0' \
		'fxtrace:flushed 0x0000000000000038' >"$1"
	head -c 64 /dev/zero | tr '\0' x >>"$1"
}
