#!/bin/sh
# Debian's stock rules plus devman's builtins on loop devices holding real filesystems give the
# same properties (ID_FS_*, ID_PATH ...) and links (/dev/disk/by-uuid, by-label, by-path,
# by-diskseq ...) as systemd-udevd 252: the rules oracle (test-rules-oracle.sh: udevadm test vs
# devmanadm test, udevadm in private mount and network namespaces) with /lib/udev/rules.d.
# Usage: stock-rules-filesystems.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root
[ -w /dev/loop-control ] && [ -d /lib/udev/rules.d ] || skip "no loop-control or stock rules"
require losetup mkfs.ext4 mkfs.vfat udevadm
test_dirs stockfs
base=$(( 7000 + ($$ % 300) * 2 ))
own_loops "$base" 2
cleanup_hook() { losetup -d "/dev/loop$base" 2>/dev/null; losetup -d "/dev/loop$((base + 1))" 2>/dev/null; }
truncate -s 16M "$tmp/ext4.img" "$tmp/vfat.img"
mkfs.ext4 -q -L devman-ext4 -U 3c7a1f5e-9b0d-4f3e-8a21-6d5c4b3a2f10 "$tmp/ext4.img"
mkfs.vfat -n DEVMANVFAT -i 1234ABCD "$tmp/vfat.img" >/dev/null
"$build/tests/loopctl" add "$base" 2 || skip "cannot add loop devices"
for _ in $(seq 100); do [ -b "/dev/loop$((base + 1))" ] && break; sleep 0.05; done
attach "/dev/loop$base" "$tmp/ext4.img" && attach "/dev/loop$((base + 1))" "$tmp/vfat.img" || exit 1
# the oracle's own status (through a pipe it would be tee's)
"$(dirname "$0")/test-rules-oracle.sh" "$build/daemon/devmanadm" /lib/udev/rules.d \
    "/sys/class/block/loop$base" "/sys/class/block/loop$((base + 1))"
