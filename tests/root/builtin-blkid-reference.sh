#!/bin/sh
# Live kernel, as root: devman's blkid builtin and the reference (udevadm test-builtin blkid,
# systemd-udevd 252) on the same loop devices backed by real filesystems and partition tables
# must print exactly the same properties, with and without --offset/--noraid.
# Partitions (ID_PART_ENTRY_*): this kernel may lack partition table support, so a second loop
# device covers the partition's byte range and a small fake sysfs, bind-mounted over /sys in a
# private mount namespace, presents it as partition 1 of the first (dev, partition, start,
# size): libblkid then reads the table of the whole disk, for both sides.
# Loop devices come from /dev/loop-control at indices of our own and are always removed.
# Usage: builtin-blkid-reference.sh BUILDDIR
set -u
build=${1:?build dir}
. "$(dirname "$0")/lib.sh"
require root loop-control udevadm losetup mkfs.ext4 mkfs.vfat sfdisk

test_dirs blkid
base=$(( 3500 + ($$ % 400) * 2 ))
loop=/dev/loop$base
part=$((base + 1))
own_loops "$base" 2
cleanup_hook() { losetup -d "$loop" 2>/dev/null; losetup -d "/dev/loop$part" 2>/dev/null; }

"$build/tests/loopctl" add "$base" 2 || skip "cannot add loop$base"
for _ in $(seq 50); do [ -b "$loop" ] && [ -b "/dev/loop$part" ] && break; sleep 0.05; done

# images: name, then the commands that make it
truncate -s 32M "$tmp/ext4.img"
mkfs.ext4 -q -F -L ' my lab€l\x' -U 01234567-89ab-cdef-0123-456789abcdef "$tmp/ext4.img"
truncate -s 32M "$tmp/vfat.img"
mkfs.vfat -n 'EFI SYS' -i 1234ABCD "$tmp/vfat.img" >/dev/null
truncate -s 40M "$tmp/gpt.img"
printf 'label: gpt\nlabel-id: 11111111-2222-3333-4444-555555555555\nstart=2048, size=65536, name="root fs"\n' |
    sfdisk -q "$tmp/gpt.img"
dd if="$tmp/ext4.img" of="$tmp/gpt.img" bs=1M seek=1 conv=notrunc status=none
truncate -s 16M "$tmp/dos.img"
printf 'label: dos\nlabel-id: 0x12345678\nstart=2048, type=83\n' | sfdisk -q "$tmp/dos.img"
truncate -s 1M "$tmp/floppy.img"   # small whole disk with a table: no filesystem probe
printf 'label: dos\nlabel-id: 0x0badcafe\nstart=64, type=83\n' | sfdisk -q "$tmp/floppy.img"
mkfs.vfat -n INSIDE "$tmp/floppy.img" >/dev/null 2>&1 || true
truncate -s 8M "$tmp/zero.img"
# a minimal ISO 9660 image (primary volume descriptor and terminator) with every identifier set
python3 - "$tmp/iso.img" <<'PY'
import struct, sys
def pad(s, n): return s.encode("latin-1").ljust(n, b" ")
def both(fmt, v): return struct.pack("<" + fmt, v) + struct.pack(">" + fmt, v)
img = bytearray(2048 * 64)
pvd = bytearray(2048)
pvd[0:7] = b"\x01CD001\x01"
pvd[8:40] = pad("LINUX SYS", 32)
pvd[40:72] = pad("MY ISO VOL", 32)
pvd[80:88] = both("I", 64)
pvd[120:124] = both("H", 1)
pvd[124:128] = both("H", 1)
pvd[128:132] = both("H", 2048)
pvd[190:318] = pad("SET one", 128)
pvd[318:446] = pad("Publisher/Inc", 128)
pvd[446:574] = pad("Preparer", 128)
pvd[574:702] = pad("App \\x2 \xe9", 128)
pvd[813:830] = b"2026120308000000\x00"
pvd[830:847] = b"2026120309000000\x00"
pvd[881] = 1
img[16 * 2048:17 * 2048] = pvd
img[17 * 2048:17 * 2048 + 7] = b"\xffCD001\x01"
open(sys.argv[1], "wb").write(img)
PY

