"""What any correct device manager must leave in the guest, derived from the hardware the host
gives it (qemu.py, images.py) and from Debian's stock rules -- never from a manager's output.
Each function returns a list of problems (empty: fine)."""

import fnmatch
import os

import images

STEPS = ["coldplug", "disk-add", "disk-remove", "usb-add", "usb-remove", "uinput-add", "uinput-remove"]
UINPUT_NAME = "devman-vm-uinput"


def resolve(link, target):
    return os.path.normpath(os.path.join(os.path.dirname(link), target))


class Step:
    def __init__(self, name, data):
        self.name = name
        self.d = data
        self.problems = []

    def fail(self, msg):
        self.problems.append("%s: %s" % (self.name, msg))

    def node(self, path, kind, group=None, mode=None, devt=None):
        n = self.d["dev"].get(path)
        if n is None:
            self.fail("no %s" % path)
            return None
        if n["type"] != kind:
            self.fail("%s is of type %s, not %s" % (path, n["type"], kind))
        if group is not None and n["group"] != group:
            self.fail("%s has group %s, not %s" % (path, n["group"], group))
        if mode is not None and n["mode"] != mode:
            self.fail("%s has mode %s, not %s" % (path, n["mode"], mode))
        if devt is not None and n["devt"] != devt:
            self.fail("%s is %s, not %s" % (path, n["devt"], devt))
        return n

    def link(self, path, target):
        t = self.d["links"].get(path)
        if t is None:
            self.fail("no link %s (-> %s)" % (path, target))
        elif resolve(path, t) != target:
            self.fail("%s -> %s, not %s" % (path, resolve(path, t), target))

    def link_glob(self, pattern):
        """The one link matching pattern, resolved; None (and a problem) when not one."""
        hits = [p for p in self.d["links"] if fnmatch.fnmatch(p, pattern)]
        if len(hits) != 1:
            self.fail("%d links match %s, expected one" % (len(hits), pattern))
            return None
        return resolve(hits[0], self.d["links"][hits[0]])

    def absent(self, devname):
        if devname in self.d["dev"]:
            self.fail("%s still exists" % devname)
        for p, t in self.d["links"].items():
            if resolve(p, t) == devname:
                self.fail("link %s still points to removed %s" % (p, devname))
        for devpath, dev in self.d["exportdb"].items():
            if dev["E"].get("DEVNAME") == devname:
                self.fail("udevadm still lists %s (%s)" % (devname, devpath))

    def device_by_devname(self, devname):
        for devpath, dev in self.d["exportdb"].items():
            if dev["E"].get("DEVNAME") == devname:
                return devpath, dev
        self.fail("udevadm lists no device %s" % devname)
        return None, None

    def prop(self, devname, key, value):
        _, dev = self.device_by_devname(devname)
        if dev is not None and dev["E"].get(key) != value:
            self.fail("%s: %s=%r, expected %r" % (devname, key, dev["E"].get(key), value))

    def module(self, name):
        if name not in self.d["modules"]:
            self.fail("module %s was not loaded (the manager's kmod builtin loads it by MODALIAS)" % name)

    def libinput(self, name, capability):
        hits = [d for d in self.d["libinput"] if d.get("Device") == name]
        if len(hits) != 1:
            self.fail("libinput lists %d devices named %r, expected one" % (len(hits), name))
            return
        if capability not in hits[0].get("Capabilities", "").split():
            self.fail("libinput: %r lacks capability %s" % (name, capability))
        if not hits[0].get("Seat", "").startswith("seat0"):
            self.fail("libinput: %r is not on seat0" % name)


def consistency(s, devtmpfs):
    """Nodes, links and the database agree with each other and with the kernel's devices."""
    d = s.d
    kernel_nodes = {}
    for devpath, dev in d["exportdb"].items():
        e = dev["E"]
        if "DEVNAME" in e and "MAJOR" in e:
            kind = "b" if e.get("SUBSYSTEM") == "block" else "c"
            kernel_nodes[e["DEVNAME"]] = (kind, "%s:%s" % (e["MAJOR"], e["MINOR"]), devpath)
    for name, (kind, devt, devpath) in sorted(kernel_nodes.items()):
        n = d["dev"].get(name)
        if n is None:
            s.fail("no node %s for %s" % (name, devpath))
        elif (n["type"], n["devt"]) != (kind, devt):
            s.fail("%s is %s %s, the kernel's device is %s %s" % (name, n["type"], n["devt"], kind, devt))
        # udevd 252 writes a database file (empty when there is nothing to say) for every
        # device with a node: its existence is what makes libudev call the device initialized.
        dbid = "%s%s" % (kind, devt)
        if dbid not in d["data"]:
            s.fail("no database entry /run/udev/data/%s for %s" % (dbid, name))
    for path, n in sorted(d["dev"].items()):
        if n["type"] in ("b", "c") and path not in kernel_nodes:
            s.fail("%s (%s %s) belongs to no device" % (path, n["type"], n["devt"]))
    for path, target in sorted(d["links"].items()):
        if resolve(path, target) not in d["dev"] and resolve(path, target) not in d["links"]:
            s.fail("dangling link %s -> %s" % (path, target))
    if "/run/udev/control" not in d["run"]:
        s.fail("no /run/udev/control (libudev clients then ignore the udev monitor)")


