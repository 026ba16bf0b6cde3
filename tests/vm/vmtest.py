#!/usr/bin/env python3
"""The vm suite's driver: boots Debian's kernel under QEMU with a device manager in the guest
and checks what it made. See README.md.

  vmtest.py test udevd            reference boot: systemd-udevd on devtmpfs; scenario checks
  vmtest.py test devman-tmpfs     devmand on an empty tmpfs /dev; checks + comparison with udevd
  vmtest.py test devman-devtmpfs  devmand on devtmpfs; checks + comparison + nodes left alone
  vmtest.py evaluate devman-tmpfs|devman-devtmpfs
                                  checks and comparison of the last results, without booting
  vmtest.py run MANAGER DEVFS     one boot, report to stdout as JSON (for debugging)
  vmtest.py probe                 which accelerator this host can use

Exit status: 0 pass, 1 fail, 77 skip (no QEMU, no kernel package, or devman not built)."""

import hashlib
import os
import signal
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import checks  # noqa: E402
import compare  # noqa: E402
import images  # noqa: E402
import initramfs  # noqa: E402
import kernel as kmod  # noqa: E402
import qemu  # noqa: E402
import report  # noqa: E402

SKIP = 77
PROBE_MARKER = "DEVMAN-VM-PROBE-REACHED-INIT"
PROBE_TIMEOUT = 12
MAX_PRINTED = 150
BOOT_TIMEOUT = int(os.environ.get("DEVMAN_VM_TIMEOUT", "420"))


# The devman boot on this /dev starts devman the way a busybox-init system does: through the
# rcS snippet meson generates (units/sysvinit/devman.rcS), not by init.sh's own commands.
RCS_DEVFS = "devtmpfs"


def log(msg):
    print("vmtest: " + msg, file=sys.stderr, flush=True)


class Env:
    def __init__(self):
        self.source = os.environ.get("DEVMAN_SOURCE_ROOT", os.path.dirname(os.path.dirname(HERE)))
        self.build = os.environ.get("DEVMAN_BUILD_ROOT", os.path.join(self.source, "build"))
        self.uinput = os.environ.get("DEVMAN_VM_UINPUT",
                                     os.path.join(self.build, "tests", "vm", "uinput-device"))
        self.results = os.path.join(self.build, "tests", "vm", "results")
        self.devmand = os.path.join(self.build, "daemon", "devmand")
        self.devmanadm = os.path.join(self.build, "daemon", "devmanadm")
        # Both managers read Debian's stock rules only, as a user who installs devman on Debian
        # does (issue 25: devman's own rules had hidden a mode bug there). DEVMAN_VM_OWN_RULES=1
        # adds devman's rules/ beside them.
        self.rules = os.path.join(self.source, "rules") if os.environ.get("DEVMAN_VM_OWN_RULES") == "1" else ""
        self.rcs = os.path.join(self.build, "units", "sysvinit", "devman.rcS")
        self.qemu = kmod.qemu_binary()
        self.cache = kmod.cache_dir(self.build)
        self.kernel = kmod.obtain(self.cache)
        if not os.access(self.uinput, os.X_OK):  # a build problem, not a reason to skip
            raise RuntimeError("uinput-device is not built: %s" % self.uinput)

    def have_devman(self):
        return os.access(self.devmand, os.X_OK) and os.access(self.devmanadm, os.X_OK)

    def accel(self, kernel=None):
        kernel = kernel or self.kernel

        def probe(accel):
            with tempfile.TemporaryDirectory(prefix="devman-vm-probe.") as tmp:
                img = os.path.join(tmp, "probe.cpio")
                initramfs.build_probe(img, PROBE_MARKER)
                t = time.monotonic()
                ok = qemu.probe(self.qemu, kernel.image, img, accel, PROBE_TIMEOUT, PROBE_MARKER)
                log("probe %s: %s after %.1f s" % (accel, "reached /init" if ok else "no /init",
                                                   time.monotonic() - t))
                return ok
        return kmod.accelerator(self.cache, kernel, self.qemu, probe)

    def reference_key(self):
        """What the udevd reference result depends on (devman's binaries do not count)."""
        h = hashlib.sha256(self.kernel.version.encode())
        files = [os.path.join(HERE, f) for f in sorted(os.listdir(HERE))]
        files.append(self.uinput)
        if self.rules and os.path.isdir(self.rules):
            files += [os.path.join(self.rules, f) for f in sorted(os.listdir(self.rules))]
        for f in files:
            if os.path.isfile(f):
                h.update(f.encode() + b"\0")
                with open(f, "rb") as fh:
                    h.update(hashlib.sha256(fh.read()).digest())
        return h.hexdigest()


