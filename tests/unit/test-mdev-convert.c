/* SPDX-License-Identifier: MIT */
/* mdev-convert: regexes written as globs only where exact (the trailing-repetition pair,
 * anchors, alternatives, groups), every form no glob expresses left out with its reason, the
 * variable, DEVNAME and devt matches, first match (GOTO) against '-', the access, '!', moved
 * nodes, and the commands' quoting through udev's substitutions and argv splitting; random regexes
 * (20000: characters, and well-formed pieces) whose globs must match exactly what glibc's regex
 * matches on every short name. */
#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "mdev-convert.h"
#include "test-util.h"

/* The rules for text (one mdev.conf); *inexact the lines marked. New string. */
static char *convert(const char *text, unsigned expect_inexact)
{
        struct mdev_conf *c = NULL;
        char *out = NULL;
        size_t len = 0;
        unsigned inexact = 99;
        CHECK_INT(mdev_conf_parse("t.conf", text, &c, NULL), 0);
        FILE *f = open_memstream(&out, &len);
        CHECK(f != NULL);
        CHECK_INT(mdev_conf_convert(c, f, &inexact), 0);
        CHECK_INT(fclose(f), 0);
        CHECK_INT((int)inexact, (int)expect_inexact);
        mdev_conf_free(c);
        return out;
}

/* The text converted from line (its comment on), up to the next line's comment or the end. */
static char *section(const char *out, unsigned line)
{
        char head[32];
        snprintf(head, sizeof(head), "# t.conf:%u: ", line);
        const char *s = strstr(out, head);
        CHECK(s != NULL);
        const char *e = strstr(s + 1, "\n# t.conf:");
        if (!e)
                e = strstr(s, "\n# busybox's implicit");
        CHECK(e != NULL);
        return strndup(s, (size_t)(e - s));
}

#define HAS(sec, str)                                                                                       \
        do {                                                                                                \
                if (!strstr(sec, str)) {                                                                    \
                        fprintf(stderr, "missing <%s> in:\n%s\n", str, sec);                                \
                        CHECK(false);                                                                       \
                }                                                                                           \
        } while (0)

static void expect(const char *out, unsigned line, const char *const *has, const char *const *lacks)
{
        char *s = section(out, line);
        for (; has && *has; has++)
                HAS(s, *has);
        for (; lacks && *lacks; lacks++)
                if (strstr(s, *lacks)) {
                        fprintf(stderr, "unexpected <%s> in:\n%s\n", *lacks, s);
                        CHECK(false);
                }
        free(s);
}

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_globs(void)
{
        char *out = convert("tty[0-9]+ 0:0 600\n"    /* 1 */
                            "tty[0-9]* 0:0 600\n"    /* 2 */
                            "sd[a-z].* 0:0 600\n"    /* 3 */
                            "^null$ 0:0 600\n"       /* 4 */
                            "a|b|c[^0-9] 0:0 600\n"  /* 5 */
                            "(input)/(.+) 0:0 600\n" /* 6 */
                            "x.{3}y 0:0 600\n"       /* 7 */
                            "x[0-9]? 0:0 600\n"      /* 8: optional */
                            "(ab)+ 0:0 600\n"        /* 9: repeated group */
                            "a.*b+ 0:0 600\n"        /* 10: tail after .* */
                            "a[0-9]+b 0:0 600\n"     /* 11: repetition not last */
                            "a\\*b 0:0 600\n"        /* 12: '*' literal */
                            "[!a]x 0:0 600\n"        /* 13: '!' first */
                            "a(b|c) 0:0 600\n"       /* 14: alternative in a group */
                            "x|y[0-9]+ 0:0 600\n"    /* 15: repetition in an alternative */
                            "a^b 0:0 600\n",         /* 16: inner anchor */
                            9);
        expect(out, 1, L("ENV{.MDEV_NAME}==\"tty[0-9]*\", ENV{.MDEV_NAME}!=\"tty*[!0-9]*\", OWNER="), NULL);
        expect(out, 2, L("ENV{.MDEV_NAME}==\"tty*\", ENV{.MDEV_NAME}!=\"tty*[!0-9]*\", "), NULL);
        expect(out, 3, L("ENV{.MDEV_NAME}==\"sd[a-z]*\", OWNER"), L("!=", "not exact"));
        expect(out, 4, L("ENV{.MDEV_NAME}==\"null\", "), L("not exact"));
        expect(out, 5, L("ENV{.MDEV_NAME}==\"a|b|c[!0-9]\", "), L("not exact"));
        expect(out, 6, L("ENV{.MDEV_NAME}==\"input/?*\", "), L("not exact"));
        expect(out, 7, L("ENV{.MDEV_NAME}==\"x???y\", "), L("not exact"));
        static const struct {
                unsigned line;
                const char *why;
        } out_of_glob[] = {
                {8, "an optional character"},
                {9, "a repeated or optional group"},
                {10, "after '.*'"},
                {11, "not the last one"},
                {12, "special in a udev match"},
                {13, "'!' or '^' first in a bracket"},
                {14, "an alternative inside a group"},
                {15, "in an alternative"},
                {16, "an anchor inside"},
        };
        for (size_t i = 0; i < ELEMENTSOF(out_of_glob); i++)
                expect(out, out_of_glob[i].line,
                       L("# not exact: the regex", out_of_glob[i].why, "# (left out"), L("ENV{", "GOTO"));
        free(out);
}

