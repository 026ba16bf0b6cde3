#!/bin/sh
# Compares devman's rules evaluation with systemd-udevd's (`udevadm test`, the reference
# oracle) on the host's devices, with the same rules file. udevadm test writes links and a
# database, and may rename network interfaces or write attributes, so it runs in private mount
# and network namespaces with tmpfs over /dev, /run and the rules directories (rules given to
# this script must not write attributes: nothing of the host may be touched). Needs root and
# udevadm; exits 77 otherwise.
#   test-rules-oracle.sh DEVMANADM RULES-FILE|RULES-DIR [DEVICE...]
# With ORACLE_SYSFS=DIR (a converted tree from gen-sysfs.py), both look at that tree instead of
# the host's: it is bind-mounted over /sys for udevadm (SYSTEMD_DEVICE_VERIFY_SYSFS=0), DEVICEs
# are /sys/... paths as udevadm sees them (default: every /class/<c>/<n> entry of the tree).
set -eu

adm=$1
rules=$2
shift 2
. "$(dirname "$0")/lib.sh"
require root udevadm unshare

test_dirs oracle
mkdir "$tmp/rules"
if [ -d "$rules" ]; then cp "$rules"/*.rules "$tmp/rules/"; else cp "$rules" "$tmp/rules/50-oracle.rules"; fi

# The property dump of udevadm test (KEY=VALUE lines), normalised: no timestamps, sorted, the
# link and tag lists sorted within their values.
normalise() {
    grep -E '^[A-Za-z0-9_.]+=' | grep -vE '^(USEC_INITIALIZED|SEQNUM)=' | awk -F= '
        $1 == "DEVLINKS" { n = split(substr($0, 10), a, " "); s = ""; for (i = 1; i <= n; i++) s = s "\n" a[i];
                           cmd = "printf \"%s\" \"" s "\" | sort | tr \"\\n\" \" \""; cmd | getline v; close(cmd);
                           print "DEVLINKS=" v; next }
        $1 == "TAGS" || $1 == "CURRENT_TAGS" { n = split($2, a, ":"); s = ""; for (i = 1; i <= n; i++) if (a[i] != "") s = s "\n" a[i];
                           cmd = "printf \"%s\" \"" s "\" | sort | tr \"\\n\" \":\""; cmd | getline v; close(cmd);
                           print $1 "=:" v; next }
        { print }' | sort
}

run_udev() {
    unshare -m -n --propagation private sh -ec '
        tmp=$1; dev=$2; fake=$3
        if [ -n "$fake" ]; then
            mount --bind "$fake" /sys
            export SYSTEMD_DEVICE_VERIFY_SYSFS=0
        fi
        mkdir -p "$tmp/dev"
        mount -t tmpfs none "$tmp/dev"
        touch "$tmp/dev/null"
        mount --bind /dev/null "$tmp/dev/null"
        # the device under test gets its node, so builtins that open it (blkid) see it
        if [ -z "$fake" ] && [ -r "$dev/dev" ] && [ -r "$dev/uevent" ]; then
            name=$(sed -n "s/^DEVNAME=//p" "$dev/uevent")
            mm=$(cat "$dev/dev")
            case "$(readlink -f "$dev/subsystem")" in */block) t=b ;; *) t=c ;; esac
            [ -n "$name" ] && [ ! -e "$tmp/dev/$name" ] && mkdir -p "$tmp/dev/$(dirname "$name")" &&
                mknod "$tmp/dev/$name" $t "${mm%:*}" "${mm#*:}"
        fi
        mount --bind "$tmp/dev" /dev
        mount -t tmpfs none /run
        for d in /etc/udev/rules.d /usr/lib/udev/rules.d /lib/udev/rules.d /usr/local/lib/udev/rules.d; do
            [ -d "$d" ] && mount -t tmpfs none "$d"
        done
        cp "$tmp"/rules/*.rules /etc/udev/rules.d/
        udevadm test --action=add "$dev" 2>&1
    ' sh "$tmp" "$1" "${ORACLE_SYSFS:-}"
}

checked=0 failed=0
netifs_before=$(ls /sys/class/net)
fake=${ORACLE_SYSFS:-}
if [ -n "$fake" ] && [ $# -eq 0 ]; then
    set -- $(cd "$fake" && ls -d class/*/* | sed 's|^|/sys/|')
