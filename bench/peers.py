# SPDX-License-Identifier: MIT
"""The daemons the bench measures, one table entry each.

Every entry runs alone inside private mount/net/pid namespaces where /dev and /run are private
mounts, so {dev} is /dev and {run} is /run *inside* the session. Placeholders in commands:
{build} (meson build dir), {dev}, {run}, {sysfs} (a generated sysfs tree, --once only),
{rules} (the session's rules directory: an empty one, or /usr/lib/udev/rules.d for 'stock'),
{ready_fd} (with 'ready_fd': True, the write end of a pipe the daemon writes a newline to when ready),
{peers} (the peers built from the shared directory, bench/peerbuild.py: SCRATCH/peers).

Keys:
  label       shown in tables
  rules       'none' | 'empty' | 'stock': what the session binds over the rules directories
  dev         'tmpfs'   a private tmpfs /dev; the daemon makes the nodes (latency: node exists)
              'devtmpfs' the kernel makes nodes (systemd-udevd): /dev is an overlay whose lower layer
                         is a devtmpfs mount and whose upper layer is a private tmpfs, so the daemon's
                         writes (modes, links) never reach the machine's /dev; latency is measured to
                         the daemon's processed event on netlink group 2
  cmd         the daemon's command line (runs in the foreground)
  ready       extra readiness command run until it succeeds (after the uevent socket is bound)
  trigger     coldplug command; None = the bench's own trigger (writes "add" to every uevent file)
  settle      command that returns when the daemon's queue is empty; None = wait for the nodes
  finish      the finish line a device is timed to: 'broadcast' (udev-compatible daemons: the
              processed event on the udev netlink group, what libudev clients wait for) or 'node'
              (node-only peers: the node exists / is gone)
  node_figure True for a 'broadcast' daemon that makes its nodes itself (devman): the node is
              timed too, as a second, labelled figure (a storm of its own, and the drain)
  removes_nodes False when the daemon leaves the nodes of removed devices (mdevd): no remove
              figure; the bench removes them before the next workload
  once        command for the generated-sysfs coldplug (workload 3); None = not measured
  callgrind   True when the daemon is one process, so `valgrind --tool=callgrind` of it counts
              every instruction spent on an event (workload callgrind-live)
  startup_scan True when the daemon fills /dev when it starts: /dev is emptied before coldplug
  requires    files that must exist for the entry to run (else it is reported as absent)
  built       the peer is built from the shared directory (bench/run --shared DIR)
  devman      True for devman's own entries (ratios and targets are computed for these)
"""

UDEVD = '/lib/systemd/systemd-udevd'
EUDEV = '{peers}/eudev/root'

