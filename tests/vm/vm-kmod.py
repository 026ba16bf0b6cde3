#!/usr/bin/env python3
"""Issue 29, part 1: a class converted with the driver core's own API on Debian's kernel.

kmod/dmconv.c (built by testmodule.py against linux-headers of the VM kernel) registers the class
dmconv and makes char devices with device_create() / device_destroy(), in four layouts. The
guest (kmod-init.sh) runs devmand on an empty tmpfs /dev with a rule for the class (MODE 0640,
GROUP dialout, SYMLINK dmconv/by-name/%k); per layout it loads the module, adds dmconv0-3,
removes dmconv3, renames dmconv2 to dmconvmoved, dumps /dev after each step and unloads. After
the `parent` layout it takes `devmanadm snapshot`; after each other layout it compares. This
side checks the dumps and the comparisons:

  parent  -> nested   the devices' physical parent (platform/dmconv) is the same, only the
                      class-device layer in between moved: compare exits 0
  parent  -> virtual  parent NULL moves the devices off platform/dmconv: compare exits 1 with a
                      `parent` line for each of the three devices, and nothing else
  parent  -> broken   dmconv1's devt changed: compare exits 1 naming dmconv/dmconv1 (devt) and
                      nothing else

Exit 0 pass, 1 fail, 77 skip (no QEMU, kernel package or headers; devman not built)."""

import os
import re
import signal
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import checklist  # noqa: E402
import images  # noqa: E402
import initramfs  # noqa: E402
import kernel as kmod  # noqa: E402
import qemu  # noqa: E402
import testmodule  # noqa: E402
import vmtest  # noqa: E402

LAYOUTS = ["parent", "nested", "virtual", "broken"]
GROUP = "dialout"


log = checklist.log
Checks = checklist.Checks


def parse(text):
    """-> {"steps": {name: {"nodes": {path: (type, mode, user, group, devt)}, "links": {path:
    target}, "sys": {name: (devt, devpath)}}}, "files": {name: text}, "rc": {name: int},
    "warnings": [...], "fatal": str|None, "done": bool, "dmesg": [...]}"""
    r = {"steps": {}, "files": {}, "rc": {}, "warnings": [], "fatal": None, "done": False,
         "dmesg": []}
    step = fname = None
    buf = []
    in_dmesg = False
    for line in text.splitlines():
        if fname is not None:
            if line == "@@ENDFILE " + fname:
                r["files"][fname] = "\n".join(buf) + "\n"
                fname = None
            else:
                buf.append(line)
            continue
        if line.startswith("@@FILE "):
            fname, buf = line[7:], []
        elif line.startswith("@@STEP "):
            step = {"nodes": {}, "links": {}, "sys": {}}
            r["steps"][line[7:]] = step
        elif line.startswith("@@ENDSTEP "):
            step = None
        elif line.startswith("@@SYS ") and step is not None:
            _, name, devt, devpath = line.split(" ", 3)
            step["sys"][name] = (devt, devpath)
        elif line.startswith("@@RC "):
            _, name, rc = line.split()
            r["rc"][name] = int(rc)
        elif line.startswith("@@WARN "):
            r["warnings"].append(line[7:])
        elif line.startswith("@@FATAL "):
            r["fatal"] = line[8:]
        elif line == "@@DONE":
            r["done"] = True
            in_dmesg = False
        elif line == "@@DMESG":
            in_dmesg = True
        elif in_dmesg:
            r["dmesg"].append(line)
        elif step is not None and "|" in line:
            parts = line.split("|")
            if len(parts) == 3 and parts[1] == "link":
                _, _, target = parts[2].partition("' -> '")
                step["links"][parts[0]] = target.rstrip("'")
            elif len(parts) == 7:
                path, kind, mode, user, group, devt, _ = parts
                major, minor = devt.split(":")
                step["nodes"][path] = (kind, mode.zfill(4), user, group,
                                       "%d:%d" % (int(major, 16), int(minor, 16)))
    return r


def check_step(check, step, layout, name, want):
    """want: the device names that must exist; their nodes, modes, group and links exactly."""
    s = step
    check(sorted(s["sys"]) == sorted(want),
          "%s/%s: the kernel has exactly %s (has %s)" % (layout, name, want, sorted(s["sys"])))
    want_nodes = {"/dev/" + n for n in want}
    check(set(s["nodes"]) == want_nodes,
          "%s/%s: devman made exactly the nodes %s (found %s)" % (layout, name, sorted(want_nodes),
                                                                sorted(s["nodes"])))
    for n in want:
        node = s["nodes"].get("/dev/" + n)
        sysdev = s["sys"].get(n)
        if not node or not sysdev:
            continue
        check(node[0] == "character special file" and node[4] == sysdev[0],
              "%s/%s: /dev/%s is a char node %s like the kernel's dev attribute (%s)"
              % (layout, name, n, node[4], sysdev[0]))
        check(node[1] == "0640" and node[3] == GROUP,
              "%s/%s: /dev/%s has the rule's mode and group (%s %s:%s)" % (layout, name, n, node[1],
                                                                         node[2], node[3]))
    want_links = {"/dev/dmconv/by-name/" + n: "../../" + n for n in want}
    check(s["links"] == want_links,
          "%s/%s: the rule's links are exactly %s (found %s)" % (layout, name, sorted(want_links),
                                                              s["links"]))


def devpath_ok(layout, devpath):
    want = {"parent": "/sys/devices/platform/dmconv/dmconv/",
            "broken": "/sys/devices/platform/dmconv/dmconv/",
            "nested": "/sys/devices/platform/dmconv/dmconvhost/dmconvhost0/",
            "virtual": "/sys/devices/virtual/dmconv/"}[layout]
    return devpath.startswith(want)


