#!/usr/bin/env python3
"""The distro suite's fault boots (issue 28 part 4): the systemd image with devman, booted with
a fault, and held to the same checks and comparison as a plain boot. See tests/README.md
("Distribution boots").

  devman-kill      a rule's RUN program SIGKILLs devmand (its parent) at the first add event
                   of a PCI device, in the middle of coldplug, once; systemd restarts it
                   (Restart=always) and the boot must still come out as the udevd boot does
  devman-badrules  /etc/udev/rules.d holds a rules file with broken lines among good ones:
                   devmand names each broken line (file:line), the good lines still work

The fault images are copies of root-devman.img with a few files written by debugfs (no loop
device, no second mkfs of the tree).

  faults.py test                  the udevd boot (the reference), both fault boots, checks, comparison
  faults.py boot VARIANT          one boot (devman-kill or devman-badrules); its parsed report
  faults.py evaluate              checks and comparison of the last reports, without booting

Exit status: 0 pass, 1 fail, 77 skip (as distro.py)."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import distro  # noqa: E402
import guestreport  # noqa: E402
import image  # noqa: E402

FAULTS = ("devman-kill", "devman-badrules")
# The add event whose RUN program kills devmand: the first of a PCI device. devmand starts
# once the trigger unit has run, so the kernel socket then holds the whole coldplug and the
# daemon has read hundreds of events it has not finished. (A program run for every add, to
# count them, doubles a TCG guest's coldplug time.)
KILL_MATCH = 'ACTION=="add", SUBSYSTEM=="pci"'
KILL_DIR = "/run/devman-fault"
KILL_PROGRAM = "/usr/local/sbin/devman-fault-kill"
KILL_TAG = "devman-fault"
KILL_RULES = """# made by tests/distro/faults.py: the first PCI device's add kills devmand, once per boot
%s, RUN+="%s"
""" % (KILL_MATCH, KILL_PROGRAM)
KILL_SCRIPT = """#!/bin/sh
# made by tests/distro/faults.py: RUN for the add events of PCI devices. The first one of the
# boot SIGKILLs devmand, this program's parent, by its PID (%(dir)s is a tmpfs: once per boot).
mkdir -p %(dir)s && mkdir %(dir)s/killed 2>/dev/null || exit 0
echo "$DEVPATH" >%(dir)s/killed/devpath
# the kernel's log, at user.warning: journald takes it from there whatever becomes of this
# process (a syslog message of a process gone before journald reads it names no unit)
echo "<12>%(tag)s[$$]: killing devmand (pid $PPID) with SIGKILL at the add of $DEVPATH" >/dev/kmsg
kill -KILL "$PPID"
""" % {"dir": KILL_DIR, "tag": KILL_TAG}

# good lines among broken ones in one file; the good lines make links and a property of the
# data disk (vdb), the broken ones would make links too
BROKEN_FILE = "/etc/udev/rules.d/60-devman-fault-broken.rules"
BROKEN_LINES = [
    ("good", 'KERNEL=="vdb", SYMLINK+="devman-fault/good-first"'),
    ("bad", 'KERNEL=="vdb", NOSUCHKEY=="x", SYMLINK+="devman-fault/bad-key"'),
    ("bad", 'KERNEL=="vdb", SYMLINK+="devman-fault/bad-quote'),
    ("good", 'KERNEL=="vdb", ENV{DEVMAN_FAULT_GOOD}="yes"'),
    ("bad", 'KERNEL=="vdb", ENV{DEVMAN_FAULT_BAD=="x", SYMLINK+="devman-fault/bad-brace"'),
    ("bad", 'KERNEL=="vdb", SYMLINK "devman-fault/bad-operator"'),
    ("good", 'KERNEL=="vdb", SYMLINK+="devman-fault/good-last"'),
]
GOOD_LINKS = ["/dev/devman-fault/good-first", "/dev/devman-fault/good-last"]
GOOD_PROPERTY = "E: DEVMAN_FAULT_GOOD=yes"
BROKEN_HEADER = "# made by tests/distro/faults.py: broken lines among good ones\n"


def broken_rules():
    """The file's text and the numbers of its broken lines (after the one-line header)."""
    text, bad = BROKEN_HEADER, []
    for i, (kind, line) in enumerate(BROKEN_LINES):
        text += line + "\n"
        if kind == "bad":
            bad.append(i + 2)
    return text, bad


