/* SPDX-License-Identifier: MIT */
#include "kmod-lib.h"

#include <dlfcn.h>

struct symbol {
        const char *name;
        size_t offset;
};

#define SYMBOL(field, name) {name, offsetof(struct kmod_lib, field)}
static const struct symbol symbols[] = {
        SYMBOL(new_ctx, "kmod_new"),
        SYMBOL(unref, "kmod_unref"),
        SYMBOL(set_log_fn, "kmod_set_log_fn"),
        SYMBOL(load_resources, "kmod_load_resources"),
        SYMBOL(module_new_from_lookup, "kmod_module_new_from_lookup"),
        SYMBOL(module_unref_list, "kmod_module_unref_list"),
        SYMBOL(list_next, "kmod_list_next"),
        SYMBOL(module_get_module, "kmod_module_get_module"),
        SYMBOL(module_get_name, "kmod_module_get_name"),
        SYMBOL(module_probe_insert_module, "kmod_module_probe_insert_module"),
        SYMBOL(module_unref, "kmod_module_unref"),
};

struct kmod_lib *kmod_lib_close(struct kmod_lib *l)
{
        if (l) {
                if (l->handle)
                        dlclose(l->handle);
                free(l);
        }
        return NULL;
}

int kmod_lib_open(struct kmod_lib **ret, char **error)
{
        struct kmod_lib *l = calloc(1, sizeof(*l));
        const char *err = NULL;
        if (!l)
                return -ENOMEM;
        l->handle = dlopen(KMOD_LIB_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!l->handle)
                err = dlerror();
        for (size_t i = 0; !err && i < ELEMENTSOF(symbols); i++) {
                void *f = dlsym(l->handle, symbols[i].name);
                if (!f) {
                        err = dlerror();
                        break;
                }
                /* a data pointer from dlsym() stored as the function pointer it is (POSIX) */
                memcpy((char *)l + symbols[i].offset, &f, sizeof(f));
        }
        if (err) {
                if (error)
                        *error = strdup(err); /* before dlclose(), which may reuse it */
                kmod_lib_close(l);
                return -ENOENT;
        }
        *ret = l;
        return 0;
}
