#!/usr/bin/env python3
"""The distro suite's driver: a Debian 12 system (systemd as PID 1) booted under QEMU once with
devman as its device manager and once with systemd-udevd, and the two boots compared.
See tests/README.md ("distro").

  distro.py image                 build (or refresh) the images only
  distro.py boot VARIANT          one boot (devman, devman-plain or udevd); the parsed report
                                  as JSON on stdout
  distro.py test systemd          the three boots, checks and comparison (the meson test)
  distro.py evaluate              checks and comparison of the last reports, without booting

Exit status: 0 pass, 1 fail, 77 skip (not root, no QEMU, debootstrap not obtainable)."""

import json
import os
import select
import shutil
import signal
import sys
import tempfile
import threading
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "vm"))

import image  # noqa: E402
import guestreport  # noqa: E402
import initramfs as vminitramfs  # noqa: E402
import kernel as vmkernel  # noqa: E402
import qemu as vmqemu  # noqa: E402

SKIP = 77
BOOT_TIMEOUT = int(os.environ.get("DEVMAN_DISTRO_TIMEOUT", "900"))
PROBE_MARKER = "DEVMAN-DISTRO-PROBE-REACHED-INIT"
MACHINE_MAC = "52:54:00:12:34:56"


log = image.log


class Env:
    """The run's directories, cache and QEMU, and its images (made on first use). A suite
    with other images overrides the class attributes: its base tree (whose kernel the
    accelerator probe boots), its images' folder in the build dir, their lock and maker."""
    BASE = "base"
    IMAGES = "images"
    IMAGES_LOCK = "images.lock"
    make_images = staticmethod(image.make_images)

    def __init__(self):
        self.source = os.environ.get("DEVMAN_SOURCE_ROOT", os.path.dirname(os.path.dirname(HERE)))
        self.build = os.environ.get("DEVMAN_BUILD_ROOT", os.path.join(self.source, "build"))
        self.results = os.path.join(self.build, "tests", "distro", "results")
        self.cache = image.cache_dir(self.build)
        try:
            self.qemu = vmkernel.qemu_binary()
        except vmkernel.Unavailable as e:
            raise image.Unavailable(str(e))
        self.imgs = None

    def images(self):
        if self.imgs is None:
            t = time.monotonic()
            # the images of this build dir's devman live in the build dir: another checkout's
            # run (same cache) would otherwise overwrite them between making and copying
            with image.locked(self.cache, self.IMAGES_LOCK):
                self.imgs = self.make_images(self.cache, self.source, self.build,
                                             os.path.join(self.build, "tests", "distro", self.IMAGES))
            log("%s ready after %.0f s" % (self.IMAGES, time.monotonic() - t))
        return self.imgs

    def accel(self):
        """KVM when a probe boot of the guest's kernel works under it, else TCG (the vm suite's
        detection, cached in the distro cache, keyed by the base tree's kernel)."""
        imgs = self.images()
        kern = vmkernel.Kernel(os.path.join(self.cache, self.BASE))

        def probe(accel):
            with tempfile.TemporaryDirectory(prefix="devman-distro-probe.") as tmp:
                img = os.path.join(tmp, "probe.cpio")
                vminitramfs.build_probe(img, PROBE_MARKER)
                ok = vmqemu.probe(self.qemu, imgs["vmlinuz"], img, accel, 20, PROBE_MARKER)
                log("probe %s: %s" % (accel, "reached /init" if ok else "no /init"))
                return ok
        return vmkernel.accelerator(self.cache, kern, self.qemu, probe)


def machine_args(imgs, variant, workdir):
    """The guest's hardware (issue 32's): virtio disks, virtio-net, xHCI with keyboard and
    tablet, a virtio-serial controller with one virtconsole port; ttyS0 is the console and
    ttyS1 the report channel."""
    def drive(node, path, snapshot):
        spec = {"driver": "raw", "node-name": node,
                "file": {"driver": "file", "filename": path}}
        return ["-blockdev", json.dumps(spec)]
    return [
        *drive("root", imgs[variant], False),
        "-device", "virtio-blk-pci,drive=root,id=vroot,serial=devman-root",
        *drive("data", imgs["data_copy"], False),
        "-device", "virtio-blk-pci,drive=data,id=vdata,serial=" + image.DATA_SERIAL,
        "-netdev", "user,id=n0,restrict=on",
        "-device", "virtio-net-pci,netdev=n0,mac=" + MACHINE_MAC,
        "-device", "qemu-xhci,id=xhci",
        "-device", "usb-kbd,bus=xhci.0,id=kbd",
        "-device", "usb-tablet,bus=xhci.0,id=tablet",
        "-device", "virtio-serial-pci,id=vser0",
        "-chardev", "file,id=hvc,path=" + os.path.join(workdir, "hvc0.log"),
        "-device", "virtconsole,chardev=hvc,id=vcon0",
        "-rtc", "base=utc",
    ]


# the hot-plugged devices; their serials are the words report.sh looks for in unit names
HOTPLUG_DISK_SERIAL, HOTPLUG_USB_SERIAL = "dmhotdisk", "dmhotusb"


