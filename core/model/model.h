/* SPDX-License-Identifier: MIT */
/*
 * The driver-core model: every device of one sysfs tree, indexed by devpath, by devt
 * (char and block kept apart), by subsystem and by parent.
 *
 * Both class layouts resolve to the same records: on the unified layout
 * /sys/class/<c>/<n> is a symlink and the record's devpath is the /devices path it points
 * to; on the legacy layout /sys/class/<c>/<n>/ is a directory, the record's devpath is
 * "/class/<c>/<n>" and its parent is the target of its `device` link.
 *
 * The model owns one reference on each record it indexes (see device.h).
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "device.h"
#include "uevent.h"

struct model;

/* A model of the sysfs tree at sysfs_root ("/sys" or a fixture directory). */
int model_new(const char *sysfs_root, struct model **ret);
struct model *model_free(struct model *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct model, model_free)

const char *model_sysfs_root(const struct model *m);
/* Whether the tree is the kernel's own sysfs, whose kernel events describe this machine (their
 * MAJOR/MINOR are trusted, interfaces are renamed, nodes made early). Set once by whoever chose
 * the root (the daemon); default false: a fixture tree. */
void model_set_live(struct model *m, bool live);
bool model_is_live(const struct model *m);
/* The /dev root used for the DEVNAME property (absolute node path, as udev publishes it).
 * Default "/dev". */
int model_set_dev_root(struct model *m, const char *dev_root);
const char *model_dev_root(const struct model *m);
size_t model_size(const struct model *m);

/* Reads one device from sysfs (its devpath may be a class-symlink path like /class/tty/tty0, a
 * /devices path, or a legacy path) and inserts or refreshes its record, creating missing
 * ancestors first. *ret (borrowed, optional) is the record. -ENODEV when it is not a device. */
int model_add_from_sysfs(struct model *m, const char *devpath, struct device **ret);

/* Builds the whole model: sysfs_enumerate() (sysfs-enum.h) + model_add_from_sysfs() for each,
 * which adds their parents too. Returns the number of devices listed and added. */
int model_scan(struct model *m);

/* Applies a uevent: add/change/bind/unbind/online/offline refresh the record from sysfs and
 * the event's properties (the event's values win for what it carries; the kernel's own events
 * on the live /sys give the devt by their MAJOR/MINOR, the value the `dev` attribute holds;
 * for other events MAJOR/MINOR that disagree with the `dev` attribute are logged and sysfs
 * wins); move renames the record
 * (DEVPATH_OLD) and its children; remove drops the record and its children from the model.
 * *ret gets a new reference to the record (for remove: the removed record). */
int model_apply_uevent(struct model *m, const struct uevent *ev, struct device **ret);

/* Removes a device and its children from the indices (dropping the model's references). */
void model_remove(struct model *m, struct device *d);

/* A new O_PATH fd of the sysfs directory of devpath (the caller owns it), opened through a
 * small cache of parent directory fds (sysdir-cache.h). -errno. */
int model_open_sysdir(struct model *m, const char *devpath);

/* Look-ups (borrowed pointers). model_get takes a canonical devpath; model_resolve also takes
 * a class path (/class/c/n), a /sys/... path, or a sysfs path through a symlink, and looks
 * the device up in sysfs if it is not in the model yet. */
struct device *model_get(const struct model *m, const char *devpath);
int model_resolve(struct model *m, const char *path, struct device **ret);
struct device *model_get_by_devnum(const struct model *m, char type, dev_t devnum);
/* The first device of a subsystem (follow ->subsys_next), NULL if none. */
struct device *model_first_of_subsystem(const struct model *m, const char *subsystem);
/* Iterates all devices in no particular order; *it starts at 0. */
bool model_iterate(const struct model *m, size_t *it, struct device **ret);
/* The names of every subsystem that has devices, sorted; NULL-terminated, caller frees. */
int model_subsystems(const struct model *m, char ***ret);

/* Rebuilds the indices at the size the devices they hold need (see hashmap_compact()): for an
 * idle daemon, after storms. 0 or -ENOMEM (indices that could not be rebuilt stay as they are). */
int model_compact(struct model *m);

/* How the class entry of /sys/class/<c>/<n> is laid out in this tree (CONVERTED or LEGACY),
 * -ENOENT when there is none. */
int model_class_entry_layout(const struct model *m, const char *subsystem, const char *sysname);
