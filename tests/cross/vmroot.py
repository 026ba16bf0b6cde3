#!/usr/bin/env python3
"""The guest root of the cross VM test (tests/cross/vm.py): Debian 12's own packages for one
architecture, unpacked, never installed on the host.

    tests/cross/vmroot.py ARCH [CACHE]     prints the root's path (made once, then reused)

As sysroot.py, apt runs with a state of its own (CACHE/apt-vm-ARCH, APT::Architecture=ARCH,
the host's sources): it resolves the closure of udev (systemd-udevd 252, udevadm, the stock
rules and helpers), busybox-static, kmod and the libraries devman links against, downloads it
and unpacks each package with dpkg-deb -x into CACHE/vmroot-ARCH. The kernel (the image
package ARCH's meta package depends on, KERNELS) is downloaded without its dependencies into
CACHE/kernel-ARCH and given its module indexes with the host's depmod. systemd's udev rule
files (uaccess, seats, systemd's tags) are taken from the systemd package, without the rest of
it, so the guest reads the same rules a Debian system with systemd reads. The hardware
database is compiled from the root's hwdb.d by the host's systemd-hwdb (hwdb.bin is
little-endian on every architecture)."""
import hashlib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import sysroot  # noqa: E402

# The kernel: Debian's meta package per architecture. armhf: the LPAE flavour, a real 32-bit
# kernel that runs qemu's virt machine with a Cortex-A15.
KERNELS = {"arm64": "linux-image-arm64", "armhf": "linux-image-armmp-lpae", "s390x": "linux-image-s390x"}
# The guest's userland with its dependency closure: udev, the shell, kmod, and what devmand,
# devmanadm and devmanadm-tools link against.
PACKAGES = ["udev", "libudev1", "busybox-static", "kmod", "libsystemd0", "libnl-3-200",
            "libnl-route-3-200", "libevdev2", "libblkid1", "libkmod2"]
# Only the udev rule files of these (the whole package would pull in systemd's closure).
RULES_ONLY = ["systemd"]


# Raise when the way the root is made changes (edits elsewhere in this file do not remake it).
LAYOUT = 1


def stamp_of(arch):
    h = hashlib.sha256(" ".join([arch, KERNELS[arch], str(LAYOUT)] + PACKAGES + RULES_ONLY).encode())
    sysroot.hash_host_sources(h)
    return h.hexdigest()


def log(msg):
    print("vmroot: " + msg, file=sys.stderr, flush=True)


def image_package(opts, meta):
    """The versioned linux-image-* package the meta package depends on."""
    p = subprocess.run(["apt-cache"] + opts + ["depends", meta], stdout=subprocess.PIPE, text=True,
                       check=True)
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith("Depends:") and "linux-image-" in line:
            return line.split(":", 1)[1].strip()
    raise SystemExit("vmroot: apt knows no %s" % meta)


def download(opts, pkgs, into):
    shutil.rmtree(into, ignore_errors=True)
    os.makedirs(into)
    sysroot.apt(opts + ["download"] + pkgs, check=True, cwd=into)
    return [os.path.join(into, n) for n in sorted(os.listdir(into)) if n.endswith(".deb")]


def make(arch, cache):
    if arch not in KERNELS:
        raise SystemExit("vmroot: unknown architecture %s (one of %s)" % (arch, " ".join(KERNELS)))
    root = os.path.join(cache, "vmroot-" + arch)
    kroot = os.path.join(cache, "kernel-" + arch)
    stamp = stamp_of(arch)
    stamp_file = root + ".stamp"
    if os.path.exists(stamp_file) and open(stamp_file).read() == stamp:
        return root, kroot
    state = os.path.join(cache, "apt-vm-" + arch)
    # the sysroot's indexes of the same architecture, when there: apt then only checks them
    opts = sysroot.arch_apt(arch, state, seed_lists=os.path.join(cache, "apt-" + arch, "lists"), tag="vmroot")
    debs = sysroot.unpack_closure(opts, state, arch, PACKAGES, root)
    # systemd's rule files only
    extra = os.path.join(state, "rules-only")
    for deb in download(opts, RULES_ONLY, extra):
        tmp = os.path.join(extra, "x")
        subprocess.run(["dpkg-deb", "-x", deb, tmp], check=True)
        for d in ("lib/udev/rules.d", "usr/lib/udev/rules.d"):
            src = os.path.join(tmp, d)
            for n in sorted(os.listdir(src)) if os.path.isdir(src) else []:
                if n.endswith(".rules"):
                    dst = os.path.join(root, d)
                    os.makedirs(dst, exist_ok=True)
                    shutil.copy(os.path.join(src, n), dst)
        shutil.rmtree(tmp)
    sysroot.relink(root)
    hwdb = shutil.which("systemd-hwdb")
    if hwdb:
        subprocess.run([hwdb, "--root=" + root, "--usr", "update"], check=True)
    # the kernel
    kpkg = image_package(opts, KERNELS[arch])
    kdebs = download(opts, [kpkg], os.path.join(state, "kernel"))
    shutil.rmtree(kroot, ignore_errors=True)
    subprocess.run(["dpkg-deb", "-x", kdebs[0], kroot], check=True)
    shutil.rmtree(os.path.dirname(kdebs[0]))  # 40-60 MB, unpacked now
    for v in os.listdir(os.path.join(kroot, "lib", "modules")):
        subprocess.run([shutil.which("depmod") or "/sbin/depmod", "-b", kroot, v], check=True)
    with open(stamp_file, "w") as f:
        f.write(stamp)
    log("%s: %d packages in %s, kernel %s" % (arch, len(debs), root, kpkg))
    return root, kroot


def _readelf(args, path):
    return subprocess.run(["readelf", "-W"] + args + [path], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True).stdout


class Libraries:
    """The shared libraries an ELF file of the root's architecture needs, found in the root as
    its dynamic loader would (DT_NEEDED recursively, DT_RUNPATH, the multiarch directories):
    what ldd tells for the host's programs (initramfs.add_elf's libs). (file, guest path)."""

    def __init__(self, root, triplet):
        self.root = root
        self.dirs = ["/lib/" + triplet, "/usr/lib/" + triplet, "/lib", "/usr/lib"]

    def _find(self, name, runpath):
        for d in runpath + self.dirs:
            p = os.path.join(d, name)
            if os.path.exists(self.root + p):
                return p
        raise RuntimeError("vmroot: no %s for the guest in %s" % (name, self.root))

    def __call__(self, path):
        out, todo, seen = [], [path], set()
        interp = re.search(r"Requesting program interpreter: (\S+)\]", _readelf(["-l"], path))
        if interp:
            out.append((self.root + interp.group(1), interp.group(1)))
        while todo:
            dyn = _readelf(["-d"], todo.pop())
            runpath = [d for m in re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library (?:runpath|rpath): \[(.*)\]", dyn)
                       for d in m.split(":") if d.startswith("/")]
            for name in re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", dyn):
                if name in seen:
                    continue
                seen.add(name)
                guest = self._find(name, runpath)
                out.append((self.root + guest, guest))
                todo.append(self.root + guest)
        return out


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    cache = sys.argv[2] if len(sys.argv) == 3 else os.environ.get("DEVMAN_CROSS_CACHE", "/var/cache/devman-cross")
    root, kroot = make(sys.argv[1], os.path.abspath(cache))
    print(root)
    print(kroot)


if __name__ == "__main__":
    main()
