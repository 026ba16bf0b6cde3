/* SPDX-License-Identifier: MIT */
/*
 * Builtin commands for IMPORT{builtin} and RUN{builtin} (path_id, input_id, blkid, kmod, …).
 *
 * The table is constant; each builtin lives in a file of its own (builtin-<name>.c), whose entry
 * point is builtin_<name>_run(), and is entered here by name. A name not in the table is a
 * parse-time error in the rules.
 *
 * A builtin adds properties to the device with PROP_DB (see builtin_add_property()). The daemon
 * runs it in its event loop, so it must not block for long; one that sometimes must (kmod: a
 * module's initialisation) says so with needs_child, and the daemon then runs that call in a
 * child process of its own (RUN{builtin} only: a child cannot hand properties back).
 */
#pragma once

#include <stdbool.h>

#include "device.h"

/* Per-daemon state shared by all builtins (hwdb handle, kmod context, …), owned by the caller. */
struct builtin_ctx {
        const char *sysfs_root; /* "/sys" or a fixture tree */
        const char *root;       /* prefix of configuration and module files (.link files,
                                 * /lib/modules) for tests; NULL means "/" */
        void *state[16];        /* per-builtin private state, indexed by table position */
};

/* What struct builtin's needs_child answers. */
enum builtin_placement {
        BUILTIN_IN_PLACE = 0, /* run() in the event loop */
        BUILTIN_IN_CHILD = 1, /* run() would block for long: in a child, with test false */
        BUILTIN_NOTHING = 2,  /* run() would change nothing and log at debug only: a daemon skips
                               * it (the question already did run()'s look-ups; asking and then
                               * running would do them twice on the hot path) */
};

struct builtin {
        const char *name;
        /* argv[0] is the builtin's name; test: print what would be done, change nothing outside
         * the device record. 0 (or positive) on success, -errno on failure. */
        int (*run)(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv, bool test);
        int (*init)(struct builtin_ctx *ctx);  /* optional; called once before the first run */
        void (*exit)(struct builtin_ctx *ctx); /* optional */
        void (*trim)(struct builtin_ctx *ctx); /* optional: give back caches (the daemon is idle) */
        /* optional: where a daemon runs run() for these arguments, an enum builtin_placement, or
         * -errno (then in place). Must itself be quick and must not change the device. */
        int (*needs_child)(struct builtin_ctx *ctx, struct device *dev, int argc, char **argv);
        const char *help;
        bool run_once; /* IMPORT{builtin} runs it at most once per event; later calls reuse the result */
};

/* The builtin whose name is the first word of cmd (so "path_id %p" finds path_id), or NULL. */
const struct builtin *builtin_lookup(const char *cmd);
/* Table position of b (for run-once bookkeeping and ctx->state). */
unsigned builtin_index(const struct builtin *b);
/* Number of table entries, and entry i. */
unsigned builtin_count(void);
const struct builtin *builtin_get(unsigned i);

/* Splits cmdline into words (whitespace separated, '…' and "…" quoting) and runs b.
 * -EOPNOTSUPP when b has no implementation yet, -EINVAL for an unparsable command line. */
int builtin_run(const struct builtin *b, struct builtin_ctx *ctx, struct device *dev, const char *cmdline,
                bool test);

/* b->needs_child() for cmdline split as builtin_run() splits it: an enum builtin_placement
 * (BUILTIN_IN_PLACE for a builtin without it), or -errno. */
int builtin_needs_child(const struct builtin *b, struct builtin_ctx *ctx, struct device *dev, const char *cmdline);

/* For builtins: sets a property flagged PROP_DB (value NULL removes it). 0 or -errno. */
int builtin_add_property(struct device *dev, bool test, const char *key, const char *value);

/* Calls init/exit of every builtin that has one. builtin_init_all() returns the first error. */
int builtin_init_all(struct builtin_ctx *ctx);
void builtin_exit_all(struct builtin_ctx *ctx);
/* Calls trim of every builtin that has one. */
void builtin_trim_all(struct builtin_ctx *ctx);
