#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxtrace report's figures agree exactly with what fxtrace dump
# shows: report_check.py recomputes every figure from dump's lines (from the
# definitions in Documentation/fxtrace.rst) for kernel-like traces written
# with the encoder (mktrace, three seeds) and a libfxtrace program traced in
# user-only mode; then the options (--sort, --top, --format), usage errors,
# and a check that the comparison fails on another trace's report.  export
# --format=json holds every record dump shows, scheduling records included
# (export_check.py).
# Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
build=$top/${B:-build}
fxtrace=$build/bin/fxtrace
check=$top/tools/fxtrace/tests/report_check.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }
expect() { # expect DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# report, dump and the independent check of one trace.
agree() { # agree NAME TRACE
	local name=$1 trace=$2
	"$fxtrace" dump "$trace" >"$tmp/$name.dump" &&
		"$fxtrace" report --format=json --top 15 "$trace" >"$tmp/$name.json" &&
		python3 "$check" "$tmp/$name.dump" "$tmp/$name.json" 15
}

for seed in 1 2 3; do
	"$build/test/fxtrace/mktrace" "$tmp/k$seed.fxt" "$seed"
	expect "mktrace seed $seed: report agrees with dump" agree "k$seed" "$tmp/k$seed.fxt"
done

# A selection: the report of the records `fxtrace dump SELECTION` shows.
# shellcheck disable=SC2086 # $rows unquoted: ROWS "-" expands to no argument at all
selection() { # selection NAME ROWS OPTIONS... (ROWS: pid=.. or tid=.. or -)
	local name=$1 rows=$2
	shift 2
	"$fxtrace" dump "$@" "$tmp/k1.fxt" >"$tmp/$name.dump" &&
		"$fxtrace" report --format=json --top 15 "$@" "$tmp/k1.fxt" >"$tmp/$name.json" &&
		python3 "$check" "$tmp/$name.dump" "$tmp/$name.json" 15 "$tmp/k1.dump" \
			${rows/#-/}
}
expect "report --pid 100 agrees with dump --pid 100" selection pid pid=100 --pid 100
expect "report --tid 201 agrees with dump --tid 201" selection tid tid=201 --tid 201
expect "report --time 100us,300us agrees with dump" selection time - --time 100us,300us
expect "report -c app --name 'w*,inner' agrees with dump" selection name - -c app --name 'w*,inner'
expect "report --pid 200 --since 50us --until 250us agrees with dump" \
	selection mixed pid=200 --pid 200 --since 50us --until 250us
expect "report -c kernel:syscall agrees with dump" selection sys - -c kernel:syscall
expect "--pid 100: the threads of process 100 only, and their slices" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
ok = sorted(t["tid"] for t in r["threads"]) == [100, 101]
ok &= all(s["pid"] == 100 for s in r["longest"]) and r["providers"] == []
ok &= sorted(d["tid"] for d in r["drops"]) == [100, 100, 101, 101]
sys.exit(0 if ok else 1)' "$tmp/pid.json"
expect "--tid 201: one thread row" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
sys.exit(0 if [t["tid"] for t in r["threads"]] == [201] else 1)' "$tmp/tid.json"
expect "-c kernel:syscall: syscalls only, no scheduling" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
ok = r["slices"] == [] and len(r["syscalls"]) == 3 and r["cpus"] == []
sys.exit(0 if ok else 1)' "$tmp/sys.json"

# The comparison can fail: seed 1's dump against seed 2's report.
if python3 "$check" "$tmp/k1.dump" "$tmp/k2.json" 15 >"$tmp/mismatch.txt"; then
	not_ok "another trace's report does not agree"
else
	ok "another trace's report does not agree ($(grep -c '^# [a-z]' "$tmp/mismatch.txt") differences)"
fi

# export --format=json holds the same trace: every event, name and
# scheduling record, and the running spans on the CPU tracks.
exports() { # exports NAME
	"$fxtrace" export --format=json -o "$tmp/$1.export.json" "$tmp/$1.fxt" &&
		python3 "$top/tools/fxtrace/tests/export_check.py" "$tmp/$1.dump" "$tmp/$1.export.json"
}
for seed in 1 2 3; do
	expect "mktrace seed $seed: export has every record and the CPU tracks" exports "k$seed"
done
# The check fails on an export without the scheduling records.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
d["traceEvents"]=[e for e in d["traceEvents"] if e.get("cat") != "sched"]
json.dump(d, open(sys.argv[2], "w"))' "$tmp/k1.export.json" "$tmp/nosched.json"
if python3 "$top/tools/fxtrace/tests/export_check.py" "$tmp/k1.dump" "$tmp/nosched.json" >/dev/null; then
	not_ok "an export without scheduling records fails the check"
else
	ok "an export without scheduling records fails the check"
fi

# fxt-sample's trace (tools/sample/fxt-sample.c), figures worked out by hand
# from its timestamps (ns): main runs work [1000, 10000] holding step
# [1500, 4000]; it blocks at 5000 when cpu 0 switches to the worker, which
# runs queue [5500, 8000] holding the complete step [7200, 7800], wakes main
# at 8500 and blocks at 9000, when main is switched in again.
"$build/bin/fxt-sample" "$tmp/sample.fxt"
"$fxtrace" report --format=json "$tmp/sample.fxt" >"$tmp/sample.json"
expect "fxt-sample: figures worked out by hand" python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
s = {x["name"]: x for x in r["slices"]}
want = {"work": (1, 9000, 9000 - 2500, 9000, 9000),
        "step": (2, 2500 + 600, 2500 + 600, 600, 2500),
        "queue": (1, 2500, 2500 - 600, 2500, 2500)}
ok = {n: (x["count"], x["total_ns"], x["self_ns"], x["p50_ns"], x["max_ns"])
      for n, x in s.items()} == want
t = {x["tid"]: x for x in r["threads"]}
ok &= (t[1001]["cpu_ns"], t[1001]["runs"], t[1001]["blocked_ns"], t[1001]["preempted_ns"]) == (9000 - 5000, 1, 0, 0)
ok &= (t[1000]["cpu_ns"], t[1000]["runs"], t[1000]["blocked_ns"]) == (0, 1, 8500 - 5000)
ok &= (t[1000]["wakeups"], t[1000]["latency_count"], t[1000]["latency_max_ns"]) == (1, 1, 9000 - 8500)
ok &= r["cpus"] == [{"cpu": 0, "switches": 2, "wakeups": 1, "busy_ns": 4000, "idle_ns": 0}]
ok &= [(x["name"], x["dur_ns"]) for x in r["longest"]] == \
	[("work", 9000), ("step", 2500), ("queue", 2500), ("step", 600)]
sys.exit(0 if ok else 1)' "$tmp/sample.json"

# mktrace's layout: 60 switches per CPU, the syscalls named, drops per buffer.
expect "kernel trace: 2 CPUs with 60 switches each" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
sys.exit(0 if [c["switches"] for c in r["cpus"]] == [60, 60] else 1)' "$tmp/k1.json"
expect "kernel trace: syscalls read, write, futex; 4 drop buffers" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
ok = sorted(s["name"] for s in r["syscalls"]) == ["futex", "read", "write"]
ok &= sorted((d["buffer"], d["counter"], d["value"]) for d in r["drops"]) == \
	[(b, c, v) for b in range(12, 16) for c, v in (("invalid", 0), ("records", b - 11))]
ok &= r["providers"] == [{"provider": 0, "buffer_full": 1}]
sys.exit(0 if ok else 1)' "$tmp/k1.json"

# A libfxtrace program in user-only mode: 3 threads x 25 loops.
if FXTRACE_OUTPUT=$tmp/user.fxt "$build/test/fxtrace/user_prog"; then
	expect "libfxtrace trace: report agrees with dump" agree user "$tmp/user.fxt"
	expect "libfxtrace trace: 75 outer, 75 inner; outer self = outer total - inner total" \
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
s = {x["name"]: x for x in r["slices"]}
ok = s["outer"]["count"] == 75 and s["inner"]["count"] == 75
ok &= s["outer"]["self_ns"] == s["outer"]["total_ns"] - s["inner"]["total_ns"]
ok &= s["inner"]["p50_ns"] >= 5000 and len(r["threads"]) == 3
sys.exit(0 if ok else 1)' "$tmp/user.json"
else
	not_ok "user_prog wrote $tmp/user.fxt"
fi

# The text report prints the same figures as the JSON.
text_row() { # the app:work row of the text report, as JSON would give it
	"$fxtrace" report "$tmp/k1.fxt" | awk '$1 == "app:work" { print $2, $3, $4, $5, $6, $7, $8; exit }'
}
json_row=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
w=[x for x in r["slices"] if x["name"] == "work"][0]
print(*(w[k] for k in ("count","total_ns","self_ns","mean_ns","p50_ns","p99_ns","max_ns")))' "$tmp/k1.json")
expect "text and JSON agree on app:work ($json_row)" test "$(text_row)" = "$json_row"

# --sort and --top.
sorted_by() { # sorted_by KEY FIELD: the slices table's FIELD column is sorted
	"$fxtrace" report --format=json --sort="$1" "$tmp/k1.fxt" >"$tmp/s.json" &&
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); f=sys.argv[2]
v=[x[f] for x in r["slices"]]
sys.exit(0 if v == sorted(v, reverse=f != "name") and len(set(v)) > 1 else 1)' "$tmp/s.json" "$2"
}
expect "--sort=count" sorted_by count count
expect "--sort=max" sorted_by max max_ns
expect "--sort=self" sorted_by self self_ns
expect "--sort=name" sorted_by name name
threads_by() {
	"$fxtrace" report --format=json --sort="$1" "$tmp/k1.fxt" >"$tmp/t.json" &&
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); f=sys.argv[2]
v=[x[f] for x in r["threads"]]
sys.exit(0 if v == sorted(v, reverse=True) and len(set(v)) > 1 else 1)' "$tmp/t.json" "$2"
}
expect "--sort=blocked sorts threads" threads_by blocked blocked_ns
expect "--sort=cpu sorts threads" threads_by cpu cpu_ns
expect "--top 3: three longest slices" test "$("$fxtrace" report --format=json --top 3 "$tmp/k1.fxt" |
	python3 -c 'import json,sys; print(len(json.load(sys.stdin)["longest"]))')" = 3

