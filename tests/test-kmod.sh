#!/bin/sh
# The kmod builtin and `devmanadm static-nodes` on a fake module tree: tiny relocatable objects
# shellcheck disable=SC2016,SC2034  # check() evals its conditions
# with a .modinfo section (aliases, devname:) compiled with cc and indexed by the real depmod
# into ROOT/lib/modules/$(uname -r). Nothing is loaded into the kernel: kmod runs in test mode
# (libkmod's dry run) and prints what it would load. static-nodes creates nodes in a private
# /dev root (mknod: root only; those checks are skipped otherwise).
# Usage: test-kmod.sh BUILDDIR SYSFS-GENERATOR
set -u
build=${1:?build dir}
gen=${2:?gen-sysfs.py}
for t in cc depmod python3; do
    command -v $t >/dev/null || [ -x /usr/sbin/$t ] || [ -x /sbin/$t ] || { echo "no $t: skipped"; exit 77; }
done
PATH=$PATH:/usr/sbin:/sbin
tmp=$(mktemp -d /tmp/devman-kmod.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "FAIL - $*"; }
check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }

kver=$(uname -r)
mods=$tmp/root/lib/modules/$kver/kernel
mkdir -p "$mods" "$tmp/root/etc/modprobe.d"
module() { # name, modinfo strings...
    name=$1; shift
    {
        i=0
        for s in "name=$name" "license=GPL" "$@"; do
            i=$((i + 1))
            printf '__attribute__((section(".modinfo"), used)) static const char m%d[] = "%s";\n' $i "$s"
        done
    } >"$tmp/$name.c"
    cc -c "$tmp/$name.c" -o "$mods/$name.ko" || { echo "cannot compile a fake module: skipped"; exit 77; }
}
module e1000fake 'alias=pci:v00008086d000010F5sv*sd*bc*sc*i*'
module asixfake 'alias=usb:v0B95p772Bd*dc*dsc*dp*ic*isc*ip*in*'
module denied 'alias=pci:v0000ABCDd*sv*sd*bc*sc*i*'
module fusefake 'alias=devname:fuse' 'alias=char-major-10-229'
module sndfake 'alias=devname:snd/timer' 'alias=char-major-116-33'
module blkfake 'alias=devname:fakeblk' 'alias=block-major-250-7'
echo "blacklist denied" >"$tmp/root/etc/modprobe.d/deny.conf"
depmod -b "$tmp/root" "$kver" 2>/dev/null || { echo "depmod failed: skipped"; exit 77; }
python3 "$gen" "$tmp/sys" >/dev/null || { nok "fixture"; exit 1; }

run() { DEVMAN_LOG_LEVEL=${LOGLEVEL:-err} "$build/tests/builtin-run" --test --sysfs "$tmp/sys" --root "$tmp/root" "$@"; }
nic=/devices/pci0000:00/0000:00:19.0

# no names: the device's MODALIAS
out=$(run "$nic" "kmod load" 2>&1)
check "MODALIAS of the PCI NIC loads e1000fake" '[ "$out" = "kmod: load e1000fake" ]'
out=$(run "$nic" "kmod load asixfake usb:v0B95p772Bd0001dcFFdsc00dp00icFFisc00ip00in00 nosuchmodule" 2>&1)
check "names and aliases" '[ "$out" = "kmod: load asixfake
kmod: load asixfake" ]'
out=$(run "$nic" "kmod load pci:v0000ABCDd00001234sv00000000sd00000000bc02sc00i00" 2>&1)
check "deny-listed module is not loaded" '[ "$out" = "kmod: deny-listed denied" ]'
out=$(run "$nic" "kmod unload x" 2>&1); rc=$?
check "unknown command fails" '[ $rc -ne 0 ]'
out=$(run /devices/pci0000:00 "kmod load" 2>&1); rc=$?
check "no MODALIAS: nothing, no error" '[ $rc -eq 0 ] && [ -z "$out" ]'

# libkmod and libnl-route-3 are linked into devmand (an initramfs built from ldd's list carries
# them); the boot front devmanadm (trigger, settle) links libc only
if command -v readelf >/dev/null; then
    check "devmand links libkmod and libnl-route-3" \
        'readelf -d "$build/daemon/devmand" | grep -q "NEEDED.*libkmod.so.2" && readelf -d "$build/daemon/devmand" | grep -q "NEEDED.*libnl-route-3"'
    check "devmanadm links neither" '! readelf -d "$build/daemon/devmanadm" | grep -q "NEEDED.*libkmod\|NEEDED.*libnl-route"'
fi

# no modules directory: a no-op, logged once for many events
mkdir -p "$tmp/empty"
out=$(DEVMAN_LOG_LEVEL=info "$build/tests/builtin-run" --repeat 5 --sysfs "$tmp/sys" --root "$tmp/empty" "$nic" "kmod load" 2>&1); rc=$?
check "no modules: success" '[ $rc -eq 0 ]'
check "no modules: logged once" '[ "$(printf "%s\n" "$out" | grep -c "No kernel modules")" -eq 1 ]'

