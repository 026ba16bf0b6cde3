#!/bin/sh
# Live kernel, as root: node modes and owners on an empty tmpfs /dev (issue 25).
# Rules shaped like Debian's 50-udev-default.rules: an IMPORT{program} and builtins for every
# event, then MODE/GROUP only for "add" (ACTION!="add" skips them). Checked on disk:
#  - coldplug (trigger --type=subsystems, --type=devices, settle) gives the rules' mode and group;
#  - a loop device added through /dev/loop-control gets them from its first event;
#  - a later "change" event, whose rules decide nothing about access, leaves them as they are,
#    but for the kernel's DEVMODE (udev changes only what rules or the kernel decide; devman
#    used to reset such a node to 0600 root:root, or DEVMODE root:root).
# Usage: node-access-live.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root loop-control
getent group disk >/dev/null || skip "no group disk"

test_dirs access
rules=$tmp/rules
mkdir -p "$rules"
base=$(( 3600 + ($$ % 500) * 2 ))
own_loops "$base" 1

cat > "$rules/50-access.rules" <<'EOF'
ACTION=="remove", GOTO="access_end"
SUBSYSTEM=="block", KERNEL=="loop*", IMPORT{program}="/bin/echo ACCESS_TEST_PROGRAM=1"
SUBSYSTEM=="block", IMPORT{builtin}="path_id"
SUBSYSTEM=="mem", IMPORT{builtin}="hwdb --subsystem=mem"
ACTION!="add", GOTO="access_end"
SUBSYSTEM=="block", KERNEL=="loop*", MODE="0664", GROUP="disk"
SUBSYSTEM=="mem", KERNEL=="full", MODE="0604", GROUP="disk"
LABEL="access_end"
EOF

start_daemon --rules-dir "$rules" --log-level=notice
access() { stat -c '%a %U:%G' "$1" 2>/dev/null || echo absent; }

adm trigger --type=subsystems --action=add
adm trigger --type=devices --action=add
adm settle --timeout=60 || nok "settle timed out after coldplug"
got=$(access "$dev/full")
[ "$got" = "604 root:disk" ] && ok "coldplug: /dev/full $got" || nok "coldplug: /dev/full is $got, want 604 root:disk"
got=$(access "$dev/loop0")
if [ -e /sys/class/block/loop0 ]; then
    [ "$got" = "664 root:disk" ] && ok "coldplug: /dev/loop0 $got" || nok "coldplug: /dev/loop0 is $got, want 664 root:disk"
fi

# a change event: rules run (program, builtins) but decide nothing about access: the kernel's
# DEVMODE (0666 for full) applies, the group stays
echo change > /sys/devices/virtual/mem/full/uevent
adm settle --timeout=30
got=$(access "$dev/full")
[ "$got" = "666 root:disk" ] && ok "after change: /dev/full $got" || nok "after change: /dev/full is $got, want 666 root:disk"

if "$build/tests/loopctl" add "$base" 1; then
    adm settle --timeout=30
    node=$dev/loop$base
    got=$(access "$node")
    [ "$got" = "664 root:disk" ] && ok "new loop device: $got" || nok "new loop device is $got, want 664 root:disk"
    id=$(cat "/sys/devices/virtual/block/loop$base/dev")
    grep -q "^E:ACCESS_TEST_PROGRAM=1" "$run/data/b$id" && ok "its program ran" || nok "no IMPORT{program} result in b$id"
    echo change > "/sys/devices/virtual/block/loop$base/uevent"
    adm settle --timeout=30
    got=$(access "$node")
    [ "$got" = "664 root:disk" ] && ok "after change: loop keeps $got" || nok "after change: loop is $got, want 664 root:disk"
    "$build/tests/loopctl" remove "$base" 1
    adm settle --timeout=30
    [ -e "$node" ] && nok "loop node left after remove" || ok "loop node removed"
else
    nok "could not add a loop device"
fi

kill -0 "$daemon" 2>/dev/null && ok "daemon still running" || nok "daemon died"
stop_daemon
grep -E "ERROR|Assertion|Sanitizer" "$tmp/daemon.log" && nok "errors in the daemon log" || ok "clean daemon log"

results
