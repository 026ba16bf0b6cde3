/* SPDX-License-Identifier: MIT */
/*
 * The rules parser: every stock Debian rules file parses without an error; broken lines are
 * reported with the right file:line, dropped, and the rest of the file still loads; the
 * compiled form (token order, patterns, escapes, GOTO targets) is what udev(7) describes.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "cmdline.h"
#include "format.h"
#include "log.h"
#include "rules-load.h"
#include "rules-static.h"
#include "strv.h"
#include "test-util.h"

/* Parses text while capturing what is logged; returns the error count, *log the messages. */
static int parse_capture(struct rules *rules, const char *text, size_t len, char **log)
{
        char path[] = "/tmp/devman-rules-log-XXXXXX";
        int fd = mkstemp(path);
        unlink(path);
        fflush(stderr);
        int saved = dup(STDERR_FILENO);
        dup2(fd, STDERR_FILENO);
        int r = rules_parse_buffer(rules, "t.rules", text, len);
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
        off_t n = lseek(fd, 0, SEEK_END);
        *log = calloc(1, (size_t)n + 1);
        if (pread(fd, *log, (size_t)n, 0) < 0)
                (*log)[0] = '\0';
        close(fd);
        return r;
}

static void test_stock_rules(void)
{
        char *dirs[] = {(char *)"/lib/udev/rules.d", NULL};
        struct rules_load_options o = {.dirs = dirs};
        struct rules *rules = NULL;
        CHECK_INT(rules_load(&o, &rules), 0);
        CHECK(rules != NULL);
        if (!rules)
                return;
        CHECK_INT(rules->n_errors, 0);
        CHECK(rules->n_files >= 40);
        CHECK(rules->n_lines > 300);
        /* every GOTO of the stock files found its label */
        for (size_t i = 0; i < rules->n_lines; i++)
                if (rules->lines[i].flags & LINE_HAS_GOTO) {
                        const struct rule_line *t = &rules->lines[rules->lines[i].goto_line];
                        CHECK(t->label && streq(t->label, rules->lines[i].goto_label));
                        CHECK(t->file == rules->lines[i].file);
                }
        rules_free(rules);
}

/* Each broken line is alone on its line number; valid lines in between must survive. */
static const struct {
        const char *line;
        const char *what; /* a piece of the expected message */
} broken[] = {
        {"FOO==\"x\", ENV{A}=\"1\"", "Invalid key 'FOO'"},
        {"KERNEL=\"sda\", ENV{A}=\"1\"", "Invalid operator '=' for KERNEL"},
        {"KERNEL==\"sda\", ENV{A}=\"1", "missing closing quote"},
        {"KERNEL==\"sda\", ENV{A}=1", "double quotes"},
        {"ENV==\"x\", TAG+=\"a\"", "Invalid attribute for ENV"},
        {"ATTR{}==\"x\", TAG+=\"a\"", "Invalid attribute for ATTR"},
        {"RUN{builtin}+=\"nosuch arg\"", "Unknown builtin command 'nosuch arg'"},
        {"IMPORT{builtin}=\"nosuch\"", "Unknown builtin command: nosuch"},
        {"IMPORT{foo}=\"x\"", "Invalid attribute for IMPORT"},
        {"ENV{DEVPATH}=\"x\"", "'DEVPATH' cannot be set"},
        {"SYMLINK+=\"%q\"", "invalid substitution type"},
        {"SYMLINK+=\"$nosuch\"", "invalid substitution type"},
        {"ENV{A}=\"$env\"", "attribute value missing"},
        {"MODE=\"0999\"", "not an octal mode"},
        {"TEST{abc}==\"x\", TAG+=\"a\"", "Failed to parse mode 'abc'"},
        {"OPTIONS+=\"link_priority=abc\"", "link priority"},
        {"ACTION==\"add\", KERNEL{x}==\"y\", TAG+=\"a\"", "Invalid attribute for KERNEL"},
        {"NAME=\"%k\"", "NAME=\"%k\""},
        {"NAME=\"\"", "NAME=\"\""},
        {"ENV{A}=e\"\\q\"", "invalid escape sequence"},
        {"TAG+=\"a\"junk", "unexpected end of line after \"junk\""},
        {"CONST{foo}==\"x\", TAG+=\"a\"", "Invalid attribute for CONST"},
        {"SYMLINK-=\"x\"", "Invalid operator '-=' for SYMLINK"},
        {"LABEL:=\"x\"", "Invalid operator ':=' for LABEL"},
        {"GOTO+=\"x\"", "Invalid operator '+=' for GOTO"},
        {"ENV{A}=\"%c{abc}\"", "not a valid number"},
        {"ENV{A}=\"%k{x}\"", "unexpected attribute"},
        {"KERNEL==\"a\", RUN", "unexpected end of line"},
        {"ATTR{x=\"1\"", "missing '}'"},
        {"OPTIONS+=\"log_level=\"", "log level"},
        {"KERNEL==\"x\", GOTO=\"nowhere\"", "has no matching label"},
        {"KERNEL=~\"x\", TAG+=\"a\"", "Invalid value for KERNEL: value must be enclosed in double quotes"},
        {"KERNEL \"x\", TAG+=\"a\"", "no valid operator"},
        {"PROGRAM-=\"/bin/true\"", "Invalid operator '-=' for PROGRAM"},
        {"OWNER==\"root\"", "Invalid operator '==' for OWNER"},
        {"SECLABEL=\"x\"", "Invalid attribute for SECLABEL"},
};

