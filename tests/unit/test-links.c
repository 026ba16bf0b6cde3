/* SPDX-License-Identifier: MIT */
/* Symlink claims in a private "dev" and "run" directory pair. */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "links.h"
#include "macros.h"
#include "test-tmpdir.h"
#include "test-util.h"

static char *root;
static int devfd = -1, runfd = -1;

static void open_dirs(void)
{
        char *p;
        if (asprintf(&p, "%s/dev", root) < 0)
                abort();
        devfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        free(p);
        if (asprintf(&p, "%s/run", root) < 0)
                abort();
        runfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        free(p);
        if (devfd < 0 || runfd < 0)
                abort();
}

static void close_dirs(void)
{
        close(devfd);
        close(runfd);
        devfd = runfd = -1;
}

static void setup(void)
{
        root = test_tmpdir_new("links");
        char *p;
        if (asprintf(&p, "%s/dev", root) < 0 || mkdir(p, 0755) < 0)
                abort();
        free(p);
        if (asprintf(&p, "%s/run", root) < 0 || mkdir(p, 0755) < 0)
                abort();
        free(p);
        open_dirs();
}

static void teardown(void)
{
        close_dirs();
        root = test_tmpdir_remove(root);
}

static const char *target_of(const char *name)
{
        static char buf[4096];
        ssize_t n = readlinkat(devfd, name, buf, sizeof(buf) - 1);
        if (n < 0)
                return NULL;
        buf[n] = 0;
        return buf;
}

static bool exists_at(int dirfd, const char *name)
{
        struct stat st;
        return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static bool dir_is_empty(int dirfd, const char *name)
{
        int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return false;
        DIR *d = fdopendir(fd);
        struct dirent *de;
        int n = 0;
        while ((de = readdir(d)))
                n += !streq(de->d_name, ".") && !streq(de->d_name, "..");
        closedir(d);
        return n == 0;
}

static char *owner(const char *link)
{
        static char buf[256];
        char *id = NULL;
        int r = links_get_owner(runfd, link, &id, NULL);
        if (r <= 0)
                return NULL;
        snprintf(buf, sizeof(buf), "%s", id);
        free(id);
        return buf;
}

#define L(...) ((char *[]){__VA_ARGS__, NULL})

static void test_single(void)
{
        setup();
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL,
                               L("disk/by-uuid/X", "disk/by-label/root"), 0),
                  0);
        CHECK_STR(target_of("disk/by-uuid/X"), "../../sda1");
        CHECK_STR(target_of("disk/by-label/root"), "../../sda1");
        CHECK_STR(owner("disk/by-uuid/X"), "b8:1");

        /* Set change: by-label/root dropped, by-id/ata-1 added, by-uuid/X kept. */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", L("disk/by-uuid/X", "disk/by-label/root"),
                               L("disk/by-uuid/X", "disk/by-id/ata-1"), 0),
                  0);
        CHECK(!exists_at(devfd, "disk/by-label/root"));
        CHECK(!exists_at(devfd, "disk/by-label")); /* emptied directory removed */
        CHECK_STR(target_of("disk/by-id/ata-1"), "../../sda1");
        CHECK_STR(target_of("disk/by-uuid/X"), "../../sda1");

        /* Device goes away: all links and their directories, and the claims, are gone. */
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:1", L("disk/by-uuid/X", "disk/by-id/ata-1")), 0);
        CHECK(!exists_at(devfd, "disk"));
        CHECK(dir_is_empty(runfd, "links"));
        CHECK(links_get_owner(runfd, "disk/by-uuid/X", NULL, NULL) == 0);

        /* Links next to nodes in deeper directories get the shortest relative target. */
        CHECK_INT(links_update(devfd, NULL, runfd, "c189:1", "bus/usb/001/002", NULL, L("bus/usb/by-port/1"),
                               0),
                  0);
        CHECK_STR(target_of("bus/usb/by-port/1"), "../001/002");
        teardown();
}

