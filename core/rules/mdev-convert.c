/* SPDX-License-Identifier: MIT */
#include "mdev-convert.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "macros.h"

/* A regex written as udev globs: the value matches when it matches pos ('|' separates
 * alternatives, as in a udev match) and, when neg is set, does not match neg. */
struct glob_form {
        char *pos;
        char *neg;
        bool empty; /* the regex matches the empty string */
};

static void glob_form_done(struct glob_form *g)
{
        free(g->pos);
        free(g->neg);
        *g = (struct glob_form){0};
}

/* A string built with open_memstream(). */
struct sbuf {
        char *s;
        size_t len;
        FILE *f;
};

static int sbuf_open(struct sbuf *b)
{
        *b = (struct sbuf){0};
        b->f = open_memstream(&b->s, &b->len);
        return b->f ? 0 : -ENOMEM;
}

/* Closes the stream: the string in b->s (the caller's), or -ENOMEM. */
static int sbuf_close(struct sbuf *b)
{
        int r = 0;
        if (b->f && (ferror(b->f) || fclose(b->f) != 0))
                r = -ENOMEM;
        b->f = NULL;
        return r;
}

static void sbuf_done(struct sbuf *b)
{
        if (b->f)
                fclose(b->f);
        free(b->s);
        *b = (struct sbuf){0};
}

/* A bracket expression at s ('['): its glob and the glob of its complement, *len its length.
 * 1, 0 with *why (not expressible), -ENOMEM. */
static int bracket(const char *s, size_t *len, char **ret_glob, char **ret_compl, const char **why)
{
        size_t i = 1;
        bool negated = false;

        if (s[i] == '^') {
                negated = true;
                i++;
        }
        size_t start = i;
        if (s[i] == ']')
                i++;
        for (;;) {
                if (!s[i]) {
                        *why = "an unterminated bracket expression";
                        return 0;
                }
                if (s[i] == ']')
                        break;
                if (s[i] == '[' && (s[i + 1] == '.' || s[i + 1] == '=')) {
                        *why = "a collating element or equivalence class";
                        return 0;
                }
                if (s[i] == '[' && s[i + 1] == ':') {
                        const char *e = strstr(s + i + 2, ":]");
                        if (!e) {
                                *why = "an unterminated character class";
                                return 0;
                        }
                        i = (size_t)(e - s) + 2;
                        continue;
                }
                if (s[i] == '\\') {
                        *why = "a backslash in a bracket expression (an escape in a glob)";
                        return 0;
                }
                if (s[i] == '|' || s[i] == '"') {
                        *why = "'|' or '\"' in a bracket expression (udev's alternatives, the file's quote)";
                        return 0;
                }
                i++;
        }
        const char *content = s + start;
        int n = (int)(i - start);
        /* '!' and '^' open a negation in a glob's bracket */
        if (content[0] == '!' || content[0] == '^') {
                *why = "'!' or '^' first in a bracket expression (a negation in a glob)";
                return 0;
        }
        if (asprintf(ret_glob, "[%s%.*s]", negated ? "!" : "", n, content) < 0)
                return -ENOMEM;
        if (asprintf(ret_compl, "[%s%.*s]", negated ? "" : "!", n, content) < 0) {
                free(*ret_glob);
                return -ENOMEM;
        }
        *len = i + 1;
        return 1;
}

static bool is_repeat(char c)
{
        return c == '*' || c == '+' || c == '?' || c == '{';
}

/* One branch (no top-level '|') s[0..n) as a glob. A trailing "atom*" or "atom+" (atom a
 * character or a bracket) becomes a pair: pos "P[atom]*" and neg "P*[!atom]*", exact when P
 * has no '*' (neg then says some character after P is not in the set); only with allow_tail.
 * 1, 0 with *why, -ENOMEM. */
