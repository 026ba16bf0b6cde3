/* SPDX-License-Identifier: MIT */
#include "adm-snapshot.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "builtin.h"
#include "devman-config.h"
#include "log.h"
#include "model.h"
#include "sysfs-enum.h"
#include "node.h"
#include "process.h"
#include "queue.h"
#include "rules-load.h"
#include "snapshot-file.h"
#include "strv.h"

struct collected {
        struct device **devs; /* references */
        size_t n, cap;
        int error;
};

static void on_done(struct event *e, struct device *dev, int result, void *userdata)
{
        struct collected *c = userdata;
        if (!dev)
                return;
        if (c->n == c->cap) {
                size_t nc = c->cap ? c->cap * 2 : 256;
                struct device **nd = realloc(c->devs, nc * sizeof(*nd));
                if (!nd) {
                        c->error = -ENOMEM;
                        return;
                }
                c->devs = nd;
                c->cap = nc;
        }
        c->devs[c->n++] = device_ref(dev);
}

/* The sysname as it appears in a directory listing ('/' in names is '!' there). */
static const char *entry_name(const struct device *d)
{
        const char *b = strrchr(d->devpath, '/');
        return b ? b + 1 : d->devpath;
}

/* "subsystem/sysname", or "@devpath" for a device without a subsystem. New string. */
static char *device_key(const struct device *d)
{
        char *k = NULL;
        int r = d->subsystem ? asprintf(&k, "%s/%s", d->subsystem, d->sysname)
                             : asprintf(&k, "@%s", d->devpath);
        return r < 0 ? NULL : k;
}

static int compare_devices(const void *a, const void *b)
{
        const struct device *x = *(struct device *const *)a, *y = *(struct device *const *)b;
        /* by subsystem (devices without one last), sysname, devpath: doc/snapshot-format.md */
        int r = (x->subsystem == NULL) - (y->subsystem == NULL);
        if (r)
                return r;
        if (x->subsystem && (r = strcmp(x->subsystem, y->subsystem)))
                return r;
        if ((r = strcmp(x->sysname, y->sysname)))
                return r;
        return strcmp(x->devpath, y->devpath);
}

/* Where the device is found and how its class entry is laid out (see snapshot-file.h). */
static const char *class_entry(const struct model *m, const char *root_real, const struct device *d,
                               char **ret_found)
{
        *ret_found = NULL;
        switch (d->layout) {
        case DEVICE_LAYOUT_LEGACY:
                return "legacy";
        case DEVICE_LAYOUT_BUS:
                return "bus";
        case DEVICE_LAYOUT_OTHER:
                return "other";
        default:
                break;
        }
        /* converted: the class entry must be a symlink to this very device (disks: or /sys/block) */
        if (!d->subsystem)
                return "unlisted";
        for (int i = 0; i < 2; i++) {
                _cleanup_free_ char *entry = NULL, *target = NULL;
                const char *root = model_sysfs_root(m);
                if (i == 0 ? asprintf(&entry, "%s/class/%s/%s", root, d->subsystem, entry_name(d)) < 0
                           : !streq(d->subsystem, "block") ||
                                     asprintf(&entry, "%s/block/%s", root, entry_name(d)) < 0)
                        continue;
                target = realpath(entry, NULL);
                const char *rel = target ? startswith(target, root_real) : NULL;
                if (rel && streq(rel, d->devpath)) {
                        *ret_found = strdup(entry + strlen(root));
                        return "converted";
                }
        }
        return "unlisted";
}

static void put_field(FILE *f, const char *key, const char *value)
{
        fprintf(f, "%s ", key);
        snapshot_put_escaped(f, value ? value : "-", true);
        fputc('\n', f);
}

static void put_sorted(FILE *f, const char *key, char **l)
{
        strv_sort(l);
        STRV_FOREACH(s, l) {
                put_field(f, key, *s);
        }
}

