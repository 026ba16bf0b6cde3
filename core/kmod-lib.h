/* SPDX-License-Identifier: MIT */
/*
 * libkmod, loaded when a module is first to be loaded rather than when the daemon starts.
 * Debian's libkmod pulls in libcrypto (for module signatures): linked at start-up, relocating
 * them costs about 1.9 MiB of resident memory before the daemon has done anything, and many
 * systems (no modules, or no device asking for one) never need them.
 *
 * The table holds libkmod's functions under their own types (checked against libkmod.h).
 * Ownership: kmod_lib_open() returns a table the caller owns; kmod_lib_close() closes the
 * library handle and frees it (libcrypto stays mapped: it marks itself not unloadable).
 */
#pragma once

#include <libkmod.h>

#include "macros.h"

/* The library loaded; its soname is part of its ABI. */
#define KMOD_LIB_SONAME "libkmod.so.2"

struct kmod_lib {
        void *handle;
        __typeof__(&kmod_new) new_ctx;
        __typeof__(&kmod_unref) unref;
        __typeof__(&kmod_set_log_fn) set_log_fn;
        __typeof__(&kmod_load_resources) load_resources;
        __typeof__(&kmod_module_new_from_lookup) module_new_from_lookup;
        __typeof__(&kmod_module_unref_list) module_unref_list;
        __typeof__(&kmod_list_next) list_next;
        __typeof__(&kmod_module_get_module) module_get_module;
        __typeof__(&kmod_module_get_name) module_get_name;
        __typeof__(&kmod_module_probe_insert_module) module_probe_insert_module;
        __typeof__(&kmod_module_unref) module_unref;
};

/* 0, -ENOENT when the library or one of its functions is missing (then *error, when error is
 * not NULL, gets the dynamic loader's message, owned by the caller, or NULL on ENOMEM),
 * -ENOMEM. */
int kmod_lib_open(struct kmod_lib **ret, char **error);
struct kmod_lib *kmod_lib_close(struct kmod_lib *l);
