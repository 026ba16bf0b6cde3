/* SPDX-License-Identifier: MIT */
/*
 * Pairing the devices of two snapshots by what userspace sees, never by devpath (a class
 * conversion moves every class device to another devpath). Stages, each on what the earlier
 * ones left over:
 *
 *   1. same SUBSYSTEM/SYSNAME and same physical parent chain;
 *   2. below the same, already paired nearest parent, when exactly one device on each side
 *      has it: same subsystem and name stem (the name without its trailing number, or, for a
 *      name made of the parent's, what follows it: sda1 of sda); then same subsystem and
 *      DEVTYPE (the one disk of a SCSI device). Repeated until it pairs nothing more, so that
 *      it walks down the tree. Two USB HID devices that probe in parallel take their HID
 *      instance, inputN, eventN and hidrawN numbers in either order, two disks their sdX
 *      names: each follows the USB interface or SCSI device it sits on;
 *   3. same subsystem and devt (a renamed device node, or a reparented one);
 *   4. same subsystem and physical parent chain, when exactly one device on each side has it
 *      (names numbered in probe order, like wakeupN, shift when a device is added before);
 *   5. same SUBSYSTEM/SYSNAME (a device that moved to another parent);
 *   6. same subsystem and node name.
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

struct hashmap;

enum match_how {
        MATCH_NAME_AND_PARENT,
        MATCH_PAIRED_PARENT,
        MATCH_ONLY_CHILD,
        MATCH_DEVT,
        MATCH_PARENT,
        MATCH_NAME,
        MATCH_NODE,
};

struct snapshot_match {
        ssize_t *old_to_new; /* per OLD device: NEW index, or -1 */
        ssize_t *new_to_old; /* per NEW device: OLD index, or -1 */
        enum match_how *how; /* per OLD device, when paired */
        /* device key -> index + 1 (SIZE_MAX: not unique); the keys are the snapshots' strings,
         * so a match is used and cleared while both snapshots live */
        struct hashmap *old_keys, *new_keys;
};

/* Pairs old's and new's devices. 0 or -ENOMEM; *ret is cleared with snapshot_match_clear(). */
int snapshot_match(const struct snapshot *old, const struct snapshot *new, struct snapshot_match *ret);
void snapshot_match_clear(struct snapshot_match *m);

/* Whether OLD device i and NEW device j have the same physical parents: the same chain, or
 * one whose every differing ancestor was paired with the other's (a renamed HID instance);
 * with drivers, each with the same driver too. */
bool snapshot_match_same_parents(const struct snapshot *old, const struct snapshot *new,
                                 const struct snapshot_match *m, size_t i, size_t j, bool drivers);

/* "subsystem/sysname < ..." of the non-class ancestors, nearest first ("-" for no subsystem),
 * with drivers "subsystem/sysname(driver)"; "none" without any. New string, NULL on ENOMEM. */
char *snapshot_physical_chain(const struct snapshot_device *d, bool drivers);
