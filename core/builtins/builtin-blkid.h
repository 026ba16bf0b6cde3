/* SPDX-License-Identifier: MIT */
/*
 * blkid [--offset=BYTES] [--hint=NAME=VALUE] [--noraid]: probes the device node (DEVNAME) with
 * libblkid and sets what systemd-udevd 252 sets: ID_FS_TYPE, ID_FS_USAGE, ID_FS_VERSION,
 * ID_FS_UUID(_ENC), ID_FS_UUID_SUB(_ENC), ID_FS_LABEL(_ENC), ID_PART_TABLE_TYPE/UUID,
 * ID_PART_ENTRY_* (partitions: SCHEME, NAME, UUID, TYPE, FLAGS, NUMBER, OFFSET, SIZE, DISK),
 * the ISO 9660 ID_FS_*_ID strings, and ID_PART_GPT_AUTO_ROOT for the partition the parent
 * disk named in ID_PART_GPT_AUTO_ROOT_UUID. _ENC values and names use strenc.h and encode.h.
 *
 * Returns 0 (also when nothing was found, and when the node vanished), -EINVAL for bad
 * arguments, -ENOENT without DEVNAME, other -errno when the node cannot be opened or read.
 */
#pragma once

#include "builtin.h"

int builtin_blkid_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);
