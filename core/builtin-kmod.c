/* SPDX-License-Identifier: MIT */
#include <sys/stat.h>
#include <sys/utsname.h>

#include "builtin-kmod.h"
#include "kmod-lib.h"
#include "log.h"

struct kmod_state {
        struct kmod_lib *lib;  /* libkmod, loaded on first use */
        struct kmod_ctx *kmod; /* NULL when there are no modules */
        bool unavailable;      /* decided (and logged) once */
};

static void **state_slot(struct builtin_ctx *ctx)
{
        return &ctx->state[builtin_index(builtin_lookup("kmod"))];
}

void builtin_kmod_exit(struct builtin_ctx *ctx)
{
        void **slot = state_slot(ctx);
        struct kmod_state *s = *slot;
        if (!s)
                return;
        if (s->kmod)
                s->lib->unref(s->kmod);
        kmod_lib_close(s->lib);
        free(s);
        *slot = NULL;
}

static void kmod_log(void *data, int priority, const char *file, int line, const char *fn, const char *format,
                     va_list args)
{
        (void)data;
        (void)file;
        (void)line;
        (void)fn;
        if (log_get_max_level() < priority)
                return;
        _cleanup_free_ char *msg = NULL;
        if (vasprintf(&msg, format, args) < 0)
                return;
        size_t l = strlen(msg);
        if (l > 0 && msg[l - 1] == '\n')
                msg[l - 1] = '\0';
        log_full(priority, "libkmod: %s", msg);
}

/* The state, with libkmod set up on first use; NULL on ENOMEM. */
static struct kmod_state *state_get(struct builtin_ctx *ctx)
{
        void **slot = state_slot(ctx);
        if (*slot)
                return *slot;
        struct kmod_state *s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        *slot = s;

        struct utsname u;
        const char *prefix = ctx->root && !streq(ctx->root, "/") ? ctx->root : "";
        _cleanup_free_ char *dir = NULL, *etc = NULL, *run = NULL, *lib = NULL, *usrlib = NULL;
        if (uname(&u) < 0 || asprintf(&dir, "%s/lib/modules/%s", prefix, u.release) < 0 ||
            asprintf(&etc, "%s/etc/modprobe.d", prefix) < 0 || asprintf(&run, "%s/run/modprobe.d", prefix) < 0 ||
            asprintf(&usrlib, "%s/usr/lib/modprobe.d", prefix) < 0 ||
            asprintf(&lib, "%s/lib/modprobe.d", prefix) < 0) {
                s->unavailable = true;
                return s;
        }
        struct stat st;
        if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
                log_info("No kernel modules in %s: module loading is disabled", dir);
                s->unavailable = true;
                return s;
        }
        _cleanup_free_ char *error = NULL;
        int r = kmod_lib_open(&s->lib, &error);
        if (r == -ENOMEM) {
                s->unavailable = true;
                return s;
        }
        if (r < 0) {
                log_warning("Cannot load %s (%s): module loading is disabled", KMOD_LIB_SONAME, strna(error));
                s->unavailable = true;
                return s;
        }
        const char *const config[] = {etc, run, usrlib, lib, NULL};
        s->kmod = s->lib->new_ctx(dir, config);
        if (!s->kmod) {
                log_warning("Cannot set up libkmod for %s: module loading is disabled", dir);
                s->unavailable = true;
                return s;
        }
        s->lib->set_log_fn(s->kmod, kmod_log, NULL);
        r = s->lib->load_resources(s->kmod);
        if (r < 0)
                log_debug_errno(r, "libkmod: cannot load the module indexes of %s, looking up slowly: %m", dir);
        return s;
}

static int load_one(struct kmod_state *s, const char *devpath, const char *alias, bool test)
{
        const struct kmod_lib *k = s->lib;
        struct kmod_list *list = NULL;
        int r = k->module_new_from_lookup(s->kmod, alias, &list);
        if (r == -ENOMEM) {
                if (list)
                        k->module_unref_list(list);
                return r;
        }
        if (r < 0 || !list) {
                log_debug("%s: no module for \"%s\"", devpath, alias);
                if (list)
                        k->module_unref_list(list);
                return 0;
        }
        for (struct kmod_list *it = list; it; it = k->list_next(list, it)) {
                struct kmod_module *mod = k->module_get_module(it);
                const char *name = k->module_get_name(mod);
                r = k->module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST | (test ? KMOD_PROBE_DRY_RUN : 0),
                                                  NULL, NULL, NULL, NULL);
                if (r == KMOD_PROBE_APPLY_BLACKLIST) {
                        if (test)
                                printf("kmod: deny-listed %s\n", name);
                        log_debug("%s: module %s is deny-listed", devpath, name);
                } else if (r == -ENOENT)
                        log_debug("%s: module %s not found", devpath, name);
                else if (r < 0 && r != -EEXIST)
                        log_warning_errno(r, "%s: cannot load module %s: %m", devpath, name);
                else if (test)
                        printf("kmod: load %s\n", name);
                else
                        log_debug("%s: inserted %s", devpath, name);
                k->module_unref(mod);
        }
        k->module_unref_list(list);
        return 0;
}

int builtin_kmod(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test)
{
        if (argc < 2 || !streq(argv[1], "load"))
                return log_error_errno(EINVAL, "%s: expected: kmod load [MODULE...]", dev->devpath);
        struct kmod_state *s = state_get(ctx);
        if (!s)
                return log_oom();
        if (!s->kmod)
                return 0; /* no modules on this system: said once in state_get() */

        if (argc == 2) {
                const char *modalias = device_get_property(dev, "MODALIAS");
                if (!modalias)
                        return log_debug_errno(ENOENT, "%s: kmod load: no MODALIAS", dev->devpath), 0;
                return load_one(s, dev->devpath, modalias, test);
        }
        for (int i = 2; i < argc; i++) {
                int r = load_one(s, dev->devpath, argv[i], test);
                if (r < 0)
                        return log_oom();
        }
        return 0;
}
