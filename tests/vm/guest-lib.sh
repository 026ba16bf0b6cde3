# Shared by the guests' /init scripts (init.sh, kmod-init.sh; busybox sh, sourced): messages,
# the fatal exit, and the two channels to the host. initramfs.add_base() puts it at
# /vmtest/lib.sh.
#   log MSG / warn MSG     to the kernel console; warn also as "@@WARN" into the report
#   die MSG                "@@FATAL" into the report and "FATAL" to the host, then reboot
#   guest_start            the environment (PATH, no pager or colours: udevadm and libinput
#                          write into the report, not to a terminal), /proc and /sys
#   mount_roots DEVFS      /dev (devtmpfs, or an empty tmpfs), /run and /tmp
#   open_channels [TTY]    /vmtest/out (hvc0, the report, fd 4) and /vmtest/ctl (TTY or ttyS1, the
#                          host's line protocol, fd 3): private nodes, never in /dev, so /dev
#                          holds only what the manager and the kernel made
#   uptime_s               seconds since the kernel started
#   wait_count N GLOB      wait until N paths match GLOB (a time-out is a warning)
#   dump_dev, dump STEP    what the report says of /dev, and of /dev, the database, libinput,
#                          modules and interfaces after a step (init.sh, tests/cross/vm-init.sh;
#                          report.py parses it)
#   host ACTION            ask the host for a hot-plug action (QMP) and wait for its answer
#   manager_commands MANAGER START SETTLE-S PING-S
#                          chooses what start_manager, trigger TYPE, settle and coldplug run:
#                          udevd's or devman's commands (START devman.rcS: coldplug runs the rcS)
#   coldplug_step DEVFS START  the boot's coldplug: /dev before (devtmpfs), the manager's
#                          coldplug, what must exist (coldplug_settled, the script's), @@TIMING,
#                          then a libudev client listening (udevadm monitor) and the dump
#   step ACTION WAIT-CMD...  a hot-plug step: the host acts, the guest waits (WAIT-CMD), settles
#                          and dumps the step
#   uinput_steps           the steps uinput-add and uinput-remove: a uinput device made and
#                          removed in the guest (tests/vm/uinput-device), each settled and dumped
#   finish [DMESG-FILTER]  the kernel log (lines matching the filter), @@DONE, DONE, reboot

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

guest_start() {
    export PATH=/usr/sbin:/usr/bin
    export SYSTEMD_PAGER=cat PAGER=cat SYSTEMD_COLORS=0 TERM=dumb
    umask 022
    mount -t proc -o nosuid,nodev,noexec proc /proc
    mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
}

mount_roots() { # devtmpfs|tmpfs
    case "$1" in
    devtmpfs) mount -t devtmpfs -o nosuid,mode=0755 devtmpfs /dev || die "mount devtmpfs" ;;
    tmpfs) mount -t tmpfs -o nosuid,mode=0755 dev /dev || die "mount tmpfs on /dev" ;;
    *) die "unknown vmtest.dev=$1" ;;
    esac
    mount -t tmpfs -o nosuid,nodev,mode=0755 run /run
    mount -t tmpfs -o nosuid,nodev tmp /tmp
    if [ "$1" = tmpfs ] && [ -n "$(ls -A /dev)" ]; then
        die "/dev tmpfs is not empty"
    fi
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

open_channels() { # [CTL-TTY: ttyS1]
    private_node out /sys/class/tty/hvc0
    private_node ctl "/sys/class/tty/${1:-ttyS1}"
    case "${1:-ttyS1}" in
    ttyS*) stty -F /vmtest/ctl raw -echo -icanon -ixon 115200 || die "stty ctl" ;;
    # a virtio console port has no line settings to speak of; stty says it cannot set them all
    *) stty -F /vmtest/ctl raw -echo 2>/dev/null || log "stty ctl: not every setting took" ;;
    esac
    exec 3<>/vmtest/ctl
    exec 4>/vmtest/out
}

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# Wait until exactly COUNT paths match the sysfs glob PATTERN: 60 s, generous for a loaded TCG
# guest. A device that never comes is reported (@@WARN) and the boot goes on, so the report
# still shows what the manager did; after the first time-out the others wait 5 s, keeping a
# boot with a broken manager bounded.
wait_limit=600
wait_count() { # COUNT PATTERN
    i=0
    while :; do
        n=0
        for p in $2; do [ -e "$p" ] && n=$((n + 1)); done
        [ "$n" -eq "$1" ] && return 0
        i=$((i + 1))
        if [ $i -gt $wait_limit ]; then
            warn "time-out waiting for $1 of $2 (have $n)"
            wait_limit=50
            return 1
        fi
        sleep 0.1
    done
}

# Snapshot of /dev: path|type|mode|user|group|major:minor(hex)|inode; links: path|link|'path' -> 'target'
dump_dev() {
    echo "@@SECTION dev"
    find /dev -xdev ! -type l -exec stat -c '%n|%F|%a|%U|%G|%t:%T|%i' {} + | sort
    find /dev -xdev -type l -exec stat -c '%n|link|%N' {} + | sort
}

