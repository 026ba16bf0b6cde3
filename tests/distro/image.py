"""The distro suite's guest image: Debian 12 from Debian's packages, cached outside the
repository, rebuilt from nothing by the same call on a fresh machine.

Two stages:
  1. base: `debootstrap` of PACKAGES from the mirror apt on this host uses, into
     CACHE/base (kept while the package list, the mirror and the code of base() are the
     same: base_key); Debian's linux-image-amd64 and its initramfs-tools initramfs (which runs udev) come with it.
  2. images (each test run, cheap): a copy of the base with devman installed by
     `meson install --destdir` (prefix /usr, -Dsystemd-units=enabled), the report service,
     /etc/fstab, the SYSTEMD_WANTS rule and its unit, systemd-networkd, and the enablement of
     one device manager; `mkfs.ext4 -d` makes the root disk of each variant (VARIANTS) from it,
     so no loop device is used. The data disk carries the fstab
     mounts (GPT: one ext4 mounted by LABEL=, one by UUID=)."""

import glob
import hashlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "vm"))

import images as vmimages  # noqa: E402
import kernel as vmkernel  # noqa: E402

locked = vmkernel.locked

SUITE = "bookworm"
# What the guest needs beyond minbase: systemd as PID 1, udev (the reference, and the
# initramfs' device manager), Debian's kernel and initramfs, and devman's shared libraries.
PACKAGES = ["systemd", "systemd-sysv", "udev", "linux-image-amd64", "initramfs-tools", "kmod",
            "e2fsprogs", "iproute2", "procps", "libnl-3-200", "libnl-route-3-200", "libevdev2",
            "libblkid1", "libkmod2", "libsystemd0"]
DEBOOTSTRAP_TIMEOUT = 1800
MIB = 1024 * 1024

ROOT_UUID = "6d3b2a10-9c8e-4f71-a2b5-0e4d6c8b9a71"
ROOT_SIZE = 2048 * MIB
DATA_SERIAL = "devman-data"
DATA_PTUUID = "2c9e4f61-0b7a-4d35-8e12-6a5f3c7d9b04"
# fixed, or sfdisk picks new ones each build and the by-partuuid units differ between boots
DATA_PARTUUIDS = ("5f0c2a8e-1d3b-4c6a-9e7f-0b2d4c6e8a11", "7a1e3c5b-2f4d-4e6a-8b0c-1d3f5a7c9e22")
LABEL_FS, LABEL_UUID = "DMLABEL", "41a7c3e2-5b9d-4f08-a6c1-7e2d9b3f5a60"
UUID_FS, UUID_UUID = "DMUUID", "8e5b1d47-2c6a-4b93-9f0e-d3a7c1b6e258"
MACHINE_ID = "d15c0de5e1a84b6f9c2d7e0a3b4f5c61"

# The units a device manager owns. devman: its service, the two sockets and trigger (what
# `systemctl enable devman.service` enables) plus settle, for the settle time stamp.
UDEV_MASKED = ["systemd-udevd.service", "systemd-udevd-control.socket",
               "systemd-udevd-kernel.socket", "systemd-udev-trigger.service"]
SETTLE_UNIT = {"devman": "devman-settle.service", "udevd": "systemd-udev-settle.service"}
# The root images: devman with its settle unit pulled in (for the settle time stamp), devman
# enabled exactly as issue 32's user did (udevd's units masked, `systemctl enable
# devman.service`, no settle unit), and Debian's own systemd-udevd (the reference).
VARIANTS = ("devman", "devman-plain", "udevd")
MANAGER = {"devman": "devman", "devman-plain": "devman", "udevd": "udevd"}
SETTLED = {"devman": True, "devman-plain": False, "udevd": True}
VARIANT_FILE = "etc/devman-distro-variant"
# issue 28: a rule's SYSTEMD_WANTS starts this unit when the data disk appears; the unit has
# no [Install] section, so nothing else starts it
WANTS_UNIT = "devman-distro-wants.service"
WANTS_RULES = """# made by tests/distro/image.py: the data disk wants %s
ACTION=="add", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", ENV{ID_SERIAL}=="%s", ENV{SYSTEMD_WANTS}+="%s"
""" % (WANTS_UNIT, DATA_SERIAL, WANTS_UNIT)
WANTS_SERVICE = """# made by tests/distro/image.py: started only by the data disk's SYSTEMD_WANTS
[Unit]
Description=devman distro suite: wanted by the data disk (SYSTEMD_WANTS)

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/true
"""
# issue 28: systemd-networkd configures the NIC under the name Debian's 99-default.link policy
# gives it (ID_NET_NAME_SLOT on QEMU's pc machine); networkd waits for the interface to be
# initialized in the device database before it touches it
NET_NAME = "ens4"
NETWORK_FILE = """# made by tests/distro/image.py
[Match]
Name=%s

[Network]
Address=10.0.2.15/24
LinkLocalAddressing=no
IPv6AcceptRA=no
""" % NET_NAME


