#!/usr/bin/env python3
"""Issue 30, part 1, the VM half: Debian 12's kernel and userland of ARCH booted under
qemu-system-* (TCG), the cross-built devmand against systemd-udevd 252 on the same guest, as
tests/vm does on x86-64 (its initramfs, QEMU control, report format, comparison and allowlist
format are reused).

    tests/cross/vm.py ARCH [BUILD]            three boots, checks and comparisons
    tests/cross/vm.py ARCH [BUILD] --evaluate the same on the last boots' results, no boot
    tests/cross/vm.py --selftest              the s390x renaming on made-up data

ARCH: arm64, armhf, s390x. BUILD: the cross build (default build-cross/ARCH), whose daemon/,
units/sysvinit/devman.rcS and tests/vm/uinput-device go into the guest; the guest root comes
from vmroot.py. Boots: udevd on devtmpfs (the reference), devman on an empty tmpfs /dev, devman
on devtmpfs started by the generated devman.rcS. Results in BUILD/tests/cross-vm/. Run by
`tests/cross/run ARCH vm` (README.md). Exit 0 pass, 1 fail, 77 when QEMU is missing."""

import copy
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VM = os.path.join(os.path.dirname(HERE), "vm")
sys.path.insert(0, HERE)
sys.path.insert(0, VM)

import checks  # noqa: E402
import compare  # noqa: E402
import images  # noqa: E402
import initramfs  # noqa: E402
import kernel as kmod  # noqa: E402
import qemu  # noqa: E402
import report  # noqa: E402
import vmroot  # noqa: E402

BOOT_TIMEOUT = int(os.environ.get("DEVMAN_VM_TIMEOUT", "1500"))
TRIPLETS = {"arm64": "aarch64-linux-gnu", "armhf": "arm-linux-gnueabihf", "s390x": "s390x-linux-gnu"}
QEMU_USER = {"arm64": "qemu-aarch64-static", "armhf": "qemu-arm-static", "s390x": "qemu-s390x-static"}
QEMU_SYSTEM = {"arm64": "qemu-system-aarch64", "armhf": "qemu-system-arm", "s390x": "qemu-system-s390x"}
CONSOLE = {"arm64": "ttyAMA0", "armhf": "ttyAMA0", "s390x": "ttysclp0"}
# Hot-plug steps per machine: armhf's kernel (armmp-lpae) has no PCIe hot-plug
# (CONFIG_HOTPLUG_PCI_PCIE), s390x's has no uinput (CONFIG_INPUT_UINPUT) and the machine no USB.
STEPS = {"arm64": ["disk", "usb", "uinput"], "armhf": ["usb", "uinput"], "s390x": ["disk"]}
SKIPPED = {"armhf": "disk hot-plug: the armmp-lpae kernel has no PCIe hot-plug (CONFIG_HOTPLUG_PCI_PCIE unset)",
           "s390x": "uinput: the s390x kernel has no uinput (CONFIG_INPUT_UINPUT unset); usb: the machine has no USB"}
# Modules the guest may need (those a kernel lacks are left out); the managers load them by
# MODALIAS. EARLY: what init loads itself (the channels, uinput), when they are modules.
MODULES = ["virtio_pci", "virtio_mmio", "virtio_blk", "virtio_net", "virtio_console", "virtio_rng",
           "virtio_input", "virtio_balloon", "uinput", "evdev", "xhci_pci", "xhci_hcd",
           "usb_storage", "sd_mod", "usbhid", "hid_generic", "qemu_fw_cfg", "gpio_keys"]
# (s390x's virtio transport, virtio_ccw, is built in; its virtio_pci would serve zPCI only.)
EARLY = {"arm64": ["virtio_pci", "virtio_console", "uinput"],
         "armhf": ["virtio_pci", "virtio_console", "uinput"], "s390x": ["virtio_console"]}
