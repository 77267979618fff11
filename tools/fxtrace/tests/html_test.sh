#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: fxtrace report --html writes one self-contained page that a
# real browser renders: Debian's chromium, headless, loads the page of a
# mktrace trace, and the DOM it leaves (--dump-dom) lists one track per CPU
# and per thread with as many running spans and slices as fxtrace dump
# shows (counted here from dump's lines), the latency histograms with the
# report's sample counts, and the tables.  The screenshot stays in
# $B/test/fxtrace/html/report.png for people to look at.  Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
build=$top/${B:-build}
fxtrace=$build/bin/fxtrace
out=$build/test/fxtrace/html
rm -rf "$out"
mkdir -p "$out"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }
expect() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

browser=$(command -v chromium || true)
if [[ -z $browser ]]; then
	echo "ok 1 # SKIP chromium is not installed (tools/deps.sh installs it)"
	echo "1..1"
	exit 0
fi

"$build/test/fxtrace/mktrace" "$out/k.fxt" 1
"$fxtrace" dump "$out/k.fxt" >"$out/k.dump"
"$fxtrace" report --format=json --html "$out/report.html" "$out/k.fxt" >"$out/k.json"
expect "report --html exits 0 and writes the page" test -s "$out/report.html"

# Self-contained: nothing to fetch (the SVG namespace is a name, not a fetch).
expect "no src=, href=, url( or @import in the page" \
	bash -c "! grep -Eiq 'src=|href=|url\\(|@import' '$out/report.html'"

# The page as chromium leaves it, and a screenshot.  Its own profile
# directory; no network is needed or used.
run_browser() {
	HOME=$out timeout 180 "$browser" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$out/profile" --window-size=1400,1800 "$@" \
		"file://$out/report.html" 2>>"$out/chromium.log"
}
run_browser --dump-dom >"$out/dom.html"
run_browser --screenshot="$out/report.png" >/dev/null
expect "chromium ran the page's script to the end" \
	grep -q 'data-rendered="ok"' "$out/dom.html"
expect "a screenshot in $out/report.png" \
	python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); sys.exit(0 if d[:8]==b"\x89PNG\r\n\x1a\n" and len(d) > 20000 else 1)' "$out/report.png"

# The tracks the page drew, against counts from dump's lines.
expect "tracks: one per CPU and per thread, with dump's spans and slices" python3 - "$out/k.dump" "$out/dom.html" <<'PY'
import re, sys
dump = open(sys.argv[1]).read().splitlines()
dom = open(sys.argv[2]).read()
want = {}
last = {}
for line in dump:
    m = re.match(r"^0x[0-9a-f]+ +(\d+\.\d{9})  cpu (\d+) +context switch +\d+ \(\w+\) -> (\d+)", line)
    if m:
        cpu = int(m.group(2))
        if last.get(cpu):
            want["CPU %d" % cpu] = want.get("CPU %d" % cpu, 0) + 1
        want.setdefault("CPU %d" % cpu, 0)
        last[cpu] = int(m.group(3))
        continue
    m = re.match(r"^0x[0-9a-f]+ +\d+\.\d{9}  (\d+)/(\d+) (\S+) +duration (end|complete) ", line)
    if m:
        key = "%s/%s %s" % m.group(1, 2, 3)
        want[key] = want.get(key, 0) + 1
have = {name: int(items) for kind, name, items in re.findall(
    r'<li class="track" data-kind="(cpu|thread)" data-name="([^"]*)" data-items="(\d+)"', dom)}
print("# dump:", sorted(want.items()))
print("# page:", sorted(have.items()))
sys.exit(0 if want == have and len(have) == 6 else 1)
PY
expect "histograms: wakeup latency and each syscall, with the report's sample counts" python3 - "$out/k.json" "$out/dom.html" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
dom = open(sys.argv[2]).read()
want = {"wakeup-to-run latency": sum(t["latency_count"] for t in r["threads"])}
for s in r["syscalls"]:
    want["kernel:syscall:" + s["name"]] = s["count"]
have = {name: int(c) for name, c in re.findall(
    r'<div class="hist" data-name="([^"]*)" data-count="(\d+)"', dom)}
print("# histograms:", sorted(have.items()))
sys.exit(0 if want == have else 1)
PY
expect "tables: as many rows as the report's" python3 - "$out/k.json" "$out/dom.html" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
dom = open(sys.argv[2]).read()
rows = dict(re.findall(r'<table id="(\w+)" data-rows="(\d+)"', dom))
sys.exit(0 if rows == {"slice_table": str(len(r["slices"])),
                       "syscall_table": str(len(r["syscalls"])),
                       "thread_table": str(len(r["threads"]))} else 1)
PY
# A name that tries to close the script element stays data.
python3 - "$out/evil.fxt" <<'PY'
import struct, sys
def stream(s):
    b = s.encode() + b"\0" * (-len(s) % 8)
    return [int.from_bytes(b[i:i + 8], "little") for i in range(0, len(b), 8)]
name = "</script><script>document.body.dataset.rendered='owned'</script>"
cat = "app"
words = [0x0016547846040010]
body = [1, 1, 2] + stream(cat) + stream(name)        # ts, pid, tid
hdr = 4 | ((1 + len(body) + 1) << 4) | (4 << 16)     # complete event
hdr |= (0x8000 | len(cat)) << 32 | (0x8000 | len(name)) << 48
words += [hdr] + body + [5]                          # end ts
open(sys.argv[1], "wb").write(struct.pack("<%dQ" % len(words), *words))
PY
"$fxtrace" report --html "$out/evil.html" "$out/evil.fxt" >/dev/null
HOME=$out timeout 180 "$browser" --headless --no-sandbox --disable-gpu \
	--user-data-dir="$out/profile" --dump-dom "file://$out/evil.html" \
	>"$out/evil-dom.html" 2>>"$out/chromium.log"
expect "a slice named </script>... is shown, not run" \
	bash -c "grep -q 'data-rendered=\"ok\"' '$out/evil-dom.html' && grep -q 'data-items=\"1\"' '$out/evil-dom.html'"
echo "1..$n"
