/* SPDX-License-Identifier: MIT */
/*
 * The device record: what devman knows about one sysfs device.
 *
 * Ownership (the kernel's device_add/device_del rule): records are reference counted.
 * The model holds one reference for as long as the device is in its indices; a child holds
 * a reference on its parent; queued events hold references on their device. A record
 * outlives its removal from the model as long as an event still uses it.
 *
 * Paths: `devpath` is the canonical path below the sysfs root ("/devices/pci0000:00/…" on
 * the unified layout; "/class/<c>/<n>" or "/block/<d>" for records that exist only in the
 * legacy layout). `syspath` is sysfs root + devpath.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "macros.h"
#include "props.h"
#include "strv.h"

struct model;
struct sysdir_cache;

/* Where a device's class entry lives (what a class conversion changes). */
enum device_layout {
        DEVICE_LAYOUT_BUS,       /* a bus device (or other kobject) under /sys/devices, no class entry */
        DEVICE_LAYOUT_CONVERTED, /* /sys/class/<c>/<n> is a symlink into /sys/devices */
        DEVICE_LAYOUT_LEGACY,    /* /sys/class/<c>/<n> (or /sys/block/<d>) is a directory of its own */
        DEVICE_LAYOUT_OTHER,     /* /sys/bus/<b>, /sys/module/<m>, drivers: subsystem-level kobjects */
        _DEVICE_LAYOUT_MAX,
};
const char *device_layout_to_string(enum device_layout l);

/* What udev processing produced for a device: kept in memory between events, persisted in
 * the database (db.c), broadcast to libudev clients. NULL in a record until an event was
 * processed for it or its database entry was loaded. */
struct device_udev {
        char **links;           /* NULL-terminated, relative to the /dev root; owned */
        char **tags;            /* all tags ever set (G:) */
        char **current_tags;    /* tags set by the latest event (Q:) */
        int link_priority;      /* L: */
        uint64_t usec_initialized; /* I: CLOCK_MONOTONIC µs of the first processed event */
        mode_t mode;            /* node mode, (mode_t)-1 when no rule set it */
        uid_t uid;              /* (uid_t)-1 when no rule set it */
        gid_t gid;              /* (gid_t)-1 when no rule set it */
        bool db_persist;        /* OPTIONS+="db_persist" */
        bool watch;             /* OPTIONS+="watch" */
};

/* What the event stream tells of a device's removal while an event about it runs: the kernel
 * sends a device's remove event before its sysfs directory goes, and the daemon queues it. */
enum device_removal {
        DEVICE_REMOVAL_UNKNOWN, /* nobody can tell (a tool, lost or unread kernel events): ask sysfs */
        DEVICE_REMOVAL_NONE,    /* every kernel event was read, and none removes it */
        DEVICE_REMOVAL_QUEUED,  /* its remove event is queued */
};

struct device_attr; /* cached attribute value, see device_get_sysattr() */

struct device {
        unsigned n_ref;
        int sysfd;           /* O_PATH fd of its sysfs directory while an event is processed,
                              * valid when sysfd_open; closed with the attribute cache */
        struct model *model; /* the model that holds it; NULL once removed */
        /* the model's directory cache, set and cleared with model (model.c): the device opens
         * its sysfs directory through it without depending on the model */
        struct sysdir_cache *sysdirs;

        char *devpath;
        const char *sysname;  /* basename of devpath with '!' turned into '/'; points into devpath or sysname_buf */
        char *sysname_buf;    /* only when the basename contains '!' */
        const char *sysnum;   /* trailing digits of sysname, or NULL */
        /* Set only through device_set_*(): a value many devices share ("block", "disk") points
         * to one constant copy, a DEVNAME equal to the sysname is the sysname; any other is
         * owned. */
        const char *subsystem; /* class or bus name, NULL when unknown */
        const char *devtype;   /* DEVTYPE, or NULL */
        const char *driver;    /* bound driver, or NULL */
        const char *devname;   /* node name relative to the /dev root (DEVNAME), or NULL */
        dev_t devnum;          /* 0 when the device has no devt */
        uint64_t seqnum;       /* SEQNUM of the last event applied, 0 for coldplug records */
        int ifindex;           /* network interfaces, else 0 */
        enum device_layout layout;
        enum device_removal removal; /* for the event being processed (process.c, the daemon) */
        char devnum_type;      /* 'c', 'b' or 0 */
        bool devname_refused;  /* the kernel's DEVNAME was unsafe: no node, not even one named after the device */
        bool db_synced;        /* udev and PROP_DB properties are what the database entry says (read from it,
                                * found absent, or written from them): it need not be read again */
        bool db_exists;        /* with db_synced: whether the entry's file exists */
        bool sysfd_open;