class Unavailable(Exception):
    """Not root, or debootstrap/QEMU cannot be obtained: the suite skips."""


def log(msg):
    print("distro: " + msg, file=sys.stderr, flush=True)


def _run(cmd, timeout=600, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout, **kw)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s" % (" ".join(cmd), p.returncode, p.stdout[-4000:]))
    return p.stdout


def cache_dir(build_root):
    """$DEVMAN_DISTRO_CACHE, else /var/cache/devman-distro, else build/distro-cache."""
    try:
        return vmkernel.cache_dir(build_root, "DEVMAN_DISTRO_CACHE", "devman-distro", "distro-cache")
    except vmkernel.Unavailable as e:
        raise Unavailable(str(e))


def _deb822_uris(text):
    """(uri, suites, components) of each stanza of a .sources file."""
    for stanza in re.split(r"\n\s*\n", text):
        fields = {}
        for line in stanza.splitlines():
            m = re.match(r"^([A-Za-z-]+):\s*(.*)$", line)
            if m:
                fields[m.group(1).lower()] = m.group(2).split()
        if "deb" in fields.get("types", []):
            for uri in fields.get("uris", []):
                yield uri, fields.get("suites", []), fields.get("components", [])


def mirror():
    """The archive apt on this host uses for bookworm main ($DEVMAN_DISTRO_MIRROR wins)."""
    env = os.environ.get("DEVMAN_DISTRO_MIRROR")
    if env:
        return env
    found = []
    for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*")):
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            continue
        if path.endswith(".sources"):
            found += list(_deb822_uris(text))
        else:
            for line in text.splitlines():
                w = line.split("#", 1)[0].split()
                if len(w) >= 4 and w[0] == "deb":
                    w = [x for x in w if not x.startswith("[")]
                    found.append((w[1], [w[2]], w[3:]))
    for uri, suites, comps in found:
        if SUITE in suites and "main" in comps:
            return uri.rstrip("/")
    return "http://deb.debian.org/debian"


