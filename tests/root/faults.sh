#!/bin/sh
# Faults of the machine against a running devmand (private mount and network namespace, private
# tmpfs mounts for the run dir and /dev, loop devices with high indices):
#  A. the run dir full (ENOSPC): events complete and nodes are made; the failed database
#     writes are logged once and written when space is back;
#  B. the run dir read-only (EROFS): the same, written when it is writable again;
#  C. /dev full (no inodes left): events complete, the failure is logged, the next event
#     after space is back makes the node;
#  D. a device that vanishes while its add event waits for a PROGRAM: both events complete,
#     no node or entry is left;
#  E. a rules file deleted (dangling) and rules files churned during reloads: the rest of the
#     rules still apply, the unreadable file is named in the log;
# and the daemon never dies. Prints the numbers. Usage: faults.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root loop-control
in_private_namespaces "$@"

test_dirs faults
rules=$tmp/rules
mkdir -p "$run" "$rules"
# room for foreign devices (other tests make hundreds of loop devices meanwhile)
mount -t tmpfs -o size=4m,nr_inodes=20000,mode=755 devman-run "$run"
mount -t tmpfs -o size=4m,nr_inodes=20000,mode=755 devman-dev "$dev"
cleanup_hook() { umount "$run" "$dev" 2>/dev/null; }
N=5
base=$(( 400000 + ($$ % 500) * 16 ))
own_loops "$base" 16
settle() { adm settle --timeout=30 2>/dev/null; sleep 0.2; adm control --ping --timeout=10; }
# fills a tmpfs: blocks, then inodes
fill() {
    mkdir -p "$1/.fill"
    dd if=/dev/zero of="$1/.fill/blocks" bs=4k 2>/dev/null
    python3 -c '
import sys
i = 0
try:
    while True:
        open("%s/f%d" % (sys.argv[1], i), "w").close()
        i += 1
except OSError:
    pass' "$1/.fill"
}
unfill() { rm -rf "$1/.fill"; }
# waits (up to 20 s) until the daemon said N times that pending devices were published
wait_published() {
    for _ in $(seq 100); do
        [ "$(log_count 'Publishing works again')" -ge "$1" ] && return 0
        sleep 0.2
    done
    return 1
}
mm() { cat "/sys/devices/virtual/block/loop$1/dev"; }
entry_is() { grep -q "^E:DEVMAN_FAULT=$2\$" "$run/data/b$(mm "$1")" 2>/dev/null; }
has_entry() {
    grep -q "^E:DEVMAN_FAULT=$2\$" "$run/data/b$(mm "$1")" 2>/dev/null && return 0
    echo "  (loop$1: no E:DEVMAN_FAULT=$2 in data/b$(mm "$1"):$(tr '\n' ' ' < "$run/data/b$(mm "$1")" 2>&1))"
    return 1
}

cat > "$rules/10-fault.rules" <<EOR
KERNEL=="loop*", ACTION=="add", ENV{DEVMAN_FAULT}="\$attr{ro}-add", SYMLINK+="fault/%k"
KERNEL=="loop*", ACTION=="change", ENV{DEVMAN_FAULT}="\$attr{ro}-change"
KERNEL=="loop$((base + 12))", PROGRAM="/bin/sleep 0.5", ENV{DEVMAN_SLOW}="\$attr{size}"
EOR
echo 'KERNEL=="loop*", ENV{DEVMAN_SECOND_FILE}="1"' > "$rules/20-second.rules"
start_daemon --rules-dir "$rules" --log-level=info --log-target=console

# ---- A: run dir full ----
fill "$run"
"$build/tests/loopctl" add "$base" $N || nok "adding $N loop devices"
settle
made=0; for i in $(seq 0 $((N - 1))); do [ -b "$dev/loop$((base + i))" ] && made=$((made + 1)); done
retry_logged=$(log_count ", will retry it and any other device that fails")
echo "  A: run dir full: $N adds, $made nodes made, publication failure logged $retry_logged times"
links=0; for i in $(seq 0 $((N - 1))); do [ -L "$dev/fault/loop$((base + i))" ] && links=$((links + 1)); done
echo "  A: $links of $N links made, link failures logged $(log_count 'could not update all links') times"
check "A: events complete with the run dir full (nodes made)" [ "$made" -eq $N ]
check "A: the failure is logged once" [ "$retry_logged" -eq 1 ]
check "A: link failures are not logged per event" [ "$(log_count 'could not update all links')" -eq 0 ]
unfill "$run"
wait_published 1
written=$(grep -o "Publishing works again: [0-9]* pending" "$tmp/daemon.log" | tail -n 1)
entries=0; links=0
for i in $(seq 0 $((N - 1))); do
    has_entry $((base + i)) 0-add && entries=$((entries + 1))
    [ "$(readlink "$dev/fault/loop$((base + i))")" = "../loop$((base + i))" ] && links=$((links + 1))
