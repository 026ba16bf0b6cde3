/* SPDX-License-Identifier: MIT */
/*
 * Static device nodes of modules that load on first open: the kernel's modules.devname
 * (written by depmod from "devname:" and "char-major-M-m"/"block-major-M-m" aliases), one
 * line per node:  MODULE DEVNAME TYPEMAJOR:MINOR  ("fuse fuse c10:229"); '#' starts a comment.
 * Opening such a node makes the kernel request the module, so the node must exist before
 * the module is loaded (what `kmod static-nodes` lists for systemd-tmpfiles).
 */
#pragma once

#include <stdio.h>
#include <sys/types.h>

struct static_node {
        char *module;
        char *devname; /* relative to the /dev root */
        char type;     /* 'c' or 'b' */
        dev_t devnum;
};

/* Parses modules.devname from f (fname for messages). Malformed lines are logged with
 * fname:line and skipped. *ret (count in *ret_n) is owned by the caller: static_nodes_free().
 * 0 or -ENOMEM/-EIO. */
int static_nodes_parse(FILE *f, const char *fname, struct static_node **ret, size_t *ret_n);
struct static_node *static_nodes_free(struct static_node *nodes, size_t n);

/* "<root>/lib/modules/<release>/modules.devname"; release NULL means the running kernel's
 * (uname -r), root NULL means "/". New string in *ret; 0 or -ENOMEM. */
int static_nodes_path(const char *root, const char *release, char **ret);