DAEMONS = {
    'floor': {
        'label': 'floor (netlink->mknod)',
        'callgrind': True,
        'rules': 'none',
        'dev': 'tmpfs',
        'cmd': ['{build}/bench/floor', '--dev', '{dev}'],
        'ready': None,
        'trigger': None,
        'settle': None,
        'finish': 'node',
        'once': ['{build}/bench/floor', '--once', '--sysfs', '{sysfs}', '--dev', '{dev}'],
        'requires': ['{build}/bench/floor'],
    },
    'mdev': {
        'label': 'busybox mdev -d',
        'callgrind': True,
        'rules': 'empty',
        'dev': 'tmpfs',
        'cmd': ['busybox', 'mdev', '-d', '-f'],
        'startup_scan': True,  # populates /dev before listening; emptied before coldplug
        'ready': None,
        'trigger': None,
        'settle': None,
        'finish': 'node',
        'once': None,
        'requires': ['/bin/busybox'],
    },
    # mdevd with an empty mdev.conf: netlink to mknod at its leanest. Its kernel socket buffer
    # is raised from 1 MiB to what the others use, or the drain's 2048 queued uevents overflow it.
    'mdevd': {
        'label': 'mdevd 0.1.8.2',
        'callgrind': True,
        'rules': 'none',
        'dev': 'tmpfs',
        'cmd': ['{peers}/mdevd/mdevd', '-v', '0', '-D', '{ready_fd}', '-b', '67108864', '-f', '/run/bench/mdev.conf',
                '-d', '{dev}'],
        'ready_fd': True,
        'ready': None,
        'trigger': None,
        'settle': None,
        'finish': 'node',
        'removes_nodes': False,
        'once': None,
        'requires': ['{peers}/mdevd/mdevd'],
        'built': True,
    },
    'udevd-empty': {
        'label': 'systemd-udevd 252, empty rules',
        'rules': 'empty',
        'dev': 'devtmpfs',
        'cmd': [UDEVD],
        'ready': ['udevadm', 'control', '--ping'],
        'trigger': ['udevadm', 'trigger', '--action=add'],
        'settle': ['udevadm', 'settle', '--timeout=120'],
        'finish': 'broadcast',
        'once': None,
        'requires': [UDEVD],
    },
    'udevd-stock': {
        'label': 'systemd-udevd 252, Debian stock rules',
        'rules': 'stock',
        'dev': 'devtmpfs',
        'cmd': [UDEVD],
        'ready': ['udevadm', 'control', '--ping'],
        'trigger': ['udevadm', 'trigger', '--action=add'],
        'settle': ['udevadm', 'settle', '--timeout=120'],
        'finish': 'broadcast',
        'once': None,
        'requires': [UDEVD],
    },
    # eudev with Debian's stock rules, copied into its private root (bench/peerbuild.py): the
    # second full udev. It makes no nodes either: devtmpfs overlay, timed to its broadcast.
    'eudev-stock': {
        'label': 'eudev 3.2.14, Debian stock rules',
        'rules': 'stock',
        'dev': 'devtmpfs',
        'cmd': [EUDEV + '/usr/sbin/udevd'],
        'ready': ['test', '-S', '/run/udev/control'],
        'trigger': [EUDEV + '/usr/bin/udevadm', 'trigger', '--action=add'],
        'settle': [EUDEV + '/usr/bin/udevadm', 'settle', '--timeout=120'],
        'finish': 'broadcast',
        'once': None,
        'requires': [EUDEV + '/usr/sbin/udevd', EUDEV + '/usr/bin/udevadm'],
        'built': True,
    },
    # devman plugs in here: --rules-dir makes it read exactly the session's rules ({rules}),
    # --ready-fd tells the bench when it listens and has loaded them.
    'devman-empty': {
        'label': 'devman, empty rules',
        'callgrind': True,
        'rules': 'empty',
        'dev': 'tmpfs',
        'cmd': ['{build}/daemon/devmand', '--rules-dir', '{rules}', '--ready-fd', '{ready_fd}',
                '--log-level', 'err'],
        'ready_fd': True,
        'ready': None,
        'trigger': ['{build}/daemon/devmanadm', 'trigger', '--action=add'],
        'settle': ['{build}/daemon/devmanadm', 'settle', '--timeout=120'],
        'finish': 'broadcast',
        'node_figure': True,
        'once': ['{build}/daemon/devmand', '--once', '--sysfs', '{sysfs}', '--dev', '{dev}', '--run', '{run}',
                 '--rules-dir', '{rules}', '--log-level', 'err'],
        'requires': ['{build}/daemon/devmand', '{build}/daemon/devmanadm'],
        'devman': True,
    },
    'devman-stock': {
        'label': 'devman, Debian stock rules',
        'callgrind': True,
        'rules': 'stock',
        'dev': 'tmpfs',
        'cmd': ['{build}/daemon/devmand', '--rules-dir', '{rules}', '--ready-fd', '{ready_fd}',
                '--log-level', 'err'],
        'ready_fd': True,
        'ready': None,
        'trigger': ['{build}/daemon/devmanadm', 'trigger', '--action=add'],
        'settle': ['{build}/daemon/devmanadm', 'settle', '--timeout=120'],
        'finish': 'broadcast',
        'node_figure': True,
        'once': ['{build}/daemon/devmand', '--once', '--sysfs', '{sysfs}', '--dev', '{dev}', '--run', '{run}',
                 '--rules-dir', '{rules}', '--log-level', 'err'],
        'requires': ['{build}/daemon/devmand', '{build}/daemon/devmanadm'],
        'devman': True,
    },
}

# Which peer each devman entry is compared with for the ratio columns, and for targets.
DEVMAN_PEERS = {
    'devman-empty': ['floor', 'mdev', 'mdevd', 'udevd-empty'],
    'devman-stock': ['floor', 'mdev', 'udevd-stock', 'eudev-stock'],
}


