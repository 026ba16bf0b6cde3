#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate fake sysfs trees for devman's fixture tests (Python 3, stdlib only).

One device table (build_machine) describes one small PC; it is written out in two layouts.
tests/README.md describes the machine; tests/unit/test-gen-sysfs.py checks the invariants below.

  --layout converted   the unified driver model of modern kernels. Every device is a directory
                       under /devices; /class/<c>/<n>, /block/<disk>, /bus/<b>/devices/<n>,
                       /dev/{char,block}/M:m are relative symlinks into /devices. Device dirs
                       hold `uevent`, a `subsystem` link, `dev` ("M:m\\n") when they have a devt,
                       `device` (class devices, not partitions) and `driver` (bound bus devices).
                       Class devices sit in a glue dir named after the class below a bus parent
                       (.../usb1/usb_device/usbdev1.1, .../0000:00:19.0/net/eth0), directly below
                       a class parent (input0/event0, sda/sda1), or in /devices/virtual/<c>/.
  --layout legacy      the same machine as a pre-2.6.18 class_device kernel showed it. Bus devices
                       (pci, usb, scsi, serio, platform, acpi, hid) are the same directories under
                       /devices; class devices are real directories /class/<c>/<n>/ with `dev`,
                       `uevent`, the class attributes and a `device` link to the nearest physical
                       (bus) ancestor, none for virtual devices; no `subsystem` link in class dirs.
                       A class device whose parent is a class device is nested in its parent's dir
                       (/class/input/input0/event0) as those kernels did. Disks are directories
                       /block/<disk>/ with partitions as subdirectories and a `device` link;
                       there is no /class/block and no /dev. The physical device has the old
                       back links "<class>:<name>" (and "block" for a disk).
                       Legacy uevent files hold what those kernels sent: MAJOR, MINOR, DEVNAME,
                       the class's own keys (INTERFACE, IFINDEX, input's PRODUCT/NAME/EV/...),
                       PHYSDEVPATH/PHYSDEVBUS/PHYSDEVDRIVER; no DEVTYPE, DEVMODE or PARTN
                       (those came with the conversion). Real 2.6.17 uevent files were write-only;
                       here they are readable so both layouts can be compared. Real 2.6.17 bus
                       devices also had a `bus` link; here they have `subsystem` in both layouts.

usb_device class: as in 2.6.17 every USB device N.M has a class device usbdevN.M, major 189,
minor (bus-1)*128 + (dev-1), DEVNAME bus/usb/BBB/DDD. The USB bus devices themselves have no devt
here (they got one only after the usb_device class was retired), so both layouts create exactly
the same device nodes.

Usage:
  gen-sysfs.py [--layout converted|legacy] [--break KIND] [--long-bits 32|64] [--manifest FILE] OUTDIR
  gen-sysfs.py [--layout ...] --scale N [--manifest FILE] OUTDIR

OUTDIR must not exist or be empty; it becomes the sysfs root (OUTDIR/devices, OUTDIR/class...).

--break KIND (converted layout only) writes a deliberately broken conversion; each kind changes
exactly what BREAKS below documents and nothing else:
  lost-dev         mem/null (/devices/virtual/mem/null) has no `dev` file; its uevent still says
                   MAJOR=1 MINOR=3 and /dev/char/1:3 still points at it.
  devt-changed     input/event0 is 13:80 instead of 13:64: its `dev`, uevent MAJOR/MINOR and its
                   /dev/char link (1 link renamed 13:64 -> 13:80) all say so consistently.
  renamed          tty/ttyS3 is called ttyS8: device dir .../serial8250/tty/ttyS8, class link
                   /class/tty/ttyS8, DEVNAME=ttyS8, /dev/char/4:67 points to the new dir.
  reparented       tty/ttyS1 hangs below /devices/platform/i8042/tty/ttyS1 (was serial8250): dir
                   moved, its `device` link, /class/tty/ttyS1 and /dev/char/4:65 follow it.
  dir-without-dev  /class/tty/ttyS2 is a real directory holding only `uevent` (DEVNAME=ttyS2, no
                   MAJOR/MINOR) instead of the symlink; /devices/.../tty/ttyS2 is unchanged.
  duplicate        /block/sda is a legacy directory (dev 8:0, uevent, device link to the scsi
                   device) while /class/block/sda still is the converted symlink.

--scale N writes N devices (converted layout by default): platform devices scale.K (bus platform,
driver "scale") each with up to 99 class devices of class "scale" named sK.J with devt
char 240+i/2^20 : i%2^20 and DEVNAME scale/sK.J. N counts both kinds.

