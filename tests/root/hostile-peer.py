#!/usr/bin/env python3
"""Helper for hostile-live.sh: plays a hostile local peer. Usage:
  hostile-peer.py uevent [--as-nobody] ACTION DEVPATH KEY=VALUE...
      sends one fake uevent to NETLINK_KOBJECT_UEVENT group 1 from this (non-kernel) process;
      prints "sent" or "refused: <error>"
  hostile-peer.py ctrl SOCKET KIND [--as-nobody]
      sends a control datagram (KIND: short, magic, type, level, env, exit-as-peer) and waits
      for the server to close the connection; prints "closed", "refused: <error>" or "open"
"""
import os, select, socket, struct, sys

NETLINK_KOBJECT_UEVENT = 15
CTRL_MAGIC = 0xdead1dea

def drop_to_nobody():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)

def wire(typ, intval=None, s=None, magic=CTRL_MAGIC):
    value = struct.pack("=i", intval) if intval is not None else (s or "").encode()
    return b"devman-test".ljust(16, b"\0") + struct.pack("=Ii", magic, typ) + value.ljust(256, b"\0")[:256]

def main():
    args = sys.argv[1:]
    nobody = "--as-nobody" in args
    args = [a for a in args if a != "--as-nobody"]
    if nobody:
        drop_to_nobody()
    if args[0] == "uevent":
        action, devpath = args[1], args[2]
        msg = "\0".join(["%s@%s" % (action, devpath), "ACTION=" + action, "DEVPATH=" + devpath] + args[3:]) + "\0"
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_KOBJECT_UEVENT)
        s.bind((0, 0))
        try:
            s.sendto(msg.encode(), (0, 1))
            print("sent")
        except OSError as e:
            print("refused: %s" % e.strerror)
        return
    if args[0] == "ctrl":
        path, kind = args[1], args[2]
        msgs = {
            "short": [b"\1\2\3"],
            "magic": [wire(7, magic=0x12345678)],
            "type": [wire(1234)],
            "level": [wire(1, intval=99)],
            "env": [wire(5, s="X" * 256)],
            "oversized": [wire(7) + b"\0" * 4000],
            "exit-as-peer": [wire(8), wire(0)],
        }[kind]
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect(path)
            for m in msgs:
                s.send(m)
        except OSError as e:
            print("refused: %s" % e.strerror)
            return
        r, _, _ = select.select([s], [], [], 5)
        try:
            data = s.recv(1) if r else None
        except OSError:
            data = b""
        print("closed" if data == b"" else "open")

main()