# Usage errors exit 2 and name the problem; a write error exits 1.
usage() { # usage MESSAGE ARGS...
	local msg=$1
	shift
	"$fxtrace" report "$@" "$tmp/k1.fxt" >/dev/null 2>"$tmp/err"
	[[ $? == 2 ]] && grep -qF -- "$msg" "$tmp/err"
}
expect "--sort=bogus is a usage error" usage "sort key 'bogus' is not known" --sort=bogus
expect "--top=x is a usage error" usage "--top wants a number" --top=x
expect "--format=xml is a usage error" usage "format 'xml' is not known" --format=xml
# A long option without its value is named as given: its code is another
# option's letter (--sort) or no character (--since, --memory-limit).
for opt in --sort --since --memory-limit -n; do
	"$fxtrace" report "$tmp/k1.fxt" "$opt" >"$tmp/out" 2>"$tmp/err"
	expect "report FILE $opt: a usage error naming $opt" test \
		"$?:$(head -n 1 "$tmp/err"):$(wc -c <"$tmp/out")" = \
		"2:fxtrace report: option '$opt' needs a value:0"
done
"$fxtrace" report --html "$tmp/no/such/dir.html" "$tmp/k1.fxt" >/dev/null 2>"$tmp/err"
expect "--html into a missing directory exits 1 and says why" test "$?:$(cat "$tmp/err")" = \
	"1:fxtrace report: cannot create $tmp/no/such/dir.html: No such file or directory"