static void test_broken_lines(void)
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        for (size_t i = 0; i < ELEMENTSOF(broken); i++) {
                fprintf(f, "KERNEL==\"ok%zu\", ENV{OK}=\"%zu\"\n", i, i); /* line 2i+1 */
                fprintf(f, "%s\n", broken[i].line);                      /* line 2i+2 */
        }
        fclose(f);

        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        char *log = NULL;
        int r = parse_capture(rules, text, len, &log);
        CHECK_INT(r, (int)ELEMENTSOF(broken));
        CHECK_INT(rules->n_errors, ELEMENTSOF(broken));
        /* every valid line survived, every broken one is gone, except the GOTO line, which is
         * kept without its GOTO (like udev) */
        size_t goto_idx = 30;
        CHECK(streq(broken[goto_idx].what, "has no matching label"));
        CHECK_INT(rules->n_lines, ELEMENTSOF(broken) + 1);
        for (size_t i = 0, k = 0; i < rules->n_lines; i++) {
                const struct rule_line *l = &rules->lines[i];
                if (l->line == 2 * goto_idx + 2) {
                        CHECK(!(l->flags & LINE_HAS_GOTO));
                        continue;
                }
                CHECK_INT(l->line, 2 * k + 1);
                k++;
        }
        for (size_t i = 0; i < ELEMENTSOF(broken); i++) {
                char want[64];
                snprintf(want, sizeof(want), "t.rules:%zu:", 2 * i + 2);
                /* one of the messages for that line says what is wrong */
                bool found = false;
                for (char *at = strstr(log, want); at && !found; at = strstr(at + 1, want)) {
                        char *what = strstr(at, broken[i].what), *eol = strchr(at, '\n');
                        found = what && (!eol || what < eol);
                }
                test_state.checks++;
                if (!found) {
                        test_state.failed_checks++;
                        fprintf(stderr, "broken line %zu (%s): expected \"%s %s\" in the log\n", i, broken[i].line,
                                want, broken[i].what);
                }
        }
        free(log);
        free(text);
        rules_free(rules);
}

static void test_missing_separator(void)
{
        static const char text[] = "KERNEL==\"a\"ENV{A}=\"1\",,  ,TAG+=\"t\"\n";
        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        char *log = NULL;
        CHECK_INT(parse_capture(rules, text, sizeof(text) - 1, &log), 0);
        CHECK(strstr(log, "t.rules:1: Missing ','") != NULL);
        CHECK_INT(rules->n_lines, 1);
        CHECK_INT(rules->lines[0].n_tokens, 3);
        free(log);
        rules_free(rules);
}