static void test_priority(void)
{
        setup();
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("disk/by-label/data"), 0), 0);
        /* A lower priority newcomer does not take it. */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:17", "sdb1", NULL, L("disk/by-label/data"), -10), 0);
        CHECK_STR(target_of("disk/by-label/data"), "../../sda1");
        CHECK_STR(owner("disk/by-label/data"), "b8:1");
        /* A higher one does. */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:33", "sdc1", NULL, L("disk/by-label/data"), 10), 0);
        CHECK_STR(target_of("disk/by-label/data"), "../../sdc1");
        /* Its owner drops the link from its set: back to the best remaining claim. */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:33", "sdc1", L("disk/by-label/data"), NULL, 10), 0);
        CHECK_STR(target_of("disk/by-label/data"), "../../sda1");
        /* Owner removed: the low-priority claim gets it. */
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:1", L("disk/by-label/data")), 0);
        CHECK_STR(target_of("disk/by-label/data"), "../../sdb1");
        /* A priority change of a claim re-ranks it. */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("disk/by-label/data"), -20), 0);
        CHECK_STR(target_of("disk/by-label/data"), "../../sdb1");
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", L("disk/by-label/data"),
                               L("disk/by-label/data"), -5),
                  0);
        CHECK_STR(target_of("disk/by-label/data"), "../../sda1");

        /* A claimant that does not own the link leaves: the owner keeps it, the claim is gone. */
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:17", L("disk/by-label/data")), 0);
        CHECK_STR(target_of("disk/by-label/data"), "../../sda1");
        CHECK(!exists_at(runfd, "links/disk\\x2fby-label\\x2fdata/b8:17"));
        CHECK(exists_at(runfd, "links/disk\\x2fby-label\\x2fdata/b8:1"));
        /* The link was removed by hand: the last claimant leaving still clears everything. */
        CHECK_INT(unlinkat(devfd, "disk/by-label/data", 0), 0);
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:1", L("disk/by-label/data")), 0);
        CHECK(!exists_at(devfd, "disk/by-label/data"));
        CHECK(dir_is_empty(runfd, "links"));
        /* A link someone pointed elsewhere by hand is not the claimant's to keep: it goes too. */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("disk/by-label/data"), 0), 0);
        CHECK_INT(unlinkat(devfd, "disk/by-label/data", 0), 0);
        CHECK_INT(symlinkat("../../other", devfd, "disk/by-label/data"), 0);
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:1", L("disk/by-label/data")), 0);
        CHECK(!exists_at(devfd, "disk/by-label/data"));
        CHECK(dir_is_empty(runfd, "links"));
        teardown();
}

static void test_ties(void)
{
        setup();
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("cdrom"), 0), 0);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:17", "sdb1", NULL, L("cdrom"), 0), 0);
        CHECK_STR(target_of("cdrom"), "sdb1"); /* newest of equals */
        CHECK_INT(links_update(devfd, NULL, runfd, "b11:0", "sr0", NULL, L("cdrom"), 0), 0);
        CHECK_STR(target_of("cdrom"), "sr0");

        /* Re-asserting an unchanged claim (a change event) does not reorder. */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", L("cdrom"), L("cdrom"), 0), 0);
        CHECK_STR(target_of("cdrom"), "sr0");
        /* A changed claim (new devname after a rename) is a new claim, so the newest. */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sdx1", L("cdrom"), L("cdrom"), 0), 0);
        CHECK_STR(target_of("cdrom"), "sdx1");

        /* Owner leaves: the next newest. */
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:1", NULL), 0);
        CHECK_STR(target_of("cdrom"), "sr0");
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b11:0", NULL), 0);
        CHECK_STR(target_of("cdrom"), "sdb1");
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:17", NULL), 0);
        CHECK(!exists_at(devfd, "cdrom"));
        CHECK(dir_is_empty(runfd, "links"));
        teardown();
}

