#!/usr/bin/env python3
"""devmand links libkmod (`kmod load`) and libnl-route-3 (net_setup_link, interface renames), so
an initramfs built from ldd's list — initramfs-tools' copy_exec, dracut, tests/vm/initramfs.py —
carries them; and it declares no library it would open with dlopen() instead (an initramfs
builder could not see one: issue 25.1, module loading silently disabled)."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import initramfs  # noqa: E402

devmand = sys.argv[1]
libs = [os.path.basename(p) for p in initramfs.ldd_libraries(devmand)]
for want in ("libkmod.so.2", "libnl-route-3.so.200", "libnl-3.so.200"):
    if want not in libs:
        sys.exit("%s: ldd does not list %s (found %s)" % (devmand, want, libs))
notes = subprocess.run(["readelf", "-n", devmand], stdout=subprocess.PIPE, text=True, check=True).stdout
if ".note.dlopen" in notes:
    sys.exit("%s: has .note.dlopen notes: a library opened on first use, which ldd cannot list" % devmand)


class Cpio:
    """Records what add_elf() adds, as initramfs.Cpio would."""

    def __init__(self):
        self.paths = set()

    def has(self, path):
        return path in self.paths

    def file(self, src, dst, mode=None):
        self.paths.add(dst)


cpio = Cpio()
initramfs.add_elf(cpio, devmand, "/sbin/devmand")
added = {os.path.basename(p) for p in cpio.paths}
for want in ("libkmod.so.2", "libnl-route-3.so.200", "libcrypto.so.3"):
    if want not in added:
        sys.exit("initramfs.add_elf(devmand) leaves out %s (added %s)" % (want, sorted(added)))
print("ok:", " ".join(sorted(libs)))
