/* SPDX-License-Identifier: MIT */
#include "rules-parse.h"

#include <assert.h>
#include <ctype.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>

#include "arena.h"
#include "format.h"
#include "hashmap.h"
#include "log.h"
#include "uevent.h"

static const char *const op_names[_RULE_OP_MAX] = {
        [RULE_OP_MATCH] = "==", [RULE_OP_NOMATCH] = "!=",     [RULE_OP_ADD] = "+=",
        [RULE_OP_REMOVE] = "-=", [RULE_OP_ASSIGN] = "=", [RULE_OP_ASSIGN_FINAL] = ":=",
};

const char *rule_op_to_string(enum rule_op op)
{
        return op < _RULE_OP_MAX ? op_names[op] : NULL;
}

static const char *const token_names[_TK_TYPE_MAX] = {
        [TK_M_ACTION] = "ACTION",
        [TK_M_DEVPATH] = "DEVPATH",
        [TK_M_KERNEL] = "KERNEL",
        [TK_M_DEVLINK] = "SYMLINK",
        [TK_M_NAME] = "NAME",
        [TK_M_ENV] = "ENV",
        [TK_M_CONST] = "CONST",
        [TK_M_TAG] = "TAG",
        [TK_M_SUBSYSTEM] = "SUBSYSTEM",
        [TK_M_DRIVER] = "DRIVER",
        [TK_M_ATTR] = "ATTR",
        [TK_M_SYSCTL] = "SYSCTL",
        [TK_M_PARENTS_KERNEL] = "KERNELS",
        [TK_M_PARENTS_SUBSYSTEM] = "SUBSYSTEMS",
        [TK_M_PARENTS_DRIVER] = "DRIVERS",
        [TK_M_PARENTS_ATTR] = "ATTRS",
        [TK_M_PARENTS_TAG] = "TAGS",
        [TK_M_TEST] = "TEST",
        [TK_M_PROGRAM] = "PROGRAM",
        [TK_M_IMPORT_FILE] = "IMPORT{file}",
        [TK_M_IMPORT_PROGRAM] = "IMPORT{program}",
        [TK_M_IMPORT_BUILTIN] = "IMPORT{builtin}",
        [TK_M_IMPORT_DB] = "IMPORT{db}",
        [TK_M_IMPORT_CMDLINE] = "IMPORT{cmdline}",
        [TK_M_IMPORT_PARENT] = "IMPORT{parent}",
        [TK_M_RESULT] = "RESULT",
        [TK_A_OPTIONS_STRING_ESCAPE_NONE] = "OPTIONS{string_escape=none}",
        [TK_A_OPTIONS_STRING_ESCAPE_REPLACE] = "OPTIONS{string_escape=replace}",
        [TK_A_OPTIONS_DB_PERSIST] = "OPTIONS{db_persist}",
        [TK_A_OPTIONS_WATCH] = "OPTIONS{watch}",
        [TK_A_OPTIONS_LINK_PRIORITY] = "OPTIONS{link_priority}",
        [TK_A_OPTIONS_LOG_LEVEL] = "OPTIONS{log_level}",
        [TK_A_OWNER] = "OWNER",
        [TK_A_GROUP] = "GROUP",
        [TK_A_MODE] = "MODE",
        [TK_A_OWNER_ID] = "OWNER",
        [TK_A_GROUP_ID] = "GROUP",
        [TK_A_MODE_ID] = "MODE",
        [TK_A_TAG] = "TAG",
        [TK_A_OPTIONS_STATIC_NODE] = "OPTIONS{static_node}",
        [TK_A_SECLABEL] = "SECLABEL",
        [TK_A_ENV] = "ENV",
        [TK_A_NAME] = "NAME",
        [TK_A_DEVLINK] = "SYMLINK",
        [TK_A_ATTR] = "ATTR",
        [TK_A_SYSCTL] = "SYSCTL",
        [TK_A_RUN_BUILTIN] = "RUN{builtin}",
        [TK_A_RUN_PROGRAM] = "RUN{program}",
};

const char *rule_token_type_to_string(enum rule_token_type t)
{
        return t < _TK_TYPE_MAX ? token_names[t] : NULL;
}

struct rules *rules_new(enum resolve_names resolve_names)
{
        struct rules *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->arena = arena_new();
        if (!r->arena)
                return mfree(r);
        r->resolve_names = resolve_names;
        return r;
}

/* A line being parsed owns its growable token array and labels (the token strings are in the
 * arena already); a finished line has everything in the arena. */
static void line_clear(struct rule_line *l)
{
        free(l->tokens);
        free(l->label);
        free(l->goto_label);
}

static void free_name_cache(struct hashmap *m)
{
        if (!m)
                return;
        struct hashmap_iter it = HASHMAP_ITER_INIT;
        const void *k;
        while (hashmap_iterate(m, &it, &k, NULL))
                free((void *)k);
        hashmap_free(m);
}

struct rules *rules_free(struct rules *r)
{
        if (!r)
                return NULL;
        free(r->lines);
        arena_free(r->arena);
        for (size_t i = 0; i < r->n_files; i++)
                free(r->files[i].name);
        free(r->files);
        free_name_cache(r->users);
        free_name_cache(r->groups);
        for (char **d = r->dirs; d && *d; d++)
                free(*d);
        free(r->dirs);
        return mfree(r);
}

/* ---- the line being parsed ---- */

struct parser {
        struct rules *rules;
        const char *file;
        unsigned line_nr;
        struct rule_line line; /* being built */
        unsigned cap_tokens;
        unsigned errors;
};

