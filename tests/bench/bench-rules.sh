#!/bin/sh
# The rules benchmark on the generated fixture machine scaled up (gen-sysfs.py --scale) with
# Debian's stock rules: prints load time, rules heap and time per event; fails only beyond
# generous limits (the targets themselves are in ../shared/PEERS.md, measured elsewhere).
#   bench-rules.sh BENCH-RULES GEN-SYSFS [DEVICES]
set -eu
bench=$1
gen=$2
n=${3:-5000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/devman-bench-rules.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 "$gen" --scale "$n" "$tmp/sys" >/dev/null
"$bench" --sysfs "$tmp/sys" --rules-dir /lib/udev/rules.d --rounds 3 --max-usec-per-event 200 --max-rules-kib 1024