static void test_restart(void)
{
        setup();
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("disk/by-label/x"), 0), 0);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:17", "sdb1", NULL, L("disk/by-label/x"), 0), 0);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:33", "sdc1", NULL, L("disk/by-label/x"), -1), 0);
        CHECK_STR(target_of("disk/by-label/x"), "../../sdb1");

        /* "Restart": nothing in memory survives but the directories. */
        close_dirs();
        open_dirs();

        /* The order of equals survived: an unchanged re-claim by the older one keeps sdb1. */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("disk/by-label/x"), 0), 0);
        CHECK_STR(target_of("disk/by-label/x"), "../../sdb1");
        /* And the other claims survived: removing owners walks down the ranking. */
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:17", L("disk/by-label/x")), 0);
        CHECK_STR(target_of("disk/by-label/x"), "../../sda1");
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:1", L("disk/by-label/x")), 0);
        CHECK_STR(target_of("disk/by-label/x"), "../../sdc1");
        teardown();
}

static void test_never_replaces_node(void)
{
        struct stat st;

        setup();
        /* A real device node (a FIFO when not root: any non-symlink must be respected). */
        if (geteuid() == 0)
                CHECK_INT(mknodat(devfd, "sr0", S_IFBLK | 0660, makedev(11, 0)), 0);
        else
                CHECK_INT(mkfifoat(devfd, "sr0", 0660), 0);

        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("sr0"), 100), -EEXIST);
        CHECK_INT(fstatat(devfd, "sr0", &st, AT_SYMLINK_NOFOLLOW), 0);
        CHECK(!S_ISLNK(st.st_mode));
        if (geteuid() == 0)
                CHECK_INT(st.st_rdev, makedev(11, 0));

        /* Releasing that claim does not remove the node either. */
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:1", L("sr0")), 0);
        CHECK_INT(fstatat(devfd, "sr0", &st, AT_SYMLINK_NOFOLLOW), 0);
        CHECK(!S_ISLNK(st.st_mode));

        /* A directory in the way is not replaced; a regular file neither. */
        CHECK_INT(mkdirat(devfd, "input", 0755), 0);
        CHECK_INT(links_update(devfd, NULL, runfd, "c13:64", "input/event0", NULL, L("input"), 0), -EEXIST);
        CHECK_INT(fstatat(devfd, "input", &st, AT_SYMLINK_NOFOLLOW), 0);
        CHECK(S_ISDIR(st.st_mode));

        /* Other links of the same update are still made. */
        CHECK_INT(links_update(devfd, NULL, runfd, "c13:64", "input/event0", NULL,
                               L("input", "input/by-path/p"), 0),
                  -EEXIST);
        CHECK_STR(target_of("input/by-path/p"), "../event0");
        teardown();
}

static void test_hostile(void)
{
        struct stat st;

        setup();
        char *outside = test_tmpdir_new("links-outside");

        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("../escape"), 0), -EINVAL);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("/etc/escape"), 0), -EINVAL);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("a/./b"), 0), -EINVAL);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "../sda1", NULL, L("ok"), 0), -EINVAL);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1\nx", "sda1", NULL, L("ok"), 0), -EINVAL);
        CHECK(!exists_at(devfd, "ok"));

        /* A planted symlink as an intermediate directory is not followed. */
        CHECK_INT(symlinkat(outside, devfd, "disk"), 0);
        int r = links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("disk/by-id/x"), 0);
        CHECK(r == -ENOTDIR || r == -ELOOP);
        char *p;
        CHECK(asprintf(&p, "%s/by-id", outside) > 0);
        CHECK(lstat(p, &st) < 0 && errno == ENOENT);
        free(p);

        /* Names with '/', '\' and a leading '.' have distinct claim directories. */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:2", "sda2", NULL, L("x/a\\b", "x/a/b", ".hidden"), 0),
                  0);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:3", "sda3", NULL, L("x/a\\x2fb"), 0), 0);
        CHECK_STR(target_of("x/a\\b"), "../sda2");
        CHECK_STR(target_of("x/a/b"), "../../sda2");
        CHECK_STR(target_of(".hidden"), "sda2");
        CHECK_STR(target_of("x/a\\x2fb"), "../sda3");
        CHECK_STR(owner("x/a\\b"), "b8:2");
        CHECK_STR(owner("x/a\\x2fb"), "b8:3");

        /* Long names (escaped form beyond NAME_MAX) work and are found by the scans. */
        char longlink[300];
        snprintf(longlink, sizeof(longlink), "disk2/by-id/%0240d", 7);
        CHECK_INT(
                links_update(devfd, NULL, runfd, "+scsi:0:0:0:0/with/slashes", "sdz", NULL, L(longlink), 0),
                0);
        CHECK_STR(target_of(longlink), "../../sdz");
        CHECK_STR(owner(longlink), "+scsi:0:0:0:0/with/slashes");
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "+scsi:0:0:0:0/with/slashes", NULL), 0);
        CHECK(!exists_at(devfd, longlink));
        CHECK(!exists_at(devfd, "disk2"));

        outside = test_tmpdir_remove(outside);
        teardown();
}

