#!/usr/bin/env python3
"""The distro suite's report parser, checks and comparison on hand-written reports (no VM)."""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import guestreport as g  # noqa: E402

failures = []


def expect(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def report(manager, units, links="2: ens4: <BROADCAST,MULTICAST> mtu 1500", warnings=(), done=True):
    out = ["noise before", "@@STATE running", "@@MANAGER " + manager]
    for s in g.SECTIONS:
        out.append("@@BEGIN " + s)
        if s == "devices":
            out += ["%s loaded active plugged Some device" % u for u in units]
        elif s == "mounts":
            out += ["/ /dev/vda ext4", "/mnt/label /dev/vdb1 ext4", "/mnt/uuid /dev/vdb2 ext4"]
        elif s == "links":
            out += ["1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536", links]
        elif s == "dev-find":
            out += ["/dev/vda b 660 root disk ", "/dev/hvc0 c 620 root tty "]
            if manager == "devman":
                out.append("/dev/extra l 777 root root vda")
        elif s == "db":
            out += ["P: /devices/virtual/tty/hvc0", "N: hvc0", "E: CURRENT_TAGS=:systemd:", "",
                    "P: /devices/virtual/tty/hvc1", "E: TAGS=:systemd:", "E: CURRENT_TAGS=:systemd:",
                    "E: SYSTEMD_READY=0", "",
                    "P: /devices/virtual/tty/hvc2", "E: TAGS=:systemd:"]
        elif s == "settle":
            out.append("12345678")
        elif s == "journal-manager":
            out += list(warnings)
        out.append("@@END 0 " + s)
    if done:
        out.append("@@DONE")
    return "\n".join(out) + "\n"


common = ["dev-vda.device", "sys-devices-virtual-tty-hvc0.device"]
ref = g.parse(report("udevd", common + ["dev-hvc0.device"]))
expect(ref["done"] and ref["state"] == "running" and ref["manager"] == "udevd", "header lines parsed")
expect(g.device_units(ref) == {u: "active plugged" for u in common + ["dev-hvc0.device"]}, "device units parsed")
expect(g.interfaces(ref) == ["ens4"], "interfaces parsed, lo left out")
expect(g.settle_usec(ref) == 12345678, "settle time stamp parsed")
expect(g.check_boot(ref, "udevd") == [], "a complete good boot has no problem")

dm = g.parse(report("devman", common, links="2: enp0s4: <BROADCAST>",
                    warnings=["cannot load module acpi_cpufreq: No such device"]))
diffs = dict(g.differences(ref, dm))
expect("unit-missing dev-hvc0.device" in diffs, "a unit only the reference has is a difference")
expect("net enp0s4" in diffs, "a different interface name is a difference")
expect(list(d for d in diffs if d.startswith("dev ")) == ["dev /dev/extra"], "a /dev entry only devman made is a difference")
probs = g.check_boot(dm, "devman")
expect(any("acpi_cpufreq" in p for p in probs), "a warning of the manager is a problem")

with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    f.write("# comment\nunit-missing dev-hvc* | planted for the test\ndev /dev/extra | planted too\n")
try:
    left = g.compare(ref, dm, f.name)
    expect(left == ["net enp0s4: interfaces: udevd ['ens4'], devman ['enp0s4']"],
           "the allowlist explains the planted difference, not the other one")
    with open(f.name, "w") as w:
        w.write("unit-missing dev-hvc*\n")
    try:
        g.compare(ref, dm, f.name)
        expect(False, "an allowlist line without a reason is rejected")
    except g.BadReport:
        expect(True, "an allowlist line without a reason is rejected")
finally:
    os.unlink(f.name)

expect(g.systemd_tagged(ref) == ["/devices/virtual/tty/hvc0"],
       "only current systemd tags without SYSTEMD_READY=0 ask for a unit")
expect(g.escape_path("/sys/devices/pci0000:00/0000:00:06.0/virtio3/virtio-ports/vport3p0") ==
       "sys-devices-pci0000:00-0000:00:06.0-virtio3-virtio\\x2dports-vport3p0", "path escaped as systemd does")
untagged = g.parse(report("devman", ["dev-vda.device"]))
expect(any("CURRENT_TAGS=:systemd:" in p and "hvc0" in p for p in g.check_boot(untagged, "devman")),
       "a systemd-tagged database entry without its unit is a problem (issue 32)")

short = g.parse(report("udevd", common + ["dev-disk-by\\x2dpath-pci\u2026"]))
expect(any("cut short" in p for p in g.check_boot(short, "udevd")), "ellipsized unit names are a problem")

cut = g.parse(report("devman", common, done=False).replace("@@END 0 journal-manager\n", ""))
expect(any("incomplete" in p for p in g.check_boot(cut, "devman")), "a cut-off report is a problem")

sys.exit(1 if failures else 0)
