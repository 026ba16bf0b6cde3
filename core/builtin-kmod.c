/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <libkmod.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "builtin-kmod.h"
#include "dlopen-note.h"
#include "log.h"

/* The library's soname: opened on first use, not linked. */
#define LIBKMOD_SONAME "libkmod.so.2"

DLOPEN_NOTE(dlopen_note_kmod,
            "[{\"feature\":\"kmod\",\"description\":\"Loading the kernel modules devices ask for\","
            "\"priority\":\"recommended\",\"soname\":[\"" LIBKMOD_SONAME "\"]}]");

/* libkmod brings libcrypto, liblzma and libzstd along: loading them costs every process that
 * links it about a millisecond at start (devmanadm trigger and settle are on the boot path) and
 * a daemon whose rules never load a module their memory. They are loaded with the first
 * `kmod load`. The types come from libkmod.h, so a mismatch does not compile. */
struct kmod_api {
        void *dl;
        __typeof__(kmod_new) *new;
        __typeof__(kmod_unref) *unref;
        __typeof__(kmod_set_log_fn) *set_log_fn;
        __typeof__(kmod_load_resources) *load_resources;
        __typeof__(kmod_module_new_from_lookup) *module_new_from_lookup;
        __typeof__(kmod_module_unref_list) *module_unref_list;
        __typeof__(kmod_list_next) *list_next;
        __typeof__(kmod_module_get_module) *module_get_module;
        __typeof__(kmod_module_get_name) *module_get_name;
        __typeof__(kmod_module_probe_insert_module) *module_probe_insert_module;
        __typeof__(kmod_module_unref) *module_unref;
};

struct kmod_state {
        struct kmod_api api;   /* api.dl is NULL until the library is open */
        struct kmod_ctx *kmod; /* NULL when there are no modules */
        bool unavailable;      /* decided (and logged) once */
};

/* Opens libkmod and resolves what this builtin calls; on failure nothing stays open. */
static int kmod_api_open(struct kmod_api *a)
{
        a->dl = dlopen(LIBKMOD_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!a->dl)
                return -ENOENT;
#define RESOLVE(field, symbol)                                                                               \
        if (!(a->field = (__typeof__(a->field))dlsym(a->dl, #symbol)))                                       \
                goto missing;
        RESOLVE(new, kmod_new)
        RESOLVE(unref, kmod_unref)
        RESOLVE(set_log_fn, kmod_set_log_fn)
        RESOLVE(load_resources, kmod_load_resources)
        RESOLVE(module_new_from_lookup, kmod_module_new_from_lookup)
        RESOLVE(module_unref_list, kmod_module_unref_list)
        RESOLVE(list_next, kmod_list_next)
        RESOLVE(module_get_module, kmod_module_get_module)
        RESOLVE(module_get_name, kmod_module_get_name)
        RESOLVE(module_probe_insert_module, kmod_module_probe_insert_module)
        RESOLVE(module_unref, kmod_module_unref)
#undef RESOLVE
        return 0;
missing:
        dlclose(a->dl);
        *a = (struct kmod_api){0};
        return -ENOSYS;
}

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
                s->api.unref(s->kmod);
        if (s->api.dl)
                dlclose(s->api.dl);
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
        int r = kmod_api_open(&s->api);
        if (r < 0) {
                log_warning("Cannot use %s (%s): module loading is disabled", LIBKMOD_SONAME,
                            r == -ENOENT ? dlerror() : "a function is missing");
                s->unavailable = true;
                return s;
        }
        const char *const config[] = {etc, run, usrlib, lib, NULL};
        s->kmod = s->api.new(dir, config);
        if (!s->kmod) {
                log_warning("Cannot set up libkmod for %s: module loading is disabled", dir);
                s->unavailable = true;
                return s;
        }
        s->api.set_log_fn(s->kmod, kmod_log, NULL);
        r = s->api.load_resources(s->kmod);
        if (r < 0)
                log_debug_errno(r, "libkmod: cannot load the module indexes of %s, looking up slowly: %m", dir);
        return s;
}

static void probe_list(const struct kmod_api *a, const char *devpath, struct kmod_list *list, bool test)
{
        for (struct kmod_list *it = list; it; it = a->list_next(list, it)) {
                struct kmod_module *mod = a->module_get_module(it);
                const char *name = a->module_get_name(mod);
                int r = a->module_probe_insert_module(mod,
                                                      KMOD_PROBE_APPLY_BLACKLIST | (test ? KMOD_PROBE_DRY_RUN : 0),
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
                a->module_unref(mod);
        }
}

static int load_one(struct kmod_state *s, const char *devpath, const char *alias, bool test)
{
        struct kmod_list *list = NULL;
        int r = s->api.module_new_from_lookup(s->kmod, alias, &list);
        if (r >= 0 && list)
                probe_list(&s->api, devpath, list, test);
        else if (r != -ENOMEM)
                log_debug("%s: no module for \"%s\"", devpath, alias);
        if (list)
                s->api.module_unref_list(list);
        return r == -ENOMEM ? r : 0;
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
