#!/usr/bin/env python3
"""Man pages render without warnings, and every program's --help matches its man page:
each verb devmanadm lists has a section in devmanadm(8), and every long option that devmand
--help or a verb's --help shows is documented there.
Usage: test-docs.py BUILDDIR"""
import os, re, subprocess, sys

build = sys.argv[1]
man = os.path.join(build, "man")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
import tap  # noqa: E402
from tap import check  # noqa: E402

pages = sorted(f for f in os.listdir(man) if re.match(r".+\.[0-9]$", f))
check(len(pages) == 4, "four man pages built", str(pages))
for p in pages:
    path = os.path.join(man, p)
    g = subprocess.run(["groff", "-ww", "-z", "-man", path], capture_output=True, text=True)
    check(g.returncode == 0 and not g.stdout and not g.stderr, "%s: groff -ww renders it without warnings" % p,
          g.stderr[:300])
    env = dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="0")
    m = subprocess.run(["man", "-l", path], capture_output=True, text=True, env=env)
    check(m.returncode == 0 and len(m.stdout) > 500 and not m.stderr, "%s: man -l renders it" % p, m.stderr[:300])

def text_of(page):
    return subprocess.run(["man", "-l", os.path.join(man, page)], capture_output=True, text=True,
                          env=dict(os.environ, MANWIDTH="200")).stdout

def long_options(help_text):
    return sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", help_text)))

devmand = os.path.join(build, "daemon", "devmand")
devmanadm = os.path.join(build, "daemon", "devmanadm")
page = text_of("devmand.8")
h = subprocess.run([devmand, "--help"], capture_output=True, text=True).stdout
missing = [o for o in long_options(h) if o not in page]
check(not missing, "devmand(8) documents every option of devmand --help (%d)" % len(long_options(h)), missing)

page = text_of("devmanadm.8")
h = subprocess.run([devmanadm, "--help"], capture_output=True, text=True).stdout
missing = [o for o in long_options(h.split("Verbs:")[0]) if o not in page]
check(not missing, "devmanadm(8) documents the global options", missing)
verbs = re.findall(r"^  ([a-z][a-z-]+) ", h.split("Verbs:")[1], re.M)
check(len(verbs) >= 10, "devmanadm --help lists its verbs (%d)" % len(verbs))
for v in verbs:
    has_section = re.search(r"^   %s( |$)" % re.escape(v), page, re.M) is not None
    vh = subprocess.run([devmanadm, v, "--help"], capture_output=True, text=True)
    opts = long_options(vh.stdout)
    missing = [o for o in opts if o not in page]
    check(has_section and vh.returncode == 0 and not missing,
          "devmanadm %s: a section in devmanadm(8) documenting its %d options" % (v, len(opts)),
          ("no section " if not has_section else "") + str(missing))

tap.finish()
