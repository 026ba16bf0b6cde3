#!/bin/sh
# Registers qemu-user-static for one architecture with the kernel's binfmt_misc, so programs of
# that architecture run when anything executes them: the Python and shell tests that start
# devmand and devmanadm, devmanadm starting devmanadm-tools, the daemon's children
# (tests/cross/README.md). Opt-in and root only: a registration is visible to the whole machine.
#   tests/cross/binfmt.sh ARCH             register (no-op when Debian's or ours is active)
#   tests/cross/binfmt.sh --remove ARCH    remove ours
# Uses the magic and mask of Debian's own description (/usr/share/binfmts/qemu-*), the F flag
# (the interpreter is opened now, so it works in mount namespaces too) and P (argv[0] kept, as
# Debian registers it). Programs find their libraries through QEMU_LD_PREFIX (tests/cross/run).
set -eu

remove=0
if [ "${1:-}" = --remove ]; then remove=1; shift; fi
[ $# -eq 1 ] || { echo "usage: $0 [--remove] arm64|armhf|s390x" >&2; exit 2; }
case "$1" in
arm64) q=aarch64 ;;
armhf) q=arm ;;
s390x) q=s390x ;;
*) echo "$0: unknown architecture $1" >&2; exit 2 ;;
esac
dir=/proc/sys/fs/binfmt_misc
ours=$dir/devman-qemu-$q

if [ $remove -eq 1 ]; then
    [ -e "$ours" ] && echo -1 > "$ours"
    exit 0
fi
for e in "$dir/qemu-$q" "$ours"; do
    [ -e "$e" ] && head -n1 "$e" | grep -qx enabled && exit 0
done
if [ "$(id -u)" -ne 0 ]; then
    echo "binfmt: qemu-$q is not registered (run $0 $1 as root)" >&2
    exit 1
fi
[ -e "$dir/register" ] || mount -t binfmt_misc binfmt_misc "$dir"
desc=/usr/share/binfmts/qemu-$q
field() { sed -n "s/^$1 //p" "$desc"; }
magic=$(field magic); mask=$(field mask); offset=$(field offset)
interp=/usr/libexec/qemu-binfmt/$q-binfmt-P
if [ -z "$magic" ] || [ ! -x "$interp" ]; then
    echo "binfmt: $desc or $interp missing (tests/cross/deps.sh)" >&2
    exit 1
fi
printf ':devman-qemu-%s:M:%s:%s:%s:%s:FP\n' "$q" "${offset:-0}" "$magic" "$mask" "$interp" > "$dir/register"
