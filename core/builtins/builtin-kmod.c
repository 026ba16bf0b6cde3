/* SPDX-License-Identifier: MIT */
#include <libkmod.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "builtin-kmod.h"
#include "log.h"

struct kmod_state {
        struct kmod_ctx *kmod; /* NULL when there are no modules */
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
        kmod_unref(s->kmod); /* NULL-safe */
        free(s);
        *slot = NULL;
}

static void kmod_log(void *data, int priority, const char *file, int line, const char *fn,
                     const char *format, va_list args)
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

int builtin_kmod_setup(const struct builtin_ctx *ctx, char **ret_dir)
{
        struct utsname u;
        const char *prefix = ctx->root && !streq(ctx->root, "/") ? ctx->root : "";
        _cleanup_free_ char *dir = NULL, *dep = NULL;
        if (uname(&u) < 0)
                return negative_errno();
        if (asprintf(&dir, "%s/lib/modules/%s", prefix, u.release) < 0 ||
            asprintf(&dep, "%s/modules.dep.bin", dir) < 0)
                return -ENOMEM;
        struct stat st;
        int r = KMOD_SETUP_READY;
        if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
                r = KMOD_SETUP_NO_DIRECTORY;
        else if (access(dep, F_OK) < 0)
                r = KMOD_SETUP_NO_INDEX;
        if (ret_dir)
                *ret_dir = TAKE_PTR(dir);
        return r;
}

int builtin_kmod_setup_level(enum kmod_setup setup, bool rules_load_modules, bool kernel_loads_modules)
{
        if (setup == KMOD_SETUP_READY || !rules_load_modules)
                return LOG_DEBUG;
        /* a kernel without module support has nothing to load: the rules' requests are moot */
        if (!kernel_loads_modules)
                return LOG_INFO;
        return LOG_ERR;
}

void builtin_kmod_report_setup(const struct builtin_ctx *ctx, bool rules_load_modules,
                               bool kernel_loads_modules)
{
        _cleanup_free_ char *dir = NULL;
        int r = builtin_kmod_setup(ctx, &dir);
        if (r < 0) {
                log_warning_errno(r, "Cannot tell whether kernel modules can be loaded: %m");
                return;
        }
        int level = builtin_kmod_setup_level(r, rules_load_modules, kernel_loads_modules);
        if (!rules_load_modules)
                log_full(level, "No rule loads kernel modules");
        else if (r == KMOD_SETUP_READY)
                log_full(level, "Kernel modules are loaded from %s", dir);
        else if (!kernel_loads_modules)
                log_full(level, "The kernel has no module support: `kmod load` in the rules does nothing");
        else if (r == KMOD_SETUP_NO_DIRECTORY)
                log_full(
                        level,
                        "The rules load kernel modules (kmod load) but %s does not exist: no module will be "
                        "loaded and the devices that need one will be missing. Install the modules of the "
                        "running kernel there (the kernel's package; in an initramfs, its builder's module "
                        "set)",
                        dir);
        else
                log_full(level,
                         "The rules load kernel modules (kmod load) but %s has no modules.dep.bin: modules "
                         "will be found slowly or not at all. Run `depmod` for this kernel",
                         dir);
}

/* The state, with libkmod set up on first use (its context reads the configuration and maps the
 * module indexes: a daemon whose rules never load a module never pays for them); NULL on
 * ENOMEM. */
static struct kmod_state *state_get(struct builtin_ctx *ctx)
{
        void **slot = state_slot(ctx);
        if (*slot)
                return *slot;
        struct kmod_state *s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        *slot = s;

        const char *prefix = ctx->root && !streq(ctx->root, "/") ? ctx->root : "";
        _cleanup_free_ char *dir = NULL, *etc = NULL, *run = NULL, *lib = NULL, *usrlib = NULL;
        int r = builtin_kmod_setup(ctx, &dir);
        if (r == KMOD_SETUP_NO_DIRECTORY) {
                /* the daemon said at start whether that matters (builtin_kmod_report_setup) */
                log_info("No kernel modules in %s: module loading is disabled", dir);
                return s;
        }
        if (r < 0 || asprintf(&etc, "%s/etc/modprobe.d", prefix) < 0 ||
            asprintf(&run, "%s/run/modprobe.d", prefix) < 0 ||
            asprintf(&usrlib, "%s/usr/lib/modprobe.d", prefix) < 0 ||
            asprintf(&lib, "%s/lib/modprobe.d", prefix) < 0)
                return s;
        const char *const config[] = {etc, run, usrlib, lib, NULL};
        s->kmod = kmod_new(dir, config);
        if (!s->kmod) {
                log_error("Cannot set up libkmod for %s: module loading is disabled", dir);
                return s;
        }
        kmod_set_log_fn(s->kmod, kmod_log, NULL);
        r = kmod_load_resources(s->kmod);
        if (r < 0)
                log_debug_errno(r, "libkmod: cannot load the module indexes of %s, looking up slowly: %m",
                                dir);
        return s;
}

