/* SPDX-License-Identifier: MIT */
/*
 * Loading the rules directories, as udev does: every "*.rules" file of the directories, a file
 * name in an earlier directory hiding the same name in later ones, all files evaluated in the
 * lexical order of their names. Plus a cheap "changed since load?" check for reloading before
 * the next event.
 */
#pragma once

#include <stdbool.h>

#include "rules-parse.h"

/* The default directories, highest priority first. */
extern const char *const rules_default_dirs[];

struct rules_load_options {
        const char *root;         /* prefix for every directory ("" or NULL: none), for tests */
        char *const *dirs;        /* NULL-terminated; replaces rules_default_dirs when non-NULL */
        char *const *files;       /* extra files (or directories) loaded after the directories' files, or NULL */
        enum resolve_names resolve_names;
};

/* Loads the rules. *ret gets the rules even when some lines had errors (they are logged and
 * skipped). Returns the number of errors (>= 0; also in (*ret)->n_errors), or -errno when
 * nothing could be loaded (out of memory). Missing directories are fine; an unreadable file
 * is an error that is counted. */
int rules_load(const struct rules_load_options *o, struct rules **ret);

/* True when a rules directory or file changed (mtime, appearance, disappearance) since the
 * rules were loaded. One stat() per directory and file. */
bool rules_changed_since_load(const struct rules *rules);
