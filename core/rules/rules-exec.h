/* SPDX-License-Identifier: MIT */
/*
 * Evaluating compiled rules (rules-parse.h) for one event against a device record.
 *
 * The executor never blocks: rules_exec_run() evaluates until the rules are done
 * (RULES_EXEC_DONE) or until a PROGRAM or IMPORT{program} needs a child's output
 * (RULES_EXEC_NEED_PROGRAM). The caller then starts the command described by
 * rules_exec_get_program() however it likes (the daemon: asynchronously in its event loop),
 * hands the outcome to rules_exec_program_done() and calls rules_exec_run() again, which
 * resumes exactly at the token that asked. The one caller is core/process.c, which starts the
 * child with spawn.c, in the daemon and in tools alike.
 *
 * What the rules produce:
 *  - dev->udev: links, tags, current_tags, link_priority, mode/uid/gid, db_persist, watch;
 *  - dev->props: ENV{}= and imported properties, flagged PROP_DB;
 *  - in the executor: NAME (network interfaces), the RUN list (to be run by the caller after
 *    the node and links exist), the trace of matched rules, the per-event log level.
 *
 * rules_exec_new() starts the event afresh, as udev does: the previous links move into the
 * executor (rules_exec_old_links(), for removing stale links), current tags, mode, owner,
 * group, link priority, db_persist and watch are reset, and (except for remove and move
 * events, which keep them) the PROP_DB properties of the previous event move out of the
 * device into the executor, where IMPORT{db} finds them.
 *
 * Ownership: the executor borrows rules and holds a reference on dev; it must not outlive
 * the rules. Pointers returned by the accessors live until rules_exec_free().
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "builtin.h"
#include "device.h"
#include "rules-parse.h"
#include "uevent.h"

enum {
        RULES_EXEC_DONE = 0,
        RULES_EXEC_NEED_PROGRAM = 1,
};

struct rules_exec_options {
        const char *sysfs_root;   /* default "/sys" */
        const char *dev_root;     /* default "/dev" */
        const char *run_root;     /* the database (IMPORT{parent} of a parent whose record has not
                                   * read its entry yet); NULL: records only */
        const char *sysctl_root;  /* default "/proc/sys" */
        const char *cmdline_file; /* default "/proc/cmdline" (IMPORT{cmdline}) */
        const char *program_dir;  /* where relative PROGRAM/IMPORT names live; NULL: the first of
                                   * UDEVLIBDIR, /usr/lib/udev, /lib/udev that has the program */
        const char *virt;         /* CONST{virt}; NULL: detected */
        struct builtin_ctx *builtins; /* NULL: IMPORT{builtin} fails */
        bool test;                /* dry run: no ATTR/SYSCTL writes, builtins in test mode */
};

/* One RUN entry: a program command line, or a builtin with its command line. */
struct rules_run {
        char *cmd;
        const struct builtin *builtin; /* NULL for a program */
        const struct rule_line *rule;  /* where it was added */
};

/* The child a NEED_PROGRAM asks for. */
struct rules_program {
        char *cmdline; /* after substitutions, for logs */
        char **argv;   /* argv[0] is an absolute path */
        char **envp;   /* the device's properties, KEY=VALUE */
        const struct rule_line *rule;
        bool import;   /* IMPORT{program} (output is KEY=VALUE lines) rather than PROGRAM */
};

struct rules_exec;

int rules_exec_new(const struct rules *rules, struct device *dev, enum uevent_action action,
                   const struct rules_exec_options *o, struct rules_exec **ret);
struct rules_exec *rules_exec_free(struct rules_exec *x);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct rules_exec, rules_exec_free)
#define _cleanup_rules_exec_free_ _cleanup_(rules_exec_freep)

/* RULES_EXEC_DONE, RULES_EXEC_NEED_PROGRAM, -EBUSY when a program is still outstanding,
 * -ENOMEM. Errors of single tokens (unreadable files, failed writes) are logged with the
 * rule's file:line and evaluation goes on, as in udev. */
int rules_exec_run(struct rules_exec *x);

/* The outstanding program, or NULL. */
const struct rules_program *rules_exec_get_program(const struct rules_exec *x);

/* The outcome of the outstanding program: status 0 for exit code 0, > 0 for another exit
 * code (or 128 + signal), < 0 (-errno) when it could not run or timed out; out/len its
 * standard output (may be NULL). 0, -EINVAL when no program is outstanding, -ENOMEM. */
int rules_exec_program_done(struct rules_exec *x, int status, const char *out, size_t len);

/* Results. */
const char *rules_exec_name(const struct rules_exec *x); /* NAME=, or NULL */
const struct rules_run *rules_exec_run_list(const struct rules_exec *x, size_t *n);
/* Every rule line whose tokens all matched, in evaluation order. */
const struct rule_line *const *rules_exec_trace(const struct rules_exec *x, size_t *n);
char *const *rules_exec_old_links(const struct rules_exec *x);
/* OPTIONS+="log_level=": the level for the rest of this event, -1 when no rule set one. */
int rules_exec_log_level(const struct rules_exec *x);

/* The environment of a child for dev (PROGRAM, IMPORT{program}, RUN): every property, plus
 * ACTION, DEVPATH, SUBSYSTEM, DEVNAME, DEVTYPE, DRIVER, MAJOR, MINOR, IFINDEX, SEQNUM, DEVLINKS,
 * TAGS, CURRENT_TAGS derived from the record when the set lacks them. New strv in *ret. */
int rules_device_env(struct device *dev, enum uevent_action action, const char *dev_root, char ***ret);

/* argv for a command line: split like udev, argv[0] made absolute when it is a bare or relative
 * name (with program_dir, or searched as described for rules_exec_options.program_dir; the
 * daemon uses this for RUN too). -EINVAL for an empty or unparsable line. */
int rules_command_argv(const char *cmdline, const char *program_dir, char ***ret);
