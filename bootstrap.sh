#!/bin/sh
# devman's one entry point for a fresh Debian 12 machine.
#   ./bootstrap.sh run    install build dependencies (as root), build, and run devmand against the
#                         live kernel with a private /dev (coldplug, show what it made, follow events)
#   ./bootstrap.sh test   install dependencies, build normally and with ASan+UBSan, run the whole suite,
#                         then fuzz each parser for a bounded time (clang + libFuzzer, ./build-fuzz)
#   ./bootstrap.sh deps   only install the dependencies
#   ./bootstrap.sh build  only configure and build into ./build
#   ./bootstrap.sh cross-deps   opt-in: what tests/cross/run needs (cross compilers, qemu-user, qemu-system)
set -eu

top=$(cd "$(dirname "$0")" && pwd)
cd "$top"

# Debian packages: build tools and libraries, the reference udev (oracle and libudev clients in
# tests), valgrind, what the vm suite needs to boot a real kernel (and, for the kernels suite's
# test module, Debian's kernel headers: the meta package follows linux-image-amd64, whose kernel
# the vm suite boots), s6/execline to run the s6 service files in the unit tests, and strace
# (a fixture test holds back one of the daemon's system calls).
DEPS="meson ninja-build pkg-config gcc binutils clang libclang-rt-14-dev
libsystemd-dev libnl-3-dev libnl-route-3-dev libevdev-dev libblkid-dev libkmod-dev
libudev-dev udev valgrind python3 kmod util-linux e2fsprogs dosfstools fdisk
scdoc groff-base mandoc shellcheck systemd iproute2 acl
busybox-static qemu-system-x86 cpio zstd libinput-tools linux-headers-amd64 execline s6 time autoconf
automake libtool gperf strace"

install_deps() {
    missing=""
    for p in $DEPS; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "bootstrap: missing Debian packages:$missing (run as root to install them)" >&2
        return 1
    fi
    echo "bootstrap: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    # --no-install-recommends keeps systemd from pulling a running init in; policy-rc.d keeps
    # package scripts from starting services (systemd-udevd above all) on the host.
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d.devman
    chmod +x /usr/sbin/policy-rc.d.devman
    had_policy=0
    [ -e /usr/sbin/policy-rc.d ] && had_policy=1
    [ $had_policy -eq 1 ] || cp /usr/sbin/policy-rc.d.devman /usr/sbin/policy-rc.d
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing
    [ $had_policy -eq 1 ] || rm -f /usr/sbin/policy-rc.d
    rm -f /usr/sbin/policy-rc.d.devman
}

build() {
    dir=$1; shift
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" "$@"
    fi
    ninja -C "$dir"
}

cmd=${1:-run}
case "$cmd" in
deps)
    install_deps
    ;;
build)
    install_deps
    build build
    ;;
cross-deps)
    exec "$top/tests/cross/deps.sh"
    ;;
run)
    install_deps
    build build
    shift || true
    exec "$top/tests/root/run-live-demo.sh" "$top/build" "$@"
    ;;
test)
    install_deps
    build build
    build build-asan -Db_sanitize=address,undefined -Db_lundef=false -Db_lto=false
    echo "== suites: unit fixture root (plain build)"
    meson test -C build --print-errorlogs --no-suite vm --no-suite bench --no-suite distro --no-suite soak --no-suite fuzz-long
    echo "== suites: unit fixture root fuzz (ASan+UBSan)"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        meson test -C build-asan --print-errorlogs --no-suite vm --no-suite bench --no-suite distro --no-suite soak \
        --no-suite fuzz-long --no-suite valgrind
    # libFuzzer: only the fuzz targets are built with clang; a bounded run of each (about 2 min)
    if [ ! -f build-fuzz/build.ninja ]; then
        # -Werror stays with the gcc builds: clang has warnings of its own (reported, not fatal here)
        CC=clang meson setup build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false -Db_lto=false \
            -Dwerror=false
    fi
    ninja -C build-fuzz tests/fuzz/fuzz-uevent tests/fuzz/fuzz-rules tests/fuzz/fuzz-db tests/fuzz/fuzz-ctrl \
        tests/fuzz/fuzz-hwdb tests/fuzz/fuzz-hwdb-source
    echo "== suite: fuzz-run (libFuzzer, ${DEVMAN_FUZZ_SECONDS:-20} s per target)"
    meson test -C build-fuzz --no-rebuild --print-errorlogs --suite fuzz-run
    echo "== suite: vm (real kernels under qemu)"
    meson test -C build --print-errorlogs --suite vm
    ;;
*)
    echo "usage: $0 run|test|deps|build|cross-deps" >&2
    exit 2
    ;;
esac
