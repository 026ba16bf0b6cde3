/* SPDX-License-Identifier: MIT */
/*
 * devman's configuration: the settings the daemon runs with and where they come from.
 *
 * Precedence, lowest first (each source overwrites what it sets):
 *   built-in defaults (devman_config_new)
 *   < ROOT/etc/udev/udev.conf            (udev-compatible keys)
 *   < ROOT/SYSCONFDIR/devman/devman.conf (same keys; or the file given with --config)
 *   < the kernel command line           (devman.*, udev.*, and rd.* spellings inside an initramfs)
 *   < the daemon's command-line options (applied last by its main(), with the same value parsers).
 * devman_config_load() does the middle three steps. In main():
 *   devman_config_new(&c);  devman_config_load(c, NULL, arg_config_file);
 *   then for each option: devman_config_set(c, "children_max", optarg), …,
 *   devman_config_set_path(&c->sysfs_root, optarg), and for the first --rules-dir
 *   devman_config_clear_rules_dirs(c) before devman_config_add_rules_dir(c, optarg).
 *
 * Configuration files: one `KEY=VALUE` per line. Blank lines and lines whose first non-blank
 * character is '#' or ';' are comments. Whitespace around the key, the '=' and the value is
 * ignored. A value may be quoted: 'single quotes' are literal, "double quotes" take \" and \\
 * escapes; after the closing quote only blanks may follow. Keys:
 *   udev_log       syslog level: err, info, debug, … or 0–7
 *   children_max   unsigned integer, 0 = choose from the system's resources
 *   exec_delay     time span, whole seconds (see devman_parse_timespan)
 *   event_timeout  time span > 0, or "infinity"
 *   timeout_signal signal: "SIGTERM", "TERM", "RTMIN+2" or a number
 *   resolve_names  early, late or never
 *   mdev_conf      a busybox mdev.conf to apply after the rules (absolute path; empty: none)
 * An unknown key or a bad value is logged as `file:line: …, ignoring` and skipped; the other
 * lines still apply.
 *
 * Ownership: a struct devman_config owns its strings and the rules-dir list; free it with
 * devman_config_free(). Functions return 0 (or a count, where documented) or -errno.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macros.h"

#define DEVMAN_EVENT_TIMEOUT_DEFAULT_USEC (180 * UINT64_C(1000000))
#define DEVMAN_USEC_INFINITY UINT64_MAX

enum resolve_names {
        RESOLVE_NAMES_EARLY, /* user and group names resolved when the rules are loaded */
        RESOLVE_NAMES_LATE,  /* … when each event runs */
        RESOLVE_NAMES_NEVER, /* never: names in rules are errors, nodes stay root-owned */
        _RESOLVE_NAMES_MAX,
};

struct devman_config {
        int log_level;               /* syslog level, LOG_ERR … LOG_DEBUG */
        unsigned children_max;       /* parallel PROGRAM/RUN children, 0 = automatic */
        unsigned exec_delay_sec;     /* delay before each RUN program, for debugging coldplug */
        uint64_t event_timeout_usec; /* an event's children are killed after this; DEVMAN_USEC_INFINITY */
        int timeout_signal;          /* signal sent to children on time-out */
        enum resolve_names resolve_names;
        char *sysfs_root;  /* "/sys" */
        char *dev_root;    /* "/dev" */
        char *run_root;    /* "/run/udev": database, control socket, queue flag */
        char **rules_dirs; /* NULL-terminated, in priority order: a file name found in an earlier
                            * directory hides the same name in later ones */
        size_t n_rules_dirs;
        char *mdev_conf;   /* busybox mdev.conf applied after the rules, or NULL */
};

/* Allocates a configuration holding the built-in defaults. 0 or -ENOMEM. */
int devman_config_new(struct devman_config **ret);
struct devman_config *devman_config_free(struct devman_config *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct devman_config, devman_config_free)

/* Replace one of the root paths (a copy is stored; trailing slashes are dropped). 0, -EINVAL
 * for an empty path, -ENOMEM. */
int devman_config_set_path(char **field, const char *path);
/* Drops every rules directory (the daemon does this before its first --rules-dir). */
void devman_config_clear_rules_dirs(struct devman_config *c);
/* Appends a rules directory (lowest priority so far). 0 or -EINVAL/-ENOMEM. */
int devman_config_add_rules_dir(struct devman_config *c, const char *dir);

/* Sets a setting from its udev.conf key name and textual value.
 * 0; -ENOENT for an unknown key; -EINVAL/-ERANGE for a bad value (c unchanged). Does not log. */
int devman_config_set(struct devman_config *c, const char *key, const char *value);

/* Parses one configuration file. Returns the number of lines that were skipped (each logged with
 * file:line), or -errno when the file cannot be read (-ENOENT when it does not exist). */
int devman_config_parse_file(struct devman_config *c, const char *path);

/* Parses a kernel command line (space-separated words, values may be quoted). Recognised keys,
 * '-' and '_' being the same character: devman.X, udev.X, with X one of log_level (udev's old
 * log_priority too), children_max, exec_delay, event_timeout, timeout_signal, resolve_names; the
 * prefixes rd.devman. and rd.udev. apply only when in_initrd, the others always. Later words win.
 * Returns the number of devman/udev words that were ignored (each logged). */
int devman_config_parse_cmdline(struct devman_config *c, const char *cmdline, bool in_initrd);

/* Parses ROOT/etc/udev/udev.conf, then devman_conf (NULL = ROOT/SYSCONFDIR/devman/devman.conf;
 * a path given here is used as is), then ROOT/proc/cmdline, with rd.* words applied when
 * ROOT/etc/initrd-release exists. root may be NULL or "" for "/". The default files may be
 * missing; a devman_conf given here that is missing, or any file that cannot be read, is logged
 * and skipped, the others still apply. Returns the number of skipped lines,
 * words and files, or -ENOMEM. */
int devman_config_load(struct devman_config *c, const char *root, const char *devman_conf);

/* Value parsers shared with the programs' option parsing. Each returns 0 or -EINVAL/-ERANGE. */
int devman_parse_unsigned(const char *s, unsigned *ret);
/* A time span: "30" (seconds), "500ms", "2 min", "1h 30s"; units us, ms, s, sec, m, min, h, hr and
 * their long forms; "infinity". */
int devman_parse_timespan(const char *s, uint64_t *ret_usec);
/* Returns the signal number (1 … SIGRTMAX) for "SIGTERM", "TERM", "RTMIN+2", "SIGRTMAX-1" or "9",
 * or -EINVAL. */
int devman_signal_from_string(const char *s);
int devman_resolve_names_from_string(const char *s); /* enum resolve_names or -EINVAL */
const char *devman_resolve_names_to_string(enum resolve_names r);
