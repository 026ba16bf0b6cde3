/* SPDX-License-Identifier: MIT */
/*
 * devmanadm test: one synthetic event through the daemon's own pipeline (core/process.c).
 * Without --apply it is a dry run that changes nothing and prints every rule that matched
 * and what would be published; with --apply the event is processed for real in the given
 * roots (node, links, database, RUN), as a daemon would, without a daemon running. Children
 * (PROGRAM, IMPORT{program}, RUN) run through the daemon's spawner with the daemon's
 * event_timeout and timeout_signal: from its configuration files, or the same options.
 */
#include "adm-test.h"

#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "builtin.h"
#include "devman-config.h"
#include "fs-util.h"
#include "log.h"
#include "model.h"
#include "node.h"
#include "process.h"
#include "rules-exec.h"
#include "mdev-conf.h"
#include "rules-load.h"
#include "strv.h"

static void help(void)
{
        printf("devmanadm test [OPTIONS] DEVPATH\n\n"
               "Run the rules for one device through the daemon's pipeline and print the result.\n"
               "Without --apply nothing is changed.\n\n"
               "  -h --help              Show this help\n"
               "  -a --action=ACTION     The event's action (default add)\n"
               "     --apply             Process the event for real: node, links, database, RUN programs\n"
               "     --sysfs=DIR         The sysfs tree (default the global --sysfs)\n"
               "     --rules-dir=DIR     A rules directory (repeatable; replaces the defaults)\n"
               "     --root=DIR          Look for the default rules directories below DIR\n"
               "     --mdev-conf=FILE    Apply busybox mdev.conf FILE after the rules\n"
               "  -N --resolve-names=WHEN  early, late or never (default early)\n"
               "     --config=FILE       Read FILE instead of /etc/devman/devman.conf (as devmand)\n"
               "  -t --event-timeout=SEC  Kill programs after SEC seconds (default: as devmand)\n"
               "     --timeout-signal=SIG  Signal sent to programs that time out (default: as devmand)\n"
               "  -d --debug             Log every step\n");
}

static void print_list(const char *what, char *const *l)
{
        for (; l && *l; l++)
                printf("%s=%s\n", what, *l);
}

struct test_result {
        int result;
        bool done;
};

static void report(const struct event *e, struct device *d, struct rules_exec *x, void *userdata)
{
        size_t n = 0;
        const struct rule_line *const *trace = x ? rules_exec_trace(x, &n) : NULL;
        for (size_t i = 0; i < n; i++)
                printf("rule %s:%u\n", trace[i]->file, trace[i]->line);

        if (x && rules_exec_name(x))
                printf("NAME=%s\n", rules_exec_name(x));
        if (d->devname)
                printf("DEVNAME=%s\n", d->devname);
        if (d->devnum_type && d->devname) {
                /* what the node gets, defaults included */
                struct node_access a = process_node_access(d);
                node_access_for_new(&a);
                printf("NODE=%s %c %u:%u %04o %u:%u\n", d->devname, d->devnum_type, major(d->devnum),
                       minor(d->devnum), (unsigned)a.mode, (unsigned)a.uid, (unsigned)a.gid);
        }
        struct device_udev *u = d->udev;
        if (u) {
                /* what the rules assigned */
                if (u->mode != (mode_t)-1)
                        printf("MODE=%04o\n", (unsigned)u->mode);
                if (u->uid != (uid_t)-1)
                        printf("OWNER=%u\n", (unsigned)u->uid);
                if (u->gid != (gid_t)-1)
                        printf("GROUP=%u\n", (unsigned)u->gid);
                print_list("LINK", u->links);
                if (u->link_priority)
                        printf("LINK_PRIORITY=%d\n", u->link_priority);
                if (u->watch)
                        printf("WATCH=1\n");
                if (u->db_persist)
                        printf("DB_PERSIST=1\n");
                print_list("TAG", u->current_tags);
        }
        /* the properties as a client or a program sees them (with ACTION, TAGS, DEVLINKS ...) */
        _cleanup_strv_free_ char **env = NULL;
        if (rules_device_env(d, e->uevent->action, "/dev", &env) >= 0)
                STRV_FOREACH(p, env)
                        printf("PROPERTY %s\n", *p);
        const struct rules_run *run = x ? rules_exec_run_list(x, &n) : NULL;
        for (size_t i = 0; run && i < n; i++)
                printf("RUN{%s} %s\n", run[i].builtin ? "builtin" : "program", run[i].cmd);
}

static void on_done(struct event *e, struct device *dev, int result, void *userdata)
{
        struct test_result *t = userdata;
        t->result = result;
        t->done = true;
}

/* The daemon's timeout settings: its configuration files, then the options (the daemon's key
 * names and value parsers). 0, -EINVAL for a bad option value (reported), -ENOMEM. */
static int load_config(const char *config_file, char **settings, struct devman_config **ret)
{
        _cleanup_(devman_config_freep) struct devman_config *c = NULL;
        int r = devman_config_new(&c);
        if (r < 0)
                return log_oom();
        (void)devman_config_load(c, NULL, config_file); /* problems are logged, as by devmand */
        STRV_FOREACH(s, settings) {
                char *eq = strchr(*s, '=');
                *eq = '\0';
                r = devman_config_set(c, *s, eq + 1);
                if (r < 0) {
                        adm_usage_error("test", "invalid %s: %s", *s, eq + 1);
                        return -EINVAL;
                }
        }
        *ret = TAKE_PTR(c);
        return 0;
}