static int branch_to_glob(const char *s, size_t n, bool allow_tail, struct glob_form *g, const char **why)
{
        _cleanup_(sbuf_done) struct sbuf pre = {0};
        _cleanup_free_ char *tail_glob = NULL, *tail_compl = NULL;
        bool star = false, tail_plus = false;
        size_t minlen = 0;
        int depth = 0;
        int r;

        if ((r = sbuf_open(&pre)) < 0)
                return r;
        for (size_t i = 0; i < n;) {
                char c = s[i];
                if (c == '^' || c == '$') {
                        if ((c == '^' && i == 0) || (c == '$' && i == n - 1)) {
                                i++;
                                continue;
                        }
                        *why = "an anchor inside the regex";
                        return 0;
                }
                if (c == '(' || c == ')') {
                        depth += c == '(' ? 1 : -1;
                        if (depth < 0) {
                                *why = "an unmatched ')'";
                                return 0;
                        }
                        if (c == ')' && i + 1 < n && is_repeat(s[i + 1])) {
                                *why = "a repeated or optional group";
                                return 0;
                        }
                        i++;
                        continue;
                }
                if (c == '|') {
                        *why = "an alternative inside a group";
                        return 0;
                }
                if (tail_glob) {
                        *why = "a repeated character or set that is not the last one";
                        return 0;
                }
                _cleanup_free_ char *ag = NULL, *ac = NULL;
                size_t len = 1;
                bool any = false;
                if (c == '.')
                        any = true;
                else if (c == '[') {
                        if ((r = bracket(s + i, &len, &ag, &ac, why)) <= 0)
                                return r;
                } else if (is_repeat(c)) {
                        *why = "a repetition with nothing to repeat";
                        return 0;
                } else {
                        char lit = c;
                        if (c == '\\') {
                                if (i + 1 >= n) {
                                        *why = "a trailing backslash";
                                        return 0;
                                }
                                lit = s[i + 1];
                                len = 2;
                                /* glibc gives escaped letters and digits meanings (\b, \w, \1) */
                                if (!strchr(".[]()*+?{}|^$\\", lit)) {
                                        *why = "an escape that is no literal character";
                                        return 0;
                                }
                        }
                        if (strchr("*?[]\\|\"", lit)) {
                                *why = "a character that is special in a udev match ('*', '?', '[', ']', "
                                       "'\\', '|', "
                                       "'\"')";
                                return 0;
                        }
                        if (asprintf(&ag, "%c", lit) < 0 || asprintf(&ac, "[!%c]", lit) < 0)
                                return -ENOMEM;
                }
                i += len;
                char q = i < n ? s[i] : '\0';
                unsigned count = 1;
                if (q == '{') {
                        char *end = NULL;
                        unsigned long v = strtoul(s + i + 1, &end, 10);
                        if (end == s + i + 1 || *end != '}' || v > 64) {
                                *why = "an interval other than {n} (n at most 64)";
                                return 0;
                        }
                        count = (unsigned)v;
                        i = (size_t)(end - s) + 1;
                } else if (is_repeat(q))
                        i++;
                else
                        q = '\0';
                if (q && i < n && is_repeat(s[i])) {
                        *why = "a repetition of a repetition";
                        return 0;
                }
                switch (q) {
                case '\0':
                case '{':
                        for (unsigned k = 0; k < count; k++)
                                fputs(any ? "?" : ag, pre.f);
                        minlen += count;
                        break;
                case '?':
                        *why = "an optional character ('?')";
                        return 0;
                default: /* '*' or '+' */
                        if (any) {
                                fputs(q == '+' ? "?*" : "*", pre.f);
                                star = true;
                                minlen += q == '+';
                                break;
                        }
                        /* only ')' and a final '$' may follow */
                        for (size_t k = i; k < n; k++)
                                if (s[k] != ')' && !(s[k] == '$' && k == n - 1)) {
                                        *why = "a repeated character or set that is not the last one";
                                        return 0;
                                }
                        if (!allow_tail) {
                                *why = "a repeated character or set in an alternative";
                                return 0;
                        }
                        if (star) {
                                *why = "a repeated character or set after '.*'";
                                return 0;
                        }
                        tail_glob = TAKE_PTR(ag);
                        tail_compl = TAKE_PTR(ac);
                        tail_plus = q == '+';
                        minlen += tail_plus;
                }
        }
        if ((r = sbuf_close(&pre)) < 0)
                return r;
        if (tail_glob) {
                if (asprintf(&g->pos, "%s%s*", pre.s, tail_plus ? tail_glob : "") < 0)
                        return -ENOMEM;
                if (asprintf(&g->neg, "%s*%s*", pre.s, tail_compl) < 0)
                        return -ENOMEM;
        } else {
                g->pos = TAKE_PTR(pre.s);
        }
        if (!*g->pos) {
                *why = "an empty match";
                return 0;
        }
        g->empty = minlen == 0;
        return 1;
}

