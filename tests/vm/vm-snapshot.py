#!/usr/bin/env python3
"""doc/class-conversion.md's QEMU recipe, for real: devmanadm snapshot inside a booted kernel.

An initramfs as the document builds it (static busybox, devmanadm, devmanadm-tools and its
libraries, devman's rules, a group file) boots Debian's kernel under QEMU (TCG) three times; each boot writes its
snapshot to the host through the guest's ttyS1:
  A, B: the same hardware  -> compare A B: exit 0, nothing userspace-visible changed;
  C:    plus QEMU's pci-testdev at 00:05.0 (PCI id 1b36:0005, no driver in this initramfs)
        -> compare A C: exit 1, pci/0000:00:05.0 appeared. Besides it, only wakeup sources may
        be reported: the kernel numbers them in registration order and the new slot's ACPI
        companion registers one, so names after it shift (reported as renamed, matched by parent).
The kernel: $DEVMAN_VM_KERNEL, else the newest vmlinuz the vm suite's cache holds
($DEVMAN_VM_CACHE, /var/cache/devman-vm, BUILD/vm-cache); exit 77 when there is none or no QEMU.
Usage: vm-snapshot.py BUILDDIR
"""
import glob, os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checklist  # noqa: E402

build = sys.argv[1]
src = os.environ.get("DEVMAN_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
adm = os.path.join(build, "daemon", "devmanadm")
qemu = shutil.which("qemu-system-x86_64")
busybox = next((p for p in ("/bin/busybox", "/usr/bin/busybox") if os.access(p, os.X_OK)), None)
kernel = os.environ.get("DEVMAN_VM_KERNEL")
if not kernel:
    caches = [os.environ.get("DEVMAN_VM_CACHE"), "/var/cache/devman-vm", os.path.join(build, "vm-cache")]
    found = sorted(k for c in caches if c for k in glob.glob(os.path.join(c, "linux-image-*", "boot", "vmlinuz-*")))
    kernel = found[-1] if found else None
if not qemu or not busybox or not kernel or not os.path.exists(kernel):
    print("no QEMU, busybox or kernel (the vm suite fetches one; or set DEVMAN_VM_KERNEL): skipped")
    sys.exit(77)
print("kernel:", kernel)

check = checklist.Checks()

INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs dev /dev
stty -F /dev/ttyS1 raw -echo
devmanadm snapshot --rules-dir /rules > /dev/ttyS1
sync; poweroff -f
"""

def initramfs(tmp):
    """The document's step 1, in Python."""
    root = os.path.join(tmp, "initrd")
    for d in ("bin", "etc", "rules", "proc", "sys", "dev"):
        os.makedirs(os.path.join(root, d))
    shutil.copy(busybox, os.path.join(root, "bin", "busybox"))
    shutil.copy(adm, os.path.join(root, "bin", "devmanadm"))
    shutil.copy(adm + "-tools", os.path.join(root, "bin", "devmanadm-tools"))  # snapshot runs there
    libs = re.findall(r"(/\S+) \(0x", subprocess.run(["ldd", adm + "-tools"], capture_output=True, text=True).stdout)
    for lib in libs:
        dst = os.path.join(root, lib.lstrip("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(lib, dst)  # follows symlinks
    for r in glob.glob(os.path.join(src, "rules", "*.rules")):
        shutil.copy(r, os.path.join(root, "rules"))
    for f in ("group", "passwd"):
        shutil.copy("/etc/" + f, os.path.join(root, "etc", f))
    with open(os.path.join(root, "init"), "w") as f:
        f.write(INIT)
    os.chmod(os.path.join(root, "init"), 0o755)
    out = os.path.join(tmp, "snap.cpio")
    names = subprocess.run(["find", "."], cwd=root, capture_output=True, text=True, check=True).stdout
    with open(out, "wb") as f:
        subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=names.encode(), stdout=f, check=True)
    return out

def boot(tmp, initrd, name, extra):
    """Steps 2 and 3: one boot, the snapshot lands in NAME.snap."""
    snap = os.path.join(tmp, name + ".snap")
    log = os.path.join(tmp, name + ".console")
    argv = [qemu, "-M", "pc", "-m", "512", "-nographic", "-no-reboot", "-kernel", kernel, "-initrd", initrd,
            "-append", "console=ttyS0 panic=-1 quiet", "-serial", "mon:stdio", "-serial", "file:" + snap,
            "-device", "qemu-xhci", "-device", "usb-kbd", "-device", "usb-tablet"] + extra
    with open(log, "w") as out:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        try:
            p.wait(timeout=int(os.environ.get("DEVMAN_VM_TIMEOUT", "420")))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            print("  boot %s timed out; console:\n%s" % (name, open(log).read()[-2000:]))
            return None
    with open(snap, "rb") as f:
        text = f.read().decode(errors="replace")
    if not check(text.startswith("devman-snapshot 1") and text.rstrip().endswith("end"),
                 "boot %s: a complete snapshot came out of the guest (%d bytes)" % (name, len(text))):
        print("  console:\n" + open(log, errors="replace").read()[-1500:])
        print("  snapshot starts with: %r, ends with: %r" % (text[:120], text[-60:]))
        print(open(log).read()[-2000:])
        return None
    return snap

def compare(a, b):
    p = subprocess.run([adm, "compare", a, b], capture_output=True, text=True)
    items = re.findall(r"^(vanished|appeared|renamed|duplicate|layout|node|type|devt|mode|owner|links|tags|props|"
                       r"kernel-props|devtype|driver|parent) (\S+): (.*)$", p.stdout, re.M)
    return p.returncode, items, p

with tempfile.TemporaryDirectory(prefix="devman-vmsnap.") as tmp:
    initrd = initramfs(tmp)
    a = boot(tmp, initrd, "A", [])
    b = boot(tmp, initrd, "B", [])
    c = boot(tmp, initrd, "C", ["-device", "pci-testdev,addr=0x5"])
    if a and b:
        with open(a) as f:
            n = sum(1 for line in f if line.startswith("device "))
        check(n > 50, "boot A: %d devices in the snapshot" % n)
        rc, items, p = compare(a, b)
        for i in items:
            print("  %s %s: %s" % i)
        check(rc == 0 and not items, "two boots of the same kernel and hardware: nothing userspace-visible changed")
    if a and c:
        rc, items, p = compare(a, c)
        for i in items:
            print("  %s %s: %s" % i)
        check(rc == 1, "with pci-testdev: exit 1")
        check(any(f == "appeared" and k == "pci/0000:00:05.0" for f, k, _ in items),
              "pci/0000:00:05.0 appeared")
        with open(c) as f:
            stanza = f.read().split("device pci/0000:00:05.0\n", 1)[-1].split("\nend\n", 1)[0]
        check("\nkprop PCI_ID=1B36:0005" in stanza and "\ndriver -\n" in stanza,
              "it is QEMU's pci-testdev (PCI_ID 1B36:0005), no driver")
        others = [i for i in items if i[1] != "pci/0000:00:05.0"]
        check(all(k.startswith("wakeup/") and f in ("renamed", "appeared") for f, k, _ in others)
              and sum(1 for f, _, _ in others if f == "appeared") <= 1,
              "nothing else but wakeup sources renumbered behind the new one (%d)" % len(others))

sys.exit(check.results())
