/* SPDX-License-Identifier: MIT */
/* devmanadm monitor: prints kernel uevents and processed (udev) events as udevadm monitor
 * does. Options as udevadm monitor: -k/--kernel, -u/--udev (both when neither is given),
 * -p/--property (also -e/--environment), -s/--subsystem-match=S[/T], -t/--tag-match=T.
 * Runs until SIGINT or SIGTERM (exit status 0); 1 when the socket fails, 2 for usage errors. */
#include "adm.h"
#include "monitor-format.h"

#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <time.h>

#include "log.h"
#include "strv.h"
#include "time-util.h"

static void help(void)
{
        printf("devmanadm monitor [OPTIONS]\n\n"
               "Listen to kernel and udev events.\n\n"
               "  -p --property                  Print the event properties\n"
               "  -k --kernel                    Print kernel uevents\n"
               "  -u --udev                      Print udev events\n"
               "  -s --subsystem-match=SUBSYSTEM[/DEVTYPE]  Filter events by subsystem\n"
               "  -t --tag-match=TAG             Filter events by tag\n"
               "  -h --help                      Show this help\n");
}

/* Prints what is pending on one receiver. */
static int drain(struct monitor_receiver *r, const struct monitor_filter *f, bool kernel, bool udev, bool props)
{
        for (;;) {
                _cleanup_(monitor_event_freep) struct monitor_event *e = NULL;
                int k = monitor_receive(r, &e);
                if (k == -EAGAIN)
                        return 0;
                if (k == -ENOBUFS) {
                        fprintf(stderr, "monitor: receive buffer overrun, events were lost\n");
                        continue;
                }
                if (k < 0)
                        return k;
                if (k == 0)
                        continue;
                if ((e->source == MONITOR_SOURCE_KERNEL && !kernel) || (e->source == MONITOR_SOURCE_UDEV && !udev))
                        continue;
                if (!monitor_filter_match(f, e))
                        continue;
                monitor_print_event(stdout, e, props, time_now_usec());
                fflush(stdout);
        }
}

int verb_monitor(const struct adm_ctx *ctx, int argc, char **argv)
{
        static const struct option options[] = {
                {"property", no_argument, NULL, 'p'},
                {"environment", no_argument, NULL, 'e'},
                {"kernel", no_argument, NULL, 'k'},
                {"udev", no_argument, NULL, 'u'},
                {"subsystem-match", required_argument, NULL, 's'},
                {"tag-match", required_argument, NULL, 't'},
                {"help", no_argument, NULL, 'h'},
                {},
        };
        _cleanup_strv_free_ char **subsystems = NULL;
        _cleanup_strv_free_ char **tags = NULL;
        bool props = false, kernel = false, udev = false;
        int c, r;

        optind = 0;
        while ((c = getopt_long(argc, argv, "pekus:t:h", options, NULL)) >= 0) {
                switch (c) {
                case 'p':
                case 'e':
                        props = true;
                        break;
                case 'k':
                        kernel = true;
                        break;
                case 'u':
                        udev = true;
                        break;
                case 's':
                        if (isempty(optarg) || optarg[0] == '/') {
                                return adm_usage_error("monitor", "invalid subsystem match '%s'", optarg);
                        }
                        if (strv_push_copy(&subsystems, optarg) < 0)
                                return log_oom(), 1;
                        break;
                case 't':
                        if (isempty(optarg)) {
                                return adm_usage_error("monitor", "empty tag match");
                        }
                        if (strv_push_copy(&tags, optarg) < 0)
                                return log_oom(), 1;
                        break;
                case 'h':
                        help();
                        return 0;
                default:
                        return 2;
                }
        }
        r = adm_no_arguments("monitor", optind, argc, argv);
        if (r != 0)
                return r;
        if (!kernel && !udev)
                kernel = udev = true;

        _cleanup_(monitor_receiver_freep) struct monitor_receiver *recv = NULL;
        r = monitor_receiver_new(kernel, udev, &recv);
        if (r < 0) {
                fprintf(stderr, "monitor: cannot open the uevent socket: %s\n", strerror(-r));
                return 1;
        }

        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        _cleanup_close_ int sfd = -1;
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
            (sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
                fprintf(stderr, "monitor: cannot watch signals: %m\n");
                return 1;
        }

        printf("monitor will print the received events for:\n");
        if (udev)
                printf("UDEV - the event which udev sends out after rule processing\n");
        if (kernel)
                printf("KERNEL - the kernel uevent\n");
        printf("\n");
        fflush(stdout);

        struct monitor_filter f = {.subsystems = subsystems, .tags = tags};
        for (;;) {
                struct pollfd p[2] = {
                        {.fd = monitor_receiver_fd(recv), .events = POLLIN},
                        {.fd = sfd, .events = POLLIN},
                };
                if (poll(p, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        fprintf(stderr, "monitor: poll failed: %m\n");
                        return 1;
                }
                if (p[1].revents)
                        return 0;
                if (p[0].revents) {
                        r = drain(recv, &f, kernel, udev, props);
                        if (r < 0) {
                                fprintf(stderr, "monitor: receive failed: %s\n", strerror(-r));
                                return 1;
                        }
                }
        }
}
