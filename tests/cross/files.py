#!/usr/bin/env python3
"""Files written on one architecture read identically on another (tests/cross/README.md):

    tests/cross/files.py NATIVE_BUILD CROSS_BUILD [SOURCE_HWDB_D]

NATIVE_BUILD is an x86-64 build, CROSS_BUILD one of tests/cross/run's (its programs run
through binfmt_misc and qemu-user, QEMU_LD_PREFIX naming the sysroot).

hwdb.bin (systemd's format is little-endian whatever the machine):
  - devman's compiler on each architecture, on the same copy of Debian's hwdb.d, writes the same
    bytes;
  - devman's reader on each architecture answers the same for every match line of the sources
    (globs instantiated) from each database: the two devman-compiled ones and systemd-hwdb's
    (x86-64); on x86-64 the answers equal `systemd-hwdb query`'s for a sample, so on the
    other architecture they are systemd's x86-64 answers too (systemd 252's own reader
    gets the precedence of duplicate keys wrong on big-endian: tests/unit/test-hwdb-debian.c).
snapshots (text, devman-snapshot 1):
  - `devmanadm snapshot` of the same fixture sysfs tree (tests/helpers/gen-sysfs.py, with the
    shipped rules; its input bitmaps in words of each side's long, as the kernel shows them to
    that program) is byte-identical on both, the bitmaps compared in 64-bit words;
  - `devmanadm compare` on each architecture reads the other's snapshot: nothing changed."""
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import tap  # noqa: E402
import fixture  # noqa: E402

tap.quiet = False


def modaliases(srcdir):
    """One lookup per match line (globs made concrete two ways for every fourth line)."""
    out = []
    for n in sorted(os.listdir(srcdir)):
        if not n.endswith(".hwdb"):
            continue
        with open(os.path.join(srcdir, n), encoding="utf-8", errors="surrogateescape") as f:
            for i, line in enumerate(f):
                line = line.rstrip("\n")
                if not line or line[0] in " #\t":
                    continue
                out.append(line.replace("*", "").replace("?", "0"))
                if i % 4 == 0:
                    out.append(line.replace("*", "x").replace("?", "a"))
    return out


