#!/usr/bin/env python3
"""The libraries devmand opens on first use are declared in it (core/dlopen-note.h), and the
initramfs builder finds them: without them a guest would lack libnl-route-3 and libkmod, which
no ldd output names."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import initramfs  # noqa: E402

devmand = sys.argv[1]
names = initramfs.dlopen_sonames(devmand)
for want in ("libnl-route-3.so.200", "libkmod.so.2"):
    if want not in names:
        sys.exit("%s: %s not declared (found %s)" % (devmand, want, names))
    if not initramfs.library_path(want):
        sys.exit("%s: not found by ldconfig" % want)
# a binary without notes declares nothing
if initramfs.dlopen_sonames(sys.executable):
    sys.exit("%s: unexpected dlopen notes" % sys.executable)
print("ok:", " ".join(names))
