#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user/reader/fuzz/run.sh [SECONDS]: fuzz the FXT decoder and the fxtrace
# printers under ASan and UBSan (and LeakSanitizer) for SECONDS (default 60).
#
# Builds build/fuzz/fuzz_reader with clang -fsanitize=fuzzer,address,undefined,
# seeds it with the test corpus (corpus_test --write), keeps what it finds in
# build/fuzz/corpus/ for the next run, and exits non-zero on any crash, leak,
# sanitizer report or timeout (the input is saved as build/fuzz/crash-*, etc.).
# Reproduce one with: build/fuzz/fuzz_reader FILE

set -euo pipefail
cd "$(dirname "$0")/../../.."

seconds=${1:-60}
out=build/fuzz
mkdir -p "$out/corpus"

cflags=(-std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror
	-D_GNU_SOURCE -Iuapi -Iuser/include -Iuser/reader -Itools/fxtrace -Iuser/drain
	-Iuser/control)
# shellcheck disable=SC2054 # the commas are inside one clang option
sanitize=(-fsanitize=address,undefined -fno-sanitize-recover=all)
library=(user/reader/fxt_decode.c user/reader/fxt_reader.c user/reader/fxt_map.c)
printers=(tools/fxtrace/dump.c tools/fxtrace/stats.c tools/fxtrace/export.c
	  tools/fxtrace/select.c tools/fxtrace/report.c tools/fxtrace/report_print.c
	  tools/fxtrace/report_html.c
	  tools/fxtrace/common.c tools/fxtrace/usage.c user/control/size.c
	  user/control/output_file.c)

echo "fuzz: building $out/fuzz_reader" >&2
clang "${cflags[@]}" "${sanitize[@]}" -fsanitize=fuzzer \
	user/reader/fuzz/fuzz_reader.c "${library[@]}" "${printers[@]}" \
	-o "$out/fuzz_reader"
# The seeds: every input of the corpus test (itself run under the sanitizers).
clang "${cflags[@]}" "${sanitize[@]}" user/reader/tests/corpus_test.c \
	user/reader/tests/vectors.c "${library[@]}" -o "$out/corpus_test"
rm -rf "$out/seeds"
"$out/corpus_test" --write "$out/seeds"

# shellcheck disable=SC2012 # counts names libFuzzer and the corpus test wrote (no newlines)
echo "fuzz: running for ${seconds}s, $(ls "$out/seeds" | wc -l) seeds," \
	"$(ls "$out/corpus" | wc -l) inputs kept from earlier runs" >&2
rc=0
"$out/fuzz_reader" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-max_len=65536 -print_final_stats=1 -artifact_prefix="$out/" \
	"$out/corpus" "$out/seeds" >"$out/fuzz.log" 2>&1 || rc=$?
grep -aE '^#[0-9]+[[:space:]]+DONE|^stat::number_of_executed_units|^stat::peak_rss_mb' \
	"$out/fuzz.log" >&2 || true
if ((rc)); then
	tail -n 60 "$out/fuzz.log" >&2
	echo "fuzz: FAILED (exit $rc); the input is in $out/ (crash-*, leak-*, timeout-*)" >&2
	exit 1
fi
echo "fuzz: no crash in ${seconds}s" >&2
