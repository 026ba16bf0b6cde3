/* SPDX-License-Identifier: MIT */
/*
 * Safe file operations inside the /dev root. The root is a directory fd opened once by the
 * caller (which keeps ownership of it); every name is relative to it and is walked component
 * by component with O_NOFOLLOW|O_DIRECTORY, so a symlink planted in /dev is never followed
 * when devman creates or removes something. Used by node.c (device nodes) and links.c
 * (symlinks), and by db.c for the run directory's data/ and tags/ (the same safe walk and
 * directory cache below another root).
 *
 * Names are "relative paths" as udev's DEVNAME and SYMLINK values: see devdir_name_valid().
 * All functions return 0 (or the documented positive value) on success and -errno on
 * failure; none of them logs.
 */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Upper bound of a whole name (udev's UDEV_PATH_SIZE). */
#define DEVDIR_NAME_MAX 1024

/* A name is valid when it is non-empty, relative, at most DEVDIR_NAME_MAX bytes, every
 * '/'-separated component is non-empty, not "." or "..", at most NAME_MAX bytes, and no byte
 * is a control character (< 0x20 or 0x7f). */
bool devdir_name_valid(const char *name);

/* Directories below the root kept open between calls, so that a name in block/ or
 * disk/by-id/ does not cost an open of its directory every time. The caller owns the cache:
 * zero-initialised (struct devdir_cache c = {0}), used with one root only, emptied by
 * devdir_cache_clear(). Directories devman prunes leave the cache; one removed by anyone else
 * meanwhile is noticed by a lookup (one fstat() of the cached directory when opened without
 * create; after a miss only with devdir_lookup_parent()) or when making something in it fails: the maker
 * then calls devdir_parent_reopen() and tries once more. A directory renamed inside the root is followed
 * under its new name until it leaves the cache. */
#define DEVDIR_CACHE_SLOTS 8
struct devdir_cache_slot {
        char *dir; /* NULL: a free slot */
        int fd;
        unsigned pins; /* devdir_parents using fd: it is neither closed nor replaced */
};
struct devdir_cache {
        struct devdir_cache_slot slot[DEVDIR_CACHE_SLOTS];
        unsigned next; /* where the search for a slot to replace starts */
};
void devdir_cache_clear(struct devdir_cache *c);

/* The directory that holds a name's last component: the root itself (borrowed from the
 * caller), a directory below it (opened for this, closed by devdir_parent_done()), or one
 * borrowed from a cache (pinned there until devdir_parent_done()). */
struct devdir_parent {
        int fd;
        const char *leaf; /* the last component, inside the name */
        bool owned;
        struct devdir_cache_slot *pinned;
};
#define DEVDIR_PARENT_NULL ((struct devdir_parent){.fd = -1})
void devdir_parent_done(struct devdir_parent *p);

/* Opens the directory that holds the last component of name (a valid name) into *ret: a name
 * directly in the root gets devfd itself, so the common case costs no syscall; with a cache
 * (may be NULL), a directory opened before is taken from it and one opened now is kept there.
 * Existing directories are opened in one openat2() call that refuses symlinks; the component walk is
 * the fallback (and makes what is missing). With create, missing directories are made with
 * mode 0755 (exactly, whatever the umask). An intermediate component that is a symlink or not a
 * directory fails with -ENOTDIR (-ELOOP on some kernels); missing ones without create fail
 * with -ENOENT. */
int devdir_open_parent(int devfd, struct devdir_cache *cache, const char *name, bool create,
                       struct devdir_parent *ret);

/* devdir_open_parent() without create, minus the fstat() of a directory taken from the cache:
 * for a lookup or removal that goes on only when it finds its entry. A directory removed
 * meanwhile is empty and can never get an entry again (rmdir() wants it empty, and the kernel
 * refuses to make anything in a removed directory), so whatever is found in it proves it still
 * has its name; only a miss (-ENOENT) is ambiguous: the devdir_leaf_*() functions then look
 * once more in the directory opened again. In a storm of removals this saves the
 * fstat() of every cached directory (/dev/block, disk/by-*, data/, tags/...). */
int devdir_lookup_parent(int devfd, struct devdir_cache *cache, const char *name, struct devdir_parent *ret);
/* unlinkat() (flags 0 or AT_REMOVEDIR), fstatat() without following, devdir_readlink() of p's
 * leaf (p from devdir_lookup_parent()): when nothing is there, the directory may be a cached
 * one removed meanwhile; it is then reopened and the leaf looked at once more. 0, -ENOENT when
 * nothing is there, -errno. */
int devdir_leaf_unlink(int devfd, struct devdir_cache *cache, const char *name, struct devdir_parent *p,
                       int flags);
int devdir_leaf_stat(int devfd, struct devdir_cache *cache, const char *name, struct devdir_parent *p,
                     struct stat *st);
int devdir_leaf_readlink(int devfd, struct devdir_cache *cache, const char *name, struct devdir_parent *p,
                         char **ret);
/* After making something in p's directory failed (-ENOENT, or EPERM from O_TMPFILE): when that directory
 * came from the cache it may have been removed meanwhile, so it leaves the cache and p is opened (made)
 * again for name. 1 when p was reopened (try again), 0 when p did not come from a cache,
 * -errno (p is then closed). */
int devdir_parent_reopen(int devfd, struct devdir_cache *cache, const char *name, struct devdir_parent *p);

/* Removes the empty parent directories of name, deepest first, stopping at the root or at
 * the first directory that is not empty (or not removable), and drops the removed ones from
 * the cache (may be NULL). Never fails. */
void devdir_prune_parents(int devfd, struct devdir_cache *cache, const char *name);

/* A name for a temporary entry in the same directory, "<prefix>.#devman.<random hex>",
 * to be renamed over the final name. Writes into buf (at least DEVDIR_TMP_SIZE bytes). */
#define DEVDIR_TMP_SIZE 40
#define DEVDIR_TMP_PREFIX ".#devman."
int devdir_tmp_name(char buf[static DEVDIR_TMP_SIZE]);

/* The atomic replace of leaf in dirfd: make() creates the new entry under a fresh temporary name
 * (0, or -errno; -EEXIST picks another name, up to 8 times), finish() (may be NULL) adjusts it
 * or refuses (-errno), then it is renamed over leaf. The temporary never survives a failure.
 * 1 when leaf was replaced, or -errno. */
int devdir_replace(int dirfd, const char *leaf, int (*make)(int dirfd, const char *tmp, void *data),
                   int (*finish)(int dirfd, const char *tmp, void *data), void *data);

/* Creates or replaces the symlink `leaf` in dirfd pointing to target, atomically (a temporary
 * symlink renamed over it). An existing entry that is not a symlink is never replaced: the
 * call fails with -EEXIST. Returns 1 when something changed, 0 when the link already had
 * this target. */
int devdir_symlink_replace(int dirfd, const char *leaf, const char *target);

/* The same for name (a valid name) below the root, its missing directories made; with a cache
 * (may be NULL), its directory is taken from there, and opened anew once when it was removed
 * meanwhile. */
int devdir_symlink_put(int devfd, struct devdir_cache *cache, const char *name, const char *target);

/* The relative target for a symlink called `link` (a valid name) that points to `target`
 * (a valid name), both relative to the same root: e.g. "disk/by-id/x" -> "sda" gives
 * "../../sda", "bus/usb/x" -> "bus/usb/001/002" gives "001/002". New string in *ret. */
int devdir_relative_target(const char *link, const char *target, char **ret);

/* Reads the target of the symlink at dirfd/leaf into a new string. -EINVAL when it is not a
 * symlink, -ENOENT when absent. */
int devdir_readlink(int dirfd, const char *leaf, char **ret);
