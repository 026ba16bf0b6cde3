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
