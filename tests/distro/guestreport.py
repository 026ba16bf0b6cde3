"""The guest's report (guest/report.sh) parsed, the checks of one boot, and the comparison of
the devman boot with the systemd-udevd boot of the same image."""

import collections
import fnmatch
import os
import re
import sys

import image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "helpers"))
import probeorder  # noqa: E402

# The sections the guest writes; a report without one of them is incomplete.
SECTIONS = ["cmdline", "failed", "devices", "manager-units", "jobs", "analyze", "settle",
            "userspace-start", "mounts", "links", "dev-find", "dev-ls", "db", "modules",
            "wants", "networkd", "udevadm-info", "udevadm-monitor", "hotplug",
            "journal-manager", "journal-warnings"]
# the guest's hot-plug steps (report.sh's hotplug_all), what each must end in, and the word
# (the serial the host gives the device) in the names of the device units that come and go
HOTPLUG = [("disk-add", "appeared", "dmhotdisk"), ("disk-remove", "gone", "dmhotdisk"),
           ("usb-add", "appeared", "dmhotusb"), ("usb-remove", "gone", "dmhotusb")]


class BadReport(Exception):
    pass


def parse(text):
    """{'state', 'manager', 'sections': {name: [lines]}, 'rc': {name: int}, 'done'}."""
    rep = {"state": None, "manager": None, "variant": None, "sections": {}, "rc": {}, "done": False}
    cur = None
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if cur is not None:
            m = re.match(r"^(.*)@@END (\d+) (\S+)$", line)
            if m and m.group(3) == cur:
                if m.group(1):
                    rep["sections"][cur].append(m.group(1))
                rep["rc"][cur] = int(m.group(2))
                cur = None
            else:
                rep["sections"][cur].append(line)
            continue
        if line.startswith("@@BEGIN "):
            cur = line[len("@@BEGIN "):]
            rep["sections"][cur] = []
        elif line.startswith("@@STATE "):
            rep["state"] = line[len("@@STATE "):].strip()
        elif line.startswith("@@MANAGER "):
            rep["manager"] = line[len("@@MANAGER "):].strip()
        elif line.startswith("@@VARIANT "):
            rep["variant"] = line[len("@@VARIANT "):].strip()
        elif line == "@@DONE":
            rep["done"] = True
    return rep


def stable(rep):
    """rep with the names the kernel hands out in probe order (eventN, hidrawN, HID instances
    and their devts: tests/helpers/probeorder.py) replaced in every section, for comparing two
    boots: USB keyboard and tablet probe in parallel and take them either way round."""
    tokens, devts = probeorder.names(probeorder.export_db_devices(rep["sections"].get("db", [])))
    if not tokens:
        return rep
    out = dict(rep, sections={})
    for name, lines in rep["sections"].items():
        if name == "db":
            out["sections"][name] = probeorder.rewrite_export_db(lines, tokens, devts)
        else:
            out["sections"][name] = probeorder.rewrite("\n".join(lines), tokens, devts).split("\n") if lines else []
    return out


# The kernel numbers input devices (inputN, and their LEDs inputN::name) and wakeup sources
# (wakeupN) in probe order, which differs between boots whatever the device manager does
# (modules load in parallel): compared as input* and wakeup*, unless two share a parent.
KERNEL_NUMBER = re.compile(r"/(input|wakeup)\d+(?=/|::|$)")


def kernel_number_path(path):
    """path with KERNEL_NUMBER's numbers as *: /devices/.../input/input* ."""
    return KERNEL_NUMBER.sub(r"/\1*", path)


def kernel_number_keys(paths):
    """{devpath: the key two boots' databases are compared by}: kernel_number_path(), unless
    two devpaths would then have one key (they keep their own)."""
    keys = {p: kernel_number_path(p) for p in paths}
    count = collections.Counter(keys.values())
    return {p: k if count[k] == 1 else p for p, k in keys.items()}


def device_units(rep):
    """{unit: 'ACTIVE SUB'} from `systemctl list-units --type=device --all --plain --no-legend`."""
    units = {}
    for line in rep["sections"].get("devices", []):
        w = line.split()
        if len(w) >= 4 and w[0].endswith(".device"):
            units[w[0]] = "%s %s" % (w[2], w[3])
    return units


def dev_entries(rep):
    """{path: 'TYPE MODE OWNER GROUP [LINK TARGET]'} from the guest's `find /dev -printf`."""
    out = {}
    for line in rep["sections"].get("dev-find", []):
        path, _, rest = line.partition(" ")
        if path.startswith("/dev"):
            out[path] = rest
    return out