def batch(build, *args, stdin=None):
    exe = os.path.join(build, "tests", "cross", "hwdb-batch")
    p = subprocess.run([exe] + list(args), input=stdin, capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return "line %d: %r != %r" % (i + 1, x, y)
    return "lengths %d != %d lines" % (len(la), len(lb))


def hwdb(native, cross, src, tmp):
    root = os.path.join(tmp, "root")
    shutil.copytree(src, os.path.join(root, "lib", "udev", "hwdb.d"))
    bins = {}
    for name, build in (("native", native), ("cross", cross)):
        out = os.path.join(tmp, "hwdb-%s.bin" % name)
        rc, _, err = batch(build, "compile", root, out)
        tap.check(rc == 0, "%s: devman's compiler writes hwdb.bin" % name, err)
        bins[name] = out
    with open(bins["native"], "rb") as a, open(bins["cross"], "rb") as b:
        da, db = a.read(), b.read()
    tap.check(da == db and len(da) > 1000000, "the compiled databases are byte-identical (%d and %d bytes)"
              % (len(da), len(db)))
    systemd_root = os.path.join(tmp, "systemd-root")
    shutil.copytree(root, systemd_root)
    p = subprocess.run(["systemd-hwdb", "update", "--root=" + systemd_root], capture_output=True, text=True)
    tap.check(p.returncode == 0, "systemd-hwdb update (x86-64)", p.stderr)
    bins["systemd"] = os.path.join(systemd_root, "etc", "udev", "hwdb.bin")

    lookups = modaliases(src)
    text = ("\n".join(lookups) + "\n").encode(errors="surrogateescape")
    answers = {}
    for fname, path in bins.items():
        for rname, build in (("native", native), ("cross", cross)):
            rc, out, err = batch(build, "query", path, stdin=text)
            tap.check(rc == 0, "%s reader on %s's hwdb.bin: %d lookups" % (rname, fname, len(lookups)), err)
            answers[(fname, rname)] = out
    ref = answers[("systemd", "native")]
    found = ref.count(b"\n") - len(lookups)
    tap.check(found > len(lookups) // 2, "the lookups find properties (%d lines for %d lookups)" % (found, len(lookups)))
    for key, out in answers.items():
        if key != ("systemd", "native"):
            tap.check(out == ref, "%s reader on %s's hwdb.bin answers as the x86-64 reader on systemd-hwdb's"
                      % (key[1], key[0]), first_difference(ref.decode(errors="replace"), out.decode(errors="replace")))

    # the x86-64 answers are systemd's: a random sample through systemd-hwdb query
    rnd = random.Random(252)
    sample = rnd.sample(lookups, 200)
    blocks = {}
    for block in ref.decode(errors="surrogateescape").split("> ")[1:]:
        head, _, body = block.partition("\n")
        blocks.setdefault(head, body)
    bad = []
    for m in sample:
        p = subprocess.run(["systemd-hwdb", "--root=" + systemd_root, "query", m], capture_output=True,
                           text=True, errors="surrogateescape")
        if p.stdout != blocks.get(m, ""):
            bad.append(m)
    tap.check(not bad, "systemd-hwdb query agrees on %d sampled lookups" % len(sample), "differ: %r" % bad[:3])


# the kernel's input bitmaps among a device's uevent properties (kprop lines of a snapshot)
BITMAP_KEYS = ("PROP", "EV", "KEY", "REL", "ABS", "MSC", "LED", "SND", "FF", "SW")


def words64(text, bits):
    """A bitmap printed in words of bits, printed again in 64-bit words."""
    value = 0
    for w in text.split():
        value = value << bits | int(w, 16)
    out = []
    while value:
        out.insert(0, "%x" % (value & (1 << 64) - 1))
        value >>= 64
    return " ".join(out) or "0"


def bitmaps_as64(snapshot, bits):
    """The snapshot with its input bitmaps (kprop KEY=...) in 64-bit words: what it would hold
    had its program's long been 64 bits."""
    if bits == 64:
        return snapshot
    out = []
    for line in snapshot.split("\n"):
        key, eq, value = line[len("kprop "):].partition("=")
        if line.startswith("kprop ") and eq and key in BITMAP_KEYS:
            line = "kprop %s=%s" % (key, words64(value, bits))
        out.append(line)
    return "\n".join(out)


def snapshots(native, cross, tmp):
    """Each side snapshots the fixture tree as the kernel shows it to that side's programs: a
    32-bit program (armhf) sees the input bitmaps in 32-bit words (gen-sysfs.py --long-bits);
    the bitmaps compared in 64-bit words, the rest byte for byte."""
    rules = os.path.join(fixture.SRC, "rules")
    snaps, texts, ignore = {}, {}, []
    bits = {name: fixture.long_bits(fixture.devmanadm(build)) for name, build in (("native", native), ("cross", cross))}
    if bits["native"] != bits["cross"]:
        # compare sees the words' width differ: the bits themselves are checked byte for byte
        ignore = ["--ignore=prop:" + k for k in BITMAP_KEYS]
    # one path for both trees: the snapshot names its sysfs root
    sysfs = os.path.join(tmp, "sys")
    for name, build in (("native", native), ("cross", cross)):
        if name == "native" or bits["cross"] != bits["native"]:
            shutil.rmtree(sysfs, ignore_errors=True)
            fixture.gen_sysfs(sysfs, "converted", bits=bits[name])
        out = os.path.join(tmp, "%s.snap" % name)
        p = subprocess.run([fixture.devmanadm(build), "--sysfs", sysfs, "snapshot", "--rules-dir", rules,
                            "-o", out], capture_output=True, text=True)
        tap.check(p.returncode == 0, "%s (%d-bit long): devmanadm snapshot" % (name, bits[name]), p.stderr[-500:])
        snaps[name] = out
        with open(out) as f:
            texts[name] = bitmaps_as64(f.read(), bits[name])
    sa, sb = texts["native"], texts["cross"]
    tap.check(sa == sb and sa.count("\ndevice ") > 20, "the snapshots are byte-identical (%d devices%s)"
              % (sa.count("\ndevice "), ", input bitmaps in 64-bit words" if ignore else ""),
              first_difference(sa, sb))
    for name, build, old, new in (("native", native, "cross", "native"), ("cross", cross, "native", "cross")):
        p = subprocess.run([fixture.devmanadm(build), "--sysfs", sysfs, "compare"] + ignore + [snaps[old], snaps[new]],
                           capture_output=True, text=True)
        tap.check(p.returncode == 0 and "nothing userspace-visible changed" in p.stdout,
                  "%s: devmanadm compare reads the %s snapshot: nothing changed%s"
                  % (name, old, " (input bitmaps' words left out)" if ignore else ""),
                  (p.stdout + p.stderr)[-500:])


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    native, cross = sys.argv[1], sys.argv[2]
    src = sys.argv[3] if len(sys.argv) == 4 else "/lib/udev/hwdb.d"
    with tempfile.TemporaryDirectory(prefix="devman-cross-files.") as tmp:
        hwdb(native, cross, src, tmp)
        snapshots(native, cross, tmp)
    tap.finish()


if __name__ == "__main__":
    main()
