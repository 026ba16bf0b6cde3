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

#include "adm-snapshot.h"
#include "adm.h"
#include "fs-util.h"
#include "hashmap.h"
#include "log.h"
#include "model.h"
#include "strv.h"
#include "snapshot-file.h"
#include "sysfs.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct hashmap, hashmap_free)

/* Sorted names in dir (without dot entries); an empty list when dir is missing. */
static int list_dir(const char *dir, char ***ret)
{
        _cleanup_closedir_ DIR *d = opendir(dir);
        _cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
        struct dirent *de;
        if (!l)
                return -ENOMEM;
        while (d && (de = fs_readdir(d, true)))
                if (strv_push_copy(&l, de->d_name) < 0)
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
        /* no /sys/class/block at all is the old layout, not an error */
        if (r < 0 && !(r == -ENOENT && streq(class, "block")))
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
        r = adm_model_open(ctx->sysfs_root, ctx->dev_root, &m);
        if (r != 0)
                return r;
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

/* classes --compare: per class, how many class devices were converted, legacy or unlisted
 * (see snapshot-file.h) in each snapshot. */
struct layout_counts {
        unsigned n[2][3]; /* [before, after][converted, legacy, unlisted] */
        char name[];
};

static int count_layouts(const struct snapshot *s, struct hashmap *h, int side)
{
        static const char *const kinds[] = {"converted", "legacy", "unlisted"};
        for (size_t i = 0; i < s->n_devices; i++) {
                const struct snapshot_device *d = &s->devices[i];
                int k = 0;
                while (k < 3 && !streq(d->layout, kinds[k]))
                        k++;
                if (k == 3 || !d->subsystem)
                        continue;
                struct layout_counts *c = hashmap_get(h, d->subsystem);
                if (!c) {
                        c = calloc(1, sizeof(*c) + strlen(d->subsystem) + 1);
                        if (!c)
                                return -ENOMEM;
                        strcpy(c->name, d->subsystem);
                        if (hashmap_put(h, c->name, c) < 0) {
                                free(c);
                                return -ENOMEM;
                        }
                }
                c->n[side][k]++;
        }
        return 0;
}

static const char *layout_verdict(const unsigned *n)
{
        if (!!n[0] + !!n[1] + !!n[2] > 1)
                return "mixed";
        return n[0] ? "converted" : n[1] ? "legacy" : n[2] ? "unlisted" : "absent";
}

static int cmp_counts(const void *a, const void *b)
{
        return strcmp((*(struct layout_counts *const *)a)->name, (*(struct layout_counts *const *)b)->name);
}

static int classes_compare(const struct adm_ctx *ctx, const char *old_path)
{
        /* the layouts need no rules */
        struct snapshot_options so = {.sysfs_root = ctx->sysfs_root, .dev_root = ctx->dev_root, .no_rules = true};
        _cleanup_(snapshot_freep) struct snapshot *old = NULL, *now = NULL;
        _cleanup_(hashmap_freep) struct hashmap *h = NULL;
        _cleanup_free_ struct layout_counts **v = NULL;
        size_t n = 0;
        int r;

        if (snapshot_read(old_path, &old) < 0 || snapshot_take(&so, &now) < 0)
                return 2;
        h = hashmap_new_string();
        r = h ? count_layouts(old, h, 0) : -ENOMEM;
        if (r >= 0)
                r = count_layouts(now, h, 1);
        if (r >= 0 && !(v = calloc(hashmap_size(h) + 1, sizeof(*v))))
                r = -ENOMEM;
        if (r >= 0) {
                struct hashmap_iter it = HASHMAP_ITER_INIT;
                void *val;
                while (hashmap_iterate(h, &it, NULL, &val))
                        v[n++] = val;
                qsort(v, n, sizeof(*v), cmp_counts);
                printf("%-20s %-30s %s\n", "CLASS", "BEFORE (conv/legacy/unlisted)", "AFTER");
                for (size_t i = 0; i < n; i++) {
                        const unsigned *b = v[i]->n[0], *a = v[i]->n[1];
                        _cleanup_free_ char *before = NULL;
                        if (asprintf(&before, "%s %u/%u/%u", layout_verdict(b), b[0], b[1], b[2]) < 0) {
                                r = -ENOMEM;
                                break;
                        }
                        printf("%-20s %-30s %s %u/%u/%u\n", v[i]->name, before, layout_verdict(a), a[0], a[1], a[2]);
                }
        }
        struct hashmap_iter it = HASHMAP_ITER_INIT;
        void *val;
        while (h && hashmap_iterate(h, &it, NULL, &val))
                free(val);
        if (r < 0) {
                log_oom();
                return 1;
        }
        return 0;
}

int verb_classes(const struct adm_ctx *ctx, int argc, char **argv)
{
        _cleanup_strv_free_ char **classes = NULL;
        _cleanup_free_ char *classdir = NULL;

        if (argc > 1 && (streq(argv[1], "-h") || streq(argv[1], "--help"))) {
                printf("Usage: devmanadm classes [--compare OLD]\n"
                       "\n"
                       "For every class of the sysfs tree: how many entries are converted (symlinks into\n"
                       "/sys/devices) and legacy (directories of their own), and the verdict: converted,\n"
                       "legacy, mixed or empty.\n"
                       "\n"
                       "  --compare OLD   Per class, the layout in the snapshot OLD (devmanadm snapshot)\n"
                       "                  and in the sysfs tree now: counts of converted, legacy and\n"
                       "                  unlisted (a class device its class entry does not lead to)\n"
                       "                  devices, and converted/legacy/mixed for each side.\n");
                return 0;
        }
        if (argc == 3 && streq(argv[1], "--compare"))
                return classes_compare(ctx, argv[2]);
        if (argc == 2 && startswith(argv[1], "--compare="))
                return classes_compare(ctx, argv[1] + strlen("--compare="));
        if (argc > 1 && startswith(argv[1], "--compare"))
                return adm_usage_error("classes", "--compare needs a snapshot file");
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