#define parse_error(p, fmt, ...)                                                                             \
        ({                                                                                                   \
                log_error("%s:%u: " fmt, (p)->file, (p)->line_nr, ##__VA_ARGS__);                            \
                (p)->errors++;                                                                               \
                -EINVAL;                                                                                     \
        })
#define parse_warning(p, fmt, ...)                                                                           \
        do {                                                                                                 \
                log_warning("%s:%u: " fmt, (p)->file, (p)->line_nr, ##__VA_ARGS__);                          \
                (p)->rules->n_warnings++;                                                                    \
        } while (0)

static bool is_glob(const char *s)
{
        return strpbrk(s, "*?[") != NULL;
}

/* Turns t->value into the pattern form: alternatives split on '|'. */
static int token_compile_pattern(struct arena *arena, struct rule_token *t)
{
        char *v = t->value;
        size_t n = 1;
        for (const char *c = v; *c; c++)
                n += *c == '|';
        t->alts = arena_alloc(arena, n * sizeof(*t->alts));
        if (!t->alts)
                return -ENOMEM;
        unsigned k = 0;
        char *start = v;
        for (char *c = v;; c++) {
                if (*c == '|' || *c == '\0') {
                        bool end = *c == '\0';
                        *c = '\0';
                        if (*start == '\0')
                                t->match_empty = true;
                        else
                                t->alts[k++] = (struct rule_alt){.s = start, .glob = is_glob(start)};
                        if (end)
                                break;
                        start = c + 1;
                }
        }
        t->n_alts = k;
        return 0;
}

static int add_token(struct parser *p, enum rule_token_type type, enum rule_op op, char **value, char **attr,
                     struct rule_token **ret)
{
        if (p->line.n_tokens == p->cap_tokens) {
                unsigned cap = p->cap_tokens ? p->cap_tokens * 2 : 8;
                struct rule_token *n = realloc(p->line.tokens, cap * sizeof(*n));
                if (!n)
                        return -ENOMEM;
                p->line.tokens = n;
                p->cap_tokens = cap;
        }
        struct rule_token *t = &p->line.tokens[p->line.n_tokens];
        *t = (struct rule_token){.type = type, .op = op};
        /* the strings move into the arena */
        if ((value && *value && !(t->value = arena_strdup(p->rules->arena, *value))) ||
            (attr && *attr && !(t->attr = arena_strdup(p->rules->arena, *attr))))
                return -ENOMEM;
        if (value)
                *value = mfree(*value);
        if (attr)
                *attr = mfree(*attr);
        p->line.n_tokens++;

        if (type <= _TK_M_LAST) {
                if (type == TK_M_SUBSYSTEM && (streq(t->value, "subsystem") || streq(t->value, "bus") ||
                                               streq(t->value, "class")))
                        t->match_type = MATCH_SUBSYSTEM;
                else if (t->value[0] == '\0')
                        t->match_type = MATCH_EMPTY;
                else if (streq(t->value, "?*") && type != TK_M_TEST && type != TK_M_PROGRAM &&
                         (type < TK_M_IMPORT_FILE || type > TK_M_IMPORT_PARENT)) {
                        /* KEY=="?*" is KEY!="" */
                        t->match_type = MATCH_EMPTY;
                        t->op = op == RULE_OP_MATCH ? RULE_OP_NOMATCH : RULE_OP_MATCH;
                } else
                        t->match_type = MATCH_PATTERN;

                if (t->match_type == MATCH_PATTERN && (type < TK_M_TEST || type == TK_M_RESULT)) {
                        int r = token_compile_pattern(p->rules->arena, t);
                        if (r < 0)
                                return r;
                }
        }
        if (type == TK_M_ATTR || type == TK_M_PARENTS_ATTR || type == TK_A_ATTR || type == TK_M_SYSCTL ||
            type == TK_A_SYSCTL) {
                size_t l = t->value ? strlen(t->value) : 0;
                /* after pattern compilation the value may be split; look at the original end */
                t->strip_ws = l > 0 && !isspace((unsigned char)t->value[l - 1]);
                if (t->match_type == MATCH_PATTERN && t->n_alts > 0) {
                        const char *last = t->alts[t->n_alts - 1].s;
                        size_t ll = strlen(last);
                        t->strip_ws = ll > 0 && !isspace((unsigned char)last[ll - 1]);
                }
                t->attr_subst = t->attr[0] == '[' ? ATTR_SUBSYS : format_has_subst(t->attr) ? ATTR_FORMAT : ATTR_PLAIN;
        }

        if (type == TK_A_NAME)
                p->line.flags |= LINE_HAS_NAME;
        else if (type == TK_A_DEVLINK || (type >= TK_A_OWNER && type <= TK_A_MODE_ID))
                p->line.flags |= LINE_HAS_DEVLINK;
        else if (type == TK_A_OPTIONS_STATIC_NODE)
                p->line.flags |= LINE_HAS_STATIC_NODE;
        else if (type > _TK_M_LAST || type == TK_M_PROGRAM || (type >= TK_M_IMPORT_FILE && type <= TK_M_IMPORT_PARENT))
                p->line.flags |= LINE_UPDATE_SOMETHING;

        if (ret)
                *ret = t;
        return 0;
}

static int check_value(struct parser *p, const char *key, const char *value, bool nonempty)
{
        size_t off;
        const char *hint;
        if (nonempty && isempty(value)) {
                /* udev 252 warns and keeps the key: the rest of the line still counts */
                parse_warning(p, "Empty value for %s.", key);
                return 0;
        }
        if (format_check(value, &off, &hint) < 0)
                return parse_error(p, "Invalid value \"%s\" for %s (char %zu: %s).", value, key, off + 1, hint);
        return 0;
}

static int check_attr(struct parser *p, const char *key, const char *attr)
{
        size_t off;
        const char *hint;
        if (isempty(attr))
                return parse_error(p, "Invalid attribute for %s: missing {attribute}.", key);
        if (format_check(attr, &off, &hint) < 0)
                return parse_error(p, "Invalid attribute \"%s\" for %s (char %zu: %s).", attr, key, off + 1, hint);
        return 0;
}

/* The builtin of IMPORT{builtin}, IMPORT{program} or RUN{builtin}: its first word names it.
 * udev 252 takes that word as a prefix of the names in its table, so an empty command is the
 * table's first builtin, blkid; devman does the same for the empty word (it warned already). */
static const struct builtin *lookup_builtin(const char *value)
{
        return builtin_lookup(value[strspn(value, " \t\n\r")] ? value : "blkid");
}

#define invalid_op(p, key, op) parse_error(p, "Invalid operator '%s' for %s.", rule_op_to_string(op), key)
#define invalid_attr(p, key) parse_error(p, "Invalid attribute for %s.", key)

static int parse_mode(const char *s, mode_t *ret)
{
        if (!*s || strlen(s) > 5)
                return -EINVAL;
        mode_t m = 0;
        for (; *s; s++) {
                if (*s < '0' || *s > '7')
                        return -EINVAL;
                m = m * 8 + (mode_t)(*s - '0');
        }
        if (m > 07777)
                return -ERANGE;
        *ret = m;
        return 0;
}

int rules_parse_id(const char *s, uint32_t *ret)
{
        /* as strict as udev 252: decimal digits, no sign, no leading zero, no whitespace */
        if (!*s || strlen(s) > 10 || (s[0] == '0' && s[1]))
                return -EINVAL;
        uint64_t v = 0;
        for (; *s; s++) {
                if (!isdigit((unsigned char)*s))
                        return -EINVAL;
                v = v * 10 + (uint64_t)(*s - '0');
        }
        /* (uid_t)-1 is "unset", and 65535 is the 16-bit one: neither names an owner */
        if (v >= UINT32_MAX || v == UINT16_MAX)
                return -ERANGE;
        *ret = (uint32_t)v;
        return 0;
}

static int parse_int(const char *s, int *ret)
{
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || end == s || *end || v < -1000000 || v > 1000000)
                return -EINVAL;
        *ret = (int)v;
        return 0;
}

/* Resolves a user or group name through the cache. 0 with the id, -ENOENT when unknown. */
static int resolve_name(struct rules *rules, bool group, const char *name, uint32_t *ret)
{
        struct hashmap **m = group ? &rules->groups : &rules->users;
        if (!*m && !(*m = hashmap_new_string()))
                return -ENOMEM;
        uintptr_t v = (uintptr_t)hashmap_get(*m, name);
        if (v) {
                *ret = (uint32_t)(v - 1);
                return 0;
        }
        errno = 0;
        uint32_t id;
        if (group) {
                struct group *g = getgrnam(name);
                if (!g)
                        return errno > 0 && errno != ENOENT && errno != ESRCH ? -errno : -ENOENT;
                id = g->gr_gid;
        } else {
                struct passwd *pw = getpwnam(name);
                if (!pw)
                        return errno > 0 && errno != ENOENT && errno != ESRCH ? -errno : -ENOENT;
                id = pw->pw_uid;
        }
        char *k = strdup(name);
        if (!k)
                return -ENOMEM;
        int r = hashmap_put(*m, k, (void *)((uintptr_t)id + 1));
        if (r < 0) {
                free(k);
                return r;
        }
        *ret = id;
        return 0;
}

static const char *const env_readonly[] = {
        "ACTION", "DEVLINKS", "DEVNAME", "DEVPATH", "DEVTYPE", "DRIVER",
        "IFINDEX", "MAJOR", "MINOR", "SEQNUM", "SUBSYSTEM", "TAGS",
};

/* OWNER= / GROUP=: a number, a name resolved now, or a name with substitutions. */
static int parse_owner_group(struct parser *p, bool group, const char *key, enum rule_op op, char **value)
{
        struct rule_token *t;
        uint32_t id;
        int r;
        enum rule_token_type tid = group ? TK_A_GROUP_ID : TK_A_OWNER_ID;
        enum rule_token_type tname = group ? TK_A_GROUP : TK_A_OWNER;

        if (rules_parse_id(*value, &id) >= 0) {
                if ((r = add_token(p, tid, op, NULL, NULL, &t)) < 0)
                        return r;
                if (group)
                        t->data.gid = id;
                else
                        t->data.uid = id;
                return 0;
        }
        if (p->rules->resolve_names == RESOLVE_NAMES_NEVER) {
                log_debug("%s:%u: name resolution disabled, ignoring %s=\"%s\"", p->file, p->line_nr, key, *value);
                return 0;
        }
        if (p->rules->resolve_names == RESOLVE_NAMES_EARLY && !format_has_subst(*value)) {
                r = resolve_name(p->rules, group, *value, &id);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        /* like udev 252: the rest of the rule stays, and the assignment resets
                         * the owner to none (an earlier rule's owner no longer counts) */
                        parse_warning(p, "Unknown %s '%s', ignoring.", group ? "group" : "user", *value);
                        id = UINT32_MAX;
                }
                if ((r = add_token(p, tid, op, NULL, NULL, &t)) < 0)
                        return r;
                if (group)
                        t->data.gid = id;
                else
                        t->data.uid = id;
                return 0;
        }
        if ((r = check_value(p, key, *value, true)) < 0)
                return r;
        return add_token(p, tname, op, value, NULL, NULL);
}

