#!/usr/bin/env python3
"""The distro suite's initramfs boot (issue 28, part 3): Debian 12's initramfs-tools with
devman instead of udev in the initramfs, through the hook and scripts devman installs
(-Dinitramfs-tools=enabled, units/initramfs-tools). See tests/README.md ("distro").

  initrd.py test      the image (update-initramfs in the chroot), two boots and the checks
  initrd.py evaluate  the checks of the last two reports, without booting

The devman-initrd image is the devman image (devman.service, udevd's units masked) whose
/boot/initrd.img was made again by `update-initramfs -u` with devman's hook installed; it
boots with root=UUID=. It also has EVENTS_UNIT, which runs before devman.service: it writes
down the database the initramfs left (HANDOVER), then keeps `udevadm monitor --udev
--property` running, so every event the real root's devmand processed and broadcast is
recorded. The reference is the devman image booted with Debian's initramfs (udevd in the
initramfs, then the real root's devman takes over udevd's database).

Exit status: 0 pass, 1 fail, 77 skip (not root, no QEMU, debootstrap not obtainable)."""

import collections
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import distro  # noqa: E402
import guestreport  # noqa: E402
import image  # noqa: E402

VARIANT = "devman-initrd"
REFERENCE = "devman"
# the variant is the devman set-up (settle unit pulled in), with another initramfs
image.MANAGER.setdefault(VARIANT, "devman")
image.SETTLED.setdefault(VARIANT, True)
HANDOVER_FILE = "/run/devman-distro-handover.txt"
HANDOVER_SCRIPT = "usr/local/sbin/devman-distro-handover"
# run before devman.service starts: the database the initramfs left, one "ID<tab>DEVPATH" line
# per entry (both may hold spaces: "+drivers:pnp:i8042 kbd"; the devpath found through
# sysfs as libudev would: /sys/dev/{char,block}/M:m, the
# interface index, /sys/bus/S/devices/N, /sys/class/S/N, /sys/bus/B/drivers/N, /sys/module/N)
HANDOVER = r"""#!/bin/sh
# made by tests/distro/initrd.py; shell built-ins per entry, three programs in all (forks are
# slow under TCG, and this runs before devman starts)
cd /run/udev/data 2>/dev/null || exit 0
tmp=/run/devman-distro-handover.tmp
: > "$tmp.ids"
: > "$tmp.paths"
for e in *; do
    [ -e "$e" ] || continue
    p=
    case "$e" in
    c*) p=/sys/dev/char/${e#c} ;;
    b*) p=/sys/dev/block/${e#b} ;;
    n*)
        for i in /sys/class/net/*; do
            read -r idx < "$i/ifindex"
            if [ "$idx" = "${e#n}" ]; then
                p=$i
            fi
        done
        ;;
    +drivers:*)
        d=${e#+drivers:}
        p=/sys/bus/${d%%:*}/drivers/${d#*:}
        ;;
    +module:*) p=/sys/module/${e#+module:} ;;
    +*)
        s=${e#+}
        p=/sys/bus/${s%%:*}/devices/${s#*:}
        [ -e "$p" ] || p=/sys/class/${s%%:*}/${s#*:}
        ;;
    esac
    if [ -n "$p" ] && [ -e "$p" ]; then
        echo "$e" >> "$tmp.ids"
        echo "$p" >> "$tmp.paths"
    else
        printf '%s\t-\n' "$e"
    fi
done > @OUT@
xargs -r -d '\n' readlink -f < "$tmp.paths" | sed 's|^/sys||' | paste "$tmp.ids" - >> @OUT@
rm -f "$tmp.ids" "$tmp.paths"
""".replace("@OUT@", HANDOVER_FILE)
EVENTS_FILE = "/run/devman-distro-events.txt"
EVENTS_UNIT = "devman-distro-events.service"
# started before devman.service and its kernel socket, ready once the monitor listens (its
# "UDEV - " line; $$ is a $ for systemd), stopped by report.sh before it reads the file
EVENTS_SERVICE = """# made by tests/distro/initrd.py
[Unit]
Description=devman distro suite: every processed event, from before devman starts
DefaultDependencies=no
Before=devman.service devman-kernel.socket devman-control.socket sysinit.target

[Service]
ExecStartPre=/%(h)s
ExecStart=/bin/sh -c 'exec stdbuf -oL udevadm monitor --udev --property >%(f)s 2>&1'
ExecStartPost=/bin/sh -c 'i=0; until grep -q "^UDEV - " %(f)s || [ $$i -ge 100 ]; do sleep 0.1; i=$$((i+1)); done'

[Install]
WantedBy=sysinit.target
""" % {"f": EVENTS_FILE, "h": HANDOVER_SCRIPT}
ROOT_LINK = "/dev/disk/by-uuid/" + image.ROOT_UUID
# the install paths of the usr build (prefix /usr), as they appear in the initramfs
IN_INITRD = ["usr/sbin/devmand", "usr/bin/devmanadm", "scripts/init-top/devman",
             "scripts/init-bottom/devman", "usr/lib/udev/rules.d/60-devman-storage.rules"]