static void test_nul_and_garbage(void)
{
        static const char text[] = "KERNEL==\"a\0b\", TAG+=\"x\"\nTAG+=\"y\"\n\xff\xfe==\"\"\n";
        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        char *log = NULL;
        CHECK_INT(parse_capture(rules, text, sizeof(text) - 1, &log), 2);
        CHECK(strstr(log, "t.rules:1:") != NULL);
        CHECK(strstr(log, "t.rules:3:") != NULL);
        CHECK_INT(rules->n_lines, 1);
        CHECK_INT(rules->lines[0].line, 2);
        free(log);
        rules_free(rules);
}

static void test_continuation_comments(void)
{
        static const char text[] = "# a comment\n"
                                   "\n"
                                   "   # indented comment\n"
                                   "KERNEL==\"sda\", \\\n"
                                   "# a comment inside the continuation is skipped\n"
                                   "   ENV{A}=\"1\", \\\n"
                                   "   ENV{B}=\"2\"\r\n"
                                   "ENV{C}=\"3\"\n"
                                   "ENV{D}=\"4\" \\\n";
        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        char *log = NULL;
        CHECK_INT(parse_capture(rules, text, sizeof(text) - 1, &log), 0);
        CHECK_INT(rules->n_lines, 2);
        CHECK_INT(rules->lines[0].line, 7);
        CHECK_INT(rules->lines[0].n_tokens, 3);
        CHECK_INT(rules->lines[0].tokens[0].type, TK_M_KERNEL);
        CHECK_STR(rules->lines[0].tokens[2].value, "2");
        CHECK_INT(rules->lines[1].line, 8);
        CHECK(strstr(log, "ends inside a continued line") != NULL);
        free(log);
        rules_free(rules);
}

static void test_values_and_patterns(void)
{
        static const char text[] =
                "ENV{A}=\"x\", KERNEL==\"sd*|hd?|\", SUBSYSTEM==\"block\", ATTRS{x}==\"y\", PROGRAM=\"p\", RESULT==\"r\"\n"
                "ENV{B}=\"say \\\"hi\\\" \\n\", ENV{C}=e\"tab\\there\\x41\\101\\u00e9\\\\\"\n"
                "ENV{X}==\"?*\", ENV{Y}!=\"?*\", SUBSYSTEM==\"subsystem\", TAG+=\"t\"\n"
                "ATTR{a}==\"v \", ATTR{b}==\"v\", TAG+=\"t\"\n"
                "IMPORT{program}=\"path_id %p\"\n"
                "OWNER=\"root\", GROUP=\"0\", MODE=\"0640\", OWNER=\"no-such-user-devman\", TAG+=\"t\"\n"
                "KERNEL==\"onlymatch\"\n";
        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        char *log = NULL;
        CHECK_INT(parse_capture(rules, text, sizeof(text) - 1, &log), 0);
        CHECK_INT(rules->n_lines, 6);
        if (rules->n_lines != 6)
                goto out;

        /* sorted: SUBSYSTEM, KERNEL, ATTRS, PROGRAM, RESULT, ENV= */
        const struct rule_line *l = &rules->lines[0];
        static const int order[] = {TK_M_SUBSYSTEM, TK_M_KERNEL, TK_M_PARENTS_ATTR, TK_M_PROGRAM, TK_M_RESULT, TK_A_ENV};
        CHECK_INT(l->n_tokens, ELEMENTSOF(order));
        for (unsigned i = 0; i < l->n_tokens && i < ELEMENTSOF(order); i++)
                CHECK_INT(l->tokens[i].type, order[i]);
        CHECK_INT(l->tokens[1].n_alts, 2);
        CHECK_STR(l->tokens[1].alts[0].s, "sd*");
        CHECK(l->tokens[1].alts[0].glob);
        CHECK_STR(l->tokens[1].alts[1].s, "hd?");
        CHECK(l->tokens[1].match_empty);
        CHECK(!l->tokens[0].alts[0].glob);
        CHECK(l->flags & LINE_UPDATE_SOMETHING);

        l = &rules->lines[1];
        CHECK_STR(l->tokens[0].value, "say \"hi\" \\n");
        CHECK_STR(l->tokens[1].value, "tab\thereAA\xc3\xa9\\");

        l = &rules->lines[2];
        CHECK_INT(l->tokens[0].match_type, MATCH_SUBSYSTEM);
        CHECK_INT(l->tokens[1].match_type, MATCH_EMPTY);
        CHECK_INT(l->tokens[1].op, RULE_OP_NOMATCH);
        CHECK_INT(l->tokens[2].match_type, MATCH_EMPTY);
        CHECK_INT(l->tokens[2].op, RULE_OP_MATCH);

        l = &rules->lines[3];
        CHECK(!l->tokens[0].strip_ws);
        CHECK(l->tokens[1].strip_ws);

        l = &rules->lines[4];
        CHECK_INT(l->tokens[0].type, TK_M_IMPORT_BUILTIN);
        CHECK_STR(l->tokens[0].data.builtin->name, "path_id");

        l = &rules->lines[5];
        /* an unknown user stays as an assignment of "no owner" (udev 252: uid 4294967295) */
        CHECK_INT(l->n_tokens, 5);
        CHECK_INT(l->tokens[0].type, TK_A_OWNER_ID);
        CHECK_INT(l->tokens[0].data.uid, 0);
        CHECK_INT(l->tokens[1].type, TK_A_OWNER_ID);
        CHECK_INT(l->tokens[1].data.uid, (uid_t)-1);
        CHECK_INT(l->tokens[2].type, TK_A_GROUP_ID);
        CHECK_INT(l->tokens[3].type, TK_A_MODE_ID);
        CHECK_INT(l->tokens[3].data.mode, 0640);
        CHECK(strstr(log, "Unknown user 'no-such-user-devman'") != NULL);
        CHECK(strstr(log, "t.rules:7: The line takes no effect") != NULL);
out:
        free(log);
        rules_free(rules);
}

