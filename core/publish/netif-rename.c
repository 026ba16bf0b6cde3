/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <time.h>

#include "macros.h"
#include "netif-rename.h"

#define IFNAMSIZ_ 16

/* The one boundary where libnl's error codes become -errno. */
static int nl_to_errno(int nle)
{
        static const struct {
                int nle, err;
        } map[] = {
                {NLE_SUCCESS, 0},         {NLE_INTR, EINTR},         {NLE_BAD_SOCK, EBADF},
                {NLE_AGAIN, EAGAIN},      {NLE_NOMEM, ENOMEM},       {NLE_EXIST, EEXIST},
                {NLE_INVAL, EINVAL},      {NLE_RANGE, ERANGE},       {NLE_MSGSIZE, EMSGSIZE},
                {NLE_OPNOTSUPP, EOPNOTSUPP}, {NLE_AF_NOSUPPORT, EAFNOSUPPORT},
                {NLE_OBJ_NOTFOUND, ENODEV}, {NLE_NOATTR, ENODATA},   {NLE_MISSING_ATTR, EINVAL},
                {NLE_AF_MISMATCH, EINVAL}, {NLE_SEQ_MISMATCH, EPROTO}, {NLE_MSG_OVERFLOW, EOVERFLOW},
                {NLE_MSG_TRUNC, EMSGSIZE}, {NLE_NOADDR, EADDRNOTAVAIL}, {NLE_SRCRT_NOSUPPORT, EOPNOTSUPP},
                {NLE_MSG_TOOSHORT, EPROTO}, {NLE_MSGTYPE_NOSUPPORT, EOPNOTSUPP}, {NLE_OBJ_MISMATCH, EINVAL},
                {NLE_NOCACHE, ENOENT},    {NLE_BUSY, EBUSY},         {NLE_PROTO_MISMATCH, EPROTONOSUPPORT},
                {NLE_NOACCESS, EACCES},   {NLE_PERM, EPERM},         {NLE_PKTLOC_FILE, ENOENT},
                {NLE_PARSE_ERR, EINVAL},  {NLE_NODEV, ENODEV},       {NLE_IMMUTABLE, EPERM},
                {NLE_DUMP_INTR, EINTR},   {NLE_ATTRSIZE, EINVAL},
        };
        nle = nle < 0 ? -nle : nle;
        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                if (map[i].nle == nle)
                        return -map[i].err;
        return -EIO;
}

bool netif_name_valid(const char *name)
{
        if (!name || !*name || strlen(name) >= IFNAMSIZ_ || streq(name, ".") || streq(name, ".."))
                return false;
        for (const char *p = name; *p; p++)
                if (*p == '/' || *p == ':' || *p == ' ' || (*p >= '\t' && *p <= '\r'))
                        return false;
        return true;
}

static void sock_freep(struct nl_sock **sk)
{
        if (*sk)
                nl_socket_free(*sk);
}

int netif_rename(int ifindex, const char *new_name, char **ret_old)
{
        if (ifindex <= 0 || !netif_name_valid(new_name))
                return -EINVAL;

        _cleanup_(sock_freep) struct nl_sock *sk = nl_socket_alloc();
        if (!sk)
                return -ENOMEM;
        struct rtnl_link *cur = NULL, *change = NULL;
        int r = nl_connect(sk, NETLINK_ROUTE);
        if (r < 0)
                return nl_to_errno(r);

        r = rtnl_link_get_kernel(sk, ifindex, NULL, &cur);
        if (r < 0)
                return nl_to_errno(r);
        const char *old = rtnl_link_get_name(cur);
        if (ret_old && !(*ret_old = strdup(strempty(old)))) {
                r = -ENOMEM;
                goto out;
        }
        if (old && streq(old, new_name))
                goto out; /* r is 0 */

        change = rtnl_link_alloc();
        if (!change)
                r = -ENOMEM;
        else {
                rtnl_link_set_name(change, new_name);
                r = nl_to_errno(rtnl_link_change(sk, cur, change, 0));
        }
        if (r < 0 && ret_old) {
                free(*ret_old);
                *ret_old = NULL;
        }
out:
        if (change)
                rtnl_link_put(change);
        rtnl_link_put(cur);
        return r;
}

int netif_rename_retry(int ifindex, const char *new_name, unsigned attempts, char **ret_old)
{
        int r = -EINVAL;
        long delay_ms = 5;
        for (unsigned i = 0; i < attempts; i++) {
                if (i > 0) {
                        struct timespec ts = {.tv_sec = 0, .tv_nsec = delay_ms * 1000000L};
                        nanosleep(&ts, NULL);
                        delay_ms *= 2;
                }
                r = netif_rename(ifindex, new_name, ret_old);
                if (!netif_rename_error_is_transient(r))
                        break;
        }
        return r;
}
