#!/usr/bin/env python3
"""The distro suite's sysvinit boots (issue 28 part 2, Devuan style): Debian 12 with
sysvinit-core as PID 1 booted under QEMU once with devman started by its init script
(units/sysvinit) and once with Debian's udev init script, and the two compared: /dev and the
device database. The image, the machine and the boot are distro.py's. See tests/README.md.

  sysvinit.py image            build (or refresh) the images only
  sysvinit.py boot VARIANT     one boot (sysvinit-devman or sysvinit-udev); the report as JSON
  sysvinit.py test             both boots, checks and comparison (the meson test)
  sysvinit.py evaluate         checks and comparison of the last reports, without booting

Exit status: 0 pass, 1 fail, 77 skip (not root, no QEMU, debootstrap not obtainable)."""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import distro  # noqa: E402
import guestreport  # noqa: E402
import image  # noqa: E402
import sysvimage  # noqa: E402

REFERENCE = "sysvinit-udev"
ALLOWLIST = os.path.join(HERE, "allowlist-sysvinit.txt")
SECTIONS = ["cmdline", "uptime", "waited", "runlevel", "init", "getty", "mounts", "links",
            "dev-find", "db", "modules", "udevadm-info", "manager-warnings", "init-script"]
# what the init script's verbs print in report-sysvinit.sh's init_script_cycle: LSB status
# codes (0 running, 3 not running), then a change event handled by the restarted manager
CYCLE = ["status rc 0", "stop rc 0", "stopped-status rc 3", "start rc 0", "restarted-status rc 0",
         "restart rc 0", "after-restart-status rc 0", "reload rc 0",
         "trigger rc 0", "settle rc 0", "ID_SERIAL=" + image.DATA_SERIAL]
# database lines compared as sets (their order is not meaningful) or not at all (time stamps)
DB_SET_KEYS = {"DEVLINKS", "TAGS", "CURRENT_TAGS"}
DB_SKIP_KEYS = {"USEC_INITIALIZED"}

log = distro.log


class Env(distro.Env):
    """distro.Env with the sysvinit images and their kernel."""
    BASE = "base-sysvinit"
    IMAGES = "images-sysvinit"
    IMAGES_LOCK = "images-sysvinit.lock"
    make_images = staticmethod(sysvimage.make_images)


def db_entries(rep):
    """{device path: {KEY: value}} from `udevadm info --export-db`: the node (N), links (S),
    link priority (L), tags (G, Q), the driver (V) and the properties (E:KEY); input and wakeup
    numbers replaced by * in the path and in DEVPATH."""
    blocks = []
    for block in "\n".join(rep["sections"].get("db", [])).split("\n\n"):
        path, props, links = None, {}, set()
        for line in block.splitlines():
            kind, _, val = line.partition(": ")
            if kind == "P":
                path = val
            elif kind == "S":
                links.add(val)
            elif kind in ("G", "Q"):
                props.setdefault(kind, set()).add(val)
            elif kind in ("N", "L", "V"):
                props[kind] = val
            elif kind == "E":
                k, _, v = val.partition("=")
                if k in DB_SKIP_KEYS:
                    continue
                props["E:" + k] = set(v.split(":" if "TAGS" in k else " ")) - {""} if k in DB_SET_KEYS else v
        if path:
            if links:
                props["S"] = links
            blocks.append((path, props))
    keys = guestreport.kernel_number_keys([path for path, _ in blocks])
    out = {}
    for path, props in blocks:
        if keys[path] != path and "E:DEVPATH" in props:
            props["E:DEVPATH"] = guestreport.kernel_number_path(props["E:DEVPATH"])
        out[keys[path]] = props
    return out


def db_differences(ref, dm):
    """(KIND SUBJECT, what) for each device only one boot has and each differing value."""
    out = []
    rd, dd = db_entries(guestreport.stable(ref)), db_entries(guestreport.stable(dm))
    for path in sorted(set(rd) | set(dd)):
        if path not in dd:
            out.append(("db-missing %s" % path, "only the udev boot has it"))
        elif path not in rd:
            out.append(("db-extra %s" % path, "only the devman boot has it"))
        else:
            for k in sorted(set(rd[path]) | set(dd[path])):
                a, b = rd[path].get(k), dd[path].get(k)
                if a != b:
                    show = (lambda v: " ".join(sorted(v)) if isinstance(v, set) else v)
                    out.append(("db %s %s" % (path, k), "udev: %s, devman: %s" % (show(a), show(b))))
    return out


