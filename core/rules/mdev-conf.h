/* SPDX-License-Identifier: MIT */
/*
 * busybox mdev's configuration file (mdev.conf), read as busybox 1.35 reads it, and matched
 * against one device event. Loading and matching only: mdev-apply.h makes the nodes and links,
 * process.c runs the commands.
 *
 * A line (blank lines and lines whose first non-blank character is '#' are skipped):
 *
 *   [-][VAR=regex;]...MATCH  user[:group]  mode  [=path | >path | !]  [@|$|*command]
 *
 * MATCH is a device-name regex (matched against the whole kernel DEVNAME, which may hold a
 * slash: "input/event0"; the sysname when the device has none), "@major,minor[-minor2]", or
 * "$VAR=regex" (the whole value of the event's VAR). Each "VAR=regex;" prefix must match too.
 * Regexes are POSIX extended and must match the whole string. A leading '-' keeps matching
 * after this line; otherwise the first matching line ends the search. When no line ends it,
 * busybox's implicit last line applies: the node at the device name, 0660 root:root.
 *
 * "=path" moves the node to path ("dir/" keeps the device name below dir/), ">path" moves it
 * and links the device name to it, "!" makes no node for this and every later matching line
 * of the event. %1 ... %9 in path are the regex's subexpressions. The command runs through
 * /bin/sh -c: '@' after the node is made (add), '$' before it is removed (remove), '*' for
 * every event (also change), with MDEV set to the node's name.
 *
 * A bad line is logged as file:line and skipped; the others load. Paths that would leave the
 * /dev root (absolute, "..") are bad lines too. Ownership: struct mdev_conf owns its rules;
 * struct mdev_result owns its strings.
 */
#pragma once

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "uevent.h"

#define MDEV_DEFAULT_MODE 0660

enum mdev_match_kind {
        MDEV_MATCH_NAME, /* device-name regex */
        MDEV_MATCH_DEVT, /* @major,minor[-minor2] */
        MDEV_MATCH_ENV,  /* $VAR=regex */
};

struct mdev_env_match {
        char *key;
        char *pattern; /* the regex as written (mdev-convert) */
        regex_t re;
};

struct mdev_rule {
        unsigned line;
        char *source;               /* the line as written, without its newline */
        bool keep_matching;         /* '-' */
        struct mdev_env_match *env; /* VAR=regex; prefixes, all must match */
        size_t n_env;
        enum mdev_match_kind kind;
        char *envvar;                       /* MDEV_MATCH_ENV */
        char *pattern;                      /* MDEV_MATCH_NAME, MDEV_MATCH_ENV: the regex as written */
        regex_t re;                         /* MDEV_MATCH_NAME, MDEV_MATCH_ENV */
        unsigned major, minor_lo, minor_hi; /* MDEV_MATCH_DEVT */
        uid_t uid;
        gid_t gid;
        mode_t mode;
        char op;    /* '=', '>', '!' or 0 */
        char *path; /* for '=' and '>' */
        char when;  /* '@', '$', '*' or 0 */
        char *cmd;  /* NULL when there is none */
};

struct mdev_conf {
        char *path; /* for messages */
        struct mdev_rule **rules;
        size_t n_rules;
};

/* Parses text (the file's contents; path is only for messages). Bad lines are logged with
 * path:line and skipped. 0 or the number of skipped lines in *ret_bad (may be NULL); returns 0
 * or -ENOMEM. */
int mdev_conf_parse(const char *path, const char *text, struct mdev_conf **ret, unsigned *ret_bad);
/* Reads and parses path. -errno when it cannot be read (not logged). */
int mdev_conf_load(const char *path, struct mdev_conf **ret, unsigned *ret_bad);
struct mdev_conf *mdev_conf_free(struct mdev_conf *c);
static inline void mdev_conf_freep(struct mdev_conf **c)
{
        mdev_conf_free(*c);
}

/* What matching sees of a device. */
struct mdev_device {
        const char *name; /* kernel DEVNAME, else the sysname */
        bool has_devt;
        unsigned major, minor;
        /* the event's environment: NULL when VAR is not set */
        const char *(*getenv)(const char *key, void *userdata);
        void *userdata;
};

/* One matched line, as it applies to this event. */
struct mdev_action {
        unsigned line; /* 0 for the implicit last line */
        char *node;    /* the node's name below /dev; NULL: no node for this line ('!', no devt) */
        char *link;    /* '>': the device name, to be linked to node; else NULL */
        bool unsafe;   /* the name left the /dev root after %N substitution: no node made */
        mode_t mode;
        uid_t uid;
        gid_t gid;
        char *mdev;      /* $MDEV for the command */
        const char *cmd; /* the command this event runs (borrowed from the conf), or NULL */
};

struct mdev_result {
        struct mdev_action *actions;
        size_t n_actions;
        bool matched; /* a line of the file matched (not only the implicit last line) */
};

/* Matches the event (action) against c, filling *ret (cleared first). Nodes are given for
 * devices with a devt, whatever the action: the caller makes them on add, removes them on
 * remove (busybox touches no node on other events). Commands by their '@' (add), '$' (remove),
 * '*' (every action). 0 or -ENOMEM. */
int mdev_conf_match(const struct mdev_conf *c, const struct mdev_device *d, enum uevent_action action,
                    struct mdev_result *ret);
void mdev_result_clear(struct mdev_result *r);
