/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "devdir.h"
#include "macros.h"
#include "node.h"
#include "strfmt.h"

static mode_t type_bits(char type)
{
        return type == 'c' ? S_IFCHR : type == 'b' ? S_IFBLK : 0;
}

int node_devnum_link_name(char type, dev_t devnum, char **ret)
{
        if (!type_bits(type))
                return -EINVAL;
        char a[STRFMT_UINT_MAX], b[STRFMT_UINT_MAX];
        *ret = strfmt_concat(type == 'c' ? "char/" : "block/", strfmt_uint(a, major(devnum)), ":",
                             strfmt_uint(b, minor(devnum)), NULL);
        return *ret ? 0 : -ENOMEM;
}

#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452 /* the same number on every architecture */
#endif

/* chmod of dirfd/leaf that never follows a symlink: fchmodat2() (Linux 6.6), or before it an
 * O_PATH fd that is checked to be the node (want_type, devnum) and changed through /proc. */
static int chmod_nofollow(int dirfd, const char *leaf, mode_t want_type, dev_t devnum, mode_t mode)
{
        if (syscall(__NR_fchmodat2, dirfd, leaf, mode, AT_SYMLINK_NOFOLLOW) == 0)
                return 0;
        if (errno != ENOSYS && errno != EINVAL)
                return -errno;

        _cleanup_close_ int fd = openat(dirfd, leaf, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if ((st.st_mode & S_IFMT) != want_type || st.st_rdev != devnum)
                return -ESTALE;
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        if (chmod(proc, mode) == 0)
                return 0;
        if (errno != ENOENT)
                return -errno;
        /* No /proc (early initramfs): by name, after the check above. */
        return fchmodat(dirfd, leaf, mode, 0) < 0 ? -errno : 0;
}

/* Gives dirfd/leaf, the node (want_type, devnum) whose current state is *st, its owner and
 * mode; only what differs is changed, and nothing is done through a symlink. The check that
 * it is the node and the change are not one step: only root writes in /dev. */
static int node_fix_perms(int dirfd, const char *leaf, const struct stat *st, mode_t want_type, dev_t devnum,
                          mode_t mode, uid_t uid, gid_t gid)
{
        /* what no rule and no kernel key decided stays as the node has it, as in udev */
        if (mode == NODE_MODE_UNSET)
                mode = st->st_mode & 07777;
        if (uid == NODE_UID_UNSET)
                uid = st->st_uid;
        if (gid == NODE_GID_UNSET)
                gid = st->st_gid;
        bool chown_needed = st->st_uid != uid || st->st_gid != gid;

        if ((st->st_mode & S_IFMT) != want_type || st->st_rdev != devnum)
                return -ESTALE;
        if (chown_needed && fchownat(dirfd, leaf, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? -ESTALE : -errno;
        /* chown clears set-id bits, and the mode must be set last anyway. */
        if (chown_needed || (st->st_mode & 07777) != mode) {
                int r = chmod_nofollow(dirfd, leaf, want_type, devnum, mode);
                if (r < 0)
                        return r == -ENOENT ? -ESTALE : r;
        }
        return 0;
}

void node_access_for_new(mode_t *mode, uid_t *uid, gid_t *gid)
{
        if (*mode == NODE_MODE_UNSET)
                *mode = NODE_MODE_DEFAULT;
        if (*uid == NODE_UID_UNSET)
                *uid = 0;
        if (*gid == NODE_GID_UNSET)
                *gid = 0;
}

struct node_spec {
        mode_t ifmt;
        dev_t devnum;
        mode_t mode;
        uid_t uid;
        gid_t gid;
};

static int node_make_tmp(int dirfd, const char *tmp, void *data)
{
        const struct node_spec *n = data;
        /* No permission bits at first: the real ones come after the owner. */
        return mknodat(dirfd, tmp, n->ifmt | 0000, n->devnum) < 0 ? -errno : 0;
}

static int node_finish_tmp(int dirfd, const char *tmp, void *data)
{
        const struct node_spec *n = data;
        struct stat st = {.st_mode = n->ifmt | 0000, .st_rdev = n->devnum, .st_uid = (uid_t)-1, .st_gid = (gid_t)-1};
        return node_fix_perms(dirfd, tmp, &st, n->ifmt, n->devnum, n->mode, n->uid, n->gid);
}

/* Makes the node under a temporary name and renames it over whatever has the name. */
static int node_replace(int dirfd, const char *leaf, mode_t ifmt, dev_t devnum, mode_t mode, uid_t uid,
                        gid_t gid)
{
        node_access_for_new(&mode, &uid, &gid);
        struct node_spec n = {.ifmt = ifmt, .devnum = devnum, .mode = mode, .uid = uid, .gid = gid};
        return devdir_replace(dirfd, leaf, node_make_tmp, node_finish_tmp, &n);
}

/* Makes the absent node in place: with no permission bits, then its owner, then its mode, so
 * it is never more permissive than it ends up. -EEXIST when something took the name first. */
static int node_create(int dirfd, const char *leaf, mode_t ifmt, dev_t devnum, mode_t mode, uid_t uid,
                       gid_t gid)
{
        node_access_for_new(&mode, &uid, &gid);
        if (mknodat(dirfd, leaf, ifmt | 0000, devnum) < 0)
                return -errno;
        /* the owner mknod gives is ours (root) */
        struct stat st = {.st_mode = ifmt | 0000, .st_rdev = devnum, .st_uid = geteuid(), .st_gid = getegid()};
        int r = node_fix_perms(dirfd, leaf, &st, ifmt, devnum, mode, uid, gid);
        if (r < 0) {
                (void)unlinkat(dirfd, leaf, 0);
                return r;
        }
        return 1;
}

static int node_link_devnum(int devfd, struct devdir_cache *devdirs, const char *name, char type,
                            dev_t devnum)
{
        _cleanup_free_ char *link = NULL, *target = NULL;
        int r;

        r = node_devnum_link_name(type, devnum, &link);
        if (r < 0)
                return r;
        if (!(target = strfmt_concat("../", name, NULL)))
                return -ENOMEM;
        r = devdir_symlink_put(devfd, devdirs, link, target);
        return r < 0 ? r : 0;
}

/* The node dirfd/leaf made or fixed, as node_add_full() describes. */
static int node_put(int dirfd, const char *leaf, mode_t ifmt, dev_t devnum, mode_t mode, uid_t uid,
                    gid_t gid)
{
        struct stat st;
        int r;

        if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (S_ISDIR(st.st_mode))
                        return -EISDIR;
                if ((st.st_mode & S_IFMT) == ifmt && st.st_rdev == devnum) {
                        r = node_fix_perms(dirfd, leaf, &st, ifmt, devnum, mode, uid, gid);
                        if (r == -ESTALE) /* replaced under us: make it again */
                                r = node_replace(dirfd, leaf, ifmt, devnum, mode, uid, gid);
                } else
                        r = node_replace(dirfd, leaf, ifmt, devnum, mode, uid, gid);
        } else if (errno == ENOENT) {
                r = node_create(dirfd, leaf, ifmt, devnum, mode, uid, gid);
                if (r == -EEXIST) /* made by someone else in between */
                        r = node_replace(dirfd, leaf, ifmt, devnum, mode, uid, gid);
        } else
                r = -errno;
        return r;
}

/* made: the node is the one node_add_absent() made in this event, whose state is known. */
static int node_add_full(int devfd, struct devdir_cache *devdirs, const char *name, char type, dev_t devnum,
                         mode_t mode, uid_t uid, gid_t gid, bool devnum_link, bool made)
{
        _cleanup_(devdir_parent_done) struct devdir_parent dir = DEVDIR_PARENT_NULL;
        mode_t ifmt = type_bits(type);
        int r;

        if (!ifmt || !devdir_name_valid(name))
                return -EINVAL;
        if (mode != NODE_MODE_UNSET)
                mode &= 07777;

        r = devdir_open_parent(devfd, devdirs, name, true, &dir);
        if (r < 0)
                return r;

        /* The M:m link first: it is the record that devman made this node, so a crash between
         * the two leaves at most a dangling link that reconciliation finds (reconcile.c). */
        int link_r = devnum_link ? node_link_devnum(devfd, devdirs, name, type, devnum) : 0;

        r = -ESTALE;
        if (made) {
                /* no look-up first; with nothing to change, node_put() checks it is still there */
                const struct stat st = {.st_mode = ifmt | NODE_MODE_DEFAULT, .st_rdev = devnum,
                                        .st_uid = geteuid(), .st_gid = getegid()};
                if ((uid != NODE_UID_UNSET && st.st_uid != uid) || (gid != NODE_GID_UNSET && st.st_gid != gid) ||
                    (mode != NODE_MODE_UNSET && (st.st_mode & 07777) != mode))
                        r = node_fix_perms(dir.fd, dir.leaf, &st, ifmt, devnum, mode, uid, gid);
        }
        if (r == -ESTALE) /* not known, or gone meanwhile */
                r = node_put(dir.fd, dir.leaf, ifmt, devnum, mode, uid, gid);
        if (r == -ENOENT && devdir_parent_reopen(devfd, devdirs, name, &dir) > 0)
                r = node_put(dir.fd, dir.leaf, ifmt, devnum, mode, uid, gid);
        if (r < 0)
                return r;
        return link_r < 0 ? link_r : r;
}

int node_add_absent(int devfd, struct devdir_cache *devdirs, const char *name, char type, dev_t devnum)
{
        _cleanup_(devdir_parent_done) struct devdir_parent dir = DEVDIR_PARENT_NULL;
        mode_t ifmt = type_bits(type);
        int r;

        if (!ifmt || !devdir_name_valid(name))
                return -EINVAL;
        r = devdir_open_parent(devfd, devdirs, name, true, &dir);
        if (r < 0)
                return r;
        /* the M:m link first, as node_add() does (the record of a node devman made); the rules'
         * node_add() makes it anyway when the name is taken */
        r = node_link_devnum(devfd, devdirs, name, type, devnum);
        if (r < 0)
                return r;
        /* mknod() itself is the check: one call where a lookup first would take two */
        r = mknodat(dir.fd, dir.leaf, ifmt | NODE_MODE_DEFAULT, devnum) < 0 ? -errno : 1;
        if (r == -ENOENT && devdir_parent_reopen(devfd, devdirs, name, &dir) > 0)
                r = mknodat(dir.fd, dir.leaf, ifmt | NODE_MODE_DEFAULT, devnum) < 0 ? -errno : 1;
        return r == -EEXIST ? 0 : r;
}

int node_add(int devfd, struct devdir_cache *devdirs, const char *name, char type, dev_t devnum, mode_t mode,
             uid_t uid, gid_t gid)
{
        return node_add_full(devfd, devdirs, name, type, devnum, mode, uid, gid, true, false);
}

int node_update(int devfd, struct devdir_cache *devdirs, const char *name, char type, dev_t devnum,
                mode_t mode, uid_t uid, gid_t gid)
{
        return node_add_full(devfd, devdirs, name, type, devnum, mode, uid, gid, false, true);
}

int node_add_static(int devfd, const char *name, char type, dev_t devnum, mode_t mode, uid_t uid, gid_t gid)
{
        return node_add_full(devfd, NULL, name, type, devnum, mode, uid, gid, false, false);
}

int node_remove(int devfd, struct devdir_cache *devdirs, const char *name, char type, dev_t devnum)
{
        _cleanup_free_ char *link = NULL, *target = NULL;
        mode_t ifmt = type_bits(type);
        struct stat st;
        int r, removed = 0;

        if (!ifmt || !devdir_name_valid(name))
                return -EINVAL;

        {
                _cleanup_(devdir_parent_done) struct devdir_parent dir = DEVDIR_PARENT_NULL;

                r = devdir_open_parent(devfd, devdirs, name, false, &dir);
                if (r < 0 && r != -ENOENT)
                        return r;
                if (r >= 0 && fstatat(dir.fd, dir.leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                    (st.st_mode & S_IFMT) == ifmt && st.st_rdev == devnum) {
                        if (unlinkat(dir.fd, dir.leaf, 0) < 0 && errno != ENOENT)
                                return -errno;
                        removed = 1;
                }
        }

        r = node_devnum_link_name(type, devnum, &link);
        if (r < 0)
                return r;
        if (!(target = strfmt_concat("../", name, NULL)))
                return -ENOMEM;
        {
                _cleanup_(devdir_parent_done) struct devdir_parent dir = DEVDIR_PARENT_NULL;
                _cleanup_free_ char *old = NULL;

                if (devdir_open_parent(devfd, devdirs, link, false, &dir) >= 0 &&
                    devdir_readlink(dir.fd, dir.leaf, &old) >= 0 && streq(old, target))
                        if (unlinkat(dir.fd, dir.leaf, 0) < 0 && errno != ENOENT)
                                return -errno;
        }

        if (removed)
                devdir_prune_parents(devfd, devdirs, name);
        return removed;
}