def escape_path(path):
    """systemd's unit name for a path (systemd-escape --path): "/" becomes "-", bytes other
    than ASCII letters, digits, ":", "_" and "." (and a leading ".") become \\xNN."""
    parts = [p for p in path.split("/") if p]
    out = []
    for c in "/".join(parts).encode():
        ch = chr(c)
        if ch == "/":
            out.append("-")
        elif (ch.isascii() and ch.isalnum()) or ch in ":_" or (ch == "." and out):
            out.append(ch)
        else:
            out.append("\\x%02x" % c)
    return "".join(out) or "-"


def systemd_tagged(rep):
    """Device paths (/devices/...) whose database entry has the systemd tag among its current
    tags and is not SYSTEMD_READY=0: systemd must have a unit for each."""
    out = []
    for block in "\n".join(rep["sections"].get("db", [])).split("\n\n"):
        path, props = None, {}
        for line in block.splitlines():
            if line.startswith("P: "):
                path = line[3:]
            elif line.startswith("E: "):
                k, _, v = line[3:].partition("=")
                props[k] = v
        if path and ":systemd:" in props.get("CURRENT_TAGS", "") and props.get("SYSTEMD_READY") != "0":
            out.append(path)
    return out


def failed_units(rep):
    return [line.split()[0] for line in rep["sections"].get("failed", []) if line.split()]


def mounts(rep):
    """{target: (source, fstype)}"""
    out = {}
    for line in rep["sections"].get("mounts", []):
        w = line.split()
        if len(w) == 3:
            out[w[0]] = (w[1], w[2])
    return out


def interfaces(rep):
    """Names of the network interfaces but lo (`ip -o link`)."""
    names = []
    for line in rep["sections"].get("links", []):
        m = re.match(r"^\d+: ([^:@]+)[:@]", line)
        if m and m.group(1) != "lo":
            names.append(m.group(1))
    return sorted(names)


def show_props(rep, section):
    """{Id: {property: value}} from `systemctl show -p Id -p ...` (blocks split by blank lines)."""
    out = {}
    for block in "\n".join(rep["sections"].get(section, [])).split("\n\n"):
        props = dict(line.partition("=")[::2] for line in block.splitlines() if "=" in line)
        if props.get("Id"):
            out[props["Id"]] = props
    return out


def link_flags(rep):
    """{interface: ({flags}, state)} from `ip -o link`."""
    out = {}
    for line in rep["sections"].get("links", []):
        m = re.match(r"^\d+: ([^:@]+)[:@][^<]*<([^>]*)>.*? state (\S+)", line)
        if m:
            out[m.group(1)] = (set(m.group(2).split(",")), m.group(3))
    return out


def network_setup(rep):
    """{interface: (operational, setup)} from networkd's state files ("NAME KEY=VALUE...")."""
    out = {}
    for line in rep["sections"].get("networkd", []):
        name, *kv = line.split()
        props = dict(x.partition("=")[::2] for x in kv)
        out[name] = (props.get("OPER_STATE"), props.get("ADMIN_STATE"))
    return out


def hotplug(rep):
    """{action: (result, seconds, [units])} from report.sh's "ACTION RESULT SECONDS UNITS" lines."""
    out = {}
    for line in rep["sections"].get("hotplug", []):
        w = line.split()
        if len(w) >= 3 and w[2].isdigit():
            out[w[0]] = (w[1], int(w[2]), sorted(w[3:]))
    return out


def settle_usec(rep):
    lines = rep["sections"].get("settle", [])
    try:
        return int(lines[0]) if lines else None
    except ValueError:
        return None


def analyze_line(rep):
    lines = rep["sections"].get("analyze", [])
    return lines[0] if lines else ""


# systemd-udevd 252's own race, not a fault of the reference boot: two workers load the same
# failing module (powernow_k8, acpi_cpufreq on QEMU's CPU); one reads its initstate while the
# kernel unloads it after the failed init, and udevd logs the ENODEV of that read at warning
# (seen once in a distro-systemd run, December 2026). devman's variants get no such allowance.
REFERENCE_RACE = re.compile(r"could not read from '/sys/module/[^/']+/initstate': No such device")

