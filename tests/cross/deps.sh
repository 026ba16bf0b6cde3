#!/bin/sh
# Opt-in set-up of the cross suites (tests/cross/README.md): the cross compilers and qemu-user,
# both ordinary amd64 packages. Not part of bootstrap.sh's default DEPS: the default CI run
# neither needs nor has time for them. The target architectures' libraries are not installed
# here but unpacked into a private sysroot per architecture (tests/cross/sysroot.sh), so the
# host's dpkg never gains a foreign architecture (see README.md for why).
#   tests/cross/deps.sh        (as root)
set -eu

pkgs="qemu-user-static gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf gcc-s390x-linux-gnu
binutils-aarch64-linux-gnu binutils-arm-linux-gnueabihf binutils-s390x-linux-gnu
libc6-dev-arm64-cross libc6-dev-armhf-cross libc6-dev-s390x-cross dpkg-dev
qemu-system-arm qemu-system-misc"

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "cross-deps: missing Debian packages:$missing (run as root to install them)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=900 update -q >/dev/null
# as bootstrap.sh: package scripts must not start services on the host
had_policy=0
[ -e /usr/sbin/policy-rc.d ] && had_policy=1
if [ $had_policy -eq 0 ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
fi
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends $missing
[ $had_policy -eq 1 ] || rm -f /usr/sbin/policy-rc.d
