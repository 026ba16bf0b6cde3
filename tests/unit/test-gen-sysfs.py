#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Invariants of the trees tests/helpers/gen-sysfs.py writes.

The generated files are read back with plain filesystem walks written here, not with the
generator's code; expected devices and break effects are written out by hand from the fixture
description (tests/README.md), so a generator bug shows up as a mismatch."""

import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "helpers", "gen-sysfs.py")


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: " + what, file=sys.stderr)
        return cond

    def equal(self, got, want, what):
        ok = got == want
        if not ok:
            print("FAIL: %s\n  got:  %r\n  want: %r" % (what, got, want), file=sys.stderr)
            self.failed += 1
        else:
            self.passed += 1
        return ok


T = Checker()


def gen(tmp, name, *args):
    out = os.path.join(tmp, name)
    man = os.path.join(tmp, name + ".json")
    r = subprocess.run([sys.executable, GEN, "--manifest", man, *args, out], capture_output=True, text=True)
    if not T.check(r.returncode == 0, "gen-sysfs %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr)):
        raise SystemExit(1)
    with open(man) as f:
        return out, json.load(f)


def read(path):
    with open(path) as f:
        return f.read()


def uevent(path):
    env = {}
    for line in read(os.path.join(path, "uevent")).splitlines():
        key, _, value = line.partition("=")
        env[key] = value
    return env


def snapshot(root):
    """Every entry below root: relpath -> ("d", mode) | ("f", mode, content) | ("l", target)."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            rel = "/" + os.path.relpath(p, root)
            st = os.lstat(p)
            if os.path.islink(p):
                snap[rel] = ("l", os.readlink(p))
            elif os.path.isdir(p):
                snap[rel] = ("d", st.st_mode & 0o7777)
            else:
                with open(p, "rb") as f:
                    snap[rel] = ("f", st.st_mode & 0o7777, f.read())
    return snap


def inside(root, path):
    real = os.path.realpath(path)
    return real == root or real.startswith(root + "/")


def device_dirs(base):
    """Directories below base (not through symlinks) that hold a regular uevent file."""
    for dirpath, dirnames, filenames in os.walk(base):
        if "uevent" in filenames and not os.path.islink(os.path.join(dirpath, "uevent")):
            yield dirpath


def devt_of(path):
    if not os.path.isfile(os.path.join(path, "dev")):
        return None
    major, minor = read(os.path.join(path, "dev")).strip().split(":")
    return int(major), int(minor)


def scan_converted(root):
    """devpath -> (subsystem, sysname, devt, DEVNAME) for every device under /devices."""
    devs = {}
    for d in device_dirs(os.path.join(root, "devices")):
        sub = os.path.join(d, "subsystem")
        subsystem = os.path.basename(os.readlink(sub)) if os.path.islink(sub) else None
        devs["/" + os.path.relpath(d, root)] = (subsystem, os.path.basename(d), devt_of(d), uevent(d).get("DEVNAME"))
    return devs


def scan_legacy(root):
    """Bus devices under /devices, class devices from the /class/<c>/ and /block directories."""
    devs = {}
    for d in device_dirs(os.path.join(root, "devices")):
        sub = os.path.join(d, "subsystem")
        subsystem = os.path.basename(os.readlink(sub)) if os.path.islink(sub) else None
        devs["/" + os.path.relpath(d, root)] = (subsystem, os.path.basename(d), devt_of(d), uevent(d).get("DEVNAME"))
    for c in sorted(os.listdir(os.path.join(root, "class"))):
        for d in device_dirs(os.path.join(root, "class", c)):
            devs["/" + os.path.relpath(d, root)] = (c, os.path.basename(d), devt_of(d), uevent(d).get("DEVNAME"))
    for d in device_dirs(os.path.join(root, "block")):
        devs["/" + os.path.relpath(d, root)] = ("block", os.path.basename(d), devt_of(d), uevent(d).get("DEVNAME"))
    return devs


def nodes(devs):
    return {v for v in devs.values() if v[2] is not None}


def manifest_nodes(man):
    return {(d["subsystem"], d["sysname"], (d["devt"]["major"], d["devt"]["minor"]), d["devname"])
            for d in man["devices"] if d["devt"]}


# the word width of the input bitmaps gen-sysfs.py writes by default: the build's long, which
# meson passes in DEVMAN_LONG_BITS (64 when run by hand)
LONG_BITS = int(os.environ.get("DEVMAN_LONG_BITS") or 64)
BITMAP_KEYS = ("PROP", "EV", "KEY", "REL", "ABS", "MSC", "LED", "SND", "FF", "SW")


def bits(bitmap, width=None):
    """Decode a kernel bitmap attribute (hex longs of width bits, LONG_BITS by default, most
    significant first) into a set of bits."""
    width = width or LONG_BITS
    words = bitmap.split()
    out = set()
    for i, w in enumerate(reversed(words)):
        v = int(w, 16)
        T.check(v < 1 << width, "bitmap word %s fits %d bits" % (w, width))
        for b in range(width):
            if v >> b & 1:
                out.add(i * width + b)
    return out