static void test_goto(void)
{
        static const char text[] = "LABEL=\"a\"\n"
                                   "KERNEL==\"x\", GOTO=\"a\"\n" /* backwards: not found */
                                   "KERNEL==\"y\", GOTO=\"b\"\n"
                                   "ENV{X}=\"1\"\n"
                                   "LABEL=\"b\"\n";
        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        char *log = NULL;
        CHECK_INT(parse_capture(rules, text, sizeof(text) - 1, &log), 1);
        CHECK(strstr(log, "t.rules:2: GOTO=\"a\" has no matching label") != NULL);
        CHECK_INT(rules->n_lines, 5);
        CHECK(rules->lines[2].flags & LINE_HAS_GOTO);
        CHECK_INT(rules->lines[2].goto_line, 4);
        /* GOTOs do not cross files */
        static const char other[] = "LABEL=\"c\"\n";
        static const char first[] = "KERNEL==\"z\", GOTO=\"c\"\n";
        free(log);
        CHECK_INT(parse_capture(rules, first, sizeof(first) - 1, &log), 1);
        free(log);
        CHECK_INT(rules_parse_buffer(rules, "u.rules", other, sizeof(other) - 1), 0);
        rules_free(rules);
}

static void test_format_check(void)
{
        static const struct {
                const char *s;
                int ok;
                size_t off;
        } t[] = {
                {"plain", 1, 0},        {"%k%n%p%b%d%M%m%c%P%N%r%S%D%L%%", 1, 0},
                {"$kernel$number$devpath$id$driver$major$minor$result$parent$name$links$root$sys$devnode$tempnode$$", 1, 0},
                {"%s{size}$attr{a}$sysfs{b}%E{X}$env{Y}%c{1}%c{2+}$result{3}", 1, 0},
                {"ab%q", 0, 2},         {"$nosuch", 0, 0},       {"%s", 0, 0},
                {"x$env{}", 0, 1},      {"%c{0}", 0, 0},         {"%c{1-}", 0, 0},
                {"%E{unterminated", 0, 0}, {"%", 0, 0},          {"a$", 0, 1},
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                size_t off = 99;
                const char *hint = NULL;
                int r = format_check(t[i].s, &off, &hint);
                CHECK_INT(r == 0, t[i].ok);
                if (!t[i].ok) {
                        CHECK_INT(off, t[i].off);
                        CHECK(hint != NULL);
                }
        }
}

