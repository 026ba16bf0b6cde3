/* SPDX-License-Identifier: MIT */
/*
 * btrfs ready DEVNODE: asks the btrfs driver (BTRFS_IOC_DEVICES_READY on <dev root>/btrfs-control)
 * whether every device of the filesystem on DEVNODE is present, and sets ID_BTRFS_READY=1/0
 * (64-btrfs.rules waits with SYSTEMD_READY until then). When the control device does not exist
 * (no btrfs driver, e.g. an initramfs without btrfs.ko) the answer is ID_BTRFS_READY=0, as in
 * udev, so that a later retrigger can complete it.
 * Returns 0, -EINVAL for bad arguments, or the -errno of the ioctl (then nothing is set:
 * DEVNODE holds no btrfs filesystem, or the control device cannot be opened).
 */
#pragma once

#include "builtin.h"

int builtin_btrfs_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);
