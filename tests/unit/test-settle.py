#!/usr/bin/env python3
"""`devmanadm settle` against stand-ins for the daemon in a private run directory.

  - a daemon that answers WAIT_IDLE (devmand): settle returns when the answer comes, and not
    before — the queue file is not looked at then;
  - a daemon that only knows udevadm's messages (udevd: the connection closes without an
    answer): settle waits for <run>/queue to disappear, and not before;
  - no daemon (no control socket): the queue file alone decides;
  - --timeout: exit status 1 when the queue stays.
Usage: test-settle.py BUILDDIR
"""
import os, select, socket, struct, subprocess, sys, tempfile, threading, time

build = sys.argv[1]
adm = os.path.join(build, "daemon", "devmanadm")
MAGIC = 0xDEAD1DEA
END, PING, WAIT_IDLE = 0, 7, 9
WIRE = 280  # version[16], magic, type, value[256]


def byte_order(path):
    """The struct prefix of the ELF program's byte order: the control messages carry integers in
    the order of the machine the peers run on, and under a cross run (tests/cross) that is
    devmanadm's, not this interpreter's."""
    with open(path, "rb") as f:
        ident = f.read(6)
    return "<" if ident[5] == 1 else ">"


ORDER = byte_order(adm)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import tap  # noqa: E402
from tap import check  # noqa: E402


class FakeDaemon:
    """Accepts one connection at a time on <run>/control and records the message types. With
    knows_idle, WAIT_IDLE is answered when answer() is called; END closes the connection once
    nothing is owed."""

    def __init__(self, run, knows_idle):
        self.path = os.path.join(run, "control")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.bind(self.path)
        self.sock.listen(4)
        self.knows_idle = knows_idle
        self.types = []
        self.go = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def answer(self):
        self.go.set()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            owed = False
            while True:
                msg = conn.recv(WIRE + 1)
                if len(msg) != WIRE:
                    break
                magic, typ = struct.unpack_from(ORDER + "Ii", msg, 16)
                if magic != MAGIC:
                    break
                self.types.append(typ)
                if typ == WAIT_IDLE and self.knows_idle:
                    owed = True
                if typ == END:
                    break
            if owed:
                self.go.wait()
                conn.send(struct.pack(ORDER + "16sIi256s", b"fake", MAGIC, WAIT_IDLE, b""))
            conn.close()

    def close(self):
        self.sock.close()


def settle(run, *args):
    return subprocess.Popen([adm, "--run", run, "settle"] + list(args))


def waiting(p, seconds=0.3):
    try:
        p.wait(seconds)
        return False
    except subprocess.TimeoutExpired:
        return True


def finishes(p, seconds=5):
    try:
        return p.wait(seconds) == 0
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return False


with tempfile.TemporaryDirectory(prefix="devman-settle.") as run:
    queue = os.path.join(run, "queue")

    # devmand: the answer decides, not the queue file (left in place here on purpose)
    d = FakeDaemon(run, knows_idle=True)
    open(queue, "w").close()
    p = settle(run)
    check(waiting(p), "WAIT_IDLE: settle waits for the answer")
    check(d.types[:2] == [WAIT_IDLE, END], "settle sent WAIT_IDLE, then END_MESSAGES (%s)" % d.types)
    t = time.monotonic()
    d.answer()
    check(finishes(p), "WAIT_IDLE: settle exits 0 once answered (%.0f ms)" % ((time.monotonic() - t) * 1000))
    d.close()
    os.unlink(d.path)
    os.unlink(queue)

    # udevd: the close answers the request as a ping; then the queue file decides
    d = FakeDaemon(run, knows_idle=False)
    open(queue, "w").close()
    p = settle(run)
    check(waiting(p), "udevd-like daemon: settle waits while <run>/queue exists")
    check(d.types[:2] == [WAIT_IDLE, END], "the request reached the daemon first (%s)" % d.types)
    t = time.monotonic()
    os.unlink(queue)
    check(finishes(p), "and exits 0 when it goes (%.0f ms)" % ((time.monotonic() - t) * 1000))
    p = settle(run)
    check(finishes(p), "udevd-like daemon, no queue file: settle exits 0 at once")
    d.close()
    os.unlink(d.path)

    # no daemon at all
    open(queue, "w").close()
    p = settle(run)
    check(waiting(p), "no daemon: settle waits while <run>/queue exists")
    os.unlink(queue)
    check(finishes(p), "and exits 0 when it goes")

    open(queue, "w").close()
    t = time.monotonic()
    r = subprocess.run([adm, "--run", run, "settle", "--timeout=0.3"], capture_output=True, text=True)
    took = time.monotonic() - t
    check(r.returncode == 1 and "timeout" in r.stderr and took >= 0.3,
          "--timeout=0.3 with the queue staying: exit 1 after %.2f s" % took)
    os.unlink(queue)

tap.finish()