# What a step left: /dev, the udev database as files and as udevadm reads it, what libinput
# (a libudev client) sees, loaded modules and network interfaces. Few processes: under TCG
# every fork costs.
dump() { # STEP
    echo "@@STEP $1"
    echo "@@UPTIME $(uptime_s)"
    dump_dev
    echo "@@SECTION datafiles"
    find /run/udev/data -type f 2>/dev/null | sort
    echo "@@SECTION data"
    grep -H '' /run/udev/data/* 2>/dev/null
    echo "@@SECTION tags"
    find /run/udev/tags -mindepth 2 2>/dev/null | sed 's|^/run/udev/tags/||' | sort
    echo "@@SECTION run"
    find /run/udev -maxdepth 1 2>/dev/null | sort
    echo "@@SECTION exportdb"
    udevadm info --export-db | cat
    echo "@@SECTION libinput"
    command -v libinput >/dev/null && libinput list-devices 2>&1 | cat
    echo "@@SECTION monitor"
    cat /tmp/monitor.log 2>/dev/null
    echo "@@SECTION modules"
    cut -d' ' -f1 /proc/modules | sort
    echo "@@SECTION net"
    ls -1 /sys/class/net
    echo "@@ENDSTEP $1"
}

host() { # ACTION
    echo "REQ $1" >&3
    read -r answer <&3
    answer=$(echo "$answer" | tr -d '\r')
    [ "$answer" = "OK $1" ] || die "host answered '$answer' to $1"
}

# The manager's commands, named alike for both managers: manager_commands chooses them once.
manager_commands() { # MANAGER START SETTLE-TIMEOUT PING-TIMEOUT (seconds)
    vm_manager=$1
    vm_start=$2
    settle_timeout=$3
    ping_timeout=$4
    case "$vm_manager" in
    udevd) ;;
    devman) command -v devmand >/dev/null || die "devmand is not in this initramfs" ;;
    *) die "unknown vmtest.manager=$vm_manager" ;;
    esac
    if [ "$vm_start" = devman.rcS ]; then
        [ "$vm_manager" = devman ] || die "vmtest.start=rcs is for devman"
        [ -x /usr/share/devman/devman.rcS ] || die "/usr/share/devman/devman.rcS is not in this initramfs"
    fi
}
start_manager() {
    case "$vm_manager" in
    udevd) /usr/lib/systemd/systemd-udevd --daemon ;;
    *) devmand --daemon ;;
    esac
}
trigger() { # TYPE
    case "$vm_manager" in
    udevd) udevadm trigger --type="$1" --action=add ;;
    *) devmanadm trigger --type="$1" --action=add ;;
    esac
}
settle() {
    case "$vm_manager" in
    udevd) udevadm settle --timeout="$settle_timeout" ;;
    *) devmanadm settle --timeout="$settle_timeout" ;;
    esac
}
# Start the manager, coldplug, settle; or what an rcS does: run devman's snippet (it reports
# problems on stderr and always goes on).
coldplug() {
    if [ "$vm_start" = devman.rcS ]; then
        /usr/share/devman/devman.rcS 2>/tmp/rcs.err
        [ -s /tmp/rcs.err ] && warn "devman.rcS said: $(cat /tmp/rcs.err)"
        devmanadm control --ping --timeout="$ping_timeout" || die "devmand does not answer after devman.rcS"
        return 0
    fi
    start_manager || die "could not start $vm_manager"
    trigger subsystems || warn "trigger --type=subsystems failed"
    trigger devices || warn "trigger --type=devices failed"
    settle || warn "settle failed"
}

coldplug_step() { # DEVFS START
    if [ "$1" = devtmpfs ]; then
        { echo "@@STEP before"; dump_dev; echo "@@ENDSTEP before"; } >&4
    fi
    t_start=$(uptime_s)
    echo "@@STARTED-BY $2" >&4
    coldplug
    t_settle=$(uptime_s)
    coldplug_settled
    settle || warn "settle failed"
    t_ready=$(uptime_s)
    echo "@@TIMING start=$t_start settle=$t_settle ready=$t_ready" >&4
    log "settled: start $t_start settle $t_settle ready $t_ready"
    # a libudev client listening from now on: Debian's udevadm monitor, whatever manager runs
    udevadm monitor --udev --property >/tmp/monitor.log 2>&1 &
    monitor_pid=$!
    dump coldplug >&4
}

# One hot-plug step the host carries out.
step() { # ACTION WAIT-CMD...
    step_action=$1
    shift
    host "$step_action"
    "$@"
    settle || warn "settle failed"
    dump "$step_action" >&4
}

count_events() { n=0; for p in /sys/class/input/event*; do [ -e "$p" ] && n=$((n + 1)); done; echo $n; }
uinput_steps() {
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
}

# The end of a guest: the kernel log (and what the manager logged to kmsg) for whoever reads
# report.txt, the end marks on both channels, and the power-off.
finish() { # [DMESG-FILTER]
    [ -n "${monitor_pid:-}" ] && kill "$monitor_pid" 2>/dev/null
    if [ $# -gt 0 ]; then
        { echo "@@DMESG"; dmesg | grep -i "$1"; } >&4
    else
        { echo "@@DMESG"; dmesg; } >&4
    fi
    echo "@@DONE" >&4
    echo "DONE" >&3
    log "done"
    sync
    reboot -f
    sleep 60
}
