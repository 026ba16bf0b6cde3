#!/usr/bin/env python3
"""Issue 29, part 2: Debian's 6.1 kernel built from linux-source-6.1 with the legacy sysfs block
layout available: CONFIG_SYSFS_DEPRECATED=y without _V2, so the boot parameter chooses the
layout. Booted with `sysfs.deprecated=1`, /sys/block/<disk> is a real directory holding its
partitions and a `device` link, and /sys/class/block does not exist; booted without it, the same
kernel has the unified layout. The two boots of one kernel differ in the layout and in nothing
else, so that comparing what devman makes of them tests devman's handling of the old layout.

The configuration is small so that the build takes minutes rather than hours on a shared
machine: x86_64_defconfig, the drivers of the VM's hardware built in (virtio, AHCI, PIIX IDE,
xHCI/EHCI, usb-storage/uas, HID, usb-serial/ftdi, e1000, 8250, uinput, evdev, pcspkr, ext4,
vfat), and the big subsystems the VM does not use switched off (DRM, sound, wireless,
netfilter, NFS, SELinux, tracing). Modules the vm initramfs lists and this kernel lacks are left
out of its initramfs (initramfs.build's kernel.partial).

The result is an unpacked tree like kernel.obtain()'s (boot/vmlinuz-*, lib/modules/*) cached in
$DEVMAN_KERNEL_CACHE (default /var/cache/devman-kernels, else the build dir), keyed by the source
package version and this file's configuration. One command (re)builds it:

    python3 tests/vm/legacykernel.py build [--force]

It installs what it needs with apt-get when missing (root): linux-source-6.1 flex bison bc
libelf-dev libssl-dev. The build runs `nice -n 10 make -j2` (the machine is shared).
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kernel  # noqa: E402

SOURCE_PACKAGE = "linux-source-6.1"
BUILD_DEPS = [SOURCE_PACKAGE, "flex", "bison", "bc", "libelf-dev", "libssl-dev", "xz-utils",
              "kmod", "cpio", "rsync", "gcc", "make"]
LOCALVERSION = "-sysfsdep"

ENABLE = [
    # the layout switch: the boot parameter sysfs.deprecated=1 selects the legacy layout
    "SYSFS_DEPRECATED",
    # the VM's hardware (tests/vm/qemu.py) and what init.sh and the managers use
    "VIRTIO_MENU", "VIRTIO_PCI", "VIRTIO_BLK", "VIRTIO_NET", "VIRTIO_CONSOLE",
    "ATA", "SATA_AHCI", "ATA_PIIX", "ATA_GENERIC", "SCSI", "BLK_DEV_SD", "BLK_DEV_SR",
    "CHR_DEV_SG", "BLK_DEV_BSG", "USB_SUPPORT", "USB", "USB_XHCI_HCD", "USB_XHCI_PCI",
    "USB_EHCI_HCD", "USB_EHCI_PCI", "USB_STORAGE", "USB_UAS", "HID", "HID_GENERIC", "USB_HID",
    "HIDRAW", "USB_SERIAL", "USB_SERIAL_FTDI_SIO", "NETDEVICES", "ETHERNET", "NET_VENDOR_INTEL",
    "E1000", "INPUT_EVDEV", "INPUT_MISC", "INPUT_UINPUT", "INPUT_PCSPKR", "INPUT_JOYDEV",
    "MOUSE_PS2", "SERIO_RAW", "SERIAL_8250", "SERIAL_8250_CONSOLE", "SERIAL_8250_PNP",
    "RTC_CLASS", "RTC_DRV_CMOS", "I2C", "I2C_PIIX4", "FW_CFG_SYSFS", "ACPI_BUTTON",
    "DEVTMPFS", "BLK_DEV_INITRD", "TMPFS", "UNIX", "INOTIFY_USER", "SIGNALFD", "TIMERFD",
    "EPOLL", "EVENTFD", "FHANDLE", "EXT4_FS", "VFAT_FS", "MSDOS_FS", "NLS_CODEPAGE_437",
    "NLS_ISO8859_1", "NLS_UTF8", "PARTITION_ADVANCED", "MSDOS_PARTITION", "EFI_PARTITION",
]
DISABLE = [
    "SYSFS_DEPRECATED_V2",  # the layout is the boot parameter's choice
    "DEVTMPFS_MOUNT",  # init.sh mounts /dev itself (tmpfs or devtmpfs)
    # no device of the VM needs these; they are most of defconfig's build time
    "DRM", "SOUND", "WLAN", "WIRELESS", "CFG80211", "MAC80211", "RFKILL", "NETFILTER",
    "NFS_FS", "ROOT_NFS", "NETWORK_FILESYSTEMS", "IPV6", "NET_SCHED", "SECURITY_SELINUX",
    "AUDIT", "KPROBES", "FTRACE", "PROFILING", "PCCARD", "AGP", "HIBERNATION", "MODULE_SIG",
    "DEBUG_INFO", "DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT", "LOCALVERSION_AUTO", "HAMRADIO",
    "BT", "NET_VENDOR_BROADCOM", "NET_VENDOR_REALTEK", "NET_VENDOR_NVIDIA", "NET_VENDOR_MARVELL",
]
LOCALVERSION = "-sysfsdep"


def log(msg):
    print("legacykernel: " + msg, file=sys.stderr, flush=True)


def _run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def cache_dir(build_root):
    return kernel.cache_dir(build_root, "DEVMAN_KERNEL_CACHE", "devman-kernels", "kernel-cache")


def ensure_deps():
    """Installs the build dependencies with apt-get when one is missing (root only)."""
    missing = [p for p in BUILD_DEPS
               if _run(["dpkg-query", "-W", "-f=${Status}", p]).stdout.split()[-1:] != ["installed"]]
    if not missing:
        return
    if os.geteuid() != 0:
        raise kernel.Unavailable("missing packages %s (install them as root)" % missing)
    log("installing %s with apt-get" % " ".join(missing))
    p = _run(["apt-get", "-o", "DPkg::Lock::Timeout=900", "install", "-y", "-q",
              "--no-install-recommends"] + missing,
             env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    if p.returncode != 0:
        raise kernel.Unavailable("cannot install %s: %s" % (missing, p.stdout[-2000:]))


def source_version():
    return _run(["dpkg-query", "-W", "-f=${Version}", SOURCE_PACKAGE]).stdout.strip()


def source_tarball():
    path = "/usr/src/%s.tar.xz" % SOURCE_PACKAGE
    if not os.path.isfile(path):
        raise kernel.Unavailable("%s is missing (apt-get install %s)" % (path, SOURCE_PACKAGE))
    return path


def build_key():
    h = hashlib.sha256()
    h.update(source_version().encode() + b"\0")
    h.update(repr((ENABLE, DISABLE, LOCALVERSION)).encode())
    return h.hexdigest()[:16]


def _make(src, *targets, logf, extra_env=None):
    env = dict(os.environ, **(extra_env or {}))
    cmd = ["nice", "-n", "10", "make", "-C", src, "-j2"] + list(targets)
    log(" ".join(cmd))
    p = subprocess.run(cmd, stdout=logf, stderr=subprocess.STDOUT, env=env)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d), see %s" % (" ".join(cmd), p.returncode, logf.name))


def configure(src, logf):
    _make(src, "x86_64_defconfig", logf=logf)
    cfg = [os.path.join(src, "scripts", "config"), "--file", os.path.join(src, ".config"),
           "--set-str", "LOCALVERSION", LOCALVERSION, "--enable", "DEBUG_INFO_NONE"]
    for name in ENABLE:
        cfg += ["--enable", name]
    for name in DISABLE:
        cfg += ["--disable", name]
    p = _run(cfg)
    if p.returncode != 0:
        raise RuntimeError("scripts/config: %s" % p.stdout)
    _make(src, "olddefconfig", logf=logf)
    with open(os.path.join(src, ".config")) as f:
        have = set(line.split("=", 1)[0][len("CONFIG_"):] for line in f
                   if line.startswith("CONFIG_") and line.rstrip().endswith("=y"))
    lost = [n for n in ENABLE if n not in have] + [n for n in DISABLE if n in have]
    if lost:
        raise RuntimeError("olddefconfig did not keep %s (dependencies?)" % lost)


def build(cache, force=False):
    """Returns the cached Kernel, building it when missing (or force)."""
    key = build_key()
    root = os.path.join(cache, "sysfsdep-" + key)
    with kernel.locked(cache, "build.lock"):
        if os.path.exists(os.path.join(root, ".complete")) and not force:
            return kernel.Kernel(root)
        ensure_deps()
        work = os.path.join(cache, "work-" + key)
        shutil.rmtree(work, ignore_errors=True)
        for old in os.listdir(cache):  # an unpacked tree of the same source is reused
            src = os.path.join(cache, old, SOURCE_PACKAGE)
            if old.startswith("work-") and os.path.isfile(os.path.join(src, ".source-version")):
                with open(os.path.join(src, ".source-version")) as f:
                    if f.read().strip() == source_version():
                        os.rename(os.path.join(cache, old), work)
                        break
        os.makedirs(work, exist_ok=True)
        logpath = os.path.join(cache, "build-%s.log" % key)
        log("building the legacy-layout kernel (key %s, log %s)" % (key, logpath))
        with open(logpath, "w") as logf:
            src = os.path.join(work, SOURCE_PACKAGE)
            if not os.path.isfile(os.path.join(src, ".source-version")):
                log("unpacking %s" % source_tarball())
                shutil.rmtree(src, ignore_errors=True)
                with tarfile.open(source_tarball()) as t:
                    t.extractall(work)
                with open(os.path.join(src, ".source-version"), "w") as f:
                    f.write(source_version() + "\n")
            configure(src, logf)
            _make(src, "bzImage", "modules", logf=logf)
            stage = os.path.join(work, "root")
            _make(src, "modules_install", logf=logf,
                  extra_env={"INSTALL_MOD_PATH": stage, "INSTALL_MOD_STRIP": "1"})
            release = _run(["make", "-s", "-C", src, "kernelrelease"]).stdout.strip()
            os.makedirs(os.path.join(stage, "boot"))
            shutil.copy(os.path.join(src, "arch", "x86", "boot", "bzImage"),
                        os.path.join(stage, "boot", "vmlinuz-" + release))
            shutil.copy(os.path.join(src, ".config"), os.path.join(stage, "boot", "config-" + release))
            for link in ("build", "source"):  # point into the work tree, which goes away
                p = os.path.join(stage, "lib", "modules", release, link)
                if os.path.lexists(p):
                    os.unlink(p)
        shutil.rmtree(root, ignore_errors=True)
        os.rename(stage, root)
        shutil.rmtree(work, ignore_errors=True)
        for old in os.listdir(cache):  # an older key's tree and log are not needed any more
            path = os.path.join(cache, old)
            if old.startswith(("sysfsdep-", "work-")) and key not in old:
                shutil.rmtree(path, ignore_errors=True)
            elif old.startswith("build-") and old.endswith(".log") and key not in old:
                os.remove(path)
        open(os.path.join(root, ".complete"), "w").close()
        log("done: %s" % root)
        return kernel.Kernel(root)


def obtain(build_root, force=False):
    k = build(cache_dir(build_root), force)
    k.partial = True  # not every module of initramfs.MODULES exists here
    return k


def main(argv):
    if len(argv) < 2 or argv[1] not in ("build", "key", "path"):
        print("usage: %s build [--force] | key | path" % argv[0], file=sys.stderr)
        return 2
    build_root = os.environ.get("DEVMAN_BUILD_ROOT",
                                os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build"))
    try:
        if argv[1] == "key":
            print(build_key())
            return 0
        k = obtain(build_root, force="--force" in argv[2:])
    except kernel.Unavailable as e:
        log("unavailable: %s" % e)
        return 77
    print(k.root if argv[1] == "path" else k.version)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
