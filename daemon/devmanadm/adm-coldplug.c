/* SPDX-License-Identifier: MIT */
/* devmanadm coldplug: what a minimal init or an initramfs runs once devmand is up — trigger
 * every subsystem, then every device, with "add", then wait for the queue to drain. */
#include <getopt.h>
#include <math.h>

#include "adm.h"
#include "log.h"
#include "macros.h"

int verb_coldplug(const struct adm_ctx *ctx, int argc, char **argv)
{
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"timeout", required_argument, NULL, 't'},
                {}
        };
        double timeout = 120;
        int c, r;

        while ((c = getopt_long(argc, argv, "ht:", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        printf("Usage: devmanadm coldplug [--timeout=SECONDS]\n"
                               "\n"
                               "Trigger an add event for every subsystem and every device, then wait until the\n"
                               "daemon has processed them (trigger + settle in one call).\n"
                               "\n"
                               "  -h --help            Show this help\n"
                               "  -t --timeout=SEC     Give up waiting after SEC seconds (default 120), exit 1\n");
                        return 0;
                case 't': {
                        char *end;
                        timeout = strtod(optarg, &end);
                        if (*end || end == optarg || timeout < 0 || !isfinite(timeout))
                                return adm_usage_error("coldplug", "invalid timeout: %s", optarg);
                        break;
                }
                default:
                        return 2;
                }
        }
        r = adm_no_arguments("coldplug", optind, argc, argv);
        if (r != 0)
                return r;

        char *subsystems[] = {"trigger", "--type=subsystems", "--action=add", NULL};
        char *devices[] = {"trigger", "--type=devices", "--action=add", NULL};
        optind = 0;
        r = verb_trigger(ctx, 3, subsystems);
        if (r != 0)
                return r;
        optind = 0;
        r = verb_trigger(ctx, 3, devices);
        if (r != 0)
                return r;
        r = adm_wait_for_queue(ctx, timeout);
        if (r == -ETIMEDOUT) {
                fprintf(stderr, "devmanadm coldplug: timeout after %g s, events still queued\n", timeout);
                return 1;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot wait for the queue in %s: %m", ctx->run_root);
                return 1;
        }
        return 0;
}
