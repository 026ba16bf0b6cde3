/* SPDX-License-Identifier: MIT */
/* devmanadm settle: wait until the daemon's event queue is empty. */
#include <getopt.h>
#include <math.h> /* isfinite(): a macro, no libm */
#include <poll.h>
#include <sys/inotify.h>
#include <time.h>

#include "adm.h"
#include "ctrl.h"
#include "fs-util.h"
#include "log.h"
#include "macros.h"
#include "sysfs.h"
#include "time-util.h"

/* unanswered closes of the control connection before settle falls back to the queue file */
#define WAIT_IDLE_CLOSES 3

int adm_wait_for_queue(const struct adm_ctx *ctx, double timeout_sec)
{
        _cleanup_free_ char *queue = path_join(ctx->run_root, "queue");
        _cleanup_close_ int ifd = -1;
        double deadline = ((double)time_now_usec() / 1e6) + timeout_sec;

        if (!queue)
                return -ENOMEM;

        /* The daemon reads the request only after every uevent the kernel had sent (its control
         * socket comes after the kernel socket), and answers once those are processed. */
        _cleanup_free_ char *control = path_join(ctx->run_root, "control");
        if (!control)
                return -ENOMEM;
        /* A close without an answer is a daemon that died while we waited (killed in a storm;
         * its restarted successor takes the listening socket from the service manager, and
         * with it the events) or one that does not know the request: ask again, and after
         * WAIT_IDLE_CLOSES such closes the queue file decides. */
        for (unsigned closes = 0; closes < WAIT_IDLE_CLOSES; closes++) {
                double left = deadline - ((double)time_now_usec() / 1e6);
                if (left <= 0)
                        return -ETIMEDOUT;
                int cfd = ctrl_client_connect(control);
                if (cfd < 0)
                        break; /* no daemon (nor a socket kept for one) */
                int r = ctrl_client_wait_idle(cfd, (uint64_t)(left * 1e6));
                close(cfd);
                if (r > 0)
                        return 0;
                if (r == -ETIMEDOUT)
                        return r;
                if (r < 0)
                        break;
        }

        /* Nothing queued: done, without the cost of an inotify instance. */
        if (access(queue, F_OK) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (ifd < 0)
                return negative_errno();
        /* Watch first, then look: a deletion between the two cannot be missed. */
        if (inotify_add_watch(ifd, ctx->run_root, IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_ONLYDIR) < 0) {
                if (errno == ENOENT)
                        return 0; /* no run dir: no daemon, nothing queued */
                return negative_errno();
        }
        for (;;) {
                if (access(queue, F_OK) < 0) {
                        if (errno == ENOENT)
                                return 0;
                        return negative_errno();
                }
                double left = deadline - ((double)time_now_usec() / 1e6);
                if (left <= 0)
                        return -ETIMEDOUT;
                struct pollfd p = {.fd = ifd, .events = POLLIN};
                /* whole ms, rounded up (never a 0 ms busy loop); no ceil(): 32-bit ARM has no
                 * instruction for it, and the front links libc only */
                uint64_t left_us = (uint64_t)(left * 1e6);
                int ms = left_us >= 1000000 ? 1000 : (int)(left_us / 1000) + 1;
                if (poll(&p, 1, ms) < 0 && errno != EINTR)
                        return negative_errno();
                char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
                while (read(ifd, buf, sizeof(buf)) > 0)
                        ; /* only the wake-up matters */
        }
}

static void help(void)
{
        printf("Usage: devmanadm settle [--timeout=SECONDS]\n"
               "\n"
               "Wait until the daemon's event queue is empty.\n"
               "\n"
               "  -h --help            Show this help\n"
               "  -t --timeout=SEC     Give up after SEC seconds (default 120) and exit 1\n"
               "  -E --exit-if-exists=FILE  Stop waiting when FILE exists\n");
}

int verb_settle(const struct adm_ctx *ctx, int argc, char **argv)
{
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"timeout", required_argument, NULL, 't'},
                {"exit-if-exists", required_argument, NULL, 'E'},
                {"seq-start", required_argument, NULL, 's'}, /* accepted for udevadm scripts, ignored */
                {"seq-end", required_argument, NULL, 'e'},
                {"quiet", no_argument, NULL, 'q'},
                {}
        };
        double timeout = 120;
        const char *exit_if_exists = NULL;
        int c, r;

        while ((c = getopt_long(argc, argv, "ht:E:s:e:q", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case 't': {
                        char *end;
                        timeout = strtod(optarg, &end);
                        if (*end || end == optarg || timeout < 0 || !isfinite(timeout))
                                return adm_usage_error("settle", "invalid timeout: %s", optarg);
                        break;
                }
                case 'E':
                        exit_if_exists = optarg;
                        break;
                case 's':
                case 'e':
                case 'q':
                        break;
                default:
                        return 2;
                }
        }
        r = adm_no_arguments("settle", optind, argc, argv);
        if (r != 0)
                return r;
        if (exit_if_exists && access(exit_if_exists, F_OK) == 0)
                return 0;
        r = adm_wait_for_queue(ctx, timeout);
        if (r == -ETIMEDOUT) {
                fprintf(stderr, "devmanadm settle: timeout after %g s, events still queued\n", timeout);
                return 1;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot wait for the queue in %s: %m", ctx->run_root);
                return 1;
        }
        return 0;
}