/* The regex re (POSIX extended, matched against the whole string) as udev globs. 1, 0 with
 * *why when no glob matches exactly the same strings, -ENOMEM. */
static int regex_to_glob(const char *re, struct glob_form *ret, const char **why)
{
        _cleanup_(sbuf_done) struct sbuf all = {0};
        size_t n = strlen(re), start = 0, branches = 0;
        int depth = 0, r;
        bool empty = false;

        *ret = (struct glob_form){0};
        if ((r = sbuf_open(&all)) < 0)
                return r;
        /* split at top-level '|': brackets and escapes hide theirs */
        for (size_t i = 0; i <= n; i++) {
                if (i < n && re[i] == '\\' && i + 1 < n) {
                        i++;
                        continue;
                }
                if (i < n && re[i] == '[') {
                        size_t k = i + 1;
                        if (re[k] == '^')
                                k++;
                        if (re[k] == ']')
                                k++;
                        while (k < n && re[k] != ']') {
                                if (re[k] == '[' && re[k + 1] == ':') {
                                        const char *e = strstr(re + k + 2, ":]");
                                        k = e ? (size_t)(e - re) + 2 : n;
                                        continue;
                                }
                                k++;
                        }
                        i = k;
                        continue;
                }
                if (i < n && re[i] == '(')
                        depth++;
                if (i < n && re[i] == ')')
                        depth--;
                if (i < n && !(re[i] == '|' && depth == 0))
                        continue;
                branches++;
                _cleanup_(glob_form_done) struct glob_form b = {0};
                if (i == n && branches == 1)
                        return branch_to_glob(re, n, true, ret, why);
                if ((r = branch_to_glob(re + start, i - start, false, &b, why)) <= 0)
                        return r;
                fprintf(all.f, "%s%s", branches > 1 ? "|" : "", b.pos);
                empty = empty || b.empty;
                start = i + 1;
        }
        if ((r = sbuf_close(&all)) < 0)
                return r;
        ret->pos = TAKE_PTR(all.s);
        ret->empty = empty;
        return 1;
}

/* Reasons a line is not exact, one comment line each. */
struct notes {
        struct sbuf text;
        unsigned n;
};

_printf_(2, 3) static void note(struct notes *nt, const char *fmt, ...)
{
        va_list ap;
        fputs("# not exact: ", nt->text.f);
        va_start(ap, fmt);
        vfprintf(nt->text.f, fmt, ap);
        va_end(ap);
        fputc('\n', nt->text.f);
        nt->n++;
}

/* Appends the match of key (a udev key such as "ENV{X}") against regex pattern to m. 1,
 * 0 when it cannot be expressed (noted), -ENOMEM. */
static int add_glob_match(FILE *m, const char *key, const char *pattern, bool may_be_unset, struct notes *nt)
{
        _cleanup_(glob_form_done) struct glob_form g = {0};
        const char *why = NULL;
        int r = regex_to_glob(pattern, &g, &why);
        if (r < 0)
                return r;
        if (r == 0) {
                note(nt, "the regex '%s' is no glob: %s", pattern, why);
                return 0;
        }
        fprintf(m, "%s==\"%s\", ", key, g.pos);
        if (g.neg)
                fprintf(m, "%s!=\"%s\", ", key, g.neg);
        if (g.empty && may_be_unset) {
                /* udev gives an unset variable the value "" */
                fprintf(m, "%s==\"?*\", ", key);
                note(nt,
                     "'%s' matches the empty string: the rule requires %s to be set and not empty, mdev "
                     "only "
                     "to be set (udev cannot tell an empty variable from an unset one)",
                     pattern, key);
        }
        return 1;
}

/* VAR=regex (a prefix or $VAR=regex) against the environment mdev matches with. */
static int add_env_match(FILE *m, const char *var, const char *pattern, struct notes *nt)
{
        if (streq(var, "PATH") || streq(var, "HOME")) {
                note(nt,
                     "mdev matches %s in the environment it gives its commands (a default when the event "
                     "has none); udev sees only the event's",
                     var);
                return 0;
        }
        if (streq(var, "DEVNAME")) {
                /* mdev sees the kernel's DEVNAME, relative to /dev: that is $name when it is set */
                fputs("ENV{DEVNAME}==\"?*\", ", m);
                return add_glob_match(m, "ENV{.MDEV_NAME}", pattern, false, nt);
        }
        if (streq(var, "ACTION") || streq(var, "SUBSYSTEM") || streq(var, "DEVPATH"))
                return add_glob_match(m, var, pattern, false, nt);
        _cleanup_free_ char *key = NULL;
        if (asprintf(&key, "ENV{%s}", var) < 0)
                return -ENOMEM;
        return add_glob_match(m, key, pattern, true, nt);
}