        struct props props;   /* kernel uevent properties, plus PROP_DB ones from rules */
        struct device_udev *udev;
        struct device_attr *attrs; /* attribute cache for the event being processed */

        /* model links (managed by model.c) */
        struct device *parent;       /* holds a reference */
        struct device *first_child;
        struct device *next_sibling;
        struct device *prev_sibling;
        struct device *subsys_next;  /* next device of the same subsystem */
        struct device *subsys_prev;
};

/* A new, unattached record for devpath (must start with '/'). Fields are filled by the caller
 * (model.c from sysfs, or from a uevent). 0 or -errno. */
int device_new(const char *devpath, struct device **ret);
struct device *device_ref(struct device *d);
/* Changes the devpath (and sysname/sysnum). Only the model calls this, while it re-keys its
 * index for a move event. 0 or -errno (the record is unchanged on failure). */
int device_rename(struct device *d, const char *devpath);
struct device *device_unref(struct device *d); /* returns NULL */
DEFINE_TRIVIAL_CLEANUP_FUNC(struct device, device_unref)
#define _cleanup_device_unref_ _cleanup_(device_unrefp)

int device_set_subsystem(struct device *d, const char *s);
int device_set_devtype(struct device *d, const char *s);
int device_set_driver(struct device *d, const char *s);
int device_set_devname(struct device *d, const char *s);

/* "/sys" + devpath, in the model's sysfs root; a new string or NULL on ENOMEM. */
char *device_syspath(const struct device *d, const char *sysfs_root);

/* The udev database id: "b8:0", "c189:1", "n2", or "+subsystem:sysname". New string in *ret. */
int device_get_id(const struct device *d, char **ret);

/* A property from the device's set (kernel + rules). NULL when absent. */
const char *device_get_property(const struct device *d, const char *key);

/* A sysfs attribute of the device, read once per event and cached (with trailing whitespace
 * kept; callers that compare strip it). "subdir/attr" paths work. Returns 0 with *ret NULL-able
 * borrowed pointer valid until device_clear_attrs(), or -errno (-ENOENT when absent,
 * -EISDIR for directories). Values of any length are supported. */
int device_get_sysattr(struct device *d, const char *sysfs_root, const char *attr, const char **ret);
/* Writes an attribute (ATTR{x}="v" assignments) and updates the cache. */
int device_set_sysattr(struct device *d, const char *sysfs_root, const char *attr, const char *value);
/* The driver bound to d as rules see it (DRIVER, DRIVERS, $driver): the record's, or when the
 * record has none, the `driver` link's target read now (cached like an attribute). The kernel
 * makes the link before it calls probe() and sends "bind" after it, so while a probe adds child
 * devices only the link knows. 0 with *ret NULL when unbound, or -ENOMEM. */
int device_get_driver_now(struct device *d, const char *sysfs_root, const char **ret);
void device_clear_attrs(struct device *d);

/* An O_PATH fd of d's sysfs directory, opened on first use and kept (owned by d) until
 * device_clear_attrs(): attributes and TEST paths of one event are then looked up relative
 * to it, not walked from the root each time. -errno when it cannot be opened. */
int device_sysfd(struct device *d, const char *sysfs_root);

/* The udev results, allocated on first use. */
struct device_udev *device_get_udev(struct device *d);
void device_udev_free(struct device_udev *u);

/* Walk up: the parent (NULL at the top). Borrowed. */
static inline struct device *device_get_parent(const struct device *d)
{
        return d->parent;
}
/* The nearest ancestor (or d itself when include_self) with the given subsystem and,
 * if devtype is non-NULL, devtype. Borrowed, NULL if none. */
struct device *device_find_parent_with_subsystem(struct device *d, const char *subsystem, const char *devtype,
                                                 bool include_self);
