"""The distro suite's sysvinit image (issue 28 part 2, Devuan style): Debian 12 with
sysvinit-core as PID 1 instead of systemd, built like image.py's (same mirror, cache, kernel,
data disk and devman build options), in two stages:
  1. base-sysvinit: `debootstrap --variant=minbase` of PACKAGES into CACHE/base-sysvinit,
     kept while the package list, the mirror and this stage's code are the same.
  2. images: a copy with devman installed by `meson install --destdir` (prefix /usr,
     -Dsysvinit=true, no systemd units), a getty on ttyS0 in /etc/inittab, the report script
     started at the end of runlevel 2, /etc/fstab; then one root file system per variant:
     sysvinit-devman (udev's init script disabled, devman's enabled with update-rc.d) and
     sysvinit-udev (Debian's udev init script, the reference)."""

import glob
import hashlib
import os
import shutil
import subprocess

import image

# sysvinit instead of systemd: minbase has no init, sysvinit-core brings sysv-rc (its first
# alternative) and initscripts; udev is the reference and the initramfs' device manager.
PACKAGES = ["sysvinit-core", "sysv-rc", "initscripts", "udev", "linux-image-amd64",
            "initramfs-tools", "kmod", "e2fsprogs", "iproute2", "procps", "libnl-3-200",
            "libnl-route-3-200", "libevdev2", "libblkid1", "libkmod2", "libsystemd0"]
VARIANTS = ("sysvinit-devman", "sysvinit-udev")
MANAGER = {"sysvinit-devman": "devman", "sysvinit-udev": "udev"}
# Debian's inittab has the serial getty commented out; a Devuan installer on a serial console
# adds one like it
INITTAB_GETTY = "T0:2345:respawn:/sbin/getty -L ttyS0 115200 vt100\n"
REPORT_SCRIPT = "usr/local/sbin/devman-distro-report-sysv"
REPORT_INIT = "etc/init.d/devman-distro-report"
HERE = os.path.dirname(os.path.abspath(__file__))

log = image.log
_run = image._run


def base_key(mirror_uri):
    h = hashlib.sha256()
    h.update(("%s\0%s\0%s\0" % (image.SUITE, mirror_uri, ",".join(PACKAGES))).encode())
    with open(os.path.abspath(__file__), "rb") as f:  # this stage's code
        src = f.read()
    h.update(src[src.index(b"def base("):src.index(b"# end of stage 1")])
    return h.hexdigest()[:16]


def base(cache):
    """Stage 1: the debootstrapped sysvinit tree, made once per key. Returns its path."""
    if os.geteuid() != 0:
        raise image.Unavailable("building the image needs root (debootstrap, chroot)")
    uri = image.mirror()
    key = base_key(uri)
    root = os.path.join(cache, "base-sysvinit")
    stamp = os.path.join(cache, "base-sysvinit.key")
    with image.locked(cache, "lock-sysvinit"):
        try:
            with open(stamp) as f:
                if f.read().strip() == key and os.path.isdir(root):
                    return root
        except OSError:
            pass
        image._ensure_debootstrap()
        tmp = root + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)
        if os.path.exists(stamp):
            os.unlink(stamp)
        logpath = os.path.join(cache, "debootstrap-sysvinit.log")
        log("debootstrap %s with sysvinit from %s (a few minutes; log in %s)" % (image.SUITE, uri, logpath))
        with open(logpath, "w") as logf:
            p = subprocess.run(["debootstrap", "--variant=minbase", "--include=" + ",".join(PACKAGES),
                                image.SUITE, tmp, uri], stdout=logf, stderr=subprocess.STDOUT,
                               timeout=image.DEBOOTSTRAP_TIMEOUT)
        if p.returncode != 0:
            raise RuntimeError("debootstrap failed (%d), see %s" % (p.returncode, logpath))
        for deb in glob.glob(os.path.join(tmp, "var/cache/apt/archives/*.deb")):
            os.unlink(deb)
        if not glob.glob(os.path.join(tmp, "boot/initrd.img-*")):
            raise RuntimeError("debootstrap made no initramfs in %s/boot" % tmp)
        if os.path.exists(os.path.join(tmp, "lib/systemd/systemd")):
            raise RuntimeError("systemd came into the sysvinit tree %s" % tmp)
        os.rename(tmp, root)
        with open(stamp, "w") as f:
            f.write(key + "\n")
        return root
# end of stage 1


def usr_build(source, build_root):
    """devman configured as a Devuan package would be (prefix /usr, the sysvinit files, no
    systemd units), in the build dir; only the installed targets are built."""
    bdir = os.path.join(build_root, "tests", "distro", "usr-build-sysvinit")
    if not os.path.exists(os.path.join(bdir, "build.ninja")):
        _run(["meson", "setup", "--prefix=/usr", "-Dsystemd-units=disabled", "-Dsysvinit=true",
              "-Dbash-completion=false", bdir, source])
    import json
    targets = json.loads(_run(["meson", "introspect", "--targets", bdir]))
    names = [os.path.relpath(f, bdir) for t in targets if t.get("installed") for f in t["filename"]]
    _run(["ninja", "-C", bdir, "-j2"] + names, timeout=1800)
    return bdir


