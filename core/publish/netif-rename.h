/* SPDX-License-Identifier: MIT */
/*
 * Renaming a network interface over rtnetlink (libnl-route-3), for NAME= on net devices.
 *
 * The rename is one RTM_NEWLINK/RTM_SETLINK request on the interface index: the kernel applies
 * it entirely or not at all, so a failure never leaves anything half-renamed. libnl's NLE_*
 * codes are turned into -errno here and nowhere else.
 *
 * Functions do not log; they return 0 or -errno:
 *   -EINVAL   the new name is not a valid interface name (empty, longer than 15 bytes, ".",
 *             "..", or containing '/', ':' or whitespace) or ifindex <= 0;
 *   -ENODEV   no interface has that index;
 *   -EEXIST   another interface already has the name;
 *   -EBUSY    the interface is up and the kernel refuses to rename it;
 *   -EPERM    no CAP_NET_ADMIN; other -errno from the socket.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>

/* True when name is acceptable to the kernel as an interface name. */
bool netif_name_valid(const char *name);

/* Renames interface ifindex to new_name. 0 also when it already has that name (nothing is
 * sent then). If ret_old is non-NULL it receives the name the interface had (new string). */
int netif_rename(int ifindex, const char *new_name, char **ret_old);

/* -EEXIST and -EBUSY can be transient: another interface being renamed away from the name
 * (two NICs swapping names) or a link that is just going down. */
static inline bool netif_rename_error_is_transient(int r)
{
        return r == -EEXIST || r == -EBUSY;
}

/* netif_rename(), retried up to `attempts` times while the error is transient, sleeping
 * 5 ms, 10 ms, 20 ms … in between (a bounded wait: 3 attempts wait at most 15 ms). For tools
 * and tests; the daemon retries from its event loop instead of sleeping. Returns the last
 * result. */
int netif_rename_retry(int ifindex, const char *new_name, unsigned attempts, char **ret_old);
