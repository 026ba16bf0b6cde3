/* SPDX-License-Identifier: MIT */
/*
 * systemd .link files (systemd.link(5)) as systemd-udevd 252 reads them for net_setup_link:
 * which file applies to an interface, and the name its [Link] section gives it.
 *
 * Files: *.link in /etc/systemd/network, /run/systemd/network, /usr/local/lib/systemd/network,
 * /usr/lib/systemd/network, /lib/systemd/network (below a root prefix for tests). A file name
 * found in an earlier directory hides the same name in later ones; all are then ordered by
 * file name, and the first whose [Match] fits the interface applies. Drop-ins
 * (<name>.link.d/<x>.conf in the same directories, ordered by file name) are read after their
 * file. An empty assignment clears a list.
 *
 * [Match]: MACAddress=, PermanentMACAddress=, OriginalName=, Path=, Driver=, Type=, Kind=,
 * Property= (KEY=GLOB, whitespace-separated, quotes allowed), each with shell globs and "!"
 * negation as in systemd; Host= and KernelCommandLine= are evaluated; other conditions
 * (Virtualization=, Architecture=, Firmware=, KernelVersion=, Credential=) are not supported:
 * a file using them never matches, and a warning says so.
 * [Link]: NamePolicy=, Name= are used; MACAddressPolicy=, MACAddress=, AlternativeNamesPolicy=,
 * AlternativeName= are kept for the caller; the ethtool/rtnetlink settings (MTU, speed, WoL,
 * offloads …) are accepted and not applied.
 *
 * Parse problems are logged with file:line and the line is skipped; the rest still loads.
 */
#pragma once

#include <stdbool.h>

#include "device.h"

enum name_policy {
        NAME_POLICY_KERNEL,
        NAME_POLICY_KEEP,
        NAME_POLICY_DATABASE,
        NAME_POLICY_ONBOARD,
        NAME_POLICY_SLOT,
        NAME_POLICY_PATH,
        NAME_POLICY_MAC,
        _NAME_POLICY_MAX,
};

struct link_config {
        char *filename; /* as the system sees it (without the root prefix) */
        /* [Match] */
        char **mac, **permanent_mac; /* normalized "aa:bb:…" */
        char **original_name, **path, **driver, **type, **kind, **property, **host, **kernel_cmdline;
        char *unsupported; /* the first unsupported condition key, or NULL */
        /* [Link] */
        enum name_policy *name_policy; /* n_name_policy entries, NULL when not set */
        unsigned n_name_policy;
        char *name;
        char *mac_address_policy, *mac_address;
        char **alternative_names_policy, **alternative_names;
};

struct link_config_set {
        struct link_config **configs; /* ordered by file name */
        unsigned n;
};

/* Reads every .link file below root (NULL or "/" for the real system). Never fails for bad
 * files (they are logged); -ENOMEM or other -errno for I/O failures. */
int link_config_load(const char *root, struct link_config_set **ret);
struct link_config_set *link_config_set_free(struct link_config_set *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct link_config_set, link_config_set_free)

/* Parses one file (plus drop-ins listed in dropins, may be NULL) into a config. path is read
 * as given; shown_as is the file name to record and to log. 0 or -errno (-ENOENT, -ENOMEM). */
int link_config_parse(const char *path, const char *shown_as, char *const *dropins, struct link_config **ret);
struct link_config *link_config_free(struct link_config *c);

/* What is known about an interface for matching and naming. */
struct link_info {
        const char *ifname;
        const char *driver;        /* ethtool's driver name, NULL when unknown */
        const char *kind;          /* rtnetlink IFLA_INFO_KIND, NULL for hardware */
        const char *devtype;       /* DEVTYPE, or NULL */
        unsigned iftype;           /* ARPHRD_* */
        const char *mac;           /* normalized, NULL when none */
        const char *permanent_mac; /* normalized, NULL when none */
        int name_assign_type;      /* NET_NAME_* (0 unknown, 1 enum, 2 predictable, 3 user, 4 renamed), -1 n/a */
        struct device *dev;        /* for Property=, ID_PATH and the ID_NET_NAME_* values */
        const char *hostname;      /* for Host=; NULL: gethostname() */
        const char *proc_cmdline;  /* for KernelCommandLine=; NULL: /proc/cmdline */
};

/* Whether c's [Match] fits l. */
bool link_config_match(const struct link_config *c, const struct link_info *l);
/* The first config of s that fits l, or NULL. */
const struct link_config *link_config_find(const struct link_config_set *s, const struct link_info *l);

/* The name NamePolicy= then Name= give l (borrowed from l->dev's properties, c or l), as
 * systemd-udevd 252 decides it: "kernel" keeps a predictable kernel name, "keep" a name
 * userspace gave, the others take ID_NET_NAME_FROM_DATABASE, _ONBOARD, _SLOT, _PATH, _MAC when
 * they are valid interface names. Without a result the current name stays. */
const char *link_config_new_name(const struct link_config *c, const struct link_info *l);

/* "ether", "infiniband", … for Type=: the DEVTYPE if any, else the ARPHRD name. New string. */
char *link_type_string(const char *devtype, unsigned iftype);
/* Normalizes a hardware address ("AA-BB-…", "aabb.ccdd.eeff") to lower-case "aa:bb:…";
 * -EINVAL when it is not one. New string in *ret. */
int hw_addr_normalize(const char *s, char **ret);

const char *name_policy_to_string(enum name_policy p);
