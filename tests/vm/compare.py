#!/usr/bin/env python3
"""Compares two vm-suite reports (report.py's JSON): the reference (systemd-udevd) and the one
under test (devman). Per step: /dev nodes (name, type, devt, mode, owner, group), links
(resolved targets), every device's properties as `udevadm info --export-db` shows them, the
database files, tags, what libinput lists, loaded modules and network interfaces.

Numbers the kernel hands out in probe order (diskseq, ifindex, inputN, wakeupN, eventN, mouseN,
hidrawN, HID instances) are replaced by the device's name or parent, and values that are
different on every boot (USEC_INITIALIZED, inode numbers) are not compared.

Differences fail unless a line of the allowlist matches them:
    <glob on "KIND SUBJECT"> | <reason>
e.g. `prop /devices/*:ID_VENDOR_FROM_DATABASE | hwdb is not implemented yet`.

  compare.py REF.json TEST.json [--allowlist FILE]   print differences, exit 1 if unexplained
  compare.py --selftest                              check this comparison on made-up reports
"""

import fnmatch
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "helpers"))
import probeorder  # noqa: E402

VOLATILE_PROPS = {"USEC_INITIALIZED"}
SET_PROPS = {"DEVLINKS", "TAGS", "CURRENT_TAGS"}


class Diff:
    def __init__(self, step, kind, subject, detail):
        self.step, self.kind, self.subject, self.detail = step, kind, subject, detail

    @property
    def key(self):
        return "%s %s" % (self.kind, self.subject)

    def __str__(self):
        return "%s: %s: %s" % (self.step, self.key, self.detail)


class Allowlist:
    def __init__(self, entries):
        self.entries = entries  # [(glob, reason)]

    @classmethod
    def parse(cls, text, origin="allowlist"):
        entries = []
        for n, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            pattern, sep, reason = line.partition("|")
            if not sep or not pattern.strip() or not reason.strip():
                raise ValueError("%s:%d: expected 'PATTERN | REASON'" % (origin, n))
            entries.append((pattern.strip(), reason.strip()))
        return cls(entries)

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls.parse(f.read(), path)

    def reason(self, diff):
        for pattern, reason in self.entries:
            if fnmatch.fnmatchcase(diff.key, pattern):
                return reason
        return None

    def split(self, diffs):
        """-> (unexplained diff strings, allowed strings with their reasons)"""
        unexplained, allowed = [], []
        for d in diffs:
            r = self.reason(d)
            if r is None:
                unexplained.append(str(d))
            else:
                allowed.append("%s (%s)" % (d, r))
        return unexplained, allowed


def _resolve(link, target):
    return os.path.normpath(os.path.join(os.path.dirname(link), target))


def _diskseq_names(step):
    """diskseq number -> device name, from the devices' DISKSEQ and DEVNAME."""
    names = {}
    for dev in step["exportdb"].values():
        e = dev["E"]
        if "DISKSEQ" in e and "DEVNAME" in e and e.get("DEVTYPE") == "disk":
            names[e["DISKSEQ"]] = os.path.basename(e["DEVNAME"])
    return names


def _ifindex_names(step):
    """ifindex -> interface name: the kernel numbers interfaces in registration order."""
    names = {}
    for dev in step["exportdb"].values():
        e = dev["E"]
        if e.get("SUBSYSTEM") == "net" and "IFINDEX" in e and "INTERFACE" in e:
            names[e["IFINDEX"]] = e["INTERFACE"]
    return names


# Class devices the kernel numbers from one counter in registration order: input devices, and
# wakeup sources (one per device that can wake the system; a USB hub and an ACPI device probing
# in parallel take 13 and 14 either way round). Renamed in devpaths and database ids only, not
# by probeorder's rewrite of the whole step: property values name inputN too (PHYS
# "usb-0000:00:05.0-1/input0" is the USB interface's input, a stable name).
NUMBERED_CLASSES = ("input", "wakeup")