static bool live_set(const char *id, void *userdata)
{
        for (char **l = userdata; *l; l++)
                if (streq(*l, id))
                        return true;
        return false;
}

static void test_gc(void)
{
        setup();
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("disk/by-label/x"), 1), 0);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:17", "sdb1", NULL, L("disk/by-label/x"), 0), 0);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:33", "sdc1", NULL, L("disk/by-label/y"), 0), 0);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:49", "sdd1", NULL, L("disk/by-label/z"), 0), 0);
        CHECK_STR(target_of("disk/by-label/x"), "../../sda1");

        /* Damage as a crash might leave it: z's /dev link is missing, a stray link w with an empty
         * claim directory, and an unreadable record. */
        CHECK_INT(unlinkat(devfd, "disk/by-label/z", 0), 0);
        CHECK_INT(symlinkat("../../sdq", devfd, "disk/by-label/w"), 0);
        CHECK_INT(mkdirat(runfd, "links/disk\\x2fby-label\\x2fw", 0755), 0);
        int fd =
                openat(runfd, "links/disk\\x2fby-label\\x2fx/garbage", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        close(fd);

        /* sda1 and sdc1 went away while the daemon was down. */
        CHECK_INT(links_gc(devfd, runfd, live_set, L("b8:17", "b8:49")), 3);
        CHECK_STR(target_of("disk/by-label/x"), "../../sdb1");
        CHECK(!exists_at(devfd, "disk/by-label/y"));
        CHECK_STR(target_of("disk/by-label/z"), "../../sdd1");
        CHECK(!exists_at(devfd, "disk/by-label/w"));
        CHECK(!exists_at(runfd, "links/disk\\x2fby-label\\x2fw"));
        CHECK(!exists_at(runfd, "links/disk\\x2fby-label\\x2fy"));
        CHECK(!exists_at(runfd, "links/disk\\x2fby-label\\x2fx/garbage"));
        CHECK_STR(owner("disk/by-label/x"), "b8:17");

        /* Nothing left to collect: a second run changes nothing. */
        CHECK_INT(links_gc(devfd, runfd, live_set, L("b8:17", "b8:49")), 0);
        CHECK_STR(target_of("disk/by-label/x"), "../../sdb1");

        /* Everything gone. */
        CHECK_INT(links_gc(devfd, runfd, live_set, L("none")), 2);
        CHECK(dir_is_empty(devfd, "."));
        CHECK(dir_is_empty(runfd, "links"));
        teardown();
}

/* On disk, the one form (as systemd 252's udevd keeps /run/udev/links): a directory per link,
 * a claim per device in it, also for a link's only claimant; a crash's leftovers and an
 * earlier devman's single claims (one symlink directly in links/) are settled by links_gc(). */