/* Empty values systemd 252 accepts (it warns, keeps the key and the rest of the line; checked
 * with udevadm test on 252): each line must survive with the key's token. The refused ones
 * (NAME="", ENV{}=, link_priority=, log_level=) are in broken[]. */
static void test_empty_values(void)
{
        static const struct {
                const char *line;
                int type; /* the token the empty value leaves */
        } accepted[] = {
                {"TAG+=\"\"", TK_A_TAG},
                {"TAG=\"\"", TK_A_TAG},
                {"TAG-=\"\"", TK_A_TAG},
                {"TEST==\"\"", TK_M_TEST},
                {"PROGRAM==\"\"", TK_M_PROGRAM},
                {"IMPORT{file}==\"\"", TK_M_IMPORT_FILE},
                {"IMPORT{program}=\"\"", TK_M_IMPORT_BUILTIN}, /* udev 252: the first builtin, blkid */
                {"IMPORT{builtin}=\"\"", TK_M_IMPORT_BUILTIN},
                {"IMPORT{db}=\"\"", TK_M_IMPORT_DB},
                {"IMPORT{cmdline}=\"\"", TK_M_IMPORT_CMDLINE},
                {"IMPORT{parent}=\"\"", TK_M_IMPORT_PARENT},
                {"MODE=\"\"", TK_A_MODE},
                {"OWNER=\"\"", TK_A_OWNER_ID},
                {"GROUP=\"\"", TK_A_GROUP_ID},
                {"SECLABEL{selinux}=\"\"", TK_A_SECLABEL},
                {"RUN+=\"\"", TK_A_RUN_PROGRAM},
                {"RUN{builtin}+=\"\"", TK_A_RUN_BUILTIN},
                {"SYMLINK+=\"\"", TK_A_DEVLINK},
                {"ENV{X}=\"\"", TK_A_ENV},
                {"ATTR{x}=\"\"", TK_A_ATTR},
                {"OPTIONS+=\"static_node=\"", TK_A_ENV}, /* no token of its own: nothing to make */
        };
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        for (size_t i = 0; i < ELEMENTSOF(accepted); i++)
                fprintf(f, "KERNEL==\"x\", %s, ENV{OK}=\"%zu\"\n", accepted[i].line, i);
        fclose(f);
        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        char *log = NULL;
        CHECK_INT(parse_capture(rules, text, len, &log), 0);
        CHECK_INT(rules->n_errors, 0);
        CHECK_INT(rules->n_lines, ELEMENTSOF(accepted));
        for (size_t i = 0; i < rules->n_lines && i < ELEMENTSOF(accepted); i++) {
                const struct rule_line *l = &rules->lines[i];
                const struct rule_token *found = NULL;
                for (unsigned k = 0; k < l->n_tokens; k++)
                        if (l->tokens[k].type == accepted[i].type)
                                found = &l->tokens[k];
                CHECK(found != NULL);
                if (!found)
                        continue;
                if (found->type == TK_M_IMPORT_BUILTIN || found->type == TK_A_RUN_BUILTIN)
                        CHECK_STR(found->data.builtin->name, "blkid");
                if (found->type == TK_A_OWNER_ID)
                        CHECK_INT(found->data.uid, (uid_t)-1);
                if (found->type == TK_A_GROUP_ID)
                        CHECK_INT(found->data.gid, (gid_t)-1);
                bool ok = false; /* ENV{OK} is still there */
                for (unsigned k = 0; k < l->n_tokens; k++)
                        ok |= l->tokens[k].type == TK_A_ENV && streq(l->tokens[k].attr, "OK");
                CHECK(ok);
        }
        CHECK(strstr(log, "Empty value for TAG") != NULL);
        free(log);
        free(text);
        rules_free(rules);
}