def _numbered_names(step):
    """inputN / wakeupN -> input<parent> / wakeup<parent>. A slow probe (atkbd under a loaded
    TCG) can also take one number and register again."""
    names = {}
    for devpath in step["exportdb"]:
        m = re.fullmatch(r"(.*)/(%s)/((?:%s)\d+)" % ("|".join(NUMBERED_CLASSES), "|".join(NUMBERED_CLASSES)), devpath)
        if m and m.group(3).startswith(m.group(2)):
            names[m.group(3)] = "%s<%s>" % (m.group(2), os.path.basename(m.group(1)))
    return names


def _stable_probe_names(step):
    """step with the evdev, mousedev, joydev and hidraw nodes and HID instances named after
    their USB interface or port (tests/helpers/probeorder.py) in every path, id, link, node
    and property."""
    tokens, devts = probeorder.names((devpath, dev["E"].get("MAJOR"), dev["E"].get("MINOR"))
                                     for devpath, dev in step["exportdb"].items())
    if not tokens:
        return step
    out = json.loads(probeorder.rewrite(json.dumps(step), tokens, devts))
    for dev in out["exportdb"].values():
        e = dev["E"]
        key = "%s:%s" % (e.get("MAJOR"), e.get("MINOR"))
        if key in devts:
            e["MINOR"] = devts[key].split(":", 1)[1]
    return out


def _canon_devpath(text, inp):
    """A devpath or database id with class numbers replaced (never a property value such as
    PHYS, whose inputN is a stable name)."""
    return re.sub(r"\b(?:%s)\d+\b" % "|".join(NUMBERED_CLASSES), lambda m: inp.get(m.group(0), m.group(0)), text)


def _canon_dbid(dbid, ifn, inp):
    """Database ids of network interfaces are n<ifindex>; of input devices +input:inputN."""
    m = re.fullmatch(r"n(\d+)", dbid)
    if m:
        return "n<%s>" % ifn.get(m.group(1), "?" + m.group(1))
    return _canon_devpath(dbid, inp)


def _canon_text(text, seq):
    return re.sub(r"by-diskseq/(\d+)", lambda m: "by-diskseq/<%s>" % seq.get(m.group(1), "?" + m.group(1)), text)


def canonical(step):
    """The comparable view of one step."""
    step = _stable_probe_names(step)
    seq = _diskseq_names(step)
    ifn = _ifindex_names(step)
    inp = _numbered_names(step)
    out = {"node": {}, "link": {}, "prop": {}, "db": {}, "tag": set(), "libinput": {},
           "module": set(step["modules"]), "net": set(step["net"])}
    for path, n in step["dev"].items():
        out["node"][path] = "%s %s %s %s:%s" % (n["type"], n["devt"] or "-", n["mode"], n["owner"], n["group"])
    for path, target in step["links"].items():
        out["link"][_canon_text(path, seq)] = _resolve(path, target)
    for devpath, dev in step["exportdb"].items():
        props = {}
        for k, v in dev["E"].items():
            if k in VOLATILE_PROPS:
                continue
            if k == "DISKSEQ":
                v = "<%s>" % seq.get(v, "?" + v)
            if k == "IFINDEX":
                v = "<%s>" % ifn.get(v, "?" + v)
            if k == "DEVPATH":
                v = _canon_devpath(v, inp)
            if k in SET_PROPS:
                items = v.split() if k == "DEVLINKS" else v.split(":")
                v = " ".join(sorted(_canon_text(x, seq) for x in items if x))
            props[k] = v
        out["prop"][_canon_devpath(devpath, inp)] = props
    for dbid, lines in step["data"].items():
        out["db"][_canon_dbid(dbid, ifn, inp)] = sorted(_canon_text(x, seq) for x in lines if not x.startswith("I:"))
    out["tag"] = set()
    for t in step["tags"]:
        tag, _, dbid = t.partition("/")
        out["tag"].add("%s/%s" % (tag, _canon_dbid(dbid, ifn, inp)))
    for dev in step["libinput"]:
        out["libinput"][dev.get("Kernel", dev.get("Device"))] = dev
    return out