static void test_claim_form(void)
{
        struct stat st;
        char buf[256];

        setup();
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", NULL, L("disk/by-label/s"), 0), 0);
        CHECK(fstatat(runfd, "links/disk\\x2fby-label\\x2fs", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
              S_ISDIR(st.st_mode));
        ssize_t n = readlinkat(runfd, "links/disk\\x2fby-label\\x2fs/b8:1", buf, sizeof(buf) - 1);
        CHECK(n > 0);
        buf[n > 0 ? n : 0] = 0;
        CHECK_STR(buf, "0\n1\nsda1\nb8:1\ndisk/by-label/s");
        /* its own change rewrites it */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", L("disk/by-label/s"),
                               L("disk/by-label/s"), 5),
                  0);
        n = readlinkat(runfd, "links/disk\\x2fby-label\\x2fs/b8:1", buf, sizeof(buf) - 1);
        buf[n > 0 ? n : 0] = 0;
        CHECK_STR(buf, "5\n1\nsda1\nb8:1\ndisk/by-label/s");
        /* an unchanged claim (a change event) repairs its link */
        CHECK_INT(unlinkat(devfd, "disk/by-label/s", 0), 0);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", L("disk/by-label/s"),
                               L("disk/by-label/s"), 5),
                  0);
        CHECK_STR(target_of("disk/by-label/s"), "../../sda1");

        /* a second claimant joins the directory */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:17", "sdb1", NULL, L("disk/by-label/s"), 5), 0);
        CHECK(exists_at(runfd, "links/disk\\x2fby-label\\x2fs/b8:1"));
        CHECK(exists_at(runfd, "links/disk\\x2fby-label\\x2fs/b8:17"));
        CHECK_STR(target_of("disk/by-label/s"), "../../sdb1"); /* the newer of equals */
        CHECK_STR(owner("disk/by-label/s"), "b8:17");
        /* an unchanged claim among others, link damaged: repaired to the owner, not to itself */
        CHECK_INT(unlinkat(devfd, "disk/by-label/s", 0), 0);
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:1", "sda1", L("disk/by-label/s"),
                               L("disk/by-label/s"), 5),
                  0);
        CHECK_STR(target_of("disk/by-label/s"), "../../sdb1");
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:17", L("disk/by-label/s")), 0);
        CHECK_STR(target_of("disk/by-label/s"), "../../sda1");
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:1", L("disk/by-label/s")), 0);
        CHECK(!exists_at(devfd, "disk"));
        CHECK(dir_is_empty(runfd, "links"));

        /* crash leftovers: a released claim whose /dev link and directory are still there */
        CHECK_INT(links_update(devfd, NULL, runfd, "b8:2", "sda2", NULL, L("disk/by-label/t"), 0), 0);
        CHECK_INT(unlinkat(runfd, "links/disk\\x2fby-label\\x2ft/b8:2", 0), 0);
        CHECK_STR(target_of("disk/by-label/t"), "../../sda2");
        CHECK_INT(links_gc(devfd, runfd, live_set, L("b8:2")), 0);
        CHECK(!exists_at(devfd, "disk"));
        CHECK(dir_is_empty(runfd, "links"));

        /* an earlier devman's single claims, one of a live device, one of a gone one, and a
         * temporary its release left: moved into directories, dropped, settled */
        CHECK_INT(mkdirat(devfd, "disk", 0755), 0);
        CHECK_INT(mkdirat(devfd, "disk/by-label", 0755), 0);
        CHECK_INT(symlinkat("../../sda3", devfd, "disk/by-label/u"), 0);
        CHECK_INT(symlinkat("../../sda4", devfd, "disk/by-label/v"), 0);
        CHECK_INT(symlinkat("../../sda5", devfd, "disk/by-label/w"), 0);
        CHECK_INT(symlinkat("0\n1\nsda3\nb8:3\ndisk/by-label/u", runfd, "links/disk\\x2fby-label\\x2fu"), 0);
        CHECK_INT(symlinkat("0\n1\nsda4\nb8:4\ndisk/by-label/v", runfd, "links/disk\\x2fby-label\\x2fv"), 0);
        CHECK_INT(symlinkat("0\n1\nsda5\nb8:5\ndisk/by-label/w", runfd,
                            "links/" DEVDIR_TMP_PREFIX "0000000000000001"),
                  0);
        CHECK_INT(links_gc(devfd, runfd, live_set, L("b8:3", "b8:5")), 1);
        CHECK(fstatat(runfd, "links/disk\\x2fby-label\\x2fu", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
              S_ISDIR(st.st_mode));
        CHECK(exists_at(runfd, "links/disk\\x2fby-label\\x2fu/b8:3"));
        CHECK_STR(target_of("disk/by-label/u"), "../../sda3");
        CHECK_STR(owner("disk/by-label/u"), "b8:3");
        CHECK(!exists_at(runfd, "links/disk\\x2fby-label\\x2fv"));
        CHECK(!exists_at(devfd, "disk/by-label/v"));
        CHECK(!exists_at(runfd, "links/" DEVDIR_TMP_PREFIX "0000000000000001"));
        CHECK(!exists_at(devfd, "disk/by-label/w"));
        CHECK_INT(links_remove_all(devfd, NULL, runfd, "b8:3", L("disk/by-label/u")), 0);
        CHECK(!exists_at(devfd, "disk"));
        CHECK(dir_is_empty(runfd, "links"));
        teardown();
}

