"""Disk images for the guest, made on plain files (no loop devices): filesystems are made on
their own image files with mkfs and copied into the disk image at the partition's offset; the
partition table is written by sfdisk on the image file. Every identifier is fixed, so the
guest's by-label/by-uuid/by-partuuid links are known in advance (see checks.py)."""

import os
import subprocess

MIB = 1024 * 1024

# The facts the checks rely on.
DISK0_SERIAL = "devman-disk0"
DISK0_PTUUID = "5a3c1e0b-7d4f-4e2a-9b61-0c8d2f3e4a51"
EXT4_LABEL, EXT4_UUID = "VMEXT4", "3f1c2b4a-5d6e-4f70-8192-a3b4c5d6e7f8"
EXT4_PARTUUID = "0f1e2d3c-4b5a-4968-8776-655443322110"
VFAT_LABEL, VFAT_ID = "VMVFAT", "1234ABCD"
VFAT_PARTUUID = "1a2b3c4d-5e6f-4a8b-9cad-bedf01234567"
SATA_SERIAL, SATA_LABEL, SATA_UUID = "DEVMANSATA0", "VMSATA", "7e6d5c4b-3a29-4817-a6f5-e4d3c2b1a098"
SATA_DISKID = "0x0de7a11a"
USB_SERIAL, USB_LABEL, USB_ID = "DEVMANUSB0", "VMUSB", "CAFE0001"
HOTPLUG_SERIAL, HOTPLUG_LABEL, HOTPLUG_UUID = "devman-hotplug", "HPDISK", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


def _run(cmd, stdin=None):
    subprocess.run(cmd, input=stdin, text=True, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _blank(path, size):
    with open(path, "wb") as f:
        f.truncate(size)


def _mkext4(path, size, label, uuid):
    _blank(path, size)
    _run(["mkfs.ext4", "-q", "-F", "-L", label, "-U", uuid, "-E", "root_owner=0:0", path])


def _mkvfat(path, size, label, volid):
    _blank(path, size)
    _run(["mkfs.vfat", "-n", label, "-i", volid, path])


def _splice(disk, part, offset):
    with open(part, "rb") as src, open(disk, "r+b") as dst:
        dst.seek(offset)
        while True:
            chunk = src.read(MIB)
            if not chunk:
                break
            dst.write(chunk)
    os.unlink(part)


def make(workdir):
    """Creates the images in workdir, returns {name: path}."""
    paths = {n: os.path.join(workdir, n + ".img") for n in ("disk0", "sata", "usb", "hotplug")}

    # virtio disk: GPT with an ext4 and a vfat partition.
    _blank(paths["disk0"], 64 * MIB)
    _run(["sfdisk", "-q", "--no-reread", "--no-tell-kernel", paths["disk0"]], stdin=(
        "label: gpt\nlabel-id: %s\n"
        "start=2048, size=%d, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=%s, name=vmext4\n"
        "start=%d, size=%d, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7, uuid=%s, name=vmvfat\n"
        % (DISK0_PTUUID, 32 * 2048, EXT4_PARTUUID, 2048 + 32 * 2048, 24 * 2048, VFAT_PARTUUID)))
    p1, p2 = paths["disk0"] + ".p1", paths["disk0"] + ".p2"
    _mkext4(p1, 32 * MIB, EXT4_LABEL, EXT4_UUID)
    _splice(paths["disk0"], p1, MIB)
    _mkvfat(p2, 24 * MIB, VFAT_LABEL, VFAT_ID)
    _splice(paths["disk0"], p2, 33 * MIB)

    # SATA disk: MBR with one ext4 partition.
    _blank(paths["sata"], 32 * MIB)
    _run(["sfdisk", "-q", "--no-reread", "--no-tell-kernel", paths["sata"]],
         stdin="label: dos\nlabel-id: %s\nstart=2048, type=83\n" % SATA_DISKID)
    p1 = paths["sata"] + ".p1"
    _mkext4(p1, 31 * MIB, SATA_LABEL, SATA_UUID)
    _splice(paths["sata"], p1, MIB)

    # USB stick: a whole-disk vfat ("superfloppy"), no partition table.
    _mkvfat(paths["usb"], 16 * MIB, USB_LABEL, USB_ID)

    # The hot-plugged virtio disk: whole-disk ext4.
    _mkext4(paths["hotplug"], 16 * MIB, HOTPLUG_LABEL, HOTPLUG_UUID)
    return paths
