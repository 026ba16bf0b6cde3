#!/usr/bin/env python3
"""The distro suite's report parser, checks and comparison on hand-written reports (no VM)."""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "helpers"))

import guestreport as g  # noqa: E402
import tap  # noqa: E402

expect = tap.check


# what a good boot's guest writes in the sections of issue 28 part 1 (systemd 252's formats)
GOOD = {
    "wants": ["Id=devman-distro-wants.service", "ActiveState=active", "Result=success",
              "WantedBy=sys-devices-pci0000:00-0000:00:05.0-virtio2-block-vdb.device"],
    "networkd": ["ens4 ADMIN_STATE=configured OPER_STATE=routable ", "lo ADMIN_STATE=unmanaged OPER_STATE=carrier "],
    "udevadm-info": ["P: /devices/pci0000:00/0000:00:05.0/virtio2/block/vdb", "N: vdb",
                     "S: disk/by-id/virtio-devman-data", "E: ID_SERIAL=devman-data"],
    "udevadm-monitor": ["trigger rc 0", "settle rc 0",
                        "monitor will print the received events for:",
                        "UDEV - the event which udev sends out after rule processing",
                        "KERNEL - the kernel uevent", "",
                        "KERNEL[31.412563] change   /devices/pci0000:00/0000:00:05.0/virtio2/block/vdb (block)",
                        "UDEV  [31.530211] change   /devices/pci0000:00/0000:00:05.0/virtio2/block/vdb (block)"],
    "hotplug": ["disk-add appeared 2 dev-disk-by\\x2did-virtio\\x2ddmhotdisk.device",
                "disk-remove gone 1",
                "usb-add appeared 3 dev-disk-by\\x2did-usb\\x2dQEMU_QEMU_HARDDISK_dmhotusb\\x2d0:0.device",
                "usb-remove gone 0"],
}
SETTLED = "Id=%s\nActiveState=active\nSubState=exited\n"


def report(manager, units, links="2: ens4: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 state UP",
           warnings=(), done=True, variant=None, settled=True, **sections):
    out = ["noise before", "@@STATE running", "@@MANAGER " + manager, "@@VARIANT " + (variant or manager)]
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
            out.append("12345678" if settled else "0")
        elif s == "manager-units":
            unit = g.image.SETTLE_UNIT[manager]
            out += (SETTLED % unit if settled else SETTLED.replace("active", "inactive") % unit).splitlines()
        elif s in sections:
            out += sections[s]
        elif s in GOOD:
            out += GOOD[s]
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
race = "could not read from '/sys/module/powernow_k8/initstate': No such device"
expect(g.check_boot(g.parse(report("udevd", common, warnings=[race])), "udevd") == [],
       "the reference's initstate race (systemd-udevd 252) is not a problem of its boot")
expect(any("powernow_k8" in p for p in g.check_boot(g.parse(report("devman", common, warnings=[race])), "devman")),
       "the same line from devman is a problem")

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

# issue 32's plain enable: no settle unit ran, and that is what the variant checks
plain = g.parse(report("devman", common + ["dev-hvc0.device"], variant="devman-plain", settled=False))
expect(g.check_boot(plain, "devman-plain") == [], "devman-plain: a good boot without settle has no problem")
expect(any("devman-settle.service" in p for p in g.check_boot(plain, "devman")),
       "devman: a boot whose settle unit did not run is a problem")
settled = g.parse(report("devman", common, variant="devman-plain"))
expect(any("devman-settle.service" in p for p in g.check_boot(settled, "devman-plain")),
       "devman-plain: a boot whose settle unit ran is not issue 32's set-up")
expect(any("'devman'" in p for p in g.check_boot(g.parse(report("devman", common)), "devman-plain")),
       "the image the guest names must be the variant's")
expect(g.settle_usec(plain) is None or g.settle_usec(plain) == 0, "no settle time stamp without settle")
expect("devman-plain" in g.summary(ref, ref, plain), "the summary has the third boot")

# issue 28 part 1 sections
expect(g.show_props(ref, "wants")["devman-distro-wants.service"]["ActiveState"] == "active", "wants parsed")
expect(g.network_setup(ref) == {"lo": ("carrier", "unmanaged"), "ens4": ("routable", "configured")},
       "networkd state files parsed")
expect(g.link_flags(ref)["ens4"] == ({"BROADCAST", "MULTICAST", "UP", "LOWER_UP"}, "UP"), "link flags parsed")
expect(g.hotplug(ref)["disk-add"] == ("appeared", 2, ["dev-disk-by\\x2did-virtio\\x2ddmhotdisk.device"]),
       "hot-plug lines parsed")


def problems_with(what, **sections):
    probs = g.check_boot(g.parse(report("udevd", common, **sections)), "udevd")
    expect(len(probs) >= 1 and all(what in p for p in probs), "%s: %s" % (what, probs))


problems_with("SYSTEMD_WANTS", wants=["Id=devman-distro-wants.service", "ActiveState=inactive",
                                      "Result=success", "WantedBy="])
problems_with("SYSTEMD_WANTS", wants=["Id=devman-distro-wants.service", "ActiveState=active",
                                      "Result=success", "WantedBy=multi-user.target"])
problems_with("SYSTEMD_WANTS", wants=[])
problems_with("ens4 is not up", links="2: ens4: <BROADCAST,MULTICAST> mtu 1500 state DOWN",
              networkd=GOOD["networkd"])
problems_with("did not configure ens4", networkd=["ens4 ADMIN_STATE=unmanaged OPER_STATE=off "])
problems_with("did not configure ens4", networkd=["ens4 "])
problems_with("did not configure ens4", networkd=[])
problems_with("udevadm info", **{"udevadm-info": GOOD["udevadm-info"][:2]})
problems_with("udevadm monitor printed no KERNEL",
              **{"udevadm-monitor": [ln for ln in GOOD["udevadm-monitor"] if not ln.startswith("KERNEL[")]})
problems_with("udevadm monitor printed no", **{"udevadm-monitor": ["trigger rc 0", "settle rc 0"]})
problems_with("no 'settle rc 0'", **{"udevadm-monitor": [ln.replace("settle rc 0", "settle rc 1")
                                                          for ln in GOOD["udevadm-monitor"]]})
problems_with("hot-plug disk-remove: timeout", hotplug=[GOOD["hotplug"][0], "disk-remove timeout 60 dev-vdc.device"]
              + GOOD["hotplug"][2:])
problems_with("hot-plug usb", hotplug=GOOD["hotplug"][:2] + ["usb-add host-failed 0 ERR usb-add: no bus"])
problems_with("hot-plug disk-add: no by-id", hotplug=["disk-add appeared 2 dev-vdc.device"] + GOOD["hotplug"][1:])
problems_with("hot-plug", hotplug=[])
other = g.parse(report("devman", common, hotplug=["disk-add appeared 2 dev-disk-by\\x2did-virtio\\x2ddmhotdisk.device "
                                                   "dev-disk-by\\x2did-virtio\\x2ddmhotdisk\\x2dpart1.device"]
                       + GOOD["hotplug"][1:]))
expect(any(d.startswith("hotplug disk-add") for d, _ in g.differences(ref, other)),
       "hot-plugged device units that differ from udevd's are a difference")

cut = g.parse(report("devman", common, done=False).replace("@@END 0 journal-manager\n", ""))
expect(any("incomplete" in p for p in g.check_boot(cut, "devman")), "a cut-off report is a problem")

tap.finish()
