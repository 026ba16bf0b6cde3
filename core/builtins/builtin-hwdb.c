/* SPDX-License-Identifier: MIT */
#include "builtin-hwdb.h"

#include <fnmatch.h>
#include <stdio.h>
#include <sys/sysmacros.h>

#include "builtin-util.h"
#include "fs-util.h"
#include "hwdb.h"
#include "log.h"
#include "model.h"

struct hwdb_state {
        struct hwdb *hwdb;
        bool standard; /* opened from the standard location: reopen when it changes */
};

static struct hwdb_state *get_state(struct builtin_ctx *ctx)
{
        unsigned i = builtin_index(builtin_lookup("hwdb"));
        if (!ctx->state[i])
                ctx->state[i] = calloc(1, sizeof(struct hwdb_state));
        return ctx->state[i];
}

int builtin_hwdb_init(struct builtin_ctx *ctx)
{
        struct hwdb_state *s = get_state(ctx);
        if (!s)
                return -ENOMEM;
        if (s->hwdb)
                return 0;
        int r = hwdb_open(NULL, NULL, &s->hwdb);
        if (r == -ENOENT) {
                log_debug("No hardware database found; the hwdb builtin will find nothing.");
                s->standard = true;
                return 0;
        }
        if (r < 0)
                return r;
        s->standard = true;
        return 0;
}

void builtin_hwdb_exit(struct builtin_ctx *ctx)
{
        unsigned i = builtin_index(builtin_lookup("hwdb"));
        struct hwdb_state *s = ctx->state[i];
        if (!s)
                return;
        hwdb_free(s->hwdb);
        free(s);
        ctx->state[i] = NULL;
}

void builtin_hwdb_trim(struct builtin_ctx *ctx)
{
        unsigned i = builtin_index(builtin_lookup("hwdb"));
        struct hwdb_state *s = ctx->state[i];
        if (s && s->hwdb)
                hwdb_trim(s->hwdb);
}

int builtin_hwdb_use(struct builtin_ctx *ctx, struct hwdb *h)
{
        struct hwdb_state *s = get_state(ctx);
        if (!s) {
                hwdb_free(h);
                return -ENOMEM;
        }
        hwdb_free(s->hwdb);
        s->hwdb = h;
        s->standard = false;
        return 0;
}

/* The handle, reopened first when the standard database was replaced. NULL when none. */
static struct hwdb *get_hwdb(struct builtin_ctx *ctx)
{
        struct hwdb_state *s = get_state(ctx);
        if (!s)
                return NULL;
        if (s->standard && (!s->hwdb || hwdb_is_stale(s->hwdb))) {
                struct hwdb *h = NULL;
                if (hwdb_open(NULL, NULL, &h) >= 0) {
                        hwdb_free(s->hwdb);
                        s->hwdb = h;
                }
        }
        return s->hwdb;
}

int builtin_hwdb_lookup(struct builtin_ctx *ctx, struct device *dev, const char *prefix, const char *key,
                        const char *filter, bool test)
{
        struct hwdb *h = get_hwdb(ctx);
        const struct hwdb_property *props;
        _cleanup_free_ char *joined = NULL;
        int n, added = 0;

        if (!h)
                return -ENOENT;
        if (prefix) {
                if (asprintf(&joined, "%s%s", prefix, key) < 0)
                        return -ENOMEM;
                key = joined;
        }
        n = hwdb_lookup(h, key, &props);
        for (int i = 0; i < n; i++) {
                if (filter && fnmatch(filter, props[i].key, FNM_NOESCAPE) != 0)
                        continue;
                int r = builtin_add_property(dev, test, props[i].key, props[i].value);
                if (r < 0) {
                        n = r;
                        break;
                }
                added++;
        }
        return n < 0 ? n : added;
}

/* A USB device without MODALIAS: "usb:vVVVVpPPPP:product". NULL when the ids are missing. */
static char *usb_modalias(const struct builtin_ctx *ctx, struct device *d)
{
        _cleanup_free_ char *v = builtin_sysattr_opt(ctx, d, "idVendor");
        _cleanup_free_ char *p = builtin_sysattr_opt(ctx, d, "idProduct");
        _cleanup_free_ char *name = builtin_sysattr_opt(ctx, d, "product");
        char *end, *s = NULL;

        if (!v || !p)
                return NULL;
        errno = 0;
        unsigned long vn = strtoul(v, &end, 16);
        if (errno || end == v || *end || vn > 0xffff || v[0] == '-')
                return NULL;
        unsigned long pn = strtoul(p, &end, 16);
        if (errno || end == p || *end || pn > 0xffff || p[0] == '-')
                return NULL;
        if (asprintf(&s, "usb:v%04lXp%04lX:%s", vn, pn, strempty(name)) < 0)
                return NULL;
        return s;
}

/* Walks from src up: the first device (of subsystem, if given) whose modalias finds
 * something. A USB device ends the walk: its parents are hubs. */
static int search(struct builtin_ctx *ctx, struct device *dev, struct device *src, const char *subsystem,
                  const char *prefix, const char *filter, bool test)
{
        int r = 0;

        for (struct device *d = src; d; d = d->parent) {
                if (!d->subsystem || (subsystem && !streq(d->subsystem, subsystem)))
                        continue;
                _cleanup_free_ char *composed = NULL;
                const char *modalias = device_get_property(d, "MODALIAS");
                bool last = false;
                if (streq(d->subsystem, "usb") && streq_ptr(builtin_devtype(d), "usb_device")) {
                        if (!modalias)
                                modalias = composed = usb_modalias(ctx, d);
                        last = true;
                }
                if (!modalias)
                        continue;
                log_debug("%s: hwdb modalias key: \"%s\"", dev->sysname, modalias);
                r = builtin_hwdb_lookup(ctx, dev, prefix, modalias, filter, test);
                if (r > 0 || last)
                        break;
        }
        return r;
}

