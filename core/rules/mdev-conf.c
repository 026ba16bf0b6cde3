/* SPDX-License-Identifier: MIT */
#include "mdev-conf.h"

#include <ctype.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devdir.h"
#include "fs-util.h"
#include "log.h"
#include "macros.h"
#include "sysfs.h"

static void rule_free(struct mdev_rule *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < r->n_env; i++) {
                free(r->env[i].key);
                free(r->env[i].pattern);
                regfree(&r->env[i].re);
        }
        free(r->env);
        if (r->kind != MDEV_MATCH_DEVT)
                regfree(&r->re);
        free(r->envvar);
        free(r->pattern);
        free(r->source);
        free(r->path);
        free(r->cmd);
        free(r);
}

struct mdev_conf *mdev_conf_free(struct mdev_conf *c)
{
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n_rules; i++)
                rule_free(c->rules[i]);
        free(c->rules);
        free(c->path);
        return mfree(c);
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

/* A reason for a bad line, in a new string; NULL only when out of memory. */
_printf_(1, 2) static char *why_new(const char *fmt, ...)
{
        va_list ap;
        char *s = NULL;
        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        return s;
}

/* Compiles re (a whole-string match is checked when matching). 0, or -EINVAL with *why. */
static int compile(regex_t *re, const char *pattern, char **why)
{
        int e = regcomp(re, pattern, REG_EXTENDED);
        if (e == 0)
                return 0;
        size_t n = regerror(e, re, NULL, 0);
        _cleanup_free_ char *msg = malloc(n);
        if (msg)
                regerror(e, re, msg, n);
        *why = why_new("bad regex '%s': %s", pattern, msg ? msg : "error");
        return -EINVAL;
}

static bool all_digits(const char *s)
{
        if (!*s)
                return false;
        for (; *s; s++)
                if (!isdigit((unsigned char)*s))
                        return false;
        return true;
}

static int parse_id(const char *s, unsigned long *ret)
{
        if (!all_digits(s) || strlen(s) > 10)
                return -EINVAL;
        unsigned long v = strtoul(s, NULL, 10);
        if (v >= (uid_t)-1)
                return -ERANGE;
        *ret = v;
        return 0;
}

/* "user[:group]", names or numbers; a user alone takes that user's primary group, as busybox
 * does. 0 or -EINVAL. */
static int parse_owner(char *s, uid_t *ret_uid, gid_t *ret_gid)
{
        char *colon = strchr(s, ':');
        unsigned long v;

        if (colon)
                *colon = '\0';
        const char *user = s, *group = colon ? colon + 1 : NULL;
        if (!*user || (group && !*group))
                return -EINVAL;
        const struct passwd *pw = NULL;
        if (parse_id(user, &v) == 0) {
                *ret_uid = (uid_t)v;
                if (!group) {
                        pw = getpwuid((uid_t)v);
                        if (!pw)
                                return -EINVAL;
                }
        } else {
                pw = getpwnam(user);
                if (!pw)
                        return -EINVAL;
                *ret_uid = pw->pw_uid;
        }
        if (!group) {
                *ret_gid = pw->pw_gid;
                return 0;
        }
        if (parse_id(group, &v) == 0) {
                *ret_gid = (gid_t)v;
                return 0;
        }
        const struct group *gr = getgrnam(group);
        if (!gr)
                return -EINVAL;
        *ret_gid = gr->gr_gid;
        return 0;
}

static int parse_mode(const char *s, mode_t *ret)
{
        if (!*s || strlen(s) > 6)
                return -EINVAL;
        for (const char *p = s; *p; p++)
                if (*p < '0' || *p > '7')
                        return -EINVAL;
        unsigned long v = strtoul(s, NULL, 8);
        if (v > 07777)
                return -EINVAL;
        *ret = (mode_t)v;
        return 0;
}

/* A move target stays below the /dev root: relative, no "." or ".." component, no control
 * characters. A trailing '/' is allowed ("dir/"). */
