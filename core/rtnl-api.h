/* SPDX-License-Identifier: MIT */
/*
 * libnl-route-3, opened on first use instead of linked (as libkmod is): only renaming a
 * network interface and net_setup_link's link query need it, and a daemon that handles no
 * network interface (an embedded machine without one, a container's namespace) never maps
 * it — loading it costs every start its relocations and a few hundred KiB of resident pages.
 *
 * The caller owns a struct rtnl_api (zeroed: not open yet) and closes it when done.
 */
#pragma once

#include <netlink/route/link.h>

struct rtnl_api {
        void *dl; /* NULL until opened */
        __typeof__(rtnl_link_alloc) *link_alloc;
        __typeof__(rtnl_link_put) *link_put;
        __typeof__(rtnl_link_get_kernel) *link_get_kernel;
        __typeof__(rtnl_link_change) *link_change;
        __typeof__(rtnl_link_get_name) *link_get_name;
        __typeof__(rtnl_link_set_name) *link_set_name;
        __typeof__(rtnl_link_get_type) *link_get_type;
        __typeof__(rtnl_link_get_arptype) *link_get_arptype;
        __typeof__(rtnl_link_get_flags) *link_get_flags;
        __typeof__(rtnl_link_get_addr) *link_get_addr;
};

/* Opens the library and resolves every function above, once; 0 when open (now or before),
 * -ENOENT when the library is not installed, -ENOSYS when it lacks a function. On failure
 * nothing stays open and a later call tries again. */
int rtnl_api_open(struct rtnl_api *a);
void rtnl_api_close(struct rtnl_api *a);