compare() { # image, builtin command line
    attach "$loop" "$tmp/$1" || { nok "$1: losetup"; return; }
    udevadm test-builtin "$2" "/sys/block/loop$base" 2>/dev/null | grep '=' | sort >"$tmp/ref"
    DEVMAN_LOG_LEVEL=err "$build/tests/builtin-run" "/sys/block/loop$base" "$2" >"$tmp/mine" 2>"$tmp/err"
    rc=$?
    losetup -d "$loop"
    if [ $rc -eq 0 ] && cmp -s "$tmp/ref" "$tmp/mine"; then
        ok "$1 '$2': $(wc -l <"$tmp/ref") identical properties"
    else
        nok "$1 '$2' (rc $rc)"; diff "$tmp/ref" "$tmp/mine"; cat "$tmp/err"
    fi
}
# an unbound loop device (size 0, as in a storm of LOOP_CTL_ADD): nothing to report, on both sides
udevadm test-builtin blkid "/sys/block/loop$base" 2>/dev/null | grep '=' | sort >"$tmp/ref"
if DEVMAN_LOG_LEVEL=err "$build/tests/builtin-run" "/sys/block/loop$base" blkid >"$tmp/mine" 2>"$tmp/err" &&
    cmp -s "$tmp/ref" "$tmp/mine" && ! grep -q '^ID_FS' "$tmp/mine"; then
    ok "empty loop device 'blkid': $(wc -l <"$tmp/ref") identical properties, no ID_FS_*"
else
    nok "empty loop device 'blkid'"; diff "$tmp/ref" "$tmp/mine"; cat "$tmp/err"
fi
compare ext4.img blkid
compare ext4.img "blkid --noraid"
compare vfat.img blkid
compare gpt.img blkid
compare gpt.img "blkid --offset=1048576"
compare dos.img blkid
compare floppy.img blkid
compare zero.img blkid
compare iso.img blkid
# partitions through a fake sysfs: image, partition start and size (sectors), number
fake_sysfs() { # dir start size partno
    d=$1/devices/virtual/block/loop$base
    p=$d/loop${base}p$4
    mkdir -p "$p" "$1/dev/block" "$1/class/block" "$1/block"
    echo "7:$base" >"$d/dev"
    printf 'MAJOR=7\nMINOR=%d\nDEVNAME=loop%d\nDEVTYPE=disk\n' "$base" "$base" >"$d/uevent"
    echo $(($(stat -c %s "$tmp/$img") / 512)) >"$d/size"
    ln -s ../../../../class/block "$d/subsystem"
    echo "7:$part" >"$p/dev"
    printf 'MAJOR=7\nMINOR=%d\nDEVNAME=loop%d\nDEVTYPE=partition\nPARTN=%d\n' "$part" "$part" "$4" >"$p/uevent"
    echo "$4" >"$p/partition"; echo "$2" >"$p/start"; echo "$3" >"$p/size"
    ln -s ../../../../../class/block "$p/subsystem"
    ln -s "../../devices/virtual/block/loop$base" "$1/dev/block/7:$base"
    ln -s "../../devices/virtual/block/loop$base/loop${base}p$4" "$1/dev/block/7:$part"
    ln -s "../../devices/virtual/block/loop$base" "$1/class/block/loop$base"
    ln -s "../../devices/virtual/block/loop$base/loop${base}p$4" "$1/class/block/loop${base}p$4"
    ln -s "../devices/virtual/block/loop$base" "$1/block/loop$base"
}
compare_partition() { # image, start, size, number, expected ID_PART_ENTRY_SCHEME, another expected line
    img=$1
    rm -rf "$tmp/fsys"
    fake_sysfs "$tmp/fsys" "$2" "$3" "$4"
    attach "$loop" "$tmp/$img" && attach --offset $(($2 * 512)) --sizelimit $(($3 * 512)) "/dev/loop$part" "$tmp/$img" ||
        { nok "$img: losetup"; return; }
    unshare -m --propagation private sh -c "mount --bind '$tmp/fsys' /sys || exit 1
        export SYSTEMD_DEVICE_VERIFY_SYSFS=0 SYSTEMD_LOG_LEVEL=err DEVMAN_LOG_LEVEL=err
        udevadm test-builtin blkid /sys/class/block/loop${base}p$4 2>/dev/null | grep = | sort >'$tmp/ref'
        '$build/tests/builtin-run' /sys/class/block/loop${base}p$4 blkid >'$tmp/mine'"
    rc=$?
    losetup -d "/dev/loop$part"; losetup -d "$loop"
    if [ $rc -eq 0 ] && cmp -s "$tmp/ref" "$tmp/mine" && grep -qx "ID_PART_ENTRY_SCHEME=$5" "$tmp/mine" &&
        grep -qx "ID_PART_ENTRY_DISK=7:$base" "$tmp/mine" && grep -qxF "${6:-ID_PART_ENTRY_NUMBER=$4}" "$tmp/mine"; then
        ok "$img partition $4: $(wc -l <"$tmp/ref") identical properties"
    else
        nok "$img partition $4 (rc $rc)"; diff "$tmp/ref" "$tmp/mine"
    fi
}
truncate -s 40M "$tmp/gpt2.img"
printf 'label: gpt\nlabel-id: 11111111-2222-3333-4444-555555555555\nstart=2048, size=65536, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE, name="root fs", attrs="RequiredPartition LegacyBIOSBootable"\nstart=67584, size=8192, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=esp\n' |
    sfdisk -q "$tmp/gpt2.img"
