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
src=${DEVMAN_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
[ "$(id -u)" -eq 0 ] || { echo "not root: skipped"; exit 77; }
[ -w /dev/loop-control ] || { echo "no /dev/loop-control: skipped"; exit 77; }
if ldd "$build/daemon/devmand" 2>/dev/null | grep -q -e libasan -e libtsan; then
    echo "sanitizer build: RSS would measure the sanitizer's allocator: skipped"; exit 77
fi
if [ -z "${DEVMAN_IDLE_NS:-}" ]; then
    DEVMAN_IDLE_NS=1 exec unshare --net --mount --propagation private "$0" "$@"
fi
SLACK=${IDLE_RSS_SLACK_KIB:-8}
N=512
tmp=$(mktemp -d /tmp/devman-idle.XXXXXX)
dev=$tmp/dev; run=$tmp/run
mkdir -p "$dev"
if [ -d /lib/udev/rules.d ] && [ -n "$(ls /lib/udev/rules.d)" ]; then rules=/lib/udev/rules.d; else rules=$src/rules; fi
base=$(( 800000 + ($$ % 200) * N ))
daemon=""
cleanup() {
    [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
    remove_all 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
adm() { "$build/daemon/devmanadm" --dev "$dev" --run "$run" "$@"; }
devices() { ls /sys/dev/block /sys/dev/char | wc -l; }

# builtins (blkid) of this or another device manager may hold a device open: retry busy ones.
# One removal waits for the kernel's teardown (tens of ms): 16 removers at once.
. "$src/tests/root/loop-range.sh"
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

"$build/daemon/devmand" --dev "$dev" --run "$run" --rules-dir "$rules" --log-level=warning \
    2>"$tmp/daemon.log" &
daemon=$!
for _ in $(seq 200); do adm control --ping --timeout=1 2>/dev/null && break; sleep 0.05; done
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
    echo "ok - idle RSS after the storms within $SLACK KiB of before ($result KiB)"
    echo "1 passed, 0 failed"
    exit 0
fi
echo "FAIL - idle RSS changed by $result KiB (allowed: $SLACK)"
echo "0 passed, 1 failed"
exit 1