def check_boot(rep, variant):
    """The checks of one boot on its own; returns problems (strings)."""
    p = []
    if not rep.get("done"):
        p.append("%s: the report is incomplete (no @@DONE): the guest did not finish" % variant)
    missing = [s for s in SECTIONS if s not in rep["sections"]]
    if missing:
        p.append("%s: report sections missing: %s" % (variant, ", ".join(missing)))
    if rep.get("manager") != image.MANAGER[variant]:
        p.append("%s: the guest says its device manager is %r" % (variant, rep.get("manager")))
    if rep.get("variant") != variant:
        p.append("%s: the guest says it booted the %r image" % (variant, rep.get("variant")))
    # the set-up itself: the settle unit ran, or (issue 32's plain enable) it did not
    settle = image.SETTLE_UNIT[image.MANAGER[variant]]
    state = show_props(rep, "manager-units").get(settle, {}).get("ActiveState")
    want = "active" if image.SETTLED[variant] else "inactive"
    if state != want:
        p.append("%s: %s is %r, the variant wants it %s" % (variant, settle, state, want))
    if rep.get("state") != "running":
        p.append("%s: systemctl is-system-running says %r, not 'running'" % (variant, rep.get("state")))
    cut = [line.split()[0] for line in rep["sections"].get("devices", []) if "\u2026" in line.split(" ", 1)[0]]
    if cut:
        p.append("%s: %d unit names cut short by systemctl (e.g. %s): not comparable" % (variant, len(cut), cut[0]))
    # issue 32: a device tagged for systemd in the database has its unit
    units = device_units(rep)
    for path in systemd_tagged(rep):
        unit = escape_path("/sys" + path) + ".device"
        if unit not in units:
            p.append("%s: %s has CURRENT_TAGS=:systemd: in the database but systemd has no %s"
                     % (variant, path, unit))
    for u in failed_units(rep):
        p.append("%s: failed unit %s" % (variant, u))
    # the manager's own units log no warning on a normal boot (issue 32: module loading)
    for line in rep["sections"].get("journal-manager", []):
        if image.MANAGER[variant] == "udevd" and REFERENCE_RACE.search(line):
            continue
        p.append("%s: warning from the device manager: %s" % (variant, line))
    m = mounts(rep)
    for target, want in (("/mnt/label", image.LABEL_FS), ("/mnt/uuid", image.UUID_FS)):
        if target not in m or m[target][1] != "ext4":
            p.append("%s: %s (fstab %s) is not mounted" % (variant, target, want))
    return p + check_issue28(rep, variant)


def check_issue28(rep, variant):
    """Issue 28 part 1: SYSTEMD_WANTS, networkd, systemd's udevadm, hot-plug."""
    p = []
    # SYSTEMD_WANTS: the unit ran, wanted by a device unit (it has no [Install] section)
    w = show_props(rep, "wants").get(image.WANTS_UNIT, {})
    wanted_by = [u for u in w.get("WantedBy", "").split() if u.endswith(".device")]
    if w.get("ActiveState") != "active" or w.get("Result") != "success" or not wanted_by:
        p.append("%s: the data disk's SYSTEMD_WANTS did not start %s (ActiveState=%s Result=%s "
                 "WantedBy=%s)" % (variant, image.WANTS_UNIT, w.get("ActiveState"), w.get("Result"),
                                   w.get("WantedBy")))
    # networkd configured the NIC under the policy's name and it is up
    flags, state = link_flags(rep).get(image.NET_NAME, (set(), None))
    if not {"UP", "LOWER_UP"} <= flags or state != "UP":
        p.append("%s: %s is not up (flags %s, state %s)" % (variant, image.NET_NAME,
                                                           ",".join(sorted(flags)) or "-", state))
    setup = network_setup(rep).get(image.NET_NAME)
    if not setup or setup[1] != "configured":
        p.append("%s: systemd-networkd did not configure %s (%s)" % (variant, image.NET_NAME, setup))
    # systemd's udevadm against the manager
    info = rep["sections"].get("udevadm-info", [])
    for want in ("N: vdb", "E: ID_SERIAL=" + image.DATA_SERIAL, "S: disk/by-id/virtio-" + image.DATA_SERIAL):
        if rep["rc"].get("udevadm-info") != 0 or want not in info:
            p.append("%s: udevadm info --name=vdb (rc %s) has no %r" % (variant, rep["rc"].get("udevadm-info"), want))
    mon = rep["sections"].get("udevadm-monitor", [])
    for want in ("trigger rc 0", "settle rc 0"):
        if want not in mon:
            p.append("%s: udevadm: no %r" % (variant, want))
    for kind in ("KERNEL", "UDEV"):
        pat = r"^%s\s*\[[0-9.]+\] change\s+/devices/\S+/block/vdb \(block\)$" % kind
        if not any(re.match(pat, line) for line in mon):
            p.append("%s: udevadm monitor printed no %s change event of vdb" % (variant, kind))
    # hot-plug: the device units appear and go
    hp = hotplug(rep)
    for action, result, word in HOTPLUG:
        got = hp.get(action)
        if not got or got[0] != result:
            p.append("%s: hot-plug %s: %s, wanted %s" % (variant, action, " ".join(map(str, got[:2])) if got else "not done", result))
        elif result == "appeared" and not any(u.startswith("dev-disk-by\\x2did-") and word in u for u in got[2]):
            p.append("%s: hot-plug %s: no by-id disk unit among %s" % (variant, action, got[2]))
    return p


