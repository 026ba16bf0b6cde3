#!/bin/sh
# devman's net_setup_link against the reference (udevadm test-builtin net_setup_link,
# systemd-udevd 252), as root, in private network and mount namespaces: sysfs remounted for
# the namespace, a tmpfs on /run with .link files in /run/systemd/network (drivers, names,
# MAC, kind, type, properties, drop-in, mask, a file without [Match]) and udev database
# entries giving each interface the properties earlier rules would have imported. Interfaces
# are ifb, veth and bridge links. Both must print the same properties; a few names are also
# checked by hand. Nothing outside the namespaces is touched.
# Then, with the stock .link files only, the whole stock rule set (udevadm test against
# devman's rules engine, devmanadm test) must give each interface the same NAME and the
# same properties (bookkeeping keys aside): the builtins as the rules call them.
# Usage: builtin-net_setup_link-reference.sh BUILDDIR   (77 when not root / no namespaces)
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root udevadm ip
unshare -n -m true 2>/dev/null || skip "no namespaces"
in_private_namespaces "$@"

mount -t sysfs sysfs /sys || { echo "cannot mount sysfs: skipped"; exit 77; }
mount -t tmpfs tmpfs /run || exit 1
mkdir -p /run/udev/data /run/systemd/network
ip link add type ifb 2>/dev/null || { echo "no ifb links: skipped"; exit 77; }
ip link add ifbplain type ifb
ip link add nmtest type ifb
ip link add nmskip type ifb
ip link add macx type veth peer name macy && ip link set macx address 02:11:22:33:44:55
ip link add v0 type veth peer name v1
ip link add br0 type bridge

n=/run/systemd/network
printf '[Link]\nName=never\n' >$n/05-empty.link
printf '[Match]\nDriver=veth\nProperty=TESTCASE=drv*\n[Link]\nNamePolicy=path mac\nName=vfallback\n' >$n/10-veth.link
printf '[Match]\nOriginalName=nm* !nmskip\n[Link]\nName=renamed0\nBogusKey=1\n' >$n/20-name.link
mkdir -p $n/20-name.link.d
printf '[Link]\nName=dropin0\n' >$n/20-name.link.d/10-override.conf
printf '# by address\n[Match]\nMACAddress=02-11-22-33-44-55\n\n[Link]\nNamePolicy=onboard slot\n' >$n/30-mac.link
printf '[Match]\nKind=bridge\n[Link]\nNamePolicy=kernel database\n' >$n/40-kind.link
printf '[Match]\nOriginalName=ifb[0-9]*\nType=ether\nProperty=!SKIP=1\n[Link]\nNamePolicy=kernel keep mac\n' >$n/50-enum.link
printf '[Match]\nOriginalName=ifbplain\n[Link]\nNamePolicy=keep path\n' >$n/60-keep.link
ln -s /dev/null $n/73-usb-net-by-mac.link

# properties per interface: "name KEY=VALUE ..."
props() {
    case $1 in
        v0) echo "TESTCASE=drv1 ID_NET_NAME_PATH=vpath0" ;;
        v1) echo "TESTCASE=drv2" ;;
        macx) echo "ID_NET_NAME_ONBOARD=bad/name ID_NET_NAME_SLOT=slotname" ;;
        br0) echo "ID_NET_NAME_FROM_DATABASE=brdb" ;;
        ifb0) echo "ID_NET_NAME_MAC=enxabc" ;;
        ifbplain) echo "ID_NET_NAME_PATH=plainpath" ;;
        nmskip) echo "ID_NET_NAME_PATH=skippath" ;;
        *) echo "" ;;
    esac
}
expect() {
    case $1 in
        v0) echo vpath0 ;; v1) echo vfallback ;; nmtest) echo dropin0 ;; nmskip) echo nmskip ;;
        macx) echo slotname ;; br0) echo brdb ;; ifb0) echo enxabc ;; ifbplain) echo ifbplain ;;
    esac
}

test_dirs nsl
for sys in /sys/class/net/*; do
    ifc=${sys##*/}
    idx=$(cat "$sys/ifindex")
    args=""
    : >/run/udev/data/n$idx
    for kv in $(props "$ifc"); do
        echo "E:$kv" >>/run/udev/data/n$idx
        args="$args --property $kv"
    done
    # devman first: the reference may give random MACs persistent ones
    # shellcheck disable=SC2086
    DEVMAN_LOG_LEVEL=err "$build/tests/builtin-run" $args "$sys" net_setup_link >"$tmp/mine" 2>"$tmp/err"
    rc=$?
    SYSTEMD_LOG_LEVEL=err udevadm test-builtin net_setup_link "$sys" 2>/dev/null | grep '=' | sort >"$tmp/ref"
    if [ $rc -eq 0 ] && cmp -s "$tmp/ref" "$tmp/mine"; then
        ok "$ifc: $(tr '\n' ' ' <"$tmp/mine")"
    else
        nok "$ifc (rc $rc)"; diff "$tmp/ref" "$tmp/mine"; cat "$tmp/err"
    fi
    want=$(expect "$ifc")
    if [ -n "$want" ]; then
        if grep -qx "ID_NET_NAME=$want" "$tmp/mine"; then ok "$ifc is named $want"; else nok "$ifc not named $want"; fi
    fi
done
# the stock rules end to end, stock .link files, no imported properties
rm -rf /run/systemd/network/* /run/udev/data/*
for sys in /sys/class/net/*; do
    ifc=${sys##*/}
    udevadm test "$sys" >"$tmp/full" 2>"$tmp/trace"
    grep '^[A-Z_]*=' "$tmp/full" | grep -Ev '^(ACTION|TAGS|CURRENT_TAGS|USEC_INITIALIZED)=' | sort >"$tmp/ref"
    ref_name=$(sed -n "s/.*80-net-setup-link.rules:[0-9]* NAME '\(.*\)'$/\1/p" "$tmp/trace")
    "$build/daemon/devmanadm" test "$sys" >"$tmp/out" 2>/dev/null
    sed -n 's/^PROPERTY //p' "$tmp/out" | grep -Ev '^(ACTION|TAGS|CURRENT_TAGS|USEC_INITIALIZED)=' | sort >"$tmp/mine"
    my_name=$(sed -n 's/^NAME=//p' "$tmp/out")
    if cmp -s "$tmp/ref" "$tmp/mine" && [ "$ref_name" = "$my_name" ]; then
        ok "stock rules, $ifc: NAME '$my_name', $(wc -l <"$tmp/mine") identical properties"
    else
        nok "stock rules, $ifc: NAME '$ref_name' vs '$my_name'"; diff "$tmp/ref" "$tmp/mine"
    fi
done
results
