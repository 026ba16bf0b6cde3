/* SPDX-License-Identifier: MIT */
/* mdev.conf: every line form busybox 1.35 reads, bad lines (skipped, the rest loads), and
 * matching: first match wins, '-' continues, the implicit last line, '!' for the rest of the
 * event, %N, "dir/", '>' links, which command an action runs, paths that would leave /dev. */
#include <pwd.h>
#include <string.h>

#include "mdev-conf.h"
#include "test-util.h"

static const char *env_of(const char *key, void *userdata)
{
        for (const char *const *e = userdata; *e; e += 2)
                if (streq(e[0], key))
                        return e[1];
        return NULL;
}

static struct mdev_conf *parse(const char *text, unsigned expect_bad)
{
        struct mdev_conf *c = NULL;
        unsigned bad = 99;
        CHECK_INT(mdev_conf_parse("test.conf", text, &c, &bad), 0);
        CHECK_INT(bad, expect_bad);
        return c;
}

/* Matches name (devt maj:min, maj < 0: none) with env pairs; returns the result. */
static struct mdev_result match(const struct mdev_conf *c, const char *name, int maj, int min,
                                enum uevent_action action, const char *const *env)
{
        static const char *const none[] = {NULL};
        struct mdev_device d = {.name = name,
                                .has_devt = maj >= 0,
                                .major = maj < 0 ? 0 : (unsigned)maj,
                                .minor = min < 0 ? 0 : (unsigned)min,
                                .getenv = env_of,
                                .userdata = (void *)(env ? env : none)};
        struct mdev_result r = {0};
        CHECK_INT(mdev_conf_match(c, &d, action, &r), 0);
        return r;
}

static void test_forms(void)
{
        struct mdev_conf *c = parse("# comment\n"
                                    "   # indented comment\n"
                                    "\n"
                                    "null 0:0 666\n"                                 /* 1 rule */
                                    "-sd[a-z] root:0 0640 =disks/\n"                 /* 2 */
                                    "@4,64-67 1:2 600 >serial/%1 @echo \"a  b\"\n"   /* 3 */
                                    "$MODALIAS=.* 0:0 660 @modprobe \"$MODALIAS\"\n" /* 4 */
                                    "SUBSYSTEM=net;DEVPATH=.*/net/.*;.* 0:0 600 *nameif\n"
                                    "input/event[0-9]+\troot:root\t640\n"
                                    "tty[a-z]. 0:0 660 !\n"
                                    "fb([0-2]) 0:0 660 >fb/%1 $rm -f x\n"
                                    "0 1 600 =x @\n",
                                    0);
        CHECK_INT((int)c->n_rules, 9);
        const struct mdev_rule *r = c->rules[0];
        CHECK(r->kind == MDEV_MATCH_NAME && !r->keep_matching && r->mode == 0666 && r->uid == 0 &&
              r->gid == 0);
        CHECK_INT((int)r->line, 4);
        r = c->rules[1];
        CHECK(r->keep_matching && r->mode == 0640 && r->op == '=' && streq(r->path, "disks/") && !r->cmd);
        r = c->rules[2];
        CHECK(r->kind == MDEV_MATCH_DEVT && r->major == 4 && r->minor_lo == 64 && r->minor_hi == 67);
        CHECK(r->uid == 1 && r->gid == 2 && r->op == '>' && streq(r->path, "serial/%1"));
        CHECK(r->when == '@' && streq(r->cmd, "echo \"a  b\""));
        r = c->rules[3];
        CHECK(r->kind == MDEV_MATCH_ENV && streq(r->envvar, "MODALIAS") && r->when == '@');
        r = c->rules[4];
        CHECK(r->n_env == 2 && streq(r->env[0].key, "SUBSYSTEM") && streq(r->env[1].key, "DEVPATH"));
        CHECK(r->kind == MDEV_MATCH_NAME && r->when == '*' && streq(r->cmd, "nameif"));
        r = c->rules[5];
        CHECK(r->mode == 0640 && r->op == 0 && !r->cmd);
        CHECK(c->rules[6]->op == '!');
        CHECK(c->rules[7]->when == '$' && streq(c->rules[7]->cmd, "rm -f x"));
        /* a user alone takes its primary group; an empty command is none */
        r = c->rules[8];
        const struct passwd *pw = getpwuid(1);
        CHECK(pw && r->uid == 1 && r->gid == pw->pw_gid);
        CHECK(r->op == '=' && r->when == '@' && !r->cmd);
        mdev_conf_free(c);
}

