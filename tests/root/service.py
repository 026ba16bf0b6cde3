#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# devmand as a system service, against the live kernel in private mount and network namespaces:
# readiness (sd_notify, --ready-fd, --daemon), socket activation (LISTEN_FDS), log targets
# (console, kmsg, syslog) and a run-time log level change. Inside the mount namespace /dev is a
# private tmpfs (with the host's null bound into it), so /dev/log and /dev/kmsg are the test's.
# Usage: service.py BUILDDIR  (root; exits 77 otherwise)
import fcntl
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time

NETLINK_KOBJECT_UEVENT = 15
NS_MARK = 'DEVMAN_SERVICE_TEST_NS'

if os.geteuid() != 0:
    print('not root: skipped')
    sys.exit(77)
if not os.environ.get(NS_MARK):
    if not shutil.which('unshare'):
        print('no unshare: skipped')
        sys.exit(77)
    os.environ[NS_MARK] = '1'
    os.execvp('unshare', ['unshare', '--mount', '--net', '--propagation', 'private',
                          sys.executable, os.path.abspath(__file__)] + sys.argv[1:])

build = os.path.abspath(sys.argv[1])
devmand = os.path.join(build, 'daemon', 'devmand')
devmanadm = os.path.join(build, 'daemon', 'devmanadm')
tmp = tempfile.mkdtemp(prefix='devman-service.')
failures = []


