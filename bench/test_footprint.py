#!/usr/bin/env python3
"""bench/footprint.py: ldd's output parsed (resolved, loader, vdso, not found), the closure of a
dynamic program (libc and the loader, each once across two programs, symlinks resolved), of a
static one (none), and the figures adding up."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import footprint  # noqa: E402

failed = 0


def check(cond, what):
    global failed
    print(('ok - ' if cond else 'FAIL - ') + what)
    failed += not cond


LDD = """\tlinux-vdso.so.1 (0x00007ffd1b3f2000)
\tlibkmod.so.2 => /lib/x86_64-linux-gnu/libkmod.so.2 (0x00007f5a1c0a0000)
\tlibgone.so.7 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f5a1bebe000)
\t/lib64/ld-linux-x86-64.so.2 (0x00007f5a1c0e6000)
"""
libs, missing = footprint.parse_ldd(LDD)
check(libs == ['/lib/x86_64-linux-gnu/libkmod.so.2', '/lib/x86_64-linux-gnu/libc.so.6', '/lib64/ld-linux-x86-64.so.2'],
      'parse_ldd: resolved libraries and the loader, no vdso: %s' % libs)
check(missing == ['libgone.so.7'], 'parse_ldd: an unresolved soname is missing')
check(footprint.parse_ldd('\tstatically linked\n') == ([], []), 'parse_ldd: a static program needs nothing')

sh = os.path.realpath(shutil.which('sh'))
env = os.path.realpath(shutil.which('env'))
libs, missing = footprint.closure([sh, env])
libc = [x for x in libs if os.path.basename(x).startswith('libc.so')]
loader = [x for x in libs if os.path.basename(x).startswith('ld-linux')]
check(len(libc) == 1 and len(loader) == 1 and not missing,
      'closure of sh and env: libc and the loader, once each (%s)' % libs)
check(all(x == os.path.realpath(x) for x in libs), 'closure: symlinks resolved')
check(len(set(libs)) == len(libs) == len(set(os.path.realpath(x) for x in libs)), 'closure: no library twice')

with tempfile.TemporaryDirectory() as tmp:
    # a static program: the test builds one when a compiler with a static libc is there
    src = os.path.join(tmp, 's.c')
    with open(src, 'w') as f:
        f.write('int main(void) { return 0; }\n')
    exe = os.path.join(tmp, 's')
    if shutil.which('cc') and subprocess.run(['cc', '-static', '-o', exe, src], capture_output=True).returncode == 0:
        check(footprint.closure([exe]) == ([], []), 'closure of a static program: nothing')
    fp = footprint.footprint([sh, sh, env], tmp)
    check(fp['files'] == [sh, env], 'footprint: a program named twice counts once')
    check(fp['lib_count'] == len(libs) and fp['libs_stripped_bytes'] == sum(r['stripped_bytes'] for r in fp['libs']),
          'footprint: %d libraries, their sizes summed' % fp['lib_count'])
    check(0 < fp['stripped_bytes'] <= fp['bytes'], 'footprint: stripped programs no larger than installed')
    check(fp['total_stripped_bytes'] == fp['stripped_bytes'] + fp['libs_stripped_bytes'] and
          all(r['stripped_bytes'] > 0 for r in fp['libs']), 'footprint: the total is programs + libraries')
sys.exit(1 if failed else 0)