BOOTS = [("udevd", "udevd", "devtmpfs"), ("devman-tmpfs", "devman", "tmpfs"),
         ("devman-devtmpfs", "devman", "devtmpfs")]


def log(msg):
    print("cross-vm: " + msg, file=sys.stderr, flush=True)


def machine(arch, kernel, initrd, append, imgs):
    """QEMU's arguments for ARCH (qemu.run's machine)."""
    def blockdev(node, path):
        return ["-blockdev", json.dumps({"driver": "raw", "node-name": node,
                                         "file": {"driver": "file", "filename": path}})]

    def args(ctl, qmp, out, console):
        common = ["-nodefaults", "-no-user-config", "-m", "1024", "-smp", "1", "-accel", "tcg",
                  "-display", "none", "-no-reboot", "-kernel", kernel.image, "-initrd", initrd,
                  "-append", append, "-serial", "file:" + console,
                  "-qmp", "unix:%s,server=on,wait=off" % qmp,
                  "-chardev", "file,id=out,path=" + out,
                  "-chardev", "socket,id=ctl,path=%s,server=on,wait=on" % ctl,
                  *blockdev("d0", imgs["disk0"]), *blockdev("u0", imgs["usb"]),
                  "-netdev", "user,id=n0,restrict=on"]
        if arch == "s390x":
            return common + [
                "-M", "s390-ccw-virtio",
                "-device", "virtio-serial-ccw,id=vser0,devno=fe.0.0000",
                "-device", "virtconsole,chardev=out,id=vcon0,nr=0",
                "-device", "virtconsole,chardev=ctl,id=vcon1,nr=1",
                "-device", "virtio-blk-ccw,drive=d0,id=vd0,devno=fe.0.0001,serial=" + images.DISK0_SERIAL,
                "-device", "virtio-net-ccw,netdev=n0,devno=fe.0.0002,mac=52:54:00:12:34:01",
                "-device", "virtio-keyboard-ccw,devno=fe.0.0003"]
        board = (["-M", "virt", "-cpu", "cortex-a57"] if arch == "arm64"
                 else ["-M", "virt,highmem=off", "-cpu", "cortex-a15"])
        return common + board + [
            "-device", "virtio-serial-pci,id=vser0",
            "-device", "virtconsole,chardev=out,id=vcon0,nr=0",
            "-device", "virtconsole,chardev=ctl,id=vcon1,nr=1",
            "-device", "virtio-blk-pci,drive=d0,id=vd0,serial=" + images.DISK0_SERIAL,
            "-device", "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:01",
            "-device", "qemu-xhci,id=xhci",
            "-device", "usb-kbd,bus=xhci.0,id=kbd",
            "-device", "usb-tablet,bus=xhci.0,id=tablet",
            # a hot-plug slot: devices on the root bus itself cannot be hot-plugged
            "-device", "pcie-root-port,id=rp1,bus=pcie.0,chassis=1,slot=1"]
    return args


def hotplug_for(arch):
    class Hotplug:
        """The host side of vm-init.sh's REQ actions on this machine."""

        def __init__(self, qmp, imgs):
            self.qmp, self.imgs = qmp, imgs

        def __call__(self, action):
            q = self.qmp
            if action == "disk-add":
                q.execute("blockdev-add", driver="raw", **{"node-name": "hp0"},
                          file={"driver": "file", "filename": self.imgs["hotplug"]})
                if arch == "s390x":
                    q.execute("device_add", driver="virtio-blk-ccw", id="hpdisk", drive="hp0",
                              devno="fe.0.0010", serial=images.HOTPLUG_SERIAL)
                else:
                    q.execute("device_add", driver="virtio-blk-pci", id="hpdisk", drive="hp0",
                              bus="rp1", serial=images.HOTPLUG_SERIAL)
            elif action == "disk-remove":
                q.execute("device_del", id="hpdisk")
                q.wait_deleted("hpdisk", timeout=120)
                q.execute("blockdev-del", **{"node-name": "hp0"})
            elif action == "usb-add":
                q.execute("device_add", driver="usb-storage", id="usbstick", drive="u0",
                          bus="xhci.0", serial=images.USB_SERIAL)
            elif action == "usb-remove":
                q.execute("device_del", id="usbstick")
                q.wait_deleted("usbstick", timeout=120)
            else:
                raise RuntimeError("unknown action %r" % action)
    return Hotplug


