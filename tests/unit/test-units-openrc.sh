#!/bin/sh
# SPDX-License-Identifier: MIT
# Loads the generated OpenRC scripts the way openrc-run does (sourced by sh, with OpenRC's
# helpers stubbed out) and checks what they declare and run: dependencies, the daemon's
# command line, and the devmanadm commands of reload, coldplug and settle, in order.
# Functions that touch /run (start_pre, start_post) are not run.
#   test-units-openrc.sh DEVMAND DEVMANADM DEVMAN DEVMAN_TRIGGER DEVMAN_SETTLE
set -u
# the shared prologue of the shell tests: test_dirs (a private $tmp, removed on exit),
# ok/nok/check/expect_eq and the closing results
# shellcheck source-path=SCRIPTDIR source=../root/lib.sh
. "$(dirname "$0")/../root/lib.sh"

devmand=$1
devmanadm=$2
test_dirs units-openrc
mkdir "$tmp/bin"
cat > "$tmp/bin/devmanadm" <<'STUB'
#!/bin/sh
echo "devmanadm $*" >> "$STUB_LOG"
STUB
chmod +x "$tmp/bin/devmanadm"
# devmanadm first: with sbindir = bindir, devmand's path is a prefix of devmanadm's.
move_paths() {
	sed -e "s|$devmanadm|$tmp/bin/devmanadm|g" -e "s|$devmand|$tmp/bin/devmand|g" "$1"
}

# Runs "$2" (a function of script $1, with the program path moved to the stubs) in a
# subshell with OpenRC's helpers recording into the log; prints the log.
run_in_script() {
	script=$1
	fn=$2
	shift 2
	move_paths "$script" > "$tmp/script"
	: > "$tmp/log"
	(
		STUB_LOG=$tmp/log
		export STUB_LOG
		for helper in need use want provide before after keyword ebegin ewarn; do
			eval "$helper() { echo \"$helper \$*\" >> \"\$STUB_LOG\"; }"
		done
		# shellcheck disable=SC2317 # called by the sourced script
		eend() { echo "eend $1" >> "$STUB_LOG"; }
		# shellcheck source=/dev/null
		. "$tmp/script"
		"$fn"
	)
	cat "$tmp/log"
}

nl='
'
# devman: the daemon.
expect_eq "devman depends" "$(run_in_script "$3" depend)" \
	"provide dev-manager${nl}need sysfs dev-mount${nl}before checkfs fsck${nl}keyword -docker -lxc -openvz -prefix -systemd-nspawn -vserver"
move_paths "$3" > "$tmp/d"
# The variables openrc-run reads are set by the sourced script.
# shellcheck disable=SC1091,SC2034,SC2154
got=$(
	DEVMAN_OPTS="--children-max=2"
	. "$tmp/d"
	echo "$command|$command_args|$command_background|$pidfile|$extra_started_commands"
)
expect_eq "devman runs devmand in the foreground with DEVMAN_OPTS" "$got" \
	"$tmp/bin/devmand|--children-max=2|yes|/run/devmand.pid|reload"
expect_eq "devman reload" "$(run_in_script "$3" reload)" \
	"ebegin Reloading devman rules${nl}devmanadm control --reload${nl}eend 0"

# devman-trigger: coldplug after the daemon.
expect_eq "devman-trigger depends" "$(run_in_script "$4" depend)" \
	"need devman${nl}provide dev${nl}before checkfs fsck${nl}keyword -docker -lxc -openvz -prefix -systemd-nspawn -vserver"
expect_eq "devman-trigger start" "$(run_in_script "$4" start)" \
	"ebegin Coldplugging devices${nl}devmanadm trigger --type=subsystems --action=add${nl}devmanadm trigger --type=devices --action=add${nl}eend 0"

# devman-settle: waits before file systems are checked and mounted.
expect_eq "devman-settle depends" "$(run_in_script "$5" depend)" \
	"need devman-trigger${nl}before checkfs fsck localmount${nl}keyword -docker -lxc -openvz -prefix -systemd-nspawn -vserver"
expect_eq "devman-settle start" "$(run_in_script "$5" start)" \
	"ebegin Waiting for devman to initialize devices${nl}devmanadm settle --timeout=180${nl}eend 0"
expect_eq "devman-settle honours DEVMAN_SETTLE_TIMEOUT" \
	"$(DEVMAN_SETTLE_TIMEOUT=30 run_in_script "$5" start | grep settle)" "devmanadm settle --timeout=30"

# The comparison must be able to fail.
if [ "$(run_in_script "$4" start)" = "ebegin Coldplugging devices${nl}eend 0" ]; then
	nok "a start that runs nothing matched"
fi
results