def boot(env, manager, devfs, keep_dir=None, kernel=None, append_extra="", extra_files=()):
    """One boot; returns the parsed report with "host_seconds" and "accel" added. kernel (default
    Debian's), append_extra and extra_files are for the kernels suite (vm-kernels.py)."""
    kernel = kernel or env.kernel
    accel = env.accel(kernel)
    with tempfile.TemporaryDirectory(prefix="devman-vm.") as tmp:
        devman = env.have_devman()
        initrd = os.path.join(tmp, "initrd.cpio")
        t = time.monotonic()
        initramfs.build(initrd, kernel, os.path.join(HERE, "init.sh"), env.uinput, env.rules,
                        env.devmand if devman else None, env.devmanadm if devman else None,
                        env.rcs if devman else None, extra_files=extra_files)
        imgs = images.make(tmp)
        log("initramfs %.1f MiB and images made in %.1f s; booting %s on %s (%s, kernel %s)" % (
            os.path.getsize(initrd) / 1048576, time.monotonic() - t, manager, devfs, accel,
            kernel.version))
        append = ("console=ttyS0 loglevel=5 panic=-1 rdinit=/init vmtest.manager=%s vmtest.dev=%s"
                  % (manager, devfs))
        if manager == "devman" and devfs == RCS_DEVFS:
            append += " vmtest.start=rcs"
        if manager == "devman" and os.environ.get("DEVMAN_VM_PRELOAD") == "1":
            append += " vmtest.preload=1"  # a debugging aid, see README.md
        append += append_extra
        error = None
        try:
            out, console, secs = qemu.run(env.qemu, kernel.image, initrd, append, accel, tmp,
                                          imgs, BOOT_TIMEOUT, log)
        except Exception as e:  # the report so far still tells what happened
            error = "%s: %s" % (type(e).__name__, e)
            out, console, secs = (os.path.join(tmp, "report.txt"), os.path.join(tmp, "console.log"),
                                  None)
        result = report.collect(out, console, keep_dir, error)
        result["host_seconds"] = secs
        result["accel"] = accel
        return result


def reference(env):
    """The udevd result for this kernel, rules and harness: reused when vm-udevd made it."""
    path = os.path.join(env.results, "udevd.json")
    key = env.reference_key()
    os.makedirs(env.results, exist_ok=True)
    with kmod.locked(env.results, "udevd.lock"):
        try:
            ref = report.load(path)
            if ref.get("key") == key and not report.boot_failed(ref):
                return ref
        except (OSError, ValueError):
            pass
        log("no current udevd reference; booting it")
        ref = boot(env, "udevd", "devtmpfs", os.path.join(env.results, "udevd"))
        ref["key"] = key
        report.save(ref, path)
        return ref


def print_timing(rows):
    log("boot-to-settle (guest uptime seconds; manager start -> settle -> devices ready):")
    for name, r in rows:
        t = r.get("timing", {})
        if "start" in t:
            log("  %-16s start %6.2f  settle %6.2f (+%5.2f)  ready %6.2f (+%5.2f)  host %5.1f s  [%s]" % (
                name, t["start"], t["settle"], t["settle"] - t["start"], t["ready"],
                t["ready"] - t["start"], r.get("host_seconds") or 0, r.get("accel")))
        else:
            log("  %-16s no timing" % name)


def test_udevd(env):
    path = os.path.join(env.results, "udevd.json")
    os.makedirs(env.results, exist_ok=True)
    with kmod.locked(env.results, "udevd.lock"):
        try:
            previous = report.load(path)
        except (OSError, ValueError):
            previous = None
        ref = boot(env, "udevd", "devtmpfs", os.path.join(env.results, "udevd"))
        ref["key"] = env.reference_key()
        report.save(ref, path)
    print_timing([("udevd/devtmpfs", ref)])
    # Two reference boots of the same inputs must not differ, or the devman comparisons would be
    # flaky: say so (without failing; the kernel, not devman, would be the cause).
    if previous and previous.get("key") == ref["key"] and not report.boot_failed(previous) and not report.boot_failed(ref):
        diffs = compare.compare(previous, ref)
        for d in diffs[:MAX_PRINTED]:
            log("NOTE: differs from the previous udevd boot: %s" % d)
        log("udevd: %d differences from the previous udevd boot" % len(diffs))
    failed = report.boot_failed(ref)
    if failed:
        log("FAIL: " + failed + " (see %s)" % os.path.join(env.results, "udevd"))
        return 1
    problems = ["guest: " + w for w in ref["warnings"]] + checks.scenario(ref, devtmpfs=True)
    # udevd never makes nodes: the same check the devman devtmpfs boot must pass.
    problems += ["devtmpfs: " + p for p in checks.devtmpfs_untouched(ref)]
    for p in problems:
        log("FAIL: udevd: " + p)
    log("udevd: %d scenario problems" % len(problems))
    return 1 if problems else 0


