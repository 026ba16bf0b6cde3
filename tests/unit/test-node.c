/* SPDX-License-Identifier: MIT */
/* Device nodes in a private directory standing in for /dev (mknod needs root: the suite runs
 * as root; without it the node cases report a failed requirement instead of passing). */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "devdir.h"
#include "macros.h"
#include "node.h"
#include "test-tmpdir.h"
#include "test-util.h"

static char *root;
static int devfd = -1;

static void setup(void)
{
        root = test_tmpdir_new("node");
        devfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (devfd < 0)
                abort();
}

static void teardown(void)
{
        close(devfd);
        devfd = -1;
        root = test_tmpdir_remove(root);
}

static bool lstat_at(const char *name, struct stat *st)
{
        return fstatat(devfd, name, st, AT_SYMLINK_NOFOLLOW) == 0;
}

static char *link_target(const char *name)
{
        static char buf[4096];
        ssize_t n = readlinkat(devfd, name, buf, sizeof(buf) - 1);
        if (n < 0)
                return NULL;
        buf[n] = 0;
        return buf;
}

static bool exists(const char *name)
{
        struct stat st;
        return lstat_at(name, &st);
}

static void test_name_valid(void)
{
        CHECK(devdir_name_valid("null"));
        CHECK(devdir_name_valid("bus/usb/001/002"));
        CHECK(devdir_name_valid("disk/by-label/Mein Stick"));
        CHECK(devdir_name_valid("input/by-id/\xc3\xa4"));
        CHECK(!devdir_name_valid(""));
        CHECK(!devdir_name_valid(NULL));
        CHECK(!devdir_name_valid("/dev/null"));
        CHECK(!devdir_name_valid("."));
        CHECK(!devdir_name_valid(".."));
        CHECK(!devdir_name_valid("../etc/passwd"));
        CHECK(!devdir_name_valid("a/../../b"));
        CHECK(!devdir_name_valid("a/./b"));
        CHECK(!devdir_name_valid("a//b"));
        CHECK(!devdir_name_valid("a/"));
        CHECK(!devdir_name_valid("a\nb"));
        CHECK(!devdir_name_valid("a\x7f"));
        CHECK(!devdir_name_valid("tab\there"));
        CHECK(devdir_name_valid("..hidden"));
        CHECK(devdir_name_valid("a/.b"));

        char comp[NAME_MAX + 2];
        memset(comp, 'x', NAME_MAX);
        comp[NAME_MAX] = 0;
        CHECK(devdir_name_valid(comp));
        comp[NAME_MAX] = 'x';
        comp[NAME_MAX + 1] = 0;
        CHECK(!devdir_name_valid(comp));

        char longname[DEVDIR_NAME_MAX + 2];
        for (size_t i = 0; i < sizeof(longname) - 1; i++)
                longname[i] = (i % 100 == 99) ? '/' : 'y';
        longname[DEVDIR_NAME_MAX] = 0;
        CHECK(devdir_name_valid(longname));
        longname[DEVDIR_NAME_MAX] = 'y';
        longname[DEVDIR_NAME_MAX + 1] = 0;
        CHECK(!devdir_name_valid(longname));
}

static void check_rel(const char *link, const char *target, const char *want)
{
        _cleanup_free_ char *s = NULL;
        CHECK_INT(devdir_relative_target(link, target, &s), 0);
        CHECK_STR(s, want);
}

static void test_relative_target(void)
{
        check_rel("disk/by-uuid/X", "sda1", "../../sda1");
        check_rel("cdrom", "sr0", "sr0");
        check_rel("char/1:3", "null", "../null");
        check_rel("char/189:1", "bus/usb/001/002", "../bus/usb/001/002");
        check_rel("bus/usb/x", "bus/usb/001/002", "001/002");
        check_rel("input/by-path/p", "input/event3", "../event3");
        check_rel("a/b/c", "a/bx/d", "../bx/d");
        char *s = NULL;
        CHECK_INT(devdir_relative_target("../x", "sda", &s), -EINVAL);
        CHECK_INT(devdir_relative_target("x", "/dev/sda", &s), -EINVAL);
        CHECK(s == NULL);
}

