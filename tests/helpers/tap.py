"""The test scripts' report: one "ok -" or "FAIL -" line per check, the totals at the end, and
exit status 1 when a check failed (77: skipped), as meson expects. A test of many small checks
sets tap.quiet: then only the FAIL lines and the totals are printed."""
import os
import sys

passed = failed = 0
quiet = False


def check(cond, what, detail=""):
    global passed, failed
    if cond:
        passed += 1
        if not quiet:
            print("ok -", what)
    elif detail:
        failed += 1
        print("FAIL -", what, detail)
    else:
        failed += 1
        print("FAIL -", what)
    return bool(cond)


def skip_unless_root():
    if os.geteuid() != 0:
        print("not root: skipped")
        sys.exit(77)


def finish():
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