static int parse_options(struct parser *p, enum rule_op op, char **value)
{
        const char *v = *value, *tmp;
        struct rule_token *t;
        int r;

        if (streq(v, "string_escape=none"))
                return add_token(p, TK_A_OPTIONS_STRING_ESCAPE_NONE, op, NULL, NULL, NULL);
        if (streq(v, "string_escape=replace"))
                return add_token(p, TK_A_OPTIONS_STRING_ESCAPE_REPLACE, op, NULL, NULL, NULL);
        if (streq(v, "db_persist"))
                return add_token(p, TK_A_OPTIONS_DB_PERSIST, op, NULL, NULL, NULL);
        if (streq(v, "watch") || streq(v, "nowatch")) {
                if ((r = add_token(p, TK_A_OPTIONS_WATCH, op, NULL, NULL, &t)) < 0)
                        return r;
                t->data.num = streq(v, "watch");
                return 0;
        }
        if ((tmp = startswith(v, "static_node="))) {
                if (isempty(tmp)) {
                        /* udev 252 keeps it and finds no node "/dev/" at startup: nothing */
                        parse_warning(p, "Empty static_node name, ignoring it.");
                        return 0;
                }
                if (!devname_is_safe(tmp))
                        return parse_error(p, "Invalid static_node name \"%s\".", tmp);
                char *n = strdup(tmp);
                if (!n)
                        return -ENOMEM;
                return add_token(p, TK_A_OPTIONS_STATIC_NODE, op, &n, NULL, NULL);
        }
        if ((tmp = startswith(v, "link_priority="))) {
                int prio;
                if (parse_int(tmp, &prio) < 0)
                        return parse_error(p, "Failed to parse link priority '%s'.", tmp);
                if ((r = add_token(p, TK_A_OPTIONS_LINK_PRIORITY, op, NULL, NULL, &t)) < 0)
                        return r;
                t->data.num = prio;
                return 0;
        }
        if ((tmp = startswith(v, "log_level="))) {
                int level = -1;
                if (!streq(tmp, "reset") && (level = log_level_from_string(tmp)) < 0)
                        return parse_error(p, "Failed to parse log level '%s'.", tmp);
                if ((r = add_token(p, TK_A_OPTIONS_LOG_LEVEL, op, NULL, NULL, &t)) < 0)
                        return r;
                t->data.num = level;
                return 0;
        }
        parse_warning(p, "Invalid value for OPTIONS key, ignoring: '%s'", v);
        return 0;
}

