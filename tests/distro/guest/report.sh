#!/bin/sh
# The distro suite's guest side (tests/distro): writes sections "@@BEGIN name" ... "@@END rc"
# to ttyS1 (a file on the host), then powers off. Parsed by tests/distro/distro.py.
out=/dev/ttyS1
# ttyS1 is a terminal: no colours, no pager, no names cut to its width
export SYSTEMD_COLORS=0 SYSTEMD_PAGER='' COLUMNS=1000
stty -F "$out" raw -echo 115200 2>/dev/null
exec 3>"$out"
# the host answers "@@REQ action" lines (hot-plug through QMP) on the same channel
exec 4<"$out"

section() {
    name=$1
    shift
    echo "@@BEGIN $name" >&3
    "$@" >&3 2>&1
    echo "@@END $? $name" >&3
}

# the device units (full names) with WORD in their name that are active, on one line
units_with() {
    systemctl list-units --full --type=device --all --plain --no-legend |
        awk -v w="$1" 'index($1, w) && $3 == "active" { printf "%s ", $1 }'
}

# asks the host for ACTION, then waits up to 60 s until a device unit with WORD in its name is
# active (want=present) or none is left (want=absent); one line "ACTION RESULT SECONDS UNITS"
hotplug() {
    action=$1 word=$2 want=$3
    echo "@@REQ $action" >&3
    # --foreground: ttyS1 is this session's controlling terminal (opened above), and a
    # background process group reading it would be stopped (SIGTTIN)
    reply=$(timeout --foreground 120 head -n 1 <&4 | tr -d '\r')
    if [ "$reply" != "OK $action" ]; then
        echo "$action host-failed 0 ${reply:-no-reply}"
        return 1
    fi
    i=0
    while [ $i -lt 60 ]; do
        found=$(units_with "$word")
        if [ "$want" = present ] && [ -n "$found" ]; then
            udevadm settle --timeout=30
            echo "$action appeared $i $(units_with "$word")"
            return 0
        fi
        if [ "$want" = absent ] && [ -z "$found" ]; then
            echo "$action gone $i"
            return 0
        fi
        sleep 1
        i=$((i + 1))
    done
    echo "$action timeout $i $found"
    return 1
}

# "NAME ADMIN_STATE=... OPER_STATE=..." of each interface from networkd's state files
networkd_states() {
    for i in /sys/class/net/*; do
        idx=$(cat "$i/ifindex")
        echo "${i##*/} $(grep -s -e '^ADMIN_STATE=' -e '^OPER_STATE=' "/run/systemd/netif/links/$idx" | tr '\n' ' ')"
    done
}

hotplug_all() {
    hotplug disk-add dmhotdisk present && hotplug disk-remove dmhotdisk absent
    hotplug usb-add dmhotusb present && hotplug usb-remove dmhotusb absent
}

# udevadm monitor in the background sees the KERNEL and UDEV events of a triggered change of
# the data disk; trigger and settle return
udevadm_cycle() {
    mon=/run/devman-distro-monitor.txt
    udevadm monitor --kernel --udev --subsystem-match=block >"$mon" 2>&1 &
    pid=$!
    i=0
    while [ $i -lt 20 ] && ! grep -q '^UDEV - ' "$mon"; do
        sleep 0.5
        i=$((i + 1))
    done
    udevadm trigger --action=change --subsystem-match=block --sysname-match=vdb
    echo "trigger rc $?"
    udevadm settle --timeout=60
    echo "settle rc $?"
    sleep 2
    kill "$pid"
    wait "$pid"
    cat "$mon"
}

