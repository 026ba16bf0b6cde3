#!/usr/bin/env python3
"""Issue 29, parts 2 and 3 (suite kernels): the same VM hardware under two kernels, devman in
both guests (init.sh's whole scenario on an empty tmpfs /dev, vmtest.snapshot=1).

  vm-kernels.py legacy     Debian's 6.1 built from linux-source-6.1 with Debian's configuration
                           and CONFIG_SYSFS_DEPRECATED (legacykernel.py, built and cached when
                           missing), booted twice: OLD with sysfs.deprecated=1 (the legacy block
                           layout), NEW without; and DEBIAN, Debian's packaged kernel:
                           - OLD really has the old layout (/block/... devpaths), NEW and
                             DEBIAN do not;
                           - /dev and the database of OLD are the same as DEBIAN's, and as
                             NEW's, at every step of init.sh's scenario (the block devices'
                             devpaths mapped, nothing else);
                           - `devmanadm classes` calls block legacy on OLD, converted on NEW;
                           - OLD's snapshot compared on NEW (in the guest and on the host)
                             exits 0, and with DEBIAN's snapshot (on the host) reports only
                             the USB root hubs' release name; both list block's devices as
                             converted.
  vm-kernels.py backports  OLD = Debian 12's kernel, NEW = bookworm-backports' linux-image-amd64
                           (backports.py): every line `devmanadm compare` reports is explained
                           below (EXPLAINED) and checked against the two snapshots, and an
                           independent field-by-field diff of the snapshots finds nothing the
                           report left out.

The OLD boot runs first; its snapshot goes into NEW's initramfs (/vmtest/old.snap), where
`devmanadm compare --verbose` runs against the live /sys of NEW. The host compares the two
snapshot files as well; both reports must agree. Results (reports, consoles, snapshots, compare
output) are kept in build/tests/vm/results/kernels-MODE/. Exit 0 pass, 1 fail, 77 skip."""

import json
import os
import re
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import backports  # noqa: E402
import checklist  # noqa: E402
import checks  # noqa: E402
import compare  # noqa: E402
import kernel as kmod  # noqa: E402
import legacykernel  # noqa: E402
import report  # noqa: E402
import vmtest  # noqa: E402

FIELDS = ("vanished", "appeared", "renamed", "duplicate", "layout", "node", "type", "devt", "mode",
          "owner", "links", "tags", "props", "kernel-props", "devtype", "driver", "parent")
# no_timer_check: a TCG guest on a loaded host can miss the IO-APIC timer check and panic
# ("IO-APIC + timer doesn't work"); it changes no device.
APPEND = " vmtest.snapshot=1 no_timer_check"
ITEM = re.compile(r"^(%s) (\S+): (.*)$" % "|".join(FIELDS), re.M)


log = checklist.log
Checks = checklist.Checks


# ---- snapshots ------------------------------------------------------------------------------

def parse_snapshot(text):
    """{key: [record]}; a record maps field -> [values] (see doc/snapshot-format.md)."""
    out, cur = {}, None
    unesc = lambda s: re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), s)  # noqa: E731
    for line in text.splitlines():
        line = line.rstrip("\r")
        key, _, value = line.partition(" ")
        if key == "device":
            cur = {}
            out.setdefault(unesc(value), []).append(cur)
        elif key == "end":
            cur = None
        elif cur is not None:
            cur.setdefault(key, []).append(value if key == "parent" else unesc(value))
    return out


def physical_parents(rec):
    """The parent chain compare looks at: ancestors that are not class devices."""
    return [p for p in rec.get("parent", []) if not p.startswith("class ")]


# What compare compares per matched device (the snapshot field -> compare's field name).
COMPARED = {"devt": "devt", "node": "node", "mode": "mode", "owner": "owner", "link": "links",
            "tag": "tags", "prop": "props", "kprop": "kernel-props", "devtype": "devtype",
            "driver": "driver"}


# compare reports these kernel keys in fields of their own (devt, node, devtype, driver) or not
# at all (they describe the event), as adm-compare.c does
KPROPS_ELSEWHERE = {"MAJOR", "MINOR", "DEVNAME", "DEVPATH", "SUBSYSTEM", "DEVTYPE", "DRIVER",
                    "SEQNUM", "ACTION"}


def independent_diff(old, new):
    """(field, key) of every difference an independent reading of the two snapshots finds, for
    the keys both hold exactly once; plus the keys only one side has."""
    found = set()
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if not a or not b:
            found.add(("vanished" if a else "appeared", key))
            continue
        if len(a) != 1 or len(b) != 1:
            found.add(("duplicate", key))
            continue
        a, b = a[0], b[0]
        for field, name in COMPARED.items():
            x, y = a.get(field, []), b.get(field, [])
            if field == "kprop":
                x = [v for v in x if v.split("=", 1)[0] not in KPROPS_ELSEWHERE]
                y = [v for v in y if v.split("=", 1)[0] not in KPROPS_ELSEWHERE]
            if sorted(x) != sorted(y):
                found.add((name, key))
        if physical_parents(a) != physical_parents(b):
            found.add(("parent", key))
    return found