def compare_step(name, ref, test):
    a, b = canonical(ref), canonical(test)
    diffs = []
    for kind in ("node", "link", "libinput"):
        for subject in sorted(set(a[kind]) | set(b[kind])):
            x, y = a[kind].get(subject), b[kind].get(subject)
            if x != y:
                diffs.append(Diff(name, kind, subject, "reference %s, got %s" % (
                    json.dumps(x, sort_keys=True) if x is not None else "none",
                    json.dumps(y, sort_keys=True) if y is not None else "none")))
    for devpath in sorted(set(a["prop"]) | set(b["prop"])):
        x, y = a["prop"].get(devpath), b["prop"].get(devpath)
        if x is None or y is None:
            diffs.append(Diff(name, "device", devpath, "only in %s" % ("the reference" if y is None else "the test")))
            continue
        for k in sorted(set(x) | set(y)):
            if x.get(k) != y.get(k):
                diffs.append(Diff(name, "prop", "%s:%s" % (devpath, k),
                                  "reference %r, got %r" % (x.get(k), y.get(k))))
    for dbid in sorted(set(a["db"]) | set(b["db"])):
        x, y = a["db"].get(dbid), b["db"].get(dbid)
        if x is None or y is None:
            diffs.append(Diff(name, "db", dbid, "database file only in %s" % ("the reference" if y is None else "the test")))
            continue
        for line in sorted(set(x) ^ set(y)):
            diffs.append(Diff(name, "db", "%s:%s" % (dbid, line.split("=", 1)[0]),
                              "line %r only in %s" % (line, "the reference" if line in x else "the test")))
    for kind in ("tag", "module", "net"):
        for item in sorted(a[kind] ^ set(b[kind])):
            diffs.append(Diff(name, kind, item, "only in %s" % ("the reference" if item in a[kind] else "the test")))
    return diffs


def compare(ref, test, steps=None):
    """Differences of every step both reports should have (coldplug and the hot-plug steps)."""
    diffs = []
    names = steps or [s for s in ref["steps"] if s != "before"]
    for name in names:
        if name not in test["steps"]:
            diffs.append(Diff(name, "step", name, "missing from the test report"))
        elif name in ref["steps"]:
            diffs.extend(compare_step(name, ref["steps"][name], test["steps"][name]))
    return diffs


def timing_table(rows):
    lines = ["%-18s %8s %8s %8s %8s" % ("boot", "start", "settle", "ready", "host s")]
    for label, r in rows:
        t = r.get("timing", {})
        lines.append("%-18s %8s %8s %8s %8s" % (
            label, t.get("start", "-"), t.get("settle", "-"), t.get("ready", "-"),
            "%.1f" % r["host_seconds"] if r.get("host_seconds") else "-"))
    return "\n".join(lines)


# ---- self-test on made-up reports --------------------------------------------------------

def _step(**kw):
    s = {"dev": {}, "links": {}, "data": {}, "tags": [], "run": [], "exportdb": {}, "libinput": [],
         "modules": [], "net": [], "uptime": 1.0}
    s.update(kw)
    return s


