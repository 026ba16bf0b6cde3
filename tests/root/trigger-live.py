#!/usr/bin/env python3
"""`devmanadm trigger` on the live kernel.

  - `trigger --dry-run --verbose` lists exactly the directories under /sys/devices that have a
    uevent file and a subsystem link (a Python walk of /sys/devices, taken before and after:
    devices other tests add or remove meanwhile may be in one list and not the other), each once,
    a parent before its children;
  - `trigger --action=change --subsystem-match=mem`: the kernel sends a change event for every
    mem device (netlink group 1, the kernel's own messages);
  - `trigger --action=add` (a whole coldplug, as the bench and every init system run it): an add
    event for every listed device that still exists afterwards.
The host's own udev is not involved: the events go to whoever listens, as `udevadm trigger` does.
Usage: trigger-live.py BUILDDIR   (root: writing uevent files needs it; exits 77 otherwise)
"""
import os, socket, subprocess, sys, time

build = sys.argv[1]
adm = os.path.join(build, "daemon", "devmanadm")
if os.geteuid() != 0:
    print("not root: skipped")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import tap  # noqa: E402
from tap import check  # noqa: E402


def walk():
    """{syspath: subsystem} of every device under /sys/devices that has a subsystem."""
    out = {}
    for dirpath, dirnames, filenames in os.walk("/sys/devices"):
        if "uevent" not in filenames:
            continue
        try:
            out[dirpath] = os.path.basename(os.readlink(os.path.join(dirpath, "subsystem")))
        except OSError:
            pass  # no subsystem: the kernel sends no event for it
    return out


def listen():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC, 15)  # NETLINK_KOBJECT_UEVENT
    s.setsockopt(socket.SOL_SOCKET, 33, 64 * 1024 * 1024)  # SO_RCVBUFFORCE: a coldplug does not overflow it
    s.bind((0, 1))
    return s


def receive(s, action, want, seconds=10.0):
    """The syspaths of the kernel's `action` messages, until every path of want was seen, or
    seconds passed (other tests' loop devices can keep the socket busy for ever)."""
    got = set()
    deadline = time.monotonic() + seconds
    while not want <= got:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            msg = s.recv(1 << 16)
        except socket.timeout:
            break
        head = msg.split(b"\0", 1)[0].decode(errors="replace")
        if "@" in head and not msg.startswith(b"libudev"):
            a, devpath = head.split("@", 1)
            if a == action:
                got.add("/sys" + devpath)
    return got


before = walk()
r = subprocess.run([adm, "trigger", "--dry-run", "--verbose"], capture_output=True, text=True)
after = walk()
got = r.stdout.splitlines()
check(r.returncode == 0, "trigger --dry-run exits 0")
check(len(got) == len(set(got)), "no device listed twice (%d listed)" % len(got))
stable = set(before) & set(after)
missing = stable - set(got)
extra = set(got) - (set(before) | set(after))
check(len(stable) > 20 and not missing and not extra,
      "exactly the %d devices with a uevent file and a subsystem: missing %s, extra %s"
      % (len(stable), sorted(missing)[:5], sorted(extra)[:5]))
index = {p: i for i, p in enumerate(got)}
late = [(q, p) for p in got for q in index if p.startswith(q + "/") and index[q] > index[p]]
check(not late, "every parent before its children %s" % late[:3])

sock = listen()
mem = {p for p, sub in after.items() if sub == "mem"}
r = subprocess.run([adm, "trigger", "--action=change", "--subsystem-match=mem"], capture_output=True, text=True)
changed = receive(sock, "change", mem)
check(r.returncode == 0, "trigger --action=change --subsystem-match=mem exits 0")
check(mem and mem <= changed, "a change event for each of the %d mem devices: missing %s"
      % (len(mem), sorted(mem - changed)))

t0 = time.monotonic()
r = subprocess.run([adm, "trigger", "--action=add"], capture_output=True, text=True)
elapsed = time.monotonic() - t0
still = {p for p in got if os.path.exists(os.path.join(p, "uevent"))}
added = receive(sock, "add", still, 20.0)
still = {p for p in still if os.path.exists(os.path.join(p, "uevent"))}  # some may go meanwhile
check(r.returncode == 0, "trigger --action=add exits 0 (%.1f ms)" % (elapsed * 1000))
check(still and still <= added, "an add event for each of the %d listed devices: missing %s"
      % (len(still), sorted(still - added)[:5]))

tap.finish()
