/* SPDX-License-Identifier: MIT */
/*
 * The bench's physical limit: a device manager with no rules. As a daemon it listens to the
 * kernel's uevents (netlink group 1) and makes or removes DEVNAME under --dev from MAJOR/MINOR;
 * with --once it walks a (real or generated) sysfs tree and makes a node for every device that
 * has a `dev` attribute. Nothing else: no database, no links, no permissions.
 *
 *   floor --dev DIR [--ready FILE]          daemon; FILE is created once the socket is bound
 *   floor --once --sysfs DIR --dev DIR      coldplug a sysfs tree, print "devices N nodes N"
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "macros.h"
#include "uevent-msg.h"

#define RCVBUF (64 * 1024 * 1024)
#define MSG_MAX (64 * 1024)

/* A DEVNAME is relative, has no empty, "." or ".." component. */
static bool devname_ok(const char *n)
{
        const char *p = n;

        if (isempty(n) || *n == '/')
                return false;
        while (*p) {
                size_t l = strcspn(p, "/");
                if (l == 0 || (l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                p += l;
                if (*p == '/')
                        p++;
        }
        return true;
}

/* Creates the parent directories of name (relative to dirfd). 0 or -errno. */
static int mkdir_parents_at(int dirfd, const char *name)
{
        _cleanup_free_ char *copy = strdup(name);
        char *slash;

        if (!copy)
                return -ENOMEM;
        for (slash = strchr(copy, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = '\0';
                if (mkdirat(dirfd, copy, 0755) < 0 && errno != EEXIST)
                        return -errno;
                *slash = '/';
        }
        return 0;
}

static int make_node(int devfd, const char *devname, bool block, unsigned maj, unsigned min)
{
        mode_t mode = (block ? S_IFBLK : S_IFCHR) | 0600;
        int r;

        if (!devname_ok(devname))
                return -EINVAL;
        if (mknodat(devfd, devname, mode, makedev(maj, min)) >= 0 || errno == EEXIST)
                return 0;
        if (errno != ENOENT)
                return -errno;
        r = mkdir_parents_at(devfd, devname);
        if (r < 0)
                return r;
        if (mknodat(devfd, devname, mode, makedev(maj, min)) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

static int handle_event(int devfd, const struct uevent_msg *m)
{
        if (!m->devname || !m->major || !m->minor)
                return 0;
        if (streq(m->action, "remove")) {
                if (!devname_ok(m->devname))
                        return -EINVAL;
                if (unlinkat(devfd, m->devname, 0) < 0 && errno != ENOENT)
                        return -errno;
                return 0;
        }
        if (!streq(m->action, "add") && !streq(m->action, "change"))
                return 0;
        return make_node(devfd, m->devname, streq_ptr(m->subsystem, "block"),
                         (unsigned)strtoul(m->major, NULL, 10), (unsigned)strtoul(m->minor, NULL, 10));
}

static int run_daemon(int devfd, const char *ready)
{
        struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = 1};
        _cleanup_close_ int sock = -1, sfd = -1;
        _cleanup_free_ char *buf = malloc(MSG_MAX + 1);
        int size = RCVBUF;
        sigset_t mask;

        if (!buf)
                return -ENOMEM;
        sock = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
        if (sock < 0)
                return -errno;
        if (setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
                (void)setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
        if (bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
                return -errno;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        sfd = signalfd(-1, &mask, SFD_CLOEXEC);
        if (sfd < 0)
                return -errno;

        if (ready) {
                int fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                if (fd < 0)
                        return -errno;
                close(fd);
        }

        for (;;) {
                struct pollfd p[2] = {{.fd = sock, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
                struct uevent_msg m;
                ssize_t n;

                if (poll(p, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (p[1].revents)
                        return 0;
                n = recv(sock, buf, MSG_MAX, MSG_DONTWAIT);
                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                continue;
                        if (errno == ENOBUFS) {
                                fprintf(stderr, "floor: receive queue overflowed, events lost\n");
                                continue;
                        }
                        return -errno;
                }
                if (uevent_msg_parse(buf, (size_t)n, &m) < 0 || m.from_udev)
                        continue;
                if (handle_event(devfd, &m) < 0)
                        fprintf(stderr, "floor: %s %s: %s\n", m.action, strna(m.devname), strerror(errno));
        }
}

struct walk_stats {
        unsigned long devices, nodes;
};

/* True when the `subsystem` link of the device directory names the block class. */
static bool is_block(int dirfd)
{
        for (size_t size = 256; size <= 65536; size *= 4) {
                _cleanup_free_ char *target = malloc(size);
                ssize_t l;

                if (!target)
                        return false;
                l = readlinkat(dirfd, "subsystem", target, size);
                if (l < 0)
                        return false;
                if ((size_t)l < size) {
                        target[l] = '\0';
                        const char *base = strrchr(target, '/');
                        return streq(base ? base + 1 : target, "block");
                }
        }
        return false;
}

/* Reads "MAJOR=…", "MINOR=…", "DEVNAME=…" from a uevent file and makes the node. */
static int coldplug_one(int dirfd, int devfd, struct walk_stats *st)
{
        _cleanup_free_ char *line = NULL, *devname = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        unsigned maj = 0, min = 0;
        bool has_major = false, has_minor = false;
        size_t cap = 0;
        int fd;

        fd = openat(dirfd, "uevent", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        f = fdopen(fd, "re");
        if (!f) {
                close(fd);
                return -errno;
        }
        st->devices++;
        while (getline(&line, &cap, f) > 0) {
                const char *v;
                line[strcspn(line, "\n")] = '\0';
                if ((v = startswith(line, "MAJOR="))) {
                        maj = (unsigned)strtoul(v, NULL, 10);
                        has_major = true;
                } else if ((v = startswith(line, "MINOR="))) {
                        min = (unsigned)strtoul(v, NULL, 10);
                        has_minor = true;
                } else if ((v = startswith(line, "DEVNAME="))) {
                        free(devname);
                        devname = strdup(v);
                        if (!devname)
                                return -ENOMEM;
                }
        }
        if (!has_major || !has_minor || !devname)
                return 0;
        if (make_node(devfd, devname, is_block(dirfd), maj, min) < 0)
                return 0;
        st->nodes++;
        return 0;
}

/* Depth-first walk over real directories (never symlinks), as the kernel's devices tree is. */
static int walk(int dirfd, int devfd, struct walk_stats *st)
{
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int r, fd;

        r = coldplug_one(dirfd, devfd, st);
        if (r < 0)
                return r;
        fd = dup(dirfd);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -errno;
        }
        while ((de = readdir(d))) {
                _cleanup_close_ int sub = -1;
                if (de->d_type != DT_DIR || de->d_name[0] == '.')
                        continue;
                sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub < 0)
                        continue;
                r = walk(sub, devfd, st);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int run_once(const char *sysfs, int devfd)
{
        _cleanup_free_ char *devices = NULL;
        _cleanup_close_ int fd = -1;
        struct walk_stats st = {};
        int r;

        if (asprintf(&devices, "%s/devices", sysfs) < 0)
                return -ENOMEM;
        fd = open(devices, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = walk(fd, devfd, &st);
        if (r < 0)
                return r;
        printf("devices %lu nodes %lu\n", st.devices, st.nodes);
        return 0;
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                {"dev", required_argument, NULL, 'd'},
                {"sysfs", required_argument, NULL, 's'},
                {"once", no_argument, NULL, 'o'},
                {"ready", required_argument, NULL, 'r'},
                {},
        };
        const char *dev = NULL, *sysfs = "/sys", *ready = NULL;
        _cleanup_close_ int devfd = -1;
        bool once = false;
        int c, r;

        while ((c = getopt_long(argc, argv, "", opts, NULL)) >= 0) {
                switch (c) {
                case 'd': dev = optarg; break;
                case 's': sysfs = optarg; break;
                case 'o': once = true; break;
                case 'r': ready = optarg; break;
                default: return 2;
                }
        }
        if (!dev) {
                fprintf(stderr, "usage: floor --dev DIR [--ready FILE] | floor --once --sysfs DIR --dev DIR\n");
                return 2;
        }
        devfd = open(dev, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (devfd < 0) {
                fprintf(stderr, "floor: %s: %s\n", dev, strerror(errno));
                return 1;
        }
        umask(0);
        r = once ? run_once(sysfs, devfd) : run_daemon(devfd, ready);
        if (r < 0) {
                fprintf(stderr, "floor: %s\n", strerror(-r));
                return 1;
        }
        return 0;
}
