#!/bin/sh
# Soak (suite soak, not in the default run): SOAK_EVENTS (default 100 000) uevents through one
# running devmand (private /dev, run dir and network namespace, devman's rules plus a RUN
# program for every soak device): rounds of loop device adds, change writes and removes.
# After a warm-up round the daemon's idle RSS, open fds and children are measured; after the
# soak (settled, idle) they must be the same: RSS within SOAK_RSS_SLACK_KIB (default 16) KiB,
# the same number of fds, no zombie, no child. Every soak device's node, link and database
# entry must be gone. Prints the numbers. Usage: soak.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root loop-control
in_private_namespaces "$@"
EVENTS=${SOAK_EVENTS:-100000}
SLACK=${SOAK_RSS_SLACK_KIB:-16}
B=200                      # loop devices per round: B adds, 2B changes, B removes
per_round=$((4 * B))
rounds=$(( (EVENTS + per_round - 1) / per_round ))
test_dirs soak
rules=$tmp/rules
mkdir -p "$rules"
cp "$src"/rules/*.rules "$rules"/
# loop6NNNNN (the rule below matches only these): a range where no device exists now (other
# tests and tools on the machine use loop indices too)
range_free() { i=0; while [ $i -lt $B ]; do [ -e "/sys/devices/virtual/block/loop$(($1 + i))" ] && return 1; i=$((i + 1)); done; }
k=0
while :; do
    base=$(( 600000 + (($$ + k) % 300) * 256 ))
    range_free $base && break
    k=$((k + 1))
    [ $k -ge 300 ] && skip "no free range of loop indices"
done
own_loops "$base" "$B"
echo "KERNEL==\"loop6[0-9][0-9][0-9][0-9][0-9]\", SYMLINK+=\"soak/%k\", RUN+=\"/bin/true\"" > "$rules/99-soak.rules"
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$daemon/status"; }
fds() { ls "/proc/$daemon/fd" | wc -l; }
kids() { cat "/proc/$daemon/task/$daemon/children" | wc -w; }
zombies() { ps --ppid "$daemon" -o stat= | grep -c Z; }
settle_idle() { adm settle --timeout=300; sleep 1; adm settle --timeout=60; }

round() {
    # A round that fails frees its range, or every later round would fail on its leftovers.
    if ! "$build/tests/loopctl" add "$base" $B; then
        remove_all; sleep 0.5
        "$build/tests/loopctl" add "$base" $B || { remove_all; return 1; }
    fi
    i=0
    while [ $i -lt $((2 * B)) ]; do
        echo change > "/sys/devices/virtual/block/loop$((base + i % B))/uevent"
        i=$((i + 1))
    done
    # builtins (blkid) hold the devices open while they run, ours and those of any other
    # device manager on the machine: a remove then fails with EBUSY. Settle first, then retry
    # what is still busy for up to 60 s.
    adm settle --timeout=300 || { remove_all; return 1; }
    remove_all
}

remove_all() { remove_loop_range "$build" "$base" "$B"; }

start_daemon --rules-dir "$rules" --log-level=warning --children-max=8
round || nok "warm-up round"
settle_idle
rss0=$(rss); fds0=$(fds); kids0=$(kids)
echo "  after warm-up ($per_round events): RSS $rss0 KiB, $fds0 fds, $kids0 children"
start=$(date +%s)
r=0; failed_rounds=0
while [ $r -lt $rounds ]; do
    round 2>>"$tmp/rounds.err" || failed_rounds=$((failed_rounds + 1))
    r=$((r + 1))
done
settle_idle
secs=$(( $(date +%s) - start ))
rss1=$(rss); fds1=$(fds); kids1=$(kids); z=$(zombies)
echo "  soak: $rounds rounds, $((rounds * per_round)) uevents in $secs s; RSS $rss0 -> $rss1 KiB, fds $fds0 -> $fds1, children $kids1, zombies $z"
[ $failed_rounds -eq 0 ] && ok "every round ran" || { nok "$failed_rounds rounds failed"; head -n 5 "$tmp/rounds.err"; }
kill -0 "$daemon" && ok "daemon alive" || nok "daemon died"
[ $((rss1 - rss0)) -le "$SLACK" ] && ok "idle RSS after the soak within $SLACK KiB of before ($((rss1 - rss0)) KiB)" \
    || nok "idle RSS grew by $((rss1 - rss0)) KiB"
[ "$fds1" -eq "$fds0" ] && ok "no fd leak ($fds1 fds)" || nok "fds $fds0 -> $fds1"
[ "$z" -eq 0 ] && [ "$kids1" -eq 0 ] && ok "no zombie, no child left" || nok "$kids1 children, $z zombies"
left=$(find "$dev" -name "loop6[0-9][0-9][0-9][0-9][0-9]" | wc -l)
leftdb=$(find "$run/data" -name 'b7:6[0-9][0-9][0-9][0-9][0-9]' | wc -l)
[ "$left" -eq 0 ] && [ "$leftdb" -eq 0 ] && [ -z "$(ls -A "$dev/soak" 2>/dev/null)" ] \
    && ok "no node, link or database entry of a soak device is left" || nok "$left nodes, $leftdb entries left"
echo "  daemon log: $(wc -l < "$tmp/daemon.log") lines"
[ "$(grep -c -i -e 'sanitizer' -e 'assert' "$tmp/daemon.log")" -eq 0 ] && ok "no sanitizer or assertion report" \
    || nok "sanitizer/assertion reports in the log"
results || tail -n 30 "$tmp/daemon.log"
[ $fail -eq 0 ]
