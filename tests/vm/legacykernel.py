#!/usr/bin/env python3
"""Issue 29, part 2: Debian's 6.1 kernel built from linux-source-6.1 with the legacy sysfs block
layout available: CONFIG_SYSFS_DEPRECATED=y without _V2, so the boot parameter chooses the
layout. Booted with `sysfs.deprecated=1`, /sys/block/<disk> is a real directory holding its
partitions and a `device` link, and /sys/class/block does not exist; booted without it, the same
kernel has the unified layout. The two boots of one kernel differ in the layout and in nothing
else, so that comparing what devman makes of them tests devman's handling of the old layout.

The configuration is Debian's own (the config-* of linux-image-amd64, the kernel the vm suite
boots) with two changes, so that "devman on the legacy layout gives the same /dev and database
as on Debian's kernel" compares layouts and not configurations:
- the layout switch (SYSFS_DEPRECATED) and what a build outside Debian's packaging cannot
  have or does not need (Debian's signing key: the build signs the modules with a key of its
  own; BTF and debug information, which no device sees);
- `make localmodconfig` with the modules the vm initramfs carries (initramfs.MODULES and
  their dependencies): every built-in driver of Debian's kernel stays built in, every module
  the guest can load stays a module, and the thousands of modules no guest loads are not built.

The result is an unpacked tree like kernel.obtain()'s (boot/vmlinuz-*, lib/modules/*) cached in
$DEVMAN_KERNEL_CACHE (default /var/cache/devman-kernels, else the build dir), keyed by the source
package version, Debian's configuration, the module list and CHANGES. One command (re)builds it
(about 25 minutes on two shared cores):

    python3 tests/vm/legacykernel.py build [--force]

It installs what it needs with apt-get when missing (root): linux-source-6.1 flex bison bc
libelf-dev libssl-dev openssl. The build runs `nice -n 10 make -j2` (the machine is shared).
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import initramfs  # noqa: E402
import kernel  # noqa: E402

SOURCE_PACKAGE = "linux-source-6.1"
BUILD_DEPS = [SOURCE_PACKAGE, "flex", "bison", "bc", "libelf-dev", "libssl-dev", "xz-utils",
              "kmod", "cpio", "rsync", "gcc", "make", "openssl"]
LOCALVERSION = "-sysfsdep"

# scripts/config arguments applied to Debian's configuration before olddefconfig
CHANGES = [
    # the layout switch: the boot parameter sysfs.deprecated=1 selects the legacy layout
    "--enable", "SYSFS_DEPRECATED", "--disable", "SYSFS_DEPRECATED_V2",
    "--set-str", "LOCALVERSION", LOCALVERSION, "--disable", "LOCALVERSION_AUTO",
    # Debian's signing keys are not in the source package: the modules are signed with a key
    # the build makes (the lockdown LSM selects MODULE_SIG, as in Debian's kernel)
    "--enable", "MODULE_SIG_ALL", "--set-str", "MODULE_SIG_KEY", "certs/signing_key.pem",
    "--set-str", "SYSTEM_TRUSTED_KEYS", "", "--set-str", "SYSTEM_REVOCATION_KEYS", "",
    # debug information and BTF: most of the build's time, and no device sees them
    "--disable", "DEBUG_INFO", "--enable", "DEBUG_INFO_NONE",
    "--disable", "DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT", "--disable", "DEBUG_INFO_BTF",
]
# what the configuration must hold after localmodconfig (name -> "y" or None for unset)
REQUIRED = {"SYSFS_DEPRECATED": "y", "SYSFS_DEPRECATED_V2": None, "MODULE_SIG_ALL": "y",
            "DEBUG_INFO_BTF": None, "HOTPLUG_PCI_ACPI": "y"}

def log(msg):
    print("legacykernel: " + msg, file=sys.stderr, flush=True)


def _run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def cache_dir(build_root):
    return kernel.cache_dir(build_root, "DEVMAN_KERNEL_CACHE", "devman-kernels", "kernel-cache")


def ensure_deps():
    """Installs the build dependencies with apt-get when one is missing (root only)."""
    missing = [p for p in BUILD_DEPS
               if _run(["dpkg-query", "-W", "-f=${Status}", p]).stdout.split()[-1:] != ["installed"]]
    if not missing:
        return
    if os.geteuid() != 0:
        raise kernel.Unavailable("missing packages %s (install them as root)" % missing)
    log("installing %s with apt-get" % " ".join(missing))
    p = _run(["apt-get", "-o", "DPkg::Lock::Timeout=900", "install", "-y", "-q",
              "--no-install-recommends"] + missing,
             env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    if p.returncode != 0:
        raise kernel.Unavailable("cannot install %s: %s" % (missing, p.stdout[-2000:]))


def source_version():
    return _run(["dpkg-query", "-W", "-f=${Version}", SOURCE_PACKAGE]).stdout.strip()


def source_tarball():
    path = "/usr/src/%s.tar.xz" % SOURCE_PACKAGE
    if not os.path.isfile(path):
        raise kernel.Unavailable("%s is missing (apt-get install %s)" % (path, SOURCE_PACKAGE))
    return path


class Base:
    """What the build starts from: the configuration of Debian's kernel (kernel.Kernel) the vm
    suite boots, and the modules its initramfs carries (names as in modules.dep)."""

    def __init__(self, debian):
        with open(os.path.join(debian.root, "boot", "config-" + debian.version)) as f:
            self.config = f.read()
        self.modules = sorted(map(initramfs.module_name,
                                  initramfs.module_closure(debian.moddir, initramfs.MODULES)))


def build_key(base):
    h = hashlib.sha256()
    h.update(source_version().encode() + b"\0")
    h.update(base.config.encode() + b"\0")
    h.update(repr((base.modules, CHANGES, REQUIRED, LOCALVERSION)).encode())
    return h.hexdigest()[:16]


def _make(src, *targets, logf, extra_env=None):
    env = dict(os.environ, **(extra_env or {}))
    cmd = ["nice", "-n", "10", "make", "-C", src, "-j2"] + list(targets)
    log(" ".join(cmd))
    p = subprocess.run(cmd, stdout=logf, stderr=subprocess.STDOUT, env=env, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d), see %s" % (" ".join(cmd), p.returncode, logf.name))


def read_config(path):
    """name -> value of every set option of a .config (without CONFIG_)."""
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("CONFIG_"):
                name, _, value = line.rstrip("\n").partition("=")
                out[name[len("CONFIG_"):]] = value
    return out


def configure(src, base, work, logf):
    config = os.path.join(src, ".config")
    with open(config, "w") as f:
        f.write(base.config)
    p = _run([os.path.join(src, "scripts", "config"), "--file", config] + CHANGES)
    if p.returncode != 0:
        raise RuntimeError("scripts/config: %s" % p.stdout)
    _make(src, "olddefconfig", logf=logf)
    # localmodconfig reads lsmod's format: a header line, then a module name per line
    lsmod = os.path.join(work, "lsmod")
    with open(lsmod, "w") as f:
        f.write("Module Size Used by\n" + "".join("%s 0 0\n" % m for m in base.modules))
    _make(src, "localmodconfig", logf=logf, extra_env={"LSMOD": lsmod})
    have = read_config(config)
    wrong = {n: have.get(n) for n, want in REQUIRED.items() if have.get(n) != want}
    if wrong:
        raise RuntimeError("the configuration did not keep %s" % wrong)


def check_modules(base, moddir):
    """Every module of Debian's kernel the guest can load is here too, as a module."""
    deps = initramfs.parse_modules_dep(moddir)
    missing = [m for m in base.modules if m not in deps]
    if missing:
        raise RuntimeError("localmodconfig left out modules the guest loads: %s" % missing)


