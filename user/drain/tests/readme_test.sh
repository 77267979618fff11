#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: README.md's examples, run as written so that they cannot
# drift: every command line of its ```sh blocks (continuations joined,
# comments dropped) runs in a scratch directory where build/ and kmod/ are
# this checkout's, with these substitutions only:
#   make ...           skipped: building and `make check`/`make demo` are
#                      what the suite itself does
#   tools/pkg/deb-build.sh ...  skipped: make check builds the packages and
#                      tools/pkg/install-test.sh installs them in a clean root
#   sudo CMD           CMD (the guest runs as root)
#   kmod/fxtrace.ko    $FXTRACE_KO, the module built for the guest's kernel
#   ./your-program     build/test/drain/producer 1 100 10 (libfxtrace ticks)
#   record -a          stopped with SIGINT after 2 s ("until Ctrl-C")
#   fxtrace            on PATH: build/bin (the demo's command line)
# Each must exit 0; each trace written must pass check --strict, and a
# recording of ./your-program must hold the program's own 100 events.
# In the guest with fxtrace.ko loaded (the README unloads and loads it:
# it is unloaded before its insmod line and loaded again at the end).  Prints TAP.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tap.sh
. "$here/tap.sh" || exit 1

cd "$out" || exit 1
ln -sfn "$root/build" build
ln -sfn "$root/kmod" kmod
program="build/test/drain/producer 1 100 10"
export PATH=$PWD/build/bin:$PATH

# The README's block lines: continuations joined, comments dropped.
awk '/^```sh$/ { inside = 1; next } /^```$/ { inside = 0; next }
	inside {
		line = line $0
		if (line ~ /\\$/) { sub(/\\$/, "", line); next }
		sub(/[ \t]+#.*$/, "", line); gsub(/[ \t]+/, " ", line)
		print line; line = ""
	}' "$root/README.md" >commands.txt
echo "# $(wc -l <commands.txt) command lines in README.md"
(($(wc -l <commands.txt) >= 10))
result $? "README.md has its examples"

while read -r cmd; do
	[[ $cmd == make* || $cmd == tools/pkg/deb-build.sh* ]] && continue
	cmd=${cmd#sudo }
	# The README loads the module itself.
	[[ $cmd == insmod* ]] && rmmod fxtrace
	cmd=${cmd//.\/your-program/$program}
	cmd=${cmd//kmod\/fxtrace.ko/$FXTRACE_KO}
	echo "# \$ $cmd"
	if [[ $cmd == *" record "* && "$cmd " == *" -a "* ]]; then
		# Ctrl-C once the session runs: SIGINT to record, which passes it
		# on (before its handler is in, an async command ignores it).
		bash -c "exec $cmd" >example.out 2>&1 </dev/null &
		rec=$!
		for ((i = 0; i < 300; i++)); do
			pgrep -x -P $rec fxtrace-drain >/dev/null && break
			sleep 0.1
		done
		sleep 2
		kill -INT $rec
		# A watchdog instead of timeout(1), so that SIGINT goes to record.
		for ((i = 0; i < 600; i++)); do
			kill -0 $rec 2>/dev/null || break
			sleep 0.1
		done
		kill -TERM $rec 2>/dev/null && echo "# still running 60 s after SIGINT"
		wait $rec
	else
		timeout 120 bash -c "$cmd" >example.out 2>&1 </dev/null
	fi
	rc=$?
	tail -n 3 example.out | sed 's/^/#   /'
	((rc == 0)) || sed 's/^/#   /' example.out
	result $rc "README: $cmd (exit $rc)"
	# A trace it wrote: well formed; the program's events in it.
	trace=$(sed -n 's/.* -o \([^ ]*\.fxt\).*/\1/p' <<<"$cmd")
	if [[ $cmd == *" record "* && -n $trace ]]; then
		check_strict "$trace" "README: $trace"
		if [[ $cmd == *"$program"* ]]; then
			got=$(build/bin/fxtrace dump "$trace" | grep -c ' app:tick ')
			[[ $got == 100 ]]
			result $? "README: $trace holds the program's 100 events ($got)"
		fi
	fi
done <commands.txt
# For the run's own rmmod.
lsmod | grep -q '^fxtrace ' || insmod "$FXTRACE_KO"

echo "1..$n"
exit $failed
