#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user/reader/fuzz/run.sh [SECONDS]: fuzz under ASan and UBSan (and
# LeakSanitizer) for SECONDS in all (default 60), a third each:
#
# - build/fuzz/fuzz_reader: the FXT decoder and the fxtrace printers, seeded
#   with the test corpus (corpus_test --write);
# - build/fuzz/fuzz_spool (user/control/fuzz/fuzz_spool.c): a spool as
#   `fxtrace recover` reads it, seeded with the spools of libfxtrace programs
#   killed while tracing (output_prog and pipeline, built with make if
#   missing) and cut and corrupted copies of them;
# - build/fuzz/fuzz_output (user/drain/fuzz/fuzz_output.c): a producer's
#   buffer, its header, the session window and retirements through
#   fxtrace-drain's output path, seeded with the test corpus (after a config
#   all zero) and output_test's generated inputs (output_test
#   --write-inputs, built with make if missing).
#
# All are built with clang -fsanitize=fuzzer,address,undefined; what they
# find is kept in build/fuzz/corpus/, build/fuzz/spool-corpus/ and
# build/fuzz/output-corpus/ for the next run.  Exits non-zero on any crash,
# leak, sanitizer report or timeout of any (the input is saved as
# build/fuzz/crash-*, leak-*, timeout-*, build/fuzz/spool-crash-*, etc.,
# or build/fuzz/output-crash-*, etc.).  Reproduce one with:
# build/fuzz/fuzz_reader FILE, build/fuzz/fuzz_spool FILE, or
# build/fuzz/fuzz_output FILE.

set -euo pipefail
cd "$(dirname "$0")/../../.."

seconds=${1:-60}
out=build/fuzz
mkdir -p "$out/corpus" "$out/spool-corpus" "$out/output-corpus"
# A third each, and at least a second: -max_total_time=0 would not stop.
reader_seconds=$((seconds / 3 > 0 ? seconds / 3 : 1))
spool_seconds=$reader_seconds
output_seconds=$((seconds - 2 * reader_seconds > 0 ?
	seconds - 2 * reader_seconds : 1))

cflags=(-std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror
	-D_GNU_SOURCE -Iuapi -Iuser/include -Iuser/reader -Itools/fxtrace -Iuser/drain
	-Iuser/control -Iuser/drain/tests -Iuser/reader/tests)
# shellcheck disable=SC2054 # the commas are inside one clang option
sanitize=(-fsanitize=address,undefined -fno-sanitize-recover=all)
library=(user/reader/fxt_decode.c user/reader/fxt_reader.c user/reader/fxt_map.c)
printers=(tools/fxtrace/dump.c tools/fxtrace/stats.c tools/fxtrace/export.c
	  tools/fxtrace/select.c tools/fxtrace/report.c tools/fxtrace/report_print.c
	  tools/fxtrace/report_html.c
	  tools/fxtrace/common.c user/reader/trace_keep.c tools/fxtrace/usage.c
	  user/control/size.c user/control/output_file.c)
control=(user/control/spool.c user/control/write.c user/control/fxtctl.c)
drain=(user/drain/output.c user/drain/fastpass.c user/drain/tests/output_harness.c
       user/reader/tests/vectors.c user/control/fxtctl.c)

echo "fuzz: building $out/fuzz_reader, $out/fuzz_spool and $out/fuzz_output" >&2
clang "${cflags[@]}" "${sanitize[@]}" -fsanitize=fuzzer \
	user/reader/fuzz/fuzz_reader.c "${library[@]}" "${printers[@]}" \
	-o "$out/fuzz_reader"
clang "${cflags[@]}" "${sanitize[@]}" -fsanitize=fuzzer \
	user/control/fuzz/fuzz_spool.c "${control[@]}" "${library[@]}" \
	-o "$out/fuzz_spool"
clang "${cflags[@]}" "${sanitize[@]}" -fsanitize=fuzzer \
	user/drain/fuzz/fuzz_output.c "${drain[@]}" "${library[@]}" \
	-Wl,--wrap=calloc -o "$out/fuzz_output"
# The reader's seeds: every input of the corpus test (itself run under the
# sanitizers).
clang "${cflags[@]}" "${sanitize[@]}" user/reader/tests/corpus_test.c \
	user/reader/tests/vectors.c "${library[@]}" -o "$out/corpus_test"
rm -rf "$out/seeds"
"$out/corpus_test" --write "$out/seeds"

# The drainer's seeds: the reader's after a config of fuzz_output's all zero
# (DIFF_CONFIG_BYTES, 72), and halves as producers write them, configured.
make -s build/test/drain/output_test
output_seeds=$out/output-seeds
rm -rf "$output_seeds"
mkdir -p "$output_seeds"
for seed in "$out/seeds"/*; do
	{ head -c 72 /dev/zero; cat "$seed"; } >"$output_seeds/${seed##*/}"
done
build/test/drain/output_test --write-inputs "$output_seeds"

