#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the rcS snippet and runit's finish script with stand-in programs, their system paths
# (/run/udev, /proc/sys/kernel/hotplug) moved into a private directory, and checks what they
# do: start devmand, coldplug, settle, in order; nothing after devmand fails; the hotplug
# helper cleared; a crashed devmand's queue flag and control socket removed.
#   test-units-rcs.sh DEVMAND DEVMANADM DEVMAN_RCS RUNIT_FINISH
set -u
# the shared prologue of the shell tests: test_dirs (a private $tmp, removed on exit),
# ok/nok/check/expect_eq and the closing results
# shellcheck source-path=SCRIPTDIR source=../root/lib.sh
. "$(dirname "$0")/../root/lib.sh"

devmand=$1
devmanadm=$2
rcs=$3
finish=$4
test_dirs units-rcs

mkdir -p "$tmp/bin" "$tmp/proc"
for prog in devmand devmanadm; do
	cat > "$tmp/bin/$prog" <<STUB
#!/bin/sh
echo "$prog \$*" >> "\$STUB_LOG"
[ ! -e "\$STUB_FAIL" ]
STUB
	chmod +x "$tmp/bin/$prog"
done
move_paths() {
	# devmanadm first: with sbindir = bindir, devmand's path is a prefix of devmanadm's.
	sed -e "s|$devmanadm|$tmp/bin/devmanadm|g" -e "s|$devmand|$tmp/bin/devmand|g" -e "s|/proc/sys/kernel/hotplug|$tmp/proc/hotplug|g" \
		-e "s|/run/udev|$tmp/run/udev|g" "$1"
}
move_paths "$rcs" > "$tmp/rcS"
move_paths "$finish" > "$tmp/finish"
if ! grep -q "$tmp/bin/devmand\"" "$tmp/rcS" || ! grep -q "$tmp/bin/devmanadm\"" "$tmp/rcS"; then
	nok "rcS does not use $devmand and $devmanadm"
fi

nl='
'
export STUB_LOG="$tmp/log" STUB_FAIL="$tmp/fail"

# As busybox init runs it (ash), and as a Debian sysvinit rcS would (dash).
shells="sh"
command -v busybox >/dev/null && shells="sh busybox_sh"
# shellcheck disable=SC2317 # called as $shell
busybox_sh() { busybox sh "$@"; }
for shell in $shells; do
	echo /sbin/mdev > "$tmp/proc/hotplug"
	: > "$tmp/log"
	$shell "$tmp/rcS" 2> "$tmp/err"
	expect_eq "[$shell] rcS starts devmand, coldplugs and settles" "$(cat "$tmp/log")" \
		"devmand --daemon${nl}devmanadm trigger --type=subsystems --action=add${nl}devmanadm trigger --type=devices --action=add${nl}devmanadm settle --timeout=180"
	expect_eq "[$shell] rcS clears the kernel's hotplug helper" "$(cat "$tmp/proc/hotplug")" ""
	expect_eq "[$shell] rcS creates the run directory" "$(test -d "$tmp/run/udev" && echo yes)" yes
	expect_eq "[$shell] rcS is quiet when all goes well" "$(cat "$tmp/err")" ""

	# Sourced from an rcS running under set -e, with every program failing: it reports and returns.
	touch "$tmp/fail"
	: > "$tmp/log"
	out=$($shell -ec ". '$tmp/rcS'; echo after" 2>&1)
	expect_eq "[$shell] a failing devmand stops the coldplug" "$(cat "$tmp/log")" "devmand --daemon"
	expect_eq "[$shell] a sourced rcS returns under set -e" "$out" "devman.rcS: devmand failed to start${nl}after"
	rm "$tmp/fail"
done

# runit's finish: after a crash, stale state goes, and the restart is throttled.
mkdir -p "$tmp/run/udev"
: > "$tmp/run/udev/queue"
: > "$tmp/run/udev/control"
: > "$tmp/run/udev/data-keep"
sh "$tmp/finish" -1 11 2> "$tmp/err"
expect_eq "finish removes the queue flag and the control socket" "$(ls "$tmp/run/udev")" data-keep
expect_eq "finish says how devmand ended" "$(cat "$tmp/err")" \
	"devmand exited with status -1 (signal 11), restarting in 1 s"
sh "$tmp/finish" 0 0 2> "$tmp/err"
expect_eq "finish is quiet after a clean exit" "$(cat "$tmp/err")" ""
results
