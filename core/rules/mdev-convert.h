/* SPDX-License-Identifier: MIT */
/*
 * An mdev.conf (mdev-conf.h, as loaded) written out as one udev rules file that gives the same
 * /dev: devmanadm mdev-convert.
 *
 * Every line becomes one or two rules preceded by the line as a comment; first-match-wins is a
 * GOTO to the end of the file, a '-' line has none; busybox's implicit last line is the last
 * rule. The device name mdev matches (the kernel's DEVNAME, else the sysname) is $name, kept
 * in ENV{.MDEV_NAME} for the file. A regex is written as a glob only when the glob matches
 * exactly the same strings (a trailing [set]* or [set]+ as a pair of == and != globs); the
 * commands run through a /bin/sh wrapper that gives them mdev's environment (DEVNAME relative
 * to /dev, MDEV, PATH and HOME) and working directory. Whatever udev cannot express exactly is
 * said in a "# not exact:" comment above the rule: moved nodes (udev 252 renames only network
 * interfaces), '!', regexes that are no glob (the line is then left out), remove commands
 * (RUN runs after the node is gone).
 */
#pragma once

#include <stdio.h>

#include "mdev-conf.h"

/* Writes the rules for c to out. The number of lines with a "not exact" comment in
 * *ret_inexact (may be NULL). 0, -ENOMEM or -EIO (a write failed). */
int mdev_conf_convert(const struct mdev_conf *c, FILE *out, unsigned *ret_inexact);
