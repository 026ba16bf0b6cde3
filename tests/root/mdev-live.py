#!/usr/bin/env python3
"""mdev.conf on the live kernel: devmand --mdev-conf against busybox `mdev -d` (Debian's
busybox-static 1.35, daemon mode: an initial scan of /sys, then the kernel's uevent socket),
both listening at the same time to the same events.

One mdev.conf (lines for the test's loop devices and a few ttys: owner, group, mode, `=dir/`,
`>path` with `%1`, `!`, `-` and `@`/`$`/`*` commands that log MDEV, ACTION, DEVPATH, SUBSYSTEM
and DEVNAME). busybox reads it at /etc/mdev.conf (an overlay over /etc) and writes a tmpfs bound
over /dev, in a mount namespace of its own; devmand gets it through --mdev-conf, with private
--dev and --run dirs and an empty rules dir. The command log's path is the same for both; in
busybox's namespace another directory is bound over it, so each writes its own log.

Steps: add events for ttyS0, tty5, tty6 and tty7 (written to their uevent files); a change
event for ttyS0; 4 loop devices added through /dev/loop-control (indices 45000 and up), 3 of them
attached to a file and detached again (losetup: the kernel's change events), then all removed. After each, a barrier (an add event with a SYNTH_UUID for ptmx, whose line logs it,
seen by both; then devmanadm settle), and the two /devs (nodes: type, devt, mode, owner, group;
symlinks) and command logs are compared for those devices (tests/helpers/mdev_compare.py, as
mdev-differential.py compares; devman's char/ and block/ links are left out by design).

Everything in a private mount namespace (unshare -m): the real /dev, /etc and /run/udev are never
touched. The loop devices are removed and the two daemons killed by PID on every exit.
Usage: mdev-live.py BUILDDIR   (root, busybox, /dev/loop-control, ptmx and one of the ttys; exits 77
otherwise)"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import fixture  # noqa: E402
import tap  # noqa: E402
from tap import check  # noqa: E402
from fixture import listing  # noqa: E402
from mdev_compare import take_log, compare, compare_log  # noqa: E402

build, src = fixture.start(sys.argv)
BUSYBOX = shutil.which("busybox")
if not BUSYBOX or subprocess.run([BUSYBOX, "mdev", "--help"], capture_output=True).returncode not in (0, 1):
    print("no busybox with mdev: skipped")
    sys.exit(77)
if not os.access("/dev/loop-control", os.W_OK) or not shutil.which("unshare"):
    print("no /dev/loop-control or unshare: skipped")
    sys.exit(77)
TTYS = [t for t in ("ttyS0", "tty5", "tty6", "tty7") if os.path.exists("/sys/class/tty/%s/uevent" % t)]
if not TTYS or not os.path.exists("/sys/class/tty/ptmx/uevent"):
    print("no ttyS0, tty5-7 or ptmx: skipped")
    sys.exit(77)
# exec keeps the PID: the marker tells the run inside the namespace
if os.environ.get("DEVMAN_MDEV_LIVE_NS") != str(os.getpid()):
    os.environ["DEVMAN_MDEV_LIVE_NS"] = str(os.getpid())
    os.execvp("unshare", ["unshare", "-m", "--propagation", "private", sys.executable,
                          os.path.abspath(__file__)] + sys.argv[1:])

LOOPCTL = os.path.join(build, "tests", "loopctl")
N = 4
BASE = 45000 + (os.getpid() % 100) * 10


# what each command logs: the kernel's keys of the event (SEQNUM: both handled the same event) and
# the working directory (busybox's /dev, devman's --dev dir: written as DEV)
KEYS = ("MDEV", "ACTION", "DEVPATH", "SUBSYSTEM", "DEVNAME", "DEVTYPE", "MAJOR", "MINOR", "SEQNUM", "DISKSEQ")


def conf_text(log, barrier):
    def c(tag, when):
        return '%secho "%s %s PWD=$(pwd)" >> %s' % (when, tag, " ".join("%s=$%s" % (k, k) for k in KEYS), log)
    b = BASE
    return "\n".join([
        "# mdev-live.py: the test's loop devices and ttys",
        'ptmx\t\t0:5 666 @echo "barrier $SYNTH_UUID" >> %s' % barrier,
        "loop%d\t0:6 640 =disk/ %s" % (b, c("loop-dir", "*")),
        "SUBSYSTEM=block;loop(%d)\t0:0 600 >blk/l%%1 %s" % (b + 1, c("loop-link", "@")),
        "loop%d\t0:6 660 ! %s" % (b + 2, c("loop-none", "$")),
        "-loop%d\t0:0 600 %s" % (b + 3, c("loop-cont", "@")),
        "@7,%d-%d\troot:disk 604" % (b + 3, b + 3),
        "ttyS0\t\t0:dialout 620 >serial/port0 %s" % c("serial", "*"),
        "DEVPATH=.*/virtual/.*;tty5\t0:5 600 =vc/ %s" % c("vc", "@"),
        "tty6\t\t0:5 600 !",
        "tty(7)\t\troot:tty 640 >vc/%%1 %s" % c("vc-link", "$"),
        "",
    ])


OURS = re.compile(r"(^|/)(ttyS0|tty[5-7]|loop%s)$|^(serial|vc|blk)/" %
                  "|loop".join(str(BASE + i) for i in range(N)))


def ours(name):
    return bool(OURS.search(name))


class Live:
    def __init__(self, tmp):
        self.tmp = tmp
        self.bbdev, self.bblog, self.log, self.dev, self.run, self.rules, self.up, self.work = fixture.dirs(
            tmp, "bbdev", "bblog", "log", "dev", "run", "rules", "up", "work",
            make=("bbdev", "bblog", "log", "dev", "run", "rules", "up", "work"))
        subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755", "none", self.bbdev], check=True)
        self.conf = os.path.join(tmp, "mdev.conf")
        text = conf_text(os.path.join(self.log, "commands.log"), os.path.join(self.log, "barrier.log"))
        for p in (self.conf, os.path.join(self.up, "mdev.conf")):
            with open(p, "w") as f:
                f.write(text)
        self.mdev = self.devmand = None
        self.barriers = 0

    def start(self):
        script = "\n".join([
            "set -e",
            "mount --bind %s /dev" % self.bbdev,
            "mount -t overlay overlay -o lowerdir=/etc,upperdir=%s,workdir=%s /etc" % (self.up, self.work),
            "mount --bind %s %s" % (self.bblog, self.log),
            "cd /dev",
            "exec %s mdev -d -f" % BUSYBOX,
        ])
        with open(os.path.join(self.tmp, "mdev.err"), "w") as err:
            self.mdev = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                                         stdout=err, stderr=err, stdin=subprocess.DEVNULL)
        with open(os.path.join(self.tmp, "devmand.err"), "w") as err:
            self.devmand = subprocess.Popen([fixture.devmand(build), "--dev", self.dev, "--run", self.run,
                                             "--rules-dir", self.rules, "--mdev-conf", self.conf,
                                             "--log-level=warning"], stdout=err, stderr=err,
                                            stdin=subprocess.DEVNULL)
        for _ in range(400):
            if self.adm("control", "--ping", "--timeout=1").returncode == 0:
                return True
            if self.devmand.poll() is not None:
                break
            time.sleep(0.05)
        return False

    def adm(self, *args, timeout=120):
        return subprocess.run([fixture.devmanadm(build), "--dev", self.dev, "--run", self.run] + list(args),
                              capture_output=True, text=True, timeout=timeout)

    def barrier(self):
        """Both have handled every event the kernel sent before: busybox handles one event at a
        time, in order, its commands included; devmanadm settle waits for devman's."""
        self.barriers += 1
        uuid = "%08x-0000-4000-8000-%012x" % (os.getpid(), self.barriers)
        with open("/sys/class/tty/ptmx/uevent", "w") as f:
            f.write("add %s\n" % uuid)
        logs = [os.path.join(self.bblog, "barrier.log"), os.path.join(self.log, "barrier.log")]
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.mdev.poll() is not None or self.devmand.poll() is not None:
                return False
            seen = 0
            for p in logs:
                try:
                    with open(p) as f:
                        seen += uuid in f.read()
                except FileNotFoundError:
                    pass
            if seen == 2:
                return self.adm("settle", "--timeout=60").returncode == 0
            time.sleep(0.05)
        return False

    def step(self, what):
        check(self.barrier(), "%s: busybox and devman handled the events" % what,
              "mdev %s, devmand %s" % (self.mdev.poll(), self.devmand.poll()))
        bb_log = sorted(x.replace("PWD=/dev", "PWD=DEV") for x in take_log(os.path.join(self.bblog, "commands.log")))
        dm_log = sorted(x.replace("PWD=" + self.dev, "PWD=DEV") for x in take_log(os.path.join(self.log, "commands.log")))
        compare(what, listing(self.bbdev), listing(self.dev), keep=ours)
        compare_log(what, bb_log, dm_log)
        return bb_log, dm_log

    def stop(self):
        for p in (self.mdev, self.devmand):
            if p and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def uevent(tty, action):
    with open("/sys/class/tty/%s/uevent" % tty, "w") as f:
        f.write(action + "\n")


