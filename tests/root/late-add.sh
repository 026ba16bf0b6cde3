#!/bin/sh
# A backlog must not bring removed devices back (root, live kernel): devmand (stock rules, whose
# blkid opens every block node) is stopped while loop devices are added and removed again, then
# continued. Opening the node of a removed loop device would make the kernel create it again
# (legacy block autoload): every device of the range must be gone once the backlog drained.
# Private mount and network namespaces, private /dev and run dirs.
# Usage: late-add.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root loop-control
in_private_namespaces "$@"
N=32
test_dirs late
rules=$(stock_rules)
base=$(( 700000 + ($$ % 200) * N ))
own_loops "$base" "$N"

start_daemon --rules-dir "$rules" --log-level=err
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
results