def test_devman(env, devfs):
    name = "devman-" + devfs
    if not env.have_devman():
        log("SKIP: %s or %s is not built; the devman boots wait for them" % (env.devmand, env.devmanadm))
        return SKIP
    ref = reference(env)
    if report.boot_failed(ref):
        log("FAIL: the udevd reference boot failed: " + report.boot_failed(ref))
        return 1
    res = boot(env, "devman", devfs, os.path.join(env.results, name))
    report.save(res, os.path.join(env.results, name + ".json"))
    return evaluate(ref, res, devfs, env.results)


def evaluate(ref, res, devfs, results_dir):
    """Scenario checks of a devman boot and its comparison with the udevd reference."""
    name = "devman-" + devfs
    print_timing([("udevd/devtmpfs", ref), ("devman/" + devfs, res)])
    failed = report.boot_failed(res)
    if failed:
        log("FAIL: %s: %s" % (name, failed))
        return 1
    problems = ["guest: " + w for w in res["warnings"]]
    want_start = "devman.rcS" if devfs == RCS_DEVFS else "init.sh"
    if res.get("started_by") != want_start:
        problems.append("started by %s, not %s" % (res.get("started_by"), want_start))
    problems += ["scenario: " + p for p in checks.scenario(res, devtmpfs=(devfs == "devtmpfs"))]
    if devfs == "devtmpfs":
        problems += ["devtmpfs: " + p for p in checks.devtmpfs_untouched(res)]
    allow = compare.Allowlist.load(os.path.join(HERE, "allowlist.txt"))
    diffs = compare.compare(ref, res)
    unexplained, allowed = allow.split(diffs)
    problems += ["differs from udevd: " + d for d in unexplained]
    full = os.path.join(results_dir, name + ".problems")
    with open(full, "w") as f:
        f.writelines(p + "\n" for p in problems)
        f.writelines("allowed: %s\n" % d for d in allowed)
    for d in allowed[:MAX_PRINTED]:
        log("allowed: %s" % d)
    for p in problems[:MAX_PRINTED]:
        log("FAIL: " + p)
    if len(problems) > MAX_PRINTED:
        log("... %d more problems in %s" % (len(problems) - MAX_PRINTED, full))
    counts = {}
    for d in diffs:
        if allow.reason(d) is None:
            counts[(d.step, d.kind)] = counts.get((d.step, d.kind), 0) + 1
    for (step, kind), n in sorted(counts.items()):
        log("  differences from udevd: %-14s %-8s %5d" % (step, kind, n))
    log("%s: %d problems, %d allowed differences" % (name, len(problems), len(allowed)))
    return 1 if problems else 0


def main(argv):
    # meson's timeout sends SIGTERM: unwind, so QEMU is killed and temp dirs are removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    signal.signal(signal.SIGINT, lambda *_: sys.exit(128 + signal.SIGINT))
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        env = Env()
    except kmod.Unavailable as e:
        log("SKIP: %s" % e)
        return SKIP
    except RuntimeError as e:
        log("FAIL: %s" % e)
        return 1
    cmd = argv[1]
    if cmd == "probe":
        print(env.accel())
        return 0
    if cmd == "run" and len(argv) == 4:
        res = boot(env, argv[2], argv[3], os.environ.get("DEVMAN_VM_KEEP"))
        report.save(res, "/dev/stdout")
        return 1 if report.boot_failed(res) else 0
    if cmd == "evaluate" and len(argv) == 3 and argv[2] in ("devman-tmpfs", "devman-devtmpfs"):
        ref = report.load(os.path.join(env.results, "udevd.json"))
        res = report.load(os.path.join(env.results, argv[2] + ".json"))
        return evaluate(ref, res, argv[2].split("-", 1)[1], env.results)
    if cmd == "test" and len(argv) == 3:
        if argv[2] == "udevd":
            return test_udevd(env)
        if argv[2] in ("devman-tmpfs", "devman-devtmpfs"):
            return test_devman(env, argv[2].split("-", 1)[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