def enable_hook(build_root):
    """A usr build set up before -Dinitramfs-tools=enabled joined image.usr_build's options
    gets it now (meson regenerates on the next build)."""
    bdir = os.path.join(build_root, "tests", "distro", "usr-build")
    if not os.path.exists(os.path.join(bdir, "build.ninja")):
        return
    opts = json.loads(image._run(["meson", "introspect", "--buildoptions", bdir]))
    if any(o["name"] == "initramfs-tools" and o["value"] != "enabled" for o in opts):
        image._run(["meson", "configure", bdir, "-Dinitramfs-tools=enabled"])


def make_initrd_image(tree, out, kver):
    """image.make_images' extra step: the devman set-up, devman's initramfs made in the
    chroot as an administrator would (update-initramfs -u), root-devman-initrd.img."""
    image.enable_manager(tree, VARIANT)
    image._write(os.path.join(tree, "etc/systemd/system", EVENTS_UNIT), EVENTS_SERVICE)
    image._write(os.path.join(tree, HANDOVER_SCRIPT), HANDOVER, 0o755)
    image._chroot_systemctl(tree, "enable", EVENTS_UNIT)
    hook = os.path.join(tree, "usr/share/initramfs-tools/hooks/devman")
    if not os.path.exists(hook):
        raise RuntimeError("meson install put no initramfs-tools hook at %s (-Dinitramfs-tools)" % hook)
    initrd = os.path.join(tree, "boot", "initrd.img-" + kver)
    before = os.stat(initrd).st_mtime_ns
    with_proc = os.path.join(tree, "proc")
    image._run(["mount", "-t", "proc", "proc", with_proc])
    try:
        text = image._run(["chroot", tree, "update-initramfs", "-u", "-k", kver], timeout=900)
        listing = image._run(["chroot", tree, "lsinitramfs", "-l", "/boot/initrd.img-" + kver], timeout=300)
    finally:
        image._run(["umount", with_proc])
    if os.stat(initrd).st_mtime_ns == before:
        raise RuntimeError("update-initramfs did not write %s:\n%s" % (initrd, text))
    made = {"initrd-devman": os.path.join(out, "initrd-devman.img"),
            "initrd-devman-list": os.path.join(out, "initrd-devman.list"),
            VARIANT: os.path.join(out, "root-%s.img" % VARIANT)}
    shutil.copy(initrd, made["initrd-devman"])
    with open(made["initrd-devman-list"], "w") as f:
        f.write(listing)
    with open(os.path.join(out, "update-initramfs.log"), "w") as f:
        f.write(text)
    image.root_image(tree, made[VARIANT])
    return made


def listing_entries(text):
    """{path: link target or ''} from `lsinitramfs -l` (ls -l lines; paths without ./)."""
    entries = {}
    for line in text.splitlines():
        w = line.split()
        if len(w) < 9 or not w[0][:1] in "-dlcbps":
            continue
        name = " ".join(w[8:])
        target = ""
        if " -> " in name:
            name, target = name.split(" -> ", 1)
        entries[name.lstrip("./") if name not in (".", "./") else "."] = target
    return entries


def check_listing(text):
    """devman's programs, scripts and rules are in the image; udevd and its scripts are not;
    udevadm is devmanadm."""
    p = []
    entries = listing_entries(text)
    if not entries:
        return ["initramfs: lsinitramfs listed nothing"]
    for path in IN_INITRD:
        if path not in entries and path.replace("usr/", "", 1) not in entries:
            p.append("initramfs: %s is missing" % path)
    for path in entries:
        if path.endswith("/systemd-udevd") or path in ("scripts/init-top/udev", "scripts/init-bottom/udev"):
            p.append("initramfs: udev's %s is in the image" % path)
    udevadm = [t for pth, t in entries.items() if pth.endswith("bin/udevadm")]
    if not udevadm or any(not t.endswith("/devmanadm") for t in udevadm):
        p.append("initramfs: udevadm is not devmanadm (%s)" % udevadm)
    return p


def initramfs_parts(rep):
    """The initramfs section's parts ('stamp', 'rootmount', 'by-uuid', 'kmsg') as lines."""
    parts, cur = {}, None
    for line in rep["sections"].get("initramfs", []):
        if line.startswith("== "):
            cur = line[3:]
            parts[cur] = []
        elif cur:
            parts[cur].append(line)
    return parts