int builtin_kmod_result_level(int r, bool found, bool named)
{
        if (!found) /* a MODALIAS no module claims is the common case; a name the rules gave is not */
                return named ? LOG_WARNING : LOG_DEBUG;
        switch (r) {
        case KMOD_PROBE_APPLY_BLACKLIST: /* deny-listed in modprobe.d */
        case -EEXIST:                    /* loaded by someone else meanwhile */
        case -ENODEV:                    /* its init found no device: normal for a MODALIAS match */
        case -EBUSY: /* a rival driver of its kind (cpufreq, EDAC) registered first, as happens
                      * when several devices' modules load in parallel children */
                return LOG_DEBUG;
        default: /* 0: inserted, or in the kernel already (built in or loaded) */
                return r < 0 ? LOG_WARNING : LOG_DEBUG;
        }
}

static void probe_list(const char *devpath, struct kmod_list *list, bool test)
{
        struct kmod_list *it;
        kmod_list_foreach(it, list) {
                struct kmod_module *mod = kmod_module_get_module(it);
                const char *name = kmod_module_get_name(mod);
                int r = kmod_module_probe_insert_module(
                        mod, KMOD_PROBE_APPLY_BLACKLIST | (test ? KMOD_PROBE_DRY_RUN : 0), NULL, NULL, NULL,
                        NULL);
                int level = builtin_kmod_result_level(r, true, false);
                if (r == KMOD_PROBE_APPLY_BLACKLIST) {
                        if (test)
                                printf("kmod: deny-listed %s\n", name);
                        log_full(level, "%s: module %s is deny-listed", devpath, name);
                } else if (r < 0)
                        log_full_errno(level, r, "%s: cannot load module %s: %m", devpath, name);
                else if (test)
                        printf("kmod: load %s\n", name);
                else
                        log_full(level, "%s: inserted %s", devpath, name);
                kmod_module_unref(mod);
        }
}

/* named: the rules asked for this module or alias by name (not the device's MODALIAS). */
static int load_one(struct kmod_state *s, const char *devpath, const char *alias, bool named, bool test)
{
        struct kmod_list *list = NULL;
        int r = kmod_module_new_from_lookup(s->kmod, alias, &list);
        if (r >= 0 && list)
                probe_list(devpath, list, test);
        else if (r != -ENOMEM)
                log_full(builtin_kmod_result_level(r, false, named), "%s: no module for \"%s\"", devpath,
                         alias);
        kmod_module_unref_list(list); /* NULL-safe */
        return r == -ENOMEM ? r : 0;
}

/* Where run() would load alias (named: the rules gave it): an enum builtin_placement, -ENOMEM. */
static int alias_placement(struct kmod_state *s, const char *alias, bool named)
{
        struct kmod_list *list = NULL, *allowed = NULL, *it;
        int r = kmod_module_new_from_lookup(s->kmod, alias, &list);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || !list) /* run() only logs that: a warning for a name, debug for a MODALIAS */
                return named ? BUILTIN_IN_PLACE : BUILTIN_NOTHING;
        /* an empty list when all are deny-listed; on failure every module of the list counts */
        bool filtered = kmod_module_apply_filter(s->kmod, KMOD_FILTER_BLACKLIST, list, &allowed) >= 0;
        r = BUILTIN_NOTHING;
        kmod_list_foreach(it, filtered ? allowed : list) {
                struct kmod_module *mod = kmod_module_get_module(it);
                int state = kmod_module_get_initstate(mod);
                kmod_module_unref(mod);
                if (state != KMOD_MODULE_LIVE && state != KMOD_MODULE_COMING && state != KMOD_MODULE_BUILTIN) {
                        r = BUILTIN_IN_CHILD;
                        break;
                }
        }
        kmod_module_unref_list(allowed);
        kmod_module_unref_list(list);
        return r;
}

int builtin_kmod_needs_child(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv)
{
        if (argc < 2 || !streq(argv[1], "load"))
                return BUILTIN_IN_PLACE; /* run() reports the error at once */
        struct kmod_state *s = state_get(ctx);
        if (!s)
                return -ENOMEM;
        if (!s->kmod)
                return BUILTIN_NOTHING; /* no modules here: said once in state_get() */
        if (argc == 2) {
                const char *modalias = device_get_property(dev, "MODALIAS");
                return modalias ? alias_placement(s, modalias, false) : BUILTIN_NOTHING;
        }
        /* in a child when any name needs an insertion, else in place when any would warn */
        int placement = BUILTIN_NOTHING;
        for (int i = 2; i < argc; i++) {
                int r = alias_placement(s, argv[i], true);
                if (r < 0 || r == BUILTIN_IN_CHILD)
                        return r;
                if (r == BUILTIN_IN_PLACE)
                        placement = r;
        }
        return placement;
}

int builtin_kmod_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test)
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
                return load_one(s, dev->devpath, modalias, false, test);
        }
        for (int i = 2; i < argc; i++) {
                int r = load_one(s, dev->devpath, argv[i], true, test);
                if (r < 0)
                        return log_oom();
        }
        return 0;
}
