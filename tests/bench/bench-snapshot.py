#!/usr/bin/env python3
"""Benchmark: devmanadm snapshot and compare on a generated tree of N devices (default 10 000).

gen-sysfs.py --scale N writes the same synthetic machine in both layouts; devman snapshots
each (devman's own rules) and compares legacy -> converted. Prints wall time, CPU time and
peak RSS of every step. Checks what the generator's manifest says: N records per snapshot,
exit 0, the "scale" class converted with the manifest's number of class devices.
Usage: bench-snapshot.py BUILDDIR [N]
"""
import json, os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import fixture  # noqa: E402
import tap  # noqa: E402
from tap import check  # noqa: E402

build, src = fixture.start(sys.argv, root=False)
n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
adm = fixture.devmanadm(build)
rules = os.path.join(src, "rules")

if not os.access("/usr/bin/time", os.X_OK):
    print("no /usr/bin/time (Debian package time): skipped")
    sys.exit(77)

def run_timed(what, argv, tmp):
    """Runs argv under /usr/bin/time (the peak RSS of a child forked from this Python would
    count Python's own pages); prints wall time, CPU time and peak RSS."""
    stats = os.path.join(tmp, "time")
    p = subprocess.run(["/usr/bin/time", "-o", stats, "-f", "%e %U %S %M"] + argv, capture_output=True, text=True)
    with open(stats) as f:
        wall, user, system, rss = f.read().split()[-4:]
    print("  %-40s wall %6.2f s  cpu %6.2f s  peak RSS %6.1f MiB" %
          (what, float(wall), float(user) + float(system), int(rss) / 1024))
    if p.stderr.strip():
        print("  stderr: " + p.stderr.strip()[:2000])
    return p

with tempfile.TemporaryDirectory(prefix="devman-bench-snap.") as tmp:
    snaps = {}
    for layout in ("legacy", "converted"):
        tree = os.path.join(tmp, layout)
        man = tree + ".json"
        t0 = time.monotonic()
        fixture.gen_sysfs(tree, layout, manifest=man, extra=["--scale", str(n)], quiet=False)
        print("  %-40s wall %6.2f s" % ("gen-sysfs --scale %d --layout %s" % (n, layout), time.monotonic() - t0))
        with open(man) as f:
            devices = json.load(f)["devices"]
        snaps[layout] = os.path.join(tmp, layout + ".snap")
        p = run_timed("snapshot (%s, %d devices)" % (layout, n),
                      [adm, "--sysfs", tree, "snapshot", "--rules-dir", rules, "-o", snaps[layout]], tmp)
        check(p.returncode == 0, "%s: snapshot exits 0" % layout)
        with open(snaps[layout]) as f:
            records = sum(1 for line in f if line.startswith("device "))
        # the generator also writes /devices/platform with a uevent file, outside its table
        check(records == len(devices) + 1 and len(devices) == n,
              "%s: %d records: the manifest's %d and /devices/platform" % (layout, records, len(devices)))
        print("  snapshot size: %.1f KiB" % (os.path.getsize(snaps[layout]) / 1024))
    p = run_timed("compare legacy -> converted", [adm, "compare", snaps["legacy"], snaps["converted"]], tmp)
    check(p.returncode == 0, "compare legacy -> converted exits 0")
    n_class = sum(1 for d in devices if d["kind"] == "class")
    check("scale: %d devices converted, nothing visible changed" % n_class in p.stdout,
          "the scale class: %d devices converted, nothing visible changed" % n_class)

tap.finish()