done
echo "  A: space back: '$written'; $entries of $N entries, $links of $N links present"
check "A: the pending entries are written when space is back" [ "$entries" -eq $N ]
check "A: the pending links are made when space is back" [ "$links" -eq $N ]
check "A: daemon alive" daemon_alive

# ---- B: run dir read-only ----
mount -o remount,ro "$run"
for i in $(seq 0 $((N - 1))); do echo change > "/sys/devices/virtual/block/loop$((base + i))/uevent"; done
settle
retry_logged=$(log_count ", will retry it and any other device that fails")
stale=0; for i in $(seq 0 $((N - 1))); do entry_is $((base + i)) 0-change || stale=$((stale + 1)); done
echo "  B: run dir read-only: $N changes, failure logged $((retry_logged - 1)) more times, $stale entries not updated"
check "B: the failure is logged once more (a new fault)" [ "$retry_logged" -eq 2 ]
check "B: nothing could be written meanwhile" [ "$stale" -eq $N ]
mount -o remount,rw "$run"
wait_published 2
entries=0; for i in $(seq 0 $((N - 1))); do has_entry $((base + i)) 0-change && entries=$((entries + 1)); done
echo "  B: writable again: $entries of $N entries updated"
check "B: the pending entries are written when the run dir is writable again" [ "$entries" -eq $N ]
check "B: daemon alive" daemon_alive

# ---- C: /dev full ----
fill "$dev"
"$build/tests/loopctl" add $((base + 5)) $N || nok "adding $N more loop devices"
settle
made=0; for i in $(seq 5 $((N + 4))); do [ -b "$dev/loop$((base + i))" ] && made=$((made + 1)); done
retry_logged=$(log_count ", will retry it and any other device that fails")
nodefail=$(log_count "could not create node")
echo "  C: /dev full: $N adds, $made nodes made, failure logged $((retry_logged - 2)) more times, $nodefail node failures logged one by one"
check "C: no node could be made" [ "$made" -eq 0 ]
check "C: the failure is logged once more (a new fault), not per node" [ "$retry_logged" -eq 3 -a "$nodefail" -eq 0 ]
check "C: the database entries were still written" has_entry $((base + 5)) 0-add
unfill "$dev"
wait_published 3
made=0; for i in $(seq 5 $((N + 4))); do [ -b "$dev/loop$((base + i))" ] && made=$((made + 1)); done
echo "  C: space back: $made of $N nodes made without a new event"
check "C: the pending nodes are made when space is back" [ "$made" -eq $N ]
check "C: daemon alive" daemon_alive

# ---- D: a device that vanishes during its add ----
L=$((base + 12))
"$build/tests/loopctl" add $L 1 && "$build/tests/loopctl" remove $L 1
settle
sleep 1
settle
echo "  D: loop$L added and removed while its PROGRAM ran"
check "D: no node left" [ ! -e "$dev/loop$L" ]
check "D: no database entry left" sh -c "! ls '$run/data/' | grep -q ':$L\$'"
check "D: daemon alive" daemon_alive

# ---- E: rules files deleted during reload ----
ln -sf /nonexistent/devman-gone.rules "$rules/20-second.rules"
adm control --reload
echo change > "/sys/devices/virtual/block/loop$base/uevent"
settle
check "E: the rules file that is gone is named in the log" grep -q "20-second.rules" "$tmp/daemon.log"
check "E: the other rules still apply" has_entry "$base" 0-change
rm -f "$rules/20-second.rules"
churn=0
while [ $churn -lt 40 ]; do
    echo 'KERNEL=="loop*", ENV{DEVMAN_CHURN}="1"' > "$rules/30-churn.rules"
    adm control --reload &
    rm -f "$rules/30-churn.rules"
    wait $!
    churn=$((churn + 1))
done
echo change > "/sys/devices/virtual/block/loop$((base + 1))/uevent"
settle
echo "  E: $churn reloads while a rules file came and went"
check "E: rules still apply after the churn" has_entry $((base + 1)) 0-change
check "E: daemon alive" daemon_alive

stop_daemon; rc=$?
check "daemon exited cleanly (status $rc)" [ "$rc" -eq 0 ]
results || { echo "--- daemon log"; grep -v "Reload requested" "$tmp/daemon.log" | grep -v "loop[0-9]*: could not create node" | cut -c1-300; }
[ $fail -eq 0 ]