def coldplug(s):
    for dev in ("/dev/vda", "/dev/vda1", "/dev/vda2", "/dev/sda", "/dev/sda1"):
        s.node(dev, "b", group="disk", mode="0660")
    s.link("/dev/disk/by-id/virtio-" + images.DISK0_SERIAL, "/dev/vda")
    s.link("/dev/disk/by-id/virtio-%s-part1" % images.DISK0_SERIAL, "/dev/vda1")
    s.link("/dev/disk/by-id/ata-QEMU_HARDDISK_" + images.SATA_SERIAL, "/dev/sda")
    s.link("/dev/disk/by-label/" + images.EXT4_LABEL, "/dev/vda1")
    s.link("/dev/disk/by-label/" + images.VFAT_LABEL, "/dev/vda2")
    s.link("/dev/disk/by-label/" + images.SATA_LABEL, "/dev/sda1")
    s.link("/dev/disk/by-uuid/" + images.EXT4_UUID, "/dev/vda1")
    s.link("/dev/disk/by-uuid/%s-%s" % (images.VFAT_ID[:4], images.VFAT_ID[4:]), "/dev/vda2")
    s.link("/dev/disk/by-uuid/" + images.SATA_UUID, "/dev/sda1")
    s.link("/dev/disk/by-partuuid/" + images.EXT4_PARTUUID, "/dev/vda1")
    s.link("/dev/disk/by-partuuid/" + images.VFAT_PARTUUID, "/dev/vda2")
    s.link("/dev/disk/by-partuuid/%s-01" % images.SATA_DISKID[2:], "/dev/sda1")
    s.link("/dev/disk/by-partlabel/vmext4", "/dev/vda1")
    s.link("/dev/block/254:0", "/dev/vda")
    s.prop("/dev/vda1", "ID_FS_TYPE", "ext4")
    s.prop("/dev/vda2", "ID_FS_TYPE", "vfat")
    s.prop("/dev/sda", "ID_BUS", "ata")

    kbd = s.link_glob("/dev/input/by-id/usb-QEMU_QEMU_USB_Keyboard_*-event-kbd")
    tablet = s.link_glob("/dev/input/by-id/usb-QEMU_QEMU_USB_Tablet_*-event-mouse")
    for ev in (kbd, tablet):
        if ev:
            s.node(ev, "c", group="input", mode="0660")
    if kbd:
        s.prop(kbd, "ID_INPUT_KEYBOARD", "1")
        s.prop(kbd, "ID_BUS", "usb")
    s.libinput("QEMU QEMU USB Keyboard", "keyboard")
    s.libinput("QEMU QEMU USB Tablet", "pointer")

    s.node("/dev/null", "c", mode="0666", devt="1:3")
    s.node("/dev/zero", "c", mode="0666", devt="1:5")
    s.node("/dev/tty", "c", group="tty", mode="0666", devt="5:0")
    s.node("/dev/mem", "c", group="kmem", mode="0640", devt="1:1")
    for i in range(4):
        s.node("/dev/ttyS%d" % i, "c", group="dialout", mode="0660", devt="4:%d" % (64 + i))
    s.node("/dev/hvc0", "c")
    s.node("/dev/rtc0", "c")
    s.link("/dev/rtc", "/dev/rtc0")
    s.node("/dev/uinput", "c", devt="10:223")

    for m in ("virtio_blk", "virtio_net", "ahci", "sd_mod", "xhci_pci", "ehci_pci", "usbhid",
              "hid_generic", "evdev", "e1000"):
        s.module(m)
    nics = [n for n in s.d["net"] if n != "lo"]
    if len(nics) != 2:
        s.fail("expected two network interfaces besides lo, found %s" % nics)
    for devpath, dev in s.d["exportdb"].items():
        e = dev["E"]
        if e.get("SUBSYSTEM") == "net" and e.get("INTERFACE") in nics:
            names = {e.get(k) for k in ("ID_NET_NAME_ONBOARD", "ID_NET_NAME_SLOT", "ID_NET_NAME_PATH")}
            if e["INTERFACE"] not in names:
                s.fail("interface %s was not renamed by 99-default.link's NamePolicy (%s)"
                       % (e["INTERFACE"], sorted(n for n in names if n)))
    for tagged in ("systemd/b254:0", "systemd/b8:0"):
        if tagged not in s.d["tags"]:
            s.fail("no tag %s (99-systemd.rules tags block devices)" % tagged)


