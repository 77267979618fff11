#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Description: `fxtrace check --perfetto`'s model of Perfetto's importer
# (tools/fxtrace/perfetto.c) keyed counter series, async slices and the
# names JSON ends match by mixed FNV-1a hashes, so names Perfetto tells
# apart by their bytes passed for one: two names of one FNV-1a
# ("323a830bbc7e3a52" and "005fc1b9fb9780e7"), and pairs the mixing made
# equal (counter "x" argument "y" and counter "y" argument "x"; category
# "x" name "y" and category "y" name "x").  Counter series also differ
# from Perfetto's, which names each "NAME:ARGUMENT:ID": "a:b" argument "c"
# and "a" argument "b:c" are one track there.  Async slices were matched
# per process and in file order; Perfetto keeps them on tracks of the
# correlation id alone, nests a begin of an open id, gives a free track to
# the next id of its first name, and imports in time order.  An end of an
# outer async slice leaves the slices inside it open.  A JSON "X" that
# overlaps an open slice partially goes to an overflow track of its thread
# and is kept; the model dropped it, as FXT's complete event is.  Each crafted
# trace goes to a stand-in trace processor that prints what Perfetto v58.2
# shows for it (read from its importers: fuchsia_trace_parser.cc,
# json_trace_parser.cc, track_compressor.cc, slice_tracker.cc); the check
# must agree and print the model's figures exactly.  No real trace
# processor needed.  Prints TAP.

set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fxtrace=$top/${B:-build}/bin/fxtrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

python3 - "$tmp" <<'EOF_PY'
import struct
import sys


