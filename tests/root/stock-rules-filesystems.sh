#!/bin/sh
# Debian's stock rules plus devman's builtins on loop devices holding real filesystems give the
# same properties (ID_FS_*, ID_PATH ...) and links (/dev/disk/by-uuid, by-label, by-path,
# by-diskseq ...) as systemd-udevd 252: the rules oracle (test-rules-oracle.sh: udevadm test vs
# devmanadm test, udevadm in private mount and network namespaces) with /lib/udev/rules.d.
# Usage: stock-rules-filesystems.sh BUILDDIR
set -u
build=${1:?build dir}
here=$(dirname "$0")
[ "$(id -u)" -eq 0 ] || { echo "not root: skipped"; exit 77; }
[ -w /dev/loop-control ] && [ -d /lib/udev/rules.d ] || { echo "no loop-control or stock rules: skipped"; exit 77; }
for t in losetup mkfs.ext4 mkfs.vfat udevadm; do command -v $t >/dev/null || { echo "no $t: skipped"; exit 77; }; done
tmp=$(mktemp -d /tmp/devman-stockfs.XXXXXX)
base=$(( 7000 + ($$ % 300) * 2 ))
cleanup() {
    losetup -d "/dev/loop$base" 2>/dev/null; losetup -d "/dev/loop$((base + 1))" 2>/dev/null
    "$build/tests/loopctl" remove "$base" 2 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
truncate -s 16M "$tmp/ext4.img" "$tmp/vfat.img"
mkfs.ext4 -q -L devman-ext4 -U 3c7a1f5e-9b0d-4f3e-8a21-6d5c4b3a2f10 "$tmp/ext4.img"
mkfs.vfat -n DEVMANVFAT -i 1234ABCD "$tmp/vfat.img" >/dev/null
"$build/tests/loopctl" add "$base" 2 || { echo "cannot add loop devices: skipped"; exit 77; }
for _ in $(seq 100); do [ -b "/dev/loop$((base + 1))" ] && break; sleep 0.05; done
attach() { for _ in $(seq 100); do losetup "$@" 2>/dev/null && return 0; sleep 0.05; done; losetup "$@"; }
attach "/dev/loop$base" "$tmp/ext4.img" && attach "/dev/loop$((base + 1))" "$tmp/vfat.img" || exit 1
"$here/../test-rules-oracle.sh" "$build/daemon/devmanadm" /lib/udev/rules.d \
    "/sys/class/block/loop$base" "/sys/class/block/loop$((base + 1))" | tee "$tmp/out"
rc=$?
exit $rc