/* One KEY{attr} OP "value". Takes ownership of *attr and *value on success. 0, -EINVAL
 * (logged), -ENOMEM. */
static int parse_token(struct parser *p, const char *key, char **attrp, enum rule_op op, char **valuep)
{
        bool is_match = op == RULE_OP_MATCH || op == RULE_OP_NOMATCH;
        const char *attr = *attrp, *value = *valuep;
        struct rule_token *t;
        int r;

#define NO_ATTR()                                                                                            \
        do {                                                                                                 \
                if (attr)                                                                                    \
                        return invalid_attr(p, key);                                                         \
        } while (0)
#define MATCH_ONLY()                                                                                         \
        do {                                                                                                 \
                if (!is_match)                                                                               \
                        return invalid_op(p, key, op);                                                       \
        } while (0)

        if (streq(key, "ACTION") || streq(key, "DEVPATH") || streq(key, "KERNEL") || streq(key, "SUBSYSTEM") ||
            streq(key, "DRIVER") || streq(key, "KERNELS") || streq(key, "SUBSYSTEMS") || streq(key, "DRIVERS") ||
            streq(key, "TAGS") || streq(key, "RESULT")) {
                static const struct {
                        const char *key;
                        enum rule_token_type type;
                } simple[] = {
                        {"ACTION", TK_M_ACTION},           {"DEVPATH", TK_M_DEVPATH},
                        {"KERNEL", TK_M_KERNEL},           {"SUBSYSTEM", TK_M_SUBSYSTEM},
                        {"DRIVER", TK_M_DRIVER},           {"KERNELS", TK_M_PARENTS_KERNEL},
                        {"SUBSYSTEMS", TK_M_PARENTS_SUBSYSTEM}, {"DRIVERS", TK_M_PARENTS_DRIVER},
                        {"TAGS", TK_M_PARENTS_TAG},        {"RESULT", TK_M_RESULT},
                };
                NO_ATTR();
                MATCH_ONLY();
                if (streq(key, "SUBSYSTEM") && (streq(value, "bus") || streq(value, "class")))
                        parse_warning(p, "\"%s\" must be specified as \"subsystem\".", value);
                for (size_t i = 0; i < ELEMENTSOF(simple); i++)
                        if (streq(key, simple[i].key))
                                return add_token(p, simple[i].type, op, valuep, NULL, NULL);
        }

        if (streq(key, "SYMLINK")) {
                NO_ATTR();
                if (op == RULE_OP_REMOVE)
                        return invalid_op(p, key, op);
                if (is_match)
                        return add_token(p, TK_M_DEVLINK, op, valuep, NULL, NULL);
                if ((r = check_value(p, key, value, false)) < 0)
                        return r;
                return add_token(p, TK_A_DEVLINK, op, valuep, NULL, NULL);
        }
        if (streq(key, "NAME")) {
                NO_ATTR();
                if (op == RULE_OP_REMOVE)
                        return invalid_op(p, key, op);
                if (op == RULE_OP_ADD) {
                        parse_warning(p, "NAME key takes '==', '!=', '=', or ':=' operator, assuming '='.");
                        op = RULE_OP_ASSIGN;
                }
                if (is_match)
                        return add_token(p, TK_M_NAME, op, valuep, NULL, NULL);
                if (streq(value, "%k"))
                        return parse_error(p, "Ignoring NAME=\"%%k\", as it will take no effect.");
                if (isempty(value))
                        return parse_error(p, "Ignoring NAME=\"\", as udev will not delete any network interfaces.");
                if ((r = check_value(p, key, value, false)) < 0)
                        return r;
                return add_token(p, TK_A_NAME, op, valuep, NULL, NULL);
        }
        if (streq(key, "ENV")) {
                if (isempty(attr))
                        return invalid_attr(p, key);
                if (op == RULE_OP_REMOVE)
                        return invalid_op(p, key, op);
                if (op == RULE_OP_ASSIGN_FINAL) {
                        parse_warning(p, "ENV key takes '==', '!=', '=', or '+=' operator, assuming '='.");
                        op = RULE_OP_ASSIGN;
                }
                if (is_match)
                        return add_token(p, TK_M_ENV, op, valuep, attrp, NULL);
                for (size_t i = 0; i < ELEMENTSOF(env_readonly); i++)
                        if (streq(attr, env_readonly[i]))
                                return parse_error(p, "Invalid ENV attribute. '%s' cannot be set.", attr);
                if (strchr(attr, '='))
                        return parse_error(p, "Invalid ENV attribute '%s': contains '='.", attr);
                if ((r = check_value(p, key, value, false)) < 0)
                        return r;
                return add_token(p, TK_A_ENV, op, valuep, attrp, NULL);
        }
        if (streq(key, "CONST")) {
                if (isempty(attr) || (!streq(attr, "arch") && !streq(attr, "virt")))
                        return invalid_attr(p, key);
                MATCH_ONLY();
                return add_token(p, TK_M_CONST, op, valuep, attrp, NULL);
        }
        if (streq(key, "TAG")) {
                NO_ATTR();
                if (op == RULE_OP_ASSIGN_FINAL) {
                        parse_warning(p, "TAG key takes '==', '!=', '=', or '+=' operator, assuming '='.");
                        op = RULE_OP_ASSIGN;
                }
                if (is_match)
                        return add_token(p, TK_M_TAG, op, valuep, NULL, NULL);
                if ((r = check_value(p, key, value, true)) < 0)
                        return r;
                return add_token(p, TK_A_TAG, op, valuep, NULL, NULL);
        }
        if (streq(key, "ATTR") || streq(key, "SYSCTL")) {
                bool sysctl = key[0] == 'S';
                if ((r = check_attr(p, key, attr)) < 0)
                        return r;
                if (op == RULE_OP_REMOVE)
                        return invalid_op(p, key, op);
                if (op == RULE_OP_ADD || op == RULE_OP_ASSIGN_FINAL) {
                        parse_warning(p, "%s key takes '==', '!=', or '=' operator, assuming '='.", key);
                        op = RULE_OP_ASSIGN;
                }
                if (is_match)
                        return add_token(p, sysctl ? TK_M_SYSCTL : TK_M_ATTR, op, valuep, attrp, NULL);
                if ((r = check_value(p, key, value, false)) < 0)
                        return r;
                return add_token(p, sysctl ? TK_A_SYSCTL : TK_A_ATTR, op, valuep, attrp, NULL);
        }
        if (streq(key, "ATTRS")) {
                if ((r = check_attr(p, key, attr)) < 0)
                        return r;
                MATCH_ONLY();
                if (startswith(attr, "device/"))
                        parse_warning(p, "'device' link may not be available in future kernels.");
                if (strstr(attr, "../"))
                        parse_warning(p, "Direct reference to parent sysfs directory, may break in future kernels.");
                return add_token(p, TK_M_PARENTS_ATTR, op, valuep, attrp, NULL);
        }
        if (streq(key, "TEST")) {
                mode_t mode = (mode_t)-1;
                if (!isempty(attr) && parse_mode(attr, &mode) < 0)
                        return parse_error(p, "Failed to parse mode '%s' of TEST.", attr);
                if ((r = check_value(p, key, value, true)) < 0)
                        return r;
                MATCH_ONLY();
                if ((r = add_token(p, TK_M_TEST, op, valuep, NULL, &t)) < 0)
                        return r;
                t->data.mode = mode;
                return 0;
        }
        if (streq(key, "PROGRAM")) {
                NO_ATTR();
                if ((r = check_value(p, key, value, true)) < 0)
                        return r;
                if (op == RULE_OP_REMOVE)
                        return invalid_op(p, key, op);
                if (!is_match)
                        op = RULE_OP_MATCH;
                return add_token(p, TK_M_PROGRAM, op, valuep, NULL, NULL);
        }
        if (streq(key, "IMPORT")) {
                if (isempty(attr))
                        return invalid_attr(p, key);
                if ((r = check_value(p, key, value, true)) < 0)
                        return r;
                if (op == RULE_OP_REMOVE)
                        return invalid_op(p, key, op);
                if (!is_match)
                        op = RULE_OP_MATCH;
                if (streq(attr, "file"))
                        return add_token(p, TK_M_IMPORT_FILE, op, valuep, NULL, NULL);
                if (streq(attr, "program") || streq(attr, "builtin")) {
                        const struct builtin *b = lookup_builtin(value);
                        if (!b && attr[0] == 'b')
                                return parse_error(p, "Unknown builtin command: %s", value);
                        if (!b)
                                return add_token(p, TK_M_IMPORT_PROGRAM, op, valuep, NULL, NULL);
                        if (attr[0] == 'p')
                                log_debug("%s:%u: found builtin command '%s' for IMPORT{program}, using the builtin",
                                          p->file, p->line_nr, b->name);
                        if ((r = add_token(p, TK_M_IMPORT_BUILTIN, op, valuep, NULL, &t)) < 0)
                                return r;
                        t->data.builtin = b;
                        return 0;
                }
                if (streq(attr, "db"))
                        return add_token(p, TK_M_IMPORT_DB, op, valuep, NULL, NULL);
                if (streq(attr, "cmdline"))
                        return add_token(p, TK_M_IMPORT_CMDLINE, op, valuep, NULL, NULL);
                if (streq(attr, "parent"))
                        return add_token(p, TK_M_IMPORT_PARENT, op, valuep, NULL, NULL);
                return invalid_attr(p, key);
        }
        if (streq(key, "OPTIONS")) {
                NO_ATTR();
                if (is_match || op == RULE_OP_REMOVE)
                        return invalid_op(p, key, op);
                if (op == RULE_OP_ADD)
                        op = RULE_OP_ASSIGN;
                r = parse_options(p, op, valuep);
                return r;
        }
        if (streq(key, "OWNER") || streq(key, "GROUP")) {
                NO_ATTR();
                if (is_match || op == RULE_OP_REMOVE)
                        return invalid_op(p, key, op);
                if (op == RULE_OP_ADD) {
                        parse_warning(p, "%s key takes '=' or ':=' operator, assuming '='.", key);
                        op = RULE_OP_ASSIGN;
                }
                return parse_owner_group(p, key[0] == 'G', key, op, valuep);
        }
        if (streq(key, "MODE")) {
                mode_t mode;
                NO_ATTR();
                if (is_match || op == RULE_OP_REMOVE)
                        return invalid_op(p, key, op);
                if (op == RULE_OP_ADD) {
                        parse_warning(p, "MODE key takes '=' or ':=' operator, assuming '='.");
                        op = RULE_OP_ASSIGN;
                }
                if (parse_mode(value, &mode) >= 0) {
                        if ((r = add_token(p, TK_A_MODE_ID, op, NULL, NULL, &t)) < 0)
                                return r;
                        t->data.mode = mode;
                        return 0;
                }
                if (!isempty(value) && !format_has_subst(value))
                        return parse_error(p, "Invalid MODE \"%s\": not an octal mode.", value);
                if ((r = check_value(p, key, value, true)) < 0)
                        return r;
                return add_token(p, TK_A_MODE, op, valuep, NULL, NULL);
        }
        if (streq(key, "SECLABEL")) {
                if (isempty(attr))
                        return invalid_attr(p, key);
                if ((r = check_value(p, key, value, true)) < 0)
                        return r;
                if (is_match || op == RULE_OP_REMOVE)
                        return invalid_op(p, key, op);
                if (op == RULE_OP_ASSIGN_FINAL) {
                        parse_warning(p, "SECLABEL key takes '=' or '+=' operator, assuming '='.");
                        op = RULE_OP_ASSIGN;
                }
                return add_token(p, TK_A_SECLABEL, op, valuep, attrp, NULL);
        }
        if (streq(key, "RUN")) {
                if (is_match || op == RULE_OP_REMOVE)
                        return invalid_op(p, key, op);
                if ((r = check_value(p, key, value, true)) < 0)
                        return r;
                if (!attr || streq(attr, "program"))
                        return add_token(p, TK_A_RUN_PROGRAM, op, valuep, NULL, NULL);
                if (streq(attr, "builtin")) {
                        const struct builtin *b = lookup_builtin(value);
                        if (!b)
                                return parse_error(p, "Unknown builtin command '%s'.", value);
                        if ((r = add_token(p, TK_A_RUN_BUILTIN, op, valuep, NULL, &t)) < 0)
                                return r;
                        t->data.builtin = b;
                        return 0;
                }
                return invalid_attr(p, key);
        }
        if (streq(key, "GOTO")) {
                NO_ATTR();
                if (op != RULE_OP_ASSIGN)
                        return invalid_op(p, key, op);
                if (p->line.flags & LINE_HAS_GOTO) {
                        parse_warning(p, "Contains multiple GOTO keys, ignoring GOTO=\"%s\".", value);
                        return 0;
                }
                p->line.goto_label = TAKE_PTR(*valuep);
                p->line.flags |= LINE_HAS_GOTO;
                return 0;
        }
        if (streq(key, "LABEL")) {
                NO_ATTR();
                if (op != RULE_OP_ASSIGN)
                        return invalid_op(p, key, op);
                free(p->line.label);
                p->line.label = TAKE_PTR(*valuep);
                p->line.flags |= LINE_HAS_LABEL;
                return 0;
        }
        return parse_error(p, "Invalid key '%s'.", key);
#undef NO_ATTR
#undef MATCH_ONLY
}