static void test_add_basic(void)
{
        struct stat st;

        if (geteuid() != 0) {
                CHECK(!"node tests need root (CAP_MKNOD)");
                return;
        }
        setup();
        mode_t old_umask = umask(0); /* modes must be explicit, whatever the umask */

        CHECK_INT(node_apply(devfd, NULL, "null", 'c', makedev(1, 3),
                             &(struct node_access){0666, NODE_UID_UNSET, NODE_GID_UNSET}, 0),
                  1);
        CHECK(lstat_at("null", &st));
        CHECK(S_ISCHR(st.st_mode));
        CHECK_INT(st.st_rdev, makedev(1, 3));
        CHECK_INT(st.st_mode & 07777, 0666);
        CHECK_INT(st.st_uid, 0);
        CHECK_INT(st.st_gid, 0);
        CHECK_STR(link_target("char/1:3"), "../null");

        /* Defaults: 0600 root:root. Nested names get 0755 directories. */
        umask(0077);
        CHECK_INT(node_apply(devfd, NULL, "bus/usb/001/002", 'c', makedev(189, 1),
                             &(struct node_access){NODE_MODE_UNSET, NODE_UID_UNSET, NODE_GID_UNSET}, 0),
                  1);
        CHECK(lstat_at("bus/usb/001/002", &st));
        CHECK(S_ISCHR(st.st_mode));
        CHECK_INT(st.st_mode & 07777, 0600);
        CHECK(lstat_at("bus/usb/001", &st));
        CHECK(S_ISDIR(st.st_mode));
        CHECK_INT(st.st_mode & 07777, 0755);
        CHECK(lstat_at("bus", &st));
        CHECK_INT(st.st_mode & 07777, 0755);
        CHECK_STR(link_target("char/189:1"), "../bus/usb/001/002");
        CHECK(lstat_at("char", &st));
        CHECK_INT(st.st_mode & 07777, 0755);

        /* Block nodes with an owner. */
        CHECK_INT(node_apply(devfd, NULL, "loop7", 'b', makedev(7, 7), &(struct node_access){0660, 0, 6}, 0),
                  1);
        CHECK(lstat_at("loop7", &st));
        CHECK(S_ISBLK(st.st_mode));
        CHECK_INT(st.st_rdev, makedev(7, 7));
        CHECK_INT(st.st_mode & 07777, 0660);
        CHECK_INT(st.st_gid, 6);
        CHECK_STR(link_target("block/7:7"), "../loop7");

        /* No temporaries left behind. */
        DIR *d = opendir(root);
        struct dirent *de;
        int tmp = 0;
        while (d && (de = readdir(d)))
                tmp += startswith(de->d_name, ".#devman") != NULL;
        if (d)
                closedir(d);
        CHECK_INT(tmp, 0);

        umask(old_umask);
        teardown();
}

