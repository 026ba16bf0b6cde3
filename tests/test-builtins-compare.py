#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""devman's builtins against the reference: `devmanadm test-builtin` and systemd-udevd 252's
`udevadm test-builtin` run the same builtin command on the same device, and must set the same
properties with the same values, and succeed or fail alike.

  test-builtins-compare.py DEVMANADM fixture   every device of the converted fixture tree,
                                               bind-mounted over /sys in a private mount namespace
  test-builtins-compare.py DEVMANADM live      every device of the live machine's /sys
  test-builtins-compare.py DEVMANADM layouts   devman alone: every device of the fixture machine
                                               gives the same properties in the legacy layout
                                               (pre-2.6.18 class directories, no DEVTYPE) as in
                                               the converted one

fixture and live need root, unshare(1) and udevadm; they exit 77 (skip) otherwise."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "gen-sysfs.py")

# keyboard is left out: the reference performs its ioctls even in test mode
COMMANDS = ["path_id", "usb_id", "input_id", "hwdb", "hwdb --subsystem=usb", "hwdb --subsystem=pci",
            "hwdb --subsystem=input --lookup-prefix=evdev:", "hwdb 'usb:v046DpC077*'",
            "hwdb --filter=ID_VENDOR* --subsystem=pci", "hwdb --device=+pci:0000:00:1f.2",
            "hwdb -s usb -p usb: -f *MODEL*"]


def live_devices():
    """Devpaths (below /sys) of the live machine, one per device directory with a uevent file;
    loop devices other than loop0 are left out (other tests make and remove them all the time)."""
    out = []
    for top, dirs, files in os.walk("/sys/devices"):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
        if "uevent" not in files or top == "/sys/devices":
            continue
        name = os.path.basename(top)
        if name.startswith("loop") and name not in ("loop0", "loop-control"):
            continue
        out.append(top[len("/sys"):])
    return sorted(out)


# the live machine has hundreds of devices: the commands that differ in what they look at
LIVE_COMMANDS = ["path_id", "usb_id", "input_id", "hwdb", "hwdb --subsystem=pci"]


def run_pairs(devmanadm, devpaths, sysroot, tmp, commands=COMMANDS):
    """Runs both tools for every command on every device in one shell (one namespace when
    sysroot is a fixture). Returns {(tool, cmd, devpath): (rc, [lines])}."""
    script = []
    if sysroot:
        script += ["mount --bind %s /sys || exit 1" % sysroot]
    script += ["export SYSTEMD_DEVICE_VERIFY_SYSFS=0 SYSTEMD_LOG_LEVEL=emerg"]
    for p in devpaths:
        for cmd in commands:
            q = cmd.replace("'", "'\\''")
            for tool, argv in (("ref", "udevadm test-builtin"), ("dm", devmanadm + " test-builtin")):
                script.append("%s '%s' /sys%s 2>/dev/null; echo \"@@ $? %s %s %s\"" % (argv, q, p, tool, p, q))
    path = os.path.join(tmp, "run.sh")
    with open(path, "w") as f:
        f.write("\n".join(script) + "\n")
    cmd = ["sh", path]
    if sysroot:
        cmd = ["unshare", "-m", "--propagation", "private"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, errors="surrogateescape")
    if r.returncode != 0 and "@@" not in r.stdout:
        return None
    res = {}
    cur = []
    for line in r.stdout.splitlines():
        if line.startswith("@@ "):
            rc, tool, path, command = line[3:].split(" ", 3)
            res[(tool, command, path)] = (int(rc), cur)
            cur = []
        else:
            cur.append(line)
    return res


def devman_props(devmanadm, sysroot, cmd, devpath):
    r = subprocess.run([devmanadm, "--sysfs=" + sysroot, "test-builtin", cmd, devpath], capture_output=True,
                       text=True, errors="surrogateescape")
    return r.returncode, dict(l.split("=", 1) for l in r.stdout.splitlines() if "=" in l)


# Known differences between the layouts, each asserted as it is: a legacy block device's parent
# is the physical device its `device` link names, so the class device between them (nvme0) is
# not on the way up and path_id finds no NVMe namespace element.
LAYOUT_DIFFERENCES = {("path_id", "/block/nvme0n1"): (1, {})}