# Device nodes the fixture machine must have, straight from its description.
EXPECTED_NODES = {
    ("usb_device", "usbdev1.1", (189, 0), "bus/usb/001/001"),
    ("usb_device", "usbdev2.1", (189, 128), "bus/usb/002/001"),
    ("usb_device", "usbdev3.1", (189, 256), "bus/usb/003/001"),
    ("usb_device", "usbdev3.2", (189, 257), "bus/usb/003/002"),
    ("usb_device", "usbdev3.3", (189, 258), "bus/usb/003/003"),
    ("usb_device", "usbdev4.1", (189, 384), "bus/usb/004/001"),
    ("usb_device", "usbdev4.2", (189, 385), "bus/usb/004/002"),
    ("usb_device", "usbdev4.3", (189, 386), "bus/usb/004/003"),
    ("tty", "tty", (5, 0), "tty"), ("tty", "console", (5, 1), "console"), ("tty", "ptmx", (5, 2), "ptmx"),
    ("tty", "tty0", (4, 0), "tty0"), ("tty", "tty3", (4, 3), "tty3"),
    ("tty", "ttyS0", (4, 64), "ttyS0"), ("tty", "ttyS3", (4, 67), "ttyS3"),
    ("mem", "mem", (1, 1), "mem"), ("mem", "null", (1, 3), "null"), ("mem", "zero", (1, 5), "zero"),
    ("mem", "full", (1, 7), "full"), ("mem", "random", (1, 8), "random"), ("mem", "urandom", (1, 9), "urandom"),
    ("mem", "kmsg", (1, 11), "kmsg"),
    ("input", "event0", (13, 64), "input/event0"), ("input", "mouse0", (13, 32), "input/mouse0"),
    ("input", "mice", (13, 63), "input/mice"), ("input", "event9", (13, 73), "input/event9"),
    ("block", "sda", (8, 0), "sda"), ("block", "sda1", (8, 1), "sda1"), ("block", "sda2", (8, 2), "sda2"),
    ("block", "sdb", (8, 16), "sdb"), ("block", "sdb1", (8, 17), "sdb1"),
    ("block", "loop0", (7, 0), "loop0"),
    ("block", "nvme0n1", (259, 0), "nvme0n1"), ("block", "nvme0n1p1", (259, 1), "nvme0n1p1"),
}

SDA = "/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda"
EVENT0 = "/devices/platform/i8042/serio0/input/input0/event0"
SERIAL = "/devices/platform/serial8250/tty"


def check_common(root, man, layout):
    devs = scan_converted(root) if layout == "converted" else scan_legacy(root)
    got = nodes(devs)
    T.check(EXPECTED_NODES <= got, "%s: expected nodes missing: %s" % (layout, sorted(EXPECTED_NODES - got)))
    T.equal(got, manifest_nodes(man), "%s: nodes in the tree = nodes in the manifest" % layout)
    T.equal(len(got), len({n[2] for n in got}), "%s: every devt is unique" % layout)
    for sub, name, devt, devname in got:
        if sub == "usb_device":
            b, d = map(int, name[len("usbdev"):].split("."))
            T.equal((devt, devname), ((189, (b - 1) * 128 + d - 1), "bus/usb/%03d/%03d" % (b, d)),
                    "%s: usb_device %s numbering" % (layout, name))
    # every symlink relative and resolving inside the tree
    for rel, entry in snapshot(root).items():
        if entry[0] == "l":
            T.check(not entry[1].startswith("/"), "%s: absolute symlink %s" % (layout, rel))
            T.check(os.path.exists(root + rel) and inside(root, root + rel), "%s: dangling symlink %s" % (layout, rel))
    # modes: attribute files are plain files, uevent rw, dev ro, bus/module uevent write-only
    for rel, entry in snapshot(root).items():
        base = os.path.basename(rel)
        if entry[0] == "d":
            T.check(entry[1] == 0o755, "%s: dir mode %o %s" % (layout, entry[1], rel))
        elif entry[0] == "f" and base == "dev":
            T.check(entry[1] == 0o444 and re.fullmatch(rb"\d+:\d+\n", entry[2]), "%s: dev file %s" % (layout, rel))
        elif entry[0] == "f" and base == "uevent":
            wo = rel.startswith(("/bus/", "/module/"))
            T.check(entry[1] == (0o200 if wo else 0o644), "%s: uevent mode %o %s" % (layout, entry[1], rel))
    # the bus side: /bus/<b>/devices links, driver links both ways, DRIVER= in uevent
    for bus in os.listdir(os.path.join(root, "bus")):
        T.check(os.path.isfile(os.path.join(root, "bus", bus, "uevent")), "%s: /bus/%s/uevent" % (layout, bus))
        for name in os.listdir(os.path.join(root, "bus", bus, "devices")):
            d = os.path.realpath(os.path.join(root, "bus", bus, "devices", name))
            T.check(d.startswith(os.path.join(root, "devices") + "/") and os.path.basename(d) == name,
                    "%s: /bus/%s/devices/%s" % (layout, bus, name))
            T.equal(os.path.realpath(os.path.join(d, "subsystem")), os.path.join(root, "bus", bus),
                    "%s: subsystem of bus device %s" % (layout, name))
            drv = os.path.join(d, "driver")
            if os.path.islink(drv):
                real = os.path.realpath(drv)
                T.equal(os.path.dirname(real), os.path.join(root, "bus", bus, "drivers"), "%s: driver of %s" % (layout, name))
                T.equal(os.path.realpath(os.path.join(real, name)), d, "%s: driver links back to %s" % (layout, name))
                T.equal(uevent(d).get("DRIVER"), os.path.basename(real), "%s: DRIVER= of %s" % (layout, name))
    for mod in ("usbcore", "usb_storage", "e1000e", "sd_mod"):
        T.check(os.path.isfile(os.path.join(root, "module", mod, "uevent")), "%s: /module/%s/uevent" % (layout, mod))
    # manifest entries exist where the layout puts them
    for d in man["devices"]:
        path = d["devpath"] if layout == "converted" else d["legacy_devpath"]
        T.check(os.path.isfile(root + path + "/uevent"), "%s: manifest device %s exists" % (layout, path))
        if d["parent"]:
            T.check(d["devpath"].startswith(d["parent"] + "/"), "manifest parent of %s" % d["devpath"])
    return devs