def _rc_links(tree):
    """The start/stop links of every runlevel, for the log."""
    out = []
    for d in sorted(glob.glob(os.path.join(tree, "etc/rc?.d"))):
        out.append("%s: %s" % (os.path.basename(d), " ".join(sorted(
            f for f in os.listdir(d) if f[0] in "SK" and ("udev" in f or "devman" in f)))))
    return out


def enable_manager(tree, variant):
    """Switches the tree's device manager as README.md tells a Devuan administrator to."""
    if MANAGER[variant] == "devman":
        _run(["chroot", tree, "update-rc.d", "udev", "disable"])
        _run(["chroot", tree, "update-rc.d", "devman", "defaults"])
    else:
        _run(["chroot", tree, "update-rc.d", "-f", "devman", "remove"])
        _run(["chroot", tree, "update-rc.d", "udev", "enable"])
    image._write(os.path.join(tree, image.VARIANT_FILE), variant + "\n")
    log("%s: %s" % (variant, "; ".join(_rc_links(tree))))


def make_images(cache, source, build_root, out):
    """Stage 2: root-VARIANT.img of each variant, data.img, vmlinuz and initrd.img in out."""
    root = base(cache)
    bdir = usr_build(source, build_root)
    os.makedirs(out, exist_ok=True)
    tree = os.path.join(cache, "work-tree-sysvinit")
    shutil.rmtree(tree, ignore_errors=True)
    try:
        _run(["cp", "-a", "--reflink=auto", root, tree], timeout=900)
        _run(["meson", "install", "--no-rebuild", "-C", bdir, "--destdir", tree, "--quiet"],
             env=dict(os.environ, DESTDIR=tree))
        guest = os.path.join(HERE, "guest")
        image._write(os.path.join(tree, REPORT_SCRIPT),
                     open(os.path.join(guest, "report-sysvinit.sh")).read(), 0o755)
        image._write(os.path.join(tree, REPORT_INIT),
                     open(os.path.join(guest, "devman-distro-report.init")).read(), 0o755)
        _run(["chroot", tree, "update-rc.d", "devman-distro-report", "defaults"])
        image._write(os.path.join(tree, "etc/fstab"), image.FSTAB)
        for d in ("mnt/label", "mnt/uuid"):
            os.makedirs(os.path.join(tree, d), exist_ok=True)
        image._write(os.path.join(tree, "etc/hostname"), "devman-distro\n")
        with open(os.path.join(tree, "etc/inittab"), "a") as f:
            f.write("# made by tests/distro/sysvimage.py: the serial console's getty\n" + INITTAB_GETTY)
        _run(["chroot", tree, "passwd", "-d", "root"])
        boot = os.path.join(tree, "boot")
        vmlinuz = sorted(glob.glob(os.path.join(boot, "vmlinuz-*")))
        initrd = sorted(glob.glob(os.path.join(boot, "initrd.img-*")))
        if len(vmlinuz) != 1 or len(initrd) != 1:
            raise RuntimeError("expected one kernel and one initrd in %s: %s %s" % (boot, vmlinuz, initrd))
        shutil.copy(vmlinuz[0], os.path.join(out, "vmlinuz"))
        shutil.copy(initrd[0], os.path.join(out, "initrd.img"))
        for variant in VARIANTS:
            enable_manager(tree, variant)
            img = os.path.join(out, "root-%s.img" % variant)
            if os.path.exists(img):
                os.unlink(img)
            with open(img, "wb") as f:
                f.truncate(image.ROOT_SIZE)
            _run(["mkfs.ext4", "-q", "-F", "-L", "root", "-U", image.ROOT_UUID, "-d", tree, img], timeout=900)
        image._data_disk(os.path.join(out, "data.img"))
        return {"vmlinuz": os.path.join(out, "vmlinuz"), "initrd": os.path.join(out, "initrd.img"),
                "data": os.path.join(out, "data.img"),
                **{v: os.path.join(out, "root-%s.img" % v) for v in VARIANTS}}
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def default_runlevel(cache):
    """The default runlevel of the base tree's /etc/inittab ("id:2:initdefault:")."""
    with open(os.path.join(cache, "base-sysvinit", "etc", "inittab")) as f:
        for line in f:
            w = line.strip().split(":")
            if len(w) >= 3 and w[2] == "initdefault":
                return w[1]
    raise RuntimeError("no initdefault line in the sysvinit tree's /etc/inittab")
