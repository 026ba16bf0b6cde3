#!/usr/bin/env python3
"""Issue 29, part 3: a newer Debian kernel for the same VM hardware, linux-image-amd64 from
bookworm-backports, fetched through a private apt root (its own sources list, lists and
archives in the cache directory: the host's apt sources and state are never changed) and
unpacked like kernel.obtain() does. Cached in $DEVMAN_KERNEL_CACHE (legacykernel.cache_dir()),
refreshed when the archive has a newer package.

    python3 tests/vm/backports.py        prints the unpacked tree (downloads it when missing)
"""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kernel  # noqa: E402

MIRROR = os.environ.get("DEVMAN_BACKPORTS_MIRROR", "http://deb.debian.org/debian")
SUITE = "bookworm-backports"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


def _run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def apt_root(cache):
    """-> the apt-get/apt-cache options of a private apt configuration for SUITE."""
    root = os.path.join(cache, "apt-" + SUITE)
    for d in ("lists/partial", "archives/partial", "etc/preferences.d", "etc/sources.list.d"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    sources = os.path.join(root, "etc", "sources.list")
    with open(sources, "w") as f:
        f.write("deb [signed-by=%s] %s %s main\n" % (KEYRING, MIRROR, SUITE))
    open(os.path.join(root, "status"), "a").close()  # nothing is installed in this root
    return ["-o", "Dir::Etc::SourceList=" + sources,
            "-o", "Dir::Etc::SourceParts=" + os.path.join(root, "etc", "sources.list.d"),
            "-o", "Dir::Etc::PreferencesParts=" + os.path.join(root, "etc", "preferences.d"),
            "-o", "Dir::State::Lists=" + os.path.join(root, "lists"),
            "-o", "Dir::State::status=" + os.path.join(root, "status"),
            "-o", "Dir::Cache=" + os.path.join(root, "cache"),
            "-o", "Dir::Cache::Archives=" + os.path.join(root, "archives"),
            "-o", "APT::Get::List-Cleanup=false"]


def real_package(opts):
    """The versioned image package the suite's linux-image-amd64 depends on."""
    p = _run(["apt-cache"] + opts + ["depends", "linux-image-amd64"])
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith("Depends:") and "linux-image-" in line:
            return line.split(":", 1)[1].strip()
    raise kernel.Unavailable("%s knows no linux-image-amd64: %s" % (SUITE, p.stdout[-500:]))


def obtain(cache):
    """The unpacked backports Kernel (its version differs from Debian 12's own)."""
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        raise kernel.Unavailable("apt-get/dpkg-deb missing")
    if not os.path.isfile(KEYRING):
        raise kernel.Unavailable("no %s" % KEYRING)
    with kernel.locked(cache, "backports.lock"):
        opts = apt_root(cache)
        p = _run(["apt-get"] + opts + ["update", "-q"], timeout=600)
        if p.returncode != 0:
            raise kernel.Unavailable("apt-get update of %s failed: %s" % (SUITE, p.stdout[-1000:]))
        pkg = real_package(opts)
        root = os.path.join(cache, "bpo-" + pkg)
        if os.path.exists(os.path.join(root, ".complete")):
            return kernel.Kernel(root)
        for old in os.listdir(cache):  # an older backports kernel is not needed any more
            if old.startswith("bpo-") and old != os.path.basename(root):
                shutil.rmtree(os.path.join(cache, old), ignore_errors=True)
        with tempfile.TemporaryDirectory(dir=cache, prefix="bpo-dl.") as tmp:
            p = _run(["apt-get"] + opts + ["download", "-q", pkg], cwd=tmp, timeout=1200)
            debs = [f for f in os.listdir(tmp) if f.endswith(".deb")]
            if p.returncode != 0 or len(debs) != 1:
                raise kernel.Unavailable("apt-get download %s failed: %s" % (pkg, p.stdout[-1000:]))
            unpack = os.path.join(tmp, "root")
            p = _run(["dpkg-deb", "-x", os.path.join(tmp, debs[0]), unpack])
            if p.returncode != 0:
                raise kernel.Unavailable("dpkg-deb -x failed: %s" % p.stdout)
            for v in os.listdir(os.path.join(unpack, "lib", "modules")):
                p = _run([shutil.which("depmod") or "/sbin/depmod", "-b", unpack, v])
                if p.returncode != 0:
                    raise kernel.Unavailable("depmod failed: %s" % p.stdout)
            shutil.rmtree(root, ignore_errors=True)
            os.rename(unpack, root)
        open(os.path.join(root, ".complete"), "w").close()
        return kernel.Kernel(root)


if __name__ == "__main__":
    import legacykernel
    build_root = os.environ.get("DEVMAN_BUILD_ROOT",
                                os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build"))
    try:
        k = obtain(legacykernel.cache_dir(build_root))
    except kernel.Unavailable as e:
        print("unavailable: %s" % e, file=sys.stderr)
        sys.exit(77)
    print(k.root, k.version)