def load_allowlist(path):
    """'GLOB | reason' lines: a difference 'KIND SUBJECT' matching GLOB is explained by reason."""
    entries = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            glob, sep, reason = line.partition("|")
            if not sep or not reason.strip():
                raise BadReport("%s:%d: an allowlist line needs 'GLOB | reason'" % (path, n))
            entries.append((glob.strip(), reason.strip()))
    return entries


def differences(ref, dm):
    """Every difference between the reference boot and the devman boot as (KIND SUBJECT, what):
    device units, /dev (type, mode, owner, group, link target) and interface names."""
    ref, dm = stable(ref), stable(dm)
    out = []
    ru, du = device_units(ref), device_units(dm)
    for u in sorted(set(ru) | set(du)):
        if u not in du:
            out.append(("unit-missing %s" % u, "only the udevd boot has it (%s)" % ru[u]))
        elif u not in ru:
            out.append(("unit-extra %s" % u, "only the devman boot has it (%s)" % du[u]))
        elif ru[u] != du[u]:
            out.append(("unit-state %s" % u, "udevd: %s, devman: %s" % (ru[u], du[u])))
    rd, dd = dev_entries(ref), dev_entries(dm)
    for path in sorted(set(rd) | set(dd)):
        if rd.get(path) != dd.get(path):
            out.append(("dev %s" % path, "udevd: %s, devman: %s" % (rd.get(path, "(none)"), dd.get(path, "(none)"))))
    ri, di = interfaces(ref), interfaces(dm)
    if ri != di:
        out.append(("net %s" % ",".join(di), "interfaces: udevd %s, devman %s" % (ri, di)))
    rh, dh = hotplug(ref), hotplug(dm)
    for action, result, _ in HOTPLUG:
        if result == "appeared" and action in rh and action in dh and rh[action][2] != dh[action][2]:
            out.append(("hotplug %s" % action, "device units: udevd %s, devman %s" % (rh[action][2], dh[action][2])))
    return out


def compare(ref, dm, allowlist_path, name="devman"):
    allow = load_allowlist(allowlist_path)
    problems = []
    for subject, what in differences(ref, dm):
        reason = next((r for g, r in allow if fnmatch.fnmatchcase(subject, g)), None)
        if reason:
            print("allowed (%s): %s: %s (%s)" % (name, subject, what, reason))
        else:
            problems.append("%s: %s" % (subject, what))
    return problems


def summary(ref, dm, plain=None):
    """The boots side by side; the settle time stamp exists only where a settle unit ran."""
    reps = [("udevd", ref), ("devman", dm)] + ([("devman-plain", plain)] if plain else [])
    lines = [("%-25s " % "boot" + " ".join("%-16s" % n for n, _ in reps)).rstrip()]

    def row(name, f):
        lines.append(("%-25s " % name + " ".join("%-16s" % f(r) for _, r in reps)).rstrip())

    def settled(r):
        us = settle_usec(r)
        return "%.2f" % (us / 1e6) if us else "-"
    row("is-system-running", lambda r: r.get("state"))
    row("device units", lambda r: len(device_units(r)))
    row("failed units", lambda r: len(failed_units(r)))
    row("interfaces", lambda r: ",".join(interfaces(r)))
    row("kernel -> settled (s)", settled)
    row("host seconds", lambda r: r.get("host_seconds"))
    for n, r in reps:
        lines.append("%-13s %s" % (n + ":", analyze_line(r)))
    return "\n".join(lines)
