"""The test lines of the vm scripts that boot and check (vm-kernels.py, vm-kmod.py,
vm-snapshot.py): "ok - WHAT" or "FAIL - WHAT" per check, counted, and the closing
"N passed, M failed"."""


def log(msg):
    """One line of the test's output, flushed at once (it interleaves with QEMU's progress)."""
    print(msg, flush=True)


class Checks:
    """check(cond, what) prints one test line and returns cond; passed and failed count them."""

    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
        log(("ok - " if cond else "FAIL - ") + what)
        return cond

    def results(self, note=""):
        """Prints "N passed, M failed" (and the note); returns the exit status."""
        log("%d passed, %d failed%s" % (self.passed, self.failed, note))
        return 1 if self.failed else 0
