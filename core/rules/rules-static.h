/* SPDX-License-Identifier: MIT */
/*
 * OPTIONS+="static_node=NAME": permissions and tags that rules give to device nodes which
 * exist before their driver is loaded (from modules.devname), applied once at startup, as
 * udevd does. For each static_node option, in rule order, the callback gets the node name
 * (relative to the /dev root), and the MODE, OWNER, GROUP (numeric ones only; (x)-1 when the
 * rule set none) and TAG+= values of the same rule.
 */
#pragma once

#include <sys/types.h>

#include "rules-parse.h"

typedef int (*rules_static_node_cb)(const char *name, mode_t mode, uid_t uid, gid_t gid, char *const *tags,
                                    void *userdata);

/* Calls cb for every static node; stops at and returns the first negative value cb returns.
 * 0, or -ENOMEM. */
int rules_foreach_static_node(const struct rules *rules, rules_static_node_cb cb, void *userdata);
