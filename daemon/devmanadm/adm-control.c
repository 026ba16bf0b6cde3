/* SPDX-License-Identifier: MIT */
#include "adm-control.h"

#include "adm.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>

#include "ctrl.h"
#include "log.h"

#define DEFAULT_TIMEOUT_USEC (60ULL * 1000000ULL)

struct request {
        enum ctrl_msg_type type;
        int intval;
        const char *str;
};

int parse_timeout_usec(const char *s, uint64_t *ret)
{
        static const struct {
                const char *suffix;
                double usec;
        } units[] = {
                {"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"sec", 1e6}, {"min", 60e6}, {"", 1e6},
        };
        char *end;
        if (isempty(s) || !(*s >= '0' && *s <= '9'))
                return -EINVAL;
        errno = 0;
        double v = strtod(s, &end);
        if (errno || !isfinite(v) || v < 0)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(units); i++)
                if (streq(end, units[i].suffix)) {
                        double us = v * units[i].usec;
                        if (us > 1e15)
                                return -ERANGE;
                        *ret = (uint64_t)us;
                        return 0;
                }
        return -EINVAL;
}

static void help(void)
{
        printf("devmanadm control OPTIONS\n\n"
               "Control the devman daemon (udevadm control's protocol).\n\n"
               "  -e --exit                Instruct the daemon to clean up and exit\n"
               "  -l --log-level=LEVEL     Set the daemon's log level\n"
               "  -s --stop-exec-queue     Do not execute events, queue only\n"
               "  -S --start-exec-queue    Execute events, flush queue\n"
               "  -R --reload              Reload rules and databases\n"
               "  -p --property=KEY=VALUE  Set a global property for all events\n"
               "  -m --children-max=N      Maximum number of children\n"
               "     --ping                Wait for the daemon to respond to a ping message\n"
               "  -t --timeout=SECONDS     Maximum time to block for a reply\n"
               "  -h --help                Show this help\n");
}

int verb_control(const struct adm_ctx *ctx, int argc, char **argv)
{
        enum { ARG_PING = 0x100 };
        static const struct option options[] = {
                {"exit", no_argument, NULL, 'e'},
                {"log-level", required_argument, NULL, 'l'},
                {"log-priority", required_argument, NULL, 'l'}, /* the older name */
                {"stop-exec-queue", no_argument, NULL, 's'},
                {"start-exec-queue", no_argument, NULL, 'S'},
                {"reload", no_argument, NULL, 'R'},
                {"reload-rules", no_argument, NULL, 'R'}, /* the older name */
                {"property", required_argument, NULL, 'p'},
                {"env", required_argument, NULL, 'p'},
                {"children-max", required_argument, NULL, 'm'},
                {"ping", no_argument, NULL, ARG_PING},
                {"timeout", required_argument, NULL, 't'},
                {"help", no_argument, NULL, 'h'},
                {},
        };
        _cleanup_free_ struct request *reqs = calloc((size_t)argc + 1, sizeof(*reqs));
        size_t n = 0;
        uint64_t timeout = DEFAULT_TIMEOUT_USEC;
        int c, r;

        if (!reqs)
                return log_oom(), 1;
        optind = 0;
        while ((c = getopt_long(argc, argv, "el:sSRp:m:t:h", options, NULL)) >= 0) {
                switch (c) {
                case 'e':
                        reqs[n++] = (struct request){.type = CTRL_EXIT};
                        break;
                case 'l':
                        r = log_level_from_string(optarg);
                        if (r < 0) {
                                return adm_usage_error("control", "invalid log level '%s'", optarg);
                        }
                        reqs[n++] = (struct request){.type = CTRL_SET_LOG_LEVEL, .intval = r};
                        break;
                case 's':
                        reqs[n++] = (struct request){.type = CTRL_STOP_EXEC_QUEUE};
                        break;
                case 'S':
                        reqs[n++] = (struct request){.type = CTRL_START_EXEC_QUEUE};
                        break;
                case 'R':
                        reqs[n++] = (struct request){.type = CTRL_RELOAD};
                        break;
                case 'p': {
                        const char *eq = strchr(optarg, '=');
                        if (!eq || eq == optarg || strlen(optarg) >= CTRL_VALUE_BUF_SIZE) {
                                return adm_usage_error("control", "expected KEY=VALUE (at most %d bytes): '%s'",
                                                       CTRL_VALUE_BUF_SIZE - 1, optarg);
                        }
                        reqs[n++] = (struct request){.type = CTRL_SET_ENV, .str = optarg};
                        break;
                }
                case 'm': {
                        char *end;
                        errno = 0;
                        long v = strtol(optarg, &end, 10);
                        if (errno || *end || end == optarg || v <= 0 || v > INT_MAX) {
                                return adm_usage_error("control", "invalid children-max '%s'", optarg);
                        }
                        reqs[n++] = (struct request){.type = CTRL_SET_CHILDREN_MAX, .intval = (int)v};
                        break;
                }
                case ARG_PING:
                        reqs[n++] = (struct request){.type = CTRL_PING};
                        break;
                case 't':
                        if (parse_timeout_usec(optarg, &timeout) < 0) {
                                return adm_usage_error("control", "invalid timeout '%s'", optarg);
                        }
                        break;
                case 'h':
                        help();
                        return 0;
                default:
                        return 2;
                }
        }
        r = adm_no_arguments("control", optind, argc, argv);
        if (r != 0)
                return r;
        if (n == 0) {
                return adm_usage_error("control", "this command expects one or more options");
        }

        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%s/control", ctx->run_root) < 0)
                return log_oom(), 1;
        _cleanup_close_ int fd = ctrl_client_connect(path);
        if (fd < 0) {
                fprintf(stderr, "control: cannot connect to %s: %s\n", path, strerror(-fd));
                return 1;
        }
        for (size_t i = 0; i < n; i++) {
                r = ctrl_client_send(fd, reqs[i].type, reqs[i].intval, reqs[i].str);
                if (r < 0) {
                        fprintf(stderr, "control: cannot send %s: %s\n", ctrl_msg_type_to_string(reqs[i].type),
                                strerror(-r));
                        return 1;
                }
        }
        r = ctrl_client_wait(fd, timeout);
        if (r < 0) {
                fprintf(stderr, "control: no answer from the daemon: %s\n", strerror(-r));
                return 1;
        }
        return 0;
}
