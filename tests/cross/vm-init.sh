#!/bin/sh
# Guest /init of the cross VM test (tests/cross/vm.py; busybox sh, Debian 12's arm64, armhf or
# s390x userland and kernel). The x86-64 suite's scenario (tests/vm/init.sh) on the hardware
# qemu's virt and s390-ccw-virtio machines have: one device manager, coldplug, a dump; then
# the hot-plug steps this machine has, each followed by a dump. The dumps are guest-lib.sh's,
# so tests/vm/report.py and compare.py read them.
#
# Kernel command line:
#   vmtest.manager=udevd|devman    which device manager runs
#   vmtest.dev=devtmpfs|tmpfs      what /dev is (tmpfs starts empty)
#   vmtest.start=rcs               devman: started by the generated devman.rcS, as busybox init does
#   vmtest.steps=a,b,...           hot-plug steps: disk (virtio disk through QMP), usb (USB stick
#                                  through QMP), uinput (a uinput device made in the guest)
# Channels: /vmtest/out = hvc0 (the report), /vmtest/ctl = hvc1 (the host's line protocol);
# both are ports of one virtio-serial device (these machines have one UART, the console).

# guest_start, log, warn, die, mount_roots, open_channels, uptime_s, wait_count, dump_dev, dump, host,
# manager_commands, coldplug_step, step, uinput_steps, finish (tests/vm/guest-lib.sh)
# shellcheck source=/dev/null
. /vmtest/lib.sh
guest_start

manager=udevd
devfs=devtmpfs
start=init.sh
steps=
# shellcheck disable=SC2013 # the command line is one line of words
for arg in $(cat /proc/cmdline); do
    case "$arg" in
    vmtest.manager=*) manager=${arg#vmtest.manager=} ;;
    vmtest.dev=*) devfs=${arg#vmtest.dev=} ;;
    vmtest.start=rcs) start=devman.rcS ;;
    vmtest.steps=*) steps=$(echo "${arg#vmtest.steps=}" | tr ',' ' ') ;;
    esac
done
log "manager=$manager dev=$devfs start=$start steps=$steps machine=$(uname -m)"

mount_roots "$devfs"

# What init loads itself, as an initramfs does: the channels' transport and virtio console,
# and uinput (no modalias). The host lists the ones that are modules (/vmtest/early).
# shellcheck disable=SC2013 # one line of module names
for m in $(cat /vmtest/early); do
    modprobe "$m" || die "modprobe $m"
done

open_channels hvc1

has_step() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
manager_commands "$manager" "$start" 120 30

# The hardware of vm.py's machines: one virtio disk with two partitions, one virtio NIC (and
# lo); on the ARM boards a USB keyboard and tablet, on s390x a virtio keyboard.
disks_settled() { # VD SD
    wait_count "$1" '/sys/block/vd?' || :
    wait_count "$2" '/sys/block/sd?' || :
}
coldplug_settled() {
    disks_settled 1 0
    wait_count 2 '/sys/block/vd?/vd?[12]' || :
    wait_count 2 '/sys/class/net/*' || :
    case "$(uname -m)" in
    s390x) wait_count 1 '/sys/bus/virtio/drivers/virtio_input/*/input/input*/event*' || : ;;
    *) wait_count 2 '/sys/bus/usb/drivers/usbhid/*/*/input/input*/event*' || : ;;
    esac
}

coldplug_step "$devfs" "$start"

if has_step disk; then
    step disk-add disks_settled 2 0
    step disk-remove disks_settled 1 0
fi

if has_step usb; then
    step usb-add disks_settled 1 1
    step usb-remove disks_settled 1 0
fi

if has_step uinput; then
    uinput_steps
fi

finish
