#!/bin/sh
# The rules oracle (test-rules-oracle.sh) on the generated fixture machine instead of the
# host: USB, SCSI, input, NVMe and net devices with real parent chains, so KERNELS/SUBSYSTEMS/
# DRIVERS/ATTRS matching and %b/%d/$attr fallbacks are compared with udevd's on many devices.
#   test-rules-oracle-fixture.sh DEVMANADM GEN-SYSFS RULES-FILE
set -eu
adm=$1
gen=$2
rules=$3
. "$(dirname "$0")/lib.sh"
require root
test_dirs oracle-fixture
python3 "$gen" --layout converted "$tmp/sys" >/dev/null
ORACLE_SYSFS="$tmp/sys" "$(dirname "$0")/test-rules-oracle.sh" "$adm" "$rules"