def check_converted(root, man):
    devs = check_common(root, man, "converted")
    devroot = os.path.join(root, "devices")
    # every class entry is a relative symlink into /devices whose subsystem link names the class
    for c in os.listdir(os.path.join(root, "class")):
        for name in os.listdir(os.path.join(root, "class", c)):
            p = os.path.join(root, "class", c, name)
            T.check(os.path.islink(p) and not os.readlink(p).startswith("/"), "converted: /class/%s/%s is a relative link" % (c, name))
            T.check(os.path.realpath(p).startswith(devroot + "/"), "converted: /class/%s/%s resolves into /devices" % (c, name))
            T.equal(os.path.realpath(os.path.join(p, "subsystem")), os.path.join(root, "class", c),
                    "converted: subsystem link of /class/%s/%s" % (c, name))
    # /dev/<type>/M:m resolve to the device whose dev says M:m; one link per devt
    with_devt = {p: v for p, v in devs.items() if v[2] is not None}
    for typ in ("char", "block"):
        links = os.listdir(os.path.join(root, "dev", typ))
        want = {"%d:%d" % v[2] for v in with_devt.values() if (v[0] == "block") == (typ == "block")}
        T.equal(set(links), want, "converted: /dev/%s entries" % typ)
        for mm in links:
            d = os.path.join(root, "dev", typ, mm)
            T.check(os.path.islink(d) and read(os.path.join(d, "dev")).strip() == mm, "converted: /dev/%s/%s" % (typ, mm))
    # /block holds the disks only
    T.equal(sorted(os.listdir(os.path.join(root, "block"))), ["loop0", "nvme0n1", "sda", "sdb"], "converted: /block")
    T.equal(os.path.realpath(os.path.join(root, "block", "sda")), root + SDA, "converted: /block/sda")
    # class devices: device link to the parent; partitions have none
    T.equal(os.path.realpath(root + SDA + "/device"), os.path.dirname(os.path.dirname(root + SDA)), "converted: sda device link")
    T.check(not os.path.lexists(root + SDA + "/sda1/device"), "converted: partition has no device link")
    T.equal(os.path.realpath(root + EVENT0 + "/device"), os.path.dirname(root + EVENT0), "converted: event0 device -> input0")
    T.check(not os.path.lexists(root + "/devices/virtual/mem/null/device"), "converted: virtual device has no device link")
    usbdev = "/devices/pci0000:00/0000:00:1d.7/usb3/3-1/usb_device/usbdev3.2"
    T.check(os.path.isfile(root + usbdev + "/dev"), "converted: usbdev3.2 under usb3/3-1/usb_device")
    T.check(os.path.isdir(root + "/devices/pci0000:00/0000:00:1d.0/usb1/usb_device/usbdev1.1"), "converted: usbdev1.1 path")
    # no legacy back links "<class>:<name>" in a converted tree
    back = [os.path.join(d, n) for d, dn, fn in os.walk(devroot) for n in dn + fn
            if ":" in n and os.path.islink(os.path.join(d, n)) and "/class/" in os.path.realpath(os.path.join(d, n))]
    T.equal(back, [], "converted: no class back links")
    # uevents of the converted kernel
    T.equal(uevent(root + "/devices/virtual/mem/null"), {"MAJOR": "1", "MINOR": "3", "DEVNAME": "null", "DEVMODE": "0666"},
            "converted: null uevent")
    T.check("DEVMODE" not in uevent(root + "/devices/virtual/mem/mem"), "converted: mem has no DEVMODE")
    T.equal(uevent(root + SDA + "/sda1"), {"MAJOR": "8", "MINOR": "1", "DEVNAME": "sda1", "DEVTYPE": "partition", "PARTN": "1"},
            "converted: sda1 uevent")
    T.equal(uevent(root + SDA + "/sda2").get("PARTN"), "2", "converted: sda2 PARTN")
    env = uevent(root + SDA)
    T.check(env.pop("DISKSEQ", "").isdigit(), "converted: sda has DISKSEQ")
    T.equal(env, {"MAJOR": "8", "MINOR": "0", "DEVNAME": "sda", "DEVTYPE": "disk"}, "converted: sda uevent")
    for name, mode in (("tty", "0666"), ("ptmx", "0666"), ("console", None)):
        T.equal(uevent(root + "/devices/virtual/tty/" + name).get("DEVMODE"), mode, "converted: %s DEVMODE" % name)
    for d in man["devices"]:
        T.equal(uevent(root + d["devpath"]).get("DEVMODE"), d["devmode"], "converted: DEVMODE of %s" % d["devpath"])
    # what path_id needs for the ATA disk: the port device and its ata_port class device
    ata = "/devices/pci0000:00/0000:00:1f.2/ata1"
    T.equal(uevent(root + ata), {"DEVTYPE": "ata_port"}, "converted: ata1 uevent")
    T.equal(read(root + "/class/ata_port/ata1/port_no"), "1\n", "converted: ata_port/ata1 port_no")
    T.equal(os.path.realpath(root + "/class/ata_port/ata1"), root + ata + "/ata_port/ata1", "converted: ata_port link")
    T.check(SDA.startswith(ata + "/host0/target0:0:0/0:0:0:0/"), "converted: sda below ata1/host0")
    T.equal(uevent(root + EVENT0), {"MAJOR": "13", "MINOR": "64", "DEVNAME": "input/event0"}, "converted: event0 uevent")
    check_net(root, "/devices/pci0000:00/0000:00:19.0/net/eth0", "/devices/virtual/net/lo", "converted")
    check_usb(root, "converted")
    check_input(root, "converted")
    return devs


