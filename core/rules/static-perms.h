/* SPDX-License-Identifier: MIT */
/*
 * OPTIONS+="static_node=NAME" applied at daemon start, as udevd does: nodes that exist before
 * their driver is loaded (static nodes, see static-nodes.h) get the MODE, OWNER and GROUP of
 * the rule, and for each TAG+= of it a link <run>/static_node-tags/<tag>/<name> pointing to the
 * node, which logind-style consumers read. Missing nodes and entries that are not device nodes
 * are skipped; nothing is created in /dev.
 */
#pragma once

#include "rules-parse.h"

/* devfd: the /dev root, dev_root its path (link targets), runfd: the run dir (-1: no tags).
 * Returns the number of nodes changed; single failures are logged and skipped. */
int static_perms_apply(int devfd, const char *dev_root, int runfd, const struct rules *rules);