static void test_bad_lines(void)
{
        /* each bad line is skipped and counted, the good ones around them load */
        struct mdev_conf *c = parse("ttyS0\n"                       /* 1 field */
                                    "ttyS0 0:0\n"                   /* 2 fields */
                                    "ttyS0 nosuchuser-xyz:0 600\n"  /* unknown user */
                                    "ttyS0 0:nosuchgroup-xyz 600\n" /* unknown group */
                                    "ttyS0 daemon.tty 600\n"        /* busybox: unknown user */
                                    "ttyS0 :5 600\n"                /* empty user */
                                    "ttyS0 0:0 608\n"               /* not octal */
                                    "ttyS0 0:0 17777\n"             /* too big */
                                    "ttyS0 0:0 600 foo\n"           /* neither path nor command */
                                    "ttyS0 0:0 600 !x\n"            /* '!' with more */
                                    "ttyS0 0:0 600 =/abs/\n"        /* leaves /dev */
                                    "ttyS0 0:0 600 >../x\n"         /* leaves /dev */
                                    "ttyS0 0:0 600 =a/../../x\n"    /* leaves /dev */
                                    "ttyS0 0:0 600 =a//b\n"         /* empty component */
                                    "tty(S0 0:0 600\n"              /* bad regex */
                                    "@4 0:0 600\n"                  /* no minor */
                                    "@4,70-64 0:0 600\n"            /* empty range */
                                    "@4,x 0:0 600\n"                /* not a number */
                                    "$=x 0:0 600\n"                 /* no variable */
                                    "$FOO 0:0 600\n"                /* no '=' */
                                    "A=(;ttyS0 0:0 600\n"           /* bad prefix regex */
                                    "good 0:0 600\n",
                                    21);
        CHECK_INT((int)c->n_rules, 1);
        CHECK_INT((int)c->rules[0]->line, 22);
        mdev_conf_free(c);
}

static void check_action(const struct mdev_action *a, const char *node, const char *link, mode_t mode,
                         const char *mdev, const char *cmd)
{
        CHECK_STR(strempty(a->node), strempty(node));
        CHECK_STR(strempty(a->link), strempty(link));
        CHECK_INT((int)a->mode, (int)mode);
        CHECK_STR(a->mdev, mdev);
        CHECK_STR(strempty(a->cmd), strempty(cmd));
}

static void test_match(void)
{
        struct mdev_conf *c = parse("-sd[a-z] 0:6 640 =disks/\n"
                                    "sd[a-z] 0:6 600 @echo sd\n"
                                    "-ttyS([0-9]) 0:20 640 >serial/%1 *echo s\n"
                                    "ttyS1 0:0 606 $echo gone\n"
                                    "-ttyS2 0:0 601 !\n"
                                    "ttyS2 0:0 602 =later\n"
                                    "input/event.* 0:0 640 =input/\n"
                                    "event3 0:0 600\n"
                                    "-@13,64-70 0:0 604 =ev/%1\n"
                                    "-FOO=b.*;mouse0 0:0 611\n"
                                    "$MODALIAS=usb:(v....) 0:0 660 @echo %1\n",
                                    0);
        struct mdev_result r;

        /* '-' continues; a non-'-' line ends the search */
        r = match(c, "sda", 8, 0, UEVENT_ADD, NULL);
        CHECK(r.matched);
        CHECK_INT((int)r.n_actions, 2);
        check_action(&r.actions[0], "disks/sda", NULL, 0640, "disks/sda", NULL);
        check_action(&r.actions[1], "sda", NULL, 0600, "sda", "echo sd");
        CHECK(r.actions[1].gid == 6);
        mdev_result_clear(&r);

        /* a '-' line alone is followed by the implicit last line (0660 root) */
        r = match(c, "ttyS0", 4, 64, UEVENT_ADD, NULL);
        CHECK_INT((int)r.n_actions, 2);
        check_action(&r.actions[0], "serial/0", "ttyS0", 0640, "serial/0", "echo s");
        check_action(&r.actions[1], "ttyS0", NULL, 0660, "ttyS0", NULL);
        CHECK_INT((int)r.actions[1].line, 0);
        mdev_result_clear(&r);

        /* commands by action: '*' always, '$' on remove, '@' on add only */
        r = match(c, "ttyS1", 4, 65, UEVENT_REMOVE, NULL);
        CHECK_INT((int)r.n_actions, 2);
        check_action(&r.actions[0], "serial/1", "ttyS1", 0640, "serial/1", "echo s");
        check_action(&r.actions[1], "ttyS1", NULL, 0606, "ttyS1", "echo gone");
        mdev_result_clear(&r);
        r = match(c, "ttyS1", 4, 65, UEVENT_CHANGE, NULL);
        CHECK(r.actions[0].cmd && !r.actions[1].cmd);
        mdev_result_clear(&r);
        r = match(c, "sdb", 8, 16, UEVENT_CHANGE, NULL);
        CHECK(!r.actions[1].cmd);
        mdev_result_clear(&r);

        /* '!' takes the node of every later line of the event too; commands still run */
        r = match(c, "ttyS2", 4, 66, UEVENT_ADD, NULL);
        CHECK_INT((int)r.n_actions, 3);
        check_action(&r.actions[0], "serial/2", "ttyS2", 0640, "serial/2", "echo s"); /* before the '!' */
        check_action(&r.actions[1], NULL, NULL, 0601, "ttyS2", NULL);
        check_action(&r.actions[2], NULL, NULL, 0602, "later", NULL);
        mdev_result_clear(&r);

        /* the name is the whole DEVNAME, slash included; "dir/" keeps it below dir/ */
        r = match(c, "input/event3", 13, 67, UEVENT_ADD, NULL);
        CHECK_INT((int)r.n_actions, 1);
        check_action(&r.actions[0], "input/input/event3", NULL, 0640, "input/input/event3", NULL);
        mdev_result_clear(&r);
        /* @maj,min range; %N of a devt line is empty */
        r = match(c, "event3", 13, 67, UEVENT_ADD, NULL);
        CHECK_INT((int)r.n_actions, 1);
        check_action(&r.actions[0], "event3", NULL, 0600, "event3", NULL);
        mdev_result_clear(&r);
        r = match(c, "mouse0", 13, 64, UEVENT_ADD, NULL);
        CHECK(r.n_actions >= 1 && r.actions[0].line == 9);
        CHECK_STR(r.actions[0].node, "ev/mouse0"); /* %1 empty, then "dir/" */
        CHECK(r.actions[0].unsafe == false);
        mdev_result_clear(&r);

        /* VAR=regex; prefixes, $VAR=regex with its subexpressions; no devt: no node */
        const char *const env[] = {"FOO", "bar", "MODALIAS", "usb:v1234", NULL};
        r = match(c, "mouse0", -1, -1, UEVENT_ADD, env);
        CHECK(r.n_actions >= 2 && r.actions[0].line == 10 && r.actions[1].line == 11);
        CHECK(!r.actions[0].node);
        CHECK_STR(r.actions[1].cmd, "echo %1"); /* commands are not substituted */
        mdev_result_clear(&r);
        const char *const env2[] = {"FOO", "xbar", NULL};
        r = match(c, "mouse0", 13, 32, UEVENT_ADD, env2);
        CHECK_INT((int)r.n_actions, 1);
        CHECK(!r.matched && r.actions[0].line == 0);
        mdev_result_clear(&r);

        /* regexes match the whole name */
        r = match(c, "xsda", 8, 0, UEVENT_ADD, NULL);
        CHECK(!r.matched);
        mdev_result_clear(&r);
        mdev_conf_free(c);
}

