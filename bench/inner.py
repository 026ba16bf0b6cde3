#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One bench session: runs as PID 1 of private mount/net/pid namespaces (bench/run starts it
with `unshare --mount --net --pid --fork --propagation private --mount-proc`), mounts a private
/dev and /run, starts one daemon, runs the requested workloads and prints one JSON object.

Nothing here touches the machine's /dev or /run: they are replaced by private mounts before
anything starts, and every process of the session dies with PID 1 when this script exits.
Loop devices are global: every one added is removed, also on error (finally: loopstorm cleanup).
"""
import errno
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback

CLK_TCK = os.sysconf('SC_CLK_TCK')
NETLINK_KOBJECT_UEVENT = 15
SO_RCVBUFFORCE = 33
# The drain's stopwatch resolution: 1 ms, under 2 % of any drain measured (60 ms and more); a
# shorter interval interrupts the daemon it measures (4 wakeups a ms cost devman 10 %).
DRAIN_PROBE_INTERVAL_US = 1000


def mono_ns():
    return time.monotonic_ns()  # CLOCK_MONOTONIC, the clock of probe.c and loopstorm.c


def run(argv, **kw):
    return subprocess.run(argv, check=True, **kw)


def mount(fstype, target, src=None, opts=None):
    argv = ['mount', '-t', fstype]
    if opts:
        argv += ['-o', opts]
    run(argv + [src or fstype, target])


def bind(src, target):
    run(['mount', '--bind', src, target])


def percentile(sorted_vals, q):
    if not sorted_vals:
        return None
    k = (len(sorted_vals) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (k - lo)


def lat_summary(vals_ms):
    v = sorted(vals_ms)
    return {'n': len(v), 'p50': percentile(v, 0.5), 'p99': percentile(v, 0.99),
            'max': v[-1] if v else None}


# ---------------------------------------------------------------- processes and accounting

def proc_children_map():
    children = {}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open(f'/proc/{d}/stat') as f:
                rest = f.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(rest[1]), []).append(int(d))
    return children


def tree_pids(root, exclude=()):
    children = proc_children_map()
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        if p in exclude:
            continue
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def read_status_kib(pid, keys):
    vals = {}
    try:
        with open(f'/proc/{pid}/status') as f:
            for line in f:
                k, _, v = line.partition(':')
                if k in keys:
                    vals[k] = int(v.split()[0])
    except OSError:
        pass
    return vals


def read_pss_kib(pid):
    try:
        with open(f'/proc/{pid}/smaps_rollup') as f:
            for line in f:
                if line.startswith('Pss:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def proc_cpu_s(pid, include_reaped):
    """Run time of all threads (schedstat, ns) plus, for the daemon's main process, the CPU of
    the children it has already reaped (cutime+cstime, clock ticks)."""
    total = 0.0
    try:
        for t in os.listdir(f'/proc/{pid}/task'):
            with open(f'/proc/{pid}/task/{t}/schedstat') as f:
                total += int(f.read().split()[0]) / 1e9
        if include_reaped:
            with open(f'/proc/{pid}/stat') as f:
                rest = f.read().rsplit(')', 1)[1].split()
            total += (int(rest[13]) + int(rest[14])) / CLK_TCK
    except OSError:
        pass
    return total


class Daemon:
    def __init__(self, argv, log_path, null_fd, exclude, pass_fds=()):
        self.argv = argv
        self.log = open(log_path, 'w')
        self.start_ns = mono_ns()
        self.proc = subprocess.Popen(argv, stdin=null_fd, stdout=self.log, stderr=self.log, cwd='/',
                                     pass_fds=pass_fds)
        self.pid = self.proc.pid
        self.exclude = exclude  # our own helpers are never part of the daemon's tree
        self.rusage = None

    def pids(self):
        return tree_pids(self.pid, self.exclude())

    def cpu_s(self):
        return sum(proc_cpu_s(p, p == self.pid) for p in self.pids())

    def memory(self, with_pss=True):
        pids = self.pids()
        rss = hwm = pss = 0
        main = {}
        for p in pids:
            st = read_status_kib(p, ('VmRSS', 'VmHWM'))
            rss += st.get('VmRSS', 0)
            hwm += st.get('VmHWM', 0)
            if p == self.pid:
                main = st
        if with_pss:
            pss = sum(read_pss_kib(p) for p in pids)
        return {'procs': len(pids), 'rss_kib': rss, 'hwm_kib': hwm, 'pss_kib': pss,
                'main_rss_kib': main.get('VmRSS', 0), 'main_hwm_kib': main.get('VmHWM', 0),
                'main_pss_kib': read_pss_kib(self.pid) if with_pss else 0}

    def alive(self):
        return self.proc.poll() is None

    def signal_tree(self, sig):
        for p in self.pids():
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass

    def stop(self):
        if self.proc.returncode is None:
            try:
                self.proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + 10
            try:
                while time.monotonic() < deadline:
                    pid, status, ru = os.wait4(self.pid, os.WNOHANG)
                    if pid:
                        self.rusage = ru
                        self.proc.returncode = status
                        break
                    time.sleep(0.01)
                else:
                    self.proc.kill()
                    _, status, self.rusage = os.wait4(self.pid, 0)
                    self.proc.returncode = status
            except ChildProcessError:  # already reaped (it died earlier): no rusage to report
                self.proc.returncode = -1
        self.log.close()


class Sampler(threading.Thread):
    """Peak memory of the daemon's tree while a workload runs (RSS every 20 ms, PSS every 100 ms)."""

    def __init__(self, daemon):
        super().__init__(daemon=True)
        self.d = daemon
        self.stop_ev = threading.Event()
        self.peak = {'rss_kib': 0, 'pss_kib': 0, 'procs': 0}

    def run(self):
        i = 0
        while not self.stop_ev.is_set():
            m = self.d.memory(with_pss=(i % 5 == 0))
            self.peak['rss_kib'] = max(self.peak['rss_kib'], m['rss_kib'])
            self.peak['pss_kib'] = max(self.peak['pss_kib'], m['pss_kib'])
            self.peak['procs'] = max(self.peak['procs'], m['procs'])
            i += 1
            self.stop_ev.wait(0.02)

    def finish(self):
        self.stop_ev.set()
        self.join()
        m = self.d.memory()
        # Each process's own high-water mark covers spikes between two samples.
        self.peak['rss_kib'] = max(self.peak['rss_kib'], m['hwm_kib'])
        self.peak['pss_kib'] = max(self.peak['pss_kib'], m['pss_kib'])
        return self.peak


