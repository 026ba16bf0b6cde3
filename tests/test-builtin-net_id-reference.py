#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""devman's net_id against the reference (udevadm test-builtin net_id, systemd-udevd 252):
on every interface of tests/nic_fixture.py's tree bind-mounted over /sys in a private mount
namespace, under the default naming scheme and under older ones (NET_NAMING_SCHEME), and on
the live machine's interfaces. The property sets must be identical; a few hand-derived names
guard against both sides agreeing on nothing.

Usage: test-builtin-net_id-reference.py BUILDDIR. Needs root, unshare and udevadm (77 otherwise).
With DEVMAN_VALGRIND=1 devman's side runs under valgrind (errors and definite leaks fail)."""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # keep the source tree clean
import nic_fixture  # noqa: E402

SCHEMES = ["", "v238", "v240", "v247", "v251"]
# hand-derived from the fixture's description (default scheme v252)
EXPECT = {
    "eth10": {"ID_NET_NAME_ONBOARD": "eno1", "ID_NET_LABEL_ONBOARD": "Onboard LAN", "ID_NET_NAME_PATH": "enp0s31f6",
              "ID_NET_NAME_SLOT": "ens9f6", "ID_NET_NAME_MAC": "enx3c970e112233"},
    "eth11": {"ID_NET_NAME_ONBOARD": "eno0", "ID_NET_NAME_PATH": "enp0s26"},
    "eth12": {"ID_NET_NAME_ONBOARD": "eno2", "ID_NET_LABEL_ONBOARD": "LAN 2", "ID_NET_NAME_MAC": None},
    "eth27": {"ID_NET_NAME_PATH": "enp0s12f98"},                          # ARI: 12 * 8 + 2
    "eth28": {"ID_NET_NAME_PATH": "enp0s13", "ID_NET_NAME_SLOT": "ens23"},  # function_id 0x17
    "wlan1": {"ID_NET_NAME_PATH": "wlp0s11b1"},
    "eth32": {"ID_NET_NAME_PATH": "enp0s29f7u3c2i1"},
    "eth33": {"ID_NET_NAME_PATH": "enc600"},
    "eth30": {"ID_NET_NAME_SLOT": "env2"},
    "eth31": {"ID_NET_NAME_SLOT": "enX0"},
    "eth34": {"ID_NET_NAME_ONBOARD": "end0"},  # devicetree alias ethernet0 (devman only, see nic_fixture)
    "eth26": {"ID_NET_LABEL_ONBOARD": None, "ID_NET_NAME_PATH": "enp0s10"},   # 252: a label needs an index
    "eth13": {"ID_NET_NAME_ONBOARD": None, "ID_NET_NAME_PATH": "enp0s30"},
    "eth14": {"ID_NET_NAME_PATH": "enp5s0f0", "ID_NET_NAME_SLOT": "ens3f0"},
    "eth15": {"ID_NET_NAME_PATH": "enp5s0f1np1", "ID_NET_NAME_SLOT": "ens3f1np1"},
    "eth16": {"ID_NET_NAME_PATH": "enp6s0", "ID_NET_NAME_SLOT": None},
    "eth17": {"ID_NET_NAME_PATH": "enP1p7s0d2"},
    "wlan0": {"ID_NET_NAME_PATH": "wlp3s0", "ID_NET_NAME_MAC": "wlx34f39a000001"},
    "eth19": {"ID_NET_NAME_PATH": "enp0s3"},
    "eth21": {"ID_NET_NAME_PATH": "enp0s8v0", "ID_NET_NAME_MAC": None},
    "ib0": {"ID_NET_NAME_PATH": "ibp0s9d1", "ID_NET_NAME_MAC": None},
    "eth0.100": {"ID_NET_NAMING_SCHEME": None, "ID_NET_NAME_MAC": None},
    "eth24": {"ID_NET_NAME_PATH": "enahisic2i1"},
    "eth25": {"ID_NET_NAME_PATH": "eni0np1"},
    "eth0": {"ID_NET_NAME_PATH": "enp0s25", "ID_NET_NAME_MAC": "enx001b213a4c5d"},
    "eth1": {"ID_NET_NAME_PATH": "enp0s29f7u2"},
}


