#!/bin/sh
# The rules oracle (test-rules-oracle.sh) on the generated fixture machine instead of the
# host: USB, SCSI, input, NVMe and net devices with real parent chains, so KERNELS/SUBSYSTEMS/
# DRIVERS/ATTRS matching and %b/%d/$attr fallbacks are compared with udevd's on many devices.
#   test-rules-oracle-fixture.sh DEVMANADM GEN-SYSFS RULES-FILE
set -eu
adm=$1
gen=$2
rules=$3
[ "$(id -u)" = 0 ] || { echo "not root, skipping"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/devman-oracle-fixture.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 "$gen" --layout converted "$tmp/sys" >/dev/null
ORACLE_SYSFS="$tmp/sys" "$(dirname "$0")/test-rules-oracle.sh" "$adm" "$rules"
