#!/bin/sh
# No lost events: devmand, stopped with SIGSTOP and given a tiny socket buffer, misses most of a
# flood of loop-device adds/removes and change events (the kernel reports ENOBUFS). When it
# runs again it must resynchronise with sysfs so that /dev and the database end up exactly as
# if nothing had been dropped. Prints the numbers. Usage: overflow-resync.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root loop-control

N=${OVERFLOW_LOOPS:-600}
test_dirs overflow
base=$(( 100000 + ($$ % 200) * 2000 ))
own_loops "$base" "$N"
start_daemon --rules-dir "$src/rules" --receive-buffer=4096 --log-level=notice
adm settle --timeout=30

kill -STOP "$daemon"
"$build/tests/loopctl" add "$base" "$N" || nok "adding $N loop devices"
half=$((N / 2))
"$build/tests/loopctl" remove "$base" "$half" || nok "removing $half loop devices"
changes=0
for i in $(seq "$half" $((half + 99))); do
    echo change > "/sys/devices/virtual/block/loop$((base + i))/uevent" && changes=$((changes + 1))
done
echo "  flooded: $N adds, $half removes, $changes changes ($((2 * N + 2 * half + changes)) uevents) while stopped"
kill -CONT "$daemon"
adm settle --timeout=120 || nok "settle after the flood"

grep -q "dropped uevents" "$tmp/daemon.log" && ok "the daemon saw the overflow" || nok "no overflow was provoked"
grep "Resynchronised" "$tmp/daemon.log" | sed 's/^/  /'

present=0; missing=0; stale=0; nodb=0; staledb=0; exist=0
for i in $(seq 0 $((N - 1))); do
    idx=$((base + i))
    if [ -e "/sys/devices/virtual/block/loop$idx" ]; then
        exist=$((exist + 1))
        mm=$(cat "/sys/devices/virtual/block/loop$idx/dev")
        if [ -b "$dev/loop$idx" ] && [ "$(readlink "$dev/block/$mm")" = "../loop$idx" ]; then
            present=$((present + 1))
        else
            missing=$((missing + 1))
        fi
        [ -e "$run/data/b$mm" ] || nodb=$((nodb + 1))
    else
        [ -e "$dev/loop$idx" ] && stale=$((stale + 1))
        [ -e "$run/data/b7:$idx" ] && staledb=$((staledb + 1))
    fi
done
echo "  recovered: $present nodes present, $missing missing, $stale stale; $nodb without and $staledb stale database entries"
# (counted against what exists: another user of the kernel may own an index in our range)
[ $missing -eq 0 ] && [ $present -eq $exist ] && [ $exist -ge $((N - half)) ] \
    && ok "every remaining loop device has its node and link ($present)" || nok "$missing nodes missing"
[ $stale -eq 0 ] && ok "no node of a removed loop device" || nok "$stale stale nodes"
[ $nodb -eq 0 ] && [ $staledb -eq 0 ] && ok "database matches sysfs" || nok "database: $nodb missing, $staledb stale"
[ -e "$run/queue" ] && nok "queue file left" || ok "queue empty"
kill -0 "$daemon" && ok "daemon alive" || nok "daemon died"
results