fi
[ $# -gt 0 ] || set -- /sys/class/block/vda /sys/class/block/sda /sys/class/block/loop0 /sys/class/mem/null \
    /sys/class/net/eth0 /sys/class/net/lo /sys/class/tty/tty0 /sys/class/tty/ttyS0 /sys/class/misc/loop-control
for dev in "$@"; do
    if [ -n "$fake" ]; then
        [ -e "$fake/${dev#/sys/}" ] || continue
        set -- --sysfs "$fake" "/${dev#/sys/}"
    else
        [ -e "$dev" ] || continue
        set -- "$dev"
    fi
    run_udev "$dev" >"$tmp/udev.raw" || { echo "udevadm test failed for $dev"; failed=$((failed + 1)); continue; }
    "$adm" test --action=add --rules-dir "$tmp/rules" "$@" >"$tmp/devman.raw" 2>"$tmp/devman.err" || {
        echo "devmanadm test failed for $dev:"; cat "$tmp/devman.err"; failed=$((failed + 1)); continue; }
    normalise <"$tmp/udev.raw" >"$tmp/udev.props"
    sed -n 's/^PROPERTY //p' "$tmp/devman.raw" | normalise >"$tmp/devman.props"
    # RUN lists: udevadm test prints "run: 'cmd'", devman "RUN{program|builtin} cmd"
    sed -n "s/^run: '\(.*\)'\$/\1/p" "$tmp/udev.raw" >"$tmp/udev.run"
    sed -n 's/^RUN{[a-z]*} //p' "$tmp/devman.raw" >"$tmp/devman.run"
    # node ownership and mode: udevadm logs each applied assignment ("rules:N MODE 0660"), the
    # last one counts; devman prints the result
    sed -n 's/.*rules:[0-9]* \(OWNER\|GROUP\|MODE\) \([0-9][0-9]*\).*/\1 \2/p' "$tmp/udev.raw" |
        awk '{ v[$1] = $2 } END { for (k in v) printf "%s %d\n", k, (k == "MODE" ? v[k] : v[k]) }' | sort >"$tmp/udev.perm"
    sed -n 's/^\(OWNER\|GROUP\|MODE\)=\([0-9]*\)$/\1 \2/p' "$tmp/devman.raw" | awk '{ printf "%s %d\n", $1, $2 }' |
        sort >"$tmp/devman.perm"
    checked=$((checked + 1))
    if ! diff -u "$tmp/udev.props" "$tmp/devman.props" >"$tmp/diff"; then
        echo "properties differ for $dev (- udev, + devman):"; cat "$tmp/diff"; failed=$((failed + 1))
    elif ! diff -u "$tmp/udev.perm" "$tmp/devman.perm" >"$tmp/diff"; then
        echo "OWNER/GROUP/MODE differ for $dev (- udev, + devman):"; cat "$tmp/diff"; failed=$((failed + 1))
    elif ! diff -u "$tmp/udev.run" "$tmp/devman.run" >"$tmp/diff"; then
        echo "RUN lists differ for $dev (- udev, + devman):"; cat "$tmp/diff"; failed=$((failed + 1))
    else
        echo "ok $dev ($(wc -l <"$tmp/udev.props") properties, $(tr '\n' ' ' <"$tmp/udev.perm")$(wc -l <"$tmp/udev.run") RUN entries)"
    fi
done
if [ "$(ls /sys/class/net)" != "$netifs_before" ]; then
    echo "the host's network interfaces changed during the comparison: $netifs_before -> $(ls /sys/class/net)"
    exit 1
fi
[ "$checked" -gt 0 ] || { echo "no device to compare"; exit 77; }
echo "$checked devices compared, $failed differ"
[ "$failed" -eq 0 ]
