/* SPDX-License-Identifier: MIT */
/*
 * net_id: predictable network interface names as systemd-udevd 252 composes them
 * (ID_NET_NAME_{ONBOARD,SLOT,PATH,MAC}, ID_NET_LABEL_ONBOARD, ID_NET_NAMING_SCHEME, and the
 * OUI vendor from the hwdb). Interfaces that are stacked (iflink != ifindex) or not Ethernet,
 * InfiniBand or SLIP get nothing. The devicetree aliases are read from
 * <sysfs root>/firmware/devicetree/base (what /proc/device-tree points to), so fake trees work. Returns 0, or -errno when the interface's basic attributes
 * (iflink, type) cannot be read.
 */
#pragma once

#include "builtin.h"

int builtin_net_id_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);
/* Frees the builtin's state (the hwdb handle). */
void builtin_net_id_exit(struct builtin_ctx *ctx);
void builtin_net_id_trim(struct builtin_ctx *ctx);
