/* SPDX-License-Identifier: MIT */
/*
 * The devices the kernel sends uevents for, found the way udev's enumerator finds them: the
 * entries of <sysfs>/bus/<bus>/devices/ and <sysfs>/class/<class>/, and <sysfs>/block/ when
 * there is no class/block. A directory under /devices that belongs to no bus and no class has a
 * uevent file too, but the kernel never sends an event for it: it is not listed.
 *
 * Listing these hundred-odd directories and reading one link per device costs a fraction of a
 * walk of /sys/devices, which has to open every attribute group directory of every device
 * (`power`, `queue`, …) only to find no device in it.
 */
#pragma once

#include <stddef.h>

/* Lists the devices under the sysfs root as devpaths: "/devices/…" for the links of the unified
 * layout (resolved without following them on disk), "/class/<c>/<n>" and "/block/<b>[/<part>]"
 * for directories of the old layout. Sorted so that a parent comes before its children: the
 * /devices paths in strcmp order, then the old class directories, then the old block
 * directories; no duplicates (a disk is in class/block and in block).
 *
 * *ret is a new NULL-terminated strv the caller owns, *ret_n (may be NULL) its length.
 * A link that leads outside the sysfs root is skipped; a bus or class directory that cannot be
 * read is skipped (devices come and go). -errno when the sysfs root cannot be opened, -ENOMEM. */
int sysfs_enumerate_devices(const char *sysfs_root, char ***ret, size_t *ret_n);
