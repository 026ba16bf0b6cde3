/* SPDX-License-Identifier: MIT */
/*
 * devmanadm snapshot [--sysfs DIR] [--rules-dir DIR]... [--no-rules] [-o FILE]
 *
 * Records what devman would publish for every device of a sysfs tree, without touching /dev:
 * each device goes through the event pipeline (process_event) as a coldplug "add" in dry-run
 * mode (rules evaluated, builtins in test mode; no node, link, database, RUN or broadcast).
 * The format is snapshot-file.h's, documented in doc/snapshot-format.md.
 */
#pragma once

#include <stdio.h>

#include "adm.h"
#include "snapshot-file.h"

struct snapshot_options {
        const char *sysfs_root;
        const char *dev_root;
        char *const *rules_dirs; /* NULL: the default rules directories */
        bool no_rules;
};

/* Writes the snapshot of o->sysfs_root to f. 0, or -errno (logged). */
int snapshot_write(const struct snapshot_options *o, FILE *f);
/* Takes a snapshot and parses it (what compare uses for "now"). 0, or -errno (logged); *ret is
 * owned by the caller (snapshot_free). */
int snapshot_take(const struct snapshot_options *o, struct snapshot **ret);