/* Numeric OWNER/GROUP values, as strict as udev 252's: anything else is a name. */
static void test_parse_id(void)
{
        static const struct {
                const char *s;
                int r;
                uint32_t id;
        } cases[] = {
                {"0", 0, 0},
                {"1", 0, 1},
                {"1000", 0, 1000},
                {"4294967294", 0, 4294967294u},
                {"65534", 0, 65534},
                {"007", -EINVAL, 0},
                {"+5", -EINVAL, 0},
                {"-1", -EINVAL, 0},
                {" 1", -EINVAL, 0},
                {"1 ", -EINVAL, 0},
                {"", -EINVAL, 0},
                {"65535", -ERANGE, 0},
                {"4294967295", -ERANGE, 0},
                {"4294967296", -ERANGE, 0},
                {"12345678901", -EINVAL, 0},
                {"1a", -EINVAL, 0},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint32_t id = 0;
                CHECK_INT(rules_parse_id(cases[i].s, &id), cases[i].r);
                if (cases[i].r == 0)
                        CHECK_INT(id, cases[i].id);
        }
}

static void test_cmdline_split(void)
{
        char **argv = NULL;
        CHECK_INT(cmdline_split("  prog a 'b c' \"d 'e'\" f\"g h\"i  ", &argv), 0);
        CHECK_INT(strv_length(argv), 5);
        if (strv_length(argv) == 5) {
                CHECK_STR(argv[0], "prog");
                CHECK_STR(argv[2], "b c");
                CHECK_STR(argv[3], "d 'e'");
                CHECK_STR(argv[4], "fg hi");
        }
        strv_free(argv);
        CHECK_INT(cmdline_split("a 'b", &argv), -EINVAL);
        CHECK_INT(cmdline_split("", &argv), 0);
        CHECK_INT(strv_length(argv), 0);
        strv_free(argv);
}

static int static_cb(const char *name, mode_t mode, uid_t uid, gid_t gid, char *const *tags, void *userdata)
{
        char *out = userdata;
        _cleanup_free_ char *t = strv_join(tags, NULL, ",");
        char m[16] = "-";
        if (mode != (mode_t)-1)
                snprintf(m, sizeof(m), "%o", (unsigned)mode);
        snprintf(out + strlen(out), 256 - strlen(out), "%s:%s:%d:%d:%s;", name, m, (int)uid, (int)gid, t ? t : "");
        return 0;
}

static void test_static_nodes(void)
{
        static const char text[] = "KERNEL==\"x\", OWNER=\"0\", GROUP=\"0\", MODE=\"0660\", TAG+=\"uaccess\", "
                                   "TAG+=\"seat\", OPTIONS+=\"static_node=snd/seq\"\n"
                                   "KERNEL==\"y\", MODE=\"0600\"\n"
                                   "OPTIONS+=\"static_node=kvm\"\n"
                                   "OPTIONS+=\"static_node=../escape\"\n";
        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        char *log = NULL;
        CHECK_INT(parse_capture(rules, text, sizeof(text) - 1, &log), 1);
        CHECK(strstr(log, "t.rules:4: Invalid static_node name") != NULL);
        char out[256] = "";
        CHECK_INT(rules_foreach_static_node(rules, static_cb, out), 0);
        CHECK_STR(out, "snd/seq:660:0:0:uaccess,seat;kvm:-:-1:-1:;");
        free(log);
        rules_free(rules);
}

/* KERNEL== patterns whose alternatives all start with a literal byte give their line a
 * first-byte pre-filter; any other KERNEL match gives none. */
