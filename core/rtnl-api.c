/* SPDX-License-Identifier: MIT */
#include "rtnl-api.h"

#include <dlfcn.h>
#include <errno.h>

#include "dlopen-note.h"

/* The library's soname, as libnl-route-3-dev links it. */
#define LIBNL_ROUTE_SONAME "libnl-route-3.so.200"

DLOPEN_NOTE(dlopen_note_nl_route,
            "[{\"feature\":\"netif\",\"description\":\"Network interface renames and .link matching\","
            "\"priority\":\"recommended\",\"soname\":[\"" LIBNL_ROUTE_SONAME "\"]}]");

int rtnl_api_open(struct rtnl_api *a)
{
        if (a->dl)
                return 0;
        /* RTLD_GLOBAL is not needed: libnl-3, which it depends on, is linked already */
        a->dl = dlopen(LIBNL_ROUTE_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!a->dl)
                return -ENOENT;
#define RESOLVE(field, symbol)                                                                               \
        if (!(a->field = (__typeof__(a->field))dlsym(a->dl, #symbol)))                                       \
                goto missing;
        RESOLVE(link_alloc, rtnl_link_alloc)
        RESOLVE(link_put, rtnl_link_put)
        RESOLVE(link_get_kernel, rtnl_link_get_kernel)
        RESOLVE(link_change, rtnl_link_change)
        RESOLVE(link_get_name, rtnl_link_get_name)
        RESOLVE(link_set_name, rtnl_link_set_name)
        RESOLVE(link_get_type, rtnl_link_get_type)
        RESOLVE(link_get_arptype, rtnl_link_get_arptype)
        RESOLVE(link_get_flags, rtnl_link_get_flags)
        RESOLVE(link_get_addr, rtnl_link_get_addr)
#undef RESOLVE
        return 0;
missing:
        rtnl_api_close(a);
        return -ENOSYS;
}

void rtnl_api_close(struct rtnl_api *a)
{
        if (a->dl)
                dlclose(a->dl);
        *a = (struct rtnl_api){0};
}