dd if="$tmp/ext4.img" of="$tmp/gpt2.img" bs=1M seek=1 conv=notrunc status=none
compare_partition gpt2.img 2048 65536 1 gpt "ID_PART_ENTRY_NAME=root\\x20fs"
compare_partition gpt2.img 67584 8192 2 gpt
truncate -s 16M "$tmp/dos2.img"
printf 'label: dos\nlabel-id: 0x12345678\nstart=2048, size=8192, type=83, bootable\nstart=10240, type=c\n' | sfdisk -q "$tmp/dos2.img"
mkfs.vfat -n DOSPART --offset 10240 "$tmp/dos2.img" >/dev/null 2>&1
compare_partition dos2.img 2048 8192 1 dos ID_PART_ENTRY_FLAGS=0x80
compare_partition dos2.img 10240 22528 2 dos ID_FS_LABEL=DOSPART

# btrfs ready: the same answer (or the same refusal) as the reference on the same loop device;
# without a btrfs-control node the volume is not ready
attach "$loop" "$tmp/ext4.img"
ref=$(udevadm test-builtin "btrfs ready $loop" "/sys/block/loop$base" 2>/dev/null | grep '=' ); rrc=$?
mine=$(DEVMAN_LOG_LEVEL=err "$build/tests/builtin-run" "/sys/block/loop$base" "btrfs ready $loop" 2>/dev/null); mrc=$?
if [ "$ref" = "$mine" ] && { [ $rrc -eq 0 ] || [ -z "$ref" ]; } && { [ $mrc -eq 0 ] || [ -z "$mine" ]; }; then
    ok "btrfs ready: '$mine' like the reference"
else
    nok "btrfs ready: reference '$ref' (rc $rrc), devman '$mine' (rc $mrc)"
fi
mkdir -p "$tmp/nodev"
if [ "$("$build/tests/builtin-run" --dev-root "$tmp/nodev" "/sys/block/loop$base" "btrfs ready $loop")" = "ID_BTRFS_READY=0" ]; then
    ok "no btrfs-control: not ready"; else nok "no btrfs-control"; fi
losetup -d "$loop"
# something must have been found where we put it (guards against both sides printing nothing)
attach "$loop" "$tmp/ext4.img"
if DEVMAN_LOG_LEVEL=err "$build/tests/builtin-run" "/sys/block/loop$base" blkid | grep -qx 'ID_FS_TYPE=ext4'; then
    ok "ext4 found"; else nok "ext4 not found"; fi
losetup -d "$loop"

results
