"""The size workload: what an initramfs must carry to run each device manager.

Per program set (a daemon and the tool that coldplugs with it), the stripped size of the programs
and the closure of shared libraries the dynamic loader resolves for them, as an initramfs builder
that follows `ldd` copies it (the loader itself included): the sum of the libraries' stripped sizes
and their count. A library two programs of a set need is carried once. A library ldd cannot
resolve is listed as missing (the set would not run from that initramfs)."""
import os
import re
import subprocess

# "libfoo.so.1 => /lib/x86_64-linux-gnu/libfoo.so.1 (0x...)", "/lib64/ld-linux-x86-64.so.2 (0x...)",
# "libbar.so.2 => not found"; linux-vdso has no file.
_ARROW = re.compile(r'^\s*(\S+)\s+=>\s+(.*?)\s*(?:\(0x[0-9a-f]+\))?\s*$')
_PLAIN = re.compile(r'^\s*(/\S+)\s+\(0x[0-9a-f]+\)\s*$')


def parse_ldd(text):
    """(resolved paths, missing sonames) from one program's `ldd` output, in order."""
    libs, missing = [], []
    for line in text.splitlines():
        m = _ARROW.match(line)
        if m:
            soname, target = m.groups()
            if target == 'not found':
                missing.append(soname)
            elif target.startswith('/'):
                libs.append(target)
            continue
        m = _PLAIN.match(line)
        if m:
            libs.append(m.group(1))
    return libs, missing


def closure(programs, ldd='ldd'):
    """(libraries, missing) that programs need: real paths (symlinks resolved, each once, sorted)
    and the sonames ldd could not resolve. A static program needs none."""
    libs, missing = set(), set()
    for prog in programs:
        p = subprocess.run([ldd, prog], capture_output=True, text=True)
        # ldd exits 1 for a static program ("not a dynamic executable"): no libraries
        found, lost = parse_ldd(p.stdout if p.returncode == 0 else '')
        libs.update(os.path.realpath(f) for f in found)
        missing.update(lost)
    return sorted(libs), sorted(missing)


def stripped_size(path, tmp, strip='strip'):
    """The size of a stripped copy of path (its own size when strip cannot handle it)."""
    out = os.path.join(tmp, 'stripped')
    if subprocess.run([strip, '-o', out, path], capture_output=True).returncode == 0:
        size = os.path.getsize(out)
        os.unlink(out)
        return size
    return os.path.getsize(path)


def footprint(programs, tmp, ldd='ldd'):
    """The figures of one program set (all of programs must exist; symlinks to the same file count
    once): files, bytes, stripped_bytes, libs [{path, stripped_bytes}], lib_count, libs_stripped_bytes,
    missing, total_stripped_bytes."""
    real = []
    for f in programs:
        r = os.path.realpath(f)
        if r not in real:
            real.append(r)
    libs, missing = closure(real, ldd)
    lib_rows = [{'path': lib, 'stripped_bytes': stripped_size(lib, tmp)} for lib in libs]
    own = sum(stripped_size(f, tmp) for f in real)
    lib_total = sum(r['stripped_bytes'] for r in lib_rows)
    return {'files': real, 'bytes': sum(os.path.getsize(f) for f in real), 'stripped_bytes': own,
            'libs': lib_rows, 'lib_count': len(lib_rows), 'libs_stripped_bytes': lib_total, 'missing': missing,
            'total_stripped_bytes': own + lib_total}


# The cross builds of tests/cross/run (build-cross/ARCH) and their binutils' strip.
CROSS = {'arm64': 'aarch64-linux-gnu', 'armhf': 'arm-linux-gnueabihf', 's390x': 's390x-linux-gnu'}


def cross_footprints(top, tmp, programs=('devmand', 'devmanadm')):
    """Per architecture with a cross build under top/build-cross and its strip installed: the
    programs' stripped sizes (files, bytes, stripped_bytes, and per program in 'programs'). Their
    libraries are the target's and not measured here (ldd runs the host's loader)."""
    out = {}
    for arch, triplet in CROSS.items():
        files = [os.path.join(top, 'build-cross', arch, 'daemon', p) for p in programs]
        strip = triplet + '-strip'
        if not all(os.path.exists(f) for f in files) or subprocess.run(
                ['which', strip], capture_output=True).returncode != 0:
            continue
        each = {os.path.basename(f): stripped_size(f, tmp, strip) for f in files}
        out[arch] = {'files': files, 'bytes': sum(os.path.getsize(f) for f in files),
                     'stripped_bytes': sum(each.values()), 'programs': each}
    return out