/* The device a --device=ID names: "b8:0", "c189:1", "n2" or "+subsystem:sysname". */
static int device_from_id(const struct builtin_ctx *ctx, struct device *ref, const char *id, struct device **ret)
{
        unsigned maj, min;
        char type;
        int n = 0;

        if (!ref->model)
                return -ENODEV;
        if ((id[0] == 'b' || id[0] == 'c') && sscanf(id, "%c%u:%u%n", &type, &maj, &min, &n) == 3 && !id[n]) {
                struct device *d = model_get_by_devnum(ref->model, type, makedev(maj, min));
                if (d) {
                        *ret = d;
                        return 0;
                }
                _cleanup_free_ char *path = NULL;
                if (asprintf(&path, "/dev/%s/%u:%u", type == 'b' ? "block" : "char", maj, min) < 0)
                        return -ENOMEM;
                return model_resolve(ref->model, path, ret);
        }
        if (id[0] == 'n') {
                char *end;
                errno = 0;
                long ifindex = strtol(id + 1, &end, 10);
                if (errno || end == id + 1 || *end || ifindex <= 0)
                        return -EINVAL;
                /* the interfaces are not necessarily in the model yet: look at sysfs */
                _cleanup_free_ char *dir = NULL;
                if (asprintf(&dir, "%s/class/net", ctx->sysfs_root) < 0)
                        return -ENOMEM;
                _cleanup_closedir_ DIR *dp = opendir(dir);
                struct dirent *de;
                while (dp && (de = fs_readdir(dp, true))) {
                        _cleanup_free_ char *path = NULL;
                        struct device *d;
                        if (asprintf(&path, "/class/net/%s", de->d_name) < 0)
                                return -ENOMEM;
                        if (model_resolve(ref->model, path, &d) < 0)
                                continue;
                        _cleanup_free_ char *idx = builtin_sysattr_opt(ctx, d, "ifindex");
                        if (idx && strtol(idx, NULL, 10) == ifindex) {
                                *ret = d;
                                return 0;
                        }
                }
                return -ENODEV;
        }
        if (id[0] == '+') {
                const char *colon = strchr(id + 1, ':');
                if (!colon || colon == id + 1 || !colon[1])
                        return -EINVAL;
                _cleanup_free_ char *subsystem = strndup(id + 1, (size_t)(colon - id - 1));
                if (!subsystem)
                        return -ENOMEM;
                return builtin_device_by_subsystem_sysname(ref, subsystem, colon + 1, ret);
        }
        return -EINVAL;
}

/* "--name=value", "--name value", "-x value", "-xvalue": the value, advancing *i. */
static const char *option_value(int argc, char **argv, int *i, const char *lng, char shrt, bool *matched)
{
        const char *a = argv[*i], *v;
        *matched = false;
        if ((v = startswith(a, lng))) {
                if (*v == '=') {
                        *matched = true;
                        return v + 1;
                }
                if (*v)
                        return NULL;
        } else if (a[0] == '-' && a[1] == shrt) {
                if (a[2]) {
                        *matched = true;
                        return a + 2;
                }
        } else
                return NULL;
        *matched = true;
        if (*i + 1 >= argc)
                return NULL;
        return argv[++*i];
}

int builtin_hwdb_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test)
{
        static const struct {
                const char *lng;
                char shrt;
        } opts[] = {{"--filter", 'f'}, {"--device", 'd'}, {"--subsystem", 's'}, {"--lookup-prefix", 'p'}};
        const char *values[ELEMENTSOF(opts)] = {};
        const char *key = NULL;
        int r;

        for (int i = 1; i < argc; i++) {
                if (argv[i][0] != '-' || !argv[i][1]) {
                        if (!key)
                                key = argv[i];
                        continue;
                }
                if (streq(argv[i], "--")) {
                        if (!key && i + 1 < argc)
                                key = argv[i + 1];
                        break;
                }
                bool matched = false;
                for (size_t o = 0; o < ELEMENTSOF(opts) && !matched; o++) {
                        const char *v = option_value(argc, argv, &i, opts[o].lng, opts[o].shrt, &matched);
                        if (matched) {
                                if (!v)
                                        return -EINVAL;
                                values[o] = v;
                        }
                }
                if (!matched)
                        return -EINVAL;
        }
        const char *filter = values[0], *device = values[1], *subsystem = values[2], *prefix = values[3];

        if (!get_hwdb(ctx))
                return -ENOENT;

        if (key)
                r = builtin_hwdb_lookup(ctx, dev, prefix, key, filter, test);
        else {
                struct device *src = dev;
                if (device) {
                        r = device_from_id(ctx, dev, device, &src);
                        if (r < 0)
                                return log_debug_errno(r, "hwdb: cannot find device '%s': %m", device);
                }
                r = search(ctx, dev, src, subsystem, prefix, filter, test);
        }
        if (r < 0)
                return r;
        return r == 0 ? -ENODATA : 0;
}
