# Shared by the guests' /init scripts (init.sh, kmod-init.sh; busybox sh, sourced): messages,
# the fatal exit, and the two channels to the host. initramfs.add_base() puts it at
# /vmtest/lib.sh.
#   log MSG / warn MSG     to the kernel console; warn also as "@@WARN" into the report
#   die MSG                "@@FATAL" into the report and "FATAL" to the host, then reboot
#   open_channels          /vmtest/out (hvc0, the report, fd 4) and /vmtest/ctl (ttyS1, the
#                          host's line protocol, fd 3): private nodes, never in /dev, so /dev
#                          holds only what the manager and the kernel made
#   uptime_s               seconds since the kernel started

log() { echo "vmtest: $*"; }
warn() {
    log "$*"
    echo "@@WARN $*" >&4
}
die() {
    echo "vmtest: FATAL: $*"
    [ -w /vmtest/out ] && echo "@@FATAL $*" >&4
    [ -w /vmtest/ctl ] && echo "FATAL $*" >&3
    sync
    reboot -f
    sleep 60
}

# Private node of a device from its sysfs dev attribute.
private_node() { # NAME SYSFS-DIR
    _i=0
    while [ ! -r "$2/dev" ]; do
        _i=$((_i + 1))
        [ $_i -gt 100 ] && die "no $2/dev"
        sleep 0.1
    done
    _dev=$(cat "$2/dev")
    mknod "/vmtest/$1" c "${_dev%:*}" "${_dev#*:}" || die "mknod /vmtest/$1"
}

open_channels() {
    private_node out /sys/class/tty/hvc0
    private_node ctl /sys/class/tty/ttyS1
    stty -F /vmtest/ctl raw -echo -icanon -ixon 115200 || die "stty ctl"
    exec 3<>/vmtest/ctl
    exec 4>/vmtest/out
}

uptime_s() { cut -d' ' -f1 /proc/uptime; }
