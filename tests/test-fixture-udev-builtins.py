#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The converted fixture tree is realistic enough for the reference udev: systemd-udevd 252's
builtins (udevadm test-builtin path_id, usb_id, input_id, net_id) run against it in a private
mount namespace where the tree is bind-mounted over /sys, and must give what they give on a
real machine of that shape. The expected values are derived by hand from the fixture's
description (PCI slot 00:19.0 is "p0s25", the stick's serial, each input device's kind...),
so later devman builtin tests can share this table.

Needs root, unshare(1) and udevadm; exits 77 (skip) otherwise."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "gen-sysfs.py")

# (builtin, path below /sys) -> properties that must be there with these values
EXPECT = {
    ("path_id", "class/block/sda"): {"ID_PATH": "pci-0000:00:1f.2-ata-1.0", "ID_PATH_TAG": "pci-0000_00_1f_2-ata-1_0",
                                     "ID_PATH_ATA_COMPAT": "pci-0000:00:1f.2-ata-1"},
    ("path_id", "class/block/sda1"): {"ID_PATH": "pci-0000:00:1f.2-ata-1.0"},
    ("path_id", "class/block/sdb"): {"ID_PATH": "pci-0000:00:1d.7-usb-0:1:1.0-scsi-0:0:0:0"},
    ("path_id", "class/block/nvme0n1"): {"ID_PATH": "pci-0000:02:00.0-nvme-1"},
    ("path_id", "class/input/event0"): {"ID_PATH": "platform-i8042-serio-0"},
    ("path_id", "class/input/event2"): {"ID_PATH": "platform-i8042-serio-2"},
    ("path_id", "class/input/event3"): {"ID_PATH": "acpi-PNP0C0D:00"},
    ("path_id", "class/input/event6"): {"ID_PATH": "pci-0000:00:14.0-usb-0:1.1:1.0"},
    ("path_id", "class/input/event9"): {"ID_PATH": "platform-pcspkr"},
    ("path_id", "class/net/eth0"): {"ID_PATH": "pci-0000:00:19.0"},
    ("path_id", "class/net/eth1"): {"ID_PATH": "pci-0000:00:1d.7-usb-0:2:1.0"},
    ("path_id", "class/tty/ttyS0"): {"ID_PATH": "platform-serial8250"},
    ("path_id", "class/usb_device/usbdev3.2"): {"ID_PATH": "pci-0000:00:1d.7-usb-0:1"},
    ("usb_id", "class/block/sdb"): {"ID_BUS": "usb", "ID_VENDOR": "SanDisk", "ID_VENDOR_ID": "0781",
                                    "ID_MODEL": "Cruzer_Blade", "ID_MODEL_ID": "5567", "ID_REVISION": "1.00",
                                    "ID_SERIAL": "SanDisk_Cruzer_Blade_4C530001230817116382-0:0",
                                    "ID_SERIAL_SHORT": "4C530001230817116382", "ID_TYPE": "disk",
                                    "ID_INSTANCE": "0:0", "ID_USB_INTERFACE_NUM": "00",
                                    "ID_USB_DRIVER": "usb-storage"},
    ("usb_id", "class/net/eth1"): {"ID_VENDOR_ID": "0b95", "ID_MODEL_ID": "772b", "ID_MODEL": "AX88772B",
                                   "ID_SERIAL_SHORT": "000001", "ID_TYPE": "generic", "ID_USB_DRIVER": "asix"},
    ("usb_id", "class/input/event6"): {"ID_SERIAL": "Logitech_USB_Optical_Mouse", "ID_TYPE": "hid",
                                       "ID_VENDOR_ID": "046d", "ID_MODEL_ID": "c077"},
    ("usb_id", "class/input/event7"): {"ID_SERIAL_SHORT": "8BQ00M1012345", "ID_TYPE": "hid", "ID_VENDOR_ID": "056a"},
    ("net_id", "class/net/eth0"): {"ID_NET_NAME_PATH": "enp0s25", "ID_NET_NAME_MAC": "enx001b213a4c5d"},
    ("net_id", "class/net/eth1"): {"ID_NET_NAME_PATH": "enp0s29f7u2", "ID_NET_NAME_MAC": "enx000ec6880102"},
}

