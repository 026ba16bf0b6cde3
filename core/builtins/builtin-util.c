/* SPDX-License-Identifier: MIT */
#include "builtin-util.h"

#include <stdio.h>

#include "model.h"
#include "strenc.h"

int builtin_sysattr(const struct builtin_ctx *ctx, struct device *d, const char *attr, char **ret)
{
        const char *v;
        int r = device_get_sysattr(d, ctx->sysfs_root, attr, &v);
        if (r < 0)
                return r;
        if (!v)
                return -ENOENT;
        char *s = strdup(v);
        if (!s)
                return -ENOMEM;
        *ret = strenc_strip_newline(s);
        return 0;
}

char *builtin_sysattr_opt(const struct builtin_ctx *ctx, struct device *d, const char *attr)
{
        char *s = NULL;
        return builtin_sysattr(ctx, d, attr, &s) < 0 ? NULL : s;
}

int builtin_device_by_subsystem_sysname(const struct device *ref, const char *subsystem, const char *sysname,
                                        struct device **ret)
{
        static const char *const dirs[][2] = {{"/class/", "/"}, {"/bus/", "/devices/"}};

        if (!ref->model || strchr(subsystem, '/') || strchr(sysname, '/') || streq(sysname, "..") ||
            streq(sysname, "."))
                return -ENODEV;
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                _cleanup_free_ char *p = NULL;
                if (asprintf(&p, "%s%s%s%s", dirs[i][0], subsystem, dirs[i][1], sysname) < 0)
                        return -ENOMEM;
                struct device *d = NULL;
                if (model_resolve(ref->model, p, &d) >= 0 && d) {
                        *ret = d;
                        return 0;
                }
        }
        return -ENODEV;
}

static bool all_digits(const char *s)
{
        if (!*s)
                return false;
        for (; *s; s++)
                if (*s < '0' || *s > '9')
                        return false;
        return true;
}

const char *builtin_devtype(const struct device *d)
{
        unsigned a, b, c, e;
        int n = 0;

        if (d->devtype || !d->subsystem)
                return d->devtype;
        if (streq(d->subsystem, "usb")) {
                const char *num = startswith(d->sysname, "usb");
                if (strchr(d->sysname, ':'))
                        return "usb_interface";
                if ((num && all_digits(num)) || strchr(d->sysname, '-'))
                        return "usb_device";
                return NULL;
        }
        if (streq(d->subsystem, "scsi")) {
                const char *num = startswith(d->sysname, "host");
                if (num && all_digits(num))
                        return "scsi_host";
                if (sscanf(d->sysname, "target%u:%u:%u%n", &a, &b, &c, &n) == 3 && !d->sysname[n])
                        return "scsi_target";
                if (sscanf(d->sysname, "%u:%u:%u:%u%n", &a, &b, &c, &e, &n) == 4 && !d->sysname[n])
                        return "scsi_device";
        }
        return NULL;
}

struct device *builtin_find_parent(struct device *d, const char *subsystem, const char *devtype)
{
        for (struct device *p = d->parent; p; p = p->parent)
                if (device_subsystem_is(p, subsystem) && (!devtype || streq_ptr(builtin_devtype(p), devtype)))
                        return p;
        return NULL;
}

struct device *builtin_enclosing_class_device(const struct device *d)
{
        if (d->layout != DEVICE_LAYOUT_LEGACY || !d->model)
                return NULL;
        const char *slash = strrchr(d->devpath, '/');
        if (!slash || slash == d->devpath)
                return NULL;
        _cleanup_free_ char *dir = strndup(d->devpath, (size_t)(slash - d->devpath));
        if (!dir)
                return NULL;
        struct device *p = NULL;
        if (model_resolve(d->model, dir, &p) < 0)
                return NULL;
        return p && p->layout == DEVICE_LAYOUT_LEGACY ? p : NULL;
}
