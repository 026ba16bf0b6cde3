"""Parses the guest's report (init.sh's dump format) into plain data:

{"timing": {"start": s, "settle": s, "ready": s}, "fatal": str|None, "done": bool,
 "warnings": [devices the guest waited for in vain],
 "steps": {step: {"dev": {path: {type, mode, owner, group, devt, inode}},
                  "links": {path: target as written}, "data": {id: [lines]}, "tags": [tag/id],
                  "run": [paths], "exportdb": {devpath: {"N", "S" (list), "L", "E" {k: v}}},
                  "libinput": [{field: value}], "modules": [...], "net": [...], "uptime": s}},
 "files": {name: text}, "rc": {name: exit status}}   (init.sh's report_file, vmtest.snapshot=1)
"""

import json
import os
import shutil

TYPES = {
    "character special file": "c", "block special file": "b", "directory": "d",
    "regular file": "f", "regular empty file": "f", "fifo": "p", "socket": "s",
}


def _devt(hexpair):
    major, minor = hexpair.split(":")
    return "%d:%d" % (int(major, 16), int(minor, 16))


def parse_dev(lines, step):
    for line in lines:
        parts = line.split("|")
        if len(parts) == 3 and parts[1] == "link":
            # busybox stat's %N: 'path' -> 'target'
            _, arrow, target = parts[2].partition("' -> '")
            if not arrow or not target.endswith("'"):
                raise ValueError("bad link line: %r" % line)
            step["links"][parts[0]] = target[:-1]
        elif len(parts) == 7:
            path, kind, mode, user, group, devt, inode = parts
            t = TYPES.get(kind, kind)
            step["dev"][path] = {"type": t, "mode": mode.zfill(4), "owner": user, "group": group,
                                 "devt": _devt(devt) if t in ("b", "c") else None,
                                 "inode": int(inode)}
        elif line.strip():
            raise ValueError("bad dev line: %r" % line)


def parse_exportdb(lines):
    devices = {}
    cur = None
    for line in lines:
        if not line.strip():
            cur = None
            continue
        key, _, value = line.partition(": ")
        if key == "P":
            cur = devices.setdefault(value, {"N": None, "S": [], "L": None, "E": {}})
        elif cur is None:
            continue
        elif key == "N":
            cur["N"] = value
        elif key == "S":
            cur["S"].append(value)
        elif key == "L":
            cur["L"] = value
        elif key == "E":
            k, _, v = value.partition("=")
            cur["E"][k] = v
    return devices


def parse_libinput(lines):
    devices, cur = [], None
    for line in lines:
        if not line.strip():
            cur = None
            continue
        key, sep, value = line.partition(":")
        if not sep:
            continue
        if key == "Device":
            cur = {}
            devices.append(cur)
        if cur is not None:
            cur[key.strip()] = value.strip()
    return devices


def parse_data(files, lines):
    """files: paths of the database files; lines: grep -H output, "path:line" (names hold ':')."""
    paths = sorted((f for f in files if f.strip()), key=len, reverse=True)
    data = {os.path.basename(f): [] for f in paths}
    for line in lines:
        for path in paths:
            if line.startswith(path + ":"):
                data[os.path.basename(path)].append(line[len(path) + 1:])
                break
        else:
            raise ValueError("bad data line: %r" % line)
    return data


def parse_monitor(lines):
    """udevadm monitor --udev --property: one dict of properties per event (blank-line separated)."""
    events, cur = [], {}
    for line in lines:
        if not line.strip():
            if cur:
                events.append(cur)
            cur = {}
        elif "=" in line and not line.startswith("UDEV"):
            k, v = line.split("=", 1)
            cur[k] = v
    if cur:
        events.append(cur)
    return events


def new_step():
    return {"dev": {}, "links": {}, "data": {}, "tags": [], "run": [], "exportdb": {},
            "libinput": [], "modules": [], "net": [], "monitor": [], "uptime": None}


def finish_section(step, name, lines):
    if name == "dev":
        parse_dev(lines, step)
    elif name == "datafiles":
        step["datafiles"] = lines
    elif name == "data":
        step["data"] = parse_data(step.pop("datafiles", []), lines)
    elif name == "exportdb":
        step["exportdb"] = parse_exportdb(lines)
    elif name == "libinput":
        step["libinput"] = parse_libinput(lines)
    elif name == "monitor":
        step["monitor"] = parse_monitor(lines)
    elif name in ("tags", "run", "modules", "net"):
        step[name] = [x for x in lines if x.strip()]


def parse(text):
    result = {"timing": {}, "fatal": None, "done": False, "steps": {}, "warnings": [],
              "files": {}, "rc": {}}
    step = section = fname = None
    lines = []
    for line in text.splitlines():
        if fname is not None:
            if line == "@@ENDFILE " + fname:
                result["files"][fname] = "".join(x + "\n" for x in lines)
                fname, lines = None, []
            else:
                lines.append(line)
        elif line.startswith("@@FILE "):
            fname, lines = line[7:], []
        elif line.startswith("@@RC "):
            name, _, rc = line[5:].rpartition(" ")
            result["rc"][name] = int(rc)
        elif line.startswith("@@SECTION ") or line.startswith("@@ENDSTEP "):
            if step is not None and section:
                finish_section(step, section, lines)
            section, lines = line[10:], []
            if line.startswith("@@ENDSTEP "):
                step = section = None
        elif line.startswith("@@STEP "):
            step = result["steps"].setdefault(line[7:], new_step())
            section, lines = None, []
        elif line.startswith("@@T "):
            pass
        elif line.startswith("@@UPTIME ") and step is not None:
            step["uptime"] = float(line[9:])
        elif line.startswith("@@TIMING "):
            for kv in line[9:].split():
                k, _, v = kv.partition("=")
                result["timing"][k] = float(v)
        elif line.startswith("@@STARTED-BY "):
            result["started_by"] = line[13:]
        elif line.startswith("@@WARN "):
            result["warnings"].append(line[7:])
        elif line.startswith("@@FATAL "):
            result["fatal"] = line[8:]
        elif line == "@@DMESG":
            step = section = None  # the kernel log is for people; not parsed
        elif line == "@@DONE":
            result["done"] = True
        elif section is not None:
            lines.append(line)
    return result


def load(path):
    with open(path) as f:
        return json.load(f)


def save(result, path):
    with open(path, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)


def boot_failed(result):
    """Why a parsed boot cannot be used, or None."""
    if result["fatal"]:  # the guest's own reason comes before the host's view of it
        return "guest: " + result["fatal"]
    if result["error"]:
        return result["error"]
    if not result["done"]:
        return "guest report incomplete (no @@DONE)"
    return None


def collect(out, console, keep_dir, error):
    """A boot's result: the guest's report OUT parsed, the host's ERROR (or None) kept in it.
    The raw report and the CONSOLE log are copied into KEEP_DIR (when given) first, so that a
    report that does not parse is kept too."""
    if keep_dir:
        shutil.rmtree(keep_dir, ignore_errors=True)
        os.makedirs(keep_dir)
        for src, name in ((out, "report.txt"), (console, "console.log")):
            if os.path.exists(src):
                shutil.copy(src, os.path.join(keep_dir, name))
    text = ""
    if os.path.exists(out):
        with open(out, errors="replace") as f:
            text = f.read()
    try:
        result = parse(text)
    except ValueError as e:
        result = parse("")
        error = error or "unreadable guest report: %s" % e
    result["error"] = error
    return result
