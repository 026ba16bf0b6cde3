#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the LSB init script for sysv-rc (units/sysvinit/devman.init.in) with stand-in programs
# and a stand-in /lib/lsb/init-functions, its system paths (/sys, /run, /etc/default) moved
# into a private directory, and checks each verb: start clears the hotplug helpers, makes the
# static nodes, cleans the database, starts devmand waiting for its readiness, coldplugs and
# settles, in that order; start on a running devmand does nothing more; stop removes the
# control socket and the sendsigs entry; status, restart and reload; a failing devmand.
# The real thing runs in the distro suite (tests/distro/sysvinit.py).
#   test-units-sysv.sh DEVMAND DEVMANADM DEVMAN_INIT
set -u
# the shared prologue of the shell tests: test_dirs (a private $tmp, removed on exit),
# ok/nok/check/expect_eq and the closing results
# shellcheck source-path=SCRIPTDIR source=../root/lib.sh
. "$(dirname "$0")/../root/lib.sh"

devmand=$1
devmanadm=$2
script=$3
test_dirs units-sysv

mkdir -p "$tmp/bin" "$tmp/dev" "$tmp/sys/class" "$tmp/sys/kernel" "$tmp/proc/sys/kernel" "$tmp/run" "$tmp/etc/default"
# devmanadm, mount, mountpoint: log their arguments; fail when "$tmp/fail-NAME" exists
for prog in devmanadm mount mountpoint; do
	cat > "$tmp/bin/$prog" <<STUB
#!/bin/sh
echo "$prog \$*" >> "$tmp/log"
[ ! -e "$tmp/fail-$prog" ]
STUB
done
# devmand is never run by the script itself, only by start-stop-daemon
printf '#!/bin/sh\nexit 0\n' > "$tmp/bin/devmand"
# start-stop-daemon: "running" is the pid file; --start fails when fail-devmand exists
cat > "$tmp/bin/start-stop-daemon" <<STUB
#!/bin/sh
echo "start-stop-daemon \$*" | sed "s|$tmp|TMP|g" >> "$tmp/log"
case "\$*" in
--start*)
	[ -e "$tmp/run/devmand.pid" ] && exit 1
	[ -e "$tmp/fail-devmand" ] && exit 2
	echo 4242 > "$tmp/run/devmand.pid"
	mkdir -p "$tmp/run/udev"
	: > "$tmp/run/udev/control" ;;
--stop*)
	rm -f "$tmp/run/devmand.pid" ;;
esac
exit 0
STUB
chmod +x "$tmp/bin/"*
# the LSB functions the script uses: messages to the log, the pid file as the only truth
cat > "$tmp/init-functions" <<STUB
log_daemon_msg() { echo "msg \$*" >> "$tmp/log"; }
log_progress_msg() { echo "progress \$*" >> "$tmp/log"; }
log_end_msg() { echo "end \$1" >> "$tmp/log"; return "\$1"; }
log_action_begin_msg() { echo "begin \$*" >> "$tmp/log"; }
log_action_end_msg() { echo "action-end \$*" >> "$tmp/log"; return 0; }
log_failure_msg() { echo "failure \$*" >> "$tmp/log"; }
log_warning_msg() { echo "warning \$*" >> "$tmp/log"; }
pidofproc() { [ -e "$tmp/run/devmand.pid" ] && cat "$tmp/run/devmand.pid"; }
status_of_proc() { if [ -e "$tmp/run/devmand.pid" ]; then echo "running \$*" | sed "s|$tmp|TMP|g" >> "$tmp/log"; return 0; fi; return 3; }
STUB
# devmanadm first: with sbindir = bindir, devmand's path is a prefix of devmanadm's
sed -e "s|$devmanadm|$tmp/bin/devmanadm|g" -e "s|$devmand|$tmp/bin/devmand|g" \
	-e "s|^PATH=.*|PATH=$tmp/bin:\$PATH|" -e "s|/lib/lsb/init-functions|$tmp/init-functions|" \
	-e "s|/etc/default/devman|$tmp/etc/default/devman|g" -e "s|/proc/sys/|$tmp/proc/sys/|g" \
	-e "s| /dev/MAKEDEV| $tmp/dev/MAKEDEV|g" -e "s|-x /sbin/MAKEDEV|-x $tmp/sbin/MAKEDEV|" \
	-e "s|\([ \"]\)/sys|\1$tmp/sys|g" -e "s|/run/|$tmp/run/|g" "$script" > "$tmp/devman"
if grep -n -e ' /sys' -e '[ =]/run/' -e ' /dev/[A-Za-z]' "$tmp/devman"; then
	nok "a system path of the script was not moved"
fi
run() { # verb: runs the script, prints its exit status
	: > "$tmp/log"
	sh "$tmp/devman" "$1" > "$tmp/out" 2>&1
	echo $?
}
nl='
'
ssd_start="start-stop-daemon --start --quiet --pidfile TMP/run/devmand.pid --exec TMP/bin/devmand --background --make-pidfile --notify-await -- --log-target=auto"

