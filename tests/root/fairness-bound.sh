#!/bin/sh
# A storm must not starve events already queued (root, live kernel): the daemon reads at most
# READ_BOUND uevents from the kernel socket before queued events proceed (manager.c: on_kernel()
# reads 1024 and then yields to the start of events; a batch re-reads only while the queue is
# short). devmand (empty rules, debug log) is stopped while 1200 uevents wait in its socket —
# "change" written to the uevent files of loop devices of our own — then continued; its log
# must show no run of more than READ_BOUND "Queueing" lines before the first event is done
# or between two events done. (A settle or ping request reads the socket whole, once: it is
# not sent until the backlog drained.)
# Private mount and network namespaces, private /dev and run dirs.
# Usage: fairness-bound.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root loop-control
in_private_namespaces "$@"
READ_BOUND=1024
LOOPS=8
ROUNDS=150 # LOOPS * ROUNDS uevents: more than READ_BOUND, so that an unbounded read shows
test_dirs fairness
mkdir -p "$tmp/rules"
base=$(( 720000 + ($$ % 200) * LOOPS ))
own_loops "$base" "$LOOPS"
"$build/tests/loopctl" add "$base" $LOOPS || { nok "loop devices added"; exit 1; }

start_daemon --rules-dir "$tmp/rules" --log-level=debug || { nok "daemon started"; exit 1; }
adm settle --timeout=60
mark=$(wc -l <"$tmp/daemon.log")

kill -STOP "$daemon"
r=0
while [ $r -lt $ROUNDS ]; do
    i=0
    while [ $i -lt $LOOPS ]; do
        echo change >"/sys/devices/virtual/block/loop$((base + i))/uevent"
        i=$((i + 1))
    done
    r=$((r + 1))
done
kill -CONT "$daemon"
# no settle until the backlog drained: a settle request (like a ping) first reads whatever the
# kernel socket holds, so that its answer covers every event sent before it, and would read the
# whole backlog at once
drained() { [ "$(tail -n +"$((mark + 1))" "$tmp/daemon.log" | grep -c "(change /devices/virtual/block/loop.*) done")" -ge $((LOOPS * ROUNDS)) ]; }
i=0
while ! drained && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
check "backlog drained" drained
adm settle --timeout=60

# our devices' events only: a foreign event queued meanwhile is not part of the count, but it
# could only lengthen a run of reads, never shorten one
tail -n +"$((mark + 1))" "$tmp/daemon.log" | grep "/devices/virtual/block/loop" |
    awk -v bound=$READ_BOUND '
        /Queueing change / { queued++; run++; next }
        / Event [0-9]+ \(change / && / done/ {
            done++
            if (run > longest) longest = run
            run = 0
        }
        END { printf "%d %d %d\n", queued, done, longest }' >"$tmp/counts"
read -r queued finished longest <"$tmp/counts"
echo "# $queued queued, $finished done, longest run of reads between events done: $longest"
check "every uevent was queued" [ "$queued" -ge $((LOOPS * ROUNDS)) ]
check "every event was done" [ "$finished" -ge $((LOOPS * ROUNDS)) ]
check "at most $READ_BOUND uevents read before a queued event proceeds" [ "$longest" -le $READ_BOUND ]
check "reading and running interleave (the bound was reached)" [ "$longest" -ge $((READ_BOUND / 2)) ]
results