static void test_unsafe(void)
{
        /* %N brings the matched name into the path: one that leaves /dev gives no node */
        struct mdev_conf *c = parse("x(.*) 0:0 600 =a/%1\n", 0);
        struct mdev_result r = match(c, "x/../../etc", 1, 1, UEVENT_ADD, NULL);
        CHECK_INT((int)r.n_actions, 1);
        CHECK(r.actions[0].unsafe && !r.actions[0].node);
        mdev_result_clear(&r);
        mdev_conf_free(c);
        /* an optional group that took no part stays "%2" (busybox does so) */
        c = parse("x([^-]*)(-p[0-9])? 0:0 600 =a/%1%2\n", 0);
        r = match(c, "xn1", 1, 1, UEVENT_ADD, NULL);
        CHECK_STR(r.actions[0].node, "a/n1%2");
        mdev_result_clear(&r);
        r = match(c, "xn1-p2", 1, 1, UEVENT_ADD, NULL);
        CHECK_STR(r.actions[0].node, "a/n1-p2");
        mdev_result_clear(&r);
        mdev_conf_free(c);
        c = parse("x(.*) 0:0 600 =a/%1\n", 0);
        r = match(c, "xok", 1, 1, UEVENT_ADD, NULL);
        CHECK(!r.actions[0].unsafe);
        CHECK_STR(r.actions[0].node, "a/ok");
        mdev_result_clear(&r);
        /* an unsafe kernel name gets no node from the implicit line either */
        r = match(c, "../evil", 1, 1, UEVENT_ADD, NULL);
        CHECK(r.actions[0].unsafe && !r.actions[0].node);
        mdev_result_clear(&r);
        mdev_conf_free(c);
        /* a file without lines: the implicit last line only */
        c = parse("", 0);
        r = match(c, "null", 1, 3, UEVENT_ADD, NULL);
        CHECK_INT((int)r.n_actions, 1);
        check_action(&r.actions[0], "null", NULL, 0660, "null", NULL);
        mdev_result_clear(&r);
        mdev_conf_free(c);
}

TEST_MAIN(TEST(test_forms), TEST(test_bad_lines), TEST(test_match), TEST(test_unsafe))
