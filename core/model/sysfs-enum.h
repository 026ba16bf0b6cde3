/* SPDX-License-Identifier: MIT */
/*
 * devman's one enumerator of sysfs: trigger, coldplug, the model's scan, resynchronisation,
 * reconciliation and snapshots all list kobjects here. Both class layouts: the converted one,
 * where /sys/class/<c>/<n> is a link into /sys/devices, and the old one, where it is a directory
 * of its own (with `dev` and a `device` link), as is /sys/block/<d> before class/block.
 *
 * SYSFS_ENUM_DEVICES lists the devices the kernel sends uevents for, found the way udev's
 * enumerator finds them: the entries of /bus/<bus>/devices/ and /class/<class>/, and /block/
 * when there is no class/block. A directory under /devices that belongs to no bus and no class
 * has a uevent file too, but the kernel never sends an event for it: it is not listed. Listing
 * these hundred-odd directories and reading one link per device costs a fraction of a walk of
 * /sys/devices, which has to open every attribute group directory of every device (`power`,
 * `queue`, …) only to find no device in it.
 *
 * SYSFS_ENUM_ALL_DEVICES is that walk: every device sysfs shows, also the parents without bus or
 * class and a device whose class link a broken class conversion lost, which snapshots compare.
 */
#pragma once

#include <stddef.h>

enum sysfs_enum_type {
        SYSFS_ENUM_DEVICES,     /* those with a bus or class: what `trigger --type=devices` writes to */
        SYSFS_ENUM_ALL_DEVICES, /* every directory with a uevent file below /devices, and the old
                                 * layout's class and block directories: what the model holds,
                                 * the daemon's coldplug, snapshots */
        SYSFS_ENUM_SUBSYSTEMS,  /* /bus/<b>, /bus/<b>/drivers/<d>, /module/<m> (`--type=subsystems`) */
};

/* Lists the kobjects under the sysfs root as devpaths. Devices: "/devices/…" for the links of
 * the unified layout (resolved without following them on disk), "/class/<c>/<n>[/<child>]" and
 * "/block/<b>[/<part>]" for directories of the old layout. Sorted so that a parent comes before
 * its children: the /devices paths in strcmp order, then the old class directories, then the
 * old block directories; no duplicates (a disk is in class/block and in block). Subsystems:
 * each of those with a uevent file, name by name (a bus, then its drivers, then the next bus;
 * the modules last).
 *
 * *ret is a new NULL-terminated strv the caller owns, *ret_n (may be NULL) its length.
 * A link that leads outside the sysfs root is skipped; a directory that cannot be read is
 * skipped (devices come and go). -errno when the sysfs root cannot be opened, -ENOMEM. */
int sysfs_enumerate(const char *sysfs_root, enum sysfs_enum_type type, char ***ret, size_t *ret_n);