ITEM = re.compile(r"^(vanished|appeared|renamed|duplicate|layout|node|type|devt|mode|owner|links|"
                  r"tags|props|kernel-props|devtype|driver|parent) (\S+): (.*)$", re.M)


def evaluate(check, r):
    if not check(r["fatal"] is None and r["done"],
                 "the guest finished (fatal: %s, done: %s)" % (r["fatal"], r["done"])):
        return
    check(not r["warnings"], "no guest warnings %s" % r["warnings"])
    after = {"add": ["dmconv0", "dmconv1", "dmconv2", "dmconv3"],
             "remove": ["dmconv0", "dmconv1", "dmconv2"],
             "rename": ["dmconv0", "dmconv1", "dmconvmoved"],
             "unloaded": []}
    for layout in LAYOUTS:
        for step, names in after.items():
            s = r["steps"].get("%s-%s" % (layout, step))
            if not check(s is not None, "%s-%s: dumped" % (layout, step)):
                continue
            check_step(check, s, layout, step, names)
            if step == "add":
                check(all(devpath_ok(layout, p) for _, p in s["sys"].values()),
                      "%s: the devices are where the layout puts them %s"
                      % (layout, sorted(p for _, p in s["sys"].values())))
        if layout == "broken":
            s = r["steps"].get("broken-add")
            p = r["steps"].get("parent-add")
            if s and p and "dmconv1" in s["sys"] and "dmconv1" in p["sys"]:
                pm, pn = p["sys"]["dmconv1"][0].split(":")
                check(s["sys"]["dmconv1"][0] == "%s:%d" % (pm, int(pn) + 100),
                      "broken: dmconv1 has minor %d+100 (%s)" % (int(pn), s["sys"]["dmconv1"][0]))
    check(r["rc"].get("snapshot-parent") == 0 and "parent.snap" in r["files"],
          "devmanadm snapshot on the parent layout")
    snap = r["files"].get("parent.snap", "")
    for n in ("dmconv0", "dmconv1", "dmconvmoved"):
        check("\ndevice dmconv/%s\n" % n in snap, "the snapshot holds dmconv/%s" % n)

    for layout, want_rc in (("nested", 0), ("virtual", 1), ("broken", 1)):
        for variant in ("", "-live"):
            name = "compare-" + layout + variant
            rc = r["rc"].get(name)
            text = r["files"].get(name, "")
            log("--- devmanadm compare parent.snap %s (exit %s):" % (
                layout + ".snap" if not variant else "<live /sys>", rc))
            for line in text.rstrip("\n").splitlines():
                log("    " + line)
            check(name in r["files"], "%s: the report came back" % name)
            check(rc == want_rc, "%s: exit %d (got %s)" % (name, want_rc, rc))
        items = ITEM.findall(r["files"].get("compare-" + layout, ""))
        if layout == "nested":
            check(not items, "nested: nothing userspace-visible changed (%s)" % items)
        elif layout == "virtual":
            keys = sorted(k for f, k, _ in items if f == "parent")
            check(keys == ["dmconv/dmconv0", "dmconv/dmconv1", "dmconv/dmconvmoved"]
                  and len(items) == 3,
                  "virtual: exactly the three devices' physical parent changed (%s)" % items)
            check(all("platform/dmconv" in d and "none" in d for _, _, d in items),
                  "virtual: from platform/dmconv to none")
        else:
            check([(f, k) for f, k, _ in items] == [("devt", "dmconv/dmconv1")],
                  "broken: exactly dmconv/dmconv1's devt is reported (%s)" % items)
            check(any(re.search(r":1 -> c \d+:101", d) for _, _, d in items),
                  "broken: minor 1 -> 101")


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    try:
        env = vmtest.Env()
        ko = testmodule.obtain(env.cache, env.kernel, log)
    except kmod.Unavailable as e:
        log("SKIP: %s" % e)
        return 77
    if not env.have_devman():
        log("SKIP: devmand or devmanadm is not built")
        return 77
    log("kernel %s, module %s" % (env.kernel.version, ko))
    accel = env.accel()
    check = Checks()
    with tempfile.TemporaryDirectory(prefix="devman-vmkmod.") as tmp:
        initrd = os.path.join(tmp, "initrd.cpio")
        initramfs.build(initrd, env.kernel, os.path.join(HERE, "kmod-init.sh"), env.uinput, "",
                        env.devmand, env.devmanadm, None, extra_modules=[ko])
        imgs = images.make(tmp)
        keep = os.path.join(env.results, "kmod")
        os.makedirs(keep, exist_ok=True)
        try:
            out, console, secs = qemu.run(env.qemu, env.kernel.image, initrd,
                                          "console=ttyS0 loglevel=5 panic=-1 rdinit=/init", accel,
                                          tmp, imgs, vmtest.BOOT_TIMEOUT, log)
            log("boot took %.1f s (%s)" % (secs, accel))
        except Exception as e:  # what the guest reported so far still counts
            check(False, "boot: %s: %s" % (type(e).__name__, e))
            out, console = os.path.join(tmp, "report.txt"), os.path.join(tmp, "console.log")
        text = ""
        for src in (out, console):
            if os.path.exists(src):
                with open(src, errors="replace") as f, \
                        open(os.path.join(keep, os.path.basename(src)), "w") as dst:
                    data = f.read()
                    dst.write(data)
                    if src == out:
                        text = data
    r = parse(text)
    evaluate(check, r)
    return check.results(" (report in %s)" % keep)


if __name__ == "__main__":
    sys.exit(main())
