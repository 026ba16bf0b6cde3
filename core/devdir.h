/* SPDX-License-Identifier: MIT */
/*
 * Safe file operations inside the /dev root. The root is a directory fd opened once by the
 * caller (which keeps ownership of it); every name is relative to it and is walked component
 * by component with O_NOFOLLOW|O_DIRECTORY, so a symlink planted in /dev is never followed
 * when devman creates or removes something. Used by node.c (device nodes) and links.c
 * (symlinks).
 *
 * Names are "relative paths" as udev's DEVNAME and SYMLINK values: see devdir_name_valid().
 * All functions return 0 (or the documented positive value) on success and -errno on
 * failure; none of them logs.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* Upper bound of a whole name (udev's UDEV_PATH_SIZE). */
#define DEVDIR_NAME_MAX 1024

/* A name is valid when it is non-empty, relative, at most DEVDIR_NAME_MAX bytes, every
 * '/'-separated component is non-empty, not "." or "..", at most NAME_MAX bytes, and no byte
 * is a control character (< 0x20 or 0x7f). */
bool devdir_name_valid(const char *name);

/* The directory that holds a name's last component: the root itself (borrowed from the
 * caller) or a directory below it (opened for this, closed by devdir_parent_done()). */
struct devdir_parent {
        int fd;
        const char *leaf; /* the last component, inside the name */
        bool owned;
};
#define DEVDIR_PARENT_NULL ((struct devdir_parent){.fd = -1})
void devdir_parent_done(struct devdir_parent *p);

/* Opens the directory that holds the last component of name (a valid name) into *ret: a name
 * directly in the root gets devfd itself, so the common case costs no syscall. Existing
 * directories are opened in one openat2() call that refuses symlinks; the component walk is
 * the fallback (and makes what is missing). With create, missing directories are made with
 * mode 0755 (exactly, whatever the umask). An intermediate component that is a symlink or not a
 * directory fails with -ENOTDIR (-ELOOP on some kernels); missing ones without create fail
 * with -ENOENT. */
int devdir_open_parent(int devfd, const char *name, bool create, struct devdir_parent *ret);

/* Removes the empty parent directories of name, deepest first, stopping at the root or at
 * the first directory that is not empty (or not removable). Never fails. */
void devdir_prune_parents(int devfd, const char *name);

/* A name for a temporary entry in the same directory, "<prefix>.#devman.<random hex>",
 * to be renamed over the final name. Writes into buf (at least DEVDIR_TMP_SIZE bytes). */
#define DEVDIR_TMP_SIZE 40
int devdir_tmp_name(char buf[static DEVDIR_TMP_SIZE]);

/* Creates or replaces the symlink `leaf` in dirfd pointing to target, atomically (a temporary
 * symlink renamed over it). An existing entry that is not a symlink is never replaced: the
 * call fails with -EEXIST. Returns 1 when something changed, 0 when the link already had
 * this target. */
int devdir_symlink_replace(int dirfd, const char *leaf, const char *target);

/* The relative target for a symlink called `link` (a valid name) that points to `target`
 * (a valid name), both relative to the same root: e.g. "disk/by-id/x" -> "sda" gives
 * "../../sda", "bus/usb/x" -> "bus/usb/001/002" gives "001/002". New string in *ret. */
int devdir_relative_target(const char *link, const char *target, char **ret);

/* Reads the target of the symlink at dirfd/leaf into a new string. -EINVAL when it is not a
 * symlink, -ENOENT when absent. */
int devdir_readlink(int dirfd, const char *leaf, char **ret);