class Hotplug:
    """The host side of the guest's "@@REQ action" lines: QMP commands, connected on first use."""

    def __init__(self, qmp_path, proc, tmp):
        self.qmp_path, self.proc, self.tmp, self.qmp = qmp_path, proc, tmp, None

    def _medium(self, name):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.truncate(16 * image.MIB)
        return path

    def __call__(self, action):
        if self.qmp is None:
            sock = vmqemu._connect(self.qmp_path, self.proc, time.monotonic() + 30)
            self.qmp = vmqemu.Qmp(sock)
        q = self.qmp
        if action in ("disk-add", "usb-add"):
            name = "hpdisk" if action == "disk-add" else "hpusb"
            q.execute("blockdev-add", driver="raw", **{"node-name": name + "0"},
                      file={"driver": "file", "filename": self._medium(name + ".img")})
            if action == "disk-add":
                q.execute("device_add", driver="virtio-blk-pci", id=name, drive=name + "0",
                          serial=HOTPLUG_DISK_SERIAL)
            else:
                q.execute("device_add", driver="usb-storage", id=name, drive=name + "0",
                          bus="xhci.0", serial=HOTPLUG_USB_SERIAL)
        elif action in ("disk-remove", "usb-remove"):
            name = "hpdisk" if action == "disk-remove" else "hpusb"
            q.execute("device_del", id=name)
            q.wait_deleted(name, timeout=60)  # virtio-blk-pci: once the guest let go (ACPI)
            q.execute("blockdev-del", **{"node-name": name + "0"})
        else:
            raise RuntimeError("unknown action %r" % action)

    def close(self):
        if self.qmp:
            self.qmp.sock.close()


def serve_report(sock, report_path, hotplug, start):
    """Copies the report channel into report_path until QEMU closes it, answering each
    "@@REQ action" line with "OK action" (or "ERR action: why") once the QMP commands ran."""
    buf = b""
    with open(report_path, "wb") as out:
        while True:
            r, _, _ = select.select([sock], [], [], 1.0)
            if not r:
                continue
            chunk = sock.recv(65536)
            if not chunk:
                return
            out.write(chunk)
            buf += chunk
            while b"\n" in buf:
                line, _, buf = buf.partition(b"\n")
                line = line.decode(errors="replace").strip("\r")
                if not line.startswith("@@REQ "):
                    continue
                action = line[len("@@REQ "):]
                log("host: %s at %.0f s" % (action, time.monotonic() - start))
                try:
                    hotplug(action)
                    reply = "OK %s\n" % action
                except (RuntimeError, OSError, TimeoutError, EOFError, ValueError) as e:
                    log("host: %s failed: %s" % (action, e))
                    reply = "ERR %s: %s\n" % (action, str(e).replace("\n", " "))
                sock.sendall(reply.encode())


def boot(env, variant, accel):
    """One boot; returns (report text, console text, host seconds). QEMU is dead on return."""
    imgs = dict(env.images())
    os.makedirs(env.results, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="devman-distro-%s." % variant, dir=env.cache) as tmp:
        # the boot writes to its disks: a copy of each, so every boot starts from the image
        with image.locked(env.cache, "images.lock"):
            copies = [(key, shutil.copy(imgs[key], tmp)) for key in ("vmlinuz", "initrd")]
            # debugging aid: another initramfs (e.g. one that loads more modules before udev)
            if os.environ.get("DEVMAN_DISTRO_INITRD"):
                copies[1] = ("initrd", shutil.copy(os.environ["DEVMAN_DISTRO_INITRD"], tmp))
            for key in (variant, "data"):
                dst = os.path.join(tmp, os.path.basename(imgs[key]))
                subprocess.run(["cp", "--sparse=always", "--reflink=auto", imgs[key], dst], check=True)
                copies.append((key if key != "data" else "data_copy", dst))
        imgs.update(copies)
        report_path = os.path.join(tmp, "report.txt")
        report_sock = os.path.join(tmp, "report.sock")
        console_path = os.path.join(tmp, "console.log")
        qmp_path = os.path.join(tmp, "qmp.sock")
        append = "root=UUID=%s ro console=ttyS0,115200 panic=-1 systemd.show_status=1" % image.ROOT_UUID
        # debugging aid: more kernel command line, e.g. devman.log_level=debug
        if os.environ.get("DEVMAN_DISTRO_APPEND"):
            append += " " + os.environ["DEVMAN_DISTRO_APPEND"]
        cmd = [env.qemu, "-nodefaults", "-no-user-config", "-M", "pc", "-m", "1024", "-smp", os.environ.get("DEVMAN_DISTRO_SMP", "2"),
               "-accel", accel, "-display", "none", "-vga", "none", "-no-reboot",
               "-kernel", imgs["vmlinuz"], "-initrd", imgs["initrd"], "-append", append,
               "-serial", "file:" + console_path,
               # ttyS1, the report channel, both ways: the host answers hot-plug requests
               "-chardev", "socket,id=report,path=%s,server=on,wait=on" % report_sock,
               "-serial", "chardev:report",
               "-qmp", "unix:%s,server=on,wait=off" % qmp_path,
               *machine_args(imgs, variant, tmp)]
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, preexec_fn=vmqemu._die_with_parent)
        killed = threading.Event()

        def watchdog():
            killed.set()
            proc.kill()  # only the QEMU this function started, by its PID

        timer = threading.Timer(BOOT_TIMEOUT, watchdog)
        timer.start()
        # QEMU's output, read aside so that it never blocks on a full pipe
        qemu_out = []
        reader = threading.Thread(target=lambda: qemu_out.append(proc.stdout.read()), daemon=True)
        reader.start()
        hotplug = Hotplug(qmp_path, proc, tmp)
        sock = None
        try:
            # QEMU starts the guest once the report channel is connected (wait=on)
            sock = vmqemu._connect(report_sock, proc, start + BOOT_TIMEOUT)
            serve_report(sock, report_path, hotplug, start)
            proc.wait(timeout=max(1, BOOT_TIMEOUT - (time.monotonic() - start)))
        except (RuntimeError, TimeoutError, subprocess.TimeoutExpired) as e:
            if not killed.is_set():
                raise
            log("after the watchdog: %s" % e)
        finally:
            timer.cancel()
            hotplug.close()
            if sock:
                sock.close()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            reader.join(timeout=10)
        out = b"".join(qemu_out).decode(errors="replace")
        seconds = time.monotonic() - start
        for line in out.splitlines():
            if line.strip() and "QEMU waiting for connection" not in line:
                log("qemu: " + line)
        report_text = ""
        if os.path.exists(report_path):
            with open(report_path, errors="replace") as f:
                report_text = f.read()
        with open(console_path, errors="replace") as f:
            console_text = f.read()
        rdir = os.path.join(env.results, variant)
        os.makedirs(rdir, exist_ok=True)
        for name, text in (("report.txt", report_text), ("console.log", console_text)):
            with open(os.path.join(rdir, name), "w") as f:
                f.write(text)
        if killed.is_set():
            raise TimeoutError("watchdog: QEMU killed after %d s (%s boot); console in %s"
                               % (BOOT_TIMEOUT, variant, rdir))
        return report_text, console_text, seconds