def check(cond, what):
    print(('ok - ' if cond else 'FAIL - ') + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def sh(*args):
    subprocess.run(args, check=True)


# A private /dev: only inside our own mount namespace (propagation private, set by unshare).
hostdev = os.path.join(tmp, 'hostdev')
os.mkdir(hostdev)
sh('mount', '--bind', '/dev', hostdev)
sh('mount', '-t', 'tmpfs', '-o', 'mode=755', 'devman-test-dev', '/dev')
open('/dev/null', 'w').close()
sh('mount', '--bind', os.path.join(hostdev, 'null'), '/dev/null')
sh('umount', '-l', hostdev)
open('/dev/kmsg', 'w').close()  # a regular file: what devmand writes there stays readable

rules = os.path.join(tmp, 'rules')
os.mkdir(rules)


class Instance:
    """Private --dev and --run directories for one devmand."""

    def __init__(self, name):
        self.root = os.path.join(tmp, name)
        self.dev = os.path.join(self.root, 'dev')
        self.run = os.path.join(self.root, 'run')
        self.control = os.path.join(self.run, 'control')
        os.makedirs(self.dev)
        os.makedirs(self.run)

    def args(self, *extra):
        return [devmand, '--dev', self.dev, '--run', self.run, '--rules-dir', rules] + list(extra)

    def adm(self, *args, timeout=10):
        return subprocess.run([devmanadm, '--dev', self.dev, '--run', self.run] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)

    def ping(self):
        return self.adm('control', '--ping', '--timeout=2').returncode == 0

    def wait_ping(self, secs=10):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            if os.path.exists(self.control) and self.ping():
                return True
            time.sleep(0.05)
        return False


def stop(proc, inst):
    inst.adm('control', '--exit')
    try:
        return proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


def trigger_null():
    with open('/sys/devices/virtual/mem/null/uevent', 'w') as f:
        f.write('change')


def wait_for(pred, secs=10):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_sd_notify():
    inst = Instance('notify')
    path = os.path.join(tmp, 'notify.sock')
    ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    ns.bind(path)
    env = dict(os.environ, NOTIFY_SOCKET=path)
    proc = subprocess.Popen(inst.args(), env=env, stderr=subprocess.DEVNULL)
    ready = False
    msgs = []
    end = time.monotonic() + 20
    while time.monotonic() < end and not ready:
        r, _, _ = select.select([ns], [], [], 0.5)
        if not r:
            if proc.poll() is not None:
                break
            continue
        msg = ns.recv(4096).decode()
        msgs.append(msg)
        if 'READY=1' in msg.split('\n'):
            # the moment READY=1 arrives: the control socket must exist and answer
            check(os.path.exists(inst.control), 'sd_notify: control socket exists when READY=1 arrives')
            check(inst.ping(), 'sd_notify: ping answers when READY=1 arrives')
            ready = True
    check(ready, 'sd_notify: READY=1 received (%r)' % msgs)
    check(stop(proc, inst) == 0, 'sd_notify: devmand exits 0 on control --exit')
    ns.close()


def test_ready_fd():
    inst = Instance('readyfd')
    rfd, wfd = os.pipe()
    proc = subprocess.Popen(inst.args('--ready-fd', str(wfd)), pass_fds=(wfd,), stderr=subprocess.DEVNULL)
    os.close(wfd)
    data = b''
    control_at_newline = ping_at_newline = False
    end = time.monotonic() + 20
    while time.monotonic() < end:
        r, _, _ = select.select([rfd], [], [], 0.5)
        if not r:
            if proc.poll() is not None:
                break
            continue
        chunk = os.read(rfd, 64)
        if not chunk:
            break  # devmand closed it after writing
        if not data:
            control_at_newline = os.path.exists(inst.control)
            ping_at_newline = inst.ping()
        data += chunk
    os.close(rfd)
    check(data == b'\n', '--ready-fd: exactly one newline, then the fd is closed (%r)' % data)
    check(control_at_newline, '--ready-fd: control socket exists when the newline arrives')
    check(ping_at_newline, '--ready-fd: ping answers when the newline arrives')
    check(stop(proc, inst) == 0, '--ready-fd: devmand exits 0 on control --exit')


def find_daemon(run):
    for p in os.listdir('/proc'):
        if not p.isdigit():
            continue
        try:
            with open('/proc/%s/cmdline' % p, 'rb') as f:
                argv = f.read().split(b'\0')
        except OSError:
            continue
        if argv and argv[0] == devmand.encode() and run.encode() in argv:
            return int(p)
    return None


def proc_stat(pid):
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return int(fields[1]), int(fields[3])  # ppid, session


def test_daemon():
    inst = Instance('daemon')
    open('/dev/kmsg', 'w').close()
    starter = subprocess.Popen(inst.args('--daemon'), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    rc = starter.wait(timeout=30)
    check(rc == 0, '--daemon: the starting process exits 0 (%s)' % rc)
    check(os.path.exists(inst.control), '--daemon: control socket exists when the starter exits')
    pid = find_daemon(inst.run)
    if not check(pid is not None, '--daemon: the daemon runs'):
        return
    ppid, sid = proc_stat(pid)
    check(sid == pid, '--daemon: the daemon leads a new session')
    check(ppid not in (os.getpid(), starter.pid), '--daemon: the daemon is not our child (ppid %d)' % ppid)
    check(inst.ping(), '--daemon: ping answers')
    # activity after ready, at debug level: none of it may reach the starter's stdout/stderr
    inst.adm('control', '--log-level=debug')
    trigger_null()
    wait_for(lambda: os.path.exists(os.path.join(inst.dev, 'null')))
    # EOF on both pipes means the daemon holds no copy of them any more: nothing can follow
    try:
        out, err = starter.communicate(timeout=10)
        eof = True
    except subprocess.TimeoutExpired:
        out, err, eof = b'', b'', False
    check(eof, '--daemon: the daemon let go of the terminal (EOF on stdout and stderr)')
    check(out == b'', '--daemon: nothing on stdout (%r)' % out[:200])
    check(err == b'', '--daemon: nothing on stderr (%r)' % err[:200])
    inst.adm('control', '--exit')
    check(wait_for(lambda: not os.path.exists('/proc/%d' % pid)), '--daemon: the daemon exits on control --exit')
    # detached, it logs to auto: no /dev/log here, so the kernel log (our /dev/kmsg file)
    with open('/dev/kmsg', errors='replace') as f:
        kmsg = f.read()
    check('devmand[%d]: Exit requested through the control socket' % pid in kmsg,
          '--daemon: after ready, messages go to kmsg (auto target)')


def test_daemon_fails():
    inst = Instance('daemon-fails')
    open('/dev/kmsg', 'w').close()
    missing = os.path.join(inst.root, 'no-such-dir')
    starter = subprocess.run([devmand, '--daemon', '--dev', missing, '--run', inst.run, '--rules-dir', rules],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
    check(starter.returncode == 1, '--daemon: the starting process exits 1 when the daemon cannot start')
    check('Cannot open the /dev root %s' % missing in starter.stderr,
          '--daemon: the reason reaches the terminal, not only the system log (%r)' % starter.stderr)
    check(find_daemon(inst.run) is None, '--daemon: no daemon is left running')


def test_socket_activation():
    inst = Instance('activation')
    kern = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_KOBJECT_UEVENT)
    kern.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    kern.bind((0, 1))
    ctrl = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    ctrl.bind(inst.control)
    ctrl.listen(16)
    ino_before = os.stat(inst.control).st_ino
    # raised before devmand runs: it waits in the passed kernel socket's buffer
    trigger_null()
    kfd, cfd = kern.fileno(), ctrl.fileno()

    def child():
        # the passed fds go to 3 and 4 (LISTEN_FDS start); dup high first so they cannot clash
        hk, hc = fcntl.fcntl(kfd, fcntl.F_DUPFD, 100), fcntl.fcntl(cfd, fcntl.F_DUPFD, 100)
        os.dup2(hk, 3)
        os.dup2(hc, 4)
        os.environ['LISTEN_PID'] = str(os.getpid())
        os.environ['LISTEN_FDS'] = '2'

    log = open(os.path.join(tmp, 'activation.log'), 'wb')
    # the service manager keeps its copies of the sockets across restarts: so do we
    proc = subprocess.Popen(inst.args('--log-level=debug'), pass_fds=(3, 4), preexec_fn=child, stderr=log)
    node = os.path.join(inst.dev, 'null')
    check(wait_for(lambda: os.path.exists(node), 20),
          'socket activation: an event raised before start is processed from the passed kernel socket')
    check(inst.ping(), 'socket activation: ping answers through the passed control socket')
    check(os.stat(inst.control).st_ino == ino_before, 'socket activation: the passed control socket was kept, not re-made')
    os.unlink(node)
    trigger_null()
    check(wait_for(lambda: os.path.exists(node)), 'socket activation: a change raised while running is processed')
    check(stop(proc, inst) == 0, 'socket activation: devmand exits 0 on control --exit')
    check(os.path.exists(inst.control) and os.stat(inst.control).st_ino == ino_before,
          'socket activation: the socket file stays after exit (it is the service manager\'s)')
    # a restart: what happens while devmand is down waits in the passed sockets
    os.unlink(node)
    trigger_null()
    proc = subprocess.Popen(inst.args('--log-level=debug'), pass_fds=(3, 4), preexec_fn=child, stderr=log)
    check(wait_for(lambda: os.path.exists(node), 20),
          'socket activation restart: an event raised while devmand was down is processed')
    check(inst.ping(), 'socket activation restart: ping answers through the same control socket')
    check(stop(proc, inst) == 0, 'socket activation restart: devmand exits 0 on control --exit')
    kern.close()
    ctrl.close()
    log.close()
    with open(log.name, errors='replace') as f:
        text = f.read()
    check('Socket activation' not in text, 'socket activation: no fd was rejected')
    # the node could come back some other way: the log shows each change came as an event
    n = text.count('Queueing change /devices/virtual/mem/null')
    check(n >= 3, 'socket activation: all three changes were queued as events (%d)' % n)


def test_settle_across_kill():
    """devmanadm settle waits through a SIGKILL of the daemon: the restarted one (the service
    manager keeps the sockets) answers it once the events the killed one lost are done."""
    inst = Instance('settle-kill')
    slow = os.path.join(tmp, 'slow-rules')
    os.makedirs(slow)
    with open(os.path.join(slow, '50-slow.rules'), 'w') as f:
        f.write('SUBSYSTEM=="mem", KERNEL=="null", PROGRAM=="/bin/sleep 2", ENV{DEVMAN_SLOW}="1"\n')
    kern = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_KOBJECT_UEVENT)
    kern.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    kern.bind((0, 1))
    ctrl = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    ctrl.bind(inst.control)
    ctrl.listen(16)
    kfd, cfd = kern.fileno(), ctrl.fileno()

    def child():
        hk, hc = fcntl.fcntl(kfd, fcntl.F_DUPFD, 100), fcntl.fcntl(cfd, fcntl.F_DUPFD, 100)
        os.dup2(hk, 3)
        os.dup2(hc, 4)
        os.environ['LISTEN_PID'] = str(os.getpid())
        os.environ['LISTEN_FDS'] = '2'

    log = open(os.path.join(tmp, 'settle-kill.log'), 'wb')
    args = inst.args('--rules-dir', slow, '--log-level=notice')
    proc = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=child, stderr=log)
    check(inst.wait_ping(), 'settle across a kill: devmand answers')
    trigger_null()  # its PROGRAM runs 2 s
    time.sleep(0.5)
    settle = subprocess.Popen([devmanadm, '--dev', inst.dev, '--run', inst.run, 'settle', '--timeout=60'])
    time.sleep(0.5)
    proc.kill()
    proc.wait()
    trigger_null()  # raised while no daemon runs: it waits in the kept kernel socket
    time.sleep(0.3)
    check(settle.poll() is None, 'settle across a kill: settle still waits while no daemon runs')
    restarted = time.monotonic()
    proc = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=child, stderr=log)
    rc = settle.wait(timeout=90)
    waited = time.monotonic() - restarted
    check(rc == 0, 'settle across a kill: settle returns 0 (%s)' % rc)
    # the restarted daemon processes null again (a crash: every device), its PROGRAM takes 2 s
    check(waited >= 1.5, 'settle across a kill: settle returned %.1f s after the restart, not before '
          'the restarted daemon was done' % waited)
    entry = os.path.join(inst.run, 'data', 'c1:3')
    check(os.path.exists(entry) and 'E:DEVMAN_SLOW=1' in open(entry).read().split('\n'),
          'settle across a kill: null was processed by the restarted daemon')
    check(stop(proc, inst) == 0, 'settle across a kill: devmand exits 0')
    log.close()
    with open(log.name, errors='replace') as f:
        text = f.read()
    # null's waiting change event processes it: no synthetic add of its own (nor of any device
    # with an event waiting)
    m = re.search(r'(\d+) devices to process again, (\d+) more have events waiting', text)
    check(m and int(m.group(1)) > 0 and int(m.group(2)) >= 1,
          'settle across a kill: the restarted daemon adds the devices without a waiting event (%s)'
          % (m.group(0) if m else 'no reconcile line'))
    kern.close()
    ctrl.close()


