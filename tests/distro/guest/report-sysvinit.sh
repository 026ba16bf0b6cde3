#!/bin/sh
# The distro suite's guest side for the sysvinit boots (tests/distro/sysvinit.py), started in
# the background at the end of runlevel 2: writes sections "@@BEGIN name" ... "@@END rc name"
# to ttyS1 (read by the host), then powers off.
out=/dev/ttyS1
# ttyS1 is a terminal: no colours or pager from udevadm
export SYSTEMD_COLORS=0 SYSTEMD_PAGER=''
stty -F "$out" raw -echo 115200 2>/dev/null
exec 3>"$out"

section() {
    name=$1
    shift
    echo "@@BEGIN $name" >&3
    "$@" >&3 2>&1
    echo "@@END $? $name" >&3
}

# "PID TTY COMMAND" of the gettys on ttyS0
serial_getty() {
    ps -e -o pid=,tty=,comm= | awk '$2 == "ttyS0" && $3 ~ /getty$/'
}

# init starts inittab's respawn entries only once "rc 2" is done: the serial getty is the sign
# that the runlevel's scripts finished (bounded by the host's watchdog too)
i=0
while [ $i -lt 600 ] && [ -z "$(serial_getty)" ]; do
    sleep 1
    i=$((i + 1))
done
echo "@@STATE $(runlevel)" >&3
if [ -n "$(pidof devmand)" ] && [ -z "$(pidof systemd-udevd)" ]; then
    manager=devman
elif [ -z "$(pidof devmand)" ] && [ -n "$(pidof systemd-udevd)" ]; then
    manager=udev
else
    manager="devmand:$(pidof devmand) systemd-udevd:$(pidof systemd-udevd)"
fi
echo "@@MANAGER $manager" >&3
echo "@@VARIANT $(cat /etc/devman-distro-variant)" >&3
script=/etc/init.d/$manager

# the init script's verbs on the running system: status, stop (the control socket goes),
# start (daemon, coldplug, settle), restart, reload, and a change event of the data disk
# handled afterwards
init_script_cycle() {
    "$script" status
    echo "status rc $?"
    "$script" stop
    echo "stop rc $?"
    "$script" status
    echo "stopped-status rc $?"
    if [ -e /run/udev/control ]; then echo "control socket left"; fi
    "$script" start
    echo "start rc $?"
    "$script" status
    echo "restarted-status rc $?"
    "$script" restart
    echo "restart rc $?"
    "$script" status
    echo "after-restart-status rc $?"
    "$script" reload
    echo "reload rc $?"
    udevadm trigger --action=change --sysname-match=vdb
    echo "trigger rc $?"
    udevadm settle --timeout=60
    echo "settle rc $?"
    udevadm info --query=property --name=vdb | grep -e '^ID_SERIAL=' -e '^DEVLINKS='
}

section cmdline cat /proc/cmdline
section uptime cat /proc/uptime
section waited echo "$i"
section runlevel runlevel
section init sh -c 'readlink /proc/1/exe; cat /proc/1/comm; if [ -d /run/systemd/system ]; then echo "/run/systemd/system exists"; fi'
section getty serial_getty
section processes ps -e -o pid,ppid,tty,args
section rc-links ls /etc/rcS.d /etc/rc2.d
section mounts findmnt -rn -o TARGET,SOURCE,FSTYPE
section links ip -o link
section dev-find find /dev -printf '%p %y %m %u %g %l\n'
section dev-ls ls -lR /dev
section db udevadm info --export-db
section modules cat /proc/modules
section udevadm-info udevadm info --query=all --name=vdb
section manager-log sh -c 'dmesg | grep -e devmand -e systemd-udevd'
section manager-warnings sh -c 'dmesg --level=emerg,alert,crit,err,warn | grep -e devmand -e systemd-udevd'
section init-script init_script_cycle
echo "@@DONE" >&3
exec 3>&-
poweroff
