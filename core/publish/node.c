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
                          struct node_access a)
{
        mode_t mode = a.mode;
        uid_t uid = a.uid;
        gid_t gid = a.gid;

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

void node_access_for_new(struct node_access *a)
{
        if (a->mode == NODE_MODE_UNSET)
                a->mode = NODE_MODE_DEFAULT;
        if (a->uid == NODE_UID_UNSET)
                a->uid = 0;
        if (a->gid == NODE_GID_UNSET)
                a->gid = 0;
}

struct node_spec {
        mode_t ifmt;
        dev_t devnum;
        struct node_access access;
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
        return node_fix_perms(dirfd, tmp, &st, n->ifmt, n->devnum, n->access);
}

/* Makes the node under a temporary name and renames it over whatever has the name. */
static int node_replace(int dirfd, const char *leaf, mode_t ifmt, dev_t devnum, struct node_access a)
{
        node_access_for_new(&a);
        struct node_spec n = {.ifmt = ifmt, .devnum = devnum, .access = a};
        return devdir_replace(dirfd, leaf, node_make_tmp, node_finish_tmp, &n);
}

/* Makes the absent node in place: with no permission bits, then its owner, then its mode, so
 * it is never more permissive than it ends up. -EEXIST when something took the name first. */
static int node_create(int dirfd, const char *leaf, mode_t ifmt, dev_t devnum, struct node_access a)
{
        node_access_for_new(&a);
        if (mknodat(dirfd, leaf, ifmt | 0000, devnum) < 0)
                return -errno;
        /* the owner mknod gives is ours (root) */
        struct stat st = {.st_mode = ifmt | 0000, .st_rdev = devnum, .st_uid = geteuid(), .st_gid = getegid()};
        int r = node_fix_perms(dirfd, leaf, &st, ifmt, devnum, a);
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

/* The node dirfd/leaf made or fixed, as node_apply() describes. */
static int node_put(int dirfd, const char *leaf, mode_t ifmt, dev_t devnum, struct node_access a)
{
        struct stat st;
        int r;

        if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (S_ISDIR(st.st_mode))
                        return -EISDIR;
                if ((st.st_mode & S_IFMT) == ifmt && st.st_rdev == devnum) {
                        r = node_fix_perms(dirfd, leaf, &st, ifmt, devnum, a);
                        if (r == -ESTALE) /* replaced under us: make it again */
                                r = node_replace(dirfd, leaf, ifmt, devnum, a);
                } else
                        r = node_replace(dirfd, leaf, ifmt, devnum, a);
        } else if (errno == ENOENT) {
                r = node_create(dirfd, leaf, ifmt, devnum, a);
                if (r == -EEXIST) /* made by someone else in between */
                        r = node_replace(dirfd, leaf, ifmt, devnum, a);
        } else
                r = -errno;
        return r;
}

/* The node made before the rules (NODE_IF_ABSENT): mknod() itself is the check, one call where
 * a look-up first would take two. The M:m link first, as for any node (the record of a node
 * devman made); the rules' node_apply() makes it anyway when the name is taken. */
static int node_make_absent(int devfd, struct devdir_cache *devdirs, const char *name, char type, mode_t ifmt,
                            dev_t devnum, struct devdir_parent *dir)
{
        int r = node_link_devnum(devfd, devdirs, name, type, devnum);
        if (r < 0)
                return r;
        r = mknodat(dir->fd, dir->leaf, ifmt | NODE_MODE_DEFAULT, devnum) < 0 ? -errno : 1;
        if (r == -ENOENT && devdir_parent_reopen(devfd, devdirs, name, dir) > 0)
                r = mknodat(dir->fd, dir->leaf, ifmt | NODE_MODE_DEFAULT, devnum) < 0 ? -errno : 1;
        return r == -EEXIST ? 0 : r;
}

int node_apply(int devfd, struct devdir_cache *devdirs, const char *name, char type, dev_t devnum,
               const struct node_access *access, unsigned flags)
{
        _cleanup_(devdir_parent_done) struct devdir_parent dir = DEVDIR_PARENT_NULL;
        mode_t ifmt = type_bits(type);
        int r;

        const unsigned known = NODE_IF_ABSENT | NODE_MADE_NOW | NODE_NO_DEVNUM_LINK;
        if (!ifmt || !devdir_name_valid(name) || (flags & ~known) ||
            ((flags & NODE_IF_ABSENT) && (access || (flags & NODE_MADE_NOW))))
                return -EINVAL;
        struct node_access a = access ? *access : NODE_ACCESS_UNSET;
        if (a.mode != NODE_MODE_UNSET)
                a.mode &= 07777;

        r = devdir_open_parent(devfd, devdirs, name, true, &dir);
        if (r < 0)
                return r;
        if (flags & NODE_IF_ABSENT)
                return node_make_absent(devfd, devdirs, name, type, ifmt, devnum, &dir);

        /* The M:m link first: it is the record that devman made this node, so a crash between
         * the two leaves at most a dangling link that reconciliation finds (reconcile.c). A node
         * made now (NODE_MADE_NOW) got its link then. */
        bool devnum_link = !(flags & (NODE_MADE_NOW | NODE_NO_DEVNUM_LINK));
        int link_r = devnum_link ? node_link_devnum(devfd, devdirs, name, type, devnum) : 0;

        r = -ESTALE;
        if (flags & NODE_MADE_NOW) {
                /* No look-up first; with nothing to change, node_put() checks it is still there.
                 * The owner it was made with is not asked for either (two syscalls): an owner
                 * the rules decided is set, which also leaves one already right as it is. */
                const struct stat st = {.st_mode = ifmt | NODE_MODE_DEFAULT, .st_rdev = devnum,
                                        .st_uid = NODE_UID_UNSET, .st_gid = NODE_GID_UNSET};
                if (a.uid != NODE_UID_UNSET || a.gid != NODE_GID_UNSET ||
                    (a.mode != NODE_MODE_UNSET && (st.st_mode & 07777) != a.mode))
                        r = node_fix_perms(dir.fd, dir.leaf, &st, ifmt, devnum, a);
        }
        if (r == -ESTALE) /* not known, or gone meanwhile */
                r = node_put(dir.fd, dir.leaf, ifmt, devnum, a);
        if (r == -ENOENT && devdir_parent_reopen(devfd, devdirs, name, &dir) > 0)
                r = node_put(dir.fd, dir.leaf, ifmt, devnum, a);
        if (r < 0)
                return r;
        return link_r < 0 ? link_r : r;
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

                r = devdir_lookup_parent(devfd, devdirs, name, &dir);
                if (r < 0 && r != -ENOENT)
                        return r;
                if (r >= 0 && devdir_leaf_stat(devfd, devdirs, name, &dir, &st) >= 0 &&
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

                if (devdir_lookup_parent(devfd, devdirs, link, &dir) >= 0 &&
                    devdir_leaf_readlink(devfd, devdirs, link, &dir, &old) >= 0 && streq(old, target))
                        if (unlinkat(dir.fd, dir.leaf, 0) < 0 && errno != ENOENT)
                                return -errno;
        }

        if (removed)
                devdir_prune_parents(devfd, devdirs, name);
        return removed;
}
