#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the initramfs-tools hook and scripts (units/initramfs-tools) with stand-in programs and
# their system paths moved into a private directory, and checks what they do:
#  - the hook: prerequisite udev; devman's programs through copy_exec; udevd and udev's two
#    scripts taken out of the image, udevadm a link to devmanadm; devman's and the boot's rules,
#    a rules file of /etc winning, the administrator's own rules, the configuration copied;
#  - init-top: helper emptied, devmand started, coldplug and settle in order, root=UUID= (and
#    LABEL=, PARTUUID=, PARTLABEL=) handed on as the /dev/disk link through param.conf, other
#    root= forms and escaped names left alone, nothing after devmand fails, the stamp;
#  - init-bottom: devmand asked to exit and waited for (its marker), /dev moved to the root,
#    and left alone when it cannot be moved.
# The real thing runs in the distro suite's distro-initramfs test.
#   test-units-initramfs.sh DEVMAND DEVMANADM UDEVLIBDIR SYSCONFDIR HOOK INIT_TOP INIT_BOTTOM
set -u
# the shared prologue of the shell tests: test_dirs (a private $tmp, removed on exit),
# ok/nok/check/expect_eq and the closing results
# shellcheck source-path=SCRIPTDIR source=../root/lib.sh
. "$(dirname "$0")/../root/lib.sh"

devmand=$1
devmanadm=$2
udevlibdir=$3
sysconfdir=$4
hook=$5
top=$6
bottom=$7
test_dirs units-initramfs

# Stand-ins: every program the scripts run by name records its arguments. devmanadm's
# "control --exit" removes devmand's running marker, as devmand does when it exits.
mkdir -p "$tmp/bin"
for prog in devmand devmanadm mount nuke rm ln sleep; do
	cat > "$tmp/bin/$prog" <<STUB
#!/bin/sh
echo "$prog \$*" >> "\$STUB_LOG"
if [ "$prog" = devmanadm ] && [ "\$1 \$2" = "control --exit" ]; then
	/bin/rm -f "$tmp/run/udev/.devmand-running"
fi
[ ! -e "\$STUB_FAIL" ]
STUB
	chmod +x "$tmp/bin/$prog"
done
export STUB_LOG="$tmp/log" STUB_FAIL="$tmp/fail"
move_paths() {
	# devmanadm first: with sbindir = bindir, devmand's path is a prefix of devmanadm's.
	sed -e "s|$devmanadm|$tmp/bin/devmanadm|g" -e "s|$devmand|$tmp/bin/devmand|g" \
		-e "s|$udevlibdir|$tmp/udevlib|g" -e "s|\"$sysconfdir|\"$tmp/etc|g" \
		-e "s|^devmanadm_tools=.*|devmanadm_tools=\"$tmp/none\"|" \
		-e "s| /lib/udev| $tmp/lib/udev|g" \
		-e "s|/usr/share/initramfs-tools/hook-functions|$tmp/hook-functions|" \
		-e "s|/sys/kernel/uevent_helper|$tmp/uevent_helper|g" -e "s|/proc/uptime|$tmp/uptime|g" \
		-e "s|/run/|$tmp/run/|g" -e "s|/conf/param.conf|$tmp/param.conf|g" \
		-e "s| /dev\$| $tmp/dev|" -e "s| /dev | $tmp/dev |g" "$1"
}

# ---- the hook -------------------------------------------------------------------------
move_paths "$hook" > "$tmp/hook"
cat > "$tmp/hook-functions" <<'EOF'
# copy_exec stand-in: records the call and copies nothing
copy_exec() { echo "copy_exec $*" >> "$STUB_LOG"; }
EOF
dest="$tmp/dest"
mkdir -p "$dest/lib/systemd" "$dest/scripts/init-top" "$dest/scripts/init-bottom" "$dest/bin" \
	"$tmp/udevlib/rules.d" "$tmp/lib/udev/rules.d" "$tmp/etc/udev/rules.d" "$tmp/etc/devman"
# what udev's hook leaves in the image
for f in lib/systemd/systemd-udevd scripts/init-top/udev scripts/init-bottom/udev scripts/init-top/keep bin/udevadm; do
	echo udev > "$dest/$f"
done
for r in 50-devman-default.rules 60-devman-storage.rules 60-persistent-storage.rules 99-other.rules; do
	echo "# $r lib" > "$tmp/udevlib/rules.d/$r"
done
echo "# 80-drivers.rules /lib/udev" > "$tmp/lib/udev/rules.d/80-drivers.rules"
echo "# 60-persistent-storage.rules etc" > "$tmp/etc/udev/rules.d/60-persistent-storage.rules"
echo "# 70-mine.rules etc" > "$tmp/etc/udev/rules.d/70-mine.rules"
echo "# devman.conf" > "$tmp/etc/devman/devman.conf"
printf '#!/bin/sh\n' > "$tmp/udevlib/ata_id"
chmod +x "$tmp/udevlib/ata_id"

expect_eq "hook: prerequisite udev" "$(sh "$tmp/hook" prereqs)" "udev"
: > "$tmp/log"
check "hook: runs" env DESTDIR="$dest" sh "$tmp/hook"
expect_eq "hook: copy_exec of the programs and ata_id" "$(cat "$tmp/log")" \
	"copy_exec $tmp/bin/devmand
copy_exec $tmp/bin/devmanadm
copy_exec $tmp/udevlib/ata_id $tmp/udevlib"
check "hook: udevd and udev's scripts gone, other scripts kept" test ! -e "$dest/lib/systemd/systemd-udevd" \
	-a ! -e "$dest/scripts/init-top/udev" -a ! -e "$dest/scripts/init-bottom/udev" -a -e "$dest/scripts/init-top/keep"
