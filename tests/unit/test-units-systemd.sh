#!/bin/sh
# SPDX-License-Identifier: MIT
# `systemd-analyze verify` on the generated systemd units. Works without a running
# systemd: the units are verified inside a private --root that holds them and stand-ins
# for the programs they start (only their executability is checked). A warning is a
# failure too: verify exits 0 on "Unknown key" and friends.
#   test-units-systemd.sh DEVMAND DEVMANADM UNIT...
set -u

devmand=$1
devmanadm=$2
shift 2
command -v systemd-analyze >/dev/null || { echo "systemd-analyze missing"; exit 77; }
[ $# -eq 5 ] || { echo "FAIL - expected 5 units, got $#"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root/etc/systemd/system"
for prog in "$devmand" "$devmanadm"; do
	mkdir -p "$root/${prog%/*}"
	printf '#!/bin/sh\nexit 0\n' > "$root/$prog"
	chmod 755 "$root/$prog"
done
names=""
for u in "$@"; do
	cp "$u" "$root/etc/systemd/system/"
	names="$names $(basename "$u")"
done

fail=0
verify() { # root, names...
	r=$1
	shift
	systemd-analyze verify --root="$r" --man=no "$@" > "$tmp/out" 2>&1
	rc=$?
	cat "$tmp/out"
	[ $rc -eq 0 ] && [ ! -s "$tmp/out" ]
}

# shellcheck disable=SC2086
if verify "$root" $names; then
	echo "ok - systemd-analyze verify$names"
else
	echo "FAIL - systemd-analyze verify$names"
	fail=1
fi

# Paths were substituted and point at the programs.
grep -qx "ExecStart=$devmand" "$root/etc/systemd/system/devman.service" ||
	{ echo "FAIL - devman.service does not start $devmand"; fail=1; }
grep -qx "ExecStart=$devmanadm settle" "$root/etc/systemd/system/devman-settle.service" ||
	{ echo "FAIL - devman-settle.service does not run $devmanadm settle"; fail=1; }

# The verifier must notice a broken unit, or the pass above proves nothing.
cp -a "$root" "$tmp/broken"
sed -i 's/^Type=notify$/Type=notifyy/' "$tmp/broken/etc/systemd/system/devman.service"
if verify "$tmp/broken" devman.service > /dev/null; then
	echo "FAIL - verify accepted Type=notifyy"
	fail=1
else
	echo "ok - verify rejects a broken unit"
fi
rm "$tmp/broken/$devmand"
cp "$root/etc/systemd/system/devman.service" "$tmp/broken/etc/systemd/system/"
if verify "$tmp/broken" devman.service > /dev/null; then
	echo "FAIL - verify accepted a missing ExecStart program"
	fail=1
else
	echo "ok - verify rejects a missing program"
fi
exit $fail
