#!/bin/sh
# Guest /init of vm-kmod (busybox sh): devmand on an empty tmpfs /dev with rules for the test
# class of kmod/dmconv.c; the module is loaded in each of its layouts, devices are made,
# removed and renamed through its class attributes, and devmanadm snapshot / compare run across
# the reloads. The guest only acts and dumps; vm-kmod.py checks.
#
# Report (hvc0, a file on the host), line-based:
#   @@STEP NAME ... @@ENDSTEP        /dev entries of the class (init.sh's format) and the
#                                    kernel's view (@@SYS name dev devpath)
#   @@FILE NAME ... @@ENDFILE        a snapshot or a compare report
#   @@RC NAME N                      the exit status of a command
#   @@WARN / @@FATAL / @@DONE
# ttyS1 is the control channel of qemu.py: "DONE" when finished.

# guest_start, log, warn, die, mount_roots, open_channels, uptime_s, finish (tests/vm/guest-lib.sh)
# shellcheck source=/dev/null
. /vmtest/lib.sh
guest_start
mount_roots tmpfs
for m in virtio_pci virtio_console; do
    modprobe "$m" || die "modprobe $m"
done

open_channels

# The rules a driver author would ship with the class: mode, group and a link per device.
cat >/etc/udev/rules.d/60-dmconv.rules <<'EOF'
SUBSYSTEM=="dmconv", KERNEL=="dmconv*", MODE="0640", GROUP="dialout", SYMLINK+="dmconv/by-name/%k"
EOF

command -v devmand >/dev/null || die "devmand is not in this initramfs"
devmand --daemon || die "devmand did not start"
devmanadm trigger --type=subsystems --action=add || echo "@@WARN trigger subsystems failed" >&4
devmanadm trigger --type=devices --action=add || echo "@@WARN trigger devices failed" >&4
devmanadm settle --timeout=60 || echo "@@WARN settle failed" >&4

settle() { devmanadm settle --timeout=60 || echo "@@WARN settle failed after $1" >&4; }

# The class's nodes and links as devman left them, and the kernel's devices of the class.
dump() { # STEP
    {
        echo "@@STEP $1"
        find /dev -xdev -name 'dmconv*' ! -type l ! -type d -exec stat -c '%n|%F|%a|%U|%G|%t:%T|%i' {} + | sort
        find /dev -xdev -type l -path '*dmconv*' -exec stat -c '%n|link|%N' {} + | sort
        for d in /sys/class/dmconv/dmconv*; do
            [ -e "$d/dev" ] || continue
            echo "@@SYS ${d##*/} $(cat "$d/dev") $(cd -P "$d" && pwd)"
        done
        echo "@@ENDSTEP $1"
    } >&4
}

attr() { # NAME VALUE
    echo "$2" >"/sys/class/dmconv/$1" || echo "@@WARN echo '$2' > /sys/class/dmconv/$1 failed" >&4
}

# One layout: load, make four devices, remove one, rename one; a dump after each step.
layout() { # LAYOUT
    modprobe dmconv layout="$1" || die "modprobe dmconv layout=$1"
    settle "load $1"
    attr add 4
    settle "add $1"
    dump "$1-add"
    attr remove dmconv3
    settle "remove $1"
    dump "$1-remove"
    attr rename "dmconv2 dmconvmoved"
    settle "rename $1"
    dump "$1-rename"
}

unload() { # LAYOUT
    rmmod dmconv || die "rmmod dmconv ($1)"
    settle "unload $1"
    dump "$1-unloaded"
}

file() { # NAME PATH
    { echo "@@FILE $1"; cat "$2"; echo "@@ENDFILE $1"; } >&4
}

layout parent
devmanadm snapshot -o /tmp/parent.snap
echo "@@RC snapshot-parent $?" >&4
file parent.snap /tmp/parent.snap
unload parent

for l in nested virtual broken; do
    layout "$l"
    devmanadm snapshot -o "/tmp/$l.snap"
    echo "@@RC snapshot-$l $?" >&4
    devmanadm compare /tmp/parent.snap "/tmp/$l.snap" >"/tmp/compare-$l.txt" 2>&1
    echo "@@RC compare-$l $?" >&4
    file "compare-$l" "/tmp/compare-$l.txt"
    # the same comparison against the live tree (compare's default NEW)
    devmanadm compare /tmp/parent.snap >"/tmp/compare-$l-live.txt" 2>&1
    echo "@@RC compare-$l-live $?" >&4
    file "compare-$l-live" "/tmp/compare-$l-live.txt"
    file "$l.snap" "/tmp/$l.snap"
    unload "$l"
done

finish dmconv