def _selftest():
    def node(devt, mode="0660", group="disk", inode=1):
        return {"type": "b", "devt": devt, "mode": mode, "owner": "root", "group": group, "inode": inode}

    def disk(name, seq, usec):
        return {"N": name, "S": [], "L": "0", "E": {
            "DEVNAME": "/dev/" + name, "DEVTYPE": "disk", "DISKSEQ": seq, "SUBSYSTEM": "block",
            "USEC_INITIALIZED": usec, "DEVLINKS": "/dev/disk/by-diskseq/%s /dev/disk/by-id/x-%s" % (seq, name)}}

    def net(name, ifindex):
        return {"N": None, "S": [], "L": "0", "E": {
            "INTERFACE": name, "IFINDEX": ifindex, "SUBSYSTEM": "net"}}

    ref = {"steps": {"coldplug": _step(
        dev={"/dev/vda": node("254:0"), "/dev/sda": node("8:0")},
        links={"/dev/disk/by-diskseq/1": "../../vda", "/dev/disk/by-diskseq/2": "../../sda",
               "/dev/disk/by-id/x-vda": "../../vda", "/dev/disk/by-id/x-sda": "../../sda"},
        data={"b254:0": ["I:100", "S:disk/by-diskseq/1", "E:ID_X=1"], "b8:0": ["I:5", "S:disk/by-diskseq/2"]},
        exportdb={"/devices/v/vda": disk("vda", "1", "100"), "/devices/s/sda": disk("sda", "2", "5")},
        tags=["systemd/b254:0", "systemd/n2"], modules=["virtio_blk"], net=["lo"])}}
    ref["steps"]["coldplug"]["exportdb"]["/devices/n/ens7"] = net("ens7", "2")
    ref["steps"]["coldplug"]["exportdb"]["/devices/n/ens8"] = net("ens8", "3")
    ref["steps"]["coldplug"]["data"].update({"n2": ["E:A=1"], "n3": ["E:B=1"]})
    # Same devices, diskseq handed out the other way round, other times and inodes: no difference.
    same = {"steps": {"coldplug": _step(
        dev={"/dev/vda": node("254:0", inode=7), "/dev/sda": node("8:0", inode=9)},
        links={"/dev/disk/by-diskseq/2": "/dev/vda", "/dev/disk/by-diskseq/1": "../../sda",
               "/dev/disk/by-id/x-sda": "../../sda", "/dev/disk/by-id/x-vda": "../../vda"},
        data={"b254:0": ["E:ID_X=1", "S:disk/by-diskseq/2", "I:999"], "b8:0": ["S:disk/by-diskseq/1", "I:6"]},
        exportdb={"/devices/v/vda": disk("vda", "2", "999"), "/devices/s/sda": disk("sda", "1", "6")},
        tags=["systemd/b254:0", "systemd/n3"], modules=["virtio_blk"], net=["lo"])}}
    same["steps"]["coldplug"]["exportdb"]["/devices/n/ens7"] = net("ens7", "3")
    same["steps"]["coldplug"]["exportdb"]["/devices/n/ens8"] = net("ens8", "2")
    same["steps"]["coldplug"]["data"].update({"n3": ["E:A=1"], "n2": ["E:B=1"]})
    def inp(devpath, phys):
        return {"N": None, "S": [], "L": "0", "E": {"DEVPATH": devpath, "PHYS": phys, "SUBSYSTEM": "input"}}

    ref["steps"]["coldplug"]["exportdb"]["/devices/serio0/input/input0"] = inp("/devices/serio0/input/input0", "p/input0")
    ref["steps"]["coldplug"]["data"]["+input:input0"] = ["G:seat"]
    ref["steps"]["coldplug"]["tags"].append("seat/+input:input0")
    same["steps"]["coldplug"]["exportdb"]["/devices/serio0/input/input1"] = inp("/devices/serio0/input/input1", "p/input0")
    same["steps"]["coldplug"]["data"]["+input:input1"] = ["G:seat"]
    same["steps"]["coldplug"]["tags"].append("seat/+input:input1")
    # Two wakeup sources numbered the other way round: no difference.
    for report, order in ((ref, ("13", "14")), (same, ("14", "13"))):
        for parent, n in zip(("/devices/q/QEMU0002:00", "/devices/p/usb2/2-1"), order):
            devpath = "%s/wakeup/wakeup%s" % (parent, n)
            report["steps"]["coldplug"]["exportdb"][devpath] = {"N": None, "S": [], "L": "0", "E": {
                "DEVPATH": devpath, "SUBSYSTEM": "wakeup"}}
    # A USB keyboard and tablet probing in parallel: their HID, input, event and hidraw numbers
    # the other way round, the devices on the same ports: no difference.
    def hid(report, port, model, hidn, inputn, eventn, rawn):
        st = report["steps"]["coldplug"]
        base = "/devices/p/usb2/2-%d/2-%d:1.0/0003:0627:0001.000%d" % (port, port, hidn)
        for devpath in (base, "%s/input/input%d" % (base, inputn)):
            st["exportdb"][devpath] = {"N": None, "S": [], "L": "0", "E": {"DEVPATH": devpath, "NAME": model}}
        for devpath, name, major, minor in (("%s/input/input%d/event%d" % (base, inputn, eventn), "input/event%d" % eventn,
                                             "13", str(64 + eventn)),
                                            ("%s/hidraw/hidraw%d" % (base, rawn), "hidraw%d" % rawn, "245", str(rawn))):
            st["exportdb"][devpath] = {"N": name, "S": [], "L": "0", "E": {
                "DEVPATH": devpath, "DEVNAME": "/dev/" + name, "MAJOR": major, "MINOR": minor, "ID_MODEL": model}}
            st["dev"]["/dev/" + name] = {"type": "c", "devt": "%s:%s" % (major, minor), "mode": "0660",
                                         "owner": "root", "group": "input", "inode": 1}
            st["links"]["/dev/char/%s:%s" % (major, minor)] = "../" + name
            st["data"]["c%s:%s" % (major, minor)] = ["E:ID_MODEL=" + model]
        st["links"]["/dev/input/by-path/usb-%d-event" % port] = "../event%d" % eventn
        st["libinput"].append({"Kernel": "/dev/input/event%d" % eventn, "Device": model})
    hid(ref, 1, "Keyboard", 1, 5, 4, 0)
    hid(ref, 2, "Tablet", 2, 6, 5, 1)
    hid(same, 1, "Keyboard", 2, 6, 5, 1)
    hid(same, 2, "Tablet", 1, 5, 4, 0)
    got = [str(d) for d in compare(ref, same)]
    assert got == [], got

    # Wrong mode, a missing link, a lost property and tag, an extra module.
    bad = json.loads(json.dumps(same))
    st = bad["steps"]["coldplug"]
    st["dev"]["/dev/sda"]["mode"] = "0600"
    del st["links"]["/dev/disk/by-id/x-vda"]
    st["data"]["b254:0"].remove("E:ID_X=1")
    st["exportdb"]["/devices/v/vda"]["E"]["DEVLINKS"] = "/dev/disk/by-diskseq/2"
    st["tags"] = ["systemd/n3", "seat/+input:input1"]
    st["modules"].append("ahci")
    st["dev"]["/dev/input/event5"]["mode"] = "0666"  # the keyboard's, in this report
    keys = sorted(d.key for d in compare(ref, bad))
    want = sorted(["node /dev/sda", "link /dev/disk/by-id/x-vda", "db b254:0:E:ID_X",
                   "prop /devices/v/vda:DEVLINKS", "tag systemd/b254:0", "module ahci",
                   "node /dev/input/event<2-1:1.0>"])
    assert keys == want, keys

    allow = Allowlist.parse("# comment\nmodule * | modules may differ in this made-up case\n")
    unexplained, allowed = allow.split(compare(ref, bad))
    assert len(allowed) == 1 and "module ahci" in allowed[0], allowed
    assert len(unexplained) == 6, unexplained
    try:
        Allowlist.parse("node /dev/sda\n")
    except ValueError:
        pass
    else:
        raise AssertionError("an allowlist line without a reason was accepted")
    # A step the test lacks is a difference.
    assert [d.key for d in compare(ref, {"steps": {}})] == ["step coldplug"]
    print("compare.py selftest: 1 passed, 0 failed")
    return 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return _selftest()
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--allowlist"):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        ref = json.load(f)
    with open(argv[2]) as f:
        test = json.load(f)
    allow = Allowlist.load(argv[4]) if len(argv) == 5 else Allowlist([])
    unexplained, allowed = allow.split(compare(ref, test))
    print(timing_table([("reference", ref), ("test", test)]))
    for d in allowed:
        print("allowed: " + d)
    for d in unexplained:
        print("DIFF: " + d)
    print("%d differences, %d allowed" % (len(unexplained), len(allowed)))
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