def check_net(root, eth0, lo, layout):
    T.equal(uevent(root + eth0), {"INTERFACE": "eth0", "IFINDEX": "2"} if layout == "converted" else
            {"INTERFACE": "eth0", "IFINDEX": "2", "PHYSDEVPATH": "/devices/pci0000:00/0000:00:19.0",
             "PHYSDEVBUS": "pci", "PHYSDEVDRIVER": "e1000e"}, "%s: eth0 uevent" % layout)
    T.check(not os.path.exists(root + eth0 + "/dev"), "%s: eth0 has no dev" % layout)
    T.equal([read(root + eth0 + "/" + a) for a in ("ifindex", "type", "addr_assign_type", "address")],
            ["2\n", "1\n", "0\n", "00:1b:21:3a:4c:5d\n"], "%s: eth0 attributes" % layout)
    T.equal(read(root + lo + "/ifindex"), "1\n", "%s: lo ifindex" % layout)
    T.equal((read(root + lo + "/type"), read(root + eth0 + "/name_assign_type")), ("772\n", "1\n"),
            "%s: lo type, eth0 name_assign_type" % layout)
    T.check(not os.path.lexists(root + lo + "/device"), "%s: lo has no device link" % layout)
    pci = root + "/devices/pci0000:00/0000:00:19.0"
    T.equal([read(pci + "/" + a) for a in ("vendor", "device", "class")], ["0x8086\n", "0x10f5\n", "0x020000\n"],
            "%s: NIC PCI attributes" % layout)
    env = uevent(pci)
    T.equal((env.get("PCI_CLASS"), env.get("PCI_ID"), env.get("MODALIAS") + "\n"),
            ("20000", "8086:10F5", read(pci + "/modalias")), "%s: NIC PCI uevent" % layout)


def find_usb(root, vendor, product):
    for d in device_dirs(os.path.join(root, "devices")):
        if os.path.isfile(d + "/idVendor") and read(d + "/idVendor") == vendor + "\n" and read(d + "/idProduct") == product + "\n":
            return d
    return None