def check_boot(rep, variant, runlevel):
    """The checks of one sysvinit boot on its own; returns problems (strings)."""
    p = []
    sec = rep["sections"]
    if not rep.get("done"):
        p.append("the report is incomplete (no @@DONE): the guest did not finish")
    missing = [s for s in SECTIONS if s not in sec]
    if missing:
        p.append("report sections missing: %s" % ", ".join(missing))
    if rep.get("manager") != sysvimage.MANAGER[variant]:
        p.append("the guest says its device manager is %r" % rep.get("manager"))
    if rep.get("variant") != variant:
        p.append("the guest says it booted the %r image" % rep.get("variant"))
    # `runlevel` prints "PREVIOUS CURRENT": N (none) then the inittab's default
    if (rep.get("state") or "").split()[-1:] != [runlevel]:
        p.append("runlevel says %r, the default runlevel is %s" % (rep.get("state"), runlevel))
    init = sec.get("init", [])
    if not init or os.path.basename(init[0]) != "init" or "init" not in init[1:2] or len(init) != 2:
        p.append("PID 1 is not sysvinit's init: %s" % init)
    if not sec.get("getty"):
        p.append("no getty runs on ttyS0 (the serial console)")
    m = guestreport.mounts(rep)
    for target, want in (("/mnt/label", image.LABEL_FS), ("/mnt/uuid", image.UUID_FS)):
        if target not in m or m[target][1] != "ext4":
            p.append("%s (fstab %s) is not mounted" % (target, want))
    if image.NET_NAME not in guestreport.interfaces(rep):
        p.append("no interface %s (the name the .link policy gives the NIC): %s"
                 % (image.NET_NAME, guestreport.interfaces(rep)))
    info = sec.get("udevadm-info", [])
    for want in ("N: vdb", "E: ID_SERIAL=" + image.DATA_SERIAL, "S: disk/by-id/virtio-" + image.DATA_SERIAL):
        if want not in info:
            p.append("udevadm info --name=vdb has no %r" % want)
    if sysvimage.MANAGER[variant] == "devman":
        for line in sec.get("manager-warnings", []):
            if "devmand" in line:
                p.append("warning from devmand: %s" % line)
    cycle = sec.get("init-script", [])
    for want in CYCLE:
        if not any(line == want or line.startswith(want) and want.startswith("ID_") for line in cycle):
            p.append("/etc/init.d/%s: no %r after its verbs" % (sysvimage.MANAGER[variant], want))
    if "control socket left" in cycle:
        p.append("/etc/init.d/%s stop left /run/udev/control" % sysvimage.MANAGER[variant])
    return ["%s: %s" % (variant, x) for x in p]


def uptime(rep):
    lines = rep["sections"].get("uptime", [])
    try:
        return float(lines[0].split()[0])
    except (IndexError, ValueError):
        return None


def summary(reps):
    names = [REFERENCE] + [v for v in sysvimage.VARIANTS if v != REFERENCE]
    lines = [("%-28s " % "boot" + " ".join("%-18s" % n for n in names)).rstrip()]

    def row(name, f):
        lines.append(("%-28s " % name + " ".join("%-18s" % f(reps[n]) for n in names)).rstrip())
    row("runlevel", lambda r: r.get("state"))
    row("kernel -> report (s)", lambda r: uptime(r))
    row("report waited for getty (s)", lambda r: (r["sections"].get("waited") or ["-"])[0])
    row("/dev entries", lambda r: len(guestreport.dev_entries(r)))
    row("database devices", lambda r: len(db_entries(r)))
    row("interfaces", lambda r: ",".join(guestreport.interfaces(r)))
    row("host seconds", lambda r: r.get("host_seconds"))
    return "\n".join(lines)


def compare(ref, dm):
    """guestreport's /dev (and interface) comparison and the database's, against the allowlist."""
    allow = guestreport.load_allowlist(ALLOWLIST)
    diffs = guestreport.differences(ref, dm) + db_differences(ref, dm)
    problems, allowed = [], 0
    for subject, what in diffs:
        reason = next((r for g, r in allow if guestreport.fnmatch.fnmatchcase(subject, g)), None)
        if reason:
            allowed += 1
            print("allowed: %s: %s (%s)" % (subject, what, reason))
        else:
            problems.append("%s: %s" % (subject, what))
    print("comparison: %d /dev entries, %d database devices; %d differences, %d allowed"
          % (len(guestreport.dev_entries(dm)), len(db_entries(dm)), len(diffs), allowed))
    return problems


def evaluate(env, runlevel):
    reps = {v: distro.load(env, v) for v in sysvimage.VARIANTS}
    problems = []
    for v in sysvimage.VARIANTS:
        problems += check_boot(reps[v], v, runlevel)
    for v in sysvimage.VARIANTS:
        if v != REFERENCE:
            problems += ["%s: %s" % (v, x) for x in compare(reps[REFERENCE], reps[v])]
    return distro.report(summary(reps), problems)


def run(env, cmd, args):
    if cmd == "image" and not args:
        print(json.dumps(env.images(), indent=1, sort_keys=True))
        return 0
    if cmd == "evaluate" and not args:
        return evaluate(env, sysvimage.default_runlevel(env.cache))
    if cmd == "boot" and len(args) == 1 and args[0] in sysvimage.VARIANTS:
        print(json.dumps(distro.run_boot(env, args[0], env.accel()), indent=1, sort_keys=True))
        return 0
    if cmd == "test" and not args:
        accel = env.accel()
        for variant in (REFERENCE,) + tuple(v for v in sysvimage.VARIANTS if v != REFERENCE):
            distro.run_boot(env, variant, accel)
        return evaluate(env, sysvimage.default_runlevel(env.cache))
    return None


if __name__ == "__main__":
    sys.exit(distro.cli(sys.argv, __doc__, run, Env))
