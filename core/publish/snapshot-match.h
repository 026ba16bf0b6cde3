/* SPDX-License-Identifier: MIT */
/*
 * Pairing the devices of two snapshots by what userspace sees, never by devpath (a class
 * conversion moves every class device to another devpath). Stages, each on what the earlier
 * ones left over:
 *
 *   1. same SUBSYSTEM/SYSNAME and same physical parent chain;
 *   2. same subsystem and devt (a renamed device node, or a reparented one);
 *   3. same subsystem and physical parent chain, when exactly one device on each side has it
 *      (names numbered in probe order, like wakeupN, shift when a device is added before);
 *   4. same SUBSYSTEM/SYSNAME (a device that moved to another parent);
 *   5. same subsystem and node name.
 *
 * Within a stage, each OLD device takes the most alike NEW candidate (same devt, then same
 * class-entry layout), so that of two NEW records with one name (a legacy directory left next
 * to the converted symlink) the right one is paired and the other stays over.
 *
 * The physical parent chain is the subsystem/sysname of every ancestor that is not a class
 * device: what a parent is, not where sysfs puts it.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "snapshot-file.h"

enum match_how {
        MATCH_NAME_AND_PARENT,
        MATCH_DEVT,
        MATCH_PARENT,
        MATCH_NAME,
        MATCH_NODE,
};

struct snapshot_match {
        ssize_t *old_to_new; /* per OLD device: NEW index, or -1 */
        ssize_t *new_to_old; /* per NEW device: OLD index, or -1 */
        enum match_how *how; /* per OLD device, when paired */
};

/* Pairs old's and new's devices. 0 or -ENOMEM; *ret is cleared with snapshot_match_clear(). */
int snapshot_match(const struct snapshot *old, const struct snapshot *new, struct snapshot_match *ret);
void snapshot_match_clear(struct snapshot_match *m);

/* "subsystem/sysname < ..." of the non-class ancestors, nearest first ("-" for no subsystem),
 * with drivers "subsystem/sysname(driver)"; "none" without any. New string, NULL on ENOMEM. */
char *snapshot_physical_chain(const struct snapshot_device *d, bool drivers);
