#!/bin/sh
# The distro suite's guest side (tests/distro): writes sections "@@BEGIN name" ... "@@END rc"
# to ttyS1 (a file on the host), then powers off. Parsed by tests/distro/distro.py.
out=/dev/ttyS1
# ttyS1 is a terminal: no colours, no pager, no names cut to its width
export SYSTEMD_COLORS=0 SYSTEMD_PAGER='' COLUMNS=1000
stty -F "$out" raw -echo 115200 2>/dev/null
exec 3>"$out"

section() {
    name=$1
    shift
    echo "@@BEGIN $name" >&3
    "$@" >&3 2>&1
    echo "@@END $? $name" >&3
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
if [ "$manager" = devman ]; then
    section journal-manager journalctl -b -q -p warning -o cat --no-pager -u devman.service -u devman-trigger.service -u devman-settle.service
else
    section journal-manager journalctl -b -q -p warning -o cat --no-pager -u systemd-udevd.service -u systemd-udev-trigger.service -u systemd-udev-settle.service
fi
section journal-manager-all journalctl -b -q -o short-monotonic --no-pager -u "$manager*" -u "systemd-udev*"
section journal-warnings journalctl -b -q -p warning -o short-monotonic --no-pager
echo "@@DONE" >&3
exec 3>&-
systemctl poweroff --no-block
