/* SPDX-License-Identifier: MIT */
/*
 * The uaccess builtin and core/publish/devnode-acl.c on files in a temporary directory (the "node")
 * with logind's seat files under a temporary root: nothing happens without logind; the
 * active user of the seat (ID_SEAT, default seat0) gets rw; a switch replaces the user; no
 * active user removes it; other ACL entries stay. When getfacl(1) is installed its view of
 * the ACL is checked too (an independent reader). 77 when the filesystem has no ACLs.
 */
#include <sys/stat.h>
#include <sys/xattr.h>

#include "builtin.h"
#include "devnode-acl.h"
#include "macros.h"
#include "test-tmpdir.h"
#include "test-util.h"

static char *tmp, *node;

static void put(const char *rel, const char *content)
{
        char *p;
        CHECK(asprintf(&p, "%s%s", tmp, rel) > 0);
        FILE *f = fopen(p, "we");
        CHECK(f != NULL);
        if (f) {
                fputs(content, f);
                fclose(f);
        }
        free(p);
}

static int run(const char *seat)
{
        struct device *d;
        CHECK_INT(device_new("/devices/virtual/misc/fake", &d), 0);
        CHECK_INT(props_set(&d->props, "DEVNAME", node, PROP_KERNEL), 0);
        if (seat)
                CHECK_INT(props_set(&d->props, "ID_SEAT", seat, PROP_DB), 0);
        struct builtin_ctx ctx = {.sysfs_root = "/nonexistent", .root = tmp};
        int r = builtin_run(builtin_lookup("uaccess"), &ctx, d, "uaccess", false);
        device_unref(d);
        return r;
}

/* The named users with rw, as "1000 1001" (or "" for none). */
static char *users(void)
{
        uid_t *u = NULL;
        size_t n = 0;
        CHECK_INT(devnode_acl_get_users(node, &u, &n), 0);
        char *s = strdup("");
        for (size_t i = 0; i < n; i++) {
                char *t;
                CHECK(asprintf(&t, "%s%s%u", s, i ? " " : "", (unsigned)u[i]) > 0);
                free(s);
                s = t;
        }
        free(u);
        return s;
}

static bool getfacl_has(const char *line)
{
        if (system("command -v getfacl >/dev/null") != 0)
                return true; /* no independent reader here */
        char *cmd;
        CHECK(asprintf(&cmd, "getfacl -n -p '%s' 2>/dev/null | grep -qx '%s'", node, line) > 0);
        int r = system(cmd);
        free(cmd);
        return r == 0;
}

static void test_uaccess(void)
{
        /* no logind: nothing is touched */
        CHECK_INT(run(NULL), 0);
        CHECK(getxattr(node, "system.posix_acl_access", NULL, 0) < 0);

        char *p;
        CHECK(asprintf(&p, "%s/run/systemd/seats", tmp) > 0);
        char *cmd;
        CHECK(asprintf(&cmd, "mkdir -p '%s'", p) > 0);
        CHECK_INT(system(cmd), 0);
        free(cmd);
        free(p);
        put("/run/systemd/seats/seat0", "# logind\nIS_SEAT0=1\nACTIVE=c1\nACTIVE_UID=1000\n");
        put("/run/systemd/seats/seat1", "ACTIVE=c7\nACTIVE_UID=1002\n");

        CHECK_INT(run(NULL), 0);
        char *u = users();
        CHECK_STR(u, "1000");
        free(u);
        CHECK(getfacl_has("user:1000:rw-"));
        CHECK(getfacl_has("mask::rw-"));
        CHECK(getfacl_has("group::r--"));

        /* a group entry set by someone else survives; the user is replaced on a switch */
        if (system("command -v setfacl >/dev/null") == 0) {
                CHECK(asprintf(&cmd, "setfacl -m g:5:r '%s'", node) > 0);
                CHECK_INT(system(cmd), 0);
                free(cmd);
        }
        put("/run/systemd/seats/seat0", "ACTIVE=c2\nACTIVE_UID=1001\n");
        CHECK_INT(run(NULL), 0);
        u = users();
        CHECK_STR(u, "1001");
        free(u);
        CHECK(getfacl_has("user:1001:rw-"));
        CHECK(!getfacl_has("user:1000:rw-"));
        if (system("command -v setfacl >/dev/null") == 0)
                CHECK(getfacl_has("group:5:r--"));

        /* the device's seat */
        CHECK_INT(run("seat1"), 0);
        u = users();
        CHECK_STR(u, "1002");
        free(u);

        /* no active session: user entries removed */
        put("/run/systemd/seats/seat0", "IS_SEAT0=1\n");
        CHECK_INT(run(NULL), 0);
        u = users();
        CHECK_STR(u, "");
        free(u);
        CHECK(!getfacl_has("user:1002:rw-"));
        CHECK(getfacl_has("user::rw-"));

        /* the node went away */
        unlink(node);
        CHECK_INT(run(NULL), -ENOENT);
        put("/run/systemd/seats/seat0", "ACTIVE_UID=12x\n");
        put("/node", "");
        CHECK_INT(run(NULL), -EBADMSG);
}

int main(int argc, char **argv)
{
        tmp = test_tmpdir_new("uaccess");
        CHECK(asprintf(&node, "%s/node", tmp) > 0);
        put("/node", "");
        chmod(node, 0640);
        if (devnode_acl_set_user(node, (uid_t)-1) == -EOPNOTSUPP) {
                printf("skipped: no ACLs on %s\n", tmp);
                tmp = test_tmpdir_remove(tmp);
                return 77;
        }
        removexattr(node, "system.posix_acl_access");
        static const struct test_case cases[] = {TEST(test_uaccess)};
        int r = test_run(cases, ELEMENTSOF(cases), argc, argv);
        free(node);
        tmp = test_tmpdir_remove(tmp);
        return r;
}

struct test_state test_state;
