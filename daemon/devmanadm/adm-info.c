/* SPDX-License-Identifier: MIT */
/* devmanadm info: what devman knows about a device, in udevadm info's words. */
#include <getopt.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "adm.h"
#include "db.h"
#include "export.h"
#include "fs-util.h"
#include "log.h"
#include "model.h"
#include "strv.h"
#include "sysfs.h"

enum query {
        QUERY_ALL,
        QUERY_PATH,
        QUERY_NAME,
        QUERY_SYMLINK,
        QUERY_PROPERTY,
};

/* A node name (/dev/sda, sda) or a path to the device: the device it is. */
static int resolve_name(const struct adm_ctx *ctx, struct model *m, const char *name, struct device **ret)
{
        _cleanup_free_ char *path = NULL;
        struct stat st;
        const char *rel = startswith(name, ctx->dev_root);
        if (!rel && (rel = startswith(name, "/dev/")))
                rel--;
        if (rel && *rel == '/')
                rel++;
        else if (name[0] != '/')
                rel = name;
        else
                return -EINVAL;
        path = path_join(ctx->dev_root, rel);
        if (!path)
                return -ENOMEM;
        if (stat(path, &st) < 0)
                return negative_errno();
        if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
                return -ENOTTY;
        char type = S_ISBLK(st.st_mode) ? 'b' : 'c';
        int r = model_scan(m);
        if (r < 0)
                return r;
        struct device *d = model_get_by_devnum(m, type, st.st_rdev);
        if (!d)
                return -ENODEV;
        *ret = d;
        return 0;
}

/* udevadm info's record, database included (db.c prints it). */
static void print_record(const struct adm_ctx *ctx, const struct device *d)
{
        if (db_print_record(stdout, d, ctx->dev_root) < 0)
                log_oom();
        printf("\n");
}

/* Readable, single-line-ish attributes are printed by --attribute-walk, as udevadm does. */
static bool attr_is_printable(struct device *d, const char *sysfs_root, const char *name, const char **ret,
                              int *ret_len)
{
        const char *v;
        if (device_get_sysattr(d, sysfs_root, name, &v) < 0 || !v)
                return false;
        size_t len = strlen(v);
        while (len > 0 && (v[len - 1] == '\n' || v[len - 1] == ' '))
                len--;
        for (size_t i = 0; i < len; i++)
                if ((unsigned char)v[i] < 0x20 && v[i] != '\t')
                        return false;
        *ret = v;
        *ret_len = (int)len; /* without the trailing newline */
        return true;
}

static void print_attrs(struct device *d, const char *sysfs_root, bool parent)
{
        _cleanup_free_ char *syspath = device_syspath(d, sysfs_root);
        _cleanup_closedir_ DIR *dir = syspath ? opendir(syspath) : NULL;
        _cleanup_strv_free_ char **names = NULL;
        struct dirent *de;
        const char *s = parent ? "S" : "";

        printf("  looking at %sdevice '%s':\n", parent ? "parent " : "", d->devpath);
        printf("    KERNEL%s==\"%s\"\n", s, d->sysname);
        printf("    SUBSYSTEM%s==\"%s\"\n", s, strempty(d->subsystem));
        printf("    DRIVER%s==\"%s\"\n", s, strempty(d->driver));
        while (dir && (de = fs_readdir(dir, true)))
                if (!streq(de->d_name, "uevent") && !streq(de->d_name, "dev"))
                        strv_push_copy(&names, de->d_name);
        strv_sort(names);
        STRV_FOREACH(n, names) {
                const char *v;
                int len;
                if (attr_is_printable(d, sysfs_root, *n, &v, &len))
                        printf("    ATTR%s{%s}==\"%.*s\"\n", s, *n, len, v);
        }
        printf("\n");
}

static void help(void)
{
        printf("Usage: devmanadm info [OPTIONS] [DEVPATH|NODE]\n"
               "\n"
               "Show what devman knows about a device.\n"
               "\n"
               "  -h --help                  Show this help\n"
               "  -q --query=TYPE            all, path, name, symlink or property (default all)\n"
               "  -p --path=DEVPATH          The device by its sysfs path\n"
               "  -n --name=NODE             The device by its node name\n"
               "  -a --attribute-walk        Print the device's and its parents' attributes as rule keys\n"
               "  -e --export-db             Print every device of the model with its database entry\n"
               "  -c --cleanup-db            Remove the database, except db_persist entries\n"
               "  -r --root                  Prepend the /dev root to names and links\n");
}

