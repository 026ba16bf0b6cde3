/* SPDX-License-Identifier: MIT */
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "builtin-net_setup_link.h"
#include "link-config.h"
#include "log.h"

static struct link_config_set **state_slot(struct builtin_ctx *ctx)
{
        return (struct link_config_set **)&ctx->state[builtin_index(builtin_lookup("net_setup_link"))];
}

void builtin_net_setup_link_exit(struct builtin_ctx *ctx)
{
        struct link_config_set **s = state_slot(ctx);
        *s = link_config_set_free(*s);
}

/* ethtool's driver name for ifname, new string or NULL. */
static char *ethtool_driver(int fd, const char *ifname)
{
        struct ethtool_drvinfo info = {.cmd = ETHTOOL_GDRVINFO};
        struct ifreq ifr = {.ifr_data = (void *)&info};
        if (strlen(ifname) >= sizeof(ifr.ifr_name))
                return NULL;
        strcpy(ifr.ifr_name, ifname);
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0 || !info.driver[0])
                return NULL;
        return strndup(info.driver, sizeof(info.driver));
}

/* The permanent hardware address ethtool reports, normalized; NULL when none. */
static char *ethtool_perm_addr(int fd, const char *ifname)
{
        struct {
                struct ethtool_perm_addr h;
                unsigned char data[32];
        } pa = {.h = {.cmd = ETHTOOL_GPERMADDR, .size = 32}};
        struct ifreq ifr = {.ifr_data = (void *)&pa};
        if (strlen(ifname) >= sizeof(ifr.ifr_name))
                return NULL;
        strcpy(ifr.ifr_name, ifname);
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0 || pa.h.size == 0 || pa.h.size > 32)
                return NULL;
        bool zero = true;
        for (unsigned i = 0; i < pa.h.size; i++)
                zero = zero && pa.data[i] == 0;
        if (zero)
                return NULL;
        char *s = malloc(pa.h.size * 3);
        if (!s)
                return NULL;
        for (unsigned i = 0; i < pa.h.size; i++)
                sprintf(s + 3 * i, "%02x%s", pa.data[i], i + 1 < pa.h.size ? ":" : "");
        return s;
}

static void sock_freep(struct nl_sock **sk)
{
        if (*sk)
                nl_socket_free(*sk);
}

/* Kind, ARPHRD type and hardware address from rtnetlink. -ENODEV when the kernel has no such
 * interface (in this network namespace). */
static int rtnl_info(int ifindex, char **ret_kind, unsigned *ret_type, char **ret_mac,
                     bool *ret_loopback)
{
        _cleanup_(sock_freep) struct nl_sock *sk = nl_socket_alloc();
        if (!sk)
                return -ENOMEM;
        if (nl_connect(sk, NETLINK_ROUTE) < 0)
                return -EIO;
        struct rtnl_link *l = NULL;
        int r = rtnl_link_get_kernel(sk, ifindex, NULL, &l);
        if (r < 0)
                return r == -NLE_OBJ_NOTFOUND || r == -NLE_NODEV ? -ENODEV : -EIO;
        const char *kind = rtnl_link_get_type(l);
        *ret_kind = kind ? strdup(kind) : NULL;
        *ret_type = rtnl_link_get_arptype(l);
        *ret_loopback = rtnl_link_get_flags(l) & IFF_LOOPBACK;
        *ret_mac = NULL;
        struct nl_addr *a = rtnl_link_get_addr(l);
        if (a && nl_addr_get_len(a) > 0) {
                char buf[128];
                nl_addr2str(a, buf, sizeof(buf));
                (void)hw_addr_normalize(buf, ret_mac);
        }
        rtnl_link_put(l);
        return 0;
}

int builtin_net_setup_link_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test)
{
        (void)argv;
        if (argc > 1)
                return log_error_errno(EINVAL, "%s: net_setup_link takes no arguments", dev->devpath);
        if (dev->ifindex <= 0)
                return log_debug_errno(ENODEV, "%s: net_setup_link: not a network interface", dev->devpath);

        struct link_config_set **set = state_slot(ctx);
        int r;
        if (!*set) {
                r = link_config_load(ctx->root, set);
                if (r < 0)
                        return log_error_errno(r, "Cannot load .link files: %m");
        }

        _cleanup_free_ char *kind = NULL, *mac = NULL, *perm = NULL, *driver = NULL;
        unsigned iftype = 0;
        bool loopback = false;
        r = rtnl_info(dev->ifindex, &kind, &iftype, &mac, &loopback);
        if (r == -ENODEV)
                return log_debug_errno(r, "%s: interface %d vanished, ignoring", dev->devpath, dev->ifindex), 0;
        if (r < 0)
                return log_warning_errno(r, "%s: cannot get link information: %m", dev->devpath);
        _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd >= 0) {
                driver = ethtool_driver(fd, dev->sysname);
                if (mac)
                        perm = ethtool_perm_addr(fd, dev->sysname);
        }

        int name_assign_type = 0;
        const char *v;
        if (device_get_sysattr(dev, ctx->sysfs_root, "name_assign_type", &v) >= 0 && v)
                name_assign_type = atoi(v);

        if (driver) {
                r = builtin_add_property(dev, test, "ID_NET_DRIVER", driver);
                if (r < 0)
                        return r;
        }

        struct link_info li = {
                .ifname = dev->sysname,
                .driver = driver,
                .kind = kind,
                .devtype = dev->devtype,
                .iftype = iftype,
                .mac = mac,
                .permanent_mac = perm,
                .name_assign_type = name_assign_type,
                .dev = dev,
        };
        /* .link files never apply to the loopback interface */
        const struct link_config *c = loopback ? NULL : link_config_find(*set, &li);
        if (!c)
                return log_debug_errno(ENOENT, "%s: no matching .link file", dev->devpath), 0;

        /* names are given on add (and bind); other events keep the current one */
        const char *action = device_get_property(dev, "ACTION");
        const char *name = dev->sysname;
        if (!action || streq(action, "add") || streq(action, "bind"))
                name = link_config_new_name(c, &li);
        if (c->mac_address_policy || c->mac_address)
                log_debug("%s: %s: MACAddressPolicy=/MACAddress= are not applied by devman", dev->sysname,
                          c->filename);

        /* the name may point into the device's properties, which the next call reallocates */
        _cleanup_free_ char *name_copy = name ? strdup(name) : NULL;
        if (name && !name_copy)
                return -ENOMEM;
        r = builtin_add_property(dev, test, "ID_NET_LINK_FILE", c->filename);
        if (r >= 0)
                r = builtin_add_property(dev, test, "ID_NET_NAME", name_copy);
        return r;
}
