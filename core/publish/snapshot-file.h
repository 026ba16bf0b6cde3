/* SPDX-License-Identifier: MIT */
/*
 * The snapshot file format of `devmanadm snapshot` (version 1), its reader and its escaping.
 * The format is described in doc/snapshot-format.md; in short:
 *
 *   devman-snapshot 1
 *   sysfs-root /sys
 *   devices 123
 *
 *   device tty/ttyS0                  one stanza per device, sorted by this key
 *   found /class/tty/ttyS0            (subsystem/sysname, or @devpath without subsystem)
 *   devpath /devices/platform/serial8250/tty/ttyS0
 *   layout converted                  converted | legacy | unlisted | bus | other
 *   subsystem tty
 *   ...
 *   end
 *
 * Every value is escaped: '\\', control characters and (except in the last field of a line)
 * spaces become \xHH. Unknown keys inside a stanza are skipped (later minor additions).
 *
 * Ownership: a struct snapshot owns all its strings; snapshot_free() releases everything.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "macros.h"

#define SNAPSHOT_FORMAT_VERSION 1

struct snapshot_parent {
        char *kind;      /* "class" or "bus" (anything that is not a class device) */
        char *subsystem; /* NULL for "-" */
        char *driver;    /* NULL for "-" */
        char *sysname;
};

struct snapshot_device {
        char *key;
        char *found;
        char *devpath;
        char *layout;
        char *subsystem, *devtype, *driver;      /* NULL for "-" */
        char devt_type;                          /* 'c', 'b' or 0 */
        char *devt;                              /* "MAJOR:MINOR", NULL when none */
        char *node, *mode, *owner;               /* NULL for "-" */
        char **links, **tags, **props, **kprops; /* NULL-terminated, sorted, never NULL */
        struct snapshot_parent *parents;         /* nearest first */
        size_t n_parents;
};

struct snapshot {
        char *name; /* where it was read from, for messages */
        char *sysfs_root;
        struct snapshot_device *devices;
        size_t n_devices;
};

/* Parses a snapshot. Errors are logged with name:line and returned: -EBADMSG for a malformed
 * file, -EPROTONOSUPPORT for a newer format version, -ENOMEM. */
int snapshot_parse(FILE *f, const char *name, struct snapshot **ret);
/* Reads path ("-" for standard input); errors as for snapshot_parse, plus -errno of fopen (logged). */
int snapshot_read(const char *path, struct snapshot **ret);
struct snapshot *snapshot_free(struct snapshot *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct snapshot, snapshot_free)

/* Writes s escaped; with last, spaces are kept (the last field of a line). */
void snapshot_put_escaped(FILE *f, const char *s, bool last);
