#!/usr/bin/env python3
"""The sysvinit boots' checks and database comparison (sysvinit.py) on hand-written reports
(no VM)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "helpers"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "vm"))

import guestreport  # noqa: E402
import sysvinit as s  # noqa: E402
import tap  # noqa: E402

expect = tap.check


DB = ["P: /devices/pci0000:00/0000:00:03.0/virtio1/block/vdb", "M: vdb", "N: vdb", "L: 0",
      "S: disk/by-id/virtio-devman-data", "S: disk/by-path/pci-0000:00:03.0",
      "E: DEVLINKS=/dev/disk/by-id/virtio-devman-data /dev/disk/by-path/pci-0000:00:03.0",
      "E: ID_SERIAL=devman-data", "E: TAGS=:systemd:", "E: USEC_INITIALIZED=1234", "",
      "P: /devices/virtual/mem/null", "N: null", "E: DEVNAME=/dev/null"]
CYCLE = ["x is running.", "status rc 0", "stop rc 0", "stopped-status rc 3", "start rc 0",
         "restarted-status rc 0", "restart rc 0", "after-restart-status rc 0", "reload rc 0", "trigger rc 0", "settle rc 0", "ID_SERIAL=devman-data"]


def report(variant, manager, runlevel="N 2", db=DB, cycle=CYCLE, getty=True, init=None,
           warnings=(), done=True):
    out = ["@@STATE " + runlevel, "@@MANAGER " + manager, "@@VARIANT " + variant]
    body = {
        "init": init or ["/usr/sbin/init", "init"],
        "getty": ["  887 ttyS0    getty"] if getty else [],
        "mounts": ["/ /dev/vda ext4", "/mnt/label /dev/vdb1 ext4", "/mnt/uuid /dev/vdb2 ext4"],
        "links": ["1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536", "2: ens4: <BROADCAST> mtu 1500 state UP"],
        "dev-find": ["/dev/vdb b 660 root disk ", "/dev/null c 666 root root "],
        "db": db,
        "udevadm-info": ["N: vdb", "S: disk/by-id/virtio-devman-data", "E: ID_SERIAL=devman-data"],
        "manager-warnings": list(warnings),
        "init-script": cycle,
    }
    for name in s.SECTIONS:
        out += ["@@BEGIN " + name] + body.get(name, ["x"]) + ["@@END 0 " + name]
    if done:
        out.append("@@DONE")
    return guestreport.parse("\n".join(out))


ref = report("sysvinit-udev", "udev")
dm = report("sysvinit-devman", "devman")
expect(s.check_boot(ref, "sysvinit-udev", "2") == [], "a good udev boot passes: %s" % s.check_boot(ref, "sysvinit-udev", "2"))
expect(s.check_boot(dm, "sysvinit-devman", "2") == [], "a good devman boot passes")
expect(s.compare(ref, dm) == [], "identical boots compare equal")


def fails(rep, word, what):
    p = s.check_boot(rep, "sysvinit-devman", "2")
    expect(any(word in x for x in p), "%s is caught (%s)" % (what, p))


fails(report("sysvinit-devman", "devman", runlevel="N S"), "runlevel", "runlevel S")
fails(report("sysvinit-devman", "udev"), "device manager", "the wrong manager")
fails(report("sysvinit-devman", "devman", getty=False), "getty", "no getty on ttyS0")
fails(report("sysvinit-devman", "devman", init=["/lib/systemd/systemd", "systemd"]), "PID 1", "systemd as PID 1")
fails(report("sysvinit-devman", "devman", cycle=[c.replace("stopped-status rc 3", "stopped-status rc 0") for c in CYCLE]),
      "stopped-status rc 3", "status 0 after stop")
fails(report("sysvinit-devman", "devman", cycle=CYCLE + ["control socket left"]), "left /run/udev/control", "a control socket after stop")
fails(report("sysvinit-devman", "devman", warnings=["devmand[12]: bad rule"]), "warning from devmand", "a devmand warning")
fails(report("sysvinit-devman", "devman", done=False), "incomplete", "a report without @@DONE")

# the database: order of DEVLINKS, TAGS and S lines and time stamps do not matter, values do
shuffled = [line.replace("E: USEC_INITIALIZED=1234", "E: USEC_INITIALIZED=99")
            .replace("/dev/disk/by-id/virtio-devman-data /dev/disk/by-path/pci-0000:00:03.0",
                     "/dev/disk/by-path/pci-0000:00:03.0 /dev/disk/by-id/virtio-devman-data") for line in DB]
shuffled[4], shuffled[5] = shuffled[5], shuffled[4]
expect(s.db_differences(ref, report("sysvinit-devman", "devman", db=shuffled)) == [], "link order and time stamps are no difference")
changed = [line.replace("E: ID_SERIAL=devman-data", "E: ID_SERIAL=other") for line in DB]
d = s.db_differences(ref, report("sysvinit-devman", "devman", db=changed))
expect([x[0] for x in d] == ["db /devices/pci0000:00/0000:00:03.0/virtio1/block/vdb E:ID_SERIAL"], "a changed property is found: %s" % d)
d = s.db_differences(ref, report("sysvinit-devman", "devman", db=DB[:11]))
expect([x[0] for x in d] == ["db-missing /devices/virtual/mem/null"], "a missing device is found: %s" % d)
d = s.db_differences(ref, report("sysvinit-devman", "devman", db=[x for x in DB if not x.startswith("S: disk/by-path")]))
expect([x[0] for x in d] == ["db /devices/pci0000:00/0000:00:03.0/virtio1/block/vdb S"], "a missing link is found: %s" % d)
expect(len(s.compare(ref, report("sysvinit-devman", "devman", db=changed))) == 1, "compare fails on a database difference")

# the kernel's input numbers differ between boots: compared as input*, unless ambiguous
INPUT = ["P: /devices/platform/i8042/serio1/input/input%d", "E: DEVPATH=/devices/platform/i8042/serio1/input/input%d",
         "E: ID_INPUT_MOUSE=1", "", "P: /devices/platform/i8042/serio1/input/input%d/event%d", "N: input/event%d"]


def inputs(*numbers):
    return report("x", "devman", db=[line.replace("%d", str(n)) for n in numbers for line in INPUT + [""]])


expect(s.db_differences(inputs(2), inputs(3)) == [], "input2 and input3 under the same parent are the same device")
d = [x[0] for x in s.db_differences(inputs(2, 5), inputs(3, 5))]
# (their event nodes are named after serio1 and numbered in order: event<serio1>#0 and #1 alike)
expect(d == ["db-missing /devices/platform/i8042/serio1/input/input2",
             "db-extra /devices/platform/i8042/serio1/input/input3"],
       "two inputs under one parent keep their numbers: %s" % d)

# a USB keyboard and tablet that probed the other way round: event and hidraw nodes, HID
# instances and minors follow the USB interface
HID = ["P: /devices/pci0000:00/0000:00:05.0/usb2/2-%(port)d/2-%(port)d:1.0/0003:0627:0001.%(hid)04d/input/input%(inp)d/event%(ev)d",
       "N: input/event%(ev)d", "S: input/by-path/pci-0000:00:05.0-usb-0:%(port)d:1.0-event", "E: MAJOR=13",
       "E: MINOR=%(minor)d", "E: ID_MODEL=%(model)s", "",
       "P: /devices/pci0000:00/0000:00:05.0/usb2/2-%(port)d/2-%(port)d:1.0/0003:0627:0001.%(hid)04d/hidraw/hidraw%(raw)d",
       "N: hidraw%(raw)d", "E: MAJOR=245", "E: MINOR=%(raw)d", ""]


def hids(*devices):
    db = [line % dict(zip(("port", "model", "hid", "inp", "ev", "raw"), d), minor=64 + d[4]) for d in devices for line in HID]
    links = ["/dev/input/by-path/pci-0000:00:05.0-usb-0:%d:1.0-event l 0777 root root ../input/event%d" % (d[0], d[4])
             for d in devices]
    r = report("x", "devman", db=db)
    r["sections"]["dev-find"] = links
    return r


kbd_first = hids((1, "Keyboard", 1, 5, 4, 0), (2, "Tablet", 2, 6, 5, 1))
tablet_first = hids((1, "Keyboard", 2, 6, 5, 1), (2, "Tablet", 1, 5, 4, 0))
expect(s.db_differences(kbd_first, tablet_first) == [] and guestreport.differences(kbd_first, tablet_first) == [],
       "keyboard and tablet probed the other way round: the same devices, nodes and links")
# the devices really on the other ports: still found
wrong = hids((1, "Tablet", 1, 5, 4, 0), (2, "Keyboard", 2, 6, 5, 1))
d = [x[0] for x in s.db_differences(kbd_first, wrong)]
usb = "db /devices/pci0000:00/0000:00:05.0/usb2/2-%d/2-%d:1.0/0003:0627:0001.<2-%d:1.0>/input/input*/event<2-%d:1.0> E:ID_MODEL"
expect(d == [usb % (1, 1, 1, 1), usb % (2, 2, 2, 2)], "a keyboard and tablet on each other's ports are found: %s" % d)

W = "P: /devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A03:00/QEMU0002:00/wakeup/wakeup%d"
expect(s.db_differences(report("x", "udev", db=[W % 13]), report("x", "devman", db=[W % 12])) == [],
       "wakeup12 and wakeup13 under the same parent are the same device")

tap.finish()
