/* SPDX-License-Identifier: MIT */
#include "adm-test.h"

#include <getopt.h>

#include "builtin.h"
#include "log.h"
#include "model.h"
#include "rules-exec.h"
#include "rules-load.h"
#include "strv.h"

#define PROGRAM_TIMEOUT_USEC (30 * 1000000ULL)

static void help(void)
{
        printf("devmanadm test [OPTIONS] DEVPATH\n\n"
               "Simulate the rules for one device and print the result. Changes nothing.\n\n"
               "  -h --help              Show this help\n"
               "  -a --action=ACTION     The event's action (default add)\n"
               "     --sysfs=DIR         The sysfs tree (default /sys)\n"
               "     --rules-dir=DIR     A rules directory (repeatable; replaces the defaults)\n"
               "     --root=DIR          Look for the default rules directories below DIR\n"
               "  -N --resolve-names=WHEN  early, late or never (default early)\n"
               "  -d --debug             Log every step\n");
}

static void print_list(const char *what, char *const *l)
{
        for (; l && *l; l++)
                printf("%s=%s\n", what, *l);
}

static void print_results(struct rules_exec *x, struct device *d, enum uevent_action action)
{
        size_t n;
        const struct rule_line *const *trace = rules_exec_trace(x, &n);
        for (size_t i = 0; i < n; i++)
                printf("rule %s:%u\n", trace[i]->file, trace[i]->line);

        struct device_udev *u = d->udev;
        if (rules_exec_name(x))
                printf("NAME=%s\n", rules_exec_name(x));
        if (d->devname)
                printf("DEVNAME=%s\n", d->devname);
        print_list("LINK", u->links);
        if (u->mode != (mode_t)-1)
                printf("MODE=%04o\n", (unsigned)u->mode);
        if (u->uid != (uid_t)-1)
                printf("OWNER=%u\n", (unsigned)u->uid);
        if (u->gid != (gid_t)-1)
                printf("GROUP=%u\n", (unsigned)u->gid);
        if (u->link_priority)
                printf("LINK_PRIORITY=%d\n", u->link_priority);
        if (u->watch)
                printf("WATCH=1\n");
        if (u->db_persist)
                printf("DB_PERSIST=1\n");
        print_list("TAG", u->current_tags);

        /* what a RUN program or a libudev client would see */
        _cleanup_strv_free_ char **env = NULL;
        if (rules_device_env(d, action, "/dev", &env) >= 0)
                STRV_FOREACH(e, env)
                        printf("PROPERTY %s\n", *e);

        const struct rules_run *run = rules_exec_run_list(x, &n);
        for (size_t i = 0; i < n; i++)
                printf("RUN{%s} %s\n", run[i].builtin ? "builtin" : "program", run[i].cmd);
}

int verb_test(int argc, char **argv)
{
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"action", required_argument, NULL, 'a'},
                {"sysfs", required_argument, NULL, 'S'},
                {"rules-dir", required_argument, NULL, 'D'},
                {"root", required_argument, NULL, 'R'},
                {"resolve-names", required_argument, NULL, 'N'},
                {"debug", no_argument, NULL, 'd'},
                {},
        };
        const char *sysfs = "/sys", *root = NULL;
        enum uevent_action action = UEVENT_ADD;
        enum resolve_names resolve = RESOLVE_NAMES_EARLY;
        _cleanup_strv_free_ char **dirs = NULL;
        int c, r;

        optind = 0;
        while ((c = getopt_long(argc, argv, "ha:N:d", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case 'a':
                        action = uevent_action_from_string(optarg);
                        if ((int)action < 0) {
                                log_error("Unknown action \"%s\"", optarg);
                                return 2;
                        }
                        break;
                case 'S':
                        sysfs = optarg;
                        break;
                case 'D':
                        if (strv_push_copy(&dirs, optarg) < 0)
                                return log_oom(), 1;
                        break;
                case 'R':
                        root = optarg;
                        break;
                case 'N':
                        resolve = streq(optarg, "late") ? RESOLVE_NAMES_LATE
                                  : streq(optarg, "never") ? RESOLVE_NAMES_NEVER
                                                           : RESOLVE_NAMES_EARLY;
                        break;
                case 'd':
                        log_set_max_level(LOG_DEBUG);
                        break;
                default:
                        return 2;
                }
        if (optind + 1 != argc) {
                log_error("Expected exactly one device path.");
                return 2;
        }

        /* accept "/sys/devices/…" as well as "/devices/…" */
        const char *devpath = argv[optind];
        const char *rel = startswith(devpath, sysfs);
        if (rel && *rel == '/')
                devpath = rel;
        else if ((rel = startswith(devpath, "/sys/")))
                devpath = rel - 1;

        _cleanup_(model_freep) struct model *m = NULL;
        r = model_new(sysfs, &m);
        if (r < 0) {
                log_error("Failed to open sysfs at %s: %s", sysfs, strerror(-r));
                return 1;
        }
        struct device *d = NULL;
        r = model_resolve(m, devpath, &d);
        if (r < 0) {
                log_error("Failed to find device %s: %s", devpath, strerror(-r));
                return 1;
        }

        struct rules_load_options lo = {.root = root, .dirs = dirs, .resolve_names = resolve};
        _cleanup_rules_free_ struct rules *rules = NULL;
        r = rules_load(&lo, &rules);
        if (r < 0) {
                log_error("Failed to load rules: %s", strerror(-r));
                return 1;
        }

        struct builtin_ctx bctx = {.sysfs_root = sysfs};
        (void)builtin_init_all(&bctx);
        struct rules_exec_options eo = {.sysfs_root = sysfs, .builtins = &bctx, .test = true};
        _cleanup_rules_exec_free_ struct rules_exec *x = NULL;
        r = rules_exec_new(rules, d, action, &eo, &x);
        if (r >= 0)
                r = rules_exec_run_sync(x, PROGRAM_TIMEOUT_USEC);
        if (r < 0) {
                log_error("Failed to evaluate rules: %s", strerror(-r));
                builtin_exit_all(&bctx);
                return 1;
        }
        print_results(x, d, action);
        builtin_exit_all(&bctx);
        return 0;
}
