#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Minimal fake sysfs for the bench's scale workload, used only while tests/helpers/gen-sysfs.py (the
fixtures generator) is not on main. Same call: gen-sysfs-min.py --scale N OUTDIR, where OUTDIR
becomes a sysfs root (OUTDIR/devices, OUTDIR/class, OUTDIR/bus).

Layout (unified driver model): N devices with a devt in groups of 100 under platform parents,
  devices/platform/benchbusJ/                      uevent (no devt), subsystem -> bus/platform
  devices/platform/benchbusJ/benchI/               uevent (MAJOR, MINOR, DEVNAME), dev,
                                                   subsystem -> class/benchc (or class/block)
  class/benchc/benchI -> ../../devices/platform/benchbusJ/benchI
Every tenth device is a block device (class/block, DEVNAME benchdI), the rest char (benchcI).
"""
import argparse
import os

PER_PARENT = 100
CHAR_MAJOR = 240
BLOCK_MAJOR = 259
MINORS = 1 << 20


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--scale', type=int, required=True)
    ap.add_argument('outdir')
    a = ap.parse_args()
    root = a.outdir
    for d in ('devices/platform', 'class/benchc', 'class/block', 'bus/platform/devices'):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    for i in range(a.scale):
        j = i // PER_PARENT
        parent = os.path.join(root, 'devices/platform', f'benchbus{j}')
        if i % PER_PARENT == 0:
            os.mkdir(parent)
            write(os.path.join(parent, 'uevent'), f'DRIVER=benchdrv\nMODALIAS=platform:benchbus\n')
            os.symlink('../../../bus/platform', os.path.join(parent, 'subsystem'))
            os.symlink(f'../../../devices/platform/benchbus{j}',
                       os.path.join(root, 'bus/platform/devices', f'benchbus{j}'))
        block = i % 10 == 9
        major = (BLOCK_MAJOR if block else CHAR_MAJOR) + i // MINORS
        minor = i % MINORS
        cls = 'block' if block else 'benchc'
        name = f'benchd{i}' if block else f'benchc{i}'
        dev = os.path.join(parent, name)
        os.mkdir(dev)
        write(os.path.join(dev, 'uevent'), f'MAJOR={major}\nMINOR={minor}\nDEVNAME={name}\n'
              + ('DEVTYPE=disk\n' if block else ''))
        write(os.path.join(dev, 'dev'), f'{major}:{minor}\n')
        os.symlink(f'../../../../class/{cls}', os.path.join(dev, 'subsystem'))
        os.symlink(f'../../devices/platform/benchbus{j}/{name}', os.path.join(root, 'class', cls, name))


if __name__ == '__main__':
    main()
