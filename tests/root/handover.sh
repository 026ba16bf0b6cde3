#!/bin/sh
# Initramfs hand-over: a first devmand coldplugs the live kernel with devman's own rules, then
# exits on `control --exit` (what an initramfs does before switch_root); a second devmand on the
# same run directory takes the database over: the same entries, nothing reprocessed without a
# trigger, and a later change is processed knowing the old properties (IMPORT{db}) and links.
# Private mount and network namespaces, private /dev and run directories.
# Usage: handover.sh BUILDDIR  (root; exits 77 otherwise)
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root
in_private_namespaces "$@"
null=/sys/devices/virtual/mem/null
[ -w $null/uevent ] || skip "no $null"

test_dirs handover
mkdir -p "$tmp/rules1" "$tmp/rules2"
start() { start_daemon --rules-dir "$src/rules" --rules-dir "$1" --log-level=info; } # rules dir of the stage
# the devices of the test: everything but loop devices, which other tests make and remove
export_db() { adm info --export-db | awk -v RS= -v ORS='\n\n' '!/^P: \/devices\/virtual\/(block\/loop|bdi\/7:)/'; }

# the initramfs stage: a mark and a link on null
cat > "$tmp/rules1/90-handover.rules" <<'EOF'
ACTION=="add", SUBSYSTEM=="mem", KERNEL=="null", ENV{HANDOVER_MARK}="from-initramfs", SYMLINK+="handover/initramfs"
EOF
# the real root's stage: knows the mark only from the database, links it differently
cat > "$tmp/rules2/90-handover.rules" <<'EOF'
SUBSYSTEM=="mem", KERNEL=="null", IMPORT{db}="HANDOVER_MARK"
SUBSYSTEM=="mem", KERNEL=="null", ENV{HANDOVER_MARK}=="from-initramfs", SYMLINK+="handover/root"
EOF

check "first devmand ready" start "$tmp/rules1"
adm coldplug --timeout=120 || nok "coldplug settles"
nmaj=$(cut -d: -f1 $null/dev); nmin=$(cut -d: -f2 $null/dev)
entry=$run/data/c$nmaj:$nmin
check "coldplug: null has the mark in its entry" grep -qx "E:HANDOVER_MARK=from-initramfs" "$entry"
check "coldplug: null has its link" [ "$(readlink "$dev/handover/initramfs")" = "../null" ]
export_db > "$tmp/db1"
raw_db() { (cd "$run/data" && ls | grep -v '^b7:' | while read -r f; do sed "s|^|$f |" "$f"; done); }
raw_db > "$tmp/raw1"
entries1=$(grep -c '^P: ' "$tmp/db1")
echo "  $entries1 devices in the database after coldplug"
check "coldplug published devices" [ "$entries1" -gt 10 ]

adm control --exit
wait "$daemon"; rc=$?; daemon=""
check "first devmand exits 0 on control --exit" [ $rc -eq 0 ]
check "the database stays after exit" [ -s "$entry" ]
check "the control socket is gone after exit" [ ! -e "$run/control" ]
check "the queue file is gone after exit" [ ! -e "$run/queue" ]

# the hand-over: count every processed event broadcast while the second devmand starts
# the program itself in the background (not the adm function: $! would name a subshell)
"$build/daemon/devmanadm" --dev "$dev" --run "$run" monitor --udev > "$tmp/monitor" 2>&1 &
own_pid $!
sleep 0.3
check "second devmand ready on the same run directory" start "$tmp/rules2"
sleep 1.5
export_db > "$tmp/db2"
raw_db > "$tmp/raw2"
check "the database files are untouched (I: lines included)" cmp -s "$tmp/raw1" "$tmp/raw2"
check "entries have I: lines to compare" grep -q ' I:[0-9]' "$tmp/raw1"
check "devmanadm info shows the same entries, unchanged (I: times included)" cmp -s "$tmp/db1" "$tmp/db2"
cmp -s "$tmp/db1" "$tmp/db2" || diff "$tmp/db1" "$tmp/db2" | head -20
reprocessed=$(grep '^UDEV *\[' "$tmp/monitor" | grep -v -e '/block/loop' -e '/bdi/7:' | wc -l)
check "nothing reprocessed without a trigger ($reprocessed events)" [ "$reprocessed" -eq 0 ]
[ "$reprocessed" -eq 0 ] || grep '^UDEV *\[' "$tmp/monitor" | head
# stale entries of devices gone meanwhile (other tests' loop devices) are fine; crash recovery is not
grep "did not exit cleanly" "$tmp/daemon.log" && nok "a clean exit must not look like a crash" || ok "clean exit: not taken for a crash"

# a change after the hand-over: the old property comes from the database, the old link is
# known (and dropped, the new rules no longer claim it), the new link made
echo change > $null/uevent
for _ in $(seq 100); do [ -L "$dev/handover/root" ] && break; sleep 0.05; done
adm settle --timeout=30
check "change: IMPORT{db} found the initramfs' property" grep -qx "E:HANDOVER_MARK=from-initramfs" "$entry"
check "change: the new link is made" [ "$(readlink "$dev/handover/root")" = "../null" ]
check "change: the old link is removed" [ ! -L "$dev/handover/initramfs" ]
check "change: the entry lists only the new link" sh -c "grep -q '^S:handover/root\$' '$entry' && ! grep -q '^S:handover/initramfs' '$entry'"
check "change: the node is still there" [ -c "$dev/null" ]
grep '^UDEV' "$tmp/monitor" | grep -q "change.*/devices/virtual/mem/null" && ok "change: broadcast to libudev clients" \
    || nok "change: broadcast to libudev clients"

adm control --exit
wait "$daemon"; daemon=""
results