# issue 28 part 3 (tests/distro/initrd.py): what devman's initramfs scripts recorded, the
# mount of /, the by-uuid links, and the device managers' lines of the kernel log (where an
# initramfs daemon logs)
initramfs_report() {
    echo "== stamp"
    cat /run/devman/initramfs
    echo "== rootmount"
    grep '^[0-9]* [0-9]* [0-9:]* / / ' /proc/self/mountinfo
    echo "== by-uuid"
    for l in /dev/disk/by-uuid/*; do
        echo "$l $(readlink -f "$l")"
    done
    echo "== kmsg"
    journalctl -b -k -q -o short-monotonic --no-pager | grep -e 'devmand\[' -e 'udevd\['
    # every event the real root's device manager broadcast, "SEQNUM ACTION DEVPATH", when
    # the image records them (devman-distro-events.service, from before devman starts)
    if systemctl -q is-active devman-distro-events.service; then
        systemctl stop devman-distro-events.service
        echo "== handover"
        cat /run/devman-distro-handover.txt
        echo "== events"
        # (from the properties: a devpath may hold spaces, "i8042 kbd")
        awk '/^UDEV  \[/ { act = ""; path = ""; seq = ""; blk = 1; next }
             blk && /^ACTION=/ { act = substr($0, 8) }
             blk && /^DEVPATH=/ { path = substr($0, 9) }
             blk && /^SEQNUM=/ { seq = substr($0, 8) }
             blk && /^$/ { print (seq == "" ? "-" : seq), act, path; blk = 0 }' /run/devman-distro-events.txt
    fi
    echo "== end"
}

# the boot jobs, getty's wait for its device included, are done (bounded by the host's watchdog)
state=$(systemctl is-system-running --wait 2>&1)
echo "@@STATE $state" >&3
if [ "$(systemctl is-enabled systemd-udevd.service 2>/dev/null)" = masked ]; then
    manager=devman
    units="devman.service devman-kernel.socket devman-control.socket devman-trigger.service devman-settle.service"
    settle=devman-settle.service
else
    manager=udevd
    units="systemd-udevd.service systemd-udevd-kernel.socket systemd-udevd-control.socket systemd-udev-trigger.service systemd-udev-settle.service"
    settle=systemd-udev-settle.service
fi
echo "@@MANAGER $manager" >&3
echo "@@VARIANT $(cat /etc/devman-distro-variant)" >&3
section cmdline cat /proc/cmdline
section uptime-units cat /proc/uptime
section failed systemctl list-units --full --failed --all --plain --no-legend
section devices systemctl list-units --full --type=device --all --plain --no-legend
# shellcheck disable=SC2086 # a list of unit names
section manager-units systemctl show -p Id -p ActiveState -p SubState -p NRestarts $units
section jobs systemctl list-jobs --no-legend
section analyze systemd-analyze
# monotonic microseconds since the kernel started: when the settle unit finished
section settle systemctl show -p ActiveEnterTimestampMonotonic --value "$settle"
section userspace-start systemctl show -p UserspaceTimestampMonotonic --value
section mounts findmnt -rn -o TARGET,SOURCE,FSTYPE
section links ip -o link
section dev-find find /dev -printf '%p %y %m %u %g %l\n'
section dev-ls ls -lR /dev
section db udevadm info --export-db
section modules cat /proc/modules
# issue 28: a rule's SYSTEMD_WANTS started this unit (it has no [Install] section)
section wants systemctl show -p Id -p ActiveState -p Result -p WantedBy devman-distro-wants.service
# issue 28: systemd-networkd configured the NIC (it waits for the device database); its state
# files, as networkctl needs D-Bus, which minbase has not
section networkd networkd_states
# issue 28: systemd's udevadm against the device manager
section udevadm-info udevadm info --query=all --name=vdb
section udevadm-monitor udevadm_cycle
# issue 28: hot-plug through the host's QMP; the device units appear and go again
section hotplug hotplug_all
if [ "$manager" = devman ]; then
    section journal-manager journalctl -b -q -p warning -o cat --no-pager -u devman.service -u devman-trigger.service -u devman-settle.service
else
    section journal-manager journalctl -b -q -p warning -o cat --no-pager -u systemd-udevd.service -u systemd-udev-trigger.service -u systemd-udev-settle.service
fi
section journal-manager-all journalctl -b -q -o short-monotonic --no-pager -u "$manager*" -u "systemd-udev*"
section journal-warnings journalctl -b -q -p warning -o short-monotonic --no-pager
section initramfs initramfs_report
echo "@@DONE" >&3
exec 3>&-
systemctl poweroff --no-block