def check_usb(root, layout):
    stick = find_usb(root, "0781", "5567")
    if not T.check(stick is not None, "%s: USB stick 0781:5567 exists" % layout):
        return
    T.equal(read(stick + "/serial"), "4C530001230817116382\n", "%s: stick serial" % layout)
    T.equal((read(stick + "/busnum"), read(stick + "/devnum")), ("3\n", "2\n"), "%s: stick busnum/devnum" % layout)
    env = uevent(stick)
    T.equal((env.get("PRODUCT"), env.get("TYPE"), env.get("BUSNUM"), env.get("DEVNUM")),
            ("781/5567/100", "0/0/0", "003", "002"), "%s: stick uevent" % layout)
    intf = stick + "/3-1:1.0"
    T.equal([read(intf + "/" + a) for a in ("bInterfaceClass", "bInterfaceSubClass", "bInterfaceProtocol", "bInterfaceNumber")],
            ["08\n", "06\n", "50\n", "00\n"], "%s: stick interface attributes" % layout)
    T.equal(uevent(intf).get("INTERFACE"), "8/6/80", "%s: stick INTERFACE=" % layout)
    T.check(os.path.isdir(intf + "/host6/target6:0:0/6:0:0:0"), "%s: stick scsi host/target/device" % layout)
    if layout == "converted":
        T.check(os.path.isfile(intf + "/host6/target6:0:0/6:0:0:0/block/sdb/sdb1/dev"), "converted: sdb1 below the stick")
    else:
        T.equal(os.path.realpath(root + "/block/sdb/device"), os.path.realpath(intf + "/host6/target6:0:0/6:0:0:0"),
                "legacy: /block/sdb/device -> the stick's scsi device")
    nic = find_usb(root, "0b95", "772b")
    T.check(nic is not None and os.path.isdir(nic + "/3-2:1.0" + ("/net/eth1" if layout == "converted" else "")),
            "%s: USB NIC" % layout)


# A distinguishing capability of every kind of input device, by device name.
INPUT_KINDS = {
    "AT Translated Set 2 keyboard": lambda c: set(range(1, 32)) <= c["key"] and {1, 0x14} <= c["ev"],
    "SynPS/2 Synaptics TouchPad": lambda c: {0x145, 0x14a} <= c["key"] and 0x140 not in c["key"] and {0, 1} <= c["abs"],
    "TPPS/2 IBM TrackPoint": lambda c: 5 in c["properties"] and {0, 1} <= c["rel"],
    "ADS7846 Touchscreen": lambda c: 1 in c["properties"] and 0x14a in c["key"] and {0, 1} <= c["abs"],
    "Microsoft X-Box 360 pad": lambda c: 0x130 in c["key"] and {0, 1} <= c["abs"],
    "Wacom Intuos Pro M Pen": lambda c: {0x140, 0x14b} <= c["key"] and {0, 1} <= c["abs"],
    "ST LIS3LV02DL Accelerometer": lambda c: 6 in c["properties"] and {0, 1, 2} <= c["abs"],
    "Lid Switch": lambda c: 5 in c["ev"] and 0 in c["sw"],
    "Logitech USB Optical Mouse": lambda c: 0x110 in c["key"] and {0, 1} <= c["rel"],
    # pcspkr: EV_SYN and EV_SND (bell and tone), nothing else
    "PC Speaker": lambda c: c["ev"] == {0, 0x12} and c["snd"] == {1, 2} and not c["key"],
}


def check_input(root, layout):
    base = os.path.join(root, "class", "input")
    seen = set()
    for name in sorted(os.listdir(base)):
        d = os.path.join(base, name)
        if not name.startswith("input"):
            continue
        caps = {}
        for k in ("ev", "key", "rel", "abs", "msc", "led", "snd", "ff", "sw"):
            text = read(os.path.join(d, "capabilities", k))
            T.check(re.fullmatch(r"(0|[1-9a-f][0-9a-f]*( [0-9a-f]+)*)\n", text) is not None,
                    "%s: %s capabilities/%s format %r" % (layout, name, k, text))
            caps[k] = bits(text)
        caps["properties"] = bits(read(os.path.join(d, "properties")))
        devname = read(os.path.join(d, "name")).strip()
        seen.add(devname)
        kind = INPUT_KINDS.get(devname)
        T.check(kind is not None and kind(caps), "%s: %s (%s) has its kind's capabilities" % (layout, name, devname))
        env = uevent(d)
        T.equal(env.get("NAME"), '"%s"' % devname, "%s: %s NAME=" % (layout, name))
        T.equal(bits(env.get("EV", "")), caps["ev"], "%s: %s EV= matches capabilities/ev" % (layout, name))
        if 1 in caps["ev"]:
            T.equal(bits(env.get("KEY", "")), caps["key"], "%s: %s KEY= matches capabilities/key" % (layout, name))
        ids = [int(read(os.path.join(d, "id", k)), 16) for k in ("bustype", "vendor", "product", "version")]
        T.check(read(os.path.join(d, "modalias")).startswith("input:b%04Xv%04Xp%04Xe%04X-e" % tuple(ids)),
                "%s: %s modalias prefix" % (layout, name))
        T.check(any(os.path.isfile(os.path.join(d, e, "dev")) for e in os.listdir(d) if e.startswith("event")),
                "%s: %s has an event device" % (layout, name))
    T.equal(seen, set(INPUT_KINDS), "%s: one input device of each kind" % layout)
    T.equal(read(os.path.join(base, "input0", "capabilities", "ev")), "120013\n", "%s: keyboard EV bits" % layout)
    # what the kernel's pcspkr driver shows (ev=40001 snd=6), below the platform device pcspkr
    spkr = os.path.join(base, "input9")
    T.equal((read(os.path.join(spkr, "capabilities", "ev")), read(os.path.join(spkr, "capabilities", "snd")),
             read(os.path.join(spkr, "phys")), read(os.path.join(spkr, "id", "bustype"))),
            ("40001\n", "6\n", "isa0061/input0\n", "0010\n"), "%s: PC speaker capabilities" % layout)
    T.equal(uevent(spkr).get("SND"), "6", "%s: PC speaker SND=" % layout)
    T.equal(os.path.realpath(spkr if layout == "converted" else spkr + "/device"),
            root + "/devices/platform/pcspkr" + ("/input/input9" if layout == "converted" else ""),
            "%s: PC speaker below the platform device pcspkr" % layout)
    T.equal(os.path.realpath(root + "/devices/platform/pcspkr/driver"), root + "/bus/platform/drivers/pcspkr",
            "%s: pcspkr bound to the pcspkr driver" % layout)