static void test_keys(void)
{
        char *out = convert("@4,64-67 0:0 600\n"                         /* 1 */
                            "@4,0-300 0:0 600\n"                         /* 2: too many minors */
                            "$PATH=/bin.* 0:0 600\n"                     /* 3 */
                            "$FOO=.* 0:0 600\n"                          /* 4: empty matches */
                            "DEVNAME=sd.*;SUBSYSTEM=block;.* 0:0 600\n"  /* 5 */
                            "ACTION=add;$DEVPATH=/devices/.* 0:0 600\n", /* 6 */
                            3);
        expect(out, 1, L("ENV{MAJOR}==\"4\", ENV{MINOR}==\"64|65|66|67\", OWNER"), L("not exact"));
        expect(out, 2, L("# not exact: a range of more than 256 minors", "# (left out"), L("ENV{"));
        expect(out, 3, L("# not exact: mdev matches PATH", "# (left out"), L("ENV{PATH}"));
        expect(out, 4,
               L("ENV{FOO}==\"*\", ENV{FOO}==\"?*\", ", "# not exact: '.*' matches the empty string"), NULL);
        expect(out, 5,
               L("ENV{DEVNAME}==\"?*\", ENV{.MDEV_NAME}==\"sd*\", SUBSYSTEM==\"block\", "
                 "ENV{.MDEV_NAME}==\"*\", "),
               L("not exact"));
        expect(out, 6, L("ACTION==\"add\", DEVPATH==\"/devices/*\", "), L("not exact"));
        free(out);
}

static void test_actions(void)
{
        char *out = convert("-any 1:2 0640\n"                 /* 1 */
                            "a 3:4 4755\n"                    /* 2 */
                            "b 0:0 600 !\n"                   /* 3 */
                            "c 0:0 600 =d/\n"                 /* 4 */
                            "e([0-9]) 0:0 600 >e/%1\n"        /* 5 */
                            "f 0:0 600 @echo 'q' \"$X\" 5%\n" /* 6 */
                            "g 0:0 600 $rm g\n"               /* 7 */
                            "h 0:0 600 *echo \\\"x\n",        /* 8 */
                            5);
        expect(out, 1, L("OWNER=\"1\", GROUP=\"2\", MODE=\"0640\"\n"), L("GOTO", "not exact"));
        expect(out, 2, L("OWNER=\"3\", GROUP=\"4\", MODE=\"4755\", GOTO=\"mdev_end\"\n"), NULL);
        expect(out, 3, L("# not exact: '!'", "ENV{.MDEV_NAME}==\"b\", GOTO=\"mdev_end\"\n"), L("MODE"));
        expect(out, 4, L("# not exact: '=d/'", "SYMLINK+=\"d/$name\", GOTO"), NULL);
        expect(out, 5, L("# not exact: '>e/%1'", "MODE=\"0600\", GOTO"), L("SYMLINK"));
        /* udev's $ and % doubled, "'" closed, quoted and reopened, '"' escaped for the file */
        expect(out, 6,
               L("ENV{.MDEV_NAME}==\"f\", ACTION==\"add\", RUN+=\"/bin/sh -c '",
                 "' sh $root 'echo '\\\"'\\\"'q'\\\"'\\\"' \\\"$$X\\\" 5%%'\"\n"),
               L("not exact"));
        expect(out, 7, L("ACTION==\"remove\", RUN+=", "# not exact: the '$' command runs after"), NULL);
        expect(out, 8, L("# not exact: the command holds"), L("RUN+="));
        /* first match: the implicit last line comes before the label */
        const char *impl = strstr(out, "KERNEL==\"*\", OWNER=\"0\", GROUP=\"0\", MODE=\"0660\"\n");
        const char *label = strstr(out, "LABEL=\"mdev_end\"");
        CHECK(impl && label && impl < label);
        CHECK(strstr(out, "KERNEL==\"*\", ENV{.MDEV_NAME}=\"$name\"\n") != NULL);
        free(out);
}

