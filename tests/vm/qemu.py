"""One bounded QEMU run: the guest's devices, the control channel (ttyS1 on a unix socket), the
report channel (virtio console to a file), QMP for hot-plug, and a watchdog that kills QEMU by
its PID. QEMU also dies with this process (PR_SET_PDEATHSIG), so nothing outlives a test."""

import ctypes
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time

import images

PR_SET_PDEATHSIG = 1


def _die_with_parent():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _connect(path, proc, deadline):
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("QEMU exited (%d) before %s existed" % (proc.returncode, path))
        if os.path.exists(path):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(path)
                return s
            except OSError:
                s.close()
        time.sleep(0.05)
    raise TimeoutError("no QEMU socket %s" % path)


class LineReader:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def readline(self, deadline):
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no line from the guest in time")
            r, _, _ = select.select([self.sock], [], [], min(left, 1.0))
            if r:
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise EOFError("channel closed")
                self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode(errors="replace").strip("\r")


class Qmp:
    def __init__(self, sock):
        self.reader = LineReader(sock)
        self.sock = sock
        self.events = []
        self._recv(time.monotonic() + 10)  # greeting
        self.execute("qmp_capabilities")

    def _recv(self, deadline):
        return json.loads(self.reader.readline(deadline))

    def execute(self, cmd, timeout=30, **args):
        msg = {"execute": cmd}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._recv(deadline)
            if "event" in reply:
                self.events.append(reply)
            elif "error" in reply:
                raise RuntimeError("QMP %s: %s" % (cmd, reply["error"].get("desc")))
            elif "return" in reply:
                return reply["return"]

    def wait_deleted(self, dev_id, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev["event"] == "DEVICE_DELETED" and ev.get("data", {}).get("device") == dev_id:
                    del self.events[i]
                    return
            reply = self._recv(deadline)
            if "event" in reply:
                self.events.append(reply)


def machine_args(imgs):
    """The guest's hardware. Counts and names here are what init.sh and checks.py expect."""
    def blockdev(node, path):
        return ["-blockdev", json.dumps({"driver": "raw", "node-name": node,
                                         "file": {"driver": "file", "filename": path}})]
    return [
        *blockdev("d0", imgs["disk0"]),
        "-device", "virtio-blk-pci,drive=d0,id=vd0,serial=" + images.DISK0_SERIAL,
        "-device", "ahci,id=ahci",
        *blockdev("s0", imgs["sata"]),
        "-device", "ide-hd,bus=ahci.0,drive=s0,serial=" + images.SATA_SERIAL,
        "-device", "qemu-xhci,id=xhci",
        "-device", "usb-kbd,bus=xhci.0,id=kbd",
        "-device", "usb-tablet,bus=xhci.0,id=tablet",
        # a file back-end: usb-serial attaches only to an opened chardev (a null one never is)
        "-chardev", "file,id=userial,path=" + os.devnull,
        "-device", "usb-serial,bus=xhci.0,chardev=userial,id=userial",
        "-device", "usb-ehci,id=ehci",
        *blockdev("u0", imgs["usb"]),  # the USB stick's medium; the stick is hot-plugged
        "-netdev", "user,id=n0,restrict=on",
        "-device", "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:01",
        "-netdev", "user,id=n1,restrict=on",
        "-device", "e1000,netdev=n1,mac=52:54:00:12:34:02",
        "-device", "ide-cd,bus=ide.1,unit=0,id=cd0",  # an empty ATAPI drive on the PIIX IDE
        "-audiodev", "none,id=snd0",
        "-machine", "pcspk-audiodev=snd0",  # the PC speaker (pcspkr input device)
        "-rtc", "base=utc",
    ]


class Hotplug:
    """The host side of the guest's REQ actions."""

    def __init__(self, qmp, imgs):
        self.qmp = qmp
        self.imgs = imgs

    def __call__(self, action):
        q = self.qmp
        if action == "disk-add":
            q.execute("blockdev-add", driver="raw", **{"node-name": "hp0"},
                      file={"driver": "file", "filename": self.imgs["hotplug"]})
            q.execute("device_add", driver="virtio-blk-pci", id="hpdisk", drive="hp0",
                      serial=images.HOTPLUG_SERIAL)
        elif action == "disk-remove":
            q.execute("device_del", id="hpdisk")
            q.wait_deleted("hpdisk")
            q.execute("blockdev-del", **{"node-name": "hp0"})
        elif action == "usb-remove":
            q.execute("device_del", id="usbstick")
            q.wait_deleted("usbstick")
        elif action == "usb-add":
            q.execute("device_add", driver="usb-storage", id="usbstick", drive="u0",
                      bus="ehci.0", serial=images.USB_SERIAL)
        else:
            raise RuntimeError("unknown action %r" % action)


def run(qemu, kernel_image, initrd, append, accel, workdir, imgs, timeout, log, machine=None,
        hotplug=Hotplug):
    """Boots, serves the guest's requests, returns (report path, console path, host seconds).
    Raises on a watchdog kill or a protocol error; QEMU is dead when this returns.
    machine(ctl, qmp, report, console paths) -> QEMU's arguments and hotplug(qmp, imgs) the
    host's actions, for another machine than this PC (tests/cross/vm.py)."""
    ctl_path = os.path.join(workdir, "ctl.sock")
    qmp_path = os.path.join(workdir, "qmp.sock")
    out_path = os.path.join(workdir, "report.txt")
    console_path = os.path.join(workdir, "console.log")
    cmd = [qemu, "-nodefaults", "-no-user-config", "-M", "pc", "-m", "1024", "-smp", "1",
           "-accel", accel, "-display", "none", "-vga", "none", "-no-reboot",
           "-kernel", kernel_image, "-initrd", initrd, "-append", append,
           "-serial", "file:" + console_path,
           "-chardev", "socket,id=ctl,path=%s,server=on,wait=on" % ctl_path,
           "-serial", "chardev:ctl",
           "-device", "virtio-serial-pci,id=vser0",
           "-chardev", "file,id=out,path=" + out_path,
           "-device", "virtconsole,chardev=out,id=vcon0",
           "-qmp", "unix:%s,server=on,wait=off" % qmp_path,
           *machine_args(imgs)]
    if machine:
        cmd = [qemu] + machine(ctl_path, qmp_path, out_path, console_path)
    start = time.monotonic()
    deadline = start + timeout
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
    killed = threading.Event()

    def watchdog():
        killed.set()
        proc.kill()

    timer = threading.Timer(timeout, watchdog)
    timer.start()
    ctl = qmp_sock = None
    try:
        ctl = _connect(ctl_path, proc, deadline)
        qmp_sock = _connect(qmp_path, proc, deadline)
        hotplug = hotplug(Qmp(qmp_sock), imgs)
        reader = LineReader(ctl)
        while True:
            line = reader.readline(deadline)
            if line.startswith("REQ "):
                action = line[4:]
                log("host: %s at %.1f s" % (action, time.monotonic() - start))
                hotplug(action)
                ctl.sendall(("OK %s\n" % action).encode())
            elif line == "DONE":
                break
            elif line:
                log("guest on ctl: %s" % line)
        proc.wait(timeout=max(1, deadline - time.monotonic()))
    except (EOFError, TimeoutError, subprocess.TimeoutExpired) as e:
        if killed.is_set():
            raise TimeoutError("watchdog: QEMU killed after %d s" % timeout) from e
        raise
    finally:
        timer.cancel()
        for s in (ctl, qmp_sock):
            if s:
                s.close()
        if proc.poll() is None:
            proc.kill()
        qemu_out = proc.communicate()[0].decode(errors="replace")
        for line in qemu_out.splitlines():
            if line.strip() and "QEMU waiting for connection" not in line:
                log("qemu: " + line)
    return out_path, console_path, time.monotonic() - start


def probe(qemu, kernel_image, initrd, accel, timeout, marker):
    """True when the kernel reaches /init under accel within timeout."""
    cmd = [qemu, "-nodefaults", "-no-user-config", "-M", "pc", "-m", "256", "-accel", accel,
           "-display", "none", "-vga", "none", "-no-reboot", "-serial", "stdio",
           "-kernel", kernel_image, "-initrd", initrd, "-append", "console=ttyS0 quiet panic=-1"]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return marker.encode() in out