"$fxtrace" report --html /dev/full "$tmp/k1.fxt" >/dev/null 2>"$tmp/err"
expect "--html into a full device exits 1 and blames the page, not the trace" \
	test "$?:$(cat "$tmp/err")" = "1:fxtrace report: cannot write /dev/full: No space left on device"
expect "report - reads stdin (as many records as dump has lines)" \
	test "$("$fxtrace" report --format=json - <"$tmp/k1.fxt" |
	python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["trace"], r["records"])')" = \
	"- $(wc -l <"$tmp/k1.dump")"
"$fxtrace" report "$tmp/k1.fxt" >/dev/full 2>"$tmp/err"
expect "report > /dev/full exits 1" test "$?:$(cat "$tmp/err")" = \
	"1:fxtrace report: cannot write the standard output: No space left on device"
# Totals saturate instead of wrapping: two 6e18 ns slices of one name on
# two threads (found by the fuzzer: a signed overflow in the sum).
python3 - "$tmp/long.fxt" <<'PY'
import struct, sys
def words(*a): return b"".join(struct.pack("<Q", x) for x in a)
out = words(0x0016547846040010) + words(0x21, 1000000000)
for tid in (101, 102):
    # duration complete, inline thread, category "t", name "long": 7 words
    hdr = 4 | 7 << 4 | 4 << 16 | (0x8000 | 1) << 32 | (0x8000 | 4) << 48
    out += words(hdr, 0, 100, tid) + b"t".ljust(8, b"\0") + b"long".ljust(8, b"\0")
    out += words(6 * 10**18)