def run_boot(env, variant, accel):
    log("booting the %s image under %s (watchdog %d s)" % (variant, accel, BOOT_TIMEOUT))
    text, _, seconds = boot(env, variant, accel)
    rep = guestreport.parse(text)
    rep["host_seconds"] = round(seconds, 1)
    rep["booted"] = variant  # rep["variant"] is what the guest says it booted
    with open(os.path.join(env.results, variant + ".json"), "w") as f:
        json.dump(rep, f, indent=1, sort_keys=True)
    log("%s boot: %.0f s on the host" % (variant, seconds))
    return rep


def load(env, variant):
    with open(os.path.join(env.results, variant + ".json")) as f:
        return json.load(f)


def report(summary, problems):
    """Prints the summary, a FAIL line per problem and their count; returns the exit status."""
    print(summary)
    for p in problems:
        print("FAIL: " + p)
    print("%d problems" % len(problems))
    return 1 if problems else 0


def evaluate(env):
    """Each boot's checks; the devman boots' device units, /dev and the rest against udevd's."""
    reps = {v: load(env, v) for v in image.VARIANTS}
    problems = []
    for v in image.VARIANTS:
        problems += guestreport.check_boot(reps[v], v)
    for v in image.VARIANTS:
        if v != "udevd":
            problems += ["%s: %s" % (v, p) for p in
                         guestreport.compare(reps["udevd"], reps[v], os.path.join(HERE, "allowlist.txt"), v)]
    return report(guestreport.summary(reps["udevd"], reps["devman"], reps["devman-plain"]), problems)


def cli(argv, doc, run, make_env=Env):
    """The drivers' main: run(env, command, args) returns the exit status, or None for a
    command it does not know (the usage, 2). Skips (77) when the images or QEMU cannot be
    had; meson's timeout (SIGTERM) and ^C unwind, so the temporary directories (disk copies)
    are removed and QEMU, which dies with this process, goes too."""
    if len(argv) < 2:
        print(doc, file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    signal.signal(signal.SIGINT, lambda *_: sys.exit(128 + signal.SIGINT))
    try:
        status = run(make_env(), argv[1], argv[2:])
    except image.Unavailable as e:
        log("skip: %s" % e)
        return SKIP
    if status is None:
        print(doc, file=sys.stderr)
        return 2
    return status


def run(env, cmd, args):
    if cmd == "image" and not args:
        print(json.dumps(env.images(), indent=1))
        return 0
    if cmd == "evaluate" and not args:
        return evaluate(env)
    if cmd == "boot" and len(args) == 1 and args[0] in image.VARIANTS:
        print(json.dumps(run_boot(env, args[0], env.accel()), indent=1, sort_keys=True))
        return 0
    if cmd == "test" and args == ["systemd"]:
        accel = env.accel()
        for variant in ("udevd", "devman", "devman-plain"):
            run_boot(env, variant, accel)
        return evaluate(env)
    return None


if __name__ == "__main__":
    sys.exit(cli(sys.argv, __doc__, run))