echo /sbin/mdev > "$tmp/proc/sys/kernel/hotplug"
echo /sbin/hotplug > "$tmp/sys/kernel/uevent_helper"
expect_eq "start exits 0" "$(run start)" 0
expect_eq "start: static nodes, database cleaned, devmand ready, coldplug, settle" "$(cat "$tmp/log")" \
"mountpoint -q /dev
msg Starting device manager devmand
devmanadm static-nodes
devmanadm info --cleanup-db
$ssd_start
end 0
begin Coldplugging the devices present
devmanadm trigger --type=subsystems --action=add
devmanadm trigger --type=devices --action=add
action-end 0
begin Waiting for /dev to be fully populated
devmanadm settle --timeout=180
action-end 0"
expect_eq "start clears both hotplug helpers" "$(cat "$tmp/proc/sys/kernel/hotplug" "$tmp/sys/kernel/uevent_helper" | tr -d "\n")" ""
expect_eq "start links /dev/MAKEDEV to true, as udev's script does" "$(readlink "$tmp/dev/MAKEDEV")" /bin/true
expect_eq "start creates the run directory" "$(test -d "$tmp/run/udev" && echo yes)" yes
expect_eq "start keeps devmand alive at shutdown (sendsigs.omit.d)" \
	"$(readlink "$tmp/run/sendsigs.omit.d/devmand")" "$tmp/run/devmand.pid"

expect_eq "start on a running devmand exits 0" "$(run start)" 0
expect_eq "start on a running devmand: no cleanup, no coldplug" "$(cat "$tmp/log")" \
"mountpoint -q /dev
msg Starting device manager devmand
$ssd_start
progress already running
end 0"

expect_eq "status of a running devmand exits 0" "$(run status)" 0
expect_eq "status asks status_of_proc with the pid file" "$(cat "$tmp/log")" \
	"running -p TMP/run/devmand.pid TMP/bin/devmand devmand"
expect_eq "reload exits 0" "$(run reload)" 0
expect_eq "reload reloads devmand's rules" "$(cat "$tmp/log")" "devmanadm control --reload"
expect_eq "restart exits 0" "$(run restart)" 0
expect_eq "restart: stop, start, no coldplug" "$(grep -c -e '^start-stop-daemon --stop' -e '^start-stop-daemon --start' "$tmp/log") $(grep -c trigger "$tmp/log")" "2 0"

expect_eq "stop exits 0" "$(run stop)" 0
expect_eq "stop stops devmand by its pid file" "$(cat "$tmp/log")" \
"msg Stopping device manager devmand
start-stop-daemon --stop --quiet --pidfile TMP/run/devmand.pid --exec TMP/bin/devmand --remove-pidfile --oknodo --retry 5
end 0"
expect_eq "stop removes the control socket and the sendsigs entry" \
	"$(ls "$tmp/run/udev" "$tmp/run/sendsigs.omit.d")" "$tmp/run/sendsigs.omit.d:$nl$nl$tmp/run/udev:"
expect_eq "status of a stopped devmand exits 3 (LSB: not running)" "$(run status)" 3
expect_eq "an unknown verb exits 3 with the usage" "$(run frobnicate) $(head -c 6 "$tmp/out")" "3 Usage:"

# /dev not mounted: devtmpfs is mounted first
touch "$tmp/fail-mountpoint"
run start > /dev/null
expect_eq "start mounts devtmpfs on an unmounted /dev" "$(head -n 2 "$tmp/log")" \
	"mountpoint -q /dev${nl}mount -n -o nosuid,mode=0755 -t devtmpfs devtmpfs /dev"
run stop > /dev/null
rm "$tmp/fail-mountpoint"

# options from /etc/default/devman
echo 'DEVMAND_OPTS="--log-level=debug --event-timeout=30"; SETTLE_TIMEOUT=7' > "$tmp/etc/default/devman"
run start > /dev/null
expect_eq "DEVMAND_OPTS reach devmand" "$(grep -e '^start-stop-daemon --start' "$tmp/log")" "$ssd_start --log-level=debug --event-timeout=30"
expect_eq "SETTLE_TIMEOUT reaches settle" "$(grep settle "$tmp/log")" "devmanadm settle --timeout=7"
run stop > /dev/null
rm "$tmp/etc/default/devman"

# devmand fails: start exits 1 and nothing is coldplugged
touch "$tmp/fail-devmand"
expect_eq "a failing devmand: start exits 1" "$(run start)" 1
expect_eq "a failing devmand: no coldplug, no settle" "$(grep -c -e trigger -e settle "$tmp/log")" 0
rm "$tmp/fail-devmand"

# read-only /sys (a container): nothing is started, start still succeeds
chmod a-w "$tmp/sys"
if [ ! -w "$tmp/sys" ]; then  # root can write anyway
	expect_eq "read-only /sys: start exits 0" "$(run start)" 0
	expect_eq "read-only /sys: devmand is not started" "$(grep -c start-stop-daemon "$tmp/log")" 0
fi
chmod u+w "$tmp/sys"
results
