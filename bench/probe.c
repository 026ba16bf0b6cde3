/* SPDX-License-Identifier: MIT */
/*
 * The bench's stopwatch. Records, with CLOCK_MONOTONIC at reception, every kernel uevent
 * (netlink group 1), optionally every udev-processed event (group 2, in this net namespace)
 * and optionally every name created or deleted below a /dev directory (inotify, recursive, or
 * with --top its top directory only: the loop workloads await nodes there, and a recursive
 * watch would wake the probe for every link a daemon makes in subdirectories, a cost of the
 * stopwatch charged to the daemon it measures).
 * Records stay in memory while measuring and are written when SIGTERM/SIGINT arrives, so the
 * probe does no I/O while a storm runs. It runs SCHED_FIFO (when permitted) so that it is woken
 * as soon as a message or an inotify event is queued: a timestamp is the moment of queueing,
 * not the moment a busy CPU got around to the probe.
 * With --interval USEC it never sleeps on its sources: it wakes on its own timer every USEC and
 * reads what is queued, stamping it then (up to USEC late). A probe asleep on a socket or an
 * inotify queue is woken by the daemon's every node or broadcast, and on a virtual machine that
 * wakeup (an inter-processor interrupt) costs the daemon more than a node; when only the end of
 * a long run is measured (drain), the stopwatch must not add that to every event.
 * Output, one record a line, fields separated by tabs:
 *
 *   K|U  t_ns  action  seqnum  devpath  devname     (K: kernel, U: udev; "-" when absent)
 *   C|D  t_ns  path                                 (created / deleted, relative to --dev)
 *
 *   probe [--kernel] [--udev] [--dev DIR [--top]] [--interval USEC] [--ready FILE] --out FILE
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>

#include "macros.h"
#include "uevent-msg.h"

#define RCVBUF (64 * 1024 * 1024)
#define MSG_MAX (64 * 1024)
#define DIR_MASK (IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_ONLYDIR)

struct record {
        int64_t t;
        char kind;
        char *text; /* owned */
};

struct probe {
        struct record *recs;
        size_t n, cap;
        char **wd_path; /* owned, indexed by watch descriptor */
        size_t n_wd;
        int ino;
        unsigned long lost;
        bool top_only; /* no subdirectory watched */
};

static int64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Takes ownership of text. */
static int add_record(struct probe *p, int64_t t, char kind, char *text)
{
        if (!text)
                return -ENOMEM;
        if (p->n == p->cap) {
                size_t cap = p->cap ? p->cap * 2 : 4096;
                struct record *r = realloc(p->recs, cap * sizeof(*r));
                if (!r) {
                        free(text);
                        return -ENOMEM;
                }
                p->recs = r;
                p->cap = cap;
        }
        p->recs[p->n++] = (struct record){.t = t, .kind = kind, .text = text};
        return 0;
}

static int open_uevent_socket(unsigned group)
{
        struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = group};
        int size = RCVBUF, fd;

        fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
        if (fd < 0)
                return -errno;
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
                (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

static int read_socket(struct probe *p, int fd, char *buf)
{
        for (;;) {
                struct uevent_msg m;
                char *text;
                ssize_t n = recv(fd, buf, MSG_MAX, 0);
                int64_t t = now_ns();

                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                return 0;
                        if (errno == ENOBUFS) {
                                p->lost++;
                                continue;
                        }
                        return -errno;
                }
                if (uevent_msg_parse(buf, (size_t)n, &m) < 0)
                        continue;
                if (asprintf(&text, "%s\t%s\t%s\t%s", m.action, m.seqnum ? m.seqnum : "-", m.devpath,
                             m.devname ? m.devname : "-") < 0)
                        return -ENOMEM;
                int r = add_record(p, t, m.from_udev ? 'U' : 'K', text);
                if (r < 0)
                        return r;
        }
}

static int watch_dir(struct probe *p, const char *root, const char *rel);

