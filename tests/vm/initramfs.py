"""The guest's initramfs: a newc cpio archive written in Python (no root, no tools), laid out as
a merged-/usr Debian-like root with busybox, kernel modules (dependencies resolved from
modules.dep, indexes regenerated with depmod), the device managers with their shared libraries
(found with ldd), Debian's udev rules and helpers, libinput's list-devices and the uinput test
program."""

import os
import re
import shutil
import stat
import subprocess
import tempfile

# Modules the guest's hardware needs; their dependencies come from modules.dep.
MODULES = [
    "virtio_pci", "virtio_blk", "virtio_net", "virtio_console",
    "ahci", "libahci", "libata", "sd_mod",
    "xhci_pci", "xhci_hcd", "ehci_pci", "ehci_hcd", "usb_storage", "usbhid", "hid_generic",
    "e1000", "uinput", "evdev",
    "ata_piix", "ata_generic", "sr_mod", "cdrom", "sg", "usbserial", "ftdi_sio", "pcspkr",
    # what else the machine's MODALIASes name, as a distribution's initramfs carries them
    "acpi_cpufreq", "amd64_edac", "button", "i2c_piix4", "joydev", "kvm_amd", "pcc_cpufreq",
    "powernow_k8", "psmouse", "qemu_fw_cfg", "serio_raw", "uas",
    "ext4", "vfat", "nls_cp437", "nls_iso8859_1", "nls_utf8",
]

# Debian's static groups, and fixed ids for the system groups udev's rules name.
GROUPS = [
    ("root", 0), ("daemon", 1), ("bin", 2), ("sys", 3), ("adm", 4), ("tty", 5), ("disk", 6),
    ("lp", 7), ("mail", 8), ("news", 9), ("uucp", 10), ("man", 12), ("proxy", 13), ("kmem", 15),
    ("dialout", 20), ("fax", 21), ("voice", 22), ("cdrom", 24), ("floppy", 25), ("tape", 26),
    ("sudo", 27), ("audio", 29), ("dip", 30), ("www-data", 33), ("backup", 34),
    ("operator", 37), ("list", 38), ("irc", 39), ("src", 40), ("shadow", 42), ("utmp", 43),
    ("video", 44), ("sasl", 45), ("plugdev", 46), ("staff", 50), ("games", 60), ("users", 100),
    ("systemd-journal", 101), ("input", 102), ("kvm", 103), ("render", 104), ("sgx", 105),
    ("nogroup", 65534),
]


def usr_path(path):
    """Host path -> path inside the merged-/usr guest (/lib/x -> usr/lib/x), without leading /."""
    p = os.path.normpath(path).lstrip("/")
    top = p.split("/", 1)[0]
    if top in ("bin", "sbin", "lib", "lib64"):
        p = "usr/" + p
    return p


class Cpio:
    """Entries of a newc archive, kept sorted by path; parents are added on demand."""

    def __init__(self):
        self.entries = {}  # path -> (mode, data bytes, rdev)

    def has(self, path):
        return path.strip("/") in self.entries

    def _parents(self, path):
        parent = os.path.dirname(path)
        if parent and parent not in self.entries:
            self.dir(parent)

    def dir(self, path, mode=0o755):
        path = path.strip("/")
        self._parents(path)
        self.entries.setdefault(path, (stat.S_IFDIR | mode, b"", 0))

    def data(self, path, content, mode=0o644):
        path = path.strip("/")
        self._parents(path)
        if isinstance(content, str):
            content = content.encode()
        self.entries[path] = (stat.S_IFREG | mode, content, 0)

    def file(self, src, dst, mode=None):
        with open(src, "rb") as f:
            content = f.read()
        if mode is None:
            mode = stat.S_IMODE(os.stat(src).st_mode)
        self.data(dst, content, mode)

    def symlink(self, path, target):
        path = path.strip("/")
        self._parents(path)
        self.entries[path] = (stat.S_IFLNK | 0o777, target.encode(), 0)

    def node(self, path, kind, major, minor, mode=0o600):
        path = path.strip("/")
        self._parents(path)
        self.entries[path] = (kind | mode, b"", os.makedev(major, minor))

    def write(self, out_path):
        def header(ino, mode, size, rdev, name):
            fields = [ino, mode, 0, 0, 1, 0, size, 0, 0,
                      os.major(rdev), os.minor(rdev), len(name) + 1, 0]
            return b"070701" + b"".join(b"%08X" % v for v in fields) + name + b"\0"

        def pad(n):
            return b"\0" * ((4 - n % 4) % 4)

        with open(out_path, "wb") as out:
            for ino, path in enumerate(sorted(self.entries), start=1):
                mode, content, rdev = self.entries[path]
                h = header(ino, mode, len(content), rdev, path.encode())
                out.write(h + pad(len(h)) + content + pad(len(content)))
            h = header(0, 0, 0, 0, b"TRAILER!!!")
            out.write(h + pad(len(h)))
            out.write(b"\0" * ((512 - out.tell() % 512) % 512))