def build(cache, base, force=False):
    """Returns the cached Kernel, building it when missing (or force)."""
    key = build_key(base)
    root = os.path.join(cache, "sysfsdep-" + key)
    with kernel.locked(cache, "build.lock"):
        if os.path.exists(os.path.join(root, ".complete")) and not force:
            return kernel.Kernel(root)
        ensure_deps()
        work = os.path.join(cache, "work-" + key)
        shutil.rmtree(work, ignore_errors=True)
        for old in os.listdir(cache):  # an unpacked tree of the same source is reused
            src = os.path.join(cache, old, SOURCE_PACKAGE)
            if old.startswith("work-") and os.path.isfile(os.path.join(src, ".source-version")):
                with open(os.path.join(src, ".source-version")) as f:
                    if f.read().strip() == source_version():
                        os.rename(os.path.join(cache, old), work)
                        break
        os.makedirs(work, exist_ok=True)
        logpath = os.path.join(cache, "build-%s.log" % key)
        log("building the legacy-layout kernel (key %s, log %s)" % (key, logpath))
        with open(logpath, "w") as logf:
            src = os.path.join(work, SOURCE_PACKAGE)
            if not os.path.isfile(os.path.join(src, ".source-version")):
                log("unpacking %s" % source_tarball())
                shutil.rmtree(src, ignore_errors=True)
                with tarfile.open(source_tarball()) as t:
                    t.extractall(work)
                with open(os.path.join(src, ".source-version"), "w") as f:
                    f.write(source_version() + "\n")
            configure(src, base, work, logf)
            _make(src, "bzImage", "modules", logf=logf)
            stage = os.path.join(work, "root")
            _make(src, "modules_install", logf=logf,
                  extra_env={"INSTALL_MOD_PATH": stage, "INSTALL_MOD_STRIP": "1"})
            release = _run(["make", "-s", "-C", src, "kernelrelease"]).stdout.strip()
            check_modules(base, os.path.join(stage, "lib", "modules", release))
            os.makedirs(os.path.join(stage, "boot"))
            shutil.copy(os.path.join(src, "arch", "x86", "boot", "bzImage"),
                        os.path.join(stage, "boot", "vmlinuz-" + release))
            shutil.copy(os.path.join(src, ".config"), os.path.join(stage, "boot", "config-" + release))
            for link in ("build", "source"):  # point into the work tree, which goes away
                p = os.path.join(stage, "lib", "modules", release, link)
                if os.path.lexists(p):
                    os.unlink(p)
        shutil.rmtree(root, ignore_errors=True)
        os.rename(stage, root)
        shutil.rmtree(work, ignore_errors=True)
        for old in os.listdir(cache):  # an older key's tree and log are not needed any more
            path = os.path.join(cache, old)
            if old.startswith(("sysfsdep-", "work-")) and key not in old:
                shutil.rmtree(path, ignore_errors=True)
            elif old.startswith("build-") and old.endswith(".log") and key not in old:
                os.remove(path)
        open(os.path.join(root, ".complete"), "w").close()
        log("done: %s" % root)
        return kernel.Kernel(root)


def obtain(build_root, force=False):
    """The legacy-layout kernel built from Debian's kernel (kernel.obtain(), downloaded when
    missing) the vm suite boots."""
    base = Base(kernel.obtain(kernel.cache_dir(build_root)))
    return build(cache_dir(build_root), base, force)


def main(argv):
    if len(argv) < 2 or argv[1] not in ("build", "key", "path"):
        print("usage: %s build [--force] | key | path" % argv[0], file=sys.stderr)
        return 2
    build_root = os.environ.get("DEVMAN_BUILD_ROOT",
                                os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build"))
    try:
        if argv[1] == "key":
            print(build_key(Base(kernel.obtain(kernel.cache_dir(build_root)))))
            return 0
        k = obtain(build_root, force="--force" in argv[2:])
    except kernel.Unavailable as e:
        log("unavailable: %s" % e)
        return 77
    print(k.root if argv[1] == "path" else k.version)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
