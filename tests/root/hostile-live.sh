#!/bin/sh
# Hostile local peers against a running devmand (private /dev and run dir, and a private network
# namespace so fake uevents reach no other listener; kernel uevents still arrive there):
#  - fake uevents on the kernel group from a root process (netlink port != 0) are dropped: a
#    spoofed add names a node that must not appear, a spoofed remove must not take a node away;
#    from an unprivileged process (nobody) sending fails or is dropped;
#  - malformed control datagrams are logged and the connection closed; a peer that is not root
#    is refused (even when the socket file lets it connect); the daemon keeps answering;
#  - a hostile database entry (5 MiB, long lines, NUL bytes, unsafe links and tags) is read after
#    a restart with warnings, creates nothing, and is rewritten clean;
#  - a symlink planted in dev/ is not followed when a link is created or removed;
#  - nothing devman made is world-writable.
# Prints the numbers. Usage: hostile-live.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root loop-control
in_private_namespaces "$@"
peer="python3 $src/tests/root/hostile-peer.py"

test_dirs hostile-live
chmod 755 "$tmp"
rules=$tmp/rules
mkdir -p "$rules" "$tmp/elsewhere" "$tmp/elsewhere2"
base=$(( 300000 + ($$ % 500) * 8 ))
L1=$base; L2=$((base + 1)); L3=$((base + 2))
own_loops "$base" 3
start() { start_daemon --rules-dir "$rules" --log-level=info --log-target=console; }

cat > "$rules/50-hostile.rules" <<EOR
KERNEL=="loop$L1", SYMLINK+="hostile-test/l1"
KERNEL=="loop$L2", SYMLINK+="hostile/link"
KERNEL=="loop$L3", SYMLINK+="hostile2/link"
EOR
start
"$build/tests/loopctl" add "$L1" 2 || nok "adding loop devices"
adm settle --timeout=30
[ -b "$dev/loop$L1" ] && [ -L "$dev/hostile/link" ] && ok "real kernel events are processed (positive control)" \
    || nok "the daemon did not process the real add events"

# ---- fake uevents ----
sent=0
r=$($peer uevent add /devices/virtual/mem/null SUBSYSTEM=mem MAJOR=1 MINOR=3 DEVNAME=spoofed-null SEQNUM=1)
[ "$r" = sent ] && sent=$((sent + 1))
r=$($peer uevent add /devices/virtual/mem/null SUBSYSTEM=mem MAJOR=1 MINOR=3 DEVNAME=../../spoofed-escape SEQNUM=2)
[ "$r" = sent ] && sent=$((sent + 1))
r=$($peer uevent remove "/devices/virtual/block/loop$L1" SUBSYSTEM=block DEVNAME="loop$L1" SEQNUM=3)
[ "$r" = sent ] && sent=$((sent + 1))
echo "  fake uevents sent as root: $sent of 3"
unpriv=$($peer uevent --as-nobody add /devices/virtual/mem/zero SUBSYSTEM=mem MAJOR=1 MINOR=5 DEVNAME=spoofed-zero)
echo "  fake uevent as nobody: $unpriv"
adm settle --timeout=10
sleep 0.3
check "root's fake uevents reached the socket (the test really sent them)" [ "$sent" -eq 3 ]
check "every fake uevent was dropped as not from the kernel ($(log_count 'not the kernel') log lines)" \
    [ "$(log_count 'not the kernel')" -ge "$sent" ]
check "no node from a spoofed add" [ ! -e "$dev/spoofed-null" -a ! -e "$tmp/spoofed-escape" ]
check "a spoofed remove did not take a node away" [ -b "$dev/loop$L1" ]
case $unpriv in
refused:*) ok "an unprivileged process cannot send to the kernel group ($unpriv)" ;;
sent) check "an unprivileged fake uevent is dropped" [ ! -e "$dev/spoofed-zero" ] ;;
*) nok "unexpected answer from the unprivileged sender: $unpriv" ;;
esac
check "daemon alive after fake uevents" daemon_alive

# ---- control socket ----
closed=0; kinds="short magic type level env oversized"
for k in $kinds; do
    [ "$($peer ctrl "$run/control" "$k")" = closed ] && closed=$((closed + 1))
done
echo "  malformed control messages: $(echo $kinds | wc -w) sent, $closed connections closed, $(log_count 'control: invalid message') logged"
check "each malformed control message closed its connection" [ "$closed" -eq 6 ]
check "each malformed control message was logged" [ "$(log_count 'control: invalid message')" -ge 6 ]
mode=$(stat -c %a "$run/control")
check "the control socket is root-only (mode $mode)" [ $((0$mode & 077)) -eq 0 ]
r=$($peer ctrl "$run/control" exit-as-peer --as-nobody)
check "nobody cannot connect through the 0600 socket ($r)" [ "${r%%:*}" = refused ]
chmod 666 "$run/control"
r=$($peer ctrl "$run/control" exit-as-peer --as-nobody)
chmod 600 "$run/control"
refusals=$(( $(log_count 'control: connection from uid 65534') + $(log_count 'control: message from uid 65534') ))
check "a non-root peer's exit request is refused and logged ($r, $refusals log lines)" [ "$refusals" -ge 1 ]
check "daemon alive after hostile control peers" daemon_alive

