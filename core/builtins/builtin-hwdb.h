/* SPDX-License-Identifier: MIT */
/*
 * hwdb builtin: `hwdb [--subsystem=S] [--lookup-prefix=P] [--filter=GLOB] [--device=ID] [KEY]`
 * adds the hardware database's properties for KEY, or for the modalias of the device (or of
 * the nearest ancestor that has one and yields a match), as systemd-udevd 252 does.
 *
 * The database handle lives in the builtin's slot of struct builtin_ctx: init opens the
 * standard location (no database is not an error there; runs then fail with -ENOENT), exit
 * frees it, and a run reopens it when the file on disk changed.
 */
#pragma once

#include "builtin.h"

struct hwdb;

int builtin_hwdb_init(struct builtin_ctx *ctx);
void builtin_hwdb_exit(struct builtin_ctx *ctx);
void builtin_hwdb_trim(struct builtin_ctx *ctx);
int builtin_hwdb_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);

/* Makes the builtin use h (taking ownership; a previous handle is freed) instead of the
 * standard location, e.g. a database below a test root. Never reopened behind the caller. */
int builtin_hwdb_use(struct builtin_ctx *ctx, struct hwdb *h);

/* Adds the properties hwdb has for prefix+key (prefix may be NULL) whose names match filter
 * (a glob, NULL for all). Returns how many were added, or -errno. */
int builtin_hwdb_lookup(struct builtin_ctx *ctx, struct device *dev, const char *prefix, const char *key,
                        const char *filter, bool test);