def parse(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def main():
    build = sys.argv[1]
    run = [os.path.join(build, "tests", "builtin-run")]
    if os.environ.get("DEVMAN_VALGRIND") == "1":
        run = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite"] + run
        SCHEMES[1:] = []  # the default scheme is enough to run every code path under valgrind
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("udevadm"):
        print("skipped: needs root, unshare and udevadm")
        return 77
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL: " + what)

    with tempfile.TemporaryDirectory(prefix="test-net_id.") as tmp:
        root = os.path.join(tmp, "sys")
        names = nic_fixture.build(root)
        script = ["mount --bind %s /sys || exit 1" % root, "export SYSTEMD_DEVICE_VERIFY_SYSFS=0 SYSTEMD_LOG_LEVEL=err"]
        for scheme in SCHEMES:
            for n in names:
                script.append("echo '@@ %s %s'; NET_NAMING_SCHEME=%s udevadm test-builtin net_id /sys/class/net/%s"
                              % (scheme, n, scheme or "v252", n))
        r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", "\n".join(script)],
                           capture_output=True, text=True)
        if "@@" not in r.stdout:
            print("skipped: cannot bind-mount a fake /sys: " + r.stderr.strip())
            return 77
        ref, key = {}, None
        for line in r.stdout.splitlines():
            if line.startswith("@@ "):
                key = tuple(line[3:].split(" "))
                ref[key] = []
            elif key:
                ref[key].append(line)
        for scheme in SCHEMES:
            for n in names:
                env = dict(os.environ, NET_NAMING_SCHEME=scheme or "v252", DEVMAN_LOG_LEVEL="err")
                mine = subprocess.run(run + ["--sysfs", root, "/class/net/" + n, "net_id"], capture_output=True,
                                      text=True, env=env)
                want = parse("\n".join(ref.get((scheme, n), [])))
                got = parse(mine.stdout)
                if n in nic_fixture.DEVMAN_ONLY:
                    want = dict(want, **{k: v for k, v in EXPECT[n].items() if v is not None and scheme in ("", "v252")})
                check(mine.returncode == 0 and got == want,
                      "%s %s: reference %s, devman %s (rc %d %s)" % (scheme or "v252", n, sorted(want.items()),
                                                                     sorted(got.items()), mine.returncode,
                                                                     mine.stderr.strip()))
                if not scheme and n in EXPECT:
                    for k, v in EXPECT[n].items():
                        check(got.get(k) == v, "%s: %s=%s expected, devman has %s" % (n, k, v, got.get(k)))
    # the legacy class layout of gen-sysfs's machine names its NICs as the converted one does
    with tempfile.TemporaryDirectory(prefix="test-net_id-legacy.") as tmp:
        for layout in ("converted", "legacy"):
            subprocess.run([sys.executable, nic_fixture.gen.__file__, "--layout", layout, os.path.join(tmp, layout)],
                           check=True, capture_output=True)
        for n in ("eth0", "eth1"):
            out = {}
            for layout in ("converted", "legacy"):
                p = subprocess.run(run + ["--sysfs", os.path.join(tmp, layout), "/class/net/" + n, "net_id"],
                                   capture_output=True, text=True, env=dict(os.environ, NET_NAMING_SCHEME="v252"))
                out[layout] = parse(p.stdout)
            check(out["legacy"] == out["converted"] and out["legacy"].get("ID_NET_NAME_PATH") == EXPECT[n]["ID_NET_NAME_PATH"],
                  "legacy %s: %s, converted %s" % (n, sorted(out["legacy"].items()), sorted(out["converted"].items())))
    # the live machine's interfaces
    for n in sorted(os.listdir("/sys/class/net")):
        env = dict(os.environ, SYSTEMD_LOG_LEVEL="err")
        env.pop("NET_NAMING_SCHEME", None)
        want = parse(subprocess.run(["udevadm", "test-builtin", "net_id", "/sys/class/net/" + n],
                                    capture_output=True, text=True, env=env).stdout)
        mine = subprocess.run(run + ["/sys/class/net/" + n, "net_id"], capture_output=True, text=True,
                              env=dict(env, DEVMAN_LOG_LEVEL="err"))
        check(mine.returncode == 0 and parse(mine.stdout) == want,
              "live %s: reference %s, devman %s" % (n, sorted(want.items()), mine.stdout.split()))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
