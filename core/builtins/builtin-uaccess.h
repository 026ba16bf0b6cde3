/* SPDX-License-Identifier: MIT */
/*
 * uaccess: gives the user of the active session on the device's seat read/write access to the
 * device node through a POSIX ACL (73-seat-late.rules runs it for nodes tagged "uaccess").
 *
 * What devman does, precisely:
 *  - without logind (no <root>/run/systemd/seats/ directory) nothing at all: no ACL is read or
 *    changed, and the builtin succeeds;
 *  - otherwise the seat is ID_SEAT (default "seat0"); its active user is ACTIVE_UID= in
 *    <root>/run/systemd/seats/<seat> (the file logind writes); the node (DEVNAME) gets exactly
 *    that user as its one named-user entry, rw, with other ACL entries kept (devnode-acl.h);
 *    without an active user the named-user entries are removed;
 *  - in test mode the node is left alone and the decision is printed.
 * Later session switches are logind's business (it rewrites the ACLs of tagged nodes).
 * Returns 0, -ENOENT without DEVNAME or node (logged at debug level), other -errno.
 */
#pragma once

#include "builtin.h"

int builtin_uaccess_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);