static void test_add_absent(void)
{
        struct stat st;

        if (geteuid() != 0) {
                CHECK(!"node tests need root (CAP_MKNOD)");
                return;
        }
        setup();
        mode_t old_umask = umask(022); /* devmand's */

        /* Nothing there: the node (0600 root) and its M:m link, parents made. */
        CHECK_INT(node_apply(devfd, NULL, "input/event3", 'c', makedev(13, 67), NULL, NODE_IF_ABSENT), 1);
        CHECK(lstat_at("input/event3", &st));
        CHECK(S_ISCHR(st.st_mode));
        CHECK_INT(st.st_rdev, makedev(13, 67));
        CHECK_INT(st.st_mode & 07777, 0600);
        CHECK_INT(st.st_uid, 0);
        CHECK_STR(link_target("char/13:67"), "../input/event3");
        CHECK_INT(node_apply(devfd, NULL, "loop9", 'b', makedev(7, 9), NULL, NODE_IF_ABSENT), 1);
        CHECK_STR(link_target("block/7:9"), "../loop9");

        /* Something has the name (a node with other permissions, a file): left alone. */
        CHECK_INT(fchmodat(devfd, "loop9", 0660, 0), 0);
        CHECK_INT(node_apply(devfd, NULL, "loop9", 'b', makedev(7, 9), NULL, NODE_IF_ABSENT), 0);
        CHECK(lstat_at("loop9", &st));
        CHECK_INT(st.st_mode & 07777, 0660);
        int fd = openat(devfd, "ttyX", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        if (fd >= 0)
                close(fd);
        CHECK_INT(node_apply(devfd, NULL, "ttyX", 'c', makedev(4, 70), NULL, NODE_IF_ABSENT), 0);
        CHECK(lstat_at("ttyX", &st));
        CHECK(S_ISREG(st.st_mode));

        /* Never through a symlink in the path, never with a bad name or type. */
        CHECK_INT(symlinkat("/tmp", devfd, "evil"), 0);
        int r = node_apply(devfd, NULL, "evil/sda", 'b', makedev(8, 0), NULL, NODE_IF_ABSENT);
        CHECK(r == -ELOOP || r == -ENOTDIR);
        CHECK_INT(node_apply(devfd, NULL, "../sda", 'b', makedev(8, 0), NULL, NODE_IF_ABSENT), -EINVAL);
        CHECK_INT(node_apply(devfd, NULL, "sda", 'x', makedev(8, 0), NULL, NODE_IF_ABSENT), -EINVAL);

        umask(old_umask);
        teardown();
}

/* The node made before the rules, brought to the rules' owner and mode without a look-up. */
static void test_update_made(void)
{
        struct stat st;

        if (geteuid() != 0) {
                CHECK(!"node tests need root (CAP_MKNOD)");
                return;
        }
        setup();
        mode_t old_umask = umask(022);

        /* owner and mode changed; the M:m link left as it was made */
        CHECK_INT(node_apply(devfd, NULL, "disk/sdz", 'b', makedev(8, 240), NULL, NODE_IF_ABSENT), 1);
        CHECK_INT(node_apply(devfd, NULL, "disk/sdz", 'b', makedev(8, 240),
                             &(struct node_access){0660, 0, 6}, NODE_MADE_NOW),
                  0);
        CHECK(lstat_at("disk/sdz", &st));
        CHECK(S_ISBLK(st.st_mode));
        CHECK_INT(st.st_mode & 07777, 0660);
        CHECK_INT(st.st_uid, 0);
        CHECK_INT(st.st_gid, 6);
        CHECK_STR(link_target("block/8:240"), "../disk/sdz");

        /* only the mode */
        CHECK_INT(node_apply(devfd, NULL, "tty9", 'c', makedev(4, 9), NULL, NODE_IF_ABSENT), 1);
        CHECK_INT(node_apply(devfd, NULL, "tty9", 'c', makedev(4, 9),
                             &(struct node_access){0620, NODE_UID_UNSET, NODE_GID_UNSET}, NODE_MADE_NOW),
                  0);
        CHECK(lstat_at("tty9", &st));
        CHECK_INT(st.st_mode & 07777, 0620);
        CHECK_INT(st.st_gid, 0);

        /* nothing to change: the node is still checked (here: gone, so made again) */
        CHECK_INT(node_apply(devfd, NULL, "loop7", 'b', makedev(7, 7), NULL, NODE_IF_ABSENT), 1);
        CHECK_INT(unlinkat(devfd, "loop7", 0), 0);
        CHECK_INT(node_apply(devfd, NULL, "loop7", 'b', makedev(7, 7),
                             &(struct node_access){NODE_MODE_UNSET, NODE_UID_UNSET, NODE_GID_UNSET},
                             NODE_MADE_NOW),
                  1);
        CHECK(lstat_at("loop7", &st));
        CHECK(S_ISBLK(st.st_mode));
        CHECK_INT(st.st_mode & 07777, 0600);

        /* removed meanwhile, with a change to make: made again, with the owner and mode */
        CHECK_INT(node_apply(devfd, NULL, "input/event9", 'c', makedev(13, 73), NULL, NODE_IF_ABSENT), 1);
        CHECK_INT(unlinkat(devfd, "input/event9", 0), 0);
        CHECK_INT(node_apply(devfd, NULL, "input/event9", 'c', makedev(13, 73),
                             &(struct node_access){0640, 0, 13}, NODE_MADE_NOW),
                  1);
        CHECK(lstat_at("input/event9", &st));
        CHECK(S_ISCHR(st.st_mode));
        CHECK_INT(st.st_rdev, makedev(13, 73));
        CHECK_INT(st.st_mode & 07777, 0640);
        CHECK_INT(st.st_gid, 13);

        CHECK_INT(node_apply(devfd, NULL, "../x", 'c', makedev(1, 3), &(struct node_access){0600, 0, 0},
                             NODE_MADE_NOW),
                  -EINVAL);

        umask(old_umask);
        teardown();
}

/* The flags that change what node_apply() does: no M:m link (static nodes); combinations that
 * make no sense refused. */
static void test_flags(void)
{
        struct stat st;

        if (geteuid() != 0) {
                CHECK(!"node tests need root (CAP_MKNOD)");
                return;
        }
        setup();

        CHECK_INT(node_apply(devfd, NULL, "snd/seq", 'c', makedev(116, 1),
                             &(struct node_access){0600, NODE_UID_UNSET, NODE_GID_UNSET},
                             NODE_NO_DEVNUM_LINK),
                  1);
        CHECK(lstat_at("snd/seq", &st));
        CHECK(S_ISCHR(st.st_mode));
        CHECK_INT(st.st_mode & 07777, 0600);
        CHECK(!lstat_at("char/116:1", &st));
        /* access NULL: nothing decided, a new node gets 0600 root */
        CHECK_INT(node_apply(devfd, NULL, "tty3", 'c', makedev(4, 3), NULL, 0), 1);
        CHECK(lstat_at("tty3", &st));
        CHECK_INT(st.st_mode & 07777, 0600);
        CHECK_STR(link_target("char/4:3"), "../tty3");

        const struct node_access a = {0660, 0, 0};
        CHECK_INT(node_apply(devfd, NULL, "tty4", 'c', makedev(4, 4), &a, NODE_IF_ABSENT), -EINVAL);
        CHECK_INT(node_apply(devfd, NULL, "tty4", 'c', makedev(4, 4), NULL, NODE_IF_ABSENT | NODE_MADE_NOW),
                  -EINVAL);
        CHECK_INT(node_apply(devfd, NULL, "tty4", 'c', makedev(4, 4), &a, 1u << 7), -EINVAL);
        CHECK(!lstat_at("tty4", &st));

        teardown();
}

static void test_add_existing(void)
{
        struct stat st, st2;

        if (geteuid() != 0) {
                CHECK(!"node tests need root (CAP_MKNOD)");
                return;
        }
        setup();

        CHECK_INT(node_apply(devfd, NULL, "zero", 'c', makedev(1, 5), &(struct node_access){0600, 0, 0}, 0),
                  1);
        CHECK(lstat_at("zero", &st));

        /* Same node, same permissions: nothing happens (same inode). */
        CHECK_INT(node_apply(devfd, NULL, "zero", 'c', makedev(1, 5), &(struct node_access){0600, 0, 0}, 0),
                  0);
        CHECK(lstat_at("zero", &st2));
        CHECK_INT(st2.st_ino, st.st_ino);

        /* Same node, new permissions: the inode is kept and re-permissioned. */
        CHECK_INT(
                node_apply(devfd, NULL, "zero", 'c', makedev(1, 5), &(struct node_access){0640, 12, 34}, 0),
                0);
        CHECK(lstat_at("zero", &st2));
        CHECK_INT(st2.st_ino, st.st_ino);
        CHECK_INT(st2.st_mode & 07777, 0640);
        CHECK_INT(st2.st_uid, 12);
        CHECK_INT(st2.st_gid, 34);

        /* Nothing decided (a later "bind" or "change" whose rules set no MODE/OWNER/GROUP):
         * the node keeps what an earlier event gave it, as udev leaves it (issue 25). */
        CHECK_INT(node_apply(devfd, NULL, "zero", 'c', makedev(1, 5),
                             &(struct node_access){NODE_MODE_UNSET, NODE_UID_UNSET, NODE_GID_UNSET}, 0),
                  0);
        CHECK(lstat_at("zero", &st2));
        CHECK_INT(st2.st_ino, st.st_ino);
        CHECK_INT(st2.st_mode & 07777, 0640);
        CHECK_INT(st2.st_uid, 12);
        CHECK_INT(st2.st_gid, 34);
        /* only the group decided: owner and mode stay */
        CHECK_INT(node_apply(devfd, NULL, "zero", 'c', makedev(1, 5),
                             &(struct node_access){NODE_MODE_UNSET, NODE_UID_UNSET, 35}, 0),
                  0);
        CHECK(lstat_at("zero", &st2));
        CHECK_INT(st2.st_mode & 07777, 0640);
        CHECK_INT(st2.st_uid, 12);
        CHECK_INT(st2.st_gid, 35);
        CHECK_INT(
                node_apply(devfd, NULL, "zero", 'c', makedev(1, 5), &(struct node_access){0640, 12, 34}, 0),
                0);

        /* Wrong devnum: replaced by a new inode. */
        CHECK_INT(
                node_apply(devfd, NULL, "zero", 'c', makedev(1, 7), &(struct node_access){0640, 12, 34}, 0),
                1);
        CHECK(lstat_at("zero", &st2));
        CHECK(st2.st_ino != st.st_ino);
        CHECK_INT(st2.st_rdev, makedev(1, 7));
        CHECK(S_ISCHR(st2.st_mode));
        CHECK_STR(link_target("char/1:7"), "../zero");

        /* Wrong type. */
        CHECK_INT(node_apply(devfd, NULL, "zero", 'b', makedev(1, 7), &(struct node_access){0600, 0, 0}, 0),
                  1);
        CHECK(lstat_at("zero", &st2));
        CHECK(S_ISBLK(st2.st_mode));
        CHECK_INT(st2.st_rdev, makedev(1, 7));

        /* A regular file in its place. */
        int fd = openat(devfd, "random", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        close(fd);
        CHECK_INT(
                node_apply(devfd, NULL, "random", 'c', makedev(1, 8), &(struct node_access){0666, 0, 0}, 0),
                1);
        CHECK(lstat_at("random", &st2));
        CHECK(S_ISCHR(st2.st_mode));
        CHECK_INT(st2.st_rdev, makedev(1, 8));

        /* A symlink in its place (pointing outside the root): replaced, target untouched. */
        _cleanup_free_ char *outside = NULL;
        CHECK(asprintf(&outside, "%s.outside", root) > 0);
        fd = open(outside, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        close(fd);
        CHECK_INT(symlinkat(outside, devfd, "urandom"), 0);
        CHECK_INT(
                node_apply(devfd, NULL, "urandom", 'c', makedev(1, 9), &(struct node_access){0666, 0, 0}, 0),
                1);
        CHECK(lstat_at("urandom", &st2));
        CHECK(S_ISCHR(st2.st_mode));
        CHECK_INT(stat(outside, &st2), 0);
        CHECK(S_ISREG(st2.st_mode));
        CHECK_INT(st2.st_mode & 07777, 0600);
        unlink(outside);

        /* A directory in the way is not removed. */
        CHECK_INT(mkdirat(devfd, "full", 0755), 0);
        CHECK_INT(node_apply(devfd, NULL, "full", 'c', makedev(1, 7), &(struct node_access){0666, 0, 0}, 0),
                  -EISDIR);
        CHECK(lstat_at("full", &st2));
        CHECK(S_ISDIR(st2.st_mode));

        /* An existing directory keeps the mode its owner gave it. */
        CHECK_INT(mkdirat(devfd, "snd", 0700), 0);
        CHECK_INT(fchmodat(devfd, "snd", 0710, 0), 0);
        CHECK_INT(node_apply(devfd, NULL, "snd/seq", 'c', makedev(116, 1), &(struct node_access){0660, 0, 0},
                             0),
                  1);
        CHECK(lstat_at("snd", &st2));
        CHECK_INT(st2.st_mode & 07777, 0710);

        /* A stale char/M:m symlink is repointed; a real file there is not replaced. */
        CHECK_INT(symlinkat("../old", devfd, "char/4:1"), 0);
        CHECK_INT(node_apply(devfd, NULL, "tty1", 'c', makedev(4, 1), &(struct node_access){0620, 0, 5}, 0),
                  1);
        CHECK_STR(link_target("char/4:1"), "../tty1");
        fd = openat(devfd, "char/4:2", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        close(fd);
        CHECK_INT(node_apply(devfd, NULL, "tty2", 'c', makedev(4, 2), &(struct node_access){0620, 0, 5}, 0),
                  -EEXIST);
        CHECK(lstat_at("tty2", &st2)); /* the node itself is there */
        CHECK(S_ISCHR(st2.st_mode));

        teardown();
}

/* O_NOFOLLOW|O_DIRECTORY on a symlink fails with ENOTDIR (ELOOP on some kernels). */
static bool refused(int r)
{
        return r == -ENOTDIR || r == -ELOOP;
}

static void test_no_follow(void)
{
        struct stat st;

        if (geteuid() != 0) {
                CHECK(!"node tests need root (CAP_MKNOD)");
                return;
        }
        setup();
        char *outside = test_tmpdir_new("node-outside");

        /* An intermediate directory replaced by a symlink to a directory outside the root. */
        CHECK_INT(symlinkat(outside, devfd, "input"), 0);
        CHECK(refused(node_apply(devfd, NULL, "input/event0", 'c', makedev(13, 64),
                                 &(struct node_access){0660, 0, 0}, 0)));
        _cleanup_free_ char *escaped = NULL;
        CHECK(asprintf(&escaped, "%s/event0", outside) > 0);
        CHECK(lstat(escaped, &st) < 0 && errno == ENOENT);

        /* Deeper: a/b where b is the symlink. */
        CHECK_INT(mkdirat(devfd, "snd", 0755), 0);
        CHECK_INT(symlinkat(outside, devfd, "snd/by-path"), 0);
        CHECK(refused(node_apply(devfd, NULL, "snd/by-path/controlC0", 'c', makedev(116, 0),
                                 &(struct node_access){0660, 0, 0}, 0)));
        free(escaped);
        escaped = NULL;
        CHECK(asprintf(&escaped, "%s/controlC0", outside) > 0);
        CHECK(lstat(escaped, &st) < 0 && errno == ENOENT);

        /* A regular file as an intermediate component. */
        int fd = openat(devfd, "dri", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        close(fd);
        CHECK_INT(node_apply(devfd, NULL, "dri/card0", 'c', makedev(226, 0),
                             &(struct node_access){0660, 0, 0}, 0),
                  -ENOTDIR);

        /* Removal through a planted symlink does not touch the outside either. */
        CHECK_INT(mknod(escaped, S_IFCHR | 0600, makedev(116, 0)), 0);
        CHECK(refused(node_remove(devfd, NULL, "snd/by-path/controlC0", 'c', makedev(116, 0))));
        CHECK_INT(lstat(escaped, &st), 0);

        /* The outside directory survives pruning attempts. */
        CHECK_INT(node_apply(devfd, NULL, "snd/x/y", 'c', makedev(116, 1), &(struct node_access){0660, 0, 0},
                             0),
                  1);
        CHECK_INT(node_remove(devfd, NULL, "snd/x/y", 'c', makedev(116, 1)), 1);
        CHECK_INT(lstat(outside, &st), 0);
        CHECK(lstat_at("snd/by-path", &st) && S_ISLNK(st.st_mode));

        outside = test_tmpdir_remove(outside);
        teardown();
}

static void test_remove(void)
{
        struct stat st;

        if (geteuid() != 0) {
                CHECK(!"node tests need root (CAP_MKNOD)");
                return;
        }
        setup();

        CHECK_INT(node_apply(devfd, NULL, "bus/usb/001/002", 'c', makedev(189, 1),
                             &(struct node_access){0664, 0, 0}, 0),
                  1);
        CHECK_INT(node_apply(devfd, NULL, "bus/usb/001/003", 'c', makedev(189, 2),
                             &(struct node_access){0664, 0, 0}, 0),
                  1);

        /* Wrong devnum or type: left alone. */
        CHECK_INT(node_remove(devfd, NULL, "bus/usb/001/002", 'c', makedev(189, 9)), 0);
        CHECK_INT(node_remove(devfd, NULL, "bus/usb/001/002", 'b', makedev(189, 1)), 0);
        CHECK(exists("bus/usb/001/002"));
        CHECK_STR(link_target("char/189:1"), "../bus/usb/001/002");

        CHECK_INT(node_remove(devfd, NULL, "bus/usb/001/002", 'c', makedev(189, 1)), 1);
        CHECK(!exists("bus/usb/001/002"));
        CHECK(!exists("char/189:1"));
        CHECK(exists("bus/usb/001/003")); /* sibling and its directories stay */
        CHECK(exists("char/189:2"));

        CHECK_INT(node_remove(devfd, NULL, "bus/usb/001/003", 'c', makedev(189, 2)), 1);
        CHECK(!exists("bus/usb/001"));
        CHECK(!exists("bus/usb"));
        CHECK(!exists("bus"));
        CHECK(lstat_at(".", &st)); /* the root itself stays */

        /* Absent: nothing to do. */
        CHECK_INT(node_remove(devfd, NULL, "bus/usb/001/003", 'c', makedev(189, 2)), 0);

        /* A char/M:m link that now points to another node is kept. */
        CHECK_INT(
                node_apply(devfd, NULL, "ttyS0", 'c', makedev(4, 64), &(struct node_access){0660, 0, 0}, 0),
                1);
        CHECK_INT(unlinkat(devfd, "char/4:64", 0), 0);
        CHECK_INT(symlinkat("../ttyS9", devfd, "char/4:64"), 0);
        CHECK_INT(node_remove(devfd, NULL, "ttyS0", 'c', makedev(4, 64)), 1);
        CHECK_STR(link_target("char/4:64"), "../ttyS9");

        /* A directory with foreign content is not pruned. */
        CHECK_INT(node_apply(devfd, NULL, "dri/card0", 'c', makedev(226, 0),
                             &(struct node_access){0660, 0, 0}, 0),
                  1);
        int fd = openat(devfd, "dri/foreign", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        close(fd);
        CHECK_INT(node_remove(devfd, NULL, "dri/card0", 'c', makedev(226, 0)), 1);
        CHECK(exists("dri/foreign"));

        teardown();
}

static void test_hostile_names(void)
{
        static const char *const bad[] = {
                "",    "/etc/shadow", "../escape", "a/../../escape", "./x",
                "x/.", "x//y",        "x/",        "x\ny",           "\x1b[2J",
        };

        setup();
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                CHECK_INT(node_apply(devfd, NULL, bad[i], 'c', makedev(1, 3),
                                     &(struct node_access){0666, 0, 0}, 0),
                          -EINVAL);
                CHECK_INT(node_remove(devfd, NULL, bad[i], 'c', makedev(1, 3)), -EINVAL);
        }
        CHECK_INT(node_apply(devfd, NULL, "ok", 'x', makedev(1, 3), &(struct node_access){0666, 0, 0}, 0),
                  -EINVAL);
        CHECK_INT(node_apply(devfd, NULL, NULL, 'c', makedev(1, 3), &(struct node_access){0666, 0, 0}, 0),
                  -EINVAL);

        /* Nothing at all was created, and nothing next to the root. */
        DIR *d = opendir(root);
        struct dirent *de;
        int n = 0;
        while (d && (de = readdir(d)))
                n += !streq(de->d_name, ".") && !streq(de->d_name, "..");
        if (d)
                closedir(d);
        CHECK_INT(n, 0);
        teardown();
}

/* Deterministic random names from a hostile alphabet: invalid ones are refused, valid ones
 * land inside the root and can all be removed again, leaving nothing but the empty "char". */
static void test_random_names(void)
{
        static const char alphabet[] = "ab./\n\\ \x01";
        unsigned seed = 12345;
        char name[16];
        char *names[400];
        int n_valid = 0, n_invalid = 0;

        if (geteuid() != 0) {
                CHECK(!"node tests need root (CAP_MKNOD)");
                return;
        }
        setup();
        char *sibling = test_tmpdir_new("node-sibling");

        for (int i = 0; i < 400; i++) {
                seed = seed * 1103515245 + 12345;
                size_t len = (seed >> 16) % 12;
                for (size_t k = 0; k < len; k++) {
                        seed = seed * 1103515245 + 12345;
                        name[k] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
                }
                name[len] = 0;
                names[i] = strdup(name);

                int r = node_apply(devfd, NULL, name, 'c', makedev(1, 3), &(struct node_access){0600, 0, 0},
                                   0);
                if (!devdir_name_valid(name)) {
                        CHECK_INT(r, -EINVAL);
                        n_invalid++;
                } else {
                        /* Valid names can still collide with earlier ones ("a" node vs "a/b"). */
                        CHECK(r >= 0 || r == -ENOTDIR || r == -EISDIR);
                        n_valid++;
                }
        }
        CHECK(n_valid > 50);
        CHECK(n_invalid > 50);

        for (int i = 0; i < 400; i++) {
                int r = node_remove(devfd, NULL, names[i], 'c', makedev(1, 3));
                CHECK(devdir_name_valid(names[i]) ? r >= 0 || r == -ENOTDIR : r == -EINVAL);
                free(names[i]);
        }

        DIR *d = opendir(root);
        struct dirent *de;
        int left = 0;
        while (d && (de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..")) {
                        CHECK_STR(de->d_name, "char");
                        left++;
                }
        if (d)
                closedir(d);
        CHECK(left <= 1);
        struct stat st;
        if (left) {
                CHECK(lstat_at("char", &st) && S_ISDIR(st.st_mode));
                CHECK(!exists("char/1:3")); /* the link went with the node it pointed to */
        }
        CHECK_INT(rmdir(sibling), 0); /* still empty: nothing escaped */
        free(sibling);
        teardown();
}

static int count_fds(void)
{
        int n = 0;
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        while (d && (de = readdir(d)))
                n += de->d_name[0] != '.';
        if (d)
                closedir(d);
        return n - 1; /* the listing's own fd */
}

/* A cache keeps the directories of names open between calls; whatever happens to them
 * meanwhile, names land in the live directory of that name. */
static void test_cache(void)
{
        struct devdir_cache cache = {0};
        struct stat st;

        if (geteuid() != 0) {
                CHECK(!"node tests need root (CAP_MKNOD)");
                return;
        }
        setup();
        int fds0 = count_fds();
        CHECK_INT(node_apply(devfd, &cache, "input/event3", 'c', makedev(13, 67),
                             &(struct node_access){0660, 0, 0}, 0),
                  1);
        CHECK_INT(count_fds(), fds0 + 2); /* input/ and char/ stay open */
        CHECK_INT(node_apply(devfd, &cache, "input/event4", 'c', makedev(13, 68),
                             &(struct node_access){0660, 0, 0}, 0),
                  1);
        CHECK_INT(count_fds(), fds0 + 2); /* and are used again */
        CHECK(lstat_at("input/event4", &st) && S_ISCHR(st.st_mode));
        CHECK_STR(link_target("char/13:68"), "../input/event4");

        /* removed behind the cache's back: made again, and used */
        CHECK_INT(unlinkat(devfd, "input/event3", 0), 0);
        CHECK_INT(unlinkat(devfd, "input/event4", 0), 0);
        CHECK_INT(unlinkat(devfd, "input", AT_REMOVEDIR), 0);
        CHECK_INT(unlinkat(devfd, "char/13:67", 0), 0);
        CHECK_INT(unlinkat(devfd, "char/13:68", 0), 0);
        CHECK_INT(unlinkat(devfd, "char", AT_REMOVEDIR), 0);
        CHECK_INT(node_apply(devfd, &cache, "input/event5", 'c', makedev(13, 69),
                             &(struct node_access){0660, 0, 0}, 0),
                  1);
        CHECK(lstat_at("input/event5", &st) && S_ISCHR(st.st_mode));
        CHECK_STR(link_target("char/13:69"), "../input/event5");
        CHECK_INT(count_fds(), fds0 + 2); /* the stale ones were closed */
        CHECK_INT(unlinkat(devfd, "char/13:69", 0), 0);
        CHECK_INT(unlinkat(devfd, "char", AT_REMOVEDIR), 0);
        CHECK_INT(node_apply(devfd, &cache, "input/event6", 'c', makedev(13, 70), NULL, NODE_IF_ABSENT), 1);
        CHECK_STR(link_target("char/13:70"), "../input/event6");
        CHECK_INT(node_remove(devfd, &cache, "input/event6", 'c', makedev(13, 70)), 1);
        CHECK_INT(count_fds(), fds0 + 2);

        /* devman's own pruning drops the directory from the cache */
        CHECK_INT(node_remove(devfd, &cache, "input/event5", 'c', makedev(13, 69)), 1);
        CHECK(!exists("input"));
        CHECK_INT(count_fds(), fds0 + 1); /* char/ only */
        /* made again by someone else: a removal finds what is there now */
        CHECK_INT(node_apply(devfd, &cache, "input/event7", 'c', makedev(13, 71),
                             &(struct node_access){0660, 0, 0}, 0),
                  1);
        CHECK_INT(unlinkat(devfd, "input/event7", 0), 0);
        CHECK_INT(unlinkat(devfd, "input", AT_REMOVEDIR), 0);
        CHECK_INT(mkdirat(devfd, "input", 0755), 0);
        CHECK_INT(mknodat(devfd, "input/event7", S_IFCHR | 0660, makedev(13, 71)), 0);
        CHECK_INT(node_remove(devfd, &cache, "input/event7", 'c', makedev(13, 71)), 1);
        CHECK(!exists("input"));

        /* more directories than slots: the oldest give way, nothing breaks */
        for (int i = 0; i < 2 * DEVDIR_CACHE_SLOTS; i++) {
                char name[32];
                snprintf(name, sizeof(name), "d%d/x", i);
                CHECK_INT(node_apply(devfd, &cache, name, 'c', makedev(1, 3),
                                     &(struct node_access){0600, 0, 0}, 0),
                          1);
                CHECK(exists(name));
        }
        CHECK_INT(count_fds(), fds0 + DEVDIR_CACHE_SLOTS);
        devdir_cache_clear(&cache);
        CHECK_INT(count_fds(), fds0);
        teardown();
}

/* A directory borrowed from the cache stays open while it is used, however many others are
 * opened through the same cache meanwhile (node_apply() opens char/ while it holds the node's
 * directory). */
static void test_cache_pinned(void)
{
        struct devdir_cache cache = {0};
        _cleanup_(devdir_parent_done) struct devdir_parent held = DEVDIR_PARENT_NULL;
        struct stat st, held_st;

        setup();
        CHECK_INT(devdir_open_parent(devfd, &cache, "p/leaf", true, &held), 0);
        CHECK(!held.owned);
        for (int i = 0; i < 2 * DEVDIR_CACHE_SLOTS; i++) {
                _cleanup_(devdir_parent_done) struct devdir_parent other = DEVDIR_PARENT_NULL;
                char name[32];
                snprintf(name, sizeof(name), "q%d/leaf", i);
                CHECK_INT(devdir_open_parent(devfd, &cache, name, true, &other), 0);
        }
        /* every other slot held too: the next directory is opened outside the cache */
        struct devdir_parent many[DEVDIR_CACHE_SLOTS];
        for (int i = 0; i < DEVDIR_CACHE_SLOTS; i++) {
                char name[32];
                snprintf(name, sizeof(name), "r%d/leaf", i);
                many[i] = DEVDIR_PARENT_NULL;
                CHECK_INT(devdir_open_parent(devfd, &cache, name, true, &many[i]), 0);
                CHECK(many[i].owned == (i == DEVDIR_CACHE_SLOTS - 1));
        }
        CHECK(fstat(held.fd, &held_st) == 0 && lstat_at("p", &st));
        CHECK(held_st.st_ino == st.st_ino);
        CHECK_INT(mkdirat(held.fd, held.leaf, 0755), 0);
        CHECK(lstat_at("p/leaf", &st) && S_ISDIR(st.st_mode));
        for (int i = 0; i < DEVDIR_CACHE_SLOTS; i++)
                devdir_parent_done(&many[i]);

        /* removed by someone else while held: a second user reopens it beside the first */
        CHECK_INT(unlinkat(devfd, "p/leaf", AT_REMOVEDIR), 0);
        CHECK_INT(unlinkat(devfd, "p", AT_REMOVEDIR), 0);
        _cleanup_(devdir_parent_done) struct devdir_parent second = DEVDIR_PARENT_NULL;
        CHECK_INT(devdir_open_parent(devfd, &cache, "p/other", true, &second), 0);
        CHECK(second.fd == held.fd);
        CHECK(mkdirat(second.fd, second.leaf, 0755) < 0 && errno == ENOENT);
        CHECK_INT(devdir_parent_reopen(devfd, &cache, "p/other", &second), 1);
        CHECK(second.owned && second.fd != held.fd);
        CHECK_INT(mkdirat(second.fd, second.leaf, 0755), 0);
        CHECK(lstat_at("p/other", &st) && S_ISDIR(st.st_mode));
        devdir_parent_done(&second);
        devdir_parent_done(&held);
        /* the stale slot, no longer held, gives way on the next failure */
        CHECK_INT(devdir_open_parent(devfd, &cache, "p/third", true, &second), 0);
        if (mkdirat(second.fd, second.leaf, 0755) < 0) {
                CHECK_INT(errno, ENOENT);
                CHECK_INT(devdir_parent_reopen(devfd, &cache, "p/third", &second), 1);
                CHECK(!second.owned && second.pinned);
                CHECK_INT(mkdirat(second.fd, second.leaf, 0755), 0);
        }
        CHECK(lstat_at("p/third", &st) && S_ISDIR(st.st_mode));
        CHECK_INT(devdir_parent_reopen(devfd, NULL, "p/x", &(struct devdir_parent){.fd = devfd}), 0);
        devdir_parent_done(&second);
        devdir_cache_clear(&cache);
        teardown();
}

/* devdir_lookup_parent() hands out a cached directory unchecked: a miss in it is checked
 * (the devdir_leaf_*() functions look again), a hit proves it alive. */
static void test_lookup_recheck(void)
{
        struct devdir_cache cache = {0};
        struct devdir_parent p = DEVDIR_PARENT_NULL;

        setup();
        CHECK_INT(devdir_open_parent(devfd, &cache, "l/x", true, &p), 0);
        CHECK_INT(mknodat(p.fd, p.leaf, S_IFREG | 0644, 0), 0);
        devdir_parent_done(&p);
        CHECK_INT(devdir_lookup_parent(devfd, &cache, "l/x", &p), 0);
        CHECK(p.pinned);
        CHECK_INT(devdir_leaf_unlink(devfd, &cache, "l/x", &p, 0), 0);
        CHECK(!exists("l/x"));
        /* a real miss in a live cached directory */
        CHECK_INT(devdir_leaf_unlink(devfd, &cache, "l/x", &p, 0), -ENOENT);
        devdir_parent_done(&p);

        /* removed and made again behind the cache's back: the miss in the stale directory is
         * checked, and the entry found where it is now */
        CHECK_INT(unlinkat(devfd, "l", AT_REMOVEDIR), 0);
        CHECK_INT(mkdirat(devfd, "l", 0755), 0);
        CHECK_INT(mknodat(devfd, "l/y", S_IFREG | 0644, 0), 0);
        CHECK_INT(devdir_lookup_parent(devfd, &cache, "l/y", &p), 0);
        CHECK_INT(devdir_leaf_unlink(devfd, &cache, "l/y", &p, 0), 0);
        CHECK(!exists("l/y"));
        devdir_parent_done(&p);

        /* removed for good: the miss stays a miss */
        CHECK_INT(unlinkat(devfd, "l", AT_REMOVEDIR), 0);
        CHECK_INT(devdir_lookup_parent(devfd, &cache, "l/y", &p), 0); /* the stale cached one */
        CHECK_INT(devdir_leaf_unlink(devfd, &cache, "l/y", &p, 0), -ENOENT);
        devdir_parent_done(&p);
        CHECK_INT(devdir_lookup_parent(devfd, &cache, "l/y", &p), -ENOENT);

        /* pruning in a stale cached directory: the empty one found where it is now goes */
        CHECK_INT(mkdirat(devfd, "m", 0755), 0);
        CHECK_INT(mkdirat(devfd, "m/n", 0755), 0);
        CHECK_INT(devdir_open_parent(devfd, &cache, "m/n/leaf", false, &p), 0);
        devdir_parent_done(&p);
        CHECK_INT(devdir_open_parent(devfd, &cache, "m/leaf", false, &p), 0);
        devdir_parent_done(&p);
        CHECK_INT(unlinkat(devfd, "m/n", AT_REMOVEDIR), 0);
        CHECK_INT(unlinkat(devfd, "m", AT_REMOVEDIR), 0);
        CHECK_INT(mkdirat(devfd, "m", 0755), 0);
        CHECK_INT(mkdirat(devfd, "m/n", 0755), 0);
        devdir_prune_parents(devfd, &cache, "m/n/leaf");
        CHECK(!exists("m"));
        devdir_cache_clear(&cache);
        teardown();
}

TEST_MAIN(TEST(test_name_valid), TEST(test_relative_target), TEST(test_add_basic), TEST(test_add_absent),
          TEST(test_flags), TEST(test_update_made), TEST(test_add_existing), TEST(test_no_follow),
          TEST(test_remove), TEST(test_hostile_names), TEST(test_random_names), TEST(test_cache),
          TEST(test_cache_pinned), TEST(test_lookup_recheck))
