# SPDX-License-Identifier: MIT
"""The daemons the bench measures, one table entry each.

Every entry runs alone inside private mount/net/pid namespaces where /dev and /run are private
mounts, so {dev} is /dev and {run} is /run *inside* the session. Placeholders in commands:
{build} (meson build dir), {dev}, {run}, {sysfs} (a generated sysfs tree, --once only),
{rules} (the session's rules directory: an empty one, or /usr/lib/udev/rules.d for 'stock'),
{ready_fd} (with 'ready_fd': True, the write end of a pipe the daemon writes a newline to when ready).

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
  done        how a storm is known to be processed: 'node' (the node exists / is gone) or
              'udevdb' (/run/udev/data/b7:N exists / is gone)
  once        command for the generated-sysfs coldplug (workload 3); None = not measured
  callgrind   True when the daemon is one process, so `valgrind --tool=callgrind` of it counts
              every instruction spent on an event (workload callgrind-live)
  startup_scan True when the daemon fills /dev when it starts: /dev is emptied before coldplug
  requires    files that must exist for the entry to run (else it is reported as absent)
  devman      True for devman's own entries (ratios and targets are computed for these)
"""

UDEVD = '/lib/systemd/systemd-udevd'

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
        'done': 'node',
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
        'done': 'node',
        'once': None,
        'requires': ['/bin/busybox'],
    },
    'udevd-empty': {
        'label': 'systemd-udevd 252, empty rules',
        'rules': 'empty',
        'dev': 'devtmpfs',
        'cmd': [UDEVD],
        'ready': ['udevadm', 'control', '--ping'],
        'trigger': ['udevadm', 'trigger', '--action=add'],
        'settle': ['udevadm', 'settle', '--timeout=120'],
        'done': 'udevdb',
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
        'done': 'udevdb',
        'once': None,
        'requires': [UDEVD],
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
        'done': 'node',
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
        'done': 'node',
        'once': ['{build}/daemon/devmand', '--once', '--sysfs', '{sysfs}', '--dev', '{dev}', '--run', '{run}',
                 '--rules-dir', '{rules}', '--log-level', 'err'],
        'requires': ['{build}/daemon/devmand', '{build}/daemon/devmanadm'],
        'devman': True,
    },
}

# Which peer each devman entry is compared with for the ratio columns, and for targets.
DEVMAN_PEERS = {
    'devman-empty': ['floor', 'mdev', 'udevd-empty'],
    'devman-stock': ['floor', 'mdev', 'udevd-stock'],
}