/* C-style unescaping for e"…" values. */
static int cunescape(const char *s, size_t n, char **ret)
{
        char *out = malloc(n * 4 + 1), *o = out;
        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                if (s[i] != '\\') {
                        *o++ = s[i];
                        continue;
                }
                if (++i >= n)
                        goto bad;
                char c = s[i];
                switch (c) {
                case 'a': *o++ = '\a'; break;
                case 'b': *o++ = '\b'; break;
                case 'f': *o++ = '\f'; break;
                case 'n': *o++ = '\n'; break;
                case 'r': *o++ = '\r'; break;
                case 't': *o++ = '\t'; break;
                case 'v': *o++ = '\v'; break;
                case 's': *o++ = ' '; break;
                case '\\': case '"': case '\'': case '?': *o++ = c; break;
                case 'x': {
                        if (i + 2 >= n || !isxdigit((unsigned char)s[i + 1]) || !isxdigit((unsigned char)s[i + 2]))
                                goto bad;
                        unsigned v = (unsigned)strtoul((char[]){s[i + 1], s[i + 2], 0}, NULL, 16);
                        if (v == 0)
                                goto bad;
                        *o++ = (char)v;
                        i += 2;
                        break;
                }
                case 'u':
                case 'U': {
                        size_t digits = c == 'u' ? 4 : 8;
                        uint32_t cp = 0;
                        if (i + digits >= n)
                                goto bad;
                        for (size_t k = 1; k <= digits; k++) {
                                char d = s[i + k];
                                if (!isxdigit((unsigned char)d))
                                        goto bad;
                                cp = cp * 16 + (uint32_t)(isdigit((unsigned char)d) ? d - '0' : (tolower(d) - 'a' + 10));
                        }
                        if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                                goto bad;
                        if (cp < 0x80)
                                *o++ = (char)cp;
                        else if (cp < 0x800) {
                                *o++ = (char)(0xc0 | (cp >> 6));
                                *o++ = (char)(0x80 | (cp & 0x3f));
                        } else if (cp < 0x10000) {
                                *o++ = (char)(0xe0 | (cp >> 12));
                                *o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
                                *o++ = (char)(0x80 | (cp & 0x3f));
                        } else {
                                *o++ = (char)(0xf0 | (cp >> 18));
                                *o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
                                *o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
                                *o++ = (char)(0x80 | (cp & 0x3f));
                        }
                        i += digits;
                        break;
                }
                default:
                        if (c >= '0' && c <= '7') {
                                if (i + 2 >= n || s[i + 1] < '0' || s[i + 1] > '7' || s[i + 2] < '0' || s[i + 2] > '7')
                                        goto bad;
                                unsigned v = (unsigned)((c - '0') * 64 + (s[i + 1] - '0') * 8 + (s[i + 2] - '0'));
                                if (v == 0 || v > 255)
                                        goto bad;
                                *o++ = (char)v;
                                i += 2;
                                break;
                        }
                        goto bad;
                }
        }
        *o = '\0';
        *ret = out;
        return 0;