/* The same moves with the daemon's cache of directories: links still land in the live
 * directories, whether devman pruned them or someone else removed them in between. */
static void test_cached_dirs(void)
{
        struct devdir_cache cache = {0};

        setup();
        CHECK_INT(links_update(devfd, &cache, runfd, "b8:1", "sda1", NULL,
                               L("disk/by-uuid/X", "disk/by-label/root"), 0),
                  0);
        CHECK_INT(links_update(devfd, &cache, runfd, "b8:2", "sda2", NULL, L("disk/by-uuid/Y"), 0), 0);
        CHECK_STR(target_of("disk/by-uuid/Y"), "../../sda2");

        /* pruned by devman: by-label/ goes, then comes back */
        CHECK_INT(links_update(devfd, &cache, runfd, "b8:1", "sda1",
                               L("disk/by-uuid/X", "disk/by-label/root"), L("disk/by-uuid/X"), 0),
                  0);
        CHECK(!exists_at(devfd, "disk/by-label"));
        CHECK_INT(links_update(devfd, &cache, runfd, "b8:2", "sda2", L("disk/by-uuid/Y"),
                               L("disk/by-uuid/Y", "disk/by-label/data"), 0),
                  0);
        CHECK_STR(target_of("disk/by-label/data"), "../../sda2");

        /* removed by someone else: made again */
        CHECK_INT(unlinkat(devfd, "disk/by-uuid/X", 0), 0);
        CHECK_INT(unlinkat(devfd, "disk/by-uuid/Y", 0), 0);
        CHECK_INT(unlinkat(devfd, "disk/by-uuid", AT_REMOVEDIR), 0);
        CHECK_INT(links_update(devfd, &cache, runfd, "b8:3", "sda3", NULL, L("disk/by-uuid/Z"), 0), 0);
        CHECK_STR(target_of("disk/by-uuid/Z"), "../../sda3");

        CHECK_INT(links_remove_all(devfd, &cache, runfd, "b8:2", L("disk/by-uuid/Y", "disk/by-label/data")),
                  0);
        CHECK(!exists_at(devfd, "disk/by-label"));
        CHECK_INT(links_remove_all(devfd, &cache, runfd, "b8:3", L("disk/by-uuid/Z")), 0);
        CHECK_INT(links_remove_all(devfd, &cache, runfd, "b8:1", L("disk/by-uuid/X")), 0);
        CHECK(!exists_at(devfd, "disk"));
        devdir_cache_clear(&cache);
        teardown();
}

TEST_MAIN(TEST(test_single), TEST(test_priority), TEST(test_ties), TEST(test_restart),
          TEST(test_never_replaces_node), TEST(test_hostile), TEST(test_gc), TEST(test_cached_dirs),
          TEST(test_claim_form))