def check_legacy(root, man):
    devs = check_common(root, man, "legacy")
    T.check(not os.path.exists(os.path.join(root, "dev")), "legacy: no /dev")
    T.check(not os.path.exists(os.path.join(root, "class", "block")), "legacy: no /class/block")
    for path, (sub, name, devt, devname) in devs.items():
        if not path.startswith(("/class/", "/block/")):
            continue
        d = root + path
        T.check(not os.path.islink(d), "legacy: %s is a real directory" % path)
        T.check(not os.path.lexists(d + "/subsystem"), "legacy: %s has no subsystem link" % path)
        env = uevent(d)
        T.equal(devt is not None, "MAJOR" in env, "legacy: %s has dev iff uevent has MAJOR" % path)
        if devt:
            T.equal((int(env["MAJOR"]), int(env["MINOR"])), devt, "legacy: %s uevent MAJOR/MINOR" % path)
        if sub in ("tty", "mem", "misc", "usb_device", "nvme", "block"):
            T.check(devt is not None, "legacy: %s has dev" % path)
        for k in ("DEVTYPE", "DEVMODE", "PARTN", "DISKSEQ"):
            T.check(k not in env, "legacy: %s uevent has no %s" % (path, k))
        dl = d + "/device"
        if os.path.lexists(dl):
            real = os.path.realpath(dl)
            T.check(real.startswith(root + "/devices/") and "/devices/virtual/" not in real and
                    os.path.isfile(real + "/uevent"), "legacy: %s device link to a physical device" % path)
            if os.path.islink(real + "/subsystem"):
                T.equal(env.get("PHYSDEVPATH"), "/" + os.path.relpath(real, root), "legacy: %s PHYSDEVPATH" % path)
    for virt in ("/class/mem/null", "/class/tty/tty0", "/class/input/mice", "/class/net/lo", "/block/loop0"):
        T.check(os.path.isdir(root + virt) and not os.path.lexists(root + virt + "/device"),
                "legacy: virtual %s without device link" % virt)
    T.check(not os.path.exists(root + "/devices/virtual"), "legacy: no /devices/virtual")
    # class devices live only in /class and /block; the physical device has back links instead
    for dirpath, dirnames, _ in os.walk(root + "/devices"):
        for name in ("net", "tty", "input", "usb_device", "block", "nvme", "ata_port"):
            T.check(name not in dirnames or name == "block" and os.path.islink(os.path.join(dirpath, name)),
                    "legacy: no class glue dir %s/%s" % (dirpath, name))
    nic = root + "/devices/pci0000:00/0000:00:19.0"
    T.equal(os.path.realpath(nic + "/net:eth0"), root + "/class/net/eth0", "legacy: back link net:eth0")
    T.equal(os.path.realpath(nic.replace("0000:00:19.0", "0000:00:1d.7/usb3/3-1") + "/usb_device:usbdev3.2"),
            root + "/class/usb_device/usbdev3.2", "legacy: back link usb_device:usbdev3.2")
    T.equal(read(root + "/block/sda/sda1/dev"), "8:1\n", "legacy: partition sda1 inside /block/sda")
    T.equal(os.path.realpath(root + "/block/sda/device"), os.path.dirname(os.path.dirname(root + SDA)),
            "legacy: /block/sda/device -> scsi device")
    T.equal(os.path.realpath(root + "/class/usb_device/usbdev3.2/device"),
            root + "/devices/pci0000:00/0000:00:1d.7/usb3/3-1", "legacy: usbdev3.2 device link")
    T.equal(os.path.realpath(root + "/class/input/input0/event0/device"), root + "/devices/platform/i8042/serio0",
            "legacy: nested event0 device link names the physical device")
    T.equal(os.path.realpath(root + "/class/tty/ttyS0/device"), root + "/devices/platform/serial8250",
            "legacy: ttyS0 device link")
    T.equal(uevent(root + "/class/mem/null"), {"MAJOR": "1", "MINOR": "3", "DEVNAME": "null"}, "legacy: null uevent")
    check_net(root, "/class/net/eth0", "/class/net/lo", "legacy")
    check_usb(root, "legacy")
    check_input(root, "legacy")
    return devs


