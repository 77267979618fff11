#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/mutants.sh [LIST] - manual mutation testing of the checks of the
# drainer's output path and of the strict decoder (Documentation/testing.rst,
# "The mutation run").  Not part of `make check`: about 20 minutes on 2 cores.
#
# LIST (default tools/mutants.list) holds lines
#
#     M ID FILE 'TEXT' 'SED'
#
# TEXT a fixed string found on exactly one line of FILE, SED a sed command
# for that line alone.  The tree (without build/) is copied to a scratch
# directory once; there each mutant is applied alone, the host unit tests
# of the drainer and the reader are built (warnings are not errors there:
# a mutant may leave a variable unused) and run, and the file is restored.
# One line per mutant: ID, FILE:LINE, SED, then the tests that failed with
# their exit status, or "survived"; then the counts per file.  A line that
# does not name one line of FILE, or a SED that changes nothing, fails the
# run at its end.  MUTANTS_SANITIZE=1 builds the tests with
# -fsanitize=address,undefined, as make check's sanitizer step does: a read
# or write past a bound then kills a mutant too.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
list=$(realpath "${1:-$root/tools/mutants.list}")
tests="build/test/drain/output_test build/test/reader/decode_test
build/test/reader/corpus_test build/test/reader/map_test
build/test/reader/cli_test"
scratch=$(mktemp -d /tmp/fxtrace-mutants.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
bad=0
declare -A total killed

tar -C "$root" --exclude=./build --exclude=./.git -cf - . |
	tar -C "$scratch" -xf -
cd "$scratch" || exit 1

cflags=-Wno-error
[[ ${MUTANTS_SANITIZE:-} == 1 ]] &&
	cflags+=" -fsanitize=address,undefined -fno-sanitize-recover=all"
build() {
	# shellcheck disable=SC2086 # $tests is a list of words
	make -s -j"$(nproc)" EXTRA_CFLAGS="$cflags" $tests build/bin/fxtrace \
		>build.log 2>&1
}

if ! build; then
	cat build.log
	echo "mutants.sh: the tree does not build" >&2
	exit 1
fi

# M ID FILE TEXT SED [N]: one mutant, applied, judged and undone.
M() {
	local id=$1 file=$2 text=$3 expr=$4 nth=${5:-} line result t rc

	line=$(grep -nF -- "$text" "$file" | cut -d: -f1)
	[ -n "$nth" ] && line=$(echo "$line" | sed -n "${nth}p")
	if [ "$(echo "$line" | wc -w)" != 1 ]; then
		echo "$id $file: '$text' is on lines: ${line:-none}"
		bad=1
		return
	fi
	cp "$file" mutant.orig
	sed -i "${line}${expr}" "$file"
	if cmp -s mutant.orig "$file"; then
		echo "$id $file:$line $expr: changes nothing"
		bad=1
		return
	fi
	if ! build; then
		result="does not build"
		bad=1
	else
		result=""
		for t in $tests; do
			# The shell's report of a crash ("Segmentation fault") too.
			{ timeout 300 "$t" >test.log 2>&1; } 2>/dev/null
			rc=$?
			[ "$rc" = 0 ] || result="$result ${t##*/}($rc)"
		done
		total[$file]=$((${total[$file]:-0} + 1))
		[ -n "$result" ] && killed[$file]=$((${killed[$file]:-0} + 1))
		result=${result:-" survived"}
	fi
	cp mutant.orig "$file"
	touch "$file"
	echo "$id $file:$line $expr:$result"
}

# shellcheck source=tools/mutants.list
. "$list"

build
for file in "${!total[@]}"; do
	echo "$file: ${total[$file]} mutants, ${killed[$file]:-0} killed"
done | sort
exit $bad