class Env:
    def __init__(self, arch, build):
        self.arch, self.build = arch, build
        self.results = os.path.join(build, "tests", "cross-vm")
        self.devmand = os.path.join(build, "daemon", "devmand")
        self.devmanadm = os.path.join(build, "daemon", "devmanadm")
        self.rcs = os.path.join(build, "units", "sysvinit", "devman.rcS")
        self.uinput = os.path.join(build, "tests", "vm", "uinput-device")
        for f in (self.devmand, self.devmanadm, self.rcs):
            if not os.path.exists(f):
                raise RuntimeError("%s is not built (tests/cross/run %s first)" % (f, arch))
        self.qemu = shutil.which(QEMU_SYSTEM[arch])
        if not self.qemu:
            raise kmod.Unavailable("%s is not installed (tests/cross/deps.sh)" % QEMU_SYSTEM[arch])
        cache = os.environ.get("DEVMAN_CROSS_CACHE", "/var/cache/devman-cross")
        self.root, kroot = vmroot.make(arch, cache)
        self.kernel = kmod.Kernel(kroot)
        self.kernel.partial = True  # MODULES names every machine's; each kernel has its own
        self.libs = vmroot.Libraries(self.root, TRIPLETS[arch])
        self.steps = STEPS[arch]

    def initramfs(self, path):
        cpio = initramfs.Cpio()
        applets = initramfs.add_base(cpio, os.path.join(HERE, "vm-init.sh"),
                                     busybox=os.path.join(self.root, "bin", "busybox"),
                                     run=[QEMU_USER[self.arch]], modules=MODULES)
        with tempfile.TemporaryDirectory(prefix="devman-cross-vm-modules.") as tmp:
            initramfs.add_modules(cpio, self.kernel, tmp, modules=MODULES)
        have = set(map(initramfs.module_name,
                       initramfs.module_closure(self.kernel.moddir, EARLY[self.arch], True)))
        cpio.data("vmtest/early", " ".join(m for m in EARLY[self.arch] if m in have) + "\n")
        initramfs.add_udev(cpio, self.root, self.libs)
        if "uinput" in self.steps:
            initramfs.add_elf(cpio, self.uinput, "usr/bin/uinput-device", self.libs)
        initramfs.add_devman(cpio, self.devmand, self.devmanadm, "", self.rcs, self.libs)
        initramfs.add_busybox_applets(cpio, applets)
        cpio.write(path)


def boot(env, name, manager, devfs):
    keep = os.path.join(env.results, name)
    with tempfile.TemporaryDirectory(prefix="devman-cross-vm.") as tmp:
        initrd = os.path.join(tmp, "initrd.cpio")
        t = time.monotonic()
        env.initramfs(initrd)
        imgs = images.make(tmp)
        log("%s: initramfs %.1f MiB and images in %.1f s; booting %s on %s (kernel %s, TCG)" % (
            env.arch, os.path.getsize(initrd) / 1048576, time.monotonic() - t, manager, devfs,
            env.kernel.version))
        append = ("console=%s loglevel=5 panic=-1 rdinit=/init vmtest.manager=%s vmtest.dev=%s"
                  % (CONSOLE[env.arch], manager, devfs))
        if env.steps:
            append += " vmtest.steps=" + ",".join(env.steps)
        if manager == "devman" and devfs == "devtmpfs":
            append += " vmtest.start=rcs"
        error = None
        try:
            out, console, secs = qemu.run(
                env.qemu, env.kernel.image, initrd, append, "tcg", tmp, imgs, BOOT_TIMEOUT, log,
                machine=machine(env.arch, env.kernel, initrd, append, imgs),
                hotplug=hotplug_for(env.arch))
        except Exception as e:
            error = "%s: %s" % (type(e).__name__, e)
            out, console, secs = os.path.join(tmp, "report.txt"), os.path.join(tmp, "console.log"), None
        result = report.collect(out, console, keep, error)
    result.update(host_seconds=secs, accel="tcg", kernel=env.kernel.version)
    report.save(result, os.path.join(env.results, name + ".json"))
    log("%s: %s boot took %s s" % (env.arch, name, "%.0f" % secs if secs else "?"))
    return result