def disk_add(s):
    s.node("/dev/vdb", "b", group="disk", mode="0660")
    s.link("/dev/disk/by-id/virtio-" + images.HOTPLUG_SERIAL, "/dev/vdb")
    s.link("/dev/disk/by-label/" + images.HOTPLUG_LABEL, "/dev/vdb")
    s.link("/dev/disk/by-uuid/" + images.HOTPLUG_UUID, "/dev/vdb")


def disk_remove(s):
    s.absent("/dev/vdb")
    if "b254:16" in s.d["data"]:
        s.fail("database entry b254:16 of the removed disk is still there")


def usb_add(s):
    s.node("/dev/sdb", "b", group="disk", mode="0660")
    s.link("/dev/disk/by-label/" + images.USB_LABEL, "/dev/sdb")
    s.link("/dev/disk/by-uuid/%s-%s" % (images.USB_ID[:4], images.USB_ID[4:]), "/dev/sdb")
    target = s.link_glob("/dev/disk/by-id/usb-*_%s-0:0" % images.USB_SERIAL)
    if target and target != "/dev/sdb":
        s.fail("USB stick's by-id link points to %s" % target)
    s.prop("/dev/sdb", "ID_BUS", "usb")
    s.module("usb_storage")


def usb_remove(s):
    s.absent("/dev/sdb")
    if "b8:16" in s.d["data"]:
        s.fail("database entry b8:16 of the removed stick is still there")


def uinput_event(s):
    """The event device of the uinput device, by the NAME of its parent input device."""
    parents = [p for p, dev in s.d["exportdb"].items()
               if dev["E"].get("NAME") == '"%s"' % UINPUT_NAME]
    events = [dev["E"].get("DEVNAME") for p, dev in s.d["exportdb"].items()
              for parent in parents
              if p.startswith(parent + "/") and dev["E"].get("DEVNAME", "").startswith("/dev/input/event")]
    return parents, events


def uinput_add(s):
    parents, events = uinput_event(s)
    if len(parents) != 1 or len(events) != 1:
        s.fail("expected one uinput input device with one event node, found %s %s" % (parents, events))
        return
    s.node(events[0], "c", group="input", mode="0660")
    s.prop(events[0], "ID_INPUT", "1")
    s.prop(events[0], "ID_INPUT_MOUSE", "1")
    s.prop(events[0], "ID_INPUT_KEY", "1")
    s.libinput(UINPUT_NAME, "pointer")


def uinput_remove(s):
    parents, events = uinput_event(s)
    if parents or events:
        s.fail("the uinput device is still listed: %s %s" % (parents, events))
    if any(d.get("Device") == UINPUT_NAME for d in s.d["libinput"]):
        s.fail("libinput still lists %s" % UINPUT_NAME)


PER_STEP = {
    "coldplug": coldplug, "disk-add": disk_add, "disk-remove": disk_remove, "usb-add": usb_add,
    "usb-remove": usb_remove, "uinput-add": uinput_add, "uinput-remove": uinput_remove,
}


def scenario(result, devtmpfs):
    problems = []
    for name in STEPS:
        data = result["steps"].get(name)
        if data is None:
            problems.append("%s: step missing from the report" % name)
            continue
        s = Step(name, data)
        consistency(s, devtmpfs)
        PER_STEP[name](s)
        problems += s.problems
    return problems


def devtmpfs_untouched(result):
    """On devtmpfs the kernel makes the nodes; the manager may only change their owner, group and
    mode and add links: every node from before it started is still the same inode, same devt."""
    before = result["steps"].get("before")
    after = result["steps"].get("coldplug")
    if before is None or after is None:
        return ["no 'before' or 'coldplug' snapshot in the report"]
    problems = []
    for path, n in sorted(before["dev"].items()):
        if n["type"] not in ("b", "c"):
            continue
        m = after["dev"].get(path)
        if m is None:
            problems.append("%s was removed" % path)
        elif (m["type"], m["devt"], m["inode"]) != (n["type"], n["devt"], n["inode"]):
            problems.append("%s was replaced (%s %s inode %d -> %s %s inode %d)" % (
                path, n["type"], n["devt"], n["inode"], m["type"], m["devt"], m["inode"]))
    return problems