open(sys.argv[1], "wb").write(out)
PY
expect "report: totals saturate at INT64_MAX ns" test \
	"$("$fxtrace" report --format=json "$tmp/long.fxt" | python3 -c 'import json, sys
s = json.load(sys.stdin)["slices"][0]
print(s["count"], s["total_ns"], s["self_ns"], s["max_ns"])')" = \
	"2 9223372036854775807 9223372036854775807 6000000000000000000"

# Many providers and processes take linear time: 600,000 "buffer full"
# events of 300,000 providers (each twice), and 300,000 threads in
# processes of their own but the last two, which share one.  On the host
# the linear searches before took 19 s each at 200,000, so about 43 s
# here; now 0.4 s and 2.7 s of CPU, and up to 6.3 s of wall time with the
# machine's two cores loaded by four jobs, when a 10-s limit cut the
# processes' report short.  30 s leaves room for the load and none for
# the searches.
python3 - "$tmp/providers.fxt" "$tmp/processes.fxt" <<'PY'
import struct, sys
def words(*a): return b"".join(struct.pack("<Q", x) for x in a)
n = 300000
with open(sys.argv[1], "wb") as f:
    f.write(words(0x0016547846040010))
    for _ in range(2):
        # metadata, 1 word, provider event, id, event 0: buffer full
        f.write(b"".join(words(1 << 4 | 3 << 16 | i << 20) for i in range(1, n + 1)))
with open(sys.argv[2], "wb") as f:
    f.write(words(0x0016547846040010))
    for i in range(1, n + 1):
        # instant, 4 words, inline thread, empty category and name
        pid = i if i < n else n - 1
        f.write(words(4 | 4 << 4, 1000 + i, pid, i))
PY
expect "report: 300,000 providers' buffer-full events, in order of appearance" test \
	"$(timeout 30 "$fxtrace" report --format=json "$tmp/providers.fxt" | python3 -c 'import json, sys
p = json.load(sys.stdin)["providers"]
print(len(p), p[0]["provider"], p[-1]["provider"], {x["buffer_full"] for x in p})')" = \
	"300000 1 300000 {2}"
expect "report: 299,999 processes of 300,000 threads" test \
	"$(timeout 30 "$fxtrace" report --format=json "$tmp/processes.fxt" | python3 -c 'import json, sys
p = json.load(sys.stdin)["processes"]
print(len(p), sum(x["threads"] for x in p), max(x["threads"] for x in p))')" = \
	"299999 300000 2"