# The spool's seeds: real spools, then cut and corrupted copies.
make -s build/test/lib/output_prog build/bin/pipeline
spool_seeds=$out/spool-seeds
rm -rf "$spool_seeds"
mkdir -p "$spool_seeds"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# spool NAME MODE SIZE PROGRAM [ARGS]: PROGRAM's spool when killed, as NAME.
spool() {
	local name=$1 mode=$2 size=$3 pid
	shift 3
	FXTRACE_OUTPUT=$tmp/$name FXTRACE_MODE=$mode FXTRACE_BUFFER_SIZE=$size \
		"$@" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		[[ -s $tmp/$name.spool ]] && break
		sleep 0.1
	done
	sleep 0.3
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	if [[ ! -s $tmp/$name.spool ]]; then
		echo "fuzz: $* left no spool" >&2
		exit 1
	fi
	cp "$tmp/$name.spool" "$spool_seeds/$name"
}

# poke FILE OFFSET BYTES VALUE: VALUE as BYTES little-endian bytes at OFFSET.
poke() {
	local file=$1 offset=$2 bytes=$3 value=$4 le="" i
	for ((i = 0; i < bytes; i++)); do
		le+=$(printf '\\x%02x' $(((value >> (8 * i)) & 255)))
	done
	printf '%b' "$le" | dd of="$file" bs=1 seek="$offset" conv=notrunc status=none
}

# variant FROM NAME [OFFSET BYTES VALUE]...: a copy of FROM with fields set.
variant() {
	local file=$spool_seeds/$2
	cp "$spool_seeds/$1" "$file"
	shift 2
	while (($#)); do
		poke "$file" "$1" "$2" "$3"
		shift 3
	done
}

spool one-instant oneshot 16K build/test/lib/output_prog 60
spool one-instant-circular circular 16K build/test/lib/output_prog 60
spool pipeline oneshot 16K build/bin/pipeline 1000000
spool pipeline-circular circular 16K build/bin/pipeline 1000000
cat "$spool_seeds/one-instant" "$spool_seeds/pipeline-circular" \
	>"$spool_seeds/three-regions"
# The second region cut: in its header, its control page, its data.
for n in 100 4096 8200 24576 28672 33000 45000; do
	head -c "$n" "$spool_seeds/pipeline-circular" >"$spool_seeds/cut-$n"
done
# Fields of struct fxtrace_buffer_header (uapi/linux/fxtrace.h): header_size
# at 4, kind at 12, data_offset at 32, durable_size at 40, rolling_size at 48.
variant pipeline header-size-small 4 4 151
variant pipeline header-size-page 4 4 4097
variant pipeline kind-cpu 12 4 1
variant pipeline data-offset-page 32 8 4096
variant pipeline durable-huge 40 8 -8
variant pipeline durable-past-file 40 8 65536
variant pipeline rolling-zero 48 8 0
variant pipeline durable-only 40 8 16384 48 8 0
variant pipeline rolling-huge 48 8 $((1 << 62))
# struct fxtrace_buffer_control at 4096: durable_committed,
# rolling_committed[2], wrap_count.
variant pipeline-circular durable-committed-huge 4096 8 -1
variant pipeline-circular rolling-committed-huge 4104 8 $((1 << 40))
variant pipeline-circular wrap-max 4120 8 -1
variant pipeline-circular wrap-zero 4120 8 0
# A record of the first region's durable part broken (its header word: a
# string record of 0 words), so that the region is left out.
variant pipeline-circular record-broken 8192 8 2

run() {
	local name=$1 secs=$2 log=$out/$1.log rc=0
	shift 2
	"$out/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 "$@" >"$log" 2>&1 || rc=$?
	grep -aE '^#[0-9]+[[:space:]]+DONE|^stat::number_of_executed_units|^stat::peak_rss_mb' \
		"$log" | sed "s/^/$name: /" >&2 || true
	if ((rc)); then
		tail -n 60 "$log" >&2
		echo "fuzz: $name FAILED (exit $rc); see $log" >&2
	fi
	return "$rc"
}

# shellcheck disable=SC2012 # counts names libFuzzer and the seed makers wrote (no newlines)
echo "fuzz: running for ${seconds}s: fuzz_reader ${reader_seconds}s," \
	"$(ls "$out/seeds" | wc -l) seeds, $(ls "$out/corpus" | wc -l) inputs kept;" \
	"fuzz_spool ${spool_seconds}s, $(ls "$spool_seeds" | wc -l) seeds," \
	"$(ls "$out/spool-corpus" | wc -l) inputs kept;" \
	"fuzz_output ${output_seconds}s, $(ls "$output_seeds" | wc -l) seeds," \
	"$(ls "$out/output-corpus" | wc -l) inputs kept" >&2
failed=0
run fuzz_reader "$reader_seconds" -max_len=65536 -artifact_prefix="$out/" \
	"$out/corpus" "$out/seeds" || failed=1
run fuzz_spool "$spool_seconds" -max_len=131072 -artifact_prefix="$out/spool-" \
	"$out/spool-corpus" "$spool_seeds" || failed=1
run fuzz_output "$output_seconds" -max_len=65536 \
	-artifact_prefix="$out/output-" "$out/output-corpus" "$output_seeds" ||
	failed=1
if ((failed)); then
	echo "fuzz: FAILED; the input is in $out/ (crash-*, leak-*, timeout-*," \
		"spool-crash-*, output-crash-*, ...)" >&2
	exit 1
fi
echo "fuzz: no crash in ${seconds}s" >&2
