#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `fxtrace check --perfetto` where no real trace processor is needed: exit 4
# and a plain message without one, exit 1 with the trace processor's own
# message when the import fails, exit 2 on usage errors.  (What it compares
# is tested by tools/perfetto/oracle.sh against a real one.)  TAP output.

set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

fxtrace=$PWD/${B:-build}/bin/fxtrace
trace=$PWD/user/reader/tests/perfetto-corpus/EXPECTED	# any readable file
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..5"

# expect N NAME WANT_STATUS PATTERN COMMAND...: status and a line of output.
n=0 failed=0
expect() {
	local name=$1 want=$2 pattern=$3 out rc
	shift 3
	n=$((n + 1))
	out=$("$@" 2>&1)
	rc=$?
	if [[ $rc == "$want" ]] && grep -qE "$pattern" <<<"$out"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name: exit $rc (want $want), output:"
		# shellcheck disable=SC2001 # prefixes every line, not one substitution
		sed 's/^/#   /' <<<"$out"
		failed=$((failed + 1))
	fi
}

expect "no trace processor on PATH: exit 4" 4 \
	'^fxtrace check: no trace processor: set FXTRACE_TRACE_PROCESSOR or put trace_processor_shell on PATH$' \
	env -u FXTRACE_TRACE_PROCESSOR PATH="$tmp" "$fxtrace" check --perfetto "$trace"
expect "FXTRACE_TRACE_PROCESSOR not executable: exit 4" 4 \
	"^fxtrace check: FXTRACE_TRACE_PROCESSOR=$tmp/none: No such file or directory\$" \
	env FXTRACE_TRACE_PROCESSOR="$tmp/none" "$fxtrace" check --perfetto "$trace"

# A trace processor that refuses the file, as a real one does.
cat >"$tmp/trace_processor_shell" <<'EOS'
#!/bin/sh
echo "Trace parse failure: Unexpected record of size 0 (ERR:tp-parse)" >&2
exit 1
EOS
chmod +x "$tmp/trace_processor_shell"
expect "an import that fails: exit 1, its message" 1 \
	'perfetto: import failed \(trace_processor_shell exit 1\): Trace parse failure: Unexpected record of size 0' \
	env -u FXTRACE_TRACE_PROCESSOR PATH="$tmp:$PATH" "$fxtrace" check --perfetto "$trace"
expect "--perfetto=xml: usage error" 2 '^fxtrace check: --perfetto=xml: fxt or json$' \
	"$fxtrace" check --perfetto=xml "$trace"
expect "--perfetto on stdin: usage error" 2 'needs a file, not stdin' \
	"$fxtrace" check --perfetto - </dev/null
((failed == 0))
