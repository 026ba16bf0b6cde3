#!/usr/bin/env python3
"""devmanadm snapshot / compare on the live kernel (root).

  - a snapshot of the live /sys compared with itself: exit 0, nothing reported;
  - a snapshot before and after adding a real loop device through /dev/loop-control (a high
    index of our own, always removed): compare reports that device appearing, as block/loopN
    with the devt the kernel's /sys/block/loopN/dev gives, plus the kernel's bdi/MAJ:MIN class
    device of its queue; nothing else, except foreign loop devices (other tests create and
    remove loop devices at the same time; they are shown and tolerated);
  - after removing it: compared with the first snapshot, our device is not reported.
Usage: snapshot-live.py BUILDDIR   (exits 77 when not root or without /dev/loop-control)
"""
import os, re, subprocess, sys, tempfile

build = sys.argv[1]
src = os.environ.get("DEVMAN_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
adm = os.path.join(build, "daemon", "devmanadm")
loopctl = os.path.join(build, "tests", "loopctl")
rules = os.path.join(src, "rules")
if os.geteuid() != 0 or not os.access("/dev/loop-control", os.W_OK):
    print("not root or no /dev/loop-control: skipped")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import tap  # noqa: E402
from tap import check  # noqa: E402

def snapshot(path):
    # devman's own rules: they only name, link and set permissions; PROGRAMs of stock rules stay out
    p = subprocess.run([adm, "snapshot", "--rules-dir", rules, "-o", path], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr)
    return p.returncode

def compare(a, b):
    p = subprocess.run([adm, "compare", a, b], capture_output=True, text=True)
    items, group = [], None
    for line in p.stdout.splitlines():
        m = re.match(r"^== (.*) \(\d+", line)
        if m:
            group = m.group(1)
            continue
        m = re.match(r"^(\S+) (\S+): (.*)$", line)
        if m and group not in (None, "classes") and not group.startswith("gained"):
            items.append((m.group(1), m.group(2), m.group(3)))
    return p.returncode, items, p

def foreign(key, ours):
    """A loop device (or its queue's bdi) that is not ours: other tests' churn. One caught while
    the kernel removes it may have lost its subsystem link already (key @devpath)."""
    if key in ours:
        return False
    return re.match(r"^(block/loop\d+|bdi/7:\d+|@/devices/virtual/(block/loop\d+|bdi/7:\d+))$", key) is not None

# an index of our own, away from the machine's loop devices and other tests' (3000+, 142000+)
idx = 6000 + (os.getpid() % 1000) * 3
while os.path.exists("/sys/block/loop%d" % idx):
    idx += 1
added = False
with tempfile.TemporaryDirectory(prefix="devman-snaplive.") as tmp:
    before, during, after = (os.path.join(tmp, n + ".snap") for n in ("before", "during", "after"))
    try:
        check(snapshot(before) == 0, "snapshot of the live /sys exits 0")
        rc, items, p = compare(before, before)
        check(rc == 0 and not items and "nothing userspace-visible changed" in p.stdout,
              "a live snapshot compared with itself: exit 0, nothing reported")
        again = os.path.join(tmp, "again.snap")
        check(snapshot(again) == 0, "a second live snapshot exits 0")
        rc, items, p = compare(before, again)
        for i in items:
            if not foreign(i[1], set()):
                print("  %s %s: %s" % i)
        check(all(foreign(i[1], set()) for i in items),
              "two consecutive live snapshots differ at most by foreign loop devices (%d)" % len(items))

        r = subprocess.run([loopctl, "add", str(idx), "1"])
        added = r.returncode == 0
        if not check(added, "loop%d added through /dev/loop-control" % idx):
            sys.exit(1)
        with open("/sys/block/loop%d/dev" % idx) as f:
            majmin = f.read().strip()  # the kernel's word, not devman's
        ours = {"block/loop%d" % idx, "bdi/%s" % majmin}
        check(snapshot(during) == 0, "snapshot with loop%d exits 0" % idx)
    finally:
        if added:
            subprocess.run([loopctl, "remove", str(idx), "1"])
    check(not os.path.exists("/sys/block/loop%d" % idx), "loop%d removed again" % idx)

    rc, items, p = compare(before, during)
    mine = [i for i in items if i[1] in ours]
    others = [i for i in items if i[1] not in ours]
    for i in items:
        print("  %s %s: %s%s" % (i[0], i[1], i[2], "  (foreign)" if i[1] not in ours else ""))
    check(rc == 1, "before -> with the loop device: exit 1")
    loop = [i for i in mine if i[1] == "block/loop%d" % idx]
    check(len(loop) == 1 and loop[0][0] == "appeared" and ("devt b %s" % majmin) in loop[0][2]
          and "node loop%d" % idx in loop[0][2],
          "block/loop%d reported as appeared, devt b %s, node loop%d" % (idx, majmin, idx))
    check([i[0] for i in mine if i[1] == "bdi/" + majmin] == ["appeared"], "its bdi/%s reported as appeared" % majmin)
    check(len(mine) == 2, "nothing else reported about our device")
    check(all(foreign(i[1], ours) for i in others), "everything else concerns foreign loop devices (%d)" % len(others))

    check(snapshot(after) == 0, "snapshot after removing it exits 0")
    rc, items, p = compare(before, after)
    check(not [i for i in items if i[1] in ours], "after removal, our device is not reported")
    check(all(foreign(i[1], ours) for i in items), "nor anything but foreign loop devices (%d)" % len(items))

tap.finish()
