/* SPDX-License-Identifier: MIT */
/* devmanadm test-builtin: runs one builtin on a device in test mode and prints the properties
 * it sets, one KEY=VALUE per line (what udevadm test-builtin prints on stdout). */
#include <getopt.h>

#include "adm.h"
#include "builtin.h"
#include "db.h"
#include "log.h"
#include "model.h"

static void help(void)
{
        printf("Usage: devmanadm test-builtin [OPTIONS] COMMAND DEVPATH\n"
               "\n"
               "Run a builtin command on a device and print the properties it sets. The device's\n"
               "entry in the udev database (--run) is loaded first. Nothing outside the device\n"
               "record is changed.\n"
               "\n"
               "  -h --help     Show this help\n"
               "\n"
               "COMMAND is the builtin with its arguments as one word, e.g. 'hwdb --subsystem=usb'.\n"
               "DEVPATH is /sys/..., a path below the sysfs root, or /class/<c>/<n>.\n"
               "\n"
               "Builtins:\n");
        for (unsigned i = 0; i < builtin_count(); i++) {
                const struct builtin *b = builtin_get(i);
                printf("  %-16s %s%s\n", b->name, b->help, b->run ? "" : " (not available)");
        }
}

/* The devpath below the sysfs root for what the user named. */
static const char *strip_root(const struct adm_ctx *ctx, const char *path)
{
        const char *rel = startswith(path, ctx->sysfs_root);
        if (rel && rel[0] == '/')
                return rel;
        rel = startswith(path, "/sys/");
        if (rel)
                return rel - 1;
        return path;
}

int verb_test_builtin(const struct adm_ctx *ctx, int argc, char **argv)
{
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"action", required_argument, NULL, 'a'},
                {}
        };
        int c;

        while ((c = getopt_long(argc, argv, "ha:", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case 'a':
                        break; /* accepted for udevadm compatibility; builtins do not look at it */
                default:
                        return 2;
                }
        if (argc - optind != 2)
                return adm_usage_error("test-builtin", "expected two arguments: command and device path");
        const char *cmd = argv[optind], *path = argv[optind + 1];

        const struct builtin *b = builtin_lookup(cmd);
        if (!b)
                return adm_usage_error("test-builtin", "unknown builtin command '%s'", cmd);

        _cleanup_(model_freep) struct model *m = NULL;
        int r = adm_model_open(ctx->sysfs_root, ctx->dev_root, &m);
        if (r != 0)
                return r;
        struct device *dev;
        r = model_resolve(m, strip_root(ctx, path), &dev);
        if (r < 0) {
                log_error_errno(r, "Cannot find device %s: %m", path);
                return 1;
        }

        /* what rules already recorded for the device counts, as for udevadm (usb_id, for one,
         * leaves an ID_BUS set by an earlier identification alone) */
        r = db_read(ctx->run_root, dev);
        if (r < 0)
                log_debug_errno(r, "Ignoring the database entry of %s: %m", path);

        struct builtin_ctx bctx = {.sysfs_root = ctx->sysfs_root};
        if (b->init) {
                r = b->init(&bctx);
                if (r < 0) {
                        log_error_errno(r, "Builtin '%s' failed to initialise: %m", b->name);
                        return 1;
                }
        }
        /* print what the builtin sets (also values the database already had): the properties
         * known before the run lose PROP_DB, so afterwards only the builtin's carry it */
        _cleanup_strv_free_ char **known = NULL;
        size_t it = 0;
        const char *entry;
        unsigned flags;
        while (props_next(&dev->props, &it, &entry, &flags))
                if ((flags & PROP_DB) && strv_push_copy(&known, entry) < 0)
                        return log_oom(), 1;
        STRV_FOREACH(k, known) {
                size_t kl = props_key_len(*k);
                (*k)[kl] = '\0';
                (void)props_set(&dev->props, *k, *k + kl + 1, PROP_KERNEL);
        }
        r = builtin_run(b, &bctx, dev, cmd, true);
        it = 0;
        while (r >= 0 && props_next(&dev->props, &it, &entry, &flags))
                if (flags & PROP_DB)
                        printf("%s\n", entry);
        fflush(stdout);
        if (b->exit)
                b->exit(&bctx);
        if (r < 0) {
                log_debug_errno(r, "Builtin command '%s' failed: %m", cmd);
                return 1;
        }
        return 0;
}
