/* SPDX-License-Identifier: MIT */
/*
 * What an mdev.conf match (mdev-conf.h) does to the /dev root and to the environment of its
 * commands. Nodes and links are made and removed through node.c and devdir.c, so nothing is
 * made outside the root and no planted symlink is followed. Functions return 0 or -errno and
 * do not log.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "devdir.h"
#include "mdev-conf.h"

/* The node the device's other names (the rules' SYMLINK, /dev/char/M:m) point to: the first
 * node the match makes, or NULL when it makes none. */
const char *mdev_result_primary(const struct mdev_result *res);

/* Whether the match makes (or removes) a node called name. */
bool mdev_result_has_node(const struct mdev_result *res, const char *name);

/* Add event: makes every action's node (type 'c' or 'b', devnum) with its mode and owner, in
 * order, then each '>' link (the device name pointing to its node, relative). Every action is
 * tried; 0 or the first -errno. */
int mdev_apply_add(int devfd, struct devdir_cache *dirs, const struct mdev_result *res, char type,
                   dev_t devnum);

/* Remove event: removes each '>' link that still points to its node, then each node that still
 * is the device's (and directories left empty). 0 or the first -errno. */
int mdev_apply_remove(int devfd, struct devdir_cache *dirs, const struct mdev_result *res, char type,
                      dev_t devnum);

/* An environment for mdev.conf: base (the event's environment, "KEY=VALUE"), with DEVNAME
 * replaced by devname as the kernel gave it (relative to /dev, as busybox passes it on) unless
 * devname is NULL, MDEV=mdev unless mdev is NULL, and PATH and HOME as the kernel gives hotplug
 * helpers when base has none. New strv in *ret. 0 or -ENOMEM. */
int mdev_command_env(char *const *base, const char *devname, const char *mdev, char ***ret);