# ---- hostile database entry, read after a restart ----
mm=$(cat "/sys/devices/virtual/block/loop$L1/dev")
stop_daemon
python3 - "$run/data/b$mm" "$tmp" <<'EOP'
import sys
path, tmp = sys.argv[1], sys.argv[2]
with open(path, "wb") as f:
    f.write(b"S:../../../../../../%s/db-escape\nS:/abs/db-link\nS:ok/../../x\nG:../tag\nQ:a/b\n" % tmp.encode())
    f.write(b"E:NUL=a\0b\nL:notanumber\nI:-1\nV:x\n" + b"E:HUGE=" + b"x" * (5 << 20) + b"\n")
    f.write(b"\xff\xfe garbage without colon\n" * 1000)
    f.write(b"E:ID_SANE=1\nS:sane-db-link\n")
EOP
start
echo change > "/sys/devices/virtual/block/loop$L1/uevent"
adm settle --timeout=30
warned=$(log_count 'line ignored')
reads=$(log_count 'more malformed lines ignored')
summary=$(grep -o '[0-9]* more malformed lines ignored ([0-9]* in all)' "$tmp/daemon.log" | sort -u)
echo "  hostile database entry: 5 MiB, read $reads times; each: 5 malformed lines logged, then: $summary"
check "the hostile entry was read and its first malformed lines logged, not all of them" \
    [ "$reads" -ge 1 -a "$warned" -eq $((5 * reads)) ]
# 9 malformed short lines, the 5 MiB one, 1000 lines of garbage
check "the rest were counted in one line" [ "$summary" = "1005 more malformed lines ignored (1010 in all)" ]
check "no link from the database outside dev/" [ ! -e "$tmp/db-escape" -a ! -e /abs/db-link ]
check "the entry was rewritten without the hostile lines" \
    sh -c "! grep -aq -e '\.\./' -e 'HUGE' -e 'garbage' '$run/data/b$mm'"
check "the node is still there" [ -b "$dev/loop$L1" ]
check "daemon alive after the hostile database entry" daemon_alive

# ---- planted symlinks in dev/ ----
touch "$tmp/elsewhere/link"
mv "$dev/hostile" "$tmp/hostile.real"
ln -s "$tmp/elsewhere" "$dev/hostile"
ln -s "$tmp/elsewhere2" "$dev/hostile2"
"$build/tests/loopctl" remove "$L2" 1
"$build/tests/loopctl" add "$L3" 1
adm settle --timeout=30
check "removing a link did not follow the planted dev/hostile symlink" [ -e "$tmp/elsewhere/link" ]
check "creating a link did not follow the planted dev/hostile2 symlink" [ -z "$(ls -A "$tmp/elsewhere2")" ]
check "the planted links are still what they were" [ "$(readlink "$dev/hostile")" = "$tmp/elsewhere" ]
check "the loop device added meanwhile has its node" [ -b "$dev/loop$L3" ]
check "daemon alive after planted links" daemon_alive

# ---- permissions ----
# foreign devices may come and go meanwhile: a node the kernel asks to be world-writable
# (DEVMODE) is allowed, nothing else
ww=""
find "$dev" "$run" -perm -o+w ! -type l ! -type s > "$tmp/ww.list"
while read -r f; do
    if [ -c "$f" ] || [ -b "$f" ]; then
        kind=char; [ -b "$f" ] && kind=block
        m=$(grep '^DEVMODE=' "/sys/dev/$kind/$(stat -c '%t:%T' "$f" | { IFS=: read -r a b; echo "$((0x$a)):$((0x$b))"; })/uevent" 2>/dev/null)
        [ -n "$m" ] && [ $((0${m#DEVMODE=} & 02)) -ne 0 ] && continue
    fi
    ww="$ww $f"
done < "$tmp/ww.list"
check "nothing under dev/ or run/ is world-writable unless the kernel's DEVMODE says so (${ww:-none})" [ -z "$ww" ]
outside=$(find "$tmp" -path "$dev" -prune -o -path "$run" -prune -o -newer "$rules/50-hostile.rules" -print | \
          grep -v -e "^$tmp\$" -e "daemon.log" -e "ww.list" -e "hostile.real" -e "$tmp/elsewhere" -e "^$dev\$" -e "^$run\$" | wc -l)
check "nothing appeared in the temp dir outside dev/ and run/ ($outside)" [ "$outside" -eq 0 ]

stop_daemon
check "daemon exited cleanly" [ "$(log_count 'Assertion\|AddressSanitizer\|runtime error')" -eq 0 ]
results || { echo "--- daemon log (tail)"; tail -n 40 "$tmp/daemon.log" | cut -c1-300; }
[ $fail -eq 0 ]
