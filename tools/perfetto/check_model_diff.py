#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Plain `fxtrace check` against `fxtrace check --perfetto`'s replay.

Usage: check_model_diff.py FXTRACE N SEED [DISORDER [DIR]]

Writes N random small FXT traces (one process, two threads; duration,
complete, instant, flow and async events; 1, 2 or 3 GHz clocks) and
compares, per trace, the counts of plain check's flow-no-enclosing-slice,
flow-duplicate-id, misplaced-end and complete-overlap with the stats
flow_no_enclosing_slice, flow_duplicate_id, misplaced_end_event and
slice_drop_overlapping_complete_event the replay predicts (through a
stand-in trace processor: no Perfetto needed).  DISORDER (0 to 1) moves
that share of events up to 8 ns earlier.  NO_MISPLACED=1 leaves
misplaced-end out of the comparison, NO_BEGIN=1 writes no duration begin
(no thread has a begin cut), NO_ASYNC=1 no async event (no async id has
a begin cut).  Prints each trace that differs, tagged
(time-order) when check noted events out of time order, then a summary.
Documentation/perfetto.rst, "Time order", has the figures.
"""
import os, random, re, struct, subprocess, sys, tempfile

FX = sys.argv[1]
N = int(sys.argv[2])
seed = int(sys.argv[3])
disorder = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
scratch = None if len(sys.argv) > 5 else tempfile.TemporaryDirectory()
tmp = sys.argv[5] if len(sys.argv) > 5 else scratch.name
os.makedirs(tmp, exist_ok=True)
rng = random.Random(seed)

def string(text):
    b = text.encode()
    padded = b + b"\0" * (-len(b) % 8)
    return (0x8000 | len(b) if b else 0,
            list(struct.unpack("<%dQ" % (len(padded) // 8), padded)))

def event(kind, ts, cat, name, trailing=(), pid=1, tid=2):
    cat_ref, cw = string(cat)
    name_ref, nw = string(name)
    words = [ts, pid, tid] + cw + nw + list(trailing)
    return [4 | (1 + len(words)) << 4 | kind << 16 |
            cat_ref << 32 | name_ref << 48] + words

tp = os.path.join(tmp, "trace_processor_shell")
with open(tp, "w") as f:
    f.write("#!/bin/bash\necho '\"a\"'\necho '0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\"\",\"fuchsia\"'\n"
            "printf '\\n\"tid\",\"hex(name)\"\\n\\n\"pid\",\"hex(name)\"\\n'\n")
os.chmod(tp, 0o755)

def gen():
    tps = rng.choice([1000000000, 2000000000, 3000000000])
    words = [0x0016547846040010, 0x21, tps]
    ts = 10
    evs = []
    for _ in range(rng.randint(3, 25)):
        ts += rng.choice([0, 0, 1, 1, 2, 3, 5])
        tid = rng.choice([2, 2, 3])
        kinds = ["B", "B", "E", "E", "X", "X", "I", "FB", "FS", "FE",
                 "AB", "AB", "AI", "AE", "AE"]
        if os.environ.get("NO_BEGIN"):  # no thread can have a begin cut
            kinds = [k for k in kinds if k != "B"]
        if os.environ.get("NO_ASYNC"):  # no async id can have a begin cut
            kinds = [k for k in kinds if k[0] != "A"]
        k = rng.choice(kinds)
        t = ts
        if disorder and rng.random() < disorder:
            t = max(1, ts - rng.randint(1, 8))
        if k == "B":
            evs.append(event(2, t, "c", "n", tid=tid))
        elif k == "E":
            evs.append(event(3, t, "c", "n", tid=tid))
        elif k == "X":
            evs.append(event(4, t, "c", "n", [t + rng.choice([0, 1, 2, 4, 8])], tid=tid))
        elif k == "I":
            evs.append(event(0, t, "c", "n", tid=tid))
        elif k[0] == "F":
            evs.append(event({"FB": 8, "FS": 9, "FE": 10}[k], t, "c", "f",
                             [rng.randint(1, 2)], tid=tid))
        else:
            evs.append(event({"AB": 5, "AI": 6, "AE": 7}[k], t, "c",
                             rng.choice("ab"), [rng.randint(1, 2)], tid=tid))
    for e in evs:
        words += e
    return words

rules = {"flow-no-enclosing-slice": "flow_no_enclosing_slice",
         "flow-duplicate-id": "flow_duplicate_id",
         "complete-overlap": "slice_drop_overlapping_complete_event",
         **({} if os.environ.get("NO_MISPLACED") else {"misplaced-end": "misplaced_end_event"})}
agree = disagree = ordered = 0
for i in range(N):
    words = gen()
    path = os.path.join(tmp, "r%04d.fxt" % i)
    with open(path, "wb") as f:
        f.write(struct.pack("<%dQ" % len(words), *words))
    out = subprocess.run([FX, "check", path], capture_output=True, text=True).stdout
    got = {v: len(re.findall(": " + k + ": ", out)) for k, v in rules.items()}
    out2 = subprocess.run([FX, "check", "--perfetto", path], capture_output=True,
                          text=True, env=dict(os.environ, FXTRACE_TRACE_PROCESSOR=tp)).stdout
    want = {v: 0 for v in rules.values()}
    for m in re.finditer(r"fxtrace predicts (\w+)=(\d+)", out2):
        if m.group(1) in want:
            want[m.group(1)] = int(m.group(2))
    noted = "time-order" in out
    ordered += not noted
    if got == want:
        agree += 1
    else:
        disagree += 1
        print("DIFF %s%s check %s model %s" % (path, " (time-order)" if noted else "", got, want))
print("traces %d (in time order %d): agree %d, differ %d" % (N, ordered, agree, disagree))