def ldd_libraries(path):
    """The shared libraries ldd resolves for an ELF file (absolute paths), as initramfs-tools'
    copy_exec and dracut find them; [] for static binaries and scripts."""
    p = subprocess.run(["ldd", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if p.returncode != 0:
        return []
    libs = []
    for line in p.stdout.splitlines():
        m = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
        if m:
            libs.append(m.group(1))
    return libs


def host_libraries(path):
    """ldd_libraries as (file to copy, path in the guest) pairs."""
    return [(lib, lib) for lib in ldd_libraries(path)]


def add_elf(cpio, src, dst=None, libs=host_libraries):
    """An executable and every shared library ldd resolves for it: what a distribution's
    initramfs builder copies (devman opens no library with dlopen()). libs(src) gives the
    libraries as (file, guest path) pairs: another architecture's come from its root
    (tests/cross/vmroot.py)."""
    cpio.file(os.path.realpath(src), dst or usr_path(src), 0o755)
    for lib, guest in libs(src):
        if not cpio.has(usr_path(guest)):
            cpio.file(os.path.realpath(lib), usr_path(guest), 0o755)


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def module_name(path):
    """A module's name from its file's path, as modprobe spells it: kernel/fs/ext4/ext4.ko ->
    ext4, .../hid-generic.ko.xz -> hid_generic."""
    return os.path.basename(path).split(".ko")[0].replace("-", "_")


def parse_modules_dep(moddir):
    """module name (with '_') -> (relative path, [relative paths of dependencies])."""
    deps = {}
    with open(os.path.join(moddir, "modules.dep")) as f:
        for line in f:
            path, _, rest = line.partition(":")
            deps[module_name(path)] = (path, rest.split())
    return deps


def module_closure(moddir, wanted, missing_ok=False):
    """Relative paths of the wanted modules and all they depend on; built-in ones are skipped,
    and with missing_ok the ones the kernel does not have (a self-built, smaller kernel)."""
    deps = parse_modules_dep(moddir)
    builtin = set()
    with open(os.path.join(moddir, "modules.builtin")) as f:
        for line in f:
            builtin.add(module_name(line.strip()))
    paths = set()
    for name in wanted:
        if name in builtin:
            continue
        if name not in deps:
            if missing_ok:
                continue
            raise RuntimeError("module %s is neither in modules.dep nor built in" % name)
        path, dlist = deps[name]
        paths.add(path)
        paths.update(dlist)
    return sorted(paths)


def add_modules(cpio, kernel, tmp, extra=(), modules=None):
    """Copies the module closure into a staging tree, runs depmod there, archives the result.
    extra: out-of-tree .ko files (the test module), placed in extra/ so modprobe finds them.
    modules: the names wanted (default MODULES, this machine's)."""
    stage_mod = os.path.join(tmp, "lib", "modules", kernel.version)
    os.makedirs(stage_mod)
    for rel in module_closure(kernel.moddir, modules or MODULES, getattr(kernel, "partial", False)):
        os.makedirs(os.path.join(stage_mod, os.path.dirname(rel)), exist_ok=True)
        shutil.copy(os.path.join(kernel.moddir, rel), os.path.join(stage_mod, rel))
    for ko in extra:
        os.makedirs(os.path.join(stage_mod, "extra"), exist_ok=True)
        shutil.copy(ko, os.path.join(stage_mod, "extra", os.path.basename(ko)))
    for f in ("modules.order", "modules.builtin", "modules.builtin.modinfo"):
        src = os.path.join(kernel.moddir, f)
        if os.path.exists(src):
            shutil.copy(src, stage_mod)
    depmod = shutil.which("depmod") or "/sbin/depmod"
    subprocess.run([depmod, "-b", tmp, kernel.version], check=True)
    for dirpath, _, files in os.walk(stage_mod):
        for f in files:
            src = os.path.join(dirpath, f)
            cpio.file(src, "usr/lib/modules/%s/%s" % (kernel.version, os.path.relpath(src, stage_mod)), 0o644)


def add_base(cpio, init_script, busybox="/usr/bin/busybox", run=(), modules=None):
    """The skeleton, /init, guest-lib.sh and a static busybox. Another architecture's busybox
    lists its applets through run (the qemu-user command); modules: what /vmtest/modules
    names (default MODULES)."""
    for d in ("bin", "sbin", "lib", "lib64"):
        cpio.dir("usr/" + d)
        cpio.symlink(d, "usr/" + d)
    for d in ("proc", "sys", "run", "tmp", "root", "vmtest", "etc/udev/rules.d", "etc/modprobe.d"):
        cpio.dir(d)
    cpio.dir("tmp", 0o1777)
    cpio.dir("dev")
    cpio.node("dev/console", stat.S_IFCHR, 5, 1)  # the kernel opens it for init; /dev is mounted over
    cpio.file(init_script, "init", 0o755)
    cpio.file(os.path.join(os.path.dirname(os.path.abspath(__file__)), "guest-lib.sh"), "vmtest/lib.sh", 0o644)
    cpio.file(busybox, "usr/bin/busybox", 0o755)
    applets = subprocess.run([*run, busybox, "--list-full"], stdout=subprocess.PIPE,
                             text=True, check=True).stdout.split()
    cpio.data("etc/group", "".join("%s:x:%d:\n" % g for g in GROUPS))
    cpio.data("etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n")
    cpio.data("etc/modprobe.d/vmtest.conf", "options usb-storage delay_use=0\n")
    cpio.data("vmtest/modules", " ".join(modules or MODULES) + "\n")
    return applets


def add_busybox_applets(cpio, applets):
    """After the real programs, so e.g. a real modprobe or stat is never shadowed."""
    for a in applets:
        dst = usr_path("/" + a)
        if not cpio.has(dst):
            cpio.symlink(dst, "/usr/bin/busybox")


def _in_root(root, *paths):
    """The first of paths (absolute, as in the guest) that exists under root, as a host path."""
    for p in paths:
        if os.path.exists(os.path.join(root, p.lstrip("/"))):
            return os.path.join(root, p.lstrip("/"))
    return os.path.join(root, paths[0].lstrip("/"))


def add_udev(cpio, root="/", libs=host_libraries):
    """systemd-udevd 252, udevadm, Debian's stock rules, hwdb and rule helpers, .link files;
    from the host, or from root (an unpacked, not merged-/usr Debian of another architecture,
    whose libraries libs finds)."""

    def guest(path):
        return usr_path("/" + os.path.relpath(path, root))

    udevadm = _in_root(root, "/usr/bin/udevadm", "/bin/udevadm")
    add_elf(cpio, udevadm, guest(udevadm), libs)
    cpio.symlink("usr/lib/systemd/systemd-udevd", "../../bin/udevadm")
    udev = _in_root(root, "/usr/lib/udev", "/lib/udev")
    for f in sorted(os.listdir(udev)):
        src = os.path.join(udev, f)
        if f == "rules.d":
            for r in sorted(os.listdir(src)):
                if r.endswith(".rules"):
                    cpio.file(os.path.join(src, r), "usr/lib/udev/rules.d/" + r, 0o644)
        elif f == "hwdb.bin":
            cpio.file(src, "usr/lib/udev/hwdb.bin", 0o444)
        elif os.path.isfile(src) and os.access(src, os.X_OK):
            if is_elf(src):
                add_elf(cpio, src, guest(src), libs)
            else:
                cpio.file(src, guest(src), 0o755)
    net = _in_root(root, "/usr/lib/systemd/network", "/lib/systemd/network")
    for f in sorted(os.listdir(net)) if os.path.isdir(net) else []:
        if f.endswith(".link"):
            cpio.file(os.path.join(net, f), "usr/lib/systemd/network/" + f, 0o644)
    conf = os.path.join(root, "etc/udev/udev.conf")
    if os.path.exists(conf):
        cpio.file(conf, "etc/udev/udev.conf", 0o644)


def add_libinput(cpio):
    add_elf(cpio, "/usr/bin/libinput")
    add_elf(cpio, "/usr/libexec/libinput/libinput-list-devices")
    share = "/usr/share/libinput"
    for f in sorted(os.listdir(share)) if os.path.isdir(share) else []:
        cpio.file(os.path.join(share, f), "usr/share/libinput/" + f, 0o644)


RCS_PATH = "usr/share/devman/devman.rcS"


def add_rcs(cpio, rcs):
    """The rcS snippet exactly as meson generated it. It calls the programs by their configured
    paths (PREFIX/sbin/devmand, ...): those paths lead to the guest's copies."""
    cpio.file(rcs, RCS_PATH, 0o755)
    with open(rcs) as f:
        text = f.read()
    for var, guest in (("devman_devmand", "/usr/sbin/devmand"), ("devman_devmanadm", "/usr/bin/devmanadm")):
        m = re.search(r'^%s="([^"]+)"$' % var, text, re.M)
        if not m:
            raise RuntimeError("%s: no %s= line" % (rcs, var))
        path = os.path.normpath(m.group(1))
        if usr_path(path) != guest.lstrip("/") and not cpio.has(usr_path(path)):
            cpio.symlink(usr_path(path), guest)


def add_devman(cpio, devmand, devmanadm, rules_dir, rcs=None, libs=host_libraries):
    """devman's programs (when built), the rcS snippet and its own rules, next to Debian's
    rules so both managers read the same set."""
    if devmand:
        add_elf(cpio, devmand, "usr/sbin/devmand", libs)
    if devmanadm:
        add_elf(cpio, devmanadm, "usr/bin/devmanadm", libs)
        # the verbs the front does not carry (snapshot, info, ...): where it looks first
        tools = os.path.join(os.path.dirname(devmanadm), "devmanadm-tools")
        add_elf(cpio, tools, "usr/libexec/devman/devmanadm-tools", libs)
    if devmand and devmanadm and rcs:
        add_rcs(cpio, rcs)
    for r in sorted(os.listdir(rules_dir)) if os.path.isdir(rules_dir) else []:
        if r.endswith(".rules"):
            cpio.file(os.path.join(rules_dir, r), "usr/lib/udev/rules.d/" + r, 0o644)


def build(out_path, kernel, init_script, uinput_device, rules_dir, devmand=None, devmanadm=None, rcs=None,
          extra_modules=(), extra_files=()):
    """extra_files: (host path, path in the guest) pairs, e.g. another boot's snapshot."""
    cpio = Cpio()
    applets = add_base(cpio, init_script)
    with tempfile.TemporaryDirectory(prefix="devman-vm-modules.") as tmp:
        add_modules(cpio, kernel, tmp, extra_modules)
    add_udev(cpio)
    add_libinput(cpio)
    add_elf(cpio, uinput_device, "usr/bin/uinput-device")
    add_devman(cpio, devmand, devmanadm, rules_dir, rcs)
    add_busybox_applets(cpio, applets)
    for src, dst in extra_files:
        cpio.file(src, dst, 0o644)
    cpio.write(out_path)


def build_probe(out_path, marker):
    """The smallest image that shows a kernel reached /init: busybox prints a marker, reboots."""
    cpio = Cpio()
    cpio.dir("dev")
    cpio.node("dev/console", stat.S_IFCHR, 5, 1)
    cpio.file("/usr/bin/busybox", "bin/busybox", 0o755)
    cpio.data("init", "#!/bin/busybox sh\n/bin/busybox echo %s\n/bin/busybox reboot -f\n" % marker, 0o755)
    cpio.write(out_path)
