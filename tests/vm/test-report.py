#!/usr/bin/env python3
"""Unit test of report.py: parses a hand-written guest report in init.sh's format."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

SAMPLE = """\
@@STEP before
@@SECTION dev
/dev|directory|755|root|root|0:0|1
/dev/null|character special file|666|root|root|1:3|5
@@ENDSTEP before
@@STARTED-BY devman.rcS
@@TIMING start=3.25 settle=7.5 ready=7.75
@@WARN time-out waiting for 2 of /sys/class/block/vd? (have 1)
@@STEP coldplug
@@UPTIME 7.80
@@SECTION dev
/dev/vda|block special file|660|root|disk|fe:0|20
/dev/vda1|block special file|660|root|disk|fe:1|21
/dev/disk|directory|755|root|root|0:0|30
/dev/disk/by-label/X|link|'/dev/disk/by-label/X' -> '../../vda1'
@@SECTION datafiles
/run/udev/data/b254:0
/run/udev/data/+acpi:ACPI0010:00
/run/udev/data/c1:3
@@SECTION data
/run/udev/data/b254:0:S:disk/by-id/virtio-x
/run/udev/data/b254:0:E:ID_A=b:c
/run/udev/data/+acpi:ACPI0010:00:I:4716619
@@SECTION tags
systemd/b254:0
@@SECTION run
/run/udev
/run/udev/control
@@SECTION exportdb
P: /devices/virtual/block/vda
N: vda
S: disk/by-id/virtio-x
L: 0
E: DEVNAME=/dev/vda
E: ID_A=b=c

P: /devices/virtual/mem/null
N: null
E: DEVMODE=0666

@@SECTION libinput
Device:           QEMU QEMU USB Keyboard
Kernel:           /dev/input/event1
Capabilities:     keyboard

Device:           Other
Kernel:           /dev/input/event2
@@SECTION modules
virtio_blk
@@SECTION net
ens7
lo
@@ENDSTEP coldplug
@@FILE snapshot
devman-snapshot 1
@@SECTION not a section inside a file
end
@@ENDFILE snapshot
@@RC snapshot 0
@@FILE compare
@@ENDFILE compare
@@RC compare 1
@@DONE
"""


def main():
    r = report.parse(SAMPLE)
    assert r["done"] and r["fatal"] is None
    assert r["timing"] == {"start": 3.25, "settle": 7.5, "ready": 7.75}, r["timing"]
    assert r["started_by"] == "devman.rcS", r.get("started_by")
    assert r["warnings"] == ["time-out waiting for 2 of /sys/class/block/vd? (have 1)"]
    b = r["steps"]["before"]
    assert b["dev"]["/dev/null"] == {"type": "c", "mode": "0666", "owner": "root", "group": "root",
                                     "devt": "1:3", "inode": 5}, b["dev"]["/dev/null"]
    c = r["steps"]["coldplug"]
    assert c["uptime"] == 7.8
    assert c["dev"]["/dev/vda1"]["devt"] == "254:1" and c["dev"]["/dev/vda1"]["type"] == "b"
    assert c["dev"]["/dev/disk"]["devt"] is None and c["dev"]["/dev/disk"]["type"] == "d"
    assert c["links"] == {"/dev/disk/by-label/X": "../../vda1"}, c["links"]
    assert c["data"] == {"b254:0": ["S:disk/by-id/virtio-x", "E:ID_A=b:c"],
                         "+acpi:ACPI0010:00": ["I:4716619"], "c1:3": []}, c["data"]
    assert c["tags"] == ["systemd/b254:0"] and "/run/udev/control" in c["run"]
    vda = c["exportdb"]["/devices/virtual/block/vda"]
    assert vda["N"] == "vda" and vda["S"] == ["disk/by-id/virtio-x"] and vda["L"] == "0"
    assert vda["E"] == {"DEVNAME": "/dev/vda", "ID_A": "b=c"}, vda["E"]
    assert c["exportdb"]["/devices/virtual/mem/null"]["E"] == {"DEVMODE": "0666"}
    assert [d["Device"] for d in c["libinput"]] == ["QEMU QEMU USB Keyboard", "Other"]
    assert c["libinput"][0]["Capabilities"] == "keyboard"
    assert c["modules"] == ["virtio_blk"] and c["net"] == ["ens7", "lo"]

    assert r["files"] == {"snapshot": "devman-snapshot 1\n@@SECTION not a section inside a file\nend\n",
                          "compare": ""}, r["files"]
    assert r["rc"] == {"snapshot": 0, "compare": 1}, r["rc"]
    assert "not a section inside a file" not in c

    bad = report.parse("@@STEP x\n@@FATAL no disk\n")
    assert bad["fatal"] == "no disk" and not bad["done"]
    for broken in ("@@STEP x\n@@SECTION dev\n/dev/x|only|three\n@@ENDSTEP x\n",
                   "@@STEP x\n@@SECTION datafiles\n/run/udev/data/a\n@@SECTION data\n/run/udev/data/b:x\n@@ENDSTEP x\n"):
        try:
            report.parse(broken)
        except ValueError:
            pass
        else:
            raise AssertionError("accepted a broken report: %r" % broken)
    print("report.py: 1 passed, 0 failed")


if __name__ == "__main__":
    main()