def run_compare(env, old_path, new_path):
    p = subprocess.run([env.devmanadm, "compare", "--verbose", old_path, new_path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


# ---- boots ----------------------------------------------------------------------------------

def boot_one(env, check, label, k, keep, append="", extra=(), allowed=None):
    """One devman boot on an empty tmpfs /dev with init.sh's scenario. -> report or None.
    allowed(report, remark): scenario remarks this boot gives by itself (counted, not failed).
    DEVMAN_VM_REUSE=1 evaluates the last boot's report (KEEP/LABEL.json) again."""
    saved = os.path.join(keep, label + ".json")
    if os.environ.get("DEVMAN_VM_REUSE") == "1" and os.path.exists(saved):
        log("re-evaluating %s (kernel %s)" % (saved, k.version))
        r = report.load(saved)
    else:
        log("booting %s: kernel %s" % (label, k.version))
        r = vmtest.boot(env, "devman", "tmpfs", os.path.join(keep, label), kernel=k,
                        append_extra=APPEND + append, extra_files=list(extra))
        report.save(r, saved)
    failed = report.boot_failed(r)
    if not check(failed is None, "%s boot (%s, %s) completed%s" % (
            label, k.version, r.get("accel"), ": " + failed if failed else "")):
        return None
    check(not r["warnings"], "%s boot: no guest warnings %s" % (label, r["warnings"]))
    problems = checks.scenario(r, devtmpfs=False)
    if allowed:
        n = len(problems)
        problems = [p for p in problems if not allowed(r, p)]
        check(n > len(problems), "%s boot: %d scenario remarks of the kind expected here" % (label, n - len(problems)))
    check(not problems, "%s boot: init.sh's scenario checks pass %s" % (label, problems[:20]))
    snap = os.path.join(keep, label + ".snap")
    text = r["files"].get("snapshot", "")
    check(r["rc"].get("snapshot") == 0 and text.startswith("devman-snapshot 1"),
          "%s boot: devmanadm snapshot (exit %s, %d bytes)" % (label, r["rc"].get("snapshot"), len(text)))
    with open(snap, "w") as f:
        f.write(text)
    for name in ("classes", "compare", "classes-compare"):
        if name in r["files"]:
            with open(os.path.join(keep, "%s.%s" % (label, name)), "w") as f:
                f.write(r["files"][name])
    return r


def boot_pair(env, check, old_k, new_k, keep, old_append="", new_append="", old_allowed=None):
    """OLD, then NEW with OLD's snapshot inside. -> (old report, new report) or None."""
    os.makedirs(keep, exist_ok=True)
    old = boot_one(env, check, "old", old_k, keep, old_append, (), old_allowed)
    if old is None:
        return None
    new = boot_one(env, check, "new", new_k, keep, new_append,
                   [(os.path.join(keep, "old.snap"), "vmtest/old.snap")])
    return (old, new) if new is not None else None


def classes_table(text):
    """devmanadm classes -> {class: (converted, legacy, verdict)}."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+(\d+)\s+(\S+)$", line)
        if m:
            out[m.group(1)] = (int(m.group(2)), int(m.group(3)), m.group(4))
    return out


def show(title, rc, text):
    log("--- %s (exit %s):" % (title, rc))
    for line in text.rstrip("\n").splitlines():
        log("    " + line)


def guest_and_host_compare(env, check, new, keep):
    """compare in NEW's guest (OLD's snapshot against the live tree) and on the host (file
    against file): the same report. -> (rc, text)."""
    g_rc, g_text = new["rc"].get("compare"), new["files"].get("compare", "")
    h_rc, h_text = run_compare(env, os.path.join(keep, "old.snap"), os.path.join(keep, "new.snap"))
    with open(os.path.join(keep, "host.compare"), "w") as f:
        f.write(h_text)
    show("devmanadm compare --verbose old.snap (in the NEW guest, live /sys)", g_rc, g_text)
    check("compare" in new["files"], "the guest's compare report came back")
    check(g_rc == h_rc and ITEM.findall(g_text) == ITEM.findall(h_text),
          "the guest's live compare and the host's file compare agree (exit %s/%s)" % (g_rc, h_rc))
    return g_rc, g_text


# ---- part 2: the legacy block layout --------------------------------------------------------

def block_suffix(devpath):
    """'/devices/.../block/vda/vda1' or '/block/vda/vda1' -> 'vda/vda1'; None if not a block."""
    if devpath.startswith("/block/"):
        return devpath[len("/block/"):]
    i = devpath.rfind("/block/")
    return devpath[i + len("/block/"):] if i >= 0 and devpath.startswith("/devices/") else None


def map_legacy_step(legacy, unified):
    """The legacy step with its block devpaths replaced by the unified step's ones of the same
    disk/partition (the layout change, and nothing else). -> (step, number mapped, unmapped)."""
    by_suffix = {}
    for devpath in unified["exportdb"]:
        s = block_suffix(devpath)
        if s is not None:
            by_suffix[s] = devpath
    out = dict(legacy)
    out["exportdb"] = {}
    mapped, unmapped = 0, []
    for devpath, dev in legacy["exportdb"].items():
        if devpath.startswith("/block/"):
            target = by_suffix.get(block_suffix(devpath))
            if target is None:
                unmapped.append(devpath)
                target = devpath
            else:
                mapped += 1
            dev = {"N": dev["N"], "S": dev["S"], "L": dev["L"], "E": dict(dev["E"])}
            if dev["E"].get("DEVPATH") == devpath:
                dev["E"]["DEVPATH"] = target
            devpath = target
        out["exportdb"][devpath] = dev
    return out, mapped, unmapped


def db_diskseq_names(step):
    """diskseq -> disk name from the database files: b<devt> holds S:disk/by-diskseq/N, /dev
    the node of that devt (for a step whose export-db has no block devices)."""
    by_devt = {n["devt"]: os.path.basename(p) for p, n in step["dev"].items() if n["type"] == "b"}
    names = {}
    for dbid, lines in step["data"].items():
        m = re.fullmatch(r"b(\d+:\d+)", dbid)
        for line in lines if m else ():
            seq = re.fullmatch(r"S:disk/by-diskseq/(\d+)", line)
            if seq and m.group(1) in by_devt:
                names[seq.group(1)] = by_devt[m.group(1)]
    return names


def libudev_blind(r, remark):
    """A scenario remark the legacy layout gives by itself: libudev (udevadm) enumerates no
    block device there, so it finds no device for a block node."""
    m = re.fullmatch(r"(\S+): (?:(/dev/\S+) \(b \d+:\d+\) belongs to no device|"
                     r"udevadm lists no device (/dev/\S+))", remark)
    node = m and r["steps"].get(m.group(1), {}).get("dev", {}).get(m.group(2) or m.group(3))
    return bool(node) and node["type"] == "b"


def renamed_release(step, release, ref_release):
    """The step with the self-built kernel's release name replaced by the reference kernel's
    wherever a value holds it -> (step, number of values changed). The kernel puts its release
    into the manufacturer string of a USB root hub ("Linux 6.1.N-sysfsdep xhci-hcd"), which
    udev's usb_id turns into ID_VENDOR, ID_SERIAL and their forms (a release name has no space,
    so udev's encodings of the value hold it unchanged)."""
    text = json.dumps(step)
    return json.loads(text.replace(release, ref_release)), text.count(release)


def same_dev_and_db(check, legacy, ref, ref_label, release=None, ref_release=None):
    """/dev and the database of the LEGACY boot against REF's, at every step, once the block
    devpaths are mapped (and the kernel's release name, for another kernel's boot)."""
    total = blind_total = 0
    for step in [s for s in ref["steps"] if s != "before"]:
        if not check(step in legacy["steps"], "legacy boot has step %s" % step):
            continue
        legacy_step = legacy["steps"][step]
        if release:
            legacy_step, n_release = renamed_release(legacy_step, release, ref_release)
            check(n_release > 0, "%s: the release name %s is in %d values (USB root hubs), read "
                  "as %s" % (step, release, n_release, ref_release))
        mapped_step, n, unmapped = map_legacy_step(legacy_step, ref["steps"][step])
        total += n
        check(not unmapped, "%s: every legacy block devpath has a twin on %s %s" % (
            step, ref_label, unmapped))
        diffs = compare.compare_step(step, ref["steps"][step], mapped_step)
        # libudev (systemd 252's udevadm info --export-db) enumerates /sys/bus and /sys/class
        # only: on the legacy layout it does not see the disks in /sys/block at all. That is
        # the libudev view, not devman's database (compared above as files): it must lack
        # exactly the block devices and nothing else.
        blind = sorted(d.subject for d in diffs if d.kind == "device" and
                       block_suffix(d.subject) is not None and d.detail == "only in the reference")
        want_blind = sorted(p for p in ref["steps"][step]["exportdb"] if block_suffix(p) is not None)
        check(blind == want_blind, "%s: libudev's export-db lacks exactly the %d block devices on "
              "the legacy layout (%d)" % (step, len(want_blind), len(blind)))
        blind_total += len(blind)
        diffs = [d for d in diffs if not (d.kind == "device" and d.subject in blind)]
        for d in diffs[:100]:
            log("    differs: %s" % d)
        check(not diffs, "%s: /dev, links, database files, tags, other devices' properties, "
              "libinput, modules, net the same on the legacy layout as on %s (%d differences; "
              "%d block devpaths mapped)" % (step, ref_label, len(diffs), n))
    check(total + blind_total > 0, "block devices compared with %s: %d mapped devpaths, %d seen "
          "only in the database files" % (ref_label, total, blind_total))


def part2(env, check, keep):
    # diskseq numbers are named after their disks; the legacy step's export-db has no disks
    exportdb_names = compare._diskseq_names
    compare._diskseq_names = lambda step: {**db_diskseq_names(step), **exportdb_names(step)}
    k = legacykernel.obtain(env.build)
    log("kernel %s built from %s with CONFIG_SYSFS_DEPRECATED and Debian's %s configuration (%s)"
        % (k.version, legacykernel.SOURCE_PACKAGE, env.kernel.version, k.root))
    pair = boot_pair(env, check, k, k, keep, old_append=" sysfs.deprecated=1", old_allowed=libudev_blind)
    if not pair:
        return
    old, new = pair
    # the reference: Debian's own kernel on the same hardware, the same scenario
    debian = boot_one(env, check, "debian", env.kernel, keep)
    if not debian:
        return

    # sysfs.deprecated=1 really gives the old layout: every block device's devpath is /block/...
    # (snapshot), without it none is.
    for label, r, legacy in (("legacy", old, True), ("unified", new, False), ("Debian's", debian, False)):
        snap = parse_snapshot(r["files"].get("snapshot", ""))
        paths = sorted(rec["devpath"][0] for k, recs in snap.items() if k.startswith("block/")
                       for rec in recs)
        top = [p for p in paths if p.startswith("/block/")]
        check(len(paths) >= 5 and (len(top) == len(paths) if legacy else not top),
              "%s layout: %d block devices, %d of them in /block/ %s" % (label, len(paths), len(top), paths))

    # /dev and the database: the same as on Debian's kernel, and as the same kernel's unified
    # layout, at every step once the block devpaths are mapped.
    same_dev_and_db(check, old, debian, "Debian's kernel %s" % env.kernel.version, k.version,
                    env.kernel.version)
    same_dev_and_db(check, old, new, "the same kernel's unified layout")

    # devmanadm classes
    for label, r, want in (("legacy", old, "legacy"), ("unified", new, "converted")):
        table = classes_table(r["files"].get("classes", ""))
        show("devmanadm classes on the %s layout" % label, r["rc"].get("classes"),
             r["files"].get("classes", ""))
        blk = table.get("block")
        check(blk is not None and blk[2] == want and (blk[1] if want == "legacy" else blk[0]) >= 2,
              "%s layout: devmanadm classes calls block %s %s" % (label, want, blk))
        others = {c: v for c, v in table.items() if c != "block" and v[1]}
        check(not others, "%s layout: no other class has legacy entries %s" % (label, others))
    show("devmanadm classes --compare=old.snap on the unified layout", new["rc"].get("classes-compare"),
         new["files"].get("classes-compare", ""))
    m = re.search(r"^block\s+(.*)$", new["files"].get("classes-compare", ""), re.M)
    check(m is not None and re.fullmatch(r"legacy 0/\d+/0\s+converted \d+/0/0", m.group(1).strip()),
          "classes --compare: block was legacy, is converted (%s)" % (m.group(1) if m else None))

    # The legacy layout's snapshot compared on the unified one (in the guest and on the host),
    # and with Debian's kernel's (on the host, file against file)
    rc, text = guest_and_host_compare(env, check, new, keep)
    layout_verdict(check, rc, text, new, "the same kernel's unified layout", k.version, k.version)
    rc, text = run_compare(env, os.path.join(keep, "old.snap"), os.path.join(keep, "debian.snap"))
    with open(os.path.join(keep, "debian.compare"), "w") as f:
        f.write(text)
    show("devmanadm compare --verbose old.snap debian.snap (host)", rc, text)
    layout_verdict(check, rc, text, debian, "Debian's kernel %s" % env.kernel.version, k.version,
                   env.kernel.version)


def release_only(field, key, detail, release, ref_release):
    """Whether a reported line is a USB root hub's property that changed by the kernel's
    release name only."""
    old, arrow, new = detail.partition(" -> ")
    return (field == "props" and re.fullmatch(r"usb/usb\d+", key) is not None and arrow != "" and
            release != ref_release and old.replace(release, ref_release) == old.split("=", 1)[0] + "=" + new)


def layout_verdict(check, rc, text, ref, ref_label, release, ref_release):
    """compare's report of the legacy snapshot against REF's: exit 0 (or 1 for probe order and
    the kernel's release name only), every block device listed as converted and nothing else
    changed."""
    items = ITEM.findall(text)
    # the USB keyboard and tablet may have probed the other way round in one of the two boots
    by_release = [i for i in items if release_only(*i, release, ref_release)]
    others = [i for i in items if not probe_order(*i) and i not in by_release]
    if release != ref_release:
        check(by_release, "compare with %s: the USB root hubs' properties that hold the kernel's "
              "release name are reported (%d lines)" % (ref_label, len(by_release)))
    check(rc == (1 if items else 0) and not others,
          "compare with %s exits %d, nothing userspace-visible changed but probe order and the "
          "release name (%s)" % (ref_label, rc, others))
    conv = re.search(r"^block: (\d+) devices converted, nothing visible changed$", text, re.M)
    n_block = sum(1 for k in parse_snapshot(ref["files"]["snapshot"]) if k.startswith("block/"))
    check(conv is not None and int(conv.group(1)) == n_block,
          "compare with %s: the verdict lists block's %d devices as converted (%s)"
          % (ref_label, n_block, conv.group(0) if conv else None))
    listed = re.search(r"^== converted \((\d+), expected\)\n((?:.+\n)*)", text, re.M)
    names = sorted(re.findall(r"^converted (block/\S+):", listed.group(2), re.M)) if listed else []
    check(listed is not None and len(names) == n_block,
          "compare with %s: --verbose lists each converted block device %s" % (ref_label, names))


# ---- probe order --------------------------------------------------------------------------

# What two boots of one kernel on this hardware may report, whichever kernels they are:
# (field, key regex, detail regex, why). The AHCI disk and the IDE CD-ROM take their diskseq
# in either order, a USB hub and an ACPI device their wakeup sources; the USB keyboard and
# tablet probe in parallel and take their HID instance, inputN, eventN, mouseN and hidrawN
# numbers (and the nodes' minors) in either order, each device staying on its USB interface.
PROBE_ORDER_WHY = ("probe order, not the kernel: two boots of one kernel differ the same way when "
                   "the AHCI disk and the IDE CD-ROM probe the other way round (diskseq), a USB hub "
                   "and an ACPI device register their wakeup sources the other way round, or the "
                   "USB keyboard and tablet probe the other way round (HID, input, event, mouse "
                   "and hidraw numbers)")
HID_KEYS = r"(hid/[0-9A-F]{4}:[0-9A-F]{4}:[0-9A-F]{4}\.[0-9A-F]{4}|input/(input|event|mouse|js)\d+|hidraw/hidraw\d+)"
PROBE_ORDER = [
    ("renamed", r"(wakeup/wakeup|input/input)\d+", r"^-> (wakeup/wakeup|input/input)\d+ \(same parent ",
     PROBE_ORDER_WHY),
    ("renamed", HID_KEYS, r"^-> \S+ \(same parent ", PROBE_ORDER_WHY),
    ("node", r"(input/(event|mouse|js)\d+|hidraw/hidraw\d+)",
     r"^(input/(event|mouse|js)|hidraw)\d+ -> (input/(event|mouse|js)|hidraw)\d+$", PROBE_ORDER_WHY),
    ("devt", r"(input/(event|mouse|js)\d+|hidraw/hidraw\d+)", r"^c \d+:\d+ -> c \d+:\d+$", PROBE_ORDER_WHY),
    ("kernel-props", r"block/(sd[a-z]\d*|sr\d+|vd[a-z]\d*)", r"^DISKSEQ=\d+ -> \d+$", PROBE_ORDER_WHY),
    ("links", r"block/(sd[a-z]\d*|sr\d+|vd[a-z]\d*)", r"^[-+] disk/by-diskseq/\d+$", PROBE_ORDER_WHY),
]


def probe_order(field, key, detail):
    """Whether a reported line is one PROBE_ORDER explains."""
    return any(f == field and re.fullmatch(k, key) and re.search(d, detail) for f, k, d, _ in PROBE_ORDER)


# ---- part 3: two kernel versions ------------------------------------------------------------

# Every line compare reports between Debian 12's 6.1 and bookworm-backports' 6.12 on this
# hardware: (field, key regex, detail regex, why it really changed, required). A reported line
# no entry explains fails the test, and so does a required entry nothing reported. The entries
# that are not required are probe-order numbers: they differ between two boots of the same
# kernel too, when they differ. O and N are the two kernels'
# `uname -r`, B_O and B_N their version as the USB root hubs' bcdDevice (0601, 0612).
def explained(old_version, new_version):
    def bcd(v):
        major, minor = v.split(".")[:2]
        return "%02d%02d" % (int(major), int(minor))
    o, n = re.escape(old_version), re.escape(new_version)
    b_o, b_n = bcd(old_version), bcd(new_version)
    dyn_major = ("dynamic char major: alloc_chrdev_region() hands majors out from 254 downwards in "
                 "registration order; in 6.12 other drivers take one before these (dma_heap, "
                 "new, takes 251), so they move down; the minor stays")
    dyn_misc = ("dynamic misc minor: 6.1 hands them out from 127 downwards (drivers/char/misc.c, "
                "DYNAMIC_MINORS 128), 6.12 from 256 upwards (misc minors beyond 255)")
    root_hub = ("a USB root hub's descriptors carry the running kernel: iManufacturer is "
                "'Linux <release> <hcd>' and bcdDevice the version (hcd.c), so udev's usb_id "
                "properties of the root hubs and the kernel's PRODUCT/MODALIAS follow it")
    serial_base = ("6.5's serial core port devices (bus serial-base): CTRL:0 and CTRL:0.N sit "
                   "between the UART (pnp 00:0x, platform serial8250) and its ttySN")
    return [e + (False,) for e in PROBE_ORDER] + [e + (True,) for e in [
        ("vanished", r"platform/platform-framebuffer\.0", r"\(bus\), devt none",
         "6.1's sysfb (drivers/firmware/sysfb.c) registers 'platform-framebuffer' as the "
         "fallback for a screen_info of no known type (QEMU -kernel boot); 6.12's registers no "
         "device for it. No driver binds it, it has no node"),
        ("appeared", r"dma_heap/system", r"\(converted\), devt c \d+:0, node dma_heap/system",
         "CONFIG_DMABUF_HEAPS_SYSTEM=y in the backports config (6.1: DMABUF_HEAPS not set)"),
        ("appeared", r"misc/fuse", r"devt c 10:229, node fuse",
         "CONFIG_FUSE_FS=y in the backports config (6.1: =m, and fuse is not among the VM's "
         "modules), so /dev/fuse exists from boot"),
        ("appeared", r"misc/udmabuf", r"devt c 10:\d+, node udmabuf",
         "CONFIG_UDMABUF=y in the backports config (6.1: not set)"),
        ("appeared", r"serial-base/(00:0[34]|serial8250):0(\.\d+)?", r"\(bus\), devt none",
         serial_base),
        ("appeared", r"@/devices/isa", r"\(bus\), devt none",
         "CONFIG_ISA_BUS_API=y in the backports config registers the bare /devices/isa root"),
        ("devt", r"(bsg/[12]:0:0:0|hidraw/hidraw[01]|rtc/rtc0|virtio-ports/vport0p0)",
         r"^c (\d+):(\d+) -> c (?!\1:)\d+:\2$", dyn_major),
        ("devt", r"misc/(cpu_dma_latency|userfaultfd|vga_arbiter)", r"^c 10:12[5-7] -> c 10:25\d$",
         dyn_misc),
        ("props", r"usb/usb[123]",
         r"^(ID_(USB_)?REVISION=%s -> %s|ID_(USB_)?(SERIAL|VENDOR)=Linux_%s_.* -> Linux_%s_.*|"
         r"ID_(USB_)?VENDOR_ENC=Linux\\x20%s\\x20.* -> Linux\\x20%s\\x20.*)$"
         % (b_o, b_n, o, n, o, n), root_hub),
        ("kernel-props", r"usb/(usb[123]|[123]-0:1\.0)",
         r"^(PRODUCT=1d6b/[23]/%s -> 1d6b/[23]/%s|MODALIAS=usb:v1D6Bp000[23]d%s.* -> "
         r"usb:v1D6Bp000[23]d%s.*)$" % (int(b_o), int(b_n), b_o, b_n), root_hub),
        ("kernel-props", r"cpu/cpu0", r"^MODALIAS=cpu:type:x86,",
         "the CPU's feature list in its modalias (X86_FEATURE numbers, word*32+bit, in hex): "
         "0072 (3*32+18, LFENCE_RDTSC in 6.1) is gone and 0282 (20*32+2, word 20 = CPUID "
         "0x80000021 EAX) is new: newer kernels number LFENCE_RDTSC 20*32+2; 0076 (3*32+22, "
         "XTOPOLOGY in 6.1's numbering) is new: 6.12's rewritten topology code sets it from "
         "the CPUID leaf QEMU offers"),
        ("kernel-props", r"input/input\d+", r"^(KEY=10000000000000 0 -> 8000 10000000000000 0|"
         r"MODALIAS=input:b0019v0000p0001e0000-e0,1,k74,ramlsfw -> "
         r"input:b0019v0000p0001e0000-e0,1,k74,8F,ramlsfw)$",
         "the ACPI power button (LNXPWRBN): 6.12's button driver also declares KEY_WAKEUP "
         "(0x8f, bit 143 of KEY) next to KEY_POWER (0x74)"),
        ("parent", r"tty/ttyS[0-3]", r"^(pnp/00:0[34]|platform/serial8250) < .* -> "
         r"serial-base/\S+ < serial-base/\S+ < (pnp/00:0[34]|platform/serial8250) < ", serial_base),
    ]]


def part3(env, check, keep):
    new_k = backports.obtain(legacykernel.cache_dir(env.build))
    log("backports kernel %s (%s)" % (new_k.version, new_k.root))
    pair = boot_pair(env, check, env.kernel, new_k, keep)
    if not pair:
        return
    old, new = pair
    rc, text = guest_and_host_compare(env, check, new, keep)
    items = ITEM.findall(text)
    old_s, new_s = parse_snapshot(old["files"]["snapshot"]), parse_snapshot(new["files"]["snapshot"])

    table = explained(env.kernel.version, new_k.version)
    used = set()
    for field, key, detail in items:
        why = [i for i, (f, k, d, _, _) in enumerate(table)
               if f == field and re.fullmatch(k, key) and re.search(d, detail)]
        used.update(why)
        check(bool(why), "explained: %s %s: %s%s" % (field, key, detail[:200],
                                                     " -- " + table[why[0]][3] if why else ""))
    for i, (f, k, d, reason, required) in enumerate(table):
        if required:
            check(i in used, "expected and reported: %s %s (%s)" % (f, k, reason))
        elif i not in used:
            log("not reported this time (probe order): %s %s" % (f, k))
    check(rc == (1 if items else 0), "exit %d for %d reported lines (got %s)" % (1 if items else 0, len(items), rc))

    # Nothing left out, nothing made up: the independent reading of both snapshots.
    indep = independent_diff(old_s, new_s)
    reported = {(f, k) for f, k, _ in items}
    renamed = {(k, re.search(r"-> (\S+)", d).group(1) if re.search(r"-> (\S+)", d) else None)
               for f, k, d in items if f == "renamed"}
    renamed_keys = {k for pair_ in renamed for k in pair_ if k}
    missed = sorted(x for x in indep if x not in reported and x[1] not in renamed_keys)
    check(not missed, "every difference of the two snapshots is reported %s" % missed)
    made_up = sorted((f, k) for f, k in reported if f not in ("renamed",) and (f, k) not in indep
                     and k not in renamed_keys)
    check(not made_up, "every reported line is a real difference of the snapshots %s" % made_up)

    # the full report comparison (what compare.py sees: /dev, links, database), for the record
    diffs = compare.compare(old, new)
    with open(os.path.join(keep, "report-differences.txt"), "w") as f:
        f.writelines("%s\n" % d for d in diffs)
    log("for the record: %d differences of /dev and the database over init.sh's steps "
        "(compare.py, by devpath and db id; in report-differences.txt)" % len(diffs))


def selftest():
    """The host-side helpers on made-up data (suite unit, no VM)."""
    snap = lambda body: "devman-snapshot 1\ndevices 2\n" + body  # noqa: E731
    old = parse_snapshot(snap("device tty/ttyS0\ndevt c 4:64\nmode 0660\nkprop A=1\n"
                              "parent bus pnp - 00:04\nparent bus - - pnp0\nend\n"
                              "device misc/x\ndevt c 10:127\nnode x\nend\n"
                              "device platform/gone\ndevt -\nend\n"))
    new = parse_snapshot(snap("device tty/ttyS0\ndevt c 4:64\nmode 0660\nkprop A=1\n"
                              "parent class tty - x\nparent bus serial-base - 00:04:0.0\n"
                              "parent bus pnp - 00:04\nparent bus - - pnp0\nend\n"
                              "device misc/x\ndevt c 10:256\nnode x\nend\n"
                              "device isa/new\ndevt -\nend\n"))
    assert old["tty/ttyS0"][0]["parent"] == ["bus pnp - 00:04", "bus - - pnp0"]
    got = independent_diff(old, new)
    assert got == {("parent", "tty/ttyS0"), ("devt", "misc/x"), ("vanished", "platform/gone"),
                   ("appeared", "isa/new")}, got
    assert independent_diff(old, old) == set()
    # class-device ancestors are not physical parents
    assert physical_parents({"parent": ["class block - sda", "bus scsi sd 0:0:0:0"]}) == ["bus scsi sd 0:0:0:0"]

    assert block_suffix("/block/vda/vda1") == "vda/vda1"
    assert block_suffix("/devices/pci0000:00/0000:00:04.0/virtio1/block/vda") == "vda"
    assert block_suffix("/devices/virtual/misc/x") is None
    unified = {"exportdb": {"/devices/p/virtio1/block/vda": {}, "/devices/p/virtio1/block/vda/vda1": {}}}
    legacy = {"exportdb": {
        "/block/vda": {"N": "vda", "S": [], "L": "0", "E": {"DEVPATH": "/block/vda", "X": "1"}},
        "/block/vda/vda1": {"N": "vda1", "S": [], "L": "0", "E": {"DEVPATH": "/block/vda/vda1"}},
        "/block/vdz": {"N": "vdz", "S": [], "L": "0", "E": {"DEVPATH": "/block/vdz"}},
        "/devices/virtual/mem/null": {"N": "null", "S": [], "L": "0", "E": {}}}}
    mapped, n, unmapped = map_legacy_step(legacy, unified)
    assert n == 2 and unmapped == ["/block/vdz"], (n, unmapped)
    assert mapped["exportdb"]["/devices/p/virtio1/block/vda"]["E"] == {
        "DEVPATH": "/devices/p/virtio1/block/vda", "X": "1"}
    assert legacy["exportdb"]["/block/vda"]["E"]["DEVPATH"] == "/block/vda"  # input untouched
    assert "/devices/virtual/mem/null" in mapped["exportdb"] and "/block/vdz" in mapped["exportdb"]

    assert classes_table("CLASS  CONVERTED LEGACY  LAYOUT\nblock  0  7  legacy\ntty 80 0  converted\n") == {
        "block": (0, 7, "legacy"), "tty": (80, 0, "converted")}

    # the explanations: each matches the line it was written for, and not a made-up one
    table = explained("6.1.0-57-amd64", "6.12.95+deb12-amd64")
    def why(field, key, detail):
        return [r for f, k, d, r, _ in table if f == field and re.fullmatch(k, key) and re.search(d, detail)]
    assert why("devt", "rtc/rtc0", "c 251:0 -> c 249:0")
    assert not why("devt", "rtc/rtc0", "c 251:0 -> c 251:1"), "a changed minor is no major shift"
    assert why("devt", "misc/userfaultfd", "c 10:126 -> c 10:257")
    assert why("props", "usb/usb1", "ID_SERIAL=Linux_6.1.0-57-amd64_ehci_hcd_X -> "
               "Linux_6.12.95+deb12-amd64_ehci_hcd_X")
    assert why("props", "usb/usb2", "ID_USB_REVISION=0601 -> 0612")
    assert not why("props", "usb/usb2", "ID_MODEL=foo -> bar")
    assert why("kernel-props", "usb/1-0:1.0", "PRODUCT=1d6b/2/601 -> 1d6b/2/612")
    assert not why("props", "block/sda", "ID_SERIAL=a -> b")
    # the USB keyboard and tablet probed the other way round: explained, a changed mode is not
    assert probe_order("renamed", "hid/0003:0627:0001.0001", "-> hid/0003:0627:0001.0002 (same parent usb/2-1:1.0 < x)")
    assert probe_order("renamed", "input/event4", "-> input/event5 (same parent hid/0003:0627:0001.0002 < x)")
    assert probe_order("node", "input/event5", "input/event4 -> input/event5")
    assert probe_order("devt", "hidraw/hidraw1", "c 245:0 -> c 245:1")
    assert why("devt", "input/event5", "c 13:68 -> c 13:69")
    assert not probe_order("mode", "input/event5", "0660 -> 0666")
    assert not probe_order("renamed", "input/event4", "-> input/event5 (same devt c 13:68)")
    # the kernel's release name in a root hub's properties, and nothing else
    rel, ref = "6.1.192-sysfsdep", "6.1.0-57-amd64"
    assert release_only("props", "usb/usb2", "ID_VENDOR=Linux_%s_xhci-hcd -> Linux_%s_xhci-hcd" % (rel, ref), rel, ref)
    assert release_only("props", "usb/usb1", "ID_VENDOR_ENC=Linux\\x20%s\\x20ehci_hcd -> Linux\\x20%s\\x20ehci_hcd"
                        % (rel, ref), rel, ref)
    assert not release_only("props", "usb/usb2", "ID_VENDOR=Linux_%s_xhci-hcd -> Linux_%s_ehci_hcd" % (rel, ref), rel, ref)
    assert not release_only("props", "usb/1-1", "ID_VENDOR=Linux_%s -> Linux_%s" % (rel, ref), rel, ref)
    assert not release_only("props", "usb/usb2", "ID_VENDOR=Linux_%s -> Linux_%s" % (rel, rel), rel, rel)
    step = {"usb": {"E": {"ID_VENDOR": "Linux_%s_xhci-hcd" % rel}}, "other": "%s and %s" % (rel, rel)}
    assert renamed_release(step, rel, ref) == ({"usb": {"E": {"ID_VENDOR": "Linux_%s_xhci-hcd" % ref}},
                                                "other": "%s and %s" % (ref, ref)}, 3)
    # the legacy layout's own scenario remarks: only for block nodes
    r = {"steps": {"coldplug": {"dev": {"/dev/sda": {"type": "b"}, "/dev/ttyS0": {"type": "c"}}}}}
    assert libudev_blind(r, "coldplug: /dev/sda (b 8:0) belongs to no device")
    assert libudev_blind(r, "coldplug: udevadm lists no device /dev/sda")
    assert not libudev_blind(r, "coldplug: /dev/ttyS0 (c 4:64) belongs to no device")
    assert not libudev_blind(r, "coldplug: udevadm lists no device /dev/ttyS0")
    assert not libudev_blind(r, "coldplug: /dev/sda has mode 0600, want 0660")
    assert not libudev_blind(r, "disk-add: udevadm lists no device /dev/sda")
    print("vm-kernels.py selftest: 1 passed, 0 failed")
    return 0


def main(argv):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) != 2 or argv[1] not in ("legacy", "backports"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        env = vmtest.Env()
        if not env.have_devman():
            log("SKIP: devmand or devmanadm is not built")
            return 77
        check = Checks()
        keep = os.path.join(env.results, "kernels-" + argv[1])
        (part2 if argv[1] == "legacy" else part3)(env, check, keep)
    except kmod.Unavailable as e:
        log("SKIP: %s" % e)
        return 77
    return check.results(" (results in %s)" % keep)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
