#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check `fxtrace export` JSON against `fxtrace dump` lines.

Usage: export_check.py DUMP.txt EXPORT.json

Every event, log, kernel object name and scheduling record of the dump is
in the JSON once; each CPU track has one X slice per time a thread (not the
idle thread) ran between two context switches on that CPU, with that
duration and the thread's process from its kernel object record.  Prints the differences and exits 1 when there is one.
"""
import json
import re
import sys

CPU_PID, CPU_TID = 2147483647, 0x7FFF0000


def ns(text):
    sec, frac = text.split(".")
    return int(sec) * 1000000000 + int(frac)


def us_to_ns(value):
    # ts and dur are printed with three decimals: exact in ns.
    return round(value * 1000)


def main():
    lines = open(sys.argv[1]).read().splitlines()
    events = json.load(open(sys.argv[2]))["traceEvents"]
    errors = []

    def same(what, want, have):
        if want != have:
            errors.append("%s: dump says %r, export says %r" % (what, want, have))

    kinds = {}
    spans, last = [], {}
    pid_of = {int(t): int(p) for t, p in re.findall(
        r' kernel object +thread (\d+) ".*" process=(\d+)', "\n".join(lines))}
    for line in lines:
        m = re.match(r"^0x[0-9a-f]+ +(\d+\.\d{9})?  (.*?) +(context switch|wakeup"
                     r"|kernel object|duration begin|duration end|duration complete"
                     r"|instant|counter|log) +(.*)$", line)
        if not m:
            continue
        ts, who, rec, details = m.groups()
        if rec == "kernel object" and not re.match(r"(process|thread) ", details):
            continue
        kinds[rec] = kinds.get(rec, 0) + 1
        if rec == "context switch":
            cpu, t = int(who.split()[1]), ns(ts)
            if cpu in last and last[cpu][1] and last[cpu][0] <= t:
                spans.append((cpu, last[cpu][1], last[cpu][0], t - last[cpu][0]))
            last[cpu] = (t, int(details.split(" -> ")[1].split()[0]))

    ph_of = {"duration begin": "B", "duration end": "E", "instant": "i",
             "counter": "C"}
    have = {}
    for e in events:
        key = e["ph"], e.get("name"), e.get("cat"), e["pid"] == CPU_PID
        have[key] = have.get(key, 0) + 1
    for rec, ph in ph_of.items():
        same(rec, kinds.get(rec, 0),
             sum(n for (p, name, cat, cpu), n in have.items()
                 if p == ph and not cpu and cat != "log"))
    same("duration complete", kinds.get("duration complete", 0),
         sum(n for (p, _, _, cpu), n in have.items() if p == "X" and not cpu))
    same("log", kinds.get("log", 0), have.get(("i", "log", "log", False), 0))
    same("kernel objects", kinds.get("kernel object", 0),
         sum(n for (p, name, _, cpu), n in have.items()
             if p == "M" and not cpu))
    same("context switches", kinds.get("context switch", 0),
         have.get(("i", "sched_switch", "sched", True), 0))
    same("wakeups", kinds.get("wakeup", 0),
         have.get(("i", "sched_wakeup", "sched", True), 0))
    got_spans = sorted((e["tid"] - CPU_TID, e["args"]["tid"], us_to_ns(e["ts"]),
                        us_to_ns(e["dur"]))
                       for e in events if e["ph"] == "X" and e["pid"] == CPU_PID)
    same("running spans", sorted(spans), got_spans)
    same("running spans' pids",
         sorted(pid_of.get(tid) for _, tid, _, _ in spans),
         sorted(e["args"].get("pid") for e in events
                if e["ph"] == "X" and e["pid"] == CPU_PID))
    for e in errors:
        print("# " + e)
    print("# %d switches, %d wakeups, %d running spans compared"
          % (kinds.get("context switch", 0), kinds.get("wakeup", 0), len(spans)))
    return 1 if errors or not spans else 0


if __name__ == "__main__":
    sys.exit(main())
