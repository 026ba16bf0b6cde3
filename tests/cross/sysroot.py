#!/usr/bin/env python3
"""A private sysroot of one Debian architecture: the libraries devman builds against, unpacked
from Debian's own packages, never installed on the host.

    tests/cross/sysroot.py ARCH [CACHE]     prints the sysroot's path (made once, then reused)

ARCH is a Debian architecture (arm64, armhf, s390x). apt runs with a state of its own
(CACHE/apt-ARCH: lists, archives and an empty dpkg status) and the host's sources, so it
resolves the target's dependency closure without touching the host's dpkg database; each
package is unpacked with dpkg-deb -x into CACHE/sysroot-ARCH. Absolute symbolic links inside
(libfoo.so -> /lib/ARCH/libfoo.so.1) are made relative, so the linker and qemu-user follow them
inside the sysroot. CACHE defaults to $DEVMAN_CROSS_CACHE, else /var/cache/devman-cross.

Why not `dpkg --add-architecture`: Debian 12's security archive (LTS) no longer carries s390x,
so s390x's Multi-Arch: same libraries cannot match the host's security-updated versions; and a
foreign architecture on a shared host makes every `apt-get update` depend on that
architecture's indexes."""
import hashlib
import os
import shutil
import subprocess
import sys

# What devman links against (meson.build) and the libudev client test's libudev.
PACKAGES = ["libc6-dev", "libsystemd-dev", "libnl-3-dev", "libnl-route-3-dev", "libevdev-dev",
            "libblkid-dev", "libkmod-dev", "libudev-dev"]
# Packages downloaded without their dependencies for a few files: systemd.pc (where units go).
# Only those files: qemu-user's -L prefers the sysroot's copy of any path, so a whole systemd
# package would hide the host's /lib/udev/rules.d from the tests that read it.
DATA_ONLY = {"systemd": ["./usr/share/pkgconfig/systemd.pc"]}
ARCHES = {"arm64": "aarch64-linux-gnu", "armhf": "arm-linux-gnueabihf", "s390x": "s390x-linux-gnu"}


def apt(args, **kw):
    """apt-get with its output on stderr: stdout carries the sysroot's path alone."""
    return subprocess.run(["apt-get"] + args, stdout=sys.stderr, **kw)


def apt_options(state):
    return ["-o", "Dir::State=" + state,
            "-o", "Dir::State::Lists=" + os.path.join(state, "lists"),
            "-o", "Dir::State::status=" + os.path.join(state, "status"),
            "-o", "Dir::Cache=" + state,
            "-o", "Dir::Cache::archives=" + os.path.join(state, "archives"),
            "-o", "Debug::NoLocking=1",
            "-o", "APT::Sandbox::User=root",
            "-q"]


def relink(root):
    """Absolute links inside root point into root, relatively."""
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            if not os.path.islink(p):
                continue
            t = os.readlink(p)
            if t.startswith("/"):
                os.unlink(p)
                os.symlink(os.path.relpath(root + t, d), p)


def hash_host_sources(h):
    """The host's apt sources into hash h: a root made from other sources is made again."""
    d = "/etc/apt/sources.list.d"
    for n in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        with open(os.path.join(d, n), "rb") as f:
            h.update(f.read())


def stamp_of(arch):
    """What the sysroot is made of: the package list, this script and the host's sources."""
    h = hashlib.sha256(" ".join([arch] + PACKAGES + sorted(DATA_ONLY)).encode())
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    hash_host_sources(h)
    return h.hexdigest()


def arch_apt(arch, state, seed_lists=None, tag="sysroot"):
    """apt options for ARCH with a state of its own in `state` (an empty dpkg status), its
    indexes updated; seed_lists: another state's index directory to start from."""
    for d in ["lists/partial", "archives/partial"]:
        os.makedirs(os.path.join(state, d), exist_ok=True)
    lists = os.path.join(state, "lists")
    if seed_lists and os.path.isdir(seed_lists) and not [n for n in os.listdir(lists) if n != "partial"]:
        for n in os.listdir(seed_lists):
            if os.path.isfile(os.path.join(seed_lists, n)):
                shutil.copy(os.path.join(seed_lists, n), lists)
    open(os.path.join(state, "status"), "w").close()
    opts = apt_options(state) + ["-o", "APT::Architecture=" + arch, "-o", "APT::Architectures::=" + arch]
    # a mirror in mid-sync fails an index now and then: go on with what did download
    if apt(opts + ["update"]).returncode:
        print("%s: apt-get update reported errors; going on" % tag, file=sys.stderr)
    return opts


def unpack_closure(opts, state, arch, packages, root):
    """packages and their dependency closure for ARCH (opts from arch_apt()) unpacked into a
    new root; returns the .deb files' names."""
    # only this resolution's packages: a package left from an older one would be unpacked too
    apt(opts + ["clean"], check=True)
    apt(opts + ["install", "-y", "--download-only", "--no-install-recommends"] + packages, check=True)
    archives = os.path.join(state, "archives")
    debs = sorted(n for n in os.listdir(archives) if n.endswith("_" + arch + ".deb") or n.endswith("_all.deb"))
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    for n in debs:
        subprocess.run(["dpkg-deb", "-x", os.path.join(archives, n), root], check=True)
    return debs


def make(arch, cache):
    if arch not in ARCHES:
        raise SystemExit("sysroot: unknown architecture %s (one of %s)" % (arch, " ".join(ARCHES)))
    root = os.path.join(cache, "sysroot-" + arch)
    stamp = stamp_of(arch)
    stamp_file = os.path.join(cache, "sysroot-" + arch + ".stamp")
    if os.path.exists(stamp_file) and open(stamp_file).read() == stamp:
        return root
    state = os.path.join(cache, "apt-" + arch)
    opts = arch_apt(arch, state)
    unpack_closure(opts, state, arch, PACKAGES, root)
    data = os.path.join(state, "data")
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(data)
    apt(opts + ["download"] + sorted(DATA_ONLY), check=True, cwd=data)
    for n in sorted(os.listdir(data)):
        files = DATA_ONLY[n.split("_")[0]]
        tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", os.path.join(data, n)], check=True,
                             capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", root] + files, input=tar, check=True)
    relink(root)
    with open(stamp_file, "w") as f:
        f.write(stamp)
    return root


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    cache = sys.argv[2] if len(sys.argv) == 3 else os.environ.get("DEVMAN_CROSS_CACHE", "/var/cache/devman-cross")
    print(make(sys.argv[1], os.path.abspath(cache)))


if __name__ == "__main__":
    main()