def test_console_and_log_level():
    inst = Instance('console')
    log = open(os.path.join(tmp, 'console.log'), 'wb')
    proc = subprocess.Popen(inst.args('--log-target=console', '--log-level=info'), stderr=log)
    check(inst.wait_ping(), 'console: devmand answers')
    # the control for the socket activation test: start-up alone does not make the node
    time.sleep(0.3)
    check(not os.path.exists(os.path.join(inst.dev, 'null')), 'console: no node before an event')
    trigger_null()
    wait_for(lambda: os.path.exists(os.path.join(inst.dev, 'null')))
    with open(log.name, errors='replace') as f:
        before = f.read()
    check('Queueing' not in before, 'console: no debug lines at level info')
    check(inst.adm('control', '--log-level=debug').returncode == 0, 'control --log-level=debug accepted')
    os.unlink(os.path.join(inst.dev, 'null'))
    trigger_null()
    wait_for(lambda: os.path.exists(os.path.join(inst.dev, 'null')))
    rc = stop(proc, inst)
    log.close()
    with open(log.name, errors='replace') as f:
        after = f.read()[len(before):]
    check('Queueing change /devices/virtual/mem/null' in after,
          'console: debug lines on stderr after control --log-level=debug')
    check('Exit requested through the control socket' in after, 'console: info lines on stderr')
    check(rc == 0, 'console: devmand exits 0')