/* The value of key==" or key!=" in line, or NULL. New string. */
static char *value_of(const char *line, const char *key)
{
        const char *s = strstr(line, key);
        if (!s)
                return NULL;
        s += strlen(key);
        const char *e = strchr(s, '"');
        CHECK(e != NULL);
        return strndup(s, (size_t)(e - s));
}

static bool glob_any(const char *alts, const char *s)
{
        char *copy = strdup(alts), *save = NULL;
        bool hit = false;
        for (char *w = strtok_r(copy, "|", &save); w && !hit; w = strtok_r(NULL, "|", &save))
                hit = fnmatch(w, s, 0) == 0;
        free(copy);
        return hit;
}

/* Random regexes: each one written as globs matches exactly the names the regex matches
 * (whole-string, as mdev), on every name of up to 4 characters of "ab0.". */
static void test_exact_on_names(void)
{
        static const char atoms[] = "ab0w.*+?[]^$()|{}2,-\\";
        static const char *const tokens[] = {"a", "b", "0",   ".",           "[ab]", "[^a]", "[0-9]",
                                             "(", ")", "*",   "+",           "?",    "{2}",  "|",
                                             "^", "$", "\\.", "[[:digit:]]", ".*",   "a+"};
        static const char alphabet[] = "ab0.";
        unsigned converted = 0, compared = 0;
        srand(30);
        for (unsigned round = 0; round < 20000; round++) {
                char re[128];
                size_t n = 1 + (size_t)rand() % 8;
                if (round % 2) {
                        /* well-formed pieces, so brackets, groups and repetitions come up */
                        re[0] = '\0';
                        for (size_t i = 0; i < n; i++)
                                strcat(re, tokens[(size_t)rand() % ELEMENTSOF(tokens)]);
                } else {
                        for (size_t i = 0; i < n; i++)
                                re[i] = atoms[(size_t)rand() % (sizeof(atoms) - 1)];
                        re[n] = '\0';
                }
                if (re[0] == '-' || re[0] == '@' || re[0] == '$')
                        continue; /* mdev's own markers, not part of the regex */
                regex_t rx;
                if (regcomp(&rx, re, REG_EXTENDED) != 0)
                        continue;
                char *text = NULL;
                CHECK(asprintf(&text, "%s 0:0 600\n", re) > 0);
                struct mdev_conf *c = NULL;
                unsigned bad = 0;
                CHECK_INT(mdev_conf_parse("t.conf", text, &c, &bad), 0);
                char *out = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&out, &len);
                CHECK_INT(mdev_conf_convert(c, f, NULL), 0);
                CHECK_INT(fclose(f), 0);
                const char *rule = strstr(out, "\nENV{.MDEV_NAME}==\"");
                char *pos = rule ? value_of(rule, "ENV{.MDEV_NAME}==\"") : NULL;
                char *neg = rule ? value_of(rule, "ENV{.MDEV_NAME}!=\"") : NULL;
                if (pos) {
                        converted++;
                        char name[5];
                        for (unsigned l = 1; l <= 4; l++) {
                                unsigned total = 1;
                                for (unsigned k = 0; k < l; k++)
                                        total *= 4;
                                for (unsigned v = 0; v < total; v++) {
                                        unsigned x = v;
                                        for (unsigned k = 0; k < l; k++, x /= 4)
                                                name[k] = alphabet[x % 4];
                                        name[l] = '\0';
                                        regmatch_t m[1];
                                        bool want = regexec(&rx, name, 1, m, 0) == 0 && m[0].rm_so == 0 &&
                                                    (size_t)m[0].rm_eo == l;
                                        bool got =
                                                glob_any(pos, name) && !(neg && fnmatch(neg, name, 0) == 0);
                                        if (want != got)
                                                fprintf(stderr,
                                                        "regex '%s' glob '%s' not '%s': '%s' %d/%d\n", re,
                                                        pos, neg ? neg : "", name, want, got);
                                        CHECK(want == got);
                                        compared++;
                                }
                        }
                }
                free(pos);
                free(neg);
                free(out);
                free(text);
                mdev_conf_free(c);
                regfree(&rx);
        }
        fprintf(stderr, "%u regexes written as globs, %u names compared\n", converted, compared);
        CHECK(converted > 100);
}

TEST_MAIN(TEST(test_globs), TEST(test_keys), TEST(test_actions), TEST(test_exact_on_names))
