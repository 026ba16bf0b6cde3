#!/bin/sh
# Live kernel, as root: devmand in a private /dev and run dir follows the real kernel.
#  - coldplug (trigger --type=subsystems, --type=devices, settle) makes a node for every device
#    under /sys with a `dev` attribute, with the major:minor the kernel's devtmpfs has;
#  - real loop devices added and removed through /dev/loop-control appear and disappear;
#  - `echo change > uevent` is handled; settle returns.
# Usage: live-coldplug.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root loop-control

test_dirs live
# loop indices of our own, away from the machine's and other tests'
base=$(( 3000 + ($$ % 500) * 4 ))
own_loops "$base" 3

# devman's own rules: they only name, link and permission nodes (no writes to the live sysfs)
start_daemon --rules-dir "$src/rules" --log-level=notice

# ps, pgrep and init scripts find the daemon by its name, also after its allocator re-exec
comm=$(cat "/proc/$daemon/comm" 2>/dev/null)
if [ "$comm" = devmand ]; then ok "the running daemon is named devmand"; else nok "the daemon's name is \"$comm\""; fi

adm trigger --type=subsystems --action=add
adm trigger --type=devices --action=add
if adm settle --timeout=60; then ok "settle returns after coldplug"; else nok "settle timed out"; fi

# every sysfs device with a dev attribute has a node with that major:minor
missing=0; wrong=0; total=0
for devfile in $(find /sys/devices -name dev -type f 2>/dev/null); do
    d=${devfile%/dev}
    [ -f "$d/uevent" ] || continue
    mm=$(cat "$devfile")
    name=$(sed -n 's/^DEVNAME=//p' "$d/uevent")
    [ -n "$name" ] || name=$(basename "$d")
    total=$((total + 1))
    case "$(readlink -f "$d/subsystem")" in */block) type=b ;; *) type=c ;; esac
    if [ ! -e "$dev/$name" ]; then
        # a device that vanished meanwhile (another test's loop device) is not ours to judge
        [ -e "$devfile" ] || continue
        missing=$((missing + 1)); echo "  missing: $name ($mm)"; continue
    fi
    got=$(stat -c '%t:%T' "$dev/$name"); gotfmt=$(printf '%d:%d' 0x${got%:*} 0x${got#*:})
    kind=$(stat -c '%F' "$dev/$name")
    want_kind="character special file"; [ $type = b ] && want_kind="block special file"
    if [ "$gotfmt" != "$mm" ] || [ "$kind" != "$want_kind" ]; then
        wrong=$((wrong + 1)); echo "  wrong: $name is $kind $gotfmt, sysfs says $type $mm"
    fi
    # the kernel's devtmpfs agrees (when it has the node)
    if [ -e "/dev/$name" ]; then
        k=$(stat -c '%t:%T' "/dev/$name")
        [ "$k" = "$got" ] || { wrong=$((wrong + 1)); echo "  devtmpfs differs for $name: $k vs $got"; }
    fi
done
echo "  $total sysfs devices with a dev attribute"
[ "$total" -gt 20 ] && [ $missing -eq 0 ] && [ $wrong -eq 0 ] && ok "a node for every dev attribute ($total)" \
    || nok "coldplug nodes: $missing missing, $wrong wrong of $total"
[ -L "$dev/char/1:3" ] && [ "$(readlink "$dev/char/1:3")" = "../null" ] && ok "/dev/char/1:3 -> ../null" \
    || nok "/dev/char/1:3 link"
[ "$(stat -c %a "$dev/null")" = 666 ] && ok "null has the kernel's DEVMODE 0666" || nok "null mode $(stat -c %a "$dev/null")"

# devmand --once gives the same /dev as the daemon with trigger + settle. Loop devices beyond
# the machine's own (loop0-7) come and go with other users of the kernel: not compared.
listing() {
    (cd "$1" && find . -mindepth 1 \( -type c -o -type b -o -type l \) -printf '%p %Y %m %U:%G %l\n' |
        while read -r p t m o l; do
            case "$p" in ./loop[0-9][0-9]*) continue ;; esac
            case "$l" in ../loop[0-9][0-9]*) continue ;; esac
            [ "$t" = c ] || [ "$t" = b ] && l=$(stat -c '%t:%T' "$p")
            echo "$p $t $m $o $l"
        done | sort)
}
mkdir -p "$tmp/dev2"
"$build/daemon/devmand" --once --dev "$tmp/dev2" --run "$tmp/run2" --rules-dir "$src/rules" --log-level=err
listing "$dev" > "$tmp/daemon.list"; listing "$tmp/dev2" > "$tmp/once.list"
if cmp -s "$tmp/daemon.list" "$tmp/once.list"; then
    ok "devmand --once makes the same /dev as daemon + trigger + settle ($(wc -l < "$tmp/once.list") entries)"
else
    nok "devmand --once differs from daemon + trigger + settle"; diff "$tmp/daemon.list" "$tmp/once.list" | head -20
fi

# loop devices appear and disappear
if "$build/tests/loopctl" add "$base" 3; then
    adm settle --timeout=30
    n=0; for i in 0 1 2; do [ -b "$dev/loop$((base + i))" ] && n=$((n + 1)); done
    [ $n -eq 3 ] && ok "3 new loop devices have nodes" || nok "only $n of 3 loop nodes"
    mm=$(cat /sys/devices/virtual/block/loop$base/dev)
    [ -L "$dev/block/$mm" ] && ok "/dev/block/$mm link" || nok "/dev/block/$mm missing"
    "$build/tests/loopctl" remove "$base" 3
    adm settle --timeout=30
    n=0; for i in 0 1 2; do [ -e "$dev/loop$((base + i))" ] && n=$((n + 1)); done
    [ $n -eq 0 ] && ok "removed loop devices lost their nodes" || nok "$n loop nodes left after remove"
    [ -e "$dev/block/$mm" ] && nok "/dev/block/$mm left behind" || ok "/dev/block/$mm removed"
else
    nok "could not add loop devices"
fi

# a change event is handled: the node comes back
rm -f "$dev/zero"
echo change > /sys/devices/virtual/mem/zero/uevent
adm settle --timeout=30
[ -c "$dev/zero" ] && ok "change event recreated /dev/zero" || nok "change event not handled"

kill -0 "$daemon" 2>/dev/null && ok "daemon still running" || nok "daemon died"
stop_daemon; rc=$?
[ $rc -eq 0 ] && ok "daemon exits 0 on SIGTERM" || nok "daemon exit status $rc"
[ -e "$run/queue" ] && nok "queue file left behind" || ok "no queue file left"
grep -E "error|Assertion|Sanitizer" "$tmp/daemon.log" && nok "errors in the daemon log" || ok "clean daemon log"

results
