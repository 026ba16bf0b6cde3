#!/usr/bin/env python3
"""The fault boots' checks (faults.py) on hand-made reports (no VM)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "helpers"))

import faults as f  # noqa: E402
import tap  # noqa: E402

expect = tap.check


def rep(**sections):
    # the kill's message is a warning through the kernel's log: it is in journal-warnings
    all_ = sections.get("journal_manager_all")
    if all_ is not None and "journal_warnings" not in sections:
        sections["journal_warnings"] = [x for x in all_ if "devman-fault[" in x]
        sections["journal_manager_all"] = [x for x in all_ if "devman-fault[" not in x]
    return {"sections": {k.replace("_", "-"): v for k, v in sections.items()}, "rc": {}}


# what systemd 252 and devmand log around a kill (journalctl -o short-monotonic)
KILLED = [
    "[    9.1] devman-distro devman-fault[412]: killing devmand (pid 301) with SIGKILL at the add of "
    "/devices/pci0000:00/0000:00:01.1",
    "[    9.2] devman-distro systemd[1]: devman.service: Main process exited, code=killed, status=9/KILL",
    "[    9.2] devman-distro systemd[1]: devman.service: Failed with result 'signal'.",
    "[    9.3] devman-distro systemd[1]: devman.service: Scheduled restart job, restart counter is at 1.",
    "[    9.5] devman-distro devmand[420]: The previous daemon did not exit cleanly: reconciling",
    "[    9.6] devman-distro devmand[420]: Reconciled with the previous state: 0 stale entries, 0 stale nodes, "
    "0 stale link claims removed; 48 devices to process again, 300 more have events waiting",
    "[   10.9] devman-distro systemd[1]: Finished devman-settle.service - Wait for devman to finish device initialization.",
]
UNITS = ["Id=devman.service", "ActiveState=active", "SubState=running", "NRestarts=1"]
good = rep(journal_manager_all=KILLED, manager_units=UNITS)
expect(f.check_kill(good) == [], "a kill during coldplug and one restart: no problem (%s)" % f.check_kill(good))
expect(any("no device to process again" in p for p in f.check_kill(rep(
    journal_manager_all=[x.replace("48 devices", "0 devices").replace("300 more", "0 more") for x in KILLED], manager_units=UNITS))),
    "a restarted daemon that processes nothing again is a problem")
expect(any("NRestarts" in p for p in f.check_kill(rep(journal_manager_all=KILLED,
                                                       manager_units=UNITS[:3] + ["NRestarts=0"]))),
       "no restart counted is a problem")
expect(any("1 kill" in p or "0 kill" in p for p in f.check_kill(rep(journal_manager_all=KILLED[1:], manager_units=UNITS))),
       "no kill message is a problem")
late = KILLED[1:] + [KILLED[0].replace("[    9.1]", "[   11.0]")]
expect(any("after coldplug had settled" in p for p in f.check_kill(rep(journal_manager_all=late, manager_units=UNITS))),
       "a kill after settle finished is not a coldplug fault")
expect(any("did not exit cleanly" in p for p in f.check_kill(rep(journal_manager_all=KILLED[:4] + KILLED[6:],
                                                                   manager_units=UNITS))),
       "a restarted daemon that did not notice the crash is a problem")
expect(f.expected_warning("devman-kill", "devman.service: Failed with result 'signal'.")
       and f.expected_warning("devman-kill", "devman.service: Main process exited, code=killed, status=9/KILL"),
       "the kill's own warning is expected")
expect(not f.expected_warning("devman-kill", "devmand: cannot load module foo"), "other warnings are not")

text, bad = f.broken_rules()
lines = text.splitlines()
expect(all(f.BROKEN_LINES[n - 2][0] == "bad" and lines[n - 1] == f.BROKEN_LINES[n - 2][1] for n in bad)
       and len(bad) == 4, "the broken lines' numbers count the file's lines from 1: %s" % bad)
named = ["devmand: %s:%d: Invalid key 'X'." % (f.BROKEN_FILE, n) for n in bad]
dev = ["%s l 777 root root ../vdb" % p for p in f.GOOD_LINKS] + ["/dev/devman-fault d 755 root root "]
ok = rep(journal_manager=named, dev_find=dev, udevadm_info=["N: vdb", f.GOOD_PROPERTY])
expect(f.check_badrules(ok) == [], "every broken line named, the good lines' results there: no problem (%s)"
       % f.check_badrules(ok))
expect(any(":%d" % bad[1] in p for p in f.check_badrules(rep(journal_manager=named[:1] + named[2:], dev_find=dev,
                                                             udevadm_info=[f.GOOD_PROPERTY]))),
       "a broken line not named is a problem")
expect(any("good lines reported" in p for p in f.check_badrules(rep(
    journal_manager=named + ["%s:2: Invalid key" % f.BROKEN_FILE], dev_find=dev, udevadm_info=[f.GOOD_PROPERTY]))),
    "a good line named as broken is a problem")
expect(any("good-last" in p for p in f.check_badrules(rep(journal_manager=named, dev_find=dev[:1],
                                                          udevadm_info=[f.GOOD_PROPERTY]))),
       "a good line after broken ones that took no effect is a problem")
expect(any("bad-key" in p for p in f.check_badrules(rep(
    journal_manager=named, dev_find=dev + ["/dev/devman-fault/bad-key l 777 root root ../vdb"],
    udevadm_info=[f.GOOD_PROPERTY]))), "a broken line that took effect is a problem")
expect(any("DEVMAN_FAULT_GOOD" in p for p in f.check_badrules(rep(journal_manager=named, dev_find=dev,
                                                                  udevadm_info=["N: vdb"]))),
       "the good line's property missing is a problem")
expect(f.fault_extra("unit-extra dev-devman\\x2dfault-good\\x2dfirst.device")
       and f.fault_extra("dev /dev/devman-fault/good-last") and not f.fault_extra("dev /dev/vdb"),
       "only the good lines' links are expected extras")

db_a = rep(db=["P: /devices/a", "N: a", "E: USEC_INITIALIZED=100", "E: DEVLINKS=/dev/x /dev/y",
               "E: TAGS=:seat:uaccess:systemd:", "",
               "P: /devices/b", "E: ID_X=1"])
db_b = rep(db=["P: /devices/a", "N: a", "E: USEC_INITIALIZED=200", "E: DEVLINKS=/dev/y /dev/x",
               "E: TAGS=:seat:systemd:uaccess:", "",
               "P: /devices/b", "E: ID_X=2"])
expect(f.expected_warning("devman-badrules", "Rules loaded with 4 errors (those lines are skipped)")
       and not f.expected_warning("devman-badrules", "Rules loaded with 5 errors (those lines are skipped)"),
       "the count of broken lines is an expected warning, another count is not")
db_c = rep(db=["P: /devices/a", "N: a", "S: devman-fault/good-first", "E: DEVMAN_FAULT_GOOD=yes",
               "E: DEVLINKS=/dev/y /dev/devman-fault/good-first /dev/x", "E: TAGS=:seat:uaccess:systemd:", "",
               "P: /devices/b", "E: ID_X=1"])
drop = (lambda w: "DEVMAN_FAULT_GOOD" in w or "devman-fault/" in w)
expect(f.db_differences(db_a, db_c, drop) == [], "the good lines' link and property left out of the comparison")
diffs = f.db_differences(db_a, db_b)
expect(len(diffs) == 1 and "/devices/b" in diffs[0] and "ID_X=2" in diffs[0],
       "database entries compared without time stamps, link and tag order: %s" % diffs)

# the kernel's input numbers differ between boots: compared as input*, unless two share a parent
KBD = "/devices/platform/i8042/serio0/input/input%d"


def inp(*numbers):
    return rep(db=[x for n in numbers for x in ("P: " + KBD % n, "E: DEVPATH=" + KBD % n, "E: ID_INPUT_KEY=1", "")])


expect(f.db_differences(inp(1), inp(3)) == [], "input1 and input3 under one parent are the same device")
diffs = f.db_differences(inp(1, 2), inp(1, 3))
expect(len(diffs) == 2 and "input2" in diffs[0] + diffs[1] and "input3" in diffs[0] + diffs[1],
       "two inputs under one parent keep their numbers: %s" % diffs)

tap.finish()