def compare_layouts(devmanadm):
    """The builtins see the same machine through both layouts (no reference needed)."""
    passed = failed = with_props = 0
    with tempfile.TemporaryDirectory(prefix="test-builtins-layouts.") as tmp:
        roots = {}
        for layout in ("converted", "legacy"):
            roots[layout] = os.path.join(tmp, layout)
            man = os.path.join(tmp, layout + ".json")
            subprocess.run([sys.executable, GEN, "--layout", layout, "--manifest", man, roots[layout]], check=True)
        with open(os.path.join(tmp, "legacy.json")) as f:
            devices = json.load(f)["devices"]
        for d in devices:
            for cmd in ("path_id", "usb_id", "input_id", "hwdb", "hwdb --subsystem=usb"):
                conv = devman_props(devmanadm, roots["converted"], cmd, d["devpath"])
                leg = devman_props(devmanadm, roots["legacy"], cmd, d["legacy_devpath"])
                if conv[1]:
                    with_props += 1
                known = LAYOUT_DIFFERENCES.get((cmd, d["legacy_devpath"]))
                if known is not None and leg == known and conv[1]:
                    passed += 1
                elif known is None and conv == leg:
                    passed += 1
                else:
                    failed += 1
                    print("FAIL: %s: converted %s rc=%d %s\n      legacy %s rc=%d %s" %
                          (cmd, d["devpath"], conv[0], sorted(conv[1].items()), d["legacy_devpath"], leg[0],
                           sorted(leg[1].items())), file=sys.stderr)
        # test-builtin sees what the database already holds, as udevadm does: with ID_BUS
        # recorded for sdb (8:16), usb_id adds only the ID_USB_* set
        run = os.path.join(tmp, "run")
        os.makedirs(os.path.join(run, "data"))
        with open(os.path.join(run, "data", "b8:16"), "w") as f:
            f.write("E:ID_BUS=ata\nV:1\n")
        r = subprocess.run([devmanadm, "--sysfs=" + roots["converted"], "--run=" + run, "test-builtin", "usb_id",
                            "/class/block/sdb"], capture_output=True, text=True)
        got = dict(l.split("=", 1) for l in r.stdout.splitlines() if "=" in l)
        ok = (r.returncode == 0 and "ID_BUS" not in got and "ID_MODEL" not in got
              and got.get("ID_USB_MODEL") == "Cruzer_Blade")
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL: usb_id with ID_BUS in the database: rc=%d %s" % (r.returncode, sorted(got)),
                  file=sys.stderr)
    if with_props == 0:
        print("FAIL: no builtin set a property on any device", file=sys.stderr)
        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("fixture", "live", "layouts"):
        print(__doc__, file=sys.stderr)
        return 2
    devmanadm, mode = os.path.abspath(sys.argv[1]), sys.argv[2]
    if mode == "layouts":
        return compare_layouts(devmanadm)
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("udevadm"):
        print("skipped: needs root, unshare and udevadm")
        return 77
    with tempfile.TemporaryDirectory(prefix="test-builtins-compare.") as tmp:
        if mode == "fixture":
            root = os.path.join(tmp, "sys")
            man = os.path.join(tmp, "manifest.json")
            subprocess.run([sys.executable, GEN, "--zoo", "--manifest", man, root], check=True)
            with open(man) as f:
                devpaths = [d["devpath"] for d in json.load(f)["devices"]]
            res = run_pairs(devmanadm, devpaths, root, tmp)
        else:
            devpaths = live_devices()
            res = run_pairs(devmanadm, devpaths, None, tmp, LIVE_COMMANDS)
    if res is None:
        print("skipped: cannot bind-mount a fake /sys in a private mount namespace")
        return 77

    passed = failed = 0
    with_props = 0
    for p in devpaths:
        for cmd in (COMMANDS if mode == "fixture" else LIVE_COMMANDS):
            ref = res.get(("ref", cmd, p))
            dm = res.get(("dm", cmd, p))
            if ref is None or dm is None:
                # the device went away between listing and running (live machine)
                continue
            want = dict(l.split("=", 1) for l in ref[1] if "=" in l)
            got = dict(l.split("=", 1) for l in dm[1] if "=" in l)
            ok = (ref[0] == 0) == (dm[0] == 0) and want == got
            if want:
                with_props += 1
            if ok:
                passed += 1
            else:
                failed += 1
                print("FAIL: %s on %s: reference rc=%d %s\n      devman    rc=%d %s" %
                      (cmd, p, ref[0], sorted(want.items()), dm[0], sorted(got.items())), file=sys.stderr)
    # the comparison must have exercised something
    if with_props == 0:
        print("FAIL: the reference set no property on any device", file=sys.stderr)
        failed += 1
    print("compared %d device/command pairs, %d with properties" % (passed + failed, with_props))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
