/* SPDX-License-Identifier: MIT */
#include "mdev-apply.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macros.h"
#include "node.h"
#include "strfmt.h"
#include "strv.h"

const char *mdev_result_primary(const struct mdev_result *res)
{
        for (size_t i = 0; i < res->n_actions; i++)
                if (res->actions[i].node)
                        return res->actions[i].node;
        return NULL;
}

bool mdev_result_has_node(const struct mdev_result *res, const char *name)
{
        for (size_t i = 0; i < res->n_actions; i++)
                if (streq_ptr(res->actions[i].node, name))
                        return true;
        return false;
}

int mdev_apply_add(int devfd, struct devdir_cache *dirs, const struct mdev_result *res, char type,
                   dev_t devnum)
{
        int first = 0, r;

        for (size_t i = 0; i < res->n_actions; i++) {
                const struct mdev_action *a = &res->actions[i];
                if (!a->node)
                        continue;
                r = node_apply(devfd, dirs, a->node, type, devnum,
                               &(struct node_access){a->mode, a->uid, a->gid}, 0);
                if (r < 0 && first == 0)
                        first = r;
        }
        /* links after all nodes: a link never stands where a later line puts a node */
        for (size_t i = 0; i < res->n_actions; i++) {
                const struct mdev_action *a = &res->actions[i];
                _cleanup_free_ char *target = NULL;
                if (!a->node || !a->link || mdev_result_has_node(res, a->link))
                        continue;
                r = devdir_relative_target(a->link, a->node, &target);
                if (r >= 0)
                        r = devdir_symlink_put(devfd, dirs, a->link, target);
                if (r < 0 && first == 0)
                        first = r;
        }
        return first;
}

/* Removes the symlink name if it points to target. 1 removed, 0 not there (or something
 * else), -errno. */
static int remove_link_to(int devfd, struct devdir_cache *dirs, const char *name, const char *target)
{
        _cleanup_(devdir_parent_done) struct devdir_parent dir = DEVDIR_PARENT_NULL;
        _cleanup_free_ char *now = NULL;
        int r = devdir_open_parent(devfd, dirs, name, false, &dir);
        if (r == -ENOENT || r == -ENOTDIR || r == -ELOOP)
                return 0;
        if (r < 0)
                return r;
        r = devdir_readlink(dir.fd, dir.leaf, &now);
        if (r == -ENOENT || r == -EINVAL)
                return 0;
        if (r < 0)
                return r;
        if (!streq(now, target))
                return 0;
        if (unlinkat(dir.fd, dir.leaf, 0) < 0)
                return errno == ENOENT ? 0 : -errno;
        devdir_parent_done(&dir);
        devdir_prune_parents(devfd, dirs, name);
        return 1;
}

int mdev_apply_remove(int devfd, struct devdir_cache *dirs, const struct mdev_result *res, char type,
                      dev_t devnum)
{
        int first = 0, r;

        for (size_t i = 0; i < res->n_actions; i++) {
                const struct mdev_action *a = &res->actions[i];
                _cleanup_free_ char *target = NULL;
                if (!a->node || !a->link)
                        continue;
                r = devdir_relative_target(a->link, a->node, &target);
                if (r >= 0)
                        r = remove_link_to(devfd, dirs, a->link, target);
                if (r < 0 && first == 0)
                        first = r;
        }
        for (size_t i = 0; i < res->n_actions; i++) {
                const struct mdev_action *a = &res->actions[i];
                if (!a->node)
                        continue;
                r = node_remove(devfd, dirs, a->node, type, devnum);
                if (r < 0 && first == 0)
                        first = r;
        }
        return first;
}

int mdev_command_env(char *const *base, const char *devname, const char *mdev, char ***ret)
{
        _cleanup_(strv_builder_done) struct strv_builder b = {0};

        for (char *const *e = base; e && *e; e++)
                if (!(devname && startswith(*e, "DEVNAME=")) && !(mdev && startswith(*e, "MDEV=")) &&
                    strv_builder_push_copy(&b, *e) < 0)
                        return -ENOMEM;
        if (devname && strv_builder_push(&b, strfmt_concat("DEVNAME=", devname, NULL)) < 0)
                return -ENOMEM;
        if (mdev && strv_builder_push(&b, strfmt_concat("MDEV=", mdev, NULL)) < 0)
                return -ENOMEM;
        /* what the kernel gives /sbin/mdev as a hotplug helper */
        if (!strv_env_get(base, "PATH") && strv_builder_push_copy(&b, "PATH=/sbin:/bin:/usr/sbin:/usr/bin") < 0)
                return -ENOMEM;
        if (!strv_env_get(base, "HOME") && strv_builder_push_copy(&b, "HOME=/") < 0)
                return -ENOMEM;
        *ret = strv_builder_take(&b);
        return *ret ? 0 : -ENOMEM;
}
