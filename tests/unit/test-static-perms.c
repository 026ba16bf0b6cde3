/* SPDX-License-Identifier: MIT */
/* OPTIONS+="static_node=" at start: permissions and tags for nodes that exist before their
 * driver; missing nodes, non-nodes and planted symlinks are left alone. */
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "rules-load.h"
#include "static-perms.h"
#include "test-util.h"

static void test_apply(void)
{
        char top[] = "/tmp/devman-static-XXXXXX";
        CHECK(mkdtemp(top) != NULL);
        char dev[256], run[256], rules[256], path[512], victim[512];
        snprintf(dev, sizeof(dev), "%s/dev", top);
        snprintf(run, sizeof(run), "%s/run", top);
        snprintf(rules, sizeof(rules), "%s/rules", top);
        mkdir(dev, 0755);
        mkdir(run, 0755);
        mkdir(rules, 0755);
        snprintf(path, sizeof(path), "%s/fuse", dev);
        CHECK_INT(mknod(path, S_IFCHR | 0600, makedev(10, 229)), 0);
        snprintf(path, sizeof(path), "%s/snd", dev);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/snd/seq", dev);
        CHECK_INT(mknod(path, S_IFCHR | 0600, makedev(116, 1)), 0);
        /* a group and no mode (Debian's 50-udev-default.rules: loop-control, snd/timer) */
        snprintf(path, sizeof(path), "%s/loop-control", dev);
        CHECK_INT(mknod(path, S_IFCHR | 0600, makedev(10, 237)), 0);
        /* tags only: the permissions stay */
        snprintf(path, sizeof(path), "%s/tagonly", dev);
        CHECK_INT(mknod(path, S_IFCHR | 0600, makedev(10, 238)), 0);
        /* a planted symlink and a regular file with static-node names */
        snprintf(victim, sizeof(victim), "%s/victim", top);
        int fd = open(victim, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        close(fd);
        snprintf(path, sizeof(path), "%s/evil", dev);
        CHECK_INT(symlink(victim, path), 0);
        snprintf(path, sizeof(path), "%s/plain", dev);
        fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        close(fd);

        snprintf(path, sizeof(path), "%s/50-static.rules", rules);
        FILE *f = fopen(path, "we");
        fputs("SUBSYSTEM==\"misc\", KERNEL==\"fuse\", OPTIONS+=\"static_node=fuse\", MODE=\"0666\"\n"
              "KERNEL==\"seq\", OPTIONS+=\"static_node=snd/seq\", GROUP=\"disk\", MODE=\"0660\", TAG+=\"uaccess\"\n"
              "OPTIONS+=\"static_node=evil\", MODE=\"0666\"\n"
              "OPTIONS+=\"static_node=plain\", MODE=\"0666\"\n"
              "OPTIONS+=\"static_node=missing\", MODE=\"0666\"\n"
              "KERNEL==\"loop-control\", GROUP=\"disk\", OPTIONS+=\"static_node=loop-control\"\n"
              "KERNEL==\"tagonly\", TAG+=\"uaccess\", OPTIONS+=\"static_node=tagonly\"\n",
              f);
        fclose(f);

        struct rules *r = NULL;
        char *dirs[] = {rules, NULL};
        struct rules_load_options o = {.dirs = dirs};
        CHECK_INT(rules_load(&o, &r), 0);
        int devfd = open(dev, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int runfd = open(run, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK_INT(static_perms_apply(devfd, "/dev", runfd, r), 3);

        struct stat st;
        snprintf(path, sizeof(path), "%s/fuse", dev);
        CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0666);
        snprintf(path, sizeof(path), "%s/snd/seq", dev);
        CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0660 && st.st_gid == getgrnam("disk")->gr_gid);
        snprintf(path, sizeof(path), "%s/loop-control", dev);
        CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0660 && st.st_gid == getgrnam("disk")->gr_gid);
        snprintf(path, sizeof(path), "%s/tagonly", dev);
        CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_uid == 0 && st.st_gid == 0);
        char target[256] = "";
        snprintf(path, sizeof(path), "%s/static_node-tags/uaccess/snd\\x2fseq", run);
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        CHECK(n > 0);
        CHECK_STR(target, "/dev/snd/seq");
        CHECK(stat(victim, &st) == 0 && (st.st_mode & 07777) == 0600); /* not followed */
        snprintf(path, sizeof(path), "%s/plain", dev);
        CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600); /* not a node */
        snprintf(path, sizeof(path), "%s/missing", dev);
        CHECK(access(path, F_OK) < 0); /* nothing created */
        CHECK_INT(static_perms_apply(devfd, "/dev", runfd, r), 0); /* nothing left to change */

        close(devfd);
        close(runfd);
        rules_free(r);
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
        CHECK_INT(system(cmd), 0);
}

TEST_MAIN(TEST(test_apply))