/* Records every entry already in a newly watched directory (made before the watch existed). */
static int scan_new_dir(struct probe *p, const char *root, const char *rel)
{
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_free_ char *full = NULL;
        struct dirent *de;
        int r;

        if (asprintf(&full, "%s/%s", root, rel) < 0)
                return -ENOMEM;
        d = opendir(full);
        if (!d)
                return 0;
        while ((de = readdir(d))) {
                char *child;
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (asprintf(&child, "%s%s%s", rel, *rel ? "/" : "", de->d_name) < 0)
                        return -ENOMEM;
                if (de->d_type == DT_DIR && !p->top_only) {
                        r = watch_dir(p, root, child);
                        if (r < 0) {
                                free(child);
                                return r;
                        }
                }
                r = add_record(p, now_ns(), 'C', child);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int watch_dir(struct probe *p, const char *root, const char *rel)
{
        _cleanup_free_ char *full = NULL;
        int wd;

        if (asprintf(&full, "%s%s%s", root, *rel ? "/" : "", rel) < 0)
                return -ENOMEM;
        wd = inotify_add_watch(p->ino, full, DIR_MASK);
        if (wd < 0)
                return errno == ENOENT ? 0 : -errno;
        if ((size_t)wd >= p->n_wd) {
                size_t n = (size_t)wd + 64;
                char **w = realloc(p->wd_path, n * sizeof(*w));
                if (!w)
                        return -ENOMEM;
                memset(w + p->n_wd, 0, (n - p->n_wd) * sizeof(*w));
                p->wd_path = w;
                p->n_wd = n;
        }
        free(p->wd_path[wd]);
        p->wd_path[wd] = strdup(rel);
        if (!p->wd_path[wd])
                return -ENOMEM;
        return scan_new_dir(p, root, rel);
}

static int read_inotify(struct probe *p, const char *root)
{
        char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));

        for (;;) {
                ssize_t n = read(p->ino, buf, sizeof(buf));
                int64_t t = now_ns();

                if (n < 0)
                        return errno == EAGAIN || errno == EINTR ? 0 : -errno;
                for (char *q = buf; q < buf + n;) {
                        struct inotify_event *e = (struct inotify_event *)q;
                        q += sizeof(*e) + e->len;
                        if (e->mask & IN_Q_OVERFLOW) {
                                p->lost++;
                                continue;
                        }
                        if (e->wd < 0 || (size_t)e->wd >= p->n_wd || !p->wd_path[e->wd] || e->len == 0)
                                continue;
                        const char *dir = p->wd_path[e->wd];
                        char *rel;
                        if (asprintf(&rel, "%s%s%s", dir, *dir ? "/" : "", e->name) < 0)
                                return -ENOMEM;
                        bool created = e->mask & (IN_CREATE | IN_MOVED_TO);
                        int r = add_record(p, t, created ? 'C' : 'D', rel);
                        if (r < 0)
                                return r;
                        if (created && (e->mask & IN_ISDIR) && !p->top_only) {
                                r = watch_dir(p, root, p->recs[p->n - 1].text);
                                if (r < 0)
                                        return r;
                        }
                }
        }
}

static int dump(const struct probe *p, const char *out)
{
        _cleanup_fclose_ FILE *f = fopen(out, "we");

        if (!f)
                return -errno;
        for (size_t i = 0; i < p->n; i++)
                fprintf(f, "%c\t%lld\t%s\n", p->recs[i].kind, (long long)p->recs[i].t, p->recs[i].text);
        fprintf(f, "L\t%lu\n", p->lost);
        return fflush(f) == 0 ? 0 : -errno;
}