def check_layouts_agree(cdevs, ldevs, cman, lman):
    T.equal(nodes(cdevs), nodes(ldevs), "both layouts have the same (subsystem, sysname, devt, DEVNAME) nodes")
    T.equal(sorted(str(v[:2]) for v in cdevs.values()), sorted(str(v[:2]) for v in ldevs.values()),
            "both layouts have the same devices")
    T.equal(cman["devices"], lman["devices"], "both manifests describe the same table")
    # the legacy devpath of every device is where the legacy scan found it
    T.equal({d["legacy_devpath"] for d in lman["devices"]}, set(ldevs), "legacy devpaths = legacy device dirs")
    T.equal({d["devpath"] for d in cman["devices"]}, set(cdevs), "converted devpaths = converted device dirs")


def diff(clean, broken):
    added = set(broken) - set(clean)
    removed = set(clean) - set(broken)
    changed = {p for p in set(clean) & set(broken) if clean[p] != broken[p]}
    return added, removed, changed


def under(snap, prefix):
    return {p for p in snap if p == prefix or p.startswith(prefix + "/")}


def check_breaks(tmp, clean_root):
    clean = snapshot(clean_root)
    for kind in ("lost-dev", "devt-changed", "renamed", "reparented", "dir-without-dev", "duplicate"):
        root, man = gen(tmp, "break-" + kind, "--break", kind)
        broken = snapshot(root)
        added, removed, changed = diff(clean, broken)
        what = "--break " + kind
        T.equal(man.get("break", {}).get("kind"), kind, what + ": manifest names the break")
        if kind == "lost-dev":
            T.equal((added, removed, changed), (set(), {"/devices/virtual/mem/null/dev"}, set()), what)
            T.equal(man["break"]["devpath"], "/devices/virtual/mem/null", what + ": device")
        elif kind == "devt-changed":
            T.equal((added, removed, changed), ({"/dev/char/13:80"}, {"/dev/char/13:64"},
                                                {EVENT0 + "/dev", EVENT0 + "/uevent"}), what)
            T.equal(read(root + EVENT0 + "/dev"), "13:80\n", what + ": dev")
            T.equal(uevent(root + EVENT0).get("MINOR"), "80", what + ": uevent MINOR")
            T.equal(os.path.realpath(root + "/dev/char/13:80"), root + EVENT0, what + ": /dev/char link")
        elif kind == "renamed":
            old, new = SERIAL + "/ttyS3", SERIAL + "/ttyS8"
            moved = under(clean, old)
            T.equal((added, removed, changed),
                    ({new + p[len(old):] for p in moved} | {"/class/tty/ttyS8"}, moved | {"/class/tty/ttyS3"},
                     {"/dev/char/4:67"}), what)
            T.equal({p for p in moved if clean[p] != broken[new + p[len(old):]]}, {old + "/uevent"}, what + ": only uevent differs")
            T.equal(uevent(root + new).get("DEVNAME"), "ttyS8", what + ": DEVNAME")
            T.equal(os.path.realpath(root + "/class/tty/ttyS8"), root + new, what + ": class link")
            T.equal(os.path.realpath(root + "/dev/char/4:67"), root + new, what + ": /dev/char link")
        elif kind == "reparented":
            old, new = SERIAL + "/ttyS1", "/devices/platform/i8042/tty/ttyS1"
            moved = under(clean, old)
            T.equal((added, removed, changed),
                    ({new + p[len(old):] for p in moved} | {"/devices/platform/i8042/tty"}, moved,
                     {"/class/tty/ttyS1", "/dev/char/4:65"}), what)
            # same depth, so even the relative `device` link text is unchanged; it resolves elsewhere
            T.equal({p for p in moved if clean[p] != broken[new + p[len(old):]]}, set(), what + ": moved unchanged")
            T.equal(os.path.realpath(root + new + "/device"), root + "/devices/platform/i8042", what + ": device link")
            T.equal(os.path.realpath(root + "/class/tty/ttyS1"), root + new, what + ": class link")
        elif kind == "dir-without-dev":
            T.equal((added, removed, changed), ({"/class/tty/ttyS2/uevent"}, set(), {"/class/tty/ttyS2"}), what)
            T.check(broken["/class/tty/ttyS2"][0] == "d" and not os.path.exists(root + "/class/tty/ttyS2/dev"), what + ": a dir without dev")
        elif kind == "duplicate":
            T.equal((added, removed, changed),
                    ({"/block/sda/dev", "/block/sda/uevent", "/block/sda/device"}, set(), {"/block/sda"}), what)
            T.check(broken["/block/sda"][0] == "d" and broken["/class/block/sda"][0] == "l", what + ": dir and link")
            T.equal(read(root + "/block/sda/dev"), read(root + SDA + "/dev"), what + ": same devt")