# The HTML page's syscall histograms group slices by name in one sort:
# 32,000 kernel:syscall names of 20 slices each, a histogram each, within
# 10 s (0.53 s on the host; a pass over all slices per name before: more
# than 10 s).
python3 - "$tmp/syscalls.fxt" <<'PY'
import struct, sys
def words(*a): return b"".join(struct.pack("<Q", x) for x in a)
def string(index, text):
    b = text.encode()
    pad = b.ljust((len(b) + 7) // 8 * 8, b"\0")
    return words(2 | (1 + len(pad) // 8) << 4 | index << 16 | len(b) << 32) + pad
names = 32000
out = [words(0x0016547846040010), words(0x21, 1000000000), string(1, "kernel:syscall")]
out += [string(2 + i, "sys%d" % i) for i in range(names)]
for k in range(20):
    for i in range(names):
        t = (k * names + i) * 10
        # duration complete, 5 words, inline thread, category 1, name 2 + i
        out.append(words(4 | 5 << 4 | 4 << 16 | 1 << 32 | (2 + i) << 48, t, 7, 7, t + 5))
open(sys.argv[1], "wb").write(b"".join(out))
PY
expect "report --html: 32,000 syscall histograms of 20 samples" test \
	"$(timeout 10 "$fxtrace" report --html "$tmp/syscalls.html" "$tmp/syscalls.fxt" >/dev/null &&
		grep -oE '"samples":\[[0-9]+(,[0-9]+){19}\]' "$tmp/syscalls.html" | wc -l)" = 32000
# The standard output full: one message, exit 1, for fxtrace's own help
# and version too (they exited 0), and once for export (it said it twice).
for args in "-h" "--version" "help dump" "export $tmp/k1.fxt"; do
	# shellcheck disable=SC2086 # the words of args are the arguments
	"$fxtrace" $args >/dev/full 2>"$tmp/full.err"
	status=$?
	what=${args%% *}
	[[ $what == -* ]] && what= || what=" $what"
	expect "fxtrace $args > /dev/full: exit 1, one message" test \
		"$status:$(cat "$tmp/full.err")" = \
		"1:fxtrace$what: cannot write the standard output: No space left on device"
done

# Two names alike in their first 300 bytes: each printed whole, in the
# slice table and among the longest slices.  They were cut to 255 bytes
# of "category:name" and printed alike.
python3 - "$tmp/names.fxt" <<'PY'
import struct
import sys
def words(*a): return b"".join(struct.pack("<Q", x) for x in a)
out = words(0x0016547846040010)
for ts, name in ((1, b"x" * 300 + b"a"), (10, b"x" * 300 + b"b")):
    name += b"\0" * (-len(name) % 8)
    # duration complete, inline thread 1/1, category "c", the name inline
    hdr = (4 | (6 + len(name) // 8) << 4 | 4 << 16 | (0x8000 | 1) << 32 |
           (0x8000 | 301) << 48)
    out += words(hdr, ts, 1, 1, ord("c")) + name + words(ts + 5)
open(sys.argv[1], "wb").write(out)
PY
x300=$(printf 'x%.0s' {1..300})
"$fxtrace" report "$tmp/names.fxt" >"$tmp/names.out" 2>&1
expect "report: names alike in their first 300 bytes printed whole, twice each" test \
	"$?:$(grep -c "c:${x300}a\( \|$\)" "$tmp/names.out"):$(grep -c "c:${x300}b\( \|$\)" "$tmp/names.out")" = 0:2:2

# Names padded by the columns they take, not by their bytes: "café" (é is
# 2 bytes, 1 column), "tab\tx" (the tab printed as \x09: 1 byte, 4
# columns) and "処理" (6 bytes, 4 columns) in the slice table; the
# thread "wörker" and the process "prøc" in the longest slices, threads
# and processes.  Each row used to be shifted by its bytes less its
# columns (c:tab\x09x 3 columns right, c:café 1 left).
python3 - "$tmp/widths.fxt" <<'PY'
import struct
import sys
def words(*a): return b"".join(struct.pack("<Q", x) for x in a)
def padded(b): return b + b"\0" * (-len(b) % 8)
def kobj(koid, obj_type, name, args=b"", nargs=0):
    # kernel object record (type 7): 1 process, 2 thread; name inline
    n = padded(name)
    return words(7 | (2 + (len(n) + len(args)) // 8) << 4 | obj_type << 16 |
                 (0x8000 | len(name)) << 24 | nargs << 40, koid) + n + args
out = words(0x0016547846040010)
out += kobj(1, 1, "prøc".encode())
# thread 1 with its "process" koid argument (type 8, 3 words)
out += kobj(1, 2, "wörker".encode(),
            words(8 | 3 << 4 | (0x8000 | 7) << 16) + padded(b"process") + words(1), 1)
for ts, dur, name in ((100, 30, "café".encode()), (200, 20, b"tab\tx"),
                      (300, 10, "処理".encode())):
    n = padded(name)
    # duration complete, inline thread 1/1, category "c", the name inline
    hdr = (4 | (6 + len(n) // 8) << 4 | 4 << 16 | (0x8000 | 1) << 32 |
           (0x8000 | len(name)) << 48)
    out += words(hdr, ts, 1, 1, ord("c")) + n + words(ts + dur)
open(sys.argv[1], "wb").write(out)
PY
cat >"$tmp/widths.want" <<'TXT'
  c:café                                  1             30             30           30           30           30           30
  c:tab\x09x                              1             20             20           20           20           20           20
  c:処理                                  1             10             10           10           10           10           10
            30        0.000000100  1/1                  "wörker"         c:café
            20        0.000000200  1/1                  "wörker"         c:tab\x09x
            10        0.000000300  1/1                  "wörker"         c:処理
  1/1              "wörker"                      0        0              0              0        0        0            0            0            0            0
  1          "prøc"                 1              0        0              0              0        0        0            0            0
TXT
"$fxtrace" report "$tmp/widths.fxt" >"$tmp/widths.out" 2>&1
rc=$?
grep -E '^ +(c:|[0-9]+ +0\.|1/1 |1 )' "$tmp/widths.out" >"$tmp/widths.got"
diff "$tmp/widths.want" "$tmp/widths.got" | sed 's/^/# /'
expect "report: names with UTF-8 and escaped bytes padded by their columns (exit $rc)" \
	cmp -s "$tmp/widths.want" "$tmp/widths.got"
# stats' thread table likewise: its name column used to end a column
# early for each byte past the first of "ö".
"$fxtrace" stats "$tmp/widths.fxt" >"$tmp/widths.stats" 2>&1
expect "stats: a thread's UTF-8 name padded by its columns (exit $?)" \
	grep -qx '  1/1                      "wörker"         3' "$tmp/widths.stats"

# 32,768 names of one FNV-1a 64: each of these 15 pairs of 12-byte blocks
# collides from the hash the blocks before it leave (found by lattice
# reduction of FNV-1a's multiply, Joux's multicollision), so any choice
# of one block of each pair gives the same hash.  report numbered names
# through that hash, each new one walking past all the others (18 s of
# CPU); each must still be counted apart, within 10 s.
python3 - "$tmp/fnv.fxt" <<'PY'
import itertools
import struct
import sys
pairs = [
    (b"P49ECi62aQCb", b"S45C7m80QF2q"),
    (b"G77j9r17MucG", b"X57r5HA7qhPv"),
    (b"830ZTA96TmKf", b"9M2r6Y94JpTW"),
    (b"MP9OIQG9MBBW", b"L89u1I39Q7UF"),
    (b"V08X1z947ZiD", b"WX6L9P56Og8W"),
    (b"4G4U2589JN5d", b"5E2K8Y69HEbU"),
    (b"nY3Z0t907lNw", b"m33BZf52OaQf"),
    (b"nX1mUQ96JQBR", b"o01g5I94XLsE"),
    (b"JY2U5mM5FHQC", b"K74O5m55LKB2"),
    (b"u82U1o97RlPu", b"v00K9o97dSAf"),
    (b"H75hEt94lYMA", b"K15l1R92vlBP"),
    (b"YT0k75A1bMJe", b"Z42q3E11PFYt"),
    (b"l9631k96mfbx", b"mC4M9S90Em3o"),
    (b"B84iGd65bVEJ", b"CP6k3V89pkLY"),
    (b"601T4IM3moBr", b"7X1h6A53QbSa"),
]
def fnv1a(data, h=0xcbf29ce484222325):
    for b in data:
        h = (h ^ b) * 0x100000001b3 & (1 << 64) - 1
    return h
def words(*a): return b"".join(struct.pack("<Q", x) for x in a)
out = [words(0x0016547846040010)]
hashes = set()
for ts, blocks in enumerate(itertools.product(*pairs), 1):
    name = b"".join(blocks)
    hashes.add(fnv1a(name))
    padded = name + b"\0" * (-len(name) % 8)
    # duration complete, inline thread 1/1, category "c", the name inline
    hdr = (4 | (6 + len(padded) // 8) << 4 | 4 << 16 | (0x8000 | 1) << 32 |
           (0x8000 | len(name)) << 48)
    out.append(words(hdr, ts, 1, 1, ord("c")) + padded + words(ts + 1))
assert len(hashes) == 1, "the pairs do not collide"
open(sys.argv[1], "wb").write(b"".join(out))
PY
timeout 10 "$fxtrace" report "$tmp/fnv.fxt" >"$tmp/fnv.out" 2>&1
expect "report: 32,768 names of one FNV-1a, each its own row of count 1, within 10 s" test \
	"$?:$(awk '/^slices by/ { s = 1; next } /^$/ { s = 0 } s && /^  c:/ && $2 == 1 { print $1 }' \
		"$tmp/fnv.out" | sort -u | wc -l)" = 0:32768

# A directory given as FILE: refused at the open, before anything is
# written (export wrote an empty JSON document, then failed to read).
mkdir "$tmp/dir.fxt"
for cmd in dump stats export report check; do
	"$fxtrace" "$cmd" "$tmp/dir.fxt" >"$tmp/dir.out" 2>"$tmp/dir.err"
	status=$?
	expect "$cmd DIR: exit 1, nothing on stdout, 'cannot open DIR: Is a directory'" test \
		"$status:$(wc -c <"$tmp/dir.out"):$(cat "$tmp/dir.err")" = \
		"1:0:fxtrace $cmd: cannot open $tmp/dir.fxt: Is a directory"
done
echo "1..$n"
