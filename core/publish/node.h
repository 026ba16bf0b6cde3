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

/* What a node made now gets where nothing decided (NODE_*_UNSET): 0600, owned by root. */
void node_access_for_new(mode_t *mode, uid_t *uid, gid_t *gid);

/* Creates or fixes the node `name` (a devdir-valid name) of type 'c' or 'b' for devnum.
 * mode is the permission bits (07777 masked), uid/gid the owner. NODE_*_UNSET leave that part
 * of an existing node as it is (udev changes only what rules or the kernel decided); a node
 * made now gets 0600 and root for it. Missing parent directories are created (0755).
 *  - absent: created;
 *  - a node of this type and devnum: only owner/mode are corrected when they differ;
 *  - anything else that can be replaced (another node, a regular file, a symlink): replaced
 *    atomically by renaming a new node over it.
 * Then "char/M:m" or "block/M:m" is pointed at it ("../<name>").
 * Returns 1 when the node was created or replaced, 0 when it existed (perhaps re-permissioned),
 * -EINVAL for a bad name or type, -ENOTDIR/-ELOOP when an intermediate component is not a
 * real directory, -EISDIR when a directory is in the way, other -errno. When only the M:m link
 * could not be made, its -errno is returned and the node is in place. */
int node_add(int devfd, struct devdir_cache *devdirs, const char *name, char type, dev_t devnum, mode_t mode,
             uid_t uid, gid_t gid);

/* The node a device gets before its rules run (as devtmpfs would give it): when nothing has the
 * name, the node is made 0600 (under the process umask; devmand's leaves it so) owned by the
 * caller, with its "char/M:m" or "block/M:m" link. Anything already there is left alone.
 * Returns 1 when the node was made, 0 when the name was taken, -errno. */
int node_add_absent(int devfd, struct devdir_cache *devdirs, const char *name, char type, dev_t devnum);

/* node_add() for the node node_add_absent() made in this same event, with its "char/M:m" or
 * "block/M:m" link: the link is left alone, and the node is brought to mode and owner from the
 * state node_add_absent() gave it (0600, owned by the caller) without looking it up first —
 * one path walk fewer per added device. When there is nothing to change, or the node is no
 * longer there, it is looked up and made or fixed as node_add() does. */
int node_update(int devfd, struct devdir_cache *devdirs, const char *name, char type, dev_t devnum,
                mode_t mode, uid_t uid, gid_t gid);

/* The same without the "char/M:m" or "block/M:m" link: for static nodes (modules.devname), made
 * before any device exists. The M:m links are devman's record of nodes it made for devices
 * (crash recovery removes those whose device is gone); static nodes have no device to wait for. */
int node_add_static(int devfd, const char *name, char type, dev_t devnum, mode_t mode, uid_t uid, gid_t gid);

/* Removes `name` only if it still is the node of that type and devnum, the "char/M:m" or
 * "block/M:m" link if it points to "../<name>", and the node's parent directories that are
 * left empty. Returns 1 when the node was removed, 0 when there was nothing (or something
 * else) there, -errno on failure. */
int node_remove(int devfd, struct devdir_cache *devdirs, const char *name, char type, dev_t devnum);

/* "char/M:m" or "block/M:m" for the given type and devnum, as a new string in *ret.
 * -EINVAL for a bad type. */
int node_devnum_link_name(char type, dev_t devnum, char **ret);
