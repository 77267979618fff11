#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: a file `fxtrace recover` could still save is never
# overwritten by an output the user names: a trace fxtrace-drain wrote
# (it has a flush mark; a killed drainer's keeps what it flushed) and a
# libfxtrace spool.  `fxtrace recover -o OUT` (of a trace or of a spool),
# `fxtrace recover X.spool` (OUT is X), `fxtrace export -o OUT` and
# `fxtrace report --html=OUT` used to truncate or replace such an OUT;
# now they refuse it as `fxtrace stop -o` does (stop_test.sh, in the
# guest), exit 1 with a message naming it, and leave it as it was.
# `fxtrace record -o OUT` replaces a finished trace, as the drainer always
# did, but refuses a killed drainer's unfinished one (bytes after its
# flush mark) and a spool before the drainer starts.  On the host: no
# module is needed.  Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/build/bin/fxtrace
prog=$top/build/test/lib/output_prog
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

# A spool to recover: the program killed after its first event keeps it.
FXTRACE_OUTPUT=$tmp/app.fxt "$prog" 60 >/dev/null &
pid=$!
for _ in $(seq 100); do
	[[ -s $tmp/app.fxt.spool ]] && break
	sleep 0.1
done
sleep 0.2
kill -KILL $pid
wait $pid 2>/dev/null
spool=$tmp/app.fxt.spool
trace=$tmp/trace.fxt
"$fxtrace" recover -o "$trace" "$spool" >/dev/null
result $? "a killed libfxtrace program's spool, recovered into a trace"

# A drainer's file mimicked: magic, a flush mark at 0x38, 64 bytes after
# it (a killed drainer's); cut at the mark, a finished one.
marked() {
	printf '\x10\x00\x04\x46\x78\x54\x16\x00\x62\x00\xff\x7f\x22\x00\x00\x00%s\0\0\0\0\0\0' \
		'fxtrace:flushed 0x0000000000000038' >"$1"
	head -c 64 /dev/zero | tr '\0' x >>"$1"
}
marked "$tmp/in.fxt"

# make_out KIND: OUT ($tmp/out) as a KIND (killed, finished or spool).
make_out() {
	case $1 in
	killed) marked "$tmp/out" ;;
	finished) marked "$tmp/out" && truncate -s 56 "$tmp/out" ;;
	spool) cp "$spool" "$tmp/out" ;;
	esac
	cp "$tmp/out" "$tmp/out.orig"
}

# expect_kept KIND WHAT MESSAGE COMMAND...: COMMAND exits 1, prints
# nothing on stdout and exactly MESSAGE on stderr, and OUT is unchanged.
expect_kept() {
	local kind=$1 what=$2 message=$3 rc
	shift 3
	"$@" >"$tmp/cmd.out" 2>"$tmp/cmd.err"
	rc=$?
	sed 's/^/# /' "$tmp/cmd.err"
	((rc == 1)) && [[ ! -s $tmp/cmd.out && $(<"$tmp/cmd.err") == "$message" ]] &&
		cmp -s "$tmp/out" "$tmp/out.orig"
	result $? "$what, OUT a $kind: refused (exit $rc), the reason said, OUT unchanged"
}

o=$tmp/out
for kind in killed finished spool; do
	if [[ $kind == spool ]]; then
		why="is a libfxtrace spool: it is not overwritten ('fxtrace recover $o' saves its records;"
	else
		why="is a trace fxtrace-drain wrote, maybe a killed drainer's: it is not overwritten ('fxtrace recover $o' keeps what the drainer flushed to it;"
	fi
	make_out $kind
	expect_kept $kind "recover -o OUT TRACE" "fxtrace recover: $o $why give -o another FILE)" \
		"$fxtrace" recover -o "$o" "$tmp/in.fxt"
	make_out $kind
	expect_kept $kind "recover -o OUT SPOOL" "fxtrace recover: $o $why give -o another FILE)" \
		"$fxtrace" recover -o "$o" "$spool"
	make_out $kind
	expect_kept $kind "export -o OUT" "fxtrace export: $o $why give -o another FILE)" \
		"$fxtrace" export -o "$o" "$trace"
	make_out $kind
	expect_kept $kind "report --html=OUT" "fxtrace report: $o $why give --html another FILE)" \
		"$fxtrace" report --html="$o" "$trace"
done

# recover X.spool writes X: not over a drainer's trace at X either.
make_out killed
cp "$spool" "$tmp/out.spool"
expect_kept killed "recover OUT.spool" \
	"fxtrace recover: $o is a trace fxtrace-drain wrote, maybe a killed drainer's: it is not overwritten ('fxtrace recover $o' keeps what the drainer flushed to it; give -o another FILE)" \
	"$fxtrace" recover "$tmp/out.spool"

# record: a killed drainer's unfinished trace and a spool are refused
# before the drainer runs; a finished trace is the drainer's to replace.
make_out killed
expect_kept killed "record -o OUT" \
	"fxtrace record: $o is a trace fxtrace-drain has not finished (its drainer still writes it, or was killed): it is not overwritten (after a kill, 'fxtrace recover $o' keeps what the drainer flushed to it; give -o another FILE)" \
	"$fxtrace" record -o "$o" -- true
make_out spool
expect_kept spool "record -o OUT" \
	"fxtrace record: $o is a libfxtrace spool: it is not overwritten ('fxtrace recover $o' saves its records; give -o another FILE)" \
	"$fxtrace" record -o "$o" -- true
make_out finished
"$fxtrace" record -o "$o" -- true >/dev/null 2>"$tmp/cmd.err"
sed 's/^/# /' "$tmp/cmd.err"
! grep -q "not overwritten" "$tmp/cmd.err"
result $? "record -o OUT, OUT a finished trace: not refused by record"

# Other files are still replaced, and a new OUT made.
printf 'notes, no trace\n' >"$o"
"$fxtrace" recover -o "$o" "$tmp/in.fxt" >/dev/null && [[ $(stat -c %s "$o") == 56 ]]
result $? "recover -o OUT TRACE, OUT a plain file: replaced"
printf 'notes, no trace\n' >"$o"
"$fxtrace" export -o "$o" "$trace" && [[ $(head -c 1 "$o") == "{" ]]
result $? "export -o OUT, OUT a plain file: replaced"

echo "1..$n"
exit $failed