def string(text):
    """An inline string: its ref and its words."""
    b = text.encode()
    padded = b + b"\0" * (-len(b) % 8)
    return (0x8000 | len(b) if b else 0,
            list(struct.unpack("<%dQ" % (len(padded) // 8), padded)))


def event(kind, ts, cat, name, args=(), trailing=(), pid=1):
    """An event of thread pid/2 with inline strings and int32 arguments."""
    cat_ref, cat_words = string(cat)
    name_ref, name_words = string(name)
    words = [ts, pid, 2] + cat_words + name_words
    for arg, value in args:
        arg_ref, arg_words = string(arg)
        words += [1 | (1 + len(arg_words)) << 4 | arg_ref << 16 |
                  value << 32] + arg_words
    words += trailing
    return [4 | (1 + len(words)) << 4 | kind << 16 | len(args) << 20 |
            cat_ref << 32 | name_ref << 48] + words


COUNTER, BEGIN, END, INSTANT, COMPLETE = 1, 2, 3, 0, 4
ASYNC_BEGIN, ASYNC_INSTANT, ASYNC_END = 5, 6, 7
A, B = "323a830bbc7e3a52", "005fc1b9fb9780e7"	# one FNV-1a 64
traces = {
    # Six series, five tracks: "A:v:0", "B:v:0", "x:y:0", "y:x:0", "a:b:c:0".
    "counters": [
        event(COUNTER, 1, "", A, [("v", 1)], [0]),
        event(COUNTER, 2, "", B, [("v", 1)], [0]),
        event(COUNTER, 3, "", "x", [("y", 1)], [0]),
        event(COUNTER, 4, "", "y", [("x", 1)], [0]),
        event(COUNTER, 5, "", "a:b", [("c", 1)], [0]),
        event(COUNTER, 6, "", "a", [("b:c", 1)], [0]),
    ],
    # The end is on the begin's track (v58.2's track_compressor.cc keys a
    # legacy async track by its id and the first name seen with it), and
    # slice_tracker.cc's End closes only a slice of its category and name:
    # the begin stays open.
    "async": [
        event(ASYNC_BEGIN, 1, "c", A, (), [7]),
        event(ASYNC_END, 2, "c", B, (), [7]),
        event(INSTANT, 10, "c", "i"),
    ],
    # Async ids of processes 1 and 2.  InternLegacyAsyncTrack() keys the
    # track by the id alone (trace_id_is_process_scoped false; JSON "id"
    # too), in the set of the first name seen with the id, so process 2's
    # end closes process 1's begin; a begin of an open id nests
    # (BeginInternal's nest_count), the ends close inner then outer.  Id 8's
    # end "y" closes nothing but leaves the track with no begin open, so
    # GetOrCreateTrackForCookie gives it to id 9, whose first name is also
    # "x": its end closes id 8's begin.  Id 21's first name is "n": its end
    # "m" is on another set than id 20's track and closes nothing.  Id 30's
    # end comes first in the file but not in time: Perfetto sorts events by
    # time before it imports them, so it closes the begin.  Seven slices (6
    # begins, 1 instant); only id 20's "m" stays open.
    "async-ids": [
        event(ASYNC_BEGIN, 1, "c", "a", (), [7]),
        event(ASYNC_END, 2, "c", "a", (), [7], pid=2),
        event(ASYNC_BEGIN, 3, "c", "a", (), [7]),
        event(ASYNC_BEGIN, 4, "c", "a", (), [7]),
        event(ASYNC_END, 5, "c", "a", (), [7], pid=2),
        event(ASYNC_END, 6, "c", "a", (), [7], pid=2),
        event(ASYNC_BEGIN, 7, "c", "x", (), [8]),
        event(ASYNC_END, 8, "c", "y", (), [8]),
        event(ASYNC_END, 9, "c", "x", (), [9], pid=2),
        event(ASYNC_BEGIN, 10, "c", "m", (), [20]),
        event(ASYNC_END, 11, "c", "k", (), [20]),
        event(ASYNC_INSTANT, 12, "c", "n", (), [21]),
        event(ASYNC_END, 13, "c", "m", (), [21]),
        event(ASYNC_END, 15, "c", "o", (), [30]),
        event(ASYNC_BEGIN, 14, "c", "o", (), [30]),
    ],
    # An end of an outer begin: slice_tracker.cc's CompleteSliceBegin()
    # closes it, CompleteSliceFinalize() pops it only from the top, so the
    # begin inside stays open until MaybeCloseStack() cuts it at a later
    # event of the track.  Id 7's outer end is its track's last event: b
    # keeps dur -1.  Id 8's end of d comes at the time of its outer end,
    # when MaybeCloseStack() cuts nothing (new_ts <= end_ts): it closes d.
    # Four slices, one open.
    "async-end-outer": [
        event(ASYNC_BEGIN, 1, "c", "a", (), [7]),
        event(ASYNC_BEGIN, 2, "c", "b", (), [7]),
        event(ASYNC_END, 3, "c", "a", (), [7]),
        event(ASYNC_BEGIN, 4, "c", "e", (), [8]),
        event(ASYNC_BEGIN, 5, "c", "d", (), [8]),
        event(ASYNC_END, 6, "c", "e", (), [8]),
        event(ASYNC_END, 6, "c", "d", (), [8]),
    ],
    # Complete events [1, 5) and [3, 7) of one thread overlap partially:
    # FXT's is dropped (Scoped() without overlap_out), JSON's "X" goes to
    # the thread's overflow track (json_trace_parser.cc, case 'X') and is
    # kept.
    "overlap": [
        event(COMPLETE, 1, "c", "a", (), [5]),
        event(COMPLETE, 3, "c", "b", (), [7]),
    ],
    # In JSON an end closes only a begin of its category and name: neither.
    "ends": [
        event(BEGIN, 1, "c", A),
        event(END, 2, "c", B),
        event(BEGIN, 3, "x", "y"),
        event(END, 4, "y", "x"),
        event(INSTANT, 10, "c", "i"),
    ],
}
for name, records in traces.items():
    words = [0x0016547846040010] + [w for r in records for w in r]
    with open("%s/%s.fxt" % (sys.argv[1], name), "wb") as f:
        f.write(struct.pack("<%dQ" % len(words), *words))
EOF_PY

# The stand-in: the query's result as trace_processor_shell prints it, the
# figures from $FIGURES (enum figure's order), no problem stats, no names.
cat >"$tmp/trace_processor_shell" <<'EOF_TP'
#!/bin/bash
echo '"thread_slices","...","trace_type"'
echo "$FIGURES,\"\",\"fuchsia\""
printf '\n"tid","hex(name)"\n\n"pid","hex(name)"\n'
EOF_TP
chmod +x "$tmp/trace_processor_shell"

# agrees TRACE MODE FIGURES MODEL [STAT]: check --perfetto=MODE agrees
# with a Perfetto that shows FIGURES, and prints MODEL, the model's
# figures, after STAT, the stat it predicts (NAME=VALUE), if any.
agrees() {
	local trace=$1 mode=$2 out rc tag='' predicts=''
	[[ $mode == json ]] && tag=" (json)"
	[[ ${5-} ]] && predicts="$tmp/$trace.fxt: perfetto: fxtrace predicts $5
"
	out=$(FIGURES=$3 FXTRACE_TRACE_PROCESSOR="$tmp/trace_processor_shell" \
		"$fxtrace" check --perfetto="$mode" "$tmp/$trace.fxt" 2>&1)
	rc=$?
	n=$((n + 1))
	if [[ $rc == 0 && $out == "$predicts$tmp/$trace.fxt: perfetto: $4
$tmp/$trace.fxt: perfetto$tag: agrees" ]]; then
		echo "ok $n - $trace ($mode): the model agrees"
	else
		echo "not ok $n - $trace ($mode): exit $rc, output:"
		printf '%s\n' "$out" | sed 's/^/# /'
		failed=1
	fi
}

agrees counters fxt 0,0,0,0,0,0,6,5,0,0,0,0,0,1,6 \
	"thread_slices=0 thread_slices_open=0 thread_slices_dur0=0 thread_slices_dur_sum=0 async_slices=0 async_slices_open=0 counters=6 counter_tracks=5 flows=0 named_threads=0 named_processes=0 sched_slices=0 thread_states=0 start_ts=1 end_ts=6"
agrees async fxt 1,0,1,0,1,1,0,0,0,0,0,0,0,1,10 \
	"thread_slices=1 thread_slices_open=0 thread_slices_dur0=1 thread_slices_dur_sum=0 async_slices=1 async_slices_open=1 counters=0 counter_tracks=0 flows=0 named_threads=0 named_processes=0 sched_slices=0 thread_states=0 start_ts=1 end_ts=10"
agrees async-ids fxt 0,0,0,0,7,1,0,0,0,0,0,0,0,1,15 \
	"thread_slices=0 thread_slices_open=0 thread_slices_dur0=0 thread_slices_dur_sum=0 async_slices=7 async_slices_open=1 counters=0 counter_tracks=0 flows=0 named_threads=0 named_processes=0 sched_slices=0 thread_states=0 start_ts=1 end_ts=15"
agrees async-ids json 0,0,0,0,7,1,0,0,0,0,0,0,0,1,15 \
	"thread_slices=0 thread_slices_open=0 thread_slices_dur0=0 thread_slices_dur_sum=0 async_slices=7 async_slices_open=1 counters=0 named_threads=0 named_processes=0 start_ts=1 end_ts=15"
agrees async-end-outer fxt 0,0,0,0,4,1,0,0,0,0,0,0,0,1,6 \
	"thread_slices=0 thread_slices_open=0 thread_slices_dur0=0 thread_slices_dur_sum=0 async_slices=4 async_slices_open=1 counters=0 counter_tracks=0 flows=0 named_threads=0 named_processes=0 sched_slices=0 thread_states=0 start_ts=1 end_ts=6"
agrees async-end-outer json 0,0,0,0,4,1,0,0,0,0,0,0,0,1,6 \
	"thread_slices=0 thread_slices_open=0 thread_slices_dur0=0 thread_slices_dur_sum=0 async_slices=4 async_slices_open=1 counters=0 named_threads=0 named_processes=0 start_ts=1 end_ts=6"
agrees overlap fxt 1,0,0,4,0,0,0,0,0,0,0,0,0,1,5 \
	"thread_slices=1 thread_slices_open=0 thread_slices_dur0=0 thread_slices_dur_sum=4 async_slices=0 async_slices_open=0 counters=0 counter_tracks=0 flows=0 named_threads=0 named_processes=0 sched_slices=0 thread_states=0 start_ts=1 end_ts=5" \
	slice_drop_overlapping_complete_event=1
agrees overlap json 2,0,0,8,0,0,0,0,0,0,0,0,0,1,7 \
	"thread_slices=2 thread_slices_open=0 thread_slices_dur0=0 thread_slices_dur_sum=8 async_slices=0 async_slices_open=0 counters=0 named_threads=0 named_processes=0 start_ts=1 end_ts=7" \
	slice_spill_overlapping_complete_event=1
agrees ends json 3,2,1,0,0,0,0,0,0,0,0,0,0,1,10 \
	"thread_slices=3 thread_slices_open=2 thread_slices_dur0=1 thread_slices_dur_sum=0 async_slices=0 async_slices_open=0 counters=0 named_threads=0 named_processes=0 start_ts=1 end_ts=10"

echo "1..$n"
exit $failed
