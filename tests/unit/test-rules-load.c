/* SPDX-License-Identifier: MIT */
/*
 * Loading rules directories below a private root: priority of directories, same-name
 * override, masking, lexical order across directories, only *.rules, a caller-given directory
 * list, extra files, and the "changed since load" check.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>

#include "rules-load.h"
#include "test-tmpdir.h"
#include "test-util.h"

static char *root;

static void put(const char *rel, const char *content)
{
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s%s", root, rel);
        for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
                *s = '\0';
                mkdir(p, 0755);
                *s = '/';
        }
        FILE *f = fopen(p, "we");
        fputs(content, f);
        fclose(f);
}

/* The value of ENV{SRC} each loaded line assigns, in order, joined by spaces. */
static void sources(const struct rules *rules, char *buf, size_t n)
{
        buf[0] = '\0';
        for (size_t i = 0; i < rules->n_lines; i++) {
                const struct rule_line *l = &rules->lines[i];
                for (unsigned k = 0; k < l->n_tokens; k++)
                        if (l->tokens[k].type == TK_A_ENV)
                                snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? " " : "",
                                         l->tokens[k].value);
        }
}

static void test_directories(void)
{
        root = test_tmpdir_new("rules-load");
        put("/etc/udev/rules.d/50-a.rules", "ENV{SRC}=\"etc-50a\"\n");
        put("/lib/udev/rules.d/50-a.rules", "ENV{SRC}=\"lib-50a\"\n");
        put("/run/udev/rules.d/10-b.rules", "ENV{SRC}=\"run-10b\"\n");
        put("/usr/lib/udev/rules.d/99-c.rules", "ENV{SRC}=\"usrlib-99c\"\n");
        put("/usr/local/lib/udev/rules.d/20-d.rules", "ENV{SRC}=\"local-20d\"\n");
        put("/lib/udev/rules.d/30-e.rules", "ENV{SRC}=\"lib-30e\"\n");
        put("/lib/udev/rules.d/30-e.rules.bak", "ENV{SRC}=\"not-rules\"\n");
        put("/lib/udev/rules.d/README", "junk\n");
        put("/lib/udev/rules.d/60-masked.rules", "ENV{SRC}=\"masked\"\n");
        put("/lib/udev/rules.d/61-empty-masked.rules", "ENV{SRC}=\"masked-by-empty\"\n");
        put("/etc/udev/rules.d/61-empty-masked.rules", "");
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/etc/udev/rules.d/60-masked.rules", root);
        CHECK_INT(symlink("/dev/null", p), 0);

        struct rules_load_options o = {.root = root};
        struct rules *rules = NULL;
        CHECK_INT(rules_load(&o, &rules), 0);
        char buf[512];
        sources(rules, buf, sizeof(buf));
        CHECK_STR(buf, "run-10b local-20d lib-30e etc-50a usrlib-99c");
        CHECK(!rules_changed_since_load(rules));

        /* a changed file, a new file, a removed file: each is noticed */
        struct timespec ts[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
        snprintf(p, sizeof(p), "%s/lib/udev/rules.d/30-e.rules", root);
        CHECK_INT(utimensat(AT_FDCWD, p, ts, 0), 0);
        CHECK(rules_changed_since_load(rules));
        rules_free(rules);

        CHECK_INT(rules_load(&o, &rules), 0);
        CHECK(!rules_changed_since_load(rules));
        snprintf(p, sizeof(p), "%s/run/udev/rules.d", root);
        CHECK_INT(utimensat(AT_FDCWD, p, ts, 0), 0); /* what adding a file does to its directory */
        CHECK(rules_changed_since_load(rules));
        rules_free(rules);

        /* a caller-given directory list replaces the defaults; errors are counted */
        put("/mine/10-x.rules", "ENV{SRC}=\"mine-10x\"\nBROKEN\n");
        put("/other/05-y.rules", "ENV{SRC}=\"other-05y\"\n");
        put("/extra.rules", "ENV{SRC}=\"extra\"\n");
        char d1[PATH_MAX], d2[PATH_MAX], x1[PATH_MAX];
        snprintf(d1, sizeof(d1), "%s/mine", root);
        snprintf(d2, sizeof(d2), "%s/other", root);
        snprintf(x1, sizeof(x1), "%s/extra.rules", root);
        char *dirs[] = {d1, d2, NULL};
        char *files[] = {x1, NULL};
        struct rules_load_options o2 = {.dirs = dirs, .files = files};
        CHECK_INT(rules_load(&o2, &rules), 1);
        sources(rules, buf, sizeof(buf));
        CHECK_STR(buf, "other-05y mine-10x extra");
        CHECK_INT(rules->n_errors, 1);
        rules_free(rules);

        /* an unreadable extra file is an error, not a crash */
        char *missing[] = {(char *)"/nonexistent/devman.rules", NULL};
        struct rules_load_options o3 = {.dirs = dirs, .files = missing};
        CHECK_INT(rules_load(&o3, &rules), 2);
        rules_free(rules);

        root = test_tmpdir_remove(root);
}

TEST_MAIN(TEST(test_directories))
