/* SPDX-License-Identifier: MIT */
/*
 * Test helper: runs one builtin on one device, the way the rules engine does, and prints the
 * properties it set ("KEY=VALUE", sorted), to compare with `udevadm test-builtin`.
 *
 *   builtin-run [--sysfs ROOT] [--root PREFIX] [--dev-root DIR] [--property KEY=VALUE]... PATH COMMAND
 *
 * --property sets a property on the device first (what earlier rules would have imported);
 * --test runs the builtin in test mode; --repeat=N runs it N times with one builtin context.
 * PATH is a devpath or a /sys path (resolved in ROOT); COMMAND is the builtin command line
 * ("blkid --noraid"). Exit status: 0, 1 when the builtin failed, 2 for bad usage.
 */
#include <getopt.h>

#include "builtin.h"
#include "log.h"
#include "model.h"
#include "strv.h"

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
        static const struct option options[] = {
                {"sysfs", required_argument, NULL, 's'},
                {"root", required_argument, NULL, 'r'},
                {"dev-root", required_argument, NULL, 'd'},
                {"property", required_argument, NULL, 'p'},
                {"test", no_argument, NULL, 't'},
                {"repeat", required_argument, NULL, 'n'},
                {"needs-child", no_argument, NULL, 'c'},
                {},
        };
        const char *sysfs = "/sys", *root = NULL, *dev_root = "/dev";
        char **props = NULL;
        bool test = false, ask = false;
        int repeat = 1;
        int c;
        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 's': sysfs = optarg; break;
                case 'r': root = optarg; break;
                case 'd': dev_root = optarg; break;
                case 't': test = true; break;
                case 'c': ask = true; break;
                case 'n': repeat = atoi(optarg); break;
                case 'p':
                        if (!strchr(optarg, '=') || strv_push_copy(&props, optarg) < 0)
                                return 2;
                        break;
                default: return 2;
                }
        if (argc - optind != 2) {
                fprintf(stderr, "usage: builtin-run [--sysfs ROOT] [--root PREFIX] [--dev-root DIR] PATH COMMAND\n");
                return 2;
        }
        if (getenv("DEVMAN_LOG_LEVEL"))
                log_set_max_level(log_level_from_string(getenv("DEVMAN_LOG_LEVEL")));

        _cleanup_(model_freep) struct model *m = NULL;
        struct device *dev;
        int r = model_new(sysfs, &m);
        if (r >= 0)
                r = model_set_dev_root(m, dev_root);
        if (r >= 0)
                r = model_resolve(m, argv[optind], &dev);
        if (r < 0) {
                fprintf(stderr, "builtin-run: %s: %s\n", argv[optind], strerror(-r));
                return 1;
        }
        STRV_FOREACH(p, props) {
                char *eq = strchr(*p, '=');
                *eq = '\0';
                if (props_set(&dev->props, *p, eq + 1, PROP_KERNEL) < 0)
                        return 1;
        }
        props = strv_free(props);
        const struct builtin *b = builtin_lookup(argv[optind + 1]);
        if (!b) {
                fprintf(stderr, "builtin-run: unknown builtin in '%s'\n", argv[optind + 1]);
                return 2;
        }
        struct builtin_ctx ctx = {.sysfs_root = sysfs, .root = root};
        r = builtin_init_all(&ctx);
        if (r >= 0 && ask) { /* only whether a daemon would run it in a child */
                r = builtin_needs_child(b, &ctx, dev, argv[optind + 1]);
                if (r >= 0)
                        printf("needs-child: %d\n", r);
                builtin_exit_all(&ctx);
                return r < 0 ? 1 : 0;
        }
        for (int i = 0; r >= 0 && i < repeat; i++)
                r = builtin_run(b, &ctx, dev, argv[optind + 1], test);
        builtin_exit_all(&ctx);
        if (r < 0) {
                fprintf(stderr, "builtin-run: %s: %s\n", argv[optind + 1], strerror(-r));
                return 1;
        }

        char **lines = NULL;
        size_t n = 0, it = 0;
        const char *e;
        unsigned flags;
        while (props_next(&dev->props, &it, &e, &flags))
                if (flags & PROP_DB) {
                        char **nl = realloc(lines, (n + 1) * sizeof(char *));
                        if (!nl)
                                return 1;
                        lines = nl;
                        lines[n++] = (char *)e;
                }
        if (n > 0)
                qsort(lines, n, sizeof(char *), cmp_str);
        for (size_t i = 0; !test && i < n; i++) /* test mode printed them already */
                printf("%s\n", lines[i]);
        free(lines);
        return 0;
}
