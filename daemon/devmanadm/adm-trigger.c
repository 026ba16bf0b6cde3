/* SPDX-License-Identifier: MIT */
/* devmanadm trigger: write an action to the uevent file of matching devices, so the kernel
 * sends the event again (coldplug). */
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>

#include "adm.h"
#include "log.h"
#include "model.h"
#include "strv.h"
#include "sysfs-enum.h"
#include "sysfs.h"
#include "uevent.h"

struct trigger_filter {
        char **subsystem_match, **subsystem_nomatch;
        char **sysname_match, **sysname_nomatch;
        char **property_match; /* KEY=VALUE (VALUE a glob) */
        char **tag_match;
        char **parent_match;   /* devpaths */
};

static void filter_free(struct trigger_filter *f)
{
        strv_free(f->subsystem_match);
        strv_free(f->subsystem_nomatch);
        strv_free(f->sysname_match);
        strv_free(f->sysname_nomatch);
        strv_free(f->property_match);
        strv_free(f->tag_match);
        strv_free(f->parent_match);
}

static bool any_glob(char **patterns, const char *s)
{
        STRV_FOREACH(p, patterns)
                if (s && fnmatch(*p, s, 0) == 0)
                        return true;
        return false;
}

static bool has_tag(const struct adm_ctx *ctx, struct device *d, const char *tag)
{
        _cleanup_free_ char *id = NULL, *path = NULL;
        if (device_get_id(d, &id) < 0 || asprintf(&path, "%s/tags/%s/%s", ctx->run_root, tag, id) < 0)
                return false;
        return access(path, F_OK) == 0;
}

static bool matches(const struct adm_ctx *ctx, const struct trigger_filter *f, struct device *d)
{
        if (f->subsystem_match && !any_glob(f->subsystem_match, d->subsystem))
                return false;
        if (any_glob(f->subsystem_nomatch, d->subsystem))
                return false;
        if (f->sysname_match && !any_glob(f->sysname_match, d->sysname))
                return false;
        if (any_glob(f->sysname_nomatch, d->sysname))
                return false;
        STRV_FOREACH(kv, f->property_match) {
                const char *eq = strchr(*kv, '=');
                _cleanup_free_ char *key = strndup(*kv, (size_t)(eq - *kv));
                const char *v = key ? device_get_property(d, key) : NULL;
                if (!v || fnmatch(eq + 1, v, 0) != 0)
                        return false;
        }
        STRV_FOREACH(t, f->tag_match)
                if (!has_tag(ctx, d, *t))
                        return false;
        if (f->parent_match) {
                bool found = false;
                for (struct device *p = d; p && !found; p = p->parent)
                        found = strv_contains(f->parent_match, p->devpath);
                if (!found)
                        return false;
        }
        return true;
}

/* Writes the action to <devpath>/uevent under the sysfs root: the kernel sends the event before
 * write() returns. 0 or -errno. */
static int write_uevent(int rootfd, const char *devpath, const char *action)
{
        _cleanup_free_ char *rel = NULL;
        if (asprintf(&rel, "%s/uevent", devpath + (devpath[0] == '/')) < 0)
                return -ENOMEM;
        return write_attr_at(rootfd, rel, action);
}

static void help(void)
{
        printf("Usage: devmanadm trigger [OPTIONS] [DEVPATH|NODE...]\n"
               "\n"
               "Ask the kernel to send an event for every matching device.\n"
               "\n"
               "  -h --help                       Show this help\n"
               "  -v --verbose                    Print the path of each triggered device\n"
               "  -n --dry-run                    Do not actually trigger\n"
               "  -t --type=devices|subsystems    What to trigger (default devices)\n"
               "  -c --action=ACTION              add, remove, change, move, online, offline, bind,\n"
               "                                  unbind (default change)\n"
               "  -s --subsystem-match=GLOB       Only devices of a matching subsystem (repeatable)\n"
               "  -S --subsystem-nomatch=GLOB     Not devices of a matching subsystem\n"
               "  -y --sysname-match=GLOB         Only devices with a matching name\n"
               "     --sysname-nomatch=GLOB       Not devices with a matching name\n"
               "  -p --property-match=KEY=GLOB    Only devices with a matching property\n"
               "  -G --tag-match=TAG              Only devices with the tag (from the database)\n"
               "  -b --parent-match=DEVPATH       Only the device and its descendants\n"
               "  -w --settle                     Wait for the resulting events to be processed\n");
}

enum { ARG_SYSNAME_NOMATCH = 0x100 };

