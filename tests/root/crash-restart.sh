#!/bin/sh
# Crash and restart: devmand is killed with SIGKILL in the middle of a storm of loop-device
# adds; while it is down some devices go away and others appear. The restarted daemon must
# reconcile: stale nodes, links, claims and database entries of gone devices removed, devices
# that appeared processed, and nothing else disturbed. Usage: crash-restart.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root loop-control

N=300
test_dirs crash
base=$(( 300000 + ($$ % 200) * 1000 ))
own_loops "$base" $((N + 50))
# a link for each of our loop devices, so link claims of gone devices have to be dropped too
mkdir -p "$tmp/rules"
echo 'SUBSYSTEM=="block", KERNEL=="loop[3-9][0-9][0-9][0-9][0-9][0-9]", SYMLINK+="crashtest/%k"' > "$tmp/rules/99-crashtest.rules"
start() { start_daemon --rules-dir "$src/rules" --rules-dir "$tmp/rules" --log-level=notice; }

start
adm settle --timeout=30
"$build/tests/loopctl" add "$base" "$N" &
storm=$!
sleep 0.15
kill -9 "$daemon"; wait "$daemon" 2>/dev/null
daemon=""
wait $storm
before=$(ls "$dev" | grep -c "^loop")
echo "  killed mid-storm: $before of $N loop nodes were made"
# while it is down: the first 100 go away, 50 new ones appear
"$build/tests/loopctl" remove "$base" 100
"$build/tests/loopctl" add $((base + N)) 50
start
adm settle --timeout=60 || nok "settle after restart"
grep "Reconciled" "$tmp/daemon.log" | sed 's/^/  /'

present=0; missing=0; stale=0; staledb=0; staledevnum=0; links=0; stalelinks=0
for i in $(seq 0 $((N + 49))); do
    idx=$((base + i))
    if [ -e "/sys/devices/virtual/block/loop$idx" ]; then
        mm=$(cat "/sys/devices/virtual/block/loop$idx/dev")
        if [ -b "$dev/loop$idx" ] && [ -e "$run/data/b$mm" ]; then present=$((present + 1)); else missing=$((missing + 1)); fi
        [ "$(readlink "$dev/crashtest/loop$idx")" = "../loop$idx" ] && links=$((links + 1))
    else
        [ -e "$dev/loop$idx" ] && stale=$((stale + 1))
        [ -e "$run/data/b7:$idx" ] && staledb=$((staledb + 1))
        [ -e "$dev/block/7:$idx" ] && staledevnum=$((staledevnum + 1))
        [ -L "$dev/crashtest/loop$idx" ] && stalelinks=$((stalelinks + 1))
    fi
done
echo "  after restart: $present present, $missing missing, $stale stale nodes, $staledb stale entries, $staledevnum stale block/M:m links"
# (at least ours: another user of the kernel may own an index in the range)
[ $present -ge $((N - 100 + 50)) ] && [ $missing -eq 0 ] && ok "every loop device that exists is processed ($present)" \
    || nok "$missing loop devices not processed, $present present"
[ $stale -eq 0 ] && [ $staledevnum -eq 0 ] && ok "no node or link of a gone device" || nok "stale nodes/links"
[ $staledb -eq 0 ] && ok "no database entry of a gone device" || nok "$staledb stale entries"
[ $links -eq $present ] && ok "every present device has its rule link ($links)" || nok "$links of $present rule links"
[ $stalelinks -eq 0 ] && ok "no rule link of a gone device" || nok "$stalelinks stale rule links"
ls "$run/links" 2>/dev/null | grep -c crashtest | sed 's/^/  claims left: /'

[ -e "$dev/null" ] && ok "other nodes untouched" || nok "/dev/null missing"
ls "$run/data" | grep -q '^\.#' && nok "half-written database files" || ok "no half-written database files"
stop_daemon; rc=$?
[ $rc -eq 0 ] && ok "clean exit" || nok "exit status $rc"
results