static int write_device(FILE *f, const struct model *m, const char *root_real, struct device *d)
{
        _cleanup_free_ char *key = device_key(d), *found = NULL;
        _cleanup_strv_free_ char **props = NULL, **kprops = NULL, **links = NULL, **tags = NULL;
        if (!key)
                return -ENOMEM;
        const char *layout = class_entry(m, root_real, d, &found);

        put_field(f, "device", key);
        put_field(f, "found", found ? found : d->devpath);
        put_field(f, "devpath", d->devpath);
        put_field(f, "layout", layout);
        put_field(f, "subsystem", d->subsystem);
        put_field(f, "devtype", d->devtype);
        put_field(f, "driver", d->driver);
        if (d->devnum_type) {
                fprintf(f, "devt %c %u:%u\n", d->devnum_type, major(d->devnum), minor(d->devnum));
                put_field(f, "node", d->devname);
        } else {
                fprintf(f, "devt -\n");
                put_field(f, "node", NULL);
        }
        if (d->devnum_type && d->devname) {
                /* what the node gets: the rules' choice, else the kernel's, else the default */
                struct node_access a = process_node_access(d);
                node_access_for_new(&a);
                fprintf(f, "mode %04o\nowner %u:%u\n", (unsigned)a.mode, (unsigned)a.uid, (unsigned)a.gid);
        } else
                fprintf(f, "mode -\nowner -\n");
        if (d->udev &&
            (strv_copy(d->udev->links, &links) < 0 || strv_copy(d->udev->current_tags, &tags) < 0))
                return -ENOMEM;
        put_sorted(f, "link", links);
        put_sorted(f, "tag", tags);

        size_t it = 0;
        const char *entry;
        unsigned flags;
        while (props_next(&d->props, &it, &entry, &flags)) {
                /* DEVPATH is the devpath line; DEVNAME carries the /dev root, the node line does not */
                if (startswith(entry, "DEVPATH=") || startswith(entry, "DEVNAME="))
                        continue;
                if (strv_push_copy(flags & PROP_DB ? &props : &kprops, entry) < 0)
                        return -ENOMEM;
        }
        put_sorted(f, "prop", props);
        put_sorted(f, "kprop", kprops);

        for (struct device *p = d->parent; p; p = p->parent) {
                bool cls = p->layout == DEVICE_LAYOUT_CONVERTED || p->layout == DEVICE_LAYOUT_LEGACY;
                fprintf(f, "parent %s ", cls ? "class" : "bus");
                snapshot_put_escaped(f, p->subsystem ? p->subsystem : "-", false);
                fputc(' ', f);
                snapshot_put_escaped(f, p->driver ? p->driver : "-", false);
                fputc(' ', f);
                snapshot_put_escaped(f, p->sysname, true);
                fputc('\n', f);
        }
        fprintf(f, "end\n\n");
        return 0;
}

int snapshot_write(const struct snapshot_options *o, FILE *f)
{
        _cleanup_(model_freep) struct model *m = NULL;
        _cleanup_rules_free_ struct rules *rules = NULL;
        _cleanup_strv_free_ char **paths = NULL;
        _cleanup_free_ char *root_real = NULL;
        _cleanup_(devman_config_freep) struct devman_config *config = NULL;
        struct builtin_ctx bctx = {.sysfs_root = o->sysfs_root};
        struct collected c = {0};
        size_t n = 0;
        int r;

        r = model_new(o->sysfs_root, &m);
        if (r >= 0)
                r = model_set_dev_root(m, o->dev_root);
        if (r < 0)
                return log_error_errno(r, "Cannot use %s as sysfs root: %m", o->sysfs_root);
        /* children are limited as the daemon limits them */
        if (devman_config_new(&config) < 0)
                return log_oom();
        (void)devman_config_load(config, NULL, NULL);
        root_real = realpath(o->sysfs_root, NULL);
        if (!root_real)
                return log_error_errno(errno, "Cannot resolve %s: %m", o->sysfs_root);
        if (!o->no_rules) {
                struct rules_load_options lo = {.dirs = o->rules_dirs, .resolve_names = RESOLVE_NAMES_EARLY};
                r = rules_load(&lo, &rules);
                if (r < 0)
                        return log_error_errno(r, "Cannot load rules: %m");
                if (r > 0)
                        log_warning("%d rules lines had errors and were skipped", r);
        }
        r = sysfs_enumerate(o->sysfs_root, SYSFS_ENUM_ALL_DEVICES, &paths, &n);
        if (r < 0)
                return log_error_errno(r, "Cannot enumerate %s: %m", o->sysfs_root);

        if (builtin_init_all(&bctx) < 0)
                log_debug("Some builtins could not be initialised; rules using them will fail");
        struct process_ctx pctx = {
                .model = m,
                .dev_root = o->dev_root,
                .devfd = -1,
                .runfd = -1,
                .rules = rules,
                .builtins = &bctx,
                .event_timeout_usec = config->event_timeout_usec,
                .timeout_signal = config->timeout_signal,
                .dry_run = true,
        };
        for (size_t i = 0; i < n && c.error >= 0; i++) {
                struct uevent *ev = NULL;
                r = uevent_new(UEVENT_ADD, paths[i], NULL, &ev);
                if (r < 0) {
                        c.error = r;
                        break;
                }
                struct event e = {.uevent = ev, .seqnum = i + 1, .state = EVENT_RUNNING};
                r = process_event_wait(&pctx, &e, on_done, &c);
                if (r < 0)
                        log_warning_errno(r, "%s: could not process, left out of the snapshot: %m",
                                          paths[i]);
                uevent_free(ev);
        }
        builtin_exit_all(&bctx);
        if (c.error >= 0) {
                qsort(c.devs, c.n, sizeof(*c.devs), compare_devices);
                fprintf(f, "devman-snapshot %d\n", SNAPSHOT_FORMAT_VERSION);
                put_field(f, "sysfs-root", o->sysfs_root);
                fprintf(f, "created-by devmanadm %s\n", DEVMAN_VERSION);
                fprintf(f, "devices %zu\n\n", c.n);
                for (size_t i = 0; i < c.n && c.error >= 0; i++)
                        c.error = write_device(f, m, root_real, c.devs[i]);
        }
        for (size_t i = 0; i < c.n; i++)
                device_unref(c.devs[i]);
        free(c.devs);
        if (c.error < 0)
                return log_error_errno(c.error, "Cannot take the snapshot: %m");
        if (fflush(f) != 0 || ferror(f))
                return log_error_errno(errno ? errno : EIO, "Cannot write the snapshot: %m");
        return 0;
}