expect_eq "hook: udevadm is devmanadm" "$(readlink "$dest/bin/udevadm")" "$tmp/bin/devmanadm"
expect_eq "hook: rules copied" "$(cd "$dest/$tmp/udevlib/rules.d" && printf '%s ' *)" \
	"50-devman-default.rules 60-devman-storage.rules 60-persistent-storage.rules 70-mine.rules 80-drivers.rules "
expect_eq "hook: a rules file of /etc wins" "$(cat "$dest/$tmp/udevlib/rules.d/60-persistent-storage.rules")" \
	"# 60-persistent-storage.rules etc"
expect_eq "hook: devman.conf copied" "$(cat "$dest/$tmp/etc/devman/devman.conf")" "# devman.conf"

# ---- init-top -------------------------------------------------------------------------
move_paths "$top" > "$tmp/top"
echo "12.34 5.67" > "$tmp/uptime"
stamp="$tmp/run/devman/initramfs"
run_top() { # ROOT value; sets $log, $param, $stampv
	rm -rf "$tmp/run" "$tmp/param.conf" "$tmp/log"
	: > "$tmp/log"
	echo /sbin/hotplug > "$tmp/uevent_helper"
	env ROOT="$1" sh "$tmp/top"
	rc=$?
	log=$(cat "$tmp/log")
	param=$(cat "$tmp/param.conf" 2>/dev/null)
	stampv=$(cat "$stamp" 2>/dev/null)
}
expect_eq "init-top: prerequisites" "$(sh "$tmp/top" prereqs)" ""
run_top UUID=6d3b2a10-9c8e-4f71-a2b5-0e4d6c8b9a71
expect_eq "init-top: exit status" "$rc" 0
expect_eq "init-top: devmand, coldplug, settle in order" "$log" \
	"devmand --daemon --resolve-names=never
devmanadm trigger --type=subsystems --action=add
devmanadm trigger --type=devices --action=add
devmanadm settle --timeout=180"
expect_eq "init-top: uevent helper emptied" "$(cat "$tmp/uevent_helper")" ""
expect_eq "init-top: root=UUID= handed on as the by-uuid link" "$param" \
	"ROOT=/dev/disk/by-uuid/6d3b2a10-9c8e-4f71-a2b5-0e4d6c8b9a71"
expect_eq "init-top: stamp" "$stampv" "start 12.34
settled 12.34 0
root UUID=6d3b2a10-9c8e-4f71-a2b5-0e4d6c8b9a71 /dev/disk/by-uuid/6d3b2a10-9c8e-4f71-a2b5-0e4d6c8b9a71"
for spec in LABEL=root:by-label/root PARTUUID=5f0c2a8e-01:by-partuuid/5f0c2a8e-01 PARTLABEL=sys_a:by-partlabel/sys_a; do
	run_top "${spec%%:*}"
	expect_eq "init-top: root=${spec%%:*}" "$param" "ROOT=/dev/disk/${spec#*:}"
done
for root in /dev/vda1 "LABEL=my root" LABEL=a/b UUID= nfs; do
	run_top "$root"
	expect_eq "init-top: root=$root left alone" "$param" ""
done
touch "$tmp/fail"
run_top UUID=1234
rm -f "$tmp/fail"
expect_eq "init-top: devmand fails: exit 0, nothing else run, root= left alone" "$rc|$log|$param" \
	"0|devmand --daemon --resolve-names=never|"
expect_eq "init-top: devmand fails: stamp" "$stampv" "start 12.34
failed"

# ---- init-bottom ----------------------------------------------------------------------
move_paths "$bottom" > "$tmp/bottom"
if grep -v '^[[:space:]]*#' "$tmp/bottom" | grep -Eq '(^|[[:space:]"])/dev([[:space:]";]|$)'; then
	echo "FAIL - init-bottom still names the real /dev; not run"
	exit 1
fi
expect_eq "init-bottom: prerequisites" "$(sh "$tmp/bottom" prereqs)" ""
mkdir -p "$tmp/run/udev" "$tmp/run/devman"
: > "$tmp/run/udev/control"
: > "$tmp/run/udev/.devmand-running"
: > "$stamp"
: > "$tmp/log"
PATH="$tmp/bin:$PATH" rootmnt="$tmp/root" sh "$tmp/bottom"
expect_eq "init-bottom: exit status" "$?" 0
expect_eq "init-bottom: devmand stopped, /dev moved and linked" "$(cat "$tmp/log")" \
	"devmanadm control --exit --timeout=30
mount -n -o move $tmp/dev $tmp/root/dev
nuke $tmp/dev
ln -s $tmp/root/dev $tmp/dev"
expect_eq "init-bottom: stamp" "$(cat "$stamp")" "exited 12.34"
check "init-bottom: the database stays" test -d "$tmp/run/udev"
: > "$tmp/log"
rm -f "$tmp/run/udev/control"
PATH="$tmp/bin:$PATH" rootmnt="$tmp/root" sh "$tmp/bottom"
expect_eq "init-bottom: no daemon: only /dev moved" "$(head -n1 "$tmp/log")" "mount -n -o move $tmp/dev $tmp/root/dev"
: > "$tmp/log"
touch "$tmp/fail"
PATH="$tmp/bin:$PATH" rootmnt="$tmp/root" sh "$tmp/bottom" 2>/dev/null
expect_eq "init-bottom: /dev cannot be moved: fails, /dev left alone" "$?|$(cat "$tmp/log")" \
	"1|mount -n -o move $tmp/dev $tmp/root/dev
mount -n --move $tmp/dev $tmp/root/dev"
rm -f "$tmp/fail"
results