def guest_files(variant):
    """{guest path: (text, mode)} the variant adds to the devman image."""
    files = {image.VARIANT_FILE: (variant + "\n", 0o644)}
    if variant == "devman-kill":
        files["etc/udev/rules.d/00-devman-fault-kill.rules"] = (KILL_RULES, 0o644)
        files[KILL_PROGRAM.lstrip("/")] = (KILL_SCRIPT, 0o755)
    else:
        files[BROKEN_FILE.lstrip("/")] = (broken_rules()[0], 0o644)
    return files


def _debugfs(img, commands):
    p = subprocess.run(["debugfs", "-w", "-f", "-", img], input="\n".join(commands) + "\n",
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError("debugfs %s failed (%d): %s" % (img, p.returncode, p.stdout[-2000:]))
    return p.stdout


def write_into(img, files):
    """Writes each file (root-owned, its mode) into the ext4 image; checks it reads back."""
    with tempfile.TemporaryDirectory(prefix="devman-faults.") as tmp:
        cmds = []
        for i, (path, (text, mode)) in enumerate(sorted(files.items())):
            local = os.path.join(tmp, str(i))
            with open(local, "w") as f:
                f.write(text)
            dest = "/" + path
            cmds += ["rm %s" % dest, "write %s %s" % (local, dest),
                     "sif %s mode 0%o" % (dest, 0o100000 | mode), "sif %s uid 0" % dest,
                     "sif %s gid 0" % dest]
        _debugfs(img, cmds)
    for path, (text, mode) in files.items():
        got = subprocess.run(["debugfs", "-R", "cat /" + path, img], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, timeout=60).stdout
        if got != text:
            raise RuntimeError("debugfs did not write /%s into %s" % (path, img))


def make_images(env):
    """root-devman-kill.img and root-devman-badrules.img next to the suite's images."""
    imgs = env.images()
    with image.locked(env.cache, "images.lock"):
        for variant in FAULTS:
            dst = os.path.join(os.path.dirname(imgs["devman"]), "root-%s.img" % variant)
            subprocess.run(["cp", "--sparse=always", "--reflink=auto", imgs["devman"], dst], check=True)
            write_into(dst, guest_files(variant))
            imgs[variant] = dst  # distro.boot() finds it in env.images()
    return imgs


def as_devman(rep):
    """The report as the plain devman boot's checks expect it (the guest names its image)."""
    out = json.loads(json.dumps(rep))
    out["variant"] = "devman"
    return out


def journal(rep, section="journal-manager-all"):
    return rep["sections"].get(section, [])


def stamp(line):
    """The monotonic time stamp of a `journalctl -o short-monotonic` line, or None."""
    m = re.match(r"^\[\s*([0-9.]+)\]", line)
    return float(m.group(1)) if m else None


def check_kill(rep):
    """The kill happened once, at a PCI device's add, during coldplug; systemd restarted the
    daemon once, the restarted daemon saw the crash; the only warning is the kill's."""
    p = []
    allj = journal(rep)
    # the kill's message comes through the kernel's log: among all warnings
    kills = [line for line in journal(rep, "journal-warnings") if KILL_TAG + "[" in line and "killing devmand" in line]
    if len(kills) != 1:
        p.append("devman-kill: %d kill messages in the journal, wanted 1: %s" % (len(kills), kills))
    else:
        m = re.search(r"pid (\d+)\) with SIGKILL at the add of (/devices/pci\S+)$", kills[0])
        if not m:
            p.append("devman-kill: the kill message names no PCI device's add: %s" % kills[0])
    restarts = show_restarts(rep)
    if restarts != 1:
        p.append("devman-kill: devman.service NRestarts=%s, wanted 1" % restarts)
    for want in ("devman.service: Main process exited, code=killed, status=9/KILL",
                 "devman.service: Scheduled restart job",
                 "The previous daemon did not exit cleanly: reconciling"):
        if not any(want in line for line in allj):
            p.append("devman-kill: the journal has no %r" % want)
    # the restarted daemon processes every device again (by a synthetic add, or by the event
    # waiting for it in the kernel socket): what the killed one lost among them
    redo = [(int(m.group(1)), int(m.group(2))) for m in (re.search(
        r"Reconciled with the previous state: .*; (\d+) devices to process again, (\d+) more have events waiting",
        line) for line in allj) if m]
    if not redo or sum(redo[-1]) == 0:
        p.append("devman-kill: the restarted daemon listed no device to process again (%s)" % redo)
    # coldplug was still being processed: the kill came before the settle unit finished (the
    # trigger unit itself may be done: the kernel socket holds its events for the daemon)
    settled = [stamp(line) for line in allj if "Finished devman-settle.service" in line]
    if not settled or settled[0] is None:
        p.append("devman-kill: the journal has no 'Finished devman-settle.service'")
    elif kills and (stamp(kills[0]) is None or stamp(kills[0]) > settled[0]):
        p.append("devman-kill: the daemon was killed after coldplug had settled")
    return p


def show_restarts(rep):
    v = guestreport.show_props(rep, "manager-units").get("devman.service", {}).get("NRestarts")
    return int(v) if v and v.isdigit() else None


def check_badrules(rep):
    """Each broken line is reported as FILE:LINE, nothing else is; the good lines worked."""
    p = []
    _, bad = broken_rules()
    warn = journal(rep, "journal-manager")
    for n in bad:
        tag = "%s:%d:" % (BROKEN_FILE, n)
        if not any(tag in line for line in warn):
            p.append("devman-badrules: the journal does not name %s" % tag.rstrip(":"))
    named = set()
    for line in warn:
        m = re.search(re.escape(BROKEN_FILE) + r":(\d+):", line)
        if m:
            named.add(int(m.group(1)))
    if named - set(bad):
        p.append("devman-badrules: good lines reported as broken: %s" % sorted(named - set(bad)))
    dev = guestreport.dev_entries(rep)
    for link in GOOD_LINKS:
        if link not in dev or not dev[link].startswith("l "):
            p.append("devman-badrules: the good line's link %s is missing" % link)
    extra = [path for path in dev if path.startswith("/dev/devman-fault/") and path not in GOOD_LINKS
             and path != "/dev/devman-fault"]
    if extra:
        p.append("devman-badrules: broken lines took effect: %s" % extra)
    if GOOD_PROPERTY not in rep["sections"].get("udevadm-info", []):
        p.append("devman-badrules: vdb has no %r (a good line after broken ones)" % GOOD_PROPERTY)
    return p


def expected_warning(variant, line):
    """A warning of the device manager's units that the fault itself causes."""
    if variant == "devman-kill":
        return line.strip() in ("devman.service: Failed with result 'signal'.",
                                "devman.service: Main process exited, code=killed, status=9/KILL")
    return BROKEN_FILE + ":" in line or \
        line.strip() == "Rules loaded with %d errors (those lines are skipped)" % len(broken_rules()[1])


def fault_extra(subject):
    """Differences from the udevd boot the good lines of the broken file cause (checked above)."""
    return subject.startswith("dev /dev/devman-fault") or \
        subject.startswith("unit-extra dev-devman\\x2dfault")


def db_entries(rep, drop=lambda word: False):
    """{devpath: sorted lines} of `udevadm info --export-db`, without the time stamps; links
    and tags in order; lines and links for which drop() is true left out. Input and wakeup
    numbers as * (guestreport.kernel_number_keys), in the key and in DEVPATH."""
    blocks = "\n".join(rep["sections"].get("db", [])).split("\n\n")
    keys = guestreport.kernel_number_keys([line[3:] for block in blocks for line in block.splitlines()
                                           if line.startswith("P: ")])
    out = {}
    for block in blocks:
        lines = [line for line in block.splitlines() if line.strip()]
        path = next((line[3:] for line in lines if line.startswith("P: ")), None)
        if not path:
            continue
        keep = []
        for line in lines:
            if line.startswith("E: USEC_INITIALIZED=") or (drop(line) and not line.startswith("E: DEVLINKS=")):
                continue
            key, _, value = line.partition("=")
            # the order of links and tags is not meaningful (udevd keeps them in a hash set)
            if key == "E: DEVLINKS":
                line = key + "=" + " ".join(sorted(w for w in value.split() if not drop(w)))
            elif key in ("E: TAGS", "E: CURRENT_TAGS"):
                line = key + "=:" + "".join(t + ":" for t in sorted(filter(None, value.split(":"))))
            elif key == "E: DEVPATH" and keys[path] != path:
                line = key + "=" + guestreport.kernel_number_path(value)
            elif line.startswith("P: "):
                line = "P: " + keys[path]
            keep.append(line)
        out[keys[path]] = sorted(keep)
    return out


def db_differences(ref, rep, drop=lambda word: False):
    """Database entries that differ from the reference (udevd) boot's."""
    out = []
    a, b = db_entries(guestreport.stable(ref)), db_entries(guestreport.stable(rep), drop)
    for path in sorted(set(a) | set(b)):
        if a.get(path) != b.get(path):
            only_ref = sorted(set(a.get(path, [])) - set(b.get(path, [])))
            only_rep = sorted(set(b.get(path, [])) - set(a.get(path, [])))
            out.append("db %s: udevd only %s, fault boot only %s" % (path, only_ref, only_rep))
    return out


def evaluate_fault(reps, variant):
    rep = reps[variant]
    p = []
    if rep.get("variant") != variant:
        p.append("%s: the guest says it booted the %r image" % (variant, rep.get("variant")))
    plain = as_devman(rep)
    plain["sections"]["journal-manager"] = [line for line in journal(rep, "journal-manager")
                                            if not expected_warning(variant, line)]
    p += [variant + x[len("devman"):] if x.startswith("devman:") else x
          for x in guestreport.check_boot(plain, "devman")]
    p += check_kill(rep) if variant == "devman-kill" else check_badrules(rep)
    for diff in guestreport.compare(reps["udevd"], rep, os.path.join(HERE, "allowlist.txt"), variant):
        if not (variant == "devman-badrules" and fault_extra(diff)):
            p.append("%s: %s" % (variant, diff))
    # the good lines' link and property (checked above) are the broken-rules boot's own
    drop = (lambda w: "DEVMAN_FAULT_GOOD" in w or "devman-fault/" in w) if variant == "devman-badrules" \
        else (lambda w: False)
    p += ["%s: %s" % (variant, d) for d in db_differences(reps["udevd"], rep, drop)]
    return p


def summary(reps):
    lines = []
    for v in FAULTS:
        rep = reps[v]
        lines.append("%-16s state %s, %d device units, %d failed units, devman.service restarts %s, %.0f s"
                     % (v, rep.get("state"), len(guestreport.device_units(rep)),
                        len(guestreport.failed_units(rep)), show_restarts(rep), rep.get("host_seconds") or 0))
    for line in journal(reps["devman-kill"], "journal-warnings") + journal(reps["devman-kill"]):
        if KILL_TAG + "[" in line or "Main process exited" in line or "did not exit cleanly" in line \
                or "Reconciled" in line or "Scheduled restart" in line:
            lines.append("  kill: " + line)
    for line in journal(reps["devman-badrules"], "journal-manager"):
        lines.append("  badrules: " + line)
    return "\n".join(lines)


def evaluate(env):
    reps = {v: distro.load(env, v) for v in ("udevd",) + FAULTS}
    problems = guestreport.check_boot(reps["udevd"], "udevd")
    for v in FAULTS:
        problems += evaluate_fault(reps, v)
    return distro.report(summary(reps), problems)


def run(env, cmd, args):
    if cmd == "evaluate" and not args:
        return evaluate(env)
    if not (cmd == "boot" and len(args) == 1 and args[0] in FAULTS + ("udevd",)
            or cmd == "test" and not args):
        return None
    if not shutil.which("debugfs"):
        raise image.Unavailable("debugfs (e2fsprogs) is not installed")
    make_images(env)
    accel = env.accel()
    if cmd == "boot":
        print(json.dumps(distro.run_boot(env, args[0], accel), indent=1, sort_keys=True))
        return 0
    for variant in ("udevd",) + FAULTS:
        distro.run_boot(env, variant, accel)
    return evaluate(env)


if __name__ == "__main__":
    sys.exit(distro.cli(sys.argv, __doc__, run))
