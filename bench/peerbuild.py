# SPDX-License-Identifier: MIT
"""Builds the peers Debian 12 does not package (mdevd with skalibs, eudev) from the release
tarballs of the shared directory (`../shared/peers/`, passed as `bench/run --shared DIR`), into
the bench's persistent scratch directory, following the steps of that directory's README.

Each build lives in SCRATCH/peers/NAME, with a stamp naming the tarballs' SHA-256: a later run
with the same tarballs reuses it. Nothing is installed on the host: eudev is configured with a
private root (SCRATCH/peers/eudev/root) for its programs, rules and configuration; it uses /run
(private in every bench session) for its runtime files like systemd-udevd.

Returns {name: {'ok': bool, 'log': path, 'why': text, ...paths}}; a failed build is reported and
its peer is listed as not measured."""
import hashlib
import os
import shutil
import subprocess
import tarfile

TARBALLS = {
    'skalibs': 'skalibs-2.15.0.0.tar.gz',
    'mdevd': 'mdevd-0.1.8.2.tar.gz',
    'eudev': 'eudev-3.2.14.tar.gz',
}


def sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()


def extract(tarball, into):
    """Extracts a release tarball into `into` and returns its top directory (refusing members
    outside it)."""
    os.makedirs(into, exist_ok=True)
    with tarfile.open(tarball) as t:
        top = None
        for m in t.getmembers():
            name = os.path.normpath(m.name)
            if name.startswith('..') or os.path.isabs(name):
                raise RuntimeError(f'{tarball}: member outside the archive: {m.name}')
            top = top or name.split('/')[0]
        t.extractall(into)
    return os.path.join(into, top)


class Builder:
    def __init__(self, shared, scratch, log):
        self.peers_src = os.path.join(shared, 'peers')
        self.root = os.path.join(scratch, 'peers')
        self.log = log

    def tarball(self, name):
        return os.path.join(self.peers_src, TARBALLS[name])

    def stamp_text(self, names):
        return '\n'.join(f'{TARBALLS[n]} {sha256(self.tarball(n))}' for n in names) + '\n'

    def cached(self, d, names):
        try:
            with open(os.path.join(d, 'stamp')) as f:
                return f.read() == self.stamp_text(names)
        except OSError:
            return False

    def sh(self, argv, cwd, logf, env=None):
        logf.write(f'$ {" ".join(argv)}  (in {cwd})\n')
        logf.flush()
        p = subprocess.run(argv, cwd=cwd, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                           env=dict(os.environ, **(env or {})))
        if p.returncode != 0:
            raise RuntimeError(f'{argv[0]} failed ({p.returncode})')

    def build(self, name, names, steps):
        """Runs steps(workdir, logf) in a fresh SCRATCH/peers/NAME unless a build of the same
        tarballs is there. Returns (ok, directory, reason)."""
        d = os.path.join(self.root, name)
        missing = [TARBALLS[n] for n in names if not os.path.exists(self.tarball(n))]
        if missing:
            return False, d, f'missing in {self.peers_src}: {", ".join(missing)}'
        if self.cached(d, names):
            return True, d, 'cached'
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        logp = os.path.join(d, 'build.log')
        self.log(f'building {name} from {self.peers_src} in {d} (log: {logp})')
        try:
            with open(logp, 'w') as logf:
                steps(d, logf)
        except (RuntimeError, OSError, tarfile.TarError) as e:
            return False, d, f'{e}; see {logp}'
        with open(os.path.join(d, 'stamp'), 'w') as f:
            f.write(self.stamp_text(names))
        return True, d, 'built'

    def mdevd(self):
        def steps(d, logf):
            sk = os.path.join(d, 'sk')
            src = extract(self.tarball('skalibs'), os.path.join(d, 'src'))
            self.sh(['./configure', f'--prefix={sk}', '--disable-shared', '--enable-static'], src, logf)
            self.sh(['nice', 'make', '-j2'], src, logf)
            self.sh(['make', 'install'], src, logf)
            src = extract(self.tarball('mdevd'), os.path.join(d, 'src'))
            self.sh(['./configure', f'--with-sysdeps={sk}/lib/skalibs/sysdeps', f'--with-include={sk}/include',
                     f'--with-lib={sk}/lib'], src, logf)
            self.sh(['nice', 'make', '-j2'], src, logf)
            for prog in ('mdevd', 'mdevd-coldplug'):
                shutil.copy2(os.path.join(src, prog), os.path.join(d, prog))
            shutil.rmtree(os.path.join(d, 'src'))
        ok, d, why = self.build('mdevd', ['skalibs', 'mdevd'], steps)
        return {'ok': ok, 'why': why, 'dir': d, 'mdevd': os.path.join(d, 'mdevd')}

    def eudev(self):
        def steps(d, logf):
            root = os.path.join(d, 'root')
            src = extract(self.tarball('eudev'), os.path.join(d, 'src'))
            # autogen.sh wants the network for man pages: autoreconf directly (the README's step)
            self.sh(['autoreconf', '-f', '-i', '-s'], src, logf)
            self.sh(['./configure', f'--prefix={root}/usr', f'--sysconfdir={root}/etc', f'--with-rootprefix={root}',
                     f'--with-rootlibdir={root}/lib', f'--with-rootlibexecdir={root}/lib/udev',
                     '--with-rootrundir=/run', '--disable-manpages', '--disable-selinux', '--disable-hwdb',
                     '--enable-blkid', '--enable-kmod'], src, logf)
            self.sh(['nice', 'make', '-j2'], src, logf)
            self.sh(['make', 'install'], src, logf)
            shutil.rmtree(os.path.join(d, 'src'))
        ok, d, why = self.build('eudev', ['eudev'], steps)
        root = os.path.join(d, 'root')
        return {'ok': ok, 'why': why, 'dir': d, 'root': root,
                'udevd': os.path.join(root, 'usr', 'sbin', 'udevd'), 'udevadm': os.path.join(root, 'usr', 'bin', 'udevadm'),
                'rulesdir': os.path.join(root, 'lib', 'udev', 'rules.d')}


def stock_rules_into(rulesdir, stock='/usr/lib/udev/rules.d'):
    """eudev's rules directory in its private root becomes a copy of Debian's stock rules (the
    rules it installed itself are removed), made again at every run so it follows the system's."""
    shutil.rmtree(rulesdir, ignore_errors=True)
    shutil.copytree(stock, rulesdir, symlinks=True)
    return len(os.listdir(rulesdir))


def build_all(shared, scratch, log):
    b = Builder(shared, scratch, log)
    out = {'mdevd': b.mdevd(), 'eudev': b.eudev()}
    if out['eudev']['ok']:
        out['eudev']['stock_rules'] = stock_rules_into(out['eudev']['rulesdir'])
    return out