# devmand says at start, before any event, when the rules load modules that cannot be loaded: the
# modules directory of the running kernel is hidden by an empty tmpfs in a private mount namespace
# (where /lib/modules exists; here it may not exist at all). Error level where the kernel has
# module support, info where it has none (nothing to load then).
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
    mkdir -p "$tmp/rules-kmod" "$tmp/rules-none" "$tmp/d1" "$tmp/r1" "$tmp/d2" "$tmp/r2"
    echo 'ENV{MODALIAS}=="?*", RUN{builtin}+="kmod load"' >"$tmp/rules-kmod/80-drivers.rules"
    echo 'SUBSYSTEM=="mem", TAG+="seen"' >"$tmp/rules-none/50-none.rules"
    daemon() { # rules dir, dev, run, level
        unshare -m sh -c '[ ! -d /lib/modules ] || mount -t tmpfs none /lib/modules || exit 9
            exec "$0" --once --sysfs "$1" --rules-dir "$2" --dev "$3" --run "$4" --log-level "$5"' \
            "$build/daemon/devmand" "$tmp/sys" "$@" 2>&1
    }
    if [ -e /proc/modules ]; then
        out=$(daemon "$tmp/rules-kmod" "$tmp/d1" "$tmp/r1" err)
        check "kernel with modules, no modules directory: error at start" \
            'printf "%s\n" "$out" | grep -q "The rules load kernel modules (kmod load) but /lib/modules/$kver does not exist"'
    else
        out=$(daemon "$tmp/rules-kmod" "$tmp/d1" "$tmp/r1" info)
        check "kernel without module support: said at start (info)" \
            'printf "%s\n" "$out" | grep -q "The kernel has no module support"'
        check "said before the first kmod load" \
            '[ "$(printf "%s\n" "$out" | grep -m1 -e "no module support" -e "No kernel modules in" | grep -c "no module support")" -eq 1 ]'
    fi
    out=$(daemon "$tmp/rules-none" "$tmp/d2" "$tmp/r2" info)
    check "rules that load no module: nothing said" \
        '! printf "%s\n" "$out" | grep -q -e "no module support" -e "does not exist"'
else
    echo "not root: start-up check of devmand skipped"
fi

# static nodes from the generated modules.devname
devname=$tmp/root/lib/modules/$kver/modules.devname
check "depmod wrote modules.devname" 'grep -q "^fusefake fuse c10:229" "$devname"'
out=$("$build/daemon/devmanadm" --dev "$tmp/dev" static-nodes --root "$tmp/root" --dry-run | sort)
check "dry run lists the nodes" '[ "$out" = "b 250:7 fakeblk (blkfake)
c 10:229 fuse (fusefake)
c 116:33 snd/timer (sndfake)" ]'
check "dry run creates nothing" '[ ! -e "$tmp/dev" ]'
out=$("$build/daemon/devmanadm" --dev "$tmp/dev" static-nodes --root "$tmp/empty" 2>&1); rc=$?
check "no modules.devname: nothing to do" '[ $rc -eq 0 ]'
if [ "$(id -u)" -eq 0 ]; then
    mkdir -p "$tmp/dev"
    "$build/daemon/devmanadm" --dev "$tmp/dev" static-nodes --root "$tmp/root"; rc=$?
    check "static-nodes succeeds" '[ $rc -eq 0 ]'
    check "fuse is c 10:229 0600" '[ "$(stat -c "%F %t:%T %a %u" "$tmp/dev/fuse")" = "character special file a:e5 600 0" ]'
    check "snd/timer is c 116:33" '[ "$(stat -c "%F %t:%T" "$tmp/dev/snd/timer")" = "character special file 74:21" ]'
    check "fakeblk is b 250:7" '[ "$(stat -c "%F %t:%T" "$tmp/dev/fakeblk")" = "block special file fa:7" ]'
    # static nodes get no char/M:m link: those record nodes made for devices, and crash recovery
    # removes the ones whose device is gone (a static node has no device until its module loads)
    check "no char/10:229 link for a static node" '[ ! -e "$tmp/dev/char/10:229" ] && [ ! -L "$tmp/dev/char/10:229" ]'
    "$build/daemon/devmanadm" --dev "$tmp/dev" static-nodes --root "$tmp/root"; rc=$?
    check "second run keeps them" '[ $rc -eq 0 ] && [ -c "$tmp/dev/fuse" ]'
    printf 'good good c1:3\nbroken line\nesc ../escape c1:5\n' >"$tmp/bad.devname"
    "$build/daemon/devmanadm" --dev "$tmp/dev" static-nodes --file "$tmp/bad.devname" 2>"$tmp/err"; rc=$?
    check "bad lines reported, good ones made" '[ $rc -ne 0 ] && [ -c "$tmp/dev/good" ] && grep -q ":2: malformed" "$tmp/err"'
    check "no node outside the /dev root" '[ ! -e "$tmp/escape" ]'
else
    echo "not root: node creation checks skipped"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