def check_scale(tmp):
    root, man = gen(tmp, "scale", "--scale", "1000")
    devs = scan_converted(root)
    del devs["/devices/platform"]
    T.equal(len(devs), 1000, "--scale 1000: 1000 devices")
    T.equal(len(man["devices"]), 1000, "--scale 1000: 1000 manifest entries")
    with_devt = [v for v in devs.values() if v[2]]
    T.check(len(with_devt) >= 900 and len({v[2] for v in with_devt}) == len(with_devt), "--scale: unique devts")
    T.equal(len(os.listdir(root + "/dev/char")), len(with_devt), "--scale: one /dev/char link per devt")
    T.check(all(os.path.islink(os.path.join(root, "class", "scale", v[1])) for v in with_devt), "--scale: class links")
    T.equal(len([v for v in devs.values() if v[0] == "platform"]), 1000 - len(with_devt), "--scale: platform parents")
    root2, _ = gen(tmp, "scale7", "--scale", "7")
    T.equal(len(scan_converted(root2)) - 1, 7, "--scale 7: 7 devices")
    root3, man3 = gen(tmp, "scale-legacy", "--layout", "legacy", "--scale", "250")
    devs = scan_legacy(root3)
    del devs["/devices/platform"]
    T.equal(len(devs), 250, "--layout legacy --scale 250: 250 devices")
    T.equal(nodes(devs), manifest_nodes(man3), "--layout legacy --scale 250: nodes = manifest")
    T.equal(len(os.listdir(root3 + "/class/scale")), 247, "--layout legacy --scale 250: 247 class dirs")


def check_errors(tmp):
    def run(*args, env=None):
        return subprocess.run([sys.executable, GEN, *args], capture_output=True, text=True,
                              env=dict(os.environ, **(env or {}))).returncode
    T.check(run("--long-bits", "48", os.path.join(tmp, "e4")) != 0, "--long-bits 48 refused")
    T.check(run(os.path.join(tmp, "e5"), env={"DEVMAN_LONG_BITS": "16"}) != 0, "DEVMAN_LONG_BITS=16 refused")
    T.check(run("--layout", "legacy", "--break", "lost-dev", os.path.join(tmp, "e1")) != 0, "--break needs converted")
    T.check(run("--break", "no-such", os.path.join(tmp, "e2")) != 0, "unknown --break kind refused")
    os.mkdir(os.path.join(tmp, "e3"))
    open(os.path.join(tmp, "e3", "x"), "w").close()
    T.check(run(os.path.join(tmp, "e3")) != 0, "non-empty OUTDIR refused")
    T.check(os.listdir(os.path.join(tmp, "e3")) == ["x"], "non-empty OUTDIR untouched")


def check_long_bits(tmp):
    """--long-bits 32 and 64 write the same machine: the input bitmaps (attributes and uevent
    keys) hold the same bits in words of that width, and no other file differs."""
    trees = {w: gen(tmp, "long%d" % w, "--long-bits", str(w))[0] for w in (32, 64)}
    snaps = {w: snapshot(trees[w]) for w in trees}
    T.equal(sorted(snaps[32]), sorted(snaps[64]), "--long-bits: the same entries")
    differ, wide = [], False
    for rel in sorted(snaps[64]):
        a, b = snaps[32].get(rel), snaps[64][rel]
        if a == b:
            continue
        name = os.path.basename(rel)
        differ.append(rel)
        if name == "uevent":
            envs = [dict(line.partition("=")[::2] for line in x[2].decode().splitlines()) for x in (a, b)]
            T.equal(sorted(k for k in envs[0] if envs[0][k] != envs[1].get(k)),
                    sorted(k for k in envs[0] if k in BITMAP_KEYS and envs[0][k] != envs[1][k]),
                    "--long-bits: %s differs in its bitmap keys only" % rel)
            pairs = [(envs[0][k], envs[1][k]) for k in BITMAP_KEYS if k in envs[0]]
        else:
            T.check("/capabilities/" in rel or name == "properties", "--long-bits: %s is a bitmap" % rel)
            pairs = [(a[2].decode(), b[2].decode())]
        for t32, t64 in pairs:
            T.equal(bits(t32, 32), bits(t64, 64), "--long-bits: %s: %r and %r hold the same bits" % (rel, t32, t64))
            wide = wide or any(len(w) > 8 for w in t64.split())
    T.check(wide and len(differ) > 10, "--long-bits: bitmaps wider than 32 bits differ (%d files)" % len(differ))


def main():
    with tempfile.TemporaryDirectory(prefix="test-gen-sysfs.") as tmp:
        croot, cman = gen(tmp, "converted", "--layout", "converted")
        lroot, lman = gen(tmp, "legacy", "--layout", "legacy")
        croot2, _ = gen(tmp, "converted2", "--layout", "converted")
        T.check(snapshot(croot) == snapshot(croot2), "generation is deterministic")
        cdevs = check_converted(croot, cman)
        ldevs = check_legacy(lroot, lman)
        check_layouts_agree(cdevs, ldevs, cman, lman)
        check_breaks(tmp, croot)
        check_scale(tmp)
        check_errors(tmp)
        check_long_bits(tmp)
    print("%d passed, %d failed" % (T.passed, T.failed))
    return 1 if T.failed else 0


if __name__ == "__main__":
    sys.exit(main())
