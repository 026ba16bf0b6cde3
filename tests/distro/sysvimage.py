"""The distro suite's sysvinit image (issue 28 part 2, Devuan style): Debian 12 with
sysvinit-core as PID 1 instead of systemd, built like image.py's (same mirror, cache, kernel,
data disk and devman build options), in two stages:
  1. base-sysvinit: `debootstrap --variant=minbase` of PACKAGES into CACHE/base-sysvinit
     (image.base), kept while the package list, the mirror and image.base's code are the same.
  2. images: a copy with devman installed by `meson install --destdir` (prefix /usr,
     -Dsysvinit=true, no systemd units), a getty on ttyS0 in /etc/inittab, the report script
     started at the end of runlevel 2, /etc/fstab; then one root file system per variant:
     sysvinit-devman (udev's init script disabled, devman's enabled with update-rc.d) and
     sysvinit-udev (Debian's udev init script, the reference)."""

import glob
import os
import shutil

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


def base(cache):
    """Stage 1: the debootstrapped sysvinit tree (image.base), systemd kept out of it."""
    return image.base(cache, "base-sysvinit", PACKAGES, absent=["lib/systemd/systemd"])


def usr_build(source, build_root):
    """devman configured as a Devuan package would be (prefix /usr, the sysvinit files, no
    systemd units), in the build dir; only the installed targets are built."""
    return image.usr_build(source, build_root, "usr-build-sysvinit",
                           ["-Dsystemd-units=disabled", "-Dsysvinit=true"])


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
    try:
        image.work_tree(root, bdir, tree)
        guest = os.path.join(HERE, "guest")
        image._write(os.path.join(tree, REPORT_SCRIPT),
                     open(os.path.join(guest, "report-sysvinit.sh")).read(), 0o755)
        image._write(os.path.join(tree, REPORT_INIT),
                     open(os.path.join(guest, "devman-distro-report.init")).read(), 0o755)
        _run(["chroot", tree, "update-rc.d", "devman-distro-report", "defaults"])
        with open(os.path.join(tree, "etc/inittab"), "a") as f:
            f.write("# made by tests/distro/sysvimage.py: the serial console's getty\n" + INITTAB_GETTY)
        image.system_files(tree)
        made = image.boot_files(tree, out)
        made.update(image.variant_images(tree, out, VARIANTS, enable_manager))
        return made
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