bad:
        free(out);
        return -EINVAL;
}

/* Parses a value at *s ("…" or e"…"); on success *s points after the closing quote. */
static int parse_value(const char **s, char **ret, const char **why)
{
        const char *p = *s;
        bool escaped = *p == 'e';
        p += escaped;
        if (*p != '"') {
                *why = "value must be enclosed in double quotes";
                return -EINVAL;
        }
        p++;
        if (!escaped) {
                /* only \" is special: it stands for " */
                size_t n = 0;
                const char *q;
                for (q = p; *q != '"'; q++) {
                        if (!*q) {
                                *why = "missing closing quote";
                                return -EINVAL;
                        }
                        if (q[0] == '\\' && q[1] == '"')
                                q++;
                        n++;
                }
                char *v = malloc(n + 1), *o = v;
                if (!v)
                        return -ENOMEM;
                for (q = p; *q != '"'; q++) {
                        if (q[0] == '\\' && q[1] == '"')
                                q++;
                        *o++ = *q;
                }
                *o = '\0';
                *ret = v;
                *s = q + 1;
                return 0;
        }
        const char *q;
        for (q = p; *q != '"'; q++) {
                if (q[0] == '\\' && q[1])
                        q++;
                if (!*q) {
                        *why = "missing closing quote";
                        return -EINVAL;
                }
        }
        int r = cunescape(p, (size_t)(q - p), ret);
        if (r == -EINVAL)
                *why = "invalid escape sequence";
        if (r < 0)
                return r;
        *s = q + 1;
        return 0;
}

static int parse_operator(const char *s, enum rule_op *ret)
{
        static const struct {
                const char *s;
                enum rule_op op;
        } ops[] = {
                {"==", RULE_OP_MATCH}, {"!=", RULE_OP_NOMATCH}, {"+=", RULE_OP_ADD},
                {"-=", RULE_OP_REMOVE}, {":=", RULE_OP_ASSIGN_FINAL}, {"=", RULE_OP_ASSIGN},
        };
        for (size_t i = 0; i < ELEMENTSOF(ops); i++)
                if (startswith(s, ops[i].s)) {
                        *ret = ops[i].op;
                        return (int)strlen(ops[i].s);
                }
        return -EINVAL;
}