def _ensure_debootstrap():
    if shutil.which("debootstrap"):
        return
    if os.geteuid() != 0:
        raise Unavailable("debootstrap is not installed")
    log("installing debootstrap with apt-get")
    p = subprocess.run(["apt-get", "install", "-y", "-q", "debootstrap"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600,
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    if p.returncode != 0 or not shutil.which("debootstrap"):
        raise Unavailable("cannot install debootstrap: %s" % p.stdout[-2000:])


def base_key(mirror_uri, packages, absent=()):
    """The key of a base tree: what debootstrap is given (suite, mirror, packages), what the
    tree must lack, and the code of base() that makes it; a change of any makes the tree again."""
    h = hashlib.sha256()
    h.update(("%s\0%s\0%s\0%s\0" % (SUITE, mirror_uri, ",".join(packages), ",".join(absent))).encode())
    h.update(inspect.getsource(base).encode())
    return h.hexdigest()[:16]


def base(cache, name, packages, absent=()):
    """Stage 1: CACHE/NAME, a `debootstrap --variant=minbase` of packages (with Debian's
    kernel and initramfs), made once per base_key. absent: paths (relative to the tree) that
    must not be in it, such as a program of a package that must not come in. Returns its path."""
    if os.geteuid() != 0:
        raise Unavailable("building the image needs root (debootstrap, chroot)")
    uri = mirror()
    key = base_key(uri, packages, absent)
    root = os.path.join(cache, name)
    stamp = root + ".key"
    with vmkernel.locked(cache, "lock-" + name):
        try:
            with open(stamp) as f:
                if f.read().strip() == key and os.path.isdir(root):
                    return root
        except OSError:
            pass
        _ensure_debootstrap()
        tmp = root + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)
        if os.path.exists(stamp):
            os.unlink(stamp)
        logpath = os.path.join(cache, "debootstrap-%s.log" % name)
        log("debootstrap %s (%s) from %s (a few minutes; log in %s)" % (SUITE, name, uri, logpath))
        with open(logpath, "w") as logf:
            p = subprocess.run(["debootstrap", "--variant=minbase", "--include=" + ",".join(packages),
                                SUITE, tmp, uri], stdout=logf, stderr=subprocess.STDOUT,
                               timeout=DEBOOTSTRAP_TIMEOUT)
        if p.returncode != 0:
            raise RuntimeError("debootstrap failed (%d), see %s" % (p.returncode, logpath))
        # The packages' downloads are not needed in the image.
        for deb in glob.glob(os.path.join(tmp, "var/cache/apt/archives/*.deb")):
            os.unlink(deb)
        if not glob.glob(os.path.join(tmp, "boot/initrd.img-*")):
            raise RuntimeError("debootstrap made no initramfs in %s/boot" % tmp)
        for path in absent:
            if os.path.lexists(os.path.join(tmp, path)):
                raise RuntimeError("%s came into the tree %s" % (path, tmp))
        os.rename(tmp, root)
        with open(stamp, "w") as f:
            f.write(key + "\n")
        return root


# the usr build's options: devman as a Debian package with systemd would configure it
USR_OPTIONS = ["-Dsystemd-units=enabled", "-Dinitramfs-tools=enabled",
               "-Dsystemdsystemunitdir=/lib/systemd/system"]


def usr_build(source, build_root, name="usr-build", options=USR_OPTIONS):
    """devman configured for a distribution (prefix /usr and options), in BUILD/tests/distro/NAME;
    only the installed targets are built. Returns that build dir."""
    bdir = os.path.join(build_root, "tests", "distro", name)
    if not os.path.exists(os.path.join(bdir, "build.ninja")):
        _run(["meson", "setup", "--prefix=/usr"] + options + ["-Dbash-completion=false", bdir, source])
    targets = json.loads(_run(["meson", "introspect", "--targets", bdir]))
    names = [os.path.relpath(f, bdir) for t in targets if t.get("installed") for f in t["filename"]]
    _run(["ninja", "-C", bdir, "-j2"] + names, timeout=1800)
    return bdir


def _write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def _chroot_systemctl(tree, *args):
    _run(["chroot", tree, "systemctl", "--no-reload"] + list(args))


def enable_manager(tree, variant):
    """Switches the tree's device manager, as an administrator would with systemctl."""
    if MANAGER[variant] == "devman":
        _chroot_systemctl(tree, "unmask", *UDEV_MASKED)  # (no-op on a fresh copy)
        _chroot_systemctl(tree, "disable", "systemd-udev-settle.service")
        for u in UDEV_MASKED:
            _chroot_systemctl(tree, "mask", u)
        _chroot_systemctl(tree, "enable", "devman.service")
    else:
        _chroot_systemctl(tree, "disable", "devman.service")
        for u in UDEV_MASKED:
            _chroot_systemctl(tree, "unmask", u)
    # settle has no [Install] section (opt-in): pulled in here for the settle time stamp
    for v, u in SETTLE_UNIT.items():
        link = os.path.join(tree, "etc/systemd/system/sysinit.target.wants", u)
        if os.path.lexists(link):
            os.unlink(link)
    # devman-plain: none, as a plain `systemctl enable devman.service` leaves it (issue 32)
    if SETTLED[variant]:
        _chroot_systemctl(tree, "add-wants", "sysinit.target", SETTLE_UNIT[MANAGER[variant]])
    _write(os.path.join(tree, VARIANT_FILE), variant + "\n")


def _data_disk(path):
    """GPT disk: an ext4 mounted by LABEL=, one mounted by UUID=."""
    size = 48 * MIB
    with open(path, "wb") as f:
        f.truncate(size)
    _run(["sfdisk", "-q", "--no-reread", "--no-tell-kernel", path], input=(
        "label: gpt\nlabel-id: %s\nstart=2048, size=%d, uuid=%s, name=dmlabel\n"
        "start=%d, size=%d, uuid=%s, name=dmuuid\n"
        % (DATA_PTUUID, 20 * 2048, DATA_PARTUUIDS[0], 2048 + 20 * 2048, 20 * 2048, DATA_PARTUUIDS[1])))
    for i, (label, uuid) in enumerate([(LABEL_FS, LABEL_UUID), (UUID_FS, UUID_UUID)]):
        part = "%s.p%d" % (path, i + 1)
        vmimages._mkext4(part, 20 * MIB, label, uuid)
        vmimages._splice(path, part, MIB + i * 20 * MIB)


FSTAB = """# made by tests/distro/image.py
UUID=%s / ext4 errors=remount-ro 0 1
LABEL=%s /mnt/label ext4 defaults 0 2
UUID=%s /mnt/uuid ext4 defaults 0 2
""" % (ROOT_UUID, LABEL_FS, UUID_UUID)


def work_tree(root, bdir, tree):
    """A fresh copy of the base tree root at tree, devman installed into it from bdir."""
    shutil.rmtree(tree, ignore_errors=True)
    _run(["cp", "-a", "--reflink=auto", root, tree], timeout=900)
    _run(["meson", "install", "--no-rebuild", "-C", bdir, "--destdir", tree, "--quiet"],
         env=dict(os.environ, DESTDIR=tree))


def system_files(tree):
    """What every image has: /etc/fstab and its mount points, the host name, root without a
    password (the serial console can be used to look around)."""
    _write(os.path.join(tree, "etc/fstab"), FSTAB)
    for d in ("mnt/label", "mnt/uuid"):
        os.makedirs(os.path.join(tree, d), exist_ok=True)
    _write(os.path.join(tree, "etc/hostname"), "devman-distro\n")
    _run(["chroot", tree, "passwd", "-d", "root"])


def boot_files(tree, out):
    """Copies the tree's one kernel and initramfs to out/vmlinuz and out/initrd.img; returns
    {"vmlinuz", "initrd", "kernel_version"}."""
    boot = os.path.join(tree, "boot")
    vmlinuz = sorted(glob.glob(os.path.join(boot, "vmlinuz-*")))
    initrd = sorted(glob.glob(os.path.join(boot, "initrd.img-*")))
    if len(vmlinuz) != 1 or len(initrd) != 1:
        raise RuntimeError("expected one kernel and one initrd in %s: %s %s" % (boot, vmlinuz, initrd))
    made = {"vmlinuz": os.path.join(out, "vmlinuz"), "initrd": os.path.join(out, "initrd.img"),
            "kernel_version": os.path.basename(vmlinuz[0])[len("vmlinuz-"):]}
    shutil.copy(vmlinuz[0], made["vmlinuz"])
    shutil.copy(initrd[0], made["initrd"])
    return made


def root_image(tree, img):
    """img: a new ext4 root file system (ROOT_SIZE, ROOT_UUID) made from the tree by mkfs."""
    if os.path.exists(img):
        os.unlink(img)
    with open(img, "wb") as f:
        f.truncate(ROOT_SIZE)
    _run(["mkfs.ext4", "-q", "-F", "-L", "root", "-U", ROOT_UUID, "-d", tree, img], timeout=900)
    return img


def variant_images(tree, out, variants, enable):
    """out/root-VARIANT.img of each variant, enable(tree, variant) run before each; and
    out/data.img. Returns their paths by name ("data" and each variant)."""
    made = {}
    for variant in variants:
        enable(tree, variant)
        made[variant] = root_image(tree, os.path.join(out, "root-%s.img" % variant))
    made["data"] = os.path.join(out, "data.img")
    _data_disk(made["data"])
    return made


def make_images(cache, source, build_root, out, extra=None):
    """Stage 2: root-VARIANT.img of each variant, data.img, vmlinuz and initrd.img in out.
    Callers hold locked(cache, "images.lock") while they make the images (the work tree in
    the cache is shared); out belongs to one build dir. extra(tree, out, kernel_version), when
    given, makes more images from the same tree at the end and returns their paths by name."""
    root = base(cache, "base", PACKAGES)
    bdir = usr_build(source, build_root)
    os.makedirs(out, exist_ok=True)
    tree = os.path.join(cache, "work-tree")
    try:
        work_tree(root, bdir, tree)
        guest = os.path.join(HERE, "guest")
        shutil.copy(os.path.join(guest, "report.sh"), os.path.join(tree, "usr/local/sbin/devman-distro-report"))
        os.chmod(os.path.join(tree, "usr/local/sbin/devman-distro-report"), 0o755)
        shutil.copy(os.path.join(guest, "devman-distro-report.service"),
                    os.path.join(tree, "etc/systemd/system/devman-distro-report.service"))
        system_files(tree)
        _write(os.path.join(tree, "etc/machine-id"), MACHINE_ID + "\n", 0o444)
        _chroot_systemctl(tree, "enable", "devman-distro-report.service")
        _write(os.path.join(tree, "etc/udev/rules.d/99-devman-distro-wants.rules"), WANTS_RULES)
        _write(os.path.join(tree, "etc/systemd/system", WANTS_UNIT), WANTS_SERVICE)
        _write(os.path.join(tree, "etc/systemd/network/50-devman-distro.network"), NETWORK_FILE)
        _chroot_systemctl(tree, "enable", "systemd-networkd.service")
        made = boot_files(tree, out)
        made.update(variant_images(tree, out, VARIANTS, enable_manager))
        if extra:
            made.update(extra(tree, out, made["kernel_version"]))
        return made
    finally:
        shutil.rmtree(tree, ignore_errors=True)
