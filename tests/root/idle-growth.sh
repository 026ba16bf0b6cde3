#!/bin/sh
# No idle growth (root, live kernel): devmand with Debian's stock rules (devman's own when they
# are not installed) in private mount and network namespaces, private /dev and run dirs. After a
# warm-up storm its idle RSS is measured; after two storms of 512 loop devices added and
# removed (2 048 uevents each) the idle RSS must be the same within 8 KiB (IDLE_RSS_SLACK_KIB):
# the idle trim gives back what the storms used. Prints the numbers.
#
# Other tests add and remove loop devices too, and the daemon models them: a measurement is
# only compared when the machine's device count is the same at both ends; otherwise the pair
# is measured again (3 tries), and a machine that never holds still is reported as skipped.
# Usage: idle-growth.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root loop-control
if ldd "$build/daemon/devmand" 2>/dev/null | grep -q -e libasan -e libtsan; then
    skip "sanitizer build: RSS would measure the sanitizer's allocator"
fi
in_private_namespaces "$@"
SLACK=${IDLE_RSS_SLACK_KIB:-8}
N=512
test_dirs idle
rules=$(stock_rules)
base=$(( 800000 + ($$ % 200) * N ))
own_loops "$base" "$N"
devices() { ls /sys/dev/block /sys/dev/char | wc -l; }

# builtins (blkid) of this or another device manager may hold a device open: retry busy ones.
# One removal waits for the kernel's teardown (tens of ms): 16 removers at once.
remove_all() {
    k=0; removers=""
    while [ $k -lt 16 ]; do
        "$build/tests/loopctl" remove $((base + k * N / 16)) $((N / 16)) 2>/dev/null &
        removers="$removers $!"
        k=$((k + 1))
    done
    wait $removers
    remove_loop_range "$build" "$base" "$N"
}

storm() {
    "$build/tests/loopctl" add "$base" $N || return 1
    adm settle --timeout=120 || return 1
    remove_all || return 1
    adm settle --timeout=120
}

# Idle RSS: the trim runs 250 ms after the queue empties; wait for two equal readings.
idle_rss() {
    adm settle --timeout=60 >/dev/null
    sleep 0.6
    prev=$(awk '/^VmRSS:/ { print $2 }' "/proc/$daemon/status")
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        sleep 0.3
        cur=$(awk '/^VmRSS:/ { print $2 }' "/proc/$daemon/status")
        [ "$cur" = "$prev" ] && break
        prev=$cur
    done
    echo "$cur"
}

start_daemon --rules-dir "$rules" --log-level=warning
echo "  rules: $rules; loop devices $base..$((base + N - 1))"
storm || { echo "FAIL - warm-up storm"; exit 1; }

result=""
for attempt in 1 2 3; do
    n0=$(devices); rss0=$(idle_rss)
    storm && storm || { echo "FAIL - storm"; exit 1; }
    rss1=$(idle_rss); n1=$(devices)
    echo "  attempt $attempt: idle RSS $rss0 KiB before, $rss1 KiB after 2 x $N loop devices added and removed" \
        "($((rss1 - rss0)) KiB); devices on the machine $n0 -> $n1"
    if [ "$n0" -eq "$n1" ]; then result=$((rss1 - rss0)); break; fi
done
kill -0 "$daemon" || { echo "FAIL - daemon died"; tail -n 20 "$tmp/daemon.log"; exit 1; }
if [ -z "$result" ]; then
    echo "other tests kept adding and removing devices: nothing comparable measured: skipped"
    exit 77
fi
abs=${result#-}
if [ "$abs" -le "$SLACK" ]; then
    ok "idle RSS after the storms within $SLACK KiB of before ($result KiB)"
else
    nok "idle RSS changed by $result KiB (allowed: $SLACK)"
fi
results
