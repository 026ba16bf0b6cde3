/* SPDX-License-Identifier: MIT */
/*
 * kmod load [MODULE|ALIAS...]: loads kernel modules with libkmod (deny-lists of modprobe.d
 * applied). Without names it loads what the device's MODALIAS names, as Debian's
 * 80-drivers.rules expects (RUN{builtin}+="kmod load"). In test mode nothing is loaded: the
 * modules that would be are printed ("kmod: load NAME").
 *
 * Where the modules directory (<ctx->root>/lib/modules/<uname -r>) does not exist — kernels
 * without modules — every run is a no-op; that is logged once (info), not per event.
 * Modules that are not found are logged at debug level; a failing load is a warning.
 * Returns 0 (also for those), -EINVAL for a command other than "load", -ENOMEM.
 *
 * The libkmod context (and its loaded index) lives in the builtin's state slot from the
 * first run to builtin exit. Loading is synchronous, as modprobe is: init_module() returns
 * after the module's init function ran, which for some drivers takes a while; a caller that
 * must not block may run `kmod load` in a child.
 */
#pragma once

#include "builtin.h"

int builtin_kmod(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);
void builtin_kmod_exit(struct builtin_ctx *ctx);

