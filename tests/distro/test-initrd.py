#!/usr/bin/env python3
"""distro-initramfs's checks (initrd.py) on made-up reports, no VM: a good boot passes, and each
way the handover or the initramfs can go wrong is caught. In the default run (suite unit)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "helpers"))

import initrd  # noqa: E402
import tap  # noqa: E402

UUID = initrd.image.ROOT_UUID
LINK = initrd.ROOT_LINK
expect = tap.check


def report(stamp=None, rootsrc=LINK, kmsg=(), handover=None, events=None, db=None, journal=()):
    stamp = stamp if stamp is not None else [
        "start 7.40", "settled 13.75 0", "root UUID=%s %s" % (UUID, LINK), "exited 16.42"]
    handover = handover if handover is not None else [
        "c4:1\t/devices/virtual/tty/tty1", "b254:0\t/devices/pci0000:00/0000:00:02.0/virtio0/block/vda"]
    events = events if events is not None else [
        "1200 add /devices/virtual/block/loop0",  # made after the switch: kernel add ...
        "1300 add /devices/virtual/tty/tty1",
        "1301 add /devices/pci0000:00/0000:00:02.0/virtio0/block/vda",
        "1302 add /devices/virtual/block/loop0",  # ... and the trigger's: allowed
    ]
    db = db if db is not None else ["/devices/virtual/tty/tty1",
                                    "/devices/pci0000:00/0000:00:02.0/virtio0/block/vda",
                                    "/devices/virtual/block/loop0"]
    lines = ["== stamp"] + stamp + [
        "== rootmount", "26 1 254:0 / / rw,relatime shared:1 - ext4 %s rw" % rootsrc,
        "== by-uuid", "%s /dev/vda" % LINK, "== kmsg"] + list(kmsg)
    if handover is not False:
        lines += ["== handover"] + handover + ["== events"] + events
    lines.append("== end")
    dblines = []
    for d in db:
        dblines += ["P: " + d, "E: DEVPATH=" + d, ""]
    return {"sections": {"initramfs": lines, "db": dblines, "journal-manager-all": list(journal)}}


REF = report()
REF_CONSOLE = "Loading, please wait...\nStarting systemd-udevd version 252.39-1~deb12u2\n"


def problems(rep, console="Loading, please wait...\n", ref=REF):
    return initrd.check_initramfs(rep, ref, console, REF_CONSOLE)


good = problems(report())
expect(good == [], "a good boot passes (%s)" % good)


def caught(what, rep=None, console="Loading, please wait...\n", word=""):
    p = problems(rep if rep is not None else report(), console)
    expect(any(word in x for x in p), "%s is caught (%s)" % (what, p))


caught("no stamp", report(stamp=[]), word="no stamp")
caught("settle failing", report(stamp=["start 1", "settled 9 1", "root UUID=%s %s" % (UUID, LINK), "exited 10"]),
       word="settle")
caught("devmand not exiting", report(stamp=["start 1", "settled 9 0", "root UUID=%s %s" % (UUID, LINK),
                                            "exit-timeout 20"]), word="did not exit")
caught("root= left to blkid", report(stamp=["start 1", "settled 9 0", "exited 10"]), word="root=")
caught("/ mounted from /dev/vda", report(rootsrc="/dev/vda"), word="mounted from")
caught("udevd on the console", console="Starting systemd-udevd version 252\n", word="udevd ran")
caught("udevd in the kernel log", report(kmsg=["[ 1.0] host systemd-udevd[99]: Starting version"]),
       word="udevd ran")
caught("a crash taken", report(journal=["devmand[5]: The previous daemon did not exit cleanly: reconciling"]),
       word="crash")
caught("a replay by reconcile", report(journal=[
    "devmand[5]: Reconciled with the previous state: 0 stale entries, 0 stale nodes, 0 stale link claims "
    "removed; 3 devices to process"]), word="replayed")
caught("a handed-over device processed twice", report(events=[
    "1300 add /devices/virtual/tty/tty1", "1310 add /devices/virtual/tty/tty1",
    "1301 add /devices/pci0000:00/0000:00:02.0/virtio0/block/vda"]), word="exactly once")
caught("a handed-over device not processed", report(events=["1300 add /devices/virtual/tty/tty1"]),
       word="exactly once")
caught("a synthetic event", report(events=[
    "1300 add /devices/virtual/tty/tty1", "1301 add /devices/pci0000:00/0000:00:02.0/virtio0/block/vda",
    "- add /devices/virtual/block/loop0"]), word="seqnum")
caught("two drivers whose names differ after a space, one processed twice", report(
    handover=["c4:1\t/devices/virtual/tty/tty1", "+drivers:pnp:i8042 kbd\t/bus/pnp/drivers/i8042 kbd",
              "+drivers:pnp:i8042 aux\t/bus/pnp/drivers/i8042 aux"],
    events=["1300 add /devices/virtual/tty/tty1", "1301 add /bus/pnp/drivers/i8042 kbd",
            "1302 add /bus/pnp/drivers/i8042 kbd", "1303 add /bus/pnp/drivers/i8042 aux"],
    db=["/devices/virtual/tty/tty1"]), word="(devpath, adds), e.g. [('/bus/pnp/drivers/i8042 kbd', 2)]")
p = problems(report(
    handover=["c4:1\t/devices/virtual/tty/tty1", "+drivers:pnp:i8042 kbd\t/bus/pnp/drivers/i8042 kbd",
              "+drivers:pnp:i8042 aux\t/bus/pnp/drivers/i8042 aux"],
    events=["1300 add /devices/virtual/tty/tty1", "1301 add /bus/pnp/drivers/i8042 kbd",
            "1303 add /bus/pnp/drivers/i8042 aux"],
    db=["/devices/virtual/tty/tty1"]), ref=report(db=["/devices/virtual/tty/tty1"]))
expect(p == [], "devpaths with spaces, each processed once, pass (%s)" % p)
caught("no recording", report(handover=False), word="no events")
caught("a database entry of no device", report(handover=["c4:1\t/devices/virtual/tty/tty1", "c9:9\t-"]),
       word="no device")
caught("a device twice in the database", report(db=["/devices/virtual/tty/tty1", "/devices/virtual/tty/tty1",
                                                     "/devices/pci0000:00/0000:00:02.0/virtio0/block/vda",
                                                     "/devices/virtual/block/loop0"]), word="more than once")
caught("a device missing against the reference", report(db=["/devices/virtual/tty/tty1",
                                                             "/devices/virtual/block/loop0"]), word="reference")
renumbered = ["/devices/virtual/tty/tty1", "/devices/pci0000:00/0000:00:02.0/virtio0/block/vda",
              "/devices/virtual/block/loop0", "/devices/platform/i8042/serio0/input/input3",
              "/devices/platform/i8042/serio0/input/input3/input3::capslock"]
input_events = ["1300 add /devices/virtual/tty/tty1", "1301 add /devices/pci0000:00/0000:00:02.0/virtio0/block/vda",
                "1302 add /devices/virtual/block/loop0"] + ["%d add %s" % (1310 + i, d) for i, d in enumerate(renumbered[3:])]
p = problems(report(db=renumbered, events=input_events),
             ref=report(db=[d.replace("input3", "input4") for d in renumbered]))
expect(p == [], "input devices numbered otherwise than in the reference pass (%s)" % p)
p = problems(report(db=renumbered, events=input_events), ref=report(db=renumbered[:3] + [renumbered[3]]))
expect(any("reference" in x for x in p), "an input device missing against the reference is caught (%s)" % p)
p = initrd.check_initramfs(report(), REF, "", "no udevd here\n")
expect(any("proves nothing" in x for x in p), "a reference without udevd on its console is caught (%s)" % p)

LISTING = """drwxr-xr-x   2 root root 0 Dec  6 03:29 scripts/init-top
-rwxr-xr-x   1 root root 2169 Dec  6 03:26 scripts/init-top/devman
-rwxr-xr-x   1 root root 1808 Dec  6 03:26 scripts/init-bottom/devman
-rwxr-xr-x   1 root root 324888 Dec  6 03:27 usr/bin/devmanadm
lrwxrwxrwx   1 root root 18 Dec  6 03:29 usr/bin/udevadm -> /usr/bin/devmanadm
-rw-r--r--   1 root root 2324 Dec  6 03:21 usr/lib/udev/rules.d/60-devman-storage.rules
-rwxr-xr-x   1 root root 1747536 Dec  6 03:27 usr/sbin/devmand
"""
expect(initrd.check_listing(LISTING) == [], "a devman initramfs listing passes (%s)" % initrd.check_listing(LISTING))
udev_listing = LISTING.replace("usr/bin/udevadm -> /usr/bin/devmanadm", "usr/bin/udevadm") + \
    "-rwxr-xr-x   1 root root 9 Dec  6 03:29 usr/lib/systemd/systemd-udevd\n" + \
    "-rwxr-xr-x   1 root root 9 Dec  6 03:29 scripts/init-top/udev\n"
p = initrd.check_listing(udev_listing)
expect(len(p) == 3, "udevd, udev's script and udev's udevadm in the image are caught (%s)" % p)
p = initrd.check_listing(LISTING.replace("usr/sbin/devmand\n", "usr/sbin/other\n"))
expect(any("devmand" in x for x in p), "a missing devmand is caught (%s)" % p)

tap.finish()
