/* SPDX-License-Identifier: MIT */
/*
 * Loop-device storms for the bench: adds or removes loop devices BASE … BASE+COUNT-1 back to
 * back through /dev/loop-control (LOOP_CTL_ADD / LOOP_CTL_REMOVE). The kernel sends two uevents
 * per device each way (block and bdi). One LOOP_CTL_REMOVE waits for the kernel to tear the
 * disk down (tens of ms, mostly RCU grace periods), so removal runs in --threads parallel
 * threads (default 64): a remove storm then takes about as long as an add storm.
 *
 *   loopstorm [--control PATH] [--threads N] --base B --count N add      on failure or SIGINT/SIGTERM/SIGHUP,
 *                                                          removes every device it added
 *   loopstorm [--control PATH] --base B --count N remove   retries a busy device up to 5 s
 *   loopstorm [--control PATH] --base B --count N cleanup  removes whatever of the range exists
 *
 * Prints "start_ns end_ns done" (CLOCK_MONOTONIC) on success. Exit 0, 1 on failure, 2 on usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/loop.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <time.h>

#include "macros.h"

static int64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool interrupted(void)
{
        sigset_t pending;
        sigpending(&pending);
        return sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
               sigismember(&pending, SIGHUP);
}

/* Removes one device, waiting out a short busy spell (a daemon may be probing it). */
static int remove_one(int ctl, long idx)
{
        for (int tries = 0;; tries++) {
                if (ioctl(ctl, LOOP_CTL_REMOVE, idx) >= 0)
                        return 0;
                if (errno == ENODEV || errno == ENXIO)
                        return -ENODEV;
                if (errno != EBUSY || tries >= 5000)
                        return -errno;
                nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
        }
}

struct remover {
        pthread_t thread;
        int ctl;
        long first, end, step;
        bool tolerate_missing;
        long failed;
};

static void *remover_run(void *arg)
{
        struct remover *w = arg;

        for (long i = w->first; i < w->end; i += w->step) {
                int r = remove_one(w->ctl, i);
                if (r == -ENODEV && w->tolerate_missing)
                        continue;
                if (r < 0) {
                        fprintf(stderr, "loopstorm: removing loop%ld: %s\n", i, strerror(-r));
                        w->failed++;
                }
        }
        return NULL;
}

/* Removes base … base+count-1 with up to nthreads threads; returns how many failed. */
static long remove_range(int ctl, long base, long count, long nthreads, bool tolerate_missing)
{
        _cleanup_free_ struct remover *w = NULL;
        long failed = 0, started = 0;

        if (nthreads > count)
                nthreads = count;
        w = calloc((size_t)nthreads, sizeof(*w));
        if (!w)
                nthreads = 0;
        for (long k = 0; k < nthreads; k++) {
                w[k] = (struct remover){.ctl = ctl, .first = base + k, .end = base + count, .step = nthreads,
                                        .tolerate_missing = tolerate_missing};
                if (pthread_create(&w[k].thread, NULL, remover_run, &w[k]) != 0)
                        break;
                started++;
        }
        if (started == 0) {
                /* No threads to be had: remove everything from this one. */
                struct remover one = {.ctl = ctl, .first = base, .end = base + count, .step = 1,
                                      .tolerate_missing = tolerate_missing};
                remover_run(&one);
                return one.failed;
        }
        for (long k = 0; k < started; k++) {
                pthread_join(w[k].thread, NULL);
                failed += w[k].failed;
        }
        /* Threads that could not start leave their share: take it here. */
        for (long k = started; k < nthreads; k++) {
                remover_run(&w[k]);
                failed += w[k].failed;
        }
        return failed;
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                {"control", required_argument, NULL, 'c'},
                {"base", required_argument, NULL, 'b'},
                {"count", required_argument, NULL, 'n'},
                {"threads", required_argument, NULL, 't'},
                {},
        };
        const char *control = "/dev/loop-control", *verb;
        long base = -1, count = -1, added = 0, threads = 64;
        _cleanup_close_ int ctl = -1;
        int64_t start, end;
        sigset_t mask;
        int c;

        while ((c = getopt_long(argc, argv, "", opts, NULL)) >= 0) {
                switch (c) {
                case 'c': control = optarg; break;
                case 'b': base = strtol(optarg, NULL, 10); break;
                case 'n': count = strtol(optarg, NULL, 10); break;
                case 't': threads = strtol(optarg, NULL, 10); break;
                default: return 2;
                }
        }
        if (optind != argc - 1 || base < 0 || count <= 0 || base + count > (1L << 20) || threads < 1) {
                fprintf(stderr, "usage: loopstorm [--control PATH] [--threads N] --base B --count N add|remove|cleanup\n");
                return 2;
        }
        verb = argv[optind];

        /* Signals stay pending and are checked between devices, so no device is left behind. */
        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);

        ctl = open(control, O_RDWR | O_CLOEXEC);
        if (ctl < 0) {
                fprintf(stderr, "loopstorm: %s: %s\n", control, strerror(errno));
                return 1;
        }

        start = now_ns();
        if (streq(verb, "add")) {
                for (long i = base; i < base + count; i++) {
                        if (interrupted()) {
                                fprintf(stderr, "loopstorm: interrupted, removing what was added\n");
                                break;
                        }
                        if (ioctl(ctl, LOOP_CTL_ADD, i) < 0) {
                                fprintf(stderr, "loopstorm: adding loop%ld: %s\n", i, strerror(errno));
                                break;
                        }
                        added++;
                }
                if (added < count) {
                        remove_range(ctl, base, added, threads, true);
                        return 1;
                }
        } else if (streq(verb, "remove")) {
                if (remove_range(ctl, base, count, threads, false) > 0)
                        return 1;
        } else if (streq(verb, "cleanup")) {
                if (remove_range(ctl, base, count, threads, true) > 0)
                        return 1;
        } else {
                fprintf(stderr, "loopstorm: unknown verb %s\n", verb);
                return 2;
        }
        end = now_ns();
        printf("%lld %lld done\n", (long long)start, (long long)end);
        return 0;
}
