/* SPDX-License-Identifier: MIT */
/*
 * The udev rules language (udev(7)) compiled into a flat list of rule lines.
 *
 * A `struct rules` holds every line of every file loaded into it, in evaluation order; each
 * line keeps its file name and line number. Parsing never stops at a bad line: the error is
 * logged as "file:line: what is wrong", counted in rules->n_errors, the line is dropped and
 * parsing goes on. Deprecated-but-accepted forms are logged as warnings and not counted.
 *
 * Tokens of a line are stored sorted by kind: device matches first (ACTION, SUBSYSTEM,
 * KERNEL, …: they have no side effects, so their order among themselves is free and the
 * cheapest come first, acting as the line's pre-filter), then parent matches, then tests,
 * programs and imports, then assignments, which is the order udev evaluates them in.
 *
 * Ownership: struct rules owns all files, lines, tokens and strings; tokens, their strings
 * and pattern arrays live in one arena (arena.h) that is released with the rules. Lines point
 * at their file's name. The parsed rules are immutable after rules_finish(); evaluation (rules-exec.h)
 * only reads them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "builtin.h"
#include "devman-config.h" /* enum resolve_names */

enum rule_op {
        RULE_OP_MATCH,        /* == */
        RULE_OP_NOMATCH,      /* != */
        RULE_OP_ADD,          /* += */
        RULE_OP_REMOVE,       /* -= */
        RULE_OP_ASSIGN,       /* = */
        RULE_OP_ASSIGN_FINAL, /* := */
        _RULE_OP_MAX,
};
const char *rule_op_to_string(enum rule_op op);

/* Token kinds, in evaluation order (see above). */
enum rule_token_type {
        /* matches on the event device: free of side effects, so ordered cheapest and most
         * selective first; these leading tokens are each line's pre-filter */
        TK_M_ACTION,
        TK_M_SUBSYSTEM,
        TK_M_KERNEL,
        TK_M_DEVPATH,
        TK_M_DRIVER,
        TK_M_NAME,
        TK_M_ENV,
        TK_M_TAG,
        TK_M_DEVLINK,
        TK_M_CONST,
        TK_M_ATTR,
        TK_M_SYSCTL,
        /* matches on the device or one ancestor; all of one line must match the same one */
        TK_M_PARENTS_KERNEL,
        TK_M_PARENTS_SUBSYSTEM,
        TK_M_PARENTS_DRIVER,
        TK_M_PARENTS_ATTR,
        TK_M_PARENTS_TAG,
        /* tests, programs, imports */
        TK_M_TEST,
        TK_M_PROGRAM,
        TK_M_IMPORT_FILE,
        TK_M_IMPORT_PROGRAM,
        TK_M_IMPORT_BUILTIN,
        TK_M_IMPORT_DB,
        TK_M_IMPORT_CMDLINE,
        TK_M_IMPORT_PARENT,
        TK_M_RESULT,
        /* assignments */
        TK_A_OPTIONS_STRING_ESCAPE_NONE,
        TK_A_OPTIONS_STRING_ESCAPE_REPLACE,
        TK_A_OPTIONS_DB_PERSIST,
        TK_A_OPTIONS_WATCH,
        TK_A_OPTIONS_LINK_PRIORITY,
        TK_A_OPTIONS_LOG_LEVEL,
        TK_A_OWNER,    /* name with substitutions, resolved per event */
        TK_A_GROUP,
        TK_A_MODE,
        TK_A_OWNER_ID, /* resolved at load */
        TK_A_GROUP_ID,
        TK_A_MODE_ID,
        TK_A_TAG,
        TK_A_OPTIONS_STATIC_NODE,
        TK_A_SECLABEL,
        TK_A_ENV,
        TK_A_NAME,
        TK_A_DEVLINK,
        TK_A_ATTR,
        TK_A_SYSCTL,
        TK_A_RUN_BUILTIN,
        TK_A_RUN_PROGRAM,
        _TK_TYPE_MAX,
};
#define _TK_M_LAST TK_M_RESULT
static inline bool rule_token_is_parent(enum rule_token_type t)
{
        return t >= TK_M_PARENTS_KERNEL && t <= TK_M_PARENTS_TAG;
}
const char *rule_token_type_to_string(enum rule_token_type t);

enum rule_match_type {
        MATCH_EMPTY,     /* "" : the value is empty or absent */
        MATCH_PATTERN,   /* one or more '|' alternatives */
        MATCH_SUBSYSTEM, /* "subsystem"/"bus"/"class" */
};

enum rule_attr_subst {
        ATTR_PLAIN,  /* a plain attribute name */
        ATTR_FORMAT, /* contains substitutions */
        ATTR_SUBSYS, /* "[subsystem/sysname]attr" */
};

/* One alternative of a match pattern. */
struct rule_alt {
        const char *s; /* points into the token's value buffer */
        bool glob;     /* contains * ? or [: compared with fnmatch(3), else with strcmp */
};

