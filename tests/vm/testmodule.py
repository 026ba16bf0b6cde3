"""The dmconv test module (kmod/dmconv.c) built with kbuild against Debian's linux-headers
package of exactly the VM kernel's version, cached beside that kernel and rebuilt when its
sources, the kernel version or this file change.

The headers come from the archive: `linux-headers-VERSION` (bootstrap.sh's deps install the
`linux-headers-amd64` meta package, which follows linux-image-amd64 as kernel.py does); when the
cached kernel is newer than the installed headers, they are installed with apt-get (root)."""

import hashlib
import os
import shutil
import subprocess
import tempfile

import kernel as kmod

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = [os.path.join(HERE, "kmod", f) for f in ("dmconv.c", "Kbuild")]
NAME = "dmconv"


def headers_dir(version):
    return os.path.join("/usr/src", "linux-headers-" + version)


def ensure_headers(version):
    """The kbuild tree for version, installed from the archive when missing."""
    d = headers_dir(version)
    if os.path.isfile(os.path.join(d, "Makefile")):
        return d
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise kmod.Unavailable("%s is not installed (apt-get install linux-headers-%s as root)"
                               % (d, version))
    p = subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends",
                        "linux-headers-" + version], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=900,
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    if p.returncode != 0 or not os.path.isfile(os.path.join(d, "Makefile")):
        raise kmod.Unavailable("cannot install linux-headers-%s: %s" % (version, p.stdout[-2000:]))
    return d


def source_key(version):
    h = hashlib.sha256(version.encode() + b"\0")
    for f in SOURCES + [os.path.abspath(__file__)]:
        with open(f, "rb") as fh:
            h.update(os.path.basename(f).encode() + b"\0" + hashlib.sha256(fh.read()).digest())
    return h.hexdigest()[:16]


def obtain(cache, kernel, log=lambda msg: None):
    """Path of dmconv.ko for kernel, built once per (kernel version, sources)."""
    key = source_key(kernel.version)
    out_dir = os.path.join(cache, "%s-%s-%s" % (NAME, kernel.version, key))
    ko = os.path.join(out_dir, NAME + ".ko")
    with kmod.locked(cache, "dmconv.lock"):
        if os.path.exists(os.path.join(out_dir, ".complete")):
            return ko
        hdr = ensure_headers(kernel.version)
        for old in os.listdir(cache):  # builds of other sources or kernels
            if old.startswith(NAME + "-") and old != os.path.basename(out_dir):
                shutil.rmtree(os.path.join(cache, old), ignore_errors=True)
        with tempfile.TemporaryDirectory(dir=cache, prefix="kbuild.") as tmp:
            for f in SOURCES:
                shutil.copy(f, tmp)
            log("building %s.ko against %s" % (NAME, hdr))
            p = subprocess.run(["make", "-C", hdr, "M=" + tmp, "modules"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=600)
            built = os.path.join(tmp, NAME + ".ko")
            if p.returncode != 0 or not os.path.isfile(built):
                raise RuntimeError("kbuild of %s failed:\n%s" % (NAME, p.stdout[-4000:]))
            if "warning:" in p.stdout:  # the module is held to -Werror like devman's own code
                raise RuntimeError("kbuild of %s warned:\n%s" % (NAME, p.stdout[-4000:]))
            magic = subprocess.run(["modinfo", "-F", "vermagic", built], stdout=subprocess.PIPE,
                                   text=True).stdout.split()
            if not magic or magic[0] != kernel.version:
                raise RuntimeError("%s.ko has vermagic %s, the VM kernel is %s"
                                   % (NAME, magic, kernel.version))
            shutil.rmtree(out_dir, ignore_errors=True)
            os.makedirs(out_dir)
            shutil.copy(built, ko)
        open(os.path.join(out_dir, ".complete"), "w").close()
        return ko