static void sort_tokens(struct rule_line *l)
{
        /* stable insertion sort by type; lines have a handful of tokens */
        for (unsigned i = 1; i < l->n_tokens; i++) {
                struct rule_token t = l->tokens[i];
                unsigned j = i;
                while (j > 0 && l->tokens[j - 1].type > t.type) {
                        l->tokens[j] = l->tokens[j - 1];
                        j--;
                }
                l->tokens[j] = t;
        }
        /* pattern alternatives point into their token's own value buffer, which did not move */
}

/* The first-byte mask of a KERNEL== pattern whose every alternative starts with a literal
 * byte (a name that matches starts with one of them), or 0 when one could start with any. */
static uint32_t kernel_first_mask(const struct rule_token *t)
{
        uint32_t mask = 0;
        if (t->op != RULE_OP_MATCH || t->match_type != MATCH_PATTERN || t->match_empty || t->n_alts == 0)
                return 0;
        for (unsigned i = 0; i < t->n_alts; i++) {
                char c = t->alts[i].s[0];
                /* a glob character, or a backslash escaping the next one, matches other bytes */
                if (c == '\0' || strchr("*?[\\", c))
                        return 0;
                mask |= rules_prefilter_first_bit(c);
        }
        return mask;
}

/* Whether an ENV{key} match can only hold when the key is in the device's property set: a
 * != "" test, or == patterns none of which matches the empty string (an absent key compares
 * as ""); and the key is not one that is derived from the record when the set lacks it. ENV
 * matches come before every token with side effects (imports, programs), so the key cannot
 * appear within the line before the match is evaluated. */
static bool env_needs_key(const struct rule_token *t)
{
        if (!t->attr || !t->attr[0] || format_property_is_derived(t->attr))
                return false;
        if (t->match_type == MATCH_EMPTY) /* ENV{k}!="" (also what ENV{k}=="?*" became) */
                return t->op == RULE_OP_NOMATCH;
        if (t->op != RULE_OP_MATCH || t->match_type != MATCH_PATTERN || t->match_empty || t->n_alts == 0)
                return false;
        for (unsigned i = 0; i < t->n_alts; i++)
                if (t->alts[i].s[strspn(t->alts[i].s, "*")] == '\0') /* "", "*", "**": match "" */
                        return false;
        return true;
}

/* The line's cheap pre-filter: a SUBSYSTEM or ACTION it requires to be one literal, the first
 * bytes a KERNEL match allows, a property an ENV match needs. */
static void set_prefilter(struct rule_line *l)
{
        static_assert(TK_M_ENV < TK_M_PARENTS_KERNEL && TK_M_ENV < TK_M_TEST && TK_M_ENV < TK_M_PROGRAM &&
                              TK_M_ENV < TK_M_IMPORT_FILE && TK_M_ENV < TK_M_IMPORT_PROGRAM &&
                              TK_M_ENV < TK_M_IMPORT_BUILTIN && TK_M_ENV < TK_M_IMPORT_DB &&
                              TK_M_ENV < TK_M_IMPORT_CMDLINE && TK_M_ENV < TK_M_IMPORT_PARENT,
                      "ENV matches run before any token that can set properties");
        for (unsigned i = 0; i < l->n_tokens; i++) {
                const struct rule_token *t = &l->tokens[i];
                if (t->type == TK_M_ENV && !(l->flags & LINE_NEEDS_ENV) && env_needs_key(t)) {
                        l->flags |= LINE_NEEDS_ENV;
                        l->env_slot = (uint8_t)props_key_slot(t->attr, strlen(t->attr));
                }
                if (t->type == TK_M_KERNEL && !(l->flags & LINE_NEEDS_KERNEL) && (l->kernel_first = kernel_first_mask(t)))
                        l->flags |= LINE_NEEDS_KERNEL;
                if (t->op != RULE_OP_MATCH || t->match_type != MATCH_PATTERN || t->n_alts != 1 || t->alts[0].glob ||
                    t->match_empty)
                        continue;
                if (t->type == TK_M_SUBSYSTEM) {
                        l->flags |= LINE_NEEDS_SUBSYSTEM;
                        l->subsystem_hash = rules_prefilter_hash(t->alts[0].s);
                } else if (t->type == TK_M_ACTION) {
                        l->flags |= LINE_NEEDS_ACTION;
                        l->action_hash = rules_prefilter_hash(t->alts[0].s);
                }
        }
}

uint32_t rules_prefilter_hash(const char *s)
{
        return (uint32_t)hash_string(s);
}

static int rules_append_line(struct rules *rules, struct rule_line *l)
{
        if (rules->n_lines == rules->cap_lines) {
                size_t cap = rules->cap_lines ? rules->cap_lines * 2 : 256;
                struct rule_line *n = realloc(rules->lines, cap * sizeof(*n));
                if (!n)
                        return -ENOMEM;
                rules->lines = n;
                rules->cap_lines = cap;
        }
        rules->lines[rules->n_lines++] = *l;
        return 0;
}

