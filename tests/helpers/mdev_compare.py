"""How the tests against busybox mdev compare (mdev-differential.py on the fixture tree,
mdev-live.py on the live kernel): a /dev listing (fixture.listing) and a command log of each."""
import os

from tap import check


def take_log(path):
    """The commands logged so far, sorted; the log starts afresh."""
    try:
        with open(path) as f:
            lines = sorted(f.read().splitlines())
        os.unlink(path)
        return lines
    except FileNotFoundError:
        return []


def compare(what, bb, dm, keep=None):
    """busybox's /dev listing bb against devman's dm, without what differs by design (devmand(8),
    MDEV.CONF): busybox's /dev/root, devman's char/ and block/ links. keep(name), when given,
    picks the entries compared."""
    bb = {k: v for k, v in bb.items() if k != "root" and (keep is None or keep(k))}
    dm = {k: v for k, v in dm.items() if not k.startswith(("char/", "block/")) and (keep is None or keep(k))}
    diff = ["%s: busybox %s, devman %s" % (k, bb.get(k, "-"), dm.get(k, "-"))
            for k in sorted(set(bb) | set(dm)) if bb.get(k) != dm.get(k)]
    check(not diff, "%s: same /dev (%d entries)" % (what, len(bb)), "\n  " + "\n  ".join(diff[:30]))


def compare_log(what, bb, dm):
    """The sorted command logs of busybox and devman."""
    check(bb == dm, "%s: same commands with the same environment (%d)" % (what, len(bb)),
          "\n  busybox-only: %s\n  devman-only: %s" % ([x for x in bb if x not in dm], [x for x in dm if x not in bb]))