def test_kmsg():
    inst = Instance('kmsg')
    open('/dev/kmsg', 'w').close()
    log = open(os.path.join(tmp, 'kmsg-stderr.log'), 'wb')
    proc = subprocess.Popen(inst.args('--log-target=kmsg', '--log-level=info'), stderr=log)
    check(inst.wait_ping(), 'kmsg: devmand answers')
    rc = stop(proc, inst)
    log.close()
    with open('/dev/kmsg', errors='replace') as f:
        kmsg = f.read()
    want = '<%d>devmand[%d]: Exit requested through the control socket\n' % (3 * 8 + 6, proc.pid)
    check(want in kmsg, 'kmsg: "<30>devmand[PID]: message" records in /dev/kmsg (%r)' % kmsg[-300:])
    with open(log.name, errors='replace') as f:
        check('Exit requested' not in f.read(), 'kmsg: nothing of it on stderr')
    check(rc == 0, 'kmsg: devmand exits 0')


def test_syslog():
    inst = Instance('syslog')
    sl = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sl.bind('/dev/log')
    log = open(os.path.join(tmp, 'syslog-stderr.log'), 'wb')
    proc = subprocess.Popen(inst.args('--log-target=syslog', '--log-level=info'), stderr=log)
    check(inst.wait_ping(), 'syslog: devmand answers')
    rc = stop(proc, inst)
    log.close()
    records = []
    while select.select([sl], [], [], 0.2)[0]:
        records.append(sl.recv(65536).decode(errors='replace'))
    sl.close()
    os.unlink('/dev/log')
    want = '<%d>devmand[%d]: Exit requested through the control socket' % (3 * 8 + 6, proc.pid)
    check(want in records, 'syslog: one datagram per message on /dev/log (%r)' % records[-3:])
    with open(log.name, errors='replace') as f:
        check('Exit requested' not in f.read(), 'syslog: nothing of it on stderr')
    check(rc == 0, 'syslog: devmand exits 0')

    # no syslog daemon listening: the messages fall back to the console
    inst = Instance('syslog-missing')
    log = open(os.path.join(tmp, 'syslog-missing.log'), 'wb')
    proc = subprocess.Popen(inst.args('--log-target=syslog', '--log-level=info'), stderr=log)
    check(inst.wait_ping(), 'syslog without /dev/log: devmand answers')
    rc = stop(proc, inst)
    log.close()
    with open(log.name, errors='replace') as f:
        text = f.read()
    check('Exit requested through the control socket' in text, 'syslog without /dev/log: messages go to stderr instead')
    check('Cannot log to syslog: No such file or directory; logging to the console' in text,
          'syslog without /dev/log: devmand says why (%r)' % text[:200])
    check(rc == 0, 'syslog without /dev/log: devmand exits 0')


try:
    if not os.path.exists('/sys/devices/virtual/mem/null/uevent'):
        print('no /sys/devices/virtual/mem/null: skipped')
        sys.exit(77)
    for t in (test_sd_notify, test_ready_fd, test_daemon, test_daemon_fails, test_socket_activation,
              test_settle_across_kill, test_console_and_log_level, test_kmsg, test_syslog):
        print('# ' + t.__name__, flush=True)
        t()
finally:
    for inst in os.listdir(tmp):
        pid = find_daemon(os.path.join(tmp, inst, 'run'))
        if pid:
            os.kill(pid, 9)
    shutil.rmtree(tmp, ignore_errors=True)

print('%d failures' % len(failures))
sys.exit(1 if failures else 0)
