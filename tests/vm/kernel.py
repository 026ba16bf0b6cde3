"""Debian's kernel for the vm suite: downloaded with apt-get, unpacked with dpkg-deb into a
cache directory (never installed on the host), and the accelerator QEMU can boot it with."""

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager

META_PACKAGE = "linux-image-amd64"


class Unavailable(Exception):
    """The kernel (or QEMU) cannot be obtained: the suite skips."""


def cache_dir(build_root, env_var="DEVMAN_VM_CACHE", name="devman-vm", local="vm-cache"):
    """$DEVMAN_VM_CACHE, else /var/cache/devman-vm when it can be made, else in the build dir
    (the distro suite passes its own variable and names)."""
    env = os.environ.get(env_var)
    candidates = [env] if env else [os.path.join("/var/cache", name), os.path.join(build_root, local)]
    for d in candidates:
        try:
            os.makedirs(d, exist_ok=True)
            if os.access(d, os.W_OK):
                return d
        except OSError:
            pass
    raise Unavailable("no writable cache directory among %s" % candidates)


@contextmanager
def locked(cache, name="lock"):
    """Serialises cache updates between concurrently running tests."""
    with open(os.path.join(cache, name), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def _real_package():
    """linux-image-amd64 depends on exactly one versioned image package."""
    for attempt in range(2):
        p = _run(["apt-cache", "depends", META_PACKAGE])
        for line in p.stdout.splitlines():
            line = line.strip()
            if line.startswith("Depends:") and "linux-image-" in line:
                return line.split(":", 1)[1].strip()
        if attempt == 0 and os.geteuid() == 0:
            _run(["apt-get", "update", "-q"])
    raise Unavailable("apt-cache knows no %s" % META_PACKAGE)


class Kernel:
    def __init__(self, root):
        self.root = root
        boot = os.path.join(root, "boot")
        images = sorted(f for f in os.listdir(boot) if f.startswith("vmlinuz-"))
        if len(images) != 1:
            raise Unavailable("expected one vmlinuz in %s, found %s" % (boot, images))
        self.version = images[0][len("vmlinuz-"):]
        self.image = os.path.join(boot, images[0])
        self.moddir = os.path.join(root, "lib", "modules", self.version)
        if not os.path.isfile(os.path.join(self.moddir, "modules.dep")):
            raise Unavailable("no modules.dep in %s" % self.moddir)


def obtain(cache):
    """Returns the unpacked Kernel, downloading and unpacking it once."""
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        raise Unavailable("apt-get/dpkg-deb missing")
    with locked(cache):
        pkg = _real_package()
        root = os.path.join(cache, pkg)
        if os.path.exists(os.path.join(root, ".complete")):
            return Kernel(root)
        shutil.rmtree(root, ignore_errors=True)
        for old in os.listdir(cache):  # an older kernel's tree is not needed any more
            if old.startswith("linux-image-") and old != pkg:
                shutil.rmtree(os.path.join(cache, old), ignore_errors=True)
        with tempfile.TemporaryDirectory(dir=cache, prefix="dl.") as tmp:
            p = _run(["apt-get", "download", "-q", pkg], cwd=tmp)
            debs = [f for f in os.listdir(tmp) if f.endswith(".deb")]
            if p.returncode != 0 or len(debs) != 1:
                raise Unavailable("apt-get download %s failed: %s" % (pkg, p.stderr.strip()))
            unpack = os.path.join(tmp, "root")
            p = _run(["dpkg-deb", "-x", os.path.join(tmp, debs[0]), unpack])
            if p.returncode != 0:
                raise Unavailable("dpkg-deb -x failed: %s" % p.stderr.strip())
            # The package leaves modules.dep and the indexes to its postinst's depmod.
            versions = os.listdir(os.path.join(unpack, "lib", "modules"))
            for v in versions:
                p = _run([shutil.which("depmod") or "/sbin/depmod", "-b", unpack, v])
                if p.returncode != 0:
                    raise Unavailable("depmod failed: %s" % p.stderr.strip())
            shutil.rmtree(root, ignore_errors=True)
            os.rename(unpack, root)
        open(os.path.join(root, ".complete"), "w").close()
        return Kernel(root)


def qemu_binary():
    q = shutil.which("qemu-system-x86_64")
    if q is None:
        raise Unavailable("qemu-system-x86_64 is not installed")
    return q


def probe_key(kernel, qemu):
    h = hashlib.sha256()
    ver = _run([qemu, "--version"]).stdout
    for part in (kernel.version, ver, os.uname().release, str(os.path.exists("/dev/kvm"))):
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:16]


def accelerator(cache, kernel, qemu, probe):
    """'kvm' when a probe boot under KVM reaches /init, else 'tcg'. Cached per kernel, QEMU
    and host kernel. probe(accel) -> bool boots the probe image and says whether it worked."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg"
    path = os.path.join(cache, "accel-" + probe_key(kernel, qemu))
    with locked(cache, "probe.lock"):
        try:
            with open(path) as f:
                accel = f.read().strip()
            if accel in ("kvm", "tcg"):
                return accel
        except OSError:
            pass
        accel = "kvm" if probe("kvm") else "tcg"
        with open(path, "w") as f:
            f.write(accel + "\n")
        return accel