# ---- s390x: virtio devices probe asynchronously ------------------------------------------
# On s390x every virtio device hangs below its own channel subsystem device
# (/devices/css0/0.0.000N/0.0.XXXX/virtioK), and the css driver probes them in parallel: which
# disk becomes vda and which virtioK number a device gets changes from boot to boot (and the
# block minors with vda/vdb). The channel bus id (0.0.XXXX, the devno vm.py gives every device)
# is stable. Both reports of a comparison are rewritten alike: virtioK -> virtio<0.0.XXXX>,
# vportKpN -> vport<0.0.XXXX>pN, vdX -> vd<0.0.XXXX> and the disk's major:minor ->
# MAJOR:<0.0.XXXX>+offset. Nothing else changes, so every other difference still counts.

def ccw_names(step):
    """(token -> stable name) of one step, from the devices' paths in the database."""
    names = {}
    disks = {}
    for devpath, dev in step["exportdb"].items():
        m = re.search(r"/(0\.0\.[0-9a-f]{4})/(virtio\d+)(?:/|$)", devpath)
        if not m:
            continue
        busid, virtio = m.groups()
        names[virtio] = "virtio<%s>" % busid
        names["vport" + virtio[len("virtio"):]] = "vport<%s>" % busid
        e = dev["E"]
        if e.get("DEVTYPE") == "disk" and e.get("SUBSYSTEM") == "block" and "MAJOR" in e:
            disk = os.path.basename(e.get("DEVNAME", ""))
            names[disk] = "vd<%s>" % busid
            disks[(e["MAJOR"], int(e["MINOR"]))] = busid
    return names, disks


def normalise_ccw(result):
    """result with every step rewritten (see above); a new object."""
    out = copy.deepcopy(result)
    for name, step in list(out["steps"].items()):
        # "before" has no database yet: the names of the coldplug step
        names, disks = ccw_names(result["steps"].get("coldplug" if name == "before" else name, step))
        if not names:
            continue
        text = json.dumps(step)
        text = re.sub(r"\b(?:virtio\d+\b|vport\d+(?=p\d)|vd[a-z]+(?=\d*\b))",
                      lambda m: names.get(m.group(0), m.group(0)), text)

        def devt(m):
            major, minor = m.group(1), int(m.group(2))
            for (dmaj, dmin), busid in disks.items():
                if dmaj == major and dmin <= minor < dmin + 16:
                    return "%s:<%s>+%d" % (major, busid, minor - dmin)
            return m.group(0)
        majors = sorted({k[0] for k in disks})
        if majors:
            text = re.sub(r"(?<!\d)(%s):(\d+)\b" % "|".join(majors), devt, text)
        step = json.loads(text)
        for dev in step["exportdb"].values():
            e = dev["E"]
            if e.get("MAJOR") in majors and "MINOR" in e:
                e["MINOR"] = devt(re.match(r"(\d+):(\d+)", "%s:%s" % (e["MAJOR"], e["MINOR"]))).split(":", 1)[1]
        out["steps"][name] = step
    return out


