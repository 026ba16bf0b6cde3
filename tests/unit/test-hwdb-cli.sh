#!/bin/sh
# devmanadm hwdb (via the devman-hwdb test front end) against systemd's command-line tools:
#  - `--test=` on the host's database prints what `systemd-hwdb query` and `udevadm hwdb --test=`
#    print, for a list of modaliases;
#  - `--update --root` output is read by `systemd-hwdb --root query` with the same answers as
#    systemd-hwdb's own compilation of the same sources;
#  - usage errors and --help.
set -eu
tool=$1  # devmanadm: every call is "$tool" hwdb hwdb ...
tmp=$(mktemp -d /tmp/test-hwdb-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
checks=0

check_same() { # name expected-file got-file
    checks=$((checks + 1))
    if ! cmp -s "$2" "$3"; then
        echo "FAIL: $1"; diff "$2" "$3" | head -20; fail=$((fail + 1))
    fi
}

dmi=$(cat /sys/class/dmi/id/modalias 2>/dev/null || echo dmi:bvnNone:)
modaliases="usb:v046DpC52B*
usb:v046DpC52Bd1211dc00dsc00dp00ic03isc01ip01in00
usb:v1D6Bp0002d0515dc09dsc00dp03ic09isc00ip00in00
usb:v8087p0024d0000dc09dsc00dp01ic09isc00ip00in00
pci:v00008086d00001237sv00001AF4sd00001100bc06sc00i00
pci:v000010DEd00001C82sv00001043sd00008613bc03sc00i00
acpi:PNP0303:
evdev:input:b0003v046DpC52Be0111-e0,1,2,4,k71,72,73,r6,a20,m4,l0,1,2,3,4,
evdev:atkbd:dmi:bvnLENOVO:bvrN1EET:bd01/01/2020:svnLENOVO:pn20HRCTO1WW:pvrThinkPadX1Carbon5th:
mouse:usb:v046dp4041:name:Logitech MX Master:
ieee1394:node:ven0x00a02d:mo0x010001:sp0x00a02d:ver0x010001
OUI:001122
bluetooth:v000F
$dmi
evdev:atkbd:$dmi"

printf '%s\n' "$modaliases" >"$tmp/list"
while IFS= read -r m; do
    systemd-hwdb query "$m" >"$tmp/sys" 2>/dev/null || true
    udevadm hwdb --test="$m" >"$tmp/udevadm" 2>/dev/null || true
    "$tool" hwdb --test="$m" >"$tmp/dev"
    check_same "systemd-hwdb query '$m'" "$tmp/sys" "$tmp/dev"
    check_same "udevadm hwdb --test='$m'" "$tmp/udevadm" "$tmp/dev"
done <"$tmp/list"
# the list must exercise the database, not only agree on empty answers
for m in "usb:v046DpC52Bd1211dc00dsc00dp00ic03isc01ip01in00" "pci:v00008086d00001237sv00001AF4sd00001100bc06sc00i00"; do
    checks=$((checks + 1))
    "$tool" hwdb --test="$m" | grep -q '^ID_VENDOR_FROM_DATABASE=' || { echo "FAIL: no vendor for $m"; fail=$((fail + 1)); }
done

# Compile a copy of the host's sources with both tools; systemd-hwdb answers from both alike.
mkdir -p "$tmp/a/lib/udev" "$tmp/b/lib/udev"
cp -r /lib/udev/hwdb.d "$tmp/a/lib/udev/"
cp -r /lib/udev/hwdb.d "$tmp/b/lib/udev/"
"$tool" hwdb --update --strict --root "$tmp/a"
systemd-hwdb update --root="$tmp/b"
checks=$((checks + 1))
[ -f "$tmp/a/etc/udev/hwdb.bin" ] || { echo "FAIL: no $tmp/a/etc/udev/hwdb.bin"; fail=$((fail + 1)); }
while IFS= read -r m; do
    systemd-hwdb --root="$tmp/b" query "$m" >"$tmp/sys"
    systemd-hwdb --root="$tmp/a" query "$m" >"$tmp/dev"
    "$tool" hwdb --root="$tmp/b" --test="$m" >"$tmp/dev2"
    check_same "systemd-hwdb query on devman's hwdb.bin: '$m'" "$tmp/sys" "$tmp/dev"
    check_same "devman query on systemd-hwdb's hwdb.bin: '$m'" "$tmp/sys" "$tmp/dev2"
done <"$tmp/list"

# --output, --strict and errors
mkdir -p "$tmp/c/etc/udev/hwdb.d"
printf 'usb:v1234*\n ID_X=1\n\n ORPHAN=1\n' >"$tmp/c/etc/udev/hwdb.d/50-bad.hwdb"
checks=$((checks + 1))
if "$tool" hwdb --update --strict --root "$tmp/c" --output "$tmp/c/out.bin" 2>"$tmp/err"; then
    echo "FAIL: --strict accepted a syntax error"; fail=$((fail + 1))
fi
checks=$((checks + 1))
grep -q '50-bad.hwdb:4' "$tmp/err" || { echo "FAIL: error without file:line"; cat "$tmp/err"; fail=$((fail + 1)); }
checks=$((checks + 1))
"$tool" hwdb --update --root "$tmp/c" --output "$tmp/c/out.bin" 2>/dev/null || { echo "FAIL: non-strict update"; fail=$((fail + 1)); }
checks=$((checks + 1))
[ "$("$tool" hwdb --root "$tmp/c" --file /out.bin --test=usb:v1234p1)" = "ID_X=1" ] || { echo "FAIL: --file query"; fail=$((fail + 1)); }
# --usr writes the vendor location below the root
mkdir -p "$tmp/d/etc/udev/hwdb.d"
printf 'usb:v1234*\n ID_Y=2\n' >"$tmp/d/etc/udev/hwdb.d/50-y.hwdb"
"$tool" hwdb --update --usr --root "$tmp/d"
checks=$((checks + 1))
usrbin=$(find "$tmp/d" -path '*/lib/udev/hwdb.bin')
if [ -z "$usrbin" ] || [ -e "$tmp/d/etc/udev/hwdb.bin" ]; then
    echo "FAIL: --usr output"; fail=$((fail + 1))
fi
checks=$((checks + 1))
[ "$("$tool" hwdb --root "$tmp/d" --file "${usrbin#"$tmp/d"}" --test=usb:v1234)" = "ID_Y=2" ] || { echo "FAIL: --usr query"; fail=$((fail + 1)); }
checks=$((checks + 1))
"$tool" hwdb --help | grep -q -- '--update' || { echo "FAIL: --help"; fail=$((fail + 1)); }
checks=$((checks + 1))
set +e
"$tool" hwdb >/dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "FAIL: no action should be a usage error (got $rc)"; fail=$((fail + 1)); }
checks=$((checks + 1))
set +e
"$tool" hwdb --test=x --root "$tmp/nonexistent" >/dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "FAIL: missing database should fail (got $rc)"; fail=$((fail + 1)); }

echo "$checks checks, $fail failed"
[ "$fail" -eq 0 ]