/* s with '$' and '%' doubled (udev's substitutions) and '"' escaped (the rules file's
 * quoting); "'" as '"'"' when squote (inside a '...' argument of RUN). */
static void put_escaped(FILE *f, const char *s, bool squote)
{
        for (; *s; s++) {
                if (*s == '$' || *s == '%')
                        fputc(*s, f);
                if (*s == '"')
                        fputc('\\', f);
                if (squote && *s == '\'')
                        fputs("'\\\"'\\\"'", f);
                else
                        fputc(*s, f);
        }
}

/* The shell mdev's commands get, from udev's RUN environment: the /dev root as the working
 * directory (busybox runs them in /dev), DEVNAME relative to it as the kernel gave it, MDEV the
 * device name, PATH and HOME as the kernel gives hotplug helpers when the event has none. $1
 * is the root, $2 the command; no single quote in here. */
static const char wrapper[] = "cd \"$1\" || exit 1; unset OLDPWD; "
                              "if [ -n \"${DEVNAME+x}\" ]; then DEVNAME=${DEVNAME#\"$1\"/}; MDEV=$DEVNAME; "
                              "else MDEV=${DEVPATH##*/}; fi; "
                              "case \"$(export -p)\" in *\"export PATH=\"*) ;; *) export "
                              "PATH=/sbin:/bin:/usr/sbin:/usr/bin;; esac; "
                              "case \"$(export -p)\" in *\"export HOME=\"*) ;; *) export HOME=/;; esac; "
                              "export MDEV; exec /bin/sh -c \"$2\"";

static void put_run(FILE *f, const char *cmd)
{
        fputs("RUN+=\"/bin/sh -c '", f);
        put_escaped(f, wrapper, false);
        fputs("' sh $root '", f);
        put_escaped(f, cmd, true);
        fputs("'\"", f);
}

