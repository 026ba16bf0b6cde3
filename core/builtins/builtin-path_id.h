/* SPDX-License-Identifier: MIT */
/*
 * path_id: the persistent path of a device from its position in the device tree (ID_PATH,
 * ID_PATH_TAG, ID_PATH_ATA_COMPAT for ATA disks), as systemd-udevd 252 composes it.
 */
#pragma once

#include "builtin.h"

/* Builtin entry point (see struct builtin). -ENOENT when the device has no persistent path. */
int builtin_path_id_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);

/* The ID_PATH_TAG form of an ID_PATH: characters other than [0-9A-Za-z-] become one '_' per
 * run, with no leading or trailing '_'. New string, NULL on ENOMEM. */
char *path_id_tag(const char *path);