def events(rep):
    """[(seqnum, action, devpath)] the real root's devmand broadcast (report.sh's 'events' part:
    one "SEQNUM ACTION DEVPATH" line per event, SEQNUM "-" when the event had none); None when
    the monitor did not run."""
    lines = initramfs_parts(rep).get("events")
    if lines is None:
        return None
    out = []
    for line in lines:
        w = line.split(" ", 2)  # a devpath may hold spaces
        if len(w) == 3:
            # "-": no SEQNUM, an event devmand made up itself
            out.append((int(w[0]) if w[0].isdigit() else 0, w[1], w[2]))
    return out


def handover_devpaths(rep):
    """{database id: devpath or '-'} of the database the initramfs left (report part 'handover')."""
    out = {}
    for line in initramfs_parts(rep).get("handover", []):
        w = line.split("\t", 1)
        if len(w) == 2:
            out[w[0]] = w[1]
    return out


def db_devpaths(rep):
    """The P: line of every database entry, in order (duplicates kept)."""
    return [line[3:] for line in rep["sections"].get("db", []) if line.startswith("P: ")]


def check_initramfs(rep, ref, console, ref_console):
    """The checks of issue 28 part 3 on the devman-initrd boot; ref is the reference boot, the
    consoles their serial console logs."""
    p = []
    parts = initramfs_parts(rep)
    stamp = [line.split() for line in parts.get("stamp", [])]
    kinds = [w[0] for w in stamp if w]
    # 1. devman's init-top ran, coldplugged and settled; init-bottom stopped devmand cleanly
    if "start" not in kinds:
        p.append("initramfs: no stamp of devman's init-top script in /run/devman/initramfs (%s)" % stamp)
    settled = [w for w in stamp if w[0] == "settled"]
    if not settled or settled[0][-1] != "0":
        p.append("initramfs: devmanadm settle did not return 0 in the initramfs (%s)" % settled)
    if "exited" not in kinds:
        p.append("initramfs: devmand did not exit before the switch of root (%s)" % kinds)
    # 2. root=UUID= was given to scripts/local as devman's by-uuid link, and / was mounted from it
    roots = [w for w in stamp if w[0] == "root"]
    if roots != [["root", "UUID=" + image.ROOT_UUID, ROOT_LINK]]:
        p.append("initramfs: root= was not turned into %s (%s)" % (ROOT_LINK, roots))
    rootmount = " ".join(parts.get("rootmount", []))
    src = rootmount.split(" - ", 1)[1].split()[1] if " - " in rootmount else None
    if src != ROOT_LINK:
        p.append("initramfs: / was mounted from %r, not %s" % (src, ROOT_LINK))
    links = dict(line.split(" ", 1) for line in parts.get("by-uuid", []) if " " in line)
    if links.get(ROOT_LINK) != "/dev/vda":
        p.append("initramfs: %s resolves to %r, not /dev/vda" % (ROOT_LINK, links.get(ROOT_LINK)))
    # 3. udevd never ran in the initramfs (its binary is not there either: check_listing): it
    # says "Starting systemd-udevd version" on the console (the reference boot's shows it) and
    # logs to the kernel log
    udevd = [line for line in console.splitlines() + parts.get("kmsg", []) if "udevd" in line]
    if udevd:
        p.append("initramfs: udevd ran: %s" % udevd[0])
    if "Starting systemd-udevd" not in ref_console:
        p.append("reference: its console shows no udevd start: the check above proves nothing")
    # 4. the handover: the real root's devmand found a cleanly left database, nothing to
    # replay by itself; its coldplug processed every device once; the database holds every
    # device once, the same devices as the reference's
    journal = rep["sections"].get("journal-manager-all", [])
    for line in journal:
        if "did not exit cleanly" in line:
            p.append("handover: the real root's devmand took the initramfs' exit for a crash: %s" % line)
        m = re.search(r"Reconciled with the previous state: .*; (\d+) devices to process", line)
        if m and m.group(1) != "0":
            p.append("handover: the real root's devmand replayed devices on its own: %s" % line)
    late = events(rep)
    if not late:
        p.append("handover: no events recorded by %s" % EVENTS_UNIT)
        late = []
    late_adds = {}
    for seq, action, path in late:
        if action == "add":
            late_adds.setdefault(path, []).append(seq)
    # a device the initramfs handed over is processed once by the real root's coldplug; a
    # device made after the switch (modprobe@loop's loop devices) may see its kernel add and
    # the trigger's, as under any device manager
    handover = handover_devpaths(rep)
    if not handover:
        p.append("handover: no database entries from the initramfs (%s)" % HANDOVER_FILE)
    unmapped = [e for e, path in handover.items() if path == "-"]
    if unmapped:
        p.append("handover: database entries of no device: %s" % unmapped[:5])
    counts = {path: len(late_adds.get(path, [])) for path in handover.values() if path != "-"}
    bad = sorted((path, n) for path, n in counts.items() if n != 1)
    if bad:
        p.append("handover: %d handed-over devices not processed exactly once by the real root's "
                 "devmand (devpath, adds), e.g. %s" % (len(bad), bad[:5]))
    # a replay by devmand itself (after a crash) has no kernel seqnum
    if any(seq == 0 for seq, _, _ in late):
        p.append("handover: events without a kernel seqnum were broadcast")
    seqs = [seq for seq, _, _ in late]
    if len(seqs) != len(set(seqs)):
        p.append("handover: a kernel event was broadcast twice")
    db = db_devpaths(rep)
    dup = sorted({d for d in db if db.count(d) > 1})
    if dup:
        p.append("database: devices listed more than once: %s" % dup[:5])
    missing_add = sorted(d for d in set(db) if d not in late_adds)
    if missing_add:
        p.append("handover: %d database devices the real root's devmand never processed, e.g. %s"
                 % (len(missing_add), missing_add[:5]))
    # the kernel numbers input devices, wakeup sources, input and hidraw nodes in probe order,
    # which differs between boots: compared as input*, wakeup* (as many of each), the nodes
    # named after their USB interface (guestreport.stable)
    here, there = (collections.Counter(guestreport.kernel_number_path(d) for d in db_devpaths(guestreport.stable(x)))
                   for x in (rep, ref))
    if here != there:
        p.append("database: differs from the reference boot's: only here %s, only there %s"
                 % (sorted((here - there).elements())[:5], sorted((there - here).elements())[:5]))
    return p


