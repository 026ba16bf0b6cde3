/* SPDX-License-Identifier: MIT */
/*
 * devmanadm tree / classes: the class view of a sysfs tree, as a kernel developer checks it
 * after converting a class from class_device to device: is /sys/class/<c>/<n> a symlink into
 * /sys/devices (converted) or a directory of its own (legacy)?
 */
#include <getopt.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "adm.h"
#include "log.h"
#include "model.h"
#include "strv.h"
#include "sysfs.h"

/* Sorted names in dir (without dot entries); an empty list when dir is missing. */
static int list_dir(const char *dir, char ***ret)
{
        _cleanup_closedir_ DIR *d = opendir(dir);
        _cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
        struct dirent *de;
        if (!l)
                return -ENOMEM;
        while (d && (de = readdir(d)))
                if (de->d_name[0] != '.' && strv_push_copy(&l, de->d_name) < 0)
                        return -ENOMEM;
        strv_sort(l);
        *ret = TAKE_PTR(l);
        return d ? 0 : -ENOENT;
}

struct class_counts {
        unsigned converted, legacy, other;
};

/* Walks /sys/class/<c>; with print, prints each entry. The old block layout keeps its disks
 * in /sys/block, which counts for the block class. */
static int walk_class(const struct adm_ctx *ctx, struct model *m, const char *class, bool print,
                      struct class_counts *counts)
{
        _cleanup_free_ char *dir = NULL;
        _cleanup_strv_free_ char **entries = NULL;
        int r;

        if (asprintf(&dir, "%s/class/%s", ctx->sysfs_root, class) < 0)
                return -ENOMEM;
        r = list_dir(dir, &entries);
        if (r < 0)
                return r;
        if (streq(class, "block") && strv_length(entries) == 0) {
                free(dir);
                if (!(dir = path_join(ctx->sysfs_root, "block")))
                        return -ENOMEM;
                strv_free(entries);
                entries = NULL;
                (void)list_dir(dir, &entries);
        }
        if (print)
                printf("%s\n", dir);
        size_t n = strv_length(entries), i = 0;
        STRV_FOREACH(e, entries) {
                _cleanup_free_ char *path = path_join(dir, *e), *target = NULL;
                struct stat st;
                const char *kind;
                bool last = ++i == n;

                if (!path)
                        return -ENOMEM;
                if (lstat(path, &st) < 0)
                        continue;
                if (S_ISLNK(st.st_mode)) {
                        char buf[PATH_MAX];
                        ssize_t k = readlink(path, buf, sizeof(buf) - 1);
                        if (k < 0 || (size_t)k >= sizeof(buf) - 1)
                                continue;
                        buf[k] = '\0';
                        target = strdup(buf);
                        kind = "converted";
                        counts->converted++;
                } else if (S_ISDIR(st.st_mode)) {
                        kind = "legacy";
                        counts->legacy++;
                } else {
                        kind = "not a device";
                        counts->other++;
                }
                if (!print)
                        continue;
                struct device *d = NULL;
                _cleanup_free_ char *devpath = NULL;
                if (asprintf(&devpath, "%s/%s", dir + strlen(ctx->sysfs_root), *e) < 0)
                        return -ENOMEM;
                (void)model_resolve(m, devpath, &d);
                printf("%s %s", last ? "`--" : "|--", *e);
                if (target)
                        printf(" -> %s", target);
                printf("  [%s]", kind);
                if (d && d->devnum_type) {
                        _cleanup_free_ char *node = path_join(ctx->dev_root, d->devname ? d->devname : d->sysname);
                        struct stat ns;
                        bool made = node && stat(node, &ns) == 0 && ns.st_rdev == d->devnum &&
                                    (d->devnum_type == 'b' ? S_ISBLK(ns.st_mode) : S_ISCHR(ns.st_mode));
                        printf(" %c%u:%u node %s%s", d->devnum_type, major(d->devnum), minor(d->devnum),
                               node ? node : "?", made ? "" : " (not made)");
                } else if (d && d->ifindex > 0)
                        printf(" ifindex %d", d->ifindex);
                else if (kind[0] == 'l' && !d)
                        printf(" (no uevent)");
                printf("\n");
        }
        return 0;
}