int snapshot_take(const struct snapshot_options *o, struct snapshot **ret)
{
        _cleanup_free_ char *buf = NULL, *name = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return log_oom();
        int r = snapshot_write(o, f);
        if (fclose(f) != 0 && r >= 0)
                r = log_oom();
        if (r < 0)
                return r;
        _cleanup_fclose_ FILE *m = fmemopen(buf, len, "r");
        if (!m || asprintf(&name, "<snapshot of %s>", o->sysfs_root) < 0)
                return log_oom();
        return snapshot_parse(m, name, ret);
}

static void help(void)
{
        printf("Usage: devmanadm [--sysfs=DIR] snapshot [OPTIONS]\n"
               "\n"
               "Record what devman would publish for every device of the sysfs tree, without\n"
               "touching /dev: devpath and the class entry it is found through, the entry's layout\n"
               "(converted symlink, legacy directory, unlisted, bus device), subsystem, devtype,\n"
               "driver, devt, node name, mode and owner, links, tags, properties from rules and\n"
               "builtins (prop) and from the kernel (kprop), and the parent chain. The rules run in\n"
               "dry-run mode (builtins in test mode; PROGRAM and IMPORT{program} do run).\n"
               "\n"
               "Format: devman-snapshot %d, text, one stanza per device sorted by\n"
               "SUBSYSTEM/SYSNAME; see doc/snapshot-format.md. Compare two with 'devmanadm compare'.\n"
               "\n"
               "  -h --help            Show this help\n"
               "  -o --output=FILE     Write to FILE instead of standard output\n"
               "     --sysfs=DIR       The sysfs tree (default: the global --sysfs, /sys)\n"
               "     --rules-dir=DIR   A rules directory (repeatable; replaces the defaults)\n"
               "     --no-rules        Evaluate no rules (kernel view only)\n",
               SNAPSHOT_FORMAT_VERSION);
}

int verb_snapshot(const struct adm_ctx *ctx, int argc, char **argv)
{
        enum { ARG_SYSFS = 0x100, ARG_RULES_DIR, ARG_NO_RULES };
        static const struct option options[] = {
                {"help", no_argument, NULL, 'h'},
                {"output", required_argument, NULL, 'o'},
                {"sysfs", required_argument, NULL, ARG_SYSFS},
                {"rules-dir", required_argument, NULL, ARG_RULES_DIR},
                {"no-rules", no_argument, NULL, ARG_NO_RULES},
                {},
        };
        struct snapshot_options o = {.sysfs_root = ctx->sysfs_root, .dev_root = ctx->dev_root};
        _cleanup_strv_free_ char **dirs = NULL;
        const char *output = NULL;
        int c, r;

        while ((c = getopt_long(argc, argv, "ho:", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case 'o':
                        output = optarg;
                        break;
                case ARG_SYSFS:
                        o.sysfs_root = optarg;
                        break;
                case ARG_RULES_DIR:
                        if (strv_push_copy(&dirs, optarg) < 0)
                                return log_oom(), 1;
                        break;
                case ARG_NO_RULES:
                        o.no_rules = true;
                        break;
                default:
                        return 2;
                }
        r = adm_no_arguments("snapshot", optind, argc, argv);
        if (r != 0)
                return r;
        o.rules_dirs = dirs;

        struct stat st;
        if (!output || streq(output, "-"))
                return snapshot_write(&o, stdout) < 0 ? 1 : 0;
        if (stat(output, &st) == 0 && !S_ISREG(st.st_mode)) {
                /* a tty or pipe (a VM's console, say): written in place */
                _cleanup_fclose_ FILE *f = fopen(output, "we");
                if (!f) {
                        log_error_errno(errno, "Cannot open %s: %m", output);
                        return 1;
                }
                return snapshot_write(&o, f) < 0 ? 1 : 0;
        }

        /* written next to the target and renamed: a failed run leaves no half snapshot */
        _cleanup_free_ char *tmp = NULL;
        if (asprintf(&tmp, "%s.tmpXXXXXX", output) < 0)
                return log_oom(), 1;
        int fd = mkstemp(tmp);
        if (fd < 0) {
                log_error_errno(errno, "Cannot create %s: %m", tmp);
                return 1;
        }
        FILE *f = fdopen(fd, "w");
        if (!f) {
                log_error_errno(errno, "Cannot open %s: %m", tmp);
                close(fd);
                unlink(tmp);
                return 1;
        }
        r = snapshot_write(&o, f);
        if (fclose(f) != 0 && r >= 0)
                r = log_error_errno(errno, "Cannot write %s: %m", tmp);
        if (r >= 0 && (chmod(tmp, 0644) < 0 || rename(tmp, output) < 0))
                r = log_error_errno(errno, "Cannot rename %s to %s: %m", tmp, output);
        if (r < 0) {
                unlink(tmp);
                return 1;
        }
        return 0;
}
