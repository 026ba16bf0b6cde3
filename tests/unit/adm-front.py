#!/usr/bin/env python3
"""devmanadm is a front that links libc only and carries trigger, settle and control; every other
verb runs in devmanadm-tools, which it executes with the same arguments. Checks the front's
dynamic dependencies, that delegated verbs behave as if the front had them (options, global
options, exit status, the name they report), and that a front whose tools are missing says so.
Usage: adm-front.py BUILDDIR"""
import os
import shutil
import subprocess
import sys
import tempfile

build = sys.argv[1]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import tap  # noqa: E402
from tap import check  # noqa: E402

front = os.path.join(build, "daemon", "devmanadm")
tools = os.path.join(build, "daemon", "devmanadm-tools")


def run(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60, **kw)


# the front's start costs what a libc program's does: no event loop, no builtin libraries
r = run(["readelf", "-d", front])
needed = sorted(line.split("[")[1].rstrip("]") for line in r.stdout.splitlines() if "(NEEDED)" in line)
sanitizers = ("libasan.", "libubsan.", "liblsan.", "libtsan.")  # a sanitizer build's own runtime
needed = [n for n in needed if not n.startswith(sanitizers)]
check(r.returncode == 0 and needed == ["libc.so.6"], "devmanadm needs libc only", str(needed))
r = run(["readelf", "-d", tools])
needed_tools = [line for line in r.stdout.splitlines() if "(NEEDED)" in line]
check(any("libsystemd" in n for n in needed_tools), "devmanadm-tools has the event loop", str(needed_tools))

# its own verbs
r = run([front, "version"])
check(r.returncode == 0 and r.stdout.strip(), "version runs in the front", r.stderr)
version = r.stdout.strip()
r = run([front, "settle", "--help"])
check(r.returncode == 0 and "--timeout" in r.stdout, "settle --help runs in the front", r.stderr)
r = run([front, "--help"])
for verb in ("trigger", "settle", "info", "monitor", "test", "test-builtin", "snapshot", "compare", "hwdb"):
    check(r.returncode == 0 and ("  %s " % verb) in r.stdout, "--help lists %s" % verb)

# delegated verbs: the same options, global options and exit statuses as before the split
r = run([front, "info", "--help"])
check(r.returncode == 0 and "--query" in r.stdout, "info --help through the tools", r.stderr)
r = run([front, "verify", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "rules")])
check(r.returncode == 0, "verify of the shipped rules through the tools", r.stderr[:300])
tmp = tempfile.mkdtemp(prefix="devman-front.")
try:
    bad = os.path.join(tmp, "bad.rules")
    with open(bad, "w") as f:
        f.write('KERNEL=="x", NO_SUCH_KEY="1"\n')
    r = run([front, "verify", bad])
    check(r.returncode != 0 and "bad.rules:1" in r.stderr, "a failing verify keeps its exit status and message",
          "%d %r" % (r.returncode, r.stderr[:200]))
    r = run([front, "--sysfs=" + tmp, "info", "--query=path", "/devices/nowhere"])
    check(r.returncode != 0, "global options reach the delegated verb (a device missing in --sysfs)")
    r = run([front, "info"])
    check(r.returncode == 2 and r.stderr.startswith("devmanadm info: "), "the tools report under the front's name",
          repr(r.stderr[:200]))

    # verbs that take options only report a stray argument one way, in the front and the tools
    for verb in ("settle", "control", "coldplug", "static-nodes", "monitor", "hwdb", "snapshot"):
        r = run([front, verb, "stray"])
        check(r.returncode == 2 and r.stderr == "devmanadm %s: unexpected argument: stray\n" % verb,
              "%s: a stray argument is reported as a usage error" % verb, repr(r.stderr[:200]))
    # verbs that read the model report an unusable sysfs root one way
    nowhere = os.path.join(tmp, "no-sysfs")
    for argv in (["info", "--path=/devices/x"], ["tree"], ["test", "/devices/x"],
                 ["test-builtin", "path_id", "/devices/x"]):
        r = run([front, "--sysfs=" + nowhere] + argv)
        check(r.returncode == 1 and "Cannot use %s as sysfs root" % nowhere in r.stderr,
              "%s: an unusable sysfs root is reported" % argv[0], "%d %r" % (r.returncode, r.stderr[:200]))

    # a front installed alone: it names what it could not run
    lone = os.path.join(tmp, "bin")
    os.mkdir(lone)
    shutil.copy2(front, lone)
    r = run([os.path.join(lone, "devmanadm"), "info", "--help"])
    check(r.returncode != 0 and "devmanadm-tools" in r.stderr, "a missing devmanadm-tools is reported",
          repr(r.stderr[:200]))
    r = run([os.path.join(lone, "devmanadm"), "version"])
    check(r.returncode == 0 and r.stdout.strip() == version, "the front's own verbs work alone")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
tap.finish()