static int add_line(struct parser *p, const char *s)
{
        int r = 0;
        p->line = (struct rule_line){.file = p->file, .line = p->line_nr};
        p->cap_tokens = 0;

        for (;;) {
                while (*s && (isspace((unsigned char)*s) || *s == ','))
                        s++;
                if (!*s)
                        break;

                const char *kb = s, *ke = s;
                for (;; ke++) {
                        if (!*ke) {
                                r = parse_error(p, "Invalid key/value pair: unexpected end of line after \"%s\".", kb);
                                goto drop;
                        }
                        if (isspace((unsigned char)*ke) || *ke == '=' || *ke == '{')
                                break;
                        if (strchr("+-!:", *ke) && ke[1] == '=')
                                break;
                }
                _cleanup_free_ char *key = strndup(kb, (size_t)(ke - kb));
                _cleanup_free_ char *attr = NULL, *value = NULL;
                if (!key)
                        return -ENOMEM;
                s = ke;
                if (*s == '{') {
                        const char *end = strchr(s + 1, '}');
                        if (!end) {
                                r = parse_error(p, "Invalid key/value pair: missing '}' after %s{.", key);
                                goto drop;
                        }
                        if (!(attr = strndup(s + 1, (size_t)(end - s - 1))))
                                return -ENOMEM;
                        s = end + 1;
                }
                while (isspace((unsigned char)*s))
                        s++;
                enum rule_op op;
                int n = parse_operator(s, &op);
                if (n < 0) {
                        r = parse_error(p, "Invalid key/value pair: no valid operator after %s.", key);
                        goto drop;
                }
                s += n;
                while (isspace((unsigned char)*s))
                        s++;
                const char *why = NULL;
                r = parse_value(&s, &value, &why);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        r = parse_error(p, "Invalid value for %s: %s.", key, why);
                        goto drop;
                }
                if (*s && !isspace((unsigned char)*s) && *s != ',')
                        /* udevd 252 reads on as if a comma were there */
                        parse_warning(p, "Missing ',' or whitespace after the value of %s.", key);
                if (key[0] == '\0') {
                        r = parse_error(p, "Invalid key/value pair: missing key.");
                        goto drop;
                }
                r = parse_token(p, key, &attr, op, &value);
                if (r < 0)
                        goto drop;
        }

        if (p->line.flags == 0) {
                parse_warning(p, "The line takes no effect, ignoring.");
                goto drop;
        }
        sort_tokens(&p->line);
        set_prefilter(&p->line);
        /* the finished line moves into the arena: no slack, no per-line allocations */
        struct arena *arena = p->rules->arena;
        struct rule_line done = p->line;
        done.tokens = p->line.n_tokens ? arena_memdup(arena, p->line.tokens, p->line.n_tokens * sizeof(struct rule_token)) : NULL;
        done.label = p->line.label ? arena_strdup(arena, p->line.label) : NULL;
        done.goto_label = p->line.goto_label ? arena_strdup(arena, p->line.goto_label) : NULL;
        if ((p->line.n_tokens && !done.tokens) || (p->line.label && !done.label) ||
            (p->line.goto_label && !done.goto_label)) {
                r = -ENOMEM;
                goto drop;
        }
        r = rules_append_line(p->rules, &done);
        if (r < 0)
                goto drop;
        line_clear(&p->line);
        p->line = (struct rule_line){0};
        return 0;

drop:
        line_clear(&p->line);
        p->line = (struct rule_line){0};
        return r == -ENOMEM ? r : 0;
}

/* Links each GOTO to the first later line of the same file with that LABEL. */
static unsigned resolve_gotos(struct rules *rules, size_t first, size_t last)
{
        unsigned errors = 0;
        for (size_t i = first; i < last; i++) {
                struct rule_line *l = &rules->lines[i];
                if (!(l->flags & LINE_HAS_GOTO))
                        continue;
                size_t j;
                for (j = i + 1; j < last; j++)
                        if (rules->lines[j].label && streq(rules->lines[j].label, l->goto_label))
                                break;
                if (j < last) {
                        l->goto_line = j;
                        continue;
                }
                log_error("%s:%u: GOTO=\"%s\" has no matching label, ignoring.", l->file, l->line, l->goto_label);
                errors++;
                l->flags &= ~(unsigned)LINE_HAS_GOTO;
                l->goto_label = NULL;
        }
        return errors;
}

int rules_parse_buffer(struct rules *rules, const char *name, const char *buf, size_t len)
{
        struct rules_file *files = realloc(rules->files, (rules->n_files + 1) * sizeof(*files));
        if (!files)
                return -ENOMEM;
        rules->files = files;
        char *fname = strdup(name);
        if (!fname)
                return -ENOMEM;
        struct rules_file *f = &rules->files[rules->n_files++];
        *f = (struct rules_file){.name = fname, .first_line = rules->n_lines};

        struct parser p = {.rules = rules, .file = fname};
        _cleanup_free_ char *cont = NULL;
        size_t cont_len = 0;
        int r = 0;

        for (size_t off = 0; off < len;) {
                const char *nl = memchr(buf + off, '\n', len - off);
                size_t ll = nl ? (size_t)(nl - (buf + off)) : len - off;
                const char *raw = buf + off;
                off += ll + (nl ? 1 : 0);
                p.line_nr++;

                if (ll > 0 && raw[ll - 1] == '\r')
                        ll--;
                if (memchr(raw, '\0', ll)) {
                        parse_error(&p, "Line contains a NUL byte, ignoring.");
                        cont = mfree(cont);
                        cont_len = 0;
                        continue;
                }
                while (ll > 0 && isspace((unsigned char)*raw)) {
                        raw++;
                        ll--;
                }
                if (ll > 0 && raw[0] == '#')
                        continue;

                /* join continued lines */
                char *joined = realloc(cont, cont_len + ll + 1);
                if (!joined) {
                        r = -ENOMEM;
                        break;
                }
                cont = joined;
                memcpy(cont + cont_len, raw, ll);
                cont_len += ll;
                cont[cont_len] = '\0';

                if (cont_len > 0 && cont[cont_len - 1] == '\\') {
                        cont[--cont_len] = '\0';
                        continue;
                }
                if (cont_len > 0) {
                        r = add_line(&p, cont);
                        if (r < 0)
                                break;
                }
                cont_len = 0;
        }
        if (r >= 0 && cont_len > 0) {
                parse_warning(&p, "File ends inside a continued line, ignoring its last rule.");
        }

        f->n_lines = rules->n_lines - f->first_line;
        p.errors += resolve_gotos(rules, f->first_line, rules->n_lines);
        rules->n_errors += p.errors;
        return r < 0 ? r : (int)p.errors;
}

int rules_parse_file(struct rules *rules, const char *path)
{
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return negative_errno();
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, cap = 0;
        for (;;) {
                if (len + 4096 > cap) {
                        size_t ncap = cap ? cap * 2 : 16384;
                        char *n = realloc(buf, ncap);
                        if (!n)
                                return -ENOMEM;
                        buf = n;
                        cap = ncap;
                }
                size_t k = fread(buf + len, 1, cap - len, f);
                len += k;
                if (k == 0) {
                        if (ferror(f))
                                return -EIO;
                        break;
                }
        }
        return rules_parse_buffer(rules, path, buf ? buf : "", len);
}