--long-bits 32|64 (default: $DEVMAN_LONG_BITS, else 64) is the width of the words of the input
bitmaps (capabilities/*, properties and their uevent keys EV=, KEY=...), the kernel's `long` as
the reading program sees it: a 32-bit kernel's, or a 64-bit kernel's read by a 32-bit program
(the kernel prints 32-bit words to it, in_compat_syscall()), is 32. meson passes the build's
`long` (cc.sizeof('long')) to the tests in DEVMAN_LONG_BITS.

--manifest FILE writes JSON from the table (not from the written files): for every device its
converted devpath, legacy devpath, subsystem, sysname, devtype, devt {type, major, minor},
DEVNAME, parent devpath (converted), legacy parent (physical device for class devices), driver.
With --break the manifest still describes the clean machine and names the broken device.

Output is deterministic: same arguments, same bytes, same modes (umask is cleared; dirs 0755,
uevent and writable attributes 0644, read-only attributes 0444, bus/driver/module uevent 0200).
"""

import argparse
import json
import os
import sys

# ---------------------------------------------------------------------------------------------
# The device table

USB_MAJOR_DEV = 189     # usb_device class (later: the usb devices themselves)
INPUT_MAJOR = 13
SCALE_MAJOR = 240
SCALE_PER_PARENT = 99

# uevent keys that came with the conversion: legacy trees leave them out.
CONVERTED_ONLY_KEYS = {"DEVTYPE", "DEVMODE", "PARTN", "DISKSEQ"}


class Device:
    """One kobject with a uevent file. kind is "bus" (on a bus, may bind a driver), "class" (class
    device) or "plain" (a directory device with neither, like pci0000:00 or ata1)."""

    __slots__ = ("sysname", "kind", "subsystem", "parent", "devpath", "devt", "devname", "devtype",
                 "driver", "module", "attrs", "env", "devmode")

    def __init__(self, sysname, kind, subsystem, parent, devpath, devt=None, devname=None,
                 devtype=None, driver=None, module=None, attrs=None, env=None, devmode=None):
        self.sysname = sysname
        self.kind = kind
        self.subsystem = subsystem
        self.parent = parent
        self.devpath = devpath
        self.devt = devt                # ("char"|"block", major, minor) or None
        self.devname = devname
        self.devtype = devtype
        self.driver = driver
        self.module = module            # module of the bound driver
        self.attrs = attrs or {}        # relative path -> str, or (str, mode)
        self.env = env or []            # subsystem-specific uevent keys, in kernel order
        self.devmode = devmode

    def is_partition(self):
        return self.subsystem == "block" and self.devtype == "partition"

    def physical_parent(self):
        """Nearest ancestor that is not a class device (what legacy `device` links name)."""
        p = self.parent
        while p is not None and p.kind == "class":
            p = p.parent
        return p

    def legacy_devpath(self):
        if self.kind != "class":
            return self.devpath
        if self.parent is not None and self.parent.kind == "class" and \
                (self.subsystem != "block" or self.is_partition()):
            return self.parent.legacy_devpath() + "/" + self.sysname
        if self.subsystem == "block":
            return "/block/" + self.sysname
        return "/class/%s/%s" % (self.subsystem, self.sysname)

    def uevent(self, layout):
        """uevent file contents in the kernel's order: devt keys, DEVMODE, DEVTYPE, DRIVER, then
        the subsystem's own keys."""
        legacy = layout == "legacy"
        lines = []
        if self.devt:
            lines.append("MAJOR=%d" % self.devt[1])
            lines.append("MINOR=%d" % self.devt[2])
        if self.devname:
            lines.append("DEVNAME=" + self.devname)
        if self.devmode and not legacy:
            lines.append("DEVMODE=%04o" % self.devmode)
        if self.devtype and not legacy:
            lines.append("DEVTYPE=" + self.devtype)
        if self.driver:
            lines.append("DRIVER=" + self.driver)
        for key, value in self.env:
            if legacy and key in CONVERTED_ONLY_KEYS:
                continue
            lines.append("%s=%s" % (key, value))
        if legacy:
            # 2.6.17 named the physical device of a class device, and the bus and driver of a
            # bus device, with these keys.
            phys = self.physical_parent() if self.kind == "class" else self
            if phys is not None and phys.subsystem is not None:
                if phys is not self:
                    lines.append("PHYSDEVPATH=" + phys.devpath)
                lines.append("PHYSDEVBUS=" + phys.subsystem)
                if phys.driver:
                    lines.append("PHYSDEVDRIVER=" + phys.driver)
        return "".join(line + "\n" for line in lines)


class Machine:
    """The device table, in creation order (parents before children)."""

    def __init__(self):
        self.devices = []
        self.by_path = {}
        self.modules = set()
        self.diskseq = 0

    def _add(self, dev):
        if dev.devpath in self.by_path:
            raise ValueError("duplicate devpath " + dev.devpath)
        self.devices.append(dev)
        self.by_path[dev.devpath] = dev
        if dev.module:
            self.modules.add(dev.module)
        return dev

    def plain(self, parent, name, **kw):
        base = parent.devpath if parent else "/devices"
        return self._add(Device(name, "plain", None, parent, base + "/" + name, **kw))

    def bus(self, parent, name, subsystem, **kw):
        base = parent.devpath if parent else "/devices"
        return self._add(Device(name, "bus", subsystem, parent, base + "/" + name, **kw))

    def cls(self, parent, name, subsystem, devt=None, devname=None, **kw):
        if parent is None:
            path = "/devices/virtual/%s/%s" % (subsystem, name)
        elif parent.kind == "class":
            path = parent.devpath + "/" + name
        else:
            path = "%s/%s/%s" % (parent.devpath, subsystem, name)
        if devt is not None and devname is None:
            devname = name
        return self._add(Device(name, "class", subsystem, parent, path, devt=devt, devname=devname, **kw))


# the width of the kernel's long as the reader sees it (--long-bits)
LONG_BITS = 64


def bitmap(bits):
    """A kernel bitmap attribute: space-separated hex longs (LONG_BITS wide), most significant
    first, leading zero longs left out, "0" when empty."""
    words = {}
    for b in bits:
        words[b // LONG_BITS] = words.get(b // LONG_BITS, 0) | (1 << (b % LONG_BITS))
    if not words:
        return "0"
    return " ".join("%x" % words.get(i, 0) for i in range(max(words), -1, -1))


# input event types and codes (linux/input-event-codes.h)
EV_SYN, EV_KEY, EV_REL, EV_ABS, EV_MSC, EV_SW, EV_LED, EV_SND, EV_REP = 0, 1, 2, 3, 4, 5, 0x11, 0x12, 0x14
BTN_LEFT, BTN_RIGHT, BTN_MIDDLE, BTN_SIDE, BTN_EXTRA = 0x110, 0x111, 0x112, 0x113, 0x114
BTN_GAMEPAD_FIRST, BTN_GAMEPAD_LAST = 0x130, 0x13e     # BTN_SOUTH .. BTN_THUMBR
BTN_TOOL_PEN, BTN_TOOL_RUBBER, BTN_TOOL_FINGER = 0x140, 0x141, 0x145
BTN_TOUCH, BTN_STYLUS, BTN_STYLUS2 = 0x14a, 0x14b, 0x14c
BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP, BTN_TOOL_QUADTAP = 0x14d, 0x14e, 0x14f
KEY_MIN_INTERESTING = 113   # KEY_MUTE: modaliases list keys from here
REL_X, REL_Y, REL_HWHEEL, REL_WHEEL = 0, 1, 6, 8
ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ = 0, 1, 2, 3, 4, 5
ABS_HAT0X, ABS_HAT0Y, ABS_PRESSURE, ABS_DISTANCE, ABS_TILT_X, ABS_TILT_Y = 0x10, 0x11, 0x18, 0x19, 0x1a, 0x1b
ABS_TOOL_WIDTH, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y = 0x1c, 0x2f, 0x35, 0x36
ABS_MT_TRACKING_ID, ABS_MT_PRESSURE = 0x39, 0x3a
MSC_SCAN = 4
SW_LID = 0
SND_BELL, SND_TONE = 1, 2
PROP_POINTER, PROP_DIRECT, PROP_BUTTONPAD, PROP_POINTING_STICK, PROP_ACCELEROMETER = 0, 1, 2, 5, 6
BUS_PCI, BUS_USB, BUS_ISA, BUS_I8042, BUS_HOST, BUS_SPI = 0x01, 0x03, 0x10, 0x11, 0x19, 0x1c

INPUT_CAPS = ("ev", "key", "rel", "abs", "msc", "led", "snd", "ff", "sw")
INPUT_UEVENT_CAPS = (("KEY", "key", EV_KEY), ("REL", "rel", EV_REL), ("ABS", "abs", EV_ABS),
                     ("MSC", "msc", EV_MSC), ("LED", "led", EV_LED), ("SND", "snd", EV_SND),
                     ("FF", "ff", 0x15), ("SW", "sw", EV_SW))
MODALIAS_SECTIONS = (("e", "ev", 0), ("k", "key", KEY_MIN_INTERESTING), ("r", "rel", 0), ("a", "abs", 0),
                     ("m", "msc", 0), ("l", "led", 0), ("s", "snd", 0), ("f", "ff", 0), ("w", "sw", 0))


def input_device(m, parent, num, name, phys, ids, caps, props=(), uniq="", handlers=()):
    """An input device inputN (class input, no devt) with capability bitmaps, and its handler
    devices (eventN always, plus ("mouse", k) / ("js", k) entries from handlers)."""
    bustype, vendor, product, version = ids
    caps = {k: sorted(set(caps.get(k, ()))) for k in INPUT_CAPS}
    attrs = {"name": name + "\n", "phys": phys + "\n", "uniq": uniq + "\n",
             "properties": bitmap(props) + "\n",
             "id/bustype": "%04x\n" % bustype, "id/vendor": "%04x\n" % vendor,
             "id/product": "%04x\n" % product, "id/version": "%04x\n" % version}
    for k in INPUT_CAPS:
        attrs["capabilities/" + k] = bitmap(caps[k]) + "\n"
    modalias = "input:b%04Xv%04Xp%04Xe%04X-" % ids
    for letter, k, first in MODALIAS_SECTIONS:
        modalias += letter + "".join("%X," % b for b in caps[k] if b >= first)
    attrs["modalias"] = modalias + "\n"
    env = [("PRODUCT", "%x/%x/%x/%x" % ids), ("NAME", '"%s"' % name), ("PHYS", '"%s"' % phys)]
    if uniq:
        env.append(("UNIQ", '"%s"' % uniq))
    env.append(("PROP", bitmap(props)))
    env.append(("EV", bitmap(caps["ev"])))
    for key, k, ev in INPUT_UEVENT_CAPS:
        if ev in caps["ev"]:
            env.append((key, bitmap(caps[k])))
    env.append(("MODALIAS", modalias))
    inp = m.cls(parent, "input%d" % num, "input", attrs=attrs, env=env)
    m.cls(inp, "event%d" % num, "input", devt=("char", INPUT_MAJOR, 64 + num), devname="input/event%d" % num)
    for kind, k in handlers:
        minor = {"mouse": 32, "js": 0}[kind] + k
        m.cls(inp, "%s%d" % (kind, k), "input", devt=("char", INPUT_MAJOR, minor), devname="input/%s%d" % (kind, k))
    return inp


def pci_device(m, parent, slot, driver, vendor, device, pci_class, subsys=(0x17aa, 0x20f1), module=None, rev=0):
    sv, sd = subsys
    modalias = "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X" % (
        vendor, device, sv, sd, pci_class >> 16, (pci_class >> 8) & 0xff, pci_class & 0xff)
    attrs = {"vendor": "0x%04x\n" % vendor, "device": "0x%04x\n" % device, "class": "0x%06x\n" % pci_class,
             "subsystem_vendor": "0x%04x\n" % sv, "subsystem_device": "0x%04x\n" % sd,
             "revision": "0x%02x\n" % rev, "modalias": modalias + "\n", "enable": ("1\n", 0o644)}
    env = [("PCI_CLASS", "%X" % pci_class), ("PCI_ID", "%04X:%04X" % (vendor, device)),
           ("PCI_SUBSYS_ID", "%04X:%04X" % (sv, sd)), ("PCI_SLOT_NAME", slot), ("MODALIAS", modalias)]
    return m.bus(parent, slot, "pci", driver=driver, module=module or driver, attrs=attrs, env=env)


def usb_descriptors(ids, dev_class, interfaces):
    """The raw `descriptors` attribute: device descriptor, one configuration with each
    interface (alternate setting 0) followed by one bulk endpoint."""
    vendor, product, bcd = ids
    dev = bytes([18, 1, 0x00, 0x02, dev_class[0], dev_class[1], dev_class[2], 64,
                 vendor & 0xff, vendor >> 8, product & 0xff, product >> 8, bcd & 0xff, bcd >> 8, 1, 2, 3, 1])
    body = b""
    for num, (icls, isub, iproto, _driver, _module) in enumerate(interfaces):
        body += bytes([9, 4, num, 0, 1, icls, isub, iproto, 0])
        body += bytes([7, 5, 0x81 + num, 2, 0x00, 0x02, 0])
    total = 9 + len(body)
    conf = bytes([9, 2, total & 0xff, total >> 8, len(interfaces), 1, 0, 0x80, 50])
    return (dev + conf + body, 0o444)


def usb_device(m, parent, name, busnum, devnum, ids, strings, dev_class=(0, 0, 0), speed="480",
               version=" 2.00", interfaces=(), maxchild=0, devpath=None):
    """A USB device (bus usb, devtype usb_device, driver usb), its usb_device class device
    usbdevB.D and its interfaces; returns (device, [interfaces])."""
    vendor, product, bcd = ids
    manufacturer, prod_name, serial = strings
    attrs = {"idVendor": "%04x\n" % vendor, "idProduct": "%04x\n" % product, "bcdDevice": "%04x\n" % bcd,
             "bDeviceClass": "%02x\n" % dev_class[0], "bDeviceSubClass": "%02x\n" % dev_class[1],
             "bDeviceProtocol": "%02x\n" % dev_class[2], "bNumConfigurations": "1\n",
             "bConfigurationValue": ("1\n", 0o644), "bNumInterfaces": "%2d\n" % len(interfaces),
             "bmAttributes": "80\n", "bMaxPower": "100mA\n", "configuration": "\n",
             "busnum": "%d\n" % busnum, "devnum": "%d\n" % devnum, "speed": speed + "\n",
             "version": version + "\n", "maxchild": "%d\n" % maxchild,
             "devpath": (devpath if devpath is not None else name.split("-", 1)[-1]) + "\n"}
    if manufacturer:
        attrs["manufacturer"] = manufacturer + "\n"
    if prod_name:
        attrs["product"] = prod_name + "\n"
    if serial:
        attrs["serial"] = serial + "\n"
    env = [("PRODUCT", "%x/%x/%x" % ids), ("TYPE", "%d/%d/%d" % dev_class),
           ("BUSNUM", "%03d" % busnum), ("DEVNUM", "%03d" % devnum)]
    attrs["descriptors"] = usb_descriptors(ids, dev_class, interfaces)
    dev = m.bus(parent, name, "usb", devtype="usb_device", driver="usb", module="usbcore", attrs=attrs, env=env)
    m.cls(dev, "usbdev%d.%d" % (busnum, devnum), "usb_device",
          devt=("char", USB_MAJOR_DEV, (busnum - 1) * 128 + (devnum - 1)),
          devname="bus/usb/%03d/%03d" % (busnum, devnum))
    intfs = []
    port = "0" if name.startswith("usb") else name.split("-", 1)[1]
    for num, (icls, isub, iproto, driver, module) in enumerate(interfaces):
        modalias = "usb:v%04Xp%04Xd%04Xdc%02Xdsc%02Xdp%02Xic%02Xisc%02Xip%02Xin%02X" % (
            vendor, product, bcd, dev_class[0], dev_class[1], dev_class[2], icls, isub, iproto, num)
        iattrs = {"bInterfaceNumber": "%02x\n" % num, "bAlternateSetting": " 0\n",
                  "bInterfaceClass": "%02x\n" % icls, "bInterfaceSubClass": "%02x\n" % isub,
                  "bInterfaceProtocol": "%02x\n" % iproto, "bNumEndpoints": "02\n",
                  "modalias": modalias + "\n"}
        ienv = [("PRODUCT", "%x/%x/%x" % ids), ("TYPE", "%d/%d/%d" % dev_class),
                ("INTERFACE", "%d/%d/%d" % (icls, isub, iproto)), ("MODALIAS", modalias)]
        intfs.append(m.bus(dev, "%d-%s:1.%d" % (busnum, port, num), "usb", devtype="usb_interface",
                           driver=driver, module=module, attrs=iattrs, env=ienv))
    return dev, intfs


def scsi_disk(m, host_parent, hostnum, vendor, model, disk, first_minor, size, partitions, removable=False):
    host = m.bus(host_parent, "host%d" % hostnum, "scsi", devtype="scsi_host")
    target = m.bus(host, "target%d:0:0" % hostnum, "scsi", devtype="scsi_target")
    sdev = m.bus(target, "%d:0:0:0" % hostnum, "scsi", devtype="scsi_device", driver="sd", module="sd_mod",
                 attrs={"vendor": "%-8s\n" % vendor, "model": "%-16s\n" % model, "rev": "1.00\n",
                        "type": "0\n", "scsi_level": "7\n", "state": ("running\n", 0o644)},
                 env=[("MODALIAS", "scsi:t-0x00")])
    block_device(m, sdev, disk, 8, first_minor, size, partitions, removable)
    return sdev


def block_device(m, parent, disk, major, first_minor, size, partitions, removable=False, part_sep=""):
    m.diskseq += 1
    d = m.cls(parent, disk, "block", devt=("block", major, first_minor), devtype="disk",
              env=[("DISKSEQ", str(m.diskseq))],
              attrs={"size": "%d\n" % size, "removable": "%d\n" % removable, "ro": "0\n",
                     "range": "16\n" if major == 8 else "0\n", "ext_range": "256\n",
                     **({"nsid": "1\n"} if disk.startswith("nvme") else {})})
    start = 2048
    for n, psize in enumerate(partitions, 1):
        name = "%s%s%d" % (disk, part_sep, n)
        m.cls(d, name, "block", devt=("block", major, first_minor + n), devtype="partition",
              attrs={"partition": "%d\n" % n, "start": "%d\n" % start, "size": "%d\n" % psize, "ro": "0\n"},
              env=[("PARTN", str(n))])
        start += psize
    return d


def net_device(m, parent, name, ifindex, address, type_=1, flags="0x1003"):
    return m.cls(parent, name, "net",
                 attrs={"address": address + "\n", "ifindex": "%d\n" % ifindex, "iflink": "%d\n" % ifindex,
                        "type": "%d\n" % type_, "addr_assign_type": "0\n", "addr_len": "6\n",
                        "mtu": ("1500\n" if type_ == 1 else "65536\n", 0o644), "flags": (flags + "\n", 0o644),
                        "dev_id": "0x0\n", "dev_port": "0\n", "operstate": "up\n", "carrier": ("1\n", 0o644),
                        **({"name_assign_type": "1\n"} if type_ == 1 else {})},
                 env=[("INTERFACE", name), ("IFINDEX", str(ifindex))])



def scsi_stack(m, host_parent, hostnum, target, lun, disk, minor, channel=0, sdev_attrs=None, host=None,
               target_parent=None, rest=None):
    """host<N>/target<N>:<C>:<T>/<N>:<C>:<T>:<L>/block/<disk> (host and the target's parent may be
    given); returns (host, scsi_device)."""
    host = host or m.bus(host_parent, "host%d" % hostnum, "scsi", devtype="scsi_host")
    tgt = m.bus(target_parent or host, "target%d:%d:%d" % (hostnum, channel, target), "scsi", devtype="scsi_target")
    attrs = {"vendor": "ZOO     \n", "model": "Disk            \n", "rev": "0001\n", "type": "0\n"}
    attrs.update(sdev_attrs or {})
    sdev = m.bus(tgt, "%d:%d:%d:%d" % (hostnum, channel, target, lun), "scsi", devtype="scsi_device",
                 driver="sd", module="sd_mod", attrs=attrs, env=[("MODALIAS", "scsi:t-0x00")])
    if disk:
        block_device(m, sdev, disk, 8, minor, 1000, ())
    return host, sdev


def add_zoo(m):
    """--zoo: more buses and storage transports on top of the machine, for the path_id cases it
    does not have (SAS direct, behind an expander and on a wide port; iSCSI; Fibre Channel with
    a large LUN; Hyper-V; NVMe multipath; virtio; port multiplier; FireWire SBP-2; SCSI tape;
    cciss; MMC; bcma; SPI; s390 ccw and AP; Xen)."""
    pci = m.by_path["/devices/pci0000:00"]
    # SAS HBA: a direct disk (one phy), an expander with a disk, a wide port (four phys)
    hba = pci_device(m, pci, "0000:03:00.0", "mpt3sas", 0x1000, 0x0097, 0x010700)
    host7 = m.bus(hba, "host7", "scsi", devtype="scsi_host")
    port0 = m.plain(host7, "port-7:0")
    m.cls(port0, "port-7:0", "sas_port", attrs={"num_phys": "1\n"})
    end0 = m.plain(port0, "end_device-7:0")
    m.cls(end0, "end_device-7:0", "sas_device", attrs={"sas_address": "0x5000c50012345671\n", "phy_identifier": "3\n"})
    scsi_stack(m, None, 7, 0, 0, "sdc", 32, host=host7, target_parent=end0)
    port1 = m.plain(host7, "port-7:1")
    m.cls(port1, "port-7:1", "sas_port", attrs={"num_phys": "4\n"})
    exp = m.plain(port1, "expander-7:0")
    m.cls(exp, "expander-7:0", "sas_device", attrs={"sas_address": "0x500605b0000272bf\n", "phy_identifier": "0\n"})
    port2 = m.plain(exp, "port-7:0:0")
    m.cls(port2, "port-7:0:0", "sas_port", attrs={"num_phys": "1\n"})
    end1 = m.plain(port2, "end_device-7:0:0")
    m.cls(end1, "end_device-7:0:0", "sas_device", attrs={"sas_address": "0x5000c50012345672\n",
                                                          "phy_identifier": "5\n"})
    scsi_stack(m, None, 7, 1, 0, "sdd", 48, host=host7, target_parent=end1)
    port3 = m.plain(exp, "port-7:0:1")
    m.cls(port3, "port-7:0:1", "sas_port", attrs={"num_phys": "4\n"})
    end2 = m.plain(port3, "end_device-7:0:1")
    m.cls(end2, "end_device-7:0:1", "sas_device", attrs={"sas_address": "0x5000c50012345673\n",
                                                          "phy_identifier": "8\n"})
    scsi_stack(m, None, 7, 2, 0, "sde", 64, host=host7, target_parent=end2)

    # iSCSI (software initiator: hosts hang below /devices/platform)
    platform = m.by_path["/devices/platform"]
    host8 = m.bus(platform, "host8", "scsi", devtype="scsi_host")
    session = m.plain(host8, "session1")
    m.cls(session, "session1", "iscsi_session", attrs={"targetname": "iqn.2024-01.org.example:storage\n"})
    conn = m.plain(session, "connection1:0")
    m.cls(conn, "connection1:0", "iscsi_connection", attrs={"persistent_address": "192.0.2.10\n",
                                                             "persistent_port": "3260\n"})
    scsi_stack(m, None, 8, 0, 0, "sdf", 80, host=host8, target_parent=session)

    # Fibre Channel, LUN 16385 (beyond peripheral addressing)
    fc = pci_device(m, pci, "0000:04:00.0", "qla2xxx", 0x1077, 0x2532, 0x0c0400)
    host9 = m.bus(fc, "host9", "scsi", devtype="scsi_host")
    rport = m.plain(host9, "rport-9:0-0")
    _, fc_sdev = scsi_stack(m, None, 9, 0, 16385, "sdg", 96, host=host9, target_parent=rport)
    m.cls(fc_sdev.parent, "target9:0:0", "fc_transport", attrs={"port_name": "0x50060e8007e2c000\n",
                                                                 "node_name": "0x50060e8007e2c001\n"})

    # Hyper-V storage below the VMBus ACPI device
    acpi_bus = m.by_path["/devices/LNXSYSTM:00/LNXSYBUS:00"]
    vmbus_acpi = m.bus(acpi_bus, "VMBUS:00", "acpi", attrs={"hid": "VMBUS\n", "modalias": "acpi:VMBUS:\n"},
                       env=[("MODALIAS", "acpi:VMBUS:")])
    guid = "f8b3781a-1e82-4818-a1c3-63d806ec15bb"
    vm = m.bus(vmbus_acpi, guid, "vmbus", driver="hv_storvsc", module="hv_storvsc",
               attrs={"device_id": "{%s}\n" % guid, "class_id": "{ba6163d9-04a1-4d29-b605-72e2ffb1dc7f}\n"})
    scsi_stack(m, vm, 10, 0, 0, "sdh", 112)

    # NVMe with multipathing: the namespace below the virtual subsystem device
    nvme_pci = pci_device(m, pci, "0000:05:00.0", "nvme", 0x144d, 0xa80a, 0x010802)
    m.cls(nvme_pci, "nvme1", "nvme", devt=("char", 241, 1), attrs={"transport": "pcie\n"})
    subsys = m.cls(None, "nvme-subsys1", "nvme-subsystem", attrs={"subsysnqn": "nqn.2024-01.org.example:n1\n"})
    block_device(m, subsys, "nvme1n1", 259, 8, 1000, (500,), part_sep="p")

    # virtio block
    virtio_pci = pci_device(m, pci, "0000:00:02.0", "virtio-pci", 0x1af4, 0x1042, 0x018000, module="virtio_pci")
    virtio = m.bus(virtio_pci, "virtio0", "virtio", driver="virtio_blk", module="virtio_blk",
                   attrs={"device": "0x0002\n", "vendor": "0x1af4\n"}, env=[("MODALIAS", "virtio:d00000002v00001AF4")])
    block_device(m, virtio, "vda", 254, 0, 1000, (500,))

    # a disk behind a SATA port multiplier (channel = PMP port)
    ahci = m.by_path["/devices/pci0000:00/0000:00:1f.2"]
    ata2 = m.plain(ahci, "ata2", devtype="ata_port")
    m.cls(ata2, "ata2", "ata_port", attrs={"port_no": "2\n", "nr_pmp_links": "15\n"})
    scsi_stack(m, ata2, 1, 0, 0, "sdi", 128, channel=2)

    # FireWire SBP-2 disk, and a SCSI tape with its mode variants
    ohci = pci_device(m, pci, "0000:06:00.0", "firewire_ohci", 0x104c, 0x8023, 0x0c0010)
    fw = m.bus(ohci, "fw1.0", "firewire", driver="firewire_sbp2", module="firewire_sbp2")
    scsi_stack(m, fw, 11, 0, 0, "sdj", 144, sdev_attrs={"ieee1394_id": "0001d20000123456:0:0\n"})
    tape_hba = pci_device(m, pci, "0000:06:01.0", "mptspi", 0x1000, 0x0030, 0x010000)
    _, tape = scsi_stack(m, tape_hba, 12, 3, 0, None, 0, sdev_attrs={"type": "1\n"})
    for i, name in enumerate(("st0", "st0l", "nst0", "nst0a", "stl", "nsta")):
        m.cls(tape, name, "scsi_tape", devt=("char", 9, 128 * (i // 2) + (i % 2) * 128 + i))

    # Compaq Smart Array: block device names with a '!' (cciss/c0d0)
    cciss = pci_device(m, pci, "0000:07:00.0", "cciss", 0x103c, 0x3230, 0x010400)
    ctrl = m.plain(cciss, "cciss0")
    c0d0 = m.bus(ctrl, "c0d0", "cciss")
    m.cls(c0d0, "cciss!c0d0", "block", devt=("block", 104, 0), devname="cciss/c0d0", devtype="disk",
          attrs={"size": "1000\n"})

    # SD card on a PCI SDHCI controller
    sdhci = pci_device(m, pci, "0000:00:1e.6", "sdhci-pci", 0x8086, 0x9d2d, 0x080501, module="sdhci_pci")
    mmc0 = m.cls(sdhci, "mmc0", "mmc_host")
    card = m.bus(mmc0, "mmc0:aaaa", "mmc", driver="mmcblk", module="mmc_block", devtype="SD",
                 attrs={"name": "SC32G\n", "serial": "0x12345678\n", "type": "SD\n"}, env=[("MMC_TYPE", "SD")])
    block_device(m, card, "mmcblk0", 179, 0, 1000, (500,), part_sep="p")

    # Broadcom bcma core with a network interface
    bcma_pci = pci_device(m, pci, "0000:08:00.0", "bcma-pci-bridge", 0x14e4, 0x4331, 0x028000, module="bcma")
    core = m.bus(bcma_pci, "bcma0:1", "bcma", driver="b43", module="b43")
    net_device(m, core, "wlan0", 7, "00:11:22:33:44:55")

    # SPI: a serial port on chip select 1 of a platform SPI controller
    spi_ctrl = m.bus(platform, "fe204000.spi", "platform", driver="spi-bcm2835", module="spi_bcm2835",
                     env=[("MODALIAS", "of:NspiT(null)Cbrcm,bcm2835-spi")])
    master = m.cls(spi_ctrl, "spi0", "spi_master")
    sc16 = m.bus(master, "spi0.1", "spi", driver="sc16is7xx", module="sc16is7xx", env=[("MODALIAS", "spi:sc16is752")])
    m.cls(sc16, "ttySC0", "tty", devt=("char", 239, 0))

    # s390: a DASD on a channel subsystem device, a crypto queue on the AP bus
    css = m.plain(None, "css0")
    sch = m.bus(css, "0.0.0000", "css", driver="io_subchannel", module="ccw")
    dasd = m.bus(sch, "0.0.0100", "ccw", driver="dasd-eckd", module="dasd_eckd_mod",
                 env=[("CU_TYPE", "3990"), ("MODALIAS", "ccw:t3990m0Edt3390dm0C")])
    block_device(m, dasd, "dasda", 94, 0, 1000, (500,))
    ap = m.plain(None, "ap")
    card00 = m.bus(ap, "card00", "ap", driver="cex4card", module="zcrypt_cex4",
                   attrs={"type": "CEX7C\n", "ap_functions": "0x92000000\n"})
    queue = m.bus(card00, "00.0005", "ap", driver="cex4queue", module="zcrypt_cex4")
    m.cls(queue, "zcrypt0", "misc", devt=("char", 10, 60))

    # Xen: a paravirtual disk (xen is a known parent but no transport: no path for the disk)
    vbd = m.bus(None, "vbd-51712", "xen", driver="vbd", module="xen_blkfront", devtype="vbd",
                env=[("XENBUS_TYPE", "vbd"), ("MODALIAS", "xen:vbd")])
    block_device(m, vbd, "xvda", 202, 0, 1000, ())
    xen_con = m.bus(None, "console-0", "xen", driver="xenconsole", devtype="console")
    m.cls(xen_con, "hvc1", "tty", devt=("char", 229, 1))

    # USB devices with awkward strings on bus 1: invalid UTF-8, '/', trailing blanks, a product
    # longer than udev's 63-byte buffers, a serial with a comma (not used); an ATAPI CD whose
    # SCSI vendor is blank; a webcam without any strings and repeated interface classes
    usb1 = m.by_path["/devices/pci0000:00/0000:00:1d.0/usb1"]
    odd, _ = usb_device(m, usb1, "1-1", 1, 2, (0x1234, 0xabcd, 0x0102), ("", "", "AB,CD"),
                        interfaces=[(3, 1, 1, "usbhid", "usbhid")])
    odd.attrs["manufacturer"] = (b"Ven\xffdor / Inc.\t \n", 0o444)
    odd.attrs["product"] = (("Very Long Product Name " * 4).encode() + b"\n", 0o444)
    _, (cd_if,) = usb_device(m, usb1, "1-2", 1, 3, (0x0bda, 0x0151, 0x5864), ("Generic", "External DVD", "0000000001"),
                             interfaces=[(8, 2, 0x50, "usb-storage", "usb_storage")])
    scsi_stack(m, cd_if, 13, 0, 0, "sdk", 160, sdev_attrs={"type": "5\n", "vendor": "        \n",
                                                          "model": "DVD-RW DVR-K17  \n", "rev": "1.0 \n"})
    usb_device(m, usb1, "1-3", 1, 4, (0x046d, 0x0825, 0x0012), ("", "", ""), dev_class=(0xef, 2, 1),
               interfaces=[(0x0e, 1, 0, "uvcvideo", "uvcvideo"), (0x0e, 2, 0, "uvcvideo", "uvcvideo"),
                           (0x0e, 2, 0, "uvcvideo", "uvcvideo"), (1, 1, 0, "snd-usb-audio", "snd_usb_audio")])

    # input devices at the edges of input_id's rules, below a platform device
    BUS_I2C, BTN_0, BTN_JOYSTICK, KEY_OK, BTN_DPAD_UP, BTN_TRIGGER_HAPPY1 = 0x18, 0x100, 0x120, 0x160, 0x220, 0x2c0
    KEY_POWER, ABS_MT_SLOT_ = 116, 0x2f
    edge = m.bus(platform, "input-edges", "platform", driver="edges", module="edges")
    cases = [
        ("I2C mouse", BUS_I2C, {"ev": [EV_SYN, EV_KEY, EV_REL], "key": [BTN_LEFT, BTN_RIGHT], "rel": [REL_X, REL_Y]}, ()),
        ("Mouse with 19 buttons", BUS_USB, {"ev": [EV_SYN, EV_KEY, EV_REL], "key": range(BTN_LEFT, BTN_JOYSTICK + 3),
                                            "rel": [REL_X, REL_Y, REL_WHEEL]}, ()),
        ("Wheel", BUS_USB, {"ev": [EV_SYN, EV_REL], "rel": [REL_WHEEL, REL_HWHEEL]}, ()),
        ("Media keys", BUS_USB, {"ev": [EV_SYN, EV_KEY], "key": [KEY_OK, KEY_OK + 1]}, ()),
        ("Tablet with pad", BUS_USB, {"ev": [EV_SYN, EV_KEY, EV_ABS], "key": [BTN_0, BTN_STYLUS],
                                      "abs": [ABS_X, ABS_Y]}, ()),
        ("Rudder", BUS_USB, {"ev": [EV_SYN, EV_ABS], "abs": [ABS_RX, ABS_RY]}, ()),
        ("Absolute mouse", BUS_USB, {"ev": [EV_SYN, EV_KEY, EV_ABS], "key": [BTN_LEFT], "abs": [ABS_X, ABS_Y]}, ()),
        ("MT touchscreen", BUS_I2C, {"ev": [EV_SYN, EV_KEY, EV_ABS], "key": [BTN_TOUCH, BTN_TOOL_FINGER],
                                     "abs": [ABS_MT_SLOT_, ABS_MT_POSITION_X, ABS_MT_POSITION_Y]}, (PROP_DIRECT,)),
        ("Every axis", BUS_USB, {"ev": [EV_SYN, EV_ABS], "abs": range(0, 0x40)}, ()),
        ("D-pad", BUS_USB, {"ev": [EV_SYN, EV_KEY], "key": [BTN_DPAD_UP]}, ()),
        ("Trigger happy", BUS_USB, {"ev": [EV_SYN, EV_KEY], "key": [BTN_TRIGGER_HAPPY1]}, ()),
        ("Power button and lid", BUS_HOST, {"ev": [EV_SYN, EV_KEY, EV_SW], "key": [KEY_POWER], "sw": [SW_LID]}, ()),
        ("Nothing", BUS_HOST, {"ev": [EV_SYN]}, ()),
        ("I2C absolute mouse", BUS_I2C, {"ev": [EV_SYN, EV_KEY, EV_ABS], "key": [BTN_LEFT], "abs": [ABS_X, ABS_Y]}, ()),
        ("Pad ring", BUS_USB, {"ev": [EV_SYN, EV_KEY, EV_REL], "key": [BTN_0, BTN_0 + 1], "rel": [REL_WHEEL]}, ()),
        ("Pad ring with joystick buttons", BUS_USB, {"ev": [EV_SYN, EV_KEY, EV_REL],
                                                     "key": [BTN_0, BTN_0 + 1, BTN_JOYSTICK, BTN_JOYSTICK + 1],
                                                     "rel": [REL_WHEEL]}, ()),
        ("Keyboard with joystick buttons", BUS_USB, {"ev": [EV_SYN, EV_KEY],
                                                     "key": list(range(1, 128)) + [BTN_JOYSTICK, BTN_JOYSTICK + 1]}, ()),
        ("Two-button stick", BUS_USB, {"ev": [EV_SYN, EV_KEY], "key": [BTN_JOYSTICK, BTN_JOYSTICK + 1]}, ()),
        ("Tablet with two pad buttons", BUS_USB, {"ev": [EV_SYN, EV_KEY, EV_ABS], "key": [BTN_0, BTN_0 + 1],
                                                  "abs": [ABS_X, ABS_Y]}, ()),
        ("Touchpad with buttons", BUS_I2C, {"ev": [EV_SYN, EV_KEY, EV_ABS],
                                            "key": [BTN_LEFT, BTN_TOOL_FINGER, BTN_TOUCH],
                                            "abs": [ABS_X, ABS_Y, ABS_MT_POSITION_X, ABS_MT_POSITION_Y]},
         (PROP_POINTER,)),
    ]
    for i, (name, bus, caps, props) in enumerate(cases):
        input_device(m, edge, 20 + i, name, "edges/input%d" % i, (bus, 0x1234, 0x100 + i, 1), caps, props=props)
    return m


def build_machine():
    """The one fixture machine. Changing it changes what the fixture tests expect: keep
    tests/unit/test-gen-sysfs.py's hand-written expectations in step."""
    m = Machine()
    # --- PCI: host bridge, NIC, AHCI, NVMe behind a root port, four USB host controllers
    pci = m.plain(None, "pci0000:00")
    pci_device(m, pci, "0000:00:00.0", None, 0x8086, 0x2a40, 0x060000)
    nic = pci_device(m, pci, "0000:00:19.0", "e1000e", 0x8086, 0x10f5, 0x020000, subsys=(0x17aa, 0x20ee), rev=3)
    net_device(m, nic, "eth0", 2, "00:1b:21:3a:4c:5d")
    ahci = pci_device(m, pci, "0000:00:1f.2", "ahci", 0x8086, 0x2929, 0x010601, rev=3)
    ata1 = m.plain(ahci, "ata1", devtype="ata_port")
    m.cls(ata1, "ata1", "ata_port", attrs={"port_no": "1\n", "nr_pmp_links": "0\n", "idle_irq": "0\n"})
    scsi_disk(m, ata1, 0, "ATA", "Samsung SSD 860", "sda", 0, 500118192, (1048576, 499067904))
    port = pci_device(m, pci, "0000:00:1c.0", "pcieport", 0x8086, 0x2940, 0x060400, module="pcieportdrv")
    nvme_pci = pci_device(m, port, "0000:02:00.0", "nvme", 0x144d, 0xa808, 0x010802, subsys=(0x144d, 0xa801))
    nvme0 = m.cls(nvme_pci, "nvme0", "nvme", devt=("char", 241, 0), env=[("NVME_TRTYPE", "pcie")],
                  attrs={"model": "Samsung SSD 970 EVO Plus 500GB          \n", "serial": "S4EVNX0N123456A     \n",
                         "firmware_rev": "2B2QEXM7\n", "transport": "pcie\n"})
    block_device(m, nvme0, "nvme0n1", 259, 0, 976773168, (976771072,), part_sep="p")

    hcs = {}
    for busnum, slot, driver, device, pclass in ((1, "0000:00:1d.0", "uhci_hcd", 0x2934, 0x0c0300),
                                                 (2, "0000:00:1d.1", "uhci_hcd", 0x2935, 0x0c0300),
                                                 (3, "0000:00:1d.7", "ehci-pci", 0x293a, 0x0c0320),
                                                 (4, "0000:00:14.0", "xhci_hcd", 0x1e31, 0x0c0330)):
        hc = pci_device(m, pci, slot, driver, 0x8086, device, pclass,
                        module={"ehci-pci": "ehci_pci"}.get(driver, driver))
        speed, ver, hcname = {1: ("12", " 1.10", "UHCI"), 2: ("12", " 1.10", "UHCI"),
                              3: ("480", " 2.00", "EHCI"), 4: ("480", " 2.00", "xHCI")}[busnum]
        root, _ = usb_device(m, hc, "usb%d" % busnum, busnum, 1, (0x1d6b, 2 if speed == "480" else 1, 0x0610),
                             ("Linux 6.1.0-13-amd64 %s" % driver, "%s Host Controller" % hcname, slot),
                             dev_class=(9, 0, 0), speed=speed, version=ver,
                             interfaces=[(9, 0, 0, "hub", "usbcore")], maxchild=2, devpath="0")
        hcs[busnum] = root

    # bus 3: a mass-storage stick with a serial, a USB Ethernet adapter
    _, (stor_if,) = usb_device(m, hcs[3], "3-1", 3, 2, (0x0781, 0x5567, 0x0100),
                               ("SanDisk", "Cruzer Blade", "4C530001230817116382"),
                               interfaces=[(8, 6, 0x50, "usb-storage", "usb_storage")])
    scsi_disk(m, stor_if, 6, "SanDisk", "Cruzer Blade", "sdb", 16, 30031872, (30029824,), removable=True)
    _, (nic_if,) = usb_device(m, hcs[3], "3-2", 3, 3, (0x0b95, 0x772b, 0x0001),
                              ("ASIX Elec. Corp.", "AX88772B", "000001"),
                              dev_class=(0xff, 0, 0), interfaces=[(0xff, 0, 0, "asix", "asix")])
    net_device(m, nic_if, "eth1", 3, "00:0e:c6:88:01:02")

    # bus 4: a hub with a mouse, a pen tablet and a gamepad
    hub, _ = usb_device(m, hcs[4], "4-1", 4, 2, (0x05e3, 0x0608, 0x8537), ("", "USB2.0 Hub", ""),
                        dev_class=(9, 0, 1), interfaces=[(9, 0, 0, "hub", "usbcore")], maxchild=4)
    _, (mouse_if,) = usb_device(m, hub, "4-1.1", 4, 3, (0x046d, 0xc077, 0x7200), ("Logitech", "USB Optical Mouse", ""),
                                speed="1.5", version=" 2.00", interfaces=[(3, 1, 2, "usbhid", "usbhid")])
    _, (tablet_if,) = usb_device(m, hub, "4-1.2", 4, 4, (0x056a, 0x0357, 0x0100), ("Wacom Co.,Ltd.", "PTH-660", "8BQ00M1012345"),
                                 speed="12", interfaces=[(3, 0, 0, "usbhid", "usbhid")])
    _, (pad_if,) = usb_device(m, hub, "4-1.3", 4, 5, (0x045e, 0x028e, 0x0114), ("\u00a9Microsoft Corporation", "Controller", "1C8A2B3"),
                              dev_class=(0xff, 0xff, 0xff), speed="12", interfaces=[(0xff, 0x5d, 0x01, "xpad", "xpad")])

    # --- platform and legacy buses
    platform = m.plain(None, "platform")
    i8042 = m.bus(platform, "i8042", "platform", driver="i8042", module="i8042",
                  attrs={"modalias": "platform:i8042\n"}, env=[("MODALIAS", "platform:i8042")])
    serio = []
    for idx, parent, driver, desc in ((0, i8042, "atkbd", "i8042 KBD port"), (1, i8042, "psmouse", "i8042 AUX port"),
                                      (2, None, "psmouse", "Synaptics pass-through")):
        parent = parent or serio[1]
        stype = "06" if idx == 0 else "01"
        modalias = "serio:ty%spr00id00ex00" % stype
        sattrs = {"description": desc + "\n", "modalias": modalias + "\n", "id/type": stype + "\n",
                  "id/proto": "00\n", "id/id": "00\n", "id/extra": "00\n"}
        # what the keyboard builtin writes: atkbd's force-release list, the TrackPoint's sensitivity
        if driver == "atkbd":
            sattrs["force_release"] = ("369-370\n", 0o644)
        if idx == 2:
            sattrs["sensitivity"] = ("128\n", 0o644)
        serio.append(m.bus(parent, "serio%d" % idx, "serio", driver=driver, module=driver,
                           attrs=sattrs,
                           env=[("SERIO_TYPE", stype), ("SERIO_PROTO", "00"), ("SERIO_ID", "00"),
                                ("SERIO_EXTRA", "00"), ("MODALIAS", modalias)]))
    serial8250 = m.bus(platform, "serial8250", "platform", driver="serial8250", module="8250",
                       attrs={"modalias": "platform:serial8250\n"}, env=[("MODALIAS", "platform:serial8250")])
    lis3 = m.bus(platform, "lis3lv02d", "platform", driver="lis3lv02d", module="lis3lv02d",
                 attrs={"modalias": "platform:lis3lv02d\n"}, env=[("MODALIAS", "platform:lis3lv02d")])
    # the PC speaker: platform_device "pcspkr" (arch code), bound to the pcspkr driver
    pcspkr = m.bus(platform, "pcspkr", "platform", driver="pcspkr", module="pcspkr",
                   attrs={"modalias": "platform:pcspkr\n"}, env=[("MODALIAS", "platform:pcspkr")])
    ads = m.bus(platform, "ads7846", "platform", driver="ads7846", module="ads7846",
                attrs={"modalias": "platform:ads7846\n"}, env=[("MODALIAS", "platform:ads7846")])
    acpi_root = m.bus(None, "LNXSYSTM:00", "acpi", attrs={"hid": "LNXSYSTM\n", "modalias": "acpi:LNXSYSTM:\n"},
                      env=[("MODALIAS", "acpi:LNXSYSTM:")])
    acpi_bus = m.bus(acpi_root, "LNXSYBUS:00", "acpi", attrs={"hid": "LNXSYBUS\n", "modalias": "acpi:LNXSYBUS:\n"},
                     env=[("MODALIAS", "acpi:LNXSYBUS:")])
    lid = m.bus(acpi_bus, "PNP0C0D:00", "acpi", driver="button", module="button",
                attrs={"hid": "PNP0C0D\n", "path": "\\_SB_.LID_\n", "modalias": "acpi:PNP0C0D:\n"},
                env=[("MODALIAS", "acpi:PNP0C0D:")])

    # HID devices between the USB interfaces and their input devices, as modern kernels have them
    def hid(intf, bus_id, vendor, product, num, driver):
        name = "%04X:%04X:%04X.%04X" % (bus_id, vendor, product, num)
        modalias = "hid:b%04Xg0001v%08Xp%08X" % (bus_id, vendor, product)
        return m.bus(intf, name, "hid", driver=driver, module={"hid-generic": "hid_generic"}.get(driver, driver),
                     attrs={"modalias": modalias + "\n"},
                     env=[("HID_ID", "%04X:%08X:%08X" % (bus_id, vendor, product)), ("HID_NAME", "usb hid"),
                          ("HID_PHYS", "usb-%s/input0" % intf.devpath.rsplit("/", 2)[-2]),
                          ("MODALIAS", modalias)])
    hid_mouse = hid(mouse_if, 3, 0x046d, 0xc077, 1, "hid-generic")
    hid_tablet = hid(tablet_if, 3, 0x056a, 0x0357, 2, "wacom")

    # --- input devices, one of each kind, described by their capability bitmaps
    full_keyboard = list(range(1, 128)) + [KEY_MIN_INTERESTING + 27, 217, 240]
    input_device(m, serio[0], 0, "AT Translated Set 2 keyboard", "isa0060/serio0/input0", (BUS_I8042, 1, 1, 0xab41),
                 {"ev": [EV_SYN, EV_KEY, EV_MSC, EV_LED, EV_REP], "key": full_keyboard, "msc": [MSC_SCAN],
                  "led": [0, 1, 2]})
    input_device(m, serio[1], 1, "SynPS/2 Synaptics TouchPad", "isa0060/serio1/input0", (BUS_I8042, 2, 7, 0x1b1),
                 {"ev": [EV_SYN, EV_KEY, EV_ABS],
                  "key": [BTN_LEFT, BTN_RIGHT, BTN_TOOL_FINGER, BTN_TOUCH, BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP,
                          BTN_TOOL_QUADTAP],
                  "abs": [ABS_X, ABS_Y, ABS_PRESSURE, ABS_TOOL_WIDTH, ABS_MT_SLOT, ABS_MT_POSITION_X,
                          ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID, ABS_MT_PRESSURE]},
                 props=[PROP_POINTER, PROP_BUTTONPAD], handlers=[("mouse", 0)])
    input_device(m, serio[2], 2, "TPPS/2 IBM TrackPoint", "synaptics-pt/serio0/input0", (BUS_I8042, 2, 10, 0),
                 {"ev": [EV_SYN, EV_KEY, EV_REL], "key": [BTN_LEFT, BTN_RIGHT, BTN_MIDDLE], "rel": [REL_X, REL_Y]},
                 props=[PROP_POINTER, PROP_POINTING_STICK], handlers=[("mouse", 1)])
    input_device(m, lid, 3, "Lid Switch", "PNP0C0D/button/input0", (BUS_HOST, 0, 5, 0),
                 {"ev": [EV_SYN, EV_SW], "sw": [SW_LID]})
    input_device(m, lis3, 4, "ST LIS3LV02DL Accelerometer", "lis3lv02d/input0", (BUS_HOST, 0, 0, 0),
                 {"ev": [EV_SYN, EV_ABS], "abs": [ABS_X, ABS_Y, ABS_Z]}, props=[PROP_ACCELEROMETER])
    input_device(m, ads, 5, "ADS7846 Touchscreen", "spi0.1/input0", (BUS_SPI, 0, 7846, 0),
                 {"ev": [EV_SYN, EV_KEY, EV_ABS], "key": [BTN_TOUCH], "abs": [ABS_X, ABS_Y, ABS_PRESSURE]},
                 props=[PROP_DIRECT], handlers=[("mouse", 4)])
    input_device(m, hid_mouse, 6, "Logitech USB Optical Mouse", "usb-0000:00:14.0-1.1/input0",
                 (BUS_USB, 0x046d, 0xc077, 0x111),
                 {"ev": [EV_SYN, EV_KEY, EV_REL, EV_MSC], "key": [BTN_LEFT, BTN_RIGHT, BTN_MIDDLE, BTN_SIDE, BTN_EXTRA],
                  "rel": [REL_X, REL_Y, REL_HWHEEL, REL_WHEEL], "msc": [MSC_SCAN]}, handlers=[("mouse", 2)])
    input_device(m, hid_tablet, 7, "Wacom Intuos Pro M Pen", "usb-0000:00:14.0-1.2/input0",
                 (BUS_USB, 0x056a, 0x0357, 0x110),
                 {"ev": [EV_SYN, EV_KEY, EV_ABS, EV_MSC],
                  "key": [BTN_TOOL_PEN, BTN_TOOL_RUBBER, BTN_TOUCH, BTN_STYLUS, BTN_STYLUS2],
                  "abs": [ABS_X, ABS_Y, ABS_PRESSURE, ABS_DISTANCE, ABS_TILT_X, ABS_TILT_Y], "msc": [MSC_SCAN]},
                 props=[PROP_POINTER], uniq="8BQ00M1012345", handlers=[("mouse", 3)])
    input_device(m, pad_if, 8, "Microsoft X-Box 360 pad", "usb-0000:00:14.0-1.3/input0",
                 (BUS_USB, 0x045e, 0x028e, 0x114),
                 {"ev": [EV_SYN, EV_KEY, EV_ABS, 0x15],
                  "key": list(range(BTN_GAMEPAD_FIRST, BTN_GAMEPAD_LAST + 1)),
                  "abs": [ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ, ABS_HAT0X, ABS_HAT0Y], "ff": [0x50, 0x51]},
                 handlers=[("js", 0)])
    # what drivers/input/misc/pcspkr.c registers: sounds only (EV_SYN is the input core's)
    input_device(m, pcspkr, 9, "PC Speaker", "isa0061/input0", (BUS_ISA, 0x1f, 1, 0x100),
                 {"ev": [EV_SYN, EV_SND], "snd": [SND_BELL, SND_TONE]})
    m.cls(None, "mice", "input", devt=("char", INPUT_MAJOR, 63), devname="input/mice")

    # --- tty, mem, misc, loop, lo
    for name, minor, mode in (("tty", 0, 0o666), ("console", 1, None), ("ptmx", 2, 0o666)):
        m.cls(None, name, "tty", devt=("char", 5, minor), devmode=mode)
    for n in range(4):
        m.cls(None, "tty%d" % n, "tty", devt=("char", 4, n))
    for n in range(4):
        m.cls(serial8250, "ttyS%d" % n, "tty", devt=("char", 4, 64 + n))
    for name, minor, mode in (("mem", 1, None), ("null", 3, 0o666), ("zero", 5, 0o666), ("full", 7, 0o666),
                              ("random", 8, 0o666), ("urandom", 9, 0o666), ("kmsg", 11, None)):
        m.cls(None, name, "mem", devt=("char", 1, minor), devmode=mode)
    for name, minor, mode in (("fuse", 229, 0o666), ("loop-control", 237, None), ("uinput", 223, None),
                              ("rfkill", 242, None)):
        m.cls(None, name, "misc", devt=("char", 10, minor), devmode=mode)
    block_device(m, None, "loop0", 7, 0, 0, ())
    net_device(m, None, "lo", 1, "00:00:00:00:00:00", type_=772, flags="0x9")
    m.modules.update({"usbcore", "loop", "e1000e"})
    return m


def build_scale(n):
    """n devices: platform parents scale.K each followed by up to SCALE_PER_PARENT class children.
    The /devices/platform directory is written but not counted (it is not in m.devices)."""
    m = Machine()
    platform = Device("platform", "plain", None, None, "/devices/platform")
    m.scale_extra_dirs = [platform]
    count = 0
    k = 0
    i = 0
    while count < n:
        parent = m.bus(platform, "scale.%d" % k, "platform", driver="scale", module="scale",
                       attrs={"modalias": "platform:scale\n"}, env=[("MODALIAS", "platform:scale")])
        count += 1
        for j in range(min(SCALE_PER_PARENT, n - count)):
            name = "s%d.%d" % (k, j)
            m.cls(parent, name, "scale", devt=("char", SCALE_MAJOR + (i >> 20), i & 0xfffff), devname="scale/" + name)
            i += 1
            count += 1
        k += 1
    return m


# ---------------------------------------------------------------------------------------------
# Writing

class Writer:
    """Creates files below root; paths are sysfs-absolute ("/devices/..."). Symlinks are made
    relative to the link's directory, as sysfs does."""

    def __init__(self, root):
        self.root = root
        self.dirs = set()

    def real(self, path):
        return self.root + path

    def mkdir(self, path):
        if path in self.dirs:
            return
        parent = os.path.dirname(path)
        if parent != "/" and parent not in self.dirs:
            self.mkdir(parent)
        try:
            os.mkdir(self.real(path), 0o755)
        except FileExistsError:
            pass
        self.dirs.add(path)

    def file(self, path, content, mode=0o444):
        self.mkdir(os.path.dirname(path))
        fd = os.open(self.real(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            os.write(fd, content if isinstance(content, bytes) else content.encode())
        finally:
            os.close(fd)

    def link(self, path, target):
        self.mkdir(os.path.dirname(path))
        os.symlink(os.path.relpath(target, os.path.dirname(path)), self.real(path))


def write_attrs(w, base, dev):
    for rel in dev.attrs:
        value = dev.attrs[rel]
        content, mode = value if isinstance(value, tuple) else (value, 0o444)
        w.file(base + "/" + rel, content, mode)


def write_bus_side(w, m):
    """/bus/<b>/{devices,drivers,uevent}, `driver` and `subsystem` links of bus devices, /module:
    the same in both layouts."""
    buses = set()
    drivers = set()
    for dev in m.devices:
        if dev.kind != "bus":
            continue
        bus = "/bus/" + dev.subsystem
        if dev.subsystem not in buses:
            buses.add(dev.subsystem)
            w.mkdir(bus + "/devices")
            w.mkdir(bus + "/drivers")
            w.file(bus + "/uevent", "", 0o200)
        w.link(dev.devpath + "/subsystem", bus)
        w.link(bus + "/devices/" + dev.sysname, dev.devpath)
        if dev.driver:
            drv = "%s/drivers/%s" % (bus, dev.driver)
            if drv not in drivers:
                drivers.add(drv)
                w.file(drv + "/uevent", "", 0o200)
                if dev.module:
                    w.link(drv + "/module", "/module/" + dev.module)
            w.link(dev.devpath + "/driver", drv)
            w.link(drv + "/" + dev.sysname, dev.devpath)
    for mod in sorted(m.modules):
        w.file("/module/%s/uevent" % mod, "", 0o200)


def write_converted(m, root):
    w = Writer(root)
    for top in ("devices", "class", "bus", "block", "dev/char", "dev/block", "module"):
        w.mkdir("/" + top)
    for extra in getattr(m, "scale_extra_dirs", ()):
        w.mkdir(extra.devpath)
        w.file(extra.devpath + "/uevent", "", 0o644)
    for dev in m.devices:
        w.mkdir(dev.devpath)
        w.file(dev.devpath + "/uevent", dev.uevent("converted"), 0o644)
        write_attrs(w, dev.devpath, dev)
        if dev.devt:
            w.file(dev.devpath + "/dev", "%d:%d\n" % dev.devt[1:])
            w.link("/dev/%s/%d:%d" % dev.devt, dev.devpath)
        if dev.kind != "class":
            continue
        w.link(dev.devpath + "/subsystem", "/class/" + dev.subsystem)
        w.link("/class/%s/%s" % (dev.subsystem, dev.sysname), dev.devpath)
        if dev.parent is not None and not dev.is_partition():
            w.link(dev.devpath + "/device", dev.parent.devpath)
        if dev.subsystem == "block" and not dev.is_partition():
            w.link("/block/" + dev.sysname, dev.devpath)
    write_bus_side(w, m)


def write_legacy(m, root):
    w = Writer(root)
    for top in ("devices", "class", "bus", "block", "module"):
        w.mkdir("/" + top)
    for extra in getattr(m, "scale_extra_dirs", ()):
        w.mkdir(extra.devpath)
        w.file(extra.devpath + "/uevent", "", 0o644)
    for dev in m.devices:
        path = dev.legacy_devpath()
        w.mkdir(path)
        w.file(path + "/uevent", dev.uevent("legacy"), 0o644)
        write_attrs(w, path, dev)
        if dev.devt:
            w.file(path + "/dev", "%d:%d\n" % dev.devt[1:])
        if dev.kind != "class" or dev.is_partition():
            continue
        phys = dev.physical_parent()
        if phys is not None:
            w.link(path + "/device", phys.devpath)
            back = "block" if dev.subsystem == "block" else "%s:%s" % (dev.subsystem, dev.sysname)
            w.link(phys.devpath + "/" + back, path)
    write_bus_side(w, m)


# ---------------------------------------------------------------------------------------------
# Broken conversions (converted layout only). Each function edits the written tree.

def _rewrite(root, path, content, mode=0o444):
    os.unlink(root + path)
    fd = os.open(root + path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    os.write(fd, content.encode())
    os.close(fd)


def _relink(root, path, target):
    os.unlink(root + path)
    os.symlink(os.path.relpath(target, os.path.dirname(path)), root + path)


def break_lost_dev(m, root):
    dev = m.by_path["/devices/virtual/mem/null"]
    os.unlink(root + dev.devpath + "/dev")
    return dev


def break_devt_changed(m, root):
    dev = m.by_path["/devices/platform/i8042/serio0/input/input0/event0"]
    _rewrite(root, dev.devpath + "/dev", "13:80\n")
    _rewrite(root, dev.devpath + "/uevent", dev.uevent("converted").replace("MINOR=64\n", "MINOR=80\n"), 0o644)
    os.unlink(root + "/dev/char/13:64")
    os.symlink(os.path.relpath(dev.devpath, "/dev/char"), root + "/dev/char/13:80")
    return dev


def break_renamed(m, root):
    dev = m.by_path["/devices/platform/serial8250/tty/ttyS3"]
    new = "/devices/platform/serial8250/tty/ttyS8"
    os.rename(root + dev.devpath, root + new)
    _rewrite(root, new + "/uevent", dev.uevent("converted").replace("DEVNAME=ttyS3", "DEVNAME=ttyS8"), 0o644)
    os.unlink(root + "/class/tty/ttyS3")
    os.symlink(os.path.relpath(new, "/class/tty"), root + "/class/tty/ttyS8")
    _relink(root, "/dev/char/4:67", new)
    return dev


def break_reparented(m, root):
    dev = m.by_path["/devices/platform/serial8250/tty/ttyS1"]
    new = "/devices/platform/i8042/tty/ttyS1"
    os.mkdir(root + "/devices/platform/i8042/tty", 0o755)
    os.rename(root + dev.devpath, root + new)
    _relink(root, new + "/device", "/devices/platform/i8042")
    _relink(root, "/class/tty/ttyS1", new)
    _relink(root, "/dev/char/4:65", new)
    return dev


def break_dir_without_dev(m, root):
    dev = m.by_path["/devices/platform/serial8250/tty/ttyS2"]
    os.unlink(root + "/class/tty/ttyS2")
    os.mkdir(root + "/class/tty/ttyS2", 0o755)
    fd = os.open(root + "/class/tty/ttyS2/uevent", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"DEVNAME=ttyS2\n")
    os.close(fd)
    return dev


def break_duplicate(m, root):
    dev = m.by_path["/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda"]
    os.unlink(root + "/block/sda")
    w = Writer(root)
    w.dirs.add("/block")
    w.mkdir("/block/sda")
    w.file("/block/sda/dev", "8:0\n")
    w.file("/block/sda/uevent", "MAJOR=8\nMINOR=0\nDEVNAME=sda\n", 0o644)
    w.link("/block/sda/device", dev.parent.devpath)
    return dev


BREAKS = {
    "lost-dev": (break_lost_dev, "mem/null has no dev attribute"),
    "devt-changed": (break_devt_changed, "input/event0 is 13:80 instead of 13:64"),
    "renamed": (break_renamed, "tty/ttyS3 is named ttyS8"),
    "reparented": (break_reparented, "tty/ttyS1 moved from platform/serial8250 to platform/i8042"),
    "dir-without-dev": (break_dir_without_dev, "/class/tty/ttyS2 is a directory without dev"),
    "duplicate": (break_duplicate, "sda is both the legacy directory /block/sda and the symlink /class/block/sda"),
}


# ---------------------------------------------------------------------------------------------

def manifest(m, layout, broken=None):
    devices = []
    for dev in m.devices:
        phys = dev.physical_parent() if dev.kind == "class" else dev.parent
        devices.append({
            "devpath": dev.devpath,
            "legacy_devpath": dev.legacy_devpath(),
            "kind": dev.kind,
            "subsystem": dev.subsystem,
            "sysname": dev.sysname,
            "devtype": dev.devtype,
            "devt": {"type": dev.devt[0], "major": dev.devt[1], "minor": dev.devt[2]} if dev.devt else None,
            "devname": dev.devname,
            "devmode": "%04o" % dev.devmode if dev.devmode else None,
            "parent": dev.parent.devpath if dev.parent else None,
            "legacy_parent": phys.devpath if phys else None,
            "driver": dev.driver,
        })
    out = {"layout": layout, "devices": devices}
    if broken:
        kind, dev = broken
        out["break"] = {"kind": kind, "devpath": dev.devpath, "description": BREAKS[kind][1]}
    return out


def main(argv):
    ap = argparse.ArgumentParser(description="Generate a fake sysfs tree (see the header of this file).")
    ap.add_argument("--layout", choices=("converted", "legacy"), default="converted")
    ap.add_argument("--break", dest="break_kind", choices=sorted(BREAKS), help="write a broken conversion")
    ap.add_argument("--scale", type=int, metavar="N", help="generate N synthetic devices instead of the machine")
    ap.add_argument("--manifest", metavar="FILE", help="write a JSON manifest of the device table")
    ap.add_argument("--zoo", action="store_true",
                    help="add more buses and storage transports (SAS, iSCSI, FC, Hyper-V, NVMe multipath, ...)")
    ap.add_argument("--long-bits", choices=("32", "64"), default=os.environ.get("DEVMAN_LONG_BITS") or "64",
                    help="width of the input bitmaps' words (default $DEVMAN_LONG_BITS, else 64)")
    ap.add_argument("outdir")
    args = ap.parse_args(argv)
    if args.long_bits not in ("32", "64"):  # argparse does not check a default
        ap.error("DEVMAN_LONG_BITS must be 32 or 64, not %r" % args.long_bits)
    global LONG_BITS
    LONG_BITS = int(args.long_bits)

    if args.break_kind and args.layout != "converted":
        ap.error("--break needs --layout converted")
    if args.break_kind and args.scale is not None:
        ap.error("--break and --scale exclude each other")
    if args.scale is not None and args.scale < 1:
        ap.error("--scale needs N >= 1")
    if os.path.lexists(args.outdir) and (not os.path.isdir(args.outdir) or os.listdir(args.outdir)):
        ap.error("%s exists and is not an empty directory" % args.outdir)

    os.umask(0)
    m = build_scale(args.scale) if args.scale is not None else build_machine()
    if args.zoo:
        if args.scale is not None:
            ap.error("--zoo and --scale exclude each other")
        add_zoo(m)
    root = os.path.abspath(args.outdir)
    os.makedirs(root, 0o755, exist_ok=True)
    (write_converted if args.layout == "converted" else write_legacy)(m, root)
    broken = None
    if args.break_kind:
        broken = (args.break_kind, BREAKS[args.break_kind][0](m, root))
    if args.manifest:
        with open(args.manifest, "w") as f:
            json.dump(manifest(m, args.layout, broken), f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
