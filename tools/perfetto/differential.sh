#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/perfetto/differential.sh [-n COUNT] [-s SEED] [-k DIR] [TRACE...]: the
# differential test of `fxtrace check --strict` against Perfetto's trace
# processor (Documentation/perfetto.rst).
#
# Mutates the valid traces of the decoder's corpus (corpus_test --write) and
# the guest tests' traces up to 128 KiB, and the TRACEs given (the ones
# `check --strict` passes) into COUNT mutants (default $PERFETTO_MUTANTS, else
# 10000; seed default 1) with user/reader/tests/mutate.c, then asks both about
# each: check refuses when it exits 1 (or 3, errors past a drainer's flush
# mark); Perfetto refuses when the import fails or leaves a stats row of
# severity error or data_loss.  Prints the agreement table and fails on any
# mutant only Perfetto refuses (listed with its reason).
# -k DIR keeps, per reason Perfetto gave, the 3 smallest mutants it refused, for
# the rule corpus (user/reader/tests/perfetto-corpus/).
#
# The trace processor is found as oracle.sh finds it; without one this prints
# "perfetto: skipped (no trace processor)" and exits 77.

set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

B=${B:-build}
count=${PERFETTO_MUTANTS:-10000} seed=1 keep=
while getopts n:s:k: opt; do
	case $opt in
	n) count=$OPTARG ;;
	s) seed=$OPTARG ;;
	k) keep=$OPTARG ;;
	*) echo "usage: $0 [-n COUNT] [-s SEED] [-k DIR] [TRACE...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

tp=${FXTRACE_TRACE_PROCESSOR:-$(command -v trace_processor_shell)}
if [[ -z $tp ]]; then
	echo "perfetto: skipped (no trace processor)"
	exit 77
fi
[[ -x $tp ]] || { echo "perfetto: $tp is not executable" >&2; exit 1; }
fxtrace=$B/bin/fxtrace
out=$B/perfetto/differential
rm -rf "$out" && mkdir -p "$out/seeds" "$out/mutants"

"$B/test/reader/corpus_test" --write "$out/seeds" >/dev/null || exit 1
# Traces fxtrace wrote in the guest tests, when there are small ones.
shopt -s nullglob
for t in "$B"/check/guest-*/files/*/*.fxt; do
	(($(stat -c %s "$t") <= 131072)) &&
		cp "$t" "$out/seeds/guest-$(basename "$(dirname "$t")")-$(basename "$t")"
done
shopt -u nullglob
for t in "$@"; do
	cp "$t" "$out/seeds/arg-$(basename "$t")"
done
for t in "$out"/seeds/*.fxt; do
	"$fxtrace" check --strict --quiet "$t" >/dev/null 2>&1 || rm "$t"
done
# shellcheck disable=SC2012 # counts names the corpus test wrote (no newlines)
echo "differential: $(ls "$out/seeds" | wc -l) valid seeds, $count mutants, seed $seed" >&2
"$B/test/perfetto/mutate" -s "$seed" -n "$count" -o "$out/mutants" \
	"$out"/seeds/*.fxt >"$out/manifest" || exit 1

# One line per mutant: FILE CHECK PERFETTO REASON (verdicts: accept/refuse).
judge() {
	local m=$1 check perfetto reason err stats
	"$fxtrace" check --strict --quiet "$m" >/dev/null 2>&1
	# 1: errors; 3 (where check has it): errors past a drainer's flush mark.
	case $? in
	0) check=accept ;;
	1 | 3) check=refuse ;;
	*) check=crash ;;
	esac
	err=$(mktemp)
	if ! stats=$("$tp" query "$m" "SELECT ifnull(group_concat(name, '+'), '') FROM stats WHERE severity IN ('error', 'data_loss') AND value > 0" 2>"$err"); then
		perfetto=refuse
		reason=$(grep -o 'PERFETTO_CHECK([^)]*)\|(ERR:[a-z-]*)\|Unexpected record of size 0\|Unknown field type\|Failed to parse proto packet fully\|Unknown trace type' "$err" | head -n 1)
		reason=import-failed:${reason:-$(grep -v '^\[' "$err" | tail -n 1 | cut -c1-60)}
	elif stats=$(tail -n 1 <<<"$stats" | tr -d '"') && [[ -n $stats ]]; then
		perfetto=refuse
		reason=stats:$stats
	else
		perfetto=accept
		reason=-
	fi
	rm -f "$err"
	echo "$(basename "$m") $check $perfetto ${reason// /_}"
}
export -f judge
export fxtrace tp
find "$out/mutants" -name '*.fxt' | sort |
	nice -n 19 xargs -P 2 -I{} bash -c 'judge {}' >"$out/verdicts"

awk '
	{ n[$2 " " $3]++ }
	$2 == "crash" { crash++ }
	END {
		printf "differential: %d mutants\n", NR
		printf "  both accept            %6d\n", n["accept accept"]
		printf "  both refuse            %6d\n", n["refuse refuse"]
		printf "  only check refuses     %6d\n", n["refuse accept"]
		printf "  only Perfetto refuses  %6d\n", n["accept refuse"]
		if (crash) printf "  check crashed          %6d\n", crash
	}' "$out/verdicts"
echo "Perfetto's reasons (mutants):"
awk '$3 == "refuse" { print $4 }' "$out/verdicts" | sort | uniq -c | sort -rn | head -n 30

if [[ -n $keep ]]; then
	mkdir -p "$keep"
	# The smallest refused mutant per reason.
	# Lines for EXPECTED: FILE refuse REASON OPERATION of SEED.
	while read -r file _ reason; do
		cp "$out/mutants/$file" "$keep/$file"
		read -r _ op from < <(grep "^$file " "$out/manifest")
		from=$(basename "$from")
		[[ $from == arg-[0-9]* ]] && from=${from#arg-}
		echo "$file refuse $reason $op of $from"
	done < <(awk '$3 == "refuse" { print $1, $4 }' "$out/verdicts" |
		while read -r f r; do echo "$f $(stat -c %s "$out/mutants/$f") $r"; done |
		sort -k3,3 -k2,2n | awk 'seen[$3]++ < 3')
fi

only=$(awk '$2 != "refuse" && $3 == "refuse"' "$out/verdicts")
if [[ -n $only ]]; then
	echo "differential: FAILED: mutants only Perfetto refuses (in $out/mutants):"
	echo "$only" | head -n 50
	exit 1
fi
crashes=$(awk '$2 == "crash"' "$out/verdicts")
[[ -z $crashes ]] || { echo "differential: FAILED: check crashed on:"; echo "$crashes" | head; exit 1; }
echo "differential: check --strict refuses every mutant Perfetto refuses"
