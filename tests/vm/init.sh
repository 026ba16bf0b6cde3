#!/bin/sh
# Guest /init of the vm suite (busybox sh). Boots like a minimal distro, runs one device
# manager, and reports what it made after coldplug and after each hot-plug step.
#
# Kernel command line:
#   vmtest.manager=udevd|devman   which device manager to run
#   vmtest.dev=devtmpfs|tmpfs      what to mount on /dev (tmpfs starts EMPTY)
#   vmtest.start=rcs               devman only: start and coldplug through the installed rcS
#                                  snippet (/usr/share/devman/devman.rcS), as busybox init would
#   vmtest.snapshot=1              devman only (suite kernels): after coldplug, report
#                                  `devmanadm snapshot` and `devmanadm classes`, and when the
#                                  initramfs holds /vmtest/old.snap (another kernel's snapshot)
#                                  `devmanadm compare` and `classes --compare` against it
# Channels (private nodes under /vmtest, never in /dev, so /dev holds only what the manager
# and the kernel made):
#   /vmtest/ctl  ttyS1: line protocol with the host ("REQ <action>" -> "OK <action>")
#   /vmtest/out  hvc0 (virtio console): the report, written to a file on the host
# Everything the guest says for a human goes to the kernel console (ttyS0).

# guest_start, log, warn, die, mount_roots, open_channels, uptime_s, wait_count, dump_dev, dump, host,
# manager_commands, coldplug_step, step, uinput_steps, finish (tests/vm/guest-lib.sh)
# shellcheck source=/dev/null
. /vmtest/lib.sh
guest_start

manager=udevd
devfs=devtmpfs
preload=0
snapshot=0
start=init.sh
# shellcheck disable=SC2013 # the command line is one line of words
for arg in $(cat /proc/cmdline); do
    case "$arg" in
    vmtest.preload=1) preload=1 ;;
    vmtest.snapshot=1) snapshot=1 ;;
    vmtest.manager=*) manager=${arg#vmtest.manager=} ;;
    vmtest.dev=*) devfs=${arg#vmtest.dev=} ;;
    vmtest.start=rcs) start=devman.rcS ;;
    esac
done
log "manager=$manager dev=$devfs start=$start"

mount_roots "$devfs"

# Init loads, like an initramfs does: the report channel (virtio console), what has no
# modalias (uinput), and the USB host controllers in a fixed order, because USB bus numbers
# (usb1, usb2 in every devpath below them) follow the order the drivers bind. Everything else
# (disks, NICs, HID, evdev, usb-storage on hot-plug) is left to the manager's kmod builtin.
for m in virtio_pci virtio_console uinput ehci_pci; do
    modprobe "$m" || die "modprobe $m"
done
# Debugging aid (DEVMAN_VM_PRELOAD=1): every module the hardware needs, before the manager.
if [ "$preload" = 1 ]; then
    # shellcheck disable=SC2046 # one module name per word
    modprobe -a $(cat /vmtest/modules) || die "preloading modules"
fi

open_channels

manager_commands "$manager" "$start" 60 10

# Disks are counted in /sys/block: a directory of each disk holding its partitions on every
# kernel, also one with the legacy layout (CONFIG_SYSFS_DEPRECATED: no /sys/class/block).
# Counts of virtio and SCSI disks the host's hardware gives (qemu.py): at boot one virtio disk
# and the SATA disk; the USB stick is only hot-plugged, so sd names never race between the
# AHCI and USB probes. Waited for after settle: some drivers probe asynchronously.
blocks_settled() { # VD SD
    wait_count "$1" '/sys/block/vd?' || :
    wait_count "$2" '/sys/block/sd?' || :
}

# What must exist before the boot counts as settled: disks and their partitions, the USB
# keyboard's and tablet's event devices, both NICs.
coldplug_settled() {
    blocks_settled 1 1
    wait_count 2 '/sys/block/vda/vda[12]' || :
    wait_count 1 '/sys/block/sd?/sd?1' || :
    wait_count 2 '/sys/bus/usb/drivers/usbhid/*/*/input/input*/event*' || :
    wait_count 3 '/sys/class/net/*' || :
}

coldplug_step "$devfs" "$start"

# A command's output as a named file of the report, then its exit status.
report_file() { # NAME COMMAND...
    name=$1
    shift
    echo "@@FILE $name"
    "$@" 2>&1
    rc=$?
    echo "@@ENDFILE $name"
    echo "@@RC $name $rc"
}
if [ "$snapshot" = 1 ] && [ "$manager" = devman ]; then
    {
        report_file snapshot devmanadm snapshot
        report_file classes devmanadm classes
        if [ -r /vmtest/old.snap ]; then
            report_file compare devmanadm compare --verbose /vmtest/old.snap
            report_file classes-compare devmanadm classes --compare=/vmtest/old.snap
        fi
    } >&4
fi

step disk-add blocks_settled 2 1
step disk-remove blocks_settled 1 1

step usb-add blocks_settled 1 2
step usb-remove blocks_settled 1 1

uinput_steps

finish
