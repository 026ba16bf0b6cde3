/* SPDX-License-Identifier: MIT */
/*
 * net_setup_link: finds the .link file (link-config.h) that applies to a network interface
 * and sets what systemd-udevd 252 sets: ID_NET_DRIVER (ethtool's driver name), ID_NET_LINK_FILE
 * and ID_NET_NAME, the name NamePolicy=/Name= give (the current name when they give none),
 * which 80-net-setup-link.rules turns into NAME=.
 *
 * The interface's kind and type come from rtnetlink, its driver and permanent address from
 * ethtool, so the interface must exist in the caller's network namespace: an interface the
 * kernel does not know (gone meanwhile) gets nothing and is not an error, as in udev.
 *
 * devman does not apply the hardware settings of .link files: MACAddressPolicy=/MACAddress=,
 * AlternativeNamesPolicy=, MTU, speed, Wake-on-LAN, offloads are logged (debug) and left alone.
 *
 * The loopback interface never gets a .link file, as in udev.
 *
 * The .link files are read on first use (below ctx->root) and kept until the builtin's exit
 * (the daemon re-initializes builtins on reload).
 */
#pragma once

#include "builtin.h"

int builtin_net_setup_link_run(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);
void builtin_net_setup_link_exit(struct builtin_ctx *ctx);
