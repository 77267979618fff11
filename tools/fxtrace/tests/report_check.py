#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Recompute `fxtrace report --format=json` from `fxtrace dump` lines.

Usage: report_check.py DUMP.txt REPORT.json TOP [FULL_DUMP.txt [pid=P,..|tid=T,..]]

Written from the definitions in Documentation/fxtrace.rst (fxtrace report),
not from report.c: it reads only what dump prints.  With a selection
(--pid, --time, ...), DUMP.txt is `fxtrace dump SELECTION` and the report
`fxtrace report SELECTION`; FULL_DUMP.txt, the whole dump, tells the
threads' processes (every record does) and the trace-wide figures (records,
start) are not compared; with pid= or tid=, only those threads are rows of
the thread table.  Prints the differences and exits 1 when there is one.
"""
import json
import re
import sys

RECORDS = ("duration begin", "duration end", "duration complete",
           "context switch", "wakeup", "counter", "kernel object",
           "provider event")
LINE = re.compile(r"^(0x[0-9a-f]+) +(\d+\.\d{9})?  (.*?) +(%s) +(.*)$"
                  % "|".join(RECORDS))


def ns(text):
    sec, frac = text.split(".")
    return int(sec) * 1000000000 + int(frac)


def nearest_rank(sorted_values, p):
    n = len(sorted_values)
    rank = (p * n + 99) // 100
    return sorted_values[max(rank, 1) - 1] if n else 0


def main():
    dump_path, report_path, top = sys.argv[1], sys.argv[2], int(sys.argv[3])
    lines = open(dump_path).read().splitlines()
    got = json.load(open(report_path))
    selected = len(sys.argv) > 4
    full = open(sys.argv[4]).read().splitlines() if selected else lines

    # Every record tells its threads' processes, selected or not.
    pid_of = {}
    for line in full:
        m = re.match(r"^0x[0-9a-f]+ +\d+\.\d{9}  (\d+)/(\d+)[ \n]", line)
        if m:
            pid_of[int(m.group(2))] = int(m.group(1))
        m = re.search(r' +kernel object +thread (\d+) ".*" process=(\d+)', line)
        if m:
            pid_of[int(m.group(1))] = int(m.group(2))
    # The threads the selected records name are listed.
    listed = set()
    for line in lines:
        m = re.match(r"^0x[0-9a-f]+ +\d+\.\d{9}  (\d+)/(\d+)[ \n]", line)
        if m and int(m.group(2)):
            listed.add(int(m.group(2)))
        m = re.search(r' +kernel object +thread (\d+) ".*" process=(\d+)', line)
        if m:
            listed.add(int(m.group(1)))

    per_thread = {}          # (pid, tid) -> [(kind, ts, end, name, offset)]
    sched = []               # in dump order
    drops = {}               # (pid, tid, id, arg) -> value, last wins
    providers = {}
    times = []
    for line in lines:
        m = LINE.match(line)
        if not m:
            t = re.match(r"^0x[0-9a-f]+ +(\d+\.\d{9})  ", line)
            if t:
                times.append(ns(t.group(1)))
            continue
        offset, ts, who, rec, details = m.groups()
        offset = int(offset, 16)
        if ts:
            ts = ns(ts)
            times.append(ts)
        if rec == "kernel object":
            continue
        if rec == "provider event":
            p = re.match(r"provider (\d+) buffer full$", details)
            if p:
                providers[int(p.group(1))] = providers.get(int(p.group(1)), 0) + 1
            continue
        if rec in ("context switch", "wakeup"):
            cpu = int(who.split()[1])
            if rec == "wakeup":
                sched.append(("wakeup", ts, cpu, int(details.split()[0])))
            else:
                s = re.match(r"(\d+) \((\w+)\) -> (\d+)", details)
                sched.append(("switch", ts, cpu, int(s.group(1)),
                              s.group(2), int(s.group(3))))
            continue
        pid, tid = (int(x) for x in who.split()[0].split("/"))
        name = details.split()[0]
        if rec == "counter":
            if name != "fxtrace:dropped":
                continue
            cid = int(re.search(r" id=(\d+)", details).group(1))
            for arg, value in re.findall(r" (\w+)=(-?\d+)", details):
                if arg != "id":
                    drops[(pid, tid, cid, arg)] = int(value)
            continue
        kind = rec.split()[1]
        end = None
        if kind == "complete":
            end = ts + int(re.search(r" dur=(\d+)ns", details).group(1))
        per_thread.setdefault((pid, tid), []).append(
            (kind, ts, end, name, offset))

    # Slices: an end closes the innermost open begin of its thread.
    slices = []      # [pid, tid, name, start, end, offset, self]
    unmatched = unended = 0
    for (pid, tid), evs in per_thread.items():
        stack = []
        for kind, ts, end, name, offset in evs:
            if kind == "begin":
                stack.append((ts, name, offset))
            elif kind == "end":
                if not stack:
                    unmatched += 1
                    continue
                start, bname, boff = stack.pop()
                slices.append([pid, tid, bname, start, ts, boff, ts - start])
            else:
                slices.append([pid, tid, name, ts, end, offset, end - ts])
        unended += len(stack)
    # Self time: minus each directly nested slice, clipped to the parent.
    slices.sort(key=lambda s: (s[0], s[1], s[3], -s[4], s[5]))
    stack = []
    for i, s in enumerate(slices):
        if i and s[:2] != slices[i - 1][:2]:
            stack = []
        while stack and stack[-1][4] <= s[3]:
            stack.pop()
        if stack:
            stack[-1][6] -= min(s[4], stack[-1][4]) - s[3]
        stack.append(s)

    def table(rows):
        out = {}
        for s in rows:
            out.setdefault(s[2], []).append(s)
        result = {}
        for name, ss in out.items():
            d = sorted(x[4] - x[3] for x in ss)
            total = sum(d)
            result[name] = dict(count=len(d), total_ns=total,
                                self_ns=sum(x[6] for x in ss),
                                mean_ns=total // len(d),
                                p50_ns=nearest_rank(d, 50),
                                p99_ns=nearest_rank(d, 99), max_ns=d[-1])
        return result

    want_slices = table([s for s in slices
                         if not s[2].startswith("kernel:syscall:")])
    want_syscalls = table([s for s in slices
                           if s[2].startswith("kernel:syscall:")])
    longest = sorted(slices, key=lambda s: (-(s[4] - s[3]), s[3], s[1], s[5]))
    want_longest = [dict(name=s[2], pid=s[0], tid=s[1], start_ns=s[3],
                         dur_ns=s[4] - s[3], offset=s[5])
                    for s in longest[:top]]

    # Scheduling, in dump (time) order.
    th = {}

    def thread(tid):
        return th.setdefault(tid, dict(cpu_ns=0, runs=0, blocked_ns=0,
                                       preempted_ns=0, wakeups=0, lat=[],
                                       on=False, blocked=None,
                                       preempted=None, woken=None))
    cpus = {}
    for r in sched:
        c = cpus.setdefault(r[2], dict(switches=0, wakeups=0, busy_ns=0,
                                       idle_ns=0, tid=None, since=None))
        if r[0] == "wakeup":
            ts, tid = r[1], r[3]
            c["wakeups"] += 1
            if tid == 0:
                continue
            t = thread(tid)
            t["wakeups"] += 1
            if t["on"] or t["woken"] is not None:
                continue
            if t["blocked"] is not None:
                t["blocked_ns"] += ts - t["blocked"]
                t["blocked"] = None
            t["woken"] = ts
            continue
        _, ts, cpu, out, state, inn = r
        c["switches"] += 1
        if c["tid"] == out and c["since"] is not None:
            if out:
                thread(out)["cpu_ns"] += ts - c["since"]
                c["busy_ns"] += ts - c["since"]
            else:
                c["idle_ns"] += ts - c["since"]
        if out:
            t = thread(out)
            t["on"] = False
            t["blocked"] = ts if state != "running" else None
            t["preempted"] = ts if state == "running" else None
            t["woken"] = None
        c["tid"], c["since"] = inn, ts
        if inn:
            t = thread(inn)
            t["runs"] += 1
            if t["woken"] is not None:
                t["lat"].append(ts - t["woken"])
            if t["blocked"] is not None:
                t["blocked_ns"] += ts - t["blocked"]
                t["blocked"] = None
            if t["preempted"] is not None:
                t["preempted_ns"] += ts - t["preempted"]
                t["preempted"] = None
            t["woken"] = None
            t["on"] = True
    for tid in listed:
        thread(tid)
    want_threads = {}
    for tid, t in th.items():
        lat = sorted(t["lat"])
        want_threads[tid] = dict(
            pid=pid_of.get(tid, 0), tid=tid, cpu_ns=t["cpu_ns"],
            runs=t["runs"], blocked_ns=t["blocked_ns"],
            preempted_ns=t["preempted_ns"], wakeups=t["wakeups"], latency_count=len(lat),
            latency_total_ns=sum(lat), latency_p50_ns=nearest_rank(lat, 50),
            latency_p99_ns=nearest_rank(lat, 99),
            latency_max_ns=lat[-1] if lat else 0)
    for arg in sys.argv[5:]:
        key, ids = arg.split("=")
        ids = {int(x) for x in ids.split(",")}
        want_threads = {tid: t for tid, t in want_threads.items()
                        if t[key] in ids}
    want_processes = {}
    for t in want_threads.values():
        p = want_processes.setdefault(t["pid"], dict(
            pid=t["pid"], threads=0, cpu_ns=0, runs=0, blocked_ns=0,
            preempted_ns=0, wakeups=0, latency_count=0, latency_total_ns=0,
            latency_max_ns=0))
        p["threads"] += 1
        for k in ("cpu_ns", "runs", "blocked_ns", "preempted_ns", "wakeups",
                  "latency_count", "latency_total_ns"):
            p[k] += t[k]
        p["latency_max_ns"] = max(p["latency_max_ns"], t["latency_max_ns"])
    want_cpus = {cpu: dict(cpu=cpu, switches=c["switches"],
                           wakeups=c["wakeups"], busy_ns=c["busy_ns"],
                           idle_ns=c["idle_ns"]) for cpu, c in cpus.items()}

    errors = []

    def same(what, want, have):
        if want != have:
            errors.append("%s: dump says %r, report says %r" % (what, want, have))

    def joined(row):
        return row["category"] + ":" + row["name"] if row["category"] else row["name"]

    if not selected:
        same("records", len(lines), got["records"])
        if times:
            same("start_ns", min(times), got["start_ns"])
    for key, want in (("slices", want_slices), ("syscalls", want_syscalls)):
        have = {joined(r): {k: v for k, v in r.items()
                            if k not in ("category", "name")}
                for r in got[key]}
        same(key, want, have)
        order = [r["total_ns"] for r in got[key]]
        same(key + " sorted by total", sorted(order, reverse=True), order)
    same("longest", want_longest,
         [dict(name=joined(r), **{k: v for k, v in r.items()
                                  if k not in ("category", "name")})
          for r in got["longest"]])
    same("threads", want_threads,
         {r["tid"]: {k: v for k, v in r.items() if k != "name"}
          for r in got["threads"]})
    same("processes", want_processes,
         {r["pid"]: {k: v for k, v in r.items() if k != "name"}
          for r in got["processes"]})
    same("cpus", want_cpus, {r["cpu"]: r for r in got["cpus"]})
    same("drops", {k: v for k, v in drops.items()},
         {(r["pid"], r["tid"], r["buffer"], r["counter"]): r["value"]
          for r in got["drops"]})
    same("providers", providers,
         {r["provider"]: r["buffer_full"] for r in got["providers"]})
    same("unmatched ends", unmatched, got["unmatched_ends"])
    same("unended begins", unended, got["unended_begins"])
    for e in errors:
        print("# " + e)
    print("# %d slices, %d scheduling records, %d threads, %d CPUs compared"
          % (len(slices), len(sched), len(want_threads), len(want_cpus)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
