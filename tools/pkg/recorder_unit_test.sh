#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxtrace-recorder.service, with @BINDIR@ and @SYSCONFDIR@
# filled in as `make install` does, passes `systemd-analyze verify` and
# keeps its sandbox: `systemd-analyze security --offline=yes` must rate
# its exposure 1.0 or less (0.9 when written; 9.6 without the sandbox,
# Documentation/install.rst), and its ExecStartPre keeps the last run's
# trace.  Skips without systemd-analyze.  Prints TAP.
# B (default build) is the build directory.

set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/${B:-build}/bin
command -v systemd-analyze >/dev/null ||
	{ echo "1..0 # SKIP no systemd-analyze"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() {
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

unit=fxtrace-recorder.service
# unit BINDIR SYSCONFDIR DIR: the unit as installed, in DIR.
make_unit() {
	mkdir -p "$3"
	sed -e "s|@BINDIR@|$1|" -e "s|@SYSCONFDIR@|$2|" \
		"$root/dist/systemd/$unit" >"$3/$unit"
}

# verify checks that ExecStart's program exists: the built one, with the
# source tree's recorder.conf.
make_unit "$bin" "$root/dist" "$tmp/verify"
(cd "$tmp/verify" && systemd-analyze verify --man=no "$unit") >"$tmp/verify.log" 2>&1
rc=$?
sed 's/^/# /' "$tmp/verify.log"
result $rc "systemd-analyze verify"

make_unit /usr/bin /etc "$tmp/installed"
(cd "$tmp/installed" && systemd-analyze security --offline=yes --threshold=10 "$unit") \
	>"$tmp/security.log" 2>&1
rc=$?
grep -v '✓' "$tmp/security.log" | sed 's/^/# /'
result $rc "systemd-analyze security: $(grep -o 'exposure level.*' "$tmp/security.log"), at most 1.0"

# ExecStartPre keeps the last run's trace as OUTPUT.previous, OUTPUT being
# recorder.conf's output: a crash leaves it unfinished, and the drainer
# refuses to overwrite an unfinished trace, so without the move the
# recorder would not start again.
output=$(sed -n 's/^output = //p' "$root/dist/fxtrace/recorder.conf")
pre=$(sed -n 's/^ExecStartPre=//p' "$root/dist/systemd/$unit")
[[ -n $output && $pre == *"test ! -e $output || exec mv -f $output $output.previous'" ]]
result $? "ExecStartPre moves recorder.conf's output ($output) to $output.previous"
# Run it (its shell command) on a stand-in of the state directory.
state=$tmp/state
mkdir -p "$state"
command=$(sed -e "s|^/bin/sh -c '||" -e "s|'\$||" -e "s|$(dirname "$output")|$state|g" <<<"$pre")
printf 'FXT trace a killed drainer left' >"$state/recorder.fxt"
cp "$state/recorder.fxt" "$tmp/killed"
/bin/sh -c "$command"
rc=$?
((rc == 0)) && [[ ! -e $state/recorder.fxt ]] && cmp -s "$state/recorder.fxt.previous" "$tmp/killed"
result $? "ExecStartPre: the last trace moved whole to recorder.fxt.previous (exit $rc)"
/bin/sh -c "$command"
rc=$?
((rc == 0)) && [[ ! -e $state/recorder.fxt ]] && cmp -s "$state/recorder.fxt.previous" "$tmp/killed"
result $? "ExecStartPre: no trace yet, nothing moved (exit $rc)"

echo "1..$n"
exit $failed