static const char *verdict(const struct class_counts *c)
{
        if (c->converted && c->legacy)
                return "mixed";
        if (c->converted)
                return "converted";
        if (c->legacy)
                return "legacy";
        return "empty";
}

int verb_tree(const struct adm_ctx *ctx, int argc, char **argv)
{
        _cleanup_(model_freep) struct model *m = NULL;
        _cleanup_strv_free_ char **classes = NULL;
        _cleanup_free_ char *classdir = NULL;
        int r;

        if (argc > 1 && (streq(argv[1], "-h") || streq(argv[1], "--help"))) {
                printf("Usage: devmanadm tree [CLASS...]\n"
                       "\n"
                       "Print each class entry like 'tree /sys/class/CLASS': a symlink into /sys/devices\n"
                       "(converted) or a directory of its own (legacy), its devt and the node made for it\n"
                       "under the /dev root. Without CLASS, every class.\n");
                return 0;
        }
        for (int i = 1; i < argc; i++)
                if (argv[i][0] == '-')
                        return adm_usage_error("tree", "unknown option: %s", argv[i]);
        r = model_new(ctx->sysfs_root, &m);
        if (r >= 0)
                r = model_set_dev_root(m, ctx->dev_root);
        if (r < 0) {
                log_error_errno(r, "Cannot use %s as sysfs root: %m", ctx->sysfs_root);
                return 1;
        }
        if (argc > 1) {
                for (int i = 1; i < argc; i++)
                        if (strv_push_copy(&classes, argv[i]) < 0)
                                return 1;
        } else {
                classdir = path_join(ctx->sysfs_root, "class");
                if (!classdir || list_dir(classdir, &classes) < 0) {
                        log_error("Cannot list %s/class", ctx->sysfs_root);
                        return 1;
                }
        }
        int status = 0;
        STRV_FOREACH(c, classes) {
                struct class_counts counts = {0};
                r = walk_class(ctx, m, *c, true, &counts);
                if (r < 0) {
                        fprintf(stderr, "devmanadm tree: no class %s: %s\n", *c, strerror(-r));
                        status = 1;
                        continue;
                }
                printf("%u converted, %u legacy: %s\n\n", counts.converted, counts.legacy, verdict(&counts));
        }
        return status;
}

int verb_classes(const struct adm_ctx *ctx, int argc, char **argv)
{
        _cleanup_strv_free_ char **classes = NULL;
        _cleanup_free_ char *classdir = NULL;

        if (argc > 1 && (streq(argv[1], "-h") || streq(argv[1], "--help"))) {
                printf("Usage: devmanadm classes\n"
                       "\n"
                       "For every class of the sysfs tree: how many entries are converted (symlinks into\n"
                       "/sys/devices) and legacy (directories of their own), and the verdict: converted,\n"
                       "legacy, mixed or empty.\n");
                return 0;
        }
        if (argc > 1)
                return adm_usage_error("classes", "unexpected argument: %s", argv[1]);
        classdir = path_join(ctx->sysfs_root, "class");
        if (!classdir || list_dir(classdir, &classes) < 0) {
                log_error("Cannot list %s/class", ctx->sysfs_root);
                return 1;
        }
        /* the old block layout has no /sys/class/block, only /sys/block */
        _cleanup_free_ char *blockdir = path_join(ctx->sysfs_root, "block");
        struct stat st;
        if (!strv_contains(classes, "block") && blockdir && stat(blockdir, &st) == 0) {
                strv_push_copy(&classes, "block");
                strv_sort(classes);
        }
        printf("%-24s %9s %7s  %s\n", "CLASS", "CONVERTED", "LEGACY", "LAYOUT");
        STRV_FOREACH(c, classes) {
                struct class_counts counts = {0};
                if (walk_class(ctx, NULL, *c, false, &counts) < 0)
                        continue;
                printf("%-24s %9u %7u  %s\n", *c, counts.converted, counts.legacy, verdict(&counts));
        }
        return 0;
}
