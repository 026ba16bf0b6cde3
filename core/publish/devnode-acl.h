/* SPDX-License-Identifier: MIT */
/*
 * POSIX ACLs on device nodes, for the uaccess builtin: the "system.posix_acl_access"
 * extended attribute read and written directly (no libacl), in the kernel's format
 * (version 2 header, then {tag, perm, id} entries sorted by tag and id).
 *
 * devnode_acl_set_user(): removes every named-user entry (ACL_USER), then, with uid !=
 * (uid_t)-1, grants that user read and write; the mask entry is recomputed (present whenever a
 * named entry is). A node without an ACL starts from its mode bits. 0 or -errno (-ENOENT when
 * the node is gone, -EOPNOTSUPP when the filesystem has no ACLs, -EBADMSG for an ACL we cannot
 * parse).
 *
 * devnode_acl_get_users(): the uids of the named-user entries that have read and write, for
 * tests and `info`; *ret (n in *ret_n) owned by the caller.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

int devnode_acl_set_user(const char *path, uid_t uid);
int devnode_acl_get_users(const char *path, uid_t **ret, size_t *ret_n);