def selftest():
    def dev(path, **e):
        return {"N": None, "S": [], "L": "0", "E": dict(DEVPATH=path, **e)}

    def rep(order):
        (a, va), (b, vb) = order
        step = report.new_step()
        for busid, virtio, disk, minor in ((a, va, "vda", 0), (b, vb, "vdb", 16)):
            p = "/devices/css0/0.0.000%s/%s/%s/block/%s" % (busid[-1], busid, virtio, disk)
            step["exportdb"][p] = dev(p, DEVNAME="/dev/" + disk, DEVTYPE="disk", SUBSYSTEM="block",
                                      MAJOR="254", MINOR=str(minor))
            step["exportdb"][p + "/%s1" % disk] = dev(p + "/%s1" % disk, DEVNAME="/dev/%s1" % disk,
                                                      DEVTYPE="partition", SUBSYSTEM="block",
                                                      MAJOR="254", MINOR=str(minor + 1))
            step["dev"]["/dev/%s1" % disk] = {"type": "b", "devt": "254:%d" % (minor + 1), "mode": "0660",
                                             "owner": "root", "group": "disk", "inode": 1}
            step["links"]["/dev/disk/by-path/ccw-%s-part1" % busid] = "../../%s1" % disk
            step["data"]["b254:%d" % (minor + 1)] = ["S:disk/by-path/ccw-%s-part1" % busid]
        return {"steps": {"coldplug": step}}

    one = rep([("0.0.0001", "virtio1"), ("0.0.0010", "virtio3")])
    other = rep([("0.0.0010", "virtio1"), ("0.0.0001", "virtio3")])
    raw = compare.compare(one, other)
    assert raw, "the made-up reports should differ before the renaming"
    got = [str(d) for d in compare.compare(normalise_ccw(one), normalise_ccw(other))]
    assert got == [], got
    # a real difference survives the renaming
    bad = copy.deepcopy(other)
    bad["steps"]["coldplug"]["dev"]["/dev/vdb1"]["mode"] = "0600"
    keys = [d.key for d in compare.compare(normalise_ccw(one), normalise_ccw(bad))]
    assert keys == ["node /dev/vd<0.0.0001>1"], keys
    print("cross vm.py selftest: ok")
    return 0


def counts(step):
    return {"nodes": sum(1 for n in step["dev"].values() if n["type"] in ("b", "c")),
            "links": len(step["links"]), "devices": len(step["exportdb"]),
            "props": sum(len(d["E"]) for d in step["exportdb"].values()),
            "db": len(step["data"])}


def mutation_check(ref, res):
    """The comparison sees a changed mode and a changed property (it is not blind here)."""
    bad = copy.deepcopy(res)
    st = bad["steps"]["coldplug"]
    node = sorted(p for p, n in st["dev"].items() if n["type"] in ("b", "c"))[0]
    st["dev"][node]["mode"] = "0606" if st["dev"][node]["mode"] != "0606" else "0660"
    devpath = sorted(p for p, d in st["exportdb"].items() if "SUBSYSTEM" in d["E"])[0]
    st["exportdb"][devpath]["E"]["SUBSYSTEM"] += "-mutated"
    before = {str(d) for d in compare.compare(ref, res)}
    new = sorted(d.key for d in compare.compare(ref, bad) if str(d) not in before)
    want = sorted(["node " + node, "prop %s:SUBSYSTEM" % compare._canon_devpath(
        devpath, compare._numbered_names(st))])
    return [] if new == want else ["mutation check: expected %s, got %s" % (want, new)]


