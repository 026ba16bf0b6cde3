#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""devman's builtins against systemd-udevd 252's on a real kernel: boots Debian's kernel under
QEMU with the vm suite's harness (tests/vm: hardware, initramfs, QEMU control), with
systemd-udevd managing the guest, hot-plugs the USB stick, creates a uinput device, and then
runs `udevadm test-builtin` and `devmanadm test-builtin` with the same command on every block,
input, net, USB, PCI and serio device of the guest: both must succeed or fail alike and set
the same properties. In the guest it also runs test-builtins-uinput (input_id's size from a
real event node, keyboard's EVDEV_ABS override through EVIOCSABS, a KEYBOARD_KEY_ remap of
QEMU's USB keyboard through EVIOCSKEYCODE).

Exits 77 when the vm harness (tests/vm/vmtest.py) is not in this tree, or QEMU or the kernel
package cannot be had; fails when devmanadm or the uinput test are not built."""

import os
import shutil
import signal
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VM = HERE

COMMANDS = ["path_id", "usb_id", "input_id", "hwdb", "hwdb --subsystem=usb",
            "hwdb --subsystem=input --lookup-prefix=evdev:", "hwdb --subsystem=pci"]
DEVICES = ("/sys/class/block/* /sys/class/input/* /sys/class/net/* /sys/bus/usb/devices/* "
           "/sys/bus/pci/devices/* /sys/class/tty/ttyS0 /sys/bus/serio/devices/*")


def guest_script(init_text):
    """The harness's init up to the end of coldplug, then the builtin comparison."""
    # after the coldplug dump: what follows (snapshot, hot-plug steps) sits in if-blocks
    mark = 'coldplug_step "$devfs" "$start"\n'
    cut = init_text.index(mark) + len(mark)
    cmds = " ".join("'%s'" % c for c in COMMANDS)
    return init_text[:cut] + r'''
host usb-add
blocks_settled 1 2
settle || warn "settle failed"
before=$(ls -d /sys/class/input/event* | wc -l)
uinput-device --name devman-vm-uinput >/tmp/uinput.out 2>&1 &
uinput_pid=$!
wait_count $((before + 1)) '/sys/class/input/event*' || :
settle || warn "settle failed"
{
for d in %s; do
  [ -e "$d" ] || continue
  for c in %s; do
    echo "@@B ref|$c|$d"; udevadm test-builtin "$c" "$d" 2>/dev/null; echo "@@RC $?"
    echo "@@B dm|$c|$d"; devmanadm test-builtin "$c" "$d" 2>/dev/null; echo "@@RC $?"
  done
done
echo "@@UINPUTTEST"
DEVMAN_TEST_HID_KEYBOARD=1 /usr/bin/test-builtins-uinput 2>&1
echo "@@RC $?"
} >&4
kill -TERM "$uinput_pid"
echo "@@DONE" >&4
echo "DONE" >&3
log "done"
sync
reboot -f
''' % (DEVICES, cmds)


def parse(text):
    """{(tool, command, device): (rc, {KEY: VALUE})}, and the uinput test's (rc, output)."""
    res, cur, lines = {}, None, []
    uinput = None
    for line in text.splitlines():
        if line.startswith("@@B "):
            cur, lines = tuple(line[4:].split("|", 2)), []
        elif line.startswith("@@UINPUTTEST"):
            cur, lines = "uinput", []
        elif line.startswith("@@RC ") and cur is not None:
            rc = int(line[5:])
            if cur == "uinput":
                uinput = (rc, "\n".join(lines))
            else:
                res[cur] = (rc, dict(l.split("=", 1) for l in lines if "=" in l))
            cur = None
        elif cur is not None:
            lines.append(line)
    return res, uinput


def main():
    if not os.path.exists(os.path.join(VM, "vmtest.py")):
        print("skipped: the vm harness (tests/vm) is not in this tree")
        return 77
    sys.path.insert(0, VM)
    import images
    import initramfs
    import kernel as kmod
    import qemu
    import vmtest
    # meson's timeout sends SIGTERM: unwind, so QEMU is killed and temp dirs are removed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    try:
        env = vmtest.Env()
    except kmod.Unavailable as e:
        print("skipped: %s" % e)
        return 77
    uinput_test = os.path.join(env.build, "tests", "test-builtins-uinput")
    for p in (env.devmanadm, env.devmand, uinput_test):
        if not os.access(p, os.X_OK):
            print("FAIL: %s is not built" % p, file=sys.stderr)
            return 1
    accel = env.accel()
    with tempfile.TemporaryDirectory(prefix="devman-vm-builtins.") as tmp:
        init = os.path.join(tmp, "init.sh")
        with open(os.path.join(VM, "init.sh")) as f:
            script = guest_script(f.read())
        with open(init, "w") as f:
            f.write(script)
        initrd = os.path.join(tmp, "initrd.cpio")
        cpio = initramfs.Cpio()
        applets = initramfs.add_base(cpio, init)
        with tempfile.TemporaryDirectory(prefix="devman-vm-modules.") as mods:
            initramfs.add_modules(cpio, env.kernel, mods)
        initramfs.add_udev(cpio)
        initramfs.add_libinput(cpio)
        initramfs.add_elf(cpio, env.uinput, "usr/bin/uinput-device")
        initramfs.add_elf(cpio, uinput_test, "usr/bin/test-builtins-uinput")
        initramfs.add_devman(cpio, env.devmand, env.devmanadm, env.rules)
        initramfs.add_busybox_applets(cpio, applets)
        cpio.write(initrd)
        imgs = images.make(tmp)
        append = "console=ttyS0 loglevel=5 panic=-1 rdinit=/init vmtest.manager=udevd vmtest.dev=devtmpfs"
        out, console, secs = qemu.run(env.qemu, env.kernel.image, initrd, append, accel, tmp, imgs, 1500,
                                      vmtest.log)
        text = open(out, errors="surrogateescape").read() if os.path.exists(out) else ""
        keep = os.path.join(env.results, "builtins")
        os.makedirs(keep, exist_ok=True)
        for src, name in ((out, "report.txt"), (console, "console.log")):
            if os.path.exists(src):
                shutil.copy(src, os.path.join(keep, name))

    res, uinput = parse(text)
    passed = failed = with_props = 0
    for (tool, cmd, dev) in sorted(k for k in res if k[0] == "ref"):
        ref, dm = res[("ref", cmd, dev)], res.get(("dm", cmd, dev))
        if dm is None:
            continue
        with_props += bool(ref[1])
        if (ref[0] == 0) == (dm[0] == 0) and ref[1] == dm[1]:
            passed += 1
        else:
            failed += 1
            print("FAIL: %s on %s\n  reference rc=%d %s\n  devman    rc=%d %s" % (
                cmd, dev, ref[0], sorted(ref[1].items()), dm[0], sorted(dm[1].items())), file=sys.stderr)
    if with_props < 50:
        print("FAIL: only %d device/command pairs with properties: the guest did not get far" % with_props,
              file=sys.stderr)
        failed += 1
    if uinput is None or uinput[0] != 0:
        print("FAIL: test-builtins-uinput in the guest: %r" % (uinput,), file=sys.stderr)
        failed += 1
    else:
        passed += 1
    print("boot took %s s; %d pairs with properties" % (secs, with_props))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