int verb_test(const struct adm_ctx *ctx, int argc, char **argv)
{
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"action", required_argument, NULL, 'a'},
                {"apply", no_argument, NULL, 'A'},
                {"sysfs", required_argument, NULL, 'S'},
                {"rules-dir", required_argument, NULL, 'D'},
                {"root", required_argument, NULL, 'R'},
                {"mdev-conf", required_argument, NULL, 'M'},
                {"resolve-names", required_argument, NULL, 'N'},
                {"debug", no_argument, NULL, 'd'},
                {"config", required_argument, NULL, 'C'},
                {"event-timeout", required_argument, NULL, 't'},
                {"timeout-signal", required_argument, NULL, 'T'},
                {},
        };
        const char *sysfs = ctx->sysfs_root, *root = NULL, *mdev_path = NULL;
        _cleanup_(mdev_conf_freep) struct mdev_conf *mdev = NULL;
        enum uevent_action action = UEVENT_ADD;
        enum resolve_names resolve = RESOLVE_NAMES_EARLY;
        _cleanup_strv_free_ char **dirs = NULL, **settings = NULL;
        const char *config_file = NULL;
        _cleanup_(devman_config_freep) struct devman_config *config = NULL;
        _cleanup_(model_freep) struct model *m = NULL;
        _cleanup_rules_free_ struct rules *rules = NULL;
        _cleanup_close_ int devfd = -1, runfd = -1;
        bool apply = false;
        int c, r;

        while ((c = getopt_long(argc, argv, "ha:N:dt:", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case 'a':
                        action = uevent_action_from_string(optarg);
                        if ((int)action < 0)
                                return adm_usage_error("test", "unknown action: %s", optarg);
                        break;
                case 'A':
                        apply = true;
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
                case 'M':
                        mdev_path = optarg;
                        break;
                case 'N':
                        r = devman_resolve_names_from_string(optarg);
                        if (r < 0)
                                return adm_usage_error("test", "invalid --resolve-names: %s", optarg);
                        resolve = r;
                        break;
                case 'd':
                        log_set_max_level(LOG_DEBUG);
                        break;
                case 'C':
                        config_file = optarg;
                        break;
                case 't':
                case 'T': {
                        _cleanup_free_ char *kv = NULL;
                        if (asprintf(&kv, "%s=%s", c == 't' ? "event_timeout" : "timeout_signal", optarg) < 0 ||
                            strv_push_copy(&settings, kv) < 0)
                                return log_oom(), 1;
                        break;
                }
                default:
                        return 2;
                }
        if (optind + 1 != argc)
                return adm_usage_error("test", "expected exactly one device path");
        r = load_config(config_file, settings, &config);
        if (r < 0)
                return r == -ENOMEM ? 1 : 2;

        r = adm_model_open(sysfs, ctx->dev_root, &m);
        if (r != 0)
                return r;
        struct device *d = NULL;
        r = model_resolve(m, argv[optind], &d);
        if (r < 0) {
                log_error_errno(r, "No device %s: %m", argv[optind]);
                return 1;
        }
        struct rules_load_options lo = {.root = root, .dirs = dirs, .resolve_names = resolve};
        r = rules_load(&lo, &rules);
        if (r < 0) {
                log_error_errno(r, "Cannot load rules: %m");
                return 1;
        }
        if (mdev_path) {
                r = mdev_conf_load(mdev_path, &mdev, NULL); /* bad lines are logged */
                if (r < 0) {
                        log_error_errno(r, "Cannot read %s: %m", mdev_path);
                        return 1;
                }
        }
        if (apply) {
                r = fs_open_dir(ctx->dev_root, false, &devfd);
                if (r >= 0)
                        r = fs_open_dir(ctx->run_root, true, &runfd);
                if (r < 0) {
                        log_error_errno(r, "Cannot open the /dev root or run directory: %m");
                        return 1;
                }
        }

        /* the event: what the kernel would send for the device (its properties), or, for a
         * remove, what the model knows */
        struct props p = PROPS_INIT;
        struct uevent *ev = NULL;
        if (props_copy(&p, &d->props) < 0)
                return log_oom(), 1;
        props_unset_flagged(&p, PROP_DB);
        r = uevent_new(action, d->devpath, &p, &ev);
        props_clear(&p);
        if (r < 0) {
                log_error_errno(r, "Cannot make the event: %m");
                return 1;
        }

        struct builtin_ctx bctx = {.sysfs_root = sysfs};
        (void)builtin_init_all(&bctx);
        struct process_ctx pctx = {
                .model = m,
                .dev_root = ctx->dev_root,
                .run_root = apply ? ctx->run_root : NULL,
                .devfd = devfd,
                .runfd = runfd,
                .rules = rules,
                .mdev = mdev,
                .builtins = &bctx,
                .event_timeout_usec = config->event_timeout_usec,
                .timeout_signal = config->timeout_signal,
                .dry_run = !apply,
                .report = report,
        };
        struct test_result t = {0};
        struct event e = {.uevent = ev, .seqnum = 1, .state = EVENT_RUNNING};
        r = process_event_wait(&pctx, &e, on_done, &t);
        uevent_free(ev);
        builtin_exit_all(&bctx);
        if (r < 0 || !t.done) {
                log_error_errno(r < 0 ? r : -EIO, "The event could not be processed: %m");
                return 1;
        }
        return t.result < 0 ? 1 : 0;
}