def evaluate(env, results):
    ref = results["udevd"]
    problems = []
    rows = []
    allow_path = os.path.join(HERE, "vm-allowlist.txt")
    allow = compare.Allowlist.load(allow_path) if os.path.exists(allow_path) else compare.Allowlist([])
    norm = normalise_ccw if env.arch == "s390x" else (lambda r: r)
    nref = norm(ref)
    for name, manager, devfs in BOOTS:
        res = results[name]
        rows.append((name + "/" + devfs if name == "udevd" else name, res))
        failed = report.boot_failed(res)
        if failed:
            problems.append("%s: %s" % (name, failed))
            continue
        problems += ["%s: guest: %s" % (name, w) for w in res["warnings"]]
        if devfs == "devtmpfs":
            problems += ["%s: devtmpfs: %s" % (name, p) for p in checks.devtmpfs_untouched(res)]
        c = counts(res["steps"]["coldplug"])
        log("%s %s coldplug: %d nodes, %d links, %d devices, %d properties, %d db entries; steps %s" % (
            env.arch, name, c["nodes"], c["links"], c["devices"], c["props"], c["db"],
            " ".join(s for s in res["steps"] if s != "before")))
        if c["nodes"] == 0 or c["devices"] == 0:
            problems.append("%s: an empty coldplug" % name)
        if manager == "udevd":
            continue
        want = "devman.rcS" if devfs == "devtmpfs" else "init.sh"
        if res.get("started_by") != want:
            problems.append("%s: started by %s, not %s" % (name, res.get("started_by"), want))
        nres = norm(res)
        diffs = compare.compare(nref, nres)
        unexplained, allowed = allow.split(diffs)
        for a in allowed:
            log("allowed: %s: %s" % (name, a))
        problems += ["%s: differs from udevd: %s" % (name, d) for d in unexplained]
        log("%s %s: %d differences from udevd (%d allowed)" % (env.arch, name, len(diffs), len(allowed)))
        problems += ["%s: %s" % (name, p) for p in mutation_check(nref, nres)]
    log("boot-to-settle on %s (guest uptime seconds), host seconds per boot:\n%s" % (
        env.arch, compare.timing_table(rows)))
    if env.arch in SKIPPED:
        log("not on %s: %s" % (env.arch, SKIPPED[env.arch]))
    with open(os.path.join(env.results, "problems.txt"), "w") as f:
        f.writelines(p + "\n" for p in problems)
    for p in problems[:150]:
        log("FAIL: " + p)
    log("%s: %d problems (all in %s)" % (env.arch, len(problems), os.path.join(env.results, "problems.txt")))
    return 1 if problems else 0


def main(argv):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    signal.signal(signal.SIGINT, lambda *_: sys.exit(128 + signal.SIGINT))
    if argv[1:] == ["--selftest"]:
        return selftest()
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) not in (1, 2) or args[0] not in TRIPLETS:
        print(__doc__, file=sys.stderr)
        return 2
    arch = args[0]
    top = os.path.dirname(os.path.dirname(HERE))
    build = os.path.abspath(args[1] if len(args) == 2 else os.path.join(top, "build-cross", arch))
    try:
        env = Env(arch, build)
    except kmod.Unavailable as e:
        log("SKIP: %s" % e)
        return 77
    os.makedirs(env.results, exist_ok=True)
    results = {}
    only = os.environ.get("DEVMAN_CROSS_VM_BOOTS", "").split(",")
    for name, manager, devfs in BOOTS:
        path = os.path.join(env.results, name + ".json")
        if "--evaluate" in argv or (only != [""] and name not in only):
            results[name] = report.load(path)
            continue
        previous = report.load(path) if name == "udevd" and os.path.exists(path) else None
        results[name] = boot(env, name, manager, devfs)
        if previous and previous.get("kernel") == env.kernel.version and not report.boot_failed(previous) \
                and not report.boot_failed(results[name]):
            # two reference boots of the same guest should not differ (if they did, the kernel
            # and not devman would make the comparison flaky): said, never failed
            norm = normalise_ccw if arch == "s390x" else (lambda r: r)
            diffs = compare.compare(norm(previous), norm(results[name]))
            for d in diffs[:50]:
                log("NOTE: differs from the previous udevd boot: %s" % d)
            log("%s: udevd: %d differences from the previous udevd boot" % (arch, len(diffs)))
    return evaluate(env, results)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
