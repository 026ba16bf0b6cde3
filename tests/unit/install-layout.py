#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# `meson install --destdir` puts binaries, rules, units, man pages, completion and the
# configuration file where they belong, and nothing else. Two installs:
#  1. the current build, as configured;
#  2. a second configure of the same sources with -Dudev-compat-names=true and every init
#     system enabled. It is not compiled: its build outputs are the current build's (the same
#     sources), copied in, then installed with --no-rebuild. Its udevd and udevadm symlinks
#     must run devmand and devmanadm under those names.
# The expected places are written here from the layout the project promises (see
# meson_options.txt and units/README.md), not read back from meson's install plan.
# Usage: install-layout.py BUILDDIR SOURCEDIR
import json
import re
import os
import shutil
import stat
import subprocess
import sys
import tempfile

if not shutil.which('meson'):
    print('no meson on PATH: skipped')
    sys.exit(77)
build = os.path.abspath(sys.argv[1])
src = os.path.abspath(sys.argv[2])
failures = []


def check(cond, what):
    print(('ok - ' if cond else 'FAIL - ') + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def options(builddir):
    out = subprocess.run(['meson', 'introspect', builddir, '--buildoptions'], check=True,
                         stdout=subprocess.PIPE).stdout
    return {o['name']: o['value'] for o in json.loads(out)}


def expected_files(o):
    """path -> (mode, kind) for every file the configured build must install."""
    prefix = o['prefix']

    def under(d):
        return d if d.startswith('/') else os.path.join(prefix, d)

    sbindir, bindir, mandir, datadir = under(o['sbindir']), under(o['bindir']), under(o['mandir']), under(o['datadir'])
    sysconfdir = '/etc' if prefix == '/usr' else under(o['sysconfdir'])
    udevlibdir = o['udevlibdir'] or os.path.join(prefix, 'lib', 'udev')
    exp = {
        os.path.join(sbindir, 'devmand'): (0o755, 'elf'),
        os.path.join(bindir, 'devmanadm'): (0o755, 'elf'),
        os.path.join(under(o['libexecdir']), 'devman', 'devmanadm-tools'): (0o755, 'elf'),
        os.path.join(sysconfdir, 'devman', 'devman.conf'): (0o644, 'file'),
    }
    for r in sorted(os.listdir(os.path.join(src, 'rules'))):
        if r.endswith('.rules'):
            exp[os.path.join(udevlibdir, 'rules.d', r)] = (0o644, 'file')
    if shutil.which('scdoc'):
        for page in os.listdir(os.path.join(src, 'man')):
            if page.endswith('.scd'):
                name = page[:-4]
                exp[os.path.join(mandir, 'man' + name.rsplit('.', 1)[1], name)] = (0o644, 'man')
    if o['bash-completion']:
        compdir = o['bashcompletiondir'] or os.path.join(datadir, 'bash-completion', 'completions')
        for prog in ('devmand', 'devmanadm'):
            exp[os.path.join(compdir, prog)] = (0o644, 'file')
    want_units = o['systemd-units'] == 'enabled' or (
        o['systemd-units'] == 'auto' and subprocess.run(['pkg-config', '--exists', 'systemd']).returncode == 0)
    if want_units:
        unitdir = o['systemdsystemunitdir']
        if not unitdir:
            unitdir = subprocess.run(['pkg-config', '--variable=systemdsystemunitdir', 'systemd'],
                                     stdout=subprocess.PIPE, text=True).stdout.strip() or '/lib/systemd/system'
        for u in ('devman.service', 'devman-control.socket', 'devman-kernel.socket',
                  'devman-trigger.service', 'devman-settle.service'):
            exp[os.path.join(unitdir, u)] = (0o644, 'unit')
    if o['sysvinit']:
        exp[os.path.join(datadir, 'devman', 'devman.rcS')] = (0o755, 'script')
        if not o['openrc']:  # the same path as OpenRC's script, which wins
            exp[os.path.join(sysconfdir, 'init.d', 'devman')] = (0o755, 'script')
    if o['openrc']:
        for s in ('devman', 'devman-trigger', 'devman-settle'):
            exp[os.path.join(sysconfdir, 'init.d', s)] = (0o755, 'script')
        exp[os.path.join(sysconfdir, 'conf.d', 'devman')] = (0o644, 'file')
    if o['s6']:
        s6 = os.path.join(sysconfdir, 's6-rc', 'source')
        exp[os.path.join(s6, 'devman', 'run')] = (0o755, 'script')
        exp[os.path.join(s6, 'devman', 'type')] = (0o644, 'file')
        exp[os.path.join(s6, 'devman', 'notification-fd')] = (0o644, 'file')
        exp[os.path.join(s6, 'devman-coldplug', 'up')] = (0o644, 'file')
        exp[os.path.join(s6, 'devman-coldplug', 'type')] = (0o644, 'file')
        exp[os.path.join(s6, 'devman-coldplug', 'dependencies.d', 'devman')] = (0o644, 'file')
    if o['runit']:
        for s in ('run', 'check', 'finish'):
            exp[os.path.join(sysconfdir, 'sv', 'devman', s)] = (0o755, 'script')
    want_initramfs = o['initramfs-tools'] == 'enabled' or (
        o['initramfs-tools'] == 'auto' and any(os.access(os.path.join(d, 'mkinitramfs'), os.X_OK)
                                               for d in ('/usr/sbin', '/sbin')))
    if want_initramfs:
        itdir = o['initramfstoolsdir'] or '/usr/share/initramfs-tools'
        for d in ('hooks', 'scripts/init-top', 'scripts/init-bottom'):
            exp[os.path.join(itdir, d, 'devman')] = (0o755, 'script')
    if o['udev-compat-names']:
        exp[os.path.join(sbindir, 'udevd')] = (None, 'link:devmand')
        exp[os.path.join(bindir, 'udevadm')] = (None, 'link:devmanadm')
    return exp, sbindir, bindir


def installed(destdir):
    found = set()
    for root, _dirs, files in os.walk(destdir):
        for f in files:
            found.add('/' + os.path.relpath(os.path.join(root, f), destdir))
    return found


def check_layout(label, builddir, destdir):
    o = options(builddir)
    r = subprocess.run(['meson', 'install', '-C', builddir, '--no-rebuild', '--quiet', '--destdir', destdir],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if not check(r.returncode == 0, '%s: meson install --destdir succeeds' % label):
        print(r.stdout)
        return None
    exp, sbindir, bindir = expected_files(o)
    found = installed(destdir)
    check(not (set(exp) - found), '%s: everything expected is installed (missing: %s)' % (label, sorted(set(exp) - found)))
    check(not (found - set(exp)), '%s: nothing unexpected is installed (extra: %s)' % (label, sorted(found - set(exp))))
    sbin_devmand = destdir + os.path.join(sbindir, 'devmand')
    installed_progs = {os.path.join(sbindir, 'devmand'), os.path.join(bindir, 'devmanadm'),
                       os.path.join(o['libexecdir'] if o['libexecdir'].startswith('/') else
                                    os.path.join(o['prefix'], o['libexecdir']), 'devman', 'devmanadm-tools')}
    for path, (mode, kind) in sorted(exp.items()):
        full = destdir + path
        if not os.path.lexists(full):
            continue
        st = os.lstat(full)
        if kind.startswith('link:'):
            check(stat.S_ISLNK(st.st_mode) and os.readlink(full) == kind[5:],
                  '%s: %s is a symlink to %s' % (label, path, kind[5:]))
            continue
        check(stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == mode,
              '%s: %s is a regular file, mode %o' % (label, path, mode))
        with open(full, 'rb') as f:
            head = f.read()
        if kind == 'elf':
            check(head[:4] == b'\x7fELF', '%s: %s is a program' % (label, path))
        elif kind == 'man':
            check(b'.TH ' in head, '%s: %s is a rendered man page' % (label, path))
        elif kind in ('unit', 'script'):
            # generated files call the installed programs, never the build tree's
            progs = {m.group(1).decode() for m in re.finditer(rb'(/[^\s"\'=;:]*/devman(?:d|adm(?:-tools)?))(?![\w-])', head)
                     if not m.group(1).startswith(b'/run/')}  # a pid file is no program
            check(progs <= installed_progs and build.encode() not in head,
                  '%s: %s calls the installed programs (%s)' % (label, path, ' '.join(sorted(progs))))
        elif kind == 'file' and '/rules.d/' in path:
            with open(os.path.join(src, 'rules', os.path.basename(path)), 'rb') as f:
                check(f.read() == head, '%s: %s is the source rules file' % (label, path))
    r = subprocess.run([sbin_devmand, '--version'], stdout=subprocess.PIPE, text=True)
    check(r.returncode == 0 and r.stdout.startswith('devmand '), '%s: the installed devmand runs' % label)
    return o, sbindir, bindir


tmp = tempfile.mkdtemp(prefix='devman-install.')
try:
    check_layout('default', build, os.path.join(tmp, 'dest1'))

    # The compat configure: same directories, compat names and every init system on.
    o = options(build)
    compat = os.path.join(tmp, 'compat-build')
    args = ['meson', 'setup', compat, src, '-Dudev-compat-names=true', '-Dsysvinit=true', '-Dopenrc=true',
            '-Ds6=true', '-Drunit=true', '-Dinitramfs-tools=enabled', '-Dvm-tests=disabled']
    for k in ('prefix', 'bindir', 'sbindir', 'libexecdir', 'datadir', 'mandir', 'sysconfdir', 'udevlibdir',
              'bash-completion', 'bashcompletiondir', 'systemd-units', 'systemdsystemunitdir',
              'initramfstoolsdir'):
        v = o[k]
        args.append('-D%s=%s' % (k, str(v).lower() if isinstance(v, bool) else v))
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check(r.returncode == 0, 'compat: configure with -Dudev-compat-names=true'):
        # the programs and man pages: the current build's outputs (same sources)
        for rel in ('daemon/devmand', 'daemon/devmanadm', 'daemon/devmanadm-tools') + tuple(
                os.path.join('man', p[:-4]) for p in os.listdir(os.path.join(src, 'man')) if p.endswith('.scd')):
            if os.path.exists(os.path.join(build, rel)):
                shutil.copy2(os.path.join(build, rel), os.path.join(compat, rel))
        dest = os.path.join(tmp, 'dest2')
        res = check_layout('compat', compat, dest)
        if res:
            _, sbindir, bindir = res
            udevadm, udevd = dest + os.path.join(bindir, 'udevadm'), dest + os.path.join(sbindir, 'udevd')
            r = subprocess.run([udevadm, '--version'], stdout=subprocess.PIPE, text=True)
            version = subprocess.run([dest + os.path.join(bindir, 'devmanadm'), 'version'],
                                     stdout=subprocess.PIPE, text=True).stdout.strip()
            check(r.returncode == 0 and r.stdout.strip() == version and version,
                  'udevadm --version prints the bare version, as udevadm does (%r)' % r.stdout)
            r = subprocess.run([udevadm, 'info', '--help'], stdout=subprocess.PIPE, text=True)
            check(r.returncode == 0 and '--query' in r.stdout, 'udevadm info --help: the same verbs')
            r = subprocess.run([udevadm, 'no-such-verb'], stderr=subprocess.PIPE, text=True)
            check(r.returncode == 2 and r.stderr.startswith('udevadm: unknown verb'),
                  'udevadm names itself in errors (%r)' % r.stderr)
            r = subprocess.run([udevadm, '--help'], stdout=subprocess.PIPE, text=True)
            check(r.returncode == 0 and r.stdout.startswith('Usage: udevadm '), 'udevadm --help names udevadm')
            r = subprocess.run([udevd, '--version'], stdout=subprocess.PIPE, text=True)
            check(r.returncode == 0 and r.stdout == 'udevd %s\n' % version, 'udevd --version (%r)' % r.stdout)
            r = subprocess.run([udevd, '--log-target=nowhere'], stderr=subprocess.PIPE, text=True)
            check(r.returncode == 2 and 'invalid --log-target' in r.stderr, 'udevd takes devmand\'s options')
    else:
        print(r.stdout)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print('%d failures' % len(failures))
sys.exit(1 if failures else 0)