int verb_info(const struct adm_ctx *ctx, int argc, char **argv)
{
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"query", required_argument, NULL, 'q'},
                {"path", required_argument, NULL, 'p'},
                {"name", required_argument, NULL, 'n'},
                {"attribute-walk", no_argument, NULL, 'a'},
                {"export-db", no_argument, NULL, 'e'},
                {"cleanup-db", no_argument, NULL, 'c'},
                {"root", no_argument, NULL, 'r'},
                {}
        };
        _cleanup_(model_freep) struct model *m = NULL;
        const char *path = NULL, *name = NULL;
        enum query query = QUERY_ALL;
        bool walk = false, export_db = false, cleanup_db = false, root = false;
        struct device *d = NULL;
        int c, r;

        while ((c = getopt_long(argc, argv, "hq:p:n:acer", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case 'q':
                        if (streq(optarg, "all"))
                                query = QUERY_ALL;
                        else if (streq(optarg, "path"))
                                query = QUERY_PATH;
                        else if (streq(optarg, "name"))
                                query = QUERY_NAME;
                        else if (streq(optarg, "symlink"))
                                query = QUERY_SYMLINK;
                        else if (streq(optarg, "property") || streq(optarg, "env"))
                                query = QUERY_PROPERTY;
                        else
                                return adm_usage_error("info", "unknown query type: %s", optarg);
                        break;
                case 'p':
                        path = optarg;
                        break;
                case 'n':
                        name = optarg;
                        break;
                case 'a':
                        walk = true;
                        break;
                case 'e':
                        export_db = true;
                        break;
                case 'c':
                        cleanup_db = true;
                        break;
                case 'r':
                        root = true;
                        break;
                default:
                        return 2;
                }
        }
        if (optind < argc) {
                if (path || name || optind + 1 < argc)
                        return adm_usage_error("info", "unexpected argument: %s", argv[optind]);
                if (startswith(argv[optind], "/dev/") || argv[optind][0] != '/')
                        name = argv[optind];
                else
                        path = argv[optind];
        }
        if (cleanup_db) {
                r = db_cleanup(ctx->run_root);
                if (r < 0 && r != -ENOENT) {
                        log_error_errno(r, "Cannot clean up %s: %m", ctx->run_root);
                        return 1;
                }
                if (!export_db && !path && !name)
                        return 0;
        }
        if (!export_db && !path && !name)
                return adm_usage_error("info", "a device is needed: --path, --name, or --export-db");

        r = adm_model_open(ctx->sysfs_root, ctx->dev_root, &m);
        if (r != 0)
                return r;
        if (export_db) {
                r = model_scan(m);
                if (r < 0) {
                        log_error_errno(r, "Cannot scan %s: %m", ctx->sysfs_root);
                        return 1;
                }
                r = db_export(m, ctx->run_root, stdout);
                if (r < 0) {
                        log_error_errno(r, "Cannot export the database: %m");
                        return 1;
                }
                return 0;
        }
        r = path ? model_resolve(m, path, &d) : resolve_name(ctx, m, name, &d);
        if (r < 0) {
                fprintf(stderr, "devmanadm info: no device for %s: %s\n", path ? path : name, strerror(-r));
                return 1;
        }
        r = db_read(ctx->run_root, d);
        if (r < 0 && r != -ENODATA)
                log_warning_errno(r, "Cannot read the database entry of %s: %m", d->devpath);
        if (walk) {
                printf("\nWalking up the chain of parent devices from '%s', each printed as rule keys.\n\n",
                       d->devpath);
                for (struct device *p = d; p; p = p->parent)
                        print_attrs(p, ctx->sysfs_root, p != d);
                return 0;
        }
        const char *prefix = root ? ctx->dev_root : "";
        const char *sep = root ? "/" : "";
        switch (query) {
        case QUERY_ALL:
                print_record(ctx, d);
                break;
        case QUERY_PATH:
                printf("%s\n", d->devpath);
                break;
        case QUERY_NAME:
                if (!d->devname) {
                        fprintf(stderr, "devmanadm info: %s has no device node\n", d->devpath);
                        return 1;
                }
                printf("%s%s%s\n", prefix, sep, d->devname);
                break;
        case QUERY_SYMLINK: {
                bool first = true;
                STRV_FOREACH(l, d->udev ? d->udev->links : NULL) {
                        printf("%s%s%s%s", first ? "" : " ", prefix, sep, *l);
                        first = false;
                }
                printf("\n");
                break;
        }
        case QUERY_PROPERTY: {
                struct props p = PROPS_INIT;
                if (export_properties(d, ctx->dev_root, NULL, 0, &p) < 0)
                        return log_oom(), 1;
                size_t it = 0;
                const char *e;
                while (props_next(&p, &it, &e, NULL))
                        printf("%s\n", e);
                props_clear(&p);
                break;
        }
        }
        return 0;
}