def loops(action):
    """loopctl ACTION of our range; a remove is retried while a device is busy (up to 60 s)."""
    for _ in range(300):
        left = [BASE + i for i in range(N)
                if os.path.exists("/sys/devices/virtual/block/loop%d" % (BASE + i)) == (action == "remove")]
        if not left:
            return True
        for i in left:
            subprocess.run([LOOPCTL, action, str(i), "1"], capture_output=True)
        time.sleep(0.2)
    return False


def loop_lines(log):
    """The lines of the loop devices' commands (an outside trigger may add some of the ttys')."""
    return [x for x in log if x.startswith("loop-")]


def losetup(*args):
    """losetup ARGS, retried briefly (a detach is lazy while anything holds the device open)."""
    for _ in range(100):
        if subprocess.run(["losetup"] + list(args), capture_output=True).returncode == 0:
            return True
        time.sleep(0.05)
    return False


def detach_ours():
    for i in range(N):
        if os.path.exists("/sys/devices/virtual/block/loop%d/loop/backing_file" % (BASE + i)):
            losetup("-d", "/dev/loop%d" % (BASE + i))


def main():
    tmp = tempfile.mkdtemp(prefix="devman-mdev-live-")
    live = None
    added = False
    # a timeout's SIGTERM goes through the cleanup too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        live = Live(tmp)
        t0 = time.monotonic()
        check(live.start(), "devmand answers")
        # busybox's initial scan goes first: its commands and nodes are not compared
        check(live.barrier(), "busybox's initial scan of /sys done (%.1f s)" % (time.monotonic() - t0))
        take_log(os.path.join(live.bblog, "commands.log"))
        take_log(os.path.join(live.log, "commands.log"))
        # devman has not seen these devices yet: both start without their nodes (the scan's
        # differ by design: mdev -s sets no DEVPATH for the VAR= prefix of tty5's line)
        for k in listing(live.bbdev):
            if ours(k):
                os.unlink(os.path.join(live.bbdev, k))

        for t in TTYS:
            uevent(t, "add")
        bb, _ = live.step("tty add (%s)" % " ".join(TTYS))
        check(len(bb) >= 2, "tty add: commands ran (%d)" % len(bb))
        uevent(TTYS[0], "change")
        live.step("%s change" % TTYS[0])

        added = True
        check(loops("add"), "loop devices %d-%d added" % (BASE, BASE + N - 1))
        bb = loop_lines(live.step("loop add")[0])
        check(len(bb) == 3, "loop add: the three add commands ran (%d)" % len(bb), str(bb))
        nodes = [k for k, v in listing(live.dev).items() if ours(k) and v.startswith("b ")]
        check(len(nodes) == 3, "loop add: three nodes in devman's /dev, one line has no node (%d)" % len(nodes),
              str(nodes))
        # attach and detach: the kernel's change events of a live loop device
        backing = os.path.join(live.tmp, "backing")
        with open(backing, "wb") as f:
            f.truncate(1 << 20)
        attached = [BASE + i for i in range(3)]
        check(all(losetup("/dev/loop%d" % i, backing) for i in attached), "loop devices %s attached" % attached)
        bb = loop_lines(live.step("loop attach")[0])
        check(len(bb) >= 1, "loop attach: the change command ran (%d)" % len(bb), str(bb))
        check(all(losetup("-d", "/dev/loop%d" % i) for i in attached), "loop devices detached")
        live.step("loop detach")
        check(loops("remove"), "loop devices removed")
        added = False
        bb = loop_lines(live.step("loop remove")[0])
        check(len(bb) == 2, "loop remove: the two remove commands ran (%d)" % len(bb), str(bb))
        left = [k for k in listing(live.dev) if ours(k) and ("loop" in k or k.startswith("blk/"))]
        check(not left, "loop remove: no loop node or link left in devman's /dev", str(left))
    finally:
        if live:
            live.stop()
        detach_ours()
        if added or any(os.path.exists("/sys/devices/virtual/block/loop%d" % (BASE + i)) for i in range(N)):
            loops("remove")
        for name in ("mdev.err", "devmand.err"):
            try:
                with open(os.path.join(tmp, name)) as f:
                    text = f.read().strip()
                if text:
                    print("# %s:\n# %s" % (name, text[-2000:].replace("\n", "\n# ")))
            except FileNotFoundError:
                pass
        subprocess.run(["umount", "-l", os.path.join(tmp, "bbdev")], stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)
    tap.finish()


main()
