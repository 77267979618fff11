#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The selftests in the guest through the kernel's kselftest runner:
# run_kselftest.sh of the tree `make` installs in $(B)/kselftest
# (selftests/Makefile kselftest_install).  The runner nests each program's
# TAP under "# "; the harness's own result lines are printed again
# un-nested, prefixed with the program's name, so that make check counts
# every test as before.  Exit status: the runner's failures, counted.
# B (default build) is the build directory.  Arguments, if any, name the
# selftests to run (e.g. events_test); by default all of them.

set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tree=$root/${B:-build}/kselftest
[[ -x $tree/run_kselftest.sh ]] || { echo "no $tree/run_kselftest.sh: run make"; exit 1; }

# The runner writes the programs' output to /dev/stdout, which the guest's
# bare devtmpfs lacks (udev makes it elsewhere): without the link, that
# output would go to a new regular file of that name.
if [[ ! -L /dev/stdout ]]; then
	rm -f /dev/stdout
	ln -s /proc/self/fd/1 /dev/stdout
fi

only=()
for test in "$@"; do
	only+=(-t "fxtrace:$test")
done

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Through a pipe: the runner reopens /dev/stdout for the programs' output,
# which, on a regular file, would land out of order with its own lines.
"$tree/run_kselftest.sh" "${only[@]}" 2>&1 | cat >"$log"
rc=${PIPESTATUS[0]}
cat "$log"
echo "# the results again, un-nested:"
prog=
while IFS= read -r line; do
	case $line in
	"# selftests: fxtrace: "*) prog=${line#"# selftests: fxtrace: "} ;;
	"# ok "* | "# not ok "*)
		line=${line#"# "}
		read -r word rest <<<"$line"
		if [[ $word == not ]]; then
			read -r word n rest <<<"$rest"
			echo "not ok $n $prog: $rest"
		else
			read -r n rest <<<"$rest"
			echo "ok $n $prog: $rest"
		fi
		;;
	esac
done <"$log"
failed=$(grep -c '^not ok [0-9]* selftests: ' "$log")
((rc == 0 && failed == 0))