static bool path_safe(const char *p)
{
        if (!*p || *p == '/')
                return false;
        for (const char *c = p; *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                        return false;
        for (const char *c = p; *c;) {
                size_t n = strcspn(c, "/");
                if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                c += n;
                if (*c == '/') {
                        c++;
                        if (*c == '/')
                                return false; /* an empty component */
                }
        }
        return true;
}

/* "NAME=regex;" prefixes, then "@maj,min[-min2]", "$VAR=regex" or a regex. 0 or -EINVAL
 * (*why set, or NULL when out of memory: then -ENOMEM). */
static int parse_match(struct mdev_rule *r, char *f, char **why)
{
        int k;

        if (*f == '-') {
                r->keep_matching = true;
                f++;
        }
        /* VAR=regex; prefixes: a name of word characters, '=', up to the next ';' */
        for (;;) {
                char *semi = strchr(f, ';');
                size_t n = strspn(f, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
                if (!semi || n == 0 || f[n] != '=' || f + n > semi)
                        break;
                struct mdev_env_match *l = realloc(r->env, (r->n_env + 1) * sizeof(*l));
                if (!l)
                        return -ENOMEM;
                r->env = l;
                *semi = '\0';
                f[n] = '\0';
                struct mdev_env_match *m = &r->env[r->n_env];
                m->key = strdup(f);
                m->pattern = strdup(f + n + 1);
                if (!m->key || !m->pattern) {
                        free(m->key);
                        free(m->pattern);
                        return -ENOMEM;
                }
                if ((k = compile(&m->re, f + n + 1, why)) < 0) {
                        free(m->key);
                        free(m->pattern);
                        return k;
                }
                r->n_env++;
                f = semi + 1;
        }
        if (*f == '@') {
                unsigned maj, lo, hi;
                int used = 0;
                if (sscanf(f, "@%u,%u%n", &maj, &lo, &used) != 2) {
                        *why = why_new("bad device number match '%s'", f);
                        return -EINVAL;
                }
                hi = lo;
                if (f[used] == '-') {
                        int more = 0;
                        if (sscanf(f + used, "-%u%n", &hi, &more) != 1 || hi < lo) {
                                *why = why_new("bad minor range in '%s'", f);
                                return -EINVAL;
                        }
                        used += more;
                }
                if (f[used] != '\0') {
                        *why = why_new("bad device number match '%s'", f);
                        return -EINVAL;
                }
                r->kind = MDEV_MATCH_DEVT;
                r->major = maj;
                r->minor_lo = lo;
                r->minor_hi = hi;
                return 0;
        }
        if (*f == '$') {
                char *eq = strchr(f, '=');
                if (!eq || eq == f + 1) {
                        *why = why_new("'%s' is not $VAR=regex", f);
                        return -EINVAL;
                }
                r->envvar = strndup(f + 1, (size_t)(eq - f - 1));
                if (!r->envvar)
                        return -ENOMEM;
                f = eq + 1;
                r->kind = MDEV_MATCH_ENV;
        } else
                r->kind = MDEV_MATCH_NAME;
        r->pattern = strdup(f);
        if (!r->pattern)
                return -ENOMEM;
        k = compile(&r->re, f, why);
        if (k < 0)
                r->kind = MDEV_MATCH_DEVT; /* nothing compiled: nothing for rule_free() to free */
        return k;
}

/* The fourth field onwards: [=path|>path|!] [@|$|*command]. */
static int parse_tail(struct mdev_rule *r, char *s, char **why)
{
        if (*s == '=' || *s == '>' || *s == '!') {
                r->op = *s;
                size_t n = strcspn(s, " \t");
                if (r->op == '!' && n != 1) {
                        *why = why_new("'!' must stand alone");
                        return -EINVAL;
                }
                if (r->op != '!') {
                        r->path = strndup(s + 1, n - 1);
                        if (!r->path)
                                return -ENOMEM;
                        if (!path_safe(r->path)) {
                                *why = why_new("path '%s' leaves the /dev root", r->path);
                                return -EINVAL;
                        }
                }
                s += n;
                while (is_blank(*s))
                        s++;
        }
        if (!*s)
                return 0;
        if (*s != '@' && *s != '$' && *s != '*') {
                *why = why_new("'%s' is neither =path, >path, ! nor a @, $ or * command", s);
                return -EINVAL;
        }
        r->when = *s;
        if (s[1]) {
                r->cmd = strdup(s + 1);
                if (!r->cmd)
                        return -ENOMEM;
        }
        return 0;
}

/* Next whitespace-separated field of *s (NUL-terminated in place), or NULL. */
static char *next_field(char **s)
{
        char *p = *s;
        while (is_blank(*p))
                p++;
        if (!*p)
                return NULL;
        char *f = p;
        p += strcspn(p, " \t");
        if (*p)
                *p++ = '\0';
        *s = p;
        return f;
}

/* One line (modified in place). 1 with *ret, 0 for a blank or comment line, -EINVAL with
 * *why (NULL: out of memory), -ENOMEM. */
static int parse_line(char *line, unsigned lineno, struct mdev_rule **ret, char **why)
{
        _cleanup_free_ char *owner = NULL, *source = NULL;
        char *s = line, *f1, *f2, *f3;
        int k;

        while (is_blank(*s))
                s++;
        if (!*s || *s == '#')
                return 0;
        source = strdup(line); /* next_field() cuts line */
        if (!source)
                return -ENOMEM;
        f1 = next_field(&s);
        f2 = next_field(&s);
        f3 = next_field(&s);
        if (!f3) {
                *why = why_new("%d fields, at least 3 needed", f2 ? 2 : 1);
                return *why ? -EINVAL : -ENOMEM;
        }
        while (is_blank(*s))
                s++;
        /* trailing blanks are not part of a command */
        for (size_t n = strlen(s); n > 0 && is_blank(s[n - 1]); n--)
                s[n - 1] = '\0';

        struct mdev_rule *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->line = lineno;
        r->kind = MDEV_MATCH_DEVT; /* until a regex is compiled */
        r->source = TAKE_PTR(source);
        if ((k = parse_match(r, f1, why)) < 0)
                goto fail;
        owner = strdup(f2); /* parse_owner() cuts f2 at the ':' */
        if (!owner) {
                k = -ENOMEM;
                goto fail;
        }
        if (parse_owner(f2, &r->uid, &r->gid) < 0) {
                *why = why_new("unknown or bad user:group '%s'", owner);
                k = -EINVAL;
                goto fail;
        }
        if (parse_mode(f3, &r->mode) < 0) {
                *why = why_new("bad mode '%s' (octal, at most 07777)", f3);
                k = -EINVAL;
                goto fail;
        }
        if ((k = parse_tail(r, s, why)) < 0)
                goto fail;
        *ret = r;
        return 1;
fail:
        rule_free(r);
        if (k == -EINVAL && !*why)
                k = -ENOMEM;
        return k;
}

int mdev_conf_parse(const char *path, const char *text, struct mdev_conf **ret, unsigned *ret_bad)
{
        _cleanup_(mdev_conf_freep) struct mdev_conf *c = calloc(1, sizeof(*c));
        unsigned bad = 0, lineno = 0;

        if (!c || !(c->path = strdup(path)))
                return -ENOMEM;
        for (const char *p = text; *p;) {
                size_t n = strcspn(p, "\n");
                _cleanup_free_ char *line = strndup(p, n);
                _cleanup_free_ char *why = NULL;
                struct mdev_rule *r = NULL;
                if (!line)
                        return -ENOMEM;
                lineno++;
                p += n + (p[n] == '\n');
                int k = parse_line(line, lineno, &r, &why);
                if (k == -ENOMEM)
                        return k;
                if (k < 0) {
                        log_warning("%s:%u: %s, skipping the line.", path, lineno, why);
                        bad++;
                        continue;
                }
                if (k == 0)
                        continue;
                struct mdev_rule **l = realloc(c->rules, (c->n_rules + 1) * sizeof(*l));
                if (!l) {
                        rule_free(r);
                        return -ENOMEM;
                }
                c->rules = l;
                c->rules[c->n_rules++] = r;
        }
        if (ret_bad)
                *ret_bad = bad;
        *ret = TAKE_PTR(c);
        return 0;
}

int mdev_conf_load(const char *path, struct mdev_conf **ret, unsigned *ret_bad)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_full_file(path, &text, &len);
        if (r < 0)
                return r;
        if (memchr(text, '\0', len))
                return -EINVAL; /* not a text file */
        return mdev_conf_parse(path, text, ret, ret_bad);
}

void mdev_result_clear(struct mdev_result *r)
{
        for (size_t i = 0; i < r->n_actions; i++) {
                free(r->actions[i].node);
                free(r->actions[i].link);
                free(r->actions[i].mdev);
        }
        free(r->actions);
        *r = (struct mdev_result){0};
}

/* Whole-string match of re on s, subexpressions in m[0..9]. */
static bool full_match(const regex_t *re, const char *s, regmatch_t m[10])
{
        return regexec(re, s, 10, m, 0) == 0 && m[0].rm_so == 0 && (size_t)m[0].rm_eo == strlen(s);
}

/* path with %1 ... %9 replaced by the subexpressions of s (NULL for a devt line: empty); a
 * trailing '/' appends the device name. New string in *ret; 0 or -ENOMEM. */
static int build_path(const char *path, const char *s, const regmatch_t *m, const char *name, char **ret)
{
        size_t cap = strlen(path) + strlen(name) + 1, len = 0;
        for (const char *p = path; *p; p++)
                if (*p == '%' && p[1] >= '1' && p[1] <= '9' && s)
                        cap += strlen(s);
        char *out = malloc(cap);
        if (!out)
                return -ENOMEM;
        for (const char *p = path; *p; p++) {
                if (*p == '%' && p[1] >= '1' && p[1] <= '9') {
                        /* a devt line has no subexpressions: empty; a group of the regex that
                         * took no part in the match stays "%N", as busybox leaves it */
                        const regmatch_t *g = &m[p[1] - '0'];
                        if (s && g->rm_so < 0) {
                                out[len++] = *p;
                                continue;
                        }
                        if (s) {
                                memcpy(out + len, s + g->rm_so, (size_t)(g->rm_eo - g->rm_so));
                                len += (size_t)(g->rm_eo - g->rm_so);
                        }
                        p++;
                        continue;
                }
                out[len++] = *p;
        }
        out[len] = '\0';
        if (len > 0 && out[len - 1] == '/')
                strcpy(out + len, name);
        *ret = out;
        return 0;
}

static int push_action(struct mdev_result *res, struct mdev_action *a)
{
        struct mdev_action *l = realloc(res->actions, (res->n_actions + 1) * sizeof(*l));
        if (!l)
                return -ENOMEM;
        res->actions = l;
        res->actions[res->n_actions++] = *a;
        *a = (struct mdev_action){0};
        return 0;
}

static void action_done(struct mdev_action *a)
{
        free(a->node);
        free(a->link);
        free(a->mdev);
}

/* Whether the rule matches; the matched string and its subexpressions for %N. */
static bool rule_matches(const struct mdev_rule *r, const struct mdev_device *d, const char **ret_s,
                         regmatch_t m[10])
{
        for (size_t i = 0; i < r->n_env; i++) {
                const char *v = d->getenv(r->env[i].key, d->userdata);
                if (!v || !full_match(&r->env[i].re, v, m))
                        return false;
        }
        for (unsigned i = 0; i < 10; i++)
                m[i].rm_so = m[i].rm_eo = -1;
        *ret_s = NULL;
        switch (r->kind) {
        case MDEV_MATCH_DEVT:
                return d->has_devt && d->major == r->major && d->minor >= r->minor_lo &&
                       d->minor <= r->minor_hi;
        case MDEV_MATCH_ENV: {
                const char *v = d->getenv(r->envvar, d->userdata);
                *ret_s = v;
                return v && full_match(&r->re, v, m);
        }
        case MDEV_MATCH_NAME:
                *ret_s = d->name;
                return full_match(&r->re, d->name, m);
        }
        return false;
}

int mdev_conf_match(const struct mdev_conf *c, const struct mdev_device *d, enum uevent_action action,
                    struct mdev_result *ret)
{
        bool no_node = false; /* a '!' line matched: no node for it and every later line */
        bool node_op = d->has_devt;
        int k = 0;

        mdev_result_clear(ret);
        for (size_t i = 0; c && i <= c->n_rules; i++) {
                static const struct mdev_rule implicit = {.mode = MDEV_DEFAULT_MODE};
                const struct mdev_rule *r = i < c->n_rules ? c->rules[i] : &implicit;
                regmatch_t m[10];
                const char *s = NULL;
                struct mdev_action a = {.line = r->line, .mode = r->mode, .uid = r->uid, .gid = r->gid};

                if (r != &implicit && !rule_matches(r, d, &s, m))
                        continue;
                if (r != &implicit)
                        ret->matched = true;
                if (r->op == '=' || r->op == '>') {
                        k = build_path(r->path, s, m, d->name, &a.mdev);
                        if (k < 0)
                                goto fail;
                } else {
                        a.mdev = strdup(d->name);
                        if (!a.mdev) {
                                k = -ENOMEM;
                                goto fail;
                        }
                }
                /* %N may bring anything of the matched string, and the kernel's name is
                 * outside data too: both are checked before anything is made of them */
                a.unsafe = !devdir_name_valid(a.mdev) || !devdir_name_valid(d->name);
                if (r->op == '!')
                        no_node = true;
                if (node_op && !no_node && !a.unsafe) {
                        a.node = strdup(a.mdev);
                        bool link = r->op == '>' && !streq(a.node, d->name);
                        if (!a.node || (link && !(a.link = strdup(d->name)))) {
                                action_done(&a);
                                k = -ENOMEM;
                                goto fail;
                        }
                }
                if (r->cmd && (r->when == '*' || (r->when == '@' && action == UEVENT_ADD) ||
                               (r->when == '$' && action == UEVENT_REMOVE)))
                        a.cmd = r->cmd;
                if ((k = push_action(ret, &a)) < 0) {
                        action_done(&a);
                        goto fail;
                }
                if (!r->keep_matching)
                        break;
        }
        return 0;
fail:
        mdev_result_clear(ret);
        return k;
}
