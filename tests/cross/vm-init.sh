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

export PATH=/usr/sbin:/usr/bin
export SYSTEMD_PAGER=cat PAGER=cat SYSTEMD_COLORS=0 TERM=dumb
umask 022

# log, warn, die, open_channels, uptime_s, wait_count, dump_dev, dump, host, manager_commands,
# finish (tests/vm/guest-lib.sh)
# shellcheck source=/dev/null
. /vmtest/lib.sh

mount -t proc -o nosuid,nodev,noexec proc /proc
mount -t sysfs -o nosuid,nodev,noexec sysfs /sys

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

case "$devfs" in
devtmpfs) mount -t devtmpfs -o nosuid,mode=0755 devtmpfs /dev || die "mount devtmpfs" ;;
tmpfs) mount -t tmpfs -o nosuid,mode=0755 dev /dev || die "mount tmpfs on /dev" ;;
*) die "unknown vmtest.dev=$devfs" ;;
esac
mount -t tmpfs -o nosuid,nodev,mode=0755 run /run
mount -t tmpfs -o nosuid,nodev tmp /tmp
[ "$devfs" = tmpfs ] && [ -n "$(ls -A /dev)" ] && die "/dev tmpfs is not empty"

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

[ "$devfs" = devtmpfs ] && { echo "@@STEP before"; dump_dev; echo "@@ENDSTEP before"; } >&4

t_start=$(uptime_s)
echo "@@STARTED-BY $start" >&4
coldplug
t_settle=$(uptime_s)
coldplug_settled
settle || warn "settle failed"
t_ready=$(uptime_s)
echo "@@TIMING start=$t_start settle=$t_settle ready=$t_ready" >&4
log "settled: start $t_start settle $t_settle ready $t_ready"
udevadm monitor --udev --property >/tmp/monitor.log 2>&1 &
monitor_pid=$!
dump coldplug >&4

if has_step disk; then
    host disk-add
    disks_settled 2 0
    settle || warn "settle failed"
    dump disk-add >&4
    host disk-remove
    disks_settled 1 0
    settle || warn "settle failed"
    dump disk-remove >&4
fi

if has_step usb; then
    host usb-add
    disks_settled 1 1
    settle || warn "settle failed"
    dump usb-add >&4
    host usb-remove
    disks_settled 1 0
    settle || warn "settle failed"
    dump usb-remove >&4
fi

if has_step uinput; then
    count_events() { n=0; for p in /sys/class/input/event*; do [ -e "$p" ] && n=$((n + 1)); done; echo $n; }
    before=$(count_events)
    uinput-device --name devman-vm-uinput >/tmp/uinput.out 2>&1 &
    uinput_pid=$!
    wait_count $((before + 1)) '/sys/class/input/event*' || :
    settle || warn "settle failed"
    dump uinput-add >&4
    kill -TERM "$uinput_pid"
    wait "$uinput_pid" || warn "uinput-device failed: $(cat /tmp/uinput.out)"
    wait_count "$before" '/sys/class/input/event*' || :
    settle || warn "settle failed"
    dump uinput-remove >&4
fi

kill "$monitor_pid" 2>/dev/null
finish