static void test_kernel_prefilter(void)
{
        static const char text[] = "KERNEL==\"sd*|vd*\", ENV{A}=\"1\"\n"
                                   "KERNEL==\"loop7\", ENV{A}=\"1\"\n"
                                   "KERNEL==\"*x\", ENV{A}=\"1\"\n"
                                   "KERNEL==\"sd*|[hv]d*\", ENV{A}=\"1\"\n"
                                   "KERNEL!=\"sd*\", ENV{A}=\"1\"\n"
                                   "KERNEL==\"|sd*\", ENV{A}=\"1\"\n"
                                   "KERNEL==\"\", ENV{A}=\"1\"\n"
                                   "ENV{A}=\"1\"\n";
        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        CHECK_INT(rules_parse_buffer(rules, "k.rules", text, sizeof(text) - 1), 0);
        CHECK_INT(rules->n_lines, 8);
        if (rules->n_lines == 8) {
                CHECK(rules->lines[0].flags & LINE_NEEDS_KERNEL);
                CHECK_INT(rules->lines[0].kernel_first, rules_prefilter_first_bit('s') | rules_prefilter_first_bit('v'));
                CHECK(rules->lines[1].flags & LINE_NEEDS_KERNEL);
                CHECK_INT(rules->lines[1].kernel_first, rules_prefilter_first_bit('l'));
                for (size_t i = 2; i < 8; i++)
                        CHECK(!(rules->lines[i].flags & LINE_NEEDS_KERNEL));
        }
        rules_free(rules);
}

/* ENV== matches that only hold when their key is in the set give their line a pre-filter on
 * the key; matches that "" satisfies, !=, and keys derived from the record give none. */
static void test_env_prefilter(void)
{
        static const char text[] = "ENV{ID_FS_TYPE}==\"ext4|xfs\", ENV{A}=\"1\"\n"
                                   "ENV{ID_FS_TYPE}==\"?*\", ENV{A}=\"1\"\n"
                                   "ENV{ID_FS_TYPE}==\"*\", ENV{A}=\"1\"\n"
                                   "ENV{ID_FS_TYPE}==\"ext4|**\", ENV{A}=\"1\"\n"
                                   "ENV{ID_FS_TYPE}==\"|ext4\", ENV{A}=\"1\"\n"
                                   "ENV{ID_FS_TYPE}!=\"ext4\", ENV{A}=\"1\"\n"
                                   "ENV{ID_FS_TYPE}==\"\", ENV{A}=\"1\"\n"
                                   "ENV{DEVNAME}==\"?*\", ENV{A}=\"1\"\n"
                                   "ENV{MAJOR}==\"8\", ENV{A}=\"1\"\n"
                                   "ENV{TAGS}==\"*:seat:*\", ENV{A}=\"1\"\n"
                                   "ENV{ID_FS_TYPE}!=\"\", ENV{A}=\"1\"\n";
        struct rules *rules = rules_new(RESOLVE_NAMES_EARLY);
        CHECK_INT(rules_parse_buffer(rules, "e.rules", text, sizeof(text) - 1), 0);
        CHECK_INT(rules->n_lines, 11);
        if (rules->n_lines == 11) {
                unsigned slot = props_key_slot("ID_FS_TYPE", 10);
                for (size_t i = 0; i < 11; i++) {
                        bool want = i < 2 || i == 10; /* "?*" is != "", as is the last line */
                        CHECK(!!(rules->lines[i].flags & LINE_NEEDS_ENV) == want);
                        if (want)
                                CHECK_INT(rules->lines[i].env_slot, slot);
                }
        }
        rules_free(rules);

        /* the slot a line keeps is the one the set marks for the key */
        struct props p = PROPS_INIT;
        CHECK(!props_slot_may_exist(&p, props_key_slot("ID_FS_TYPE", 10)));
        CHECK_INT(props_set(&p, "ID_FS_TYPE", "ext4", PROP_DB), 0);
        CHECK(props_slot_may_exist(&p, props_key_slot("ID_FS_TYPE", 10)));
        CHECK(props_slot_may_exist(&p, props_key_slot("ID_FS_TYPE=x", 10))); /* only keylen bytes count */
        props_clear(&p);
}

TEST_MAIN(TEST(test_stock_rules), TEST(test_kernel_prefilter), TEST(test_env_prefilter),
          TEST(test_static_nodes), TEST(test_broken_lines), TEST(test_missing_separator),
          TEST(test_nul_and_garbage), TEST(test_continuation_comments), TEST(test_values_and_patterns),
          TEST(test_goto), TEST(test_format_check), TEST(test_cmdline_split),
          TEST(test_empty_values), TEST(test_parse_id))