static int convert_rule(const char *path, const struct mdev_rule *r, FILE *out, unsigned *inexact)
{
        _cleanup_(sbuf_done) struct sbuf m = {0};
        _cleanup_(sbuf_done) struct sbuf acts = {0};
        struct notes nt = {0};
        bool expressible = true;
        int k;

        if ((k = sbuf_open(&m)) < 0 || (k = sbuf_open(&acts)) < 0 || (k = sbuf_open(&nt.text)) < 0)
                goto finish;
        for (size_t i = 0; i < r->n_env; i++) {
                k = add_env_match(m.f, r->env[i].key, r->env[i].pattern, &nt);
                if (k < 0)
                        goto finish;
                expressible = expressible && k > 0;
        }
        switch (r->kind) {
        case MDEV_MATCH_NAME:
                k = add_glob_match(m.f, "ENV{.MDEV_NAME}", r->pattern, false, &nt);
                break;
        case MDEV_MATCH_ENV:
                k = add_env_match(m.f, r->envvar, r->pattern, &nt);
                break;
        case MDEV_MATCH_DEVT:
                if (r->minor_hi - r->minor_lo >= 256) {
                        note(&nt, "a range of more than 256 minors");
                        k = 0;
                        break;
                }
                fprintf(m.f, "ENV{MAJOR}==\"%u\", ENV{MINOR}==\"", r->major);
                for (unsigned v = r->minor_lo; v <= r->minor_hi; v++)
                        fprintf(m.f, "%s%u", v > r->minor_lo ? "|" : "", v);
                fputs("\", ", m.f);
                k = 1;
                break;
        }
        if (k < 0)
                goto finish;
        expressible = expressible && k > 0;
        if ((k = sbuf_close(&m)) < 0)
                goto finish;

        if (r->op == '!')
                note(&nt,
                     "'!': udev cannot leave a device without its node (devtmpfs or devman makes it at the "
                     "kernel name); here it keeps the access earlier lines gave");
        else
                fprintf(acts.f, "OWNER=\"%u\", GROUP=\"%u\", MODE=\"%04o\", ", (unsigned)r->uid,
                        (unsigned)r->gid, (unsigned)r->mode);
        if (r->op == '=' || r->op == '>') {
                note(&nt,
                     "'%c%s': udev 252 renames only network interfaces, so the node stays at the kernel "
                     "name%s%s",
                     r->op, r->path, strchr(r->path, '%') ? "" : " and a symlink has the name mdev gives it",
                     r->cmd ? "; the command's MDEV is the kernel name" : "");
                if (!strchr(r->path, '%')) {
                        fputs("SYMLINK+=\"", acts.f);
                        put_escaped(acts.f, r->path, false);
                        if (r->path[strlen(r->path) - 1] == '/')
                                fputs("$name", acts.f);
                        fputs("\", ", acts.f);
                }
        }
        if (!r->keep_matching)
                fputs("GOTO=\"mdev_end\", ", acts.f);
        if ((k = sbuf_close(&acts)) < 0)
                goto finish;

        bool run = r->cmd && !strstr(r->cmd, "\\\"");
        if (r->cmd && !run)
                note(&nt, "the command holds '\\\"', which a udev rules value cannot carry");
        if (run && r->when == '$')
                note(&nt, "the '$' command runs after the node is removed (udev runs RUN last); mdev runs "
                          "it before");
        if (run && r->when == '*')
                note(&nt,
                     "on remove events the '*' command runs after the node is removed (udev runs RUN last); "
                     "mdev runs it before");
        if ((k = sbuf_close(&nt.text)) < 0)
                goto finish;

        fprintf(out, "\n# %s:%u: %s\n%s", path, r->line, r->source, nt.text.s ? nt.text.s : "");
        if (!expressible) {
                fputs("# (left out: a device this line would stop at goes on to the lines below)\n", out);
                goto finish;
        }
        if (run) {
                fputs(m.s, out);
                if (r->when == '@')
                        fputs("ACTION==\"add\", ", out);
                else if (r->when == '$')
                        fputs("ACTION==\"remove\", ", out);
                put_run(out, r->cmd);
                fputc('\n', out);
        }
        if (acts.len > 0)
                fprintf(out, "%s%.*s\n", m.s, (int)(acts.len - 2), acts.s);
        k = 0;
finish:
        if (k >= 0 && nt.n > 0)
                (*inexact)++;
        sbuf_done(&nt.text);
        return k;
}

int mdev_conf_convert(const struct mdev_conf *c, FILE *out, unsigned *ret_inexact)
{
        unsigned inexact = 0;
        int r;

        fprintf(out,
                "# udev rules converted from %s by devmanadm mdev-convert.\n"
                "# Install them as the last rules file (such as 99-mdev.rules): mdev.conf has the last "
                "word.\n"
                "# Each line becomes the rules below its comment; the first matching line ends the file\n"
                "# (GOTO), a '-' line does not. mdev matches the device name (the kernel's DEVNAME, else\n"
                "# the sysname): $name, kept in ENV{.MDEV_NAME}. Regexes are written as globs only where\n"
                "# they match the same names (\"x[0-9]+\" as x[0-9]* and not x*[!0-9]*). Owners and groups\n"
                "# are numbers as resolved here. Commands run as mdev runs them: /bin/sh -c in the /dev\n"
                "# root, with MDEV and DEVNAME relative to /dev. \"# not exact:\" says what differs.\n"
                "\n"
                "KERNEL==\"*\", ENV{.MDEV_NAME}=\"$name\"\n",
                c->path);
        for (size_t i = 0; i < c->n_rules; i++)
                if ((r = convert_rule(c->path, c->rules[i], out, &inexact)) < 0)
                        return r;
        fputs("\n# busybox's implicit last line: the node at the device name, 0660 root:root\n"
              "KERNEL==\"*\", OWNER=\"0\", GROUP=\"0\", MODE=\"0660\"\n"
              "\n"
              "LABEL=\"mdev_end\"\n"
              "KERNEL==\"*\", ENV{.MDEV_NAME}=\"\"\n",
              out);
        if (ferror(out))
                return -EIO;
        if (ret_inexact)
                *ret_inexact = inexact;
        return 0;
}