class Probe:
    def __init__(self, build, out, null_fd, kernel=True, udev=False, dev=None, top=False, interval_us=0):
        self.out = out
        ready = out + '.ready'
        argv = [f'{build}/bench/probe', '--out', out, '--ready', ready]
        if kernel:
            argv.append('--kernel')
        if udev:
            argv.append('--udev')
        if dev:
            argv += ['--dev', dev] + (['--top'] if top else [])
        if interval_us:
            argv += ['--interval', str(interval_us)]
        self.proc = subprocess.Popen(argv, stdin=null_fd)
        deadline = time.monotonic() + 10
        while not os.path.exists(ready):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError('probe did not start')
            time.sleep(0.001)

    def finish(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=60)
        recs = {'K': [], 'U': [], 'C': [], 'D': []}
        lost = 0
        with open(self.out) as f:
            for line in f:
                parts = line.rstrip('\n').split('\t')
                if parts[0] == 'L':
                    lost = int(parts[1])
                elif parts[0] in ('K', 'U'):
                    recs[parts[0]].append((int(parts[1]), parts[2], parts[3], parts[4], parts[5]))
                else:
                    recs[parts[0]].append((int(parts[1]), parts[2]))
        os.unlink(self.out)
        recs['lost'] = lost
        return recs


class BroadcastWatch:
    """Which devices' processed events a udev-compatible daemon has broadcast on the udev
    netlink group (2) of the session's net namespace: the bench's own socket, read without
    sleeping on it (drained while wait_done() polls), so no broadcast wakes the bench. The
    stopwatch is the probe's; this only says when a workload is complete."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM | socket.SOCK_NONBLOCK,
                                  NETLINK_KOBJECT_UEVENT)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 * 1024 * 1024)
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024 * 1024)
        self.sock.bind((0, 2))
        self.seen = {}  # (action, devname) -> count
        self.lost = 0

    def drain(self):
        while True:
            try:
                buf = self.sock.recv(65536)
            except BlockingIOError:
                return
            except OSError as e:
                if e.errno == errno.ENOBUFS:
                    self.lost += 1
                    continue
                raise
            if not buf.startswith(b'libudev\0') or len(buf) < 24:
                continue
            off, plen = struct.unpack('=II', buf[16:24])  # host order (only the magic is big-endian)
            props = dict(kv.split(b'=', 1) for kv in buf[off:off + plen].split(b'\0') if b'=' in kv)
            key = (props.get(b'ACTION', b'').decode(), props.get(b'DEVNAME', b'').decode().removeprefix('/dev/'))
            self.seen[key] = self.seen.get(key, 0) + 1

    def done(self, action, devname):
        return self.seen.get((action, devname), 0) > 0

    def forget(self):
        self.drain()
        self.seen.clear()

    def close(self):
        self.sock.close()


# ---------------------------------------------------------------- the session

class Session:
    def __init__(self, cfg, null_fd):
        self.cfg = cfg
        self.e = cfg['entry']
        self.build = cfg['build']
        self.null = null_fd
        self.helpers = set()
        self.daemon = None
        self.bwatch = None  # BroadcastWatch of a daemon timed to its broadcast
        self.result = {'peer': cfg['peer'], 'run': cfg.get('run')}
        self.loop_ranges = []
        # Under callgrind the daemon runs some 50 times slower: wait longer for it.
        self.valgrind = 'callgrind-live' in cfg['workloads']
        self.timeout = 300 if self.valgrind else 20

    # -- setup
    def setup_mounts(self):
        mount('tmpfs', '/run', opts='mode=755')
        os.makedirs('/run/bench')
        os.mknod('/run/bench/loop-control', 0o600 | 0o020000, os.makedev(10, 237))
        if self.e['dev'] == 'tmpfs':
            mount('tmpfs', '/dev', opts='mode=755')
        else:
            # The devtmpfs instance is the machine's: read it through an overlay whose upper
            # layer is private, so the daemon's chmod/chown/symlinks stay in this session.
            for d in ('devlower', 'devupper', 'devwork'):
                os.makedirs(f'/run/bench/{d}')
            mount('devtmpfs', '/run/bench/devlower', opts='ro')
            mount('overlay', '/dev', src='overlay',
                  opts='lowerdir=/run/bench/devlower,upperdir=/run/bench/devupper,workdir=/run/bench/devwork')
        os.makedirs('/run/bench/empty')
        rules = self.e['rules']
        dirs = ['/etc/udev/rules.d', '/usr/lib/udev/rules.d']
        extra = self.cfg.get('devman_rulesdir')
        if extra and os.path.isdir(extra) and os.path.realpath(extra) not in map(os.path.realpath, dirs):
            dirs.append(extra)
        if rules == 'empty':
            for d in dirs:
                if os.path.isdir(d):
                    bind('/run/bench/empty', d)
        elif rules == 'stock':
            if extra and extra in dirs[2:]:
                bind('/usr/lib/udev/rules.d', extra)
            bind('/run/bench/empty', '/etc/udev/rules.d')
        open('/run/bench/mdev.conf', 'w').close()  # mdev and mdevd: no rules
        if os.path.exists('/etc/mdev.conf'):
            bind('/run/bench/mdev.conf', '/etc/mdev.conf')

    def rules_dir(self):
        return '/usr/lib/udev/rules.d' if self.e['rules'] == 'stock' else '/run/bench/empty'

    def x(self, argv, **kw):
        values = dict(build=self.build, dev='/dev', run='/run', sysfs='', rules=self.rules_dir(),
                      ready_fd='', peers=self.cfg.get('peers_dir') or '')
        values.update(kw)
        return [a.format(**values) for a in argv]

    def helper_pids(self):
        return self.helpers

    def probe(self, **kw):
        p = Probe(self.build, f'/run/bench/probe.{mono_ns()}', self.null, **kw)
        self.helpers.add(p.proc.pid)
        return p

    def uevent_socket_bound(self):
        inodes = set()
        try:
            with open('/proc/net/netlink') as f:
                next(f)
                for line in f:
                    c = line.split()
                    if int(c[1]) == NETLINK_KOBJECT_UEVENT and int(c[3], 16) & 1:
                        inodes.add(c[9])
        except OSError:
            return False
        for p in self.daemon.pids():
            try:
                for fd in os.listdir(f'/proc/{p}/fd'):
                    link = os.readlink(f'/proc/{p}/fd/{fd}')
                    if link.startswith('socket:[') and link[8:-1] in inodes:
                        return True
            except OSError:
                continue
        return False

    def dev_count(self):
        n = 0
        for _, dirs, files in os.walk('/dev'):
            n += len(dirs) + len(files)
        return n

    def start_daemon(self):
        if self.finish_line() == 'broadcast':
            self.bwatch = BroadcastWatch()
        probe = self.probe(kernel=False, dev='/dev' if self.e['dev'] == 'tmpfs' else None)
        deadline = time.monotonic() + self.timeout
        prefix = ['valgrind', '--tool=callgrind', '--callgrind-out-file=/run/bench/cg.out'] if self.valgrind else []
        if self.e.get('ready_fd'):
            rfd, wfd = os.pipe()
            self.daemon = Daemon(prefix + self.x(self.e['cmd'], ready_fd=wfd), '/run/bench/daemon.log', self.null,
                                 self.helper_pids, pass_fds=(wfd,))
            os.close(wfd)
            try:
                # The daemon writes a newline when ready; EOF (it died) also ends the wait.
                ready, _, _ = select.select([rfd], [], [], self.timeout)
                if not ready or not os.read(rfd, 1):
                    raise RuntimeError(f'daemon not ready within {self.timeout} s or exited: ' + self.daemon_log())
            finally:
                os.close(rfd)
        else:
            self.daemon = Daemon(prefix + self.x(self.e['cmd']), '/run/bench/daemon.log', self.null,
                                 self.helper_pids)
        while not self.uevent_socket_bound():
            if not self.daemon.alive() or time.monotonic() > deadline:
                raise RuntimeError('daemon did not bind a uevent socket: ' + self.daemon_log())
            time.sleep(0.005)
        if self.e.get('ready'):
            while subprocess.run(self.x(self.e['ready']), stdin=self.null, stdout=self.null,
                                 stderr=self.null).returncode != 0:
                if time.monotonic() > deadline:
                    raise RuntimeError('daemon not ready: ' + self.daemon_log())
                time.sleep(0.01)
        # Wait out a start-up scan (mdev -d populates /dev before it listens).
        last, stable_since = -1, time.monotonic()
        while time.monotonic() - stable_since < 0.3:
            n = self.dev_count()
            if n != last:
                last, stable_since = n, time.monotonic()
            time.sleep(0.02)
        recs = probe.finish()
        self.helpers.discard(probe.proc.pid)
        if recs['C']:
            self.result['startup_scan_ms'] = (max(t for t, _ in recs['C']) - self.daemon.start_ns) / 1e6
            self.result['startup_scan_nodes'] = len(recs['C'])
        self.result['ready_ms'] = (mono_ns() - self.daemon.start_ns) / 1e6
        if self.e['dev'] == 'tmpfs' and self.e.get('startup_scan'):
            # Coldplug is measured from an empty /dev, as for every other daemon.
            for name in os.listdir('/dev'):
                run(['rm', '-rf', '--one-file-system', os.path.join('/dev', name)])

    def daemon_log(self):
        try:
            with open('/run/bench/daemon.log') as f:
                return f.read()[-2000:]
        except OSError:
            return ''

    # -- workloads
    def coldplug(self):
        uevents, expected = [], []
        for root, dirs, files in os.walk('/sys/devices'):
            if 'uevent' not in files:
                continue
            path = os.path.join(root, 'uevent')
            uevents.append(path)
            try:
                with open(path) as f:
                    for line in f:
                        if line.startswith('DEVNAME='):
                            expected.append((line[8:].strip(), root))
            except OSError:
                pass
        tmpfs = self.e['dev'] == 'tmpfs'
        probe = self.probe(kernel=True, udev=not tmpfs, dev='/dev' if tmpfs else None)
        cpu0 = self.daemon.cpu_s()
        t0 = mono_ns()
        if self.e.get('trigger'):
            run(self.x(self.e['trigger']), stdin=self.null, stdout=self.null)
        else:
            for path in uevents:
                try:
                    with open(path, 'w') as f:
                        f.write('add')
                except OSError:
                    pass
        t_trig = mono_ns()
        missing = []
        if self.e.get('settle'):
            run(self.x(self.e['settle']), stdin=self.null)
        if tmpfs:
            missing = self.wait_paths([('/dev/' + n, r) for n, r in expected], present=True, timeout=self.timeout)
        t_end = mono_ns()
        cpu1 = self.daemon.cpu_s()
        recs = probe.finish()
        self.helpers.discard(probe.proc.pid)
        names = {n for n, _ in expected}
        node_times = [t for t, p in recs['C'] if p in names]
        res = {'trigger_ms': (t_trig - t0) / 1e6, 'uevents_written': len(uevents),
               'uevents_seen': sum(1 for r in recs['K'] if r[0] >= t0 and r[1] == 'add'),
               'udev_events': sum(1 for r in recs['U'] if r[0] >= t0),
               'nodes_expected': len(expected), 'nodes_missing': len(missing),
               'cpu_s': cpu1 - cpu0, 'lost': recs['lost']}
        if self.e.get('settle'):
            res['ms'] = (t_end - t0) / 1e6
        elif node_times:
            res['ms'] = (max(max(node_times), t_trig) - t0) / 1e6
        if node_times:
            res['nodes_ms'] = (max(node_times) - t0) / 1e6
            res['nodes_made'] = len(set(p for _, p in recs['C'] if p in names))
        if missing:
            res['missing_sample'] = [n for n, _ in missing[:5]]
        self.result['coldplug'] = res

    def check_daemon(self):
        """A daemon that exited during a workload fails the session at once, not after the
        workload's time-outs (a floor daemon that had exited once held a run for minutes)."""
        if self.daemon is not None and not self.daemon.alive():
            raise RuntimeError('the daemon exited during the workload: ' + self.daemon_log())

    def wait_paths(self, items, present, timeout):
        """Polls until every path exists (present) or is gone. items: (path, sysfs_dir or None);
        a device whose sysfs directory vanished meanwhile is dropped. Returns what is left."""
        todo = list(items)
        deadline = time.monotonic() + timeout
        # Daemons finish in order nearly always: the head is polled every 2 ms, the whole list
        # only when the head stalls for 50 ms. Scanning every path each time took most of a core
        # on a 2-core machine from the daemon being measured.
        stalled_since = time.monotonic()
        while todo and time.monotonic() < deadline:
            self.check_daemon()
            moved = False
            while todo and os.path.lexists(todo[0][0]) == present:
                todo.pop(0)
                moved = True
            if not todo:
                break
            now = time.monotonic()
            if moved:
                stalled_since = now
            elif now - stalled_since >= 0.05:
                todo = [it for it in todo if os.path.lexists(it[0]) != present
                        and (it[1] is None or os.path.exists(it[1]) or not present)]
                stalled_since = now
            if todo:
                time.sleep(0.002)
        return todo

    def finish_line(self):
        """'broadcast': the processed event on the udev netlink group (udev-compatible daemons);
        'node': the node exists / is gone (node-only peers)."""
        return self.e['finish']

    def wait_done(self, base, count, action, timeout, kind=None):
        """Waits until the daemon has processed the action of every loop device of the range;
        returns the names it did not finish in time."""
        kind = kind or self.finish_line()
        names = [f'loop{i}' for i in range(base, base + count)]
        if kind == 'node':
            if action == 'remove' and not self.e.get('removes_nodes', True):
                return []
            left = self.wait_paths([(f'/dev/{n}', None) for n in names], action == 'add', timeout)
            return [p[len('/dev/'):] for p, _ in left]
        deadline = time.monotonic() + timeout
        todo = names
        while todo:
            self.check_daemon()
            self.bwatch.drain()
            todo = [n for n in todo if not self.bwatch.done(action, n)]
            if not todo or time.monotonic() > deadline:
                break
            time.sleep(0.002)
        return todo

    def remove_leftover_nodes(self, base, count):
        """A daemon that leaves nodes of removed devices (mdevd) must not find them made
        already by the next workload over the same indices."""
        if self.e.get('removes_nodes', True) or self.e['dev'] != 'tmpfs':
            return
        for i in range(base, base + count):
            try:
                os.unlink(f'/dev/loop{i}')
            except FileNotFoundError:
                pass

    def loopstorm(self, verb, base, count):
        p = subprocess.run([f'{self.build}/bench/loopstorm', '--control', '/run/bench/loop-control',
                            '--base', str(base), '--count', str(count), verb],
                           stdin=self.null, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise RuntimeError(f'loopstorm {verb} failed: {p.stderr.strip()}')
        a, b, _ = p.stdout.split()
        return int(a), int(b)

    def latencies(self, recs, base, count, action, kind=None):
        """Per-device latency in ms from the kernel's event to the daemon's finish line: the node
        made or gone (kind 'node'), or its processed event broadcast on the udev group, matched
        by SEQNUM and DEVPATH (kind 'broadcast'). Returns (latencies, unmatched, last finish, per
        device finish times)."""
        kind = kind or self.finish_line()
        names = {f'loop{i}' for i in range(base, base + count)}
        kern = {}
        for t, act, seq, devpath, devname in recs['K']:
            if act == action and devname in names and devname not in kern:
                kern[devname] = (t, seq, devpath)
        done = {}
        if kind == 'node':
            rec = 'C' if action == 'add' else 'D'
            for t, path in recs[rec]:
                if path in kern and path not in done and t >= kern[path][0] - 5_000_000:
                    done[path] = t
        else:
            by_seq = {(seq, devpath): n for n, (t, seq, devpath) in kern.items()}
            for t, act, seq, devpath, devname in recs['U']:
                n = by_seq.get((seq, devpath))
                if n and n not in done and act == action:
                    done[n] = t
        lat = [max(0, done[n] - kern[n][0]) / 1e6 for n in kern if n in done]
        last = max(done.values()) if done else None
        return lat, len(kern) - len(lat), last, done

    def storm(self, count, base, kind=None):
        """count loop devices added back to back, then removed; kind: the finish line timed
        (default the entry's). The probe listens to what that finish line needs and nothing
        else, so it wakes as often for every daemon measured to the same line."""
        kind = kind or self.finish_line()
        tmpfs = self.e['dev'] == 'tmpfs'
        # loop nodes are made in /dev itself: its subdirectories need no watch
        probe = self.probe(kernel=True, udev=kind == 'broadcast', dev='/dev' if kind == 'node' and tmpfs else None,
                           top=True)
        if self.bwatch:
            self.bwatch.forget()
        sampler = Sampler(self.daemon)
        sampler.start()
        cpu0 = self.daemon.cpu_s()
        self.loop_ranges.append((base, count))
        a0, a1 = self.loopstorm('add', base, count)
        miss_add = self.wait_done(base, count, 'add', 120, kind)
        r0, r1 = self.loopstorm('remove', base, count)
        self.loop_ranges.remove((base, count))
        miss_rm = self.wait_done(base, count, 'remove', 120, kind)
        cpu1 = self.daemon.cpu_s()
        peak = sampler.finish()
        recs = probe.finish()
        self.helpers.discard(probe.proc.pid)
        self.remove_leftover_nodes(base, count)
        add_lat, add_unmatched, _, _ = self.latencies(recs, base, count, 'add', kind)
        res = {'count': count, 'finish': kind, 'add_kernel_ms': (a1 - a0) / 1e6, 'remove_kernel_ms': (r1 - r0) / 1e6,
               'add': lat_summary(add_lat), 'add_unmatched': add_unmatched,
               'not_done_add': len(miss_add), 'not_done_remove': len(miss_rm),
               'cpu_s': cpu1 - cpu0, 'peak_rss_kib': peak['rss_kib'], 'peak_pss_kib': peak['pss_kib'],
               'peak_procs': peak['procs'], 'lost': recs['lost']}
        if kind == 'broadcast' or self.e.get('removes_nodes', True):
            rm_lat, rm_unmatched, _, _ = self.latencies(recs, base, count, 'remove', kind)
            res['remove'] = lat_summary(rm_lat)
            res['remove_unmatched'] = rm_unmatched
        if self.cfg.get('keep_latencies'):
            res['add_latencies_ms'] = [round(v, 4) for v in add_lat]
        return res

    def stop_daemon_tree(self):
        stopped = self.daemon.pids()
        for p in stopped:
            os.kill(p, signal.SIGSTOP)
        return stopped

    def cont(self, stopped):
        t = mono_ns()
        for p in stopped:
            try:
                os.kill(p, signal.SIGCONT)
            except ProcessLookupError:
                pass
        return t

    def drain(self, count, base):
        kind = self.finish_line()
        tmpfs = self.e['dev'] == 'tmpfs'
        # Only the last event's time counts here: the probe polls (DRAIN_PROBE_INTERVAL_US) rather
        # than being woken by each node or broadcast, a cost it would add to every daemon's events.
        # So it can watch both finish lines at no cost to the daemon.
        probe = self.probe(kernel=True, udev=kind == 'broadcast', dev='/dev' if tmpfs else None, top=True,
                           interval_us=DRAIN_PROBE_INTERVAL_US)
        if self.bwatch:
            self.bwatch.forget()
        sampler = Sampler(self.daemon)
        sampler.start()
        cpu0 = self.daemon.cpu_s()
        stopped = self.stop_daemon_tree()
        self.loop_ranges.append((base, count))
        try:
            self.loopstorm('add', base, count)
            time.sleep(0.05)
        finally:
            t_cont = self.cont(stopped)
        miss_add = self.wait_done(base, count, 'add', 120)
        t_seen = mono_ns()
        self.loopstorm('remove', base, count)
        self.loop_ranges.remove((base, count))
        miss_rm = self.wait_done(base, count, 'remove', 120)
        cpu1 = self.daemon.cpu_s()
        peak = sampler.finish()
        recs = probe.finish()
        self.helpers.discard(probe.proc.pid)
        self.remove_leftover_nodes(base, count)
        _, unmatched, last, _ = self.latencies(recs, base, count, 'add')
        res = {'count': count, 'finish': kind, 'uevents_queued': 2 * count, 'unmatched': unmatched,
               'not_done': len(miss_add), 'not_done_remove': len(miss_rm),
               'ms': (last - t_cont) / 1e6 if last and not unmatched else None,
               'poll_ms': (t_seen - t_cont) / 1e6, 'cpu_s': cpu1 - cpu0,
               'peak_rss_kib': peak['rss_kib'], 'peak_pss_kib': peak['pss_kib'], 'lost': recs['lost']}
        if kind == 'broadcast' and tmpfs:
            _, n_unmatched, n_last, _ = self.latencies(recs, base, count, 'add', 'node')
            res['node_ms'] = (n_last - t_cont) / 1e6 if n_last and not n_unmatched else None
        self.result['drain'] = res

    def fairness(self, backlog, storm, base):
        """Whether a storm starves events already queued. backlog loop devices are queued while
        the daemon is stopped (as in the drain); it is continued, first alone, then a second
        time with a storm of `storm` more devices started at the same moment. Figures, each from
        SIGCONT, to the daemon's finish line: the backlog's completion alone and under the
        storm, the longest time in which no queued device was finished (the work the daemon did
        on reading the storm, or on anything else, before queued events proceeded), and how
        many storm devices were finished before the backlog's last one."""
        kind = self.finish_line()
        tmpfs = self.e['dev'] == 'tmpfs'
        res = {'backlog': backlog, 'storm': storm, 'finish': kind}
        for phase in ('alone', 'storm'):
            probe = self.probe(kernel=True, udev=kind == 'broadcast', dev='/dev' if kind == 'node' and tmpfs else None,
                               top=True)
            if self.bwatch:
                self.bwatch.forget()
            n_storm = storm if phase == 'storm' else 0
            stopped = self.stop_daemon_tree()
            self.loop_ranges.append((base, backlog + n_storm))
            storm_proc = None
            try:
                self.loopstorm('add', base, backlog)
                time.sleep(0.05)
            finally:
                t_cont = self.cont(stopped)
            if n_storm:
                storm_proc = subprocess.Popen(
                    [f'{self.build}/bench/loopstorm', '--control', '/run/bench/loop-control', '--base',
                     str(base + backlog), '--count', str(n_storm), 'add'],
                    stdin=self.null, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                self.helpers.add(storm_proc.pid)
            miss = self.wait_done(base, backlog, 'add', 120)
            if storm_proc:
                out, err = storm_proc.communicate()
                self.helpers.discard(storm_proc.pid)
                if storm_proc.returncode != 0:
                    raise RuntimeError(f'loopstorm add failed: {err.strip()}')
                miss += self.wait_done(base + backlog, n_storm, 'add', 120)
            self.loopstorm('remove', base, backlog + n_storm)
            self.loop_ranges.remove((base, backlog + n_storm))
            miss += self.wait_done(base, backlog + n_storm, 'remove', 120)
            recs = probe.finish()
            self.helpers.discard(probe.proc.pid)
            self.remove_leftover_nodes(base, backlog + n_storm)
            _, unmatched, last, done = self.latencies(recs, base, backlog, 'add')
            times = sorted([t_cont] + list(done.values()))
            f = {'not_done': len(miss), 'unmatched': unmatched, 'lost': recs['lost'],
                 'ms': (last - t_cont) / 1e6 if last and not unmatched else None,
                 'stall_ms': max(b - a for a, b in zip(times, times[1:])) / 1e6 if len(times) > 1 else None}
            if n_storm:
                _, s_unmatched, _, s_done = self.latencies(recs, base + backlog, n_storm, 'add')
                f['storm_unmatched'] = s_unmatched
                f['overtaking'] = sum(1 for t in s_done.values() if last and t < last)
            res[phase] = f
        self.result['fairness'] = res

    def idle_memory(self, key):
        time.sleep(0.5)
        self.result[key] = self.daemon.memory()

    def scale(self):
        out = {}
        once = self.e.get('once')
        for n, sysfs in self.cfg['sysfs_trees']:
            mp = f'/run/bench/scale-dev-{n}'
            os.makedirs(mp)
            mount('tmpfs', mp, opts='mode=755')
            argv = self.x(once, dev=mp, run='/run/bench/scale-run', sysfs=sysfs)
            os.makedirs('/run/bench/scale-run', exist_ok=True)
            p = subprocess.run([f'{self.build}/bench/measure'] + argv, stdin=self.null, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            ms, maxrss, user, sys_s, code = p.stdout.split()[-5:]
            nodes = sum(len(f) for _, _, f in os.walk(mp))
            out[str(n)] = {'devices': n, 'ms': float(ms), 'cpu_s': float(user) + float(sys_s),
                           'maxrss_kib': int(maxrss), 'nodes': nodes, 'exit': int(code),
                           'stderr': p.stderr[-500:] if int(code) else ''}
            run(['umount', mp])
            os.rmdir(mp)
            run(['rm', '-rf', '/run/bench/scale-run'])
        self.result['scale'] = out

    def callgrind(self):
        out = {}
        once = self.e.get('once')
        for n, sysfs in self.cfg['callgrind_trees']:
            mp = f'/run/bench/cg-dev-{n}'
            os.makedirs(mp)
            mount('tmpfs', mp, opts='mode=755')
            os.makedirs('/run/bench/cg-run', exist_ok=True)
            cg = f'/run/bench/callgrind.{n}'
            argv = ['valgrind', '--tool=callgrind', f'--callgrind-out-file={cg}'] + \
                self.x(once, dev=mp, run='/run/bench/cg-run', sysfs=sysfs)
            p = subprocess.run(argv, stdin=self.null, stdout=self.null, stderr=subprocess.PIPE)
            ir = None
            if p.returncode == 0:
                with open(cg) as f:
                    for line in f:
                        if line.startswith('summary:') or line.startswith('totals:'):
                            ir = int(line.split()[1])
            out[str(n)] = {'devices': n, 'ir': ir, 'exit': p.returncode}
            run(['umount', mp])
            os.rmdir(mp)
            run(['rm', '-rf', '/run/bench/cg-run'])
        ns = sorted(out.values(), key=lambda v: v['devices'])
        if len(ns) >= 2 and all(v['ir'] for v in ns):
            lo, hi = ns[0], ns[-1]
            out['ir_per_device'] = (hi['ir'] - lo['ir']) / (hi['devices'] - lo['devices'])
        self.result['callgrind'] = out

    def callgrind_window(self, what):
        """Instructions the daemon executed while what() ran (callgrind counters zeroed before,
        dumped after)."""
        pid = str(self.daemon.pid)
        run(['callgrind_control', '-z', pid], stdin=self.null, stdout=self.null, stderr=self.null)
        what()
        before = set(os.listdir('/run/bench'))
        run(['callgrind_control', '-d', pid], stdin=self.null, stdout=self.null, stderr=self.null)
        dumps = sorted(set(os.listdir('/run/bench')) - before)
        if not dumps:
            raise RuntimeError('callgrind wrote no dump')
        with open(os.path.join('/run/bench', dumps[-1])) as f:
            for line in f:
                if line.startswith('totals:') or line.startswith('summary:'):
                    return int(line.split()[1])
        raise RuntimeError('no totals in the callgrind dump')

    def callgrind_live(self):
        """The daemon itself under callgrind: instructions per uevent of a live coldplug and of
        a storm of loop-device adds (2 uevents each), rules as in the entry."""
        self.start_daemon()
        res = {}
        ir = self.callgrind_window(self.coldplug)
        c = self.result.pop('coldplug')
        if c.get('uevents_seen'):
            res['coldplug_ir'] = ir
            res['coldplug_events'] = c['uevents_seen']
            res['coldplug_ir_per_event'] = ir / c['uevents_seen']
        n = self.cfg['callgrind_storm']
        base = self.cfg['loop_base']

        def add():
            self.loop_ranges.append((base, n))
            self.loopstorm('add', base, n)
            left = self.wait_done(base, n, 'add', self.timeout)
            if left:
                raise RuntimeError(f'{len(left)} devices not processed under callgrind')
        ir = self.callgrind_window(add)
        res['storm_ir'] = ir
        res['storm_events'] = 2 * n
        res['storm_ir_per_event'] = ir / (2 * n)
        self.loopstorm('remove', base, n)
        self.loop_ranges.remove((base, n))
        self.wait_done(base, n, 'remove', self.timeout)
        self.remove_leftover_nodes(base, n)
        self.result['callgrind_live'] = res

    def run_workloads(self):
        self.setup_mounts()
        w = self.cfg['workloads']
        if 'callgrind-live' in w:
            self.callgrind_live()
            return
        if 'scale' in w or 'callgrind' in w:
            if 'scale' in w:
                self.scale()
            if 'callgrind' in w:
                self.callgrind()
            return
        self.start_daemon()
        self.result['idle_start'] = self.daemon.memory()
        if 'coldplug' in w:
            self.coldplug()
        self.idle_memory('idle_before')
        base = self.cfg['loop_base']
        if 'storm' in w:
            self.result['storms'] = {}
            for n in self.cfg['storms']:
                self.result['storms'][str(n)] = self.storm(n, base)
                if not self.daemon.alive():
                    raise RuntimeError('daemon died during the storm: ' + self.daemon_log())
        if 'storm' in w and self.e.get('node_figure'):
            # the second finish line, in a storm of its own so that the first one's probe wakes
            # for the broadcasts only, as it does for every other udev-compatible daemon
            n = max(self.cfg['storms'])
            self.result['storms_node'] = {str(n): self.storm(n, base, 'node')}
        if 'drain' in w:
            self.drain(self.cfg['drain'], base)
        if 'fairness' in w:
            self.fairness(self.cfg['fair_backlog'], self.cfg['fair_storm'], base)
        self.idle_memory('idle_after')
        if not self.daemon.alive():
            raise RuntimeError('daemon died: ' + self.daemon_log())

    def finish(self):
        # A second Ctrl-C must not cut the clean-up short.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for base, count in self.loop_ranges:
            subprocess.run([f'{self.build}/bench/loopstorm', '--control', '/run/bench/loop-control',
                            '--base', str(base), '--count', str(count), 'cleanup'],
                           stdin=self.null, stdout=self.null)
        self.loop_ranges = []
        if self.daemon:
            self.daemon.signal_tree(signal.SIGCONT)
            self.daemon.stop()
            ru = self.daemon.rusage
            if ru:
                self.result['total_cpu_s'] = ru.ru_utime + ru.ru_stime
            self.result['exit_status'] = self.daemon.proc.returncode


def _interrupted(*_):
    raise KeyboardInterrupt


def main():
    cfg = json.loads(sys.argv[1])
    null_fd = os.open('/dev/null', os.O_RDWR)  # before /dev is replaced
    sess = Session(cfg, null_fd)
    # SIGTERM from bench/run: unwind through finally, so loop devices are removed.
    signal.signal(signal.SIGTERM, _interrupted)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with SIGINT ignored
    try:
        sess.run_workloads()
    except BaseException as e:  # report, never leave a loop device behind
        sess.result['error'] = f'{type(e).__name__}: {e}'
        sess.result['traceback'] = traceback.format_exc()[-3000:]
    finally:
        sess.finish()
    try:
        sys.stdout.write(json.dumps(sess.result) + '\n')
        sys.stdout.flush()
    except BrokenPipeError:  # bench/run was interrupted and stopped reading
        pass


if __name__ == '__main__':
    main()
