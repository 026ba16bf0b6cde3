/* SPDX-License-Identifier: MIT */
/*
 * Device nodes under the /dev root (a directory fd the caller opened once and owns), plus the
 * "char/M:m" and "block/M:m" symlinks udev keeps for every node. All paths are walked with
 * devdir.c, so a symlink planted in /dev is never followed.
 *
 * Modes are applied explicitly (the umask does not matter); a node is never more permissive
 * than the mode it ends up with, not even for a moment: it is made with no permission bits,
 * given its owner, then its mode. A node that replaces something else is made so under a
 * temporary name and renamed into place.
 *
 * Functions return 0/positive or -errno and do not log (the caller knows the device).
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "devdir.h"

#define NODE_MODE_UNSET ((mode_t)-1)
#define NODE_UID_UNSET ((uid_t)-1)
#define NODE_GID_UNSET ((gid_t)-1)
#define NODE_MODE_DEFAULT 0600

/* The permission bits (07777 masked) and owner a node is given. NODE_*_UNSET leave that part
 * of an existing node as it is (udev changes only what rules or the kernel decided). */
struct node_access {
        mode_t mode;
        uid_t uid;
        gid_t gid;
};
#define NODE_ACCESS_UNSET ((struct node_access){NODE_MODE_UNSET, NODE_UID_UNSET, NODE_GID_UNSET})

/* What a node made now gets where nothing decided (NODE_*_UNSET): 0600, owned by root. */
void node_access_for_new(struct node_access *a);

/* node_apply()'s flags, for the cases that differ from making or fixing a device's node. */
enum {
        /* The node a device gets before its rules run (as devtmpfs would give it): made 0600
         * (under the process umask; devmand's leaves it so) owned by the caller, with its M:m
         * link, only when nothing has the name; anything there is left alone. access must be
         * NULL. Returns 1 when made, 0 when the name was taken. */
        NODE_IF_ABSENT = 1 << 0,
        /* The node is the one NODE_IF_ABSENT made in this same event: its M:m link is left alone,
         * and it is brought to access from the state it was made with, without looking it up
         * first (one path walk fewer per added device). When there is nothing to change, or the
         * node is no longer there, it is looked up and made or fixed as without the flag. */
        NODE_MADE_NOW = 1 << 1,
        /* No M:m link: for static nodes (modules.devname), made before any device exists. The
         * M:m links are devman's record of nodes it made for devices (crash recovery removes
         * those whose device is gone); static nodes have no device to wait for. */
        NODE_NO_DEVNUM_LINK = 1 << 2,
};

/* Creates or fixes the node `name` (a devdir-valid name) of type 'c' or 'b' for devnum, with
 * access (NULL: all unset); a node made now gets node_access_for_new()'s for what is unset.
 * Missing parent directories are created (0755).
 *  - absent: created;
 *  - a node of this type and devnum: only owner/mode are corrected when they differ;
 *  - anything else that can be replaced (another node, a regular file, a symlink): replaced
 *    atomically by renaming a new node over it.
 * Then "char/M:m" or "block/M:m" is pointed at it ("../<name>"). flags: see above.
 * Returns 1 when the node was created or replaced, 0 when it existed (perhaps re-permissioned),
 * -EINVAL for a bad name, type or flags, -ENOTDIR/-ELOOP when an intermediate component is not
 * a real directory, -EISDIR when a directory is in the way, other -errno. When only the M:m
 * link could not be made, its -errno is returned and the node is in place. */
int node_apply(int devfd, struct devdir_cache *devdirs, const char *name, char type, dev_t devnum,
               const struct node_access *access, unsigned flags);

/* Removes `name` only if it still is the node of that type and devnum, the "char/M:m" or
 * "block/M:m" link if it points to "../<name>", and the node's parent directories that are
 * left empty. Returns 1 when the node was removed, 0 when there was nothing (or something
 * else) there, -errno on failure. */
int node_remove(int devfd, struct devdir_cache *devdirs, const char *name, char type, dev_t devnum);

/* "char/M:m" or "block/M:m" for the given type and devnum, as a new string in *ret.
 * -EINVAL for a bad type. */
int node_devnum_link_name(char type, dev_t devnum, char **ret);
