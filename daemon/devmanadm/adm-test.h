/* SPDX-License-Identifier: MIT */
#pragma once

#include "adm.h"

/* devmanadm test [--apply] [--action=A] [--sysfs=DIR] [--rules-dir=DIR]... DEVPATH */
int verb_test(const struct adm_ctx *ctx, int argc, char **argv);
