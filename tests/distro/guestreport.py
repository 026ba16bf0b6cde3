"""The guest's report (guest/report.sh) parsed, the checks of one boot, and the comparison of
the devman boot with the systemd-udevd boot of the same image."""

import fnmatch
import re

import image

# The sections the guest writes; a report without one of them is incomplete.
SECTIONS = ["cmdline", "failed", "devices", "manager-units", "jobs", "analyze", "settle",
            "userspace-start", "mounts", "links", "dev-find", "dev-ls", "db", "modules",
            "journal-manager", "journal-warnings"]


class BadReport(Exception):
    pass


def parse(text):
    """{'state', 'manager', 'sections': {name: [lines]}, 'rc': {name: int}, 'done'}."""
    rep = {"state": None, "manager": None, "sections": {}, "rc": {}, "done": False}
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
        elif line == "@@DONE":
            rep["done"] = True
    return rep


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


def settle_usec(rep):
    lines = rep["sections"].get("settle", [])
    try:
        return int(lines[0]) if lines else None
    except ValueError:
        return None


def analyze_line(rep):
    lines = rep["sections"].get("analyze", [])
    return lines[0] if lines else ""


def check_boot(rep, variant):
    """The checks of one boot on its own; returns problems (strings)."""
    p = []
    if not rep.get("done"):
        p.append("%s: the report is incomplete (no @@DONE): the guest did not finish" % variant)
    missing = [s for s in SECTIONS if s not in rep["sections"]]
    if missing:
        p.append("%s: report sections missing: %s" % (variant, ", ".join(missing)))
    if rep.get("manager") != variant:
        p.append("%s: the guest says its device manager is %r" % (variant, rep.get("manager")))
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
        p.append("%s: warning from the device manager: %s" % (variant, line))
    m = mounts(rep)
    for target, want in (("/mnt/label", image.LABEL_FS), ("/mnt/uuid", image.UUID_FS)):
        if target not in m or m[target][1] != "ext4":
            p.append("%s: %s (fstab %s) is not mounted" % (variant, target, want))
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
    return out


def compare(ref, dm, allowlist_path):
    allow = load_allowlist(allowlist_path)
    problems = []
    for subject, what in differences(ref, dm):
        reason = next((r for g, r in allow if fnmatch.fnmatchcase(subject, g)), None)
        if reason:
            print("allowed: %s: %s (%s)" % (subject, what, reason))
        else:
            problems.append("%s: %s" % (subject, what))
    return problems


def summary(ref, dm):
    lines = ["boot                      udevd            devman"]

    def row(name, a, b):
        lines.append("%-25s %-16s %s" % (name, a, b))
    row("is-system-running", ref.get("state"), dm.get("state"))
    row("device units", len(device_units(ref)), len(device_units(dm)))
    row("failed units", len(failed_units(ref)), len(failed_units(dm)))
    row("interfaces", ",".join(interfaces(ref)), ",".join(interfaces(dm)))
    rs, ds = settle_usec(ref), settle_usec(dm)
    row("kernel -> settled (s)", "%.2f" % (rs / 1e6) if rs else "?", "%.2f" % (ds / 1e6) if ds else "?")
    row("host seconds", ref.get("host_seconds"), dm.get("host_seconds"))
    lines.append("udevd:  " + analyze_line(ref))
    lines.append("devman: " + analyze_line(dm))
    return "\n".join(lines)