struct rule_token {
        uint8_t type;       /* enum rule_token_type */
        uint8_t op;         /* enum rule_op (matches: MATCH or NOMATCH only) */
        uint8_t match_type; /* enum rule_match_type */
        uint8_t attr_subst; /* enum rule_attr_subst */
        bool match_empty;   /* the pattern has an empty alternative ("|foo") */
        bool strip_ws;      /* ATTR/ATTRS: drop trailing whitespace of the value before comparing */
        char *value;        /* the value (for patterns: NUL-separated alternatives), or NULL */
        char *attr;         /* the {attribute}/key, or NULL */
        struct rule_alt *alts; /* n_alts entries (patterns only) */
        unsigned n_alts;
        union {
                mode_t mode; /* TEST{mode} ((mode_t)-1 when none), MODE_ID */
                uid_t uid;
                gid_t gid;
                int num;     /* link priority, log level (-1: reset), watch (0/1) */
                const struct builtin *builtin;
        } data;
};

enum {
        LINE_HAS_NAME = 1 << 0,      /* NAME= (only network interfaces) */
        LINE_HAS_DEVLINK = 1 << 1,   /* SYMLINK/OWNER/GROUP/MODE (only devices with a node) */
        LINE_HAS_STATIC_NODE = 1 << 2,
        LINE_HAS_GOTO = 1 << 3,
        LINE_HAS_LABEL = 1 << 4,
        LINE_UPDATE_SOMETHING = 1 << 5, /* any other assignment or import */
        LINE_NEEDS_SUBSYSTEM = 1 << 6,  /* SUBSYSTEM=="<one literal>": subsystem_hash */
        LINE_NEEDS_ACTION = 1 << 7,     /* ACTION=="<one literal>": action_hash */
        LINE_NEEDS_KERNEL = 1 << 8,     /* KERNEL=="<patterns that each start with a literal byte>":
                                         * kernel_first */
        LINE_NEEDS_ENV = 1 << 9,        /* ENV{key}=="<patterns none of which matches "">": the key
                                         * must be in the device's set; env_slot */
};

/* The bit of struct rule_line's kernel_first for a device name's first byte. */
static inline uint32_t rules_prefilter_first_bit(char c)
{
        return UINT32_C(1) << ((unsigned char)c & 31);
}

/* The hash of a SUBSYSTEM or ACTION value that struct rule_line's pre-filter compares. */
uint32_t rules_prefilter_hash(const char *s);

struct rule_line {
        const char *file;  /* the file's name, owned by struct rules */
        unsigned line;     /* line number (of the last physical line of a continued rule) */
        unsigned flags;    /* LINE_* */
        char *label;       /* LABEL=, or NULL */
        char *goto_label;  /* GOTO=, or NULL */
        size_t goto_line;  /* index into rules->lines of the target, valid with LINE_HAS_GOTO */
        struct rule_token *tokens; /* n_tokens, sorted by type */
        unsigned n_tokens;
        /* pre-filter: a line whose hash differs from the event's cannot match (equal hashes
         * still evaluate the tokens) */
        uint32_t subsystem_hash, action_hash;
        uint32_t kernel_first; /* rules_prefilter_first_bit() of each KERNEL alternative's first byte */
        uint8_t env_slot;      /* props_key_slot() of the ENV key */
};

struct rules_file {
        char *name; /* path as given */
        size_t first_line, n_lines; /* range in rules->lines */
};

struct arena;

struct rules {
        struct arena *arena; /* tokens, strings, patterns */
        struct rule_line *lines;
        size_t n_lines, cap_lines;
        struct rules_file *files;
        size_t n_files;
        unsigned n_errors;   /* errors logged while parsing and resolving */
        unsigned n_warnings;
        enum resolve_names resolve_names;
        struct hashmap *users;  /* name -> uid + 1 cache (owned keys) */
        struct hashmap *groups;
        uint64_t stamp;      /* load-time fingerprint of the rules directories (rules-load.c) */
        char **dirs;         /* directories the rules came from (rules-load.c), owned */
};

struct rules *rules_new(enum resolve_names resolve_names);
struct rules *rules_free(struct rules *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct rules, rules_free)
#define _cleanup_rules_free_ _cleanup_(rules_freep)

/* Parses one file's text (len bytes, need not be NUL-terminated) and appends its rules. name is
 * used in messages and kept. Returns the number of errors found in it (>= 0), or -ENOMEM.
 * GOTOs are resolved here (within the file, forward, like udev). Safe on arbitrary bytes. */
int rules_parse_buffer(struct rules *rules, const char *name, const char *buf, size_t len);

/* Reads and parses a file. Returns the number of errors, or -errno when it cannot be read
 * (logged neither way for read errors). */
int rules_parse_file(struct rules *rules, const char *path);

/* A numeric OWNER/GROUP value: decimal, no sign, no leading zero, not 65535 or 4294967295.
 * 0, or -EINVAL/-ERANGE for anything else (then it is a name). */
int rules_parse_id(const char *s, uint32_t *ret);

/* "file:line" of a rule, for traces. */
static inline const char *rule_line_file(const struct rule_line *l)
{
        return l->file;
}