int verb_trigger(const struct adm_ctx *ctx, int argc, char **argv)
{
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"verbose", no_argument, NULL, 'v'},
                {"dry-run", no_argument, NULL, 'n'},
                {"type", required_argument, NULL, 't'},
                {"action", required_argument, NULL, 'c'},
                {"subsystem-match", required_argument, NULL, 's'},
                {"subsystem-nomatch", required_argument, NULL, 'S'},
                {"sysname-match", required_argument, NULL, 'y'},
                {"sysname-nomatch", required_argument, NULL, ARG_SYSNAME_NOMATCH},
                {"property-match", required_argument, NULL, 'p'},
                {"tag-match", required_argument, NULL, 'G'},
                {"parent-match", required_argument, NULL, 'b'},
                {"settle", no_argument, NULL, 'w'},
                {}
        };
        struct trigger_filter f = {0};
        _cleanup_(model_freep) struct model *m = NULL;
        _cleanup_strv_free_ char **paths = NULL;
        _cleanup_close_ int rootfd = -1;
        const char *action = "change";
        bool verbose = false, dry_run = false, subsystems = false, settle = false;
        int c, r, status = 2;
        size_t n = 0, triggered = 0;

        while ((c = getopt_long(argc, argv, "hvnt:c:s:S:y:p:G:b:w", options, NULL)) >= 0) {
                char ***list = NULL;
                switch (c) {
                case 'h':
                        help();
                        status = 0;
                        goto out;
                case 'v':
                        verbose = true;
                        break;
                case 'n':
                        dry_run = true;
                        break;
                case 't':
                        if (streq(optarg, "devices"))
                                subsystems = false;
                        else if (streq(optarg, "subsystems"))
                                subsystems = true;
                        else {
                                status = adm_usage_error("trigger", "unknown type: %s", optarg);
                                goto out;
                        }
                        break;
                case 'c':
                        if ((int)uevent_action_from_string(optarg) < 0) {
                                status = adm_usage_error("trigger", "unknown action: %s", optarg);
                                goto out;
                        }
                        action = optarg;
                        break;
                case 's':
                        list = &f.subsystem_match;
                        break;
                case 'S':
                        list = &f.subsystem_nomatch;
                        break;
                case 'y':
                        list = &f.sysname_match;
                        break;
                case ARG_SYSNAME_NOMATCH:
                        list = &f.sysname_nomatch;
                        break;
                case 'p':
                        if (!strchr(optarg, '=') || optarg[0] == '=') {
                                status = adm_usage_error("trigger", "--property-match wants KEY=VALUE: %s", optarg);
                                goto out;
                        }
                        list = &f.property_match;
                        break;
                case 'G':
                        list = &f.tag_match;
                        break;
                case 'b':
                        list = &f.parent_match;
                        break;
                case 'w':
                        settle = true;
                        break;
                default:
                        goto out;
                }
                if (list && strv_push_copy(list, optarg) < 0) {
                        log_oom();
                        status = 1;
                        goto out;
                }
        }

        status = 1;
        bool filtering = f.subsystem_match || f.subsystem_nomatch || f.sysname_match || f.sysname_nomatch ||
                         f.property_match || f.tag_match || f.parent_match;
        /* The model reads devices; a plain coldplug needs none of it: the uevent files are all. */
        if (filtering || optind < argc) {
                r = model_new(ctx->sysfs_root, &m);
                if (r < 0) {
                        log_error_errno(r, "Cannot use %s as sysfs root: %m", ctx->sysfs_root);
                        goto out;
                }
        }
        /* parent matches are given as paths: make them canonical */
        STRV_FOREACH(p, f.parent_match) {
                struct device *d;
                r = model_resolve(m, *p, &d);
                if (r < 0) {
                        status = adm_usage_error("trigger", "no such device: %s", *p);
                        goto out;
                }
                free(*p);
                *(char **)p = strdup(d->devpath);
        }
        if (optind < argc) {
                /* explicit devices */
                for (int i = optind; i < argc; i++) {
                        struct device *d;
                        r = model_resolve(m, argv[i], &d);
                        if (r < 0) {
                                status = adm_usage_error("trigger", "no such device: %s", argv[i]);
                                goto out;
                        }
                        if (strv_push_copy(&paths, d->devpath) < 0)
                                goto out;
                }
                n = strv_length(paths);
        } else {
                r = sysfs_enumerate(ctx->sysfs_root, subsystems ? SYSFS_ENUM_SUBSYSTEMS : SYSFS_ENUM_DEVICES,
                                    &paths, &n);
                if (r < 0) {
                        log_error_errno(r, "Cannot enumerate %s: %m", ctx->sysfs_root);
                        goto out;
                }
        }

        rootfd = open(ctx->sysfs_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0) {
                log_error_errno(errno, "Cannot open %s: %m", ctx->sysfs_root);
                goto out;
        }
        for (size_t i = 0; i < n; i++) {
                if (filtering) {
                        struct device *d = NULL;
                        if (model_add_from_sysfs(m, paths[i], &d) < 0 || !matches(ctx, &f, d))
                                continue;
                }
                if (verbose)
                        printf("%s%s\n", streq(ctx->sysfs_root, "/") ? "" : ctx->sysfs_root, paths[i]);
                if (dry_run)
                        continue;
                r = write_uevent(rootfd, paths[i], action);
                if (r == -ENOMEM) {
                        log_oom();
                        goto out;
                }
                if (r < 0) {
                        /* devices can vanish, and some kobjects refuse synthetic events */
                        log_debug_errno(r, "Cannot write '%s' to %s/%s/uevent, ignoring: %m", action,
                                        ctx->sysfs_root, paths[i]);
                        continue;
                }
                triggered++;
        }
        log_debug("Triggered %zu devices", triggered);
        status = 0;
        if (settle && !dry_run) {
                r = adm_wait_for_queue(ctx, 120);
                if (r < 0) {
                        log_error_errno(r, "Events did not settle: %m");
                        status = 1;
                }
        }
out:
        filter_free(&f);
        return status;
}