static void probe_done(struct probe *p)
{
        for (size_t i = 0; i < p->n; i++)
                free(p->recs[i].text);
        free(p->recs);
        for (size_t i = 0; i < p->n_wd; i++)
                free(p->wd_path[i]);
        free(p->wd_path);
        if (p->ino >= 0)
                close(p->ino);
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                {"kernel", no_argument, NULL, 'k'},  {"udev", no_argument, NULL, 'u'},
                {"dev", required_argument, NULL, 'd'}, {"ready", required_argument, NULL, 'r'},
                {"out", required_argument, NULL, 'o'}, {"top", no_argument, NULL, 't'},
                {"interval", required_argument, NULL, 'i'}, {},
        };
        long interval_us = 0;
        const char *dev = NULL, *ready = NULL, *out = NULL;
        bool kernel = false, udev = false;
        _cleanup_close_ int ks = -1, us = -1, sfd = -1;
        _cleanup_free_ char *buf = malloc(MSG_MAX + 1);
        struct probe p = {.ino = -1};
        sigset_t mask;
        int c, r = 0;

        while ((c = getopt_long(argc, argv, "", opts, NULL)) >= 0) {
                switch (c) {
                case 'k': kernel = true; break;
                case 'u': udev = true; break;
                case 'd': dev = optarg; break;
                case 'r': ready = optarg; break;
                case 'o': out = optarg; break;
                case 't': p.top_only = true; break;
                case 'i': interval_us = strtol(optarg, NULL, 10); break;
                default: return 2;
                }
        }
        if (!out || !buf || interval_us < 0 || interval_us >= 1000000) {
                fprintf(stderr, "usage: probe [--kernel] [--udev] [--dev DIR [--top]] [--interval USEC] [--ready FILE] "
                                "--out FILE\n");
                return 2;
        }
        if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){.sched_priority = 10}) < 0)
                fprintf(stderr, "probe: SCHED_FIFO not permitted, timestamps may lag: %s\n", strerror(errno));
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        sfd = signalfd(-1, &mask, SFD_CLOEXEC);
        if (kernel && (ks = open_uevent_socket(1)) < 0)
                r = ks;
        if (r >= 0 && udev && (us = open_uevent_socket(2)) < 0)
                r = us;
        if (r >= 0 && dev) {
                p.ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
                r = p.ino < 0 ? -errno : watch_dir(&p, dev, "");
                /* Entries present at start are not events of the measured run. */
                for (size_t i = 0; i < p.n; i++)
                        free(p.recs[i].text);
                p.n = 0;
        }
        if (r < 0 || sfd < 0) {
                fprintf(stderr, "probe: setup failed: %s\n", strerror(r < 0 ? -r : errno));
                probe_done(&p);
                return 1;
        }
        if (ready) {
                int fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                if (fd >= 0)
                        close(fd);
        }
        for (;;) {
                struct pollfd pf[4] = {
                        {.fd = sfd, .events = POLLIN}, {.fd = ks, .events = POLLIN},
                        {.fd = us, .events = POLLIN},  {.fd = p.ino, .events = POLLIN},
                };
                if (interval_us > 0) {
                        struct timespec ts = {.tv_nsec = interval_us * 1000};
                        (void)clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
                }
                if (poll(pf, 4, interval_us > 0 ? 0 : -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        break;
                }
                if (pf[1].revents && (r = read_socket(&p, ks, buf)) < 0)
                        break;
                if (pf[2].revents && (r = read_socket(&p, us, buf)) < 0)
                        break;
                if (pf[3].revents && (r = read_inotify(&p, dev)) < 0)
                        break;
                if (pf[0].revents) {
                        /* Take whatever is still queued, then write. */
                        if (ks >= 0)
                                (void)read_socket(&p, ks, buf);
                        if (us >= 0)
                                (void)read_socket(&p, us, buf);
                        if (p.ino >= 0)
                                (void)read_inotify(&p, dev);
                        break;
                }
        }
        if (r < 0)
                fprintf(stderr, "probe: %s\n", strerror(-r));
        int d = dump(&p, out);
        if (d < 0)
                fprintf(stderr, "probe: writing %s: %s\n", out, strerror(-d));
        probe_done(&p);
        return r < 0 || d < 0 ? 1 : 0;
}
