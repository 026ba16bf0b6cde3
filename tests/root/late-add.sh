#!/bin/sh
# A backlog must not bring removed devices back (root, live kernel): devmand (stock rules, whose
# blkid opens every block node) is stopped while loop devices are added and removed again, then
# continued. Opening the node of a removed loop device would make the kernel create it again
# (legacy block autoload): every device of the range must be gone once the backlog drained.
# Private mount and network namespaces, private /dev and run dirs.
# Usage: late-add.sh BUILDDIR
set -u
build=${1:?build dir}
src=${DEVMAN_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
[ "$(id -u)" -eq 0 ] || { echo "not root: skipped"; exit 77; }
[ -w /dev/loop-control ] || { echo "no /dev/loop-control: skipped"; exit 77; }
if [ -z "${DEVMAN_LATE_NS:-}" ]; then
    DEVMAN_LATE_NS=1 exec unshare --net --mount --propagation private "$0" "$@"
fi
N=32
tmp=$(mktemp -d /tmp/devman-late.XXXXXX)
dev=$tmp/dev; run=$tmp/run
mkdir -p "$dev"
if [ -d /lib/udev/rules.d ] && [ -n "$(ls /lib/udev/rules.d)" ]; then rules=/lib/udev/rules.d; else rules=$src/rules; fi
base=$(( 700000 + ($$ % 200) * N ))
daemon=""
. "$src/tests/root/loop-range.sh"
cleanup() {
    [ -n "$daemon" ] && kill -CONT "$daemon" 2>/dev/null
    [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
    remove_loop_range "$build" "$base" "$N" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
adm() { "$build/daemon/devmanadm" --dev "$dev" --run "$run" "$@"; }
fail=0
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; fail=1; }

"$build/daemon/devmand" --dev "$dev" --run "$run" --rules-dir "$rules" --log-level=err &
daemon=$!
for _ in $(seq 200); do adm control --ping --timeout=1 2>/dev/null && break; sleep 0.05; done
adm settle --timeout=60

kill -STOP "$daemon"
"$build/tests/loopctl" add "$base" $N || { nok "loop devices added"; exit 1; }
remove_loop_range "$build" "$base" "$N" || { nok "loop devices removed"; exit 1; }
kill -CONT "$daemon"
adm settle --timeout=60 && ok "backlog drained" || nok "backlog drained"
sleep 0.5
adm settle --timeout=60
left=0; i=0
while [ $i -lt $N ]; do
    [ -e "/sys/devices/virtual/block/loop$((base + i))" ] && left=$((left + 1))
    i=$((i + 1))
done
[ $left -eq 0 ] && ok "no removed device came back" || nok "$left of $N removed loop devices came back"
nodes=$(ls "$dev" | grep -c "^loop" || true)
[ "$nodes" -eq 0 ] && ok "no node left in /dev" || nok "$nodes loop nodes left in /dev"
exit $fail