# input_id must classify each input device exactly so (the full set of ID_INPUT* keys)
INPUT_KINDS = {
    "event0": {"ID_INPUT", "ID_INPUT_KEY", "ID_INPUT_KEYBOARD"},
    "event1": {"ID_INPUT", "ID_INPUT_TOUCHPAD"},
    "mouse0": {"ID_INPUT", "ID_INPUT_TOUCHPAD"},
    "event2": {"ID_INPUT", "ID_INPUT_MOUSE", "ID_INPUT_POINTINGSTICK"},
    "event3": {"ID_INPUT", "ID_INPUT_SWITCH"},
    "event4": {"ID_INPUT", "ID_INPUT_ACCELEROMETER"},
    "event5": {"ID_INPUT", "ID_INPUT_TOUCHSCREEN"},
    "event6": {"ID_INPUT", "ID_INPUT_MOUSE"},
    "event7": {"ID_INPUT", "ID_INPUT_TABLET"},
    "mouse3": {"ID_INPUT", "ID_INPUT_TABLET"},
    "event8": {"ID_INPUT", "ID_INPUT_JOYSTICK"},
    "js0": {"ID_INPUT", "ID_INPUT_JOYSTICK"},
    "event9": {"ID_INPUT"},  # the PC speaker (EV_SND only): no class of its own
}

# device nodes of the host resolve through /sys/dev/char/M:m of the fixture
NODES = {"/dev/null": "/devices/virtual/mem/null", "/dev/zero": "/devices/virtual/mem/zero",
         "/dev/urandom": "/devices/virtual/mem/urandom"}


def main():
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("udevadm"):
        print("skipped: needs root, unshare and udevadm")
        return 77
    calls = [(b, p) for b, p in EXPECT] + [("input_id", "class/input/" + n) for n in INPUT_KINDS]
    with tempfile.TemporaryDirectory(prefix="test-fixture-udev.") as tmp:
        root = os.path.join(tmp, "sys")
        man = os.path.join(tmp, "manifest.json")
        subprocess.run([sys.executable, GEN, "--manifest", man, root], check=True)
        with open(man) as f:
            manifest = json.load(f)
        # one namespace, one shell: "@@ key" separates the outputs
        script = ["mount --bind %s /sys || exit 1" % root,
                  "export SYSTEMD_DEVICE_VERIFY_SYSFS=0 SYSTEMD_LOG_LEVEL=err"]
        for b, p in calls:
            script.append("echo '@@ %s %s'; udevadm test-builtin %s /sys/%s" % (b, p, b, p))
        # sd-device's enumerator walks /sys/bus and /sys/class (devices) and /sys/bus, /sys/module
        # (subsystems, drivers, modules)
        script.append("echo '@@ trigger devices'; udevadm trigger --dry-run --verbose --type=devices")
        script.append("echo '@@ trigger subsystems'; udevadm trigger --dry-run --verbose --type=subsystems")
        for node in NODES:
            script.append("echo '@@ node %s'; udevadm info -q path -n %s" % (node, node))
        r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", "\n".join(script)],
                           capture_output=True, text=True)
        if r.returncode != 0 and "@@" not in r.stdout:
            print("skipped: cannot bind-mount a fake /sys in a private mount namespace: " + r.stderr.strip())
            return 77
    out = {}
    key = None
    for line in r.stdout.splitlines():
        if line.startswith("@@ "):
            key = tuple(line[3:].split(" ", 1))
            out[key] = []
        elif key:
            out[key].append(line)

    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL: " + what, file=sys.stderr)

    def props(key):
        return dict(line.split("=", 1) for line in out.get(key, []) if "=" in line)

    for (b, p), want in EXPECT.items():
        got = props((b, p))
        for k, v in want.items():
            check(got.get(k) == v, "%s /sys/%s: %s=%r, want %r" % (b, p, k, got.get(k), v))
    for name, kinds in INPUT_KINDS.items():
        got = {k for k in props(("input_id", "class/input/" + name)) if k.startswith("ID_INPUT")}
        check(got == kinds, "input_id %s: %s, want %s" % (name, sorted(got), sorted(kinds)))
    for node, path in NODES.items():
        got = out.get(("node", node), [])
        check(got == [path], "udevadm info -n %s: %r, want %r" % (node, got, path))
    # every device with a subsystem is enumerated, nothing else
    want = {"/sys" + d["devpath"] for d in manifest["devices"] if d["subsystem"]}
    got = set(out.get(("trigger", "devices"), []))
    check(got == want, "trigger --type=devices: missing %s, extra %s" % (sorted(want - got), sorted(got - want)))
    got = set(out.get(("trigger", "subsystems"), []))
    want = {"/sys/bus/usb", "/sys/bus/pci", "/sys/bus/usb/drivers/usb-storage", "/sys/bus/scsi/drivers/sd",
            "/sys/module/usbcore", "/sys/module/usb_storage", "/sys/module/e1000e"}
    check(want <= got, "trigger --type=subsystems: missing %s" % sorted(want - got))
    if failed:
        print(r.stderr, file=sys.stderr)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
