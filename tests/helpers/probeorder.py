"""Names the kernel hands out in probe order, replaced by names that stay from boot to boot.

Two USB HID devices on different ports probe in parallel, so the keyboard is event4 and hidraw0
in one boot and event5 and hidraw1 in the next (with the minors 13:68 and 13:69, and the HID
instance numbers .0001 and .0002, either way round). A comparison of two boots names each such
device after the nearest ancestor that is not numbered this way (the USB interface, the serio
port): event4 -> event<2-1:1.0>, 13:68 -> 13:<event<2-1:1.0>>, 0003:0627:0001.0001 ->
0003:0627:0001.<2-1:1.0>. Used by the vm suite's compare.py and the distro suite's reports.

  tokens, devts = names((devpath, MAJOR, MINOR) for every device)
  text = rewrite(text, tokens, devts)          every path, id, node name, link and devt in text
  lines = rewrite_export_db(lines, tokens, devts)   the same for `udevadm info --export-db`,
                                               and each renamed device's MINOR
"""

import os
import re

# the evdev, mousedev and joydev nodes of input devices, and hidraw nodes
NODE = re.compile(r"(event|mouse|js|hidraw)(\d+)")
# path components between such a node and its anchor: class directories, inputN, HID instances
BETWEEN = re.compile(r"input|hidraw|input\d+|[0-9A-F]{4}:[0-9A-F]{4}:[0-9A-F]{4}\.[0-9A-F]{4}")
HID_ID = re.compile(r"([0-9A-F]{4}:[0-9A-F]{4}:[0-9A-F]{4})\.[0-9A-F]{4}")


def anchor(devpath):
    """The name of the nearest ancestor of devpath not numbered in probe order."""
    parts = devpath.split("/")[:-1]
    while parts and BETWEEN.fullmatch(parts[-1]):
        parts.pop()
    return parts[-1] if parts else ""


def names(devices):
    """devices: (devpath, MAJOR or None, MINOR or None) of every device of one boot.
    -> ({kernel name: stable name}, {"MAJOR:MINOR": "MAJOR:<stable name>"})"""
    tokens, devts, found = {}, {}, {}
    for devpath, major, minor in devices:
        base = os.path.basename(devpath)
        m = NODE.fullmatch(base)
        if m:
            found.setdefault((m.group(1), anchor(devpath)), []).append((int(m.group(2)), base, major, minor))
        for part in devpath.split("/"):
            h = HID_ID.fullmatch(part)
            if h:
                tokens[part] = "%s.<%s>" % (h.group(1), anchor(devpath[:devpath.index(part)] + part + "/x"))
    for (kind, anc), devs in found.items():
        # several of one kind below one anchor (uinput devices below "virtual") keep their order
        for rank, (_, base, major, minor) in enumerate(sorted(devs)):
            tokens[base] = "%s<%s>%s" % (kind, anc, "#%d" % rank if len(devs) > 1 else "")
            if major is not None and minor is not None:
                devts["%s:%s" % (major, minor)] = "%s:<%s>" % (major, tokens[base])
    return tokens, devts


def rewrite(text, tokens, devts):
    """text with every kernel name of tokens and every devt of devts replaced."""
    if tokens:
        text = re.sub(r"\b(?:%s)\b" % "|".join(map(re.escape, sorted(tokens, key=len, reverse=True))),
                      lambda m: tokens[m.group(0)], text)
    if devts:
        # a devt stands alone, or after the b/c of a database id ("c13:68")
        text = re.sub(r"(?<![\w:.])([bc]?)(%s)(?![\w:.])" % "|".join(map(re.escape, devts)),
                      lambda m: m.group(1) + devts[m.group(2)], text)
    return text


def _blocks(lines):
    """(the lines of one device, the blank line after them or None) of export-db lines."""
    block = []
    for line in lines:
        if line.strip():
            block.append(line)
        else:
            yield block, line
            block = []
    if block:
        yield block, None


def _field(block, prefix):
    return next((x[len(prefix):] for x in block if x.startswith(prefix)), None)


def export_db_devices(lines):
    """(devpath, MAJOR, MINOR) of each block of `udevadm info --export-db` lines."""
    return [(_field(b, "P: "), _field(b, "E: MAJOR="), _field(b, "E: MINOR=")) for b, _ in _blocks(lines)
            if _field(b, "P: ")]


def rewrite_export_db(lines, tokens, devts):
    """export-db lines rewritten; a renamed device's MINOR becomes its stable name."""
    out = []
    for block, blank in _blocks(lines):
        new = devts.get("%s:%s" % (_field(block, "E: MAJOR="), _field(block, "E: MINOR=")))
        out += ["E: MINOR=" + new.split(":", 1)[1] if new and x.startswith("E: MINOR=") else x for x in block]
        if blank is not None:
            out.append(blank)
    return rewrite("\n".join(out), tokens, devts).split("\n") if out else out


def selftest():
    devs = [("/devices/p/usb2/2-1/2-1:1.0/0003:0627:0001.0002/input/input6/event5", "13", "69"),
            ("/devices/p/usb2/2-1/2-1:1.0/0003:0627:0001.0002/hidraw/hidraw1", "245", "1"),
            ("/devices/p/usb2/2-2/2-2:1.0/0003:0627:0001.0001/input/input5/event4", "13", "68"),
            ("/devices/platform/i8042/serio1/input/input4/mouse0", "13", "32"),
            ("/devices/virtual/input/input7/event6", "13", "70"),
            ("/devices/virtual/input/input8/event7", "13", "71")]
    tokens, devts = names(devs)
    assert tokens["event5"] == "event<2-1:1.0>" and tokens["hidraw1"] == "hidraw<2-1:1.0>", tokens
    assert tokens["0003:0627:0001.0002"] == "0003:0627:0001.<2-1:1.0>", tokens
    assert tokens["mouse0"] == "mouse<serio1>" and tokens["event7"] == "event<virtual>#1", tokens
    assert devts["13:68"] == "13:<event<2-2:1.0>>", devts
    got = rewrite("N: input/event5\nS: char/13:69\nc13:69 13:690 event50 /dev/input/event5", tokens, devts)
    assert got == ("N: input/event<2-1:1.0>\nS: char/13:<event<2-1:1.0>>\nc13:<event<2-1:1.0>> 13:690 "
                   "event50 /dev/input/event<2-1:1.0>"), got
    db = ["P: " + devs[0][0], "N: input/event5", "E: MAJOR=13", "E: MINOR=69", "",
          "P: /devices/virtual/mem/null", "E: MAJOR=1", "E: MINOR=3", ""]
    assert export_db_devices(db) == [(devs[0][0], "13", "69"), ("/devices/virtual/mem/null", "1", "3")]
    got = rewrite_export_db(db, tokens, devts)
    assert got[1:4] == ["N: input/event<2-1:1.0>", "E: MAJOR=13", "E: MINOR=<event<2-1:1.0>>"], got
    assert got[6:8] == ["E: MAJOR=1", "E: MINOR=3"], got
    print("probeorder.py selftest: ok")


if __name__ == "__main__":
    selftest()