def summary(rep, ref, listing):
    parts = initramfs_parts(rep)
    late = events(rep) or []
    return "\n".join([
        "initramfs: %d entries; stamp: %s" % (len(listing_entries(listing)),
                                              "; ".join(parts.get("stamp", []))),
        "real root's devmand: %d events broadcast, %d of them add; %d database entries handed "
        "over" % (len(late), sum(1 for e in late if e[1] == "add"), len(handover_devpaths(rep))),
        "database entries: %d (reference %d)" % (len(db_devpaths(rep)), len(db_devpaths(ref))),
        "boot: %s (reference: %s)" % (guestreport.analyze_line(rep), guestreport.analyze_line(ref)),
        "host seconds: %s (reference %s)" % (rep.get("host_seconds"), ref.get("host_seconds")),
    ])


def evaluate(env, listing_path):
    rep, ref = distro.load(env, VARIANT), distro.load(env, REFERENCE)
    with open(listing_path) as f:
        listing = f.read()
    # the reference's own checks are distro-systemd's; here it must have finished, running,
    # to be compared with (a warning of its device manager, such as libkmod's about a module
    # that failed to initialise as it was read, does not make its database less comparable)
    problems = guestreport.check_boot(rep, VARIANT)
    if not ref.get("done") or ref.get("state") != "running" or guestreport.failed_units(ref):
        problems.append("reference: did not finish, running, without failed units (%s, %s, %s)"
                        % (ref.get("done"), ref.get("state"), guestreport.failed_units(ref)))
    consoles = []
    for v in (VARIANT, REFERENCE):
        with open(os.path.join(env.results, v, "console.log"), errors="replace") as f:
            consoles.append(f.read())
    problems += check_listing(listing) + check_initramfs(rep, ref, *consoles)
    problems += ["%s: %s" % (VARIANT, d) for d in
                 guestreport.compare(ref, rep, os.path.join(HERE, "allowlist.txt"), VARIANT)]
    return distro.report(summary(rep, ref, listing), problems)


def run(env, cmd, args):
    if args or cmd not in ("test", "evaluate"):
        return None
    out = os.path.join(env.build, "tests", "distro", "images")
    listing = os.path.join(out, "initrd-devman.list")
    if cmd == "evaluate":
        return evaluate(env, listing)
    enable_hook(env.build)
    with image.locked(env.cache, "images.lock"):
        env.imgs = image.make_images(env.cache, env.source, env.build, out, extra=make_initrd_image)
    accel = env.accel()
    distro.run_boot(env, REFERENCE, accel)
    os.environ["DEVMAN_DISTRO_INITRD"] = env.imgs["initrd-devman"]
    distro.run_boot(env, VARIANT, accel)
    return evaluate(env, listing)


if __name__ == "__main__":
    sys.exit(distro.cli(sys.argv, __doc__, run))
